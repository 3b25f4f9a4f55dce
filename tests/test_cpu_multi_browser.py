"""Several CPUs in the served lab, in Chromium (issue 22 item 1): two CPUs' rows on the Gantt chart, every CPU's
running task, a migration among the events, per-CPU utilisation under the table, the toggle to one row per task;
four CPUs in presenter mode within 1920 × 1080.

Every expected value comes from ``schedulers.simulate`` in this process; screenshots go to test-output/.
"""
from __future__ import annotations

import pytest

pytest.importorskip("panel")
playwright_api = pytest.importorskip("playwright.sync_api")
expect = playwright_api.expect

from schedulers import simulate  # noqa: E402
from tests.test_app_browser import PRESENTER, TIMEOUT, Lab  # noqa: E402
from tests.test_cpu_io_browser import charts  # noqa: E402
from tests.test_cpu_multi_app import LINK, SCENARIO  # noqa: E402

pytestmark = pytest.mark.browser

# RR q=2 on four CPUs, six tasks: the two that wait take the first CPUs freed at t=2.
FOUR_LINK = "mode=cpu&algorithm=rr&quantum=2&cpus=4&tasks=A:0:5,B:0:3,C:0:4,D:1:2,E:1:6,F:2:3"
FOUR = {"algorithm": "rr", "quantum": 2, "cpus": 4, "tasks": [
    {"name": name, "arrival": arrival, "burst": burst}
    for name, arrival, burst in (("A", 0, 5), ("B", 0, 3), ("C", 0, 4), ("D", 1, 2), ("E", 1, 6), ("F", 2, 3))]}
WORDS = {"en": {"step": "step {k}/{n}", "migrate": "A migrates from CPU 0 to CPU 1", "by_task": "One row per task",
                "utilisation": "Utilisation 91.7% of all CPUs (CPU 0 83.3%, CPU 1 100%); migrations: 1."},
         "ja": {"step": "ステップ {k}/{n}", "migrate": "A が CPU 0 から CPU 1 へ移動", "by_task": "タスクごとに 1 行",
                "utilisation": "全 CPU の利用率 91.7%（CPU 0 83.3%, CPU 1 100%）。移動（マイグレーション）: 1 回。"}}


def cpu_bars(result) -> list[list]:
    """The bars a chart of one row per CPU draws: [row, task or idle, left, right], CPU by CPU."""
    bars = []
    for cpu, timeline in enumerate(result["timelines"]):
        start = 0
        for end in range(1, len(timeline) + 1):
            if end == len(timeline) or timeline[end] != timeline[start]:
                bars.append([f"CPU {cpu}", timeline[start], start, end])
                start = end
    return bars


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_two_cpus_show_a_row_each_every_running_task_and_the_migration(browser, lab_url, test_output, lang):
    result, words = simulate("cpu", SCENARIO), WORDS[lang]
    n, k = len(result["steps"]), 5   # the slice [4, 5): C on CPU 0, A on CPU 1 after migrating
    context = browser.new_context(viewport={"width": 1366, "height": 900})
    page = context.new_page()
    lab = Lab(page, lab_url).open(f"{LINK}&step={k + 1}&lang={lang}")   # the link counts steps from 1
    expect(lab.counter()).to_contain_text(words["step"].format(k=k + 1, n=n), timeout=TIMEOUT)
    expect(lab.narration()).to_have_text(result["steps"][k]["why"][lang], timeout=TIMEOUT)
    cpus = page.locator(".cpus .cpu")
    expect(cpus).to_have_count(2, timeout=TIMEOUT)
    expect(cpus.nth(0)).to_contain_text("CPU 0:")
    expect(cpus.nth(0)).to_contain_text("C")
    expect(cpus.nth(1)).to_contain_text("A")
    expect(page.locator("ul.events")).to_contain_text(words["migrate"], timeout=TIMEOUT)
    expect(page.locator(".cpu-utilisation")).to_have_text(words["utilisation"], timeout=TIMEOUT)
    [chart] = charts(page)
    assert chart["rows"] == ["CPU 0", "CPU 1"]
    idle = {"en": "idle", "ja": "アイドル"}
    expected = [[row, idle[lang] if task is None else task, left, right]
                for row, task, left, right in cpu_bars(result)]
    assert sorted(map(tuple, chart["bars"][" "])) == sorted(map(tuple, expected))
    lab.shot(test_output, f"cpu-multi-{lang}-1366")
    # The toggle: one row per task, each slice labelled with its CPU.
    expect(page.locator(".gantt-by-task")).to_contain_text(words["by_task"], timeout=TIMEOUT)
    toggle = page.locator(".gantt-by-task input[type=checkbox]")
    toggle.check()
    expect(toggle).to_be_checked(timeout=TIMEOUT)
    page.wait_for_function("""() => [...Bokeh.index.all_views()].some((view) => view.model?.type === "GlyphRenderer"
        && view.parent.el.isConnected && view.glyph.model.type === "HBar"
        && [...view.parent.model.y_range.factors].includes("A"))""", timeout=TIMEOUT)
    [chart] = charts(page)
    assert chart["rows"] == ["A", "B", "C"]
    assert sorted(bar[0] for bar in chart["bars"][" "] if bar[0] == "A") == ["A", "A"]   # on CPU 0, then CPU 1
    lab.shot(test_output, f"cpu-multi-by-task-{lang}-1366")
    context.close()


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_four_cpus_fit_presenter_mode(browser, lab_url, test_output, lang):
    result = simulate("cpu", FOUR)
    k = 3
    context = browser.new_context(viewport={"width": 1920, "height": 1080})
    page = context.new_page()
    lab = Lab(page, lab_url).open(f"{FOUR_LINK}&step={k + 1}&lang={lang}")
    expect(page.locator(".cpus .cpu")).to_have_count(4, timeout=TIMEOUT)
    page.get_by_role("button", name=PRESENTER[lang]).click()
    expect(page.locator(".editor")).to_be_hidden(timeout=TIMEOUT)
    canvas, cpus = page.locator("canvas").first, page.locator(".cpus")
    expect(canvas).to_be_visible(timeout=TIMEOUT)
    for cpu, name in enumerate(result["steps"][k]["running"]):
        expect(cpus.locator(".cpu").nth(cpu)).to_contain_text(name, timeout=TIMEOUT)
    expect(lab.narration()).to_have_text(result["steps"][k]["why"][lang], timeout=TIMEOUT)
    page.screenshot(path=test_output / f"cpu-multi-4-{lang}-presenter-1920x1080.png")
    for part in (canvas, cpus, lab.narration()):
        box = part.bounding_box()
        assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= 1080, part
    assert charts(page)[0]["rows"] == ["CPU 0", "CPU 1", "CPU 2", "CPU 3"]
    context.close()


@pytest.mark.parametrize("lang, prompt", [("en", "Which task runs on CPU 1 over t=1 → 2?"),
                                          ("ja", "t=1 → 2 に CPU 1 で実行されるのはどのタスクですか？")])
def test_predict_asks_about_the_cpu_that_takes_a_new_task(lab, test_output, lang, prompt):
    """SRTF on two CPUs (tests/test_cpu_multi.py, by hand): after [0, 1) the question is CPU 1's at t=1, where C
    preempts A; the running card of the known state lists both CPUs; the right answer gets the core's explanation."""
    from schedulers.quiz import questions
    query = "mode=cpu&algorithm=srtf&cpus=2&tasks=A:0:4,B:0:3,C:1:1,D:2:5"
    from app.model import Lab as Model
    model = Model()
    model.restore(query)
    asked = questions(model.result)[1]
    lab.open(f"{query}&step=2&lang={lang}")
    page = lab.page
    page.locator(".teach-tabs button").nth(2).click()   # Predict
    expect(page.locator(".quiz-question")).to_contain_text(prompt, timeout=TIMEOUT)
    expect(page.locator(".quiz-choice button")).to_have_text(list(asked.candidates))
    expect(page.locator(".cpus .cpu")).to_have_count(2)
    lab.shot(test_output, f"cpu-multi-predict-{lang}-1366")
    page.locator(".quiz-choice button", has_text=asked.answer).click()
    expect(page.locator(".quiz-feedback")).to_contain_text(asked.why[lang], timeout=TIMEOUT)
