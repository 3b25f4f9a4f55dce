"""What every mode's views draw with: HTML fragments (always escaped), the step counter, bars, chips and the results
table. Each mode's own pictures are its views' (``app/modes/<name>/views.py``), built from these.

Every function here takes the core's result (the JSON trace of docs/trace-format.md) plus the current step
and language, and returns markup; none of them decides anything about scheduling. Names are user text: they pass
through ``esc`` into HTML (the CPU Gantt chart gives them to Bokeh only as data fields of plain-text tooltips and as
axis label overrides, drawn on the canvas as text), never as markup.
"""
from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from typing import Any

from schedulers import MODES
from schedulers.trace import span

from .text import TEXT, label, short_label, t

# Okabe & Ito (2008), the colour-blind-safe qualitative palette, without black (kept for text and the cursor).
PALETTE = ("#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7")
DARK_ON = {"#E69F00", "#56B4E9", "#009E73", "#F0E442", "#CC79A7"}  # fills where black text reads best
IDLE_COLOUR = "#BBBBBB"


def esc(value: object) -> str:
    return html.escape(str(value), quote=True)


def colour(index: int) -> str:
    """The colour of the index-th task or tenant (input order), the same in every view."""
    return PALETTE[index % len(PALETTE)]


def ink(fill: str) -> str:
    return "#000" if fill in DARK_ON else "#fff"


def number(value: object) -> str:
    """A JSON number as a teacher writes it: integers bare, others to two decimals (exact forms live in ``exact``)."""
    if isinstance(value, bool) or value is None:
        return "—" if value is None else str(value)
    if isinstance(value, float):
        return f"{value:.0f}" if value.is_integer() else f"{value:.2f}"
    return str(value)


def chip(name: str, index: int) -> str:
    fill = colour(index)
    return f'<span class="chip" style="background:{fill};color:{ink(fill)}" title="{esc(name)}">{esc(name)}</span>'


def section(title: str, body: str, cls: str = "") -> str:
    return f'<section class="card {cls}"><h3>{esc(title)}</h3>{body}</section>'


def indexes(items: Sequence[Mapping[str, Any]]) -> dict[str, int]:
    return {item["name"]: i for i, item in enumerate(items)}


def why(step: Mapping[str, Any], lang: str) -> str:
    sentence = step.get("why") or {}
    return sentence.get(lang) or sentence.get("en", "")


def step_counter(result: Mapping[str, Any], index: int, lang: str) -> str:
    """"step 6/16 · t=4 → 5" (a CPU slice), "t=6" (an LLM instant) or "before t=0" (the initial state), as
    ``trace.span`` says, plus the kind of an LLM step (dispatch, join, idle reset) as its own word."""
    total, step = len(result["steps"]), result["steps"][index]
    start, end = span(result, index)
    when = (t(lang, "step.before", t=end) if start is None else t(lang, "step.time", t=end) if start == end
            else t(lang, "step.span", start=start, end=end))
    kind = step.get("kind")
    kind_text = ""
    if kind:
        name = t(lang, f"kind.{kind}") if f"kind.{kind}" in TEXT else kind
        kind_text = f' <span class="kind kind-{esc(kind)}">{esc(name)}</span>'
    return (f'<p class="counter" aria-live="polite"><strong>{esc(t(lang, "step.counter", k=index + 1, n=total))}'
            f'</strong> <span class="muted">{esc(when)}</span>'
            f'{kind_text}</p>')


def narration(step: Mapping[str, Any], lang: str) -> str:
    return f'<p class="why" aria-live="polite">{esc(why(step, lang))}</p>'


def error_note(message: str) -> str:
    return f'<p class="error field-error" role="alert">{esc(message)}</p>' if message else ""


def bar_row(name: str, index: int, value: float, top: float, text: str, marker: float | None = None) -> str:
    """One labelled bar in the item's colour, ``value`` out of ``top``; ``marker`` draws a line (V)."""
    line = f'<span class="vline" style="left:{100 * marker / top:.1f}%"></span>' if marker is not None else ""
    return (f'<div class="bar-row"><span class="bar-name">{esc(name)}</span><span class="bar-track">'
            f'<span class="bar" style="width:{100 * max(value, 0) / top:.1f}%;background:{colour(index)}"></span>'
            f'{line}</span><span class="bar-value">{esc(text)}</span></div>')


def pending_mark(pending: bool, lang: str, key: str = "metrics.pending") -> str:
    """A short visible mark for narrow screens; screen readers hear the words ``key`` instead."""
    if not pending:
        return ""
    return (f'<span class="pending-mark" aria-hidden="true">*</span>'
            f'<span class="sr-only"> ({esc(t(lang, key).lstrip("* "))})</span>')


def pending_legend(lang: str) -> str:
    return f'<p class="muted legend" aria-hidden="true">* {esc(t(lang, "metrics.pending"))}</p>'


def result_columns(result: Mapping[str, Any], leaving_out: Sequence[str] = ()) -> list[str]:
    """The columns of a result's rows as the core declares them (its mode's ``results``: those this result has),
    after the row's name; a view leaves out those it does not show."""
    return [column.name for column in MODES[result["mode"]].results.shown(result)
            if column.name != "name" and column.name not in leaving_out]


def results_table(result: Mapping[str, Any], columns: Sequence[str],
                  rows: Sequence[tuple[str, int, bool, Sequence[str]]], lang: str, foot: Sequence[str] | None = None,
                  note: str = "") -> str:
    """The whole run's results as a real table, headed by what a row is (the core's ``results.row``: task, tenant)
    and ``columns``: rows are (name, colour index, not finished yet, cell texts)."""
    first = MODES[result["mode"]].results.row
    head = f'<th scope="col">{esc(label(lang, first))}</th>' + "".join(
        f'<th scope="col"><span class="long">{esc(label(lang, c))}</span>'
        f'<span class="short" aria-hidden="true">{esc(short_label(lang, c))}</span></th>' for c in columns)
    body = "".join(f'<tr class="{"pending" if pending else "done"}"><th scope="row">{chip(name, index)}'
                   f'{pending_mark(pending, lang)}</th>{"".join(f"<td>{esc(c)}</td>" for c in cells)}</tr>'
                   for name, index, pending, cells in rows)
    tail = ""
    if foot is not None:
        tail = (f'<tfoot><tr><th scope="row">{esc(t(lang, "metrics.average"))}</th>'
                f'{"".join(f"<td>{esc(c)}</td>" for c in foot)}</tr></tfoot>')
    return (f'<section class="card"><div class="table-wrap"><table class="metrics"><caption>{esc(t(lang, "metrics"))}'
            f'</caption><thead><tr>{head}</tr></thead><tbody>{body}</tbody>{tail}</table></div>'
            f'{pending_legend(lang)}{note}</section>')


def exact(step_or_result: Mapping[str, Any], key: str, name: str | None = None) -> str | None:
    """The ``p/q`` companion the core gives for an exact value, when it gives one."""
    value = (step_or_result.get("exact") or {}).get(key)
    if name is not None and isinstance(value, Mapping):
        value = value.get(name)
    return value if isinstance(value, str) else None


def exact_number(value: object, fraction: str | None) -> str:
    """``2.67 (8/3)`` when the exact value is not a whole number, else the number alone."""
    return f"{number(value)} ({fraction})" if fraction and "/" in fraction else number(value)
