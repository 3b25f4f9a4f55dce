"""CPU mode's timeline: the Bokeh Gantt chart of a run, one row per task (and idle), whose cursor and dimmed future
the pager moves at each step (``Gantt.move`` here; in the page, by the ids ``Stepping.follow`` gives it).

A task's row shows its CPU bursts solid and its I/O hatched and pale; a run with switch cost has a row of its own
for the switches (each in the colour of the task switched to, hatched). These come from the core's result as they
are: the timeline's ``{"switch": NAME}`` entries, and each I/O stretch from the event that starts it (``IO_START``,
with the time it ``until``s). With locks, under a task's row, a dark band while it holds a resource and a red hatched
one while it waits for one (the core's ``resources``, their ``holds`` and ``waits``).

Names are user text: they reach Bokeh only as data fields of plain-text tooltips, legend labels and axis label
overrides (drawn on the canvas as text), never as markup.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import groupby
from typing import Any

from bokeh.models import (BasicTicker, BasicTickFormatter, BoxAnnotation, ColumnDataSource, CustomJS,
                          FactorRange, HoverTool, Legend, LegendItem, Span)
from bokeh.plotting import figure
from bokeh.transform import dodge

from ...render import IDLE_COLOUR, colour, indexes
from ...text import t

IO_START = "block"   # the core's event: a task leaves the CPU for I/O until ``until``
SWITCH = "switch"   # a timeline entry {"switch": NAME}: the CPU switching into NAME
MISS = "miss"       # the core's event: a periodic job is not complete at its deadline (``left`` units to go)
MISS_COLOUR = "#d62728"


@dataclass(frozen=True)
class Stretch:
    """[start, end) of one kind: "run" (``task`` on the CPU), "idle", "switch" (into ``task``) or "io" (``task``
    blocked)."""
    kind: str
    task: str | None
    start: int
    end: int
    cpu: int | None = None   # several CPUs: the one it ran or switched on


def slices(timeline: Sequence[Any]) -> list[tuple[Any, int, int]]:
    """Runs of the same entry in the timeline: (a task's name, None for idle or {"switch": NAME}, start, end)."""
    runs: list[tuple[Any, int, int]] = []
    start = 0
    for entry, run in groupby(timeline):
        end = start + sum(1 for _ in run)
        runs.append((entry, start, end))
        start = end
    return runs


def io_stretches(result: Mapping[str, Any]) -> list[Stretch]:
    """Every I/O stretch of the run, as the events that start them say (each event once: a step repeats none)."""
    return [Stretch("io", event["task"], event["time"], event["until"])
            for step in result["steps"] for event in step.get("events") or () if event.get("kind") == IO_START]


def stretches(result: Mapping[str, Any]) -> list[Stretch]:
    """The timeline's stretches (runs, idle, switches), then the I/O ones."""
    cpu = [Stretch(SWITCH, entry[SWITCH], start, end) if isinstance(entry, Mapping) else
           Stretch("idle" if entry is None else "run", entry, start, end)
           for entry, start, end in slices(result["timeline"])]
    return cpu + io_stretches(result)


def owners(result: Mapping[str, Any]) -> dict[str, str]:
    """A periodic task's job (``A#2``) -> its task's name, whose row it is drawn on; empty without periodic tasks."""
    return {job["name"]: job["task"] for job in result.get("jobs", ())}


def places(result: Mapping[str, Any]) -> dict[str, int]:
    """Every name a run's steps show -> the position of its task (its row and colour): the tasks, and each job by
    its task."""
    where = indexes(result["tasks"])
    where.update((job, where[task]) for job, task in owners(result).items())
    return where


def misses(result: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The core's deadline-miss events (a job not complete at its deadline), in time order."""
    return [event for step in result["steps"] for event in step.get("events") or () if event.get("kind") == MISS]


def has_switch_row(result: Mapping[str, Any]) -> bool:
    return "timeline" in result and any(isinstance(entry, Mapping) for entry in result["timeline"])


def run_length(result: Mapping[str, Any]) -> int:
    """The run's length in time units: its timeline's, or with several CPUs every CPU's (``timelines``)."""
    return len(result["timelines"][0]) if "timelines" in result else len(result["timeline"])


def cpu_stretches(result: Mapping[str, Any]) -> list[Stretch]:
    """Several CPUs: each CPU's runs, switches and idle stretches, CPU by CPU."""
    return [Stretch(SWITCH, entry[SWITCH], start, end, cpu) if isinstance(entry, Mapping) else
            Stretch("idle" if entry is None else "run", entry, start, end, cpu)
            for cpu, timeline in enumerate(result["timelines"]) for entry, start, end in slices(timeline)]


def several_rows(result: Mapping[str, Any], lang: str, where: Mapping[str, int], by_task: bool):
    """Several CPUs' rows: one per CPU, each slice labelled with its task; or (``by_task``) one per task, each slice
    labelled with its CPU and the task's I/O on its row. Returns the row labels and the stretches each is drawn
    with, the slices' labels beside them."""
    keys = [task["name"] for task in result["tasks"]] if by_task else \
        [unique(t(lang, "gantt.processor", cpu=cpu), where) for cpu in range(len(result["timelines"]))]
    drawn = [stretch for stretch in cpu_stretches(result) if not (by_task and stretch.kind == "idle")]
    if by_task:
        drawn += io_stretches(result)
    rows = [keys[stretch.cpu] if not by_task else stretch.task for stretch in drawn]
    texts = [(stretch.task or "") if not by_task else
             t(lang, "gantt.processor", cpu=stretch.cpu) if stretch.cpu is not None else "" for stretch in drawn]
    return keys, drawn, rows, texts


MIN_BAR = 4   # pixels: the narrowest a slice is drawn
# How each kind of stretch is drawn: runs solid; I/O pale and hatched on the task's row; switches hatched.
KINDS = ("run", SWITCH, "io")   # idle is drawn with the runs
LOOKS: dict[str, dict[str, Any]] = {"run": {"alpha": 1.0, "hatch": " "}, SWITCH: {"alpha": 0.55, "hatch": "/"},
                                    "io": {"alpha": 0.25, "hatch": "x"}}
TOOLTIPS = {"run": "gantt.slice", SWITCH: "gantt.switch", "io": "gantt.io"}
# Locks: a resource held, a dark band under the holder's row; waited for, a red hatched one under the waiter's.
LOCK_LOOKS: dict[str, dict[str, Any]] = {
    "holds": {"fill_color": "#333333", "line_color": "#333333", "hatch_pattern": " "},
    "waits": {"fill_color": "#ffffff", "line_color": MISS_COLOUR, "hatch_pattern": "/", "hatch_color": MISS_COLOUR}}


def unique(label: str, taken: Mapping[str, int]) -> str:
    """A row label no task has (a task may be called "idle")."""
    while label in taken:
        label += " "
    return label


# The Gantt chart's tick count for its width: one label per ``label`` pixels, at most ``most`` (one per time unit).
TICKS_JS = "ticker.desired_num_ticks = Math.max(2, Math.min(most, Math.floor(cb_obj.inner_width / label)))"


class Gantt:
    """The Bokeh timeline of one run; ``move`` shifts the cursor and the dimmed future without a redraw."""

    def __init__(self, result: Mapping[str, Any], lang: str, presenter: bool, by_task: bool = False) -> None:
        self.lang = lang
        tasks, owner = result["tasks"], owners(result)
        where = places(result)
        idle, switching = unique(t(lang, "idle"), where), unique(t(lang, "gantt.switch.row"), where)
        texts: list[str] = []
        if "timelines" in result:   # several CPUs
            keys, pieces, lanes, texts = several_rows(result, lang, where, by_task)
        else:
            # drawn on the canvas as text, never markup; the switch row only when switches take time
            keys = [task["name"] for task in tasks] + ([switching] if has_switch_row(result) else []) + [idle]
            pieces = stretches(result)
            lanes = [idle if stretch.kind == "idle" else switching if stretch.kind == SWITCH
                     else owner.get(stretch.task, stretch.task) for stretch in pieces]
        self.end = max(run_length(result), 1)
        kinds: dict[str, dict[str, list]] = {}
        for stretch, row in zip(pieces, lanes):
            drawn_as = "run" if stretch.kind == "idle" else stretch.kind   # idle in the runs' bars, as ever
            data = kinds.setdefault(drawn_as, {k: [] for k in ("left", "right", "middle", "row", "fill", "name",
                                                                  "span")})
            data["left"].append(stretch.start)
            data["right"].append(stretch.end)
            data["middle"].append((stretch.start + stretch.end) / 2)
            data["row"].append(row)
            data["fill"].append(IDLE_COLOUR if stretch.task is None else colour(where[stretch.task]))
            data["name"].append(t(lang, "idle") if stretch.task is None else stretch.task)
            data["span"].append(t(lang, "step.span", start=stretch.start, end=stretch.end))
        font = "18pt" if presenter else "11pt"
        legended = [kind for kind in KINDS if kind in kinds]
        if len(legended) < 2:   # runs alone need no legend: a run without I/O or switch cost looks as it always did
            legended = []
        shows_legend = bool(legended) or bool(result.get("resources"))
        height = 60 + (64 if presenter else 40) * len(keys) + ((48 if presenter else 32) if shows_legend else 0)
        # Padding above the first row (half a row): its arrival marker sits on the row's top edge.
        rows = FactorRange(*reversed(keys), range_padding=0.5, range_padding_units="absolute")
        # ... and room left of t=0 (a fortieth of the run: wider than half a marker at 280 px), for a marker there.
        plot = figure(y_range=rows, x_range=(-self.end / 40, self.end), height=height,
                      sizing_mode="stretch_width", toolbar_location=None, tools="",
                      x_axis_label=t(lang, "gantt.time"), title=t(lang, "gantt"))
        legend = []
        for kind in (kind for kind in KINDS if kind in kinds):
            drawn = self._bars(plot, kinds[kind], **LOOKS[kind])
            # Tooltips as (label, @field) pairs: Bokeh shows field values as text, so a name stays a name.
            plot.add_tools(HoverTool(renderers=drawn, tooltips=[(t(lang, "gantt.task"), "@name"),
                                                                (t(lang, TOOLTIPS[kind]), "@span")]))
            if kind in legended:
                legend.append(LegendItem(label=t(lang, f"gantt.legend.{kind}"), renderers=drawn[:1]))
        if result.get("resources") and "timeline" in result:   # above the runs: their names stay readable
            legend += self._locks(plot, result, owner)
        if legend:
            plot.add_layout(Legend(items=legend, orientation="horizontal", label_text_font_size=font,
                                   glyph_width=28 if presenter else 20, border_line_alpha=0, margin=0, padding=2),
                            "above")
        self.pieces, self.labels = pieces, None
        if texts:   # several CPUs: each slice's task (rows per CPU) or CPU (rows per task), as canvas text
            self.labels = plot.text(x=[(s.start + s.end) / 2 for s in pieces], y=lanes, text=texts,
                                    text_align="center", text_baseline="middle",
                                    text_font_size="14pt" if presenter else "9pt", text_color="black")
        # a periodic task's every release, each job's; rows per CPU: no task's arrival has a row
        released = [] if "timelines" in result and not by_task else \
            [(job["release"], job["task"]) for job in result.get("jobs", ())] + \
            [(task["arrival"], task["name"]) for task in tasks if "jobs" not in task]
        arrivals = ColumnDataSource({"x": [x for x, _ in released], "row": [row for _, row in released],
                                     "fill": [colour(where[row]) for _, row in released]})
        plot.scatter(x="x", y=dodge("row", 0.42, range=plot.y_range), marker="inverted_triangle",
                     size=16 if presenter else 11, fill_color="fill", line_color="black", source=arrivals)
        if owner:
            self._jobs(plot, result, owner, font)
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

    def _jobs(self, plot, result: Mapping[str, Any], owner: Mapping[str, str], font: str) -> None:
        """A periodic run: each job's name on its first stretch, and each deadline miss in red on the job's row, a
        cross at the deadline with the core's sentence beside it."""
        first: dict[str, tuple[int, int]] = {}
        for entry, start, end in slices(result["timeline"]):
            if isinstance(entry, str) and entry in owner:
                first.setdefault(entry, (start, end))
        names = [name for name, (start, end) in first.items() if (end - start) * 40 >= self.end]
        plot.text(x=[first[name][0] + 0.1 for name in names], y=[owner[name] for name in names], text=names,
                  text_font_size="9pt", text_baseline="middle", text_color="white")
        missed = misses(result)
        if not missed:
            return
        rows = [owner[event["task"]] for event in missed]
        times = [event["time"] for event in missed]
        said = [t(self.lang, "gantt.miss", task=event["task"], t=event["time"], left=event["left"]) for event in missed]
        plot.scatter(x=times, y=rows, marker="x", size=18, line_color=MISS_COLOUR, line_width=3)
        plot.text(x=times, y=rows, text=said, text_font_size=font, text_color=MISS_COLOUR, text_baseline="top",
                  x_offset=8, y_offset=6)

    def _locks(self, plot, result: Mapping[str, Any], owner: Mapping[str, str]) -> list:
        """Each resource's holds (a dark band under the task's row, the resource's name at its start) and waits (a
        red hatched band), from the core's ``resources``; returns their legend items."""
        items = []
        for kind, looks in LOCK_LOOKS.items():
            spans = [(resource["name"], span) for resource in result["resources"] for span in resource[kind]]
            if not spans:
                continue
            data = {"left": [span["from"] for _, span in spans], "right": [span["until"] for _, span in spans],
                    "row": [owner.get(span["task"], span["task"]) for _, span in spans],
                    "name": [f'{span["task"]}: {resource}' for resource, span in spans],
                    "span": [t(self.lang, "step.span", start=span["from"], end=span["until"]) for _, span in spans],
                    "resource": [resource for resource, _ in spans]}
            source = ColumnDataSource(data)
            bars = plot.hbar(y=dodge("row", -0.43, range=plot.y_range), left="left", right="right", height=0.12,
                             source=source, **looks)
            plot.text(x="left", y=dodge("row", -0.36, range=plot.y_range), text="resource", source=source,
                      text_font_size="8pt", text_baseline="bottom", text_color=looks["line_color"], x_offset=2)
            plot.add_tools(HoverTool(renderers=[bars], tooltips=[(t(self.lang, f"gantt.{kind[:-1]}"), "@name"),
                                                                 (t(self.lang, "gantt.slice"), "@span")]))
            items.append(LegendItem(label=t(self.lang, f"gantt.legend.{kind}"), renderers=[bars]))
        return items

    def _bars(self, plot, data: dict[str, list], alpha: float, hatch: str) -> list:
        """One kind's bars, and every slice narrower than a hundredth of the run again as a MIN_BAR-pixel mark (a
        one-unit slice of a million-unit run would otherwise be a fraction of a pixel)."""
        looks = {"height": 0.72, "fill_color": "fill", "fill_alpha": alpha, "hatch_pattern": hatch,
                 "hatch_color": "fill", "hatch_alpha": 0.9}
        bars = plot.hbar(y="row", left="left", right="right", line_color="white", source=ColumnDataSource(data),
                         **looks)
        short = ColumnDataSource({k: [v for v, left, right in zip(values, data["left"], data["right"])
                                      if (right - left) * 100 < self.end] for k, values in data.items()})
        least = plot.rect(x="middle", y="row", width=MIN_BAR, width_units="screen", line_alpha=0, source=short,
                          **looks)
        return [bars, least]

    def move(self, time: int) -> None:
        self.cursor.location = time
        self.dim.left = time

    def cover_future(self, time: int) -> None:
        """Predict's chart at ``time``: the future covered, not dimmed, with no tooltip to tell it; the arrivals
        known, so their marks stay above the cover; a slice running at ``time`` labelled in its part before it."""
        self.move(time)
        self.dim.fill_alpha = 1.0
        self.dim.level = self.cursor.level = "annotation"   # below the arrival marks (overlay, next)
        self.plot.tools = []
        for renderer in self.plot.renderers:
            if type(renderer.glyph).__name__ == "Scatter":
                renderer.level = "overlay"
        if self.labels is not None:
            self.labels.data_source.data = {**self.labels.data_source.data,
                                            "x": [(s.start + (min(s.end, time) if s.start < time else s.end)) / 2
                                                  for s in self.pieces]}
