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
from .panes import FOLDING, SCALED, Kept, pane
from .presets import PresetView
from .teach import Teaching
from .text import LANGUAGES, TEXT, field_help, label, pick, t
from .textfield import TextField

ITEM_LISTS = "|".join(schema(mode).items for mode in names())   # tasks|tenants: where a row's error is
# The editor's rows on screen at once: a link of 100 tasks lays out ten rows' widgets, not a hundred (issue 19 item 4).
ROWS_PER_PAGE = 10
FIELD_ERROR = re.compile(rf"^(?P<list>{ITEM_LISTS})\[(?P<index>\d+)\]\.(?P<field>[a-z_]+)")
# A row's fields in the editor, in pixels (others 64): wide enough for their whole value (a burst of 990000), narrow
# enough that an LLM tenant's row (name, cost, count, costs, join, weight, ✕) stays on one line at 1920 px.
WIDTHS = {"name": 96, "costs": 120, "arrivals": 120, "arrival": 84, "burst": 84, "bursts": 120, "sections": 160,
          "requests": 200}
PARAMETER_WIDTHS = {"classes": 220}   # a parameter's field (others 160): MLQ's classes in their compact text


def head(field: str) -> str:
    """The parameter a field of an error names: ``conventions`` of ``conventions.boost_order``."""
    return re.split(r"[\[.]", field, maxsplit=1)[0]


def menu_groups(mode: str, catalog, lang: str) -> dict[str, dict[str, str]]:
    """The algorithm menu's entries, by group: label -> the algorithm's name (your own policy last)."""
    groups: dict[str, dict[str, str]] = {}
    for algorithm in catalog.values():
        group = t(lang, f"group.{algorithm.group}") if f"group.{algorithm.group}" in TEXT else algorithm.group
        groups.setdefault(group, {})[algorithm.label.get(lang, algorithm.name)] = algorithm.name
    if mode in TEMPLATES:   # the mode's core offers a policy of your own
        groups[t(lang, "group.custom")] = {t(lang, "custom.label"): CUSTOM}
    return groups


def placeholder(field) -> str:
    """What an empty field of the editor means: the core's default (weight 1, join 0, tickets 100, ...)."""
    return "" if field.required or field.default is None else str(field.default)


class LabUI(LabView):
    """The views of one ``Lab``: header, editor, step controls, and each mode's pictures and table."""

    asked = param.List(default=[], doc="the item fields of the mode's on_request the reader asked to see")
    row_page = param.Integer(default=0, bounds=(0, None), doc="the editor's page of rows on screen, from 0")

    def __init__(self, lab=None, **params) -> None:
        super().__init__(lab, **params)
        self.teaching = Teaching(self.lab)
        self.stepping = Stepping(self.lab, self.teaching)
        self.presets = PresetView(self.lab)
        self._editor: pn.Column | None = None
        self._keep = Kept()   # the editor's widgets

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
    # The editor is laid out again when the algorithm, the rows, the mode, the language or the fields asked for
    # change, with the widgets it already has (``panes.Kept``: a choice made while it changes is never lost).
    def editor(self) -> pn.Column:
        if self._editor is None:
            self._editor = pn.Column(sizing_mode="stretch_width", css_classes=["editor"])
            self._lay_out_editor()
            self.lab.param.watch(self._lay_out_editor, ["state", "inputs", "lang"])
            self.param.watch(self._lay_out_editor, ["asked", "row_page"])
        return self._editor

    def _lay_out_editor(self, *_) -> None:
        self._keep.lay_out(self._editor, self._editor_parts)

    def _editor_parts(self) -> list:
        lab, lang, keep = self.lab, self.lab.lang, self._keep
        catalog = lab.catalog
        groups = menu_groups(lab.mode, catalog, lang)

        def algorithm_menu():
            select = pn.widgets.Select(groups=groups, value=lab.algorithm, sizing_mode="stretch_width")
            pn.bind(lab.set_algorithm, select, watch=True)
            return select
        select = keep(("algorithm", lab.mode), algorithm_menu)
        select.param.update(label=t(lang, "algorithm"), groups=groups, value=lab.algorithm)
        info = catalog.get(lab.algorithm)
        summary = render.esc(info.summary.get(lang, "")) if info else ""
        parts = [select, self._html(("summary",), f'<p class="muted">{summary}</p>'),
                 self._error_pane(lambda field: field == "algorithm", key=("algorithm",)),
                 keep(("preset controls",), lambda: pn.panel(self.presets.controls))]
        mode, own = app_mode(lab.mode), views_of(lab.mode).own_parameters
        card_of = {name: card for card in mode.cards for name in card.parameters}
        folded: dict[Card, list] = {}
        widgets_of: dict[str, list] = {}
        for name in lab.used_parameters():
            if name in own:   # the mode's views draw it (CPU's conventions card, below)
                continue
            card = card_of.get(name)
            # its errors, of an item too (classes[1].rule), where it is typed
            widgets_of[name] = [self._parameter(name),
                                self._error_pane(lambda field, name=name: head(field) == name, key=("parameter", name))]
            shown = views_of(lab.mode).shown_if.get(name)
            if shown:   # one column, shown while the other parameters ask for it
                column = keep(("shown if", lab.mode, name), lambda shown=shown: pn.Column(
                    sizing_mode="stretch_width", margin=0, visible=pn.bind(shown, lab.state.param.parameters)))
                column.objects = widgets_of[name]
                widgets_of[name] = [column]
            if card:
                folded.setdefault(card, [])
            else:
                parts += widgets_of[name]
        for card, widgets in folded.items():   # folded unless one of its parameters is set; in the card's order
            widgets = [w for name in card.parameters for w in widgets_of.get(name, [])]
            opened = any(lab.parameters.get(name, "").strip() for name in card.parameters)
            folding = keep(("card", lab.mode, card.title), lambda card=card: pn.Card(
                sizing_mode="stretch_width", css_classes=[f"card-{card.title}"], margin=(4, 0),
                stylesheets=[FOLDING], collapsed=True))
            folding.param.update(objects=widgets, title=mode.say(lang, card.title),
                                 **({"collapsed": False} if opened else {}))   # never folded under the reader
            parts.append(folding)
        parts += views_of(lab.mode).editor_cards(lab, self._error_pane,
                                                 lambda key, make: keep(("mode card", lab.mode, *key), make))
        parts += self._presets()   # after the algorithm's own menu, which stays the editor's first
        reads = info.item_fields if info else ()
        listing = schema(lab.mode).items
        parts.append(self._html(("heading",), f"<h2>{render.esc(t(lang, listing))}</h2>"))
        hidden = set()
        for name in views_of(lab.mode).on_request:   # shown when asked for, or when a row has one
            given = any(row.text(name).strip() for row in lab.rows)
            if not given and name not in self.asked:
                hidden.add(name)

            def show_toggle(name=name):
                toggle = pn.widgets.Checkbox(css_classes=[f"show-{name}"], stylesheets=SCALED)
                pn.bind(self._ask, name, toggle, watch=True)
                return toggle
            toggle = keep(("show", lab.mode, name), show_toggle)
            toggle.param.update(label=t(lang, "fields.show", field=label(lang, name)), value=name not in hidden,
                                disabled=given)
            parts.append(toggle)
        first, shown = self._rows_shown()
        if len(lab.rows) > ROWS_PER_PAGE:
            parts.append(self._row_pages(first, len(shown), listing))
        parts += [self._row_editor(row, reads, hidden) for row in shown]
        full = len(lab.rows) >= MAX_ROWS

        def add_button():
            add = pn.widgets.Button(color="primary", variant="outline", stylesheets=SCALED)
            add.on_click(lambda _: self._add_row())
            return add
        add = keep(("add",), add_button)
        add.param.update(label=t(lang, f"add.{listing}"), disabled=full)
        limit = t(lang, "limit.full", limit=MAX_ROWS, what=listing)
        parts += [add, self._html(("limit",), f'<p class="muted row-limit" role="status">{render.esc(limit)}</p>'
                                  if full else ""),
                  self._error_pane(lambda field: not FIELD_ERROR.match(field) and field != "algorithm"
                                   and head(field) not in lab.used_parameters() and head(field) not in own,
                                   key=("rest",))]
        return parts

    def _last_page(self) -> int:
        return max(len(self.lab.rows) - 1, 0) // ROWS_PER_PAGE

    def _page_shown(self) -> int:
        """The editor's page of rows on screen: the one asked for, or the last one."""
        return min(self.row_page, self._last_page())

    def _rows_shown(self) -> tuple[int, list[Row]]:
        """The index of the first row on screen and the rows there."""
        first = self._page_shown() * ROWS_PER_PAGE
        return first, self.lab.rows[first:first + ROWS_PER_PAGE]

    def turn_rows(self, by: int) -> None:
        """Another page of the editor's rows, ``by`` pages on from the one on screen (none past either end)."""
        self.row_page = max(0, min(self._last_page(), self._page_shown() + by))

    def _add_row(self) -> None:
        """A new row, on screen: its page first (the next row's index), then the row."""
        self.row_page = len(self.lab.rows) // ROWS_PER_PAGE
        self.lab.add_row()

    def _row_pages(self, first: int, count: int, listing: str) -> pn.FlexBox:
        """Which rows are on screen, and the buttons to the others."""
        lab, lang = self.lab, self.lab.lang

        def turner(by: int, css: str):
            def make():
                button = pn.widgets.Button(css_classes=[css], stylesheets=SCALED, margin=(2, 4))
                button.on_click(lambda _: self.turn_rows(by))
                return button
            return self._keep(("rows", css), make)
        back, forward = turner(-1, "rows-previous"), turner(1, "rows-next")
        back.param.update(label=t(lang, "rows.previous", n=ROWS_PER_PAGE), disabled=first == 0)
        forward.param.update(label=t(lang, "rows.next", n=ROWS_PER_PAGE), disabled=first + count >= len(lab.rows))
        words = t(lang, "rows.shown", what=t(lang, listing), first=first + 1, last=first + count, total=len(lab.rows))
        shown = self._keep(("rows shown",), lambda: pane("", sizing_mode=None, margin=(0, 4)))   # between the two
        shown.object = f'<p class="muted rows-shown" role="status">{render.esc(words)}</p>'
        bar = self._keep(("rows bar",), lambda: pn.FlexBox(align_items="center", gap="0 4px"))
        bar.objects = [back, shown, forward]
        return bar

    def _html(self, key: tuple, markup: str) -> pn.pane.HTML:
        """A kept pane of the editor showing ``markup`` (an open <details> stays open while the editor changes)."""
        shown = self._keep(("html", *key), lambda: pane(""))
        shown.object = markup
        return shown

    def _presets(self) -> list:
        """The mode's presets, one menu: choosing one loads it, and opens Compare when it compares two runs."""
        lab, lang = self.lab, self.lab.lang
        presets = app_mode(lab.mode).presets
        if not presets:
            return []
        options = {t(lang, "presets.choose"): "", **{pick(preset.words["label"], lang): key
                                                       for key, preset in presets.items()}}

        def preset_menu():
            menu = pn.widgets.Select(value="", sizing_mode="stretch_width", css_classes=["presets"])

            def load(key: str) -> None:
                if key:
                    lab.use_preset(key)
                    if presets[key].compare is not None:
                        self.teaching.view = "compare"
                    menu.value = ""   # a menu of lessons: the same one may be loaded again after edits
            pn.bind(load, menu, watch=True)
            return menu
        menu = self._keep(("presets", lab.mode), preset_menu)
        menu.param.update(label=t(lang, "presets"), options=options)
        summaries = "".join(f'<li><strong>{render.esc(pick(p.words["label"], lang))}</strong>: '
                            f'{render.esc(pick(p.words["summary"], lang))}</li>' for p in presets.values())
        return [menu, self._html(("presets help",), f'<details class="muted presets-help"><summary>'
                                 f'{render.esc(t(lang, "presets.what"))}</summary><ul>{summaries}</ul></details>')]

    def _parameter(self, name: str):
        """A parameter's widget: a text field (its placeholder the core's default), or a list to pick from for a
        choice or true/false. Its empty option is the default; in a card with a preset, the preset's value."""
        lab, lang = self.lab, self.lab.lang
        text = lab.parameters.get(name, "")
        if not chosen(lab.mode, name):
            hint = "" if shown_when_empty(lab.mode, name) else placeholder(schema(lab.mode).field(name))

            def text_box():
                box = TextField(value=text, width=PARAMETER_WIDTHS.get(name, 160), css_classes=[f"param-{name}"])
                pn.bind(lab.set_parameter, name, box, watch=True)
                return box
            box = self._keep(("parameter", lab.mode, name), text_box)
            box.param.update(label=label(lang, name), description=field_help(lang, name), placeholder=hint,
                             **({} if box.value == text else {"value": text}))
            return box
        options = choice_options(lab.mode, name, lang)
        values = set(options.values())

        def menu():
            select = pn.widgets.Select(options=options, value=text if text in values else "",
                                       sizing_mode="stretch_width", max_width=420, css_classes=[f"param-{name}"])
            pn.bind(lab.set_parameter, name, select, watch=True)
            return select
        select = self._keep(("parameter", lab.mode, name), menu)
        select.param.update(label=label(lang, name), options=options, value=text if text in values else "",
                            description=field_help(lang, name))
        return select

    def _ask(self, name: str, shown: bool) -> None:
        self.asked = [*(field for field in self.asked if field != name), *([name] if shown else [])]

    def _row_editor(self, row: Row, reads: tuple[str, ...], hidden: set[str]):
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
        widgets = []
        for f in fields:
            box = self._keep(("field", row, f.name), lambda f=f: TextField.from_param(
                row.widget_param(f.name), width=WIDTHS.get(f.name, 64), css_classes=[f"field-{f.name}"],
                margin=(2, 4), placeholder=placeholder(f)))
            box.param.update(label=label(lang, f.name), description=field_help(lang, f.name))
            widgets.append(box)

        def remove_button():
            remove = pn.widgets.Button(label="✕", width=40, margin=(2, 4), align="end", color="danger",
                                       variant="outline")
            remove.on_click(lambda _: lab.remove_row(row))
            return remove
        remove = self._keep(("remove", row), remove_button)
        remove.param.update(description=t(lang, "remove.row", name=row.label), disabled=len(lab.rows) <= 1)
        listing = schema(lab.mode).items

        def mine(field: str) -> bool:   # the row's own errors, at its place now (rows before it may go)
            match = FIELD_ERROR.match(field)
            return bool(match) and match["list"] == listing and row in lab.rows and \
                int(match["index"]) == lab.rows.index(row)

        fields_box = self._keep(("row fields", row), lambda: pn.FlexBox(gap="0 4px"))
        fields_box.objects = [*widgets, remove]
        return self._keep(("row", row), lambda: pn.Column(
            fields_box, self._error_pane(mine), sizing_mode="stretch_width", css_classes=["row-editor"],
            margin=(0, 0, 6, 0)))

    def _error_pane(self, owns, key: tuple | None = None):
        """The core's message for the fields ``owns`` accepts, shown where those fields are typed (kept by the
        editor under ``key``: ``owns`` must then say the same for that key at every layout)."""
        if key is not None:
            return self._keep(("errors", self.lab.mode, *key), lambda: self._error_pane(owns))
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
        editor = pn.Column(self.editor(), sizing_mode="stretch_width", visible=self.lab.param.presenter.rx.not_(),
                           styles={"flex": "1 1 320px", "max-width": "640px", "min-width": "0"})
        controls = self.stepping.pager
        visuals = pn.Column(self.teaching.views(pn.Column(controls, self.visuals, sizing_mode="stretch_width"),
                                               controls),
                            sizing_mode="stretch_width", styles={"flex": "2.5 1 540px", "min-width": "0"})
        return pn.Column(self.header(), self.notices, pn.FlexBox(editor, visuals, sizing_mode="stretch_width",
                                                               gap="8px"),
                         sizing_mode="stretch_width", css_classes=["lab-root"],
                         styles=pn.bind(presenter_style, self.lab.param.presenter))
