"""The core's cost in instructions, not seconds: each case run once under ``valgrind --tool=callgrind`` in each
checkout given, so two commits compare on a loaded machine (callgrind counts the same whatever else runs).

    python3 tests/count_instructions.py OLD_CHECKOUT NEW_CHECKOUT [...]

A case is one algorithm of each mode on the bench's seeded workloads at n = 1,000 (``tests/bench_core.py``: CPU
1,000 tasks, arrivals in [0, 4,000], bursts 1..8; LLM 1,000 requests of 10 tenants, costs 1..100), made here by
this checkout's generators and written to a file every checkout reads, so all run the same scenarios; each with a
full trace (what the lab asks for). The cost of starting Python and importing the core (a run of no case) is
measured apart and taken off every case. Under valgrind a case takes 10-30 s: the whole table about 20 minutes a
checkout.
"""
from __future__ import annotations

import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RUN_ONE = """import json, sys
sys.path.insert(0, sys.argv[3])
from schedulers.cpu import run as cpu_run
from schedulers.llm import run as llm_run
cases = json.load(open(sys.argv[1]))
index = int(sys.argv[2])
if index >= 0:
    case = cases[index]
    try:
        (cpu_run if case["mode"] == "cpu" else llm_run)(case["scenario"], trace=True)
    except Exception:   # an older checkout without the algorithm: no count
        sys.exit(3)
"""


def cases() -> list[dict]:
    sys.path.insert(0, str(ROOT))
    from schedulers.cpu import ALGORITHMS as CPU
    from schedulers.exercises import llm_exercise
    from schedulers.llm import ALGORITHMS as LLM
    from tests.bench_core import workload
    made = [{"mode": "cpu", "scenario": {**workload("cpu", 1000), "algorithm": name}} for name in sorted(CPU)]
    made += [{"mode": "llm", "scenario": {**llm_exercise(1, tenants=10, max_cost=100, max_join=1000, requests=1000),
                                          "algorithm": name}} for name in sorted(LLM)]
    return made


def instructions(checkout: Path, cases_file: Path, script: Path, index: int) -> int | None:
    """The instructions of case ``index`` (-1: none) in ``checkout``; None if that checkout cannot run it."""
    done = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable,
                           str(script), str(cases_file), str(index), str(checkout)], capture_output=True, text=True)
    if done.returncode == 3:
        return None
    if done.returncode:
        raise SystemExit(f"{checkout}: case {index} failed:\n{done.stderr[-2000:]}")
    return int(re.search(r"Collected : (\d+)", done.stderr)[1])


def main(checkouts: list[Path]) -> None:
    made = cases()
    with tempfile.TemporaryDirectory() as folder:
        cases_file, script = Path(folder) / "cases.json", Path(folder) / "run_one.py"
        cases_file.write_text(json.dumps(made))
        script.write_text(RUN_ONE)
        counts = {}
        for checkout in checkouts:
            start = instructions(checkout, cases_file, script, -1)
            counts[checkout] = [instructions(checkout, cases_file, script, k) for k in range(len(made))]
            counts[checkout] = [None if n is None else n - start for n in counts[checkout]]
            print(f"{checkout}: starting and importing {start / 1e6:.0f}M instructions", flush=True)
    first = counts[checkouts[0]]

    def cell(n: int | None, base: int | None) -> str:
        return f"{'-':>24}" if n is None or base is None else f"{n / 1e6:>14.1f}M ({n / base - 1:+6.1%})"
    print("case".ljust(28) + "".join(f"{c.name[:22]:>24}" for c in checkouts))
    for mode in ("cpu", "llm"):
        rows = [k for k, case in enumerate(made) if case["mode"] == mode]
        for k in rows:
            print(f"{mode}:{made[k]['scenario']['algorithm']}".ljust(28)
                  + "".join(cell(counts[c][k], first[k]) for c in checkouts))
        common = [k for k in rows if all(counts[c][k] is not None for c in checkouts)]
        print(f"{mode}, the cases all ran".ljust(28) + "".join(
            cell(sum(counts[c][k] for k in common), sum(first[k] for k in common)) for c in checkouts))


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main([Path(arg).resolve() for arg in sys.argv[1:]])
