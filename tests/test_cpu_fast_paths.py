"""The engine's fast paths against a straightforward simulator written from the rules' text.

The engine keeps FCFS's and RR's ready queue as a FIFO, lottery's tickets in a Fenwick tree, HRRN's ready
tasks in one FIFO per burst, Stride's passes as integers and, without a trace, runs a task's winning streak
of quanta as one stretch. ``reference`` below does none of that: one decision per time unit, the ready
queue a plain list scanned from the head, exact Fractions, a linear walk along the tickets. Both must give
the same schedule, with every trace level. EEVDF keeps sum(w * v) as it goes and its ready tasks in two heaps;
``ScannedEEVDF`` sums and scans, and gives the same result, trace and sentences included.
"""
from __future__ import annotations

import math
import random
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schedulers.cpu import policies, run
from schedulers.cpu.loop import EligibleQueue, TicketQueue
from schedulers.cpu.scenario import Task

RULES = ("fcfs", "rr", "stride", "lottery", "hrrn")


def reference(tasks: list[dict], algorithm: str, quantum: int, seed: int) -> tuple[list, dict, dict]:
    """Timeline, completion and first run per name, one time unit at a time."""
    order = {task["name"]: index for index, task in enumerate(tasks)}
    arrival = {task["name"]: task["arrival"] for task in tasks}
    burst = {task["name"]: task["burst"] for task in tasks}
    tickets = {task["name"]: task.get("tickets") or 100 for task in tasks}
    arriving: dict[int, list[str]] = {}
    for task in tasks:   # in input order
        arriving.setdefault(task["arrival"], []).append(task["name"])
    remaining = dict(burst)
    passes: dict[str, Fraction] = {}
    draw = random.Random(seed)
    ready: list[str] = []     # in queue order
    running = expired = None
    slice_left = 0
    timeline, completion, first_run = [], {}, {}
    t = 0

    def tie(name: str) -> tuple[int, int]:
        return arrival[name], order[name]

    while len(completion) < len(tasks):
        for name in arriving.get(t, ()):   # arrivals join in input order
            if algorithm == "stride":   # the least pass among the tasks present, 0 if none
                present = ready + [other for other in (running, expired) if other]
                passes[name] = min((passes[other] for other in present), default=Fraction(0))
            ready.append(name)
        if expired:
            ready.append(expired)
            expired = None
        if running is None and ready:
            if algorithm in ("fcfs", "rr"):
                running = ready[0]
            elif algorithm == "stride":
                running = min(ready, key=lambda name: (passes[name], *tie(name)))
            elif algorithm == "hrrn":
                running = max(ready, key=lambda name: (Fraction(t - arrival[name] + burst[name], burst[name]),
                                                       [-part for part in tie(name)]))
            else:
                winner = draw.randrange(sum(tickets[name] for name in ready))
                for name in ready:
                    winner -= tickets[name]
                    if winner < 0:
                        running = name
                        break
            ready.remove(running)
            first_run.setdefault(running, t)
            slice_left = quantum
        timeline.append(running)
        t += 1
        if running is None:
            continue
        remaining[running] -= 1
        slice_left -= 1
        if remaining[running] == 0:
            completion[running] = t
            running = None
        elif slice_left == 0 and algorithm in ("rr", "stride", "lottery"):
            if algorithm == "stride":
                passes[running] += Fraction(10_000, tickets[running])
            expired, running = running, None
    return timeline, completion, first_run


@st.composite
def workloads(draw, max_tasks=10):
    count = draw(st.integers(1, max_tasks))
    tasks = []
    for index in range(count):
        task = {"name": f"T{index}", "arrival": draw(st.integers(0, 14)), "burst": draw(st.integers(1, 9))}
        tickets = draw(st.sampled_from([None, 1, 3, 7, 50, 100, 150, 333, 1000, 10_000]))
        if tickets is not None:   # small and odd counts give long winning streaks and odd strides
            task["tickets"] = tickets
        tasks.append(task)
    return tasks


def assert_same_schedule(tasks: list[dict], algorithm: str, quantum: int, seed: int, trace) -> None:
    result = run({"algorithm": algorithm, "quantum": quantum, "lottery_seed": seed, "tasks": tasks}, trace=trace)
    timeline, completion, first_run = reference(tasks, algorithm, quantum, seed)
    assert result["timeline"] == timeline
    assert {row["name"]: row["completion"] for row in result["tasks"]} == completion
    assert {row["name"]: row["response"] + row["arrival"] for row in result["tasks"]} == first_run


@settings(max_examples=300, deadline=None)
@given(workloads(), st.sampled_from(RULES), st.integers(1, 3), st.integers(0, 1000),
       st.sampled_from([False, "compact", True]))
def test_the_engine_matches_the_straightforward_simulator(tasks, algorithm, quantum, seed, trace):
    assert_same_schedule(tasks, algorithm, quantum, seed, trace)


@settings(max_examples=100, deadline=None)
@given(workloads(), st.integers(1, 3))
def test_stride_with_fraction_passes_is_the_same(tasks, quantum):
    """Past MAX_SCALE the passes stay Fractions (tickets with many large prime factors): forced here."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(policies, "MAX_SCALE", 1)
        assert_same_schedule(tasks, "stride", quantum, 0, False)


def test_stride_scale_of_large_prime_tickets_falls_back_to_fractions():
    tasks = [{"name": f"P{p}", "arrival": 0, "burst": 3, "tickets": p} for p in (999_983, 999_979, 999_961, 999_959)]
    policy = policies.Stride(1)
    policy.start([Task(i, t["name"], 0, 3, tickets=t["tickets"]) for i, t in enumerate(tasks)])
    assert policy.scale == 1 and isinstance(policy.stride(Task(0, "x", 0, 1, tickets=999_983)), Fraction)
    assert_same_schedule(tasks, "stride", 1, 0, False)


def test_stride_runs_a_winning_streak_as_one_stretch(monkeypatch):
    """1,000 tickets against 1: the big one wins 1,000 quanta in a row, decided once without a trace."""
    tasks = [{"name": "big", "arrival": 0, "burst": 5000, "tickets": 1000},
             {"name": "small", "arrival": 0, "burst": 20, "tickets": 1}]
    assert_same_schedule(tasks, "stride", 1, 0, False)
    decisions = []   # a fresh quantum is asked for at each dispatch
    quantum = policies.Stride.quantum
    monkeypatch.setattr(policies.Stride, "quantum", lambda self, task: decisions.append(task) or quantum(self, task))
    run({"algorithm": "stride", "quantum": 1, "tasks": tasks}, trace=False)
    assert len(decisions) < 50   # one per streak, not one per time unit (5,020 of them)


@pytest.mark.parametrize("tasks", [
    [{"name": f"T{i}", "arrival": (i * 7) % 23, "burst": 1 + (i * 5) % 9, "tickets": 50 * (1 + i % 4)}
     for i in range(40)],
    [{"name": f"T{i}", "arrival": 0, "burst": 1 + i % 13, "tickets": 1 + (i * 37) % 500} for i in range(60)],
], ids=["arrivals", "all-at-zero"])
def test_lottery_draws_the_same_tickets_as_a_walk_along_the_queue_for_many_seeds(tasks):
    for seed in range(100):
        for quantum in (1, 2):
            assert_same_schedule(tasks, "lottery", quantum, seed, False)


def test_ticket_queue_finds_every_holder_through_pushes_takes_and_compaction():
    """As the engine uses it: a draw, then the holder taken (and often pushed back at the tail), or a push."""
    class Tickets:
        @staticmethod
        def tickets(task):
            return task.tickets

    class Counted(TicketQueue):
        compactions = 0

        def compact(self):
            self.compactions += 1
            super().compact()

    rng = random.Random(7)
    queue, line = Counted(Tickets()), []   # ``line``: the same queue as a plain list
    for step in range(5000):
        if line and rng.random() < 0.8:
            walk = [task for task in line for _ in range(task.tickets)]
            for ticket in {0, queue.total - 1, rng.randrange(queue.total)}:
                assert queue.holder(ticket) is walk[ticket]
            task = queue.holder(rng.randrange(queue.total))
            queue.take(task)
            line.remove(task)
            if rng.random() < 0.75:   # its quantum expired: back to the tail
                queue.push(task, 0)
                line.append(task)
        else:
            task = Task(step, f"T{step}", 0, 1, tickets=rng.randint(1, 9))
            queue.push(task, 0)
            line.append(task)
        assert len(queue) == len(line) and queue.total == sum(task.tickets for task in line)
        assert queue.tasks() == line
    assert queue.compactions >= 2 and len(queue.slots) <= 4 * len(line) + 1025   # taken slots were dropped


def test_hrrn_past_ten_thousand_tasks():
    """Once over the scan limit at 10^4; now a decision compares one task per distinct burst."""
    rng = random.Random(3)
    tasks = [{"name": f"T{i}", "arrival": rng.randint(0, 40_000), "burst": rng.randint(1, 8)} for i in range(12_000)]
    result = run({"algorithm": "hrrn", "tasks": tasks}, trace=False)
    assert result["summary"]["busy"] == sum(task["burst"] for task in tasks)
    small = tasks[:1500]
    assert_same_schedule(small, "hrrn", 1, 0, False)


class ScannedEEVDF(policies.EEVDF):
    """EEVDF as its docstring says, straightforwardly: V summed over the runnable tasks whenever it is used, every
    ready task looked at in each decision."""
    queue = ""   # a scan: choose gets the ready tasks as a list

    def start(self, tasks):
        self.runnable = []   # arrived and not completed, in arrival order

    @property
    def runnable_weight(self):
        return sum(self.weight(task) for task in self.runnable)

    def average(self, now):
        return Fraction(sum(self.weight(task) * self.vruntime(task) for task in self.runnable), self.runnable_weight)

    def choose(self, ready, now):
        average = self.average(now)   # the CPU is free: every runnable task is ready
        return min((task for task in ready if self.vruntime(task) <= average), key=lambda task: self.key(task, now))

    def admit(self, task, now, least):
        if self.runnable:
            task.vruntime_base = math.floor(self.average(now))
        task.virtual_deadline = self.vruntime(task) + self.request(task)
        self.runnable.append(task)

    def complete(self, task, now):
        self.runnable.remove(task)


@st.composite
def niced_workloads(draw, max_tasks=12):
    """Nice values from the whole range: weights whose sums give V's with large denominators."""
    return [{"name": f"T{index}", "arrival": draw(st.integers(0, 20)), "burst": draw(st.integers(1, 12)),
             "nice": draw(st.sampled_from([0, 0, -20, -7, -1, 1, 5, 13, 19]))}
            for index in range(draw(st.integers(1, max_tasks)))]


@settings(max_examples=300, deadline=None)
@given(niced_workloads(), st.integers(1, 5), st.sampled_from([False, "compact", True]))
def test_eevdf_with_two_heaps_is_eevdf_scanned(tasks, slice_length, trace):
    scenario = {"algorithm": "eevdf", "slice": slice_length, "tasks": tasks}
    assert run(scenario, trace=trace) == run(scenario, trace=trace, policy=ScannedEEVDF(slice_length))


@pytest.mark.parametrize("seed", range(4))
def test_eevdf_with_two_heaps_on_hundreds_of_tasks(seed):
    """Long queues, where V falls below tasks already found eligible (they go back to the first heap)."""
    rng = random.Random(seed)
    tasks = [{"name": f"T{i}", "arrival": rng.randint(0, 600), "burst": rng.randint(1, 9),
              "nice": rng.choice([0, 0, 0, -5, 3, 19])} for i in range(400)]
    scenario = {"algorithm": "eevdf", "slice": 1 + seed % 3, "tasks": tasks}
    assert run(scenario, trace=False) == run(scenario, trace=False, policy=ScannedEEVDF(1 + seed % 3))


def test_eligible_queue_finds_the_earliest_within_a_bound_that_moves_both_ways():
    """As the engine uses it: joins, a decision (the bound V = total / weights, up or down), the winner taken."""
    class Keys:
        @staticmethod
        def vruntime(task):
            return task.vruntime_base

        @staticmethod
        def key(task, now):
            return task.virtual_deadline, task.arrival, task.index

    rng = random.Random(5)
    queue, line = EligibleQueue(Keys()), []
    bound = Fraction(0)
    for step in range(4000):
        if line and rng.random() < 0.6:
            bound += Fraction(rng.randint(-40, 60), rng.randint(1, 7))   # V falls as well as rises here
            bound = max(bound, min(task.vruntime_base for task in line))   # a weighted mean: never below all
            within = [task for task in line if task.vruntime_base <= bound]
            expected = min(within, key=lambda task: Keys.key(task, 0))
            assert queue.earliest(bound.numerator, bound.denominator, 0) is expected
            queue.take(expected)
            line.remove(expected)
        else:
            task = Task(step, f"T{step}", step, 1, vruntime_base=int(bound) + rng.randint(-50, 50),
                        virtual_deadline=rng.randint(0, 300))
            queue.push(task, 0)
            line.append(task)
        assert len(queue) == len(line) and sorted(queue.tasks(), key=id) == sorted(line, key=id)
