"""The prerendered runs in Chromium (issue 19): every algorithm of every mode on its default scenario steps before
Python, the page's menus answer from first paint, a short link opens from its prerender, an edit made meanwhile
waits for Python and is then applied, and a run once fetched is there offline.

The built site (`python3 build.py build`, tests/conftest.py's `cdn_site`) is served on 127.0.0.1; most visits abort
every outside request, so Pyodide never starts and everything shown is the page's own. Each step on screen is
checked slot by slot against the frames Python renders in this process (`pager_support.expect_frame`), and every
number the article's walkthrough asks for against `schedulers.simulate`.
"""
from __future__ import annotations

import json
import re

import pytest

playwright_api = pytest.importorskip("playwright.sync_api")
expect = playwright_api.expect

import site_support  # noqa: E402
from benchmarks import MODE_BUTTONS  # noqa: E402
from pager_support import expect_frame, expected_frames  # noqa: E402
from schedulers import algorithms  # noqa: E402
from schedulers.modes import MODES  # noqa: E402
from site_support import StaticServer, wait_for_boot  # noqa: E402

from app.model import Lab  # noqa: E402

pytestmark = pytest.mark.browser
TIMEOUT = 30_000   # ms: a run's file fetched and drawn on a loaded 2-core machine
STEPPING = re.compile(r"\blab-stepping\b")


def shot(page, test_output, name: str) -> None:
    page.screenshot(path=str(test_output / f"site-runs-{name}.png"), full_page=True)


def default_query(mode: str, algorithm: str) -> str:
    return f"mode={mode}&algorithm={algorithm}"


def shown_run(page) -> str:
    return page.evaluate("window.labRuns.run + '.' + window.labRuns.view + '.' + window.labRuns.lang")


def choose(page, mode: str, algorithm: str) -> None:
    """Pick ``algorithm`` in the lab's algorithm menu, as a reader does, and wait for its run on screen."""
    page.locator(".editor select").first.select_option(label=algorithms(mode)[algorithm].label["en"])
    page.wait_for_function("([run]) => window.labRuns.run === run", arg=[f"{mode}-{algorithm}"], timeout=TIMEOUT)


def switch_mode(page, mode: str) -> None:
    page.get_by_role("button", name=MODE_BUTTONS[mode], exact=True).click()
    page.wait_for_function("([mode]) => window.labRuns.run.startsWith(mode + '-')", arg=[mode], timeout=TIMEOUT)


def strip(page, where: str = "[data-slot=strip]") -> list[str]:
    """The dispatch strip's cells on screen, each the tenant's name, in dispatch order."""
    return [text.split()[0] for text in page.locator(f"{where} ol.strip > li").all_inner_texts()]


def without_python(browser):
    """A visit with every outside request aborted: Pyodide never comes, the page is all there is."""
    context = browser.new_context(viewport={"width": 1366, "height": 900}, locale="en-US")
    outside = site_support.route_like_a_visitor(context, None)
    return context, outside


def test_the_articles_walkthrough_with_pyodide_blocked(browser, cdn_site_url, test_output):
    """§6 as written, with every request to Pyodide's CDN aborted: CPU FCFS, step to C waiting behind A, switch to
    SRTF and see C run at t=2; LLM mode (A's cost 8, B's 2: the default), per-tenant round robin, count A's and B's
    dispatches over the common backlog, switch to SFQ, count again. Every number from the core."""
    context, outside = without_python(browser)
    try:
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(cdn_site_url + "index.html")
        expect(page.locator("html")).to_have_class(STEPPING, timeout=TIMEOUT)
        # FCFS: C arrives at t=2 and waits behind A (and B) until A's 7 units are done.
        fcfs, fcfs_frames = expected_frames(default_query("cpu", "fcfs"))
        waits = next(k for k, step in enumerate(fcfs["steps"]) if "C" in step["ready"])
        assert fcfs["steps"][waits]["running"] == "A"
        page.locator("body").click(position={"x": 5, "y": 5})
        for k in range(1, waits + 1):
            page.keyboard.press("ArrowRight")
            expect_frame(page, fcfs, fcfs_frames, k)
        c_fcfs = next(task for task in fcfs["tasks"] if task["name"] == "C")
        expect(page.locator("table.metrics tbody tr", has_text="C")).to_contain_text(str(c_fcfs["waiting"]))
        shot(page, test_output, "walkthrough-fcfs-c-waits")
        # SRTF, at the same step: C (1 unit) runs in the slice t=2 -> 3.
        choose(page, "cpu", "srtf")
        srtf, srtf_frames = expected_frames(default_query("cpu", "srtf"))
        runs_c = next(k for k, step in enumerate(srtf["steps"]) if step["running"] == "C")
        assert (runs_c, srtf["steps"][runs_c]["time"]) == (waits, 3)   # the slice that ends at t=3 began at t=2
        expect_frame(page, srtf, srtf_frames, waits)
        expect(page.locator("[data-slot=counter] .counter")).to_contain_text("t=2 → 3")
        c_srtf = next(task for task in srtf["tasks"] if task["name"] == "C")
        expect(page.locator("table.metrics tbody tr", has_text="C")).to_contain_text(str(c_srtf["waiting"]))
        assert c_srtf["waiting"] < c_fcfs["waiting"]
        shot(page, test_output, "walkthrough-srtf-c-runs")
        # LLM mode, the lab's default tenants (A's cost 8, B's 2): per-tenant round robin, then SFQ.
        switch_mode(page, "llm")
        llm = Lab()
        llm.restore("mode=llm")
        assert {t["name"]: t.get("cost") for t in llm.scenario()["tenants"]}.items() >= {"A": 8, "B": 2}.items()
        counts = {}
        for algorithm in ("rr", "sfq"):
            choose(page, "llm", algorithm)
            result, built = expected_frames(default_query("llm", algorithm))
            page.locator(".step-last button").click()
            last = len(result["steps"]) - 1
            expect_frame(page, result, built, last)
            order = [step["tenant"] for step in result["steps"] if step.get("kind") == "dispatch"]
            assert strip(page) == order   # the strip on screen is the core's dispatch order
            interval = result["fairness"]["interval"]
            within = [step["tenant"] for step in result["steps"]
                      if step.get("kind") == "dispatch" and interval["start"] <= step["time"] <= interval["end"]]
            assert len(within) == interval["dispatches"]
            fairness = page.locator("[data-slot=fairness]")
            expect(fairness).to_contain_text(f"t={interval['start']}")
            expect(fairness).to_contain_text(str(interval["dispatches"]))
            counts[algorithm] = {name: within.count(name) for name in ("A", "B")}
            increments = result["fairness"]["increments"]
            for name in ("A", "B"):
                expect(fairness.locator(".bar-row", has_text=name)).to_contain_text(str(increments[name]))
            shot(page, test_output, f"walkthrough-llm-{algorithm}")
        # What the article says one sees: round robin evens out the counts, SFQ the normalised cost.
        rr, sfq = (expected_frames(default_query("llm", a))[0] for a in ("rr", "sfq"))
        assert abs(counts["rr"]["A"] - counts["rr"]["B"]) <= 1, counts
        assert sfq["fairness"]["pairwise_bound"]["holds"] and not rr["fairness"]["pairwise_bound"]["holds"]
        print(f"\nwalkthrough, dispatches of A and B over the common backlog: {counts}")
        assert errors == [] or all(e.startswith("Could not download the Pyodide runtime") for e in errors), errors
        assert outside and all("cdn.jsdelivr.net/pyodide" in url for url in outside), outside
    finally:
        context.close()


def test_every_run_of_every_mode_steps_before_python(browser, cdn_site_url, test_output):
    """Each algorithm of each mode picked in the page's own menus, each mode by its button: the run on screen is
    Python's frame for it, at the step reached (kept, as the lab keeps it); then Compare and the language."""
    context, _ = without_python(browser)
    try:
        page = context.new_page()
        page.goto(cdn_site_url + "index.html")
        expect(page.locator("html")).to_have_class(STEPPING, timeout=TIMEOUT)
        for mode in MODES:
            if mode != "cpu":
                switch_mode(page, mode)
            for algorithm in algorithms(mode):
                if shown_run(page) != f"{mode}-{algorithm}.lab.en":
                    choose(page, mode, algorithm)
                result, built = expected_frames(default_query(mode, algorithm))
                page.locator(".step-next button").click()
                expect_frame(page, result, built, min(1, len(result["steps"]) - 1))
                page.locator(".step-first button").click()
                expect_frame(page, result, built, 0)
            shot(page, test_output, f"every-{mode}")
        # Back in CPU mode, the algorithm picked there last (EEVDF) is there again.
        switch_mode(page, "cpu")
        assert shown_run(page) == "cpu-eevdf.lab.en"
        # Compare, the lab's default pair for FCFS (SRTF), both sides stepping from their prerenders.
        choose(page, "cpu", "fcfs")
        page.locator(".teach-tab-compare button").click()
        page.wait_for_function("window.labRuns.view === 'compare'", timeout=TIMEOUT)
        result, built = expected_frames(default_query("cpu", "fcfs"), compare="srtf")
        page.locator(".step-next button").click()
        page.locator(".step-next button").click()
        expect_frame(page, result, built, 2, slots=("compare.left", "compare.right", "compare.diff"),
                     where=".compare-left")
        shot(page, test_output, "compare")
        # Japanese: the same run and view, at the same step.
        page.get_by_role("button", name="日本語", exact=True).click()
        page.wait_for_function("window.labRuns.lang === 'ja'", timeout=TIMEOUT)
        expect(page.locator(".compare-left .counter")).to_contain_text("ステップ 3/")
        expect(page.locator("html")).to_have_attribute("lang", "ja")
        shot(page, test_output, "compare-ja")
        # Back in English and in the step-through view: its slots are filled again, at the step reached.
        page.get_by_role("button", name="English", exact=True).click()
        page.wait_for_function("window.labRuns.lang === 'en'", timeout=TIMEOUT)
        page.locator(".teach-tab-lab button").click()
        page.wait_for_function("window.labRuns.view === 'lab'", timeout=TIMEOUT)
        result, built = expected_frames(default_query("cpu", "fcfs"))
        expect_frame(page, result, built, 2)
    finally:
        context.close()


# The page's root view, the Gantt chart's view and the left ends of its bars (each glyph's, as Bokeh holds them).
CHART_JS = """() => {
  const stack = [...Bokeh.index.roots]
  while (stack.length) {
    const view = stack.pop()
    if (view.model.type === 'Figure') {
      return {root: Bokeh.index.roots[0] === window.__root, chart: view === window.__chart, history: history.length,
              lefts: view.model.renderers.map((r) => r.data_source.data.left).filter(Boolean).map((l) => [...l])}
    }
    stack.push(...(view.child_views || []))
  }
}"""
KEEP_JS = CHART_JS.replace("return {", "window.__root = Bokeh.index.roots[0]; window.__chart = view; return {")


def test_a_pick_changes_the_page_in_place(browser, cdn_site_url):
    """A pick changes the document on screen into the run's (static/runs.js's `change`): the views of what the two
    runs share stay (the page's root, the chart), the chart holds the new run's bars, and the browser's history
    gets no entry (only the address changes); a pick that needs other models (RR's quantum) adds them."""
    from app.modes.cpu.gantt import Gantt
    from app.text import field_help
    context, _ = without_python(browser)
    try:
        page = context.new_page()
        page.goto(cdn_site_url + "index.html")
        expect(page.locator("html")).to_have_class(STEPPING, timeout=TIMEOUT)
        before = page.evaluate(KEEP_JS)
        for algorithm in ("srtf", "rr", "mlfq"):
            choose(page, "cpu", algorithm)
            result, built = expected_frames(default_query("cpu", algorithm))
            expect_frame(page, result, built, 0)
            shown = page.evaluate(CHART_JS)
            want = [list(r.data_source.data["left"]) for r in Gantt(result, "en", False).plot.renderers
                    if "left" in r.data_source.data]
            assert (shown["root"], shown["chart"], shown["history"]) == (True, True, before["history"])
            assert shown["lefts"] == want and shown["lefts"] != before["lefts"]
            if algorithm == "rr":   # RR's own field, added to the page
                expect(page.locator(".param-quantum input")).to_have_value("2")
        # MLFQ's boost field came with its help, a tooltip runs.js leaves undrawn while hidden: the pointer on its
        # sign shows it.
        expect(page.locator(".bk-tooltip-content")).to_have_count(0)
        page.locator(".param-boost .bk-description").hover()
        expect(page.locator(".bk-tooltip-content")).to_have_text(field_help("en", "boost"), timeout=TIMEOUT)
    finally:
        context.close()


# Each write of a <style>'s text on the page (each makes the browser read that sheet again): whether it changed it.
STYLE_WRITES_JS = """() => {
  const text = Object.getOwnPropertyDescriptor(Node.prototype, 'textContent')
  window.labTestWrites = []
  Object.defineProperty(HTMLStyleElement.prototype, 'textContent', {
    get() { return text.get.call(this) },
    set(value) { window.labTestWrites.push(text.get.call(this) !== value); text.set.call(this, value) },
  })
}"""
# Every view's stylesheets, BokehJS's text for each against the text on the page.
SHEETS_JS = """() => {
  const stack = [...Bokeh.index.roots], sheets = []
  while (stack.length) {
    const view = stack.pop()
    for (const sheet of [view.style, view.parent_style]) if (sheet) sheets.push([sheet.css, sheet.el.textContent])
    stack.push(...(view.child_views || []))
  }
  return sheets
}"""


def test_a_layout_writes_only_the_stylesheets_it_changes(browser, cdn_site_url):
    """BokehJS lays a view out by emptying its stylesheets and writing the same rules again; static/runs.js writes
    each once, at the end, where its text changed: Compare in Japanese writes only changed sheets, a layout of the
    unchanged page writes none, and every view's sheets on the page hold BokehJS's text."""
    context, _ = without_python(browser)
    try:
        page = context.new_page()
        page.goto(cdn_site_url + "index.html")
        expect(page.locator("html")).to_have_class(STEPPING, timeout=TIMEOUT)
        page.evaluate(STYLE_WRITES_JS)
        page.locator(".teach-tab-compare button").click()
        page.wait_for_function("window.labRuns.view === 'compare'", timeout=TIMEOUT)
        page.get_by_role("button", name="日本語", exact=True).click()
        page.wait_for_function("window.labRuns.lang === 'ja'", timeout=TIMEOUT)
        expect(page.locator(".compare-left .counter")).to_contain_text("ステップ 1/")
        writes = page.evaluate("window.labTestWrites")
        assert writes and all(writes)
        page.evaluate("window.labTestWrites = []; Bokeh.index.roots.forEach((view) => view.invalidate_layout?.())")
        assert page.evaluate("window.labTestWrites") == []
        sheets = page.evaluate(SHEETS_JS)
        assert len(sheets) > 100 and all(held == shown for held, shown in sheets)
    finally:
        context.close()

# Every element of the page, through every shadow root, with the computed styles a reader sees: a path of tag and
# class names, each with its index among its siblings of that tag and class (a view drawn anew may come before
# another of its siblings than at first) -> the properties (static/sheets.js must change how the sheets get in, not
# what they say).
STYLES_JS = """() => {
  const properties = ['font-family', 'font-size', 'font-weight', 'color', 'background-color', 'display', 'width',
                      'padding-top', 'padding-left', 'margin-top', 'border-top-width', 'border-top-color',
                      'border-radius', 'line-height', 'gap', 'text-align', 'visibility']
  const seen = {}
  function walk(scope, path) {
    const shown = [...scope.children].filter((el) => !['STYLE', 'LINK', 'SCRIPT'].includes(el.tagName))
    const kinds = {}
    shown.forEach((el) => {   // the sheets' own elements, there or not, are not counted
      const kind = `${el.tagName.toLowerCase()}.${el.className}`
      kinds[kind] = (kinds[kind] ?? -1) + 1
      const here = `${path}/${kind}${kinds[kind]}`
      const style = getComputedStyle(el)
      seen[here] = properties.map((name) => style.getPropertyValue(name)).join(' | ')
      if (el.shadowRoot) walk(el.shadowRoot, here + '#')
      walk(el, here)
    })
  }
  walk(document.body, '')
  return seen
}"""


def settled_styles(page) -> dict[str, str]:
    """The page's styles once they stay the same over two polls 250 ms apart: sheets loaded, transitions ended."""
    page.wait_for_function(f"""() => {{
        const now = JSON.stringify(({STYLES_JS})())
        const same = now === window.labTestStyles
        window.labTestStyles = now
        return same
    }}""", polling=250, timeout=TIMEOUT)
    return page.evaluate(STYLES_JS)


def test_adopted_stylesheets_draw_the_page_as_its_own_elements_do(browser, cdn_site_url, test_output):
    """The first document is drawn with BokehJS's own <link> and <style> elements (static/sheets.js is still
    fetching the files); after Compare and back to the step-through view, whose views are drawn anew, these adopt
    the sheets: every element of the page, in every shadow root, has the same computed style as at first."""
    context, _ = without_python(browser)
    try:
        page = context.new_page()
        page.goto(cdn_site_url + "index.html")
        expect(page.locator("html")).to_have_class(STEPPING, timeout=TIMEOUT)
        first = settled_styles(page)
        assert page.evaluate("window.labSheets.elements") > 0
        adopted = page.evaluate("window.labSheets.adopted")
        page.locator(".teach-tab-compare button").click()
        page.wait_for_function("window.labRuns.view === 'compare'", timeout=TIMEOUT)
        page.locator(".teach-tab-lab button").click()
        page.wait_for_function("window.labRuns.view === 'lab'", timeout=TIMEOUT)
        page.wait_for_function("([before]) => window.labSheets.adopted > before + 30", arg=[adopted], timeout=TIMEOUT)
        page.mouse.move(0, 0)   # off the button just clicked: not its hover colour
        again = settled_styles(page)
        shot(page, test_output, "adopted-sheets")
        assert len(first) > 500 and first.keys() == again.keys()
        differ = {path: [(before, after) for before, after in zip(first[path].split(" | "), again[path].split(" | "))
                         if before != after] for path in first if first[path] != again[path]}
        listing = test_output / "site-runs-adopted-differ.json"
        listing.unlink(missing_ok=True)
        if differ:
            listing.write_text(json.dumps(differ, indent=1))
        assert not differ, f"{len(differ)} elements differ, listed in site-runs-adopted-differ.json"
    finally:
        context.close()


def test_a_short_link_opens_from_its_prerender(browser, cdn_site_url, test_output):
    """``?mode=cpu&algorithm=srtf&step=4`` and a Japanese LLM link step at once, without Python; the address takes
    the run's own link (what Python starts from), keeping the step and the language."""
    context, _ = without_python(browser)
    try:
        page = context.new_page()
        page.goto(cdn_site_url + "index.html?mode=cpu&algorithm=srtf&step=4")
        result, built = expected_frames(default_query("cpu", "srtf"))
        expect_frame(page, result, built, 3)
        lab = Lab()
        lab.restore("mode=cpu&algorithm=srtf")
        link = lab.link().split("&step=")[0]
        assert page.evaluate("location.search") == f"?{link}&step=4"
        page.keyboard.press("ArrowRight")
        expect_frame(page, result, built, 4)
        page.goto(cdn_site_url + "index.html?lang=ja&mode=llm&algorithm=rr")
        expect(page.locator("[data-slot=counter] .counter")).to_contain_text("ステップ 1/", timeout=TIMEOUT)
        assert shown_run(page) == "llm-rr.lab.ja"
        shot(page, test_output, "short-link-ja")
    finally:
        context.close()


def test_an_edit_made_before_python_waits_for_it_and_is_then_applied(visitor, cdn_site_url, test_output):
    """With Pyodide (the stand-in): SRTF picked in the page's menu and two steps taken before Python is ready, then
    C's burst typed and entered, and B's typed without Enter; the page says the edit waits. Once Python has taken
    over: SRTF, the step reached, C's burst entered (the run is the core's for it) and B's text still in its field,
    not entered, and the field still has the focus: what the reader types next goes on there."""
    context, outside = visitor()
    page = context.new_page()
    page.goto(cdn_site_url + "index.html")
    expect(page.locator("html")).to_have_class(STEPPING, timeout=TIMEOUT)
    choose(page, "cpu", "srtf")
    page.locator("body").click(position={"x": 5, "y": 5})
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    burst = page.locator(".field-burst input")
    burst.nth(2).fill("3")
    burst.nth(2).press("Enter")
    expect(page.locator(".lab-boot-waiting")).to_contain_text("editing waits for Python")
    burst.nth(1).fill("6")
    shot(page, test_output, "edit-waits")
    wait_for_boot(page)
    lab = Lab()
    lab.restore("mode=cpu&algorithm=srtf&tasks=A:0:7,B:1:4,C:2:3,D:4:3")
    total = len(lab.result["steps"])
    expect(page.locator("[data-slot=counter] .counter")).to_contain_text(f"step 3/{total}", timeout=TIMEOUT)
    expect(page.locator(".field-burst input").nth(2)).to_have_value("3")
    expect(page.locator(".field-burst input").nth(1)).to_have_value("6")
    page.keyboard.type("0")   # the reader types on: into the field that had the focus, B's
    expect(page.locator(".field-burst input").nth(1)).to_have_value("60")
    expect(page.locator("table.metrics tfoot")).to_contain_text(f"{lab.result['averages']['waiting']:.2f}",
                                                                timeout=TIMEOUT)
    expect(page).to_have_url(re.compile(r"algorithm=srtf&tasks=A:0:7,B:1:4,C:2:3,D:4:3&step=3"), timeout=TIMEOUT)
    shot(page, test_output, "edit-applied")
    assert outside == [], outside


def test_a_run_once_fetched_opens_offline(browser, test_output, cdn_site):
    """The service worker keeps a run's file once the page has fetched it: with the server stopped and the network
    off, a reload of that run's link opens from its prerender."""
    context, _ = without_python(browser)
    server = StaticServer(cdn_site)
    url = server.__enter__()
    try:
        page = context.new_page()
        page.goto(url + "index.html")
        expect(page.locator("html")).to_have_class(STEPPING, timeout=TIMEOUT)
        page.wait_for_function("navigator.serviceWorker.controller !== null || "
                               "navigator.serviceWorker.ready.then(() => true)", timeout=TIMEOUT)
        choose(page, "cpu", "rr")
        site_support.wait_until(page, """async () => {
            const names = await caches.keys()
            const site = names.find(n => n.startsWith('schedlab-') && n.length === 'schedlab-'.length + 16)
            return !!site && !!(await (await caches.open(site)).match('runs/cpu-rr.lab.en.json.gz'))
        }""", timeout_ms=TIMEOUT * 2)
    finally:
        server.stop()
    context.set_offline(True)
    page.reload()
    result, built = expected_frames(default_query("cpu", "rr"))
    expect_frame(page, result, built, 0)
    assert shown_run(page) == "cpu-rr.lab.en"
    shot(page, test_output, "offline-run")
    context.close()
