"""An inference-engine scenario read from JSON, a widget or a URL query: tenants and their requests.

A tenant has ``name``, ``weight`` (positive, exact; default 1) and ``requests``: a list of ``{arrival, input,
output, predicted}`` (``arrival`` default 0, ``predicted`` optional), or the compact text form below. ``input`` and
``output`` are token counts; ``output`` is the true length, which the engine uses to end the request and no rule
reads to choose. A tenant's requests are FIFO: their arrivals never decrease. Every bad value raises
``ScenarioError`` naming its field, e.g. ``tenants[1].requests[3].output``.

The compact form (for the editor and links, like the LLM mode's ``COSTxCOUNT``)::

    requests := group (separator group)*        separator: "+", "," or whitespace
    group    := INPUT "/" OUTPUT ["~" PREDICTED] ["x" COUNT] ["@" ARRIVAL]

``8/30x4`` is four requests arriving at iteration 0, each with 8 input tokens and 30 output tokens;
``8/30x2@10+4/5~3`` is two such requests at iteration 10, then one with input 4, output 5 and prediction 3 (at
iteration 0: an arrival before the previous group's is an error). ``format_requests`` writes a list back in this
form, shortest first: ``x1`` and ``@0`` are left out.
"""
from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from .. import fields
from ..errors import ScenarioError
from ..schema import Field, record

MAX_TENANTS = 1_000
MAX_REQUESTS = 100_000         # in the whole scenario
MAX_OUTPUT_TOKENS = 1_000_000  # the sum of every request's output: each generated token is a unit of work
MAX_TOKENS = 1_000_000         # input, output or prediction of one request
MAX_ARRIVAL = 10**9            # iteration numbers
MAX_SLOTS = 1_000
MAX_MEMORY = 10**12
MAX_WEIGHT = 1_000             # weights, w_in and w_out lie in [1/MAX_WEIGHT, MAX_WEIGHT] ...
MAX_WEIGHT_DENOMINATOR = 10**6  # ... with a denominator of at most this once reduced
DEFAULT_SLOTS = 4
DEFAULT_W_IN, DEFAULT_W_OUT = 1, 2   # the VTC paper's weights: an output token costs two input tokens
DECODES_BETWEEN_PREFILLS = 10        # the artifact's max_wait_tokens (slora/server/router/manager.py)

REQUEST = (
    Field("arrival", "integer", default=0, minimum=0, maximum=MAX_ARRIVAL),
    Field("input", "integer", required=True, minimum=1, maximum=MAX_TOKENS),
    Field("output", "integer", required=True, minimum=1, maximum=MAX_TOKENS),   # the true length
    Field("predicted", "integer", minimum=0, maximum=MAX_TOKENS),                # vtc-predict's estimate
)
TENANT = (
    Field("name", "text", required=True),
    Field("weight", "number", default=1, maximum=MAX_WEIGHT),   # at least 1/MAX_WEIGHT, see weight()
    Field("requests", "records", required=True, fields=REQUEST),  # or the compact form (module docstring)
)
PARAMETERS = (
    Field("slots", "integer", default=DEFAULT_SLOTS, minimum=1, maximum=MAX_SLOTS,
          help="requests in the batch at once"),
    Field("memory", "integer", minimum=1, maximum=MAX_MEMORY,          # none: no limit
          help="tokens the batch may hold (inputs + tokens generated), checked at admission"),
    Field("w_in", "number", default=DEFAULT_W_IN, maximum=MAX_WEIGHT, help="charge per input token", metavar="W"),
    Field("w_out", "number", default=DEFAULT_W_OUT, maximum=MAX_WEIGHT, help="charge per generated token",
          metavar="W"),
    Field("prediction", "integer", minimum=0, maximum=MAX_TOKENS,      # none: the tenant's mean output so far
          help="vtc-predict: the predicted output of a request without its own (default: the tenant's mean output "
               "so far)"),
    # The engine's conventions (docs/engine.md "The conventions"): where the VTC artifact's S-LoRA router decides
    # otherwise than the lab. ``conventions`` presets them all; a convention given beside it wins over the preset.
    Field("conventions", "choice", default="lab", choices=("lab", "s-lora"),
          help="preset the conventions below: the lab's, or the VTC artifact's S-LoRA router's"),
    Field("lift", "choice", default="lab", choices=("lab", "waiting-only"),
          help="vtc: a tenant joining while nobody else waits is lifted to the largest counter in the batch (lab), "
               "or not at all (waiting-only)"),
    Field("ties", "choice", default="tenant-order", choices=("tenant-order", "first-arrival"),
          help="vtc: equal counters are broken by tenant order, or by the order tenants first arrived"),
    Field("charge_first_token", "boolean", default=True,
          help="charge w_out for a request's first generated token (false: it is free, as the prefill's is in "
               "the artifact)"),
    Field("loop", "choice", default="mixed", choices=("mixed", "prefill-decode"),
          help="an iteration admits and decodes (mixed), or is either a prefill of new requests or a decode of the "
               "running ones (prefill-decode)"),
    Field("decodes_between_prefills", "integer", default=DECODES_BETWEEN_PREFILLS, minimum=1, maximum=MAX_ARRIVAL,
          help="prefill-decode: the decodes a running batch makes before it takes new requests"),
    Field("reserve", "choice", default="input", choices=("input", "input+output"),
          help="memory admits a request whose input + 1 fits (input), or while the batch's peak with every "
               "request run to its output stays below it (input+output)"),
)
CONVENTION_FIELDS = ("lift", "ties", "charge_first_token", "loop", "decodes_between_prefills", "reserve")
# Each preset's value of every convention (the lab's are the fields' defaults): the artifact's choices are
# vtc_req_queue.py's lift and tie order, manager.py's uncharged prefill token and its prefill/decode loop with
# max_wait_tokens = 10, and req_queue.py's reservation of the whole output.
PRESETS: dict[str, dict[str, Any]] = {
    "lab": {"lift": "lab", "ties": "tenant-order", "charge_first_token": True, "loop": "mixed",
            "decodes_between_prefills": DECODES_BETWEEN_PREFILLS, "reserve": "input"},
    "s-lora": {"lift": "waiting-only", "ties": "first-arrival", "charge_first_token": False, "loop": "prefill-decode",
               "decodes_between_prefills": DECODES_BETWEEN_PREFILLS, "reserve": "input+output"},
}
TOP_KEYS = ("mode", "title", "description", "algorithm", "tenants", *(p.name for p in PARAMETERS), "compare")
FIELD = {f.name: f for f in PARAMETERS}
TENANT_KEYS = tuple(f.name for f in TENANT)
REQUEST_KEYS = tuple(f.name for f in REQUEST)
LIMITS = {f.name: (f.minimum, f.maximum) for f in (*REQUEST, *PARAMETERS) if f.type == "integer"}
GROUP = re.compile(r"(\d{1,15})/(\d{1,15})(?:~(\d{1,15}))?(?:[xX](\d{1,15}))?(?:@(\d{1,15}))?")
SEPARATOR = re.compile(r"[+,\s]+")
GRAMMAR = "INPUT/OUTPUT[~PREDICTED][xCOUNT][@ARRIVAL]"


@dataclass(frozen=True, slots=True)
class Request:
    tenant: int                 # the tenant's order
    index: int                  # its place in the tenant's FIFO
    arrival: int                # the iteration it arrives at
    input: int
    output: int                 # the true length: the engine ends the request after this many tokens
    predicted: int | None       # vtc-predict's estimate, when given


# A tenant: its input ``order`` (which breaks ties), then one attribute per field of TENANT, filled by name.
Tenant = record("Tenant", TENANT, first=[("order", int)], frozen=True, kw_only=True)


class Scenario(record("ScenarioFields", PARAMETERS, first=[("algorithm", str), ("tenants", tuple), ("compare", tuple)],
                      frozen=True, kw_only=True)):
    """A scenario read and checked: the algorithm, the tenants, the compared pair (None with one tenant), and one
    attribute per field of PARAMETERS, filled by name (the conventions resolved: the preset's, or a value given
    beside it)."""
    __slots__ = ()

    @property
    def requests(self) -> list[Request]:
        return [request for tenant in self.tenants for request in tenant.requests]

    @property
    def conventional(self) -> bool:
        """Every convention is the lab's (the JSON is then exactly what it was before they existed)."""
        return all(getattr(self, name) == PRESETS["lab"][name] for name in CONVENTION_FIELDS)


def read(scenario: Mapping[str, Any], algorithms: Sequence[str]) -> Scenario:
    scenario = fields.mapping(scenario, "scenario")
    fields.known_keys(scenario, "", TOP_KEYS)
    if scenario.get("mode", "engine") != "engine":
        raise ScenarioError("mode", f"must be engine here, not {fields.describe(scenario['mode'])}")
    algorithm = fields.choice(scenario.get("algorithm", "vtc"), "algorithm", list(algorithms))
    slots = fields.integer(scenario.get("slots", DEFAULT_SLOTS), "slots", *LIMITS["slots"])
    memory = optional_integer(scenario, "memory", "memory")
    w_in = weight(scenario.get("w_in", DEFAULT_W_IN), "w_in")
    w_out = weight(scenario.get("w_out", DEFAULT_W_OUT), "w_out")
    prediction = optional_integer(scenario, "prediction", "prediction")
    conventions = read_conventions(scenario)
    if "tenants" not in scenario:
        raise ScenarioError("tenants", "required: a list of tenants")
    items = fields.sequence(scenario["tenants"], "tenants", minimum=1, maximum=MAX_TENANTS)
    tenants: list[Tenant] = []
    room = Room()
    # What a request must leave room for: with reserve input+output the artifact refuses, at arrival, a request whose
    # input + output + 1 exceeds the memory (slora/server/httpserver/manager.py); else its input and first token.
    whole = conventions["reserve"] == "input+output"
    for index, item in enumerate(items):
        tenants.append(read_tenant(item, index, room, memory, whole))
    fields.unique_names([t.name for t in tenants], "tenants")
    return Scenario(algorithm=algorithm, tenants=tuple(tenants), compare=read_compare(scenario.get("compare"), tenants),
                    slots=slots, memory=memory, w_in=w_in, w_out=w_out, prediction=prediction, **conventions)


def read_conventions(scenario: Mapping[str, Any]) -> dict[str, Any]:
    """``conventions`` (the preset) and each convention: as given, else the preset's value."""
    name = fields.of_field(FIELD["conventions"], scenario.get("conventions", "lab"), "conventions")
    values: dict[str, Any] = {"conventions": name}
    for key in CONVENTION_FIELDS:
        value = scenario.get(key)
        values[key] = PRESETS[name][key] if value is None else fields.of_field(FIELD[key], value, key)
    return values


def optional_integer(values: Mapping[str, Any], key: str, where: str) -> int | None:
    """``values[key]`` within the limits of its field, or None when it is left out."""
    return None if values.get(key) is None else fields.integer(values[key], where, *LIMITS[key])


def weight(value: Any, field: str) -> Fraction:
    rational = fields.positive_rational(value, field, maximum=MAX_WEIGHT)
    if rational < Fraction(1, MAX_WEIGHT) or rational.denominator > MAX_WEIGHT_DENOMINATOR:
        raise ScenarioError(field, f"must be at least 1/{MAX_WEIGHT} with a denominator of at most "
                            f"{MAX_WEIGHT_DENOMINATOR}, not {fields.describe(value)} (the documented limit)")
    return rational


class Room:
    """What is left of the scenario's budgets (requests, output tokens) as tenants are read."""

    def __init__(self) -> None:
        self.requests = MAX_REQUESTS
        self.output_tokens = MAX_OUTPUT_TOKENS

    def take(self, field: str, requests: int, output_tokens: int) -> None:
        if requests > self.requests:
            raise ScenarioError(field, f"the scenario would have more than {MAX_REQUESTS} requests "
                                "(the documented limit)")
        if output_tokens > self.output_tokens:
            raise ScenarioError(field, f"the outputs of all requests would add up to more than {MAX_OUTPUT_TOKENS} "
                                "tokens (the documented limit)")
        self.requests -= requests
        self.output_tokens -= output_tokens


def read_tenant(item: Any, order: int, room: Room, memory: int | None, whole: bool) -> Tenant:
    where = f"tenants[{order}]"
    item = fields.mapping(item, where)
    fields.known_keys(item, where, TENANT_KEYS)
    for required in (f.name for f in TENANT if f.required):
        if required not in item:
            raise ScenarioError(f"{where}.{required}", "required")
    name = fields.name(item["name"], f"{where}.name")
    tenant_weight = weight(item.get("weight", 1), f"{where}.weight")
    raw = item["requests"]
    if isinstance(raw, str):
        requests = read_compact(raw, order, f"{where}.requests", room, memory, whole)
    else:
        listed = fields.sequence(raw, f"{where}.requests", minimum=1, maximum=MAX_REQUESTS)
        requests = [read_request(value, order, k, f"{where}.requests[{k}]", memory, whole)
                    for k, value in enumerate(listed)]
        room.take(f"{where}.requests", len(requests), sum(r.output for r in requests))
        for k in range(1, len(requests)):
            if requests[k].arrival < requests[k - 1].arrival:
                raise ScenarioError(f"{where}.requests[{k}].arrival", f"must not be earlier than the request before "
                                    f"it ({requests[k - 1].arrival}): a tenant's requests are FIFO")
    return Tenant(order=order, name=name, weight=tenant_weight, requests=tuple(requests))


def read_request(value: Any, tenant: int, index: int, where: str, memory: int | None, whole: bool) -> Request:
    value = fields.mapping(value, where)
    fields.known_keys(value, where, REQUEST_KEYS)
    for required in (f.name for f in REQUEST if f.required):
        if required not in value:
            raise ScenarioError(f"{where}.{required}", "required")
    arrival = fields.integer(value.get("arrival", 0), f"{where}.arrival", *LIMITS["arrival"])
    tokens = fields.integer(value["input"], f"{where}.input", *LIMITS["input"])
    output = fields.integer(value["output"], f"{where}.output", *LIMITS["output"])
    predicted = optional_integer(value, "predicted", f"{where}.predicted")
    if memory is not None and tokens + 1 > memory:
        raise ScenarioError(f"{where}.input", f"{tokens} with its first output token can never fit in "
                            f"memory = {memory}")
    if whole and memory is not None and tokens + output + 1 > memory:
        raise ScenarioError(f"{where}.output", f"input {tokens} + output {output} + 1 is more than memory = {memory}: "
                            "with reserve = input+output this request could never be admitted (the artifact refuses "
                            "it at arrival)")
    return Request(tenant, index, arrival, tokens, output, predicted)


def read_compact(text: str, tenant: int, where: str, room: Room, memory: int | None, whole: bool
                 ) -> list[Request]:
    """The compact form (see the module docstring); an error names the field and the group (1-based)."""
    if len(text) > 100_000:
        raise ScenarioError(where, "the compact form is longer than 100000 characters (the documented limit)")
    groups = [group for group in SEPARATOR.split(text.strip()) if group]
    if not groups:
        raise ScenarioError(where, f"must have at least 1 request ({GRAMMAR}, e.g. 8/30x4)")
    requests: list[Request] = []
    for position, group in enumerate(groups, 1):
        shown = group if len(group) <= 30 else group[:27] + "..."
        match = GROUP.fullmatch(group)
        if match is None:
            raise ScenarioError(where, f"group {position} ({shown!r}) is not {GRAMMAR}, e.g. 8/30x4@10")
        tokens, output, predicted, count, arrival = match.groups()
        raw = {"input": int(tokens), "output": int(output), "arrival": int(arrival or 0)}
        if predicted is not None:
            raw["predicted"] = int(predicted)
        count_value = int(count or 1)
        try:
            if count_value < 1:
                raise ScenarioError("count", "must be >= 1, not 0")
            request = read_request(raw, tenant, len(requests), "request", memory, whole)
        except ScenarioError as error:
            raise ScenarioError(where, f"group {position} ({shown!r}): {error.field.split('.')[-1]} {error.problem}") \
                from None
        room.take(where, count_value, count_value * request.output)
        if requests and request.arrival < requests[-1].arrival:
            raise ScenarioError(where, f"group {position} ({shown!r}): arrival {request.arrival} is earlier than the "
                                f"request before it ({requests[-1].arrival}): a tenant's requests are FIFO")
        requests += [Request(tenant, len(requests) + k, request.arrival, request.input, request.output,
                             request.predicted) for k in range(count_value)]
    return requests


def format_requests(requests: Sequence[Mapping[str, Any]]) -> str:
    """Request dicts (``arrival`` default 0, ``predicted`` optional) in the compact form, runs folded."""
    groups: list[tuple[tuple[int, int, int | None, int], int]] = []
    for request in requests:
        key = (request["input"], request["output"], request.get("predicted"), request.get("arrival", 0))
        if groups and groups[-1][0] == key:
            groups[-1] = (key, groups[-1][1] + 1)
        else:
            groups.append((key, 1))
    return "+".join(f"{tokens}/{output}" + (f"~{predicted}" if predicted is not None else "")
                    + (f"x{count}" if count > 1 else "") + (f"@{arrival}" if arrival else "")
                    for (tokens, output, predicted, arrival), count in groups)


def read_compare(value: Any, tenants: list[Tenant]) -> tuple[int, int] | None:
    """The two tenants the fairness measure compares: as named, else the first two (None with one tenant)."""
    if value is None:
        return (0, 1) if len(tenants) >= 2 else None
    first, second = fields.known_names(value, "compare", [t.name for t in tenants], 2, 2, "tenant")
    return first, second
