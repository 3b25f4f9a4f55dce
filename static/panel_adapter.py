"""What the static site takes from Panel beyond its public API: one module, written for one Panel version.

The build (``static/build_site.py``) converts the app with Panel's public ``panel.io.convert.convert_apps``
(the pyodide-worker runtime, prerendered). What that API does not offer is here, and ``check_panel()`` stops the
build on any Panel but ``PANEL_VERSION``, the one these lines were read against:

- ``WORKER_PYTHON``: the Python the site's worker (``static/worker.js``) runs, by name. It is Panel's own worker
  protocol (``panel/_templates/pyodide_worker.js``: ``init_doc``/``write_doc`` around the app, then
  ``_link_docs_worker``, ``_convert_json_patch``, ``edit_readonly`` on ``state.location``) with the app run as its
  own compilation unit (``runpy``) instead of pasted into a prelude, so it compiles whatever the app file starts
  with (``from __future__``, a docstring, an encoding line); and the worker's own ``bytecode`` bundle.
- ``adopt_worker``: Panel's handler script (``pyodide_handler.js``) creates the worker itself, after BokehJS has
  loaded; the site creates it first thing in the page's head and hands it over.
- ``prerender``: the prerendered document as a link's query shows it (``?lang=ja``), rendered as Panel's conversion
  renders (``MockSessionContext``, ``state._on_load``), and mapped onto the ids of the page's own prerender;
  ``with_document`` puts one in place of the page's own (a prepared example's page).
- ``panel_dist``: Panel's JS/CSS inside the installed package, which the site ships.

It imports Panel only inside functions: ``build.py`` (any Python 3.8+, no Panel) reads ``PYODIDE_VERSION`` here.
"""
from __future__ import annotations

import html
import json
import os
import re
import tempfile
from pathlib import Path

PANEL_VERSION = "1.10.0"
PYODIDE_VERSION = "314.0.7"  # the Pyodide Panel 1.10 targets (panel.io.convert.PYODIDE_VERSION)
PYODIDE_CDN = f"https://cdn.jsdelivr.net/pyodide/v{PYODIDE_VERSION}/full/"  # the form Panel 1.10 uses

# Each string is one compilation unit, run by static/worker.js with runPythonAsync (top-level await allowed) in the
# worker's global namespace; the worker sets the ``lab_*`` names before it runs them.
WORKER_PYTHON = {
    # Panel reads PANEL_CDN_ROOT when it is imported: its JS/CSS are the site's (an absolute URL, from the worker).
    # Python writes the bytecode of what it imports (Pyodide turns that off), for `bytecode` below.
    "import_panel": (
        "import os, sys\n"
        "sys.dont_write_bytecode = False\n"
        "os.environ['PANEL_CDN_ROOT'] = lab_panel_root\n"
        "import panel\n"
        "from panel.io.pyodide import init_doc, write_doc\n"
    ),
    # One of the app's own imports, so that the page can say which one is under way.
    "import_module": (
        "import importlib\n"
        "importlib.import_module(lab_module)\n"
    ),
    # Panel's init_doc(), the page's URL into state.location (Pyodide runs pn.state.onload at once, so the app
    # reads its query while it builds), then the installed app file, compiled on its own as `python -m` would.
    "build_page": (
        "import json, runpy\n"
        "from panel.io.state import state\n"
        "from panel.util import edit_readonly\n"
        "init_doc()\n"
        "if lab_page_location and state.location is not None:\n"
        "    with edit_readonly(state.location):\n"
        "        state.location.param.update({k: v for k, v in json.loads(lab_page_location).items()\n"
        "                                     if k in state.location.param})\n"
        "runpy.run_module(lab_app_module, run_name='__main__')\n"
    ),
    # The document as JSON for the page: (docs_json, render_items, root_ids).
    "write_doc": "await write_doc()\n",
    # The bytecode Python wrote while the lab started, as one zip for the next visit: each file made an
    # unchecked-hash .pyc (PEP 552; the hash is its source's), which Python loads without looking at the source's
    # time (unpacked anew on every visit). The worker keys it by lock.json and the runtime, so it is never stale.
    "bytecode": (
        "import importlib.util, io, pathlib, sysconfig, zipfile\n"
        "site = pathlib.Path(sysconfig.get_path('purelib'))\n"
        "buffer = io.BytesIO()\n"
        "with zipfile.ZipFile(buffer, 'w') as bundle:\n"
        "    for compiled in site.glob('**/__pycache__/*.pyc'):\n"
        "        source = compiled.parent.parent / (compiled.name.split('.')[0] + '.py')\n"
        "        data = compiled.read_bytes()\n"
        "        if source.is_file() and data[4:8] == bytes(4):  # timestamp-based, as Python writes it\n"
        "            source_hash = importlib.util.source_hash(source.read_bytes())\n"
        "            bundle.writestr(compiled.relative_to(site).as_posix(),\n"
        "                            data[:4] + (1).to_bytes(4, 'little') + source_hash + data[16:])\n"
        "buffer.getvalue()\n"
    ),
    # Below: Panel's pyodide_worker.js, as it is.
    "rendered": (
        "from panel.io.state import state\n"
        "from panel.io.pyodide import _link_docs_worker\n"
        "_link_docs_worker(state.curdoc, sendPatch, setter='js')\n"
    ),
    "patch": (
        "from panel.io.pyodide import _convert_json_patch\n"
        "from panel.io.state import state\n"
        "state.curdoc.apply_json_patch(_convert_json_patch(patch), setter='js')\n"
    ),
    "location": (
        "import json\n"
        "from panel.io.state import state\n"
        "from panel.util import edit_readonly\n"
        "if state.location:\n"
        "    loc_data = json.loads(location)\n"
        "    with edit_readonly(state.location):\n"
        "        state.location.param.update({\n"
        "            k: v for k, v in loc_data.items() if k in state.location.param\n"
        "        })\n"
    ),
}
WORKER_PYTHON_LINE = "const PYTHON = "  # in lab.js: this, then WORKER_PYTHON as one line of JSON


class AdapterError(Exception):
    """The build cannot go on: this Panel, or what it made of the app, is not what this module was written for."""


def check_panel() -> None:
    """Fail loudly on another Panel: every other function here was written against ``PANEL_VERSION``."""
    import panel
    from panel.io import convert
    if panel.__version__ != PANEL_VERSION:
        raise AdapterError(f"static/panel_adapter.py was written for Panel {PANEL_VERSION}; this is Panel "
                            f"{panel.__version__}: read what it uses of Panel again (its docstring lists it) "
                            "and update PANEL_VERSION")
    if convert.PYODIDE_VERSION != f"v{PYODIDE_VERSION}":
        raise AdapterError(f"Panel {panel.__version__} targets Pyodide {convert.PYODIDE_VERSION}, "
                            f"static/panel_adapter.py says {PYODIDE_VERSION}")


def render_worker(template: str) -> str:
    """static/worker.js with WORKER_PYTHON in place of its ``/*PYTHON*/null``."""
    placeholder = WORKER_PYTHON_LINE + "/*PYTHON*/null"
    if template.count(placeholder) != 1:
        raise AdapterError(f"static/worker.js must hold `{placeholder}` once")
    return template.replace(placeholder, WORKER_PYTHON_LINE + json.dumps(WORKER_PYTHON))


def worker_python(lab_js: str) -> dict[str, str]:
    """The Python code strings a built lab.js runs (the inverse of ``render_worker``)."""
    for line in lab_js.splitlines():
        if line.startswith(WORKER_PYTHON_LINE):
            return json.loads(line[len(WORKER_PYTHON_LINE):])
    raise ValueError(f"no line starting with `{WORKER_PYTHON_LINE}` in lab.js")


def convert(app: Path) -> str:
    """The prerendered page Panel makes for the app (its pyodide-worker conversion); Panel's worker is not used."""
    from panel.io.convert import convert_apps
    with tempfile.TemporaryDirectory(prefix="lab-convert-") as folder:
        convert_apps([str(app)], dest_path=folder, runtime="pyodide-worker", requirements=[], prerender=True,
                     build_index=False, build_pwa=False, max_workers=1, verbose=False)
        page = Path(folder) / f"{app.stem}.html"
        if not page.is_file():  # convert_apps prints its reason and carries on
            raise AdapterError(f"Panel could not convert {app} (its message is above)")
        return page.read_text(encoding="utf-8")


def adopt_worker(page: str, app: Path, early_script: str) -> str:
    """``early_script`` (which starts the worker as ``window.labWorker``) first in the head, and Panel's handler
    using that worker instead of creating its own."""
    created = f'new Worker("./{app.stem}.js", {{type: \'module\'}})'
    if page.count(created) != 1 or page.count("<head>") != 1:
        raise AdapterError(f"Panel's page no longer creates its worker as `{created}` in one place")
    page = page.replace(created, "window.labWorker")
    return page.replace("<head>", f"<head>\n<script>{early_script}</script>", 1)


PRERENDER_JSON = re.compile(r'<script type="application/json" id="([^"]+)">\s*(\{.*?\})\s*</script>', re.S)


def prerender(app: Path, page: str, query: str) -> tuple[str, str]:
    """The page's prerendered document as ``?query`` shows it, ready to replace the page's own before BokehJS
    embeds it: returns (the id of the page's JSON script, the replacement, escaped as Panel escapes its own).

    Rendered as Panel's conversion renders, with ``state.location.search`` set before the app's onload callbacks
    run, and with Bokeh's unique ids instead of its simple ones ("p1234"), so that none can be one of the page's;
    then its document id and root ids become the page's (the page's render items name those).
    """
    from bokeh.document import Document
    from bokeh.embed.util import standalone_docs_json_and_render_items
    from bokeh.settings import settings
    from panel.io.application import build_single_handler_application
    from panel.io.document import MockSessionContext
    from panel.io.state import set_curdoc, state
    found = PRERENDER_JSON.findall(page)
    if len(found) != 1:
        raise AdapterError("Panel's page no longer holds its prerendered document in one JSON script")
    [(json_id, page_json)] = found
    [(page_docid, page_doc)] = json.loads(html.unescape(page_json)).items()
    document = Document()
    document._session_context = lambda: MockSessionContext(document=document)
    settings.simple_ids.set_value(False)
    try:
        with set_curdoc(document):
            build_single_handler_application(str(app.absolute())).initialize_document(document)
            state.location.search = f"?{query}"
            state._on_load(None)
            docs_json, _ = standalone_docs_json_and_render_items(document, suppress_callback_warning=True)
    finally:
        settings.simple_ids.unset_value()
    [doc] = docs_json.values()
    roots, page_roots = doc["roots"], page_doc["roots"]
    if [r["name"] for r in roots] != [r["name"] for r in page_roots]:
        raise AdapterError(f"the page as ?{query} shows it has other roots than the page itself")
    text = json.dumps({page_docid: doc}, ensure_ascii=False, separators=(",", ":"))
    for root, page_root in zip(roots, page_roots):  # unique ids: where the string is, the id is
        text = text.replace(json.dumps(root["id"]), json.dumps(page_root["id"]))
    return json_id, html.escape(text, quote=False)


def with_document(page: str, json_id: str, document: str) -> str:
    """The page with ``document`` (``prerender``'s) as its own prerendered document, in place of Panel's."""
    own = re.compile(r'(<script type="application/json" id="%s">)\s*\{.*?\}\s*(</script>)' % re.escape(json_id), re.S)
    if len(own.findall(page)) != 1:
        raise AdapterError(f"Panel's page no longer holds its prerendered document in the script #{json_id}")
    return own.sub(lambda match: match.group(1) + document + match.group(2), page, count=1)


def panel_dist() -> tuple[Path, str]:
    """Panel's dist/ folder in the installed package, and the version in its CDN paths."""
    from panel.io.resources import DIST_DIR, JS_VERSION
    return Path(DIST_DIR), JS_VERSION


def with_panel_root(root: str) -> None:
    """Panel reads its resources' URL once, when it is imported: set it before."""
    os.environ["PANEL_CDN_ROOT"] = root
