"""The price of a switch (issue 20, item 2): hand-computed cases of what a switch is, when it happens and what the
result reports."""
import json
import subprocess
import sys

import pytest

from schedulers import ScenarioError
from schedulers.cpu import run
from schedulers.cpu.presets import PRESETS, versus
from tests.cpu_support import ARTICLE, ROOT, scenario


def chart(result):
    return "".join(e if isinstance(e, str) else "." if e is None else "~" for e in result["timeline"])


def test_the_article_under_rr_at_switch_cost_one():
    # q=4: A [0,4); at 4 D arrives before A rejoins: B C D A. Each dispatch is of another task: a switch of 1 before
    # it. B [5,9), C [10,11), D [12,15), A [16,19): 4 switches, makespan 19, utilisation 15/19.
    four = run(versus("rr-switch-cost"))
    assert chart(four) == "AAAA~BBBB~C~DDD~AAA"
    assert (four["switches"], four["switch_time"], four["exact"]["utilisation"]) == (4, 4, "15/19")
    assert four["summary"] == {"makespan": 19, "busy": 15, "idle": 0, "utilisation": 15 / 19,
                               "context_switches": 4, "deadline_misses": 0}
    # q=1: at 1 B arrives, A rejoins behind it; B's switch [1,2) (C arrives at 2, during it), B [2,3); then A C B D A
    # B D A B D ... each time another task; A alone at the end runs [24,27) without a switch: 12 switches, 15/27.
    one = run(PRESETS["rr-switch-cost"]["scenario"])
    assert chart(one) == "A~B~A~C~B~D~A~B~D~A~B~D~AAA"
    assert (one["switches"], one["switch_time"], one["exact"]["utilisation"]) == (12, 12, "5/9")
    assert one["timeline"][1] == {"switch": "B"}
    # Response is the first run, after the switch: B 2 - 1, C 6 - 2, D 10 - 4, A 0.
    assert [row["response"] for row in one["tasks"]] == [0, 1, 4, 6]


def test_the_quantum_starts_after_the_switch():
    # RR q=2: A [0,2); switch [2,3); B's quantum [3,5); switch [5,6); A [6,7) completes; switch [7,8); B [8,9).
    result = run(scenario("rr", [("A", 0, 3), ("B", 0, 3)], quantum=2, switch_cost=1))
    assert chart(result) == "AA~BB~A~B" and result["switches"] == 3


def test_the_same_task_again_is_no_switch_even_after_idle():
    # A [0,1), idle [1,3), B at 3 is another task: a switch [3,4), B [4,5).
    other = run(scenario("fcfs", [("A", 0, 1), ("B", 3, 1)], switch_cost=1))
    assert chart(other) == "A..~B" and other["switches"] == 1 and other["summary"]["idle"] == 2
    # A alone, blocked [1,3): back after idle it is the task that ran last: no switch.
    alone = run({"algorithm": "fcfs", "switch_cost": 2, "tasks": [{"name": "A", "arrival": 0, "bursts": [1, 2, 1]}]})
    assert chart(alone) == "A..A" and alone["switches"] == 0 and alone["utilisation"] == 0.5


def test_a_preemptive_rule_decides_again_at_the_end_of_the_switch():
    # SRTF, s=1. A [0,1); at 1 B (2) preempts A (4): switch [1,2). C (1) arrives at 2, as the switch ends: the rule
    # decides and C preempts B before B ran: another switch (from A, the last to run) [2,3); C [3,4). B (2) < A (4):
    # switch [4,5), B [5,7); switch [7,8), A [8,12).
    result = run(scenario("srtf", [("A", 0, 5), ("B", 1, 2), ("C", 2, 1)], switch_cost=1))
    assert chart(result) == "A~~C~BB~AAAA"
    assert result["switches"] == 4
    assert [(row["name"], row["response"]) for row in result["tasks"]] == [("A", 0), ("B", 4), ("C", 1)]
    steps = result["steps"]
    assert steps[2]["running"] is None and steps[2]["switch"] == "B" and steps[2]["decision"] == "preempt"
    assert [(e["kind"], e["task"]) for e in steps[3]["events"]] == \
        [("arrive", "C"), ("preempt", "B"), ("dispatch", "C"), ("switch", "C")]
    assert steps[3]["why"]["en"].endswith("The switch to C takes until t=3.")
    assert steps[4]["why"]["en"].startswith("t=3: the switch is over: C (remaining 1) runs")
    assert steps[4]["why"]["ja"].startswith("t=3: 切り替えが終わり、C（残り1）を実行します")


def test_a_non_preemptive_switch_is_not_interrupted_and_steps_say_so():
    # FCFS, s=2: A [0,1); B's switch [1,3), C arriving at 2 joins during it; B [3,4); switch to C [4,6); C [6,7).
    result = run(scenario("fcfs", [("A", 0, 1), ("B", 0, 1), ("C", 2, 1)], switch_cost=2))
    assert chart(result) == "A~~B~~C" and result["switches"] == 2 and result["switch_time"] == 4
    assert result["steps"][3]["decision"] == "switch" and result["steps"][3]["switch"] == "B"
    assert [e["kind"] for e in result["steps"][3]["events"]] == ["arrive"]
    assert result["steps"][3]["why"]["en"].startswith("t=2: switching to B until t=3.")


def test_switch_cost_zero_keeps_todays_result_and_reports_the_counts():
    plain = run(scenario("rr", ARTICLE, quantum=2))
    zero = run(scenario("rr", ARTICLE, quantum=2, switch_cost=0))
    assert {key: zero[key] for key in plain} == plain
    # RR q=2 on the article: AA BB C AA DD BB AA D A, 8 dispatches of another task, free.
    assert (zero["switches"], zero["switch_time"], zero["utilisation"]) == (8, 0, 1)
    assert zero["summary"]["context_switches"] == 8
    assert "switches" not in plain


def test_bad_switch_cost_is_named(tmp_path):
    for bad in (-1, 1.5, "x", 1001):
        with pytest.raises(ScenarioError) as error:
            run(scenario("rr", ARTICLE, switch_cost=bad))
        assert error.value.field == "switch_cost"
    path = tmp_path / "s.json"
    path.write_text(json.dumps(scenario("rr", ARTICLE)))
    done = subprocess.run([sys.executable, "-m", "schedulers", "cpu", "--scenario", str(path), "--switch-cost", "-2"],
                          cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and done.stderr.startswith("error: switch_cost") and "Traceback" not in done.stderr


def test_the_quiz_asks_the_dispatch_that_starts_a_switch():
    from schedulers.cpu.steps import question
    # RR q=2, s=1: A [0,2), switch to B [2,3), B [3,5), switch to A [5,6), A [6,7), switch to B, B [8,9). Asked: who
    # runs at 0 (A or B), at 2 (B: the switch's step), at 5 (A); not during a switch nor after it.
    result = run(scenario("rr", [("A", 0, 3), ("B", 0, 3)], quantum=2, switch_cost=1))
    asked = {k: question(result, k) for k in range(1, len(result["steps"]))}
    assert {k: q.answer for k, q in asked.items() if q is not None} == {1: "A", 3: "B", 6: "A"}
