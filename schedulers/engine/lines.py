"""How the inference engine asks its rules, for the source view (``schedulers.rule``).

An admission asks ``pick``, ``admit`` and ``charge``; a decode (or a prefill) ``generate`` and ``charge``, ``finish``
when a request finished, and ``pick`` when the pick did not fit in memory (``blocked``); a tenant that had nothing
waiting asks ``join``, shown on its ``lift`` step for a rule that lifts counters (``lifts``), else on its ``arrive``
step.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..rule import RuleLines, RuleSource, Step, hooks
from .policies import POLICIES, Policy

USES = {"arrive": ("join",), "lift": ("join",), "admit": ("pick", "admit", "charge"), "decode": ("generate", "charge"),
        "prefill": ("generate", "charge"), "finish": ("finish",), "blocked": ("pick",)}


def policy(algorithm: str, parameters: Mapping[str, Any] | None) -> type[Policy]:
    """The rule's class: the engine makes it, with the scenario's parameters."""
    return POLICIES[algorithm]


def step_uses(source: RuleSource, step: Step, resumed: bool) -> list[str]:
    kind = step.get("kind")
    kinds = [kind] if kind != "arrive" or (step.get("joined") and not source.policy.lifts) else []
    kinds += (["finish"] if step.get("finished") else []) + (["blocked"] if step.get("blocked") else [])
    return hooks(USES, kinds)


LINES = RuleLines(protocol=Policy, uses=USES, policy=policy, step_uses=step_uses)
