"""Engine mode's conventions (issue 21, docs/engine.md "The conventions"): each pinned by a small case worked out by
hand (the comments show the arithmetic), the preset ``conventions: "s-lora"`` and how a convention given beside it
combines with it, the errors, the command line, and properties over random scenarios. w_in = 1, w_out = 1 unless a
case says otherwise."""

from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schedulers import simulate
from schedulers.engine import DEFAULT_SCENARIO, run
from schedulers.engine.scenario import CONVENTION_FIELDS, PRESETS
from schedulers.errors import ScenarioError
from schedulers.export import trace_json
from tests.reference_vtc import scenario as random_scenario


def engine(*tenants: tuple, algorithm: str = "vtc", **top) -> dict:
    """``tenants`` as (name, requests in the compact form)."""
    return run(
        {
            "algorithm": algorithm,
            "w_in": 1,
            "w_out": 1,
            **top,
            "tenants": [{"name": name, "requests": requests} for name, requests in tenants],
        }
    )


def admitted(result: dict) -> list[tuple[str, int]]:
    return [(a["tenant"], a["iteration"]) for a in result["admissions"]]


def counters(result: dict) -> dict[str, Fraction]:
    return {t["name"]: Fraction(t["exact"]["counter"]) for t in result["tenants"]}


def steps(result: dict, kind: str) -> list[dict]:
    return [s for s in result["steps"] if s["kind"] == kind]


# --- the preset and the defaults -------------------------------------------------------------------------------


def test_at_the_lab_conventions_the_json_is_the_same_given_or_not():
    plain = trace_json(run(DEFAULT_SCENARIO))
    spelled = {**DEFAULT_SCENARIO, "conventions": "lab", **PRESETS["lab"]}
    assert trace_json(run(spelled)) == plain
    assert "conventions" not in json.loads(plain)["parameters"]


def test_s_lora_presets_every_convention_and_the_result_says_so():
    result = run({**DEFAULT_SCENARIO, "conventions": "s-lora"})
    shown = {name: result["parameters"][name] for name in ("conventions", *CONVENTION_FIELDS)}
    assert shown == {
        "conventions": "s-lora",
        "lift": "waiting-only",
        "ties": "first-arrival",
        "charge_first_token": False,
        "loop": "prefill-decode",
        "decodes_between_prefills": 10,
        "reserve": "input+output",
    }


def test_a_convention_given_beside_the_preset_wins_over_it():
    # The preset is each convention's default; a value given in the scenario replaces the preset's for that one.
    result = run({**DEFAULT_SCENARIO, "conventions": "s-lora", "loop": "mixed", "decodes_between_prefills": 3})
    parameters = result["parameters"]
    assert (parameters["loop"], parameters["decodes_between_prefills"]) == ("mixed", 3)
    assert (parameters["lift"], parameters["ties"], parameters["reserve"]) == (
        "waiting-only",
        "first-arrival",
        "input+output",
    )
    assert not steps(result, "prefill")  # the mixed loop: every iteration admits and decodes
    # and the other way round: the lab's preset with one of the artifact's choices
    other = run({**DEFAULT_SCENARIO, "lift": "waiting-only"})["parameters"]
    assert (other["conventions"], other["lift"], other["loop"]) == ("lab", "waiting-only", "mixed")


@pytest.mark.parametrize(
    "key, value, problem",
    [
        ("conventions", "vllm", "must be one of lab, s-lora, not 'vllm'"),
        ("lift", "max", "must be one of lab, waiting-only, not 'max'"),
        ("ties", 1, "must be one of tenant-order, first-arrival, not 1"),
        ("charge_first_token", "false", "must be true or false, not 'false'"),
        ("loop", None, None),  # null: not given
        ("decodes_between_prefills", 0, "must be >= 1, not 0"),
        ("reserve", "output", "must be one of input, input+output, not 'output'"),
    ],
)
def test_a_bad_convention_names_its_field(key, value, problem):
    if problem is None:
        assert run({**DEFAULT_SCENARIO, key: value})["parameters"] == run(DEFAULT_SCENARIO)["parameters"]
        return
    with pytest.raises(ScenarioError) as error:
        run({**DEFAULT_SCENARIO, key: value})
    assert (error.value.field, error.value.problem) == (key, problem)


# --- 1. lift -----------------------------------------------------------------------------------------------------


def test_lift_waiting_only_leaves_a_tenant_joining_alone_beside_the_batch_unlifted():
    # One slot; tenants in order A, C, B (C before B, so that tenant order and the counters disagree).
    # t=0: C 1/1 arrives alone into an empty engine (no lift), is admitted: C = 1, decodes: C = 2, finishes.
    # t=1: A 1/4 arrives into an empty engine, admitted: A = 1; it decodes in t=1..4: A = 2 after t=1.
    # t=2: B 1/1 arrives; nobody waits, A runs: the lab lifts B to the largest counter in the batch, A's 2;
    #      waiting-only leaves B at 0.
    # t=3: C 1/1 arrives while B waits: lifted to the least waiting counter, max(2, B) = 2 either way.
    # t=5: the slot is free: lab B = 2, C = 2, a tie that tenant order gives to C; waiting-only B = 0 < C = 2.
    tenants = (("A", "1/4@1"), ("C", "1/1+1/1@3"), ("B", "1/1@2"))
    lab, artifact = engine(*tenants, slots=1), engine(*tenants, slots=1, lift="waiting-only")
    assert admitted(lab) == [("C", 0), ("A", 1), ("C", 5), ("B", 6)]
    assert admitted(artifact) == [("C", 0), ("A", 1), ("B", 5), ("C", 6)]
    lab_lift = [s["lift"] for s in steps(lab, "lift") if s["tenant"] == "B"][0]
    kept = [s for s in steps(artifact, "lift") if s["tenant"] == "B"][0]
    assert lab_lift == {"rule": "max_batch", "before": 0, "after": 2, "reference": 2, "raised": True}
    assert kept["lift"] == {"rule": "waiting_only", "before": 0, "after": 0, "reference": 2, "raised": False}
    assert "lift = waiting-only" in kept["why"]["en"] and "lift = waiting-only" in kept["why"]["ja"]
    assert "its counter stays at 0" in kept["why"]["en"]


def test_lift_waiting_only_still_lifts_to_the_least_waiting_counter():
    # One slot. t=0: A 1/3 and B 1/1x2 arrive into an empty engine (no lift; B joins while A waits: B = max(0, 0));
    # A wins the tie at 0 by tenant order and runs t=0..2; B waits at 0. t=1: C 1/1 joins while B waits: it is
    # lifted to the least waiting counter, max(0, B's 0) = 0, the rule waiting-only keeps.
    result = engine(("A", "1/3"), ("B", "1/1x2"), ("C", "1/1@1"), slots=1, lift="waiting-only")
    lift = [s["lift"] for s in steps(result, "lift") if s["tenant"] == "C"][0]
    assert (lift["rule"], lift["before"], lift["after"]) == ("min_waiting", 0, 0)


# --- 2. ties -----------------------------------------------------------------------------------------------------


def test_ties_first_arrival_gives_equal_counters_to_the_tenant_that_arrived_first():
    # One slot; tenants in order A, B, C. C 1/3 arrives at t=0, runs t=0..2: C = 1 after admission, 2 after t=0.
    # t=1: B 1/1 arrives, nobody waits, C runs: lifted to C's counter, B = 2.
    # t=2: A 1/1 arrives while B waits: lifted to the least waiting counter, A = 2.
    # t=3: A = B = 2: tenant order admits A; first-arrival admits B (it first arrived at t=1, A at t=2).
    tenants = (("A", "1/1@2"), ("B", "1/1@1"), ("C", "1/3"))
    assert admitted(engine(*tenants, slots=1)) == [("C", 0), ("A", 3), ("B", 4)]
    result = engine(*tenants, slots=1, ties="first-arrival")
    assert admitted(result) == [("C", 0), ("B", 3), ("A", 4)]
    tie = [s for s in steps(result, "admit") if s["tenant"] == "B"][0]
    assert tie["decision"] == {"rule": "least counter", "counter": 2, "tied_with": "A"}
    assert "ties = first-arrival" in tie["why"]["en"] and "ties = first-arrival" in tie["why"]["ja"]


def test_ties_first_arrival_orders_tenants_arriving_together_by_tenant_order():
    # Both at t=0 (arrivals are taken in tenant order): A first, so A wins the tie at 0 under either order.
    tenants = (("A", "1/1"), ("B", "1/1"))
    assert admitted(engine(*tenants, slots=1, ties="first-arrival")) == [("A", 0), ("B", 1)]


# --- 3. the first token ------------------------------------------------------------------------------------------


def test_charge_first_token_false_leaves_the_first_token_uncharged():
    # w_out = 2. A 3/2: charged 3 at admission, then 2 per token: 3 + 2 + 2 = 7; without its first: 3 + 2 = 5.
    charged = engine(("A", "3/2"), w_out=2)
    free = engine(("A", "3/2"), w_out=2, charge_first_token=False)
    assert counters(charged)["A"] == 7 and counters(free)["A"] == 5
    first = steps(free, "decode")[0]
    assert first["charged"] == {"A": 0} and first["uncharged"] == {"A": 1}
    assert "charge_first_token = false" in first["why"]["en"] and "charge_first_token = false" in first["why"]["ja"]
    assert "uncharged" not in steps(free, "decode")[1]
    # the service counts every token received: 3 + 2 × 2 = 7 either way
    assert free["tenants"][0]["service"] == charged["tenants"][0]["service"] == 7


@pytest.mark.parametrize("requests", ["3/2~1", "3/2~3", "3/2~0"])
def test_vtc_predict_without_the_first_token_nets_to_vtc_without_it(requests):
    # w_out = 2, output 2, first token free. ~1: 3 + 2×1 up front; token 2 is the 1st counted, not beyond 1: 0;
    # nothing unused: 5. ~3: 3 + 6 up front, 2 of the 3 predicted unused (1 counted): refund 4: 5. ~0: 3, then the
    # counted token is beyond 0: + 2 = 5. VTC: 3 + 2 = 5.
    predicted = engine(("A", requests), w_out=2, charge_first_token=False, algorithm="vtc-predict")
    assert counters(predicted)["A"] == 5


# --- 5. the loop --------------------------------------------------------------------------------------------------


def test_prefill_decode_takes_new_requests_only_after_its_decodes():
    # Two slots, decodes_between_prefills 2. A 1/5 at t=0, B 1/2 at t=1.
    # t=0: the batch is empty: admit A, prefill (A's token 1).   t=1: B waits, a slot is free, but the batch has
    # made 0 < 2 decodes: decode (A 2).   t=2: decode 2 (A 3).   t=3: 2 decodes made: admit B, prefill (B 1;
    # A waits).   t=4: decode (A 4, B 2: B finishes).   t=5: decode (A 5: A finishes).
    # The mixed loop: B is admitted at t=1 and finishes at t=2, A at t=4.
    tenants = (("A", "1/5"), ("B", "1/2@1"))
    phased = engine(*tenants, slots=2, loop="prefill-decode", decodes_between_prefills=2)
    mixed = engine(*tenants, slots=2)
    assert [(s["kind"], s["iteration"]) for s in phased["steps"] if s["kind"] in ("prefill", "decode")] == [
        ("prefill", 0),
        ("decode", 1),
        ("decode", 2),
        ("prefill", 3),
        ("decode", 4),
        ("decode", 5),
    ]
    assert admitted(phased) == [("A", 0), ("B", 3)] and admitted(mixed) == [("A", 0), ("B", 1)]
    assert {(r["tenant"], r["finished"]) for r in phased["requests"]} == {("A", 5), ("B", 4)}
    assert {(r["tenant"], r["finished"]) for r in mixed["requests"]} == {("A", 4), ("B", 2)}
    prefill = steps(phased, "prefill")[1]
    assert prefill["tokens"] == {"B": 1} and prefill["slots"][0]["generated"] == 3  # A made no token at t=3
    decodes = steps(phased, "decode")
    assert [(d["since_prefill"], d.get("held_back", False)) for d in decodes] == [
        (1, True),
        (2, True),
        (1, False),
        (2, False),
    ]
    assert "loop = prefill-decode" in decodes[0]["why"]["en"] and "loop = prefill-decode" in decodes[0]["why"]["ja"]
    assert "only after 2 decodes" in decodes[0]["why"]["en"]
    # A's counter: 1 + 5 tokens = 6 either way; the summary's tokens per busy iteration: 7 tokens over 6 iterations
    assert counters(phased)["A"] == 6 and phased["summary"]["exact"]["occupancy"] == "7/6"


def test_prefill_decode_admits_at_once_into_an_empty_batch():
    # One slot, decodes_between_prefills 10: A 1/1 and B 1/1 at t=0. t=0: admit A, prefill: A's only token, A
    # finishes. t=1: the batch is empty again: admit B at once (not after 10 decodes), prefill, B finishes.
    result = engine(("A", "1/1"), ("B", "1/1"), slots=1, loop="prefill-decode")
    assert admitted(result) == [("A", 0), ("B", 1)] and not steps(result, "decode")
    assert "the batch was empty" in steps(result, "prefill")[0]["why"]["en"]


# --- 6. memory ------------------------------------------------------------------------------------------------


def test_reserve_input_and_output_keeps_the_batch_peak_below_memory():
    # Two slots, memory 10. A 2/6 and B 2/3 at t=0.
    # reserve input: A needs 2 + 1 = 3 <= 10, then B 2 + 2 + 1 = 5 <= 10: both at t=0.
    # reserve input+output: a request holds input + its tokens (a new one input + 1) and grows for output − 1 −
    # generated more iterations. t=0: A alone: 3 + 5 = 8 < 10. B beside A (both new): (left 5, holds 3), (left 2,
    # holds 3): max(5×1 + 3, 2×2 + 6) = 10, not < 10: blocked. t=1..5 A grows: t=1 (4, 3), (2, 3): max(7, 10) = 10;
    # t=2 (3, 4): max(7, 11); t=3 (2, 5): max(2 + 5, 2×2 + 8) = 12; t=4 (1, 6), B (2, 3): max(5, 2 + 9) = 11; t=5
    # (0, 7): max(5, 10): all blocked. A finishes at t=5; t=6: B alone, 3 + 2 = 5 < 10: admitted.
    tenants = (("A", "2/6"), ("B", "2/3"))
    assert admitted(engine(*tenants, slots=2, memory=10)) == [("A", 0), ("B", 0)]
    whole = engine(*tenants, slots=2, memory=10, reserve="input+output")
    assert admitted(whole) == [("A", 0), ("B", 6)]
    peaks = [s["blocked"]["peak"] for s in steps(whole, "decode") if "blocked" in s]
    assert peaks == [10, 10, 11, 12, 11, 10]
    first = steps(whole, "decode")[0]
    assert first["blocked"] == {"tenant": "B", "request": 0, "reserve": "input+output", "peak": 10, "memory": 10}
    assert "reserve = input+output" in first["why"]["en"] and "reserve = input+output" in first["why"]["ja"]
    # with memory 11 the peak of 10 is below it: both at t=0
    assert admitted(engine(*tenants, slots=2, memory=11, reserve="input+output")) == [("A", 0), ("B", 0)]


@pytest.mark.parametrize(
    "requests, field", [("2/6", "tenants[0].requests"), ([{"input": 2, "output": 6}], "tenants[0].requests[0].output")]
)
def test_reserve_input_and_output_refuses_a_request_that_could_never_be_admitted(requests, field):
    # 2 + 6 + 1 = 9 > 8: the artifact refuses it at arrival; reserve input admits it (2 + 1 <= 8).
    scenario = {"memory": 8, "tenants": [{"name": "A", "requests": requests}]}
    assert run(scenario)["admissions"][0]["iteration"] == 0
    with pytest.raises(ScenarioError) as error:
        run({**scenario, "reserve": "input+output"})
    assert error.value.field == field
    assert "input 2 + output 6 + 1 is more than memory = 8" in error.value.problem
    with pytest.raises(ScenarioError):
        run({**scenario, "conventions": "s-lora"})


# --- the command line ---------------------------------------------------------------------------------------------


def cli(*args: str, stdin: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "schedulers", "engine", "--scenario", "-", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_the_conventions_on_the_command_line():
    text = json.dumps(DEFAULT_SCENARIO)
    done = cli("--json", "--conventions", "s-lora", "--charge-first-token", "true", "--loop", "mixed", stdin=text)
    assert done.returncode == 0, done.stderr
    parameters = json.loads(done.stdout)["parameters"]
    assert (parameters["charge_first_token"], parameters["loop"], parameters["ties"]) == (
        True,
        "mixed",
        "first-arrival",
    )
    assert json.loads(done.stdout) == simulate(
        "engine", {**DEFAULT_SCENARIO, "conventions": "s-lora", "charge_first_token": True, "loop": "mixed"}
    )
    bad = cli("--charge-first-token", "maybe", stdin=text)
    assert bad.returncode == 2 and bad.stderr == "error: charge_first_token: must be true or false, not 'maybe'\n"
    helped = subprocess.run(
        [sys.executable, "-m", "schedulers", "engine", "--help"], capture_output=True, text=True, timeout=60
    )
    assert "--lift lab|waiting-only" in helped.stdout and "(default true)" in helped.stdout


# --- properties -----------------------------------------------------------------------------------------------------

CHOICES = {
    "lift": ("lab", "waiting-only"),
    "ties": ("tenant-order", "first-arrival"),
    "charge_first_token": (True, False),
    "loop": ("mixed", "prefill-decode"),
    "decodes_between_prefills": (1, 3, 10),
    "reserve": ("input", "input+output"),
}


@settings(max_examples=120, deadline=None)
@given(
    st.integers(0, 10**6),
    st.fixed_dictionaries({k: st.sampled_from(v) for k, v in CHOICES.items()}),
    st.sampled_from(["fcfs", "vtc", "vtc-predict"]),
)
def test_every_convention_runs_each_request_once_for_its_output(seed, conventions, algorithm):
    scenario = {**random_scenario(seed), **conventions, "algorithm": algorithm}
    result = run(scenario)
    rows = result["requests"]
    assert len(result["admissions"]) == len(rows) == sum(len(t["requests"]) for t in scenario["tenants"])
    for step in result["steps"]:
        # under prefill-decode an iteration is one or the other: a prefill gives tokens to new requests only
        if step["kind"] == "prefill":
            new = {a["tenant"] for a in result["admissions"] if a["iteration"] == step["iteration"]}
            assert set(step["tokens"]) <= new
    for row in rows:
        assert row["finished"] - row["admitted"] + 1 >= row["output"]
    memory = scenario.get("memory")
    if memory is not None and conventions["reserve"] == "input+output":
        # the reservation is the peak the batch really reaches: it never holds memory tokens or more
        assert all(step["batch_tokens"] < memory for step in result["steps"] if "batch_tokens" in step)


def test_the_artifact_conventions_at_scale():
    # limits.md: reserve input+output reads the whole batch at each admission; 20,000 requests on 1,000 slots run.
    from tests.test_engine_limits import workload

    result = run({**workload(1000, 20, 1000), "conventions": "s-lora", "memory": 5000}, trace=False)
    assert result["summary"]["requests"] == 20_000
    assert result["parameters"]["loop"] == "prefill-decode"
