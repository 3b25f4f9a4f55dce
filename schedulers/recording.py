"""How the modes' loops write their traces, the same for each: the three levels and the note that says which one a
result holds, exact numbers in a step (a JSON number, and its "p/q" in the step's ``exact``), a tenant's requests
grouped by arrival time, and counting in exact integer units.

A trace is ``full`` (every step with its snapshots and a sentence) while a bound on its size stays within the mode's
budget, ``compact`` past it (what each mode keeps then is in its loop's docstring), ``none`` when no steps are asked
for (benchmarks, a text that prints no steps).
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from fractions import Fraction
from typing import Any, TypeVar

from .catalog import json_number

FULL, COMPACT, NONE = "full", "compact", "none"
Item = TypeVar("Item")


def level(traced: bool, size: int, budget: int) -> str:
    """The trace's level: none unless ``traced``, full while ``size`` (a bound on what the trace holds) stays within
    ``budget``, else compact."""
    if not traced:
        return NONE
    return FULL if size <= budget else COMPACT


def note(level: str, budget: int, notes: Mapping[str, str], **extra: Any) -> dict[str, Any]:
    """A result's ``trace``: its ``level``, the full trace's ``budget``, the mode's ``extra`` figures and, for a
    level ``notes`` explains (not full), its ``note``."""
    return {"level": level, "budget": budget, **extra, **({"note": notes[level]} if level in notes else {})}


def put(step: dict[str, Any], exact: dict[str, Any], key: str, value: Any, names: Sequence[Any] | None = None) -> None:
    """``step[key] = value`` with JSON numbers, and its rationals in ``exact[key]`` as "p/q" text: a number, or a map
    of plain values (the rationals among them go to ``exact``). ``names``: the map's keys are positions in it (tenant
    order), written as the names. A step is recorded at every event of a run, so this is written for speed."""
    if type(value) is not dict:
        step[key] = json_number(value)
        exact[key] = str(value)
        return
    items = value.items() if names is None else [(names[k], v) for k, v in value.items()]
    step[key] = {k: json_number(v) if type(v) is Fraction else v for k, v in items}
    exact[key] = {k: str(v) for k, v in items if type(v) is int or type(v) is Fraction}


def arrival_events(tenants: Iterable[Item], arrivals: Callable[[Item], Sequence[int]]
                   ) -> list[tuple[int, int, range]]:
    """(time, tenant order, the positions of its requests arriving then) for each time some of a tenant's requests
    arrive (``arrivals(tenant)``: one time per request, never decreasing), in time order, then tenant order."""
    events = []
    for order, tenant in enumerate(tenants):
        times, start = arrivals(tenant), 0
        for k in range(1, len(times) + 1):
            if k == len(times) or times[k] != times[start]:
                events.append((times[start], order, range(start, k)))
                start = k
    events.sort(key=lambda event: (event[0], event[1]))
    return events


class ExactUnits:
    """Numbers kept as integers in units of ``1 / scale`` (meters, counters: exact, and fast to compare)."""
    scale: int

    def exact(self, units: int) -> Fraction | int:
        """Units as the exact number they stand for (an int when the scale is 1)."""
        return units if self.scale == 1 else Fraction(units, self.scale)
