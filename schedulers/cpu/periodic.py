"""Periodic tasks (issue 23; docs/cpu.md "Periodic tasks and the deadline branch"): before the run, each periodic
task becomes its jobs (``expand``), which the shared loop runs as tasks; after it, the jobs are gathered back into
one row per task (``rows``), and ``analysis`` gives the article's schedulability tests for the task set, exactly.

A task with a ``period`` T releases a job every T from its ``arrival`` while the release is before the horizon; job
k (from 1) is named ``A#k``, runs ``burst`` units and has the absolute deadline release + ``relative_deadline``
(default T). One-shot tasks stay as they are. The jobs are listed by release, then input order: their position is
the loop's last tie-break (EDF's "earlier release, then input order").
"""
from __future__ import annotations

import math
from dataclasses import replace
from fractions import Fraction
from typing import Any

from ..catalog import json_number
from ..errors import ScenarioError
from .scenario import MAX_HORIZON, MAX_TASKS, TASK, Parameters, Task

ROW_COUNTS = ("jobs", "misses", "max_lateness", "max_response")   # a periodic task's row, after its fields
ROW_FIELDS = tuple(f for f in TASK if not f.required and f.type == "integer")   # the optional fields a row shows
RULES = ("rm", "dm")   # the fixed-priority orders the response-time analysis is run for


def periodic(tasks: list[Task]) -> bool:
    """Some task gives a period (or a relative deadline, which ``check`` refuses without one)."""
    return any(task.period is not None or task.relative_deadline is not None for task in tasks)


def check(tasks: list[Task]) -> None:
    """What a periodic task may not have: I/O bursts, an absolute deadline of its own, a deadline past its period."""
    for task in tasks:
        if task.period is None:
            if task.relative_deadline is not None:
                raise ScenarioError(f"tasks[{task.index}].relative_deadline", "needs a period (a one-shot task has "
                                                                               "an absolute deadline)")
            continue
        where = f"tasks[{task.index}]"
        if task.bursts is not None:
            raise ScenarioError(f"{where}.bursts", "a periodic task has one burst per job, not I/O bursts")
        if task.deadline is not None:
            raise ScenarioError(f"{where}.deadline", "a periodic task's jobs have relative_deadline after their "
                                                     "release, not an absolute deadline")
        if task.relative_deadline is not None and task.relative_deadline > task.period:
            raise ScenarioError(f"{where}.relative_deadline", f"must be at most the period {task.period} "
                                                              f"(constrained deadlines), not {task.relative_deadline}")


def horizon(tasks: list[Task], parameters: Parameters) -> int:
    """The scenario's horizon, or the least common multiple of the periods plus the latest first release, within
    MAX_HORIZON (past it: an error naming ``horizon``, never a silent cut)."""
    if parameters.horizon is not None:
        return parameters.horizon
    periods = [task.period for task in tasks if task.period is not None]
    lcm = 1
    for period in periods:
        lcm = math.lcm(lcm, period)
        if lcm > MAX_HORIZON:
            break
    latest = max(task.arrival for task in tasks if task.period is not None)
    if lcm + latest > MAX_HORIZON:
        shown = f"more than {MAX_HORIZON:,}" if lcm > MAX_HORIZON else f"{lcm:,}"
        raise ScenarioError("horizon", f"the default, the least common multiple of the periods ({shown}) plus the "
                                       f"latest first release ({latest}), is past the documented limit of "
                                       f"{MAX_HORIZON:,}: give a shorter horizon")
    return lcm + latest


def expand(tasks: list[Task], until: int) -> list[Task]:
    """The jobs released before ``until`` and the one-shot tasks, by release then input order, each knowing the
    input position of its task (``owner``)."""
    count = sum(-(-(until - task.arrival) // task.period) if task.arrival < until else 0
                for task in tasks if task.period is not None)
    count += sum(task.period is None for task in tasks)
    if count > MAX_TASKS:
        raise ScenarioError("horizon", f"releases {count:,} jobs before t={until}, more than the documented limit of "
                                       f"{MAX_TASKS:,}: give a shorter horizon")
    releases = []
    for task in tasks:
        if task.period is None:
            releases.append((task.arrival, task.index, task, None))
            continue
        relative = task.relative_deadline or task.period
        for number, release in enumerate(range(task.arrival, until, task.period), 1):
            releases.append((release, task.index, task, (number, release + relative)))
    releases.sort(key=lambda item: item[:2])
    jobs = []
    for position, (release, owner, task, job) in enumerate(releases):
        if job is None:
            jobs.append(replace(task, index=position, owner=owner))
        else:
            number, deadline = job
            jobs.append(replace(task, index=position, owner=owner, name=f"{task.name}#{number}", arrival=release,
                                deadline=deadline, relative_deadline=task.relative_deadline or task.period))
    return jobs


def rows(tasks: list[Task], jobs: list[Task], dropped: set[str]) -> tuple[list[dict[str, Any]], dict[str, Fraction]]:
    """One row per task and the averages. A periodic task's ``completion`` is its last job's; ``turnaround``,
    ``waiting`` and ``response`` are the means over its completed jobs; ``jobs`` and ``misses`` count its jobs and
    those that passed their deadline (dropped ones too); ``max_lateness`` is the largest completion - deadline and
    ``max_response`` the largest completion - release (the real-time response time the analysis bounds), both over
    completed jobs (None: none completed). The averages, exact, are over every completed job and one-shot task
    (none: nothing completed)."""
    of: dict[int, list[Task]] = {task.index: [] for task in tasks}
    for job in jobs:
        of[job.owner].append(job)
    out, totals, counted = [], {"turnaround": 0, "waiting": 0, "response": 0}, 0
    for task in tasks:
        done = [job for job in of[task.index] if job.name not in dropped]
        sums = {"turnaround": sum(job.completion - job.arrival for job in done),
                "waiting": sum(job.completion - job.arrival - job.burst for job in done),
                "response": sum(job.first_run - job.arrival for job in done)}
        for key, value in sums.items():
            totals[key] += value
        counted += len(done)
        means = {key: json_number(Fraction(value, len(done))) if done else None for key, value in sums.items()}
        row = {"name": task.name, "arrival": task.arrival, "burst": task.burst,
               "completion": max((job.completion for job in done), default=None), **means}
        for field in ROW_FIELDS:
            value = getattr(task, field.attr)
            if value is not None:
                row[field.name] = value
        if task.period is None:
            if task.deadline is not None:
                row["missed"] = task.name in dropped or done[0].completion > task.deadline
        else:
            row.setdefault("relative_deadline", task.period)
            row.update(jobs=len(of[task.index]),
                       misses=sum(job.name in dropped or job.completion > job.deadline for job in of[task.index]),
                       max_lateness=max((job.completion - job.deadline for job in done), default=None),
                       max_response=max((job.completion - job.arrival for job in done), default=None))
        out.append(row)
    return out, {key: Fraction(value, counted) for key, value in totals.items()} if counted else {}


def job_rows(jobs: list[Task], dropped: set[str]) -> list[dict[str, Any]]:
    """Every job of a periodic task: its release, deadline, completion (None: dropped), lateness, response time."""
    listed = []
    for job in jobs:
        if job.period is None:
            continue
        done = job.name not in dropped
        listed.append({"name": job.name, "task": job.name.rpartition("#")[0], "release": job.arrival,
                       "deadline": job.deadline, "completion": job.completion if done else None,
                       "lateness": job.completion - job.deadline if done else None,
                       "response": job.completion - job.arrival if done else None,
                       "missed": not done or job.completion > job.deadline, "dropped": not done})
    return listed


def response_time(task: Task, higher: list[Task]) -> tuple[int, bool]:
    """The exact response-time analysis of fixed priorities: R = C + sum over the higher-priority tasks j of
    ceil(R / T_j) * C_j, from R = C + sum C_j, iterated to a fixed point (meets if at most the relative deadline D),
    or stopped at the first value past D (misses)."""
    limit = task.relative_deadline or task.period
    value = task.burst + sum(other.burst for other in higher)
    while value <= limit:
        following = task.burst + sum(-(-value // other.period) * other.burst for other in higher)
        if following == value:
            return value, True
        value = following
    return value, False


def priority_order(tasks: list[Task], rule: str) -> list[Task]:
    """The periodic tasks from the highest fixed priority: RM by period, DM by relative deadline; ties input order."""
    if rule == "rm":
        return sorted(tasks, key=lambda task: (task.period, task.index))
    return sorted(tasks, key=lambda task: (task.relative_deadline or task.period, task.index))


def analysis(tasks: list[Task]) -> dict[str, Any]:
    """The article's tests for the periodic tasks, exact: each U_i = C_i / T_i and U; the Liu-Layland bound
    n(2^(1/n) - 1), irrational for n >= 2, is given as the nearest float, but whether U is under it is decided
    exactly ((U/n + 1)^n <= 2, in rationals); U <= 1 (EDF's bound); RM's and DM's response times and verdicts."""
    periodic = [task for task in tasks if task.period is not None]
    n = len(periodic)
    shares = {task.name: Fraction(task.burst, task.period) for task in periodic}
    total = sum(shares.values(), Fraction(0))
    verdicts: dict[str, dict[str, tuple[int, bool]]] = {task.name: {} for task in periodic}
    for rule in RULES:
        order = priority_order(periodic, rule)
        for rank, task in enumerate(order):
            verdicts[task.name][rule] = response_time(task, order[:rank])
    rows = [{"name": task.name, "utilisation": json_number(shares[task.name]),
             "response_time": {rule: verdicts[task.name][rule][0] for rule in RULES},
             "verdict": {rule: "meets" if verdicts[task.name][rule][1] else "misses" for rule in RULES}}
            for task in periodic]
    return {"tasks": rows, "utilisation": json_number(total), "liu_layland_bound": n * (2 ** (1 / n) - 1),
            "under_liu_layland": (total / n + 1) ** n <= 2, "edf_bound": 1, "under_edf_bound": total <= 1,
            "exact": {"utilisation": str(total), "tasks": {name: str(share) for name, share in shares.items()},
                      "liu_layland_bound": f"{n}*(2^(1/{n})-1)"}}
