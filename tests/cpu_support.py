"""Small helpers the CPU tests share: scenarios from tuples, and the timeline as a string."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from schedulers.cpu import run


def scenario(algorithm: str, tasks: list[tuple], **parameters: Any) -> dict[str, Any]:
    """``tasks`` as ``(name, arrival, burst)`` or ``(name, arrival, burst, {optional fields})``."""
    items = [{"name": t[0], "arrival": t[1], "burst": t[2], **(t[3] if len(t) > 3 else {})} for t in tasks]
    return {"algorithm": algorithm, "tasks": items, **parameters}


def simulate(algorithm: str, tasks: list[tuple], **parameters: Any) -> dict[str, Any]:
    return run(scenario(algorithm, tasks, **parameters))


def chart(result: dict[str, Any]) -> str:
    """The timeline as one letter per time unit, "." when idle (names in these tests are one letter)."""
    return "".join(name or "." for name in result["timeline"])


def events(result: dict[str, Any], *kinds: str) -> list[tuple]:
    return [(e["kind"], e["task"], e["time"]) for step in result["steps"] for e in step["events"]
            if not kinds or e["kind"] in kinds]


ARTICLE = [("A", 0, 7), ("B", 1, 4), ("C", 2, 1), ("D", 4, 3)]

ROOT = Path(__file__).resolve().parent.parent
