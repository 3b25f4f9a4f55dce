"""The scheduling lab's core: pure standard-library Python, the same in CPython and Pyodide.

    from schedulers import simulate, ScenarioError
    result = simulate("cpu", {"algorithm": "fcfs", "tasks": [{"name": "A", "arrival": 0, "burst": 7}]})

``simulate(mode, scenario)`` returns exactly the JSON object ``python -m schedulers MODE --json`` prints.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .catalog import Algorithm
from .errors import ScenarioError

__all__ = ["Algorithm", "ScenarioError", "algorithms", "simulate"]


def simulate(mode: str, scenario: Mapping[str, Any], trace: bool = True) -> dict[str, Any]:
    """Validate ``scenario`` and run it; raises ``ScenarioError`` naming the bad field.

    ``trace=False`` leaves out the steps (benchmarks); with ``True`` a run past the mode's trace budget
    gets the compact trace, as its top-level ``trace`` field says."""
    return _mode(mode).run(scenario, trace=trace)


def algorithms(mode: str) -> dict[str, Algorithm]:
    """The algorithms of ``mode`` ("cpu", "llm" or "engine"), article ones first, in menu order."""
    return dict(_mode(mode).ALGORITHMS)


def _mode(mode: str):
    from .cli import MODES, mode_module
    if mode not in MODES:
        raise ScenarioError("mode", f"must be one of {', '.join(MODES)}, not {mode!r}")
    return mode_module(mode)
