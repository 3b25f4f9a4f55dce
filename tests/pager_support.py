"""What Python renders for each step of a run (``app.frames``), and what the page shows of it: shared by the served
app's pager tests (tests/test_pager_browser.py) and the static site's (tests/test_site_browser.py)."""
from __future__ import annotations

from playwright.sync_api import expect

from app import frames
from app.model import Lab
from app.source import SourceView
from app.text import algorithm_label, t
from schedulers import simulate

TIMEOUT = 30_000  # ms: a step answered in the page, on a busy 2-core machine (a refill: Python's round trip)

# In the page: every slot's markup by name, the pager's state, and the Gantt cursors' positions. The expected
# markup goes through the same HTML parser (a <template>), so both sides are serialised alike.
READ_JS = """
(expected) => {
  const all = [], walk = (root) => {
    for (const e of root.querySelectorAll('*')) { all.push(e); if (e.shadowRoot) walk(e.shadowRoot) }
  }
  walk(document)
  const slots = {}
  for (const e of all) if (e.dataset && e.dataset.slot) slots[e.dataset.slot] = e.innerHTML
  const norm = {}
  for (const [name, html] of Object.entries(expected)) {
    const t = document.createElement('template'); t.innerHTML = html; norm[name] = t.innerHTML
  }
  const pager = all.find((e) => e.classList && e.classList.contains('step-pager'))
  // The Gantt cursors the pager on screen moves (its model names them by id), as Bokeh holds them.
  const views = [], visit = (v) => { views.push(v); for (const c of (v.child_views || [])) visit(c) }
  for (const v of Object.values(Bokeh.index)) visit(v)
  const shown = views.find((v) => v.model.class_name === 'Pager' && v.el.isConnected)
  const doc = Bokeh.documents[0], spans = {}
  for (const [owner, c] of Object.entries(shown ? shown.model.data.cursors : {})) {
    const span = doc.get_model_by_id(c.span), dim = doc.get_model_by_id(c.box)
    if (span) spans[owner] = [span.location, dim.left]
  }
  return {slots, norm, step: pager ? Number(pager.dataset.step) : null, window: pager ? pager.dataset.window : null,
          waiting: pager ? pager.hasAttribute('data-waiting') : null, spans}
}
"""


def expected_frames(query: str, lang: str = "en", compare: str | None = None) -> tuple[dict, frames.Frames]:
    """What Python renders for the link's run: the lab's frames (and Compare's, against ``compare``)."""
    state = Lab(lang=lang)
    state.restore(query)
    built = frames.lab_frames(state.result, lang, SourceView(state).card)
    if compare is not None:
        right = simulate(state.mode, {**state.scenario(), "algorithm": compare})
        headings = (t(lang, "compare.left", name=algorithm_label(state.result, lang)),
                    t(lang, "compare.right", name=algorithm_label(right, lang)))
        built = built.merged(frames.compare_frames(state.result, right, lang, headings))
    return state.result, built


def expect_frame(page, result: dict, built: frames.Frames, k: int, slots: tuple[str, ...] | None = None,
                 where: str = "") -> dict:
    """Step ``k`` is on screen: the counter (inside ``where``) says so, every slot holds Python's frame for it, and
    the core's sentence is the narration; returns what was read."""
    total = len(result["steps"])
    where = where or "[data-slot=counter]"   # the step-through view's counter (Compare has its own two)
    expect(page.locator(f"{where} .counter")).to_contain_text(f"step {k + 1}/{total}", timeout=TIMEOUT)
    names = slots or tuple(name for name in built.slots if not name.startswith("compare."))
    want = {name: built.slots[name](k) for name in names if not name.endswith("strip")}
    seen = page.evaluate(READ_JS, want)
    assert seen["step"] == k and not seen["waiting"]
    for name in want:
        assert seen["slots"].get(name) == seen["norm"][name], f"slot {name} at step {k + 1}"
    assert result["steps"][k]["why"]["en"] in page.locator(f"{where} .why").inner_text()
    return seen


