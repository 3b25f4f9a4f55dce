"""The rule itself: the source of the code that decides, read from the running core, with the lines that
decided a step.

``rule_source(mode, algorithm, parameters)`` returns the policy class as it is in its mode's ``policies.py``
(``inspect.getsourcelines``: the very code the engine runs, not a copy; the
Pyodide wheel ships the ``.py`` files, so it works in the browser too), followed by the inherited methods it
relies on. Every line keeps its line number in that file.

``asked(source, step)`` names the rule's methods the engine called for one step of a trace, and
``deciding_lines(source, step)`` marks their lines (and those of the rule's own helpers they call). CPU: a
dispatch asks ``key`` (a heap rule's order; a scanning rule's ``choose``) and ``quantum`` (unless the task
resumes a quantum it had left); a preemption, and a task that continues under a preemptive rule, ask ``key`` for
the best ready task and ``preempts`` whether it takes over -- but only at an instant where something happened
(an arrival, a boost) or, for a rule whose order changes with time (priority with aging), at every instant: in
between, the engine does not look again. The events ask their hooks (``admit``, ``expire``, ``complete``,
``at_instant``); step 0 asks ``start`` (Stride's scale). A ready queue that keeps the rule's order asks as tasks join
(a heap's ``key``, lottery's ``tickets``, HRRN's ``cohort``): that is bookkeeping, its answer at a decision is the
deciding. ``streak`` is asked only by a run without a trace, which has no step to mark.
LLM: a dispatch asks ``pick`` and ``charge`` (and ``leave`` when it emptied the tenant's queue, the final
``idle_reset`` when it is noted there), a join or an arrival ``arrive``, an idle reset ``idle_reset``.
Engine: an admission asks ``pick``, ``admit`` and ``charge``; a decode ``generate`` and ``charge``, ``finish`` when a
request finished, and ``pick`` when the pick did not fit in memory (``blocked``); a tenant that had nothing waiting
asks ``join``, shown on its ``lift`` step for a rule that lifts counters (``lifts``), else on its ``arrive`` step.
``tests/test_rule_spy.py`` records what the engine really calls, step by step, and holds these to it.
"""
from __future__ import annotations

import ast
import inspect
import textwrap
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

CPU_USES = {"initial": ("start",), "dispatch": ("choose", "key", "quantum"), "preempt": ("preempts", "key"),
            "continue": ("preempts", "key"), "arrive": ("admit",), "expire": ("expire",), "demote": ("expire",),
            "boost": ("at_instant",), "complete": ("complete",)}
LLM_USES = {"dispatch": ("pick", "charge"), "join": ("arrive",), "arrive": ("arrive",),
            "idle_reset": ("idle_reset",), "leave": ("leave",), "final_reset": ("idle_reset",)}
ENGINE_USES = {"arrive": ("join",), "lift": ("join",), "admit": ("pick", "admit", "charge"),
               "decode": ("generate", "charge"), "finish": ("finish",), "blocked": ("pick",)}
USES = {"cpu": CPU_USES, "llm": LLM_USES, "engine": ENGINE_USES}


@dataclass(frozen=True)
class Section:
    title: str                     # "SRTF" or "Policy.preempts (inherited)"
    path: str                      # the file, relative to the repository: schedulers/cpu/policies.py
    first: int                     # line number of the first line in that file
    lines: tuple[str, ...]         # without their newlines


@dataclass(frozen=True)
class RuleSource:
    mode: str
    policy: type
    preemptive: bool               # the rule as configured
    every_instant: bool            # preemptive and its order changes with time: asked at every instant
    sections: tuple[Section, ...]
    methods: Mapping[str, tuple[str, int, int]]   # method -> (path, first line, last line) of its code
    helpers: Mapping[str, tuple[str, ...]]        # method -> the rule's own methods it calls (self.effective)
    menu_lines: frozenset[int] = frozenset()      # lines of the class's menu entry (label, summary, ...): not code

    @property
    def text(self) -> str:
        return "\n\n".join("\n".join(section.lines) for section in self.sections)


def policy_of(mode: str, algorithm: str, parameters: Mapping[str, Any] | None = None) -> Any:
    """The rule as the engine gets it: a CPU policy object (with a result's ``parameters``, else the defaults),
    an LLM or engine class."""
    if mode == "cpu":
        from .cpu.policies import make_policy
        from .cpu.scenario import read_parameters
        return make_policy(algorithm, read_parameters(parameters or {}))
    if mode == "engine":
        from .engine.policies import POLICIES as ENGINE_POLICIES
        return ENGINE_POLICIES[algorithm]
    from .llm.policies import POLICIES
    return POLICIES[algorithm]


def base_protocol(mode: str) -> type:
    if mode == "cpu":
        from .cpu.policies import Policy
    elif mode == "engine":
        from .engine.policies import Policy
    else:
        from .llm.policies import Policy
    return Policy


def relative(path: str) -> str:
    parts = Path(path).parts
    return "/".join(parts[len(parts) - 1 - parts[::-1].index("schedulers"):])


def used_methods(mode: str, policy: type, preemptive: bool) -> list[str]:
    """The deciding methods this rule actually has: its own, or inherited ones with real code."""
    protocol = base_protocol(mode)
    names = dict.fromkeys(name for uses in USES[mode].values() for name in uses)
    found = []
    for name in names:
        owner = next((klass for klass in policy.__mro__ if name in vars(klass)), None)
        if owner is None or owner is object:
            continue
        if owner is protocol and not (mode == "cpu" and name == "preempts" and preemptive):
            continue   # the protocol's do-nothing default (CPU's preempts compares keys: real code)
        if mode == "cpu" and name == "choose" and not policy.dynamic:
            continue   # a heap rule never calls choose: the heap orders by key
        found.append(name)
    return found


def rule_source(mode: str, algorithm: str, parameters: Mapping[str, Any] | None = None) -> RuleSource:
    """The source of ``algorithm``'s policy class, then the inherited methods it uses; ``parameters`` (a result's)
    configure it as it ran (priority's aging makes it look again at every instant)."""
    rule = policy_of(mode, algorithm, parameters)
    policy = rule if isinstance(rule, type) else type(rule)
    preemptive = bool(getattr(rule, "preemptive", False))
    every_instant = preemptive and bool(getattr(rule, "dynamic", False))
    lines, first = inspect.getsourcelines(policy)
    path = relative(inspect.getsourcefile(policy))
    sections = [Section(policy.__name__, path, first, tuple(line.rstrip("\n") for line in lines))]
    methods: dict[str, tuple[str, int, int]] = {}
    helpers: dict[str, tuple[str, ...]] = {}
    pending = used_methods(mode, policy, preemptive)
    while pending:
        name = pending.pop(0)
        if name in methods:
            continue
        function = next(vars(klass)[name] for klass in policy.__mro__ if name in vars(klass))
        function = getattr(function, "__func__", function)   # staticmethod
        method_lines, method_first = inspect.getsourcelines(function)
        helpers[name] = called_methods(policy, base_protocol(mode), "".join(method_lines))
        pending += helpers[name]
        owner = function.__qualname__.split(".")[0]
        method_path = relative(inspect.getsourcefile(function))
        methods[name] = (method_path, method_first, method_first + len(method_lines) - 1)
        if owner != policy.__name__ and not any(s.first <= method_first < s.first + len(s.lines)
                                                 and s.path == method_path for s in sections):
            sections.append(Section(f"{function.__qualname__} (inherited)", method_path, method_first,
                                    tuple(line.rstrip("\n") for line in method_lines)))
    sections[1:] = sorted(sections[1:], key=lambda section: (section.path, section.first))
    return RuleSource(mode, policy, preemptive, every_instant, tuple(sections), methods, helpers,
                      menu_lines(lines, first))


MENU = ("group", "label", "summary", "parameter_names", "item_fields")   # catalog.catalogue reads these


def menu_lines(lines: list[str], first: int) -> frozenset[int]:
    """The line numbers of a class's menu-entry assignments (``label = {...}``), for the view to set apart."""
    body = ast.parse(textwrap.dedent("".join(lines))).body[0].body
    return frozenset(line + first - 1 for node in body if isinstance(node, ast.Assign)
                     and any(isinstance(target, ast.Name) and target.id in MENU for target in node.targets)
                     for line in range(node.lineno, node.end_lineno + 1))


def called_methods(policy: type, protocol: type, source: str) -> tuple[str, ...]:
    """The rule's own methods (not the protocol's presentation helpers) that ``source`` calls as ``self.name()``."""
    tree = ast.parse(textwrap.dedent(source))
    names = (node.func.attr for node in ast.walk(tree) if isinstance(node, ast.Call)
             and isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name)
             and node.func.value.id == "self")
    return tuple(dict.fromkeys(name for name in names if any(
        name in vars(klass) for klass in policy.__mro__[:policy.__mro__.index(protocol)])))


def step_uses(source: RuleSource, step: Mapping[str, Any], resumed: bool = False) -> list[str]:
    """The hooks the engine asked at this step: the decision's (when it looked), then the events'. ``resumed``:
    the task dispatched here resumes a quantum it had left (``schedulers.trace.resumes_quantum``), so no quantum
    is asked for it."""
    if source.mode == "llm":
        kinds = [step.get("kind")]
        tenant = step.get("tenant")
        if kinds[0] == "dispatch" and (step.get("queues") or {}).get(tenant, [None]) == []:
            kinds.append("leave")     # the dispatch emptied its queue (a compact trace does not say)
        if "final_reset" in step:
            kinds.append("final_reset")
        return list(dict.fromkeys(name for kind in kinds for name in LLM_USES.get(kind, ())))
    if source.mode == "engine":
        kind = step.get("kind")
        kinds = [kind] if kind != "arrive" or (step.get("joined") and not source.policy.lifts) else []
        kinds += (["finish"] if step.get("finished") else []) + (["blocked"] if step.get("blocked") else [])
        return list(dict.fromkeys(name for kind in kinds for name in ENGINE_USES.get(kind, ())))
    if source.mode != "cpu":
        raise ValueError(f"no hooks are known for mode {source.mode!r}")
    decision, events = step.get("decision"), step.get("events", [])
    looked = decision != "continue" or (
        source.preemptive and step.get("ready") != []
        and (source.every_instant or any(event["time"] == step["time"] - 1 for event in events)))
    kinds = ([decision] if looked else []) + [event["kind"] for event in events]
    names = [name for kind in kinds for name in CPU_USES.get(kind, ()) if not (resumed and name == "quantum")]
    if "boost" in kinds and step.get("running") is not None:
        names.append("quantum")   # a boost gives every task, the running one too, a fresh quantum
    return list(dict.fromkeys(names))


def asked(source: RuleSource, step: Mapping[str, Any], resumed: bool = False) -> list[str]:
    """The rule's own methods the engine asked at ``step`` (before the helpers they call)."""
    names = [name for name in step_uses(source, step, resumed) if name in source.methods]
    if source.mode == "cpu" and step.get("decision") == "dispatch" and "choose" in names and "key" in names:
        names.remove("key")   # a scanning rule with its own choose (lottery) decides there, not by key
    return names


def deciding_lines(source: RuleSource, step: Mapping[str, Any], resumed: bool = False) -> dict[str, set[int]]:
    """Path -> the line numbers (in that file) of the methods the engine asked at ``step``, and of the rule's own
    helpers they call."""
    names = asked(source, step, resumed)
    for name in names:   # grows while we walk it: the rule's own helpers that the asked methods call
        names += [helper for helper in source.helpers[name] if helper not in names]
    marked: dict[str, set[int]] = {}
    for name in names:
        path, first, last = source.methods[name]
        marked.setdefault(path, set()).update(range(first, last + 1))
    return marked
