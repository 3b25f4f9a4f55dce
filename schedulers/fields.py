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
    if field.type == "records":
        return records(field, value, where)
    if field.type != "integers":
        raise ValueError(f"{where}: no reader for a field of type {field.type}")
    if count is not None and isinstance(value, (int, float)) and not isinstance(value, bool):
        return (integer(value, where, field.minimum, field.maximum),) * count
    items = sequence(value, where, minimum=count or 0, maximum=count)
    return tuple(integer(item, f"{where}[{i}]", field.minimum, field.maximum) for i, item in enumerate(items))


# The compact text of a list of records (a ``records`` field: MLQ's classes, a task's sections), for an editor's
# cell, a link and the command line (docs/core.md "The compact text of records"): records separated by ";", each its
# values joined by ":", the first one its first field's; a later value is either the next field's in the declared
# order (positional, "R:1:2") or NAME=VALUE ("rr:quantum=2"), the positional ones first. An empty value is left out;
# spaces around the parts are ignored; an empty record (a trailing ";") is none. ``records`` reads it,
# ``format_records`` writes it.
RECORDS_FORM = "FIRST[:VALUE...][:NAME=VALUE...];...  e.g. rr:quantum=2;fcfs or R:1:2;S:1:1"
MAX_RECORDS_TEXT = 100_000
WHOLE = re.compile(r"[+-]?\d{1,40}")


def parse_records(field: Field, text: str, where: str) -> list[dict[str, Any]]:
    """The records of ``field`` written in the compact text, as raw objects (each value as its subfield's type
    reads text: a whole number an int, true/false a boolean; the rest left as text for the reader to check)."""
    if len(text) > MAX_RECORDS_TEXT:
        raise ScenarioError(where, f"is longer than {MAX_RECORDS_TEXT} characters (the documented limit)")
    names, types = [f.name for f in field.fields], {f.name: f.type for f in field.fields}
    found: list[dict[str, Any]] = []
    for part in (part.strip() for part in text.split(";")):
        if not part:
            continue
        at, raw, named = f"{where}[{len(found)}]", {}, False
        for position, piece in enumerate(piece.strip() for piece in part.split(":")):
            key, equals, value = (bit.strip() for bit in piece.partition("="))
            if equals and position and key:
                named = True
            elif named:
                raise ScenarioError(at, f"{piece[:40]!r}: a value without NAME= comes after a NAME=VALUE one "
                                        f"({RECORDS_FORM})")
            elif position >= len(names):
                raise ScenarioError(at, f"{part[:40]!r} has more than {len(names)} values ({':'.join(names)}); "
                                        f"records are separated by ;")
            else:
                key, value = names[position], piece
            if key in raw:
                raise ScenarioError(f"{at}.{key}", "is given twice")
            if value:
                raw[key] = text_value(types.get(key, "text"), value)
        found.append(raw)
    return found


def text_value(kind: str, text: str) -> Any:
    """A compact form's value as a field of ``kind`` would hold it in JSON, where the text says so."""
    if kind == "integer" and WHOLE.fullmatch(text):
        return int(text)
    if kind == "boolean" and text.lower() in ("true", "false"):
        return text.lower() == "true"
    return text


def records(field: Field, value: Any, where: str) -> tuple[dict[str, Any], ...]:
    """A ``records`` field's value, a list of objects or its compact text (``parse_records``): each object's keys
    checked against the field's ``fields``, each value read as its field declares (named ``where[k].name``), a
    missing required one an error, a missing one with a default given it. ``minimum``/``maximum``: how many."""
    listed = parse_records(field, value, where) if isinstance(value, str) else value
    listed = sequence(listed, where, minimum=field.minimum or 0, maximum=field.maximum)
    allowed = [f.name for f in field.fields]
    out = []
    for k, item in enumerate(listed):
        at = f"{where}[{k}]"
        known_keys(mapping(item, at), at, allowed)
        read: dict[str, Any] = {}
        for sub in field.fields:
            if item.get(sub.name) is not None:
                read[sub.name] = of_field(sub, item[sub.name], f"{at}.{sub.name}")
            elif sub.required:
                raise ScenarioError(f"{at}.{sub.name}", "is missing")
            elif sub.default is not None:
                read[sub.name] = sub.default
        out.append(read)
    return tuple(out)


def format_records(field: Field, items: Sequence[Mapping[str, Any]]) -> str:
    """``items`` in the compact text (``parse_records``): the first field and the required ones after it by
    position, then each other value that is not its subfield's default as NAME=VALUE: "R:1:2;S:1:1",
    "rr:quantum=2;fcfs"."""
    first, rest = field.fields[0], field.fields[1:]
    leading = next((k for k, f in enumerate(rest) if not f.required), len(rest))

    def written(value: Any) -> str:
        return ("true" if value else "false") if isinstance(value, bool) else str(value)

    parts = []
    for item in items:
        values = [written(item.get(f.name, "")) for f in (first, *rest[:leading])]
        values += [f"{f.name}={written(item[f.name])}" for f in rest[leading:]
                   if item.get(f.name) is not None and item[f.name] != f.default]
        parts.append(":".join(values))
    return ";".join(parts)


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
