// The lab's Pyodide web worker (lab.js). The build writes the Python it runs into the PYTHON line below
// (static/panel_adapter.py's worker_modules(): the modules of static/site_worker/, path -> source), which it writes
// into Pyodide's file system and imports (`python`, below) before anything else.
// It keeps Panel's message protocol with pyodide_handler.js (status, error, render, patch, idle, rendered,
// location) and changes how the environment is made and the app is started:
//   - what to load comes from lock.json, written by the build: where Pyodide is, the Pyodide packages, the site's
//     own wheels (unpacked straight into site-packages: no micropip, no PyPI round trip), and the app's module;
//   - the wheels download while Pyodide starts, and the packages load in one loadPackage call (in parallel); those
//     the first page does not import (lock.json's "later": pandas, pillow, ...) load once the lab is ready;
//   - every download has a timeout, and a failure names the file, the URL and the reason;
//   - 'progress' messages (stage, part, done, total) drive the boot display in boot.js, down to which of the app's
//     imports is under way;
//   - the code Python compiles while the lab starts is kept (Cache Storage) for the next visit, whose imports
//     then skip compiling (site_worker/bytecode.py), and so is the standard library that Python's own start
//     imports, compiled, which the next visit's loadPyodide takes as its stdLibURL;
//   - the page's URL arrives before the app runs (a 'location' message from the page's head, asked for again with
//     'location?' right before the app builds its page: the page's menus may have changed it), so the app builds its
//     widgets from the query (mode, algorithm, scenario, step) exactly as under `panel serve`.

const PYTHON = /*PYTHON*/null

const FETCH_TIMEOUT_MS = 30000      // no answer (or no new bytes) for this long: the fetch failed
const PYODIDE_TIMEOUT_MS = 180000   // the whole of loadPyodide, which fetches its runtime itself
const PACKAGES_TIMEOUT_MS = 300000  // all Pyodide packages (pandas is the largest, about 5 MB)
const SETTLE_MS = 2000              // after the first render, before the work that waits until the lab is ready
const LOCATION_WAIT_MS = 5000       // for the page's answer to 'location?' (it answers at once, or after a run it
                                    // is putting on screen)

const WORKER_HOME = '/schedlab'        // where the worker's own modules are written, first on sys.path

class BootError extends Error {}

// The worker's Python modules (site_worker.NAME), once Pyodide runs: all imported at once, before the import hooks
// of site_worker.bytecode are in, so that none of them is ever taken from an earlier visit's bytecode (lab.js may
// be newer than the bundle, which is keyed by lock.json and the runtime).
const python = {}

function importWorkerModules(pyodide) {
  for (const [path, source] of Object.entries(PYTHON)) {
    pyodide.FS.mkdirTree(`${WORKER_HOME}/${path.split('/').slice(0, -1).join('/')}`)
    pyodide.FS.writeFile(`${WORKER_HOME}/${path}`, source)
  }
  pyodide.pyimport('sys').path.insert(0, WORKER_HOME)
  for (const name of ['bytecode', 'pandas_later', 'panel_protocol']) python[name] = pyodide.pyimport(`site_worker.${name}`)
}

let pageLocation = null
let appStarted = false

function progress(stage, fields = {}) {
  self.postMessage({type: 'progress', stage, ...fields})
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
      onBytes?.(value.length)
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

async function loadRuntime(lock, stdLibURL) {
  const indexURL = new URL(lock.pyodide.index_url, self.location).href
  progress('Downloading Pyodide', {detail: lock.pyodide.version})
  let loadPyodide
  try {
    ({loadPyodide} = await withTimeout(import(indexURL + 'pyodide.mjs'), FETCH_TIMEOUT_MS, 'Loading pyodide.mjs'))
  } catch (e) {
    // A failed import says little ("Failed to fetch dynamically imported module"): ask for the file ourselves.
    await download(indexURL + 'pyodide.mjs', 'the Pyodide runtime')
    throw new BootError(`Could not load ${indexURL}pyodide.mjs: ${e.message || e}.${offlineHint(indexURL)}`)
  }
  return await withTimeout(loadPyodide(stdLibURL ? {indexURL, stdLibURL} : {indexURL}), PYODIDE_TIMEOUT_MS,
                           `Starting Pyodide from ${indexURL}`)
}

const normalize = (name) => name.toLowerCase().replace(/[-_.]+/g, '-')

// All packages in one loadPackage call: Pyodide downloads them in parallel and installs each as its dependencies
// are in. The count on the display follows pyodide.loadedPackages (keyed by each package's own spelling, e.g.
// "MarkupSafe"); a missing one is named, with the HTTP status of its file.
async function loadPyodidePackages(pyodide, lock) {
  const names = lock.pyodide.packages
  const base = new URL(lock.pyodide.index_url, self.location).href
  const loaded = () => new Set(Object.keys(pyodide.loadedPackages).map(normalize))
  const count = () => names.filter((name) => loaded().has(normalize(name))).length
  let shown = -1
  const report = () => {
    const done = count()
    if (done !== shown) progress('Loading packages', {done, total: names.length, count: true})
    shown = done
  }
  report()
  const ticker = setInterval(report, 100)
  const errors = []
  try {
    await withTimeout(pyodide.loadPackage(names, {messageCallback: () => {}, errorCallback: (m) => errors.push(m)}),
                      PACKAGES_TIMEOUT_MS, `Loading ${names.length} packages`)
  } catch (e) {
    errors.push(e.message || `${e}`)
  } finally {
    clearInterval(ticker)
  }
  const missing = names.filter((name) => !loaded().has(normalize(name)))
  if (missing.length) {
    // Ask for the first missing file ourselves: its HTTP status or network error says why.
    const firstURL = new URL(lock.pyodide.files[missing[0]], base).href
    let why
    try {
      await download(firstURL, `the package ${missing[0]}`)
      why = errors.find((m) => m.includes(missing[0])) || errors[0] || 'Pyodide could not load it.'
    } catch (e) {
      why = e.message
    }
    throw new BootError(`Missing Pyodide package${missing.length > 1 ? 's' : ''} (${missing.length}): ` +
      `${missing.join(', ')}. ${why} This site's Pyodide at ${base} does not provide what the lab needs` +
      (new URL(base).origin === self.location.origin
        ? ': it was built from an incomplete Pyodide distribution; rebuild with a full one.' : '.'))
  }
  report()
}

// The packages the first page does not import, once the lab is ready, so that the environment is whole for
// whatever imports them later (self.laterPackages, below: a promise of their names). The service worker is told to
// keep them for offline visits.
async function loadLaterPackages(pyodide, lock) {
  const names = lock.pyodide.later
  const errors = []
  try {
    await withTimeout(pyodide.loadPackage(names, {messageCallback: () => {}, errorCallback: (m) => errors.push(m)}),
                      PACKAGES_TIMEOUT_MS, `Loading ${names.length} packages`)
  } finally {
    reportFetched(lock)
  }
  const loaded = new Set(Object.keys(pyodide.loadedPackages).map(normalize))
  const missing = names.filter((name) => !loaded.has(normalize(name)))
  if (missing.length) throw new BootError(`Not loaded: ${missing.join(', ')}. ${errors.join(' ')}`)
  return names
}

// The site's wheels, all at once, checked against the lock; started before Pyodide so that they are in by the
// time it is. `received` counts bytes for the display of the stage that waits for them.
function downloadWheels(lock) {
  const state = {received: 0, total: lock.wheels.reduce((sum, w) => sum + w.size, 0)}
  state.all = Promise.all(lock.wheels.map(async (wheel) => {
    const url = new URL(wheel.file, new URL('lock.json', self.location)).href
    const bytes = await download(url, `the wheel ${wheel.name}`, (n) => { state.received += n })
    // crypto.subtle exists only in secure contexts (https, localhost); on plain http the size has to do.
    const intact = self.crypto?.subtle ? (await sha256(bytes)) === wheel.sha256 : bytes.length === wheel.size
    if (!intact) {
      throw new BootError(`The wheel ${wheel.name} at ${url} is not the one this site was built with ` +
                          '(checksum mismatch): reload the page; if it persists, rebuild the site.')
    }
    return bytes
  }))
  state.all.catch(() => {})  // awaited (and reported) in installWheels
  return state
}

async function installWheels(pyodide, wheels) {
  const report = () => progress('Installing wheels', {done: wheels.received, total: wheels.total, bytes: true})
  report()
  const ticker = setInterval(report, 100)
  let all
  try {
    all = await wheels.all
  } finally {
    clearInterval(ticker)
  }
  report()
  // Into site-packages: by default unpackArchive puts a wheel in the current directory.
  const sitePackages = pyodide.runPython("import sysconfig; sysconfig.get_path('purelib')")
  for (const bytes of all) pyodide.unpackArchive(bytes, 'wheel', {extractDir: sitePackages})
  pyodide.runPython('import importlib; importlib.invalidate_caches()')
}

// --- the code an earlier visit compiled (site_worker/bytecode.py) ---
const BYTECODE_CACHE = 'schedlab-bytecode'  // service-worker.js keeps it; entries are keyed by what made them

// The same lock.json (so the same wheels and packages) in the same runtime: the same bytecode.
async function bytecodeKey(pyodide, lockText) {
  if (!self.caches || !self.crypto?.subtle) return null  // secure contexts only (https, localhost)
  const runtime = `${pyodide.version} ${pyodide.runPython('import sys; sys.version')}`
  const digest = await sha256(new TextEncoder().encode(`${lockText}\n${runtime}`))
  return new URL(`bytecode-${digest.slice(0, 16)}.marshal`, self.location).href
}

// The standard library compiled: the same lock.json names the same runtime, so the same standard library (and a .pyc
// of another Python would only be passed over for its source).
async function stdlibKey(lockText) {
  if (!self.caches || !self.crypto?.subtle) return null
  const digest = await sha256(new TextEncoder().encode(lockText))
  return new URL(`stdlib-${digest.slice(0, 16)}.zip`, self.location).href
}

// What an earlier visit kept under `key`, or undefined (None in Python). A bonus, never a condition: whatever goes
// wrong here, Python compiles from the sources as on a first visit.
async function earlierBytecode(key) {
  try {
    const cached = key && await (await caches.open(BYTECODE_CACHE)).match(key)
    return cached ? new Uint8Array(await cached.arrayBuffer()) : undefined
  } catch (e) {
    return undefined
  }
}

// The bundle of this visit's compiled modules and the compiled standard library, each under its key, unless this
// visit started from it; everything else in the cache (other builds') goes.
async function storeBytecode(pyodide) {
  const cache = await caches.open(BYTECODE_CACHE)
  const parts = [[bytecode.key, python.bytecode.bundle, bytecode.restored],
                 [bytecode.stdlibKey, python.bytecode.stdlib_zip, bytecode.stdlib]]
  for (const old of await cache.keys()) {
    if (!parts.some(([key, , used]) => used && key === old.url)) await cache.delete(old)
  }
  for (const [key, made] of parts.filter(([, , used]) => !used)) {
    const kept = made()
    const bytes = kept.toJs()
    kept.destroy()
    await cache.put(key, new Response(bytes, {headers: {'Content-Type': 'application/octet-stream'}}))
  }
}

async function forgetBytecode(...keys) {
  for (const key of keys) if (key) await (await caches.open(BYTECODE_CACHE)).delete(key).catch(() => {})
}

// Pyodide started with the standard library an earlier visit compiled (a blob: URL for loadPyodide), or, if that
// fails, forgotten and started as on a first visit.
async function loadRuntimeWithStdlib(lock) {
  const kept = await earlierBytecode(bytecode.stdlibKey)
  if (!kept) return await loadRuntime(lock)
  const url = URL.createObjectURL(new Blob([kept], {type: 'application/zip'}))
  try {
    const pyodide = await loadRuntime(lock, url)
    bytecode.stdlib = true
    return pyodide
  } catch (e) {
    await forgetBytecode(bytecode.stdlibKey)
    return await loadRuntime(lock)
  } finally {
    URL.revokeObjectURL(url)
  }
}

// Panel, then each of the app's own imports, then the app itself, then its document: one part each on the display.
async function startApp(pyodide, lock) {
  const modules = lock.app.imports.filter((name) => name !== 'panel')
  const parts = [['panel'], ...modules.map((module) => ['import', module]), ['build'], ['draw']]
  const part = (index) => progress('Starting the app', {part: parts[index][0], module: parts[index][1],
                                                        done: index, total: parts.length})
  part(0)
  python.pandas_later.defer()   // before Panel is imported
  python.panel_protocol.import_panel(new URL(lock.app.panel_root, new URL('lock.json', self.location)).href)
  for (const [i, module] of modules.entries()) {
    part(i + 1)
    python.panel_protocol.import_module(module)
  }
  part(parts.length - 2)
  // The page's URL as it is now (its menus may have changed it since it sent it first thing: runs.js), so that the
  // app builds what the page shows; the page answers once nothing it shows changes any more (briefly waited for).
  const earlier = pageLocation
  pageLocation = null
  self.postMessage({type: 'location?'})
  for (let waited = 0; pageLocation === null && waited < LOCATION_WAIT_MS; waited += 20) {
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  pageLocation ??= earlier
  python.panel_protocol.build_page(pageLocation, lock.app.module)
  part(parts.length - 1)
  const [docs_json, render_items, root_ids] = await python.panel_protocol.write_doc()
  appStarted = true
  self.postMessage({type: 'render', docs_json, render_items, root_ids})
  reportFetched(lock)
}

// What this worker fetched of Pyodide, for the service worker to keep (see service-worker.js).
function reportFetched(lock) {
  const index = new URL(lock.pyodide.index_url, self.location).href
  const urls = performance.getEntriesByType('resource').map((entry) => entry.name).filter((u) => u.startsWith(index))
  self.postMessage({type: 'fetched', urls})
}

// Once the lab is ready and the page has settled (SETTLE_MS after its first render): the packages nothing has
// imported yet, then (once per version) the bytecode for the next visit, a second of work.
let settle
const settled = new Promise((resolve) => { settle = resolve })
self.laterPackages = settled.then(() => loadLaterPackages(self.pyodide, lock))
settled.then(async () => {
  await self.laterPackages.catch((e) => console.warn(`The lab's later packages: ${e.message || e}`))
  if (bytecode.key && bytecode.stdlibKey && !(bytecode.restored && bytecode.stdlib)) {
    await storeBytecode(self.pyodide).then(
      () => self.postMessage({type: 'bytecode', stored: true}),
      (e) => self.postMessage({type: 'bytecode', stored: false, why: `${e}`}))
  }
})

const bytecode = {key: null, restored: false, stdlibKey: null, stdlib: false}
let lock = null

async function startApplication() {
  try {
    const lockText = new TextDecoder().decode(await download(new URL('lock.json', self.location).href, 'lock.json'))
    lock = JSON.parse(lockText)
    const wheels = downloadWheels(lock)
    bytecode.stdlibKey = await stdlibKey(lockText)
    self.pyodide = await loadRuntimeWithStdlib(lock)
    importWorkerModules(self.pyodide)
    // First: installing the packages imports modules too (zipfile, tarfile, ...).
    bytecode.key = await bytecodeKey(self.pyodide, lockText)
    bytecode.restored = python.bytecode.keep(await earlierBytecode(bytecode.key))
    self.postMessage({type: 'bytecode', restored: bytecode.restored, stdlib: bytecode.stdlib})
    await loadPyodidePackages(self.pyodide, lock)
    await installWheels(self.pyodide, wheels)
  } catch (e) {
    self.postMessage({type: 'error', msg: e instanceof BootError ? e.message : `Pyodide failed to start: ${e}`})
    throw e
  }
  try {
    await startApp(self.pyodide, lock)
  } catch (e) {
    // In case they are to blame: the next visit compiles.
    if (bytecode.restored || bytecode.stdlib) await forgetBytecode(bytecode.key, bytecode.stdlibKey)
    const tblines = `${e}`.split('\n')
    self.postMessage({type: 'error', msg: `The app failed to start: ${tblines[tblines.length - 2] || tblines[0]}`})
    throw e
  }
}

// From here on: Panel's pyodide_worker.js as it is, with its Python in site_worker/panel_protocol.py, except that a
// 'location' message arriving before the app runs is kept for startApp instead of failing.
function sendPatch(patch, buffers, msg_id) {
  self.postMessage({type: 'patch', patch: patch, buffers: buffers})
}

self.onmessage = async (event) => {
  const msg = event.data
  if (msg.type === 'rendered') {
    python.panel_protocol.link_docs(sendPatch)
    setTimeout(settle, SETTLE_MS)
  } else if (msg.type === 'patch') {
    try {
      python.panel_protocol.apply_patch(msg.patch)   // each patch its own argument: back to back, none overwrites another
    } finally {
      self.postMessage({type: 'idle'})   // even after an error: the page sends what waited, and never waits forever
    }
  } else if (msg.type === 'location') {
    if (!appStarted) {
      pageLocation = msg.location
      return
    }
    python.panel_protocol.set_location(msg.location)
  }
}

startApplication()
