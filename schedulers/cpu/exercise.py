"""CPU mode's seeded exercises, like OSTEP's ``-s SEED -j JOBS -m MAXLEN``: the same seed and sizes give the same tasks
everywhere (``random.Random`` is the same in CPython and Pyodide), so ``python -m schedulers cpu --seed 42`` and the
lab's Predict show one exercise. ``SIZES`` are the generator's knobs, one Field each: the command line's ``--jobs``,
``--max-length``, ``--max-arrival`` and ``--io`` come from them."""
from __future__ import annotations

import random
from typing import Any

from ..exercises import MAX_EXERCISE_ITEMS, MAX_SEED, letter_names
from ..fields import integer, of_field
from ..schema import Field

MAX_IO_TIME = 4   # the longest I/O burst of a task that blocks

SIZES = (
    Field("jobs", "integer", default=4, minimum=1, maximum=MAX_EXERCISE_ITEMS, metavar="J",
          help="--seed: how many tasks"),
    Field("max_length", "integer", default=8, minimum=1, maximum=1_000, metavar="M",
          help="--seed: the longest CPU time of a task"),
    Field("max_arrival", "integer", default=8, minimum=0, maximum=1_000_000, metavar="A",
          help="--seed: the latest arrival"),
    Field("io", "integer", default=0, minimum=0, maximum=100, metavar="PERCENT",
          help="--seed: how many of the tasks block for I/O, in percent (rounded half up)"),
)


def exercise(seed: int, jobs: int = 4, max_length: int = 8, max_arrival: int = 8, io: int = 0) -> dict[str, Any]:
    """``jobs`` tasks named in arrival order, with the optional fields every extra algorithm reads. With ``io``, that
    share of the tasks (``io``% of ``jobs``, rounded half up; drawn among those of more than 1 unit of CPU, which
    alone can block) split their CPU time into bursts of a drawn length, each followed by 1 to MAX_IO_TIME units of
    I/O: a share, not a chance per task, so ``--io 50`` on 5 jobs makes 3 block (if 3 can). With ``io`` 0 nothing
    more is drawn, so every older exercise stays the same."""
    rng = random.Random(integer(seed, "seed", minimum=0, maximum=MAX_SEED))
    sizes = {f.name: of_field(f, value, f.name) for f, value in zip(SIZES, (jobs, max_length, max_arrival, io))}
    count, longest, latest = sizes["jobs"], sizes["max_length"], sizes["max_arrival"]
    drawn = []
    for _ in range(count):
        arrival = rng.randint(0, latest)
        burst = rng.randint(1, longest)
        task: dict[str, Any] = {"arrival": arrival, "burst": burst,
                                "deadline": arrival + burst + rng.randint(0, 2 * longest),
                                "priority": rng.randint(1, 5), "tickets": 50 * rng.randint(1, 4)}
        drawn.append(task)
    if sizes["io"]:
        can_block = [task for task in drawn if task["burst"] > 1]
        share = min(len(can_block), (count * sizes["io"] + 50) // 100)
        for index in sorted(rng.sample(range(len(can_block)), share)):   # in drawing order
            task = can_block[index]
            burst = task.pop("burst")
            every, pause = rng.randint(1, burst - 1), rng.randint(1, MAX_IO_TIME)
            bursts, left = [], burst
            while left > every:
                bursts += [every, pause]
                left -= every
            task["bursts"] = [*bursts, left]
    drawn.sort(key=lambda task: task["arrival"])  # stable: equal arrivals keep their drawing order
    return {"tasks": [{"name": name, **task} for name, task in zip(letter_names(count), drawn)]}
