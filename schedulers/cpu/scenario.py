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
from ..schema import Field, record

MAX_TASKS = 100_000          # tasks in one scenario
MAX_HORIZON = 1_000_000      # the last completion (every algorithm here keeps the CPU busy while work is
                             # ready, so this time is the same for all of them and is checked before running)
MAX_LEVELS = 16              # MLFQ queues
DEFAULT_QUANTUM = 2          # RR when the scenario gives none (stride's and lottery's is 1, MLFQ's quanta 1, 2, 4, ...)
DEFAULT_TICKETS = 100        # stride and lottery; with STRIDE1 = 10,000 (policies.Stride) the stride is 100
MAX_TICKETS = 1_000_000
MAX_SEED = 2**63 - 1
# Rules that compare every ready task at each decision (their order changes with time, or is drawn at
# random) may do at most this many task comparisons, counted on the worst case before running.
MAX_SCAN_WORK = 20_000_000

TASK = (   # a new task field is one line here (and its words in the app): the reader, Task and the results follow
    Field("name", "text", required=True),
    Field("arrival", "integer", required=True, minimum=0, maximum=MAX_HORIZON),
    Field("burst", "integer", required=True, minimum=1, maximum=MAX_HORIZON),
    Field("deadline", "integer", minimum=0, maximum=MAX_HORIZON),        # none: after every task with one
    Field("priority", "integer", default=0, minimum=0, maximum=MAX_HORIZON),
    Field("tickets", "integer", default=DEFAULT_TICKETS, minimum=1, maximum=MAX_TICKETS),
    Field("nice", "integer", default=0, minimum=-20, maximum=19),       # CFS and EEVDF: the weight's index
)
PARAMETERS = (   # one line each: the reader, Parameters, the defaults (docs/cpu.md) and the CLI option follow
    Field("quantum", "integer", minimum=1, maximum=MAX_HORIZON,        # no default: it depends on the algorithm
          help="time quantum for rr (default 2), stride and lottery (default 1), or every MLFQ level"),
    Field("aging", "integer", minimum=1, maximum=MAX_HORIZON,
          help="priority: one step better for every N time units waited"),
    Field("levels", "integer", default=3, minimum=1, maximum=MAX_LEVELS, help="MLFQ: number of levels"),
    Field("quanta", "integers", minimum=1, maximum=MAX_HORIZON, per="levels",
          help="MLFQ: quantum per level, comma-separated (default 1,2,4,...)"),
    Field("allotment", "integers", minimum=1, maximum=MAX_HORIZON, per="levels",
          help="MLFQ: quanta a task may use at a level before moving down (default 1)"),
    Field("boost", "integer", minimum=1, maximum=MAX_HORIZON,
          help="MLFQ: move every task to the top level every N time units (default never)"),
    Field("lottery_seed", "integer", default=0, minimum=0, maximum=MAX_SEED, help="lottery: the random seed"),
    Field("latency", "integer", default=6, minimum=1, maximum=MAX_HORIZON,
          help="cfs: the period shared out in proportion to weight"),
    Field("min_granularity", "integer", default=1, minimum=1, maximum=MAX_HORIZON,
          help="cfs: the shortest slice"),
    Field("slice", "integer", default=3, minimum=1, maximum=MAX_HORIZON,
          help="eevdf: the length of every request"),
)
TASK_FIELDS = tuple(f.name for f in TASK)
TASK_FIELD_SET = frozenset(TASK_FIELDS)
REQUIRED = tuple(f.name for f in TASK if f.required)
REQUIRED_SET = frozenset(REQUIRED)
SCENARIO_FIELDS = ("mode", "title", "description", "algorithm", "tasks", *(p.name for p in PARAMETERS))


@dataclass(eq=False, slots=True)
class Task(record("TaskFields", TASK, first=[("index", int)])):
    """One task: its input position ``index`` (the last tie-break), one attribute per field of ``TASK`` (None: not
    given), then the loop's bookkeeping for it."""
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


# The scenario-level settings, one attribute per field of PARAMETERS, each checked (read_parameters).
Parameters = record("Parameters", PARAMETERS, frozen=True, eq=True)


# How read_task reads the fields: first those that are not integers (the name) as their type says, then the integers
# by a fast path (a whole number in range is taken as it is), each in TASK's order; a field is named only if wrong.
INTEGERS = tuple((f.name, f.required, f.minimum, f.maximum) for f in TASK if f.type == "integer")
OTHERS = tuple(f for f in TASK if f.type != "integer")


def read_tasks(value: Any) -> list[Task]:
    items = fields.sequence(value, "tasks", minimum=1, maximum=MAX_TASKS)
    tasks = [read_task(index, raw) for index, raw in enumerate(items)]
    names = [task.name for task in tasks]
    if len(set(names)) < len(names):
        fields.unique_names(names, "tasks")
    return tasks


def read_task(index: int, raw: Any) -> Task:
    """One task, its fields checked against TASK (an optional one given as null is not given): 100,000 tasks are
    read in a blink."""
    if type(raw) is not dict or not raw.keys() <= TASK_FIELD_SET:
        where = f"tasks[{index}]"
        fields.known_keys(fields.mapping(raw, where), where, TASK_FIELDS)
    if not raw.keys() >= REQUIRED_SET:
        raise ScenarioError(f"tasks[{index}].{next(key for key in REQUIRED if key not in raw)}", "is missing")
    values: dict[str, Any] = {"index": index}
    for field in OTHERS:
        value = raw.get(field.name)
        if value is not None or field.required:
            values[field.name] = value if field.type == "text" and type(value) is str and value.isascii() \
                and 0 < len(value) <= fields.MAX_NAME_LENGTH and not value.isspace() \
                else fields.of_field(field, value, f"tasks[{index}].{field.name}")
    for key, required, low, high in INTEGERS:
        value = raw.get(key)
        if value is not None or required:
            values[key] = value if type(value) is int and low <= value <= high \
                else fields.integer(value, f"tasks[{index}].{key}", low, high)
    return Task(**values)


def read_parameters(scenario: Mapping[str, Any]) -> Parameters:
    """Every parameter, checked against its Field; one not given is its Field's default (None: the rule decides,
    as RR's quantum does). A list ``per`` another parameter has one item for each of its units (MLFQ's quanta, one
    per level), or is one integer for all of them."""
    values: dict[str, Any] = {}
    for field in sorted(PARAMETERS, key=lambda field: field.per is not None):   # the units before the lists
        value = scenario.get(field.name)
        values[field.name] = field.default if value is None else fields.of_field(
            field, value, field.name, None if field.per is None else values[field.per])
    return Parameters(**values)


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
