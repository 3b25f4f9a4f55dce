"""Every CPU scheduling rule, each a short class whose docstring states the exact rule and its tie-breaks.

The engine (``engine.py``) owns time, arrivals, the ready queue's bookkeeping and the trace; a rule only
decides. "Why did SRTF preempt here?" is answered by ``SRTF.key`` and ``SRTF.preempts`` below.

A rule is a ``Policy``:

- ``key(task, now)``: the order of preference, smallest first; it ends with the tie-breaks. Keys that
  depend only on the task's own state are kept in a heap (O(log n) per decision); a rule whose key
  changes while tasks wait (``dynamic = True``) is scanned at every decision instead.
- ``preempts(candidate, running, now)``: asked at every decision instant while a task runs, if
  ``preemptive``; the candidate is the ready task the key prefers.
- ``quantum(task)``: how long the task may run before it must yield (``None``: until it completes).
- ``admit``, ``expire``, ``next_instant``/``at_instant``: hooks for rules with per-task state; ``start``
  (before the run, with every task) and ``streak`` (how many quanta in a row a task keeps, so that a run
  without trace need not decide again at each one) for speed.
- ``queue``: the ready queue the engine keeps for the rule, when it is not the default (a heap, or a scan
  for a dynamic rule): "fifo" (the key is ``task.queued``, the order of joining, and the rule never
  preempts), "tickets" (``choose`` draws a ticket: ``tickets(task)`` laid out along the queue), "groups"
  (``group(task)``: within a group the key order never changes and is the order of joining).
- ``ties_by_arrival``: the key is ``(criterion, task.arrival, task.index)``, so the trace can say when
  arrival or input order broke a tie.
- ``rule``/``keep``: one sentence each (en, ja) for the step explanations; ``detail(task, now)`` the
  number the rule looks at ("remaining 3").

A user-written rule (the lab's "write your own policy") subclasses ``Policy`` and overrides ``key``
(and ``preemptive``/``preempts`` to preempt); ``decision_source()`` shows the code that decides.
"""
from __future__ import annotations

import inspect
import random
from math import gcd, lcm
from types import FunctionType
from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from .scenario import DEFAULT_QUANTUM, DEFAULT_TICKETS, Parameters, Task

if TYPE_CHECKING:
    from .engine import TicketQueue

Text = dict[str, str]


class Policy:
    """The protocol every rule follows; the defaults describe a non-preemptive rule without quanta."""
    name = ""
    preemptive = False
    dynamic = False
    queue = ""                # the engine's default ready queue: a heap, or a scan if dynamic
    ties_by_arrival = False   # the key is (criterion, arrival, index): explain ties the criterion leaves
    rule: Text = {"en": "", "ja": ""}
    keep: Text = {"en": "it never preempts", "ja": "横取りしない"}

    def key(self, task: Task, now: int) -> Any:
        """Smaller runs first; end with the tie-breaks (usually ``task.arrival, task.index``)."""
        raise NotImplementedError

    def choose(self, ready: Sequence[Task], now: int) -> Task:
        """The task to run among ``ready`` (a dynamic rule's decision); by default the least key."""
        return min(ready, key=lambda task: self.key(task, now))

    def preempts(self, candidate: Task, running: Task, now: int) -> bool:
        return self.key(candidate, now) < self.key(running, now)

    def quantum(self, task: Task) -> int | None:
        return None

    def admit(self, task: Task, now: int, least: Callable[[], Task | None]) -> None:
        """A task arrives; ``least()`` is the present task (ready or running) the key prefers, if any."""

    def expire(self, task: Task, now: int) -> list[dict[str, Any]]:
        """``task`` used up its quantum at ``now``: update its state; returns extra events."""
        return []

    def start(self, tasks: list[Task]) -> None:
        """Before the run, with every task of the scenario: what the rule may prepare from them (Stride's scale)."""

    def streak(self, task: Task, rival: Task | None, now: int) -> int | None:
        """How many quanta in a row ``task``, dispatched again at ``now`` as soon as its quantum ended, would
        get if no task arrived: ``rival`` is the best task waiting (None: none), None means as many as it needs.
        At least 1. Asked only when no trace is kept: the engine then runs them as one stretch, with the same
        schedule."""
        return 1

    def next_instant(self, now: int) -> int | None:
        """The next time after ``now`` at which ``at_instant`` must run (None: never)."""
        return None

    def at_instant(self, now: int, present: list[Task]) -> list[dict[str, Any]]:
        """Rule-specific work at a ``next_instant`` once arrivals and requeues are done (MLFQ's boost)."""
        return []

    def detail(self, task: Task, now: int) -> Text:
        return {"en": f"remaining {task.remaining}", "ja": f"残り{task.remaining}"}

    def parameters(self) -> dict[str, Any]:
        return {}

    @classmethod
    def decision_source(cls) -> str:
        """The code that decides, for showing in the lab: every method this class defines itself except
        those that only present it (``__init__``, ``detail``, ``parameters``)."""
        presentation = ("__init__", "detail", "parameters")
        return "\n".join(inspect.getsource(member.__func__ if isinstance(member, staticmethod) else member)
                         for name, member in vars(cls).items()
                         if name not in presentation and isinstance(member, (FunctionType, staticmethod)))


class FCFS(Policy):
    """First come, first served: the task that joined the ready queue first runs to completion.
    Arrivals at the same time join in input order, so ties go to earlier arrival, then input order."""
    name = "fcfs"
    queue = "fifo"
    rule = {"en": "FCFS runs the task that arrived first", "ja": "FCFSは最も早く到着したタスクを実行する"}
    keep = {"en": "FCFS never preempts", "ja": "FCFSは横取りしない"}

    def key(self, task: Task, now: int) -> Any:
        return task.queued

    def detail(self, task: Task, now: int) -> Text:
        return {"en": f"arrived {task.arrival}", "ja": f"到着{task.arrival}"}


class SJF(Policy):
    """Shortest job first, non-preemptive: when the CPU is free, the ready task with the least burst
    runs to completion. Ties: earlier arrival, then input order."""
    name = "sjf"
    ties_by_arrival = True
    rule = {"en": "SJF runs the shortest burst", "ja": "SJFは実行時間が最短のタスクを実行する"}
    keep = {"en": "SJF never preempts", "ja": "SJFは横取りしない"}

    def key(self, task: Task, now: int) -> Any:
        return task.burst, task.arrival, task.index

    def detail(self, task: Task, now: int) -> Text:
        return {"en": f"burst {task.burst}", "ja": f"実行時間{task.burst}"}


class SRTF(Policy):
    """Shortest remaining time first: the ready task with the least remaining time runs; it preempts the
    running task only when its remaining time is strictly shorter. Ties: earlier arrival, then input order."""
    name = "srtf"
    preemptive = True
    ties_by_arrival = True
    rule = {"en": "SRTF runs the shortest remaining time", "ja": "SRTFは残り時間が最短のタスクを実行する"}
    keep = {"en": "no ready task has a strictly shorter remaining time",
            "ja": "残り時間が厳密に短い待ちタスクはない"}

    def key(self, task: Task, now: int) -> Any:
        return task.remaining, task.arrival, task.index

    def preempts(self, candidate: Task, running: Task, now: int) -> bool:
        return candidate.remaining < running.remaining


class RoundRobin(Policy):
    """Round Robin with quantum q: the head of the ready queue runs for at most q; a task whose quantum
    expires returns to the tail (after the tasks that arrive at that instant); a task that completes
    inside its quantum frees the CPU at once. Alone in the system, it starts a new quantum."""
    name = "rr"
    queue = "fifo"
    keep = {"en": "its quantum is not used up", "ja": "クォンタムが残っている"}

    def __init__(self, quantum: int) -> None:
        self.q = quantum
        self.rule = {"en": f"RR runs the head of the ready queue for up to q={quantum}",
                     "ja": f"RRは待ち行列の先頭を最大q={quantum}実行する"}

    def key(self, task: Task, now: int) -> Any:
        return task.queued

    def quantum(self, task: Task) -> int | None:
        return self.q

    def parameters(self) -> dict[str, Any]:
        return {"quantum": self.q}


class Priority(Policy):
    """Priority: the ready task with the least priority number runs (0 is the most urgent; a task without
    one has 0). Non-preemptive, or preemptive when a ready task's priority is strictly better than the
    running task's. Optional aging a: a task's effective priority is its priority minus one for every a
    time units it has waited in the ready queue. Ties: earlier arrival, then input order."""
    ties_by_arrival = True
    keep = {"en": "no ready task has a strictly better priority", "ja": "優先度が厳密に高い待ちタスクはない"}

    def __init__(self, preemptive: bool, aging: int | None) -> None:
        self.name = "priority-preemptive" if preemptive else "priority"
        self.preemptive = preemptive
        self.aging = aging
        self.dynamic = aging is not None
        self.rule = {"en": "Priority runs the least priority number", "ja": "優先度方式は優先度番号が最小のタスクを実行する"}
        if not preemptive:
            self.keep = {"en": "non-preemptive Priority never preempts", "ja": "非横取り優先度方式は横取りしない"}

    def effective(self, task: Task, now: int) -> int:
        base = task.priority or 0
        if self.aging is None:
            return base
        waited = now - task.arrival - (task.burst - task.remaining)
        return base - waited // self.aging

    def key(self, task: Task, now: int) -> Any:
        return self.effective(task, now), task.arrival, task.index

    def preempts(self, candidate: Task, running: Task, now: int) -> bool:
        return self.effective(candidate, now) < self.effective(running, now)

    def detail(self, task: Task, now: int) -> Text:
        value = self.effective(task, now)
        return {"en": f"priority {value}", "ja": f"優先度{value}"}

    def parameters(self) -> dict[str, Any]:
        return {"aging": self.aging}


class HRRN(Policy):
    """Highest response ratio next, non-preemptive: when the CPU is free, the ready task with the greatest
    (waiting + burst) / burst runs to completion, waiting being now - arrival. Ties: earlier arrival,
    then input order."""
    name = "hrrn"
    dynamic = True
    queue = "groups"   # by group(): a decision compares one task per burst length, not every ready task
    ties_by_arrival = True
    rule = {"en": "HRRN runs the highest response ratio (waiting + burst) / burst",
            "ja": "HRRNは応答比（待ち時間＋実行時間）÷実行時間が最大のタスクを実行する"}
    keep = {"en": "HRRN never preempts", "ja": "HRRNは横取りしない"}

    @staticmethod
    def ratio(task: Task, now: int) -> Fraction:
        return Fraction(now - task.arrival + task.burst, task.burst)

    def key(self, task: Task, now: int) -> Any:
        return -self.ratio(task, now), task.arrival, task.index

    @staticmethod
    def group(task: Task) -> int:
        """Of two tasks with the same burst, the earlier arrival always has the higher ratio (and joined first)."""
        return task.burst

    def detail(self, task: Task, now: int) -> Text:
        ratio = self.ratio(task, now)
        return {"en": f"ratio {ratio}", "ja": f"応答比{ratio}"}


class MLFQ(Policy):
    """Multi-level feedback queue, as in OSTEP: a task arrives at the top level (0); the lowest-numbered
    non-empty level runs, round robin with that level's quantum; a task arriving at a higher level preempts
    a lower one, which keeps its place at the head of its level and the rest of its quantum. A task that
    has used its allotment (a number of quanta) at a level moves down one level (the bottom level keeps
    it). Every `boost` time units all tasks move to the top level in their current order, top level first,
    with fresh quanta and allotments. Ties within a level: queue order."""
    name = "mlfq"
    preemptive = True
    keep = {"en": "no task waits at a higher level", "ja": "より上のレベルで待つタスクはない"}

    def __init__(self, quanta: tuple[int, ...], allotment: tuple[int, ...], boost: int | None) -> None:
        self.quanta, self.allotment, self.boost = quanta, allotment, boost
        self.rule = {"en": "MLFQ runs the head of the highest non-empty level",
                     "ja": "MLFQは空でない最上位レベルの先頭を実行する"}

    def key(self, task: Task, now: int) -> Any:
        return task.level, task.queued

    def quantum(self, task: Task) -> int | None:
        return self.quanta[task.level]

    def admit(self, task: Task, now: int, least: Callable[[], Task | None]) -> None:
        task.level, task.allotment_left = 0, self.allotment[0]

    def expire(self, task: Task, now: int) -> list[dict[str, Any]]:
        task.allotment_left -= 1
        if task.allotment_left or task.level == len(self.quanta) - 1:
            task.allotment_left = task.allotment_left or self.allotment[task.level]
            return []
        task.level += 1
        task.allotment_left = self.allotment[task.level]
        return [{"kind": "demote", "task": task.name, "time": now, "level": task.level}]

    def next_instant(self, now: int) -> int | None:
        return None if self.boost is None else (now // self.boost + 1) * self.boost

    def at_instant(self, now: int, present: list[Task]) -> list[dict[str, Any]]:
        if self.boost is None or now == 0 or now % self.boost or not present:
            return []
        # Keep the current order (level, then queue position) by handing the same positions out again.
        positions = sorted(task.queued for task in present)
        for task, position in zip(sorted(present, key=lambda task: (task.level, task.queued)), positions):
            task.queued, task.level, task.allotment_left, task.slice_left = position, 0, self.allotment[0], None
        return [{"kind": "boost", "task": None, "time": now}]

    def detail(self, task: Task, now: int) -> Text:
        return {"en": f"level {task.level}", "ja": f"レベル{task.level}"}

    def parameters(self) -> dict[str, Any]:
        return {"levels": len(self.quanta), "quanta": list(self.quanta), "allotment": list(self.allotment),
                "boost": self.boost}


class EDF(Policy):
    """Earliest deadline first, preemptive: the ready task with the earliest absolute deadline runs; it
    preempts the running task only when its deadline is strictly earlier. A task without a deadline comes
    after every task with one. A late task still runs to completion (its miss is reported). Ties: earlier
    arrival, then input order."""
    name = "edf"
    preemptive = True
    ties_by_arrival = True
    rule = {"en": "EDF runs the earliest deadline", "ja": "EDFは締切が最も早いタスクを実行する"}
    keep = {"en": "no ready task has a strictly earlier deadline", "ja": "締切が厳密に早い待ちタスクはない"}

    @staticmethod
    def due(task: Task) -> float:
        return float("inf") if task.deadline is None else task.deadline

    def key(self, task: Task, now: int) -> Any:
        return self.due(task), task.arrival, task.index

    def preempts(self, candidate: Task, running: Task, now: int) -> bool:
        return self.due(candidate) < self.due(running)

    def detail(self, task: Task, now: int) -> Text:
        if task.deadline is None:
            return {"en": "no deadline", "ja": "締切なし"}
        return {"en": f"deadline {task.deadline}", "ja": f"締切{task.deadline}"}


STRIDE1 = 10_000
MAX_SCALE = 2**64   # a larger common denominator of the strides (tickets with many distinct prime factors)
                    # would make every pass a huge integer: Stride keeps Fractions then, slower and as exact


class Stride(Policy):
    """Stride scheduling (Waldspurger): stride = 10,000 / tickets. Every quantum the ready task with the
    least pass runs, then its pass += stride (a task that completes early needs no pass). A task arriving
    gets the least pass among the tasks present (0 if none), so it can neither hog nor starve. Ties:
    earlier arrival, then input order."""
    name = "stride"
    ties_by_arrival = True
    keep = {"en": "its quantum is not used up", "ja": "クォンタムが残っている"}

    def __init__(self, quantum: int) -> None:
        self.q = quantum
        self.scale = 1   # passes are counted in units of 1 / scale (see start)
        self.strides: dict[int, int | Fraction] = {}   # by ticket count
        self.rule = {"en": "Stride runs the least pass", "ja": "ストライドはパス値が最小のタスクを実行する"}

    def start(self, tasks: list[Task]) -> None:
        """Count passes in units of 1 / scale, the strides' common denominator (1 when every ticket count
        divides 10,000): they are integers then, compared exactly and fast. Past MAX_SCALE, Fractions."""
        counts = {task.tickets or DEFAULT_TICKETS for task in tasks}
        scale = lcm(*(tickets // gcd(STRIDE1, tickets) for tickets in counts))
        self.scale = scale if scale <= MAX_SCALE else 1
        self.strides = {}
        for tickets in counts:
            stride = Fraction(STRIDE1 * self.scale, tickets)
            self.strides[tickets] = stride.numerator if stride.denominator == 1 else stride

    def stride(self, task: Task) -> int | Fraction:
        """10,000 / tickets, in units of 1 / scale."""
        return self.strides[task.tickets or DEFAULT_TICKETS]

    def key(self, task: Task, now: int) -> Any:
        return task.pass_value, task.arrival, task.index

    def quantum(self, task: Task) -> int | None:
        return self.q

    def admit(self, task: Task, now: int, least: Callable[[], Task | None]) -> None:
        present = least()
        task.pass_value = present.pass_value if present else 0

    def expire(self, task: Task, now: int) -> list[dict[str, Any]]:
        task.pass_value += self.stride(task)
        return []

    def streak(self, task: Task, rival: Task | None, now: int) -> int | None:
        """It wins again while its pass, one stride more each quantum, stays below the rival's (or equal to it
        when it comes first in the tie-break)."""
        if rival is None:
            return None
        gap, stride = rival.pass_value - task.pass_value, self.stride(task)
        if (task.arrival, task.index) < (rival.arrival, rival.index):
            return 1 + gap // stride
        return -(-gap // stride)

    def detail(self, task: Task, now: int) -> Text:
        value = Fraction(task.pass_value, self.scale)
        return {"en": f"pass {value}", "ja": f"パス{value}"}

    def parameters(self) -> dict[str, Any]:
        return {"quantum": self.q}


class Lottery(Policy):
    """Lottery scheduling: every quantum, draw a winning ticket uniformly from 0 .. total - 1 over the ready
    tasks' tickets (Python's random.Random(lottery_seed), the same in CPython and Pyodide); the tickets are
    laid out along the ready queue (arrival order, requeued tasks at the tail) and the task holding the
    winning ticket runs for one quantum. Same seed, same schedule."""
    name = "lottery"
    dynamic = True
    queue = "tickets"   # the engine keeps the tickets along the queue in a Fenwick tree: a draw is O(log n)
    keep = {"en": "its quantum is not used up", "ja": "クォンタムが残っている"}

    def __init__(self, quantum: int, seed: int) -> None:
        self.q, self.seed = quantum, seed
        self.random = random.Random(seed)
        self.rule = {"en": "Lottery runs the holder of the winning ticket",
                     "ja": "抽選方式は当たりくじを持つタスクを実行する"}

    def key(self, task: Task, now: int) -> Any:
        return task.queued

    @staticmethod
    def tickets(task: Task) -> int:
        return task.tickets or DEFAULT_TICKETS

    def choose(self, ready: TicketQueue, now: int) -> Task:
        """``ready`` numbers the tickets from 0 along the ready queue: draw one, its holder runs."""
        return ready.holder(self.random.randrange(ready.total))

    def quantum(self, task: Task) -> int | None:
        return self.q

    def detail(self, task: Task, now: int) -> Text:
        tickets = self.tickets(task)
        return {"en": f"{tickets} tickets", "ja": f"くじ{tickets}枚"}

    def parameters(self) -> dict[str, Any]:
        return {"quantum": self.q, "lottery_seed": self.seed}


def make_policy(algorithm: str, parameters: Parameters) -> Policy:
    """The rule named ``algorithm`` with the scenario's parameters (defaults documented in README)."""
    quantum = parameters.quantum
    factories = {
        "fcfs": FCFS, "sjf": SJF, "srtf": SRTF, "hrrn": HRRN, "edf": EDF,
        "rr": lambda: RoundRobin(quantum or DEFAULT_QUANTUM),
        "priority": lambda: Priority(False, parameters.aging),
        "priority-preemptive": lambda: Priority(True, parameters.aging),
        "mlfq": lambda: MLFQ(parameters.quanta, parameters.allotment, parameters.boost),
        "stride": lambda: Stride(quantum or 1),
        "lottery": lambda: Lottery(quantum or 1, parameters.lottery_seed or 0),
    }
    return factories[algorithm]()
