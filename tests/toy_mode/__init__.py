"""A fourth mode that exists only in the tests: one printer, jobs of whole pages, printed one at a time to the end.

It is as small as a mode can be and still be one: a schema, two rules (``policies.py``), a loop, a trace, its
answers to the trace's questions (``STEPS``), its rule protocol for the source view (``LINES``), its result rows
(``RESULTS``), and the ``MODE`` the registry finds (``MODES.register("toy", "tests.toy_mode")`` in a test,
``SCHEDULERS_MODES=toy=tests.toy_mode`` for a fresh interpreter). Nothing outside this package names it.

At each free instant t the jobs arrived by t wait in arrival, then input order; the rule picks one, which prints
over [t, t + pages) (a step ``print``); with nothing waiting, time jumps to the next arrival (a step ``idle``).
"""
from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from schedulers import fields
from schedulers.catalog import Mode, catalogue
from schedulers.errors import ScenarioError
from schedulers.rule import RuleLines, RuleSource, hooks
from schedulers.schema import Column, Field, Results, with_readers
from schedulers.trace import Result, Step, Steps

from .policies import POLICIES, RULES, Policy

JOB = (Field("name", "text", required=True), Field("arrival", "integer", default=0, minimum=0, maximum=1000),
       Field("pages", "integer", required=True, minimum=1, maximum=1000))
KEYS = ("mode", "algorithm", "jobs")
ALGORITHMS = catalogue("toy", RULES)
SCHEMA = with_readers("toy", "jobs", JOB, (), KEYS, ALGORITHMS)


@dataclass(frozen=True)
class Job:
    index: int
    name: str
    arrival: int
    pages: int


def read(scenario: Mapping[str, Any]) -> tuple[str, list[Job]]:
    scenario = fields.mapping(scenario, "scenario")
    fields.known_keys(scenario, "", KEYS)
    algorithm = fields.choice(scenario.get("algorithm", "first"), "algorithm", list(ALGORITHMS))
    if "jobs" not in scenario:
        raise ScenarioError("jobs", "is missing")
    jobs = []
    for index, raw in enumerate(fields.sequence(scenario["jobs"], "jobs", minimum=1, maximum=100)):
        where = f"jobs[{index}]"
        fields.known_keys(fields.mapping(raw, where), where, SCHEMA.names)
        values = {}
        for field in JOB:
            if field.required and field.name not in raw:
                raise ScenarioError(f"{where}.{field.name}", "is missing")
            value = raw.get(field.name, field.default)
            values[field.name] = fields.name(value, f"{where}.name") if field.type == "text" else \
                fields.integer(value, f"{where}.{field.name}", field.minimum, field.maximum)
        jobs.append(Job(index=index, **values))
    fields.unique_names([job.name for job in jobs], "jobs")
    return algorithm, jobs


def run(scenario: Mapping[str, Any], trace: bool = True, policy: Policy | None = None) -> dict[str, Any]:
    algorithm, jobs = read(scenario)
    rule = policy or POLICIES[algorithm]()
    arrivals = sorted(jobs, key=lambda job: (job.arrival, job.index))
    done: dict[str, int] = {}
    before = {"en": "Before t=0: nothing has arrived.", "ja": "t=0 の前: 何も届いていません。"}
    steps: list[dict[str, Any]] = [{"step": 0, "kind": "initial", "time": 0, "waiting": [], "why": before}]
    now, waiting = 0, []
    while len(done) < len(jobs):
        waiting += [job for job in arrivals if job.arrival <= now and job not in waiting and job.name not in done]
        if not waiting:
            until = min(job.arrival for job in arrivals if job.name not in done)
            steps.append({"step": len(steps), "kind": "idle", "time": now, "until": until, "waiting": [],
                          "why": {lang: f"t={now}: idle until t={until}" for lang in ("en", "ja")}})
            now = until
            continue
        job = rule.pick(waiting, now)
        waiting.remove(job)
        done[job.name] = now + job.pages
        steps.append({"step": len(steps), "kind": "print", "time": now, "until": done[job.name], "job": job.name,
                      "waiting": [other.name for other in waiting],
                      "why": {lang: f"t={now}: {rule.name} prints {job.name}" for lang in ("en", "ja")}})
        now = done[job.name]
    rows = [{"name": job.name, "arrival": job.arrival, "pages": job.pages, "done": done[job.name],
             "turnaround": done[job.name] - job.arrival} for job in jobs]
    return {"mode": "toy", "algorithm": rule.name, "parameters": {}, "jobs": rows,
            "trace": {"level": "full" if trace else "none"}, "steps": steps if trace else []}


def render_text(result: Mapping[str, Any], lang: str = "en") -> str:
    return "\n".join(f"{row['name']}: done at {row['done']}" for row in result["jobs"])


def exercise(seed: int) -> dict[str, Any]:
    draw = random.Random(seed)
    return {"jobs": [{"name": name, "arrival": draw.randint(0, 6), "pages": draw.randint(1, 5)} for name in "ABC"]}


def span(step: Step) -> tuple[int | None, int]:
    return (None, 0) if step["kind"] == "initial" else (step["time"], step["until"])


def pending(result: Result, step: int) -> set[str]:
    end = span(result["steps"][step])[1]
    return {row["name"] for row in result["jobs"] if row["done"] > end}


def aligner(left: Result, right: Result) -> Callable[[int], int]:
    """The last step of ``right`` that starts no later than ``left``'s step."""
    def aligned(step: int) -> int:
        start = span(left["steps"][step])[0]
        starts = [span(s)[0] for s in right["steps"]]
        return 0 if start is None else max(k for k, at in enumerate(starts) if at is None or at <= start)
    return aligned


USES = {"print": ("pick",)}


def step_uses(source: RuleSource, step: Step, resumed: bool) -> list[str]:
    return hooks(USES, [step["kind"]])


MODE = Mode("toy", "a printer: whole jobs, one at a time", ALGORITHMS, SCHEMA, run=run, render_text=render_text,
            exercise=exercise, text_needs_steps=False,
            results=Results("jobs", "job", (*map(Column, ("name", "arrival", "pages", "done")),
                                            Column("turnaround", averaged=True))),
            steps=Steps(span=span, pending=pending, aligner=aligner),
            lines=RuleLines(protocol=Policy, uses=USES, policy=lambda algorithm, parameters: POLICIES[algorithm],
                            step_uses=step_uses))
