"""CPU mode's views: the Gantt chart (``gantt.py``), the ready queue, the tasks blocked in I/O, the remaining time and
the events at a step, CFS's and EEVDF's numbers per task, the results table; Compare's whole-run differences, the
quiz's view of the past, your policy's preview and the exports' chart.

Like ``render`` (whose helpers these use), every function takes the core's result and a step and returns escaped
markup; none of them decides anything about scheduling.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import panel as pn

from schedulers import MODES
from schedulers.cpu.steps import span
from schedulers.trace import pending

from ...compare import delta_cell, table
from ...frames import Frames, Mark, Slot, as_work_finishes
from ...panes import pane
from ...render import bar_row, chip, esc, exact, exact_number, number, result_columns, results_table, section
from ...text import label, t
from ..views import Align, Cell, Chart, ModeViews, Result
from . import NAME
from .conventions import FIELD, ConventionsCard
from .gantt import SWITCH, Gantt, cpu_stretches, has_switch_row, places, run_length, stretches

COMPARED = ("waiting", "turnaround", "response")   # Compare's columns: smaller is better


def running_html(running: str | None, switching: str | None, where: Mapping[str, int], nothing: str,
                 lang: str) -> str:
    """What one CPU does in the slice: its task, the switch into one, or nothing."""
    if switching is not None:   # the CPU spends this slice switching into a task
        return f'{esc(t(lang, "running.switch"))} {chip(switching, where[switching])}'
    return chip(running, where[running]) if running is not None else esc(t(lang, nothing))


def ready_queue(step: Mapping[str, Any], where: Mapping[str, int], lang: str) -> str:
    running, switching = step.get("running"), step.get("switch")
    nothing = "running.before" if span(step)[0] is None else "running.none"
    if isinstance(running, list):   # several CPUs: each CPU's task (``switch``: the task each is switching into)
        switching = switching or [None] * len(running)
        # one line, not a list: four CPUs still leave the card short enough for presenter mode's first screen
        run_html = " · ".join(f'<span class="cpu"><span class="label">{esc(t(lang, "gantt.processor", cpu=cpu))}:'
                              f'</span> {running_html(name, into, where, nothing, lang)}</span>'
                              for cpu, (name, into) in enumerate(zip(running, switching)))
        run_html = f'<span class="cpus">{run_html}</span>'
    else:
        run_html = running_html(running, switching, where, nothing, lang)
    body = f'<p><span class="label">{esc(t(lang, "running"))}:</span> {run_html}</p>'
    queues = step.get("queues")
    if queues is not None:   # per-CPU queues: one paragraph as the running tasks' (presenter mode's first screen)
        empty = f'<span class="muted">{esc(t(lang, "ready.empty"))}</span>'
        listing = " · ".join(f'<span class="cpu-queue"><span class="label">{esc(t(lang, "gantt.processor", cpu=cpu))}:'
                             f'</span> {" ".join(chip(name, where[name]) for name in own) or empty}</span>'
                             for cpu, own in enumerate(queues))
        body += f'<p class="cpu-queues"><span class="label">{esc(t(lang, "ready.queues"))}:</span> {listing}</p>'
    else:
        body += f'<p class="label">{esc(t(lang, "ready"))}:</p>{queue_html(step.get("ready"), where, lang)}'
    return section(t(lang, "running") + " / " + t(lang, "ready"), body)


def queue_html(queue: Sequence[str] | None, where: Mapping[str, int], lang: str) -> str:
    """One ready queue in order, or that it is empty (or was not recorded)."""
    if queue is None:
        return f'<p class="muted">{esc(t(lang, "not.recorded"))}</p>'
    if queue:
        return f'<ol class="queue">{"".join(f"<li>{chip(name, where[name])}</li>" for name in queue)}</ol>'
    return f'<p class="muted">{esc(t(lang, "ready.empty"))}</p>'


def has_io(result: Result) -> bool:
    """Some task of the run blocks for I/O (its ``bursts`` say so): the views show who is blocked."""
    return any(task.get("io") for task in result["tasks"])


def blocked_list(step: Mapping[str, Any], where: Mapping[str, int], lang: str) -> str:
    """The tasks in I/O at this step, each with the time it returns to the ready queue (the core's ``blocked``, in
    the order they return)."""
    blocked = step.get("blocked")
    if blocked is None:
        listing = f'<p class="muted">{esc(t(lang, "not.recorded"))}</p>'
    elif blocked:
        listing = "".join(f'<li>{chip(entry["task"], where[entry["task"]])} <span class="until">'
                          f'{esc(t(lang, "blocked.until", t=entry["until"]))}</span></li>' for entry in blocked)
        listing = f'<ul class="queue blocked">{listing}</ul>'
    else:
        listing = f'<p class="muted">{esc(t(lang, "blocked.none"))}</p>'
    return section(t(lang, "blocked"), listing, "blocked-card")


def locks_card(step: Mapping[str, Any], result: Result, lang: str) -> str:
    """Who holds each resource and who waits for it, and each present task's effective priority, as the core's step
    has them during its slice (``holders``, ``waiters``, ``effective``); the protocol and each resource's ceiling;
    at the step a deadlock ends the run, the core's sentence. Empty without sections."""
    resources = result.get("resources")
    if resources is None:
        return ""
    if step.get("holders") is None:
        return section(t(lang, "locks"), f'<p class="muted">{esc(t(lang, "not.recorded"))}</p>', "locks-card")
    where = places(result)
    rows = []
    for resource in resources:
        name = resource["name"]
        holder = step["holders"].get(name)
        held = chip(holder, where[holder]) if holder else f'<span class="muted">{esc(t(lang, "locks.free"))}</span>'
        waiting = " ".join(chip(task, where[task]) for task in step["waiters"].get(name, ())) or \
            f'<span class="muted">{esc(t(lang, "locks.nobody"))}</span>'
        rows.append(f'<tr><th scope="row">{esc(name)}</th><td class="holder">{held}</td>'
                    f'<td class="waiters">{waiting}</td></tr>')
    head = "".join(f'<th scope="col">{esc(t(lang, key))}</th>' for key in ("locks.resource", "locks.holder",
                                                                           "locks.waiters"))
    table = (f'<div class="table-wrap"><table class="metrics locks"><thead><tr>{head}</tr></thead>'
             f'<tbody>{"".join(rows)}</tbody></table></div>')
    raised = []
    for task, donor in step["effective"].items():
        own = donor == task
        said = t(lang, "locks.own") if own else t(lang, "locks.runs_at", task=donor)
        raised.append(f'<li class="{"own" if own else "raised"}">{chip(task, where[task])} {esc(said)}</li>')
    effective = (f'<p class="label">{esc(t(lang, "locks.effective"))}:</p>'
                 f'<ul class="effective">{"".join(raised)}</ul>' if raised else "")
    protocol = t(lang, f'locks.protocol.{result["parameters"]["protocol"]}')
    ceilings = ", ".join(f'{resource["name"]} {resource["ceiling"]}' for resource in resources)
    note = f'<p class="muted legend">{esc(t(lang, "locks.protocol", protocol=protocol, ceilings=ceilings))}</p>'
    stuck = result.get("deadlock")
    alarm = f'<p class="deadlock" role="alert">{esc(stuck["why"][lang])}</p>' \
        if stuck and step.get("decision") == "deadlock" else ""
    return section(t(lang, "locks"), alarm + table + effective + note, "locks-card")


def current_jobs(step: Mapping[str, Any], jobs: Sequence[Mapping[str, Any]]) -> dict[str, str]:
    """Each periodic task's job at this step: its earliest released job with work left (or not dropped yet)."""
    remaining, now, current = step["remaining"], step["time"], {}
    for job in jobs:
        dropped = job["dropped"] and now >= job["deadline"]
        if job["release"] <= now and remaining[job["name"]] > 0 and not dropped:
            current.setdefault(job["task"], job["name"])
    return current


def remaining_bars(step: Mapping[str, Any], tasks: Sequence[Mapping[str, Any]], lang: str,
                   jobs: Sequence[Mapping[str, Any]] = ()) -> str:
    """Each task's remaining time at the step; a periodic task's is its current job's, named."""
    remaining = step.get("remaining")
    if remaining is None:
        return section(t(lang, "remaining"), f'<p class="muted">{esc(t(lang, "not.recorded"))}</p>')
    current = current_jobs(step, jobs) if jobs else {}
    longest = max((task["burst"] for task in tasks), default=1) or 1
    rows = []
    for i, task in enumerate(tasks):
        name = task["name"]
        if "jobs" in task:
            job = current.get(name)
            left = remaining[job] if job else 0
            rows.append(bar_row(name, i, left, longest, f'{job} {left}/{task["burst"]}' if job else "—"))
        else:
            left = remaining.get(name, task["burst"])
            rows.append(bar_row(name, i, left, longest, f'{left}/{task["burst"]}'))
    # With I/O the core's remaining time is the current CPU burst's (what SJF and SRTF read), a row's burst the
    # task's CPU time in all.
    note = f'<p class="muted legend">{esc(t(lang, "remaining.io"))}</p>' if any(task.get("io") for task in tasks) \
        else ""
    return section(t(lang, "remaining"), "".join(rows) + note)



def event_list(step: Mapping[str, Any], lang: str) -> str:
    items = []
    for event in step.get("events") or []:
        kind, task = event.get("kind", ""), event.get("task")
        key = f"event.{kind}"
        values = {name: value for name, value in event.items() if name not in ("kind", "task")}
        try:
            sentence = t(lang, key, **values, task=task if task is not None else "")
        except KeyError:
            sentence = t(lang, "event.other", kind=kind, task=task if task is not None else "")
        items.append(f"<li>{esc(sentence)}</li>")
    if not items:
        return section(t(lang, "events"), f'<p class="muted">{esc(t(lang, "events.none"))}</p>')
    body = f'<ul class="events">{"".join(items)}</ul>'
    return section(t(lang, "events"), body)


def metrics_table(result: Mapping[str, Any], step: int, lang: str) -> str:
    """Every task's figures, its optional fields when a task gives them and whether it missed its deadline (the
    core's columns), the tasks unfinished at ``step`` marked, the averages and the run's summary."""
    tasks, columns = result["tasks"], result_columns(result)
    left = pending(result, step)

    def cell(task: Mapping[str, Any], column: str) -> str:
        if column == "missed":
            return t(lang, "yes" if task.get("missed") else "no") if "deadline" in task else "—"
        return number(task.get(column))

    rows = [(task["name"], i, task["name"] in left, [cell(task, c) for c in columns]) for i, task in enumerate(tasks)]
    averages = MODES[NAME].results.average_row(result)
    foot = [number(averages[c]) if c in averages else "" for c in columns]
    summary = result.get("summary") or {}
    note = ""
    if summary:
        values = {k: number(summary.get(k, "—")) for k in ("makespan", "busy", "idle", "context_switches")}
        note = f'<p class="muted">{esc(t(lang, "summary", **values))}</p>'
    if "cpu_utilisation" in result:   # several CPUs: each one's share of the run, and the migrations
        shares = ", ".join(f'{t(lang, "gantt.processor", cpu=cpu)} {percent(share)}'
                           for cpu, share in enumerate(result["cpu_utilisation"]))
        note += (f'<p class="muted cpu-utilisation">{esc(t(lang, "summary.cpus", shares=shares,
                                                           utilisation=percent(result["utilisation"]),
                                                           migrations=result["migrations"]))}</p>')
    if "steals" in result:   # per-CPU queues
        note += f'<p class="muted cpu-steals">{esc(t(lang, "summary.steals", steals=result["steals"]))}</p>'
    if "switch_time" in result and (result["switch_time"] or "cpu_utilisation" not in result):
        # the switches are counted in the summary's sentence already (several CPUs: their utilisation is above)
        switching = t(lang, "summary.switching", switch_time=result["switch_time"],
                      utilisation=percent(result["utilisation"]))
        note += f'<p class="muted switching">{esc(switching)}</p>'
    return results_table(result, columns, rows, lang, foot, note)


def decimal(value: float) -> str:
    """A share to three places, as the analysis card writes U and the bound: 0.971."""
    return f"{value:.3f}"


def analysis_card(result: Mapping[str, Any], lang: str) -> str:
    """The schedulability tests beside the run (the core's ``analysis``): each task's U_i and its response time and
    verdict under RM and DM, the total U against the Liu-Layland bound and EDF's, and what the run itself shows,
    in one sentence a student can check against the chart. Empty without periodic tasks."""
    analysis = result.get("analysis")
    if not analysis:
        return ""
    verdict = "rm" if result["algorithm"] != "dm" else "dm"   # the exact test of the rule run (RM's for EDF's run)
    u, bound = decimal(analysis["utilisation"]), decimal(analysis["liu_layland_bound"])
    parts = [t(lang, "analysis.under" if analysis["under_liu_layland"] else "analysis.over", u=u, bound=bound)]
    failing = [row["name"] for row in analysis["tasks"] if row["verdict"][verdict] == "misses"]
    parts.append(t(lang, f"analysis.exact.{verdict}", names=", ".join(failing)) if failing
                 else t(lang, f"analysis.exact.{verdict}.meets"))
    parts.append(t(lang, "analysis.edf" if analysis["under_edf_bound"] else "analysis.edf.over"))
    late = [job for job in result["jobs"] if job["missed"]]
    if late:
        shown = [t(lang, "analysis.dropped", job=job["name"]) if job["dropped"] else
                 t(lang, "analysis.late", job=job["name"], by=job["lateness"]) for job in late[:3]]
        parts.append(t(lang, "analysis.run", algorithm=result["algorithm"], jobs=", ".join(shown),
                       more=t(lang, "analysis.more", n=len(late) - 3) if len(late) > 3 else ""))
    else:
        parts.append(t(lang, "analysis.run.meets", algorithm=result["algorithm"]))
    head = "".join(f'<th scope="col">{esc(t(lang, key))}</th>' for key in
                   ("analysis.u", "analysis.r.rm", "analysis.r.dm"))
    where, shares, body = places(result), analysis["exact"]["tasks"], []
    for row in analysis["tasks"]:
        cells = "".join(f'<td class="{row["verdict"][rule]}">{esc(number(row["response_time"][rule]))} '
                        f'({esc(t(lang, "analysis." + row["verdict"][rule]))})</td>' for rule in ("rm", "dm"))
        body.append(f'<tr><th scope="row">{chip(row["name"], where[row["name"]])}</th>'
                    f'<td>{esc(exact_number(row["utilisation"], shares[row["name"]]))}</td>{cells}</tr>')
    table = (f'<div class="table-wrap"><table class="metrics analysis"><thead><tr><th scope="col">'
             f'{esc(label(lang, "task"))}</th>{head}</tr></thead><tbody>{"".join(body)}</tbody></table></div>')
    sentence = t(lang, "analysis.join").join(parts)
    return section(t(lang, "analysis"), f'<p class="verdict">{esc(sentence)}</p>{table}'
                                        f'<p class="muted legend">{esc(t(lang, "analysis.note"))}</p>', "analysis-card")


def percent(share: float) -> str:
    """A share of time as a teacher writes it: 80%, 66.7%."""
    value = 100 * share
    return f"{value:.0f}%" if abs(value - round(value)) < 0.05 else f"{value:.1f}%"


def rule_state(step: Mapping[str, Any], tasks: Sequence[Mapping[str, Any]], lang: str) -> str:
    """The rule's own numbers per task at this step (``Policy.trace_state``: CFS's vruntime and weight, EEVDF's
    lag and virtual deadline too), vruntime as a bar; empty for a rule that keeps none."""
    keys = list(step.get("exact") or {})
    if "vruntime" not in keys:
        return ""
    values = {key: step[key] for key in keys}
    top = max([*values["vruntime"].values(), 1])
    head = "".join(f'<th scope="col">{esc(label(lang, key))}</th>' for key in keys if key != "vruntime")
    rows, bars = [], []
    for i, task in enumerate(tasks):
        name = task["name"]
        if name not in values["vruntime"]:
            continue
        bars.append(bar_row(name, i, values["vruntime"][name], top,
                            "vruntime = " + exact_number(values["vruntime"][name], exact(step, "vruntime", name))))
        cells = "".join(f'<td>{esc(exact_number(values[key].get(name), exact(step, key, name)))}</td>'
                        for key in keys if key != "vruntime")
        rows.append(f'<tr><th scope="row">{chip(name, i)}</th>{cells}</tr>')
    if not bars:
        body = f'<p class="muted">{esc(t(lang, "rule.state.none"))}</p>'
    else:
        body = ("".join(bars) + f'<div class="table-wrap"><table class="metrics rule-state"><thead><tr>'
                f'<th scope="col">{esc(label(lang, "task"))}</th>{head}</tr></thead><tbody>{"".join(rows)}</tbody>'
                f'</table></div><p class="muted legend">{esc(t(lang, "rule.state.note"))}</p>')
    return section(t(lang, "rule.state"), body, "rule-state")


def time_mark(result: Result) -> Mark:
    """The Gantt chart's cursor at a step: the step's time."""
    steps = result["steps"]
    return lambda k: steps[k].get("time", k)


def cursor_mark(owner: str) -> str:
    """The mark a Gantt chart's cursor follows: the lab's own ``time`` on the left (the lab's step), its own mark
    on Compare's right."""
    return "time" if owner in ("lab", "compare.left") else f"{owner}.time"


def whole_run_diff(left: Result, right: Result, lang: str) -> str:
    """The whole runs' results side by side, labelled so: they do not change with the step."""
    columns = [label(lang, m) for m in COMPARED]
    rows = [(a["name"], [delta_cell(a[m], b[m], True) for m in COMPARED])
            for a, b in zip(left["tasks"], right["tasks"])]
    rows.append((t(lang, "compare.average"),
                 [delta_cell(left["averages"][m], right["averages"][m], True) for m in COMPARED]))
    rows.append((t(lang, "compare.switches"), [delta_cell(left["summary"]["context_switches"],
                                                          right["summary"]["context_switches"], True), "", ""]))
    if "switch_time" in left and "switch_time" in right:   # the price of switching, and what is left for the tasks
        rows.append((t(lang, "compare.switch_time"), [delta_cell(left["switch_time"], right["switch_time"], True),
                                                      "", ""]))
        shares = (percent(left["utilisation"]), percent(right["utilisation"]))
        rows.append((t(lang, "compare.utilisation"), [delta_cell(100 * left["utilisation"],
                                                                 100 * right["utilisation"], False, shares), "", ""]))
    if "steals" in left and "steals" in right:   # per-CPU queues: a count, neither better nor worse in itself
        rows.append((t(lang, "compare.steals"), [delta_cell(left["steals"], right["steals"], None), "", ""]))
    return (table(t(lang, "compare.whole"), label(lang, "task"), columns, rows)
            + f'<p class="muted">{esc(t(lang, "compare.diff"))}</p>')


def gantt_pane(result: Result, step: int, owner: str, lang: str, presenter: bool, stepping, by_task: bool = False,
               **kwargs) -> pn.pane.Bokeh:
    """The run's Gantt chart at ``step``, its cursor moved by the pager from then on (as ``owner``'s)."""
    gantt = Gantt(result, lang, presenter, by_task)
    gantt.move(result["steps"][step].get("time", step))
    stepping.follow(owner, cursor_mark(owner), gantt)
    return pn.pane.Bokeh(gantt.plot, sizing_mode="stretch_width", **kwargs)


def several_cpus(parameters: Mapping[str, str]) -> bool:
    """The editor's CPUs field asks for more than one (the queues matter only then)."""
    text = parameters.get("cpus", "").strip()
    return text.isdigit() and int(text) > 1


class CpuViews(ModeViews):
    own_parameters = frozenset({FIELD})
    on_request = ("bursts",)   # a row of four fields and ✕ does not fit a laptop's editor: I/O when asked for
    shown_if = {"queues": several_cpus, "steal": several_cpus}

    def editor_cards(self, lab, errors, keep) -> list:
        if FIELD not in lab.used_parameters():
            return []
        card = keep(("conventions",), lambda: ConventionsCard(lab, errors))
        card.refresh()
        return [card.card]

    def step_views(self, lab, stepping) -> list:
        # Several CPUs: one row per CPU, or (this box) one per task with each slice labelled with its CPU.
        by_task = pn.widgets.Checkbox(name=pn.bind(t, lab.param.lang, "gantt.by_task"), value=False,
                                      visible=pn.bind(lambda result: bool(result) and "timelines" in result,
                                                      lab.param.result), css_classes=["gantt-by-task"])

        def timeline(result: Result | None, lang: str, presenter: bool, rows_per_task: bool):
            if not result or result["mode"] != NAME:   # drawn for this mode's runs only
                stepping.follow("lab", "", None)
                return pane("")
            return gantt_pane(result, lab.step, "lab", lang, presenter, stepping, by_task=rows_per_task,
                              css_classes=["gantt"])
        return [by_task, pn.bind(timeline, lab.param.result, lab.param.lang, lab.param.presenter, by_task),
                stepping.slot("state")]

    def step_frames(self, result: Result, lang: str) -> Frames:
        steps, tasks, io, jobs = result["steps"], result["tasks"], has_io(result), result.get("jobs", ())
        where = places(result)
        slots: dict[str, Slot] = {
            "state": lambda k: ('<div class="grid">' + ready_queue(steps[k], where, lang)
                                + (blocked_list(steps[k], where, lang) if io else "")
                                + locks_card(steps[k], result, lang)
                                + remaining_bars(steps[k], tasks, lang, jobs) + event_list(steps[k], lang)
                                + "</div>"
                                + rule_state(steps[k], tasks, lang)),
            "metrics": as_work_finishes(result, lambda k: metrics_table(result, k, lang)
                                        + analysis_card(result, lang))}
        return Frames(len(steps), slots, {"time": time_mark(result)})

    def columns(self, result: Result) -> list[str]:
        return result_columns(result)

    def compare_frames(self, result: Result, owner: str, at: Align, total: int, lang: str,
                       other: Result | None) -> Frames:
        mark = cursor_mark(owner)
        if mark == "time":   # the lab's own frames move it
            return Frames(total, {})
        times = time_mark(result)
        return Frames(total, {}, {mark: lambda k: times(at(k))})

    def compare_view(self, result: Result, owner: str, step: int, lab, stepping) -> list:
        return [gantt_pane(result, step, owner, lab.lang, lab.presenter, stepping)]

    def compare_diff(self, left: Result, right: Result, align: Align, lang: str) -> Slot:
        diff = f'<section class="card compare-diff">{whole_run_diff(left, right, lang)}</section>'
        return lambda k: diff

    def places(self, result: Result) -> Mapping[str, int]:
        return places(result)   # a periodic task's jobs by their task

    def known_state(self, result: Result, step: int, lang: str, presenter: bool) -> list:
        now, where = result["steps"][step], places(result)
        gantt = Gantt(result, lang, presenter)
        gantt.cover_future(now["time"])
        return [pn.pane.Bokeh(gantt.plot, sizing_mode="stretch_width", css_classes=["quiz-gantt"]),
                pane('<div class="grid">' + ready_queue(now, where, lang)
                     + (blocked_list(now, where, lang) if has_io(result) else "")
                     + locks_card(now, result, lang)   # who holds what decides who may run next
                     + remaining_bars(now, result["tasks"], lang, result.get("jobs", ())) + "</div>")]

    def preview(self, result: Result, lang: str, presenter: bool):
        gantt = Gantt(result, lang, presenter)
        gantt.move(run_length(result))
        return pn.Column(pn.pane.Bokeh(gantt.plot, sizing_mode="stretch_width"),
                         pane(metrics_table(result, len(result["steps"]) - 1, lang)), sizing_mode="stretch_width")

    def chart(self, result: Result, lang: str) -> Chart:
        """One row per task (its I/O pale, marked "I/O"), one for the switches when they take time, one for idle;
        with several CPUs one row per CPU, each slice marked with its task."""
        if "timelines" in result:
            return cpu_chart(result, lang)
        names = [task["name"] for task in result["tasks"]]
        row_of = places(result)
        extra = [t(lang, "chart.switch")] if has_switch_row(result) else []
        idle = len(names) + len(extra)

        def cell(stretch) -> Cell:
            if stretch.kind == "idle":
                return Cell(idle, stretch.start, stretch.end, "", None, t(lang, "chart.idle"))
            who, colour = stretch.task, row_of[stretch.task]
            if stretch.kind == SWITCH:
                return Cell(len(names), stretch.start, stretch.end, "", colour,
                            t(lang, "chart.switch.into", task=who), "hatched")
            if stretch.kind == "io":
                return Cell(colour, stretch.start, stretch.end, t(lang, "chart.io"), colour,
                            f"{who} ({t(lang, 'chart.io')})", "pale")
            return Cell(colour, stretch.start, stretch.end, "", colour, who)
        return Chart([*names, *extra, t(lang, "chart.idle")], [cell(s) for s in stretches(result)],
                     run_length(result))


def cpu_chart(result: Result, lang: str) -> Chart:
    """The exports' chart of several CPUs: one row per CPU, each slice marked with its task (switches hatched)."""
    row_of = {task["name"]: i for i, task in enumerate(result["tasks"])}

    def cell(stretch) -> Cell:
        if stretch.kind == "idle":
            return Cell(stretch.cpu, stretch.start, stretch.end, "", None, t(lang, "chart.idle"))
        if stretch.kind == SWITCH:
            return Cell(stretch.cpu, stretch.start, stretch.end, "", row_of[stretch.task],
                        t(lang, "chart.switch.into", task=stretch.task), "hatched")
        return Cell(stretch.cpu, stretch.start, stretch.end, stretch.task, row_of[stretch.task], stretch.task)
    return Chart([t(lang, "gantt.processor", cpu=cpu) for cpu in range(len(result["timelines"]))],
                 [cell(s) for s in cpu_stretches(result)], run_length(result))


VIEWS = CpuViews()
