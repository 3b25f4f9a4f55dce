"""Several CPUs sharing one ready queue (issue 22 item 1): hand-computed cases, bad input, and properties.

The hand computations follow docs/cpu.md "Several CPUs": free CPUs are filled best task first, each task taking
the CPU it last ran on if free, else the lowest-numbered free one; then preemptions one at a time against the
running task the rule ranks worst; quanta ending together requeue in CPU order."""
import json
import subprocess
import sys
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schedulers.export import metrics_csv
from schedulers import ScenarioError, simulate
from schedulers.cpu import ALGORITHMS, run
from schedulers.cpu.multi import schedule_multi
from schedulers.cpu.policies import make_policy
from schedulers.cpu.scenario import read_parameters, read_tasks
from schedulers.recording import NONE

from test_cpu_properties import PARAMETERS, workloads


def rows(result):
    return {row["name"]: row for row in result["tasks"]}


def kinds(result, kind):
    return [(step["step"] - 1, e["task"], e.get("source"), e.get("cpu"))
            for step in result["steps"] for e in step["events"] if e["kind"] == kind]


def test_fcfs_on_two_cpus_with_affinity_and_a_migration():
    # A: CPU 2, I/O 1, CPU 2; B: 4; C arrives at 1 with 3.
    # t=0: A -> CPU 0, B -> CPU 1 (input order, lowest free CPU first). t=1: C waits.
    # t=2: A blocks until 3; CPU 0 is free: C (first dispatch, no migration) -> CPU 0, runs [2, 5).
    # t=3: A returns; no CPU is free. t=4: B completes; A's last CPU (0) is busy: A -> CPU 1, a migration; [4, 6).
    result = simulate("cpu", {"algorithm": "fcfs", "cpus": 2, "tasks": [
        {"name": "A", "arrival": 0, "bursts": [2, 1, 2]}, {"name": "B", "arrival": 0, "burst": 4},
        {"name": "C", "arrival": 1, "burst": 3}]})
    assert "timeline" not in result and result["cpus"] == 2
    assert result["timelines"] == [["A", "A", "C", "C", "C", None], ["B", "B", "B", "B", "A", "A"]]
    assert kinds(result, "migrate") == [(4, "A", 0, 1)]
    assert result["migrations"] == 1
    assert {name: row["completion"] for name, row in rows(result).items()} == {"A": 6, "B": 4, "C": 5}
    # busy 4 + 4 + 3 = 11 of 2 x 6: 11/12; CPU 0 ran 5 of 6 units, CPU 1 all 6
    assert result["exact"]["utilisation"] == "11/12" and result["summary"]["utilisation"] == result["utilisation"]
    assert result["exact"]["cpu_utilisation"] == ["5/6", "1"]
    assert result["cpu_utilisation"] == [float(Fraction(5, 6)), 1]
    assert result["summary"]["idle"] == 1
    figures = metrics_csv(result).splitlines()   # the run's figures in the CSV, exact
    assert {"run,utilisation,11/12", "run,migrations,1", "run,cpu_utilisation,5/6 1"} <= set(figures)
    step = result["steps"][5]   # the slice [4, 5)
    assert step["running"] == ["C", "A"] and step["decision"] == "dispatch"
    assert "A migrates from CPU 0 to CPU 1." in step["why"]["en"]


def test_srtf_on_two_cpus_preempts_the_longest_remaining_and_migrates():
    # A 6, B 4 at 0; C 1 at 1; D 3 at 2.
    # t=0: best first: B (4) -> CPU 0, A (6) -> CPU 1.
    # t=1: C (1) arrives; the worst running is A (remaining 5 > B's 3): C preempts A on CPU 1. A (5) is not
    #      shorter than B (3): no second preemption.
    # t=2: C completes; D (3) arrives and takes the free CPU 1 (first dispatch). A (5) vs the worst running, D (3,
    #      ahead of B's 2): no preemption.
    # t=4: B completes on CPU 0; A's last CPU, 1, runs D: A -> CPU 0, a migration; A runs [4, 9). D completes at 5.
    result = simulate("cpu", {"algorithm": "srtf", "cpus": 2, "tasks": [
        {"name": "A", "arrival": 0, "burst": 6}, {"name": "B", "arrival": 0, "burst": 4},
        {"name": "C", "arrival": 1, "burst": 1}, {"name": "D", "arrival": 2, "burst": 3}]})
    assert result["timelines"] == [["B"] * 4 + ["A"] * 5, ["A", "C", "D", "D", "D", None, None, None, None]]
    assert kinds(result, "preempt") == [(1, "A", None, 1)]
    assert kinds(result, "migrate") == [(4, "A", 1, 0)]
    assert {name: (row["completion"], row["waiting"]) for name, row in rows(result).items()} == {
        "A": (9, 3), "B": (4, 0), "C": (2, 0), "D": (5, 0)}
    assert "C (remaining 1) preempts A (remaining 5) on CPU 1" in result["steps"][2]["why"]["en"]


def test_srtf_preempts_the_later_of_two_equal_running_tasks():
    # A and B, 4 each at 0: A -> CPU 0, B -> CPU 1. t=1: C (1) arrives; A and B both have 3 left: the worst by SRTF's
    # own order with its ties reversed is B (later in the input), so C takes CPU 1. t=2: B takes its CPU 1 back.
    result = simulate("cpu", {"algorithm": "srtf", "cpus": 2, "tasks": [
        {"name": "A", "arrival": 0, "burst": 4}, {"name": "B", "arrival": 0, "burst": 4},
        {"name": "C", "arrival": 1, "burst": 1}]})
    assert result["timelines"] == [["A"] * 4 + [None], ["B", "C", "B", "B", "B"]]
    assert result["migrations"] == 0


def test_rr_on_two_cpus_requeues_quanta_ending_together_in_cpu_order():
    # q=2; A 3, B 3, C 2, all at 0. t=0: A -> CPU 0, B -> CPU 1; C waits.
    # t=2: both quanta end: A (CPU 0) then B (CPU 1) rejoin the tail: C, A, B. C goes first to the lowest free CPU,
    #      0; A's CPU 0 is taken: A -> CPU 1, a migration. B waits.
    # t=3: A completes on CPU 1; B, whose last CPU is 1, takes it back: no migration. t=4: B and C complete.
    result = simulate("cpu", {"algorithm": "rr", "quantum": 2, "cpus": 2, "tasks": [
        {"name": "A", "arrival": 0, "burst": 3}, {"name": "B", "arrival": 0, "burst": 3},
        {"name": "C", "arrival": 0, "burst": 2}]})
    assert result["timelines"] == [["A", "A", "C", "C"], ["B", "B", "A", "B"]]
    step = result["steps"][3]   # the slice [2, 3)
    assert [e["task"] for e in step["events"] if e["kind"] == "requeue"] == ["A", "B"]
    assert step["ready"] == ["B"] and step["running"] == ["C", "A"]
    assert kinds(result, "migrate") == [(2, "A", 0, 1)]
    # switches per CPU: CPU 0 A -> C, CPU 1 B -> A -> B
    assert result["switches"] == 3 and result["summary"]["context_switches"] == 3
    assert result["exact"]["utilisation"] == "1"


def test_switch_cost_applies_per_cpu():
    # switch cost 1, FCFS, A 2 and B 1 at 0, C 1 at 1. t=0: A -> CPU 0, B -> CPU 1 (first dispatches: no switch).
    # t=1: B completes; C -> CPU 1, which last ran B: a switch over [1, 2), C runs [2, 3). CPU 0 never switches.
    result = simulate("cpu", {"algorithm": "fcfs", "cpus": 2, "switch_cost": 1, "tasks": [
        {"name": "A", "arrival": 0, "burst": 2}, {"name": "B", "arrival": 0, "burst": 1},
        {"name": "C", "arrival": 1, "burst": 1}]})
    assert result["timelines"] == [["A", "A", None], ["B", {"switch": "C"}, "C"]]
    assert result["switches"] == 1 and result["switch_time"] == 1
    assert rows(result)["C"]["response"] == 1
    assert result["steps"][2]["switch"] == [None, "C"] and result["steps"][2]["running"] == ["A", None]
    assert result["summary"]["idle"] == 2 * 3 - 4 - 1


def test_lottery_draws_the_free_cpus_winners_without_replacement():
    tasks = [{"name": name, "arrival": 0, "burst": 2} for name in "ABC"]
    result = simulate("cpu", {"algorithm": "lottery", "cpus": 3, "tasks": tasks})
    first = [timeline[0] for timeline in result["timelines"]]
    assert sorted(first) == ["A", "B", "C"]   # three CPUs, three tasks: each drawn once


def test_eevdf_on_two_cpus_runs_the_least_vruntime_when_no_waiting_task_is_eligible():
    # A 1, B 2, C 1, all at 0, slice 1, two CPUs: every v = 0, deadline 1: A -> CPU 0, B -> CPU 1.
    # t=1: A completes; B's request ends (v 1, deadline 2); runnable B and C: V = (1 + 0) / 2 = 1/2.
    # CPU 0 takes C (v 0 <= 1/2); B (v 1 > 1/2) is not eligible, but nothing waiting is: it runs, on CPU 1.
    result = simulate("cpu", {"algorithm": "eevdf", "cpus": 2, "slice": 1, "tasks": [
        {"name": "A", "arrival": 0, "burst": 1}, {"name": "B", "arrival": 0, "burst": 2},
        {"name": "C", "arrival": 0, "burst": 1}]})
    assert result["timelines"] == [["A", "C"], ["B", "B"]]
    assert {name: row["completion"] for name, row in rows(result).items()} == {"A": 1, "B": 2, "C": 2}
    assert result["steps"][1]["exact"]["lag"] == {"B": "-1/2", "C": "1/2"}
    why = result["steps"][2]["why"]["en"]
    assert "B (vruntime 1, lag -1/2, virtual deadline 2; not eligible, but no waiting task is: it has the least " \
           "vruntime) is dispatched on CPU 1" in why


@pytest.mark.parametrize("cpus", [0, 9, "2", 1.5])
def test_bad_cpus_names_the_field(cpus):
    with pytest.raises(ScenarioError) as error:
        simulate("cpu", {"cpus": cpus, "tasks": [{"name": "A", "arrival": 0, "burst": 1}]})
    assert error.value.field == "cpus"


def test_the_command_line_takes_cpus_and_refuses_nine():
    scenario = json.dumps({"tasks": [{"name": "A", "arrival": 0, "burst": 2}, {"name": "B", "arrival": 0, "burst": 1}]})
    done = subprocess.run([sys.executable, "-m", "schedulers", "cpu", "--scenario", "-", "--cpus", "2", "--json"],
                          input=scenario, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["timelines"] == [["A", "A"], ["B", None]]
    text = subprocess.run([sys.executable, "-m", "schedulers", "cpu", "--scenario", "-", "--cpus", "2"],
                          input=scenario, capture_output=True, text=True)
    assert text.returncode == 0 and "CPU 1" in text.stdout
    bad = subprocess.run([sys.executable, "-m", "schedulers", "cpu", "--scenario", "-", "--cpus", "9"],
                         input=scenario, capture_output=True, text=True)
    assert bad.returncode == 2 and "cpus" in bad.stderr


PROFILE = settings(max_examples=40, deadline=None)


@PROFILE
@given(workloads(), st.sampled_from(sorted(ALGORITHMS)), PARAMETERS)
def test_one_cpu_given_is_todays_json(tasks, algorithm, parameters):
    scenario = {"algorithm": algorithm, "tasks": tasks, **parameters}
    assert json.dumps(run({**scenario, "cpus": 1})) == json.dumps(run(scenario))


@st.composite
def with_io(draw):
    """A workload in which some tasks do I/O (their burst, then I/O, then another CPU burst)."""
    tasks = draw(workloads())
    for task in tasks:
        if draw(st.booleans()):
            task["bursts"] = [task.pop("burst"), draw(st.integers(1, 3)), draw(st.integers(1, 3))]
    return tasks


@PROFILE
@given(with_io(), st.sampled_from(sorted(ALGORITHMS)), PARAMETERS, st.integers(0, 2))
def test_the_several_cpu_loop_on_one_cpu_gives_the_one_cpu_schedule(tasks, algorithm, parameters, switch_cost):
    """The loop of several CPUs, run with one, agrees with the single-CPU loop on the timeline and every task, with
    I/O and switch costs."""
    scenario = {"algorithm": algorithm, "tasks": tasks, "switch_cost": switch_cost, **parameters}
    expected = run(scenario, trace=False)
    read = read_tasks(tasks)
    several = schedule_multi(read, make_policy(algorithm, read_parameters(scenario)), NONE, 1, switch_cost=switch_cost)
    assert several.cpus[0].timeline == expected["timeline"]
    assert [(task.completion, task.first_run) for task in read] == [
        (row["completion"], row["response"] + row["arrival"]) for row in expected["tasks"]]


@PROFILE
@given(workloads(), st.sampled_from(sorted(ALGORITHMS)), PARAMETERS, st.integers(2, 4))
def test_several_cpus_conserve_work_and_run_each_task_once_at_a_time(tasks, algorithm, parameters, cpus):
    result = run({"algorithm": algorithm, "tasks": tasks, "cpus": cpus, **parameters})
    timelines = result["timelines"]
    assert len(timelines) == cpus and len({len(timeline) for timeline in timelines}) == 1
    for entries in zip(*timelines):
        names = [entry for entry in entries if entry is not None]
        assert len(names) == len(set(names))   # no task on two CPUs at once
    for step in result["steps"][1:]:
        if None in step["running"]:   # a CPU idles only when nothing is ready
            assert step["ready"] == []
    for task in tasks:
        assert sum(timeline.count(task["name"]) for timeline in timelines) == task["burst"]
    busy = sum(task["burst"] for task in tasks)
    assert result["exact"]["utilisation"] == str(Fraction(busy, cpus * result["summary"]["makespan"]))
    assert sum(map(Fraction, result["exact"]["cpu_utilisation"])) == Fraction(busy, result["summary"]["makespan"])


def test_the_quiz_asks_the_first_cpu_that_takes_a_new_task():
    """SRTF on two CPUs, by hand: at 0 B (3) takes CPU 0 and A (4) CPU 1; at 1 C (1) preempts A, the worst running,
    on CPU 1; at 2 C is done and A (3) beats D (5) for CPU 1; at 3 B is done and D takes CPU 0; then nothing changes
    hands. Each question is about the lowest-numbered CPU that takes a new task, among every task present."""
    from schedulers.quiz import questions
    result = simulate("cpu", {"algorithm": "srtf", "cpus": 2, "tasks": [
        {"name": "A", "arrival": 0, "burst": 4}, {"name": "B", "arrival": 0, "burst": 3},
        {"name": "C", "arrival": 1, "burst": 1}, {"name": "D", "arrival": 2, "burst": 5}]})
    assert [(q.step, q.time, q.cpu, q.candidates, q.answer) for q in questions(result)] == [
        (1, 0, 0, ("A", "B"), "B"), (2, 1, 1, ("A", "B", "C"), "C"), (3, 2, 1, ("A", "B", "D"), "A"),
        (4, 3, 0, ("A", "D"), "D")]


def test_the_quiz_asks_a_switch_on_the_cpu_that_starts_it():
    """RR (q=2) on two CPUs with switch cost 1: at 2 both quanta end; CPU 0 switches into C (which waited since 1) and
    CPU 1 into A (B, requeued after A in CPU order, waits); asked at that dispatch, not when the switch ends. At 5 C
    and A are done and CPU 1 switches into B, the only task left: no question."""
    from schedulers.quiz import questions
    result = simulate("cpu", {"algorithm": "rr", "quantum": 2, "cpus": 2, "switch_cost": 1, "tasks": [
        {"name": "A", "arrival": 0, "burst": 4}, {"name": "B", "arrival": 0, "burst": 3},
        {"name": "C", "arrival": 1, "burst": 2}]})
    assert [(q.step, q.cpu, q.candidates, q.answer) for q in questions(result)] == [
        (1, 0, ("A", "B"), "A"), (3, 0, ("A", "B", "C"), "C")]
