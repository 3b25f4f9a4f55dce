"""Replicated routers (the article's §11 item 9): R routers, each with its own meters and V and an equal share of the
servers, and what the whole system's fairness is then.

``spread`` says which replica a request reaches: ``"request"``, its arrival number modulo R (the requests in arrival
order, ties by tenant order, then request order, numbered from 0); ``"tenant"``, tenant k (input order) always
replica k modulo R. Replica k gets servers // R servers, and one more while k < servers % R (so the first replicas
get the extra ones), numbered on from the previous replica's. The replicas never see one another, so each runs
exactly as a router of its own; the result merges them by time (at one time, replica 0's events first). Its
``fairness`` is the system's: the definitions of ``fairness.py`` over the merged dispatches, a tenant backlogged while
it waits at any replica; ``system_difference`` is its widest normalised-cost gap against one router's 2c̄.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from itertools import accumulate
from typing import Any

from ..catalog import json_number
from ..narration import say
from .fairness import NOTES, Spread, measure
from .policies import Policy
from .results import fleet_totals, tenant_summary
from .router import Router, Share
from .scenario import Scenario
from .steps import Prepared


def shares(model: Scenario) -> list[Share]:
    """Each replica's requests, servers and compared tenants (the compared tenants it receives requests of, else all
    the compared: then it has no common backlog)."""
    count, servers = model.replicas, model.servers
    base, extra = divmod(servers, count)
    sizes = [base + (k < extra) for k in range(count)]
    firsts = [0, *accumulate(sizes)][:count]
    owned: list[list[list[int]]] = [[[] for _ in model.tenants] for _ in range(count)]
    if model.spread == "tenant":
        for tenant in model.tenants:
            owned[tenant.order % count][tenant.order] = list(range(len(tenant.costs)))
    else:
        order = sorted((arrival, tenant.order, k) for tenant in model.tenants
                       for k, arrival in enumerate(tenant.arrivals))
        for number, (_, tenant, k) in enumerate(order):
            owned[number % count][tenant].append(k)
    return [Share(tuple(map(tuple, requests)), first, size,
                  tuple(i for i in model.compare if requests[i]) or model.compare)
            for requests, first, size in zip(owned, firsts, sizes)]


@dataclass
class System:
    """The replicas' numbers added up, shaped as ``results.tenant_summary`` and ``fleet_totals`` read a router's."""
    tenants: tuple
    servers: int
    dispatch: list[dict[str, Any]]
    cancelled: list[dict[str, Any]]
    charged: list[int]
    dispatched: list[int]
    service: list[int]
    latencies: list[list[int]]
    waits: list[int]


def run_replicas(model: Scenario, policy: Callable[[Router], Policy], trace: bool
                 ) -> tuple[dict[str, Any], Router]:
    """Every replica's run: the merged result's parts (``dispatch``, ``cancelled``, ``steps``, ``tenants``,
    ``summary``, ``fairness``, ``replicas``, ``system_difference``; the caller adds the rest) and the first
    replica's router."""
    routers = []
    for share in shares(model):
        router = Router(model, policy, trace, share)
        router.run()
        routers.append(router)
    n = len(model.tenants)
    system = System(model.tenants, model.servers, merged(routers, "dispatch"), merged(routers, "cancelled"),
                    *([sum(getattr(r, name)[i] for r in routers) for i in range(n)]
                      for name in ("charged", "dispatched", "service")),
                    [[x for r in routers for x in r.latencies[i]] for i in range(n)],
                    [sum(r.waits[i] for r in routers) for i in range(n)])
    tenants = [tenant_summary(system, i) for i in range(n)]
    first = routers[0]
    result = {"dispatch": system.dispatch, "tenants": tenants, "summary": fleet_totals(system),
              "steps": merged_steps(routers, model) if first.tracing else [], "servers": model.servers,
              "cancelled": system.cancelled, "spread": model.spread}
    base = measure(first)   # for q̄ and the compared tenants, which every replica shares
    result["fairness"] = {"compared": [model.tenants[i].name for i in model.compare],
                          "max_normalized_cost": base["max_normalized_cost"],
                          "exact": {"max_normalized_cost": base["exact"]["max_normalized_cost"]}}
    result["fairness"], result["system_difference"] = system_fairness(result, first)
    result["replicas"] = [{"replica": k, "servers": list(range(r.first_server, r.first_server + r.servers)),
                           "requests": sum(map(len, r.share.requests)),
                           "tenants": [t.name for t in model.tenants if r.share.requests[t.order]],
                           "fairness": measure(r) if k else base} for k, r in enumerate(routers)]
    return result, first


def merged(routers: list[Router], key: str) -> list[dict[str, Any]]:
    """The replicas' dispatches (or waiting cancellations), each marked with its replica, in time order (at one time,
    by replica, each in its own order)."""
    entries = [(entry["time"], k, i, entry) for k, router in enumerate(routers)
               for i, entry in enumerate(getattr(router, key))]
    entries.sort(key=lambda item: item[:3])
    return [{**entry, "replica": k} for _, k, _, entry in entries]


def merged_steps(routers: list[Router], model: Scenario) -> list[dict[str, Any]]:
    """One trace: replica 0's initial step, then every replica's steps by time (at one time, by replica). A step's
    rule numbers (meters, V) are its replica's; its ``waiting``, and at the full level its ``queues`` and
    ``servers``, the whole system's as they stand after it."""
    names = [t.name for t in model.tenants]
    waiting = [0] * len(routers)
    queues = [dict.fromkeys(names, []) for _ in routers]
    running = [[None] * r.servers for r in routers]
    order = sorted(((step["time"], k, i, step) for k, r in enumerate(routers) for i, step in enumerate(r.steps)
                    if i), key=lambda item: item[:3])
    steps = []
    for _, k, _, step in [(0, 0, 0, routers[0].steps[0]), *order]:
        step = {**step, "step": len(steps), "replica": k}
        waiting[k] = step["waiting"]
        step["waiting"] = sum(waiting)
        if "queues" in step:
            queues[k] = step["queues"]
            running[k] = step.get("servers", running[k])
            step["queues"] = {name: [cost for replica in queues for cost in replica[name]] for name in names}
            step["servers"] = [entry for replica in running for entry in replica]
        steps.append(step)
    return steps


def system_fairness(result: dict[str, Any], router: Router) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """The system's fairness figures (over the merged dispatches, as the step-through replays them) and its
    ``system_difference``."""
    fairness = {**result["fairness"], "interval": None, "increments": None, "jain": None, "pairwise_bound": None,
                "band": None, "notes": {"band": say(NOTES, "per_replica")}}
    run = Prepared(result)
    interval = run.own.best(len(run.times))
    if interval is None:
        fairness["notes"].update(interval=say(NOTES, "never_backlogged"), jain=say(NOTES, "no_interval"))
        return fairness, None
    first, last = interval
    figures = run.figures(first, last, run.own_widest)
    notes, exact = figures.pop("notes"), figures.pop("exact")
    fairness.update(figures, interval=run.interval(first, last))
    fairness["notes"].update(notes)
    fairness["exact"] = {**fairness["exact"], **exact}
    if len(run.compared) > 1:   # one tenant: no pair (as pairwise_bound)
        fairness["service"] = service_figures(result, router, run, first, last)
    bound = fairness["pairwise_bound"]
    if bound is None:
        return fairness, None
    difference = {"max_gap": bound["max_gap"], "at": bound["at"], "tenants": bound["tenants"], "bound": bound["bound"],
                  "exceeds": not bound["holds"], "interval": fairness["interval"], "exact": bound["exact"]}
    return fairness, difference


def service_figures(result: dict[str, Any], router: Router, run: Prepared, first: int, last: int) -> dict[str, Any]:
    """``fairness.service`` for the system: each compared tenant's actual service (over its weight) from the
    dispatches of the interval, and its widest gap against 2q̄."""
    spread = Spread(run.compared, run.times[first])
    for k in range(first, last + 1):
        entry = result["dispatch"][k]
        spread.charge(entry["time"], run.tenant[k], router.units(run.tenant[k], entry["end"] - entry["start"]))
    names = run.names
    x = {i: router.exact(units) for i, units in spread.x.items()}
    worst, at, pair = spread.widest
    gap, bound = router.exact(worst), 2 * run.q_bar
    return {"increments": {names[i]: json_number(v) for i, v in x.items()}, "max_gap": json_number(gap), "at": at,
            "tenants": [names[i] for i in pair], "bound": json_number(bound), "within_bound": gap <= bound,
            "exact": {"increments": {names[i]: str(v) for i, v in x.items()}, "max_gap": str(gap),
                      "bound": str(bound)}}
