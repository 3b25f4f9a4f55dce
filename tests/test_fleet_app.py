"""LLM router mode with a fleet in the app, without a browser: the servers' rows at a step against the core's trace
(and nothing after it), cancellations in the strip, the rows and the queues, the fairness card's charged and actual
figures, the presets and patterns the core offers loaded into the editor and carried by links, the compact costs
form and the parameters in the editor, Compare, the quiz and the exports. Every expected value is the core's."""
from __future__ import annotations

import csv
import io
import re

import pytest

pytest.importorskip("panel")

from app import frames
from app.compare import CompareView
from app.exports import chart_svg
from app.model import Lab
from app.modes.llm import views
from app.modes.llm.fleet import FleetView, axis
from app.presets import PresetView, choices
from app.quiz import QuizView
from app.render import esc
from schedulers import MODES, simulate
from schedulers.export import metrics_csv
from schedulers.llm.steps import dispatched_so_far
from schedulers.trace import step_aligner

REFERENCE = {"tenants": [{"name": "A", "cost": 8, "count": 6}, {"name": "B", "cost": 2, "count": 6},
                         {"name": "C", "cost": 2, "count": 4, "join": 6}]}
# Two servers under SFQ, by hand: t=0 A#0 (8) to server 0 and B#0 (estimate 2, runs 6) to server 1; C joins at 1
# with M = V = 0; at t=3 C#1 is cancelled while waiting (both servers busy); t=6 C#0 (least meter 0) to server 1
# until 10; t=8 B#1 (meter 2 < A's 8) to server 0 until 10; t=10 A#1 (8) to server 0, cancelled at t=12 while
# running: its server is free at 12, its charge of 8 stays.
CANCELS = {"servers": 2, "tenants": [{"name": "A", "costs": "8 8!12"}, {"name": "B", "costs": "2~6 2"},
                                     {"name": "C", "costs": "4 4!3", "join": 1}]}


def llm_lab() -> Lab:
    lab = Lab()
    lab.mode = "llm"
    return lab


def loaded(key: str, seed: str = "1") -> Lab:
    lab = llm_lab()
    presets = PresetView(lab)
    presets.choose(key)
    presets.load(seed)
    assert presets.problem == "" and lab.errors == {}
    return lab


def test_without_servers_the_router_views_draw_no_fleet():
    result = simulate("llm", REFERENCE)
    built = views.VIEWS.step_frames(result, "en")
    for k in range(len(result["steps"])):
        shown = built.slots["state"](k) + built.slots["strip"](k) + built.slots["fairness"](k)
        assert "fleet-servers" not in shown and "cell-actual" not in shown and "cancelled" not in shown
        assert "actual service" not in shown
    assert views.VIEWS.chart(result, "en").rows == ["A", "B", "C"]


def test_the_servers_show_each_request_up_to_the_step_and_never_later():
    lab = loaded("preset:mispredict")
    result = lab.result
    fleet = FleetView(result, "en")
    for k, step in enumerate(result["steps"]):
        html = fleet.rows(k)
        now, sent = step["time"], dispatched_so_far(result, k)
        low, high = axis(fleet.end, now)   # a page of the run around now
        assert html.count('class="req-bar') == sum(d["end"] > low for d in result["dispatch"][:sent])
        places = re.findall(r'req-bar[^"]*" style="left:([\d.]+)%;width:([\d.]+)%', html)
        right = [float(x) + float(w) for x, w in places]
        assert all(edge <= 100 * (now - low) / (high - low) + 0.02 for edge in right)   # no bar reaches past now
        holds = re.findall(r'<span class="bar-value">([^<]*)</span>', html)
        expected = []
        for running in step["servers"]:
            item = next((d for d in result["dispatch"] if running and (d["tenant"], d["request"]) ==
                         (running["tenant"], running["request"])), None)
            expected.append("free" if item is None else
                            f'{item["tenant"]} #{item["request"]} {now - item["start"]}/{item["actual"]}')
        assert holds == expected
    mispredicted = [d for d in result["dispatch"] if d["actual"] != d["cost"]][-1]   # on the last page
    title = f'{mispredicted["tenant"]} #{mispredicted["request"]}: charged {mispredicted["cost"]}, ' \
            f'runs {mispredicted["actual"]}'
    assert title in fleet.rows(len(result["steps"]) - 1)


def test_cancellations_show_in_the_strip_the_servers_and_the_queues():
    result = simulate("llm", CANCELS)
    steps = result["steps"]
    waiting = next(k for k, s in enumerate(steps) if s["kind"] == "cancel" and not s["running"])
    running = next(k for k, s in enumerate(steps) if s["kind"] == "cancel" and s["running"])
    assert (steps[waiting]["tenant"], steps[waiting]["time"]) == ("C", 3)
    assert (steps[running]["tenant"], steps[running]["time"]) == ("A", 12)
    built = views.VIEWS.step_frames(result, "en")
    queue = built.slots["state"](waiting)
    assert 'class="req cancelled"' in queue and "C #1: cancelled while waiting, uncharged" in queue
    assert 'class="req cancelled"' not in built.slots["state"](waiting + 1)
    before, at = built.slots["state"](running - 1), built.slots["state"](running)
    assert "req-bar cancelled" not in before and at.count("req-bar cancelled") == 1 and "✕" in at
    assert "A #1: charged 8, runs 8 · cancelled at t=12" in at
    strip = built.slots["strip"](0)
    assert strip.count('class="cell future cancelled"') == 1   # the dispatched one; the waiting one never was
    assert '<span class="cell-actual">→6</span>' in strip


def test_the_fairness_card_shows_the_charged_gap_within_its_bound_and_the_actual_one_outside():
    lab = loaded("preset:mispredict")
    result = lab.result
    whole = result["fairness"]
    service = whole["service"]
    assert whole["pairwise_bound"]["holds"] and not service["within_bound"]   # the preset's point
    card = views.fairness(result, len(result["steps"]) - 1, "en")
    assert (f'Largest difference in cost ÷ weight between two tenants: {whole["pairwise_bound"]["max_gap"]}, '
            f'against the bound 2c̄ = {whole["pairwise_bound"]["bound"]}: holds') in card
    assert (f'Largest difference in actual service ÷ weight there (what the servers really gave): '
            f'{service["max_gap"]}, against the same 2c̄ = {service["bound"]}: outside it') in card
    assert "実際のサービス" in views.fairness(result, 0, "ja")
    # At every step the card says the actual service so far, as the core gives it (fairness_so_far's service):
    # the preset's B leaves the bound from t=20 on while the charged difference holds (tests/test_llm_fleet.py).
    from schedulers.llm.steps import fairness_so_far
    outside = 0
    for k in range(len(result["steps"])):
        so_far = fairness_so_far(result, k).get("service")
        card = views.fairness(result, k, "en")
        if so_far is None:
            assert "got by t=" not in card
            continue
        given = ", ".join(f"{name} {value}" for name, value in so_far["increments"].items())
        status = "within it" if so_far["within_bound"] else "outside it"
        assert (f'Actual service ÷ weight those requests got by t={so_far["time"]} (a running one counted up to '
                f'then): {given}; difference {so_far["difference"]}, against the same 2c̄ = 8: {status}') in card
        outside += not so_far["within_bound"]
    assert outside
    at = next(k for k, s in enumerate(result["steps"]) if s["kind"] == "dispatch" and s["time"] == 24)
    assert "までに受けた実際のサービス ÷ 重み（実行中のものはその時点まで）: A 16, B 32。差 16（同じ 2c̄ = 8）: 範囲外" \
        in views.fairness(result, at, "ja")


@pytest.mark.parametrize("key", [c.key for c in choices("llm")])
def test_every_preset_and_pattern_loads_runs_and_travels_in_a_link(key):
    workload = next(c for c in choices("llm") if c.key == key)
    seed = 3 if workload.seeded else 0
    lab = loaded(key, str(seed))
    scenario = workload.workload.make(seed)
    assert lab.result == simulate("llm", {"algorithm": lab.algorithm, **scenario})
    lab.go(lab.last_step // 2)
    again = Lab()
    again.restore(lab.link())
    assert again.notices == [] and (again.result, again.step, again.link()) == (lab.result, lab.step, lab.link())
    if workload.seeded:   # a pattern is its seed's: the same rows again, others from another seed
        assert [r.as_text() for r in loaded(key, str(seed)).rows] == [r.as_text() for r in lab.rows]
        assert loaded(key, str(seed + 1)).result != lab.result


def test_the_compact_costs_form_and_the_fleet_parameters_in_the_editor():
    lab = llm_lab()
    lab.rows[1].costs = "2~6 2!4"
    assert list(lab.errors) == ["tenants[1].costs[1].cancel"]   # a cancellation needs servers
    before = lab.result
    lab.set_parameter("servers", "2")
    assert lab.errors == {} and lab.result == simulate("llm", {"algorithm": "sfq", "servers": 2, "tenants": [
        REFERENCE["tenants"][0], {"name": "B", "costs": "2~6 2!4"}, REFERENCE["tenants"][2]]})
    kept = lab.result
    lab.rows[1].costs = "2~0"
    assert list(lab.errors) == ["tenants[1].costs[0].actual"] and lab.result is kept and kept is not before
    lab.rows[1].costs = "2~6 2!4"
    lab.set_parameter("replicas", "3")
    assert list(lab.errors) == ["replicas"] and lab.result == kept
    lab.set_parameter("replicas", "")
    lab.set_parameter("spread", "sideways")
    assert list(lab.errors) == ["spread"] and lab.result == kept


def test_compare_quiz_and_exports_with_servers():
    lab = llm_lab()
    lab.restore("mode=llm&algorithm=sfq&servers=2&tenants=A:8+8!12,B:2~6+2,C:4+4!3:join=1")
    assert lab.notices == [] and lab.result == simulate("llm", {"algorithm": "sfq", **CANCELS})
    compare = CompareView(lab)   # the right side runs the same fleet
    assert compare.result == simulate("llm", {"algorithm": "rr", **CANCELS})
    last = lab.last_step
    built = frames.compare_frames(lab.result, compare.result, "en", ("SFQ", "RR")).window(last)
    assert {"compare.left.servers", "compare.right.servers", "compare.diff"} <= set(built["slots"])
    quiz = QuizView(lab)
    step = next(k for k, s in enumerate(lab.result["steps"]) if s["kind"] == "complete")
    known = "".join(str(part.object) for part in quiz.known_state(lab.result, step, "en"))
    assert "fleet-servers" in known and f'(t={lab.result["steps"][step]["time"]})' in known   # the axis ends now
    chart = views.VIEWS.chart(lab.result, "en")
    assert chart.rows == ["server 0", "server 1"] and len(chart.cells) == len(lab.result["dispatch"])
    assert all((c.start, c.end) == (d["start"], d["end"]) for c, d in zip(chart.cells, lab.result["dispatch"]))
    assert "server 0 · A #1: charged 8, runs 8 · cancelled at t=12" in chart_svg(lab.result, "en")
    header = next(csv.reader(io.StringIO(metrics_csv(lab.result))))
    assert {"actual_service", "latency_mean", "latency_p95", "wait_mean"} <= set(header)


def test_compare_of_two_fleet_runs_that_dispatch_at_different_times():
    """One server: FIFO sends A's three requests at t=0, 1, 2 and B's (runs 5) at t=3; SFQ sends A#0 at 0, then B#0
    (meter 0 < 1) at 1, which holds the server until 6, then A#1 at 6 and A#2 at 7. No stretch of dispatches is
    shared: both sides are shown at the same time, with what each charged and gave by then, and the whole runs'
    widest gaps, charged and actual."""
    lab = llm_lab()
    lab.restore("mode=llm&algorithm=sfq&servers=1&tenants=A:1+1+1,B:5")
    compare = CompareView(lab)
    compare.set_algorithm("fifo")
    left, right = lab.result, compare.result
    assert [d["time"] for d in left["dispatch"]] == [0, 1, 6, 7]
    assert [d["time"] for d in right["dispatch"]] == [0, 1, 2, 3]
    built = frames.compare_frames(left, right, "en", ("SFQ", "FIFO"))
    for k in range(len(left["steps"])):
        diff = built.slots["compare.diff"](k)
        assert "share no stretch of dispatches" in diff
        gaps = [views.shown(run["fairness"]["service"], "max_gap") for run in (left, right)]
        assert "Largest difference in actual service ÷ weight" in diff and " → ".join(gaps) in diff
    # SFQ's dispatch at t=6 (A#1) beside FIFO's last step by t=6, its dispatch of B at t=3 (steps at t=1, 2, 3 came
    # before it; the next is the completion at 8). Charged by t=6: SFQ A 1 + 1 = 2, B 5; FIFO A 3, B 5. Service by
    # t=6: SFQ A 1 (A#0 0..1; A#1 starts now), B 5 (1..6); FIFO A 3, B 3 (3..6, running, counted up to t=6).
    at = next(k for k, s in enumerate(left["steps"]) if s["kind"] == "dispatch" and s["time"] == 6)
    other = step_aligner(left, right)(at)
    assert (right["steps"][other]["kind"], right["steps"][other]["time"], right["steps"][other]["tenant"]) == \
        ("dispatch", 3, "B") and right["steps"][other + 1]["time"] == 8
    assert step_aligner(left, right)(0) == 0
    diff = built.slots["compare.diff"](at)
    charged, given = (re.search(f"<caption>{caption}</caption>.*?</table>", diff).group(0) for caption in (
        "Cost ÷ weight charged by t=6 in each run",
        re.escape("Actual service ÷ weight given by t=6 in each run (a running request counted up to then)")))
    assert '<td class="">2 → 3 (+1)</td>' in charged and '<td class="">5 → 5</td>' in charged
    assert '<td class="">1 → 3 (+2)</td>' in given and '<td class="">5 → 3 (-2)</td>' in given
    assert "t=6 までに与えた実際のサービス" in frames.compare_frames(left, right, "ja", ("SFQ", "FIFO")).slots[
        "compare.diff"](at)


def test_compare_of_a_run_without_servers_and_one_with_them_is_at_the_same_time():
    """Without servers on the left (one dispatch per time unit: A at 0, B at 1, A at 2, 3) and one server on the
    right (SFQ: A#0 0..1, B 1..6, A#1 6, A#2 7): no shared stretch of dispatches, so both at the same time, the
    charged figures only (the left has no actual service). At the left's t=2 dispatch (A#1; A#0 at 0, B at 1) the
    right's last step by then is its dispatch of B at 1: charged A 2 → 1, B 5 → 5."""
    lab = llm_lab()
    lab.restore("mode=llm&algorithm=sfq&tenants=A:1+1+1,B:5")
    compare = CompareView(lab)
    compare.set_parameter("servers", "1")
    left, right = lab.result, compare.result
    assert "servers" not in left and right["servers"] == 1
    assert [d["time"] for d in left["dispatch"]] == [0, 1, 2, 3] and [d["time"] for d in right["dispatch"]] == \
        [0, 1, 6, 7]
    for one, other in ((left, right), (right, left)):   # either way round, every step draws (no error)
        built = frames.compare_frames(one, other, "en", ("L", "R"))
        for k in range(len(one["steps"])):
            assert "Cost ÷ weight charged by t=" in built.slots["compare.diff"](k)
    at = next(k for k, s in enumerate(left["steps"]) if s["kind"] == "dispatch" and s["time"] == 2)
    diff = frames.compare_frames(left, right, "en", ("L", "R")).slots["compare.diff"](at)
    assert '<td class="">2 → 1 (-1)</td>' in diff and '<td class="">5 → 5</td>' in diff
    assert "Actual service" not in diff


def test_a_preset_replaces_the_fleet_parameters_and_a_bad_seed_is_named():
    lab = loaded("preset:mispredict")
    assert lab.parameters["servers"] == "2"
    presets = PresetView(lab)
    before = lab.result
    for bad in ("-1", "x", "1e3"):
        presets.choose(next(c.key for c in choices("llm") if c.seeded))
        presets.load(bad)
        assert presets.problem.startswith("seed: must be a whole number") and lab.result is before
    lab.set_parameter("servers", "")
    assert lab.errors == {} and "servers" not in lab.result   # back to logical time


def test_the_core_offers_the_hostile_patterns_the_app_lists():
    offered = {c.key for c in choices("llm")}
    assert {f"pattern:{name}" for name in ("heavy-tail", "on-off", "rejoin", "mispredict", "cancel")} <= offered
    assert all(set(c.workload.look_for) == {"en", "ja"} for c in choices("llm"))
    assert [c.key for c in choices("llm")] == [*(f"preset:{n}" for n in MODES["llm"].presets),
                                              *(f"pattern:{n}" for n in MODES["llm"].patterns)]


def test_the_replicas_preset_shows_the_whole_systems_difference_and_each_replicas_meters():
    """The core's replicas preset: three tenants of twelve cost-1 requests, two servers; one router holds 2c̄, two
    replicas spread by tenant (A and C on replica 0, B alone on replica 1) leave it: B gets a server to itself."""
    lab = loaded("preset:replicas")
    result = lab.result
    system = result["system_difference"]
    one_router = simulate("llm", {k: v for k, v in MODES["llm"].presets["replicas"].make(0).items()
                                  if k not in ("replicas", "spread")})
    assert system["exceeds"] and one_router["fairness"]["pairwise_bound"]["holds"]
    card = views.fairness(result, lab.last_step, "en")
    assert esc(f"Whole system (2 routers, each with its own meters): largest difference in cost ÷ weight between "
               f"two tenants {system['max_gap']}, against one router's 2c̄ = {system['bound']}: broken") in card
    # At each step the so-far figures are the system's, named so (tests/test_llm_fleet.py: 3 > 2 by B's t=4 dispatch).
    at = next(k for k, s in enumerate(result["steps"]) if s["kind"] == "dispatch" and s["time"] == 4 and
              s["tenant"] == "B")
    assert esc("Whole system so far (2 routers): largest difference in cost ÷ weight between two tenants 3, against "
               "one router's 2c̄ = 2: broken") in views.fairness(result, at, "en")
    assert ("これまでのシステム全体（ルーター 2 台）: 2 テナント間のコスト ÷ 重みの最大差 3"
            "（1 台のルーターの 2c̄ = 2）: 不成立") in views.fairness(result, at, "ja")
    assert "Whole system so far" not in views.fairness(one_router, len(one_router["steps"]) - 1, "en")
    # Replica 1 receives only B: no pair, and the card says so (the core's note) beside replica 0's gap.
    assert "Replica 1 alone: one tenant: no pair to compare" in card and "Replica 0 alone: largest difference" in card
    assert "レプリカ 1 単独: テナントが 1 つなので、比べる対がありません" in views.fairness(result, lab.last_step, "ja")
    fleet = FleetView(result, "en")
    steps = result["steps"]
    for k in range(0, len(steps), 5):
        html = fleet.meters(k)
        blocks = html.split('<div class="replica">')[1:]
        assert len(blocks) == len(result["replicas"]) and "this step" in blocks[steps[k]["replica"]]
        for replica, block in zip(result["replicas"], blocks):
            latest = [s for s in steps[:k + 1] if s["replica"] == replica["replica"]]
            want = [f'M = {latest[-1]["meters"][name]}' for name in replica["tenants"]] if latest else []
            assert re.findall(r'class="bar-value">(M = [^<]*)<', block) == want
    assert "server 1 · replica 1" in fleet.rows(0)
    # Predict shows each replica's own meters too (not one router's card of the acting replica's numbers).
    k = next(k for k, s in enumerate(steps) if s["kind"] == "dispatch" and s["replica"] == 1)
    known = "".join(str(part.object) for part in QuizView(lab).known_state(result, k, "en"))
    assert "replica-meters" in known and fleet.meters(k) in known


@pytest.mark.parametrize("search, field", [
    ("servers=0", "servers"), ("servers=2&replicas=3", "replicas"), ("replicas=2", "replicas"),
    ("servers=2&spread=sideways", "spread"), ("servers=1&tenants=A:8~0+8,B:2x3", "tenants[0].costs[0].actual"),
    ("tenants=A:8!3,B:2x3", "tenants[0].costs[0].cancel"),
    ("servers=1&tenants=A:8x2:arrivals=5+1", "tenants[0].arrivals[1]")])
def test_a_links_bad_fleet_part_is_named_and_the_rest_applies(search, field):
    lab = llm_lab()
    before = lab.result
    lab.restore(f"mode=llm&algorithm=fifo&{search}")
    assert [name for name, _ in lab.notices] == [field]
    assert lab.algorithm == "fifo" and lab.errors == {}
    assert lab.result == simulate("llm", {**lab.scenario()}) and lab.result["dispatch"] != before["dispatch"]


def test_the_editor_draws_the_fleet_parameters_the_presets_and_a_rows_arrivals():
    """Servers and replicas are typed, spread is picked from its list (its options in the mode's words); a row with
    arrivals (the on-off pattern's B) shows them in place of its join."""
    from app.ui import LabUI
    lab = loaded("pattern:on-off", "2")
    ui = LabUI(lab)
    classes = [c for widget in ui.editor().select(lambda o: hasattr(o, "css_classes")) for c in widget.css_classes]
    assert {"param-servers", "param-replicas", "param-spread", "preset-choice", "preset-load"} <= set(classes)
    with_arrivals = next(i for i, row in enumerate(lab.rows) if row.arrivals)
    row = ui._row_editor(lab.rows[with_arrivals], (), set())
    fields = [c for widget in row.select(lambda o: hasattr(o, "css_classes")) for c in widget.css_classes]
    assert "field-arrivals" in fields and "field-join" not in fields


@pytest.mark.parametrize("scenario", [CANCELS, MODES["llm"].presets["replicas"].make(0),
                                      MODES["llm"].patterns["cancel"].make(2)], ids=["cancels", "replicas", "cancel"])
def test_a_compact_trace_still_says_what_each_server_holds(scenario, monkeypatch):
    """A compact trace records no step's ``servers``: the rows read them from the dispatches (the latest request sent
    to a server, until the step that frees it) and say the same as the full trace's rows at every step. In CANCELS
    (above), after t=10's dispatch server 0 holds A#1 (cancelled at 12), and server 1 is free (C#0 ended at 10)."""
    import schedulers.llm.router as router
    full = simulate("llm", {"algorithm": "sfq", **scenario})
    monkeypatch.setattr(router, "TRACE_BUDGET", 0)
    compact = simulate("llm", {"algorithm": "sfq", **scenario})
    assert compact["trace"]["level"] == "compact" and "servers" not in compact["steps"][1]
    assert len(compact["steps"]) == len(full["steps"])
    view, whole = FleetView(compact, "en"), FleetView(full, "en")
    holds = re.compile(r'class="bar-value">([^<]*)<')
    for k, step in enumerate(full["steps"]):
        assert view.held(k, dispatched_so_far(compact, k)) == step["servers"], k
        assert holds.findall(view.rows(k)) == holds.findall(whole.rows(k))
    if scenario is CANCELS:
        at = next(k for k, s in enumerate(compact["steps"]) if s["kind"] == "dispatch" and s["time"] == 10)
        assert holds.findall(view.rows(at)) == ["A #1 0/8", "free"]


@pytest.mark.parametrize("scenario", [{"algorithm": "sfq", **REFERENCE}, {"algorithm": "wfq", **CANCELS},
                                      {"algorithm": "sfq", **CANCELS},
                                      MODES["llm"].presets["replicas"].make(0)], ids=["sfq", "wfq", "cancels",
                                                                                       "replicas"])
def test_a_compact_trace_still_shows_every_tenants_meter(scenario, monkeypatch):
    """A compact trace records only the acting tenant's meter; a meter changes only when its tenant acts, so the
    meters card shows each tenant's latest record (0 before any) and draws what the full trace's card draws. In
    REFERENCE (SFQ, one dispatch per time unit): t=0 A (M_A 8), t=1-4 B (M_B 2, 4, 6, 8), t=5 A (tie at 8, tenant
    order; V 8, M_A 16); C joins at t=6 lifted to V = 8: the card shows A's 16 and B's 8 though the join step records
    only C's."""
    import schedulers.llm.router as router
    from schedulers.llm.steps import meters_at
    full = simulate("llm", scenario)
    monkeypatch.setattr(router, "TRACE_BUDGET", 0)
    compact = simulate("llm", scenario)
    assert compact["trace"]["level"] == "compact"
    for k in range(len(full["steps"])):
        if "replicas" in scenario:
            assert FleetView(compact, "en").meters(k) == FleetView(full, "en").meters(k), k
        else:
            assert views.meters(compact, k, "en") == views.meters(full, k, "en"), k
    if scenario.get("tenants") == REFERENCE["tenants"]:
        join = next(k for k, s in enumerate(compact["steps"]) if s["kind"] == "join" and s["tenant"] == "C")
        assert set(compact["steps"][join]["meters"]) == {"C"}
        assert meters_at(compact, join)["meters"] == {"A": 16, "B": 8, "C": 8} == full["steps"][join]["meters"]


def test_compare_of_two_replicas_and_one_router_at_the_same_time():
    """The replicas preset (two routers by tenant: A, C on server 0, B alone on server 1) beside one router with the
    same two servers (SFQ, cost 1 each: t=0 A, B; t=1 C, A; t=2 B, C; t=3 A, B; t=4 C, A). At the replicas' B
    dispatch at t=4 (after A's at 4): charged A 3 (t=0, 2, 4) → 4, B 5 → 3, C 2 → 3; service by t=4 (the t=4
    requests have just started) A 2 → 3, B 4 → 3, C 2 → 2."""
    preset = MODES["llm"].presets["replicas"].make(0)
    left = simulate("llm", preset)
    right = simulate("llm", {k: v for k, v in preset.items() if k not in ("replicas", "spread")})
    at = next(k for k, s in enumerate(left["steps"]) if s["kind"] == "dispatch" and s["time"] == 4
              and s["tenant"] == "B")
    diff = frames.compare_frames(left, right, "en", ("2 routers", "1 router")).slots["compare.diff"](at)
    charged, given = diff.split("Actual service ÷ weight given by t=4")
    for name, cell in (("A", "3 → 4 (+1)"), ("B", "5 → 3 (-2)"), ("C", "2 → 3 (+1)")):
        assert f'<th scope="row">{name}</th><td class="">{cell}</td>' in charged
    for name, cell in (("A", "2 → 3 (+1)"), ("B", "4 → 3 (-1)"), ("C", "2 → 2")):
        assert f'<th scope="row">{name}</th><td class="">{cell}</td>' in given
