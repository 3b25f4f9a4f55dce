"""A policy of your own: the same engine, the same trace, and every mistake reported with its line."""
from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from schedulers import custom, simulate
from schedulers.custom import PolicyCodeError, TEMPLATES
from tests.cpu_support import ARTICLE, scenario

REFERENCE = {"tenants": [{"name": "A", "cost": 8, "count": 6}, {"name": "B", "cost": 2, "count": 6},
                         {"name": "C", "cost": 2, "count": 4, "join": 6}]}

SRTF = '''
def choose(ready, running, time, state):
    best = min(ready, key=lambda t: (t.remaining, t.arrival, t.index))
    if running is not None and not best.remaining < running.remaining:
        return running.name
    return best.name
'''

SFQ = '''
def choose(waiting, time, state):
    meter = state.setdefault("meter", {})
    since = state.setdefault("since", {})
    v = state.get("v", 0)
    if all(t.since > state.get("last", -1) for t in waiting):
        v = max([v, *meter.values()])       # every queue was empty: the idle reset
    for t in waiting:
        if since.get(t.name) != t.since:    # from empty to waiting: M = max(M, V)
            since[t.name] = t.since
            meter[t.name] = max(meter.get(t.name, 0), v)
    chosen = min(waiting, key=lambda t: (meter[t.name], t.index))
    state["v"] = meter[chosen.name]
    meter[chosen.name] += Fraction(chosen.head_cost) / chosen.weight
    state["last"] = time
    return chosen.name
'''


def without_why(result):
    return [{k: v for k, v in step.items() if k != "why"} for step in result["steps"]]


def test_template_fcfs_reproduces_the_builtin_trace_exactly():
    mine = custom.run("cpu", scenario("fcfs", ARTICLE), TEMPLATES["cpu"])
    builtin = simulate("cpu", scenario("fcfs", ARTICLE))
    assert mine["algorithm"] == "custom"
    assert without_why(mine) == without_why(builtin)
    for key in ("timeline", "tasks", "averages", "summary", "exact", "trace"):
        assert mine[key] == builtin[key], key
    assert mine["averages"]["waiting"] == 5.75
    assert mine["steps"][3]["why"]["en"] == "t=2: A (remaining 5) continues: your choose() kept it."


cpu_tasks = st.lists(st.tuples(st.integers(0, 12), st.integers(1, 6)), min_size=1, max_size=6).map(
    lambda pairs: [(chr(65 + i), a, b) for i, (a, b) in enumerate(pairs)])


@settings(max_examples=60, deadline=None)
@given(cpu_tasks)
def test_user_fcfs_and_srtf_match_the_builtins(tasks):
    fcfs = custom.run("cpu", scenario("fcfs", tasks), TEMPLATES["cpu"])
    assert without_why(fcfs) == without_why(simulate("cpu", scenario("fcfs", tasks)))
    srtf, builtin = custom.run("cpu", scenario("srtf", tasks), SRTF), simulate("cpu", scenario("srtf", tasks))
    assert srtf["timeline"] == builtin["timeline"] and srtf["tasks"] == builtin["tasks"]
    # The same decisions and events at every step (the ready list is in queue order, not SRTF's order).
    assert [(s["decision"], s["events"], s["running"]) for s in srtf["steps"]] == \
           [(s["decision"], s["events"], s["running"]) for s in builtin["steps"]]


def test_llm_user_sfq_and_rr_template_match_the_builtins_on_the_reference():
    sfq = custom.run("llm", REFERENCE, SFQ)
    assert "".join(d["tenant"] for d in sfq["dispatch"]) == "ABBBBABCBCCCAAAA"
    rr = custom.run("llm", REFERENCE, TEMPLATES["llm"])
    assert "".join(d["tenant"] for d in rr["dispatch"]) == "ABABABCABCABCABC"
    assert rr["steps"][5]["why"]["en"] == "t=2: your choose() picked A; its head request (cost 8) is dispatched."


tenants = st.lists(st.tuples(st.lists(st.integers(1, 8), min_size=1, max_size=4), st.integers(0, 12),
                             st.sampled_from([1, 2, 3, "1/2", "2/3"])), min_size=1, max_size=4).map(
    lambda items: {"tenants": [{"name": chr(65 + i), "costs": costs, "join": join, "weight": weight}
                               for i, (costs, join, weight) in enumerate(items)]})


@settings(max_examples=60, deadline=None)
@given(tenants)
def test_user_sfq_and_rr_match_the_builtins(llm_scenario):
    for source, algorithm in ((SFQ, "sfq"), (TEMPLATES["llm"], "rr")):
        mine = custom.run("llm", llm_scenario, source)
        builtin = simulate("llm", {**llm_scenario, "algorithm": algorithm})
        assert mine["dispatch"] == builtin["dispatch"]
        assert mine["tenants"] == builtin["tenants"]


def error(mode: str, source: str, data=None) -> PolicyCodeError:
    with pytest.raises(PolicyCodeError) as caught:
        custom.run(mode, data or (scenario("fcfs", ARTICLE) if mode == "cpu" else REFERENCE), source)
    assert caught.value.field == "policy"
    assert caught.value.message["ja"] and caught.value.message["en"] == caught.value.problem
    return caught.value


@pytest.mark.parametrize("source, line, words", [
    ("def choose(ready, running, time, state):\n    return ready[0].name +\n", 2, "syntax error"),
    ("import os\ndef choose(ready, running, time, state):\n    return 'A'\n", 1, "import is not available"),
    ("def choose(ready, running, time, state):\n    try:\n        pass\n    except:\n        pass\n", 2, "try/except"),
    ("def choose(ready, running, time, state):\n    return ready[0].__class__\n", 2, "__class__ is not available"),
    ("def chose(ready, running, time, state):\n    return 'A'\n", None, "define a function choose"),
    ("def choose(ready, time, state):\n    return 'A'\n", 1, "exactly 4 parameters"),
    ("def choose(ready, running, time, state):\n    x = 1\n    return x / 0\n", 3,
     "ZeroDivisionError: division by zero at t=0"),
    ("def choose(ready, running, time, state):\n    while True:\n        pass\n", 2, "more than 100000 lines"),
    ("def choose(ready, running, time, state):\n    return 'Z'\n", 2, "'Z' at t=0, which is not a task"),
    ("def choose(ready, running, time, state):\n    return 'D'\n", 2,
     "'D' at t=0, which is not ready (choose among: A)"),
    ("def choose(ready, running, time, state):\n    return ready[0]\n", 2,
     "(type TaskView) at t=0; return a task's name"),
    ("def choose(ready, running, time, state):\n    return None\n", 2,
     "returned None at t=0 while tasks are ready (A)"),
    ("def choose(ready, running, time, state):\n    return 2 ** 20000\n", 2, "an integer of about 6021 digits"),
    ("def choose(ready, running, time, state):\n    ready[0].remaining = 0\n", 2, "FrozenInstanceError"),
    ("def choose(ready, running, time, state):\n    return str(sum(range(10 ** 9)))\n", 2, "range of more than"),
    ("def choose(ready, running, time, state):\n    print(ready)\n", 2, "NameError: name 'print' is not defined"),
    ("x = [0]\nwhile x:\n    x.append(1)\n", 3, "more than 100000 lines"),
    # One C-level operation would run for minutes, out of the line counter's reach: refused at once.
    ("def choose(ready, running, time, state):\n    return str(10 ** 10 ** 8)\n", 2, "result of ** would be too large"),
    ("def choose(ready, running, time, state):\n    return 'A' * 10 ** 9\n", 2, "result of * would be too large"),
    ("def choose(ready, running, time, state):\n    return [0] * 10 ** 8\n", 2, "result of * would be too large"),
    ("def choose(ready, running, time, state):\n    return 1 << 10 ** 9\n", 2, "result of << would be too large"),
    ("def choose(ready, running, time, state):\n    return Fraction(3, 2) ** -10 ** 7\n", 2, "too large"),
    ("def choose(ready, running, time, state):\n    x = 3\n    for i in range(40):\n        x *= x\n", 4,
     "result of * would be too large"),
    ("def choose(ready, running, time, state):\n    x = [1]\n    x[0] *= 2\n    return 'A'\n", 3, "*= on an item"),
])
def test_every_mistake_is_reported_with_its_line(source, line, words):
    caught = error("cpu", source)
    assert caught.line == line
    assert words in caught.problem


def test_bounded_arithmetic_keeps_ordinary_values_exact():
    source = ("def choose(ready, running, time, state):\n    w = int(2 ** 10 * 3 * Fraction(1, 2)) << 1\n"
              "    n = 'ab' * 2\n    n *= 2\n    if w != 3072 or n != 'abababab':\n        return 'Z'\n"
              "    return running.name if running else ready[0].name\n")
    assert custom.run("cpu", scenario("fcfs", ARTICLE), source)["timeline"] == simulate(
        "cpu", scenario("fcfs", ARTICLE))["timeline"]


def test_a_later_mistake_names_the_time_and_the_candidates():
    source = "def choose(ready, running, time, state):\n    return 'D' if time == 3 else (running or ready[0]).name\n"
    caught = error("cpu", source)
    assert caught.problem == "line 2: choose returned 'D' at t=3, which is not ready (choose among: A, B, C)"
    assert "t=3" in caught.message["ja"] and "候補: A, B, C" in caught.message["ja"]


def test_llm_mistakes():
    assert "which is not waiting (choose among: A, B)" in error(
        "llm", "def choose(waiting, time, state):\n    return 'C'\n").problem
    assert "'Q' at t=0, which is not a tenant" in error(
        "llm", "def choose(waiting, time, state):\n    return 'Q'\n").problem
    caught = error("llm", "def choose(waiting, time, state):\n    waiting[0].waiting = 0\n")
    assert caught.line == 2 and "read-only" in caught.problem


def test_the_step_limit_stops_a_long_run(monkeypatch):
    monkeypatch.setattr(custom, "MAX_DECISIONS", 5)
    caught = error("cpu", TEMPLATES["cpu"])
    assert "more than 5 decisions at t=5" in caught.problem


def test_the_run_budget_counts_every_call(monkeypatch):
    monkeypatch.setattr(custom, "MAX_LINES_PER_RUN", 20)
    caught = error("cpu", TEMPLATES["cpu"])
    assert "more than 20 lines executed in this run" in caught.problem


def test_a_bad_scenario_is_still_the_scenario_error_and_tracing_is_restored():
    import sys
    before = sys.gettrace()
    with pytest.raises(Exception) as caught:
        custom.run("cpu", {"tasks": [{"name": "A", "arrival": 0}]}, TEMPLATES["cpu"])
    assert caught.value.field == "tasks[0].burst"
    error("cpu", "def choose(ready, running, time, state):\n    return 1 / 0\n")
    assert sys.gettrace() is before


def test_lines_each_call_ran_are_recorded():
    result = custom.run("cpu", scenario("fcfs", ARTICLE), TEMPLATES["cpu"])
    calls = result["custom"]["lines"]
    assert calls[0] == {"time": 0, "lines": [10, 12]}       # nothing running: the FCFS line
    assert calls[1] == {"time": 1, "lines": [10, 11]}       # A runs: keep it
    # One call per time unit at which a task is ready: t=0..12 (D runs alone over 13 and 14: no choice).
    assert [call["time"] for call in calls] == list(range(13))


def test_the_command_line_runs_a_policy_file(tmp_path):
    import subprocess
    import sys
    from tests.cpu_support import ROOT
    mine = tmp_path / "mine.py"
    mine.write_text(TEMPLATES["cpu"])

    def cli(*argv):
        return subprocess.run([sys.executable, "-m", "schedulers", *argv], capture_output=True, text=True, cwd=ROOT)

    own, builtin = cli("cpu", "--seed", "42", "--policy", str(mine), "--json"), cli("cpu", "--seed", "42", "--json")
    import json
    assert json.loads(own.stdout)["timeline"] == json.loads(builtin.stdout)["timeline"]
    mine.write_text("def choose(waiting, time, state):\n    return 5\n")
    bad = cli("llm", "--seed", "1", "--policy", str(mine))
    assert bad.returncode == 2 and bad.stdout == ""
    assert bad.stderr == "error: policy: line 2: choose returned 5 (type int) at t=0; return a tenant's name (text)\n"
    missing = cli("llm", "--seed", "1", "--policy", str(tmp_path / "absent.py"))
    assert missing.returncode == 2 and missing.stderr.startswith("error: policy: cannot read")
