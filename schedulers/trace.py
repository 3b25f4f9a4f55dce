"""Questions about a result at one of its steps: what has happened by then. The app only formats the answers.

Every function takes a result as ``simulate`` returns it (docs/trace-format.md) and a step index into its
``steps``; step 0 is the initial state. A step's ``time`` is the instant it reaches (CPU: the end of its slice;
LLM: the logical time of its dispatch, join or reset); ``span`` says what stretch of time a step shows.
"""
from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
from collections import Counter
from collections.abc import Callable, Mapping
from fractions import Fraction
from itertools import accumulate
from typing import Any

from .llm.fairness import NOTES, Spread, interval_figures
from .narration import say

Result = Mapping[str, Any]


def span(step: Mapping[str, Any]) -> tuple[int | None, int]:
    """The time one step shows, the lab's one time convention (docs/trace-format.md "Time on screen"): ``(None, 0)``
    for the initial state, before t=0 (nothing has arrived or run); ``(k - 1, k)`` for CPU step k, the slice [k-1, k)
    whose decision was taken at its start; ``(t, t)`` for an LLM step, the instant t of its join, reset or dispatch; for
    an engine step (time in decode iterations), ``(t, t + 1)`` for the decode of iteration t, ``(t, u)`` for an idle
    jump from t to the next arrival u, ``(t, t)`` for an arrival, lift or admission at the instant t. Reads the step
    alone (CPU steps carry a ``decision``, LLM steps a ``kind`` and a ``time``, engine steps a ``kind`` and an
    ``iteration``)."""
    kind = step.get("kind", step.get("decision"))
    if kind == "initial":
        return None, 0
    if "iteration" in step:
        start = step["iteration"]
        return start, start + 1 if kind == "decode" else step["until"] if kind == "idle" else start
    time = step["time"]
    return (time, time) if "kind" in step else (time - 1, time)


def finished_by(result: Result, step: int) -> set[str]:
    """CPU: the tasks complete at ``step`` (their completion time is not after the step's time)."""
    time = result["steps"][step]["time"]
    return {task["name"] for task in result["tasks"] if task["completion"] <= time}


def dispatched_so_far(result: Result, step: int) -> int:
    """LLM: how many requests steps 1..``step`` dispatched."""
    counts = prepared(result).dispatched
    return counts[min(step, len(counts) - 1)] if counts else 0


def dispatches_so_far(result: Result, step: int) -> list[Mapping[str, Any]]:
    """LLM: the dispatch order up to ``step``, without the future (what a quiz may show)."""
    return result["dispatch"][:dispatched_so_far(result, step)]


def pending(result: Result, step: int) -> set[str]:
    """The tasks (CPU) or tenants (LLM, engine) with work left after ``step``."""
    if result["mode"] == "cpu":
        return {task["name"] for task in result["tasks"]} - finished_by(result, step)
    if result["mode"] == "engine":   # a request finished in iteration f is done from time f + 1
        now = span(result["steps"][step])[1]
        return {r["tenant"] for r in result["requests"] if r["finished"] + 1 > now}
    sent = Counter(item["tenant"] for item in dispatches_so_far(result, step))
    return {tenant["name"] for tenant in result["tenants"] if sent[tenant["name"]] < tenant["requests"]}


def step_aligner(left: Result, right: Result) -> Callable[[int], int]:
    """``left``'s step -> the step of ``right`` (another run of the same scenario) to show beside it: CPU, the last
    one whose time is not later; LLM, the one after the same number of dispatches (each router sends one request
    per time unit, so that is the fair moment to compare). ``right`` is indexed once, so aligning every step of a
    run (the app's frames) costs O(n log n), not O(n^2)."""
    if left["mode"] == "cpu":
        times = [s["time"] for s in right["steps"]]   # non-decreasing
        return lambda step: max(bisect_right(times, left["steps"][step]["time"]) - 1, 0)
    if left["mode"] == "engine":
        return engine_aligner(left, right)
    dispatches = [i for i, s in enumerate(right["steps"]) if s.get("kind") == "dispatch"]

    def aligned(step: int) -> int:
        count = dispatched_so_far(left, step)
        return dispatches[min(count, len(dispatches)) - 1] if count and dispatches else 0
    return aligned


ENGINE_PHASES = {"initial": -1, "arrive": 0, "lift": 0, "admit": 1, "decode": 2, "idle": 3}


def engine_moments(result: Result) -> list[tuple[int, int, int]]:
    """Engine: each step's moment (iteration, phase, admission within it), non-decreasing along the run: an
    iteration's arrivals and lifts, then its admissions one by one, then its decode (then an idle jump)."""
    moments: list[tuple[int, int, int]] = []
    for step in result["steps"]:
        phase = ENGINE_PHASES.get(step["kind"], 0)
        start = -1 if phase < 0 else step["iteration"]
        ordinal = moments[-1][2] + 1 if phase == 1 and moments and moments[-1][:2] == (start, 1) else 0
        moments.append((start, phase, ordinal))
    return moments


def engine_aligner(left: Result, right: Result) -> Callable[[int], int]:
    """An engine run's step -> the step of ``right`` at the same moment: another engine run, the last step not
    later (its same admission of the same iteration, or before); the LLM router on the same workload
    (``engine.llm_scenario``: iteration t is time t), its last step at a time not after the iteration's start."""
    mine = engine_moments(left)
    if right["mode"] == "engine":
        theirs = engine_moments(right)
        return lambda step: max(bisect_right(theirs, mine[step]) - 1, 0)
    times = [s["time"] for s in right["steps"]]

    def at(step: int) -> int:
        start = span(left["steps"][step])[0]
        return 0 if start is None else max(bisect_right(times, start) - 1, 0)
    return at


def engine_service(result: Result, step: int) -> dict[str, Fraction]:
    """Engine: each tenant's service (w_in × input + w_out × output tokens so far) ÷ its weight after ``step``,
    exactly (a compact trace records no service: then every admission and token up to the step is summed)."""
    weights = {t["name"]: Fraction(t["exact"]["weight"]) for t in result["tenants"]}
    now = result["steps"][step]
    if "service" in now:
        exact = now["exact"]["service"]
        return {name: Fraction(exact[name]) / weights[name] for name in weights}
    w_in, w_out = (Fraction(result["parameters"]["exact"][k]) for k in ("w_in", "w_out"))
    service = dict.fromkeys(weights, Fraction(0))
    for earlier in result["steps"][:step + 1]:
        if earlier["kind"] == "admit":
            service[earlier["tenant"]] += w_in * earlier["input"]
        elif earlier["kind"] == "decode":
            for name, tokens in earlier["tokens"].items():
                service[name] += w_out * tokens
    return {name: value / weights[name] for name, value in service.items()}


def aligned_step(left: Result, step: int, right: Result) -> int:
    """``step_aligner`` at one step."""
    return step_aligner(left, right)(step)


def normalised_so_far(result: Result, count: int) -> dict[str, Fraction]:
    """LLM: each tenant's cost / weight over the first ``count`` dispatches, exactly."""
    run = prepared(result)
    return {name: run.fraction(run.charged(i, 0, count - 1)) for i, name in enumerate(run.names)}


def fairness_so_far(result: Result, step: int) -> dict[str, Any]:
    """LLM: the fairness figures (``result["fairness"]``'s ``interval``, ``increments``, ``jain``,
    ``pairwise_bound``, ``notes``, ``exact``) as they stand after ``step``, using no later dispatch: the longest
    common-backlog interval so far (one still going is cut at the latest dispatch), the increments in it and the
    widest gap seen there. ``dispatched``: the dispatches so far. At the last step they are the whole run's."""
    run = prepared(result)
    count = dispatched_so_far(result, step)
    figures: dict[str, Any] = {"dispatched": count, "interval": None, "increments": None, "jain": None,
                               "pairwise_bound": None, "notes": {}, "exact": {}}
    interval = run.own.best(run.latest(count))
    if interval is None:
        figures["notes"]["interval"] = say(NOTES, "never_backlogged" if count == len(run.times) else
                                           "not_yet_backlogged")
        figures["notes"]["jain"] = say(NOTES, "no_interval")
        return figures
    figures["interval"] = run.interval(*interval)
    figures.update(run.figures(*interval, run.own_widest))
    return figures


def compare_so_far(left: Result, step: int, right: Result) -> dict[str, Any]:
    """LLM Compare: fairness over the SAME interval for two runs of one scenario, after ``left``'s ``step`` and as
    many dispatches of ``right`` (``aligned_step``): the longest interval so far during which every compared
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
    interval = shared.runs.best(now)
    if interval is None:
        return {"dispatched": count, "interval": None, "left": None, "right": None,
                "notes": {"interval": say(NOTES, "not_both")}}
    return {"dispatched": count, "interval": one.interval(*interval),
            "left": one.figures(*interval, shared.left), "right": other.figures(*interval, shared.right),
            "notes": {}}


class Runs:
    """Disjoint intervals of dispatch times [start, end], in order, and which is the longest (earliest on ties)
    among those that have begun by a time, each cut at that time."""

    def __init__(self, runs: list[tuple[int, int]]) -> None:
        self.runs = runs
        self.starts = [start for start, _ in runs]
        self.leader: list[int] = []   # leader[k]: the longest of runs[0..k]
        for k, (start, end) in enumerate(runs):
            best = self.leader[-1] if self.leader else k
            self.leader.append(k if end - start > runs[best][1] - runs[best][0] else best)

    def best(self, now: int | None) -> tuple[int, int] | None:
        begun = bisect_right(self.starts, now) if now is not None else 0
        if not begun:
            return None
        start, end = self.runs[begun - 1]
        latest = (start, min(end, now))
        if begun == 1:
            return latest
        start, end = self.runs[self.leader[begun - 2]]
        return (start, end) if end - start >= latest[1] - latest[0] else latest


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
        self.times = [item["time"] for item in result["dispatch"]]
        self.tenant = [order[item["tenant"]] for item in result["dispatch"]]
        self.units = [item["cost"] * unit[i] for item, i in zip(result["dispatch"], self.tenant)]
        self.positions: list[list[int]] = [[] for _ in tenants]   # a tenant's dispatch indices ...
        self.totals: list[list[int]] = [[] for _ in tenants]      # ... and its units charged up to each
        for k, (i, units) in enumerate(zip(self.tenant, self.units)):
            self.positions[i].append(k)
            self.totals[i].append((self.totals[i][-1] if self.totals[i] else 0) + units)
        self.own = Runs(backlog_runs(result, self.tenant, self.compared))
        self.own_widest = self.widest(self.own)

    def fraction(self, units: int) -> Fraction:
        return Fraction(units, self.scale)

    def latest(self, count: int) -> int | None:
        """The time of the latest of the first ``count`` dispatches."""
        return self.times[count - 1] if count else None

    def charged(self, tenant: int, first: int, last: int) -> int:
        """Units charged to ``tenant`` by dispatches first..last (indices, inclusive)."""
        totals, positions = self.totals[tenant], self.positions[tenant]
        upto = bisect_right(positions, last)
        before = bisect_left(positions, first)
        return (totals[upto - 1] if upto else 0) - (totals[before - 1] if before else 0)

    def widest(self, runs: Runs) -> dict[int, tuple[int, int, tuple[int, int]]]:
        """For each dispatch inside one of ``runs``: the widest gap from its run's start up to it."""
        found: dict[int, tuple[int, int, tuple[int, int]]] = {}
        for start, end in runs.runs:
            spread = Spread(self.compared, start)
            for k in range(bisect_left(self.times, start), bisect_right(self.times, end)):
                spread.charge(self.times[k], self.tenant[k], self.units[k])
                found[k] = spread.widest
        return found

    def interval(self, start: int, end: int) -> dict[str, int]:
        return {"start": start, "end": end,
                "dispatches": bisect_right(self.times, end) - bisect_left(self.times, start)}

    def figures(self, start: int, end: int, widest: Mapping[int, tuple[int, int, tuple[int, int]]]
                ) -> dict[str, Any]:
        """Increments, Jain's index and the widest gap over the dispatches at times start..end, the gap read from
        ``widest`` (prepared for the run that starts at ``start``)."""
        first, last = bisect_left(self.times, start), bisect_right(self.times, end) - 1
        increments = {i: self.fraction(self.charged(i, first, last)) for i in self.compared}
        worst, at, pair = widest[last]
        return interval_figures(self.names, increments, (self.fraction(worst), at, pair), self.q_bar)


class Shared:
    """The intervals during which every compared tenant is backlogged in both of two runs, and each run's widest
    gap within them."""

    def __init__(self, one: Prepared, other: Prepared) -> None:
        self.runs = Runs(intersect(one.own.runs, other.own.runs))
        self.left, self.right = one.widest(self.runs), other.widest(self.runs)


def backlog_runs(result: Result, tenant_of: list[int], compared: list[int]) -> list[tuple[int, int]]:
    """Every maximal run of dispatch times during which every compared tenant is backlogged (the router's
    ``Backlog``, replayed from the result): waiting at each dispatch, after that time's arrivals, and not emptied
    by a dispatch before the run's last."""
    arrivals = sorted((time, i) for i, tenant in enumerate(result["tenants"])
                      for time in tenant.get("arrivals", [tenant["join"]] * tenant["requests"]))
    waiting = [0] * len(result["tenants"])
    watched = set(compared)
    busy, arrived, begun = 0, 0, None
    runs: list[tuple[int, int]] = []
    times = [item["time"] for item in result["dispatch"]]
    for k, (now, tenant) in enumerate(zip(times, tenant_of)):
        while arrived < len(arrivals) and arrivals[arrived][0] <= now:
            i = arrivals[arrived][1]
            busy += waiting[i] == 0 and i in watched
            waiting[i] += 1
            arrived += 1
        if busy == len(watched):
            begun = now if begun is None else begun
        elif begun is not None:
            runs.append((begun, times[k - 1]))
            begun = None
        waiting[tenant] -= 1
        if waiting[tenant] == 0 and tenant in watched:
            busy -= 1
            if begun is not None:
                runs.append((begun, now))
                begun = None
    if begun is not None:
        runs.append((begun, times[-1]))
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


def resumes_quantum(result: Result, step: int) -> bool:
    """CPU: the task dispatched at ``step`` goes on with the rest of a quantum that a preemption cut short (MLFQ
    keeps it) instead of starting a new one: its latest preemption came after its latest expiry and after every
    boost (a boost gives every task a fresh quantum)."""
    if result["mode"] != "cpu":
        return False
    events = result["steps"][step].get("events", [])
    at = next((i for i, event in enumerate(events) if event["kind"] == "dispatch"), None)
    if at is None:
        return False
    task = events[at]["task"]
    history = [events[:at]] + [earlier.get("events", []) for earlier in reversed(result["steps"][:step])]
    for happened in history:
        for index in range(len(happened) - 1, -1, -1):
            event = happened[index]
            if event["kind"] == "boost" or (event["task"] == task and event["kind"] == "expire"):
                return False
            if event["task"] == task and event["kind"] == "preempt":   # unless a boost of that instant had
                return not any(e["kind"] == "boost" for e in happened[:index])   # just reset its quantum
    return False


def policy_lines(result: Result, step: int) -> set[int]:
    """A policy of your own: the lines of its code that its ``choose`` ran for the decision shown at ``step``
    (CPU: at the start of the step's slice; LLM: at a dispatch; engine: at an admission, the call its decision
    names). Empty when it was not called there."""
    now = result["steps"][step]
    calls = result.get("custom", {}).get("lines", [])
    if result["mode"] == "engine":
        call = (now.get("decision") or {}).get("call") if now.get("kind") == "admit" else None
        return set(calls[call]["lines"]) if call is not None and call < len(calls) else set()
    if result["mode"] == "cpu":
        time = now.get("time", 0) - 1
    elif now.get("kind") == "dispatch":
        time = now.get("time")
    else:
        return set()
    ran: set[int] = set()
    for call in calls:
        if call["time"] == time:
            ran = set(call["lines"])
    return ran
