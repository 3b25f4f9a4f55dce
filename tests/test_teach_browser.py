"""The teaching features in real Chromium, on the served app (the app tests' `panel serve` fixture and page helper):
compare, the predict-the-next-step quiz, the rule's source, your own policy, exports. Every expected value comes
from the core in this process."""
from __future__ import annotations

import csv
import io
import json
import struct
import subprocess
import sys
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest

from app.render import number
from schedulers import MODES, simulate
from schedulers.custom import TEMPLATES
from schedulers.export import cell
from schedulers.custom import run as run_policy
from schedulers.exercises import cpu_exercise
from schedulers.quiz import questions
from schedulers.rule import deciding_lines, rule_source
from schedulers.llm.steps import compare_so_far
from tests.test_app_browser import ARTICLE, ROOT, TIMEOUT, Lab, expect, expect_table

pytestmark = pytest.mark.browser

SRTF = {**ARTICLE, "algorithm": "srtf"}
ARTICLE_QUERY = "mode=cpu&algorithm={}&tasks=A:0:7,B:1:4,C:2:1,D:4:3"
REFERENCE_QUERY = "mode=llm&algorithm={}&tenants=A:8x6,B:2x6,C:2x4:join=6"


# [the width a menu's option text needs in the menu's font, the width the closed menu shows it in] (px)
TEXT_FITS_JS = """(e, text) => {
    const style = getComputedStyle(e), pen = document.createElement("canvas").getContext("2d")
    pen.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`
    return [pen.measureText(text).width, e.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight)]
}"""


def tab(lab: Lab, title: str) -> None:
    lab.page.locator(".teach-tabs button", has_text=title).click()


def expect_text(locator, text: str) -> None:
    expect(locator).to_contain_text(text, timeout=TIMEOUT)


# --- compare ----------------------------------------------------------------------------------------------

def test_compare_steps_both_sides_and_highlights_the_differences(lab, test_output):
    lab.open()
    tab(lab, "Compare")
    right = lab.page.locator(".compare-right")
    expect_text(right, "Right: SRTF")
    for _ in range(3):
        lab.page.locator(".step-next button").first.click()
    srtf, fcfs = simulate("cpu", SRTF), simulate("cpu", ARTICLE)
    expect_text(right.locator(".counter"), "step 4/16")
    expect(right.locator(".why")).to_have_text(srtf["steps"][3]["why"]["en"], timeout=TIMEOUT)
    expect(lab.page.locator(".compare-left .why")).to_have_text(fcfs["steps"][3]["why"]["en"], timeout=TIMEOUT)
    average = lab.page.locator(".compare-table tbody tr", has_text="Average")
    expect_text(average, "5.75 → 2.75 (-3)")
    # The whole runs' results, whatever the step: said so above the table.
    expect(lab.page.locator(".compare-table caption")).to_have_text("Whole runs, from the first step to the last")
    assert "diff-better" in average.locator("td").nth(0).get_attribute("class")
    task_a = lab.page.locator(".compare-table tbody tr").nth(0)
    assert "0 → 8 (+8)" in task_a.inner_text() and "diff-worse" in task_a.locator("td").nth(0).get_attribute("class")
    lab.shot(test_output, "teach-compare-fcfs-srtf")
    # A parameter set: RR with quantum 1 on the right.
    lab.page.locator(".compare-algorithm select").select_option(label="Round Robin")
    box = lab.page.locator(".compare-param-quantum input")
    box.fill("1")
    box.press("Enter")
    rr = simulate("cpu", {**ARTICLE, "algorithm": "rr", "quantum": 1})
    expect_text(lab.page.locator(".compare-table tbody tr", has_text="Average"),
                f"5.75 → {rr['averages']['waiting']:.2f}")
    expect_text(right, "Right: Round Robin")


def test_compare_llm_round_robin_against_sfq(lab, test_output):
    """Like with like at each step: before t=6 nothing to compare; then both runs over the same interval, the
    figures the core's ``compare_so_far`` gives at that step (at the end Jain's 3/5 against 2/3, gap 4 against 8
    over t=6 … 8)."""
    lab.open(REFERENCE_QUERY.format("sfq"))
    tab(lab, "Compare")
    expect_text(lab.page.locator(".compare-right"), "Per-tenant round robin")
    menu = lab.page.locator(".compare-algorithm select")
    for name in ("Per-tenant round robin", "WFQ (self-clocked, estimated cost)"):   # the longest names, whole
        needed, room = menu.evaluate(TEXT_FITS_JS, name)
        assert needed <= room, (name, needed, room)
    rr, sfq = simulate("llm", {**reference(), "algorithm": "rr"}), simulate("llm", reference())
    diff = lab.page.locator(".compare-diff")
    before = max(k for k, step in enumerate(sfq["steps"]) if step["time"] < 6)
    lab.page.locator(".step-slider input").fill(str(before))
    expect_text(lab.page.locator(".compare-left .counter"), f"step {before + 1}/{len(sfq['steps'])}")
    assert compare_so_far(sfq, before, rr)["interval"] is None
    expect_text(diff, "No fairness figures to compare yet")
    expect(diff.locator(".diff-better, .diff-worse")).to_have_count(0)
    lab.page.locator(".step-last button").first.click()
    last = len(sfq["steps"]) - 1
    both = compare_so_far(sfq, last, rr)
    assert (both["interval"]["start"], both["interval"]["end"]) == (6, 8)
    one, other = both["left"], both["right"]
    expect_text(diff, "While every tenant was waiting in both runs: t=6 … 8 (3 dispatches)")
    jain = diff.locator(".compare-table tbody tr", has_text="Jain")
    expect_text(jain, f"{number(one['jain'])} ({one['exact']['jain']}) → {number(other['jain'])} "
                      f"({other['exact']['jain']})")
    assert (one["exact"]["jain"], other["exact"]["jain"]) == ("3/5", "2/3")
    gap = diff.locator(".compare-table tbody tr", has_text="Largest difference")
    gaps = [side["pairwise_bound"]["max_gap"] for side in (one, other)]
    assert gaps == [4, 8]
    expect_text(gap, f"{gaps[0]} → {gaps[1]} (+4)")
    assert "diff-worse" in gap.locator("td").get_attribute("class")   # RR's widest gap is twice SFQ's there
    received = diff.locator(".compare-table").first   # cost ÷ weight so far: neither side is better
    expect_text(received, "the first 16 dispatches of each run")
    expect(received.locator(".diff-better, .diff-worse")).to_have_count(0)
    lab.shot(test_output, "teach-compare-llm")


def reference():
    return {"algorithm": "sfq", "tenants": [{"name": "A", "cost": 8, "count": 6}, {"name": "B", "cost": 2, "count": 6},
                                            {"name": "C", "cost": 2, "count": 4, "join": 6}]}


# --- quiz ---------------------------------------------------------------------------------------------------

def test_quiz_right_and_wrong_answers_and_the_score(lab, test_output):
    lab.open(ARTICLE_QUERY.format("srtf"))
    tab(lab, "Predict")
    result = simulate("cpu", SRTF)
    first = questions(result)[0]
    lab.page.locator(".quiz-next button").click()   # at t=0 only A is there: on to the first real choice
    buttons = lab.page.locator(".quiz-choice button")
    expect(buttons).to_have_count(len(first.candidates), timeout=TIMEOUT)
    assert [b.strip() for b in buttons.all_inner_texts()] == list(first.candidates)
    lab.shot(test_output, "teach-quiz-question")
    expect_text(lab.page.locator(".quiz-question"), f"t={first.time} → {first.time + 1}")
    # The future is hidden: no results table, no tooltips.
    assert lab.page.locator("table.metrics").count() == 0
    wrong = next(name for name in first.candidates if name != first.answer)
    lab.page.locator(".quiz-choice button", has_text=wrong).click()
    feedback = lab.page.locator(".quiz-feedback")
    expect_text(feedback, f"Not {wrong}: {first.answer} runs.")
    expect_text(feedback, first.why["en"])
    expect_text(lab.page.locator(".quiz-score"), "Score: 0 of 1")
    lab.shot(test_output, "teach-quiz-wrong")
    lab.page.locator(".quiz-next button").click()
    second = questions(result)[1]
    expect_text(lab.page.locator(".quiz-question"), f"t={second.time} → {second.time + 1}")
    lab.page.locator(".quiz-choice button", has_text=second.answer).click()
    expect_text(lab.page.locator(".quiz-feedback"), f"Right: {second.answer}.")
    expect_text(lab.page.locator(".quiz-score"), "Score: 1 of 2")
    lab.shot(test_output, "teach-quiz-right")
    # In Japanese: the same feedback from the core's own explanation.
    lab.page.locator(".bk-btn", has_text="日本語").click()
    expect_text(lab.page.locator(".quiz-feedback"), second.why["ja"])
    expect_text(lab.page.locator(".quiz-score"), "得点: 2 問中 1 問")
    expect(lab.page.locator(".teach-tabs button", has_text="予想クイズ")).to_be_visible(timeout=TIMEOUT)


def test_a_seeded_exercise_is_the_command_lines(lab, test_output):
    lab.open(ARTICLE_QUERY.format("srtf"))
    tab(lab, "Predict")
    seed = lab.page.locator(".quiz-seed input")
    seed.fill("10")
    seed.press("Enter")
    lab.page.locator(".quiz-new button").click()
    exercise = cpu_exercise(10)["tasks"]
    for row, task in enumerate(exercise):
        expect(lab.field("arrival", row)).to_have_value(str(task["arrival"]), timeout=TIMEOUT)
        expect(lab.field("burst", row)).to_have_value(str(task["burst"]))
    expect_text(lab.page.locator(".quiz-score"), "python -m schedulers cpu --seed 10 --algorithm srtf")
    asked = questions(simulate("cpu", {**cpu_exercise(10), "algorithm": "srtf"}))[0]
    expect(lab.page.locator(".quiz-choice button")).to_have_count(len(asked.candidates), timeout=TIMEOUT)
    lab.page.locator(".quiz-choice button", has_text=asked.answer).click()
    expect_text(lab.page.locator(".quiz-score"), "Score: 1 of 1")
    lab.shot(test_output, "teach-quiz-seed")


# --- the rule itself ----------------------------------------------------------------------------------------

def marked(lab: Lab) -> list[int]:
    return [int(n) for n in lab.page.locator(".source-view .line.mark").evaluate_all(
        "lines => lines.map(line => line.dataset.line)")]


def test_the_source_beside_the_timeline_marks_the_deciding_lines(lab, test_output):
    lab.open(ARTICLE_QUERY.format("srtf") + "&step=3")
    result = simulate("cpu", SRTF)
    source = rule_source("cpu", "srtf")
    step = result["steps"][2]
    assert step["decision"] == "preempt"
    expect_text(lab.page.locator(".source-view"), "class SRTF(Policy):")
    want = sorted(deciding_lines(source, step)["schedulers/cpu/policies.py"])
    expect(lab.page.locator(".source-view .line.mark")).to_have_count(len(want), timeout=TIMEOUT)
    assert marked(lab) == want
    marks = lab.page.locator(".source-view .line.mark").all_inner_texts()
    assert "candidate.remaining < running.remaining" in marks[-1]
    expect_text(lab.page.locator(".source-view"), "preempts(), key()")
    lab.shot(test_output, "teach-source-srtf-preempt")
    # FCFS while A simply continues: the rule is not asked.
    lab.open(ARTICLE_QUERY.format("fcfs") + "&step=4")
    expect_text(lab.page.locator(".source-view"), "the rule is not asked")
    assert lab.page.locator(".source-view .line.mark").count() == 0
    # SFQ: the pick and the charge after it, from MeterPolicy.
    lab.open(REFERENCE_QUERY.format("sfq") + "&step=4")   # steps 2 and 3 are the joins of A and B
    expect_text(lab.page.locator(".source-view"), "MeterPolicy.charge")
    texts = " ".join(lab.page.locator(".source-view .line.mark").all_inner_texts())
    assert "self.virtual_time = self.meter[decision.tenant]" in texts
    lab.shot(test_output, "teach-source-sfq")


# --- your own policy ---------------------------------------------------------------------------------------

def write_code(lab: Lab, code: str) -> None:
    area = lab.page.locator(".policy-code textarea")
    area.fill(code)
    area.blur()   # the code reaches Python before the click: the browser sends the two in order
    lab.page.locator(".policy-run button").click()


def test_your_fcfs_reproduces_fcfs_and_a_broken_one_leaves_the_page_working(lab, test_output):
    lab.open()
    tab(lab, "Your policy")
    write_code(lab, TEMPLATES["cpu"])
    expect_text(lab.page.locator(".policy-ok"), "Your policy ran")
    expect(lab.page.locator(".editor select").first).to_have_value("Your policy (choose)", timeout=TIMEOUT)
    fcfs = simulate("cpu", ARTICLE)
    mine = run_policy("cpu", ARTICLE, TEMPLATES["cpu"])
    assert mine["timeline"] == fcfs["timeline"]
    lab.shot(test_output, "teach-custom-ok")
    tab(lab, "Step through")
    expect_table(lab, fcfs)
    lab.page.locator(".step-next button").first.click()
    lab.page.locator(".step-next button").first.click()
    lab.expect_step(3, 16)
    expect(lab.narration()).to_have_text(mine["steps"][2]["why"]["en"], timeout=TIMEOUT)
    expect(lab.page.locator(".source-view .line.mark")).to_have_count(2, timeout=TIMEOUT)   # the lines choose() ran
    # A broken policy: its error with the line; the last valid run stays; the page keeps working.
    tab(lab, "Your policy")
    write_code(lab, "def choose(ready, running, time, state):\n    x = len(ready)\n    return ready[x].name\n")
    error = lab.page.locator(".policy-error")
    expect_text(error, "line 3: IndexError: tuple index out of range at t=0")
    expect(error.locator(".line.bad")).to_have_attribute("data-line", "3")
    lab.shot(test_output, "teach-custom-error")
    write_code(lab, "def choose(ready, running, time, state):\n    while True:\n        pass\n")
    expect_text(lab.page.locator(".policy-error"), "more than 100000 lines executed in one call at t=0")
    write_code(lab, "import os\n")
    expect_text(lab.page.locator(".policy-error"), "line 1: import is not available")
    lab.page.locator(".bk-btn", has_text="日本語").click()
    expect_text(lab.page.locator(".policy-error"), "1 行目: ポリシーでは import は使えません")
    lab.shot(test_output, "teach-custom-error-ja")
    lab.page.locator(".bk-btn", has_text="English").click()
    tab(lab, "Step through")
    lab.page.locator(".step-next button").first.click()
    lab.expect_step(4, 16)
    expect_table(lab, fcfs)
    assert lab.page.locator(".editor select").first.input_value() == "Your policy (choose)"


# --- exports -----------------------------------------------------------------------------------------------

def download(lab: Lab, css: str) -> Path:
    with lab.page.expect_download(timeout=TIMEOUT) as info:
        lab.page.locator(f".{css}").first.click()
    return Path(info.value.path())


def downloaded_csv(lab: Lab, result: dict) -> list[dict[str, str]]:
    """The metrics CSV the page downloads: its rows and average (returned), then its ``run`` rows, which must be the
    core's figures of the run, in order (``Results.totals``)."""
    every = list(csv.DictReader(io.StringIO(download(lab, "export-csv").read_text(encoding="utf-8"))))
    rows = [row for row in every if row["row"] != "run"]
    name, value = list(every[0])[1:3]   # a figure's name and value stand in the second and third columns
    figures = MODES[result["mode"]].results.totals(result)
    assert [(row[name], row[value]) for row in every[len(rows):]] == [(key, str(cell(v))) for key, v in figures.items()]
    return rows


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR"
    return struct.unpack(">II", data[16:24])


@pytest.mark.parametrize("query, mode", [(ARTICLE_QUERY.format("rr") + "&quantum=2", "cpu"),
                                         (REFERENCE_QUERY.format("sfq"), "llm")])
def test_exports_download_and_parse_back(lab, test_output, tmp_path, query, mode):
    lab.open(query + "&step=5")
    tab(lab, "Export")
    scenario = {**ARTICLE, "algorithm": "rr", "quantum": 2} if mode == "cpu" else reference()
    result = simulate(mode, scenario)
    expect(lab.page.locator(".export-json")).to_be_visible(timeout=TIMEOUT)
    saved = download(lab, "export-json").read_bytes()
    (tmp_path / "scenario.json").write_text(json.dumps(scenario), encoding="utf-8")
    printed = subprocess.run([sys.executable, "-m", "schedulers", mode, "--scenario", str(tmp_path / "scenario.json"),
                              "--json"], capture_output=True, check=True, cwd=ROOT).stdout
    assert saved == printed and saved.endswith(b"}\n")   # byte for byte the command line's, its newline too
    assert json.loads(saved) == result
    note = lab.page.locator("p.muted", has_text="byte for byte")   # the command as words, not Markdown
    expect_text(note, f"python -m schedulers {mode} --json")
    assert "`" not in note.inner_text()
    rows = downloaded_csv(lab, result)
    items = result["tasks"] if mode == "cpu" else result["tenants"]
    assert [r["name"] for r in rows[:-1]] == [item["name"] for item in items] and rows[-1]["row"] == "average"
    svg_text = download(lab, "export-svg").read_text(encoding="utf-8")
    (test_output / f"teach-chart-{mode}.svg").write_text(svg_text, encoding="utf-8")
    svg = ElementTree.fromstring(svg_text)
    assert svg.tag == "{http://www.w3.org/2000/svg}svg"
    labels = {node.text for node in svg.iter("{http://www.w3.org/2000/svg}text")}
    assert {item["name"] for item in items} <= labels
    png = download(lab, "png-download").read_bytes()
    (test_output / f"teach-chart-{mode}.png").write_bytes(png)
    width, height = png_size(png)
    assert (width, height) == (2 * int(svg.get("width")), 2 * int(svg.get("height")))
    link = lab.page.locator(".export-link input").input_value()
    assert link.startswith(lab.base + "?") and "step=5" in link
    lab.shot(test_output, f"teach-export-{mode}")
    lab.page.goto(link)
    lab.expect_step(5, len(result["steps"]))
