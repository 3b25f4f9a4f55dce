"""The rule's source beside the step's views (app/source.py), in the served app in Chromium: at every step that asks
the rule, the first highlighted line is inside the panel's visible box (the pager scrolls the height-limited slot to
it), in every mode, at a laptop's 1366 px and in presenter mode at 1920 x 1080 (the panel unfolded there); and the
panel opens on the class and its docstring."""
from __future__ import annotations

import re

import pytest

from app.model import Lab as LabState
from app.source import SourceView
from tests.test_app_browser import TIMEOUT, Lab, expect

pytestmark = pytest.mark.browser

RUNS = {   # a mode's short rule, and rules whose deciding code is far down the panel (their helpers, inherited code)
    "cpu-srtf": "mode=cpu&algorithm=srtf&tasks=A:0:7,B:1:4,C:2:1,D:4:3",
    "cpu-mlfq": "mode=cpu&algorithm=mlfq&tasks=A:0:7,B:1:4,C:2:1,D:4:3",
    "cpu-cfs": "mode=cpu&algorithm=cfs&tasks=A:0:7,B:1:4:nice=5,C:2:1,D:4:3",
    "llm-sfq": "mode=llm&algorithm=sfq&tenants=A:8x6,B:2x6,C:2x4:join=6",
    "llm-drr": "mode=llm&algorithm=drr&tenants=A:8x6,B:2x6,C:2x4:join=6",
    "engine-vtc": "mode=engine&algorithm=vtc&slots=2&tenants=A:4/8x3,B:4/2x3+2/2@4",
    "engine-fcfs": "mode=engine&algorithm=fcfs&slots=2&tenants=A:4/8x3,B:4/2x3+2/2@4",
}
SIZES = {"laptop": ({"width": 1366, "height": 900}, False), "presenter": ({"width": 1920, "height": 1080}, True)}
MARKED = re.compile(r'<span class="line mark[^"]*" data-line="(\d+)"')
# Where the step's first highlighted line is against the source slot's visible box (both in page pixels).
# ``block``: the run of highlighted lines it starts is in view as far as it fits (all of it, or the panel's lower
# two thirds full of it).
MARK_JS = """(slot) => {
  const mark = slot.querySelector('.line.mark')
  if (!mark) return null
  let end = mark
  while (end.nextElementSibling && end.nextElementSibling.classList.contains('mark')) end = end.nextElementSibling
  const box = slot.getBoundingClientRect(), line = mark.getBoundingClientRect(), last = end.getBoundingClientRect()
  const inside = line.top >= box.top - 1 && line.bottom <= box.bottom + 1
  return {line: mark.dataset.line, inside,
          block: inside && (last.bottom <= box.bottom + 1 || line.top <= box.top + box.height / 3 + 1)}
}"""


def first_marks(query: str) -> tuple[str, list[int | None]]:
    """The rule's class line, and each step's first highlighted line number (None: the rule is not asked there),
    as Python renders the panel."""
    state = LabState()
    state.restore(query)
    view = SourceView(state)
    cards = [view.card(k) for k in range(len(state.result["steps"]))]
    heading = re.search(r'<span class="no">\d+</span>([^<]*)</span>', cards[0])[1]
    return heading, [int(found[1]) if (found := MARKED.search(card)) else None for card in cards]


def chosen_steps(marks: list[int | None]) -> list[int]:
    """Steps that ask the rule: the one whose line is furthest down, the nearest the top, and two between."""
    asked = [k for k, line in enumerate(marks) if line is not None]
    by_depth = sorted(asked, key=lambda k: (marks[k], k))
    picks = {by_depth[0], by_depth[-1], asked[len(asked) // 3], asked[2 * len(asked) // 3]}
    return sorted(picks)


def open_at_the_panel(browser, lab_url, size: str, query: str, heading: str) -> Lab:
    viewport, presenter = SIZES[size]
    context = browser.new_context(viewport=viewport, locale="en-US")
    lab = Lab(context.new_page(), lab_url).open(query)
    source = lab.page.locator(".slot-source")
    expect(source.locator(".line").first).to_contain_text(heading.strip(), timeout=TIMEOUT)   # the link's rule
    if presenter:
        lab.page.get_by_role("button", name="Presenter mode").click()
        expect(lab.page.locator(".editor")).to_be_hidden(timeout=TIMEOUT)
        expect(lab.page.locator(".source-view")).to_be_hidden(timeout=TIMEOUT)   # folded in presenter mode, ...
        lab.page.locator(".source-card .card-header").click()                    # ... unfolded on request
    expect(source.locator(".line").first).to_be_visible(timeout=TIMEOUT)
    return lab


@pytest.mark.parametrize("size", list(SIZES))
@pytest.mark.parametrize("run", list(RUNS))
def test_the_highlighted_line_is_in_the_panels_view_at_every_step(browser, lab_url, test_output, run, size):
    heading, marks = first_marks(RUNS[run])
    lab = open_at_the_panel(browser, lab_url, size, RUNS[run], heading)
    page, source = lab.page, lab.page.locator(".slot-source")
    # It opens on the rule: the class line first, at the top of the panel, its docstring next.
    assert source.evaluate("e => e.scrollTop") == 0
    expect(source.locator(".line").nth(1)).to_contain_text('"""', timeout=TIMEOUT)
    page.locator("body").click(position={"x": 5, "y": 5})
    at = 0
    for k in chosen_steps(marks):
        assert step_to(lab, marks, at, k)["inside"], f"{run} at {size}, step {k + 1}: line {marks[k]} is outside"
        at = k
    lab.shot(test_output, f"source-{run}-{size}")
    lab.page.context.close()


def step_to(lab: Lab, marks: list[int | None], at: int, k: int) -> dict:
    """Press → from step ``at`` to step ``k``; where its first highlighted line is once it is on screen."""
    for _ in range(k - at):
        lab.page.keyboard.press("ArrowRight")
    lab.expect_step(k + 1, len(marks))
    source = lab.page.locator(".slot-source")
    expect(source.locator(".line.mark").first).to_have_attribute("data-line", str(marks[k]), timeout=TIMEOUT)
    return source.evaluate(MARK_JS)


def test_the_deciding_method_is_in_view_as_far_as_it_fits(browser, lab_url):
    """MLFQ at 1366 px: stepping on to its expiry, ``expire`` (line 346 today) must not be left on the panel's last
    line with its body below the fold."""
    heading, marks = first_marks(RUNS["cpu-mlfq"])
    lab = open_at_the_panel(browser, lab_url, "laptop", RUNS["cpu-mlfq"], heading)
    lab.page.locator("body").click(position={"x": 5, "y": 5})
    at, seen = 0, []
    for k in chosen_steps(marks):
        seen.append((k + 1, step_to(lab, marks, at, k)["block"]))
        at = k
    lab.page.context.close()
    assert all(block for _, block in seen), seen


def test_the_highlighted_line_is_in_view_when_the_folded_panel_is_opened(browser, lab_url):
    """Presenter mode folds the panel: stepping meanwhile, then unfolding it, shows the step's line."""
    heading, marks = first_marks(RUNS["cpu-mlfq"])
    deepest = max(range(len(marks)), key=lambda k: marks[k] or 0)
    viewport, _ = SIZES["presenter"]
    context = browser.new_context(viewport=viewport, locale="en-US")
    lab = Lab(context.new_page(), lab_url).open(RUNS["cpu-mlfq"] + f"&step={deepest + 1}")
    lab.page.get_by_role("button", name="Presenter mode").click()
    expect(lab.page.locator(".source-view")).to_be_hidden(timeout=TIMEOUT)
    lab.page.locator(".source-card .card-header").click()
    source = lab.page.locator(".slot-source")
    expect(source.locator(".line.mark").first).to_have_attribute("data-line", str(marks[deepest]), timeout=TIMEOUT)
    try:
        lab.page.wait_for_function(f"(slot) => ({MARK_JS})(slot).inside", arg=source.element_handle(),
                                   timeout=TIMEOUT)
    finally:
        context.close()
