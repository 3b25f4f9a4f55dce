"""The lab's text field: Panel's ``TextInput`` with its Enter key's answer changed, so that no answer from the
server replaces text typed after it (a leaf: it imports no other module of the app).

Panel's ``TextInput`` answers the page's Enter event on the server by setting ``value`` and ``value_input`` to the
text as it was at Enter. Panel handles that event after the property changes that arrived before it, and on a busy
server (or Pyodide worker) those include the keys typed after Enter: its answer then sends the older text back, and
it replaces what is being typed in the field (tests/test_textfield.py has that order; in Chromium,
tests/test_app_browser.py's ``test_edits_that_reach_the_server_together_all_count``). The page already sends both
itself, in the order they happened (``value`` from the field's change event at Enter or when it loses focus,
``value_input`` from each key), so here Enter only fires ``enter_pressed``.

This replaces a private method of Panel's, read in ``PANEL_VERSION``: importing this module on another Panel fails,
saying to read ``panel/widgets/input.py``'s ``TextInput._process_event`` again.
"""
from __future__ import annotations

import panel as pn

PANEL_VERSION = "1.10.0"

if pn.__version__ != PANEL_VERSION:
    raise ImportError(f"app/textfield.py replaces how Panel {PANEL_VERSION}'s TextInput answers Enter; this is Panel "
                      f"{pn.__version__}: read TextInput._process_event in panel/widgets/input.py again and update "
                      "PANEL_VERSION")


class TextField(pn.widgets.TextInput):
    """A text input whose Enter never sends the text back: the page's own events enter it."""

    def _process_event(self, event) -> None:   # the one event a TextInput registers: "enter-pressed"
        self.enter_pressed = True
