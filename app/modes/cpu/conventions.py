"""CPU mode's "Conventions" card in the editor: how ties at one instant are broken, as a preset (the core's
``CONVENTIONS``: the lab's, OSTEP's) or the three flags one by one.

The card writes one parameter, ``conventions``: a preset's name, or the flags as ``name=value`` pairs
(``model.parameter_value`` makes them the mapping the core reads). It folds, and its title says the conventions in
force, so a folded card still tells them.
"""
from __future__ import annotations

import panel as pn

from schedulers.cpu.scenario import BOOST_ORDERS, CONVENTION_FLAGS, CONVENTIONS

from ...model import pairs_value
from ...panes import FOLDING, SCALED, pane
from ...render import esc
from ...text import t

FIELD = "conventions"
OWN = "own"   # the preset menu's entry for flags set one by one
DEFAULT = next(iter(CONVENTIONS))   # the lab's, the core's default


def flags_of(text: str) -> tuple[str, dict[str, object]]:
    """The field's text as (preset or OWN, the three flags): empty is the default preset; a name the core does not
    know shows the default's flags (the core's message names the field)."""
    text = text.strip() or DEFAULT
    if "=" not in text:
        return (text if text in CONVENTIONS else OWN), CONVENTIONS.get(text, CONVENTIONS[DEFAULT]).flags()
    typed = pairs_value(text)
    flags = CONVENTIONS[DEFAULT].flags()
    for name in CONVENTION_FLAGS:
        if name == "boost_order":   # an order the core does not know shows the default (its message names it)
            flags[name] = typed[name] if typed.get(name) in BOOST_ORDERS else flags[name]
        elif name in typed:
            flags[name] = typed[name] is True
    return OWN, flags


def flags_text(flags: dict[str, object]) -> str:
    return ",".join(f"{name}={str(flags[name]).lower()}" for name in CONVENTION_FLAGS)


class ConventionsCard:
    """The card of one editor: a preset menu, two checkboxes and the boost's order, kept in step with each other
    (choosing a preset shows its flags; changing a flag makes them your own)."""

    def __init__(self, lab, errors) -> None:
        self.lab = lab
        self.quiet = False   # while the card sets its own widgets
        self.preset = pn.widgets.Select(css_classes=["conventions-preset"], stylesheets=SCALED)
        self.flags = {name: pn.widgets.Checkbox(css_classes=[f"conventions-{name}"], stylesheets=SCALED)
                      for name in CONVENTION_FLAGS if name != "boost_order"}
        self.order = pn.widgets.Select(css_classes=["conventions-order"], stylesheets=SCALED)
        self.note = pane("")
        self.card = pn.Card(self.preset, *self.flags.values(), self.order, self.note,
                            errors(lambda field: field.split(".")[0] == FIELD), sizing_mode="stretch_width",
                            css_classes=["conventions-card"], margin=(4, 0), stylesheets=[FOLDING])
        self.refresh()
        self.card.collapsed = self.preset.value == DEFAULT
        self.preset.param.watch(self._preset_chosen, "value")
        for widget in (*self.flags.values(), self.order):
            widget.param.watch(self._flag_changed, "value")

    def refresh(self) -> None:
        """The card in the lab's language, showing the parameter as it is (the editor keeps one card per lab)."""
        lang = self.lab.lang
        preset, flags = flags_of(self.lab.parameters.get(FIELD, ""))
        self.quiet = True
        self.preset.param.update(label=t(lang, "conventions.preset"), value=preset, options={
            t(lang, f"conventions.{name}"): name for name in (*CONVENTIONS, OWN)})
        for name, box in self.flags.items():
            box.param.update(label=t(lang, f"conventions.{name}"), value=bool(flags[name]))
        self.order.param.update(label=t(lang, "conventions.boost_order"), value=flags["boost_order"], options={
            t(lang, f"conventions.order.{order}"): order for order in BOOST_ORDERS})
        self.quiet = False
        self.note.object = f'<p class="muted">{esc(t(lang, "conventions.note"))}</p>'
        self.card.title = self.title(preset)

    def title(self, preset: str) -> str:
        return t(self.lab.lang, "conventions.title", preset=t(self.lab.lang, f"conventions.{preset}"))

    def _preset_chosen(self, event) -> None:
        if self.quiet:
            return
        self.card.title = self.title(event.new)
        if event.new == OWN:   # the flags as they are, now your own
            self.lab.set_parameter(FIELD, flags_text(self._flags()))
            return
        self._show(CONVENTIONS[event.new].flags())
        self.lab.set_parameter(FIELD, event.new)

    def _flag_changed(self, _) -> None:
        if self.quiet:
            return
        self.quiet = True
        self.preset.value = OWN
        self.quiet = False
        self.card.title = self.title(OWN)
        self.lab.set_parameter(FIELD, flags_text(self._flags()))

    def _flags(self) -> dict[str, object]:
        return {**{name: box.value for name, box in self.flags.items()}, "boost_order": self.order.value}

    def _show(self, flags: dict[str, object]) -> None:
        self.quiet = True
        for name, box in self.flags.items():
            box.value = bool(flags[name])
        self.order.value = flags["boost_order"]
        self.quiet = False
