"""schedulers.trace: what has happened by a step, on the article's CPU tasks and the contract's LLM reference,
counted by hand."""
from __future__ import annotations

from fractions import Fraction

from schedulers import simulate
from schedulers.custom import TEMPLATES
from schedulers.quiz import next_question, questions
from schedulers.trace import (dispatched_so_far, dispatches_so_far, finished_by, normalised_so_far, pending,
                              policy_lines, resumes_quantum, step_aligner)

ARTICLE = {"tasks": [{"name": "A", "arrival": 0, "burst": 7}, {"name": "B", "arrival": 1, "burst": 4},
                     {"name": "C", "arrival": 2, "burst": 1}, {"name": "D", "arrival": 4, "burst": 3}]}
REFERENCE = {"tenants": [{"name": "A", "cost": 8, "count": 6}, {"name": "B", "cost": 2, "count": 6},
                         {"name": "C", "cost": 2, "count": 4, "join": 6}]}
C_JOINS = 9        # steps: initial, A and B join, six dispatches (t = 0..5), then C joins at t = 6


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


def test_step_aligner_matches_time_in_cpu_and_dispatch_count_in_llm():
    fcfs = simulate("cpu", {**ARTICLE, "algorithm": "fcfs"})
    srtf = simulate("cpu", {**ARTICLE, "algorithm": "srtf"})
    assert [step_aligner(fcfs, srtf)(k) for k in (0, 5, 15)] == [0, 5, 15]
    compact = {**srtf, "steps": [s for s in srtf["steps"] if s["time"] in (0, 4, 12)]}   # only some steps kept
    assert [step_aligner(fcfs, compact)(k) for k in (3, 4, 11, 15)] == [0, 1, 1, 2]
    sfq = simulate("llm", {**REFERENCE, "algorithm": "sfq"})
    rr = simulate("llm", {**REFERENCE, "algorithm": "rr"})
    assert step_aligner(sfq, rr)(0) == 0 and step_aligner(sfq, rr)(2) == 0   # joins: nothing dispatched yet
    assert step_aligner(sfq, rr)(C_JOINS) == 8 and step_aligner(sfq, rr)(C_JOINS + 1) == C_JOINS + 1
    shorter = {**rr, "steps": rr["steps"][:5]}   # two dispatches: the right side stops at its last one
    assert step_aligner(sfq, shorter)(C_JOINS) == 4
    tasks = [{"name": "A", "arrival": 0, "burst": 3}, {"name": "B", "arrival": 5, "burst": 2}]
    left, right = simulate("cpu", {"tasks": tasks}), simulate("cpu", {"tasks": tasks[:1]})
    aligned = step_aligner(left, right)
    for step, state in enumerate(left["steps"]):   # the right's last step at or before the same time
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
