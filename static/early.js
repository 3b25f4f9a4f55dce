// First thing in the page's head (the build inlines it after `window.labSite = {...}`), before BokehJS loads:
//   - it starts the Python worker (lab.js) at once and sends it the page's URL, so Pyodide downloads and starts while
//     the page is still loading BokehJS; Panel's handler script adopts it as its `pyodideWorker`;
//   - it keeps the worker's messages until boot.js reads them (a message nobody listens to is lost);
//   - it sets the page's language (`lang=` in the query, else the browser's, as the app decides) before the first
//     paint, and puts the prerender of that language in place before BokehJS embeds it (Panel's prerender script
//     reads it at DOMContentLoaded, after this listener);
//   - it marks the page as starting: boot.css dims it until the lab can really be used.
(function () {
  'use strict'
  const site = window.labSite
  const queryLang = new URLSearchParams(window.location.search).get('lang')
  const browserJapanese = (navigator.language || '').toLowerCase().startsWith('ja')
  const lang = (queryLang !== null ? queryLang === 'ja' : browserJapanese) ? 'ja' : 'en'
  const root = document.documentElement
  root.lang = lang
  root.classList.add('lab-starting')

  const worker = new Worker(`${site.base || './'}lab.js`, {type: 'module'})
  const early = []
  worker.addEventListener('message', (event) => (window.labOnMessage || ((msg) => early.push(msg)))(event.data))
  worker.postMessage({type: 'location', location: JSON.stringify(window.location)})
  window.labWorker = worker
  window.labEarlyMessages = early

  if (site.prerender.langs.includes(lang)) {
    document.addEventListener('DOMContentLoaded', () => {
      const own = document.getElementById(site.prerender.json)
      const translated = document.getElementById(`lab-prerender-${lang}`)
      if (own && translated) own.textContent = translated.textContent
    }, {once: true})
  }
})()
