"""What the toy mode draws: the printer and the waiting jobs at a step, the results table, a Compare side (the same
picture at the aligned step) and the whole runs' turnarounds side by side, the quiz's past, the exports' chart."""
from __future__ import annotations

from collections.abc import Sequence

from app.compare import delta_cell, table
from app.frames import Frames, Slot
from app.modes.views import Align, Cell, Chart, ModeViews, Result
from app.panes import pane
from app.render import chip, esc, indexes, number, result_columns, results_table, section
from app.text import label
from schedulers import MODES
from schedulers.trace import pending

from . import NAME

WORDS = {"printer": {"en": "Printer", "ja": "プリンター"}, "waiting": {"en": "Waiting", "ja": "待ち"},
         "nothing": {"en": "nothing", "ja": "なし"}}


def say(lang: str, key: str) -> str:
    return WORDS[key].get(lang, WORDS[key]["en"])


def printer(result: Result, step: int, lang: str) -> str:
    """The job printing over the step's stretch (none at the start or while idle), and those waiting after it."""
    now, where = result["steps"][step], indexes(result["jobs"])
    printing = chip(now["job"], where[now["job"]]) if now.get("job") else esc(say(lang, "nothing"))
    waiting = "".join(chip(name, where[name]) for name in now["waiting"]) or esc(say(lang, "nothing"))
    return section(say(lang, "printer"), f'<p class="toy-printing">{printing}</p>'
                                         f'<p>{esc(say(lang, "waiting"))}: {waiting}</p>', "toy-printer")


def metrics(result: Result, step: int, lang: str) -> str:
    columns, left = result_columns(result), pending(result, step)
    rows = [(job["name"], i, job["name"] in left, [number(job[c]) for c in columns])
            for i, job in enumerate(result["jobs"])]
    averages = MODES[NAME].results.average_row(result)
    return results_table(result, columns, rows, lang, [number(averages[c]) if c in averages else "" for c in columns])


class ToyViews(ModeViews):
    def step_views(self, lab, stepping) -> list:
        return [stepping.slot("state")]

    def step_frames(self, result: Result, lang: str) -> Frames:
        return Frames(len(result["steps"]), {"state": lambda k: printer(result, k, lang),
                                             "metrics": lambda k: metrics(result, k, lang)})

    def columns(self, result: Result) -> Sequence[str]:
        return result_columns(result)

    def compare_frames(self, result: Result, owner: str, at: Align, total: int, lang: str,
                       other: Result | None) -> Frames:
        return Frames(total, {f"{owner}.printer": lambda k: printer(result, at(k), lang)})

    def compare_view(self, result: Result, owner: str, step: int, lab, stepping) -> list:
        return [stepping.slot(f"{owner}.printer")]

    def compare_diff(self, left: Result, right: Result, align: Align, lang: str) -> Slot:
        rows = [(a["name"], [delta_cell(a["turnaround"], b["turnaround"], True)])
                for a, b in zip(left["jobs"], right["jobs"], strict=True)]
        diff = f'<section class="card compare-diff">{table("", label(lang, "job"), [label(lang, "turnaround")], rows)}'
        return lambda k: diff + "</section>"

    def known_state(self, result: Result, step: int, lang: str, presenter: bool) -> list:
        return [pane(printer(result, step, lang))]

    def preview(self, result: Result, lang: str, presenter: bool):
        return pane(metrics(result, len(result["steps"]) - 1, lang))

    def chart(self, result: Result, lang: str) -> Chart:
        """One row per job, its printing stretch."""
        names = [job["name"] for job in result["jobs"]]
        return Chart(names, [Cell(i, job["done"] - job["pages"], job["done"], "", i, job["name"])
                             for i, job in enumerate(result["jobs"])], max((job["done"] for job in result["jobs"]),
                                                                             default=1))


VIEWS = ToyViews()
