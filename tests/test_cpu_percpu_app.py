"""Per-CPU queues in the lab without a browser (issue 22 item 2): every CPU's queue at a step, steals in the events
and under the table, Compare's steals, the editor showing queues and steal only with several CPUs, links and bad
input. Every run is the core's (``simulate``)."""
from __future__ import annotations

import pytest

pytest.importorskip("panel")

from app.model import Lab
from app.modes import views_of
from app.modes.cpu.views import event_list, metrics_table, ready_queue, several_cpus, whole_run_diff
from app.render import indexes
from schedulers import simulate
from schedulers.cpu.presets import PRESETS, versus

# Worked out in tests/test_cpu_percpu.py: A (1), B (4), C (2), D (2) at 0 on 2 CPUs: queues [C], [D] at first;
# with steal, CPU 0 steals D from CPU 1's queue at 3.
LINK = "mode=cpu&algorithm=fcfs&cpus=2&queues=per-cpu&steal=true&tasks=A:0:1,B:0:4,C:0:2,D:0:2"
SCENARIO = {"algorithm": "fcfs", "cpus": 2, "queues": "per-cpu", "steal": True, "tasks": [
    {"name": "A", "arrival": 0, "burst": 1}, {"name": "B", "arrival": 0, "burst": 4},
    {"name": "C", "arrival": 0, "burst": 2}, {"name": "D", "arrival": 0, "burst": 2}]}


def test_every_cpus_queue_and_the_steals():
    result = simulate("cpu", SCENARIO)
    where = indexes(result["tasks"])
    first = ready_queue(result["steps"][1], where, "en")   # [0, 1): queues [C], [D]
    assert "Ready queues (one per CPU)" in first
    first = first[first.index("Ready queues"):]
    assert first.index("CPU 0:</span> ") < first.index(">C<") < first.index("CPU 1:</span> ") < first.index(">D<")
    assert first.count('class="cpu-queue"') == 2
    assert "CPU 0:</span> <span class=\"muted\">empty</span>" in ready_queue(result["steps"][4], where, "en")
    assert "実行可能キュー（CPU ごと）" in ready_queue(result["steps"][1], where, "ja")
    stolen = result["steps"][4]   # [3, 4): CPU 0 steals D
    assert "CPU 0 steals D from CPU 1&#x27;s queue" in event_list(stolen, "en")
    assert "CPU 0 が CPU 1 のキューから D をスチール" in event_list(stolen, "ja")
    assert "Per-CPU queues; steals: 1." in metrics_table(result, 0, "en")
    assert "CPU ごとのキュー。スチール: 1 回。" in metrics_table(result, 0, "ja")
    shared = simulate("cpu", {key: value for key, value in SCENARIO.items() if key not in ("queues", "steal")})
    assert "Ready queue:" in ready_queue(shared["steps"][1], indexes(shared["tasks"]), "en")
    assert "steals" not in metrics_table(shared, 0, "en")


def test_compare_shows_the_steals_of_the_preset():
    off, on = simulate("cpu", PRESETS["load-imbalance"]["scenario"]), simulate("cpu", versus("load-imbalance"))
    assert "Steals" in whole_run_diff(off, on, "en") and "スチール" in whole_run_diff(off, on, "ja")
    lab = Lab()
    lab.use_preset("load-imbalance")
    assert lab.errors == {} and lab.offer["steal"] is True and lab.result["steals"] == 0


def test_the_editor_shows_queues_and_steal_with_several_cpus():
    shown = views_of("cpu").shown_if
    assert set(shown) == {"queues", "steal"}
    assert [several_cpus({"cpus": text}) for text in ("", "1", "2", " 8 ", "x")] == [False, False, True, True, False]


def test_queues_and_steal_travel_in_a_link_and_bad_steal_keeps_the_run():
    lab = Lab()
    lab.restore(LINK)
    assert lab.notices == [] and lab.result == simulate("cpu", SCENARIO)
    again = Lab()
    again.restore(lab.link())
    assert again.result == lab.result and "queues=per-cpu" in lab.link() and "steal=true" in lab.link()
    before = lab.result
    lab.set_parameter("queues", "global")   # steal without per-CPU queues
    assert list(lab.errors) == ["steal"] and lab.result is before
    lab.set_parameter("steal", "")
    assert lab.errors == {} and lab.result["timelines"] == simulate("cpu", {**SCENARIO, "queues": "global",
                                                                               "steal": False})["timelines"]


@pytest.mark.parametrize("link, field", [(LINK.replace("&steal=true", "").replace("per-cpu", "sometimes"), "queues"),
                                         (LINK.replace("steal=true", "steal=sometimes"), "steal")])
def test_a_bad_queues_or_steal_in_a_link_is_named(link, field):
    lab = Lab()
    lab.restore(link)
    assert [name for name, _ in lab.notices] == [field]
