"""MLQ in the lab without a browser (issue 22 item 3): the editor's class column and classes field, an error shown on
the field, the link's round trip, the results table and the exports. Every run is the core's (``simulate``)."""
from __future__ import annotations

import json
import sys

import pytest

pytest.importorskip("panel")

from app.model import Lab
from app.modes.cpu.views import metrics_table
from app.ui import LabUI
from schedulers import simulate
from schedulers.export import metrics_csv

# Classes 0 FCFS, 1 SRTF (tests/test_cpu_mlq.py's rules): A (class 1) runs [0, 1); B (class 0) preempts it and runs
# [1, 3); A [3, 7).
LINK = "mode=cpu&algorithm=mlq&classes=fcfs%3Bsrtf&tasks=A:0:5:class=1,B:1:2"
SCENARIO = {"algorithm": "mlq", "classes": "fcfs;srtf", "tasks": [
    {"name": "A", "arrival": 0, "burst": 5, "class": 1}, {"name": "B", "arrival": 1, "burst": 2}]}


def widgets(editor):
    """Every widget of the editor, in order."""
    found = [editor]
    for child in getattr(editor, "objects", None) or []:
        found += widgets(child)
    return found


def css(widget) -> list[str]:
    return getattr(widget, "css_classes", None) or []


def test_the_link_round_trips_and_runs_the_cores_mlq():
    lab = Lab()
    lab.restore(LINK)
    assert lab.notices == [] and lab.errors == {}
    assert lab.result == simulate("cpu", SCENARIO)
    assert "".join(lab.result["timeline"]) == "ABBAAAA"
    again = Lab()
    again.restore(lab.link())
    assert again.result == lab.result
    assert "classes=fcfs%3Bsrtf" in lab.link() and "A:0:5:class=1" in lab.link()


def test_the_editor_shows_class_for_mlq_and_the_classes_field_with_its_compact_form():
    lab = Lab()
    ui = LabUI(lab)
    assert not any("field-class" in css(w) for w in widgets(ui.editor()))   # FCFS reads no class
    lab.state.algorithm = "mlq"
    shown = widgets(ui.editor())
    assert sum("field-class" in css(w) for w in shown) == len(lab.rows)
    [classes] = [w for w in shown if "param-classes" in css(w)]
    assert classes.value == "rr:quantum=2;fcfs"   # the core's default, as the core used it
    assert classes.label == "Classes (rule per class)"


def test_a_bad_class_rule_is_shown_on_the_classes_field_and_keeps_the_run():
    lab = Lab()
    ui = LabUI(lab)
    lab.restore(LINK)
    before = lab.result
    lab.set_parameter("classes", "rr;mlfq")
    assert list(lab.errors) == ["classes[1].rule"] and lab.result is before
    shown = widgets(ui.editor())
    at = next(i for i, w in enumerate(shown) if "param-classes" in css(w))
    assert "classes[1].rule" in shown[at + 1].object and "mlfq" in shown[at + 1].object   # right under the field
    lab.set_parameter("classes", "fcfs")   # now A's class 1 has no class
    assert list(lab.errors) == ["tasks[0].class"]


def test_the_table_and_the_csv_carry_the_class():
    result = simulate("cpu", SCENARIO)
    assert ">Class<" in metrics_table(result, 0, "en") and ">クラス<" in metrics_table(result, 0, "ja")
    header, first = metrics_csv(result).splitlines()[:2]
    assert header.split(",")[-1] == "class" and first.split(",")[-1] == "1"


def test_predicts_command_line_quotes_the_classes():
    """The command Predict gives for a seeded exercise under MLQ runs as typed: the classes' ";" is quoted."""
    import shlex
    import subprocess

    from app.quiz import command_line
    from schedulers import MODES

    line = command_line("cpu", 7, "mlq", {"classes": "srtf;fcfs"})
    assert "--classes 'srtf;fcfs'" in line
    words = shlex.split(line)
    done = subprocess.run([sys.executable, *words[1:], "--json"], capture_output=True, text=True, check=True)
    want = simulate("cpu", {**MODES["cpu"].exercise(7), "algorithm": "mlq", "classes": "srtf;fcfs"})
    assert json.loads(done.stdout)["timeline"] == want["timeline"]


def test_the_preset_loads_its_classes_as_text_and_offers_rr_to_compare():
    from schedulers.cpu.presets import PRESETS

    lab = Lab()
    lab.use_preset("mlq-batch-waits")
    assert lab.errors == {} and lab.algorithm == "mlq"
    assert lab.parameters["classes"] == "rr:quantum=2;fcfs"
    assert [row.text("class") for row in lab.rows] == ["1", "", "", ""]
    assert lab.result == simulate("cpu", PRESETS["mlq-batch-waits"]["scenario"])
    assert (lab.offer["algorithm"], lab.offer["quantum"]) == ("rr", 2)   # Compare's right side: plain RR q=2
