"""The CPU trace as readable text: a timeline, the metrics table and the summary, in English or Japanese."""
from __future__ import annotations

from decimal import Decimal
from fractions import Fraction
from collections.abc import Callable, Iterator
from itertools import chain, groupby, islice
from typing import Any

from ..fields import format_records
from ..narration import render
from ..schema import Results
from .scenario import PARAMETERS

PARAMETER = {field.name: field for field in PARAMETERS}

TEXT_NEEDS_STEPS = False   # the text is the timeline, the table and the summary: the CLI makes no trace for it
MAX_SEGMENTS = 200   # timeline segments printed; the JSON has them all
MAX_CHART = 120      # time units drawn as one letter each, when every name is a single character

WORDS = {
    "en": {"algorithm": "algorithm", "timeline": "timeline", "idle": "idle", "more": "{n} more {n:segment|segments}",
           "columns": {"name": "task", "arrival": "arrival", "burst": "burst", "completion": "completion",
                       "turnaround": "turnaround", "waiting": "waiting", "response": "response", "cpu": "cpu",
                       "io": "io", "deadline": "deadline", "missed": "missed", "period": "period",
                       "relative_deadline": "relative deadline", "jobs": "jobs", "misses": "misses",
                       "max_lateness": "max lateness", "max_response": "max response"},
           "yes": "yes", "no": "no", "average": "average",
           "makespan": "makespan", "busy": "busy", "utilisation": "utilisation",
           "switches": "context switches", "misses": "deadline misses", "trace": "trace",
           "switch": "switch to {task}", "switch_summary": "switches {count} ({time} time {time:unit|units})"},
    "ja": {"algorithm": "アルゴリズム", "timeline": "タイムライン", "idle": "空き", "more": "ほか{n}区間",
           "columns": {"name": "タスク", "arrival": "到着", "burst": "実行時間", "completion": "完了",
                       "turnaround": "ターンアラウンド", "waiting": "待ち", "response": "応答", "cpu": "CPU",
                       "io": "I/O", "deadline": "締切", "missed": "超過", "period": "周期",
                       "relative_deadline": "相対締切", "jobs": "ジョブ", "misses": "超過数",
                       "max_lateness": "最大遅れ", "max_response": "最大応答"},
           "yes": "あり", "no": "なし", "average": "平均",
           "makespan": "メイクスパン", "busy": "使用", "utilisation": "利用率",
           "switches": "コンテキストスイッチ", "misses": "締切超過", "trace": "トレース",
           "switch": "{task}への切り替え", "switch_summary": "切り替え{count}回（{time}時間単位）"},
}
SWITCH_MARK = "~"   # a time unit spent switching, in the one-letter chart


def text_renderer(results: Results) -> Callable[[dict[str, Any], str], str]:
    """The mode's ``render_text``, its table's columns read from ``results`` (the mode's ``Results``). A column of
    the text table without its words in a language fails here, when the mode is made, not in a user's run."""
    missing = sorted({f"{lang}: {column.name}" for lang, words in WORDS.items() for column in results.columns
                      if column.text and column.name not in words["columns"]})
    if missing:
        raise ValueError(f"the text table has no words for the columns {', '.join(missing)} (schedulers/cpu/text.py)")

    def render_text(result: dict[str, Any], lang: str = "en") -> str:
        words = WORDS[lang]
        parameters = shown_parameters(result)
        lines = [f"{words['algorithm']}: {result['algorithm']}" + (f" ({parameters})" if parameters else ""), ""]
        if "timelines" in result:   # several CPUs: one chart each
            for number, timeline in enumerate(result["timelines"]):
                lines += [f"CPU {number}"] + timeline_lines(timeline, words)
        else:
            lines += timeline_lines(result["timeline"], words)
        lines += [""] + table_lines(result, words, results) + [""]
        summary = result["summary"]
        lines.append(f"{words['makespan']} {summary['makespan']}, {words['busy']} {summary['busy']}, "
                     f"{words['idle']} {summary['idle']}, {words['utilisation']} "
                     f"{ratio(result['exact']['utilisation'])}, {words['switches']} {summary['context_switches']}"
                     + (f", {words['misses']} {summary['deadline_misses']}"
                        if any("deadline" in task or "jobs" in task for task in result["tasks"]) else "")
                     + (", " + render(words["switch_summary"], count=result["switches"], time=result["switch_time"])
                        if result.get("switch_time") else ""))
        if result.get("deadlock"):   # a deadlock ended the run: who waits for what
            lines.append(result["deadlock"]["why"][lang])
        return "\n".join(lines)
    return render_text


def ratio(exact: str) -> str:
    """An exact value as a teacher writes it: "1", "5.75" (a finite decimal), "7/11 (0.6364)"."""
    if "/" not in exact:
        return exact
    value = Fraction(exact)
    denominator = value.denominator
    for prime in (2, 5):
        while denominator % prime == 0:
            denominator //= prime
    if denominator == 1:   # the decimal expansion ends: print it exactly
        return str(Decimal(value.numerator) / Decimal(value.denominator))
    return f"{exact} ({float(value):.4g})"


def timeline_lines(timeline: list[str | dict[str, str] | None], words: dict[str, Any]) -> list[str]:
    lines = [f"{words['timeline']}:"]
    if len(timeline) <= MAX_CHART and all(entry is None or type(entry) is dict or len(entry) == 1
                                          for entry in timeline):
        ticks = "".join(f"{t:<5}" for t in range(0, len(timeline) + 1, 5))
        lines += ["  " + ticks.rstrip(),
                  "  " + "".join(SWITCH_MARK if type(entry) is dict else entry or "." for entry in timeline)]
    segments, start = groupby(timeline), 0
    for entry, run in islice(segments, MAX_SEGMENTS):
        length = len(list(run))
        shown = entry if type(entry) is str else "(" + (words["idle"] if entry is None else
                                                        render(words["switch"], task=entry["switch"])) + ")"
        lines.append(f"  [{start}, {start + length}) {shown}")
        start += length
    hidden = sum(1 for _ in segments)   # only counted: a 10^6-unit timeline may have 10^6 segments
    if hidden:
        lines.append("  … " + render(words["more"], n=hidden))
    return lines


def table_lines(result: dict[str, Any], words: dict[str, Any], results: Results) -> list[str]:
    columns = [column.name for column in results.shown(result) if column.text]
    header = [words["columns"][name] for name in columns]

    def cells(task: dict[str, Any]) -> list[str]:
        return [("-" if name not in task else words["yes"] if task[name] else words["no"]) if name == "missed"
                else "-" if task.get(name) is None else str(task[name]) for name in columns]

    exact = result["exact"]["averages"]
    average = [words["average"], *(ratio(exact[name]) if name in exact else "" for name in columns[1:])]

    def table() -> Iterator[list[str]]:   # made twice, to measure and then to write: 10^5 rows never sit in memory
        return chain([header], map(cells, result["tasks"]), [average])

    widths = [0] * len(header)
    for row in table():
        widths = list(map(max, widths, map(len, row) if plain(row) else map(width, row)))
    return ["  ".join(map(str.ljust, row, widths) if plain(row) else map(pad, row, widths)).rstrip()
            for row in table()]


def plain(row: list[str]) -> bool:
    """ASCII only, the usual row: one column per character, so it is measured and padded in C."""
    return "".join(row).isascii()


def width(text: str) -> int:
    """Display width: East Asian wide characters take two columns."""
    import unicodedata
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def pad(text: str, size: int) -> str:
    return text + " " * (size - width(text))


# --- OSTEP-style homework: the problem without its answers (--problem), and a line per event (--trace) -------------

PROBLEM = {
    "en": {"jobs": "Here is the job list, with the arrival and run time of each job:",
           "job": "  Job {name} ( arrival = {arrival}, length = {length}{io} )",
           "io": ": {bursts}", "sep": ", ",   # the whole length, burst by burst: "CPU 3, I/O 1, CPU 2"
           "ask": "Compute the response time, turnaround time and wait time of each job under {algorithm}{parameters}.",
           "answers": "Run the same command without --problem to see the answers."},
    "ja": {"jobs": "各ジョブの到着時刻と実行時間は次のとおりです:",
           "job": "  ジョブ {name}（到着 = {arrival}、長さ = {length}{io}）",
           "io": ": {bursts}", "sep": "、",
           "ask": "{algorithm}{parameters}での各ジョブの応答時間、ターンアラウンド時間、待ち時間を求めてください。",
           "answers": "答えは --problem を付けずに同じコマンドを実行すると表示されます。"},
}
TRACE = {
    "en": {"arrive": "Arrive {task}", "return": "{task} returns from I/O", "block": "{task} starts I/O until t={until}",
           "complete": "Finished {task}", "demote": "{task} moves down to level {level}", "boost": "Boost",
           "idle": "Idle", "switch": "Switch to {task}", "run": "Run {task}", "level": " at level {level}",
           "quantum": ", {left} left of its quantum", "allotment": ", quantum {used} of {total} at this level",
           "draw": "Winning ticket {ticket} of {tickets}: ", "expire": "{task}'s quantum ends",
           "preempt": "{task} is preempted", "steal": "CPU {cpu} steals {task} from CPU {source}'s queue",
           "lock": "{task} locks {resource}", "wait": "{task} waits for {resource}, held by {holder}",
           "unlock": "{task} releases {resource}", "deadlock": "Deadlock: the run ends"},
    "ja": {"arrive": "{task}が到着", "return": "{task}がI/Oから復帰", "block": "{task}はt={until}までI/O",
           "complete": "{task}が完了", "demote": "{task}がレベル{level}へ降格", "boost": "ブースト",
           "idle": "空き", "switch": "{task}への切り替え", "run": "{task}を実行", "level": "（レベル{level}）",
           "quantum": "、クォンタム残り{left}", "allotment": "、このレベルの{total}回中{used}回目のクォンタム",
           "draw": "当たりくじ{ticket}（全{tickets}枚）: ", "expire": "{task}のクォンタム終了",
           "preempt": "{task}が横取りで中断", "steal": "CPU {cpu}がCPU {source}のキューから{task}をスチール",
           "lock": "{task}が{resource}をロック", "wait": "{task}が{resource}を待機（{holder}が保持）",
           "unlock": "{task}が{resource}を解放", "deadlock": "デッドロック: 実行はここで終了"},
}


def shown_parameters(result: dict[str, Any], switch_cost: int | None = None) -> str:
    """The run's parameters as the command line takes them (booleans as it writes them, io_to_front=true; a list of
    records in its compact text, classes=rr:quantum=2;fcfs), then the switch cost and the conventions when given:
    everything the answers depend on."""
    def shown(key: str, value: Any) -> str:
        if isinstance(value, list) and value and isinstance(value[0], dict):
            return format_records(PARAMETER[key], value)
        return str(value).lower() if isinstance(value, bool) else str(value)
    pairs = [f"{key}={shown(key, value)}" for key, value in result["parameters"].items() if value is not None]
    if switch_cost:
        pairs.append(f"switch_cost={int(switch_cost)}")   # JSON may write it 2.0
    conventions = result.get("conventions")
    if conventions is not None:
        flags = ", ".join(f"{key}={shown(key, value)}" for key, value in conventions.items() if key != "name")
        pairs.append(f"conventions={conventions['name']}" if conventions["name"] else f"conventions=({flags})")
    return ", ".join(pairs)


def render_problem(scenario: dict[str, Any], result: dict[str, Any], lang: str = "en") -> str:
    """The jobs and the question, as OSTEP's simulators print them without ``-c``."""
    words = PROBLEM[lang]
    parameters = shown_parameters(result, scenario.get("switch_cost"))
    lines = [words["jobs"]]
    for task, row in zip(scenario["tasks"], result["tasks"]):
        bursts = task.get("bursts")
        shown = render(words["io"], bursts=words["sep"].join(f"{'I/O' if i % 2 else 'CPU'} {n}" for i, n in
                                                        enumerate(bursts))) if isinstance(bursts, list) and \
            len(bursts) > 1 else ""
        lines.append(render(words["job"], name=row["name"], arrival=row["arrival"], length=row["burst"], io=shown))
    lines += ["", render(words["ask"], algorithm=result["algorithm"], parameters=f" ({parameters})" if parameters
                                      else ""), words["answers"]]
    return "\n".join(lines)


def render_trace(result: dict[str, Any], lang: str = "en") -> str:
    """One line per event, OSTEP's ``[ time 4 ] Run A at level 1, 1 left of its quantum`` (the time of the instant;
    a ``Run`` line for each time unit, with what is left after it; under MLFQ with an allotment of several quanta,
    which of them it is, as OSTEP's ALLOT), from the steps and their details."""
    words = TRACE[lang]
    allotment = result["parameters"].get("allotment")   # MLFQ's quanta per level
    lines = []
    for step in result["steps"][1:]:
        start = step["time"] - 1
        for e in step["events"]:
            if e["kind"] in words and e["kind"] not in ("idle", "switch", "expire") and e["time"] == start:
                lines.append(f"[ time {start} ] " + render(words[e["kind"]], **{"until": None, "level": None, **e}))
        if step.get("running") is not None:
            run = render(words["draw"], **step["draw"]) if "draw" in step else ""
            run += render(words["run"], task=step["running"])
            if "level" in step:
                run += render(words["level"], level=step["level"])
            if "quantum_left" in step:
                run += render(words["quantum"], left=step["quantum_left"])
            if "allotment_left" in step and allotment[step["level"]] > 1:
                total = allotment[step["level"]]
                run += render(words["allotment"], used=total - step["allotment_left"] + 1, total=total)
            lines.append(f"[ time {start} ] {run}")
        elif step.get("switch") is not None:
            lines.append(f"[ time {start} ] " + render(words["switch"], task=step["switch"]))
        else:
            lines.append(f"[ time {start} ] " + words["idle"])
        for e in step["events"]:
            if e["kind"] in ("complete", "block", "demote", "expire", "unlock", "wait", "deadlock") \
                    and e["time"] == step["time"]:
                lines.append(f"[ time {e['time']} ] " + render(words[e["kind"]], **{"until": None, "level": None, **e}))
    return "\n".join(lines)
