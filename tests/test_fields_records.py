"""The generic compact form of a list of records (``fields.records``, ``parse_records``, ``format_records``):
"FIRST[:VALUE...][:NAME=VALUE...];..." -- MLQ's classes and a task's sections use it, as any ``records`` field may."""
import pytest
from hypothesis import given, strategies as st

from schedulers import ScenarioError, fields
from schedulers.schema import Field

SECTION = Field("sections", "records", maximum=10, fields=(
    Field("resource", "text", required=True),
    Field("start", "integer", default=0, minimum=0, maximum=100),
    Field("length", "integer", required=True, minimum=1, maximum=100),
    Field("shared", "boolean", default=False),
))


def test_the_compact_text_is_the_list_of_objects():
    # "R:length=2;S:start=3:length=1:shared=true": the first value is the first field, then NAME=VALUE pairs;
    # start's default 0 is filled in where left out.
    assert fields.records(SECTION, " R : length=2 ; S:start=3: length=1:shared=true;", "sections") == (
        {"resource": "R", "start": 0, "length": 2, "shared": False},
        {"resource": "S", "start": 3, "length": 1, "shared": True})
    assert fields.records(SECTION, [{"resource": "R", "length": 2}], "sections") == (
        {"resource": "R", "start": 0, "length": 2, "shared": False},)


def test_values_by_position_then_by_name():
    # The values after the first are the declared fields in order (resource, start, length, shared) until the first
    # NAME=VALUE: "S:3:1:true" is start 3, length 1, shared; "S:3:shared=true:length=1" the same; "R::2" leaves start
    # out (its default 0).
    both = ({"resource": "S", "start": 3, "length": 1, "shared": True},)
    assert fields.records(SECTION, "S:3:1:true", "sections") == both
    assert fields.records(SECTION, "S:3:shared=true:length=1", "sections") == both
    assert fields.records(SECTION, "R::2", "sections") == ({"resource": "R", "start": 0, "length": 2, "shared": False},)


def test_format_writes_what_is_not_a_default():
    # The first field by position; start is optional, so from it on NAME=VALUE, a default (start 0, shared false)
    # left out.
    items = fields.records(SECTION, "R:length=2;S:start=3:length=1:shared=true", "sections")
    assert fields.format_records(SECTION, items) == "R:length=2;S:start=3:length=1:shared=true"


def test_format_writes_leading_required_fields_by_position():
    # Every field required after the first (a task's sections: resource, start, length): all by position.
    locks = Field("sections", "records", fields=(
        Field("resource", "text", required=True), Field("start", "integer", required=True, minimum=0),
        Field("length", "integer", required=True, minimum=1)))
    items = fields.records(locks, "R:1:2;S:start=1:length=1", "sections")
    assert items == ({"resource": "R", "start": 1, "length": 2}, {"resource": "S", "start": 1, "length": 1})
    assert fields.format_records(locks, items) == "R:1:2;S:1:1"


@pytest.mark.parametrize("text, where", [
    ("R:length=0", "sections[0].length"),          # below the subfield's minimum
    ("R:length=2;S:lenght=1", "sections[1].lenght"),  # a typo is an unknown field of that record
    ("R:length=2;S:start=1", "sections[1].length"),   # a required field missing
    (":length=2", "sections[0].resource"),         # the first field missing
    ("R:length", "sections[0].start"),             # by position the start, not a whole number
    ("R:length=1:3", "sections[0]"),               # a value by position after a NAME=VALUE
    ("R:0:1:false:4", "sections[0]"),              # more values than fields (R:1:2,S:1:1 also: not ";")
    ("R:2:start=1", "sections[0].start"),          # start given twice
    ("R:length=2x", "sections[0].length"),         # not a whole number
    ("R:length=1:shared=maybe", "sections[0].shared"),
    (";".join(["R:length=1"] * 11), "sections"),   # more records than the field's maximum
])
def test_bad_text_names_the_record_and_field(text, where):
    with pytest.raises(ScenarioError) as caught:
        fields.records(SECTION, text, "sections")
    assert caught.value.field == where


@given(st.lists(st.fixed_dictionaries({
    "resource": st.sampled_from(["R", "S", "disk"]), "start": st.integers(0, 100), "length": st.integers(1, 100),
    "shared": st.booleans()}), max_size=10))
def test_round_trip(items):
    read = fields.records(SECTION, items, "sections")
    assert fields.records(SECTION, fields.format_records(SECTION, read), "sections") == read
