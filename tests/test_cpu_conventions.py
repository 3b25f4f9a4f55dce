"""Every convention of the contract's CPU mode, each by a small exact case, and the article's numbers."""
import pytest

from schedulers.cpu import run
from tests.cpu_support import ARTICLE, chart, events, scenario, simulate


def test_article_reference_fcfs():
    result = simulate("fcfs", ARTICLE)
    assert len(result["steps"]) == 16
    rows = {t["name"]: t for t in result["tasks"]}
    assert [rows[n]["completion"] for n in "ABCD"] == [7, 11, 12, 15]
    assert [rows[n]["turnaround"] for n in "ABCD"] == [7, 10, 10, 11]
    assert [rows[n]["waiting"] for n in "ABCD"] == [0, 6, 9, 8]
    assert [rows[n]["response"] for n in "ABCD"] == [0, 6, 9, 8]
    assert result["averages"] == {"turnaround": 9.5, "waiting": 5.75, "response": 5.75}
    assert result["exact"]["averages"]["waiting"] == "23/4"
    assert chart(result) == "AAAAAAABBBBCDDD"
    assert result["summary"] == {"makespan": 15, "busy": 15, "idle": 0, "utilisation": 1,
                                 "context_switches": 3, "deadline_misses": 0}


@pytest.mark.parametrize("algorithm, expected, waiting, response", [
    # by hand: SJF picks C (1), D (3), B (4) at t=7
    ("sjf", "AAAAAAACDDDBBBB", [0, 10, 5, 4], [0, 10, 5, 4]),
    # SRTF: B (4 < 6) preempts A at 1, C (1 < 3) preempts B at 2; D (3) does not preempt B (2) at 4
    ("srtf", "ABCBBBDDDAAAAAA", [8, 1, 0, 2], [0, 0, 0, 2]),
    # RR q=2: at t=2 C arrives before A returns: queue B C A; at t=4 D arrives before B returns
    ("rr", "AABBCAADDBBAADA", [8, 6, 2, 7], [0, 1, 2, 3]),
])
def test_article_algorithms(algorithm, expected, waiting, response):
    result = simulate(algorithm, ARTICLE, quantum=2)
    assert chart(result) == expected
    assert [t["waiting"] for t in result["tasks"]] == waiting
    assert [t["response"] for t in result["tasks"]] == response


def test_arrivals_join_before_the_expired_task_returns():
    # At t=2 B arrives and A's quantum expires: B is ahead of A.
    result = simulate("rr", [("A", 0, 3), ("B", 2, 2)], quantum=2)
    assert chart(result) == "AABBA"
    step3 = result["steps"][3]
    assert [(e["kind"], e["task"]) for e in step3["events"]] == [("arrive", "B"), ("requeue", "A"), ("dispatch", "B")]


def test_simultaneous_arrivals_join_in_input_order():
    assert chart(simulate("fcfs", [("B", 0, 1), ("A", 0, 1)])) == "BA"
    assert chart(simulate("rr", [("B", 0, 2), ("A", 0, 2)], quantum=1)) == "BABA"


def test_ties_earlier_arrival_then_input_order():
    # At t=4 B, D and C all have burst 2: B and D arrived at 1 (B first in input), C at 2.
    assert chart(simulate("sjf", [("X", 0, 4), ("C", 2, 2), ("B", 1, 2), ("D", 1, 2)])) == "XXXXBBDDCC"
    assert chart(simulate("srtf", [("X", 0, 2), ("C", 2, 2), ("B", 1, 2), ("D", 1, 2)])) == "XXBBDDCC"


def test_the_explanation_says_how_a_tie_was_broken():
    steps = simulate("sjf", [("X", 0, 4), ("C", 2, 2), ("B", 1, 2), ("D", 1, 2)])["steps"]
    assert steps[5]["why"]["en"] == "t=4: B (burst 2) is dispatched: SJF runs the shortest burst. It ties with D, " \
                                    "arrived at the same time and comes first in the input."
    assert steps[7]["why"]["en"].endswith("It ties with C and arrived earlier.")
    assert steps[7]["why"]["ja"].endswith("Cと同点ですが、先に到着しています。")
    assert "ties" not in steps[9]["why"]["en"]


def test_srtf_preempts_only_on_strictly_shorter_remaining():
    equal = simulate("srtf", [("A", 0, 4), ("B", 1, 3)])      # at t=1 A has 3 left, B has 3
    assert chart(equal) == "AAAABBB"
    assert events(equal, "preempt") == []
    assert equal["steps"][2]["decision"] == "continue"
    shorter = simulate("srtf", [("A", 0, 4), ("B", 1, 2)])
    assert chart(shorter) == "ABBAAA"
    assert events(shorter, "preempt") == [("preempt", "A", 1)]
    assert shorter["steps"][2]["why"]["en"] == \
        "t=1: B (remaining 2) preempts A (remaining 3): SRTF runs the shortest remaining time."
    assert shorter["steps"][2]["why"]["ja"].startswith("t=1: B（残り2）がA（残り3）を横取り")


def test_rr_task_finishing_inside_its_quantum_frees_the_cpu_at_once():
    result = simulate("rr", [("A", 0, 1), ("B", 0, 3)], quantum=2)
    assert chart(result) == "ABBB"
    # B alone when its quantum expires at 3: it returns to the (empty) queue and starts a new quantum.
    assert events(result, "complete", "expire", "requeue", "dispatch") == [
        ("dispatch", "A", 0), ("complete", "A", 1), ("dispatch", "B", 1), ("expire", "B", 3),
        ("requeue", "B", 3), ("dispatch", "B", 3), ("complete", "B", 4)]
    assert result["summary"]["context_switches"] == 1


def test_idle_time_shows_as_idle():
    result = simulate("fcfs", [("A", 2, 1), ("B", 5, 2)])
    assert result["timeline"] == [None, None, "A", None, None, "B", "B"]
    assert result["summary"] == {"makespan": 7, "busy": 3, "idle": 4, "utilisation": 3 / 7,
                                 "context_switches": 1, "deadline_misses": 0}
    assert result["exact"]["utilisation"] == "3/7"
    assert events(result, "idle") == [("idle", None, 0), ("idle", None, 3)]
    assert result["steps"][1]["why"]["en"] == "t=0: no task is ready, so the CPU is idle until t=2."
    assert [s["decision"] for s in result["steps"]] == ["initial", "idle", "idle", "dispatch", "idle", "idle",
                                                         "dispatch", "continue"]
    assert [t["response"] for t in result["tasks"]] == [0, 0]


def test_step_numbering_and_snapshots():
    result = simulate("fcfs", [("A", 0, 2), ("B", 1, 1)])
    steps = result["steps"]
    assert [s["step"] for s in steps] == [0, 1, 2, 3] == [s["time"] for s in steps]
    assert steps[0] == {"step": 0, "time": 0, "running": None, "events": [], "decision": "initial",
                        "why": steps[0]["why"], "ready": [], "remaining": {"A": 2, "B": 1}}
    # Step k is the slice [k-1, k): events of instant k-1, then the slice's end; the state after it.
    assert [(s["running"], s["ready"], s["remaining"]) for s in steps[1:]] == [
        ("A", [], {"A": 1, "B": 1}), ("A", ["B"], {"A": 0, "B": 1}), ("B", [], {"A": 0, "B": 0})]
    assert [(e["kind"], e["task"]) for e in steps[2]["events"]] == [("arrive", "B"), ("complete", "A")]
    assert steps[2]["why"]["en"] == "t=1: A (arrived 0) continues: FCFS never preempts. A completes at t=2."


def test_ready_queue_is_shown_in_the_rules_order():
    result = simulate("sjf", [("A", 0, 3), ("B", 0, 5), ("C", 0, 1)])
    assert result["steps"][1]["ready"] == ["A", "B"]   # C runs; then A (3) before B (5)


def test_context_switches_ignore_idle_gaps():
    # A, idle, A again is no switch; A, idle, B is one.
    assert simulate("fcfs", [("A", 0, 1), ("B", 2, 1)])["summary"]["context_switches"] == 1
    assert simulate("rr", [("A", 0, 2), ("B", 0, 2)], quantum=1)["summary"]["context_switches"] == 3


def test_optional_fields_are_echoed_and_deadlines_reported():
    result = simulate("fcfs", [("A", 0, 2, {"deadline": 2, "priority": 3}), ("B", 0, 2, {"deadline": 3, "tickets": 5})])
    assert result["tasks"][0] | {} == {"name": "A", "arrival": 0, "burst": 2, "completion": 2, "turnaround": 2,
                                       "waiting": 0, "response": 0, "deadline": 2, "priority": 3, "missed": False}
    assert result["tasks"][1]["missed"] is True and result["tasks"][1]["tickets"] == 5
    assert result["summary"]["deadline_misses"] == 1


def test_the_result_has_the_documented_keys():
    result = run(scenario("rr", ARTICLE, quantum=3))
    assert set(result) == {"mode", "algorithm", "parameters", "timeline", "tasks", "averages", "summary",
                           "exact", "trace", "steps"}
    assert result["parameters"] == {"quantum": 3}
    assert result["trace"] == {"level": "full", "budget": 200_000, "max_steps": 50_000, "truncated": False}
    kinds = {e["kind"] for s in result["steps"] for e in s["events"]}
    assert kinds == {"arrive", "dispatch", "expire", "requeue", "complete"}
