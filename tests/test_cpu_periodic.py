"""Periodic tasks under RM, DM and EDF, and the schedulability tests beside the run (issue 23 items 1-3): every job's
completion and every miss on the presets, computed by hand in the comments; each formula on several sets; bad input
names its field; without a periodic task nothing changes."""
from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from schedulers import ScenarioError, simulate
from schedulers.cpu.presets import PRESETS, versus


def run(scenario, **changes):
    return simulate("cpu", {**scenario, **changes})


def completions(result):
    return {job["name"]: job["completion"] for job in result["jobs"]}


def misses(result):
    return [(e["task"], e["time"], e["left"]) for step in result["steps"] for e in step["events"]
            if e["kind"] == "miss"]


def chart(result):
    """The timeline, one letter a unit: the task's name, "." idle."""
    return "".join((unit or ".").partition("#")[0] for unit in result["timeline"])


def test_rm_on_the_over_bound_preset_misses_b1_by_one():
    # A: C=2, T=5 (RM's higher priority); B: C=4, T=7; horizon lcm(5, 7) + 0 = 35.
    # [0,2) A#1 done 2; [2,5) B#1 (1 left); t=5 A#2 preempts, [5,7) done 7; t=7 B#1 misses its deadline with 1
    # left, runs on (earlier release than B#2) [7,8): done 8, late by 1; [8,10) B#2; [10,12) A#3 done 12;
    # [12,14) B#2 done 14 (= its deadline: no miss); [14,15) B#3; [15,17) A#4 done 17; [17,20) B#3 done 20;
    # [20,22) A#5 done 22; [22,25) B#4; [25,27) A#6 done 27; [27,28) B#4 done 28; [28,30) B#5; [30,32) A#7 done
    # 32; [32,34) B#5 done 34.
    result = run(PRESETS["rm-misses-edf-meets"]["scenario"])
    assert result["horizon"] == 35 and result["on_miss"] == "continue"
    assert completions(result) == {"A#1": 2, "B#1": 8, "A#2": 7, "B#2": 14, "A#3": 12, "B#3": 20, "A#4": 17,
                                   "A#5": 22, "B#4": 28, "A#6": 27, "B#5": 34, "A#7": 32}
    assert misses(result) == [("B#1", 7, 1)]
    assert [job["name"] for job in result["jobs"]][:4] == ["A#1", "B#1", "A#2", "B#2"]   # by release, then input
    assert result["timeline"][:8] == ["A#1"] * 2 + ["B#1"] * 3 + ["A#2"] * 2 + ["B#1"]
    a, b = result["tasks"]
    assert (a["jobs"], a["misses"], a["max_lateness"], a["max_response"]) == (7, 0, -3, 2)
    assert (b["jobs"], b["misses"], b["max_lateness"], b["max_response"]) == (5, 1, 1, 8)
    assert result["summary"]["deadline_misses"] == 1
    said = next(s["why"] for s in result["steps"] if any(e["kind"] == "miss" for e in s["events"]))
    assert said["en"].startswith("B#1 misses its deadline at t=7; it has 1 left.")
    assert said["ja"].startswith("B#1はt=7に締切を過ぎます。残りは1です。")


def test_edf_on_the_over_bound_preset_meets_every_deadline():
    # Ties by earlier release, then input order. [0,2) A#1 (d5); [2,6) B#1 (d7; A#2 d10 at 5 does not preempt);
    # [6,8) A#2; [8,12) B#2 (d14; A#3 d15 waits); [12,14) A#3; [14,15) B#3 (d21); t=15 A#4 (d20) preempts,
    # [15,17); [17,20) B#3; [20,22) A#5 (d25); [22,26) B#4 (d28; A#6 d30 waits); [26,28) A#6; [28,32) B#5 (d35;
    # A#7 also d35, released later: waits); [32,34) A#7.
    result = simulate("cpu", versus("rm-misses-edf-meets"))
    assert completions(result) == {"A#1": 2, "B#1": 6, "A#2": 8, "B#2": 12, "A#3": 14, "B#3": 20, "A#4": 17,
                                   "A#5": 22, "B#4": 26, "A#6": 28, "B#5": 32, "A#7": 34}
    assert misses(result) == [] and result["summary"]["deadline_misses"] == 0
    assert [row["max_lateness"] for row in result["tasks"]] == [-1, -1]


def test_dm_equals_rm_when_deadlines_are_periods_and_differs_when_not():
    preset = PRESETS["rm-misses-edf-meets"]["scenario"]
    assert run(preset, algorithm="dm")["timeline"] == run(preset)["timeline"]
    # A: C=3, T=10, D=4; B: C=2, T=5, D=5; horizon 10. RM (B first): [0,2) B#1, [2,5) A#1 done 5: misses at t=4
    # with 1 left, late by 1; [5,7) B#2. DM (A first, D 4 < 5): [0,3) A#1, [3,5) B#1 done 5 (= deadline), [5,7) B#2.
    tasks = [{"name": "A", "arrival": 0, "burst": 3, "period": 10, "relative_deadline": 4},
             {"name": "B", "arrival": 0, "burst": 2, "period": 5}]
    rm, dm = (simulate("cpu", {"algorithm": name, "tasks": tasks}) for name in ("rm", "dm"))
    assert chart(rm) == "BBAAABB" and misses(rm) == [("A#1", 4, 1)]
    assert chart(dm) == "AAABBBB" and misses(dm) == []
    assert completions(dm) == {"A#1": 3, "B#1": 5, "B#2": 7}
    # Response times: RM A: 3 + 2 = 5 > 4, misses (stopped there); B 2. DM A 3; B: 2 + 3 = 5, then 2 + ceil(5/10)3 = 5.
    rows = {row["name"]: row for row in rm["analysis"]["tasks"]}
    assert rows["A"]["response_time"] == {"rm": 5, "dm": 3} and rows["A"]["verdict"] == {"rm": "misses", "dm": "meets"}
    assert rows["B"]["response_time"] == {"rm": 2, "dm": 5} and rows["B"]["verdict"] == {"rm": "meets", "dm": "meets"}


def test_the_under_bound_and_harmonic_presets():
    # Under the bound: A (1, 4), B (2, 6), C (1, 12), horizon 12: [0,1) A#1, [1,3) B#1, [3,4) C#1, [4,5) A#2,
    # idle [5,6), [6,8) B#2, [8,9) A#3; EDF makes the same choices (deadlines 4 < 6 < 12, then 8, 12, 12).
    under = run(PRESETS["rm-under-bound"]["scenario"])
    assert chart(under) == "ABBCA.BBA" and misses(under) == []
    assert completions(under) == {"A#1": 1, "B#1": 3, "C#1": 4, "A#2": 5, "B#2": 8, "A#3": 9}
    assert simulate("cpu", versus("rm-under-bound"))["timeline"] == under["timeline"]
    assert under["analysis"]["under_liu_layland"] is True and under["analysis"]["exact"]["utilisation"] == "2/3"
    # Harmonic, U = 1: A (1, 2), B (1, 4), C (2, 8), horizon 8: A B A C A B A C, C#1 done at 8 = its deadline.
    harmonic = run(PRESETS["rm-harmonic"]["scenario"])
    assert chart(harmonic) == "ABACABAC" and misses(harmonic) == []
    assert completions(harmonic)["C#1"] == 8 and harmonic["tasks"][2]["max_lateness"] == 0
    analysis = harmonic["analysis"]
    assert (analysis["utilisation"], analysis["under_liu_layland"], analysis["under_edf_bound"]) == (1, False, True)
    # C: 4 -> 2 + ceil(4/2) + ceil(4/4) = 5 -> 2 + 3 + 2 = 7 -> 2 + 4 + 2 = 8 -> 8: meets.
    assert analysis["tasks"][2]["response_time"]["rm"] == 8 and analysis["tasks"][2]["verdict"]["rm"] == "meets"


def analysis_of(pairs, **given):
    tasks = [{"name": chr(65 + i), "arrival": 0, "burst": c, "period": t, **given} for i, (c, t) in enumerate(pairs)]
    return simulate("cpu", {"algorithm": "rm", "horizon": 1, "tasks": tasks}, trace=False)["analysis"]


@pytest.mark.parametrize("pairs, total, bound", [
    ([(1, 2)], "1/2", 1.0),                          # n = 1: 1(2 - 1) = 1
    ([(2, 5), (4, 7)], "34/35", 0.8284271247461903),  # n = 2: 2(sqrt 2 - 1)
    ([(1, 4), (2, 6), (1, 12)], "2/3", 0.7797631496846196),
])
def test_utilisation_and_the_liu_layland_bound(pairs, total, bound):
    analysis = analysis_of(pairs)
    assert analysis["exact"]["utilisation"] == total
    assert analysis["liu_layland_bound"] == pytest.approx(bound, abs=1e-15)
    assert analysis["under_liu_layland"] == (Fraction(total) <= Fraction(bound))
    assert analysis["edf_bound"] == 1 and analysis["under_edf_bound"] == (Fraction(total) <= 1)


def test_the_bound_is_compared_exactly_at_its_edge():
    # 2(sqrt 2 - 1) = 0.828427124746...: U = 1/2 + 328427/1000000 is under it, 1/2 + 328428/1000000 is over it.
    assert analysis_of([(1, 2), (328427, 1000000)])["under_liu_layland"] is True
    assert analysis_of([(1, 2), (328428, 1000000)])["under_liu_layland"] is False


def test_response_time_analysis_on_a_textbook_set():
    # (C, T) = (1, 4), (2, 6), (3, 10): R_A = 1; R_B: 3 -> 2 + ceil(3/4) = 3; R_C: 6 -> 3 + 2 + 2 = 7 ->
    # 3 + 2 + 4 = 9 -> 3 + 3 + 4 = 10 -> 10 <= 10: meets. With C_C = 4: 7 -> 4 + 2 + 4 = 10 -> 4 + 3 + 4 = 11 > 10:
    # misses, reported at 11.
    assert [row["response_time"]["rm"] for row in analysis_of([(1, 4), (2, 6), (3, 10)])["tasks"]] == [1, 3, 10]
    over = analysis_of([(1, 4), (2, 6), (4, 10)])["tasks"][2]
    assert (over["response_time"]["rm"], over["verdict"]["rm"]) == (11, "misses")
    # An execution longer than its period is allowed: its own R is past its deadline at once.
    assert analysis_of([(6, 5)])["tasks"][0]["verdict"] == {"rm": "misses", "dm": "misses"}


def test_abort_drops_a_job_at_its_deadline():
    # As under continue until t=7, where B#1 (1 left) is dropped; [7,10) B#2, [10,12) A#3, [12,13) B#2 done 13,
    # idle [13,14) until B#3 is released; then as before.
    result = run(PRESETS["rm-misses-edf-meets"]["scenario"], on_miss="abort")
    assert chart(result)[:15] == "AABBBAABBBAAB.B"
    job = result["jobs"][1]
    assert (job["name"], job["completion"], job["dropped"], job["missed"]) == ("B#1", None, True, True)
    b = result["tasks"][1]
    assert (b["misses"], b["max_lateness"], b["max_response"]) == (1, 0, 7)
    said = next(s["why"]["en"] for s in result["steps"] if any(e["kind"] == "miss" for e in s["events"]))
    assert said.startswith("B#1 misses its deadline at t=7 and is dropped with 1 left")


@pytest.mark.parametrize("algorithm", ["fcfs", "sjf", "srtf", "rr", "priority", "priority-preemptive", "mlfq", "edf",
                                       "rm", "dm", "stride", "cfs"])
def test_abort_under_every_rule_that_allows_it(algorithm):
    # Over-full (U = 4/5 + 4/7 > 1): some job misses under every rule; a dropped job never runs after its deadline,
    # every other job completes, and the run still uses the CPU while work is left.
    tasks = [{"name": "A", "arrival": 0, "burst": 4, "period": 5}, {"name": "B", "arrival": 0, "burst": 4, "period": 7}]
    result = simulate("cpu", {"algorithm": algorithm, "on_miss": "abort", "tasks": tasks})
    assert any(job["dropped"] for job in result["jobs"])
    for job in result["jobs"]:
        ran = [t for t, unit in enumerate(result["timeline"]) if unit == job["name"]]
        if job["dropped"]:
            assert all(t < job["deadline"] for t in ran) and len(ran) < 4
        else:
            assert len(ran) == 4 and ran[-1] + 1 == job["completion"]
    assert simulate("cpu", {"algorithm": algorithm, "on_miss": "abort", "tasks": tasks},
                    trace=False)["timeline"] == result["timeline"]


def test_one_shot_tasks_mix_and_rank_after_every_periodic_task():
    # RM: the one-shot X (burst 3, arrival 0, first in the input) runs only when no job is ready: A (1, 3) at 0, 3;
    # [0,1) A#1, [1,3) X, [3,4) A#2, [4,5) X done 5.
    result = simulate("cpu", {"algorithm": "rm", "horizon": 6, "tasks": [
        {"name": "X", "arrival": 0, "burst": 3}, {"name": "A", "arrival": 0, "burst": 1, "period": 3}]})
    assert result["timeline"] == ["A#1", "X", "X", "A#2", "X"]
    assert result["tasks"][0]["completion"] == 5 and "jobs" not in result["tasks"][0]
    # Equal periods rank by input order, a strict priority: B (input first) before A although A is released first.
    tie = simulate("cpu", {"algorithm": "rm", "horizon": 4, "tasks": [
        {"name": "B", "arrival": 1, "burst": 1, "period": 4}, {"name": "A", "arrival": 0, "burst": 2, "period": 4}]})
    assert tie["timeline"] == ["A#1", "B#1", "A#1"]


def test_edf_ties_by_release_then_input_order():
    # D#1 and C#1: deadline 4, both released at 0: input order, D first. A#1 and B#1: deadline 6; A#1, released at 0,
    # before B#1, released at 2, though B comes first in the input.
    result = simulate("cpu", {"algorithm": "edf", "horizon": 3, "tasks": [
        {"name": "B", "arrival": 2, "burst": 1, "period": 4},
        {"name": "A", "arrival": 0, "burst": 1, "period": 6},
        {"name": "D", "arrival": 0, "burst": 1, "period": 4},
        {"name": "C", "arrival": 0, "burst": 1, "period": 4}]})
    assert result["timeline"] == ["D#1", "C#1", "A#1", "B#1"]


@pytest.mark.parametrize("scenario, field", [
    ({"tasks": [{"name": "A", "arrival": 0, "burst": 1, "period": 0}]}, "tasks[0].period"),
    ({"tasks": [{"name": "A", "arrival": 0, "burst": 1, "period": 4, "relative_deadline": 5}]},
     "tasks[0].relative_deadline"),
    ({"tasks": [{"name": "A", "arrival": 0, "burst": 1, "relative_deadline": 5}]}, "tasks[0].relative_deadline"),
    ({"tasks": [{"name": "A", "arrival": 0, "burst": 1, "period": 4, "deadline": 5}]}, "tasks[0].deadline"),
    ({"tasks": [{"name": "A", "arrival": 0, "bursts": [1, 1, 1], "period": 4}]}, "tasks[0].bursts"),
    ({"tasks": [{"name": "A", "arrival": 0, "burst": 1, "period": 999983},
                {"name": "B", "arrival": 0, "burst": 1, "period": 999979}]}, "horizon"),
    ({"horizon": 1_000_000, "tasks": [{"name": "A", "arrival": 0, "burst": 1, "period": 1}]}, "horizon"),
    ({"horizon": 2, "tasks": [{"name": "A", "arrival": 5, "burst": 1, "period": 4}]}, "horizon"),
    ({"horizon": 0, "tasks": [{"name": "A", "arrival": 0, "burst": 1, "period": 4}]}, "horizon"),
    ({"on_miss": "stop", "tasks": [{"name": "A", "arrival": 0, "burst": 1, "period": 4}]}, "on_miss"),
    ({"algorithm": "lottery", "on_miss": "abort", "tasks": [{"name": "A", "arrival": 0, "burst": 1, "period": 4}]},
     "on_miss"),
    ({"cpus": 2, "tasks": [{"name": "A", "arrival": 0, "burst": 1, "period": 4}]}, "cpus"),   # one CPU only
])
def test_bad_input_names_the_field(scenario, field):
    with pytest.raises(ScenarioError) as caught:
        simulate("cpu", {"algorithm": "rm", **scenario})
    assert caught.value.field == field


def test_the_default_horizon_past_the_limit_is_an_error_on_the_command_line():
    scenario = {"algorithm": "rm", "tasks": [{"name": "A", "arrival": 0, "burst": 1, "period": 999983},
                                             {"name": "B", "arrival": 0, "burst": 1, "period": 7}]}
    done = subprocess.run([sys.executable, "-m", "schedulers", "cpu", "--scenario", "-"], input=json.dumps(scenario),
                          capture_output=True, text=True, timeout=60)
    assert done.returncode != 0 and done.stderr.startswith("error: horizon:") and "Traceback" not in done.stderr
    shorter = subprocess.run([sys.executable, "-m", "schedulers", "cpu", "--scenario", "-", "--horizon", "14",
                              "--on-miss", "abort", "--json"], input=json.dumps(scenario), capture_output=True,
                             text=True, timeout=60)
    assert json.loads(shorter.stdout)["horizon"] == 14


def test_without_a_periodic_task_rm_and_dm_rank_by_input_order():
    tasks = [{"name": "A", "arrival": 1, "burst": 2}, {"name": "B", "arrival": 0, "burst": 2}]
    result = simulate("cpu", {"algorithm": "rm", "tasks": tasks})
    assert result["timeline"] == ["B", "A", "A", "B"] and "analysis" not in result and "jobs" not in result


def test_the_quiz_asks_among_the_jobs_present():
    from schedulers.quiz import questions

    result = run(PRESETS["rm-misses-edf-meets"]["scenario"])
    # t=7: B#1 (late) and B#2 (just released) are present; RM keeps the earlier release.
    [at] = [q for q in questions(result) if q.time == 7]
    assert set(at.candidates) == {"B#1", "B#2"} and at.answer == "B#1"


@pytest.mark.parametrize("lang, heading", [("en", "period"), ("ja", "周期")])
def test_the_text_output_names_the_periodic_columns(lang, heading, tmp_path):
    """The command line's table of a periodic run (it once raised KeyError: 'period')."""
    path = tmp_path / "periodic.json"
    path.write_text(json.dumps(PRESETS["rm-misses-edf-meets"]["scenario"]))
    done = subprocess.run([sys.executable, "-m", "schedulers", "cpu", "--scenario", str(path), "--lang", lang],
                          capture_output=True, text=True, cwd=Path(__file__).resolve().parent.parent)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    assert any(line.split()[:1] and heading in line.split() for line in done.stdout.splitlines())


def test_a_text_column_without_its_words_fails_when_the_mode_is_made(monkeypatch):
    from schedulers.cpu import RESULTS, text
    monkeypatch.delitem(text.WORDS["ja"]["columns"], "period")
    with pytest.raises(ValueError, match="ja: period"):
        text.text_renderer(RESULTS)
