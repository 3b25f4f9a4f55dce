"""Compile the lab into a static site that runs in the browser through Pyodide (run by ``build.py build``).

Runs with the virtual environment's Python (Panel, Bokeh and packaging come from there):

    python static/build_site.py --out dist --app app/lab.py --pyodide-lock LOCK.json [--pyodide-dist DIR_OR_TARBALL]
                                [--base-url URL] [--allow-incomplete]

What ``dist/`` holds, and where it comes from:

- ``index.html``, ``embed.html``, ``example-NAME.html`` (prepared embeds: ``EXAMPLES``, or ``--example NAME=QUERY``):
  ``panel convert``'s pyodide-worker page for the app (prerendered, so the default view
  shows before Python starts; with the Japanese prerender beside it, which the page takes before it paints when its
  language is Japanese), plus the site's boot (``early.js`` inlined first in the head: it starts the worker;
  ``boot.js``/``boot.css``: the boot display; ``sheets.js``: each stylesheet parsed once for the page;
  ``handler.js``: Panel's handler with a click made while Python is busy sent after the changes made before it);
  the embed page has no footer and reports its height to the host page.
  What this takes from Panel beyond its public API is in ``panel_adapter.py``, checked against one Panel version.
- ``lab.js``: the web worker, ``static/worker.js`` with the Python it runs (``static/site_worker/``'s modules,
  ``panel_adapter.worker_modules``).
- ``lock.json``: the pre-resolved environment: the Pyodide packages to ``loadPackage`` (before the lab starts, and
  ``later``, once it is ready: ``panel_adapter.LATER_PACKAGES``) and this site's pure-Python wheels in install order
  (with sizes and sha256), so start-up makes no PyPI round trip; and the app's module.
- ``wheels/``: this project's wheel (``schedulers`` + ``app``, built by ``pip wheel`` from ``pyproject.toml``) and the
  pure wheels of Panel, Bokeh, param and their dependencies that Pyodide does not ship, trimmed of the JS bundles
  the page loads separately.
- ``bokeh/``, ``panel/``: BokehJS and Panel's JS/CSS, copied from the installed packages (no CDN).
- ``pyodide/`` (only with ``--pyodide-dist``): the Pyodide runtime and the packages the app needs, so the site needs
  no network at all; without it Pyodide comes from its official CDN.
- ``service-worker.js``: caches the site for offline use; its version is a hash of the content.
- ``build-info.json``: version, Pyodide source and the measured sizes.
"""
from __future__ import annotations

import argparse
import ast
import base64
import csv
import hashlib
import io
import json
import os
import posixpath
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import tomllib
import urllib.request
import zipfile
from importlib import metadata
from pathlib import Path, PurePosixPath
from typing import NamedTuple

# static/, this script's folder, is first on sys.path: the adapter is imported as a top-level module.
import panel_adapter
import prerendered_runs
from panel_adapter import PYODIDE_CDN, PYODIDE_VERSION

HERE = Path(__file__).resolve().parent
# Where Pyodide 314 (Python 3.14, emscripten) evaluates dependency markers.
PYODIDE_MARKERS = {"sys_platform": "emscripten", "platform_system": "Emscripten", "os_name": "posix",
                   "platform_machine": "wasm32", "python_version": "3.14", "python_full_version": "3.14.2",
                   "implementation_name": "cpython", "platform_python_implementation": "CPython", "extra": ""}
# The loadPyodide() runtime files of a Pyodide distribution.
PYODIDE_RUNTIME = ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json")
# What a shipped wheel leaves out: what the browser loads from bokeh/ and panel/ instead (BokehJS, Panel's bundles),
# and what Python never reads at run time (TypeScript sources, source maps, fonts, images, tests).
TRIM_PREFIXES = ("bokeh/server/static/", "panel/dist/panel.", "panel/dist/bundled/", "panel/dist/lib/",
                 "panel/dist/dts/", "panel/dist/images/", "panel/tests/", "panel_material_ui/dist/")
TRIM_SUFFIXES = (".map", ".ts", ".tsbuildinfo", ".woff", ".woff2", ".ttf", ".eot")
KEEP_IN_TRIMMED_DIRS = (".css",)  # Panel checks some bundled stylesheets exist before it links them
# static/'s files that are templates or code of the build, not assets of the site (site_worker/ goes into lab.js).
BUILD_FILES = {"build_site.py", "panel_adapter.py", "prerendered_runs.py", "worker.js", "early.js",
               "service-worker.js"}
TEXT_SUFFIXES = {".html", ".js", ".mjs", ".css", ".json", ".txt", ".svg", ".webmanifest"}


class BuildError(Exception):
    pass


def norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


# --- the environment the browser installs -----------------------------------------------------------

def resolve_environment(pyodide_lock: dict, roots: list[str]) -> tuple[list[str], list[tuple[str, str]]]:
    """Walk the app's requirements with Pyodide's markers.

    Returns the Pyodide packages to load (names in pyodide-lock.json, with their dependency closure) and the pure
    wheels to ship as (name, version) in install order (dependencies first). The pinned roots (panel, bokeh, param)
    are always shipped; any other requirement comes from Pyodide when its version there satisfies it, as micropip
    would choose, and otherwise as a pure wheel at the version installed in the build environment (the pins).
    """
    from packaging.requirements import Requirement
    available = pyodide_lock["packages"]
    pinned = {norm(Requirement(r).name) for r in roots}
    packages: dict[str, None] = {}
    wheels: dict[str, tuple[str, str]] = {}
    visiting: set[str] = set()

    def add_pyodide_package(name: str) -> None:
        if name not in packages:
            for dep in available[name].get("depends", []):
                add_pyodide_package(norm(dep))
            packages[name] = None

    def add(requirement: str) -> None:
        req = Requirement(requirement)
        name = norm(req.name)
        if req.marker and not req.marker.evaluate(PYODIDE_MARKERS):
            return
        if name in wheels or name in packages or name in visiting:
            return
        entry = available.get(name)
        if name not in pinned and entry and req.specifier.contains(entry["version"], prereleases=True):
            add_pyodide_package(name)
            return
        try:
            version = metadata.version(name)
        except metadata.PackageNotFoundError:
            raise BuildError(f"{req.name} is needed in the browser but neither Pyodide {PYODIDE_VERSION} ships it "
                             "nor is it installed in the build environment") from None
        visiting.add(name)
        for dep in metadata.requires(name) or []:
            add(dep)
        visiting.discard(name)
        wheels[name] = (name, version)

    for root in roots:
        add(root)
    return list(packages), list(wheels.values())


def download_wheels(wanted: list[tuple[str, str]], cache: Path) -> dict[str, Path]:
    """The pure (py3-none-any) wheels from PyPI, cached under .cache/wheels."""
    cache.mkdir(parents=True, exist_ok=True)

    def cached(name: str, version: str) -> Path | None:
        prefix = f"{name.replace('-', '_')}-{version}-".lower()
        return next((p for p in cache.glob("*.whl") if p.name.lower().startswith(prefix)), None)

    missing = [f"{name}=={version}" for name, version in wanted if not cached(name, version)]
    if missing:
        pip = subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--disable-pip-version-check",
                              "--no-deps", "--only-binary=:all:", "--platform", "any", "--python-version", "3.14",
                              "--implementation", "py", "--abi", "none", "--dest", str(cache), *missing],
                             capture_output=True, text=True)
        if pip.returncode:
            raise BuildError(f"pip could not download {' '.join(missing)}:\n{pip.stderr.strip()}")
    found = {}
    for name, version in wanted:
        path = cached(name, version)
        if not path:
            raise BuildError(f"no pure-Python wheel of {name}=={version} on PyPI; Pyodide cannot install it")
        found[name] = path
    return found


def write_wheel(path: Path, members: dict[str, bytes]) -> None:
    """A wheel from its members; RECORD is recomputed (it must list every file with its hash)."""
    dist_info = next(n.split("/")[0] for n in members if n.split("/")[0].endswith(".dist-info"))
    record_name = f"{dist_info}/RECORD"
    rows = []
    for name, data in members.items():
        if name != record_name:
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            rows.append((name, f"sha256={digest}", str(len(data))))
    rows.append((record_name, "", ""))
    record = io.StringIO()
    csv.writer(record, lineterminator="\n").writerows(rows)
    fixed_time = (2020, 1, 1, 0, 0, 0)  # same bytes for the same content: stable hashes, stable cache version
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as wheel:
        for name, data in [*((n, d) for n, d in members.items() if n != record_name),
                           (record_name, record.getvalue().encode())]:
            wheel.writestr(zipfile.ZipInfo(name, fixed_time), data, zipfile.ZIP_DEFLATED)


def trimmed_wheel(source: Path, dest_dir: Path) -> Path:
    def keep(name: str) -> bool:
        if name.endswith(TRIM_SUFFIXES):
            return False
        return not (name.startswith(TRIM_PREFIXES) and not name.endswith(KEEP_IN_TRIMMED_DIRS))

    with zipfile.ZipFile(source) as wheel:
        members = {n: wheel.read(n) for n in wheel.namelist() if keep(n) and not n.endswith("/")}
    dest = dest_dir / source.name
    write_wheel(dest, members)
    return dest


def project_packages(config: dict) -> list[str]:
    """The top-level packages of this project's wheel (pyproject.toml's setuptools `find` patterns)."""
    patterns = config["tool"]["setuptools"]["packages"]["find"]["include"]
    return sorted({pattern.split(".")[0] for pattern in patterns})


def project_wheel(root: Path, dest_dir: Path) -> Path:
    """This project's wheel, built by ``pip wheel`` with the backend ``pyproject.toml`` names, from a clean copy of
    the sources (nothing stale from an earlier build, no ``build/`` left in the checkout). The backend's wheel is kept
    in .cache/wheels (fetched from PyPI once), so later builds need no network; SOURCE_DATE_EPOCH makes the same
    sources give the same bytes (a stable hash, a stable service-worker version)."""
    config = tomllib.loads((root / "pyproject.toml").read_text())
    cache = root / ".cache" / "wheels"
    cache.mkdir(parents=True, exist_ok=True)

    def pip(*args: str) -> None:
        done = subprocess.run([sys.executable, "-m", "pip", *args, "--quiet", "--disable-pip-version-check"],
                              capture_output=True, text=True, env={**os.environ, "SOURCE_DATE_EPOCH": "315532800"})
        if done.returncode:
            raise BuildError(f"pip {args[0]} failed for this project's wheel:\n{done.stderr.strip()[-2000:]}")

    backend = config["build-system"]["requires"]
    if not any(cache.glob("setuptools-*.whl")):
        pip("download", "--only-binary=:all:", "--no-deps", "--dest", str(cache), *backend)
    with tempfile.TemporaryDirectory(prefix="lab-project-") as folder:
        source = Path(folder) / "source"
        source.mkdir()
        for name in ("pyproject.toml", config["project"]["readme"]):
            shutil.copyfile(root / name, source / name)
        for package in project_packages(config):
            shutil.copytree(root / package, source / package, ignore=shutil.ignore_patterns("__pycache__"))
        built = Path(folder) / "wheel"
        pip("wheel", "--no-deps", "--no-index", "--find-links", str(cache), "--wheel-dir", str(built), str(source))
        [wheel] = built.glob("*.whl")
        dest_dir.mkdir(parents=True, exist_ok=True)
        return Path(shutil.copyfile(wheel, dest_dir / wheel.name))


# --- Pyodide: from its CDN, or copied from a local distribution --------------------------------------

class PyodideDist:
    """A Pyodide distribution given as a directory or a tarball (``pyodide-*.tar.bz2``)."""

    def __init__(self, location: Path):
        self.location = location
        self.tar = tarfile.open(location) if location.is_file() else None
        self.names = {}
        if self.tar:
            for member in self.tar.getmembers():
                if member.isfile():
                    self.names[PurePosixPath(member.name).name] = member
        elif not location.is_dir():
            raise BuildError(f"--pyodide-dist {location}: no such directory or tarball")

    def has(self, name: str) -> bool:
        return name in self.names if self.tar else (self.location / name).is_file()

    def read(self, name: str) -> bytes | None:
        if self.tar:
            member = self.names.get(name)
            return self.tar.extractfile(member).read() if member else None
        path = self.location / name
        return path.read_bytes() if path.is_file() else None


def pyodide_files(lock: dict, packages: list[str], runtime: tuple[str, ...]) -> list[str]:
    """The files of a Pyodide distribution this site loads: the runtime and the packages' wheels."""
    return [*runtime, *(lock["packages"][p]["file_name"] for p in packages)]


def runtime_files(dist: PyodideDist, standin: bool) -> tuple[str, ...]:
    """Pyodide 314's runtime files; a stand-in's (an older Pyodide) may have pyodide.asm.js for pyodide.asm.mjs."""
    if standin and not dist.has("pyodide.asm.mjs") and dist.has("pyodide.asm.js"):
        return tuple("pyodide.asm.js" if name == "pyodide.asm.mjs" else name for name in PYODIDE_RUNTIME)
    return PYODIDE_RUNTIME


def copy_pyodide(dist: PyodideDist, lock: dict, packages: list[str], out: Path, allow_incomplete: bool,
                 runtime: tuple[str, ...]) -> list[str]:
    """Copy the runtime and the packages' files; returns what the distribution lacks."""
    target = out / "pyodide"
    target.mkdir()
    missing = []
    for name in pyodide_files(lock, packages, runtime):
        data = dist.read(name)
        if data is None:
            missing.append(name)
        else:
            (target / name).write_bytes(data)
    if missing and not allow_incomplete:
        raise BuildError(f"the Pyodide distribution {dist.location} lacks {', '.join(missing)}; "
                         "give a full distribution (pyodide-*.tar.bz2 from Pyodide's releases)")
    return missing


# --- the pages ------------------------------------------------------------------------------------------

# Panel resolves its resources only under an absolute CDN URL, so the build renders with this one and then writes
# the site's own (relative, or under --base-url) into the page.
BUILD_PANEL_ROOT = "https://panel.schedlab-build.invalid/"
# Prepared embeds (``--example NAME=QUERY`` replaces them): ``example-NAME.html``, the embed page prerendered with
# the link's run, which steps at once and starts Python only when the reader needs it (early.js).
ARTICLE_TASKS = "tasks=A:0:7,B:1:4,C:2:1,D:4:3"
EXAMPLES = {"fcfs": f"mode=cpu&algorithm=fcfs&{ARTICLE_TASKS}",
            "srtf": f"mode=cpu&algorithm=srtf&{ARTICLE_TASKS}",
            "rr-q2": f"mode=cpu&algorithm=rr&quantum=2&{ARTICLE_TASKS}",
            "sfq": "mode=llm&algorithm=sfq&tenants=A:8x6,B:2x6,C:2x4:join=6"}
EXAMPLE_NAME = re.compile(r"^[a-z0-9][a-z0-9-]{0,40}$")


class Prerenders(NamedTuple):
    """The page's prerendered document (the id of its JSON script), the other languages' documents (escaped for the
    page), and each language's controls (``prerendered_runs.controls``; none on a prepared example's page)."""
    json_id: str
    documents: dict[str, str]
    controls: dict[str, dict]


def convert_app(app: Path) -> tuple[str, Prerenders]:
    """Panel's prerendered page for the app, its document replaced by the build's own prerender of the default run
    (whose controls the build knows), and that run in the other languages, which the page takes before it paints
    when its language is another."""
    html = panel_adapter.convert(app)
    documents, controls = {}, {}
    own, *others = prerendered_runs.languages()
    for lang in (own, *others):
        with panel_adapter.Prerendered(app, html, "" if lang == own else f"lang={lang}") as view:
            documents[lang] = panel_adapter.escaped(view.document_json())
            controls[lang] = prerendered_runs.controls(view)
    html = panel_adapter.with_document(html, view.json_id, documents.pop(own))
    return html, Prerenders(view.json_id, documents, controls)


BOKEH_CDN = re.compile(r"https://cdn\.bokeh\.org/bokeh/release/(bokeh(?:-[a-z]+)?)-([0-9.]+)(?:\.min)?\.js")


def localise_bokeh(html: str, base: str, out: Path) -> str:
    """BokehJS from the installed bokeh package (the same files its CDN serves) instead of cdn.bokeh.org."""
    import bokeh
    static = Path(bokeh.__file__).parent / "server" / "static" / "js"
    (out / "bokeh").mkdir(exist_ok=True)

    def local(match: re.Match) -> str:
        name, version = match.groups()
        target = f"bokeh/{name}-{version}.min.js"
        shutil.copyfile(static / f"{name}.min.js", out / target)
        return base + target

    return BOKEH_CDN.sub(local, html)


FOOTER = {
    "en": 'The scheduling lab runs entirely in your browser (Python through Pyodide).',
    "ja": 'スケジューリング実験室はすべてブラウザの中で動きます（Python は Pyodide で実行）。',
}
EMBED_LINK = {"en": "Embed this view", "ja": "この表示を埋め込む"}


def in_languages(texts: dict[str, str]) -> str:
    """One span per language; boot.css shows the page's (``<html lang>``, set before the first paint)."""
    return "".join(f'<span class="lab-lang-{lang}">{text}</span>' for lang, text in texts.items())


def page(html: str, app: Path, base: str, embed: bool, prerenders: Prerenders, panel_root: str,
         runs: dict | None = None, example: str | None = None) -> str:
    """Panel's page plus the site's boot: the worker started first thing in the head (``early.js``, which also picks
    the prerender of the page's language), the boot display, and the footer (not on the embed page, which reports
    its height instead). A prepared example names its query: its worker starts when the reader needs Python."""
    site = {"embed": embed, "base": base, "example": example,
            "prerender": {"json": prerenders.json_id, "langs": list(prerenders.documents)},
            "runs": {**runs, "controls": prerenders.controls} if runs else None}
    early = f"window.labSite = {json.dumps(site)};\n" + (HERE / "early.js").read_text(encoding="utf-8")
    html = panel_adapter.adopt_worker(html, app, early)
    html = html.replace(BUILD_PANEL_ROOT, panel_root)
    head = f'<link rel="stylesheet" href="{base}boot.css">\n'
    footer = "" if embed else (
        f'<footer id="lab-footer">{in_languages(FOOTER)} '
        f'<a id="lab-embed-link" href="{base}embed.html">{in_languages(EMBED_LINK)}</a></footer>\n')
    others = "".join(f'<script type="application/json" id="lab-prerender-{lang}">{text}</script>\n'
                     for lang, text in prerenders.documents.items())
    names = ["handler.js", "sheets.js", "boot.js", *["runs.js"] * bool(runs)]   # sheets.js before the first embed
    scripts = "".join(f'<script src="{base}{name}"></script>\n' for name in names)
    tail = f'{footer}{others.replace(BUILD_PANEL_ROOT, panel_root)}{scripts}'
    html = html.replace("</head>", head + "</head>", 1)
    html = html.replace("<body>", '<body class="lab-embed">' if embed else "<body>", 1)
    return html.replace("</body>", tail + "</body>", 1)


# --- local references, checks and sizes -------------------------------------------------------------

REFERENCE = re.compile(r"""(?:src|href)\s*=\s*["']([^"'#]+)["']|url\(\s*["']?([^"')]+)["']?\s*\)""")


def copy_panel_assets(texts: list[str], panel_prefix: str, out: Path) -> None:
    """Panel's files the pages refer to (found by prefix), with what their CSS refers to, plus all of Panel's small
    stylesheets (components shown later add theirs at run time)."""
    dist_dir, js_version = panel_adapter.panel_dist()
    local_prefix = f"panel/{js_version}/dist/"
    wanted = {"panel.min.js"}
    for directory in ("css", "assets", "bundled/theme"):
        wanted |= {p.relative_to(dist_dir).as_posix() for p in (dist_dir / directory).rglob("*") if p.is_file()}
    pattern = re.compile(re.escape(panel_prefix + f"{js_version}/dist/") + r"([^\"'\s)\\]+)")
    for text in texts:
        wanted |= set(pattern.findall(text))
    done: set[str] = set()
    while wanted:
        rel = wanted.pop()
        source = dist_dir / rel
        if rel in done or not source.is_file():
            continue
        done.add(rel)
        target = out / local_prefix / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)
        if source.suffix == ".css":
            for ref in (a or b for a, b in REFERENCE.findall(source.read_text(encoding="utf-8", errors="replace"))):
                if not re.match(r"^(?:[a-z]+:|/|#)", ref):
                    wanted.add(posixpath.normpath(posixpath.join(posixpath.dirname(rel), ref.split("?")[0])))


def site_texts(out: Path):
    """(file, text, suffix, folder its references are relative to) for every text file the site serves, and for each
    prerendered run's document, which the page embeds (as its own: its references are the page's)."""
    import gzip
    for path in sorted(out.rglob("*")):
        rel = path.relative_to(out).as_posix()
        if not path.is_file() or rel.startswith("pyodide/"):
            continue
        if rel.startswith(f"{prerendered_runs.FOLDER}/"):
            yield rel, gzip.decompress(path.read_bytes()).decode(), ".json", out
        elif path.suffix in TEXT_SUFFIXES:
            yield rel, path.read_text(encoding="utf-8", errors="replace"), path.suffix, path.parent


def check_site(out: Path, base: str, allowed_remote: tuple[str, ...], panel_root: str) -> list[str]:
    """Every local src/href/url() in the built HTML/CSS, and every Panel asset URL in the pages' data (the prerendered
    runs' too), exists; nothing remote but Pyodide's CDN; no machine paths; no BokehJS style property set."""
    problems = []
    machine = re.compile(r"(?<![\w.])/(?:work|root|tmp|home)/")
    panel_url = re.compile(re.escape(panel_root) + r"[^\"'\s)\\]+")
    for rel, text, suffix, folder in site_texts(out):
        if machine.search(text):
            problems.append(f"{rel}: contains an absolute machine path ({machine.search(text).group()})")
        bokeh_style = panel_adapter.BOKEH_STYLE_PROPERTY.search(text)
        if bokeh_style:
            problems.append(f"{rel}: defines BokehJS's style property {bokeh_style.group()!r}, which static/runs.js "
                            "reads as unset (panel_adapter.BOKEH_STYLE_READ)")
        if suffix not in (".html", ".css") and not rel.startswith(f"{prerendered_runs.FOLDER}/"):
            continue
        refs = [a or b for a, b in REFERENCE.findall(text)] if suffix != ".json" else []
        if suffix != ".css":
            refs += panel_url.findall(text)
        for ref in refs:
            if ref.startswith(("data:", "mailto:", "javascript:", "blob:", "about:", "#")):
                continue
            if base and ref.startswith(base):
                target = out / ref[len(base):].split("?")[0]
            elif re.match(r"^(?:https?:)?//", ref):
                if not ref.startswith(allowed_remote):
                    problems.append(f"{rel}: refers to {ref} (remote)")
                continue
            else:
                target = folder / ref.split("?")[0]
            if not target.resolve().is_file():
                problems.append(f"{rel}: refers to {ref}, which is not in the site")
    return problems


def measure(out: Path) -> dict:
    """Sizes in bytes: the site's own assets (everything but pyodide/), split by kind, with index.html's own, and
    Pyodide's files. Wheels and the prerendered runs are compressed already: their gzipped size is their size."""
    import gzip
    sizes = {"wheels": 0, "prerendered_runs": 0, "javascript_css": 0, "pages_and_other": 0, "pyodide": 0}
    own_gzip = 0
    for path in out.rglob("*"):
        if not path.is_file():
            continue
        size = path.stat().st_size
        top = path.relative_to(out).parts[0]
        if top == "pyodide":
            sizes["pyodide"] += size
            continue
        kind = ("wheels" if path.suffix == ".whl" else "prerendered_runs" if top == prerendered_runs.FOLDER
                else "javascript_css" if path.suffix in (".js", ".css") else "pages_and_other")
        sizes[kind] += size
        own_gzip += size if kind in ("wheels", "prerendered_runs") else len(gzip.compress(path.read_bytes(), 6))
    sizes["own_total"] = sum(sizes[kind] for kind in ("wheels", "prerendered_runs", "javascript_css",
                                                      "pages_and_other"))
    sizes["own_total_gzip"] = own_gzip
    index = (out / "index.html").read_bytes()
    sizes["index_html"], sizes["index_html_gzip"] = len(index), len(gzip.compress(index, 6))
    return sizes


def content_version(out: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(p for p in out.rglob("*") if p.is_file()):
        digest.update(path.relative_to(out).as_posix().encode() + b"\0" + hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()[:16]


def write_service_worker(out: Path, version: str, remote_index: str | None) -> None:
    """The service worker, with what it fetches at install: every file but the prerendered runs, which it keeps as
    the page fetches them (a reader picks a few of them, never all)."""
    precache = sorted(rel for rel in (p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file())
                      if rel != "build-info.json" and not rel.startswith(f"{prerendered_runs.FOLDER}/"))
    text = (HERE / "service-worker.js").read_text()
    config = {"version": version, "precache": ["./", *precache], "remote": remote_index,
              "runs": f"{prerendered_runs.FOLDER}/"}
    (out / "service-worker.js").write_text(text.replace("/*SITE*/null", json.dumps(config, separators=(",", ":"))))


# --- the build -------------------------------------------------------------------------------------------

def app_entry(app: Path, root: Path, packages: list[str], panel_root: str) -> dict:
    """The app as the worker runs it: its module in the project's wheel, its own imports in order (the boot display
    shows each one), and where Panel's files are (for Panel in the worker)."""
    rel = app.relative_to(root) if app.is_relative_to(root) else None
    if rel is None or rel.parts[0] not in packages:
        raise BuildError(f"--app {app}: the site runs the app from this project's wheel, which holds the packages "
                         f"{', '.join(packages)} of {root}: the app must be a file in one of them")
    imports: list[str] = []
    for node in ast.parse(app.read_text(encoding="utf-8")).body:
        names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
            [node.module] if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module else []
        imports += [n for n in names if n.split(".")[0] not in sys.stdlib_module_names and n not in imports]
    return {"module": ".".join(rel.with_suffix("").parts), "imports": imports, "panel_root": panel_root}


def read_pyodide_lock(args: argparse.Namespace, dist: PyodideDist | None) -> dict:
    """The Pyodide lock the site is resolved against; a distribution for another Python is refused, except a
    stand-in for Pyodide's CDN folder that the build is told about (--pyodide-standin)."""
    if dist:
        lock_bytes = dist.read("pyodide-lock.json")
        if lock_bytes is None:
            raise BuildError(f"--pyodide-dist {args.pyodide_dist}: no pyodide-lock.json in it")
    elif args.pyodide_lock:
        lock_bytes = args.pyodide_lock.read_bytes()
    else:
        with urllib.request.urlopen(PYODIDE_CDN + "pyodide-lock.json", timeout=60) as response:
            lock_bytes = response.read()
    lock = json.loads(lock_bytes)
    python = lock["info"]["python"]
    if not python.startswith(PYODIDE_MARKERS["python_version"] + "."):
        if not (dist and args.pyodide_standin):
            raise BuildError(f"that Pyodide runs Python {python}; the lab is built for Pyodide {PYODIDE_VERSION} "
                             f"(Python {PYODIDE_MARKERS['python_version']})"
                             + (" (a stand-in for it is accepted with --pyodide-standin)" if dist else ""))
        print(f"note: {args.pyodide_dist} is a stand-in (Pyodide {lock['info'].get('version')}, Python {python}) "
              f"for Pyodide {PYODIDE_VERSION}, as --pyodide-standin says", file=sys.stderr)
    return lock


def read_examples(given: list[str] | None) -> dict[str, str]:
    """``--example NAME=QUERY`` options (none: ``EXAMPLES``), each query read by the lab itself: a part it cannot
    use is an error naming the option and the field, not a page that quietly shows something else."""
    from app.model import Lab
    examples = {}
    for option in given or [f"{name}={query}" for name, query in EXAMPLES.items()]:
        name, sep, query = option.partition("=")
        if not sep or not EXAMPLE_NAME.match(name):
            raise BuildError(f"--example {option!r}: give NAME=QUERY, NAME of lowercase letters, digits and '-' "
                             "(it names the page example-NAME.html)")
        if name in examples:
            raise BuildError(f"--example {name}: given twice")
        lab = Lab()
        lab.restore(query)
        if lab.notices:
            problems = "; ".join(f"{field}: {problem['en'] if isinstance(problem, dict) else problem}"
                                 for field, problem in lab.notices)
            raise BuildError(f"--example {name}: the lab cannot use all of {query!r}: {problems}")
        examples[name] = query.lstrip("?")
    return examples


def example_page(html: str, app: Path, base: str, query: str, panel_root: str) -> str:
    """The embed page prerendered with ``query``'s run (in English, and in Japanese beside it)."""
    json_id, english = panel_adapter.prerender(app, html, query)
    _, japanese = panel_adapter.prerender(app, html, f"{query}&lang=ja")
    own = panel_adapter.with_document(html, json_id, english)
    return page(own, app, base, True, Prerenders(json_id, {"ja": japanese}, {}), panel_root, example=query)


def build(args: argparse.Namespace) -> dict:
    root, out = args.root.resolve(), args.out.resolve()
    base = args.base_url
    if base and not base.endswith("/"):
        base += "/"
    panel_root = f"{base or './'}panel/"
    panel_adapter.with_panel_root(BUILD_PANEL_ROOT)  # before Panel is imported (see BUILD_PANEL_ROOT)
    try:
        panel_adapter.check_panel()
    except panel_adapter.AdapterError as error:
        raise BuildError(str(error)) from None
    sys.path.insert(0, str(root))
    examples = read_examples(args.example)
    if out.exists():
        shutil.rmtree(out)
    (out / "wheels").mkdir(parents=True)

    dist = PyodideDist(args.pyodide_dist) if args.pyodide_dist else None
    lock = read_pyodide_lock(args, dist)
    project = tomllib.loads((root / "pyproject.toml").read_text())
    app = args.app.resolve()
    app_info = app_entry(app, root, project_packages(project), panel_root)
    packages, pure = resolve_environment(lock, project["project"]["optional-dependencies"]["app"])
    downloaded = download_wheels(pure, root / ".cache" / "wheels")
    shipped = [trimmed_wheel(downloaded[name], out / "wheels") for name, _ in pure]
    shipped.append(project_wheel(root, out / "wheels"))

    try:
        html, prerenders = convert_app(app)
        (out / "lab.js").write_text(panel_adapter.render_worker((HERE / "worker.js").read_text(encoding="utf-8")),
                                    encoding="utf-8")
        html = localise_bokeh(html, base, out)
        runs = prerendered_runs.prerender_all(app, html, out, (BUILD_PANEL_ROOT, panel_root))
        for name, embed in (("index.html", False), ("embed.html", True)):
            (out / name).write_text(page(html, app, base, embed, prerenders, panel_root, runs["index"]),
                                    encoding="utf-8")
        for name, query in examples.items():
            (out / f"example-{name}.html").write_text(example_page(html, app, base, query, panel_root),
                                                      encoding="utf-8")
    except panel_adapter.AdapterError as error:
        raise BuildError(str(error)) from None
    for asset in sorted(HERE.iterdir()):  # the site's own assets: static/ but for the build's own files
        if asset.is_file() and asset.name not in BUILD_FILES:
            shutil.copyfile(asset, out / asset.name)
    copy_panel_assets([text for rel, text, _, _ in site_texts(out) if rel == "index.html"
                       or rel.startswith(f"{prerendered_runs.FOLDER}/")], panel_root, out)

    missing = copy_pyodide(dist, lock, packages, out, args.allow_incomplete,
                           runtime_files(dist, args.pyodide_standin)) if dist else []
    index_url = "pyodide/" if dist else PYODIDE_CDN
    later = panel_adapter.packages_after_ready(packages, lock)
    site_lock = {
        "pyodide": {"version": PYODIDE_VERSION, "index_url": index_url,
                    "packages": [p for p in packages if p not in later], "later": later,
                    "files": {p: lock["packages"][p]["file_name"] for p in packages}},
        "wheels": [{"name": w.name.split("-")[0], "file": f"wheels/{w.name}", "size": w.stat().st_size,
                    "sha256": hashlib.sha256(w.read_bytes()).hexdigest()} for w in shipped],
        "app": app_info,
    }
    (out / "lock.json").write_text(json.dumps(site_lock, indent=1) + "\n")

    version = content_version(out)
    write_service_worker(out, version, None if dist else PYODIDE_CDN)
    problems = check_site(out, base, () if dist else (PYODIDE_CDN,), panel_root)
    if problems:
        raise BuildError("the built site is broken:\n  " + "\n  ".join(problems))
    info = {"version": version, "pyodide": {"index_url": index_url, "self_contained": bool(dist),
                                             "missing": missing, "packages": packages},
            "wheels": [w.name for w in shipped], "sizes": measure(out),
            "runs": {"index_bytes": len(json.dumps(runs["index"]).encode()), "files": runs["sizes"]}}
    (out / "build-info.json").write_text(json.dumps(info, indent=1) + "\n")
    return info


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", type=Path, default=HERE.parent)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--app", type=Path, required=True)
    parser.add_argument("--pyodide-lock", type=Path, help="pyodide-lock.json of Pyodide 314.0.7 (else fetched)")
    parser.add_argument("--pyodide-dist", type=Path, help="a full Pyodide distribution: build self-contained")
    parser.add_argument("--base-url", default="", help="the URL the site is served from (default: relative)")
    parser.add_argument("--allow-incomplete", action="store_true",
                        help="build even when --pyodide-dist lacks package files (the page then reports them)")
    parser.add_argument("--pyodide-standin", action="store_true",
                        help="--pyodide-dist is a stand-in for Pyodide's CDN folder whose lock names another Python")
    parser.add_argument("--example", action="append", metavar="NAME=QUERY",
                        help="a prepared embed, example-NAME.html (repeatable; default: " + ", ".join(EXAMPLES) + ")")
    args = parser.parse_args(argv)
    try:
        build(args)
    except BuildError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
