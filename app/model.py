"""The lab's state as declarative view-models: what is chosen, typed and shown, never how to schedule.

``Lab`` holds the mode, algorithm, parameters, rows, step, language and playback; whenever an input changes
it asks the core (``schedulers.simulate``, with your own policy's code when the algorithm is "custom") for a new
run. A run that fails keeps the last valid one on screen and records the core's ``ScenarioError`` in ``errors``
(field -> problem), where the editor shows it next to the field it names. ``LabView`` is the base of every
feature's view-model: one ``Lab`` it reads and drives.

This module imports no Panel (a test checks it): the views import the models, never the other way round.
"""
from __future__ import annotations

import re

import param

from schedulers import ScenarioError, algorithms, schema, simulate
from schedulers.custom import CUSTOM, TEMPLATES, PolicyCodeError
from schedulers.engine import DEFAULT_SCENARIO as ENGINE_SCENARIO, format_requests

from . import query
from .text import LANGUAGES, t

MODES = ("cpu", "llm", "engine")   # the modes the lab has views for
DEFAULT_TASKS = [("A", "0", "7"), ("B", "1", "4"), ("C", "2", "1"), ("D", "4", "3")]  # the article's
DEFAULT_TENANTS = [("A", "8", "6", ""), ("B", "2", "6", ""), ("C", "2", "4", "6")]  # the contract's reference
SPEEDS = (0.5, 1.0, 2.0, 4.0, 8.0, 16.0)   # steps a second while playing (in the page)
# The editor's limit, not the core's (the command line runs 100,000 tasks): every row is a handful of widgets the
# server builds and keeps in sync; 1,500 rows kept it busy for over a minute (docs/lab.md, "Shareable links").
MAX_ROWS = 100
INTEGER = re.compile(r"^[+-]?\d{1,4000}$")  # longer digit strings exceed Python's int-from-text limit


def number(text: str) -> object:
    """Widget text as the core expects it: an int when it is one, else the text itself (the core judges it)."""
    text = text.strip()
    return int(text) if INTEGER.match(text) else text


def parameter_value(text: str) -> object:
    """A parameter as typed: ``2`` is a number, ``1, 2, 4`` (commas or spaces) a list, as MLFQ's quanta."""
    items = query.split_costs(text)
    return [number(item) for item in items] if len(items) > 1 or "," in text else number(text)


def parameter_text(value: object) -> str:
    """How the core's value of a parameter is shown in its field: ``1, 2, 4`` for a list, empty for none."""
    if value is None:
        return ""
    if isinstance(value, (list, tuple)):
        return ", ".join(str(item) for item in value)
    return str(value)


def editable_fields(mode: str) -> tuple[str, ...]:
    """The fields the editor offers for one task or tenant, from the core's schema: every one-value field, and a
    list that stands for required fields (a tenant's ``costs``, typed as ``8 8 2`` instead of cost and count). A
    list that refines an optional field (a tenant's ``arrivals`` for ``join``) is left to JSON and the command
    line."""
    fields = schema(mode)
    return tuple(f.name for f in fields.item_fields
                 if f.type != "integers" or all(fields.field(name).required for name in f.instead_of))


class Row(param.Parameterized):
    """One editable task or tenant: every field is the text the user typed.

    The name lives in ``label`` (``name`` is param's own, read-only, identifier); ``text(field)`` and
    ``as_text`` speak the scenario's field names. ``row_class`` makes one subclass per mode, with a String
    parameter per field of the core's schema.
    """

    label = param.String(default="")
    mode = ""
    _fields: tuple[str, ...] = ("name",)

    def __init__(self, name: str = "", **params) -> None:
        super().__init__(label=name, **params)

    def text(self, field: str) -> str:
        return self.label if field == "name" else getattr(self, field)

    def widget_param(self, field: str) -> param.Parameter:
        return self.param["label" if field == "name" else field]

    def as_text(self) -> dict[str, str]:
        return {k: self.text(k) for k in self._fields}

    def scenario(self) -> dict[str, object]:
        """The item as the core reads it: required fields always, optional ones when typed, a list (costs) in
        place of the fields it replaces."""
        item: dict[str, object] = {"name": self.label}
        replaced: set[str] = set()
        for field in schema(self.mode).item_fields:
            if field.name == "name" or field.name not in self._fields:
                continue
            text = self.text(field.name)
            if field.type == "integers":
                values = query.split_costs(text)
                if values:
                    item[field.name] = [number(value) for value in values]
                    replaced.update(field.instead_of)
            elif field.required or text.strip():
                item[field.name] = number(text)
        for name in replaced:
            item.pop(name, None)
        return item


def row_class(mode: str, name: str) -> type[Row]:
    """The row of ``mode``: a String per editable field; a required number starts at its least valid value."""
    fields = editable_fields(mode)
    parameters = {f.name: param.String(default=str(f.minimum) if f.required and f.minimum is not None else "")
                  for f in map(schema(mode).field, fields) if f.name != "name"}
    kind = param.parameterized_class(name, parameters, Row)
    kind.mode, kind._fields, kind.__module__ = mode, fields, __name__
    return kind


TaskRow = row_class("cpu", "TaskRow")
TenantRow = row_class("llm", "TenantRow")
EngineTenantRow = row_class("engine", "EngineTenantRow")   # requests in the compact form, 4/8x16
ROWS = {"cpu": "tasks", "llm": "tenants", "engine": "engine_tenants"}   # mode -> the Lab parameter of its rows
ROW_CLASSES = {"cpu": TaskRow, "llm": TenantRow, "engine": EngineTenantRow}


def item_text(item: dict[str, object]) -> dict[str, str]:
    """A core scenario's item (a seeded exercise's) as the editor's text: an engine tenant's list of requests in
    the compact form."""
    return {k: format_requests(v) if k == "requests" and isinstance(v, list) else str(v) for k, v in item.items()}


def parameters_read(mode: str, algorithm: str) -> tuple[str, ...]:
    """The parameters a run of ``algorithm`` reads: its own; for your own policy, those every rule of the mode reads
    (the engine's slots, memory, w_in and w_out; none in CPU and LLM mode)."""
    catalog = algorithms(mode)
    if algorithm in catalog:
        return catalog[algorithm].parameters
    first, *others = catalog.values()
    return tuple(name for name in first.parameters if all(name in other.parameters for other in others))


def scenario_for(mode: str, algorithm: str, parameters: dict[str, str], rows: list[Row]) -> dict[str, object]:
    """What the core is asked to run: the algorithm, the parameters it reads (those typed), and the rows."""
    scenario: dict[str, object] = {"algorithm": algorithm}
    scenario.update({name: parameter_value(parameters[name]) for name in parameters_read(mode, algorithm)
                     if parameters.get(name, "").strip()})
    scenario[schema(mode).items] = [row.scenario() for row in rows]
    return scenario


def rows_from_text(mode: str, texts: list[dict[str, str]]) -> list[Row]:
    kind = ROW_CLASSES[mode]
    return [kind(**{k: v for k, v in text.items() if k in kind._fields}) for text in texts]


class Lab(param.Parameterized):
    """Everything on screen is a function of these parameters (and of ``result``, the core's answer)."""

    mode = param.Selector(objects=list(MODES), default="cpu")
    cpu_algorithm = param.String(default="fcfs")
    llm_algorithm = param.String(default="sfq")
    engine_algorithm = param.String(default=ENGINE_SCENARIO["algorithm"])
    parameters = param.Dict(default={}, doc="parameter name -> text, kept across algorithms")
    tasks = param.List(default=[], item_type=TaskRow)
    tenants = param.List(default=[], item_type=TenantRow)
    engine_tenants = param.List(default=[], item_type=EngineTenantRow)
    edited = param.Event(doc="a row's field changed")

    step = param.Integer(default=0, bounds=(0, None), doc="the core's step index; 0 is the initial state")
    lang = param.Selector(objects=["en", "ja"], default="en")
    presenter = param.Boolean(default=False)
    playing = param.Boolean(default=False)
    speed = param.Selector(objects=list(SPEEDS), default=1.0, doc="steps per second while playing")

    policy_code = param.Dict(default=dict(TEMPLATES), doc="mode -> the code of your own policy (algorithm custom)")
    result = param.Dict(default=None, allow_None=True, doc="the last valid run of the current mode")
    errors = param.Dict(default={}, doc="field -> problem for the current input, empty when it ran")
    notices = param.List(default=[], doc="(field, problem) pairs ignored from the URL; the app's own problems "
                                         "are a dict language -> text")

    def __init__(self, **params):
        params.setdefault("tasks", [TaskRow(name=n, arrival=a, burst=b) for n, a, b in DEFAULT_TASKS])
        params.setdefault("tenants", [TenantRow(name=n, cost=c, count=k, join=j)
                                         for n, c, k, j in DEFAULT_TENANTS])
        params.setdefault("engine_tenants", rows_from_text("engine", [item_text(item)
                                                                      for item in ENGINE_SCENARIO["tenants"]]))
        self._valid: dict[str, tuple[dict, dict]] = {}  # mode -> (result, setup) of its last valid run
        self._watched: list[Row] = []  # rows whose edits re-run (ids could be reused, the rows cannot)
        self._prepared: tuple[tuple, dict] | None = None  # (mode, scenario, code) -> result, from use_policy
        self.last_error: ScenarioError | None = None
        super().__init__(**params)
        self._watch_rows()
        self.run()

    # --- derived state ------------------------------------------------------------------------------
    @property
    def algorithm(self) -> str:
        return getattr(self, f"{self.mode}_algorithm")

    @property
    def catalog(self):
        return algorithms(self.mode)

    @property
    def rows(self) -> list[Row]:
        return getattr(self, ROWS[self.mode])

    @property
    def last_step(self) -> int:
        return len(self.result["steps"]) - 1 if self.result else 0

    def used_parameters(self) -> tuple[str, ...]:
        return parameters_read(self.mode, self.algorithm)

    def scenario(self) -> dict[str, object]:
        return scenario_for(self.mode, self.algorithm, self.parameters, self.rows)

    def setup(self) -> dict[str, object]:
        """The current inputs as text, in the shape ``query.encode`` takes."""
        return {"mode": self.mode, "algorithm": self.algorithm,
                "parameters": {k: v for k, v in self.parameters.items() if k in self.used_parameters()},
                schema(self.mode).items: [row.as_text() for row in self.rows]}

    def link(self) -> str:
        """The URL query of the last valid run at the current step: what a shared link restores."""
        if self.mode not in self._valid:
            return ""
        _, setup = self._valid[self.mode]
        return query.encode({**setup, "step": self.step + 1, "lang": self.lang})

    # --- running the core -----------------------------------------------------------------------------
    @param.depends("tasks", "tenants", "engine_tenants", watch=True)
    def _watch_rows(self) -> None:
        for row in [*self.tasks, *self.tenants, *self.engine_tenants]:
            if not any(row is seen for seen in self._watched):
                self._watched.append(row)
                names = [row.widget_param(f).name for f in row._fields]
                row.param.watch(lambda _: self.param.trigger("edited"), names)

    def policy_source(self) -> str | None:
        """The code of your own policy when the algorithm is "custom", else None (a built-in rule runs)."""
        return self.policy_code.get(self.mode, TEMPLATES[self.mode]) if self.algorithm == CUSTOM else None

    @param.depends("mode", "cpu_algorithm", "llm_algorithm", "engine_algorithm", "parameters", "tasks", "tenants",
                   "engine_tenants", "edited", "policy_code", watch=True)
    def run(self) -> None:
        scenario, source = self.scenario(), self.policy_source()
        prepared, self._prepared = self._prepared, None
        try:
            if prepared is not None and prepared[0] == (self.mode, scenario, source):
                result = prepared[1]   # use_policy ran exactly this a moment ago
            else:
                result = simulate(self.mode, scenario, policy_source=source)
        except ScenarioError as error:
            self.last_error = error   # its messages in every language (your policy's), for the views
            previous = self._valid.get(self.mode)
            self._show(previous[0] if previous else None, errors={error.field: error.problem})
            return
        for name, value in result.get("parameters", {}).items():  # show the values the core used (not their
            if name in self.used_parameters() and not self.parameters.get(name, "").strip():   # exact forms)
                self.parameters[name] = parameter_text(value)  # in place: the same run, no second one
        self._valid[self.mode] = (result, self.setup())
        self._show(result, errors={})

    def _show(self, result: dict | None, errors: dict[str, str]) -> None:
        last = len(result["steps"]) - 1 if result else 0
        step = min(self.step, last)
        self.param.step.bounds = (0, last)
        self.param.update(errors=errors, result=result, step=step)

    # --- editing --------------------------------------------------------------------------------------
    def set_algorithm(self, name: str) -> None:
        setattr(self, f"{self.mode}_algorithm", name)

    def use_policy(self, code: str) -> PolicyCodeError | None:
        """Make ``code`` the current mode's policy (the algorithm "custom") if it runs, and show that very run: the
        code runs once. A mistake in the code is returned, and the lab keeps its algorithm and its run."""
        scenario = scenario_for(self.mode, CUSTOM, self.parameters, self.rows)
        try:
            self._prepared = ((self.mode, scenario, code), simulate(self.mode, scenario, policy_source=code))
        except PolicyCodeError as error:
            return error
        except ScenarioError:
            pass   # the scenario's own problem: the lab's run shows it by its field, as for any algorithm
        self.param.update({"policy_code": {**self.policy_code, self.mode: code}, f"{self.mode}_algorithm": CUSTOM})
        return None

    def set_parameter(self, name: str, text: str) -> None:
        self.parameters = {**self.parameters, name: text}

    def add_row(self) -> None:
        """A new row with a free name; none past ``MAX_ROWS`` (the editor says so beside its button)."""
        if len(self.rows) >= MAX_ROWS:
            return
        taken = {row.label for row in self.rows}
        name = next(n for n in (chr(c) for c in range(ord("A"), ord("Z") + 1)) if n not in taken) \
            if len(taken) < 26 else f"T{len(taken) + 1}"
        setattr(self, ROWS[self.mode], [*self.rows, ROW_CLASSES[self.mode](name=name)])

    def remove_row(self, row: Row) -> None:
        setattr(self, ROWS[self.mode], [r for r in self.rows if r is not row])

    # --- stepping -------------------------------------------------------------------------------------
    def go(self, step: int) -> None:
        self.step = max(0, min(step, self.last_step))

    def first(self) -> None:
        self.go(0)

    def prev(self) -> None:
        self.go(self.step - 1)

    def next(self) -> None:
        self.go(self.step + 1)

    def last(self) -> None:
        self.go(self.last_step)

    # --- restoring a shared link ------------------------------------------------------------------------
    def restore(self, search: str) -> None:
        """Apply a URL query; parts that cannot be read or that the core rejects are noted and ignored."""
        names = {p for mode in MODES for a in algorithms(mode).values() for p in a.parameters}
        setup, problems = query.decode(search, names)
        mode = setup.get("mode", self.mode)
        if mode not in MODES:
            problems.append(("mode", f"must be one of {', '.join(MODES)}, not {mode!r}"))
            mode = self.mode
        candidate = {"algorithm": setup.get("algorithm"), "parameters": setup.get("parameters", {}),
                     "rows": setup.get(schema(mode).items)}
        if candidate["rows"] is not None and len(candidate["rows"]) > MAX_ROWS:
            problems.append((listing := schema(mode).items,
                             {lang: t(lang, "limit.rows", limit=MAX_ROWS, what=listing, count=len(candidate["rows"]))
                              for lang in LANGUAGES}))
            candidate["rows"] = candidate["rows"][:MAX_ROWS]
        if candidate["algorithm"] is not None and candidate["algorithm"] not in algorithms(mode):
            problems.append(("algorithm", f"unknown algorithm {candidate['algorithm']!r} for mode {mode}"))
            candidate["algorithm"] = None
        # Try the link's setup in the core first; drop whatever it rejects, one part at a time.
        while True:
            rows = rows_from_text(mode, candidate["rows"]) if candidate["rows"] is not None else \
                getattr(self, ROWS[mode])
            try:
                simulate(mode, scenario_for(mode, candidate["algorithm"] or getattr(self, f"{mode}_algorithm"),
                                            {**self.parameters, **candidate["parameters"]}, rows))
                break
            except ScenarioError as error:
                problems.append((error.field, error.problem))
                if not self._drop(candidate, error.field):
                    break  # nothing of the link is left to blame: the current inputs show the message
        lang = setup.get("lang")
        with param.parameterized.batch_call_watchers(self):
            self.mode = mode
            if candidate["algorithm"]:
                self.set_algorithm(candidate["algorithm"])
            if candidate["parameters"]:
                self.parameters = {**self.parameters, **candidate["parameters"]}
            if candidate["rows"] is not None:
                setattr(self, ROWS[mode], rows_from_text(mode, candidate["rows"]))
            if lang is not None:
                if lang in self.param.lang.objects:
                    self.lang = lang
                else:
                    problems.append(("lang", f"must be en or ja, not {lang!r}"))
        self.run()
        if "step" in setup:
            text = str(setup["step"])
            if INTEGER.match(text) and 1 <= int(text) <= self.last_step + 1:
                self.step = int(text) - 1
            else:
                problems.append(("step", f"must be a whole number from 1 to {self.last_step + 1}, not {text!r}"))
        self.notices = problems

    @staticmethod
    def _drop(candidate: dict, field: str) -> bool:
        """Forget the part of a link the core rejected (the current inputs stay); False if none was to blame."""
        head = re.split(r"[\[.]", field, maxsplit=1)[0]
        if head in {schema(mode).items for mode in MODES} and candidate["rows"] is not None:
            candidate["rows"] = None
        elif head in candidate["parameters"]:
            candidate["parameters"].pop(head)
        elif head == "algorithm" and candidate["algorithm"] is not None:
            candidate["algorithm"] = None
        elif any(candidate.values()):  # a problem no single part explains: keep the current setup entirely
            candidate.update(algorithm=None, parameters={}, rows=None)
        else:
            return False
        return True


class LabView(param.Parameterized):
    """The base of a feature's view-model: the ``Lab`` it shows and drives (``View(lab)`` or ``View(lab=lab)``)."""

    lab = param.ClassSelector(class_=Lab)

    def __init__(self, lab: Lab | None = None, **params) -> None:
        if lab is not None:
            params["lab"] = lab
        super().__init__(**params)
