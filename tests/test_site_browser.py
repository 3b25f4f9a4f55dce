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
import subprocess
import sys
from pathlib import Path

import pytest

playwright_api = pytest.importorskip("playwright.sync_api")
expect = playwright_api.expect

import site_support  # noqa: E402
from schedulers import simulate  # noqa: E402
from schedulers.custom import TEMPLATES  # noqa: E402
from site_support import StandInMissing, StaticServer, boot_state, breakdown, wait_for_boot  # noqa: E402

pytestmark = pytest.mark.browser
TIMEOUT = 30_000  # ms: one step or view in Pyodide on a busy 2-core machine
ARTICLE = {"algorithm": "srtf", "tasks": [{"name": "A", "arrival": 0, "burst": 7}, {"name": "B", "arrival": 1, "burst": 4},
                                          {"name": "C", "arrival": 2, "burst": 1}, {"name": "D", "arrival": 4, "burst": 3}]}
SRTF_LINK = "mode=cpu&algorithm=srtf"  # the article's tasks are the default; only the rule comes from the link
LLM_LINK = "mode=llm&algorithm=sfq&tenants=Ada:8x3,Bob:2x3"
LLM = {"algorithm": "sfq", "tenants": [{"name": "Ada", "cost": 8, "count": 3}, {"name": "Bob", "cost": 2, "count": 3}]}


def counter(page):
    return page.locator(".counter").first


def tab(page, key: str) -> None:
    page.locator(f".teach-tab-{key} button").click()


def shot(page, test_output: Path, name: str) -> None:
    page.screenshot(path=str(test_output / f"site-{name}.png"), full_page=True)


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
        stages = [t["stage"] for t in state["timeline"]]
        parts = [t.get("part") for t in state["timeline"] if t["stage"] == "Starting the app"]
        assert stages.index("Downloading Pyodide") < stages.index("Loading packages") < \
            stages.index("Installing wheels") < stages.index("Starting the app") < stages.index("ready")
        assert parts[0] == "panel" and parts[-2:] == ["build", "draw"] and "import" in parts
        print("\nboot (cold, CPU link):", ", ".join(f"{what} {ms} ms" for what, ms in breakdown(state["timeline"])))
        shot(page, test_output, "cpu-link-ready")
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
        }""" % site_support.PYODIDE_CDN, timeout_ms=TIMEOUT * 4)
    finally:
        server.stop()
    context.set_offline(True)
    page.reload()
    state = wait_for_boot(page)
    print("boot (repeat visit, offline):", ", ".join(f"{what} {ms} ms" for what, ms in breakdown(state["timeline"])))
    assert page.evaluate("window.labBoot.bytecode.restored") is True
    expect(counter(page)).to_contain_text(f"/{steps}", timeout=TIMEOUT)
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
    assert f"runs Python 3.12.7; the lab is built for Pyodide {site_support.PYODIDE_VERSION} (Python 3.14)" in done.stderr
    assert "--pyodide-standin" in done.stderr
