"""Measure the CPU core on the documented limits: ``python -m schedulers.cpu.benchmark [TASKS]``.

Seeded workloads (``schedulers.exercises``) of TASKS tasks (default 100,000) spread so that the schedule
ends near the 1,000,000-unit horizon; prints the CPU seconds of ``run`` for each rule, without the trace
(``trace=False``) and with the automatic one (the compact trace at this size).
"""
from __future__ import annotations

import sys
import time

from ..exercises import cpu_exercise
from . import run

RULES = ("fcfs", "sjf", "srtf", "rr", "priority", "edf", "mlfq", "stride")


def measure(tasks: int) -> None:
    scenario = cpu_exercise(1, tasks=tasks, max_arrival=tasks * 9, max_burst=9)
    for algorithm in RULES:
        timings = []
        for trace in (False, True):
            start = time.process_time()
            result = run({**scenario, "algorithm": algorithm}, trace=trace)
            timings.append(time.process_time() - start)
        print(f"{algorithm:<8} {tasks} tasks, makespan {result['summary']['makespan']}: "
              f"{timings[0]:.2f} s without trace, {timings[1]:.2f} s with the {result['trace']['level']} trace",
              flush=True)


if __name__ == "__main__":
    measure(int(sys.argv[1]) if len(sys.argv) > 1 else 100_000)
