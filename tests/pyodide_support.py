"""Run jobs inside real Pyodide (Node + npm's pyodide, offline) through the one harness, ``pyodide_cli.mjs``.

Used by the benchmarks and the determinism tests: ``run_jobs([{"argv": [...], "files": {...}}])`` runs
``python -m schedulers ARGV`` (or, with ``"script": NAME``, one of the job's files) and returns
``[{"stdout", "stderr", "status"}, ...]``. ``PyodideUnavailable`` says what is missing, for a skip.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from functools import lru_cache
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
HARNESS = ROOT / "tests" / "pyodide_cli.mjs"


class PyodideUnavailable(Exception):
    """Why the core cannot run in Pyodide here (one sentence)."""


def pyodide_package() -> Path:
    if not shutil.which("node"):
        raise PyodideUnavailable("node is not installed, so the core cannot run in Pyodide here")
    package = os.environ.get("LAB_PYODIDE_NPM")
    if not package or not (Path(package) / "pyodide.mjs").exists():
        raise PyodideUnavailable("npm's pyodide is absent (LAB_PYODIDE_NPM unset): run through `python3 build.py test`")
    return Path(package)


@lru_cache(maxsize=1)
def project_wheel() -> Path:
    """The core as the static site ships it (static/build_site.py), built once per process."""
    builder = ROOT / "static" / "build_site.py"
    sys.path.insert(0, str(builder.parent))
    from build_site import project_wheel as build
    return build(ROOT, Path(tempfile.mkdtemp(prefix="lab-wheel-")))


def run_jobs(jobs: list[dict[str, Any]], timeout: float = 600) -> list[dict[str, Any]]:
    package, wheel = pyodide_package(), project_wheel()
    done = subprocess.run(["node", str(HARNESS), str(package), str(wheel)], input=json.dumps(jobs),
                          capture_output=True, text=True, timeout=timeout)
    if done.returncode != 0:
        raise RuntimeError(f"the Pyodide harness failed: {done.stderr[-3000:]}")
    return json.loads(done.stdout)
