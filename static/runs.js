// The page's menus before Python: every algorithm of every mode on its default scenario is prerendered
// (static/prerendered_runs.py), and this script shows the run a reader picks without Python. Loaded after boot.js;
// early.js has embedded the first run and left `window.labRuns`: the run shown, its view and language, the page's
// render items and the first embed.
//   - It hooks the controls the build named for the document on the page (`controls`: a Bokeh model's property set
//     to a value, or a button's click -> a change of algorithm, mode, language or view) and marks their elements
//     `data-lab-prerendered`, which boot.js lets through while Python starts.
//   - A pick fetches that run's file (once: the service worker keeps it) and embeds its document in place of the one
//     on the page, as Panel's handler embeds Python's; the address takes the run's own link, the step reached and
//     the language. A newer pick made meanwhile replaces an older one not yet shown.
//   - When the Python worker is about to build its page from the address ('location?', boot.js asks
//     `labRunsSettle`), the run being put on screen is finished and the menus are handed to boot.js, which keeps a
//     click on them for Python (so the page Python draws is the one on screen, and no later pick is lost).
//   - Each mode keeps its own pick (as the lab does): back in a mode, its algorithm is the one picked there last.
//   - Once Python has taken over (boot.js: `data-lab-boot` is `ready`) this script does nothing more, except to
//     open Compare again when that was the view on screen (the address does not carry the view).
(function () {
  'use strict'
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

  // The page's menus in the document on screen: react to their changes, and let boot.js let them through.
  function hook(views, controls) {
    const doc = views.roots[0].model.document
    doc.on_change((event) => {
      if (closed()) return
      const spec = controls[event.model?.id]
      if (spec && event.attr in spec) pick(spec[event.attr][String(event.model[event.attr])])
      const clicked = event.msg_type === 'bokeh_event' && event.msg_data?.event_name === 'button_click'
      const button = clicked && controls[event.msg_data.event_values?.model?.id]
      if (button?.click) pick(button.click[''])
    }, false)
    const stack = [...views.roots]   // the views of the controls: their elements are let through by boot.js
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

  // The run's document in place of the one on the page (as Panel's handler embeds Python's), at the step reached.
  async function embed(file) {
    const step = (window.location.search.match(/[?&](step=\d+)/) || [])[1]
    const search = [file.link, step, `lang=${file.lang}`].filter(Boolean).join('&')
    history.replaceState(history.state, '', `?${search}${window.location.hash}`)
    document.documentElement.lang = file.lang
    const before = window.Bokeh.index.roots[0]?.model.document
    for (const el of document.querySelectorAll('[data-root-id]')) el.innerHTML = ''
    window.Bokeh.index.roots.map((view) => view.remove())
    const [views] = await window.Bokeh.embed.embed_items(file.doc, state.render)
    const documents = window.Bokeh.documents   // the document replaced is gone for good: BokehJS forgets it too
    if (documents.includes(before)) documents.splice(documents.indexOf(before), 1)
    Object.assign(state, {run: file.run, view: file.view, lang: file.lang})
    state.picked[file.run.split('-')[0]] = file.run.slice(file.run.indexOf('-') + 1)
    hook(views, file.controls)
    window.dispatchEvent(new CustomEvent('lab-run-shown', {detail: {run: file.run, view: file.view, lang: file.lang}}))
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
    hook(views, file && state.run === file.run ? file.controls : runs.controls[state.lang])
  })
})()
