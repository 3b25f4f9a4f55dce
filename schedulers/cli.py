"""``python -m schedulers``: run a scenario file and print a text timeline or the JSON trace.

One sub-command per mode of the registry (``schedulers.modes.MODES``): its description, algorithms, options (one
per parameter of its schema, ``--quantum N``, with the Field's help), seeded exercise and text rendering all come
from there. A text whose
mode says it prints no steps (``Mode.text_needs_steps``) is made from a run without a trace, and only the mode
named on the command line is imported (interpreter start counts: a text run pays for no other).
Bad input never shows a traceback: one ``error:`` line naming the field on stderr, exit status 2.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Mapping
from typing import Any, NoReturn

from . import custom, fields, simulate
from .catalog import Workload
from .errors import ScenarioError
from .export import trace_json
from .modes import MODES, meant_for
from .schema import Schema

MAX_SCENARIO_BYTES = 64 * 1024 * 1024


BOOLEANS = {"true": True, "false": False}   # a boolean parameter's option: --name true


class UsageError(Exception):
    pass


class Parser(argparse.ArgumentParser):
    """argparse, but a usage mistake is one ``error:`` line (exit 2), as the contract asks."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


def algorithm_list(mode: str, lang: str = "en") -> str:
    algorithms = MODES[mode].algorithms.values()
    width = max(len(a.name) for a in algorithms)
    rows = [f"  {a.name:<{width}}  {a.summary[lang]}" for a in algorithms]
    return "\n".join(rows)


def build_parser(argv: list[str]) -> Parser:
    """The parser; only the mode ``argv`` names (all of them when it names none) gets its options and module."""
    parser = Parser(prog="python -m schedulers", description="The scheduling lab's core, on the command line.")
    modes = parser.add_subparsers(dest="mode", required=True, parser_class=Parser)
    wanted = argv[:1] if argv[:1] and argv[0] in MODES else list(MODES)
    for name in MODES:
        if name not in wanted:
            modes.add_parser(name)   # only its name, for the usage line: its module is not imported
            continue
        mode = MODES[name]
        sub = modes.add_parser(mode.name, help=mode.description, description=mode.description,
                               epilog="algorithms:\n" + algorithm_list(mode.name),
                               formatter_class=argparse.RawDescriptionHelpFormatter)
        sub.add_argument("--scenario", metavar="FILE.json", help="the scenario file (JSON); '-' reads stdin")
        sub.add_argument("--seed", metavar="N", help="instead of a file, the seeded random exercise N "
                         "(the lab shows the same one for the same seed); with --pattern, that pattern's seed")
        if mode.patterns:
            sub.add_argument("--pattern", metavar="NAME", help="instead of a file, a seeded generator (with --seed N, "
                             "default 0): " + " ".join(mode.patterns))
        if mode.presets:
            sub.add_argument("--preset", metavar="NAME", help="instead of a file, a named scenario: "
                             + " ".join(mode.presets))
        sub.add_argument("--algorithm", metavar="NAME", help="overrides the file's algorithm: "
                         + " ".join(mode.algorithms))
        if mode.custom is not None:
            sub.add_argument("--policy", metavar="FILE.py", help="a policy of your own: a Python file defining "
                             f"choose({', '.join(mode.custom.parameters)}) (see schedulers/custom.py); "
                             "replaces --algorithm")
        sub.add_argument("--json", action="store_true", help="print one JSON object (the full trace)")
        sub.add_argument("--lang", choices=("en", "ja"), default="en", help="language of the text output")
        sub.add_argument("--list", action="store_true", help="list the algorithms with their rules and exit")
        for size in mode.exercise_sizes:
            sub.add_argument("--" + size.name.replace("_", "-"), metavar=size.metavar,
                             help=f"{size.help} (default {size.default})")
        if mode.render_problem is not None:
            sub.add_argument("--problem", action="store_true", help="with --seed: print the exercise and its "
                             "questions without the answers (the same command without it prints them; "
                             "with --json: the exercise as a scenario file)")
        if mode.render_trace is not None:
            sub.add_argument("--trace", action="store_true", help="print one line per event, as OSTEP's "
                             "simulators do (with --json: the steps carry the details)")
        add_parameter_options(sub, mode.schema)
    return parser


def add_parameter_options(parser: argparse.ArgumentParser, schema: Schema) -> None:
    """One option per parameter of the mode's schema (``--quantum``, ``--lottery-seed``), its help the Field's."""
    for field in schema.parameters:
        shown = str(field.default).lower() if field.type == "boolean" else field.default   # true, as JSON says it
        default = "" if field.default is None else f" (default {shown})"
        metavar = "|".join(field.choices) if field.type == "choice" else "true|false" if field.type == "boolean" \
            else field.metavar
        parser.add_argument("--" + field.name.replace("_", "-"), metavar=metavar, help=field.help + default)


def parameter_overrides(args: argparse.Namespace, schema: Schema) -> dict[str, Any]:
    """The parameters' options as typed, as scenario fields: an integer is read as one (a typo is told its range), a
    list of integers comma-separated, a number ("p/q") is left to the scenario's reader."""
    overrides: dict[str, Any] = {}
    for field in schema.parameters:
        text = getattr(args, field.name)
        if text is None:
            continue
        if field.type == "integers" and "," in text:
            overrides[field.name] = [fields.integer_text(part, f"{field.name}[{i}]", field)
                                     for i, part in enumerate(text.split(","))]
        elif field.type in ("integer", "integers"):
            overrides[field.name] = fields.integer_text(text, field.name, field)
        elif field.type == "boolean":
            overrides[field.name] = BOOLEANS.get(text.strip().lower(), text.strip())   # else the reader names it
        else:
            overrides[field.name] = text.strip()
    return overrides


def read_text(path: str, field: str, limit: int = MAX_SCENARIO_BYTES) -> str:
    """A UTF-8 file (``-``: stdin) of at most ``limit`` bytes; a problem is a ScenarioError naming ``field``."""
    try:
        if path == "-":
            text = sys.stdin.read(limit + 1)
        else:
            if os.path.getsize(path) > limit:
                raise ScenarioError(field, f"file is larger than {limit} bytes (the documented limit)")
            with open(path, encoding="utf-8") as handle:
                text = handle.read()
    except ScenarioError:
        raise
    except UnicodeDecodeError:
        raise ScenarioError(field, f"{path} is not UTF-8 text") from None
    except ValueError:   # a lone surrogate or a NUL: no file on this system has that name
        raise ScenarioError(field, f"cannot read {path!r}: not a file name this system can open") from None
    except OSError as error:
        raise ScenarioError(field, f"cannot read {path}: {error.strerror or error}") from None
    if len(text) > limit:
        raise ScenarioError(field, f"input is larger than {limit} bytes (the documented limit)")
    return text


def read_scenario(path: str) -> dict[str, Any]:
    text = read_text(path, "scenario")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise ScenarioError("scenario", f"malformed JSON at line {error.lineno} column {error.colno}: {error.msg}") \
            from None
    except RecursionError:
        raise ScenarioError("scenario", "JSON is nested too deeply") from None
    except ValueError as error:  # a number of more than 4,300 digits (CPython's int_max_str_digits)
        raise ScenarioError("scenario", f"unreadable number in the JSON: {str(error).split(';')[0]}") from None
    if not isinstance(data, dict):
        raise ScenarioError("scenario", "must be a JSON object")
    return data


def parse_seed(text: str) -> int:
    if not (text.isascii() and text.isdigit()) or len(text) > 19:
        raise ScenarioError("seed", f"must be a whole number from 0 to 2**63 - 1, not {text[:40]!r}")
    return int(text)


def named(workloads: Mapping[str, Workload], name: str, field: str) -> Workload:
    """A mode's pattern or preset by name; an unknown one is an error naming ``field``."""
    if name not in workloads:
        raise ScenarioError(field, f"must be one of {', '.join(workloads)}, not {fields.describe(name)}")
    return workloads[name]


def one_line(text: str) -> str:
    """The error stays one line whatever the user typed: a newline or a control character in an argument
    is shown escaped (``\\n``)."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = build_parser(argv)
    try:
        args = parser.parse_args(argv)
        mode = MODES[args.mode]
        if args.list:
            emit(algorithm_list(args.mode, args.lang))
            return 0
        pattern, preset = getattr(args, "pattern", None), getattr(args, "preset", None)
        given = [option for option, value in (("--scenario", args.scenario), ("--pattern", pattern),
                                              ("--preset", preset)) if value is not None]
        if len(given) > 1 or (given and given[0] != "--pattern" and args.seed is not None):
            both = [*given, *(["--seed"] if args.seed is not None and "--pattern" not in given else [])]
            raise UsageError(f"give either {both[0]} or {both[1]}, not both")
        sizes = {size.name: fields.integer_text(getattr(args, size.name), size.name, size)
                 for size in mode.exercise_sizes if getattr(args, size.name) is not None}
        if sizes and (args.seed is None or pattern is not None):
            raise UsageError(f"--{next(iter(sizes)).replace('_', '-')} shapes the exercise of --seed N: give --seed")
        problem, traced = getattr(args, "problem", False), getattr(args, "trace", False)
        if pattern is not None:
            scenario = named(mode.patterns, pattern, "pattern").make(parse_seed(args.seed or "0"))
        elif preset is not None:
            scenario = named(mode.presets, preset, "preset").make(0)
        elif args.seed is not None:
            scenario = mode.exercise(parse_seed(args.seed), **sizes)
        elif args.scenario:
            scenario = read_scenario(args.scenario)
        else:
            raise UsageError("--scenario FILE.json or --seed N is required (or --list)")
        overrides = {"algorithm": args.algorithm} if args.algorithm is not None else {}
        overrides.update(parameter_overrides(args, mode.schema))
        if traced:
            overrides.update(mode.trace_scenario)
        policy = getattr(args, "policy", None)
        source = None if policy is None else read_text(policy, "policy", custom.MAX_SOURCE_CHARS * 4)
        try:
            # A text that shows no steps is made without a trace (a tenth of the time and memory on 10^5 slices).
            result = simulate(mode.name, {**scenario, **overrides}, policy_source=source,
                              trace=(args.json or traced or mode.text_needs_steps) and not problem)
        except ScenarioError as error:
            other = meant_for(mode.name, scenario)
            if other is None:
                raise
            raise ScenarioError(error.field, f"{error.problem}; this file is a scenario of the {other} mode: "
                                f"run python -m schedulers {other} --scenario {args.scenario}") from None
    except (UsageError, ScenarioError) as error:
        print(f"error: {one_line(str(error))}", file=sys.stderr)
        return 2
    if args.json and problem:
        # The exercise as a scenario file (for --scenario), never its answers.
        emit(json.dumps({**scenario, **overrides}, ensure_ascii=False))
    elif args.json:
        emit(trace_json(result), end="")   # trace_json ends with its newline
    elif problem:
        emit(mode.render_problem({**scenario, **overrides}, result, args.lang))
    elif traced:
        emit(mode.render_trace(result, args.lang))
    else:
        emit(mode.render_text(result, args.lang))
    return 0


def emit(output: str, end: str = "\n") -> None:
    try:
        print(output, end=end, flush=True)
    except BrokenPipeError:
        # The reader (e.g. `| head`) left early: that is its choice, not an error of ours.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
