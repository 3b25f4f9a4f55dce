"""An LLM router policy of your own: define ``choose(waiting, time, state)`` and return a tenant's name; that
tenant's oldest waiting request (its FIFO head) is dispatched. It is called once per dispatch; ``waiting`` lists the
tenants with waiting requests, in tenant order (``TenantView``).

The sandbox, its limits and its errors are ``schedulers.custom``'s.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..custom import CUSTOM, Custom, Program, checked_name, lines_at, lines_of_call
from ..narration import Messages, say
from .policies import Decision, Policy

PARAMETERS = ("waiting", "time", "state")
MESSAGES: Messages = {
    "picked": {"en": "t={t}: your choose() picked {tenant}; its head request (cost {cost}) is dispatched.",
               "ja": "t={t}: あなたの choose() が {tenant} を選び、先頭リクエスト（コスト {cost}）を送ります。"},
}
TEMPLATE = '''def choose(waiting, time, state):
    """Return the name of the tenant whose oldest request goes next.

    waiting: tenants with waiting requests, in tenant order
             (each has name, index, weight, since, waiting,
             head_cost, costs, dispatched, charged)
    state:   a dict of your own, kept between calls
    """
    # Per-tenant round robin: the next tenant after the last one served.
    last = state.get("last", -1)
    later = [t for t in waiting if t.index > last]
    chosen = later[0] if later else waiting[0]
    state["last"] = chosen.index
    return chosen.name
'''


class TenantView:
    """A tenant with waiting requests as your ``choose`` sees it (read-only): ``name``, ``index`` (tenant
    order: the built-in rules' tie-break), ``weight`` (a Fraction), ``since`` (when its current backlog began:
    it went from empty to waiting then), ``waiting`` (requests), ``head_cost``, ``costs`` (every waiting
    request's cost, FIFO order), ``dispatched`` and ``charged`` (requests and cost sent so far)."""
    __slots__ = ("name", "index", "weight", "since", "waiting", "head_cost", "dispatched", "charged", "_router")

    def __init__(self, router: Any, index: int, since: int) -> None:
        spec = router.tenants[index]
        values = (spec.name, index, spec.weight, since, router.waiting(index), router.head_cost(index),
                  router.dispatched[index], router.charged[index], router)
        for slot, value in zip(self.__slots__, values):
            object.__setattr__(self, slot, value)

    @property
    def costs(self) -> tuple[int, ...]:
        return tuple(self._router.queue_costs(self.index))   # computed only when asked: O(queue)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"a tenant view is read-only ({name})")

    def __repr__(self) -> str:
        return f"TenantView({self.name!r}, waiting={self.waiting}, head_cost={self.head_cost})"


def policy(program: Program, scenario: Mapping[str, Any]) -> Callable[[Any], Policy]:
    """A maker of ``Policy`` objects (the router makes it) asking ``program`` per dispatch."""

    class YourPolicy(Policy):
        name = CUSTOM

        def __init__(self, router: Any) -> None:
            super().__init__(router)
            self.since: dict[int, int] = {}    # waiting tenant -> when its backlog began
            self.names = {tenant.name: tenant.order for tenant in router.tenants}
            self.memory: dict[Any, Any] = {}   # the user's state argument

        def arrive(self, tenant: int, requests: Sequence[int], joined: bool) -> None:
            if joined:
                self.since[tenant] = self.router.tenants[tenant].arrivals[requests[0]]

        def pick(self, now: int) -> Decision:
            call = len(program.lines)   # with servers several picks share a time: the decision names its call
            waiting = {self.name_of(i): i for i in sorted(self.since)}
            answer = program.call(now, tuple(TenantView(self.router, i, self.since[i]) for i in waiting.values()),
                                  now, self.memory)
            tenant = checked_name(program, answer, now, ("tenant", "テナント"), self.names, waiting,
                                  ("waiting", "待ち"))
            facts: dict[str, Any] = {"rule": "your choose()"}
            if self.router.servers is not None:
                facts["call"] = call
            return Decision(tenant, self.router.head(tenant), facts)

        def leave(self, tenant: int) -> None:
            del self.since[tenant]

        def withdraw(self, tenant: int, request: int, emptied: bool) -> None:
            if emptied:
                del self.since[tenant]

        def explain(self, now: int, decision: Decision) -> dict[str, str]:
            cost = self.router.tenants[decision.tenant].costs[decision.request]
            return say(MESSAGES, "picked", t=now, tenant=self.name_of(decision.tenant), cost=cost)

    return YourPolicy


def lines(result: Mapping[str, Any], step: int) -> set[int]:
    """The lines your ``choose`` ran for the dispatch at ``step`` (none at a step that dispatches nothing)."""
    now = result["steps"][step]
    if now.get("kind") != "dispatch":
        return set()
    call = (now.get("decision") or {}).get("call")
    return lines_at(result, now["time"]) if call is None else lines_of_call(result, call)


CUSTOM_POLICY = Custom(parameters=PARAMETERS, template=TEMPLATE, policy=policy, lines=lines)
