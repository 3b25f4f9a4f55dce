"""A router run's rows, one per tenant, and their columns (``RESULTS``, the mode's ``Mode.results``: the CSV export,
the app's tables and the text output read it); with servers, each tenant's actual service, latency and wait.

Latency is completion - arrival over the requests that completed (a cancelled one did not); the 95th percentile is
the nearest rank (the ceil(0.95 n)-th smallest of n). Wait is dispatch - arrival over every dispatched request.
"""
from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING, Any

from ..catalog import json_number
from ..schema import Column, Results, summary_figures

if TYPE_CHECKING:
    from .router import Router


def run_figures(result: dict[str, Any]) -> dict[str, Any]:
    """The run's own figures for the exports: the summary's; with a fleet its servers, and with replicas how many,
    their spread and the whole system's largest normalised-cost difference beside one router's bound (exact)."""
    figures = summary_figures(result)
    if "servers" in result:
        figures["servers"] = result["servers"]
    if "system_difference" in result:
        difference = result["system_difference"]
        figures.update(replicas=len(result["replicas"]), spread=result["spread"],
                       system_difference=difference["exact"]["max_gap"], bound=difference["exact"]["bound"])
    return figures


FLEET = ("actual_service", "latency_mean", "latency_p95", "wait_mean")   # only with servers
RESULTS = Results("tenants", "tenant", (   # a result's tenant rows (tenant_summary)
    *map(Column, ("name", "weight", "join", "requests")),
    *(Column(name, averaged=True) for name in ("dispatched", "charged", "normalized")),
    Column("actual_service", averaged=True, optional=True),
    *(Column(name, optional=True) for name in FLEET[1:])), totals=run_figures)


def tenant_summary(router: Router, tenant: int) -> dict[str, Any]:
    """A tenant's row, from a router (or the replicas' ``System``, which adds theirs up under the same names)."""
    spec = router.tenants[tenant]
    normalized = Fraction(router.charged[tenant]) / spec.weight
    summary = {"name": spec.name, "weight": json_number(spec.weight), "join": spec.join, "requests": len(spec.costs),
               "dispatched": router.dispatched[tenant], "charged": router.charged[tenant],
               "normalized": json_number(normalized),
               "exact": {"weight": str(spec.weight), "normalized": str(normalized)}}
    if len(set(spec.arrivals)) > 1:
        summary["arrivals"] = list(spec.arrivals)
    if router.servers is not None:
        fleet_summary(summary, router.service[tenant], router.latencies[tenant], router.waits[tenant],
                      router.dispatched[tenant])
    return summary


def fleet_summary(summary: dict[str, Any], service: int, latencies: list[int], waits: int, dispatched: int) -> None:
    """A tenant's service, latencies (mean and p95, nearest rank) and mean wait, into its row (None: no request
    completed, or none was dispatched)."""
    ordered = sorted(latencies)
    latency = Fraction(sum(ordered), len(ordered)) if ordered else None
    wait = Fraction(waits, dispatched) if dispatched else None
    summary.update(actual_service=service, latency_mean=None if latency is None else json_number(latency),
                   latency_p95=ordered[-(-95 * len(ordered) // 100) - 1] if ordered else None,
                   wait_mean=None if wait is None else json_number(wait))
    summary["exact"].update({key: str(value) for key, value in (("latency_mean", latency), ("wait_mean", wait))
                             if value is not None})


def fleet_totals(router: Router) -> dict[str, Any]:
    """The fleet's summary: requests dispatched and cancelled while waiting, the time the last server freed,
    the server time busy and idle up to then."""
    busy = sum(router.service)
    makespan = max((entry["end"] for entry in router.dispatch), default=0)
    times = [entry["time"] for entry in router.dispatch]
    return {"requests": len(times), "cancelled": len(router.cancelled), "makespan": makespan,
            "first_dispatch": times[0] if times else None, "busy": busy, "idle": router.servers * makespan - busy}
