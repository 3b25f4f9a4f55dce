"""Exports of the current run, the same in the served app and the static site (no server needed):

- the trace as JSON (``schedulers.export.trace_json``: byte for byte the command line's ``--json``) and the metrics
  as CSV, through ``pn.widgets.FileDownload`` with a callback (computed only when clicked; in Pyodide the callback
  runs in the page's own Python);
- the chart as SVG, drawn here from the trace (``chart_svg``: the rows and cells of the mode's ``ModeViews.chart``:
  the CPU timeline, the LLM dispatch chart, the engine's batch slots); and as PNG, which the browser rasterises from
  that very SVG (``PngDownload``: an <img> of the SVG drawn on a canvas at twice the size, ``canvas.toBlob``). One
  drawing, two formats, no server and no extra package, and the LLM chart (HTML, not Bokeh) gets a PNG too;
- the permalink: the app's own ``query.encode`` (``Lab.link``) after the page's address.
"""
from __future__ import annotations

import io
from collections.abc import Mapping
from typing import Any
from xml.sax.saxutils import escape

import panel as pn
import param
from panel.custom import JSComponent

from schedulers import schema
from schedulers.custom import CUSTOM
from schedulers.export import metrics_csv, trace_json

from .model import LabView, parameter_text
from .modes import app_mode, views_of
from .panes import pane
from .render import IDLE_COLOUR, colour, esc, ink
from .text import algorithm_label, t

ROW_HEIGHT, LEFT, TOP, UNIT_MAX, UNIT_MIN, WIDTH = 30, 110, 44, 40, 4, 960
# A cell's fill as the chart's ``Cell.look`` says: solid, pale with its outline (a CPU task's I/O), or half-strength
# with a dashed outline (a switch into the task).
LOOKS = {"solid": 'stroke="#fff"', "pale": 'fill-opacity="0.3" stroke="#555" stroke-dasharray="3 2"',
         "hatched": 'fill-opacity="0.6" stroke="#333" stroke-dasharray="1 2"'}


def algorithm_title(result: Mapping[str, Any], lang: str) -> str:
    """"Round Robin, quantum 2": the menu's label and the parameters the core used."""
    name = algorithm_label(result, lang)
    fields = {field.name: field for field in schema(result["mode"]).parameters}
    used = ", ".join(f"{key} {parameter_text(value, fields.get(key))}" for key, value in
                     result.get("parameters", {}).items() if value is not None and key != "exact")
    return f"{name}, {used}" if used else name


def chart_svg(result: Mapping[str, Any], lang: str) -> str:
    """The run's chart as a standalone SVG document; every name is escaped XML text."""
    chart = views_of(result["mode"]).chart(result, lang)
    names, end = chart.rows, chart.end
    unit = max(UNIT_MIN, min(UNIT_MAX, (WIDTH - LEFT - 20) // max(end, 1)))
    width, height = LEFT + unit * end + 20, TOP + ROW_HEIGHT * len(names) + 40
    title = app_mode(result["mode"]).say(lang, "chart", algorithm=algorithm_title(result, lang))
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="13">',
           f'<rect width="{width}" height="{height}" fill="#fff"/>',
           f'<text x="{LEFT}" y="22" font-size="16" font-weight="bold">{escape(title)}</text>']
    for row, name in enumerate(names):
        y = TOP + row * ROW_HEIGHT
        label = name if len(name) <= 14 else name[:13] + "…"
        out.append(f'<text x="{LEFT - 8}" y="{y + ROW_HEIGHT / 2 + 4}" text-anchor="end">{escape(label)}</text>')
        out.append(f'<line x1="{LEFT}" x2="{LEFT + unit * end}" y1="{y + ROW_HEIGHT}" y2="{y + ROW_HEIGHT}" '
                   f'stroke="#eee"/>')
    for cell in chart.cells:
        fill = IDLE_COLOUR if cell.colour is None else colour(cell.colour)
        x, y, wide = LEFT + unit * cell.start, TOP + cell.row * ROW_HEIGHT + 4, unit * (cell.end - cell.start)
        out.append(f'<rect x="{x}" y="{y}" width="{wide}" height="{ROW_HEIGHT - 8}" fill="{fill}" {LOOKS[cell.look]}>'
                   f'<title>{escape(cell.who)} [{cell.start}, {cell.end})</title></rect>')
        if cell.text and unit >= 14:
            on = ink(fill) if cell.look == "solid" else "#000"   # a pale fill reads black text
            out.append(f'<text x="{x + wide / 2}" y="{y + ROW_HEIGHT / 2}" font-size="11" '
                       f'text-anchor="middle" fill="{on}">{escape(cell.text)}</text>')
    axis_y = TOP + ROW_HEIGHT * len(names)
    step = next(s for s in (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 10**4, 10**5, 10**6) if end / s <= 20)
    out.append(f'<line x1="{LEFT}" x2="{LEFT + unit * end}" y1="{axis_y}" y2="{axis_y}" stroke="#333"/>')
    for tick in range(0, end + 1, step):
        x = LEFT + unit * tick
        out.append(f'<line x1="{x}" x2="{x}" y1="{axis_y}" y2="{axis_y + 5}" stroke="#333"/>'
                   f'<text x="{x}" y="{axis_y + 18}" text-anchor="middle">{tick}</text>')
    out.append(f'<text x="{LEFT + unit * end / 2}" y="{axis_y + 34}" text-anchor="middle">'
               f'{escape(t(lang, "chart.time"))}</text></svg>')
    return "".join(out)


def file_stem(result: Mapping[str, Any]) -> str:
    return f"schedlab-{result['mode']}-{result['algorithm']}"


class PngDownload(JSComponent):
    """A button that turns ``svg`` into a PNG in the browser and downloads it as ``filename``."""

    svg = param.String(default="")
    filename = param.String(default="chart.png")
    label = param.String(default="PNG")

    _esm = """
    export function render({ model }) {
      const button = document.createElement("button")
      button.className = "bk-btn bk-btn-default png-download"
      button.textContent = model.label
      model.on("label", () => { button.textContent = model.label })
      button.addEventListener("click", () => {
        const image = new Image()
        image.onload = () => {
          const canvas = document.createElement("canvas")
          canvas.width = image.naturalWidth * 2
          canvas.height = image.naturalHeight * 2
          const context = canvas.getContext("2d")
          context.scale(2, 2)
          context.drawImage(image, 0, 0)
          canvas.toBlob((blob) => {
            const link = document.createElement("a")
            link.href = URL.createObjectURL(blob)
            link.download = model.filename
            document.body.appendChild(link)
            link.click()
            link.remove()
            setTimeout(() => URL.revokeObjectURL(link.href), 1000)
          }, "image/png")
        }
        image.src = "data:image/svg+xml;charset=utf-8," + encodeURIComponent(model.svg)
      })
      return button
    }
    """


class ExportView(LabView):
    """The export panel of one ``Lab``."""

    def __init__(self, lab=None, **params) -> None:
        super().__init__(lab, **params)
        self.png = PngDownload(margin=(4, 4))

    def download(self, key: str, extension: str, make) -> pn.widgets.FileDownload:
        def callback() -> io.BytesIO:
            return io.BytesIO(make(self.lab.result).encode("utf-8"))
        return pn.widgets.FileDownload(callback=callback, filename=f"{file_stem(self.lab.result)}.{extension}",
                                       label=t(self.lab.lang, key), color="primary", variant="outline",
                                       css_classes=[f"export-{extension}"], margin=(4, 4))

    def link(self) -> str:
        """The full address of this setup and step (the app's own URL format, ``query.encode``)."""
        location = pn.state.location
        base = ""
        if location is not None and location.href:
            base = location.href.split("?", 1)[0]
        query = self.lab.link()
        return f"{base}?{query}" if query else base

    @param.depends("lab.result", "lab.lang")
    def panel(self):
        lab, lang = self.lab, self.lab.lang
        if not lab.result:
            return pn.Column()
        result = lab.result
        svg = chart_svg(result, lang)
        self.png.param.update(svg=svg, filename=f"{file_stem(result)}.png", label=t(lang, "export.png"))
        buttons = pn.FlexBox(self.download("export.json", "json", trace_json),
                             self.download("export.csv", "csv", metrics_csv),
                             self.download("export.svg", "svg", lambda r: chart_svg(r, lang)), self.png)
        # Only the link follows the step: the chart and the buttons are the run's, not redrawn at each step.
        link = pn.widgets.TextInput(label=t(lang, "export.link"), value=pn.bind(lambda _: self.link(), lab.param.step),
                                    css_classes=["export-link"], sizing_mode="stretch_width")
        notes = [t(lang, "export.note", mode=result["mode"])]
        if result.get("algorithm") == CUSTOM:
            notes.append(t(lang, "export.custom"))
        notes_html = "".join(f'<p class="muted">{esc(note)}</p>' for note in notes)
        preview = pane(f'<h3>{esc(t(lang, "export.preview"))}</h3><div class="chart-preview">{svg}</div>',
                       css_classes=["chart-preview-pane"])
        return pn.Column(pane(f'<h2>{esc(t(lang, "export.title"))}</h2>{notes_html}'), buttons, link, preview,
                         sizing_mode="stretch_width")
