// What the pointer does without clicking: hover (browser_hover) and drag (browser_drag), with the
// events a user's mouse produces, in a user's order, aimed like a click (actions.aim: the visible
// element or the widget that stands for it, scrolled into view, at its visible center; covered is an
// error). Trusted mode (background/trusted.js) moves the real pointer for hover instead, which also
// gives CSS :hover; drags always come from here.
import { winOf, nameOf, norm, withStyleCache, styleOf, shadowOf, watchChanges, frame, inputType } from './dom.js';
import { describe, hiddenError } from './targeting.js';
import { composedParent, hiddenReason } from './reach.js';
import { aim, mouse, nextTurn, scrollIntoView, dragRangeTo } from './actions.js';
import { hoverOnto, hoverCopiesReady } from './hovercss.js';

// The element the pointer was last moved over in this document (for the leave events of the next move).
let lastOver = null;

// The element and its ancestors in the composed tree, outermost first.
function chain(el) {
  const out = [];
  for (let n = el; n; n = composedParent(n)) if (n.nodeType === 1) out.unshift(n);
  return out;
}

function pointerAt(el, type, where, extra = {}) {
  return mouse(el, type, { ...where, ...extra });
}

// Move the pointer from wherever it was onto `at`: out/leave events for what it leaves, then
// pointerover, pointerenter (outermost first), mouseover, mouseenter, pointermove, mousemove.
function moveOnto(at, where, buttons = 0) {
  const prev = lastOver && lastOver.isConnected ? lastOver : null;
  const now = chain(at);
  if (prev !== at) {
    if (prev) {
      const was = chain(prev).filter((n) => !now.includes(n)).reverse(); // innermost first
      pointerAt(prev, 'pointerout', where, { buttons, relatedTarget: at });
      for (const n of was) pointerAt(n, 'pointerleave', where, { bubbles: false, buttons, relatedTarget: at });
      pointerAt(prev, 'mouseout', where, { buttons, relatedTarget: at });
      for (const n of was) pointerAt(n, 'mouseleave', where, { bubbles: false, buttons, relatedTarget: at });
    }
    const old = prev ? chain(prev) : [];
    const entered = now.filter((n) => !old.includes(n));
    pointerAt(at, 'pointerover', where, { buttons, relatedTarget: prev });
    for (const n of entered) pointerAt(n, 'pointerenter', where, { bubbles: false, buttons, relatedTarget: prev });
    pointerAt(at, 'mouseover', where, { buttons, relatedTarget: prev });
    for (const n of entered) pointerAt(n, 'mouseenter', where, { bubbles: false, buttons, relatedTarget: prev });
    lastOver = at;
  }
  pointerAt(at, 'pointermove', where, { buttons });
  pointerAt(at, 'mousemove', where, { buttons });
}

// Where on the page a user's pointer lands on el (after the checks of a click).
function landing(el) {
  const desc = describe(el);
  const { target, pt } = aim(el, desc);
  const at = pt.target || target;
  const r = target.getBoundingClientRect();
  const x = pt.x !== undefined ? pt.x : r.left + r.width / 2;
  const y = pt.y !== undefined ? pt.y : r.top + r.height / 2;
  return { desc, target, at, x, y };
}

export async function hover(el) {
  const { desc, target, at, x, y } = landing(el);
  hoverOnto(at);
  moveOnto(at, { clientX: x, clientY: y });
  await hoverCopiesReady(at); // (a CDN's stylesheet's :hover rules, copied: hovercss.js)
  const via = target !== el ? ` (through ${describe(target)}, which is what a user sees of it)` : '';
  return { message: `Hovered over ${desc}${via}` };
}

// The deepest element at a point of the viewport (through open shadow roots), or null.
function hitAt(doc, x, y) {
  let el = doc.elementFromPoint(x, y);
  while (el && shadowOf(el)) {
    const inner = shadowOf(el).elementFromPoint(x, y);
    if (!inner || inner === el) break;
    el = inner;
  }
  return el;
}


// The element a drag starts from in HTML5 drag and drop: el or an ancestor that is draggable="true".
function html5Draggable(el) {
  for (let n = el; n && n.nodeType === 1; n = composedParent(n)) {
    const d = n.getAttribute('draggable');
    if (d === 'true') return n;
    if (d === 'false') return null;
  }
  return null;
}

// A drag on or onto a <canvas>: what it draws changes no element.
const drawn = (src, dst) => [src, dst].some((e) => e.tagName === 'CANVAS' || e.querySelector?.('canvas'));

const GRAB = /^(grab|-webkit-grab|move|grabbing)$/;
// The drag handle inside an item, where a user grabs it: an element shown with a grab or move cursor
// its parent does not show, or named as one ("Drag to reorder"), that is visible. A list that
// drags its items only by a handle (SortableJS's `handle`) ignores a press anywhere else.
function gripOf(src) {
  let n = 0;
  for (const el of src.querySelectorAll('*')) {
    if (++n > 300) break;
    const st = styleOf(el);
    if (!st) continue;
    const label = `${el.getAttribute('aria-label') || ''} ${el.getAttribute('title') || ''}`;
    const marked = (GRAB.test(st.cursor) && styleOf(el.parentElement)?.cursor !== st.cursor) || /\b(drag|reorder)\b/i.test(label);
    if (marked && !withStyleCache(() => hiddenReason(el))) return el;
  }
  return null;
}

const STEPS = 12;

// Where a pointer drag onto dst ends: past dst's middle in the direction of travel (a quarter of its
// size beyond the center), as a user drags an item of a sortable list until the others make room.
function dropPoint(dst, from) {
  const d = dst.getBoundingClientRect();
  const cx = d.left + d.width / 2, cy = d.top + d.height / 2;
  const past = (c, f, size) => c + Math.sign(c - f) * size / 4;
  return { x: past(cx, from.x, d.width), y: past(cy, from.y, d.height) };
}

// Drag src onto dst as a user would: the button pressed on src, the pointer moved in steps to dst's
// center, released there. An element that is draggable="true" goes through HTML5 drag and drop (one
// DataTransfer through dragstart, drag, dragenter, dragover, drop, dragend); anything else gets the
// pointer and mouse events sortable lists and sliders follow.
export async function drag(src, dst) {
  if (src === dst) throw new Error(`source and target are the same element (${describe(src)})`);
  const hidden = withStyleCache(() => hiddenReason(dst)); // a drop where a user cannot see is no drop
  if (hidden) throw hiddenError(dst, hidden, nameOf(dst) || norm(dst.textContent).slice(0, 60), 'any');
  // (named as it is before the drop: an empty list is named by the item dropped into it after)
  const onto = describe(dst);
  const grip = gripOf(src);
  const s = grip ? { ...landing(grip), desc: `${describe(src)} (by its handle ${describe(grip)})` } : landing(src);
  if (src.tagName === 'INPUT' && inputType(src) === 'range' && !src.disabled) {
    scrollIntoView(dst);
    const d = dst.getBoundingClientRect(); // (let go over the target's middle)
    if (!dragRangeTo(src, d.left + d.width / 2)) throw new Error(`${s.desc} already stands where ${onto} is (its value is ${src.value}); nothing changed`);
    return { message: `Dragged ${s.desc} onto ${onto}: its value is now ${src.value}` };
  }
  const W = winOf(s.at);
  const doc = s.at.ownerDocument;
  const start = { clientX: s.x, clientY: s.y };
  const changes = watchChanges(doc);
  moveOnto(s.at, start);
  const downOk = pointerAt(s.at, 'pointerdown', start, { buttons: 1 }) & pointerAt(s.at, 'mousedown', start, { buttons: 1 });
  const draggable = downOk ? html5Draggable(s.at) : null;
  if (draggable) { changes.stop(); return html5Drag(W, doc, draggable, s, dst, onto); }
  await nextTurn();
  // Where the target is once the drag has begun (a library may have moved things on pointerdown).
  scrollIntoView(dst);
  let end = dropPoint(dst, s);
  let over = s.at;
  for (let i = 1; i <= STEPS; i++) {
    const x = s.x + ((end.x - s.x) * i) / STEPS, y = s.y + ((end.y - s.y) * i) / STEPS;
    over = hitAt(doc, x, y) || doc.documentElement;
    moveOnto(over, { clientX: x, clientY: y }, 1);
    await frame(W);
    if (i === STEPS - 1) { // the list may have shifted under the pointer: aim at the target as it is now
      end = dropPoint(dst, s);
    }
  }
  const at = { clientX: end.x, clientY: end.y };
  over = hitAt(doc, end.x, end.y) || over;
  pointerAt(over, 'pointerup', at);
  pointerAt(over, 'mouseup', at);
  await nextTurn();
  // Nothing on the page reacted (no element moved, no attribute or text changed): the drag did
  // nothing a user would see, which is no success (a drawing on a <canvas> changes no element).
  if (!changes.stop() && !drawn(src, dst)) {
    throw new Error(`${s.desc} was dragged onto ${onto} and released, but nothing on the page changed: the page did not take the drag (the item is not draggable there${grip ? '' : ', or only by a handle'}); nothing was moved`);
  }
  return { message: `Dragged ${s.desc} onto ${onto} (pointer events)` };
}

function dragEvent(W, el, type, dt, where, cancelable = true) {
  const e = new W.DragEvent(type, { bubbles: true, cancelable, composed: true, view: W, dataTransfer: dt, button: 0, buttons: type === 'dragend' || type === 'drop' ? 0 : 1, ...where });
  return { ok: el.dispatchEvent(e), e };
}

async function html5Drag(W, doc, draggable, s, dst, onto) {
  const dt = new W.DataTransfer();
  const start = { clientX: s.x, clientY: s.y };
  const began = dragEvent(W, draggable, 'dragstart', dt, start);
  // The browser cancels the pointer once a drag begins.
  pointerAt(s.at, 'pointercancel', start);
  if (!began.ok) throw new Error(`${describe(draggable)} refused to be dragged (its dragstart was cancelled); nothing was dropped`);
  await nextTurn();
  scrollIntoView(dst);
  const d = dst.getBoundingClientRect();
  const end = { clientX: d.left + d.width / 2, clientY: d.top + d.height / 2 };
  const over = hitAt(doc, end.clientX, end.clientY) || dst;
  dragEvent(W, draggable, 'drag', dt, end);
  dragEvent(W, over, 'dragenter', dt, end);
  const dov = dragEvent(W, over, 'dragover', dt, end);
  let dropped = false;
  if (!dov.ok) { // dragover cancelled: this is a drop target
    dragEvent(W, over, 'drop', dt, end);
    dropped = true;
  } else {
    dragEvent(W, over, 'dragleave', dt, end, false);
  }
  dragEvent(W, draggable, 'dragend', dt, end, false);
  await nextTurn();
  if (!dropped) throw new Error(`${onto} does not accept a drop (its dragover was not cancelled); ${describe(draggable)} was dragged there and released, nothing was dropped`);
  return { message: `Dragged ${s.desc} onto ${onto} (HTML5 drag and drop)` };
}
