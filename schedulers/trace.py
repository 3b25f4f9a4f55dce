"""Questions about a result at one of its steps: what has happened by then. The app only formats the answers.

Every function takes a result as ``simulate`` returns it (docs/trace-format.md) and a step index into its
``steps``; step 0 is the initial state. The result's mode answers, through its ``Steps`` (``Mode.steps``, made in
the mode's ``steps.py``, which also holds the questions only that mode is asked: the LLM router's fairness so far,
the inference engine's service so far); a result of a mode the registry does not know is a ScenarioError naming it.
``span`` says what stretch of time a step shows, the lab's one time convention (docs/trace-format.md "Time on screen").
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from .modes import mode

Result = Mapping[str, Any]
Step = Mapping[str, Any]


def no_question(result: Result, step: int) -> None:
    """A mode without quiz questions."""
    return None


def never(result: Result, step: int) -> bool:
    return False


@dataclass(frozen=True)
class Steps:
    """A mode's answers to the questions every mode's steps are asked."""
    span: Callable[[Step], tuple[int | None, int]]   # one step -> the time it shows: (None, 0) before t=0
    pending: Callable[[Result, int], set[str]]       # the items (tasks, tenants) with work left after a step
    aligner: Callable[[Result, Result], Callable[[int], int]]   # step_aligner's answer for a run of this mode
    question: Callable[[Result, int], Any] = no_question        # the quiz's question before a step (quiz.Question)
    resumes_quantum: Callable[[Result, int], bool] = never      # the step's dispatch resumes a cut quantum


def steps_of(result: Result) -> Steps:
    return mode(result["mode"]).steps


def span(result: Result, step: int) -> tuple[int | None, int]:
    """The time step ``step`` shows: ``(None, 0)`` for the initial state, before t=0 (nothing has arrived or run);
    else ``(start, end)``, an instant when they are equal (an LLM dispatch at t), the slice [start, end) otherwise
    (CPU step k: [k-1, k), whose decision was taken at its start)."""
    return steps_of(result).span(result["steps"][step])


def pending(result: Result, step: int) -> set[str]:
    """The tasks (CPU) or tenants with work left after ``step``."""
    return steps_of(result).pending(result, step)


def step_aligner(left: Result, right: Result) -> Callable[[int], int]:
    """``left``'s step -> the step of ``right`` (another run of the same workload) to show beside it, as ``left``'s
    mode aligns: CPU, the last one whose time is not later; LLM, the one after the same number of dispatches (each
    router sends one request per time unit, so that is the fair moment to compare; with servers on either side, the last
    one whose time is not later, as the runs then dispatch at different times); the engine, the same moment of
    its iterations. ``right`` is indexed once, so aligning every step of a run (the app's frames) costs O(n log n),
    not O(n^2)."""
    return steps_of(left).aligner(left, right)


def aligned_step(left: Result, step: int, right: Result) -> int:
    """``step_aligner`` at one step."""
    return step_aligner(left, right)(step)


def resumes_quantum(result: Result, step: int) -> bool:
    """The task dispatched at ``step`` goes on with the rest of a quantum that a preemption cut short (CPU's MLFQ
    keeps it) instead of starting a new one; False in a mode without quanta."""
    return steps_of(result).resumes_quantum(result, step)


def policy_lines(result: Result, step: int) -> set[int]:
    """A policy of your own: the lines of its code that its ``choose`` ran for the decision shown at ``step``
    (``Custom.lines``). Empty when it was not called there, or in a mode that offers no policy of your own."""
    custom = mode(result["mode"]).custom
    return custom.lines(result, step) if custom is not None else set()
