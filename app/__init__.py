"""The scheduling lab's browser app (Panel + Bokeh): ``panel serve app/lab.py``.

- ``model``: the view-models, declarative ``param.Parameterized`` state; they call the core and nothing else.
- ``render``: HTML fragments (built with escaping) and the Bokeh Gantt chart, from a run and a step.
- ``ui``: the Panel layout: editor, step controls, keyboard, playback, each view bound to the state.
- ``query``: the shareable URL query; ``text``: every label in English and Japanese.

No scheduling happens here: every number on screen comes from ``schedulers.simulate``.
"""
