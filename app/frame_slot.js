// One place on the page that shows a slot of the current frame (app/pager.py's FrameSlot, a Panel JSComponent):
// it joins its pager's hub, which fills it (app/pager.js).
const HUBS = (globalThis.schedlabPagers ??= {})

export function render({model}) {
  const hub = (HUBS[model.group] ??= {slots: new Set(), pager: null})
  const box = document.createElement("div")
  box.className = `slot slot-${model.slot}`
  box.dataset.slot = model.slot
  const slot = {name: model.slot, box, content: null, html: null, strip: null}
  hub.slots.add(slot)
  hub.pager?.paint(slot)
  // Shown again (an unfolded card re-attaches the slot, and the browser forgets its scroll): scrolled anew.
  const shown = new ResizeObserver(() => hub.pager?.reveal(slot))
  shown.observe(box)
  model.on("remove", () => { shown.disconnect(); hub.slots.delete(slot) })
  return box
}
