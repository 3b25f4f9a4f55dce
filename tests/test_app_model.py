"""The app's view-model without a browser: it shows what the core says and keeps the last valid run."""
from __future__ import annotations

import pytest

pytest.importorskip("param")
from schedulers import simulate

from app.model import MAX_ROWS, Lab, every_rules_parameters

ARTICLE = [{"name": "A", "arrival": 0, "burst": 7}, {"name": "B", "arrival": 1, "burst": 4},
           {"name": "C", "arrival": 2, "burst": 1}, {"name": "D", "arrival": 4, "burst": 3}]


def test_the_default_is_the_articles_run_at_its_initial_state():
    lab = Lab()
    assert lab.result == simulate("cpu", {"algorithm": "fcfs", "tasks": ARTICLE})
    assert (lab.step, lab.last_step, lab.errors) == (0, 15, {})


def test_a_bad_edit_keeps_the_last_valid_run_and_names_the_field():
    lab = Lab()
    lab.go(5)
    before = lab.result
    lab.rows[1].burst = "0"
    assert list(lab.errors) == ["tasks[1].burst"]
    assert lab.result is before and lab.step == 5
    lab.rows[1].burst = "2"
    assert lab.errors == {}
    assert lab.result == simulate("cpu", {"algorithm": "fcfs", "tasks": [dict(ARTICLE[1], burst=2) if i == 1 else t
                                                                         for i, t in enumerate(ARTICLE)]})


def test_an_edit_keeps_the_step_clamped_to_the_new_run():
    lab = Lab()
    lab.last()
    lab.rows[0].burst = "1"  # the run gets 6 steps shorter
    assert lab.step == lab.last_step == len(lab.result["steps"]) - 1


def test_the_parameters_the_core_used_fill_their_fields():
    lab = Lab()
    lab.set_algorithm("rr")
    assert lab.parameters["quantum"] == str(lab.result["parameters"]["quantum"])
    lab.set_parameter("quantum", "3")
    assert lab.result == simulate("cpu", {"algorithm": "rr", "quantum": 3, "tasks": ARTICLE})


def test_a_link_round_trips_and_its_bad_parts_are_dropped():
    lab = Lab()
    lab.set_algorithm("rr")
    lab.set_parameter("quantum", "3")
    lab.rows[2].label = "<b>C, the short one</b>"
    lab.go(4)
    again = Lab()
    again.restore(lab.link())
    assert again.notices == []
    assert (again.result, again.step, again.link()) == (lab.result, 4, lab.link())
    bad = Lab()
    bad.restore("mode=cpu&algorithm=rr&quantum=0&tasks=A:0:7,B:1:4&step=2")
    assert [field for field, _ in bad.notices] == ["quantum"]
    assert bad.result == simulate("cpu", {"algorithm": "rr", "tasks": ARTICLE[:2]}) and bad.step == 1


def test_the_editor_keeps_at_most_max_rows_and_says_so_in_both_languages():
    """A link past the editor's limit runs its first MAX_ROWS rows (the core itself takes 100,000) and names it."""
    lab = Lab()
    tasks = [f"T{i}:{i % 50}:{1 + i % 3}" for i in range(MAX_ROWS + 400)]
    lab.restore("mode=cpu&algorithm=fcfs&tasks=" + ",".join(tasks))
    assert [row.label for row in lab.rows] == [f"T{i}" for i in range(MAX_ROWS)]
    assert lab.result == simulate("cpu", {"algorithm": "fcfs", "tasks": [
        {"name": f"T{i}", "arrival": i % 50, "burst": 1 + i % 3} for i in range(MAX_ROWS)]})
    [(field, problem)] = lab.notices
    assert field == "tasks" and f"{MAX_ROWS}" in problem["en"] and f"{MAX_ROWS + 400}" in problem["en"]
    assert "エディター" in problem["ja"]
    lab.add_row()   # full: no row is added
    assert len(lab.rows) == MAX_ROWS
    small = Lab(mode="llm")
    small.restore("mode=llm&tenants=" + ",".join(f"U{i}:1x1" for i in range(MAX_ROWS)))
    assert small.notices == [] and len(small.rows) == MAX_ROWS   # exactly the limit is fine


def test_llm_mode_defaults_to_the_contracts_reference_under_sfq():
    lab = Lab(mode="llm")
    assert "".join(d["tenant"] for d in lab.result["dispatch"]) == "ABBBBABCBCCCAAAA"


def test_a_number_too_long_for_python_is_an_error_message_not_a_crash():
    lab = Lab()
    before = lab.result
    lab.rows[0].burst = "9" * 5000
    assert lab.result == before
    assert "tasks[0].burst" in lab.errors
    lab.rows[0].burst = "9" * 30
    assert "limit" in lab.errors["tasks[0].burst"]


def test_the_counter_and_the_sentence_tell_one_time():
    """docs/trace-format.md "Time on screen": the counter shows the step's slice (CPU) or instant (LLM), the
    sentence starts at the slice's start, and the initial step is before t=0, with nothing running yet."""
    import re

    from app import render
    from app.modes.cpu import views as cpu_views
    from app.text import t

    def counter(result, index, lang="en"):
        return re.sub(r"<[^>]+>", "", render.step_counter(result, index, lang))

    fcfs = simulate("cpu", {"algorithm": "fcfs", "tasks": ARTICLE})
    first, sixth = fcfs["steps"][0], fcfs["steps"][5]
    assert counter(fcfs, 5) == "step 6/16 t=4 → 5" and sixth["why"]["en"].startswith("t=4: ")
    assert counter(fcfs, 0) == "step 1/16 before t=0" and first["why"]["en"].startswith("Before t=0:")
    assert counter(fcfs, 0, "ja") == "ステップ 1/16 t=0 の前" and first["why"]["ja"].startswith("t=0 の前:")
    where = render.indexes(fcfs["tasks"])
    assert t("en", "running.before") in cpu_views.ready_queue(first, where, "en")
    assert t("en", "running.none") not in cpu_views.ready_queue(first, where, "en")
    idle = simulate("cpu", {"algorithm": "fcfs", "tasks": [{"name": "A", "arrival": 2, "burst": 1}]})["steps"][1]
    assert t("en", "running.none") in cpu_views.ready_queue(idle, {"A": 0}, "en")      # t=0 -> 1: really idle
    reference = simulate("llm", {"tenants": [{"name": "A", "cost": 8, "count": 6}, {"name": "B", "cost": 2, "count": 6},
                                             {"name": "C", "cost": 2, "count": 4, "join": 6}]})
    join = reference["steps"][9]
    assert counter(reference, 9) == "step 10/20 t=6 join" and join["why"]["en"].startswith("t=6: C joins")


def test_cfs_and_eevdf_are_in_the_cpu_menu_and_nice_travels_in_the_editor_and_links():
    """CFS and EEVDF are CPU rules, and their task field (nice) and parameters come from the core's schema into the
    editor, the results table and a shared link."""
    from app.model import editable_fields, row_class
    from app.modes import names
    from app.modes.cpu import views as cpu_views
    assert names() == ("cpu", "llm", "engine")
    assert "nice" in editable_fields("cpu") and "nice" in row_class("cpu")._fields
    lab = Lab()
    assert {"cfs", "eevdf"} <= set(lab.catalog)
    lab.set_algorithm("cfs")
    # its own parameters, then the run's own that no rule lists (switch_cost, conventions, ...)
    assert lab.used_parameters() == ("latency", "min_granularity", *every_rules_parameters("cpu"))
    assert "switch_cost" in every_rules_parameters("cpu")
    assert lab.parameters["latency"] == "6" and lab.parameters["min_granularity"] == "1"   # what the core used
    lab.rows[1].nice = "-5"
    lab.set_parameter("latency", "4")
    nice = [dict(task, nice=-5) if i == 1 else task for i, task in enumerate(ARTICLE)]
    assert lab.errors == {} and lab.result == simulate("cpu", {"algorithm": "cfs", "latency": 4, "tasks": nice})
    table = cpu_views.metrics_table(lab.result, lab.last_step, "ja")
    assert "nice値" in table and "<td>-5</td>" in table
    lab.go(6)
    assert "&latency=4&min_granularity=1&tasks=A:0:7,B:1:4:nice=-5,C:2:1,D:4:3&step=7&" in lab.link()
    again = Lab()
    again.restore(lab.link())
    assert again.notices == [] and (again.result, again.step, again.link()) == (lab.result, 6, lab.link())
    lab.rows[1].nice = "20"   # the core's range, named by the field
    assert list(lab.errors) == ["tasks[1].nice"] and "19" in lab.errors["tasks[1].nice"]
    eevdf = Lab()
    eevdf.restore("mode=cpu&algorithm=eevdf&slice=2&tasks=A:0:7:nice=3,B:1:4")
    assert eevdf.notices == [] and eevdf.result == simulate(
        "cpu", {"algorithm": "eevdf", "slice": 2, "tasks": [dict(ARTICLE[0], nice=3), ARTICLE[1]]})


def test_the_gantt_chart_draws_every_slice_visible_and_names_its_span():
    """A run of a million time units: the slices shorter than a hundredth of it get a MIN_BAR-pixel mark (the rest
    are at least that wide on any chart 400 px or wider); each tooltip gives its span in step.span's words; the axis
    has whole-unit ticks without scientific notation, and room left of t=0 and above the first row for the
    markers there."""
    from app.modes.cpu import gantt as cpu_gantt
    from app.text import t

    result = simulate("cpu", {"algorithm": "srtf", "tasks": [{"name": "A", "arrival": 0, "burst": 990000},
                                                             {"name": "B", "arrival": 5, "burst": 3},
                                                             {"name": "C", "arrival": 1000, "burst": 2}]})
    gantt = cpu_gantt.Gantt(result, "en", presenter=False)
    bars, marks = (r.data_source.data for r in gantt.plot.renderers[:2])
    runs = cpu_gantt.slices(result["timeline"])
    assert bars["span"] == [t("en", "step.span", start=start, end=end) for _, start, end in runs]
    end = len(result["timeline"])
    short = [(name, start) for name, start, stop in runs if (stop - start) * 100 < end]
    assert list(zip(marks["name"], marks["left"])) == short and {"B", "C"} <= set(marks["name"])
    assert gantt.plot.renderers[1].glyph.width == cpu_gantt.MIN_BAR >= 3
    assert gantt.plot.renderers[1].glyph.width_units == "screen"
    assert gantt.plot.xaxis[0].ticker.min_interval == 1 and not gantt.plot.xaxis[0].formatter.use_scientific
    assert gantt.plot.x_range.start < 0 and gantt.plot.y_range.range_padding >= 0.5
