"""Per-CPU queues and stealing (issue 22 item 2): hand-computed cases, bad input, and properties.

The hand computations follow docs/cpu.md "Per-CPU queues": a task joins the queue of the CPU it last ran on, or,
before it has ever run, the shortest queue (its waiting tasks; ties: the lowest number); each free CPU takes its own
queue's best task; with steal, a CPU still free (its queue empty) takes the tail of the longest queue (ties: the
lowest number); a preemption is within one CPU's queue."""
import json
import subprocess
import sys
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schedulers import ScenarioError, simulate
from schedulers.cpu import ALGORITHMS, run
from schedulers.cpu.multi import schedule_multi
from schedulers.cpu.policies import make_policy
from schedulers.cpu.presets import PRESETS, versus
from schedulers.cpu.scenario import read_parameters, read_tasks
from schedulers.export import metrics_csv
from schedulers.recording import NONE

from test_cpu_multi import kinds, with_io
from test_cpu_properties import PARAMETERS, workloads

PER_CPU_RULES = [name for name in sorted(ALGORITHMS) if make_policy(name, read_parameters({})).per_cpu]


def per_cpu(tasks, steal=False, algorithm="fcfs", cpus=2, **more):
    return simulate("cpu", {"algorithm": algorithm, "cpus": cpus, "queues": "per-cpu", "steal": steal,
                            "tasks": tasks, **more})


IMBALANCE = [{"name": "A", "arrival": 0, "burst": 1}, {"name": "B", "arrival": 0, "burst": 4},
             {"name": "C", "arrival": 0, "burst": 2}, {"name": "D", "arrival": 0, "burst": 2}]


def test_without_stealing_one_cpu_idles_while_the_other_queue_waits():
    # Placement at 0, in input order, by waiting tasks: A -> queue 0 (0, 0: the lowest), B -> 1 (1, 0),
    # C -> 0 (1, 1: the lowest), D -> 1 (2, 1). t=0: CPU 0 runs A, CPU 1 runs B; queues [C], [D].
    # t=1: A completes; CPU 0 runs C [1, 3). t=3: CPU 0's queue is empty: it idles while D waits for B (done at 4).
    # D runs [4, 6) on CPU 1. Busy 1 + 4 + 2 + 2 = 9 of 2 x 6: 3/4.
    result = per_cpu(IMBALANCE)
    assert result["timelines"] == [["A", "C", "C", None, None, None], ["B", "B", "B", "B", "D", "D"]]
    assert result["queues"] == "per-cpu" and result["steal"] is False
    assert (result["steals"], result["migrations"]) == (0, 0)
    assert result["exact"]["utilisation"] == "3/4" and result["exact"]["cpu_utilisation"] == ["1/2", "1"]
    assert result["steps"][1]["queues"] == [["C"], ["D"]] and result["steps"][1]["ready"] == ["C", "D"]
    idle = result["steps"][4]   # the slice [3, 4)
    assert idle["running"] == [None, "B"] and idle["queues"] == [[], ["D"]]
    assert "CPU 0 idles, its own queue empty, while another CPU's queue holds D (no stealing)." in idle["why"]["en"]
    assert "CPU 0は自分のキューが空なので空いたままです。" in idle["why"]["ja"]


def test_with_stealing_the_free_cpu_takes_the_waiting_task():
    # As above until t=3: CPU 0 is free and its queue empty; the longest queue is CPU 1's, [D]: CPU 0 steals D,
    # which never ran, so no migration. D runs [3, 5). Busy 9 of 2 x 5: 9/10.
    result = per_cpu(IMBALANCE, steal=True)
    assert result["timelines"] == [["A", "C", "C", "D", "D"], ["B", "B", "B", "B", None]]
    assert (result["steals"], result["migrations"]) == (1, 0)
    assert kinds(result, "steal") == [(3, "D", 1, 0)]
    step = result["steps"][4]
    assert step["decision"] == "dispatch" and step["running"] == ["D", "B"] and step["queues"] == [[], []]
    assert "t=3: CPU 0 steals D (arrived 0) from CPU 1's queue" in step["why"]["en"]
    assert "CPU 1のキューからD（" in step["why"]["ja"]
    assert "run,steals,1" in metrics_csv(result).splitlines()


RETURN = [{"name": "A", "arrival": 0, "bursts": [1, 2, 2]}, {"name": "B", "arrival": 0, "burst": 3},
          {"name": "C", "arrival": 1, "burst": 4}]


def test_a_return_joins_the_queue_of_its_last_cpu():
    # t=0: A -> queue 0, B -> queue 1; CPU 0 runs A, CPU 1 runs B. t=1: A blocks until 3; C arrives, the queues
    # hold 0 and 0 waiting tasks: queue 0 (the lowest); CPU 0 runs C [1, 5). t=3: B completes; A returns and joins
    # queue 0, the queue of CPU 0 where it last ran, though CPU 1 is free (one global queue would move it there).
    # t=5: C completes; CPU 0 runs A [5, 7).
    result = per_cpu(RETURN)
    assert result["timelines"] == [["A", "C", "C", "C", "C", "A", "A"], ["B", "B", "B", None, None, None, None]]
    assert result["steps"][4]["queues"] == [["A"], []]
    assert result["migrations"] == 0
    shared = simulate("cpu", {"algorithm": "fcfs", "cpus": 2, "tasks": RETURN})
    assert shared["timelines"][1][3:5] == ["A", "A"] and shared["migrations"] == 1


def test_a_stolen_task_that_ran_before_migrates():
    # As above, but at t=3 CPU 1 (free, its queue empty) steals A from queue 0: A ran on CPU 0, so the steal is
    # also a migration. A runs [3, 5) on CPU 1.
    result = per_cpu(RETURN, steal=True)
    assert result["timelines"] == [["A", "C", "C", "C", "C"], ["B", "B", "B", "A", "A"]]
    assert (result["steals"], result["migrations"]) == (1, 1)
    assert kinds(result, "migrate") == [(3, "A", 0, 1)]


def test_placement_counts_waiting_tasks_and_ties_go_to_the_lowest_queue():
    # A (0, 3) -> queue 0 and runs on CPU 0 from 0. At 1: B -> queue 0 (0 and 0 waiting: running A does not count;
    # the tie goes to the lowest), C -> queue 1 (1, 0), D -> queue 0 (1, 1: the lowest). t=1: CPU 1 runs C [1, 3).
    # t=3: A and C complete; CPU 0 runs B [3, 5), then D [5, 6); CPU 1 idles from 3.
    tasks = [{"name": "A", "arrival": 0, "burst": 3}, {"name": "B", "arrival": 1, "burst": 2},
             {"name": "C", "arrival": 1, "burst": 2}, {"name": "D", "arrival": 1, "burst": 1}]
    result = per_cpu(tasks)
    assert result["steps"][2]["queues"] == [["B", "D"], []]
    assert result["timelines"] == [["A", "A", "A", "B", "B", "D"], [None, "C", "C", None, None, None]]
    # With stealing, at t=3 CPU 0 first takes B from its own queue; then CPU 1 steals D, queue 0's tail.
    stolen = per_cpu(tasks, steal=True)
    assert stolen["timelines"] == [["A", "A", "A", "B", "B"], [None, "C", "C", "D", None]]
    assert kinds(stolen, "steal") == [(3, "D", 0, 1)]


def test_a_steal_takes_the_tail_of_the_longest_queue_ties_to_the_lowest():
    # Eight tasks at 0 on 3 CPUs, placed round the queues: A, D, G -> 0; B, E, H -> 1; C, F -> 2. A and B run 5,
    # the rest 1. t=0: the CPUs run A, B, C; queues [D, G], [E, H], [F]. t=1: CPU 2 runs F (its own). t=2: CPU 2
    # is free, its queue empty: queues 0 and 1 both hold 2, so queue 0, whose tail is G. t=3: queue 1 holds 2,
    # queue 0 one: H. t=4: 1 and 1: queue 0's D. t=5: A and B complete; CPU 1 takes E from its own queue; CPU 0's
    # queue is empty and so is every other: it idles.
    tasks = [{"name": name, "arrival": 0, "burst": 5 if name in "AB" else 1} for name in "ABCDEFGH"]
    result = per_cpu(tasks, steal=True, cpus=3)
    assert result["steps"][1]["queues"] == [["D", "G"], ["E", "H"], ["F"]]
    assert [(time, task, source) for time, task, source, _ in kinds(result, "steal")] == [
        (2, "G", 0), (3, "H", 1), (4, "D", 0)]
    assert result["timelines"] == [["A"] * 5 + [None], ["B"] * 5 + ["E"], ["C", "F", "G", "H", "D", None]]
    assert result["steals"] == 3 and result["migrations"] == 0


def test_srtf_preempts_within_the_cpus_own_queue():
    # A (0, 5) -> queue 0, B (0, 5) -> queue 1. At 1 C (1) joins queue 0 (0 and 0 waiting: the lowest) and preempts
    # A on CPU 0 (remaining 1 < 4). One global queue would preempt B instead (A and B tie at 4; the later input is
    # the worst). t=2: C completes; A runs again on CPU 0 [2, 6).
    tasks = [{"name": "A", "arrival": 0, "burst": 5}, {"name": "B", "arrival": 0, "burst": 5},
             {"name": "C", "arrival": 1, "burst": 1}]
    result = per_cpu(tasks, algorithm="srtf")
    assert result["timelines"] == [["A", "C", "A", "A", "A", "A"], ["B"] * 5 + [None]]
    assert kinds(result, "preempt") == [(1, "A", None, 0)]
    assert "C (remaining 1) preempts A (remaining 4) on CPU 0" in result["steps"][2]["why"]["en"]
    shared = simulate("cpu", {"algorithm": "srtf", "cpus": 2, "tasks": tasks})
    assert kinds(shared, "preempt") == [(1, "B", None, 1)]


def test_mlfq_keeps_levels_per_cpu_queue():
    # MLFQ, 2 levels, quanta 1 and 2, allotment 1. A (0, 3) -> queue 0, B (0, 3) -> queue 1; each runs its level-0
    # quantum of 1 on its CPU and moves down to level 1. At 1 C (1) arrives first (lab conventions: before the
    # requeues): 0 and 0 waiting, so queue 0; then A rejoins queue 0 and B queue 1, at level 1. CPU 0 runs C
    # (level 0 before level 1) [1, 2), CPU 1 runs B [1, 3) (quantum 2). t=2: C completes; CPU 0 runs A [2, 4).
    tasks = [{"name": "A", "arrival": 0, "burst": 3}, {"name": "B", "arrival": 0, "burst": 3},
             {"name": "C", "arrival": 1, "burst": 1}]
    result = per_cpu(tasks, algorithm="mlfq", levels=2, quanta=[1, 2])
    assert result["timelines"] == [["A", "C", "A", "A"], ["B", "B", "B", None]]
    assert result["steps"][2]["queues"] == [["A"], []]


def test_the_load_imbalance_preset_compares_steal_off_and_on():
    # A, C, E -> queue 0 and B, D, F -> queue 1 (placed in turn). Off: CPU 0 runs A [0, 8), C [8, 14), E [14, 20);
    # CPU 1 runs B, D, F [0, 3) and idles. Busy 23 of 2 x 20. On: at 3 CPU 1 steals E (queue 0's tail) [3, 9).
    # Busy 23 of 2 x 14. Waiting off: 0 + 0 + 8 + 1 + 14 + 2 = 25, /6; on: 0 + 0 + 8 + 1 + 3 + 2 = 14, /6 = 7/3.
    off, on = run(PRESETS["load-imbalance"]["scenario"]), run(versus("load-imbalance"))
    assert (off["summary"]["makespan"], off["exact"]["utilisation"], off["steals"]) == (20, "23/40", 0)
    assert (on["summary"]["makespan"], on["exact"]["utilisation"], on["steals"]) == (14, "23/28", 1)
    assert (off["exact"]["averages"]["waiting"], on["exact"]["averages"]["waiting"]) == ("25/6", "7/3")


@pytest.mark.parametrize("scenario, field", [
    ({"queues": "both"}, "queues"), ({"queues": 2}, "queues"), ({"steal": "yes"}, "steal"),
    ({"steal": True}, "steal"), ({"queues": "global", "steal": True}, "steal"),
    ({"queues": "per-cpu", "algorithm": "cfs"}, "queues"), ({"queues": "per-cpu", "algorithm": "stride"}, "queues"),
    ({"queues": "per-cpu", "algorithm": "eevdf"}, "queues")])
def test_bad_queues_or_steal_names_the_field(scenario, field):
    with pytest.raises(ScenarioError) as error:
        run({"cpus": 2, "tasks": [{"name": "A", "arrival": 0, "burst": 1}], **scenario})
    assert error.value.field == field


def test_the_command_line_takes_queues_and_steal():
    scenario = json.dumps({"tasks": IMBALANCE})
    done = subprocess.run([sys.executable, "-m", "schedulers", "cpu", "--scenario", "-", "--cpus", "2", "--queues",
                           "per-cpu", "--steal", "true", "--json"], input=scenario, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["steals"] == 1
    trace = subprocess.run([sys.executable, "-m", "schedulers", "cpu", "--scenario", "-", "--cpus", "2", "--queues",
                            "per-cpu", "--steal", "true", "--trace"], input=scenario, capture_output=True, text=True)
    assert "[ time 3 ] CPU 0 steals D from CPU 1's queue" in trace.stdout
    bad = subprocess.run([sys.executable, "-m", "schedulers", "cpu", "--scenario", "-", "--cpus", "2", "--steal",
                          "true"], input=scenario, capture_output=True, text=True)
    assert bad.returncode == 2 and "steal" in bad.stderr


PROFILE = settings(max_examples=40, deadline=None)


@PROFILE
@given(workloads(), st.sampled_from(sorted(ALGORITHMS)), PARAMETERS, st.integers(1, 3))
def test_global_queues_given_is_todays_json(tasks, algorithm, parameters, cpus):
    scenario = {"algorithm": algorithm, "tasks": tasks, "cpus": cpus, **parameters}
    assert json.dumps(run({**scenario, "queues": "global"})) == json.dumps(run(scenario))


@PROFILE
@given(workloads(), st.sampled_from(sorted(ALGORITHMS)), PARAMETERS, st.booleans())
def test_per_cpu_queues_on_one_cpu_are_the_global_queue(tasks, algorithm, parameters, steal):
    scenario = {"algorithm": algorithm, "tasks": tasks, "cpus": 1, **parameters}
    assert json.dumps(run({**scenario, "queues": "per-cpu", "steal": steal})) == json.dumps(run(scenario))


@PROFILE
@given(with_io(), st.sampled_from(sorted(ALGORITHMS)), PARAMETERS, st.integers(0, 2), st.booleans())
def test_the_per_cpu_loop_on_one_cpu_gives_the_one_cpu_schedule(tasks, algorithm, parameters, switch_cost, steal):
    scenario = {"algorithm": algorithm, "tasks": tasks, "switch_cost": switch_cost, **parameters}
    expected = run(scenario, trace=False)
    read = read_tasks(tasks)
    several = schedule_multi(read, make_policy(algorithm, read_parameters(scenario)), NONE, 1,
                             switch_cost=switch_cost, per_cpu=True, steal=steal)
    assert several.cpus[0].timeline == expected["timeline"]
    assert [(task.completion, task.first_run) for task in read] == [
        (row["completion"], row["response"] + row["arrival"]) for row in expected["tasks"]]


@PROFILE
@given(with_io(), st.sampled_from(PER_CPU_RULES), PARAMETERS, st.integers(2, 4), st.booleans())
def test_per_cpu_queues_conserve_work_and_migrate_only_by_stealing(tasks, algorithm, parameters, cpus, steal):
    result = run({"algorithm": algorithm, "tasks": tasks, "cpus": cpus, "queues": "per-cpu", "steal": steal,
                  **parameters})
    timelines = result["timelines"]
    for entries in zip(*timelines):
        names = [entry for entry in entries if entry is not None]
        assert len(names) == len(set(names))   # no task on two CPUs at once
    for task in tasks:
        cpu = task["bursts"][0] + task["bursts"][2] if "bursts" in task else task["burst"]
        assert sum(timeline.count(task["name"]) for timeline in timelines) == cpu
    # without stealing a task stays on its first CPU; a steal moves a task at most once
    assert result["migrations"] <= result["steals"] if steal else result["migrations"] == result["steals"] == 0
    for step in result["steps"][1:]:
        assert step["ready"] == [name for queue in step["queues"] for name in queue]
        for number, running in enumerate(step["running"]):
            if running is None:   # a free CPU's own queue is empty; with stealing, every queue is
                assert not step["queues"][number] and (not steal or not step["ready"])
    busy = sum(Fraction(share) for share in result["exact"]["cpu_utilisation"])
    assert busy * result["summary"]["makespan"] == result["summary"]["busy"]
