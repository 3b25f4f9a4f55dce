"""Properties of every CPU rule on random small workloads (Hypothesis), checked against brute force."""
import json
import re
from functools import lru_cache

from hypothesis import given, settings
from hypothesis import strategies as st

from schedulers.cpu import ALGORITHMS, run

PROFILE = settings(max_examples=60, deadline=None)


@st.composite
def workloads(draw, max_tasks=6, max_arrival=8, max_burst=5, deadlines=False):
    count = draw(st.integers(1, max_tasks))
    tasks = []
    for index in range(count):
        arrival, burst = draw(st.integers(0, max_arrival)), draw(st.integers(1, max_burst))
        task = {"name": chr(ord("A") + index), "arrival": arrival, "burst": burst,
                "priority": draw(st.integers(0, 3)), "tickets": draw(st.integers(1, 4)) * 50}
        if deadlines:
            task["deadline"] = arrival + burst + draw(st.integers(0, 6))
        tasks.append(task)
    return tasks


PARAMETERS = st.fixed_dictionaries({}, optional={
    "quantum": st.integers(1, 4), "aging": st.integers(1, 3), "levels": st.just(2), "boost": st.integers(1, 6),
    "lottery_seed": st.integers(0, 10)})


@PROFILE
@given(workloads(), st.sampled_from(sorted(ALGORITHMS)), PARAMETERS)
def test_work_conserving_and_every_task_runs_its_burst(tasks, algorithm, parameters):
    result = run({"algorithm": algorithm, "tasks": tasks, **parameters})
    timeline = result["timeline"]
    rows = {row["name"]: row for row in result["tasks"]}
    for t, name in enumerate(timeline):
        if name is None:   # idle: nothing arrived and unfinished
            assert not any(task["arrival"] <= t < rows[task["name"]]["completion"] for task in tasks)
    for task in tasks:
        row = rows[task["name"]]
        units = [t for t, name in enumerate(timeline) if name == task["name"]]
        assert len(units) == task["burst"]
        assert units[0] >= task["arrival"] and units[-1] + 1 == row["completion"]
        assert row["response"] == units[0] - task["arrival"]
        assert row["waiting"] == row["turnaround"] - task["burst"] >= 0
    assert len(result["steps"]) == len(timeline) + 1 == result["summary"]["makespan"] + 1
    # the trace agrees with the timeline
    assert [step["running"] for step in result["steps"][1:]] == timeline
    assert all(min(step["remaining"].values()) >= 0 for step in result["steps"])


@PROFILE
@given(workloads(), st.sampled_from(sorted(ALGORITHMS)), PARAMETERS)
def test_the_trace_is_deterministic(tasks, algorithm, parameters):
    scenario = {"algorithm": algorithm, "tasks": tasks, **parameters}
    result = run(scenario)
    assert result == run(scenario)
    assert json.loads(json.dumps(result)) == result   # plain JSON values only (no Fraction, no tuple)


def flow_time(result):
    return sum(row["turnaround"] for row in result["tasks"])


def optimal_flow_time(tasks):
    """Least total turnaround over every preemptive schedule, one time unit at a time (brute force)."""
    arrivals = tuple(task["arrival"] for task in tasks)

    @lru_cache(maxsize=None)
    def best(t, remaining):
        if not any(remaining):
            return 0
        ready = [i for i, left in enumerate(remaining) if left and arrivals[i] <= t]
        if not ready:
            return best(t + 1, remaining)
        options = []
        for i in ready:
            after = remaining[:i] + (remaining[i] - 1,) + remaining[i + 1:]
            options.append((t + 1 - arrivals[i] if after[i] == 0 else 0) + best(t + 1, after))
        return min(options)

    return best(0, tuple(task["burst"] for task in tasks))


@PROFILE
@given(workloads(max_tasks=4, max_arrival=5, max_burst=3), PARAMETERS)
def test_srtf_total_flow_time_is_optimal(tasks, parameters):
    srtf = flow_time(run({"algorithm": "srtf", "tasks": tasks}))
    assert srtf == optimal_flow_time(tasks)
    for algorithm in ALGORITHMS:
        assert srtf <= flow_time(run({"algorithm": algorithm, "tasks": tasks, **parameters}))


def feasible(tasks):
    """Can some preemptive schedule meet every deadline? (brute force over unit-time schedules)"""
    arrivals = tuple(task["arrival"] for task in tasks)
    deadlines = tuple(task["deadline"] for task in tasks)

    @lru_cache(maxsize=None)
    def possible(t, remaining):
        if any(left and deadlines[i] <= t for i, left in enumerate(remaining)):
            return False
        if not any(remaining):
            return True
        ready = [i for i, left in enumerate(remaining) if left and arrivals[i] <= t]
        if not ready:
            return possible(t + 1, remaining)
        return any(possible(t + 1, remaining[:i] + (remaining[i] - 1,) + remaining[i + 1:]) for i in ready)

    return possible(0, tuple(task["burst"] for task in tasks))


@PROFILE
@given(workloads(max_tasks=4, max_arrival=5, max_burst=3, deadlines=True))
def test_edf_meets_every_deadline_when_some_schedule_does(tasks):
    result = run({"algorithm": "edf", "tasks": tasks})
    if feasible(tasks):
        assert result["summary"]["deadline_misses"] == 0
    else:
        assert result["summary"]["deadline_misses"] > 0


@PROFILE
@given(workloads(), st.integers(0, 3))
def test_rr_with_a_quantum_at_least_the_longest_burst_is_fcfs(tasks, extra):
    quantum = max(task["burst"] for task in tasks) + extra
    rr = run({"algorithm": "rr", "quantum": quantum, "tasks": tasks})
    fcfs = run({"algorithm": "fcfs", "tasks": tasks})
    assert rr["timeline"] == fcfs["timeline"]
    assert rr["tasks"] == fcfs["tasks"]


@PROFILE
@given(workloads(), st.sampled_from(sorted(ALGORITHMS)), PARAMETERS)
def test_compact_and_absent_traces_give_the_same_schedule(tasks, algorithm, parameters):
    scenario = {"algorithm": algorithm, "tasks": tasks, **parameters}
    full = run(scenario)
    bare = run(scenario, trace=False)
    assert bare["steps"] == [] and bare["trace"]["level"] == "none"
    assert {k: v for k, v in bare.items() if k not in ("steps", "trace")} == \
        {k: v for k, v in full.items() if k not in ("steps", "trace")}
    compact = run(scenario, trace="compact")
    assert compact["trace"]["level"] == "compact"
    with_events = [{k: s[k] for k in ("step", "time", "running", "events", "decision", "why")}
                   for s in full["steps"] if s["events"] or s["step"] == 0]
    for step in with_events:   # only the full trace says how a tie was broken (it costs O(ready))
        step["why"] = {"en": re.sub(r" It ties with [^.]*\.", "", step["why"]["en"]),
                       "ja": re.sub(r"[^。]*と同点[^。]*。", "", step["why"]["ja"])}
    assert compact["steps"] == with_events
