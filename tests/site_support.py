"""The built static site in Chromium as a visitor gets it, with Pyodide's CDN stood in for (tests and benchmarks).

Pyodide 314.0.7's compiled packages are on no registry this machine reaches; ``../shared/pyodide-standin/full``
(its README says what it is) is laid out like ``https://cdn.jsdelivr.net/pyodide/v314.0.7/full/``. Here:

- ``pyodide_standin()``: that folder, or ``LAB_PYODIDE_DIST`` when it names a real 314.0.7 distribution (which then
  takes precedence); absent, ``StandInMissing`` says where it was expected (the tests fail with that message).
- ``StaticServer``: a directory on 127.0.0.1 with Pyodide's MIME types; ``cdn=True`` adds what the CDN sends
  (``Access-Control-Allow-Origin: *``, a year of ``Cache-Control``), for the stand-in.
- ``route_like_a_visitor(context, cdn)``: every request of a Playwright context to Pyodide's CDN is redirected to
  the stand-in's server (a redirect, not a body relayed through Playwright: relaying the 25 MB costs seconds that no
  visitor pays), every other request off 127.0.0.1 is aborted and recorded.
- ``boot(page, url)``: opens the page and waits for the boot to end; ``BootFailed`` carries the boot display's text.
- ``prerendered_frames(page_file)``: the bytes of the pager's frames a built page carries, per language.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "static"))
from panel_adapter import PYODIDE_CDN, PYODIDE_VERSION  # noqa: E402

sys.path.insert(0, str(ROOT))
import build  # noqa: E402

BOOT_TIMEOUT_MS = 180_000  # a cold boot on a loaded 2-core machine, with room
LOCAL = re.compile(r"^https?://(127\.0\.0\.1|localhost)(:\d+)?/")


class StandInMissing(Exception):
    """Where the stand-in was expected, and how to get one."""


def expected_standin() -> Path:
    """``../shared/pyodide-standin`` beside the checkout; in a git worktree, beside the main checkout; in a clone of a
    checkout on this machine (``git clone /work/lab /tmp/x``), beside that one: the first of them that exists."""
    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True).stdout.strip()

    common, origin = git("rev-parse", "--path-format=absolute", "--git-common-dir"), git("remote", "get-url", "origin")
    checkouts = [ROOT, Path(common).parent if common else ROOT]
    if origin and Path(origin).is_dir():
        checkouts.append(Path(origin).resolve())
    places = [checkout.parent / "shared" / "pyodide-standin" for checkout in checkouts]
    return next((place for place in places if place.is_dir()), places[0])


def pyodide_standin() -> tuple[Path, bool]:
    """The folder to serve as Pyodide's CDN, and whether it is the real 314.0.7 (``LAB_PYODIDE_DIST``)."""
    real = os.environ.get("LAB_PYODIDE_DIST")
    if real:
        lock = Path(real) / "pyodide-lock.json"
        if not lock.is_file():
            raise StandInMissing(f"LAB_PYODIDE_DIST={real} is not an unpacked Pyodide distribution (no {lock})")
        version = json.loads(lock.read_text())["info"].get("version")
        if version != PYODIDE_VERSION:
            raise StandInMissing(f"LAB_PYODIDE_DIST={real} is Pyodide {version}, not {PYODIDE_VERSION}")
        return Path(real), True
    full = expected_standin() / "full"
    if not (full / "pyodide-lock.json").is_file():
        raise StandInMissing(f"no Pyodide stand-in at {full} (expected ../shared/pyodide-standin/full beside the "
                             "checkout: its README and rebuild.sh say how it is made), and LAB_PYODIDE_DIST names "
                             f"no real Pyodide {PYODIDE_VERSION}: the static site cannot be run in Chromium")
    return full, False


class StaticServer:
    """``with StaticServer(folder) as url:`` serves it on a free port; ``stop()`` stops it early (offline tests)."""

    def __init__(self, folder: Path, cdn: bool = False) -> None:
        self.httpd = build.serve_directory(folder, 0, cors=cdn, cache_seconds=365 * 24 * 3600 if cdn else None)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self) -> str:
        self.thread.start()
        return self.url

    def stop(self) -> None:
        if self.thread.is_alive():
            self.httpd.shutdown()
            self.thread.join()
        self.httpd.server_close()

    def __exit__(self, *exc) -> None:
        self.stop()


def route_like_a_visitor(context, cdn_url: str | None) -> list[str]:
    """Pyodide's CDN answered by ``cdn_url`` (redirects), nothing else beyond localhost; returns the list of
    outside requests that were aborted (a self-contained site must leave it empty)."""
    outside: list[str] = []

    def handle(route) -> None:
        url = route.request.url
        if cdn_url and url.startswith(PYODIDE_CDN):
            route.fulfill(status=307, headers={"Location": cdn_url + url[len(PYODIDE_CDN):],
                                               "Access-Control-Allow-Origin": "*"})
        elif LOCAL.match(url):
            route.fallback()
        else:
            outside.append(url)
            route.abort("internetdisconnected")

    context.route("**/*", handle)
    return outside


class BootFailed(AssertionError):
    pass


BOOT_STATE_JS = """() => ({
    state: document.body.dataset.labBoot,
    lang: document.documentElement.lang,
    stages: [...document.querySelectorAll('#lab-boot li')].map(li => [li.dataset.stage, li.className]),
    labels: [...document.querySelectorAll('#lab-boot li')].map(li => li.textContent),
    text: (document.querySelector('#lab-boot') || {}).innerText || '',
    timeline: (window.labBoot || {}).timeline || []})"""


def boot_state(page) -> dict:
    return page.evaluate(BOOT_STATE_JS)


def wait_for_boot(page, timeout_ms: int = BOOT_TIMEOUT_MS) -> dict:
    """Until the boot is over (ready or error); raises BootFailed with the boot display's text on an error."""
    page.wait_for_function("['ready', 'error'].includes(document.body && document.body.dataset.labBoot)",
                           timeout=timeout_ms)
    state = boot_state(page)
    if state["state"] != "ready":
        raise BootFailed(f"the site did not boot: {state['text']}")
    return state


def boot(page, url: str, timeout_ms: int = BOOT_TIMEOUT_MS) -> dict:
    page.goto(url)
    return wait_for_boot(page, timeout_ms)


def wait_until(page, async_check: str, timeout_ms: int) -> None:
    """Until ``async_check`` (the source of an async JS function, e.g. one that reads Cache Storage) is true in the
    page; Playwright's wait_for_function takes a Promise for true at once, so a poller in the page sets a flag."""
    flag = f"__labWait{abs(hash(async_check))}"
    page.evaluate(f"""() => {{
        const check = {async_check}
        window.{flag} = false
        const poll = async () => {{ if (await check()) window.{flag} = true; else setTimeout(poll, 250) }}
        poll()
    }}""")
    page.wait_for_function(f"window.{flag} === true", timeout=timeout_ms)


def breakdown(timeline: list[dict], spans: bool = False) -> list[tuple]:
    """The boot's timeline as (what, milliseconds it took), in order, or with ``spans`` as (what, start, end) in ms
    since navigation: each stage and each part of starting the app lasts until the next one begins; 'drawing the
    page' ends when the page is ready."""
    steps = [t for t in timeline if t["stage"] not in ("waiting",)]
    rows = []
    for here, after in zip(steps, steps[1:]):
        what = here["stage"] if not here.get("part") else \
            {"panel": "importing Panel and Bokeh", "import": f"importing {here.get('module')}",
             "build": "building the page", "draw": "writing the document (Python)"}[here["part"]]
        if here["stage"] == "render":
            what = "drawing the page (BokehJS, main thread)"
        elif here["stage"] == "worker":   # the page started the worker (once its prerender steps, or on a click)
            what = "the worker, until its first word"
        rows.append((what, here["at"], after["at"]) if spans else (what, after["at"] - here["at"]))
    return rows


def build_site(out: Path, *options: str) -> dict:
    """``python3 build.py build`` as a user runs it (the default app); returns its build-info.json."""
    done = subprocess.run([sys.executable, str(ROOT / "build.py"), "build", "--out", str(out), *options],
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "the site's own assets" in done.stdout
    return json.loads((out / "build-info.json").read_text())


PRERENDERED = re.compile(r'<script type="application/json" id="([^"]+)">\s*(\{.*?\})\s*</script>', re.S)


def prerendered_frames(page_file: Path) -> dict[str, int]:
    """The bytes of the pager's window (app/frames.py) in each prerendered document of a built page: its own (the
    page's default language, "en") and those beside it (``lab-prerender-ja``), as the page's JSON holds them."""
    import html
    found = {}
    for json_id, text in PRERENDERED.findall(page_file.read_text(encoding="utf-8")):
        document = html.unescape(text)
        start = document.find('"window":{"type":"map"')
        if start < 0:
            continue
        value, _ = json.JSONDecoder().raw_decode(document, start + len('"window":'))
        found[json_id.removeprefix("lab-prerender-") if json_id.startswith("lab-prerender-") else "en"] = \
            len(json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode())
    return found
