"""app/textfield.py: the lab's text field answers Enter without taking back the keys typed after it, in the order a
busy server handles the page's messages (the browser test is test_app_browser.py's
``test_edits_that_reach_the_server_together_all_count``)."""
from __future__ import annotations

from types import SimpleNamespace

import pytest

pn = pytest.importorskip("panel")

from app.textfield import TextField  # noqa: E402

ENTER = SimpleNamespace(event_name="enter-pressed", value_input="5")   # what the page sends at Enter, with its text


def entered_then_typed(kind):
    """``kind``'s field after a busy server's order: the page's change at Enter ("5") and a key typed since ("3")
    applied together, then the Enter event; returns the field and how often ``enter_pressed`` fired."""
    field = kind(value="7")
    pressed = []
    field.param.watch(pressed.append, "enter_pressed")
    field._process_events({"value": "5", "value_input": "3"})   # Panel applies pending changes before an event
    field._process_event(ENTER)
    return field, len(pressed)


def test_enter_keeps_the_keys_typed_after_it():
    field, pressed = entered_then_typed(TextField)
    assert (field.value, field.value_input, pressed) == ("5", "3", 1)


def test_panels_own_text_input_still_takes_them_back():
    """Why TextField exists: when Panel's TextInput no longer does this, TextField can go."""
    field, pressed = entered_then_typed(pn.widgets.TextInput)
    assert (field.value, field.value_input, pressed) == ("5", "5", 1)
