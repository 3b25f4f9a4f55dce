// The site's page script, loaded after Panel's pyodide handler (which adopts the worker early.js started as
// `pyodideWorker`) and Panel's loader (which defines `window.panelLoader`). It
//   - shows the boot as stages with a progress bar (from the worker's 'progress' messages, including those that
//     arrived before this script ran), down to the parts of "Starting the app", and a clear message, not a hang,
//     when something cannot be loaded; in the page's language (early.js set <html lang>);
//   - keeps what the visitor does before the lab is ready: a click on a button of the prerendered lab, or a step key
//     (← → Space Home End), is shown as waiting and done once the lab is ready. When the prerender's pager steps its
//     run alone (app/pager.py marks <html> with `lab-stepping`), the step controls work at once, the boot display
//     moves to a corner and stops veiling the page, and only what needs Python waits, said so: a click on any other
//     button is kept; what is typed in a text field is kept and entered once the lab is ready (in the same field,
//     Enter or leaving it included), so no keystroke is lost; a menu is not opened. The menus runs.js answers (the
//     prerendered runs: `data-lab-prerendered`) work at once. Python that cannot start leaves stepping working;
//   - on a prepared example (`labSite.example`), starts Python (early.js's `labStartPython`) only when the reader
//     does something that needs it: until then the page is `dormant`, without a boot display;
//   - records when each stage began (`window.labBoot.timeline`, milliseconds since navigation), for the benchmarks;
//   - keeps <html lang> on the app's language after it starts (the app writes `lang=` into the address);
//   - registers the service worker (offline after the first visit);
//   - on embed.html, tells the host page its height (postMessage {type: 'schedlab:height', height}), never less
//     than what is on screen while Python takes over from the prerender.
(function () {
  'use strict'
  const site = window.labSite
  const root = document.documentElement
  const STAGES = ['Downloading Pyodide', 'Loading packages', 'Installing wheels', 'Starting the app']  // worker's keys
  const TEXT = {
    en: {
      title: 'Starting the scheduling lab in your browser',
      stages: STAGES,
      step: (i, n) => `Step ${i} of ${n}`,
      count: (i, n) => `${i} of ${n}`,
      part: {panel: () => 'importing Panel and Bokeh', import: (m) => `importing ${m}`,
             build: () => 'building the page', draw: () => 'drawing the page'},
      waiting: (what, n) => `Not ready yet: ${what} will be done as soon as the lab is ready` +
                            (n > 1 ? ` (${n} actions waiting).` : '.'),
      notYet: 'Not ready yet: the lab is still starting. Buttons you click and step keys you press now are done ' +
              'as soon as it is ready.',
      dropped: (what) => `${what} was not done: the lab, now ready, has no such control here.`,
      stepping: 'You can step through this run now. Editing, switching algorithm, mode or language and the other ' +
                'views wait for Python, which is starting.',
      steppingRuns: 'You can step through this run and switch algorithm, mode, language and Compare now. Editing and ' +
                    'the other views wait for Python, which is starting.',
      steppingOnly: 'You can step through this run. Editing, switching algorithm, mode or language and the other ' +
                    'views need Python, which could not start:',
      steppingOnlyRuns: 'You can step through this run and switch algorithm, mode, language and Compare. Editing and ' +
                        'the other views need Python, which could not start:',
      editing: 'Not ready yet: editing waits for Python, which is starting.',
      typing: 'Not ready yet: editing waits for Python, which is starting. What you type is kept and entered as ' +
              'soon as the lab is ready.',
      noPython: 'That needs Python, which could not start (see above); stepping through this run still works.',
    },
    ja: {
      title: 'スケジューリング実験室をブラウザで起動しています',
      stages: ['Pyodide をダウンロード', 'パッケージを読み込み', 'ホイールをインストール', 'アプリを起動'],
      step: (i, n) => `手順 ${i}/${n}`,
      count: (i, n) => `${i}/${n}`,
      part: {panel: () => 'Panel と Bokeh を読み込み中', import: (m) => `${m} を読み込み中`,
             build: () => 'ページを組み立て中', draw: () => 'ページを描画中'},
      waiting: (what, n) => `まだ準備中です。${what}は準備ができしだい実行します` + (n > 1 ? `（${n} 件待機中）。` : '。'),
      notYet: 'まだ準備中です。今押したボタンやステップのキーは、準備ができしだい実行します。',
      dropped: (what) => `${what}は実行しませんでした（準備ができた画面にその操作がありません）。`,
      stepping: 'この実行はもうステップ送りできます。編集、アルゴリズム・モード・言語の切り替え、ほかのビューは、' +
                '起動中の Python を待ちます。',
      steppingRuns: 'この実行のステップ送りと、アルゴリズム・モード・言語・比較の切り替えはもう使えます。編集とほかの' +
                    'ビューは、起動中の Python を待ちます。',
      steppingOnly: 'この実行はステップ送りできます。編集、アルゴリズム・モード・言語の切り替え、ほかのビューには ' +
                    'Python が必要ですが、起動できませんでした:',
      steppingOnlyRuns: 'この実行のステップ送りと、アルゴリズム・モード・言語・比較の切り替えは使えます。編集とほかの' +
                        'ビューには Python が必要ですが、起動できませんでした:',
      editing: 'まだ準備中です。編集は起動中の Python を待ちます。',
      typing: 'まだ準備中です。編集は起動中の Python を待ちます。入力した内容は保持し、準備ができしだい反映します。',
      noPython: 'この操作には Python が必要ですが、起動できませんでした（上記）。この実行のステップ送りはそのまま使えます。',
    },
  }
  const text = () => TEXT[root.lang === 'ja' ? 'ja' : 'en']
  const SILENCE_MS = 240000  // no word from the worker for this long: say so rather than spin
  const timeline = []
  window.labBoot = {timeline}
  const mark = (what) => timeline.push({...what, at: Math.round(performance.now())})

  // --- the boot display, inside Panel's #loader overlay ---
  const loader = document.getElementById('loader')
  const box = document.createElement('div')
  box.id = 'lab-boot'
  box.setAttribute('role', 'status')
  box.setAttribute('aria-live', 'polite')
  box.innerHTML = '<div class="lab-boot-title"></div><div class="lab-boot-stepping"></div><ol></ol>' +
    '<div class="lab-boot-bar"><div></div></div><div class="lab-boot-detail"></div><div class="lab-boot-waiting"></div>'
  const list = box.querySelector('ol')
  STAGES.forEach((stage) => {
    const item = document.createElement('li')
    item.dataset.stage = stage
    list.appendChild(item)
  })
  if (loader) {
    loader.classList.add('lab-loader')
    loader.insertBefore(box, loader.firstChild)
  }
  const bar = box.querySelector('.lab-boot-bar > div')
  const detail = box.querySelector('.lab-boot-detail')
  const waitingNote = box.querySelector('.lab-boot-waiting')
  let current = -1
  let shown = null  // the last progress message, to redraw in another language
  let lastWord = Date.now()
  let failed = false

  function draw() {
    const words = text()
    box.querySelector('.lab-boot-title').textContent = words.title
    const runs = site.runs ? 'Runs' : ''   // the prerendered runs' menus work too (runs.js)
    box.querySelector('.lab-boot-stepping').textContent = !stepping() ? ''
      : words[(failed ? 'steppingOnly' : 'stepping') + runs]
    list.querySelectorAll('li').forEach((item, i) => {
      item.textContent = words.stages[i]
      item.className = i < current ? 'done' : i === current ? (failed ? 'failed' : 'active') : ''
    })
    if (!shown || failed) return
    const {done, total, part, module} = shown
    if (total) {
      bar.parentElement.classList.remove('indeterminate')
      bar.style.transform = `scaleX(${Math.min(1, done / total)})`
    } else {
      bar.parentElement.classList.add('indeterminate')
      bar.style.transform = ''
    }
    const label = `${words.step(current + 1, STAGES.length)}: ${words.stages[current]}`
    const megabytes = (n) => `${(n / 1e6).toFixed(1)} MB`
    const what = part ? `${words.part[part](module)} (${done + 1}/${total})`
      : shown.count ? words.count(done, total)
        : shown.bytes ? `${megabytes(done)} / ${megabytes(total)}` : shown.detail
    detail.textContent = what ? `${label} — ${what}` : label
  }

  function showStage(msg) {
    const index = STAGES.indexOf(msg.stage)
    if (index < 0 || failed) return
    lastWord = Date.now()
    const last = timeline[timeline.length - 1]
    if (!last || last.stage !== msg.stage || last.part !== msg.part || last.module !== msg.module) {
      mark({stage: msg.stage, part: msg.part, module: msg.module})
    }
    current = index
    shown = msg
    draw()
  }

  function showError(message) {
    if (failed) return
    failed = true
    mark({stage: 'error'})
    if (loader) loader.style.display = 'flex'
    draw()
    bar.parentElement.classList.remove('indeterminate')
    box.classList.add('error')
    const error = document.getElementById('loader-error') || detail
    error.style.display = 'block'
    error.textContent = message
    box.appendChild(error)
    waitingNote.textContent = ''
    document.body.dataset.labBoot = 'error'
    // The prerender still steps and its menus still work: the box, there for good now, leaves the overlay's corner
    // (over the editor's rows) for the top of the page, above the lab, where it covers nothing.
    if (stepping()) {
      box.classList.add('lab-boot-inline')
      document.body.prepend(box)
    }
  }

  // --- what the visitor does before the lab is ready ---
  const KEYS = new Set(['ArrowLeft', 'ArrowRight', ' ', 'Home', 'End'])
  const KEY_NAMES = {ArrowLeft: '←', ArrowRight: '→', ' ': 'Space', Home: 'Home', End: 'End'}
  const pending = []  // {kind: 'click', cls, label} or {kind: 'key', key}
  const describe = (action) => action.kind === 'key' ? KEY_NAMES[action.key] : `“${action.label}”`

  function keep(action) {
    if (failed) return
    pending.push(action)
    waitingNote.textContent = text().waiting(describe(action), pending.length)
    mark({stage: 'waiting', action: describe(action)})
  }

  // Panel draws every widget inside its own shadow root: look through them (a shadow root's elementsFromPoint
  // also lists the elements around it, hence the set).
  function deepElementsAt(x, y) {
    const seen = new Set()
    const visit = (scope) => {
      for (const el of scope.elementsFromPoint(x, y)) {
        if (seen.has(el)) continue
        seen.add(el)
        if (el.shadowRoot) visit(el.shadowRoot)
      }
    }
    visit(document)
    return [...seen]
  }
  // The class the app gave a button's Panel component (e.g. `step-next`): the first that is not Bokeh's or Panel's.
  function componentClass(el) {
    for (let node = el; node; node = node.parentElement || node.getRootNode().host) {
      const own = [...(node.classList || [])].find((c) => !/^(bk|pn|bk-panel|solid|outline)(-|$)/.test(c))
      if (own) return own
    }
    return null
  }
  function deepQueryAll(selector, scope = document) {
    const found = [...scope.querySelectorAll(selector)]
    for (const el of scope.querySelectorAll('*')) if (el.shadowRoot) found.push(...deepQueryAll(selector, el.shadowRoot))
    return found
  }

  // The prerender's pager steps alone: its controls go on, and so do the menus of the prerendered runs (runs.js) and
  // typing (kept, below); every other control waits for Python (a click on a button is kept, a menu is not opened).
  const stepping = () => root.classList.contains('lab-stepping')
  const FIELD = /^(INPUT|SELECT|TEXTAREA)$/
  const typed = (el) => el.tagName === 'TEXTAREA' || (el.tagName === 'INPUT' && /^(text|search|number|)$/.test(el.type))
  function waitsForPython(event) {
    if (document.body.dataset.labBoot === 'ready' || !stepping()) return null
    const path = event.composedPath()
    if (path.some((el) => el.classList?.contains('step-pager') || el.dataset?.labPrerendered !== undefined)) {
      return null
    }
    const control = path.find((el) => el.tagName === 'BUTTON' || FIELD.test(el.tagName || '')) || null
    if (control && typed(control) && !failed) {   // typed now, entered once the lab is ready
      window.labStartPython()
      waitingNote.textContent = text().typing
      return null
    }
    return control
  }

  // What is typed before the lab is ready: each field's text (by its component's class and its place among the
  // fields of that class) and whether it was entered (Enter, or leaving the field), in the order it happened. The
  // page's document may be replaced meanwhile (runs.js shows another run): the text goes into the new one's field.
  const edits = []
  function fieldOf(input) {
    const cls = componentClass(input)
    const index = cls ? deepQueryAll(`.${CSS.escape(cls)}`).flatMap((host) => deepQueryAll('input, textarea', host.shadowRoot || host))
      .indexOf(input) : -1
    return index < 0 ? null : {cls, index}
  }
  function fieldAt({cls, index}) {
    return deepQueryAll(`.${CSS.escape(cls)}`).flatMap((host) => deepQueryAll('input, textarea', host.shadowRoot || host))[index]
  }
  function record(event, entered) {
    if (document.body.dataset.labBoot === 'ready' || !stepping()) return
    const input = event.composedPath()[0]
    if (!(input instanceof Element) || !typed(input)) return
    const field = fieldOf(input)
    if (!field) return
    const last = edits[edits.length - 1]
    const edit = last && last.cls === field.cls && last.index === field.index ? last : {...field, entered: null}
    if (edit !== last) edits.push(edit)
    edit.value = input.value
    if (entered) edit.entered = input.value
    mark({stage: 'waiting', action: `edit ${field.cls}`})
  }
  // A field's change event does not leave its shadow root: Enter and leaving the field (the two that enter it) do.
  window.addEventListener('input', (event) => record(event, false), true)
  window.addEventListener('keydown', (event) => { if (event.key === 'Enter') record(event, true) }, true)
  // The field being typed in when Python's page replaces the prerendered one (which takes the focus with it).
  // Python's page is on its way ('render'): the prerendered one goes, and the focus with it. The field being typed in
  // at that moment is taken note of (to give it the focus back), and the focus it loses is no reader's doing.
  let typingIn = null
  let takingOver = false
  function takeOver() {
    takingOver = true
    let el = document.activeElement
    while (el && el.shadowRoot && el.shadowRoot.activeElement) el = el.shadowRoot.activeElement
    typingIn = el && typed(el) ? fieldOf(el) : null
  }
  window.addEventListener('focusout', (event) => {
    if (takingOver || document.body.dataset.labBoot === 'ready') return
    const input = event.composedPath()[0]
    const field = input instanceof Element && typed(input) && fieldOf(input)
    if (field && edits.some((edit) => edit.cls === field.cls && edit.index === field.index)) record(event, true)
  }, true)
  window.addEventListener('lab-run-shown', () => {
    for (const edit of edits) {
      const input = fieldAt(edit)
      if (input) input.value = edit.value
    }
  })
  // Into Python's page, in order, as the browser sends them: the text entered and the field's change, then the text
  // typed since; the field being typed in gets the focus back, the caret at the end.
  function enterEdits() {
    const send = (input, value, type) => {
      input.value = value
      input.dispatchEvent(new Event(type, {bubbles: true, composed: true}))
    }
    for (const edit of edits.splice(0)) {
      const input = fieldAt(edit)
      if (!input) continue
      if (edit.entered !== null) {
        send(input, edit.entered, 'input')
        send(input, edit.entered, 'change')
      }
      if (edit.value !== edit.entered) send(input, edit.value, 'input')
    }
    const input = typingIn && fieldAt(typingIn)
    if (input) {
      input.focus()
      input.setSelectionRange?.(input.value.length, input.value.length)
    }
  }
  for (const type of ['pointerdown', 'mousedown', 'click', 'focusin']) {
    window.addEventListener(type, (event) => {
      const control = waitsForPython(event)
      if (!control) return
      event.preventDefault()
      event.stopImmediatePropagation()
      if (type === 'focusin') control.blur()
      if (type !== 'click') return
      window.labStartPython()   // a prepared example starts Python now (elsewhere it has started already)
      if (failed) waitingNote.textContent = text().noPython
      else if (control.tagName === 'BUTTON') keep({kind: 'click', cls: componentClass(control), label: control.textContent.trim()})
      else waitingNote.textContent = text().editing
    }, true)
  }
  // What waits is dimmed while Python starts (each component draws in its own shadow root: its host is styled).
  function dimWaiting() {
    if (!stepping() || document.body.dataset.labBoot !== 'starting' || site.runs) return   // with runs: menus work
    for (const el of deepQueryAll('.lab-header, .editor, .teach-tabs')) el.style.opacity = '0.45'
  }
  new MutationObserver(() => { draw(); dimWaiting() }).observe(root, {attributes: true, attributeFilter: ['class']})

  if (loader) {
    loader.addEventListener('click', (event) => {
      if (event.target.closest('#lab-boot') || document.body.dataset.labBoot !== 'starting') return
      const button = deepElementsAt(event.clientX, event.clientY).find((el) => el.tagName === 'BUTTON')
      if (button) keep({kind: 'click', cls: componentClass(button), label: button.textContent.trim()})
      else if (!pending.length) waitingNote.textContent = text().notYet
    })
  }
  window.addEventListener('keydown', (event) => {
    if (document.body.dataset.labBoot !== 'starting' || !KEYS.has(event.key) || stepping()) return
    if (event.altKey || event.ctrlKey || event.metaKey) return
    event.preventDefault()
    event.stopImmediatePropagation()  // the prerendered lab's keyboard listener would send it nowhere
    keep({kind: 'key', key: event.key})
  }, true)

  function replay() {
    enterEdits()
    const dropped = []
    for (const action of pending.splice(0)) {
      if (action.kind === 'key') {
        document.dispatchEvent(new KeyboardEvent('keydown', {key: action.key, bubbles: true, composed: true}))
        continue
      }
      const hosts = action.cls ? deepQueryAll(`.${CSS.escape(action.cls)}`) : []
      const button = hosts.flatMap((host) => deepQueryAll('button', host.shadowRoot || host))
        .find((el) => el.textContent.trim() === action.label)
      if (button) button.click()
      else dropped.push(describe(action))
    }
    waitingNote.textContent = ''
    if (dropped.length) toast(text().dropped(dropped.join(', ')))
  }

  // A note over the ready lab that goes by itself (what could not be done of what was kept).
  function toast(message) {
    const note = document.createElement('div')
    note.id = 'lab-toast'
    note.setAttribute('role', 'status')
    note.textContent = message
    document.body.appendChild(note)
    setTimeout(() => note.remove(), 8000)
  }

  const panelHide = window.panelLoader ? window.panelLoader.hide : () => { if (loader) loader.style.display = 'none' }
  window.panelLoader = {
    status() {},  // the stages above say more than Panel's one-line status
    error: showError,
    hide() {
      mark({stage: 'ready'})
      document.body.dataset.labBoot = 'ready'
      root.classList.remove('lab-starting')
      panelHide()
      // After Panel's handler has linked the page to Python (the rest of its render step, right after this call).
      setTimeout(replay, 0)
    },
  }
  document.body.dataset.labBoot = site.example ? 'dormant' : 'starting'
  window.addEventListener('lab-python-starting', () => {
    document.body.dataset.labBoot = 'starting'
    lastWord = Date.now()
    mark({stage: 'worker'})
    dimWaiting()
  })
  draw()

  // --- the worker's messages: those early.js kept, then the rest as they come ---
  function onMessage(msg) {
    if (msg.type === 'progress') showStage(msg)
    else if (msg.type === 'render') { takeOver(); mark({stage: 'render'}) }
    else if (msg.type === 'bytecode') Object.assign(window.labBoot, {bytecode: msg})
    else if (msg.type === 'error') showError(msg.msg)
    else if (msg.type === 'location?') {   // Python builds its page from the address: what is shown settles first
      Promise.resolve(window.labRunsSettle?.()).then(() => {
        pyodideWorker.postMessage({type: 'location', location: JSON.stringify(window.location)})
      })
    }
    else if (msg.type === 'fetched' && 'serviceWorker' in navigator) {
      navigator.serviceWorker.ready.then((registration) => {
        registration.active?.postMessage({type: 'cache', urls: msg.urls})
      })
    }
  }
  if (typeof pyodideWorker !== 'undefined') {
    window.labEarlyMessages.splice(0).forEach(onMessage)
    window.labOnMessage = onMessage
    pyodideWorker.addEventListener('error', (event) => {
      showError(`The Python worker (lab.js) could not run: ${event.message || 'it failed to load'}.`)
    })
    const watchdog = setInterval(() => {
      if (failed || document.body.dataset.labBoot === 'ready') return clearInterval(watchdog)
      if (document.body.dataset.labBoot === 'dormant') lastWord = Date.now()   // an example not started yet
      if (Date.now() - lastWord > SILENCE_MS) {
        clearInterval(watchdog)
        showError(`No progress for ${SILENCE_MS / 60000} minutes at “${STAGES[Math.max(current, 0)]}”: ` +
                  'the network may be too slow or offline. Reload to try again.')
      }
    }, 1000)
  }

  // --- the page's language follows the app's (it writes `lang=` into the address as it changes) ---
  for (const method of ['pushState', 'replaceState']) {
    const original = history[method].bind(history)
    history[method] = (...args) => {
      original(...args)
      const lang = new URLSearchParams(window.location.search).get('lang')
      if (lang && lang !== root.lang) {
        root.lang = lang === 'ja' ? 'ja' : 'en'
        draw()
      }
    }
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
  // so the body never grows; the overlay (#loader) is fixed and does not count. Until the lab is ready the height
  // only grows: when Python takes over, the prerendered content is removed before the live one is drawn, and a
  // host that followed that would collapse the frame and make its text jump.
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
      const measured = contentHeight()
      const height = document.body.dataset.labBoot === 'ready' ? measured : Math.max(measured, sent)
      if (height !== sent && height > 0) {
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
