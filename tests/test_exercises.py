"""Seeded exercises: reproducible, well-formed, and different for different seeds."""
import pytest

from schedulers.errors import ScenarioError
from schedulers.exercises import cpu_exercise, engine_exercise, letter_names, llm_exercise


def test_letter_names_are_spreadsheet_columns():
    assert letter_names(3) == ["A", "B", "C"]
    names = letter_names(28)
    assert names[25:] == ["Z", "AA", "AB"]
    assert len(set(letter_names(1000))) == 1000


def test_same_seed_same_scenario_and_seeds_differ():
    assert cpu_exercise(42) == cpu_exercise(42)
    assert llm_exercise(42) == llm_exercise(42)
    assert len({str(cpu_exercise(seed)) for seed in range(20)}) == 20


def test_cpu_exercise_shape():
    tasks = cpu_exercise(7, tasks=50)["tasks"]
    assert [t["name"] for t in tasks] == letter_names(50)
    assert [t["arrival"] for t in tasks] == sorted(t["arrival"] for t in tasks)
    for task in tasks:
        assert 0 <= task["arrival"] <= 8 and 1 <= task["burst"] <= 8
        assert task["deadline"] >= task["arrival"] + task["burst"]
        assert 1 <= task["priority"] <= 5 and task["tickets"] in (50, 100, 150, 200)


def test_llm_exercise_shape():
    tenants = llm_exercise(3, tenants=10)["tenants"]
    assert tenants[0]["join"] == 0
    assert all(1 <= t["cost"] <= 8 and 2 <= t["count"] <= 6 and t["join"] >= 0 for t in tenants)


@pytest.mark.parametrize("seed", [-1, 1.5, "x", True])
def test_bad_seed_names_the_field(seed):
    with pytest.raises(ScenarioError) as caught:
        cpu_exercise(seed)
    assert caught.value.field == "seed"


def test_llm_exercise_with_an_exact_number_of_requests():
    plain, sized = llm_exercise(5, tenants=7)["tenants"], llm_exercise(5, tenants=7, requests=100)["tenants"]
    assert sum(t["count"] for t in sized) == 100 and {t["count"] for t in sized} == {14, 15}
    # the other draws are the seed's own: the same costs and joins as without ``requests``
    assert [(t["cost"], t["join"]) for t in sized] == [(t["cost"], t["join"]) for t in plain]
    with pytest.raises(ScenarioError, match="^requests: "):
        llm_exercise(5, tenants=7, requests=3)


def test_engine_exercise_shape_and_it_runs():
    from schedulers.engine import run
    assert engine_exercise(42) == engine_exercise(42) and engine_exercise(1) != engine_exercise(2)
    exercise = engine_exercise(5, tenants=6)
    assert exercise["slots"] == 2 and [t["name"] for t in exercise["tenants"]] == letter_names(6)
    assert exercise["tenants"][0]["requests"][0]["arrival"] == 0
    for tenant in exercise["tenants"]:
        arrivals = [r["arrival"] for r in tenant["requests"]]
        assert arrivals == sorted(arrivals) and 2 <= len(arrivals) <= 5
        assert all(1 <= r["input"] <= 8 and 1 <= r["output"] <= 12 for r in tenant["requests"])
    assert run({**exercise, "algorithm": "vtc"})["summary"]["requests"] == sum(len(t["requests"]) for t in
                                                                              exercise["tenants"])
