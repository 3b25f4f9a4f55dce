"""Issue 23's locks in the served lab, in Chromium: the Pathfinder inversion under inheritance from a link, the Locks
card at the step L runs at H's priority (who holds R, who waits, the effective priorities), the holds and waits under
the tasks' rows of the Gantt chart; a deadlock's sentence at its step; the ceiling preset against no protocol in
Compare; both languages.

Every expected value comes from ``schedulers.simulate`` in this process; screenshots go to test-output/.
"""
from __future__ import annotations

import pytest

pytest.importorskip("panel")
playwright_api = pytest.importorskip("playwright.sync_api")
expect = playwright_api.expect

from schedulers import simulate  # noqa: E402
from tests.test_app_browser import TIMEOUT  # noqa: E402
from tests.test_cpu_io_app import step_at  # noqa: E402
from tests.test_cpu_io_browser import COLD, charts  # noqa: E402
from tests.test_cpu_locks_app import LINK  # noqa: E402
from schedulers.cpu.presets import PATHFINDER, PRESETS  # noqa: E402

pytestmark = pytest.mark.browser

DEADLOCK_LINK = "mode=cpu&algorithm=priority-preemptive&tasks=A:0:4:priority=2:sections=R1%3A0%3A3%3BR2%3A1%3A1," \
                "B:1:4:priority=1:sections=R2%3A0%3A3%3BR1%3A1%3A1"
WORDS = {"en": {"card": "Locks", "raised": "runs at H's priority", "own": "its own",
                "legend": ["holds a resource", "waits for one"], "event": "H waits for R, held by L"},
         "ja": {"card": "ロック", "raised": "H の優先度で実行", "own": "自分の優先度",
                "legend": ["資源を保持", "資源を待機"], "event": "H が R を待機（L が保持）"}}


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_the_locks_card_and_the_chart_show_inheritance_at_work(lab, test_output, lang):
    result = simulate("cpu", {**PATHFINDER, "protocol": "inheritance"})
    k, words = step_at(result, 3), WORDS[lang]   # [3,4): H waits for R, L runs at H's priority
    lab.open(f"{LINK}&step={k + 1}&lang={lang}")   # the fixture's page checks for JavaScript errors
    page = lab.page
    expect(lab.narration()).to_have_text(result["steps"][k]["why"][lang], timeout=TIMEOUT)
    card = page.locator(".locks-card")
    expect(card.locator("h3")).to_have_text(words["card"])
    expect(card.locator("td.holder")).to_have_text("L")
    expect(card.locator("td.waiters")).to_have_text("H")
    expect(card.locator("li.raised")).to_have_text(f"L {words['raised']}")
    expect(card.locator("li.own")).to_have_text([f"H {words['own']}", f"M {words['own']}"])
    expect(page.locator(".events")).to_contain_text(words["event"])
    [chart] = charts(page)
    assert chart["rows"][:3] == ["L", "H", "M"]
    assert all(item in chart["legend"] for item in words["legend"])
    # the waits band: H waits for R over [3, 4), on H's row
    assert chart["bars"]["/"] == [["H", "H: R", 3, 4]]
    lab.shot(test_output, f"cpu-locks-{lang}-1366")
    # one step on: L has released R to H, and is back at its own priority
    page.keyboard.press("ArrowRight")
    expect(lab.narration()).to_have_text(result["steps"][k + 1]["why"][lang], timeout=TIMEOUT)
    expect(card.locator("td.holder")).to_have_text("H")
    expect(card.locator("li.raised")).to_have_count(0)


def test_a_deadlock_is_said_at_its_step(lab, test_output):
    result = simulate("cpu", {"algorithm": "priority-preemptive", "tasks": [
        {"name": "A", "arrival": 0, "burst": 4, "priority": 2, "sections": "R1:0:3;R2:1:1"},
        {"name": "B", "arrival": 1, "burst": 4, "priority": 1, "sections": "R2:0:3;R1:1:1"}]})
    last = len(result["steps"]) - 1
    lab.open(f"{DEADLOCK_LINK}&step={last + 1}")
    alert = lab.page.locator(".locks-card .deadlock")
    expect(alert).to_have_text(result["deadlock"]["why"]["en"], timeout=TIMEOUT)
    expect(lab.narration()).to_contain_text("Deadlock at t=2")
    lab.shot(test_output, "cpu-locks-deadlock-1366")


def test_the_ceiling_preset_compares_with_no_protocol(lab, test_output):
    from app.modes import app_mode

    preset = app_mode("cpu").presets["pathfinder-ceiling"]
    left, right = simulate("cpu", preset.scenario), simulate("cpu", {**preset.scenario, **preset.compare})
    assert (left["tasks"][1]["completion"], right["tasks"][1]["completion"]) == (6, 10)   # H
    lab.open()
    lab.page.locator(".presets select").select_option(label=PRESETS["pathfinder-ceiling"]["title"]["en"])
    expect(lab.page.locator(".compare-right")).to_be_visible(timeout=TIMEOUT)
    expect(lab.page.locator(".compare-diff table")).to_contain_text("Turnaround", timeout=COLD)
    drawn = charts(lab.page)
    assert len(drawn) == 2 and all(chart["rows"][:3] == ["L", "H", "M"] for chart in drawn)
    lab.shot(test_output, "cpu-locks-compare-1366")


def test_predict_shows_the_locks_card_before_the_student_picks(lab, test_output):
    """Predict on the inversion (no protocol): the question for [3,4) offers L and M (H waits for R), and the state
    shown beside it has the Locks card saying L holds R; picking M is right, with the core's explanation."""
    from schedulers.quiz import question
    result = simulate("cpu", PATHFINDER)
    asked = question(result, 4)
    lab.open("mode=cpu&algorithm=priority-preemptive&tasks=L:0:4:priority=3:sections=R%3A1%3A2,"
             "H:2:3:priority=1:sections=R%3A1%3A1,M:3:4:priority=2&step=4")
    page = lab.page
    page.locator(".teach-tabs button", has_text="Predict").click()
    expect(page.locator(".quiz-question")).to_contain_text("t=3 → 4", timeout=TIMEOUT)
    expect(page.locator(".quiz-choice button")).to_have_text(list(asked.candidates))
    card = page.locator(".locks-card")
    expect(card.locator("td.holder")).to_have_text("L")
    lab.shot(test_output, "cpu-locks-predict-1366")
    # the exercise's size fields: each label within its own field's width, none over the next
    expect_size_labels_apart(page)
    page.locator(".quiz-choice button", has_text=asked.answer).click()
    expect(page.locator(".quiz-feedback")).to_contain_text(result["steps"][4]["why"]["en"], timeout=TIMEOUT)
    # ... and in Japanese in presenter mode, where the longest label ("最遅の到着（--max-arrival）") ran over the next
    page.get_by_role("button", name="日本語").click()
    page.get_by_role("button", name="プレゼンターモード").click()
    expect(page.locator(".quiz-size-max_arrival label")).to_contain_text("最遅の到着", timeout=TIMEOUT)
    expect(page.locator(".lab-root").first).to_have_css("font-size", "22px", timeout=TIMEOUT)
    expect_size_labels_apart(page)
    lab.shot(test_output, "cpu-locks-predict-presenter-ja")


def expect_size_labels_apart(page) -> None:
    """The exercise's size fields: each label's text within its own field's width (so none runs over the next)."""
    labels = page.locator("[class*=quiz-size-] label")
    expect(labels).to_have_count(4)
    spans = [labels.nth(k).evaluate("e => { const field = e.parentElement.getBoundingClientRect();"
                                    " const range = document.createRange(); range.selectNodeContents(e);"
                                    " const text = range.getBoundingClientRect();"
                                    " return [field.left, text.left, text.right, field.right] }") for k in range(4)]
    assert all(left - 0.5 <= text_left and text_right <= right + 0.5 for left, text_left, text_right, right in spans), \
        spans
