"""The whole static site in Chromium, as a visitor gets it: built by `python3 build.py build`, served on 127.0.0.1,
Pyodide's CDN answered by the stand-in (tests/site_support.py; ../shared/pyodide-standin/full, or LAB_PYODIDE_DIST),
every other outside request aborted.

Each test is one visit (a fresh browser context: a cold cache) and checks as much as that visit allows, so the site
boots as few times as the checks need: a CPU link (with a click during the boot, stepping, every teaching view, then
a reload offline through the service worker), embed.html with an LLM link (the heights it posts), Japanese with a
bad link, and the self-contained build. Expected numbers come from `schedulers.simulate` in this process.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

playwright_api = pytest.importorskip("playwright.sync_api")
expect = playwright_api.expect

import site_support  # noqa: E402
from benchmarks import FIRST_STEP_JS, percentile, step_latencies  # noqa: E402
from pager_support import expect_frame, expected_frames  # noqa: E402
from schedulers import simulate  # noqa: E402
from schedulers.custom import TEMPLATES  # noqa: E402
from site_support import StandInMissing, StaticServer, boot_state, breakdown, wait_for_boot  # noqa: E402

pytestmark = pytest.mark.browser
TIMEOUT = 30_000  # ms: one step or view in Pyodide on a busy 2-core machine
# The article's tasks renamed: a run the site has no prerender of (those are the default scenario's, tests/
# test_site_runs.py), so before Python the page can only say that the link's run is on its way.
ARTICLE = {"algorithm": "srtf", "tasks": [
    {"name": "P", "arrival": 0, "burst": 7}, {"name": "Q", "arrival": 1, "burst": 4},
    {"name": "R", "arrival": 2, "burst": 1}, {"name": "S", "arrival": 4, "burst": 3}]}
SRTF_LINK = "mode=cpu&algorithm=srtf&tasks=P:0:7,Q:1:4,R:2:1,S:4:3"
LLM_LINK = "mode=llm&algorithm=sfq&tenants=Ada:8x3,Bob:2x3"
LLM = {"algorithm": "sfq", "tenants": [{"name": "Ada", "cost": 8, "count": 3}, {"name": "Bob", "cost": 2, "count": 3}]}


def counter(page):
    return page.locator(".counter").first


def tab(page, key: str) -> None:
    page.locator(f".teach-tab-{key} button").click()


def shot(page, test_output: Path, name: str) -> None:
    page.screenshot(path=str(test_output / f"site-{name}.png"), full_page=True)


def in_worker(page, python: str, later_packages: bool = False):
    """The value of ``python`` run in the lab's worker (its Pyodide); with ``later_packages``, once the packages
    that load after the lab is ready are in."""
    [worker] = page.workers
    return worker.evaluate("async ([code, wait]) => { if (wait) await self.laterPackages; "
                           "return self.pyodide.runPython(code) }", [python, later_packages])


def later_imports(site: Path) -> list[str]:
    """The modules of the packages the site loads once the lab is ready (lock.json's "later"), by Pyodide's lock."""
    later = json.loads((site / "lock.json").read_text())["pyodide"]["later"]
    lock = json.loads((Path(os.environ["LAB_PYODIDE_NPM"]) / "pyodide-lock.json").read_text())["packages"]
    return sorted({name for package in later for name in lock[package]["imports"]})


# Which of ``names`` Python has imported, and which module-level imports of them (in a `try`, an `if`: anything but
# a function body or `if TYPE_CHECKING`) the modules it imported from site-packages have: such an import, made
# before the package is there, would fail silently and change what that module does.
IMPORTED_AND_TRIED = """
import ast, json, re, sys
names = set(%r)
word = re.compile(r"\\b(" + "|".join(map(re.escape, sorted(names))) + r")\\b")

def module_level(nodes):
    for node in nodes:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            continue
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            yield from module_level(node.orelse)
            continue
        yield node
        yield from module_level(ast.iter_child_nodes(node))

tried = set()
for module in list(sys.modules.values()):
    path = getattr(module, "__file__", None) or ""
    if "site-packages" in path and path.endswith(".py"):
        source = open(path, encoding="utf-8").read()
        if word.search(source):
            for node in module_level(ast.parse(source).body):
                found = [a.name for a in node.names] if isinstance(node, ast.Import) else \\
                    [node.module] if isinstance(node, ast.ImportFrom) and node.module else []
                tried |= {f"{module.__name__}: {f}" for f in found if f.split(".")[0] in names}
json.dumps({"imported": sorted(names & {m.split(".")[0] for m in sys.modules}), "tried": sorted(tried)})
"""

# pandas once it is in: Panel's wraps of read_csv and read_json moved onto it (site_worker/pandas_later.py).
PANDAS_LATER = """
import io, json, pandas
import panel.io.pyodide as panel_pyodide
frame = pandas.read_csv(io.StringIO("task,burst\\nA,7\\nB,4\\n"))
json.dumps({"burst": int(frame.burst.sum()), "panel_module": panel_pyodide.pandas is pandas,
            "wrapped": [pandas.read_csv is panel_pyodide._read_csv, pandas.read_json is panel_pyodide._read_json],
            "original": pandas.read_csv.__wrapped__.__module__, "doc": pandas.read_csv.__doc__.split(chr(10))[1]})
"""


# --- the stand-in's own rules -----------------------------------------------------------------------------

def test_a_missing_standin_fails_and_says_where_it_was_expected(monkeypatch, tmp_path):
    monkeypatch.delenv("LAB_PYODIDE_DIST", raising=False)
    monkeypatch.setattr(site_support, "expected_standin", lambda: tmp_path / "shared" / "pyodide-standin")
    with pytest.raises(StandInMissing, match=str(tmp_path / "shared" / "pyodide-standin" / "full")):
        site_support.pyodide_standin()


def test_a_real_distribution_takes_precedence(monkeypatch, tmp_path):
    real = tmp_path / "pyodide"
    real.mkdir()
    (real / "pyodide-lock.json").write_text(json.dumps({"info": {"version": site_support.PYODIDE_VERSION}}))
    monkeypatch.setenv("LAB_PYODIDE_DIST", str(real))
    assert site_support.pyodide_standin() == (real, True)
    (real / "pyodide-lock.json").write_text(json.dumps({"info": {"version": "0.27.7"}}))
    with pytest.raises(StandInMissing, match=f"is Pyodide 0.27.7, not {site_support.PYODIDE_VERSION}"):
        site_support.pyodide_standin()


# --- visits ---------------------------------------------------------------------------------------------------

def test_a_cpu_link_boots_keeps_an_early_click_steps_and_every_view_works(visitor, cdn_site, test_output):
    result = simulate("cpu", ARTICLE)
    lock = json.loads((cdn_site / "lock.json").read_text())
    steps = len(result["steps"])
    context, outside = visitor(accept_downloads=True)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    server = StaticServer(cdn_site)
    url = server.__enter__()
    try:
        page.goto(f"{url}index.html?{SRTF_LINK}")
        # Before Python is ready: the prerendered lab, greyed behind the boot display; a click on Next is kept.
        next_button = page.locator(".step-next button").first
        next_button.wait_for(timeout=TIMEOUT)
        assert boot_state(page)["state"] == "starting"
        expect(page.locator("html")).to_have_class("lab-starting")
        # The prerender is the default FCFS run: it says the link's run is on its way instead of showing it.
        expect(counter(page)).to_have_text("This link's run is shown once Python has started.")
        box = next_button.bounding_box()
        page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)  # on the overlay, as a visitor
        expect(page.locator(".lab-boot-waiting")).to_contain_text("Not ready yet: “Next ▶” will be done")
        shot(page, test_output, "boot-click-kept")
        state = wait_for_boot(page)
        # The link reached Python (SRTF, not the prerender's FCFS) and the early click was done.
        expect(counter(page)).to_contain_text(f"step 2/{steps}", timeout=TIMEOUT)
        assert f"{result['averages']['waiting']:.2f}" == "2.75"  # the prerender's FCFS waits 5.75
        expect(page.locator("table.metrics tfoot")).to_contain_text("2.75", timeout=TIMEOUT)
        expect(page.locator("html")).not_to_have_class("lab-starting")
        expect(page.locator(".pn-loading")).to_have_count(0)   # the link was applied as Python drew the page
        stages = [t["stage"] for t in state["timeline"]]
        parts = [t.get("part") for t in state["timeline"] if t["stage"] == "Starting the app"]
        assert stages.index("Downloading Pyodide") < stages.index("Loading packages") < \
            stages.index("Installing wheels") < stages.index("Starting the app") < stages.index("ready")
        assert parts[0] == "panel" and parts[-2:] == ["build", "draw"] and "import" in parts
        print("\nboot (cold, CPU link):", ", ".join(f"{what} {ms} ms" for what, ms in breakdown(state["timeline"])))
        shot(page, test_output, "cpu-link-ready")
        # Python started without the packages that load once the lab is ready, and without pandas (imported by
        # nothing but Panel's module for Pyodide, which gets a stand-in); pandas works once they are in.
        later = later_imports(cdn_site)
        assert {"pandas", "PIL", "requests"} <= set(later)
        start = json.loads(in_worker(page, IMPORTED_AND_TRIED % later))
        assert start == {"imported": [], "tried": ["panel.io.pyodide: pandas"]}, start
        pandas = json.loads(in_worker(page, PANDAS_LATER, later_packages=True))
        assert pandas == {"burst": 11, "panel_module": True, "wrapped": [True, True],
                          "original": "pandas.io.parsers.readers", "doc": "Read a comma-separated values (csv) file "
                          "into DataFrame."}, pandas
        # Keys and buttons step.
        page.keyboard.press("ArrowRight")
        expect(counter(page)).to_contain_text(f"step 3/{steps}", timeout=TIMEOUT)
        page.keyboard.press("End")
        expect(counter(page)).to_contain_text(f"step {steps}/{steps}", timeout=TIMEOUT)
        page.keyboard.press("Home")
        expect(counter(page)).to_contain_text(f"step 1/{steps}", timeout=TIMEOUT)
        next_button.click()
        expect(counter(page)).to_contain_text(f"step 2/{steps}", timeout=TIMEOUT)
        page.locator(".step-prev button").first.click()
        expect(counter(page)).to_contain_text(f"step 1/{steps}", timeout=TIMEOUT)
        # Each teaching view opens (built when first opened) and works once.
        tab(page, "compare")
        expect(page.locator(".compare-right")).to_contain_text("Right:", timeout=TIMEOUT)
        expect(page.locator(".compare-table tbody tr", has_text="Average")).to_be_visible(timeout=TIMEOUT)
        shot(page, test_output, "view-compare")
        tab(page, "quiz")
        expect(page.locator(".quiz-next button")).to_be_visible(timeout=TIMEOUT)
        page.locator(".quiz-next button").click()
        choice = page.locator(".quiz-choice button").first
        choice.wait_for(timeout=TIMEOUT)
        choice.click()
        expect(page.locator(".quiz-score")).to_contain_text("of 1", timeout=TIMEOUT)
        shot(page, test_output, "view-quiz")
        tab(page, "export")
        with page.expect_download(timeout=TIMEOUT) as download:
            page.locator(".export-json").first.click()
        assert json.loads(Path(download.value.path()).read_text(encoding="utf-8")) == result
        shot(page, test_output, "view-export")
        tab(page, "custom")
        area = page.locator(".policy-code textarea")
        area.fill(TEMPLATES["cpu"])
        area.blur()
        page.locator(".policy-run button").click()
        expect(page.locator(".policy-ok")).to_contain_text("Your policy ran", timeout=TIMEOUT)
        shot(page, test_output, "view-custom")
        tab(page, "lab")
        expect(page.locator(".editor select").first).to_have_value("Your policy (choose)", timeout=TIMEOUT)
        # Offline after this first visit: the server stopped, the network cut, a reload still boots (and imports
        # from the bytecode this visit kept).
        page.wait_for_function("(window.labBoot.bytecode || {}).stored === true", timeout=TIMEOUT * 2)
        site_support.wait_until(page, """async () => {
            const names = await caches.keys()
            const cached = async (name, url) => names.includes(name) && !!(await (await caches.open(name)).match(url))
            const site = names.find(n => n.startsWith('schedlab-') && n.length === 'schedlab-'.length + 16)
            return !!site && await cached(site, 'lock.json') && await cached('schedlab-pyodide', '%spyodide.asm.wasm')
                && await cached('schedlab-pyodide', '%s%s')
        }""" % (site_support.PYODIDE_CDN, site_support.PYODIDE_CDN, lock["pyodide"]["files"]["pandas"]),
            timeout_ms=TIMEOUT * 4)
    finally:
        server.stop()
    context.set_offline(True)
    page.reload()
    state = wait_for_boot(page)
    print("boot (repeat visit, offline):", ", ".join(f"{what} {ms} ms" for what, ms in breakdown(state["timeline"])))
    assert page.evaluate("window.labBoot.bytecode.restored") is True
    assert in_worker(page, "import site_worker.bytecode as kept; len(kept.compiled)") == 0  # all came compiled
    # Python's own start took the standard library the first visit compiled (loadPyodide's stdLibURL).
    assert page.evaluate("window.labBoot.bytecode.stdlib") is True
    assert in_worker(page, "import sys; [sys.modules[m].__file__.rsplit('/', 1)[-1] for m in ('encodings', 'asyncio')]"
                     ) == ["__init__.pyc", "__init__.pyc"]
    expect(counter(page)).to_contain_text(f"/{steps}", timeout=TIMEOUT)
    assert in_worker(page, "import pandas; pandas.__name__", later_packages=True) == "pandas"  # kept offline too
    shot(page, test_output, "offline-reload")
    assert errors == [], errors
    assert outside == [], outside  # Pyodide's CDN (stood in for) and the site: nothing else


def test_embed_with_an_llm_link_never_posts_a_height_below_the_prerender(visitor, cdn_site_url, test_output):
    result = simulate("llm", LLM)
    context, _ = visitor(viewport={"width": 900, "height": 700})
    page = context.new_page()
    page.goto(cdn_site_url + "boot.css")  # any page of the site's origin hosts the frame
    page.set_content(f"""<!doctype html><body style="margin:0">
        <p>A blog post above the lab.</p>
        <iframe id="lab" src="{cdn_site_url}embed.html?{LLM_LINK}" style="width:100%;border:0;height:150px"></iframe>
        <p id="after">The text below it.</p>
        <script>
          window.heights = []
          addEventListener('message', (event) => {{
            if (event.data.type !== 'schedlab:height') return
            const state = document.getElementById('lab').contentDocument.body.dataset.labBoot
            heights.push({{height: event.data.height, state}})
          }})
        </script>
        <script src="{cdn_site_url}embed-host.js"></script></body>""")
    frame = page.frame_locator("#lab")
    expect(frame.locator(".lab-boot-bar")).to_be_visible(timeout=TIMEOUT)
    shot(page, test_output, "embed-booting")
    frame_page = page.frames[1]
    wait_for_boot(frame_page)
    # The link reached Python: its tenants, SFQ's own fairness figure.
    expect(frame.locator("body")).to_contain_text("Ada", timeout=TIMEOUT)
    expect(frame.locator(".counter")).to_contain_text(f"/{len(result['steps'])}", timeout=TIMEOUT)
    assert "mode=llm" in frame_page.url and frame.locator("#lab-footer").count() == 0
    heights = page.evaluate("window.heights")
    before = [h["height"] for h in heights if h["state"] == "starting"]
    prerendered = max(before)
    assert prerendered > 300 and before == sorted(before), heights  # the frame only grew while the lab started
    content_bottom = frame_page.evaluate("""() => Math.max(...[...document.querySelectorAll('[data-root-id]')]
        .flatMap(root => [...root.children]).map(el => el.getBoundingClientRect().bottom + window.scrollY))""")
    page.wait_for_function("Math.abs(document.getElementById('lab').offsetHeight - %d) <= 1" % round(content_bottom),
                           timeout=TIMEOUT)
    takeover = [h["height"] for h in heights[len(before):] if h["state"] != "ready"]
    assert all(h >= prerendered for h in takeover), heights
    shot(page, test_output, "embed-ready")


def test_japanese_with_a_bad_link_is_japanese_before_and_after_the_boot(visitor, cdn_site_url, test_output):
    context, _ = visitor()
    page = context.new_page()
    page.goto(cdn_site_url + "index.html?lang=ja&mode=cpu&algorithm=nonesuch")
    title = page.locator("h1.title").first
    title.wait_for(timeout=TIMEOUT)
    # Before Python: the Japanese prerender, footer and boot display.
    assert boot_state(page)["state"] == "starting"
    expect(title).to_have_text("スケジューリング実験室")
    expect(page.locator("#lab-footer")).to_contain_text("ブラウザの中で動きます", use_inner_text=True)
    expect(page.locator("#lab-boot")).to_contain_text("Pyodide をダウンロード")
    shot(page, test_output, "ja-booting")
    wait_for_boot(page)
    expect(page.locator(".notice")).to_contain_text("algorithm", timeout=TIMEOUT)
    expect(page.locator(".notice")).to_contain_text("リンクの値を無視しました", timeout=TIMEOUT)
    expect(title).to_have_text("スケジューリング実験室")
    footer = page.locator("#lab-footer")
    expect(footer).to_contain_text("ブラウザの中で動きます", use_inner_text=True)
    expect(footer).not_to_contain_text("runs entirely in your browser", use_inner_text=True)
    shot(page, test_output, "ja-ready")
    page.locator(".bk-btn", has_text="English").click()  # the fixed texts follow the app's language
    expect(footer).to_contain_text("runs entirely in your browser", use_inner_text=True, timeout=TIMEOUT)
    expect(footer).not_to_contain_text("ブラウザの中で動きます", use_inner_text=True)


@pytest.fixture(scope="session")
def standin_site(tmp_path_factory) -> Path:
    """The self-contained build (--pyodide-dist) from the stand-in, or from LAB_PYODIDE_DIST when it is set."""
    try:
        folder, real = site_support.pyodide_standin()
    except StandInMissing as missing:
        pytest.fail(str(missing))
    out = tmp_path_factory.mktemp("standin") / "dist"
    site_support.build_site(out, "--pyodide-dist", str(folder), *([] if real else ["--pyodide-standin"]))
    return out


def test_the_self_contained_build_boots_with_no_outside_request(browser, standin_site, test_output):
    assert json.loads((standin_site / "lock.json").read_text())["pyodide"]["index_url"] == "pyodide/"
    context = browser.new_context(viewport={"width": 1366, "height": 900})
    try:
        outside = site_support.route_like_a_visitor(context, None)
        page = context.new_page()
        with StaticServer(standin_site) as url:
            state = site_support.boot(page, f"{url}index.html?{SRTF_LINK}")
            expect(page.locator("table.metrics tfoot")).to_contain_text("2.75", timeout=TIMEOUT)
            print("\nboot (self-contained):", ", ".join(f"{w} {ms} ms" for w, ms in breakdown(state["timeline"])))
            shot(page, test_output, "self-contained")
        assert outside == []
    finally:
        context.close()


def test_the_build_refuses_a_standin_unless_told(tmp_path):
    """A distribution whose lock names another Python is refused, and the message says how to accept a stand-in."""
    standin = tmp_path / "standin"
    standin.mkdir()
    (standin / "pyodide-lock.json").write_text(json.dumps({"info": {"python": "3.12.7", "version": "0.27.7"},
                                                            "packages": {}}))
    done = subprocess.run([sys.executable, str(site_support.ROOT / "build.py"), "build", "--out", str(tmp_path / "d"),
                           "--pyodide-dist", str(standin)], capture_output=True, text=True, timeout=600)
    assert done.returncode == 2
    assert (f"runs Python 3.12.7; the lab is built for Pyodide {site_support.PYODIDE_VERSION} (Python 3.14)"
            in done.stderr)
    assert "--pyodide-standin" in done.stderr


# --- stepping in the page, before Python and without it (issue 11) ------------------------------------------------

DEFAULT_QUERY = "mode=cpu&algorithm=fcfs&tasks=A:0:7,B:1:4,C:2:1,D:4:3"   # what index.html is prerendered with
STEP_BUDGET_MS = 100        # the target is benchmarks.APP_TARGET_P95_MS (34 ms); loose for a loaded machine
FIRST_STEP_BUDGET_MS = 10_000   # the target is 2 s (benchmarks.SITE_FIRST_STEP_TARGET_MS); loose likewise
# <html>: the prerender steps
STEPPING = re.compile(r"\blab-starting\b.*\blab-stepping\b|\blab-stepping\b.*\blab-starting\b")


# In the page: the tag of the element that really has the focus (through the shadow roots Panel draws in).
FOCUSED_JS = """() => { let el = document.activeElement
  while (el && el.shadowRoot && el.shadowRoot.activeElement) el = el.shadowRoot.activeElement
  return el ? el.tagName : null }"""


def first_step(page) -> int:
    """ms from navigation to the first answered step (the context runs benchmarks.FIRST_STEP_JS)."""
    page.wait_for_function("window.labFirstStep !== null", timeout=TIMEOUT * 2)
    return round(page.evaluate("window.labFirstStep"))


def test_index_steps_from_first_paint_and_when_python_never_starts(browser, cdn_site_url, test_output):
    """Every outside request aborted, so Pyodide never arrives: the prerendered run still steps, first to last, by
    keys and buttons, each step exactly Python's frame, within the step budget; the address keeps the step; what
    needs Python says it could not start."""
    result, built = expected_frames(DEFAULT_QUERY)
    total = len(result["steps"])
    context = browser.new_context(viewport={"width": 1366, "height": 900}, locale="en-US")
    context.add_init_script(FIRST_STEP_JS)
    outside = site_support.route_like_a_visitor(context, None)
    try:
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(cdn_site_url + "index.html")
        took = first_step(page)
        print(f"\nfirst answered step, index.html, Python never starting: {took} ms (target 2000)")
        assert took < FIRST_STEP_BUDGET_MS
        expect_frame(page, result, built, 1)
        expect(page.locator("html")).to_have_class(STEPPING)
        page.locator("body").click(position={"x": 5, "y": 5})
        for k in range(2, total):
            page.keyboard.press("ArrowRight")
            expect_frame(page, result, built, k)
        for button, k in (("first", 0), ("next", 1), ("last", total - 1), ("prev", total - 2)):
            page.locator(f".step-{button} button").click()
            expect_frame(page, result, built, k)
        assert page.evaluate("location.search") == f"?step={total - 1}"   # the pager keeps it (replaceState)
        # Python could not start: the boot display says so in its corner, and stepping goes on.
        page.wait_for_function("document.body.dataset.labBoot === 'error'", timeout=TIMEOUT * 4)
        expect(page.locator(".lab-boot-stepping")).to_contain_text("You can step through this run")
        page.keyboard.press("Home")
        expect_frame(page, result, built, 0)
        page.locator(".field-burst input").first.click()   # editing needs Python: not entered, and said so
        expect(page.locator(".lab-boot-waiting")).to_contain_text("That needs Python, which could not start")
        assert page.evaluate(FOCUSED_JS) != "INPUT"
        shot(page, test_output, "stepping-without-python")
        keys = step_latencies(page, lambda: page.keyboard.press("ArrowRight"), total - 1)
        page.keyboard.press("Home")
        clicks = step_latencies(page, lambda: page.locator(".step-next button").click(), total - 1)
        for name, times in (("key", keys), ("click", clicks)):
            print(f"{name}, Python never started: p50 {percentile(times, 0.5):.1f} ms, p95 "
                  f"{percentile(times, 0.95):.1f} ms (target 34 ms, budget {STEP_BUDGET_MS} ms)")
            assert percentile(times, 0.95) <= STEP_BUDGET_MS, times
        assert all(e.startswith("Could not download the Pyodide runtime") for e in errors), errors   # the worker's
        assert outside and all("cdn.jsdelivr.net/pyodide" in url for url in outside), outside
    finally:
        context.close()


def test_steps_taken_during_the_boot_are_kept_when_python_takes_over(visitor, cdn_site_url, test_output):
    """With Pyodide (the stand-in): stepping works while Python starts, Compare (prerendered) opens at the step
    reached, and when Python takes over it goes on from that step, in Compare again (its own link says so); then
    steps answer within the budget in Pyodide too."""
    result, built = expected_frames(DEFAULT_QUERY)
    total = len(result["steps"])
    context, outside = visitor()
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(cdn_site_url + "index.html")
    expect(page.locator("html")).to_have_class(STEPPING, timeout=TIMEOUT)
    page.locator("body").click(position={"x": 5, "y": 5})
    for k in range(1, 5):
        page.keyboard.press("ArrowRight")
        expect_frame(page, result, built, k)
    assert boot_state(page)["state"] == "starting"
    page.locator(".teach-tab-compare button").click()   # Compare is prerendered: shown at once, at the same step
    expect(page.locator(".compare-left .counter")).to_contain_text(f"step 5/{total}", timeout=TIMEOUT)
    shot(page, test_output, "stepping-while-booting")
    wait_for_boot(page)   # and Python, drawn from the address, opens it again
    expect(page.locator(".compare-left .counter")).to_contain_text(f"step 5/{total}", timeout=TIMEOUT)
    expect(page).to_have_url(re.compile(rf"\?{re.escape(DEFAULT_QUERY)}&step=5&lang=en$"), timeout=TIMEOUT)
    tab(page, "lab")
    expect_frame(page, result, built, 4)
    page.locator("body").click(position={"x": 5, "y": 5})
    page.keyboard.press("Home")
    expect_frame(page, result, built, 0)
    keys = step_latencies(page, lambda: page.keyboard.press("ArrowRight"), total - 1)
    expect_frame(page, result, built, total - 1)
    print(f"\nkey, in Pyodide (stand-in): p50 {percentile(keys, 0.5):.1f} ms, p95 {percentile(keys, 0.95):.1f} ms "
          f"(target 34 ms, budget {STEP_BUDGET_MS} ms)")
    assert percentile(keys, 0.95) <= STEP_BUDGET_MS, keys
    expect(page).to_have_url(re.compile(rf"&step={total}&"), timeout=TIMEOUT)   # Python heard the last step
    assert errors == [] and outside == [], (errors, outside)


def test_prepared_embeds_step_at_once_and_start_python_only_when_the_reader_edits(visitor, cdn_site, cdn_site_url,
                                                                                   test_output):
    """Two prepared embeds on one page: each shows and steps its own run with no Python and no request for it; an
    edit in one starts that one's Python, which takes the example's run and the step reached; the other stays
    asleep."""
    rr = "mode=cpu&algorithm=rr&quantum=2&tasks=A:0:7,B:1:4,C:2:1,D:4:3"
    sfq = "mode=llm&algorithm=sfq&tenants=A:8x6,B:2x6,C:2x4:join=6"
    assert {"example-rr-q2.html", "example-sfq.html", "example-fcfs.html", "example-srtf.html"} <= \
        {p.name for p in cdn_site.glob("example-*.html")}
    assert site_support.prerendered_frames(cdn_site / "example-sfq.html").keys() == {"en", "ja"}
    context, outside = visitor(viewport={"width": 1000, "height": 900})
    context.add_init_script(FIRST_STEP_JS)
    page = context.new_page()
    python: list[str] = []
    page.on("request", lambda request: python.append(request.url) if request.url.endswith("lab.js")
            or "pyodide" in request.url else None)
    page.goto(cdn_site_url + "boot.css")   # any page of the site's origin hosts the frames
    page.set_content(f"""<!doctype html><body style="margin:0"><p>A post with two prepared examples.</p>
        <iframe id="rr" src="{cdn_site_url}example-rr-q2.html" style="width:100%;border:0;height:900px"></iframe>
        <iframe id="sfq" src="{cdn_site_url}example-sfq.html" style="width:100%;border:0;height:900px"></iframe>
        </body>""")
    frames = {"rr": page.frame_locator("#rr"), "sfq": page.frame_locator("#sfq")}
    for key in frames:
        expect(frames[key].locator(".counter")).to_contain_text("step ", timeout=TIMEOUT)
    pages = {key: next(f for f in page.frames if f"example-{name}.html" in f.url)
             for key, name in (("rr", "rr-q2"), ("sfq", "sfq"))}
    took = {key: first_step(frame) for key, frame in pages.items()}
    print(f"\nfirst answered step, prepared embeds (two on the page): {took} ms (target 2000)")
    assert max(took.values()) < FIRST_STEP_BUDGET_MS
    for key, query in (("rr", rr), ("sfq", sfq)):
        result, built = expected_frames(query)
        expect_frame(pages[key], result, built, 1)
        frames[key].locator(".step-next button").click()
        expect_frame(pages[key], result, built, 2)
        assert pages[key].evaluate("document.body.dataset.labBoot") == "dormant"
        expect(frames[key].locator("#lab-boot")).to_be_hidden()   # asleep: no boot display over its run
    shot(page, test_output, "prepared-embeds")
    assert python == [], python   # neither embed has asked for Python
    # An edit in the RR embed starts its Python, which takes the example's run at the step reached.
    frames["rr"].locator(".field-burst input").first.click()
    expect(frames["rr"].locator(".lab-boot-waiting")).to_contain_text("editing waits for Python")
    wait_for_boot(pages["rr"])
    expect(frames["rr"].locator(".param-quantum input")).to_have_value("2", timeout=TIMEOUT)
    expect(frames["rr"].locator(".counter")).to_contain_text("step 3/", timeout=TIMEOUT)
    assert "algorithm=rr" in pages["rr"].evaluate("location.search")
    assert pages["sfq"].evaluate("document.body.dataset.labBoot") == "dormant"
    assert sum(url.endswith("lab.js") for url in python) == 1, python
    assert outside == [], outside
