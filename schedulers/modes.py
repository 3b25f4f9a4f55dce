"""The lab's modes, one entry each: ``simulate``, ``algorithms``, ``schema`` and ``python -m schedulers`` reach a
mode only through ``MODES``. A new mode is a package that defines its ``MODE`` (``catalog.Mode``) and one entry
in ``PACKAGES`` here."""
from __future__ import annotations

from collections.abc import Iterator, Mapping
from importlib import import_module
from typing import Any

from .catalog import Mode
from .errors import ScenarioError
from .fields import describe

PACKAGES = ("cpu", "llm", "engine")   # in menu order; each is the package schedulers.<name>


class Registry(Mapping[str, Mode]):
    """Mode name -> its ``Mode``, the package imported when the mode is first looked up: a run of one mode (the
    command line's) imports no other. Iterating, ``len`` and ``in`` need only the names."""

    def __init__(self, names: tuple[str, ...]) -> None:
        self.names = names
        self.loaded: dict[str, Mode] = {}

    def __getitem__(self, name: str) -> Mode:
        if name not in self.names:
            raise KeyError(name)
        if name not in self.loaded:
            self.loaded[name] = import_module(f"{__package__}.{name}").MODE
        return self.loaded[name]

    def __contains__(self, name: object) -> bool:
        return name in self.names

    def __iter__(self) -> Iterator[str]:
        return iter(self.names)

    def __len__(self) -> int:
        return len(self.names)


MODES: Mapping[str, Mode] = Registry(PACKAGES)


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
