"""Engine mode: one inference engine with continuous batching, time in decode iterations.

    from schedulers.engine import run
    run({"algorithm": "vtc", "tenants": [{"name": "A", "requests": "4/12x8"}, {"name": "B", "requests": "4/3x8"}]})

The rules are in ``policies.py`` (one short class each), the loop in ``batching.py``, the fairness measure in
``fairness.py``, the scenario fields, limits and compact form in ``scenario.py``. ``DEFAULT_SCENARIO`` is the
article's point in a few dozen iterations, and ``llm_scenario`` the same workload for the LLM router (SFQ).
"""
from __future__ import annotations

import argparse
import math
import re
from collections.abc import Mapping
from fractions import Fraction
from functools import partial
from typing import Any

from ..catalog import Algorithm, algorithm_entry, json_number as number
from .batching import COMPACT, NONE, TRACE_BUDGET, Engine
from .policies import POLICIES
from .scenario import Scenario, format_requests, read
from .text import render_text

__all__ = ["ALGORITHMS", "DEFAULT_SCENARIO", "add_cli_arguments", "cli_overrides", "format_requests",
           "llm_scenario", "render_text", "run"]

_algorithm = partial(algorithm_entry, "engine")
PARAMETERS = ("slots", "memory", "w_in", "w_out")

ALGORITHMS: dict[str, Algorithm] = {a.name: a for a in (
    _algorithm("fcfs", "article", ("FCFS (engine default)", "FCFS (エンジンの既定)"),
               ("admit the earliest-arrived waiting request; ties by tenant order, then request order",
                "最も早く届いた待ちリクエストを受け入れる。同着はテナント順、次にリクエスト順"), PARAMETERS),
    _algorithm("vtc", "article", ("VTC (virtual token counter)", "VTC (仮想トークンカウンター)"),
               ("admit the oldest request of the waiting tenant with the least counter (ties: tenant order); charge "
                "w_in*input at admission, w_out per token as generated; lift a returning tenant's counter",
                "カウンター最小の待ちテナント (同点はテナント順) の最古のリクエストを受け入れ、受け入れ時に w_in*入力、"
                "生成のたびに w_out を課金。戻ってきたテナントのカウンターは引き上げる"), PARAMETERS, ("weight",)),
    _algorithm("vtc-predict", "more", ("VTC with predicted output", "VTC (出力長の予測つき)"),
               ("VTC, but charge w_out*predicted up front, then only tokens beyond it; refund the unused prediction",
                "VTC と同じだが w_out*予測 を前払いし、予測を超えたトークンだけ課金、使わなかった予測は返す"),
               (*PARAMETERS, "prediction"), ("weight",)),
)}

# The article's point in a few dozen iterations: A's requests are long (8 tokens out), B's short (2 out), all
# arriving at once. FCFS admits by arrival, then tenant order, so A fills the batch for 32 iterations before B's
# first request gets a slot, and their service drifts 240 apart, past the bound of 192; VTC charges the tokens
# really generated and lets B in as soon as its counter is the least, so B's requests finish early (mean latency
# 9 1/3 iterations instead of 36) and the service difference stays within 24.
DEFAULT_SCENARIO: dict[str, Any] = {
    "algorithm": "vtc", "slots": 4, "w_in": 1, "w_out": 2,
    "tenants": [{"name": "A", "requests": "4/8x16"}, {"name": "B", "requests": "4/2x12"}],
}


def run(scenario: Mapping[str, Any], trace: bool = True) -> dict[str, Any]:
    """Validate ``scenario`` and run it; ``trace=False`` skips the steps (for benchmarks)."""
    model = read(scenario, list(ALGORITHMS))
    engine = Engine(model, POLICIES[model.algorithm], trace)
    engine.run()
    return result(model, engine)


def result(model: Scenario, engine: Engine) -> dict[str, Any]:
    parameters: dict[str, Any] = {"slots": model.slots, "memory": model.memory, "w_in": number(model.w_in),
                                  "w_out": number(model.w_out)}
    if model.algorithm == "vtc-predict":
        parameters["prediction"] = model.prediction
    parameters["exact"] = {"w_in": str(model.w_in), "w_out": str(model.w_out)}
    iterations = engine.last_iteration + 1
    occupancy = Fraction(engine.slot_iterations, engine.busy_iterations)
    return {
        "mode": "engine", "algorithm": model.algorithm, "parameters": parameters,
        "trace": trace_note(engine.level),
        "admissions": engine.admissions,
        "requests": request_rows(model, engine),
        "tenants": [tenant_row(engine, t.order) for t in model.tenants],
        "summary": {"iterations": iterations, "busy": engine.busy_iterations, "idle": iterations - engine.busy_iterations,
                    "requests": len(engine.admissions), "tokens": sum(engine.output_tokens),
                    "occupancy": number(occupancy), "exact": {"occupancy": str(occupancy)}},
        "fairness": engine.pair.measure(),
        "steps": engine.steps,
    }


def request_rows(model: Scenario, engine: Engine) -> list[dict[str, Any]]:
    """Every request in tenant order, then request order: when it arrived, got a slot and finished. ``completion``
    is the end of its last iteration (finished + 1), so latency = completion - arrival, as CPU's turnaround."""
    rows = []
    for tenant in model.tenants:
        for request in tenant.requests:
            outcome = engine.outcome[tenant.order, request.index]
            rows.append({"tenant": tenant.name, "request": request.index, "arrival": request.arrival,
                         "input": request.input, "output": request.output, "slot": outcome["slot"],
                         "admitted": outcome["admitted"], "finished": outcome["finished"],
                         "waiting": outcome["admitted"] - request.arrival,
                         "latency": outcome["finished"] + 1 - request.arrival})
    return rows


def tenant_row(engine: Engine, tenant: int) -> dict[str, Any]:
    spec = engine.tenants[tenant]
    service, counter = engine.service(tenant), engine.exact(engine.policy.counter[tenant])
    normalized = Fraction(service) / spec.weight
    outcomes = [engine.outcome[tenant, r.index] for r in spec.requests]
    waiting = Fraction(sum(o["admitted"] - r.arrival for o, r in zip(outcomes, spec.requests)), len(outcomes))
    latency = Fraction(sum(o["finished"] + 1 - r.arrival for o, r in zip(outcomes, spec.requests)), len(outcomes))
    return {"name": spec.name, "weight": number(spec.weight), "requests": len(spec.requests),
            "input_tokens": engine.input_tokens[tenant], "output_tokens": engine.output_tokens[tenant],
            "service": number(service), "normalized": number(normalized), "counter": number(counter),
            "mean_waiting": number(waiting), "mean_latency": number(latency),
            "exact": {"weight": str(spec.weight), "service": str(service), "normalized": str(normalized),
                      "counter": str(counter), "mean_waiting": str(waiting), "mean_latency": str(latency)}}


def trace_note(level: str) -> dict[str, Any]:
    notes = {COMPACT: f"compact: a full trace would pass the budget of {TRACE_BUDGET} numbers, so steps carry only "
                      "the counters they changed, no batch, queues or sentences",
             NONE: "off: no steps were recorded"}
    return {"level": level, "budget": TRACE_BUDGET, **({"note": notes[level]} if level in notes else {})}


def llm_scenario(scenario: Mapping[str, Any]) -> dict[str, Any]:
    """The same workload for the LLM router under SFQ (for Compare: router-level against engine-level fairness).
    Each request becomes one request of cost w_in × input + w_out × (its ``predicted`` output if given, else its
    true output), rounded up to a whole number: the cost SFQ is told at dispatch. Arrival iterations become
    arrival times (one dispatch per time unit there); weights carry over."""
    model = read({**scenario, "algorithm": "vtc"}, list(ALGORITHMS))
    tenants = []
    for tenant in model.tenants:
        costs = [math.ceil(model.w_in * r.input + model.w_out * (r.output if r.predicted is None else r.predicted))
                 for r in tenant.requests]
        tenants.append({"name": tenant.name, "costs": costs, "arrivals": [r.arrival for r in tenant.requests],
                        "weight": str(tenant.weight)})
    return {"algorithm": "sfq", "tenants": tenants}


# --- the command line ----------------------------------------------------------------------------------

CLI_OPTIONS = (  # option, scenario field, help
    ("--slots", "slots", "N", "requests in the batch at once (default 4)"),
    ("--memory", "memory", "N", "tokens the batch may hold (inputs + tokens generated), checked at admission"),
    ("--w-in", "w_in", "W", "charge per input token (default 1)"),
    ("--w-out", "w_out", "W", "charge per generated token (default 2)"),
    ("--prediction", "prediction", "N", "vtc-predict: the predicted output of a request without its own "
                                        "(default: the tenant's mean output so far)"),
)


WHOLE = re.compile(r"-?[0-9]{1,19}")


def add_cli_arguments(parser: argparse.ArgumentParser) -> None:
    for option, _, metavar, help_text in CLI_OPTIONS:
        parser.add_argument(option, metavar=metavar, help=help_text)


def cli_overrides(args: argparse.Namespace) -> dict[str, Any]:
    """The options as typed: the scenario reader judges them (an integer where it must be, a "p/q" weight)."""
    overrides: dict[str, Any] = {}
    for _, key, _, _ in CLI_OPTIONS:
        text = getattr(args, key)
        if text is not None:
            text = text.strip()
            overrides[key] = int(text) if WHOLE.fullmatch(text) else text
    return overrides
