"""A CPU scenario as it comes from JSON, a widget or a URL: read, checked against the limits, made into tasks.

Every problem is a ``ScenarioError`` naming the field (``tasks[2].burst``, ``quanta[1]``, ``algorithm``).
"""
from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
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
MAX_SWITCH_COST = 1_000
MAX_BURSTS = 1_000           # CPU and I/O bursts of one task
MAX_CPUS = 8
QUEUE_KINDS = ("global", "per-cpu")   # several CPUs: one ready queue for all, or one per CPU
ON_MISS = ("continue", "abort")   # a periodic job past its deadline: runs to completion, or is dropped there
MAX_CLASSES = 16             # MLQ classes
MLQ_RULES = ("fcfs", "sjf", "srtf", "rr", "priority")   # the rules an MLQ class may have (policies.MLQ)
MAX_SECTIONS = 100           # critical sections of one task
PROTOCOLS = ("none", "inheritance", "ceiling")   # how a lock holder's priority changes (docs/cpu.md "Locks")
SECTION = (   # one critical section: the task's CPU units start .. start + length - 1 (from 0 in its burst) hold it
    Field("resource", "text", required=True),
    Field("start", "integer", required=True, minimum=0, maximum=MAX_HORIZON),
    Field("length", "integer", required=True, minimum=1, maximum=MAX_HORIZON),
)

TASK = (   # a new task field is one line here (and its words in the app): the reader, Task and the results follow
    Field("name", "text", required=True),
    Field("arrival", "integer", required=True, minimum=0, maximum=MAX_HORIZON),
    Field("burst", "integer", required=True, minimum=1, maximum=MAX_HORIZON),
    # CPU, I/O, CPU, ..., CPU (odd length), or its compact text (BURSTS_FORM); [n] is burst n
    Field("bursts", "integers", minimum=1, maximum=MAX_HORIZON, instead_of=("burst",)),
    Field("deadline", "integer", minimum=0, maximum=MAX_HORIZON),        # none: after every task with one
    Field("priority", "integer", default=0, minimum=0, maximum=MAX_HORIZON),
    Field("tickets", "integer", default=DEFAULT_TICKETS, minimum=1, maximum=MAX_TICKETS),
    Field("nice", "integer", default=0, minimum=-20, maximum=19),       # CFS and EEVDF: the weight's index
    # MLQ: the task's class, 0 the highest; ``class`` is a Python keyword, so a Task holds it as ``class_``
    Field("class", "integer", default=0, minimum=0, maximum=MAX_CLASSES - 1, attribute="class_"),
    # periodic (docs/cpu.md "Periodic tasks and the deadline branch"): a job of burst units released every period from
    # arrival, due relative_deadline (default: the period) after its release, instead of one absolute deadline
    Field("period", "integer", minimum=1, maximum=MAX_HORIZON, instead_of=("deadline",)),
    Field("relative_deadline", "integer", minimum=1, maximum=MAX_HORIZON, instead_of=("deadline",)),
    # locks (docs/cpu.md "Locks and priority inversion"): the task's critical sections, nested or apart
    Field("sections", "records", fields=SECTION, maximum=MAX_SECTIONS),
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
    # MLQ: one record per class, 0 the highest: its rule and that rule's own parameters (rr's quantum, priority's
    # aging); in JSON a list of objects or the compact text (fields.records), which is also how its default is given
    Field("classes", "records", default="rr:quantum=2;fcfs", minimum=1, maximum=MAX_CLASSES, fields=(
        Field("rule", "choice", required=True, choices=MLQ_RULES),
        Field("quantum", "integer", minimum=1, maximum=MAX_HORIZON),
        Field("aging", "integer", minimum=1, maximum=MAX_HORIZON)),
          metavar="RULE[:quantum=N];...", help="MLQ: each class's rule, 0 the highest, as rule:name=value;... "
                                             "(fcfs, sjf, srtf, rr with its quantum, priority with its aging)"),
    Field("lottery_seed", "integer", default=0, minimum=0, maximum=MAX_SEED, help="lottery: the random seed"),
    Field("latency", "integer", default=6, minimum=1, maximum=MAX_HORIZON,
          help="cfs: the period shared out in proportion to weight"),
    Field("min_granularity", "integer", default=1, minimum=1, maximum=MAX_HORIZON,
          help="cfs: the shortest slice"),
    Field("slice", "integer", default=3, minimum=1, maximum=MAX_HORIZON,
          help="eevdf: the length of every request"),
    Field("io_resets_allotment", "boolean", default=False,
          help="MLFQ: a task that blocks before its quantum ends keeps its level with a fresh allotment (OSTEP -S)"),
    Field("io_to_front", "boolean", default=False,
          help="MLFQ: a task returning from I/O goes to the front of its level (OSTEP -I)"),
    Field("switch_cost", "integer", default=0, minimum=0, maximum=MAX_SWITCH_COST,
          help="time units a context switch takes (a dispatch of a task other than the one that ran last)"),
    Field("cpus", "integer", default=1, minimum=1, maximum=MAX_CPUS,
          help="CPUs sharing one ready queue (docs/cpu.md, Several CPUs)"),
    Field("queues", "choice", default="global", choices=QUEUE_KINDS, metavar="global|per-cpu",
          help="several CPUs: one global ready queue, or one queue per CPU (docs/cpu.md, Per-CPU queues and stealing)"),
    Field("steal", "boolean", default=False,
          help="per-cpu queues: a free CPU whose queue is empty takes the tail task of the longest queue"),
    Field("step_details", "boolean", default=False,
          help="full steps also carry the running task's quantum (and MLFQ allotment) left and lottery's draw"),
    Field("horizon", "integer", minimum=1, maximum=MAX_HORIZON,   # default: lcm of the periods + latest first release
          help="periodic tasks: releases before this time happen (default: the periods' lcm + the latest first "
               "release)"),
    Field("on_miss", "choice", default="continue", choices=ON_MISS, metavar="continue|abort",
          help="periodic tasks: a job past its deadline runs on (continue) or is dropped there (abort)"),
    Field("protocol", "choice", default="none", choices=PROTOCOLS, metavar="none|inheritance|ceiling",
          help="locks: a holder keeps its priority (none), takes that of the tasks it blocks (inheritance) or its "
               "resources' ceiling (ceiling)"),
    Field("conventions", "text", default="lab", metavar="NAME",
          help='how ties at one instant are broken: "lab" or "ostep" (in JSON also a mapping of the three flags)'),
)
TASK_FIELDS = tuple(f.name for f in TASK)
TASK_FIELD_SET = frozenset(TASK_FIELDS)
REQUIRED = tuple(f.name for f in TASK if f.required)
REQUIRED_SET = frozenset(REQUIRED)
SCENARIO_FIELDS = ("mode", "title", "description", "algorithm", "tasks", *(p.name for p in PARAMETERS))


@dataclass(eq=False, slots=True)
class Task(record("TaskFields", TASK, first=[("index", int)])):
    """One task: its input position ``index`` (the last tie-break), one attribute per field of ``TASK`` (None: not
    given; ``bursts`` only for a task that does I/O), then the loop's bookkeeping for it. While it runs, ``burst``
    and ``remaining`` are those of its current CPU burst (what SJF, SRTF and HRRN read)."""
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
    # I/O: the position of the current CPU burst in ``bursts``, the I/O bursts still to come, the CPU and I/O
    # time of the bursts done, when it last joined the ready queue, and (while blocked) when it returns.
    phase: int = 0
    blocks_left: int = 0
    cpu_done: int = 0
    io_done: int = 0
    ready_since: int = 0
    io_until: int | None = None
    owner: int | None = None        # a periodic scenario's job: the input position of the task it is of

    def __post_init__(self) -> None:
        self.remaining = self.burst
        self.ready_since = self.arrival
        if self.bursts is not None:
            self.blocks_left = len(self.bursts) // 2

    @property
    def ran(self) -> int:
        """CPU time run so far, over every burst."""
        return self.cpu_done + self.burst - self.remaining

    @property
    def cpu(self) -> int:
        """The CPU time the task needs in all."""
        return self.burst if self.bursts is None else sum(self.bursts[::2])

    @property
    def io(self) -> int:
        """The I/O time the task does in all."""
        return 0 if self.bursts is None else sum(self.bursts[1::2])


# The scenario-level settings, one attribute per field of PARAMETERS, each checked (read_parameters).
Parameters = record("Parameters", PARAMETERS, frozen=True, eq=True)


# How read_task reads the fields: first those that are not integers (the name) as their type says, then the integers
# by a fast path (a whole number in range is taken as it is), each in TASK's order; a field is named only if wrong.
INTEGERS = tuple((f.name, f.attr, f.required, f.minimum, f.maximum) for f in TASK if f.type == "integer")
OTHERS = tuple(f for f in TASK if f.type not in ("integer", "integers"))   # bursts: read_bursts


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
    values: dict[str, Any] = {"index": index}
    if "bursts" in raw:
        if "burst" in raw:
            raise ScenarioError(f"tasks[{index}].bursts", "give either burst or bursts, not both")
        bursts = read_bursts(raw["bursts"], f"tasks[{index}].bursts")
        values["burst"] = bursts[0]
        if len(bursts) > 1:   # bursts [n] is burst n
            values["bursts"] = bursts
    if not raw.keys() >= REQUIRED_SET and not (values.keys() | raw.keys()) >= REQUIRED_SET:
        raise ScenarioError(f"tasks[{index}].{next(key for key in REQUIRED if key not in raw)}", "is missing")
    for field in OTHERS:
        value = raw.get(field.name)
        if value is not None or field.required:
            values[field.attr] = value if field.type == "text" and type(value) is str and value.isascii() \
                and 0 < len(value) <= fields.MAX_NAME_LENGTH and not value.isspace() \
                else fields.of_field(field, value, f"tasks[{index}].{field.name}")
    for key, attr, required, low, high in INTEGERS:
        value = raw.get(key)
        if value is not None or (required and key not in values):
            values[attr] = value if type(value) is int and low <= value <= high \
                else fields.integer(value, f"tasks[{index}].{key}", low, high)
    return Task(**values)


# The compact text of ``bursts`` (the editor's cell, a link's part): the integers in order, CPU first, separated by
# commas, "+" or spaces: "3, 2, 4" is 3 units of CPU, 2 of I/O, 4 of CPU. ``format_bursts`` writes "3,2,4".
BURSTS_FORM = "CPU, I/O, CPU, ..., CPU: positive integers separated by commas"
BURSTS_SEPARATORS = re.compile(r"[\s,+]+")


def read_bursts(value: Any, where: str) -> tuple[int, ...]:
    """A task's bursts, a list or its compact text: an odd number of positive integers, CPU first and last."""
    if isinstance(value, str):
        if len(value) > 20 * MAX_BURSTS:
            raise ScenarioError(where, f"is longer than {20 * MAX_BURSTS} characters (the documented limit)")
        parts = [part for part in BURSTS_SEPARATORS.split(value.strip()) if part]
        if not all(part.isascii() and part.isdigit() for part in parts):
            bad = next(part for part in parts if not (part.isascii() and part.isdigit()))
            raise ScenarioError(where, f"{bad[:20]!r} is not a whole number ({BURSTS_FORM}, e.g. 3, 2, 4)")
        value = [int(part) if len(part) <= 40 else MAX_HORIZON + 1 for part in parts]
    listed = fields.sequence(value, where, minimum=1, maximum=MAX_BURSTS)
    bursts = tuple(fields.integer(item, f"{where}[{k}]", 1, MAX_HORIZON) for k, item in enumerate(listed))
    if len(bursts) % 2 == 0:
        raise ScenarioError(where, f"must have an odd number of items ({BURSTS_FORM}), not {len(bursts)}")
    return bursts


def format_bursts(bursts: Sequence[int]) -> str:
    """``bursts`` in the compact text form: "3,2,4"."""
    return ",".join(map(str, bursts))


@dataclass(frozen=True)
class Conventions:
    """How ties at one instant are broken (issue 20): (a) ``arrival_before_requeue``, a task arriving at t joins
    ahead of the task whose quantum ended at t; (b) ``boost_after_arrivals``, MLFQ's boost comes after the instant's
    arrivals (and requeue); (c) ``boost_order``, the boost gathers the levels "top-first" or "bottom-first" (the
    top level, then the bottom one up). ``ostep`` adds mlfq.py's other rules (docs/cpu.md "Conventions")."""
    arrival_before_requeue: bool = True
    boost_after_arrivals: bool = True
    boost_order: str = "top-first"
    ostep: bool = False
    name: str | None = "lab"

    def flags(self) -> dict[str, Any]:
        return {"arrival_before_requeue": self.arrival_before_requeue,
                "boost_after_arrivals": self.boost_after_arrivals, "boost_order": self.boost_order}


CONVENTIONS = {"lab": Conventions(),
               "ostep": Conventions(False, False, "bottom-first", ostep=True, name="ostep")}
CONVENTION_FLAGS = tuple(Conventions().flags())
BOOST_ORDERS = ("top-first", "bottom-first")


def read_conventions(value: Any) -> Conventions:
    """A preset's name (``CONVENTIONS``) or a mapping of the three flags (a flag left out is the lab's)."""
    if isinstance(value, str):
        return CONVENTIONS[fields.choice(value.strip(), "conventions", list(CONVENTIONS))]
    if not isinstance(value, Mapping):
        raise ScenarioError("conventions", f"must be one of {', '.join(CONVENTIONS)} or a mapping of "
                                           f"{', '.join(CONVENTION_FLAGS)}, not {fields.describe(value)}")
    fields.known_keys(value, "conventions", CONVENTION_FLAGS)
    lab = CONVENTIONS["lab"]
    flags = {name: fields.boolean(value[name], f"conventions.{name}") if name in value else getattr(lab, name)
             for name in CONVENTION_FLAGS[:2]}
    order = fields.choice(value.get("boost_order", lab.boost_order), "conventions.boost_order", BOOST_ORDERS)
    conventions = Conventions(**flags, boost_order=order, name=None)
    named = next((name for name, preset in CONVENTIONS.items() if not preset.ostep and preset == replace(
        conventions, name=preset.name)), None)
    return replace(conventions, name=named)


def read_parameters(scenario: Mapping[str, Any]) -> Parameters:
    """Every parameter, checked against its Field; one not given is its Field's default (None: the rule decides,
    as RR's quantum does). A list ``per`` another parameter has one item for each of its units (MLFQ's quanta, one
    per level), or is one integer for all of them."""
    values: dict[str, Any] = {}
    for field in sorted(PARAMETERS, key=lambda field: field.per is not None):   # the units before the lists
        value = scenario.get(field.name)
        if field.name == "conventions":   # a preset's name or a mapping of flags
            values[field.name] = read_conventions(field.default if value is None else value)
            continue
        if value is None and field.type == "records":   # its default is written as its compact text
            value = field.default
        values[field.name] = field.default if value is None else fields.of_field(
            field, value, field.name, None if field.per is None else values[field.per])
    return Parameters(**values)


def makespan(tasks: list[Task], io: bool = False) -> int:
    """The last completion, the same under every rule that never idles while work is ready. With I/O, a bound on
    it: after the last arrival, every time unit either runs a task or finds them all blocked while an I/O goes on,
    so the last completion is at most the last arrival plus all the CPU and I/O time (plus the switches). ``io``:
    some task does I/O."""
    if io:
        return max(task.arrival for task in tasks) + sum(task.cpu + task.io for task in tasks)
    end = 0
    for task in sorted(tasks, key=lambda task: task.arrival):
        end = max(end, task.arrival) + task.burst
    return end


def check_horizon(tasks: list[Task], io: bool = False) -> int:
    end = makespan(tasks, io)
    if end > MAX_HORIZON:
        when = "could complete as late as" if io else "would complete at"
        raise ScenarioError("tasks", f"the last task {when} t={end}, past the documented horizon "
                                     f"of {MAX_HORIZON} time units")
    return end
