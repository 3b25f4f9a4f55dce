"""CPU mode's periodic rules (issue 23: ``rm``, ``dm``, ``edf``) against SimSo on seeded random periodic task sets.

    LAB_SIMSO=PYTHON python tests/reference_simso.py [--rule rm] [--cases N] [--show K] [--ties]

PYTHON is an interpreter that can import SimSo (github.com/MaximeCheramy/simso, PyPI ``simso`` 0.8.5, which pins
SimPy 2.3.1), e.g. a throwaway venv: ``python3 -m venv /tmp/simso-venv && /tmp/simso-venv/bin/pip install simso``,
then LAB_SIMSO=/tmp/simso-venv/bin/python. ``simso_driver.py`` runs the sets there, in one process per rule; nothing
of SimSo is stored here. SimSo's uni-processor schedulers are the reference: ``RM_mono`` for ``rm``, ``EDF_mono``
for ``edf``; SimSo has no DM, so ``dm`` is its ``FP`` (fixed priorities from the task's ``priority`` field) with the
priority -D, which is DM by definition.

The sets are where the two models meet (docs/cpu.md, "Against SimSo"): one CPU, integer ms, no overheads, one to
five tasks, periods 2 to 24, implicit deadlines in half the sets and constrained ones (D <= T) in the other half,
first releases at 0 or within the first period, ``on_miss`` "continue" (SimSo's ``abort_on_miss`` False) in two
sets of three and "abort" (True) in the third, and a third of the sets overloaded (U up to 1.3) so that there are
misses. Ties of priority are where they do not meet: SimSo breaks them by the order its ready list was filled, the
lab by input order (RM, DM) or by release and input order (EDF), so RM's periods are distinct, and DM's relative
deadlines; EDF's absolute deadlines may tie, but no two tasks with one relative deadline release a job at one
instant (``released_together``; ``--ties`` lets them). A difference where every differing job ties on its deadline
with another task's job is counted apart ("tie"), and so is one where SimSo's FP lost the CPU ("lost", LOST).

The lab runs each set with ``horizon`` H (the hyperperiod plus the latest first release, at most 120). SimSo
releases jobs as long as it runs, so it runs H + 1 ms, and the two are compared on [0, H], where the jobs after H
cannot act: every job released before H, in both, must end (complete, or be dropped at its deadline) at the same
time if either ends it by H, and otherwise be still unfinished at H in both; SimSo's ``exceeded_deadline`` must be
the lab's ``missed`` for every job ended by H.
"""
from __future__ import annotations

import argparse
import json
import math
import os
from fractions import Fraction
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import reference_bench  # noqa: E402
from schedulers import simulate  # noqa: E402  (after the path is set)

ENV = "LAB_SIMSO"
DRIVER = Path(__file__).resolve().parent / "simso_driver.py"
CASES = 200                                                  # task sets per rule
SCHEDULER = {"rm": "RM_mono", "dm": "FP", "edf": "EDF_mono"}  # the lab's rule: SimSo's scheduler class
LONGEST = 120                                                # the horizon's cap, so that a set runs in milliseconds
NAMES = "ABCDE"
# What SimSo's Processor prints when a scheduler picks a job that has ended: FP's, after a job it had preempted is
# aborted at its deadline (FP.on_terminated leaves it in its ready list, and Processor.terminate empties the CPU
# even though that job was not running on it), so the CPU idles while jobs wait. RM_mono and EDF_mono remove the
# job and recover.
LOST = "Can't schedule a terminated job!"


# --- the task sets ------------------------------------------------------------------------------------------------

def scenario(rule: str, case: int, ties: bool = False) -> dict[str, Any]:
    """Task set ``case`` of ``rule`` as the lab's JSON (see the module's docstring for its shape); with ``ties``,
    EDF's sets may release two jobs with one deadline at one instant (``released_together``)."""
    draw = random.Random(f"simso/{rule}/{case}")
    constrained, limit = case % 2 == 1, (1, 1, Fraction(13, 10))[case % 3]
    while True:
        count = draw.randint(1, 5)
        periods = draw.sample(range(2, 25), count) if rule == "rm" else [draw.randint(2, 24) for _ in range(count)]
        tasks = []
        for name, period in zip(NAMES, periods):
            burst = draw.randint(1, max(1, period // draw.choice([1, 2, 3])))
            task = {"name": name, "arrival": draw.choice([0, 0, draw.randint(0, period - 1)]), "burst": burst,
                    "period": period}
            if constrained:
                task["relative_deadline"] = draw.randint(min(burst, period), period) if draw.random() < 0.8 \
                    else draw.randint(1, period)
            tasks.append(task)
        deadlines = [task.get("relative_deadline", task["period"]) for task in tasks]
        horizon = min(math.lcm(*periods) + max(task["arrival"] for task in tasks), LONGEST)
        if sum(Fraction(task["burst"], task["period"]) for task in tasks) <= limit and \
                (rule != "dm" or len(set(deadlines)) == count) and \
                (rule != "edf" or ties or not released_together(tasks, horizon)):
            break
    return {"algorithm": rule, "tasks": tasks, "horizon": horizon,
            "on_miss": "abort" if case % 3 == 2 else "continue"}


def released_together(tasks: list[dict[str, Any]], horizon: int) -> bool:
    """Two tasks with one relative deadline release a job at one instant before the horizon: the two jobs tie
    under EDF, which SimSo breaks by the order of its release events and the lab by input order."""
    seen: dict[tuple[int, int], str] = {}
    for task in tasks:
        relative = task.get("relative_deadline", task["period"])
        for release in range(task["arrival"], horizon, task["period"]):
            if seen.setdefault((release, relative), task["name"]) != task["name"]:
                return True
    return False


def simso_case(lab: dict[str, Any]) -> dict[str, Any]:
    """The same set as ``simso_driver.py`` takes it: SimSo's scheduler, H + 1 ms, and per task its deadline (D) and
    FP's priority (-D: the shorter relative deadline, the higher)."""
    tasks = []
    for task in lab["tasks"]:
        relative = task.get("relative_deadline", task["period"])
        tasks.append({"name": task["name"], "arrival": task["arrival"], "period": task["period"],
                      "burst": task["burst"], "deadline": relative, "priority": -relative})
    return {"scheduler": SCHEDULER[lab["algorithm"]], "duration": lab["horizon"] + 1,
            "abort": lab["on_miss"] == "abort", "tasks": tasks}


# --- running both and comparing -----------------------------------------------------------------------------------

def run_simso(python: str, cases: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """SimSo's jobs and what it printed, for each case (``{"jobs", "said"}``), from ``simso_driver.py`` run by
    ``python``."""
    done = subprocess.run([python, str(DRIVER)], input=json.dumps(cases), capture_output=True, text=True,
                          timeout=600)
    if done.returncode != 0:
        raise RuntimeError(f"{python} {DRIVER.name} failed: {done.stderr[-500:]}")
    return json.loads(done.stdout)


def outcomes_simso(jobs: list[dict[str, Any]], horizon: int) -> dict[str, tuple]:
    """SimSo's jobs released before the horizon, by the lab's job name: (how it ended by the horizon, when, missed):
    ("done" or "dropped", time, SimSo's exceeded_deadline), or ("running", None, None) at the horizon."""
    found = {}
    for job in jobs:
        if job["release"] >= horizon:
            continue
        name = f"{job['task']}#{job['number']}"
        if job["end"] is None or job["end"] > horizon:
            found[name] = ("running", None, None)
        else:
            end = int(job["end"]) if float(job["end"]).is_integer() else job["end"]
            found[name] = ("dropped" if job["aborted"] else "done", end, job["missed"])
    return found


def outcomes_lab(result: dict[str, Any], horizon: int) -> dict[str, tuple]:
    """The lab's jobs the same way (a dropped job ends at its deadline)."""
    found = {}
    for job in result["jobs"]:
        end = job["deadline"] if job["dropped"] else job["completion"]
        if end > horizon:
            found[job["name"]] = ("running", None, None)
        else:
            found[job["name"]] = ("dropped" if job["dropped"] else "done", end, job["missed"])
    return found


def differing(lab: dict[str, tuple], reference: dict[str, tuple]) -> list[str]:
    """The jobs on which the two differ, by task and number; [] when they agree."""
    names = sorted(set(lab) | set(reference), key=lambda n: (n.partition("#")[0], int(n.partition("#")[2])))
    return [name for name in names if lab.get(name) != reference.get(name)]


def mismatches(lab: dict[str, tuple], reference: dict[str, tuple]) -> list[str]:
    """Every job on which the two differ, said in words."""
    return [f"{name}: lab {describe(lab.get(name))}, SimSo {describe(reference.get(name))}"
            for name in differing(lab, reference)]


def ties_only(names: list[str], deadlines: dict[str, int]) -> bool:
    """Every differing job shares its absolute deadline with a job of another task (``deadlines``: every job's), so
    that the difference can be an EDF tie broken each its own way (SimSo by the order its ready list was filled,
    the lab by release and input order); the other job may end the same in both (both dropped at that deadline)."""
    tasks: dict[int, set[str]] = {}
    for name, deadline in deadlines.items():
        tasks.setdefault(deadline, set()).add(name.partition("#")[0])
    return bool(names) and all(tasks[deadlines[name]] - {name.partition("#")[0]} for name in names)


def describe(outcome: tuple | None) -> str:
    if outcome is None:
        return "no such job"
    kind, time, missed = outcome
    if kind == "running":
        return "unfinished at the horizon"
    return f"{kind} at {time}" + (" (missed)" if missed else "")


def tally(python: str, rule: str, cases: int = CASES, ties: bool = False) -> dict[str, Any]:
    """The agreement on ``cases`` task sets of ``rule``: {"agree", "disagree", "lost" and "tie" (disagreements
    counted apart: where SimSo said LOST, its known fault; where every differing job ties, ``ties_only``), "jobs"
    (compared), "ended" (ended by the horizon), "misses" (by SimSo's account), "first" (the first three
    disagreements)}. For DM also "lost implicit", the lost sets whose deadlines are their periods, where DM is RM,
    and "RM_mono agrees", how many of them SimSo's RM_mono runs as the lab runs ``dm``."""
    labs = [scenario(rule, case, ties) for case in range(cases)]
    references = run_simso(python, [simso_case(lab) for lab in labs])
    counts: dict[str, Any] = {"agree": 0, "disagree": 0, "lost": 0, "tie": 0, "jobs": 0, "ended": 0,
                              "misses": 0, "first": []}
    implicit = []
    for case, (lab, reference) in enumerate(zip(labs, references)):
        theirs = outcomes_simso(reference["jobs"], lab["horizon"])
        result = simulate("cpu", lab, trace=False)
        ours = outcomes_lab(result, lab["horizon"])
        found = differing(ours, theirs)
        deadlines = {job["name"]: job["deadline"] for job in result["jobs"]}
        verdict = "agree" if not found else "lost" if LOST in reference["said"] \
            else "tie" if rule == "edf" and ties_only(found, deadlines) else "disagree"
        counts[verdict] += 1
        if verdict == "lost" and all("relative_deadline" not in task for task in lab["tasks"]):
            implicit.append((lab, ours))
        counts["jobs"] += len(theirs)
        counts["ended"] += sum(outcome[0] != "running" for outcome in theirs.values())
        counts["misses"] += sum(bool(outcome[2]) for outcome in theirs.values())
        if found and len(counts["first"]) < 3:
            counts["first"].append({"case": case, "scenario": lab, "differences": mismatches(ours, theirs),
                                    "said": reference["said"].strip()})
    if rule == "dm":
        again = run_simso(python, [{**simso_case(lab), "scheduler": SCHEDULER["rm"]} for lab, _ in implicit])
        counts["lost implicit"] = len(implicit)
        counts["RM_mono agrees"] = sum(
            LOST not in reference["said"] and not differing(ours, outcomes_simso(reference["jobs"], lab["horizon"]))
            for (lab, ours), reference in zip(implicit, again))
    return counts


def line(rule: str, counts: dict[str, Any], cases: int) -> str:
    lost = f", {counts['lost']} where SimSo lost a job to its fault" if counts["lost"] else ""
    if counts.get("lost implicit"):
        lost += (f" (of them {counts['lost implicit']} with D = T, where SimSo's RM_mono agrees with the lab on "
                 f"{counts['RM_mono agrees']})")
    lost += f", {counts['tie']} where they broke a deadline tie each their way" if counts["tie"] else ""
    return (f"{rule:<4} {counts['agree']}/{cases} agree, {counts['disagree']} disagree{lost} ({counts['jobs']} "
            f"jobs, {counts['ended']} ended by the horizon, {counts['misses']} missed)")


def usable(python: str | None) -> bool:
    """``python`` can import simso."""
    if not python:
        return False
    try:
        return subprocess.run([python, "-c", "import simso.core"], capture_output=True, timeout=60).returncode == 0
    except OSError:
        return False


def bench() -> dict[str, Any]:
    """The bench's part: the agreement per rule, or one line saying it was not measured."""
    python = os.environ.get(ENV)
    return reference_bench.part(
        "simso: CPU mode's rm, dm, edf against SimSo's RM_mono, FP (priority -D), EDF_mono on seeded random periodic "
        "task sets (tests/reference_simso.py), each job's end and miss on [0, horizon]",
        None if usable(python) else reference_bench.not_measured(
            "SimSo", ENV, python, "cannot import simso", "point it to a python that can: pip install simso in a "
            "throwaway venv"),
        SCHEDULER, lambda rule: tally(python, rule), lambda rule, counts: line(rule, counts, CASES))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rule", choices=list(SCHEDULER), action="append", help="only this rule (repeatable)")
    parser.add_argument("--cases", type=int, default=CASES, help=f"task sets per rule (default {CASES})")
    parser.add_argument("--show", type=int, default=0, help="print the first K (at most 3) disagreements")
    parser.add_argument("--ties", action="store_true",
                        help="let EDF's sets release two jobs with one deadline at one instant")
    args = parser.parse_args(argv)
    python = os.environ.get(ENV)
    if not usable(python):
        parser.error(f"{ENV} must name a python that can import simso, not {python!r}")
    for rule in args.rule or list(SCHEDULER):
        counts = tally(python, rule, args.cases, args.ties)
        for shown in counts["first"][:args.show]:
            print(f"--- {rule} #{shown['case']}: {json.dumps(shown['scenario'])}")
            print("\n".join("    " + text for text in shown["differences"]))
            if shown["said"]:
                print("    SimSo said: " + shown["said"].replace("\n", "; "))
        print(line(rule, counts, args.cases))
    return 0


if __name__ == "__main__":
    sys.exit(main())
