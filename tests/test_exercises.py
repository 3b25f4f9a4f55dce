"""Seeded exercises: reproducible, well-formed, and different for different seeds."""
import pytest

from schedulers.errors import ScenarioError
from schedulers.exercises import cpu_exercise, letter_names, llm_exercise


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
