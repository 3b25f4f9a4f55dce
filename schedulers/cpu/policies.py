"""Every CPU scheduling rule, each a short class whose docstring states the exact rule and its tie-breaks.

The loop (``loop.py``) owns time, arrivals, the ready queue's bookkeeping and the trace; a rule only
decides. "Why did SRTF preempt here?" is answered by ``SRTF.key`` and ``SRTF.preempts`` below.

A rule is a ``Policy``:

- ``key(task, now)``: the order of preference, smallest first; it ends with the tie-breaks. Keys that
  depend only on the task's own state are kept in a heap (O(log n) per decision); a rule whose key
  changes while tasks wait (``dynamic = True``) is scanned at every decision instead.
- ``preempts(candidate, running, now)``: asked at every decision instant while a task runs, if
  ``preemptive``; the candidate is the ready task the key prefers.
- ``quantum(task)``: how long the task may run before it must yield (``None``: until it completes).
- ``admit``, ``expire``, ``complete``, ``block``/``wake`` (I/O), ``next_instant``/``at_instant``: hooks for rules
  with per-task state;
  ``trace_state`` the rule's own numbers per task for the full trace (CFS's vruntime and weight). ``start``
  (before the run, with every task) and ``streak`` (how many quanta in a row a task keeps, so that a run
  without trace need not decide again at each one) are for speed.
- ``queue``: the ready queue the loop keeps for the rule, when it is not the default (a heap, or a scan
  for a dynamic rule): "fifo" (the key is ``task.queued``, the order of joining, and the rule never
  preempts), "tickets" (``choose`` draws a ticket: ``tickets(task)`` laid out along the queue), "cohorts"
  (``cohort(task)``: within a cohort the key order never changes and is the order of joining).
- ``ties_by_arrival``: the key is ``(criterion, task.arrival, task.index)``, so the trace can say when
  arrival or input order broke a tie.
- ``detail(task, now)``: the number the rule looks at ("remaining 3"), for the step explanations.
- its menu entry (``catalog.catalogue``): ``name``, ``parameter_names`` (the scenario parameters it reads) and
  ``item_fields`` (the optional task fields it reads); ``from_parameters`` makes it with the scenario's parameters.
- its words, ``@words(...)`` above the class (``catalog.words``): ``group`` ("article" or "more"), ``label`` and
  ``summary`` for the menu, and the sentences ``rule`` (why it dispatched or preempted) and ``keep`` (why the
  running task continues), in en and ja, filled with its ``parameters()``.

A new rule is one class here, listed in ``RULES`` at the end. A policy of your own is ``custom.py``'s.
"""
from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import replace
from fractions import Fraction
from typing import TYPE_CHECKING, Any, ClassVar

from ..catalog import words
from ..errors import ScenarioError
from .scenario import CONVENTIONS, DEFAULT_QUANTUM, DEFAULT_TICKETS, Conventions, Parameters, Task

if TYPE_CHECKING:
    from .loop import EligibleQueue, TicketQueue

Text = dict[str, str]


class Policy:
    """The protocol every rule follows; the defaults describe a non-preemptive rule without quanta."""
    name = ""
    preemptive = False
    dynamic = False
    queue = ""                # the loop's default ready queue: a heap, or a scan if dynamic
    ties_by_arrival = False   # the key is (criterion, arrival, index): explain ties the criterion leaves
    rule: Text = {"en": "", "ja": ""}
    keep: Text = {"en": "it never preempts", "ja": "横取りしません"}
    group: ClassVar[str] = "more"
    label: ClassVar[Text] = {"en": "", "ja": ""}
    summary: ClassVar[Text] = {"en": "", "ja": ""}
    parameter_names: ClassVar[tuple[str, ...]] = ()
    item_fields: ClassVar[tuple[str, ...]] = ()
    details: ClassVar[tuple[str, ...]] = ()   # the task's numbers the rule keeps, for a step's details (MLFQ's level)
    drawn: tuple[int, int] | None = None      # a drawing rule's last draw: (winning ticket, tickets in the draw)
    per_cpu = True   # runs on per-CPU queues, each CPU its own queue (False: its virtual time spans every CPU)
    fixed_priority: ClassVar[bool] = False    # a fixed priority per task: tasks may hold locks (``locks.py``)

    @classmethod
    def from_parameters(cls, parameters: Parameters) -> Policy:
        """The rule with the scenario's parameters (a default is its Field's, else the rule's: docs/cpu.md)."""
        return cls()

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
        At least 1. Asked only when no trace is kept: the loop then runs them as one stretch, with the same
        schedule."""
        return 1
    def complete(self, task: Task, now: int) -> None:
        """``task`` completed at ``now`` and leaves the system."""

    def block(self, task: Task, now: int) -> list[dict[str, Any]]:
        """``task``'s CPU burst ended at ``now`` and it starts I/O (its next burst is now current); returns extra
        events. By default the quantum it was in is over: it gets a new one when it runs again."""
        task.slice_left = None
        return []

    def wake(self, task: Task, now: int, least: Callable[[], Task | None], running: Task | None) -> None:
        """``task`` returns from I/O at ``now`` and is about to join the ready queue (as an arrival does: ``least()``
        is the present task the key prefers; ``running`` the task on the CPU, if any)."""

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

    def trace_state(self, tasks: Sequence[Task], time: int) -> dict[str, dict[str, Fraction | int]]:
        """The rule's own numbers after step ``time``, for the full trace: ``{"vruntime": {name: value}}``."""
        return {}


@words(
    group="article",
    label={"en": "FCFS", "ja": "FCFS（先着順）"},
    summary={"en": "first come, first served; never preempts; ties: earlier arrival, then input order",
             "ja": "到着順に実行し、横取りしません。同着は入力順"},
    rule={"en": "FCFS runs the task that arrived first", "ja": "FCFSは最も早く到着したタスクを実行します"},
    keep={"en": "FCFS never preempts", "ja": "FCFSは横取りしません"},
)
class FCFS(Policy):
    """First come, first served: the task that joined the ready queue first runs to completion.
    Arrivals at the same time join in input order, so ties go to earlier arrival, then input order. With I/O, a
    task back from I/O joins the tail as an arrival does, and runs its next burst to its end. Several CPUs: the free
    CPUs take the first tasks to have joined, in turn."""
    name = "fcfs"
    queue = "fifo"

    def key(self, task: Task, now: int) -> Any:
        return task.queued

    def detail(self, task: Task, now: int) -> Text:
        return {"en": f"arrived {task.arrival}", "ja": f"到着{task.arrival}"}


@words(
    group="article",
    label={"en": "SJF", "ja": "SJF（最短ジョブ優先）"},
    summary={"en": "shortest burst first, non-preemptive; ties: earlier arrival, then input order",
             "ja": "実行時間が最短のものから、横取りなし。同点は到着が早い方、次に入力順"},
    rule={"en": "SJF runs the shortest burst", "ja": "SJFは実行時間が最短のタスクを実行します"},
    keep={"en": "SJF never preempts", "ja": "SJFは横取りしません"},
)
class SJF(Policy):
    """Shortest job first, non-preemptive: when the CPU is free, the ready task with the least burst
    runs to completion (with I/O: the least current CPU burst runs until it ends). Ties: earlier arrival, then
    input order. Several CPUs: the free CPUs take the least bursts in turn."""
    name = "sjf"
    ties_by_arrival = True

    def key(self, task: Task, now: int) -> Any:
        return task.burst, task.arrival, task.index

    def detail(self, task: Task, now: int) -> Text:
        return {"en": f"burst {task.burst}", "ja": f"実行時間{task.burst}"}


@words(
    group="article",
    label={"en": "SRTF", "ja": "SRTF（残り時間最短優先）"},
    summary={"en": "shortest remaining time first; preempts only on strictly shorter remaining; ties: arrival, input",
             "ja": "残り時間最短を実行し、厳密に短いときだけ横取り。同点は到着順、入力順"},
    rule={"en": "SRTF runs the shortest remaining time", "ja": "SRTFは残り時間が最短のタスクを実行します"},
    keep={"en": "no ready task has a strictly shorter remaining time",
          "ja": "残り時間が厳密に短い待ちタスクはありません"},
)
class SRTF(Policy):
    """Shortest remaining time first: the ready task with the least remaining time runs; it preempts the
    running task only when its remaining time is strictly shorter (with I/O: the remaining time of the current CPU
    burst). Ties: earlier arrival, then input order. Several CPUs: the free CPUs get the least remaining times; then a
    ready task strictly shorter than the longest remaining running task preempts that one (ties: the later arrival,
    then the later in the input, is preempted)."""
    name = "srtf"
    preemptive = True
    ties_by_arrival = True

    def key(self, task: Task, now: int) -> Any:
        return task.remaining, task.arrival, task.index

    def preempts(self, candidate: Task, running: Task, now: int) -> bool:
        return candidate.remaining < running.remaining


@words(
    group="article",
    label={"en": "Round Robin", "ja": "ラウンドロビン"},
    summary={"en": "queue head runs up to quantum q (default 2); expired task rejoins the tail after arrivals",
             "ja": "先頭をクォンタムq（既定2）まで実行し、切れたら同時刻の到着の後ろに並びます"},
    rule={"en": "RR runs the head of the ready queue for up to q={quantum}",
          "ja": "RRは待ち行列の先頭を最大q={quantum}実行します"},
    keep={"en": "its quantum is not used up", "ja": "クォンタムが残っています"},
)
class RoundRobin(Policy):
    """Round Robin with quantum q: the head of the ready queue runs for at most q; a task whose quantum
    expires returns to the tail (after the tasks that arrive at that instant); a task that completes
    inside its quantum frees the CPU at once, as does one that starts I/O; back from I/O, a task joins the tail as an
    arrival does, with a fresh quantum. Alone in the system, it starts a new quantum. Several CPUs: the free
    CPUs take the queue's first tasks in turn; quanta that end together rejoin the tail in CPU order."""
    name = "rr"
    queue = "fifo"
    parameter_names = ("quantum",)

    @classmethod
    def from_parameters(cls, parameters: Parameters) -> Policy:
        return cls(parameters.quantum or DEFAULT_QUANTUM)

    def __init__(self, quantum: int) -> None:
        self.q = quantum

    def key(self, task: Task, now: int) -> Any:
        return task.queued

    def quantum(self, task: Task) -> int | None:
        return self.q

    def parameters(self) -> dict[str, Any]:
        return {"quantum": self.q}


@words(
    label={"en": "Priority", "ja": "優先度"},
    summary={"en": "least priority number first (0 most urgent), non-preemptive; optional aging; ties: arrival, input",
             "ja": "優先度番号が最小のものから（0が最優先）、横取りなし。エージング可。同点は到着順、入力順"},
    rule={"en": "Priority runs the least priority number", "ja": "優先度方式は優先度番号が最小のタスクを実行します"},
    keep={"en": "non-preemptive Priority never preempts", "ja": "非横取り優先度方式は横取りしません"},
)
class Priority(Policy):
    """Priority, non-preemptive: when the CPU is free, the ready task with the least priority number runs
    to completion (0 is the most urgent; a task without one has 0). Optional aging a: a task's effective
    priority is its priority minus one for every a time units it has waited in the ready queue (not running, not
    in I/O). Ties: earlier arrival, then input order. Several CPUs: the free CPUs get the least numbers in turn."""
    name = "priority"
    fixed_priority = True   # without aging
    parameter_names = ("aging", "protocol")
    item_fields = ("priority", "sections")
    ties_by_arrival = True

    @classmethod
    def from_parameters(cls, parameters: Parameters) -> Policy:
        return cls(parameters.aging)

    def __init__(self, aging: int | None) -> None:
        self.aging = aging
        self.dynamic = aging is not None

    def effective(self, task: Task, now: int) -> int:
        base = task.priority or 0
        if self.aging is None:
            return base
        waited = now - task.arrival - task.cpu_done - task.io_done - (task.burst - task.remaining)   # in the queue
        return base - waited // self.aging

    def key(self, task: Task, now: int) -> Any:
        return self.effective(task, now), task.arrival, task.index

    def detail(self, task: Task, now: int) -> Text:
        value = self.effective(task, now)
        return {"en": f"priority {value}", "ja": f"優先度{value}"}

    def parameters(self) -> dict[str, Any]:
        return {"aging": self.aging}


@words(
    label={"en": "Priority (preemptive)", "ja": "優先度（横取りあり）"},
    summary={"en": "least priority number first; preempts on a strictly better priority; optional aging",
             "ja": "優先度番号が最小のものから、厳密に高い優先度なら横取り。エージング可"},
    keep={"en": "no ready task has a strictly better priority", "ja": "優先度が厳密に高い待ちタスクはありません"},
)
class PreemptivePriority(Priority):
    """Priority, preemptive: the ready task with the least effective priority number runs, as in Priority
    (0 is the most urgent, optional aging), and it preempts the running task when its effective priority is
    strictly better; a task back from I/O preempts as an arrival does. Ties: earlier arrival, then input order.
    Several CPUs: a ready task strictly better than the
    running task with the greatest effective number preempts that one (ties: the later arrival, then the later in the
    input, is preempted)."""
    name = "priority-preemptive"
    preemptive = True

    def preempts(self, candidate: Task, running: Task, now: int) -> bool:
        return self.effective(candidate, now) < self.effective(running, now)


@words(
    label={"en": "HRRN", "ja": "HRRN（応答比最高優先）"},
    summary={"en": "highest (waiting + burst) / burst first, non-preemptive; ties: arrival, input",
             "ja": "（待ち時間＋実行時間）÷実行時間が最大のものから、横取りなし。同点は到着順、入力順"},
    rule={"en": "HRRN runs the highest response ratio (waiting + burst) / burst",
          "ja": "HRRNは応答比（待ち時間＋実行時間）÷実行時間が最大のタスクを実行します"},
    keep={"en": "HRRN never preempts", "ja": "HRRNは横取りしません"},
)
class HRRN(Policy):
    """Highest response ratio next, non-preemptive: when the CPU is free, the ready task with the greatest
    (waiting + burst) / burst runs to completion, waiting being now - arrival. With I/O, burst is the current CPU
    burst and waiting is counted from when the task last joined the ready queue (its arrival, or its return from
    I/O). Ties: earlier such join, then the order of joining (input order at one instant). Several CPUs: the free
    CPUs get the greatest ratios in turn."""
    name = "hrrn"
    dynamic = True
    queue = "cohorts"   # by cohort(): a decision compares one task per burst length, not every ready task
    ties_by_arrival = True

    @staticmethod
    def ratio(task: Task, now: int) -> Fraction:
        return Fraction(now - task.ready_since + task.burst, task.burst)

    def key(self, task: Task, now: int) -> Any:
        return -self.ratio(task, now), task.ready_since, task.queued

    @staticmethod
    def cohort(task: Task) -> int:
        """Of two tasks with the same (current) burst, the earlier join always has the higher ratio (and joined
        first)."""
        return task.burst

    def detail(self, task: Task, now: int) -> Text:
        ratio = self.ratio(task, now)
        return {"en": f"ratio {ratio}", "ja": f"応答比{ratio}"}


@words(
    label={"en": "MLFQ", "ja": "MLFQ（多段フィードバックキュー）"},
    summary={"en": "OSTEP's rules: levels, per-level quantum, allotment in quanta, periodic boost",
             "ja": "OSTEPの規則: レベル、レベルごとのクォンタム、割り当て（クォンタム数）、定期ブースト"},
    rule={"en": "MLFQ runs the head of the highest non-empty level",
          "ja": "MLFQは空でない最上位レベルの先頭を実行します"},
    keep={"en": "no task waits at a higher level", "ja": "より上のレベルで待つタスクはありません"},
)
class MLFQ(Policy):
    """Multi-level feedback queue, as in OSTEP: a task arrives at the top level (0); the lowest-numbered
    non-empty level runs, round robin with that level's quantum; a task arriving at a higher level preempts
    a lower one, which keeps its place at the head of its level and the rest of its quantum. A task that
    has used its allotment (a number of quanta) at a level moves down one level (the bottom level keeps
    it). Every `boost` time units all tasks move to the top level in their current order, top level first,
    with fresh quanta and allotments. Ties within a level: queue order.
    I/O (OSTEP's rule 4: the allotment counts CPU used at a level across I/O): a task that blocks keeps its level,
    the rest of its quantum and its allotment; blocking as its quantum ends uses that quantum up (as an expiry).
    With `io_resets_allotment` (OSTEP -S) a task that blocks before its quantum ends keeps its level with a fresh
    quantum and allotment. A returning task joins the tail of its level; with `io_to_front` (-I) the front, behind
    the running task. The boost takes blocked tasks to the top level too. The conventions (`scenario.Conventions`)
    decide the boost's order ("bottom-first": the top level, then the others from the bottom up); under "ostep"
    blocking as the quantum ends uses a quantum of the fresh allotment, and with `io_to_front` a returning task goes
    ahead of the running task of its level (and so runs next). Several CPUs: the levels are shared, one set for all
    CPUs; a task arriving at a higher level preempts the running task of the lowest level (ties: the later in its
    level's queue), and `io_to_front` puts a returning task at the front of its level (the running tasks are in no
    queue). Per-CPU queues: each CPU has its own levels (a task's level goes with it; the boost lifts every queue)."""
    name = "mlfq"
    parameter_names = ("levels", "quanta", "allotment", "boost", "io_resets_allotment", "io_to_front")
    preemptive = True
    details = ("level", "allotment_left")

    @classmethod
    def from_parameters(cls, parameters: Parameters) -> Policy:
        """Quanta 1, 2, 4, ... by default (the quantum at every level if one is given), an allotment of 1."""
        levels, quantum = parameters.levels, parameters.quantum
        quanta = parameters.quanta or ((quantum,) * levels if quantum else tuple(2 ** level for level in range(levels)))
        return cls(quanta, parameters.allotment or (1,) * levels, parameters.boost, parameters.io_resets_allotment,
                   parameters.io_to_front, parameters.conventions)

    def __init__(self, quanta: tuple[int, ...], allotment: tuple[int, ...], boost: int | None,
                 io_resets_allotment: bool = False, io_to_front: bool = False,
                 conventions: Conventions = CONVENTIONS["lab"]) -> None:
        self.quanta, self.allotment, self.boost = quanta, allotment, boost
        self.io_resets_allotment, self.io_to_front, self.conventions = io_resets_allotment, io_to_front, conventions
        self.blocked: dict[Task, None] = {}   # in I/O: the boost lifts them too
        self.fronts = 0                       # places taken at the front of a level: queued = -1, -2, ...

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

    def block(self, task: Task, now: int) -> list[dict[str, Any]]:
        self.blocked[task] = None
        ended = task.slice_left == 0
        if self.io_resets_allotment and (not ended or self.conventions.ostep):
            task.allotment_left, task.slice_left = self.allotment[task.level], None
        if not ended:
            return []
        task.slice_left = None
        return self.expire(task, now)

    def front(self) -> int:
        self.fronts += 1
        return -self.fronts

    def wake(self, task: Task, now: int, least: Callable[[], Task | None], running: Task | None) -> None:
        del self.blocked[task]
        if self.io_to_front:
            task.queued = self.front()
            if running is not None and running.level == task.level and not self.conventions.ostep:
                running.queued = self.front()   # the running task stays the head of its level

    def complete(self, task: Task, now: int) -> None:
        self.blocked.pop(task, None)

    def next_instant(self, now: int) -> int | None:
        """The next boost: the first multiple of ``boost`` after ``now`` (never 0: nothing to boost yet)."""
        return None if self.boost is None else (max(now, 0) // self.boost + 1) * self.boost

    def gathered(self, task: Task) -> tuple[int, int]:
        """The boost's order: by level, top first ("bottom-first": the top level, then from the bottom up), then
        queue order."""
        if self.conventions.boost_order == "top-first" or not task.level:
            return task.level, task.queued
        return len(self.quanta) - task.level, task.queued

    def at_instant(self, now: int, present: list[Task]) -> list[dict[str, Any]]:
        if not present and not self.blocked:
            return []
        # Keep the current order (level, then queue position) by handing the same positions out again.
        positions = sorted(task.queued for task in present)
        for task, position in zip(sorted(present, key=self.gathered), positions):
            task.queued, task.level, task.allotment_left, task.slice_left = position, 0, self.allotment[0], None
        for task in self.blocked:
            task.level, task.allotment_left, task.slice_left = 0, self.allotment[0], None
        return [{"kind": "boost", "task": None, "time": now}]

    def detail(self, task: Task, now: int) -> Text:
        return {"en": f"level {task.level}", "ja": f"レベル{task.level}"}

    def parameters(self) -> dict[str, Any]:
        shown = {"levels": len(self.quanta), "quanta": list(self.quanta), "allotment": list(self.allotment),
                 "boost": self.boost}
        if self.io_resets_allotment or self.io_to_front:
            shown.update(io_resets_allotment=self.io_resets_allotment, io_to_front=self.io_to_front)
        return shown


@words(
    label={"en": "MLQ", "ja": "MLQ（多段キュー）"},
    summary={"en": "fixed classes (0 the highest), each with its own rule; higher classes preempt at once",
             "ja": "固定のクラス（0が最上位）ごとに規則を持ち、上位クラスは即座に横取りします"},
    rule={"en": "MLQ runs the highest non-empty class, by that class's own rule",
          "ja": "MLQは待ちタスクのある最上位クラスを、そのクラスの規則で実行します"},
    keep={"en": "no task waits in a higher class, and its class's rule keeps it",
          "ja": "上位クラスで待つタスクはなく、クラスの規則も実行を続けさせます"},
)
class MLQ(Policy):
    """Multilevel queue: every task has a fixed class (its `class`, 0 the highest), and each class has its own
    rule (`classes`: fcfs, sjf, srtf, rr with its quantum, priority with its aging). Strict priority between
    classes, preemptive: the highest class with a ready task runs, and a task of a higher class preempts a running
    task of a lower one at once. Within a class its rule decides (SRTF preempts within the class, RR's quantum runs
    within it). A task preempted by a higher class keeps its place at the head of its class's queue and the rest
    of its quantum (under SRTF, whose queue is by remaining time, it rejoins by its remaining time: SRTF would
    preempt it at once otherwise). A task returning from I/O joins its class's queue. Ties within a class: its
    rule's. Several CPUs: the free CPUs take the best ready tasks in turn (class first, then the class's rule);
    then the best ready task preempts the running task of the lowest class (ties: the one its class's rule ranks
    worst) when its class is higher, or within one class when that class's rule preempts."""
    name = "mlq"
    parameter_names = ("classes",)
    item_fields = ("class",)
    preemptive = True

    @classmethod
    def from_parameters(cls, parameters: Parameters) -> Policy:
        """Each class's rule made with that class's own parameters (a parameter its rule does not read is an
        error naming it, ``classes[0].quantum``)."""
        rules = []
        for k, entry in enumerate(parameters.classes):
            chosen = POLICIES[entry["rule"]]
            for key in entry.keys() - {"rule"} - set(chosen.parameter_names):
                raise ScenarioError(f"classes[{k}].{key}", f"{entry['rule']} reads no {key}")
            rules.append(chosen.from_parameters(replace(parameters, quantum=entry.get("quantum"),
                                                      aging=entry.get("aging"))))
        return cls(rules)

    def __init__(self, rules: Sequence[Policy]) -> None:
        self.rules = tuple(rules)
        self.dynamic = any(rule.dynamic for rule in self.rules)   # priority's aging

    def start(self, tasks: list[Task]) -> None:
        for task in tasks:
            if (task.class_ or 0) >= len(self.rules):
                at = task.index if task.owner is None else task.owner
                raise ScenarioError(f"tasks[{at}].class", f"must be less than the {len(self.rules)} classes given "
                                                          f"in classes, not {task.class_}")

    def held(self, task: Task, own: Policy) -> bool:
        """A task a higher class preempted: it waits having started its quantum (a rule with quanta), or its burst
        (a rule that never preempts; a preemptive one orders its queue itself)."""
        if own.quantum(task) is not None:
            return task.slice_left is not None
        return not own.preemptive and task.remaining < task.burst

    def key(self, task: Task, now: int) -> Any:
        level = task.class_ or 0
        own = self.rules[level]
        return level, not self.held(task, own), own.key(task, now)

    def preempts(self, candidate: Task, running: Task, now: int) -> bool:
        if (candidate.class_ or 0) != (running.class_ or 0):
            return (candidate.class_ or 0) < (running.class_ or 0)
        own = self.rules[running.class_ or 0]
        return own.preemptive and own.preempts(candidate, running, now)

    def quantum(self, task: Task) -> int | None:
        return self.rules[task.class_ or 0].quantum(task)

    def detail(self, task: Task, now: int) -> Text:
        level = task.class_ or 0
        own = self.rules[level]
        shown = {"en": own.name.upper(), "ja": own.name.upper()} if own.name != "priority" else \
            {"en": "Priority", "ja": "優先度"}
        quantum, aging = own.quantum(task), getattr(own, "aging", None)
        if quantum is not None:
            shown = {"en": f"{shown['en']}, q={quantum}", "ja": f"{shown['ja']}、q={quantum}"}
        if aging is not None:
            shown = {"en": f"{shown['en']}, aging {aging}", "ja": f"{shown['ja']}、エージング{aging}"}
        inner = own.detail(task, now)
        return {"en": f"class {level} ({shown['en']}): {inner['en']}",
                "ja": f"クラス{level}（{shown['ja']}）: {inner['ja']}"}

    def parameters(self) -> dict[str, Any]:
        return {"classes": [{"rule": own.name, **{key: value for key, value in own.parameters().items()
                                                  if value is not None}} for own in self.rules]}


@words(
    label={"en": "EDF", "ja": "EDF（締切最早優先）"},
    summary={"en": "earliest absolute deadline first; preempts on a strictly earlier deadline; misses reported",
             "ja": "絶対締切が最も早いものから、厳密に早いときだけ横取り。締切超過を報告"},
    rule={"en": "EDF runs the earliest deadline", "ja": "EDFは締切が最も早いタスクを実行します"},
    keep={"en": "no ready task has a strictly earlier deadline", "ja": "締切が厳密に早い待ちタスクはありません"},
)
class EDF(Policy):
    """Earliest deadline first, preemptive: the ready task with the earliest absolute deadline runs; it
    preempts the running task only when its deadline is strictly earlier. A task without a deadline comes
    after every task with one. With I/O the deadline is the task's, for all its bursts: a task back from I/O
    preempts as an arrival does. A late task still runs to completion (its miss is reported). Ties: earlier
    arrival, then input order. Several CPUs: a strictly earlier deadline preempts the running task with the latest
    (ties: the later arrival, then the later in the input, is preempted)."""
    name = "edf"
    item_fields = ("deadline",)
    preemptive = True
    ties_by_arrival = True

    @staticmethod
    def due(task: Task) -> tuple[bool, int]:
        """(has no deadline, deadline): every task with a deadline comes before every task without one."""
        return task.deadline is None, task.deadline or 0

    def key(self, task: Task, now: int) -> Any:
        return self.due(task), task.arrival, task.index

    def preempts(self, candidate: Task, running: Task, now: int) -> bool:
        return self.due(candidate) < self.due(running)

    def detail(self, task: Task, now: int) -> Text:
        if task.deadline is None:
            return {"en": "no deadline", "ja": "締切なし"}
        return {"en": f"deadline {task.deadline}", "ja": f"締切{task.deadline}"}


@words(
    label={"en": "RM", "ja": "RM（レートモノトニック）"},
    summary={"en": "rate monotonic: shorter period, higher fixed priority; preemptive; ties: input order; "
                   "one-shot tasks after every periodic one",
             "ja": "レートモノトニック: 周期が短いほど高い固定優先度、横取りあり。同じ周期は入力順、"
                   "単発タスクはすべての周期タスクの後"},
    rule={"en": "RM runs the shortest period", "ja": "RMは周期が最短のタスクを実行します"},
    keep={"en": "no ready job has a strictly higher priority (a shorter period, or equal and earlier in the input)",
          "ja": "優先度が厳密に高い（周期が短い、または同じ周期で入力順が先の）待ちジョブはありません"},
)
class RateMonotonic(Policy):
    """Rate monotonic, preemptive: every job of a periodic task has its task's fixed priority, higher for a
    shorter period. A task back from I/O preempts as an arrival does. Ties: equal periods rank by input order, a
    strict priority; one-shot tasks rank after every periodic task, by input order; of two jobs of one task (the
    earlier one late), the earlier release first."""
    name = "rm"
    preemptive = True
    fixed_priority = True
    parameter_names = ("protocol",)
    item_fields = ("period", "sections")

    @staticmethod
    def rank(task: Task) -> Any:
        return task.period is None, task.period or 0

    def key(self, task: Task, now: int) -> Any:
        return *self.rank(task), task.index if task.owner is None else task.owner, task.arrival

    def detail(self, task: Task, now: int) -> Text:
        if task.period is None:
            return {"en": "one-shot", "ja": "単発"}
        return {"en": f"period {task.period}", "ja": f"周期{task.period}"}


@words(
    label={"en": "DM", "ja": "DM（デッドラインモノトニック）"},
    summary={"en": "deadline monotonic: shorter relative deadline, higher fixed priority; preemptive; ties: input "
                   "order; one-shot tasks after every periodic one",
             "ja": "デッドラインモノトニック: 相対締切が短いほど高い固定優先度、横取りあり。同じ締切は入力順、"
                   "単発タスクはすべての周期タスクの後"},
    rule={"en": "DM runs the shortest relative deadline", "ja": "DMは相対締切が最短のタスクを実行します"},
    keep={"en": "no ready job has a strictly higher priority (a shorter relative deadline, or equal and earlier in "
                "the input)",
          "ja": "優先度が厳密に高い（相対締切が短い、または同じ締切で入力順が先の）待ちジョブはありません"},
)
class DeadlineMonotonic(RateMonotonic):
    """Deadline monotonic, preemptive: every job of a periodic task has its task's fixed priority, higher for a
    shorter relative deadline (default: the period). A task back from I/O preempts as an arrival does. Ties: equal
    relative deadlines rank by input order, a strict
    priority; one-shot tasks rank after every periodic task, by input order; of two jobs of one task, the earlier
    release first."""
    name = "dm"
    item_fields = ("period", "relative_deadline", "sections")

    @staticmethod
    def rank(task: Task) -> Any:
        return task.period is None, task.relative_deadline or task.period or 0

    def detail(self, task: Task, now: int) -> Text:
        if task.period is None:
            return {"en": "one-shot", "ja": "単発"}
        relative = task.relative_deadline or task.period
        return {"en": f"relative deadline {relative}", "ja": f"相対締切{relative}"}


STRIDE1 = 10_000
MAX_SCALE = 2**64   # a larger common denominator of the strides (tickets with many distinct prime factors)
                    # would make every pass a huge integer: Stride keeps Fractions then, slower and as exact


@words(
    label={"en": "Stride", "ja": "ストライド"},
    summary={"en": "least pass runs one quantum, then pass += 10000 / tickets; ties: arrival, input",
             "ja": "パス値最小のものを1クォンタム実行し、パス += 10000 ÷ くじ数。同点は到着順、入力順"},
    rule={"en": "Stride runs the least pass", "ja": "ストライドはパス値が最小のタスクを実行します"},
    keep={"en": "its quantum is not used up", "ja": "クォンタムが残っています"},
)
class Stride(Policy):
    """Stride scheduling (Waldspurger): stride = 10,000 / tickets. Every quantum the ready task with the
    least pass runs, then its pass += stride (a task that completes early needs no pass). A task arriving
    gets the least pass among the tasks present (0 if none), so it can neither hog nor starve. A task that blocks for
    I/O is charged for the part of its quantum it used (pass += stride x used / quantum); back from I/O it gets
    max(its own pass, that least pass). Ties: earlier arrival, then input order. Several CPUs: the free CPUs take the
    least passes in turn, and "the tasks present" are the ready ones and those running on every CPU. Per-CPU queues:
    refused (``queues`` names it), as the least pass is over every CPU's tasks."""
    name = "stride"
    per_cpu = False
    parameter_names = ("quantum",)
    item_fields = ("tickets",)
    ties_by_arrival = True

    @classmethod
    def from_parameters(cls, parameters: Parameters) -> Policy:
        return cls(parameters.quantum or 1)

    def __init__(self, quantum: int) -> None:
        self.q = quantum
        self.scale = 1   # passes are counted in units of 1 / scale (see start)
        self.strides: dict[int, int | Fraction] = {}   # by ticket count

    def start(self, tasks: list[Task]) -> None:
        """Count passes in units of 1 / scale, the strides' common denominator (1 when every ticket count
        divides 10,000): they are integers then, compared exactly and fast. Past MAX_SCALE, Fractions."""
        counts = {task.tickets or DEFAULT_TICKETS for task in tasks}
        scale = math.lcm(*(tickets // math.gcd(STRIDE1, tickets) for tickets in counts))
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

    def wake(self, task: Task, now: int, least: Callable[[], Task | None], running: Task | None) -> None:
        """Back from I/O: pass = max(its own, the least pass present), so a sleeper cannot bank its share."""
        present = least()
        if present is not None and present.pass_value > task.pass_value:
            task.pass_value = present.pass_value

    def expire(self, task: Task, now: int) -> list[dict[str, Any]]:
        task.pass_value += self.stride(task)
        return []

    def block(self, task: Task, now: int) -> list[dict[str, Any]]:
        """Blocking for I/O ends its quantum: pass += stride x the part of the quantum it used."""
        used = self.q - task.slice_left
        charge = self.stride(task) * used
        task.pass_value += charge // self.q if charge % self.q == 0 else Fraction(charge, self.q)
        task.slice_left = None
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


@words(
    label={"en": "Lottery", "ja": "抽選"},
    summary={"en": "each quantum, a seeded random ticket picks the task; same lottery_seed, same schedule",
             "ja": "クォンタムごとに乱数で当たりくじを引きます。同じlottery_seedなら同じスケジュール"},
    rule={"en": "Lottery runs the holder of the winning ticket",
          "ja": "抽選方式は当たりくじを持つタスクを実行します"},
    keep={"en": "its quantum is not used up", "ja": "クォンタムが残っています"},
)
class Lottery(Policy):
    """Lottery scheduling: every quantum, draw a winning ticket uniformly from 0 .. total - 1 over the ready
    tasks' tickets (Python's random.Random(lottery_seed), the same in CPython and Pyodide); the tickets are
    laid out along the ready queue (arrival order, requeued tasks at the tail) and the task holding the
    winning ticket runs for one quantum. With I/O there is nothing to place: a task back from I/O joins the queue as
    an arrival does, its tickets in the draw again, with a fresh quantum. Same seed, same schedule. Several CPUs:
    the free CPUs draw their winners in CPU order, without replacement (a winner leaves the draw, whose tickets are
    the ready tasks' left). Per-CPU queues: each free CPU, in CPU order, draws from its own queue's tickets."""
    name = "lottery"
    parameter_names = ("quantum", "lottery_seed")
    item_fields = ("tickets",)
    dynamic = True
    queue = "tickets"   # the loop keeps the tickets along the queue in a Fenwick tree: a draw is O(log n)

    @classmethod
    def from_parameters(cls, parameters: Parameters) -> Policy:
        return cls(parameters.quantum or 1, parameters.lottery_seed)

    def __init__(self, quantum: int, seed: int) -> None:
        self.q, self.seed = quantum, seed
        self.random = random.Random(seed)

    def key(self, task: Task, now: int) -> Any:
        return task.queued

    @staticmethod
    def tickets(task: Task) -> int:
        return task.tickets or DEFAULT_TICKETS

    def choose(self, ready: TicketQueue, now: int) -> Task:
        """``ready`` numbers the tickets from 0 along the ready queue: draw one, its holder runs."""
        self.drawn = ticket, total = self.random.randrange(ready.total), ready.total
        return ready.holder(ticket)

    def quantum(self, task: Task) -> int | None:
        return self.q

    def detail(self, task: Task, now: int) -> Text:
        tickets = self.tickets(task)
        return {"en": f"{tickets} tickets", "ja": f"くじ{tickets}枚"}

    def parameters(self) -> dict[str, Any]:
        return {"quantum": self.q, "lottery_seed": self.seed}


# Linux's sched_prio_to_weight (kernel/sched/core.c): nice -20 .. 19; nice 0 is 1024, each step about 1.25x.
NICE_WEIGHTS = (88761, 71755, 56483, 46273, 36291, 29154, 23254, 18705, 14949, 11916,
                9548, 7620, 6100, 4904, 3906, 3121, 2501, 1991, 1586, 1277,
                1024, 820, 655, 526, 423, 335, 272, 215, 172, 137,
                110, 87, 70, 56, 45, 36, 29, 23, 18, 15)
NICE_0_WEIGHT = 1024
# vruntime is kept as an integer in units of 1/VRUNTIME_SCALE: every weight divides it, so ran * 1024 / weight is
# a whole number of units (exact, and much faster to compare than a Fraction).
VRUNTIME_SCALE = math.lcm(*NICE_WEIGHTS)
VRUNTIME_PER_TIME_UNIT = tuple(NICE_0_WEIGHT * (VRUNTIME_SCALE // weight) for weight in NICE_WEIGHTS)  # by nice + 20


@words(
    label={"en": "CFS", "ja": "CFS（完全公平スケジューラ）"},
    summary={"en": "least vruntime runs a slice max(min_granularity, floor(latency*w/W)); vruntime += "
                   "ran*1024/weight (weight from nice); arrivals get max(own, min_vruntime); ties: arrival, input",
             "ja": "vruntime最小のタスクをスライスmax(min_granularity, floor(latency*w/W))実行し、vruntime += "
                   "実行時間*1024/重み（重みはnice値から）とします。到着時はmax(自分, min_vruntime)。"
                   "同点は到着順、入力順"},
    rule={"en": "CFS runs the least vruntime", "ja": "CFSはvruntimeが最小のタスクを実行します"},
    keep={"en": "its slice is not used up (no wakeup preemption)",
          "ja": "スライスが残っています（起床時の横取りはありません）"},
)
class CFS(Policy):
    """Linux's Completely Fair Scheduler, on one CPU: a task's weight comes from its nice value (-20 .. 19,
    default 0; nice 0 weighs 1024, each step about 1.25x); vruntime += ran * 1024 / weight, exactly. The
    task with the least vruntime runs for a slice of max(min_granularity, floor(latency * w / W)), W the total
    weight of the runnable tasks (the chosen one included) at dispatch; then the choice is made again. A
    task that arrives gets vruntime = max(its own, min_vruntime), the least vruntime of the runnable tasks,
    the running one included (with none runnable, it keeps its own, 0); a task back from I/O (a wake-up) the same,
    max(its own, min_vruntime), and while blocked its weight is not in W. No wakeup preemption: an arrival or a
    wake-up waits for the end of the running slice. Ties: earlier arrival, then input order. Several CPUs: one
    runnable set for all CPUs: W is the weight of every runnable task, running on any CPU or ready; min_vruntime the
    least vruntime among them (each running task with what it has run so far); the free CPUs take the least
    vruntimes in turn. Per-CPU queues: refused (``queues`` names it), as min_vruntime and W are over every CPU's
    tasks (EEVDF's V too)."""
    name = "cfs"
    per_cpu = False
    parameter_names = ("latency", "min_granularity")
    item_fields = ("nice",)
    ties_by_arrival = True

    @classmethod
    def from_parameters(cls, parameters: Parameters) -> Policy:
        return cls(parameters.latency, parameters.min_granularity)

    def __init__(self, latency: int, min_granularity: int) -> None:
        self.latency, self.min_granularity = latency, min_granularity
        self.runnable_weight = 0   # W: the weights of the tasks that have arrived and not completed

    @staticmethod
    def weight(task: Task) -> int:
        return NICE_WEIGHTS[(task.nice or 0) + 20]

    def vruntime(self, task: Task) -> int:
        """In units of 1/VRUNTIME_SCALE: the lift it got on arrival plus ran * 1024 / weight."""
        ran = task.cpu_done + task.burst - task.remaining
        return task.vruntime_base + ran * VRUNTIME_PER_TIME_UNIT[(task.nice or 0) + 20]

    def key(self, task: Task, now: int) -> Any:
        return self.vruntime(task), task.arrival, task.index

    def quantum(self, task: Task) -> int | None:
        return max(self.min_granularity, self.latency * self.weight(task) // self.runnable_weight)

    def admit(self, task: Task, now: int, least: Callable[[], Task | None]) -> None:
        present = least()
        min_vruntime = self.vruntime(present) if present else task.vruntime_base
        task.vruntime_base = max(task.vruntime_base, min_vruntime)
        self.runnable_weight += self.weight(task)

    def wake(self, task: Task, now: int, least: Callable[[], Task | None], running: Task | None) -> None:
        """A wake-up is placed as an arrival is: vruntime = max(its own, min_vruntime) (its own: what it ran too)."""
        present = least()
        if present is not None:
            task.vruntime_base += max(0, self.vruntime(present) - self.vruntime(task))
        self.runnable_weight += self.weight(task)

    def block(self, task: Task, now: int) -> list[dict[str, Any]]:
        """Blocked, it is not runnable: its weight leaves W until it wakes."""
        self.runnable_weight -= self.weight(task)
        return super().block(task, now)

    def complete(self, task: Task, now: int) -> None:
        self.runnable_weight -= self.weight(task)

    def detail(self, task: Task, now: int) -> Text:
        vruntime, weight = Fraction(self.vruntime(task), VRUNTIME_SCALE), self.weight(task)
        if task.slice_left is not None:   # running: the rest of the slice it was given
            return {"en": f"vruntime {vruntime}, weight {weight}, {task.slice_left} left of its slice",
                    "ja": f"vruntime {vruntime}、重み{weight}、スライス残り{task.slice_left}"}
        formula = f"max({self.min_granularity}, floor({self.latency} × {weight} / {self.runnable_weight}))"
        return {"en": f"vruntime {vruntime}, weight {weight}, slice {self.quantum(task)} = {formula}",
                "ja": f"vruntime {vruntime}、重み{weight}、スライス{self.quantum(task)} = {formula}"}

    def parameters(self) -> dict[str, Any]:
        return {"latency": self.latency, "min_granularity": self.min_granularity}

    def trace_state(self, tasks: Sequence[Task], time: int) -> dict[str, dict[str, Fraction | int]]:
        arrived = [task for task in tasks if task.arrival < time]   # step k shows the arrivals of instant k-1
        return {"vruntime": {task.name: Fraction(self.vruntime(task), VRUNTIME_SCALE) for task in arrived},
                "weight": {task.name: self.weight(task) for task in arrived}}


@words(
    label={"en": "EEVDF", "ja": "EEVDF（適格仮想締切最早優先）"},
    summary={"en": "among tasks with lag V - v >= 0 (V the weighted mean vruntime), the earliest virtual deadline "
                   "runs a slice; deadline = v + slice*1024/weight; arrivals placed at v = V rounded down to "
                   "vruntime's unit; ties: arrival, input",
             "ja": "ラグ V - v >= 0 のタスク（Vは重み付き平均vruntime）のうち仮想締切が最も早いものを"
                   "スライス実行します。締切 = v + スライス*1024/重み。到着時は v = V（vruntimeの単位に切り捨て）。"
                   "同点は到着順、入力順"},
    rule={"en": "EEVDF runs the eligible task with the earliest virtual deadline",
          "ja": "EEVDFは適格なタスクのうち仮想締切が最も早いものを実行します"},
)
class EEVDF(CFS):
    """EEVDF, Earliest Eligible Virtual Deadline First, which replaced CFS in Linux 6.6, on one CPU: weight and
    vruntime as in CFS. V is the weighted average vruntime of the runnable tasks, sum(w * v) / sum(w), the running
    one included; a task is eligible when its lag, V - v, is >= 0. A task asks for the CPU in requests of `slice`
    time units, each with the virtual deadline d = v + slice * 1024 / weight, v taken when the request starts.
    When the CPU is free, the eligible task with the earliest virtual deadline runs its request (or what is left
    of its burst); then its next request starts: d += slice * 1024 / weight. A task that arrives is placed at
    v = V rounded down to vruntime's unit, 1/lcm(the 40 weights) of a time unit: lag 0, or above 0 by less than
    that unit (with none runnable it keeps its own, 0). A task that blocks for I/O leaves the runnable tasks (and V)
    and keeps no lag: back, it is placed as an arrival is, with a new request. No wakeup preemption. Ties: earlier
    arrival, then input order. Several CPUs: one runnable set for all CPUs: V averages over every runnable task,
    running on any CPU or ready, so sum(w * v) grows by 1024 per CPU that ran (or switched into) a task in a time
    unit; the free CPUs take, in turn, the eligible task with the earliest virtual deadline (V does not move between
    their choices); when no waiting task is eligible (the running ones hold V below them all), a free CPU takes the
    waiting task of least vruntime, the nearest to eligible (then input order), so no CPU idles while a task waits.
    Per-CPU queues: refused, as CFS (V is over every CPU's tasks)."""
    name = "eevdf"
    parameter_names = ("slice",)
    dynamic = True            # eligibility moves with V
    queue = "eligible"        # the loop keeps the not yet eligible by vruntime and the eligible by key: O(log n)
    ties_by_arrival = False   # a task level on deadline may not be eligible: no sentence about ties

    @classmethod
    def from_parameters(cls, parameters: Parameters) -> Policy:
        return cls(parameters.slice)

    def __init__(self, slice_length: int) -> None:
        self.slice_length = slice_length
        self.start([])

    def start(self, tasks: list[Task]) -> None:
        """sum(w * v) over the runnable tasks is kept as their placements' part and the time they have run: every
        unit run adds w * 1024 / w = 1024 to it, whichever task ran."""
        self.runnable_weight = 0   # sum(w)
        self.placed = 0            # sum(w * vruntime_base)
        self.left = 0              # time the CPU was idle or ran tasks that have completed: now - left is the
                                   # time the runnable tasks have run
        self.emptied = 0           # when the last runnable task completed

    def weighted_vruntime(self, now: int) -> int:
        """sum(w * v) over the runnable tasks at ``now``, in vruntime units; V = this / sum(w)."""
        return self.placed + NICE_0_WEIGHT * VRUNTIME_SCALE * (now - self.left)

    def average(self, now: int) -> Fraction:
        return Fraction(self.weighted_vruntime(now), self.runnable_weight)

    def request(self, task: Task) -> int:
        """slice * 1024 / weight in vruntime units: how far a request's deadline lies beyond its start."""
        return self.slice_length * VRUNTIME_PER_TIME_UNIT[(task.nice or 0) + 20]

    def key(self, task: Task, now: int) -> Any:
        return task.virtual_deadline, task.arrival, task.index

    def choose(self, ready: EligibleQueue, now: int) -> Task:
        """The CPU is free, so every runnable task is ready: of those with v <= V, the least key."""
        return ready.earliest(self.weighted_vruntime(now), self.runnable_weight, now)

    def quantum(self, task: Task) -> int | None:
        return self.slice_length

    def admit(self, task: Task, now: int, least: Callable[[], Task | None]) -> None:
        ran = task.cpu_done + task.burst - task.remaining   # 0 but for a task back from I/O
        if self.runnable_weight:   # v = V, rounded down
            task.vruntime_base = self.weighted_vruntime(now) // self.runnable_weight - ran * \
                VRUNTIME_PER_TIME_UNIT[(task.nice or 0) + 20]
        else:
            self.left += now - self.emptied   # idle since the last runnable task completed
        self.left -= ran   # its time run counts in sum(w * v) again
        task.virtual_deadline = self.vruntime(task) + self.request(task)
        self.runnable_weight += self.weight(task)
        self.placed += self.weight(task) * task.vruntime_base

    def wake(self, task: Task, now: int, least: Callable[[], Task | None], running: Task | None) -> None:
        """A wake-up is placed as an arrival is: at v = V (lag 0), with a new request."""
        self.admit(task, now, least)

    def block(self, task: Task, now: int) -> list[dict[str, Any]]:
        """Blocked, it leaves the runnable tasks (and V) as a completed task does; it keeps no lag."""
        self.leave(task, now, task.cpu_done)
        task.slice_left = None
        return []

    def leave(self, task: Task, now: int, ran: int) -> None:
        self.runnable_weight -= self.weight(task)
        self.placed -= self.weight(task) * task.vruntime_base
        self.left += ran
        self.emptied = now

    def expire(self, task: Task, now: int) -> list[dict[str, Any]]:
        task.virtual_deadline += self.request(task)
        return []

    def complete(self, task: Task, now: int) -> None:
        self.leave(task, now, task.cpu_done + task.burst)

    def detail(self, task: Task, now: int) -> Text:
        scale = VRUNTIME_SCALE
        vruntime, deadline = Fraction(self.vruntime(task), scale), Fraction(task.virtual_deadline, scale)
        lag = self.average(now) / scale - vruntime
        text = {"en": f"vruntime {vruntime}, lag {lag}, virtual deadline {deadline}",
                "ja": f"vruntime {vruntime}、ラグ{lag}、仮想締切{deadline}"}
        if lag < 0:   # several CPUs: chosen though not eligible (the rule's fallback, in the docstring)
            return {"en": text["en"] + "; not eligible, but no waiting task is: it has the least vruntime",
                    "ja": text["ja"] + "。適格ではありませんが、待っているタスクはどれも適格でなく、vruntimeが最小です"}
        return text

    def parameters(self) -> dict[str, Any]:
        return {"slice": self.slice_length}

    def trace_state(self, tasks: Sequence[Task], time: int) -> dict[str, dict[str, Fraction | int]]:
        numbers = super().trace_state(tasks, time)
        arrived = [task for task in tasks if task.arrival < time]
        numbers["virtual_deadline"] = {task.name: Fraction(task.virtual_deadline, VRUNTIME_SCALE) for task in arrived}
        if self.runnable_weight:
            average = self.average(time)
            runnable = sorted((task for task in arrived if task.completion is None and task.io_until is None),
                              key=lambda task: (task.arrival, task.index))
            numbers["lag"] = {task.name: (average - self.vruntime(task)) / VRUNTIME_SCALE for task in runnable}
        return numbers


RULES: tuple[type[Policy], ...] = (FCFS, SJF, SRTF, RoundRobin, Priority, PreemptivePriority, HRRN, MLFQ, MLQ, EDF,
                                    RateMonotonic, DeadlineMonotonic, Stride, Lottery, CFS,
                                    EEVDF)   # menu order: the article's four first
POLICIES: dict[str, type[Policy]] = {rule.name: rule for rule in RULES}


def make_policy(algorithm: str, parameters: Parameters) -> Policy:
    """The rule named ``algorithm`` with the scenario's parameters."""
    return POLICIES[algorithm].from_parameters(parameters)
