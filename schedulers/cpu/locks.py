"""Locks (issue 23; docs/cpu.md "Locks and priority inversion"): critical sections, priority inheritance, the
immediate priority ceiling, deadlock.

A task's ``sections`` are its CPU units k .. k+l-1 (counted from 0 within its burst) that hold a resource. Before it
runs unit k it locks every resource whose section starts there, outer (longer) first; one held by another task blocks
it ("H waits for R, held by L"), and the rule decides again at that instant. After the unit k+l-1 it releases R, and
the waiter of highest effective priority takes it at once (ties: who waited first) and joins the ready queue.
``protocol``: "none", the holder keeps its own priority; "inheritance", a holder runs at the highest priority of the
tasks it blocks, transitively; "ceiling", a task holding R runs at least at R's ceiling, the highest priority of any
task using R (immediate priority ceiling). A task's effective priority is a task's: its own, or the one it runs at.
Among tasks of one effective priority, one running above its own goes first (under the ceiling it locked before the
others came). A task that blocks closing a cycle (A holds R1 and waits for R2, B holds R2 and waits for R1) is a
deadlock: the run ends at that instant, the last step names who waits for what.

This is a loop of its own, one time unit at a time, for the fixed-priority rules only (``Policy.fixed_priority``),
on one CPU, without I/O or switch cost: locks change a task's priority while it waits, at any unit, which the shared
loop's heaps would rekey and its stretches (it jumps from instant to instant) cut at every section's edge; hooks there
would cost every other run, and these runs are small.
"""
from __future__ import annotations

from collections import deque
from typing import Any

from ..errors import ScenarioError
from ..narration import join, say
from ..recording import FULL, NONE
from .loop import MESSAGES, Trace, event
from .policies import Policy
from .scenario import Parameters, Task

MAX_LOCK_WORK = 20_000_000   # tasks x time units: the loop looks at every present task at every unit

WORDS = {
    "lock": {"en": "{task} locks {resource}.", "ja": "{task}が{resource}をロックします。"},
    "wait": {"en": "{task} waits for {resource}, held by {holder}.",
             "ja": "{task}は{resource}を待ちます（{holder}が保持しています）。"},
    "unlock": {"en": "{task} releases {resource}.", "ja": "{task}が{resource}を解放します。"},
    "handoff": {"en": "{task} releases {resource}; {waiter}, its waiter of highest priority, takes it.",
                "ja": "{task}が{resource}を解放し、待っているうち優先度が最も高い{waiter}が取得します。"},
    "inheritance": {"en": "Priority inheritance: {task} runs at {donor}'s priority ({detail}) while it blocks "
                          "{donor}.",
                    "ja": "優先度継承: {task}は{donor}を待たせている間、{donor}の優先度（{detail}）で実行します。"},
    "ceiling": {"en": "Priority ceiling: {task} holds {resources} and runs at the ceiling, {donor}'s priority "
                      "({detail}).",
                "ja": "優先度上限プロトコル: {task}は{resources}を保持し、上限である{donor}の優先度（{detail}）で"
                      "実行します。"},
    "own": {"en": "{task} is back at its own priority ({detail}).",
            "ja": "{task}は自分の優先度（{detail}）に戻ります。"},
    "borrowed": {"en": "{detail} of {donor}", "ja": "{donor}の{detail}"},
    "deadlock": {"en": "Deadlock at t={t}: {cycle}. No task of the cycle can go on, so the run ends here.",
                 "ja": "t={t}でデッドロックです: {cycle}。この輪のどのタスクも進めないので、実行はここで終わります。"},
    "link": {"en": "{task} holds {held} and waits for {resource}, held by {holder}",
             "ja": "{task}は{held}を保持し、{holder}が保持する{resource}を待っています"},
}
LINK_SEPARATOR = {"en": "; ", "ja": "、"}


NEEDS = "priority, priority-preemptive (without aging), rm or dm"


def has_sections(tasks: list[Task]) -> bool:
    return any(task.sections for task in tasks)


def check(tasks: list[Task], policy: Policy, parameters: Parameters, custom: bool) -> None:
    """What locks need: a fixed-priority rule, one CPU, no switch cost, no dropped jobs; each task's sections inside
    its one burst, nested or apart, never partly overlapping, never one resource inside itself. A protocol, too,
    needs a fixed priority."""
    fixed = not custom and policy.fixed_priority and getattr(policy, "aging", None) is None
    first = next((task for task in tasks if task.sections), None)
    if first is None:
        if parameters.protocol != "none" and not fixed:
            raise ScenarioError("protocol", f"changes fixed priorities: {NEEDS}")
        return
    if not fixed:
        raise ScenarioError(f"tasks[{first.index}].sections", f"locks need a fixed priority per task: {NEEDS}")
    for name, value, allowed in (("cpus", parameters.cpus, 1), ("switch_cost", parameters.switch_cost, 0)):
        if value != allowed:
            raise ScenarioError(name, f"must be {allowed} with sections (locks are taught on one CPU, without "
                                      f"switch cost)")
    if parameters.on_miss == "abort":
        raise ScenarioError("on_miss", "a job dropped at its deadline could hold a lock: use continue with sections")
    for task in tasks:
        where = f"tasks[{task.index}].sections"
        if task.sections and task.bursts is not None:
            raise ScenarioError(where, "count the units of one burst: a task with sections does no I/O")
        for k, section in enumerate(task.sections or ()):
            start, end = section["start"], section["start"] + section["length"]
            if start >= task.burst:
                raise ScenarioError(f"{where}[{k}].start", f"must be before the end of the burst ({task.burst})")
            if end > task.burst:
                raise ScenarioError(f"{where}[{k}].length", f"runs past the burst: units {start} to {end - 1} of a "
                                                            f"burst of {task.burst}")
            for j, other in enumerate(task.sections[:k]):
                low, high = other["start"], other["start"] + other["length"]
                if start < high and low < end and not (low <= start and end <= high or start <= low and high <= end):
                    raise ScenarioError(f"{where}[{k}].start", f"overlaps section {j} ({low} to {high - 1}) "
                                                               f"without nesting in it")
                if start < high and low < end and other["resource"] == section["resource"]:
                    raise ScenarioError(f"{where}[{k}].resource", f"{section['resource']} is already held by "
                                                                  f"section {j} there")


def resources(tasks: list[Task], policy: Policy, spans: dict[str, dict[str, list[dict[str, Any]]]], end: int
              ) -> list[dict[str, Any]]:
    """The result's ``resources``: each resource's users, in input order, its ceiling (the best of them), and its
    ``holds`` and ``waits`` in time order (a deadlock's still going at the run's ``end``)."""
    users: dict[str, list[Task]] = {}
    for task in tasks:
        for section in task.sections or ():
            found = users.setdefault(section["resource"], [])
            if task not in found:
                found.append(task)
    for span in (span for kinds in spans.values() for listed in kinds.values() for span in listed):
        if span["until"] is None:
            span["until"] = end
    return [{"name": name, "users": [task.name for task in found],
             "ceiling": min(found, key=lambda task: policy.key(task, 0)).name, **spans[name]}
            for name, found in users.items()]


class Locks:
    """The resources' state: who holds each, who waits for each (in the order they came), and the protocol."""

    def __init__(self, tasks: list[Task], policy: Policy, protocol: str) -> None:
        self.policy, self.protocol = policy, protocol
        self.resources = list(dict.fromkeys(s["resource"] for task in tasks for s in task.sections or ()))
        self.holder: dict[str, Task | None] = dict.fromkeys(self.resources)
        self.waiting: dict[str, list[Task]] = {resource: [] for resource in self.resources}
        self.blocked_on: dict[Task, str] = {}
        self.held: dict[Task, list[str]] = {task: [] for task in tasks}
        self.waited: dict[Task, int] = {}   # the order of blocking: ties among waiters
        # each resource's holds and waits, [from, until) (until None: still going), for the chart
        self.spans: dict[str, dict[str, list[dict[str, Any]]]] = {r: {"holds": [], "waits": []} for r in self.resources}
        # R's ceiling: the task of highest priority using R (fixed keys: ``check`` refuses aging)
        users: dict[str, list[Task]] = {resource: [] for resource in self.resources}
        for task in tasks:
            for section in task.sections or ():
                users[section["resource"]].append(task)
        self.ceiling = {resource: min(found, key=self.key) for resource, found in users.items()}

    def key(self, task: Task) -> Any:
        return self.policy.key(task, 0)

    def donor(self, task: Task) -> Task:
        """The task whose priority ``task`` runs at: its own, or (inheritance) the best of the tasks it blocks,
        transitively, or (ceiling) the best ceiling of the resources it holds."""
        found = task
        if self.protocol == "inheritance":   # the waiters of its resources, theirs, ... (a deadlock's cycle once)
            seen, holders = {task}, [task]
            while holders:
                for resource in self.held[holders.pop()]:
                    for waiter in self.waiting[resource]:
                        if waiter not in seen:
                            seen.add(waiter)
                            holders.append(waiter)
                            if self.key(waiter) < self.key(found):
                                found = waiter
        elif self.protocol == "ceiling":
            for resource in self.held[task]:
                if self.key(self.ceiling[resource]) < self.key(found):
                    found = self.ceiling[resource]
        return found

    def rank(self, task: Task) -> Any:
        """The ready queue's order: effective priority, then a task above its own first, then its own key."""
        donor = self.donor(task)
        return self.key(donor), donor is task, self.key(task)

    def needs(self, task: Task) -> list[str]:
        """The resources ``task`` must hold to run its next unit and does not hold yet, outer sections first."""
        ran = task.burst - task.remaining
        starting = sorted((s for s in task.sections or () if s["start"] == ran), key=lambda s: -s["length"])
        return [s["resource"] for s in starting if self.holder[s["resource"]] is not task]

    def cycle(self, task: Task) -> list[tuple[Task, str, Task]] | None:
        """The chain from ``task``, just blocked, through the holders: a deadlock's links if it comes back to it."""
        links, current = [], task
        while current in self.blocked_on:
            resource = self.blocked_on[current]
            holder = self.holder[resource]
            links.append((current, resource, holder))
            if holder is task:
                return links
            current = holder
        return None

    def release(self, task: Task, ran: int, now: int, events: list[dict[str, Any]]) -> list[Task]:
        """``task`` has run ``ran`` units: release the sections ending there (inner first), each to its best waiter.
        Returns the waiters that took one, now ready."""
        woken = []
        ending = sorted((s for s in task.sections or () if s["start"] + s["length"] == ran), key=lambda s: s["length"])
        for section in ending:
            resource = section["resource"]
            self.held[task].remove(resource)
            self.close(resource, "holds", task, now)
            waiters = self.waiting[resource]
            taker = min(waiters, key=lambda w: (self.key(self.donor(w)), self.waited[w])) if waiters else None
            self.holder[resource] = None
            if taker is not None:
                waiters.remove(taker)
                del self.blocked_on[taker]
                self.close(resource, "waits", taker, now)
                self.take(taker, resource, now)
                woken.append(taker)
            events.append(event("unlock", task, now, resource=resource, to=taker.name if taker else None))
        return woken

    def take(self, task: Task, resource: str, now: int) -> None:
        self.holder[resource] = task
        self.held[task].append(resource)
        self.spans[resource]["holds"].append({"task": task.name, "from": now, "until": None})

    def wait(self, task: Task, resource: str, now: int) -> None:
        self.blocked_on[task] = resource
        self.waiting[resource].append(task)
        self.waited[task] = len(self.waited)
        self.spans[resource]["waits"].append({"task": task.name, "from": now, "until": None})

    def close(self, resource: str, kind: str, task: Task, now: int) -> None:
        """End ``task``'s open hold of (or wait for) ``resource`` at ``now``."""
        span = next(span for span in reversed(self.spans[resource][kind]) if span["task"] == task.name)
        span["until"] = now

    def state(self, present: list[Task]) -> dict[str, Any]:
        """A step's ``holders``, ``waiters`` and each present task's ``effective`` priority (the task it runs at)."""
        return {"holders": {r: task.name if task else None for r, task in self.holder.items()},
                "waiters": {r: [task.name for task in found] for r, found in self.waiting.items()},
                "effective": {task.name: self.donor(task).name for task in present}}


def schedule_locks(tasks: list[Task], policy: Policy, level: str, protocol: str, watched: list[Task]
                   ) -> tuple[list[str | None], Trace, dict[str, Any] | None, Locks]:
    """Run ``tasks`` holding their locks under ``policy``; returns the timeline, the trace, the deadlock (None if
    none: every task completed) and the locks (their ``spans``). ``watched``: the periodic jobs, whose deadlines are
    instants."""
    if len(tasks) * (sum(task.burst for task in tasks) + max(task.arrival for task in tasks)) > MAX_LOCK_WORK:
        raise ScenarioError("tasks", f"tasks x time units is over the documented limit of {MAX_LOCK_WORK} for a "
                                     f"run with sections")
    locks = Locks(tasks, policy, protocol)
    trace = Trace(level, tasks, policy)
    record = trace.level != NONE
    if record:
        trace.record(0, None, [], [], "initial", say(MESSAGES, "initial", count=len(tasks)))
        trace.steps[0].update(locks.state([]))
    arrivals = deque(sorted(tasks, key=lambda task: (task.arrival, task.index)))
    deadlines = deque(sorted(watched, key=lambda job: (job.deadline, job.index)))
    timeline: list[str | None] = []
    ready: list[Task] = []
    running: Task | None = None
    present: list[Task] = []   # arrived and not complete: ready, running or waiting
    shown = {task: task for task in tasks}   # the effective priority last told
    by_name = {task.name: task for task in tasks}
    unfinished, t = len(tasks), 0

    def detail(task: Task) -> dict[str, str]:
        donor = locks.donor(task)
        own = policy.detail(donor, t)
        return own if donor is task else say(WORDS, "borrowed", detail=own, donor=donor.name)

    while unfinished:
        events: list[dict[str, Any]] = []
        said: list[dict[str, str]] = []
        while deadlines and deadlines[0].deadline == t:
            job = deadlines.popleft()
            if job.completion is None:
                events.append(event("miss", job, t, left=job.remaining, dropped=False))
                said.append(say(MESSAGES, "miss", task=job.name, t=t, left=job.remaining))
        while arrivals and arrivals[0].arrival == t:
            task = arrivals.popleft()
            ready.append(task)
            present.append(task)
            events.append(event("arrive", task, t))
        # The decision, again after each block: dispatch, preempt, continue or idle; then lock what the unit needs.
        decision = "continue" if running else "idle"
        while True:
            best = min(ready, key=locks.rank) if ready else None
            if running is None and best is not None:
                said.append(say(MESSAGES, "dispatch", t=t, task=best.name, detail=detail(best), rule=trace.rule))
                decision = "dispatch" if decision != "preempt" else decision
            elif running is not None and best is not None and policy.preemptive and \
                    policy.preempts(locks.donor(best), locks.donor(running), t):
                said.append(say(MESSAGES, "preempt", t=t, task=best.name, detail=detail(best), old=running.name,
                                old_detail=detail(running), rule=trace.rule))
                events.append(event("preempt", running, t))
                ready.append(running)
                decision = "preempt"
            else:
                best = None
            if best is not None:
                ready.remove(best)
                running = best
                events.append(event("dispatch", running, t))
            if running is None:
                break
            blocked = None
            for resource in locks.needs(running):
                holder = locks.holder[resource]
                if holder is None:
                    locks.take(running, resource, t)
                    events.append(event("lock", running, t, resource=resource))
                    said.append(say(WORDS, "lock", task=running.name, resource=resource))
                else:
                    blocked = resource
                    break
            if blocked is None:
                break
            locks.wait(running, blocked, t)
            events.append(event("wait", running, t, resource=blocked, holder=locks.holder[blocked].name))
            said.append(say(WORDS, "wait", task=running.name, resource=blocked, holder=locks.holder[blocked].name))
            links = locks.cycle(running)
            if links is not None:
                ran = by_name.get(timeline[-1]) if timeline else None
                return timeline, trace, deadlock(trace, locks, links, t, events, said, present, ran), locks
            running = None
        said += told(locks, present, shown, detail)
        during = locks.state(present) if record else None   # the step shows the locks as they stand in its slice
        if running is None:   # nothing is ready
            said.append(say(MESSAGES, "idle", t=t, until=t + 1))
            timeline.append(None)
        else:
            if decision == "continue":
                said.insert(0, say(MESSAGES, "continue", t=t, task=running.name, detail=detail(running),
                                   keep=trace.keep))
            if running.first_run is None:
                running.first_run = t
            timeline.append(running.name)
            running.remaining -= 1
            released: list[dict[str, Any]] = []
            ready += locks.release(running, running.burst - running.remaining, t + 1, released)
            said += [say(WORDS, "handoff" if e["to"] else "unlock", task=e["task"], resource=e["resource"],
                         waiter=e["to"]) for e in released]
            events += released
            if running.remaining == 0:
                running.completion = t + 1
                unfinished -= 1
                present.remove(running)
                events.append(event("complete", running, t + 1))
                said.append(say(MESSAGES, "complete", task=running.name, t=t + 1))
                running = None
        t += 1
        if record and not trace.truncated:
            names = [task.name for task in sorted(ready, key=locks.rank)] if trace.level == FULL else None
            trace.record(t, by_name.get(timeline[-1]), names, events, decision, join(*said))
            if trace.steps[-1]["time"] == t:   # else a compact trace skipped it
                trace.steps[-1].update(during)
    return timeline, trace, None, locks


def told(locks: Locks, present: list[Task], shown: dict[Task, Task], detail: Any) -> list[dict[str, str]]:
    """The sentences of the protocol where it acts: a task whose effective priority changed at this instant."""
    said = []
    for task in present:
        donor = locks.donor(task)
        if donor is shown[task]:
            continue
        shown[task] = donor
        if donor is task:
            said.append(say(WORDS, "own", task=task.name, detail=detail(task)))
        elif locks.protocol == "inheritance":
            said.append(say(WORDS, "inheritance", task=task.name, donor=donor.name,
                            detail=locks.policy.detail(donor, 0)))
        else:
            held = ", ".join(locks.held[task])
            said.append(say(WORDS, "ceiling", task=task.name, resources=held, donor=donor.name,
                            detail=locks.policy.detail(donor, 0)))
    return said


def deadlock(trace: Trace, locks: Locks, links: list[tuple[Task, str, Task]], t: int, events: list[dict[str, Any]],
             said: list[dict[str, str]], present: list[Task], ran: Task | None) -> dict[str, Any]:
    """The run ends at ``t``: the cycle's links (each task holds the resource the one before it waits for), as
    the result's ``deadlock`` and in the last step, which gets this instant's events and sentences."""
    cycle = [{"task": task.name, "holds": links[k - 1][1], "waits_for": resource, "held_by": holder.name}
             for k, (task, resource, holder) in enumerate(links)]
    parts = [say(WORDS, "link", task=link["task"], held=link["holds"], resource=link["waits_for"],
                 holder=link["held_by"]) for link in cycle]
    sentence = say(WORDS, "deadlock", t=t, cycle={lang: LINK_SEPARATOR[lang].join(part[lang] for part in parts)
                                                   for lang in LINK_SEPARATOR})
    events.append(event("deadlock", None, t, cycle=cycle))
    found = {"time": t, "cycle": cycle, "why": sentence}
    if trace.level == NONE or trace.truncated:
        return found
    last = trace.steps[-1]
    if last["time"] == t:
        last.update(events=last["events"] + events, why=join(last["why"], *said, sentence), decision="deadlock")
    else:   # a compact trace skipped the step ending at t
        trace.record(t, ran, None, events, "deadlock", join(*said, sentence))
        last = trace.steps[-1]
    last.update(locks.state(present))
    return found
