"""What an algorithm and a mode are, for the command line, ``simulate`` and the app's menus, and how exact numbers
are written out.

Every rule class carries its own menu entry as class attributes (``name``, ``group``, ``label``, ``summary``,
``parameter_names``, ``item_fields``), its words set by ``words`` above it; ``catalogue`` reads them, so a new rule
is one class in its mode's ``policies.py``.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .custom import Custom
    from .rule import RuleLines
    from .schema import Field, Results, Schema
    from .trace import Steps


WORDS = ("group", "label", "summary", "rule", "keep")


def words(**entry: Any) -> Callable[[type], type]:
    """A rule's words, set on its class from above it: its menu entry's ``group`` ("article" or "more"), ``label``
    and ``summary`` ({"en": ..., "ja": ...}), and for a CPU rule the ``rule`` and ``keep`` sentences of the steps'
    explanations (templates its ``parameters()`` fill, RR's ``{quantum}``). The class body keeps only what decides:
    the source view shows the class from its ``class`` line (``schedulers.rule``)."""
    unknown = set(entry) - set(WORDS)
    if unknown:
        raise TypeError(f"words() takes {', '.join(WORDS)}, not {', '.join(sorted(unknown))}")

    def attach(rule: type) -> type:
        for key, value in entry.items():
            setattr(rule, key, value)
        return rule
    return attach


@dataclass(frozen=True)
class Algorithm:
    name: str                      # the CLI/JSON/URL name, e.g. "srtf"
    mode: str                      # "cpu", "llm" or "engine"
    group: str                     # "article" (the article's four) or "more"
    label: dict[str, str]          # {"en": ..., "ja": ...}, short, for menus
    summary: dict[str, str]        # {"en": ..., "ja": ...}, one line: the exact rule and tie-breaks
    parameters: tuple[str, ...] = ()   # scenario-level parameters it reads, e.g. ("quantum",)
    item_fields: tuple[str, ...] = field(default=())  # optional task/tenant fields it reads, e.g. ("deadline",)


def catalogue(mode: str, rules: Iterable[type]) -> dict[str, Algorithm]:
    """The menu of ``mode``, in the order of ``rules``, from each rule class's own entry."""
    return {rule.name: Algorithm(name=rule.name, mode=mode, group=rule.group, label=dict(rule.label),
                                 summary=dict(rule.summary), parameters=rule.parameter_names,
                                 item_fields=rule.item_fields)
            for rule in rules}


@dataclass(frozen=True)
class Mode:
    """One mode of the lab as ``simulate``, ``algorithms``, ``schema``, ``python -m schedulers`` and the shared modules
    reach it (``schedulers.modes.MODES``); each mode package defines its ``MODE``. Whatever a shared module would
    otherwise decide by the mode's name is one of these fields: a shared module asks the mode, never names it."""
    name: str                                          # "cpu": the CLI's sub-command, the JSON's "mode"
    description: str                                   # one line, for --help
    algorithms: Mapping[str, Algorithm]                # menu order, the article's first
    schema: Schema                                     # the scenario's fields
    run: Callable[..., dict[str, Any]]                 # run(scenario, trace=True, policy=None) -> the JSON result
    render_text: Callable[[Mapping[str, Any], str], str]   # the result as text, in "en" or "ja"
    exercise: Callable[[int], dict[str, Any]]          # the seeded random scenario (--seed)
    text_needs_steps: bool                             # render_text prints the steps: else the CLI runs without them
    results: Results                                   # a result's rows and their columns (exports, tables)
    steps: Steps                                       # the answers to schedulers.trace's questions (and the quiz's)
    lines: RuleLines                                   # how the loop asks a rule: schedulers.rule's deciding lines
    custom: Custom | None = None                       # a policy of your own (schedulers.custom); None: not offered
    exercise_sizes: tuple[Field, ...] = ()             # exercise's keyword sizes, one Field each (--jobs N with --seed)
    render_problem: Callable[[Mapping[str, Any], Mapping[str, Any], str], str] | None = None
    # (scenario, result, lang) -> the exercise's items and questions without the answers (--problem)
    render_trace: Callable[[Mapping[str, Any], str], str] | None = None   # (result, lang) -> a line per event (--trace)
    trace_scenario: Mapping[str, Any] = field(default_factory=dict)   # what --trace adds to the scenario


def json_number(value: Fraction | int) -> int | float:
    """An exact rational as a JSON number: an int when whole, else the nearest float."""
    if isinstance(value, int):
        return value
    return value.numerator if value.denominator == 1 else value.numerator / value.denominator


def json_plain(value: Any) -> Any:
    """``value`` (maps and lists of anything) with every Fraction written as a JSON number."""
    if isinstance(value, Fraction):
        return json_number(value)
    if isinstance(value, dict):
        return {k: json_plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [json_plain(v) for v in value]
    return value
