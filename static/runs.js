// The page's menus before Python: every algorithm of every mode on its default scenario is prerendered
// (static/prerendered_runs.py), and this script shows the run a reader picks without Python. Loaded after boot.js;
// early.js has embedded the first run and left `window.labRuns`: the run shown, its view and language, the page's
// render items and the first embed.
//   - It hooks the controls the build named for the document on the page (`controls`: a Bokeh model's property set
//     to a value, or a button's click -> a change of algorithm, mode, language or view) and marks their elements
//     `data-lab-prerendered`, which boot.js lets through while Python starts.
//   - A pick fetches that run's file (once: the service worker keeps it) and changes the document on the page into
//     the run's, as Python changes a page: only what differs is drawn again (`change`); where the two are not of
//     one page, it embeds the run's document in place of the one on the page, as Panel's handler embeds Python's.
//     The address takes the run's own link, the step reached and the language. A newer pick made meanwhile replaces
//     an older one not yet shown.
//   - When the Python worker is about to build its page from the address ('location?', boot.js asks
//     `labRunsSettle`), the run being put on screen is finished and the menus are handed to boot.js, which keeps a
//     click on them for Python (so the page Python draws is the one on screen, and no later pick is lost).
//   - Each mode keeps its own pick (as the lab does): back in a mode, its algorithm is the one picked there last.
//   - Once Python has taken over (boot.js: `data-lab-boot` is `ready`) this script does nothing more, except to
//     open Compare again when that was the view on screen (the address does not carry the view).
(function () {
  'use strict'
  // Three things BokehJS does that make the browser work out the whole page's style and layout again, the first two
  // once per new view (about half of a pick that adds fields or charts), the third at each read of the page's style
  // after a layout (a third of a change of language in Compare). static/panel_adapter.py checks that BokehJS still
  // does them so (BOKEH_STYLE_READ, BOKEH_TOOLTIP_DRAW, BOKEH_STYLE_WRITE).
  //   - It reads each visual's colours from the page's style before its model's (getComputedStyle). The site sets
  //     none of those properties (the build checks), so the read answers what it finds then: "".
  //   - It draws a field's help (a hidden tooltip) into the page once and measures it, only to take it out again.
  //     A hidden tooltip is drawn when it is first shown instead, as BokehJS draws one that is shown at once.
  //   - Laying the page out, it empties each view's stylesheets and then writes the same rules into them again: the
  //     browser reads each of those hundreds of sheets anew. While the page is laid out, a sheet's text is kept
  //     aside, and at the end written into the page where it changed.
  const bokeh = window.Bokeh?.require
  if (bokeh) {
    bokeh('core/visuals/visual').VisualProperties.prototype._get_css_value = () => ''
    const tooltip = bokeh('models/ui/tooltip').TooltipView.prototype
    const reposition = tooltip._reposition
    tooltip._reposition = function () {
      const {position, visible} = this.model
      if (this._has_rendered || (position != null && visible)) reposition.call(this)
    }
    const sheet = bokeh('core/dom').InlineStyleSheet.prototype
    const layout = bokeh('models/layouts/layout_dom').LayoutDOMView.prototype
    const unwritten = new Map()   // a sheet's text while the page is laid out
    let laying = 0                // a view's layout lays out its children's
    const write = (sheet, text) => { if (sheet.el.textContent !== text) sheet.el.textContent = text }
    Object.defineProperty(sheet, 'css', {get() { return unwritten.get(this) ?? this.el.textContent }})
    sheet._update = function (text) { if (laying) unwritten.set(this, text); else write(this, text) }
    const updateLayout = layout.update_layout
    layout.update_layout = function () {
      laying++
      try {
        updateLayout.call(this)
      } finally {
        if (--laying === 0) {
          unwritten.forEach((text, sheet) => write(sheet, text))
          unwritten.clear()
        }
      }
    }
  }
  const site = window.labSite
  const state = window.labRuns
  if (!site.runs || !state) return
  const runs = site.runs
  const body = document.body
  const ready = () => body.dataset.labBoot === 'ready'
  let busy = null      // the pick being shown; a newer pick waits for it and then wins
  let wanted = null
  let settled = false  // Python builds its page: picks are boot.js's to keep
  const closed = () => settled || ready()

  // The page's menus in the document on screen: react to their changes (not to those a change of run makes), and
  // let boot.js let them through.
  let controls = {}     // the run shown's: model id -> what its changes ask for
  let hooked = null     // the document listened to
  let changing = false  // the document is being changed into another run's
  function hook(roots, shownControls) {   // roots: the root views
    controls = shownControls
    const doc = roots[0].model.document
    if (doc !== hooked) {
      hooked = doc
      doc.on_change((event) => {
        if (closed() || changing) return
        const spec = controls[event.model?.id]
        if (spec && event.attr in spec) pick(spec[event.attr][String(event.model[event.attr])])
        const clicked = event.msg_type === 'bokeh_event' && event.msg_data?.event_name === 'button_click'
        const button = clicked && controls[event.msg_data.event_values?.model?.id]
        if (button?.click) pick(button.click[''])
      }, false)
    }
    const stack = [...roots]   // the views of the controls: their elements are let through by boot.js
    while (stack.length) {
      const view = stack.pop()
      if (view.model.id in controls) view.el.dataset.labPrerendered = ''
      stack.push(...(view.child_views || []))
    }
  }

  // A change asked for by a control: the run, view and language it leads to (undefined: Python's work).
  function pick(change) {
    if (!change) return
    const shown = {run: state.run, view: state.view, lang: state.lang}
    const [mode] = shown.run.split('-')
    const next = {...shown}
    if (change.algorithm) next.run = `${mode}-${change.algorithm}`
    if (change.mode) next.run = `${change.mode}-${state.picked[change.mode] || runs.defaults[change.mode]}`
    if (change.lang) next.lang = change.lang
    if (change.view) next.view = change.view
    if (!(next.run in runs.links) || (next.run === shown.run && next.view === shown.view && next.lang === shown.lang)) {
      return
    }
    wanted = next
    if (!busy) busy = show().finally(() => { busy = null })
  }

  async function show() {
    while (wanted && !closed()) {
      const next = wanted
      wanted = null
      let file
      try {
        file = await window.labFetchRun(next.run, next.view, next.lang)
      } catch (error) {
        console.warn(`The lab could not show ${next.run} before Python: ${error.message}`)
        continue
      }
      if (wanted || closed()) continue   // a newer pick, or Python, came first: this one is not shown
      await embed(file)
    }
  }

  // The run's document on the page, at the step reached: the document on screen changed into it where it can be
  // (`change`), else embedded in its place (as Panel's handler embeds Python's).
  async function embed(file) {
    const step = (window.location.search.match(/[?&](step=\d+)/) || [])[1]
    const search = [file.link, step, `lang=${file.lang}`].filter(Boolean).join('&')
    history.replaceState(history.state, '', `?${search}${window.location.hash}`)
    document.documentElement.lang = file.lang
    const next = models(Object.values(parsed(file.doc))[0])
    const changed = await change(file, next).catch((error) => {
      console.warn(`The lab draws ${file.run} anew: ${error.message}`)
      return false
    })
    if (!changed) {
      await anew(file)
      seen = new Map()
    }
    for (const [id, model] of next.models) seen.set(id, model)
    state.doc = file.doc
    Object.assign(state, {run: file.run, view: file.view, lang: file.lang})
    state.picked[file.run.split('-')[0]] = file.run.slice(file.run.indexOf('-') + 1)
    hook(window.Bokeh.index.roots, file.controls)
    requestAnimationFrame(() => hook(window.Bokeh.index.roots, file.controls))   // views BokehJS built since
    window.dispatchEvent(new CustomEvent('lab-run-shown', {detail: {run: file.run, view: file.view, lang: file.lang}}))
  }

  async function anew(file) {
    const before = window.Bokeh.index.roots[0]?.model.document
    for (const el of document.querySelectorAll('[data-root-id]')) el.innerHTML = ''
    window.Bokeh.index.roots.map((view) => view.remove())
    await window.Bokeh.embed.embed_items(file.doc, state.render)
    const documents = window.Bokeh.documents   // the document replaced is gone for good: BokehJS forgets it too
    if (documents.includes(before)) documents.splice(documents.indexOf(before), 1)
  }

  // The document on screen changed into the run's (`next`: its models), as Python changes a page: what differs
  // between the JSON of the run's models and the JSON they had when last on screen (`seen`) is set on the models on
  // screen, and what the run has that the page does not is added. The build gives a model the same id in every run's
  // document where it has the same place (static/panel_adapter.py's placed_ids), so every model the two share keeps
  // its view; the rest (another run's chart) is drawn anew. A property the page changed itself (the step) is kept
  // unless the run's document says otherwise. Returns false, having changed nothing, where the two documents are
  // not of one page (their roots or model types differ).
  let seen = null   // id -> {name, attributes}: each model's JSON when it was last on screen
  async function change(file, next) {
    const live = window.Bokeh.index.roots[0]?.model.document
    const [before, after] = [state.doc, file.doc].map((doc) => doc && Object.values(parsed(doc))[0])
    if (!live || !before || !after) return false
    const types = (doc) => new Set((doc.defs || []).map((def) => def.name))
    const known = types(before)
    if ([...types(after)].some((name) => !known.has(name))) return false
    const roots = (doc) => JSON.stringify(doc.roots.map((root) => root.id))
    if (roots(before) !== roots(after)) return false
    seen ??= models(before).models   // the first change: the page's own document, as embedded
    // On the page: a model BokehJS still holds (one left off the page a while ago too) whose JSON is known.
    const onPage = (id) => seen.has(id) && live.get_model_by_id(id) != null
    const events = []
    const reset = []   // [model, property]: given before, not now (a document leaves a default value out)
    const written = new Set()
    const write = (value) => {   // a value for the page: a model it does not have yet written out once, in full
      if (Array.isArray(value)) return value.map(write)
      if (value === null || typeof value !== 'object') return value
      if (isReference(value)) {
        if (onPage(value.id) || written.has(value.id)) return value
        written.add(value.id)
        const {name, attributes} = next.models.get(value.id)
        return {type: 'object', name, id: value.id, attributes: write(attributes)}
      }
      return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, write(item)]))
    }
    for (const [id, {name, attributes}] of next.models) {
      if (!onPage(id)) continue   // new: written out where it is first referenced
      if (name === ADDRESS) continue   // the address is this script's to set (embed), with no new history entry
      const model = live.get_model_by_id(id)
      const was = seen.get(id).attributes
      for (const [attr, value] of Object.entries(attributes)) {
        if (JSON.stringify(value) !== JSON.stringify(was[attr])) {
          events.push({kind: 'ModelChanged', model: {id}, attr, new: write(value)})
        }
      }
      for (const attr of Object.keys(was)) if (!(attr in attributes)) reset.push([model, attr])
    }
    let defaults
    try {
      defaults = reset.map(([model, attr]) => new model.constructor().property(attr).get_value())
    } catch (error) {
      console.warn(`The lab draws ${file.run} anew: ${error.message}`)
      return false
    }
    await layingOutOnce(() => {
      changing = true
      try {
        live.apply_json_patch({events})
        reset.forEach(([model, attr], i) => model.setv({[attr]: defaults[i]}, {sync: false}))
      } finally {
        changing = false
      }
    })
    return true
  }

  // BokehJS lays the whole page out again after each change of a model's (any view's layout goes up to the root
  // view's invalidate_layout and compute_layout), and again when a widget has built its new label: a run's hundred
  // changes made so took a second. While `work` makes them, and until the next frame (a label is built
  // asynchronously), the page's root views only note that a layout is due; then they lay the page out once.
  // static/panel_adapter.py checks that BokehJS still works so (BOKEH_LAYOUT).
  async function layingOutOnce(work) {
    const roots = window.Bokeh.index.roots.filter((view) => typeof view.invalidate_layout === 'function')
    let due = false
    for (const view of roots) view.invalidate_layout = view.compute_layout = () => { due = true }
    try {
      work()
      await new Promise(requestAnimationFrame)
    } finally {
      for (const view of roots) { delete view.invalidate_layout; delete view.compute_layout }
      if (due) for (const view of roots) view.invalidate_layout()
    }
  }
  // Panel's model of the browser's address: a change of it pushes a new entry onto the browser's history.
  const ADDRESS = 'panel.models.location.Location'
  const isReference = (value) => typeof value.id === 'string' && Object.keys(value).length === 1
  // A document's JSON from the page's script, HTML-escaped as Panel writes it and as BokehJS's embed reads it.
  const ENTITIES = {amp: '&', lt: '<', gt: '>', quot: '"', '#x27': "'", '#x60': '`'}
  const parsed = (doc) => typeof doc !== 'string' ? doc
    : JSON.parse(doc.replace(/&(amp|lt|gt|quot|#x27|#x60);/g, (_, entity) => ENTITIES[entity]))

  // A document's models, each once: id -> {name, attributes}, a model inside another's attributes written as a
  // reference ({id}).
  function models(doc) {
    const found = new Map()
    const flat = (value) => {
      if (Array.isArray(value)) return value.map(flat)
      if (value === null || typeof value !== 'object') return value
      if (value.type === 'object' && typeof value.id === 'string') {   // a model, written out
        if (!found.has(value.id)) {
          const entry = {name: value.name, attributes: {}}
          found.set(value.id, entry)
          for (const [key, item] of Object.entries(value.attributes || {})) entry.attributes[key] = flat(item)
        }
        return {id: value.id}
      }
      return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, flat(item)]))
    }
    doc.roots.forEach(flat)
    return {models: found}
  }

  window.labRunsSettle = async () => {
    settled = true
    wanted = null
    await busy
    for (const el of deepQueryAll('[data-lab-prerendered]')) delete el.dataset.labPrerendered
  }

  // Python's page is drawn from the address, which has no view: Compare, if that was on screen, is opened again,
  // once Panel's handler has linked the page to Python (the rest of its step, as boot.js replays what it kept).
  new MutationObserver(() => {
    if (!ready() || state.view !== 'compare') return
    state.view = 'lab'
    const tab = deepQueryAll('.teach-tab-compare')[0]   // Panel draws the button in its component's shadow root
    setTimeout(() => (tab?.shadowRoot || tab)?.querySelector('button')?.click(), 0)
  }).observe(body, {attributes: true, attributeFilter: ['data-lab-boot']})
  function deepQueryAll(selector, scope = document) {
    const found = [...scope.querySelectorAll(selector)]
    for (const el of scope.querySelectorAll('*')) if (el.shadowRoot) found.push(...deepQueryAll(selector, el.shadowRoot))
    return found
  }

  // The first run on the page: its controls are the page's own, or those of the run's file early.js fetched.
  state.embedded.then(async ([views]) => {
    const file = state.file && await state.file.catch(() => null)
    hook([...views.roots], file && state.run === file.run ? file.controls : runs.controls[state.lang])
  })
})()
