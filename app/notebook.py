"""The lab in a Jupyter notebook::

    import panel as pn
    pn.extension()
    from app.notebook import lab
    lab()                 # the whole lab, in the cell's output
    lab(lang="ja", mode="llm")

``lab`` returns a servable Panel object (``.servable()``, ``pn.serve(lab())`` and ``.save("lab.html")`` work
too); the notebook's kernel runs the core, so nothing else is needed.
"""
from __future__ import annotations

import panel as pn

from .model import Lab
from .ui import LabUI


def lab(lang: str = "en", mode: str | None = None, query: str = "") -> pn.viewable.Viewable:
    """A fresh lab: its state (``.lab`` on the returned object's ``lab_state``) and its page.

    ``mode``: the mode it opens in (None: the first, CPU); ``query`` is a shared link's query
    (``mode=cpu&algorithm=srtf&...``), restored as in the browser."""
    state = Lab(lang=lang, **({"mode": mode} if mode is not None else {}))
    if query:
        state.restore(query)
    page = LabUI(state).page()
    page.lab_state = state   # for scripting from the notebook: page.lab_state.step = 3
    return page
