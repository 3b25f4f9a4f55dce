"""The lab's modes: one package per mode of the core, named after it (``app/modes/cpu/`` for ``schedulers.cpu``),
holding everything the lab does differently in that mode. The shared modules of the app reach a mode only here.

A mode's package holds two halves, so that the view-models never import Panel:

- its ``__init__`` defines ``MODE``, an ``AppMode``: the algorithm and rows it opens with, how its rows travel in a
  link, Compare's default pair, its own words (its name in the menu, its help, ...). ``model`` and ``query`` read it.
- its ``views`` module defines ``VIEWS``, a ``views.ModeViews``: what the step-through view, Compare, the quiz, your
  own policy and the exports draw in that mode. It is imported when the mode is first drawn.

The modes, in menu order, are the core's (``schedulers.modes.MODES``). A mode whose app code lives elsewhere (a
test's) is ``register``ed instead of found by its name; a mode with neither is an ``UnknownMode`` error, as is a
name the core does not know.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import import_module
from typing import Any

from schedulers.modes import MODES as CORE_MODES

Words = Mapping[str, Mapping[str, str]]   # role -> language -> text


class UnknownMode(LookupError):
    """A mode the core does not have, or one the app has no package for."""


@dataclass(frozen=True)
class Link:
    """How a mode's rows travel in a shared link (``app.query``): its rows as the text of the link's one list, and
    back (``ValueError`` for what cannot be read)."""
    encode: Callable[[Sequence[Mapping[str, str]]], str]
    decode: Callable[[str], list[dict[str, str]]]


@dataclass(frozen=True)
class AppMode:
    """One mode as the lab's view-models see it (``MODE`` of ``app/modes/<name>/``)."""
    name: str                                 # the core's name: links, JSON and the command line say it
    words: Words                              # its own words, by role: "label" (the menu), "help" (the header's
                                              # "?"), "add" (the editor's button), "question" (the quiz's, with
                                              # {t} and {next}), "api" (your policy's), "chart" ({algorithm})
    algorithm: str                            # the algorithm it opens with
    rows: tuple[Mapping[str, str], ...]       # the rows it opens with, as typed
    link: Link
    compare: tuple[str, str]                  # Compare's default: the second beside the first, else the first
    item_text: Mapping[str, Callable[[Any], str]] = field(default_factory=dict)   # field -> how a core's value
                                              # of it (a seeded exercise's) is typed, where str() is not it

    def typed(self, item: Mapping[str, Any]) -> dict[str, str]:
        """A core scenario's item (a seeded exercise's) as the editor's text."""
        return {k: self.item_text.get(k, str)(v) for k, v in item.items()}

    def say(self, lang: str, role: str, **values: object) -> str:
        """One of its own words, filled in like ``text.t``."""
        entry = self.words[role]
        template = entry.get(lang, entry["en"])
        return template.format(**values) if values else template


REGISTERED: dict[str, tuple[AppMode, Callable[[], Any]]] = {}   # name -> its MODE and a maker of its VIEWS
_found: dict[str, AppMode] = {}
_views: dict[str, Any] = {}


def register(mode: AppMode, views: Callable[[], Any]) -> None:
    """Give the app a mode whose code is not in ``app/modes/<name>/`` (a test's fourth mode): its ``AppMode`` and a
    function that makes its ``ModeViews`` (called when the mode is first drawn)."""
    REGISTERED[mode.name] = (mode, views)
    _found.pop(mode.name, None)
    _views.pop(mode.name, None)


def names() -> tuple[str, ...]:
    """The lab's modes in menu order: the core's."""
    return tuple(CORE_MODES)


def _package(name: str):
    if name not in CORE_MODES:
        raise UnknownMode(f"no mode {name!r}: the core has {', '.join(CORE_MODES)}")
    try:
        return import_module(f"{__name__}.{name}")
    except ModuleNotFoundError as error:
        if error.name != f"{__name__}.{name}":
            raise
        raise UnknownMode(f"mode {name!r} has no app package: add app/modes/{name}/ or call app.modes.register"
                          ) from None


def app_mode(name: str) -> AppMode:
    """The ``AppMode`` of the mode called ``name``."""
    if name in REGISTERED:
        return REGISTERED[name][0]
    if name not in _found:
        _found[name] = _package(name).MODE
    return _found[name]


def views_of(name: str):
    """The ``ModeViews`` of the mode called ``name`` (its package's ``views`` module, imported now if not yet)."""
    if name not in _views:
        if name in REGISTERED:
            _views[name] = REGISTERED[name][1]()
        else:
            _package(name)
            _views[name] = import_module(f"{__name__}.{name}.views").VIEWS
    return _views[name]


def all_modes() -> list[AppMode]:
    return [app_mode(name) for name in names()]
