"""``python -m schedulers engine``: text, --json, options, and one ``error:`` line naming the field for bad input."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from schedulers.engine import DEFAULT_SCENARIO
from schedulers.exercises import engine_exercise

ROOT = Path(__file__).resolve().parent.parent


def cli(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "schedulers", "engine", *args], cwd=ROOT, input=stdin,
                          capture_output=True, text=True, timeout=120)


def test_json_has_the_issues_keys(scenario_file):
    done = cli("--scenario", scenario_file(DEFAULT_SCENARIO), "--algorithm", "fcfs", "--json")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["mode"] == "engine" and result["algorithm"] == "fcfs"
    assert all({"iteration", "tenant", "request", "charged"} <= set(a) for a in result["admissions"])
    assert all({"name", "service", "counter", "input_tokens", "output_tokens"} <= set(t) for t in result["tenants"])
    assert all({"kind", "iteration", "counters"} <= set(s) for s in result["steps"])
    assert {s["kind"] for s in result["steps"]} == {"initial", "arrive", "admit", "decode"}
    assert result["fairness"]["holds"] is False   # FCFS lets A take the batch


def test_options_override_the_file(scenario_file):
    path = scenario_file(DEFAULT_SCENARIO)
    result = json.loads(cli("--scenario", path, "--slots", "2", "--memory", "40", "--w-in", "1/2", "--w-out", "3",
                            "--algorithm", "vtc-predict", "--prediction", "5", "--json").stdout)
    assert result["parameters"] == {"slots": 2, "memory": 40, "w_in": 0.5, "w_out": 3, "prediction": 5,
                                    "exact": {"w_in": "1/2", "w_out": "3"}}
    assert {a["predicted"] for a in result["admissions"]} == {5}
    assert max(a["slot"] for a in result["admissions"]) == 1


def test_text_in_both_languages(scenario_file):
    path = scenario_file(DEFAULT_SCENARIO)   # no --algorithm: the file's, vtc
    en = cli("--scenario", path)
    assert en.returncode == 0, en.stderr
    lines = en.stdout.splitlines()
    assert lines[0] == "Inference engine · vtc · slots 4 · w_in 1 · w_out 2"
    slot_rows = [line for line in lines if line.startswith("  slot ")]
    assert len(slot_rows) == 4 and slot_rows[0].startswith("  slot 0  AAAAAAAA")
    ticks = lines[lines.index("Batch slots (one character per iteration):") + 1]
    assert ticks.index("0") == slot_rows[0].index("A")             # the ticks line up with the first iteration
    assert "A vs B: max |ΔS_A/w - ΔS_B/w| = 24" in en.stdout and en.stdout.rstrip().endswith(": holds")
    ja = cli("--scenario", path, "--lang", "ja")
    assert "推論エンジン · vtc" in ja.stdout and "成立" in ja.stdout
    assert "t=0: A のリクエストが 16 件届きます" in ja.stdout


def test_list_seed_and_stdin():
    listed = cli("--list").stdout
    assert [line.split()[0] for line in listed.splitlines()] == ["fcfs", "vtc", "vtc-predict"]
    seeded = cli("--seed", "42", "--json")
    assert seeded.returncode == 0, seeded.stderr
    result = json.loads(seeded.stdout)
    assert [t["name"] for t in result["tenants"]] == [t["name"] for t in engine_exercise(42)["tenants"]]
    assert result["parameters"]["slots"] == 2
    assert "Inference engine" in cli("--scenario", "-", stdin=json.dumps(DEFAULT_SCENARIO)).stdout


@pytest.mark.parametrize("args, data, line", [
    ((), {"tenants": [{"name": "A", "requests": "4/0"}]},
     "error: tenants[0].requests: group 1 ('4/0'): output must be >= 1, not 0"),
    ((), {"tenants": [{"name": "A", "requests": [{"input": 3}]}]}, "error: tenants[0].requests[0].output: required"),
    (("--slots", "x"), DEFAULT_SCENARIO, "error: slots: must be an integer from 1 to 1000, not 'x'"),
    (("--slots", "-1"), DEFAULT_SCENARIO, "error: slots: must be >= 1, not -1"),
    (("--memory", "4"), DEFAULT_SCENARIO,
     "error: tenants[0].requests: group 1 ('4/8x16'): input 4 with its first output token can never fit in memory = 4"),
    (("--w-in", "0"), DEFAULT_SCENARIO, "error: w_in: must be > 0, not '0'"),
    (("--w-out", "1e9999"), DEFAULT_SCENARIO, "error: w_out: must be a positive number, not '1e9999'"),
    (("--algorithm", "sfq"), DEFAULT_SCENARIO, "error: algorithm: must be one of fcfs, vtc, vtc-predict, not 'sfq'"),
    ((), "{", "error: scenario: malformed JSON at line 1 column 2: Expecting property name enclosed in double quotes"),
    ((), {"tenants": [{"name": "A\nB", "requests": "1/1"}], "slots": 1.5}, "error: slots: must be an integer, not 1.5"),
])
def test_bad_input_is_one_error_line_naming_the_field(scenario_file, args, data, line):
    done = cli("--scenario", scenario_file(data), *args)
    assert done.returncode == 2
    assert done.stdout == "" and done.stderr == line + "\n"


def test_a_policy_of_your_own_is_offered_for_the_engine(scenario_file, tmp_path):
    """--policy is engine mode's too (tests/test_engine_custom.py runs it)."""
    assert "--policy FILE.py" in cli("--help").stdout


@pytest.mark.parametrize("mode, data, meant", [
    ("engine", {"algorithm": "sfq", "tenants": [{"name": "A", "cost": 8, "count": 6}]}, "llm"),
    ("engine", {"tasks": [{"name": "A", "arrival": 0, "burst": 3}]}, "cpu"),
    ("cpu", DEFAULT_SCENARIO, "engine"),
    ("llm", {"tenants": [{"name": "A", "requests": [{"input": 4, "output": 2}]}], "slots": 2}, "engine"),
])
def test_a_file_of_another_mode_is_told_which_mode_to_use(scenario_file, mode, data, meant):
    path = scenario_file(data)
    done = subprocess.run([sys.executable, "-m", "schedulers", mode, "--scenario", path], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and done.stdout == "" and done.stderr.count("\n") == 1
    assert done.stderr.startswith("error: ") and done.stderr.endswith(
        f"this file is a scenario of the {meant} mode: run python -m schedulers {meant} --scenario {path}\n")


def test_an_engine_files_own_mistake_gets_no_hint(scenario_file):
    done = cli("--scenario", scenario_file({"tenants": [{"name": "A", "requests": "4/0"}]}))
    assert done.returncode == 2 and "mode" not in done.stderr and done.stderr.startswith("error: tenants[0].requests")
    # Tenants that fit the LLM and the engine mode alike (a name only) are no hint for cpu: two modes would do.
    loose = subprocess.run([sys.executable, "-m", "schedulers", "cpu", "--scenario",
                            scenario_file({"tenants": [{"name": "A"}]})], cwd=ROOT, capture_output=True, text=True,
                           timeout=120)
    assert loose.returncode == 2 and "this file is a scenario" not in loose.stderr
