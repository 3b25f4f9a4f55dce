"""The Python the site's web worker runs (``static/worker.js``, built as ``lab.js``), as real modules.

The build writes their sources into lab.js (``panel_adapter.render_worker``: one JSON line, path -> source); the
worker writes them into Pyodide's file system, puts that folder first on ``sys.path`` and calls their functions:

- ``bytecode``: the code compiled on one visit is the next visit's (the packages', the app's, and the standard
  library that Python's own start imports).
- ``pandas_later``: pandas is imported when something uses it, not by Panel's module for Pyodide.
- ``panel_protocol``: Panel's own worker protocol (``panel/_templates/pyodide_worker.js``), the app run as its own
  module.

What they take from Panel beyond its public API is checked by ``static/panel_adapter.py`` against the one Panel they
were written for. They import nothing of Panel at the top: the worker imports ``bytecode`` before any package is in.
"""
