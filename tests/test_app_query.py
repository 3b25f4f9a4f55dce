"""The URL query grammar (app/query.py): round trips, hostile names, and parts that cannot be read."""
from __future__ import annotations

import pytest

pytest.importorskip("param")
from app import query

NAMES = ["A", "<img src=x onerror=alert(1)>", "a,b:c=d+e&f#g%h x", "日本語", " padded "]


@pytest.mark.parametrize("name", NAMES)
def test_task_names_survive_the_query(name):
    setup = {"mode": "cpu", "algorithm": "rr", "parameters": {"quantum": "3"},
             "tasks": [{"name": name, "arrival": "0", "burst": "7", "deadline": "9"},
                       {"name": "B", "arrival": "1", "burst": "4"}], "step": 5, "lang": "ja"}
    text = query.encode(setup)
    assert all(c not in text for c in "<> #\"'")  # every name is percent-encoded
    decoded, problems = query.decode("?" + text, ["quantum"])
    assert problems == []
    assert decoded["tasks"][0] == {"name": name, "arrival": "0", "burst": "7", "deadline": "9"}
    assert decoded["tasks"][1] == {"name": "B", "arrival": "1", "burst": "4"}
    assert (decoded["algorithm"], decoded["parameters"], decoded["step"], decoded["lang"]) == \
        ("rr", {"quantum": "3"}, "5", "ja")


@pytest.mark.parametrize("name", NAMES)
def test_tenants_survive_the_query(name):
    setup = {"mode": "llm", "algorithm": "sfq", "parameters": {},
             "tenants": [{"name": name, "cost": "8", "count": "6", "costs": "", "join": "", "weight": "3/2"},
                         {"name": "C", "cost": "", "count": "", "costs": "2, 8 2", "join": "6", "weight": ""}]}
    decoded, problems = query.decode(query.encode(setup), [])
    assert problems == []
    assert decoded["tenants"][0] == {"name": name, "cost": "8", "count": "6", "costs": "", "weight": "3/2"}
    assert decoded["tenants"][1] == {"name": "C", "cost": "", "count": "", "costs": "2 8 2", "join": "6"}


def test_the_documented_examples_read_as_written():
    decoded, problems = query.decode("mode=llm&algorithm=sfq&tenants=A:8x6,B:2x6,C:2x4:join=6&step=1", [])
    assert problems == []
    assert [t["name"] for t in decoded["tenants"]] == ["A", "B", "C"]
    assert decoded["tenants"][2] == {"name": "C", "cost": "2", "count": "4", "costs": "", "join": "6"}


@pytest.mark.parametrize("search, key", [
    ("tasks=A:0", "tasks"),                       # too few parts
    ("tasks=A:0:7:colour=red", "tasks"),          # a field no algorithm reads
    ("tenants=A", "tenants"),
    ("tenants=A:8x6:speed=2", "tenants"),
    ("bogus=1", "bogus"),
])
def test_unreadable_parts_are_reported_and_left_out(search, key):
    decoded, problems = query.decode(search, ["quantum"])
    assert [k for k, _ in problems] == [key]
    assert key not in decoded


def test_an_overlong_query_is_refused_whole():
    decoded, problems = query.decode("tasks=" + "A:0:1," * 5000, [])
    assert decoded == {} and problems[0][0] == "query"


@pytest.mark.parametrize("name", NAMES)
def test_engine_tenants_survive_the_query_in_the_compact_form(name):
    """Engine mode: a tenant's requests travel as compact groups joined by +, readable in the address bar; commas
    or spaces typed between groups come back as +, the same requests for the core."""
    setup = {"mode": "engine", "algorithm": "vtc-predict", "parameters": {"slots": "2", "w_out": "3/2"},
             "tenants": [{"name": name, "weight": "2", "requests": "4/8x16, 2/30~10x2@5"},
                         {"name": "B", "weight": "", "requests": "4/2x12"}], "step": 3}
    text = query.encode(setup)
    assert "tenants=" in text and ":4/8x16+2/30~10x2@5" in text and ":4/2x12" in text
    decoded, problems = query.decode(text, ["slots", "w_out"])
    assert problems == []
    assert decoded["tenants"] == [{"name": name, "requests": "4/8x16+2/30~10x2@5", "weight": "2"},
                                  {"name": "B", "requests": "4/2x12"}]
    assert (decoded["mode"], decoded["parameters"]) == ("engine", {"slots": "2", "w_out": "3/2"})


@pytest.mark.parametrize("search", ["mode=engine&tenants=A", "mode=engine&tenants=A:4/8:join=3",
                                    "tenants=A:4/8x2:join=1&mode=engine"])
def test_unreadable_engine_tenants_are_reported_and_left_out(search):
    decoded, problems = query.decode(search, [])
    assert [k for k, _ in problems] == ["tenants"] and "tenants" not in decoded
