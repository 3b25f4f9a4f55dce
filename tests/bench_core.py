"""Time the core on seeded workloads; the same file runs in CPython and, as a script, inside Pyodide.

    python tests/bench_core.py cases.json > results.jsonl     (in Pyodide: a job of tests/pyodide_cli.mjs)

A case is ``{"mode", "algorithm", "n", "tenants", "trace", "repeats", "memory"}``. The workloads come from
``schedulers.exercises`` (seed 1):

- CPU: ``n`` tasks, arrivals uniform in [0, 4n], bursts uniform in 1..8 (mean 4.5, so the CPU is slightly
  overloaded and the ready queue grows to about a tenth of the tasks: the heap is really exercised); every
  rule with its default parameters (RR q = 2, MLFQ 3 levels, stride and lottery q = 1, no aging).
- LLM: ``n`` requests over ``tenants`` tenants (n / tenants each), costs 1..100 per tenant, joins in [0, n].

Time is ``time.process_time()`` (CPU seconds of this process, so the other jobs on a shared machine count
less), the best of ``repeats`` runs of ``run(scenario, trace=...)``, validation included, the scenario dict
already built. Peak memory is ``tracemalloc``'s peak over one further run (tracemalloc slows a run down, so it
is never timed). ``digest`` is the SHA-256 of the result as canonical JSON: identical runs, identical digests.
"""
from __future__ import annotations

import hashlib
import json
import sys
import time
import tracemalloc
from functools import lru_cache
from typing import Any

from schedulers.cpu import run as cpu_run
from schedulers.errors import ScenarioError
from schedulers.exercises import cpu_exercise, llm_exercise
from schedulers.llm import run as llm_run

SEED = 1


@lru_cache(maxsize=1)  # the cases come grouped by workload: every algorithm runs on the same one
def workload(mode: str, n: int, tenants: int | None = None) -> dict[str, Any]:
    if mode == "cpu":
        return cpu_exercise(SEED, tasks=n, max_arrival=4 * n, max_burst=8)
    return llm_exercise(SEED, tenants=tenants, max_cost=100, max_join=n, requests=n)


def digest(result: dict[str, Any]) -> str:
    canonical = json.dumps(result, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def measure(case: dict[str, Any]) -> dict[str, Any]:
    """One case's figures: ``seconds`` (best), ``peak_bytes``, the trace level, a digest; or ``limit``, the
    documented limit's message when the scenario is over it (that is the core's answer, not a failure)."""
    run = cpu_run if case["mode"] == "cpu" else llm_run
    scenario = {**workload(case["mode"], case["n"], case.get("tenants")), "algorithm": case["algorithm"]}
    trace = case["trace"]
    best, result = float("inf"), None
    try:
        for _ in range(case.get("repeats", 1)):
            started = time.process_time()
            result = run(scenario, trace=trace)
            best = min(best, time.process_time() - started)
    except ScenarioError as error:
        return {**case, "limit": str(error)}
    figures = {**case, "seconds": round(best, 4), "level": result["trace"]["level"], "steps": len(result["steps"]),
               "digest": digest(result)}
    if case.get("memory"):
        result = None
        tracemalloc.start()
        run(scenario, trace=trace)
        figures["peak_bytes"] = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    return figures


def main() -> None:
    with open(sys.argv[1], encoding="utf-8") as handle:
        cases = json.load(handle)
    for case in cases:
        print(json.dumps(measure(case)), flush=True)


if __name__ == "__main__":
    main()
