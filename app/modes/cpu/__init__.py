"""CPU mode in the lab: tasks with an arrival and a burst on one CPU (``schedulers.cpu``).

``MODE`` is what the view-models read (no Panel): the article's four tasks under FCFS to start with, a task in a link
as ``name:arrival:burst`` then its optional fields and its CPU and I/O bursts when it has them
(``A:0:3:deadline=7``, ``A:0:3:bursts=3%2C2%2C3``), Compare's FCFS beside SRTF, and the core's presets (MLFQ gamed
with I/O, the price of a switch, the Pathfinder inversion). Its
pictures (the Gantt chart, the ready queue, the remaining time, the events, CFS's and EEVDF's numbers) and its
results table are ``views.py``'s.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import fields
from urllib.parse import unquote

from schedulers import schema
from schedulers.fields import format_records
from schedulers.cpu.custom import TaskView
from schedulers.cpu.presets import PRESETS, versus
from schedulers.cpu.scenario import format_bursts

from .. import AppMode, Link, Preset
from ...query import decode_items, encode_item, part
from ...text import LABELS, SHORT

NAME = "cpu"
# A task's CPU time in the results is the column "cpu", a name only this package may spell (tests/test_mode_names.py):
# its words join the shared tables here.
LABELS[NAME] = {"en": "CPU time", "ja": "CPU 時間"}
SHORT[NAME] = {"en": "CPU", "ja": "CPU"}
REQUIRED = schema(NAME).required   # name:arrival:burst
# :deadline=... :priority=... :tickets=... :nice=..., then the fields that replace a required one (:bursts=...),
# then the lists of records in their compact text (:sections=R%3A1%3A2)
OPTIONAL = (*schema(NAME).optional, *(f.name for f in schema(NAME).item_fields if f.instead_of),
            *(f.name for f in schema(NAME).item_fields if f.type == "records"))
SECTIONS = schema(NAME).field("sections")
VIEW = ", ".join(f.name for f in fields(TaskView))   # what your choose sees of a task, as the core gives it
ARTICLE = (("A", "0", "7"), ("B", "1", "4"), ("C", "2", "1"), ("D", "4", "3"))   # the article's four tasks


def encode_tasks(rows: Sequence[Mapping[str, str]]) -> str:
    return ",".join(encode_item(row, [part(row.get(f, "")) for f in REQUIRED], OPTIONAL) for row in rows)


def decode_tasks(value: str) -> list[dict[str, str]]:
    return decode_items(value, len(REQUIRED), ":".join(REQUIRED),
                        lambda parts: {f: unquote(p) for f, p in zip(REQUIRED, parts)}, OPTIONAL)


WORDS = {
    "label": {"en": "CPU", "ja": "CPU"},
    "help": {
        "en": "Pick an algorithm, edit the tasks, then step through the run. Every step shows who runs, who waits "
              "and why; the table always shows the whole run's results. The address bar keeps the whole setup: "
              "copy it to share exactly this view.",
        "ja": "アルゴリズムを選び、タスクを編集して、実行を 1 ステップずつ追ってください。"
              "各ステップで誰が実行し誰が待つか、"
              "その理由が表示されます。表は常に実行全体の結果です。アドレスバーに設定がすべて入るので、"
              "コピーすればこの画面をそのまま共有できます。"},
    "question": {"en": "Which task runs over t={t} → {next}?",
                 "ja": "t={t} → {next} に実行されるのはどのタスクですか？"},
    "question on a cpu": {"en": "Which task runs on CPU {cpu} over t={t} → {next}?",
                          "ja": "t={t} → {next} に CPU {cpu} で実行されるのはどのタスクですか？"},
    "api": {
        "en": "Define choose(ready, running, time, state) and return a task's name. It is called at every time unit "
              f"at which a task is ready. ready: the waiting tasks in queue order ({VIEW}; with I/O, burst and "
              "remaining are the current CPU burst's); running: the task that ran last and is neither finished nor "
              "in I/O, or None. Return running.name to keep it, another ready task's name to dispatch it "
              "(preempting). state: a dict of your own. Fraction is built in; import, try and names starting with _ "
              "are not available.",
        "ja": "choose(ready, running, time, state) を定義し、タスク名を返してください。"
              "実行可能なタスクがある各時刻に呼ばれます。"
              f"ready: 待ちタスク（キュー順。{VIEW}。I/O があるとき burst と remaining は現在の CPU バーストの"
              "値です）。"
              "running: 直前に実行していて、完了も I/O 中もしていないタスクか None。running.name を返すと続行、"
              "別の待ちタスク名を"
              "返すとそれを実行（横取り）します。state: 自由に使える dict。Fraction が使えます。import、try、_ "
              "で始まる名前は"
              "使えません。"},
    "chart": {"en": "Timeline ({algorithm})", "ja": "タイムライン（{algorithm}）"},
    # the options of the yes/no parameters, as the editor's lists offer them (model.choice_options)
    "option.io_resets_allotment.true": {"en": "level kept", "ja": "段を維持"},
    "option.io_resets_allotment.false": {"en": "CPU counted", "ja": "CPU を数える"},
    "option.io_to_front.true": {"en": "to the front", "ja": "先頭へ"},
    "option.io_to_front.false": {"en": "to the back", "ja": "末尾へ"},
    "option.step_details.true": {"en": "kept", "ja": "含める"},
    "option.step_details.false": {"en": "left out", "ja": "含めない"},
    "option.on_miss.continue": {"en": "runs on", "ja": "最後まで実行"},
    "option.on_miss.abort": {"en": "dropped", "ja": "打ち切る"},
    "option.queues.global": {"en": "one for all CPUs", "ja": "全 CPU で 1 つ"},
    "option.queues.per-cpu": {"en": "one per CPU", "ja": "CPU ごと"},
    "option.steal.true": {"en": "on", "ja": "する"},
    "option.steal.false": {"en": "off", "ja": "しない"},
    "option.protocol.none": {"en": "no protocol", "ja": "プロトコルなし"},
    "option.protocol.inheritance": {"en": "priority inheritance", "ja": "優先度継承"},
    "option.protocol.ceiling": {"en": "priority ceiling", "ja": "優先度上限"},
}

def preset(name: str) -> Preset:
    """One of the core's presets (``schedulers.cpu.presets``), Compare's other run its ``versus``."""
    words, scenario = PRESETS[name], PRESETS[name]["scenario"]
    other = {key: value for key, value in versus(name).items() if key != "tasks"} if "versus" in words else None
    return Preset({"label": words["title"], "summary": words["lesson"]}, scenario, other)


MODE = AppMode(name=NAME, words=WORDS, algorithm="fcfs", rows=tuple(dict(zip(REQUIRED, task)) for task in ARTICLE),
               link=Link(encode_tasks, decode_tasks), compare=("fcfs", "srtf"),
               item_text={"bursts": format_bursts, "sections": lambda records: format_records(SECTIONS, records)},
               presets={name: preset(name) for name in PRESETS})
