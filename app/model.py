"""The lab's state as declarative view-models: what is chosen, typed and shown, never how to schedule.

``Lab`` holds the mode, the step, language and playback, and one ``ModeState`` per mode (``states``): that mode's
algorithm, parameters and rows, kept while another mode is shown; ``state`` is the one on screen. Whenever an input
of the mode on screen changes, the lab asks the core (``schedulers.simulate``, with your own policy's code when the
algorithm is "custom") for a new run. A run that fails keeps the last valid one on screen and records the core's
``ScenarioError`` in ``errors`` (field -> problem), where the editor shows it next to the field it names.
``LabView`` is the base of every feature's view-model: one ``Lab`` it reads and drives. The modes and what each
starts with are the registry's (``app.modes``).

This module imports no Panel (a test checks it): the views import the models, never the other way round.
"""
from __future__ import annotations

import re
from collections.abc import Mapping
from functools import cache

import param

from schedulers import ScenarioError, algorithms, schema, simulate
from schedulers.fields import format_records
from schedulers.schema import Field
from schedulers.custom import CUSTOM, TEMPLATES, PolicyCodeError

from . import query
from .modes import AppMode, app_mode, names
from .text import LANGUAGES, t

SPEEDS = (0.5, 1.0, 2.0, 4.0, 8.0, 16.0)   # steps a second while playing (in the page)
# The editor's limit, not the core's (the command line runs 100,000 tasks): every row is a handful of widgets the
# server builds and keeps in sync; 1,500 rows kept it busy for over a minute (docs/lab.md, "Shareable links").
MAX_ROWS = 100
INTEGER = re.compile(r"^[+-]?\d{1,4000}$")  # longer digit strings exceed Python's int-from-text limit


def number(text: str) -> object:
    """Widget text as the core expects it: an int when it is one, else the text itself (the core judges it)."""
    text = text.strip()
    return int(text) if INTEGER.match(text) else text


BOOLEANS = {"true": True, "false": False}   # a yes/no parameter's text (the engine's charge_first_token)


def parameter_value(text: str, kind: str = "") -> object:
    """A parameter as typed: ``2`` is a number, ``1, 2, 4`` (commas or spaces) a list, as MLFQ's quanta; a choice as
    it is (``input+output``), ``true``/``false`` for a boolean (``kind``: the schema field's type); a ``text``
    field's ``name=value`` pairs (commas between) a mapping (CPU's conventions given flag by flag), else the text.
    Anything else goes to the core as it is, which names the field."""
    if kind in ("choice", "records"):   # records: the core reads their compact text
        return text.strip()
    if kind == "boolean":
        return BOOLEANS.get(text.strip().lower(), text.strip())   # else the core names the field
    if kind == "text":
        return pairs_value(text) if "=" in text else text.strip()
    items = query.split_costs(text)
    return [number(item) for item in items] if len(items) > 1 or "," in text else number(text)


def pairs_value(text: str) -> dict[str, object]:
    """``a=true, b=x`` -> {"a": True, "b": "x"}: ``true``/``false`` are JSON's booleans, as the core reads a flag;
    other values stay text (the core names a bad one)."""
    pairs = (item.partition("=") for item in text.split(",") if item.strip())
    return {key.strip(): BOOLEANS.get(value.strip().lower(), value.strip()) for key, _, value in pairs}


def pairs_text(mapping: Mapping[str, object]) -> str:
    """{"a": True, "b": "x"} -> ``a=true,b=x``: how a mapping the core used is shown (``pairs_value`` reads it)."""
    return ",".join(f"{key}={parameter_text(value)}" for key, value in mapping.items())


def parameter_text(value: object, field: Field | None = None) -> str:
    """How the core's value of a parameter is shown in its field: ``1, 2, 4`` for a list, ``true``/``false`` for a
    flag, a list of records in the core's compact text (``rr:quantum=2;fcfs``: ``field`` says its fields), empty for
    none."""
    if value is None:
        return ""
    if field is not None and field.type == "records" and isinstance(value, (list, tuple)):
        return format_records(field, value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, Mapping):
        return pairs_text(value)
    if isinstance(value, (list, tuple)):
        return ", ".join(str(item) for item in value)
    return str(value)


def chosen(mode: str, name: str) -> bool:
    """A parameter picked from a list (a choice, true/false): left empty it follows its default or a preset (the
    engine's conventions), so the editor never fills it with the value a run used."""
    return schema(mode).field(name).type in ("choice", "boolean")


def shown_when_empty(mode: str, name: str) -> bool:
    """Whether an empty field shows the value the run used (slots 4): not a choice, whose empty option names its
    default, nor a parameter in a card with a preset, which left empty follows the preset (the engine's
    conventions): filled, it would stay when the preset changes."""
    return not chosen(mode, name) and not any(card.preset and name in card.parameters
                                              for card in app_mode(mode).cards)


def choice_options(mode: str, name: str, lang: str) -> dict[str, str]:
    """A choice's (or true/false's) options as a list offers them: its words -> its value, first "" (left empty: its
    default, or in a card with a preset the preset's value). A value's words are its mode's ``option.NAME.VALUE``."""
    field, words = schema(mode).field(name), app_mode(mode)
    card = next((card for card in words.cards if name in card.parameters), None)

    def word(value: str) -> str:
        return f"{words.say(lang, f'option.{name}.{value}')} ({value})"

    unset = words.say(lang, f"{card.title}.unset") if card and card.preset not in (None, name) \
        else t(lang, "choice.default", value=word(parameter_text(field.default)))
    return {unset: "", **{word(value): value for value in field.choices or ("true", "false")}}


def editable_fields(mode: str) -> tuple[str, ...]:
    """The fields the editor offers for one task or tenant, from the core's schema: every field, the lists typed as
    ``8 8 2`` (a tenant's ``costs`` instead of cost and count, its ``arrivals`` instead of join)."""
    return schema(mode).names


def shown_when_given(mode: str, name: str) -> bool:
    """A list that refines an optional field (a tenant's ``arrivals`` for ``join``) is in a row's editor only when
    the row has one (from a preset, a link or a seeded exercise): every tenant's row stays on one line."""
    return name in query.refining_lists(mode)


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

    @staticmethod
    def param_name(field: str) -> str:
        return "label" if field == "name" else field

    def widget_param(self, field: str) -> param.Parameter:
        return self.param[self.param_name(field)]

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
                if values:   # numbers as a list; a list in its compact text (costs with actual, cancel) as typed
                    numbers = [number(value) for value in values]
                    plain = field.fields == () or all(isinstance(value, int) for value in numbers)
                    item[field.name] = numbers if plain else text.strip()
                    replaced.update(field.instead_of)
            elif field.required or text.strip():
                item[field.name] = number(text)
        for name in replaced:
            item.pop(name, None)
        return item


@cache
def row_class(mode: str) -> type[Row]:
    """The row of ``mode``: a String per editable field; a required number starts at its least valid value."""
    fields = editable_fields(mode)
    parameters = {f.name: param.String(default=str(f.minimum) if f.required and f.minimum is not None else "")
                  for f in map(schema(mode).field, fields) if f.name != "name"}
    kind = param.parameterized_class(f"{mode.title()}Row", parameters, Row)
    kind.mode, kind._fields, kind.__module__ = mode, fields, __name__
    return kind


def every_rules_parameters(mode: str) -> tuple[str, ...]:
    """The parameters of the scenario rather than of a rule, which the schema marks read by every algorithm (no
    ``read_by``): the router's servers, replicas and spread."""
    return tuple(field.name for field in schema(mode).parameters if not field.read_by)


def parameters_read(mode: str, algorithm: str) -> tuple[str, ...]:
    """The parameters a run of ``algorithm`` reads: its own; for your own policy, those every rule of the mode reads
    (the engine's slots, memory, w_in and w_out; none in CPU mode); then the run's own, read by no rule in
    particular (``every_rules_parameters``: CPU's switch_cost and conventions, the router's servers)."""
    catalog = algorithms(mode)
    if algorithm in catalog:
        own = catalog[algorithm].parameters
    else:
        first, *others = catalog.values()
        own = tuple(name for name in first.parameters if all(name in other.parameters for other in others))
    return own + tuple(name for name in every_rules_parameters(mode) if name not in own)


def scenario_for(mode: str, algorithm: str, parameters: dict[str, str], rows: list[Row]) -> dict[str, object]:
    """What the core is asked to run: the algorithm, the parameters it reads (those typed), and the rows."""
    scenario: dict[str, object] = {"algorithm": algorithm}
    scenario.update({name: parameter_value(parameters[name], schema(mode).field(name).type)
                     for name in parameters_read(mode, algorithm) if parameters.get(name, "").strip()})
    scenario[schema(mode).items] = [row.scenario() for row in rows]
    return scenario


def rows_from_text(mode: str, texts: list[dict[str, str]]) -> list[Row]:
    kind = row_class(mode)
    return [kind(**{k: v for k, v in text.items() if k in kind._fields}) for text in texts]


class ModeState(param.Parameterized):
    """One mode's inputs: its algorithm, its parameters and its rows, kept while another mode is on screen (a
    parameter of one mode never leaks into another's runs: CPU's quantum is not DRR's)."""

    algorithm = param.String(default="")
    parameters = param.Dict(default={}, doc="parameter name -> text, kept across the mode's algorithms")
    rows = param.List(default=[], item_type=Row)
    edited = param.Event(doc="a row's field changed")

    def __init__(self, mode: AppMode, **params) -> None:
        params.setdefault("algorithm", mode.algorithm)
        params.setdefault("rows", rows_from_text(mode.name, list(mode.rows)))
        super().__init__(**params)
        self._watched: dict[int, Row] = {}  # id -> row whose edits count (held here, so its id is not reused)
        self._watch_rows()

    @param.depends("rows", watch=True)
    def _watch_rows(self) -> None:
        for row in self.rows:
            if id(row) not in self._watched:
                self._watched[id(row)] = row
                row.param.watch(lambda _: self.param.trigger("edited"), [row.param_name(f) for f in row._fields])


class Lab(param.Parameterized):
    """Everything on screen is a function of these parameters (and of ``result``, the core's answer)."""

    mode = param.Selector(objects=list(names()), default=names()[0])
    state = param.ClassSelector(class_=ModeState, doc="the inputs of the mode on screen: ``states[mode]``")
    inputs = param.Event(doc="the algorithm or the rows of the mode on screen changed (the editor shows them)")
    edited = param.Event(doc="a parameter or a row's field of the mode on screen changed")

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
    offer = param.Dict(default=None, allow_None=True, doc="the run a preset asks Compare to show beside the lab's "
                                                          "(its algorithm and parameters), until Compare takes it")

    def __init__(self, **params):
        self.states = {name: ModeState(app_mode(name)) for name in names()}
        self._valid: dict[str, tuple[dict, dict]] = {}  # mode -> (result, setup) of its last valid run
        self._prepared: tuple[tuple, dict] | None = None  # (mode, scenario, code) -> result, from use_policy
        self.last_error: ScenarioError | None = None
        super().__init__()
        # The registry's modes as they are now (a test registers one of its own), then the caller's choices,
        # applied before anything listens: the first run is the one below.
        self.param.mode.objects = list(self.states)
        with param.parameterized.discard_events(self):
            self.param.update(**params)
            self.state = self.states[self.mode]
        for state in self.states.values():
            state.param.watch(self._heard, ["algorithm", "parameters", "rows", "edited"])
        self.run()

    # --- derived state ------------------------------------------------------------------------------
    @property
    def algorithm(self) -> str:
        return self.state.algorithm

    @property
    def parameters(self) -> dict[str, str]:
        return self.state.parameters

    @property
    def rows(self) -> list[Row]:
        return self.state.rows

    @property
    def catalog(self):
        return algorithms(self.mode)

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
    @param.depends("mode", watch=True)
    def _switch(self) -> None:
        self.state = self.states[self.mode]

    def _heard(self, *events) -> None:
        """A mode's inputs changed: the one on screen runs again (the editor redraws for a new algorithm or new
        rows); another mode's run when it is shown."""
        if events[0].obj is not self.state:
            return
        drawn = {"algorithm", "rows"} & {event.name for event in events}
        self.param.trigger(*(["inputs"] if drawn else []), *(["edited"] if len(drawn) < len(events) else []))

    def policy_source(self) -> str | None:
        """The code of your own policy when the algorithm is "custom", else None (a built-in rule runs)."""
        return self.policy_code.get(self.mode, TEMPLATES[self.mode]) if self.algorithm == CUSTOM else None

    @param.depends("state", "inputs", "edited", "policy_code", watch=True)
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
            if name in self.used_parameters() and not self.parameters.get(name, "").strip() \
                    and shown_when_empty(self.mode, name):   # exact forms)
                # in place: the same run, no second one
                self.parameters[name] = parameter_text(value, schema(self.mode).field(name))
        self._valid[self.mode] = (result, self.setup())
        self._show(result, errors={})

    def _show(self, result: dict | None, errors: dict[str, str]) -> None:
        last = len(result["steps"]) - 1 if result else 0
        step = min(self.step, last)
        self.param.step.bounds = (0, last)
        self.param.update(errors=errors, result=result, step=step)

    # --- editing --------------------------------------------------------------------------------------
    def set_algorithm(self, name: str) -> None:
        self.state.algorithm = name

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
        with param.parameterized.batch_call_watchers(self):   # one run, of the new code
            self.policy_code = {**self.policy_code, self.mode: code}
            self.state.algorithm = CUSTOM
        return None

    def use_preset(self, key: str) -> None:
        """Load one of the mode's presets: its algorithm, parameters (no others) and rows, in one run; the run it
        compares with is offered to Compare."""
        preset = app_mode(self.mode).presets[key]
        items, mode = schema(self.mode).items, app_mode(self.mode)
        scenario = dict(preset.scenario)
        rows = rows_from_text(self.mode, [mode.typed(item) for item in scenario.pop(items)])
        parameters = {name: parameter_text(value, schema(self.mode).field(name)) for name, value in scenario.items()
                      if name in {field.name for field in schema(self.mode).parameters}}
        self.state.param.update(algorithm=scenario.get("algorithm", mode.algorithm), parameters=parameters,
                                rows=rows)
        self.offer = dict(preset.compare) if preset.compare is not None else None

    def load(self, scenario: dict[str, object]) -> None:
        """Make a core scenario (a preset's) the inputs of the mode on screen, in one run: its algorithm when it
        names one, its parameters (the others emptied: the core's defaults) and its items as the editor types them."""
        mode, listing = app_mode(self.mode), schema(self.mode).items
        changes: dict[str, object] = {
            "parameters": {field.name: parameter_text(scenario.get(field.name), field)
                           for field in schema(self.mode).parameters},
            "rows": rows_from_text(self.mode, [mode.typed(item) for item in scenario[listing]])}
        if "algorithm" in scenario:
            changes["algorithm"] = scenario["algorithm"]
        self.state.param.update(**changes)

    def set_parameter(self, name: str, text: str) -> None:
        self.state.parameters = {**self.parameters, name: text}

    def add_row(self) -> None:
        """A new row with a free name; none past ``MAX_ROWS`` (the editor says so beside its button)."""
        if len(self.rows) >= MAX_ROWS:
            return
        taken = {row.label for row in self.rows}
        name = next(n for n in (chr(c) for c in range(ord("A"), ord("Z") + 1)) if n not in taken) \
            if len(taken) < 26 else f"T{len(taken) + 1}"
        self.state.rows = [*self.rows, row_class(self.mode)(name=name)]

    def remove_row(self, row: Row) -> None:
        self.state.rows = [r for r in self.rows if r is not row]

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
        known = {field.name for mode in self.states for field in schema(mode).parameters}
        setup, problems = query.decode(search, known)
        mode = setup.get("mode", self.mode)
        if mode not in self.states:
            problems.append(("mode", f"must be one of {', '.join(self.states)}, not {mode!r}"))
            mode = self.mode
        state, listing = self.states[mode], schema(mode).items
        candidate = {"algorithm": setup.get("algorithm"), "parameters": setup.get("parameters", {}),
                     "rows": setup.get(listing)}
        if candidate["rows"] is not None and len(candidate["rows"]) > MAX_ROWS:
            problems.append((listing, {lang: t(lang, "limit.rows", limit=MAX_ROWS, what=listing,
                                               count=len(candidate["rows"])) for lang in LANGUAGES}))
            candidate["rows"] = candidate["rows"][:MAX_ROWS]
        if candidate["algorithm"] is not None and candidate["algorithm"] not in algorithms(mode):
            problems.append(("algorithm", f"unknown algorithm {candidate['algorithm']!r} for mode {mode}"))
            candidate["algorithm"] = None
        # Try the link's setup in the core first; drop whatever it rejects, one part at a time.
        while True:
            rows = rows_from_text(mode, candidate["rows"]) if candidate["rows"] is not None else state.rows
            try:
                simulate(mode, scenario_for(mode, candidate["algorithm"] or state.algorithm,
                                            {**state.parameters, **candidate["parameters"]}, rows))
                break
            except ScenarioError as error:
                problems.append((error.field, error.problem))
                if not self._drop(candidate, error.field):
                    break  # nothing of the link is left to blame: the current inputs show the message
        changes: dict[str, object] = {}
        if candidate["algorithm"]:
            changes["algorithm"] = candidate["algorithm"]
        if candidate["parameters"]:
            changes["parameters"] = {**state.parameters, **candidate["parameters"]}
        if candidate["rows"] is not None:
            changes["rows"] = rows_from_text(mode, candidate["rows"])
        state.param.update(**changes)   # runs now if the mode is on screen, else when it is shown, next
        lang = setup.get("lang")
        if lang is not None and lang not in self.param.lang.objects:
            problems.append(("lang", f"must be en or ja, not {lang!r}"))
            lang = None
        self.param.update(mode=mode, **({"lang": lang} if lang is not None else {}))
        if "step" in setup:
            text = str(setup["step"])
            if INTEGER.match(text) and 1 <= int(text) <= self.last_step + 1:
                self.step = int(text) - 1
            else:
                problems.append(("step", f"must be a whole number from 1 to {self.last_step + 1}, not {text!r}"))
        self.notices = problems

    def _drop(self, candidate: dict, field: str) -> bool:
        """Forget the part of a link the core rejected (the current inputs stay); False if none was to blame."""
        head = re.split(r"[\[.]", field, maxsplit=1)[0]
        if head in {schema(mode).items for mode in self.states} and candidate["rows"] is not None:
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
