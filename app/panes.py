"""The lab's stylesheets and its one HTML pane helper: a leaf that every view module imports (it imports no other
module of the app).

Panel renders every component in its own shadow root, so a page-wide <link> cannot style the HTML the panes hold;
the stylesheets travel with each pane instead and need no server (Pyodide included).
"""
from __future__ import annotations

from pathlib import Path

import panel as pn

CSS_FILE = Path(__file__).resolve().parent.parent / "static" / "lab.css"


def site_css() -> str:
    """static/lab.css as text, read once at import. Where the file is not beside the code (a bundle without
    ``static/``), the pane links ``lab.css`` instead, relative to the page, which the static site ships next to
    its HTML."""
    try:
        return CSS_FILE.read_text(encoding="utf-8")
    except OSError:
        return "lab.css"


CSS = site_css()
# The teaching features' few styles: the rule's source, the differences in compare, the quiz's feedback, exports.
TEACH_CSS = """
.source { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 0.85em;
          line-height: 1.35; margin: 0.3em 0; padding: 0.3em 0; background: #fafafa; border: 1px solid #ddd;
          border-radius: 4px; overflow-x: auto; }
.source .line { display: block; white-space: pre-wrap; overflow-wrap: anywhere; padding: 0 0.6em 0 4em;
                text-indent: -4em; }
.source .no { display: inline-block; width: 3.2em; color: #777; text-align: right; margin-right: 0.8em;
              text-indent: 0; user-select: none; }
.source .line.mark { background: #fff2b3; box-shadow: inset 4px 0 0 #E69F00; }
.source .line.bad { background: #ffe0e0; box-shadow: inset 4px 0 0 #a40000; }
.source .section { display: block; color: #555; font-style: italic; padding: 0.3em 0.6em 0.1em; white-space: normal; }
.diff-better { background: #e3f4ea; color: #00512e; font-weight: 700; }
.diff-worse { background: #fde6e6; color: #7a0000; font-weight: 700; }
.quiz-feedback.right { border-left: 4px solid #009E73; background: #e9f7f1; padding: 0.3em 0.6em; }
.quiz-feedback.wrong { border-left: 4px solid #D55E00; background: #fdeee6; padding: 0.3em 0.6em; }
.score { font-size: 1.2em; font-weight: 700; }
.chart-preview svg { max-width: 100%; height: auto; border: 1px solid #ddd; }
code.cli { background: #f3f3f3; padding: 0.1em 0.3em; border-radius: 3px; }
"""
STYLESHEETS = [CSS, TEACH_CSS]
# A folding card (the rule's, CPU's conventions): a header that reads as the lab's card titles do, and a fold mark
# as large as its text (Panel's own chevron, a 12 px icon, does not show with the bootstrap design; the mark follows
# the icon Panel swaps in).
FOLDING = """
.card-header { background: #f6f8fa; color: #212529; padding: 0.35em 0.6em; font-size: inherit; }
.card-title { font-size: 1em; font-weight: 600; }
.card-button { width: auto; height: auto; margin-right: 0.4em; }
.card-button svg { display: none; }
.card-button:has(.icon-tabler-chevron-down)::before { content: "▾"; }
.card-button:has(.icon-tabler-chevron-right)::before { content: "▸"; }
"""
# Panel's bootstrap buttons size their text in rem (the page root); in em they follow presenter mode.
SCALED = [".bk-btn { --bs-btn-font-size: 0.95em; --bs-btn-padding-x: 0.6em; --bs-btn-padding-y: 0.3em; }"]


def pane(content, **kwargs) -> pn.pane.HTML:
    """An HTML pane with the lab's stylesheets; ``content`` is markup built with ``render.esc`` (or a function
    bound to parameters that returns such markup)."""
    return pn.pane.HTML(content, stylesheets=STYLESHEETS, **{"sizing_mode": "stretch_width", "margin": (4, 4),
                                                            **kwargs})


class Kept:
    """The widgets of a view that is laid out again (the editor, Compare's choices), each made once per key and
    reused by the next layout, which updates it in place. A widget made anew would get a new model in the page, and a
    choice made on the old one while the new layout travels (a second algorithm picked 100 ms after the first)
    would be dropped with it. A layout keeps only what it asked for."""

    def __init__(self) -> None:
        self._kept: dict[tuple, object] = {}
        self._before: dict[tuple, object] = {}   # while laying out: what the layout before kept

    def __call__(self, key: tuple, make):
        """The object of ``key`` (a layout's or the one before it), else ``make()``."""
        found = self._kept.get(key, self._before.get(key))
        if found is None:
            found = make()
        self._kept[key] = found
        return found

    def lay_out(self, container, build) -> None:
        """``container.objects = build()``, ``build`` asking for its widgets by key."""
        self._before, self._kept = self._kept, {}
        try:
            container.objects = build()
        finally:
            self._before = {}
