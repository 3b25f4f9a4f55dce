"""The seam is real on the app's side too: the tests' toy mode (the core's ``tests/toy_mode``, the app's
``tests/toy_app``: one printer, whole jobs), registered and named nowhere else, runs through the lab: its state and
links (``app.model``), its frames (``app.frames``: every step's counter, rule source, pictures and table), Compare,
the quiz, the exports, the pager's Python side (``Stepping``), and the served app in Chromium, where the pager steps
its frames exactly as Python renders them."""
from __future__ import annotations

import re
from importlib import import_module

import pytest

pytest.importorskip("panel")

import app.modes
from app import frames, render
from app.exports import chart_svg
from app.model import Lab
from app.quiz import QuizView
from app.source import SourceView
from app.text import LABELS, SHORT, TEXT
from schedulers import simulate
from schedulers.modes import ENVIRONMENT, MODES

NAME, CORE, APP = "toy", "tests.toy_mode", "tests.toy_app"
JOBS = "jobs=A:3,B:2:arrival=1,C:1:arrival=1,D:1:arrival=9"
QUERY = f"mode={NAME}&algorithm=fewest&{JOBS}"
SCENARIO = {"algorithm": "fewest", "jobs": [{"name": "A", "pages": 3}, {"name": "B", "arrival": 1, "pages": 2},
                                            {"name": "C", "arrival": 1, "pages": 1},
                                            {"name": "D", "arrival": 9, "pages": 1}]}
MARKED = re.compile(r'<span class="line mark[^"]*" data-line="\d+"><span class="no">\d+</span>([^<]*)</span>')


@pytest.fixture
def toy():
    """The toy mode in the core's registry and the app's, for this test only (its words taken away after)."""
    MODES.register(NAME, CORE)
    app.modes.register(NAME, APP)
    toy_app = import_module(APP)
    toy_app.add_words()   # again, when an earlier test took them away from the module imported then
    try:
        yield simulate(NAME, SCENARIO)
    finally:
        toy_app.remove_words()
        app.modes.unregister(NAME)
        MODES.unregister(NAME)


def test_the_lab_holds_the_toy_mode_and_its_links_round_trip(toy):
    lab = Lab()
    assert list(lab.states) == ["cpu", "llm", "engine", NAME] and lab.param.mode.objects[-1] == NAME
    lab.restore(QUERY + "&step=3")
    assert (lab.mode, lab.algorithm, lab.step, lab.notices, lab.errors) == (NAME, "fewest", 2, [], {})
    assert lab.result == toy and lab.link() == QUERY + "&step=3&lang=en"
    lab.rows[1].pages = "0"                          # the core's message, by the field it names
    assert list(lab.errors) == ["jobs[1].pages"] and lab.result == toy
    lab.rows[1].pages = "2"
    lab.mode = "cpu"                                 # the other modes keep their own inputs
    assert lab.algorithm == "fcfs" and lab.result["mode"] == "cpu"
    lab.mode = NAME
    assert lab.result == toy


def test_every_step_of_the_toy_runs_through_the_frames(toy):
    lab = Lab()
    lab.restore(QUERY)
    source = SourceView(lab)
    built = frames.lab_frames(toy, "en", source.card)
    window = built.window(0)
    steps = toy["steps"]
    assert window["slots"] == ["counter", "source", "state", "metrics"] and window["end"] == len(steps)
    for k, step in enumerate(steps):
        content = window["contents"][window["frames"][k][0]]
        assert "".join(window["chunks"][c] for c in content) == (render.step_counter(toy, k, "en")
                                                                 + render.narration(step, "en"))
        card = built.slots["source"](k)
        assert "tests/toy_mode/policies.py" in card and "class FewestPages(Policy):" in card
        marked = MARKED.findall(card)   # the rule is asked at a print: its pick is highlighted there
        assert (step["kind"] == "print") == bool(marked) and all("pick" in m or m.startswith("  ") for m in marked)
        assert f'>{step.get("job", "")}<' in built.slots["state"](k) or "job" not in step
    table = built.slots["metrics"](len(steps) - 1)
    assert "Pages" in table and "Done" in table and "<td>10</td>" in table   # its own column words, D done at 10
    assert "step 6/6" in built.slots["counter"](5) and "t=9 → 10" in built.slots["counter"](5)


def test_compare_the_quiz_and_the_exports_take_the_toy_mode(toy):
    first = simulate(NAME, {**SCENARIO, "algorithm": "first"})
    window = frames.compare_frames(toy, first, "en", ("Fewest", "First")).window(0)
    assert {"compare.left", "compare.left.printer", "compare.right", "compare.right.printer",
            "compare.diff"} <= set(window["slots"])
    lab = Lab()
    lab.restore(QUERY)
    quiz = QuizView(lab)
    quiz.shown = True
    board = quiz.board()
    assert "no choice to predict" in "".join(str(getattr(part, "object", "")) for part in board.objects)
    svg = chart_svg(toy, "en")
    assert "Jobs printed (Fewest pages)" in svg and svg.count("<rect") == 1 + len(toy["jobs"])


def test_the_pagers_python_side_steps_the_toy_mode(toy):
    from app.ui import LabUI
    lab = Lab()
    ui = LabUI(lab)
    ui.page()
    lab.restore(QUERY)
    pager = ui.stepping.pager
    assert pager.window["total"] == len(toy["steps"]) and pager.window["slots"][2:] == ["state", "metrics"]
    jump = pager.target[0]

    class Told:   # the page's message: it stepped to step 3 after Python's latest jump
        data = {"jump": jump, "step": 3}
    ui.stepping._told(Told())
    assert lab.step == 3 and pager.target == [jump, 3]
    lab.go(1)   # Python's own step is a counted jump the page follows
    assert pager.target == [jump + 1, 1]


def test_the_toy_modes_words_are_there_while_it_is_registered(toy):
    """What tests/test_app_words.py asks of every mode holds for the toy (it brings its own words)."""
    from tests import test_app_words
    for check in (test_app_words.test_every_field_and_parameter_of_every_mode_has_a_label,
                  test_app_words.test_every_column_of_a_results_table_has_its_heading_and_its_short_one,
                  test_app_words.test_every_list_of_rows_and_every_mode_has_its_words):
        check()
    assert {"pages", "done", "job"} <= set(LABELS) and "pages" in SHORT and "add.jobs" in TEXT


@pytest.mark.browser
def test_the_served_app_steps_the_toy_modes_frames(toy, browser, test_output):
    """`panel serve app/lab.py` with the toy mode registered from the environment (the core's SCHEDULERS_MODES, the
    app's LAB_APP_MODES): its button in the header, and the pager showing every step as Python renders it."""
    from conftest import panel_server

    from tests.pager_support import expect_frame
    from tests.test_app_browser import TIMEOUT, expect
    from tests.test_app_browser import Lab as Page
    env = {ENVIRONMENT: f"{NAME}={CORE}", app.modes.ENVIRONMENT: f"{NAME}={APP}"}
    with panel_server(test_output / "panel-serve-toy.log", env=env) as (url, _):
        context = browser.new_context(viewport={"width": 1366, "height": 900}, locale="en-US")
        errors: list[str] = []
        page = context.new_page()
        page.on("pageerror", lambda error: errors.append(str(error)))
        lab = Page(page, url).open(QUERY)
        expect(page.get_by_role("button", name="Printer (toy)")).to_be_visible(timeout=TIMEOUT)
        expect(page.locator(".slot-source .line").first).to_contain_text("class FewestPages", timeout=TIMEOUT)
        state = Lab()
        state.restore(QUERY)
        built = frames.lab_frames(state.result, "en", SourceView(state).card)
        expect_frame(page, toy, built, 0)
        page.locator("body").click(position={"x": 5, "y": 5})
        for k in range(1, len(toy["steps"])):
            page.keyboard.press("ArrowRight")
            expect_frame(page, toy, built, k)
        expect(page.locator(".slot-source .line.mark").first).to_contain_text("def pick", timeout=TIMEOUT)
        page.keyboard.press("Home")
        expect_frame(page, toy, built, 0)
        lab.shot(test_output, "toy-mode-1366")
        context.close()
        assert errors == []
    # What the app logged while it served; after the SIGTERM, Bokeh may trip on its own shutdown (a websocket that
    # closes after the server detached its session: `assert self._session is not None` in bokeh/server/connection.py).
    log = (test_output / "panel-serve-toy.log").read_text().partition("Received signal SIGTERM")[0]
    assert "Error thrown from callback" not in log and "Traceback" not in log, log[-3000:]
