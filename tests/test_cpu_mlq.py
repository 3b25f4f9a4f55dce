"""MLQ, the multilevel queue (issue 22 item 3): hand-computed cases, bad input, and the property that one class of
rule R is R. Each hand computation follows docs/cpu.md "MLQ": strict priority between classes (0 the highest),
preemptive; within a class its rule; a task preempted by a higher class keeps its place at the head of its class's
queue and the rest of its quantum."""
import json
import subprocess
import sys

import pytest
from hypothesis import given, strategies as st

from schedulers import ScenarioError, simulate
from schedulers.cpu import run
from schedulers.export import metrics_csv

from cpu_support import chart, events, scenario
from test_cpu_multi import with_io


def mlq(tasks, classes=None, **parameters):
    extra = {} if classes is None else {"classes": classes}
    return run(scenario("mlq", tasks, **extra, **parameters))


def test_a_higher_class_preempts_at_once_and_rr_runs_inside_its_class():
    # Default classes: 0 RR q=2, 1 FCFS. A (class 1) runs [0, 1); B (class 0) arrives at 1 and preempts it at once.
    # B runs [1, 3); C (class 0) arrived at 2, so at 3 B's quantum ends and it rejoins behind C: C [3, 5), B [5, 6);
    # then class 0 is empty and A, at the head of class 1, runs [6, 10).
    result = mlq([("A", 0, 5, {"class": 1}), ("B", 1, 3), ("C", 2, 2)])
    assert chart(result) == "ABBCCBAAAA"
    assert result["parameters"] == {"classes": [{"rule": "rr", "quantum": 2}, {"rule": "fcfs"}]}
    assert events(result, "preempt") == [("preempt", "A", 1)]
    assert [row.get("class") for row in result["tasks"]] == [1, None, None]   # the class column, as given
    why = result["steps"][2]["why"]   # the slice [1, 2): the preemption, which class and rule decided
    assert why["en"] == ("t=1: B (class 0 (RR, q=2): remaining 3) preempts A (class 1 (FCFS): arrived 0): MLQ runs "
                         "the highest non-empty class, by that class's own rule.")
    assert why["ja"] == ("t=1: B（クラス0（RR、q=2）: 残り3）がA（クラス1（FCFS）: 到着0）を横取りします: "
                         "MLQは待ちタスクのある最上位クラスを、そのクラスの規則で実行します。")


def test_a_preempted_task_keeps_the_rest_of_its_quantum():
    # Classes 0 FCFS, 1 RR q=3. A (class 1) runs [0, 2); H (class 0) preempts it at 2 with 1 of A's quantum left
    # and runs [2, 3). At 3 A is still the head of class 1 (B joined after it) and runs the rest, [3, 4); its quantum
    # ends and it rejoins behind B: B [4, 7) (a whole quantum, 1 left), A [7, 9) completes, B [9, 10).
    result = mlq([("A", 0, 5, {"class": 1}), ("B", 0, 4, {"class": 1}), ("H", 2, 1)], "fcfs;rr:quantum=3")
    assert chart(result) == "AAHABBBAAB"


def test_a_preempted_task_keeps_its_place_at_the_head_of_an_sjf_class():
    # Classes 0 FCFS, 1 SJF. A (class 1, burst 4) runs [0, 1); at 1 H (class 0) preempts it and S (class 1, burst 1)
    # arrives. H runs [1, 2). At 2 SJF alone would take S (burst 1 < 4), but A keeps its place at the head of its
    # class: A [2, 5), then S [5, 6).
    result = mlq([("A", 0, 4, {"class": 1}), ("S", 1, 1, {"class": 1}), ("H", 1, 1)], "fcfs;sjf")
    assert chart(result) == "AHAAAS"


def test_srtf_preempts_within_its_class_but_never_across_classes():
    # Classes 0 SRTF, 1 FCFS. A (class 0, 5) runs [0, 1); B (class 0, 2) arrives at 1 with 2 < A's 4: it preempts
    # (SRTF inside class 0), [1, 3). A [3, 7): at 3 C (class 1) has 3 < A's 4 left but is of a lower class. C [7, 10).
    result = mlq([("A", 0, 5), ("B", 1, 2), ("C", 0, 3, {"class": 1})], [{"rule": "srtf"}, {"rule": "fcfs"}])
    assert chart(result) == "ABBAAAACCC"
    assert events(result, "preempt") == [("preempt", "A", 1)]


def test_a_return_from_io_joins_its_class_and_preempts_a_lower_one():
    # Default classes (0 RR q=2, 1 FCFS). A (class 0: CPU 1, I/O 2, CPU 2) runs [0, 1) and blocks until 3; L (class 1,
    # first in input order) runs [1, 3). At 3 A returns into class 0 and preempts L: A [3, 5) completes. L, still
    # the head of class 1, [5, 7); M [7, 9). With switch cost 1 every change of task costs a unit:
    # A [0, 1), switch [1, 2), L [2, 4), A's return at 3 preempts L: switch [4, 5)... see the second run.
    tasks = [("A", 0, 0, {"class": 0, "bursts": [1, 2, 2]}), ("L", 0, 4, {"class": 1}), ("M", 0, 2, {"class": 1})]
    tasks = [(name, arrival, burst, extra) if not extra.get("bursts") else (name, arrival, 1, extra)
             for name, arrival, burst, extra in tasks]
    items = scenario("mlq", tasks)["tasks"]
    del items[0]["burst"]
    result = run({"algorithm": "mlq", "tasks": items})
    assert chart(result) == "ALLAALLMM"
    assert ("return", "A", 3) in events(result, "return")
    # Switch cost 1: A [0, 1); L is switched in [1, 2) and runs [2, 3); at 3 A returns and preempts L: switch [3, 4),
    # A [4, 6); switch back to L [6, 7), L [7, 10) (its last 3); switch [10, 11), M [11, 13).
    costly = run({"algorithm": "mlq", "tasks": items, "switch_cost": 1})
    assert "".join(unit if type(unit) is str else "s" if unit else "." for unit in costly["timeline"]) == \
        "AsLsAAsLLLsMM"


def test_two_cpus_preempt_the_lowest_class_worst_task():
    # cpus 2, default classes. A and B (class 1, FCFS) take CPU 0 and CPU 1 at 0. H (class 0) arrives at 1: no CPU is
    # free, so it preempts the running task MLQ ranks worst: both are class 1 and both have started, so FCFS's order
    # reversed: B (joined later), on CPU 1. H runs [1, 3) there; at 3 B takes its last CPU, 1, again: [3, 6).
    result = mlq([("A", 0, 4, {"class": 1}), ("B", 0, 4, {"class": 1}), ("H", 1, 2)], cpus=2)
    assert result["timelines"] == [["A", "A", "A", "A", None, None], ["B", "H", "H", "B", "B", "B"]]
    assert result["migrations"] == 0
    assert "on CPU 1" in result["steps"][2]["why"]["en"]


def test_two_cpus_preempt_a_lower_class_before_an_srtf_rival():
    # cpus 2, classes 0 SRTF, 1 FCFS. A (class 0, 5) on CPU 0, L (class 1, 4) on CPU 1 at 0. B (class 0, 1) arrives
    # at 1, shorter than A's 4 left, but the worst running task is L, of the lower class: B preempts L on CPU 1,
    # [1, 2); at 2 L takes CPU 1 again, [2, 5); A runs on, [0, 5).
    result = mlq([("A", 0, 5), ("L", 0, 4, {"class": 1}), ("B", 1, 1)], "srtf;fcfs", cpus=2)
    assert result["timelines"] == [["A"] * 5, ["L", "B", "L", "L", "L"]]
    assert [(e["task"], e["cpu"]) for step in result["steps"] for e in step["events"] if e["kind"] == "preempt"] \
        == [("L", 1)]


def test_periodic_jobs_run_in_their_tasks_class():
    # Classes 0 FCFS, 1 RR q=2; A periodic (C 1, T 3, class 0), B one burst of 4 in class 1; horizon 6: jobs at 0, 3.
    # A#1 [0, 1); B [1, 3), its quantum ending at 3 as A#2 is released; A#2 [3, 4); B [4, 6). Its row keeps its class.
    result = mlq([("A", 0, 1, {"period": 3}), ("B", 0, 4, {"class": 1})], "fcfs;rr", horizon=6)
    assert result["timeline"] == ["A#1", "B", "B", "A#2", "B", "B"]
    assert [row.get("class") for row in result["tasks"]] == [None, 1]
    with pytest.raises(ScenarioError) as caught:   # a job's class is its task's, named by the task's place
        mlq([("B", 0, 4), ("A", 0, 1, {"period": 3, "class": 2})], "fcfs;rr", horizon=6)
    assert caught.value.field == "tasks[1].class"


def test_the_preset_batch_waits_while_an_interactive_task_is_ready():
    # Class 0 RR q=2: I [0, 2); J arrived at 2 ahead of I's requeue: J [2, 4), I [4, 5) completes; K arrives at 5
    # behind J: J [5, 6) completes, K [6, 9). Only then B (class 1): [9, 13). Under RR q=2 (versus), all in one queue:
    # B [0, 2), I [2, 4), J [4, 6), B [6, 8) completes, I [8, 9), K [9, 11), J [11, 12), K [12, 13).
    from schedulers.cpu.presets import PRESETS, versus
    result = run(PRESETS["mlq-batch-waits"]["scenario"])
    assert chart(result) == "IIJJIJKKKBBBB"
    assert {row["name"]: (row["completion"], row["response"]) for row in result["tasks"]} == {
        "B": (13, 9), "I": (5, 0), "J": (6, 0), "K": (9, 1)}
    other = run(versus("mlq-batch-waits"))
    assert chart(other) == "BBIIJJBBIKKJK"
    assert [row["completion"] for row in other["tasks"]] == [8, 9, 12, 13]


def test_the_export_carries_the_class():
    result = mlq([("A", 0, 2, {"class": 1}), ("B", 0, 1)])
    lines = metrics_csv(result).splitlines()
    assert "class" in lines[0].split(",")
    assert json.loads(json.dumps(result))["tasks"][0]["class"] == 1


@pytest.mark.parametrize("classes, tasks, field", [
    ("rr:quantum=2;fcfs", [("A", 0, 1, {"class": 2})], "tasks[0].class"),          # beyond the two classes
    ("fcfs", [("A", 0, 1), ("B", 0, 1, {"class": 1})], "tasks[1].class"),
    ("rr;mlfq", [("A", 0, 1)], "classes[1].rule"),                                  # a rule MLQ does not allow
    ([{"rule": "fcfs"}, {"rule": "edf"}], [("A", 0, 1)], "classes[1].rule"),
    ("fcfs:quantum=2", [("A", 0, 1)], "classes[0].quantum"),                        # a parameter fcfs does not read
    ("rr:quantum=0", [("A", 0, 1)], "classes[0].quantum"),
    ("rr:quantum", [("A", 0, 1)], "classes[0].quantum"),                         # by position: not a number
    (":quantum=2", [("A", 0, 1)], "classes[0].rule"),
    ("", [("A", 0, 1)], "classes"),                                                 # no class at all
    ([{"rule": "rr", "quantun": 2}], [("A", 0, 1)], "classes[0].quantun"),
    ("fcfs", [("A", 0, 1, {"class": -1})], "tasks[0].class"),
])
def test_bad_input_names_the_field(classes, tasks, field):
    with pytest.raises(ScenarioError) as caught:
        mlq(tasks, classes)
    assert caught.value.field == field


def test_the_command_line_takes_classes():
    scenario_text = json.dumps({"algorithm": "mlq", "tasks": [{"name": "A", "arrival": 0, "burst": 3, "class": 1},
                                                              {"name": "B", "arrival": 1, "burst": 1}]})
    command = [sys.executable, "-m", "schedulers", "cpu", "--scenario", "-"]
    done = subprocess.run([*command, "--json", "--classes", "fcfs; sjf"], input=scenario_text, capture_output=True,
                          text=True, check=True)
    assert json.loads(done.stdout)["parameters"] == {"classes": [{"rule": "fcfs"}, {"rule": "sjf"}]}
    bad = subprocess.run([sys.executable, "-m", "schedulers", "cpu", "--classes", "rr;cfs", "--scenario", "-"],
                         input=scenario_text, capture_output=True, text=True)
    assert bad.returncode != 0 and "classes[1].rule" in bad.stderr and "Traceback" not in bad.stderr


RULE_ENTRIES = st.sampled_from([{"rule": "fcfs"}, {"rule": "sjf"}, {"rule": "srtf"}, {"rule": "rr"},
                                {"rule": "rr", "quantum": 1}, {"rule": "rr", "quantum": 3}, {"rule": "priority"},
                                {"rule": "priority", "aging": 2}])


@given(with_io(), RULE_ENTRIES, st.integers(0, 2), st.integers(1, 2))
def test_one_class_of_rule_r_is_r(tasks, entry, switch_cost, cpus):
    """With one class, MLQ is that class's rule: the same timeline(s) and the same task rows."""
    plain = {"tasks": tasks, "switch_cost": switch_cost, "cpus": cpus}
    alone = simulate("cpu", {**plain, "algorithm": entry["rule"], **{k: v for k, v in entry.items() if k != "rule"}})
    as_mlq = simulate("cpu", {**plain, "algorithm": "mlq", "classes": [entry]})
    timeline = "timeline" if cpus == 1 else "timelines"
    assert as_mlq[timeline] == alone[timeline]
    assert as_mlq["tasks"] == alone["tasks"]
