"""Inference-engine mode's views: the batch slots over the iterations, the waiting queues, the virtual token counters
(with a lift shown), each tenant's service over time, the live fairness bound and the results table; Compare beside
another engine run or beside the LLM router on the same workload (``ROUTER``), the quiz's view of the past, your
policy's preview and the exports' chart.

Like ``render`` (whose helpers these use), every function takes the core's result and a step and returns escaped
markup; none of them decides anything about scheduling. ``EngineView`` indexes one run once (the admissions up to
each step, the requests by tenant), so the pager's frames cost O(size of the frame) a step. What it shows at a step
uses nothing after that step: a running request's bar ends at the step's time, never at its finish, and the quiz
asks for an axis that ends at the step (``end``).
"""
from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Mapping
from fractions import Fraction
from itertools import accumulate
from typing import Any


from schedulers import simulate
from schedulers.engine import llm_scenario
from schedulers.engine.scenario import CONVENTION_FIELDS
from schedulers.engine.policies import POLICIES
from schedulers.llm import MODE as ROUTER_MODE
from schedulers.engine.steps import GENERATING, service_so_far, span
from schedulers.llm.steps import dispatched_so_far, normalised_so_far
from schedulers.trace import pending

from ...compare import delta_cell, table
from ...frames import Frames, Slot, as_work_finishes
from ...panes import pane
from ...render import (bar_row, chip, colour, esc, exact, exact_number, indexes, ink, number, result_columns,
                       results_table, section)
from ...text import label, t
from ..views import Align, Cell, Chart, ModeViews, OtherSide, Result
from . import NAME

MAX_QUEUED = 24        # waiting requests drawn per tenant; the rest are counted
SPAN = 80              # iterations the batch's axis spans at most (``axis``)
MAX_SLOT_ROWS = 48     # slots drawn (up to 1,000 are allowed); the table and the exports have them all
MAX_POINTS = 2_000     # points of all the service lines together (a longer run, or many tenants, are sampled)
CHART_W, CHART_H = 600, 160


def table_columns(result: Mapping[str, Any]) -> list[str]:
    """The core's columns but service ÷ weight (the service chart shows it), and the weight only when a tenant's is
    not 1 (as CPU mode's optional columns)."""
    weighted = any(tenant["weight"] != 1 for tenant in result["tenants"])
    return [c for c in result_columns(result, ("normalized",)) if c != "weight" or weighted]


def axis(end: int, now: int) -> tuple[int, int]:
    """The iterations the batch shows at time ``now`` of a run of ``end`` iterations: all of them when they fit in
    ``SPAN``; else a page of ``SPAN`` that moves on by half of it, with now in its second half (the bars keep
    their places for half a page, so neighbouring frames share them)."""
    if end <= SPAN and now <= SPAN:
        return 0, max(end, now, 1)
    half = SPAN // 2
    low = max(0, (now - 1) // half * half - half)
    return low, low + SPAN


class EngineView:
    """One engine run, indexed for drawing any of its steps."""

    def __init__(self, result: Mapping[str, Any], lang: str) -> None:
        self.result, self.lang = result, lang
        self.steps = result["steps"]
        self.where = indexes(result["tenants"])
        self.requests = {(r["tenant"], r["request"]): r for r in result["requests"]}
        self.requests_in_order = [self.requests[a["tenant"], a["request"]] for a in result["admissions"]]
        # Per slot, its requests in order (a slot holds one at a time): their ends (finish + 1) and admission
        # numbers both increase, so the requests a window of the batch shows are found by bisection.
        self.slot_requests: list[tuple[list[int], list[int]]] = [([], [])
                                                                 for _ in range(result["parameters"]["slots"])]
        for order, request in enumerate(self.requests_in_order):
            ends, orders = self.slot_requests[request["slot"]]
            ends.append(request["finished"] + 1)
            orders.append(order)
        self.admitted = list(accumulate(step["kind"] == "admit" for step in self.steps))
        self.iterations = result["summary"]["iterations"]
        self.full = result["trace"]["level"] == "full"
        self.served = [service_so_far(result, k) for k in range(len(self.steps))] if self.full else []
        self.changes: dict[str, tuple[list[int], list[Any]]] = {name: ([], []) for name in self.where}
        if not self.full:   # tenant -> the steps that changed its counter, and the values
            for k, recorded in enumerate(self.steps):
                for name, value in recorded.get("counters", {}).items():
                    self.changes[name][0].append(k)
                    self.changes[name][1].append(value)
        decodes = (k if step["kind"] in GENERATING else -1 for k, step in enumerate(self.steps))
        self.decoded = list(accumulate(decodes, max))   # the latest decode (or prefill) step up to each step, or -1
        # Under loop prefill-decode an iteration is a prefill or a decode: (iteration, kind) of each, in order
        self.phased = result["parameters"].get("loop") == "prefill-decode"
        self.phases = [(step["iteration"], step["kind"]) for step in self.steps if step["kind"] in GENERATING] \
            if self.phased else []
        self.phases_by = list(accumulate(step["kind"] in GENERATING for step in self.steps))   # how many up to a step

    def now(self, step: int) -> int:
        """The step's time: the end of a decode iteration, else its instant (``schedulers.engine.steps.span``)."""
        return span(self.steps[step])[1]

    # --- the batch ------------------------------------------------------------------------------------------
    def batch(self, step: int, end: int | None = None) -> str:
        """One row per slot; each request admitted so far is a bar from its admission to its finish or now, cut
        into its tokens, in its tenant's colour; a black line marks now. The axis ends at ``end`` (default: the
        run's last iteration; ``axis`` pages a longer one); at most ``MAX_SLOT_ROWS`` slots are drawn. Each bar is
        a chunk of its own (``frames.CHUNK``): a finished bar is sent once for every frame of its page."""
        lang, now = self.lang, self.now(step)
        low, high = axis(end if end is not None else self.iterations, now)
        width = high - low
        admitted = self.admitted[step]

        def at(x: int) -> str:
            return f"{100 * (x - low) / width:.2f}%"

        body = []
        running = {(r["tenant"], r["request"]): r["generated"] for r in self.steps[step].get("slots") or () if r}
        for slot, (ends, orders) in enumerate(self.slot_requests[:MAX_SLOT_ROWS]):
            bars, holds = [], t(lang, "batch.free")
            for k in range(bisect_right(ends, low), bisect_left(orders, admitted)):   # seen in the window, so far
                request = self.requests_in_order[orders[k]]
                done = ends[k] <= now
                right = ends[k] if done else now
                # one token per iteration in the mixed loop; under prefill-decode the trace's own count
                generated = request["output"] if done and self.phased else \
                    running.get((request["tenant"], request["request"]), right - request["admitted"])
                fill = colour(self.where[request["tenant"]])
                label = t(lang, "batch.request", tenant=request["tenant"], request=request["request"],
                          input=request["input"], generated=generated, output=request["output"])
                tokens = f"background-size:{100 / generated:.3f}% 100%;" if generated else ""
                left = max(request["admitted"], low)
                bars.append(f'<span class="req-bar {"done" if done else "runs"}" style="left:{at(left)};'
                            f'width:{100 * (right - left) / width:.2f}%;background-color:{fill};color:{ink(fill)};'
                            f'{tokens}" title="{esc(label)}"><span class="req-name">{esc(request["tenant"])}</span>'
                            '</span>')
                if not done:
                    holds = f'{request["tenant"]} #{request["request"]} {generated}/{request["output"]}'
            body.append(f'<div class="bar-row slot-row"><span class="bar-name">{esc(t(lang, "batch.slot", slot=slot))}'
                        f'</span><span class="bar-track slot-track">{"".join(bars)}'
                        f'<span class="vline" style="left:{at(now)}"></span></span>'
                        f'<span class="bar-value">{esc(holds)}</span></div>')
        if self.phased:
            body.insert(0, self.phase_row(step, low, high))
        facts = [t(lang, "batch.axis", start=low, end=high, now=now)]
        if self.phased:
            facts.append(t(lang, "batch.phases", between=self.result["parameters"]["decodes_between_prefills"]))
        if len(self.slot_requests) > MAX_SLOT_ROWS:
            facts.append(t(lang, "batch.more", count=len(self.slot_requests) - MAX_SLOT_ROWS))
        held = self.steps[step].get("batch_tokens")
        if held is not None:
            memory = self.result["parameters"]["memory"]
            facts.append(t(lang, "batch.held", held=held) if memory is None
                         else t(lang, "batch.memory", held=held, memory=memory))
        legend = "".join(f'<p class="muted">{esc(fact)}</p>' for fact in facts)
        return section(t(lang, "batch"), "".join(body) + legend, "engine-batch")

    def phase_row(self, step: int, low: int, high: int) -> str:
        """Under prefill-decode, a row above the slots: each iteration up to the step, a prefill (only the requests
        just admitted generate; dark) or a decode (only the running ones; light), on the slots' axis."""
        width = high - low
        cells = []
        for iteration, kind in self.phases[:self.phases_by[step]]:
            if low <= iteration < high:
                word = t(self.lang, f"batch.{kind}")
                cells.append(f'<span class="phase-cell {kind}" style="left:{100 * (iteration - low) / width:.2f}%;'
                             f'width:{100 / width:.2f}%" title="t={iteration}: {esc(word)}" '
                             f'aria-label="t={iteration}: {esc(word)}"></span>')
        return (f'<div class="bar-row phase-row"><span class="bar-name">{esc(t(self.lang, "batch.phase"))}</span>'
                f'<span class="bar-track phase-track">{"".join(cells)}</span><span class="bar-value"></span></div>')

    # --- queues and counters --------------------------------------------------------------------------------
    def queues(self, step: int) -> str:
        lang = self.lang
        waiting = self.steps[step].get("waiting")
        if waiting is None:
            return section(t(lang, "queues.tokens"), f'<p class="muted">{esc(t(lang, "queues.compact"))}</p>')
        rows = []
        for i, tenant in enumerate(self.result["tenants"]):
            indices = waiting.get(tenant["name"], [])
            fill = colour(i)
            boxes = []
            for index in indices[:MAX_QUEUED]:
                request = self.requests[tenant["name"], index]
                boxes.append(f'<li class="req" style="background:{fill};color:{ink(fill)}" title="#{index}">'
                             f'{request["input"]}/{request["output"]}</li>')
            if len(indices) > MAX_QUEUED:
                more = t(lang, "queues.more", count=len(indices) - MAX_QUEUED)
                boxes.append(f'<li class="req more">{esc(more)}</li>')
            listing = f'<ol class="reqs">{"".join(boxes)}</ol>' if boxes else \
                f'<span class="muted">{esc(t(lang, "queue.empty"))}</span>'
            rows.append(f'<div class="queue-row">{chip(tenant["name"], i)}{listing}</div>')
        return section(t(lang, "queues.tokens"), "".join(rows), "engine-queues")

    def counters(self, step: int) -> str:
        """Each tenant's counter as a bar; at a lift, a line marks the counter before it and a sentence says so."""
        lang, state = self.lang, self.steps[step]
        title = t(lang, "counters")
        values = self.counters_at(step)
        lift = state.get("lift") if state["kind"] == "lift" else None
        top = max([*values.values(), lift["before"] if lift else 0, 1])
        rows = []
        for name, value in values.items():
            marker = lift["before"] if lift and state["tenant"] == name else None
            rows.append(bar_row(name, self.where[name], value, top,
                                "C = " + exact_number(value, exact(state, "counters", name)), marker))
        rule = POLICIES.get(self.result["algorithm"])   # the rules that admit by counter are those that lift it
        note = "" if rule is not None and rule.lifts else \
            f'<p class="muted">{esc(t(lang, "counters.unread"))}</p>'
        if lift:
            before, after = (exact_number(lift[k], exact(state.get("exact", {}), "lift", k))
                             for k in ("before", "after"))
            key = "counters.lifted" if lift["raised"] else "counters.kept"
            note += f'<p class="lift-note">{esc(t(lang, key, tenant=state["tenant"], before=before, after=after))}</p>'
        return section(title, "".join(rows) + note, "engine-counters")

    def counters_at(self, step: int) -> dict[str, Any]:
        """The counters after ``step``: a full trace records them all at every step; a compact one only those a step
        changed, so each tenant's latest change up to the step (``changes``, by bisection)."""
        if self.full:
            return self.steps[step]["counters"]
        values = {}
        for name, (at, value) in self.changes.items():
            k = bisect_right(at, step) - 1
            values[name] = value[k] if k >= 0 else 0
        return values

    # --- service over time ------------------------------------------------------------------------------------
    def service(self, step: int, end: int | None = None, top: Fraction | None = None) -> str:
        """Each tenant's service ÷ weight at the end of every step so far, as a line over the iterations."""
        lang = self.lang
        if not self.full:
            return section(t(lang, "service"), f'<p class="muted">{esc(t(lang, "not.recorded"))}</p>')
        end = max(end if end is not None else self.iterations, 1)
        served = self.served
        top = float(max(top if top is not None else max(served[-1].values()), *served[step].values(), 1))
        stride = max(1, (step + 1) * len(self.where) // MAX_POINTS)
        picked = sorted({*range(0, step + 1, stride), step})
        lines = []
        for name, i in self.where.items():
            points = " ".join(f"{CHART_W * self.now(k) / end:.1f},{CHART_H * (1 - float(served[k][name]) / top):.1f}"
                              for k in picked)
            lines.append(f'<polyline points="{points}" fill="none" stroke="{colour(i)}" stroke-width="3"/>')
        keys = " ".join(f"{chip(name, i)} {esc(exact_number(float(served[step][name]), str(served[step][name])))}"
                        for name, i in self.where.items())
        keys += f' <span class="muted">({esc(t(lang, "service.axes", top=number(top), end=end))})</span>'
        svg = (f'<svg class="service-chart" viewBox="-4 -4 {CHART_W + 8} {CHART_H + 8}" preserveAspectRatio="none" '
               f'role="img" aria-label="{esc(t(lang, "service"))}"><rect x="0" y="0" width="{CHART_W}" '
               f'height="{CHART_H}" fill="#fafafa" stroke="#ddd"/>{"".join(lines)}</svg>')
        return section(t(lang, "service"), svg + f'<p>{keys}</p>', "engine-service")

    # --- fairness -------------------------------------------------------------------------------------------
    def fairness(self, step: int) -> str:
        """The compared pair's service difference while both wait, against the VTC bound, as of the latest
        iteration up to ``step``."""
        lang, fair = self.lang, self.result["fairness"]
        if fair["compared"] is None:
            return section(t(lang, "fairness"), f'<p class="muted">{esc(t(lang, "fairness.pair.one"))}</p>',
                           "engine-fairness")
        first, second = fair["compared"]
        bound = exact_number(fair["bound"], fair["exact"].get("bound"))
        last = self.decoded[step]
        live = self.steps[last].get("fairness") if last >= 0 else None
        lines = []
        if last >= 0 and last != step:
            lines.append(t(lang, "fairness.pair.before", t=self.steps[last]["iteration"]))
        band = ""
        if live:
            within = abs(Fraction(live["exact"]["gap"])) <= Fraction(fair["exact"]["bound"])
            lines.append(t(lang, "fairness.pair.live", since=live["since"],
                           gap=exact_number(live["gap"], live["exact"]["gap"]),
                           widest=exact_number(live["widest"], live["exact"]["widest"]), bound=bound,
                           status=t(lang, "holds" if within else "broken")))
            half = float(fair["bound"])
            position = 50 + 50 * max(-1.0, min(1.0, float(live["gap"]) / half))
            band = (f'<div class="fair-band" role="img" aria-label="{esc(lines[-1])}"><span class="band-zero"></span>'
                    f'<span class="vline" style="left:{position:.1f}%"></span></div>'
                    f'<p class="muted legend">−{esc(bound)} … 0 … +{esc(bound)} ({esc(first)} − {esc(second)})'
                    '</p>')
        else:
            lines.append(t(lang, "fairness.pair.idle", bound=bound))
        if step == len(self.steps) - 1 and fair["interval"]:   # the end: the whole run's widest, now in the past
            lines.append(t(lang, "fairness.pair.run", gap=exact_number(fair["max_gap"], fair["exact"]["max_gap"]),
                           start=fair["interval"]["start"], end=fair["interval"]["end"], bound=bound,
                           status=t(lang, "holds" if fair["holds"] else "broken")))
        lines.append(t(lang, "fairness.pair.bound", largest=fair["largest_input"], tokens=fair["max_batch_tokens"]))
        facts = "".join(f"<li>{esc(line)}</li>" for line in lines)
        return section(t(lang, "fairness.pair", first=first, second=second), band + f'<ul class="facts">{facts}</ul>',
                       "engine-fairness")

    # --- the whole step and the table ------------------------------------------------------------------------
    def state(self, step: int) -> str:
        return (self.batch(step) + '<div class="grid">' + self.queues(step) + self.counters(step) + "</div>"
                + '<div class="grid">' + self.service(step) + self.fairness(step) + "</div>")

    def metrics(self, step: int) -> str:
        """The whole run per tenant (the weight only when one is not 1, as CPU mode's optional columns), the
        tenants with requests unfinished at ``step`` marked, and the run's summary."""
        lang, result = self.lang, self.result
        left, columns = pending(result, step), table_columns(result)
        rows = [(tenant["name"], i, tenant["name"] in left, [number(tenant[c]) for c in columns])
                for i, tenant in enumerate(result["tenants"])]
        summary = result["summary"]
        occupancy = exact_number(summary["occupancy"], summary["exact"]["occupancy"])
        words = t(lang, "summary.batch", iterations=summary["iterations"], idle=summary["idle"],
                  tokens=summary["tokens"], occupancy=occupancy)
        note = f'<p class="muted">{esc(words)}</p>'
        return results_table(result, columns, rows, lang, note=note)


# --- Compare, the quiz, your policy, the exports -------------------------------------------------------------

ROUTER = "router-sfq"   # Compare's other side beyond the engine's rules: the LLM router under SFQ, same workload


def router_run(scenario: Mapping[str, Any]) -> Result:
    return simulate(ROUTER_MODE.name, llm_scenario(scenario))


def under_preset(preset: str):
    """Compare's other side: the lab's own rule and scenario under one preset of the conventions and nothing else
    (each convention given beside the lab's preset is dropped), e.g. the lab's run beside the VTC artifact's."""
    def run_it(scenario: Mapping[str, Any]) -> Result:
        plain = {k: v for k, v in scenario.items() if k not in CONVENTION_FIELDS}
        return simulate(NAME, {**plain, "conventions": preset})
    return run_it


PRESET_SIDES = {  # Compare's other sides: the same rule under each preset
    "conventions-s-lora": OtherSide({"en": "Same rule, s-lora conventions",
                                     "ja": "同じ規則、s-lora の規約"}, under_preset("s-lora")),
    "conventions-lab": OtherSide({"en": "Same rule, lab conventions",
                                  "ja": "同じ規則、lab の規約"}, under_preset("lab")),
}


def service_diff(left: Result, step: int, right: Result, right_step: int, lang: str) -> str:
    """Service ÷ weight so far on both sides at the same moment (the router's: the cost it charged at dispatch,
    estimated from the true output), uncoloured; for two engine runs, a second table of the whole runs' mean
    latency per tenant and widest gap, labelled so."""
    mine = service_so_far(left, step)
    engines = right["mode"] == left["mode"]
    if engines:
        theirs = service_so_far(right, right_step)
        column = label(lang, "service") + " ÷ " + label(lang, "weight")
    else:
        theirs = normalised_so_far(right, dispatched_so_far(right, right_step))
        column = t(lang, "compare.router.column")
    so_far = table(t(lang, "compare.sofar"), label(lang, "tenant"), [column],
                   [(name, [delta_cell(float(mine[name]), float(theirs[name]), None)]) for name in mine])
    if not engines:
        return so_far + f'<p class="muted">{esc(t(lang, "compare.router.note"))}</p>'
    rows = [(f'{a["name"]}: {label(lang, "mean_latency")}', [delta_cell(a["mean_latency"], b["mean_latency"], True)])
            for a, b in zip(left["tenants"], right["tenants"])]
    gaps = left["fairness"].get("max_gap"), right["fairness"].get("max_gap")
    if None not in gaps:
        rows.append((t(lang, "compare.gap.service"), [delta_cell(*gaps, True)]))
    return (so_far + table(t(lang, "compare.whole"), t(lang, "compare.metric"), [t(lang, "compare.change")], rows)
            + f'<p class="muted">{esc(t(lang, "compare.diff"))}</p>')


class EngineViews(ModeViews):
    compares_with = frozenset({ROUTER_MODE.name})
    other_sides = {ROUTER: OtherSide({"en": "LLM router: SFQ on the same workload",
                                      "ja": "LLM ルーター: 同じ負荷で SFQ"}, router_run), **PRESET_SIDES}

    def step_views(self, lab, stepping) -> list:
        return [stepping.slot("state")]

    def step_frames(self, result: Result, lang: str) -> Frames:
        view = EngineView(result, lang)
        return Frames(len(result["steps"]), {"state": view.state, "metrics": as_work_finishes(result, view.metrics)})

    def columns(self, result: Result) -> list[str]:
        return table_columns(result)

    def compare_frames(self, result: Result, owner: str, at: Align, total: int, lang: str,
                       other: Result | None) -> Frames:
        """Both batches on one axis: the longer run's (the router's run has no iterations)."""
        end = max(result["summary"]["iterations"], (other or {}).get("summary", {}).get("iterations", 0))
        view = EngineView(result, lang)
        return Frames(total, {f"{owner}.batch": lambda k: view.batch(at(k), end)})

    def compare_view(self, result: Result, owner: str, step: int, lab, stepping) -> list:
        return [stepping.slot(f"{owner}.batch")]

    def compare_diff(self, left: Result, right: Result, align: Align, lang: str) -> Slot:
        return lambda k: f'<section class="card compare-diff">{service_diff(left, k, right, align(k), lang)}</section>'

    def known_state(self, result: Result, step: int, lang: str, presenter: bool) -> list:
        """The batch up to now, on an axis that ends now."""
        view = EngineView(result, lang)
        return [pane(view.batch(step, end=view.now(step)) + '<div class="grid">' + view.queues(step)
                     + view.counters(step) + "</div>")]

    def preview(self, result: Result, lang: str, presenter: bool):
        last, view = len(result["steps"]) - 1, EngineView(result, lang)
        return pane(view.batch(last) + view.metrics(last))

    def chart(self, result: Result, lang: str) -> Chart:
        """One row per batch slot, a cell per request in its tenant's colour."""
        row_of = indexes(result["tenants"])
        slots = [t(lang, "batch.slot", slot=k) for k in range(result["parameters"]["slots"])]
        cells = [Cell(r["slot"], r["admitted"], r["finished"] + 1, r["tenant"], row_of[r["tenant"]],
                      f'{slots[r["slot"]]} · {r["tenant"]}') for r in result["requests"]]
        return Chart(slots, cells, result["summary"]["iterations"])


VIEWS = EngineViews()
