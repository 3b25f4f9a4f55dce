"""The lab's modes, one entry each: ``simulate``, ``algorithms``, ``schema``, ``python -m schedulers`` and every
shared module (the rule's lines, the trace's questions, your own policy, the quiz, the exports) reach a mode only
through ``MODES``, and never name one.

A mode is a package that defines its ``MODE`` (``catalog.Mode``); the registry maps its name to that package's
import path. The lab's own are ``PACKAGES``; more can be registered, from Python (``MODES.register``) or, so that a
fresh interpreter sees them too (``python -m schedulers NAME``), from the environment: ``SCHEDULERS_MODES`` holds
``name=import.path`` entries separated by commas (the tests' toy mode: ``toy=tests.toy_mode``).
"""
from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from importlib import import_module
from typing import Any

from .catalog import Mode
from .errors import ScenarioError
from .fields import describe

PACKAGES = {"cpu": "schedulers.cpu", "llm": "schedulers.llm", "engine": "schedulers.engine"}   # in menu order
ENVIRONMENT = "SCHEDULERS_MODES"


class Registry(Mapping[str, Mode]):
    """Mode name -> its ``Mode``, the package imported when the mode is first looked up: a run of one mode (the
    command line's) imports no other. Iterating, ``len`` and ``in`` need only the names."""

    def __init__(self, packages: Mapping[str, str]) -> None:
        self.packages = dict(packages)
        self.loaded: dict[str, Mode] = {}

    def register(self, name: str, package: str) -> None:
        """Add the mode ``name`` whose package is imported as ``package``, after the others in menu order."""
        if not name.isidentifier() or name in self.packages:
            raise ValueError(f"cannot register a mode {name!r}: not a plain name, or taken")
        self.packages[name] = package

    def unregister(self, name: str) -> None:
        del self.packages[name]
        self.loaded.pop(name, None)

    def __getitem__(self, name: str) -> Mode:
        if name not in self.packages:
            raise KeyError(name)
        if name not in self.loaded:
            mode = import_module(self.packages[name]).MODE
            if mode.name != name:
                raise ValueError(f"the package {self.packages[name]} holds the mode {mode.name!r}, not {name!r}")
            self.loaded[name] = mode
        return self.loaded[name]

    def __contains__(self, name: object) -> bool:
        return name in self.packages

    def __iter__(self) -> Iterator[str]:
        return iter(list(self.packages))

    def __len__(self) -> int:
        return len(self.packages)


def from_environment(text: str) -> dict[str, str]:
    """``SCHEDULERS_MODES``'s entries: ``name=import.path``, separated by commas (blanks ignored)."""
    found = {}
    for entry in filter(None, (part.strip() for part in text.split(","))):
        name, equals, package = (part.strip() for part in entry.partition("="))
        if not (equals and name and package):
            raise ValueError(f"{ENVIRONMENT}: {entry!r} is not name=import.path")
        found[name] = package
    return found


def registry() -> Registry:
    """The lab's modes, then those the environment names."""
    found = Registry(PACKAGES)
    for name, package in from_environment(os.environ.get(ENVIRONMENT, "")).items():
        found.register(name, package)
    return found


MODES = registry()


def mode(name: object) -> Mode:
    """The mode called ``name``; anything else is a ScenarioError naming the field ``mode``."""
    if not isinstance(name, str) or name not in MODES:
        raise ScenarioError("mode", f"must be one of {', '.join(MODES)}, not {describe(name)}")
    return MODES[name]


def shaped_for(mode: Mode, scenario: Mapping[str, Any]) -> bool:
    """``scenario`` has the shape of ``mode``'s (its schema): only the mode's top-level keys, and a list of the mode's
    items, each with only the mode's item fields. Values are not checked: that is the mode's reader's work."""
    schema = mode.schema
    items = scenario.get(schema.items)
    return set(scenario) <= set(schema.keys) and isinstance(items, list) and all(
        isinstance(item, Mapping) and set(item) <= set(schema.names) for item in items)


def meant_for(name: str, scenario: Mapping[str, Any]) -> str | None:
    """The one other mode a scenario that does not fit mode ``name`` is shaped for (a file of another mode, such as
    an LLM mode's tenants given to ``cpu`` or to ``engine``), or None (none, or more than one)."""
    if shaped_for(MODES[name], scenario):
        return None
    others = [other.name for other in MODES.values() if other.name != name and shaped_for(other, scenario)]
    return others[0] if len(others) == 1 else None
