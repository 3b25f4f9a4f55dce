"""Ready-made CPU scenarios that teach one point each (issue 20), as data: the app offers them from here, the tests
run them, and the docs describe them (docs/cpu.md "Presets"). Each has a ``title`` and a ``lesson`` in en and ja,
and its ``scenario``; ``versus``, when given, is what to change for the run to compare it with (the same scenario
with those keys replaced)."""
from __future__ import annotations

from typing import Any

ARTICLE_TASKS = [{"name": "A", "arrival": 0, "burst": 7}, {"name": "B", "arrival": 1, "burst": 4},
                 {"name": "C", "arrival": 2, "burst": 1}, {"name": "D", "arrival": 4, "burst": 3}]

PRESETS: dict[str, dict[str, Any]] = {
    "mlfq-gaming": {
        "title": {"en": "Gaming MLFQ with I/O", "ja": "I/OでMLFQを出し抜く例"},
        "lesson": {"en": "G blocks for I/O just before its quantum of 3 ends. With io_resets_allotment (OSTEP -S) each "
                         "I/O gives it a fresh allotment, so it holds the top level and preempts H on every return; "
                         "without it, its CPU time at the level is counted across I/O and it moves down at t=6.",
                   "ja": "Gはクォンタム3が切れる直前にI/Oでブロックします。io_resets_allotment（OSTEPの-S）では"
                         "I/Oのたびに割り当てが新しくなるため最上位レベルに居続け、戻るたびにHを横取りします。"
                         "これがないと、レベルでのCPU時間はI/Oをまたいで数えられ、t=6に下がります。"},
        "scenario": {"algorithm": "mlfq", "levels": 2, "quanta": [3, 3], "allotment": [1, 1],
                     "io_resets_allotment": True,
                     "tasks": [{"name": "G", "arrival": 0, "bursts": [2, 1, 2, 1, 2, 1, 2]},
                               {"name": "H", "arrival": 0, "burst": 12}]},
        "versus": {"io_resets_allotment": False},
    },
    "rr-switch-cost": {
        "title": {"en": "The price of a switch: RR q=1 against q=4", "ja": "切り替えの代償: RR q=1 と q=4"},
        "lesson": {"en": "Every switch costs 1 time unit. With q=1 the article's tasks switch 12 times and the CPU "
                         "does their work 15/27 of the time (average response 2.75); with q=4, 4 switches and 15/19 "
                         "(average response 5).",
                   "ja": "切り替えには1単位かかります。q=1では記事のタスクは12回切り替わり、CPUがタスクの仕事を"
                         "しているのは時間の15/27です（平均応答2.75）。q=4では切り替え4回で15/19です（平均応答5）。"},
        "scenario": {"algorithm": "rr", "quantum": 1, "switch_cost": 1, "tasks": ARTICLE_TASKS},
        "versus": {"quantum": 4},
    },
}


def versus(name: str) -> dict[str, Any]:
    """The preset's scenario with its ``versus`` changes: the run to compare it with."""
    preset = PRESETS[name]
    return {**preset["scenario"], **preset["versus"]}
