// Panel's pyodide handler (the page's inline script that talks to the Python worker) with one function replaced:
// its `send_change` keeps a property change made while the worker is busy, to send once the worker is idle, but
// sends any other event -- a button's click -- at once; so a click made just after a choice reached Python before
// the choice (issue 19 item 5: no choice is lost). Here every event made while the worker is busy waits in the
// worker's queue, in the order made; a newer value of a property replaces an older one still waiting, unless a
// click waits between them (the click was made after the older value, and must find it). The function replaced is
// Panel 1.10's, pinned by static/panel_adapter.py (HANDLER_SEND_CHANGE); its globals (`pyodideWorker`,
// `patching`) are the handler script's own.
/* global pyodideWorker, patching */
(function () {
  'use strict'
  if (typeof window.send_change !== 'function') return   // not the converted page (the tests' own pages)
  window.send_change = function (jsdoc, event) {
    if ((event.setter_id != null && event.setter_id === 'py') || patching > 0) return
    const worker = pyodideWorker
    if (worker.busy) {
      const property = (e) => e.model && e.attr
      const lastOther = worker.queue.findLastIndex((e) => !property(e))
      if (property(event)) {
        worker.queue = worker.queue.filter((old, i) => i < lastOther || !(old.model === event.model &&
                                                                         old.attr === event.attr))
      }
      worker.queue.push(event)
      return
    }
    worker.busy = true
    worker.postMessage({type: 'patch', patch: jsdoc.create_json_patch([event])})
  }
})()
