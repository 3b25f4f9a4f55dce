"""Engine mode in the app without a browser: the model's rows, errors and links, what the views draw at a step
against the core's trace (and nothing after it), Compare's alignment and differences, the quiz's exercises."""
from __future__ import annotations

import re
from fractions import Fraction

import pytest

pytest.importorskip("panel")

from app import frames
from app.compare import CompareView, comparable
from app.model import Lab
from app.modes import app_mode
from app.modes.engine.views import ROUTER, SPAN, EngineView, axis, service_diff
from app.quiz import QuizView
from schedulers import simulate
from schedulers.engine import DEFAULT_SCENARIO, llm_scenario
from schedulers.engine.steps import moments, service_so_far
from schedulers.exercises import engine_exercise
from schedulers.trace import step_aligner


def engine_lab(**params) -> Lab:
    lab = Lab(**params)
    lab.mode = "engine"
    return lab


def test_the_default_engine_run_is_the_cores_default_scenario():
    lab = engine_lab()
    assert lab.algorithm == "vtc" and lab.errors == {}
    assert lab.result == simulate("engine", DEFAULT_SCENARIO)
    assert lab.link() == "mode=engine&algorithm=vtc&slots=4&w_in=1&w_out=2&tenants=A:4/8x16,B:4/2x12&step=1&lang=en"


def test_a_bad_field_is_named_and_the_previous_run_stays():
    lab = engine_lab()
    before = lab.result
    lab.rows[1].requests = "4/0x3"
    assert list(lab.errors) == ["tenants[1].requests"] and "group 1 ('4/0x3'): output" in lab.errors[
        "tenants[1].requests"]
    assert lab.result is before
    lab.rows[1].requests = "4/2x3"
    lab.set_parameter("w_out", "0")
    assert list(lab.errors) == ["w_out"] and lab.result["tenants"][1]["requests"] == 3
    lab.set_parameter("w_out", "3/2")
    assert lab.errors == {} and lab.result["parameters"]["exact"]["w_out"] == "3/2"
    lab.set_parameter("memory", "4")
    assert lab.errors.keys() == {"tenants[0].requests"}   # an input of 4 and its first token cannot fit


def test_a_link_restores_an_engine_setup_and_reports_what_it_cannot_use():
    lab = Lab()
    lab.restore("?mode=engine&algorithm=vtc-predict&prediction=3&tenants=A:4/8~2x3:weight=2,B:2/2x4@1&step=6")
    assert (lab.mode, lab.algorithm, lab.step, lab.notices) == ("engine", "vtc-predict", 5, [])
    expected = simulate("engine", {"algorithm": "vtc-predict", "prediction": 3, "tenants": [
        {"name": "A", "requests": "4/8~2x3", "weight": 2}, {"name": "B", "requests": "2/2x4@1"}]})
    assert lab.result == expected
    other = Lab()
    other.restore("?mode=engine&tenants=A:4/8x2,B:9/9/9")
    assert [field for field, _ in other.notices] == ["tenants[1].requests"]
    assert other.mode == "engine" and other.result == simulate("engine", DEFAULT_SCENARIO)   # the link's rows dropped


def test_the_batch_shows_each_admitted_request_up_to_the_step_and_never_later():
    result = simulate("engine", DEFAULT_SCENARIO)
    view = EngineView(result, "en")
    for k, step in enumerate(result["steps"]):
        html = view.batch(k)
        admitted = sum(s["kind"] == "admit" for s in result["steps"][:k + 1])
        assert html.count('class="req-bar') == admitted
        widths = [float(w) for w in re.findall(r"width:([\d.]+)%", html)]
        now = view.now(k)
        lefts = [float(x) for x in re.findall(r'req-bar[^"]*" style="left:([\d.]+)%', html)]
        assert all(left + width <= 100 * now / result["summary"]["iterations"] + 0.02
                   for left, width in zip(lefts, widths))   # no bar reaches past now
        running = re.findall(r'<span class="bar-value">([^<]*)</span>', html)
        assert running == [f"{s['tenant']} #{s['request']} {s['generated']}/{s['output']}" if s else "free"
                           for s in step["slots"]]


def test_counters_show_the_lift_and_fcfs_only_counts():
    scenario = {"algorithm": "vtc", "slots": 1, "tenants": [{"name": "A", "requests": "2/4x3"},
                                                             {"name": "B", "requests": "2/1@5"}]}
    result = simulate("engine", scenario)
    view = EngineView(result, "en")
    lift = next(k for k, s in enumerate(result["steps"]) if s["kind"] == "lift" and s["lift"]["raised"])
    step = result["steps"][lift]
    html = view.counters(lift)
    assert f"B lifted: {step['lift']['before']} → {step['lift']['after']}" in html and 'class="vline"' in html
    assert re.findall(r'class="bar-value">C = (\d+)<', html) == [str(step["counters"][n]) for n in ("A", "B")]
    fcfs = simulate("engine", {**scenario, "algorithm": "fcfs"})
    unread = EngineView(fcfs, "en").counters(3)   # FCFS counts as VTC does, and says it never reads them
    assert "never reads them" in unread and "never reads" not in html


def test_service_and_fairness_are_the_steps_own():
    result = simulate("engine", DEFAULT_SCENARIO)
    view = EngineView(result, "en")
    decode = next(k for k, s in enumerate(result["steps"]) if s["kind"] == "decode" and s.get("fairness"))
    live = result["steps"][decode]["fairness"]
    text = view.fairness(decode)
    assert f"since t={live['since']}" in text and f"is {live['gap']} (widest in this stretch {live['widest']})" in text
    assert f"the VTC bound is {result['fairness']['bound']}: holds" in text
    service = view.service(decode)
    assert all(f"{name}</span> {value}" in service for name, value in result["steps"][decode]["service"].items())
    assert service_so_far(result, decode) == {n: Fraction(v) for n, v in result["steps"][decode]["service"].items()}
    single = simulate("engine", {"tenants": [{"name": "A", "requests": "1/1"}]})
    assert "One tenant" in EngineView(single, "en").fairness(0)


def test_compare_aligns_engine_runs_and_the_router_at_the_same_moment():
    vtc = simulate("engine", DEFAULT_SCENARIO)
    fcfs = simulate("engine", {**DEFAULT_SCENARIO, "algorithm": "fcfs"})
    router = simulate("llm", llm_scenario(DEFAULT_SCENARIO))
    to_fcfs, to_router = step_aligner(vtc, fcfs), step_aligner(vtc, router)
    mine, theirs = moments(vtc), moments(fcfs)   # (iteration, phase, admission within it)
    for k, step in enumerate(vtc["steps"]):
        j = to_fcfs(k)   # the last of FCFS's steps not after this moment
        assert theirs[j] <= mine[k] and (j + 1 == len(theirs) or theirs[j + 1] > mine[k])
        if step["kind"] != "initial":
            assert router["steps"][to_router(k)]["time"] <= step["iteration"]
    assert comparable(vtc, router) and comparable(vtc, fcfs) and not comparable(router, vtc)
    last = len(vtc["steps"]) - 1
    table = service_diff(vtc, last, router, to_router(last), "en")
    assert "estimated at dispatch" in table and "320 → " in table
    lab = engine_lab()
    compare = CompareView(lab)
    assert compare.algorithm == "fcfs" and compare.result == fcfs
    compare.set_algorithm(ROUTER)
    assert compare.result == router and compare.error == ""
    built = frames.compare_frames(vtc, router, "en", ("VTC", "SFQ")).window(last)
    assert {"compare.left.batch", "compare.right.strip", "compare.diff"} <= set(built["slots"])


def test_the_quiz_loads_an_engine_exercise_into_the_editor():
    lab = engine_lab()
    quiz = QuizView(lab)
    quiz.load("7")
    exercise = engine_exercise(7)
    assert [row.as_text() for row in lab.rows] == [{"weight": "", **app_mode("engine").typed(t)}
                                                              for t in exercise["tenants"]]
    assert lab.result == simulate("engine", {**exercise, "algorithm": "vtc"})   # its slots too
    assert "python -m schedulers engine --seed 7 --algorithm vtc --slots 2" in quiz.cli_note("en")
    quiz.shown = True
    parts = quiz.known_state(lab.result, lab.step, "en")
    html = "".join(str(getattr(p, "object", "")) for p in parts)
    assert "table" not in html and "engine-batch" in html


def test_a_long_compact_run_pages_the_batch_and_carries_the_counters():
    """A run too large for a full trace: its counters at any step are each tenant's latest change, the batch's axis
    is a page of SPAN iterations around now with every bar inside it, and a window of frames keeps to its budget."""
    scenario = {"algorithm": "vtc", "slots": 16, "tenants": [{"name": "A", "requests": "4/8x2000"},
                                                             {"name": "B", "requests": "4/2x3000"},
                                                             {"name": "C", "requests": "2/5x1000"}]}
    result = simulate("engine", scenario)
    assert result["trace"]["level"] == "compact"
    view = EngineView(result, "en")
    steps = result["steps"]
    for k in range(0, len(steps), 397):
        latest = {}
        for earlier in reversed(steps[:k + 1]):
            for name, value in earlier.get("counters", {}).items():
                latest.setdefault(name, value)
        assert view.counters_at(k) == {name: latest.get(name, 0) for name in "ABC"}
        now = view.now(k)
        low, high = axis(result["summary"]["iterations"], now)
        assert high - low == SPAN and low <= now <= high and (low < now or now == 0)
        html = view.batch(k)
        places = [float(x) for x in re.findall(r"(?:left|width):([\d.]+)%", html)]
        assert places and all(0 <= x <= 100 for x in places)
    built = frames.lab_frames(result, "en", lambda k: "").window(len(steps) // 2)
    assert frames.window_bytes(built) < 1.2 * frames.WINDOW_BYTES and built["end"] - built["start"] >= frames.MIN_STEPS


def test_the_last_step_gives_the_whole_runs_fairness_and_no_earlier_step_does():
    """The numbers of docs/engine.md: on the default scenario FCFS drifts 240 apart over t=0 … 23, past the bound
    of 192, VTC 24; the whole run's figure is shown at the last step only (before it, it would be the future)."""
    for algorithm, words in (("fcfs", "the widest difference was 240, over t=0 … 23; bound 192: broken"),
                             ("vtc", "the widest difference was 24, over t=10 … 15; bound 192: holds")):
        result = simulate("engine", {**DEFAULT_SCENARIO, "algorithm": algorithm})
        view = EngineView(result, "en")
        last = len(result["steps"]) - 1
        assert words in view.fairness(last)
        assert not any("Over the whole run" in view.fairness(k) for k in range(last))
