"""Several CPUs in the lab without a browser (issue 22 item 1): the Gantt chart's rows per CPU or per task, every
CPU's running task, migrations in the events, per-CPU utilisation under the table, the exports, links and bad
input. Every run is the core's (``simulate``)."""
from __future__ import annotations

import pytest

pytest.importorskip("panel")

from app import exports
from app.model import Lab
from app.modes import views_of
from app.modes.cpu import gantt as cpu_gantt
from app.modes.cpu.views import event_list, metrics_table, ready_queue
from app.render import indexes
from schedulers import simulate

# FCFS on two CPUs, worked out in tests/test_cpu_multi.py: CPU 0 runs A [0, 2), C [2, 5); CPU 1 B [0, 4), A [4, 6)
# (A's last CPU, 0, is busy at 4: a migration).
LINK = "mode=cpu&algorithm=fcfs&cpus=2&tasks=A:0:4:bursts=2%2C1%2C2,B:0:4,C:1:3"
SCENARIO = {"algorithm": "fcfs", "cpus": 2, "tasks": [
    {"name": "A", "arrival": 0, "bursts": [2, 1, 2]}, {"name": "B", "arrival": 0, "burst": 4},
    {"name": "C", "arrival": 1, "burst": 3}]}


def labelled(gantt):
    """The canvas text of the chart's slices: (the row, the label) of each."""
    [text] = [r for r in gantt.plot.renderers if type(r.glyph).__name__ == "Text"]
    return list(zip(text.data_source.data["y"], text.data_source.data["text"]))


def test_the_gantt_chart_has_a_row_per_cpu_or_per_task():
    result = simulate("cpu", SCENARIO)
    by_cpu = cpu_gantt.Gantt(result, "en", False)
    assert list(by_cpu.plot.y_range.factors) == ["CPU 1", "CPU 0"]
    assert labelled(by_cpu) == [("CPU 0", "A"), ("CPU 0", "C"), ("CPU 0", ""), ("CPU 1", "B"), ("CPU 1", "A")]
    by_task = cpu_gantt.Gantt(result, "ja", True, by_task=True)
    assert list(by_task.plot.y_range.factors) == ["C", "B", "A"]
    # A ran on CPU 0 then on CPU 1 (its I/O between is on its row, unlabelled)
    assert [text for row, text in labelled(by_task) if row == "A"] == ["CPU 0", "CPU 1", ""]
    assert by_cpu.end == 6


def test_every_cpus_task_migrations_and_utilisation():
    result = simulate("cpu", SCENARIO)
    where = indexes(result["tasks"])
    step = result["steps"][5]   # [4, 5): C on CPU 0, A on CPU 1 after migrating
    html = ready_queue(step, where, "en")
    assert "CPU 0:</span> " in html and "CPU 1:</span> " in html and html.index(">C<") < html.index(">A<")
    assert "A migrates from CPU 0 to CPU 1" in event_list(step, "en")
    assert "A が CPU 0 から CPU 1 へ移動" in event_list(step, "ja")
    idle = ready_queue(result["steps"][6], where, "en")   # [5, 6): CPU 0 idles
    assert "CPU 0:</span> nothing (idle)" in idle and "CPU 1:</span> <span" in idle
    table = metrics_table(result, 0, "en")
    assert "Utilisation 91.7% of all CPUs (CPU 0 83.3%, CPU 1 100%); migrations: 1." in table   # 11/12, 5/6, 1
    japanese = metrics_table(result, 0, "ja")
    assert "全 CPU の利用率 91.7%（CPU 0 83.3%, CPU 1 100%）。移動（マイグレーション）: 1 回。" in japanese
    frames = views_of("cpu").step_frames(result, "en")
    assert "CPU 1:" in frames.slots["state"](5)


def test_the_export_chart_has_a_row_per_cpu():
    svg = exports.chart_svg(simulate("cpu", SCENARIO), "en")
    assert ">CPU 0</text>" in svg and ">CPU 1</text>" in svg


def test_cpus_travel_in_a_link_and_bad_cpus_keep_the_run():
    lab = Lab()
    lab.restore(LINK)
    assert lab.notices == []
    assert lab.result == simulate("cpu", SCENARIO)
    again = Lab()
    again.restore(lab.link())
    assert again.result == lab.result and "cpus=2" in lab.link()
    before = lab.result
    lab.set_parameter("cpus", "9")
    assert list(lab.errors) == ["cpus"] and lab.result is before
    bad = Lab()
    bad.restore(LINK.replace("cpus=2", "cpus=0"))
    assert [field for field, _ in bad.notices] == ["cpus"]


def test_one_cpu_shows_as_before():
    result = simulate("cpu", {**SCENARIO, "cpus": 1})
    assert "timeline" in result
    html = ready_queue(result["steps"][1], indexes(result["tasks"]), "en")
    assert "CPU 0" not in html and "Utilisation" not in metrics_table(result, 0, "en")


@pytest.mark.parametrize("lang, prompt", [("en", "Which task runs on CPU 1 over t=1 → 2?"),
                                          ("ja", "t=1 → 2 に CPU 1 で実行されるのはどのタスクですか？")])
def test_predict_asks_about_one_cpu_and_scores_the_answer(lang, prompt):
    """SRTF on two CPUs (worked out in tests/test_cpu_multi.py): at 0 B takes CPU 0 (asked) and A CPU 1; at 1 C
    preempts A on CPU 1 (asked, among A, B and C)."""
    from app.quiz import QuizView
    from schedulers.quiz import questions

    lab = Lab()
    lab.restore("mode=cpu&algorithm=srtf&cpus=2&tasks=A:0:4,B:0:3,C:1:1,D:2:5")
    lab.lang = lang
    quiz = QuizView(lab)
    quiz.shown = True
    quiz.skip()
    quiz.answer("B")   # CPU 0 at 0: B, the shortest
    quiz.skip()
    board = quiz.board()
    asked = [str(part.object) for part in board if "quiz-question" in (part.css_classes or [])]
    assert asked and prompt in asked[0]
    buttons = [part.label for part in board[2]]
    assert buttons == list(questions(lab.result)[1].candidates) == ["A", "B", "C"]
    quiz.answer("A")
    assert (quiz.right, quiz.asked, quiz.feedback["answer"]) == (1, 2, "C")


def test_predicts_chart_labels_a_running_slice_in_its_part_so_far():
    """At t=1 under SRTF on two CPUs B has run [0, 1) of its [0, 3) on CPU 0: its label is at 0.5, in sight, not at
    1.5 under the cover; A's [0, 1) on CPU 1 is whole: at 0.5 too; later slices stay where the cover hides them."""
    from app.quiz import QuizView
    lab = Lab()
    lab.restore("mode=cpu&algorithm=srtf&cpus=2&tasks=A:0:4,B:0:3,C:1:1,D:2:5")
    [chart] = [part.object for part in QuizView(lab).known_state(lab.result, 1, "en")
               if type(part.object).__name__ == "figure"]
    [labels] = [r for r in chart.renderers if type(r.glyph).__name__ == "Text"]
    data = labels.data_source.data
    placed = sorted(zip(data["x"], data["text"], data["y"]))
    assert placed[:2] == [(0.5, "A", "CPU 1"), (0.5, "B", "CPU 0")]
    assert all(x > 1 for x, _, _ in placed[2:])
