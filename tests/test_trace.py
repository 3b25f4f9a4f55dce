"""schedulers.trace: what has happened by a step, on the article's CPU tasks and the contract's LLM reference,
counted by hand."""
from __future__ import annotations

from fractions import Fraction

import re

import pytest

from schedulers import algorithms, simulate
from schedulers.custom import TEMPLATES
from schedulers.quiz import next_question, questions
from schedulers.cpu.steps import finished_by
from schedulers.llm.steps import (compare_so_far, dispatched_so_far, dispatches_so_far, fairness_so_far,
                                  normalised_so_far)
from schedulers.trace import aligned_step, pending, policy_lines, resumes_quantum, span, step_aligner

ARTICLE = {"tasks": [{"name": "A", "arrival": 0, "burst": 7}, {"name": "B", "arrival": 1, "burst": 4},
                     {"name": "C", "arrival": 2, "burst": 1}, {"name": "D", "arrival": 4, "burst": 3}]}
REFERENCE = {"tenants": [{"name": "A", "cost": 8, "count": 6}, {"name": "B", "cost": 2, "count": 6},
                         {"name": "C", "cost": 2, "count": 4, "join": 6}]}
# An engine run with every kind of step: arrivals and lifts, admissions, a pick that does not fit in memory, decodes
# that finish requests, an idle jump, a refund of vtc-predict.
ENGINE = {"slots": 2, "memory": 12, "tenants": [{"name": "A", "requests": "4/3~5x2+1/1@12"},
                                               {"name": "B", "requests": "6/2x2+2/2@3"}]}
FIGURES = ("interval", "increments", "jain", "pairwise_bound", "notes")
C_JOINS = 9        # steps: initial, A and B join, six dispatches (t = 0..5), then C joins at t = 6


@pytest.mark.parametrize("mode, scenario", [("cpu", ARTICLE), ("llm", REFERENCE), ("engine", ENGINE)])
def test_every_sentence_starts_at_the_time_its_step_shows(mode, scenario):
    """One time convention: step 0 is before t=0; CPU step k is the slice t=k-1 -> k and its sentence starts at the
    instant k-1 where the rule decided; an LLM step is the instant of its join, reset or dispatch; an engine step
    the instant t of an arrival, lift or admission, the iteration t -> t+1 of a decode, or the jump of an idle step."""
    runs = [simulate(mode, {**scenario, "algorithm": name}) for name in algorithms(mode)]
    runs.append(simulate(mode, scenario, policy_source=TEMPLATES[mode]))   # a policy of your own
    kinds = set()
    for result in runs:
        steps = result["steps"]
        assert span(result, 0) == (None, 0)
        starts = (("en", "Before t=0"), ("ja", "t=0 の前"))
        assert all(steps[0]["why"][lang].startswith(start) for lang, start in starts)
        for index, step in enumerate(steps[1:], start=1):
            start, end = span(result, index)
            if mode == "engine":
                kinds.add(step["kind"])
                i = step["iteration"]
                expected = {"decode": (i, i + 1), "idle": (i, step.get("until"))}.get(step["kind"], (i, i))
            else:
                expected = (index - 1, index) if mode == "cpu" else (step["time"], step["time"])
            assert (start, end) == expected
            for lang in ("en", "ja"):
                assert re.match(rf"t={start}:", step["why"][lang]), (result["algorithm"], index, step["why"][lang])
    if mode == "engine":
        assert kinds == {"arrive", "lift", "admit", "decode", "idle"}
        assert any("blocked" in step for result in runs for step in result["steps"])


def test_a_compact_cpu_step_is_still_the_slice_that_ends_at_its_time():
    from schedulers.cpu import run
    result = run({**ARTICLE, "algorithm": "fcfs"}, trace="compact")
    compact = result["steps"]
    assert [span(result, k) for k in range(len(compact))] == [(None, 0)] + [(s["time"] - 1, s["time"])
                                                                           for s in compact[1:]]


def test_cpu_finished_and_pending_follow_the_completions():
    fcfs = simulate("cpu", {**ARTICLE, "algorithm": "fcfs"})   # completions 7, 11, 12, 15; step k is time k
    assert finished_by(fcfs, 6) == set() and finished_by(fcfs, 7) == {"A"}
    assert finished_by(fcfs, 12) == {"A", "B", "C"} and finished_by(fcfs, 15) == {"A", "B", "C", "D"}
    assert pending(fcfs, 0) == {"A", "B", "C", "D"} and pending(fcfs, 11) == {"C", "D"} and pending(fcfs, 15) == set()


def test_llm_dispatches_so_far_and_pending():
    sfq = simulate("llm", {**REFERENCE, "algorithm": "sfq"})   # ABBBBABCBCCCAAAA
    assert [dispatched_so_far(sfq, k) for k in (0, 1, 2, 3, 8, C_JOINS, C_JOINS + 1)] == [0, 0, 0, 1, 6, 6, 7]
    assert [d["tenant"] for d in dispatches_so_far(sfq, C_JOINS)] == list("ABBBBA")
    assert pending(sfq, C_JOINS) == {"A", "B", "C"}
    twelfth = C_JOINS + 6   # ABBBBA BCBCCC: B has sent all 6, C all 4, A 2 of 6
    assert dispatched_so_far(sfq, twelfth) == 12 and pending(sfq, twelfth) == {"A"}
    assert pending(sfq, len(sfq["steps"]) - 1) == set()


def test_normalised_cost_is_exact_and_divided_by_the_weight():
    weighted = simulate("llm", {"algorithm": "rr", "tenants": [{"name": "A", "cost": 8, "count": 2, "weight": 3},
                                                               {"name": "B", "cost": 2, "count": 2}]})
    assert normalised_so_far(weighted, 0) == {"A": 0, "B": 0}
    assert normalised_so_far(weighted, 3) == {"A": Fraction(16, 3), "B": 2}   # A B A
    assert normalised_so_far(weighted, 99) == {"A": Fraction(16, 3), "B": 4}


def test_fairness_so_far_shows_nothing_before_every_tenant_waits():
    """SFQ ABBBBA|BCBCCCAAAA: C joins at t = 6, so until a dispatch at t >= 6 no interval has all three waiting
    (the whole run's figures, C +2 among them, come from t = 6..8: the future at step 9)."""
    sfq = simulate("llm", {**REFERENCE, "algorithm": "sfq"})
    for step in (0, 8, C_JOINS):   # the counter's "step 9" is index 8; C's join is index 9
        now = fairness_so_far(sfq, step)
        assert now["interval"] is None and now["increments"] is None and now["jain"] is None
        assert now["pairwise_bound"] is None and now["dispatched"] == dispatched_so_far(sfq, step)
        assert now["notes"]["interval"]["en"].startswith("so far")
    assert sfq["fairness"]["increments"] == {"A": 0, "B": 4, "C": 2}   # the whole run: t = 6..8


def test_fairness_so_far_grows_with_the_interval_and_ends_as_the_whole_run():
    sfq = simulate("llm", {**REFERENCE, "algorithm": "sfq"})
    # t = 6: B (2) -> x = A 0, B 2, C 0; Jain (2)^2 / (3 * 4) = 1/3; widest gap 2 (B over A) at t = 6.
    at6 = fairness_so_far(sfq, C_JOINS + 1)
    assert at6["interval"] == {"start": 6, "end": 6, "dispatches": 1}
    assert at6["exact"] == {"increments": {"A": "0", "B": "2", "C": "0"}, "jain": "1/3"}
    assert at6["pairwise_bound"]["max_gap"] == 2 and at6["pairwise_bound"]["at"] == 6
    assert at6["pairwise_bound"]["tenants"] == ["B", "A"] and at6["pairwise_bound"]["holds"]
    # t = 7: C (2) -> A 0, B 2, C 2; Jain 16 / (3 * 8) = 2/3.
    assert fairness_so_far(sfq, C_JOINS + 2)["exact"]["jain"] == "2/3"
    # t = 8: B (2) empties B -> A 0, B 4, C 2; Jain 36 / (3 * 20) = 3/5; widest gap 4 at t = 8. No later
    # dispatch has all three waiting, so this stays, and at the last step it is the whole run's figure.
    last = len(sfq["steps"]) - 1
    for step in (C_JOINS + 3, last):
        now = fairness_so_far(sfq, step)
        assert now["interval"] == {"start": 6, "end": 8, "dispatches": 3} and now["exact"]["jain"] == "3/5"
        assert now["pairwise_bound"]["max_gap"] == 4 and now["pairwise_bound"]["at"] == 8
    whole, run = fairness_so_far(sfq, last), sfq["fairness"]
    assert [whole[key] for key in FIGURES] == [run[key] for key in FIGURES]
    exact = ("increments", "jain")
    assert [whole["exact"][key] for key in exact] == [run["exact"][key] for key in exact]


def test_compare_so_far_uses_one_interval_for_both_runs():
    """SFQ against per-tenant RR. Whole runs: SFQ's own interval is t = 6..8, RR's t = 6..13, so their Jain 0.60
    and 0.61 and gaps 4 and 20 (RR's at t = 13) measure different things. Compared over the interval both share,
    as far as the step has gone: RR sends C A B at t = 6, 7, 8 -> A 8, B 2, C 2."""
    sfq = simulate("llm", {**REFERENCE, "algorithm": "sfq"})
    rr = simulate("llm", {**REFERENCE, "algorithm": "rr"})
    assert rr["fairness"]["interval"]["end"] == 13 and rr["fairness"]["pairwise_bound"]["at"] == 13
    for step in (8, C_JOINS):   # before C joins: nothing to compare yet, and nothing from the future
        both = compare_so_far(sfq, step, rr)
        assert both["interval"] is None and both["left"] is None and both["right"] is None
        assert both["notes"]["interval"]["en"].startswith("so far")
    # After t = 7 (8 dispatches): both over t = 6..7. SFQ: A 0, B 2, C 2, Jain 2/3, gap 2. RR: A 8, B 0, C 2,
    # Jain 100 / (3 * 68) = 25/51, gap 8 (A over B) at t = 7.
    both = compare_so_far(sfq, C_JOINS + 2, rr)
    assert both["dispatched"] == 8 and both["interval"] == {"start": 6, "end": 7, "dispatches": 2}
    assert both["left"]["exact"] == {"increments": {"A": "0", "B": "2", "C": "2"}, "jain": "2/3"}
    assert both["right"]["exact"] == {"increments": {"A": "8", "B": "0", "C": "2"}, "jain": "25/51"}
    assert both["right"]["pairwise_bound"]["max_gap"] == 8 and both["right"]["pairwise_bound"]["at"] == 7
    assert both["right"]["pairwise_bound"]["tenants"] == ["A", "B"]
    # From t = 8 on: SFQ's B empties at t = 8, so the shared interval is t = 6..8 to the end. RR: A 8, B 2, C 2,
    # Jain 144 / (3 * 72) = 2/3, gap 8 at t = 7 (not RR's whole-run 20 at t = 13).
    for step in (C_JOINS + 3, len(sfq["steps"]) - 1):
        both = compare_so_far(sfq, step, rr)
        assert both["interval"] == {"start": 6, "end": 8, "dispatches": 3}
        assert both["left"]["exact"]["jain"] == "3/5" and both["left"]["pairwise_bound"]["max_gap"] == 4
        assert both["right"]["exact"] == {"increments": {"A": "8", "B": "2", "C": "2"}, "jain": "2/3"}
        assert both["right"]["pairwise_bound"]["max_gap"] == 8 and both["right"]["pairwise_bound"]["at"] == 7
    # Each side's cost / weight so far is over the same dispatches: after six, SFQ ABBBBA, RR ABABAB.
    assert normalised_so_far(sfq, 6) == {"A": 16, "B": 8, "C": 0}
    assert normalised_so_far(rr, 6) == {"A": 24, "B": 6, "C": 0}


def test_aligned_step_matches_time_in_cpu_and_dispatch_count_in_llm():
    fcfs = simulate("cpu", {**ARTICLE, "algorithm": "fcfs"})
    srtf = simulate("cpu", {**ARTICLE, "algorithm": "srtf"})
    assert [aligned_step(fcfs, k, srtf) for k in (0, 5, 15)] == [0, 5, 15]
    compact = {**srtf, "steps": [s for s in srtf["steps"] if s["time"] in (0, 4, 12)]}   # only some steps kept
    assert [aligned_step(fcfs, k, compact) for k in (3, 4, 11, 15)] == [0, 1, 1, 2]
    sfq = simulate("llm", {**REFERENCE, "algorithm": "sfq"})
    rr = simulate("llm", {**REFERENCE, "algorithm": "rr"})
    assert aligned_step(sfq, 0, rr) == 0 and aligned_step(sfq, 2, rr) == 0   # joins: nothing dispatched yet
    assert aligned_step(sfq, C_JOINS, rr) == 8 and aligned_step(sfq, C_JOINS + 1, rr) == C_JOINS + 1
    shorter = {**rr, "steps": rr["steps"][:5]}   # two dispatches: the right side stops at its last one
    assert aligned_step(sfq, C_JOINS, shorter) == 4
    tasks = [{"name": "A", "arrival": 0, "burst": 3}, {"name": "B", "arrival": 5, "burst": 2}]
    left, right = simulate("cpu", {"tasks": tasks}), simulate("cpu", {"tasks": tasks[:1]})
    aligned = step_aligner(left, right)   # every step at once: the right's last step at or before the same time
    for step, state in enumerate(left["steps"]):
        assert aligned(step) == max(i for i, s in enumerate(right["steps"]) if s["time"] <= state["time"])


def test_policy_lines_are_those_of_the_call_that_decided_the_step():
    cpu = simulate("cpu", ARTICLE, policy_source=TEMPLATES["cpu"])
    calls = {call["time"]: set(call["lines"]) for call in cpu["custom"]["lines"]}
    assert policy_lines(cpu, 0) == set()                  # the initial state: no decision
    assert policy_lines(cpu, 1) == calls[0] and policy_lines(cpu, 8) == calls[7]
    llm = simulate("llm", REFERENCE, policy_source=TEMPLATES["llm"])
    assert policy_lines(llm, 1) == set()                  # a join: choose is not called
    dispatch = next(i for i, s in enumerate(llm["steps"]) if s["kind"] == "dispatch")
    assert policy_lines(llm, dispatch) == set(llm["custom"]["lines"][0]["lines"])


def test_next_question_skips_to_the_next_step_with_a_choice():
    fcfs = simulate("cpu", {**ARTICLE, "algorithm": "fcfs"})
    assert [q.step for q in questions(fcfs)] == [2, 3, 5, 8, 12]
    assert next_question(fcfs, 0).step == 2 and next_question(fcfs, 2).step == 3
    assert next_question(fcfs, 8).step == 12 and next_question(fcfs, 12) is None


def test_a_task_resumes_the_quantum_a_preemption_cut_short_unless_a_boost_renewed_it():
    # MLFQ, quanta 1, 2, 4: A runs [0, 1) and drops to level 1; its level-1 quantum (2) starts at 1; B arrives at
    # 2 on level 0 and preempts A with 1 left; B completes at 3 and A goes on with that 1 (step 4), expires at 4
    # and starts a new quantum at level 2 (step 5).
    tasks = {"algorithm": "mlfq", "quanta": [1, 2, 4], "tasks": [{"name": "A", "arrival": 0, "burst": 5},
                                                                 {"name": "B", "arrival": 2, "burst": 1}]}
    mlfq = simulate("cpu", tasks)
    assert [s["running"] for s in mlfq["steps"][1:]] == ["A", "A", "B", "A", "A", "A"]
    assert [resumes_quantum(mlfq, k) for k in range(len(mlfq["steps"]))] == [False] * 4 + [True, False, False]
    # With a boost every 2, the boost at t=2 comes before B's preemption: A's quantum is renewed, not resumed.
    boosted = simulate("cpu", {**tasks, "boost": 2})
    assert any(e["kind"] == "boost" for e in boosted["steps"][3]["events"])
    assert not any(resumes_quantum(boosted, k) for k in range(len(boosted["steps"])))
    assert not resumes_quantum(simulate("llm", REFERENCE), 3)
