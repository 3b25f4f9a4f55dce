// Each component's own stylesheets, parsed once for the page instead of once per component (issue 19 item 1).
// BokehJS gives every view a shadow root and, on every render, puts in it a <link> for each of Panel's CSS files the
// component names and a <style> for each of the lab's inline sheets: on a switch of run before Python the page
// embeds a new document of about 80 views, and the browser fetches and parses those sheets again for each of them
// (most of the time a switch took, measured in docs/performance.md "Switching runs before Python").
//   A view's user stylesheets (StyledElementView._user_stylesheets, BokehJS 3: its `stylesheets`, Panel's files and
// the lab's CSS) come last in its shadow root, and adopted sheets follow all of a root's <style> and <link>
// elements in the cascade: so adopting them all, in their order, keeps the cascade as it was. Each file is fetched
// once (by its URL; the service worker keeps it) and parsed once into a CSSStyleSheet with the file's URL as its
// base, each inline text parsed once; a view whose sheets cannot all be adopted (a file not fetched yet, a global
// sheet, an @import, no shadow root) keeps BokehJS's own elements, as before. The first document on the page is
// drawn with the elements while the files are fetched; the next ones adopt.
// `window.labSheets` counts the renders each way (the tests read it).
(function () {
  'use strict'
  const counts = window.labSheets = {adopted: 0, elements: 0}
  if (!('adoptedStyleSheets' in ShadowRoot.prototype) || !('replaceSync' in CSSStyleSheet.prototype)) return
  const owner = ownerOfUserStylesheets()
  if (!owner) {
    console.warn('sheets.js: BokehJS has no StyledElementView._user_stylesheets: stylesheets are left to BokehJS')
    return
  }
  const files = new Map()   // URL -> CSSStyleSheet, or null while it is fetched or when it cannot be adopted
  const texts = new Map()   // inline text -> CSSStyleSheet, or null when it cannot be adopted

  function ownerOfUserStylesheets() {
    const column = window.Bokeh?.Models?.get?.('Column') ?? window.Bokeh?.Models?.Column
    let proto = column?.prototype?.default_view?.prototype
    while (proto && !Object.prototype.hasOwnProperty.call(proto, '_user_stylesheets')) {
      proto = Object.getPrototypeOf(proto)
    }
    return proto
  }

  function parsed(text, baseURL) {
    if (/@import/i.test(text)) return null   // replaceSync drops @import rules
    const sheet = new CSSStyleSheet(baseURL ? {baseURL} : {})
    sheet.replaceSync(text)
    return sheet
  }

  function fetchFile(url) {
    files.set(url, null)
    fetch(url).then((response) => response.ok ? response.text() : Promise.reject(new Error(`HTTP ${response.status}`)))
      .then((text) => files.set(url, parsed(text, url)))
      .catch((error) => console.warn(`sheets.js: ${url} is left to BokehJS: ${error.message}`))
  }

  // The CSSStyleSheet standing for one of BokehJS's sheets, or null when it cannot stand for it (yet).
  function adoptable(sheet) {
    const el = sheet?.el
    if (Object.prototype.hasOwnProperty.call(Object.getPrototypeOf(sheet), 'install')) return null   // global
    if (el instanceof HTMLLinkElement) {
      if (!files.has(el.href)) fetchFile(el.href)
      return files.get(el.href)
    }
    if (el instanceof HTMLStyleElement) {
      const text = el.textContent
      if (!texts.has(text)) texts.set(text, parsed(text))
      return texts.get(text)
    }
    return null
  }

  // One view's user stylesheets, installed as BokehJS installs a sheet: adopted into a shadow root, else its elements.
  class Adopted {
    constructor(originals, sheets) {
      this.originals = originals
      this.sheets = sheets
      this.root = null
    }
    install(el) {
      if (el instanceof ShadowRoot) {
        this.root = el
        el.adoptedStyleSheets = this.sheets
        counts.adopted += 1
      } else {
        for (const sheet of this.originals) sheet.install(el)
        counts.elements += 1
      }
    }
    uninstall() {
      if (this.root) this.root.adoptedStyleSheets = []
      else for (const sheet of this.originals) sheet.uninstall()
      this.root = null
    }
  }

  const original = owner._user_stylesheets
  owner._user_stylesheets = function * () {
    const originals = [...original.call(this)]
    if (!originals.length) return
    const sheets = originals.map(adoptable)
    if (sheets.every(Boolean)) {
      yield new Adopted(originals, sheets)
    } else {
      counts.elements += 1
      yield * originals
    }
  }
})()
