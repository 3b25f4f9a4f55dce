"""Every field and column the app shows has its words (app/text.py, by the field's name in the core): each field the
editor offers and each parameter of every mode's schema, every column of a results table, the first column's item
and each mode's own words. A missing one fails here, naming it; on screen it would show as its bare name."""
from __future__ import annotations

import pytest

pytest.importorskip("panel")

from app.model import editable_fields
from app.modes import all_modes, app_mode, names, views_of
from app.text import HELP, LABELS, SHORT, TEXT
from schedulers import MODES, algorithms, schema, simulate
from schedulers.custom import TEMPLATES

LANGS = {"en", "ja"}
ROLES = {"label", "help", "question", "chart"}   # what the shared views ask a mode to say (AppMode.words), and
API = "api"   # your policy's, where the core offers one


def worded(table, name: str) -> bool:
    return name in table and set(table[name]) == LANGS


def given(field) -> object:
    """A valid value of an optional field that is not its default (a column may show only then: a weight not 1)."""
    return field.minimum if field.minimum not in (None, field.default) else (field.default or 0) + 1


def every_optional(mode: str, scenario: dict) -> dict:
    """The scenario with every optional one-value field of the schema given in every item, and every list of
    integers that replaces required fields (a tenant's costs, a task's bursts: CPU, I/O, CPU) given three items."""
    fields = [schema(mode).field(name) for name in schema(mode).optional]
    lists = [f for f in schema(mode).item_fields if f.instead_of and f.type == "integers"
             and all(schema(mode).field(name).required for name in f.instead_of)]
    items = schema(mode).items
    return {**scenario, items: [{**{k: v for k, v in item.items() if not any(k in f.instead_of for f in lists)},
                                 **{f.name: given(f) for f in fields}, **{f.name: [given(f)] * 3 for f in lists}}
                                for item in scenario[items]]}


def runs(mode: str):
    """A run of every algorithm of the mode, on its seeded exercises (which fill the optional fields they read), on
    the first with every optional field given, and on the presets and patterns the core offers (the router's fleet
    and its columns); and each of the app's presets (fields that exclude each other: CPU's periodic tasks)."""
    workloads = [*MODES[mode].presets.values(), *MODES[mode].patterns.values()]
    for algorithm in algorithms(mode):
        exercises = [MODES[mode].exercise(seed) for seed in range(3)]
        for scenario in (*exercises, every_optional(mode, exercises[0]), *(w.make(1) for w in workloads)):
            yield simulate(mode, {**scenario, "algorithm": algorithm})
    for preset in app_mode(mode).presets.values():
        yield simulate(mode, dict(preset.scenario))


def fields() -> set[tuple[str, str]]:
    return {(mode, name) for mode in names() for name in
            (*editable_fields(mode), *(parameter.name for parameter in schema(mode).parameters))}


def columns() -> set[tuple[str, str]]:
    return {(mode, column) for mode in names() for result in runs(mode) for column in views_of(mode).columns(result)}


def first_columns() -> set[str]:
    """The first column's heading: what a row is, "task" or "tenant" (the core's ``results.row``)."""
    return {MODES[mode].results.row for mode in names()}


def rule_numbers() -> set[str]:
    """CFS's and EEVDF's numbers per task (the CPU views' rule_state), headed by their names in the trace."""
    return {key for result in runs("cpu") for step in result["steps"] for key in step.get("exact") or {}}


def test_every_field_and_parameter_of_every_mode_has_a_label():
    assert sorted(f"{mode}: {name}" for mode, name in fields() if not worded(LABELS, name)) == []


def test_every_column_of_a_results_table_has_its_heading_and_its_short_one():
    shown = columns()
    assert sorted(f"{mode}: {c}" for mode, c in shown if not worded(LABELS, c)) == []
    assert sorted(f"{mode}: {c}" for mode, c in shown if not worded(SHORT, c)) == []
    assert sorted(name for name in first_columns() if not worded(LABELS, name)) == []


def test_the_rules_own_numbers_have_headings():
    keys = rule_numbers()
    assert keys and sorted(key for key in keys if not worded(LABELS, key)) == []


def test_no_words_for_nothing():
    """Each label, short heading and help is for a field, a parameter, a column or a rule's number the app shows."""
    named = {name for _, name in fields()}
    shown = {column for _, column in columns()}
    assert sorted(set(LABELS) - named - shown - first_columns() - rule_numbers()) == []
    assert sorted(set(SHORT) - shown) == [] and sorted(set(HELP) - named) == []
    assert all(set(words) == LANGS for words in HELP.values())


def test_every_list_of_rows_and_every_mode_has_its_words():
    lists = {schema(mode).items for mode in names()}
    assert sorted(key for items in lists for key in (items, f"add.{items}") if not worded(TEXT, key)) == []
    def needed(mode) -> set[str]:
        return ROLES | ({API} if mode.name in TEMPLATES else set())
    assert {mode.name: sorted(needed(mode) - {role for role in mode.words if set(mode.words[role]) == LANGS})
            for mode in all_modes()} == {name: [] for name in names()}


def test_every_option_of_every_choice_has_its_words():
    """A parameter picked from a list (a choice, true/false) shows each value by its mode's ``option.NAME.VALUE``."""
    missing = [f"{mode.name}: option.{field.name}.{value}" for mode in all_modes()
               for field in schema(mode.name).parameters if field.type in ("choice", "boolean")
               for value in field.choices or ("true", "false")
               if not worded(mode.words, f"option.{field.name}.{value}")]
    assert missing == []
