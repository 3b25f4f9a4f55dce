"""I/O bursts (issue 20, item 1): hand-computed cases under every rule family, the MLFQ I/O rules, the results and
the trace, then properties on random workloads (Hypothesis)."""
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schedulers import ScenarioError, simulate
from schedulers.cpu import ALGORITHMS, run
from schedulers.cpu.policies import RULES
from schedulers.cpu.presets import PRESETS, versus
from schedulers.cpu.scenario import format_bursts, read_bursts


def task(name, arrival, shape, **extra):
    """A task whose ``shape`` is a burst (int) or its bursts (list)."""
    return {"name": name, "arrival": arrival, **({"burst": shape} if isinstance(shape, int) else {"bursts": shape}),
            **extra}


def chart(result):
    """One letter per unit: the task, "." idle, "~" a switch."""
    return "".join(e if isinstance(e, str) else "." if e is None else "~" for e in result["timeline"])


def cpu(algorithm, tasks, **parameters):
    return run({"algorithm": algorithm, "tasks": tasks, **parameters})


def test_every_rule_s_docstring_says_its_io_choice():
    assert [rule.name for rule in RULES if "I/O" not in (rule.__doc__ or "")] == []


def test_a_task_blocks_at_the_end_of_a_cpu_burst_and_returns_as_an_arrival():
    # A runs [0,2), is blocked over [2,5), B runs [2,5), A returns at 5 and runs [5,7).
    result = cpu("fcfs", [task("A", 0, [2, 3, 2]), task("B", 0, 3)])
    assert chart(result) == "AABBBAA"
    a, b = result["tasks"]
    # A: completion 7 = the end of its last CPU burst; waiting = 7 - 0 - 4 (CPU) - 3 (I/O) = 0.
    assert (a["completion"], a["turnaround"], a["response"], a["waiting"], a["cpu"], a["io"], a["burst"]) == \
        (7, 7, 0, 0, 4, 3, 4)
    assert (b["completion"], b["waiting"], b["response"], b["cpu"], b["io"]) == (5, 2, 2, 3, 0)
    assert result["summary"]["busy"] == 7 and result["utilisation"] == 1
    steps = result["steps"]
    assert [(e["kind"], e["task"], e.get("until")) for e in steps[2]["events"]] == [("block", "A", 5)]
    assert steps[2]["why"]["en"].endswith("A starts I/O until t=5.")
    assert steps[2]["why"]["ja"].endswith("Aはt=5までI/Oを行います。")
    assert steps[3]["blocked"] == [{"task": "A", "until": 5}] and steps[6]["blocked"] == []
    assert steps[6]["why"]["en"].startswith("A returns from I/O. t=5: A")
    assert steps[6]["why"]["ja"].startswith("AがI/Oから戻ります。")
    assert [e["kind"] for e in steps[6]["events"]] == ["return", "dispatch"]


def test_returns_and_arrivals_at_one_instant_join_in_input_order():
    # A [0,1) blocks until 3; X runs [1,3). At 3 A (input 0) returns as B (input 1) arrives: A first.
    tasks = [task("A", 0, [1, 2, 1]), task("B", 3, 1), task("X", 0, 2)]
    assert chart(cpu("fcfs", tasks)) == "AXXAB"
    # Under "ostep" (mlfq.py) the arrivals join before the returns.
    ostep = cpu("fcfs", tasks, conventions="ostep")
    assert chart(ostep) == "AXXBA"
    assert "Arrivals join before tasks returning from I/O at the same instant" in ostep["steps"][4]["why"]["en"]


def test_sjf_and_srtf_read_the_current_cpu_burst():
    tasks = [task("A", 0, [2, 1, 1]), task("B", 0, 3)]
    # SJF at 0: A's current burst 2 < B's 3 (its total, 3 of CPU, would tie... and it is the next burst that counts).
    # A [0,2) blocks until 3; B [2,5) (no preemption); A [5,6).
    assert chart(cpu("sjf", tasks)) == "AABBBA"
    # SRTF: at 3 A returns with 1 left < B's 2: A preempts B.
    srtf = cpu("srtf", tasks)
    assert chart(srtf) == "AABABB"
    assert ("preempt", "B", 3) in [(e["kind"], e["task"], e["time"]) for s in srtf["steps"] for e in s["events"]]


def test_hrrn_counts_waiting_from_the_return():
    # t=0: ratios all 1, A first. A [0,1) blocks until 2. t=1: B (1+2)/2, C (1+1)/1 = 2: C. t=2: A returns, ratio
    # (0+1)/1 = 1 (counted from the return, not from its arrival: that would be 3); B (2+2)/2 = 2: B [2,4), A [4,5).
    assert chart(cpu("hrrn", [task("A", 0, [1, 1, 1]), task("B", 0, 2), task("C", 0, 1)])) == "ACBBA"


def test_round_robin_gives_a_returning_task_a_fresh_quantum():
    # q=2. A [0,2) expires, B [2,4) expires, A [4,5) ends its burst, blocked until 6; B [5,7) completes; A returned at
    # 6, runs [7,9) and, alone, [9,10).
    result = cpu("rr", [task("A", 0, [3, 1, 3]), task("B", 0, 4)], quantum=2)
    assert chart(result) == "AABBABBAAA"
    # A waited in the ready queue over [2,4) and [6,7): 3 = 10 - 6 (CPU) - 1 (I/O).
    assert [(row["completion"], row["waiting"], row["response"]) for row in result["tasks"]] == [(10, 3, 0), (7, 3, 2)]


def test_cfs_places_a_wake_up_at_max_own_min_vruntime():
    # t=0: A, B vruntime 0, W = 2048: A (input order), slice 3; A's burst ends at 1 (vruntime 1), blocked until 6, W =
    # 1024. B: slice 6, [1,7). At 6 A wakes: min_vruntime = B's 5 (running, with what it ran) > A's 1, so A's vruntime
    # becomes 5. At 7: A 5 < B 6: A runs a slice of 3 [7,10) (vruntime 8); B 6 [10,12) completes; A [12,15).
    # Keeping its own 1 instead, A would have run [7,13) before B.
    result = cpu("cfs", [task("A", 0, [1, 5, 6]), task("B", 0, 8)])
    assert chart(result) == "ABBBBBBAAABBAAA"
    assert result["steps"][6]["vruntime"] == {"A": 1, "B": 5} and result["steps"][7]["vruntime"] == {"A": 5, "B": 6}


def test_stride_gives_a_returning_task_the_least_pass_present():
    # tickets 100 each: stride 100, quantum 1. A [0,1): its burst ends with its quantum, charged 100; blocked until 5.
    # B runs [1,5) alone, pass 400 at 5. At 5 A returns: pass max(100, B's 400) = 400, ties with B and wins on input
    # order: A [5,6) (500), B [6,7) (500), A [7,8) completes, B [8,9).
    result = cpu("stride", [task("A", 0, [1, 4, 2]), task("B", 0, 6)])
    assert chart(result) == "ABBBBABAB"
    # Had A kept its pass of 100, it would have run [5,7) before B.


def test_stride_charges_the_part_of_the_quantum_used_before_blocking():
    # quantum 2, stride 100 each. A [0,1) blocks having used 1 of 2: pass 50; blocked until 2. B [1,3) (no preemption).
    # At 2 A returns: the least pass present is the running B's 0, so A keeps its 50. At 3 B's pass is 200 > 50: A
    # [3,5) completes, B [5,7).
    result = cpu("stride", [task("A", 0, [1, 1, 2]), task("B", 0, 4)], quantum=2)
    assert chart(result) == "ABBAABB"


def test_eevdf_places_a_wake_up_at_lag_zero():
    # slice 3. t=0: A, B placed at 0, deadlines 3; A (input order) runs [0,1), its burst ends: it leaves V. B runs
    # [1,4), [4,7) (alone, requests of 3). At 6 A wakes at v = V = B's vruntime 5 (lag 0), deadline 5 + 3 = 8; at 7
    # B's vruntime is 6 > V = 5.5: not eligible; A (5 <= 5.5) runs [7,10) then B [10,12).
    result = cpu("eevdf", [task("A", 0, [1, 5, 3]), task("B", 0, 8)])
    assert chart(result) == "ABBBBBBAAABB"


def test_priority_aging_counts_only_the_time_in_the_ready_queue():
    # aging 2: A (priority 2) [0,1) blocks until 4; B (priority 3) runs [1,6) non-preemptive; at 6: A waited 6-4 = 2
    # in the queue (its I/O not counted): effective 2 - 1 = 1; C (priority 0, arrived 5) waited 1: 0. C runs first.
    # (Counting A's I/O as waiting, 5 units, would make it 2 - 2 = 0 and A, the earlier arrival, would run first.)
    tasks = [task("A", 0, [1, 3, 1], priority=2), task("B", 0, 5, priority=3), task("C", 5, 1, priority=0)]
    assert chart(cpu("priority", tasks, aging=2)) == "ABBBBBCA"


@pytest.mark.parametrize("algorithm", ["edf", "priority-preemptive", "rm", "dm"])
def test_a_return_preempts_as_an_arrival_does_under_the_preemptive_rules(algorithm):
    # A (deadline 6, priority 0, first in the input) [0,1) blocks until 3; B (deadline 10, priority 1) runs [1,3). At
    # 3 A returns more urgent than B (deadline 6 < 10, priority 0 < 1; RM/DM: one-shot tasks rank by input order):
    # A preempts B, runs [3,5) and completes; B [5,7). A waits 5 - 0 - 3 (CPU) - 2 (I/O) = 0; B 7 - 0 - 4 = 3.
    tasks = [task("A", 0, [1, 2, 2], deadline=6, priority=0), task("B", 0, 4, deadline=10, priority=1)]
    result = cpu(algorithm, tasks)
    assert chart(result) == "ABBAABB"
    assert [(e["kind"], e["task"], e["time"]) for s in result["steps"] for e in s["events"]
            if e["kind"] == "preempt"] == [("preempt", "B", 3)]
    assert [(row["completion"], row["waiting"], row["response"]) for row in result["tasks"]] == [(5, 0, 0), (7, 3, 1)]
    # Non-preemptive priority: B, dispatched at 1, runs on to 5 although A returned at 3.
    assert chart(cpu("priority", tasks)) == "ABBBBAA"


def test_lottery_lays_a_returning_task_s_tickets_where_it_joins_the_queue():
    # Seed 43, quantum 1; tickets A 100, B 100, C 200, laid out along the ready queue.
    # t=0 [A 0-99, B 100-199, C 200-399]: draw 19 -> A; A's burst ends at 1, blocked until 3.
    # t=1 [B 0-99, C 100-299]: 146 -> C. t=2 (C requeued) [B 0-99, C 100-299]: 73 -> B.
    # t=3 A returns as B's quantum ends; the return joins as an arrival, ahead of the requeued B
    # (arrival_before_requeue): [C 0-199, A 200-299, B 300-399]: 236 -> A, which completes at 4.
    # t=4 [C 0-199, B 200-299]: 189 -> C (completes); then B alone [5,7).
    tasks = [task("A", 0, [1, 2, 1], tickets=100), task("B", 0, 3, tickets=100), task("C", 0, 2, tickets=200)]
    result = cpu("lottery", tasks, lottery_seed=43, step_details=True)
    assert chart(result) == "ACBACBB"
    draws = [(s["draw"]["ticket"], s["draw"]["tickets"]) for s in result["steps"][1:6]]
    assert draws == [(19, 400), (146, 300), (73, 300), (236, 400), (189, 300)]
    assert result["steps"][4]["ready"] == ["C", "B"]
    # Under "ostep" the expired B rejoins before the return: [C 0-199, B 200-299, A 300-399], the same draw 236 -> B.
    ostep = cpu("lottery", tasks, lottery_seed=43, step_details=True, conventions="ostep")
    assert chart(ostep) == "ACBBCBA" and ostep["steps"][4]["draw"] == {"ticket": 236, "tickets": 400}


def test_mlfq_counts_the_allotment_across_io():
    # Two levels, quanta 3, allotment 1. G [0,2) keeps 1 of its quantum across its I/O [2,3); H [2,5) expires and
    # moves down; G [5,6) uses the rest of its quantum: it moves down too (OSTEP's rule 4).
    result = run(versus("mlfq-gaming"))   # the preset without io_resets_allotment
    assert chart(result) == "GGHHHGHHHGHHHGGHHHGG"
    demotions = [(e["task"], e["time"]) for s in result["steps"] for e in s["events"] if e["kind"] == "demote"]
    assert demotions == [("H", 5), ("G", 6)]


def test_io_resets_allotment_lets_a_task_game_the_top_level():
    # -S: G blocks at 2, before its quantum's end: level 0 with a fresh quantum and allotment, every time. G holds the
    # top level: [0,2), [5,7), [8,10), [11,13), each time preempting H (moved down at 5) on its return.
    result = run(PRESETS["mlfq-gaming"]["scenario"])
    assert chart(result) == "GGHHHGGHGGHGGHHHHHHH"
    demotions = [(e["task"], e["time"]) for s in result["steps"] for e in s["events"] if e["kind"] == "demote"]
    assert demotions == [("H", 5)]
    assert result["parameters"]["io_resets_allotment"] is True


def test_blocking_as_the_quantum_ends_uses_the_quantum_up():
    # Quanta 2, allotment 1, two levels: A's burst of 2 ends with its quantum at 2: an expiry, it moves down, even with
    # io_resets_allotment (lab). Under "ostep" (mlfq.py -S) the allotment is made fresh, then one quantum of it used:
    # with an allotment of 1 it moves down as well; with 2 it keeps the top level.
    base = {"algorithm": "mlfq", "levels": 2, "quanta": [2, 2], "tasks": [task("A", 0, [2, 1, 2]), task("B", 0, 4)]}
    for extra in ({}, {"io_resets_allotment": True}, {"io_resets_allotment": True, "conventions": "ostep"}):
        result = run({**base, "allotment": [1, 1], **extra})
        assert ("demote", "A", 2) in [(e["kind"], e["task"], e["time"]) for s in result["steps"] for e in s["events"]]
    lab = run({**base, "allotment": [2, 2], "io_resets_allotment": True})
    ostep = run({**base, "allotment": [2, 2], "io_resets_allotment": True, "conventions": "ostep"})
    # lab: A's allotment 2 -> 1 at 2 (an expiry): level 0 with 1 left; ostep: fresh 2, then 1 used: also 1 left.
    assert chart(lab) == chart(ostep) == "AABBAABB"


def test_io_to_front():
    # One level, quantum 4. A [0,1) blocks until 2. B [1,5), C waits. At 2 A returns: the tail (behind C), or with
    # io_to_front the front of the level, behind the running B (lab) -- or ahead of B under "ostep" (it runs at once).
    tasks = [task("A", 0, [1, 1, 1]), task("B", 0, 4), task("C", 0, 2)]
    base = {"algorithm": "mlfq", "levels": 1, "quanta": [4], "tasks": tasks}
    assert chart(run(base)) == "ABBBBCCA"
    assert chart(run({**base, "io_to_front": True})) == "ABBBBACC"
    assert chart(run({**base, "io_to_front": True, "conventions": "ostep"})) == "ABABBBCC"


def test_the_boost_lifts_blocked_tasks_too():
    # Two levels, quanta 1, boost 3. A [0,1) moves down; B [1,2) moves down; A [2,3) ends its burst (and quantum):
    # blocked until 5, at level 1. The boost at 3 lifts B and the blocked A to level 0. B [3,4) moves down, [4,5); at
    # 5 A returns at level 0 and runs [5,6), its last burst; B [6,7).
    result = cpu("mlfq", [task("A", 0, [2, 2, 1]), task("B", 0, 4)], levels=2, quanta=[1, 1], boost=3)
    assert chart(result) == "ABABBAB"
    assert "t=5: A (level 0) is dispatched" in result["steps"][6]["why"]["en"]
    boosted = [s["time"] for s in result["steps"] for e in s["events"] if e["kind"] == "boost"]
    assert boosted == [4, 7]   # the boosts at instants 3 and 6, events of the slices [3,4) and [6,7)


def test_bad_bursts_name_the_field():
    cases = [([3, 2], "tasks[0].bursts", "odd number"), ([3, 0, 1], "tasks[0].bursts[1]", ">= 1"),
             ("3, x", "tasks[0].bursts", "whole number"), ([], "tasks[0].bursts", "at least 1")]
    for bursts, field, problem in cases:
        with pytest.raises(ScenarioError) as error:
            cpu("fcfs", [{"name": "A", "arrival": 0, "bursts": bursts}])
        assert error.value.field == field and problem in error.value.problem
    with pytest.raises(ScenarioError) as both:
        cpu("fcfs", [{"name": "A", "arrival": 0, "burst": 3, "bursts": [3]}])
    assert both.value.field == "tasks[0].bursts" and "not both" in both.value.problem


def test_the_compact_form_reads_and_writes():
    assert read_bursts("3, 2,4", "x") == read_bursts("3 2 4", "x") == read_bursts("3+2+4", "x") == (3, 2, 4)
    assert format_bursts((3, 2, 4)) == "3,2,4" and read_bursts(format_bursts((7,)), "x") == (7,)
    assert cpu("fcfs", [task("A", 0, "2, 3, 2"), task("B", 0, 3)])["timeline"] == \
        cpu("fcfs", [task("A", 0, [2, 3, 2]), task("B", 0, 3)])["timeline"]


def test_a_custom_policy_sees_the_current_burst():
    code = ("def choose(ready, running, time, state):\n"
            "    if running is not None:\n"
            "        return running.name\n"
            "    return min(ready, key=lambda t: (t.remaining, t.index)).name\n")
    result = simulate("cpu", {"tasks": [task("A", 0, [2, 1, 1]), task("B", 0, 3)]}, policy_source=code)
    assert chart(result) == "AABBBA"   # as SJF: A's current burst of 2 first, its last (1) after B


def test_a_custom_policy_never_sees_a_task_in_io():
    # This choose runs A whenever it is offered. A [0,2) blocks until 3: at 2 neither ready nor running has A (running
    # is None: A left the CPU), so B runs [2,3); at 3 A is back in ready and preempts B, [3,4); B [4,6).
    code = ("def choose(ready, running, time, state):\n"
            "    names = [t.name for t in ready] + ([running.name] if running is not None else [])\n"
            "    return 'A' if 'A' in names else names[0]\n")
    result = simulate("cpu", {"tasks": [task("A", 0, [2, 1, 1]), task("B", 0, 3)]}, policy_source=code)
    assert chart(result) == "AABABB"


# --- properties -----------------------------------------------------------------------------------------------------

PROFILE = settings(max_examples=60, deadline=None)
PARAMETERS = st.fixed_dictionaries({}, optional={
    "quantum": st.integers(1, 4), "aging": st.integers(1, 3), "levels": st.integers(1, 3), "boost": st.integers(1, 6),
    "lottery_seed": st.integers(0, 10), "io_resets_allotment": st.booleans(), "io_to_front": st.booleans(),
    "conventions": st.sampled_from(["lab", "ostep", {"boost_order": "bottom-first"}]),
    "switch_cost": st.integers(0, 2)})


@st.composite
def io_workloads(draw):
    tasks = []
    for index in range(draw(st.integers(1, 5))):
        shape = draw(st.lists(st.integers(1, 4), min_size=1, max_size=5).filter(lambda b: len(b) % 2))
        tasks.append({**task(chr(ord("A") + index), draw(st.integers(0, 6)), shape),
                      "priority": draw(st.integers(0, 3)), "tickets": draw(st.integers(1, 4)) * 50,
                      "nice": draw(st.integers(-3, 3))})
    return tasks


@PROFILE
@given(st.lists(st.tuples(st.integers(0, 6), st.integers(1, 6)), min_size=1, max_size=5),
       st.sampled_from(sorted(ALGORITHMS)), PARAMETERS)
def test_bursts_of_one_is_burst(shapes, algorithm, parameters):
    with_burst = [task(chr(ord("A") + k), arrival, burst) for k, (arrival, burst) in enumerate(shapes)]
    with_bursts = [task(chr(ord("A") + k), arrival, [burst]) for k, (arrival, burst) in enumerate(shapes)]
    scenario = {"algorithm": algorithm, **parameters}
    assert json.dumps(run({**scenario, "tasks": with_burst})) == json.dumps(run({**scenario, "tasks": with_bursts}))


@PROFILE
@given(io_workloads(), st.sampled_from(sorted(ALGORITHMS)), PARAMETERS)
def test_io_invariants(tasks, algorithm, parameters):
    result = run({"algorithm": algorithm, "tasks": tasks, **parameters})
    timeline, rows = result["timeline"], {row["name"]: row for row in result["tasks"]}
    io = any(len(given.get("bursts", ())) > 1 for given in tasks)
    for given_task in tasks:
        row, shape = rows[given_task["name"]], given_task.get("bursts", [given_task.get("burst")])
        if not io:   # bursts of one are bursts: the rows are today's
            assert "cpu" not in row and "io" not in row
            row = {**row, "cpu": row["burst"], "io": 0}
        assert row["cpu"] == sum(shape[::2]) == timeline.count(row["name"]) and row["io"] == sum(shape[1::2])
        assert row["waiting"] == row["turnaround"] - row["cpu"] - row["io"] >= 0
    # No task runs while blocked: every unit of [block, until) of a task's I/O shows another task, idle or a switch.
    for step in result["steps"]:
        for e in step["events"]:
            if e["kind"] == "block":
                assert e["task"] not in timeline[e["time"]:e["until"]]
    busy = sum(shape for given in tasks for shape in given.get("bursts", [given.get("burst")])[::2])
    assert result["summary"]["busy"] == busy and result["summary"]["makespan"] == len(timeline)
    assert result["exact"]["utilisation"] == str(__import__("fractions").Fraction(busy, len(timeline)))
    assert result["summary"]["idle"] == timeline.count(None)
