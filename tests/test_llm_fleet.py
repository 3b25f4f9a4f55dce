"""LLM router mode with servers (issue 21): real time, actual costs, cancellations, replicas; each convention by a
small case worked out by hand in its comment."""
from __future__ import annotations

import json

import pytest

from schedulers import simulate
from schedulers.errors import ScenarioError
from schedulers.llm import MODE, render_text, run
from schedulers.llm.scenario import format_costs

REFERENCE = {"tenants": [{"name": "A", "cost": 8, "count": 6}, {"name": "B", "cost": 2, "count": 6},
                         {"name": "C", "cost": 2, "count": 4, "join": 6}]}


def served(result: dict) -> list[tuple]:
    return [(d["tenant"], d["request"], d["server"], d["start"], d["end"], d["actual"]) for d in result["dispatch"]]


def row(result: dict, name: str) -> dict:
    return next(t for t in result["tenants"] if t["name"] == name)


# SFQ, two servers. A: three requests of cost 8 (actual 8); B: three of cost 2 that each run 6.
# t=0: A and B join at M = 0. Server 0: A (tie, tenant order), M_A = 8, ends 8. Server 1: B, M_B = 2, ends 6.
# t=6: B#0 done, server 1 free: B (2 < 8), V = 2, M_B = 4, ends 12.
# t=8: A#0 done, server 0 free: B (4 < 8), V = 4, M_B = 6, ends 14; B's queue is empty.
# t=12: B#1 done, server 1: A, V = 8, M_A = 16, ends 20.   t=14: B#2 done, server 0: A, V = 16, M_A = 24, ends 22;
# every queue is empty and nothing more arrives: the final reset, V = 24.   t=20, t=22: A's last two are done.
TWO_SERVERS = {"servers": 2, "tenants": [{"name": "A", "costs": [8, 8, 8]},
                                         {"name": "B", "costs": [{"cost": 2, "actual": 6}, "2~6", "2~6"]}]}


def test_two_servers_with_actual_not_the_estimate():
    result = run(TWO_SERVERS)
    assert served(result) == [("A", 0, 0, 0, 8, 8), ("B", 0, 1, 0, 6, 6), ("B", 1, 1, 6, 12, 6),
                              ("B", 2, 0, 8, 14, 6), ("A", 1, 1, 12, 20, 8), ("A", 2, 0, 14, 22, 8)]
    assert [d["time"] for d in result["dispatch"]] == [d["start"] for d in result["dispatch"]]
    a, b = row(result, "A"), row(result, "B")
    assert (a["charged"], b["charged"]) == (24, 6)           # the estimates, charged at dispatch
    assert (a["actual_service"], b["actual_service"]) == (24, 18)
    # latency = completion - arrival: A 8, 20, 22 (mean 50/3, p95 = the 3rd of 3); B 6, 12, 14 (mean 32/3)
    assert (a["exact"]["latency_mean"], a["latency_p95"], b["exact"]["latency_mean"], b["latency_p95"]) == \
        ("50/3", 22, "32/3", 14)
    # wait = dispatch - arrival: A 0, 12, 14; B 0, 6, 8
    assert (a["exact"]["wait_mean"], b["exact"]["wait_mean"]) == ("26/3", "14/3")
    assert a["latency_mean"] == 50 / 3 and b["wait_mean"] == 14 / 3
    assert result["summary"] == {"requests": 6, "cancelled": 0, "makespan": 22, "first_dispatch": 0, "busy": 42,
                                 "idle": 2}   # 2 servers x 22 - 42 busy
    assert result["servers"] == 2 and result["cancelled"] == []
    # Both backlogged from the first dispatch until B empties at t=8 (4 dispatches): charged A 8, B 6, widest
    # gap 8 after the first; actual service A 8, B 6 x 3 = 18, widest 18 - 8 = 10 after the 4th (t=8).
    fairness = result["fairness"]
    assert fairness["interval"] == {"start": 0, "end": 8, "dispatches": 4}
    assert fairness["increments"] == {"A": 8, "B": 6}
    assert (fairness["pairwise_bound"]["max_gap"], fairness["pairwise_bound"]["at"]) == (8, 0)
    service = fairness["service"]
    assert (service["increments"], service["max_gap"], service["at"], service["tenants"], service["bound"],
            service["within_bound"]) == ({"A": 8, "B": 18}, 10, 8, ["B", "A"], 16, True)
    kinds = [(s["kind"], s["time"], s.get("tenant")) for s in result["steps"]]
    assert kinds == [("initial", 0, None), ("join", 0, "A"), ("join", 0, "B"), ("dispatch", 0, "A"),
                     ("dispatch", 0, "B"), ("complete", 6, "B"), ("dispatch", 6, "B"), ("complete", 8, "A"),
                     ("dispatch", 8, "B"), ("complete", 12, "B"), ("dispatch", 12, "A"), ("complete", 14, "B"),
                     ("dispatch", 14, "A"), ("complete", 20, "A"), ("complete", 22, "A")]
    last = result["steps"][12]
    assert last["final_reset"]["virtual_time"] == 24 and result["steps"][-1]["virtual_time"] == 24


def test_steps_carry_each_servers_request_and_the_narration_says_charged_and_runs():
    steps = run(TWO_SERVERS)["steps"]
    assert steps[4]["servers"] == [{"tenant": "A", "request": 0}, {"tenant": "B", "request": 0}]
    assert steps[5]["servers"] == [{"tenant": "A", "request": 0}, None]          # t=6: B#0 done
    assert (steps[4]["server"], steps[4]["end"], steps[4]["actual"], steps[4]["cost"]) == (1, 6, 6, 2)
    assert steps[4]["why"]["en"].endswith("It goes to server 1: charged 2 (its estimate); it runs 6.")
    assert steps[4]["why"]["ja"].endswith("サーバー 1 へ送ります。課金は 2 (推定値)、実際には 6 かかります。")
    assert steps[5]["why"]["en"] == "t=6: B's request #0 is done on server 1 after 6; the server is free."
    assert steps[5]["decision"] == {"rule": "the server is free"}
    assert all(s["why"]["ja"] and s["decision"]["rule"] for s in steps)


def test_mispredict_preset():
    # A and B: six requests of cost 4 each on two servers, B's running 12. SFQ alternates by meter:
    # t=0 A (tie) s0 ..4, B s1 ..12; t=4 A (4 = 4, tenant order) s0 ..8; t=8 B s0 ..20; t=12 A s1 ..16;
    # t=16 B s1 ..28; t=20 A ..24; t=24 B ..36; t=28 A ..32; t=32 B ..44; t=36 A ..40 (A empties); t=40 B ..52.
    result = run(MODE.presets["mispredict"].make(0))
    assert [(d["tenant"], d["time"], d["server"], d["end"]) for d in result["dispatch"]] == [
        ("A", 0, 0, 4), ("B", 0, 1, 12), ("A", 4, 0, 8), ("B", 8, 0, 20), ("A", 12, 1, 16), ("B", 16, 1, 28),
        ("A", 20, 0, 24), ("B", 24, 0, 36), ("A", 28, 1, 32), ("B", 32, 1, 44), ("A", 36, 0, 40), ("B", 40, 0, 52)]
    a, b = row(result, "A"), row(result, "B")
    assert (a["charged"], b["charged"], a["actual_service"], b["actual_service"]) == (24, 24, 24, 72)
    # latencies A 4, 8, 16, 24, 32, 40 (mean 62/3, p95 = the 6th), B 12, 20, ..., 52 (mean 32)
    assert (a["exact"]["latency_mean"], a["latency_p95"], b["latency_mean"], b["latency_p95"]) == ("62/3", 40, 32, 52)
    fairness = result["fairness"]
    # Backlogged together from t=0 until A's last dispatch at t=36 (11 dispatches): charged A 24, B 20, gap at
    # most 4 (one request) <= 2c̄ = 8; actual service A 6 x 4 = 24, B 5 x 12 = 60, the gap 40 after t=32's.
    assert fairness["interval"] == {"start": 0, "end": 36, "dispatches": 11}
    assert fairness["pairwise_bound"]["holds"] and fairness["pairwise_bound"]["max_gap"] == 4
    assert (fairness["service"]["max_gap"], fairness["service"]["at"], fairness["service"]["within_bound"]) == \
        (40, 32, False)
    assert "three times" in MODE.presets["mispredict"].look_for["en"] and MODE.presets["mispredict"].look_for["ja"]


def test_the_actual_service_so_far_counts_a_running_request_up_to_the_step():
    # TWO_SERVERS (above), step by step, over the interval so far (dispatches 0..3 from t=8 on):
    # step 5, t=6: A#0 ran 0..6 (6 of 8), B#0 0..6 done: A 6, B 6, difference 0.
    # step 9, t=12: A#0 done (8); B#0 6, B#1 6..12 done, B#2 8..12 runs (4): B 16, difference 8.
    # step 11, t=14: B#2 done at 14 (6): B 18; A 8 (A#1, dispatched at 12, is past the interval): difference 10.
    # At the last step every request has ended: the whole run's increments (A 8, B 18).
    from schedulers.llm.steps import fairness_so_far, service_so_far
    result = run(TWO_SERVERS)
    figures = {k: fairness_so_far(result, k)["service"] for k in (5, 9, 11, 14)}
    assert [(f["time"], f["increments"], f["difference"], f["tenants"], f["bound"], f["within_bound"])
            for f in figures.values()] == [(6, {"A": 6, "B": 6}, 0, ["A", "B"], 16, True),
                                           (12, {"A": 8, "B": 16}, 8, ["B", "A"], 16, True),
                                           (14, {"A": 8, "B": 18}, 10, ["B", "A"], 16, True),
                                           (22, {"A": 8, "B": 18}, 10, ["B", "A"], 16, True)]
    assert figures[14]["increments"] == result["fairness"]["service"]["increments"]
    assert "service" not in fairness_so_far(result, 2)   # no interval yet, nothing to say
    # Every dispatch so far, not only the interval's: at t=14 A#1 has run 2 (12..14), A#2 just started.
    assert service_so_far(result, 11) == {"A": 10, "B": 18}
    assert service_so_far(result, 11, now=13) == {"A": 9, "B": 17}   # B#2 then had run 5 of its 6
    assert "service" not in fairness_so_far(run({"tenants": TWO_SERVERS["tenants"]}), 3)   # no servers


def test_the_mispredict_presets_actual_service_leaves_the_bound_step_by_step():
    # The preset (test above): at t=16, after B#2's dispatch, A got 4 + 4 + 4 (A#2 12..16 just done) = 12 and B
    # 12 + 8 (B#1 8..16) + 0 (B#2 starts now) = 20: difference 8 = 2c̄, within. At t=24, after B#3's: A 16,
    # B 12 + 12 + 8 (B#2 16..24) + 0 = 32: 16 > 8, outside, while the charged difference is at most 4.
    from schedulers.llm.steps import fairness_so_far
    result = run(MODE.presets["mispredict"].make(0))
    at = {s["time"]: k for k, s in enumerate(result["steps"]) if s["kind"] == "dispatch" and s["tenant"] == "B"}
    early, late = fairness_so_far(result, at[16]), fairness_so_far(result, at[24])
    assert (early["service"]["increments"], early["service"]["difference"], early["service"]["within_bound"]) == \
        ({"A": 12, "B": 20}, 8, True)
    assert (late["service"]["increments"], late["service"]["difference"], late["service"]["within_bound"]) == \
        ({"A": 16, "B": 32}, 16, False)
    assert late["pairwise_bound"]["holds"] and late["pairwise_bound"]["max_gap"] == 4


def test_without_servers_the_router_is_as_before_and_ignores_actual():
    plain = run({**REFERENCE, "algorithm": "sfq"})
    assert "servers" not in plain and "cancelled" not in plain and "service" not in plain["fairness"]
    assert set(plain["tenants"][0]) == {"name", "weight", "join", "requests", "dispatched", "charged", "normalized",
                                        "exact"}
    objects = {"tenants": [{"name": "A", "costs": [{"cost": 8, "actual": 30}] * 6}, REFERENCE["tenants"][1],
                           {**REFERENCE["tenants"][2]}]}
    assert json.dumps(run(objects)) == json.dumps(plain)


def test_compact_form_reads_as_the_objects_and_formats_back():
    entries = [8, {"cost": 8, "actual": 12}, {"cost": 2, "cancel": 5}, {"cost": 3, "actual": 4, "cancel": 9}]
    text = format_costs(entries)
    assert text == "8+8~12+2!5+3~4!9"
    scenario = {"servers": 1, "tenants": [{"name": "A", "costs": entries}]}
    for costs in (text, "8 8~12, 2!5 3~4!9", ["8", "8~12", "2!5", "3~4!9"]):
        assert run({"servers": 1, "tenants": [{"name": "A", "costs": costs}]}) == run(scenario)


@pytest.mark.parametrize("tenant, field, problem", [
    ({"costs": [8, {"cost": 8, "actual": 0}]}, "tenants[0].costs[1].actual", "must be >= 1, not 0"),
    ({"costs": "8 8~0"}, "tenants[0].costs[1].actual", "must be >= 1, not 0"),
    ({"costs": [8, "8-3"]}, "tenants[0].costs[1]", "'8-3' is not COST[~ACTUAL][!CANCEL]"),
    ({"costs": [{"actual": 3}]}, "tenants[0].costs[0].cost", "required"),
    ({"costs": [{"cost": 3, "atcual": 3}]}, "tenants[0].costs[0].atcual", "unknown field"),
    ({"costs": [1, 2, 3, 0]}, "tenants[0].costs[3]", "must be >= 1, not 0"),
    ({"costs": ""}, "tenants[0].costs", "must have at least 1 item"),
])
def test_bad_requests_name_the_field(tenant, field, problem):
    with pytest.raises(ScenarioError) as caught:
        run({"servers": 1, "tenants": [{"name": "A", **tenant}]})
    assert caught.value.field == field and problem in caught.value.problem


def test_bad_servers():
    for value, problem in [(0, "must be >= 1"), (1001, "must be <= 1000"), ("2", "must be an integer")]:
        with pytest.raises(ScenarioError) as caught:
            run({**REFERENCE, "servers": value})
        assert caught.value.field == "servers" and problem in caught.value.problem


def test_one_server_with_actual_equal_to_the_estimate_keeps_the_order():
    # Everything arrives at t=0 and one server runs each estimate: the rule sees the same queues at each pick as
    # the logical router does, so the order is the same; only the times differ (each starts when the one before
    # it ends). (With C joining at t=6 it would not be: in real time C is there before A's first request ends.)
    together = {"tenants": [{**tenant, "join": 0} for tenant in REFERENCE["tenants"]]}
    for algorithm in ("fifo", "rr", "shortest", "sfq", "drr", "wfq"):
        logical = run({**together, "algorithm": algorithm})
        fleet = run({**together, "algorithm": algorithm, "servers": 1})
        assert [d["tenant"] for d in fleet["dispatch"]] == [d["tenant"] for d in logical["dispatch"]]
    ends = [d["end"] for d in fleet["dispatch"]]
    assert ends == [d["start"] + d["cost"] for d in fleet["dispatch"]]
    assert all(d["start"] == previous for d, previous in zip(fleet["dispatch"][1:], ends))


def test_text_output_has_the_fleet_columns_in_both_languages():
    result = simulate("llm", TWO_SERVERS)
    english, japanese = render_text(result, "en"), render_text(result, "ja")
    assert "LLM router · sfq · 2 servers" in english and "サーバー 2 台" in japanese
    assert "actual  latency  p95  wait" in english and "実サービス" in japanese
    assert "  A       1       0     3         3           24       24          24      50/3     22   26/3" in english
    assert "Actual service: max |s_i - s_j| = 10 (B vs A, t=8), 2q̄ = 16: within it" in english


# --- cancellations ------------------------------------------------------------------------------------------------

def test_a_waiting_request_cancelled_leaves_uncharged():
    # One server. A: 4, 4; B: 2, and 2 cancelled at t=3. t=0: A#0 (tie, tenant order) runs to 4, M_A = 4; t=3: B#1
    # is still waiting, so it leaves its queue uncharged; t=4: B#0 (M_B 0 < 4) runs to 6 and B is empty; t=6: A#1
    # runs to 10 (the final reset: V = 8).
    result = run({"servers": 1, "tenants": [{"name": "A", "costs": [4, 4]},
                                            {"name": "B", "costs": [2, {"cost": 2, "cancel": 3}]}]})
    assert [(d["tenant"], d["request"], d["start"], d["end"]) for d in result["dispatch"]] == [
        ("A", 0, 0, 4), ("B", 0, 4, 6), ("A", 1, 6, 10)]
    assert result["cancelled"] == [{"time": 3, "tenant": "B", "request": 1, "cost": 2, "arrival": 0}]
    b = row(result, "B")
    assert (b["requests"], b["dispatched"], b["charged"], b["actual_service"], b["latency_mean"]) == (2, 1, 2, 2, 6)
    cancel = next(s for s in result["steps"] if s["kind"] == "cancel")
    assert (cancel["time"], cancel["tenant"], cancel["request"], cancel["running"], cancel["queues"]["B"]) == \
        (3, "B", 1, False, [2])
    assert cancel["why"]["en"] == "t=3: B's request #1 (cost 2) is cancelled while waiting: it leaves the queue " \
                                  "uncharged."
    assert "課金されずにキューを出ます" in cancel["why"]["ja"]
    assert result["summary"]["cancelled"] == 1


def test_a_running_request_cancelled_keeps_its_charge_and_frees_its_server():
    # One server. A: cost 4 that would run 10, cancelled at t=6; B: 3. t=0: A (tie) is charged 4 and would end at
    # 10, but its server is free at 6: A's service is 6, its charge stays 4, and it never completes (no latency);
    # t=6: B runs to 9.
    result = run({"servers": 1, "tenants": [{"name": "A", "costs": ["4~10!6"]}, {"name": "B", "costs": [3]}]})
    first, second = result["dispatch"]
    assert (first["start"], first["end"], first["actual"], first["cancelled"], first["cost"]) == (0, 6, 10, True, 4)
    assert (second["tenant"], second["start"], second["end"]) == ("B", 6, 9) and "cancelled" not in second
    a = row(result, "A")
    assert (a["charged"], a["actual_service"], a["latency_mean"], a["latency_p95"], a["wait_mean"]) == \
        (4, 6, None, None, 0)
    cancel = next(s for s in result["steps"] if s["kind"] == "cancel")
    assert (cancel["time"], cancel["running"], cancel["server"], cancel["service"], cancel["cost"]) == \
        (6, True, 0, 6, 4)
    assert cancel["why"]["en"] == "t=6: A's request #0 is cancelled on server 0 after 6 of its 10: the server is " \
                                  "free, and its charge of 4 stays (no refund)."
    assert "返金しません" in cancel["why"]["ja"]
    assert result["cancelled"] == []     # only waiting requests are listed there
    assert cancel["servers"] == [None]


def test_a_cancel_after_completion_changes_nothing_and_one_at_arrival_is_never_dispatched():
    # "4!9": done at 4 before its cancel; "2!0" arrives at 0 and is cancelled at once, before any pick.
    result = run({"servers": 1, "tenants": [{"name": "A", "costs": ["4!9"]}, {"name": "B", "costs": ["2!0", 1]}]})
    assert [(d["tenant"], d["request"]) for d in result["dispatch"]] == [("A", 0), ("B", 1)]
    assert [c["request"] for c in result["cancelled"]] == [0] and result["dispatch"][0]["end"] == 4
    assert [s["kind"] for s in result["steps"]].count("cancel") == 1


def test_a_cancel_that_empties_every_queue_makes_the_idle_reset_pending():
    # One server. A: 4, and 4 cancelled at t=2; B: 1 arriving at t=5. t=0: A#0 runs to 4, M_A = 4; t=2: A#1 leaves
    # and every queue is empty; t=5: the idle reset (V = max(0, 4) = 4), then B joins, raised from 0 to 4.
    result = run({"servers": 1, "tenants": [{"name": "A", "costs": [4, "4!2"]},
                                            {"name": "B", "costs": [1], "arrivals": [5]}]})
    assert [(s["kind"], s["time"]) for s in result["steps"]] == [
        ("initial", 0), ("join", 0), ("dispatch", 0), ("cancel", 2), ("complete", 4), ("idle_reset", 5),
        ("join", 5), ("dispatch", 5), ("complete", 6)]
    reset, joined = result["steps"][5], result["steps"][6]
    assert (reset["virtual_time_before"], reset["virtual_time"]) == (0, 4)
    assert (joined["meters_before"]["B"], joined["meters"]["B"], joined["decision"]["outcome"]) == (0, 4, "raised")
    assert result["steps"][7]["final_reset"]["virtual_time"] == 5


@pytest.mark.parametrize("scenario, field, problem", [
    ({"tenants": [{"name": "A", "costs": [1, "2!5"]}]}, "tenants[0].costs[1].cancel", "needs servers"),
    ({"tenants": [{"name": "A", "costs": [{"cost": 1, "cancel": 0}]}]}, "tenants[0].costs[0].cancel", "needs servers"),
    ({"servers": 1, "tenants": [{"name": "A", "costs": ["2!3"], "join": 5}]}, "tenants[0].costs[0].cancel",
     "must not be before its request's arrival (5), not 3"),
    ({"servers": 1, "tenants": [{"name": "A", "costs": [1, {"cost": 2, "cancel": 1}], "arrivals": [0, 2]}]},
     "tenants[0].costs[1].cancel", "must not be before its request's arrival (2), not 1"),
    ({"servers": 1, "tenants": [{"name": "A", "costs": [{"cost": 2, "cancel": -1}]}]}, "tenants[0].costs[0].cancel",
     "must be >= 0"),
])
def test_bad_cancellations_name_the_field(scenario, field, problem):
    with pytest.raises(ScenarioError) as caught:
        run(scenario)
    assert caught.value.field == field and problem in caught.value.problem


@pytest.mark.parametrize("algorithm", ["fifo", "rr", "shortest", "sfq", "drr", "wfq"])
def test_every_rule_drops_a_cancelled_head_and_an_emptied_tenant(algorithm):
    # One server busy with A's first request (alone at t=0, it runs to 9) while B's head and then B's whole queue
    # are cancelled (t=2, 3), and C's second request (t=4): each rule must then pick only among what is still
    # waiting at t=9 (A's second and C's first), never B.
    late = {"arrivals": [1, 1]}
    result = run({"algorithm": algorithm, "servers": 1, "tenants": [
        {"name": "A", "costs": ["5~9", 5]}, {"name": "B", "costs": ["1!2", "1!3"], **late},
        {"name": "C", "costs": [2, "2!4"], **late}]})
    assert result["dispatch"][0]["end"] == 9 and result["dispatch"][1]["time"] == 9
    sent = {(d["tenant"], d["request"]) for d in result["dispatch"]}
    assert ("A", 0) in sent and not any(tenant == "B" for tenant, _ in sent) and ("C", 1) not in sent
    assert sent | {(c["tenant"], c["request"]) for c in result["cancelled"]} == {
        ("A", 0), ("A", 1), ("B", 0), ("B", 1), ("C", 0), ("C", 1)}


# --- the checklist's hostile workloads (seeded generators) --------------------------------------------------------

def kinds_of(result: dict, tenant: str) -> list[str]:
    return [s["kind"] for s in result["steps"] if s.get("tenant") == tenant and s["kind"] in ("join", "arrive")]


def test_every_pattern_is_deterministic_by_seed_runs_and_says_what_to_look_for():
    assert list(MODE.patterns) == ["heavy-tail", "on-off", "rejoin", "mispredict", "cancel"]
    for name, pattern in MODE.patterns.items():
        assert pattern.make(7) == pattern.make(7)
        assert len({json.dumps(pattern.make(seed)) for seed in range(12)}) == 12, name
        assert pattern.look_for["en"].endswith(".") and pattern.look_for["ja"].endswith("。")
        for seed in range(12):
            scenario = pattern.make(seed)
            assert scenario["servers"] == 2 and run(scenario)["dispatch"]
    with pytest.raises(ScenarioError) as caught:
        MODE.patterns["cancel"].make(-1)
    assert caught.value.field == "seed"


def test_heavy_tail_costs_are_pareto_of_shape_one():
    # cost = 1000 // U, U uniform in 1..1000: P(cost >= x) = floor(1000 / x) / 1000, so about half the costs are 1
    # (U > 500) and about one in a hundred is 100 or more (U <= 10).
    costs = [c for seed in range(40) for t in MODE.patterns["heavy-tail"].make(seed)["tenants"] for c in t["costs"]]
    assert len(costs) == 40 * 3 * 12 and all(1 <= c <= 1000 for c in costs)
    assert 0.4 < costs.count(1) / len(costs) < 0.6
    assert 0 < sum(c >= 100 for c in costs) / len(costs) < 0.03


def test_on_off_and_rejoin_come_back_as_joins():
    # on-off: B falls silent between its four bursts (12-24 apart, each served within 10), so each burst is a join,
    # raised to V; rejoin: each of B's ten single requests arrives after the one before was served: ten joins.
    for seed in range(10):
        bursts = run(MODE.patterns["on-off"].make(seed))
        assert kinds_of(bursts, "B") == ["join"] * 4
        single = run(MODE.patterns["rejoin"].make(seed))
        assert kinds_of(single, "B") == ["join"] * 10
        lifted = [s for s in single["steps"] if s["kind"] == "join" and s["tenant"] == "B"]
        assert any(s["decision"]["outcome"] == "raised" for s in lifted)


def test_mispredict_and_cancel_patterns_show_where_the_guarantee_stops():
    for seed in range(10):
        scenario = MODE.patterns["mispredict"].make(seed)
        assert all(entry["actual"] == 3 * entry["cost"] for entry in scenario["tenants"][1]["costs"])
        fairness = run(scenario)["fairness"]
        assert fairness["pairwise_bound"]["holds"] and not fairness["service"]["within_bound"]
    waiting = running = 0
    for seed in range(10):
        result = run(MODE.patterns["cancel"].make(seed))
        waiting += len(result["cancelled"])
        running += sum(bool(d.get("cancelled")) for d in result["dispatch"])
    assert waiting and running


def test_the_command_line_runs_a_pattern_by_seed_and_a_preset(capsys):
    from schedulers.cli import main
    assert main(["llm", "--pattern", "rejoin", "--seed", "3", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == run(MODE.patterns["rejoin"].make(3))
    assert main(["llm", "--pattern", "cancel", "--json"]) == 0    # seed 0 by default
    assert json.loads(capsys.readouterr().out) == run(MODE.patterns["cancel"].make(0))
    assert main(["llm", "--preset", "mispredict", "--lang", "ja"]) == 0
    assert "サーバー 2 台" in capsys.readouterr().out
    for argv, message in [(["--pattern", "bursty"], "error: pattern: must be one of heavy-tail, on-off, rejoin, "
                                                    "mispredict, cancel, not 'bursty'"),
                          (["--preset", "nope"], "error: preset: must be one of mispredict"),
                          (["--pattern", "cancel", "--seed", "x"], "error: seed: must be a whole number"),
                          (["--pattern", "cancel", "--preset", "mispredict"], "error: give either --pattern or "
                                                                              "--preset, not both")]:
        assert main(["llm", *argv]) == 2
        captured = capsys.readouterr()
        assert captured.out == "" and captured.err.startswith(message) and len(captured.err.splitlines()) == 1


# --- replicated routers -------------------------------------------------------------------------------------------

def test_replicas_exceed_one_routers_bound_while_one_router_holds_it():
    # A, B, C: twelve requests of cost 1 at t=0 on two servers, split by tenant over two routers: replica 0 (A, C)
    # has server 0, replica 1 (B) server 1. Replica 0 alternates A (t=0, 2, ..., 22) and C (t=1, ..., 23); replica 1
    # sends B at t=0..11. Over the whole system all three are backlogged until B's last dispatch (t=11: 24
    # dispatches): after t=10's, A = 6, C = 5, B = 11, the widest gap, 6 (B vs C), three times one router's 2c̄ = 2.
    result = run(MODE.presets["replicas"].make(0))
    assert [(d["tenant"], d["time"], d["server"], d["replica"]) for d in result["dispatch"]][:6] == [
        ("A", 0, 0, 0), ("B", 0, 1, 1), ("C", 1, 0, 0), ("B", 1, 1, 1), ("A", 2, 0, 0), ("B", 2, 1, 1)]
    assert result["system_difference"] == {
        "max_gap": 6, "at": 10, "tenants": ["B", "C"], "bound": 2, "exceeds": True,
        "interval": {"start": 0, "end": 11, "dispatches": 24}, "exact": {"bound": "2", "max_gap": "6"}}
    assert result["fairness"]["increments"] == {"A": 6, "B": 12, "C": 6}
    assert [(r["replica"], r["servers"], r["tenants"], r["requests"]) for r in result["replicas"]] == [
        (0, [0], ["A", "C"], 24), (1, [1], ["B"], 12)]
    own = result["replicas"][0]["fairness"]["pairwise_bound"]
    assert own["holds"] and own["max_gap"] == 1              # each router is fair on its own
    assert result["replicas"][1]["fairness"]["pairwise_bound"] is None   # B alone: no pair
    # One router with the same two servers: t=0 A, B; t=1 C, A; t=2 B, C; ... (least meter, tenant order): the
    # gap never passes one request.
    single = run({**MODE.presets["replicas"].make(0), "replicas": None})
    assert single["fairness"]["pairwise_bound"]["holds"] and single["fairness"]["pairwise_bound"]["max_gap"] == 1
    assert "system_difference" not in single
    assert "2c̄" in MODE.presets["replicas"].look_for["en"] and MODE.presets["replicas"].look_for["ja"]


def test_the_system_difference_step_by_step_with_replicas():
    # The replicas preset (above): replica 0 (server 0) alternates A, C one per time unit; replica 1 (server 1) runs
    # B alone, one per time unit. By t=2 (B's dispatch): A 2 (t=0, 2), B 3, C 1: the system's gap B - C is 2 = 2c̄,
    # holds. By t=4: A 3, B 5, C 2: 3 > 2, broken, one router's bound passed while each replica holds its own. At the
    # last step the figures are the whole run's: system_difference's 6, first reached at t=10 (B 11 - C 5).
    from schedulers.llm.steps import fairness_so_far
    result = run(MODE.presets["replicas"].make(0))
    b_at = {s["time"]: k for k, s in enumerate(result["steps"]) if s["kind"] == "dispatch" and s["tenant"] == "B"}
    early, late = fairness_so_far(result, b_at[2]), fairness_so_far(result, b_at[4])
    assert (early["increments"], early["pairwise_bound"]["max_gap"], early["pairwise_bound"]["holds"]) == \
        ({"A": 2, "B": 3, "C": 1}, 2, True)
    assert (late["increments"], late["pairwise_bound"]["max_gap"], late["pairwise_bound"]["at"],
            late["pairwise_bound"]["tenants"], late["pairwise_bound"]["holds"]) == \
        ({"A": 3, "B": 5, "C": 2}, 3, 4, ["B", "C"], False)
    last = fairness_so_far(result, len(result["steps"]) - 1)["pairwise_bound"]
    system = result["system_difference"]
    assert (last["max_gap"], last["at"], last["tenants"]) == (system["max_gap"], system["at"], system["tenants"]) \
        == (6, 10, ["B", "C"])


def test_servers_are_shared_equally_the_first_replicas_taking_what_does_not_divide():
    tenants = [{"name": name, "cost": 2, "count": 6} for name in "ABCD"]
    for servers, replicas, expected in [(5, 2, [[0, 1, 2], [3, 4]]), (5, 3, [[0, 1], [2, 3], [4]]),
                                        (4, 4, [[0], [1], [2], [3]]), (3, 1, [[0, 1, 2]])]:
        result = run({"servers": servers, "replicas": replicas, "tenants": tenants})
        assert [r["servers"] for r in result["replicas"]] == expected
        for d in result["dispatch"]:
            assert d["server"] in expected[d["replica"]]


def test_spread_by_request_numbers_the_requests_in_arrival_order():
    # Arrival order: A#0, A#1, B#0 at t=0 (tenant order, then request order), then B#1 at t=1: numbers 0, 1, 2, 3;
    # modulo 2: replica 0 gets A#0 and B#0, replica 1 A#1 and B#1.
    result = run({"servers": 2, "replicas": 2, "tenants": [{"name": "A", "costs": [3, 3]},
                                                           {"name": "B", "costs": [1, 1], "arrivals": [0, 1]}]})
    assert sorted((d["replica"], d["tenant"], d["request"]) for d in result["dispatch"]) == [
        (0, "A", 0), (0, "B", 0), (1, "A", 1), (1, "B", 1)]
    assert result["spread"] == "request"
    steps = result["steps"]
    assert [s["step"] for s in steps] == list(range(len(steps))) and steps[-1]["waiting"] == 0
    assert [s["time"] for s in steps] == sorted(s["time"] for s in steps)
    assert steps[0]["servers"] == [None, None] and len(steps[-1]["servers"]) == 2


def test_one_replica_is_the_router_itself():
    scenario = {**REFERENCE, "servers": 2}
    alone, replicated = run(scenario), run({**scenario, "replicas": 1})
    assert [{k: v for k, v in d.items() if k != "replica"} for d in replicated["dispatch"]] == alone["dispatch"]
    assert replicated["tenants"] == alone["tenants"]
    assert replicated["fairness"]["pairwise_bound"] == alone["fairness"]["pairwise_bound"]
    assert replicated["system_difference"]["max_gap"] == alone["fairness"]["pairwise_bound"]["max_gap"]


@pytest.mark.parametrize("extra, field, problem", [
    ({"servers": 2, "replicas": 3}, "replicas", "must be <= servers (2), not 3"),
    ({"replicas": 2}, "replicas", "needs servers"),
    ({"servers": 2, "replicas": 0}, "replicas", "must be >= 1"),
    ({"servers": 2, "replicas": 2, "spread": "random"}, "spread", "must be one of request, tenant, not 'random'"),
])
def test_bad_replicas_name_the_field(extra, field, problem):
    with pytest.raises(ScenarioError) as caught:
        run({**REFERENCE, **extra})
    assert caught.value.field == field and problem in caught.value.problem


def test_the_text_says_the_system_difference(capsys):
    from schedulers.cli import main
    assert main(["llm", "--preset", "replicas"]) == 0
    text = capsys.readouterr().out
    assert "2 servers · 2 replicas, spread by tenant" in text and "[replica 1] t=0: B joins" in text
    assert "Whole system: max |x_i - x_j| = 6 (B vs C, t=10), one router's 2q̄ = 2: EXCEEDS it" in text
    assert main(["llm", "--preset", "replicas", "--replicas", "1", "--lang", "ja"]) == 0
    assert "システム全体: max |x_i - x_j| = 1" in capsys.readouterr().out


def test_bad_fleet_input_is_one_error_line_on_the_command_line(tmp_path, capsys):
    from schedulers.cli import main
    cases = [({"tenants": [{"name": "A", "costs": [1, "2!5"]}]}, [],
              "error: tenants[0].costs[1].cancel: needs servers"),
             ({"servers": 1, "tenants": [{"name": "A", "costs": ["3~0"]}]}, [],
              "error: tenants[0].costs[0].actual: must be >= 1, not 0"),
             (REFERENCE, ["--servers", "2", "--replicas", "3"], "error: replicas: must be <= servers (2), not 3"),
             (REFERENCE, ["--servers", "2", "--replicas", "2", "--spread", "x"], "error: spread: must be one of "),
             (REFERENCE, ["--servers", "0"], "error: servers: must be >= 1, not 0"),
             (REFERENCE, ["--servers", "x"], "error: servers: must be an integer from 1 to 1000, not 'x'")]
    for k, (scenario, options, message) in enumerate(cases):
        path = tmp_path / f"s{k}.json"
        path.write_text(json.dumps(scenario), encoding="utf-8")
        assert main(["llm", "--scenario", str(path), *options]) == 2
        captured = capsys.readouterr()
        assert captured.out == "" and captured.err.startswith(message) and len(captured.err.splitlines()) == 1, \
            captured.err


def test_a_large_fleet_runs():
    from schedulers.exercises import llm_exercise
    scenario = llm_exercise(1, tenants=200, max_cost=100, max_join=20_000, requests=20_000)
    for extra in ({"servers": 20}, {"servers": 20, "replicas": 4, "spread": "tenant"}):
        result = run({**scenario, **extra}, trace=False)
        assert result["summary"]["requests"] == 20_000 and result["summary"]["busy"] == sum(
            d["cost"] for d in result["dispatch"])
    assert run({**scenario, "servers": 20})["trace"]["level"] == "compact"
