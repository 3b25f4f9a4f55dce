"""The inference engine's answers to ``schedulers.trace``'s questions about a step and to the quiz's, and the one
only it is asked: each tenant's service so far (``service_so_far``).

Time is the iteration (the loop's docstring, ``batching.py``): arrivals, lifts and admissions happen at the instant
t, a decode step is the iteration t → t+1, an idle step the jump from t to the next arrival.
"""
from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable
from fractions import Fraction

from .. import trace
from ..quiz import Question, ask
from ..trace import Result, Step, Steps

# in an iteration's order; under prefill-decode an iteration's tokens are a prefill or a decode, never both
PHASES = {"initial": -1, "arrive": 0, "lift": 0, "admit": 1, "prefill": 2, "decode": 2, "idle": 3}
GENERATING = frozenset({"decode", "prefill"})   # the steps that are an iteration t → t+1 and generate tokens


def span(step: Step) -> tuple[int | None, int]:
    """``(None, 0)`` for the initial state; ``(t, t + 1)`` for the decode (or prefill) of iteration t, ``(t, u)`` for
    an idle jump from t to the next arrival u, ``(t, t)`` for an arrival, lift or admission at the instant t."""
    kind = step["kind"]
    if kind == "initial":
        return None, 0
    start = step["iteration"]
    return start, start + 1 if kind in GENERATING else step["until"] if kind == "idle" else start


def pending(result: Result, step: int) -> set[str]:
    """The tenants with a request not finished: one finished in iteration f is done from time f + 1."""
    now = span(result["steps"][step])[1]
    return {r["tenant"] for r in result["requests"] if r["finished"] + 1 > now}


def moments(result: Result) -> list[tuple[int, int, int]]:
    """Each step's moment (iteration, phase, admission within it), non-decreasing along the run: an iteration's
    arrivals and lifts, then its admissions one by one, then its decode (then an idle jump)."""
    found: list[tuple[int, int, int]] = []
    for step in result["steps"]:
        phase = PHASES.get(step["kind"], 0)
        start = -1 if phase < 0 else step["iteration"]
        ordinal = found[-1][2] + 1 if phase == 1 and found and found[-1][:2] == (start, 1) else 0
        found.append((start, phase, ordinal))
    return found


def aligner(left: Result, right: Result) -> Callable[[int], int]:
    """An engine run's step -> the step of ``right`` at the same moment: another engine run, the last step not
    later (its same admission of the same iteration, or before); a run of another mode on the same workload (the
    LLM router's, ``engine.llm_scenario``: iteration t is time t), its last step whose time (``trace.span``'s end)
    is not after the iteration's start."""
    mine = moments(left)
    if right["mode"] == left["mode"]:
        theirs = moments(right)
        return lambda step: max(bisect_right(theirs, mine[step]) - 1, 0)
    times = [trace.span(right, k)[1] for k in range(len(right["steps"]))]

    def at(step: int) -> int:
        start = span(left["steps"][step])[0]
        return 0 if start is None else max(bisect_right(times, start) - 1, 0)
    return at


def service_so_far(result: Result, step: int) -> dict[str, Fraction]:
    """Each tenant's service (w_in × input + w_out × output tokens so far) ÷ its weight after ``step``, exactly (a
    compact trace records no service: then every admission and token up to the step is summed)."""
    weights = {t["name"]: Fraction(t["exact"]["weight"]) for t in result["tenants"]}
    now = result["steps"][step]
    if "service" in now:
        exact = now["exact"]["service"]
        return {name: Fraction(exact[name]) / weights[name] for name in weights}
    w_in, w_out = (Fraction(result["parameters"]["exact"][k]) for k in ("w_in", "w_out"))
    service = dict.fromkeys(weights, Fraction(0))
    for earlier in result["steps"][:step + 1]:
        if earlier["kind"] == "admit":
            service[earlier["tenant"]] += w_in * earlier["input"]
        elif earlier["kind"] in GENERATING:
            for name, tokens in earlier["tokens"].items():
                service[name] += w_out * tokens
    return {name: value / weights[name] for name, value in service.items()}


def question(result: Result, step: int) -> Question | None:
    """At an admission: whose request takes the slot? The candidates are the tenants with waiting requests just
    before it (the step before's ``waiting``), in tenant order; the answer is the admitted request's tenant."""
    now, before = result["steps"][step], result["steps"][step - 1]
    if now["kind"] != "admit":
        return None
    candidates = tuple(name for name, queue in before["waiting"].items() if queue)
    return ask(step, now["iteration"], candidates, now["tenant"], now["why"])


STEPS = Steps(span=span, pending=pending, aligner=aligner, question=question)
