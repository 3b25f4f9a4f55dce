"""The lab app in real Chromium: `panel serve app/lab.py` on a free port, driven like a user.

Every expected number comes from `schedulers.simulate` in this process, never from a literal guess, except
the article's own 5.75 that the contract fixes.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

pytest.importorskip("panel")
playwright_api = pytest.importorskip("playwright.sync_api")
expect = playwright_api.expect
PlaywrightTimeout = playwright_api.TimeoutError

from schedulers import algorithms, simulate  # noqa: E402

pytestmark = pytest.mark.browser
ROOT = Path(__file__).resolve().parent.parent
ARTICLE = {"algorithm": "fcfs", "tasks": [
    {"name": "A", "arrival": 0, "burst": 7}, {"name": "B", "arrival": 1, "burst": 4},
    {"name": "C", "arrival": 2, "burst": 1}, {"name": "D", "arrival": 4, "burst": 3}]}
XSS = "<img src=x onerror=alert(1)>"
TIMEOUT = 20_000  # ms: a cold Panel session on a busy 2-core machine


# `lab_url` (panel serve app/lab.py for the session) and `lab` (a page of it, a `Lab` below) are in conftest.py:
# the app fuzzing, the other browser tests and the benchmarks share them.


class Lab:
    """A page of the lab plus what a user would read off it."""

    def __init__(self, page, base: str) -> None:
        self.page, self.base = page, base
        self.dialogs: list[str] = []
        page.on("dialog", lambda dialog: (self.dialogs.append(dialog.message), dialog.dismiss()))

    def open(self, query: str = "") -> "Lab":
        self.page.goto(self.base + (f"?{query}" if query else ""))
        expect(self.page.locator(".counter")).to_be_visible(timeout=TIMEOUT)
        return self

    def counter(self):
        return self.page.locator(".counter")

    def expect_step(self, k: int, n: int) -> None:
        expect(self.counter()).to_contain_text(f"step {k}/{n}", timeout=TIMEOUT)

    def button(self, css: str):
        return self.page.locator(f".{css} button")

    def field(self, name: str, row: int):
        return self.page.locator(f".field-{name} input").nth(row)

    def type_into(self, name: str, row: int, value: str) -> None:
        box = self.field(name, row)
        box.fill(value)
        box.press("Enter")

    def choose_algorithm(self, mode: str, name: str) -> None:
        self.page.locator(".editor select").first.select_option(label=algorithms(mode)[name].label["en"])

    def table_rows(self) -> list[list[str]]:
        rows = self.page.locator("table.metrics tbody tr")
        return [[c.strip() for c in rows.nth(i).locator("td").all_inner_texts()] for i in range(rows.count())]

    def averages(self) -> list[str]:
        return [c.strip() for c in self.page.locator("table.metrics tfoot td").all_inner_texts()]

    def narration(self):
        """The step's sentence; it is re-rendered with the counter, so read it with a polling ``expect``."""
        return self.page.locator(".why")

    def shot(self, folder: Path, name: str) -> Path:
        path = folder / f"{name}.png"
        self.page.screenshot(path=str(path), full_page=True)
        return path


def expect_true(page, predicate: str, arg, message: str) -> None:
    """Wait until the page's ``predicate(arg)`` holds (layout settles on its own time); fail with ``message``."""
    try:
        page.wait_for_function(predicate, arg=arg, timeout=TIMEOUT)
    except PlaywrightTimeout:
        pytest.fail(message)


def expect_fits_360(lab: "Lab", test_output: Path, name: str) -> None:
    lab.page.set_viewport_size({"width": 360, "height": 800})
    table = lab.page.locator(".table-wrap").element_handle()
    try:
        expect_true(lab.page, "t => document.documentElement.scrollWidth <= 370 && t.scrollWidth <= t.clientWidth + 1",
                    table, "the page or the results table scrolls sideways at 360 px")
    finally:
        lab.shot(test_output, name)


def shown(value) -> str:
    """How the table writes a JSON number (integers bare, others with two decimals)."""
    return f"{value:.2f}" if isinstance(value, float) and not value.is_integer() else str(int(value))


def expected_rows(result) -> list[list[str]]:
    return [[shown(task[c]) for c in ("arrival", "burst", "completion", "turnaround", "waiting", "response")]
            for task in result["tasks"]]


def expect_table(lab: Lab, result) -> None:
    want = expected_rows(result)
    rows = lab.page.locator("table.metrics tbody tr")
    expect(rows).to_have_count(len(want), timeout=TIMEOUT)
    for index, cells in enumerate(want):
        expect(rows.nth(index).locator("td:nth-of-type(-n+6)")).to_have_text(cells, timeout=TIMEOUT)


# --- CPU mode ---------------------------------------------------------------------------------------

def test_default_view_is_the_articles(lab, test_output):
    lab.open()
    lab.expect_step(1, 16)
    result = simulate("cpu", ARTICLE)
    assert len(result["steps"]) == 16
    expect_table(lab, result)
    averages = lab.averages()
    assert averages[-2:] == ["5.75", "5.75"]  # waiting and response, as the article says
    # A real DOM table with headers a screen reader announces, not a canvas.
    assert lab.page.locator("table.metrics caption").inner_text().strip() == "Results of the whole run"
    assert lab.page.locator('table.metrics th[scope="col"]').count() == 7
    # At the initial state no task is finished: every row is marked.
    expect(lab.page.locator("table.metrics tr.pending")).to_have_count(4)
    # Every arrival marker is whole inside the chart: A's, at t=0 on the top row, too.
    expect_true(lab.page, f"() => ({MARKERS_JS})().length === 1", None, "no Gantt chart's markers on the page")
    chart = lab.page.evaluate(MARKERS_JS)[0]
    frame = chart["frame"]
    assert len(chart["x"]) == 4
    for x, y, size in zip(chart["x"], chart["y"], chart["size"]):
        assert frame["left"] <= x - size / 2 and x + size / 2 <= frame["right"], chart
        assert frame["top"] <= y - size / 2 and y + size / 2 <= frame["bottom"], chart
    lab.shot(test_output, "cpu-default-1366")
    expect_fits_360(lab, test_output, "cpu-default-360")


def test_buttons_and_keys_move_the_step_and_the_story(lab, test_output):
    lab.open()
    result = simulate("cpu", ARTICLE)
    # One time convention on screen (trace.span): the initial step is before t=0, nothing has run or idled yet.
    expect(lab.counter()).to_have_text("step 1/16 before t=0", timeout=TIMEOUT)
    expect(lab.narration()).to_have_text(re.compile(r"^Before t=0: "))
    expect(lab.page.locator(".slot-state")).to_contain_text("Running: nothing yet")
    expect(lab.page.locator(".slot-state")).not_to_contain_text("idle")
    lab.button("step-next").click()
    lab.expect_step(2, 16)
    expect(lab.narration()).to_have_text(result["steps"][1]["why"]["en"], timeout=TIMEOUT)  # a new pane
    lab.page.locator("body").click(position={"x": 5, "y": 5})  # focus off the button: keys go to the page
    for _ in range(4):
        lab.page.keyboard.press("ArrowRight")
    lab.expect_step(6, 16)
    step = result["steps"][5]
    expect(lab.narration()).to_have_text(step["why"]["en"], timeout=TIMEOUT)
    expect(lab.counter()).to_have_text("step 6/16 t=4 → 5")   # the slice the sentence tells of
    assert step["why"]["en"].startswith("t=4: ")
    expect(lab.page.locator("ol.queue li")).to_have_text(step["ready"], timeout=TIMEOUT)  # a pane of its own
    lab.shot(test_output, "cpu-step-6-1366")
    lab.page.keyboard.press("ArrowLeft")
    lab.expect_step(5, 16)
    lab.page.keyboard.press("End")
    lab.expect_step(16, 16)
    expect(lab.page.locator("table.metrics tr.pending")).to_have_count(0, timeout=TIMEOUT)
    lab.page.keyboard.press("Home")
    lab.expect_step(1, 16)
    lab.button("step-prev").click()  # already at the start: stays
    lab.expect_step(1, 16)
    track = lab.page.locator(".step-slider input").first.bounding_box()
    lab.page.mouse.click(track["x"] + track["width"] * 0.5, track["y"] + track["height"] / 2)
    expect(lab.counter()).not_to_contain_text("step 1/16", timeout=TIMEOUT)  # the slider moves the step too
    lab.button("step-first").click()
    lab.expect_step(1, 16)
    lab.page.locator("body").click(position={"x": 5, "y": 5})
    lab.page.keyboard.press(" ")  # play
    expect(lab.counter()).not_to_contain_text("step 1/16", timeout=TIMEOUT)
    expect(lab.button("step-play")).to_contain_text("Pause")
    lab.page.keyboard.press(" ")  # pause
    expect(lab.button("step-play")).to_contain_text("Play", timeout=TIMEOUT)
    paused = lab.counter().inner_text()   # Play runs in the page (app/pager.py): a pause stops it at once
    lab.page.wait_for_timeout(2500)   # watched for a while: no step may come
    assert lab.counter().inner_text() == paused
    # Typing in a field is typing, not stepping.
    lab.field("burst", 0).press("ArrowRight")
    assert lab.counter().inner_text() == paused


@pytest.mark.parametrize("algorithm, quantum", [("srtf", None), ("rr", 3)])
def test_algorithms_change_the_table_as_the_core_says(lab, algorithm, quantum):
    lab.open()
    lab.button("step-last").click()
    lab.expect_step(16, 16)
    lab.choose_algorithm("cpu", algorithm)
    scenario = {**ARTICLE, "algorithm": algorithm}
    if quantum is not None:
        expect(lab.page.locator(".editor input").first).to_be_visible()
        default = simulate("cpu", scenario)
        expect_table(lab, default)
        lab.page.get_by_label("Quantum").fill(str(quantum))
        lab.page.get_by_label("Quantum").press("Enter")
        scenario["quantum"] = quantum
    result = simulate("cpu", scenario)
    expect_table(lab, result)
    assert lab.averages()[-2:] == [shown(result["averages"]["waiting"]), shown(result["averages"]["response"])]
    # The step was kept, clamped to the new run's last step.
    lab.expect_step(len(result["steps"]), len(result["steps"]))


def test_bad_input_shows_a_message_by_the_field_and_keeps_the_run(lab, lab_url):
    lab.open()
    lab.button("step-next").click()
    lab.expect_step(2, 16)
    lab.type_into("burst", 1, "0")
    row = lab.page.locator(".row-editor").nth(1)
    expect(row.locator(".error")).to_contain_text("tasks[1].burst", timeout=TIMEOUT)
    expect(row.locator(".error")).to_contain_text("must be >= 1", timeout=TIMEOUT)
    assert lab.page.locator(".row-editor").nth(0).locator(".error").count() == 0
    assert lab.averages()[-2:] == ["5.75", "5.75"]  # the last valid run stays on screen
    lab.expect_step(2, 16)
    assert "Traceback" not in lab.page.locator("body").inner_text()
    lab.type_into("burst", 1, "x")
    # Wait for this edit's own message (the "0" one is still on screen) before the next edit, as a reader does.
    expect(row.locator(".error")).to_contain_text("must be an integer", timeout=TIMEOUT)
    lab.type_into("burst", 1, "5")  # fixed: runs again and the message goes
    expect(row.locator(".error")).to_have_count(0, timeout=TIMEOUT)
    fixed = {**ARTICLE, "tasks": [dict(t, burst=5) if t["name"] == "B" else t for t in ARTICLE["tasks"]]}
    expect_table(lab, simulate("cpu", fixed))
    # A parameter's message sits under the parameter.
    lab.choose_algorithm("cpu", "rr")
    quantum = lab.page.get_by_label("Quantum")
    expect(quantum).to_be_visible(timeout=TIMEOUT)
    expect_table(lab, simulate("cpu", {**fixed, "algorithm": "rr"}))
    quantum.fill("abc")
    quantum.press("Enter")
    note = lab.page.locator(".editor .error")
    expect(note).to_have_count(1, timeout=TIMEOUT)
    expect(note).to_contain_text("quantum")
    below = lab.page.evaluate("() => {" + DEEP_JS + """
        return [deep(document, '.param-quantum')[0].getBoundingClientRect().bottom,
                deep(document, 'p.field-error')[0].getBoundingClientRect().top]}""")
    assert 0 <= below[1] - below[0] < 80, "the quantum's message is not right under the quantum"
    expect_table(lab, simulate("cpu", {**fixed, "algorithm": "rr"}))  # still the last valid run


# The page's websocket traffic, held back on demand in either direction: while ``held.edits`` is a list, what the
# page sends waits there; while ``held.answers`` is, what it receives does (no listener sees it). ``release(what)``
# delivers them in order: a slow network or a busy server, made to order.
HOLD_JS = """(() => {
  const Native = window.WebSocket, held = window.held = {edits: null, answers: null}
  window.WebSocket = class extends Native {
    constructor(...args) {
      super(...args)
      this.addEventListener("message", (event) => {   // the first listener: before Bokeh's
        if (!held.answers) return
        held.answers.push([this, event.data])
        event.stopImmediatePropagation()
      })
    }
    send(data) {
      if (held.edits) held.edits.push([this, data])
      else super.send(data)
    }
  }
  window.release = (what) => {
    const messages = held[what]
    held[what] = null
    for (const [socket, data] of messages)
      if (what === "edits") socket.send(data)
      else socket.dispatchEvent(new MessageEvent("message", {data}))
  }
})()"""


def edited_run(name: str, burst: int) -> dict:
    """The article's run with task B renamed and task C's burst changed, as the core runs it."""
    tasks = [dict(t, name=name) if t["name"] == "B" else dict(t, burst=burst) if t["name"] == "C" else t
             for t in ARTICLE["tasks"]]
    return simulate("cpu", {**ARTICLE, "tasks": tasks})


def expect_edited(lab: Lab, name: str, burst: int, typing: str) -> None:
    """C's burst field still holds the text being typed, B's the entered name, and the run shown is of the entered
    name and burst (the fields first: a failure then says whether the page or the run lost an edit)."""
    expect(lab.field("name", 1)).to_have_value(name)
    expect(lab.field("burst", 2)).to_have_value(typing)
    expect(lab.page.locator("table.metrics tbody tr").nth(1)).to_contain_text(name, timeout=TIMEOUT)
    expect_table(lab, edited_run(name, burst))


def hold(lab: Lab, what: str) -> None:
    lab.page.evaluate("what => { window.held[what] = [] }", what)


def release(lab: Lab, what: str) -> None:
    lab.page.evaluate("what => window.release(what)", what)


def test_an_answer_that_arrives_after_newer_keystrokes_leaves_them(lab):
    """A teacher renames B, then enters C's burst and types in it again; the server ran the rename before the rest
    arrived, but its answer reaches the page only after those keystrokes (a slow network): it replaces no newer
    text, and the run shown is of the fields' values."""
    lab.page.add_init_script(HOLD_JS)
    lab.open()
    expect_table(lab, simulate("cpu", ARTICLE))
    hold(lab, "answers")
    lab.type_into("name", 1, "Bee")
    expect_true(lab.page, "() => window.held.answers.some(([, data]) => String(data).includes('>Bee<'))", None,
                "the server never answered the rename")   # its run (the table names Bee) is on its way
    lab.type_into("burst", 2, "5")
    lab.field("burst", 2).fill("3")   # typing again, not yet entered
    release(lab, "answers")
    expect_edited(lab, "Bee", 5, "3")
    lab.field("burst", 2).press("Enter")
    expect_edited(lab, "Bee", 3, "3")


def test_edits_that_reach_the_server_together_all_count(lab):
    """The same edits reaching the server at once, as when it was busy: in that order Panel's own text field took
    back the keys typed after Enter about one round in two (tests/test_textfield.py has that order), so four
    rounds. The newest text stays in every field, and the run shown is of the fields' values."""
    lab.page.add_init_script(HOLD_JS)
    lab.open()
    expect_table(lab, simulate("cpu", ARTICLE))
    for name, burst, typing in (("Bee", 5, "3"), ("Bea", 2, "6"), ("Bo", 4, "1"), ("Bix", 6, "2")):
        hold(lab, "edits")
        lab.type_into("name", 1, name)
        lab.type_into("burst", 2, str(burst))
        lab.field("burst", 2).fill(typing)   # typing again, not yet entered
        release(lab, "edits")
        expect_edited(lab, name, burst, typing)
    lab.field("burst", 2).press("Enter")
    expect_edited(lab, "Bix", 2, "2")


def test_bad_url_values_are_reported_and_ignored(lab):
    lab.open("mode=cpu&algorithm=nonesuch&quantum=zero&tasks=A:0&step=99&colour=red")
    lab.expect_step(1, 16)  # the defaults run; nothing from the link was used
    notice = lab.page.locator(".notice")
    for key in ("algorithm", "tasks", "step", "colour"):
        expect(notice).to_contain_text(key, timeout=TIMEOUT)
    assert lab.averages()[-2:] == ["5.75", "5.75"]
    lab.open("mode=cpu&algorithm=rr&quantum=0&tasks=A:0:7,B:1:-4")  # readable, but the core rejects parts
    expect(lab.page.locator(".notice")).to_contain_text("quantum", timeout=TIMEOUT)
    expect(lab.page.locator(".notice")).to_contain_text("tasks[1].burst", timeout=TIMEOUT)
    expect_table(lab, simulate("cpu", {**ARTICLE, "algorithm": "rr"}))  # only the valid part (rr) was taken


def test_the_editor_shows_its_rows_ten_at_a_time(lab, test_output):
    """A link of 25 tasks: the editor lays out ten rows at a time ("Tasks 11–20 of 25"), the buttons page through
    them; an edit on the last page runs, and a task added goes on screen on the last page. Every run is the core's."""
    from app.model import Lab as Model
    query = "mode=cpu&algorithm=fcfs&tasks=" + ",".join(f"T{i}:{i}:{1 + i % 3}" for i in range(25))
    model = Model()
    model.restore(query)
    lab.open(query)
    page = lab.page
    rows, shown = page.locator(".row-editor"), page.locator(".rows-shown")
    expect(shown).to_have_text("Tasks 1–10 of 25", timeout=TIMEOUT)
    expect(rows).to_have_count(10)
    expect_table(lab, model.result)   # the run is all 25 tasks'
    expect(lab.button("rows-previous")).to_be_disabled()
    lab.button("rows-next").click()
    expect(shown).to_have_text("Tasks 11–20 of 25", timeout=TIMEOUT)
    expect(lab.field("name", 0)).to_have_value("T10")
    lab.button("rows-next").click()
    expect(shown).to_have_text("Tasks 21–25 of 25", timeout=TIMEOUT)
    expect(rows).to_have_count(5)
    expect(lab.button("rows-next")).to_be_disabled()
    lab.type_into("burst", 4, "9")   # T24
    model.rows[24].burst = "9"
    expect_table(lab, model.result)
    lab.page.locator(".editor button", has_text="+ Add task").click()
    expect(shown).to_have_text("Tasks 21–26 of 26", timeout=TIMEOUT)
    expect(rows).to_have_count(6)
    lab.shot(test_output, "editor-rows-paged")
    lab.button("rows-previous").click()
    expect(shown).to_have_text("Tasks 11–20 of 26", timeout=TIMEOUT)
    expect(lab.field("name", 9)).to_have_value("T19")


def test_a_link_restores_the_whole_setup(lab, browser, lab_url):
    lab.open()
    lab.choose_algorithm("cpu", "rr")
    expect(lab.page.get_by_label("Quantum")).to_be_visible(timeout=TIMEOUT)
    lab.page.get_by_label("Quantum").fill("3")
    lab.page.get_by_label("Quantum").press("Enter")
    lab.type_into("name", 2, "C, the short one")
    lab.type_into("arrival", 3, "5")
    for _ in range(6):
        lab.button("step-next").click()
    scenario = {"algorithm": "rr", "quantum": 3, "tasks": [
        {"name": "A", "arrival": 0, "burst": 7}, {"name": "B", "arrival": 1, "burst": 4},
        {"name": "C, the short one", "arrival": 2, "burst": 1}, {"name": "D", "arrival": 5, "burst": 3}]}
    result = simulate("cpu", scenario)
    n = len(result["steps"])
    lab.expect_step(7, n)
    expect(lab.page).to_have_url(re.compile(r"step=7"), timeout=TIMEOUT)
    link = lab.page.url
    assert "quantum=3" in link and "C%2C%20the%20short%20one" in link
    other = browser.new_context(viewport={"width": 1366, "height": 900})
    page = other.new_page()
    page.goto(link)
    again = Lab(page, lab_url)
    again.expect_step(7, n)
    expect_table(again, result)
    expect(again.narration()).to_have_text(result["steps"][6]["why"]["en"], timeout=TIMEOUT)
    assert again.field("name", 2).input_value() == "C, the short one"
    assert page.get_by_label("Quantum").input_value() == "3"
    assert page.locator(".notice li").count() == 0
    other.close()


# The elements matching ``css`` in the page and in every shadow root in it (Panel draws each component in one).
DEEP_JS = """
const deep = (root, css) => [...root.querySelectorAll(css), ...[...root.querySelectorAll("*")]
    .filter((e) => e.shadowRoot).flatMap((e) => deep(e.shadowRoot, css))]
"""
# Samples, every 50 ms from the first script on, of what the page shows: [the step counter's text, whether anything
# is marked loading], through Panel's shadow roots.
LOADING_SAMPLER_JS = DEEP_JS + """
window.loadingSamples = []
setInterval(() => {
    const counter = deep(document, ".counter")[0]
    window.loadingSamples.push([counter ? counter.textContent : null, deep(document, ".pn-loading").length > 0])
}, 50)
"""


def test_a_link_to_a_larger_run_is_the_first_run_drawn(lab):
    """The served page applies the link before it is drawn: the link's run is the first one on screen, never the
    default run (a lecturer must not explain the default run while a larger one is being computed), and nothing is
    left marked loading."""
    tasks = [{"name": f"T{i}", "arrival": i % 20, "burst": 1 + i % 3} for i in range(40)]
    total = len(simulate("cpu", {"algorithm": "rr", "tasks": tasks})["steps"])
    lab.page.add_init_script(LOADING_SAMPLER_JS)
    link = ",".join(f"{task['name']}:{task['arrival']}:{task['burst']}" for task in tasks)
    lab.page.goto(f"{lab.base}?mode=cpu&algorithm=rr&tasks={link}")
    expect_true(lab.page, "total => { const last = window.loadingSamples.at(-1) || []; "
                          "return !!last[0] && last[0].includes(`/${total}`) && !last[1] }", total,
                "the link's run never came on screen, or stayed marked loading")
    seen = [text for text, _ in lab.page.evaluate("window.loadingSamples") if text]
    assert seen and all(f"/{total}" in text for text in seen), [text for text in seen if f"/{total}" not in text][:3]


def test_cfs_reads_nice_from_the_editor_and_a_link_carries_it(lab, test_output):
    """CFS and EEVDF are CPU rules of the menu; the task field they read (nice) and their parameters appear in the
    editor when chosen, the results table shows the nice values, and the link carries them."""
    lab.open()
    assert lab.page.locator(".field-nice").count() == 0   # FCFS does not read nice
    lab.choose_algorithm("cpu", "cfs")
    expect(lab.page.get_by_label("Latency (period)")).to_have_value("6", timeout=TIMEOUT)
    expect(lab.field("nice", 1)).to_be_visible(timeout=TIMEOUT)
    lab.type_into("nice", 1, "-5")
    scenario = {"algorithm": "cfs", "tasks": [dict(t, nice=-5) if t["name"] == "B" else t for t in ARTICLE["tasks"]]}
    result = simulate("cpu", scenario)
    expect_table(lab, result)
    expect(lab.page.locator("table.metrics thead")).to_contain_text("Nice")
    assert [row[6] for row in lab.table_rows()] == ["—", "-5", "—", "—"]   # as for every optional field not given
    expect(lab.page).to_have_url(re.compile(r"algorithm=cfs&latency=6&min_granularity=1&tasks=A:0:7,B:1:4:nice=-5,"),
                                 timeout=TIMEOUT)
    lab.shot(test_output, "cfs-nice")
    lab.open("mode=cpu&algorithm=eevdf&slice=2&tasks=A:0:7:nice=3,B:1:4")
    expect(lab.page.get_by_label("Slice (request)")).to_have_value("2", timeout=TIMEOUT)
    expect(lab.field("nice", 0)).to_have_value("3")
    expect_table(lab, simulate("cpu", {"algorithm": "eevdf", "slice": 2, "tasks": [
        {"name": "A", "arrival": 0, "burst": 7, "nice": 3}, {"name": "B", "arrival": 1, "burst": 4}]}))
    assert lab.page.locator(".notice li").count() == 0


# Where task ``name``'s first slice is drawn on the page: the middle of its bar in the Gantt chart on screen, from
# the bars' data and the chart's scales (null until that chart holds the name).
SLICE_JS = """(name) => {
    for (const view of Bokeh.index.all_views()) {
        if (view.model?.type !== "GlyphRenderer" || view.glyph.model.type !== "HBar" || !view.parent.el.isConnected)
            continue
        const data = view.model.data_source.data, index = data.name.indexOf(name)
        if (index < 0) continue
        const canvas = view.parent.canvas_view.el.getBoundingClientRect(), {x_scale, y_scale} = view.coordinates
        return {x: canvas.left + x_scale.compute((data.left[index] + data.right[index]) / 2),
                y: canvas.top + y_scale.compute(data.row[index])}
    }
    return null
}"""


def test_a_hostile_name_stays_text(lab, test_output):
    lab.open()
    lab.type_into("name", 0, XSS)  # task A, which runs first under FCFS
    expect(lab.page.locator("table.metrics")).to_contain_text(XSS, timeout=TIMEOUT)
    for _ in range(3):
        lab.button("step-next").click()
    lab.expect_step(4, 16)
    expect(lab.page.locator(".card").filter(has_text="Running:").locator(".chip").first).to_have_text(XSS)
    expect(lab.page.locator(".why")).to_contain_text(XSS)
    # The Gantt hover tooltip shows the slice under the pointer; the name arrives as text.
    at = lab.page.wait_for_function(SLICE_JS, arg=XSS, timeout=TIMEOUT).json_value()
    lab.page.mouse.move(at["x"], at["y"])
    tooltip = lab.page.locator(".bk-tooltip-content")
    expect(tooltip.first).to_contain_text(XSS, timeout=TIMEOUT)
    expect(tooltip.first).to_contain_text("t=0 → 7")   # the slice as the counter writes a span (step.span)
    # The viewport with the tooltip over the chart (a full-page shot resizes the page, and Bokeh hides the tooltip).
    lab.page.screenshot(path=str(test_output / "cpu-hostile-name.png"))
    assert lab.page.locator('img[src="x"]').count() == 0
    # No dialog: the payload's alert runs only when the request for its image "x" fails, a round trip after the
    # markup is inserted, so markup drawn and replaced before the check above could still open one now. Watch for
    # a second (a dialog ends the watch at once).
    with pytest.raises(PlaywrightTimeout):
        lab.page.wait_for_event("dialog", timeout=1000)
    assert lab.dialogs == []


# --- LLM mode ---------------------------------------------------------------------------------------

TWO_TENANTS = "mode=llm&tenants=A:8x6,B:2x6"


def strip_order(lab: Lab) -> str:
    return "".join(n.strip() for n in lab.page.locator("ol.strip .cell-name").all_inner_texts())


def test_llm_round_robin_equalises_counts_and_sfq_normalised_cost(lab, test_output):
    scenario = {"tenants": [{"name": "A", "cost": 8, "count": 6}, {"name": "B", "cost": 2, "count": 6}]}
    lab.open(TWO_TENANTS + "&algorithm=rr")
    rr = simulate("llm", {**scenario, "algorithm": "rr"})
    expect(lab.page.locator("ol.strip")).to_be_visible(timeout=TIMEOUT)
    assert strip_order(lab) == "".join(d["tenant"] for d in rr["dispatch"])
    counts = [row[2] for row in lab.table_rows()]  # dispatched per tenant
    assert counts == [shown(t["dispatched"]) for t in rr["tenants"]]
    first = strip_order(lab)[:8]
    assert first.count("A") == first.count("B")  # one each per turn while both wait
    lab.choose_algorithm("llm", "sfq")
    sfq = simulate("llm", {**scenario, "algorithm": "sfq"})
    expect(lab.page.locator("ol.strip")).to_contain_text("".join(d["tenant"] for d in sfq["dispatch"])[:1])
    expect(lab.page.locator("ol.strip .cell-name")).to_have_text([d["tenant"] for d in sfq["dispatch"]],
                                                                  timeout=TIMEOUT)
    fair = lab.page.locator(".fairness")
    expect(fair).to_contain_text("So far no dispatch had every tenant waiting", timeout=TIMEOUT)   # step 1
    lab.button("step-last").click()
    lab.expect_step(len(sfq["steps"]), len(sfq["steps"]))
    increments = sfq["fairness"]["increments"]  # at the last step: the whole run's interval
    expect(fair.locator(".bar-value")).to_have_text([shown(increments[name]) for name in increments],
                                                    timeout=TIMEOUT)
    bound = sfq["fairness"]["pairwise_bound"]
    assert max(increments.values()) - min(increments.values()) <= bound["bound"] and bound["holds"]
    expect(fair).to_contain_text(f"between two tenants: {shown(bound['max_gap'])}, against the bound 2c̄ = "
                                 f"{shown(bound['bound'])}: holds")
    expect(lab.page.locator(".editor")).to_contain_text(algorithms("llm")["sfq"].summary["en"])
    lab.shot(test_output, "llm-sfq-1366")
    expect_fits_360(lab, test_output, "llm-sfq-360")


def test_the_mode_switch_opens_the_contracts_reference(lab, test_output):
    lab.open()
    lab.page.get_by_role("button", name="LLM router", exact=True).click()
    reference = simulate("llm", {"algorithm": "sfq", "tenants": [
        {"name": "A", "cost": 8, "count": 6}, {"name": "B", "cost": 2, "count": 6},
        {"name": "C", "cost": 2, "count": 4, "join": 6}]})
    n = len(reference["steps"])
    expect(lab.page.locator("ol.strip")).to_be_visible(timeout=TIMEOUT)
    lab.expect_step(1, n)
    assert strip_order(lab) == "ABBBBABCBCCCAAAA" == "".join(d["tenant"] for d in reference["dispatch"])
    joined = next(i for i, s in enumerate(reference["steps"]) if s["kind"] == "join" and s["tenant"] == "C")
    lab.page.locator("body").click(position={"x": 5, "y": 5})
    for _ in range(joined + 2):
        lab.page.keyboard.press("ArrowRight")
    lab.expect_step(joined + 3, n)
    expect(lab.narration()).to_have_text(reference["steps"][joined + 2]["why"]["en"], timeout=TIMEOUT)
    queues = reference["steps"][joined + 2]["queues"]
    for row, name in zip(lab.page.locator(".queue-row").all(), ("A", "B", "C"), strict=True):
        expect(row.locator(".req")).to_have_text([shown(c) for c in queues[name]], timeout=TIMEOUT)
    lab.shot(test_output, "llm-reference-1366")
    # The rule's code (some 1,200 px for SFQ) is a screenful beside the strip, scrolled to the step's lines.
    source = lab.page.locator(".slot-source")
    expect(source.locator(".line.mark").first).to_be_in_viewport(timeout=TIMEOUT)
    assert source.evaluate("e => e.scrollHeight > e.clientHeight && e.clientHeight < innerHeight")
    assert lab.page.evaluate("document.documentElement.scrollHeight") < 1600   # once 2,190 px
    lab.page.locator(".source-card .card-header").click()   # it folds
    expect(lab.page.locator(".source-view")).to_be_hidden(timeout=TIMEOUT)
    lab.page.get_by_role("button", name="CPU", exact=True).click()
    expect(lab.page.locator("canvas").first).to_be_visible(timeout=TIMEOUT)
    expect(lab.page.locator("table.metrics tfoot")).to_contain_text("5.75")  # the CPU setup was kept while away


def test_an_idle_reset_is_a_step_of_its_own(lab):
    scenario = {"algorithm": "sfq", "tenants": [{"name": "A", "cost": 8, "count": 2},
                                                {"name": "B", "cost": 2, "count": 2, "join": 5}]}
    result = simulate("llm", scenario)
    kinds = [s["kind"] for s in result["steps"]]
    assert "idle_reset" in kinds
    index = kinds.index("idle_reset")
    lab.open(f"mode=llm&algorithm=sfq&tenants=A:8x2,B:2x2:join=5&step={index + 1}")
    lab.expect_step(index + 1, len(kinds))
    expect(lab.counter()).to_contain_text("idle reset")
    expect(lab.narration()).to_have_text(result["steps"][index]["why"]["en"], timeout=TIMEOUT)
    lab.button("step-next").click()
    lab.expect_step(index + 2, len(kinds))
    expect(lab.narration()).to_have_text(result["steps"][index + 1]["why"]["en"], timeout=TIMEOUT)


# BokehJS's views of one model type on the page, once each (``all_views`` lists every view, nested ones too).
VIEWS_JS = """const views = (type) => [...new Map(Bokeh.index.all_views()
    .filter((view) => view.model?.type === type).map((view) => [view.model.id, view])).values()]
"""
# The Gantt chart's time axis as BokehJS draws it: its ticks, their labels, the frame's width and the label font.
AXIS_JS = """() => {""" + VIEWS_JS + """
    const pen = document.createElement("canvas").getContext("2d")
    return views("LinearAxis").map((view) => {
        const ticks = view.tick_coords.major[0], font = view.model.major_label_text_font_size
        const labels = view.model.formatter.doFormat(ticks, {loc: 0}), frame = view.parent.frame
        pen.font = `${font} sans-serif`
        return {ticks, labels, font, widest: Math.max(...labels.map((label) => pen.measureText(label).width)),
                frame: frame.bbox.width, start: frame.x_range.start, end: frame.x_range.end}
    })
}"""
# Where the cursor of each Gantt chart on screen stands (the Bokeh Span the pager moves), in time units.
CURSORS_JS = """() => {""" + VIEWS_JS + """
    return views("Span").filter((view) => view.parent?.el?.isConnected).map((view) => view.model.location)
}"""
# Each chart's arrival markers (its Scatter glyph): their centres and sizes in pixels, and the chart's frame
# (a marker outside it is clipped).
MARKERS_JS = """() => {""" + VIEWS_JS + """
    return views("GlyphRenderer").filter((view) => view.glyph?.model?.type === "Scatter").map((view) => {
        const frame = view.parent.frame.bbox, glyph = view.glyph
        return {frame: {left: frame.left, top: frame.top, right: frame.right, bottom: frame.bottom},
                x: [...glyph.sx], y: [...glyph.sy], size: [...glyph.size]}
    })
}"""
# Runs of about a thousand and a million time units: (algorithm, quantum, tasks as name, arrival, burst)
LARGE_TIMES = {"thousand": ("rr", 50, [("A", 0, 400), ("B", 100, 300), ("C", 200, 1), ("D", 350, 250)]),
               "million": ("srtf", None, [("A", 0, 990000), ("B", 5, 3), ("C", 1000, 2)])}


@pytest.mark.parametrize("scale", list(LARGE_TIMES))
@pytest.mark.parametrize("width, presenter", [(1366, False), (1920, True)])
def test_the_time_axis_reads_at_every_scale(browser, lab_url, test_output, scale, width, presenter):
    """Whole time units, never 0.5e+5; labels as far apart as they are wide (no two run together) at a laptop's
    width and in presenter mode; the editor shows a burst of 990000 whole."""
    algorithm, quantum, tasks = LARGE_TIMES[scale]
    query = f"mode=cpu&algorithm={algorithm}&tasks=" + ",".join(f"{n}:{a}:{b}" for n, a, b in tasks)
    scenario = {"algorithm": algorithm, "tasks": [{"name": n, "arrival": a, "burst": b} for n, a, b in tasks]}
    if quantum:
        query, scenario["quantum"] = f"{query}&quantum={quantum}", quantum
    run = simulate("cpu", scenario)
    end, total, burst = run["summary"]["makespan"], len(run["steps"]), str(tasks[0][2])
    context = browser.new_context(viewport={"width": width, "height": 1080 if presenter else 900})
    page = context.new_page()
    lab = Lab(page, lab_url).open(query)
    expect(page.locator("table.metrics")).to_contain_text(str(end), timeout=3 * TIMEOUT)   # the link's run is drawn
    field = lab.field("burst", 0)
    expect(field).to_have_value(burst)
    assert field.evaluate("e => e.scrollWidth <= e.clientWidth"), "the burst field cuts its value"
    if presenter:
        page.get_by_role("button", name="Presenter mode").click()
        expect(page.locator(".editor")).to_be_hidden(timeout=TIMEOUT)
    font = "18pt" if presenter else "11pt"
    expect_true(page, f"([end, font]) => ({AXIS_JS})().some((a) => a.end === end && a.font === font)", [end, font],
                f"no time axis up to {end} in {font}")
    axis = next(a for a in page.evaluate(AXIS_JS) if a["end"] == end and a["font"] == font)
    assert len(axis["ticks"]) >= 4 and all(re.fullmatch(r"\d+", label) for label in axis["labels"]), axis
    assert all(float(tick).is_integer() for tick in axis["ticks"]), axis
    step_px = (axis["ticks"][1] - axis["ticks"][0]) * axis["frame"] / (axis["end"] - axis["start"])
    assert step_px >= axis["widest"] + 8, f"tick labels {axis['widest']:.0f} px wide, {step_px:.0f} px apart"
    lab.button("step-last").click()   # every slice drawn in full colour for the picture
    lab.expect_step(total, total)
    lab.shot(test_output, f"time-axis-{scale}-{width}{'-presenter' if presenter else ''}")
    context.close()


# --- both -------------------------------------------------------------------------------------------

# Where an element's text ends on screen (its text's own box: overflowing text counts, the element's box may not).
TEXT_END_JS = ("e => { const r = document.createRange(); r.selectNodeContents(e); "
               "return r.getBoundingClientRect().right }")


def font_px(locator) -> float:
    return locator.evaluate("e => parseFloat(getComputedStyle(e).fontSize)")


PRESENTER = {"en": "Presenter mode", "ja": "プレゼンターモード"}


@pytest.mark.parametrize("mode, lang", [("cpu", "en"), ("cpu", "ja"), ("llm", "en"), ("llm", "ja")])
def test_presenter_mode_fits_a_projector(browser, lab_url, test_output, mode, lang):
    """At 1920 × 1080 the step controls, the narration, the chart (or the strip with the meters) and the queue are
    all on the first screen, larger than on a laptop; the rule's code is folded away; every control grows alike."""
    context = browser.new_context(viewport={"width": 1920, "height": 1080})
    page = context.new_page()
    lab = Lab(page, lab_url).open(f"mode={mode}&lang={lang}")
    # The link applied (its mode's views, its language's words) before presenter mode is switched on.
    expect(page.locator("ol.strip" if mode == "llm" else "canvas").first).to_be_visible(timeout=TIMEOUT)
    expect(page.locator(".teach-tabs")).to_contain_text("ステップ実行" if lang == "ja" else "Step through",
                                                        timeout=TIMEOUT)
    # Before presenter mode hides the editor: a row stays on one line at 1920 px (an LLM tenant's: Weight and ✕ too),
    # and no label runs under the ✕ button (the Japanese burst label once did).
    last_field = page.locator(".row-editor").first.locator("input").last
    remove = page.locator(".row-editor").first.locator("button", has_text="✕")
    first_box, last_box, remove_box = (e.bounding_box() for e in (lab.field("name", 0), last_field, remove))
    assert abs(first_box["y"] - last_box["y"]) < 2 and remove_box["y"] < first_box["y"] + first_box["height"]
    assert page.locator(".row-editor").first.locator("label").last.evaluate(TEXT_END_JS) <= remove_box["x"]
    before = font_px(page.locator(".why"))
    page.get_by_role("button", name=PRESENTER[lang]).click()
    # The narration as it is now (presenter mode lays the step's views out anew), 30 % larger.
    expect_true(page, "before => {" + DEEP_JS + "const why = deep(document, '.why')[0]; "
                "return !!why && parseFloat(getComputedStyle(why).fontSize) >= 1.3 * before }", before,
                "presenter mode did not enlarge the narration by 30 %")
    expect(page.locator(".editor")).to_be_hidden(timeout=TIMEOUT)   # the step's views take the screen
    page.locator(".step-next button").click()
    page.locator(".step-next button").click()
    expect(lab.counter()).to_contain_text("3/" if lang == "en" else "ステップ 3/", timeout=TIMEOUT)
    chart = page.locator("canvas").first if mode == "cpu" else page.locator("ol.strip")
    wanted = [page.locator(".step-pager"), lab.counter(), page.locator(".why"), chart,
              page.locator(".slot-state section").first]   # the ready queue, or the tenants' queues
    if mode == "llm":
        wanted.append(page.locator(".slot-state section").nth(1))   # the meters
    expect(chart).to_be_visible(timeout=TIMEOUT)
    expect(page.locator(".source-view")).to_be_hidden()   # the rule's code is folded in presenter mode
    expect(page.locator(".source-card")).to_be_visible()
    lab.shot(test_output, f"{mode}-{lang}-presenter-1920")
    page.screenshot(path=test_output / f"{mode}-{lang}-presenter-1920x1080.png")   # the screen, as the room sees it
    assert page.evaluate("window.scrollY") == 0
    for part in wanted:
        box = part.bounding_box()
        assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= 1080, part
    if mode == "cpu":
        assert chart.bounding_box()["height"] >= 300   # large on the wall
        # The chart drawn for presenter mode is the one whose cursor follows the step (step 3 ends at t=2).
        expect_true(page, f"time => {{ const at = ({CURSORS_JS})(); return at.length === 1 && at[0] === time }}",
                    simulate("cpu", ARTICLE)["steps"][2]["time"], "the Gantt chart's cursor did not follow the step")
    # The teaching tabs grow with every other control (they once stayed 12.8 px).
    tab_size = font_px(page.locator(".teach-tabs .bk-btn").first)
    assert abs(tab_size - font_px(page.locator(".step-pager button").first)) <= 2.5 and tab_size >= 18
    page.locator(".source-card .card-header").click()   # unfolded on request, below the step's views
    expect(page.locator(".source-view")).to_be_visible(timeout=TIMEOUT)
    context.close()


def test_language_switch_translates_labels_and_narration(browser, lab_url, test_output):
    context = browser.new_context(viewport={"width": 1366, "height": 900}, locale="ja-JP")
    page = context.new_page()
    lab = Lab(page, lab_url).open()
    result = simulate("cpu", ARTICLE)
    expect(lab.counter()).to_contain_text("ステップ 1/16", timeout=TIMEOUT)  # from the browser's language
    # The burst label (実行時間) ends before the row's ✕ button, at a laptop's width.
    expect(page.locator(".field-burst label").first).to_contain_text("実行時間", timeout=TIMEOUT)
    remove_box = page.locator(".row-editor").first.locator("button", has_text="✕").bounding_box()
    assert page.locator(".field-burst label").first.evaluate(TEXT_END_JS) <= remove_box["x"]
    lab.button("step-next").click()
    expect(page.locator(".why")).to_have_text(result["steps"][1]["why"]["ja"], timeout=TIMEOUT)
    lab.shot(test_output, "cpu-ja-1366")
    page.get_by_role("button", name="English").click()
    expect(lab.counter()).to_contain_text("step 2/16", timeout=TIMEOUT)
    expect(page.locator(".why")).to_have_text(result["steps"][1]["why"]["en"])
    context.close()
