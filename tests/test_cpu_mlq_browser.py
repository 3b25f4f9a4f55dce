"""MLQ in the served lab, in Chromium (issue 22 item 3): pick MLQ, give a task a class, edit the classes in their
compact form, and see the run; the narration names the class and rule that decided, in English and Japanese.

Every expected value comes from ``schedulers.simulate`` in this process; screenshots go to test-output/.
"""
from __future__ import annotations

import pytest

pytest.importorskip("panel")
playwright_api = pytest.importorskip("playwright.sync_api")
expect = playwright_api.expect

from schedulers import simulate  # noqa: E402
from tests.test_app_browser import TIMEOUT  # noqa: E402

pytestmark = pytest.mark.browser

# The article's tasks, A in class 1 (FCFS), the others in class 0 under RR q=3: A [0, 1); B preempts it at 1 and runs
# [1, 4); at 4 D arrives ahead of B's requeue: C [4, 5), D [5, 8), B [8, 9); then A [9, 15).
ARTICLE = [("A", 0, 7), ("B", 1, 4), ("C", 2, 1), ("D", 4, 3)]
SCENARIO = {"algorithm": "mlq", "classes": "rr:quantum=3;fcfs", "tasks": [
    {"name": name, "arrival": arrival, "burst": burst, **({"class": 1} if name == "A" else {})}
    for name, arrival, burst in ARTICLE]}


def test_pick_mlq_edit_a_class_and_see_the_run(lab, test_output):
    result = simulate("cpu", SCENARIO)
    assert "".join(result["timeline"]) == "ABBBCDDDBAAAAAA"
    lab.open("mode=cpu&lang=en")
    lab.choose_algorithm("cpu", "mlq")
    expect(lab.page.locator(".field-class input")).to_have_count(len(ARTICLE), timeout=TIMEOUT)
    classes = lab.page.locator(".param-classes input")
    expect(classes).to_have_value("rr:quantum=2;fcfs", timeout=TIMEOUT)   # the core's default
    lab.type_into("class", 0, "1")
    classes.fill("rr:quantum=3;fcfs")
    classes.press("Enter")
    lab.expect_step(1, len(result["steps"]))
    completions = {row["name"]: str(row["completion"]) for row in result["tasks"]}
    rows = lab.page.locator("table.metrics tbody tr")
    for index, (name, _, _) in enumerate(ARTICLE):
        expect(rows.nth(index).locator("td").nth(2)).to_have_text(completions[name], timeout=TIMEOUT)
    lab.shot(test_output, "cpu-mlq-en-1366")
    # A bad rule is told on the classes field, naming the entry; the last valid run stays.
    classes.fill("rr:quantum=3;mlfq")
    classes.press("Enter")
    expect(lab.page.locator(".editor .field-error").first).to_contain_text("classes[1].rule", timeout=TIMEOUT)
    expect(rows.nth(0).locator("td").nth(2)).to_have_text(completions["A"])
    lab.shot(test_output, "cpu-mlq-error-en-1366")


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_the_narration_names_the_class_and_rule_that_decided(lab, test_output, lang):
    result = simulate("cpu", SCENARIO)
    k = 2   # the slice [1, 2): B (class 0, RR q=3) preempts A (class 1, FCFS)
    link = "mode=cpu&algorithm=mlq&classes=rr%3Aquantum%3D3%3Bfcfs&tasks=A:0:7:class=1,B:1:4,C:2:1,D:4:3"
    lab.open(f"{link}&step={k + 1}&lang={lang}")
    expect(lab.narration()).to_have_text(result["steps"][k]["why"][lang], timeout=TIMEOUT)
    expect(lab.narration()).to_contain_text({"en": "class 0 (RR, q=3)", "ja": "クラス0（RR、q=3）"}[lang])
    lab.shot(test_output, f"cpu-mlq-narration-{lang}-1366")


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_the_preset_compares_mlq_with_plain_rr(lab, test_output, lang):
    from app.modes import app_mode

    preset = app_mode("cpu").presets["mlq-batch-waits"]
    left, right = simulate("cpu", preset.scenario), simulate("cpu", {**preset.scenario, **preset.compare})
    lab.open(f"mode=cpu&lang={lang}")
    lab.page.locator(".presets select").select_option(label=preset.words["label"][lang])
    expect(lab.page.locator(".compare-right")).to_be_visible(timeout=TIMEOUT)
    # Compare's first build may take up to a minute on a loaded machine (two charts)
    expect(lab.page.locator(".compare-diff table")).to_contain_text(
        {"en": "Turnaround", "ja": "ターンアラウンド"}[lang], timeout=60_000)
    averages = [left["averages"]["turnaround"], right["averages"]["turnaround"]]
    assert averages == [6.5, 8.75]
    for value in ("6.50", "8.75"):
        expect(lab.page.locator(".compare-diff table")).to_contain_text(value, timeout=TIMEOUT)
    lab.shot(test_output, f"cpu-mlq-compare-{lang}-1366")
