"""The scheduling lab's browser app (Panel + Bokeh): ``panel serve app/lab.py``.

Models (``param`` only, no Panel):
- ``model``: ``Lab``, the declarative state (mode, algorithm, rows, step, language, playback) and ``LabView``, the
  base of every feature's view-model; it asks the core for each run.
- ``query``: the shareable URL query; ``text`` and ``teach_text``: every label in English and Japanese.

Views (Panel/Bokeh), each importing the models, never the other way round:
- ``panes``: the stylesheets and the one HTML pane helper (a leaf); ``textfield``: the text field of the editor,
  Compare and the quiz, whose Enter never sends the text back (a leaf); ``render``: HTML fragments (escaped) and
  the Bokeh Gantt chart, from a run and a step.
- ``ui``: the page: header, editor, step controls, keyboard, playback; ``teach``: the bar of teaching views,
  each its own module: ``source`` (the rule's code), ``compare``, ``quiz``, ``custom`` (your own policy),
  ``exports``.
- ``lab``: the servable entry point; ``notebook``: the lab in a Jupyter cell.

No scheduling happens here: every number on screen comes from ``schedulers.simulate`` and every question about a
step from ``schedulers.trace``; the app only formats.
"""
