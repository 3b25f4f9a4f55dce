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


def run_jobs(jobs: list[dict[str, Any]], timeout: float = 600, wheel: Path | None = None) -> list[dict[str, Any]]:
    """``wheel``: the project's wheel to install (default: one built from the sources, as the site builds it)."""
    package, wheel = pyodide_package(), wheel or project_wheel()
    done = subprocess.run(["node", str(HARNESS), str(package), str(wheel)], input=json.dumps(jobs),
                          capture_output=True, text=True, timeout=timeout)
    if done.returncode != 0:
        raise RuntimeError(f"the Pyodide harness failed: {done.stderr[-3000:]}")
    return json.loads(done.stdout)


# Compiles each source as its own unit, as Pyodide's runPythonAsync does (top-level await allowed), and every module
# of this project's wheel as `import` would; prints {"python": VERSION, "errors": {name: message}}.
COMPILE_CHECK = r'''
import ast, json, pathlib, sys, sysconfig
errors = {}
def check(name, text, flags):
    try:
        compile(text, name, "exec", flags=flags, dont_inherit=True)
    except SyntaxError as error:
        errors[name] = f"{type(error).__name__}: {error.msg} (line {error.lineno})"
for name, text in json.loads(pathlib.Path("sources.json").read_text(encoding="utf-8")).items():
    check(name, text, ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
site = pathlib.Path(sysconfig.get_path("purelib"))
record = next(site.glob("schedlab-*.dist-info")) / "RECORD"
for line in record.read_text().splitlines():
    path = line.split(",")[0]
    if path.endswith(".py"):
        check(path, (site / path).read_text(encoding="utf-8"), 0)
print(json.dumps({"python": sys.version.split()[0], "errors": errors}))
'''


def compile_errors(sources: dict[str, str], wheel: Path | None = None) -> dict[str, Any]:
    """``sources`` and the modules of the project's ``wheel`` compiled by the real Pyodide (npm's, the version the
    site runs)."""
    job = {"script": "compile_check.py", "argv": [],
           "files": {"compile_check.py": COMPILE_CHECK, "sources.json": json.dumps(sources)}}
    [done] = run_jobs([job], timeout=300, wheel=wheel)
    assert done["status"] == 0, done["stderr"][-3000:]
    return json.loads(done["stdout"])
