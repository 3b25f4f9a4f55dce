"""What a mode's ``views`` module provides (``VIEWS``, a ``ModeViews``): everything the lab draws differently in
that mode. The shared views call these and never ask which mode they draw.

Every method takes the core's result (and a step, a language) and returns markup, frames or Panel objects; like
``render``, none of them decides anything about scheduling. What a step shows uses nothing after that step.
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from schedulers import schema

from ..frames import Frames, Slot
from ..render import indexes

Result = Mapping[str, Any]
Align = Callable[[int], int]   # the lab's step -> the step of a Compare side to show beside it


@dataclass(frozen=True)
class Cell:
    """One stretch of the exports' chart (``exports.chart_svg``): a row, [start, end), the text drawn in it, the
    colour of the task or tenant (None: idle), whose it is, for its tooltip, and how it is filled: "solid", "pale"
    (a CPU task's I/O) or "hatched" (a switch into it)."""
    row: int
    start: int
    end: int
    text: str
    colour: int | None
    who: str
    look: str = "solid"


@dataclass(frozen=True)
class Chart:
    rows: Sequence[str]      # one label a row, top to bottom
    cells: Sequence[Cell]
    end: int                 # the time axis' end


@dataclass(frozen=True)
class OtherSide:
    """A run Compare offers beside the lab's besides the mode's own algorithms (engine mode's router)."""
    words: Mapping[str, str]                       # its name in the menu, by language
    run: Callable[[Mapping[str, Any]], Result]     # the lab's scenario -> its run


class ModeViews(ABC):
    """The views of one mode; a subclass per mode, one instance (``VIEWS``)."""

    compares_with: frozenset[str] = frozenset()   # the other modes whose runs Compare can show beside this one's
    other_sides: Mapping[str, OtherSide] = {}     # algorithm-like key -> a run Compare offers beyond the menu
    own_parameters: frozenset[str] = frozenset()  # parameters its ``editor_cards`` draw, not the editor's fields
    on_request: tuple[str, ...] = ()              # item fields the editor shows when asked (a toggle) or given
    shown_if: Mapping[str, Callable[[Mapping[str, str]], bool]] = {}   # parameter -> when the editor shows it,
                                              # from the parameters' texts (CPU's queues: with several CPUs)

    # --- the editor ---------------------------------------------------------------------------------------
    def editor_cards(self, lab, errors: Callable[[Callable[[str], bool]], Any],
                     keep: Callable[[tuple, Callable[[], Any]], Any]) -> list:
        """What the editor shows for ``own_parameters`` (CPU's conventions card), under the other parameters;
        ``errors(owns)`` is the editor's pane of the core's messages for the fields ``owns`` accepts, and
        ``keep(key, make)`` the object the editor's last layout had under ``key`` (else ``make()``): a widget kept
        from one layout to the next keeps a choice made while the editor changes."""
        return []

    # --- step through -------------------------------------------------------------------------------------
    @abstractmethod
    def step_views(self, lab, stepping) -> list:
        """The step's pictures between the counter and the results table: the pager's slots (``stepping.slot``)
        and any chart whose marks it moves; laid out once per mode."""

    @abstractmethod
    def step_frames(self, result: Result, lang: str) -> Frames:
        """The slots and marks of those pictures and of the results table (``metrics``) at every step."""

    @abstractmethod
    def columns(self, result: Result) -> Sequence[str]:
        """The results table's columns for this run (after the task's or tenant's name), by their names in the
        result; their words are ``text.LABELS``' and ``text.SHORT``'s."""

    # --- compare ------------------------------------------------------------------------------------------
    @abstractmethod
    def compare_frames(self, result: Result, owner: str, at: Align, total: int, lang: str,
                       other: Result | None) -> Frames:
        """A Compare side's picture at each of the lab's ``total`` steps: ``owner`` is "compare.left" or
        "compare.right", ``at`` the step of ``result`` to show, ``other`` the run on the other side (None: none)."""

    @abstractmethod
    def compare_view(self, result: Result, owner: str, step: int, lab, stepping) -> list:
        """That picture on the page: the pager's slots, or a chart whose marks it moves."""

    @abstractmethod
    def compare_diff(self, left: Result, right: Result, align: Align, lang: str) -> Slot:
        """The differences of two runs (the left one this mode's) at each of the lab's steps."""

    # --- the quiz, your own policy, the exports ---------------------------------------------------------
    def places(self, result: Result) -> Mapping[str, int]:
        """Every name the run's steps show -> the position of its item (its colour)."""
        return indexes(result[schema(result["mode"]).items])

    @abstractmethod
    def known_state(self, result: Result, step: int, lang: str, presenter: bool) -> list:
        """What a student may know before step ``step + 1`` is revealed: the state at ``step``, no future."""

    @abstractmethod
    def preview(self, result: Result, lang: str, presenter: bool):
        """A run of your own policy at a glance: its whole chart and results."""

    @abstractmethod
    def chart(self, result: Result, lang: str) -> Chart:
        """The run as the exports' chart draws it."""
