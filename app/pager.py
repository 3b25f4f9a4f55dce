"""The step controls as a pager in the page: Python prepares every step's frame (``app/frames.py``), the browser
shows them.

``Pager`` is a Panel ``JSComponent``: First / Prev / Next / Last, Play with its speed, the step slider and the
keys (← → Space Home End) change the step in the browser, where the pager swaps in the frame's prepared markup
(into the ``FrameSlot`` components placed across the page) and moves the Gantt cursors (the Bokeh ``Span`` and
``BoxAnnotation``, found by id in the page's document). Only then is Python told the step, for the address bar,
the quiz and the exports; nothing is rendered again for it. The JavaScript decides nothing and renders nothing
Python did not prepare: it picks frame k of the window, joins its chunks, and sets the marks it is given.

``Stepping`` is the Python side: it builds the frames when the run, the language or the view changes, sends the
window around the current step (``Frames.window``), refills it when the step nears an edge or jumps outside it
(the only step that waits for Python: the page shows "Loading this step…" meanwhile, never another step's frame),
and keeps ``Lab.step``/``playing``/``speed`` and the pager's in step: Python's own changes of the step are counted
jumps (``target``), so a step the page took meanwhile neither undoes one nor is mistaken for its echo.

A page drawn without Python behind it (the static site's prerender: ``Stepping.static``) steps the run it was drawn
for alone, when its address asks for that run (``static_queries``; another run waits for Python and says so): it
keeps ``?step=`` in the address (``history.replaceState``), marks ``<html>`` with ``lab-stepping`` while it steps
(the site's boot lets the step controls through and holds back the rest), and leaves the step it reached to the
pager Python draws when it takes over.
"""
from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any, Protocol

import param
from panel.custom import JSComponent

from . import frames
from .compare import comparable
from .model import SPEEDS, LabView
from .panes import STYLESHEETS
from .text import side_label, t

# The pager's JavaScript (an ES module each, the components' `_esm`: Panel reads a path's file, and a missing one
# fails loudly) and its stylesheet beside the lab's (each component draws in its own shadow root): files beside this
# one, package data (pyproject.toml), so the static site's wheel carries them.
HERE = Path(__file__).parent
PAGER_CSS = (HERE / "pager.css").read_text(encoding="utf-8")


class Pager(JSComponent):
    """First / Prev / Next / Last, Play and its speed, the slider and the keys, stepping through ``window``."""

    group = param.String(constant=True, doc="the key its slots share with it on the page")
    target = param.List(default=[0, 0], doc="[jump, step]: Python's jumps are counted, so the page can tell "
                                            "them from the echo of its own steps, and Python a stale step")
    playing = param.Boolean(default=False)
    speed = param.Number(default=1.0)
    speeds = param.List(default=list(SPEEDS))
    window = param.Dict(default={}, doc="Frames.window: the frames of the steps around the current one")
    labels = param.Dict(default={}, doc="button, slider and status texts in the page's language")
    cursors = param.Dict(default={}, doc="owner -> {mark, span, box}: a Gantt chart's cursor and dimmed future")
    static_queries = param.List(default=[], doc="drawn without Python (a prerender): the address queries, without "
                                                "step and lang, that show this run")

    _esm = HERE / "pager.js"


class FrameSlot(JSComponent):
    """One place on the page that shows a slot of the current frame (the pager fills it)."""

    group = param.String(constant=True)
    slot = param.String(constant=True)

    _esm = HERE / "frame_slot.js"


def labels(lang: str) -> dict[str, str]:
    words = {key: t(lang, key) for key in ("first", "prev", "next", "last", "play", "pause", "speed", "step", "keys")}
    return {**words, "pending": frames.pending_text(lang, "step.pending"),
            "link": frames.pending_text(lang, "step.link")}


class Cursored(Protocol):
    """A chart whose cursor the pager moves (CPU mode's Gantt chart): a Bokeh ``Span`` and the ``BoxAnnotation``
    that dims the future, both moved to a mark's value."""
    cursor: Any
    dim: Any


class Stepping(LabView):
    """The pager of one lab: its frames follow the run, the language and the view on screen; its step is the lab's."""

    static = param.Boolean(default=False, doc="the page is drawn without Python behind it (the static site's "
                                              "prerender): the pager steps its frames alone")

    def __init__(self, lab, teaching, **params) -> None:
        super().__init__(lab, **params)
        self.teaching = teaching
        self._browser = False   # while the page's own step is applied: no jump is sent back
        self.pager = Pager(group=f"lab-{uuid.uuid4().hex[:12]}", target=[0, lab.step], speed=lab.speed,
                           playing=lab.playing, labels=labels(lab.lang), stylesheets=[*STYLESHEETS, PAGER_CSS],
                           sizing_mode="stretch_width", margin=(4, 4))
        self._frames: frames.Frames | None = None
        self.pager.on_msg(self._told)
        self.pager.param.watch(lambda event: setattr(lab, "playing", event.new), "playing")
        self.pager.param.watch(self._browser_speed, "speed")
        lab.param.watch(self._lab_step, "step")
        lab.param.watch(self.rebuild, ["result", "lang", "policy_code"])
        self.param.watch(self.rebuild, "static")
        teaching.param.watch(self.rebuild, "view")
        teaching.param.watch(self._opened, "features")
        self.rebuild()

    # --- the page's pieces ---------------------------------------------------------------------------------
    def slot(self, name: str, **kwargs) -> FrameSlot:
        return FrameSlot(group=self.pager.group, slot=name, stylesheets=[*STYLESHEETS, PAGER_CSS],
                         **{"sizing_mode": "stretch_width", "margin": (4, 4), **kwargs})

    def follow(self, owner: str, mark: str, chart: Cursored | None) -> None:
        """Let the pager move ``chart``'s cursor to the ``mark`` of each frame (None: ``owner`` has none now)."""
        cursors = {k: v for k, v in self.pager.cursors.items() if k != owner}
        if chart is not None:
            cursors[owner] = {"mark": mark, "span": chart.cursor.id, "box": chart.dim.id}
        self.pager.cursors = cursors

    def _opened(self, event) -> None:
        """Compare, opened (it is built when first shown): its sides are slots of this pager."""
        compare = event.new.get("compare")
        if compare is not None and compare.stepping is None:
            compare.stepping = self
            compare.param.watch(lambda *_: self.rebuild() if self.teaching.view == "compare" else None,
                                ["result", "error"])
            self.rebuild()

    # --- frames --------------------------------------------------------------------------------------------
    def rebuild(self, *_) -> None:
        """New frames for what is on screen: the lab's (step through, compare) and the comparison's; none for the
        views that keep Python (the quiz must not hold the future in the page)."""
        lab, view = self.lab, self.teaching.view
        if not lab.result or view not in ("lab", "compare"):
            self._frames = None
            self.pager.param.update(window={}, labels=labels(lab.lang))
            return
        built = frames.lab_frames(lab.result, lab.lang, self.teaching.source.card)
        compare = self.teaching.features.get("compare")
        if view == "compare" and compare is not None:
            right = compare.result
            right = right if comparable(lab.result, right) else None
            lang = lab.lang
            headings = (t(lang, "compare.left", name=side_label(lab.result, lang)),
                        t(lang, "compare.right", name=side_label(right, lang) if right else ""))
            built = built.merged(frames.compare_frames(lab.result, right, lang, headings))
        self._frames = built
        drawn = ["", "&".join(p for p in lab.link().split("&") if not p.startswith(("step=", "lang=")))]
        # A prerender's window is all the page can step before Python: the whole budget.
        budget = frames.WINDOW_BYTES if self.static else frames.FIRST_WINDOW_BYTES
        self.pager.param.update(window=built.window(lab.step, budget), labels=labels(lab.lang),
                                static_queries=drawn if self.static else [])

    def _ensure(self, step: int) -> None:
        """Refill the window around ``step`` when it is outside, or within a quarter of an edge that is not the
        run's own."""
        if self._frames is None:
            return
        window = self.pager.window
        start, end = window.get("start", 0), window.get("end", 0)
        margin = (end - start) // 4
        if not start <= step < end or (step - start < margin and start > 0) or \
                (end - step <= margin and end < self._frames.total):
            self.pager.window = self._frames.window(step)

    # --- the step, both ways ---------------------------------------------------------------------------------
    def _told(self, event) -> None:
        """The page stepped: follow it, unless it chose before Python's own latest jump (then it shows that)."""
        data = event.data if isinstance(event.data, dict) else {}
        jump, step = self.pager.target[0], data.get("step")
        if data.get("jump") != jump or not isinstance(step, int):
            return
        self._browser = True
        try:
            self.lab.go(step)
        finally:
            self._browser = False
        self._ensure(self.lab.step)
        self.pager.target = [jump, self.lab.step]   # a pager drawn anew starts here; the page ignores it

    def _lab_step(self, event) -> None:
        self._ensure(event.new)
        # param.update reports a step set to its own value (a rerun keeps it): that is no jump.
        if not self._browser and event.new != event.old:
            self.pager.target = [self.pager.target[0] + 1, event.new]

    def _browser_speed(self, event) -> None:
        if event.new in self.lab.param.speed.objects:
            self.lab.speed = event.new
