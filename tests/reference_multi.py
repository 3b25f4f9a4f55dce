"""CPU mode on several CPUs against OSTEP's ``cpu-sched-multi/multi.py -c``, on seeded random job sets.

    LAB_OSTEP_HOMEWORK=DIR python tests/reference_multi.py                    the agreement table
    LAB_OSTEP_HOMEWORK=DIR python tests/reference_multi.py --family rr --show 3
                                                                              the first disagreements, CPU by CPU

DIR is a checkout of github.com/remzi-arpacidusseau/ostep-homework; multi.py is run from there in a subprocess
(``python multi.py ARGS -t -c``) and nothing of it is stored here. Its output is parsed (the jobs, the options, who
ran on each CPU in each tick, the finishing time and each CPU's utilisation as printed) and the job set becomes a
lab scenario, which ``schedulers.simulate("cpu", ...)`` runs. Every job's completion time is compared, then what
both report besides: the makespan, each CPU's utilisation (multi.py's ``%3.2f`` percent) and the migrations (a
job's run on another CPU than its previous one, counted from multi.py's trace; the lab's ``migrations``).

multi.py's cache model is turned off (``-r 1``: a warm cache runs at rate 1 too, so a tick is one unit of work;
the lab has no cache), and there is no ``-A`` (the lab has no affinity masks) or ``-o`` (random CPU order). Every
job arrives at 0. Families: ``fcfs`` (one queue, a time slice longer than all the work: nothing is ever
descheduled), ``rr`` (one queue, ``-q`` as the lab's quantum), ``per-cpu`` (``-p -P 0``: per-CPU queues without
stealing) and ``steal`` (``-p -P k``: with stealing); 2-4 CPUs; half the sets drawn by multi.py itself from
``-s/-j/-R`` (run times multiples of 10, 0 included), half given as ``-L``, their run times multiples of the slice
(the configuration where multi.py's global timer and the lab's quanta coincide). ``model_multi`` is multi.py's
rules in the lab's terms with a flag for each difference of convention (docs/cpu.md, "Against OSTEP's multi.py");
the bench checks it against multi.py (the ostep flags) and against the lab (the lab's), so the differences listed
are all there are.
"""
from __future__ import annotations

import argparse
import os
import random
import re
import subprocess
import sys
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import reference_bench  # noqa: E402
from schedulers import simulate  # noqa: E402  (after the path is set)

ENV = "LAB_OSTEP_HOMEWORK"
MULTI = Path("cpu-sched-multi/multi.py")
FAMILIES = {"fcfs": 200, "rr": 200, "per-cpu": 200, "steal": 200}   # family: job sets
FOREVER = 10**6   # fcfs's time slice: longer than any job set's work

# The differences of convention, each a flag of the model: multi.py's value and the lab's.
CONVENTIONS = {
    "ostep": {"timer": "global", "dispatch": "cpu-order", "steal": "peek"},
    "lab": {"timer": "own", "dispatch": "affinity", "steal": "longest-tail"},
}


@dataclass
class Run:
    """What multi.py printed: the jobs (name, run time) in order, its options, each CPU's timeline (one entry per
    tick: a job's name or None), the finishing time and each CPU's utilisation as printed (``"71.43"``)."""
    jobs: list[tuple[str, int]]
    options: dict[str, Any]
    timelines: list[list[str | None]]
    finished: int
    utilisation: list[str]


# --- the job sets -------------------------------------------------------------------------------------------------

def arguments(family: str, case: int) -> list[str]:
    """multi.py's arguments for job set ``case`` of ``family`` (always ``-r 1 -t -c``)."""
    draw = random.Random(f"multi/{family}/{case}")
    cpus = draw.randint(2, 4)
    quantum = FOREVER if family == "fcfs" else draw.choice([1, 2, 5, 10])
    argv = ["-n", str(cpus), "-q", str(quantum), "-r", "1"]
    if family == "per-cpu":
        argv += ["-p", "-P", "0"]
    elif family == "steal":
        argv += ["-p", "-P", str(draw.randint(1, 30))]
    if case % 2 == 0:   # multi.py's generator: run times int(random * R / 10) * 10
        argv += ["-s", str(draw.randint(0, 10**6)), "-j", str(draw.randint(1, 8)),
                 "-R", str(draw.choice([30, 50, 100]))]
    else:   # positive multiples of the slice (fcfs: any length)
        unit = 1 if family == "fcfs" else quantum
        argv += ["-s", str(draw.randint(0, 10**6)),
                 "-L", ",".join(f"{j}:{unit * draw.randint(1, 40 // unit + 2)}:0" for j in range(draw.randint(1, 8)))]
    return argv + ["-t", "-c"]


# --- running and reading multi.py ---------------------------------------------------------------------------------

def run_multi(directory: Path, argv: list[str]) -> str:
    """multi.py's standard output for ``argv``, run in a subprocess from the checkout."""
    done = subprocess.run([sys.executable, str(directory / MULTI), *argv], capture_output=True, text=True,
                          timeout=60, check=False)
    if done.returncode:
        raise RuntimeError(f"multi.py {' '.join(argv)} exited with {done.returncode}: "
                           f"{(done.stdout + done.stderr)[-300:]}")
    return done.stdout


JOB = re.compile(r"^Job name:(\S+) run_time:(\d+) working_set_size:(\d+)$", re.MULTILINE)
ARG = re.compile(r"^ARG (\w+) (.*)$", re.MULTILINE)
TICK = re.compile(r"^ +(\d+)   (.*)$", re.MULTILINE)
FINISHED = re.compile(r"^Finished time (\d+)$", re.MULTILINE)
UTILISATION = re.compile(r"^  CPU (\d+)  utilization +([\d.]+) \[ warm", re.MULTILINE)


def parse_multi(text: str) -> Run:
    """multi.py -t -c: ``Job name:N run_time:R working_set_size:W``, the ``ARG`` lines, one trace line per tick
    (`` T   `` then each CPU's job or ``-``; separator lines at each slice's end), ``Finished time T`` and
    ``CPU c  utilization U [ warm W ]``."""
    args = dict(ARG.findall(text))
    finished = FINISHED.search(text)
    if "num_cpus" not in args or finished is None:
        raise ValueError("not the output of multi.py -t -c")
    cpus = int(args["num_cpus"])
    options = {"cpus": cpus, "quantum": int(args["quantum"]), "per_cpu": args["per_cpu_queues"] == "True",
               "peek": int(args["peek_interval"]), "seed": int(args["seed"]), "generated": args["job_list"] == ""}
    timelines: list[list[str | None]] = [[] for _ in range(cpus)]
    for tick, entries in TICK.findall(text):
        names = entries.split()
        if int(tick) != len(timelines[0]) or len(names) != cpus:
            raise ValueError(f"the trace line of tick {tick} is not one entry per CPU: {entries!r}")
        for timeline, name in zip(timelines, names):
            timeline.append(None if name == "-" else name)
    utilisation = [value for _, value in sorted(UTILISATION.findall(text), key=lambda entry: int(entry[0]))]
    return Run([(name, int(run)) for name, run, _ in JOB.findall(text)], options, timelines,
               int(finished.group(1)), utilisation)


# --- the lab's scenario and what to compare -----------------------------------------------------------------------

def scenario(family: str, run: Run) -> dict[str, Any]:
    """The job set as the lab's JSON. A job of run time 0 is the lab's burst 1: multi.py runs it one tick (its time
    left goes below 0, then to 0), as a job of 1."""
    result: dict[str, Any] = {"algorithm": "fcfs" if family == "fcfs" else "rr", "cpus": run.options["cpus"],
                              "tasks": [{"name": name, "arrival": 0, "burst": max(length, 1)}
                                        for name, length in run.jobs]}
    if family != "fcfs":
        result["quantum"] = run.options["quantum"]
    if run.options["per_cpu"]:
        result["queues"] = "per-cpu"
        if run.options["peek"] > 0:
            result["steal"] = True
    return result


def outcome(names: list[str], timelines: list[list[str | None]]) -> dict[str, Any]:
    """What the comparison reads, from the CPUs' timelines: each job's completion (the end of its last tick), the
    makespan, each CPU's utilisation as multi.py prints it and the migrations (a job's tick on another CPU than the
    one of its previous tick)."""
    completion: dict[str, int] = {}
    where: dict[str, int] = {}
    migrations = 0
    for t in range(max(map(len, timelines))):
        for cpu, timeline in enumerate(timelines):
            name = timeline[t] if t < len(timeline) else None
            if isinstance(name, dict):   # a switch: no work done
                continue
            if name is not None:
                migrations += where.get(name, cpu) != cpu
                where[name], completion[name] = cpu, t + 1
    makespan = max(completion.values(), default=0)
    busy = [sum(type(entry) is str for entry in timeline) for timeline in timelines]
    return {"completion": {name: completion.get(name) for name in names}, "makespan": makespan,
            "utilisation": ["%3.2f" % (100.0 * float(ran) / float(makespan)) for ran in busy],
            "migrations": migrations}


def of_reference(run: Run) -> dict[str, Any]:
    found = outcome([name for name, _ in run.jobs], run.timelines)
    return {**found, "makespan": run.finished, "utilisation": run.utilisation}


def of_lab(result: dict[str, Any]) -> dict[str, Any]:
    """The lab's result in the comparison's terms: completions from its rows, utilisation from its exact figures,
    its own migration count."""
    shares = result["exact"].get("cpu_utilisation") or [result["exact"]["utilisation"]]
    return {"completion": {row["name"]: row["completion"] for row in result["tasks"]},
            "makespan": result["summary"]["makespan"],
            "utilisation": ["%3.2f" % (100.0 * float(Fraction(share).numerator) / float(Fraction(share).denominator))
                            for share in shares],
            "migrations": result.get("migrations", 0)}


def mismatches(expected: dict[str, Any], got: dict[str, Any]) -> list[str]:
    """How ``got`` differs from ``expected`` (empty: they agree); completions first, then the rest."""
    found = [f"job {name}: completion {got['completion'].get(name)} instead of {value}"
             for name, value in expected["completion"].items() if got["completion"].get(name) != value]
    found += [f"{key} {got[key]} instead of {expected[key]}" for key in ("makespan", "utilisation", "migrations")
              if got[key] != expected[key]]
    return found


# --- the rules as written: multi.py's loop, with a flag for each difference of convention -------------------------

def model_multi(run: Run, conventions: dict[str, str]) -> list[list[str | None]]:
    """multi.py's scheduler on ``run``'s jobs (``-r 1``, no ``-A``, no ``-o``), in the lab's terms, with each
    difference of convention a flag; returns each CPU's timeline.

    Every job arrives at 0 in input order: one queue, or per-CPU queues dealt round-robin (job i to queue i mod
    cpus: the lab's "shortest queue, ties the lowest number" gives the same when all arrive together). At each
    instant t, in this order: (1) the slice's end: ``timer`` "global" (multi.py) deschedules every running job when
    t is a positive multiple of the quantum, "own" (the lab) the jobs whose own quantum, counted from their
    dispatch, ended at t; they join the tail of their queue (that of the CPU they ran on) in CPU order. (2)
    ``steal`` "peek" (multi.py, per-CPU queues, at t a positive multiple of ``-P``): every CPU whose queue is
    empty, running or not, in CPU order, picks another CPU at random (multi.py's seeded stream) and moves the head
    of its queue to its own. (3) Dispatch: ``dispatch`` "cpu-order" (multi.py) has every idle CPU in CPU order take
    its queue's head; "affinity" (the lab) gives the head of the one queue its last CPU if idle, else the lowest idle
    one, and so on down the queue (with per-CPU queues both are each CPU's own head). (4) ``steal``
    "longest-tail" (the lab, per-CPU queues, every instant): every CPU still idle, in CPU order, takes the tail of
    the longest queue (ties: the lowest number). Then every CPU runs its job a tick; a job is done when its work
    is (a job of run time 0 takes one tick)."""
    options = run.options
    cpus, quantum, per_cpu, peek = options["cpus"], options["quantum"], options["per_cpu"], options["peek"]
    draws = random.Random()
    draws.seed(options["seed"], version=1)
    if options["generated"]:   # multi.py drew two numbers per job before it ran
        for _ in range(2 * len(run.jobs)):
            draws.random()
    left = {name: max(length, 1) for name, length in run.jobs}
    queues: list[list[str]] = [[] for _ in range(cpus if per_cpu else 1)]
    for number, (name, _) in enumerate(run.jobs):
        queues[number % cpus if per_cpu else 0].append(name)
    running: list[str | None] = [None] * cpus
    slice_left: dict[str, int] = {}
    last_cpu: dict[str, int] = {}
    expired: list[tuple[int, str]] = []
    timelines: list[list[str | None]] = [[] for _ in range(cpus)]
    stealing = per_cpu and peek > 0
    t = 0

    def queue_of(cpu: int) -> list[str]:
        return queues[cpu if per_cpu else 0]

    while any(left.values()):
        if conventions["timer"] == "global" and t > 0 and t % quantum == 0:
            expired = [(cpu, name) for cpu, name in enumerate(running) if name is not None]
        for cpu, name in expired:
            running[cpu] = None
            queue_of(cpu).append(name)
        expired = []
        if stealing and conventions["steal"] == "peek" and t > 0 and t % peek == 0:
            for cpu in range(cpus):
                if not queues[cpu]:
                    other = draws.choice([number for number in range(cpus) if number != cpu])
                    if queues[other]:
                        queues[cpu].append(queues[other].pop(0))
        if conventions["dispatch"] == "cpu-order" or per_cpu:
            for cpu in range(cpus):
                if running[cpu] is None and queue_of(cpu):
                    running[cpu] = queue_of(cpu).pop(0)
        else:
            while None in running and queues[0]:
                name = queues[0].pop(0)
                home = last_cpu.get(name)
                running[home if home is not None and running[home] is None else running.index(None)] = name
        if stealing and conventions["steal"] == "longest-tail":
            for cpu in range(cpus):
                source = max(range(cpus), key=lambda number: (len(queues[number]), -number))
                if running[cpu] is None and queues[source]:
                    running[cpu] = queues[source].pop()
        for cpu, name in enumerate(running):
            timelines[cpu].append(name)
            if name is None:
                continue
            last_cpu[name] = cpu
            left[name] -= 1
            if not left[name]:
                running[cpu] = None
            elif conventions["timer"] == "own":   # the task's own quantum, counted from its dispatch
                slice_left[name] = slice_left.get(name, quantum) - 1
                if not slice_left[name]:
                    del slice_left[name]
                    expired.append((cpu, name))
        t += 1
    return timelines


# --- the comparison -------------------------------------------------------------------------------------------------

@dataclass
class Case:
    family: str
    case: int
    argv: list[str]
    run: Run
    scenario: dict[str, Any]

    def command(self) -> str:
        return f"python3 {MULTI} " + " ".join(self.argv)

    def aligned(self) -> bool:
        """Whether multi.py's global timer and the lab's own quanta coincide: every run a positive multiple of the
        slice (then every dispatch is at a multiple of it)."""
        return all(length > 0 and length % self.run.options["quantum"] == 0 for _, length in self.run.jobs) \
            or self.family == "fcfs"


def reference_case(directory: Path, family: str, case: int) -> Case:
    argv = arguments(family, case)
    run = parse_multi(run_multi(directory, argv))
    return Case(family, case, argv, run, scenario(family, run))


SIDES = ("completions", "everything", "aligned", "model ostep", "model lab")


def tally(directory: Path, family: str, cases: int | None = None) -> dict[str, Any]:
    """The family's counts: job sets where the lab and multi.py agree on every completion ("completions"), on
    everything compared ("everything"), on every completion among the aligned sets ("aligned", with "of": how many
    were aligned); the model with multi.py's conventions against multi.py ("model ostep", on everything) and with
    the lab's against the lab ("model lab"); "alone": for each flag, the model with multi.py's conventions but that
    one the lab's, against multi.py (what that difference alone changes); and the first disagreements."""
    counts: dict[str, Any] = {side: 0 for side in SIDES}
    counts.update(cases=0, of=0, first=[], alone=dict.fromkeys(CONVENTIONS["lab"], 0))
    for number in range(FAMILIES[family] if cases is None else cases):
        case = reference_case(directory, family, number)
        theirs = of_reference(case.run)
        result = simulate("cpu", case.scenario, trace=False)
        ours = of_lab(result)
        found = mismatches(theirs, ours)
        same_completions = not found or not found[0].startswith("job ")
        counts["cases"] += 1
        counts["completions"] += same_completions
        counts["everything"] += not found
        if case.aligned():
            counts["of"] += 1
            counts["aligned"] += same_completions
        names = [name for name, _ in case.run.jobs]
        counts["model ostep"] += not mismatches(theirs, of_reference_model(case, CONVENTIONS["ostep"]))
        for flag, value in CONVENTIONS["lab"].items():
            alone = {**CONVENTIONS["ostep"], flag: value}
            counts["alone"][flag] += not mismatches(theirs, of_reference_model(case, alone))
        lab_timelines = result.get("timelines") or [result["timeline"]]
        counts["model lab"] += model_multi(case.run, CONVENTIONS["lab"]) == lab_timelines \
            and not mismatches(ours, outcome(names, lab_timelines))
        if found and len(counts["first"]) < 3:
            counts["first"].append({"case": number, "command": case.command(), "differences": found})
    return counts


def of_reference_model(case: Case, conventions: dict[str, str]) -> dict[str, Any]:
    return outcome([name for name, _ in case.run.jobs], model_multi(case.run, conventions))


def table_line(family: str, counts: dict[str, Any]) -> str:
    n = counts["cases"]
    alone = ", ".join(f"{flag} {count}/{n}" for flag, count in counts["alone"].items())
    return (f"multi.py {family:<8} completions {counts['completions']:>3}/{n}, with utilisation and migrations "
            f"{counts['everything']:>3}/{n}, aligned sets' completions {counts['aligned']:>3}/{counts['of']}; "
            f"model ostep {counts['model ostep']}/{n}, model lab {counts['model lab']}/{n}; the model with one lab "
            f"convention against multi.py: {alone}")


def is_checkout(directory: str | None) -> bool:
    return bool(directory) and (Path(directory) / MULTI).is_file()


def bench() -> dict[str, Any]:
    """The bench's lines for multi.py (part ``ostep``), or one line saying they were not measured."""
    directory = os.environ.get(ENV)
    return reference_bench.part(
        "multi.py: several CPUs against OSTEP's cpu-sched-multi/multi.py -r 1 -t -c (one queue: fcfs, rr; per-cpu: "
        "-p -P 0; steal: -p -P k) on seeded random job sets; aligned: every run a positive multiple of the slice; "
        "model ostep/lab: multi.py's rules as code (reference_multi.model_multi) with its conventions against "
        "multi.py, with the lab's against the lab",
        None if is_checkout(directory) else reference_bench.not_measured(
            "OSTEP's multi.py", ENV, directory, f"lacks {MULTI}",
            "point it to a checkout of github.com/remzi-arpacidusseau/ostep-homework"),
        FAMILIES, lambda family: tally(Path(directory), family), table_line)


def explain(case: Case) -> str:
    """One disagreement in full: the command, the scenario, the differences and both sides' CPUs tick by tick."""
    result = simulate("cpu", case.scenario, trace=False)
    found = mismatches(of_reference(case.run), of_lab(result))
    if not found:
        return ""
    ours = result.get("timelines") or [result["timeline"]]
    lines = [f"--- {case.family} #{case.case}: {case.command()}", f"    lab scenario: {case.scenario}",
             *("    " + text for text in found), "       t  lab (CPU 0, 1, ...)   multi.py"]
    def at(timeline: list[Any], t: int) -> str:
        return str(timeline[t] or "-") if t < len(timeline) else "."   # "-" idle, "." after the run

    for t in range(max(len(ours[0]), len(case.run.timelines[0]))):
        lab, theirs = [at(timeline, t) for timeline in ours], [at(timeline, t) for timeline in case.run.timelines]
        lines.append(f"  {'*' if lab == theirs else '!'} {t:>4}  {' '.join(lab):<20} {' '.join(theirs)}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--family", choices=list(FAMILIES), action="append",
                        help="only this family (repeatable; default: all)")
    parser.add_argument("--show", type=int, default=0, help="print the first K disagreements tick by tick")
    parser.add_argument("--cases", type=int, help="job sets per family (default: the bench's)")
    args = parser.parse_args(argv)
    directory = os.environ.get(ENV)
    if not is_checkout(directory):
        parser.error(f"{ENV} must name a checkout of github.com/remzi-arpacidusseau/ostep-homework (with {MULTI}), "
                     f"not {directory!r}")
    for family in args.family or list(FAMILIES):
        cases = FAMILIES[family] if args.cases is None else args.cases
        shown = 0
        for number in range(cases if args.show else 0):
            text = explain(reference_case(Path(directory), family, number))
            if text:
                print(text + "\n")
                shown += 1
                if shown == args.show:
                    break
        print(table_line(family, tally(Path(directory), family, cases)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
