"""A mode is one package: outside its own packages (the core's ``schedulers/<mode>/``, the app's ``app/modes/<mode>/``)
and the registry (``schedulers/modes.py``), no module of the core, the app, the site or ``build.py`` names a mode. A
shared module asks the mode's object (``catalog.Mode``) and iterates the registry, so a new mode touches no file but
its own.

"Names a mode" here: a string literal that is a mode's name ("cpu", a branch ``mode == "llm"``, a key ``"engine"``),
or a name-like literal (no blank in it) with a mode's name as one of its dotted, dashed or underscored parts
(``"quiz.question.cpu"``, ``"cpu_algorithm"``, ``"engine-batch"``); in a ``.js`` file, the same inside quotes.
Prose ("the inference engine", a docstring) is not a name.
"""
from __future__ import annotations

import ast
import re
from pathlib import Path

from schedulers.modes import PACKAGES

ROOT = Path(__file__).resolve().parent.parent
NAMES = tuple(PACKAGES)
SCANNED = ("schedulers/**/*.py", "app/**/*.py", "app/**/*.js", "static/**/*.py", "static/**/*.js", "build.py")
ALLOWED = {   # where a mode may be named: its own core package, the registry, and the app's package for the mode
    *(package.replace(".", "/") + "/" for package in PACKAGES.values()),
    *(f"app/modes/{name}/" for name in PACKAGES),
    "schedulers/modes.py",
}
SEPARATORS = re.compile(r"[._\-/:#]")
QUOTED = re.compile(r"""(["'`])((?:\\.|(?!\1).)*)\1""")


def names_a_mode(text: str) -> bool:
    if text in NAMES:
        return True
    return bool(text) and not any(c.isspace() for c in text) and any(
        part in NAMES for part in SEPARATORS.split(text))


def literals(path: Path) -> list[tuple[int, str]]:
    """(line, text) of every string literal in ``path`` that names a mode."""
    source = path.read_text(encoding="utf-8")
    if path.suffix == ".js":
        return [(number, match.group(2)) for number, line in enumerate(source.splitlines(), start=1)
                for match in QUOTED.finditer(line) if names_a_mode(match.group(2))]
    return [(node.lineno, node.value) for node in ast.walk(ast.parse(source))
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and names_a_mode(node.value)]


def scanned() -> list[str]:
    found = {path.relative_to(ROOT).as_posix() for pattern in SCANNED for path in ROOT.glob(pattern)}
    return sorted(path for path in found if not path.startswith(tuple(ALLOWED)))


def test_the_finder_finds_a_mode_name_and_passes_prose():
    assert names_a_mode("cpu") and names_a_mode("quiz.question.llm") and names_a_mode("engine-batch")
    assert names_a_mode("cpu_algorithm") and not names_a_mode("the inference engine")
    assert not names_a_mode("cpus") and not names_a_mode("") and not names_a_mode("engineer")


def test_no_shared_module_names_a_mode():
    files = scanned()
    assert "schedulers/rule.py" in files and "schedulers/trace.py" in files and "build.py" in files
    offending = {path: literals(ROOT / path) for path in files}
    named = {path: found for path, found in offending.items() if found}
    assert not named, "\n".join(f"{path}:{line}: {text!r}" for path, found in named.items() for line, text in found)
