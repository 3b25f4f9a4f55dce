"""A decision rule of your own, written in Python, run in the very engine the built-in rules run in.

CPU mode: define ``choose(ready, running, time, state)`` and return a task's name::

    def choose(ready, running, time, state):
        if running is not None:
            return running.name        # keep it: this rule never preempts
        return ready[0].name           # the task that joined the ready queue first (FCFS)

- It is called at every time unit ``time`` at which a task is ready, after that instant's arrivals.
- ``ready``: the waiting tasks (running task excluded), in the order they joined the ready queue (a preempted
  task keeps its place). ``running``: the task that ran over [time-1, time) and is not finished, or None.
- Return ``running.name`` to keep it running, or a ready task's name to dispatch it; naming a ready task
  while another runs preempts the running one. With no task running it must name a ready task: the CPU
  never idles while a task is ready.

LLM mode: define ``choose(waiting, time, state)`` and return a tenant's name; that tenant's oldest waiting
request (its FIFO head) is dispatched. It is called once per dispatch; ``waiting`` lists the tenants with
waiting requests, in tenant order.

Engine mode: define ``choose(waiting, time, state)`` and return a tenant's name; that tenant's oldest waiting
request takes the free batch slot. It is called, at iteration ``time``, each time a slot is free and requests
wait (``waiting``: those tenants, in tenant order, ``EngineTenantView``); no request's output length is shown, as
no built-in rule reads it. With ``memory``, a pick whose input does not fit stops admission for the iteration
and choose is asked again at the next one.

The views are read-only (``TaskView``, ``TenantView`` below); ``state`` is a dict of your own, the same
object at every call of a run. ``Fraction`` is available for exact arithmetic.

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
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from operator import lshift as operator_lshift, mul as operator_mul, pow as operator_pow
from types import FrameType, FunctionType
from typing import Any

from .errors import ScenarioError
from .fields import describe, mapping
from .narration import say

FILENAME = "<your policy>"
ARITHMETIC = "_bounded_arithmetic"   # the name your rewritten code calls; user names cannot start with _
MAX_SOURCE_CHARS = 20_000
MAX_DECISIONS = 10_000          # calls of choose() in one run: the step limit
MAX_LINES_PER_CALL = 100_000    # lines executed by one call (module code counts as one call)
MAX_LINES_PER_RUN = 2_000_000   # lines executed by a whole run
MAX_RANGE = 1_000_000           # items of one range(): a C-level loop is not counted line by line
MAX_VALUE_SIZE = 1_000_000      # bits of an int, items of a list or characters of a string made by * ** <<
PARAMETERS = {"cpu": ("ready", "running", "time", "state"), "llm": ("waiting", "time", "state"),
              "engine": ("waiting", "time", "state")}
CUSTOM = "custom"   # the algorithm name of a policy of your own, in results and in the app's menu

MESSAGES = {
    "type": {"en": "the policy must be Python source text", "ja": "ポリシーは Python のソースコードで書きます"},
    "size": {"en": "the code is longer than {limit} characters (the documented limit)",
             "ja": "コードが {limit} 文字を超えています（上限）"},
    "syntax": {"en": "line {line}: syntax error: {detail}", "ja": "{line} 行目: 構文エラー: {detail}"},
    "forbidden": {"en": "line {line}: {what} is not available in a policy ({reason})",
                  "ja": "{line} 行目: ポリシーでは {what} は使えません（{reason}）"},
    "missing": {"en": "define a function choose({params})", "ja": "関数 choose({params}) を定義してください"},
    "arity": {"en": "line {line}: choose must take exactly {count} parameters: ({params})",
              "ja": "{line} 行目: choose の引数はちょうど {count} 個です: ({params})"},
    "raised": {"en": "line {line}: {kind}: {detail}{at}", "ja": "{line} 行目: {kind}: {detail}{at}"},
    "too_long": {"en": "line {line}: more than {limit} lines executed in one call{at}: a loop that never ends?",
                 "ja": "{line} 行目: 1 回の呼び出しで {limit} 行を超えて実行しました{at}。終わらないループではありませんか？"},
    "run_too_long": {"en": "line {line}: more than {limit} lines executed in this run{at}",
                     "ja": "{line} 行目: この実行で {limit} 行を超えて実行しました{at}"},
    "decisions": {"en": "more than {limit} decisions{at}: a policy of your own runs at most {limit} (the step limit)",
                  "ja": "判断が {limit} 回を超えました{at}。自作ポリシーは最大 {limit} 回まで（ステップ上限）"},
    "wrong_type": {"en": "line {line}: choose returned {value} (type {kind}){at}; return a {item}'s name (text)",
                   "ja": "{line} 行目: choose が {value}（{kind}）を返しました{at}。{item_ja}の名前（文字列）を返してください"},
    "unknown": {"en": "line {line}: choose returned {value}{at}, which is not a {item}",
                "ja": "{line} 行目: choose が {value} を返しました{at}が、そのような{item_ja}はありません"},
    "not_ready": {"en": "line {line}: choose returned {value}{at}, which is not {state} (choose among: {names})",
                  "ja": "{line} 行目: choose が {value} を返しました{at}が、{state_ja}ではありません（候補: {names}）"},
    "idle": {"en": "line {line}: choose returned None{at} while tasks are ready ({names}): the CPU never idles "
                   "while a task is ready", "ja": "{line} 行目: choose が None を返しました{at}が、実行可能なタスク"
                   "（{names}）があります。実行可能なタスクがある間 CPU は空きません"},
    "at": {"en": " at t={time}", "ja": "（t={time}）"},
    "rule": {"en": "your choose() picked it", "ja": "あなたの choose() が選びました"},
    "keep": {"en": "your choose() kept it", "ja": "あなたの choose() が続行を選びました"},
    "picked": {"en": "t={t}: your choose() picked {tenant}; its head request (cost {cost}) is dispatched.",
               "ja": "t={t}: あなたの choose() が {tenant} を選び、先頭リクエスト（コスト {cost}）を送ります。"},
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
    ``message`` the explanation in every language (``problem`` is the English one)."""

    def __init__(self, key: str, line: int | None = None, **values: Any) -> None:
        self.line = line
        self.message = say(MESSAGES, key, line=line, **values)
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
        params = PARAMETERS[mode]
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
    """Refuse the constructs that would defeat the budget or reach into the engine's objects."""
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


# --- CPU ------------------------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class TaskView:
    """A task as your ``choose`` sees it (read-only). ``waited``: time spent in the ready queue so far;
    ``ran``: time it has run; ``deadline``/``priority``/``tickets``: None when the scenario gives none."""
    name: str
    index: int            # input position: the last tie-break of every built-in rule
    arrival: int
    burst: int
    remaining: int
    ran: int
    waited: int
    deadline: int | None
    priority: int | None
    tickets: int | None


def cpu_policy(program: Program, names: Sequence[str]):
    """A ``schedulers.cpu.Policy`` that asks ``program`` at every time unit (so it may preempt any time);
    ``names``: every task of the scenario (a name that has not arrived is "not ready", not "unknown")."""
    from .cpu.policies import Policy
    from .cpu.scenario import Task

    def view(task: Task, now: int) -> TaskView:
        ran = task.burst - task.remaining
        return TaskView(task.name, task.index, task.arrival, task.burst, task.remaining, ran,
                        now - task.arrival - ran, task.deadline, task.priority, task.tickets)

    class YourPolicy(Policy):
        name = CUSTOM
        preemptive = True
        dynamic = True     # asked at every time unit, the ready queue scanned
        rule = MESSAGES["rule"]
        keep = MESSAGES["keep"]

        def __init__(self) -> None:
            self.present: list[Task] = []     # admitted, not finished: the running task is the one not ready
            self.names = dict.fromkeys(names)
            self.memory: dict[Any, Any] = {}   # the user's state argument
            self.verdict: Task | None = None  # the ready task choose() named at this instant (None: keep)

        def key(self, task: Task, now: int) -> Any:
            return task.queued     # the ready queue in the order tasks joined it

        def admit(self, task: Task, now: int, least: Callable[[], Task | None]) -> None:
            self.present.append(task)

        def choose(self, ready: Sequence[Task], now: int) -> Task:
            self.present = [task for task in self.present if task.remaining]
            waiting = set(ready)
            running = next((task for task in self.present if task not in waiting), None)
            ordered = sorted(ready, key=lambda task: task.queued)
            answer = program.call(now, tuple(view(task, now) for task in ordered),
                                  view(running, now) if running else None, now, self.memory)
            if answer is None and running is None:
                raise PolicyCodeError("idle", program.last_line, at=at(now), names=", ".join(t.name for t in ordered))
            allowed = {task.name: task for task in ordered}
            if running is not None:
                allowed = {running.name: running, **allowed}
            chosen = checked_name(program, answer, now, ("task", "タスク"), self.names, allowed,
                                  ("ready", "実行可能"))
            self.verdict = None if chosen is running else chosen
            return self.verdict or ordered[0]   # kept: the engine asks preempts(), which says no

        def preempts(self, candidate: Task, running: Task, now: int) -> bool:
            return candidate is self.verdict

    return YourPolicy()


# --- LLM ------------------------------------------------------------------------------------------------

class TenantView:
    """A tenant with waiting requests as your ``choose`` sees it (read-only): ``name``, ``index`` (tenant
    order: the built-in rules' tie-break), ``weight`` (a Fraction), ``since`` (when its current backlog began:
    it went from empty to waiting then), ``waiting`` (requests), ``head_cost``, ``costs`` (every waiting
    request's cost, FIFO order), ``dispatched`` and ``charged`` (requests and cost sent so far)."""
    __slots__ = ("name", "index", "weight", "since", "waiting", "head_cost", "dispatched", "charged", "_router")

    def __init__(self, router: Any, index: int, since: int) -> None:
        spec = router.tenants[index]
        values = (spec.name, index, spec.weight, since, router.waiting(index), router.head_cost(index),
                  router.dispatched[index], router.charged[index], router)
        for slot, value in zip(self.__slots__, values):
            object.__setattr__(self, slot, value)

    @property
    def costs(self) -> tuple[int, ...]:
        return tuple(self._router.queue_costs(self.index))   # computed only when asked: O(queue)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"a tenant view is read-only ({name})")

    def __repr__(self) -> str:
        return f"TenantView({self.name!r}, waiting={self.waiting}, head_cost={self.head_cost})"


def llm_policy(program: Program):
    """A factory of ``schedulers.llm.Policy`` objects (the router builds it) asking ``program`` per dispatch."""
    from .llm.policies import Decision, Policy

    class YourPolicy(Policy):
        name = CUSTOM

        def __init__(self, router: Any) -> None:
            super().__init__(router)
            self.since: dict[int, int] = {}    # waiting tenant -> when its backlog began
            self.names = {tenant.name: tenant.order for tenant in router.tenants}
            self.memory: dict[Any, Any] = {}   # the user's state argument

        def arrive(self, tenant: int, requests: Sequence[int], joined: bool) -> None:
            if joined:
                self.since[tenant] = self.router.tenants[tenant].arrivals[requests[0]]

        def pick(self, now: int) -> Decision:
            waiting = {self.name_of(i): i for i in sorted(self.since)}
            answer = program.call(now, tuple(TenantView(self.router, i, self.since[i]) for i in waiting.values()),
                                  now, self.memory)
            tenant = checked_name(program, answer, now, ("tenant", "テナント"), self.names, waiting,
                                  ("waiting", "待ち"))
            return Decision(tenant, self.router.head(tenant), {"rule": "your choose()"})

        def leave(self, tenant: int) -> None:
            del self.since[tenant]

        def explain(self, now: int, decision: Decision) -> dict[str, str]:
            cost = self.router.tenants[decision.tenant].costs[decision.request]
            return say(MESSAGES, "picked", t=now, tenant=self.name_of(decision.tenant), cost=cost)

    return YourPolicy


# --- the inference engine -------------------------------------------------------------------------------------

class EngineTenantView:
    """A tenant with waiting requests as your engine ``choose`` sees it (read-only): ``name``, ``index`` (tenant
    order: the built-in rules' tie-break), ``weight`` (a Fraction), ``since`` (the iteration its current backlog
    began), ``waiting`` (requests), ``head_input`` (input tokens of its oldest waiting request), ``inputs`` (every
    waiting request's input, FIFO order), ``running`` (its requests in the batch), ``input_tokens`` and
    ``output_tokens`` (admitted and generated so far) and ``service`` (w_in × input_tokens + w_out ×
    output_tokens, exact)."""
    __slots__ = ("name", "index", "weight", "since", "waiting", "head_input", "running", "input_tokens",
                 "output_tokens", "service", "_engine")

    def __init__(self, engine: Any, index: int, since: int) -> None:
        spec = engine.tenants[index]
        values = (spec.name, index, spec.weight, since, engine.waiting(index), engine.head(index).input,
                  engine.running_of[index], engine.input_tokens[index], engine.output_tokens[index],
                  engine.service(index), engine)
        for slot, value in zip(self.__slots__, values):
            object.__setattr__(self, slot, value)

    @property
    def inputs(self) -> tuple[int, ...]:
        return tuple(request.input for request in self._engine.queues[self.index])   # only when asked: O(queue)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"a tenant view is read-only ({name})")

    def __repr__(self) -> str:
        return f"EngineTenantView({self.name!r}, waiting={self.waiting}, head_input={self.head_input})"


def engine_policy(program: Program):
    """A factory of ``schedulers.engine.Policy`` objects (the engine builds it) asking ``program`` per admission;
    each decision records which call of ``program`` made it (``call``: the source view's lines). It keeps the
    token counters as every built-in rule does (shown, never read: choose sees ``service`` instead)."""
    from .engine.policies import Decision, TokenCounting

    class YourPolicy(TokenCounting):
        name = CUSTOM

        def __init__(self, engine: Any) -> None:
            super().__init__(engine)
            self.since: dict[int, int] = {}    # waiting tenant -> the iteration its backlog began
            self.names = {tenant.name: tenant.order for tenant in engine.tenants}
            self.memory: dict[Any, Any] = {}   # the user's state argument

        def join(self, tenant: int) -> None:
            self.since[tenant] = self.engine.head(tenant).arrival

        def pick(self, now: int) -> Decision:
            waiting = {self.engine.tenants[i].name: i for i in self.engine.waiting_tenants()}
            call = len(program.lines)
            answer = program.call(now, tuple(EngineTenantView(self.engine, i, self.since[i])
                                             for i in waiting.values()), now, self.memory)
            tenant = checked_name(program, answer, now, ("tenant", "テナント"), self.names, waiting,
                                  ("waiting", "待ち"))
            return Decision(tenant, {"rule": "your choose()", "call": call})

        def admit(self, running: Any) -> int:
            tenant = running.request.tenant
            if not self.engine.waiting(tenant):
                del self.since[tenant]
            return super().admit(running)

    return YourPolicy


def run(mode: str, scenario: Mapping[str, Any], source: str) -> dict[str, Any]:
    """Run ``scenario`` under the policy in ``source`` (``simulate(mode, scenario, policy_source=source)``): the
    result has ``algorithm`` "custom" and ``custom.lines`` (the lines of your code each call ran, by time).
    Raises ScenarioError (PolicyCodeError for the code, and for any fault of ours while it ran: never a
    traceback)."""
    from .cpu import run as run_cpu
    from .cpu.scenario import read_tasks
    from .engine import run as run_engine
    from .llm import run as run_llm
    if mode not in PARAMETERS:
        raise ScenarioError("mode", f"must be one of {', '.join(PARAMETERS)}, not {describe(mode)}")
    try:
        program = Program(source, mode)
        scenario = {key: value for key, value in mapping(scenario, "scenario").items() if key != "algorithm"}
        if mode == "cpu":
            names = [task.name for task in read_tasks(scenario.get("tasks"))]   # checked again by run
            result = run_cpu(scenario, policy=cpu_policy(program, names))
        elif mode == "engine":
            result = run_engine(scenario, policy=engine_policy(program))
        else:
            result = run_llm(scenario, policy=llm_policy(program))
    except ScenarioError:
        raise
    except Exception as error:   # a fault of ours while your code ran: a message, never a traceback
        raise PolicyCodeError("raised", None, kind=type(error).__name__, detail=str(error)[:200],
                              at={"en": "", "ja": ""}) from None
    result["custom"] = {"lines": program.lines}
    return result


TEMPLATES = {
    "cpu": '''def choose(ready, running, time, state):
    """Return the name of the task to run over [time, time+1).

    ready:   waiting tasks, in the order they joined the queue
             (each has name, index, arrival, burst, remaining,
             ran, waited, deadline, priority, tickets)
    running: the task that ran last and is not finished, or None
    state:   a dict of your own, kept between calls
    """
    if running is not None:
        return running.name      # never preempt: keep it
    return ready[0].name         # first come, first served
''',
    "llm": '''def choose(waiting, time, state):
    """Return the name of the tenant whose oldest request goes next.

    waiting: tenants with waiting requests, in tenant order
             (each has name, index, weight, since, waiting,
             head_cost, costs, dispatched, charged)
    state:   a dict of your own, kept between calls
    """
    # Per-tenant round robin: the next tenant after the last one served.
    last = state.get("last", -1)
    later = [t for t in waiting if t.index > last]
    chosen = later[0] if later else waiting[0]
    state["last"] = chosen.index
    return chosen.name
''',
    "engine": '''def choose(waiting, time, state):
    """Return the name of the tenant whose oldest waiting request
    takes the free slot of the batch at iteration time.

    waiting: tenants with waiting requests, in tenant order
             (each has name, index, weight, since, waiting,
             head_input, inputs, running, input_tokens,
             output_tokens, service)
    state:   a dict of your own, kept between calls
    """
    # The least service per weight so far, ties by tenant order:
    # VTC's choice, without its counter lifts.
    return min(waiting, key=lambda t: (t.service / t.weight, t.index)).name
''',
}
