"""Several CPUs sharing one ready queue (``cpus`` > 1): the loop of ``loop.py``'s rules, one time unit at a time.

At every instant t, in this order (under the "lab" conventions; the others move the requeue and the boost first):
  1. arrivals and returns from I/O join the ready queue, in input order;
  2. the tasks whose quantum ended at t rejoin its tail, in CPU order;
  3. the rule's own work (MLFQ's boost);
  4. every free CPU is filled with the rule's best ready task, best first: a task takes the CPU it last ran on if
     that one is free (affinity), else the lowest-numbered free CPU; a dispatch on another CPU than its last is a
     migration (a first dispatch never is);
  5. then, for a preemptive rule, one preemption at a time: the best ready task preempts the running task the rule
     ranks worst (the greatest key: its own order with the ties reversed) when the rule says it is strictly better,
     and takes the CPU it freed.
Then every CPU runs its task for [t, t+1) (or goes on switching into it: ``switch_cost`` applies per CPU, a switch
being a dispatch of another task than the one that last ran on that CPU), and the slice's ends (completion, I/O,
quantum) are applied in CPU order. With one CPU the run is ``loop.schedule``'s, which is faster.

Per-CPU queues (``queues = "per-cpu"``): each CPU has its own ready queue. A task joins (1, 2, a preemption) the queue
of the CPU it last ran on, or, before it has ever run, the shortest queue (its waiting tasks; ties: the lowest
number). 4: every free CPU, in CPU order, takes its own queue's best task; then, with ``steal``, every CPU still free
(its queue is empty), in CPU order, takes the task that joined last (the tail) of the longest queue (ties: the lowest
number). 5: on each CPU, in CPU order, its queue's best task preempts its running task when the rule says so.
"""
from __future__ import annotations

import heapq
from fractions import Fraction
from dataclasses import dataclass, field
from typing import Any

from ..catalog import json_number
from ..errors import ScenarioError
from ..narration import join, say
from ..recording import COMPACT, FULL, NONE, put
from .loop import LAB, MAX_COMPACT_STEPS, MESSAGES, QUEUES, FifoQueue, HeapQueue, Trace, context_switches, \
    end_sentence, event, finish, queue_kind
from .policies import EEVDF, Policy
from .scenario import MAX_HORIZON, Conventions, Task

WORDS = {
    "dispatch": {"en": "t={t}: {task} ({detail}) is dispatched on CPU {cpu}: {rule}.",
                 "ja": "t={t}: {task}（{detail}）をCPU {cpu}にディスパッチします: {rule}。"},
    "preempt": {"en": "t={t}: {task} ({detail}) preempts {old} ({old_detail}) on CPU {cpu}: {rule}.",
                "ja": "t={t}: {task}（{detail}）がCPU {cpu}で{old}（{old_detail}）を横取りします: {rule}。"},
    "migrate": {"en": "{task} migrates from CPU {source} to CPU {cpu}.",
                "ja": "{task}はCPU {source}からCPU {cpu}へ移ります。"},
    "continue": {"en": "t={t}: no CPU changes its task ({tasks}): {keep}.",
                 "ja": "t={t}: どのCPUもタスクを替えません（{tasks}）: {keep}。"},
    "switching": {"en": "t={t}: CPU {cpu} is switching to {task} until t={until}.",
                  "ja": "t={t}: CPU {cpu}はt={until}まで{task}への切り替え中です。"},
    "idle": {"en": "t={t}: no task is ready, so every CPU is idle.",
             "ja": "t={t}: 実行可能なタスクがないので、すべてのCPUが空いています。"},
    "steal": {"en": "t={t}: CPU {cpu} steals {task} ({detail}) from CPU {source}'s queue: its own queue is empty and "
                    "that one is the longest.",
              "ja": "t={t}: CPU {cpu}は自分のキューが空なので、最も長いCPU {source}のキューから{task}（{detail}）を"
                    "スチールします。"},
    "stranded": {"en": "CPU {cpu} idles, its own queue empty, while another CPU's queue holds {tasks} (no stealing).",
                 "ja": "CPU {cpu}は自分のキューが空なので空いたままです。ほかのCPUのキューでは{tasks}が待っています"
                       "（スチールなし）。"},
}


@dataclass(eq=False)
class Cpu:
    """One CPU: the task it runs (or is switching into), the task that last ran on it, its switch and its time."""
    number: int
    task: Task | None = None
    last_ran: Task | None = None
    switch_end: int = 0   # the end of the switch under way (none: <= now)
    busy: int = 0         # time units it ran a task
    timeline: list[str | dict[str, str] | None] = field(default_factory=list)

    def switching(self, now: int) -> bool:
        return self.switch_end > now


class MultiLoop:
    """The run's state; ``run`` is the loop, each numbered phase of the module's docstring one method."""

    def __init__(self, tasks: list[Task], policy: Policy, level: str, cpus: int, conventions: Conventions,
                 switch_cost: int, per_cpu: bool = False, steal: bool = False) -> None:
        self.tasks, self.policy, self.conventions, self.switch_cost = tasks, policy, conventions, switch_cost
        self.arrivals = sorted(tasks, key=lambda task: (task.arrival, task.index))
        self.next_arrival = 0
        policy.start(tasks)
        # one queue for all CPUs, or one per CPU (``ready`` is CPU 0's then)
        self.queues = [QUEUES[queue_kind(policy)](policy) for _ in range(cpus if per_cpu else 1)]
        self.ready = self.queues[0]
        self.per_cpu, self.steal = per_cpu, steal
        self.joined: dict[Task, int] = {}   # per-CPU queues: when each task last joined one (the tail: the greatest)
        self.joins = 0
        self.keyed = isinstance(self.ready, (HeapQueue, FifoQueue))
        self.trace = Trace(level, tasks, policy, conventions, any(task.blocks_left for task in tasks))
        self.cpus = [Cpu(number) for number in range(cpus)]
        self.last_cpu: dict[Task, int] = {}
        self.expired: list[Task] = []   # their quanta ended at t, in CPU order
        self.queued = self.switches = self.migrations = self.steals = 0
        self.unfinished = len(tasks)
        self.t = 0
        self.events: list[dict[str, Any]] = []
        self.said: list[dict[str, str]] = []

    def run(self) -> MultiLoop:
        record, per_cpu = self.trace.level != NONE, self.per_cpu
        if record:
            self.record(0, [], "initial", say(MESSAGES, "initial", count=len(self.tasks)))
        while self.unfinished:
            self.events, self.said = [], []
            if not self.conventions.arrival_before_requeue:
                self.requeue()
            if not self.conventions.boost_after_arrivals:
                self.boost()
            self.join()
            if self.conventions.arrival_before_requeue:
                self.requeue()
            if self.conventions.boost_after_arrivals:
                self.boost()
            decision = self.fill() + self.preempt() if not per_cpu else self.fill_own() + self.preempt_own()
            names = [[task.name for task in queue.ordered(self.t)] for queue in self.queues] \
                if self.trace.level == FULL else None
            why = join(*self.said) if self.said else self.quiet()
            if per_cpu and not self.steal:
                why = join(why, *self.stranded())
            ends = self.run_unit()
            self.t += 1
            if record and not self.trace.truncated:
                kind = "preempt" if "preempt" in decision else "dispatch" if decision else self.state()
                self.record(self.t, names, kind, join(why, *map(end_sentence, ends)), self.events + ends)
        return self

    # 1-3: the joins, the requeues, the rule's own work
    def join(self) -> None:
        """Arrivals at t and returns from I/O at t join the ready queue: in input order ("ostep": arrivals first,
        then returns in the order they blocked)."""
        t, policy, returns = self.t, self.policy, self.trace.returns
        joining = []
        while self.next_arrival < len(self.arrivals) and self.arrivals[self.next_arrival].arrival == t:
            joining.append(self.arrivals[self.next_arrival])
            self.next_arrival += 1
        back = []
        while returns and returns[0][0] == t:
            back.append(heapq.heappop(returns)[-1])
        order = joining + back if self.conventions.ostep else sorted(joining + back, key=lambda task: task.index)
        for task in order:
            returning = task.io_until is not None
            self.queued, task.queued = self.queued + 1, self.queued
            if returning:
                task.io_until, task.ready_since = None, t
                policy.wake(task, t, self.least, None)
                self.said.append(say(MESSAGES, "return", task=task.name))
            else:
                policy.admit(task, t, self.least)
            self.enqueue(task)
            self.events.append(event("return" if returning else "arrive", task, t))

    def requeue(self) -> None:
        for task in self.expired:
            self.queued, task.queued = self.queued + 1, self.queued
            self.enqueue(task)
            self.events.append(event("requeue", task, self.t))
        self.expired = []

    def boost(self) -> None:
        t, policy = self.t, self.policy
        if policy.next_instant(t - 1) != t:
            return
        present = [task for queue in self.queues for task in queue.tasks()] + \
            [cpu.task for cpu in self.cpus if cpu.task] + self.expired
        rule_events = policy.at_instant(t, present)
        if rule_events:
            for queue in self.queues:
                queue.rekey(t)
            self.events.extend(rule_events)

    def enqueue(self, task: Task) -> None:
        """``task`` joins the ready queue: with per-CPU queues, that of the CPU it last ran on, or the shortest one
        (ties: the lowest number) if it has never run."""
        queue = self.ready
        if self.per_cpu:
            home = self.last_cpu.get(task)
            queue = self.queues[home] if home is not None else min(self.queues, key=len)   # min: the first of ties
            self.joined[task], self.joins = self.joins, self.joins + 1
        queue.push(task, self.t)

    def least(self) -> Task | None:
        """The present task the key prefers (running on any CPU, just expired, or the best ready one if the queue is
        in key order): CFS's min_vruntime and Stride's least pass over the runnable set."""
        t, key = self.t, self.policy.key
        present = [cpu.task for cpu in self.cpus if cpu.task] + self.expired
        if self.keyed:
            present += [queue.best(t) for queue in self.queues if len(queue)]
        return min(present, key=lambda task: key(task, t), default=None)

    # 4-5: the decisions
    def fill(self) -> list[str]:
        """Every free CPU gets the best ready task, best first; each takes its last CPU if free, else the lowest."""
        t, ready, decided = self.t, self.ready, []
        free = [cpu for cpu in self.cpus if cpu.task is None]
        while free and len(ready):
            task = ready.best(t)
            ready.take(task)
            cpu = next((cpu for cpu in free if cpu.number == self.last_cpu.get(task)), free[0])
            free.remove(cpu)
            self.said.append(say(WORDS, "dispatch", t=t, task=task.name, detail=self.policy.detail(task, t),
                                 cpu=cpu.number, rule=self.trace.rule))
            self.dispatch(cpu, task)
            decided.append("dispatch")
        return decided

    def preempt(self) -> list[str]:
        """One preemption at a time: the best ready task against the running task the rule ranks worst."""
        t, policy, ready, decided = self.t, self.policy, self.ready, []
        while policy.preemptive and len(ready):
            running = [cpu for cpu in self.cpus if cpu.task is not None and not cpu.switching(t)]
            if not running:
                break
            worst = max(running, key=lambda cpu: policy.key(cpu.task, t))
            candidate = ready.best(t)
            if not policy.preempts(candidate, worst.task, t):
                break
            ready.take(candidate)
            old = worst.task
            self.said.append(say(WORDS, "preempt", t=t, task=candidate.name, detail=policy.detail(candidate, t),
                                 old=old.name, old_detail=policy.detail(old, t), cpu=worst.number,
                                 rule=self.trace.rule))
            ready.push(old, t)
            self.events.append(event("preempt", old, t, cpu=worst.number))
            self.dispatch(worst, candidate)
            decided.append("preempt")
        return decided

    def fill_own(self) -> list[str]:
        """Per-CPU queues: every free CPU takes its own queue's best task, in CPU order; then, with stealing, every CPU
        still free (its queue is empty) takes the tail task of the longest queue (ties: the lowest number)."""
        t, decided = self.t, []
        for cpu in self.cpus:
            queue = self.queues[cpu.number]
            if cpu.task is None and len(queue):
                task = queue.best(t)
                queue.take(task)
                self.said.append(say(WORDS, "dispatch", t=t, task=task.name, detail=self.policy.detail(task, t),
                                     cpu=cpu.number, rule=self.trace.rule))
                self.dispatch(cpu, task)
                decided.append("dispatch")
        for cpu in self.cpus if self.steal else ():
            if cpu.task is not None:
                continue
            source = max(range(len(self.queues)), key=lambda number: (len(self.queues[number]), -number))
            queue = self.queues[source]
            if not len(queue):
                break
            task = max(queue.tasks(), key=self.joined.__getitem__)
            queue.remove(task)
            self.steals += 1
            self.events.append(event("steal", task, t, source=source, cpu=cpu.number))
            self.said.append(say(WORDS, "steal", t=t, task=task.name, detail=self.policy.detail(task, t),
                                 cpu=cpu.number, source=source))
            self.dispatch(cpu, task)
            decided.append("dispatch")
        return decided

    def preempt_own(self) -> list[str]:
        """Per-CPU queues: on each CPU, in CPU order, its queue's best task against its running task (once: the
        task that then runs is the best of that queue and the preempted one)."""
        t, policy, decided = self.t, self.policy, []
        for cpu in self.cpus if policy.preemptive else ():
            queue, old = self.queues[cpu.number], cpu.task
            if old is None or cpu.switching(t) or not len(queue) or not policy.preempts(queue.best(t), old, t):
                continue
            candidate = queue.best(t)
            queue.take(candidate)
            self.said.append(say(WORDS, "preempt", t=t, task=candidate.name, detail=policy.detail(candidate, t),
                                 old=old.name, old_detail=policy.detail(old, t), cpu=cpu.number,
                                 rule=self.trace.rule))
            queue.push(old, t)
            self.joined[old], self.joins = self.joins, self.joins + 1
            self.events.append(event("preempt", old, t, cpu=cpu.number))
            self.dispatch(cpu, candidate)
            decided.append("preempt")
        return decided

    def stranded(self) -> list[dict[str, str]]:
        """Per-CPU queues without stealing: the sentence of each CPU that idles while other queues hold tasks."""
        waiting = [task.name for queue in self.queues for task in queue.ordered(self.t)]
        return [say(WORDS, "stranded", cpu=cpu.number, tasks=", ".join(waiting))
                for cpu in self.cpus if waiting and cpu.task is None]

    def dispatch(self, cpu: Cpu, task: Task) -> None:
        t = self.t
        cpu.task = task
        self.events.append(event("dispatch", task, t, cpu=cpu.number))
        source = self.last_cpu.get(task)
        if source is not None and source != cpu.number:
            self.migrations += 1
            self.events.append(event("migrate", task, t, source=source, cpu=cpu.number))
            self.said.append(say(WORDS, "migrate", task=task.name, source=source, cpu=cpu.number))
        self.last_cpu[task] = cpu.number
        if cpu.last_ran is not None and task is not cpu.last_ran:
            self.switches += 1
            if self.switch_cost:
                cpu.switch_end = t + self.switch_cost
                if cpu.switch_end > MAX_HORIZON:
                    raise ScenarioError("switch_cost", f"the run would pass the documented horizon of "
                                                       f"{MAX_HORIZON} time units with its switches")
                self.events.append(event("switch", task, t, until=cpu.switch_end, cpu=cpu.number))
                self.said.append(say(MESSAGES, "switch", task=task.name, until=cpu.switch_end))

    # the slice [t, t+1)
    def run_unit(self) -> list[dict[str, Any]]:
        """Every CPU runs its task one unit (or switches, or idles); the slice's ends, in CPU order."""
        t, policy, ends = self.t, self.policy, []
        for cpu in self.cpus:
            task = cpu.task
            if task is None or cpu.switching(t):
                cpu.timeline.append(None if task is None else {"switch": task.name})
                continue
            if task.slice_left is None:
                task.slice_left = policy.quantum(task)
            if task.first_run is None:
                task.first_run = t
            cpu.timeline.append(task.name)
            cpu.busy += 1
            cpu.last_ran = task
            task.remaining -= 1
            if task.slice_left is not None:
                task.slice_left -= 1
        if isinstance(policy, EEVDF) and policy.runnable_weight:
            # sum(w * v) grows by 1024 per CPU that runs a task or switches into one (as on one CPU, whose switch
            # time counts), not once per time unit
            policy.left -= sum(cpu.task is not None for cpu in self.cpus) - 1
        for cpu in self.cpus:
            task = cpu.task
            if task is None or cpu.switching(t) or cpu.timeline[-1] != task.name:
                continue
            found = [dict(e, cpu=cpu.number) for e in finish(self.trace, task, t + 1)]
            ends += found
            if task.completion is not None:
                self.unfinished -= 1
                cpu.task = None
            elif task.io_until is not None:
                cpu.task = None
            elif task.slice_left == 0:
                task.slice_left = None
                self.expired.append(task)
                cpu.task = None
        return ends

    # the trace
    def quiet(self) -> dict[str, str]:
        """The sentence of an instant without a decision: who continues, who is switching, or that all idle."""
        t = self.t
        going = [cpu.task.name for cpu in self.cpus if cpu.task is not None and not cpu.switching(t)]
        if going:
            return say(WORDS, "continue", t=t, tasks=", ".join(going), keep=self.trace.keep)
        switching = [cpu for cpu in self.cpus if cpu.task is not None]
        if switching:
            return join(*(say(WORDS, "switching", t=t, cpu=cpu.number, task=cpu.task.name, until=cpu.switch_end)
                          for cpu in switching))
        return say(WORDS, "idle", t=t)

    def state(self) -> str:
        """The decision of a slice in which nothing was dispatched."""
        entries = [cpu.timeline[-1] for cpu in self.cpus]
        if any(type(entry) is str for entry in entries):
            return "continue"
        return "switch" if any(entries) else "idle"

    def record(self, time: int, queues: list[list[str]] | None, decision: str, why: dict[str, str],
               events: list[dict[str, Any]] | None = None) -> None:
        """Step ``time``: the slice [time-1, time), each CPU's task (``running``, one entry per CPU) and the state."""
        trace = self.trace
        events = events or []
        if trace.level == COMPACT and not events and time:
            return
        if trace.level == COMPACT and len(trace.steps) >= MAX_COMPACT_STEPS:
            trace.truncated = True
            return
        entries = [cpu.timeline[-1] if time else None for cpu in self.cpus]
        step = {"step": time, "time": time, "running": [entry if type(entry) is str else None for entry in entries],
                "events": events, "decision": decision, "why": why}
        if self.switch_cost:
            step["switch"] = [entry["switch"] if type(entry) is dict else None for entry in entries]
        if trace.level == FULL:
            queues = queues or [[] for _ in self.queues]
            if self.per_cpu:   # every CPU's queue; ``ready`` holds them all, CPU 0's first
                step["queues"] = queues
            step.update(ready=[name for queue in queues for name in queue],
                        remaining={task.name: task.remaining for task in self.tasks})
            if trace.io:
                step["blocked"] = [{"task": task.name, "until": until} for until, _, task in sorted(trace.returns)]
            if type(self.policy).trace_state is not Policy.trace_state:
                exact: dict[str, Any] = {}
                for key, values in self.policy.trace_state(self.tasks, time).items():
                    put(step, exact, key, values)
                step["exact"] = exact
        trace.steps.append(step)


def schedule_multi(tasks: list[Task], policy: Policy, level: str, cpus: int, conventions: Conventions = LAB,
                   switch_cost: int = 0, per_cpu: bool = False, steal: bool = False) -> MultiLoop:
    """Run ``tasks`` on ``cpus`` CPUs under ``policy`` (``per_cpu``: one ready queue per CPU, ``steal``: from the
    longest); the finished loop holds the CPUs' timelines, the trace and the counts. Mutates the tasks."""
    return MultiLoop(tasks, policy, level, cpus, conventions, switch_cost, per_cpu, steal).run()


def with_cpus(out: dict[str, Any], several: MultiLoop) -> dict[str, Any]:
    """The single-CPU result ``out`` of the run, made the result of several CPUs: ``timelines`` (one per CPU) where
    ``timeline`` was, utilisation = busy / (cpus x makespan) exactly and per CPU, context switches summed over the
    CPUs, and the migrations."""
    cpus, summary = several.cpus, out["summary"]
    makespan, busy = summary["makespan"], summary["busy"]
    utilisation = Fraction(busy, len(cpus) * makespan)
    each = [Fraction(cpu.busy, makespan) for cpu in cpus]
    summary.update(idle=len(cpus) * makespan - busy - out["switch_time"], utilisation=json_number(utilisation),
                   context_switches=sum(context_switches(cpu.timeline, True) for cpu in cpus))
    out["exact"].update(utilisation=str(utilisation), cpu_utilisation=[str(share) for share in each])
    out.update(utilisation=json_number(utilisation), cpu_utilisation=[json_number(share) for share in each],
               migrations=several.migrations)
    if several.per_cpu:
        out.update(queues="per-cpu", steal=several.steal, steals=several.steals)
    if "switches" in out:   # the loop's own count, per CPU (one CPU's result counts the timeline's changes at no cost)
        out["switches"] = several.switches
    shown: dict[str, Any] = {}
    for key, value in out.items():
        if key == "timeline":
            shown.update(cpus=len(cpus), timelines=[cpu.timeline for cpu in cpus])
        else:
            shown[key] = value
    return shown
