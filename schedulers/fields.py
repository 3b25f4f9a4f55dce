"""Readers for scenario values as they come from JSON, a widget or a URL query.

Each reader returns the value in the core's own type or raises ``ScenarioError`` naming the field.
JSON's ``true``/``false`` are never numbers here, and floats are never silently truncated.
"""
from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from .errors import ScenarioError

if TYPE_CHECKING:
    from .schema import Field

MAX_NAME_LENGTH = 64
# "1e99999999" is 10 characters, but Fraction() would build a 10^8-digit integer (minutes of work): exponents
# in number strings have at most three digits.
HUGE_EXPONENT = re.compile(r"[eE][+-]?0*\d{4}")
LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def integer(value: Any, field: str, minimum: int | None = None, maximum: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        if isinstance(value, float) and value.is_integer() and math.isfinite(value):
            value = int(value)
        else:
            raise ScenarioError(field, f"must be an integer, not {describe(value)}")
    if minimum is not None and value < minimum:
        raise ScenarioError(field, f"must be >= {minimum}, not {describe(value)}")
    if maximum is not None and value > maximum:
        raise ScenarioError(field, f"must be <= {maximum}, not {describe(value)} (the documented limit)")
    return value


def integer_text(text: str, name: str, field: Field) -> int:
    """A whole number typed on the command line (``--quantum 3``, shown as ``name``); the scenario's reader then
    checks it against ``field``'s range. A typo is told the range; so is a number too long to be worth reading
    (CPython refuses past 4,300 digits)."""
    text = text.strip()
    digits = text[1:] if text.startswith(("-", "+")) else text
    if not (digits.isascii() and digits.isdigit()):
        raise ScenarioError(name, f"must be an integer from {field.minimum} to {field.maximum}, not {text[:40]!r}")
    if len(digits) > 40 and text.startswith("-"):
        raise ScenarioError(name, f"must be >= {field.minimum}, not a negative integer of {len(digits)} digits")
    if len(digits) > 40:
        raise ScenarioError(name, f"must be <= {field.maximum}, not an integer of {len(digits)} digits "
                                  "(the documented limit)")
    return int(text)


def positive_rational(value: Any, field: str, maximum: int | None = None) -> Fraction:
    """A positive number kept exact: ints, finite floats (by their shortest repr) or "p/q" strings."""
    if isinstance(value, bool):
        raise ScenarioError(field, f"must be a positive number, not {describe(value)}")
    try:
        if isinstance(value, int):
            rational = Fraction(value)
        elif isinstance(value, float) and math.isfinite(value):
            rational = Fraction(repr(value))
        elif isinstance(value, str) and len(value) <= 32 and not HUGE_EXPONENT.search(value):
            rational = Fraction(value.strip())
        else:
            raise ValueError
    except (ValueError, ZeroDivisionError):
        raise ScenarioError(field, f"must be a positive number, not {describe(value)}") from None
    if rational <= 0:
        raise ScenarioError(field, f"must be > 0, not {describe(value)}")
    if maximum is not None and rational > maximum:
        raise ScenarioError(field, f"must be <= {maximum}, not {describe(value)} (the documented limit)")
    return rational


def name(value: Any, field: str) -> str:
    if not isinstance(value, str):
        raise ScenarioError(field, f"must be text, not {describe(value)}")
    if not value.strip():
        raise ScenarioError(field, "must not be empty")
    if len(value) > MAX_NAME_LENGTH:
        raise ScenarioError(field, f"must be at most {MAX_NAME_LENGTH} characters, not {len(value)}")
    if not value.isascii() and LONE_SURROGATE.search(value):
        # JSON's "\ud800" escape decodes to half a character, which no output (UTF-8, the browser) can show.
        raise ScenarioError(field, "must be valid Unicode text (it holds half of a surrogate pair)")
    return value


def mapping(value: Any, field: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise ScenarioError(field, f"must be an object, not {describe(value)}")
    return value


def sequence(value: Any, field: str, minimum: int = 0, maximum: int | None = None) -> Sequence[Any]:
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
        raise ScenarioError(field, f"must be a list, not {describe(value)}")
    if len(value) < minimum:
        raise ScenarioError(field, f"must have at least {minimum} item{'s' if minimum != 1 else ''}")
    if maximum is not None and len(value) > maximum:
        raise ScenarioError(field, f"must have at most {maximum} items, not {len(value)} (the documented limit)")
    return value


def choice(value: Any, field: str, options: Sequence[str]) -> str:
    if not isinstance(value, str) or value not in options:
        raise ScenarioError(field, f"must be one of {', '.join(options)}, not {describe(value)}")
    return value


def boolean(value: Any, field: str) -> bool:
    """JSON's true or false (a widget's or the command line's text "true"/"false" is read before it comes here)."""
    if not isinstance(value, bool):
        raise ScenarioError(field, f"must be true or false, not {describe(value)}")
    return value


def unique_names(names: Sequence[str], field: str) -> None:
    seen: set[str] = set()
    for index, item in enumerate(names):
        if item in seen:
            raise ScenarioError(f"{field}[{index}].name", f"duplicate name {item!r}")
        seen.add(item)


def known_names(value: Any, field: str, names: Sequence[str], minimum: int, maximum: int, what: str) -> list[int]:
    """A list of distinct names, each one of ``names`` (the ``what``s' names): their positions, sorted."""
    listed = sequence(value, field, minimum=minimum, maximum=maximum)
    positions = {name: index for index, name in enumerate(names)}
    chosen: list[int] = []
    for k, item in enumerate(listed):
        if not isinstance(item, str) or item not in positions:
            raise ScenarioError(f"{field}[{k}]", f"must be a {what}'s name, not {describe(item)}")
        if positions[item] in chosen:
            raise ScenarioError(f"{field}[{k}]", f"duplicate name {item!r}")
        chosen.append(positions[item])
    return sorted(chosen)


def known_keys(obj: Mapping[str, Any], field: str, allowed: Sequence[str]) -> None:
    """Reject typos such as ``brust``: an unknown key is an error, not silently ignored."""
    for key in obj:
        if key not in allowed:
            # An empty, blank, unprintable or very long key is quoted (and cut), so the field stays readable.
            label = key if isinstance(key, str) and key.strip() and key.isprintable() and len(key) <= 40 \
                else describe(key)
            where = f"{field}.{label}" if field else label
            raise ScenarioError(where, f"unknown field (expected one of {', '.join(allowed)})")


def of_field(field: Field, value: Any, where: str, count: int | None = None) -> Any:
    """``value`` read as ``field`` declares it (its type and limits), for the field called ``where``: text, an
    integer, a positive exact number, one of its choices, true or false, or a list of integers (``count`` of them,
    when the list has one per unit of another parameter, or one integer for all of them)."""
    if field.type == "text":
        return name(value, where)
    if field.type == "integer":
        return integer(value, where, field.minimum, field.maximum)
    if field.type == "number":
        return positive_rational(value, where, field.maximum)
    if field.type == "choice":
        return choice(value, where, field.choices)
    if field.type == "boolean":
        return boolean(value, where)
    if field.type == "records":   # a list of at most ``maximum`` objects of the field's own fields, or its text
        if isinstance(value, str):
            value = records_text(field, value, where)
        return tuple(record_of(field.fields, item, f"{where}[{i}]")
                     for i, item in enumerate(sequence(value, where, maximum=field.maximum)))
    if field.type != "integers":
        raise ValueError(f"{where}: no reader for a field of type {field.type}")
    if count is not None and isinstance(value, (int, float)) and not isinstance(value, bool):
        return (integer(value, where, field.minimum, field.maximum),) * count
    items = sequence(value, where, minimum=count or 0, maximum=count)
    return tuple(integer(item, f"{where}[{i}]", field.minimum, field.maximum) for i, item in enumerate(items))


# The compact text of a ``records`` field (an editor's cell, a link's part): each record its values in the order of
# the field's own fields, joined by ":", the records separated by commas or spaces: CPU's sections "R:1:2, S:1:1".
RECORD_SEPARATORS = re.compile(r"[\s,]+")


def records_text(field: Field, text: str, where: str) -> list[dict[str, Any]]:
    """The records of ``text`` in the compact form, each value as typed (a whole number as an int), for
    ``record_of`` to check."""
    names = [f.name for f in field.fields]
    if len(text) > 100 * (field.maximum or 1):
        raise ScenarioError(where, f"is longer than {100 * (field.maximum or 1)} characters (the documented limit)")
    found = []
    for k, part in enumerate(part for part in RECORD_SEPARATORS.split(text.strip()) if part):
        values = part.split(":")
        if len(values) > len(names):
            raise ScenarioError(f"{where}[{k}]", f"{part[:40]!r} has more than {len(names)} parts "
                                                 f"({':'.join(names)})")
        found.append({name: int(value) if value.isascii() and value.isdigit() and len(value) <= 40 else value
                      for name, value in zip(names, values)})
    return found


def format_records(field: Field, records: Sequence[Mapping[str, Any]]) -> str:
    """``records`` in the compact form: "R:1:2,S:1:1"."""
    return ",".join(":".join(str(record[f.name]) for f in field.fields if f.name in record) for record in records)


def record_of(declared: Sequence[Field], value: Any, where: str) -> dict[str, Any]:
    """One record of a ``records`` field: an object of the ``declared`` fields, each read as it declares."""
    found = mapping(value, where)
    known_keys(found, where, [f.name for f in declared])
    missing = next((f.name for f in declared if f.required and found.get(f.name) is None), None)
    if missing is not None:
        raise ScenarioError(f"{where}.{missing}", "is missing")
    return {f.name: of_field(f, found[f.name], f"{where}.{f.name}") for f in declared if found.get(f.name) is not None}


def describe(value: Any) -> str:
    """A short, safe description of a bad value for an error message."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int) and abs(value) >= 10**40:
        # repr() of an int past 4,300 digits raises ValueError (CPython's int_max_str_digits), and is long anyway.
        return f"{'-' if value < 0 else ''}an integer of about {int(abs(value).bit_length() * 0.30103) + 1} digits"
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."
