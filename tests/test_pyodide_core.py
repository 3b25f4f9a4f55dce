"""The core inside real Pyodide (Node + npm pyodide@314.0.7, offline): the project's wheel, unpacked into Pyodide,
prints exactly what CPython prints for `python -m schedulers` on the article's scenarios (the engine mode's default
one), for every algorithm of every mode."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import pyodide_support
from schedulers import MODES, schema
from schedulers.engine import DEFAULT_SCENARIO

ROOT = Path(__file__).resolve().parent.parent

# The article's scenarios (contract.md), with the optional fields further algorithms read, given for every item.
ARTICLE = {
    "cpu": {"tasks": [{"name": "A", "arrival": 0, "burst": 7}, {"name": "B", "arrival": 1, "burst": 4},
                      {"name": "C", "arrival": 2, "burst": 1}, {"name": "D", "arrival": 4, "burst": 3}]},
    "llm": {"tenants": [{"name": "A", "cost": 8, "count": 6}, {"name": "B", "cost": 2, "count": 6},
                        {"name": "C", "cost": 2, "count": 4, "join": 6}]},
    "engine": {key: value for key, value in DEFAULT_SCENARIO.items() if key != "algorithm"},   # the point
}
ITEM_FIELDS = {"deadline": [9, 12, 4, 10], "priority": [3, 1, 2, 1], "tickets": [10, 20, 30, 40],
               "weight": [1, 2, 1, 1], "nice": [0, -5, 5, 19],
               "period": [8, 10, 12, 16], "relative_deadline": [6, 9, 12, 10],   # rm, dm: periodic tasks
               "class": [1, 0, 0, 1],                                             # mlq
               "sections": [[{"resource": "R", "start": 0, "length": 1}]] * 4}      # the fixed-priority rules
PARAMETERS = {"quantum": 2}

pytestmark = pytest.mark.pyodide


def scenario_for(mode: str, algorithm) -> dict:
    scenario = json.loads(json.dumps(ARTICLE[mode]))
    items = scenario[schema(mode).items]
    # An item's own fields; a request's (vtc-predict's predicted) is in the teaching probe's compact form, "4/8~6x4".
    for field in (name for name in algorithm.item_fields if name in schema(mode).names):
        for index, item in enumerate(items):
            item.setdefault(field, ITEM_FIELDS[field][index % len(ITEM_FIELDS[field])])
    scenario["algorithm"] = algorithm.name
    scenario.update({p: PARAMETERS[p] for p in algorithm.parameters if p in PARAMETERS})
    return scenario


def jobs_for(mode: str) -> list[dict]:
    from schedulers import algorithms
    jobs = []
    for algorithm in algorithms(mode).values():
        files = {"scenario.json": json.dumps(scenario_for(mode, algorithm))}
        jobs.append({"argv": [mode, "--scenario", "scenario.json", "--json"], "files": files})
        jobs.append({"argv": [mode, "--scenario", "scenario.json", "--lang", "ja"], "files": files})
    # A bad scenario: the same one-line error and exit status 2 in both.
    jobs.append({"argv": [mode, "--scenario", "bad.json"], "files": {"bad.json": '{"algorithm": 3}'}})
    return jobs


def run_cpython(job: dict, tmp: Path) -> dict:
    tmp.mkdir(parents=True)
    for name, text in job["files"].items():
        (tmp / name).write_text(text, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONIOENCODING": "utf-8"}
    done = subprocess.run([sys.executable, "-m", "schedulers", *job["argv"]], cwd=tmp, env=env,
                          capture_output=True, timeout=120)
    return {"stdout": done.stdout.decode("utf-8"), "stderr": done.stderr.decode("utf-8"), "status": done.returncode}


@pytest.fixture(scope="module")
def pyodide_package() -> Path:
    try:
        return pyodide_support.pyodide_package()
    except pyodide_support.PyodideUnavailable as reason:
        pytest.skip(str(reason))


@pytest.fixture(scope="module")
def wheel(pyodide_package) -> Path:
    return pyodide_support.project_wheel()


@pytest.mark.parametrize("mode", list(MODES))   # a mode of the registry without an ARTICLE scenario fails here
def test_cli_in_pyodide_matches_cpython(mode, pyodide_package, wheel, tmp_path):
    jobs = jobs_for(mode)
    expected = [run_cpython(job, tmp_path / str(i)) for i, job in enumerate(jobs)]
    for job, result in zip(jobs, expected):
        if job["files"].get("scenario.json"):
            assert result["status"] == 0, f"CPython rejected the article scenario for {job['argv']}: {result['stderr']}"
    actual = pyodide_support.run_jobs(jobs)
    assert len(actual) == len(jobs)
    for job, want, got in zip(jobs, expected, actual):
        assert got["stdout"].encode("utf-8") == want["stdout"].encode("utf-8"), f"stdout differs for {job['argv']}"
        assert (got["stderr"], got["status"]) == (want["stderr"], want["status"]), job["argv"]
    assert expected[-1]["status"] == 2 and expected[-1]["stderr"].startswith("error: ")


PROBE = """
import json, sys
from schedulers import fields
from schedulers.errors import ScenarioError

def attempt(check, *args):
    try:
        return repr(check(*args))
    except ScenarioError as error:
        return f"{error.field}: {error.problem}"

answers = json.dumps([sys.version_info[:2] >= (3, 12)]
    + [attempt(fields.positive_rational, v, "weight") for v in (1, 2.5, "3/4", 0, -1, True, "x", 1e400)]
    + [attempt(fields.integer, v, "burst", 1) for v in (1, 0, 2.0, "3", None, 10**30)]
    + [attempt(fields.name, v, "tasks[0].name") for v in ("A", "", "<img src=x>", 7)])
if __name__ == "__main__":
    print(answers)
    print(sys.version)
"""


def run_in_pyodide(pyodide_package: Path, wheel: Path, tmp_path: Path, *sources: str) -> list[str]:
    """Each of ``sources`` run in real Pyodide with the wheel installed, through the one harness: the value of its
    last expression, as text."""
    jobs = [{"script": "probe.py", "argv": [], "files": {"probe.py": printing_last_expression(source)}}
            for source in sources]
    answers = []
    for done in pyodide_support.run_jobs(jobs, timeout=300):
        assert done["status"] == 0, done["stderr"][-3000:]
        answers.append(done["stdout"].split(LAST_VALUE, 1)[1].removesuffix("\n"))
    return answers


LAST_VALUE = "\x00last value\x00\n"


def printing_last_expression(source: str) -> str:
    """``source`` as a script that prints the value of its last expression after a marker line."""
    import ast
    tree = ast.parse(source)
    if tree.body and isinstance(tree.body[-1], ast.Expr):
        value = tree.body.pop().value
        tree.body.append(ast.parse(f"print({LAST_VALUE!r}, end='')").body[0])
        tree.body.append(ast.Expr(ast.Call(ast.Name("print", ast.Load()),
                                           [ast.Call(ast.Name("str", ast.Load()), [value], [])], [])))
    return ast.unparse(ast.fix_missing_locations(tree))


def test_wheel_holds_the_core_and_runs_in_pyodide(pyodide_package, wheel):
    """Whatever modes this branch has: the wheel unpacks in Pyodide and its shared validation answers as CPython's."""
    import zipfile
    names = zipfile.ZipFile(wheel).namelist()
    assert {"schedulers/__init__.py", "schedulers/cli.py", "schedulers/fields.py"} <= set(names)
    assert not any("__pycache__" in n or n.endswith(".pyc") for n in names)
    [done] = pyodide_support.run_jobs([{"script": "probe.py", "argv": [], "files": {"probe.py": PROBE}}], timeout=300)
    assert done["status"] == 0, done["stderr"][-3000:]
    answers, version = done["stdout"].strip().split("\n", 1)
    assert version.startswith("3.14"), version  # really Pyodide 314's Python, not this one
    namespace: dict = {}
    exec(compile(PROBE, "probe", "exec"), namespace)
    assert answers == namespace["answers"]
