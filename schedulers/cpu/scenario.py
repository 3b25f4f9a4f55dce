"""A CPU scenario as it comes from JSON, a widget or a URL: read, checked against the limits, made into tasks.

Every problem is a ``ScenarioError`` naming the field (``tasks[2].burst``, ``quanta[1]``, ``algorithm``).
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from .. import fields
from ..errors import ScenarioError
from ..schema import Field

MAX_TASKS = 100_000          # tasks in one scenario
MAX_HORIZON = 1_000_000      # the last completion (every algorithm here keeps the CPU busy while work is
                             # ready, so this time is the same for all of them and is checked before running)
MAX_LEVELS = 16              # MLFQ queues
DEFAULT_LEVELS = 3
DEFAULT_QUANTUM = 2          # RR when the scenario gives none (MLFQ's default quanta are 1, 2, 4, ...)
DEFAULT_TICKETS = 100        # stride and lottery; with STRIDE1 = 10,000 (stride.py) the stride is 100
DEFAULT_LATENCY = 6          # CFS: the period shared out among the runnable tasks in proportion to weight
DEFAULT_MIN_GRANULARITY = 1  # CFS: the shortest slice
DEFAULT_SLICE = 3            # EEVDF: the length of every request (Linux's base slice)
MAX_TICKETS = 1_000_000
MAX_SEED = 2**63 - 1
# Rules that compare every ready task at each decision (their order changes with time, or is drawn at
# random) may do at most this many task comparisons, counted on the worst case before running.
MAX_SCAN_WORK = 20_000_000

TASK = (
    Field("name", "text", required=True),
    Field("arrival", "integer", required=True, minimum=0, maximum=MAX_HORIZON),
    Field("burst", "integer", required=True, minimum=1, maximum=MAX_HORIZON),
    Field("deadline", "integer", minimum=0, maximum=MAX_HORIZON),        # none: after every task with one
    Field("priority", "integer", default=0, minimum=0, maximum=MAX_HORIZON),
    Field("tickets", "integer", default=DEFAULT_TICKETS, minimum=1, maximum=MAX_TICKETS),
    Field("nice", "integer", default=0, minimum=-20, maximum=19),       # CFS and EEVDF: the weight's index
)
PARAMETERS = (   # their defaults depend on the algorithm (docs/cpu.md): a result's "parameters" shows those used
    Field("quantum", "integer", minimum=1, maximum=MAX_HORIZON),
    Field("aging", "integer", minimum=1, maximum=MAX_HORIZON),
    Field("levels", "integer", default=DEFAULT_LEVELS, minimum=1, maximum=MAX_LEVELS),
    Field("quanta", "integers", minimum=1, maximum=MAX_HORIZON),
    Field("allotment", "integers", minimum=1, maximum=MAX_HORIZON),
    Field("boost", "integer", minimum=1, maximum=MAX_HORIZON),
    Field("lottery_seed", "integer", default=0, minimum=0, maximum=MAX_SEED),
    Field("latency", "integer", default=DEFAULT_LATENCY, minimum=1, maximum=MAX_HORIZON),
    Field("min_granularity", "integer", default=DEFAULT_MIN_GRANULARITY, minimum=1, maximum=MAX_HORIZON),
    Field("slice", "integer", default=DEFAULT_SLICE, minimum=1, maximum=MAX_HORIZON),
)
TASK_FIELDS = tuple(f.name for f in TASK)
TASK_FIELD_SET = frozenset(TASK_FIELDS)
REQUIRED = tuple(f.name for f in TASK if f.required)
REQUIRED_SET = frozenset(REQUIRED)
REQUIRED_NUMBERS = tuple((f.name, f.minimum, f.maximum) for f in TASK if f.required and f.type == "integer")
OPTIONAL_LIMITS = tuple((f.name, f.minimum, f.maximum) for f in TASK if not f.required)
SCENARIO_FIELDS = ("mode", "title", "description", "algorithm", "tasks", *(p.name for p in PARAMETERS))
LIMITS = {p.name: (p.minimum, p.maximum) for p in PARAMETERS}


@dataclass(eq=False, slots=True)
class Task:
    """One task and the engine's bookkeeping for it; ``index`` is its input position (the last tie-break)."""
    index: int
    name: str
    arrival: int
    burst: int
    deadline: int | None = None
    priority: int | None = None
    tickets: int | None = None
    nice: int | None = None
    remaining: int = 0
    first_run: int | None = None
    completion: int | None = None
    queued: int = 0                 # when it last joined the ready queue, as a running count: FIFO order
    slice_left: int | None = None   # time left of its current quantum (None: no quantum running)
    # Scratch space of the rules that keep per-task state (MLFQ level and allotment, stride pass, CFS's and
    # EEVDF's vruntime when the task had run nothing: where it was placed on arrival; EEVDF's virtual deadline).
    level: int = 0
    allotment_left: int = 0
    pass_value: Fraction = Fraction(0)
    vruntime_base: int | Fraction = 0
    virtual_deadline: int | Fraction = 0

    def __post_init__(self) -> None:
        self.remaining = self.burst


@dataclass(frozen=True, slots=True)
class Parameters:
    """Scenario-level settings, each already checked; the algorithm reads the ones it needs."""
    quantum: int | None = None
    aging: int | None = None
    levels: int | None = None
    quanta: tuple[int, ...] | None = None
    allotment: tuple[int, ...] | None = None
    boost: int | None = None
    lottery_seed: int | None = None
    latency: int | None = None
    min_granularity: int | None = None
    slice: int | None = None


def read_tasks(value: Any) -> list[Task]:
    items = fields.sequence(value, "tasks", minimum=1, maximum=MAX_TASKS)
    tasks = [read_task(index, raw) for index, raw in enumerate(items)]
    names = [task.name for task in tasks]
    if len(set(names)) < len(names):
        fields.unique_names(names, "tasks")
    return tasks


def read_task(index: int, raw: Any) -> Task:
    """One task; its fields are Task's first fields, in TASK's order."""
    if type(raw) is not dict or not raw.keys() <= TASK_FIELD_SET:
        where = f"tasks[{index}]"
        fields.known_keys(fields.mapping(raw, where), where, TASK_FIELDS)
    if not raw.keys() >= REQUIRED_SET:
        raise ScenarioError(f"tasks[{index}].{next(key for key in REQUIRED if key not in raw)}", "is missing")
    return Task(index, checked_name(raw["name"], index),
                *[checked(raw[key], index, key, minimum, maximum) for key, minimum, maximum in REQUIRED_NUMBERS],
                *[None if raw.get(key) is None else checked(raw[key], index, key, minimum, maximum)
                  for key, minimum, maximum in OPTIONAL_LIMITS])


def checked(value: Any, index: int, key: str, minimum: int, maximum: int) -> int:
    """``fields.integer`` with a fast path for the common case (100,000 tasks are read in a blink)."""
    if type(value) is int and minimum <= value <= maximum:
        return value
    return fields.integer(value, f"tasks[{index}].{key}", minimum, maximum)


def checked_name(value: Any, index: int) -> str:
    """``fields.name`` with a fast path for the common case, a short ASCII name (its field named only if wrong)."""
    if type(value) is str and value.isascii() and len(value) <= fields.MAX_NAME_LENGTH and not value.isspace() \
            and value:
        return value
    return fields.name(value, f"tasks[{index}].name")


def per_level(value: Any, field_name: str, levels: int, default: list[int]) -> tuple[int, ...]:
    """One positive integer for every level, or one integer for all of them."""
    if value is None:
        return tuple(default)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return (fields.integer(value, field_name, *LIMITS[field_name]),) * levels
    items = fields.sequence(value, field_name, minimum=levels, maximum=levels)
    return tuple(fields.integer(v, f"{field_name}[{i}]", *LIMITS[field_name]) for i, v in enumerate(items))


def read_parameters(scenario: Mapping[str, Any]) -> Parameters:
    def optional(key: str) -> int | None:
        value = scenario.get(key)
        return None if value is None else fields.integer(value, key, *LIMITS[key])

    quantum = optional("quantum")
    levels = optional("levels") or DEFAULT_LEVELS
    quanta = per_level(scenario.get("quanta"), "quanta", levels,
                       [quantum] * levels if quantum else [2 ** level for level in range(levels)])
    return Parameters(quantum=quantum, aging=optional("aging"), levels=levels, quanta=quanta,
                      allotment=per_level(scenario.get("allotment"), "allotment", levels, [1] * levels),
                      boost=optional("boost"), lottery_seed=optional("lottery_seed"), latency=optional("latency"),
                      min_granularity=optional("min_granularity"), slice=optional("slice"))


def makespan(tasks: list[Task]) -> int:
    """The last completion, the same under every rule that never idles while work is ready."""
    end = 0
    for task in sorted(tasks, key=lambda task: task.arrival):
        end = max(end, task.arrival) + task.burst
    return end


def check_horizon(tasks: list[Task]) -> int:
    end = makespan(tasks)
    if end > MAX_HORIZON:
        raise ScenarioError("tasks", f"the last task would complete at t={end}, past the documented horizon "
                                     f"of {MAX_HORIZON} time units")
    return end
