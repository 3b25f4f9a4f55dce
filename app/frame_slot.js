// One place on the page that shows a slot of the current frame (app/pager.py's FrameSlot, a Panel JSComponent):
// it joins its pager's hub, which fills it (app/pager.js).
const HUBS = (globalThis.schedlabPagers ??= {})

export function render({model}) {
  const hubOf = (group) => (HUBS[group] ??= {slots: new Set(), pager: null})
  let hub = hubOf(model.group)
  const box = document.createElement("div")
  box.className = `slot slot-${model.slot}`
  box.dataset.slot = model.slot
  const slot = {name: model.slot, box, content: null, html: null, strip: null}
  hub.slots.add(slot)
  hub.pager?.paint(slot)
  // Shown again (an unfolded card re-attaches the slot, and the browser forgets its scroll): scrolled anew.
  const shown = new ResizeObserver(() => hub.pager?.reveal(slot))
  shown.observe(box)
  model.on("group", () => {   // another key (the static site changed its page into another run's): that hub's
    hub.slots.delete(slot)
    hub = hubOf(model.group)
    hub.slots.add(slot)
    slot.content = null   // numbered by the window this slot was painted from, perhaps not that pager's
    hub.pager?.paint(slot)
  })
  model.on("slot", () => {   // another slot in this place (the static site changed its page into another run's)
    box.className = `slot slot-${model.slot}`
    box.dataset.slot = model.slot
    Object.assign(slot, {name: model.slot, content: null, html: null, strip: null})
    box.replaceChildren()
    hub.pager?.paint(slot)
  })
  model.on("remove", () => { shown.disconnect(); hub.slots.delete(slot) })
  return box
}
