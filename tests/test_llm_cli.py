"""``python -m schedulers llm``: text, --json, options, and one ``error:`` line naming the field for bad input."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.test_llm_rules import REFERENCE

ROOT = __import__("pathlib").Path(__file__).resolve().parent.parent


def cli(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "schedulers", "llm", *args], cwd=ROOT, input=stdin,
                          capture_output=True, text=True, timeout=120)


def test_a_file_of_the_other_mode_is_told_which_mode_to_use(scenario_file):
    path = scenario_file({"algorithm": "srtf", "tasks": [{"name": "A", "arrival": 0, "burst": 3}]})
    done = cli("--scenario", path)
    assert done.returncode == 2 and done.stdout == "" and done.stderr.count("\n") == 1
    assert done.stderr.startswith("error: ") and done.stderr.endswith(
        f"this file is a scenario of the cpu mode: run python -m schedulers cpu --scenario {path}\n")
    assert cli("--scenario", scenario_file({"tenants": [{"name": "A", "cost": 0, "count": 1}]})).stderr == \
        "error: tenants[0].cost: must be >= 1, not 0\n"   # an LLM file's own mistake: no hint


def test_quantum_past_its_limit_says_the_limit(scenario_file):
    done = cli("--scenario", scenario_file({**REFERENCE, "algorithm": "drr"}), "--quantum", "99999999999999999999")
    assert done.returncode == 2 and done.stderr.startswith("error: quantum: must be <= 1000000000000, not ")


def test_json_matches_the_contract(scenario_file):
    done = cli("--scenario", scenario_file({**REFERENCE, "algorithm": "rr"}), "--json")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert "".join(d["tenant"] for d in result["dispatch"]) == "ABABABCABCABCABC"
    assert {"time", "tenant", "cost"} <= set(result["dispatch"][0])
    assert {s["kind"] for s in result["steps"]} == {"initial", "join", "dispatch"}
    assert all({"name", "dispatched", "charged", "normalized"} <= set(t) for t in result["tenants"])


def test_options_override_the_file(scenario_file):
    path = scenario_file({**REFERENCE, "algorithm": "rr"})
    result = json.loads(cli("--scenario", path, "--algorithm", "drr", "--quantum", "3", "--json").stdout)
    assert result["algorithm"] == "drr" and result["parameters"]["quantum"] == 3
    assert "".join(d["tenant"] for d in result["dispatch"]) == "BBBABBBCCCACAAAA"


def test_text_and_japanese(scenario_file):
    path = scenario_file(REFERENCE)   # no algorithm: SFQ, the mode's subject
    en = cli("--scenario", path)
    assert en.returncode == 0 and "Dispatch order: ABBBBABCBCCCAAAA" in en.stdout
    assert "t=6: C joins with 4 requests. Its meter is raised from 0 to V = 8" in en.stdout
    ja = cli("--scenario", path, "--lang", "ja")
    assert "送出順: ABBBBABCBCCCAAAA" in ja.stdout


def test_stdin_list_and_seed(scenario_file):
    assert "ABBBBABCBCCCAAAA" in cli("--scenario", "-", stdin=json.dumps(REFERENCE)).stdout
    listed = cli("--list").stdout
    assert [line.split()[0] for line in listed.splitlines()] == ["fifo", "rr", "shortest", "sfq", "drr", "wfq"]
    seeded = cli("--seed", "42", "--json")
    assert seeded.returncode == 0 and json.loads(seeded.stdout)["mode"] == "llm"


def tenant(**fields):
    return {"name": "A", "cost": 1, "count": 1, **fields}


@pytest.mark.parametrize("scenario, field", [
    ({"tenants": [tenant(cost=0)]}, "tenants[0].cost"),
    ({"tenants": [tenant(), {"name": "B", "cost": -2, "count": 1}]}, "tenants[1].cost"),
    ({"tenants": [tenant(count=0)]}, "tenants[0].count"),
    ({"tenants": [tenant(weight=0)]}, "tenants[0].weight"),
    ({"tenants": [tenant(weight=-1)]}, "tenants[0].weight"),
    ({"tenants": [{"name": "A", "costs": []}]}, "tenants[0].costs"),
    ({"tenants": [{"name": "A", "costs": [1, 2, 3, 0]}]}, "tenants[0].costs[3]"),
    ({"tenants": [{"name": "A", "cost": 1, "costs": [1]}]}, "tenants[0].cost"),
    ({"tenants": [tenant(), tenant()]}, "tenants[1].name"),
    ({"tenants": [tenant(count=200_001)]}, "tenants[0].count"),
    ({"tenants": [tenant(name=f"T{i}") for i in range(5_001)]}, "tenants"),
    ({"tenants": [tenant(join=True)]}, "tenants[0].join"),
    ({"tenants": [tenant(join=1, arrivals=[1])]}, "tenants[0].join"),
    ({"tenants": [tenant(count=2, arrivals=[3, 1])]}, "tenants[0].arrivals[1]"),
    ({"tenants": [tenant(cost=2.5)]}, "tenants[0].cost"),
    ({"tenants": [tenant(brust=1)]}, "tenants[0].brust"),
    ({"tenants": []}, "tenants"),
    ({}, "tenants"),
    ({"algorithm": "lottery", "tenants": [tenant()]}, "algorithm"),
    ({"tenants": [tenant(cost=64)], "algorithm": "drr", "quantum": "1/2"}, "quantum"),
    ({"tenants": [tenant(), tenant(name="B")], "compare": ["A", "Z"]}, "compare[1]"),
    ({"tenants": [tenant(name="<b>x</b>"), tenant(name=7)]}, "tenants[1].name"),
])
def test_bad_scenarios_exit_2_naming_the_field(scenario_file, scenario, field):
    done = cli("--scenario", scenario_file(scenario))
    assert done.returncode == 2 and done.stdout == ""
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: {field}: "), done.stderr


def test_malformed_json_and_bad_options(scenario_file):
    for args, text in [
        (["--scenario", scenario_file('{"tenants": [', "broken.json")], "error: scenario: malformed JSON"),
        (["--algorithm", "sfq"], "error: --scenario FILE.json or --seed N is required"),
        (["--scenario", scenario_file(REFERENCE), "--quantum", "0"], "error: quantum: must be > 0"),
    ]:
        done = cli(*args)
        assert done.returncode == 2 and done.stderr.startswith(text) and len(done.stderr.splitlines()) == 1
