"""A decision rule of your own, written in Python, run in the very loop the built-in rules run in.

A mode that offers it (``Mode.custom``: a ``Custom``, made in the mode's ``custom.py``, whose docstring says what
``choose`` is given and must return) names ``choose``'s parameters, the code the editor starts from
(``TEMPLATES``) and the rule its loop runs, which asks your ``choose`` at each decision. The views it hands you are
read-only; ``state`` is a dict of your own, the same object at every call of a run. ``Fraction`` is available for
exact arithmetic.

This is not a security sandbox (CPython has none); it keeps a page robust against honest mistakes. The code
is parsed and checked first (no ``import``, no ``try``, no names starting with ``_``), runs with a short list
of built-ins, every line it executes is counted (``sys.settrace``, which Pyodide has too) against a budget per
call and per run, and a run makes at most ``MAX_DECISIONS`` calls. Every mistake -- a syntax error, an
exception, a wrong answer, a loop that does not end -- becomes a ``PolicyCodeError`` with the line.
A single C-level operation is not counted line by line, so ``*``, ``**`` and ``<<`` are rewritten to refuse
results past ``MAX_VALUE_SIZE`` (``10 ** 10 ** 8``, ``"x" * 10 ** 9``), and ``range`` is limited likewise.
"""
from __future__ import annotations

import ast
import builtins
import inspect
import sys
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from fractions import Fraction
from operator import lshift as operator_lshift, mul as operator_mul, pow as operator_pow
from types import FrameType, FunctionType
from typing import Any

from .errors import ScenarioError
from .fields import describe, mapping
from .modes import MODES, mode as mode_named
from .narration import Messages, say

FILENAME = "<your policy>"
ARITHMETIC = "_bounded_arithmetic"   # the name your rewritten code calls; user names cannot start with _
MAX_SOURCE_CHARS = 20_000
MAX_DECISIONS = 10_000          # calls of choose() in one run: the step limit
MAX_LINES_PER_CALL = 100_000    # lines executed by one call (module code counts as one call)
MAX_LINES_PER_RUN = 2_000_000   # lines executed by a whole run
MAX_RANGE = 1_000_000           # items of one range(): a C-level loop is not counted line by line
MAX_VALUE_SIZE = 1_000_000      # bits of an int, items of a list or characters of a string made by * ** <<
CUSTOM = "custom"   # the algorithm name of a policy of your own, in results and in the app's menu

MESSAGES = {
    "type": {"en": "the policy must be Python source text", "ja": "ポリシーは Python のソースコードで書きます"},
    "size": {"en": "the code is longer than {limit} characters (the documented limit)",
             "ja": "コードが {limit} 文字を超えています（上限）"},
    "syntax": {"en": "line {line}: syntax error: {detail}", "ja": "{line} 行目: 構文エラー: {detail}"},
    "forbidden": {"en": "line {line}: {what} is not available in a policy ({reason})",
                  "ja": "{line} 行目: ポリシーでは {what} は使えません（{reason}）"},
    "missing": {"en": "define a function choose({params})", "ja": "関数 choose({params}) を定義してください"},
    "arity": {"en": "line {line}: choose must take exactly {count} {count:parameter|parameters}: ({params})",
              "ja": "{line} 行目: choose の引数はちょうど {count} 個です: ({params})"},
    "raised": {"en": "line {line}: {kind}: {detail}{at}", "ja": "{line} 行目: {kind}: {detail}{at}"},
    "too_long": {"en": "line {line}: more than {limit} lines executed in one call{at}: a loop that never ends?",
                 "ja": "{line} 行目: 1 回の呼び出しで {limit} 行を超えて実行しました{at}。"
                       "終わらないループではありませんか？"},
    "run_too_long": {"en": "line {line}: more than {limit} lines executed in this run{at}",
                     "ja": "{line} 行目: この実行で {limit} 行を超えて実行しました{at}"},
    "decisions": {"en": "more than {limit} decisions{at}: a policy of your own runs at most {limit} (the step limit)",
                  "ja": "判断が {limit} 回を超えました{at}。自作ポリシーは最大 {limit} 回まで（ステップ上限）"},
    "wrong_type": {"en": "line {line}: choose returned {value} (type {kind}){at}; return a {item}'s name (text)",
                   "ja": "{line} 行目: choose が {value}（{kind}）を返しました{at}。"
                         "{item_ja}の名前（文字列）を返してください"},
    "unknown": {"en": "line {line}: choose returned {value}{at}, which is not a {item}",
                "ja": "{line} 行目: choose が {value} を返しました{at}が、そのような{item_ja}はありません"},
    "not_ready": {"en": "line {line}: choose returned {value}{at}, which is not {state} (choose among: {names})",
                  "ja": "{line} 行目: choose が {value} を返しました{at}が、{state_ja}ではありません（候補: {names}）"},
    "at": {"en": " at t={time}", "ja": "（t={time}）"},
}

NO_IMPORT = {"en": "what a policy needs comes as arguments; Fraction is built in",
             "ja": "必要なものは引数で渡されます。Fraction は最初から使えます"}
NO_TRY = {"en": "a mistake should show, not be hidden", "ja": "間違いは隠さず表示します"}
NO_AUGMENTED = {"en": "write x[i] = x[i] * y instead", "ja": "x[i] = x[i] * y と書いてください"}
NO_UNDERSCORE = {"en": "names starting with _ reach into Python's internals",
                 "ja": "_ で始まる名前は Python の内部に触れるため"}
FORBIDDEN = {ast.Import: ("import", NO_IMPORT), ast.ImportFrom: ("import", NO_IMPORT),   # node -> (what, why)
             ast.Try: ("try/except", NO_TRY), ast.TryStar: ("try/except", NO_TRY)}


class PolicyCodeError(ScenarioError):
    """A policy of your own that cannot run: ``field`` is "policy", ``line`` the line of your code (or None),
    ``message`` the explanation in every language (``problem`` is the English one), from ``messages`` (a mode's
    own, for a mistake only its loop can make)."""

    def __init__(self, key: str, line: int | None = None, messages: Messages = MESSAGES, **values: Any) -> None:
        self.line = line
        self.message = say(messages, key, line=line, **values)
        super().__init__("policy", self.message["en"])


def limited_range(*arguments: int) -> range:
    """``range``, refusing more than MAX_RANGE items (iterating it happens in C, where lines are not counted)."""
    items = range(*arguments)
    try:
        size = len(items)
    except OverflowError:   # more items than a C integer holds
        size = MAX_RANGE + 1
    if size > MAX_RANGE:
        raise ValueError(f"range of more than {MAX_RANGE} items (a policy's limit)")
    return items


def magnitude(value: Any) -> int:
    """Bits of an exact number, items of a sequence; 0 for what cannot grow (floats overflow on their own)."""
    if isinstance(value, int):
        return value.bit_length()
    if isinstance(value, Fraction):
        return value.numerator.bit_length() + value.denominator.bit_length()
    return len(value) if isinstance(value, (str, list, tuple)) else 0


def bounded_arithmetic(operator: str, left: Any, right: Any) -> Any:
    """``left <operator> right`` for ``*``, ``**`` and ``<<``, refusing results past MAX_VALUE_SIZE: one such
    operation (``10**10**8``, ``"x" * 10**9``) runs in C for minutes, where the line counter cannot stop it."""
    exact = (int, Fraction)
    if operator == "**" and isinstance(left, exact) and isinstance(right, int) and abs(left) not in (0, 1):
        estimate = magnitude(left) * abs(right)
    elif operator == "<<" and isinstance(right, int):
        estimate = magnitude(left) + right
    elif operator == "*" and isinstance(left, exact) and isinstance(right, exact):
        estimate = magnitude(left) + magnitude(right)
    elif operator == "*" and isinstance(right, int):       # a sequence repeated
        estimate = magnitude(left) * right
    elif operator == "*" and isinstance(left, int):
        estimate = magnitude(right) * left
    else:
        estimate = 0
    if estimate > MAX_VALUE_SIZE:
        raise ValueError(f"the result of {operator} would be too large (a policy's limit)")
    return {"*": operator_mul, "**": operator_pow, "<<": operator_lshift}[operator](left, right)


class _BoundArithmetic(ast.NodeTransformer):
    """Rewrites ``a * b``, ``a ** b``, ``a << b`` (and ``x *= b`` on a plain name) into bounded_arithmetic."""
    OPERATORS = {ast.Mult: "*", ast.Pow: "**", ast.LShift: "<<"}

    def call(self, operator: ast.operator, left: ast.expr, right: ast.expr, where: ast.AST) -> ast.expr:
        return ast.copy_location(ast.Call(ast.Name(ARITHMETIC, ast.Load()),
                                          [ast.Constant(self.OPERATORS[type(operator)]), left, right], []), where)

    def visit_BinOp(self, node: ast.BinOp) -> ast.expr:
        self.generic_visit(node)
        return self.call(node.op, node.left, node.right, node) if type(node.op) in self.OPERATORS else node

    def visit_AugAssign(self, node: ast.AugAssign) -> ast.stmt:
        self.generic_visit(node)
        if type(node.op) in self.OPERATORS and isinstance(node.target, ast.Name):
            value = self.call(node.op, ast.Name(node.target.id, ast.Load()), node.value, node)
            return ast.copy_location(ast.Assign([node.target], value), node)
        if type(node.op) in self.OPERATORS:   # x[i] *= y: rare in a policy; refuse rather than guess
            raise PolicyCodeError("forbidden", node.lineno, what=f"{self.OPERATORS[type(node.op)]}= on an item",
                                  reason=NO_AUGMENTED)
        return node


SAFE_BUILTINS: dict[str, Any] = {
    **{name: getattr(builtins, name) for name in (
        "abs", "all", "any", "bool", "dict", "divmod", "enumerate", "filter", "float", "frozenset", "int",
        "isinstance", "len", "list", "map", "max", "min", "reversed", "round", "set", "sorted", "str", "sum",
        "tuple", "zip", "ArithmeticError", "Exception", "KeyError", "ValueError", "ZeroDivisionError")},
    "range": limited_range, "Fraction": Fraction,
}


class _OutOfLines(BaseException):
    """Raised by the line counter inside your code; BaseException so nothing in between mistakes it."""

    def __init__(self, key: str, line: int, limit: int) -> None:
        super().__init__(key)
        self.key, self.line, self.limit = key, line, limit


class Program:
    """Your compiled code: ``call`` runs ``choose`` under the line budget and records the lines it ran."""

    def __init__(self, source: Any, mode: str) -> None:
        params = offered(mode).parameters
        if not isinstance(source, str):
            raise PolicyCodeError("type")
        if len(source) > MAX_SOURCE_CHARS:
            raise PolicyCodeError("size", limit=MAX_SOURCE_CHARS)
        try:
            tree = ast.parse(source, FILENAME)
        except SyntaxError as error:
            raise PolicyCodeError("syntax", error.lineno, detail=error.msg) from None
        except (ValueError, RecursionError, MemoryError) as error:   # NUL bytes, absurd nesting
            raise PolicyCodeError("syntax", None, detail=str(error) or type(error).__name__) from None
        check(tree)
        tree = ast.fix_missing_locations(_BoundArithmetic().visit(tree))
        self.total_lines = 0
        self.decisions = 0
        self.lines: list[dict[str, Any]] = []     # {"time", "lines"} per call: what ran, for the source view
        self._ran: set[int] = set()
        self._last_line = 0
        namespace: dict[str, Any] = {"__builtins__": SAFE_BUILTINS, "__name__": "policy",
                                     ARITHMETIC: bounded_arithmetic}
        self._guarded(None, exec, compile(tree, FILENAME, "exec"), namespace)
        choose = namespace.get("choose")
        if not isinstance(choose, FunctionType):
            raise PolicyCodeError("missing", params=", ".join(params))
        code = choose.__code__
        if code.co_argcount != len(params) or code.co_kwonlyargcount \
                or code.co_flags & (inspect.CO_VARARGS | inspect.CO_VARKEYWORDS):
            raise PolicyCodeError("arity", code.co_firstlineno, count=len(params), params=", ".join(params))
        self.choose = choose

    def call(self, time: int, *arguments: Any) -> Any:
        """``choose(*arguments)`` at ``time``; every failure becomes a PolicyCodeError."""
        self.decisions += 1
        if self.decisions > MAX_DECISIONS:
            raise PolicyCodeError("decisions", limit=MAX_DECISIONS, at=at(time))
        answer = self._guarded(time, self.choose, *arguments)
        self.lines.append({"time": time, "lines": sorted(self._ran)})
        return answer

    @property
    def last_line(self) -> int:
        """The last line of your code that ran (a ``return``, after a call): where a wrong answer came from."""
        return self._last_line

    def _guarded(self, time: int | None, function: Callable[..., Any], *arguments: Any) -> Any:
        self._ran, call_lines = set(), 0

        def local(frame: FrameType, event: str, _: Any) -> Callable[..., Any]:
            nonlocal call_lines
            if event == "line":
                call_lines += 1
                self.total_lines += 1
                self._last_line = frame.f_lineno
                self._ran.add(frame.f_lineno)
                if call_lines > MAX_LINES_PER_CALL:
                    raise _OutOfLines("too_long", frame.f_lineno, MAX_LINES_PER_CALL)
                if self.total_lines > MAX_LINES_PER_RUN:
                    raise _OutOfLines("run_too_long", frame.f_lineno, MAX_LINES_PER_RUN)
            return local

        def calls(frame: FrameType, event: str, _: Any) -> Callable[..., Any] | None:
            return local if frame.f_code.co_filename == FILENAME else None   # count your lines only

        previous = sys.gettrace()
        sys.settrace(calls)
        try:
            return function(*arguments)
        except _OutOfLines as stop:
            raise PolicyCodeError(stop.key, stop.line, limit=stop.limit, at=at(time)) from None
        except PolicyCodeError:
            raise
        except Exception as error:   # anything your code raised: its type, message and line
            raise PolicyCodeError("raised", error_line(error) or self._last_line, kind=type(error).__name__,
                                  detail=str(error)[:200], at=at(time)) from None
        finally:
            sys.settrace(previous)


def at(time: int | None) -> dict[str, str]:
    return say(MESSAGES, "at", time=time) if time is not None else {"en": "", "ja": ""}


def error_line(error: BaseException) -> int | None:
    """The line of your code closest to where ``error`` was raised."""
    line, traceback = None, error.__traceback__
    while traceback is not None:
        if traceback.tb_frame.f_code.co_filename == FILENAME:
            line = traceback.tb_lineno
        traceback = traceback.tb_next
    return line


def check(tree: ast.AST) -> None:
    """Refuse the constructs that would defeat the budget or reach into the loop's objects."""
    for node in ast.walk(tree):
        if type(node) in FORBIDDEN:
            what, reason = FORBIDDEN[type(node)]
            raise PolicyCodeError("forbidden", node.lineno, what=what, reason=reason)
        name = node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else None
        if name is not None and name.startswith("_"):
            raise PolicyCodeError("forbidden", node.lineno, what=name, reason=NO_UNDERSCORE)


def checked_name(program: Program, answer: Any, time: int, item: tuple[str, str], known: Mapping[str, Any],
                 allowed: Mapping[str, Any], state: tuple[str, str]) -> Any:
    """The object ``answer`` names, which must be in ``allowed``; else the PolicyCodeError that says why."""
    line = program.last_line
    words = {"item": item[0], "item_ja": item[1], "value": describe(answer), "at": at(time)}
    if not isinstance(answer, str):
        raise PolicyCodeError("wrong_type", line, kind=type(answer).__name__, **words)
    if answer not in known:
        raise PolicyCodeError("unknown", line, **words)
    if answer not in allowed:
        raise PolicyCodeError("not_ready", line, state=state[0], state_ja=state[1],
                              names=", ".join(allowed) or "-", **words)
    return allowed[answer]



# --- what a mode offers -------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Custom:
    """A mode's side of a policy of your own (``Mode.custom``)."""
    parameters: tuple[str, ...]                      # choose's, in order
    template: str                                    # the code the editor starts from: a built-in rule, rewritten
    policy: Callable[[Program, Mapping[str, Any]], Any]   # (your program, the scenario) -> the rule the mode's run
                                                     # takes as ``policy`` (an object, or a maker the loop calls)
    lines: Callable[[Mapping[str, Any], int], set[int]]   # the lines of your code that decided a step of a result


def offered(mode: str) -> Custom:
    """The mode's ``Custom``; a mode unknown, or one that offers no policy of your own, is a ScenarioError."""
    custom = mode_named(mode).custom
    if custom is None:
        raise ScenarioError("policy", f"the {mode} mode offers no policy of your own")
    return custom


def lines_at(result: Mapping[str, Any], time: int) -> set[int]:
    """The lines of the last call of your code at ``time`` (``custom.lines`` of a result; none: empty)."""
    ran: set[int] = set()
    for call in result.get("custom", {}).get("lines", []):
        if call["time"] == time:
            ran = set(call["lines"])
    return ran


def lines_of_call(result: Mapping[str, Any], call: int | None) -> set[int]:
    """The lines of the ``call``-th call of your code (None, or a call not recorded: empty)."""
    calls = result.get("custom", {}).get("lines", [])
    return set(calls[call]["lines"]) if call is not None and call < len(calls) else set()


def run(mode: str, scenario: Mapping[str, Any], source: str) -> dict[str, Any]:
    """Run ``scenario`` under the policy in ``source`` (``simulate(mode, scenario, policy_source=source)``): the
    result has ``algorithm`` "custom" and ``custom.lines`` (the lines of your code each call ran, by time).
    Raises ScenarioError (PolicyCodeError for the code, and for any fault of ours while it ran: never a
    traceback)."""
    entry = mode_named(mode)
    custom = offered(mode)
    try:
        program = Program(source, mode)
        scenario = {key: value for key, value in mapping(scenario, "scenario").items() if key != "algorithm"}
        result = entry.run(scenario, policy=custom.policy(program, scenario))
    except ScenarioError:
        raise
    except Exception as error:   # a fault of ours while your code ran: a message, never a traceback
        raise PolicyCodeError("raised", None, kind=type(error).__name__, detail=str(error)[:200],
                              at={"en": "", "ja": ""}) from None
    result["custom"] = {"lines": program.lines}
    return result


class Templates(Mapping[str, str]):
    """Mode -> the code its policy of your own starts from, for every mode of the registry that offers one; a mode
    is imported only when its template is looked up (or the whole mapping is listed)."""

    def __getitem__(self, mode: str) -> str:
        if mode not in MODES or MODES[mode].custom is None:
            raise KeyError(mode)
        return MODES[mode].custom.template

    def __iter__(self) -> Iterator[str]:
        return (name for name, mode in MODES.items() if mode.custom is not None)

    def __len__(self) -> int:
        return sum(1 for _ in self)


TEMPLATES: Mapping[str, str] = Templates()
