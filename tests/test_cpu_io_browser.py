"""Issue 20 in the served lab, in Chromium: an I/O run's Gantt chart and Blocked (I/O) card at a step, switches on a
row of their own beside Compare's other quantum, the Conventions card through a link, and bad input by its field.

Every expected value comes from ``schedulers.simulate`` in this process; screenshots go to test-output/ (1366 px and
presenter mode at 1920 × 1080, in both languages).
"""
from __future__ import annotations

import re

import pytest

pytest.importorskip("panel")
playwright_api = pytest.importorskip("playwright.sync_api")
expect = playwright_api.expect

from schedulers import simulate  # noqa: E402
from tests.test_app_browser import DEEP_JS, PRESENTER, TIMEOUT, Lab, expect_true  # noqa: E402
from tests.test_cpu_io_app import IO_LINK, IO_SCENARIO, step_at  # noqa: E402

pytestmark = pytest.mark.browser
COLD = 60_000   # ms: a view built for the first time on a loaded machine (Compare's two charts)

# The Gantt charts on the page: each one's rows (top to bottom), legend labels, and its bars by hatch pattern (" ":
# runs, "x": I/O, "/": switches) as [row, task, left, right], read off BokehJS.
CHARTS_JS = """() => {
    const plots = new Map()
    for (const view of Bokeh.index.all_views()) {
        if (view.model?.type !== "GlyphRenderer" || view.glyph.model.type !== "HBar" || !view.parent.el.isConnected)
            continue
        const plot = view.parent.model, data = view.model.data_source.data
        const hatch = String(view.glyph.model.hatch_pattern?.value ?? view.glyph.model.hatch_pattern)
        if (!plots.has(plot.id))
            plots.set(plot.id, {rows: [...plot.y_range.factors].reverse(), bars: {},
                                legend: plot.center.concat(plot.above).filter((m) => m.type === "Legend")
                                    .flatMap((legend) => legend.items.map((item) => item.label.value))})
        plots.get(plot.id).bars[hatch] = [...data.row].map((row, i) => [row, data.name[i], data.left[i],
                                                                         data.right[i]])
    }
    return [...plots.values()]
}"""


def charts(page) -> list[dict]:
    expect_true(page, f"() => ({CHARTS_JS})().length > 0", None, "no Gantt chart on the page")
    return page.evaluate(CHARTS_JS)


def io_bars(result) -> list[list]:
    """The I/O bars the chart must draw: on the task's own row, from each block event to its return."""
    return [[e["task"], e["task"], e["time"], e["until"]] for step in result["steps"] for e in step.get("events") or ()
            if e["kind"] == "block"]


WORDS = {"en": {"step": "step {k}/{n}", "until": "returns at t={t}", "blocked": "Blocked (I/O)",
                "legend": ["on the CPU", "I/O (blocked)"]},
         "ja": {"step": "ステップ {k}/{n}", "until": "t={t} に復帰", "blocked": "I/O でブロック中",
                "legend": ["CPU で実行", "I/O（ブロック中）"]}}


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_an_io_run_shows_io_on_the_chart_and_who_is_blocked_at_a_step(browser, lab_url, test_output, lang):
    result = simulate("cpu", IO_SCENARIO)
    n, words = len(result["steps"]), WORDS[lang]
    k = step_at(result, 5)   # A blocked over [5, 7)
    [entry] = result["steps"][k]["blocked"]
    context = browser.new_context(viewport={"width": 1366, "height": 900})
    page = context.new_page()
    lab = Lab(page, lab_url).open(f"{IO_LINK}&step={k + 1}&lang={lang}")
    expect(lab.counter()).to_contain_text(words["step"].format(k=k + 1, n=n), timeout=TIMEOUT)
    card = page.locator(".blocked-card")
    expect(card).to_contain_text(words["blocked"], timeout=TIMEOUT)
    expect(card.locator("li")).to_have_count(1)
    expect(card.locator("li")).to_contain_text(entry["task"])
    expect(card.locator("li")).to_contain_text(words["until"].format(t=entry["until"]))
    expect(lab.narration()).to_have_text(result["steps"][k]["why"][lang], timeout=TIMEOUT)
    [chart] = charts(page)
    assert chart["bars"]["x"] == io_bars(result) == [["A", "A", 5, 7]]
    assert chart["legend"] == words["legend"]
    assert "switch" not in chart["rows"]
    lab.shot(test_output, f"cpu-io-{lang}-1366")
    # At the first step nobody is blocked yet.
    lab.button("step-first").click()
    expect(lab.counter()).to_contain_text(words["step"].format(k=1, n=n), timeout=TIMEOUT)
    expect(card.locator("li")).to_have_count(0, timeout=TIMEOUT)
    context.close()
    # Presenter mode at 1920 × 1080: the chart and the blocked card on the first screen, nothing clipped.
    context = browser.new_context(viewport={"width": 1920, "height": 1080})
    page = context.new_page()
    lab = Lab(page, lab_url).open(f"{IO_LINK}&step={k + 1}&lang={lang}")
    expect(page.locator(".blocked-card li")).to_have_count(1, timeout=TIMEOUT)
    page.get_by_role("button", name=PRESENTER[lang]).click()
    expect(page.locator(".editor")).to_be_hidden(timeout=TIMEOUT)
    canvas, card = page.locator("canvas").first, page.locator(".blocked-card")
    expect(canvas).to_be_visible(timeout=TIMEOUT)
    expect(card.locator("li")).to_contain_text(words["until"].format(t=entry["until"]), timeout=TIMEOUT)
    page.screenshot(path=test_output / f"cpu-io-{lang}-presenter-1920x1080.png")
    for part in (canvas, card, lab.narration()):
        box = part.bounding_box()
        assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= 1080, part
    assert charts(page)[0]["bars"]["x"] == [["A", "A", 5, 7]]
    context.close()


def test_the_switch_cost_preset_compares_two_quanta_with_switches_on_their_own_row(lab, test_output):
    from app.modes import app_mode
    from app.model import parameter_text

    key, preset = next((key, p) for key, p in app_mode("cpu").presets.items()
                       if p.scenario.get("switch_cost") and p.compare)
    left = simulate("cpu", preset.scenario)
    right = simulate("cpu", {**preset.scenario, **preset.compare})
    lab.open()
    lab.page.locator(".presets select").select_option(label=preset.words["label"]["en"])
    expect(lab.page.locator(".compare-right")).to_be_visible(timeout=COLD)
    expect(lab.page.locator(".teach-tab-compare .bk-btn-primary.bk-active, .teach-tab-compare button").first
           ).to_be_visible()
    for name, value in preset.compare.items():
        if name != "algorithm":
            expect(lab.page.locator(f".compare-param-{name} input")).to_have_value(parameter_text(value))
    expect_true(lab.page, f"() => ({CHARTS_JS})().length === 2", None, "Compare does not show two charts")
    shown = charts(lab.page)
    want = [[["switch", entry["switch"], start, end] for entry, start, end in runs(result["timeline"])
             if isinstance(entry, dict)] for result in (left, right)]
    assert sorted(chart["bars"]["/"] for chart in shown) == sorted(want)
    assert all("switch" in chart["rows"] for chart in shown)
    table = lab.page.locator(".compare-diff table")
    expect(table).to_contain_text("Time switching", timeout=TIMEOUT)
    expect(table.locator("tr", has_text="Time switching")).to_contain_text(
        f"{left['switch_time']} → {right['switch_time']}")
    expect(table).to_contain_text("CPU utilisation")
    lab.shot(test_output, f"cpu-switch-compare-{key}-1366")
    assert labels_overflowing(lab.page) == []
    # Out of its card, the conventions' preset says what it is a preset of (not the lessons' Presets menu).
    expect(lab.page.locator(".compare-param-conventions label")).to_have_text("Conventions preset")
    # In Japanese and presenter mode: the same table in its words, both charts with their switch row.
    lab.page.get_by_role("button", name="日本語").click()
    expect(lab.page.locator(".compare-diff table")).to_contain_text("切り替えの時間", timeout=COLD)
    lab.page.get_by_role("button", name=PRESENTER["ja"]).click()
    expect(lab.page.locator(".editor")).to_be_hidden(timeout=TIMEOUT)
    expect_true(lab.page, f"() => {{ const shown = ({CHARTS_JS})(); return shown.length === 2 && "
                "shown.every((chart) => chart.rows.includes('切り替え')) }", None,
                "Compare's charts in Japanese have no switch row")
    lab.shot(test_output, f"cpu-switch-compare-{key}-ja-presenter-1366")
    assert labels_overflowing(lab.page) == []
    lab.page.get_by_role("button", name=PRESENTER["ja"]).click()
    lab.page.get_by_role("button", name="English").click()
    expect(lab.page.locator(".editor")).to_be_visible(timeout=TIMEOUT)
    lab.page.locator(".teach-tab-lab button").click()
    expect(lab.page.locator("p.switching")).to_contain_text(f"time switching {left['switch_time']}",
                                                            timeout=COLD)


def labels_overflowing(page):
    """Compare's parameter fields whose label's text is wider than the field (it ran into the next field)."""
    over = []
    for field in page.locator("[class*='compare-param-']").all():
        text = field.locator("label").first.evaluate(
            "(el) => { const r = document.createRange(); r.selectNodeContents(el); "
            "return r.getBoundingClientRect().width }")
        if text > field.bounding_box()["width"] + 1:
            over.append((field.locator("label").first.inner_text(), text, field.bounding_box()["width"]))
    return over


def runs(timeline):
    from app.modes.cpu.gantt import slices
    return slices(timeline)


def test_the_conventions_card_travels_in_a_link(lab, browser, lab_url, test_output):
    link = "mode=cpu&algorithm=mlfq&boost=4&tasks=A:0:5,B:0:5,C:4:3"
    lab.open(link)
    card = lab.page.locator(".conventions-card")
    expect(card).to_contain_text("Conventions: the lab's (default)", timeout=TIMEOUT)
    expect(card.locator(".conventions-preset select")).to_be_hidden()   # folded
    card.locator(".card-header").click()
    card.locator(".conventions-preset select").select_option(label="OSTEP's simulators")
    expect(lab.page).to_have_url(re.compile(r"conventions=ostep"), timeout=TIMEOUT)
    expect(card.locator(".conventions-order select")).to_have_value("bottom level first")   # Panel's value: the label
    card.locator(".conventions-order select").select_option(label="top level first")   # a flag of one's own
    expect(card).to_contain_text("Conventions: my own flags", timeout=TIMEOUT)
    flags = {"arrival_before_requeue": False, "boost_after_arrivals": False, "boost_order": "top-first"}
    expect(lab.page).to_have_url(re.compile(r"conventions=arrival_before_requeue%3Dfalse"), timeout=TIMEOUT)
    scenario = {"algorithm": "mlfq", "boost": 4, "conventions": flags, "tasks": [
        {"name": "A", "arrival": 0, "burst": 5}, {"name": "B", "arrival": 0, "burst": 5},
        {"name": "C", "arrival": 4, "burst": 3}]}
    result = simulate("cpu", scenario)
    rows = lab.page.locator("table.metrics tbody tr")
    expect(rows.nth(2)).to_contain_text(str(result["tasks"][2]["completion"]), timeout=TIMEOUT)
    lab.shot(test_output, "cpu-conventions-1366")
    other = browser.new_context(viewport={"width": 1366, "height": 900})
    page = other.new_page()
    page.goto(lab.page.url)
    again = Lab(page, lab_url)
    again.expect_step(1, len(result["steps"]))
    shown = page.locator(".conventions-card")
    expect(shown).to_contain_text("Conventions: my own flags", timeout=TIMEOUT)
    expect(shown.locator(".conventions-order select")).to_have_value("top level first")   # open: not the default
    expect(shown.locator(".conventions-arrival_before_requeue input")).not_to_be_checked()
    assert page.locator(".notice li").count() == 0
    other.close()


def test_bad_bursts_and_conventions_are_named_and_the_run_kept(lab):
    result = simulate("cpu", IO_SCENARIO)
    lab.open(IO_LINK)
    lab.expect_step(1, len(result["steps"]))
    lab.type_into("bursts", 0, "3, 2")
    row = lab.page.locator(".row-editor").nth(0)
    expect(row.locator(".error")).to_contain_text("tasks[0].bursts", timeout=TIMEOUT)
    lab.expect_step(1, len(result["steps"]))   # the last valid run stays
    expect(lab.page.locator("table.metrics tbody tr").nth(0)).to_contain_text(
        str(result["tasks"][0]["completion"]))
    assert "Traceback" not in lab.page.locator("body").inner_text()
    lab.open(IO_LINK + "&conventions=sideways")
    expect(lab.page.locator(".notice li")).to_contain_text("conventions", timeout=TIMEOUT)
    lab.expect_step(1, len(result["steps"]))
    assert lab.page.evaluate("() => {" + DEEP_JS + "return deep(document, '.field-error').length}") == 0
