"""The editor's presets: the named scenarios and the seeded patterns the mode's core offers (``Mode.presets``,
``Mode.patterns``: ``python -m schedulers MODE --pattern NAME --seed N``), loaded into the editor in one click
(``Lab.load``), each with the core's sentence of what to look for.

A loaded preset is only the editor's inputs: the rows, parameters and algorithm it sets travel in a link like any
others. A seed that is not a whole number, or one the core's generator refuses, is named and nothing is loaded.
"""
from __future__ import annotations

from typing import NamedTuple

import panel as pn
import param

from schedulers import MODES, ScenarioError
from schedulers.catalog import Workload
from schedulers.exercises import MAX_SEED

from . import render
from .model import INTEGER, LabView
from .panes import pane
from .render import esc
from .text import pick, t
from .textfield import TextField


class Choice(NamedTuple):
    key: str             # "preset:NAME" or "pattern:NAME": the same name may be both (mispredict)
    workload: Workload
    seeded: bool


def choices(mode: str) -> list[Choice]:
    """The mode's presets, then its patterns, in the core's order."""
    core = MODES[mode]
    return ([Choice(f"preset:{name}", w, False) for name, w in core.presets.items()]
            + [Choice(f"pattern:{name}", w, True) for name, w in core.patterns.items()])


def choice_label(choice: Choice, lang: str) -> str:
    return t(lang, "preset.seeded" if choice.seeded else "preset.named", name=choice.workload.name)


class PresetView(LabView):
    chosen = param.Dict(default={}, doc="mode -> the key of the preset or pattern chosen in the menu")
    seed = param.String(default="1")
    problem = param.String(default="")

    def current(self) -> Choice | None:
        offered = choices(self.lab.mode)
        key = self.chosen.get(self.lab.mode)
        return next((c for c in offered if c.key == key), offered[0] if offered else None)

    def choose(self, key: str) -> None:
        self.chosen = {**self.chosen, self.lab.mode: key}

    def load(self, seed_text: str | None = None) -> None:
        """Load the chosen preset (a pattern from ``seed_text``, else from the seed field)."""
        choice = self.current()
        if choice is None:
            return
        text = (seed_text if seed_text is not None else self.seed).strip()
        try:
            if choice.seeded and not (INTEGER.match(text) and 0 <= int(text) <= MAX_SEED):
                raise ScenarioError("seed", f"must be a whole number from 0 to 2**63 - 1, not {text[:40]!r}")
            scenario = choice.workload.make(int(text) if choice.seeded else 0)
        except ScenarioError as error:
            self.problem = f"{error.field}: {error.problem}"
            return
        self.param.update(seed=text, problem="")
        self.lab.load(dict(scenario))

    @param.depends("lab.mode", "lab.lang", "problem")
    def controls(self):
        """Laid out per mode and language: choosing in the menu changes only the sentence and the seed's field."""
        lab, lang = self.lab, self.lab.lang
        offered = choices(lab.mode)
        if not offered:
            return pn.Column()
        current = self.current()
        select = pn.widgets.Select(label=t(lang, "preset"), value=current.key, css_classes=["preset-choice"],
                                   options={choice_label(c, lang): c.key for c in offered},
                                   sizing_mode="stretch_width", styles={"flex": "1 1 14em", "min-width": "0"})
        pn.bind(self.choose, select, watch=True)
        seed = TextField.from_param(self.param.seed, label=t(lang, "preset.seed"), width=110,
                                    css_classes=["preset-seed"],
                                    visible=pn.bind(lambda _: self.current().seeded, self.param.chosen))
        load = pn.widgets.Button(label=t(lang, "preset.load"), color="primary", variant="outline", align="end",
                                 css_classes=["preset-load"])
        load.on_click(lambda _: self.load())
        def look(_) -> str:
            words = t(lang, "preset.look", look=pick(self.current().workload.look_for, lang))
            return f'<p class="muted preset-look">{esc(words)}</p>'
        parts = [pn.FlexBox(select, seed, load, align_items="end"), pane(pn.bind(look, self.param.chosen))]
        if self.problem:
            parts.append(pane(render.error_note(t(lang, "preset.problem", problem=self.problem)),
                              css_classes=["preset-problem"]))
        return pn.Column(*parts, sizing_mode="stretch_width", css_classes=["presets"])
