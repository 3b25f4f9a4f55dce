"""The URL query: the lab's whole setup in one short, shareable link.

    ?mode=cpu&algorithm=rr&quantum=2&tasks=A:0:7,B:1:4,C:2:1,D:4:3&step=5&lang=en
    ?mode=llm&algorithm=sfq&tenants=A:8x6,B:2x6,C:2x4:join=6&step=1
    ?mode=cpu&algorithm=edf&tasks=A:0:3:deadline=7,B:1:2:deadline=4
    ?mode=engine&algorithm=vtc&slots=4&tenants=A:4/8x16,B:4/2x12+4/2x3@10:weight=2

- ``tasks``: comma-separated ``name:arrival:burst`` items, then optional ``:field=value`` parts for the
  fields an algorithm reads (``deadline``, ``priority``, ``tickets``).
- ``tenants``: ``name:COSTxCOUNT`` (``A:8x6``: six requests of cost 8) or ``name:C1+C2+C3`` (one cost per
  request, in FIFO order), then optional ``:join=T`` and ``:weight=W``. In engine mode (``mode=engine``):
  ``name:REQUESTS``, the requests in the engine's compact form (``INPUT/OUTPUT[~PREDICTED][xCOUNT][@ARRIVAL]``
  groups joined by ``+``: ``4/8x16+4/2@10``), then optional ``:weight=W``.
- The required and optional fields are the core's (``schedulers.schema``): a new optional field of the core
  travels in links without a change here.
- Parameters (``quantum``, ...) are keys of their own; ``step`` is the number on screen (1 = the initial state).

Every name and value is percent-encoded on its own (``urllib.parse.quote`` with no safe characters), so
``, : = + x & #`` in a name cannot break the grammar; the query is decoded exactly once, by this module.
Decoding is syntax only: what comes out is text for the widgets, and the core judges it when it runs. A part
that cannot be read is reported as ``(key, problem)`` and left out; nothing from a URL is ever executed.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from urllib.parse import quote, unquote

from schedulers import schema

TASK_FIELDS = schema("cpu").required         # name:arrival:burst
TASK_OPTIONAL = schema("cpu").optional       # :deadline=... :priority=... :tickets=...
TENANT_OPTIONAL = schema("llm").optional     # :join=... :weight=...
ENGINE_OPTIONAL = schema("engine").optional  # :weight=...
SETUP_KEYS = ("mode", "algorithm", "tasks", "tenants", "step", "lang")
MAX_QUERY_LENGTH = 16_384

Row = dict[str, str]
Problem = tuple[str, str]


def _q(text: str) -> str:
    return quote(str(text), safe="")


def encode_item(row: Mapping[str, str], parts: list[str], optional: Iterable[str]) -> str:
    """One row as ``part:part:key=value...``: its leading parts, then the optional fields it fills."""
    return ":".join(parts + [f"{f}={_q(row[f])}" for f in optional if row.get(f, "").strip()])


def encode_tasks(rows: Iterable[Mapping[str, str]]) -> str:
    return ",".join(encode_item(row, [_q(row.get(f, "")) for f in TASK_FIELDS], TASK_OPTIONAL) for row in rows)


def encode_tenants(rows: Iterable[Mapping[str, str]]) -> str:
    items = []
    for row in rows:
        costs = split_costs(row.get("costs", ""))
        amount = "+".join(_q(c) for c in costs) if costs else f"{_q(row.get('cost', ''))}x{_q(row.get('count', ''))}"
        items.append(encode_item(row, [_q(row.get("name", "")), amount], TENANT_OPTIONAL))
    return ",".join(items)


def encode_engine_tenants(rows: Iterable[Mapping[str, str]]) -> str:
    # the compact groups as the core splits them (on +, commas or spaces), joined by +
    return ",".join(encode_item(row, [_q(row.get("name", "")), "+".join(
        quote(group, safe="/~@") for group in split_costs(row.get("requests", "")))], ENGINE_OPTIONAL) for row in rows)


ENCODERS = {"cpu": encode_tasks, "llm": encode_tenants, "engine": encode_engine_tenants}


def encode(setup: Mapping[str, object]) -> str:
    """The query string (without ``?``) for a setup: mode, algorithm, parameters, rows, step, lang."""
    pairs = [("mode", _q(setup["mode"])), ("algorithm", _q(setup["algorithm"]))]
    pairs += [(_q(k), _q(v)) for k, v in sorted(setup.get("parameters", {}).items()) if str(v).strip()]
    items = schema(str(setup["mode"])).items
    pairs.append((items, ENCODERS[str(setup["mode"])](setup.get(items, []))))
    pairs += [(k, _q(setup[k])) for k in ("step", "lang") if setup.get(k) not in (None, "")]
    return "&".join(f"{k}={v}" for k, v in pairs)


def split_costs(text: str) -> list[str]:
    """A per-request cost list as typed or linked: numbers separated by ``+``, commas or spaces."""
    return [c for c in text.replace("+", " ").replace(",", " ").split() if c]


def _pairs(search: str) -> list[tuple[str, str]]:
    """``a=1&b=2`` -> raw (still encoded) values; keys decoded. A leading ``?`` is ignored."""
    pairs = []
    for chunk in search.lstrip("?").split("&"):
        if chunk:
            key, _, value = chunk.partition("=")
            pairs.append((unquote(key), value))
    return pairs


def _optional(parts: list[str], allowed: tuple[str, ...], where: str, row: Row) -> None:
    for part in parts:
        key, sep, value = part.partition("=")
        key = unquote(key)
        if not sep or key not in allowed:
            raise ValueError(f"{where}: cannot read {unquote(part)!r} (expected one of "
                             + ", ".join(f"{a}=..." for a in allowed) + ")")
        row[key] = unquote(value)


def _decode_items(value: str, required: int, shape: str, head, optional: tuple[str, ...]) -> list[Row]:
    """Comma-separated items of ``required`` colon parts (read by ``head``), then ``field=value`` parts."""
    rows = []
    for index, item in enumerate(value.split(",")):
        parts = item.split(":")
        where = f"item {index + 1}"
        if len(parts) < required:
            raise ValueError(f"{where}: {unquote(item)!r} is not {shape}")
        row = head(parts[:required])
        _optional(parts[required:], optional, where, row)
        rows.append(row)
    return rows


def decode_tasks(value: str) -> list[Row]:
    return _decode_items(value, 3, "name:arrival:burst",
                         lambda parts: {f: unquote(p) for f, p in zip(TASK_FIELDS, parts)}, TASK_OPTIONAL)


def _tenant_head(parts: list[str]) -> Row:
    name, amount = parts
    if "x" in amount:
        cost, _, count = amount.partition("x")
        return {"name": unquote(name), "cost": unquote(cost), "count": unquote(count), "costs": ""}
    costs = " ".join(unquote(c) for c in amount.replace(" ", "+").split("+") if c)
    return {"name": unquote(name), "cost": "", "count": "", "costs": costs}


def decode_tenants(value: str) -> list[Row]:
    return _decode_items(value, 2, "name:COSTxCOUNT or name:C1+C2+...", _tenant_head, TENANT_OPTIONAL)


def _engine_tenant_head(parts: list[str]) -> Row:
    name, groups = parts
    return {"name": unquote(name), "requests": "+".join(unquote(g) for g in groups.split("+") if g)}


def decode_engine_tenants(value: str) -> list[Row]:
    return _decode_items(value, 2, "name:INPUT/OUTPUTxCOUNT+...", _engine_tenant_head, ENGINE_OPTIONAL)


def decode(search: str, parameter_names: Iterable[str]) -> tuple[dict[str, object], list[Problem]]:
    """Read a query into a partial setup (text values) and the problems of the parts left out."""
    if len(search) > MAX_QUERY_LENGTH:
        return {}, [("query", f"longer than {MAX_QUERY_LENGTH} characters (the documented limit)")]
    setup: dict[str, object] = {}
    parameters: dict[str, str] = {}
    problems: list[Problem] = []
    known = set(parameter_names)
    pairs = _pairs(search)
    engine = any(key == "mode" and unquote(raw) == "engine" for key, raw in pairs)   # tenants are read as its
    for key, raw in pairs:
        try:
            if key == "tasks":
                setup["tasks"] = decode_tasks(raw)
            elif key == "tenants":
                setup["tenants"] = decode_engine_tenants(raw) if engine else decode_tenants(raw)
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
