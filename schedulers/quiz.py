"""Predict the next step: from a trace, the question before each step and its answer.

At step k the student sees step k - 1 (and the scenario: who arrives when) and picks what happens next. The
result's mode asks (``Steps.question``, in the mode's ``steps.py``): CPU, who runs over [k-1, k) among the tasks
present (with several CPUs, on the first CPU that takes a new task); the LLM router, which waiting tenant a
dispatch serves; the inference engine, which waiting tenant's request an admission takes. A step that offers fewer
than two candidates is no question.

The explanation is the core's own ``why`` for step k. A quiz needs the full trace (its queues and ready
lists); a compact one has no questions.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .modes import mode


@dataclass(frozen=True)
class Question:
    step: int                    # the step whose outcome is asked (the student sees step - 1)
    time: int                    # the instant (CPU), logical time (LLM) or iteration (engine) of the decision
    candidates: tuple[str, ...]
    answer: str
    why: Mapping[str, str]       # the core's explanation of step ``step``
    cpu: int | None = None       # with several CPUs, the CPU the question is about

    def grade(self, choice: str) -> bool:
        return choice == self.answer


def question(result: Mapping[str, Any], step: int) -> Question | None:
    """The question before ``step`` is revealed, or None when that step offers no choice."""
    if not 1 <= step < len(result["steps"]) or result.get("trace", {}).get("level") != "full":
        return None
    return mode(result["mode"]).steps.question(result, step)


def ask(step: int, time: int, candidates: Sequence[str], answer: str, why: Mapping[str, str],
        cpu: int | None = None) -> Question | None:
    return Question(step, time, tuple(candidates), answer, why, cpu) if len(candidates) >= 2 else None


def questions(result: Mapping[str, Any]) -> list[Question]:
    """Every question of a run, in step order."""
    found = (question(result, step) for step in range(1, len(result["steps"])))
    return [q for q in found if q is not None]


def next_question(result: Mapping[str, Any], after: int) -> Question | None:
    """The first question whose step comes after step ``after``."""
    found = (question(result, step) for step in range(after + 1, len(result["steps"])))
    return next((q for q in found if q is not None), None)
