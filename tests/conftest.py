"""Shared fixtures: scenario files for the command-line tests, where the test output goes, and the Chromium that
build.py found or installed."""
from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """Under `build.py test`, which prepares everything the suite needs, a skipped test is a failure: a skip
    there would hide a breakage (a missing browser, runtime or file) behind a green run."""
    report = (yield).get_result()
    if report.skipped and os.environ.get("LAB_SKIP_FAILS") == "1" and not hasattr(report, "wasxfail"):
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        report.outcome, report.longrepr = "failed", f"skipped under build.py test, where nothing may be: {reason}"


@pytest.fixture
def scenario_file(tmp_path):
    """Writes a scenario (a dict as JSON, or text as it is) into a file of its own; returns the path."""
    def write(data, name: str = "scenario.json") -> str:
        path = tmp_path / name
        path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
        return str(path)
    return write


@pytest.fixture(scope="session")
def test_output() -> Path:
    """Screenshots and other artefacts a person should look at after a run."""
    out = Path(os.environ.get("LAB_TEST_OUTPUT", ROOT / "test-output"))
    out.mkdir(parents=True, exist_ok=True)
    return out


SERVER_START = 180   # seconds: at a load of 20 on two cores the first page took over 60


CHROMIUM_ARGS = [
    # As root in a container, and with no network beyond the registries: no sandbox, no background traffic.
    "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage",
]


def chromium_executable() -> str | None:
    import shutil
    configured = os.environ.get("LAB_CHROMIUM")
    if configured:
        return configured
    return next(filter(None, (shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome"))), None)


@pytest.fixture(scope="session")
def browser():
    """One headless Debian Chromium for the session, driven by Playwright (its own download is unreachable)."""
    executable = chromium_executable()
    if not executable:
        pytest.skip("no Chromium: run the suite through `python3 build.py test`, which installs it")
    from playwright.sync_api import sync_playwright
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


def free_port() -> int:
    import socket
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class ServerFailed(Exception):
    """`panel serve` exited or did not answer; the message holds its log."""


@contextlib.contextmanager
def panel_server(log_path: Path, app: Path = ROOT / "app" / "lab.py", env: dict[str, str] | None = None):
    """`panel serve app/lab.py` on a free port, yielding the lab's URL and the server's process; its log goes
    to ``log_path``; ``env``: more of the server's environment (the toy mode's registration). Used by the app's
    browser tests (the ``lab_url`` fixture) and by the benchmarks."""
    import subprocess
    import sys
    import time
    import urllib.request
    port = free_port()
    with open(log_path, "w") as log:
        server = subprocess.Popen(
            [sys.executable, "-m", "panel", "serve", str(app), "--address", "127.0.0.1", "--port", str(port),
             "--allow-websocket-origin", f"127.0.0.1:{port}"],
            cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, env={**os.environ, "PYTHONUNBUFFERED": "1", **(env or {})})
        url = f"http://127.0.0.1:{port}/{app.stem}"
        deadline = time.monotonic() + SERVER_START   # its first page: imports and a run, on a loaded machine
        try:
            while True:
                if server.poll() is not None:
                    raise ServerFailed(f"panel serve exited with {server.returncode}:\n{log_path.read_text()}")
                try:
                    with urllib.request.urlopen(url, timeout=60) as response:   # a page takes 11 s at load 20
                        if response.status == 200:
                            break
                except OSError:
                    pass
                if time.monotonic() > deadline:
                    raise ServerFailed(f"panel serve did not answer within {SERVER_START} s:\n{log_path.read_text()}")
                time.sleep(0.3)
            yield url, server
        finally:
            server.terminate()
            try:
                server.wait(timeout=10)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()


@pytest.fixture(scope="session")
def lab_url(test_output):
    """`panel serve app/lab.py` for the whole session; its log is kept in the test output folder."""
    log_path = test_output / "panel-serve.log"
    try:
        server = panel_server(log_path)
        url, _ = server.__enter__()
    except ServerFailed as error:
        pytest.fail(str(error))
    try:
        yield url
    finally:
        server.__exit__(None, None, None)
    # Bokeh's server may log its own race when a browser closes a socket mid-handshake; what must
    # never appear is an error raised by a session's callbacks or by the app's code.
    text = log_path.read_text()
    assert "Error thrown from callback" not in text and f'File "{ROOT / "app"}' not in text, \
        f"the app raised an error in the server; see {log_path}"


@pytest.fixture
def lab(browser, lab_url):
    """A page of the served lab in a fresh browser context (``tests.test_app_browser.Lab``); no JavaScript error on
    it by the end of the test."""
    from tests.test_app_browser import Lab
    context = browser.new_context(viewport={"width": 1366, "height": 900}, locale="en-US")
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    yield Lab(page, lab_url)
    context.close()
    assert errors == [], f"JavaScript errors on the page: {errors}"


# --- the static site as a visitor gets it (tests/site_support.py): each build made once per session -------------

@pytest.fixture(scope="session")
def pyodide_cdn():
    """Pyodide's CDN, stood in for: the URL of a local server of ../shared/pyodide-standin/full (or of the real
    distribution LAB_PYODIDE_DIST names). Without either the tests that need it fail and say where it was expected."""
    from site_support import StandInMissing, StaticServer, pyodide_standin
    try:
        folder, _ = pyodide_standin()
    except StandInMissing as missing:
        pytest.fail(str(missing))
    with StaticServer(folder, cdn=True) as url:
        yield url


@pytest.fixture(scope="session")
def cdn_site(tmp_path_factory) -> Path:
    """`python3 build.py build`: the default site, Pyodide from its CDN, everything else from the site."""
    from site_support import build_site
    if not os.environ.get("LAB_PYODIDE_NPM"):
        pytest.fail("LAB_PYODIDE_NPM is unset: run the suite through `python3 build.py test`, which installs npm's "
                    "pyodide (its pyodide-lock.json is the CDN's, so the build needs no network)")
    out = tmp_path_factory.mktemp("cdn") / "dist"
    build_site(out)
    return out


@pytest.fixture(scope="session")
def cdn_site_url(cdn_site):
    """The default site served on 127.0.0.1 for the session."""
    from site_support import StaticServer
    with StaticServer(cdn_site) as url:
        yield url


@pytest.fixture
def visitor(browser, pyodide_cdn):
    """``visitor(**context_options) -> (context, outside)``: a fresh browser context (its own cache, as a first
    visit) with Pyodide's CDN stood in for and every other outside request aborted and listed in ``outside``."""
    from site_support import route_like_a_visitor
    contexts = []

    def new(**options):
        context = browser.new_context(**{"viewport": {"width": 1366, "height": 900}, "locale": "en-US", **options})
        contexts.append(context)
        return context, route_like_a_visitor(context, pyodide_cdn)

    yield new
    for context in contexts:
        context.close()
