"""LLM router mode: the order in which requests from several tenants go to an unmodified server fleet.

    from schedulers.llm import run
    run({"algorithm": "sfq", "tenants": [{"name": "A", "cost": 8, "count": 6}, {"name": "B", "cost": 2, "count": 6}]})

The rules are in ``policies.py`` (one short class each), the shared loop and boundary order in ``router.py``,
the metrics in ``fairness.py``, the scenario fields and limits in ``scenario.py``.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ..catalog import Algorithm, Mode, catalogue
from ..exercises import llm_exercise
from ..schema import with_readers
from .custom import CUSTOM_POLICY
from .fairness import measure
from .lines import LINES
from .policies import POLICIES, RULES, Policy
from ..recording import COMPACT, NONE, note
from .results import RESULTS, fleet_totals, tenant_summary
from .replicas import run_replicas
from .router import TRACE_BUDGET, Router
from .scenario import PARAMETERS, TENANT, TOP_KEYS, read
from .steps import STEPS
from .text import TEXT_NEEDS_STEPS, render_text
from .workloads import PATTERNS, PRESETS

__all__ = ["ALGORITHMS", "MODE", "SCHEMA", "run", "render_text"]

ALGORITHMS: dict[str, Algorithm] = catalogue("llm", RULES)
SCHEMA = with_readers("llm", "tenants", TENANT, PARAMETERS, TOP_KEYS, ALGORITHMS)
TRACE_NOTES = {COMPACT: f"compact: a full trace would pass the budget of {TRACE_BUDGET} entries, so steps carry "
                        "only the acting tenant's numbers, no queues and no sentences",
               NONE: "off: no steps were recorded"}


def run(scenario: Mapping[str, Any], trace: bool = True,
        policy: Callable[[Router], Policy] | None = None) -> dict[str, Any]:
    """Validate ``scenario`` and route it; ``trace=False`` skips the steps (for benchmarks). ``policy``: a
    rule of your own (a ``Policy`` class, or any callable that makes one from the router) instead of the
    scenario's ``algorithm``."""
    model = read(scenario, ALGORITHMS)
    maker = policy or POLICIES[model.algorithm]
    if model.replicas is not None:
        return replicated(model, maker, trace, policy)
    router = Router(model, maker, trace)
    router.run()
    times = [entry["time"] for entry in router.dispatch]
    result = {
        "mode": "llm",
        "algorithm": router.policy.name if policy else model.algorithm,
        "parameters": router.policy.parameters(),
        "trace": note(router.level, TRACE_BUDGET, TRACE_NOTES),
        "dispatch": router.dispatch,
        "tenants": [tenant_summary(router, t.order) for t in model.tenants],
        "summary": {"requests": len(times), "makespan": times[-1] + 1, "idle": times[-1] + 1 - len(times),
                    "first_dispatch": times[0]} if model.servers is None else fleet_totals(router),
        "fairness": measure(router),
        "steps": router.steps,
    }
    if model.servers is not None:
        result["servers"] = model.servers
        result["cancelled"] = router.cancelled
    return result


def replicated(model: Any, maker: Callable[[Router], Policy], trace: bool, policy: Any) -> dict[str, Any]:
    """``replicas`` routers (``replicas.py``), in the keys of one router's result."""
    parts, first = run_replicas(model, maker, trace)   # the first replica's rule and trace level: every one's
    return {"mode": "llm", "algorithm": first.policy.name if policy else model.algorithm,
            "parameters": first.policy.parameters(), "trace": note(first.level, TRACE_BUDGET, TRACE_NOTES), **parts}


MODE = Mode("llm", "LLM router: order of dispatch to a server fleet", ALGORITHMS, SCHEMA, run=run,
            render_text=render_text, exercise=llm_exercise, text_needs_steps=TEXT_NEEDS_STEPS, results=RESULTS,
            steps=STEPS, lines=LINES, custom=CUSTOM_POLICY, presets=PRESETS,
            patterns=PATTERNS)
