"""Fuzzing of every input path of the core: scenario JSON (in-process and through the CLI) and CLI arguments.

Every input ends in a result or the documented error (``ScenarioError`` naming a field; on the command line
exit 2 with one ``error:`` line), never another exception, never a hang. The scenarios are structure-aware:
valid ones (from the seeded exercises) with one or a few parts replaced by junk of every JSON type, huge and
negative numbers, NaN/Infinity (Python's json reads them), unicode, markup, nesting.
"""
from __future__ import annotations

import contextlib
import io
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from schedulers import ScenarioError, algorithms, simulate
from schedulers.cli import main
from schedulers.exercises import cpu_exercise, llm_exercise

ROOT = Path(__file__).resolve().parent.parent
SECONDS_PER_EXAMPLE = 20   # every input is bounded by the documented limits; far past that is a hang
FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])

numbers = st.one_of(
    st.integers(-3, 12), st.integers(-2**70, 2**70),
    st.sampled_from([10**6, 10**6 + 1, 10**9, 10**9 + 1, 2**63, 10**400]),
    st.floats(allow_nan=True, allow_infinity=True), st.sampled_from([0.5, 2.0, -0.0, 1e300, 1e-300]))
texts = st.one_of(
    st.text(max_size=12),
    st.sampled_from(["", " ", "A", "<script>alert(1)</script>", "\"'><img src=x onerror=alert(1)>", "名前",
                     "\u202etxt", "\x00", "1/0", "2/3", "-1/2", "1e99999999", "NaN", "\ud800", "fcfs", "sfq", "rr",
                     "x" * 65]))
scalars = st.one_of(st.none(), st.booleans(), numbers, texts)
junk = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                      st.dictionaries(texts, inner, max_size=4)), max_leaves=12)

CPU_KEYS = ["mode", "title", "description", "algorithm", "tasks", "quantum", "aging", "levels", "quanta", "allotment",
            "boost", "lottery_seed", "brust"]
CPU_TASK_KEYS = ["name", "arrival", "burst", "deadline", "priority", "tickets", "weight"]
LLM_KEYS = ["algorithm", "tenants", "quantum", "compare", "mode"]
LLM_TENANT_KEYS = ["name", "cost", "count", "costs", "join", "arrivals", "weight"]


@contextlib.contextmanager
def time_limit(seconds: int):
    """Fail (not hang) when one example runs past ``seconds``."""
    def expired(signum, frame):
        raise TimeoutError(f"no answer after {seconds} s: a hang")
    previous = signal.signal(signal.SIGALRM, expired)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


@st.composite
def scenarios(draw, mode: str) -> dict:
    """A valid seeded scenario, then up to four mutations: a key set to junk or to a near-miss value, a key
    removed, an item replaced by junk."""
    seed = draw(st.integers(0, 10**6))
    scenario = cpu_exercise(seed, tasks=draw(st.integers(1, 6))) if mode == "cpu" \
        else llm_exercise(seed, tenants=draw(st.integers(1, 4)))
    items_key, top_keys, item_keys = ("tasks", CPU_KEYS, CPU_TASK_KEYS) if mode == "cpu" \
        else ("tenants", LLM_KEYS, LLM_TENANT_KEYS)
    scenario["algorithm"] = draw(st.sampled_from(list(algorithms(mode))))
    values = st.one_of(junk, numbers, st.sampled_from(list(algorithms(mode))),
                       st.lists(st.integers(-1, 5), max_size=5), st.lists(texts, max_size=3))
    for _ in range(draw(st.integers(0, 4))):
        items = scenario.get(items_key)
        where = draw(st.sampled_from(["top", "item", "drop", "whole item"]))
        if where == "top":
            scenario[draw(st.sampled_from(top_keys + ["", "tasks " * 3]))] = draw(values)
        elif where == "drop" and scenario:
            scenario.pop(draw(st.sampled_from(sorted(scenario, key=str))))
        elif isinstance(items, list) and items:
            index = draw(st.integers(0, len(items) - 1))
            if where == "whole item":
                items[index] = draw(junk)
            elif isinstance(items[index], dict):
                items[index][draw(st.sampled_from(item_keys))] = draw(values)
    return scenario


def check_answer(mode: str, scenario) -> None:
    """The core's contract for any input: a JSON-ready result, or ScenarioError naming a field."""
    with time_limit(SECONDS_PER_EXAMPLE):
        try:
            result = simulate(mode, scenario)
        except ScenarioError as error:
            assert isinstance(error.field, str) and error.field and str(error).startswith(f"{error.field}: ")
            assert "\n" not in str(error) and len(str(error)) < 500, str(error)[:600]
            return
    json.dumps(result, ensure_ascii=False, allow_nan=False).encode("utf-8")   # printable as the CLI does
    assert result["mode"] == mode


@pytest.mark.parametrize("mode", ["cpu", "llm"])
@FUZZ
@given(data=st.data())
def test_any_scenario_gives_a_result_or_a_named_error(mode, data):
    check_answer(mode, data.draw(scenarios(mode)))


@pytest.mark.parametrize("mode", ["cpu", "llm"])
@settings(max_examples=150, deadline=None)
@given(value=junk)
def test_any_json_value_as_the_scenario(mode, value):
    check_answer(mode, value)


def run_cli(argv: list[str], stdin: str = "") -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with time_limit(SECONDS_PER_EXAMPLE), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), \
            pytest.MonkeyPatch.context() as patch:
        patch.setattr(sys, "stdin", io.StringIO(stdin))
        try:
            status = main(argv)
        except SystemExit as exit:   # only --help / --version may leave through argparse, with status 0
            status = exit.code
            assert status == 0, (argv, err.getvalue())
    return status, out.getvalue(), err.getvalue()


def assert_documented(status: int, out: str, err: str, argv) -> None:
    assert status in (0, 2), (argv, status, err)
    if status == 2:
        assert out == "" and err.startswith("error: ") and err.count("\n") == 1, (argv, err)
    else:
        out.encode("utf-8")


CLI_OPTIONS = ["--scenario", "--seed", "--algorithm", "--json", "--lang", "--list", "--quantum", "--aging", "--levels",
               "--quanta", "--allotment", "--boost", "--lottery-seed", "--help", "--bogus", "-"]
arguments = st.one_of(st.sampled_from(CLI_OPTIONS), texts, st.integers(-5, 10**20).map(str),
                      st.sampled_from(["fcfs", "srtf", "sfq", "drr", "mlfq", "1,2,4", "0", "-1", "ja", "2/3", "-"]))


@FUZZ
@given(mode=st.sampled_from(["cpu", "llm", "gpu", ""]), argv=st.lists(arguments, max_size=6),
       scenario=st.one_of(scenarios("cpu"), scenarios("llm"), junk.map(lambda v: {"tasks": v})))
def test_any_command_line_exits_0_or_2_with_one_error_line(mode, argv, scenario):
    """argv through cli.main in-process; "-" reads the scenario from stdin."""
    argv = [mode, *(a for a in argv if "\x00" not in a)]
    stdin = json.dumps(scenario, ensure_ascii=False) if "-" in argv else ""
    assert_documented(*run_cli(argv, stdin), argv)


@FUZZ
@given(scenario=st.one_of(scenarios("cpu"), scenarios("llm")), mode=st.sampled_from(["cpu", "llm"]),
       text=st.booleans())
def test_any_scenario_file_through_the_cli(scenario, mode, text, tmp_path_factory):
    path = tmp_path_factory.mktemp("fuzz") / "scenario.json"
    path.write_text(json.dumps(scenario, ensure_ascii=False), encoding="utf-8", errors="surrogatepass")
    argv = [mode, "--scenario", str(path)] + ([] if text else ["--json"])
    assert_documented(*run_cli(argv), argv)


@pytest.mark.parametrize("raw", [
    b"", b"{", b"[]", b"null", b'{"tasks": [' * 5000, b"\xff\xfe{}", b'{"tasks": [{"name": "A", "arrival": 0, '
    b'"burst": 1' + b"0" * 5000 + b"}]}", b'{"tasks": [{"name": "\\ud800", "arrival": 0, "burst": 1}]}',
    b'{"tenants": [{"name": "A", "cost": 1, "count": 1, "weight": "1e99999999"}]}', b'{"tasks": NaN}'])
def test_malformed_files_through_a_real_process(raw, tmp_path):
    """A bounded number of real processes: the exit status and stderr as a shell sees them."""
    path = tmp_path / "bad.json"
    path.write_bytes(raw)
    mode = "llm" if b"tenants" in raw else "cpu"
    done = subprocess.run([sys.executable, "-m", "schedulers", mode, "--scenario", str(path)], capture_output=True,
                          timeout=60, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
    err = done.stderr.decode("utf-8")
    assert done.returncode == 2 and err.startswith("error: ") and err.count("\n") == 1, err[-2000:]
    assert done.stdout == b""


@pytest.mark.parametrize("name", ["\ud800", "a\x00b"])
def test_a_file_name_no_system_can_open_is_named_in_one_line(name):
    """Found by the fuzz above: a lone surrogate (or a NUL) as the scenario's path raised from the OS layer."""
    status, out, err = run_cli(["cpu", "--scenario", name])
    assert status == 2 and out == ""
    assert err == f"error: scenario: cannot read {name!r}: not a file name this system can open\n"
