"""The one loop every admission rule runs in: an inference engine with continuous batching, time in decode
iterations.

In each iteration i, in this order:
  1. the requests arriving at i join their tenant's FIFO queue, tenant by tenant in tenant order (a step
     ``arrive``); for a tenant that had nothing waiting the rule's ``join`` runs (VTC's lift: a step ``lift``);
  2. while a slot is free and requests wait, the rule picks a tenant and its oldest waiting request takes the
     lowest free slot (a step ``admit``), unless, with ``memory``, its input + 1 does not fit beside the tokens
     the batch holds: then admission stops for this iteration (no other request is taken in its place);
  3. every running request generates one token, charged as the rule says; a request that has generated its
     ``output`` tokens finishes and frees its slot at the end of the iteration (one step ``decode``);
  4. if nothing runs or waits, time jumps to the next arrival (a step ``idle``, once something has run).

With ``loop`` prefill-decode (the artifact's router loop) steps 2 and 3 are instead one of: a **prefill** (admit as
in 2, then only the requests just admitted generate their first token: a step ``prefill``), taken when the batch
is empty or has made ``decodes_between_prefills`` decodes since its last prefill, and admission found a request;
else a **decode** of the running requests only (a step ``decode``). With ``reserve`` input+output a pick is admitted
only while the batch's peak (``peak_with``) stays below ``memory``; with ``charge_first_token`` false a request's
first token is never charged.

Time is t = the iteration (docs/trace-format.md "Time on screen", ``trace.span``): arrivals, lifts and admissions
happen at the instant t, a decode step is the iteration t → t+1, an idle step the jump from t to the next arrival;
each step's sentence starts with ``t=`` its start (``record`` writes it).

The trace has three levels, as in LLM mode: ``full`` (every step with the batch, the queues, every tenant's
counter and service, and a sentence) while an upper bound on its size stays within ``TRACE_BUDGET``; ``compact``
(every step, with only the counters the step changed, no batch, queues or sentences); ``none`` (no steps).
"""
from __future__ import annotations

import heapq
import math
from collections import deque
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from ..catalog import json_number, json_plain
from ..narration import TENANT_ORDER_TIE, join, say, show
from ..recording import FULL, NONE, ExactUnits, arrival_events, level, put
from .fairness import PairBacklog
from .policies import Decision, Lift, Policy
from .scenario import Request, Scenario

TRACE_BUDGET = 1_000_000   # numbers a full trace may hold; above it the trace is compact
NAMED_CHARGES = 6          # a decode sentence names at most this many tenants' charges


@dataclass(slots=True)
class Running:
    request: Request
    slot: int
    admitted: int                   # the iteration it was admitted in
    generated: int = 0              # output tokens so far
    predicted: int | None = None    # vtc-predict's prediction, charged at admission


class Engine(ExactUnits):
    def __init__(self, scenario: Scenario, policy: type[Policy], trace: bool = True) -> None:
        self.tenants = scenario.tenants
        self.slots, self.memory, self.prediction = scenario.slots, scenario.memory, scenario.prediction
        self.w_in, self.w_out = scenario.w_in, scenario.w_out
        # Counters are integers in units of 1/scale: tokens × (a/b) / (p/q) is a whole number of units when scale is
        # a multiple of b × p, for w = a/b in (w_in, w_out) and every weight p/q.
        self.scale = math.lcm(self.w_in.denominator, self.w_out.denominator) \
            * math.lcm(*(t.weight.numerator for t in self.tenants))
        self.in_unit = [self.per_token(self.w_in, t.weight) for t in self.tenants]
        self.out_unit = [self.per_token(self.w_out, t.weight) for t in self.tenants]
        self.queues: list[deque[Request]] = [deque() for _ in self.tenants]
        self.waiting_total = 0
        self.free = list(range(self.slots))          # a heap: the lowest free slot is taken first
        self.active: list[Running] = []
        self.running_of = [0] * len(self.tenants)   # running requests per tenant
        self.batch_tenants: set[int] = set()         # tenants with a request in the batch
        self.held = 0                                # tokens the batch holds: inputs + tokens generated so far
        self.input_tokens = [0] * len(self.tenants)
        self.output_tokens = [0] * len(self.tenants)
        self.finished_count = [0] * len(self.tenants)
        self.finished_tokens = [0] * len(self.tenants)
        self.admissions: list[dict[str, Any]] = []
        self.outcome: dict[tuple[int, int], dict[str, Any]] = {}   # (tenant, request) -> admitted, slot, finished
        self.level = level(trace, trace_size(scenario), TRACE_BUDGET)
        self.explaining = self.level == FULL
        self.steps: list[dict[str, Any]] = []
        # The conventions (docs/engine.md "The conventions"); at the lab's, every test below is the old loop's.
        self.lift_waiting_only = scenario.lift == "waiting-only"
        self.free_tokens = 0 if scenario.charge_first_token else 1   # a request's first tokens that are not charged
        self.phased = scenario.loop == "prefill-decode"
        self.between = scenario.decodes_between_prefills
        self.decodes = 0                             # decodes since the last prefill (prefill-decode)
        self.reserve_whole = scenario.reserve == "input+output"
        # VTC's tie order: rank[tenant], and ranked[rank] the tenant; by first arrival, a rank is given at arrival
        self.by_arrival = scenario.ties == "first-arrival"
        self.rank: list[int] = list(range(len(self.tenants)))
        self.ranked: list[int] = list(range(len(self.tenants)))
        self.arrived: set[int] = set()
        self.policy = policy(self)
        self.pair = PairBacklog(self, scenario.compare)
        self.busy_iterations = 0
        self.slot_iterations = 0                     # sum over iterations of the running requests
        self.last_iteration = -1

    def per_token(self, w: Fraction, weight: Fraction) -> int:
        units = w * self.scale / weight
        assert units.denominator == 1, "scale is a multiple of every denominator involved"
        return units.numerator

    # --- what rules read ----------------------------------------------------------------------------------

    def units(self, tenant: int, input_tokens: int = 0, output_tokens: int = 0) -> int:
        """(w_in × input_tokens + w_out × output_tokens) / weight of ``tenant``, in units of 1/scale."""
        return input_tokens * self.in_unit[tenant] + output_tokens * self.out_unit[tenant]

    def waiting(self, tenant: int) -> int:
        return len(self.queues[tenant])

    def head(self, tenant: int) -> Request:
        return self.queues[tenant][0]

    def waiting_tenants(self) -> list[int]:
        return [t.order for t in self.tenants if self.queues[t.order]]

    def in_batch(self) -> set[int]:
        return self.batch_tenants

    def finished_outputs(self, tenant: int) -> tuple[int, int]:
        """How many of the tenant's requests have finished, and their output tokens in all."""
        return self.finished_count[tenant], self.finished_tokens[tenant]

    # --- the loop ---------------------------------------------------------------------------------------

    def run(self) -> None:
        self.record("initial", 0, [], say(MESSAGES, "initial", tenants=len(self.tenants), slots=self.slots))
        arrivals = arrival_events(self.tenants, lambda tenant: [request.arrival for request in tenant.requests])
        now, next_arrival = 0, 0
        while next_arrival < len(arrivals) or self.waiting_total or self.active:
            if not self.waiting_total and not self.active:
                coming = arrivals[next_arrival][0]
                if self.admissions and coming > now:
                    self.record("idle", now, [], say(MESSAGES, "idle", until=coming), until=coming)
                now = max(now, coming)
            while next_arrival < len(arrivals) and arrivals[next_arrival][0] == now:
                _, tenant, positions = arrivals[next_arrival]
                self.arrive(now, tenant, self.tenants[tenant].requests[positions.start:positions.stop])
                next_arrival += 1
            if self.phased:
                self.phase(now)
            else:
                self.decode(now, self.admit_all(now))
            now += 1

    def phase(self, now: int) -> None:
        """Iteration ``now`` under prefill-decode: a prefill when the batch is empty or has made its decodes and a
        request is admitted; else a decode of the running requests."""
        blocked = None
        if not self.active or self.decodes >= self.between:
            start = len(self.active)
            blocked = self.admit_all(now)
            if len(self.active) > start:
                self.decodes = 0
                self.decode(now, blocked, start)
                return
        self.decodes += 1
        self.decode(now, blocked)

    def arrive(self, now: int, tenant: int, requests: list[Request]) -> None:
        if self.by_arrival and tenant not in self.arrived:
            self.rank[tenant] = len(self.arrived)
            self.ranked[len(self.arrived)] = tenant
            self.arrived.add(tenant)
        joined = not self.queues[tenant]
        self.queues[tenant].extend(requests)
        self.waiting_total += len(requests)
        name = self.tenants[tenant].name
        self.record("arrive", now, [tenant], say(MESSAGES, "arrive", tenant=name, count=len(requests),
                                                 waiting=len(self.queues[tenant])),
                    tenant=name, requests=[r.index for r in requests], joined=joined)
        lift = self.policy.join(tenant) if joined else None
        if lift is not None:
            self.record("lift", now, [tenant], self.lift_sentence(name, lift), tenant=name,
                        lift=self.lift_facts(lift))

    def admit_all(self, now: int) -> dict[str, Any] | None:
        """Step 2: admit while a slot is free and requests wait; returns what did not fit in memory, if anything."""
        while self.free and self.waiting_total:
            decision = self.policy.pick(now)
            request = self.head(decision.tenant)
            if self.memory is not None:
                if self.reserve_whole:
                    peak = self.peak_with(request)
                    if peak >= self.memory:
                        return {"tenant": self.tenants[request.tenant].name, "request": request.index,
                                "reserve": "input+output", "peak": peak, "memory": self.memory}
                elif self.held + request.input + 1 > self.memory:
                    return {"tenant": self.tenants[request.tenant].name, "request": request.index,
                            "need": request.input + 1, "free": max(0, self.memory - self.held)}
            self.admit(now, request, decision)
        return None

    def after_first(self, running: Running) -> int:
        """The rule's charge for a token, with charge_first_token false: nothing for a request's first."""
        return self.policy.generate(running) if running.generated > 1 else 0

    def peak_with(self, request: Request) -> int:
        """The most tokens the batch would hold, with ``request`` admitted, if every request ran to its output (the
        artifact's estimate, reserve input+output): a request holds input + its tokens so far (a new one input + 1,
        its first token) and grows by one per iteration for output − 1 − generated more, then frees all of it. The
        peak comes as a request ends: with the k requests of most iterations left, the k-th's left × k + their
        holdings."""
        growing = [(r.request.output - 1 - r.generated, r.request.input + (r.generated or 1)) for r in self.active]
        growing.append((request.output - 1, request.input + 1))
        growing.sort(reverse=True)   # most iterations left first (among equals the order does not change the peak)
        peak = held = 0
        for k, (left, holds) in enumerate(growing, 1):
            held += holds
            peak = max(peak, left * k + held)
        return peak

    def admit(self, now: int, request: Request, decision: Decision) -> None:
        tenant = request.tenant
        self.queues[tenant].popleft()
        self.waiting_total -= 1
        running = Running(request, heapq.heappop(self.free), now)
        self.active.append(running)
        self.running_of[tenant] += 1
        self.batch_tenants.add(tenant)
        self.held += request.input
        self.input_tokens[tenant] += request.input
        charged = self.policy.admit(running)
        self.policy.charge(tenant, charged)
        name, amount = self.tenants[tenant].name, self.exact(charged)
        entry = {"iteration": now, "tenant": name, "request": request.index, "slot": running.slot,
                 "input": request.input, "charged": json_number(amount)}
        if running.predicted is not None:
            entry["predicted"] = running.predicted
        entry["exact"] = {"charged": str(amount)}
        self.admissions.append(entry)
        self.outcome[tenant, request.index] = {"admitted": now, "slot": running.slot}
        if self.level == NONE:
            return
        why = None
        if self.explaining:
            why = join(self.admit_sentence(now, running, decision), self.charge_sentence(running, charged))
        facts = {key: entry[key] for key in ("request", "slot", "input", "predicted") if key in entry}
        self.record("admit", now, [tenant], why, tenant=name, **facts, charged=amount, decision=decision.facts)

    def decode(self, now: int, blocked: dict[str, Any] | None, start: int | None = None) -> None:
        """Step 3: one token for every running request, its charge, and the requests that finish. A prefill
        (``start``: where the requests just admitted begin in ``active``) gives a token to those only."""
        charged: dict[int, int] = {}
        tokens: dict[int, int] = {}
        uncharged: dict[int, int] = {}
        still: list[Running] = []
        finished: list[Running] = []
        generate = self.policy.generate if not self.free_tokens else self.after_first
        generating = self.active if start is None else self.active[start:]
        # prefill-decode: a decode while a slot is free and requests wait, not asked to admit (the convention decides)
        held_back = self.phased and start is None and blocked is None and bool(self.free) and self.waiting_total > 0
        for running in generating:
            running.generated += 1
            tenant = running.request.tenant
            if tenant in tokens:
                tokens[tenant] += 1
                charged[tenant] += generate(running)
            else:
                tokens[tenant] = 1
                charged[tenant] = generate(running)
            (finished if running.generated == running.request.output else still).append(running)
        if self.free_tokens:
            for running in generating:
                if running.generated == 1:
                    tenant = running.request.tenant
                    uncharged[tenant] = uncharged.get(tenant, 0) + 1
        self.busy_iterations += 1
        self.slot_iterations += len(generating)
        self.held += len(generating)
        self.active = still if start is None else self.active[:start] + still
        refunds: dict[int, int] = {}
        for running in sorted(finished, key=lambda r: r.slot):
            tenant = running.request.tenant
            refunds[tenant] = refunds.get(tenant, 0) + self.policy.finish(running)
            heapq.heappush(self.free, running.slot)
            self.held -= running.request.input + running.generated
            self.running_of[tenant] -= 1
            if not self.running_of[tenant]:
                self.batch_tenants.discard(tenant)
            self.finished_count[tenant] += 1
            self.finished_tokens[tenant] += running.generated
            self.outcome[tenant, running.request.index]["finished"] = now
        for tenant, count in tokens.items():
            self.output_tokens[tenant] += count
            self.policy.charge(tenant, charged[tenant] + refunds.get(tenant, 0))
        self.last_iteration = now
        gap = self.pair.observe(now)
        if self.level == NONE:
            return
        names = self.tenants
        facts: dict[str, Any] = {
            "tokens": {names[t].name: n for t, n in tokens.items()},
            "charged": {names[t].name: self.exact(u) for t, u in charged.items()},
            "finished": [{"tenant": names[r.request.tenant].name, "request": r.request.index, "slot": r.slot,
                          "output": r.request.output} for r in sorted(finished, key=lambda r: r.slot)]}
        if any(refunds.values()):
            facts["refunds"] = {names[t].name: self.exact(-u) for t, u in refunds.items() if u}
        if uncharged:
            facts["uncharged"] = {names[t].name: n for t, n in uncharged.items()}
        if blocked is not None:
            facts["blocked"] = blocked
        if self.phased and start is None:
            facts["since_prefill"] = self.decodes
            if held_back:
                facts["held_back"] = True
        if gap is not None:
            facts["fairness"] = gap
        why = self.decode_sentence(now, tokens, charged, finished, refunds, blocked, uncharged, start, held_back) \
            if self.explaining else None
        self.record("decode" if start is None else "prefill", now, list(tokens), why, **facts)

    # --- the trace ----------------------------------------------------------------------------------------

    def record(self, kind: str, now: int, acting: list[int], why: dict[str, str] | None, **facts: Any) -> None:
        if self.level == NONE:
            return
        step: dict[str, Any] = {"step": len(self.steps), "kind": kind, "iteration": now}
        exact: dict[str, Any] = {}
        for key, value in facts.items():
            if key in EXACT_KEYS:
                put(step, exact, key, value)
            else:
                step[key] = json_plain(value)
        shown = range(len(self.tenants)) if self.level == FULL else acting
        put(step, exact, "counters", {self.tenants[t].name: self.exact(self.policy.counter[t]) for t in shown})
        if self.level == FULL:
            put(step, exact, "service", {t.name: self.service(t.order) for t in self.tenants})
            step["slots"] = [None] * self.slots
            for running in self.active:
                step["slots"][running.slot] = {"tenant": self.tenants[running.request.tenant].name,
                                               "request": running.request.index, "generated": running.generated,
                                               "output": running.request.output}
            step["waiting"] = {t.name: [r.index for r in self.queues[t.order]] for t in self.tenants}
            step["batch_tokens"] = self.held
        step["exact"] = exact
        # The time convention (docs/trace-format.md "Time on screen", trace.span): a sentence starts with its
        # step's start.
        step["why"] = None if not self.explaining else why if kind == "initial" \
            else {lang: f"t={now}: {text}" for lang, text in why.items()}
        self.steps.append(step)

    def service(self, tenant: int) -> Fraction | int:
        """w_in × input tokens admitted + w_out × output tokens generated so far (not divided by the weight)."""
        value = self.w_in * self.input_tokens[tenant] + self.w_out * self.output_tokens[tenant]
        return value.numerator if value.denominator == 1 else value

    def lift_facts(self, lift: Lift) -> dict[str, Any]:
        reference = None if lift.reference is None else self.exact(lift.reference)
        return {"rule": lift.rule, "before": self.exact(lift.before), "after": self.exact(lift.after),
                "reference": reference, "raised": lift.after > lift.before}

    def lift_sentence(self, name: str, lift: Lift) -> dict[str, str] | None:
        if not self.explaining:
            return None
        key = "lift_none" if lift.rule == "none" else "lift_waiting_only" if lift.rule == "waiting_only" else \
            f"lift_{'min' if lift.rule == 'min_waiting' else 'max'}_{'raised' if lift.after > lift.before else 'kept'}"
        reference = None if lift.reference is None else show(self.exact(lift.reference))
        return say(MESSAGES, key, tenant=name, old=show(self.exact(lift.before)), new=show(self.exact(lift.after)),
                   reference=reference)

    def admit_sentence(self, now: int, running: Running, decision: Decision) -> dict[str, str]:
        request, name = running.request, self.tenants[running.request.tenant].name
        facts = decision.facts
        if facts.get("rule") == "least counter":
            sentence = say(MESSAGES, "admit_counter", tenant=name, counter=show(facts["counter"]),
                           request=request.index, input=request.input, slot=running.slot)
        elif facts.get("rule") == "earliest arrival":
            sentence = say(MESSAGES, "admit_fcfs", tenant=name, arrival=facts["arrival"],
                           request=request.index, slot=running.slot)
        else:
            sentence = say(MESSAGES, "admit", tenant=name, request=request.index, slot=running.slot)
        if "tied_with" in facts:
            key = "tie_first_arrival" if self.by_arrival and facts.get("rule") == "least counter" else "tie"
            sentence = join(sentence, say(MESSAGES, key, tenant=name, other=facts["tied_with"]))
        return sentence

    def charge_sentence(self, running: Running, charged: int) -> dict[str, str]:
        request, tenant = running.request, self.tenants[running.request.tenant]
        formula = f"{show(self.w_in)} × {request.input}"
        if running.predicted is not None:
            formula += f" + {show(self.w_out)} × {running.predicted}"
        if tenant.weight != 1:
            formula = f"({formula}) / {show(tenant.weight)}"
        key = "charge_predicted" if running.predicted is not None else "charge"
        return say(MESSAGES, key, tenant=tenant.name, formula=formula, charge=show(self.exact(charged)),
                   after=show(self.exact(self.policy.counter[tenant.order])), predicted=running.predicted)

    def decode_sentence(self, now: int, tokens: dict[int, int], charged: dict[int, int], finished: list[Running],
                        refunds: dict[int, int], blocked: dict[str, Any] | None, uncharged: dict[int, int],
                        start: int | None, held_back: bool) -> dict[str, str]:
        parts = []
        if blocked is not None:
            parts.append(say(MESSAGES, "blocked_peak" if "peak" in blocked else "blocked", **blocked))
        listed = sorted(tokens)[:NAMED_CHARGES]
        shown = {lang: ", ".join(say(MESSAGES, "tenant_charge", tenant=self.tenants[t].name, tokens=tokens[t],
                                     charge=show(self.exact(charged[t])))[lang] for t in listed)
                 + ("…" if len(tokens) > NAMED_CHARGES else "") for lang in ("en", "ja")}
        if start is not None:
            parts.append(say(MESSAGES, "prefill" if start else "prefill_empty", count=sum(tokens.values()),
                             running=start, charges=shown))
        else:
            parts.append(say(MESSAGES, "decode", count=sum(tokens.values()), charges=shown))
            if self.phased:
                parts.append(say(MESSAGES, "held_back" if held_back else "since_prefill", decodes=self.decodes,
                                 between=self.between, waiting=self.waiting_total))
        if uncharged:
            parts.append(say(MESSAGES, "uncharged", count=sum(uncharged.values())))
        for running in sorted(finished, key=lambda r: r.slot):
            parts.append(say(MESSAGES, "finish", tenant=self.tenants[running.request.tenant].name,
                             request=running.request.index, output=running.request.output, slot=running.slot))
        for tenant, units in refunds.items():
            if units:
                parts.append(say(MESSAGES, "refund", tenant=self.tenants[tenant].name, refund=show(self.exact(-units))))
        return join(*parts)


EXACT_KEYS = frozenset({"counters", "service", "charged", "refunds", "lift"})   # a step's facts with "p/q" forms


def trace_size(scenario: Scenario) -> int:
    """A bound on a full trace's size: at most 1 + 3 steps per request (arrive, lift, admit) + one decode step per
    generated token, each with a slot per slot, the waiting requests, and two numbers per tenant."""
    requests = scenario.requests
    steps = 1 + 3 * len(requests) + sum(r.output for r in requests)
    return steps * (scenario.slots + len(requests) + 2 * len(scenario.tenants))


MESSAGES = {
    "initial": {"en": "Before t=0: {tenants} {tenants:tenant|tenants}, {slots} {slots:slot|slots} in the batch, "
                      "nothing has arrived yet.",
                "ja": "t=0 の前: テナント {tenants} 個、バッチのスロット {slots} 個。まだ何も届いていません。"},
    "arrive": {"en": "{count} {count:request|requests} from {tenant} {count:arrives|arrive}; {waiting} of its "
                     "requests {waiting:waits|wait}.",
               "ja": "{tenant} のリクエストが {count} 件届きます (待ちは {waiting} 件)。"},
    "lift_min_raised": {"en": "{tenant} had nothing waiting and others wait: its counter is lifted from {old} to "
                              "{new}, the least waiting counter, so it cannot claim service it did not use.",
                        "ja": "{tenant} は待ちがなく、他のテナントが待っているので、カウンターを {old} から"
                              "待ちテナントの最小値 {new} に引き上げます。使わなかった分を後から取り戻すことは"
                              "できません。"},
    "lift_min_kept": {"en": "{tenant} had nothing waiting and others wait: its counter {old} is already at least the "
                            "least waiting counter, {reference}, so it stays.",
                      "ja": "{tenant} は待ちがなく、他のテナントが待っています。カウンター {old} はすでに待ちテナントの"
                            "最小値 {reference} 以上なので、そのままです。"},
    "lift_max_raised": {"en": "{tenant} had nothing waiting and nobody else waits: its counter is lifted from {old} to "
                              "{new}, the largest counter in the batch.",
                        "ja": "{tenant} は待ちがなく、他にも誰も待っていないので、カウンターを {old} からバッチ内の"
                              "最大値 {new} に引き上げます。"},
    "lift_max_kept": {"en": "{tenant} had nothing waiting and nobody else waits: its counter {old} is already at least "
                            "the largest counter in the batch, {reference}, so it stays.",
                      "ja": "{tenant} は待ちがなく、他にも誰も待っていません。カウンター {old} はすでにバッチ内の"
                            "最大値 {reference} 以上なので、そのままです。"},
    "lift_none": {"en": "{tenant} had nothing waiting, and nothing waits or runs: its counter stays at {old}.",
                  "ja": "{tenant} は待ちがなく、待ちも実行中もないので、カウンターは {old} のままです。"},
    "admit_counter": {"en": "{tenant} has the least counter among the waiting tenants, {counter}, so its "
                            "oldest request #{request} (input {input}) takes slot {slot}.",
                      "ja": "待ちテナントの中で {tenant} のカウンター {counter} が最小なので、最も古い"
                            "リクエスト #{request} (入力 {input}) がスロット {slot} に入ります。"},
    "admit_fcfs": {"en": "{tenant}'s request #{request} arrived first (at t={arrival}), so it takes slot {slot}.",
                   "ja": "{tenant} のリクエスト #{request} が最も早く届いた (t={arrival}) ので、スロット {slot} に"
                         "入ります。"},
    "admit": {"en": "{tenant}'s request #{request} takes slot {slot}.",
              "ja": "{tenant} のリクエスト #{request} がスロット {slot} に入ります。"},
    "tie": TENANT_ORDER_TIE,
    "tie_first_arrival": {"en": "({other} was level; {tenant} first arrived earlier, and ties = first-arrival, the "
                                "artifact's order, breaks the tie by that.)",
                          "ja": "({other} と同点です。ties = first-arrival (アーティファクトの順序) により、"
                                "先に初めて届いた {tenant} が先です。)"},
    "lift_waiting_only": {"en": "{tenant} had nothing waiting and nobody else waits: with lift = waiting-only (the "
                                "artifact's rule) its counter stays at {old}; the lab's rule would lift it to "
                                "{reference}, the largest counter in the batch.",
                          "ja": "{tenant} は待ちがなく、他にも誰も待っていません。lift = waiting-only "
                                "(アーティファクトの規則) なので、カウンターは {old} のままです。ラボの規則なら"
                                "バッチ内の最大値 {reference} に引き上げます。"},
    "blocked_peak": {"en": "{tenant}'s request #{request} would bring the batch's peak, with every request run to its "
                           "output, to {peak} {peak:token|tokens}, not below memory = {memory} (reserve = "
                           "input+output), so no more requests are admitted in this iteration.",
                     "ja": "{tenant} のリクエスト #{request} を入れると、すべてのリクエストが出力を終えるまでのバッチの"
                           "最大量が {peak} トークンになり、メモリ {memory} 未満になりません (reserve = "
                           "input+output)。この反復ではこれ以上受け入れません。"},
    "prefill": {"en": "Prefill: the {count} {count:request|requests} just admitted {count:reads its|read their} "
                      "input and {count:generates its|generate their} first token, charged {charges}; the {running} "
                      "running {running:request waits|requests wait} for the next decode (loop = prefill-decode).",
                "ja": "プリフィル: 受け入れたばかりの {count} 件が入力を読み最初のトークンを生成し、{charges} を課金"
                      "します。実行中の {running} 件は次のデコードまで待ちます (loop = prefill-decode)。"},
    "prefill_empty": {"en": "Prefill: the batch was empty, so the {count} {count:request|requests} just admitted "
                            "{count:reads its|read their} input and {count:generates its|generate their} first "
                            "token at once, charged {charges} (loop = prefill-decode).",
                      "ja": "プリフィル: バッチが空だったので、受け入れたばかりの {count} 件がすぐに入力を読み最初の"
                            "トークンを生成し、{charges} を課金します (loop = prefill-decode)。"},
    "since_prefill": {"en": "This is decode {decodes} since the last prefill (loop = prefill-decode).",
                      "ja": "前回のプリフィルから {decodes} 回目のデコードです (loop = prefill-decode)。"},
    "held_back": {"en": "A slot is free and {waiting} {waiting:request waits|requests wait}, but with loop = "
                        "prefill-decode a running batch takes new requests only after {between} "
                        "{between:decode|decodes} since its last prefill; this is decode {decodes}.",
                  "ja": "スロットが空き {waiting} 件が待っていますが、loop = prefill-decode では実行中のバッチは前回の"
                        "プリフィルから {between} 回デコードした後にだけ新しいリクエストを受け入れます。これは "
                        "{decodes} 回目です。"},
    "uncharged": {"en": "{count} first {count:token is|tokens are} not charged (charge_first_token = "
                        "false, as the artifact's prefill token).",
                  "ja": "最初のトークン {count} 個は課金しません (charge_first_token = false。アーティファクトの"
                        "プリフィルのトークンと同じ)。"},
    "charge": {"en": "It is charged w_in × input = {formula} = {charge}: {tenant}'s counter becomes {after}.",
               "ja": "w_in × 入力 = {formula} = {charge} を課金し、{tenant} のカウンターは {after} になります。"},
    "charge_predicted": {"en": "It is charged w_in × input + w_out × predicted = {formula} = {charge} (a prediction of "
                               "{predicted} {predicted:token|tokens}, paid up front): {tenant}'s counter becomes "
                               "{after}.",
                         "ja": "w_in × 入力 + w_out × 予測 = {formula} = {charge} を前払いで課金し (予測 {predicted} "
                               "トークン)、{tenant} のカウンターは {after} になります。"},
    "blocked": {"en": "{tenant}'s request #{request} needs {need} {need:token|tokens} of memory but only "
                      "{free} {free:is|are} free, so no more requests are admitted in this iteration.",
                "ja": "{tenant} のリクエスト #{request} にはメモリが {need} トークン必要ですが空きは {free} "
                      "なので、この反復ではこれ以上受け入れません。"},
    "tenant_charge": {"en": "{tenant} +{charge} ({tokens} {tokens:token|tokens})",
                      "ja": "{tenant} +{charge} ({tokens} トークン)"},
    "decode": {"en": "{count} running {count:request generates|requests generate} one token each, charged {charges}.",
               "ja": "実行中の {count} 件がそれぞれ 1 トークンを生成し、{charges} を課金します。"},
    "finish": {"en": "{tenant} #{request} has generated its {output} {output:token|tokens} and frees slot {slot}.",
               "ja": "{tenant} #{request} は {output} トークンを生成し終え、スロット {slot} を空けます。"},
    "refund": {"en": "{tenant} gets back the unused prediction, {refund}.",
               "ja": "{tenant} に使わなかった予測分 {refund} を返します。"},
    "idle": {"en": "Nothing runs or waits; the next request arrives at t={until}, so time jumps there.",
             "ja": "実行中も待ちもありません。次のリクエストは t={until} に届くので、そこまで時刻を進めます。"},
}
