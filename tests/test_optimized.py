"""The core under ``python -O``, where every ``assert`` statement vanishes.

A heap pop once hid inside an assert (``HeapQueue.take``), so ``python -O -m schedulers`` crashed on the article's
tasks (issue 13). Two guards: no ``assert`` in the shipped code does work (calls, assignments), and the core's own
tests pass in a subprocess run with ``PYTHONOPTIMIZE=1`` (which the ``python -m schedulers`` processes those tests
start inherit).
"""
from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = [*sorted((ROOT / "schedulers").rglob("*.py")), *sorted((ROOT / "app").rglob("*.py")),
           *sorted((ROOT / "static").rglob("*.py")), ROOT / "build.py"]
# What a core test may not import: the app, the site builder, Panel/Bokeh, the browser, Pyodide.
NOT_CORE = ("app", "build", "panel", "bokeh", "param", "playwright", "pyodide_support", "tests.test_pyodide_core",
            "tests.test_app_browser")
WORK = (ast.Call, ast.NamedExpr, ast.Await, ast.Yield, ast.YieldFrom)


def side_effects(tree: ast.AST) -> list[int]:
    """Lines of ``assert`` statements whose condition or message calls something or binds a name."""
    return [node.lineno for node in ast.walk(tree) if isinstance(node, ast.Assert)
            and any(isinstance(inner, WORK) for inner in ast.walk(node))]


def test_no_shipped_assert_does_work():
    found = {str(path.relative_to(ROOT)): lines for path in SHIPPED
             if (lines := side_effects(ast.parse(path.read_text(encoding="utf-8"))))}
    assert found == {}, f"an assert that does work disappears under python -O: {found}"


def test_the_side_effect_check_sees_the_old_bug():
    old = "def take(self, task):\n    assert heapq.heappop(self.heap)[2] is task\n"
    assert side_effects(ast.parse(old)) == [2]
    assert side_effects(ast.parse("assert top is task, 'the heap top'\n")) == []


def imported(tree: ast.Module) -> set[str]:
    """Modules a test file imports at its top level, including ``pytest.importorskip("panel")``."""
    names = set()
    for node in tree.body:
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
        elif isinstance(node, (ast.Expr, ast.Assign)) and isinstance(node.value, ast.Call) \
                and getattr(node.value.func, "attr", "") == "importorskip":
            names.add(node.value.args[0].value)
    return names


def core_test_files() -> list[Path]:
    """The test modules that exercise only the core: they import nothing of the app, the browser or Pyodide."""
    files = []
    for path in sorted((ROOT / "tests").glob("test_*.py")):
        names = imported(ast.parse(path.read_text(encoding="utf-8")))
        if path.name != Path(__file__).name and not any(
                name == banned or name.startswith(banned + ".") for name in names for banned in NOT_CORE):
            files.append(path)
    return files


def test_the_core_tests_pass_under_python_O():
    files = core_test_files()
    names = {path.name for path in files}
    assert {"test_cpu_algorithms.py", "test_llm_rules.py", "test_cpu_cli.py", "test_teaching_core.py",
            "test_cpu_cfs.py", "test_engine_rules.py", "test_engine_properties.py", "test_engine_cli.py",
            "test_engine_limits.py", "test_rule_spy.py"} <= names
    assert not names & {"test_app_model.py", "test_app_browser.py", "test_pyodide_core.py"}
    # The child checks that -O really took effect before it runs pytest (an assert would vanish there).
    program = ("import sys, pytest\n"
               "if not sys.flags.optimize: sys.exit('not optimized')\n"
               "sys.exit(pytest.main(sys.argv[1:]))\n")
    env = {**os.environ, "PYTHONOPTIMIZE": "1"}
    done = subprocess.run([sys.executable, "-O", "-c", program, "-q", "-p", "no:cacheprovider",
                           "-W", "ignore::pytest.PytestConfigWarning", "-m", "not pyodide and not browser",
                           *map(str, files)],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, f"under python -O:\n{done.stdout[-4000:]}\n{done.stderr[-2000:]}"
    assert " passed" in done.stdout and " failed" not in done.stdout
