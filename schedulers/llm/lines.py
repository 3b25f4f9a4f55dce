"""How the LLM router asks its rules, for the source view (``schedulers.rule``).

A dispatch asks ``pick`` and ``charge`` (and ``leave`` when it emptied the tenant's queue, the final
``idle_reset`` when it is noted there), a join or an arrival ``arrive``, an idle reset ``idle_reset``; with servers, a
cancellation of a waiting request ``withdraw`` (the final ``idle_reset`` too when it emptied the last queue), and a
completion or a cancellation of a running request nothing.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..rule import RuleLines, RuleSource, Step, hooks
from .policies import POLICIES, Policy

USES = {"dispatch": ("pick", "charge"), "join": ("arrive",), "arrive": ("arrive",), "idle_reset": ("idle_reset",),
        "leave": ("leave",), "final_reset": ("idle_reset",), "cancel": ("withdraw",), "complete": ()}


def policy(algorithm: str, parameters: Mapping[str, Any] | None) -> type[Policy]:
    """The rule's class: the router makes it, with the scenario's parameters."""
    return POLICIES[algorithm]


def step_uses(source: RuleSource, step: Step, resumed: bool) -> list[str]:
    kinds = [step.get("kind")] if not step.get("running") else []   # a running request's cancellation asks nothing
    tenant = step.get("tenant")
    if kinds == ["dispatch"] and (step.get("queues") or {}).get(tenant, [None]) == []:
        kinds.append("leave")     # the dispatch emptied its queue (a compact trace does not say)
    if "final_reset" in step:
        kinds.append("final_reset")
    return hooks(USES, kinds)


LINES = RuleLines(protocol=Policy, uses=USES, policy=policy, step_uses=step_uses)
