"""The teaching features' view-models and drawings without a browser, and the lab in a notebook."""
from __future__ import annotations

import re
import xml.etree.ElementTree as ElementTree
from html import unescape

import pytest

pn = pytest.importorskip("panel")

from app.compare import default_other  # noqa: E402
from app.exports import chart_svg  # noqa: E402
from app.model import Lab  # noqa: E402
from app.notebook import lab  # noqa: E402
from app.quiz import QuizView, command_line  # noqa: E402
from app.text import t  # noqa: E402
from schedulers import MODES, simulate  # noqa: E402
from schedulers.exercises import cpu_exercise  # noqa: E402
from schedulers.trace import step_aligner  # noqa: E402

SVG = "{http://www.w3.org/2000/svg}"


def test_the_notebook_lab_is_a_servable_panel_without_a_server():
    page = lab(lang="ja", query="mode=cpu&algorithm=srtf&tasks=A:0:7,B:1:4,C:2:1,D:4:3&step=3")
    assert isinstance(page, pn.viewable.Viewable)
    assert page.lab_state.algorithm == "srtf" and page.lab_state.step == 2 and page.lab_state.lang == "ja"
    assert page.servable() is page
    root = page.get_root()          # the Bokeh model tree, built with no server and no browser
    assert root is not None
    assert page.lab_state.result["averages"]["waiting"] == 2.75


def test_words_are_plain_text_and_the_export_note_names_the_command():
    """Panes show the word tables as text: Markdown such as backticks would reach the page literally."""
    from app.exports import ExportView
    from app.modes import all_modes
    from app.text import HELP, LABELS, SHORT, TEXT
    tables = (TEXT, LABELS, SHORT, HELP, *(mode.words for mode in all_modes()))
    assert [key for table in tables for key, entry in table.items() if any("`" in v for v in entry.values())] == []
    for lang in ("en", "ja"):
        note = ExportView(Lab(lang=lang, mode="llm")).panel().objects[0].object
        assert "python -m schedulers llm --json" in note and "`" not in note


def test_chart_svg_escapes_names_and_draws_every_slice():
    result = simulate("cpu", {"algorithm": "rr", "quantum": 2, "tasks": [
        {"name": "<b>&", "arrival": 0, "burst": 3}, {"name": "B", "arrival": 5, "burst": 1}]})
    svg = ElementTree.fromstring(chart_svg(result, "en"))   # well-formed although a name is markup
    labels = [node.text for node in svg.iter(f"{SVG}text")]
    assert "<b>&" in labels and "idle" in labels and "Round Robin, quantum 2" in labels[0]
    rects = [r for r in svg.iter(f"{SVG}rect")][1:]       # the first is the background
    assert [(r.find(f"{SVG}title").text) for r in rects] == ["<b>& [0, 3)", "idle [3, 5)", "B [5, 6)"]
    llm = simulate("llm", {"tenants": [{"name": "A", "cost": 8, "count": 2}, {"name": "B", "cost": 2, "count": 2}]})
    svg = ElementTree.fromstring(chart_svg(llm, "ja"))
    assert [r.find(f"{SVG}title").text for r in list(svg.iter(f"{SVG}rect"))[1:]] == \
           [f"{d['tenant']} [{d['time']}, {d['time'] + 1})" for d in llm["dispatch"]]


def test_compare_aligns_by_time_and_by_dispatch_count():
    fcfs = simulate("cpu", {"algorithm": "fcfs", "tasks": [{"name": "A", "arrival": 0, "burst": 3}]})
    assert step_aligner(fcfs, fcfs)(2) == 2
    tenants = [{"name": "A", "cost": 8, "count": 2}, {"name": "B", "cost": 2, "count": 2, "join": 5}]
    sfq, rr = simulate("llm", {"tenants": tenants}), simulate("llm", {"tenants": tenants, "algorithm": "rr"})
    aligned = step_aligner(sfq, rr)
    for step in range(len(sfq["steps"])):
        mine = sum(s["kind"] == "dispatch" for s in sfq["steps"][:step + 1])
        theirs = sum(s["kind"] == "dispatch" for s in rr["steps"][:aligned(step) + 1])
        assert mine == theirs
    assert default_other("cpu", "fcfs") == "srtf" and default_other("cpu", "rr") == "fcfs"


def test_predicts_board_follows_presenter_mode_and_keeps_its_buttons():
    """Presenter mode draws Predict's chart at the projector's size; a new layout (presenter mode, the other
    language) keeps the very buttons on the page, so a click on one of them still answers."""
    from bokeh.models import Plot
    state = Lab()
    quiz = QuizView(state, shown=True)
    quiz.skip()

    def fonts() -> set[str]:
        return {axis.major_label_text_font_size for part in quiz.board().select(pn.pane.Bokeh)
                for axis in part.object.select(type=Plot)[0].xaxis}

    def choices() -> list:
        return [b for b in quiz.board().select(pn.widgets.Button) if "quiz-choice" in b.css_classes]
    before = choices()
    assert fonts() == {"11pt"} and [b.label for b in before] == ["A", "B"]
    state.presenter = True
    assert fonts() == {"18pt"}
    state.lang = "ja"
    assert all(a is b for a, b in zip(choices(), before, strict=True))
    before[1].clicks += 1   # B, clicked on the button drawn before both changes
    assert quiz.feedback["choice"] == "B" and quiz.asked == 1


def test_predicts_controls_keep_their_widgets_in_the_other_language():
    """The seed, the sizes and the buttons are laid out again in place: "New exercise" clicked on the button drawn
    before a language switch still loads the exercise, and a size typed before it is kept."""
    state = Lab()
    quiz = QuizView(state, shown=True)

    def widgets() -> dict[str, object]:
        return {next(c for c in w.css_classes if c.startswith("quiz-")): w
                for w in quiz.controls().select(pn.widgets.Widget) if w.css_classes}
    before = widgets()
    before["quiz-size-jobs"].value = "3"
    state.lang = "ja"
    after = widgets()
    assert all(after[k] is w for k, w in before.items()) and after.keys() == before.keys()
    assert after["quiz-new"].label == t("ja", "quiz.new") and after["quiz-seed"].label == t("ja", "quiz.seed")
    before["quiz-seed"].value = "7"
    before["quiz-new"].clicks += 1
    assert quiz.exercise == 7 and len(state.rows) == 3


def test_quiz_scores_each_question_once_and_loads_the_cli_exercise():
    state = Lab()
    state.set_algorithm("srtf")
    quiz = QuizView(state)
    quiz.load("10")
    assert [row.scenario() for row in state.rows] == [
        {k: v for k, v in task.items()} for task in cpu_exercise(10)["tasks"]]
    first_step = state.step + 1
    quiz.answer("B")              # exercise 10 under SRTF: A runs first
    assert (quiz.right, quiz.asked, quiz.feedback["correct"]) == (0, 1, False)
    state.step = first_step - 1
    quiz.answer("A")              # answering the same question again does not count twice
    assert (quiz.right, quiz.asked) == (0, 1)
    quiz.load("x")
    assert quiz.problem.startswith("seed: must be a whole number")
    assert command_line("cpu", 42, "rr", {"quantum": "2"}) == \
        "python -m schedulers cpu --seed 42 --algorithm rr --quantum 2"
    assert command_line("cpu", 1, "mlfq", {"quanta": "1, 2, 4"}).endswith("--quanta 1,2,4")


def test_a_later_run_your_code_cannot_handle_shows_its_line_and_keeps_the_last_run():
    from app.custom import CustomEditor
    state = Lab()
    editor = CustomEditor(state)
    code = "def choose(ready, running, time, state):\n    assert len(ready) < 4, 'too many'\n    return ready[0].name\n"
    editor.draft = {**editor.draft, "cpu": code}
    editor.submit()
    assert state.algorithm == "custom" and editor.failure is None
    state.add_row()                                   # a fifth task E(0, 1): still at most three ready at once
    good = state.result
    state.rows[-1].arrival = "1"                     # E(1, 1): four ready at t=4
    assert "policy" in state.errors and state.result is good          # the last valid run stays
    assert editor.failure.line == 2 and "AssertionError: too many" in editor.failure.problem
    assert "2 行目" in editor.failure.message["ja"]
    state.remove_row(state.rows[-1])                 # back to four tasks: it runs, the message goes
    assert state.errors == {} and editor.failure is None and state.result["algorithm"] == "custom"


def test_run_my_policy_runs_your_code_once_and_a_mistake_changes_nothing(monkeypatch):
    import schedulers.custom
    from app.custom import CustomEditor
    from schedulers.custom import TEMPLATES
    compiled = []

    class Counted(schedulers.custom.Program):   # every run of your code compiles it once, whoever asks
        def __init__(self, source, mode):
            compiled.append(source)
            super().__init__(source, mode)

    state = Lab()
    editor = CustomEditor(state)
    monkeypatch.setattr(schedulers.custom, "Program", Counted)
    editor.submit()                                           # the template: FCFS
    assert compiled == [TEMPLATES["cpu"]] and state.algorithm == "custom"
    assert state.result["algorithm"] == "custom" and state.result["timeline"][:8] == ["A"] * 7 + ["B"]
    compiled.clear()
    editor.draft = {**editor.draft, "cpu": "def choose(ready, running, time, state):\n    return 'nobody'\n"}
    before = state.result
    editor.submit()
    assert compiled == [editor.draft["cpu"]]                  # tried once, and not handed to the lab
    assert editor.failure.line == 2 and state.result is before and state.policy_code["cpu"] == TEMPLATES["cpu"]


CATALOGUE_WORDS = re.compile(r"^\s*(@words\b|(group|label|summary|rule|keep)\s*=)")   # the menu's, not the rule


@pytest.mark.parametrize("mode", list(MODES))
def test_the_rule_panel_opens_on_the_class_its_docstring_and_its_code_in_every_mode(mode):
    """The source panel (app/source.py) shows each rule as the student reads it: the class line, its docstring, then
    the code that decides, with none of the catalogue's words (menu label, summary, ...) in between."""
    from app.source import SourceView
    state = Lab(mode=mode)
    for algorithm in MODES[mode].algorithms:
        state.set_algorithm(algorithm)
        html = SourceView(state).html(0)
        lines = [unescape(text) for text in re.findall(r'<span class="no">\d+</span>([^<]*)</span>',
                                                       html.split('<span class="section">')[0])]
        assert lines[0].startswith("class ") and lines[1].strip().startswith('"""'), (algorithm, lines[:2])
        assert [line for line in lines if CATALOGUE_WORDS.match(line)] == [], algorithm
        assert any(line.strip().startswith("def ") for line in lines), algorithm   # its deciding code follows
