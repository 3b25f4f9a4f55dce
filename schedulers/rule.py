"""The rule itself: the source of the code that decides, read from the running core, with the lines that
decided a step.

``rule_source(mode, algorithm)`` returns the policy class as it is in ``schedulers/cpu/policies.py`` or
``schedulers/llm/policies.py`` or ``schedulers/engine/policies.py`` (``inspect.getsourcelines``: the very code the engine runs, not a copy; the
Pyodide wheel ships the ``.py`` files, so it works in the browser too), followed by the inherited methods it
relies on. Every line keeps its line number in that file.

``deciding_lines(source, step)`` marks, for one step of a trace, the methods the engine asked: a dispatch
marks ``key`` (or a scanning rule's ``choose``) and ``quantum``, a preemption ``preempts`` and ``key``, a
task that continues under a preemptive rule ``preempts`` (asked, and it said no), and the events mark their
hooks (``admit``, ``expire``, ``complete``, ``at_instant``). In LLM mode a dispatch marks ``pick`` and what it
calls, a join ``arrive``, an idle reset ``idle_reset``. In engine mode an admission marks ``pick``, ``admit`` and
``charge``, a decode ``generate`` and ``charge`` (and ``finish`` when a request finishes), a lift (or a tenant's
arrival to an empty queue) ``join``. A non-preemptive rule that lets its task continue marks nothing: it is not
asked.
"""
from __future__ import annotations

import ast
import inspect
import textwrap
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

CPU_USES = {"dispatch": ("choose", "key", "quantum"), "preempt": ("preempts", "key"), "continue": ("preempts",),
            "arrive": ("admit",), "expire": ("expire",), "demote": ("expire",), "boost": ("at_instant",),
            "complete": ("complete",)}
LLM_USES = {"dispatch": ("pick", "charge"), "join": ("arrive",), "arrive": ("arrive",),
            "idle_reset": ("idle_reset",)}
ENGINE_USES = {"arrive": ("join",), "lift": ("join",), "admit": ("pick", "admit", "charge"),
               "decode": ("generate", "charge"), "finish": ("finish",)}
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
    preemptive: bool               # the rule as configured (Priority is preemptive or not per menu entry)
    sections: tuple[Section, ...]
    methods: Mapping[str, tuple[str, int, int]]   # method -> (path, first line, last line) of its code
    helpers: Mapping[str, tuple[str, ...]]        # method -> the rule's own methods it calls (self.effective)

    @property
    def text(self) -> str:
        return "\n\n".join("\n".join(section.lines) for section in self.sections)


def policy_of(mode: str, algorithm: str) -> Any:
    """The rule as the engine gets it: a CPU policy object (configured as the menu entry), an LLM or engine class."""
    if mode == "cpu":
        from .cpu.policies import make_policy
        from .cpu.scenario import Parameters
        return make_policy(algorithm, Parameters(levels=1, quanta=(1,), allotment=(1,)))
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


def rule_source(mode: str, algorithm: str) -> RuleSource:
    """The source of ``algorithm``'s policy class, then the inherited methods it uses."""
    rule = policy_of(mode, algorithm)
    policy = rule if isinstance(rule, type) else type(rule)
    preemptive = bool(getattr(rule, "preemptive", False))
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
    return RuleSource(mode, policy, preemptive, tuple(sections), methods, helpers)


def called_methods(policy: type, protocol: type, source: str) -> tuple[str, ...]:
    """The rule's own methods (not the protocol's presentation helpers) that ``source`` calls as ``self.name()``."""
    tree = ast.parse(textwrap.dedent(source))
    names = (node.func.attr for node in ast.walk(tree) if isinstance(node, ast.Call)
             and isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name)
             and node.func.value.id == "self")
    return tuple(dict.fromkeys(name for name in names if any(
        name in vars(klass) for klass in policy.__mro__[:policy.__mro__.index(protocol)])))


def step_uses(mode: str, step: Mapping[str, Any]) -> list[str]:
    """What the engine asked the rule at this step: the decision's kind, then the events' hooks."""
    if mode == "cpu":
        kinds = [step.get("decision")] + [event["kind"] for event in step.get("events", [])]
    elif mode == "engine":   # an arrival asks the rule only when the tenant had nothing waiting
        kinds = [step.get("kind")] if step.get("kind") != "arrive" or step.get("joined") else []
        kinds += ["finish"] if step.get("finished") else []
    else:
        kinds = [step.get("kind")]
    return list(dict.fromkeys(name for kind in kinds for name in USES[mode].get(kind, ())))


def deciding_lines(source: RuleSource, step: Mapping[str, Any]) -> dict[str, set[int]]:
    """Path -> the line numbers (in that file) of the methods the engine asked at ``step``."""
    cpu_dispatch = source.mode == "cpu" and step.get("decision") == "dispatch"
    names = [name for name in step_uses(source.mode, step) if name in source.methods
             and not (source.mode == "cpu" and name == "preempts" and not source.preemptive)
             and not (cpu_dispatch and name == "key" and "choose" in source.methods)]  # lottery decides in choose
    for name in names:   # grows while we walk it: the rule's own helpers that the asked methods call
        names += [helper for helper in source.helpers[name] if helper not in names]
    marked: dict[str, set[int]] = {}
    for name in names:
        path, first, last = source.methods[name]
        marked.setdefault(path, set()).update(range(first, last + 1))
    return marked
