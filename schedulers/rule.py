"""The rule itself: the source of the code that decides, read from the running core, with the lines that
decided a step.

``rule_source(mode, algorithm, parameters)`` returns the policy class as it is in its mode's ``policies.py``
(``inspect.getsourcelines``: the very code the loop runs, not a copy; the Pyodide wheel ships the ``.py`` files,
so it works in the browser too), from its ``class`` line (its words, ``catalog.words`` above it, are not code),
followed by the inherited methods it relies on. Every line keeps its line number in that file.

``asked(source, step)`` names the rule's methods the mode's loop called for one step of a trace, and
``deciding_lines(source, step)`` marks their lines (and those of the rule's own helpers they call). Which hooks a
step asks is the mode's to say (``RuleLines``, ``Mode.lines``, made in each mode's ``lines.py``, whose docstring
gives its loop's protocol); ``tests/test_rule_spy.py`` records what each loop really calls, step by step, and
holds them to it.
"""
from __future__ import annotations

import ast
import inspect
import os
import textwrap
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from .modes import mode as mode_named

Step = Mapping[str, Any]


@dataclass(frozen=True)
class RuleLines:
    """How a mode's loop asks its rules, as the source view needs it."""
    protocol: type                                   # the rules' base class
    uses: Mapping[str, tuple[str, ...]]              # a kind of step or event -> the hooks the loop asks for it
    policy: Callable[[str, Mapping[str, Any] | None], Any]   # the rule as the loop gets it (an object or a class),
                                                     # configured by a result's ``parameters`` (None: defaults)
    step_uses: Callable[[RuleSource, Step, bool], list[str]]  # the hooks asked at a step (``resumed``: see step_uses)
    has_code: Callable[[type, str, type, bool], bool] | None = None
    # has_code(policy, hook, the class that defines it, preemptive): the rule really has code for that hook; None:
    # unless the hook is the protocol's do-nothing default


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

    @property
    def text(self) -> str:
        return "\n\n".join("\n".join(section.lines) for section in self.sections)


def hooks(uses: Mapping[str, tuple[str, ...]], kinds: Iterable[str]) -> list[str]:
    """The hooks the ``kinds`` of a step ask, in order, each once."""
    return list(dict.fromkeys(name for kind in kinds for name in uses.get(kind, ())))


def relative(code: Any) -> str:
    """The file that defines ``code`` (a class or a function), as its module's import path spells it:
    ``schedulers/cpu/policies.py`` (a mode registered from elsewhere: its own package's path)."""
    parts = os.path.normpath(inspect.getsourcefile(code)).split(os.sep)
    depth = code.__module__.count(".") + 1 + (parts[-1] == "__init__.py")
    return "/".join(parts[-depth:])


def used_methods(lines: RuleLines, policy: type, preemptive: bool) -> list[str]:
    """The deciding methods this rule actually has: its own, or inherited ones with real code."""
    found = []
    for name in dict.fromkeys(name for uses in lines.uses.values() for name in uses):
        owner = next((klass for klass in policy.__mro__ if name in vars(klass)), None)
        if owner is None or owner is object:
            continue
        if lines.has_code(policy, name, owner, preemptive) if lines.has_code else owner is not lines.protocol:
            found.append(name)
    return found


def class_lines(policy: type) -> tuple[list[str], int]:
    """The class's source from its ``class`` line (the decorators above it left out) and that line's number."""
    lines, first = inspect.getsourcelines(policy)
    start = ast.parse(textwrap.dedent("".join(lines))).body[0].lineno - 1
    return lines[start:], first + start


def rule_source(mode: str, algorithm: str, parameters: Mapping[str, Any] | None = None) -> RuleSource:
    """The source of ``algorithm``'s policy class, then the inherited methods it uses; ``parameters`` (a result's)
    configure it as it ran (priority's aging makes it look again at every instant)."""
    lines = mode_named(mode).lines
    rule = lines.policy(algorithm, parameters)
    policy = rule if isinstance(rule, type) else type(rule)
    preemptive = bool(getattr(rule, "preemptive", False))
    every_instant = preemptive and bool(getattr(rule, "dynamic", False))
    code, first = class_lines(policy)
    path = relative(policy)
    sections = [Section(policy.__name__, path, first, tuple(line.rstrip("\n") for line in code))]
    methods: dict[str, tuple[str, int, int]] = {}
    helpers: dict[str, tuple[str, ...]] = {}
    pending = used_methods(lines, policy, preemptive)
    while pending:
        name = pending.pop(0)
        if name in methods:
            continue
        function = next(vars(klass)[name] for klass in policy.__mro__ if name in vars(klass))
        function = getattr(function, "__func__", function)   # staticmethod
        method_lines, method_first = inspect.getsourcelines(function)
        helpers[name] = called_methods(policy, lines.protocol, "".join(method_lines))
        pending += helpers[name]
        owner = function.__qualname__.split(".")[0]
        method_path = relative(function)
        methods[name] = (method_path, method_first, method_first + len(method_lines) - 1)
        if owner != policy.__name__ and not any(s.first <= method_first < s.first + len(s.lines)
                                                 and s.path == method_path for s in sections):
            sections.append(Section(f"{function.__qualname__} (inherited)", method_path, method_first,
                                    tuple(line.rstrip("\n") for line in method_lines)))
    sections[1:] = sorted(sections[1:], key=lambda section: (section.path, section.first))
    return RuleSource(mode, policy, preemptive, every_instant, tuple(sections), methods, helpers)


def called_methods(policy: type, protocol: type, source: str) -> tuple[str, ...]:
    """The rule's own methods (not the protocol's presentation helpers) that ``source`` calls as ``self.name()``."""
    tree = ast.parse(textwrap.dedent(source))
    names = (node.func.attr for node in ast.walk(tree) if isinstance(node, ast.Call)
             and isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name)
             and node.func.value.id == "self")
    return tuple(dict.fromkeys(name for name in names if any(
        name in vars(klass) for klass in policy.__mro__[:policy.__mro__.index(protocol)])))


def step_uses(source: RuleSource, step: Step, resumed: bool = False) -> list[str]:
    """The hooks the loop asked at this step, as its mode says. ``resumed``: the task dispatched here resumes a
    quantum it had left (``schedulers.trace.resumes_quantum``), so no quantum is asked for it."""
    return mode_named(source.mode).lines.step_uses(source, step, resumed)


def asked(source: RuleSource, step: Step, resumed: bool = False) -> list[str]:
    """The rule's own methods the loop asked at ``step`` (before the helpers they call)."""
    return [name for name in step_uses(source, step, resumed) if name in source.methods]


def deciding_lines(source: RuleSource, step: Step, resumed: bool = False) -> dict[str, set[int]]:
    """Path -> the line numbers (in that file) of the methods the loop asked at ``step``, and of the rule's own
    helpers they call."""
    names = asked(source, step, resumed)
    for name in names:   # grows while we walk it: the rule's own helpers that the asked methods call
        names += [helper for helper in source.helpers[name] if helper not in names]
    marked: dict[str, set[int]] = {}
    for name in names:
        path, first, last = source.methods[name]
        marked.setdefault(path, set()).update(range(first, last + 1))
    return marked
