"""What the static site takes from Panel beyond its public API: one module, written for one Panel version.

The build (``static/build_site.py``) converts the app with Panel's public ``panel.io.convert.convert_apps``
(the pyodide-worker runtime, prerendered). What that API does not offer is here, and ``check_panel()`` stops the
build on any Panel but ``PANEL_VERSION``, the one these lines were read against:

- ``WORKER_PYTHON``: the Python the site's worker (``static/worker.js``) runs, by name. It is Panel's own worker
  protocol (``panel/_templates/pyodide_worker.js``: ``init_doc``/``write_doc`` around the app, then
  ``_link_docs_worker``, ``_convert_json_patch``, ``edit_readonly`` on ``state.location``) with the app run as its
  own compilation unit (``runpy``) instead of pasted into a prelude, so it compiles whatever the app file starts
  with (``from __future__``, a docstring, an encoding line); and the worker's own: ``keep_bytecode`` (the code
  compiled on one visit is the next visit's), ``stdlib_bytecode`` (the standard library that Python's start imports,
  compiled for the next visit) and, before Panel is imported, ``DEFER_PANDAS`` (Panel's module for
  Pyodide wraps two functions of pandas, which nothing else uses: pandas is imported when something does).
- ``LATER_PACKAGES``: the Pyodide packages the first page does not import, loaded once the lab is ready.
- ``adopt_worker``: Panel's handler script (``pyodide_handler.js``) creates the worker itself, after BokehJS has
  loaded; the site creates it first thing in the page's head and hands it over.
- ``prerender``: the prerendered document as a link's query shows it (``?lang=ja``), rendered as Panel's conversion
  renders (``MockSessionContext``, ``state._on_load``), and mapped onto the ids of the page's own prerender;
  ``with_document`` puts one in place of the page's own (a prepared example's page).
- ``panel_dist``: Panel's JS/CSS inside the installed package, which the site ships.

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
from pathlib import Path

PANEL_VERSION = "1.10.0"
PYODIDE_VERSION = "314.0.7"  # the Pyodide Panel 1.10 targets (panel.io.convert.PYODIDE_VERSION)
PYODIDE_CDN = f"https://cdn.jsdelivr.net/pyodide/v{PYODIDE_VERSION}/full/"  # the form Panel 1.10 uses

# Panel 1.10's panel/io/pyodide.py imports pandas (seconds in Pyodide) only to wrap these two functions (they then
# fetch a URL through pyodide.http); nothing else of Panel or Bokeh imports it, and the lab never uses it. So the
# worker lets that module wrap a stand-in's, and hands Panel's wraps to the real pandas when something imports it
# (DEFER_PANDAS); ``check_panel`` stops the build if that module does anything else with pandas.
PANDAS_WRAPPED = ("read_csv", "read_json")

# The Pyodide packages the lab's first page does not import: Panel and Bokeh require them for what the lab does not
# use (pandas, deferred as above, and its own dependencies; images, pillow; tile maps, xyzservices; HTTP, requests
# and its dependencies). The worker loads them once the lab is ready (lock.json's "later"), so that the environment
# is whole; before, they would cost about a second of the start (pandas and pillow bring 50 compiled libraries).
LATER_PACKAGES = ("pandas", "python-dateutil", "pytz", "six", "pillow", "xyzservices", "requests",
                  "charset-normalizer", "idna", "urllib3", "certifi")

# Before Panel is imported: a finder that runs panel.io.pyodide with the stand-in as its `pandas` (and checks that
# it wrapped exactly PANDAS_WRAPPED), and runs the real pandas, when something imports it, with those wraps moved
# onto it (functools.wraps again: the stand-in's names and docs were the placeholders'); then it steps aside.
DEFER_PANDAS = f"""
def lab_defer_pandas(wrapped={PANDAS_WRAPPED!r}):
    import functools, importlib.abc, importlib.machinery, sys, types
    standin = types.ModuleType("pandas", "pandas until something imports it (static/panel_adapter.py)")
    standin.__spec__ = importlib.machinery.ModuleSpec("pandas", None)
    originals = {{}}

    def placeholder(name):
        def call(*args, **kwargs):
            import pandas  # the real one: its import fills `originals`
            return originals[name](*args, **kwargs)
        return call
    for name in wrapped:
        setattr(standin, name, placeholder(name))
    placeholders = dict(vars(standin))

    def run_panel_io_pyodide(module, run):
        if "pandas" in sys.modules:  # the real pandas came first: Panel wraps it itself
            return run(module)
        sys.modules["pandas"] = standin
        try:
            run(module)
        finally:
            del sys.modules["pandas"]
        changed = sorted(k for k, v in vars(standin).items() if placeholders.get(k) is not v)
        if changed != sorted(wrapped):
            raise ImportError(f"panel.io.pyodide set {{changed}} of pandas; static/panel_adapter.py expects "
                              f"{{sorted(wrapped)}}: read panel/io/pyodide.py again")

    def run_pandas(module, run):
        sys.meta_path.remove(finder)
        run(module)
        if "panel.io.pyodide" not in sys.modules:  # Panel comes later and wraps it itself
            return
        for name in wrapped:
            originals[name] = getattr(module, name)
            setattr(module, name, functools.update_wrapper(getattr(standin, name), originals[name]))
        sys.modules["panel.io.pyodide"].pandas = module

    class Around(importlib.abc.Loader):
        def __init__(self, loader, around):
            self.loader, self.around = loader, around

        def create_module(self, spec):
            return self.loader.create_module(spec)

        def exec_module(self, module):
            module.__loader__ = module.__spec__.loader = self.loader  # the module's own, for its source
            self.around(module, self.loader.exec_module)

    class Finder(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            around = {{"panel.io.pyodide": run_panel_io_pyodide, "pandas": run_pandas}}.get(name)
            spec = around and importlib.machinery.PathFinder.find_spec(name, path)
            if spec:
                spec.loader = Around(spec.loader, around)
            return spec

    finder = Finder()
    sys.meta_path.insert(0, finder)
lab_defer_pandas()
del lab_defer_pandas
"""

# Python compiles every module it imports from its source, on every visit: Pyodide's standard library is a zip of
# sources (where Python cannot keep bytecode) and the packages' folders are new on each visit. So from the first
# import on, the worker keeps the code it compiles (``lab_compiled``: its file's path -> code; the ``bytecode``
# string below bundles it), and takes a module's code from the bundle of an earlier visit (``lab_bytecode``) when
# it has it (the string's value: whether it had a usable one). The worker keys that bundle by lock.json and the
# runtime, so it is never stale.
KEEP_BYTECODE = """
def lab_keep_bytecode(earlier):
    import importlib.machinery as machinery, marshal, sys, zipimport
    try:
        known = marshal.loads(earlier.to_bytes()) if earlier is not None else {}
    except Exception:  # damaged: this visit compiles, and keeps its own
        known = {}
    compiled = {}

    def code(path, compile):
        data = known.get(path)
        if data is not None:
            return marshal.loads(data)
        compiled[path] = compile()
        return compiled[path]

    class SourceFile(machinery.SourceFileLoader):
        def get_code(self, fullname):
            return code(self.path, lambda: super(SourceFile, self).get_code(fullname))

    class ZipSource(zipimport.zipimporter):
        def get_code(self, fullname):
            path = self.get_filename(fullname)
            if path.endswith(".pyc"):  # compiled already: the standard library an earlier visit kept (STDLIB_BYTECODE)
                return super().get_code(fullname)
            return code(path, lambda: super(ZipSource, self).get_code(fullname))

    sys.path_hooks[:0] = [ZipSource, machinery.FileFinder.path_hook(
        (machinery.ExtensionFileLoader, machinery.EXTENSION_SUFFIXES), (SourceFile, machinery.SOURCE_SUFFIXES),
        (machinery.SourcelessFileLoader, machinery.BYTECODE_SUFFIXES))]
    sys.path_importer_cache.clear()  # the finders made so far: made again, by these hooks
    return compiled, bool(known)
lab_compiled, lab_bytecode_used = lab_keep_bytecode(lab_bytecode)
del lab_keep_bytecode
lab_bytecode_used
"""

# Python's own start (before the worker can run anything: encodings, asyncio, Pyodide's modules: 114 modules in the
# stand-in's Python 3.12, 141 in Pyodide 314's) compiles its imports from the standard library's sources on every
# visit. So, for the next visit's loadPyodide (``stdLibURL``), the worker keeps Pyodide's zip of the standard library
# with each module imported by then beside its source as an unchecked-hash .pyc (PEP 552), which zipimport takes
# before the source (the string's value: the zip's bytes). A .pyc of another Python (its magic number) is passed over
# for the source.
STDLIB_BYTECODE = """
import importlib.util, io, marshal, sys, zipfile
stdlib = next(path for path in sys.path if path.endswith(".zip"))
buffer = io.BytesIO(open(stdlib, "rb").read())
with zipfile.ZipFile(buffer, "a") as bundle:
    names = set(bundle.namelist())
    for path in {getattr(module, "__file__", None) or "" for module in list(sys.modules.values())}:
        name = path[len(stdlib) + 1:]
        if path.startswith(stdlib + "/") and name.endswith(".py") and name + "c" not in names:
            source = bundle.read(name)
            code = lab_compiled.get(path) or compile(source, path, "exec", dont_inherit=True)
            bundle.writestr(name + "c", importlib.util.MAGIC_NUMBER + (1).to_bytes(4, "little")
                            + importlib.util.source_hash(source) + marshal.dumps(code))
buffer.getvalue()
"""

# Each string is one compilation unit, run by static/worker.js with runPythonAsync (top-level await allowed) in the
# worker's global namespace; the worker sets the ``lab_*`` names before it runs them.
WORKER_PYTHON = {
    "keep_bytecode": KEEP_BYTECODE.lstrip(),
    # Panel reads PANEL_CDN_ROOT when it is imported: its JS/CSS are the site's (an absolute URL, from the worker).
    "import_panel": DEFER_PANDAS.lstrip() + (
        "import os\n"
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
    # The code this visit compiled, for the next visit (see KEEP_BYTECODE): one marshal of {path: marshal of code}.
    "bytecode": (
        "import marshal\n"
        "marshal.dumps({path: marshal.dumps(code) for path, code in lab_compiled.items()})\n"
    ),
    "stdlib_bytecode": STDLIB_BYTECODE.lstrip(),
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
    check_pandas_uses(Path(importlib.util.find_spec("panel.io.pyodide").origin).read_text(encoding="utf-8"))


def check_pandas_uses(source: str) -> None:
    """``DEFER_PANDAS`` holds for panel/io/pyodide.py's ``source`` only if all it does with pandas is import it and
    wrap the PANDAS_WRAPPED functions."""
    expected = {"import pandas"} | {f"pandas.{name} ({use})" for name in PANDAS_WRAPPED for use in ("read", "set")}
    if pandas_uses(source) != expected:
        raise AdapterError(f"panel/io/pyodide.py does {sorted(pandas_uses(source))} with pandas; DEFER_PANDAS in "
                           f"static/panel_adapter.py expects {sorted(expected)}: read that module again")


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
