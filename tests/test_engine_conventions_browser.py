"""Engine mode's conventions in real Chromium, on the served app (the app tests' `panel serve` fixture): the VTC
artifact's preset from a link and from the editor's Conventions card, a prefill step and a decode step of it (the
core's sentence, the batch's running requests, the row of prefill and decode iterations), in English and Japanese,
with screenshots. Every expected value comes from the core in this process."""
from __future__ import annotations

import pytest

from app.model import choice_options
from app.modes import app_mode
from app.modes.engine.views import PRESET_SIDES
from app.render import number
from schedulers import simulate
from schedulers.engine import DEFAULT_SCENARIO
from tests.test_app_browser import TIMEOUT, expect
from tests.test_teach_browser import expect_text, tab

pytestmark = pytest.mark.browser

SCENARIO = {**DEFAULT_SCENARIO, "conventions": "s-lora", "memory": 60}
LINK = "mode=engine&algorithm=vtc&conventions=s-lora&memory=60&tenants=A:4/8x16,B:4/2x12"


def option(name: str, value: str, lang: str = "en") -> str:
    """A choice's words in the editor's list (a Bokeh select's option is its words)."""
    return next(words for words, chosen in choice_options("engine", name, lang).items() if chosen == value)


def marks(steps: list[dict], step: int) -> list[str]:
    """The iteration cells the batch shows at ``step``: one per prefill or decode iteration so far, by its kind."""
    return [f"t={s['iteration']}: {s['kind']}" for s in steps[:step + 1] if s["kind"] in ("prefill", "decode")]


def expect_batch(lab, steps: list[dict], step: int) -> None:
    running = [f"{s['tenant']} #{s['request']} {s['generated']}/{s['output']}" if s else "free"
               for s in steps[step]["slots"]]
    expect(lab.page.locator(".slot-row .bar-value")).to_have_text(running, timeout=TIMEOUT)
    cells = lab.page.locator(".phase-row .phase-cell")
    expect(cells).to_have_count(len(marks(steps, step)), timeout=TIMEOUT)
    expect(lab.page.locator(".phase-row .phase-cell.prefill")).to_have_count(
        sum(m.endswith("prefill") for m in marks(steps, step)), timeout=TIMEOUT)


def test_the_artifact_preset_at_a_prefill_and_a_decode_in_both_languages(lab, test_output):
    result = simulate("engine", SCENARIO)
    steps, total = result["steps"], len(result["steps"])
    prefill = next(k for k, s in enumerate(steps) if s["kind"] == "prefill" and s["iteration"] > 0)
    decode = next(k for k, s in enumerate(steps) if s["kind"] == "decode" and s.get("held_back") and k > prefill)
    lab.open(f"{LINK}&step={prefill + 1}")
    lab.expect_step(prefill + 1, total)
    expect(lab.narration()).to_have_text(steps[prefill]["why"]["en"], timeout=TIMEOUT)
    expect_text(lab.narration(), "Prefill")
    expect_batch(lab, steps, prefill)
    expect_text(lab.page.locator(".engine-batch"), "in the row of iterations a dark cell is a prefill")
    # the card is open, since a convention is set, and shows the preset
    card = lab.page.locator(".card-conventions")
    expect_text(card, app_mode("engine").say("en", "conventions"))
    expect(card.locator(".param-conventions select")).to_be_visible(timeout=TIMEOUT)
    expect(card.locator(".param-conventions select")).to_have_value(option("conventions", "s-lora"), timeout=TIMEOUT)
    lab.shot(test_output, "engine-s-lora-prefill-en")
    # on to a decode that holds new requests back, with the keyboard
    lab.page.locator("body").click(position={"x": 5, "y": 5})
    for _ in range(decode - prefill):
        lab.page.keyboard.press("ArrowRight")
    lab.expect_step(decode + 1, total)
    expect(lab.narration()).to_have_text(steps[decode]["why"]["en"], timeout=TIMEOUT)
    expect_text(lab.narration(), "only after 10 decodes")
    expect_batch(lab, steps, decode)
    lab.shot(test_output, "engine-s-lora-decode-en")
    lab.page.locator(".bk-btn", has_text="日本語").click()
    expect(lab.narration()).to_have_text(steps[decode]["why"]["ja"], timeout=TIMEOUT)
    expect_text(lab.page.locator(".engine-batch"), "濃いセルはプリフィル")
    expect_text(lab.page.locator(".card-conventions"), app_mode("engine").say("ja", "conventions"))
    lab.shot(test_output, "engine-s-lora-decode-ja")
    lab.page.locator("body").click(position={"x": 5, "y": 5})
    for _ in range(decode - prefill):
        lab.page.keyboard.press("ArrowLeft")
    expect(lab.counter()).to_contain_text(f"ステップ {prefill + 1}/{total}", timeout=TIMEOUT)
    expect_text(lab.counter(), "プリフィル反復")
    expect(lab.narration()).to_have_text(steps[prefill]["why"]["ja"], timeout=TIMEOUT)
    expect_batch(lab, steps, prefill)
    lab.shot(test_output, "engine-s-lora-prefill-ja")


def test_the_preset_picked_in_the_folded_card_runs_and_goes_in_the_link(lab, lab_url, test_output):
    lab.open("mode=engine&algorithm=vtc&tenants=A:4/8x16,B:4/2x12")
    lab.expect_step(1, len(simulate("engine", DEFAULT_SCENARIO)["steps"]))
    select = lab.page.locator(".card-conventions .param-conventions select")
    expect(select).to_be_hidden(timeout=TIMEOUT)   # folded while every convention is the lab's
    lab.page.locator(".card-conventions .card-header").click()
    expect(select).to_be_visible(timeout=TIMEOUT)
    select.select_option(label=option("conventions", "s-lora"))
    preset = simulate("engine", {**DEFAULT_SCENARIO, "conventions": "s-lora"})
    lab.expect_step(1, len(preset["steps"]))
    lab.page.locator(".card-conventions .param-loop select").select_option(label=option("loop", "mixed"))
    beside = simulate("engine", {**DEFAULT_SCENARIO, "conventions": "s-lora", "loop": "mixed"})
    lab.expect_step(1, len(beside["steps"]))
    expect(lab.page).to_have_url(f"{lab_url}?mode=engine&algorithm=vtc&conventions=s-lora&loop=mixed&slots=4"
                                 "&w_in=1&w_out=2&tenants=A:4/8x16,B:4/2x12&step=1&lang=en", timeout=TIMEOUT)
    lab.page.locator(".step-last button").first.click()
    lab.expect_step(len(beside["steps"]), len(beside["steps"]))
    expect(lab.narration()).to_have_text(beside["steps"][-1]["why"]["en"], timeout=TIMEOUT)
    expect(lab.page.locator(".phase-row")).to_have_count(0, timeout=TIMEOUT)   # the mixed loop: no prefills
    lab.shot(test_output, "engine-s-lora-card")


def test_compare_the_lab_beside_the_artifact_preset_in_both_languages(lab, test_output):
    lab.open("mode=engine&algorithm=vtc&tenants=A:4/8x16,B:4/2x12")
    tab(lab, "Compare")
    lab.page.locator(".compare-algorithm select").select_option(
        label=PRESET_SIDES["conventions-s-lora"].words["en"])
    ours = simulate("engine", DEFAULT_SCENARIO)
    theirs = simulate("engine", {**DEFAULT_SCENARIO, "conventions": "s-lora"})
    right = lab.page.locator(".compare-right")
    expect_text(right, "Right: VTC (virtual token counter), conventions s-lora")
    lab.page.locator(".step-last button").first.click()
    expect_text(lab.page.locator(".compare-left .counter"), f"step {len(ours['steps'])}/{len(ours['steps'])}")
    expect(right.locator(".phase-row")).to_have_count(1, timeout=TIMEOUT)
    expect(lab.page.locator(".compare-left .phase-row")).to_have_count(0, timeout=TIMEOUT)
    latency = lab.page.locator(".compare-table tbody tr", has_text="B: Mean latency")
    expect_text(latency, " → ".join(number(run["tenants"][1]["mean_latency"]) for run in (ours, theirs)))
    lab.shot(test_output, "engine-s-lora-compare-en")
    lab.page.locator(".bk-btn", has_text="日本語").click()
    expect_text(lab.page.locator(".compare-right"), "規約 s-lora")
    lab.shot(test_output, "engine-s-lora-compare-ja")
