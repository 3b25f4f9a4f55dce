"""The Panel layout of the lab: each piece is a view of ``model.Lab``, re-rendered by ``param.depends``.

The only imperative links are the widgets' ``on_click``/``pn.bind(..., watch=True)`` calls into ``Lab``
methods; everything shown follows from ``Lab``'s parameters. What changes with the step (counter, state, the
rule's lines, the table's marks, the Gantt cursor) is the pager's (``app/pager.py``): rendered once per run as
frames, shown by the browser at each step without a round trip.
"""
from __future__ import annotations

import re
from pathlib import Path

import panel as pn
import param

from . import query, render
from .custom import CUSTOM
from .model import MAX_ROWS, Lab, Row
from .pager import Stepping
from .teach import Teaching
from .teach_text import t as teach_t
from .text import LANGUAGES, TEXT, t

CSS_FILE = Path(__file__).resolve().parent.parent / "static" / "lab.css"


def site_css() -> str:
    """static/lab.css as text, read once at import and handed to each pane as a stylesheet.

    Panel renders every component in its own shadow root, so a page-wide <link> cannot style the HTML the
    panes hold; a stylesheet string travels with the pane instead and needs no server (Pyodide included).
    Where the file is not beside the code (a bundle without ``static/``), the pane links ``lab.css`` instead,
    relative to the page, which the static site ships next to its HTML.
    """
    try:
        return CSS_FILE.read_text(encoding="utf-8")
    except OSError:
        return "lab.css"


CSS = site_css()
# Panel's bootstrap buttons size their text in rem (the page root); in em they follow presenter mode.
SCALED = [".bk-btn { --bs-btn-font-size: 0.95em; --bs-btn-padding-x: 0.6em; --bs-btn-padding-y: 0.3em; }"]
FIELD_ERROR = re.compile(r"^(?P<list>tasks|tenants)\[(?P<index>\d+)\]\.(?P<field>[a-z_]+)")


def html(content, **kwargs) -> pn.pane.HTML:
    """An HTML pane with the lab's stylesheet; ``content`` is markup from ``render`` (already escaped)."""
    kwargs = {"sizing_mode": "stretch_width", "margin": (4, 4), **kwargs}
    return pn.pane.HTML(content, stylesheets=[CSS], **kwargs)


def label(lang: str, field: str) -> str:
    return t(lang, f"field.{field}") if f"field.{field}" in TEXT else field


class LabUI(param.Parameterized):
    """The views of one ``Lab``: header, editor, step controls, and each mode's pictures and table."""

    lab = param.ClassSelector(class_=Lab)

    def __init__(self, lab: Lab, **params) -> None:
        super().__init__(lab=lab, **params)
        self.teaching = Teaching(lab)
        self.stepping = Stepping(lab, self.teaching)
        self.teaching.compare.stepping = self.stepping

    # --- header --------------------------------------------------------------------------------------
    @param.depends("lab.lang", "lab.mode")
    def header(self):
        lab, lang = self.lab, self.lab.lang
        modes = pn.widgets.RadioButtonGroup(options={t(lang, f"mode.{m}"): m for m in ("cpu", "llm")},
                                            value=lab.mode, button_type="primary", button_style="outline",
                                            name=t(lang, "mode"), margin=(4, 4), stylesheets=SCALED)
        modes.link(lab, value="mode")
        language = pn.widgets.RadioButtonGroup(options={v: k for k, v in LANGUAGES.items()}, value=lang,
                                               name=t(lang, "language"), margin=(4, 4), stylesheets=SCALED)
        language.link(lab, value="lang")
        presenter = pn.widgets.Toggle.from_param(lab.param.presenter, name=t(lang, "presenter"), margin=(4, 4),
                                                 button_type="default", stylesheets=SCALED)
        help_key = "help" if lab.mode == "cpu" else "help.llm"
        help_html = (f'<details class="help"><summary>?</summary><p>{render.esc(t(lang, help_key))}</p>'
                     f'<p>{render.esc(t(lang, "keys"))}</p></details>')
        title = html(f'<h1 class="title">{render.esc(t(lang, "title"))}</h1>', sizing_mode=None)
        return pn.FlexBox(title, modes, language, presenter, html(help_html, sizing_mode=None), align_items="center",
                          sizing_mode="stretch_width")

    @param.depends("lab.notices", "lab.lang")
    def notices(self):
        lang = self.lab.lang
        def in_lang(problem: str | dict[str, str]) -> str:  # the core's text, or the app's own in each language
            return problem.get(lang, problem["en"]) if isinstance(problem, dict) else problem
        items = "".join(f"<li>{render.esc(t(lang, 'url.ignored', field=f, problem=in_lang(p)))}</li>"
                        for f, p in self.lab.notices)
        return html(f'<ul class="notice" role="status">{items}</ul>' if items else "")

    # --- editor --------------------------------------------------------------------------------------
    @param.depends("lab.mode", "lab.cpu_algorithm", "lab.llm_algorithm", "lab.lang", "lab.tasks", "lab.tenants")
    def editor(self):
        lab, lang = self.lab, self.lab.lang
        catalog = lab.catalog
        groups: dict[str, dict[str, str]] = {}
        for algorithm in catalog.values():
            group = t(lang, f"group.{algorithm.group}") if f"group.{algorithm.group}" in TEXT else algorithm.group
            groups.setdefault(group, {})[algorithm.label.get(lang, algorithm.name)] = algorithm.name
        groups[teach_t(lang, "group.custom")] = {teach_t(lang, "custom.label"): CUSTOM}
        select = pn.widgets.Select(name=t(lang, "algorithm"), groups=groups, value=lab.algorithm,
                                   sizing_mode="stretch_width")
        pn.bind(lab.set_algorithm, select, watch=True)
        info = catalog.get(lab.algorithm)
        parts = [select, html(f'<p class="muted">{render.esc(info.summary.get(lang, "")) if info else ""}</p>'),
                 self._error_pane(lambda field: field == "algorithm")]
        for name in lab.used_parameters():
            box = pn.widgets.TextInput(name=label(lang, name), value=lab.parameters.get(name, ""), width=160,
                                       css_classes=[f"param-{name}"],
                                       description=t(lang, f"help.{name}") if f"help.{name}" in TEXT else None)
            pn.bind(lab.set_parameter, name, box, watch=True)
            parts += [box, self._error_pane(lambda field, name=name: field == name)]
        extra = info.item_fields if info else ()
        heading = t(lang, "tasks" if lab.mode == "cpu" else "tenants")
        parts.append(html(f"<h2>{render.esc(heading)}</h2>"))
        for index, row in enumerate(lab.rows):
            parts.append(self._row_editor(row, index, extra))
        full = len(lab.rows) >= MAX_ROWS
        add = pn.widgets.Button(name=t(lang, "add.task" if lab.mode == "cpu" else "add.tenant"), disabled=full,
                                button_type="primary", button_style="outline", stylesheets=SCALED)
        add.on_click(lambda _: lab.add_row())
        limit = t(lang, "limit.full", limit=MAX_ROWS, what="tasks" if lab.mode == "cpu" else "tenants")
        parts += [add, html(f'<p class="muted row-limit" role="status">{render.esc(limit)}</p>' if full else ""),
                  self._error_pane(lambda field: not FIELD_ERROR.match(field) and field != "algorithm"
                                        and field not in lab.used_parameters())]
        return pn.Column(*parts, sizing_mode="stretch_width", css_classes=["editor"])

    def _row_editor(self, row: Row, index: int, extra: tuple[str, ...]):
        lab, lang = self.lab, self.lab.lang
        # Optional fields appear when the algorithm reads them, or when the row already has a value there.
        base, optional = (["arrival", "burst"], query.TASK_OPTIONAL) if lab.mode == "cpu" else \
            (["cost", "count", "costs", "join"], ("weight",))
        fields = [*base, *[f for f in optional if f in extra or row.text(f).strip()]]
        widths = {"name": 104, "costs": 140}
        placeholders = {"join": "0", "weight": "1"}  # the core's defaults
        widgets = [pn.widgets.TextInput.from_param(row.widget_param(f), name=label(lang, f),
                                                   width=widths.get(f, 64), css_classes=[f"field-{f}"],
                                                   margin=(2, 4), placeholder=placeholders.get(f, ""),
                                                   description=t(lang, f"help.{f}") if f"help.{f}" in TEXT else None)
                   for f in ["name", *fields]]
        remove = pn.widgets.Button(name="✕", description=t(lang, "remove.row", name=row.label), width=40,
                                   margin=(2, 4), align="end", button_type="danger", button_style="outline",
                                   disabled=len(lab.rows) <= 1)
        remove.on_click(lambda _: lab.remove_row(row))
        listing = "tasks" if lab.mode == "cpu" else "tenants"

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
                    where = label(lang, match["field"]) if match else field
                    notes.append(render.error_note(t(lang, "invalid", problem=f"{where} ({field}): {problem}")))
            return "".join(notes)
        return html(pn.bind(message, self.lab.param.errors, self.lab.param.lang))

    @param.depends("lab.errors", "lab.lang")
    def invalid_banner(self):
        lab, lang = self.lab, self.lab.lang
        notes = [t(lang, "invalid", problem=f"{field}: {problem}") for field, problem in lab.errors.items()]
        return "".join(f'<p class="error banner">{render.esc(n)}</p>' for n in notes)

    # --- the step's views: the pager's slots, and the Gantt chart whose cursor it moves ------------------------
    @param.depends("lab.result", "lab.lang", "lab.presenter")
    def gantt(self):
        lab = self.lab
        if not lab.result or lab.result.get("mode") != "cpu":
            self.stepping.follow("lab", "", None)
            return html("")
        gantt = render.Gantt(lab.result, lab.lang, lab.presenter)
        gantt.move(lab.result["steps"][lab.step].get("time", lab.step))
        self.stepping.follow("lab", "time", gantt)
        return pn.pane.Bokeh(gantt.plot, sizing_mode="stretch_width", css_classes=["gantt"])

    @param.depends("lab.result", "lab.lang")
    def fairness(self):
        result = self.lab.result
        return render.fairness(result, self.lab.lang) if result and result.get("mode") == "llm" else ""

    @param.depends("lab.mode")
    def visuals(self):
        # What changes with the step is in the pager's slots, filled in the browser; Python lays them out once.
        slot = self.stepping.slot
        if self.lab.mode == "cpu":
            views = [self.gantt, slot("state")]
        else:
            views = [slot("strip"), slot("state"), html(self.fairness)]
        # The rule's own code beside the timeline (below it when the screen is narrow).
        beside = pn.FlexBox(pn.Column(*views, sizing_mode="stretch_width", styles={"flex": "3 1 420px", "min-width": "0"}),
                            pn.Column(slot("source", css_classes=["source-pane"]), sizing_mode="stretch_width",
                                      styles={"flex": "2 1 320px", "min-width": "0"}),
                            sizing_mode="stretch_width", gap="4px")
        return pn.Column(html(self.invalid_banner), slot("counter"), beside,
                         slot("metrics", css_classes=["metrics-pane"]), sizing_mode="stretch_width")

    # --- the page --------------------------------------------------------------------------------------
    def page(self):
        def presenter_style(on: bool) -> dict[str, str]:
            size = "22px" if on else "15px"
            return {"--bokeh-font-size": size, "font-size": size, "max-width": "1920px", "margin": "0 auto"}

        editor = pn.Column(self.editor, sizing_mode="stretch_width",
                           styles={"flex": "1 1 300px", "max-width": "560px", "min-width": "0"})
        controls = self.stepping.pager
        visuals = pn.Column(self.teaching.views(pn.Column(controls, self.visuals, sizing_mode="stretch_width"),
                                               controls),
                            sizing_mode="stretch_width", styles={"flex": "3 1 540px", "min-width": "0"})
        return pn.Column(self.header, self.notices, pn.FlexBox(editor, visuals, sizing_mode="stretch_width",
                                                               gap="8px"),
                         sizing_mode="stretch_width", css_classes=["lab-root"],
                         styles=pn.bind(presenter_style, self.lab.param.presenter))
