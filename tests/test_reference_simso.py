"""The SimSo harness (tests/reference_simso.py): its own parts without SimSo (the task sets, the conversion to
SimSo's terms, the reading of both sides on [0, horizon], the classification of differences), the lab's answers by
hand on the two places where SimSo and the lab part (docs/cpu.md "Against SimSo"), and, when LAB_SIMSO names a
python that can import simso, the comparison itself."""
from __future__ import annotations

import os
import sys
from fractions import Fraction
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import reference_simso as harness
from schedulers import simulate


def completions(result):
    return {job["name"]: job["completion"] for job in result["jobs"]}


@pytest.mark.parametrize("rule", list(harness.SCHEDULER))
def test_task_sets_are_deterministic_meet_the_stated_shape_and_run_in_the_lab(rule):
    for case in range(60):
        lab = harness.scenario(rule, case)
        assert lab == harness.scenario(rule, case)
        tasks = lab["tasks"]
        assert 1 <= len(tasks) <= 5 and all(2 <= task["period"] <= 24 for task in tasks)
        assert ("relative_deadline" in tasks[0]) == (case % 2 == 1)
        assert all(1 <= task.get("relative_deadline", task["period"]) <= task["period"] for task in tasks)
        assert lab["on_miss"] == ("abort" if case % 3 == 2 else "continue")
        assert sum(Fraction(task["burst"], task["period"]) for task in tasks) <= (1, 1, Fraction(13, 10))[case % 3]
        assert lab["horizon"] <= harness.LONGEST
        if rule == "rm":
            assert len({task["period"] for task in tasks}) == len(tasks)
        if rule == "dm":
            assert len({task.get("relative_deadline", task["period"]) for task in tasks}) == len(tasks)
        if rule == "edf":
            assert not harness.released_together(tasks, lab["horizon"])
        assert simulate("cpu", lab, trace=False)["horizon"] == lab["horizon"]
    assert harness.scenario(rule, 0) != harness.scenario(rule, 1)


def test_released_together_by_hand():
    # A releases at 0, 4, 8; B at 1, 4: both at 4, with D = 3 each: a tie (deadline 7). With B's D = 2, none.
    a = {"name": "A", "arrival": 0, "burst": 1, "period": 4, "relative_deadline": 3}
    b = {"name": "B", "arrival": 1, "burst": 1, "period": 3, "relative_deadline": 3}
    assert harness.released_together([a, b], 10)
    assert not harness.released_together([a, b], 4)   # the release at 4 is not before the horizon
    assert not harness.released_together([a, {**b, "relative_deadline": 2}], 10)


def test_simso_case_gives_fp_the_priority_minus_d_and_runs_one_ms_past_the_horizon():
    lab = {"algorithm": "dm", "horizon": 20, "on_miss": "abort",
           "tasks": [{"name": "A", "arrival": 2, "burst": 1, "period": 5},
                     {"name": "B", "arrival": 0, "burst": 2, "period": 10, "relative_deadline": 4}]}
    assert harness.simso_case(lab) == {
        "scheduler": "FP", "duration": 21, "abort": True,
        "tasks": [{"name": "A", "arrival": 2, "period": 5, "burst": 1, "deadline": 5, "priority": -5},
                  {"name": "B", "arrival": 0, "period": 10, "burst": 2, "deadline": 4, "priority": -4}]}
    assert harness.simso_case({**lab, "algorithm": "rm", "on_miss": "continue"})["scheduler"] == "RM_mono"


def job(task, number, release, end, aborted=False, missed=False):
    return {"task": task, "number": number, "release": release, "deadline": release + 3, "end": end,
            "aborted": aborted, "missed": missed}


def test_simso_outcomes_on_zero_to_the_horizon():
    jobs = [job("A", 1, 0.0, 2.0), job("A", 2, 4.0, 7.0, aborted=True, missed=True), job("A", 3, 8.0, 10.5),
            job("B", 1, 9.0, None), job("A", 4, 10.0, None)]
    assert harness.outcomes_simso(jobs, 10) == {
        "A#1": ("done", 2, False), "A#2": ("dropped", 7, True), "A#3": ("running", None, None),
        "B#1": ("running", None, None)}   # A#4 is released at the horizon: not compared


def test_lab_outcomes_and_the_differences_in_words():
    # The rm-misses-edf-meets preset (tests/test_cpu_periodic.py pins it) with the horizon 7: A#1, B#1 and A#2 are
    # released before it; [0,2) A#1 done 2, [2,5) B#1, [5,7) A#2 done 7, and B#1 (done 8) is unfinished at 7.
    lab = {"algorithm": "rm", "horizon": 7, "tasks": [{"name": "A", "arrival": 0, "burst": 2, "period": 5},
                                                      {"name": "B", "arrival": 0, "burst": 4, "period": 7}]}
    ours = harness.outcomes_lab(simulate("cpu", lab, trace=False), 7)
    assert ours == {"A#1": ("done", 2, False), "A#2": ("done", 7, False), "B#1": ("running", None, None)}
    theirs = {**ours, "A#2": ("done", 6, False), "C#1": ("dropped", 3, True)}
    assert harness.differing(ours, theirs) == ["A#2", "C#1"]
    assert harness.mismatches(ours, theirs) == ["A#2: lab done at 7, SimSo done at 6",
                                                "C#1: lab no such job, SimSo dropped at 3 (missed)"]
    assert harness.mismatches(ours, ours) == []


def test_ties_only_needs_a_job_of_another_task_with_the_same_deadline():
    deadlines = {"A#1": 5, "A#2": 8, "B#1": 8, "C#1": 9}
    assert harness.ties_only(["A#2"], deadlines)           # B#1 ties with it (it may end the same in both)
    assert harness.ties_only(["A#2", "B#1"], deadlines)
    assert not harness.ties_only(["A#2", "C#1"], deadlines)
    assert not harness.ties_only(["A#1"], {"A#1": 5, "A#2": 5})   # one task's own jobs never tie under EDF
    assert not harness.ties_only([], deadlines)


def test_the_lab_where_simsos_fp_loses_the_cpu_dm_set_11():
    # dm #11: A (first release 5, C 5, T 7, D 7), B (5, C 4, T 21, D 9), on_miss abort, horizon 26: jobs A#1-A#3
    # (released 5, 12, 19) and B#1. DM: A first.
    # [5,10) A#1 (d 12) done 10; [10,12) B#1 (d 14), 2 left; t=12 A#2 (d 19) preempts: [12,17) done 17; t=14 B#1,
    # waiting, is dropped; [17,19) idle; [19,24) A#3 done 24. SimSo's FP keeps the dropped B_1 in its ready list
    # and its CPU forgets A_2 at 14 ("Can't schedule a terminated job! (B_1)"): A_2 is dropped at 19.
    lab = harness.scenario("dm", 11)
    assert lab["tasks"] == [{"name": "A", "arrival": 5, "burst": 5, "period": 7, "relative_deadline": 7},
                            {"name": "B", "arrival": 5, "burst": 4, "period": 21, "relative_deadline": 9}]
    result = simulate("cpu", lab)
    assert completions(result) == {"A#1": 10, "A#2": 17, "A#3": 24, "B#1": None}
    assert result["timeline"][10:19] == ["B#1"] * 2 + ["A#2"] * 5 + [None] * 2
    assert [(j["name"], j["dropped"]) for j in result["jobs"] if j["missed"]] == [("B#1", True)]


TOGETHER = harness.scenario("edf", 307, ties=True)


def test_the_lab_breaks_an_edf_tie_by_input_order_where_simso_takes_the_earlier_timer():
    # edf #307 (with --ties): B (first release 1, C 1, T 4, D 3), C (0, C 1, T 5, D 3). At t=5 B#2 and C#2 are both
    # released with the deadline 8: the lab runs B#2 (input order) [5,6), then C#2 [6,7). SimSo runs C_2 first:
    # releases of one instant reach its ready list in the order their timers were set, C's at 0 before B's at 1.
    lab = TOGETHER
    assert lab["tasks"] == [{"name": "A", "arrival": 0, "burst": 3, "period": 13, "relative_deadline": 12},
                            {"name": "B", "arrival": 1, "burst": 1, "period": 4, "relative_deadline": 3},
                            {"name": "C", "arrival": 0, "burst": 1, "period": 5, "relative_deadline": 3}]
    result = simulate("cpu", lab)
    assert (completions(result)["B#2"], completions(result)["C#2"]) == (6, 7)
    assert harness.released_together(lab["tasks"], lab["horizon"])


# Two tasks with one period, the later first in the input.
EQUAL_PERIODS = {"algorithm": "rm", "horizon": 5, "on_miss": "continue",
                 "tasks": [{"name": "A", "arrival": 1, "burst": 2, "period": 5},
                           {"name": "B", "arrival": 0, "burst": 2, "period": 5}]}


def test_the_lab_breaks_an_rm_tie_by_input_order_where_simso_keeps_the_job_that_reached_it_first():
    # Equal periods rank by input order, a strict priority: [0,1) B#1; t=1 A#1 preempts it, [1,3) done 3; [3,4) B#1
    # done 4. SimSo's RM_mono takes the first of its ready list, B_1: [0,2) B_1 done 2, [2,4) A_1 done 4.
    assert simulate("cpu", EQUAL_PERIODS)["timeline"] == ["B#1", "A#1", "A#1", "B#1"]


# A job deferred behind its late predecessor ties with another task's job released before it reaches SimSo.
DEFERRED = {"algorithm": "edf", "horizon": 7, "on_miss": "continue",
            "tasks": [{"name": "A", "arrival": 0, "burst": 5, "period": 3},
                      {"name": "B", "arrival": 4, "burst": 1, "period": 10, "relative_deadline": 2}]}


def test_the_lab_breaks_an_edf_tie_by_release_where_simso_takes_the_job_that_reached_it_first():
    # A (C 5, T = D 3), B (first release 4, C 1, D 2); horizon 7: A#1 (0, d 3), A#2 (3, d 6), B#1 (4, d 6), A#3
    # (6, d 9). [0,5) A#1, late, done 5; t=5 A#2 and B#1 tie on the deadline 6: the earlier release, A#2, [5,10)
    # done 10; B#1 (d 6) before A#3 (d 9): [10,11) done 11; [11,16) A#3 done 16. SimSo hands A_2 to EDF_mono only
    # when A_1 ends, at 5, after B_1 (at 4): B_1 [5,6) done 6, A_2 [6,11) done 11.
    result = simulate("cpu", DEFERRED)
    assert completions(result) == {"A#1": 5, "A#2": 10, "B#1": 11, "A#3": 16}
    assert [job["name"] for job in result["jobs"] if job["missed"]] == ["A#1", "A#2", "B#1", "A#3"]


def test_a_python_without_simso_is_refused(monkeypatch, capsys):
    assert not harness.usable(None) and not harness.usable("/nonexistent/python")
    assert not harness.usable(sys.executable)
    with pytest.raises(RuntimeError, match="simso_driver.py failed"):
        harness.run_simso(sys.executable, [harness.simso_case(harness.scenario("rm", 0))])
    monkeypatch.delenv(harness.ENV, raising=False)
    assert "NOT measured" in harness.bench()["skipped"]
    assert "not set" in capsys.readouterr().out


SIMSO_PYTHON = os.environ.get(harness.ENV)

# Defined only where LAB_SIMSO names a python that imports simso: elsewhere it would be a skip, which build.py test
# refuses; the bench's simso part says when SimSo was NOT measured.
if harness.usable(SIMSO_PYTHON):
    def test_against_simso_when_lab_simso_is_set():
        for rule in harness.SCHEDULER:
            counts = harness.tally(SIMSO_PYTHON, rule, 60)
            assert counts["disagree"] == 0, counts["first"]
            assert counts["agree"] + counts["lost"] + counts["tie"] == 60
            assert counts["lost"] == 0 or rule == "dm"   # only SimSo's FP loses the CPU
            assert counts.get("RM_mono agrees") == counts.get("lost implicit")   # and where DM is RM, RM_mono agrees
            assert counts["ended"] > 0.9 * counts["jobs"] and counts["misses"] > 0
        # The three ties above, as SimSo breaks them.
        ties = (EQUAL_PERIODS, DEFERRED, TOGETHER)
        equal, deferred, together = (harness.outcomes_simso(answer["jobs"], lab["horizon"]) for answer, lab in zip(
            harness.run_simso(SIMSO_PYTHON, [harness.simso_case(lab) for lab in ties]), ties))
        assert (equal["B#1"][1], equal["A#1"][1]) == (2, 4)
        assert (deferred["B#1"], deferred["A#1"], deferred["A#2"]) == (("done", 6, False), ("done", 5, True),
                                                                        ("running", None, None))   # A_2 done 11
        assert (together["C#2"][1], together["B#2"][1]) == (6, 7)
