"""The one error every bad input becomes: a field name and what is wrong with it."""
from __future__ import annotations


class ScenarioError(ValueError):
    """A scenario (file, widget, URL query) that cannot run.

    ``field`` names where the problem is, in the scenario's own terms (``tasks[2].burst``,
    ``tenants[0].costs[3]``, ``quantum``); ``problem`` says what is wrong, in English.
    """

    def __init__(self, field: str, problem: str) -> None:
        super().__init__(f"{field}: {problem}")
        self.field = field
        self.problem = problem
