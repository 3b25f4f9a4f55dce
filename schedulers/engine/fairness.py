"""The VTC paper's fairness guarantee, measured on a run: two tenants that are always backlogged over an interval
receive service within a bound of each other.

Definitions (all exact):

- The service of tenant f so far, S_f = w_in × input tokens admitted + w_out × output tokens generated; it is
  compared normalised by the tenant's weight, S_f / weight_f (with weights 1, the paper's service).
- f is backlogged in iteration i when it still has a waiting request after i's admissions (so it had one
  throughout the iteration's admissions). A backlogged run of two tenants f, g is a maximal stretch of
  consecutive iterations a..b in which both are backlogged.
- For every interval x..y inside a run, the difference of the service they received in it:
  |(S_f(y) - S_f(x-1)) / weight_f - (S_g(y) - S_g(x-1)) / weight_g|, S(i) being the service by the end of
  iteration i. The widest over all runs is reported with its interval.
- The bound (the VTC paper's, Sheng et al. OSDI 2024, Theorem 4.4): 2 × max(w_in × L, w_out × M), L the largest
  input of any request, M the most tokens a batch can hold. With weights it is max(w_in × L, w_out × M) ×
  (1 / weight_f + 1 / weight_g). M here is the sum of the ``slots`` largest input + output of the scenario's
  requests: ``memory`` only limits admission, and a running request keeps growing past it (this engine never
  preempts), so it bounds nothing once requests are in the batch.
"""
from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING, Any

from ..catalog import json_number
from ..narration import Messages, say

if TYPE_CHECKING:
    from .batching import Engine

NOTES: Messages = {
    "one_tenant": {"en": "one tenant: no pair to compare", "ja": "テナントが 1 つなので、比べる対がありません"},
    "never_backlogged": {"en": "the two tenants are never backlogged in the same iteration",
                         "ja": "2 つのテナントが同じ反復で同時に待つことはありません"},
}


def max_batch_tokens(engine: Engine) -> int:
    """M: the most tokens a batch of ``slots`` requests of this scenario can hold (inputs and all their outputs)."""
    sizes = sorted((r.input + r.output for t in engine.tenants for r in t.requests), reverse=True)
    return sum(sizes[:engine.slots])


class PairBacklog:
    """Follows the compared pair's normalised service difference D = S_f / weight_f - S_g / weight_g (in the
    engine's units) at the end of every iteration; within a run, the widest |D(y) - D(x-1)| is max D - min D
    over the run's values and the one before it, so each iteration is O(1)."""

    def __init__(self, engine: Engine, pair: tuple[int, int] | None) -> None:
        self.engine = engine
        self.pair = pair
        self.runs = 0
        self.previous = (0, -1)                 # (D, iteration) at the end of the last iteration run
        self.open: dict[str, Any] | None = None  # the run in progress: start, base, low, high
        self.widest: tuple[int, int, int] | None = None   # (|gap|, x, y): interval x..y, the widest seen
        self.largest_input = max(r.input for t in engine.tenants for r in t.requests)
        self.tokens = max_batch_tokens(engine)
        if pair is not None:
            f, g = (engine.tenants[i] for i in pair)
            larger = max(engine.w_in * self.largest_input, engine.w_out * self.tokens)
            self.bound = larger * (1 / f.weight + 1 / g.weight)

    def difference(self) -> int:
        f, g = self.pair
        engine = self.engine
        return (engine.units(f, engine.input_tokens[f], engine.output_tokens[f])
                - engine.units(g, engine.input_tokens[g], engine.output_tokens[g]))

    def observe(self, now: int) -> dict[str, Any] | None:
        """Called after iteration ``now``'s decode; returns the live numbers while both are backlogged."""
        if self.pair is None:
            return None
        value = self.difference()
        f, g = self.pair
        if not (self.engine.waiting(f) and self.engine.waiting(g)):
            self.open = None
            self.previous = (value, now)
            return None
        if self.open is None:
            self.runs += 1
            base = self.previous[0]   # D before iteration now: nothing changes in the iterations a jump skips
            self.open = {"start": now, "base": base, "low": (base, now - 1), "high": (base, now - 1)}
        run = self.open
        for extreme in (run["low"], run["high"]):
            gap = abs(value - extreme[0])
            if self.widest is None or gap > self.widest[0]:
                self.widest = (gap, extreme[1] + 1, now)
        run["low"] = min(run["low"], (value, now))
        run["high"] = max(run["high"], (value, now), key=lambda pair: pair[0])
        self.previous = (value, now)
        exact = self.engine.exact
        gap, widest = exact(value - run["base"]), exact(run["high"][0] - run["low"][0])
        return {"since": run["start"], "gap": json_number(gap), "widest": json_number(widest),
                "exact": {"gap": str(gap), "widest": str(widest)}}

    def measure(self) -> dict[str, Any]:
        engine = self.engine
        result: dict[str, Any] = {"compared": None, "bound": None, "largest_input": self.largest_input,
                                  "max_batch_tokens": self.tokens, "runs": self.runs, "interval": None, "max_gap": None,
                                  "holds": None, "notes": {}, "exact": {}}
        if self.pair is None:
            result["notes"]["pair"] = say(NOTES, "one_tenant")
            return result
        result["compared"] = [engine.tenants[i].name for i in self.pair]
        result["bound"], result["exact"]["bound"] = json_number(self.bound), str(self.bound)
        if self.widest is None:
            result["notes"]["interval"] = say(NOTES, "never_backlogged")
            return result
        gap = Fraction(self.widest[0], engine.scale)
        result["interval"] = {"start": self.widest[1], "end": self.widest[2]}
        result["max_gap"], result["exact"]["max_gap"] = json_number(gap), str(gap)
        result["holds"] = gap <= self.bound
        return result
