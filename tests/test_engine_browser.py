"""Engine mode and the CFS view in real Chromium, on the served app (the app tests' `panel serve` fixture and page
helper): the mode's views stepping in the page, its editor and its errors, links, exports, Compare against FCFS and
against the router's SFQ, the quiz; and CFS's vruntime and weight per step. Every expected value comes from the core
in this process."""
from __future__ import annotations

import json
import subprocess
import sys
import xml.etree.ElementTree as ElementTree

import pytest

from app.render import number
from schedulers import simulate
from schedulers.engine import DEFAULT_SCENARIO, llm_scenario
from schedulers.quiz import questions
from tests.test_app_browser import ARTICLE, ROOT, TIMEOUT, Lab, expect
from tests.test_teach_browser import download, downloaded_csv, expect_text, tab

pytestmark = pytest.mark.browser

ENGINE_QUERY = "mode=engine&algorithm={}&tenants=A:4/8x16,B:4/2x12"


def default(algorithm: str = "vtc", **changes) -> dict:
    return {**DEFAULT_SCENARIO, "algorithm": algorithm, **changes}


def go_to(lab: Lab, step: int, total: int) -> None:
    """Step with the keyboard from the first step to ``step`` (0-based), in the page."""
    lab.page.locator(".step-first button").first.click()
    lab.expect_step(1, total)
    lab.page.locator("body").click(position={"x": 5, "y": 5})
    for _ in range(step):
        lab.page.keyboard.press("ArrowRight")
    lab.expect_step(step + 1, total)


def test_engine_mode_steps_through_the_batch_queues_counters_and_fairness(lab, test_output):
    lab.open()
    lab.page.get_by_role("button", name="Inference engine", exact=True).click()
    result = simulate("engine", default())
    steps = result["steps"]
    total = len(steps)
    lab.expect_step(1, total)
    expect(lab.page.locator(".slot-row")).to_have_count(DEFAULT_SCENARIO["slots"], timeout=TIMEOUT)
    # A lift, an admission and a decode: the core's sentence, its counters, its batch and its queues.
    lift = next(k for k, s in enumerate(steps) if s["kind"] == "lift" and s["lift"]["rule"] == "min_waiting")
    go_to(lab, lift, total)
    expect(lab.narration()).to_have_text(steps[lift]["why"]["en"], timeout=TIMEOUT)
    expect_text(lab.counter(), "counter lift")
    decode = next(k for k, s in enumerate(steps) if s["kind"] == "decode" and s["iteration"] == 5)
    go_to(lab, decode, total)
    step = steps[decode]
    expect(lab.narration()).to_have_text(step["why"]["en"], timeout=TIMEOUT)
    counters = lab.page.locator(".engine-counters .bar-value")
    expect(counters).to_have_text([f"C = {number(step['counters'][n])}" for n in ("A", "B")], timeout=TIMEOUT)
    running = [f"{s['tenant']} #{s['request']} {s['generated']}/{s['output']}" if s else "free" for s in step["slots"]]
    expect(lab.page.locator(".slot-row .bar-value")).to_have_text(running, timeout=TIMEOUT)
    for row, name in zip(lab.page.locator(".engine-queues .queue-row").all(), ("A", "B"), strict=True):
        expect(row.locator(".req")).to_have_count(len(step["waiting"][name]), timeout=TIMEOUT)
    live = step["fairness"]
    expect_text(lab.page.locator(".engine-fairness"), f"Both waiting since t={live['since']}")
    expect_text(lab.page.locator(".engine-fairness"), f"the VTC bound is {number(result['fairness']['bound'])}")
    # Nothing from the future: the bars end at the step's time, the table marks the tenants still at work.
    bars = lab.page.locator(".req-bar")
    expect(bars).to_have_count(sum(s["kind"] == "admit" for s in steps[:decode + 1]), timeout=TIMEOUT)
    expect(lab.page.locator("table.metrics tbody tr.pending")).to_have_count(2, timeout=TIMEOUT)
    lab.shot(test_output, "engine-vtc-1366")
    lab.page.locator(".step-last button").first.click()
    lab.expect_step(total, total)
    expect(lab.page.locator("table.metrics tbody tr.pending")).to_have_count(0, timeout=TIMEOUT)
    cells = lab.page.locator("table.metrics tbody tr").first.locator("td")
    expect(cells.nth(3)).to_have_text(str(result["tenants"][0]["service"]), timeout=TIMEOUT)   # weights 1: no column
    # In Japanese: the core's sentences and the app's words.
    lab.page.locator(".bk-btn", has_text="日本語").click()
    expect(lab.narration()).to_have_text(steps[-1]["why"]["ja"], timeout=TIMEOUT)
    expect_text(lab.page.locator(".engine-batch h3"), "バッチのスロット")
    lab.shot(test_output, "engine-vtc-ja")


def test_engine_editor_errors_by_field_parameters_and_a_link(lab, lab_url, test_output):
    lab.open(ENGINE_QUERY.format("fcfs"))
    fcfs = simulate("engine", default("fcfs"))
    lab.expect_step(1, len(fcfs["steps"]))
    lab.type_into("requests", 0, "4/8x")
    error = lab.page.locator(".row-editor .field-error")
    expect_text(error, "Requests (tenants[0].requests)")
    expect_text(error, "group 1 ('4/8x')")
    lab.expect_step(1, len(fcfs["steps"]))   # the previous run stays
    lab.type_into("requests", 0, "4/8x6+2/3@5")
    box = lab.page.locator(".param-slots input")
    box.fill("0")
    box.press("Enter")
    expect_text(lab.page.locator(".editor .field-error"), "slots")
    box.fill("2")
    box.press("Enter")
    tenants = [{"name": "A", "requests": "4/8x6+2/3@5"}, {"name": "B", "requests": "4/2x12"}]
    changed = simulate("engine", default("fcfs", slots=2, tenants=tenants))
    lab.expect_step(1, len(changed["steps"]))
    expect(lab.page.locator(".slot-row")).to_have_count(2, timeout=TIMEOUT)
    expect(lab.page.locator(".field-error")).to_have_count(0, timeout=TIMEOUT)
    expect(lab.page).to_have_url(
        f"{lab_url}?mode=engine&algorithm=fcfs&slots=2&w_in=1&w_out=2&tenants=A:4/8x6+2/3@5,B:4/2x12&step=1&lang=en",
        timeout=TIMEOUT)
    lab.open("mode=engine&algorithm=vtc&slots=3&w_out=3&tenants=A:4/8x4:weight=2,B:2/2x6&step=9")
    linked = simulate("engine", {"algorithm": "vtc", "slots": 3, "w_out": 3, "tenants": [
        {"name": "A", "requests": "4/8x4", "weight": 2}, {"name": "B", "requests": "2/2x6"}]})
    lab.expect_step(9, len(linked["steps"]))
    expect(lab.narration()).to_have_text(linked["steps"][8]["why"]["en"], timeout=TIMEOUT)
    expect(lab.field("weight", 0)).to_have_value("2")
    assert lab.page.locator(".notice li").count() == 0
    lab.open("mode=engine&tenants=A:4/8x4,B:9/9/9")
    expect_text(lab.page.locator(".notice"), "Ignored from the link: tenants[1].requests")
    lab.shot(test_output, "engine-link-notice")


def test_engine_exports_are_the_command_lines(lab, test_output, tmp_path):
    lab.open(ENGINE_QUERY.format("vtc") + "&step=7")
    tab(lab, "Export")
    scenario = default("vtc")
    result = simulate("engine", scenario)
    expect(lab.page.locator(".export-json")).to_be_visible(timeout=TIMEOUT)
    saved = download(lab, "export-json").read_bytes()
    (tmp_path / "scenario.json").write_text(json.dumps(scenario), encoding="utf-8")
    printed = subprocess.run([sys.executable, "-m", "schedulers", "engine", "--scenario",
                              str(tmp_path / "scenario.json"), "--json"],
                             capture_output=True, check=True, cwd=ROOT).stdout
    assert saved == printed and json.loads(saved) == result
    rows = downloaded_csv(lab, result)
    assert [(r["name"], r["service"]) for r in rows[:-1]] == [(t["name"], str(t["service"])) for t in result["tenants"]]
    svg_text = download(lab, "export-svg").read_text(encoding="utf-8")
    (test_output / "engine-chart.svg").write_text(svg_text, encoding="utf-8")
    svg = ElementTree.fromstring(svg_text)
    titles = [node.text for node in svg.iter("{http://www.w3.org/2000/svg}title")]
    assert titles == [f"slot {r['slot']} · {r['tenant']} [{r['admitted']}, {r['finished'] + 1})"
                      for r in result["requests"]]
    link = lab.page.locator(".export-link input").input_value()
    assert link.startswith(lab.base + "?mode=engine") and "step=7" in link
    lab.shot(test_output, "engine-export")


def test_compare_engine_vtc_with_fcfs_and_with_the_routers_sfq(lab, test_output):
    lab.open(ENGINE_QUERY.format("vtc"))
    tab(lab, "Compare")
    right = lab.page.locator(".compare-right")
    expect_text(right, "Right: FCFS")
    vtc, fcfs = simulate("engine", default("vtc")), simulate("engine", default("fcfs"))
    left = lab.page.locator(".compare-left .counter")
    lab.page.locator(".step-last button").first.click()
    expect_text(left, f"step {len(vtc['steps'])}/{len(vtc['steps'])}")
    expect(right.locator(".slot-row")).to_have_count(4, timeout=TIMEOUT)
    latency = lab.page.locator(".compare-table tbody tr", has_text="B: Mean latency")
    b_latency = [number(run["tenants"][1]["mean_latency"]) for run in (vtc, fcfs)]
    expect_text(latency, f"{b_latency[0]} → {b_latency[1]}")
    assert "diff-worse" in latency.locator("td").get_attribute("class")   # FCFS keeps B's short requests waiting
    lab.shot(test_output, "engine-compare-fcfs")
    lab.page.locator(".compare-algorithm select").select_option(label="LLM router: SFQ on the same workload")
    router = simulate("llm", llm_scenario(default("vtc")))
    expect_text(right, "Right: SFQ (weighted)")
    expect(right.locator("ol.strip .cell")).to_have_count(len(router["dispatch"]), timeout=TIMEOUT)
    expect_text(lab.page.locator(".compare-diff"), "estimated at dispatch")
    lab.page.locator(".step-first button").first.click()
    lab.page.locator("body").click(position={"x": 5, "y": 5})
    for _ in range(12):
        lab.page.keyboard.press("ArrowRight")
    expect_text(left, f"step 13/{len(vtc['steps'])}")
    expect(right.locator(".cell.past, .cell.current")).not_to_have_count(0, timeout=TIMEOUT)
    lab.shot(test_output, "engine-compare-router")


def test_the_quiz_in_engine_mode_asks_who_is_admitted(lab, test_output):
    lab.open(ENGINE_QUERY.format("vtc"))
    tab(lab, "Predict")
    result = simulate("engine", default("vtc"))
    first = questions(result)[0]
    lab.page.locator(".quiz-next button").click()   # to the moment before the first admission with a choice
    buttons = lab.page.locator(".quiz-choice button")
    expect(buttons).to_have_count(len(first.candidates), timeout=TIMEOUT)
    expect_text(lab.page.locator(".quiz-question"), f"t={first.time}: a slot is free")
    assert lab.page.locator("table.metrics").count() == 0   # no results of the future
    lab.shot(test_output, "engine-quiz-question")
    lab.page.locator(".quiz-choice button", has_text=first.answer).click()
    expect_text(lab.page.locator(".quiz-feedback"), f"Right: {first.answer}.")
    expect_text(lab.page.locator(".quiz-feedback"), first.why["en"])
    expect_text(lab.page.locator(".quiz-score"), "Score: 1 of 1")


def test_cfs_shows_each_tasks_vruntime_and_weight_per_step(lab, test_output):
    scenario = {"algorithm": "cfs", "tasks": [dict(t, nice=5) if t["name"] == "B" else t for t in ARTICLE["tasks"]]}
    result = simulate("cpu", scenario)
    lab.open("mode=cpu&algorithm=cfs&tasks=A:0:7,B:1:4:nice=5,C:2:1,D:4:3")
    total = len(result["steps"])
    lab.expect_step(1, total)
    go_to(lab, 3, total)
    step = result["steps"][3]
    card = lab.page.locator(".rule-state")
    expect(card.locator(".bar-value")).to_have_text([f"vruntime = {number(v)}" for v in step["vruntime"].values()],
                                                    timeout=TIMEOUT)
    expect(card.locator("tbody td")).to_have_text([str(w) for w in step["weight"].values()], timeout=TIMEOUT)
    assert step["weight"]["B"] == 335   # nice 5, from the Linux table
    lab.shot(test_output, "cfs-vruntime")


def test_the_static_site_runs_engine_mode_in_pyodide(visitor, cdn_site_url, test_output):
    """The built site (Pyodide, no server): an engine link boots, its frames step in the page, and an edit reruns."""
    import site_support
    result = simulate("engine", default("vtc"))
    total = len(result["steps"])
    context, outside = visitor(viewport={"width": 1366, "height": 900})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{cdn_site_url}index.html?{ENGINE_QUERY.format('vtc')}&step=18")
    site_support.wait_for_boot(page)
    counter = page.locator(".counter").first
    expect(counter).to_contain_text(f"step 18/{total}", timeout=30_000)
    expect(page.locator(".why").first).to_have_text(result["steps"][17]["why"]["en"], timeout=30_000)
    expect(page.locator(".slot-row")).to_have_count(4, timeout=30_000)
    page.locator(".step-next button").first.click()
    expect(counter).to_contain_text(f"step 19/{total}", timeout=30_000)
    expect(page.locator(".why").first).to_have_text(result["steps"][18]["why"]["en"], timeout=30_000)
    box = page.locator(".param-slots input")
    box.fill("2")
    box.press("Enter")
    expect(page.locator(".slot-row")).to_have_count(2, timeout=30_000)
    page.screenshot(path=str(test_output / "site-engine.png"), full_page=True)
    assert errors == [] and outside == [], (errors, outside)


def test_your_own_engine_policy_runs_and_its_lines_are_marked(lab, test_output):
    """Your policy in engine mode: the template (least service per weight) runs as the algorithm, steps through
    with the lines its choose() ran marked at an admission, and admits as VTC does on the default scenario."""
    from schedulers.custom import TEMPLATES, run as run_policy
    lab.open(ENGINE_QUERY.format("vtc"))
    tab(lab, "Your policy")
    expect_text(lab.page.locator(".custom-api, body"), "head_input")
    lab.page.locator(".policy-run button").click()
    expect_text(lab.page.locator(".policy-ok"), "Your policy ran")
    expect(lab.page.locator(".editor select").first).to_have_value("Your policy (choose)", timeout=TIMEOUT)
    mine = run_policy("engine", default(), TEMPLATES["engine"])
    vtc = simulate("engine", default())
    assert [a["tenant"] for a in mine["admissions"]] == [a["tenant"] for a in vtc["admissions"]]
    expect(lab.page.locator(".engine-batch")).to_be_visible(timeout=TIMEOUT)   # the preview: the whole run
    tab(lab, "Step through")
    admit = next(k for k, s in enumerate(mine["steps"]) if s["kind"] == "admit")
    go_to(lab, admit, len(mine["steps"]))
    expect(lab.narration()).to_have_text(mine["steps"][admit]["why"]["en"], timeout=TIMEOUT)
    marked = lab.page.locator(".source-view .line.mark")
    expect(marked).to_have_count(len(mine["custom"]["lines"][0]["lines"]), timeout=TIMEOUT)
    lab.shot(test_output, "engine-custom")


def test_engine_mode_fits_a_narrow_iframe(lab, test_output):
    from tests.test_app_browser import expect_fits_360
    lab.open(ENGINE_QUERY.format("vtc") + "&step=18")
    expect(lab.page.locator(".slot-row")).to_have_count(4, timeout=TIMEOUT)
    expect_fits_360(lab, test_output, "engine-vtc-360")
