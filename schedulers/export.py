"""Exports of a run: the trace as JSON (exactly what ``python -m schedulers MODE --json`` prints) and the
metrics as CSV (one row per task or tenant, then the averages, then one ``run,NAME,VALUE`` row per figure of the
whole run, exact where the result has it: the mode's ``Results``).

CSV: the first column, ``row``, says ``task``/``tenant``, ``average`` or ``run``, so a task named "average" stays a
task. A text cell that starts with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return is written with a
leading ``'`` so that a spreadsheet shows it as text instead of running it as a formula (a shared link can
carry any name).
"""
from __future__ import annotations

import csv
import io
import json
from collections.abc import Mapping
from typing import Any

from .modes import mode

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
    """The mode's result rows (its ``Results``' columns present in this result), then one ``average`` row."""
    results = mode(result["mode"]).results
    columns = [column.name for column in results.shown(result)]
    averaged, averages = results.averaged, results.average_row(result)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(("row", *columns))
    for item in result[results.items]:
        writer.writerow((results.row, *(cell(item.get(column)) for column in columns)))
    writer.writerow(("average", *(cell(averages.get(column)) if column in averaged else "" for column in columns)))
    for name, value in results.totals(result).items():
        writer.writerow(("run", name, cell(value)))
    return out.getvalue()
