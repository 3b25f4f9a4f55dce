// The lab's service worker: after the first visit the site works offline.
// The build replaces SITE with {version, precache, remote, runs}: version is a hash of the site's content, so a new
// build is a new service worker; it caches the new files and deletes the old cache when it takes over. The
// prerendered runs (SITE.runs, a folder: one file per run the reader may pick) are not fetched at install: each is
// kept once the page has fetched it. Without a local Pyodide (remote = its CDN), the runtime and packages the lab
// loads are cached too. Both as they go through here, and on the first visit (whose page and Python worker start
// before this service worker controls anything) from the lists of what they fetched, which the page sends.
const SITE = /*SITE*/null
const CACHE = `schedlab-${SITE.version}`
const RUNTIME = 'schedlab-pyodide'          // Pyodide from its CDN: versioned URLs, cached as first fetched
const BYTECODE = 'schedlab-bytecode'        // the lab's Python worker keeps its compiled modules here (lab.js)
const ENTRY = /(\/|\.html|lock\.json|lab\.js|boot\.js)$/  // network first (fresh after an update), cache when offline
const NETWORK_WAIT_MS = 4000

// What the page says it fetched: Pyodide's files from its CDN into RUNTIME, the site's prerendered runs into CACHE.
// Best effort: offline use is a bonus, not a condition.
async function keep(urls) {
  const runs = new URL(SITE.runs, self.location).href
  const into = async (name, wanted) => {
    const cache = await caches.open(name)
    await Promise.allSettled(wanted.map(async (url) => (await cache.match(url)) || cache.add(url)))
  }
  await Promise.all([into(RUNTIME, urls.filter((url) => SITE.remote && url.startsWith(SITE.remote))),
                     into(CACHE, urls.filter((url) => url.startsWith(runs)))])
}

self.addEventListener('install', (event) => {
  event.waitUntil((async () => {
    await (await caches.open(CACHE)).addAll(SITE.precache)
    await self.skipWaiting()
  })())
})

self.addEventListener('message', (event) => {
  if (event.data && event.data.type === 'cache' && Array.isArray(event.data.urls)) {
    event.waitUntil(keep(event.data.urls))
  }
})

self.addEventListener('activate', (event) => {
  event.waitUntil((async () => {
    for (const name of await caches.keys()) {
      if (name.startsWith('schedlab-') && ![CACHE, RUNTIME, BYTECODE].includes(name)) await caches.delete(name)
    }
    await self.clients.claim()
  })())
})

async function networkFirst(request) {
  const cache = await caches.open(CACHE)
  try {
    const response = await Promise.race([
      fetch(request),
      new Promise((_, reject) => setTimeout(() => reject(new Error('slow network')), NETWORK_WAIT_MS)),
    ])
    if (response.ok) cache.put(request, response.clone())
    return response
  } catch (e) {
    const cached = await cache.match(request, {ignoreSearch: request.mode === 'navigate'})
    if (cached) return cached
    throw e
  }
}

async function cacheFirst(request, cacheName) {
  const cache = await caches.open(cacheName)
  const cached = await cache.match(request)
  if (cached) return cached
  const response = await fetch(request)
  if (response.ok) cache.put(request, response.clone())
  return response
}

self.addEventListener('fetch', (event) => {
  const request = event.request
  if (request.method !== 'GET') return
  const url = new URL(request.url)
  if (url.origin === self.location.origin) {
    const path = url.pathname
    event.respondWith(ENTRY.test(path) || request.mode === 'navigate' ? networkFirst(request) : cacheFirst(request, CACHE))
  } else if (SITE.remote && request.url.startsWith(SITE.remote)) {
    event.respondWith(cacheFirst(request, RUNTIME))
  }
})
