"""The one router loop every LLM policy runs in: arrivals, the idle reset, one dispatch per time unit.

Boundary order at each logical time t (the contract's rules):

- if requests are still waiting from before, the arrivals at t come first, then the dispatch;
- if the previous dispatch emptied every queue, the idle reset comes first (a step of its own, for the
  meter policies; an ``idle`` step for the others when time then jumps), then the arrivals, then the
  dispatch;
- if every queue is empty and the next arrival lies in the future, time jumps to it;
- the final reset, with no arrival left to come, is noted on the last dispatch (``final_reset``).

The trace has three levels: ``full`` (every tenant's queue and the policy's numbers at every step, with a
sentence), ``compact`` (only the acting tenant's numbers, no sentences: chosen when a full trace would pass
``TRACE_BUDGET``) and ``none`` (no steps: for benchmarks).
"""
from __future__ import annotations

import math
from collections import deque
from typing import Any

from ..catalog import json_number, json_plain
from ..narration import join, say, show
from ..recording import FULL, NONE, ExactUnits, arrival_events, level, put
from .fairness import Backlog, Band
from .policies import Policy
from .scenario import Scenario

TRACE_BUDGET = 1_000_000   # queue entries and numbers a full trace may hold; above it the trace is compact


class Router(ExactUnits):
    def __init__(self, scenario: Scenario, policy: type[Policy], trace: bool = True) -> None:
        self.scenario = scenario
        self.tenants = scenario.tenants
        self.names = [tenant.name for tenant in self.tenants]
        # Meters count cost / weight exactly as integers in units of 1/scale: scale is the lcm of the
        # weights' numerators, so cost / (p/q) = cost * q * scale / p is a whole number of units.
        self.scale = math.lcm(*(t.weight.numerator for t in self.tenants))
        self.unit = [self.scale * t.weight.denominator // t.weight.numerator for t in self.tenants]
        self.queues: list[deque[int]] = [deque() for _ in self.tenants]
        self.sizes = [0] * len(self.tenants)
        self.arrived = [0] * len(self.tenants)  # requests arrive in index order: 0..arrived-1 have arrived
        self.sent = [bytearray(len(t.costs)) for t in self.tenants]   # 1 once dispatched
        self.busy = 0                          # tenants with waiting requests
        self.total_waiting = 0                 # requests waiting, all tenants
        self.arrivals = arrival_events(self.tenants, lambda tenant: tenant.arrivals)
        self.level = level(trace, trace_size(scenario, len(self.arrivals)), TRACE_BUDGET)
        self.tracing = self.level != NONE
        self.policy = policy(self)
        self.steps: list[dict[str, Any]] = []
        self.dispatch: list[dict[str, Any]] = []
        self.charged = [0] * len(self.tenants)
        self.dispatched = [0] * len(self.tenants)
        self.compared = frozenset(scenario.compare)
        self.compared_busy = 0
        self.backlog = Backlog()
        self.band = Band(self) if self.policy.meters else None

    # --- what policies read ---------------------------------------------------------------------------

    def waiting(self, tenant: int) -> int:
        return self.sizes[tenant]

    def head(self, tenant: int) -> int:
        """The tenant's oldest waiting request."""
        queue, sent = self.queues[tenant], self.sent[tenant]
        while sent[queue[0]]:   # taken from inside the queue earlier (shortest-first): drop it lazily
            queue.popleft()
        return queue[0]

    def head_cost(self, tenant: int) -> int:
        return self.tenants[tenant].costs[self.head(tenant)]

    def units(self, tenant: int, cost: int) -> int:
        """cost / weight, in units of 1/scale."""
        return cost * self.unit[tenant]

    # --- the loop ---------------------------------------------------------------------------------------

    def run(self) -> None:
        self.record("initial", 0, [], {}, say(MESSAGES, "initial", tenants=len(self.tenants)),
                    decision={"rule": "nothing has arrived"})
        now, next_arrival = 0, 0
        while next_arrival < len(self.arrivals) or self.busy:
            if not self.busy:
                coming = self.arrivals[next_arrival][0]
                if self.dispatch:
                    self.idle(now, coming)
                now = max(now, coming)
            while next_arrival < len(self.arrivals) and self.arrivals[next_arrival][0] == now:
                self.arrive(*self.arrivals[next_arrival])
                next_arrival += 1
            self.dispatch_one(now)
            now += 1
        if self.policy.meters and self.dispatch:
            self.final_reset()

    def arrive(self, now: int, tenant: int, requests: list[int]) -> None:
        joined = self.sizes[tenant] == 0
        before = self.state([tenant])
        self.queues[tenant].extend(requests)
        self.arrived[tenant] += len(requests)
        self.sizes[tenant] += len(requests)
        self.total_waiting += len(requests)
        if joined:
            self.busy += 1
            self.compared_busy += tenant in self.compared
        self.policy.arrive(tenant, requests, joined)
        if self.band:
            self.band.watch(tenant)
            self.band.check(now)
        if self.tracing:
            name = self.tenants[tenant].name
            why = say(MESSAGES, "join" if joined else "arrive", t=now, tenant=name, count=len(requests),
                      waiting=self.sizes[tenant])
            decision = {"rule": "join the queue" if joined else "add to the queue"}
            if joined and self.policy.meters:
                outcome = self.meter_outcome(tenant, before)
                decision = {"rule": "M = max(M, V)", "outcome": outcome}
                why = join(why, self.meter_sentence(tenant, before, outcome))
            self.record("join" if joined else "arrive", now, [tenant], before, why, tenant=name, count=len(requests),
                        decision=decision)

    def dispatch_one(self, now: int) -> None:
        self.backlog.decide(now, self.compared_busy == len(self.compared))
        before = self.state([])
        decision = self.policy.pick(now)
        tenant, request = decision.tenant, decision.request
        spec = self.tenants[tenant]
        cost = spec.costs[request]
        self.take(tenant, request)
        self.policy.charge(tenant, request, cost)
        emptied = self.sizes[tenant] == 0
        if emptied:
            self.busy -= 1
            if tenant in self.compared:
                self.compared_busy -= 1
                self.backlog.close()
            self.policy.leave(tenant)
        self.charged[tenant] += cost
        self.dispatched[tenant] += 1
        self.dispatch.append({"time": now, "tenant": spec.name, "request": request, "cost": cost,
                              "arrival": spec.arrivals[request]})
        if self.band:
            self.band.watch(tenant)
            self.band.check(now)
        if self.tracing:
            why = self.policy.explain(now, decision) if self.level == FULL else None
            self.record("dispatch", now, [tenant], before, why, tenant=spec.name, request=request, cost=cost,
                        decision=json_plain(decision.facts))

    def take(self, tenant: int, request: int) -> None:
        """Take the chosen request off its tenant's queue: O(1) (a request inside the queue is marked sent and
        dropped when it reaches the head)."""
        if not (0 <= request < self.arrived[tenant]) or self.sent[tenant][request]:
            raise PolicyError(f"chose request {request} of {self.tenants[tenant].name}, which is not waiting")
        if self.head(tenant) == request:
            self.queues[tenant].popleft()
        self.sent[tenant][request] = 1
        self.sizes[tenant] -= 1
        self.total_waiting -= 1

    def idle(self, now: int, coming: int) -> None:
        """Every queue is empty after the dispatch at now - 1; the next arrival is at ``coming``."""
        if not self.policy.meters:
            if coming > now and self.tracing:
                self.record("idle", now, [], {}, say(MESSAGES, "idle", t=now, until=coming), until=coming,
                            decision={"rule": "jump to the next arrival"})
            return
        before = self.state([])
        self.policy.idle_reset()
        if self.tracing:
            after = self.policy.state([])["virtual_time"]
            raised = after > before["virtual_time"]
            why = say(MESSAGES, "reset" if raised else "reset_kept", t=now, v=show(after))
            if coming > now:
                why = join(why, say(MESSAGES, "jump", until=coming))
            self.record("idle_reset", now, [], before, why, until=coming,
                        decision={"rule": "V = max(V, max M)", "outcome": "raised" if raised else "kept"})

    def final_reset(self) -> None:
        before = self.policy.state([])["virtual_time"]
        self.policy.idle_reset()
        after = self.policy.state([])["virtual_time"]
        if not self.tracing:
            return
        last = self.steps[-1]
        last["final_reset"] = {"virtual_time_before": json_number(before), "virtual_time": json_number(after),
                               "exact": {"virtual_time_before": str(before), "virtual_time": str(after)}}
        if last["why"] is not None:
            last["why"] = join(last["why"], say(MESSAGES, "final", v=show(after)))

    # --- the trace ----------------------------------------------------------------------------------------

    def state(self, acting: list[int]) -> dict[str, Any]:
        """The policy's numbers: every tenant's in a full trace, the acting tenants' in a compact one."""
        if not self.tracing:
            return {}
        return self.policy.state(range(len(self.tenants)) if self.level == FULL else acting)

    def record(self, kind: str, now: int, acting: list[int], before: dict[str, Any],
               why: dict[str, str] | None, **facts: Any) -> None:
        if not self.tracing:
            return
        step: dict[str, Any] = {"step": len(self.steps), "kind": kind, "time": now, **facts,
                                "waiting": self.total_waiting}
        if self.level == FULL:
            step["queues"] = {t.name: self.queue_costs(t.order) for t in self.tenants}
        after = self.state(acting)
        exact: dict[str, Any] = {}
        for suffix, numbers in (("_before", before), ("", after)):
            for key, value in numbers.items():
                put(step, exact, key + suffix, value, self.names)   # by tenant order: by name in the trace
        if exact:
            step["exact"] = exact
        step["why"] = why
        self.steps.append(step)

    def queue_costs(self, tenant: int) -> list[int]:
        sent, costs = self.sent[tenant], self.tenants[tenant].costs
        return [costs[r] for r in self.queues[tenant] if not sent[r]]

    def meter_outcome(self, tenant: int, before: dict[str, Any]) -> str:
        """What M = max(M, V) did to a joining tenant's meter: ``raised`` to V, ``kept`` above V, or ``at_v``."""
        old, v = before["meters"][tenant], self.policy.state([])["virtual_time"]
        return "raised" if old < v else "kept" if old > v else "at_v"

    def meter_sentence(self, tenant: int, before: dict[str, Any], outcome: str) -> dict[str, str]:
        old, v = before["meters"][tenant], self.policy.state([])["virtual_time"]
        return say(MESSAGES, outcome, tenant=self.tenants[tenant].name, old=show(old), v=show(v))


class PolicyError(RuntimeError):
    """A policy chose something that is not waiting (a user-written policy's mistake, never a built-in's)."""


def trace_size(scenario: Scenario, arrival_count: int) -> int:
    """A bound on a full trace's size: every step shows every tenant's queue (at most all requests) and one
    number per tenant."""
    requests = scenario.requests
    steps = 1 + requests + 2 * arrival_count
    return steps * (len(scenario.tenants) + requests)


MESSAGES = {
    "initial": {"en": "Before t=0: {tenants} tenant(s); nothing has arrived yet.",
                "ja": "t=0 の前: テナント {tenants} 個。まだ何も届いていません。"},
    "join": {"en": "t={t}: {tenant} joins with {count} request(s).",
             "ja": "t={t}: {tenant} がリクエスト {count} 件で参加します。"},
    "arrive": {"en": "t={t}: {count} more request(s) from {tenant} arrive; it was already waiting ({waiting} now).",
               "ja": "t={t}: {tenant} のリクエストがさらに {count} 件届きます (待ちは {waiting} 件)。"},
    "raised": {"en": "Its meter is raised from {old} to V = {v} so it cannot spend share it did not use.",
               "ja": "使わなかった分を後から使えないよう、メーターを {old} から V = {v} に引き上げます。"},
    "at_v": {"en": "Its meter is {v} = V.",
             "ja": "メーターは {v} = V です。"},
    "kept": {"en": "Its meter stays at {old}, above V = {v}: it has already used that share.",
             "ja": "メーターは {old} のまま (V = {v} より上) です。その分はすでに使っています。"},
    "reset": {"en": "t={t}: every queue is empty, so V is raised to the largest meter, {v}: "
                    "no tenant can bank share over idle time.",
              "ja": "t={t}: すべてのキューが空なので、V を最大のメーター {v} に引き上げます。"
                    "アイドルの間に取り分を貯めることはできません。"},
    "reset_kept": {"en": "t={t}: every queue is empty; V = {v} is already the largest meter.",
                   "ja": "t={t}: すべてのキューが空です。V = {v} はすでに最大のメーターです。"},
    "jump": {"en": "Nothing arrives until t={until}, so time jumps there.",
             "ja": "t={until} まで何も届かないので、時刻をそこへ進めます。"},
    "idle": {"en": "t={t}: every queue is empty; nothing arrives until t={until}, so time jumps there.",
             "ja": "t={t}: すべてのキューが空です。t={until} まで何も届かないので、時刻をそこへ進めます。"},
    "final": {"en": "Every queue is now empty and nothing more arrives: the final reset sets V = {v}.",
              "ja": "すべてのキューが空になり、もう何も届きません。最後のリセットで V = {v} とします。"},
}
