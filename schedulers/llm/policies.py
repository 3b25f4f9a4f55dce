"""The decision rules of the LLM router: which waiting request goes to the fleet next.

Every rule is a ``Policy``: the router (``router.py``) owns the tenants' FIFO queues and the clock and calls,
at each logical time t (one dispatch per time unit):

1. ``arrive(tenant, requests, joined)`` for each tenant whose requests arrive at t, in tenant order
   (``joined`` is true when its queue goes from empty to waiting);
2. ``pick(now)`` once: the ``Decision`` (tenant, request) to dispatch, read from the router's queues
   (``router.head``, ``router.waiting``); it may move the policy's own clock (SFQ's V, DRR's deficits) — the
   router snapshots the policy's numbers before the pick and after the charge;
3. ``charge(tenant, request, cost)`` after the router has taken the request off the queue ("pick first, charge
   after"); then ``leave(tenant)`` if that emptied the tenant's queue;
4. ``idle_reset()`` (meter policies only) when a dispatch has emptied every queue and more work is to come,
   and once more after the last dispatch (the final reset);
5. with servers, ``withdraw(tenant, request, emptied)`` when a waiting request is cancelled: it has left the
   router's queue (``emptied``: the tenant has nothing left waiting); a rule drops it from its own structures.
   With servers, ``pick`` is asked once per free server at an instant, one pick at a time.

``explain(now, decision)`` turns a decision into one sentence per language, after the charge. Ties are
always broken by tenant order (input order), then request order. Meters are exact integers in units of
``1/router.scale`` (see ``Router.units``), so ``cost / weight`` never rounds.

Each rule class also carries its menu entry (``catalog.catalogue``): ``name``, ``parameter_names`` and
``item_fields`` (the optional tenant fields it reads), and its words above it (``@words``: ``group``, ``label``,
``summary``). A new rule is one class here, listed in ``RULES`` at the end.
"""
from __future__ import annotations

import heapq
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Any, ClassVar

from ..catalog import json_number, words
from ..errors import ScenarioError
from ..narration import TENANT_ORDER_TIE, Messages, join, say, show
from .scenario import MAX_QUANTUM_ROUNDS

if TYPE_CHECKING:
    from .router import Router


@dataclass(slots=True)
class Decision:
    tenant: int                 # tenant order of the chosen tenant
    request: int                # index of the chosen request within that tenant
    facts: dict[str, Any] = field(default_factory=dict)  # machine-readable: the rule and the key that decided


class Policy:
    """The protocol (and the do-nothing defaults) every decision rule follows; see the module docstring."""

    name: ClassVar[str]
    meters: ClassVar[bool] = False  # keeps meters M_i and a virtual time V (the SFQ family)
    group: ClassVar[str] = "more"
    label: ClassVar[dict[str, str]] = {"en": "", "ja": ""}
    summary: ClassVar[dict[str, str]] = {"en": "", "ja": ""}
    parameter_names: ClassVar[tuple[str, ...]] = ()
    item_fields: ClassVar[tuple[str, ...]] = ()

    def __init__(self, router: Router) -> None:
        self.router = router

    def arrive(self, tenant: int, requests: Sequence[int], joined: bool) -> None:
        pass

    def pick(self, now: int) -> Decision:
        raise NotImplementedError

    def charge(self, tenant: int, request: int, cost: int) -> None:
        pass

    def leave(self, tenant: int) -> None:
        pass

    def withdraw(self, tenant: int, request: int, emptied: bool) -> None:
        pass

    def state(self, tenants: Sequence[int]) -> dict[str, Any]:
        """The policy's own numbers for the trace, e.g. ``{"meters": {i: M_i}, "virtual_time": V}``."""
        return {}

    def parameters(self) -> dict[str, Any]:
        """The parameters the rule used, for the result (JSON numbers, with their ``exact`` forms)."""
        return {}

    def explain(self, now: int, decision: Decision) -> dict[str, str]:
        return say(MESSAGES, "chosen", t=now, tenant=self.name_of(decision.tenant), rule=self.name)

    def name_of(self, tenant: int) -> str:
        return self.router.tenants[tenant].name

    def pick_sentence(self, decision: Decision, rule: str, **values: Any) -> dict[str, str]:
        """The sentence for the pick, with the tie-break spelled out when another tenant was level."""
        chosen = self.name_of(decision.tenant)
        sentence = say(MESSAGES, rule, t=values.pop("now"), tenant=chosen, **values)
        other = decision.facts.get("tied_with")
        if other is None:
            return sentence
        return join(sentence, say(MESSAGES, "tie_" + rule if "tie_" + rule in MESSAGES else "tie",
                                  tenant=chosen, other=other))


@words(
    group="article",
    label={"en": "Global FIFO", "ja": "グローバル FIFO"},
    summary={"en": "earliest arrival first; ties by tenant order, then request order",
             "ja": "到着の早い順。同着はテナント順、次にリクエスト順"},
)
class Fifo(Policy):
    """Global FIFO: the request that arrived first; ties by tenant order, then request order.

    Each tenant's queue is FIFO, so the oldest waiting request is some tenant's head; a heap of
    (arrival of the head, tenant order) over the waiting tenants finds it in O(log n).
    """

    name = "fifo"

    def __init__(self, router: Router) -> None:
        super().__init__(router)
        self.heads: list[tuple[int, int]] = []

    def arrive(self, tenant: int, requests: Sequence[int], joined: bool) -> None:
        if joined:
            self.push(tenant)

    def push(self, tenant: int) -> None:
        head = self.router.head(tenant)
        heapq.heappush(self.heads, (self.router.tenants[tenant].arrivals[head], tenant))

    def pick(self, now: int) -> Decision:
        arrival, tenant = heapq.heappop(self.heads)
        facts: dict[str, Any] = {"rule": "earliest arrival", "arrival": arrival}
        if self.heads and self.heads[0][0] == arrival:
            facts["tied_with"] = self.name_of(self.heads[0][1])
        return Decision(tenant, self.router.head(tenant), facts)

    def charge(self, tenant: int, request: int, cost: int) -> None:
        if self.router.waiting(tenant):
            self.push(tenant)

    def withdraw(self, tenant: int, request: int, emptied: bool) -> None:
        self.heads = [head for head in self.heads if head[1] != tenant]   # its head may have changed
        heapq.heapify(self.heads)
        if not emptied:
            self.push(tenant)

    def explain(self, now: int, decision: Decision) -> dict[str, str]:
        return self.pick_sentence(decision, "fifo", now=now, arrival=decision.facts["arrival"])


class Cycle:
    """Tenants with waiting requests in tenant order, round after round.

    ``this_round`` holds the tenants still to visit after the current one, ``next_round`` those to visit in
    the next round; a tenant that joins after the current one in tenant order is visited in this round,
    one before it in the next: every tenant takes its place in the order.
    """

    def __init__(self) -> None:
        self.this_round: list[int] = []
        self.next_round: list[int] = []
        self.current = -1

    def add(self, tenant: int) -> None:
        heapq.heappush(self.this_round if tenant > self.current else self.next_round, tenant)

    def remove(self, tenant: int) -> None:
        """A tenant that has nothing left waiting leaves the rounds."""
        for heap in (self.this_round, self.next_round):
            if tenant in heap:
                heap.remove(tenant)
                heapq.heapify(heap)

    def next(self) -> int:
        if not self.this_round:
            self.this_round, self.next_round = self.next_round, self.this_round
        self.current = heapq.heappop(self.this_round)
        return self.current


@words(
    group="article",
    label={"en": "Per-tenant round robin", "ja": "テナント単位ラウンドロビン"},
    summary={"en": "one request per turn, cycling over waiting tenants in tenant order; joiners take their place",
             "ja": "待ちのあるテナントをテナント順に巡回し、1 回に 1 リクエスト。参加者はその順の位置に入ります"},
)
class RoundRobin(Policy):
    """Per-tenant round robin: one request per turn, cycling over the waiting tenants in tenant order.

    The chosen tenant's FIFO head is dispatched; if it still has requests it waits for the next round.
    Weights and costs are ignored: RR equalises request counts, not cost.
    """

    name = "rr"

    def __init__(self, router: Router) -> None:
        super().__init__(router)
        self.cycle = Cycle()

    def arrive(self, tenant: int, requests: Sequence[int], joined: bool) -> None:
        if joined:
            self.cycle.add(tenant)

    def pick(self, now: int) -> Decision:
        tenant = self.cycle.next()
        return Decision(tenant, self.router.head(tenant), {"rule": "next in turn"})

    def charge(self, tenant: int, request: int, cost: int) -> None:
        if self.router.waiting(tenant):
            self.cycle.add(tenant)

    def withdraw(self, tenant: int, request: int, emptied: bool) -> None:
        if emptied:
            self.cycle.remove(tenant)

    def explain(self, now: int, decision: Decision) -> dict[str, str]:
        return say(MESSAGES, "rr", t=now, tenant=self.name_of(decision.tenant))


@words(
    group="article",
    label={"en": "Shortest request first", "ja": "最短リクエスト優先"},
    summary={"en": "the waiting request of least cost; ties by arrival, then tenant order",
             "ja": "コスト最小の待ちリクエスト。同点は到着順、次にテナント順"},
)
class Shortest(Policy):
    """Shortest request first: the waiting request of least cost, from any tenant (not only the heads);
    ties by arrival, then tenant order, then request order. Needs the cost before dispatch, and can starve
    a tenant whose requests are all long."""

    name = "shortest"

    def __init__(self, router: Router) -> None:
        super().__init__(router)
        self.requests: list[tuple[int, int, int, int]] = []   # (cost, arrival, tenant, request)
        self.cancels = any("cancel" in tenant.entries for tenant in router.tenants)

    def arrive(self, tenant: int, requests: Sequence[int], joined: bool) -> None:
        spec = self.router.tenants[tenant]
        for request in requests:
            heapq.heappush(self.requests, (spec.costs[request], spec.arrivals[request], tenant, request))

    def pick(self, now: int) -> Decision:
        if self.cancels:
            self.drop_withdrawn()
        cost, arrival, tenant, request = heapq.heappop(self.requests)
        if self.cancels:
            self.drop_withdrawn()
        facts: dict[str, Any] = {"rule": "least cost", "cost": cost, "arrival": arrival}
        if self.requests and self.requests[0][0] == cost and self.requests[0][2] != tenant:
            facts["tied_with"] = self.name_of(self.requests[0][2])
        return Decision(tenant, request, facts)

    def drop_withdrawn(self) -> None:
        """Cancelled requests (with servers) leave the heap when they reach its top: the router marks them gone."""
        sent = self.router.sent
        while self.requests and sent[self.requests[0][2]][self.requests[0][3]]:
            heapq.heappop(self.requests)

    def explain(self, now: int, decision: Decision) -> dict[str, str]:
        return self.pick_sentence(decision, "shortest", now=now, cost=decision.facts["cost"])


@words(
    label={"en": "Deficit round robin", "ja": "Deficit ラウンドロビン"},
    summary={"en": "tenant order, round after round; a visit adds quantum Q*weight to the deficit; dispatch while "
                   "it covers the head; reset to 0 when the queue empties",
             "ja": "テナント順に巡回し、訪問ごとに deficit に Q*重み を足し、先頭を賄える間送ります。"
                   "キューが空になると 0 に戻します"},
)
class DeficitRoundRobin(Policy):
    """Deficit round robin (Shreedhar & Varghese), one dispatch per logical time unit.

    The waiting tenants are visited in tenant order, round after round (as in RR). A visit adds the
    tenant's quantum Q * w_i to its deficit counter. While the deficit covers its head request's cost, the
    tenant keeps the turn: one request per time unit, its cost taken off the deficit. When the head no
    longer fits, the turn passes on and the deficit is kept; when the queue empties, the deficit resets to
    0 and the tenant leaves the round. Q defaults to the largest cost / weight, so every visit dispatches.
    """

    name = "drr"
    parameter_names = ("quantum",)
    item_fields = ("weight",)

    def __init__(self, router: Router) -> None:
        super().__init__(router)
        self.cycle = Cycle()
        self.deficit = [Fraction(0)] * len(router.tenants)
        self.base = self.base_quantum(router)
        self.quantum = [self.base * t.weight for t in router.tenants]
        self.turn: int | None = None   # the tenant holding the turn, outside the cycle's heaps

    @staticmethod
    def base_quantum(router: Router) -> Fraction:
        """Q: as given, else the largest cost / weight, so that every visit dispatches. Below 1/MAX_QUANTUM_ROUNDS
        of that a request would need too many futile visits: an error."""
        needed = max(Fraction(max(t.costs)) / t.weight for t in router.tenants)
        given = router.scenario.quantum
        if given is None:
            return needed
        if needed > given * MAX_QUANTUM_ROUNDS:
            raise ScenarioError("quantum", f"must be at least 1/{MAX_QUANTUM_ROUNDS} of the largest cost/weight "
                                f"({needed}), not {given} (the documented limit)")
        return given

    def arrive(self, tenant: int, requests: Sequence[int], joined: bool) -> None:
        if joined:
            self.cycle.add(tenant)

    def pick(self, now: int) -> Decision:
        passed = []   # visits that ended without a dispatch: the deficit did not cover the head
        kept = self.turn is not None and self.fits(self.turn)
        while not (self.turn is not None and self.fits(self.turn)):
            if self.turn is not None:
                passed.append({"tenant": self.name_of(self.turn), "deficit": self.deficit[self.turn],
                               "head_cost": self.head_cost(self.turn)})
                self.cycle.add(self.turn)
            self.turn = self.cycle.next()
            self.deficit[self.turn] += self.quantum[self.turn]
        tenant = self.turn
        facts = {"rule": "deficit covers head", "kept_turn": kept, "deficit": self.deficit[tenant],
                 "quantum": self.quantum[tenant], "passed": passed}
        return Decision(tenant, self.router.head(tenant), facts)

    def fits(self, tenant: int) -> bool:
        return self.deficit[tenant] >= self.head_cost(tenant)

    def head_cost(self, tenant: int) -> int:
        return self.router.tenants[tenant].costs[self.router.head(tenant)]

    def charge(self, tenant: int, request: int, cost: int) -> None:
        self.deficit[tenant] -= cost

    def leave(self, tenant: int) -> None:
        self.deficit[tenant] = Fraction(0)
        self.turn = None

    def withdraw(self, tenant: int, request: int, emptied: bool) -> None:
        if not emptied:
            return
        self.deficit[tenant] = Fraction(0)   # its queue emptied: as when it sends its last request
        if self.turn == tenant:
            self.turn = None
        else:
            self.cycle.remove(tenant)

    def state(self, tenants: Sequence[int]) -> dict[str, Any]:
        return {"deficits": {i: self.deficit[i] for i in tenants}}

    def parameters(self) -> dict[str, Any]:
        return {"quantum": json_number(self.base), "exact": {"quantum": str(self.base)}}

    def explain(self, now: int, decision: Decision) -> dict[str, str]:
        facts, tenant = decision.facts, self.name_of(decision.tenant)
        cost = self.router.tenants[decision.tenant].costs[decision.request]
        key = "drr_keeps" if facts["kept_turn"] else "drr_visit"
        sentence = say(MESSAGES, key, t=now, tenant=tenant, quantum=show(facts["quantum"]),
                       deficit=show(facts["deficit"]), cost=cost, left=show(facts["deficit"] - cost))
        passed = facts["passed"]
        if not passed:
            return sentence
        shown = ", ".join(f"{p['tenant']} ({show(p['deficit'])} < {p['head_cost']})" for p in passed[:3])
        more = f" +{len(passed) - 3}" if len(passed) > 3 else ""
        return join(sentence, say(MESSAGES, "drr_passed", visits=shown + more))


class MeterPolicy(Policy):
    """The SFQ family: meters M_i (normalised cost charged so far), a virtual time V, a heap of tags.

    A tenant going from empty to waiting gets M_i = max(M_i, V), so share it did not use while away is
    gone; after an emptying dispatch the router calls ``idle_reset``: V = max(V, max_i M_i).
    Subclasses say which tag orders the heap and what V becomes at a pick.
    """

    meters = True
    item_fields = ("weight",)

    def __init__(self, router: Router) -> None:
        super().__init__(router)
        self.meter = [0] * len(router.tenants)
        self.virtual_time = 0
        self.highest = 0           # max_i M_i: meters only grow, so a running maximum
        self.tags: list[tuple[int, int]] = []

    def tag(self, tenant: int) -> int:
        raise NotImplementedError

    def arrive(self, tenant: int, requests: Sequence[int], joined: bool) -> None:
        if joined:
            self.meter[tenant] = max(self.meter[tenant], self.virtual_time)
            heapq.heappush(self.tags, (self.tag(tenant), tenant))

    def pop(self) -> Decision:
        tag, tenant = heapq.heappop(self.tags)
        decision = Decision(tenant, self.router.head(tenant))
        if self.router.tracing:   # the facts only feed the trace: a benchmark run skips the fractions
            decision.facts = {"meter": self.router.exact(self.meter[tenant]), "tag": self.router.exact(tag)}
            if self.tags and self.tags[0][0] == tag:
                decision.facts["tied_with"] = self.name_of(self.tags[0][1])
        return decision

    def charge(self, tenant: int, request: int, cost: int) -> None:
        self.meter[tenant] += self.router.units(tenant, cost)
        self.highest = max(self.highest, self.meter[tenant])
        if self.router.waiting(tenant):
            heapq.heappush(self.tags, (self.tag(tenant), tenant))

    def idle_reset(self) -> None:
        self.virtual_time = max(self.virtual_time, self.highest)

    def withdraw(self, tenant: int, request: int, emptied: bool) -> None:
        self.tags = [entry for entry in self.tags if entry[1] != tenant]   # WFQ's tag reads its head
        heapq.heapify(self.tags)
        if not emptied:
            heapq.heappush(self.tags, (self.tag(tenant), tenant))

    def state(self, tenants: Sequence[int]) -> dict[str, Any]:
        exact = self.router.exact
        return {"meters": {i: exact(self.meter[i]) for i in tenants},
                "virtual_time": exact(self.virtual_time)}

    def charged(self, decision: Decision) -> dict[str, Any]:
        spec = self.router.tenants[decision.tenant]
        cost = spec.costs[decision.request]
        return {"tenant": spec.name, "cost": cost, "weight": show(spec.weight), "amount": show(cost / spec.weight),
                "after": show(self.router.exact(self.meter[decision.tenant]))}


@words(
    group="article",
    label={"en": "SFQ (weighted)", "ja": "SFQ (重み付き)"},
    summary={"en": "least meter M_i (ties: tenant order); V = M_i; dispatch its FIFO head; then M_i += cost/weight",
             "ja": "メーター M_i 最小 (同点はテナント順) を選び V = M_i、先頭を送り、M_i += コスト/重み"},
)
class StartTimeFairQueueing(MeterPolicy):
    """SFQ, the article's rule, weighted: pick the waiting tenant with the least (M_i, tenant order);
    set V = M_i; dispatch its FIFO head r; then M_i += cost(r) / w_i. The cost is only charged after the
    pick, so the rule needs no estimate to choose (with weights all 1 it is exactly the article's SFQ)."""

    name = "sfq"

    def tag(self, tenant: int) -> int:
        return self.meter[tenant]

    def pick(self, now: int) -> Decision:
        decision = self.pop()
        self.virtual_time = self.meter[decision.tenant]
        decision.facts["rule"] = "least meter"
        return decision

    def explain(self, now: int, decision: Decision) -> dict[str, str]:
        pick = self.pick_sentence(decision, "sfq", now=now, meter=show(decision.facts["meter"]))
        return join(pick, say(MESSAGES, "charge", **self.charged(decision)))


@words(
    label={"en": "WFQ (self-clocked, estimated cost)", "ja": "WFQ (自己クロック、推定コスト)"},
    summary={"en": "least finish tag M_i + cost(head)/weight (ties: tenant order); V = that tag; M_i = it",
             "ja": "終了タグ M_i + 先頭コスト/重み 最小 (同点はテナント順)。V = そのタグ、M_i = そのタグ"},
)
class WeightedFairQueueing(MeterPolicy):
    """WFQ on estimated cost, self-clocked (Golestani's SCFQ): a waiting tenant's head request has start
    tag M_i and finish tag F_i = M_i + cost(head) / w_i. Pick the least (F_i, tenant order); set V = F_i
    (the finish tag of the request just dispatched); then M_i = F_i. Unlike SFQ it must know the cost
    before choosing, and it favours small requests within a round."""

    name = "wfq"

    def tag(self, tenant: int) -> int:
        return self.meter[tenant] + self.router.units(tenant, self.router.head_cost(tenant))

    def pick(self, now: int) -> Decision:
        decision = self.pop()
        self.virtual_time = self.tag(decision.tenant)
        decision.facts["rule"] = "least finish tag"
        return decision

    def explain(self, now: int, decision: Decision) -> dict[str, str]:
        pick = self.pick_sentence(decision, "wfq", now=now, finish=show(decision.facts["tag"]),
                        meter=show(decision.facts["meter"]))
        return join(pick, say(MESSAGES, "charge", **self.charged(decision)))


RULES: tuple[type[Policy], ...] = (Fifo, RoundRobin, Shortest, StartTimeFairQueueing, DeficitRoundRobin,
                                    WeightedFairQueueing)   # menu order: the article's four first
POLICIES: dict[str, type[Policy]] = {rule.name: rule for rule in RULES}


MESSAGES: Messages = {
    "chosen": {"en": "t={t}: the {rule} policy chose {tenant}.",
               "ja": "t={t}: {rule} 方式が {tenant} を選びました。"},
    "fifo": {"en": "t={t}: {tenant}'s head request arrived first (t={arrival}), so FIFO dispatches it.",
             "ja": "t={t}: {tenant} の先頭リクエストが最も早く到着した (t={arrival}) ので、FIFO はそれを送ります。"},
    "rr": {"en": "t={t}: it is {tenant}'s turn in tenant order, so RR dispatches its head request.",
           "ja": "t={t}: テナント順で {tenant} の番なので、RR はその先頭リクエストを送ります。"},
    "shortest": {"en": "t={t}: {tenant} has the cheapest waiting request (cost {cost}), so it goes first.",
                 "ja": "t={t}: {tenant} の待ちリクエストが最も安い (コスト {cost}) ので、先に送ります。"},
    "tie": TENANT_ORDER_TIE,
    "tie_shortest": {"en": "({other} has a request of the same cost; {tenant}'s wins by earlier arrival, "
                           "then tenant order.)",
                     "ja": "({other} にも同じコストのリクエストがあり、到着順・テナント順で {tenant} が先です。)"},
    "sfq": {"en": "t={t}: {tenant} has the least meter, {meter}, so V = {meter} and its head request is dispatched.",
            "ja": "t={t}: {tenant} のメーター {meter} が最小なので V = {meter} とし、先頭リクエストを送ります。"},
    "wfq": {"en": "t={t}: {tenant}'s head request has the least finish tag, {meter} + cost/weight = {finish}, "
                  "so it is dispatched and V = {finish}.",
            "ja": "t={t}: {tenant} の先頭リクエストの終了タグ {meter} + コスト/重み = {finish} が最小なので送り、"
                  "V = {finish} とします。"},
    "charge": {"en": "Then {tenant} is charged cost {cost} / weight {weight} = {amount}: its meter becomes {after}.",
               "ja": "その後 {tenant} にコスト {cost} / 重み {weight} = {amount} を課金し、"
                     "メーターは {after} になります。"},
    "drr_passed": {"en": "(Before that, the turn passed over deficits too small for their head: {visits}.)",
                   "ja": "(その前に、deficit が先頭に足りず番を譲った訪問: {visits})"},
    "drr_visit": {"en": "t={t}: {tenant}'s turn: its deficit gains the quantum {quantum} to {deficit}, which covers "
                        "its head (cost {cost}); after dispatch {left} is left.",
                  "ja": "t={t}: {tenant} の番です。deficit に quantum {quantum} を足して {deficit} となり、先頭 "
                        "(コスト {cost}) を送れます。残りは {left} です。"},
    "drr_keeps": {"en": "t={t}: {tenant} keeps the turn: its deficit {deficit} still covers its head (cost {cost}); "
                        "{left} is left.",
                  "ja": "t={t}: {tenant} の deficit {deficit} がまだ先頭 (コスト {cost}) を賄えるので、続けて送ります。"
                        "残りは {left} です。"},
}
