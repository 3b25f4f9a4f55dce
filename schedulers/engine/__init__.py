"""Engine mode: one inference engine with continuous batching, time in decode iterations.

    from schedulers.engine import run
    run({"algorithm": "vtc", "tenants": [{"name": "A", "requests": "4/12x8"}, {"name": "B", "requests": "4/3x8"}]})

The rules are in ``policies.py`` (one short class each), the loop in ``batching.py``, the fairness measure in
``fairness.py``, the scenario fields, limits and compact form in ``scenario.py``. ``DEFAULT_SCENARIO`` is the
article's point in a few dozen iterations, and ``llm_scenario`` the same workload for the LLM router (SFQ).
"""
from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from fractions import Fraction
from typing import Any

from ..catalog import Algorithm, Mode, catalogue, json_number
from ..exercises import engine_exercise
from ..schema import Column, Results, with_readers
from ..recording import COMPACT, NONE, note
from .batching import TRACE_BUDGET, Engine
from .custom import CUSTOM_POLICY
from .lines import LINES
from .policies import POLICIES, RULES, Policy
from .scenario import CONVENTION_FIELDS, PARAMETERS, TENANT, TOP_KEYS, Scenario, format_requests, read
from .steps import STEPS
from .text import TEXT_NEEDS_STEPS, render_text

__all__ = ["ALGORITHMS", "DEFAULT_SCENARIO", "MODE", "SCHEMA", "format_requests", "llm_scenario", "render_text",
           "run"]

ALGORITHMS: dict[str, Algorithm] = catalogue("engine", RULES)
SCHEMA = with_readers("engine", "tenants", TENANT, PARAMETERS, TOP_KEYS, ALGORITHMS)
RESULTS = Results("tenants", "tenant", (   # a result's tenant rows (tenant_row)
    *map(Column, ("name", "weight", "requests")),
    *(Column(name, averaged=True) for name in ("input_tokens", "output_tokens", "service", "normalized")),
    Column("counter"), *(Column(name, averaged=True) for name in ("mean_waiting", "mean_latency"))))

# The article's point in a few dozen iterations: A's requests are long (8 tokens out), B's short (2 out), all
# arriving at once. FCFS admits by arrival, then tenant order, so A fills the batch for 32 iterations before B's
# first request gets a slot, and their service drifts 240 apart, past the bound of 192; VTC charges the tokens
# really generated and lets B in as soon as its counter is the least, so B's requests finish early (mean latency
# 9 1/3 iterations instead of 36) and the service difference stays within 24.
TRACE_NOTES = {COMPACT: f"compact: a full trace would pass the budget of {TRACE_BUDGET} numbers, so steps carry only "
                        "the counters they changed, no batch, queues or sentences",
               NONE: "off: no steps were recorded"}
DEFAULT_SCENARIO: dict[str, Any] = {
    "algorithm": "vtc", "slots": 4, "w_in": 1, "w_out": 2,
    "tenants": [{"name": "A", "requests": "4/8x16"}, {"name": "B", "requests": "4/2x12"}],
}


def run(scenario: Mapping[str, Any], trace: bool = True,
        policy: Callable[[Engine], Policy] | None = None) -> dict[str, Any]:
    """Validate ``scenario`` and run it; ``trace=False`` skips the steps (for benchmarks). ``policy``: a rule of
    your own (a ``Policy`` class, or any callable that makes one from the engine) instead of the scenario's
    ``algorithm``."""
    model = read(scenario, list(ALGORITHMS))
    engine = Engine(model, policy or POLICIES[model.algorithm], trace)
    engine.run()
    return result(model, engine, engine.policy.name if policy else model.algorithm)


def result(model: Scenario, engine: Engine, algorithm: str) -> dict[str, Any]:
    parameters: dict[str, Any] = {"slots": model.slots, "memory": model.memory, "w_in": json_number(model.w_in),
                                  "w_out": json_number(model.w_out)}
    if algorithm == "vtc-predict":
        parameters["prediction"] = model.prediction
    if not model.conventional:   # at the lab's conventions the JSON is what it was before they existed
        parameters.update({name: getattr(model, name) for name in ("conventions", *CONVENTION_FIELDS)})
    parameters["exact"] = {"w_in": str(model.w_in), "w_out": str(model.w_out)}
    iterations = engine.last_iteration + 1
    occupancy = Fraction(engine.slot_iterations, engine.busy_iterations)
    return {
        "mode": "engine", "algorithm": algorithm, "parameters": parameters,
        "trace": note(engine.level, TRACE_BUDGET, TRACE_NOTES),
        "admissions": engine.admissions,
        "requests": request_rows(model, engine),
        "tenants": [tenant_row(engine, t.order) for t in model.tenants],
        "summary": {"iterations": iterations, "busy": engine.busy_iterations,
                    "idle": iterations - engine.busy_iterations,
                    "requests": len(engine.admissions), "tokens": sum(engine.output_tokens),
                    "occupancy": json_number(occupancy), "exact": {"occupancy": str(occupancy)}},
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
    return {"name": spec.name, "weight": json_number(spec.weight), "requests": len(spec.requests),
            "input_tokens": engine.input_tokens[tenant], "output_tokens": engine.output_tokens[tenant],
            "service": json_number(service), "normalized": json_number(normalized), "counter": json_number(counter),
            "mean_waiting": json_number(waiting), "mean_latency": json_number(latency),
            "exact": {"weight": str(spec.weight), "service": str(service), "normalized": str(normalized),
                      "counter": str(counter), "mean_waiting": str(waiting), "mean_latency": str(latency)}}


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


MODE = Mode("engine", "inference engine: continuous batching, decode iterations", ALGORITHMS, SCHEMA, run=run,
            render_text=render_text, exercise=engine_exercise, text_needs_steps=TEXT_NEEDS_STEPS, results=RESULTS,
            steps=STEPS, lines=LINES, custom=CUSTOM_POLICY)
