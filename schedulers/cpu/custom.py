"""A CPU policy of your own: define ``choose(ready, running, time, state)`` and return a task's name::

    def choose(ready, running, time, state):
        if running is not None:
            return running.name        # keep it: this rule never preempts
        return ready[0].name           # the task that joined the ready queue first (FCFS)

- It is called at every time unit ``time`` at which a task is ready, after that instant's arrivals.
- ``ready``: the waiting tasks (running task excluded), in the order they joined the ready queue (a preempted
  task keeps its place), as ``TaskView`` objects. ``running``: the task that ran over [time-1, time) and is not
  finished, or None.
- Return ``running.name`` to keep it running, or a ready task's name to dispatch it; naming a ready task
  while another runs preempts the running one. With no task running it must name a ready task: the CPU
  never idles while a task is ready.

The sandbox, its limits and its errors are ``schedulers.custom``'s.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import make_dataclass
from typing import Any

from ..custom import CUSTOM, Custom, PolicyCodeError, Program, at, checked_name, lines_at
from ..narration import Messages
from .policies import Policy
from .scenario import TASK, Task, read_tasks

PARAMETERS = ("ready", "running", "time", "state")
MESSAGES: Messages = {
    "idle": {"en": "line {line}: choose returned None{at} while tasks are ready ({names}): the CPU never idles "
                   "while a task is ready", "ja": "{line} 行目: choose が None を返しました{at}が、実行可能なタスク"
                   "（{names}）があります。実行可能なタスクがある間 CPU は空きません"},
    "rule": {"en": "your choose() picked it", "ja": "あなたの choose() が選びました"},
    "keep": {"en": "your choose() kept it", "ja": "あなたの choose() が続行を選びました"},
}
TEMPLATE = '''def choose(ready, running, time, state):
    """Return the name of the task to run over [time, time+1).

    ready:   waiting tasks, in the order they joined the queue
             (name, index, arrival, burst, bursts, remaining, ran,
             waited, cpu, io, deadline, priority, tickets, nice)
    running: the task that ran last and is not finished, or None
    state:   a dict of your own, kept between calls
    """
    if running is not None:
        return running.name      # never preempt: keep it
    return ready[0].name         # first come, first served
'''


# What a task shows your ``choose``: its input position, every field of TASK (a new field follows by itself), then the
# loop's numbers for it.
VIEW_NUMBERS = (("remaining", int), ("ran", int), ("waited", int), ("cpu", int), ("io", int))
TaskView = make_dataclass("TaskView", [("index", int), *((f.attr, Any) for f in TASK), *VIEW_NUMBERS],
                          frozen=True, slots=True)
TaskView.__doc__ = """A task as your ``choose`` sees it (read-only): ``index``, its input position (the last tie-break
of every built-in rule); its fields as the scenario gives them (None when not given; ``bursts`` only for a task that
does I/O, whose ``burst`` and ``remaining`` are those of its current CPU burst); ``ran``, the CPU time it has run;
``waited``, the time it spent in the ready queue so far; ``cpu`` and ``io``, the CPU and I/O time it needs in all."""


def policy(program: Program, scenario: Mapping[str, Any]) -> Policy:
    """A ``Policy`` that asks ``program`` at every time unit (so it may preempt any time). Every task of the
    scenario is known by name: one that has not arrived is "not ready", not "unknown"."""
    names = [task.name for task in read_tasks(scenario.get("tasks"))]   # checked again by the run

    def view(task: Task, now: int) -> TaskView:
        ran = task.ran
        given = {f.attr: getattr(task, f.attr) for f in TASK}
        return TaskView(index=task.index, **given, remaining=task.remaining, ran=ran,
                        waited=now - task.arrival - ran - task.io_done, cpu=task.cpu, io=task.io)

    class YourPolicy(Policy):
        name = CUSTOM
        preemptive = True
        dynamic = True     # asked at every time unit, the ready queue scanned
        rule = MESSAGES["rule"]
        keep = MESSAGES["keep"]

        def __init__(self) -> None:
            self.present: list[Task] = []     # admitted, not finished: the running task is the one not ready
            self.names = dict.fromkeys(names)
            self.memory: dict[Any, Any] = {}   # the user's state argument
            self.verdict: Task | None = None  # the ready task choose() named at this instant (None: keep)

        def key(self, task: Task, now: int) -> Any:
            return task.queued     # the ready queue in the order tasks joined it

        def admit(self, task: Task, now: int, least: Callable[[], Task | None]) -> None:
            self.present.append(task)

        def choose(self, ready: Sequence[Task], now: int) -> Task:
            self.present = [task for task in self.present if task.completion is None]
            # the running task: present, not waiting and not in I/O
            ready_or_blocked = [task for task in self.present if task.io_until is None]
            waiting = set(ready)
            running = next((task for task in ready_or_blocked if task not in waiting), None)
            ordered = sorted(ready, key=lambda task: task.queued)
            answer = program.call(now, tuple(view(task, now) for task in ordered),
                                  view(running, now) if running else None, now, self.memory)
            if answer is None and running is None:
                raise PolicyCodeError("idle", program.last_line, at=at(now), names=", ".join(t.name for t in ordered),
                                      messages=MESSAGES)
            allowed = {task.name: task for task in ordered}
            if running is not None:
                allowed = {running.name: running, **allowed}
            chosen = checked_name(program, answer, now, ("task", "タスク"), self.names, allowed,
                                  ("ready", "実行可能"))
            self.verdict = None if chosen is running else chosen
            return self.verdict or ordered[0]   # kept: the loop asks preempts(), which says no

        def preempts(self, candidate: Task, running: Task, now: int) -> bool:
            return candidate is self.verdict

    return YourPolicy()


def lines(result: Mapping[str, Any], step: int) -> set[int]:
    """The lines your ``choose`` ran for the decision at the start of step ``step``'s slice."""
    return lines_at(result, result["steps"][step].get("time", 0) - 1)


CUSTOM_POLICY = Custom(parameters=PARAMETERS, template=TEMPLATE, policy=policy, lines=lines)
