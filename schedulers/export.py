"""Exports of a run: the trace as JSON (exactly what ``python -m schedulers MODE --json`` prints) and the
metrics as CSV (one row per task or tenant, then the averages).

CSV: the first column, ``row``, says ``task``/``tenant`` or ``average``, so a task named "average" stays a
task. A text cell that starts with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return is written with a
leading ``'`` so that a spreadsheet shows it as text instead of running it as a formula (a shared link can
carry any name).
"""
from __future__ import annotations

import csv
import io
import json
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from .catalog import json_number as number
from .modes import MODES

CPU_COLUMNS = ("name", "arrival", "burst", "completion", "turnaround", "waiting", "response")
CPU_OPTIONAL = (*MODES["cpu"].schema.optional, "missed")   # the optional task fields given, then the misses
LLM_COLUMNS = ("name", "weight", "join", "requests", "dispatched", "charged", "normalized")
ENGINE_COLUMNS = ("name", "weight", "requests", "input_tokens", "output_tokens", "service", "normalized", "counter",
                  "mean_waiting", "mean_latency")
AVERAGED = {"cpu": ("turnaround", "waiting", "response"), "llm": ("dispatched", "charged", "normalized"),
            "engine": ("input_tokens", "output_tokens", "service", "normalized", "mean_waiting", "mean_latency")}
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def trace_json(result: Mapping[str, Any]) -> str:
    """The run as one line of JSON and its newline: byte for byte what the command line prints with ``--json``
    (and what the lab's download saves)."""
    return json.dumps(result, ensure_ascii=False, separators=(",", ":")) + "\n"


def cell(value: Any) -> Any:
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    if isinstance(value, bool):
        return "yes" if value else "no"
    return "" if value is None else value


def metrics_csv(result: Mapping[str, Any]) -> str:
    """Per task (CPU) or tenant (LLM, engine) rows, then one ``average`` row over them."""
    mode = result["mode"]
    items = result["tasks"] if mode == "cpu" else result["tenants"]
    if mode == "cpu":
        columns = CPU_COLUMNS + tuple(c for c in CPU_OPTIONAL if any(c in item for item in items))
    else:
        columns = LLM_COLUMNS if mode == "llm" else ENGINE_COLUMNS
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(("row", *columns))
    kind = "task" if mode == "cpu" else "tenant"
    for item in items:
        writer.writerow((kind, *(cell(item.get(column)) for column in columns)))
    averages = result["averages"] if mode == "cpu" else tenant_averages(items, AVERAGED[mode])
    writer.writerow(("average", *(cell(averages.get(column)) if column in AVERAGED[mode] else ""
                                  for column in columns)))
    return out.getvalue()


def tenant_averages(tenants: list[Mapping[str, Any]], keys: tuple[str, ...]) -> dict[str, Any]:
    """The mean of each column over the tenants, exact (from ``exact`` where a tenant has it), written as JSON
    writes numbers (an int when whole)."""
    return {key: number(sum(Fraction(t.get("exact", {}).get(key, t[key])) for t in tenants) / len(tenants))
            for key in keys}
