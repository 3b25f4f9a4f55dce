// Panel's pyodide handler (the page's inline script that talks to the Python worker) with one function replaced:
// its `send_change` keeps a property change made while the worker is busy, to send once the worker is idle, but
// sends a button's click at once; so a click made just after a choice reached Python before the choice (issue 19
// item 5: no choice is lost). Here a click made while the worker is busy waits in the worker's queue too, behind the
// changes made before it; a newer value of a property replaces an older one still waiting, unless a click waits
// between them (the click was made after the older value, and must find it). Other messages (the pager's steps) go
// at once, as Panel sends them: the pager's own protocol with Python counts on that. The function replaced is
// Panel 1.10's, pinned by static/panel_adapter.py (HANDLER_SEND_CHANGE); its globals (`pyodideWorker`,
// `patching`) are the handler script's own.
/* global pyodideWorker, patching */
(function () {
  'use strict'
  if (typeof window.send_change !== 'function') return   // not the converted page (the tests' own pages)
  const property = (event) => event.model && event.attr
  const click = (event) => event.msg_type === 'bokeh_event' && event.msg_data?.event_name === 'button_click'
  window.send_change = function (jsdoc, event) {
    if ((event.setter_id != null && event.setter_id === 'py') || patching > 0) return
    const worker = pyodideWorker
    if (worker.busy && (property(event) || click(event))) {
      const lastClick = worker.queue.findLastIndex(click)
      if (property(event)) {
        worker.queue = worker.queue.filter((old, i) => i < lastClick || !(old.model === event.model &&
                                                                          old.attr === event.attr))
      }
      worker.queue.push(event)
      return
    }
    worker.busy = true
    worker.postMessage({type: 'patch', patch: jsdoc.create_json_patch([event])})
  }
})()
