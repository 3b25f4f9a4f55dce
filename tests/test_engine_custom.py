"""A policy of your own in engine mode: the engine's own loop asks your ``choose`` at each admission; the template
(least service per weight) admits as VTC does while no lift matters; FCFS written by hand is FCFS; mistakes name
their line and iteration; the source view's lines follow each decision; and the command line takes ``--policy``."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest
from hypothesis import given, settings, strategies as st

from schedulers import custom, simulate
from schedulers.custom import PolicyCodeError, TEMPLATES
from schedulers.engine import DEFAULT_SCENARIO
from schedulers.trace import policy_lines
from tests.test_engine_cli import ROOT

FCFS = '''
def choose(waiting, time, state):
    return min(waiting, key=lambda t: (t.since, t.index)).name
'''


def admissions(result):
    return [(a["iteration"], a["tenant"], a["request"], a["slot"]) for a in result["admissions"]]


def test_the_template_admits_as_vtc_when_everyone_arrives_at_once():
    mine = simulate("engine", DEFAULT_SCENARIO, policy_source=TEMPLATES["engine"])
    vtc = simulate("engine", DEFAULT_SCENARIO)
    assert mine["algorithm"] == "custom" and admissions(mine) == admissions(vtc)
    assert [t["counter"] for t in mine["tenants"]] == [t["counter"] for t in vtc["tenants"]]   # counted as VTC
    admit = next(s for s in mine["steps"] if s["kind"] == "admit")
    assert admit["why"]["en"] == "t=0: A's request #0 takes slot 0. It is charged w_in × input = 1 × 4 = 4: A's " \
                                 "counter becomes 4."


requests = st.lists(st.tuples(st.integers(1, 6), st.integers(1, 6), st.integers(0, 3)), min_size=1, max_size=5)


@settings(max_examples=50, deadline=None)
@given(st.lists(requests, min_size=1, max_size=3), st.integers(1, 3))
def test_fcfs_by_hand_is_the_builtin_fcfs(tenants, slots):
    """``since`` is the arrival of a tenant's oldest waiting request while its backlog lasts: with FIFO queues the
    least (then tenant order) is FCFS's pick, when every request of a tenant arrives together."""
    scenario = {"slots": slots, "tenants": [
        {"name": chr(65 + i), "requests": [{"arrival": at, "input": a, "output": b} for a, b, at in
                                           [(a, b, max(r[2] for r in rows)) for a, b, _ in rows]]}
        for i, rows in enumerate(tenants)]}
    assert admissions(simulate("engine", scenario, policy_source=FCFS)) == \
        admissions(simulate("engine", {**scenario, "algorithm": "fcfs"}))


@pytest.mark.parametrize("source, line, words", [
    ("def choose(waiting, time, state):\n    return 'Z'\n", 2, "which is not a tenant"),
    ("def choose(waiting, time, state):\n    return 3\n", 2, "return a tenant's name"),
    ("def choose(waiting, time, state):\n    return waiting[0].output\n", 2, "AttributeError"),
    ("def choose(waiting, time):\n    return waiting[0].name\n", 1, "exactly 3 parameters"),
    ("def choose(waiting, time, state):\n    waiting[0].weight = 2\n", 2, "read-only"),
])
def test_mistakes_name_the_line(source, line, words):
    with pytest.raises(PolicyCodeError) as raised:
        simulate("engine", DEFAULT_SCENARIO, policy_source=source)
    assert raised.value.line == line and words in raised.value.problem


def test_a_tenant_not_waiting_is_refused_with_the_candidates():
    source = "def choose(waiting, time, state):\n    return 'B' if time > 3 else waiting[0].name\n"
    scenario = {"slots": 1, "tenants": [{"name": "A", "requests": "1/1x8"}, {"name": "B", "requests": "1/1"}]}
    with pytest.raises(PolicyCodeError) as raised:
        simulate("engine", scenario, policy_source=source)
    assert "which is not waiting (choose among: A)" in raised.value.problem and "t=" in raised.value.problem


def test_the_lines_of_each_decision_and_a_pick_that_does_not_fit_is_asked_again():
    source = ("def choose(waiting, time, state):\n"
              "    if len(waiting) > 1:\n"
              "        return waiting[1].name\n"
              "    return waiting[0].name\n")
    scenario = {"slots": 2, "memory": 12, "tenants": [{"name": "A", "requests": "2/3x2"},
                                                       {"name": "B", "requests": "8/2x2"}]}
    result = simulate("engine", scenario, policy_source=source)
    steps = result["steps"]
    admits = [k for k, s in enumerate(steps) if s["kind"] == "admit"]
    assert [policy_lines(result, k) for k in admits[:1]] == [{2, 3}]
    assert all(policy_lines(result, k) == set() for k, s in enumerate(steps) if s["kind"] != "admit")
    blocked = [s for s in steps if s["kind"] == "decode" and "blocked" in s]
    assert blocked and len(result["custom"]["lines"]) > len(result["admissions"])   # asked again, next iteration


def test_the_command_line_runs_an_engine_policy(scenario_file, tmp_path):
    policy = tmp_path / "mine.py"
    policy.write_text(TEMPLATES["engine"], encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "schedulers", "engine", "--scenario", scenario_file(DEFAULT_SCENARIO),
                           "--policy", str(policy), "--json"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == custom.run("engine", DEFAULT_SCENARIO, TEMPLATES["engine"])
    policy.write_text("def choose(waiting, time, state):\n    return None\n", encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "schedulers", "engine", "--scenario", scenario_file(DEFAULT_SCENARIO),
                           "--policy", str(policy)], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert done.stderr == "error: policy: line 2: choose returned null (type NoneType) at t=0; return a tenant's " \
                          "name (text)\n"
