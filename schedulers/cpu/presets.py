"""Ready-made CPU scenarios that teach one point each (issue 20), as data: the app offers them from here, the tests
run them, and the docs describe them (docs/cpu.md "Presets"). Each has a ``title`` and a ``lesson`` in en and ja,
and its ``scenario``; ``versus``, when given, is what to change for the run to compare it with (the same scenario
with those keys replaced)."""
from __future__ import annotations

from typing import Any

ARTICLE_TASKS = [{"name": "A", "arrival": 0, "burst": 7}, {"name": "B", "arrival": 1, "burst": 4},
                 {"name": "C", "arrival": 2, "burst": 1}, {"name": "D", "arrival": 4, "burst": 3}]

# The Mars Pathfinder inversion: L (low) holds R from its unit 1, H (high) needs R at its unit 1, M (medium) none.
PATHFINDER = {"algorithm": "priority-preemptive", "tasks": [
    {"name": "L", "arrival": 0, "burst": 4, "priority": 3, "sections": [{"resource": "R", "start": 1, "length": 2}]},
    {"name": "H", "arrival": 2, "burst": 3, "priority": 1, "sections": [{"resource": "R", "start": 1, "length": 1}]},
    {"name": "M", "arrival": 3, "burst": 4, "priority": 2}]}

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
    "mlq-batch-waits": {
        "title": {"en": "MLQ: the batch class waits", "ja": "MLQ: バッチのクラスは待たされます"},
        "lesson": {"en": "I, J and K are interactive (class 0, RR q=2), B is batch (class 1, FCFS). While any "
                         "interactive task is ready B does not run: they complete at 5, 6 and 9, and B starts only "
                         "at t=9 (response 9) and completes at 13. Under plain RR q=2 B completes at 8, but the "
                         "interactive tasks only at 9, 12 and 13.",
                   "ja": "I、J、Kは対話型（クラス0、RR q=2）、Bはバッチ（クラス1、FCFS）です。対話型のタスクが"
                         "1つでも実行可能な間はBは実行されません。I、J、Kは5、6、9に完了し、Bはt=9にようやく"
                         "始まり（応答9）13に完了します。ただのRR q=2ではBは8に完了しますが、対話型のタスクは"
                         "9、12、13まで完了しません。"},
        "scenario": {"algorithm": "mlq", "classes": [{"rule": "rr", "quantum": 2}, {"rule": "fcfs"}],
                     "tasks": [{"name": "B", "arrival": 0, "burst": 4, "class": 1},
                               {"name": "I", "arrival": 0, "burst": 3}, {"name": "J", "arrival": 2, "burst": 3},
                               {"name": "K", "arrival": 5, "burst": 3}]},
        "versus": {"algorithm": "rr", "quantum": 2},
    },
    "load-imbalance": {
        "title": {"en": "Load imbalance and stealing: per-CPU queues", "ja": "負荷の偏りとスチール: CPUごとのキュー"},
        "lesson": {"en": "Six tasks at 0 on 2 CPUs, each with its own queue, placed in turn on the shorter: A, C, E "
                         "(8, 6, 6) on CPU 0's, B, D, F (1 each) on CPU 1's. Without stealing CPU 1 idles from t=3 "
                         "while C and E wait on CPU 0: makespan 20, utilisation 23/40. With steal, CPU 1 takes E, "
                         "the tail of CPU 0's queue, at t=3: makespan 14, utilisation 23/28, average waiting 7/3, "
                         "not 25/6.",
                   "ja": "2つのCPUがそれぞれ自分のキューを持ち、t=0の6タスクを短いほうへ"
                         "順に入れます。A、C、E（8、6、6）はCPU 0のキューに、"
                         "B、D、F（各1）はCPU 1のキューに入ります。"
                         "スチールなしではCとEがCPU 0で待つあいだ、"
                         "CPU 1はt=3から空いたままです（メイクスパン20、利用率23/40）。"
                         "スチールありではt=3にCPU 1がCPU 0のキューの末尾のEを取ります"
                         "（メイクスパン14、利用率23/28、平均待ち時間は25/6ではなく7/3）。"},
        "scenario": {"algorithm": "fcfs", "cpus": 2, "queues": "per-cpu",
                     "tasks": [{"name": name, "arrival": 0, "burst": burst}
                               for name, burst in zip("ABCDEF", (8, 1, 6, 1, 6, 1))]},
        "versus": {"steal": True},
    },
    # Periodic tasks (issue 23): the article's section 4.1 on three task sets; each compares RM with EDF.
    "rm-misses-edf-meets": {
        "title": {"en": "Over the bound: RM misses, EDF meets", "ja": "上限超え: RMは締切を落とし、EDFは守ります"},
        "lesson": {"en": "Periods 5 and 7, executions 2 and 4: U = 34/35 = 0.971 > 0.828, so the Liu-Layland bound "
                         "says nothing; the exact response-time test gives B R = 8 > 7, and the run shows B#1 late "
                         "by 1. EDF meets every deadline, as U <= 1 promises.",
                   "ja": "周期5と7、実行時間2と4: U = 34/35 = 0.971 > 0.828 なのでLiu–Layland上限は何も言いません。"
                         "厳密な応答時間解析ではBのR = 8 > 7、実行でもB#1が1遅れます。EDFはU <= 1のとおり"
                         "すべての締切を守ります。"},
        "scenario": {"algorithm": "rm", "tasks": [{"name": "A", "arrival": 0, "burst": 2, "period": 5},
                                                  {"name": "B", "arrival": 0, "burst": 4, "period": 7}]},
        "versus": {"algorithm": "edf"},
    },
    "rm-under-bound": {
        "title": {"en": "Under the Liu-Layland bound", "ja": "Liu–Layland上限以下"},
        "lesson": {"en": "U = 1/4 + 2/6 + 1/12 = 2/3 <= 3(2^(1/3) - 1) = 0.780: the bound alone promises that RM "
                         "meets every deadline, and it does, as EDF does.",
                   "ja": "U = 1/4 + 2/6 + 1/12 = 2/3 <= 3(2^(1/3) - 1) = 0.780: 上限だけでRMがすべての締切を守ると"
                         "保証され、実際に守ります。EDFも同じです。"},
        "scenario": {"algorithm": "rm", "tasks": [{"name": "A", "arrival": 0, "burst": 1, "period": 4},
                                                  {"name": "B", "arrival": 0, "burst": 2, "period": 6},
                                                  {"name": "C", "arrival": 0, "burst": 1, "period": 12}]},
        "versus": {"algorithm": "edf"},
    },
    "rm-harmonic": {
        "title": {"en": "Harmonic periods at U = 1", "ja": "調和周期でU = 1"},
        "lesson": {"en": "Periods 2, 4 and 8 divide each other and U = 1/2 + 1/4 + 2/8 = 1 > 0.780: the bound says "
                         "nothing, yet the exact test gives C R = 8 <= 8 and RM keeps the CPU busy with no miss.",
                   "ja": "周期2、4、8は互いに割り切れ、U = 1/2 + 1/4 + 2/8 = 1 > 0.780: 上限は何も言いませんが、"
                         "厳密な解析ではCのR = 8 <= 8で、RMはCPUを休ませず締切を1つも落としません。"},
        "scenario": {"algorithm": "rm", "tasks": [{"name": "A", "arrival": 0, "burst": 1, "period": 2},
                                                  {"name": "B", "arrival": 0, "burst": 1, "period": 4},
                                                  {"name": "C", "arrival": 0, "burst": 2, "period": 8}]},
        "versus": {"algorithm": "edf"},
    },
    # Locks (issue 23): the Mars Pathfinder inversion under the three protocols, two at a time.
    "pathfinder-inheritance": {
        "title": {"en": "Priority inversion: no protocol against inheritance",
                  "ja": "優先度逆転: プロトコルなしと優先度継承"},
        "lesson": {"en": "L (priority 3) locks R at t=1; H (priority 1) preempts it at 2 and waits for R at 3; M "
                         "(priority 2), which needs no lock, then runs 4 units while H waits: H completes at 10, "
                         "after M. With priority inheritance L runs at H's priority while it blocks H, releases R "
                         "at 4, and H completes at 6.",
                   "ja": "L（優先度3）はt=1にRをロックします。H（優先度1）はt=2にLを横取りし、t=3にRを待ちます。"
                         "ロックを使わないM（優先度2）がその間に4単位実行し、HはMの後のt=10に完了します。"
                         "優先度継承では、LはHを待たせている間Hの優先度で実行し、t=4にRを解放して、Hはt=6に"
                         "完了します。"},
        "scenario": {**PATHFINDER, "protocol": "none"},
        "versus": {"protocol": "inheritance"},
    },
    "pathfinder-ceiling": {
        "title": {"en": "Priority inversion: the priority ceiling against no protocol",
                  "ja": "優先度逆転: 優先度上限プロトコルとプロトコルなし"},
        "lesson": {"en": "Under the immediate priority ceiling L runs at R's ceiling, H's priority 1, from the "
                         "moment it locks R at t=1: H, arriving at 2, does not preempt it; L releases R at 3 and H "
                         "runs from 3 to 6 without ever waiting for the lock. Without a protocol H waits behind M "
                         "and completes at 10.",
                   "ja": "即時優先度上限プロトコルでは、Lはt=1にRをロックした時からRの上限であるHの優先度1で"
                         "実行します。t=2に到着したHはLを横取りせず、Lはt=3にRを解放し、Hはロックを一度も待たずに"
                         "t=3から6まで実行します。プロトコルなしでは、HはMの後ろで待ち、t=10に完了します。"},
        "scenario": {**PATHFINDER, "protocol": "ceiling"},
        "versus": {"protocol": "none"},
    },
}


def versus(name: str) -> dict[str, Any]:
    """The preset's scenario with its ``versus`` changes: the run to compare it with."""
    preset = PRESETS[name]
    return {**preset["scenario"], **preset["versus"]}
