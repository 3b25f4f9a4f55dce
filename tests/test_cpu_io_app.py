"""Issue 20 in the lab without a browser: I/O bursts, the price of a switch and the conventions, as the views, the
links, the exports, Compare, the presets and the quiz show them. Every run is the core's (``simulate``); the
hand-computed cases say in a comment how they were worked out."""
from __future__ import annotations

import pytest

pytest.importorskip("panel")

from app import exports, query
from app.model import Lab
from app.modes import app_mode, views_of
from app.modes.cpu import gantt as cpu_gantt
from app.modes.cpu.conventions import OWN, ConventionsCard, flags_of
from app.modes.cpu.views import blocked_list, event_list, metrics_table, ready_queue
from app.render import indexes
from schedulers import simulate
from schedulers.export import metrics_csv

# RR q=2, A arrives at 0 with CPU 3, I/O 2, CPU 2, B at 1 with a burst of 4. By hand: A runs [0, 2); at 2 A rejoins
# behind B (queued since 1); B runs [2, 4), A [4, 5) and ends its first CPU burst, blocked over [5, 7); B runs [5, 7)
# and completes; A returns at 7 and runs [7, 9). Timeline AABBABBAA.
IO_LINK = "mode=cpu&algorithm=rr&quantum=2&tasks=A:0:3:bursts=3%2C2%2C2,B:1:4"
IO_SCENARIO = {"algorithm": "rr", "quantum": 2, "tasks": [{"name": "A", "arrival": 0, "bursts": [3, 2, 2]},
                                                          {"name": "B", "arrival": 1, "burst": 4}]}
# RR q=2 at switch cost 1 on A(0, 3), B(0, 2). By hand: A runs [0, 2) (the first dispatch is no switch); the switch
# to B takes [2, 3), B runs [3, 5) and completes; the switch back to A takes [5, 6), A runs [6, 7). Two switches,
# 2 units switching, utilisation 5/7.
SWITCH_SCENARIO = {"algorithm": "rr", "quantum": 2, "switch_cost": 1,
                   "tasks": [{"name": "A", "arrival": 0, "burst": 3}, {"name": "B", "arrival": 0, "burst": 2}]}


def step_at(result, time: int) -> int:
    """The step that shows the slice [time, time + 1)."""
    return next(k for k, step in enumerate(result["steps"]) if step.get("time") == time + 1)


def test_the_io_run_is_the_one_worked_out_by_hand():
    result = simulate("cpu", IO_SCENARIO)
    assert result["timeline"] == list("AABBABBAA")
    [io] = cpu_gantt.io_stretches(result)
    assert (io.task, io.start, io.end) == ("A", 5, 7)


def test_the_blocked_card_lists_each_blocked_task_with_its_return_time():
    result = simulate("cpu", IO_SCENARIO)
    where = indexes(result["tasks"])
    blocked = result["steps"][step_at(result, 5)]
    html = blocked_list(blocked, where, "en")
    assert ">A</span>" in html and "returns at t=7" in html
    assert "t=7 に復帰" in blocked_list(blocked, where, "ja")
    # before A blocks and after it returns, nobody is blocked
    assert "none" in blocked_list(result["steps"][step_at(result, 3)], where, "en")
    assert "none" in blocked_list(result["steps"][step_at(result, 7)], where, "en")
    frames = views_of("cpu").step_frames(result, "en")
    assert "Blocked (I/O)" in frames.slots["state"](step_at(result, 5))
    # a run without I/O has no such card
    plain = simulate("cpu", {**IO_SCENARIO, "tasks": [{"name": "A", "arrival": 0, "burst": 3}]})
    assert "Blocked (I/O)" not in views_of("cpu").step_frames(plain, "en").slots["state"](1)


def test_the_events_say_who_starts_io_and_who_returns():
    result = simulate("cpu", IO_SCENARIO)
    kinds = {event["kind"]: event for step in result["steps"] for event in step.get("events") or ()}
    assert {"block", "return"} <= kinds.keys()
    starts = next(step for step in result["steps"] if any(e["kind"] == "block" for e in step.get("events") or ()))
    assert "A starts I/O until t=7" in event_list(starts, "en")
    assert "A が t=7 まで I/O" in event_list(starts, "ja")
    back = next(step for step in result["steps"] if any(e["kind"] == "return" for e in step.get("events") or ()))
    assert "A returns from I/O" in event_list(back, "en")


def test_the_gantt_chart_draws_io_on_the_tasks_row_and_switches_on_their_own():
    result = simulate("cpu", IO_SCENARIO)
    chart = cpu_gantt.Gantt(result, "en", presenter=False)
    io = next(r for r in chart.plot.renderers if getattr(r.glyph, "hatch_pattern", None) == "x")
    assert (io.data_source.data["row"], io.data_source.data["left"], io.data_source.data["right"]) == (
        ["A"], [5], [7])
    assert [item.label["value"] for item in chart.plot.legend[0].items] == ["on the CPU", "I/O (blocked)"]
    assert "switch" not in chart.plot.y_range.factors
    switching = simulate("cpu", SWITCH_SCENARIO)
    assert switching["timeline"] == ["A", "A", {"switch": "B"}, "B", "B", {"switch": "A"}, "A"]
    assert (switching["switches"], switching["switch_time"]) == (2, 2)
    chart = cpu_gantt.Gantt(switching, "ja", presenter=True)
    assert "切り替え" in chart.plot.y_range.factors
    hatched = next(r for r in chart.plot.renderers if getattr(r.glyph, "hatch_pattern", None) == "/")
    assert (hatched.data_source.data["name"], hatched.data_source.data["left"]) == (["B", "A"], [2, 5])
    # a run without I/O or switch cost draws as it always did: no legend, no extra row
    plain = cpu_gantt.Gantt(simulate("cpu", {"algorithm": "fcfs", "tasks": [{"name": "A", "arrival": 0,
                                                                              "burst": 2}]}), "en", False)
    assert not plain.plot.legend and list(plain.plot.y_range.factors) == ["idle", "A"]


def test_a_switch_step_says_the_cpu_is_switching_and_the_table_gives_the_price():
    result = simulate("cpu", SWITCH_SCENARIO)
    where = indexes(result["tasks"])
    during = result["steps"][step_at(result, 2)]
    assert "switching to" in ready_queue(during, where, "en") and ">B</span>" in ready_queue(during, where, "en")
    table = metrics_table(result, len(result["steps"]) - 1, "en")
    assert "CPU utilisation 71.4% · time switching 2" in table   # 5/7
    assert "context switches 2" in table
    assert "CPU 利用率 71.4% ・ 切り替えの時間 2" in metrics_table(result, 0, "ja")


def test_the_exports_show_io_and_switches():
    svg = exports.chart_svg(simulate("cpu", IO_SCENARIO), "en")
    assert "A (I/O) [5, 7)" in svg and 'fill-opacity="0.3"' in svg
    switching = simulate("cpu", SWITCH_SCENARIO)
    svg = exports.chart_svg(switching, "en")
    assert "switch into B [2, 3)" in svg and ">switch</text>" in svg
    csv = metrics_csv(simulate("cpu", IO_SCENARIO))
    header = csv.splitlines()[0].split(",")
    assert {"cpu", "io"} <= set(header)
    figures = metrics_csv(switching).splitlines()
    assert {"run,switches,2", "run,switch_time,2", "run,utilisation,5/7"} <= set(figures)   # 2 switches of 1 in 7


def test_bursts_and_the_new_parameters_travel_in_a_link():
    lab = Lab()
    lab.restore(IO_LINK + "&switch_cost=1")
    assert lab.notices == []
    assert lab.result == simulate("cpu", {**IO_SCENARIO, "switch_cost": 1})
    again = Lab()
    again.restore(lab.link())
    assert again.notices == [] and again.result == lab.result and again.link() == lab.link()
    mlfq = Lab()
    mlfq.restore("mode=cpu&algorithm=mlfq&io_resets_allotment=true&io_to_front=true&tasks=A:0:3:bursts=3%2C2%2C2")
    assert mlfq.notices == [] and mlfq.result["parameters"]["io_resets_allotment"] is True
    assert mlfq.result == simulate("cpu", {"algorithm": "mlfq", "io_resets_allotment": True, "io_to_front": True,
                                           "tasks": [IO_SCENARIO["tasks"][0]]})


def test_bad_bursts_and_conventions_name_their_field_and_keep_the_run():
    lab = Lab()
    lab.restore(IO_LINK)
    before = lab.result
    lab.rows[0].bursts = "3, 2"   # even: no last CPU burst
    assert list(lab.errors) == ["tasks[0].bursts"] and lab.result is before
    lab.rows[0].bursts = "3, 2, 2"
    assert lab.errors == {} and lab.result == before
    before = lab.result
    lab.set_parameter("conventions", "sideways")
    assert list(lab.errors) == ["conventions"] and lab.result is before
    bad = Lab()
    bad.restore(IO_LINK + "&conventions=boost_order%3Dsideways")
    assert [field for field, _ in bad.notices] == ["conventions.boost_order"] and bad.result == before


def test_the_conventions_card_sets_a_preset_or_the_flags_and_a_link_keeps_them():
    lab = Lab()
    lab.restore("mode=cpu&algorithm=mlfq&boost=4&tasks=A:0:5,B:0:5,C:4:3")
    card = ConventionsCard(lab, lambda owns: None)
    assert card.card.collapsed and card.preset.value == "lab"
    card.preset.value = "ostep"
    assert lab.parameters["conventions"] == "ostep" and card.order.value == "bottom-first"
    assert lab.result == simulate("cpu", {**lab.scenario(), "conventions": "ostep"})
    card.order.value = "top-first"   # a flag of one's own: the flags, no longer the preset
    assert card.preset.value == OWN
    assert flags_of(lab.parameters["conventions"]) == (OWN, {"arrival_before_requeue": False,
                                                             "boost_after_arrivals": False,
                                                             "boost_order": "top-first"})
    assert lab.result == simulate("cpu", {**lab.scenario(), "conventions": {
        "arrival_before_requeue": False, "boost_after_arrivals": False, "boost_order": "top-first"}})
    again = Lab()
    again.restore(lab.link())
    assert again.notices == [] and again.result == lab.result
    shown = ConventionsCard(again, lambda owns: None)
    assert (shown.preset.value, shown.order.value, shown.card.collapsed) == (OWN, "top-first", False)
    assert "conventions=" in query.encode(again.setup())


def test_the_presets_load_their_setup_and_offer_compare_its_other_run():
    presets = app_mode("cpu").presets
    assert presets, "CPU mode offers its presets"
    for key, preset in presets.items():
        lab = Lab()
        lab.use_preset(key)
        assert lab.errors == {}
        assert lab.result == simulate("cpu", preset.scenario), key
        assert lab.offer == (dict(preset.compare) if preset.compare else None)


def test_predict_offers_the_command_lines_seeded_exercises_with_their_sizes():
    """Predict's seed and sizes are the command line's: the same exercise, and the note gives its command."""
    import json
    import subprocess
    import sys

    from app.quiz import QuizView
    from app.text import TEXT
    from schedulers import MODES

    lab = Lab()
    quiz = QuizView(lab)
    assert all(f"quiz.size.{size.name}" in TEXT for size in MODES["cpu"].exercise_sizes)
    quiz.set_size("jobs", "5")
    quiz.set_size("io", "60")
    quiz.load("7")
    want = MODES["cpu"].exercise(7, jobs=5, io=60)
    assert quiz.problem == "" and any("bursts" in task for task in want["tasks"])   # some task does I/O
    assert lab.result == simulate("cpu", {"algorithm": lab.algorithm, **want})
    command = "python -m schedulers cpu --seed 7 --jobs 5 --io 60 --algorithm fcfs"
    assert command in quiz.cli_note("en")
    printed = subprocess.run([sys.executable, "-m", "schedulers", "cpu", "--seed", "7", "--jobs", "5", "--io", "60",
                              "--algorithm", "fcfs", "--json"], capture_output=True, text=True, check=True)
    assert json.loads(printed.stdout) == lab.result
    before = lab.result
    quiz.set_size("jobs", "0")   # the core's limit, named by the size
    quiz.load("7")
    assert quiz.problem.startswith("jobs") and lab.result is before


def test_every_yes_no_parameter_has_the_words_of_its_options():
    """The editor offers a flag as a list (model.choice_options): each option has its words in both languages."""
    from app.model import choice_options, chosen
    from schedulers import schema

    flags = [field.name for field in schema("cpu").parameters if chosen("cpu", field.name)]
    assert {"io_resets_allotment", "io_to_front"} <= set(flags)
    for name in flags:
        for lang in ("en", "ja"):
            # the default, then true and false (or each of its choices)
            assert len(choice_options("cpu", name, lang)) == 1 + len(schema("cpu").field(name).choices or "tf")


def test_your_policy_s_help_names_what_choose_sees_of_a_task_with_io():
    # The fields are the core's TaskView's, in both languages; with I/O, burst and remaining are the current burst's.
    from dataclasses import fields

    from schedulers.cpu.custom import TaskView
    mode = app_mode("cpu")
    for lang, io_words in (("en", "current CPU burst"), ("ja", "現在の CPU バースト")):
        words = mode.say(lang, "api")
        assert ", ".join(f.name for f in fields(TaskView)) in words and io_words in words
