"""The admission rules of the inference engine: which waiting request takes a free batch slot.

Every rule is a ``Policy``. The engine (``batching.py``) owns the clock (decode iterations), the tenants' FIFO
queues and the batch, and calls, in each iteration:

1. ``join(tenant)`` when a tenant that had nothing waiting gets requests (after they are queued); a rule with
   counters may lift the tenant's counter and returns the ``Lift`` (a step of its own in the trace);
2. ``pick(now)`` while a slot is free and requests wait: the ``Decision`` (a tenant; its oldest waiting request
   goes in). It must not change the rule's state: the request may not fit in memory, and then nothing is
   admitted this iteration. If it fits, ``admit(running)`` returns the charge for it (the request now holds
   a slot);
3. ``generate(running)`` for every running request once it has generated this iteration's token (its charge),
   then ``finish(running)`` for each request that has generated its ``output`` tokens (a final charge; negative
   for a refund).

Every charge goes through ``charge(tenant, units)``. Counters are exact integers in units of ``1/engine.scale``
(``Engine.units``), so ``tokens × w / weight`` never rounds. Ties are broken by tenant order, then request order
(VTC's by ``engine.rank``: tenant order, or with ``ties`` first-arrival the order tenants first arrived in). With
``charge_first_token`` false the engine never asks ``generate`` for a request's first token (it is free).

Each rule class carries its menu entry (``catalog.catalogue``): ``name``, ``parameter_names`` and ``item_fields``
(the optional tenant and request fields it reads), and its words above it (``@words``: ``group``, ``label``,
``summary``); ``lifts`` says that its ``join`` may lift a counter, a step of its own. A new rule is one class here,
listed in ``RULES`` at the end.
"""
from __future__ import annotations

import heapq
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from ..catalog import words

if TYPE_CHECKING:
    from .batching import Engine, Running
    from .scenario import Request

# What every rule's engine reads: the batch, the prices, and the conventions of its loop and counting
ENGINE_PARAMETERS = ("slots", "memory", "w_in", "w_out", "conventions", "charge_first_token", "loop",
                     "decodes_between_prefills", "reserve")
VTC_PARAMETERS = (*ENGINE_PARAMETERS, "lift", "ties")   # and VTC's own conventions


@dataclass(slots=True)
class Decision:
    tenant: int                 # the tenant whose oldest waiting request is admitted
    facts: dict[str, Any] = field(default_factory=dict)   # machine-readable: the rule and the key that decided


@dataclass(frozen=True, slots=True)
class Lift:
    rule: str                   # "min_waiting", "max_batch", "none" (nothing waits or runs: unchanged) or
                                # "waiting_only" (nobody else waits and lift is waiting-only: unchanged)
    before: int                 # the counter before and after, in units
    after: int
    reference: int | None       # the least waiting counter or the largest counter in the batch (waiting_only:
                                # the one the lab's rule would have lifted it to)


class Policy:
    """The protocol and its do-nothing defaults; see the module docstring."""

    name: ClassVar[str]
    group: ClassVar[str] = "more"
    label: ClassVar[dict[str, str]] = {"en": "", "ja": ""}
    summary: ClassVar[dict[str, str]] = {"en": "", "ja": ""}
    parameter_names: ClassVar[tuple[str, ...]] = ENGINE_PARAMETERS
    item_fields: ClassVar[tuple[str, ...]] = ()
    lifts: ClassVar[bool] = False   # join returns a Lift (a ``lift`` step); else join only files the tenant

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.counter = [0] * len(engine.tenants)

    def join(self, tenant: int) -> Lift | None:
        return None

    def pick(self, now: int) -> Decision:
        raise NotImplementedError

    def admit(self, running: Running) -> int:
        return 0

    def generate(self, running: Running) -> int:
        return 0

    def finish(self, running: Running) -> int:
        return 0

    def charge(self, tenant: int, units: int) -> None:
        self.counter[tenant] += units


class TokenCounting(Policy):
    """The VTC paper's counting, which every rule here keeps (FCFS only shows it, it never reads it): at
    admission a request costs w_in per input token, then w_out per token as it is generated, each divided by
    the tenant's weight."""

    def admit(self, running: Running) -> int:
        return self.engine.units(running.request.tenant, input_tokens=running.request.input)

    def generate(self, running: Running) -> int:
        return self.engine.units(running.request.tenant, output_tokens=1)


@words(
    group="article",
    label={"en": "FCFS (engine default)", "ja": "FCFS（エンジンの既定）"},
    summary={"en": "admit the earliest-arrived waiting request; ties by tenant order, then request order",
             "ja": "最も早く届いた待ちリクエストを受け入れます。同着はテナント順、次にリクエスト順"},
)
class FCFS(TokenCounting):
    """First come, first served (what an engine does by default): admit the waiting request that arrived
    first; ties by tenant order, then request order. A tenant's requests are FIFO, so the earliest waiting
    request is some tenant's oldest: a heap of (arrival of its oldest, tenant) finds it in O(log n)."""

    name = "fcfs"

    def __init__(self, engine: Engine) -> None:
        super().__init__(engine)
        self.heads: list[tuple[int, int]] = []

    def join(self, tenant: int) -> Lift | None:
        heapq.heappush(self.heads, (self.engine.head(tenant).arrival, tenant))
        return None

    def pick(self, now: int) -> Decision:
        arrival, tenant = self.heads[0]
        facts: dict[str, Any] = {"rule": "earliest arrival", "arrival": arrival}
        rival = min(self.heads[1:2] + self.heads[2:3], default=None)   # the heap's second least is a child of the root
        if rival is not None and rival[0] == arrival:
            facts["tied_with"] = self.engine.tenants[rival[1]].name
        return Decision(tenant, facts)

    def admit(self, running: Running) -> int:
        tenant = running.request.tenant
        heapq.heappop(self.heads)
        if self.engine.waiting(tenant):
            heapq.heappush(self.heads, (self.engine.head(tenant).arrival, tenant))
        return super().admit(running)


@words(
    group="article",
    label={"en": "VTC (virtual token counter)", "ja": "VTC（仮想トークンカウンター）"},
    summary={"en": "admit the oldest request of the waiting tenant with the least counter (ties: tenant order); "
                   "charge w_in*input at admission, w_out per token as generated; lift a returning tenant's counter",
             "ja": "カウンター最小の待ちテナント（同点はテナント順）の最古のリクエストを受け入れ、受け入れ時に"
                   " w_in*入力、生成のたびに w_out を課金します。戻ってきたテナントのカウンターは引き上げます"},
)
class VTC(TokenCounting):
    """Virtual Token Counter (Sheng et al., OSDI 2024): a counter per tenant. Admit the oldest request of the
    waiting tenant with the least counter (ties: tenant order) and charge it w_in × input; charge w_out per
    generated token, as it is generated (both divided by the tenant's weight). When a tenant with nothing
    waiting gets a request: if others are waiting, counter = max(counter, least counter among them); if none
    is waiting, counter = max(counter, largest counter among the tenants with a request in the batch); if
    nothing waits or runs, it is unchanged. So a tenant that was away cannot claim service it did not use.
    No output length is needed in advance: tokens are charged as they are really generated.
    Conventions: with ``lift`` waiting-only a tenant is lifted only when others wait (the artifact's rule); with
    ``ties`` first-arrival equal counters go to the tenant that first arrived earlier."""

    name = "vtc"
    parameter_names = VTC_PARAMETERS
    item_fields = ("weight",)
    lifts = True

    def __init__(self, engine: Engine) -> None:
        super().__init__(engine)
        self.queue: list[tuple[int, int, int]] = []     # (counter, rank, version) of the waiting tenants
        self.version = [0] * len(engine.tenants)        # an entry is live while its version is the tenant's

    def join(self, tenant: int) -> Lift | None:
        before = self.counter[tenant]
        least = self.least_waiting()
        if least is not None:
            rule, reference = "min_waiting", self.counter[least]
        elif self.engine.in_batch():
            rule, reference = "max_batch", max(self.counter[t] for t in self.engine.in_batch())
            if self.engine.lift_waiting_only:
                rule = "waiting_only"
        else:
            rule, reference = "none", None
        if reference is not None and rule != "waiting_only":
            self.counter[tenant] = max(self.counter[tenant], reference)
        self.refile(tenant)
        return Lift(rule, before, self.counter[tenant], reference)

    def pick(self, now: int) -> Decision:
        tenant = self.least_waiting()
        facts: dict[str, Any] = {"rule": "least counter", "counter": self.engine.exact(self.counter[tenant])}
        if self.engine.explaining:   # O(tenants): only for the sentence of a full trace
            tied = [t for t in self.engine.waiting_tenants() if t != tenant and self.counter[t] == self.counter[tenant]]
            if tied:
                facts["tied_with"] = self.engine.tenants[min(tied, key=self.engine.rank.__getitem__)].name
        return Decision(tenant, facts)

    def charge(self, tenant: int, units: int) -> None:
        super().charge(tenant, units)
        if units < 0 or not self.engine.waiting(tenant):
            self.refile(tenant)   # a refund lowers its key, and a tenant with nothing waiting leaves the queue;
            # a raise is filed lazily: least_waiting re-files an entry that surfaces below its tenant's counter

    def least_waiting(self) -> int | None:
        """The waiting tenant with the least (counter, rank). An entry's key never exceeds its tenant's counter
        (raises are filed late), so the first entry that is live and up to date is the least."""
        ranked = self.engine.ranked
        while self.queue:
            key, rank, version = self.queue[0]
            tenant = ranked[rank]
            if version != self.version[tenant]:
                heapq.heappop(self.queue)
            elif key != self.counter[tenant]:
                heapq.heapreplace(self.queue, (self.counter[tenant], rank, version))
            else:
                return tenant
        return None

    def refile(self, tenant: int) -> None:
        """File the tenant under its current counter if it waits (its older entry goes stale)."""
        self.version[tenant] += 1
        if self.engine.waiting(tenant):
            heapq.heappush(self.queue, (self.counter[tenant], self.engine.rank[tenant], self.version[tenant]))


@words(
    label={"en": "VTC with predicted output", "ja": "VTC（出力長の予測つき）"},
    summary={"en": "VTC, but charge w_out*predicted up front, then only tokens beyond it; refund the unused "
                   "prediction",
             "ja": "VTC と同じですが w_out*予測 を前払いし、予測を超えたトークンだけ課金し、使わなかった予測は"
                   "返します"},
)
class VTCPredict(VTC):
    """VTC with a predicted output length: at admission also charge w_out × predicted (the request's
    ``predicted``; else the scenario's ``prediction``; else the tenant's mean output so far, rounded half up,
    0 before any of its requests has finished), then charge only the generated tokens beyond the prediction, as
    they come, and refund the unused prediction at completion. The total charged for a request is the same
    as VTC's; only its timing differs: the cost is paid up front, as SFQ pays an estimate at dispatch."""

    name = "vtc-predict"
    parameter_names = (*VTC_PARAMETERS, "prediction")
    item_fields = ("weight", "predicted")

    def admit(self, running: Running) -> int:
        running.predicted = self.prediction(running.request)
        return super().admit(running) + self.engine.units(running.request.tenant, output_tokens=running.predicted)

    def generate(self, running: Running) -> int:
        # the tokens counted so far: without the first one when it is free, so the charges net to VTC's
        return super().generate(running) if running.generated - self.engine.free_tokens > running.predicted else 0

    def finish(self, running: Running) -> int:
        unused = max(0, running.predicted - (running.generated - self.engine.free_tokens))
        return -self.engine.units(running.request.tenant, output_tokens=unused)

    def prediction(self, request: Request) -> int:
        if request.predicted is not None:
            return request.predicted
        if self.engine.prediction is not None:
            return self.engine.prediction
        finished, tokens = self.engine.finished_outputs(request.tenant)
        return (2 * tokens + finished) // (2 * finished) if finished else 0


RULES: tuple[type[Policy], ...] = (FCFS, VTC, VTCPredict)   # menu order: the article's two first
POLICIES: dict[str, type[Policy]] = {rule.name: rule for rule in RULES}
