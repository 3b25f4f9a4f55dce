"""The router's servers at a step (a scenario with ``servers``): one row per server, each request dispatched so far
a bar from its start to its end or now, in its tenant's colour, a cancelled one marked; a black line marks now.

Like the rest of the views, nothing here decides anything about scheduling: the bars are the core's dispatches
(``server``, ``start``, ``end``, ``actual``, ``cancelled``), what each server holds is the step's own record
(``servers``; in a compact trace, which has none, the latest request sent to it until the step that frees it), and what
a step shows uses nothing after it: a running request's bar ends at the step's time. ``FleetView`` indexes one run
once (each server's requests in order, their ends increasing), so a frame costs O(what it draws).
"""
from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Mapping
from typing import Any

from schedulers.llm.steps import dispatched_so_far, meters_at

from ...render import bar_row, colour, esc, exact, exact_number, indexes, ink, section
from ...text import t

SPAN = 40           # time units the servers' axis spans at most (``axis``): a row is a third of the page wide
NAMED = 5.0   # a bar narrower than this (% of its row) shows no name: it would overflow (its tooltip has it)
MAX_SERVER_ROWS = 48


def has_servers(result: Mapping[str, Any]) -> bool:
    """The run has a fleet (the scenario gave ``servers``): without it the router's views are exactly as before."""
    return "servers" in result


def has_replicas(result: Mapping[str, Any]) -> bool:
    return isinstance(result.get("replicas"), list)


def axis(end: int, now: int) -> tuple[int, int]:
    """The time the rows show at ``now`` of a run ending at ``end``: all of it when it fits in ``SPAN``; else a page
    of ``SPAN`` that moves on by half of it, with now in its second half (bars keep their places for half a page)."""
    if end <= SPAN and now <= SPAN:
        return 0, max(end, now, 1)
    half = SPAN // 2
    low = max(0, (now - 1) // half * half - half)
    return low, low + SPAN


def request_words(item: Mapping[str, Any], lang: str) -> str:
    """"A #2: charged 8, runs 12" (and "cancelled at t=5"): a bar's tooltip and a strip cell's."""
    words = t(lang, "fleet.request", tenant=item["tenant"], request=item["request"], cost=item["cost"],
              actual=item["actual"])
    if item.get("cancelled"):
        words += " · " + t(lang, "fleet.cancelled", t=item["end"])
    return words


class FleetView:
    """One run with servers, indexed for drawing any of its steps."""

    def __init__(self, result: Mapping[str, Any], lang: str) -> None:
        self.result, self.lang = result, lang
        self.steps = result["steps"]
        self.where = indexes(result["tenants"])
        self.servers = result["servers"]
        # Per server, its requests in dispatch order (one at a time): their ends and dispatch numbers increase.
        self.on_server: list[tuple[list[int], list[int]]] = [([], []) for _ in range(self.servers)]
        for order, item in enumerate(result["dispatch"]):
            ends, orders = self.on_server[item["server"]]
            ends.append(item["end"])
            orders.append(order)
        self.by_request = {(item["tenant"], item["request"]): item for item in result["dispatch"]}
        # The step that frees each dispatched request's server (its completion, or its cancellation while running):
        # what a server holds at a step a compact trace does not record (``held``) follows from it.
        self.freed = {(s["tenant"], s["request"]): k for k, s in enumerate(self.steps)
                      if s["kind"] == "complete" or (s["kind"] == "cancel" and s["running"])}
        self.end = max((item["end"] for item in result["dispatch"]), default=1)
        self.replicas = result["replicas"] if has_replicas(result) else []
        self.replica_of = {server: r["replica"] for r in self.replicas for server in r["servers"]}

    def now(self, step: int) -> int:
        return self.steps[step]["time"]

    def rows(self, step: int, end: int | None = None) -> str:
        """The servers at ``step``: the axis ends at ``end`` (default: the run's last completion; ``axis`` pages a
        longer run)."""
        lang, now, dispatch = self.lang, self.now(step), self.result["dispatch"]
        low, high = axis(end if end is not None else self.end, now)
        width = high - low
        sent = dispatched_so_far(self.result, step)
        held = self.steps[step].get("servers") or self.held(step, sent)

        def at(x: int) -> str:
            return f"{100 * (x - low) / width:.2f}%"

        body = []
        for server, (ends, orders) in enumerate(self.on_server[:MAX_SERVER_ROWS]):
            bars = []
            for k in range(bisect_right(ends, low), bisect_left(orders, sent)):   # in the window, so far
                item = dispatch[orders[k]]
                done = item["end"] <= now
                right = item["end"] if done else now
                left = max(item["start"], low)
                fill = colour(self.where[item["tenant"]])
                state = "cancelled" if done and item.get("cancelled") else "done" if done else "runs"
                mark = '<span class="req-cancel" aria-hidden="true">✕</span>' if state == "cancelled" else ""
                wide = 100 * (right - left) / width
                name = f'<span class="req-name">{esc(item["tenant"])}</span>' if wide >= NAMED else ""
                bars.append(f'<span class="req-bar {state}" style="left:{at(left)};width:{wide:.2f}%;'
                            f'background-color:{fill};color:{ink(fill)}" title="{esc(request_words(item, lang))}">'
                            f'{name}{mark}</span>')
            holds = self.holds(held[server], now)
            name = t(lang, "fleet.server", server=server)
            if self.replicas:
                name = t(lang, "fleet.server.replica", server=server, replica=self.replica_of[server])
            body.append(f'<div class="bar-row server-row"><span class="bar-name">'
                        f'{esc(name)}</span><span class="bar-track slot-track">'
                        f'{"".join(bars)}<span class="vline" style="left:{at(now)}"></span></span>'
                        f'<span class="bar-value">{esc(holds)}</span></div>')
        facts = [t(lang, "fleet.axis", start=low, end=high, now=now), t(lang, "fleet.legend")]
        if self.servers > MAX_SERVER_ROWS:
            facts.append(t(lang, "fleet.more", count=self.servers - MAX_SERVER_ROWS))
        legend = "".join(f'<p class="muted">{esc(fact)}</p>' for fact in facts)
        return section(t(lang, "fleet"), "".join(body) + legend, "fleet-servers")

    def meters(self, step: int) -> str:
        """Each replica's meters M_i and V as of its latest step up to ``step`` (a step records its own replica's),
        only for the tenants it receives; the replica that acted at ``step`` is marked."""
        lang, acting = self.lang, self.steps[step]["replica"]
        blocks = []
        for replica in self.replicas:
            state = meters_at(self.result, step, replica["replica"])
            values, vtime = state.get("meters") or {}, state.get("virtual_time")
            shown = [name for name in replica["tenants"] if name in values]
            top = max([*(values[name] for name in shown), vtime or 0, 1])
            rows = "".join(bar_row(name, self.where[name], values[name], top,
                                   "M = " + exact_number(values[name], exact(state, "meters", name)), vtime)
                           for name in shown)
            v = exact_number(vtime, exact(state, "virtual_time"))
            legend = "" if vtime is None else f'<p class="muted"><span class="vkey"></span> V = {esc(v)}</p>'
            heading = t(lang, "fleet.replica", replica=replica["replica"],
                        servers=", ".join(map(str, replica["servers"])))
            mark = f' <span class="kind">{esc(t(lang, "fleet.acting"))}</span>' if replica["replica"] == acting else ""
            blocks.append(f'<div class="replica"><p class="label">{esc(heading)}{mark}</p>{rows}{legend}</div>')
        return section(t(lang, "meters"), "".join(blocks), "replica-meters")

    def held(self, step: int, sent: int) -> list[dict[str, Any] | None]:
        """What each server holds after ``step`` (``sent`` dispatches so far), as a full trace's ``servers`` records
        it: the latest request sent to it, until the step that frees it."""
        dispatch, held = self.result["dispatch"], []
        for _, orders in self.on_server:
            latest = bisect_left(orders, sent) - 1
            item = dispatch[orders[latest]] if latest >= 0 else None
            running = item is not None and self.freed.get((item["tenant"], item["request"]), len(self.steps)) > step
            held.append({"tenant": item["tenant"], "request": item["request"]} if running else None)
        return held

    def holds(self, running: Mapping[str, Any] | None, now: int) -> str:
        """What a server holds at the step, as the step records it: "A #2 3/12" (run so far of its actual), or free."""
        if not running:
            return t(self.lang, "batch.free")
        item = self.by_request[running["tenant"], running["request"]]
        return t(self.lang, "fleet.holds", tenant=item["tenant"], request=item["request"], ran=now - item["start"],
                 actual=item["actual"])
