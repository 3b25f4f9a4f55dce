#!/usr/bin/env python3
"""The scheduling lab's one entry point.

    python3 build.py test [PYTEST ARGS]   prepare everything the tests need, then run the whole suite
    python3 build.py build [OPTIONS]      compile the lab into a static site in dist/ (runs in the browser via Pyodide)
    python3 build.py serve [--port P]     build the static site and serve it locally
    python3 build.py app [--port P]       serve the lab as a Panel app (`panel serve app/lab.py` in the venv)
    python3 build.py bench [--quick] [--only PART]  measure (parts: see tests/benchmarks.py); prints a table, JSON
    python3 build.py screenshots          the documentation's screenshots from the browser tests' (test-output/)

It runs under any Python 3.8+ (this machine's plain ``python3`` is 3.11) and does the real work in a
virtual environment (``.venv``, or ``$LAB_VENV``) made from a Python >= 3.12 it finds on PATH or in
pyenv. Dependencies are the exact pins in ``pyproject.toml``.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = Path(os.environ.get("LAB_VENV") or ROOT / ".venv")
CACHE = ROOT / ".cache"
NODE_PREFIX = CACHE / "node"  # npm packages the tests use (pyodide), kept out of the top level
TEST_OUTPUT = ROOT / "test-output"
MIN_PYTHON = (3, 12)
sys.path.insert(0, str(ROOT / "static"))
from panel_adapter import PYODIDE_VERSION  # noqa: E402  (the Pyodide Panel targets; no Panel needed to read it)
CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


class BuildError(Exception):
    """A step that cannot go on; its message is one sentence for the user."""


def run(cmd: list[str], **kwargs) -> subprocess.CompletedProcess:
    print("+", " ".join(str(c) for c in cmd), flush=True)
    return subprocess.run([str(c) for c in cmd], check=True, **kwargs)


# --- Python >= 3.12 and the virtual environment -----------------------------------------------------

def python_version(exe: str) -> tuple[int, int] | None:
    try:
        out = subprocess.run([exe, "-c", "import sys; print(*sys.version_info[:2])"],
                             capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if out.returncode != 0:
        return None
    major, minor = out.stdout.split()
    return int(major), int(minor)


def candidate_pythons() -> list[str]:
    """PATH first (newest name first), then every pyenv version, newest first."""
    found = [shutil.which(name) for name in ("python3.14", "python3.13", "python3.12", "python3", "python")]
    pyenv_root = os.environ.get("PYENV_ROOT") or str(Path.home() / ".pyenv")
    versions = Path(pyenv_root) / "versions"
    if versions.is_dir():
        def key(p: Path):
            return [int(x) if x.isdigit() else -1 for x in p.name.split(".")]
        for version_dir in sorted(versions.iterdir(), key=key, reverse=True):
            found.append(str(version_dir / "bin" / "python3"))
    return [exe for exe in dict.fromkeys(found) if exe and Path(exe).exists()]


def find_python() -> str:
    if sys.version_info[:2] >= MIN_PYTHON:
        return sys.executable
    for exe in candidate_pythons():
        version = python_version(exe)
        if version and version >= MIN_PYTHON:
            return exe
    raise BuildError("No Python >= 3.12 found on PATH or in pyenv; install Python 3.12 or newer "
                     "(for example `pyenv install 3.12`) and run this command again.")


def venv_python() -> Path:
    return VENV / "bin" / "python"


def pinned_requirements(python: str, extras: list[str]) -> tuple[list[str], list[str]]:
    """pyproject.toml's optional dependency groups and the constraints pinning what they pull in."""
    code = ("import json, sys, tomllib; t = tomllib.load(open(sys.argv[1], 'rb'));"
            "print(json.dumps([[r for e in sys.argv[2:] for r in t['project']['optional-dependencies'][e]],"
            " t['tool']['schedlab']['constraints']]))")
    out = subprocess.run([python, "-c", code, str(ROOT / "pyproject.toml"), *extras],
                         capture_output=True, text=True, check=True)
    requirements, constraints = json.loads(out.stdout)
    return requirements, constraints


def ensure_venv(extras: list[str]) -> Path:
    """Create or refresh the virtual environment; a stamp of the pins skips the work when nothing changed."""
    python = find_python()
    requirements, constraints = pinned_requirements(python, extras)
    stamp = VENV / ".lab-stamp"
    wanted = hashlib.sha256(json.dumps([requirements, constraints]).encode()).hexdigest()
    if venv_python().exists() and stamp.exists() and wanted in stamp.read_text().split():
        return venv_python()
    if not venv_python().exists() or (python_version(str(venv_python())) or (0, 0)) < MIN_PYTHON:
        shutil.rmtree(VENV, ignore_errors=True)
        run([python, "-m", "venv", VENV])
    constraints_file = VENV / "constraints.txt"
    constraints_file.write_text("\n".join(constraints) + "\n")
    run([venv_python(), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
         "-c", constraints_file, *requirements])
    old = stamp.read_text().split() if stamp.exists() else []
    stamp.write_text("\n".join([*old, wanted]) + "\n")
    return venv_python()


# --- Chromium and Node packages for the browser and Pyodide tests -----------------------------------

def find_chromium() -> str | None:
    configured = os.environ.get("LAB_CHROMIUM")
    if configured:
        return configured if Path(configured).exists() else None
    for name in CHROMIUM_NAMES:
        exe = shutil.which(name)
        if exe:
            return exe
    return None


def japanese_font_present() -> bool:
    """Screenshots of the Japanese page are only readable with a CJK font (fontconfig's view)."""
    if not shutil.which("fc-list"):
        return False
    out = subprocess.run(["fc-list", ":lang=ja", "family"], capture_output=True, text=True)
    return bool(out.stdout.strip())


APT_LOCK_WAIT_SECONDS = 600


def apt_install(*packages: str) -> None:
    """apt-get waits for another apt or dpkg (an unattended upgrade, a second test run) to let go of its lock."""
    print(f"+ installing {' '.join(packages)} with apt-get; if another apt or dpkg holds its lock, waiting for it "
          f"(up to {APT_LOCK_WAIT_SECONDS // 60} minutes)", flush=True)
    wait = ["-o", f"DPkg::Lock::Timeout={APT_LOCK_WAIT_SECONDS}"]
    run(["apt-get", *wait, "update", "-qq"])
    run(["apt-get", *wait, "install", "-y", "-qq", *packages], env={**os.environ, "DEBIAN_FRONTEND": "noninteractive"})


def ensure_chromium() -> str:
    """Debian's Chromium (Playwright's own browser download is out of reach) and a Japanese font for it."""
    exe = find_chromium()
    missing = ([] if exe else ["chromium"]) + ([] if japanese_font_present() else ["fonts-ipafont-gothic"])
    if missing and shutil.which("apt-get") and os.geteuid() == 0:
        apt_install(*missing)
        exe = find_chromium()
    elif "fonts-ipafont-gothic" in missing:
        print("note: no Japanese font; screenshots of the Japanese page will show boxes", flush=True)
    if exe:
        return exe
    raise BuildError("Chromium is needed for the browser tests: install Debian's `chromium` package "
                     "(apt-get install chromium) or set LAB_CHROMIUM to a Chromium executable.")


def ensure_node_packages() -> Path | None:
    """npm's pyodide package (the core runs inside it in Node); None, with a reason printed, without Node."""
    if not (shutil.which("node") and shutil.which("npm")):
        print("note: node/npm not found; the Pyodide tests will fail, saying so", flush=True)
        return None
    package = NODE_PREFIX / "node_modules" / "pyodide"
    manifest = package / "package.json"
    if not (manifest.exists() and json.loads(manifest.read_text()).get("version") == PYODIDE_VERSION):
        NODE_PREFIX.mkdir(parents=True, exist_ok=True)
        run(["npm", "install", "--silent", "--no-save", "--prefix", NODE_PREFIX, f"pyodide@{PYODIDE_VERSION}"])
    return package


# --- commands --------------------------------------------------------------------------------------------

def test_environment() -> dict[str, str]:
    """Prepare everything the suite needs and return the environment that tells the tests where it is."""
    python = ensure_venv(["app", "test"])
    env = {**os.environ, "LAB_CHROMIUM": ensure_chromium(), "LAB_TEST_OUTPUT": str(TEST_OUTPUT),
           "LAB_PYTHON": str(python), "PYTHONDONTWRITEBYTECODE": "1", "LAB_SKIP_FAILS": "1"}
    pyodide = ensure_node_packages()
    if pyodide:
        env["LAB_PYODIDE_NPM"] = str(pyodide)
    TEST_OUTPUT.mkdir(exist_ok=True)
    return env


def cmd_test(args: argparse.Namespace) -> int:
    env = test_environment()
    return subprocess.call([env["LAB_PYTHON"], "-m", "pytest", *args.pytest_args], cwd=ROOT, env=env)


def build_site(args: argparse.Namespace) -> dict:
    """static/build_site.py does the work with the venv's Python (Panel converts the app there)."""
    python = ensure_venv(["app"])
    app = Path(args.app).resolve()
    if not app.exists():
        raise BuildError(f"{app} does not exist: the static site is built from the Panel app (app/lab.py)")
    cmd = [python, ROOT / "static" / "build_site.py", "--root", ROOT, "--out", Path(args.out).resolve(),
           "--app", app, "--base-url", args.base_url]
    for example in args.example or []:
        cmd += ["--example", example]
    if args.pyodide_dist:
        cmd += ["--pyodide-dist", Path(args.pyodide_dist).resolve()]
        cmd += ["--allow-incomplete"] * args.allow_incomplete + ["--pyodide-standin"] * args.pyodide_standin
    else:
        npm = ensure_node_packages()  # its pyodide-lock.json is the CDN's; without npm the builder fetches that
        if npm:
            cmd += ["--pyodide-lock", npm / "pyodide-lock.json"]
    print("+ building the static site", flush=True)
    if subprocess.run([str(c) for c in cmd]).returncode:
        raise BuildError("the static build failed (see the message above)")
    info = json.loads((Path(args.out) / "build-info.json").read_text())
    sizes = info["sizes"]
    where = "self-contained" if info["pyodide"]["self_contained"] else "Pyodide from its CDN"
    print(f"built {args.out}/ (version {info['version']}, {where}): the site's own assets "
          f"{sizes['own_total'] / 1e6:.1f} MB ({sizes['own_total_gzip'] / 1e6:.1f} MB gzipped; wheels "
          f"{sizes['wheels'] / 1e6:.1f} MB, JS/CSS {sizes['javascript_css'] / 1e6:.1f} MB)"
          + (f", Pyodide {sizes['pyodide'] / 1e6:.1f} MB" if sizes["pyodide"] else ""), flush=True)
    if info["pyodide"]["missing"]:
        print("warning: NOT usable offline: the Pyodide distribution lacks "
              + ", ".join(info["pyodide"]["missing"]) + " (the page reports them when it starts)", flush=True)
    return info


def cmd_build(args: argparse.Namespace) -> int:
    build_site(args)
    return 0


MIME_TYPES = {".wasm": "application/wasm", ".mjs": "text/javascript", ".js": "text/javascript",
              ".json": "application/json", ".whl": "application/zip", ".zip": "application/zip",
              ".css": "text/css", ".html": "text/html", ".svg": "image/svg+xml", ".ico": "image/x-icon",
              ".webmanifest": "application/manifest+json"}


def serve_directory(directory: Path, port: int, cors: bool = False, cache_seconds: int | None = None):
    """A ThreadingHTTPServer for a static directory on localhost, with the MIME types Pyodide needs; ``cors`` and
    ``cache_seconds`` make it answer as a CDN does (the tests' stand-in for Pyodide's)."""
    from functools import partial
    from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

    class Handler(SimpleHTTPRequestHandler):
        extensions_map = {**SimpleHTTPRequestHandler.extensions_map, **MIME_TYPES}

        def end_headers(self):
            if cors:
                self.send_header("Access-Control-Allow-Origin", "*")
            if cache_seconds:
                self.send_header("Cache-Control", f"public, max-age={cache_seconds}, immutable")
            super().end_headers()

        def log_message(self, format, *args):  # one line per request is noise; errors still show
            if args and str(args[1]).startswith(("4", "5")):
                super().log_message(format, *args)

    class Server(ThreadingHTTPServer):
        daemon_threads = True  # Ctrl-C does not wait for open connections

        def handle_error(self, request, client_address):
            if not isinstance(sys.exc_info()[1], ConnectionError):  # a browser that cancels a load is no error
                super().handle_error(request, client_address)

    return Server(("127.0.0.1", port), partial(Handler, directory=str(directory)))


def cmd_serve(args: argparse.Namespace) -> int:
    build_site(args)
    try:
        server = serve_directory(Path(args.out).resolve(), args.port)
    except OSError as error:
        raise BuildError(f"cannot listen on port {args.port}: {error.strerror}; try --port with another number") \
            from None
    # A shell that starts us in the background hands down SIGINT as ignored; Ctrl-C must stop the server anyway.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    with server:
        print(f"serving {args.out}/ at http://127.0.0.1:{server.server_address[1]}/ (Ctrl-C stops)", flush=True)
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            print("stopped", flush=True)
    return 0


def cmd_app(args: argparse.Namespace) -> int:
    """The lab served by Panel (one Python process per server, one session per browser tab)."""
    python = ensure_venv(["app"])
    command = [str(python), "-m", "panel", "serve", str(ROOT / "app" / "lab.py"), "--port", str(args.port),
               "--address", "127.0.0.1", *args.app_args]
    print("+ " + " ".join(command), flush=True)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        return subprocess.call(command, cwd=ROOT)
    except KeyboardInterrupt:
        return 0


def cmd_bench(args: argparse.Namespace) -> int:
    """The suite is tests/benchmarks.py, run with the venv's Python in the tests' environment."""
    env = test_environment()
    return subprocess.call([env["LAB_PYTHON"], ROOT / "tests" / "benchmarks.py", *args.bench_args], cwd=ROOT, env=env)


def cmd_screenshots(args: argparse.Namespace) -> int:
    """The documentation's screenshots, from the browser tests' (tests/readme_screenshots.py)."""
    python = ensure_venv(["app", "test"])
    return subprocess.call([str(python), ROOT / "tests" / "readme_screenshots.py", str(TEST_OUTPUT)], cwd=ROOT)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="build.py", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    test = sub.add_parser("test", help="prepare the environment and run the whole test suite")
    test.set_defaults(func=cmd_test)
    build = sub.add_parser("build", help="compile the lab into a static site (dist/)")
    serve = sub.add_parser("serve", help="build the static site and serve it on localhost")
    for command in (build, serve):
        command.add_argument("--out", default=str(ROOT / "dist"), help="output directory (default: dist/)")
        command.add_argument("--pyodide-dist", metavar="DIR_OR_TARBALL",
                             help="a full Pyodide 314.0.7 distribution: copy what the site needs (no network at all)")
        command.add_argument("--base-url", default="", metavar="URL",
                             help="the URL the site is served from, e.g. /schedlab/ on GitHub Pages "
                                  "(default: relative)")
        command.add_argument("--app", default=str(ROOT / "app" / "lab.py"),
                             help="the Panel app to compile (default: app/lab.py)")
        command.add_argument("--allow-incomplete", action="store_true",
                             help="with --pyodide-dist: build even if it lacks package files (the page reports them)")
        command.add_argument("--pyodide-standin", action="store_true",
                             help="with --pyodide-dist: it is a stand-in for Pyodide's CDN folder (an older runtime, "
                                  "for tests), accepted although its lock names another Python")
        command.add_argument("--example", action="append", metavar="NAME=QUERY",
                             help="a prepared embed, example-NAME.html: the embed page prerendered with the link's "
                                  "QUERY, stepping before Python starts (repeatable; default: the article's FCFS, "
                                  "SRTF, RR q=2 and the SFQ reference)")
    build.set_defaults(func=cmd_build)
    serve.add_argument("--port", type=int, default=8000)
    serve.set_defaults(func=cmd_serve)
    app = sub.add_parser("app", help="serve the lab as a Panel app on localhost (panel serve; Ctrl-C stops)")
    app.add_argument("--port", type=int, default=5006)
    app.set_defaults(func=cmd_app)
    bench = sub.add_parser("bench", help="benchmarks: the core (CPython, Pyodide), the app, the site "
                           "(options: --quick, --only PART, --out FILE; see tests/benchmarks.py)")
    bench.set_defaults(func=cmd_bench)
    screenshots = sub.add_parser("screenshots", help="the docs' screenshots from the browser tests' in test-output/")
    screenshots.set_defaults(func=cmd_screenshots)
    # Everything build.py does not know is passed on to pytest (e.g. `test -x -k srtf`) or the benchmarks.
    args, extra = parser.parse_known_args(argv)
    if extra and args.command not in ("test", "bench", "app"):
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    args.pytest_args = args.bench_args = args.app_args = extra
    try:
        return args.func(args)
    except BuildError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except subprocess.CalledProcessError as error:
        print(f"error: command failed with exit status {error.returncode}: "
              f"{' '.join(str(c) for c in error.cmd)}", file=sys.stderr)
        return error.returncode or 1
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
