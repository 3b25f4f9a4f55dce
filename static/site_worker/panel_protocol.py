"""Panel's worker protocol (Panel 1.10's ``panel/_templates/pyodide_worker.js``), with the app run as its own module.

Panel's worker pastes the app after a prelude and runs the lot as one string; here ``build_page`` runs the installed
app file with ``runpy``, as ``python -m`` would, so it compiles whatever the file starts with (``from __future__``, a
docstring, an encoding line). The other functions are Panel's worker's own Python, called by the worker's messages.
What they import from Panel beyond its public API (``panel.io.pyodide``'s ``init_doc``, ``write_doc``,
``_link_docs_worker``, ``_convert_json_patch``; ``panel.util.edit_readonly``) is checked by
``static/panel_adapter.py`` against the Panel these lines were read from. Panel is imported inside the functions:
this module is imported before any package is installed.
"""
from __future__ import annotations

import importlib
import json
import os
import runpy


def import_panel(panel_root: str) -> None:
    """Panel, with its JS/CSS from the site (it reads PANEL_CDN_ROOT when it is imported: an absolute URL)."""
    os.environ["PANEL_CDN_ROOT"] = panel_root
    importlib.import_module("panel")
    importlib.import_module("panel.io.pyodide")


def import_module(name: str) -> None:
    """One of the app's own imports, so that the page can say which one is under way."""
    importlib.import_module(name)


def set_location(location: str | None) -> None:
    """The page's URL (``JSON.stringify(window.location)``) into ``state.location``."""
    from panel.io.state import state
    from panel.util import edit_readonly
    if location and state.location is not None:
        with edit_readonly(state.location):
            state.location.param.update({k: v for k, v in json.loads(location).items() if k in state.location.param})


def build_page(location: str | None, app_module: str) -> None:
    """Panel's ``init_doc()``, the page's URL into ``state.location`` (Pyodide runs ``pn.state.onload`` at once, so
    the app reads its query while it builds), then the installed app file, run as ``python -m`` would."""
    from panel.io.pyodide import init_doc
    init_doc()
    set_location(location)
    runpy.run_module(app_module, run_name="__main__")


async def write_doc():
    """The document as JSON for the page: (docs_json, render_items, root_ids)."""
    from panel.io.pyodide import write_doc as write
    return await write()


def link_docs(send_patch) -> None:
    """The page has drawn the document: from now on Python's changes go to it through ``send_patch``."""
    from panel.io.pyodide import _link_docs_worker
    from panel.io.state import state
    _link_docs_worker(state.curdoc, send_patch, setter="js")


def apply_patch(patch) -> None:
    """The changes made in the page (a JS object), applied to Python's document."""
    from panel.io.pyodide import _convert_json_patch
    from panel.io.state import state
    apply_each(state.curdoc, _convert_json_patch(patch))


def apply_each(doc, patch) -> None:
    """``patch``'s events (a ``Serialized`` patch) applied to ``doc`` one at a time, skipping each one that names a
    model ``doc`` no longer has. The page sends the changes that waited for a busy Python in one patch, and some of
    them are to views Python has replaced meanwhile (the old chart's size or cursor); Bokeh refuses a whole patch for
    one unknown model, and the newer choices in it (a checkbox, the language) were lost with it (issue 19 item 5)."""
    from bokeh.core.serialization import Serialized, UnknownReferenceError
    for event in patch.content["events"]:
        try:
            doc.apply_json_patch(Serialized(content={**patch.content, "events": [event]}, buffers=patch.buffers),
                                 setter="js")
        except UnknownReferenceError:
            continue   # a change to a view that is gone: nothing is left for it to change
