"""Seeded random scenarios, like OSTEP's ``-s SEED``: the same seed gives the same scenario everywhere.

A teacher hands out "seed 42, SRTF"; students open it in the lab, and ``python -m schedulers cpu --seed 42
--algorithm srtf`` prints the answers. ``random.Random`` (Mersenne Twister) and ``randint`` give the same
numbers in CPython and Pyodide, so the scenario is identical in the browser. The same generators, with
larger sizes, make the benchmark workloads.
"""
from __future__ import annotations

import random
from typing import Any

from .fields import integer

MAX_SEED = 2**63 - 1
MAX_EXERCISE_ITEMS = 100_000


def letter_names(count: int) -> list[str]:
    """A, B, ..., Z, AA, AB, ...: spreadsheet column names, short and distinct."""
    names = []
    for index in range(count):
        name = ""
        index += 1
        while index:
            index, digit = divmod(index - 1, 26)
            name = chr(ord("A") + digit) + name
        names.append(name)
    return names


def cpu_exercise(seed: int, tasks: int = 4, max_arrival: int = 8, max_burst: int = 8) -> dict[str, Any]:
    """CPU mode's generator (``schedulers/cpu/exercise.py``), under the name the benchmarks and tests call it by."""
    from .cpu.exercise import exercise   # imported here: the CPU package imports this module
    return exercise(seed, jobs=tasks, max_length=max_burst, max_arrival=max_arrival)


def llm_exercise(seed: int, tenants: int = 3, max_cost: int = 8, max_count: int = 6,
                 max_join: int = 8, requests: int | None = None) -> dict[str, Any]:
    """``tenants`` tenants; the first joins at 0 so the router starts busy, the others may join later.
    ``requests`` (benchmarks): exactly that many requests in all, spread evenly over the tenants (the first
    ones get one more); the other draws, and so every seed's exercise, stay the same."""
    rng = random.Random(integer(seed, "seed", minimum=0, maximum=MAX_SEED))
    count = integer(tenants, "tenants", minimum=1, maximum=MAX_EXERCISE_ITEMS)
    if requests is not None:
        share, extra = divmod(integer(requests, "requests", minimum=count, maximum=20 * MAX_EXERCISE_ITEMS), count)
    result = []
    for index, name in enumerate(letter_names(count)):
        cost = rng.randint(1, max_cost)
        drawn = rng.randint(2, max_count)
        join = 0 if index == 0 else rng.choice((0, rng.randint(1, max_join)))
        result.append({"name": name, "cost": cost, "count": drawn if requests is None else share + (index < extra),
                       "join": join, "weight": 1})
    return {"tenants": result}


def engine_exercise(seed: int, tenants: int = 2, max_requests: int = 5, max_input: int = 8, max_output: int = 12,
                    max_arrival: int = 6) -> dict[str, Any]:
    """``tenants`` tenants of the inference engine, each with 2 .. ``max_requests`` requests in FIFO order; the
    first tenant's first request arrives at iteration 0, so the engine starts busy."""
    rng = random.Random(integer(seed, "seed", minimum=0, maximum=MAX_SEED))
    count = integer(tenants, "tenants", minimum=1, maximum=MAX_EXERCISE_ITEMS)
    result = []
    for index, name in enumerate(letter_names(count)):
        arrivals = sorted(rng.randint(0, max_arrival) for _ in range(rng.randint(2, max_requests)))
        if index == 0:
            arrivals[0] = 0
        result.append({"name": name, "requests": [
            {"arrival": arrival, "input": rng.randint(1, max_input), "output": rng.randint(1, max_output)}
            for arrival in arrivals]})
    return {"slots": 2, "tenants": result}
