"""Determinism: the same scenario gives the same result, byte for byte (SHA-256 of its canonical JSON, full trace
included), across runs, across processes with different string hashing, and across CPython and Pyodide."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bench_core import measure
from schedulers import algorithms

ROOT = Path(__file__).resolve().parent.parent
BENCH_CORE = ROOT / "tests" / "bench_core.py"

# Small enough for the full trace (CPU: about 900 steps x 200 tasks; LLM: 300 requests over 10 tenants), so the
# digest covers every step, queue, meter and sentence; lottery draws its random tickets.
CASES = [{"mode": mode, "algorithm": algorithm, "n": 200 if mode == "cpu" else 300,
          "tenants": None if mode == "cpu" else 10, "trace": True}
         for mode in ("cpu", "llm") for algorithm in algorithms(mode)]


@pytest.fixture(scope="module")
def digests() -> list[dict]:
    results = [measure(case) for case in CASES]
    assert all(r["level"] == "full" for r in results), [(r["algorithm"], r["level"]) for r in results]
    return results


def test_the_same_run_twice_gives_the_same_digest(digests):
    assert [measure(case)["digest"] for case in CASES] == [r["digest"] for r in digests]
    assert len({r["digest"] for r in digests}) == len(CASES)   # and the rules really differ


@pytest.mark.parametrize("hash_seed", ["0", "4242"])
def test_string_hashing_does_not_change_the_result(digests, hash_seed, tmp_path):
    """Set and dict order of task/tenant names must never leak into a schedule or a trace."""
    cases = tmp_path / "cases.json"
    cases.write_text(json.dumps(CASES))
    done = subprocess.run([sys.executable, str(BENCH_CORE), str(cases)], capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONHASHSEED": hash_seed, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr[-2000:]
    assert [json.loads(line)["digest"] for line in done.stdout.splitlines()] == [r["digest"] for r in digests]


@pytest.mark.pyodide
def test_pyodide_gives_the_same_digests(digests):
    from pyodide_support import PyodideUnavailable, run_jobs
    job = {"script": "bench_core.py", "argv": ["cases.json"],
           "files": {"bench_core.py": BENCH_CORE.read_text(encoding="utf-8"), "cases.json": json.dumps(CASES)}}
    try:
        [done] = run_jobs([job])
    except PyodideUnavailable as reason:
        pytest.skip(str(reason))
    assert done["status"] == 0, done["stderr"][-2000:]
    in_pyodide = [json.loads(line) for line in done["stdout"].splitlines()]
    assert [(r["algorithm"], r["digest"]) for r in in_pyodide] == [(r["algorithm"], r["digest"]) for r in digests]
