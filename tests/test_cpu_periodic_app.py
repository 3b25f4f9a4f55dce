"""Periodic tasks in the lab's views, without a browser: links keep the new fields, the exports' chart draws each job
on its task's row, the analysis card says what the core's analysis and the run say, in en and ja; the remaining time
names each task's current job. Every value comes from ``schedulers.simulate``."""
from __future__ import annotations

import pytest

pytest.importorskip("panel")

from app.modes import app_mode
from app.modes.cpu.views import VIEWS, analysis_card, current_jobs
from schedulers import simulate
from schedulers.cpu.presets import PRESETS, versus
from schedulers.export import metrics_csv


def test_a_link_keeps_the_period_and_the_relative_deadline():
    link = app_mode("cpu").link
    rows = [{"name": "A", "arrival": "0", "burst": "3", "period": "10", "relative_deadline": "4"},
            {"name": "B", "arrival": "0", "burst": "2", "period": "5"}]
    text = link.encode(rows)
    assert text == "A:0:3:period=10:relative_deadline=4,B:0:2:period=5"
    assert [{k: v for k, v in row.items() if v} for row in link.decode(text)] == rows


def test_the_exports_chart_draws_each_job_on_its_tasks_row():
    result = simulate("cpu", PRESETS["rm-misses-edf-meets"]["scenario"])
    chart = VIEWS.chart(result, "en")
    assert list(chart.rows)[:2] == ["A", "B"]
    owner = {job["name"]: job["task"] for job in result["jobs"]}
    for cell in chart.cells:
        assert chart.rows[cell.row] == owner[cell.who]
    assert "jobs,misses,max_lateness,max_response" in metrics_csv(result).splitlines()[0]


@pytest.mark.parametrize("name, algorithm, en, ja", [
    ("rm-misses-edf-meets", "rm",
     "U = 0.971 > 0.828: the Liu-Layland bound says nothing; the exact test says B misses under RM; U ≤ 1: EDF can "
     "meet every deadline; the run (rm) shows B#1 late by 1",
     "U = 0.971 > 0.828: Liu–Layland 上限からは何も言えません。厳密な応答時間解析では RM で B が締切を落とします。"
     "U ≤ 1: EDF はすべての締切を守れます。実行（rm）では B#1 が 1 遅れ"),
    ("rm-misses-edf-meets", "edf",
     "U = 0.971 > 0.828: the Liu-Layland bound says nothing; the exact test says B misses under RM; U ≤ 1: EDF can "
     "meet every deadline; the run (edf) meets every deadline", None),
    ("rm-under-bound", "rm",
     "U = 0.667 ≤ 0.780: the Liu-Layland bound promises that RM meets every deadline; the exact test says every "
     "task meets its deadline under RM; U ≤ 1: EDF can meet every deadline; the run (rm) meets every deadline", None),
    ("rm-harmonic", "rm",
     "U = 1.000 > 0.780: the Liu-Layland bound says nothing; the exact test says every task meets its deadline "
     "under RM; U ≤ 1: EDF can meet every deadline; the run (rm) meets every deadline", None),
])
def test_the_analysis_card_says_what_the_tests_and_the_run_say(name, algorithm, en, ja):
    result = simulate("cpu", {**PRESETS[name]["scenario"], "algorithm": algorithm})
    assert en.replace(">", "&gt;") in analysis_card(result, "en")
    if ja:
        assert ja.replace(">", "&gt;") in analysis_card(result, "ja")
    assert analysis_card(simulate("cpu", {"algorithm": algorithm, "tasks": [
        {"name": "A", "arrival": 0, "burst": 1}]}), "en") == ""   # no periodic task, no card


def test_the_card_names_dropped_jobs_and_dm():
    tasks = [{"name": "A", "arrival": 0, "burst": 3, "period": 10, "relative_deadline": 4},
             {"name": "B", "arrival": 0, "burst": 2, "period": 5}]
    dropped = simulate("cpu", {"algorithm": "rm", "on_miss": "abort", "tasks": tasks})
    assert "the run (rm) shows A#1 dropped at its deadline" in analysis_card(dropped, "en")
    dm = simulate("cpu", {"algorithm": "dm", "tasks": tasks})
    assert "the exact test says every task meets its deadline under DM" in analysis_card(dm, "en")


def test_the_remaining_time_names_each_tasks_current_job():
    result = simulate("cpu", versus("rm-misses-edf-meets"))
    step = result["steps"][6]   # after [5, 6): B#1 done at 6, A#2 (released 5) not yet run
    assert current_jobs(step, result["jobs"]) == {"A": "A#2"}


def test_predict_offers_the_jobs_in_their_tasks_colours_and_scores_an_answer():
    """RM on the preset, at t=0: A#1 and B#1 are released together; A (period 5) ranks first and runs."""
    from app.model import Lab
    from app.quiz import QuizView

    lab = Lab()
    lab.use_preset("rm-misses-edf-meets")
    quiz = QuizView(lab)
    quiz.shown = True
    quiz.skip()
    buttons = [part for part in quiz.board()[2] if part.css_classes and "quiz-choice" in part.css_classes]
    assert [(b.label, b.css_classes[1]) for b in buttons] == [("A#1", "quiz-choice-0"), ("B#1", "quiz-choice-1")]
    quiz.answer("A#1")
    assert (quiz.right, quiz.asked, quiz.feedback["answer"]) == (1, 1, "A#1")
