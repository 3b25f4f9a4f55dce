"""The seam is real: a fourth mode that exists only in the tests (``tests/toy_mode``: one printer, whole jobs) is one
package and one registry entry, and it runs through everything the core offers a mode: ``simulate``, the command
line's ``--json`` in a fresh interpreter, the trace's questions, the rule's source with its deciding lines, the
exports and the quiz. Nothing outside its package names it (``test_mode_names.py``)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from schedulers import ScenarioError, algorithms, schema, simulate
from schedulers.export import metrics_csv, trace_json
from schedulers.modes import ENVIRONMENT, MODES
from schedulers.quiz import questions
from schedulers.rule import asked, deciding_lines, rule_source
from schedulers.trace import aligned_step, pending, span, step_aligner

ROOT = Path(__file__).resolve().parent.parent
# Fewest pages first: A prints over [0, 3); at t=3 B (1 page) and C (2) wait and B goes first; D comes at 9.
JOBS = {"jobs": [{"name": "A", "pages": 3}, {"name": "B", "arrival": 1, "pages": 2},
                 {"name": "C", "arrival": 1, "pages": 1}, {"name": "D", "arrival": 9, "pages": 1}]}


@pytest.fixture
def toy():
    MODES.register("toy", "tests.toy_mode")
    yield MODES["toy"]
    MODES.unregister("toy")


def test_the_toy_mode_is_one_registry_entry(toy):
    assert list(MODES)[-1] == "toy" and toy.name == "toy"
    assert list(algorithms("toy")) == ["first", "fewest"] and algorithms("toy")["first"].group == "article"
    assert schema("toy").items == "jobs" and schema("toy").required == ("name", "pages")
    with pytest.raises(ValueError):
        MODES.register("toy", "tests.toy_mode")   # a name is taken once


def test_simulate_runs_it_and_exports_its_rows(toy):
    result = simulate("toy", {**JOBS, "algorithm": "fewest"})
    assert [(row["name"], row["done"]) for row in result["jobs"]] == [("A", 3), ("B", 6), ("C", 4), ("D", 10)]
    assert [step["kind"] for step in result["steps"]] == ["initial", "print", "print", "print", "idle", "print"]
    first = simulate("toy", {**JOBS, "algorithm": "first"})
    assert [step.get("job") for step in first["steps"]][1:4] == ["A", "B", "C"]   # arrival, then input order
    assert metrics_csv(result).splitlines() == [
        "row,name,arrival,pages,done,turnaround", "job,A,0,3,3,3", "job,B,1,2,6,5", "job,C,1,1,4,3",
        "job,D,9,1,10,1", "average,,,,,3"]
    assert questions(result) == []   # a mode without quiz questions has none, and says so by having no answer
    with pytest.raises(ScenarioError) as bad:
        simulate("toy", {"jobs": [{"name": "A", "pages": 0}]})
    assert bad.value.field == "jobs[0].pages"


def test_the_command_line_sees_it_from_the_environment(toy, tmp_path):
    scenario = tmp_path / "jobs.json"
    scenario.write_text(json.dumps({**JOBS, "algorithm": "fewest"}), encoding="utf-8")
    env = {**os.environ, ENVIRONMENT: "toy=tests.toy_mode", "PYTHONPATH": str(ROOT)}

    def cli(*argv: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "schedulers", "toy", *argv], cwd=ROOT, env=env,
                              capture_output=True, text=True, timeout=60)
    done = cli("--scenario", str(scenario), "--json")
    assert done.returncode == 0, done.stderr
    assert done.stdout == trace_json(simulate("toy", {**JOBS, "algorithm": "fewest"}))
    listed = cli("--list")
    assert listed.returncode == 0 and "fewest" in listed.stdout and "the job with the fewest pages" in listed.stdout
    scenario.write_text('{"jobs": [{"name": "A"}]}', encoding="utf-8")
    broken = cli("--scenario", str(scenario))
    assert broken.returncode == 2 and broken.stderr == "error: jobs[0].pages: is missing\n"
    without = subprocess.run([sys.executable, "-m", "schedulers", "toy", "--list"], cwd=ROOT, capture_output=True,
                             text=True, timeout=60, env={k: v for k, v in env.items() if k != ENVIRONMENT})
    assert without.returncode == 2 and "invalid choice: 'toy'" in without.stderr   # only a registered mode runs


def test_the_trace_questions_are_its_own(toy):
    result = simulate("toy", {**JOBS, "algorithm": "fewest"})
    assert [span(result, k) for k in range(len(result["steps"]))] == [(None, 0), (0, 3), (3, 4), (4, 6), (6, 9),
                                                                       (9, 10)]
    assert pending(result, 0) == {"A", "B", "C", "D"} and pending(result, 2) == {"B", "D"}
    assert pending(result, 5) == set()
    first = simulate("toy", {**JOBS, "algorithm": "first"})   # A [0, 3), B [3, 5), C [5, 6), idle, D
    align = step_aligner(result, first)
    assert [align(k) for k in range(len(result["steps"]))] == [0, 1, 2, 2, 4, 5]
    assert aligned_step(result, 3, first) == 2   # C's start, t=4, falls in first's B [3, 5)
    with pytest.raises(ScenarioError) as unknown:
        span({**result, "mode": "gpu"}, 1)   # an unknown mode fails loudly, naming it
    assert unknown.value.field == "mode" and "'gpu'" in unknown.value.problem and "toy" in unknown.value.problem


def test_the_source_view_shows_its_rule_and_what_decided(toy):
    source = rule_source("toy", "fewest")
    head = source.sections[0]
    assert head.path == "tests/toy_mode/policies.py" and head.lines[0] == "class FewestPages(Policy):"
    text = (ROOT / head.path).read_text(encoding="utf-8").splitlines()
    assert list(head.lines) == text[head.first - 1:head.first - 1 + len(head.lines)]
    result = simulate("toy", {**JOBS, "algorithm": "fewest"})
    printed, idle = result["steps"][2], result["steps"][4]
    assert asked(source, printed) == ["pick"] and asked(source, idle) == []
    [(path, lines)] = deciding_lines(source, printed).items()
    assert path == head.path and "return min(waiting, key=lambda job: (job.pages, job.arrival, job.index))" in \
        [text[n - 1].strip() for n in sorted(lines)]
