"""The one event loop every CPU rule runs in: time, arrivals, I/O, the ready queue, quanta, switches, the step trace.

At every decision instant t, in this order (the contract's, under the "lab" conventions):
  1. tasks whose arrival is t, and tasks whose I/O ends at t, join the ready queue, in input order;
  2. a task whose quantum expired at t returns to the tail;
  3. rule-specific work (MLFQ's boost);
  4. the rule decides what runs over [t, t+1): keep the running task, preempt it, dispatch, or idle.
Under other conventions (``scenario.Conventions``) the requeue (2) comes first, and the boost (3) before the joins;
under "ostep" the arrivals join before the returns, and returns among themselves in the order they blocked. A CPU
burst that is not a task's last blocks it at its end for its I/O burst; a dispatch of a task other than the one that
ran last first takes ``switch_cost`` units, uninterrupted, and the rule decides again at its end.

The loop jumps from instant to instant (an arrival, a completion, a quantum's end, a boost) and runs the
chosen task for the whole stretch; ``timeline`` still gets one entry per time unit. Step k (k >= 1) is the
slice [k-1, k): its events are those of instant k-1 followed by the slice's end (complete, expire), and
its state is the one after the slice.
"""
from __future__ import annotations

import heapq
import math
from collections import deque
from itertools import groupby
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from ..errors import ScenarioError
from ..narration import fill, join, say
from ..recording import COMPACT, FULL, NONE, put
from .policies import Policy
from .scenario import CONVENTIONS, MAX_HORIZON, Conventions, Task

FULL_TRACE_CELLS = 200_000   # steps x tasks with full snapshots (ready queue, every remaining time)
MAX_COMPACT_STEPS = 50_000   # steps kept in the compact trace (only the steps where something happens)

MESSAGES = {
    "initial": {"en": "Before t=0: {count} {count:task|tasks}; nothing has arrived yet.",
                "ja": "t=0 の前: タスク{count}個。まだ何も到着していません。"},
    "dispatch": {"en": "t={t}: {task} ({detail}) is dispatched: {rule}.",
                 "ja": "t={t}: {task}（{detail}）をディスパッチします: {rule}。"},
    "preempt": {"en": "t={t}: {task} ({detail}) preempts {old} ({old_detail}): {rule}.",
                "ja": "t={t}: {task}（{detail}）が{old}（{old_detail}）を横取りします: {rule}。"},
    "continue": {"en": "t={t}: {task} ({detail}) continues: {keep}.",
                 "ja": "t={t}: {task}（{detail}）が実行を続けます: {keep}。"},
    "idle": {"en": "t={t}: no task is ready, so the CPU is idle until t={until}.",
             "ja": "t={t}: 実行可能なタスクがないので、CPUはt={until}まで空きます。"},
    "tie_arrival": {"en": "It ties with {rival} and arrived earlier.",
                    "ja": "{rival}と同点ですが、先に到着しています。"},
    "tie_input": {"en": "It ties with {rival}, arrived at the same time and comes first in the input.",
                  "ja": "{rival}と同点で同時に到着しましたが、入力順が先です。"},
    "complete": {"en": "{task} completes at t={t}.", "ja": "{task}はt={t}に完了します。"},
    "expire": {"en": "{task}'s quantum expires at t={t}.", "ja": "{task}のクォンタムがt={t}に切れます。"},
    "demote": {"en": "{task} has used its allotment and moves down to level {level}.",
               "ja": "{task}は割り当てを使い切り、レベル{level}に下がります。"},
    "block": {"en": "{task} starts I/O until t={until}.", "ja": "{task}はt={until}までI/Oを行います。"},
    "return": {"en": "{task} returns from I/O.", "ja": "{task}がI/Oから戻ります。"},
    "miss": {"en": "{task} misses its deadline at t={t}; it has {left} left.",
             "ja": "{task}はt={t}に締切を過ぎます。残りは{left}です。"},
    "drop": {"en": "{task} misses its deadline at t={t} and is dropped with {left} left (on_miss abort).",
             "ja": "{task}はt={t}に締切を過ぎ、残り{left}のまま打ち切られます（on_miss abort）。"},
    "switch": {"en": "The switch to {task} takes until t={until}.",
               "ja": "{task}への切り替えにt={until}までかかります。"},
    "switching": {"en": "t={t}: switching to {task} until t={until}.",
                  "ja": "t={t}: t={until}まで{task}への切り替え中です。"},
    "switched": {"en": "t={t}: the switch is over: {task} ({detail}) runs: {rule}.",
                 "ja": "t={t}: 切り替えが終わり、{task}（{detail}）を実行します: {rule}。"},
    # When a convention (scenario.Conventions) decides the order at an instant, the sentence names it.
    "arrival_before_requeue": {
        "en": "{arrived} arrived as {task}'s quantum ended: by the convention arrival_before_requeue ({name}), "
              "{task} goes behind it.",
        "ja": "{task}のクォンタムが切れたときに{arrived}が到着しました。規約 arrival_before_requeue（{name}）により"
              "{task}はその後ろに並びます。"},
    "requeue_before_arrival": {
        "en": "{arrived} arrived as {task}'s quantum ended: by the convention arrival_before_requeue = false "
              "({name}), {task} goes ahead of it.",
        "ja": "{task}のクォンタムが切れたときに{arrived}が到着しました。規約 arrival_before_requeue = false（{name}）"
              "により{task}がその前に並びます。"},
    "boost_after_arrivals": {
        "en": "The boost comes after this instant's arrivals (convention boost_after_arrivals, {name}).",
        "ja": "ブーストはこの時刻の到着の後に行います（規約 boost_after_arrivals、{name}）。"},
    "boost_before_arrivals": {
        "en": "The boost comes before this instant's arrivals, which queue behind every boosted task "
              "(convention boost_after_arrivals = false, {name}).",
        "ja": "ブーストはこの時刻の到着より前に行い、到着はブーストされた全タスクの後ろに並びます"
              "（規約 boost_after_arrivals = false、{name}）。"},
    "boost_order": {"en": "The boost gathers the levels {order} (convention boost_order, {name}).",
                    "ja": "ブーストはレベルを{order}の順に集めます（規約 boost_order、{name}）。"},
    "arrival_before_return": {
        "en": "Arrivals join before tasks returning from I/O at the same instant ({name}).",
        "ja": "同時刻では到着がI/Oから戻るタスクより先に並びます（{name}）。"},
}
CONVENTION_NAME = {"en": "a setting of your own", "ja": "独自に指定した設定"}   # a mapping that is no preset
BOOST_ORDER_WORDS = {"top-first": {"en": "top first", "ja": "上から"},
                     "bottom-first": {"en": "top level, then bottom up", "ja": "最上位、次に下から"}}
SAID_AT_START = frozenset({"return", "switch"})   # events whose sentence comes with the decision's
LAB = CONVENTIONS["lab"]


class HeapQueue:
    """The ready queue of a rule whose keys do not change while tasks wait: a heap, O(log n). An entry is one
    flat tuple, the key's parts then the input position then the task: compared in one pass, twice as fast
    as a key tuple nested in the entry."""

    def __init__(self, policy: Policy) -> None:
        self.policy = policy
        self.heap: list[tuple[Any, ...]] = []

    def __len__(self) -> int:
        return len(self.heap)

    def entry(self, task: Task, now: int) -> tuple[Any, ...]:
        key = self.policy.key(task, now)
        return (*key, task.index, task) if type(key) is tuple else (key, task.index, task)

    def push(self, task: Task, now: int) -> None:
        heapq.heappush(self.heap, self.entry(task, now))

    def best(self, now: int) -> Task | None:
        heap = self.heap
        return heap[0][-1] if heap else None

    def take(self, task: Task) -> None:
        """Remove ``task``, which the loop only ever takes as ``best``: the heap's top."""
        heapq.heappop(self.heap)

    def remove(self, task: Task) -> None:
        """Drop ``task`` wherever it is (a periodic job aborted at its deadline): O(n), rare."""
        self.heap = [entry for entry in self.heap if entry[-1] is not task]
        heapq.heapify(self.heap)

    def tasks(self) -> list[Task]:
        return [entry[-1] for entry in self.heap]

    def ordered(self, now: int) -> list[Task]:
        return [entry[-1] for entry in sorted(self.heap)]

    def rekey(self, now: int) -> None:
        self.heap = [self.entry(entry[-1], now) for entry in self.heap]
        heapq.heapify(self.heap)


class FifoQueue:
    """The ready queue of a rule whose key is the order of joining (``queue = "fifo"``): a deque, O(1)."""

    def __init__(self, policy: Policy) -> None:
        self.queue: deque[Task] = deque()

    def __len__(self) -> int:
        return len(self.queue)

    def push(self, task: Task, now: int) -> None:
        self.queue.append(task)

    def best(self, now: int) -> Task | None:
        queue = self.queue
        return queue[0] if queue else None

    def take(self, task: Task) -> None:
        self.queue.popleft()

    def remove(self, task: Task) -> None:
        self.queue.remove(task)

    def tasks(self) -> list[Task]:
        return list(self.queue)

    def ordered(self, now: int) -> list[Task]:
        return list(self.queue)

    def rekey(self, now: int) -> None:
        """The order of joining never changes."""


class TicketQueue:
    """The ready queue of a rule that draws a ticket (``queue = "tickets"``, lottery): the tasks in queue order
    with their tickets laid out along it, held in a Fenwick tree, so ``total`` is at hand and ``holder(w)``, the
    task holding ticket w (0 <= w < total), is found in O(log n) instead of a walk along the queue. The tree has
    room for 2**k slots, the nodes past the last slot holding more tickets than there can be: a descent never
    enters them, without a bound check at each of its steps."""

    def __init__(self, policy: Policy) -> None:
        self.policy = policy
        self.slots: list[Task | None] = []   # in queue order; None where a task was taken
        self.tickets: list[int] = []         # each slot's tickets (0 where taken)
        self.tree = [0, BEYOND]              # Fenwick tree over the slots' tickets (1-based), 2**k + 1 long
        self.count = self.total = 0
        self.drawn = 0                       # the slot of the last holder found

    def __len__(self) -> int:
        return self.count

    def push(self, task: Task, now: int) -> None:
        if len(self.slots) > 4 * self.count + 1024:
            self.compact()
        tickets = self.policy.tickets(task)
        slots, tree = self.slots, self.tree
        slots.append(task)
        self.tickets.append(tickets)
        index = len(slots)
        if index == len(tree):
            tree += [BEYOND] * (index - 1)   # room for twice the slots
        # The new node covers the slots (index - lowbit, index]: its own tickets and the nodes below it.
        node, child, first = tickets, index - 1, index - (index & -index)
        while child > first:
            node += tree[child]
            child -= child & -child
        tree[index] = node
        self.count += 1
        self.total += tickets

    def best(self, now: int) -> Task | None:
        return self.policy.choose(self, now) if self.count else None

    def take(self, task: Task) -> None:
        """The loop only ever takes the best task: the holder just drawn."""
        slot = self.drawn
        tickets = self.tickets[slot]
        self.slots[slot] = None
        self.tickets[slot] = 0
        self.count -= 1
        self.total -= tickets
        tree, index, size = self.tree, slot + 1, len(self.slots) + 1
        while index < size:
            tree[index] -= tickets
            index += index & -index

    def remove(self, task: Task) -> None:
        """Drop ``task`` wherever it is (a steal from per-CPU queues): O(n) to find it, O(log n) to take it."""
        self.drawn = self.slots.index(task)
        self.take(task)

    def holder(self, ticket: int) -> Task:
        """The task holding ``ticket`` when the tickets are numbered from 0 along the queue."""
        tree, slot = self.tree, 0
        for step in STEPS[len(tree).bit_length() - 1]:   # the last slot whose tickets before it are at most ``ticket``
            if tree[slot + step] <= ticket:
                slot += step
                ticket -= tree[slot]
        self.drawn = slot
        return self.slots[slot]

    def compact(self) -> None:
        """Drop the slots of taken tasks and rebuild the tree in O(n): amortised O(1) per push."""
        self.slots = [task for task in self.slots if task is not None]
        self.tickets = [tickets for tickets in self.tickets if tickets]
        size = len(self.tickets) + 1
        tree = self.tree = [0, *self.tickets] + [BEYOND] * ((1 << size.bit_length()) + 1 - size)
        for index in range(1, size):
            parent = index + (index & -index)
            if parent < size:
                tree[parent] += tree[index]

    def tasks(self) -> list[Task]:
        return [task for task in self.slots if task is not None]

    def ordered(self, now: int) -> list[Task]:
        return self.tasks()

    def rekey(self, now: int) -> None:
        """The queue order never changes."""


BEYOND = 1 << 62   # more tickets than a scenario can hold (10^5 tasks x 10^6 tickets)
# The steps of a descent in a Fenwick tree of 2**bits slots: 2**(bits - 1), ..., 2, 1.
STEPS = [tuple(1 << power for power in reversed(range(bits))) for bits in range(64)]


class CohortQueue:
    """The ready queue of a dynamic rule whose order never changes within a cohort (``queue = "cohorts"``, HRRN:
    of two tasks with the same burst, the earlier arrival always has the higher ratio): a FIFO per cohort,
    so a decision compares only the cohorts' heads, by the key at that time."""

    def __init__(self, policy: Policy) -> None:
        self.policy = policy
        self.cohorts: dict[Any, deque[Task]] = {}
        self.count = 0

    def __len__(self) -> int:
        return self.count

    def push(self, task: Task, now: int) -> None:
        self.cohorts.setdefault(self.policy.cohort(task), deque()).append(task)
        self.count += 1

    def best(self, now: int) -> Task | None:
        return min((cohort[0] for cohort in self.cohorts.values()), key=lambda task: self.policy.key(task, now),
                   default=None)

    def take(self, task: Task) -> None:
        name = self.policy.cohort(task)
        cohort = self.cohorts[name]
        cohort.popleft()   # the loop only ever takes the best task: a cohort's head
        if not cohort:
            del self.cohorts[name]
        self.count -= 1

    def remove(self, task: Task) -> None:
        """Drop ``task`` wherever it is in its cohort (a steal from per-CPU queues)."""
        name = self.policy.cohort(task)
        self.cohorts[name].remove(task)
        if not self.cohorts[name]:
            del self.cohorts[name]
        self.count -= 1

    def tasks(self) -> list[Task]:
        return [task for cohort in self.cohorts.values() for task in cohort]

    def ordered(self, now: int) -> list[Task]:
        return sorted(self.tasks(), key=lambda task: self.policy.key(task, now))

    def rekey(self, now: int) -> None:
        """Keys are computed at every decision anyway."""


class EligibleQueue:
    """The ready queue of a rule that runs the least key among the tasks whose vruntime is within a bound that moves
    with time (``queue = "eligible"``, EEVDF: lag V - v >= 0, V the weighted average vruntime): two heaps, the tasks
    not known to be within it, by vruntime, and those found within it, by key. A task's vruntime and key do not change
    while it waits, so ``earliest`` moves the tasks the bound has passed to the second heap, O(log n) a move, and a
    top found past the bound again back (EEVDF's V never falls from one decision to the next but for rounding an
    arrival's placement down, so that is rare; at most one move in and one back a join, amortised)."""

    def __init__(self, policy: Policy) -> None:
        self.policy = policy
        self.beyond: list[tuple[Any, ...]] = []     # (vruntime, index, task)
        self.eligible: list[tuple[Any, ...]] = []   # (*key, index, vruntime, task)
        self.count = 0

    def __len__(self) -> int:
        return self.count

    def push(self, task: Task, now: int) -> None:
        heapq.heappush(self.beyond, (self.policy.vruntime(task), task.index, task))
        self.count += 1

    def best(self, now: int) -> Task | None:
        return self.policy.choose(self, now) if self.count else None

    def earliest(self, total: int, weights: int, now: int) -> Task:
        """The task of least key among those whose vruntime v has v * weights <= total (V = total / weights); if
        none has, the one of least vruntime (then index)."""
        beyond, eligible, key = self.beyond, self.eligible, self.policy.key
        while beyond and beyond[0][0] * weights <= total:
            vruntime, index, task = heapq.heappop(beyond)
            heapq.heappush(eligible, (*key(task, now), index, vruntime, task))
        while eligible and eligible[0][-2] * weights > total:
            *_, index, vruntime, task = heapq.heappop(eligible)
            heapq.heappush(beyond, (vruntime, index, task))
        if not eligible:   # several CPUs: the running tasks hold V below every waiting one; the nearest to it runs
            vruntime, index, task = heapq.heappop(beyond)
            heapq.heappush(eligible, (*key(task, now), index, vruntime, task))
        return eligible[0][-1]

    def take(self, task: Task) -> None:
        """The loop only ever takes the best task: the top of the eligible heap."""
        heapq.heappop(self.eligible)
        self.count -= 1

    def tasks(self) -> list[Task]:
        return [entry[-1] for entry in self.beyond] + [entry[-1] for entry in self.eligible]

    def ordered(self, now: int) -> list[Task]:
        return sorted(self.tasks(), key=lambda task: self.policy.key(task, now))

    def rekey(self, now: int) -> None:
        """Keys and vruntimes do not change while tasks wait."""


class ScanQueue:
    """The ready queue of any other dynamic rule (aging, your own): a list in queue order, scanned per decision."""

    def __init__(self, policy: Policy) -> None:
        self.policy = policy
        self.queue: list[Task] = []

    def __len__(self) -> int:
        return len(self.queue)

    def push(self, task: Task, now: int) -> None:
        self.queue.append(task)

    def best(self, now: int) -> Task | None:
        return self.policy.choose(self.queue, now) if self.queue else None

    def take(self, task: Task) -> None:
        self.queue.remove(task)

    remove = take

    def tasks(self) -> list[Task]:
        return list(self.queue)

    def ordered(self, now: int) -> list[Task]:
        return sorted(self.queue, key=lambda task: self.policy.key(task, now))

    def rekey(self, now: int) -> None:
        """Keys are computed at every decision anyway."""


ReadyQueue = HeapQueue | FifoQueue | TicketQueue | CohortQueue | EligibleQueue | ScanQueue
QUEUES = {"heap": HeapQueue, "fifo": FifoQueue, "tickets": TicketQueue, "cohorts": CohortQueue,
          "eligible": EligibleQueue, "scan": ScanQueue}


def queue_kind(policy: Policy) -> str:
    """The ready queue a rule gets: the one it names, else a scan if its keys change while tasks wait, else a heap."""
    return policy.queue or ("scan" if policy.dynamic else "heap")


def event(kind: str, task: Task | None, time: int, **extra: Any) -> dict[str, Any]:
    return {"kind": kind, "task": task.name if task else None, "time": time, **extra}


@dataclass
class Trace:
    """The steps kept at ``level``: "full" (every step, with snapshots), "compact" (step 0 and the steps
    where something happens, without snapshots, at most MAX_COMPACT_STEPS of them) or "none"."""
    level: str
    tasks: list[Task]
    policy: Policy
    conventions: Conventions = LAB
    io: bool = False                    # some task does I/O: full steps list the blocked tasks
    told: bool = False                  # the scenario chose its conventions: the sentences name them
    details: bool = False               # full steps carry the running task's quantum left, the rule's numbers, draws
    steps: list[dict[str, Any]] = field(default_factory=list)
    truncated: bool = False
    returns: list[tuple[int, int, Task]] = field(default_factory=list)   # heap: (return time, order, task)
    blocks: int = 0                     # I/O bursts started: the order of returns at one instant under "ostep"
    rule: dict[str, str] = field(init=False)   # the rule's two sentences (its words), for the explanations
    keep: dict[str, str] = field(init=False)

    def __post_init__(self) -> None:
        values = self.policy.parameters()   # the words are templates of the rule's parameters (RR's q)
        self.rule, self.keep = fill(self.policy.rule, **values), fill(self.policy.keep, **values)

    def start_io(self, task: Task, now: int) -> list[dict[str, Any]]:
        """``task``'s CPU burst ended at ``now`` and another follows: it is blocked over [now, now + io), its next
        CPU burst becomes current, and the rule updates its state. Returns the events."""
        io = task.bursts[task.phase + 1]
        task.cpu_done += task.burst
        task.io_done += io
        task.phase += 2
        task.blocks_left -= 1
        task.burst = task.remaining = task.bursts[task.phase]
        task.io_until = now + io
        heapq.heappush(self.returns, (now + io, self.blocks if self.conventions.ostep else task.index, task))
        self.blocks += 1
        return [event("block", task, now, until=now + io), *self.policy.block(task, now)]

    def snapshot(self, running: Task | None) -> dict[str, Any]:
        """A step's details of the task that ran the slice, as they stood during it: its quantum left after the slice
        and the rule's own numbers for it (MLFQ's level, and its allotment left in quanta, this one included)."""
        if running is None:
            return {}
        found = {} if running.slice_left is None else {"quantum_left": running.slice_left}
        found.update((name, getattr(running, name)) for name in self.policy.details)
        return found

    def name(self) -> dict[str, str]:
        """The conventions, as a sentence names them: the preset's name, or that they are a setting of one's own."""
        return CONVENTION_NAME if self.conventions.name is None else \
            {"en": f'"{self.conventions.name}"', "ja": f"「{self.conventions.name}」"}

    def record(self, time: int, running: Task | None, ready: list[str] | None, events: list[dict[str, Any]],
               decision: str, why: dict[str, str], switch: Task | None = None,
               details: dict[str, Any] | None = None) -> None:
        """Step ``time``: the initial state (0) or the slice [time-1, time) and the state after it."""
        if self.level == COMPACT and not events and time:
            return
        if self.level == COMPACT and len(self.steps) >= MAX_COMPACT_STEPS:
            self.truncated = True
            return
        step = {"step": time, "time": time, "running": running.name if running else None, "events": events,
                "decision": decision, "why": why}
        if switch is not None:
            step["switch"] = switch.name
        if self.level == FULL:
            step.update(ready=ready, remaining={task.name: task.remaining for task in self.tasks})
            if self.io:
                step["blocked"] = [{"task": task.name, "until": until} for until, _, task in sorted(self.returns)]
            if self.details:
                step.update(details or {})
                if self.policy.drawn is not None and any(e["kind"] == "dispatch" for e in events):
                    step["draw"] = {"ticket": self.policy.drawn[0], "tickets": self.policy.drawn[1]}
            if type(self.policy).trace_state is not Policy.trace_state:
                exact: dict[str, Any] = {}
                for key, values in self.policy.trace_state(self.tasks, time).items():
                    put(step, exact, key, values)
                step["exact"] = exact
        self.steps.append(step)


def schedule(tasks: list[Task], policy: Policy, level: str, conventions: Conventions = LAB,
             switch_cost: int = 0, tell: bool = False, details: bool = False, watched: Iterable[Task] = (),
             abort: bool = False) -> tuple[list[str | dict[str, str] | None], Trace, int]:
    """Run ``tasks`` under ``policy``; returns the per-unit timeline, the trace and the number of switches (counted
    when they cost time: at no cost they are the timeline's changes of task). Mutates the tasks. ``tell``: the
    scenario chose its conventions, so the sentences name them where they decide; ``details``: full steps carry the
    running task's quantum left and the rule's own numbers (``step_details``). ``watched``: the periodic jobs, whose
    deadlines are instants: a job not complete at its deadline misses it (an event, first of the instant's), and
    with ``abort`` it is dropped there (its completion stays None).

    Without a trace (``level`` "none") this loop is the whole cost of a run, some 10^6 passes at the limits, so it
    asks the queue and the rule directly (a decision and a stretch's end are written out here, not in helpers)."""
    arrivals = sorted(tasks, key=lambda task: (task.arrival, task.index))
    arrival_times = [task.arrival for task in arrivals] + [math.inf]   # inf: no arrival is left
    record = level != NONE
    rule_instants = type(policy).next_instant is not Policy.next_instant
    admits = type(policy).admit is not Policy.admit   # skip the no-op hook: 10^5 calls saved at the limit
    wakes = type(policy).wake is not Policy.wake
    streaks = type(policy).streak is not Policy.streak
    expires = type(policy).expire is not Policy.expire
    completes = type(policy).complete is not Policy.complete
    preemptive = policy.preemptive
    every_instant = policy.dynamic and preemptive   # its keys change with time: it looks again at every instant
    requeue_first = not conventions.arrival_before_requeue   # the expired task rejoins before the instant's joins
    boost_first = not conventions.boost_after_arrivals       # the rule's own instant comes before the joins
    arrivals_first = conventions.ostep                       # arrivals join before returns at one instant
    early = requeue_first or boost_first
    has_io = any(task.blocks_left for task in tasks)
    tell = tell and record
    policy.start(tasks)
    ready = QUEUES[queue_kind(policy)](policy)
    push, take, best = ready.push, ready.take, ready.best
    keyed = isinstance(ready, (HeapQueue, FifoQueue))
    trace = Trace(level, tasks, policy, conventions, has_io, told=tell, details=details)
    returns = trace.returns   # heap of (return time, order, task): the blocked tasks
    if record:
        trace.record(0, None, [], [], "initial", say(MESSAGES, "initial", count=len(tasks)))
    timeline: list[str | dict[str, str] | None] = []
    append, extend = timeline.append, timeline.extend
    queued = 0           # running count of joins to the ready queue: FIFO order for every rule
    next_arrival = 0     # index into ``arrivals``
    unfinished = len(tasks)
    running: Task | None = None
    expired: Task | None = None   # its quantum ended at t; it returns to the tail after t's arrivals
    streak = 0           # without trace, the quantum of a running task granted several in a row (0: none)
    last_ran: Task | None = None  # the task that ran last on the CPU: dispatching another is a switch
    switch_end = switches = 0     # the end of the switch under way (none: 0 <= t), and how many there were (when
                                  # they cost time)
    events: list[dict[str, Any]] = []
    due = sorted(watched, key=lambda job: (job.deadline, job.index), reverse=True)   # the next deadline last
    watching = bool(due)
    t = 0

    def least() -> Task | None:
        """The present task the key prefers: running, just expired, or ready (the best one, if the queue is in key
        order; a rule that scans finds it itself)."""
        found, found_key = None, None
        for task in (running, expired, best(t) if keyed else None):
            if task is not None:
                key = policy.key(task, t)
                if found is None or key < found_key:
                    found, found_key = task, key
        return found

    def instant_work() -> None:
        """The rule's own work at t (MLFQ's boost), on every task present: ready, running, just expired."""
        present = ready.tasks() + ([running] if running else []) + ([expired] if expired else [])
        gathered = len({task.level for task in present if task.level}) if tell else 0
        rule_events = policy.at_instant(t, present)
        if rule_events:
            ready.rekey(t)
            if record:
                events.extend(rule_events)
                if tell and any(e["kind"] == "boost" for e in rule_events):
                    boosted.append(gathered)

    while unfinished:
        # 1. arrivals and returns, 2. the expired task's requeue, 3. the rule's own work, 4. the decision (the
        # conventions may put 2 and 3 first).
        if record:
            events = []
            notes: list[dict[str, str]] = []
            boosted: list[int] = []   # at a boost: how many levels below the top it gathered
        if due and due[-1].deadline == t:
            while due and due[-1].deadline == t:
                job = due.pop()
                if job.completion is not None:
                    continue
                if record:
                    events.append(event("miss", job, t, left=job.remaining, dropped=abort))
                if abort:   # it leaves the system, as a completed task does
                    unfinished -= 1
                    if completes:
                        policy.complete(job, t)
                    if job is running:
                        running, switch_end = None, min(switch_end, t)
                    elif job is expired:
                        expired = None
                    else:
                        ready.remove(job)
            if not unfinished:
                break
        requeued = expired
        if early:   # conventions that put the requeue, or the rule's instant, before the joins
            if requeue_first and expired is not None:
                expired.queued, queued = queued, queued + 1
                push(expired, t)
                if record:
                    events.append(event("requeue", expired, t))
                expired = None
            if rule_instants and boost_first and policy.next_instant(t - 1) == t:
                instant_work()
        if returns and returns[0][0] == t:
            joining = []
            while arrival_times[next_arrival] == t:
                joining.append(arrivals[next_arrival])
                next_arrival += 1
            back = []
            while returns and returns[0][0] == t:
                back.append(heapq.heappop(returns)[-1])
            if record and arrivals_first and joining and tell:
                notes.append(say(MESSAGES, "arrival_before_return", name=trace.name()))
            for task in joining + back if arrivals_first else sorted(joining + back, key=lambda task: task.index):
                task.queued, queued = queued, queued + 1
                returning = task.io_until is not None
                if not returning:
                    if admits:
                        policy.admit(task, t, least)
                else:
                    task.io_until = None
                    task.ready_since = t
                    if wakes:
                        policy.wake(task, t, least, running)
                push(task, t)
                if record:
                    events.append(event("return" if returning else "arrive", task, t))
        else:
            while arrival_times[next_arrival] == t:
                task = arrivals[next_arrival]
                next_arrival += 1
                if admits:
                    policy.admit(task, t, least)
                task.queued, queued = queued, queued + 1
                push(task, t)
                if record:
                    events.append(event("arrive", task, t))
        if expired is not None:
            expired.queued, queued = queued, queued + 1
            push(expired, t)
            if record:
                events.append(event("requeue", expired, t))
            expired = None
        if rule_instants and not boost_first and policy.next_instant(t - 1) == t:
            instant_work()
        upcoming = arrival_times[next_arrival]   # the next arrival or return: the next join
        if returns and returns[0][0] < upcoming:
            upcoming = returns[0][0]
        if due and due[-1].deadline < upcoming:   # a deadline is an instant: the rule may decide again there
            upcoming = due[-1].deadline

        # The decision: dispatch the best ready task onto a free CPU (idle if none), or let it preempt the running
        # one if the rule preempts and says so, or continue; none while a switch is under way.
        chosen = None
        if switch_end > t:
            decision = "switch"
        elif running is None:
            chosen = best(t)
            decision = "idle" if chosen is None else "dispatch"
        else:
            decision = "continue"
            if preemptive:
                candidate = best(t)
                if candidate is not None and policy.preempts(candidate, running, t):
                    chosen, decision = candidate, "preempt"
        if record:
            why = explain(trace, ready, decision, chosen, running, t, switch_end)
        if chosen is not None:
            take(chosen)
            if running is not None:
                push(running, t)
                if record:
                    events.append(event("preempt", running, t))
            running = chosen
            if record:
                events.append(event("dispatch", running, t))
            if switch_cost and last_ran is not None and running is not last_ran:
                switches += 1
                switch_end = t + switch_cost
                if switch_end > MAX_HORIZON:
                    raise ScenarioError("switch_cost", f"the run would pass the documented horizon of {MAX_HORIZON} "
                                                       f"time units with its switches")
                if record:
                    events.append(event("switch", running, t, until=switch_end))
                    why = join(why, say(MESSAGES, "switch", task=running.name, until=switch_end))
            elif running.first_run is None:
                running.first_run = t
        elif switch_end == t and running is not None and running.first_run is None:
            running.first_run = t   # the switch into it is over and no rule took the CPU from it
        switching = switch_end > t
        if record and events:
            said = [say(MESSAGES, e["kind"], task=e["task"]) for e in events if e["kind"] == "return"]
            if watching:
                said[:0] = [say(MESSAGES, "drop" if e["dropped"] else "miss", task=e["task"], t=t, left=e["left"])
                            for e in events if e["kind"] == "miss"]
            if tell:
                said += convention_notes(trace, events, boosted) + notes
            if said:
                why = join(*said, why) if why else join(*said)

        # The stretch: until the next instant at which anything can change (an arrival or return, the running task's
        # completion or quantum end, the rule's own instant, a switch's end), or the next time unit for a rule that
        # looks again at every one.
        if switching:
            end = switch_end if switch_end < upcoming else upcoming
            if rule_instants:
                end = min(end, policy.next_instant(t) or end)
            extend([{"switch": running.name}] * (end - t))
        elif running is None:
            end = upcoming   # the CPU idles only while a task is still to arrive or return
            if rule_instants and has_io:   # a boost lifts blocked tasks too
                end = min(end, policy.next_instant(t) or end)
            if record:
                events.append(event("idle", None, t, until=end))
                why = join(why, continuation(trace, None, t, end)) if why else continuation(trace, None, t, end)
            extend([None] * (end - t))
        else:
            last_ran = running
            if running.slice_left is None:
                running.slice_left = policy.quantum(running)
                # Dispatched again as soon as its quantum ended: without a trace, a rule that can say for how many
                # quanta in a row (Stride) has them run as one stretch. (Asked only then: it costs a look at the
                # rival.)
                if streaks and running is requeued and not record and running.slice_left is not None:
                    streak = running.slice_left
                    wins = policy.streak(running, best(t), t)
                    running.slice_left = streak * (wins or -(-running.remaining // streak))
            slice_left = running.slice_left
            end = t + (slice_left if slice_left is not None and slice_left < running.remaining else running.remaining)
            if upcoming < end:
                end = upcoming
            if rule_instants:
                end = min(end, policy.next_instant(t) or end)
            if every_instant:
                end = t + 1
            if end - t == 1:
                append(running.name)
            else:
                extend([running.name] * (end - t))

        if record:
            if switching:
                record_switch(trace, ready, running, t, end, events, why)
            else:
                record_stretch(trace, policy, ready, running, t, end, events, decision, why)
            record = not trace.truncated
        elif running is not None and not switching:   # no trace: the whole stretch at once (advance and finish)
            running.remaining -= end - t
            if running.slice_left is not None:
                running.slice_left -= end - t
            if streak:   # the quanta that ended inside the stretch expire as they would have one by one
                for boundary in range(t + streak, end, streak):
                    policy.expire(running, boundary)
                running.slice_left, streak = (t - end) % streak, 0
            if running.remaining == 0:
                if running.blocks_left:
                    trace.start_io(running, end)
                else:
                    running.completion = end
                    if completes:
                        policy.complete(running, end)
            elif running.slice_left == 0 and expires:
                policy.expire(running, end)
        if running is not None and not switching:
            if has_io and running.io_until is not None:   # blocked at the end of its CPU burst
                running = None
            elif running.remaining == 0:
                unfinished -= 1
                running = None
            elif running.slice_left == 0:
                running.slice_left = None
                expired, running = running, None
        t = end
    return timeline, trace, switches


def record_switch(trace: Trace, ready: ReadyQueue, task: Task, t: int, end: int, events: list[dict[str, Any]],
                  why: dict[str, str]) -> None:
    """The steps of [t, end) spent switching to ``task``: no task runs, nothing is decided."""
    names = [queued.name for queued in ready.ordered(t)] if trace.level == FULL else None
    for time in range(t + 1, end + 1) if trace.level == FULL else sorted({t + 1, end}):
        first = time == t + 1
        trace.record(time, None, names, events if first else [], decision_of(events, first),
                     why if first else say(MESSAGES, "switching", t=time - 1, task=task.name, until=end), task)


def decision_of(events: list[dict[str, Any]], first: bool) -> str:
    """A switch's first step is the decision that started it (dispatch or preempt); the others are ``switch``."""
    if first:
        kinds = [e["kind"] for e in events]
        if "switch" in kinds:
            return "preempt" if "preempt" in kinds else "dispatch"
    return "switch"


def convention_notes(trace: Trace, events: list[dict[str, Any]], boosted: list[int]) -> list[dict[str, str]]:
    """Sentences naming the convention that decided the order at this instant: an arrival and a requeue (a), a boost
    with arrivals (b), a boost gathering more than one level below the top (c)."""
    conventions, name = trace.conventions, trace.name()
    notes = []
    arrived = [e["task"] for e in events if e["kind"] == "arrive"]
    requeued = next((e["task"] for e in events if e["kind"] == "requeue"), None)
    if arrived and requeued is not None:
        key = "arrival_before_requeue" if conventions.arrival_before_requeue else "requeue_before_arrival"
        notes.append(say(MESSAGES, key, arrived=", ".join(arrived), task=requeued, name=name))
    if boosted and arrived:
        key = "boost_after_arrivals" if conventions.boost_after_arrivals else "boost_before_arrivals"
        notes.append(say(MESSAGES, key, name=name))
    if boosted and boosted[0] > 1:
        notes.append(say(MESSAGES, "boost_order", order=BOOST_ORDER_WORDS[conventions.boost_order], name=name))
    return notes


def record_stretch(trace: Trace, policy: Policy, ready: ReadyQueue, running: Task | None, t: int,
                   end: int, events: list[dict[str, Any]], decision: str, why: dict[str, str]) -> None:
    """Run the stretch [t, end) and record its steps: all of them ("full") or the first and last ("compact")."""
    full = trace.level == FULL
    ready_names = [task.name for task in ready.ordered(t)] if full else None
    done = t
    for time in range(t + 1, end + 1) if full else sorted({t + 1, end}):
        advance(running, time - 1 - done)
        first = time == t + 1
        step_why = why if first else continuation(trace, running, time - 1, end)
        if full and not first and policy.dynamic:
            ready_names = [task.name for task in ready.ordered(time - 1)]
        advance(running, 1)
        done = time
        details = trace.snapshot(running) if trace.details else None   # before the slice's end changes them
        end_events = finish(trace, running, time) if time == end else []
        trace.record(time, running, ready_names, (events if first else []) + end_events,
                     decision if first else ("continue" if running else "idle"),
                     join(step_why, *map(end_sentence, end_events)), details=details)


def explain(trace: Trace, ready: ReadyQueue, decision: str, chosen: Task | None, running: Task | None,
            t: int, switch_end: int = 0) -> dict[str, str]:
    """The sentence for a decision (a full trace also says when arrival or input order broke a tie)."""
    if decision == "idle":
        return {}
    policy = trace.policy
    if decision == "switch":
        return say(MESSAGES, "switching", t=t, task=running.name, until=switch_end)
    if decision == "continue" and switch_end == t:   # the switch into it ends now
        return say(MESSAGES, "switched", t=t, task=running.name, detail=policy.detail(running, t), rule=trace.rule)
    if decision == "continue":
        return continuation(trace, running, t, t + 1)
    why = say(MESSAGES, "preempt", t=t, task=chosen.name, detail=policy.detail(chosen, t), old=running.name,
              old_detail=policy.detail(running, t), rule=trace.rule) if decision == "preempt" else \
        say(MESSAGES, "dispatch", t=t, task=chosen.name, detail=policy.detail(chosen, t), rule=trace.rule)
    ties = trace.level == FULL and policy.ties_by_arrival
    return join(why, *tie_note(policy, ready, chosen, t)) if ties else why


def tie_note(policy: Policy, ready: ReadyQueue, chosen: Task, t: int) -> list[dict[str, str]]:
    """A sentence when the rule's own criterion (the key's first part) ties and arrival or input order decided.
    O(ready), so only in the full trace, which is O(tasks) per step anyway."""
    criterion = policy.key(chosen, t)[0]
    rivals = [task for task in ready.tasks() if task is not chosen and policy.key(task, t)[0] == criterion]
    if not rivals:
        return []
    rival = min(rivals, key=lambda task: (task.arrival, task.index))
    reason = "tie_arrival" if chosen.arrival < rival.arrival else "tie_input"
    return [say(MESSAGES, reason, task=chosen.name, rival=rival.name)]


def continuation(trace: Trace, running: Task | None, t: int, until: int) -> dict[str, str]:
    if running is None:
        return say(MESSAGES, "idle", t=t, until=until)
    return say(MESSAGES, "continue", t=t, task=running.name, detail=trace.policy.detail(running, t),
               keep=trace.keep)


def advance(task: Task | None, ran: int) -> None:
    if task is not None:
        task.remaining -= ran
        if task.slice_left is not None:
            task.slice_left -= ran


def finish(trace: Trace, task: Task | None, time: int) -> list[dict[str, Any]]:
    """The end of a recorded stretch: the task completes, starts I/O, or its quantum expires (the rule updates its
    state). Returns the events."""
    if task is None:
        return []
    policy = trace.policy
    if task.remaining == 0 and task.blocks_left:
        return trace.start_io(task, time)
    if task.remaining == 0:
        task.completion = time
        policy.complete(task, time)
        return [event("complete", task, time)]
    if task.slice_left == 0:
        return [event("expire", task, time), *policy.expire(task, time)]
    return []


def end_sentence(end_event: dict[str, Any]) -> dict[str, str]:
    return say(MESSAGES, end_event["kind"], task=end_event["task"], t=end_event["time"], level=end_event.get("level"),
               until=end_event.get("until"))


def context_switches(timeline: Iterable[str | dict[str, str] | None], switching: bool = False) -> int:
    """Context switches: how often the CPU goes from one task to a different one (idle gaps, and the units spent
    ``switching``, ignored). Without the idle units, each run of one name is one stretch; ``groupby`` folds them in C,
    and they are only counted, so a 10^6-unit timeline costs a few milliseconds and no memory."""
    names = (entry for entry in timeline if type(entry) is str) if switching else filter(None, timeline)
    return max(0, sum(1 for _ in groupby(names)) - 1)
