"""The frames the pager shows (app/frames.py), without a browser: a window's chunks put back together are exactly
what the modes' views draw for each step, the strip's marks say what ``dispatch_strip`` draws, and a long run's
window keeps to its byte budget around the step it was asked for."""
from __future__ import annotations

import re

import pytest

pytest.importorskip("panel")

from app import frames, render
from app.model import Lab
from app.modes.cpu import views as cpu_views
from app.modes.engine.views import EngineView
from app.modes.llm import views as llm_views
from app.source import SourceView
from schedulers import simulate

ARTICLE = [{"name": "A", "arrival": 0, "burst": 7}, {"name": "B", "arrival": 1, "burst": 4},
           {"name": "C", "arrival": 2, "burst": 1}, {"name": "D", "arrival": 4, "burst": 3}]
REFERENCE = [{"name": "A", "cost": 8, "count": 6}, {"name": "B", "cost": 2, "count": 6},
             {"name": "C", "cost": 2, "count": 4, "join": 6}]
ENGINE = [{"name": "A", "requests": "4/8x3"}, {"name": "B", "requests": "4/2x3+2/3@9"}]
RUNS = [("cpu", {"algorithm": a, "tasks": ARTICLE}) for a in ("fcfs", "srtf", "rr", "mlfq", "cfs", "eevdf")] + \
       [("llm", {"algorithm": a, "tenants": REFERENCE}) for a in ("sfq", "rr", "drr")] + \
       [("engine", {"algorithm": a, "slots": 2, "tenants": ENGINE}) for a in ("fcfs", "vtc", "vtc-predict")]


def lab_for(mode: str, scenario: dict) -> Lab:
    lab = Lab(mode=mode)
    lab.result = simulate(mode, scenario)
    return lab


def shown(window: dict, step: int, slot: str) -> str:
    """What the pager puts in ``slot`` at ``step``: the frame's content, its chunks joined (as the page does)."""
    column = window["slots"].index(slot)
    content = window["frames"][step - window["start"]][column]
    return "".join(window["chunks"][c] for c in window["contents"][content])


@pytest.mark.parametrize("mode, scenario", RUNS, ids=[f"{m}-{s['algorithm']}" for m, s in RUNS])
def test_every_step_of_a_window_is_what_render_draws(mode, scenario):
    lab = lab_for(mode, scenario)
    result, source = lab.result, SourceView(lab)
    window = frames.lab_frames(result, "en", source.card).window(0)
    steps = result["steps"]
    assert (window["start"], window["end"], window["total"]) == (0, len(steps), len(steps))   # small: all of it
    for k, step in enumerate(steps):
        assert shown(window, k, "counter") == (render.step_counter(result, k, "en")
                                               + render.narration(step, "en"))
        assert shown(window, k, "source") == f'<section class="card source-view">{source.html(k)}</section>'
        if mode == "cpu":
            assert shown(window, k, "metrics") == cpu_views.metrics_table(result, k, "en")
            assert shown(window, k, "state") == ('<div class="grid">' + cpu_views.ready_queue(step, render.indexes(
                result["tasks"]), "en") + cpu_views.remaining_bars(step, result["tasks"], "en")
                + cpu_views.event_list(step, "en") + "</div>" + cpu_views.rule_state(step, result["tasks"], "en"))
            assert window["marks"]["time"]["values"][k] == step["time"]
        elif mode == "engine":
            engine = EngineView(result, "en")
            assert shown(window, k, "metrics") == engine.metrics(k)
            assert shown(window, k, "state") == engine.state(k)
        else:
            assert shown(window, k, "metrics") == llm_views.metrics_table(result, k, "en")
            assert shown(window, k, "state") == ('<div class="grid">' + llm_views.tenant_queues(result, k, "en")
                                                 + llm_views.meters(result, k, "en") + "</div>")
            assert shown(window, k, "fairness") == llm_views.fairness(result, k, "en")


def test_a_results_table_is_drawn_once_for_each_set_of_unfinished_rows():
    """The table slot is drawn again only when a row finishes (above: it is what the view draws at every step)."""
    from schedulers.trace import pending
    result = simulate("cpu", {"algorithm": "rr", "tasks": ARTICLE})
    drawn = []
    slot = frames.as_work_finishes(result, lambda k: drawn.append(k) or cpu_views.metrics_table(result, k, "en"))
    shown_at = [slot(k) for k in range(len(result["steps"]))]
    assert shown_at == [cpu_views.metrics_table(result, k, "en") for k in range(len(result["steps"]))]
    sets = [frozenset(pending(result, k)) for k in range(len(result["steps"]))]
    assert len(drawn) == len(set(sets)) == 5   # all four left, then A, B, C, D finish one by one
    assert drawn == [k for k, left in enumerate(sets) if left not in sets[:k]]


@pytest.mark.parametrize("algorithm", ["sfq", "rr", "wfq"])
def test_the_strip_marks_say_what_render_draws_at_each_step(algorithm):
    result = simulate("llm", {"algorithm": algorithm, "tenants": REFERENCE})
    window = frames.lab_frames(result, "en", lambda k: "").window(0)
    marks = window["marks"]["strip"]
    assert marks["slot"] == "strip"
    base = shown(window, 0, "strip")
    assert all(shown(window, k, "strip") == base for k in range(len(result["steps"])))   # drawn once per run
    for k in range(len(result["steps"])):
        drawn = re.findall(r'<li class="cell (\w+)"', llm_views.dispatch_strip(result, k, "en"))
        past, now = marks["values"][k]
        assert drawn == ["current" if i == now else "past" if i < past else "future" for i in range(len(drawn))]


def test_a_long_run_is_held_as_a_window_within_its_byte_budget():
    tasks = [{"name": "A", "arrival": 0, "burst": 10_000}, {"name": "B", "arrival": 0, "burst": 10_000}]
    lab = lab_for("cpu", {"algorithm": "rr", "quantum": 1, "tasks": tasks})
    result = lab.result
    built = frames.lab_frames(result, "en", SourceView(lab).card)
    assert built.total == len(result["steps"]) == 20_001
    for step in (0, 9_999, 20_000):
        window = built.window(step)
        size = frames.window_bytes(window)
        held = window["end"] - window["start"]
        assert window["start"] <= step < window["end"]
        assert frames.MIN_STEPS <= held < 5_000 and size <= frames.WINDOW_BYTES * 1.05, (held, size)
        if 0 < step < 20_000:   # more ahead than behind: stepping goes forward mostly
            assert window["end"] - step > step - window["start"]
        for k in (window["start"], step, window["end"] - 1):
            state = result["steps"][k]
            assert shown(window, k, "counter") == (render.step_counter(result, k, "en")
                                                   + render.narration(state, "en"))
    # Sharing: far fewer distinct chunks than frames times chunks per frame.
    window = built.window(9_999)
    per_frame = sum(len(window["contents"][c]) for c in window["frames"][0])
    assert len(window["chunks"]) < (window["end"] - window["start"]) * per_frame / 4


def test_compare_frames_step_the_right_side_at_the_matching_step():
    from schedulers.trace import step_aligner
    left = simulate("cpu", {"algorithm": "fcfs", "tasks": ARTICLE})
    right = simulate("cpu", {"algorithm": "srtf", "tasks": ARTICLE})
    window = frames.compare_frames(left, right, "en", ("Left: FCFS", "Right: SRTF")).window(0)
    align = step_aligner(left, right)
    for k in range(len(left["steps"])):
        r = align(k)
        assert shown(window, k, "compare.right") == ("<h3>Right: SRTF</h3>" + render.step_counter(right, r, "en")
                                                     + render.narration(right["steps"][r], "en"))
        assert window["marks"]["compare.right.time"]["values"][k] == right["steps"][r]["time"]


def test_the_fairness_panel_shows_what_holds_up_to_the_step():
    """C joins at t=6: before its first dispatch there no tenant is credited anything; afterwards the panel's
    figures are the core's ``fairness_so_far``, and at the last step the whole run's."""
    from schedulers.llm.steps import fairness_so_far
    result = simulate("llm", {"algorithm": "sfq", "tenants": REFERENCE})
    joined = next(k for k, s in enumerate(result["steps"]) if s["kind"] == "join" and s["tenant"] == "C")
    for k in range(joined + 1):
        panel = llm_views.fairness(result, k, "en")
        assert "bar-row" not in panel and "So far no dispatch had every tenant waiting" in panel
    for k in range(joined + 1, len(result["steps"])):
        so_far, panel = fairness_so_far(result, k), llm_views.fairness(result, k, "en")
        values = re.findall(r'<span class="bar-value">([^<]*)</span>', panel)
        assert values == [render.exact_number(v, so_far["exact"]["increments"][n])
                          for n, v in so_far["increments"].items()]
        assert f"the first {so_far['dispatched']} dispatches" in panel
    last = llm_views.fairness(result, len(result["steps"]) - 1, "en")
    assert "t=6 … 8 (3 dispatches)" in last and "0.60 (3/5)" in last   # the whole run's, in the end
    assert "holds<span class=\"pending-mark\"" in last   # the band is the whole run's: marked *


def test_llm_compare_sets_like_beside_like_at_each_step():
    """Both runs over the same dispatches and the same interval (``compare_so_far``); colour only on Jain's index
    and the widest gap there, never on cost received; nothing to compare before t=6 in the reference."""
    from schedulers.llm.steps import compare_so_far
    left = simulate("llm", {"algorithm": "sfq", "tenants": REFERENCE})
    right = simulate("llm", {"algorithm": "rr", "tenants": REFERENCE})
    window = frames.compare_frames(left, right, "en", ("Left: SFQ", "Right: RR")).window(0)
    for k, step in enumerate(left["steps"]):
        diff = shown(window, k, "compare.diff")
        both = compare_so_far(left, k, right)
        if step["time"] < 6 or both["interval"] is None:
            assert both["interval"] is None and "No fairness figures to compare yet" in diff
            assert "diff-better" not in diff and "diff-worse" not in diff
            continue
        interval = both["interval"]
        assert f"both runs: t={interval['start']} … {interval['end']}" in diff
    end = shown(window, len(left["steps"]) - 1, "compare.diff")
    assert "t=6 … 8 (3 dispatches)" in end
    assert '<td class="diff-better">0.60 (3/5) → 0.67 (2/3) (+0.07)</td>' in end
    assert '<td class="diff-worse">4 → 8 (+4)</td>' in end
    received = end.split("</table>")[0]   # cost ÷ weight so far: no side is better
    assert "Cost ÷ weight received so far (the first 16 dispatches" in received and 'class="diff' not in received
