"""The teaching helpers inside real Pyodide: a policy of your own (its line budget uses sys.settrace), the rule's
live source with its deciding lines (inspect reads the wheel's .py files), quiz questions and the CSV export all
answer exactly as in CPython."""
from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.test_pyodide_core import pyodide_package, wheel  # noqa: F401 (fixtures)

pytestmark = pytest.mark.pyodide

PROBE = r'''
import json
from schedulers import custom, export, quiz, rule, simulate

ARTICLE = {"tasks": [{"name": "A", "arrival": 0, "burst": 7}, {"name": "B", "arrival": 1, "burst": 4},
                     {"name": "C", "arrival": 2, "burst": 1}, {"name": "D", "arrival": 4, "burst": 3}]}
REFERENCE = {"tenants": [{"name": "A", "cost": 8, "count": 6}, {"name": "B", "cost": 2, "count": 6},
                         {"name": "C", "cost": 2, "count": 4, "join": 6}]}
BROKEN = ["def choose(ready, running, time, state):\n    while True:\n        pass\n",
          "def choose(ready, running, time, state):\n    return 1 / 0\n",
          "def choose(ready, running, time, state)\n    return 'A'\n",
          "def choose(ready, running, time, state):\n    return 'D'\n"]


def probe():
    out = {"fcfs": custom.run("cpu", ARTICLE, custom.TEMPLATES["cpu"])["timeline"],
           "rr": [d["tenant"] for d in custom.run("llm", REFERENCE, custom.TEMPLATES["llm"])["dispatch"]],
           "errors": []}
    for source in BROKEN:
        try:
            custom.run("cpu", ARTICLE, source)
        except custom.PolicyCodeError as error:
            out["errors"].append([error.line, error.message])
    for mode, algorithm, scenario in (("cpu", "srtf", ARTICLE), ("llm", "sfq", REFERENCE)):
        source = rule.rule_source(mode, algorithm)
        result = simulate(mode, {**scenario, "algorithm": algorithm})
        marks = [{path: sorted(lines) for path, lines in rule.deciding_lines(source, step).items()}
                 for step in result["steps"]]
        asked = [[q.step, list(q.candidates), q.answer] for q in quiz.questions(result)]
        out[algorithm] = [source.text, marks, asked, export.metrics_csv(result)]
    return json.dumps(out, ensure_ascii=False, sort_keys=True)
'''


def test_teaching_helpers_in_pyodide_match_cpython(pyodide_package, wheel, tmp_path):  # noqa: F811
    script = tmp_path / "probe.mjs"
    script.write_text(
        "import {readFileSync} from 'node:fs';\n"
        "const [dir, wheel, probe] = process.argv.slice(2);\n"
        "const {loadPyodide} = await import(dir + '/pyodide.mjs');\n"
        "const py = await loadPyodide({indexURL: dir + '/'});\n"
        "const site = py.runPython(\"import sysconfig; sysconfig.get_path('purelib')\");\n"
        "py.unpackArchive(new Uint8Array(readFileSync(wheel)), 'wheel', {extractDir: site});\n"
        "py.runPython(readFileSync(probe, 'utf8'));\n"
        "console.log(py.runPython('probe()'));\n")
    (tmp_path / "probe.py").write_text(PROBE)
    done = subprocess.run(["node", str(script), str(pyodide_package), str(wheel), str(tmp_path / "probe.py")],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    namespace: dict = {}
    exec(compile(PROBE, "probe", "exec"), namespace)
    expected = namespace["probe"]()
    assert json.loads(done.stdout) == json.loads(expected)
    answers = json.loads(expected)
    assert [line for line, _ in answers["errors"]] == [2, 2, 1, 2]
    assert "".join(answers["fcfs"]) == "AAAAAAABBBBCDDD"
