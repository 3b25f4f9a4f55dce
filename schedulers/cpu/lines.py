"""How the CPU loop asks its rules, for the source view (``schedulers.rule``).

A dispatch asks ``key`` (a heap rule's order; a scanning rule's ``choose``, which then decides instead of ``key``)
and ``quantum`` (unless the task resumes a quantum it had left); a preemption, and a task that continues under a
preemptive rule, ask ``key`` for the best ready task and ``preempts`` whether it takes over -- but only at an
instant where something happened (an arrival, a boost) or, for a rule whose order changes with time (priority with
aging), at every instant: in between, the loop does not look again. The events ask their hooks (``admit``,
``expire``, ``complete``, ``at_instant``); step 0 asks ``start`` (Stride's scale). A ready queue that keeps the
rule's order asks as tasks join (a heap's ``key``, lottery's ``tickets``, HRRN's ``cohort``): that is bookkeeping,
its answer at a decision is the deciding. ``streak`` is asked only by a run without a trace, which has no step to
mark.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..rule import RuleLines, RuleSource, Step, hooks
from .policies import Policy, make_policy
from .scenario import read_parameters

USES = {"initial": ("start",), "dispatch": ("choose", "key", "quantum"), "preempt": ("preempts", "key"),
        "continue": ("preempts", "key"), "arrive": ("admit",), "expire": ("expire",), "demote": ("expire",),
        "boost": ("at_instant",), "complete": ("complete",), "block": ("block",), "return": ("wake",)}


def policy(algorithm: str, parameters: Mapping[str, Any] | None) -> Policy:
    """The rule object, with a result's ``parameters`` (else the defaults)."""
    return make_policy(algorithm, read_parameters(parameters or {}))


def has_code(rule: type, name: str, owner: type, preemptive: bool) -> bool:
    """The protocol's ``preempts`` compares keys: a preemptive rule's real decision. A heap rule never calls
    ``choose``: the heap orders by key."""
    if name == "choose" and not rule.dynamic:
        return False
    return owner is not Policy or (name == "preempts" and preemptive)


def step_uses(source: RuleSource, step: Step, resumed: bool) -> list[str]:
    decision, events = step.get("decision"), step.get("events", [])
    looked = decision != "continue" or (
        source.preemptive and step.get("ready") != []
        and (source.every_instant or any(event["time"] == step["time"] - 1 for event in events)))
    kinds = ([decision] if looked else []) + [event["kind"] for event in events]
    names = [name for name in hooks(USES, kinds) if not (resumed and name == "quantum")]
    if decision == "dispatch" and "choose" in source.methods:
        names = [name for name in names if name != "key"]   # a scanning rule (lottery) decides in choose
    if "boost" in kinds and step.get("running") is not None and "quantum" not in names:
        names.append("quantum")   # a boost gives every task, the running one too, a fresh quantum
    return names


LINES = RuleLines(protocol=Policy, uses=USES, policy=policy, step_uses=step_uses, has_code=has_code)
