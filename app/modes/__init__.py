"""The lab's modes: one package per mode of the core, named after it (``app/modes/cpu/`` for ``schedulers.cpu``),
holding everything the lab does differently in that mode. The shared modules of the app reach a mode only here.

A mode's package holds two halves, so that the view-models never import Panel:

- its ``__init__`` defines ``MODE``, an ``AppMode``: the algorithm and rows it opens with, how its rows travel in a
  link, Compare's default pair, its own words (its name in the menu, its help, ...). ``model`` and ``query`` read it.
- its ``views`` module defines ``VIEWS``, a ``views.ModeViews``: what the step-through view, Compare, the quiz, your
  own policy and the exports draw in that mode. It is imported when the mode is first drawn.

The modes, in menu order, are the core's (``schedulers.modes.MODES``). A mode whose app code lives elsewhere (the
tests' toy mode) is registered as the core registers its package: ``register(name, "import.path")`` in Python, or
``LAB_APP_MODES=name=import.path`` for a fresh interpreter (a served app). A mode with no app code is an
``UnknownMode`` error, as is a name the core does not know.
"""
from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import import_module
from typing import Any

from schedulers.modes import MODES as CORE_MODES, from_environment as entries
from schedulers import schema

from ..text import fill

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
class Preset:
    """A ready-made setup the editor offers (a lesson: CPU's MLFQ gaming, the price of a switch): its words
    (``label``, ``summary``, by language), the scenario as the core reads it, and the run Compare shows beside it
    (its ``algorithm`` and parameters; None: none)."""
    words: Words
    scenario: Mapping[str, Any]
    compare: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class Card:
    """Parameters the editor folds into a card of their own (the engine's conventions): its title is the mode's word
    ``title``; ``preset``, one of them, presets the others, which left empty follow it (the word ``title.unset``)."""
    title: str
    parameters: tuple[str, ...]
    preset: str | None = None


@dataclass(frozen=True)
class AppMode:
    """One mode as the lab's view-models see it (``MODE`` of ``app/modes/<name>/``)."""
    name: str                                 # the core's name: links, JSON and the command line say it
    words: Words                              # its own words, by role: "label" (the menu), "help" (the header's
                                              # "?"), "question" (the quiz's, with {t} and {next}; "question on
                                              # a cpu" with {cpu} too, where several CPUs are asked), "chart" (the
                                              # exports', with {algorithm}), "api" (your policy's, where the core
                                              # offers one)
    algorithm: str                            # the algorithm it opens with
    rows: tuple[Mapping[str, str], ...]       # the rows it opens with, as typed
    link: Link
    compare: tuple[str, str]                  # Compare's default: the second beside the first, else the first
    item_text: Mapping[str, Callable[[Any], str]] = field(default_factory=dict)   # field -> how a core's value
                                              # of it (a seeded exercise's) is typed, where str() is not it
    presets: Mapping[str, Preset] = field(default_factory=dict)   # key (links, CSS) -> a setup the editor offers
    cards: tuple[Card, ...] = ()              # parameters folded into cards of their own in the editor; a choice's
                                              # options are its words "option.NAME.VALUE"

    def typed(self, item: Mapping[str, Any]) -> dict[str, str]:
        """A core scenario's item (a seeded exercise's, a preset's) as the editor's text; the fields a given list
        replaces (cost and count, for costs) are left empty, as a link leaves them."""
        replaced = {name for f in schema(self.name).item_fields if f.name in item for name in f.instead_of}
        return {**dict.fromkeys(replaced, ""), **{k: self.item_text.get(k, str)(v) for k, v in item.items()}}

    def say(self, lang: str, role: str, **values: object) -> str:
        """One of its own words, filled in as ``text.t`` fills the shared ones."""
        return fill(self.words[role], lang, **values)


ENVIRONMENT = "LAB_APP_MODES"   # name=import.path entries, as the core's SCHEDULERS_MODES: for a fresh interpreter
PACKAGES: dict[str, str] = {}   # name -> the app package of a mode registered from elsewhere (the tests' toy mode)
_found: dict[str, AppMode] = {}
_views: dict[str, Any] = {}


def package_of(name: str) -> str:
    """Where the app code of mode ``name`` is: ``app/modes/<name>/``, unless it is registered elsewhere."""
    return PACKAGES.get(name, f"{__name__}.{name}")


def register(name: str, package: str) -> None:
    """The app code of mode ``name`` is the package ``package`` (its ``MODE`` and its ``views.VIEWS``), not
    ``app/modes/<name>/``: a mode that lives elsewhere, as the core's ``MODES.register`` has it."""
    PACKAGES[name] = package
    unregister_found(name)


def unregister(name: str) -> None:
    PACKAGES.pop(name, None)
    unregister_found(name)


def unregister_found(name: str) -> None:
    """Forget what was imported for ``name`` (it is found again when next asked for)."""
    _found.pop(name, None)
    _views.pop(name, None)


def from_environment(text: str) -> dict[str, str]:
    """``LAB_APP_MODES``' entries, in the core's ``SCHEDULERS_MODES`` form (``name=import.path``, commas between)."""
    try:
        return entries(text)
    except ValueError:
        raise ValueError(f"{ENVIRONMENT} must hold name=import.path entries separated by commas, not {text!r}"
                         ) from None


PACKAGES.update(from_environment(os.environ.get(ENVIRONMENT, "")))


def names() -> tuple[str, ...]:
    """The lab's modes in menu order: the core's."""
    return tuple(CORE_MODES)


def _imported(name: str, module: str = ""):
    """The app package of mode ``name`` (or its ``module``); a mode the core does not have, or one without app
    code, is an ``UnknownMode``."""
    if name not in CORE_MODES:
        raise UnknownMode(f"no mode {name!r}: the core has {', '.join(CORE_MODES)}")
    package = package_of(name)
    try:
        imported = import_module(package)
    except ModuleNotFoundError as error:
        if error.name != package:
            raise
        raise UnknownMode(f"mode {name!r} has no app package: add app/modes/{name}/, or register one "
                          f"(app.modes.register, {ENVIRONMENT})") from None
    return import_module(f"{package}.{module}") if module else imported


def app_mode(name: str) -> AppMode:
    """The ``AppMode`` of the mode called ``name`` (its package's ``MODE``)."""
    if name not in _found:
        mode = _imported(name).MODE
        if mode.name != name:
            raise UnknownMode(f"the package {package_of(name)} holds the mode {mode.name!r}, not {name!r}")
        _found[name] = mode
    return _found[name]


def views_of(name: str):
    """The ``ModeViews`` of the mode called ``name`` (its package's ``views.VIEWS``, imported when first asked)."""
    if name not in _views:
        _views[name] = _imported(name, "views").VIEWS
    return _views[name]


def all_modes() -> list[AppMode]:
    return [app_mode(name) for name in names()]
