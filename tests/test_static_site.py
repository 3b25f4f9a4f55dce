"""The static site (`python3 build.py build`): its structure, its size, the Python its worker runs compiled by the
real Pyodide 314, and its boot's failures in Chromium.

The failures use npm's pyodide package (built with --pyodide-dist pointing at it): it has the runtime but not
Pyodide's compiled packages (numpy, pandas, ...), so the page must show its boot stages, start Pyodide in the worker
and then say clearly which packages are missing. The whole lab running in Chromium is tests/test_site_browser.py.
"""
from __future__ import annotations

import base64
import hashlib
import json
import os
import re
import signal
import subprocess
import sys
import threading
import urllib.request
import zipfile
from html.parser import HTMLParser
from pathlib import Path

import pytest

import build
import pyodide_support
from site_support import PYODIDE_CDN, boot_state, build_site

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "static"))
import panel_adapter  # noqa: E402
from panel_adapter import render_worker, worker_modules, worker_python  # noqa: E402

# The site's own assets (everything but Pyodide): measured 7.2 MB raw, 4.4 MB gzipped with the app of 2026-11; the
# four prepared embeds (example-*.html, each the embed page with its run in two languages) add 2.1 MB raw, 0.2 MB
# gzipped; the prerendered runs (88 files, gzipped as shipped; fetched only when picked) 2.7 MB. With the CPU course
# (I/O, switch cost, conventions), the router's fleet and the engine's conventions (2026-12): 14.7 MB in all. With
# several CPUs, MLQ, periodic tasks and locks (2026-12-02, 8b2ad51): 16.05 MB, 8.8 MB gzipped (the prerendered runs
# 3.7 MB in 100 files, the largest 53 kB; the wheels 3.7 MB), which a visitor fetches only in part.
OWN_ASSETS_BUDGET = 17_000_000
RUN_FILE_BUDGET = 60_000     # bytes of one prerendered run's file, gzipped (issue 19)
INDEX_GROWTH_BUDGET = 0.10   # what the prerendered runs add to index.html's own bytes, of the rest (issue 19)
BOOT_TIMEOUT_MS = 120_000


def npm_pyodide() -> Path:
    """npm's pyodide@314.0.7, which `python3 build.py test` installs: the suite fails without it, never skips."""
    package = os.environ.get("LAB_PYODIDE_NPM")
    if not package or not (Path(package) / "pyodide.mjs").exists():
        pytest.fail("npm's pyodide@314.0.7 is absent (LAB_PYODIDE_NPM unset: node/npm missing, or the suite was "
                    "not run through `python3 build.py test`)")
    return Path(package)


@pytest.fixture(scope="module")
def local_site(tmp_path_factory) -> Path:
    """Self-contained as far as npm's package goes: the runtime, without the compiled packages."""
    out = tmp_path_factory.mktemp("local") / "dist"
    build_site(out, "--pyodide-dist", str(npm_pyodide()), "--allow-incomplete")
    return out


@pytest.fixture(scope="module")
def server(local_site):
    httpd = build.serve_directory(local_site, 0)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/"
    httpd.shutdown()
    httpd.server_close()


# --- structure ---------------------------------------------------------------------------------------

class References(HTMLParser):
    def __init__(self):
        super().__init__()
        self.refs: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.refs += [value for name, value in attrs if name in ("src", "href") and value]


def local_references(site: Path, base: str = "") -> dict[str, list[str]]:
    """What each page, script and stylesheet loads from the site, by file."""
    found: dict[str, list[str]] = {}
    for path in site.rglob("*"):
        rel = path.relative_to(site).as_posix()
        if rel.startswith("pyodide/") or not path.is_file():
            continue
        text = path.read_text(encoding="utf-8", errors="replace") if path.suffix in (".html", ".js", ".css") else ""
        refs = []
        if path.suffix == ".html":
            parser = References()
            parser.feed(text)
            refs = parser.refs + ["./lab.js"] * ("new Worker(`${site.base || './'}lab.js`" in text)
            refs += re.findall(r"(?:\./|" + re.escape(base) + r")panel/[^\"'\s)\\]+", text) if base else \
                re.findall(r"\./panel/[^\"'\s)\\]+", text)
        elif path.suffix == ".css":
            refs = [r for r in re.findall(r"url\(\s*[\"']?([^\"')]+)", text)]
        elif rel == "lab.js":
            refs = re.findall(r"new URL\('([^']+)', self\.location\)", text)
        refs = [r for r in refs if not r.startswith(("data:", "#", "https://", "http://", "mailto:"))]
        if refs:
            found[rel] = refs
    return found


def resolve(site: Path, page: str, ref: str, base: str) -> Path:
    ref = ref.split("?")[0].split("#")[0]
    if base and ref.startswith(base):
        return site / ref[len(base):]
    return (site / page).parent / ref


@pytest.mark.parametrize("which", ["cdn_site", "local_site"])
def test_every_local_reference_exists(which, request):
    site = request.getfixturevalue(which)
    refs = local_references(site)
    assert {"index.html", "embed.html", "lab.js"} <= set(refs)
    missing = [f"{page} -> {ref}" for page, page_refs in refs.items() for ref in page_refs
               if not resolve(site, page, ref, "").is_file()]
    assert not missing
    for page in ("index.html", "embed.html"):
        page_refs = refs[page]
        for needed in ("./lab.js", "sheets.js", "boot.js", "boot.css", "bokeh/bokeh-3.10.2.min.js",
                       "./panel/1.10.0/dist/panel.min.js"):
            assert any(r.endswith(needed) for r in page_refs), (page, needed)
    lock = json.loads((site / "lock.json").read_text())
    for wheel in lock["wheels"]:
        data = (site / wheel["file"]).read_bytes()
        assert (len(data), hashlib.sha256(data).hexdigest()) == (wheel["size"], wheel["sha256"]), wheel["file"]
    worker = json.loads((site / "service-worker.js").read_text().split("const SITE = ", 1)[1].split("\n", 1)[0])
    assert all((site / p).is_file() for p in worker["precache"] if p != "./")
    assert {"index.html", "embed.html", "lab.js", "lock.json", "lab.css"} <= set(worker["precache"])


def test_nothing_remote_but_pyodide_and_no_machine_paths(cdn_site, local_site):
    machine = re.compile(r"(?<![\w.])/(?:work|root|tmp|home)/|" + re.escape(str(ROOT)))
    for site, allowed in ((cdn_site, (PYODIDE_CDN,)), (local_site, ())):
        for path in site.rglob("*"):
            rel = path.relative_to(site).as_posix()
            if not path.is_file() or rel.startswith("pyodide/") or path.suffix not in (".html", ".js", ".css", ".json"):
                continue
            text = path.read_text(encoding="utf-8")
            assert not machine.search(text), f"{rel}: {machine.search(text).group()}"
            if path.suffix == ".html":
                parser = References()
                parser.feed(text)
                remote = [r for r in parser.refs if re.match(r"(https?:)?//", r) and not r.startswith(allowed)]
                assert not remote, (rel, remote)
    lock = json.loads((cdn_site / "lock.json").read_text())
    assert lock["pyodide"]["index_url"] == PYODIDE_CDN
    assert json.loads((local_site / "lock.json").read_text())["pyodide"]["index_url"] == "pyodide/"


def test_lock_is_resolved_against_pyodide(cdn_site):
    lock = json.loads((cdn_site / "lock.json").read_text())
    pyodide_lock = json.loads((npm_pyodide() / "pyodide-lock.json").read_text())["packages"]
    start, later = lock["pyodide"]["packages"], lock["pyodide"]["later"]
    names = start + later
    assert {"numpy", "pyyaml", "markupsafe"} <= set(start) and {"pandas", "pillow", "requests"} <= set(later)
    assert set(later) <= set(panel_adapter.LATER_PACKAGES)
    for position, name in enumerate(names):  # each package after its dependencies, all from Pyodide's lock
        assert lock["pyodide"]["files"][name] == pyodide_lock[name]["file_name"]
        assert set(pyodide_lock[name]["depends"]) <= set(names[:position]), name
    assert set(lock["pyodide"]["files"]) == set(names)
    shipped = [w["name"] for w in lock["wheels"]]
    assert {"panel", "bokeh", "param", "schedlab"} <= set(shipped)
    assert "bokeh" not in names  # ours (3.10.2, as Panel 1.10 needs), not the 3.9 Pyodide ships
    assert shipped[-1] == "schedlab" and shipped.index("bokeh") < shipped.index("panel")


def test_wheels_are_trimmed_and_consistent(cdn_site):
    wheels = {p.name.split("-")[0]: zipfile.ZipFile(p) for p in (cdn_site / "wheels").glob("*.whl")}
    bokeh, panel, project = (set(wheels[n].namelist()) for n in ("bokeh", "panel", "schedlab"))
    assert "bokeh/__init__.py" in bokeh and not any(n.startswith("bokeh/server/static/") for n in bokeh)
    assert "panel/__init__.py" in panel and "panel/dist/css/loading.css" in panel
    assert "panel/_templates/pyodide_worker.js" in panel  # Jinja templates Python reads stay
    assert not any(n.endswith((".min.js", ".map", ".woff2")) and n.startswith("panel/dist/") for n in panel)
    assert "schedulers/cli.py" in project and any(n.startswith("app/") for n in project) == (ROOT / "app").is_dir()
    # The project's wheel is pip's (pyproject.toml's backend): every module of the checkout, the Python it needs and
    # the command line's entry point.
    sources = {p.relative_to(ROOT).as_posix() for package in ("schedulers", "app")
               for p in (ROOT / package).rglob("*.py")}
    assert sources <= project
    metadata_text = wheels["schedlab"].read("schedlab-0.1.0.dist-info/METADATA").decode()
    assert "Requires-Python: >=3.12" in metadata_text
    entry_points = wheels["schedlab"].read("schedlab-0.1.0.dist-info/entry_points.txt").decode()
    assert "schedulers = schedulers.cli:main" in entry_points
    for wheel in wheels.values():  # RECORD lists every file with its hash, as installers check
        record_name = next(n for n in wheel.namelist() if n.endswith(".dist-info/RECORD"))
        record = {row.split(",")[0]: row.split(",")[1] for row in wheel.read(record_name).decode().splitlines()}
        assert set(record) == set(wheel.namelist())
        for name, digest in record.items():
            if digest:
                actual = base64.urlsafe_b64encode(hashlib.sha256(wheel.read(name)).digest()).rstrip(b"=").decode()
                assert digest == f"sha256={actual}", name


def test_the_pagers_javascript_ships_as_package_data_and_in_the_page(cdn_site):
    """The pager's ES modules and stylesheet (files beside app/pager.py, which Panel reads as the components' `_esm`)
    are in the project's wheel as they are in the checkout, and the prerendered page carries the modules' code."""
    [wheel] = (cdn_site / "wheels").glob("schedlab-*.whl")
    shipped = zipfile.ZipFile(wheel)
    files = [p for p in (ROOT / "app").rglob("*") if p.suffix in (".js", ".css")]
    assert {"pager.js", "frame_slot.js", "pager.css"} <= {p.name for p in files}
    for path in files:
        assert shipped.read(path.relative_to(ROOT).as_posix()) == path.read_bytes(), path
    page = (cdn_site / "index.html").read_text(encoding="utf-8")
    for name in ("pager.js", "frame_slot.js"):
        code = (ROOT / "app" / name).read_text(encoding="utf-8")
        first_statement = next(line for line in code.splitlines() if line and not line.startswith("//"))
        assert json.dumps(first_statement)[1:-1] in page, name


def site_config(page: Path) -> dict:
    """``window.labSite`` as a built page sets it (early.js's first line)."""
    line = next(line for line in page.read_text(encoding="utf-8").splitlines() if "window.labSite = " in line)
    return json.loads(line.split("window.labSite = ", 1)[1].rstrip(";"))


def test_every_run_is_prerendered_within_its_budget(cdn_site):
    """Every algorithm of every mode on its default scenario, in both views (the lab's, Compare) and both languages:
    one gzipped file each within the budget, naming the controls its document has; the page's index of them within a
    tenth of the rest of index.html; each short address it lists read by the lab as that very run; the service worker
    fetches none of them at install; build-info.json lists each with its size."""
    import gzip

    from schedulers import algorithms
    from schedulers.modes import MODES

    from app.model import Lab
    info = json.loads((cdn_site / "build-info.json").read_text())
    runs = site_config(cdn_site / "index.html")["runs"]
    expected = {f"runs/{mode}-{name}.{view}.{lang}.json.gz" for mode in MODES for name in algorithms(mode)
                for view in ("lab", "compare") for lang in ("en", "ja")}
    assert {p.relative_to(cdn_site).as_posix() for p in (cdn_site / "runs").iterdir()} == expected
    assert set(info["runs"]["files"]) == expected
    for name in sorted(expected):
        data = (cdn_site / name).read_bytes()
        assert len(data) <= RUN_FILE_BUDGET, (name, len(data))
        assert info["runs"]["files"][name]["gzip"] == len(data)
        run = json.loads(gzip.decompress(data))
        assert name == f"runs/{run['run']}.{run['view']}.{run['lang']}.json.gz"
        assert run["link"] == runs["links"][run["run"]]
        text = json.dumps(run["doc"])
        assert run["controls"] and all(f'"id": "{control}"' in text for control in run["controls"]), name
        assert "schedlab-build.invalid" not in text
    sizes = sorted(info["runs"]["files"].values(), key=lambda size: size["gzip"])
    print(f"\nprerendered runs: {len(sizes)} files, {sizes[0]['gzip']}-{sizes[-1]['gzip']} bytes gzipped "
          f"(budget {RUN_FILE_BUDGET}); index.html {info['sizes']['index_html']} bytes, of which the runs' index "
          f"{info['runs']['index_bytes']}")
    share = len(json.dumps(runs).encode())   # the index and the page's own controls, as the page carries them
    assert share <= INDEX_GROWTH_BUDGET * (info["sizes"]["index_html"] - share)
    for query, run in runs["queries"].items():
        lab = Lab()
        lab.restore(query)
        assert not lab.notices and "&".join(p for p in lab.link().split("&") if not p.startswith(("step=", "lang="))) \
            == runs["links"][run], query
    assert runs["queries"]["mode=cpu&algorithm=srtf"] == "cpu-srtf" and runs["queries"][""] == runs["own"]
    worker = json.loads((cdn_site / "service-worker.js").read_text().split("const SITE = ", 1)[1].split("\n", 1)[0])
    assert not any(path.startswith("runs/") for path in worker["precache"]) and worker["runs"] == "runs/"


RENDER_LIKE_THE_WORKER = """
import json, runpy, sys
from bokeh.document import Document
from bokeh.embed.util import standalone_docs_json_and_render_items
import panel
from panel.io.document import MockSessionContext
from panel.io.state import set_curdoc, state
assert panel.__file__.startswith(sys.argv[1]), panel.__file__  # the trimmed copy, not the build environment's
doc = Document()  # what panel.io.pyodide.init_doc() makes, and write_doc() serialises
doc._session_context = lambda: MockSessionContext(document=doc)
with set_curdoc(doc):
    runpy.run_module(sys.argv[2], run_name="__main__")  # as the worker's build_page runs it
    state._on_load(None)
    docs_json, _ = standalone_docs_json_and_render_items(doc.roots, suppress_callback_warning=True)
print(json.dumps(docs_json))
"""


def test_the_panel_adapter_refuses_another_panel(monkeypatch):
    """All the build takes from Panel beyond its public API was read against one Panel: another one stops the build
    (and so does a page that no longer has the handler script the adapter rewrites)."""
    import panel
    panel_adapter.check_panel()
    monkeypatch.setattr(panel, "__version__", "1.11.0")
    with pytest.raises(panel_adapter.AdapterError, match="written for Panel 1.10.0; this is Panel 1.11.0"):
        panel_adapter.check_panel()
    with pytest.raises(panel_adapter.AdapterError, match="no longer creates its worker"):
        panel_adapter.adopt_worker("<html><head></head><body></body></html>", ROOT / "app" / "lab.py", "")
    # static/handler.js replaces the handler's send_change: a page whose send_change is another stops the build.
    created = "<html><head></head><body><script>new Worker(\"./lab.js\", {type: 'module'})</script></body></html>"
    with pytest.raises(panel_adapter.AdapterError, match="no longer has the send_change"):
        panel_adapter.adopt_worker(created, ROOT / "app" / "lab.py", "")
    assert "window.labWorker" in panel_adapter.adopt_worker(
        created.replace("</script>", panel_adapter.HANDLER_SEND_CHANGE + "</script>"), ROOT / "app" / "lab.py", "")
    # The worker's protocol module imports Panel's internals: one that Panel no longer defines stops the build.
    protocol = panel_adapter.PROTOCOL.read_text(encoding="utf-8")
    panel_adapter.check_protocol(protocol)
    with pytest.raises(panel_adapter.AdapterError, match="no longer define panel.io.pyodide._link_docs_elsewhere"):
        panel_adapter.check_protocol(protocol.replace("_link_docs_worker", "_link_docs_elsewhere"))


def test_the_site_changes_bokehjs_only_where_the_build_checks_it(cdn_site, tmp_path):
    """static/runs.js answers BokehJS's reads of a visual's style properties with "" (none set), draws a hidden
    tooltip when it is first shown and writes a stylesheet once per layout: the build stops on a BokehJS that reads,
    draws or writes otherwise, and on a site that sets such a property (the built one sets none)."""
    import build_site
    [source] = [path.read_text(encoding="utf-8") for path in (cdn_site / "bokeh").glob("bokeh-3*.min.js")]
    panel_adapter.check_bokehjs(source)
    with pytest.raises(panel_adapter.AdapterError, match="answers it .panel_adapter.BOKEH_STYLE_READ."):
        panel_adapter.check_bokehjs(source.replace("getComputedStyle(this.obj.el).getPropertyValue(t)",
                                                   "getComputedStyle(this.el).getPropertyValue(t)"))
    with pytest.raises(panel_adapter.AdapterError, match="skips it for a hidden tooltip"):
        panel_adapter.check_bokehjs(source.replace("if(null==t||!i)return void this.el.remove();", ""))
    for written_elsewhere in ("_update(t){this.el.textContent=t}", "t.parent_style.clear();"):
        with pytest.raises(panel_adapter.AdapterError, match="writes a stylesheet once per layout"):
            panel_adapter.check_bokehjs(source.replace(written_elsewhere, ""))
    assert not [problem for problem in build_site.check_site(cdn_site, "", (PYODIDE_CDN,), "panel/")
                if "style property" in problem]
    for text, defined in ((":host { --bk-line-color: red; }", "--bk-line-color:"),
                          ('{"styles": {"--bk-fill-alpha": "0.5"}}', '--bk-fill-alpha":')):
        (tmp_path / "lab.css").write_text(text)
        assert build_site.check_site(tmp_path, "", (), "panel/") == [
            f"lab.css: defines BokehJS's style property {defined!r}, which static/runs.js reads as unset "
            "(panel_adapter.BOKEH_STYLE_READ)"]


def test_the_panel_adapter_refuses_a_panel_that_does_more_with_pandas():
    """The worker imports pandas only when something uses it (site_worker/pandas_later.py): that holds while Panel's
    module for Pyodide does nothing with pandas but wrap read_csv and read_json, which the build checks."""
    import importlib.util
    source = Path(importlib.util.find_spec("panel.io.pyodide").origin).read_text(encoding="utf-8")
    panel_adapter.check_pandas_uses(source)  # Panel 1.10.0, as installed and shipped
    assert panel_adapter.pandas_uses(source) == {"import pandas", "pandas.read_csv (read)", "pandas.read_csv (set)",
                                                 "pandas.read_json (read)", "pandas.read_json (set)"}
    for more in ("frame = pandas.DataFrame", "pandas.read_excel = _read_excel", "register(pandas)",
                 "import pandas as pd", "from pandas import DataFrame"):
        with pytest.raises(panel_adapter.AdapterError, match="static/site_worker/pandas_later.py expects"):
            panel_adapter.check_pandas_uses(f"{source}\n{more}\n")
    with pytest.raises(panel_adapter.AdapterError, match="does \\[\\] with pandas"):
        panel_adapter.check_pandas_uses("import json\n")


def test_trimmed_wheels_still_render_the_app(cdn_site, tmp_path):
    """What the worker runs, on the very wheels the site ships (their Python parts, in CPython; numpy and the other
    compiled packages from the build environment): nothing Python reads was trimmed away."""
    site_packages = tmp_path / "site-packages"
    for wheel in (cdn_site / "wheels").glob("*.whl"):
        zipfile.ZipFile(wheel).extractall(site_packages)
    module = json.loads((cdn_site / "lock.json").read_text())["app"]["module"]
    done = subprocess.run([sys.executable, "-c", RENDER_LIKE_THE_WORKER, str(site_packages), module],
                          capture_output=True, text=True, cwd=tmp_path,
                          env={**os.environ, "PYTHONPATH": str(site_packages)}, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "5.75" in done.stdout  # the article's average waiting time, in the default view


CUSTOM_MODELS = """
import ast, json, pathlib, runpy
from bokeh.model import Model
defined = [node.name for path in sorted(pathlib.Path("app").glob("*.py"))
           for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
           if isinstance(node, ast.ClassDef) and any(getattr(b, "id", "") == "JSComponent" for b in node.bases)]
runpy.run_module("app.lab", run_name="__main__")  # what the worker runs before it writes the first page
known = {name.rstrip("0123456789") for name in Model.model_class_reverse_map}
print(json.dumps({"defined": defined, "missing": [name for name in defined if name not in known]}))
"""


def test_every_custom_model_is_defined_before_the_first_page():
    """Under Pyodide, Panel sends the definitions of custom models (JSComponent) with the first page only: a view
    built later may use one only if the app has imported its class by then."""
    done = subprocess.run([sys.executable, "-c", CUSTOM_MODELS], capture_output=True, text=True, cwd=ROOT,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    models = json.loads(done.stdout.strip().splitlines()[-1])
    assert "PngDownload" in models["defined"] and models["missing"] == [], models


# --- the Python the worker runs, compiled by the runtime that runs it ----------------------------------------

def compiled_by_pyodide(lab_js: str, wheel: Path) -> dict:
    """Every Python module a lab.js carries, and every module of the project's wheel, compiled by npm's
    pyodide@314.0.7."""
    npm_pyodide()
    return pyodide_support.compile_errors({f"lab.js:{name}": code for name, code in worker_python(lab_js).items()},
                                          wheel)


def test_the_workers_python_compiles_in_pyodide_314(cdn_site):
    """The worker's own modules exactly as the built lab.js carries them (static/site_worker/), and the app's
    modules as the worker imports them from the shipped wheel: no SyntaxError in the runtime the site loads."""
    lab_js = (cdn_site / "lab.js").read_text(encoding="utf-8")
    assert worker_python(lab_js) == worker_modules()
    assert set(worker_modules()) >= {"site_worker/bytecode.py", "site_worker/pandas_later.py",
                                     "site_worker/panel_protocol.py"}
    [wheel] = (cdn_site / "wheels").glob("schedlab-*.whl")
    checked = compiled_by_pyodide(lab_js, wheel)
    assert checked["python"].startswith("3.14."), checked  # really Pyodide 314's Python
    assert checked["errors"] == {}
    # The worker runs the app module the lock names, from that wheel.
    module = json.loads((cdn_site / "lock.json").read_text())["app"]["module"]
    assert f"{module.replace('.', '/')}.py" in zipfile.ZipFile(wheel).namelist()


def test_changes_that_waited_together_apply_even_when_one_names_a_replaced_view():
    """The page sends the changes made while Python was busy in one patch (static/handler.js); one of them may be
    to a view Python has replaced meanwhile (the old chart's size). Every other change of that patch still applies, in
    order: an I/O box unchecked and a language chosen behind the old chart's size were lost (issue 19 item 5)."""
    from bokeh.core.serialization import Serialized
    from bokeh.document import Document
    from bokeh.models import Checkbox, Column, RadioButtonGroup
    from site_worker.panel_protocol import apply_each
    doc, box, language = Document(), Checkbox(active=True), RadioButtonGroup(labels=["English", "日本語"], active=0)
    doc.add_root(Column(box, language))
    changes = [{"kind": "ModelChanged", "model": {"id": box.id}, "attr": "active", "new": False},
               {"kind": "ModelChanged", "model": {"id": "the-old-chart"}, "attr": "inner_width", "new": 469},
               {"kind": "ModelChanged", "model": {"id": language.id}, "attr": "active", "new": 1},
               {"kind": "ModelChanged", "model": {"id": box.id}, "attr": "active", "new": True}]
    apply_each(doc, Serialized(content={"events": changes}, buffers=[]))
    assert (box.active, language.active) == (True, 1)


def test_the_compile_check_fails_on_the_old_splice(cdn_site):
    """The check above on a lab.js that pastes the app after Panel's prelude (how the site broke: app/lab.py starts
    with a docstring and `from __future__ import annotations`): it names the string and the reason."""
    prelude = "import asyncio\n\nfrom panel.io.pyodide import init_doc, write_doc\n\ninit_doc()\n"
    spliced = prelude + (ROOT / "app" / "lab.py").read_text(encoding="utf-8") + "\nawait write_doc()"
    old = render_worker("const PYTHON = /*PYTHON*/null\n").replace(
        "const PYTHON = {", "const PYTHON = {" + json.dumps({"code": spliced})[1:-1] + ", ", 1)
    [wheel] = (cdn_site / "wheels").glob("schedlab-*.whl")
    errors = compiled_by_pyodide(old, wheel)["errors"]
    assert list(errors) == ["lab.js:code"]
    assert "from __future__ imports must occur at the beginning of the file" in errors["lab.js:code"]


def test_own_assets_within_budget(cdn_site, local_site):
    info = json.loads((cdn_site / "build-info.json").read_text())
    own = sum(p.stat().st_size for p in cdn_site.rglob("*") if p.is_file())
    print(f"\nthe site's own assets: {own} bytes ({info['sizes']['own_total_gzip']} gzipped); "
          f"budget {OWN_ASSETS_BUDGET}")
    assert own < OWN_ASSETS_BUDGET
    assert info["sizes"]["own_total"] == own - (cdn_site / "build-info.json").stat().st_size   # written after
    local = json.loads((local_site / "build-info.json").read_text())
    assert local["sizes"]["pyodide"] > 5_000_000 and local["pyodide"]["self_contained"]


@pytest.mark.parametrize("example, message", [
    ("Two Words=mode=cpu", "--example 'Two Words=mode=cpu': give NAME=QUERY"),
    ("odd=mode=cpu&algorithm=nonesuch&tasks=A:0", "--example odd: the lab cannot use all of"),
])
def test_a_prepared_embed_the_lab_cannot_show_is_refused_by_name(tmp_path, example, message):
    """``--example NAME=QUERY``: a bad name or a query the lab cannot use in full stops the build with one line that
    names the option (and the field the lab rejected), before anything is built."""
    done = subprocess.run([sys.executable, str(ROOT / "build.py"), "build", "--out", str(tmp_path / "dist"),
                           "--example", example], capture_output=True, text=True, timeout=600)
    assert done.returncode == 2, done.stdout + done.stderr
    assert message in done.stderr and "Traceback" not in done.stderr
    if example.startswith("odd="):
        assert "algorithm" in done.stderr and "tasks" in done.stderr
    assert not (tmp_path / "dist").exists()


def test_base_url_prefixes_every_reference(tmp_path):
    npm_pyodide()
    site = tmp_path / "dist"
    build_site(site, "--base-url", "/schedlab/")
    refs = local_references(site, base="/schedlab/")
    page_refs = refs["index.html"]
    assert all(r.startswith("/schedlab/") or r.startswith("./") for r in page_refs), page_refs
    assert "/schedlab/boot.js" in page_refs and "/schedlab/bokeh/bokeh-3.10.2.min.js" in page_refs
    missing = [r for r in page_refs if not resolve(site, "index.html", r, "/schedlab/").is_file()]
    assert not missing
    assert '"base": "/schedlab/"' in (site / "embed.html").read_text()


def test_serve_builds_serves_with_mime_types_and_stops(tmp_path):
    npm_pyodide()
    process = subprocess.Popen([sys.executable, str(ROOT / "build.py"), "serve", "--port", "0",
                                "--out", str(tmp_path / "dist")],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               # as a background job of a non-interactive shell: SIGINT handed down ignored
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
    try:
        url = None
        for line in process.stdout:
            match = re.search(r"serving .* at (http://127\.0\.0\.1:\d+/)", line)
            if match:
                url = match.group(1)
                break
        assert url, "serve printed no URL"
        for path, mime in (("", "text/html"), ("index.html", "text/html"), ("lab.js", "text/javascript"),
                           ("lock.json", "application/json"), ("boot.css", "text/css")):
            with urllib.request.urlopen(url + path, timeout=30) as response:
                assert response.headers["Content-Type"].startswith(mime), path
        wheel = json.loads((tmp_path / "dist" / "lock.json").read_text())["wheels"][0]["file"]
        with urllib.request.urlopen(url + wheel, timeout=30) as response:
            assert response.headers["Content-Type"] == "application/zip"
    finally:
        process.send_signal(signal.SIGINT)
        output = process.communicate(timeout=30)[0]
    assert process.returncode == 0 and "stopped" in output and "Traceback" not in output


def test_app_command_serves_the_panel_app():
    """`python3 build.py app`, the README's command for the served lab, works as typed from the checkout."""
    from conftest import free_port
    port = free_port()
    process = subprocess.Popen([sys.executable, str(ROOT / "build.py"), "app", "--port", str(port)], cwd=ROOT,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
    try:
        for line in process.stdout:  # Panel says where it serves once it listens
            if f"http://127.0.0.1:{port}/lab" in line:
                break
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/lab", timeout=60) as response:
            page = response.read().decode()
        assert response.status == 200 and "<title>The scheduling lab</title>" in page
    finally:
        process.send_signal(signal.SIGINT)
        output = process.communicate(timeout=30)[0]
    assert "Traceback" not in output, output[-3000:]


def test_apt_waits_for_the_dpkg_lock_and_says_so(monkeypatch, capsys):
    """As root with another apt running, apt-get exits 100 at once unless told to wait for the lock."""
    commands = []
    monkeypatch.setattr(build, "run", lambda cmd, **kwargs: commands.append(cmd))
    build.apt_install("chromium")
    wait = ["apt-get", "-o", f"DPkg::Lock::Timeout={build.APT_LOCK_WAIT_SECONDS}"]
    assert [cmd[:3] for cmd in commands] == [wait] * 2
    assert commands[1][-1] == "chromium"
    assert "if another apt or dpkg holds its lock, waiting for it" in capsys.readouterr().out


def test_server_mime_types_for_pyodide_files(tmp_path):
    for name in ("pyodide.asm.wasm", "pyodide.mjs", "pyodide-lock.json"):
        (tmp_path / name).write_bytes(b"x")
    httpd = build.serve_directory(tmp_path, 0)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{httpd.server_address[1]}/"
        types = {}
        for name in ("pyodide.asm.wasm", "pyodide.mjs", "pyodide-lock.json"):
            with urllib.request.urlopen(url + name, timeout=10) as response:
                types[name] = response.headers["Content-Type"]
    finally:
        httpd.shutdown()
        httpd.server_close()
    assert types == {"pyodide.asm.wasm": "application/wasm", "pyodide.mjs": "text/javascript",
                     "pyodide-lock.json": "application/json"}


# --- in Chromium -------------------------------------------------------------------------------------

@pytest.mark.browser
def test_boot_shows_stages_then_names_the_missing_packages(browser, server, local_site, test_output):
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.goto(server + "index.html?mode=cpu&algorithm=rr")
    started = boot_state(page)
    assert [s for s, _ in started["stages"]] == ["Downloading Pyodide", "Loading packages", "Installing wheels",
                                                 "Starting the app"]
    page.wait_for_function("document.body.dataset.labBoot === 'error'", timeout=BOOT_TIMEOUT_MS)
    final = boot_state(page)
    page.screenshot(path=str(test_output / "static-boot-missing-packages.png"))
    classes = dict(final["stages"])
    assert classes["Downloading Pyodide"] == "done"  # Pyodide started in the worker
    assert classes["Loading packages"] == "failed"
    # Those the lab needs before it is ready (npm's package has none of them); those loaded later are not awaited.
    start = json.loads((local_site / "lock.json").read_text())["pyodide"]["packages"]
    assert f"Missing Pyodide packages ({len(start)}): {', '.join(start)}." in final["text"]
    assert "numpy" in start and "pandas" not in final["text"]
    assert "HTTP 404" in final["text"] and "incomplete Pyodide distribution" in final["text"]
    # The prerendered lab stays visible underneath (the footer is the site's, index.html only).
    assert page.locator("#lab-footer").is_visible()
    page.close()


@pytest.mark.browser
def test_packages_present_load_and_only_the_absent_are_named(browser, tmp_path, test_output):
    """A distribution with three of the packages the lab needs before it is ready (pure ones from PyPI, at Pyodide's
    versions, their hashes written into its lock): those load, by their lock names whatever their spelling
    ("Jinja2"), and the page names exactly the others it needs as missing."""
    npm = npm_pyodide()
    full_lock = json.loads((npm / "pyodide-lock.json").read_text())
    lock = full_lock["packages"]
    present = ("jinja2", "packaging", "typing-extensions")  # pure, and needed before the lab is ready
    dist = tmp_path / "pyodide"
    dist.mkdir()
    for name in ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip"):
        (dist / name).write_bytes((npm / name).read_bytes())
    pip = subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--disable-pip-version-check",
                          "--no-deps", "--only-binary=:all:", "--dest", str(ROOT / ".cache" / "wheels"),
                          *(f"{n}=={lock[n]['version']}" for n in present)], capture_output=True, text=True)
    if pip.returncode:
        pytest.skip(f"PyPI is not reachable for the three wheels: {pip.stderr.strip()[-300:]}")
    for name in present:
        wheel = ROOT / ".cache" / "wheels" / lock[name]["file_name"]
        lock[name]["sha256"] = hashlib.sha256(wheel.read_bytes()).hexdigest()  # Pyodide rebuilds pure wheels too
        (dist / wheel.name).write_bytes(wheel.read_bytes())
    (dist / "pyodide-lock.json").write_text(json.dumps(full_lock))
    site = tmp_path / "dist"
    build_site(site, "--pyodide-dist", str(dist), "--allow-incomplete")
    start = json.loads((site / "lock.json").read_text())["pyodide"]["packages"]
    absent = [n for n in start if n not in present]
    httpd = build.serve_directory(site, 0)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    try:
        page.goto(f"http://127.0.0.1:{httpd.server_address[1]}/index.html")
        page.wait_for_function("document.body.dataset.labBoot === 'error'", timeout=BOOT_TIMEOUT_MS)
        text = boot_state(page)["text"]
        page.screenshot(path=str(test_output / "static-boot-partial-distribution.png"))
    finally:
        page.close()
        httpd.shutdown()
        httpd.server_close()
    named = re.search(r"Missing Pyodide packages \((\d+)\): ([^.]+)\.", text)
    assert named, text
    assert int(named.group(1)) == len(absent) and named.group(2).split(", ") == absent


@pytest.mark.browser
def test_unreachable_cdn_is_reported_not_awaited(browser, cdn_site, test_output):
    httpd = build.serve_directory(cdn_site, 0)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    context = browser.new_context(service_workers="block")
    try:
        page = context.new_page()
        page.route("https://cdn.jsdelivr.net/**", lambda route: route.abort("internetdisconnected"))
        page.goto(f"http://127.0.0.1:{httpd.server_address[1]}/embed.html?lang=ja")
        page.wait_for_function("document.body.dataset.labBoot === 'error'", timeout=60_000)
        state = boot_state(page)
        text = state["text"]
        assert state["labels"][0] == "Pyodide をダウンロード"  # the display follows the lab's language
        page.screenshot(path=str(test_output / "static-boot-offline-cdn.png"))
        assert "Could not download the Pyodide runtime from " + PYODIDE_CDN in text
        assert "network error" in text and "self-contained" in text
    finally:
        context.close()
        httpd.shutdown()
        httpd.server_close()
