"""The app's dependencies run one way: app/ -> schedulers/, views -> models, and no module of app/ reaches back
into one that imports it (no circle, lazy imports inside functions included). The view-models import no Panel."""
from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
APP = ROOT / "app"


def app_imports(path: Path) -> set[str]:
    """The app modules ``path`` imports anywhere in it (``from . import x``, ``from .x import``, ``app.x``)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level == 1 and node.module:
                found.add(node.module.split(".")[0])
            elif node.level == 1:
                found.update(alias.name for alias in node.names)
            elif node.module and node.module.split(".")[0] == "app":
                parts = node.module.split(".")
                found.update([parts[1]] if len(parts) > 1 else [alias.name for alias in node.names])
        elif isinstance(node, ast.Import):
            found.update(alias.name.split(".")[1] for alias in node.names if alias.name.startswith("app."))
    return found & {p.stem for p in APP.glob("*.py")}


def graph() -> dict[str, set[str]]:
    return {path.stem: app_imports(path) - {path.stem} for path in sorted(APP.glob("*.py"))}


def cycle(edges: dict[str, set[str]]) -> list[str] | None:
    """One circle of imports, as a path that ends where it starts, or None."""
    state: dict[str, str] = {}   # "open" while on the current path, "done" after

    def visit(node: str, path: list[str]) -> list[str] | None:
        state[node] = "open"
        for target in sorted(edges.get(node, ())):
            if state.get(target) == "open":
                return path[path.index(target):] + [target] if target in path else [node, target]
            if target not in state and (found := visit(target, path + [target])):
                return found
        state[node] = "done"
        return None

    for start in sorted(edges):
        if start not in state and (found := visit(start, [start])):
            return found
    return None


def test_the_cycle_finder_finds_one():
    assert cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert cycle({"a": {"b"}, "b": set(), "c": {"a", "b"}}) is None


def test_the_app_import_graph_has_no_circle():
    edges = graph()
    assert {"model", "ui", "render", "teach_text", "panes"} <= set(edges)
    assert "model" in edges["ui"] and "panes" in edges["compare"]   # the parser sees real edges
    assert cycle(edges) is None, f"import circle in app/: {' -> '.join(cycle(edges))}"
    # The leaves: text, styles and the URL grammar import no other module of the app.
    assert edges["panes"] == edges["text"] == edges["teach_text"] == set()
    assert edges["query"] == set() and edges["model"] == {"query", "text"}


def test_the_view_models_import_no_panel():
    program = ("import sys\nimport app.model, app.query, app.text, app.teach_text\n"
               "print(sorted(m for m in ('panel', 'bokeh') if m in sys.modules))\n")
    done = subprocess.run([sys.executable, "-c", program], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "[]"
