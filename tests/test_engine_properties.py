"""Engine mode over thousands of random workloads, checked from the outside: the scenario and the trace alone, not
the engine's own bookkeeping."""
from __future__ import annotations

from fractions import Fraction
from itertools import combinations

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from schedulers.engine import run

ALGORITHMS = st.sampled_from(["fcfs", "vtc", "vtc-predict"])
WEIGHTS = st.sampled_from([1, 1, 1, 2, 3, "1/2"])


@st.composite
def workloads(draw, weighted: bool = True, memory: bool = True, max_tenants: int = 4):
    """Tenants whose requests come in groups (the compact form), some later, some predicted; slots 1..4; memory
    sometimes (always enough for the largest input, 6 + 1); w_in <= w_out, as in the paper."""
    tenants = []
    for k in range(draw(st.integers(1, max_tenants))):
        groups = sorted(draw(st.lists(st.tuples(st.integers(0, 12), st.integers(1, 6), st.integers(1, 9),
                                                st.integers(1, 4), st.none() | st.integers(0, 9)),
                                      min_size=1, max_size=3)), key=lambda group: group[0])
        text = "+".join(f"{i}/{o}" + (f"~{p}" if p is not None else "") + f"x{c}@{a}" for a, i, o, c, p in groups)
        tenant = {"name": "ABCD"[k], "requests": text}
        if weighted and draw(st.booleans()):
            tenant["weight"] = draw(WEIGHTS)
        tenants.append(tenant)
    scenario = {"tenants": tenants, "slots": draw(st.integers(1, 4)), "w_in": draw(st.sampled_from([1, 1, "1/2"])),
                "w_out": draw(st.sampled_from([1, 2, 2, 3]))}
    if memory and draw(st.booleans()):
        scenario["memory"] = 7 + draw(st.integers(0, 20))
    return scenario


def requests_of(result: dict) -> dict[tuple[str, int], dict]:
    return {(r["tenant"], r["request"]): r for r in result["requests"]}


def weights_of(scenario: dict) -> dict[str, Fraction]:
    return {t["name"]: Fraction(str(t.get("weight", 1))) for t in scenario["tenants"]}


def exact(step: dict, key: str) -> dict[str, Fraction]:
    return {name: Fraction(text) for name, text in step["exact"][key].items()}


@settings(max_examples=200, deadline=None)
@given(workloads(), ALGORITHMS)
def test_every_request_runs_once_in_one_slot_for_exactly_its_output(scenario, algorithm):
    result = run({**scenario, "algorithm": algorithm})
    requests = requests_of(result)
    for tenant in result["tenants"]:
        mine = [r for r in requests.values() if r["tenant"] == tenant["name"]]
        assert tenant["output_tokens"] == sum(r["output"] for r in mine)       # output tokens conserved
        assert tenant["input_tokens"] == sum(r["input"] for r in mine)
    busy: dict[tuple[int, int], str] = {}
    for request in requests.values():
        assert request["finished"] - request["admitted"] + 1 == request["output"]
        assert request["admitted"] >= request["arrival"]
        for i in range(request["admitted"], request["finished"] + 1):
            assert (i, request["slot"]) not in busy                              # one request per slot
            busy[i, request["slot"]] = request["tenant"]
    decodes = [s for s in result["steps"] if s["kind"] == "decode"]
    assert sum(sum(s["tokens"].values()) for s in decodes) == result["summary"]["tokens"]
    # a tenant's requests go in FIFO order
    for tenant in result["tenants"]:
        admitted = [a["request"] for a in result["admissions"] if a["tenant"] == tenant["name"]]
        assert admitted == sorted(admitted)


@settings(max_examples=200, deadline=None)
@given(workloads(), ALGORITHMS)
def test_no_slot_idles_while_a_request_waits_and_fits(scenario, algorithm):
    result = run({**scenario, "algorithm": algorithm})
    memory = scenario.get("memory")
    steps = result["steps"]
    for k, step in enumerate(steps):
        if step["kind"] != "decode":
            continue
        before = steps[k - 1]      # the state after the iteration's admissions, before its tokens
        waiting = [(name, queue) for name, queue in before["waiting"].items() if queue]
        free = before["slots"].count(None)
        if waiting and free:
            assert memory is not None and "blocked" in step
            assert step["blocked"]["need"] > memory - before["batch_tokens"]
    if memory is not None:   # every admission fitted: the tokens held before it, its input and its first token
        for k, step in enumerate(steps):
            if step["kind"] == "admit":
                assert steps[k - 1]["batch_tokens"] + step["input"] + 1 <= memory


@settings(max_examples=200, deadline=None)
@given(workloads(), st.sampled_from(["vtc", "vtc-predict"]))
def test_every_vtc_admission_picked_the_least_counter_among_waiting_tenants(scenario, algorithm):
    result = run({**scenario, "algorithm": algorithm})
    order = [t["name"] for t in scenario["tenants"]]
    steps = result["steps"]
    for k, step in enumerate(steps):
        if step["kind"] != "admit":
            continue
        before = steps[k - 1]
        counters = exact(before, "counters")
        waiting = [name for name in order if before["waiting"][name]]
        best = min(waiting, key=lambda name: (counters[name], order.index(name)))
        assert step["tenant"] == best
        assert step["request"] == before["waiting"][best][0]                      # its oldest request


@settings(max_examples=200, deadline=None)
@given(workloads())
def test_fcfs_admits_the_earliest_waiting_request(scenario):
    result = run({**scenario, "algorithm": "fcfs"})
    order = [t["name"] for t in scenario["tenants"]]
    requests = requests_of(result)
    steps = result["steps"]
    for k, step in enumerate(steps):
        if step["kind"] == "admit":
            heads = [(requests[name, queue[0]]["arrival"], order.index(name), name)
                     for name, queue in steps[k - 1]["waiting"].items() if queue]
            assert step["tenant"] == min(heads)[2]


@settings(max_examples=200, deadline=None)
@given(workloads(), ALGORITHMS)
def test_charges_net_to_the_service_at_completion(scenario, algorithm):
    """Every counter ends at its lifts plus its service / weight: vtc-predict's up-front charges, charges beyond the
    prediction and refunds net to exactly what vtc charges token by token; fcfs counts the same (and never lifts)."""
    result = run({**scenario, "algorithm": algorithm})
    weights = weights_of(scenario)
    raised: dict[str, Fraction] = {name: Fraction(0) for name in weights}
    for step in result["steps"]:
        if step["kind"] == "lift":
            lift = step["exact"]["lift"]
            raised[step["tenant"]] += Fraction(lift["after"]) - Fraction(lift["before"])
    assert algorithm != "fcfs" or not any(raised.values())
    w_in, w_out = Fraction(str(scenario["w_in"])), Fraction(str(scenario["w_out"]))
    for tenant in result["tenants"]:
        service = w_in * tenant["input_tokens"] + w_out * tenant["output_tokens"]
        assert Fraction(tenant["exact"]["service"]) == service
        assert Fraction(tenant["exact"]["counter"]) == raised[tenant["name"]] + service / weights[tenant["name"]]


def joint_runs(decodes: list[dict], f: str, g: str) -> list[list[int]]:
    """Maximal stretches of consecutive decode steps (iterations) after whose admissions both f and g still wait."""
    runs: list[list[int]] = []
    for k, step in enumerate(decodes):
        both = bool(step["waiting"][f]) and bool(step["waiting"][g])
        consecutive = k > 0 and decodes[k - 1]["iteration"] == step["iteration"] - 1
        if both and runs and runs[-1][-1] == k - 1 and consecutive:
            runs[-1].append(k)
        elif both:
            runs.append([k])
    return runs


def widest_gap(result: dict, scenario: dict, f: str, g: str) -> Fraction:
    """The largest |ΔS_f / w_f - ΔS_g / w_g| over every interval of every joint backlogged run, from the trace."""
    weights = weights_of(scenario)
    decodes = [s for s in result["steps"] if s["kind"] == "decode"]
    widest = Fraction(0)
    for run_steps in joint_runs(decodes, f, g):
        first = run_steps[0]
        base = exact(decodes[first - 1], "service") if first > 0 else {f: Fraction(0), g: Fraction(0)}
        values = [base[f] / weights[f] - base[g] / weights[g]]
        for k in run_steps:
            service = exact(decodes[k], "service")
            values.append(service[f] / weights[f] - service[g] / weights[g])
        widest = max(widest, max(abs(b - a) for a in values for b in values))
    return widest


def bound(result: dict, scenario: dict, f: str, g: str) -> Fraction:
    """The VTC paper's bound with weights: max(w_in L, w_out M) (1/w_f + 1/w_g), M = the `slots` largest in + out."""
    sizes = sorted((r["input"] + r["output"] for r in result["requests"]), reverse=True)
    largest = max(r["input"] for r in result["requests"])
    weights = weights_of(scenario)
    w_in, w_out = Fraction(str(scenario["w_in"])), Fraction(str(scenario["w_out"]))
    return max(w_in * largest, w_out * sum(sizes[:scenario["slots"]])) * (1 / weights[f] + 1 / weights[g])


def drained_and_rejoined(result: dict) -> bool:
    """A tenant joined an empty engine (nothing waiting or running) after the first admission: the one case where
    the issue's lift rule lifts nothing and the bound can fail (docs/engine.md, test_engine_rules)."""
    first = result["admissions"][0]["iteration"]
    return any(s["kind"] == "lift" and s["lift"]["rule"] == "none" and s["iteration"] > first for s in result["steps"])


@settings(max_examples=800, deadline=None)
@given(workloads(max_tenants=3))
def test_vtc_keeps_every_pair_of_backlogged_tenants_within_the_bound(scenario):
    result = run({**scenario, "algorithm": "vtc"})
    assume(not drained_and_rejoined(result))
    names = [t["name"] for t in scenario["tenants"]]
    for f, g in combinations(names, 2):
        assert widest_gap(result, scenario, f, g) <= bound(result, scenario, f, g), (f, g)


@settings(max_examples=200, deadline=None)
@given(workloads(), ALGORITHMS)
def test_the_reported_fairness_is_the_traces(scenario, algorithm):
    result = run({**scenario, "algorithm": algorithm})
    fairness = result["fairness"]
    if len(scenario["tenants"]) < 2:
        assert fairness["compared"] is None
        return
    f, g = fairness["compared"]
    widest = widest_gap(result, scenario, f, g)
    if fairness["interval"] is None:
        assert widest == 0 and not joint_runs([s for s in result["steps"] if s["kind"] == "decode"], f, g)
    else:
        assert Fraction(fairness["exact"]["max_gap"]) == widest
        assert Fraction(fairness["exact"]["bound"]) == bound(result, scenario, f, g)
        assert fairness["holds"] == (widest <= bound(result, scenario, f, g))
