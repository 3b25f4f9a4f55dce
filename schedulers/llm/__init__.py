"""LLM router mode: the order in which requests from several tenants go to an unmodified server fleet.

    from schedulers.llm import run
    run({"algorithm": "sfq", "tenants": [{"name": "A", "cost": 8, "count": 6}, {"name": "B", "cost": 2, "count": 6}]})

The rules are in ``policies.py`` (one short class each), the shared loop and boundary order in ``router.py``,
the metrics in ``fairness.py``, the scenario fields and limits in ``scenario.py``.
"""
from __future__ import annotations

import argparse
from collections.abc import Callable, Mapping
from fractions import Fraction
from typing import Any

from functools import partial

from ..catalog import Algorithm, algorithm_entry, json_number as number
from ..errors import ScenarioError
from .fairness import measure
from .policies import POLICIES, Policy
from .router import COMPACT, NONE, TRACE_BUDGET, Router
from .scenario import MAX_QUANTUM_ROUNDS, Scenario, read
from .text import TEXT_NEEDS_STEPS, render_text

__all__ = ["ALGORITHMS", "TEXT_NEEDS_STEPS", "run", "render_text", "add_cli_arguments", "cli_overrides"]




def algorithm(name: str, group: str, label: tuple[str, str], summary: tuple[str, str],
              parameters: tuple[str, ...] = ()) -> Algorithm:
    """The meter-based rules read each tenant's weight."""
    return algorithm_entry("llm", name, group, label, summary, parameters,
                           ("weight",) if name in ("sfq", "drr", "wfq") else ())


ALGORITHMS: dict[str, Algorithm] = {a.name: a for a in (
    algorithm("fifo", "article", ("Global FIFO", "グローバル FIFO"),
              ("earliest arrival first; ties by tenant order, then request order",
               "到着の早い順。同着はテナント順、次にリクエスト順")),
    algorithm("rr", "article", ("Per-tenant round robin", "テナント単位ラウンドロビン"),
              ("one request per turn, cycling over waiting tenants in tenant order; joiners take their place",
               "待ちのあるテナントをテナント順に巡回し、1 回に 1 リクエスト。参加者はその順の位置に入る")),
    algorithm("shortest", "article", ("Shortest request first", "最短リクエスト優先"),
              ("the waiting request of least cost; ties by arrival, then tenant order",
               "コスト最小の待ちリクエスト。同点は到着順、次にテナント順")),
    algorithm("sfq", "article", ("SFQ (weighted)", "SFQ (重み付き)"),
              ("least meter M_i (ties: tenant order); V = M_i; dispatch its FIFO head; then M_i += cost/weight",
               "メーター M_i 最小 (同点はテナント順) を選び V = M_i、先頭を送り、M_i += コスト/重み")),
    algorithm("drr", "more", ("Deficit round robin", "Deficit ラウンドロビン"),
              ("tenant order, round after round; a visit adds quantum Q*weight to the deficit; dispatch while it "
               "covers the head; reset to 0 when the queue empties",
               "テナント順に巡回し、訪問ごとに deficit に Q*重み を足し、先頭を賄える間送る。キューが空で 0 に戻す"),
              ("quantum",)),
    algorithm("wfq", "more", ("WFQ (self-clocked, estimated cost)", "WFQ (自己クロック、推定コスト)"),
              ("least finish tag M_i + cost(head)/weight (ties: tenant order); V = that tag; M_i = it",
               "終了タグ M_i + 先頭コスト/重み 最小 (同点はテナント順)。V = そのタグ、M_i = そのタグ")),
)}


def run(scenario: Mapping[str, Any], trace: bool = True,
        policy: Callable[[Router], Policy] | None = None) -> dict[str, Any]:
    """Validate ``scenario`` and route it; ``trace=False`` skips the steps (for benchmarks). ``policy``: a
    rule of your own (a ``Policy`` class, or any callable that makes one from the router) instead of the
    scenario's ``algorithm``."""
    model = read(scenario, ALGORITHMS)
    quantum = drr_quantum(model)
    router = Router(model, policy or POLICIES[model.algorithm], quantum, trace)
    router.run()
    times = [entry["time"] for entry in router.dispatch]
    parameters: dict[str, Any] = {}
    if model.algorithm == "drr":
        parameters = {"quantum": number(quantum), "exact": {"quantum": str(quantum)}}
    return {
        "mode": "llm",
        "algorithm": router.policy.name if policy else model.algorithm,
        "parameters": parameters,
        "trace": trace_note(router.level),
        "dispatch": router.dispatch,
        "tenants": [tenant_summary(router, t.order) for t in model.tenants],
        "summary": {"requests": len(times), "makespan": times[-1] + 1, "idle": times[-1] + 1 - len(times),
                    "first_dispatch": times[0]},
        "fairness": measure(router, times),
        "steps": router.steps,
    }


def drr_quantum(model: Scenario) -> Fraction:
    """DRR's base quantum Q (tenant i's quantum is Q * w_i): as given, else the largest cost / weight, so that
    every visit dispatches. Past the limit a request would need too many futile visits: an error."""
    needed = max(Fraction(max(t.costs)) / t.weight for t in model.tenants)
    if model.quantum is None:
        return needed
    if model.algorithm == "drr" and needed > model.quantum * MAX_QUANTUM_ROUNDS:
        raise ScenarioError("quantum", f"must be at least 1/{MAX_QUANTUM_ROUNDS} of the largest cost/weight "
                            f"({needed}), not {model.quantum} (the documented limit)")
    return model.quantum


def tenant_summary(router: Router, tenant: int) -> dict[str, Any]:
    spec = router.tenants[tenant]
    normalized = Fraction(router.charged[tenant]) / spec.weight
    summary = {"name": spec.name, "weight": number(spec.weight), "join": spec.join, "requests": len(spec.costs),
               "dispatched": router.dispatched[tenant], "charged": router.charged[tenant],
               "normalized": number(normalized),
               "exact": {"weight": str(spec.weight), "normalized": str(normalized)}}
    if len(set(spec.arrivals)) > 1:
        summary["arrivals"] = list(spec.arrivals)
    return summary


def trace_note(level: str) -> dict[str, Any]:
    notes = {COMPACT: f"compact: a full trace would pass the budget of {TRACE_BUDGET} entries, so steps carry "
                      "only the acting tenant's numbers, no queues and no sentences",
             NONE: "off: no steps were recorded"}
    return {"level": level, "budget": TRACE_BUDGET, **({"note": notes[level]} if level in notes else {})}


def add_cli_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--quantum", metavar="Q", help="DRR's base quantum Q (tenant i gets Q * weight_i); "
                        "default: the largest cost / weight")


def cli_overrides(args: argparse.Namespace) -> dict[str, Any]:
    if args.quantum is None:
        return {}
    return {"quantum": args.quantum}
