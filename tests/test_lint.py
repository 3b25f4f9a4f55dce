"""The repository's code passes its checks, so that `python3 build.py test` fails on a finding: ruff (pinned in
pyproject.toml's `test` group, configured in its `[tool.ruff]`) on the Python, and `node --check` on every JavaScript
file of the project (git's tracked and new files), each failure naming the file, the line and the finding.
"""
from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# A file that imports or exports at the start of a line is an ES module (the pager's components, tests/*.mjs); every
# other file is a classic script (the page's, the workers'), checked as one: Node 20's plain `node --check` takes a
# file with module syntax as a module and then reports nothing at all, so each is checked with its kind stated.
ES_MODULE = re.compile(r"^(?:import|export)\s", re.M)


def javascript_files() -> list[Path]:
    listed = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard", "*.js", "*.mjs"],
                            cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    return [ROOT / name for name in sorted(set(listed)) if (ROOT / name).is_file()]


def test_ruff_finds_nothing():
    ruff = subprocess.run([sys.executable, "-m", "ruff", "--version"], capture_output=True, text=True)
    if ruff.returncode:
        pytest.fail("ruff is not installed in this environment: run the suite through `python3 build.py test`, which "
                    f"installs pyproject.toml's pins ({ruff.stderr.strip()[-200:]})")
    done = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "--output-format", "concise",
                           "."],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"ruff ({ruff.stdout.strip()}) found:\n{done.stdout}{done.stderr}"


def test_every_javascript_file_passes_node_check():
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is not on PATH: the JavaScript files cannot be checked (Debian's `nodejs` package)")
    files = javascript_files()
    assert {"static/boot.js", "static/worker.js", "app/pager.js"} <= {p.relative_to(ROOT).as_posix() for p in files}
    failures = []
    for path in files:
        source = path.read_text(encoding="utf-8")
        kind = "module" if ES_MODULE.search(source) else "commonjs"
        done = subprocess.run([node, f"--input-type={kind}", "--check"], input=source, capture_output=True,
                              text=True, timeout=60)
        if done.returncode:
            # Node names the input "[stdin]": say which file it was, and keep Node's line and message.
            failures.append(f"{path.relative_to(ROOT)} (checked as {kind}):\n"
                            + done.stderr.replace("[stdin]", str(path.relative_to(ROOT))).strip())
    assert not failures, "\n\n".join(failures)


def test_the_node_check_fails_on_a_broken_module(tmp_path):
    """The check above is real: Node, told the kind, reports a syntax error in a module (which a plain
    `node --check file.js` would pass) and module syntax in a classic script."""
    node = shutil.which("node") or pytest.fail("node is not on PATH")
    for kind, source in (("module", "export function render() {\n  return 1 +\n}\n"),
                         ("commonjs", "export const late = 1\n")):
        done = subprocess.run([node, f"--input-type={kind}", "--check"], input=source, capture_output=True,
                              text=True, timeout=60)
        assert done.returncode != 0 and "SyntaxError" in done.stderr, (kind, done.stderr)
