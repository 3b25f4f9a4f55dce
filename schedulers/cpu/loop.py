"""The one event loop every CPU rule runs in: time, arrivals, the ready queue, quanta, and the step trace.

At every decision instant t, in this order (the contract's):
  1. tasks whose arrival is t join the ready queue, in input order;
  2. a task whose quantum expired at t returns to the tail;
  3. rule-specific work (MLFQ's boost);
  4. the rule decides what runs over [t, t+1): keep the running task, preempt it, dispatch, or idle.

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

from ..narration import fill, join, say
from ..recording import COMPACT, FULL, NONE, put
from .policies import Policy
from .scenario import Task

FULL_TRACE_CELLS = 200_000   # steps x tasks with full snapshots (ready queue, every remaining time)
MAX_COMPACT_STEPS = 50_000   # steps kept in the compact trace (only the steps where something happens)

MESSAGES = {
    "initial": {"en": "Before t=0: {count} tasks; nothing has arrived yet.",
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
}


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
        """The task of least key among those whose vruntime v has v * weights <= total (V = total / weights)."""
        beyond, eligible, key = self.beyond, self.eligible, self.policy.key
        while beyond and beyond[0][0] * weights <= total:
            vruntime, index, task = heapq.heappop(beyond)
            heapq.heappush(eligible, (*key(task, now), index, vruntime, task))
        while eligible[0][-2] * weights > total:
            *_, index, vruntime, task = heapq.heappop(eligible)
            heapq.heappush(beyond, (vruntime, index, task))
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
    steps: list[dict[str, Any]] = field(default_factory=list)
    truncated: bool = False
    rule: dict[str, str] = field(init=False)   # the rule's two sentences (its words), for the explanations
    keep: dict[str, str] = field(init=False)

    def __post_init__(self) -> None:
        values = self.policy.parameters()   # the words are templates of the rule's parameters (RR's q)
        self.rule, self.keep = fill(self.policy.rule, **values), fill(self.policy.keep, **values)

    def record(self, time: int, running: Task | None, ready: list[str] | None, events: list[dict[str, Any]],
               decision: str, why: dict[str, str]) -> None:
        """Step ``time``: the initial state (0) or the slice [time-1, time) and the state after it."""
        if self.level == COMPACT and not events and time:
            return
        if self.level == COMPACT and len(self.steps) >= MAX_COMPACT_STEPS:
            self.truncated = True
            return
        step = {"step": time, "time": time, "running": running.name if running else None, "events": events,
                "decision": decision, "why": why}
        if self.level == FULL:
            step.update(ready=ready, remaining={task.name: task.remaining for task in self.tasks})
            if type(self.policy).trace_state is not Policy.trace_state:
                exact: dict[str, Any] = {}
                for key, values in self.policy.trace_state(self.tasks, time).items():
                    put(step, exact, key, values)
                step["exact"] = exact
        self.steps.append(step)


def schedule(tasks: list[Task], policy: Policy, level: str) -> tuple[list[str | None], Trace]:
    """Run ``tasks`` under ``policy``; returns the per-unit timeline and the trace. Mutates the tasks.

    Without a trace (``level`` "none") this loop is the whole cost of a run, some 10^6 passes at the limits, so it
    asks the queue and the rule directly (a decision and a stretch's end are written out here, not in helpers)."""
    arrivals = sorted(tasks, key=lambda task: (task.arrival, task.index))
    arrival_times = [task.arrival for task in arrivals] + [math.inf]   # inf: no arrival is left
    record = level != NONE
    rule_instants = type(policy).next_instant is not Policy.next_instant
    admits = type(policy).admit is not Policy.admit   # skip the no-op hook: 10^5 calls saved at the limit
    streaks = type(policy).streak is not Policy.streak
    expires = type(policy).expire is not Policy.expire
    completes = type(policy).complete is not Policy.complete
    preemptive = policy.preemptive
    every_instant = policy.dynamic and preemptive   # its keys change with time: it looks again at every instant
    policy.start(tasks)
    ready = QUEUES[queue_kind(policy)](policy)
    push, take, best = ready.push, ready.take, ready.best
    keyed = isinstance(ready, (HeapQueue, FifoQueue))
    trace = Trace(level, tasks, policy)
    if record:
        trace.record(0, None, [], [], "initial", say(MESSAGES, "initial", count=len(tasks)))
    timeline: list[str | None] = []
    append, extend = timeline.append, timeline.extend
    queued = 0           # running count of joins to the ready queue: FIFO order for every rule
    next_arrival = 0     # index into ``arrivals``
    unfinished = len(tasks)
    running: Task | None = None
    expired: Task | None = None   # its quantum ended at t; it returns to the tail after t's arrivals
    streak = 0           # without trace, the quantum of a running task granted several in a row (0: none)
    events: list[dict[str, Any]] = []
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

    while unfinished:
        # 1. arrivals, 2. the expired task's requeue, 3. the rule's own work, 4. the decision.
        if record:
            events = []
        while arrival_times[next_arrival] == t:
            task = arrivals[next_arrival]
            next_arrival += 1
            if admits:
                policy.admit(task, t, least)
            task.queued, queued = queued, queued + 1
            push(task, t)
            if record:
                events.append(event("arrive", task, t))
        requeued = expired
        if expired is not None:
            expired.queued, queued = queued, queued + 1
            push(expired, t)
            if record:
                events.append(event("requeue", expired, t))
            expired = None
        if rule_instants and policy.next_instant(t - 1) == t:
            rule_events = policy.at_instant(t, ready.tasks() + ([running] if running else []))
            if rule_events:
                ready.rekey(t)
                if record:
                    events += rule_events

        # The decision: dispatch the best ready task onto a free CPU (idle if none), or let it preempt the running
        # one if the rule preempts and says so, or continue.
        chosen = None
        if running is None:
            chosen = best(t)
            decision = "idle" if chosen is None else "dispatch"
        else:
            decision = "continue"
            if preemptive:
                candidate = best(t)
                if candidate is not None and policy.preempts(candidate, running, t):
                    chosen, decision = candidate, "preempt"
        if record:
            why = explain(trace, ready, decision, chosen, running, t)
        if chosen is not None:
            take(chosen)
            if running is not None:
                push(running, t)
                if record:
                    events.append(event("preempt", running, t))
            running = chosen
            if running.first_run is None:
                running.first_run = t
            if record:
                events.append(event("dispatch", running, t))

        # The stretch: until the next instant at which anything can change (an arrival, the running task's
        # completion or quantum end, the rule's own instant), or the next time unit for a rule that looks again
        # at every one.
        if running is None:
            end = arrival_times[next_arrival]   # the CPU idles only while a task is still to arrive
            if record:
                events.append(event("idle", None, t, until=end))
                why = continuation(trace, None, t, end)
            extend([None] * (end - t))
        else:
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
            if arrival_times[next_arrival] < end:
                end = arrival_times[next_arrival]
            if rule_instants:
                end = min(end, policy.next_instant(t) or end)
            if every_instant:
                end = t + 1
            if end - t == 1:
                append(running.name)
            else:
                extend([running.name] * (end - t))

        if record:
            record_stretch(trace, policy, ready, running, t, end, events, decision, why)
            record = not trace.truncated
        elif running is not None:   # no trace: the whole stretch at once (advance and finish, inline)
            running.remaining -= end - t
            if running.slice_left is not None:
                running.slice_left -= end - t
            if streak:   # the quanta that ended inside the stretch expire as they would have one by one
                for boundary in range(t + streak, end, streak):
                    policy.expire(running, boundary)
                running.slice_left, streak = (t - end) % streak, 0
            if running.remaining == 0:
                running.completion = end
                if completes:
                    policy.complete(running, end)
            elif running.slice_left == 0 and expires:
                policy.expire(running, end)
        if running is not None and running.remaining == 0:
            unfinished -= 1
            running = None
        elif running is not None and running.slice_left == 0:
            running.slice_left = None
            expired, running = running, None
        t = end
    return timeline, trace


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
        end_events = finish(policy, running, time) if time == end else []
        trace.record(time, running, ready_names, (events if first else []) + end_events,
                     decision if first else ("continue" if running else "idle"),
                     join(step_why, *map(end_sentence, end_events)))


def explain(trace: Trace, ready: ReadyQueue, decision: str, chosen: Task | None, running: Task | None,
            t: int) -> dict[str, str]:
    """The sentence for a decision (a full trace also says when arrival or input order broke a tie)."""
    if decision == "idle":
        return {}
    if decision == "continue":
        return continuation(trace, running, t, t + 1)
    policy = trace.policy
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


def finish(policy: Policy, task: Task | None, time: int) -> list[dict[str, Any]]:
    """The end of a recorded stretch: the task completes, or its quantum expires (the rule updates its
    state). Returns the events."""
    if task is None:
        return []
    if task.remaining == 0:
        task.completion = time
        policy.complete(task, time)
        return [event("complete", task, time)]
    if task.slice_left == 0:
        return [event("expire", task, time), *policy.expire(task, time)]
    return []


def end_sentence(end_event: dict[str, Any]) -> dict[str, str]:
    return say(MESSAGES, end_event["kind"], task=end_event["task"], t=end_event["time"], level=end_event.get("level"))


def context_switches(timeline: Iterable[str | None]) -> int:
    """Context switches: how often the CPU goes from one task to a different one (idle gaps ignored).
    Without the idle units, each run of one name is one stretch; ``groupby`` folds them in C, and they are
    only counted, so a 10^6-unit timeline costs a few milliseconds and no memory."""
    return max(0, sum(1 for _ in groupby(filter(None, timeline))) - 1)
