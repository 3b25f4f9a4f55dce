"""LLM router mode's views: the dispatch strip, the tenants' queues and meters (or deficits) at a step, the fairness
so far and the results table; Compare's differences over the same dispatches and interval, the quiz's view of the
past, your policy's preview and the exports' chart.

Like ``render`` (whose helpers these use), every function takes the core's result and a step and returns escaped
markup; none of them decides anything about scheduling. The strip is drawn once per run: the pager marks each step's
cells (``strip_mark``).
"""
from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any

import panel as pn

from schedulers.llm.steps import (compare_so_far, dispatched_so_far, dispatches_so_far, fairness_so_far,
                                  meters_at, normalised_so_far, service_so_far)
from schedulers.trace import pending

from ...compare import delta_cell, table
from ...frames import Frames, Mark, Slot, as_work_finishes
from ...panes import pane
from ...render import (bar_row, chip, colour, esc, exact, exact_number, indexes, ink, number, pending_mark,
                       result_columns, results_table, section)
from ...text import label, t
from ..views import Align, Cell, Chart, ModeViews, Result
from .fleet import FleetView, has_replicas, has_servers, request_words


def strip_states(done: int, current: bool) -> tuple[int, int]:
    """The strip after ``done`` dispatches: ``(past, now)``, cells before ``past`` are sent, cell ``now`` is this
    step's dispatch (-1 when the step dispatches nothing), the rest is the future."""
    return (done - 1, done - 1) if current else (done, -1)


def dispatch_strip(result: Mapping[str, Any], step: int, lang: str) -> str:
    where = indexes(result["tenants"])
    past, now = strip_states(dispatched_so_far(result, step), result["steps"][step].get("kind") == "dispatch")
    cells = []
    for n, item in enumerate(result["dispatch"]):
        name = item["tenant"]
        fill = colour(where[name])
        state = "current" if n == now else ("past" if n < past else "future")
        served = "server" in item   # a fleet's dispatch: its actual service and a cancellation are shown too
        label = request_words(item, lang) if served else f'{name} #{item.get("request", 0) + 1}: {item["cost"]}'
        current_mark = ' aria-current="step"' if state == "current" else ""
        cancelled = " cancelled" if item.get("cancelled") else ""
        actual = (f'<span class="cell-actual">→{esc(item["actual"])}</span>'
                  if served and item["actual"] != item["cost"] else "")
        mark = '<span class="cell-cancel">✕</span>' if cancelled else ""
        cells.append(f'<li class="cell {state}{cancelled}" style="background:{fill};color:{ink(fill)}" '
                     f'title="{esc(label)}"{current_mark}><span class="cell-name">{esc(name)}</span>'
                     f'<span class="cell-cost">{esc(item["cost"])}{actual}{mark}</span></li>')
    return section(t(lang, "dispatch"), f'<ol class="strip">{"".join(cells)}</ol>')


def tenant_queues(result: Mapping[str, Any], step: int, lang: str) -> str:
    queues = result["steps"][step].get("queues")
    if queues is None:  # a compact trace (very large runs) records no queues
        return section(t(lang, "queues"), f'<p class="muted">{esc(t(lang, "queues.compact"))}</p>')
    rows = []
    now = result["steps"][step]
    left = now["tenant"] if now["kind"] == "cancel" and not now.get("running") else None   # it left its queue now
    for i, tenant in enumerate(result["tenants"]):
        waiting = queues.get(tenant["name"], [])
        fill = colour(i)
        boxes = "".join(f'<li class="req" style="background:{fill};color:{ink(fill)}">{esc(number(c))}</li>'
                        for c in waiting)
        if tenant["name"] == left:
            words = t(lang, "fleet.withdrawn", tenant=left, request=now["request"])
            boxes += (f'<li class="req cancelled" style="background:{fill};color:{ink(fill)}" title="{esc(words)}">'
                      f'✕ {esc(number(now["cost"]))}</li>')
        empty = f'<span class="muted">{esc(t(lang, "queue.empty"))}</span>'
        listing = f'<ol class="reqs">{boxes}</ol>' if boxes else empty
        rows.append(f'<div class="queue-row">{chip(tenant["name"], i)}{listing}</div>')
    return section(t(lang, "queues"), "".join(rows))



def meters(result: Mapping[str, Any], step: int, lang: str) -> str:
    """SFQ-family meters M_i with the virtual time V as a line; DRR's deficits; nothing for the others."""
    state = result["steps"][step]
    if "meters" in state:   # every tenant's, also in a compact trace (which records only the acting tenant's)
        state = meters_at(result, step)
    values, kind = state.get("meters"), "meters"
    if values is None:
        values, kind = state.get("deficits"), "deficits"
    if not values:
        return section(t(lang, "meters"), f'<p class="muted">{esc(t(lang, "meters.none"))}</p>')
    vtime = state.get("virtual_time") if kind == "meters" else None
    top = max([*values.values(), vtime or 0, 1])
    rows = [bar_row(tenant["name"], i, values[tenant["name"]], top,
                    f'{"M" if kind == "meters" else "D"} = '
                    + exact_number(values[tenant["name"]], exact(state, kind, tenant["name"])), vtime)
            for i, tenant in enumerate(result["tenants"]) if tenant["name"] in values]
    if vtime is not None:
        legend = (f'<p class="muted"><span class="vkey"></span> V = '
                  f'{esc(exact_number(vtime, exact(state, "virtual_time")))}</p>')
    else:
        legend = f'<p class="muted">{esc(t(lang, "deficits"))}</p>'
    return section(t(lang, "meters" if kind == "meters" else "deficits.title"), "".join(rows) + legend)


def fairness(result: Mapping[str, Any], step: int, lang: str) -> str:
    """What holds up to ``step`` (``schedulers.llm.steps.fairness_so_far``: no later dispatch is used): normalised
    cost charged over the longest common-backlog interval so far, Jain's index and the widest gap there; the band,
    checked over the whole run only, is marked ``*`` as the results table marks what the future decides."""
    whole = result.get("fairness") or {}
    fair = fairness_so_far(result, step)
    interval = fair.get("interval")
    upto = f'<p class="muted">{esc(t(lang, "fairness.upto", count=fair["dispatched"]))}</p>'
    lines, rows = [], ""
    if interval:
        increments = fair["increments"]
        top = max([*increments.values(), 1])
        where = indexes(result["tenants"])
        rows = (f'<p>{esc(t(lang, "fairness.interval", start=interval["start"], end=interval["end"],
                                 count=interval["dispatches"]))}</p>'
                f'<p class="label">{esc(t(lang, "fairness.increments"))}</p>'
                + "".join(bar_row(name, where[name], value, top, exact_number(value, exact(fair, "increments", name)))
                          for name, value in increments.items()))
        if fair.get("jain") is not None:
            lines.append(t(lang, "fairness.jain", value=exact_number(fair["jain"], exact(fair, "jain"))))
        bound = fair.get("pairwise_bound")
        if bound:   # with replicas these are the whole system's (the merged dispatches) against one router's 2c̄
            system = has_replicas(result)
            lines.append(t(lang, "fairness.bound.system" if system else "fairness.bound",
                           replicas=len(result["replicas"]) if system else None, gap=number(bound["max_gap"]),
                           bound=number(bound["bound"]), status=t(lang, "holds" if bound["holds"] else "broken")))
        service = fair.get("service")
        if service:   # with servers: what the servers really gave so far, beside what was charged
            given = ", ".join(f"{name} {shown(service, 'increments', name)}" for name in service["increments"])
            lines.append(t(lang, "fairness.service.now", time=service["time"], given=given,
                           gap=shown(service, "difference"), bound=shown(service, "bound"),
                           status=t(lang, "fairness.within" if service["within_bound"] else "fairness.outside")))
        lines += [note[lang] for note in fair["notes"].values()]
    else:   # the core's notes say the same as fairness.none
        lines.append(t(lang, "fairness.none"))
    facts = "".join(f"<li>{esc(line)}</li>" for line in lines)
    whole_run = [t(lang, "fairness.band", width=number(band["width"]), status=t(lang, "holds" if band["holds"]
                                                                                  else "broken"))
                 for band in [whole.get("band")] if band]
    whole_run += fleet_fairness(result, lang)
    facts += "".join(f'<li>{esc(line)}{pending_mark(True, lang, "fairness.whole")}</li>' for line in whole_run)
    legend = f'<p class="muted legend" aria-hidden="true">{esc(t(lang, "fairness.whole"))}</p>' if whole_run else ""
    return section(t(lang, "fairness"), upto + rows + f'<ul class="facts">{facts}</ul>' + legend, "fairness")


def fleet_fairness(result: Mapping[str, Any], lang: str) -> list[str]:
    """With servers, the whole run's figures beside the charged ones: the actual service each compared tenant got
    over the same interval, whose widest gap SFQ does not bound (it charges the estimate); with replicas, the whole
    system's normalised-cost difference against one router's 2c̄."""
    lines = []
    system = result.get("system_difference")
    if system:
        lines.append(t(lang, "fairness.system", replicas=len(result["replicas"]), gap=shown(system, "max_gap"),
                       bound=shown(system, "bound"), status=t(lang, "broken" if system["exceeds"] else "holds")))
        for replica in result["replicas"]:   # a replica of one compared tenant says why it has no gap
            bound, note = replica["fairness"].get("pairwise_bound"), replica["fairness"]["notes"].get("pairwise_bound")
            if bound:
                lines.append(t(lang, "fairness.replica", replica=replica["replica"], gap=shown(bound, "max_gap"),
                               bound=shown(bound, "bound"), status=t(lang, "holds" if bound["holds"] else "broken")))
            elif note:
                lines.append(t(lang, "fairness.replica.none", replica=replica["replica"], note=note[lang]))
    service = (result.get("fairness") or {}).get("service")
    if service:
        lines.append(t(lang, "fairness.service", gap=shown(service, "max_gap"), bound=shown(service, "bound"),
                       status=t(lang, "fairness.within" if service["within_bound"] else "fairness.outside")))
    return lines


LEFT_OUT = ("join",)   # of the core's columns: the table is what each tenant received, the editor shows its join


def metrics_table(result: Mapping[str, Any], step: int, lang: str) -> str:
    left, columns = pending(result, step), result_columns(result, LEFT_OUT)
    rows = [(tenant["name"], i, tenant["name"] in left, [number(tenant.get(c)) for c in columns])
            for i, tenant in enumerate(result["tenants"])]
    return results_table(result, columns, rows, lang)


def strip_mark(result: Result) -> Mark:
    """The dispatch strip at a step: ``[past, current]``, cells before ``past`` sent, ``current`` this step's
    (-1 when the step dispatches nothing); the rest is the future (``strip_states``' rule)."""
    def mark(k: int) -> list[int]:
        return list(strip_states(dispatched_so_far(result, k), result["steps"][k].get("kind") == "dispatch"))
    return mark


def strip_frames(result: Result, name: str, at: Align, total: int, lang: str) -> Frames:
    """The strip as a slot ``name`` drawn once, all future, and its mark of the same name at each of ``total``
    steps (``at``: the step of ``result`` to show); the pager marks the cells. Engine mode's Compare draws the
    router's side with it."""
    strip, marked = dispatch_strip(result, 0, lang), strip_mark(result)
    return Frames(total, {name: lambda k: strip}, {name: lambda k: marked(at(k))}, {name: name})


def shown(figures: Mapping[str, Any], key: str, name: str | None = None) -> str:
    """A fairness figure as the lab writes it: the number, and its exact fraction when it is not whole."""
    value = figures[key] if name is None else figures[key][name]
    return exact_number(value, exact(figures, key, name))


def fraction(value: Fraction) -> str:
    return exact_number(float(value), str(value))


def fairness_diff(left: Result, step: int, right: Result, align: Align, lang: str) -> str:
    """At ``step``, both runs over the same stretch: each tenant's cost ÷ weight over the first dispatches (as
    many in each run), then the fairness figures over the one interval where every tenant waits in both runs
    (``schedulers.llm.steps.compare_so_far``). Cost ÷ weight received has no better side: it is not coloured.
    With servers on either side, both at the same time instead (``fleet_diff``)."""
    if has_servers(left) or has_servers(right):
        return fleet_diff(left, step, right, align(step), lang)
    count = dispatched_so_far(left, step)
    mine, theirs = normalised_so_far(left, count), normalised_so_far(right, count)
    change = [t(lang, "compare.change")]
    received = table(t(lang, "compare.normalised", count=count), label(lang, "tenant"), change,
                     [(name, [delta_cell(float(mine[name]), float(theirs[name]), None,
                                         (fraction(mine[name]), fraction(theirs[name])))]) for name in mine])
    both = compare_so_far(left, step, right)
    interval = both["interval"]
    if interval is None:
        fair = f'<p class="muted compare-none">{esc(t(lang, "compare.interval.none"))}</p>'
    else:
        one, other = both["left"], both["right"]
        rows = [(f'{name}: {label(lang, "normalized")}', [delta_cell(one["increments"][name], other["increments"][name],
                                                                     None, (shown(one, "increments", name),
                                                                            shown(other, "increments", name)))])
                for name in one["increments"]]
        if one["jain"] is not None and other["jain"] is not None:   # undefined while nobody was charged
            rows.append((t(lang, "compare.jain"), [delta_cell(one["jain"], other["jain"], False,
                                                              (shown(one, "jain"), shown(other, "jain")))]))
        gaps = one["pairwise_bound"]["max_gap"], other["pairwise_bound"]["max_gap"]
        rows.append((t(lang, "compare.gap"), [delta_cell(*gaps, True)]))
        fair = table(t(lang, "compare.interval", start=interval["start"], end=interval["end"],
                       count=interval["dispatches"]), t(lang, "compare.metric"), change, rows)
    return received + fair + f'<p class="muted">{esc(t(lang, "compare.like"))}</p>'


def fleet_diff(left: Result, step: int, right: Result, other: int, lang: str) -> str:
    """With servers each run dispatches when its servers free, so the two runs share no stretch of dispatches: at
    the time of ``left``'s ``step`` (``right`` at its step ``other``, the last one by then), each tenant's cost ÷
    weight charged by then and, when both have servers, the actual service ÷ weight given by then (a running request
    counted up to then); then the whole runs' widest gaps, charged and actual, over each run's own interval."""
    now, change = left["steps"][step]["time"], [t(lang, "compare.change")]

    def rows_of(mine: Mapping[str, Fraction], theirs: Mapping[str, Fraction]) -> list[tuple[str, list[str]]]:
        return [(name, [delta_cell(float(mine[name]), float(theirs[name]), None,
                                   (fraction(mine[name]), fraction(theirs[name])))]) for name in mine]
    charged = rows_of(normalised_so_far(left, dispatched_so_far(left, step)),
                      normalised_so_far(right, dispatched_so_far(right, other)))
    at = table(t(lang, "compare.charged.at", t=now), label(lang, "tenant"), change, charged)
    if has_servers(left) and has_servers(right):
        given = rows_of(service_so_far(left, step), service_so_far(right, other, now))
        at += table(t(lang, "compare.service.at", t=now), label(lang, "tenant"), change, given)
    rows = []
    for key, figures in (("compare.gap", lambda r: r["fairness"].get("pairwise_bound")),
                         ("compare.gap.actual", lambda r: r["fairness"].get("service"))):
        one, other = figures(left), figures(right)
        if one and other:
            rows.append((t(lang, key), [delta_cell(one["max_gap"], other["max_gap"], True,
                                                   (shown(one, "max_gap"), shown(other, "max_gap")))]))
    whole = table(t(lang, "compare.whole"), t(lang, "compare.metric"), [t(lang, "compare.change")], rows) if rows \
        else ""
    return at + whole + f'<p class="muted">{esc(t(lang, "compare.fleet"))}</p>'


class LlmViews(ModeViews):
    def step_views(self, lab, stepping) -> list:
        return [stepping.slot("strip"), stepping.slot("state"), stepping.slot("fairness")]

    def step_frames(self, result: Result, lang: str) -> Frames:
        total = len(result["steps"])
        fleet = FleetView(result, lang) if has_servers(result) else None   # its rows above the queues
        slots: dict[str, Slot] = {
            "state": lambda k: ((fleet.rows(k) if fleet else "") + '<div class="grid">' + tenant_queues(result, k, lang)
                                + (fleet.meters(k) if fleet and fleet.replicas else meters(result, k, lang))
                                + "</div>"),
            "fairness": lambda k: fairness(result, k, lang),
            "metrics": as_work_finishes(result, lambda k: metrics_table(result, k, lang))}
        return strip_frames(result, "strip", lambda k: k, total, lang).merged(Frames(total, slots))

    def columns(self, result: Result) -> list[str]:
        return result_columns(result, LEFT_OUT)

    def compare_frames(self, result: Result, owner: str, at: Align, total: int, lang: str,
                       other: Result | None) -> Frames:
        """The strip; with servers, their rows too, both sides on one axis (the later last completion)."""
        built = strip_frames(result, f"{owner}.strip", at, total, lang)
        if not has_servers(result):
            return built
        fleet = FleetView(result, lang)
        end = max(fleet.end, FleetView(other, lang).end if other and has_servers(other) else 0)
        return built.merged(Frames(total, {f"{owner}.servers": lambda k: fleet.rows(at(k), end)}))

    def compare_view(self, result: Result, owner: str, step: int, lab, stepping) -> list:
        servers = [stepping.slot(f"{owner}.servers")] if has_servers(result) else []
        return [stepping.slot(f"{owner}.strip"), *servers]

    def compare_diff(self, left: Result, right: Result, align: Align, lang: str) -> Slot:
        return lambda k: f'<section class="card compare-diff">{fairness_diff(left, k, right, align, lang)}</section>'

    def known_state(self, result: Result, step: int, lang: str, presenter: bool) -> list:
        """The strip so far; with servers, their rows on an axis that ends now; with replicas, each one's meters."""
        past = {**result, "dispatch": dispatches_so_far(result, step)}
        servers, meter_card = "", meters(result, step, lang)
        if has_servers(result):
            fleet = FleetView(result, lang)
            servers = fleet.rows(step, end=fleet.now(step))
            if fleet.replicas:   # each replica's own meters and V, as the step-through shows them
                meter_card = fleet.meters(step)
        return [pane(dispatch_strip(past, step, lang) + servers + '<div class="grid">'
                     + tenant_queues(result, step, lang) + meter_card + "</div>")]

    def preview(self, result: Result, lang: str, presenter: bool):
        last = len(result["steps"]) - 1
        servers = FleetView(result, lang).rows(last) if has_servers(result) else ""
        return pn.Column(pane(dispatch_strip(result, last, lang) + servers + metrics_table(result, last, lang)),
                         sizing_mode="stretch_width")

    def chart(self, result: Result, lang: str) -> Chart:
        """One row per tenant, one cell per dispatch with its cost; with servers, one row per server, a cell per
        request from its start to its end."""
        if has_servers(result):
            where = indexes(result["tenants"])
            rows = [t(lang, "fleet.server", server=k) for k in range(result["servers"])]
            cells = [Cell(d["server"], d["start"], d["end"], d["tenant"], where[d["tenant"]],
                          f'{rows[d["server"]]} · {request_words(d, lang)}') for d in result["dispatch"]]
            return Chart(rows, cells, max((d["end"] for d in result["dispatch"]), default=1))
        names = [tenant["name"] for tenant in result["tenants"]]
        row_of = {name: i for i, name in enumerate(names)}
        cells = [Cell(row_of[d["tenant"]], d["time"], d["time"] + 1, str(d["cost"]), row_of[d["tenant"]], d["tenant"])
                 for d in result["dispatch"]]
        return Chart(names, cells, max((d["time"] + 1 for d in result["dispatch"]), default=1))


VIEWS = LlmViews()
