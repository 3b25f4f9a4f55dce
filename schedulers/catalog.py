"""What an algorithm is, for the CLI's ``--list`` and the app's menus: a name and its documentation."""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Algorithm:
    name: str                      # the CLI/JSON/URL name, e.g. "srtf"
    mode: str                      # "cpu" or "llm"
    group: str                     # "article" (the article's four) or "more"
    label: dict[str, str]          # {"en": ..., "ja": ...}, short, for menus
    summary: dict[str, str]        # {"en": ..., "ja": ...}, one line: the exact rule and tie-breaks
    parameters: tuple[str, ...] = ()   # scenario-level parameters it reads, e.g. ("quantum",)
    item_fields: tuple[str, ...] = field(default=())  # optional task/tenant fields it reads, e.g. ("deadline",)
