"""Frames: what every step of a run shows, rendered once by Python as data the page holds.

A step changes a few pieces of the page: the counter and the narration, the queue (or the tenants' queues and
meters, and the fairness so far), the remaining-time bars, the events, the rule's highlighted lines, the results
table's marks, the Gantt chart's cursor or the dispatch strip's current cell. ``Frames`` names each piece that is
HTML a *slot* (a function step -> markup, from ``render`` and the mode's views) and each piece that is a value a
*mark* (step -> JSON: the cursor's time, the strip's position), and ``Frames.window`` renders them for the steps
around one step, so the page's pager (``app/pager.py``) can show any of those steps without asking Python. What a
mode shows is its own (``app/modes/<name>/views.py``: ``ModeViews.step_frames``, ``compare_frames``); this module
adds the counter and the rule's source, and pages them.

Neighbouring frames differ in small parts, so a window is stored by sharing: a slot's markup is cut into chunks at
element boundaries (``CHUNK``), each distinct chunk is sent once, a slot's content is a list of chunk numbers
(itself sent once however many frames show it), and a frame is one content number per slot. The window grows
from its step, three steps ahead for each behind, until its JSON reaches ``WINDOW_BYTES`` (``FIRST_WINDOW_BYTES``
for a run drawn anew; at least ``MIN_STEPS`` steps) or holds the whole run.
Nothing here decides anything about scheduling: the markup is ``render``'s and the modes', the positions are the
core's trace.
"""
from __future__ import annotations

import json
import re
from collections.abc import Callable, Hashable, Mapping
from typing import Any

from schedulers.trace import pending, step_aligner

from . import render
from .modes import views_of
from .text import t

# A window's size in bytes of JSON: the pager holds one. Large enough for a few hundred steps of a large run
# (about 300-900 bytes a step), so stepping and playing cross an edge rarely; small enough to send and parse in
# a few milliseconds. A run whose frames fit is sent whole.
WINDOW_BYTES = 400_000
# The first window of a run drawn anew is smaller: the page waits for it (its steps rendered, sent and parsed), while
# the refills come as the reader steps, a quarter of a window before its edge (not in a prerender: no refill there).
FIRST_WINDOW_BYTES = 100_000
AHEAD = 3   # steps rendered ahead of the window's step for each step behind it: stepping goes forward mostly
MIN_STEPS = 60   # however large one frame is (a dispatch strip of thousands of cells), a window holds this many
# Chunk boundaries: before each section, list item, table row, bar, source line and request of the engine's batch,
# so a frame that changes one bar or one highlighted line shares every other chunk with its neighbours.
CHUNK = re.compile(r'(?=<(?:section|li|tr|div class="bar-row"|span class="line|span class="req-bar)[ >])')

Slot = Callable[[int], str]
Mark = Callable[[int], Any]


class Frames:
    """The slots and marks of one run in one language, for steps 0 .. ``total`` - 1."""

    def __init__(self, total: int, slots: Mapping[str, Slot], marks: Mapping[str, Mark] | None = None,
                 mark_slots: Mapping[str, str] | None = None) -> None:
        self.total = total
        self.slots = dict(slots)
        self.marks = dict(marks or {})
        self.mark_slots = dict(mark_slots or {})  # a mark shown inside a slot's markup (the strip's position)

    def merged(self, other: Frames) -> Frames:
        """Both sets of slots and marks over the same steps (the lab's and the comparison's)."""
        return Frames(self.total, {**self.slots, **other.slots}, {**self.marks, **other.marks},
                      {**self.mark_slots, **other.mark_slots})

    def window(self, step: int, budget: int = WINDOW_BYTES) -> dict[str, Any]:
        """The frames of the steps around ``step``, grown until their JSON reaches ``budget`` bytes."""
        if not self.total:
            return {}
        step = max(0, min(step, self.total - 1))
        chunks: list[str] = []
        chunk_ids: dict[str, int] = {}
        contents: list[list[int]] = []
        content_ids: dict[str, int] = {}
        names = list(self.slots)
        frames: dict[int, list[int]] = {}
        size = 0

        def content(markup: str) -> int:
            nonlocal size
            known = content_ids.get(markup)
            if known is not None:
                return known
            ids = []
            for piece in CHUNK.split(markup):
                if not piece:
                    continue
                number = chunk_ids.get(piece)
                if number is None:
                    number = chunk_ids[piece] = len(chunks)
                    chunks.append(piece)
                    size += len(json.dumps(piece, ensure_ascii=False).encode()) + 1
                ids.append(number)
            contents.append(ids)
            size += sum(len(str(i)) + 1 for i in ids) + 2
            content_ids[markup] = len(contents) - 1
            return len(contents) - 1

        def add(k: int) -> None:
            nonlocal size
            frames[k] = [content(self.slots[name](k)) for name in names]
            size += sum(len(str(i)) + 1 for i in frames[k]) + 2 + 8 * len(self.marks)

        behind, ahead = step - 1, step + 1
        add(step)
        while (size < budget or ahead - behind - 1 < MIN_STEPS) and (behind >= 0 or ahead < self.total):
            for _ in range(AHEAD):
                if ahead < self.total:
                    add(ahead)
                    ahead += 1
            if behind >= 0:
                add(behind)
                behind -= 1
        start, end = behind + 1, ahead
        return {"start": start, "end": end, "total": self.total, "slots": names, "chunks": chunks,
                "contents": contents, "frames": [frames[k] for k in range(start, end)],
                "marks": {name: {"slot": self.mark_slots.get(name), "values": [value(k) for k in range(start, end)]}
                          for name, value in self.marks.items()}}


def keyed(key: Callable[[int], Hashable], slot: Slot) -> Slot:
    """``slot``, rendered once for each value of ``key`` (step -> what its markup depends on)."""
    drawn: dict[Hashable, str] = {}

    def markup(k: int) -> str:
        at = key(k)
        if at not in drawn:
            drawn[at] = slot(k)
        return drawn[at]
    return markup


def as_work_finishes(result: Mapping[str, Any], slot: Slot) -> Slot:
    """A results table's slot: its markup changes with the step only as rows finish (the figures are the whole
    run's), so it is drawn once per set of unfinished rows, not once per step (a window of a 100-task run drew the
    same table hundreds of times)."""
    return keyed(lambda k: frozenset(pending(result, k)), slot)


def window_bytes(window: Mapping[str, Any]) -> int:
    """What a window weighs on the wire: its JSON, as the page receives it."""
    return len(json.dumps(window, ensure_ascii=False, separators=(",", ":")).encode())


# --- the step-through view ------------------------------------------------------------------------------

def counter(result: Mapping[str, Any], lang: str) -> Slot:
    steps = result["steps"]
    return lambda k: render.step_counter(result, k, lang) + render.narration(steps[k], lang)


def lab_frames(result: Mapping[str, Any], lang: str, source: Slot) -> Frames:
    """The step-through view: counter, the rule's source (``source``: step -> its card), and the mode's pictures
    and results table (``ModeViews.step_frames``)."""
    steps = result["steps"]
    own = Frames(len(steps), {"counter": counter(result, lang), "source": source})
    return own.merged(views_of(result["mode"]).step_frames(result, lang))


def pending_text(lang: str, key: str) -> str:
    """What the counter says while no frame can show the step: ``step.pending``, its frame is on its way (a jump
    outside the window); ``step.link``, the page was drawn for another run than its address asks for."""
    return f'<p class="counter pending-step" aria-live="polite" aria-busy="true">{render.esc(t(lang, key))}</p>'


# --- compare -----------------------------------------------------------------------------------------------

def compare_frames(left: Mapping[str, Any], right: Mapping[str, Any] | None, lang: str,
                   headings: tuple[str, str]) -> Frames:
    """Compare's two sides at each of the lab's steps: the right side at the matching step
    (``schedulers.trace.step_aligner``), each side's picture drawn by its own mode's views, and the table of
    differences (the left mode's)."""
    def side(result: Mapping[str, Any], heading: str, at: Callable[[int], int]) -> Slot:
        shows, title = counter(result, lang), f"<h3>{render.esc(heading)}</h3>"
        return lambda k: title + shows(at(k))

    def same(k: int) -> int:   # the left side is the lab's own step
        return k

    total, mine = len(left["steps"]), views_of(left["mode"])
    built = Frames(total, {"compare.left": side(left, headings[0], same)}).merged(
        mine.compare_frames(left, "compare.left", same, total, lang, right))
    if right is None:
        return built
    align = step_aligner(left, right)
    theirs = Frames(total, {"compare.right": side(right, headings[1], align)}).merged(
        views_of(right["mode"]).compare_frames(right, "compare.right", align, total, lang, left))
    return built.merged(theirs).merged(Frames(total, {"compare.diff": mine.compare_diff(left, right, align, lang)}))
