"""The bench's part for one public reference, shared by the harnesses (``reference_ostep``, ``reference_multi``,
``reference_simso``): a heading, then one line per family of cases; or, where the reference is not at hand, one
line saying the agreement was NOT measured and why (the bench never passes a missing reference off as agreement)."""
from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any


def not_measured(reference: str, variable: str, value: str | None, lacks: str, hint: str) -> str:
    """Why the agreement with ``reference`` was not measured: ``variable`` unset, or its ``value`` ``lacks`` it."""
    return (f"the agreement with {reference} was NOT measured: {variable} is "
            + (f"{value!r}, which {lacks}" if value else "not set") + f" ({hint})")


def part(heading: str, missing: str | None, families: Iterable[str], tally: Callable[[str], Any],
         line: Callable[[str, Any], str]) -> dict[str, Any]:
    """Print ``heading``, then each family's ``line`` of its ``tally``; the figures by family, or ``{"skipped": why}``
    where the reference is ``missing`` (``not_measured``'s sentence)."""
    print("\n" + heading, flush=True)
    if missing:
        print(missing, flush=True)
        return {"skipped": missing}
    figures = {}
    for family in families:
        figures[family] = tally(family)
        print(line(family, figures[family]), flush=True)
    return figures
