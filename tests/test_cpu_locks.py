"""Locks, priority inversion, inheritance and the priority ceiling (issue 23 item 4): the Mars Pathfinder inversion
under the three protocols, transitive inheritance, nested sections, the waiter that takes a released resource,
sections on periodic jobs, deadlock detection and the ceiling preventing it, computed by hand in the comments; bad
input names its field; properties over random scenarios."""
from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from schedulers import ScenarioError, simulate
from schedulers.cpu.presets import PATHFINDER, PRESETS, versus

from cpu_support import chart, events


def run(scenario, **changes):
    return simulate("cpu", {**scenario, **changes})


def done(result):
    return {row["name"]: row["completion"] for row in result["tasks"]}


def lock_events(result):
    return [(e["kind"], e["task"], e["time"], e.get("resource")) for step in result["steps"] for e in step["events"]
            if e["kind"] in ("lock", "wait", "unlock")]


def section(resource, start, length):
    return {"resource": resource, "start": start, "length": length}


def task(name, arrival, burst, priority, *sections):
    return {"name": name, "arrival": arrival, "burst": burst, "priority": priority, "sections": list(sections)}


def test_pathfinder_without_a_protocol_h_waits_behind_m():
    # L (priority 3) holds R over its units 1-2, H (1) needs R at its unit 1, M (2) needs nothing.
    # [0,1) L; t=1 L locks R, [1,2) L; t=2 H arrives and preempts, [2,3) H (unit 0); t=3 M arrives, H needs R:
    # waits (held by L); ready L (3) and M (2): M [3,7), done 7; [7,8) L (unit 2) releases R at 8, H takes it;
    # t=8 H preempts L, [8,10) done 10; [10,11) L done 11. H, the most urgent, completes after M: the inversion.
    result = run(PATHFINDER)
    assert chart(result) == "LLHMMMMLHHL"
    assert done(result) == {"L": 11, "H": 10, "M": 7}
    assert lock_events(result) == [("lock", "L", 1, "R"), ("wait", "H", 3, "R"), ("unlock", "L", 8, "R"),
                                   ("unlock", "H", 9, "R")]
    step = result["steps"][4]   # the slice [3,4): M runs while H waits for R, held by L
    assert (step["holders"], step["waiters"]) == ({"R": "L"}, {"R": ["H"]})
    assert step["effective"] == {"L": "L", "H": "H", "M": "M"}
    assert step["why"]["en"].startswith("H waits for R, held by L. t=3: M (priority 2) is dispatched")
    assert step["why"]["ja"].startswith("HはRを待ちます（Lが保持しています）。")
    assert result["deadlock"] is None and result["parameters"]["protocol"] == "none"
    # The chart's spans: L holds R over [1,8), H waits for it over [3,8) and then holds it over [8,9).
    assert result["resources"] == [{"name": "R", "users": ["L", "H"], "ceiling": "H",
                                    "holds": [{"task": "L", "from": 1, "until": 8},
                                              {"task": "H", "from": 8, "until": 9}],
                                    "waits": [{"task": "H", "from": 3, "until": 8}]}]


def test_pathfinder_under_inheritance_l_runs_at_h_priority():
    # As above to t=3, where H waits for R: L inherits H's priority 1 and beats M (2): [3,4) L (unit 2) releases R
    # at 4, H takes it; t=4 H preempts L (back at 3), [4,6) done 6; M [6,10) done 10; L [10,11) done 11.
    result = run(PATHFINDER, protocol="inheritance")
    assert chart(result) == "LLHLHHMMMML"
    assert done(result) == {"L": 11, "H": 6, "M": 10}
    step = result["steps"][4]
    assert step["effective"] == {"L": "H", "H": "H", "M": "M"} and step["running"] == "L"
    assert "L (priority 1 of H) is dispatched" in step["why"]["en"]
    assert "Priority inheritance: L runs at H's priority (priority 1) while it blocks H." in step["why"]["en"]
    assert "優先度継承: LはHを待たせている間、Hの優先度（優先度1）で実行します。" in step["why"]["ja"]
    assert "L is back at its own priority (priority 3)." in result["steps"][5]["why"]["en"]


def test_pathfinder_under_the_ceiling_h_never_waits():
    # R's ceiling is H's priority 1 (the best of its users L and H). t=1 L locks R and runs at 1; t=2 H (1) arrives
    # and is not strictly better: no preemption; [2,3) L releases R at 3; t=3 H preempts L (back at 3), [3,6) H
    # locks R at 4 (free) and is done at 6; M [6,10); L [10,11).
    result = run(PATHFINDER, protocol="ceiling")
    assert chart(result) == "LLLHHHMMMML"
    assert done(result) == {"L": 11, "H": 6, "M": 10}
    assert not [e for e in lock_events(result) if e[0] == "wait"]
    step = result["steps"][2]
    assert step["effective"] == {"L": "H"}
    assert "Priority ceiling: L holds R and runs at the ceiling, H's priority (priority 1)." in step["why"]["en"]
    assert "優先度上限プロトコル" in step["why"]["ja"]


def test_the_pathfinder_presets_compare_two_protocols_each():
    assert run(PRESETS["pathfinder-inheritance"]["scenario"])["timeline"] == run(PATHFINDER)["timeline"]
    assert chart(run(versus("pathfinder-inheritance"))) == "LLHLHHMMMML"
    assert chart(run(PRESETS["pathfinder-ceiling"]["scenario"])) == "LLLHHHMMMML"
    assert versus("pathfinder-ceiling")["protocol"] == "none"


TRANSITIVE = {"algorithm": "priority-preemptive", "tasks": [
    task("L", 0, 3, 4, section("R1", 0, 2)),
    task("M", 1, 3, 3, section("R2", 0, 3), section("R1", 1, 1)),
    task("H", 2, 2, 1, section("R2", 0, 1)),
    {"name": "X", "arrival": 2, "burst": 3, "priority": 2}]}


def test_inheritance_is_transitive():
    # t=0 L locks R1, [0,1); t=1 M (3) preempts L (4), locks R2, [1,2); t=2 H (1) and X (2) arrive, H preempts M
    # and waits for R2 (held by M): M inherits 1, is dispatched and waits for R1 (held by L): L inherits H's 1
    # through M and beats X (2): [2,3) L releases R1 at 3, M takes it; t=3 M (still at H's 1, it holds R2)
    # preempts L: [3,5) M releases R1 at 4, R2 at 5 (H takes it), done 5; [5,7) H done 7; X [7,10); L [10,11).
    result = run(TRANSITIVE, protocol="inheritance")
    assert chart(result) == "LMLMMHHXXXL"
    assert done(result) == {"L": 11, "M": 5, "H": 7, "X": 10}
    step = result["steps"][3]
    assert step["effective"]["L"] == "H" and step["effective"]["M"] == "H"
    assert step["waiters"] == {"R1": ["M"], "R2": ["H"]}
    # Without it X (2) runs while H waits: [2,5) X; t=5 M waits for R1, [5,6) L releases it; [6,8) M, R2 to H at
    # 8; [8,10) H done 10; [10,11) L.
    plain = run(TRANSITIVE)
    assert chart(plain) == "LMXXXLMMHHL"
    assert done(plain)["H"] == 10


def test_nested_sections_lock_outer_first_and_release_inner_first():
    # A's units 0-2 hold R, unit 1 also S: locks R then S at 0 and 1; S released at 2, R at 3.
    result = run({"algorithm": "priority", "tasks": [
        task("A", 0, 4, 0, section("S", 1, 1), section("R", 0, 3))]})
    assert lock_events(result) == [("lock", "A", 0, "R"), ("lock", "A", 1, "S"), ("unlock", "A", 2, "S"),
                                   ("unlock", "A", 3, "R")]
    # Two sections starting at one unit: the longer (outer) is locked first, the inner released first.
    result = run({"algorithm": "priority", "tasks": [task("A", 0, 3, 0, section("S", 0, 1), section("R", 0, 2))]})
    assert lock_events(result) == [("lock", "A", 0, "R"), ("lock", "A", 0, "S"), ("unlock", "A", 1, "S"),
                                   ("unlock", "A", 2, "R")]


def test_a_released_resource_goes_to_the_best_waiter_then_the_first_to_wait():
    # L (5) holds R over [0,3); A (2) arrives at 1, preempts, waits; L runs; B (1) arrives at 2, preempts, waits;
    # L releases R at 3 and completes: B, the higher priority, takes R: [3,4) B releases it to A; [4,5) A
    # releases it to nobody.
    waiters = {"algorithm": "priority-preemptive", "tasks": [
        task("L", 0, 3, 5, section("R", 0, 3)), task("A", 1, 1, 2, section("R", 0, 1)),
        task("B", 2, 1, 1, section("R", 0, 1))]}
    result = run(waiters)
    assert chart(result) == "LLLBA"
    assert [e for e in events(result, "unlock")] == [("unlock", "L", 3), ("unlock", "B", 4), ("unlock", "A", 5)]
    assert [e["to"] for step in result["steps"] for e in step["events"] if e["kind"] == "unlock"] == ["B", "A", None]
    assert "L releases R; B, its waiter of highest priority, takes it." in result["steps"][3]["why"]["en"]
    # Equal priorities: A waited first and takes it.
    waiters["tasks"][2]["priority"] = 2
    waiters["tasks"][1]["priority"] = 2
    assert chart(run(waiters)) == "LLLAB"


def test_sections_hold_in_every_job_under_rm_and_dm():
    # A: C 2, T 5, R at its unit 0; B: C 4, T 10, R over all 4 units. RM: [0,2) A#1; t=2 B#1 locks R, [2,5);
    # t=5 A#2 preempts and waits for R (held by B#1): [5,6) B#1 releases R to A#2, done 6; [6,8) A#2 done 8
    # (deadline 10), the last job (horizon lcm 10). Under the ceiling (A's priority) A#2 does not even preempt.
    scenario = {"algorithm": "rm", "tasks": [
        {"name": "A", "arrival": 0, "burst": 2, "period": 5, "sections": [section("R", 0, 1)]},
        {"name": "B", "arrival": 0, "burst": 4, "period": 10, "sections": [section("R", 0, 4)]}]}
    for algorithm in ("rm", "dm"):
        for protocol in ("none", "inheritance", "ceiling"):
            result = run(scenario, algorithm=algorithm, protocol=protocol)
            assert result["timeline"] == ["A#1"] * 2 + ["B#1"] * 4 + ["A#2"] * 2
            waits = [e for e in lock_events(result) if e[0] == "wait"]
            assert waits == ([] if protocol == "ceiling" else [("wait", "A#2", 5, "R")])
            (resource,) = result["resources"]
            assert (resource["users"], resource["ceiling"]) == (["A", "B"], "A")
            assert resource["holds"][:2] == [{"task": "A#1", "from": 0, "until": 1},
                                             {"task": "B#1", "from": 2, "until": 6}]


DEADLOCK = {"algorithm": "priority-preemptive", "tasks": [
    task("A", 0, 4, 2, section("R1", 0, 3), section("R2", 1, 1)),
    task("B", 1, 4, 1, section("R2", 0, 3), section("R1", 1, 1))]}


@pytest.mark.parametrize("protocol", ["none", "inheritance"])
@pytest.mark.parametrize("trace", [True, "compact", False])
def test_a_deadlock_ends_the_run_naming_who_waits_for_what(protocol, trace):
    # t=0 A locks R1, [0,1); t=1 B (1) preempts, locks R2, [1,2); t=2 B needs R1 (A holds it): waits; A is
    # dispatched and needs R2 (B holds it): waits. A cycle: the run ends at t=2, neither completes.
    result = simulate("cpu", {**DEADLOCK, "protocol": protocol}, trace=trace)
    assert chart(result) == "AB"
    assert done(result) == {"A": None, "B": None}
    assert result["averages"] == {"turnaround": None, "waiting": None, "response": None}
    assert result["summary"]["busy"] == 2 and result["summary"]["makespan"] == 2
    found = result["deadlock"]
    assert found["time"] == 2
    assert found["cycle"] == [{"task": "A", "holds": "R1", "waits_for": "R2", "held_by": "B"},
                              {"task": "B", "holds": "R2", "waits_for": "R1", "held_by": "A"}]
    assert found["why"]["en"] == ("Deadlock at t=2: A holds R1 and waits for R2, held by B; B holds R2 and waits "
                                  "for R1, held by A. No task of the cycle can go on, so the run ends here.")
    assert found["why"]["ja"].startswith("t=2でデッドロックです: AはR1を保持し、Bが保持するR2を待っています")
    if trace is not False:
        last = result["steps"][-1]
        assert (last["time"], last["decision"]) == (2, "deadlock")
        assert last["why"]["en"].endswith(found["why"]["en"])
        assert last["waiters"] == {"R1": ["B"], "R2": ["A"]}


def test_the_ceiling_prevents_the_deadlock():
    # Both resources' ceiling is B's 1. t=0 A locks R1 and runs at 1; t=1 B (1) is not strictly better: [1,2) A
    # locks R2, releases it at 2, R1 at 3; t=3 A is back at 2, B preempts: [3,7) B done 7; [7,8) A done 8.
    result = run(DEADLOCK, protocol="ceiling")
    assert chart(result) == "AAABBBBA"
    assert done(result) == {"A": 8, "B": 7} and result["deadlock"] is None


def test_a_deadlock_with_a_bystander_still_ends_the_run():
    # C (9) never runs: the deadlock at t=2 ends the run; its row has no numbers, the others' averages neither.
    scenario = {**DEADLOCK, "tasks": [*DEADLOCK["tasks"], {"name": "C", "arrival": 0, "burst": 1, "priority": 9}]}
    result = run(scenario)
    assert result["deadlock"]["time"] == 2 and done(result) == {"A": None, "B": None, "C": None}


def test_sections_in_the_compact_text_form():
    # resource:start:length (fields.records), the records separated by ";": the editor's cell and a link's part
    scenario = {**PATHFINDER, "tasks": [{**t, "sections": "R:1:2"} if t["name"] == "L" else
                                        {**t, "sections": "R:1:1"} if t["name"] == "H" else t
                                        for t in PATHFINDER["tasks"]]}
    assert run(scenario)["timeline"] == run(PATHFINDER)["timeline"]
    nested = run({"algorithm": "priority", "tasks": [{"name": "A", "arrival": 0, "burst": 4,
                                                       "sections": "R:0:3; S:start=1:length=1"}]})
    assert [e[3] for e in lock_events(nested)] == ["R", "S", "S", "R"]
    for text, field in (("R:1", "length"), ("R:x:1", "start"), (":1:1", "resource"), ("R:1:9", "length")):
        with pytest.raises(ScenarioError) as error:
            run({"algorithm": "priority", "tasks": [{"name": "A", "arrival": 0, "burst": 4, "sections": text}]})
        assert error.value.field == f"tasks[0].sections[0].{field}"
    with pytest.raises(ScenarioError) as error:
        run({"algorithm": "priority", "tasks": [{"name": "A", "arrival": 0, "burst": 4, "sections": "R:0:1:2"}]})
    assert error.value.field == "tasks[0].sections[0]"


@pytest.mark.parametrize("change, field", [
    ({"tasks": [task("A", 0, 2, 0, section("R", 2, 1))]}, "tasks[0].sections[0].start"),
    ({"tasks": [task("A", 0, 2, 0, section("R", 1, 2))]}, "tasks[0].sections[0].length"),
    ({"tasks": [task("A", 0, 5, 0, section("R", 0, 3), section("S", 2, 2))]}, "tasks[0].sections[1].start"),
    ({"tasks": [task("A", 0, 5, 0, section("R", 0, 3), section("R", 1, 1))]}, "tasks[0].sections[1].resource"),
    ({"tasks": [task("A", 0, 5, 0, {"resource": "R", "start": 0})]}, "tasks[0].sections[0].length"),
    ({"tasks": [task("A", 0, 5, 0, {"resource": "R", "start": 0, "length": 1, "lenght": 1})]},
     "tasks[0].sections[0].lenght"),
    ({"tasks": [task("A", 0, 5, 0, section("R", -1, 1))]}, "tasks[0].sections[0].start"),
    ({"tasks": [task("A", 0, 5, 0, section("R", 0, 0))]}, "tasks[0].sections[0].length"),
    ({"tasks": [task("A", 0, 5, 0, section("", 0, 1))]}, "tasks[0].sections[0].resource"),
    ({"tasks": [{"name": "A", "arrival": 0, "burst": 2, "sections": 5}]}, "tasks[0].sections"),
    ({"tasks": [{"name": "A", "arrival": 0, "bursts": [2, 1, 2], "sections": [section("R", 0, 1)]}]},
     "tasks[0].sections"),
    ({"algorithm": "fcfs"}, "tasks[0].sections"),
    ({"algorithm": "edf"}, "tasks[0].sections"),
    ({"aging": 2}, "tasks[0].sections"),
    ({"cpus": 2}, "cpus"),
    ({"switch_cost": 1}, "switch_cost"),
    ({"protocol": "priority"}, "protocol"),
])
def test_bad_input_names_the_field(change, field):
    with pytest.raises(ScenarioError) as error:
        run(PATHFINDER, **change)
    assert error.value.field == field


def test_a_protocol_under_another_rule_is_refused_and_abort_with_sections():
    with pytest.raises(ScenarioError) as error:
        run({"algorithm": "rr", "tasks": [{"name": "A", "arrival": 0, "burst": 1}]}, protocol="inheritance")
    assert error.value.field == "protocol"
    with pytest.raises(ScenarioError) as error:
        run({"algorithm": "rm", "on_miss": "abort", "tasks": [
            {"name": "A", "arrival": 0, "burst": 1, "period": 2, "sections": [section("R", 0, 1)]}]})
    assert error.value.field == "on_miss"


names = st.sampled_from("ABCDE")


@st.composite
def scenarios(draw):
    """Up to 5 tasks, bursts 1-5, sections on R1 and R2 (nested or apart) placed inside each burst."""
    tasks = []
    for index in range(draw(st.integers(1, 5))):
        burst = draw(st.integers(1, 5))
        sections = []
        for resource in draw(st.lists(st.sampled_from(["R1", "R2"]), max_size=2, unique=True)):
            if not sections:
                start = draw(st.integers(0, burst - 1))
                sections.append(section(resource, start, draw(st.integers(1, burst - start))))
            else:   # nested inside the first
                outer = sections[0]
                start = draw(st.integers(outer["start"], outer["start"] + outer["length"] - 1))
                length = draw(st.integers(1, outer["start"] + outer["length"] - start))
                sections.append(section(resource, start, length))
        tasks.append(task("ABCDE"[index], draw(st.integers(0, 6)), burst, draw(st.integers(0, 3)), *sections))
    algorithm = draw(st.sampled_from(["priority", "priority-preemptive"]))
    return {"algorithm": algorithm, "tasks": tasks}


@settings(max_examples=150, deadline=None)
@given(scenarios(), st.sampled_from(["none", "inheritance", "ceiling"]))
def test_every_run_completes_or_names_a_deadlock(scenario, protocol):
    result = run(scenario, protocol=protocol)
    if not any(t["sections"] for t in scenario["tasks"]):   # the shared loop's run: no locks in it
        assert "deadlock" not in result and "holders" not in result["steps"][-1]
        return
    if result["deadlock"] is None:
        assert all(row["completion"] is not None for row in result["tasks"])
        assert result["summary"]["busy"] == sum(t["burst"] for t in scenario["tasks"])
    else:
        assert protocol != "ceiling" and len(result["deadlock"]["cycle"]) == 2
    for step in result["steps"][1:]:   # one holder per resource, never waiting for what it holds
        for resource, waiting in step["waiters"].items():
            assert step["holders"][resource] not in waiting
            assert not waiting or step["holders"][resource] is not None
    if protocol == "ceiling":   # on one CPU the immediate ceiling never lets a task block on a lock
        assert not [e for e in lock_events(result) if e[0] == "wait"]


@settings(max_examples=100, deadline=None)
@given(scenarios())
def test_sections_nobody_else_uses_change_nothing(scenario):
    # Each task's own resources: nobody ever waits, and the run is the shared loop's without sections.
    alone = {**scenario, "tasks": [{**t, "sections": [{**s, "resource": t["name"] + s["resource"]}
                                                      for s in t["sections"]]} for t in scenario["tasks"]]}
    plain = {**scenario, "tasks": [{k: v for k, v in t.items() if k != "sections"} for t in scenario["tasks"]]}
    for protocol in ("none", "inheritance", "ceiling"):
        result = run(alone, protocol=protocol)
        assert result["timeline"] == run(plain)["timeline"]
        assert done(result) == done(run(plain))


def test_the_command_line_takes_the_protocol_and_says_the_deadlock(tmp_path):
    import json
    import subprocess
    import sys

    from cpu_support import ROOT

    def cli(scenario, *options):
        path = tmp_path / "scenario.json"
        path.write_text(json.dumps(scenario), encoding="utf-8")
        return subprocess.run([sys.executable, "-m", "schedulers", "cpu", "--scenario", str(path), *options],
                              capture_output=True, text=True, check=True, cwd=ROOT).stdout

    printed = json.loads(cli(PATHFINDER, "--protocol", "ceiling", "--json"))
    assert printed == run(PATHFINDER, protocol="ceiling")
    text = cli(DEADLOCK, "--lang", "ja")
    assert text.splitlines()[-1] == run(DEADLOCK)["deadlock"]["why"]["ja"]
    assert "A        0        4      -" in cli(DEADLOCK)   # no completion: a dash, not None
    trace = cli(DEADLOCK, "--trace").splitlines()
    assert trace[-3:] == ["[ time 2 ] B waits for R1, held by A", "[ time 2 ] A waits for R2, held by B",
                          "[ time 2 ] Deadlock: the run ends"]
