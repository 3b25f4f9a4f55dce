"""The app's dependencies run one way: app/ -> schedulers/, views -> models, and no module of app/ reaches back
into one that imports it (no circle, lazy imports inside functions included). The view-models import no Panel. The
mode packages (app/modes/<name>/) count: a module is named by its dotted path below app/ (``modes.cpu.views``)."""
from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
APP = ROOT / "app"


def module_name(path: Path) -> str:
    """``app/modes/cpu/views.py`` -> ``modes.cpu.views``; a package's ``__init__.py`` is the package."""
    parts = path.relative_to(APP).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in sorted(APP.rglob("*.py")) if module_name(p)}


def known(name: str) -> str | None:
    """The app module ``name`` (dotted, below app/) stands for: itself, or the longest module it is inside."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def app_imports(path: Path) -> set[str]:
    """The app modules ``path`` imports anywhere in it (``from . import x``, ``from ..x import``, ``app.x``)."""
    package = module_name(path).split(".") if path.name == "__init__.py" else module_name(path).split(".")[:-1]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[:len(package) - node.level + 1]
                module = ".".join([*base, *([node.module] if node.module else [])])
            elif node.module and node.module.split(".")[0] == "app":
                module = node.module.partition(".")[2]
            else:
                continue
            for alias in node.names:   # ``from . import x`` imports the module x, ``from .x import y`` x's y
                found.add(known(f"{module}.{alias.name}".strip(".")) or known(module))
        elif isinstance(node, ast.Import):
            found.update(known(alias.name.partition(".")[2]) for alias in node.names if alias.name.startswith("app."))
    return found - {None, ""}


def graph() -> dict[str, set[str]]:
    return {name: app_imports(path) - {name} for name, path in MODULES.items()}


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
    assert {"model", "ui", "render", "text", "panes", "modes", "modes.cpu", "modes.cpu.views"} <= set(edges)
    assert "model" in edges["ui"] and "panes" in edges["compare"]   # the parser sees real edges
    assert {"modes", "query", "render"} <= edges["modes.cpu.views"] | edges["modes.cpu"]   # relative ones too
    assert cycle(edges) is None, f"import circle in app/: {' -> '.join(cycle(edges))}"
    # The leaves: text and styles import no other module of the app; the registry of modes only the words (it finds
    # a mode's package by its name when it is first asked for), the URL grammar only the registry.
    assert edges["panes"] == edges["text"] == set() and edges["modes"] == {"text"}
    assert edges["query"] == {"modes"} and edges["model"] == {"modes", "query", "text"}
    # A mode's own half for the view-models (its package) imports no view.
    for name in (n for n, path in MODULES.items() if n.startswith("modes.") and path.name == "__init__.py"):
        assert edges[name] <= {"modes", "query", "text"}, (name, edges[name])


def test_the_view_models_import_no_panel():
    program = ("import sys\nimport app.model, app.query, app.text\nfrom app.modes import all_modes\nall_modes()\n"
               "app.model.Lab()\nprint(sorted(m for m in ('panel', 'bokeh') if m in sys.modules))\n")
    done = subprocess.run([sys.executable, "-c", program], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "[]"
