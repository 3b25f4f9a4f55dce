"""The LLM router's answers to ``schedulers.trace``'s questions about a step and to the quiz's, and the questions
only it is asked: how many requests were dispatched by a step, and the fairness figures as they stand then, alone
(``fairness_so_far``) or against another run of the same scenario (``compare_so_far``, Compare's shared interval).

An LLM step's ``time`` is the logical time of its join, reset or dispatch (the router's docstring).
"""
from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
from collections import Counter
from collections.abc import Callable, Mapping
from fractions import Fraction
from itertools import accumulate
from typing import Any

from ..catalog import json_number
from ..narration import say
from ..quiz import Question, ask
from ..trace import Result, Step, Steps
from .fairness import NOTES, Spread, interval_figures


def span(step: Step) -> tuple[int | None, int]:
    """``(None, 0)`` for the initial state; ``(t, t)`` for the instant t of a join, reset or dispatch."""
    if step["kind"] == "initial":
        return None, 0
    return step["time"], step["time"]


def dispatched_so_far(result: Result, step: int) -> int:
    """How many requests steps 1..``step`` dispatched."""
    counts = prepared(result).dispatched
    return counts[min(step, len(counts) - 1)] if counts else 0


def dispatches_so_far(result: Result, step: int) -> list[Mapping[str, Any]]:
    """The dispatch order up to ``step``, without the future (what a quiz may show)."""
    return result["dispatch"][:dispatched_so_far(result, step)]


def pending(result: Result, step: int) -> set[str]:
    """The tenants with requests not yet dispatched nor cancelled while waiting (with servers) after ``step``."""
    gone = Counter(item["tenant"] for item in dispatches_so_far(result, step))
    run = prepared(result)
    gone.update(run.withdrawn[:bisect_right(run.withdrawn_at, step)])
    return {tenant["name"] for tenant in result["tenants"] if gone[tenant["name"]] < tenant["requests"]}


def aligner(left: Result, right: Result) -> Callable[[int], int]:
    """The step of ``right`` after as many dispatches as ``left``'s step has seen; when either run has servers, the
    runs dispatch at different times, so: the last step of ``right`` at the time of ``left``'s step or before (the
    initial step beside the initial step)."""
    if "servers" in left or "servers" in right:
        times = [s["time"] for s in right["steps"]]   # in time order, as every router records them
        return lambda step: bisect_right(times, left["steps"][step]["time"]) - 1 if step else 0
    dispatches = [i for i, s in enumerate(right["steps"]) if s.get("kind") == "dispatch"]

    def aligned(step: int) -> int:
        count = dispatched_so_far(left, step)
        return dispatches[min(count, len(dispatches)) - 1] if count and dispatches else 0
    return aligned


def question(result: Result, step: int) -> Question | None:
    """At a dispatch: which tenant is served? The candidates are the tenants with waiting requests just before it
    (the step before's queues), in tenant order; the answer is the tenant dispatched."""
    now, before = result["steps"][step], result["steps"][step - 1]
    if now["kind"] != "dispatch":
        return None
    candidates = tuple(name for name, costs in before["queues"].items() if costs)
    return ask(step, now["time"], candidates, now["tenant"], now["why"])


def normalised_so_far(result: Result, count: int) -> dict[str, Fraction]:
    """Each tenant's cost / weight over the first ``count`` dispatches, exactly."""
    run = prepared(result)
    return {name: run.fraction(run.charged(i, 0, count - 1)) for i, name in enumerate(run.names)}


def fairness_so_far(result: Result, step: int) -> dict[str, Any]:
    """The fairness figures (``result["fairness"]``'s ``interval``, ``increments``, ``jain``,
    ``pairwise_bound``, ``notes``, ``exact``) as they stand after ``step``, using no later dispatch: the longest
    common-backlog interval so far (one still going is cut at the latest dispatch), the increments in it and the
    widest gap seen there. ``dispatched``: the dispatches so far. At the last step they are the whole run's."""
    run = prepared(result)
    count = dispatched_so_far(result, step)
    figures: dict[str, Any] = {"dispatched": count, "interval": None, "increments": None, "jain": None,
                               "pairwise_bound": None, "notes": {}, "exact": {}}
    interval = run.own.best(count)
    if interval is None:
        figures["notes"]["interval"] = say(NOTES, "never_backlogged" if count == len(run.times) else
                                           "not_yet_backlogged")
        figures["notes"]["jain"] = say(NOTES, "no_interval")
        return figures
    figures["interval"] = run.interval(*interval)
    figures.update(run.figures(*interval, run.own_widest))
    if run.fleet and len(run.compared) > 1:   # one tenant: no pair (as pairwise_bound)
        figures["service"] = run.service_figures(*interval, count, result["steps"][step]["time"])
    return figures


def service_so_far(result: Result, step: int, now: int | None = None) -> dict[str, Fraction]:
    """With servers: each tenant's actual service ÷ weight by time ``now`` (default the step's) from the requests
    dispatched up to ``step``, a running one counted up to then, exactly."""
    run = prepared(result)
    count = dispatched_so_far(result, step)
    given = run.served(0, count - 1, count, result["steps"][step]["time"] if now is None else now)
    return {name: run.fraction(given[i]) for i, name in enumerate(run.names)}


def compare_so_far(left: Result, step: int, right: Result) -> dict[str, Any]:
    """Compare: fairness over the SAME interval for two runs of one scenario, after ``left``'s ``step`` and as
    many dispatches of ``right`` (``trace.aligned_step``): the longest interval so far during which every compared
    tenant is backlogged in both runs (the common-backlog intervals of the two, intersected, and cut at the latest
    dispatch), with each run's increments, Jain's index and widest gap in it (``left``, ``right``: shaped as
    ``fairness_so_far``'s figures). ``interval`` is None, with a note, while there is no such interval."""
    one, other = prepared(left), prepared(right)
    if one.names != other.names or one.compared != other.compared:
        raise ValueError("compare_so_far compares two runs of the same scenario")
    count = dispatched_so_far(left, step)
    shared = shared_runs(one, other)
    now = one.latest(count)
    if count > len(other.times) or (count and other.times[count - 1] != now):
        raise ValueError("compare_so_far needs runs that dispatch at the same times (both routers are "
                         "work-conserving, so runs of one scenario do)")
    interval = shared.runs.best(count)
    if interval is None:
        return {"dispatched": count, "interval": None, "left": None, "right": None,
                "notes": {"interval": say(NOTES, "not_both")}}
    return {"dispatched": count, "interval": one.interval(*interval),
            "left": one.figures(*interval, shared.left), "right": other.figures(*interval, shared.right),
            "notes": {}}


def meters_at(result: Result, step: int, replica: int | None = None) -> Mapping[str, Any]:
    """The SFQ family's meters M_i and V as they stand after ``step`` (with ``replica``: that replica's, as of its
    latest step by then), shaped as a step's ``meters``, ``virtual_time`` and ``exact``; ``{}`` before the replica's
    first step. A full trace records every tenant's at every step; a compact one only those of the tenant that acted,
    and a meter changes only when its tenant acts (its join's lift, its charge), so each tenant's is its latest
    record, 0 before any (as a full trace's initial step has it)."""
    index = meter_index(result)
    own = index.steps.get(replica, [])
    latest = bisect_right(own, step) - 1
    if latest < 0:
        return {}
    state = result["steps"][own[latest]]
    if result["trace"]["level"] == "full" or "meters" not in state:
        return state
    meters, exact = {}, {}
    for name in (tenant["name"] for tenant in result["tenants"]):
        positions = index.recorded[replica, name]
        at = bisect_right(positions, own[latest]) - 1
        recorded = result["steps"][positions[at]] if at >= 0 else {"meters": {name: 0}}
        meters[name] = recorded["meters"][name]
        if name in recorded.get("exact", {}).get("meters", {}):
            exact[name] = recorded["exact"]["meters"][name]
    given = state.get("exact", {})
    return {"meters": meters, "virtual_time": state["virtual_time"],
            "exact": {"meters": exact, **({"virtual_time": given["virtual_time"]} if "virtual_time" in given else {})}}


class MeterIndex:
    """Each replica's steps (key None: every step) and, in a compact trace, per replica and tenant the steps that
    record its meter."""

    def __init__(self, result: Result) -> None:
        self.steps: dict[int | None, list[int]] = {None: list(range(len(result["steps"])))}
        self.recorded: dict[tuple[int | None, str], list[int]] = {
            (key, tenant["name"]): [] for key in (None, *range(len(result.get("replicas") or ())))
            for tenant in result["tenants"]}
        compact = result["trace"]["level"] != "full"
        for k, step in enumerate(result["steps"]):
            keys = (None,) if "replica" not in step else (None, step["replica"])
            if "replica" in step:
                self.steps.setdefault(step["replica"], []).append(k)
            for name in step.get("meters") or () if compact else ():
                for key in keys:
                    self.recorded[key, name].append(k)


class Runs:
    """Disjoint runs of dispatches ``(first, last)`` (positions in the dispatch list, a run's ends included), in
    order, and which is the longest in time (earliest on ties) among those begun within the first ``count``
    dispatches, each cut there. (A fleet dispatches several requests at one time, so positions, not times, say
    where a run ends.)"""

    def __init__(self, runs: list[tuple[int, int]], times: list[int]) -> None:
        self.runs = runs
        self.times = times
        self.firsts = [first for first, _ in runs]
        self.leader: list[int] = []   # leader[k]: the longest of runs[0..k]
        for k, run in enumerate(runs):
            best = self.leader[-1] if self.leader else k
            self.leader.append(k if self.span(run) > self.span(runs[best]) else best)

    def span(self, run: tuple[int, int]) -> int:
        return self.times[run[1]] - self.times[run[0]]

    def best(self, count: int) -> tuple[int, int] | None:
        begun = bisect_left(self.firsts, count)
        if not begun:
            return None
        first, last = self.runs[begun - 1]
        latest = (first, min(last, count - 1))
        if begun == 1:
            return latest
        best = self.runs[self.leader[begun - 2]]
        return best if self.span(best) >= self.span(latest) else latest


class Prepared:
    """One LLM run as the questions of a step need it, computed once in O(d log n) for d dispatches and n
    tenants: how many dispatches each step has seen, each dispatch's cost / weight in exact integer units (1/scale,
    as the router counts), each tenant's running total, the common-backlog runs and the widest gap within each
    run up to each of its dispatches. A question at a step then takes O(n log d)."""

    def __init__(self, result: Result) -> None:
        tenants, fair = result["tenants"], result["fairness"]
        self.names = [tenant["name"] for tenant in tenants]
        order = {name: i for i, name in enumerate(self.names)}
        self.compared = sorted(order[name] for name in fair["compared"])
        self.q_bar = Fraction(fair["exact"]["max_normalized_cost"])
        weights = [Fraction(tenant["exact"]["weight"]) for tenant in tenants]
        self.scale = math.lcm(*(w.numerator for w in weights))
        unit = [self.scale * w.denominator // w.numerator for w in weights]
        self.dispatched = list(accumulate(int(s.get("kind") == "dispatch") for s in result["steps"]))
        cancelled = [(index, s["tenant"]) for index, s in enumerate(result["steps"])   # with servers: the steps
                     if s.get("kind") == "cancel" and not s["running"]]             # that cancel a waiting request
        self.withdrawn_at, self.withdrawn = [index for index, _ in cancelled], [tenant for _, tenant in cancelled]
        self.times = [item["time"] for item in result["dispatch"]]
        self.tenant = [order[item["tenant"]] for item in result["dispatch"]]
        self.units = [item["cost"] * unit[i] for item, i in zip(result["dispatch"], self.tenant)]
        self.positions: list[list[int]] = [[] for _ in tenants]   # a tenant's dispatch indices ...
        self.totals: list[list[int]] = [[] for _ in tenants]      # ... and its units charged up to each
        for k, (i, units) in enumerate(zip(self.tenant, self.units)):
            self.positions[i].append(k)
            self.totals[i].append((self.totals[i][-1] if self.totals[i] else 0) + units)
        self.own = Runs(backlog_runs(result, self.tenant, self.compared), self.times)
        self.own_widest = self.widest(self.own)
        self.fleet = "servers" in result
        if self.fleet:   # each dispatch's service (end - start) in units, each tenant's running total of it
            self.unit, self.ends = unit, [item["end"] for item in result["dispatch"]]
            service = [(item["end"] - item["start"]) * unit[i] for item, i in zip(result["dispatch"], self.tenant)]
            self.service_totals = [list(accumulate(service[k] for k in positions)) for positions in self.positions]
            self.on_server: list[list[int]] = [[] for _ in range(result["servers"])]   # each server's dispatches
            for k, item in enumerate(result["dispatch"]):
                self.on_server[item["server"]].append(k)

    def fraction(self, units: int) -> Fraction:
        return Fraction(units, self.scale)

    def latest(self, count: int) -> int | None:
        """The time of the latest of the first ``count`` dispatches."""
        return self.times[count - 1] if count else None

    def charged(self, tenant: int, first: int, last: int) -> int:
        """Units charged to ``tenant`` by dispatches first..last (indices, inclusive)."""
        return between(self.totals[tenant], self.positions[tenant], first, last)

    def widest(self, runs: Runs) -> dict[int, tuple[int, int, tuple[int, int]]]:
        """For each dispatch inside one of ``runs``: the widest gap from its run's start up to it."""
        found: dict[int, tuple[int, int, tuple[int, int]]] = {}
        for first, last in runs.runs:
            spread = Spread(self.compared, self.times[first])
            for k in range(first, last + 1):
                spread.charge(self.times[k], self.tenant[k], self.units[k])
                found[k] = spread.widest
        return found

    def served(self, first: int, last: int, count: int, now: int) -> list[int]:
        """Units of actual service each tenant got by time ``now`` from dispatches first..last, all among the first
        ``count`` (so started by ``now``): their whole service, less what is still to run of those running at
        ``now``. A server runs one request at a time, so only its latest of the first ``count`` can still run: the
        question costs O((n + servers) log d)."""
        given = [between(self.service_totals[i], self.positions[i], first, last) for i in range(len(self.names))]
        for positions in self.on_server:
            latest = bisect_left(positions, count) - 1
            k = positions[latest] if latest >= 0 else -1
            if first <= k <= last and self.ends[k] > now:
                given[self.tenant[k]] -= (self.ends[k] - now) * self.unit[self.tenant[k]]
        return given

    def service_figures(self, first: int, last: int, count: int, now: int) -> dict[str, Any]:
        """``fairness_so_far``'s ``service``: the compared tenants' actual service ÷ weight by ``now`` from the
        interval's dispatches first..last, and the difference of the most and the least served now (the larger
        first, the least another; ties by tenant order), against the same 2q̄ as the charged costs."""
        given = self.served(first, last, count, now)
        x = {i: self.fraction(given[i]) for i in self.compared}
        top = min(self.compared, key=lambda i: (-x[i], i))
        low = min((i for i in self.compared if i != top), key=lambda i: (x[i], i))
        gap, bound = x[top] - x[low], 2 * self.q_bar
        names = self.names
        return {"time": now, "increments": {names[i]: json_number(v) for i, v in x.items()},
                "difference": json_number(gap), "tenants": [names[top], names[low]], "bound": json_number(bound),
                "within_bound": gap <= bound,
                "exact": {"increments": {names[i]: str(v) for i, v in x.items()}, "difference": str(gap),
                          "bound": str(bound)}}

    def interval(self, first: int, last: int) -> dict[str, int]:
        return {"start": self.times[first], "end": self.times[last], "dispatches": last + 1 - first}

    def figures(self, first: int, last: int, widest: Mapping[int, tuple[int, int, tuple[int, int]]]
                ) -> dict[str, Any]:
        """Increments, Jain's index and the widest gap over dispatches first..last, the gap read from ``widest``
        (prepared for the run that starts at ``first``)."""
        increments = {i: self.fraction(self.charged(i, first, last)) for i in self.compared}
        worst, at, pair = widest[last]
        return interval_figures(self.names, increments, (self.fraction(worst), at, pair), self.q_bar)


def between(totals: list[int], positions: list[int], first: int, last: int) -> int:
    """What the running ``totals`` of a tenant's dispatches (at ``positions``) add up to over first..last."""
    upto = bisect_right(positions, last)
    before = bisect_left(positions, first)
    return (totals[upto - 1] if upto else 0) - (totals[before - 1] if before else 0)


class Shared:
    """The intervals during which every compared tenant is backlogged in both of two runs, and each run's widest
    gap within them."""

    def __init__(self, one: Prepared, other: Prepared) -> None:
        self.runs = Runs(intersect(one.own.runs, other.own.runs), one.times)
        self.left, self.right = one.widest(self.runs), other.widest(self.runs)


def backlog_runs(result: Result, tenant_of: list[int], compared: list[int]) -> list[tuple[int, int]]:
    """Every maximal run of dispatches (first and last position) during which every compared tenant is backlogged
    (the router's ``Backlog``, replayed from the result): waiting at each dispatch, after that time's arrivals (and,
    with servers, after the cancellations of waiting requests then), and not emptied before the run's last."""
    order = {tenant["name"]: i for i, tenant in enumerate(result["tenants"])}
    events = sorted([(time, 0, i) for i, tenant in enumerate(result["tenants"])
                     for time in tenant.get("arrivals", [tenant["join"]] * tenant["requests"])]
                    + [(item["time"], 1, order[item["tenant"]]) for item in result.get("cancelled", ())])
    waiting = [0] * len(result["tenants"])
    watched = set(compared)
    busy, happened, begun = 0, 0, None
    runs: list[tuple[int, int]] = []
    times = [item["time"] for item in result["dispatch"]]
    for k, (now, tenant) in enumerate(zip(times, tenant_of)):
        while happened < len(events) and events[happened][0] <= now:
            _, cancel, i = events[happened]
            happened += 1
            if not cancel:
                busy += waiting[i] == 0 and i in watched
                waiting[i] += 1
                continue
            waiting[i] -= 1
            if waiting[i] == 0 and i in watched:
                busy -= 1
                if begun is not None:
                    runs.append((begun, k - 1))
                    begun = None
        if busy == len(watched):
            begun = k if begun is None else begun
        elif begun is not None:
            runs.append((begun, k - 1))
            begun = None
        waiting[tenant] -= 1
        if waiting[tenant] == 0 and tenant in watched:
            busy -= 1
            if begun is not None:
                runs.append((begun, k))
                begun = None
    if begun is not None:
        runs.append((begun, len(times) - 1))
    return runs


def intersect(these: list[tuple[int, int]], those: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The intersection of two ordered lists of disjoint closed intervals."""
    both, i, j = [], 0, 0
    while i < len(these) and j < len(those):
        start, end = max(these[i][0], those[j][0]), min(these[i][1], those[j][1])
        if start <= end:
            both.append((start, end))
        if these[i][1] < those[j][1]:
            i += 1
        else:
            j += 1
    return both


# A step-through asks at every step, Compare for both sides: each run (and pair) is prepared once. The cache holds
# the results themselves, so an id cannot be reused while its entry lives.
CACHE_SIZE = 4
_prepared: dict[int, tuple[Result, Prepared]] = {}
_shared: dict[tuple[int, int], tuple[Result, Result, Shared]] = {}
_meters: dict[int, tuple[Result, MeterIndex]] = {}


def meter_index(result: Result) -> MeterIndex:
    entry = _meters.get(id(result))
    if entry is None or entry[0] is not result:
        entry = remember(_meters, id(result), (result, MeterIndex(result)))
    return entry[1]


def prepared(result: Result) -> Prepared:
    entry = _prepared.get(id(result))
    if entry is None or entry[0] is not result:
        entry = remember(_prepared, id(result), (result, Prepared(result)))
    return entry[1]


def shared_runs(one: Prepared, other: Prepared) -> Shared:
    key = (id(one), id(other))
    entry = _shared.get(key)
    if entry is None or entry[0] is not one or entry[1] is not other:
        entry = remember(_shared, key, (one, other, Shared(one, other)))
    return entry[2]


def remember(cache: dict, key: Any, entry: Any) -> Any:
    if len(cache) >= CACHE_SIZE:
        del cache[next(iter(cache))]
    cache[key] = entry
    return entry


STEPS = Steps(span=span, pending=pending, aligner=aligner, question=question)
