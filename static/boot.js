// The site's page script, loaded after Panel's pyodide handler (which creates `pyodideWorker`) and Panel's loader
// (which defines `window.panelLoader`). It
//   - shows the boot as stages with a progress bar (from the worker's 'progress' messages) instead of a spinner,
//     and a clear message, not a hang, when something cannot be loaded;
//   - sends the page's URL to the worker at once, so the app starts from the query (mode, algorithm, scenario, step);
//   - registers the service worker (offline after the first visit);
//   - on embed.html, tells the host page its height (postMessage {type: 'schedlab:height', height}).
(function () {
  'use strict'
  const site = window.labSite || {embed: false, base: ''}
  const STAGES = ['Downloading Pyodide', 'Loading packages', 'Installing wheels', 'Starting the app']  // worker's keys
  // The display speaks the lab's language: `lang=` in the query, else the browser's (details stay in English).
  const queryLang = new URLSearchParams(window.location.search).get('lang')
  const ja = queryLang ? queryLang === 'ja' : (navigator.language || '').toLowerCase().startsWith('ja')
  const TEXT = ja ? {
    title: 'スケジューリング・ラボをブラウザで起動しています',
    stages: ['Pyodide をダウンロード', 'パッケージを読み込み', 'ホイールをインストール', 'アプリを起動'],
    step: (i, n) => `手順 ${i}/${n}`,
  } : {
    title: 'Starting the scheduling lab in your browser',
    stages: STAGES,
    step: (i, n) => `Step ${i} of ${n}`,
  }
  const SILENCE_MS = 240000  // no word from the worker for this long: say so rather than spin

  // --- the boot display, inside Panel's #loader overlay ---
  const loader = document.getElementById('loader')
  const box = document.createElement('div')
  box.id = 'lab-boot'
  box.setAttribute('role', 'status')
  box.setAttribute('aria-live', 'polite')
  box.innerHTML = '<div class="lab-boot-title"></div><ol></ol><div class="lab-boot-bar"><div></div></div>' +
    '<div class="lab-boot-detail"></div>'
  box.querySelector('.lab-boot-title').textContent = TEXT.title
  const list = box.querySelector('ol')
  STAGES.forEach((stage, i) => {
    const item = document.createElement('li')
    item.textContent = TEXT.stages[i]
    item.dataset.stage = stage
    list.appendChild(item)
  })
  if (loader) {
    loader.classList.add('lab-loader')
    loader.insertBefore(box, loader.firstChild)
  }
  const bar = box.querySelector('.lab-boot-bar > div')
  const detail = box.querySelector('.lab-boot-detail')
  let current = -1
  let lastWord = Date.now()
  let failed = false

  function showStage(stage, text, done, total) {
    const index = STAGES.indexOf(stage)
    if (index < 0 || failed) return
    lastWord = Date.now()
    current = index
    list.querySelectorAll('li').forEach((item, i) => {
      item.className = i < index ? 'done' : i === index ? 'active' : ''
    })
    if (total) {
      bar.parentElement.classList.remove('indeterminate')
      bar.style.width = `${Math.round(100 * done / total)}%`
    } else {
      bar.parentElement.classList.add('indeterminate')
      bar.style.width = ''
    }
    const label = `${TEXT.step(index + 1, STAGES.length)}: ${TEXT.stages[index]}`
    detail.textContent = text ? `${label} — ${text}` : label
  }

  function showError(message) {
    failed = true
    if (loader) loader.style.display = 'flex'
    const item = list.querySelectorAll('li')[Math.max(current, 0)]
    if (item) item.className = 'failed'
    bar.parentElement.classList.remove('indeterminate')
    box.classList.add('error')
    const error = document.getElementById('loader-error') || detail
    error.style.display = 'block'
    error.textContent = message
    box.appendChild(error)
    document.body.dataset.labBoot = 'error'
  }

  const panelHide = window.panelLoader ? window.panelLoader.hide : () => { if (loader) loader.style.display = 'none' }
  window.panelLoader = {
    status() {},  // the stages above say more than Panel's one-line status
    error: showError,
    hide() {
      document.body.dataset.labBoot = 'ready'
      panelHide()
    },
  }
  document.body.dataset.labBoot = 'starting'

  if (typeof pyodideWorker !== 'undefined') {
    pyodideWorker.addEventListener('message', (event) => {
      const msg = event.data
      if (msg.type === 'progress') showStage(msg.stage, msg.detail, msg.done, msg.total)
    })
    pyodideWorker.addEventListener('error', (event) => {
      showError(`The Python worker (lab.js) could not run: ${event.message || 'it failed to load'}.`)
    })
    pyodideWorker.postMessage({type: 'location', location: JSON.stringify(window.location)})
    const watchdog = setInterval(() => {
      if (failed || document.body.dataset.labBoot === 'ready') return clearInterval(watchdog)
      if (Date.now() - lastWord > SILENCE_MS) {
        clearInterval(watchdog)
        showError(`No progress for ${SILENCE_MS / 60000} minutes at “${STAGES[Math.max(current, 0)]}”: ` +
                  'the network may be too slow or offline. Reload to try again.')
      }
    }, 1000)
  }

  // --- offline after the first visit ---
  if ('serviceWorker' in navigator && location.protocol !== 'file:') {
    navigator.serviceWorker.register(`${site.base}service-worker.js`).catch((e) => {
      console.warn('The lab works, but not offline: the service worker could not be registered.', e)
    })
  }

  // --- "Embed this view" carries the current query ---
  const embedLink = document.getElementById('lab-embed-link')
  if (embedLink) {
    embedLink.addEventListener('click', () => { embedLink.search = window.location.search })
  }

  // --- embed.html: report the height to the host page (see embed-host.js) ---
  // The height of the content, not of the body: Panel's page makes the body as tall as the viewport (the iframe),
  // so the body never grows; the overlay (#loader) is fixed and does not count.
  if (site.embed && window.parent !== window) {
    // The boxes that make the page's height: Panel's roots are `display: contents`, so their children count.
    const boxes = (parent) => [...parent.children].flatMap((el) => {
      if (el.tagName === 'SCRIPT' || el.id === 'loader') return []
      const style = getComputedStyle(el)
      return style.display === 'contents' ? boxes(el) : style.position === 'fixed' ? [] : [el]
    })
    const contentHeight = () => Math.ceil(Math.max(0, ...boxes(document.body)
      .map((el) => el.getBoundingClientRect().bottom + window.scrollY)))
    let sent = 0
    const report = () => {
      const height = contentHeight()
      if (height !== sent) {
        sent = height
        window.parent.postMessage({type: 'schedlab:height', height, href: window.location.href}, '*')
      }
    }
    const resizes = new ResizeObserver(report)
    const watch = () => { for (const el of boxes(document.body)) resizes.observe(el); report() }
    new MutationObserver(watch).observe(document.body, {childList: true, subtree: true})
    window.addEventListener('load', watch)
    watch()
  }
})()
