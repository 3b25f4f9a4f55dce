"""CPU mode: one CPU, integer time, no switch cost (the contract's CPU semantics).

``run(scenario)`` validates a scenario, runs it in the shared loop (``loop.py``) under the rule named by
``algorithm`` (``policies.py``) and returns the JSON trace described in docs/trace-format.md.
"""
from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from itertools import repeat
from operator import attrgetter, is_not
from typing import Any

from .. import fields
from ..catalog import Algorithm, Mode, catalogue, json_number
from ..errors import ScenarioError
from .exercise import SIZES, exercise
from ..recording import COMPACT, NONE, level as trace_level, note
from ..schema import Column, Results, with_readers
from . import locks, periodic
from .custom import CUSTOM_POLICY
from .loop import FULL_TRACE_CELLS, MAX_COMPACT_STEPS, Trace, context_switches, queue_kind, schedule
from .lines import LINES
from .multi import schedule_multi, with_cpus
from .policies import RULES, Policy, make_policy
from .scenario import CONVENTIONS, MAX_SCAN_WORK, PARAMETERS, SCENARIO_FIELDS, TASK, Task, check_horizon, \
    read_parameters, read_tasks
from .steps import STEPS
from .text import TEXT_NEEDS_STEPS, render_problem, render_trace, text_renderer

__all__ = ["ALGORITHMS", "MODE", "Policy", "SCHEMA", "render_text", "run"]

ALGORITHMS: dict[str, Algorithm] = catalogue("cpu", RULES)
SCHEMA = with_readers("cpu", "tasks", TASK, PARAMETERS, SCENARIO_FIELDS, ALGORITHMS)
OPTIONAL = SCHEMA.optional
ATTRIBUTES = tuple(SCHEMA.field(name).attr for name in OPTIONAL)   # where a Task holds each (class: class_)
RUN_FIGURES = ("switches", "switch_time", "migrations", "steals")   # beside the summary's, when the run reports them


def run_figures(result: Mapping[str, Any]) -> dict[str, Any]:
    """The run's own figures for the exports: the summary's (utilisation exact), the switches, the time switching,
    the migrations and steals the run reports, and each CPU's exact utilisation."""
    exact = result["exact"]
    figures = {**result["summary"], "utilisation": exact["utilisation"]}
    figures.update((key, result[key]) for key in RUN_FIGURES if key in result)
    if "cpu_utilisation" in exact:
        figures["cpu_utilisation"] = " ".join(exact["cpu_utilisation"])
    return figures


# A result's task rows (``result`` below): the task's own numbers, its metrics (averaged in ``averages``), then the
# optional fields the scenario gave and, with a deadline, whether it was missed; a periodic task's its jobs' counts.
# With I/O a row's ``burst`` is the task's CPU time in all, and ``cpu``/``io`` follow the metrics. The text table
# shows the deadline with its miss, not the other rules' inputs.
RESULTS = Results("tasks", "task", (
    *map(Column, ("name", "arrival", "burst", "completion")),
    *(Column(name, averaged=True) for name in ("turnaround", "waiting", "response")),
    *(Column(name, optional=True, text=name in ("cpu", "io", "deadline"))
      for name in ("cpu", "io", *OPTIONAL)), Column("missed", optional=True),
    *(Column(name, optional=True) for name in ("period", "relative_deadline", *periodic.ROW_COUNTS))),
    averages=lambda result: result["averages"], totals=run_figures)


def run(scenario: Mapping[str, Any], trace: bool | str = True, policy: Policy | None = None) -> dict[str, Any]:
    """Validate and run ``scenario``. ``trace``: True, the full trace within the budget (else the compact
    one); "compact", the compact one; False, no steps at all (benchmarks). ``policy``: a rule of your own
    (a ``Policy``) instead of the scenario's ``algorithm``."""
    scenario = fields.mapping(scenario, "scenario")
    fields.known_keys(scenario, "", SCENARIO_FIELDS)
    if scenario.get("mode", "cpu") != "cpu":
        raise ScenarioError("mode", f"must be cpu here, not {fields.describe(scenario['mode'])}")
    algorithm = fields.choice(scenario.get("algorithm", "fcfs"), "algorithm", list(ALGORITHMS))
    if "tasks" not in scenario:
        raise ScenarioError("tasks", "is missing")
    tasks = read_tasks(scenario["tasks"])
    parameters = read_parameters(scenario)
    if parameters.steal and parameters.queues != "per-cpu":
        raise ScenarioError("steal", "takes a task from another CPU's queue, so it needs queues per-cpu")
    custom = policy is not None
    if policy is None:
        policy = make_policy(algorithm, parameters)
    else:
        algorithm = policy.name or type(policy).__name__
    given = tasks
    if periodic.periodic(tasks):   # the periodic tasks become their jobs, which the loop runs as tasks
        periodic.check(tasks)
        if parameters.cpus > 1:   # the deadline branch is taught on one CPU (docs/cpu.md, Periodic tasks)
            raise ScenarioError("cpus", "must be 1 with periodic tasks (a task with a period)")
        until = periodic.horizon(tasks, parameters)
        tasks = periodic.expand(tasks, until)
        if not tasks:
            raise ScenarioError("horizon", f"no job is released before t={until}")
        if parameters.on_miss == "abort" and queue_kind(policy) not in ("heap", "fifo", "scan"):
            raise ScenarioError("on_miss", f"abort drops a job from the ready queue, which {algorithm} keeps in a "
                                           f"way that cannot: use continue")
    locks.check(tasks, policy, parameters, custom)
    io = any(task.blocks_left for task in tasks)
    makespan = check_horizon(tasks, io)   # with I/O, a bound on it
    check_scan_work(policy, tasks, makespan)
    switch_cost = parameters.switch_cost
    # A full trace's snapshots, every task at every step; a switch may come with each dispatch, and there are at most
    # as many dispatches as time units run, arrivals and returns.
    steps = makespan + 1
    if switch_cost:
        steps += switch_cost * (makespan + len(tasks) + sum(task.blocks_left for task in tasks))
    level = COMPACT if trace == "compact" else trace_level(trace is not False, steps * len(tasks), FULL_TRACE_CELLS)
    if parameters.cpus > 1:
        per_cpu = parameters.queues == "per-cpu"
        if per_cpu and not policy.per_cpu:
            raise ScenarioError("queues", f"{algorithm} keeps one virtual time over the tasks of every CPU, which has "
                                          f"no per-CPU form here: use global")
        several = schedule_multi(tasks, policy, level, parameters.cpus, parameters.conventions, switch_cost,
                                 per_cpu, parameters.steal)
        makespan = len(several.cpus[0].timeline)
        return with_cpus(result(algorithm, policy, tasks, makespan, [], several.trace, (several.switches, switch_cost),
                                io), several)
    watched = [task for task in tasks if task.period is not None]
    if locks.has_sections(tasks):
        timeline, recorded, stuck, held = locks.schedule_locks(tasks, policy, level, parameters.protocol, watched)
        out = periodic_result(algorithm, policy, given, tasks, timeline, recorded, until, parameters.on_miss, None) \
            if given is not tasks else result(algorithm, policy, tasks, len(timeline), timeline, recorded)
        out["parameters"]["protocol"] = parameters.protocol
        out.update(resources=locks.resources(given, policy, held.spans, len(timeline)), deadlock=stuck)
        return out
    timeline, recorded, switches = schedule(tasks, policy, level, parameters.conventions, switch_cost,
                                            "conventions" in scenario, parameters.step_details, watched,
                                            parameters.on_miss == "abort")
    if given is not tasks:
        return periodic_result(algorithm, policy, given, tasks, timeline, recorded, until, parameters.on_miss,
                               (switches, switch_cost) if "switch_cost" in scenario else None)
    extra = "switch_cost" in scenario or io
    return result(algorithm, policy, tasks, len(timeline), timeline, recorded,
                  (switches, switch_cost) if extra else None, io)


def check_scan_work(policy: Policy, tasks: list[Task], makespan: int) -> None:
    """A rule that compares ready tasks one by one at each decision (every one of them, or the first of each
    cohort): bound its comparisons, counted on the worst case, before running."""
    kind = queue_kind(policy)
    if kind not in ("scan", "cohorts"):
        return
    count, quantum = len(tasks), policy.quantum(tasks[0])
    decisions = makespan if policy.preemptive else makespan // quantum + count if quantum else count
    if kind == "scan":
        compared, what = count, f"every ready task at each decision: {count} tasks"
    else:
        compared = len({policy.cohort(task) for task in tasks})
        what = f"the first ready task of each cohort at each decision: {compared} cohorts"
    if compared * decisions > MAX_SCAN_WORK:
        raise ScenarioError("tasks", f"{policy.name} compares {what} x up to {decisions} decisions is over the "
                                     f"documented limit of {MAX_SCAN_WORK} comparisons")


def result(algorithm: str, policy: Policy, tasks: list[Task], makespan: int, timeline: list[str | None],
           trace: Trace, switched: tuple[int, int] | None = None, io: bool = False) -> dict[str, Any]:
    """The JSON result. ``switched``: (switches, switch cost), given when the scenario has I/O or a switch cost: the
    result then has ``switches``, ``switch_time`` and ``utilisation``; ``io``: some task does I/O, so the rows carry
    ``cpu`` and ``io``."""
    given = [(name, attr) for name, attr in zip(OPTIONAL, ATTRIBUTES)
             if any(map(is_not, map(attrgetter(attr), tasks), repeat(None)))]
    everyone, stuck = tasks, [task for task in tasks if task.completion is None]   # a deadlocked run's (locks.py)
    if stuck:
        tasks = [task for task in tasks if task.completion is not None]
    if io:
        rows = []
        for task in tasks:
            cpu, io_time = task.cpu, task.io
            rows.append({"name": task.name, "arrival": task.arrival, "burst": cpu, "completion": task.completion,
                         "turnaround": task.completion - task.arrival,
                         "waiting": task.completion - task.arrival - cpu - io_time,
                         "response": task.first_run - task.arrival, "cpu": cpu, "io": io_time})
    else:
        rows = [{"name": task.name, "arrival": task.arrival, "burst": task.burst, "completion": task.completion,
                 "turnaround": task.completion - task.arrival,
                 "waiting": task.completion - task.arrival - task.burst,
                 "response": task.first_run - task.arrival} for task in tasks]
    if given:
        for task, row in zip(tasks, rows):
            for optional, attr in given:
                value = getattr(task, attr)
                if value is not None:
                    row[optional] = value
            if task.deadline is not None:
                row["missed"] = task.completion > task.deadline
    # Sums of the tasks' own numbers, in C: the same totals as the rows'.
    arrivals = sum(map(attrgetter("arrival"), tasks))
    busy = sum(row["cpu"] for row in rows) if io else sum(map(attrgetter("burst"), tasks))
    in_io = sum(row["io"] for row in rows) if io else 0
    turnaround = sum(map(attrgetter("completion"), tasks)) - arrivals
    totals = {"turnaround": turnaround, "waiting": turnaround - busy - in_io,
              "response": sum(map(attrgetter("first_run"), tasks)) - arrivals}
    misses = sum(row.get("missed", False) for row in rows) if ("deadline", "deadline") in given else 0
    averages = {key: Fraction(total, len(tasks)) for key, total in totals.items()} if tasks else {}
    if stuck:   # the rows in input order, the tasks never completed without numbers; busy: the units run
        left = {task.name: {"name": task.name, "arrival": task.arrival, "burst": task.burst, "completion": None,
                            "turnaround": None, "waiting": None, "response": None} for task in stuck}
        done = {row["name"]: row for row in rows}
        rows = [done.get(task.name) or left[task.name] for task in everyone]
        busy = sum(type(unit) is str for unit in timeline)
    utilisation = Fraction(busy, makespan)
    switches, cost = switched or (0, 0)
    changes = context_switches(timeline, cost > 0)
    out = {
        "mode": "cpu", "algorithm": algorithm, "parameters": policy.parameters(),
        "timeline": timeline, "tasks": rows,
        "averages": {key: json_number(averages[key]) if averages else None for key in totals},
        "summary": {"makespan": makespan, "busy": busy, "idle": makespan - busy - switches * cost,
                    "utilisation": json_number(utilisation), "context_switches": changes,
                    "deadline_misses": misses},
        "exact": {"averages": {key: str(value) for key, value in averages.items()}, "utilisation": str(utilisation)},
        "trace": trace_note(trace, makespan),
        "steps": trace.steps,
    }
    if switched is not None:   # at no cost, a dispatch of another task than the last to run is a change of task
        out.update(switches=switches if cost else changes, switch_time=switches * cost,
                   utilisation=json_number(utilisation))
    if trace.conventions is not CONVENTIONS["lab"] or trace.told:
        out["conventions"] = {"name": trace.conventions.name, **trace.conventions.flags()}
    return out


def periodic_result(algorithm: str, policy: Policy, tasks: list[Task], jobs: list[Task], timeline: list[Any],
                    trace: Trace, horizon: int, on_miss: str, switched: tuple[int, int] | None) -> dict[str, Any]:
    """The JSON result of a scenario with periodic tasks: one row per task (``periodic.rows``), every job
    (``jobs``), the schedulability tests (``analysis``), the ``horizon`` and ``on_miss`` used; the summary counts the
    time run from the timeline, as a dropped job runs less than its burst."""
    dropped = {job.name for job in jobs if job.completion is None}
    rows, averages = periodic.rows(tasks, jobs, dropped)
    makespan = len(timeline)
    busy = sum(type(unit) is str for unit in timeline)
    switches, cost = switched or (0, 0)
    utilisation = Fraction(busy, makespan)
    job_rows = periodic.job_rows(jobs, dropped)
    misses = sum(row["missed"] for row in job_rows) + sum(row.get("missed", False) for row in rows
                                                          if "jobs" not in row)
    out = {
        "mode": "cpu", "algorithm": algorithm, "parameters": policy.parameters(),
        "timeline": timeline, "tasks": rows,
        "averages": {key: json_number(averages[key]) if averages else None for key in RESULTS.averaged},
        "summary": {"makespan": makespan, "busy": busy, "idle": makespan - busy - switches * cost,
                    "utilisation": json_number(utilisation), "context_switches": context_switches(timeline, cost > 0),
                    "deadline_misses": misses},
        "exact": {"averages": {key: str(value) for key, value in averages.items()}, "utilisation": str(utilisation)},
        "horizon": horizon, "on_miss": on_miss, "jobs": job_rows, "analysis": periodic.analysis(tasks),
        "trace": trace_note(trace, makespan),
        "steps": trace.steps,
    }
    if switched is not None:
        out.update(switches=switches, switch_time=switches * cost, utilisation=json_number(utilisation))
    return out


def trace_note(trace: Trace, makespan: int) -> dict[str, Any]:
    """What the steps hold: ``level``, the full-trace ``budget`` (steps x tasks), the compact trace's ``max_steps``
    and whether it was ``truncated`` there, and a ``note`` when not full."""
    cells = (makespan + 1) * len(trace.tasks)
    notes = {COMPACT: f"compact: only step 0 and the steps with events, without ready/remaining snapshots "
                      f"({cells} step-task cells against a full-trace budget of {FULL_TRACE_CELLS})"
                      + (f"; cut after {MAX_COMPACT_STEPS} steps" if trace.truncated else ""),
             NONE: "none: no steps were asked for"}
    return note(trace.level, FULL_TRACE_CELLS, notes, max_steps=MAX_COMPACT_STEPS, truncated=trace.truncated)


render_text = text_renderer(RESULTS)
MODE = Mode("cpu", "one CPU or up to 8, integer time", ALGORITHMS, SCHEMA, run=run, render_text=render_text,
            exercise=exercise, text_needs_steps=TEXT_NEEDS_STEPS, results=RESULTS, steps=STEPS, lines=LINES,
            custom=CUSTOM_POLICY, exercise_sizes=SIZES, render_problem=render_problem, render_trace=render_trace,
            trace_scenario={"step_details": True})
