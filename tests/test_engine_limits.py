"""Engine mode at its documented sizes (100,000 requests, 1,000,000 generated tokens, 1,000 tenants), and past them a
clear error naming the field."""
from __future__ import annotations

import time

import pytest

from schedulers.engine import ALGORITHMS, run
from schedulers.engine.scenario import MAX_OUTPUT_TOKENS, MAX_REQUESTS, MAX_SLOTS, MAX_TENANTS
from schedulers.errors import ScenarioError


def workload(tenants: int, per_tenant: int, slots: int) -> dict:
    """Outputs 1..19 (mean 10), inputs 1..7, arrivals spread over the first 50 iterations."""
    return {"slots": slots, "tenants": [{"name": f"T{i}", "weight": (1, 2, "1/2")[i % 3],
                                         "requests": f"{1 + i % 7}/{1 + (i * 7) % 19}x{per_tenant}@{i % 50}"}
                                        for i in range(tenants)]}


def test_vtc_at_the_documented_size():
    scenario = {**workload(MAX_TENANTS, MAX_REQUESTS // MAX_TENANTS, 64), "algorithm": "vtc"}
    started = time.process_time()
    result = run(scenario, trace=False)
    elapsed = time.process_time() - started
    print(f"VTC, 10^5 requests, {result['summary']['tokens']} tokens, 1,000 tenants, 64 slots, no trace: "
          f"{elapsed:.2f} s")
    assert result["summary"]["requests"] == MAX_REQUESTS and result["summary"]["tokens"] > 0.99 * MAX_OUTPUT_TOKENS
    assert elapsed < 30, "a guard against quadratic work (the run is linear in the tokens generated)"


@pytest.mark.parametrize("algorithm", [a for a in ALGORITHMS if a != "vtc"])
def test_every_algorithm_at_scale(algorithm):
    result = run({**workload(1000, 20, MAX_SLOTS), "algorithm": algorithm}, trace=False)
    assert result["summary"]["requests"] == 20_000


def test_a_big_run_with_the_trace_on_is_compact():
    result = run({**workload(100, 50, 16), "algorithm": "vtc"})
    assert result["trace"]["level"] == "compact"
    assert sum(s["kind"] == "admit" for s in result["steps"]) == 5_000
    assert all("slots" not in s and s["why"] is None for s in result["steps"])


def test_past_the_limits():
    with pytest.raises(ScenarioError, match=r"^tenants\[1\]\.requests: .*more than 100000 requests"):
        run({"tenants": [{"name": "A", "requests": f"1/1x{MAX_REQUESTS}"}, {"name": "B", "requests": "1/1"}]})
    with pytest.raises(ScenarioError, match=r"^tenants\[0\]\.requests: .*more than 1000000 tokens"):
        run({"tenants": [{"name": "A", "requests": "1/1000000+1/1"}]})
    with pytest.raises(ScenarioError, match=r"^tenants: must have at most 1000 items"):
        run({"tenants": [{"name": f"T{i}", "requests": "1/1"} for i in range(MAX_TENANTS + 1)]})
    with pytest.raises(ScenarioError, match=r"^slots: must be <= 1000"):
        run({"tenants": [{"name": "A", "requests": "1/1"}], "slots": MAX_SLOTS + 1})
    with pytest.raises(ScenarioError, match=r"^tenants\[0\]\.requests: group 1 .*output must be <= 1000000"):
        run({"tenants": [{"name": "A", "requests": "1/1000001"}]})
    with pytest.raises(ScenarioError, match=r"^tenants\[0\]\.requests\[0\]\.arrival: must be <= 1000000000"):
        run({"tenants": [{"name": "A", "requests": [{"arrival": 10**10, "input": 1, "output": 1}]}]})
    with pytest.raises(ScenarioError, match=r"^tenants\[0\]\.requests: the compact form is longer"):
        run({"tenants": [{"name": "A", "requests": "1/1+" * 30_000}]})
