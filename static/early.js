// First thing in the page's head (the build inlines it after `window.labSite = {...}`), before BokehJS loads:
//   - it starts the Python worker (lab.js) and sends it the page's URL: at once for a link to another run than the
//     prerender's (so Pyodide downloads and starts while the page is still loading BokehJS), else as soon as the
//     prerender's pager can step; Panel's handler script adopts it as its `pyodideWorker`. A prepared example
//     (`build.py build --example`, `labSite.example` its query) starts it only when the reader does something that
//     needs Python (boot.js calls `labStartPython()`): it steps its run without Python, and several on one page
//     cost nothing until used. Its address then takes the example's query, which Python starts from;
//   - it keeps the worker's messages until boot.js reads them (a message nobody listens to is lost);
//   - it sets the page's language (`lang=` in the query, else the browser's, as the app decides) before the first
//     paint, and puts the prerender of that language in place before BokehJS embeds it (Panel's prerender script
//     reads it at DOMContentLoaded, after this listener);
//   - a link to one of the prerendered runs (`labSite.runs`: every algorithm of every mode on its default scenario,
//     static/prerendered_runs.py) opens from that run's file: fetched now, and embedded in place of the page's own
//     document (BokehJS's embed waits for it); the address takes the run's own link, as Python would write it;
//     runs.js then answers the page's menus (`window.labRuns` is what it needs: the fetch, the run shown);
//   - it marks the page as starting: boot.css dims it until the lab can really be used.
// A prerendered run's file (static/prerendered_runs.py): gzipped JSON, unpacked here. Resolves to {run, view, lang,
// link, controls, doc}; rejects with the reason when it cannot be had.
window.labFetchRun = async (run, view, lang) => {
  const url = new URL(`${window.labSite.base || './'}${window.labSite.runs.folder}/${run}.${view}.${lang}.json.gz`,
                      window.location.href).href
  const response = await fetch(url)
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`)
  const text = await new Response(response.body.pipeThrough(new DecompressionStream('gzip'))).text()
  navigator.serviceWorker?.ready.then((registration) => registration.active?.postMessage({type: 'cache', urls: [url]}))
  return JSON.parse(text)
}

(function () {
  'use strict'
  const site = window.labSite
  const queryLang = new URLSearchParams(window.location.search).get('lang')
  const browserJapanese = (navigator.language || '').toLowerCase().startsWith('ja')
  const lang = (queryLang !== null ? queryLang === 'ja' : browserJapanese) ? 'ja' : 'en'
  const root = document.documentElement
  root.lang = lang
  root.classList.add(site.example ? 'lab-dormant' : 'lab-starting')

  // The worker Panel's handler adopts: created now, or (an example) when labStartPython() is first called; until
  // then what is given to it waits here.
  const early = []
  const waiting = []
  const listeners = []
  let real = null
  const worker = {
    busy: false,
    queue: [],
    get started() { return real !== null },
    get onmessage() { return this.handler },
    set onmessage(handler) { this.handler = handler; if (real) real.onmessage = handler },
    addEventListener(type, listener) { listeners.push([type, listener]); if (real) real.addEventListener(type, listener) },
    postMessage(message) { if (real) real.postMessage(message); else waiting.push(message) },
  }
  // An example's address takes its query when Python starts, unless it names a run of its own (the step and the
  // language the page holds by then stay): Python starts from the address, and it stays a true link to the view.
  function addressForPython() {
    const own = window.location.search.replace(/^\?/, '')
    const ownRun = own.split('&').some((p) => p && !/^(step|lang)=/.test(p))
    if (!site.example || ownRun) return
    const search = [site.example, own].filter(Boolean).join('&')
    history.replaceState(history.state, '', `?${search}${window.location.hash}`)
  }
  window.labStartPython = () => {
    if (real) return
    addressForPython()
    real = new Worker(`${site.base || './'}lab.js`, {type: 'module'})
    real.addEventListener('message', (event) => (window.labOnMessage || ((msg) => early.push(msg)))(event.data))
    if (worker.handler) real.onmessage = worker.handler
    for (const [type, listener] of listeners) real.addEventListener(type, listener)
    real.postMessage({type: 'location', location: JSON.stringify(window.location)})
    for (const message of waiting.splice(0)) real.postMessage(message)
    root.classList.replace('lab-dormant', 'lab-starting')
    window.dispatchEvent(new Event('lab-python-starting'))
  }
  window.labWorker = worker
  window.labEarlyMessages = early
  // A link to a run the page has no prerender of needs Python to show anything: start it now. A prerendered run
  // steps without it: start Python once its pager can step (app/pager.py marks <html> with lab-stepping), so that
  // Pyodide's download and compilation do not slow the first paint and the first step (5 s at the latest).
  const runs = site.runs
  const setup = window.location.search.replace(/^\?/, '').split('&').filter((p) => p && !/^(step|lang)=/.test(p))
    .join('&')
  const prerendered = runs ? runs.queries[setup] : undefined
  const ownRun = setup !== '' && prerendered === undefined
  if (site.example) {
    // started by boot.js when the reader needs it
  } else if (ownRun) {
    window.labStartPython()
  } else {
    const watch = new MutationObserver(() => {
      if (root.classList.contains('lab-stepping')) { watch.disconnect(); window.labStartPython() }
    })
    watch.observe(root, {attributes: true, attributeFilter: ['class']})
    setTimeout(() => { watch.disconnect(); window.labStartPython() }, 5000)
  }

  if (runs) pickRun(prerendered)
  else if (site.prerender.langs.includes(lang)) takeLanguage()

  function takeLanguage() {
    document.addEventListener('DOMContentLoaded', () => {
      const own = document.getElementById(site.prerender.json)
      const translated = document.getElementById(`lab-prerender-${lang}`)
      if (own && translated) own.textContent = translated.textContent
    }, {once: true})
  }

  // The run the page opens with: the page's own (in its language, from the page), or another run's file. BokehJS's
  // first embed (Panel's prerender script, at DOMContentLoaded) is wrapped: it waits for that file (the page's own
  // document if the file cannot be had), and keeps what runs.js needs to embed another run (the render items) and
  // to hook the page's menus (`embedded`, the views) and to change the document it embeds into another run's
  // (`doc`, its JSON, or the page's script text that holds it).
  function pickRun(run) {
    let embedded
    const state = {run: runs.own, view: 'lab', lang, picked: {}, file: null, render: null, doc: null,
                   embedded: new Promise((resolve) => { embedded = resolve })}
    window.labRuns = state
    if (run !== undefined && run !== runs.own) {
      state.run = run
      state.file = window.labFetchRun(run, 'lab', lang)
      const kept = window.location.search.replace(/^\?/, '').split('&').filter((p) => /^(step|lang)=/.test(p))
      history.replaceState(history.state, '', `?${[runs.links[run], ...kept].join('&')}${window.location.hash}`)
    } else if (site.prerender.langs.includes(lang)) {
      takeLanguage()
    }
    document.addEventListener('DOMContentLoaded', () => {
      const embed = window.Bokeh.embed.embed_items
      window.Bokeh.embed.embed_items = (docs, items) => {
        window.Bokeh.embed.embed_items = embed
        state.render = items
        const done = (async () => {
          const file = state.file && await state.file.catch(() => null)
          if (!file) state.run = runs.own   // none asked for, or it could not be had: the page's own run
          const translated = !file && state.file && lang !== 'en' && document.getElementById(`lab-prerender-${lang}`)
          state.doc = file ? file.doc : translated ? translated.textContent : docs   // the page's own: as text
          return embed(state.doc, items)
        })()
        embedded(done)
        return done
      }
    }, {once: true})
  }
})()
