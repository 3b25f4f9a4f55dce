"""The toy mode's rules: which waiting job the printer prints next. A rule is a ``Policy`` class; the loop calls
``pick(waiting, now)`` when the printer is free and jobs wait, and prints the job it names to the end."""
from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from schedulers.catalog import words

if TYPE_CHECKING:
    from . import Job


class Policy:
    """The protocol: a rule's name, and the job it picks among those waiting (in arrival, then input order)."""
    name = ""
    group = "more"
    label = {"en": "", "ja": ""}
    summary = {"en": "", "ja": ""}
    parameter_names: tuple[str, ...] = ()
    item_fields: tuple[str, ...] = ()

    def pick(self, waiting: Sequence[Job], now: int) -> Job:
        raise NotImplementedError


@words(group="article", label={"en": "First in", "ja": "先着"},
       summary={"en": "the job that arrived first", "ja": "最初に届いたジョブ"})
class FirstIn(Policy):
    """The job that arrived first; ties: input order."""
    name = "first"

    def pick(self, waiting: Sequence[Job], now: int) -> Job:
        return waiting[0]


@words(label={"en": "Fewest pages", "ja": "最少ページ"},
       summary={"en": "the job with the fewest pages; ties: arrival, input", "ja": "ページ数が最少のジョブ"})
class FewestPages(Policy):
    """The job with the fewest pages; ties: earlier arrival, then input order."""
    name = "fewest"

    def pick(self, waiting: Sequence[Job], now: int) -> Job:
        return min(waiting, key=lambda job: (job.pages, job.arrival, job.index))


RULES = (FirstIn, FewestPages)
POLICIES = {rule.name: rule for rule in RULES}
