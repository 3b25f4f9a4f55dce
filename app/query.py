"""The URL query: the lab's whole setup in one short, shareable link.

    ?mode=cpu&algorithm=rr&quantum=2&tasks=A:0:7,B:1:4,C:2:1,D:4:3&step=5&lang=en
    ?mode=llm&algorithm=sfq&tenants=A:8x6,B:2x6,C:2x4:join=6&step=1
    ?mode=cpu&algorithm=edf&tasks=A:0:3:deadline=7,B:1:2:deadline=4
    ?mode=engine&algorithm=vtc&slots=4&tenants=A:4/8x16,B:4/2x12+4/2x3@10:weight=2

- The mode's list (its schema's ``items``: ``tasks``, ``tenants``) is comma-separated items, each its leading parts
  joined by ``:`` (``name:arrival:burst`` for a task), then ``:field=value`` parts for the optional fields it fills.
  Each mode's grammar of the leading parts is its own (``AppMode.link``, in ``app/modes/<name>/``), written with the
  helpers here; the optional fields are the core's (``schedulers.schema``), so a new optional field of the core
  travels in links without a change here.
- Parameters (``quantum``, ...) are keys of their own; ``step`` is the number on screen (1 = the initial state).

Every name and value is percent-encoded on its own (``urllib.parse.quote`` with no safe characters), so
``, : = + x & #`` in a name cannot break the grammar; the query is decoded exactly once, by this module.
Decoding is syntax only: what comes out is text for the widgets, and the core judges it when it runs. A part
that cannot be read is reported as ``(key, problem)`` and left out; nothing from a URL is ever executed.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from urllib.parse import quote, unquote

from schedulers import schema

from .modes import all_modes, app_mode

SETUP_KEYS = ("mode", "algorithm", "step", "lang")   # and the mode's list
MAX_QUERY_LENGTH = 16_384

Row = dict[str, str]
Problem = tuple[str, str]


def part(text: str) -> str:
    """One name or value of the link, percent-encoded on its own."""
    return quote(str(text), safe="")


def encode_item(row: Mapping[str, str], parts: list[str], optional: Iterable[str]) -> str:
    """One row as ``part:part:key=value...``: its leading parts, then the optional fields it fills."""
    return ":".join(parts + [f"{f}={part(row[f])}" for f in optional if row.get(f, "").strip()])


def encode(setup: Mapping[str, object]) -> str:
    """The query string (without ``?``) for a setup: mode, algorithm, parameters, rows (in the mode's grammar), step,
    lang."""
    pairs = [("mode", part(setup["mode"])), ("algorithm", part(setup["algorithm"]))]
    pairs += [(part(k), part(v)) for k, v in sorted(setup.get("parameters", {}).items()) if str(v).strip()]
    items = schema(str(setup["mode"])).items
    pairs.append((items, app_mode(str(setup["mode"])).link.encode(setup.get(items, []))))
    pairs += [(k, part(setup[k])) for k in ("step", "lang") if setup.get(k) not in (None, "")]
    return "&".join(f"{k}={v}" for k, v in pairs)


def split_costs(text: str) -> list[str]:
    """A per-request cost list as typed or linked: numbers separated by ``+``, commas or spaces."""
    return [c for c in text.replace("+", " ").replace(",", " ").split() if c]


def refining_lists(mode: str) -> tuple[str, ...]:
    """The lists that refine an optional field (a tenant's ``arrivals``, one time per request, for ``join``): in a
    link, an optional part ``:arrivals=0+0+5`` of the rows that have one."""
    fields = schema(mode)
    return tuple(f.name for f in fields.item_fields if f.type == "integers"
                 and not all(fields.field(name).required for name in f.instead_of))


def encode_lists(row: Mapping[str, str], names: Iterable[str]) -> list[str]:
    """The ``name=1+2+3`` parts of the lists ``row`` fills."""
    return [f"{name}={'+'.join(map(part, split_costs(row[name])))}" for name in names
            if split_costs(row.get(name, ""))]


def _pairs(search: str) -> list[tuple[str, str]]:
    """``a=1&b=2`` -> raw (still encoded) values; keys decoded. A leading ``?`` is ignored."""
    pairs = []
    for chunk in search.lstrip("?").split("&"):
        if chunk:
            key, _, value = chunk.partition("=")
            pairs.append((unquote(key), value))
    return pairs


def _optional(parts: list[str], allowed: tuple[str, ...], where: str, row: Row, lists: tuple[str, ...] = ()) -> None:
    for piece in parts:
        key, sep, value = piece.partition("=")
        key = unquote(key)
        if not sep or key not in allowed:
            raise ValueError(f"{where}: cannot read {unquote(piece)!r} (expected one of "
                             + ", ".join(f"{a}=..." for a in allowed) + ")")
        row[key] = unquote(value) if key not in lists else " ".join(unquote(v) for v in value.split("+") if v)


def decode_items(value: str, required: int, shape: str, head: Callable[[list[str]], Row],
                 optional: tuple[str, ...], lists: tuple[str, ...] = ()) -> list[Row]:
    """Comma-separated items of ``required`` colon parts (read by ``head``), then ``field=value`` parts (of
    ``optional`` fields, or of ``lists``, whose values are joined by ``+``)."""
    rows = []
    for index, item in enumerate(value.split(",")):
        parts = item.split(":")
        where = f"item {index + 1}"
        if len(parts) < required:
            raise ValueError(f"{where}: {unquote(item)!r} is not {shape}")
        row = head(parts[:required])
        _optional(parts[required:], (*optional, *lists), where, row, lists)
        rows.append(row)
    return rows


def decode(search: str, parameter_names: Iterable[str]) -> tuple[dict[str, object], list[Problem]]:
    """Read a query into a partial setup (text values) and the problems of the parts left out. A mode's list (its
    schema's ``items``) is read in the grammar of the mode the link names, else of the first mode with that list."""
    if len(search) > MAX_QUERY_LENGTH:
        return {}, [("query", f"longer than {MAX_QUERY_LENGTH} characters (the documented limit)")]
    setup: dict[str, object] = {}
    parameters: dict[str, str] = {}
    problems: list[Problem] = []
    known = set(parameter_names)
    pairs = _pairs(search)
    readers = {mode.name: (schema(mode.name).items, mode.link.decode) for mode in all_modes()}
    lists: dict[str, Callable[[str], list[Row]]] = {}
    for items, read in readers.values():
        lists.setdefault(items, read)
    for key, raw in pairs:   # the link's own mode reads its list
        if key == "mode" and unquote(raw) in readers:
            items, read = readers[unquote(raw)]
            lists[items] = read
    for key, raw in pairs:
        try:
            if key in lists:
                setup[key] = lists[key](raw)
            elif key in SETUP_KEYS:
                setup[key] = unquote(raw)
            elif key in known:
                parameters[key] = unquote(raw)
            else:
                raise ValueError("unknown key")
        except ValueError as error:
            problems.append((key, str(error)))
    if parameters:
        setup["parameters"] = parameters
    return setup, problems
