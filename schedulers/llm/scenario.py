"""An LLM-router scenario read from JSON, a widget or a URL query: tenants and their requests.

A tenant has ``name``, either ``cost`` with ``count`` or ``costs`` (one estimated cost per request, in FIFO
order), either ``join`` (all its requests arrive then; default 0) or ``arrivals`` (one arrival time per request,
non-decreasing: a tenant can go quiet and come back), and ``weight`` (positive, exact; default 1). A request of
``costs`` may be an object ``{"cost", "actual", "cancel"}`` (read with ``servers``) or its compact text
``COST[~ACTUAL][!CANCEL]`` (``8~12!5``), and the whole list one string of such entries (``"8 8~12 2!5"``).
Every bad value raises ``ScenarioError`` naming its field, e.g. ``tenants[1].costs[3]``.
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field as attribute
from fractions import Fraction
from typing import Any

from .. import fields
from ..errors import ScenarioError
from ..schema import Field, record

MAX_TENANTS = 5_000
MAX_REQUESTS = 200_000          # in the whole scenario
MAX_COST = 10**9                # of one request (its estimate, and its actual service)
MAX_TIME = 10**9                # join / arrival / cancel times
MAX_WEIGHT = 1_000              # weights lie in [1/MAX_WEIGHT, MAX_WEIGHT] ...
MAX_WEIGHT_DENOMINATOR = 10**6  # ... with a denominator of at most this once reduced
MAX_QUANTUM_ROUNDS = 8          # DRR: a request may need at most this many visits before it fits
MAX_QUANTUM = MAX_COST * MAX_WEIGHT
MAX_SERVERS = 1_000

COST = (   # one request of a tenant's ``costs``: a plain number is its cost; an object (or ENTRY text) has these
    Field("cost", "integer", required=True, minimum=1, maximum=MAX_COST, help="the estimate: what the rule charges"),
    Field("actual", "integer", minimum=1, maximum=MAX_COST,
          help="with servers: how long it holds a server (default: its cost)"),
    Field("cancel", "integer", minimum=0, maximum=MAX_TIME, help="with servers: when it is cancelled"),
)
TENANT = (
    Field("name", "text", required=True),
    Field("cost", "integer", required=True, minimum=1, maximum=MAX_COST),
    Field("count", "integer", required=True, minimum=1, maximum=MAX_REQUESTS),
    Field("costs", "integers", minimum=1, maximum=MAX_COST, instead_of=("cost", "count"), fields=COST),
    Field("join", "integer", default=0, minimum=0, maximum=MAX_TIME),
    Field("arrivals", "integers", minimum=0, maximum=MAX_TIME, instead_of=("join",)),
    Field("weight", "number", default=1, maximum=MAX_WEIGHT),   # at least 1/MAX_WEIGHT, see read_tenant
)
SPREADS = ("request", "tenant")
PARAMETERS = (
    Field("quantum", "number", maximum=MAX_QUANTUM, metavar="Q",
          help="DRR's base quantum Q (tenant i gets Q * weight_i); default: the largest cost / weight"),
    Field("servers", "integer", minimum=1, maximum=MAX_SERVERS,
          help="the fleet's servers, numbered from 0: time becomes real and a request holds a server for its actual "
               "service; default: none (one dispatch per time unit)"),
    Field("replicas", "integer", minimum=1, maximum=MAX_SERVERS, metavar="R",
          help="routers, each with its own meters and V and an equal share of the servers (needs servers)"),
    Field("spread", "choice", default="request", choices=SPREADS,
          help="how requests reach the replicas: request (arrival number mod R) or tenant (tenant k to replica "
               "k mod R)"),
)
TOP_KEYS = ("algorithm", "tenants", *(p.name for p in PARAMETERS), "compare")
TENANT_KEYS = tuple(f.name for f in TENANT)
COST_KEYS = tuple(f.name for f in COST)
COST_FIELDS = {f.name: f for f in COST}
# The compact form of one request in ``costs`` (the editor's and the links'): COST[~ACTUAL][!CANCEL]; a whole
# ``costs`` may be such entries in one string, separated by "+", "," or whitespace: "8 8~12 2!5".
ENTRY = re.compile(r"(\d{1,15})(?:~(\d{1,15}))?(?:!(\d{1,15}))?")
SEPARATOR = re.compile(r"[+,\s]+")
GRAMMAR = "COST[~ACTUAL][!CANCEL]"


@dataclass(frozen=True, slots=True, eq=False)
class Tenant(record("TenantFields", TENANT, first=[("order", int)], frozen=True)):
    """One tenant: its input position ``order`` (breaks every tie), one attribute per field of ``TENANT`` filled by
    name (``costs`` and ``arrivals`` always hold one item per request, ``join`` the first arrival; ``cost`` and
    ``count`` only when given), and ``entries``: for each field of ``COST`` but the cost that some request gives, one
    value per request (None where not given)."""
    entries: Mapping[str, tuple[int | None, ...]] = attribute(default_factory=dict)


@dataclass(frozen=True, slots=True, eq=False)
class Scenario(record("ScenarioFields", PARAMETERS, frozen=True,
                      first=[("algorithm", str), ("tenants", tuple), ("compare", tuple)])):
    """A checked scenario: the algorithm, the tenants, the compared tenants' positions (default: all) and one
    attribute per field of ``PARAMETERS`` (its default when not given)."""

    @property
    def requests(self) -> int:
        return sum(len(t.costs) for t in self.tenants)


def read(scenario: Mapping[str, Any], algorithms: Iterable[str]) -> Scenario:
    scenario = fields.mapping(scenario, "scenario")
    fields.known_keys(scenario, "", TOP_KEYS)
    algorithm = fields.choice(scenario.get("algorithm", "sfq"), "algorithm", list(algorithms))
    if "tenants" not in scenario:
        raise ScenarioError("tenants", "required: a list of tenants")
    items = fields.sequence(scenario["tenants"], "tenants", minimum=1, maximum=MAX_TENANTS)
    tenants: list[Tenant] = []
    total = 0
    for index, item in enumerate(items):
        tenant = read_tenant(item, index, MAX_REQUESTS - total)
        total += len(tenant.costs)
        tenants.append(tenant)
    fields.unique_names([t.name for t in tenants], "tenants")
    values = {field.name: field.default if scenario.get(field.name) is None
              else fields.of_field(field, scenario[field.name], field.name) for field in PARAMETERS}
    check_fleet(tenants, values)
    return Scenario(algorithm=algorithm, tenants=tuple(tenants), compare=read_compare(scenario.get("compare"), tenants),
                    **values)


def check_fleet(tenants: list[Tenant], values: Mapping[str, Any]) -> None:
    """What only a fleet reads: a cancellation needs servers, and replicas need one server each."""
    servers, replicas = values["servers"], values["replicas"]
    if servers is None:
        for tenant in tenants:
            cancels = tenant.entries.get("cancel", ())
            k = next((k for k, cancel in enumerate(cancels) if cancel is not None), None)
            if k is not None:
                raise ScenarioError(f"tenants[{tenant.order}].costs[{k}].cancel", "needs servers: without them time is "
                                    "logical (one dispatch per time unit) and nothing runs that could be cancelled")
        if replicas is not None:
            raise ScenarioError("replicas", "needs servers: each replica gets an equal share of them")
    elif replicas is not None and replicas > servers:
        raise ScenarioError("replicas", f"must be <= servers ({servers}), not {replicas}: every replica needs a server")


def read_tenant(item: Any, index: int, room: int) -> Tenant:
    where = f"tenants[{index}]"
    item = fields.mapping(item, where)
    fields.known_keys(item, where, TENANT_KEYS)
    if "name" not in item:
        raise ScenarioError(f"{where}.name", "required")
    name = fields.name(item["name"], f"{where}.name")
    entries: dict[str, tuple[int | None, ...]] = {}
    if "costs" in item:
        if "cost" in item or "count" in item:
            extra = "cost" if "cost" in item else "count"
            raise ScenarioError(f"{where}.{extra}", "give either cost with count, or costs, not both")
        listed = item["costs"]
        if isinstance(listed, str):
            listed = compact_entries(listed, f"{where}.costs")
        listed = fields.sequence(listed, f"{where}.costs", minimum=1)
        if len(listed) > room:
            raise ScenarioError(f"{where}.costs", f"the scenario would have more than {MAX_REQUESTS} requests "
                                "(the documented limit)")
        costs, entries = read_costs(listed, f"{where}.costs")
    else:
        for key in ("cost", "count"):
            if key not in item:
                raise ScenarioError(f"{where}.{key}", "required (or give costs, one per request)")
        cost = fields.integer(item["cost"], f"{where}.cost", minimum=1, maximum=MAX_COST)
        count = fields.integer(item["count"], f"{where}.count", minimum=1)
        if count > room:
            raise ScenarioError(f"{where}.count", f"the scenario would have more than {MAX_REQUESTS} requests "
                                "(the documented limit)")
        costs = (cost,) * count
    if "arrivals" in item:
        if "join" in item:
            raise ScenarioError(f"{where}.join", "give either join or arrivals, not both")
        listed = fields.sequence(item["arrivals"], f"{where}.arrivals")
        if len(listed) != len(costs):
            raise ScenarioError(f"{where}.arrivals", f"must have one time per request ({len(costs)}), "
                                f"not {len(listed)}")
        arrivals = tuple(fields.integer(a, f"{where}.arrivals[{k}]", minimum=0, maximum=MAX_TIME)
                         for k, a in enumerate(listed))
        for k in range(1, len(arrivals)):
            if arrivals[k] < arrivals[k - 1]:
                raise ScenarioError(f"{where}.arrivals[{k}]", f"must not be earlier than the request before it "
                                    f"({arrivals[k - 1]}): a tenant's requests are FIFO")
    else:
        join = fields.integer(item.get("join", 0), f"{where}.join", minimum=0, maximum=MAX_TIME)
        arrivals = (join,) * len(costs)
    for k, cancel in enumerate(entries.get("cancel", ())):
        if cancel is not None and cancel < arrivals[k]:
            raise ScenarioError(f"{where}.costs[{k}].cancel", f"must not be before its request's arrival "
                                f"({arrivals[k]}), not {cancel}")
    weight = fields.positive_rational(item.get("weight", 1), f"{where}.weight", maximum=MAX_WEIGHT)
    if weight < Fraction(1, MAX_WEIGHT) or weight.denominator > MAX_WEIGHT_DENOMINATOR:
        raise ScenarioError(f"{where}.weight", f"must be at least 1/{MAX_WEIGHT} with a denominator of at most "
                            f"{MAX_WEIGHT_DENOMINATOR}, not {item.get('weight')} (the documented limit)")
    given = "costs" not in item   # cost with count (else they are None: not given)
    return Tenant(order=index, name=name, cost=costs[0] if given else None, count=len(costs) if given else None,
                  costs=costs, join=arrivals[0], arrivals=arrivals, weight=weight, entries=entries)


def read_costs(listed: Sequence[Any], where: str) -> tuple[tuple[int, ...], dict[str, tuple[int | None, ...]]]:
    """A tenant's ``costs``: each a whole number (its cost), an object of ``COST``'s fields or its ENTRY text. The
    costs, and for each other field of ``COST`` that some request gives, its values (None where not given)."""
    costs: list[int] = []
    given: dict[str, dict[int, int]] = {}
    for k, value in enumerate(listed):
        if type(value) is int and 1 <= value <= MAX_COST:   # the common case, quickly
            costs.append(value)
            continue
        if isinstance(value, str):
            value = entry_text(value, f"{where}[{k}]")
        if not isinstance(value, Mapping):
            costs.append(fields.integer(value, f"{where}[{k}]", minimum=1, maximum=MAX_COST))
            continue
        fields.known_keys(value, f"{where}[{k}]", COST_KEYS)
        for field in COST:
            if field.required and field.name not in value:
                raise ScenarioError(f"{where}[{k}].{field.name}", "required")
        costs.append(fields.of_field(COST_FIELDS["cost"], value["cost"], f"{where}[{k}].cost"))
        for field in COST[1:]:
            if value.get(field.name) is not None:
                given.setdefault(field.name, {})[k] = fields.of_field(field, value[field.name],
                                                                      f"{where}[{k}].{field.name}")
    entries = {name: tuple(values.get(k) for k in range(len(costs))) for name, values in given.items()}
    return tuple(costs), entries


def entry_text(text: str, where: str) -> dict[str, int]:
    """One request in the compact form COST[~ACTUAL][!CANCEL] (``8~12!5``) as the object it stands for."""
    match = ENTRY.fullmatch(text.strip())
    if match is None:
        shown = text if len(text) <= 30 else text[:27] + "..."
        raise ScenarioError(where, f"{shown!r} is not {GRAMMAR}, e.g. 8~12!5 (cost 8, runs 12, cancelled at t=5)")
    return {name: int(value) for name, value in zip(COST_KEYS, match.groups()) if value is not None}


def compact_entries(text: str, where: str) -> list[str]:
    """A whole ``costs`` in the compact form: entries separated by "+", "," or whitespace."""
    if len(text) > 100_000:
        raise ScenarioError(where, "the compact form is longer than 100000 characters (the documented limit)")
    return [entry for entry in SEPARATOR.split(text.strip()) if entry]


def format_costs(costs: Sequence[int | Mapping[str, int]]) -> str:
    """Costs (numbers, or objects of ``COST``'s fields) in the compact form, entries joined by "+": what
    ``compact_entries`` and ``entry_text`` read back."""
    def entry(value: int | Mapping[str, int]) -> str:
        if not isinstance(value, Mapping):
            return str(value)
        return f"{value['cost']}" + "".join(f"{mark}{value[name]}" for mark, name in (("~", "actual"), ("!", "cancel"))
                                            if value.get(name) is not None)
    return "+".join(map(entry, costs))


def read_compare(value: Any, tenants: list[Tenant]) -> tuple[int, ...]:
    if value is None:
        return tuple(range(len(tenants)))
    return tuple(fields.known_names(value, "compare", [t.name for t in tenants], 2, len(tenants), "tenant"))
