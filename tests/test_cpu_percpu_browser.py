"""Per-CPU queues in the served lab, in Chromium (issue 22 item 2): every CPU's queue in the state card, a steal
among the events and in the narration, the steals under the table, and the editor's queues and steal shown only with
several CPUs; the preset "load imbalance and stealing" in Compare, steal off against on.

Every expected value comes from ``schedulers.simulate`` in this process; screenshots go to test-output/.
"""
from __future__ import annotations

import pytest

pytest.importorskip("panel")
playwright_api = pytest.importorskip("playwright.sync_api")
expect = playwright_api.expect

from schedulers import simulate  # noqa: E402
from schedulers.cpu.presets import PRESETS, versus  # noqa: E402
from tests.test_app_browser import TIMEOUT, Lab, expect_true  # noqa: E402
from tests.test_cpu_io_browser import CHARTS_JS, COLD, charts  # noqa: E402
from tests.test_cpu_percpu_app import LINK, SCENARIO  # noqa: E402

pytestmark = pytest.mark.browser

WORDS = {"en": {"step": "step {k}/{n}", "steal": "CPU 0 steals D from CPU 1's queue",
                "steals": "Per-CPU queues; steals: 1."},
         "ja": {"step": "ステップ {k}/{n}", "steal": "CPU 0 が CPU 1 のキューから D をスチール",
                "steals": "CPU ごとのキュー。スチール: 1 回。"}}


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_every_cpus_queue_the_steal_and_the_editors_queues(browser, lab_url, test_output, lang):
    result, words = simulate("cpu", SCENARIO), WORDS[lang]
    n = len(result["steps"])
    context = browser.new_context(viewport={"width": 1366, "height": 900})
    page = context.new_page()
    lab = Lab(page, lab_url).open(f"{LINK}&step=2&lang={lang}")   # the slice [0, 1): queues [C], [D]
    expect(lab.counter()).to_contain_text(words["step"].format(k=2, n=n), timeout=TIMEOUT)
    queues = page.locator(".cpu-queue")
    expect(queues).to_have_count(2, timeout=TIMEOUT)
    expect(queues.nth(0)).to_contain_text("CPU 0:")
    expect(queues.nth(0)).to_contain_text("C")
    expect(queues.nth(1)).to_contain_text("D")
    expect(page.locator(".param-queues")).to_be_visible(timeout=TIMEOUT)
    expect(page.locator(".param-steal")).to_be_visible(timeout=TIMEOUT)
    lab.shot(test_output, f"cpu-percpu-queues-{lang}-1366")
    lab.open(f"{LINK}&step=5&lang={lang}")   # the slice [3, 4): CPU 0 steals D
    expect(lab.counter()).to_contain_text(words["step"].format(k=5, n=n), timeout=TIMEOUT)
    expect(lab.narration()).to_have_text(result["steps"][4]["why"][lang], timeout=TIMEOUT)
    expect(page.locator("ul.events")).to_contain_text(words["steal"], timeout=TIMEOUT)
    expect(page.locator(".cpu-steals")).to_have_text(words["steals"], timeout=TIMEOUT)
    lab.shot(test_output, f"cpu-percpu-steal-{lang}-1366")
    cpus = page.locator(".param-cpus input")   # one CPU: the queues no longer matter, and are not offered
    cpus.fill("1")
    cpus.press("Enter")
    expect(page.locator(".param-queues")).to_be_hidden(timeout=TIMEOUT)
    expect(page.locator(".param-steal")).to_be_hidden(timeout=TIMEOUT)
    context.close()


def test_the_load_imbalance_preset_compares_steal_off_and_on(lab, test_output):
    off, on = simulate("cpu", PRESETS["load-imbalance"]["scenario"]), simulate("cpu", versus("load-imbalance"))
    lab.open()
    lab.page.locator(".presets select").select_option(label=PRESETS["load-imbalance"]["title"]["en"])
    expect(lab.page.locator(".compare-right")).to_be_visible(timeout=COLD)
    expect_true(lab.page, f"() => ({CHARTS_JS})().length === 2", None, "Compare does not show two charts")
    assert sorted(chart["rows"] for chart in charts(lab.page)) == [["CPU 0", "CPU 1"]] * 2
    table = lab.page.locator(".compare-diff table")
    expect(table.locator("tr", has_text="Steals")).to_contain_text(f"{off['steals']} → {on['steals']}",
                                                                   timeout=TIMEOUT)
    expect(table).to_contain_text("CPU utilisation")
    lab.shot(test_output, "cpu-percpu-compare-load-imbalance-1366")
    lab.page.get_by_role("button", name="日本語").click()
    expect(lab.page.locator(".compare-diff table")).to_contain_text("スチール", timeout=COLD)
    lab.shot(test_output, "cpu-percpu-compare-load-imbalance-ja-1366")


def test_four_cpus_queues_fit_presenter_mode(browser, lab_url, test_output):
    from tests.test_app_browser import PRESENTER
    from tests.test_cpu_multi_browser import FOUR, FOUR_LINK

    scenario = {**FOUR, "queues": "per-cpu", "steal": True}
    result, k = simulate("cpu", scenario), 3
    context = browser.new_context(viewport={"width": 1920, "height": 1080})
    page = context.new_page()
    lab = Lab(page, lab_url).open(f"{FOUR_LINK}&queues=per-cpu&steal=true&step={k + 1}")
    expect(page.locator(".cpu-queue")).to_have_count(4, timeout=TIMEOUT)
    page.get_by_role("button", name=PRESENTER["en"]).click()
    expect(page.locator(".editor")).to_be_hidden(timeout=TIMEOUT)
    expect(lab.narration()).to_have_text(result["steps"][k]["why"]["en"], timeout=TIMEOUT)
    page.screenshot(path=test_output / "cpu-percpu-4-presenter-1920x1080.png")
    for part in (page.locator("canvas").first, page.locator(".cpus"), page.locator(".cpu-queue").last,
                 lab.narration()):
        box = part.bounding_box()
        assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= 1080, part
    context.close()
