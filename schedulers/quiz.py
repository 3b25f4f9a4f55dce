"""Predict the next step: from a trace, the question before each step and its answer.

At step k the student sees step k - 1 (and the scenario: who arrives when) and picks who runs next:

- CPU: the candidates are the tasks present at instant k - 1 after its arrivals -- the ready queue of step
  k and the task that runs over [k-1, k) -- in input order; the answer is the task that runs (step k's
  ``running``). Steps with fewer than two candidates are no question (nothing to choose), nor is a step at
  whose instant nothing happened (no arrival, requeue, expiry or completion, and the running task continues):
  nothing could have changed since the step before.
- LLM: at a dispatch step, the candidates are the tenants with waiting requests just before it (step
  k - 1's queues), in tenant order; the answer is the tenant dispatched. Only dispatches with at least two
  waiting tenants are questions.
- Engine: at an admission step, the candidates are the tenants with waiting requests just before it (step
  k - 1's ``waiting``), in tenant order; the answer is the tenant whose request takes the slot.

The explanation is the core's own ``why`` for step k. A quiz needs the full trace (its queues and ready
lists); a compact one has no questions.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Question:
    step: int                    # the step whose outcome is asked (the student sees step - 1)
    time: int                    # the instant (CPU), logical time (LLM) or iteration (engine) of the decision
    candidates: tuple[str, ...]
    answer: str
    why: Mapping[str, str]       # the core's explanation of step ``step``

    def grade(self, choice: str) -> bool:
        return choice == self.answer


def question(result: Mapping[str, Any], step: int) -> Question | None:
    """The question before ``step`` is revealed, or None when that step offers no choice."""
    steps = result["steps"]
    if not 1 <= step < len(steps) or result.get("trace", {}).get("level") != "full":
        return None
    if result["mode"] == "cpu":
        now = steps[step]
        if now["running"] is None:
            return None
        if now["decision"] == "continue" and not any(event["time"] == step - 1 for event in now["events"]):
            return None
        present = {*now["ready"], now["running"]}
        candidates = tuple(task["name"] for task in result["tasks"] if task["name"] in present)
        return ask(step, step - 1, candidates, now["running"], now["why"])
    now, before = steps[step], steps[step - 1]
    if result["mode"] == "engine":
        if now["kind"] != "admit":
            return None
        candidates = tuple(name for name, queue in before["waiting"].items() if queue)
        return ask(step, now["iteration"], candidates, now["tenant"], now["why"])
    if now["kind"] != "dispatch":
        return None
    candidates = tuple(name for name, costs in before["queues"].items() if costs)
    return ask(step, now["time"], candidates, now["tenant"], now["why"])


def ask(step: int, time: int, candidates: Sequence[str], answer: str, why: Mapping[str, str]) -> Question | None:
    return Question(step, time, tuple(candidates), answer, why) if len(candidates) >= 2 else None


def questions(result: Mapping[str, Any]) -> list[Question]:
    """Every question of a run, in step order."""
    found = (question(result, step) for step in range(1, len(result["steps"])))
    return [q for q in found if q is not None]


def next_question(result: Mapping[str, Any], after: int) -> Question | None:
    """The first question whose step comes after step ``after``."""
    found = (question(result, step) for step in range(after + 1, len(result["steps"])))
    return next((q for q in found if q is not None), None)
