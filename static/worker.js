// The lab's Pyodide web worker. Rendered by `panel convert` (static/build_site.py swaps it in for Panel's
// panel/_templates/pyodide_worker.js; Panel fills in {{ '{{ code }}' }}: the app's source between its own
// init_doc()/write_doc() lines). It keeps Panel's message protocol with pyodide_handler.js (status, error, render,
// patch, idle, rendered, location) and changes how the environment is made:
//   - what to load comes from lock.json, written by the build: where Pyodide is, the Pyodide packages (loadPackage),
//     and the site's own pure-Python wheels in install order (unpacked straight into site-packages, no micropip,
//     no PyPI round trip);
//   - every download has a timeout and a failure names the file, the URL and the reason, so the page says which
//     asset is missing instead of spinning;
//   - 'progress' messages (stage, done, total) drive the staged boot display in boot.js;
//   - the page's URL arrives before the app runs (a 'location' message from boot.js), so the app builds its
//     widgets from the query (mode, algorithm, scenario, step) exactly as under `panel serve`.

const FETCH_TIMEOUT_MS = 30000      // no answer (or no new bytes) for this long: the fetch failed
const PYODIDE_TIMEOUT_MS = 180000   // the whole of loadPyodide, which fetches its runtime itself
const PACKAGE_TIMEOUT_MS = 180000   // one Pyodide package (pandas is the largest, about 5 MB)

class BootError extends Error {}

let pageLocation = null
let appStarted = false

function progress(stage, detail, done, total) {
  self.postMessage({type: 'progress', stage, detail, done, total})
  self.postMessage({type: 'status', msg: detail ? `${stage}: ${detail}` : stage})
}

function withTimeout(promise, ms, what) {
  let timer
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new BootError(`${what} took longer than ${ms / 1000} s`)), ms)
  })
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer))
}

function offlineHint(url) {
  const remote = new URL(url).origin !== self.location.origin
  return remote ? ' This build loads Pyodide from its CDN, so it needs the network on the first visit; ' +
                  'for offline use build it self-contained (python3 build.py build --pyodide-dist ...).' : ''
}

// fetch() that gives up after FETCH_TIMEOUT_MS without an answer or without new bytes; reports bytes as they come.
async function download(url, what, onBytes) {
  const controller = new AbortController()
  let timer = setTimeout(() => controller.abort(), FETCH_TIMEOUT_MS)
  try {
    let response
    try {
      response = await fetch(url, {signal: controller.signal})
    } catch (e) {
      const why = controller.signal.aborted ? `no answer within ${FETCH_TIMEOUT_MS / 1000} s` : 'network error (offline?)'
      throw new BootError(`Could not download ${what} from ${url}: ${why}.${offlineHint(url)}`)
    }
    if (!response.ok) {
      throw new BootError(`Could not download ${what} from ${url}: HTTP ${response.status} ${response.statusText}.`)
    }
    const reader = response.body.getReader()
    const chunks = []
    let received = 0
    for (;;) {
      const {done, value} = await reader.read().catch(() => {
        throw new BootError(`Download of ${what} from ${url} stalled for ${FETCH_TIMEOUT_MS / 1000} s.`)
      })
      if (done) break
      clearTimeout(timer)
      timer = setTimeout(() => controller.abort(), FETCH_TIMEOUT_MS)
      chunks.push(value)
      received += value.length
      onBytes?.(received)
    }
    const bytes = new Uint8Array(received)
    let offset = 0
    for (const chunk of chunks) { bytes.set(chunk, offset); offset += chunk.length }
    return bytes
  } finally {
    clearTimeout(timer)
  }
}

async function sha256(bytes) {
  const digest = await crypto.subtle.digest('SHA-256', bytes)
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('')
}

async function loadRuntime(lock) {
  const indexURL = new URL(lock.pyodide.index_url, self.location).href
  progress('Downloading Pyodide', `runtime ${lock.pyodide.version}`)
  // A small probe first: an unreachable Pyodide shows up here as a clear message within the fetch timeout.
  await download(indexURL + 'pyodide-lock.json', 'the Pyodide package index')
  let loadPyodide
  try {
    ({loadPyodide} = await withTimeout(import(indexURL + 'pyodide.mjs'), FETCH_TIMEOUT_MS, 'Loading pyodide.mjs'))
  } catch (e) {
    throw new BootError(`Could not load ${indexURL}pyodide.mjs: ${e.message || e}.${offlineHint(indexURL)}`)
  }
  return await withTimeout(loadPyodide({indexURL}), PYODIDE_TIMEOUT_MS, `Starting Pyodide from ${indexURL}`)
}

const normalize = (name) => name.toLowerCase().replace(/[-_.]+/g, '-')

// One package per loadPackage call, in dependency order (the lock's): the display counts them, a slow one is timed
// out, and a missing one is named. (loadedPackages is keyed by the package's own spelling, e.g. "MarkupSafe".)
async function loadPyodidePackages(pyodide, lock) {
  const names = lock.pyodide.packages
  const base = new URL(lock.pyodide.index_url, self.location).href
  const loaded = () => new Set(Object.keys(pyodide.loadedPackages).map(normalize))
  const missing = []
  let firstError = ''
  for (const [i, name] of names.entries()) {
    progress('Loading packages', `${i + 1} of ${names.length}: ${name}`, i, names.length)
    const errors = []
    try {
      await withTimeout(pyodide.loadPackage(name, {messageCallback: () => {}, errorCallback: (m) => errors.push(m)}),
                        PACKAGE_TIMEOUT_MS, `Loading ${name}`)
    } catch (e) {
      errors.push(e.message || `${e}`)
    }
    if (!loaded().has(normalize(name))) {
      missing.push(name)
      firstError ||= errors.join(' ')
    }
  }
  if (missing.length) {
    // Ask for the first missing file ourselves: its HTTP status or network error says why.
    const firstURL = new URL(lock.pyodide.files[missing[0]], base).href
    let why
    try {
      await download(firstURL, `the package ${missing[0]}`)
      why = firstError || 'Pyodide could not load it.'
    } catch (e) {
      why = e.message
    }
    throw new BootError(`Missing Pyodide package${missing.length > 1 ? 's' : ''} (${missing.length}): ` +
      `${missing.join(', ')}. ${why} This site's Pyodide at ${base} does not provide what the lab needs` +
      (new URL(base).origin === self.location.origin
        ? ': it was built from an incomplete Pyodide distribution; rebuild with a full one.' : '.'))
  }
  progress('Loading packages', `${names.length} of ${names.length}`, names.length, names.length)
}

async function installWheels(pyodide, lock) {
  const wheels = lock.wheels
  const totalBytes = wheels.reduce((sum, w) => sum + w.size, 0)
  // Into site-packages: by default unpackArchive puts a wheel in the current directory.
  const sitePackages = pyodide.runPython("import sysconfig; sysconfig.get_path('purelib')")
  let doneBytes = 0
  for (const [i, wheel] of wheels.entries()) {
    const url = new URL(wheel.file, new URL('lock.json', self.location)).href
    const bytes = await download(url, `the wheel ${wheel.name}`, (n) =>
      progress('Installing wheels', `${i + 1} of ${wheels.length}: ${wheel.name}`, doneBytes + n, totalBytes))
    // crypto.subtle exists only in secure contexts (https, localhost); on plain http the size has to do.
    const intact = self.crypto?.subtle ? (await sha256(bytes)) === wheel.sha256 : bytes.length === wheel.size
    if (!intact) {
      throw new BootError(`The wheel ${wheel.name} at ${url} is not the one this site was built with ` +
                          '(checksum mismatch): reload the page; if it persists, rebuild the site.')
    }
    pyodide.unpackArchive(bytes, 'wheel', {extractDir: sitePackages})
    doneBytes += wheel.size
  }
  pyodide.runPython('import importlib; importlib.invalidate_caches()')
  progress('Installing wheels', `${wheels.length} of ${wheels.length}`, totalBytes, totalBytes)
}

async function startApplication() {
  let lock
  try {
    lock = JSON.parse(new TextDecoder().decode(await download(new URL('lock.json', self.location).href, 'lock.json')))
    self.pyodide = await loadRuntime(lock)
    self.pyodide.globals.set('sendPatch', sendPatch)
    await loadPyodidePackages(self.pyodide, lock)
    await installWheels(self.pyodide, lock)
  } catch (e) {
    self.postMessage({type: 'error', msg: e instanceof BootError ? e.message : `Pyodide failed to start: ${e}`})
    throw e
  }
  progress('Starting the app')
  // Wait (briefly) for the page's URL so the app sees the query as it builds.
  for (let waited = 0; pageLocation === null && waited < 2000; waited += 20) {
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  self.labPageLocation = pageLocation
  try {
    const [docs_json, render_items, root_ids] = await self.pyodide.runPythonAsync(`{{ code }}`)
    appStarted = true
    self.postMessage({type: 'render', docs_json, render_items, root_ids})
  } catch (e) {
    const tblines = `${e}`.split('\n')
    self.postMessage({type: 'error', msg: `The app failed to start: ${tblines[tblines.length - 2] || tblines[0]}`})
    throw e
  }
}

// From here on: Panel's pyodide_worker.js as it is, except that a 'location' message arriving before Pyodide is
// ready is kept for startApplication instead of failing.
function sendPatch(patch, buffers, msg_id) {
  self.postMessage({type: 'patch', patch: patch, buffers: buffers})
}

self.onmessage = async (event) => {
  const msg = event.data
  if (msg.type === 'rendered') {
    self.pyodide.runPythonAsync(`
    from panel.io.state import state
    from panel.io.pyodide import _link_docs_worker

    _link_docs_worker(state.curdoc, sendPatch, setter='js')
    `)
  } else if (msg.type === 'patch') {
    // Patches can arrive back to back; passing each one in its own locals keeps a
    // later message from overwriting a shared global before Python has read it.
    const locals = self.pyodide.toPy({patch: msg.patch}, {depth: 1})
    try {
      await self.pyodide.runPythonAsync(`
    from panel.io.pyodide import _convert_json_patch
    from panel.io.state import state
    state.curdoc.apply_json_patch(_convert_json_patch(patch), setter='js')
    `, {locals})
    } finally {
      locals.destroy()
    }
    self.postMessage({type: 'idle'})
  } else if (msg.type === 'location') {
    if (!appStarted) {
      pageLocation = msg.location
      return
    }
    self.pyodide.globals.set('location', msg.location)
    self.pyodide.runPythonAsync(`
    import json
    from panel.io.state import state
    from panel.util import edit_readonly
    if state.location:
        loc_data = json.loads(location)
        with edit_readonly(state.location):
            state.location.param.update({
                k: v for k, v in loc_data.items() if k in state.location.param
            })
    `)
  }
}

startApplication()
