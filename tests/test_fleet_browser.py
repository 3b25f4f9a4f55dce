"""LLM router mode with a fleet in real Chromium, on the served app (the app tests' `panel serve` fixture and page
helper): a preset loaded from the editor, the servers' rows at a step where a request runs past its estimate, a
cancellation in the strip, the rows and the queues, the replicas preset's fairness card, a link's round trip, bad
input named by its field, and screenshots in both languages and at presenter size. Every expected value comes from
the core in this process."""
from __future__ import annotations


import pytest

from app.presets import choice_label, choices
from app.modes.llm.views import shown
from app.text import t
from schedulers import MODES, simulate
from schedulers.llm.steps import dispatched_so_far, fairness_so_far
from schedulers.trace import step_aligner
from tests.test_app_browser import TIMEOUT, Lab, expect, expect_true
from tests.test_engine_browser import go_to
from tests.test_fleet_app import CANCELS
from tests.test_teach_browser import download, downloaded_csv, expect_text, tab

pytestmark = pytest.mark.browser
CANCELS_QUERY = "mode=llm&algorithm=sfq&servers=2&tenants=A:8+8!12,B:2~6+2,C:4+4!3:join=1"


def holds(result: dict, k: int, lang: str = "en") -> list[str]:
    """What each server's row says it holds at step ``k``, from the step's own record and the dispatch list."""
    step, out = result["steps"][k], []
    for running in step["servers"]:
        item = next((d for d in result["dispatch"] if running and (d["tenant"], d["request"]) ==
                     (running["tenant"], running["request"])), None)
        out.append(t(lang, "batch.free") if item is None else
                   f'{item["tenant"]} #{item["request"]} {step["time"] - item["start"]}/{item["actual"]}')
    return out


def load_preset(lab: Lab, key: str, seed: str | None = None) -> None:
    choice = next(c for c in choices("llm") if c.key == key)
    lab.page.locator(".preset-choice select").select_option(label=choice_label(choice, "en"))
    expect_text(lab.page.locator(".preset-look"), choice.workload.look_for["en"])   # Python has the choice
    if seed is not None:
        box = lab.page.locator(".preset-seed input")
        box.fill(seed)
        box.press("Enter")
    lab.page.locator(".preset-load button").click()


def test_a_preset_shows_the_servers_where_a_request_runs_past_its_estimate_and_its_link_round_trips(
        lab, browser, lab_url, test_output):
    lab.open("mode=llm")
    preset = MODES["llm"].presets["mispredict"]
    expect_text(lab.page.locator(".preset-look"), preset.look_for["en"])
    load_preset(lab, "preset:mispredict")
    result = simulate("llm", preset.make(0))
    steps = result["steps"]
    total = len(steps)
    lab.expect_step(1, total)
    expect(lab.page.locator(".server-row")).to_have_count(result["servers"], timeout=TIMEOUT)
    expect(lab.page.locator(".param-servers input")).to_have_value(str(result["servers"]))
    # A step where B's request runs three times its estimate on one server while the other is busy too.
    k = next(k for k, s in enumerate(steps) if s["kind"] == "dispatch" and s["actual"] != s["cost"]
             and all(s["servers"]))
    go_to(lab, k, total)
    expect(lab.narration()).to_have_text(steps[k]["why"]["en"], timeout=TIMEOUT)
    assert f'charged {steps[k]["cost"]} (its estimate); it runs {steps[k]["actual"]}' in steps[k]["why"]["en"]
    expect(lab.page.locator(".server-row .bar-value")).to_have_text(holds(result, k), timeout=TIMEOUT)
    expect(lab.page.locator(".server-row .req-bar")).to_have_count(dispatched_so_far(result, k), timeout=TIMEOUT)
    expect(lab.page.locator("table.metrics thead")).to_contain_text("Actual service", timeout=TIMEOUT)
    later = next(j for j in range(k + 1, total) if steps[j]["kind"] == "complete")
    go_to(lab, later, total)
    expect(lab.page.locator(".server-row .bar-value")).to_have_text(holds(result, later), timeout=TIMEOUT)
    so_far = fairness_so_far(result, later)["service"]   # the actual service so far, beside the charged one
    expect_text(lab.page.locator(".fairness"), f'those requests got by t={so_far["time"]}')
    lab.shot(test_output, "fleet-mispredict-en-1366")
    link = lab.page.url
    assert "servers=2" in link and "4~12" in link
    # The link in a fresh page: the same run at the same step, in Japanese.
    context = browser.new_context(viewport={"width": 1366, "height": 900}, locale="ja-JP")
    other = Lab(context.new_page(), lab_url)
    other.page.goto(link.replace("lang=en", "lang=ja"))
    expect(other.counter()).to_contain_text(f"ステップ {later + 1}/{total}", timeout=TIMEOUT)
    expect(other.narration()).to_have_text(steps[later]["why"]["ja"], timeout=TIMEOUT)
    expect_text(other.page.locator(".fleet-servers h3"), "サーバー（時間の経過）")
    expect_text(other.page.locator(".fairness"), "実際のサービス")
    assert other.page.locator(".notice li").count() == 0
    other.shot(test_output, "fleet-mispredict-ja-1366")
    context.close()


def test_a_cancellation_shows_in_the_queue_the_strip_and_the_servers(lab, test_output):
    lab.open(CANCELS_QUERY)
    result = simulate("llm", {"algorithm": "sfq", **CANCELS})
    steps, total = result["steps"], len(result["steps"])
    lab.expect_step(1, total)
    waiting = next(k for k, s in enumerate(steps) if s["kind"] == "cancel" and not s["running"])
    go_to(lab, waiting, total)
    expect(lab.narration()).to_have_text(steps[waiting]["why"]["en"], timeout=TIMEOUT)
    expect_text(lab.counter(), "cancellation")
    expect(lab.page.locator(".req.cancelled")).to_have_count(1, timeout=TIMEOUT)
    running = next(k for k, s in enumerate(steps) if s["kind"] == "cancel" and s["running"])
    go_to(lab, running, total)
    expect(lab.narration()).to_have_text(steps[running]["why"]["en"], timeout=TIMEOUT)
    expect(lab.page.locator(".req-bar.cancelled")).to_have_count(1, timeout=TIMEOUT)
    expect(lab.page.locator(".strip .cell.cancelled")).to_have_count(1, timeout=TIMEOUT)
    expect(lab.page.locator(".server-row .bar-value")).to_have_text(holds(result, running), timeout=TIMEOUT)
    lab.shot(test_output, "fleet-cancel-en-1366")
    # In a narrow iframe the page does not scroll sideways and the servers' rows fit (the results table, nine
    # columns with a fleet, scrolls inside its own box).
    lab.page.set_viewport_size({"width": 360, "height": 800})
    rows = lab.page.locator(".fleet-servers").element_handle()
    expect_true(lab.page, "s => document.documentElement.scrollWidth <= 370 && s.scrollWidth <= s.clientWidth + 1",
                rows, "the page or the servers' rows scroll sideways at 360 px")
    lab.shot(test_output, "fleet-cancel-360")


def test_the_replicas_preset_shows_the_whole_systems_difference(lab, test_output):
    replicated = next(c for c in choices("llm") if c.key.startswith("preset:") and "replicas" in c.workload.make(0))
    lab.open("mode=llm")
    load_preset(lab, replicated.key)
    result = simulate("llm", replicated.workload.make(0))
    total = len(result["steps"])
    lab.expect_step(1, total)
    lab.page.locator(".step-last button").first.click()
    lab.expect_step(total, total)
    system = result["system_difference"]
    card = lab.page.locator(".fairness")
    assert system["exceeds"]   # the preset's point: replicas leave one router's 2c̄
    expect_text(card, t("en", "fairness.system", replicas=len(result["replicas"]), gap=shown(system, "max_gap"),
                        bound=shown(system, "bound"), status="broken"))
    expect(lab.page.locator(".replica-meters .replica")).to_have_count(len(result["replicas"]), timeout=TIMEOUT)
    expect_text(card, "Whole system so far (2 routers)")
    expect_text(lab.page.locator(".preset-look"), replicated.workload.look_for["en"])
    lab.shot(test_output, "fleet-replicas-en-1366")


def test_bad_fleet_input_is_named_and_the_run_stays(lab):
    lab.open(CANCELS_QUERY)
    total = len(simulate("llm", {"algorithm": "sfq", **CANCELS})["steps"])
    lab.expect_step(1, total)
    lab.type_into("costs", 1, "2~0 2")
    expect_text(lab.page.locator(".row-editor .field-error"), "Costs (tenants[1].costs[0].actual)")
    lab.expect_step(1, total)   # the previous run stays
    lab.type_into("costs", 1, "2~6 2")
    box = lab.page.locator(".param-replicas input")
    box.fill("3")
    box.press("Enter")
    expect_text(lab.page.locator(".editor .field-error"), "replicas")
    expect(lab.page.locator(".server-row")).to_have_count(2, timeout=TIMEOUT)
    box.fill("")
    box.press("Enter")
    expect(lab.page.locator(".field-error")).to_have_count(0, timeout=TIMEOUT)
    pattern = next(c.key for c in choices("llm") if c.seeded)
    load_preset(lab, pattern, "x1")
    expect_text(lab.page.locator(".preset-problem"), "seed: must be a whole number")
    lab.expect_step(1, total)   # nothing was loaded


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_the_servers_at_presenter_size(browser, lab_url, test_output, lang):
    context = browser.new_context(viewport={"width": 1920, "height": 1080})
    lab = Lab(context.new_page(), lab_url).open(CANCELS_QUERY + f"&lang={lang}&step=12")
    result = simulate("llm", {"algorithm": "sfq", **CANCELS})
    expect(lab.page.locator(".server-row .bar-value")).to_have_text(holds(result, 11, lang), timeout=TIMEOUT)
    lab.page.get_by_role("button", name={"en": "Presenter mode", "ja": "プレゼンターモード"}[lang]).click()
    expect(lab.page.locator(".editor")).to_be_hidden(timeout=TIMEOUT)
    servers = lab.page.locator(".fleet-servers")
    expect(servers).to_be_visible(timeout=TIMEOUT)
    box = servers.bounding_box()
    assert box["y"] + box["height"] <= 1080 and box["width"] >= 800   # on the first screen, across the wall
    lab.page.screenshot(path=test_output / f"fleet-{lang}-presenter-1920x1080.png")
    context.close()


def test_compare_predict_and_export_with_servers(lab, test_output):
    lab.open(CANCELS_QUERY + "&step=9")
    result = simulate("llm", {"algorithm": "sfq", **CANCELS})
    lab.expect_step(9, len(result["steps"]))
    tab(lab, "Compare")
    right = simulate("llm", {"algorithm": "rr", **CANCELS})   # the right side runs on the same two servers
    expect_text(lab.page.locator(".compare-right"), "Right: Per-tenant round robin")
    for side in ("left", "right"):
        expect(lab.page.locator(f".compare-{side} .server-row")).to_have_count(2, timeout=TIMEOUT)
    expect_text(lab.page.locator(".compare-diff"), "share no stretch of dispatches")
    shown_step = 8   # "step 9/…": index 8, at t=6; both sides at the same time (test_fleet_app.py: the figures)
    now = result["steps"][shown_step]["time"]
    aligned = step_aligner(result, right)(shown_step)
    assert right["steps"][aligned]["time"] == now
    expect_text(lab.page.locator(".compare-right"), right["steps"][aligned]["why"]["en"])
    expect_text(lab.page.locator(".compare-diff"), f"Actual service ÷ weight given by t={now} in each run")
    expect_text(lab.page.locator(".compare-diff"), shown(result["fairness"]["service"], "max_gap") + " → "
                + shown(right["fairness"]["service"], "max_gap"))
    lab.shot(test_output, "fleet-compare-en-1366")
    tab(lab, "Predict")
    expect(lab.page.locator(".quiz-score")).to_be_visible(timeout=TIMEOUT)
    lab.page.locator(".quiz-next button").first.click()
    expect(lab.page.locator(".quiz-choice button").first).to_be_visible(timeout=TIMEOUT)
    expect(lab.page.locator(".fleet-servers")).to_be_visible(timeout=TIMEOUT)   # the servers so far, no future
    assert lab.page.locator("table.metrics").count() == 0
    lab.shot(test_output, "fleet-predict-en-1366")
    tab(lab, "Export")
    rows = downloaded_csv(lab, result)
    assert [r["actual_service"] for r in rows[:-1]] == [str(t["actual_service"]) for t in result["tenants"]]
    svg = download(lab, "export-svg").read_text(encoding="utf-8")
    assert "server 0 · A #1: charged 8, runs 8 · cancelled at t=12" in svg
