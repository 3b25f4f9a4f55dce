"""What the static site takes from Panel beyond its public API: one module, written for one Panel version.

The build (``static/build_site.py``) converts the app with Panel's public ``panel.io.convert.convert_apps``
(the pyodide-worker runtime, prerendered). What that API does not offer is here, and ``check_panel()`` stops the
build on any Panel but ``PANEL_VERSION``, the one these lines were read against:

- ``worker_modules``: the Python the site's worker (``static/worker.js``) runs, the modules of ``static/site_worker/``
  (their docstrings say what each does). ``panel_protocol`` is Panel's own worker protocol
  (``panel/_templates/pyodide_worker.js``) with the app run as its own module (``runpy``): ``check_protocol`` stops
  the build unless every name it imports from Panel is defined where it looks (``init_doc``, ``write_doc``,
  ``_link_docs_worker``, ``_convert_json_patch``, ``edit_readonly``); ``pandas_later`` defers pandas, which holds only
  while Panel's module for Pyodide does nothing with pandas but wrap ``PANDAS_WRAPPED`` (``check_pandas_uses``).
- ``LATER_PACKAGES``: the Pyodide packages the first page does not import, loaded once the lab is ready.
- ``adopt_worker``: Panel's handler script (``pyodide_handler.js``) creates the worker itself, after BokehJS has
  loaded; the site creates it first thing in the page's head and hands it over. ``static/handler.js`` replaces the
  script's ``send_change`` (``HANDLER_SEND_CHANGE``, checked to be there word for word) and uses its globals.
- ``Prerendered`` (and ``prerender``): the prerendered document as a link's query shows it (``?lang=ja``), rendered
  as Panel's conversion renders (``MockSessionContext``, ``state._on_load``), kept live so that the build can act
  on its Panel objects (``state._views``) and write it again, and mapped onto the ids of the page's own prerender;
  ``with_document`` puts one in place of the page's own (a prepared example's page).
- ``panel_dist``: Panel's JS/CSS inside the installed package, which the site ships.
- ``placed_ids``: the prerendered documents' model ids, the same for the same place in every run's document;
  ``BOKEH_LAYOUT``: how BokehJS lays a page out (both for static/runs.js, which changes the page into another run's);
  ``BOKEH_STYLE_READ``: how BokehJS reads a visual's style from the page (runs.js answers those reads itself);
  ``BOKEH_TOOLTIP_DRAW``: how BokehJS draws a tooltip first (runs.js draws a hidden one when it is first shown);
  ``BOKEH_STYLE_WRITE``: how BokehJS writes its views' stylesheets in a layout (runs.js writes each once, if changed).

It imports Panel only inside functions: ``build.py`` (any Python 3.8+, no Panel) reads ``PYODIDE_VERSION`` here.
"""
from __future__ import annotations

import ast
import html
import importlib.util
import json
import os
import re
import tempfile
from collections.abc import Callable
from pathlib import Path

from site_worker import pandas_later  # the worker's own module: static/, this folder, is on sys.path

PANEL_VERSION = "1.10.0"
PYODIDE_VERSION = "314.0.7"  # the Pyodide Panel 1.10 targets (panel.io.convert.PYODIDE_VERSION)
PYODIDE_CDN = f"https://cdn.jsdelivr.net/pyodide/v{PYODIDE_VERSION}/full/"  # the form Panel 1.10 uses

# Panel 1.10's panel/io/pyodide.py imports pandas only to wrap these two functions; the worker defers pandas
# (site_worker/pandas_later.py), and ``check_panel`` stops the build if that module does anything else with pandas.
PANDAS_WRAPPED = pandas_later.WRAPPED

# The Pyodide packages the lab's first page does not import: Panel and Bokeh require them for what the lab does not
# use (pandas, deferred as above, and its own dependencies; images, pillow; tile maps, xyzservices; HTTP, requests
# and its dependencies). The worker loads them once the lab is ready (lock.json's "later"), so that the environment
# is whole; before, they would cost about a second of the start (pandas and pillow bring 50 compiled libraries).
LATER_PACKAGES = ("pandas", "python-dateutil", "pytz", "six", "pillow", "xyzservices", "requests",
                  "charset-normalizer", "idna", "urllib3", "certifi")

# The Python the worker runs: the modules of static/site_worker/, written into lab.js as one line of JSON
# (path -> source), which the worker writes into Pyodide's file system and imports.
WORKER_MODULES = Path(__file__).resolve().parent / "site_worker"
WORKER_PYTHON_LINE = "const PYTHON = "  # in lab.js: this, then worker_modules() as one line of JSON
# What site_worker/panel_protocol.py imports from Panel's modules beyond its public API, read against Panel 1.10.0.
PROTOCOL = WORKER_MODULES / "panel_protocol.py"


def worker_modules() -> dict[str, str]:
    """The worker's Python, as lab.js carries it: {"site_worker/NAME.py": source}."""
    return {f"{WORKER_MODULES.name}/{path.name}": path.read_text(encoding="utf-8")
            for path in sorted(WORKER_MODULES.glob("*.py"))}


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
    check_pandas_uses(module_source("panel.io.pyodide"))
    check_protocol(PROTOCOL.read_text(encoding="utf-8"))
    check_bokehjs((Path(importlib.util.find_spec("bokeh").origin).parent / "server" / "static" / "js" /
                   "bokeh.min.js").read_text(encoding="utf-8"))


# BokehJS 3.10 (Panel 1.10's), as static/runs.js relies on it to lay the page out once for a run's many changes: a
# change of any view's layout, and a layout's re-render, go up to the root view's invalidate_layout and
# compute_layout, which lay the whole page out; runs.js holds those two on the root views while it changes the page.
BOKEH_LAYOUT = (
    "invalidate_layout(){this.parent instanceof LayoutDOMView?this.parent.invalidate_layout():"
    "(this.update_layout(),this.compute_layout())}",
    "compute_layout(){this.parent instanceof LayoutDOMView?this.parent.compute_layout():",
    "rerender(){super.rerender(),this.update_layout(),this.compute_layout()}",
)


# BokehJS 3.10 reads each visual's colours, alphas and widths from the page's style first (a CSS custom property
# named after the visual, `--bk-` and its name), through getComputedStyle: each read after a change of the page makes
# the browser work the whole page's style out again (about 130 ms of a Compare pick). The site defines no such
# property (``check_site`` in build_site.py stops the build if one appears), so static/runs.js answers those reads
# with what BokehJS reads when none is set: "", the model's own value then.
BOKEH_STYLE_READ = (
    "_get_css_value(s){const t=`${this.css_prefix}${s}`,e=this._css_cache?.get(t);if(null!=e)return e;"
    "const i=getComputedStyle(this.obj.el).getPropertyValue(t);",
)
# A definition of such a property, in a stylesheet, a model's styles or a script.
BOKEH_STYLE_PROPERTY = re.compile(r"--bk-[\w-]+[\"']?\s*[:,]")
# BokehJS 3.10's TooltipView: its first _reposition draws it into the page and measures it (after_render), then
# takes it out again when it is hidden; runs.js skips that first draw of a hidden tooltip (a field's help), which
# _reposition then makes when the tooltip is first shown (its `visible` or `position` changes call it).
BOKEH_TOOLTIP_DRAW = (
    "_reposition(){const e=document.body.shadowRoot??document.body;if(!this._has_rendered)return this.render_to(e),"
    "void this.after_render();const{position:t,visible:i}=this.model;if(null==t||!i)return void this.el.remove();",
    "position:n,attachment:o,visible:l}=this.model.properties;",
    "this.on_change([n,o,l],()=>{this._reposition()})",
)
# BokehJS 3.10's LayoutDOMView.update_layout empties its own and its children's stylesheets, lays the children out,
# then appends the rules again (mostly the very text it took out); each write of a <style>'s text makes the browser
# read that sheet again at its next style recalculation. static/runs.js keeps a sheet's text in JavaScript while a
# layout runs (all writes go through InlineStyleSheet._update, all reads through its `css`) and writes the changed
# ones at the end.
BOKEH_STYLE_WRITE = (
    "update_layout(){this.update_style();for(const t of this.child_views)t.parent_style.clear();"
    "for(const t of this.layoutable_views)t.update_layout();this._update_layout()}",
    "get css(){return this.el.textContent}_update(t){this.el.textContent=t}clear(){this.replace(\"\")}",
    "replace(t,e){this._update(this._to_css(t,e))}prepend(t,e){this._update(`${this._to_css(t,e)}\\n${this.css}`)}"
    "append(t,e){this._update(`${this.css}\\n${this._to_css(t,e)}`)}",
)
# What static/runs.js relies on: why, and what to read in BokehJS again if a line is gone.
BOKEHJS_RELIED_ON = (
    (BOKEH_LAYOUT, "layingOutOnce relies on it (panel_adapter.BOKEH_LAYOUT); read BokehJS's LayoutDOMView"),
    (BOKEH_STYLE_READ, "answers it (panel_adapter.BOKEH_STYLE_READ); read BokehJS's VisualProperties"),
    (BOKEH_TOOLTIP_DRAW, "skips it for a hidden tooltip (panel_adapter.BOKEH_TOOLTIP_DRAW); read BokehJS's "
                         "TooltipView"),
    (BOKEH_STYLE_WRITE, "writes a stylesheet once per layout (panel_adapter.BOKEH_STYLE_WRITE); read BokehJS's "
                        "InlineStyleSheet and LayoutDOMView"),
)


def check_bokehjs(source: str) -> None:
    """Stop the build unless BokehJS's minified source still holds every line of ``BOKEHJS_RELIED_ON``."""
    for lines, use in BOKEHJS_RELIED_ON:
        for line in lines:
            if line not in source:
                raise AdapterError(f"BokehJS no longer has {line[:60]}...: static/runs.js {use} again")


def module_source(name: str) -> str:
    """The source of an installed module, read without importing it (panel.io.pyodide imports Pyodide's ``js``)."""
    return Path(importlib.util.find_spec(name).origin).read_text(encoding="utf-8")


def check_protocol(source: str) -> None:
    """Every ``from panel... import NAME`` in the worker's ``source`` (site_worker/panel_protocol.py) names a
    function, class or assignment at the top of that module of the installed Panel, or one it imports itself."""
    missing = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "panel":
            defined = top_level_names(module_source(node.module))
            missing += [f"{node.module}.{alias.name}" for alias in node.names if alias.name not in defined]
    if missing:
        raise AdapterError(f"Panel {PANEL_VERSION}'s modules no longer define {', '.join(missing)}, which "
                           "static/site_worker/panel_protocol.py imports: read panel/_templates/pyodide_worker.js "
                           "and the modules again")


def top_level_names(source: str) -> set[str]:
    """What a module defines or imports at its top level."""
    names = set()
    for node in ast.parse(source).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names |= {(alias.asname or alias.name).split(".")[0] for alias in node.names}
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names |= {target.id for target in targets if isinstance(target, ast.Name)}
    return names


def check_pandas_uses(source: str) -> None:
    """The worker's deferred pandas (site_worker/pandas_later.py) holds for panel/io/pyodide.py's ``source`` only if
    all it does with pandas is import it and wrap the PANDAS_WRAPPED functions."""
    expected = {"import pandas"} | {f"pandas.{name} ({use})" for name in PANDAS_WRAPPED for use in ("read", "set")}
    if pandas_uses(source) != expected:
        raise AdapterError(f"panel/io/pyodide.py does {sorted(pandas_uses(source))} with pandas; "
                           f"static/site_worker/pandas_later.py expects {sorted(expected)}: read that module again")


def pandas_uses(source: str) -> set[str]:
    """What a module does with pandas: "import pandas", "pandas.NAME (read)" or "(set)", "pandas (passed on)"."""
    uses, names, attributes = set(), 0, 0
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            uses |= {f"import {a.name}" + (f" as {a.asname}" if a.asname else "") for a in node.names
                     if a.name.split(".")[0] == "pandas"}
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "pandas":
            uses.add(f"from {node.module} import ...")
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "pandas":
            uses.add(f"pandas.{node.attr} ({'set' if isinstance(node.ctx, ast.Store) else 'read'})")
            attributes += 1
        names += isinstance(node, ast.Name) and node.id == "pandas"
    return uses | ({"pandas (passed on)"} if names > attributes else set())


def packages_after_ready(packages: list[str], pyodide_lock: dict) -> list[str]:
    """Of ``packages`` (Pyodide's names, dependencies first), the LATER_PACKAGES that no package needed before the
    lab is ready depends on: what the worker loads once the lab is ready."""
    needed: set[str] = set()

    def need(name: str) -> None:
        if name not in needed:
            needed.add(name)
            for dependency in pyodide_lock["packages"][name].get("depends", []):
                need(re.sub(r"[-_.]+", "-", dependency).lower())
    for name in packages:
        if name not in LATER_PACKAGES:
            need(name)
    return [name for name in packages if name not in needed]


def render_worker(template: str) -> str:
    """static/worker.js with ``worker_modules()`` in place of its ``/*PYTHON*/null``."""
    placeholder = WORKER_PYTHON_LINE + "/*PYTHON*/null"
    if template.count(placeholder) != 1:
        raise AdapterError(f"static/worker.js must hold `{placeholder}` once")
    return template.replace(placeholder, WORKER_PYTHON_LINE + json.dumps(worker_modules()))


def worker_python(lab_js: str) -> dict[str, str]:
    """The Python modules a built lab.js carries, by path (the inverse of ``render_worker``)."""
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


# Panel 1.10's send_change in its handler script (panel/_templates/pyodide_handler.js), which static/handler.js
# replaces: a global function that reads the script's globals `pyodideWorker` and `patching`.
HANDLER_SEND_CHANGE = """
let patching = 0

function send_change(jsdoc, event) {
  if ((event.setter_id != null && event.setter_id == 'py') || (patching > 0)) {
    return
  } else if (pyodideWorker.busy && event.model && event.attr) {
    let events = []
    for (const old_event of pyodideWorker.queue) {
      if (!(old_event.model === event.model && old_event.attr === event.attr)) {
        events.push(old_event)
      }
    }
    events.push(event)
    pyodideWorker.queue = events
    return
  }
  const patch = jsdoc.create_json_patch([event])
  pyodideWorker.busy = true
  pyodideWorker.postMessage({type: 'patch', patch: patch})
}
"""


def words(text: str) -> str:
    return " ".join(text.split())


def adopt_worker(page: str, app: Path, early_script: str) -> str:
    """``early_script`` (which starts the worker as ``window.labWorker``) first in the head, and Panel's handler
    using that worker instead of creating its own."""
    created = f'new Worker("./{app.stem}.js", {{type: \'module\'}})'
    if page.count(created) != 1 or page.count("<head>") != 1:
        raise AdapterError(f"Panel's page no longer creates its worker as `{created}` in one place")
    if words(HANDLER_SEND_CHANGE) not in words(page):
        raise AdapterError("Panel's handler script no longer has the send_change static/handler.js replaces "
                           "(panel_adapter.HANDLER_SEND_CHANGE): read panel/_templates/pyodide_handler.js again")
    page = page.replace(created, "window.labWorker")
    return page.replace("<head>", f"<head>\n<script>{early_script}</script>", 1)


PRERENDER_JSON = re.compile(r'<script type="application/json" id="([^"]+)">\s*(\{.*?\})\s*</script>', re.S)


def page_document(page: str) -> tuple[str, str, dict]:
    """Panel's page's prerendered document: (the id of its JSON script, its document id, the document)."""
    found = PRERENDER_JSON.findall(page)
    if len(found) != 1:
        raise AdapterError("Panel's page no longer holds its prerendered document in one JSON script")
    [(json_id, page_json)] = found
    [(docid, document)] = json.loads(html.unescape(page_json)).items()
    return json_id, docid, document


UNIQUE_ID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")   # Bokeh's, a uuid4


class Prerendered:
    """The app's document as ``?query`` shows it, rendered as Panel's conversion renders, and kept live: its Panel
    objects can be found (``find``) and acted on (``act``: a click, a language), and the document written again
    after each (``document_json``), always as the page's own document would be (its document and root ids).

    Rendered with ``state.location.search`` set before the app's onload callbacks run (``state._on_load``), with
    Bokeh's unique ids instead of its simple ones ("p1234"), so that none can be one of the page's; the page's
    Panel object is the one Panel registered for the document's first root (``state._views``)::

        with Prerendered(app, page, "mode=cpu&algorithm=srtf") as view:
            text = view.document_json()
    """

    def __init__(self, app: Path, page: str, query: str) -> None:
        self.app, self.query = app, query
        self.json_id, self.page_docid, self.page_doc = page_document(page)
        self._written: tuple[str, dict[str, str]] | None = None   # document_json's text and ids, until act()

    def __enter__(self) -> Prerendered:
        from bokeh.document import Document
        from bokeh.settings import settings
        from panel.io.application import build_single_handler_application
        from panel.io.document import MockSessionContext
        from panel.io.state import state
        self.document = document = Document()
        document._session_context = lambda: MockSessionContext(document=document)
        settings.simple_ids.set_value(False)

        def load() -> None:
            build_single_handler_application(str(self.app.absolute())).initialize_document(document)
            state.location.search = f"?{self.query}"
            state._on_load(None)
        self.act(load)
        self.root = state._views[document.roots[0].ref["id"]][0]
        return self

    def __exit__(self, *exc) -> None:
        from bokeh.settings import settings
        settings.simple_ids.unset_value()

    def act(self, action: Callable[[], object]) -> None:
        """Run ``action`` (a change to the app's objects) as Panel runs a callback of this document's."""
        from panel.io.state import set_curdoc
        self._written = None   # the document changes: written again when asked for
        with set_curdoc(self.document):
            action()

    def find(self, kind: type, test: Callable[[object], bool] = lambda _: True) -> list:
        """The Panel objects of ``kind`` on the page that pass ``test`` (Panel's ``select``)."""
        return [found for found in self.root.select(kind) if test(found)]

    def model_id(self, viewable) -> str:
        """The id of ``viewable``'s Bokeh model in this document, as ``document_json`` writes it."""
        unique = viewable._models[self.document.roots[0].ref["id"]][0].id
        if self._written is None:
            self.document_json()
        return self._written[1][unique]

    def document_json(self) -> str:
        """The document as JSON: its roots' ids the page's (the page's render items name those), every other
        model's the same for the same place in any run's document (``placed_ids``), so that the page can show
        another run by changing what differs (static/runs.js) rather than drawing the whole document anew."""
        if self._written is not None:
            return self._written[0]
        from bokeh.embed.util import standalone_docs_json_and_render_items
        from panel.io.state import set_curdoc
        with set_curdoc(self.document):
            docs_json, _ = standalone_docs_json_and_render_items(self.document, suppress_callback_warning=True)
        [doc] = docs_json.values()
        roots, page_roots = doc["roots"], self.page_doc["roots"]
        if [r["name"] for r in roots] != [r["name"] for r in page_roots]:
            raise AdapterError(f"the page as ?{self.query} shows it has other roots than the page itself")
        text = json.dumps({self.page_docid: doc}, ensure_ascii=False, separators=(",", ":"))
        ids = placed_ids(json.loads(text)[self.page_docid],   # as JSON: Bokeh's own holds tuples too
                         {root["id"]: page_root["id"] for root, page_root in zip(roots, page_roots)})
        # Bokeh's unique ids: where the string is, the id is (a reference, a model's data, a template's element id)
        text = UNIQUE_ID.sub(lambda m: ids.get(m.group(), m.group()), text)
        self._written = (text, ids)
        return text


def placed_ids(doc: dict, roots: dict[str, str]) -> dict[str, str]:
    """Each model's id in the document JSON ``doc`` -> an id of its place: its first path from the roots (the
    attributes and indexes that lead to it) and its type; ``roots`` gives the roots' own. Two documents of the app
    drawn for different runs give the same id to the models they draw in the same place (the header, the editor),
    and different ids to the rest."""
    import hashlib
    ids: dict[str, str] = {}

    def walk(value, path: str) -> None:
        if isinstance(value, dict):
            if value.get("type") == "object" and "id" in value and value["id"] not in ids:
                place = f"{path}:{value['name']}"
                ids[value["id"]] = roots.get(value["id"]) or "m" + hashlib.sha1(place.encode()).hexdigest()[:16]
            for key, item in value.items():
                walk(item, f"{path}/{key}")
        elif isinstance(value, list):
            for index, item in enumerate(value):
                walk(item, f"{path}/{index}")

    walk(doc["roots"], "")
    if len(set(ids.values())) != len(ids):
        raise AdapterError("two models of the page have the same place: static/panel_adapter.py's placed_ids")
    return ids


def prerender(app: Path, page: str, query: str) -> tuple[str, str]:
    """The page's prerendered document as ``?query`` shows it, ready to replace the page's own before BokehJS
    embeds it: returns (the id of the page's JSON script, the replacement, escaped as Panel escapes its own)."""
    with Prerendered(app, page, query) as view:
        return view.json_id, escaped(view.document_json())


def escaped(document_json: str) -> str:
    """A document's JSON as the page's JSON script holds it (escaped as Panel escapes its own)."""
    return html.escape(document_json, quote=False)


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
