"""pandas imported when something uses it, not when Panel is.

Panel 1.10's panel/io/pyodide.py imports pandas (seconds in Pyodide) only to wrap ``WRAPPED`` (which then fetch a
URL through pyodide.http); nothing else of Panel or Bokeh imports it, and the lab never uses it. So ``defer``, run
before Panel is imported, installs a finder that runs panel.io.pyodide with a stand-in as its ``pandas`` (and checks
that it wrapped exactly ``WRAPPED``), and runs the real pandas, when something imports it, with those wraps moved onto
it (``functools.update_wrapper`` again: the stand-in's names and docs were the placeholders'); then it steps aside.
``static/panel_adapter.py`` stops the build if that module does anything else with pandas.
"""
from __future__ import annotations

import functools
import importlib
import importlib.abc
import importlib.machinery
import sys
import types

WRAPPED = ("read_csv", "read_json")


def defer(wrapped: tuple[str, ...] = WRAPPED) -> None:
    """From now on: panel.io.pyodide gets the stand-in, and the real pandas gets Panel's wraps when it comes."""
    standin = types.ModuleType("pandas", "pandas until something imports it (static/site_worker/pandas_later.py)")
    standin.__spec__ = importlib.machinery.ModuleSpec("pandas", None)
    originals = {}

    def placeholder(name):
        def call(*args, **kwargs):
            importlib.import_module("pandas")  # the real one: importing it fills `originals`
            return originals[name](*args, **kwargs)
        return call
    for name in wrapped:
        setattr(standin, name, placeholder(name))
    placeholders = dict(vars(standin))

    def run_panel_io_pyodide(module, run):
        if "pandas" in sys.modules:  # the real pandas came first: Panel wraps it itself
            return run(module)
        sys.modules["pandas"] = standin
        try:
            run(module)
        finally:
            del sys.modules["pandas"]
        changed = sorted(k for k, v in vars(standin).items() if placeholders.get(k) is not v)
        if changed != sorted(wrapped):
            raise ImportError(f"panel.io.pyodide set {changed} of pandas; static/site_worker/pandas_later.py "
                              f"expects {sorted(wrapped)}: read panel/io/pyodide.py again")

    def run_pandas(module, run):
        sys.meta_path.remove(finder)
        run(module)
        if "panel.io.pyodide" not in sys.modules:  # Panel comes later and wraps it itself
            return
        for name in wrapped:
            originals[name] = getattr(module, name)
            setattr(module, name, functools.update_wrapper(getattr(standin, name), originals[name]))
        sys.modules["panel.io.pyodide"].pandas = module

    finder = Finder({"panel.io.pyodide": run_panel_io_pyodide, "pandas": run_pandas})
    sys.meta_path.insert(0, finder)


class Around(importlib.abc.Loader):
    """A module's own loader, its execution wrapped by ``around(module, run)``."""

    def __init__(self, loader, around):
        self.loader, self.around = loader, around

    def create_module(self, spec):
        return self.loader.create_module(spec)

    def exec_module(self, module):
        module.__loader__ = module.__spec__.loader = self.loader  # the module's own, for its source
        self.around(module, self.loader.exec_module)


class Finder(importlib.abc.MetaPathFinder):
    """Finds the modules named in ``arounds`` as the path finder does, with their loaders wrapped."""

    def __init__(self, arounds):
        self.arounds = arounds

    def find_spec(self, name, path=None, target=None):
        around = self.arounds.get(name)
        spec = around and importlib.machinery.PathFinder.find_spec(name, path)
        if spec:
            spec.loader = Around(spec.loader, around)
        return spec
