"""The one router loop every LLM policy runs in: arrivals, the idle reset, one dispatch per time unit.

Boundary order at each logical time t (the contract's rules):

- if requests are still waiting from before, the arrivals at t come first, then the dispatch;
- if the previous dispatch emptied every queue, the idle reset comes first (a step of its own, for the
  meter policies; an ``idle`` step for the others when time then jumps), then the arrivals, then the
  dispatch;
- if every queue is empty and the next arrival lies in the future, time jumps to it;
- the final reset, with no arrival left to come, is noted on the last dispatch (``final_reset``).

With ``servers`` (the fleet, ``run_fleet``) time is real: a request holds a server for its ``actual`` service (by
default its cost), and at each instant t, in this order:

1. the requests whose service ends at t (or that are cancelled while running) free their servers, lowest first;
2. if a dispatch or a cancellation emptied every queue since the last arrival, the idle reset (meter policies),
   then the arrivals at t;
3. the requests cancelled at t while waiting leave their queues, uncharged;
4. while a server is free and requests wait, the rule picks one (one pick at a time, in its own order) and it
   goes to the free server of lowest number; the rule charges its estimate, as without servers.

The final reset, once the queues are empty and nothing is left to arrive, is noted on the step that emptied them.

The trace has three levels: ``full`` (every tenant's queue and the policy's numbers at every step, with a
sentence), ``compact`` (only the acting tenant's numbers, no sentences: chosen when a full trace would pass
``TRACE_BUDGET``) and ``none`` (no steps: for benchmarks).
"""
from __future__ import annotations

import heapq
import math
from collections import deque
from dataclasses import dataclass
from typing import Any

from ..catalog import json_number, json_plain
from ..narration import join, say, show
from ..recording import FULL, NONE, ExactUnits, arrival_events, level, put
from .fairness import Backlog, Band
from .policies import Policy
from .scenario import Scenario

TRACE_BUDGET = 1_000_000   # queue entries and numbers a full trace may hold; above it the trace is compact


@dataclass(frozen=True)
class Share:
    """One replica's part of a scenario (``replicas.py``): the requests of each tenant it receives (FIFO order), its
    servers (numbers ``first_server`` onwards) and the tenants its fairness compares."""
    requests: tuple[tuple[int, ...], ...]
    first_server: int
    servers: int
    compared: tuple[int, ...]


class Router(ExactUnits):
    def __init__(self, scenario: Scenario, policy: type[Policy], trace: bool = True, share: Share | None = None
                 ) -> None:
        self.scenario = scenario
        self.tenants = scenario.tenants
        self.names = [tenant.name for tenant in self.tenants]
        # Meters count cost / weight exactly as integers in units of 1/scale: scale is the lcm of the
        # weights' numerators, so cost / (p/q) = cost * q * scale / p is a whole number of units.
        self.scale = math.lcm(*(t.weight.numerator for t in self.tenants))
        self.unit = [self.scale * t.weight.denominator // t.weight.numerator for t in self.tenants]
        self.queues: list[deque[int]] = [deque() for _ in self.tenants]
        self.sizes = [0] * len(self.tenants)
        self.arrived = [0] * len(self.tenants)  # requests arrive in index order: none past arrived-1 has arrived
        self.sent = [bytearray(len(t.costs)) for t in self.tenants]   # 1 once dispatched (or never coming here)
        self.busy = 0                          # tenants with waiting requests
        self.total_waiting = 0                 # requests waiting, all tenants
        self.share = share
        if share is None:
            self.arrivals = arrival_events(self.tenants, lambda tenant: tenant.arrivals)
        else:   # a replica: only its requests arrive, the others count as gone
            for sent, owned in zip(self.sent, share.requests):
                sent[:] = b"\x01" * len(sent)
                for request in owned:
                    sent[request] = 0
            owned = arrival_events(self.tenants, lambda t: [t.arrivals[r] for r in share.requests[t.order]])
            self.arrivals = [(time, tenant, [share.requests[tenant][k] for k in positions])
                             for time, tenant, positions in owned]
        self.level = level(trace, trace_size(scenario, len(self.arrivals)), TRACE_BUDGET)
        self.tracing = self.level != NONE
        self.policy = policy(self)
        self.steps: list[dict[str, Any]] = []
        self.dispatch: list[dict[str, Any]] = []
        self.charged = [0] * len(self.tenants)
        self.dispatched = [0] * len(self.tenants)
        self.compared = frozenset(scenario.compare if share is None else share.compared)
        self.compared_busy = 0
        self.backlog = Backlog()
        self.band = Band(self) if self.policy.meters else None
        self.servers = scenario.servers if share is None else share.servers
        self.first_server = 0 if share is None else share.first_server
        if self.servers is not None:
            self.fleet()

    def fleet(self) -> None:
        """The fleet's state: free servers (a heap: lowest number first), what each server runs, the running
        requests by the time their server frees, the cancellations in time order, and each tenant's service."""
        self.free = list(range(self.servers))
        self.running: list[tuple[int, int] | None] = [None] * self.servers
        self.ends: list[tuple[int, int, int, int, bool]] = []   # (end, server, tenant, request, cancelled)
        self.started: dict[tuple[int, int], int] = {}            # (tenant, request) -> its dispatch's index
        self.cancels = sorted((cancel, t.order, k) for t in self.tenants
                              for k, cancel in enumerate(t.entries.get("cancel", ()))
                              if cancel is not None and not self.sent[t.order][k])
        self.actuals = [t.entries.get("actual", (None,) * len(t.costs)) for t in self.tenants]
        self.service = [0] * len(self.tenants)                 # actual service given, cut short by cancellations
        self.latencies: list[list[int]] = [[] for _ in self.tenants]   # completion - arrival, completed requests
        self.waits = [0] * len(self.tenants)                   # sum of dispatch - arrival
        self.cancelled: list[dict[str, Any]] = []              # requests cancelled while waiting
        self.reset_pending = False
        self.emptied_step = 0

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
        if self.servers is not None:
            self.run_fleet()
            return
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
            self.final_reset(len(self.steps) - 1)

    def run_fleet(self) -> None:
        """The instants at which something happens, in the order of the module docstring."""
        arrivals, cancels, ends = self.arrivals, self.cancels, self.ends
        next_arrival = next_cancel = 0
        while next_arrival < len(arrivals) or next_cancel < len(cancels) or ends:
            now = min(arrivals[next_arrival][0] if next_arrival < len(arrivals) else math.inf,
                      cancels[next_cancel][0] if next_cancel < len(cancels) else math.inf,
                      ends[0][0] if ends else math.inf)
            while ends and ends[0][0] == now:
                self.finish(now, *heapq.heappop(ends)[1:])
            if next_arrival < len(arrivals) and arrivals[next_arrival][0] == now:
                if self.reset_pending:
                    self.reset_pending = False
                    self.idle(now, now)
                while next_arrival < len(arrivals) and arrivals[next_arrival][0] == now:
                    self.arrive(*arrivals[next_arrival])
                    next_arrival += 1
            while next_cancel < len(cancels) and cancels[next_cancel][0] == now:
                _, tenant, request = cancels[next_cancel]
                next_cancel += 1
                if request < self.arrived[tenant] and not self.sent[tenant][request]:
                    self.withdraw(now, tenant, request)
            while self.free and self.busy:
                self.dispatch_one(now)
            if self.reset_pending and next_arrival == len(arrivals):   # nothing left to join: the final reset
                self.reset_pending = False
                self.final_reset(self.emptied_step)

    def finish(self, now: int, server: int, tenant: int, request: int, cancelled: bool) -> None:
        """The request on ``server`` ends at ``now``: its service is done, or it was cancelled while running."""
        self.running[server] = None
        heapq.heappush(self.free, server)
        entry = self.dispatch[self.started[tenant, request]]
        served = now - entry["start"]
        self.service[tenant] += served
        spec = self.tenants[tenant]
        if not cancelled:
            self.latencies[tenant].append(now - spec.arrivals[request])
        if self.tracing:
            values = {"t": now, "tenant": spec.name, "request": request, "server": self.first_server + server,
                      "service": served}
            why = say(MESSAGES, "cancel_running" if cancelled else "complete", cost=entry["cost"],
                      actual=entry["actual"], **values) if self.level == FULL else None
            facts = {"tenant": spec.name, "request": request, "server": values["server"], "service": served}
            if cancelled:
                self.record("cancel", now, [tenant], {}, why, running=True, cost=entry["cost"], **facts,
                            decision={"rule": "free the server; the charge stays"})
            else:
                self.record("complete", now, [tenant], {}, why, **facts, decision={"rule": "the server is free"})

    def withdraw(self, now: int, tenant: int, request: int) -> None:
        """A waiting request is cancelled: it leaves its queue, uncharged."""
        before = self.state([tenant])
        spec = self.tenants[tenant]
        emptied = self.leaves_waiting(tenant, request)
        self.policy.withdraw(tenant, request, emptied)
        cost = spec.costs[request]
        self.cancelled.append({"time": now, "tenant": spec.name, "request": request, "cost": cost,
                               "arrival": spec.arrivals[request]})
        self.emptied_everything()
        if self.band:
            self.band.watch(tenant)
            self.band.check(now)
        if self.tracing:
            why = say(MESSAGES, "cancel_waiting", t=now, tenant=spec.name, request=request, cost=cost) \
                if self.level == FULL else None
            self.record("cancel", now, [tenant], before, why, tenant=spec.name, request=request, running=False,
                        cost=cost, decision={"rule": "leave the queue uncharged"})

    def emptied_everything(self) -> None:
        """After a dispatch or a cancellation in the fleet: if every queue is now empty, the idle reset waits for
        the next arrival (or is the final one), noted on the step about to be recorded."""
        if self.total_waiting == 0 and self.policy.meters and self.dispatch:
            self.reset_pending = True
            self.emptied_step = len(self.steps)

    def arrive(self, now: int, tenant: int, requests: list[int]) -> None:
        joined = self.sizes[tenant] == 0
        before = self.state([tenant])
        self.queues[tenant].extend(requests)
        self.arrived[tenant] = requests[-1] + 1
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
        self.backlog.decide(now, self.compared_busy == len(self.compared), len(self.dispatch))
        before = self.state([])
        decision = self.policy.pick(now)
        tenant, request = decision.tenant, decision.request
        spec = self.tenants[tenant]
        cost = spec.costs[request]
        emptied = self.take(tenant, request)
        self.policy.charge(tenant, request, cost)
        if emptied:
            self.policy.leave(tenant)
        self.charged[tenant] += cost
        self.dispatched[tenant] += 1
        entry = {"time": now, "tenant": spec.name, "request": request, "cost": cost, "arrival": spec.arrivals[request]}
        self.dispatch.append(entry)
        fleet = self.servers is not None
        if fleet:
            self.serve(now, tenant, request, entry)
        if self.band:
            self.band.watch(tenant)
            self.band.check(now)
        if self.tracing:
            why = self.policy.explain(now, decision) if self.level == FULL else None
            if not fleet:
                self.record("dispatch", now, [tenant], before, why, tenant=spec.name, request=request, cost=cost,
                            decision=json_plain(decision.facts))
                return
            if why is not None:
                why = join(why, say(MESSAGES, "runs", server=entry["server"], cost=cost, actual=entry["actual"]))
            self.record("dispatch", now, [tenant], before, why, tenant=spec.name, request=request, cost=cost,
                        server=entry["server"], end=entry["end"], actual=entry["actual"],
                        decision=json_plain(decision.facts))

    def serve(self, now: int, tenant: int, request: int, entry: dict[str, Any]) -> None:
        """The dispatched request takes the free server of lowest number until its actual service is done, or until
        it is cancelled if that comes first (``entry`` gains ``server``, ``start``, ``end``, ``actual``, and
        ``cancelled``)."""
        server = heapq.heappop(self.free)
        spec = self.tenants[tenant]
        actual = self.actuals[tenant][request] or spec.costs[request]
        end = now + actual
        cancel = spec.entries["cancel"][request] if "cancel" in spec.entries else None
        cancelled = cancel is not None and cancel < end
        if cancelled:
            end = cancel
        entry.update(server=self.first_server + server, start=now, end=end, actual=actual)
        if cancelled:
            entry["cancelled"] = True
        self.running[server] = (tenant, request)
        self.started[tenant, request] = len(self.dispatch) - 1
        self.waits[tenant] += now - spec.arrivals[request]
        heapq.heappush(self.ends, (end, server, tenant, request, cancelled))
        self.emptied_everything()

    def take(self, tenant: int, request: int) -> bool:
        """Take the chosen request off its tenant's queue: O(1) (a request inside the queue is marked sent and
        dropped when it reaches the head). True when its tenant has nothing left waiting."""
        if not (0 <= request < self.arrived[tenant]) or self.sent[tenant][request]:
            raise PolicyError(f"chose request {request} of {self.tenants[tenant].name}, which is not waiting")
        if self.head(tenant) == request:
            self.queues[tenant].popleft()
        return self.leaves_waiting(tenant, request)

    def leaves_waiting(self, tenant: int, request: int) -> bool:
        """The request is no longer waiting, dispatched or cancelled (marked sent: its queue drops it at the head).
        True when its tenant has nothing left waiting: it is no longer busy, and a compared one closes the common
        backlog."""
        self.sent[tenant][request] = 1
        self.sizes[tenant] -= 1
        self.total_waiting -= 1
        if self.sizes[tenant]:
            return False
        self.busy -= 1
        if tenant in self.compared:
            self.compared_busy -= 1
            self.backlog.close()
        return True

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

    def final_reset(self, noted: int) -> None:
        """V = max(V, max M) once the last request has left the queues; noted on the step ``noted``."""
        before = self.policy.state([])["virtual_time"]
        self.policy.idle_reset()
        after = self.policy.state([])["virtual_time"]
        if not self.tracing:
            return
        last = self.steps[noted]
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
            if self.servers is not None:
                step["servers"] = [None if running is None else {"tenant": self.names[running[0]],
                                                                 "request": running[1]} for running in self.running]
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
    if scenario.servers is None:
        steps = 1 + requests + 2 * arrival_count
        return steps * (len(scenario.tenants) + requests)
    steps = 1 + 3 * requests + 2 * arrival_count   # and each request's completion or cancellation
    return steps * (len(scenario.tenants) + requests + scenario.servers)


MESSAGES = {
    "initial": {"en": "Before t=0: {tenants} {tenants:tenant|tenants}; nothing has arrived yet.",
                "ja": "t=0 の前: テナント {tenants} 個。まだ何も届いていません。"},
    "join": {"en": "t={t}: {tenant} joins with {count} {count:request|requests}.",
             "ja": "t={t}: {tenant} がリクエスト {count} 件で参加します。"},
    "arrive": {"en": "t={t}: {count} more {count:request|requests} from {tenant} {count:arrives|arrive}; "
                     "it was already waiting ({waiting} now).",
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
    "runs": {"en": "It goes to server {server}: charged {cost} (its estimate); it runs {actual}.",
             "ja": "サーバー {server} へ送ります。課金は {cost} (推定値)、実際には {actual} かかります。"},
    "complete": {"en": "t={t}: {tenant}'s request #{request} is done on server {server} after {service}; "
                       "the server is free.",
                 "ja": "t={t}: {tenant} のリクエスト #{request} がサーバー {server} で {service} かけて終わり、"
                       "サーバーが空きます。"},
    "cancel_waiting": {"en": "t={t}: {tenant}'s request #{request} (cost {cost}) is cancelled while waiting: it "
                             "leaves the queue uncharged.",
                       "ja": "t={t}: {tenant} のリクエスト #{request} (コスト {cost}) が待ちの間に取り消され、"
                             "課金されずにキューを出ます。"},
    "cancel_running": {"en": "t={t}: {tenant}'s request #{request} is cancelled on server {server} after {service} "
                             "of its {actual}: the server is free, and its charge of {cost} stays (no refund).",
                       "ja": "t={t}: {tenant} のリクエスト #{request} がサーバー {server} で {actual} のうち "
                             "{service} 動いたところで取り消されます。サーバーは空き、課金 {cost} は返金しません。"},
    "final": {"en": "Every queue is now empty and nothing more arrives: the final reset sets V = {v}.",
              "ja": "すべてのキューが空になり、もう何も届きません。最後のリセットで V = {v} とします。"},
}
