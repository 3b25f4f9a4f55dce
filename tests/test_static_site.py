"""The static site (`python3 build.py build`): its structure, its size, and the page in Chromium.

Chromium gets Pyodide from npm's pyodide package (built with --pyodide-dist pointing at it). That package has the
runtime but not Pyodide's compiled packages (numpy, pandas, ...), which are not reachable here: so the page must show
its boot stages, start Pyodide in the worker and then say clearly which packages are missing. Where a full Pyodide
distribution exists (LAB_PYODIDE_DIST), the whole lab runs self-contained in Chromium.
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

ROOT = Path(__file__).resolve().parent.parent
PYODIDE_CDN = "https://cdn.jsdelivr.net/pyodide/v314.0.7/full/"
# The site's own assets (everything but Pyodide): measured 7.2 MB raw, 4.4 MB gzipped with the app of 2026-11.
OWN_ASSETS_BUDGET = 10_000_000
BOOT_TIMEOUT_MS = 120_000


def app_file() -> Path:
    """The app to compile: app/lab.py, or LAB_STATIC_APP (a stand-in while developing outside the repo)."""
    app = Path(os.environ.get("LAB_STATIC_APP") or ROOT / "app" / "lab.py")
    if not app.exists():
        pytest.skip(f"{app} does not exist yet (it arrives with the app issue): nothing to compile")
    return app


def npm_pyodide() -> Path:
    package = os.environ.get("LAB_PYODIDE_NPM")
    if not package or not (Path(package) / "pyodide.mjs").exists():
        pytest.skip("npm's pyodide@314.0.7 is absent (node/npm missing, or not run via `python3 build.py test`)")
    return Path(package)


def run_build(out: Path, *options: str) -> dict:
    done = subprocess.run([sys.executable, str(ROOT / "build.py"), "build", "--app", str(app_file()),
                           "--out", str(out), *options], capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "the site's own assets" in done.stdout
    return json.loads((out / "build-info.json").read_text())


@pytest.fixture(scope="module")
def cdn_site(tmp_path_factory) -> Path:
    """The default build: Pyodide from its CDN, everything else from the site."""
    npm_pyodide()  # the offline copy of the CDN's pyodide-lock.json
    out = tmp_path_factory.mktemp("cdn") / "dist"
    run_build(out)
    return out


@pytest.fixture(scope="module")
def local_site(tmp_path_factory) -> Path:
    """Self-contained as far as npm's package goes: the runtime, without the compiled packages."""
    out = tmp_path_factory.mktemp("local") / "dist"
    run_build(out, "--pyodide-dist", str(npm_pyodide()), "--allow-incomplete")
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
            refs = parser.refs + re.findall(r'new Worker\("([^"]+)"', text)
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
        for needed in ("./lab.js", "boot.js", "boot.css", "bokeh/bokeh-3.10.2.min.js", "./panel/1.10.0/dist/panel.min.js"):
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
    names = lock["pyodide"]["packages"]
    assert {"numpy", "pandas", "pyyaml", "markupsafe", "pillow"} <= set(names)
    for position, name in enumerate(names):  # each package after its dependencies, all from Pyodide's lock
        assert lock["pyodide"]["files"][name] == pyodide_lock[name]["file_name"]
        assert set(pyodide_lock[name]["depends"]) <= set(names[:position]), name
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
    for wheel in wheels.values():  # RECORD lists every file with its hash, as installers check
        record_name = next(n for n in wheel.namelist() if n.endswith(".dist-info/RECORD"))
        record = {row.split(",")[0]: row.split(",")[1] for row in wheel.read(record_name).decode().splitlines()}
        assert set(record) == set(wheel.namelist())
        for name, digest in record.items():
            if digest:
                actual = base64.urlsafe_b64encode(hashlib.sha256(wheel.read(name)).digest()).rstrip(b"=").decode()
                assert digest == f"sha256={actual}", name


RENDER_LIKE_THE_WORKER = """
import json, sys
from bokeh.document import Document
from bokeh.embed.util import standalone_docs_json_and_render_items
import panel
from panel.io.document import MockSessionContext
from panel.io.state import set_curdoc, state
assert panel.__file__.startswith(sys.argv[1]), panel.__file__  # the trimmed copy, not the build environment's
app = sys.argv[1] + "/app/lab.py"
doc = Document()  # what panel.io.pyodide.init_doc() makes, and write_doc() serialises
doc._session_context = lambda: MockSessionContext(document=doc)
with set_curdoc(doc):
    exec(compile(open(app, encoding="utf-8").read(), app, "exec"), {"__name__": "__main__", "__file__": app})
    state._on_load(None)
    docs_json, _ = standalone_docs_json_and_render_items(doc.roots, suppress_callback_warning=True)
print(json.dumps(docs_json))
"""


def test_trimmed_wheels_still_render_the_app(cdn_site, tmp_path):
    """What the worker runs, on the very wheels the site ships (their Python parts, in CPython; numpy and the other
    compiled packages from the build environment): nothing Python reads was trimmed away."""
    if not (ROOT / "app" / "lab.py").exists():
        pytest.skip("app/lab.py is not in this branch yet: the shipped wheel has no app to render")
    site_packages = tmp_path / "site-packages"
    for wheel in (cdn_site / "wheels").glob("*.whl"):
        zipfile.ZipFile(wheel).extractall(site_packages)
    done = subprocess.run([sys.executable, "-c", RENDER_LIKE_THE_WORKER, str(site_packages)], capture_output=True,
                          text=True, cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(site_packages)}, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "5.75" in done.stdout  # the article's average waiting time, in the default view


def test_own_assets_within_budget(cdn_site, local_site):
    info = json.loads((cdn_site / "build-info.json").read_text())
    own = sum(p.stat().st_size for p in cdn_site.rglob("*") if p.is_file())
    print(f"\nthe site's own assets: {own} bytes ({info['sizes']['own_total_gzip']} gzipped); budget {OWN_ASSETS_BUDGET}")
    assert own < OWN_ASSETS_BUDGET
    assert abs(info["sizes"]["own_total"] - own) < 4096  # build-info.json itself is written after measuring
    local = json.loads((local_site / "build-info.json").read_text())
    assert local["sizes"]["pyodide"] > 5_000_000 and local["pyodide"]["self_contained"]


def test_base_url_prefixes_every_reference(tmp_path):
    npm_pyodide()
    site = tmp_path / "dist"
    run_build(site, "--base-url", "/schedlab/")
    refs = local_references(site, base="/schedlab/")
    page_refs = refs["index.html"]
    assert all(r.startswith("/schedlab/") or r.startswith("./") for r in page_refs), page_refs
    assert "/schedlab/boot.js" in page_refs and "/schedlab/bokeh/bokeh-3.10.2.min.js" in page_refs
    missing = [r for r in page_refs if not resolve(site, "index.html", r, "/schedlab/").is_file()]
    assert not missing
    assert '"base": "/schedlab/"' in (site / "embed.html").read_text()


def test_serve_builds_serves_with_mime_types_and_stops(tmp_path):
    npm_pyodide()
    process = subprocess.Popen([sys.executable, str(ROOT / "build.py"), "serve", "--port", "0", "--app",
                                str(app_file()), "--out", str(tmp_path / "dist")],
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

def boot_state(page) -> dict:
    return page.evaluate("""() => ({
        state: document.body.dataset.labBoot,
        stages: [...document.querySelectorAll('#lab-boot li')].map(li => [li.dataset.stage, li.className]),
        labels: [...document.querySelectorAll('#lab-boot li')].map(li => li.textContent),
        text: (document.querySelector('#lab-boot') || {}).innerText || ''})""")


@pytest.mark.browser
def test_boot_shows_stages_then_names_the_missing_packages(browser, server, test_output):
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
    assert "Missing Pyodide packages" in final["text"] and "numpy" in final["text"] and "pandas" in final["text"]
    assert "HTTP 404" in final["text"] and "incomplete Pyodide distribution" in final["text"]
    # The prerendered lab stays visible underneath (the footer is the site's, index.html only).
    assert page.locator("#lab-footer").is_visible()
    page.close()


@pytest.mark.browser
def test_packages_present_load_and_only_the_absent_are_named(browser, tmp_path, test_output):
    """A distribution with three of the packages (pure ones from PyPI, at Pyodide's versions, their hashes written
    into its lock): those load, by their lock names whatever their spelling ("Jinja2"), and the page names exactly
    the others as missing."""
    npm = npm_pyodide()
    full_lock = json.loads((npm / "pyodide-lock.json").read_text())
    lock = full_lock["packages"]
    present = ("six", "pytz", "jinja2")
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
    info = run_build(site, "--pyodide-dist", str(dist), "--allow-incomplete")
    absent = [n for n in info["pyodide"]["packages"] if n not in present]
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
        assert "Could not download the Pyodide package index from " + PYODIDE_CDN in text
        assert "network error" in text and "self-contained" in text
    finally:
        context.close()
        httpd.shutdown()
        httpd.server_close()


@pytest.mark.browser
def test_embed_reports_its_height_to_the_host(browser, server, test_output):
    page = browser.new_page(viewport={"width": 900, "height": 700})
    page.goto(server + "boot.css")  # any page of the site's origin hosts the frame below
    page.set_content(f"""<!doctype html><body style="margin:0">
        <iframe id="lab" src="{server}embed.html?mode=llm&algorithm=sfq" style="width:100%;border:0;height:150px"></iframe>
        <script src="{server}embed-host.js"></script></body>""")
    page.wait_for_function("document.getElementById('lab').offsetHeight > 300", timeout=60_000)
    frame = page.frame_locator("#lab")
    assert frame.locator("#lab-footer").count() == 0  # no page chrome in the embed
    content_bottom = page.frames[1].evaluate("""() => Math.max(...[...document.querySelectorAll('[data-root-id]')]
        .flatMap(root => [...root.children]).map(el => el.getBoundingClientRect().bottom + window.scrollY))""")
    assert abs(page.evaluate("document.getElementById('lab').offsetHeight") - content_bottom) <= 1
    assert "mode=llm&algorithm=sfq" in page.frames[1].url
    page.screenshot(path=str(test_output / "static-embed-host.png"))
    page.close()


@pytest.mark.browser
def test_offline_after_first_visit(browser, server):
    context = browser.new_context()
    try:
        page = context.new_page()
        page.goto(server + "index.html")
        page.wait_for_function("navigator.serviceWorker.controller !== null || navigator.serviceWorker.ready"
                               ".then(() => true)", timeout=60_000)
        page.evaluate("navigator.serviceWorker.ready")
        page.wait_for_function("""async () => {
            const names = await caches.keys();
            const cache = names.find(n => n.startsWith('schedlab-') && n !== 'schedlab-pyodide');
            return cache && (await (await caches.open(cache)).match('lock.json')) !== undefined
        }""", timeout=60_000)
        page.wait_for_function("document.body.dataset.labBoot === 'error'", timeout=BOOT_TIMEOUT_MS)
        context.set_offline(True)
        page.reload()
        page.wait_for_function("document.body.dataset.labBoot === 'error'", timeout=BOOT_TIMEOUT_MS)
        classes = dict(boot_state(page)["stages"])
        # Offline, the page, BokehJS, Panel and the Pyodide runtime all came from the cache.
        assert classes["Downloading Pyodide"] == "done" and classes["Loading packages"] == "failed"
        assert page.locator("#lab-footer").is_visible()
    finally:
        context.close()


@pytest.mark.browser
def test_full_lab_self_contained(browser, tmp_path, test_output):
    dist = os.environ.get("LAB_PYODIDE_DIST")
    if not dist:
        pytest.skip("no full Pyodide 314.0.7 distribution here: set LAB_PYODIDE_DIST to its directory or "
                    "pyodide-314.0.7.tar.bz2 to run the whole lab self-contained in Chromium")
    site = tmp_path / "dist"
    info = run_build(site, "--pyodide-dist", dist)
    assert not info["pyodide"]["missing"]
    httpd = build.serve_directory(site, 0)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        page = context.new_page()
        # Nothing outside this server: the site needs no network at all.
        page.route(re.compile(r"^(?!http://127\.0\.0\.1).*"), lambda route: route.abort("internetdisconnected"))
        page.goto(f"http://127.0.0.1:{httpd.server_address[1]}/index.html")
        page.wait_for_function("['ready', 'error'].includes(document.body.dataset.labBoot)", timeout=300_000)
        assert boot_state(page)["state"] == "ready", boot_state(page)["text"]
        page.wait_for_timeout(1000)
        page.screenshot(path=str(test_output / "static-full-lab.png"))
        assert "5.75" in page.inner_text("body")
        page.goto(f"http://127.0.0.1:{httpd.server_address[1]}/embed.html?mode=cpu&algorithm=srtf")
        page.wait_for_function("document.body.dataset.labBoot === 'ready'", timeout=300_000)
        page.wait_for_timeout(1000)
        # The query reached the app in the worker: SRTF on the article's tasks waits 2.75 on average, not 5.75.
        assert "2.75" in page.inner_text("body") and "algorithm=srtf" in page.url
    finally:
        context.close()
        httpd.shutdown()
        httpd.server_close()
