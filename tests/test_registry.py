"""One place per fact: the registry of modes, the menu read off the rule classes, the field schema the readers
enforce, and ``simulate``'s one door for a policy of your own."""
from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

from schedulers import MODES, ScenarioError, algorithms, schema, simulate
from schedulers.catalog import catalogue
from schedulers.cpu import policies as cpu_policies
from schedulers.custom import CUSTOM, TEMPLATES, PolicyCodeError
from schedulers.engine import DEFAULT_SCENARIO, policies as engine_policies
from schedulers.llm import policies as llm_policies

ROOT = Path(__file__).resolve().parent.parent
ARTICLE = {"tasks": [{"name": "A", "arrival": 0, "burst": 7}, {"name": "B", "arrival": 1, "burst": 4},
                     {"name": "C", "arrival": 2, "burst": 1}, {"name": "D", "arrival": 4, "burst": 3}]}
REFERENCE = {"tenants": [{"name": "A", "cost": 8, "count": 6}, {"name": "B", "cost": 2, "count": 6},
                         {"name": "C", "cost": 2, "count": 4, "join": 6}]}
ENGINE = {key: value for key, value in DEFAULT_SCENARIO.items() if key != "algorithm"}
BASES = {"cpu": ARTICLE, "llm": REFERENCE, "engine": ENGINE}
RULE_FILES = {"cpu": cpu_policies, "llm": llm_policies, "engine": engine_policies}


def test_the_registry_is_what_simulate_and_the_command_line_reach():
    assert list(MODES) == ["cpu", "llm", "engine"]
    for name, mode in MODES.items():
        assert mode.name == name and mode.algorithms is not None and mode.schema.mode == name
        assert algorithms(name) == dict(mode.algorithms)
    with pytest.raises(ScenarioError) as bad:
        simulate("gpu", {})
    assert bad.value.field == "mode" and "cpu, llm, engine" in bad.value.problem
    with pytest.raises(ScenarioError):
        algorithms(["cpu"])   # not a name at all: still the mode's error, not a TypeError
    # The command line has no list of its own: neither the modes nor importlib.
    source = (ROOT / "schedulers" / "cli.py").read_text(encoding="utf-8")
    assert "importlib" not in source and "from .modes import MODES" in source
    help_text = subprocess.run([sys.executable, "-m", "schedulers", "--help"], cwd=ROOT, capture_output=True,
                               text=True, timeout=60).stdout
    assert all(f"{name}" in help_text and mode.description in help_text for name, mode in MODES.items())


@pytest.mark.parametrize("mode", list(MODES))
def test_each_menu_entry_is_read_off_its_rule_class(mode):
    rules = RULE_FILES[mode].RULES
    assert list(algorithms(mode)) == [rule.name for rule in rules]
    for rule in rules:
        entry = algorithms(mode)[rule.name]
        assert (entry.group, entry.label, entry.summary, entry.parameters, entry.item_fields) == \
            (rule.group, rule.label, rule.summary, rule.parameter_names, rule.item_fields)
    # The package's __init__ holds no menu of its own any more.
    init = ast.parse((ROOT / "schedulers" / mode / "__init__.py").read_text(encoding="utf-8"))
    texts = {node.value for node in ast.walk(init) if isinstance(node, ast.Constant) and isinstance(node.value, str)}
    assert not any(entry.label["en"] in texts or entry.summary["en"] in texts for entry in algorithms(mode).values())


def test_a_new_rule_is_one_class():
    class LongestFirst(cpu_policies.Policy):
        """Longest job first, non-preemptive. Ties: earlier arrival, then input order."""
        name = "ljf"
        label = {"en": "LJF", "ja": "LJF"}
        summary = {"en": "longest burst first", "ja": "実行時間が最長のものから"}
        item_fields = ("priority",)

        def key(self, task, now):
            return -task.burst, task.arrival, task.index

    menu = catalogue("cpu", (*cpu_policies.RULES, LongestFirst))
    assert menu["ljf"].label == {"en": "LJF", "ja": "LJF"} and menu["ljf"].group == "more"
    assert menu["ljf"].item_fields == ("priority",) and menu["ljf"].parameters == ()
    assert isinstance(LongestFirst.from_parameters(None), LongestFirst)


def test_llm_weights_and_drr_are_the_classes_own():
    menu = algorithms("llm")
    assert {name for name, a in menu.items() if "weight" in a.item_fields} == {"sfq", "drr", "wfq"}
    assert menu["drr"].parameters == ("quantum",)
    source = (ROOT / "schedulers" / "llm" / "__init__.py").read_text(encoding="utf-8")
    assert '"drr"' not in source and '("sfq", "drr", "wfq")' not in source
    drr = simulate("llm", {**REFERENCE, "algorithm": "drr", "quantum": "3/2"})
    assert drr["parameters"] == {"quantum": 1.5, "exact": {"quantum": "3/2"}}
    assert simulate("llm", {**REFERENCE, "algorithm": "sfq", "quantum": 5})["parameters"] == {}
    with pytest.raises(ScenarioError) as small:
        simulate("llm", {**REFERENCE, "algorithm": "drr", "quantum": "1/2"})
    assert small.value.field == "quantum" and "1/8" in small.value.problem


def test_the_schema_lists_every_field_with_its_readers_and_defaults():
    cpu = schema("cpu")
    assert cpu.items == "tasks" and cpu.required == ("name", "arrival", "burst")
    assert cpu.optional == ("deadline", "priority", "tickets", "nice", "class")
    assert cpu.field("deadline").read_by == ("edf",)
    assert cpu.field("priority").read_by == ("priority", "priority-preemptive")
    assert cpu.field("tickets").read_by == ("stride", "lottery") and cpu.field("tickets").default == 100
    assert cpu.field("arrival").read_by == () and cpu.field("burst").minimum == 1
    assert cpu.field("quantum").read_by == ("rr", "stride", "lottery")
    nice = cpu.field("nice")
    assert nice.read_by == ("cfs", "eevdf") and (nice.minimum, nice.maximum, nice.default) == (-20, 19, 0)
    assert cpu.field("latency").read_by == ("cfs",) and cpu.field("slice").read_by == ("eevdf",)
    # read by the loop (and the periodic tasks' expansion), under every algorithm (read_by empty)
    loop = {"switch_cost", "conventions", "step_details", "cpus", "queues", "steal", "horizon", "on_miss"}
    assert {p.name for p in cpu.parameters} - loop == {p for a in algorithms("cpu").values() for p in a.parameters}
    assert all(cpu.field(name).read_by == () for name in loop)
    llm = schema("llm")
    assert llm.items == "tenants" and llm.required == ("name", "cost", "count")
    assert llm.optional == ("join", "weight")
    assert llm.field("costs").instead_of == ("cost", "count") and llm.field("arrivals").instead_of == ("join",)
    assert (llm.field("join").default, llm.field("weight").default) == (0, 1)
    assert llm.field("weight").read_by == ("sfq", "drr", "wfq") and llm.field("quantum").read_by == ("drr",)
    engine = schema("engine")
    assert engine.items == "tenants" and engine.required == ("name", "requests") and engine.optional == ("weight",)
    requests = engine.field("requests")
    assert requests.type == "records" and [f.name for f in requests.fields if f.required] == ["input", "output"]
    assert next(f for f in requests.fields if f.name == "predicted").read_by == ("vtc-predict",)
    assert engine.field("weight").read_by == ("vtc", "vtc-predict") and engine.field("slots").default == 4
    assert engine.field("prediction").read_by == ("vtc-predict",) and engine.field("memory").default is None
    assert (engine.field("w_in").default, engine.field("w_out").default) == (1, 2)
    json.dumps([cpu.as_json(), llm.as_json(), engine.as_json()])   # plain data, for whoever reads it outside Python


@pytest.mark.parametrize("mode", list(MODES))
def test_the_readers_enforce_the_schema(mode):
    fields = schema(mode)
    base = BASES[mode]
    item = dict(base[fields.items][0])
    with pytest.raises(ScenarioError) as unknown:
        simulate(mode, {**base, "nonsense": 1})
    assert all(key in unknown.value.problem for key in fields.keys)
    records = next((f for f in fields.item_fields if f.type == "records"), None)   # engine's requests
    for field in (*fields.item_fields, *fields.parameters, *(records.fields if records else ())):
        for value in (field.maximum and field.maximum + 1, field.minimum is not None and field.minimum - 1):
            if field.type != "integer" or value in (None, False):
                continue
            if field in fields.item_fields:
                where = {fields.items: [{**item, field.name: value}]}
            elif field in fields.parameters:
                where = {field.name: value}
            else:   # the least record its required fields make, with this value
                least = {f.name: "R" if f.type == "text" else 1 for f in records.fields if f.required}
                where = {fields.items: [{**item, records.name: [{**least, field.name: value}]}]}
            with pytest.raises(ScenarioError) as out_of_range:
                simulate(mode, {**base, **where})
            assert out_of_range.value.field.endswith(field.name), (field, value, out_of_range.value)
    for required in fields.required:
        with pytest.raises(ScenarioError) as missing:
            simulate(mode, {**base, fields.items: [{k: v for k, v in item.items() if k != required}]})
        assert missing.value.field.endswith(required)


@pytest.mark.parametrize("mode", ["cpu", "llm"])
def test_simulate_runs_a_policy_of_your_own(mode):
    base = ARTICLE if mode == "cpu" else REFERENCE
    mine = simulate(mode, {**base, "algorithm": "anything: replaced"}, policy_source=TEMPLATES[mode])
    assert mine["algorithm"] == CUSTOM and mine["custom"]["lines"]
    builtin = simulate(mode, {**base, "algorithm": "fcfs" if mode == "cpu" else "rr"})
    assert mine["timeline" if mode == "cpu" else "dispatch"] == builtin["timeline" if mode == "cpu" else "dispatch"]
    with pytest.raises(PolicyCodeError) as broken:
        simulate(mode, base, policy_source="def choose(*args):\n    return 1 / 0\n")
    assert broken.value.field == "policy"
