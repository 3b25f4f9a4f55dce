"""Questions about a result at one of its steps: what has happened by then. The app only formats the answers.

Every function takes a result as ``simulate`` returns it (README "Trace format") and a step index into its
``steps``; step 0 is the initial state. A step's ``time`` is the instant it reaches (CPU: the end of its slice;
LLM: the logical time of its dispatch, join or reset).
"""
from __future__ import annotations

from bisect import bisect_right
from collections import Counter
from collections.abc import Callable, Mapping
from fractions import Fraction
from itertools import accumulate
from typing import Any

Result = Mapping[str, Any]


def finished_by(result: Result, step: int) -> set[str]:
    """CPU: the tasks complete at ``step`` (their completion time is not after the step's time)."""
    time = result["steps"][step]["time"]
    return {task["name"] for task in result["tasks"] if task["completion"] <= time}


def dispatched_so_far(result: Result, step: int) -> int:
    """LLM: how many requests steps 1..``step`` dispatched."""
    return sum(1 for s in result["steps"][1:step + 1] if s.get("kind") == "dispatch")


def dispatch_counts(result: Result) -> list[int]:
    """LLM: ``dispatched_so_far`` at every step at once (one pass, for questions asked at many steps)."""
    return list(accumulate(1 if s.get("kind") == "dispatch" else 0 for s in result["steps"]))


def dispatches_so_far(result: Result, step: int) -> list[Mapping[str, Any]]:
    """LLM: the dispatch order up to ``step``, without the future (what a quiz may show)."""
    return result["dispatch"][:dispatched_so_far(result, step)]


def pending(result: Result, step: int) -> set[str]:
    """The tasks (CPU) or tenants (LLM) with work left after ``step``."""
    if result["mode"] == "cpu":
        return {task["name"] for task in result["tasks"]} - finished_by(result, step)
    sent = Counter(item["tenant"] for item in dispatches_so_far(result, step))
    return {tenant["name"] for tenant in result["tenants"] if sent[tenant["name"]] < tenant["requests"]}


def step_aligner(left: Result, right: Result) -> Callable[[int], int]:
    """``left``'s step -> the step of ``right`` (another run of the same scenario) to show beside it: CPU, the last
    one whose time is not later; LLM, the one after the same number of dispatches (each router sends one request
    per time unit, so that is the fair moment to compare). Both runs are indexed once, so aligning every step of
    a run (the app's frames) costs O(n log n), not O(n^2)."""
    if left["mode"] == "cpu":
        times = [s["time"] for s in right["steps"]]   # non-decreasing
        return lambda step: max(bisect_right(times, left["steps"][step]["time"]) - 1, 0)
    counts = dispatch_counts(left)
    dispatches = [i for i, s in enumerate(right["steps"]) if s.get("kind") == "dispatch"]
    return lambda step: dispatches[min(counts[step], len(dispatches)) - 1] if counts[step] and dispatches else 0


def normalised_so_far(result: Result, count: int) -> dict[str, Fraction]:
    """LLM: each tenant's cost / weight over the first ``count`` dispatches, exactly."""
    weights = {tenant["name"]: Fraction(tenant["exact"]["weight"]) for tenant in result["tenants"]}
    totals = dict.fromkeys(weights, Fraction(0))
    for item in result["dispatch"][:count]:
        totals[item["tenant"]] += Fraction(item["cost"]) / weights[item["tenant"]]
    return totals


def resumes_quantum(result: Result, step: int) -> bool:
    """CPU: the task dispatched at ``step`` goes on with the rest of a quantum that a preemption cut short (MLFQ
    keeps it) instead of starting a new one: its latest preemption came after its latest expiry and after every
    boost (a boost gives every task a fresh quantum)."""
    if result["mode"] != "cpu":
        return False
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


def policy_lines(result: Result, step: int) -> set[int]:
    """A policy of your own: the lines of its code that its ``choose`` ran for the decision shown at ``step``
    (CPU: at the start of the step's slice; LLM: at a dispatch). Empty when it was not called there."""
    now = result["steps"][step]
    if result["mode"] == "cpu":
        time = now.get("time", 0) - 1
    elif now.get("kind") == "dispatch":
        time = now.get("time")
    else:
        return set()
    ran: set[int] = set()
    for call in result.get("custom", {}).get("lines", []):
        if call["time"] == time:
            ran = set(call["lines"])
    return ran
