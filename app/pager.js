// The step controls of app/pager.py's Pager, a Panel JSComponent (its `_esm`): First / Prev / Next / Last, Play and
// its speed, the slider and the keys show the frames Python prepared (app/frames.py) without asking Python, then tell
// it the step. It decides nothing and renders nothing Python did not prepare.
// One hub per lab on the page: its pager and the slots that show the frames (placed anywhere in the layout).
const HUBS = (globalThis.schedlabPagers ??= {})
const hubOf = (group) => (HUBS[group] ??= {slots: new Set(), pager: null})
const KEYS = {ArrowLeft: "prev", ArrowRight: "next", " ": "toggle", Home: "first", End: "last"}

export function render({model, view}) {
  let hub = hubOf(model.group)
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
  // A height-limited slot (the rule's source) scrolls the step's highlighted lines into its view, not the page: the run
  // of them from the first, whole when it fits (its first line a third of the way down, where there is room), else
  // from the top. Where the run is in view already (or fills two thirds of it) the slot stays put. A slot not on
  // screen (a folded card) is scrolled when it is shown again (reveal).
  function inView(box) {
    const mark = box.querySelector(".mark"), height = box.clientHeight
    if (!mark || !height) return
    let end = mark
    while (end.nextElementSibling?.classList.contains("mark")) end = end.nextElementSibling
    const top = mark.offsetTop, bottom = end.offsetTop + end.offsetHeight
    if (top < box.scrollTop || Math.min(bottom, top + height * 2 / 3) > box.scrollTop + height)
      box.scrollTop = Math.max(0, Math.min(top, Math.max(bottom - height, top - height / 3)))
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
  const pager = {paint: (slot) => { paint(slot); cursors() },
                 reveal: (slot) => { if (slot.name === "source") inView(slot.box) }}
  hub.pager = pager
  model.on("group", () => {   // the same pager, another key: the static site changed its page into another run's
    if (hub.pager === pager) hub.pager = null
    hub = hubOf(model.group)
    hub.pager = pager
    show()
  })
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
