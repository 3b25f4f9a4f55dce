"""Runs task sets in SimSo (github.com/MaximeCheramy/simso, PyPI ``simso``): executed by ``reference_simso.py`` with
the python in LAB_SIMSO, which can import simso and its SimPy 2.3.1; the lab's python cannot, so this file imports
nothing of the lab.

stdin: a JSON list of cases, each ``{"scheduler": "RM_mono" | "EDF_mono" | "FP", "duration": ms, "abort": bool,
"tasks": [{"name", "arrival", "period", "burst", "deadline", "priority"}]}`` (integers, in ms). stdout: a JSON list,
per case, ``{"jobs", "said"}``: every job SimSo released, ``{"task", "number", "release", "deadline", "end",
"aborted", "missed"}`` (``end`` in ms, None: not ended within the duration; ``missed`` SimSo's own
``exceeded_deadline``), and what SimSo printed while it ran.
"""
from __future__ import annotations

import contextlib
import io
import json
import sys

from simso.configuration import Configuration
from simso.core import Model


def run(case: dict) -> list[dict]:
    configuration = Configuration()
    cycles = configuration.cycles_per_ms
    configuration.duration = case["duration"] * cycles
    for identifier, task in enumerate(case["tasks"], 1):
        configuration.add_task(name=task["name"], identifier=identifier, period=task["period"],
                               activation_date=task["arrival"], wcet=task["burst"], deadline=task["deadline"],
                               abort_on_miss=case["abort"], data={"priority": task["priority"]})
    configuration.add_processor(name="CPU 1", identifier=1)
    configuration.scheduler_info.clas = f"simso.schedulers.{case['scheduler']}"
    configuration.check_all()
    model = Model(configuration)
    model.run_model()
    jobs = []
    for task in model.task_list:
        for number, job in enumerate(task.jobs, 1):
            end = job.end_date
            jobs.append({"task": task.name, "number": number, "release": job.activation_date,
                         "deadline": job.absolute_deadline,
                         "end": None if end is None else end / cycles, "aborted": job.aborted,
                         "missed": None if end is None else bool(job.exceeded_deadline)})
    return jobs


def main() -> None:
    answers = []
    for case in json.load(sys.stdin):
        said = io.StringIO()
        with contextlib.redirect_stdout(said):   # stdout carries only the answer
            jobs = run(case)
        answers.append({"jobs": jobs, "said": said.getvalue()})
    json.dump(answers, sys.stdout)


if __name__ == "__main__":
    main()
