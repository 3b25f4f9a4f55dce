"""CPU mode against OSTEP's simulators, ``cpu-sched/scheduler.py -c`` and ``cpu-sched-mlfq/mlfq.py -c``, on seeded
random job sets.

    LAB_OSTEP_HOMEWORK=DIR python tests/reference_ostep.py                    the agreement table
    LAB_OSTEP_HOMEWORK=DIR python tests/reference_ostep.py --family mlfq --variant lab --show 3
                                                                              the first disagreements, tick by tick

DIR is a checkout of github.com/remzi-arpacidusseau/ostep-homework. Its scripts are run from there (in this process,
as ``python script.py ARGS`` would run them: ``runpy`` with their own argv; their global ``random`` state is put
back afterwards); nothing of them is stored here. Each job set is given to the reference, whose ``-c`` output is
parsed (the job list and options it printed, every job's response and turnaround, and the timeline: who ran in
each time unit), and converted to a lab scenario, which ``schedulers.simulate("cpu", ...)`` runs; they agree when
the timelines and every job's numbers are equal.

Families: ``fifo``, ``sjf``, ``rr`` (scheduler.py: every job arrives at 0; half the sets drawn by the reference
itself from ``-s/-j/-m``, half given as ``-l``), ``mlfq`` (mlfq.py without I/O: arrivals, 1-4 levels, quanta,
allotments, a boost or none) and ``mlfq-io`` (with I/O: ``ioFreq``, ``-i``, ``-S``, ``-I`` and always a boost; a
third of the sets drawn by mlfq.py from ``-s/-j/-m/-M``). Variants: ``lab`` is the scenario as the lab reads it
today; ``ostep`` adds issue 20's ``conventions: "ostep"``. A job that does I/O becomes issue 20's ``bursts``, and
``-S``/``-I`` its ``io_resets_allotment``/``io_to_front``; a scenario the lab refuses (a key not built yet) counts
as unsupported, not as a disagreement.
"""
from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import random
import re
import runpy
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import reference_bench  # noqa: E402
from schedulers import ScenarioError, simulate  # noqa: E402  (after the path is set)

ENV = "LAB_OSTEP_HOMEWORK"
SCHEDULER, MLFQ = Path("cpu-sched/scheduler.py"), Path("cpu-sched-mlfq/mlfq.py")
FAMILIES = {"fifo": 200, "sjf": 200, "rr": 200, "mlfq": 300, "mlfq-io": 300}   # family: job sets
VARIANTS = ("lab", "ostep")
POLICY = {"fifo": "FIFO", "sjf": "SJF", "rr": "RR"}
ALGORITHM = {"fifo": "fcfs", "sjf": "sjf", "rr": "rr"}


@dataclass
class Reference:
    """What a reference printed with ``-c``: the jobs, the options it ran with, each job's numbers, the timeline
    (one entry per time unit: the job's name, or None when idle) and, per time, what it said happened."""
    jobs: list[dict[str, int]]
    options: dict[str, Any]
    metrics: dict[str, dict[str, int]]
    timeline: list[str | None]
    notes: dict[int, list[str]] = field(default_factory=dict)


# --- the job sets -------------------------------------------------------------------------------------------------

def arguments(family: str, case: int) -> list[str]:
    """The reference's command-line arguments for job set ``case`` of ``family`` (always with ``-c``)."""
    draw = random.Random(f"{family}/{case}")
    if family in POLICY:
        argv = ["-p", POLICY[family]]
        if case % 2 == 0:
            argv += ["-s", str(draw.randint(0, 10**6)), "-j", str(draw.randint(1, 10)), "-m", str(draw.randint(1, 20))]
        else:   # short lengths, so that SJF's ties are frequent
            argv += ["-l", ",".join(str(draw.randint(1, 12)) for _ in range(draw.randint(1, 8)))]
        if family == "rr":
            argv += ["-q", str(draw.randint(1, 5))]
        return argv + ["-c"]
    levels = draw.randint(1, 4)
    if draw.random() < 0.3:   # one quantum and one allotment for every level
        argv = ["-n", str(levels), "-q", str(draw.randint(1, 5)), "-a", str(draw.randint(1, 3))]
    else:
        argv = ["-Q", ",".join(str(draw.randint(1, 5)) for _ in range(levels)),
                "-A", ",".join(str(draw.randint(1, 3)) for _ in range(levels))]
    if family == "mlfq":
        if draw.random() < 0.6:
            argv += ["-B", str(draw.randint(3, 25))]
        return argv + ["-l", job_list(draw, io=False), "-c"]
    argv += ["-B", str(draw.randint(3, 25)), "-i", str(draw.randint(1, 6))]
    argv += ["-S"] * (draw.random() < 0.5) + ["-I"] * (draw.random() < 0.5)
    if case % 3 == 0:   # mlfq.py's own generator: every job at 0, runTime 1..m-1, ioFreq 1..M-1
        argv += ["-s", str(draw.randint(0, 10**6)), "-j", str(draw.randint(1, 5)), "-m", str(draw.randint(2, 25)),
                 "-M", str(draw.randint(2, 8))]
    else:
        argv += ["-l", job_list(draw, io=True)]
    return argv + ["-c"]


def job_list(draw: random.Random, io: bool) -> str:
    """mlfq.py's ``-l`` text, ``start,run,ioFreq:...``: 1-6 jobs, starts in 0..20 (many at 0), runs 1..20; with
    ``io``, ioFreq 0 (never) or 1..6, and at least one job that really blocks (ioFreq < run)."""
    jobs = []
    for _ in range(draw.randint(1, 6)):
        run = draw.randint(1, 20)
        frequency = draw.choice([0, draw.randint(1, 6)]) if io else 0
        jobs.append([draw.choice([0, draw.randint(0, 20)]), run, frequency])
    if io and not any(0 < frequency < run for _, run, frequency in jobs):
        jobs[0][1:] = [max(jobs[0][1], 2), draw.randint(1, max(jobs[0][1], 2) - 1)]
    return ":".join(",".join(map(str, job)) for job in jobs)


# --- running and reading a reference --------------------------------------------------------------------------------

def run_script(path: Path, argv: list[str]) -> str:
    """The script's standard output for ``python path argv``, run in this process."""
    out, saved_argv, saved_random = io.StringIO(), sys.argv, random.getstate()
    sys.argv = [str(path), *argv]
    try:
        with contextlib.redirect_stdout(out):
            runpy.run_path(str(path), run_name="__main__")
    except SystemExit as stop:
        if stop.code not in (None, 0):
            raise RuntimeError(f"{path.name} {' '.join(argv)} exited with {stop.code}: {out.getvalue()[-300:]}") \
                from None
    finally:
        sys.argv = saved_argv
        random.setstate(saved_random)
    return out.getvalue()


JOB_LENGTH = re.compile(r"^\s+Job (\d+) \( length = ([\d.]+) \)$", re.MULTILINE)
RUN_FOR = re.compile(r"^\s+\[ time +([\d.]+) \] Run job +(\d+) for ([\d.]+) secs", re.MULTILINE)
JOB_STATS = re.compile(r"^\s+Job +(\d+) -- Response: ([\d.]+) +Turnaround ([\d.]+) +Wait ([\d.]+)$", re.MULTILINE)


def parse_scheduler(text: str) -> Reference:
    """scheduler.py -c: ``Job N ( length = L )`` lines, the execution trace (``[ time T ] Run job N for S secs``,
    each a stretch of S units) and ``Job N -- Response: R  Turnaround T  Wait W``."""
    jobs = [{"job": int(job), "arrival": 0, "run": round(float(length))} for job, length in JOB_LENGTH.findall(text)]
    timeline: list[str | None] = []
    for start, job, length in RUN_FOR.findall(text):
        if round(float(start)) != len(timeline):
            raise ValueError(f"the trace jumps from {len(timeline)} to {start}")
        timeline += [job] * round(float(length))
    metrics = {job: {"response": round(float(r)), "turnaround": round(float(t)), "waiting": round(float(w))}
               for job, r, t, w in JOB_STATS.findall(text)}
    policy = re.search(r"^ARG policy (\S+)$", text, re.MULTILINE)
    if policy is None or not timeline or not metrics:
        raise ValueError("not the output of scheduler.py -c")
    return Reference(jobs, {"policy": policy.group(1)}, metrics, timeline)


MLFQ_JOB = re.compile(r"^\s+Job +(\d+): startTime +(\d+) - runTime +(\d+) - ioFreq +(\d+)$", re.MULTILINE)
MLFQ_LEVEL = re.compile(r"^OPTIONS (allotments|quantum length) for queue +(\d+) is +(\d+)$", re.MULTILINE)
MLFQ_OPTION = re.compile(r"^OPTIONS (queues|boost|ioTime|stayAfterIO|iobump) (\S+)$", re.MULTILINE)
MLFQ_EVENT = re.compile(r"^\[ time (\d+) \] (.*)$", re.MULTILINE)
MLFQ_RUN = re.compile(r"Run JOB (\d+) at PRIORITY (\d+) \[ TICKS (-?\d+) ALLOT (-?\d+) TIME (\d+) \(of (\d+)\) \]")
MLFQ_STATS = re.compile(r"^\s+Job +(\d+): startTime +(\d+) - response +(-?\d+) - turnaround +(-?\d+)$", re.MULTILINE)


def parse_mlfq(text: str) -> Reference:
    """mlfq.py -c: its ``OPTIONS`` lines (queue numbers count up from the bottom, so the lab's level of queue q is
    queues - 1 - q), the ``Job List``, the ``[ time T ] ...`` lines (``Run JOB j at PRIORITY p [ TICKS ... ]`` is the
    unit [T, T+1); ``IDLE`` an idle unit; the rest are events at T) and the final ``Job j: ... response R -
    turnaround T`` lines."""
    options: dict[str, Any] = {}
    for key, value in MLFQ_OPTION.findall(text):
        options[key] = value == "True" if value in ("True", "False") else int(value)
    if "queues" not in options:
        raise ValueError("not the output of mlfq.py -c")
    levels = options["queues"]
    per_level: dict[str, list[int]] = {"allotments": [0] * levels, "quantum length": [0] * levels}
    for key, queue, value in MLFQ_LEVEL.findall(text):
        per_level[key][levels - 1 - int(queue)] = int(value)
    options.update(quanta=per_level["quantum length"], allotment=per_level["allotments"])
    jobs = [{"job": int(j), "arrival": int(s), "run": int(r), "io_every": int(f)}
            for j, s, r, f in MLFQ_JOB.findall(text)]
    timeline: list[str | None] = []
    notes: dict[int, list[str]] = {}
    for time, what in MLFQ_EVENT.findall(text.split("Execution Trace:", 1)[-1]):
        time = int(time)
        run = MLFQ_RUN.fullmatch(what)
        if run or what == "IDLE":
            if time != len(timeline):
                raise ValueError(f"the trace jumps from {len(timeline)} to {time}")
            timeline.append(run.group(1) if run else None)
            if run:
                job, priority, ticks, allot = run.groups()[:4]
                what = f"run {job} at level {levels - 1 - int(priority)}, ticks {ticks}, allot {allot}"
        notes.setdefault(time, []).append(what)
    metrics = {job: {"response": int(r), "turnaround": int(t)} for job, _, r, t in MLFQ_STATS.findall(text)}
    if len(metrics) != len(jobs):
        raise ValueError("mlfq.py printed no final statistics")
    return Reference(jobs, options, metrics, timeline, notes)


# --- the lab's scenario ---------------------------------------------------------------------------------------------

def bursts(run: int, every: int, io_time: int) -> list[int]:
    """mlfq.py's job as CPU and I/O bursts: it blocks for io_time each time its CPU used so far is a multiple of
    ``every``, except when that is its whole run (it finishes instead)."""
    if every <= 0 or every >= run:
        return [run]
    blocks = (run - 1) // every
    return [every, io_time] * blocks + [run - blocks * every]


def scenario(family: str, reference: Reference) -> dict[str, Any]:
    """The job set as the lab's JSON, in issue 20's terms where the lab lacks them today."""
    if family in ALGORITHM:
        result: dict[str, Any] = {"algorithm": ALGORITHM[family],
                                  "tasks": [{"name": str(j["job"]), "arrival": 0, "burst": j["run"]}
                                            for j in reference.jobs]}
        if family == "rr":
            result["quantum"] = reference.options["quantum"]   # not printed by scheduler.py: from its -q
        return result
    options = reference.options
    tasks = []
    for job in reference.jobs:
        shape = bursts(job["run"], job["io_every"], options["ioTime"])
        task = {"name": str(job["job"]), "arrival": job["arrival"]}
        task.update({"burst": shape[0]} if len(shape) == 1 else {"bursts": shape})
        tasks.append(task)
    result = {"algorithm": "mlfq", "levels": options["queues"], "quanta": options["quanta"],
              "allotment": options["allotment"], "tasks": tasks}
    if options["boost"] > 0:
        result["boost"] = options["boost"]
    blocking = any("bursts" in task for task in tasks)
    if blocking and options["stayAfterIO"]:
        result["io_resets_allotment"] = True
    if blocking and options["iobump"]:
        result["io_to_front"] = True
    return result


# --- the rules as written: a model of MLFQ with I/O and issue 20's three conventions --------------------------------

# Issue 20's three flags: (a) arrival_before_requeue, (b) boost_after_arrivals, (c) boost_order.
CONVENTIONS = {"lab": {"arrival_before_requeue": True, "boost_after_arrivals": True, "boost_order": "top-first",
                       "ostep": False},
               "ostep": {"arrival_before_requeue": False, "boost_after_arrivals": False,
                         "boost_order": "bottom-first", "ostep": True}}


def model_mlfq(scenario: dict[str, Any], conventions: dict[str, Any]) -> dict[str, Any]:
    """MLFQ on a lab scenario (issue 20's JSON: ``bursts``, ``io_resets_allotment``, ``io_to_front``) by the rules
    the spec states, in the lab's terms (level 0 is the top), so that the spec can be checked against mlfq.py and
    against the lab. Returns ``{"timeline", "tasks"}`` like the lab's result.

    Time units [t, t+1) run the head of the highest non-empty level. At the end of a unit, for the task that ran:
    it completes if its last CPU burst is done; else, if its CPU burst is done, it blocks until t + io (with
    ``io_resets_allotment`` its quantum and allotment at its level become full); then, if its quantum (as it was
    before that reset) is used up, its allotment drops by one: at 0 it moves down a level (the bottom keeps it) with
    a full quantum and allotment there, else it gets a full quantum; a task that did not block goes to the tail of
    its level. A task whose quantum is not used up stays at the head of its level. At the instant t: the boost (every
    ``boost`` units, never at 0) moves every ready task to the top (``boost_order``: "top-first" takes the levels
    from the top down, "bottom-first" keeps the top level in front and then takes the levels from the bottom up) and
    gives every unfinished task, blocked ones included, the top level with a full quantum and allotment; arrivals
    join the tail of the top level in input order, then I/O returns the tail of their level (``io_to_front``: its
    front, ahead of a task running there). ``arrival_before_requeue`` requeues an expired task after the instant's
    arrivals instead of at the end of its unit; ``boost_after_arrivals`` boosts after them instead of before.
    Those are mlfq.py's rules that are no flag (``ostep``); without them, as docs/cpu.md states the lab's: arrivals
    and returns of one instant join in input order, ``io_to_front`` puts a return behind the task running at its
    level, and with ``io_resets_allotment`` blocking exactly as the quantum ends is an expiry (no fresh allotment)."""
    levels, quanta, allotment = scenario["levels"], scenario["quanta"], scenario["allotment"]
    boost = scenario.get("boost")
    stay, to_front = scenario.get("io_resets_allotment", False), scenario.get("io_to_front", False)
    tasks = [{"name": t["name"], "arrival": t["arrival"], "bursts": t.get("bursts", [t.get("burst")]), "phase": 0,
              "left": t.get("bursts", [t.get("burst")])[0], "level": 0, "quantum": quanta[0],
              "allotment": allotment[0], "first_run": None, "completion": None} for t in scenario["tasks"]]
    queues: list[list[dict[str, Any]]] = [[] for _ in range(levels)]
    arriving: dict[int, list[dict[str, Any]]] = {}
    for task in tasks:
        arriving.setdefault(task["arrival"], []).append(task)
    returning: dict[int, list[dict[str, Any]]] = {}
    timeline: list[str | None] = []
    expired = None   # under arrival_before_requeue: the task whose quantum ended at t, requeued after t's arrivals
    unfinished, t = len(tasks), 0
    running = None   # the task that ran the last unit and is still at the head of its level

    def full(task: dict[str, Any], level: int) -> None:
        task.update(level=level, quantum=quanta[level], allotment=allotment[level])

    def boost_now() -> None:
        if not boost or t == 0 or t % boost:
            return
        if conventions["boost_order"] == "top-first":
            order = [task for queue in queues for task in queue]
        else:
            order = queues[0] + [task for queue in reversed(queues[1:]) for task in queue]
        for queue in queues:
            queue.clear()
        queues[0].extend(order)
        for task in tasks:
            if task["completion"] is None:
                full(task, 0)

    while unfinished:
        if not conventions["boost_after_arrivals"]:
            boost_now()
        joining = [(task, True) for task in arriving.pop(t, [])] + [(task, False) for task in returning.pop(t, [])]
        if not conventions["ostep"]:
            joining.sort(key=lambda entry: tasks.index(entry[0]))
        for task, arrives in joining:
            queue = queues[0 if arrives else task["level"]]
            if arrives or not to_front:
                queue.append(task)
            else:   # mlfq.py: ahead of the task running at its level; the lab: behind it
                queue.insert(0 if conventions["ostep"] or not queue or queue[0] is not running else 1, task)
        running = None
        if expired is not None:
            queues[expired["level"]].append(expired)
            expired = None
        if conventions["boost_after_arrivals"]:
            boost_now()
        level = next((k for k, queue in enumerate(queues) if queue), None)
        if level is None:
            timeline.append(None)
            t += 1
            continue
        task = running = queues[level][0]
        timeline.append(task["name"])
        task["first_run"] = t if task["first_run"] is None else task["first_run"]
        t += 1
        task["left"] -= 1
        task["quantum"] -= 1
        quantum_over = task["quantum"] == 0
        if task["left"] == 0 and task["phase"] == len(task["bursts"]) - 1:
            task["completion"] = t
            queues[level].pop(0)
            unfinished -= 1
            continue
        blocked = task["left"] == 0
        if blocked:
            queues[level].pop(0)
            returning.setdefault(t + task["bursts"][task["phase"] + 1], []).append(task)
            task["phase"] += 2
            task["left"] = task["bursts"][task["phase"]]
            if stay and (conventions["ostep"] or not quantum_over):
                full(task, level)
        if quantum_over:
            task["allotment"] -= 1
            if task["allotment"] == 0:
                full(task, min(level + 1, levels - 1))
            else:
                task["quantum"] = quanta[level]
            if not blocked:
                running = None
                queues[level].pop(0)
                if conventions["arrival_before_requeue"]:
                    expired = task
                else:
                    queues[task["level"]].append(task)
    return {"timeline": timeline,
            "tasks": [{"name": task["name"], "response": task["first_run"] - task["arrival"],
                       "turnaround": task["completion"] - task["arrival"]} for task in tasks]}


# --- the comparison -------------------------------------------------------------------------------------------------

@dataclass
class Case:
    family: str
    case: int
    argv: list[str]
    reference: Reference
    scenario: dict[str, Any]

    def command(self) -> str:
        script = SCHEDULER if self.family in POLICY else MLFQ
        return f"python3 {script} " + " ".join(f"'{a}'" if ":" in a or "," in a else a for a in self.argv)


def reference_case(directory: Path, family: str, case: int) -> Case:
    argv = arguments(family, case)
    if family in POLICY:
        reference = parse_scheduler(run_script(directory / SCHEDULER, argv))
        reference.options["quantum"] = int(argv[argv.index("-q") + 1]) if "-q" in argv else 1
    else:
        reference = parse_mlfq(run_script(directory / MLFQ, argv))
    return Case(family, case, argv, reference, scenario(family, reference))


def lab_scenario(case: Case, variant: str) -> dict[str, Any]:
    return {**case.scenario, "conventions": "ostep"} if variant == "ostep" else case.scenario


def mismatches(case: Case, result: dict[str, Any]) -> list[str]:
    """How the lab's result differs from the reference's (empty: they agree)."""
    found = []
    theirs = case.reference.timeline
    ours = [entry if not isinstance(entry, dict) else f"switch to {entry.get('switch')}"
            for entry in result["timeline"]]
    if ours != theirs:
        at = next((t for t, (a, b) in enumerate(zip(ours, theirs)) if a != b), min(len(ours), len(theirs)))
        found.append(f"timeline differs from t={at}: lab {show(ours[at:at + 12])}, "
                     f"reference {show(theirs[at:at + 12])}")
    rows = {row["name"]: row for row in result["tasks"]}
    for job, numbers in case.reference.metrics.items():
        row = rows.get(job, {})
        wrong = [f"{key} lab {row.get(key)} reference {value}" for key, value in numbers.items()
                 if row.get(key) != value]
        if wrong:
            found.append(f"job {job}: " + ", ".join(wrong))
    return found


def show(timeline: list[str | None]) -> str:
    return " ".join("-" if entry is None else entry for entry in timeline) or "(end)"


def tally(directory: Path, family: str, cases: int | None = None) -> dict[str, Any]:
    """Agreements on the family's job sets: of the lab, per variant, with the reference ({"lab": {"agree",
    "disagree", "unsupported", "first"}, "ostep": ...}); for MLFQ also of the model with the ostep conventions with
    the reference ("model ostep") and of the model with the lab's conventions with the lab ("model lab")."""
    counts = {variant: {"agree": 0, "disagree": 0, "unsupported": 0, "first": []} for variant in VARIANTS}
    if family not in POLICY:
        counts.update({"model ostep": {"agree": 0, "disagree": 0, "unsupported": 0},
                       "model lab": {"agree": 0, "disagree": 0, "unsupported": 0}})
    for number in range(FAMILIES[family] if cases is None else cases):
        case = reference_case(directory, family, number)
        results: dict[str, dict[str, Any]] = {}
        for variant in VARIANTS:
            entry = counts[variant]
            try:
                results[variant] = simulate("cpu", lab_scenario(case, variant), trace=False)
            except ScenarioError as error:
                entry["unsupported"] += 1
                entry.setdefault("reason", str(error))
                continue
            found = mismatches(case, results[variant])
            entry["agree" if not found else "disagree"] += 1
            if found and len(entry["first"]) < 3:
                entry["first"].append({"case": number, "command": case.command(), "differences": found})
        if family in POLICY:
            continue
        model = model_mlfq(case.scenario, CONVENTIONS["ostep"])
        counts["model ostep"]["agree" if not mismatches(case, model) else "disagree"] += 1
        if "lab" not in results:
            counts["model lab"]["unsupported"] += 1
            continue
        model, ours = model_mlfq(case.scenario, CONVENTIONS["lab"]), results["lab"]
        same = model["timeline"] == ours["timeline"] and all(
            (m["response"], m["turnaround"]) == (o["response"], o["turnaround"])
            for m, o in zip(model["tasks"], ours["tasks"]))
        counts["model lab"]["agree" if same else "disagree"] += 1
    return counts


def cell(entry: dict[str, Any], cases: int) -> str:
    text = f"{entry['agree']:>3}/{cases} agree, {entry['disagree']:>3} disagree"
    return text + (f", {entry['unsupported']:>3} unsupported" if entry["unsupported"] else "")


def table_line(family: str, counts: dict[str, Any], cases: int) -> str:
    sides = [f"{variant}: {cell(counts[variant], cases)}" for variant in VARIANTS]
    sides += [f"{side}: {counts[side]['agree']}/{cases - counts[side]['unsupported']}"
              for side in ("model ostep", "model lab") if side in counts]
    return f"{family:<8} " + "   ".join(sides)


def is_checkout(directory: str | None) -> bool:
    return bool(directory) and all((Path(directory) / script).is_file() for script in (SCHEDULER, MLFQ))


def bench() -> dict[str, Any]:
    """The bench's part: the agreement table, or one line saying it was not measured."""
    directory = os.environ.get(ENV)
    figures = reference_bench.part(
        "ostep: CPU mode against OSTEP's scheduler.py -c and mlfq.py -c on seeded random job sets. lab: the scenario "
        "as the lab reads it today; ostep: with conventions \"ostep\"; model ostep/lab: the spec's rules as code "
        "(reference_ostep.model_mlfq) with the ostep conventions against mlfq.py, with the lab's against the lab",
        None if is_checkout(directory) else reference_bench.not_measured(
            "OSTEP's simulators", ENV, directory, f"lacks {SCHEDULER} or {MLFQ}",
            "point it to a checkout of github.com/remzi-arpacidusseau/ostep-homework"),
        FAMILIES, lambda family: tally(Path(directory), family),
        lambda family, counts: table_line(family, counts, FAMILIES[family]))
    reasons = {entry["reason"] for counts in figures.values() if isinstance(counts, dict)
               for entry in counts.values() if "reason" in entry}
    for reason in sorted(reasons):
        print(f"  unsupported: {reason}", flush=True)
    return figures


def explain(case: Case, variant: str) -> str:
    """One disagreement in full: the command, the scenario, the differences, and the two timelines side by side
    around the first tick that differs, with what each side said happened."""
    try:
        result = simulate("cpu", lab_scenario(case, variant))
    except ScenarioError as error:
        return f"--- {case.family} #{case.case}: the lab refuses it: {error}\n    {case.command()}"
    found = mismatches(case, result)
    if not found:
        return ""
    lines = [f"--- {case.family} #{case.case} ({variant}): {case.command()}",
             "    lab scenario: " + json.dumps(lab_scenario(case, variant)), *("    " + text for text in found)]
    ours, theirs = result["timeline"], case.reference.timeline
    first = next((t for t, (a, b) in enumerate(zip(ours, theirs)) if a != b), min(len(ours), len(theirs)))
    lab_events: dict[int, list[str]] = {}
    for step in result["steps"]:
        for happened in step.get("events", []):
            lab_events.setdefault(happened["time"], []).append(
                f"{happened['kind']} {happened.get('task') or ''}".strip()
                + (f" (level {happened['level']})" if "level" in happened else ""))
    lines.append(f"    {'t':>4}  {'lab':<6} {'reference':<10} lab events | reference says")
    for t in range(max(0, first - 4), min(max(len(ours), len(theirs)), first + 10)):
        mark = "*" if t < len(ours) and t < len(theirs) and ours[t] == theirs[t] else "!"
        lab_at = ours[t] if t < len(ours) else "(end)"
        ref_at = theirs[t] if t < len(theirs) else "(end)"
        lines.append(f"  {mark} {t:>4}  {str(lab_at or '-'):<6} {str(ref_at or '-'):<10} "
                     f"{'; '.join(lab_events.get(t, []))} | {'; '.join(case.reference.notes.get(t, []))}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--family", choices=list(FAMILIES), action="append",
                        help="only this family (repeatable; default: all)")
    parser.add_argument("--variant", choices=VARIANTS, default="lab", help="which lab run to diff (default lab)")
    parser.add_argument("--show", type=int, default=0, help="print the first K disagreements tick by tick")
    parser.add_argument("--cases", type=int, help="job sets per family (default: the bench's)")
    args = parser.parse_args(argv)
    directory = os.environ.get(ENV)
    if not is_checkout(directory):
        parser.error(f"{ENV} must name a checkout of github.com/remzi-arpacidusseau/ostep-homework (with {SCHEDULER} "
                     f"and {MLFQ}), not {directory!r}")
    for family in args.family or list(FAMILIES):
        cases = FAMILIES[family] if args.cases is None else args.cases
        if args.show:
            shown = 0
            for number in range(cases):
                text = explain(reference_case(Path(directory), family, number), args.variant)
                if text:
                    print(text + "\n")
                    shown += 1
                    if shown == args.show:
                        break
        print(table_line(family, tally(Path(directory), family, cases), cases))
    return 0


if __name__ == "__main__":
    sys.exit(main())
