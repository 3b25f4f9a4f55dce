"""LLM router mode: every boundary rule and every policy by a small case worked out by hand."""
from __future__ import annotations

import json

import pytest

from schedulers import simulate
from schedulers.llm import ALGORITHMS, run
from schedulers.llm.fairness import jain_index
from schedulers.llm.router import TRACE_BUDGET

REFERENCE = {"tenants": [{"name": "A", "cost": 8, "count": 6}, {"name": "B", "cost": 2, "count": 6},
                         {"name": "C", "cost": 2, "count": 4, "join": 6}]}


def route(algorithm: str, *tenants: dict, **top) -> dict:
    return run({"algorithm": algorithm, "tenants": list(tenants), **top})


def order(result: dict) -> str:
    return "".join(d["tenant"] for d in result["dispatch"])


def kinds(result: dict) -> list[tuple[str, int, str | None]]:
    return [(s["kind"], s["time"], s.get("tenant")) for s in result["steps"]]


def step(result: dict, kind: str, time: int) -> dict:
    return next(s for s in result["steps"] if s["kind"] == kind and s["time"] == time)


# --- the contract's references and the hand-checked order of every policy ------------------------------

@pytest.mark.parametrize("algorithm, expected", [
    ("sfq", "ABBBBABCBCCCAAAA"),       # the contract
    ("rr", "ABABABCABCABCABC"),        # the contract
    ("fifo", "AAAAAABBBBBBCCCC"),      # by arrival, then tenant order
    ("shortest", "BBBBBBCCCCAAAAAA"),  # cost 2 before cost 8; C's 2s arrive at t=6, after B's
    ("drr", "ABBBBABBCCCCAAAA"),       # Q = 8: A sends one 8 per visit, B four 2s, C joins this round after B
    ("wfq", "BBBABBBCCACCAAAA"),       # finish tags: B 2,4,6 before A 8; ties at 8 and 16 go to A (tenant order)
])
def test_reference_orders(algorithm, expected):
    result = simulate("llm", {**REFERENCE, "algorithm": algorithm})
    assert order(result) == expected
    assert [d["time"] for d in result["dispatch"]] == list(range(16))


def test_article_algorithms_come_first():
    assert list(ALGORITHMS)[:4] == ["fifo", "rr", "shortest", "sfq"]
    assert {a.group for a in list(ALGORITHMS.values())[4:]} == {"more"}


def test_drr_small_quantum_accumulates_deficit():
    # Q = 3: A (cost 8) needs three visits per request; B and C (cost 2) send one or two per visit.
    result = run({**REFERENCE, "algorithm": "drr", "quantum": 3})
    assert order(result) == "BBBABBBCCCACAAAA"
    t3 = step(result, "dispatch", 3)
    assert t3["decision"]["passed"] == [{"tenant": "B", "deficit": 0, "head_cost": 2}]
    assert (t3["deficits_before"]["A"], t3["deficits"]["A"]) == (6, 1)   # +3 to 9, minus 8
    assert step(result, "dispatch", 6)["deficits"]["B"] == 0             # emptied: reset to 0
    assert result["parameters"] == {"quantum": 3, "exact": {"quantum": "3"}}


def test_drr_quantum_is_proportional_to_weight():
    # Q = 2: A (weight 2) gets 4 per visit, B gets 2: A sends two requests per turn, B one.
    result = route("drr", {"name": "A", "cost": 2, "count": 4, "weight": 2}, {"name": "B", "cost": 2, "count": 4},
                   quantum=2)
    assert order(result) == "AABAABBB"


def test_shortest_takes_a_request_from_inside_a_queue():
    result = route("shortest", {"name": "A", "costs": [5, 2]}, {"name": "B", "cost": 2, "count": 1})
    assert [(d["tenant"], d["request"]) for d in result["dispatch"]] == [("A", 1), ("B", 0), ("A", 0)]
    assert step(result, "dispatch", 0)["queues"] == {"A": [5], "B": [2]}
    assert step(result, "dispatch", 0)["decision"]["tied_with"] == "B"


def test_fifo_interleaves_by_arrival_then_tenant_order():
    result = route("fifo", {"name": "A", "cost": 1, "count": 2, "arrivals": [0, 3]},
                   {"name": "B", "cost": 1, "count": 2, "join": 1}, {"name": "C", "cost": 1, "count": 1, "join": 1})
    assert order(result) == "ABBCA"


def test_weighted_sfq():
    # M_A grows by 2/2 = 1 per request, M_B by 2: A gets two dispatches for each of B's while both wait.
    result = route("sfq", {"name": "A", "cost": 2, "count": 4, "weight": 2}, {"name": "B", "cost": 2, "count": 4})
    assert order(result) == "ABAABABB"
    a, b = result["tenants"]
    assert (a["charged"], a["normalized"], b["normalized"]) == (8, 4, 8)


def test_fractional_weights_stay_exact():
    result = route("sfq", {"name": "A", "cost": 1, "count": 3, "weight": "2/3"}, {"name": "B", "cost": 1, "count": 3,
                                                                                 "weight": 0.5})
    # M_A: 0, 3/2, 3, 9/2; M_B: 0, 2, 4, 6.
    assert order(result) == "ABABAB"
    last = result["steps"][-1]
    assert last["exact"]["meters"] == {"A": "9/2", "B": "6"}
    assert last["exact"]["virtual_time_before"] == "3"    # B's start tag at t=4... then 4 at t=5
    assert result["tenants"][0]["exact"]["normalized"] == "9/2"


# --- the boundary rules -------------------------------------------------------------------------------

def test_join_during_backlog_comes_before_the_dispatch_and_raises_the_meter():
    result = run({**REFERENCE, "algorithm": "sfq"})
    joined = step(result, "join", 6)
    assert result["steps"].index(joined) + 1 == result["steps"].index(step(result, "dispatch", 6))
    assert (joined["meters_before"]["C"], joined["meters"]["C"], joined["virtual_time"]) == (0, 8, 8)
    assert "raised from 0 to V = 8" in joined["why"]["en"]
    assert joined["queues"]["C"] == [2, 2, 2, 2]
    tie = step(result, "dispatch", 6)
    assert tie["tenant"] == "B" and tie["decision"]["tied_with"] == "C"   # both at 8: tenant order


def test_rejoin_after_emptying_gets_max_of_meter_and_v():
    result = route("sfq", {"name": "A", "cost": 1, "count": 2, "arrivals": [0, 4]},
                   {"name": "B", "cost": 2, "count": 6})
    assert order(result) == "ABBBABBB"
    rejoin = step(result, "join", 4)
    assert (rejoin["meters_before"]["A"], rejoin["meters"]["A"], rejoin["virtual_time"]) == (1, 4, 4)
    kept = route("sfq", {"name": "A", "cost": 10, "count": 2, "arrivals": [0, 2]}, {"name": "B", "cost": 1, "count": 5})
    again = step(kept, "join", 2)
    assert (again["meters_before"]["A"], again["meters"]["A"], again["virtual_time"]) == (10, 10, 0)
    assert "stays at 10" in again["why"]["en"]


def test_more_requests_for_a_waiting_tenant_are_an_arrival_not_a_join():
    result = route("sfq", {"name": "A", "cost": 1, "count": 3, "arrivals": [0, 0, 1]})
    assert ("arrive", 1, "A") in kinds(result) and ("join", 1, "A") not in kinds(result)


def test_reset_comes_before_the_joins_after_an_emptying_dispatch():
    result = route("sfq", {"name": "A", "cost": 4, "count": 1}, {"name": "B", "cost": 1, "count": 1, "join": 1})
    assert kinds(result) == [("initial", 0, None), ("join", 0, "A"), ("dispatch", 0, "A"), ("idle_reset", 1, None),
                             ("join", 1, "B"), ("dispatch", 1, "B")]
    reset = step(result, "idle_reset", 1)
    assert (reset["virtual_time_before"], reset["virtual_time"]) == (0, 4)
    assert step(result, "join", 1)["meters"]["B"] == 4   # without the reset it would be V = 0


def test_idle_jump_shows_reset_and_joins_as_steps_of_their_own():
    result = route("sfq", {"name": "A", "cost": 4, "count": 2}, {"name": "B", "cost": 1, "count": 1, "join": 5})
    assert kinds(result) == [("initial", 0, None), ("join", 0, "A"), ("dispatch", 0, "A"), ("dispatch", 1, "A"),
                             ("idle_reset", 2, None), ("join", 5, "B"), ("dispatch", 5, "B")]
    reset = step(result, "idle_reset", 2)
    assert (reset["virtual_time_before"], reset["virtual_time"], reset["until"]) == (4, 8, 5)
    assert "time jumps there" in reset["why"]["en"]
    assert [d["time"] for d in result["dispatch"]] == [0, 1, 5]
    assert result["summary"] == {"requests": 3, "makespan": 6, "idle": 3, "first_dispatch": 0}
    # Policies without meters show the jump as an idle step.
    plain = route("rr", {"name": "A", "cost": 4, "count": 2}, {"name": "B", "cost": 1, "count": 1, "join": 5})
    assert ("idle", 2, None) in kinds(plain) and "virtual_time" not in step(plain, "idle", 2)


def test_final_reset_is_noted_on_the_last_dispatch():
    result = run({**REFERENCE, "algorithm": "sfq"})
    last = result["steps"][-1]
    assert last["kind"] == "dispatch" and last["time"] == 15
    assert last["final_reset"]["virtual_time_before"] == 40 and last["final_reset"]["virtual_time"] == 48
    assert "final reset sets V = 48" in last["why"]["en"]
    assert not any(s["kind"] == "idle_reset" for s in result["steps"])


def test_late_first_join_jumps_without_a_reset():
    result = route("sfq", {"name": "A", "cost": 1, "count": 1, "join": 7})
    assert kinds(result) == [("initial", 0, None), ("join", 7, "A"), ("dispatch", 7, "A")]


# --- the trace ------------------------------------------------------------------------------------------

def test_trace_has_the_documented_keys_and_is_json():
    result = run({**REFERENCE, "algorithm": "sfq"})
    json.dumps(result, allow_nan=False)
    assert result["trace"]["level"] == "full"
    d = result["dispatch"][0]
    assert d == {"time": 0, "tenant": "A", "request": 0, "cost": 8, "arrival": 0}
    first = step(result, "dispatch", 0)
    assert first["decision"] == {"meter": 0, "tag": 0, "tied_with": "B", "rule": "least meter"}
    assert (first["meters_before"], first["meters"]) == ({"A": 0, "B": 0, "C": 0}, {"A": 8, "B": 0, "C": 0})
    assert (first["virtual_time_before"], first["virtual_time"]) == (0, 0)
    assert first["queues"] == {"A": [8] * 5, "B": [2] * 6, "C": []} and first["waiting"] == 11
    assert set(first["why"]) == {"en", "ja"} and "t=0" in first["why"]["ja"]
    assert [t["name"] for t in result["tenants"]] == ["A", "B", "C"]
    assert result["tenants"][2] == {"name": "C", "weight": 1, "join": 6, "requests": 4, "dispatched": 4,
                                    "charged": 8, "normalized": 8, "exact": {"weight": "1", "normalized": "8"}}
    assert [s["step"] for s in result["steps"]] == list(range(len(result["steps"])))


def test_trace_off_and_compact_keep_the_dispatch_order():
    full = run({**REFERENCE, "algorithm": "sfq"})
    off = run({**REFERENCE, "algorithm": "sfq"}, trace=False)
    assert off["steps"] == [] and off["trace"]["level"] == "none"
    assert off["dispatch"] == full["dispatch"] and off["fairness"] == full["fairness"]
    # Over the budget the steps stay, without queues, sentences or other tenants' numbers.
    count = TRACE_BUDGET // 1000 + 1
    big = route("sfq", {"name": "A", "cost": 3, "count": count}, {"name": "B", "cost": 1, "count": count})
    assert big["trace"]["level"] == "compact" and "budget" in big["trace"]["note"]
    dispatch = next(s for s in big["steps"] if s["kind"] == "dispatch")
    assert "queues" not in dispatch and dispatch["why"] is None and set(dispatch["meters"]) == {"A"}
    assert len(big["dispatch"]) == 2 * count


# --- fairness metrics -----------------------------------------------------------------------------------

def test_reference_fairness_numbers():
    f = run({**REFERENCE, "algorithm": "sfq"})["fairness"]
    assert f["interval"] == {"start": 6, "end": 8, "dispatches": 3}
    assert f["increments"] == {"A": 0, "B": 4, "C": 2}
    assert f["exact"]["jain"] == "3/5"                # 36 / (3 * 20)
    assert f["pairwise_bound"]["bound"] == 16 and f["pairwise_bound"]["max_gap"] == 4
    assert f["pairwise_bound"]["holds"] and f["band"]["holds"]
    assert (f["band"]["width"], f["band"]["least"]["gap"], f["band"]["greatest"]["gap"]) == (8, 0, 8)


def test_compared_pair_sfq_keeps_the_bound_and_rr_breaks_it():
    sfq = run({**REFERENCE, "algorithm": "sfq", "compare": ["A", "B"]})["fairness"]
    assert sfq["interval"] == {"start": 0, "end": 8, "dispatches": 9}
    assert sfq["increments"] == {"A": 16, "B": 12} and sfq["exact"]["jain"] == "49/50"
    assert sfq["pairwise_bound"]["max_gap"] == 8 and sfq["pairwise_bound"]["holds"]
    rr = run({**REFERENCE, "algorithm": "rr", "compare": ["A", "B"]})["fairness"]
    assert rr["interval"] == {"start": 0, "end": 13, "dispatches": 14}
    assert rr["increments"] == {"A": 48, "B": 10}
    assert rr["pairwise_bound"]["max_gap"] == 38 and not rr["pairwise_bound"]["holds"]
    assert rr["band"] is None
    assert rr["notes"]["band"] == {"en": "this policy keeps no meters", "ja": "この方式はメーターを持ちません"}


def test_wfq_virtual_time_can_pass_a_waiting_meter():
    band = run({**REFERENCE, "algorithm": "wfq"})["fairness"]["band"]
    assert not band["holds"] and band["least"]["gap"] < 0   # A waits at M = 0 while V = 2 after t=0


def test_jain_is_null_with_a_reason_when_undefined():
    f = run({**REFERENCE, "algorithm": "shortest"})["fairness"]
    assert f["interval"] is None and f["jain"] is None and "no common-backlog interval" in f["notes"]["jain"]["en"]
    assert jain_index([0, 0]) is None


def test_text_output_in_both_languages():
    from schedulers.llm import render_text
    result = run({**REFERENCE, "algorithm": "sfq"})
    en, ja = render_text(result, "en"), render_text(result, "ja")
    assert "ABBBBABCBCCCAAAA" in en and "Jain's index: 3/5" in en and "holds" in en
    assert "送出順" in ja and "メーター" in ja and "成立" in ja


def test_every_step_has_a_machine_readable_decision():
    result = route("sfq", {"name": "A", "cost": 4, "count": 2}, {"name": "B", "cost": 1, "count": 1, "join": 5})
    assert all(isinstance(s["decision"], dict) and s["decision"]["rule"] for s in result["steps"])
    assert step(result, "join", 5)["decision"] == {"rule": "M = max(M, V)", "outcome": "raised"}
    assert step(result, "idle_reset", 2)["decision"] == {"rule": "V = max(V, max M)", "outcome": "raised"}
    assert step(result, "join", 0)["decision"]["outcome"] == "at_v"
