"""Issue 23 in the served lab, in Chromium: periodic tasks under RM from a link, each job's bars on its task's row with
its name, the miss in red with its sentence, the job names in the ready queue and the events, the analysis card's
sentence beside the run; the preset with EDF in Compare; both languages.

Every expected value comes from ``schedulers.simulate`` in this process; screenshots go to test-output/.
"""
from __future__ import annotations

import pytest

pytest.importorskip("panel")
playwright_api = pytest.importorskip("playwright.sync_api")
expect = playwright_api.expect

from schedulers import simulate  # noqa: E402
from schedulers.cpu.presets import PRESETS  # noqa: E402
from tests.test_app_browser import TIMEOUT, expect_true  # noqa: E402
from tests.test_cpu_io_browser import charts  # noqa: E402
from tests.test_cpu_io_app import step_at  # noqa: E402

pytestmark = pytest.mark.browser

SCENARIO = PRESETS["rm-misses-edf-meets"]["scenario"]
LINK = "mode=cpu&algorithm=rm&tasks=A:0:2:period=5,B:0:4:period=7"
# The texts drawn on the Gantt charts (job names, misses), with their colours, read off BokehJS.
TEXTS_JS = """() => Bokeh.index.all_views().filter((view) => view.model?.type === "GlyphRenderer"
        && view.glyph.model.type === "Text" && view.parent.el.isConnected)
    .map((view) => ({colour: String(view.glyph.model.text_color?.value ?? view.glyph.model.text_color),
                     texts: [...view.model.data_source.data.text]}))"""
WORDS = {"en": {"miss": "B#1 misses t=7 (1 left)", "card": "U = 0.971 > 0.828: the Liu-Layland bound says nothing",
                "exact": "the exact test says B misses under RM", "run": "the run (rm) shows B#1 late by 1",
                "event": "B#1 misses its deadline at t=7; it has 1 left"},
         "ja": {"miss": "B#1 締切超過 t=7（残り 1）", "card": "U = 0.971 > 0.828: Liu–Layland 上限からは何も言えません",
                "exact": "厳密な応答時間解析では RM で B が締切を落とします", "run": "実行（rm）では B#1 が 1 遅れ",
                "event": "B#1 が t=7 に締切超過（残り 1）"}}


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_a_periodic_run_shows_jobs_misses_and_the_tests_beside_it(lab, test_output, lang):
    result = simulate("cpu", SCENARIO)
    k, words = step_at(result, 7), WORDS[lang]   # the slice [7, 8): B#1 past its deadline, B#2 waiting
    lab.open(f"{LINK}&step={k + 1}&lang={lang}")   # the fixture's page checks for JavaScript errors
    page = lab.page
    expect(lab.narration()).to_have_text(result["steps"][k]["why"][lang], timeout=TIMEOUT)
    card = page.locator(".analysis-card")
    for part in ("card", "exact", "run"):
        expect(card.locator(".verdict")).to_contain_text(words[part], timeout=TIMEOUT)
    expect(card.locator("td.misses")).to_have_count(2)   # B under RM and under DM
    expect(page.locator(".events")).to_contain_text(words["event"])
    expect(page.locator(".queue li")).to_have_text(["B#2"])
    [chart] = charts(page)
    owner = {job["name"]: job["task"] for job in result["jobs"]}
    runs, start = [], 0
    for unit, end in zip(result["timeline"], range(1, len(result["timeline"]) + 1)):
        if end == len(result["timeline"]) or result["timeline"][end] != unit:
            runs.append([owner[unit], unit, start, end])
            start = end
    assert chart["rows"][:2] == ["A", "B"] and chart["bars"][" "] == runs
    expect_true(page, f"() => ({TEXTS_JS})().some((drawn) => drawn.texts.includes({words['miss']!r}) "
                "&& drawn.colour === '#d62728')", None, "the miss is not drawn in red on the chart")
    expect_true(page, f"() => ({TEXTS_JS})().some((drawn) => drawn.texts.includes('A#1') "
                "&& drawn.texts.includes('B#2'))", None, "the jobs' names are not on the chart")
    lab.shot(test_output, f"cpu-periodic-{lang}-1366")


def test_the_preset_compares_rm_with_edf(lab, test_output):
    from app.modes import app_mode

    # RM on the left misses B#1, EDF on the right misses nothing: both charts, the jobs on their tasks' rows.
    preset = app_mode("cpu").presets["rm-misses-edf-meets"]
    right = simulate("cpu", {**preset.scenario, **preset.compare})
    assert right["summary"]["deadline_misses"] == 0
    lab.open()
    lab.page.locator(".presets select").select_option(label=preset.words["label"]["en"])
    expect(lab.page.locator(".compare-right")).to_be_visible(timeout=TIMEOUT)
    # Compare's first build may take up to a minute on a loaded machine (two charts)
    expect(lab.page.locator(".compare-diff table")).to_contain_text("Turnaround", timeout=60_000)
    expect_true(lab.page, f"() => ({TEXTS_JS})().some((drawn) => drawn.texts.includes('B#1 misses t=7 (1 left)'))",
                None, "RM's miss is not drawn in Compare")
    lab.shot(test_output, "cpu-periodic-compare-1366")
