"""An LLM-router scenario read from JSON, a widget or a URL query: tenants and their requests.

A tenant has ``name``, either ``cost`` with ``count`` or ``costs`` (one estimated cost per request, in FIFO
order), either ``join`` (all its requests arrive then; default 0) or ``arrivals`` (one arrival time per request,
non-decreasing: a tenant can go quiet and come back), and ``weight`` (positive, exact; default 1).
Every bad value raises ``ScenarioError`` naming its field, e.g. ``tenants[1].costs[3]``.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from .. import fields
from ..errors import ScenarioError
from ..schema import Field

MAX_TENANTS = 5_000
MAX_REQUESTS = 200_000          # in the whole scenario
MAX_COST = 10**9                # of one request
MAX_TIME = 10**9                # join / arrival times
MAX_WEIGHT = 1_000              # weights lie in [1/MAX_WEIGHT, MAX_WEIGHT] ...
MAX_WEIGHT_DENOMINATOR = 10**6  # ... with a denominator of at most this once reduced
MAX_QUANTUM_ROUNDS = 8          # DRR: a request may need at most this many visits before it fits
MAX_QUANTUM = MAX_COST * MAX_WEIGHT

TENANT = (
    Field("name", "text", required=True),
    Field("cost", "integer", required=True, minimum=1, maximum=MAX_COST),
    Field("count", "integer", required=True, minimum=1, maximum=MAX_REQUESTS),
    Field("costs", "integers", minimum=1, maximum=MAX_COST, instead_of=("cost", "count")),
    Field("join", "integer", default=0, minimum=0, maximum=MAX_TIME),
    Field("arrivals", "integers", minimum=0, maximum=MAX_TIME, instead_of=("join",)),
    Field("weight", "number", default=1, maximum=MAX_WEIGHT),   # at least 1/MAX_WEIGHT, see read_tenant
)
PARAMETERS = (Field("quantum", "number", maximum=MAX_QUANTUM, metavar="Q",
                    help="DRR's base quantum Q (tenant i gets Q * weight_i); default: the largest cost / weight"),)
TOP_KEYS = ("algorithm", "tenants", *(p.name for p in PARAMETERS), "compare")
TENANT_KEYS = tuple(f.name for f in TENANT)


@dataclass(frozen=True, slots=True)
class Tenant:
    order: int                  # input order: breaks every tie
    name: str
    costs: tuple[int, ...]      # estimated cost of each request, FIFO order
    arrivals: tuple[int, ...]   # arrival time of each request, non-decreasing
    weight: Fraction

    @property
    def join(self) -> int:
        return self.arrivals[0]


@dataclass(frozen=True, slots=True)
class Scenario:
    algorithm: str
    tenants: tuple[Tenant, ...]
    quantum: Fraction | None    # DRR's base quantum, when given
    compare: tuple[int, ...]    # the tenants the fairness metrics compare (default: all)

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
    quantum = None
    if scenario.get("quantum") is not None:
        quantum = fields.positive_rational(scenario["quantum"], "quantum", maximum=MAX_QUANTUM)
    return Scenario(algorithm, tuple(tenants), quantum, read_compare(scenario.get("compare"), tenants))


def read_tenant(item: Any, index: int, room: int) -> Tenant:
    where = f"tenants[{index}]"
    item = fields.mapping(item, where)
    fields.known_keys(item, where, TENANT_KEYS)
    if "name" not in item:
        raise ScenarioError(f"{where}.name", "required")
    name = fields.name(item["name"], f"{where}.name")
    if "costs" in item:
        if "cost" in item or "count" in item:
            extra = "cost" if "cost" in item else "count"
            raise ScenarioError(f"{where}.{extra}", "give either cost with count, or costs, not both")
        listed = fields.sequence(item["costs"], f"{where}.costs", minimum=1)
        if len(listed) > room:
            raise ScenarioError(f"{where}.costs", f"the scenario would have more than {MAX_REQUESTS} requests "
                                "(the documented limit)")
        costs = tuple(fields.integer(c, f"{where}.costs[{k}]", minimum=1, maximum=MAX_COST)
                      for k, c in enumerate(listed))
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
    weight = fields.positive_rational(item.get("weight", 1), f"{where}.weight", maximum=MAX_WEIGHT)
    if weight < Fraction(1, MAX_WEIGHT) or weight.denominator > MAX_WEIGHT_DENOMINATOR:
        raise ScenarioError(f"{where}.weight", f"must be at least 1/{MAX_WEIGHT} with a denominator of at most "
                            f"{MAX_WEIGHT_DENOMINATOR}, not {item.get('weight')} (the documented limit)")
    return Tenant(index, name, costs, arrivals, weight)


def read_compare(value: Any, tenants: list[Tenant]) -> tuple[int, ...]:
    if value is None:
        return tuple(range(len(tenants)))
    return tuple(fields.known_names(value, "compare", [t.name for t in tenants], 2, len(tenants), "tenant"))
