"""The Panel layout of the lab: each piece is a view of ``model.Lab``, re-rendered by ``param.depends``.

The only imperative links are the widgets' ``on_click``/``pn.bind(..., watch=True)`` calls into ``Lab``
methods; everything shown follows from ``Lab``'s parameters. What changes with the step (counter, state, the
rule's lines, the table's marks, the Gantt cursor) is the pager's (``app/pager.py``): rendered once per run as
frames, shown by the browser at each step without a round trip.
"""
from __future__ import annotations

import re

import panel as pn
import param

from schedulers import schema
from schedulers.custom import CUSTOM, TEMPLATES

from . import render
from .model import MAX_ROWS, LabView, Row, choice_options, chosen, shown_when_empty, shown_when_given
from .modes import Card, app_mode, names, views_of
from .pager import Stepping
from .panes import FOLDING, SCALED, pane
from .presets import PresetView
from .teach import Teaching
from .text import LANGUAGES, TEXT, field_help, label, pick, t
from .textfield import TextField

ITEM_LISTS = "|".join(schema(mode).items for mode in names())   # tasks|tenants: where a row's error is
FIELD_ERROR = re.compile(rf"^(?P<list>{ITEM_LISTS})\[(?P<index>\d+)\]\.(?P<field>[a-z_]+)")
# A row's fields in the editor, in pixels (others 64): wide enough for their whole value (a burst of 990000), narrow
# enough that an LLM tenant's row (name, cost, count, costs, join, weight, ✕) stays on one line at 1920 px.
WIDTHS = {"name": 96, "costs": 120, "arrivals": 120, "arrival": 84, "burst": 84, "bursts": 120, "sections": 160,
          "requests": 200}
PARAMETER_WIDTHS = {"classes": 220}   # a parameter's field (others 160): MLQ's classes in their compact text


def head(field: str) -> str:
    """The parameter a field of an error names: ``conventions`` of ``conventions.boost_order``."""
    return re.split(r"[\[.]", field, maxsplit=1)[0]


def placeholder(field) -> str:
    """What an empty field of the editor means: the core's default (weight 1, join 0, tickets 100, ...)."""
    return "" if field.required or field.default is None else str(field.default)


class LabUI(LabView):
    """The views of one ``Lab``: header, editor, step controls, and each mode's pictures and table."""

    asked = param.List(default=[], doc="the item fields of the mode's on_request the reader asked to see")

    def __init__(self, lab=None, **params) -> None:
        super().__init__(lab, **params)
        self.teaching = Teaching(self.lab)
        self.stepping = Stepping(self.lab, self.teaching)
        self.presets = PresetView(self.lab)

    # --- header --------------------------------------------------------------------------------------
    def header(self) -> pn.FlexBox:
        """The title, the mode, the language, presenter mode and the help. Its widgets are made once and relabelled
        in place: a header rebuilt in the new language would drop a click that lands while it is replaced."""
        lab = self.lab
        modes = pn.widgets.RadioButtonGroup(value=lab.mode, color="primary", variant="outline", margin=(4, 4),
                                            stylesheets=SCALED)
        modes.link(lab, value="mode")
        language = pn.widgets.RadioButtonGroup(options={v: k for k, v in LANGUAGES.items()}, value=lab.lang,
                                               margin=(4, 4), stylesheets=SCALED)
        language.link(lab, value="lang")
        presenter = pn.widgets.Toggle.from_param(lab.param.presenter, margin=(4, 4), color="default",
                                                 stylesheets=SCALED)
        title, help_pane = pane("", sizing_mode=None), pane("", sizing_mode=None)

        def relabel(*_) -> None:
            lang = lab.lang
            modes.param.update(options={app_mode(m).say(lang, "label"): m for m in names()}, value=lab.mode,
                               label=t(lang, "mode"))
            language.param.update(value=lang, label=t(lang, "language"))
            presenter.label = t(lang, "presenter")
            title.object = f'<h1 class="title">{render.esc(t(lang, "title"))}</h1>'
            help_pane.object = (f'<details class="help"><summary>?</summary>'
                                f'<p>{render.esc(app_mode(lab.mode).say(lang, "help"))}</p>'
                                f'<p>{render.esc(t(lang, "keys"))}</p></details>')
        relabel()
        lab.param.watch(relabel, ["lang", "mode"])
        return pn.FlexBox(title, modes, language, presenter, help_pane, align_items="center",
                          sizing_mode="stretch_width", css_classes=["lab-header"])

    @param.depends("lab.notices", "lab.lang")
    def notices(self):
        lang = self.lab.lang
        def in_lang(problem: str | dict[str, str]) -> str:  # the core's text, or the app's own in each language
            return problem.get(lang, problem["en"]) if isinstance(problem, dict) else problem
        items = "".join(f"<li>{render.esc(t(lang, 'url.ignored', field=f, problem=in_lang(p)))}</li>"
                        for f, p in self.lab.notices)
        return pane(f'<ul class="notice" role="status">{items}</ul>' if items else "")

    # --- editor --------------------------------------------------------------------------------------
    @param.depends("lab.state", "lab.inputs", "lab.lang", "asked")
    def editor(self):
        lab, lang = self.lab, self.lab.lang
        catalog = lab.catalog
        groups: dict[str, dict[str, str]] = {}
        for algorithm in catalog.values():
            group = t(lang, f"group.{algorithm.group}") if f"group.{algorithm.group}" in TEXT else algorithm.group
            groups.setdefault(group, {})[algorithm.label.get(lang, algorithm.name)] = algorithm.name
        if lab.mode in TEMPLATES:   # the mode's core offers a policy of your own
            groups[t(lang, "group.custom")] = {t(lang, "custom.label"): CUSTOM}
        select = pn.widgets.Select(label=t(lang, "algorithm"), groups=groups, value=lab.algorithm,
                                   sizing_mode="stretch_width")
        pn.bind(lab.set_algorithm, select, watch=True)
        info = catalog.get(lab.algorithm)
        summary = render.esc(info.summary.get(lang, "")) if info else ""
        parts = [select, pane(f'<p class="muted">{summary}</p>'),
                 self._error_pane(lambda field: field == "algorithm"), self.presets.controls]
        mode, own = app_mode(lab.mode), views_of(lab.mode).own_parameters
        card_of = {name: card for card in mode.cards for name in card.parameters}
        folded: dict[Card, list] = {}
        widgets_of: dict[str, list] = {}
        for name in lab.used_parameters():
            if name in own:   # the mode's views draw it (CPU's conventions card, below)
                continue
            card = card_of.get(name)
            # its errors, of an item too (classes[1].rule), where it is typed
            widgets_of[name] = [self._parameter(name), self._error_pane(lambda field, name=name: head(field) == name)]
            shown = views_of(lab.mode).shown_if.get(name)
            if shown:   # one column, shown while the other parameters ask for it
                widgets_of[name] = [pn.Column(*widgets_of[name], sizing_mode="stretch_width", margin=0,
                                              visible=pn.bind(shown, lab.state.param.parameters))]
            if card:
                folded.setdefault(card, [])
            else:
                parts += widgets_of[name]
        for card, widgets in folded.items():   # folded unless one of its parameters is set; in the card's order
            widgets = [w for name in card.parameters for w in widgets_of.get(name, [])]
            opened = any(lab.parameters.get(name, "").strip() for name in card.parameters)
            parts.append(pn.Card(*widgets, title=mode.say(lang, card.title), collapsed=not opened,
                                 sizing_mode="stretch_width", css_classes=[f"card-{card.title}"], margin=(4, 0),
                                 stylesheets=[FOLDING]))
        parts += views_of(lab.mode).editor_cards(lab, self._error_pane)
        parts += self._presets()   # after the algorithm's own menu, which stays the editor's first
        reads = info.item_fields if info else ()
        listing = schema(lab.mode).items
        parts.append(pane(f"<h2>{render.esc(t(lang, listing))}</h2>"))
        hidden = set()
        for name in views_of(lab.mode).on_request:   # shown when asked for, or when a row has one
            given = any(row.text(name).strip() for row in lab.rows)
            if not given and name not in self.asked:
                hidden.add(name)
            toggle = pn.widgets.Checkbox(label=t(lang, "fields.show", field=label(lang, name)),
                                         value=name not in hidden, disabled=given, css_classes=[f"show-{name}"],
                                         stylesheets=SCALED)
            pn.bind(self._ask, name, toggle, watch=True)
            parts.append(toggle)
        for index, row in enumerate(lab.rows):
            parts.append(self._row_editor(row, index, reads, hidden))
        full = len(lab.rows) >= MAX_ROWS
        add = pn.widgets.Button(label=t(lang, f"add.{listing}"), disabled=full, color="primary", variant="outline",
                                stylesheets=SCALED)
        add.on_click(lambda _: lab.add_row())
        limit = t(lang, "limit.full", limit=MAX_ROWS, what=listing)
        parts += [add, pane(f'<p class="muted row-limit" role="status">{render.esc(limit)}</p>' if full else ""),
                  self._error_pane(lambda field: not FIELD_ERROR.match(field) and field != "algorithm"
                                        and head(field) not in lab.used_parameters() and head(field) not in own)]
        return pn.Column(*parts, sizing_mode="stretch_width", css_classes=["editor"])

    def _presets(self) -> list:
        """The mode's presets, one menu: choosing one loads it, and opens Compare when it compares two runs."""
        lab, lang = self.lab, self.lab.lang
        presets = app_mode(lab.mode).presets
        if not presets:
            return []
        options = {t(lang, "presets.choose"): "", **{pick(preset.words["label"], lang): key
                                                       for key, preset in presets.items()}}
        menu = pn.widgets.Select(label=t(lang, "presets"), options=options, value="", sizing_mode="stretch_width",
                                 css_classes=["presets"])

        def load(key: str) -> None:
            if key:
                lab.use_preset(key)
                if presets[key].compare is not None:
                    self.teaching.view = "compare"
        pn.bind(load, menu, watch=True)
        summaries = "".join(f'<li><strong>{render.esc(pick(p.words["label"], lang))}</strong>: '
                            f'{render.esc(pick(p.words["summary"], lang))}</li>' for p in presets.values())
        return [menu, pane(f'<details class="muted presets-help"><summary>{render.esc(t(lang, "presets.what"))}'
                           f'</summary><ul>{summaries}</ul></details>')]

    def _parameter(self, name: str):
        """A parameter's widget: a text field (its placeholder the core's default), or a list to pick from for a
        choice or true/false. Its empty option is the default; in a card with a preset, the preset's value."""
        lab, lang = self.lab, self.lab.lang
        text = lab.parameters.get(name, "")
        if not chosen(lab.mode, name):
            hint = "" if shown_when_empty(lab.mode, name) else placeholder(schema(lab.mode).field(name))
            box = TextField(label=label(lang, name), value=text, width=PARAMETER_WIDTHS.get(name, 160),
                            css_classes=[f"param-{name}"],
                            description=field_help(lang, name), placeholder=hint)
            pn.bind(lab.set_parameter, name, box, watch=True)
            return box
        options = choice_options(lab.mode, name, lang)
        values = set(options.values())
        select = pn.widgets.Select(label=label(lang, name), options=options, value=text if text in values else "",
                                   sizing_mode="stretch_width", max_width=420, css_classes=[f"param-{name}"],
                                   description=field_help(lang, name))
        pn.bind(lab.set_parameter, name, select, watch=True)
        return select

    def _ask(self, name: str, shown: bool) -> None:
        self.asked = [*(field for field in self.asked if field != name), *([name] if shown else [])]

    def _row_editor(self, row: Row, index: int, reads: tuple[str, ...], hidden: set[str]):
        lab, lang = self.lab, self.lab.lang
        # A field every algorithm reads is always there (but one shown on request, until asked for); one only some
        # read appears when the algorithm reads it, or when the row already has a value there (as a list that refines
        # an optional field, arrivals). An empty optional field shows the core's default. A given list that refines an
        # optional field hides the field it replaces (arrivals, join).
        replaced = {name for field in map(schema(lab.mode).field, row._fields)
                    if shown_when_given(lab.mode, field.name) and row.text(field.name).strip()
                    for name in field.instead_of}
        fields = [field for field in map(schema(lab.mode).field, row._fields) if field.name not in hidden
                  and (row.text(field.name).strip() or (not shown_when_given(lab.mode, field.name)
                                                        and field.name not in replaced
                                                        and (not field.read_by or field.name in reads)))]
        widgets = [TextField.from_param(row.widget_param(f.name), label=label(lang, f.name),
                                        width=WIDTHS.get(f.name, 64), css_classes=[f"field-{f.name}"],
                                        margin=(2, 4), placeholder=placeholder(f),
                                        description=field_help(lang, f.name))
                   for f in fields]
        remove = pn.widgets.Button(label="✕", description=t(lang, "remove.row", name=row.label), width=40,
                                   margin=(2, 4), align="end", color="danger", variant="outline",
                                   disabled=len(lab.rows) <= 1)
        remove.on_click(lambda _: lab.remove_row(row))
        listing = schema(lab.mode).items

        def mine(field: str) -> bool:
            match = FIELD_ERROR.match(field)
            return bool(match) and match["list"] == listing and int(match["index"]) == index

        return pn.Column(pn.FlexBox(*widgets, remove, gap="0 4px"), self._error_pane(mine),
                         sizing_mode="stretch_width", css_classes=["row-editor"], margin=(0, 0, 6, 0))

    def _error_pane(self, owns):
        """The core's message for the fields ``owns`` accepts, shown where those fields are typed."""
        def message(errors: dict[str, str], lang: str) -> str:
            notes = []
            for field, problem in errors.items():
                if owns(field):
                    match = FIELD_ERROR.match(field)
                    # a row's field, or an item of a parameter (classes[1].rule: "Classes ..."), by its words
                    where = label(lang, match["field"]) if match else label(lang, head(field)) if head(field) != field \
                        else field
                    notes.append(render.error_note(t(lang, "invalid", problem=f"{where} ({field}): {problem}")))
            return "".join(notes)
        return pane(pn.bind(message, self.lab.param.errors, self.lab.param.lang))

    @param.depends("lab.errors", "lab.lang")
    def invalid_banner(self):
        lab, lang = self.lab, self.lab.lang
        notes = [t(lang, "invalid", problem=f"{field}: {problem}") for field, problem in lab.errors.items()]
        return "".join(f'<p class="error banner">{render.esc(n)}</p>' for n in notes)

    # --- the step's views: the pager's slots, and the charts whose marks it moves -----------------------------
    @param.depends("lab.mode")
    def visuals(self):
        # What changes with the step is in the pager's slots, filled in the browser; Python lays them out once per
        # mode (a layout drawn anew would build a second chart whose cursor the pager could follow instead).
        lab, slot = self.lab, self.stepping.slot
        self.stepping.follow("lab", "", None)   # the mode's own views follow theirs again
        views = views_of(lab.mode).step_views(lab, self.stepping)
        # The rule's own code, in a card that folds: beside the timeline (below it when the screen is narrow) at
        # most a screenful (the pager keeps the step's lines in view); in presenter mode folded, under the step's
        # pictures, which take the whole width.
        source = pn.Card(slot("source", css_classes=["source-pane"]),
                         title=pn.bind(t, lab.param.lang, "rule.title"), collapsed=lab.param.presenter,
                         sizing_mode="stretch_width", css_classes=["source-card"], margin=(4, 4),
                         stylesheets=[FOLDING])
        pictures = pn.Column(*views, sizing_mode="stretch_width", styles={"flex": "3 1 420px", "min-width": "0"})
        beside = pn.bind(lambda on: {"flex": "1 1 100%" if on else "2 1 320px", "min-width": "0"}, lab.param.presenter)
        shown = pn.FlexBox(pictures, pn.Column(source, sizing_mode="stretch_width", styles=beside),
                           sizing_mode="stretch_width", gap="4px")
        return pn.Column(pane(self.invalid_banner), slot("counter"), shown,
                         slot("metrics", css_classes=["metrics-pane"]), sizing_mode="stretch_width")

    # --- the page --------------------------------------------------------------------------------------
    def page(self):
        def presenter_style(on: bool) -> dict[str, str]:
            size = "22px" if on else "15px"
            return {"--bokeh-font-size": size, "font-size": size, "max-width": "1920px", "margin": "0 auto"}

        # In presenter mode the step's views take the screen; the editor is back when presenter mode is off.
        editor = pn.Column(self.editor, sizing_mode="stretch_width", visible=self.lab.param.presenter.rx.not_(),
                           styles={"flex": "1 1 320px", "max-width": "640px", "min-width": "0"})
        controls = self.stepping.pager
        visuals = pn.Column(self.teaching.views(pn.Column(controls, self.visuals, sizing_mode="stretch_width"),
                                               controls),
                            sizing_mode="stretch_width", styles={"flex": "2.5 1 540px", "min-width": "0"})
        return pn.Column(self.header(), self.notices, pn.FlexBox(editor, visuals, sizing_mode="stretch_width",
                                                               gap="8px"),
                         sizing_mode="stretch_width", css_classes=["lab-root"],
                         styles=pn.bind(presenter_style, self.lab.param.presenter))
