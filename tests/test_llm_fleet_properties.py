"""Properties of the router with servers over random workloads, checked from the outside: the dispatch list, the
cancellations and the scenario alone."""
from __future__ import annotations

import json
from collections import Counter, defaultdict

from hypothesis import given, settings
from hypothesis import strategies as st

from schedulers.llm import run

RULES = st.sampled_from(["fifo", "rr", "shortest", "sfq", "drr", "wfq"])


@st.composite
def fleets(draw, mispredict: bool = True, cancels: bool = True):
    """2-4 tenants on 1-3 servers; actuals and cancellations (some before, some after the dispatch) when asked."""
    tenants = []
    for k in range(draw(st.integers(1, 4))):
        count = draw(st.integers(1, 6))
        gaps = draw(st.lists(st.sampled_from([0, 0, 1, 3, 8]), min_size=count, max_size=count))
        arrivals = [sum(gaps[:i + 1]) for i in range(count)]
        costs = []
        for arrival in arrivals:
            entry = {"cost": draw(st.integers(1, 9))}
            if mispredict and draw(st.booleans()):
                entry["actual"] = draw(st.integers(1, 20))
            if cancels and draw(st.integers(0, 3)) == 0:
                entry["cancel"] = arrival + draw(st.integers(0, 12))
            costs.append(entry)
        tenants.append({"name": "ABCD"[k], "costs": costs, "arrivals": arrivals,
                        "weight": draw(st.sampled_from([1, 1, 2, "1/2"]))})
    return {"servers": draw(st.integers(1, 3)), "tenants": tenants}


def requests_of(scenario):
    return {(t["name"], k): entry for t in scenario["tenants"] for k, entry in enumerate(t["costs"])}


@settings(max_examples=400, deadline=None)
@given(fleets(mispredict=False, cancels=False), RULES)
def test_actual_equal_to_the_estimate_charges_exactly_what_was_sent(scenario, algorithm):
    result = run({**scenario, "algorithm": algorithm}, trace=False)
    sent = defaultdict(int)
    for d in result["dispatch"]:
        sent[d["tenant"]] += d["cost"]
        assert d["end"] - d["start"] == d["actual"] == d["cost"]
    for tenant in result["tenants"]:
        given_costs = sum(entry["cost"] for entry in next(t for t in scenario["tenants"]
                                                          if t["name"] == tenant["name"])["costs"])
        assert tenant["charged"] == sent[tenant["name"]] == tenant["actual_service"] == given_costs


@settings(max_examples=500, deadline=None)
@given(fleets(), RULES)
def test_servers_never_overlap_and_every_request_goes_or_is_cancelled_once(scenario, algorithm):
    result = run({**scenario, "algorithm": algorithm}, trace=False)
    table = requests_of(scenario)
    dispatched = [(d["tenant"], d["request"]) for d in result["dispatch"]]
    withdrawn = [(c["tenant"], c["request"]) for c in result["cancelled"]]
    assert sorted(dispatched + withdrawn) == sorted(table)            # each exactly once
    by_server = defaultdict(list)
    for d in result["dispatch"]:
        assert 0 <= d["server"] < scenario["servers"] and d["start"] == d["time"] >= d["arrival"]
        by_server[d["server"]].append((d["start"], d["end"]))
        entry = table[d["tenant"], d["request"]]
        full = d["start"] + entry.get("actual", entry["cost"])
        if d.get("cancelled"):
            assert d["start"] < entry["cancel"] == d["end"] < full   # cut short, its charge kept
        else:
            assert d["end"] == full and not ("cancel" in entry and entry["cancel"] <= d["start"])
    for spans in by_server.values():
        spans.sort()
        assert all(end <= start for (_, end), (start, _) in zip(spans, spans[1:]))
    for c in result["cancelled"]:
        entry = table[c["tenant"], c["request"]]
        assert c["time"] == entry["cancel"] >= c["arrival"]
    charged = Counter()
    for d in result["dispatch"]:
        charged[d["tenant"]] += d["cost"]
    assert {t["name"]: t["charged"] for t in result["tenants"]} == {t["name"]: charged[t["name"]]
                                                                    for t in scenario["tenants"]}


@settings(max_examples=400, deadline=None)
@given(fleets(), RULES)
def test_no_server_idles_while_a_request_waits(scenario, algorithm):
    """A request that waited was dispatched the moment a server freed (an end at that instant), and at every instant
    it waited every server was busy."""
    result = run({**scenario, "algorithm": algorithm}, trace=False)
    ends = {d["end"] for d in result["dispatch"]}
    spans = [(d["start"], d["end"]) for d in result["dispatch"]]
    for d in result["dispatch"]:
        if d["start"] > d["arrival"]:
            assert d["start"] in ends
            for t in range(d["arrival"], d["start"]):
                assert sum(start <= t < end for start, end in spans) == scenario["servers"]


@settings(max_examples=400, deadline=None)
@given(fleets())
def test_sfq_keeps_the_bound_on_the_charged_estimates_whatever_the_servers_do(scenario):
    """The guarantee is about the dispatch order of one router: it holds with servers, mispredictions and
    cancellations alike, and the meters stay in the band."""
    result = run({**scenario, "algorithm": "sfq"})
    fairness = result["fairness"]
    if fairness["pairwise_bound"] is not None:
        assert fairness["pairwise_bound"]["holds"]
    if fairness["band"] is not None:
        assert fairness["band"]["holds"]


@settings(max_examples=150, deadline=None)
@given(fleets(), RULES)
def test_deterministic_and_json(scenario, algorithm):
    first = json.dumps(run({**scenario, "algorithm": algorithm}), sort_keys=True, allow_nan=False)
    assert json.dumps(run({**scenario, "algorithm": algorithm}), sort_keys=True) == first


@settings(max_examples=250, deadline=None)
@given(fleets(), RULES)
def test_fairness_so_far_ends_at_the_runs_own_figures(scenario, algorithm):
    """The step-through's figures, replayed from the result (cancellations and several dispatches at one time
    included), are the run's own at the last step, and never count a dispatch after the step."""
    from schedulers.llm.steps import dispatched_so_far, fairness_so_far
    result = run({**scenario, "algorithm": algorithm})
    last = fairness_so_far(result, len(result["steps"]) - 1)
    for key in ("interval", "increments", "jain", "pairwise_bound"):
        assert last[key] == result["fairness"][key], key
    if result["fairness"].get("service") and len(result["fairness"]["compared"]) > 1:   # all ended by then
        assert last["service"]["increments"] == result["fairness"]["service"]["increments"]
    for step in range(len(result["steps"])):
        figures = fairness_so_far(result, step)
        if figures["interval"] is not None:
            assert figures["interval"]["dispatches"] <= dispatched_so_far(result, step)


@settings(max_examples=300, deadline=None)
@given(fleets(), st.integers(1, 3), st.sampled_from(["request", "tenant"]))
def test_replicas_route_every_request_once_and_each_is_fair_on_its_own(scenario, replicas, spread):
    servers = max(scenario["servers"], replicas)
    result = run({**scenario, "algorithm": "sfq", "servers": servers, "replicas": replicas, "spread": spread})
    table = requests_of(scenario)
    gone = [(d["tenant"], d["request"]) for d in result["dispatch"]] + [(c["tenant"], c["request"])
                                                                       for c in result["cancelled"]]
    assert sorted(gone) == sorted(table)
    owners = [set(r["servers"]) for r in result["replicas"]]
    assert sorted(s for owned in owners for s in owned) == list(range(servers))
    assert max(map(len, owners)) - min(map(len, owners)) <= 1
    for d in result["dispatch"]:
        assert d["server"] in owners[d["replica"]]
        if spread == "tenant":
            assert d["replica"] == [t["name"] for t in scenario["tenants"]].index(d["tenant"]) % replicas
    for replica in result["replicas"]:
        bound = replica["fairness"]["pairwise_bound"]
        assert bound is None or bound["holds"]
    assert [s["step"] for s in result["steps"]] == list(range(len(result["steps"])))
    assert result["steps"][-1]["waiting"] == 0


@settings(max_examples=200, deadline=None)
@given(fleets(), RULES, st.integers(1, 2))
def test_the_actual_service_so_far_is_the_definition(scenario, algorithm, replicas):
    """``service_so_far`` and ``fairness_so_far``'s ``service`` at every step against their definition read straight
    from the dispatches: each one sent by the step gave min(end, t) - start by the step's time t, over its tenant's
    weight (with one or two replicas)."""
    from fractions import Fraction

    from schedulers.llm.steps import dispatched_so_far, fairness_so_far, service_so_far
    servers = max(scenario["servers"], replicas)
    result = run({**scenario, "algorithm": algorithm, "servers": servers, "replicas": replicas})
    weight = {t["name"]: Fraction(t["exact"]["weight"]) for t in result["tenants"]}
    for step, state in enumerate(result["steps"]):
        now, sent = state["time"], result["dispatch"][:dispatched_so_far(result, step)]
        given = dict.fromkeys(weight, Fraction(0))
        for item in sent:
            given[item["tenant"]] += (min(item["end"], now) - item["start"]) / weight[item["tenant"]]
        assert service_so_far(result, step) == given
        figures = fairness_so_far(result, step)
        if "service" not in figures:
            continue
        interval = figures["interval"]
        first = next(k for k, d in enumerate(sent) if d["time"] == interval["start"])
        x = {name: Fraction(0) for name in figures["increments"]}
        for item in sent[first:first + interval["dispatches"]]:
            if item["tenant"] in x:
                x[item["tenant"]] += (min(item["end"], now) - item["start"]) / weight[item["tenant"]]
        assert {name: Fraction(v) for name, v in figures["service"]["exact"]["increments"].items()} == x
        assert Fraction(figures["service"]["exact"]["difference"]) == max(x.values()) - min(x.values())
