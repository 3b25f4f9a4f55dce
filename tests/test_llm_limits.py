"""The documented sizes work (100,000 requests, 1,000 tenants), stay O(n log n), and past them a clear error."""
from __future__ import annotations

import random
import time

import pytest

from schedulers.errors import ScenarioError
from schedulers.llm import ALGORITHMS, run
from schedulers.llm.scenario import MAX_REQUESTS, MAX_TENANTS


def workload(tenants: int, requests: int, seed: int = 1) -> dict:
    rng = random.Random(seed)
    per = requests // tenants
    return {"tenants": [{"name": f"T{i}", "costs": [rng.randint(1, 100) for _ in range(per)],
                         "join": rng.randint(0, 1000), "weight": rng.choice([1, 2, 3, "1/2"])}
                        for i in range(tenants)]}


def test_sfq_100k_requests_over_1000_tenants():
    scenario = {**workload(1000, 100_000), "algorithm": "sfq"}
    started = time.process_time()
    result = run(scenario, trace=False)
    elapsed = time.process_time() - started
    print(f"SFQ, 10^5 requests, 1,000 tenants, no trace: {elapsed:.2f} s")
    assert len(result["dispatch"]) == 100_000 and result["fairness"]["band"]["holds"]
    assert elapsed < 5, "a guard against quadratic work; the target (issue 7) is under 1 s"


def test_a_big_run_with_the_trace_on_is_compact():
    result = run({**workload(1000, 50_000), "algorithm": "sfq"})
    assert result["trace"]["level"] == "compact"
    assert sum(s["kind"] == "dispatch" for s in result["steps"]) == 50_000
    assert all("queues" not in s for s in result["steps"])


@pytest.mark.parametrize("algorithm", [a for a in ALGORITHMS if a != "sfq"])
def test_every_algorithm_at_scale(algorithm):
    result = run({**workload(1000, 20_000, seed=2), "algorithm": algorithm}, trace=False)
    assert sum(t["dispatched"] for t in result["tenants"]) == 20_000


def test_past_the_limits():
    with pytest.raises(ScenarioError, match=r"^tenants\[1\]\.count: .*documented limit"):
        run({"tenants": [{"name": "A", "cost": 1, "count": MAX_REQUESTS}, {"name": "B", "cost": 1, "count": 1}]})
    with pytest.raises(ScenarioError, match=r"^tenants: must have at most"):
        run({"tenants": [{"name": f"T{i}", "cost": 1, "count": 1} for i in range(MAX_TENANTS + 1)]})
    with pytest.raises(ScenarioError, match=r"^tenants\[0\]\.weight: .*documented limit"):
        run({"tenants": [{"name": "A", "cost": 1, "count": 1, "weight": "1/1000000000"}]})
    with pytest.raises(ScenarioError, match=r"^tenants\[0\]\.join: must be <= "):
        run({"tenants": [{"name": "A", "cost": 1, "count": 1, "join": 10**12}]})
