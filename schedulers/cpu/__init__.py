"""CPU mode: one CPU, integer time, no switch cost (the contract's CPU semantics).

``run(scenario)`` validates a scenario, runs it in the shared engine (``engine.py``) under the rule named by
``algorithm`` (``policies.py``) and returns the JSON trace described in README "Trace format".
"""
from __future__ import annotations

import argparse
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from .. import fields
from functools import partial

from ..catalog import Algorithm, algorithm_entry, json_number as number
from ..errors import ScenarioError
from .engine import FULL_TRACE_CELLS, MAX_COMPACT_STEPS, Trace, context_switches, queue_kind, schedule
from .policies import Policy, make_policy
from .scenario import MAX_SCAN_WORK, SCENARIO_FIELDS, Task, check_horizon, read_parameters, read_tasks
from .text import TEXT_NEEDS_STEPS, render_text

__all__ = ["ALGORITHMS", "Policy", "TEXT_NEEDS_STEPS", "add_cli_arguments", "cli_overrides", "render_text", "run"]


_algorithm = partial(algorithm_entry, "cpu")

ALGORITHMS: dict[str, Algorithm] = {a.name: a for a in (
    _algorithm("fcfs", "article", ("FCFS", "FCFS（先着順）"),
               ("first come, first served; never preempts; ties: earlier arrival, then input order",
                "到着順に実行し横取りしない。同着は入力順")),
    _algorithm("sjf", "article", ("SJF", "SJF（最短ジョブ優先）"),
               ("shortest burst first, non-preemptive; ties: earlier arrival, then input order",
                "実行時間が最短のものから、横取りなし。同点は到着が早い方、次に入力順")),
    _algorithm("srtf", "article", ("SRTF", "SRTF（残り時間最短優先）"),
               ("shortest remaining time first; preempts only on strictly shorter remaining; ties: arrival, input",
                "残り時間最短を実行し、厳密に短いときだけ横取り。同点は到着順、入力順")),
    _algorithm("rr", "article", ("Round Robin", "ラウンドロビン"),
               ("queue head runs up to quantum q (default 2); expired task rejoins the tail after arrivals",
                "先頭をクォンタムq（既定2）まで実行し、切れたら同時刻の到着の後ろに並ぶ"), ("quantum",)),
    _algorithm("priority", "more", ("Priority", "優先度"),
               ("least priority number first (0 most urgent), non-preemptive; optional aging; ties: arrival, input",
                "優先度番号が最小のものから（0が最優先）、横取りなし。エージング可。同点は到着順、入力順"),
               ("aging",), ("priority",)),
    _algorithm("priority-preemptive", "more", ("Priority (preemptive)", "優先度（横取りあり）"),
               ("least priority number first; preempts on a strictly better priority; optional aging",
                "優先度番号が最小のものから、厳密に高い優先度なら横取り。エージング可"),
               ("aging",), ("priority",)),
    _algorithm("hrrn", "more", ("HRRN", "HRRN（応答比最高優先）"),
               ("highest (waiting + burst) / burst first, non-preemptive; ties: arrival, input",
                "（待ち時間＋実行時間）÷実行時間が最大のものから、横取りなし。同点は到着順、入力順")),
    _algorithm("mlfq", "more", ("MLFQ", "MLFQ（多段フィードバックキュー）"),
               ("OSTEP's rules: levels, per-level quantum, allotment in quanta, periodic boost",
                "OSTEPの規則: レベル、レベルごとのクォンタム、割り当て（クォンタム数）、定期ブースト"),
               ("levels", "quanta", "allotment", "boost")),
    _algorithm("edf", "more", ("EDF", "EDF（締切最早優先）"),
               ("earliest absolute deadline first; preempts on a strictly earlier deadline; misses reported",
                "絶対締切が最も早いものから、厳密に早いときだけ横取り。締切超過を報告"), (), ("deadline",)),
    _algorithm("stride", "more", ("Stride", "ストライド"),
               ("least pass runs one quantum, then pass += 10000 / tickets; ties: arrival, input",
                "パス値最小のものを1クォンタム実行し、パス += 10000 ÷ くじ数。同点は到着順、入力順"),
               ("quantum",), ("tickets",)),
    _algorithm("lottery", "more", ("Lottery", "抽選"),
               ("each quantum, a seeded random ticket picks the task; same lottery_seed, same schedule",
                "クォンタムごとに乱数で当たりくじを引く。同じlottery_seedなら同じスケジュール"),
               ("quantum", "lottery_seed"), ("tickets",)),
)}


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
    if policy is None:
        policy = make_policy(algorithm, parameters)
    else:
        algorithm = policy.name or type(policy).__name__
    makespan = check_horizon(tasks)
    check_scan_work(policy, tasks, makespan)
    if trace is False:
        level = "none"
    elif trace == "compact" or (makespan + 1) * len(tasks) > FULL_TRACE_CELLS:
        level = "compact"
    else:
        level = "full"
    return result(algorithm, policy, tasks, makespan, *schedule(tasks, policy, level))


def check_scan_work(policy: Policy, tasks: list[Task], makespan: int) -> None:
    """A rule that compares ready tasks one by one at each decision (every one of them, or the first of each
    group): bound its comparisons, counted on the worst case, before running."""
    kind = queue_kind(policy)
    if kind not in ("scan", "groups"):
        return
    count, quantum = len(tasks), policy.quantum(tasks[0])
    decisions = makespan if policy.preemptive else makespan // quantum + count if quantum else count
    if kind == "scan":
        compared, what = count, f"every ready task at each decision: {count} tasks"
    else:
        compared = len({policy.group(task) for task in tasks})
        what = f"the first ready task of each group at each decision: {compared} groups"
    if compared * decisions > MAX_SCAN_WORK:
        raise ScenarioError("tasks", f"{policy.name} compares {what} x up to {decisions} decisions is over the "
                                     f"documented limit of {MAX_SCAN_WORK} comparisons")


def result(algorithm: str, policy: Policy, tasks: list[Task], makespan: int, timeline: list[str | None],
           trace: Trace) -> dict[str, Any]:
    rows = []
    for task in tasks:
        turnaround = task.completion - task.arrival
        row = {"name": task.name, "arrival": task.arrival, "burst": task.burst, "completion": task.completion,
               "turnaround": turnaround, "waiting": turnaround - task.burst, "response": task.first_run - task.arrival}
        for optional in ("deadline", "priority", "tickets"):
            value = getattr(task, optional)
            if value is not None:
                row[optional] = value
        if task.deadline is not None:
            row["missed"] = task.completion > task.deadline
        rows.append(row)
    totals = {key: sum(row[key] for row in rows) for key in ("turnaround", "waiting", "response")}
    misses = sum(row.get("missed", False) for row in rows)
    averages = {key: Fraction(total, len(tasks)) for key, total in totals.items()}
    busy = sum(task.burst for task in tasks)
    utilisation = Fraction(busy, makespan)
    return {
        "mode": "cpu", "algorithm": algorithm, "parameters": policy.parameters(),
        "timeline": timeline, "tasks": rows,
        "averages": {key: number(value) for key, value in averages.items()},
        "summary": {"makespan": makespan, "busy": busy, "idle": makespan - busy, "utilisation": number(utilisation),
                    "context_switches": context_switches(timeline), "deadline_misses": misses},
        "exact": {"averages": {key: str(value) for key, value in averages.items()}, "utilisation": str(utilisation)},
        "trace": trace_note(trace, makespan),
        "steps": trace.steps,
    }


def trace_note(trace: Trace, makespan: int) -> dict[str, Any]:
    """What the steps hold: ``level``, the full-trace ``budget`` (steps x tasks), and a ``note`` when not full."""
    note = {"level": trace.level, "budget": FULL_TRACE_CELLS, "max_steps": MAX_COMPACT_STEPS,
            "truncated": trace.truncated}
    cells = (makespan + 1) * len(trace.tasks)
    if trace.level == "compact":
        note["note"] = (f"compact: only step 0 and the steps with events, without ready/remaining snapshots "
                        f"({cells} step-task cells against a full-trace budget of {FULL_TRACE_CELLS})"
                        + (f"; cut after {MAX_COMPACT_STEPS} steps" if trace.truncated else ""))
    elif trace.level == "none":
        note["note"] = "none: no steps were asked for"
    return note


# --- the command line ----------------------------------------------------------------------------------

CLI_OPTIONS = (  # option, scenario field, help
    ("--quantum", "quantum", "time quantum for rr (default 2), stride and lottery (default 1), or every MLFQ level"),
    ("--aging", "aging", "priority: one step better for every N time units waited"),
    ("--levels", "levels", "MLFQ: number of levels (default 3)"),
    ("--quanta", "quanta", "MLFQ: quantum per level, comma-separated (default 1,2,4,...)"),
    ("--allotment", "allotment", "MLFQ: quanta a task may use at a level before moving down (default 1)"),
    ("--boost", "boost", "MLFQ: move every task to the top level every N time units (default never)"),
    ("--lottery-seed", "lottery_seed", "lottery: the random seed (default 0)"),
)


def add_cli_arguments(parser: argparse.ArgumentParser) -> None:
    for option, _, help_text in CLI_OPTIONS:
        parser.add_argument(option, metavar="N", help=help_text)


def cli_overrides(args: argparse.Namespace) -> dict[str, Any]:
    overrides = {}
    for _, key, _ in CLI_OPTIONS:
        text = getattr(args, key)
        if text is not None:
            overrides[key] = [cli_integer(part, f"{key}[{i}]") for i, part in enumerate(text.split(","))] \
                if key in ("quanta", "allotment") and "," in text else cli_integer(text, key)
    return overrides


def cli_integer(text: str, field: str) -> int:
    text = text.strip()
    digits = text[1:] if text.startswith("-") else text
    if not (digits.isascii() and digits.isdigit()) or len(digits) > 19:
        raise ScenarioError(field, f"must be an integer, not {text[:40]!r}")
    return int(text)
