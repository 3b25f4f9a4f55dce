"""Properties of the LLM router over thousands of random workloads, checked from the outside: the dispatch
list and the scenario alone, not the router's own bookkeeping."""
from __future__ import annotations

import json
from collections import Counter
from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from schedulers.llm import run

WEIGHTS = st.sampled_from([1, 1, 1, 2, 3, "1/2", "2/3", 0.25])


@st.composite
def workloads(draw, weighted: bool = True, max_tenants: int = 4, max_requests: int = 6):
    """Tenants with per-request costs; about half arrive in bursts with gaps, so they leave and come back."""
    tenants = []
    for k in range(draw(st.integers(1, max_tenants))):
        costs = draw(st.lists(st.integers(1, 9), min_size=1, max_size=max_requests))
        tenant = {"name": "ABCDEFGH"[k], "costs": costs}
        if draw(st.booleans()):
            gaps = draw(st.lists(st.sampled_from([0, 0, 1, 3, 8]), min_size=len(costs), max_size=len(costs)))
            tenant["arrivals"] = [sum(gaps[:i + 1]) for i in range(len(costs))]
        else:
            tenant["join"] = draw(st.integers(0, 6))
        if weighted:
            tenant["weight"] = draw(WEIGHTS)
        tenants.append(tenant)
    return {"tenants": tenants}


def requests_of(scenario):
    """(tenant, request) -> (arrival, cost, weight) as the scenario says."""
    table = {}
    for t in scenario["tenants"]:
        costs = t.get("costs") or [t["cost"]] * t["count"]
        arrivals = t.get("arrivals") or [t.get("join", 0)] * len(costs)
        for k, (arrival, cost) in enumerate(zip(arrivals, costs)):
            table[t["name"], k] = (arrival, cost, Fraction(t.get("weight", 1)))
    return table


def backlog(scenario, dispatch):
    """For each tenant, for each dispatch index k: waiting at dispatch k, and still waiting just after it."""
    table = requests_of(scenario)
    names = [t["name"] for t in scenario["tenants"]]
    done = Counter()
    waiting_at, waiting_after = {n: [] for n in names}, {n: [] for n in names}
    for d in dispatch:
        arrived = Counter(n for (n, _), (a, _, _) in table.items() if a <= d["time"])
        for n in names:
            waiting_at[n].append(arrived[n] - done[n] > 0)
        done[d["tenant"]] += 1
        for n in names:
            waiting_after[n].append(arrived[n] - done[n] > 0)
    return waiting_at, waiting_after


@settings(max_examples=600, deadline=None)
@given(workloads(), st.sampled_from(["fifo", "rr", "shortest", "sfq", "drr", "wfq"]))
def test_every_request_once_never_idle_while_work_waits(scenario, algorithm):
    result = run({**scenario, "algorithm": algorithm}, trace=False)
    table = requests_of(scenario)
    sent = [(d["tenant"], d["request"]) for d in result["dispatch"]]
    assert sorted(sent) == sorted(table)                        # every request exactly once
    times = [d["time"] for d in result["dispatch"]]
    assert times[0] == min(a for a, _, _ in table.values())
    for prev, (key, d) in zip([None] + times, zip(sent, result["dispatch"])):
        assert d["time"] >= table[key][0] and d["cost"] == table[key][1]
        if prev is not None and d["time"] > prev + 1:           # a jump: nothing was waiting
            assert all(a > prev or sent.index(k) <= sent.index(key) - 1 for k, (a, _, _) in table.items()
                       if a <= d["time"] - 1)
    per_tenant = Counter(n for n, _ in sent)
    assert [t["dispatched"] for t in result["tenants"]] == [per_tenant[t["name"]] for t in scenario["tenants"]]


@settings(max_examples=300, deadline=None)
@given(workloads())
def test_fifo_and_shortest_orders(scenario):
    table = requests_of(scenario)
    rank = {t["name"]: i for i, t in enumerate(scenario["tenants"])}
    fifo = run({**scenario, "algorithm": "fifo"}, trace=False)["dispatch"]
    keys = [(table[d["tenant"], d["request"]][0], rank[d["tenant"]], d["request"]) for d in fifo]
    # Within each busy stretch, FIFO sends in (arrival, tenant order, request order).
    for a, b, da, db in zip(keys, keys[1:], fifo, fifo[1:]):
        if db["time"] == da["time"] + 1 and b[0] <= da["time"]:
            assert a < b
    shortest = run({**scenario, "algorithm": "shortest"}, trace=False)["dispatch"]
    sent = set()
    for d in shortest:
        waiting = [(c, a, rank[n], k) for (n, k), (a, c, _) in table.items() if a <= d["time"] and (n, k) not in sent]
        assert min(waiting)[2:] == (rank[d["tenant"]], d["request"])
        sent.add((d["tenant"], d["request"]))


@settings(max_examples=1000, deadline=None)
@given(workloads(max_tenants=4, max_requests=5))
def test_sfq_pairwise_bound_on_every_common_backlog_interval(scenario):
    """|ΔW_i/w_i - ΔW_j/w_j| <= c_i/w_i + c_j/w_j (<= 2 q̄) on every interval where both stay backlogged:
    this includes the intervals that start when a tenant comes back, so an idle tenant banks no credit."""
    dispatch = run({**scenario, "algorithm": "sfq"}, trace=False)["dispatch"]
    table = requests_of(scenario)
    names = [t["name"] for t in scenario["tenants"]]
    largest = {n: max(Fraction(c) / w for (m, _), (_, c, w) in table.items() if m == n) for n in names}
    waiting_at, waiting_after = backlog(scenario, dispatch)
    normalized = [Fraction(d["cost"]) / table[d["tenant"], d["request"]][2] for d in dispatch]
    for i in names:
        for j in names:
            if i >= j:
                continue
            for start in range(len(dispatch)):
                if not (waiting_at[i][start] and waiting_at[j][start]):
                    continue
                gap = Fraction(0)
                for k in range(start, len(dispatch)):
                    if not (waiting_at[i][k] and waiting_at[j][k]):
                        break
                    gap += normalized[k] * ((dispatch[k]["tenant"] == i) - (dispatch[k]["tenant"] == j))
                    assert abs(gap) <= largest[i] + largest[j]
                    if not (waiting_after[i][k] and waiting_after[j][k]):
                        break


@settings(max_examples=400, deadline=None)
@given(workloads())
def test_sfq_band_at_every_step_and_the_reported_metrics(scenario):
    result = run({**scenario, "algorithm": "sfq"})
    c_bar = max(Fraction(c) / w for _, c, w in requests_of(scenario).values())
    for s in result["steps"][1:]:
        v = Fraction(s["exact"]["virtual_time"])
        for name, queue in s["queues"].items():
            if queue:
                assert v <= Fraction(s["exact"]["meters"][name]) <= v + c_bar
    f = result["fairness"]
    assert f["band"]["holds"] and Fraction(f["exact"]["max_normalized_cost"]) == c_bar
    if f["pairwise_bound"] is not None:
        assert f["pairwise_bound"]["holds"]
    if f["jain"] is not None:
        assert 0 < f["jain"] <= 1


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 5), st.integers(20, 120), WEIGHTS, WEIGHTS)
def test_a_returning_tenant_gets_no_more_than_its_share(cost, absence, weight_a, weight_b):
    """B works alone for a long stretch while A is away; when A returns, over any prefix of the time both are
    backlogged A's normalised service exceeds B's by at most one request of each."""
    scenario = {"algorithm": "sfq", "tenants": [
        {"name": "A", "costs": [cost] * 12, "arrivals": [0] * 2 + [absence] * 10, "weight": weight_a},
        {"name": "B", "cost": cost, "count": 2 * absence, "weight": weight_b}]}
    dispatch = run(scenario, trace=False)["dispatch"]
    waiting_at, waiting_after = backlog(scenario, dispatch)
    share = {"A": Fraction(cost) / Fraction(weight_a), "B": Fraction(cost) / Fraction(weight_b)}
    returned = next(k for k, d in enumerate(dispatch) if d["time"] >= absence)
    assert waiting_at["A"][returned] and waiting_at["B"][returned]
    lead = Fraction(0)
    for k in range(returned, len(dispatch)):
        lead += share[dispatch[k]["tenant"]] * (1 if dispatch[k]["tenant"] == "A" else -1)
        assert lead <= share["A"] + share["B"]
        if not (waiting_after["A"][k] and waiting_after["B"][k]):
            break


@settings(max_examples=100, deadline=None)
@given(workloads(), st.sampled_from(["fifo", "rr", "shortest", "sfq", "drr", "wfq"]))
def test_deterministic(scenario, algorithm):
    first = json.dumps(run({**scenario, "algorithm": algorithm}), sort_keys=True)
    assert json.dumps(run({**scenario, "algorithm": algorithm}), sort_keys=True) == first


JSON = st.recursive(st.none() | st.booleans() | st.integers(-3, 10**12) | st.floats(allow_nan=True)
                    | st.text(max_size=6) | st.sampled_from(["1/2", "0", "-1", "nan", "1e400", "A"]),
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
                    max_leaves=6)
FIELDS = ["name", "cost", "count", "costs", "join", "arrivals", "weight"]


@settings(max_examples=250, deadline=None)
@given(st.lists(st.dictionaries(st.sampled_from(FIELDS), JSON, max_size=5), max_size=3),
       st.dictionaries(st.sampled_from(["algorithm", "quantum", "compare", "extra"]), JSON, max_size=2))
def test_any_input_runs_or_names_the_field(tenants, top):
    from schedulers.errors import ScenarioError
    try:
        result = run({"tenants": tenants, **top})
    except ScenarioError as error:
        assert error.field and error.problem and "\n" not in str(error)
    else:
        json.dumps(result, allow_nan=False)
