"""CPU mode's timeline: the Bokeh Gantt chart of a run, one row per task (and idle), whose cursor and dimmed future
the pager moves at each step (``Gantt.move`` here; in the page, by the ids ``Stepping.follow`` gives it).

Names are user text: they reach Bokeh only as data fields of plain-text tooltips and as axis label overrides
(drawn on the canvas as text), never as markup.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import groupby
from typing import Any

from bokeh.models import (BasicTicker, BasicTickFormatter, BoxAnnotation, ColumnDataSource, CustomJS,
                          FactorRange, HoverTool, Span)
from bokeh.plotting import figure
from bokeh.transform import dodge

from ...render import IDLE_COLOUR, colour, indexes
from ...text import t


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
