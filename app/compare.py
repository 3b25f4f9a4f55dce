"""Compare: the lab's run (left) and a second algorithm or parameter set (right) on the same scenario, stepping
together, with the differences highlighted.

The right side runs the lab's own rows through ``schedulers.simulate`` with its own algorithm and parameters; it
follows the lab's step (``schedulers.trace.step_aligner``): in CPU mode the step with the same time, in LLM mode
the step after the same number of dispatches.
"""
from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any

import panel as pn
import param

from schedulers import ScenarioError, algorithms, simulate
from schedulers.engine import llm_scenario
from schedulers.engine.steps import service_so_far
from schedulers.llm.steps import compare_so_far, dispatched_so_far, normalised_so_far
from schedulers.trace import step_aligner

from . import render
from .model import LabView, parameter_text, scenario_for
from .panes import pane
from .render import esc
from .teach_text import t
from .text import t as app_t
from .textfield import TextField

CPU_METRICS = ("waiting", "turnaround", "response")   # smaller is better
# mode -> (first, second): if the lab runs the first, compare it with the second, else with the first
DEFAULT_OTHER = {"cpu": ("fcfs", "srtf"), "llm": ("sfq", "rr"), "engine": ("vtc", "fcfs")}
ROUTER = "router-sfq"   # engine mode's other side: the LLM router under SFQ on the same workload (llm_scenario)


def default_other(mode: str, algorithm: str) -> str:
    first, second = DEFAULT_OTHER[mode]
    return second if algorithm == first else first


def delta_cell(left: float, right: float, smaller_is_better: bool | None,
               shown: tuple[str, str] | None = None) -> str:
    """``left → right (Δ)``, green when the right side is better, red when worse, plain when equal or neutral;
    ``shown``: the two values as written (with their exact fractions), when not plain numbers."""
    diff = right - left
    css = ""
    if diff and smaller_is_better is not None:
        css = "diff-better" if (diff < 0) == smaller_is_better else "diff-worse"
    sign = "+" if diff > 0 else ""
    text = " → ".join(shown or (render.number(left), render.number(right)))
    if diff:
        text += f" ({sign}{render.number(diff)})"
    return f'<td class="{css}">{esc(text)}</td>'


def table(caption: str, first: str, columns: list[str], rows: list[tuple[str, list[str]]]) -> str:
    """One stretch of both runs: its caption says over what; each cell reads left → right (change)."""
    head = "".join(f'<th scope="col">{esc(c)}</th>' for c in (first, *columns))
    body = "".join(f'<tr><th scope="row">{esc(name)}</th>{"".join(cells)}</tr>' for name, cells in rows)
    return (f'<div class="table-wrap"><table class="metrics compare-table"><caption>{esc(caption)}</caption>'
            f'<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>')


def cpu_diff(left: Mapping[str, Any], right: Mapping[str, Any], lang: str) -> str:
    """The whole runs' results side by side, labelled so: they do not change with the step."""
    columns = [app_t(lang, f"col.{m}") for m in CPU_METRICS]
    rows = [(a["name"], [delta_cell(a[m], b[m], True) for m in CPU_METRICS])
            for a, b in zip(left["tasks"], right["tasks"])]
    rows.append((t(lang, "compare.average"),
                 [delta_cell(left["averages"][m], right["averages"][m], True) for m in CPU_METRICS]))
    rows.append((t(lang, "compare.switches"), [delta_cell(left["summary"]["context_switches"],
                                                          right["summary"]["context_switches"], True), "", ""]))
    return (table(t(lang, "compare.whole"), app_t(lang, "col.task"), columns, rows)
            + f'<p class="muted">{esc(t(lang, "compare.diff"))}</p>')


def shown(figures: Mapping[str, Any], key: str, name: str | None = None) -> str:
    """A fairness figure as the lab writes it: the number, and its exact fraction when it is not whole."""
    value = figures[key] if name is None else figures[key][name]
    return render.exact_number(value, render.exact(figures, key, name))


def fraction(value: Fraction) -> str:
    return render.exact_number(float(value), str(value))


def llm_diff(left: Mapping[str, Any], step: int, right: Mapping[str, Any], lang: str) -> str:
    """At ``step``, both runs over the same stretch: each tenant's cost ÷ weight over the first dispatches (as
    many in each run), then the fairness figures over the one interval where every tenant waits in both runs
    (``schedulers.llm.steps.compare_so_far``). Cost ÷ weight received has no better side: it is not coloured."""
    count = dispatched_so_far(left, step)
    mine, theirs = normalised_so_far(left, count), normalised_so_far(right, count)
    change = [t(lang, "compare.change")]
    received = table(t(lang, "compare.normalised", count=count), app_t(lang, "col.tenant"), change,
                     [(name, [delta_cell(float(mine[name]), float(theirs[name]), None,
                                         (fraction(mine[name]), fraction(theirs[name])))]) for name in mine])
    both = compare_so_far(left, step, right)
    interval = both["interval"]
    if interval is None:
        fair = f'<p class="muted compare-none">{esc(t(lang, "compare.interval.none"))}</p>'
    else:
        one, other = both["left"], both["right"]
        rows = [(f'{name}: {app_t(lang, "col.normalized")}', [delta_cell(one["increments"][name], other["increments"][name], None,
                                   (shown(one, "increments", name), shown(other, "increments", name)))])
                for name in one["increments"]]
        if one["jain"] is not None and other["jain"] is not None:   # undefined while nobody was charged
            rows.append((t(lang, "compare.jain"), [delta_cell(one["jain"], other["jain"], False,
                                                              (shown(one, "jain"), shown(other, "jain")))]))
        gaps = one["pairwise_bound"]["max_gap"], other["pairwise_bound"]["max_gap"]
        rows.append((t(lang, "compare.gap"), [delta_cell(*gaps, True)]))
        fair = table(t(lang, "compare.interval", start=interval["start"], end=interval["end"],
                       count=interval["dispatches"]), t(lang, "compare.metric"), change, rows)
    return received + fair + f'<p class="muted">{esc(t(lang, "compare.like"))}</p>'


def comparable(left: Mapping[str, Any], right: Mapping[str, Any] | None) -> bool:
    """Compare can show ``right`` beside ``left``: a run of the same mode, or the router beside the engine."""
    return bool(right) and right["mode"] in {left["mode"], "llm" if left["mode"] == "engine" else left["mode"]}


def engine_diff(left: Mapping[str, Any], step: int, right: Mapping[str, Any], right_step: int, lang: str) -> str:
    """Service ÷ weight so far on both sides at the same moment (the router's: the cost it charged at dispatch,
    estimated from the true output), uncoloured; for two engine runs, a second table of the whole runs' mean
    latency per tenant and widest gap, labelled so."""
    mine = service_so_far(left, step)
    if right["mode"] == "engine":
        theirs = service_so_far(right, right_step)
        column = app_t(lang, "col.service") + " ÷ " + app_t(lang, "col.weight")
    else:
        theirs = normalised_so_far(right, dispatched_so_far(right, right_step))
        column = t(lang, "compare.router.column")
    so_far = table(t(lang, "compare.sofar"), app_t(lang, "col.tenant"), [column],
                   [(name, [delta_cell(float(mine[name]), float(theirs[name]), None)]) for name in mine])
    if right["mode"] != "engine":
        return so_far + f'<p class="muted">{esc(t(lang, "compare.router.note"))}</p>'
    rows = [(f'{a["name"]}: {app_t(lang, "col.mean_latency")}', [delta_cell(a["mean_latency"], b["mean_latency"], True)])
            for a, b in zip(left["tenants"], right["tenants"])]
    gaps = left["fairness"].get("max_gap"), right["fairness"].get("max_gap")
    if None not in gaps:
        rows.append((t(lang, "compare.gap.engine"), [delta_cell(*gaps, True)]))
    return (so_far + table(t(lang, "compare.whole"), t(lang, "compare.metric"), [t(lang, "compare.change")], rows)
            + f'<p class="muted">{esc(t(lang, "compare.diff"))}</p>')


class CompareView(LabView):
    """The right-hand run and its views; the left is the lab itself."""

    other = param.Dict(default={}, doc="mode -> the right side's algorithm")
    other_parameters = param.Dict(default={}, doc="parameter -> text, for the right side")
    result = param.Dict(default=None, allow_None=True)
    error = param.String(default="")
    shown = param.Boolean(default=False, doc="on the page (set by the teaching bar): a hidden view draws nothing")
    stepping = param.Parameter(default=None, doc="the lab's pager (app/pager.py): its slots show each step")

    def __init__(self, lab=None, **params) -> None:
        super().__init__(lab, **params)
        self.run()

    @property
    def algorithm(self) -> str:
        mode = self.lab.mode
        return self.other.get(mode) or default_other(mode, self.lab.algorithm)

    def scenario(self) -> dict[str, Any]:
        """The lab's rows under the right side's algorithm and parameters."""
        return scenario_for(self.lab.mode, self.algorithm, self.other_parameters, self.lab.rows)

    def simulate(self) -> dict[str, Any]:
        """The right side's run: the router's on the lab's workload (engine mode, ``ROUTER``), else the lab's mode."""
        if self.algorithm == ROUTER:
            return simulate("llm", llm_scenario(self.lab.scenario()))
        return simulate(self.lab.mode, self.scenario())

    @param.depends("lab.result", "other", "other_parameters", watch=True)
    def run(self) -> None:
        if not self.lab.result:
            self.param.update(result=None, error="")
            return
        try:
            self.param.update(result=self.simulate(), error="")
        except ScenarioError as error:   # the left keeps running; the right says why it cannot
            self.param.update(error=f"{error.field}: {error.problem}")

    def set_algorithm(self, name: str) -> None:
        self.other = {**self.other, self.lab.mode: name}

    def set_parameter(self, name: str, text: str) -> None:
        self.other_parameters = {**self.other_parameters, name: text}

    @param.depends("lab.mode", "lab.lang", "other")
    def controls(self):
        lab, lang = self.lab, self.lab.lang
        catalog = algorithms(lab.mode)
        options = {a.label.get(lang, a.name): a.name for a in catalog.values()}
        if lab.mode == "engine":
            options[t(lang, "compare.router")] = ROUTER
        # As wide as the longest name needs (up to the row's width): "WFQ (self-clocked, estimated cost)" whole.
        select = pn.widgets.Select(label=t(lang, "compare.with"), value=self.algorithm, sizing_mode="stretch_width",
                                   options=options, css_classes=["compare-algorithm"],
                                   styles={"flex": "0 1 24em", "min-width": "0"})
        pn.bind(self.set_algorithm, select, watch=True)
        widgets = [select]
        info = catalog.get(self.algorithm)
        for name in info.parameters if info else ():
            used = (self.result or {}).get("parameters", {}).get(name)   # the core's default shows as a hint
            box = TextField(label=name, value=self.other_parameters.get(name, ""), width=120,
                            css_classes=[f"compare-param-{name}"], placeholder=parameter_text(used))
            pn.bind(self.set_parameter, name, box, watch=True)
            widgets.append(box)
        return pn.FlexBox(*widgets, align_items="end")

    def side(self, result: Mapping[str, Any], owner: str, step: int) -> list:
        """A side's heading, counter and narration (the pager's slot ``owner``), and its Gantt chart or dispatch
        strip; the pager moves the cursor and the strip's marks as it steps."""
        parts: list = [self.stepping.slot(owner)]
        if result["mode"] == "engine":
            parts.append(self.stepping.slot(f"{owner}.batch"))
        elif result["mode"] == "cpu":
            gantt = render.Gantt(result, self.lab.lang, self.lab.presenter)
            gantt.move(result["steps"][step]["time"])
            self.stepping.follow(owner, "time" if owner == "compare.left" else f"{owner}.time", gantt)
            parts.append(pn.pane.Bokeh(gantt.plot, sizing_mode="stretch_width"))
        else:
            parts.append(self.stepping.slot(f"{owner}.strip"))
        return parts

    @param.depends("lab.result", "lab.lang", "lab.presenter", "result", "error", "shown")
    def views(self):
        """Laid out once per run: the step's parts are the pager's slots (``frames.compare_frames``)."""
        lab, lang = self.lab, self.lab.lang
        if not lab.result or not self.shown:   # hidden: no two Gantt charts built for nobody
            return pn.Column()
        left = lab.result
        parts = [pane(f'<p class="muted">{esc(t(lang, "compare.same"))}</p>')]
        if self.error:
            parts.append(pane(render.error_note(t(lang, "compare.error", problem=self.error)),
                              css_classes=["compare-error"]))
        sided = {"sizing_mode": "stretch_width", "styles": {"flex": "1 1 360px", "min-width": "0"}}
        left_side = pn.Column(*self.side(left, "compare.left", lab.step), css_classes=["compare-left"], **sided)
        if not comparable(left, self.result):
            self.stepping.follow("compare.right", "", None)
            return pn.Column(*parts, left_side, sizing_mode="stretch_width")
        right = self.result
        right_side = pn.Column(*self.side(right, "compare.right", step_aligner(left, right)(lab.step)),
                               css_classes=["compare-right"], **sided)
        parts += [pn.FlexBox(left_side, right_side, sizing_mode="stretch_width", gap="8px"),
                  self.stepping.slot("compare.diff")]
        return pn.Column(*parts, sizing_mode="stretch_width")

    def panel(self):
        return pn.Column(pane(f'<h2>{esc(t(self.lab.lang, "compare.title"))}</h2>'), self.controls, self.views,
                         sizing_mode="stretch_width")
