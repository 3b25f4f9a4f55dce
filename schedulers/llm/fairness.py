"""Fairness metrics of a finished run: charged cost per tenant, the common-backlog interval, Jain's index,
the meter band and the pairwise bound.

Definitions (all exact):

- W_i = the cost charged to tenant i (sum of its dispatched requests' estimated costs); normalised W_i / w_i.
- q̄ = c̄ = the largest cost / weight of any request in the scenario.
- The common-backlog interval: the longest run of dispatch times [t1, t2] (earliest on ties) during which
  every compared tenant is backlogged: waiting at each dispatch and never emptied in between.
- Increments: x_i = the normalised cost charged to compared tenant i by the dispatches at t1..t2.
- Jain's index on the increments: (Σ x_i)² / (n Σ x_i²); 1 is perfectly even, 1/n all to one tenant.
  Undefined (null, with a note in ``notes``, en and ja) when there is no interval or every increment is 0.
- The pairwise bound: at every boundary inside the interval (after each dispatch), every pair of compared
  tenants satisfies |x_i - x_j| <= 2 q̄ (SFQ guarantees it; other policies may break it).
- The band (meter policies): after every step, each waiting tenant has V <= M_i <= V + c̄.

The router keeps two watchers while it runs (``Backlog`` for the interval, ``Band`` for the band); ``measure``
reads them at the end. ``schedulers.trace`` gives the same figures as they stand at a step of a finished run (and
over the interval two runs share), with ``Spread`` and ``interval_figures`` from here.
"""
from __future__ import annotations

import heapq
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from ..catalog import json_number
from ..narration import Messages, say

if TYPE_CHECKING:
    from .router import Router

# Why a metric is undefined or not checked: {"en", "ja"} like every step's ``why``.
NOTES: Messages = {
    "never_backlogged": {"en": "the compared tenants are never all backlogged at the same dispatch",
                         "ja": "比較するテナントが同時に全員待つ送出はありません"},
    "not_yet_backlogged": {"en": "so far the compared tenants have not all been backlogged at the same dispatch",
                           "ja": "これまでのところ、比較するテナントが同時に全員待った送出はありません"},
    "not_both": {"en": "so far the compared tenants have not all been backlogged at the same dispatch in both runs",
                 "ja": "これまでのところ、両方の実行で比較するテナントが同時に全員待った送出はありません"},
    "no_interval": {"en": "undefined: there is no common-backlog interval", "ja": "未定義: 全員が待つ区間がありません"},
    "zero_increments": {"en": "undefined: every increment in the interval is 0",
                        "ja": "未定義: 区間内の増分がすべて 0 です"},
    "one_tenant": {"en": "one tenant: no pair to compare", "ja": "テナントが 1 つなので、比べる対がありません"},
    "no_meters": {"en": "this policy keeps no meters", "ja": "この方式はメーターを持ちません"},
    "no_waiting": {"en": "no boundary had a waiting tenant", "ja": "待ちテナントのいる境界がありません"},
    "per_replica": {"en": "each replica keeps its own meters and V: see each one's band in replicas",
                    "ja": "複製ごとにメーターと V を持つため、帯は replicas の各複製を見てください"},
}


def measure(router: Router) -> dict[str, Any]:
    names = [t.name for t in router.tenants]
    compared = sorted(router.compared)
    q_bar = router.exact(max(router.units(t.order, max(t.costs)) for t in router.tenants))
    result: dict[str, Any] = {"compared": [names[i] for i in compared], "max_normalized_cost": json_number(q_bar),
                              "interval": None, "increments": None, "jain": None, "pairwise_bound": None,
                              "band": None, "notes": {}, "exact": {"max_normalized_cost": str(q_bar)}}
    router.backlog.close()
    if router.backlog.best is None:
        result["notes"]["interval"] = say(NOTES, "never_backlogged")
        result["notes"]["jain"] = say(NOTES, "no_interval")
    else:
        start, end, first, last = router.backlog.best
        result["interval"] = {"start": start, "end": end, "dispatches": last + 1 - first}
        increments, (worst, at, pair) = walk(router, compared, first, last + 1, "cost")
        figures = interval_figures(names, {i: router.exact(x) for i, x in increments.items()},
                                   (router.exact(worst), at, pair), q_bar)
        notes, exact = figures.pop("notes"), figures.pop("exact")
        result.update(figures)
        result["notes"].update(notes)
        result["exact"].update(exact)
        if router.servers is not None and len(compared) > 1:   # one tenant: no pair (as pairwise_bound)
            result["service"] = service_figures(router, compared, first, last + 1, q_bar)
    band = router.band
    if band is None:
        result["notes"]["band"] = say(NOTES, "no_meters")
    elif band.checks == 0:
        result["notes"]["band"] = say(NOTES, "no_waiting")
    else:
        least, greatest = band.least_gap, band.greatest_gap
        width = router.exact(band.width)
        low, high = router.exact(least[0]), router.exact(greatest[0])
        result["band"] = {
            "width": json_number(width), "checked": band.checks, "holds": low >= 0 and high <= width,
            "least": {"gap": json_number(low), "time": least[1], "tenant": names[least[2]]},
            "greatest": {"gap": json_number(high), "time": greatest[1], "tenant": names[greatest[2]]},
            "exact": {"width": str(width), "least": str(low), "greatest": str(high)}}
    return result


def interval_figures(names: list[str], increments: dict[int, Fraction | int],
                     widest: tuple[Fraction | int, int, tuple[int, int]], q_bar: Fraction | int) -> dict[str, Any]:
    """The figures of one interval as the JSON gives them: the increments x_i (by tenant index), Jain's index on
    them, and the widest gap ``(gap, time, (i, j))`` against the pairwise bound 2 q̄; ``notes`` say why a figure is
    undefined."""
    figures: dict[str, Any] = {
        "increments": {names[i]: json_number(x) for i, x in increments.items()}, "jain": None, "pairwise_bound": None,
        "notes": {}, "exact": {"increments": {names[i]: str(x) for i, x in increments.items()}}}
    jain = jain_index(list(increments.values()))
    if jain is None:
        figures["notes"]["jain"] = say(NOTES, "zero_increments")
    else:
        figures["jain"] = json_number(jain)
        figures["exact"]["jain"] = str(jain)
    worst, at, pair = widest
    bound = 2 * q_bar
    if len(increments) < 2:
        figures["notes"]["pairwise_bound"] = say(NOTES, "one_tenant")
    else:
        figures["pairwise_bound"] = {"bound": json_number(bound), "max_gap": json_number(worst), "at": at,
                                     "tenants": [names[i] for i in pair], "holds": worst <= bound,
                                     "exact": {"bound": str(bound), "max_gap": str(worst)}}
    return figures


def walk(router: Router, compared: list[int], first: int, last: int, amount: str
         ) -> tuple[dict[int, int], tuple[int, int, tuple[int, int]]]:
    """The increments x_i over dispatches first..last-1 (in units) and the widest gap after any of them: of the
    cost charged (``amount`` "cost") or of the service each dispatch gave (``"service"``: end - start)."""
    index = {t.name: t.order for t in router.tenants}
    spread = Spread(compared, router.dispatch[first]["time"])
    for entry in router.dispatch[first:last]:
        tenant = index[entry["tenant"]]
        given = entry["cost"] if amount == "cost" else entry["end"] - entry["start"]
        spread.charge(entry["time"], tenant, router.units(tenant, given))
    return spread.x, spread.widest


def service_figures(router: Router, compared: list[int], first: int, last: int, q_bar: Fraction | int
                    ) -> dict[str, Any]:
    """With servers: the same interval's increments of actual service (each dispatch's end - start, over the
    tenant's weight) and their widest gap, against the same 2q̄: SFQ bounds the charged estimates, not this."""
    names = [t.name for t in router.tenants]
    increments, (worst, at, pair) = walk(router, compared, first, last, "service")
    x = {i: router.exact(units) for i, units in increments.items()}
    gap, bound = router.exact(worst), 2 * q_bar
    figures: dict[str, Any] = {"increments": {names[i]: json_number(v) for i, v in x.items()},
                               "max_gap": json_number(gap), "at": at, "tenants": [names[i] for i in pair],
                               "bound": json_number(bound), "within_bound": gap <= bound,
                               "exact": {"increments": {names[i]: str(v) for i, v in x.items()},
                                         "max_gap": str(gap), "bound": str(bound)}}
    return figures


class Spread:
    """The increments x_i of the compared tenants since an interval began, and the widest max_i x_i - min_j x_j
    after any dispatch in it, with its time and the pair (the larger first; ties by tenant order). A lazy
    min-heap keeps each dispatch O(log n)."""

    def __init__(self, compared: list[int], start: int) -> None:
        self.x = dict.fromkeys(compared, 0)
        self.least = [(0, i) for i in compared]   # sorted, so already a heap
        self.top = compared[0]
        self.widest: tuple[int, int, tuple[int, int]] = (0, start, (compared[0], compared[-1]))

    def charge(self, time: int, tenant: int, units: int) -> None:
        """The dispatch at ``time`` charged ``units`` to ``tenant`` (a tenant not compared changes no x_i)."""
        x, least = self.x, self.least
        if tenant in x:
            x[tenant] += units
            heapq.heappush(least, (x[tenant], tenant))
            if x[tenant] > x[self.top] or (x[tenant] == x[self.top] and tenant < self.top):
                self.top = tenant
        while least[0][0] != x[least[0][1]]:
            heapq.heappop(least)
        gap = x[self.top] - least[0][0]
        if gap > self.widest[0]:
            self.widest = (gap, time, (self.top, least[0][1]))


def jain_index(values: list[Fraction | int]) -> Fraction | None:
    total, squares = sum(values), sum(v * v for v in values)
    if squares == 0:
        return None
    return Fraction(total * total) / (len(values) * squares)


class Backlog:
    """The longest run of dispatches (by time, earliest on ties) during which every compared tenant stayed
    backlogged: waiting at each dispatch and never emptied in between. A run is ``(start, end, first, last)``: the
    times of its first and last dispatch and their positions in the dispatch list (a fleet dispatches several
    requests at one time)."""

    def __init__(self) -> None:
        self.open: list[int] | None = None     # [start, end, first, last] of the run in progress
        self.best: tuple[int, int, int, int] | None = None

    def decide(self, now: int, all_busy: bool, index: int) -> None:
        if not all_busy:
            self.close()
        elif self.open is None:
            self.open = [now, now, index, index]
        else:
            self.open[1], self.open[3] = now, index

    def close(self) -> None:
        if self.open is not None:
            start, end, first, last = self.open
            if self.best is None or end - start > self.best[1] - self.best[0]:
                self.best = (start, end, first, last)
            self.open = None


class Band:
    """Checks V <= M_i <= V + c̄ for every waiting tenant at every boundary, in O(log n) per step: lazy heaps
    of the waiting tenants' meters (an entry is stale once the meter moved or the tenant left)."""

    def __init__(self, router: Router) -> None:
        self.router = router
        self.policy = router.policy
        self.width = max(router.units(t.order, max(t.costs)) for t in router.tenants)   # c̄ in units
        self.low: list[tuple[int, int]] = []
        self.high: list[tuple[int, int]] = []
        self.least_gap: tuple[int, int, int] | None = None      # (M_i - V, time, tenant), smallest seen
        self.greatest_gap: tuple[int, int, int] | None = None   # largest seen
        self.checks = 0

    def watch(self, tenant: int) -> None:
        if self.router.sizes[tenant]:
            meter = self.policy.meter[tenant]
            heapq.heappush(self.low, (meter, tenant))
            heapq.heappush(self.high, (-meter, tenant))

    def live(self, heap: list[tuple[int, int]], sign: int) -> tuple[int, int] | None:
        while heap:
            meter, tenant = heap[0]
            if self.router.sizes[tenant] and self.policy.meter[tenant] == sign * meter:
                return sign * meter, tenant
            heapq.heappop(heap)
        return None

    def check(self, now: int) -> None:
        low, high = self.live(self.low, 1), self.live(self.high, -1)
        if low is None or high is None:
            return
        self.checks += 1
        v = self.policy.virtual_time
        if self.least_gap is None or low[0] - v < self.least_gap[0]:
            self.least_gap = (low[0] - v, now, low[1])
        if self.greatest_gap is None or high[0] - v > self.greatest_gap[0]:
            self.greatest_gap = (high[0] - v, now, high[1])
