"""What the lab draws: HTML fragments (always escaped) and the Bokeh Gantt chart.

Every function here takes the core's result (the JSON trace of docs/trace-format.md) plus the current step
and language, and returns markup or a figure; none of them decides anything about scheduling. Names are user
text: they pass through ``esc`` into HTML and are given to Bokeh only as data fields of plain-text tooltips
and as axis label overrides (drawn on the canvas as text), never as markup.
"""
from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from itertools import groupby
from typing import Any

from bokeh.models import (BasicTicker, BasicTickFormatter, BoxAnnotation, ColumnDataSource, CustomJS,
                          FactorRange, HoverTool, Span)
from bokeh.plotting import figure
from bokeh.transform import dodge

from schedulers import schema
from schedulers.cpu.steps import span as cpu_span
from schedulers.llm.steps import dispatched_so_far, fairness_so_far
from schedulers.trace import pending, span

from .text import TEXT, t

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


# --- CPU mode -----------------------------------------------------------------------------------------

def slices(timeline: Sequence[str | None]) -> list[tuple[str | None, int, int]]:
    """Runs of the same entry in the timeline: (task or None for idle, start, end)."""
    runs: list[tuple[str | None, int, int]] = []
    start = 0
    for name, run in groupby(timeline):
        end = start + sum(1 for _ in run)
        runs.append((name, start, end))
        start = end
    return runs


MIN_BAR = 4   # pixels: the narrowest a slice is drawn
# The Gantt chart's tick count for its width: one label per ``label`` pixels, at most ``most`` (one per time unit).
TICKS_JS = "ticker.desired_num_ticks = Math.max(2, Math.min(most, Math.floor(cb_obj.inner_width / label)))"


class Gantt:
    """The Bokeh timeline of one run; ``move`` shifts the cursor and the dimmed future without a redraw."""

    def __init__(self, result: Mapping[str, Any], lang: str, presenter: bool) -> None:
        tasks = result["tasks"]
        where = indexes(tasks)
        idle = t(lang, "idle")
        while idle in where:  # a task may be called "idle": the idle row's label must still be unique
            idle += " "
        keys = [task["name"] for task in tasks] + [idle]  # drawn on the canvas as text, never markup
        self.end = max(len(result["timeline"]), 1)
        data: dict[str, list] = {k: [] for k in ("left", "right", "middle", "row", "fill", "name", "span")}
        for name, start, end in slices(result["timeline"]):
            data["left"].append(start)
            data["right"].append(end)
            data["row"].append(name if name is not None else idle)
            data["fill"].append(colour(where[name]) if name is not None else IDLE_COLOUR)
            data["name"].append(name if name is not None else t(lang, "idle"))
            data["span"].append(t(lang, "step.span", start=start, end=end))
            data["middle"].append((start + end) / 2)
        font = "18pt" if presenter else "11pt"
        height = 60 + (64 if presenter else 40) * len(keys)
        # Padding above the first row (half a row): its arrival marker sits on the row's top edge.
        rows = FactorRange(*reversed(keys), range_padding=0.5, range_padding_units="absolute")
        # ... and room left of t=0 (a fortieth of the run: wider than half a marker at 280 px), for a marker there.
        plot = figure(y_range=rows, x_range=(-self.end / 40, self.end), height=height,
                      sizing_mode="stretch_width", toolbar_location=None, tools="",
                      x_axis_label=t(lang, "gantt.time"), title=t(lang, "gantt"))
        bars = plot.hbar(y="row", left="left", right="right", height=0.72, fill_color="fill",
                         line_color="white", source=ColumnDataSource(data))
        # Every slice at least MIN_BAR pixels wide, however long the run: a one-unit slice of a million-unit run
        # would otherwise be a fraction of a pixel (a slice of a hundredth of the run or more is wide enough).
        short = ColumnDataSource({k: [v for v, left, right in zip(values, data["left"], data["right"])
                                      if (right - left) * 100 < self.end] for k, values in data.items()})
        least = plot.rect(x="middle", y="row", width=MIN_BAR, width_units="screen", height=0.72, fill_color="fill",
                          line_alpha=0, source=short)
        # Tooltips as (label, @field) pairs: Bokeh shows field values as text, so a name stays a name.
        plot.add_tools(HoverTool(renderers=[bars, least], tooltips=[(t(lang, "gantt.task"), "@name"),
                                                                    (t(lang, "gantt.slice"), "@span")]))
        arrivals = ColumnDataSource({"x": [task["arrival"] for task in tasks], "row": keys[:-1],
                                     "fill": [colour(i) for i in range(len(tasks))]})
        plot.scatter(x="x", y=dodge("row", 0.42, range=plot.y_range), marker="inverted_triangle",
                     size=16 if presenter else 11, fill_color="fill", line_color="black", source=arrivals)
        # On the overlay layer: moving them repaints that layer alone, not every bar (the pager moves them per step).
        self.dim = BoxAnnotation(left=0, right=self.end, fill_color="white", fill_alpha=0.65, line_alpha=0,
                                 level="overlay")
        self.cursor = Span(location=0, dimension="height", line_color="black", line_width=3, level="overlay")
        plot.add_layout(self.dim)
        plot.add_layout(self.cursor)
        # Whole time units, never 0.5e+5: as many labels as fit the chart's width at the widest label's length
        # (the browser counts them again whenever the chart is resized).
        ticker = BasicTicker(min_interval=1, desired_num_ticks=min(self.end, 10))
        plot.xaxis.ticker = ticker
        plot.xaxis.formatter = BasicTickFormatter(use_scientific=False)
        # A label's room: its digits and two more for the gap, a digit 0.62 of the font's pixels, and a third more
        # because the ticker may place up to that many more ticks than it is asked for.
        label_px = (len(str(self.end)) + 2) * (24 if presenter else 15) * 0.62 * 1.3
        plot.js_on_change("inner_width", CustomJS(args={"ticker": ticker, "most": min(self.end, 20), "label": label_px},
                                                  code=TICKS_JS))
        for axis in (plot.xaxis, plot.yaxis):
            axis.major_label_text_font_size = font
            axis.axis_label_text_font_size = font
        plot.title.text_font_size = font
        plot.ygrid.grid_line_color = None
        plot.min_border_left = 10
        self.plot = plot

    def move(self, time: int) -> None:
        self.cursor.location = time
        self.dim.left = time


def ready_queue(step: Mapping[str, Any], where: Mapping[str, int], lang: str) -> str:
    running = step.get("running")
    nothing = "running.before" if cpu_span(step)[0] is None else "running.none"
    run_html = chip(running, where[running]) if running is not None else esc(t(lang, nothing))
    queue = step.get("ready")
    if queue is None:
        listing = f'<p class="muted">{esc(t(lang, "not.recorded"))}</p>'
    elif queue:
        listing = f'<ol class="queue">{"".join(f"<li>{chip(name, where[name])}</li>" for name in queue)}</ol>'
    else:
        listing = f'<p class="muted">{esc(t(lang, "ready.empty"))}</p>'
    body = (f'<p><span class="label">{esc(t(lang, "running"))}:</span> {run_html}</p>'
            f'<p class="label">{esc(t(lang, "ready"))}:</p>{listing}')
    return section(t(lang, "running") + " / " + t(lang, "ready"), body)


def remaining_bars(step: Mapping[str, Any], tasks: Sequence[Mapping[str, Any]], lang: str) -> str:
    remaining = step.get("remaining")
    if remaining is None:
        return section(t(lang, "remaining"), f'<p class="muted">{esc(t(lang, "not.recorded"))}</p>')
    longest = max((task["burst"] for task in tasks), default=1) or 1
    rows = [bar_row(task["name"], i, remaining.get(task["name"], task["burst"]), longest,
                    f'{remaining.get(task["name"], task["burst"])}/{task["burst"]}') for i, task in enumerate(tasks)]
    return section(t(lang, "remaining"), "".join(rows))


def bar_row(name: str, index: int, value: float, top: float, text: str, marker: float | None = None) -> str:
    """One labelled bar in the item's colour, ``value`` out of ``top``; ``marker`` draws a line (V)."""
    line = f'<span class="vline" style="left:{100 * marker / top:.1f}%"></span>' if marker is not None else ""
    return (f'<div class="bar-row"><span class="bar-name">{esc(name)}</span><span class="bar-track">'
            f'<span class="bar" style="width:{100 * max(value, 0) / top:.1f}%;background:{colour(index)}"></span>'
            f'{line}</span><span class="bar-value">{esc(text)}</span></div>')


def event_list(step: Mapping[str, Any], lang: str) -> str:
    items = []
    for event in step.get("events") or []:
        kind, task = event.get("kind", ""), event.get("task")
        key = f"event.{kind}"
        try:
            sentence = t(lang, key, task=task if task is not None else "")
        except KeyError:
            sentence = t(lang, "event.other", kind=kind, task=task if task is not None else "")
        items.append(f"<li>{esc(sentence)}</li>")
    if not items:
        return section(t(lang, "events"), f'<p class="muted">{esc(t(lang, "events.none"))}</p>')
    body = f'<ul class="events">{"".join(items)}</ul>'
    return section(t(lang, "events"), body)


def pending_mark(pending: bool, lang: str, key: str = "metrics.pending") -> str:
    """A short visible mark for narrow screens; screen readers hear the words ``key`` instead."""
    if not pending:
        return ""
    return (f'<span class="pending-mark" aria-hidden="true">*</span>'
            f'<span class="sr-only"> ({esc(t(lang, key).lstrip("* "))})</span>')


def pending_legend(lang: str) -> str:
    return f'<p class="muted legend" aria-hidden="true">* {esc(t(lang, "metrics.pending"))}</p>'


def results_table(first: str, columns: Sequence[str], rows: Sequence[tuple[str, int, bool, Sequence[str]]],
                  lang: str, foot: Sequence[str] | None = None, note: str = "") -> str:
    """The whole run's results as a real table: rows are (name, colour index, not finished yet, cell texts)."""
    head = f'<th scope="col">{esc(t(lang, "col." + first))}</th>' + "".join(
        f'<th scope="col"><span class="long">{esc(t(lang, "col." + c))}</span>'
        f'<span class="short" aria-hidden="true">{esc(t(lang, "short." + c))}</span></th>' for c in columns)
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


def cpu_metrics(result: Mapping[str, Any], step: int, lang: str) -> str:
    tasks = result["tasks"]
    columns = ["arrival", "burst", "completion", "turnaround", "waiting", "response"]
    columns += [c for c in schema("cpu").optional if any(c in task for task in tasks)]
    if "deadline" in columns:
        columns.append("missed")
    left = pending(result, step)

    def cell(task: Mapping[str, Any], column: str) -> str:
        if column == "missed":
            return t(lang, "yes" if task.get("missed") else "no") if "deadline" in task else "—"
        return number(task.get(column))

    rows = [(task["name"], i, task["name"] in left, [cell(task, c) for c in columns]) for i, task in enumerate(tasks)]
    averages = result.get("averages", {})
    foot = [number(averages[c]) if c in averages else "" for c in columns]
    summary = result.get("summary") or {}
    note = ""
    if summary:
        values = {k: number(summary.get(k, "—")) for k in ("makespan", "busy", "idle", "context_switches")}
        note = f'<p class="muted">{esc(t(lang, "summary", **values))}</p>'
    return results_table("task", columns, rows, lang, foot, note)


# --- LLM mode -----------------------------------------------------------------------------------------

def strip_states(done: int, current: bool) -> tuple[int, int]:
    """The strip after ``done`` dispatches: ``(past, now)``, cells before ``past`` are sent, cell ``now`` is this
    step's dispatch (-1 when the step dispatches nothing), the rest is the future."""
    return (done - 1, done - 1) if current else (done, -1)


def dispatch_strip(result: Mapping[str, Any], step: int, lang: str) -> str:
    where = indexes(result["tenants"])
    past, now = strip_states(dispatched_so_far(result, step), result["steps"][step].get("kind") == "dispatch")
    cells = []
    for n, item in enumerate(result["dispatch"]):
        name = item["tenant"]
        fill = colour(where[name])
        state = "current" if n == now else ("past" if n < past else "future")
        label = f'{name} #{item.get("request", 0) + 1}: {item["cost"]}'
        current_mark = ' aria-current="step"' if state == "current" else ""
        cells.append(f'<li class="cell {state}" style="background:{fill};color:{ink(fill)}" title="{esc(label)}"'
                     f'{current_mark}><span class="cell-name">{esc(name)}</span>'
                     f'<span class="cell-cost">{esc(item["cost"])}</span></li>')
    return section(t(lang, "dispatch"), f'<ol class="strip">{"".join(cells)}</ol>')


def tenant_queues(result: Mapping[str, Any], step: int, lang: str) -> str:
    queues = result["steps"][step].get("queues")
    if queues is None:  # a compact trace (very large runs) records no queues
        return section(t(lang, "queues"), f'<p class="muted">{esc(t(lang, "queues.compact"))}</p>')
    rows = []
    for i, tenant in enumerate(result["tenants"]):
        waiting = queues.get(tenant["name"], [])
        fill = colour(i)
        boxes = "".join(f'<li class="req" style="background:{fill};color:{ink(fill)}">{esc(number(c))}</li>'
                        for c in waiting)
        empty = f'<span class="muted">{esc(t(lang, "queue.empty"))}</span>'
        listing = f'<ol class="reqs">{boxes}</ol>' if waiting else empty
        rows.append(f'<div class="queue-row">{chip(tenant["name"], i)}{listing}</div>')
    return section(t(lang, "queues"), "".join(rows))


def exact(step_or_result: Mapping[str, Any], key: str, name: str | None = None) -> str | None:
    """The ``p/q`` companion the core gives for an exact value, when it gives one."""
    value = (step_or_result.get("exact") or {}).get(key)
    if name is not None and isinstance(value, Mapping):
        value = value.get(name)
    return value if isinstance(value, str) else None


def exact_number(value: object, fraction: str | None) -> str:
    """``2.67 (8/3)`` when the exact value is not a whole number, else the number alone."""
    return f"{number(value)} ({fraction})" if fraction and "/" in fraction else number(value)


def meters(result: Mapping[str, Any], step: int, lang: str) -> str:
    """SFQ-family meters M_i with the virtual time V as a line; DRR's deficits; nothing for the others."""
    state = result["steps"][step]
    values, kind = state.get("meters"), "meters"
    if values is None:
        values, kind = state.get("deficits"), "deficits"
    if not values:
        return section(t(lang, "meters"), f'<p class="muted">{esc(t(lang, "meters.none"))}</p>')
    vtime = state.get("virtual_time") if kind == "meters" else None
    top = max([*values.values(), vtime or 0, 1])
    rows = [bar_row(tenant["name"], i, values[tenant["name"]], top,
                    f'{"M" if kind == "meters" else "D"} = '
                    + exact_number(values[tenant["name"]], exact(state, kind, tenant["name"])), vtime)
            for i, tenant in enumerate(result["tenants"]) if tenant["name"] in values]
    if vtime is not None:
        legend = (f'<p class="muted"><span class="vkey"></span> V = '
                  f'{esc(exact_number(vtime, exact(state, "virtual_time")))}</p>')
    else:
        legend = f'<p class="muted">{esc(t(lang, "deficits"))}</p>'
    return section(t(lang, "meters" if kind == "meters" else "deficits.title"), "".join(rows) + legend)


def fairness(result: Mapping[str, Any], step: int, lang: str) -> str:
    """What holds up to ``step`` (``schedulers.llm.steps.fairness_so_far``: no later dispatch is used): normalised cost charged
    over the longest common-backlog interval so far, Jain's index and the widest gap there; the band, checked over
    the whole run only, is marked ``*`` as the results table marks what the future decides."""
    whole = result.get("fairness") or {}
    fair = fairness_so_far(result, step)
    interval = fair.get("interval")
    upto = f'<p class="muted">{esc(t(lang, "fairness.upto", count=fair["dispatched"]))}</p>'
    lines, rows = [], ""
    if interval:
        increments = fair["increments"]
        top = max([*increments.values(), 1])
        where = indexes(result["tenants"])
        rows = (f'<p>{esc(t(lang, "fairness.interval", start=interval["start"], end=interval["end"],
                                 count=interval["dispatches"]))}</p>'
                f'<p class="label">{esc(t(lang, "fairness.increments"))}</p>'
                + "".join(bar_row(name, where[name], value, top, exact_number(value, exact(fair, "increments", name)))
                          for name, value in increments.items()))
        if fair.get("jain") is not None:
            lines.append(t(lang, "fairness.jain", value=exact_number(fair["jain"], exact(fair, "jain"))))
        bound = fair.get("pairwise_bound")
        if bound:
            lines.append(t(lang, "fairness.bound", gap=number(bound["max_gap"]), bound=number(bound["bound"]),
                           status=t(lang, "holds" if bound["holds"] else "broken")))
        lines += [note[lang] for note in fair["notes"].values()]
    else:   # the core's notes say the same as fairness.none
        lines.append(t(lang, "fairness.none"))
    facts = "".join(f"<li>{esc(line)}</li>" for line in lines)
    band = whole.get("band")
    legend = ""
    if band:
        facts += (f'<li>{esc(t(lang, "fairness.band", width=number(band["width"]),
                                 status=t(lang, "holds" if band["holds"] else "broken")))}'
                  f'{pending_mark(True, lang, "fairness.whole")}</li>')
        legend = f'<p class="muted legend" aria-hidden="true">{esc(t(lang, "fairness.whole"))}</p>'
    return section(t(lang, "fairness"), upto + rows + f'<ul class="facts">{facts}</ul>' + legend, "fairness")


def llm_metrics(result: Mapping[str, Any], step: int, lang: str) -> str:
    columns = ["weight", "requests", "dispatched", "charged", "normalized"]
    left = pending(result, step)
    rows = [(tenant["name"], i, tenant["name"] in left, [number(tenant.get(c)) for c in columns])
            for i, tenant in enumerate(result["tenants"])]
    return results_table("tenant", columns, rows, lang)
