"""The code Python compiled on one visit, for the next visit, which then imports without compiling.

Python compiles every module it imports from its source, on every visit: Pyodide's standard library is a zip of
sources (where Python cannot keep bytecode) and the packages' folders are new on each visit. So from the first import
on, ``keep`` installs import hooks that record the code they compile (``compiled``: its file's path -> code) and take
a module's code from an earlier visit's bundle when it has it. ``bundle`` is this visit's, for the next one; the worker
keys it by lock.json and the runtime, so it is never stale.

Python's own start (before the worker can run anything: encodings, asyncio, Pyodide's modules: 114 modules in the
stand-in's Python 3.12, 141 in Pyodide 314's) happens before any hook; ``stdlib_zip`` is Pyodide's zip of the standard
library with each module imported by then beside its source as an unchecked-hash .pyc (PEP 552), which zipimport
takes before the source: the next visit's ``loadPyodide`` gets it as its ``stdLibURL``. A .pyc of another Python (its
magic number) is passed over for the source.
"""
from __future__ import annotations

import importlib.machinery as machinery
import importlib.util
import io
import marshal
import sys
import zipfile
import zipimport
from collections.abc import Callable
from types import CodeType

compiled: dict[str, CodeType] = {}   # what this visit compiled, by file path
known: dict[str, bytes] = {}         # an earlier visit's code, by file path (marshalled)


def code(path: str, compile_source: Callable[[], CodeType]) -> CodeType:
    """The module's code from the earlier visit's bundle, or compiled now (and kept for the next)."""
    data = known.get(path)
    if data is not None:
        return marshal.loads(data)
    compiled[path] = compile_source()
    return compiled[path]


class SourceFile(machinery.SourceFileLoader):
    """A module in a folder (site-packages): its code through ``code``."""

    def get_code(self, fullname):
        return code(self.path, lambda: super(SourceFile, self).get_code(fullname))


class ZipSource(zipimport.zipimporter):
    """A module in a zip (the standard library): its code through ``code``, unless it is compiled in the zip already
    (the standard library an earlier visit kept, ``stdlib_zip``)."""

    def get_code(self, fullname):
        path = self.get_filename(fullname)
        if path.endswith(".pyc"):
            return super().get_code(fullname)
        return code(path, lambda: super(ZipSource, self).get_code(fullname))


def keep(earlier) -> bool:
    """Install the hooks, with ``earlier`` (the bytes of an earlier visit's ``bundle``, a JS buffer, or None) to take
    code from; whether it was usable (a damaged one is ignored: this visit compiles, and keeps its own)."""
    try:
        known.update(marshal.loads(earlier.to_bytes()) if earlier is not None else {})
    except Exception:
        known.clear()
    sys.path_hooks[:0] = [ZipSource, machinery.FileFinder.path_hook(
        (machinery.ExtensionFileLoader, machinery.EXTENSION_SUFFIXES), (SourceFile, machinery.SOURCE_SUFFIXES),
        (machinery.SourcelessFileLoader, machinery.BYTECODE_SUFFIXES))]
    sys.path_importer_cache.clear()  # the finders made so far: made again, by these hooks
    return bool(known)


def bundle() -> bytes:
    """This visit's compiled modules, for the next visit's ``keep``: one marshal of {path: marshal of code}."""
    return marshal.dumps({path: marshal.dumps(module_code) for path, module_code in compiled.items()})


def stdlib_zip() -> bytes:
    """Pyodide's standard-library zip with a .pyc beside the source of every module imported from it so far."""
    stdlib = next(path for path in sys.path if path.endswith(".zip"))
    with open(stdlib, "rb") as file:
        buffer = io.BytesIO(file.read())
    with zipfile.ZipFile(buffer, "a") as zipped:
        names = set(zipped.namelist())
        for path in {getattr(module, "__file__", None) or "" for module in list(sys.modules.values())}:
            name = path[len(stdlib) + 1:]
            if path.startswith(stdlib + "/") and name.endswith(".py") and name + "c" not in names:
                source = zipped.read(name)
                module_code = compiled.get(path) or compile(source, path, "exec", dont_inherit=True)
                zipped.writestr(name + "c", importlib.util.MAGIC_NUMBER + (1).to_bytes(4, "little")
                                + importlib.util.source_hash(source) + marshal.dumps(module_code))
    return buffer.getvalue()
