"""MLQ (classes), per-CPU queues (queues, steal) and locks (sections, protocol) together: what each refuses of the
others, named by field, and a fuzz of random scenarios over every algorithm with all their parameters, which may only
ever raise ScenarioError."""
from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from schedulers import ScenarioError, simulate
from schedulers.cpu import ALGORITHMS

L_HOLDS_R = {"name": "L", "arrival": 0, "burst": 4, "priority": 3, "class": 1, "sections": "R:1:2"}
H_NEEDS_R = {"name": "H", "arrival": 2, "burst": 3, "priority": 1, "sections": "R:1:1"}


def refused(scenario):
    with pytest.raises(ScenarioError) as error:
        simulate("cpu", scenario)
    return error.value.field


def test_locks_refuse_mlq():
    # MLQ's classes each run their own rule, not a fixed priority per task: the locks' loop is for priority,
    # priority-preemptive, RM and DM only, so sections name the first task that has some, and a protocol itself.
    assert refused({"algorithm": "mlq", "tasks": [L_HOLDS_R, H_NEEDS_R]}) == "tasks[0].sections"
    assert refused({"algorithm": "mlq", "classes": "priority;fcfs", "protocol": "inheritance",
                    "tasks": [{"name": "A", "arrival": 0, "burst": 1}]}) == "protocol"


def test_locks_refuse_several_cpus_with_either_queue():
    # Locks are taught on one CPU: cpus=2 is refused whether the CPUs share a queue or have one each.
    for queues in ({}, {"queues": "global"}, {"queues": "per-cpu"}, {"queues": "per-cpu", "steal": True}):
        assert refused({"algorithm": "priority-preemptive", "cpus": 2, **queues,
                        "tasks": [L_HOLDS_R, H_NEEDS_R]}) == "cpus"


def test_a_task_class_is_ignored_by_the_locks_rules():
    # class is read by MLQ only: under priority-preemptive L's class 1 changes nothing, so the run with it is the
    # run without it (Pathfinder's L and H: L runs [0,2), H preempts at 2, waits for R at 3, L [3,4) releases R at
    # 4, H [4,6), L [6,7)).
    without = {**L_HOLDS_R}
    del without["class"]
    with_class = simulate("cpu", {"algorithm": "priority-preemptive", "tasks": [L_HOLDS_R, H_NEEDS_R]})
    assert with_class["timeline"] == simulate("cpu", {"algorithm": "priority-preemptive",
                                                      "tasks": [without, H_NEEDS_R]})["timeline"]
    assert "".join(with_class["timeline"]) == "LLHLHHL"


NAMES = st.sampled_from(["A", "B", "C", "D"])
TEXT = st.sampled_from(["", "R:1:2", "R:0:1;S:0:1", "R:start=0:length=1", "R::1", "R:1:2,S:1:1", "R:9:9", ":1:1",
                        "R:x", "R:length=1:0", "R:0:1:1", ";;", "R:0:1;R:0:1"])
CLASSES = st.one_of(st.sampled_from(["rr:quantum=2;fcfs", "srtf;rr:4", "fcfs", "priority:aging=3;sjf", "rr:0",
                                     "edf", "", "fcfs:quantum=1", "rr:quantum=2:quantum=3", "x=1"]),
                    st.lists(st.fixed_dictionaries({"rule": st.sampled_from(["fcfs", "rr", "sjf"])}), max_size=3))


@st.composite
def tasks(draw):
    out = []
    for name in draw(st.lists(NAMES, min_size=1, max_size=4, unique=True)):
        task = {"name": name, "arrival": draw(st.integers(0, 4)), "burst": draw(st.integers(1, 5))}
        for field, values in (("priority", st.integers(0, 3)), ("class", st.integers(0, 3)), ("sections", TEXT),
                              ("deadline", st.integers(0, 12)), ("bursts", st.sampled_from([[2, 1, 1], [1]]))):
            if draw(st.booleans()):
                task[field] = draw(values)
        out.append(task)
    return out


@settings(max_examples=300, deadline=None)
@given(tasks(), st.sampled_from(sorted(ALGORITHMS)), st.fixed_dictionaries({}, optional={
    "classes": CLASSES, "protocol": st.sampled_from(["none", "inheritance", "ceiling", "pip"]),
    "cpus": st.integers(1, 3), "queues": st.sampled_from(["global", "per-cpu", "both"]), "steal": st.booleans(),
    "switch_cost": st.integers(0, 1), "quantum": st.integers(1, 3)}))
def test_random_scenarios_only_ever_raise_scenario_errors(tasks, algorithm, parameters):
    try:
        result = simulate("cpu", {"algorithm": algorithm, "tasks": tasks, **parameters})
    except ScenarioError as error:
        assert error.field   # every refusal names a field
        return
    assert sum(row["completion"] is not None for row in result["tasks"]) <= len(tasks)
