"""Compare: the lab's run (left) and a second algorithm or parameter set (right) on the same scenario, stepping
together, with the differences highlighted.

The right side runs the lab's own rows through ``schedulers.simulate`` with its own algorithm and parameters (or a
run the mode's views offer beyond its menu: ``ModeViews.other_sides``); it follows the lab's step
(``schedulers.trace.step_aligner``). Each side's picture is drawn by its own mode's views, the differences by the
left mode's; ``delta_cell`` and ``table`` are theirs to build them with.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import panel as pn
import param

from schedulers import ScenarioError, algorithms, schema, simulate
from schedulers.trace import step_aligner

from . import render
from .model import (LabView, choice_options, chosen, every_rules_parameters, parameter_text, parameters_read,
                    scenario_for)
from .modes import app_mode, views_of
from .panes import Kept, pane
from .render import esc
from .text import label, pick, t
from .textfield import TextField


def default_other(mode: str, algorithm: str) -> str:
    """The right side's algorithm until one is chosen: the mode's second beside its first, else its first."""
    first, second = app_mode(mode).compare
    return second if algorithm == first else first


def delta_cell(left: float, right: float, smaller_is_better: bool | None,
               shown: tuple[str, str] | None = None) -> str:
    """``left → right (Δ)``, green when the right side is better, red when worse, plain when equal or neutral;
    ``shown``: the two values as written (with their exact fractions), when not plain numbers; one run without the
    number (a task a deadlock left unfinished): both as they are, no change."""
    if left is None or right is None:
        return f'<td>{esc(" → ".join(shown or (render.number(left), render.number(right))))}</td>'
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


def comparable(left: Mapping[str, Any], right: Mapping[str, Any] | None) -> bool:
    """Compare can show ``right`` beside ``left``: a run of the same mode, or of a mode the left mode's views
    compare with (the router beside the engine)."""
    return bool(right) and (right["mode"] == left["mode"] or right["mode"] in views_of(left["mode"]).compares_with)


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
        self._keep = Kept()   # the choices' widgets
        self._take_offer()
        self.run()

    @param.depends("lab.offer", watch=True)
    def _take_offer(self) -> None:
        """A preset's run beside the lab's (RR q=4 beside q=1): its algorithm and parameters become the right
        side's."""
        offer = self.lab.offer
        if offer is None:
            return
        parameters = {name: parameter_text(value, schema(self.lab.mode).field(name)) for name, value in offer.items()
                      if name != "algorithm"}
        self.param.update(other={**self.other, self.lab.mode: offer["algorithm"]}, other_parameters=parameters)

    @property
    def algorithm(self) -> str:
        mode = self.lab.mode
        return self.other.get(mode) or default_other(mode, self.lab.algorithm)

    def scenario(self) -> dict[str, Any]:
        """The lab's rows, and the scenario's own parameters (the router's servers), under the right side's
        algorithm and parameters."""
        shared = {name: self.lab.parameters.get(name, "") for name in every_rules_parameters(self.lab.mode)}
        return scenario_for(self.lab.mode, self.algorithm, {**shared, **self.other_parameters}, self.lab.rows)

    def simulate(self) -> dict[str, Any]:
        """The right side's run: one the mode's views offer beyond its menu (engine mode's router, on the lab's
        workload), else the lab's mode under the right side's algorithm."""
        other = views_of(self.lab.mode).other_sides.get(self.algorithm)
        if other is not None:
            return other.run(self.lab.scenario())
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

    def controls(self) -> pn.FlexBox:
        """The right side's algorithm and its parameters, laid out again for a new mode, language or algorithm with
        the widgets they already have (``panes.Kept``)."""
        box = pn.FlexBox(align_items="end")

        def lay_out(*_) -> None:
            self._keep.lay_out(box, self._choices)
        lay_out()
        self.lab.param.watch(lay_out, ["mode", "lang"])
        self.param.watch(lay_out, "other")
        return box

    def _choices(self) -> list:
        lab, lang, keep = self.lab, self.lab.lang, self._keep
        catalog = algorithms(lab.mode)
        options = {a.label.get(lang, a.name): a.name for a in catalog.values()}
        options.update({pick(other.words, lang): key
                        for key, other in views_of(lab.mode).other_sides.items()})

        def menu():
            # As wide as the longest name needs (up to the row's width): "WFQ (self-clocked, estimated cost)" whole.
            select = pn.widgets.Select(options=options, value=self.algorithm, sizing_mode="stretch_width",
                                       css_classes=["compare-algorithm"], styles={"flex": "0 1 24em", "min-width": "0"})
            pn.bind(self.set_algorithm, select, watch=True)
            return select
        select = keep(("algorithm", lab.mode), menu)
        select.param.update(label=t(lang, "compare.with"), options=options, value=self.algorithm)
        widgets = [select]
        info = catalog.get(self.algorithm)
        for name in parameters_read(lab.mode, self.algorithm) if info else ():
            text = self.other_parameters.get(name, "")
            if chosen(lab.mode, name):   # a choice or true/false: picked from its list, as in the editor
                options = choice_options(lab.mode, name, lang)
                value = text if text in options.values() else ""
                box = keep(("choice", lab.mode, name), lambda name=name, options=options, value=value: self._bound(
                    name, pn.widgets.Select(options=options, value=value, width=200,
                                            css_classes=[f"compare-param-{name}"])))
                box.param.update(label=label(lang, name), options=options, value=value)
            else:
                used = (self.result or {}).get("parameters", {}).get(name)   # the core's default shows as a hint
                default = schema(lab.mode).field(name).default
                box = keep(("text", lab.mode, name), lambda name=name, text=text: self._bound(
                    name, TextField(value=text, width=160, css_classes=[f"compare-param-{name}"])))
                box.param.update(label=label(lang, name),
                                 placeholder=parameter_text(used if used is not None else default,
                                                            schema(lab.mode).field(name)),
                                 **({} if box.value == text else {"value": text}))
            # At least as wide as its label, in any language and in presenter mode: at a fixed width a long label
            # ("Horizon (releases before it)", ホライズン（この時刻より前に解放）) ran into the next one.
            box.styles = {"min-width": "max-content"}
            widgets.append(box)
        return widgets

    def _bound(self, name: str, widget):
        pn.bind(self.set_parameter, name, widget, watch=True)
        return widget

    def side(self, result: Mapping[str, Any], owner: str, step: int) -> list:
        """A side's heading, counter and narration (the pager's slot ``owner``), and its mode's picture (a Gantt
        chart, a dispatch strip, a batch); the pager moves their marks as it steps."""
        return [self.stepping.slot(owner),
                *views_of(result["mode"]).compare_view(result, owner, step, self.lab, self.stepping)]

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
        title = pn.bind(lambda lang: f'<h2>{esc(t(lang, "compare.title"))}</h2>', self.lab.param.lang)
        return pn.Column(pane(title), self.controls(), self.views, sizing_mode="stretch_width")
