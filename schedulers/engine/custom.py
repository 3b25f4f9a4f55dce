"""An inference-engine policy of your own: define ``choose(waiting, time, state)`` and return a tenant's name; that
tenant's oldest waiting request takes the free batch slot. It is called, at iteration ``time``, each time a slot is
free and requests wait (``waiting``: those tenants, in tenant order, ``EngineTenantView``); no request's output
length is shown, as no built-in rule reads it. With ``memory``, a pick whose input does not fit stops admission for
the iteration and choose is asked again at the next one.

The sandbox, its limits and its errors are ``schedulers.custom``'s.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ..custom import CUSTOM, Custom, Program, checked_name, lines_of_call
from .policies import Decision, Policy, TokenCounting

PARAMETERS = ("waiting", "time", "state")
TEMPLATE = '''def choose(waiting, time, state):
    """Return the name of the tenant whose oldest waiting request
    takes the free slot of the batch at iteration time.

    waiting: tenants with waiting requests, in tenant order
             (each has name, index, weight, since, waiting,
             head_input, inputs, running, input_tokens,
             output_tokens, service)
    state:   a dict of your own, kept between calls
    """
    # The least service per weight so far, ties by tenant order:
    # VTC's choice, without its counter lifts.
    return min(waiting, key=lambda t: (t.service / t.weight, t.index)).name
'''


class EngineTenantView:
    """A tenant with waiting requests as your engine ``choose`` sees it (read-only): ``name``, ``index`` (tenant
    order: the built-in rules' tie-break), ``weight`` (a Fraction), ``since`` (the iteration its current backlog
    began), ``waiting`` (requests), ``head_input`` (input tokens of its oldest waiting request), ``inputs`` (every
    waiting request's input, FIFO order), ``running`` (its requests in the batch), ``input_tokens`` and
    ``output_tokens`` (admitted and generated so far) and ``service`` (w_in × input_tokens + w_out ×
    output_tokens, exact)."""
    __slots__ = ("name", "index", "weight", "since", "waiting", "head_input", "running", "input_tokens",
                 "output_tokens", "service", "_engine")

    def __init__(self, engine: Any, index: int, since: int) -> None:
        spec = engine.tenants[index]
        values = (spec.name, index, spec.weight, since, engine.waiting(index), engine.head(index).input,
                  engine.running_of[index], engine.input_tokens[index], engine.output_tokens[index],
                  engine.service(index), engine)
        for slot, value in zip(self.__slots__, values):
            object.__setattr__(self, slot, value)

    @property
    def inputs(self) -> tuple[int, ...]:
        return tuple(request.input for request in self._engine.queues[self.index])   # only when asked: O(queue)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"a tenant view is read-only ({name})")

    def __repr__(self) -> str:
        return f"EngineTenantView({self.name!r}, waiting={self.waiting}, head_input={self.head_input})"


def policy(program: Program, scenario: Mapping[str, Any]) -> Callable[[Any], Policy]:
    """A maker of ``Policy`` objects (the engine makes it) asking ``program`` per admission; each decision records
    which call of ``program`` made it (``call``: the source view's lines). It keeps the token counters as every
    built-in rule does (shown, never read: choose sees ``service`` instead)."""

    class YourPolicy(TokenCounting):
        name = CUSTOM

        def __init__(self, engine: Any) -> None:
            super().__init__(engine)
            self.since: dict[int, int] = {}    # waiting tenant -> the iteration its backlog began
            self.names = {tenant.name: tenant.order for tenant in engine.tenants}
            self.memory: dict[Any, Any] = {}   # the user's state argument

        def join(self, tenant: int) -> None:
            self.since[tenant] = self.engine.head(tenant).arrival

        def pick(self, now: int) -> Decision:
            waiting = {self.engine.tenants[i].name: i for i in self.engine.waiting_tenants()}
            call = len(program.lines)
            answer = program.call(now, tuple(EngineTenantView(self.engine, i, self.since[i])
                                             for i in waiting.values()), now, self.memory)
            tenant = checked_name(program, answer, now, ("tenant", "テナント"), self.names, waiting,
                                  ("waiting", "待ち"))
            return Decision(tenant, {"rule": "your choose()", "call": call})

        def admit(self, running: Any) -> int:
            tenant = running.request.tenant
            if not self.engine.waiting(tenant):
                del self.since[tenant]
            return super().admit(running)

    return YourPolicy


def lines(result: Mapping[str, Any], step: int) -> set[int]:
    """The lines your ``choose`` ran for the admission at ``step``: the call its decision names."""
    now = result["steps"][step]
    return lines_of_call(result, (now.get("decision") or {}).get("call") if now.get("kind") == "admit" else None)


CUSTOM_POLICY = Custom(parameters=PARAMETERS, template=TEMPLATE, policy=policy, lines=lines)
