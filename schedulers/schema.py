"""The fields a scenario may hold, per mode: names, types, required or optional, defaults, limits and which
algorithms read them. The readers (each mode's ``scenario.py``) check input against these very declarations;
the app's editor and links, the exports and the docs read them instead of listing fields again. Likewise the
columns of a result's rows (``Results``, a mode's ``Mode.results``), which the CSV export and the app's tables read.

    >>> from schedulers import schema
    >>> schema("cpu").optional
    ('deadline', 'priority', 'tickets', 'nice')
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field as attribute, make_dataclass, replace
from fractions import Fraction
from typing import Any

from .catalog import Algorithm, json_number

# number: exact rational (int, float, "p/q"); integers: a list (with ``fields``, an item may also be an object of
# those fields, the first being the integer itself, and the list its compact text: the router's costs, docs/llm.md
# "Servers"); records: a list of objects with the field's own
# ``fields`` (engine's requests), which may also be given in a compact text form (docs/engine.md "The compact form");
# choice: one of the field's ``choices``; boolean: JSON's true or false
TYPES = ("text", "integer", "number", "integers", "records", "choice", "boolean")


@dataclass(frozen=True)
class Field:
    """One field of a scenario, declared once: the reader checks against it, the record holding its value is made
    from it (``record``), and a parameter's command-line option (``--name``, its ``help``) comes from it."""
    name: str
    type: str                          # one of TYPES
    required: bool = False             # unless a field given ``instead_of`` it replaces it
    default: Any = None                # what the core uses when it is left out (None: nothing, or it depends on
                                       # the algorithm; a result's ``parameters`` show the value used)
    minimum: int | None = None         # of the value, or of each item of a list
    maximum: int | None = None         # (records: how many records)
    instead_of: tuple[str, ...] = ()   # giving this field replaces those (``costs`` replaces cost and count)
    read_by: tuple[str, ...] = ()      # the algorithms that read it; empty: every algorithm
    fields: tuple[Field, ...] = ()     # records: the fields of each record (integers: of an item given as an object)
    choices: tuple[str, ...] = ()      # choice: the values it may take
    per: str | None = None             # integers: one item per unit of that parameter (quanta: one per level), or
                                       # one integer for all of them
    help: str = ""                     # one line: what it is, for --help (a parameter's option, which adds the
                                       # default) and the docs
    metavar: str = "N"                 # a parameter's option's value in --help: --quantum N


@dataclass(frozen=True)
class Schema:
    mode: str
    items: str                         # the scenario's list: "tasks" or "tenants"
    item_fields: tuple[Field, ...]     # the fields of one item, in the order the docs and links list them
    parameters: tuple[Field, ...]      # scenario-level values that algorithms read (quantum, ...)
    keys: tuple[str, ...]              # every key a scenario may have at its top level

    def field(self, name: str) -> Field:
        return next(f for f in (*self.item_fields, *self.parameters) if f.name == name)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(f.name for f in self.item_fields)

    @property
    def required(self) -> tuple[str, ...]:
        """The item fields every item must give (or replace with a field ``instead_of`` them)."""
        return tuple(f.name for f in self.item_fields if f.required)

    @property
    def optional(self) -> tuple[str, ...]:
        """The optional item fields that hold one value (not lists, not replacements of other fields)."""
        return tuple(f.name for f in self.item_fields
                     if not f.required and not f.instead_of and f.type not in ("integers", "records"))

    def as_json(self) -> dict[str, Any]:
        """The schema as plain JSON data."""
        return asdict(self)


PYTHON_TYPES = {"text": str, "integer": int, "number": Fraction, "integers": tuple, "records": tuple, "choice": str,
                "boolean": bool}


def record(name: str, fields: Iterable[Field], first: Iterable[tuple[str, type]] = (), **options: Any) -> type:
    """A dataclass with one attribute per field, in order (after ``first``: attributes of its own), a required one
    without a default and the others defaulting to None (not given): what a reader fills with the values it
    checked, by name. ``options``: the dataclass's (``frozen=True``); it has slots and compares by identity unless
    told."""
    attributes = [*first, *((f.name, PYTHON_TYPES[f.type]) if f.required else
                            (f.name, PYTHON_TYPES[f.type] | None, attribute(default=None)) for f in fields)]
    return make_dataclass(name, attributes, slots=True, **{"eq": False, **options})


def with_readers(mode: str, items: str, item_fields: Iterable[Field], parameters: Iterable[Field],
                 keys: Iterable[str], algorithms: Mapping[str, Algorithm]) -> Schema:
    """A mode's schema, each optional field and parameter marked with the algorithms that read it (their own
    ``item_fields`` and ``parameter_names``; an item field there may also be a field of an item's records, as
    vtc-predict's ``predicted`` of a request)."""
    def readers(name: str, listed: str) -> tuple[str, ...]:
        return tuple(a.name for a in algorithms.values() if name in getattr(a, listed))

    def marked(f: Field) -> Field:
        if f.fields:
            f = replace(f, fields=tuple(map(marked, f.fields)))
        return replace(f, read_by=readers(f.name, "item_fields")) if readers(f.name, "item_fields") else f

    return Schema(mode, items, tuple(map(marked, item_fields)),
                  tuple(replace(p, read_by=readers(p.name, "parameters")) for p in parameters), tuple(keys))


@dataclass(frozen=True)
class Column:
    name: str                          # the row's key
    averaged: bool = False             # the average row gives its mean
    optional: bool = False             # a column only when some row has it (an optional field given, CPU's missed)
    text: bool = True                  # in the mode's text table (the rule's inputs may be left to the JSON and CSV)


def mean_row(rows: Sequence[Mapping[str, Any]], keys: Iterable[str]) -> dict[str, Any]:
    """The mean of each key over the rows, exact (from a row's ``exact`` where it has the key), written as JSON
    writes numbers (an int when whole)."""
    return {key: json_number(sum(Fraction(row.get("exact", {}).get(key, row[key])) for row in rows) / len(rows))
            for key in keys}


def summary_figures(result: Mapping[str, Any]) -> dict[str, Any]:
    """A result's ``summary``, each figure exact where the summary says it (its ``exact``); none without one."""
    figures = dict(result.get("summary") or {})
    figures.update(figures.pop("exact", {}))
    return figures


@dataclass(frozen=True)
class Results:
    """A mode's result rows, one per task or tenant, and their columns, declared once."""
    items: str                         # the result's list of rows: "tasks" or "tenants"
    row: str                           # what one row is ("task", "tenant"): the CSV's first column
    columns: tuple[Column, ...]        # in order, the row's name first
    averages: Callable[[Mapping[str, Any]], Mapping[str, Any]] | None = None
    # the average row of a result; None: ``mean_row`` of the averaged columns
    totals: Callable[[Mapping[str, Any]], Mapping[str, Any]] = summary_figures
    # the run's own figures (name -> value, exact where the result has it): the exports' rows after the average

    @property
    def averaged(self) -> tuple[str, ...]:
        return tuple(column.name for column in self.columns if column.averaged)

    def shown(self, result: Mapping[str, Any]) -> tuple[Column, ...]:
        """The columns of this result: every column but an optional one that no row has."""
        rows = result[self.items]
        return tuple(column for column in self.columns
                     if not column.optional or any(column.name in row for row in rows))

    def average_row(self, result: Mapping[str, Any]) -> Mapping[str, Any]:
        """The averaged columns' means over the rows (of the columns this result has)."""
        if self.averages is not None:
            return self.averages(result)
        return mean_row(result[self.items], [column.name for column in self.shown(result) if column.averaged])
