"""Engine mode's conventions in the app without a browser: the editor's parameters and their words, links, Compare's
presets, the exports, and the batch view's prefill and decode iterations against the core's trace."""
from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

pytest.importorskip("panel")

from app import query
from app.compare import CompareView
from app.exports import algorithm_title
from app.model import Lab, choice_options
from app.modes import app_mode
from app.modes.engine.views import PRESET_SIDES, EngineView, axis
from schedulers import schema, simulate
from schedulers.engine import DEFAULT_SCENARIO
from schedulers.engine.scenario import CONVENTION_FIELDS
from schedulers.export import trace_json

NAME = "engine"
CARD = app_mode(NAME).cards[0]


def engine_lab() -> Lab:
    lab = Lab()
    lab.mode = NAME
    return lab


def test_the_card_holds_the_preset_and_every_convention_with_words_for_each_choice():
    assert CARD.parameters == ("conventions", *CONVENTION_FIELDS) and CARD.preset == "conventions"
    for lang in ("en", "ja"):
        assert app_mode(NAME).say(lang, CARD.title) and app_mode(NAME).say(lang, "conventions.unset")
        for name in CARD.parameters:
            field = schema(NAME).field(name)
            if field.type not in ("choice", "boolean"):
                continue
            options = choice_options(NAME, name, lang)
            assert set(options.values()) == {"", *(field.choices or ("true", "false"))}
            assert all(label and "option." not in label for label in options)
    # the preset's empty option is its default; a convention's follows the preset
    assert next(iter(choice_options(NAME, "conventions", "en"))) == "default: the lab's (lab)"
    assert next(iter(choice_options(NAME, "lift", "ja"))) == "プリセットのとおり"
    assert choice_options(NAME, "charge_first_token", "en") == {"as the preset says": "", "charged (true)": "true",
                                                               "free (false)": "false"}


def test_the_editor_runs_the_preset_and_a_convention_beside_it_and_never_fills_a_choice():
    lab = engine_lab()
    lab.set_parameter("conventions", "s-lora")
    assert lab.errors == {} and lab.result == simulate(NAME, {**DEFAULT_SCENARIO, "conventions": "s-lora"})
    # the run used every convention, but a choice left empty stays empty (it follows the preset)
    assert all(lab.parameters.get(name, "") == "" for name in ("lift", "ties", "charge_first_token", "loop",
                                                               "reserve"))
    lab.set_parameter("charge_first_token", "true")
    assert lab.result["parameters"]["charge_first_token"] is True and lab.result["parameters"]["loop"] == \
        "prefill-decode"
    before = lab.result
    lab.set_parameter("lift", "sometimes")
    assert list(lab.errors) == ["lift"] and lab.result is before
    lab.set_parameter("lift", "")
    lab.set_parameter("conventions", "lab")
    lab.set_parameter("charge_first_token", "")
    assert lab.errors == {} and lab.result == simulate(NAME, DEFAULT_SCENARIO)


def test_a_link_carries_the_conventions_both_ways():
    lab = engine_lab()
    lab.set_parameter("conventions", "s-lora")
    lab.set_parameter("reserve", "input+output")
    lab.set_parameter("charge_first_token", "false")
    link = lab.link()
    assert "conventions=s-lora" in link and "reserve=input%2Boutput" in link and "charge_first_token=false" in link
    other = Lab()
    other.restore("?" + link)
    assert other.notices == [] and other.mode == NAME and other.result == lab.result
    setup, problems = query.decode(link, [field.name for field in schema(NAME).parameters])
    assert problems == [] and setup["parameters"]["reserve"] == "input+output"
    restored = Lab()
    restored.restore("?mode=engine&algorithm=vtc&conventions=s-lora&loop=mixed&tenants=A:4/8x4,B:4/2x4&step=3")
    assert restored.result["parameters"]["loop"] == "mixed" and restored.result["parameters"]["ties"] == \
        "first-arrival"


def test_compare_offers_the_same_rule_under_each_preset():
    lab = engine_lab()
    lab.set_parameter("lift", "waiting-only")   # beside the lab's preset; the s-lora side is the pure preset
    compare = CompareView(lab)
    compare.set_algorithm("conventions-s-lora")
    assert compare.error == ""
    assert compare.result == simulate(NAME, {**DEFAULT_SCENARIO, "conventions": "s-lora"})
    compare.set_algorithm("conventions-lab")
    assert compare.result == simulate(NAME, DEFAULT_SCENARIO)
    assert set(PRESET_SIDES) == {"conventions-s-lora", "conventions-lab"}
    for side in PRESET_SIDES.values():
        assert set(side.words) == {"en", "ja"}


def test_the_exports_say_the_conventions_and_the_json_is_the_command_lines():
    lab = engine_lab()
    lab.set_parameter("conventions", "s-lora")
    title = algorithm_title(lab.result, "en")
    assert "conventions s-lora" in title and "charge_first_token false" in title and "False" not in title
    done = subprocess.run([sys.executable, "-m", "schedulers", "engine", "--scenario", "-", "--json"],
                          input=json.dumps(lab.scenario()), capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout == trace_json(lab.result)


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_the_batch_shows_prefill_and_decode_iterations_apart_up_to_the_step(lang):
    result = simulate(NAME, {**DEFAULT_SCENARIO, "conventions": "s-lora", "memory": 60})
    view = EngineView(result, lang)
    steps = result["steps"]
    for k in range(len(steps)):
        html = view.batch(k)
        marks = [(int(i), kind) for kind, i in re.findall(r'class="phase-cell (\w+)"[^>]*title="t=(\d+)', html)]
        expected = [(s["iteration"], s["kind"]) for s in steps[:k + 1] if s["kind"] in ("prefill", "decode")]
        low, high = axis(view.iterations, view.now(k))
        assert marks == [(i, kind) for i, kind in expected if low <= i < high]   # nothing after the step
    # at a decode the running request's bar has the tokens the trace says, not one per iteration
    decode = next(k for k, s in enumerate(steps) if s["kind"] == "decode" and s["iteration"] == 12)
    running = next(slot for slot in steps[decode]["slots"] if slot)
    assert f'{running["tenant"]} #{running["request"]} {running["generated"]}/{running["output"]}' in view.batch(decode)
    assert "prefill-decode" in view.batch(decode)
    # the lab's loop draws no row of iterations
    assert "phase-cell" not in EngineView(simulate(NAME, DEFAULT_SCENARIO), lang).batch(10)
