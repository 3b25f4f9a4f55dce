"""What an algorithm is, for the CLI's ``--list`` and the app's menus, and how exact numbers are written out."""
from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any


@dataclass(frozen=True)
class Algorithm:
    name: str                      # the CLI/JSON/URL name, e.g. "srtf"
    mode: str                      # "cpu", "llm" or "engine"
    group: str                     # "article" (the article's four) or "more"
    label: dict[str, str]          # {"en": ..., "ja": ...}, short, for menus
    summary: dict[str, str]        # {"en": ..., "ja": ...}, one line: the exact rule and tie-breaks
    parameters: tuple[str, ...] = ()   # scenario-level parameters it reads, e.g. ("quantum",)
    item_fields: tuple[str, ...] = field(default=())  # optional task/tenant fields it reads, e.g. ("deadline",)


def algorithm_entry(mode: str, name: str, group: str, label: tuple[str, str], summary: tuple[str, str],
                    parameters: tuple[str, ...] = (), item_fields: tuple[str, ...] = ()) -> Algorithm:
    """An ``Algorithm`` from (en, ja) pairs: how both modes write their menus compactly."""
    return Algorithm(name=name, mode=mode, group=group, label={"en": label[0], "ja": label[1]},
                     summary={"en": summary[0], "ja": summary[1]}, parameters=parameters, item_fields=item_fields)


def json_number(value: Fraction | int) -> int | float:
    """An exact rational as a JSON number: an int when whole, else the nearest float."""
    if isinstance(value, int):
        return value
    return value.numerator if value.denominator == 1 else value.numerator / value.denominator


def json_plain(value: Any) -> Any:
    """``value`` (maps and lists of anything) with every Fraction written as a JSON number."""
    if isinstance(value, Fraction):
        return json_number(value)
    if isinstance(value, dict):
        return {k: json_plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [json_plain(v) for v in value]
    return value
