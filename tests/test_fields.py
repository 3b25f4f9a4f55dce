"""The shared validation readers: every bad value names its field."""
import time
from fractions import Fraction

import pytest

from schedulers import fields
from schedulers.errors import ScenarioError


@pytest.mark.parametrize("value", [True, 1.5, "3", None, [], float("nan")])
def test_integer_rejects_non_integers(value):
    with pytest.raises(ScenarioError) as caught:
        fields.integer(value, "tasks[0].burst")
    assert caught.value.field == "tasks[0].burst"
    assert "integer" in caught.value.problem


def test_integer_bounds_and_whole_floats():
    assert fields.integer(7.0, "x") == 7
    with pytest.raises(ScenarioError, match=r"^quantum: must be >= 1, not 0$"):
        fields.integer(0, "quantum", minimum=1)
    with pytest.raises(ScenarioError, match="documented limit"):
        fields.integer(11, "x", maximum=10)


def test_positive_rational_is_exact():
    assert fields.positive_rational(0.1, "w") == Fraction(1, 10)
    assert fields.positive_rational("3/2", "w") == Fraction(3, 2)
    for bad in (0, -1, "0/1", "x", True, float("inf"), "1/0"):
        with pytest.raises(ScenarioError) as caught:
            fields.positive_rational(bad, "tenants[1].weight")
        assert caught.value.field == "tenants[1].weight"


def test_names_and_keys():
    with pytest.raises(ScenarioError, match="must not be empty"):
        fields.name("  ", "tasks[0].name")
    with pytest.raises(ScenarioError, match=r"tasks\[2\]\.name: duplicate name 'A'"):
        fields.unique_names(["A", "B", "A"], "tasks")
    with pytest.raises(ScenarioError, match=r"^tasks\[0\]\.brust: unknown field"):
        fields.known_keys({"brust": 1}, "tasks[0]", ["name", "burst"])
    assert fields.name("<img src=x>", "n") == "<img src=x>"


def test_values_found_by_fuzzing_get_a_named_error_quickly():
    """Each of these used to raise something other than ScenarioError, or take minutes (tests/test_fuzz_inputs.py)."""
    cases = [(fields.integer, (10**5000, "burst", 1, 10)), (fields.positive_rational, (10**5000, "weight", 1000)),
             (fields.positive_rational, ("1e99999999", "weight")), (fields.name, ("\ud800", "name"))]
    for check, args in cases:
        started = time.process_time()   # CPU time: a guard that holds on a loaded machine
        with pytest.raises(ScenarioError) as caught:
            check(*args)
        assert caught.value.field == args[1] and time.process_time() - started < 1
    assert "about 5001 digits" in fields.describe(10**5000)
    assert fields.positive_rational("1e3", "weight") == 1000
    with pytest.raises(ScenarioError) as caught:
        fields.known_keys({"": 1}, "", ["a"])
    assert caught.value.field == "''"
