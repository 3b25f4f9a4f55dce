"""The teaching helpers inside real Pyodide: a policy of your own (its line budget uses sys.settrace), the rule's
live source with its deciding lines (inspect reads the wheel's .py files), quiz questions and the CSV export all
answer exactly as in CPython, and so do the trace's questions at every step (the time a step shows, fairness so far,
Compare's shared interval; the engine's alignment, service so far and policy of your own)."""
from __future__ import annotations

import json

import pytest

from tests.test_pyodide_core import pyodide_package, run_in_pyodide, wheel  # noqa: F401 (fixtures)

pytestmark = pytest.mark.pyodide

PROBE = r'''
import json
from schedulers import custom, export, quiz, rule, simulate, trace
from schedulers.engine import steps as engine_steps
from schedulers.llm import steps as llm_steps

ARTICLE = {"tasks": [{"name": "A", "arrival": 0, "burst": 7}, {"name": "B", "arrival": 1, "burst": 4},
                     {"name": "C", "arrival": 2, "burst": 1}, {"name": "D", "arrival": 4, "burst": 3}]}
REFERENCE = {"tenants": [{"name": "A", "cost": 8, "count": 6}, {"name": "B", "cost": 2, "count": 6},
                         {"name": "C", "cost": 2, "count": 4, "join": 6}]}
ENGINE = {"slots": 2, "tenants": [{"name": "A", "requests": "4/8~6x4"}, {"name": "B", "requests": "4/2x4+1/1@9"}]}
BROKEN = ["def choose(ready, running, time, state):\n    while True:\n        pass\n",
          "def choose(ready, running, time, state):\n    return 1 / 0\n",
          "def choose(ready, running, time, state)\n    return 'A'\n",
          "def choose(ready, running, time, state):\n    return 'D'\n"]


def probe():
    out = {"fcfs": custom.run("cpu", ARTICLE, custom.TEMPLATES["cpu"])["timeline"],
           "rr": [d["tenant"] for d in custom.run("llm", REFERENCE, custom.TEMPLATES["llm"])["dispatch"]],
           "errors": []}
    mine = custom.run("engine", ENGINE, custom.TEMPLATES["engine"])   # the engine's policy of your own
    out["engine"] = [mine["admissions"], [sorted(trace.policy_lines(mine, k)) for k in range(len(mine["steps"]))]]
    vtc = simulate("engine", {**ENGINE, "algorithm": "vtc"})
    fcfs = simulate("engine", {**ENGINE, "algorithm": "fcfs"})
    align = trace.step_aligner(vtc, fcfs)
    out["engine_so_far"] = [[align(k), {n: str(v) for n, v in engine_steps.service_so_far(vtc, k).items()}]
                            for k in range(len(vtc["steps"]))]
    for source in BROKEN:
        try:
            custom.run("cpu", ARTICLE, source)
        except custom.PolicyCodeError as error:
            out["errors"].append([error.line, error.message])
    for mode, algorithm, scenario in (("cpu", "srtf", ARTICLE), ("llm", "sfq", REFERENCE),
                                      ("engine", "vtc-predict", ENGINE), ("cpu", "cfs", ARTICLE)):
        source = rule.rule_source(mode, algorithm)
        result = simulate(mode, {**scenario, "algorithm": algorithm})
        marks = [{path: sorted(lines) for path, lines in rule.deciding_lines(source, step).items()}
                 for step in result["steps"]]
        asked = [[q.step, list(q.candidates), q.answer] for q in quiz.questions(result)]
        out[algorithm] = [source.text, marks, asked, export.metrics_csv(result), export.trace_json(result),
                          [trace.span(result, k) for k in range(len(result["steps"]))]]
    sfq, rr = (simulate("llm", {**REFERENCE, "algorithm": name}) for name in ("sfq", "rr"))
    out["so_far"] = [[llm_steps.fairness_so_far(sfq, k), llm_steps.compare_so_far(sfq, k, rr)]
                     for k in range(len(sfq["steps"]))]
    return json.dumps(out, ensure_ascii=False, sort_keys=True)
'''


def test_teaching_helpers_in_pyodide_match_cpython(pyodide_package, wheel, tmp_path):  # noqa: F811
    [answer] = run_in_pyodide(pyodide_package, wheel, tmp_path, PROBE + "\nprobe()\n")
    namespace: dict = {}
    exec(compile(PROBE, "probe", "exec"), namespace)
    expected = namespace["probe"]()
    assert json.loads(answer) == json.loads(expected)
    answers = json.loads(expected)
    assert [line for line, _ in answers["errors"]] == [2, 2, 1, 2]
    assert "".join(answers["fcfs"]) == "AAAAAAABBBBCDDD"
    assert answers["so_far"][-1][1]["interval"] == {"start": 6, "end": 8, "dispatches": 3}
    assert answers["engine"][0] and any(answers["engine"][1])   # admissions, and the lines each decision ran
