"""The scheduling lab's core: pure standard-library Python, the same in CPython and Pyodide.

    from schedulers import simulate, ScenarioError
    result = simulate("cpu", {"algorithm": "fcfs", "tasks": [{"name": "A", "arrival": 0, "burst": 7}]})

``simulate(mode, scenario)`` returns exactly the JSON object ``python -m schedulers MODE --json`` prints;
``simulate(mode, scenario, policy_source=code)`` runs a policy of your own instead (``schedulers.custom``), as
``--policy FILE.py`` does. ``algorithms(mode)`` is the menu, ``schema(mode)`` the scenario's fields, and
``schedulers.trace`` answers questions about a result at a given step.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .catalog import Algorithm
from .errors import ScenarioError
from .modes import MODES, mode as _mode
from .schema import Field, Schema

__all__ = ["Algorithm", "Field", "MODES", "ScenarioError", "Schema", "algorithms", "schema", "simulate"]


def simulate(mode: str, scenario: Mapping[str, Any], policy_source: str | None = None, *,
             trace: bool = True) -> dict[str, Any]:
    """Validate ``scenario`` and run it; raises ``ScenarioError`` naming the bad field.

    ``policy_source``: the Python code of a policy of your own (``schedulers.custom``); it replaces the
    scenario's algorithm, the result's ``algorithm`` is "custom", and a mistake in the code is a
    ``PolicyCodeError`` (a ScenarioError of the field ``policy``) with the line.
    ``trace=False`` leaves out the steps of a built-in rule's run (benchmarks); with ``True`` a run past the mode's
    trace budget gets the compact trace, as its top-level ``trace`` field says."""
    entry = _mode(mode)
    if policy_source is not None:
        from .custom import run
        return run(entry.name, scenario, policy_source)
    return entry.run(scenario, trace=trace)


def algorithms(mode: str) -> dict[str, Algorithm]:
    """The algorithms of ``mode`` (a name in ``MODES``), article ones first, in menu order."""
    return dict(_mode(mode).algorithms)


def schema(mode: str) -> Schema:
    """The fields a scenario of ``mode`` may hold: types, required or optional, defaults, the algorithms that read
    them."""
    return _mode(mode).schema
