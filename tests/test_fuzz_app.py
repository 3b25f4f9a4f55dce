"""Fuzzing of the app's inputs in Chromium: URL queries and typed values, random and hostile (huge, negative,
unicode, markup and script in names, thousands of tasks). The page must keep working (the step counter is there
and Next still moves it), report what it could not use, and run nothing it was given: no dialog, no injected
element, no uncaught error in the page or the server.
"""
from __future__ import annotations

import re
from urllib.parse import quote

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st


pytest.importorskip("panel")
playwright_api = pytest.importorskip("playwright.sync_api")
from app.model import MAX_ROWS  # noqa: E402
from app.ui import ROWS_PER_PAGE  # noqa: E402
expect = playwright_api.expect

pytestmark = pytest.mark.browser
TIMEOUT = 30_000   # ms: a cold Panel session on a busy 2-core machine
# Each payload, if it ever ran, would set window.__pwned (or open a dialog, which is recorded too).
PAYLOADS = ['<img src=x onerror="window.__pwned=1">', "<script>window.__pwned=1</script>",
            '"><svg onload="window.__pwned=1">', "javascript:window.__pwned=1", "{{7*7}}${7*7}",
            "</p><b onmouseover=alert(1)>x</b>"]
HOSTILE = PAYLOADS + ["99999999999999999999999", "1e999", "-5", "0", "NaN", "Infinity", "2/3", "", " ", "名前",
                      "\u202eevil", "😀" * 3, "%", "%ZZ", "%00", "a" * 300, "A:0:7", ",,,", ":::", "=", "&step=3"]

# Each key's value: a hostile one (raw or percent-encoded), or a well-formed item list with a hostile part.
KEYS = ["mode", "algorithm", "quantum", "tasks", "tenants", "step", "lang", "aging", "levels", "quanta", "boost",
        "weight", "colour", "__proto__"]


@st.composite
def queries(draw) -> str:
    pairs = []
    for key in draw(st.lists(st.sampled_from(KEYS), min_size=1, max_size=5)):
        value = draw(st.sampled_from(HOSTILE))
        if key == "tasks" and draw(st.booleans()):
            value = f"{quote(value, safe='')}:0:3,B:{draw(st.sampled_from(HOSTILE))}:2"
        elif key == "tenants" and draw(st.booleans()):
            value = f"{quote(value, safe='')}:8x6,B:2x{draw(st.sampled_from(HOSTILE))}:join=1"
        elif draw(st.booleans()):
            value = quote(value, safe="")
        pairs.append(f"{key}={value}")
    return "&".join(pairs)


class Watched:
    """One page for many inputs, with every sign of trouble recorded."""

    def __init__(self, page) -> None:
        self.page = page
        self.dialogs: list[str] = []
        self.errors: list[str] = []
        page.on("dialog", lambda dialog: (self.dialogs.append(dialog.message), dialog.dismiss()))
        page.on("pageerror", lambda error: self.errors.append(str(error)))
        # Console errors of consequence: not a resource the browser failed to load (no network here).
        page.on("console", lambda message: self.errors.append(message.text) if message.type == "error"
                and "Failed to load resource" not in message.text else None)

    def open(self, url: str) -> None:
        self.page.goto(url)
        expect(self.page.locator(".counter")).to_be_visible(timeout=TIMEOUT)

    def assert_working_and_clean(self) -> None:
        counter = self.page.locator(".counter")
        before = counter.inner_text()
        self.page.locator(".step-next button").click()
        if "step 1/1 " not in before + " ":   # a one-step run cannot move; any other must
            expect(counter).not_to_have_text(before, timeout=TIMEOUT)
        body = self.page.locator("body").inner_text()
        assert "Traceback" not in body
        assert self.page.evaluate("() => window.__pwned") is None, "an input ran as script"
        assert self.page.locator("img[src='x'], svg[onload], b[onmouseover]").count() == 0
        assert self.dialogs == [] and self.errors == [], (self.dialogs, self.errors)


@pytest.fixture(scope="module")
def watched(browser, lab_url):
    context = browser.new_context(viewport={"width": 1366, "height": 900}, locale="en-US")
    yield Watched(context.new_page())
    context.close()


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(query=queries())
def test_hostile_url_queries_leave_the_page_working(watched, lab_url, query):
    watched.open(f"{lab_url}?{query}")
    notices = watched.page.locator(".notice li")
    # Whatever it could not use is reported by key, so a reader sees what was dropped (a notice being drawn may be
    # empty for a moment: wait for its words).
    names_a_key = re.compile("|".join(map(re.escape, KEYS + ["query", "tasks[", "tenants["])))
    for index in range(notices.count()):
        expect(notices.nth(index)).to_contain_text(names_a_key, timeout=TIMEOUT)
    watched.assert_working_and_clean()


@pytest.mark.parametrize("field", ["name", "arrival", "burst"])
def test_hostile_values_typed_into_a_task(watched, lab_url, field):
    watched.open(lab_url)
    # Names alternate valid and invalid, so each expectation below sees this value's effect, not the last one's:
    # the Next click in assert_working_and_clean then comes after the server has taken the edit.
    for value in (HOSTILE[:3] + ["99999999999999999999999", "-5", "1e999", "名前", ""] if field != "name"
                  else PAYLOADS + [" ", "😀" * 40, ""]):
        box = watched.page.locator(f".field-{field} input").first
        box.fill(value)
        box.press("Enter")
        valid = field == "name" and value.strip() and len(value) <= 64
        if valid:   # the new name is in the results, as text (a chip titled with it)
            expect(watched.page.get_by_title(value, exact=True).first).to_be_attached(timeout=TIMEOUT)
        else:   # a message by the row names the field; the last valid run stays on screen
            expect(watched.page.locator(".row-editor .error").first).to_contain_text(f"tasks[0].{field}",
                                                                                    timeout=TIMEOUT)
        watched.assert_working_and_clean()


def test_a_link_past_the_length_limit_is_reported(watched, lab_url):
    """Past the app's 16 kB the link is reported. (Served by `panel serve`, a link of some 30 kB does not even
    open: the websocket handshake carries the query and fails, "Connection with the server could not be
    established"; the static site has no server in the way.)"""
    too_long = ",".join(f"Task{i}:{i}:{i}" for i in range(1150))   # 17 kB: just past the app's 16 kB
    watched.open(f"{lab_url}?mode=cpu&tasks={too_long}")
    expect(watched.page.locator(".notice")).to_be_visible(timeout=TIMEOUT)
    watched.assert_working_and_clean()


def test_thousands_of_tasks_in_a_link(watched, lab_url, test_output):
    """1,500 tasks in a link: the editor takes its first MAX_ROWS (every row is widgets the server builds; 1,500
    kept the server busy for over a minute), shows them ten at a time, says so in the link notices and beside its
    full editor, and steps."""
    tasks = ",".join(f"T{i}:{i % 50}:{1 + i % 3}" for i in range(1500))
    watched.open(f"{lab_url}?mode=cpu&algorithm=rr&tasks={tasks}")
    expect(watched.page.locator(".notice")).to_contain_text(f"at most {MAX_ROWS} tasks", timeout=TIMEOUT)
    expect(watched.page.locator(".notice")).to_contain_text(f"first {MAX_ROWS} of 1500", timeout=TIMEOUT)
    expect(watched.page.locator(".row-editor")).to_have_count(ROWS_PER_PAGE, timeout=TIMEOUT)
    expect(watched.page.locator(".rows-shown")).to_have_text(f"Tasks 1–{ROWS_PER_PAGE} of {MAX_ROWS}")
    expect(watched.page.locator(".row-limit")).to_contain_text(f"at most {MAX_ROWS} tasks", timeout=TIMEOUT)
    expect(watched.page.locator(".editor button", has_text="Add task")).to_be_disabled()
    watched.page.screenshot(path=test_output / "app-thousands-of-tasks.png")
    watched.page.locator(".row-limit").scroll_into_view_if_needed()
    watched.page.screenshot(path=test_output / "app-thousands-of-tasks-editor-end.png")
    watched.assert_working_and_clean()
    watched.page.locator(".step-next button").click()   # and again: stepping stays live
    expect(watched.page.locator(".counter")).to_contain_text("step 3/", timeout=TIMEOUT)
