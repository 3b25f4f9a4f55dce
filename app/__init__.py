"""The scheduling lab's browser app (Panel + Bokeh): ``panel serve app/lab.py``.

Models (``param`` only, no Panel):
- ``model``: ``Lab``, the declarative state (mode, one ``ModeState`` per mode with its algorithm, parameters and
  rows, step, language, playback) and ``LabView``, the base of every feature's view-model; it asks the core for
  each run.
- ``modes``: the registry of the lab's modes (the core's, ``schedulers.modes``), each a package ``modes/<name>/``
  whose ``__init__`` holds what the models read (``AppMode``: defaults, link grammar, its own words).
- ``query``: the shareable URL query; ``text``: every word in English and Japanese, the fields' and columns' by name.

Views (Panel/Bokeh), each importing the models, never the other way round:
- ``panes``: the stylesheets and the one HTML pane helper (a leaf); ``textfield``: the text field of the editor,
  Compare and the quiz, whose Enter never sends the text back (a leaf); ``render``: the HTML fragments every mode
  draws with (escaped); ``frames``: the pager's frames of a run.
- ``modes/<name>/views.py``: what one mode draws (``ModeViews``, ``modes/views.py``): its pictures at a step, its
  results table, its Compare sides and differences, the quiz's view of the past, your policy's preview, the exports'
  chart.
- ``ui``: the page: header, editor, step controls, keyboard, playback; ``teach``: the bar of teaching views,
  each its own module: ``source`` (the rule's code), ``compare``, ``quiz``, ``custom`` (your own policy),
  ``exports``.
- ``lab``: the servable entry point; ``notebook``: the lab in a Jupyter cell.

The shared modules never name a mode: they ask the registry for the mode's ``AppMode`` and ``ModeViews``.
No scheduling happens here: every number on screen comes from ``schedulers.simulate`` and every question about a
step from ``schedulers.trace``; the app only formats.
"""
