"""Engine mode: every sentence of the loop and of each rule pinned by a small case worked out by hand (the comments
show the arithmetic). w_in = 1 and w_out = 2 (the defaults) unless a case says otherwise."""
from __future__ import annotations

import json
from fractions import Fraction

import pytest

from schedulers import simulate
from schedulers.engine import ALGORITHMS, DEFAULT_SCENARIO, format_requests, llm_scenario, run
from schedulers.engine.batching import TRACE_BUDGET
from schedulers.errors import ScenarioError
from schedulers.llm import run as run_llm
from schedulers.engine.steps import span


def engine(algorithm: str, *tenants: tuple, **top) -> dict:
    """``tenants`` as (name, requests in the compact form) or (name, requests, weight)."""
    items = [{"name": t[0], "requests": t[1], **({"weight": t[2]} if len(t) > 2 else {})} for t in tenants]
    return run({"algorithm": algorithm, "tenants": items, **top})


def chart(result: dict) -> list[str]:
    """One row per slot, one letter per iteration: the tenant's first letter, "." when the slot is free."""
    rows = [["."] * result["summary"]["iterations"] for _ in range(result["parameters"]["slots"])]
    for request in result["requests"]:
        for i in range(request["admitted"], request["finished"] + 1):
            rows[request["slot"]][i] = request["tenant"][0]
    return ["".join(row) for row in rows]


def kinds(result: dict) -> list[tuple[str, int]]:
    return [(step["kind"], step["iteration"]) for step in result["steps"]]


def counters(result: dict, kind: str, iteration: int, nth: int = 0) -> dict[str, Fraction]:
    step = [s for s in result["steps"] if s["kind"] == kind and s["iteration"] == iteration][nth]
    return {name: Fraction(value) for name, value in step["exact"]["counters"].items()}


# --- the loop ------------------------------------------------------------------------------------------

def test_loop_order_and_a_finished_request_frees_its_slot_at_the_end_of_the_iteration():
    # One slot, A's two requests (input 2, output 2) at 0. it0: arrive, admit A#0 (charge 1 x 2 = 2), decode (+2).
    # it1: decode (+2): A#0 has its 2 tokens and frees the slot at the END of it1, so A#1 is admitted at it2, not it1.
    result = engine("fcfs", ("A", "2/2x2"), slots=1)
    assert kinds(result) == [("initial", 0), ("arrive", 0), ("admit", 0), ("decode", 0), ("decode", 1), ("admit", 2),
                             ("decode", 2), ("decode", 3)]
    assert chart(result) == ["AAAA"]
    assert [(r["admitted"], r["finished"], r["waiting"], r["latency"]) for r in result["requests"]] == \
        [(0, 1, 0, 2), (2, 3, 2, 4)]
    assert [counters(result, "decode", i)["A"] for i in range(4)] == [4, 6, 10, 12]   # 2+2, +2, +2+2, +2
    assert result["summary"]["iterations"] == 4 and result["summary"]["tokens"] == 4


def test_the_lowest_free_slot_is_taken():
    # it0: A, B, C take slots 0, 1, 2; B (1 token) frees slot 1 at the end of it0. D's two requests arrive at 1:
    # D#0 takes slot 1 (the lowest free), D#1 waits; D#0 frees slot 1 at the end of it1 and D#1 takes it at it2.
    result = engine("fcfs", ("A", "1/3"), ("B", "1/1"), ("C", "1/3"), ("D", "1/1x2@1"), slots=3)
    assert chart(result) == ["AAA", "BDD", "CCC"]
    assert [(r["tenant"], r["slot"], r["admitted"]) for r in result["requests"]] == \
        [("A", 0, 0), ("B", 1, 0), ("C", 2, 0), ("D", 1, 1), ("D", 1, 2)]


def test_memory_checks_the_next_picks_input_plus_one_and_blocks_the_line():
    # memory 10. it0: A (2 + 1 <= 10) is admitted, the batch holds 2; B needs 8 + 1 = 9 > 10 - 2 = 8 free: admission
    # stops, and C (1 + 1, which would fit) is not taken in B's place. A grows by a token per iteration (3, 4, 5, 6
    # held after it0..it3: free 7, 6, 5, 4 at the next tries) and frees its 2 + 5 tokens at the end of it4.
    # it5: B (9 <= 10) then C (8 + 2 <= 10).
    result = engine("fcfs", ("A", "2/5"), ("B", "8/1"), ("C", "1/1"), slots=4, memory=10)
    assert chart(result) == ["AAAAAB", ".....C", "......", "......"]
    decodes = [s for s in result["steps"] if s["kind"] == "decode"]
    assert [s["blocked"]["free"] for s in decodes[:5]] == [8, 7, 6, 5, 4]
    assert decodes[0]["blocked"] == {"tenant": "B", "request": 0, "need": 9, "free": 8}
    assert [s["batch_tokens"] for s in decodes] == [3, 4, 5, 6, 0, 0]
    assert "no more requests are admitted in this iteration" in decodes[0]["why"]["en"]
    assert result["parameters"]["memory"] == 10


def test_time_jumps_over_iterations_where_nothing_runs_or_waits():
    result = engine("fcfs", ("A", "1/1+1/2@5"), slots=1)
    assert kinds(result)[3:6] == [("decode", 0), ("idle", 1), ("arrive", 5)]
    idle = result["steps"][4]
    assert idle["until"] == 5 and span(idle) == (1, 5)
    assert idle["why"]["en"] == "t=1: Nothing runs or waits; the next request arrives at t=5, so time jumps there."
    assert result["summary"] == {**result["summary"], "iterations": 7, "busy": 3, "idle": 4}


# --- the rules -------------------------------------------------------------------------------------------

def test_fcfs_admits_by_arrival_then_tenant_order():
    # B's second request arrived at 0, before A's at 1: it goes first at it1 though A comes first in tenant order.
    assert chart(engine("fcfs", ("A", "1/1@1"), ("B", "1/1x2"), slots=1)) == ["BBA"]
    tied = engine("fcfs", ("A", "1/1"), ("B", "1/1"), slots=1)
    assert chart(tied) == ["AB"]
    assert tied["steps"][3]["decision"] == {"rule": "earliest arrival", "arrival": 0, "tied_with": "B"}
    assert "(B was level; A comes first in tenant order.)" in tied["steps"][3]["why"]["en"]


def test_vtc_admits_the_least_counter_and_charges_tokens_as_they_are_generated():
    # One slot. it0: A and B tie at 0: A by tenant order; A#0 (input 2) costs 1 x 2 = 2, then 2 per token:
    # 4, 6, 8 after it0..it2 (3 tokens). it3: B 0 < A 8: B#0 (input 1): 1 + 2 = 3. it4: B 3 < 8: 6. it5: 9.
    # B has nothing waiting any more: it6 A#1: 8 + 2 + 2 = 12, then 14, 16.
    result = engine("vtc", ("A", "2/3x2"), ("B", "1/1x3"), slots=1)
    assert chart(result) == ["AAABBBAAA"]
    assert [counters(result, "decode", i) for i in (0, 2, 3, 5, 8)] == [
        {"A": 4, "B": 0}, {"A": 8, "B": 0}, {"A": 8, "B": 3}, {"A": 8, "B": 9}, {"A": 16, "B": 9}]
    admit = next(s for s in result["steps"] if s["kind"] == "admit" and s["iteration"] == 3)
    assert admit["decision"] == {"rule": "least counter", "counter": 0} and admit["charged"] == 1
    assert admit["why"]["en"] == ("t=3: B has the least counter among the waiting tenants, 0, so its oldest "
                                  "request #0 (input 1) takes slot 0. It is charged w_in × input = 1 × 1 = 1: "
                                  "B's counter becomes 1.")
    decode = next(s for s in result["steps"] if s["kind"] == "decode" and s["iteration"] == 0)
    assert decode["tokens"] == {"A": 1} and decode["charged"] == {"A": 2}
    assert [(t["name"], t["counter"], t["service"]) for t in result["tenants"]] == [("A", 16, 16), ("B", 9, 9)]


def lifts(result: dict) -> list[tuple[int, str, dict]]:
    return [(s["iteration"], s["tenant"], s["lift"]) for s in result["steps"] if s["kind"] == "lift"]


def test_lift_to_the_least_waiting_counter_is_a_step_of_its_own():
    # One slot. A alone: 1 + 2 = 3 after it0, 6 after it1. B arrives at 2 while A waits with 6: B's counter is
    # lifted from 0 to 6. A and B tie at 6: A by tenant order.
    result = engine("vtc", ("A", "1/1x4"), ("B", "1/1@2"), slots=1)
    assert lifts(result)[-1] == (2, "B", {"rule": "min_waiting", "before": 0, "after": 6, "reference": 6,
                                          "raised": True})
    lift = next(s for s in result["steps"] if s["kind"] == "lift" and s["tenant"] == "B")
    assert lift["exact"]["lift"] == {"before": "0", "after": "6", "reference": "6"}
    assert lift["why"]["en"] == ("t=2: B had nothing waiting and others wait: its counter is lifted from 0 to 6, "
                                 "the least waiting counter, so it cannot claim service it did not use.")
    assert chart(result) == ["AAABA"]


def test_lift_keeps_a_counter_already_above_the_least_waiting_one():
    # B is served alone first (1 + 2 = 3), leaves; A arrives at 1 (nothing waits, nothing runs: A stays 0), and
    # while A waits B comes back at 2: its own 3 is above A's 0 waiting... A was admitted at 1 and has one more
    # waiting with counter 3; B keeps 3 ("kept"): max(3, 3).
    result = engine("vtc", ("A", "1/1x2@1"), ("B", "1/1+1/1@2"), slots=1)
    assert lifts(result) == [(0, "B", {"rule": "none", "before": 0, "after": 0, "reference": None, "raised": False}),
                             (1, "A", {"rule": "none", "before": 0, "after": 0, "reference": None, "raised": False}),
                             (2, "B", {"rule": "min_waiting", "before": 3, "after": 3, "reference": 3,
                                       "raised": False})]
    step = [s for s in result["steps"] if s["kind"] == "lift"][-1]
    assert "its counter 3 is already at least the least waiting counter, 3, so it stays" in step["why"]["en"]


def test_lift_to_the_largest_counter_in_the_batch_when_nobody_waits():
    # Two slots. A's single long request runs alone: 1 + 2 = 3, then 5 after it1. B arrives at 2; nobody waits, the
    # batch holds A (5): B is lifted to 5.
    result = engine("vtc", ("A", "1/4"), ("B", "1/1@2"), slots=2)
    assert lifts(result)[-1] == (2, "B", {"rule": "max_batch", "before": 0, "after": 5, "reference": 5,
                                          "raised": True})
    assert "the largest counter in the batch" in [s for s in result["steps"] if s["kind"] == "lift"][-1]["why"]["en"]
    fcfs = engine("fcfs", ("A", "1/4"), ("B", "1/1@2"), slots=2)
    assert lifts(fcfs) == [] and "lift" not in {s["kind"] for s in fcfs["steps"]}   # FCFS lifts nothing


def test_vtc_predict_pays_up_front_charges_beyond_and_refunds():
    # A#0 predicted 5: 1 + 2 x 5 = 11 at admission; its 3 tokens are within the prediction (0 each); at the end the
    # unused 2 x (5 - 3) = 4 comes back: 7 = 1 + 2 x 3, what VTC charges. A#1 has no prediction: the mean output of
    # A's finished requests, 3: 1 + 6 = 7; its 4th token is beyond: +2 -> 16. A#2: mean (3 + 4) / 2 = 3.5, rounded
    # half up to 4: 1 + 8 = 9 -> 25; output 2: refund 2 x 2 = 4 -> 21 = 3 x 1 + 2 x 9, the service.
    result = engine("vtc-predict", ("A", "1/3~5+1/4+1/2"), slots=1)
    assert [(a["iteration"], a["predicted"], a["charged"]) for a in result["admissions"]] == \
        [(0, 5, 11), (3, 3, 7), (7, 4, 9)]
    decodes = {s["iteration"]: s for s in result["steps"] if s["kind"] == "decode"}
    assert [decodes[i]["counters"]["A"] for i in range(9)] == [11, 11, 7, 14, 14, 14, 16, 25, 21]
    assert decodes[2]["refunds"] == {"A": 4} and decodes[6]["charged"] == {"A": 2}
    assert "A gets back the unused prediction, 4." in decodes[2]["why"]["en"]
    assert result["tenants"][0]["counter"] == result["tenants"][0]["service"] == 21
    fixed = engine("vtc-predict", ("A", "1/3~5+1/4"), slots=1, prediction=10)
    assert [a["predicted"] for a in fixed["admissions"]] == [5, 10]   # a request's own prediction comes first
    assert fixed["parameters"]["prediction"] == 10


def test_weights_divide_every_charge():
    # A weighs 2: input 2 costs 1 x 2 / 2 = 1, each token 2 / 2 = 1; B weighs 1/2: input 1 costs 2, a token 4.
    result = engine("vtc", ("A", "2/1", 2), ("B", "1/1", "1/2"), slots=2)
    assert [(t["counter"], t["service"], t["normalized"]) for t in result["tenants"]] == [(2, 4, 2), (6, 3, 6)]
    admit = next(s for s in result["steps"] if s["kind"] == "admit" and s["tenant"] == "B")
    assert "(1 × 1) / 1/2 = 2" in admit["why"]["en"] and admit["exact"]["charged"] == "2"
    thirds = engine("vtc", ("A", "1/1", 3), slots=1)
    assert thirds["tenants"][0]["exact"]["counter"] == "1" and thirds["steps"][3]["exact"]["charged"] == "1/3"


# --- fairness --------------------------------------------------------------------------------------------

def test_fairness_measure_by_hand():
    # The VTC case above: A and B both wait after the admissions of it0..it4 (B's last request goes in at it5).
    # D = S_A - S_B at the end of each iteration, from D = 0 before it0: 4, 6, 8, 5 (B +1 +2), 2: the widest
    # interval is it0..it2, 8 - 0 = 8. Bound: L = 2, M = 1 slot x (2 + 3) = 5: 2 x max(1 x 2, 2 x 5) = 20.
    result = engine("vtc", ("A", "2/3x2"), ("B", "1/1x3"), slots=1)
    assert result["fairness"] == {
        "compared": ["A", "B"], "bound": 20, "largest_input": 2, "max_batch_tokens": 5, "runs": 1,
        "interval": {"start": 0, "end": 2}, "max_gap": 8, "holds": True, "notes": {},
        "exact": {"bound": "20", "max_gap": "8"}}
    live = [s.get("fairness") for s in result["steps"] if s["kind"] == "decode"]
    assert [(f["gap"], f["widest"]) for f in live[:5]] == [(4, 4), (6, 6), (8, 8), (5, 8), (2, 8)]
    assert live[5:] == [None] * 4


def test_fairness_names_its_pair_and_says_when_there_is_none():
    result = engine("vtc", ("A", "1/1"), ("B", "1/1@5"), ("C", "1/1x3"), compare=["C", "A"], slots=1)
    assert result["fairness"]["compared"] == ["A", "C"]
    single = engine("vtc", ("A", "1/1"))
    assert single["fairness"]["compared"] is None and single["fairness"]["notes"]["pair"]["en"].startswith("one")
    apart = engine("vtc", ("A", "1/1"), ("B", "1/1@5"))
    assert apart["fairness"]["interval"] is None and "never backlogged" in apart["fairness"]["notes"]["interval"]["en"]


def test_default_scenario_shows_the_articles_point():
    # FCFS: A's 16 requests (4 in, 8 out) arrived first (tenant order at the same iteration), so they take the four
    # slots for 4 rounds of 8 iterations; B's first request gets a slot at iteration 32. Service drifts 240 apart
    # over iterations 0..23 (A's 12 admissions x 4 + 4 slots x 24 tokens x 2) while both wait: past the bound
    # 2 x max(1 x 4, 2 x M), M = 4 x (4 + 8) = 48, = 192. VTC keeps it within 24 and B's mean latency drops.
    fcfs = run({**DEFAULT_SCENARIO, "algorithm": "fcfs"})
    vtc = run(DEFAULT_SCENARIO)
    assert min(a["iteration"] for a in fcfs["admissions"] if a["tenant"] == "B") == 32
    assert (fcfs["fairness"]["max_gap"], fcfs["fairness"]["bound"], fcfs["fairness"]["holds"]) == (240, 192, False)
    assert fcfs["fairness"]["interval"] == {"start": 0, "end": 23}
    assert (vtc["fairness"]["max_gap"], vtc["fairness"]["holds"]) == (24, True)
    assert (fcfs["tenants"][1]["mean_latency"], vtc["tenants"][1]["exact"]["mean_latency"]) == (36, "28/3")
    assert 30 <= vtc["summary"]["iterations"] <= 48 and fcfs["summary"]["iterations"] == 38
    # the same tokens in the end: the engine only reorders
    assert [t["output_tokens"] for t in fcfs["tenants"]] == [t["output_tokens"] for t in vtc["tenants"]] == [128, 24]


def test_a_tenant_back_after_the_engine_drained_can_break_the_bound():
    """The issue's lift rule ("if none is waiting, the largest counter in the batch, else unchanged") lifts nothing
    when the engine is empty: B was served alone (10 requests, counter 30), the engine drained, and A (new, 0) and
    B come back together at iteration 20. A joins an empty engine: unchanged, 0; B then joins while A waits:
    max(30, 0) = 30. A is admitted until its counter passes B's: 33 of service (11 requests x 3) while B, waiting
    all along, gets none. The bound, 2 x max(1 x 1, 2 x 2) = 8, does not hold: the measure says so (docs/engine.md)."""
    result = engine("vtc", ("A", "1/1x12@20"), ("B", "1/1x10+1/1x12@20"), slots=1)
    assert lifts(result)[-2:] == [
        (20, "A", {"rule": "none", "before": 0, "after": 0, "reference": None, "raised": False}),
        (20, "B", {"rule": "min_waiting", "before": 30, "after": 30, "reference": 0, "raised": False})]
    fairness = result["fairness"]
    assert (fairness["max_gap"], fairness["bound"], fairness["holds"]) == (33, 8, False)
    assert fairness["interval"] == {"start": 20, "end": 30}


def test_the_bound_assumes_an_input_token_costs_no_more_than_an_output_token():
    """With w_in > w_out one request's charge, w_in x input + w_out x output, can pass max(w_in L, w_out M): one slot,
    w_in 2, w_out 1. it0: A#0 (3 in, 1 out): 6 + 1 = 7. it1..it3: B (3 < 7, then 6 < 7) is admitted three times:
    3, 3 and its 3-input request 6 + 1: 13 of service over 1..3 against A's 0, past 2 x max(2 x 3, 1 x 4) = 12.
    The paper's prices (1 and 2) have w_in <= w_out; the property test keeps to that."""
    result = engine("vtc", ("A", "3/1+1/1"), ("B", "1/1x2+3/1x2"), slots=1, w_in=2, w_out=1)
    fairness = result["fairness"]
    assert (fairness["max_gap"], fairness["bound"], fairness["holds"]) == (13, 12, False)
    assert fairness["interval"] == {"start": 1, "end": 3}


# --- the JSON, the trace levels, the compact form ----------------------------------------------------

def test_json_shape_and_exact_numbers():
    result = simulate("engine", {"algorithm": "vtc", "tenants": [
        {"name": "A", "weight": 3, "requests": "1/2"}, {"name": "B", "requests": [{"input": 2, "output": 1}]}]})
    json.dumps(result)   # plain JSON all through
    assert result["mode"] == "engine" and result["trace"] == {"level": "full", "budget": TRACE_BUDGET}
    assert set(result["admissions"][0]) >= {"iteration", "tenant", "request", "charged"}
    assert result["admissions"][0]["charged"] == pytest.approx(1 / 3)
    assert result["admissions"][0]["exact"] == {"charged": "1/3"}
    assert all({"name", "service", "counter", "input_tokens", "output_tokens"} <= set(t) for t in result["tenants"])
    for step in result["steps"]:
        assert {"step", "kind", "iteration", "counters", "exact", "why"} <= set(step)
        assert set(step["counters"]) == {"A", "B"}
        assert {name: str(Fraction(text)) for name, text in step["exact"]["counters"].items()} == \
            step["exact"]["counters"]
    last = result["steps"][-1]
    assert last["exact"]["counters"] == {"A": "5/3", "B": "4"} and last["counters"]["A"] == pytest.approx(5 / 3)
    assert last["slots"] == [None] * 4 and last["waiting"] == {"A": [], "B": []}


def test_compact_and_no_trace():
    big = {"algorithm": "vtc", "tenants": [{"name": "A", "requests": "1/50x200"}, {"name": "B", "requests": "1/5x200"}]}
    result = run(big)
    assert result["trace"]["level"] == "compact" and "budget" in result["trace"]["note"]
    assert all(step["why"] is None and "slots" not in step for step in result["steps"])
    decode = next(s for s in result["steps"] if s["kind"] == "decode")
    assert set(decode["counters"]) == {"A", "B"}   # the tenants the step charged
    admit = next(s for s in result["steps"] if s["kind"] == "admit")
    assert set(admit["counters"]) == {admit["tenant"]}
    none = run(big, trace=False)
    assert none["steps"] == [] and none["trace"]["level"] == "none"
    assert none["admissions"] == result["admissions"] and none["fairness"] == result["fairness"]


def test_compact_form_round_trips_and_reads_like_the_list():
    text = "8/30x2+4/5~3@2+4/5~3@2+1/1x3@7"
    listed = ([{"arrival": 0, "input": 8, "output": 30}] * 2
              + [{"arrival": 2, "input": 4, "output": 5, "predicted": 3}] * 2
              + [{"arrival": 7, "input": 1, "output": 1}] * 3)
    assert format_requests(listed) == "8/30x2+4/5~3x2@2+1/1x3@7"
    a = engine("vtc-predict", ("A", text))
    b = run({"algorithm": "vtc-predict", "tenants": [{"name": "A", "requests": listed}]})
    assert a == b
    assert engine("fcfs", ("A", " 1/2 ,1/2\t3/4x2@1 "))["requests"][3]["input"] == 3   # + , and spaces all separate


@pytest.mark.parametrize("requests, problem", [
    ("8/0", "group 1 ('8/0'): output must be >= 1, not 0"),
    ("1/1+8-3", "group 2 ('8-3') is not INPUT/OUTPUT[~PREDICTED][xCOUNT][@ARRIVAL], e.g. 8/30x4@10"),
    ("1/1@5+1/1@2", "group 2 ('1/1@2'): arrival 2 is earlier than the request before it (5): a tenant's requests "
                    "are FIFO"),
    ("1/1x0", "group 1 ('1/1x0'): count must be >= 1, not 0"),
    ("   ", "must have at least 1 request (INPUT/OUTPUT[~PREDICTED][xCOUNT][@ARRIVAL], e.g. 8/30x4)"),
    ("1/1x200000", "the scenario would have more than 100000 requests (the documented limit)"),
])
def test_compact_form_errors_name_the_field_and_the_group(requests, problem):
    with pytest.raises(ScenarioError) as caught:
        engine("vtc", ("A", requests))
    assert (caught.value.field, caught.value.problem) == ("tenants[0].requests", problem)


@pytest.mark.parametrize("scenario, field", [
    ({"tenants": [{"name": "A", "requests": [{"input": 1}]}]}, "tenants[0].requests[0].output"),
    ({"tenants": [{"name": "A", "requests": [{"input": 1, "output": 1, "arrival": 3},
                                             {"input": 1, "output": 1, "arrival": 1}]}]},
     "tenants[0].requests[1].arrival"),
    ({"tenants": [{"name": "A", "requests": [{"input": 0, "output": 1}]}]}, "tenants[0].requests[0].input"),
    ({"tenants": [{"name": "A", "requests": [{"input": 1, "output": 1, "outptu": 1}]}]},
     "tenants[0].requests[0].outptu"),
    ({"tenants": [{"name": "A", "requests": [{"input": 9, "output": 1}]}], "memory": 9},
     "tenants[0].requests[0].input"),
    ({"tenants": [{"name": "A", "requests": "1/1"}], "slots": 0}, "slots"),
    ({"tenants": [{"name": "A", "requests": "1/1"}], "w_out": "x"}, "w_out"),
    ({"tenants": [{"name": "A", "requests": "1/1"}], "algorithm": "sfq"}, "algorithm"),
    ({"tenants": [{"name": "A", "requests": "1/1"}, {"name": "A", "requests": "1/1"}]}, "tenants[1].name"),
    ({"tenants": [{"name": "A", "requests": "1/1", "weight": 0}]}, "tenants[0].weight"),
    ({"tenants": [{"name": "A", "requests": "1/1"}], "compare": ["A", "Z"]}, "compare[1]"),
    ({"tenants": [{"name": "A", "requests": "1/1"}], "mode": "cpu"}, "mode"),
    ({"tenants": []}, "tenants"),
    ({"tenants": [{"name": "A", "requests": "1/600000x2"}]}, "tenants[0].requests"),
])
def test_bad_scenarios_name_the_field(scenario, field):
    with pytest.raises(ScenarioError) as caught:
        run(scenario)
    assert caught.value.field == field


def test_the_same_workload_for_the_llm_router():
    # cost = w_in x input + w_out x output (the prediction when given): A 4 + 2 x 8 = 20, B 4 + 2 x 2 = 8.
    llm = llm_scenario(DEFAULT_SCENARIO)
    assert llm["algorithm"] == "sfq"
    assert llm["tenants"][0] == {"name": "A", "costs": [20] * 16, "arrivals": [0] * 16, "weight": "1"}
    assert llm["tenants"][1]["costs"] == [8] * 12
    routed = run_llm(llm)
    # SFQ equalises estimated cost at dispatch: A's 20s against B's 8s, two or three B's per A while both wait
    assert "".join(d["tenant"] for d in routed["dispatch"])[:10] == "ABBBABBABB"
    halves = llm_scenario({"w_in": "1/2", "tenants": [{"name": "A", "weight": 2, "requests": "3/1~4@2"}]})
    assert halves["tenants"][0] == {"name": "A", "costs": [10], "arrivals": [2], "weight": "2"}   # ceil(1.5 + 8)


def test_menu():
    assert list(ALGORITHMS) == ["fcfs", "vtc", "vtc-predict"]
    assert all(a.summary["en"] and a.summary["ja"] and a.label["ja"] for a in ALGORITHMS.values())
    assert ALGORITHMS["vtc-predict"].parameters[-1] == "prediction"
