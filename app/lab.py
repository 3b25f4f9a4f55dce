"""The scheduling lab: ``panel serve app/lab.py`` (page ``/lab``), or converted to a static Pyodide site.

One session = one ``Lab`` (the state) and one ``LabUI`` (its views). On load, a shared link's query is
restored (bad parts reported, never run) and the language follows the browser unless the link names one;
from then on the address bar follows the state, so copying it shares exactly this view.
"""
from __future__ import annotations

import sys
from pathlib import Path

if __package__ in (None, "") and "__file__" in globals():
    # `panel serve app/lab.py` runs this file as a script: make the repository's `app` package importable.
    # (Converted to Pyodide there is no file: `app` and `schedulers` come installed as a package.)
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import panel as pn

from app.model import Lab
from app.ui import LabUI

pn.extension(design="bootstrap")


def browser_language() -> str | None:
    """"ja" or "en" from the browser (Panel's browser info, the request header, or in Pyodide the navigator)."""
    info = pn.state.browser_info
    language = getattr(info, "language", None) if info is not None else None
    if not language and pn.state.headers:
        language = pn.state.headers.get("Accept-Language", "")
    if not language and sys.platform == "emscripten":
        import js  # Pyodide's bridge to the page
        language = str(js.navigator.language)
    return "ja" if language and language.lower().startswith("ja") else ("en" if language else None)


def drawn_without_python() -> bool:
    """The static site's build draws the page once (a prerender, to paint before Pyodide starts): no server session
    and not Pyodide. Its pager then steps the run it was drawn with on its own."""
    context = pn.state.curdoc.session_context if pn.state.curdoc is not None else None
    return sys.platform != "emscripten" and getattr(context, "server_context", None) is None


def link_before_drawing() -> str:
    """The page's link where it is known before the page is drawn: a served session's request, or under Pyodide the
    page's address (the site's worker sets it before the app runs); "" for the build's prerender, whose link is set
    after (``Prerendered``)."""
    context = pn.state.curdoc.session_context if pn.state.curdoc is not None else None
    known = sys.platform == "emscripten" or getattr(context, "server_context", None) is not None
    return pn.state.location.search.strip("?") if known and pn.state.location is not None else ""


def build():
    lab = Lab()
    # A link is applied before the page is drawn: its run is the first one drawn (drawing the default run first and
    # then the link's took twice the work, a second for a link of 100 tasks on the served app).
    restored = link_before_drawing()
    if restored:
        lab.lang = browser_language() or lab.lang
        lab.restore(restored)
    ui = LabUI(lab)
    ui.stepping.static = drawn_without_python()
    page = ui.page()

    def sync_address(*_):
        # Panel pushes a browser history entry per change: while playing, write once, at the pause.
        link = lab.link()
        if link and not lab.playing and pn.state.location is not None and pn.state.location.search != "?" + link:
            pn.state.location.search = "?" + link

    def on_load():
        location = pn.state.location
        search = location.search if location is not None else ""
        if "lang=" not in search:
            lab.lang = browser_language() or lab.lang
        if search.strip("?") and search.strip("?") != restored:
            lab.restore(search)
        lab.param.watch(sync_address, ["result", "step", "lang", "playing"])
        sync_address()

    pn.state.onload(on_load)
    return page


build().servable(title="The scheduling lab")
