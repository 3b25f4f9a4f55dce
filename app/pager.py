"""The step controls as a pager in the page: Python prepares every step's frame (``app/frames.py``), the browser
shows them.

``Pager`` is a Panel ``JSComponent``: First / Prev / Next / Last, Play with its speed, the step slider and the
keys (← → Space Home End) change the step in the browser, where the pager swaps in the frame's prepared markup
(into the ``FrameSlot`` components placed across the page) and moves the Gantt cursors (the Bokeh ``Span`` and
``BoxAnnotation``, found by id in the page's document). Only then is Python told the step, for the address bar,
the quiz and the exports; nothing is rendered again for it. The JavaScript decides nothing and renders nothing
Python did not prepare: it picks frame k of the window, joins its chunks, and sets the marks it is given.

``Stepping`` is the Python side: it builds the frames when the run, the language or the view changes, sends the
window around the current step (``Frames.window``), refills it when the step nears an edge or jumps outside it
(the only step that waits for Python: the page shows "Loading this step…" meanwhile, never another step's frame),
and keeps ``Lab.step``/``playing``/``speed`` and the pager's in step: Python's own changes of the step are counted
jumps (``target``), so a step the page took meanwhile neither undoes one nor is mistaken for its echo.

A page drawn without Python behind it (the static site's prerender: ``Stepping.static``) steps the run it was drawn
for alone, when its address asks for that run (``static_queries``; another run waits for Python and says so): it
keeps ``?step=`` in the address (``history.replaceState``), marks ``<html>`` with ``lab-stepping`` while it steps
(the site's boot lets the step controls through and holds back the rest), and leaves the step it reached to the
pager Python draws when it takes over.
"""
from __future__ import annotations

import uuid
import param
from panel.custom import JSComponent

from . import frames, render
from .compare import comparable
from .model import SPEEDS, LabView
from .panes import STYLESHEETS
from .teach_text import algorithm_label
from .teach_text import t as teach_t
from .text import t

# Slots and controls: the pager's own styles beside the lab's (each component draws in its own shadow root).
PAGER_CSS = """
.step-pager .pager-buttons { display: flex; flex-wrap: wrap; align-items: end; gap: 0.2em 0.25em; }
.step-pager button, .step-pager select { font: inherit; font-size: 0.95em; border-radius: 0.375em; padding: 0.3em 0.6em;
  border: 1px solid transparent; background: #eef0f2; color: #212529; cursor: pointer; }
.step-pager button:hover { background: #dde1e5; }
.step-pager button.primary { background: #0072B2; color: #fff; }
.step-pager button.primary:hover { background: #005f94; }
.step-pager button:focus-visible, .step-pager select:focus-visible, .step-pager input:focus-visible {
  outline: 3px solid #E69F00; outline-offset: 1px; }
.pager-speed { display: inline-flex; flex-direction: column; margin-left: 0.4em; }
.pager-speed select { border-color: #ced4da; background: #f8f9fa; }
.step-slider { display: block; margin: 0.3em 0.4em 0.1em; }
.step-slider input { display: block; width: 100%; margin: 0.3em 0; accent-color: #0072B2; }
.slot-source { position: relative; max-height: 32em; overflow-y: auto; }
.slot.waiting { visibility: hidden; }
.slot.waiting.slot-counter { visibility: visible; }
.pending-step { color: #555; font-style: italic; }
"""

PAGER_JS = r"""
// One hub per lab on the page: its pager and the slots that show the frames (placed anywhere in the layout).
const HUBS = (globalThis.schedlabPagers ??= {})
const hubOf = (group) => (HUBS[group] ??= {slots: new Set(), pager: null})
const KEYS = {ArrowLeft: "prev", ArrowRight: "next", " ": "toggle", Home: "first", End: "last"}

export function render({model, view}) {
  const hub = hubOf(model.group)
  const make = (tag, cls) => { const e = document.createElement(tag); if (cls) e.className = cls; return e }
  const root = make("div", "step-pager")
  const row = make("div", "pager-buttons")
  const buttons = {}
  for (const key of ["first", "prev", "next", "last", "play"]) {
    const wrap = make("div", `step-${key}`)
    buttons[key] = make("button", key === "play" ? "primary" : "")
    buttons[key].type = "button"
    wrap.append(buttons[key])
    row.append(wrap)
  }
  const speedBox = make("label", "pager-speed"), speedName = make("span"), speed = make("select")
  speedBox.append(speedName, speed)
  row.append(speedBox)
  const sliderBox = make("label", "step-slider"), sliderName = make("span"), slider = make("input")
  slider.type = "range"
  slider.min = 0
  sliderBox.append(sliderName, slider)
  const keys = make("p", "muted keys")
  root.append(row, sliderBox, keys)

  // model.target is [jump, step]: Python's latest jump (a counter) and the step it asked for or heard of last.
  let [seen, current] = model.target   // the jump this page has followed, and the step on screen
  let told = current                    // the last step Python knows of
  let playing = false, clock = null, beat = null
  let telling = null, awaiting = false
  let cache = new Map()        // content number -> markup, for the window on hand

  // A page drawn without Python (a prerender) holds the frames of the run it was drawn for: it steps them only
  // when its address asks for that run (a link to another run waits for Python), and keeps the step in the address
  // itself (a reload, and Python once it takes over, start there).
  const setupOf = (search) => search.replace(/^\?/, "").split("&").filter((p) => p && !/^(step|lang)=/.test(p)).join("&")
  const drawn = model.static_queries || []
  const mine = !drawn.length || drawn.includes(setupOf(location.search))
  const win = () => (mine && model.window) || {}
  const last = () => Math.max((win().total || 1) - 1, 0)
  const has = (k) => { const w = win(); return w.frames !== undefined && w.start <= k && k < w.end }
  function markup(id) {
    let text = cache.get(id)
    if (text === undefined) {
      const w = win()
      text = w.contents[id].map((c) => w.chunks[c]).join("")
      cache.set(id, text)
    }
    return text
  }
  // The strip's cells from the frame's [past, now]: before past sent, now this step's, the rest to come.
  function strip(slot, [past, now]) {
    const cells = slot.box.querySelector("ol.strip")?.children
    if (!cells) return
    const [past0, now0] = slot.strip || [0, -1]
    const touched = new Set([now0, now])
    for (let i = Math.min(past0, past); i < Math.max(past0, past); i++) touched.add(i)
    for (const i of touched) {
      const cell = cells[i]
      if (!cell) continue
      const state = i === now ? "current" : i < past ? "past" : "future"
      cell.classList.remove("past", "current", "future")
      cell.classList.add(state)
      if (state === "current") cell.setAttribute("aria-current", "step")
      else cell.removeAttribute("aria-current")
    }
    slot.strip = [past, now]
  }
  // A height-limited slot (the rule's source) scrolls the step's first marked line into its view, not the page.
  function inView(box) {
    const mark = box.querySelector(".mark")
    if (!mark) return
    const top = mark.offsetTop, bottom = top + mark.offsetHeight
    if (top < box.scrollTop || bottom > box.scrollTop + box.clientHeight) box.scrollTop = Math.max(0, top - box.clientHeight / 3)
  }
  function paint(slot) {
    const w = win()
    const ready = has(current), waiting = !ready && (w.frames !== undefined || !mine)
    slot.box.classList.toggle("waiting", waiting)
    slot.box.setAttribute("aria-busy", String(waiting))
    if (!ready) {
      if (slot.name === "counter" && waiting) {
        slot.box.innerHTML = slot.html = (mine ? model.labels.pending : model.labels.link) || ""
        slot.content = null
      }
      return
    }
    const i = current - w.start, column = w.slots.indexOf(slot.name)
    const id = column < 0 ? null : w.frames[i][column]
    if (id !== slot.content) {
      const html = id === null ? "" : markup(id)
      if (html !== slot.html) {   // a refilled window numbers its contents anew: the same markup stays put
        slot.box.innerHTML = html
        slot.html = html
        slot.strip = null
      }
      slot.content = id
      if (slot.name === "source") inView(slot.box)
    }
    for (const mark of Object.values(w.marks || {})) {
      if (mark.slot === slot.name) strip(slot, mark.values[i])
    }
  }
  function cursors() {
    const w = win(), doc = view.model.document
    if (!has(current) || !doc) return
    const i = current - w.start
    for (const cursor of Object.values(model.cursors || {})) {
      const values = (w.marks || {})[cursor.mark]?.values
      if (!values) continue
      const span = doc.get_model_by_id(cursor.span), dim = doc.get_model_by_id(cursor.box)
      if (span && span.location !== values[i]) span.location = values[i]
      if (dim && dim.left !== values[i]) dim.left = values[i]
    }
  }
  function show() {
    for (const slot of hub.slots) paint(slot)
    cursors()
    slider.max = last()
    slider.value = current
    root.dataset.step = current
    root.dataset.window = win().frames ? `${win().start}-${win().end}` : ""
    root.toggleAttribute("data-waiting", !has(current))
  }
  // Python hears the step after the page shows it, with the jump it follows (a step chosen before Python's
  // own latest jump is stale there). While a frame outside the window is on its way, only the latest step is
  // sent when it arrives, so a dragged slider asks for one refill, not one per position.
  function tell() {
    if (telling !== null) return
    telling = setTimeout(() => {
      telling = null
      if (awaiting || told === current) return
      awaiting = !has(current)
      told = current
      model.send_msg({jump: seen, step: current})
    }, 0)
  }
  function go(k) {
    k = Math.max(0, Math.min(k, last()))
    if (k === current && has(k)) return
    current = k
    show()
    tell()
    if (drawn.length && mine) remember()
  }
  function remember() {
    globalThis.schedlabReached = current
    const step = `step=${current + 1}`, search = location.search
    const next = /([?&])step=[^&]*/.test(search) ? search.replace(/([?&])step=[^&]*/, `$1${step}`)
      : `${search}${search ? "&" : "?"}${step}`
    history.replaceState(history.state, "", next + location.hash)
  }
  function setPlaying(on) {
    playing = on
    buttons.play.textContent = (model.labels || {})[on ? "pause" : "play"] || ""
    if (model.playing !== on) model.playing = on
    if (beat !== null) cancelAnimationFrame(beat)
    beat = null
    if (on) {
      clock = {time: performance.now(), step: current}
      beat = requestAnimationFrame(advance)
    }
  }
  // Play keeps time from its start, not from the last beat: steps land on the clock, without drift.
  function advance(now) {
    beat = null
    if (!playing) return
    const due = Math.min(clock.step + Math.floor((now - clock.time) * model.speed / 1000), last())
    if (due > current) {
      if (has(current + 1)) go(due <= current + 1 || has(due) ? due : win().end - 1)
      else clock = {time: now, step: current}   // the window is being refilled: wait here, then go on
    }
    if (current >= last()) { setPlaying(false); return }
    beat = requestAnimationFrame(advance)
  }
  const actions = {
    first: () => go(0), prev: () => go(current - 1), next: () => go(current + 1), last: () => go(last()),
    toggle: () => { if (!playing && current >= last()) go(0); setPlaying(!playing) },
  }
  for (const key of ["first", "prev", "next", "last"]) buttons[key].addEventListener("click", actions[key])
  buttons.play.addEventListener("click", actions.toggle)
  slider.addEventListener("input", () => go(Number(slider.value)))
  speed.addEventListener("change", () => {
    model.speed = Number(speed.value)
    if (playing) clock = {time: performance.now(), step: current}
  })
  function onKey(event) {
    const action = KEYS[event.key]
    if (!action || event.altKey || event.ctrlKey || event.metaKey || !root.isConnected) return
    const target = event.composedPath()[0]
    if (target instanceof Element) {
      if (/^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName) || target.isContentEditable) return
      if (action === "toggle" && target.tagName === "BUTTON") return
    }
    event.preventDefault()
    actions[action]()
  }
  function relabel() {
    const labels = model.labels || {}
    for (const key of ["first", "prev", "next", "last"]) buttons[key].textContent = labels[key] || key
    buttons.play.textContent = labels[playing ? "pause" : "play"] || ""
    speedName.textContent = labels.speed || ""
    sliderName.textContent = labels.step || ""
    keys.textContent = labels.keys || ""
    speed.replaceChildren(...(model.speeds || []).map((s) => {
      const option = make("option")
      option.value = s
      option.textContent = `${s}×`
      option.selected = s === model.speed
      return option
    }))
  }
  document.addEventListener("keydown", onKey)
  // While a prerender steps alone, <html> says so (the static site's boot lets the step controls through).
  if (drawn.length && mine) document.documentElement.classList.add("lab-stepping")
  const pager = {paint: (slot) => { paint(slot); cursors() }}
  hub.pager = pager
  model.on("window", () => { cache = new Map(); awaiting = false; for (const s of hub.slots) s.content = null; show(); tell() })
  model.on("target", () => { // Python's jump (a link, the quiz, a shorter run); its acks of our steps are ignored
    const [jump, step] = model.target
    if (jump === seen) return
    seen = jump
    current = told = step
    show()
  })
  model.on("cursors", cursors)
  model.on(["labels", "speeds", "speed"], relabel)
  model.on("playing", () => { if (model.playing !== playing) setPlaying(model.playing) })
  model.on("remove", () => {
    if (drawn.length && mine) document.documentElement.classList.remove("lab-stepping")
    document.removeEventListener("keydown", onKey)
    if (beat !== null) cancelAnimationFrame(beat)
    if (hub.pager === pager) hub.pager = null
  })
  if (model.playing) model.playing = false   // a pager drawn anew starts paused
  relabel()
  show()
  const asked = Number((location.search.match(/[?&]step=(\d+)/) || [])[1])
  if (drawn.length && mine && asked > 0) go(asked - 1)   // a prerender opened at a step (a reload, a link)
  if (!drawn.length && globalThis.schedlabReached !== undefined) {   // Python takes over from a prerender:
    const reached = globalThis.schedlabReached                       // it goes on from the step reached there
    delete globalThis.schedlabReached
    go(reached)
  }
  return root
}
"""

SLOT_JS = """
const HUBS = (globalThis.schedlabPagers ??= {})

export function render({model}) {
  const hub = (HUBS[model.group] ??= {slots: new Set(), pager: null})
  const box = document.createElement("div")
  box.className = `slot slot-${model.slot}`
  box.dataset.slot = model.slot
  const slot = {name: model.slot, box, content: null, html: null, strip: null}
  hub.slots.add(slot)
  hub.pager?.paint(slot)
  model.on("remove", () => hub.slots.delete(slot))
  return box
}
"""


class Pager(JSComponent):
    """First / Prev / Next / Last, Play and its speed, the slider and the keys, stepping through ``window``."""

    group = param.String(constant=True, doc="the key its slots share with it on the page")
    target = param.List(default=[0, 0], doc="[jump, step]: Python's jumps are counted, so the page can tell "
                                            "them from the echo of its own steps, and Python a stale step")
    playing = param.Boolean(default=False)
    speed = param.Number(default=1.0)
    speeds = param.List(default=list(SPEEDS))
    window = param.Dict(default={}, doc="Frames.window: the frames of the steps around the current one")
    labels = param.Dict(default={}, doc="button, slider and status texts in the page's language")
    cursors = param.Dict(default={}, doc="owner -> {mark, span, box}: a Gantt chart's cursor and dimmed future")
    static_queries = param.List(default=[], doc="drawn without Python (a prerender): the address queries, without "
                                                "step and lang, that show this run")

    _esm = PAGER_JS


class FrameSlot(JSComponent):
    """One place on the page that shows a slot of the current frame (the pager fills it)."""

    group = param.String(constant=True)
    slot = param.String(constant=True)

    _esm = SLOT_JS


def labels(lang: str) -> dict[str, str]:
    words = {key: t(lang, key) for key in ("first", "prev", "next", "last", "play", "pause", "speed", "step", "keys")}
    return {**words, "pending": frames.pending_text(lang, "step.pending"), "link": frames.pending_text(lang, "step.link")}


class Stepping(LabView):
    """The pager of one lab: its frames follow the run, the language and the view on screen; its step is the lab's."""

    static = param.Boolean(default=False, doc="the page is drawn without Python behind it (the static site's "
                                              "prerender): the pager steps its frames alone")

    def __init__(self, lab, teaching, **params) -> None:
        super().__init__(lab, **params)
        self.teaching = teaching
        self._browser = False   # while the page's own step is applied: no jump is sent back
        self.pager = Pager(group=f"lab-{uuid.uuid4().hex[:12]}", target=[0, lab.step], speed=lab.speed,
                           playing=lab.playing, labels=labels(lab.lang), stylesheets=[*STYLESHEETS, PAGER_CSS],
                           sizing_mode="stretch_width", margin=(4, 4))
        self._frames: frames.Frames | None = None
        self.pager.on_msg(self._told)
        self.pager.param.watch(lambda event: setattr(lab, "playing", event.new), "playing")
        self.pager.param.watch(self._browser_speed, "speed")
        lab.param.watch(self._lab_step, "step")
        lab.param.watch(self.rebuild, ["result", "lang", "policy_code"])
        self.param.watch(self.rebuild, "static")
        teaching.param.watch(self.rebuild, "view")
        teaching.param.watch(self._opened, "features")
        self.rebuild()

    # --- the page's pieces ---------------------------------------------------------------------------------
    def slot(self, name: str, **kwargs) -> FrameSlot:
        return FrameSlot(group=self.pager.group, slot=name, stylesheets=[*STYLESHEETS, PAGER_CSS],
                         **{"sizing_mode": "stretch_width", "margin": (4, 4), **kwargs})

    def follow(self, owner: str, mark: str, gantt: render.Gantt | None) -> None:
        """Let the pager move ``gantt``'s cursor to the ``mark`` of each frame (None: ``owner`` has none now)."""
        cursors = {k: v for k, v in self.pager.cursors.items() if k != owner}
        if gantt is not None:
            cursors[owner] = {"mark": mark, "span": gantt.cursor.id, "box": gantt.dim.id}
        self.pager.cursors = cursors

    def _opened(self, event) -> None:
        """Compare, opened (it is built when first shown): its sides are slots of this pager."""
        compare = event.new.get("compare")
        if compare is not None and compare.stepping is None:
            compare.stepping = self
            compare.param.watch(lambda *_: self.rebuild() if self.teaching.view == "compare" else None,
                                ["result", "error"])
            self.rebuild()

    # --- frames --------------------------------------------------------------------------------------------
    def rebuild(self, *_) -> None:
        """New frames for what is on screen: the lab's (step through, compare) and the comparison's; none for the
        views that keep Python (the quiz must not hold the future in the page)."""
        lab, view = self.lab, self.teaching.view
        if not lab.result or view not in ("lab", "compare"):
            self._frames = None
            self.pager.param.update(window={}, labels=labels(lab.lang))
            return
        built = frames.lab_frames(lab.result, lab.lang, self.teaching.source.card)
        compare = self.teaching.features.get("compare")
        if view == "compare" and compare is not None:
            right = compare.result
            right = right if comparable(lab.result, right) else None
            lang = lab.lang
            headings = (teach_t(lang, "compare.left", name=algorithm_label(lab.result, lang)),
                        teach_t(lang, "compare.right", name=algorithm_label(right, lang) if right else ""))
            built = built.merged(frames.compare_frames(lab.result, right, lang, headings))
        self._frames = built
        drawn = ["", "&".join(p for p in lab.link().split("&") if not p.startswith(("step=", "lang=")))]
        self.pager.param.update(window=built.window(lab.step), labels=labels(lab.lang),
                                static_queries=drawn if self.static else [])

    def _ensure(self, step: int) -> None:
        """Refill the window around ``step`` when it is outside, or within a quarter of an edge that is not the
        run's own."""
        if self._frames is None:
            return
        window = self.pager.window
        start, end = window.get("start", 0), window.get("end", 0)
        margin = (end - start) // 4
        if not start <= step < end or (step - start < margin and start > 0) or \
                (end - step <= margin and end < self._frames.total):
            self.pager.window = self._frames.window(step)

    # --- the step, both ways ---------------------------------------------------------------------------------
    def _told(self, event) -> None:
        """The page stepped: follow it, unless it chose before Python's own latest jump (then it shows that)."""
        data = event.data if isinstance(event.data, dict) else {}
        jump, step = self.pager.target[0], data.get("step")
        if data.get("jump") != jump or not isinstance(step, int):
            return
        self._browser = True
        try:
            self.lab.go(step)
        finally:
            self._browser = False
        self._ensure(self.lab.step)
        self.pager.target = [jump, self.lab.step]   # a pager drawn anew starts here; the page ignores it

    def _lab_step(self, event) -> None:
        self._ensure(event.new)
        # param.update reports a step set to its own value (a rerun keeps it): that is no jump.
        if not self._browser and event.new != event.old:
            self.pager.target = [self.pager.target[0] + 1, event.new]

    def _browser_speed(self, event) -> None:
        if event.new in self.lab.param.speed.objects:
            self.lab.speed = event.new
