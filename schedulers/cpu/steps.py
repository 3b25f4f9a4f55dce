"""CPU mode's answers to ``schedulers.trace``'s questions about a step, and to the quiz's.

A CPU step k (k >= 1) is the slice [k-1, k): its ``time`` is k, the end of the slice, and its decision was taken
at its start (the loop's docstring, ``loop.py``).
"""
from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable
from typing import Any

from ..quiz import Question, ask
from ..trace import Result, Step, Steps


def span(step: Step) -> tuple[int | None, int]:
    """``(None, 0)`` for the initial state; ``(k - 1, k)`` for step k, the slice [k-1, k)."""
    if step["decision"] == "initial":
        return None, 0
    return step["time"] - 1, step["time"]


def finished_by(result: Result, step: int) -> set[str]:
    """The tasks complete at ``step`` (their completion time is not after the step's time)."""
    time = result["steps"][step]["time"]
    return {task["name"] for task in result["tasks"] if task["completion"] is not None and task["completion"] <= time}


def pending(result: Result, step: int) -> set[str]:
    return {task["name"] for task in result["tasks"]} - finished_by(result, step)


def aligner(left: Result, right: Result) -> Callable[[int], int]:
    """The last step of ``right`` whose time is not later than ``left``'s step's."""
    times = [s["time"] for s in right["steps"]]   # non-decreasing
    return lambda step: max(bisect_right(times, left["steps"][step]["time"]) - 1, 0)


def resumes_quantum(result: Result, step: int) -> bool:
    """The task dispatched at ``step`` goes on with the rest of a quantum that a preemption cut short (MLFQ keeps
    it) instead of starting a new one: its latest preemption came after its latest expiry and after every boost (a
    boost gives every task a fresh quantum)."""
    events = result["steps"][step].get("events", [])
    at = next((i for i, event in enumerate(events) if event["kind"] == "dispatch"), None)
    if at is None:
        return False
    task = events[at]["task"]
    history = [events[:at]] + [earlier.get("events", []) for earlier in reversed(result["steps"][:step])]
    for happened in history:
        for index in range(len(happened) - 1, -1, -1):
            event = happened[index]
            if event["kind"] == "boost" or (event["task"] == task and event["kind"] == "expire"):
                return False
            if event["task"] == task and event["kind"] == "preempt":   # unless a boost of that instant had
                return not any(e["kind"] == "boost" for e in happened[:index])   # just reset its quantum
    return False


def question(result: Result, step: int) -> Question | None:
    """Who runs over [k-1, k)? The candidates are the tasks present at instant k - 1 after its arrivals -- the
    ready queue of step k and the task that runs -- in input order; the answer is step k's ``running`` (or the task
    a switch starting at k - 1 is into). No question when nothing runs, during a switch, nor at an instant where
    nothing happened (no arrival, requeue, expiry or completion, and the
    running task continues): nothing could have changed since the step before."""
    now: dict[str, Any] = result["steps"][step]
    if isinstance(now["running"], list):
        return several_cpus_question(result, step)
    chosen = now["running"] if now["running"] is not None else now.get("switch")   # a dispatch may start a switch
    if chosen is None or now["decision"] == "switch":
        return None
    if now["decision"] == "continue" and not any(event["time"] == step - 1 for event in now["events"]):
        return None
    return ask(step, step - 1, in_input_order(result, {*now["ready"], chosen}), chosen, now["why"])


def several_cpus_question(result: Result, step: int) -> Question | None:
    """With several CPUs: who runs over [k-1, k) on the lowest-numbered CPU that takes another task than at step
    k - 1 (a dispatch, a preemption, or a switch into it starting at k - 1), among every task present (ready, running
    or switched into on any CPU); none when no CPU takes a new task."""
    before, now = occupants(result["steps"][step - 1]), occupants(result["steps"][step])
    changed = next((cpu for cpu, (old, new) in enumerate(zip(before, now)) if new is not None and new != old), None)
    if changed is None:
        return None
    present = {*result["steps"][step]["ready"], *(name for name in now if name is not None)}
    return ask(step, step - 1, in_input_order(result, present), now[changed], result["steps"][step]["why"], changed)


def occupants(step: Step) -> list[str | None]:
    """Each CPU's task at a step of several CPUs: the one it runs, or the one it switches into."""
    switching = step.get("switch") or [None] * len(step["running"])
    return [running if running is not None else into for running, into in zip(step["running"], switching)]


def in_input_order(result: Result, names: set[str]) -> tuple[str, ...]:
    # with periodic tasks the steps name jobs: each in the order of ``jobs`` (release, then input order)
    order = [task["name"] for task in result["tasks"]] + [job["name"] for job in result.get("jobs", ())]
    return tuple(name for name in order if name in names)


STEPS = Steps(span=span, pending=pending, aligner=aligner, question=question, resumes_quantum=resumes_quantum)
