// What the agent does to the page: click, type, keys, scroll, select.
// Events are dispatched the way a user's input would produce them so that
// framework-controlled widgets (React, Vue, Angular…) see the change.
import { mouse, frame } from './dom.js';
import { externalLink, winOf, ariaOf, roleOf, isDisabled, isInert, isEditable, inputType, norm, isVisibleBox, allRoots, nameOf, withStyleCache, styleOf, focusedElement, controlKind, TEXT_INPUT_TYPES, thumbPosition, segmentsOf, segmentPart, boxRowOf, watchChanges } from './dom.js';
import { describe, hiddenError, refuseUnusable } from './targeting.js';
import { selectedText, readOnlyBox, segmentedText } from './describe.js';
import { isSecret } from './secret.js';
import { hoverOff, hoverOnto, hoverActive, isHovered } from './hovercss.js';
import { hiddenReason, clickPoint, composedParent, composedContains, shortDesc, hoverHost } from './reach.js';
import { proxyFor, replacementFor, pointOnto, chooseInWidget, until, editorFor, isDropdown, contextEditor, drawnEditor, monospaced, unchooseOthers, removeChip, closeIfOpen } from './widgets.js';
import { fieldValue } from './datetime.js';
import { usKey } from '../shared/keys.js';
import { behindModal } from './modal.js';
import { seenText } from './hidden.js';
import { noteClick } from './toggle.js';

// One macrotask: the page's own queued tasks (a framework's setTimeout(0) model update) run
// before the next key, as they would between a real keyboard's key presses.
// (A timer: it runs after the page's timers queued before it, also where timers are throttled.)
const nextTask = () => new Promise((r) => setTimeout(r, 0));
export { mouse };
// A task that is never throttled (a posted message), for the pauses between words: a hidden
// tab's timers may wait a second each, which would make every word cost a second.
// The page's promise callbacks queued so far, and those they queue, a few deep (no task: cheap).
const microtasks = async () => { for (let i = 0; i < 8; i++) await null; };
export const nextTurn = () => new Promise((r) => { const ch = new MessageChannel(); ch.port1.onmessage = () => { ch.port1.close(); r(); }; ch.port2.postMessage(0); });

// The element a user's action on `el` goes to: `el` when visible, else the visible widget that
// stands for it (proxyFor); else an error that says why and lists the visible candidates.
// An element the page's CSS shows only while the pointer is over a visible ancestor (TodoMVC's
// destroy button on `li:hover`) is acted on as a user would: the pointer is moved over that
// ancestor first (CSS :hover itself cannot be set by synthetic events; the page's mouseover and
// mouseenter handlers run), then the element gets the action.
const hovered = new WeakMap();
function visibleFor(el, purpose) {
  const why = withStyleCache(() => hiddenReason(el));
  if (!why) return el;
  const proxy = withStyleCache(() => proxyFor(el));
  if (proxy) return proxy;
  const host = withStyleCache(() => hoverHost(el));
  if (host) {
    scrollIntoView(host);
    for (const t of ['pointerover', 'pointerenter', 'mouseover', 'mouseenter', 'pointermove', 'mousemove']) {
      mouse(host, t, t.endsWith('enter') ? { bubbles: false } : {});
    }
    hovered.set(el, host);
    return el;
  }
  throw hiddenError(el, why, nameOf(el) || norm(el.textContent).slice(0, 60), purpose);
}

// Bring `el` into the viewport (centred) when it is not wholly in it, at once: a page's
// `scroll-behavior: smooth` (Bootstrap 5 sets it on :root) made scrollIntoViewIfNeeded glide, and a
// click aimed at the point where it was still below the fold ("could not be scrolled into view").
export function scrollIntoView(el) {
  try {
    const r = el.getBoundingClientRect();
    const W = el.ownerDocument.defaultView;
    if (r.top < 0 || r.left < 0 || r.bottom > W.innerHeight || r.right > W.innerWidth) el.scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' });
    // still cut off by a box that scrolls (an open list's own scroller: PrimeReact's, its last
    // option below its fold was "covered" by the list's box), scrolled there too, as a user does
    if (clippedByScroller(el)) el.scrollIntoView({ block: 'nearest', inline: 'nearest', behavior: 'instant' });
  } catch { /* ignore */ }
}

// Is `el`'s middle outside a box around it (ten levels at most) that scrolls its content?
function clippedByScroller(el) {
  const r = el.getBoundingClientRect();
  const x = r.left + r.width / 2, y = r.top + r.height / 2;
  for (let n = el.parentElement, i = 0; n && i < 10 && n.tagName !== 'BODY' && n.tagName !== 'HTML'; n = n.parentElement, i++) {
    const st = styleOf(n);
    if (!st || !/(auto|scroll)/.test(st.overflowY + st.overflowX)) continue;
    const b = n.getBoundingClientRect();
    if (y < b.top || y > b.bottom || x < b.left || x > b.right) return true;
  }
  return false;
}

function focusable(el) {
  return typeof el.focus === 'function';
}

// What a mousedown there focuses, as the browser's: the nearest focusable element from the hit
// point up (a control, anything with a tabindex, an editor), beyond the element clicked: daisyUI's
// collapse, a <div tabindex=0> that opens while focused, got no focus from a click on its title.
function focusTargetOf(at) {
  for (let n = at, i = 0; n && i < 100; n = composedParent(n), i++) {
    if (n.nodeType !== 1 || n.tagName === 'BODY' || n.tagName === 'HTML') break;
    if (focusable(n) && !n.disabled && (n.tabIndex >= 0 || n.hasAttribute('tabindex') || n.isContentEditable)) return n;
  }
  return null;
}

// A click as a user's: on the visible element (or the visible widget standing for a hidden
// control), at its visible center, dispatched to the deepest element there (through open shadow
// roots: a click on a custom element's host reaches the control inside it). An element covered
// at its center by another is an error naming what covers it.
// An agent's click on a link handed to another application (mailto:, tel:, an app's own scheme such
// as vscode: or ms-msdt:) is not followed: a page must not get the agent to start programs on the
// user's machine, and the browser's "Open xdg-open?" prompt it would raise blocks the tab's input
// (with trusted input every later click of the tab was lost). The click's events still reach the
// page; only the link's default action is cancelled. Returns the function that ends the hold.
export function holdExternal(el) {
  const href = externalLink(el);
  if (!href) return () => {};
  const W = winOf(el);
  const stop = (e) => { if (e.composedPath().some((n) => n.nodeType === 1 && n.matches?.('a[href], area[href]') && externalLink(n))) e.preventDefault(); };
  W.addEventListener('click', stop, true);
  const timer = setTimeout(() => W.removeEventListener('click', stop, true), 5000); // a trusted click never confirmed
  return () => { clearTimeout(timer); W.removeEventListener('click', stop, true); };
}

// How a click is made (browser_click's button, double_click, modifiers), as MouseEvent fields:
// the button's number and the `buttons` bit while it is down, and the keys held.
const BUTTON = { left: [0, 1], middle: [1, 4], right: [2, 2] };
const MOD_KEYS = { Alt: 'altKey', Control: 'ctrlKey', Meta: 'metaKey', Shift: 'shiftKey' };

// What a click's message says it was ("Double-clicked", "Right-clicked") and the keys held
// (" with Control+Shift held"); also used by trusted input (background/trusted.js via point).
export function clickWords({ button = 'left', double_click: dbl = false, modifiers = [] } = {}) {
  const b = button === 'right' ? 'right-' : button === 'middle' ? 'middle-' : '';
  const verb = (dbl ? 'double-' + b : b) + 'clicked';
  return { verb: verb[0].toUpperCase() + verb.slice(1), held: modifiers?.length ? ` with ${modifiers.join('+')} held` : '' };
}

// A link the click opens in a new tab, as a browser would: target=_blank, the middle button, or
// Control/Meta held (the content script's events cannot open it: the service worker does).
function newTabLink(a, b, keys) {
  return a && (a.target === '_blank' || a.target === '_new' || b === 1 || keys.ctrlKey || keys.metaKey) ? a.href : null;
}

// How a click's answer says that it lands on a transparent control laid over the element (reach.js
// overlayOf); taken before the click, whose effect on that control the answer then gives (toggle.js).
function overlayWords(ctl) {
  noteClick(ctl);
  return ` (a user's click there lands on ${describe(ctl)}, laid over it transparent)`;
}

export function click(el, how = {}) {
  refuseUnusable(el);
  if (el.tagName === 'OPTION' && el.closest('select')) {
    throw new Error(`${describe(el.closest('select'))}: choose its options with select_option`);
  }
  const desc = describe(el);
  const { target, pt } = aim(el, desc);
  const over = pt.overlay ? overlayWords(pt.overlay) : '';
  const at = pt.target;
  const [b, bs] = BUTTON[how.button] || BUTTON.left;
  const keys = {};
  for (const m of how.modifiers || []) if (MOD_KEYS[m]) keys[MOD_KEYS[m]] = true;
  const plain = b === 0 && !how.double_click && !Object.keys(keys).length;
  const where = { ...(pt.x !== undefined ? { clientX: pt.x, clientY: pt.y } : {}), ...keys };
  const a = at.closest?.('a[href]') || el.closest?.('a[href]');
  const newTab = newTabLink(a, b, keys);
  // (a file input the click reaches, through its label or a page's input.click(): a person would
  // get a file chooser, which a synthetic click cannot open; said, with the way to give files)
  const W = winOf(at);
  // (the input kept as the listener sees it: once dispatched, an event's composedPath() is empty)
  let fileClick = null, fileInput = null;
  const onFile = (e) => { const t = e.composedPath?.()[0] || e.target; if (!fileClick && t?.tagName === 'INPUT' && inputType(t) === 'file') { fileClick = e; fileInput = t; } };
  W.addEventListener('click', onFile, true);
  try {
    mouse(at, 'pointerover', where); mouse(at, 'mouseover', where);
    mouse(at, 'pointermove', where); mouse(at, 'mousemove', where);
    // Each press as a user's: down (with the context menu's event for the right button, as
    // Chrome fires it on Linux), up, then the click (left) or auxclick; a double-click's second
    // press counts 2 (detail), and dblclick follows.
    for (let n = 1; n <= (how.double_click ? 2 : 1); n++) {
      const ev = { ...where, button: b, detail: n };
      const downOk = mouse(at, 'pointerdown', { ...ev, buttons: bs }) & mouse(at, 'mousedown', { ...ev, buttons: bs });
      const f = downOk && n === 1 ? focusTargetOf(at) : null;
      if (f) { try { f.focus({ preventScroll: true }); } catch { /* ignore */ } }
      if (b === 2) mouse(at, 'contextmenu', { ...ev, buttons: bs });
      mouse(at, 'pointerup', { ...ev, buttons: 0 }); mouse(at, 'mouseup', { ...ev, buttons: 0 });
      if (b !== 0) { mouse(at, 'auxclick', { ...ev, buttons: 0 }); continue; }
      // click event + activation behaviour (follow link, toggle checkbox, submit form); an SVG
      // element has no click(): the same event, dispatched (activation happens on dispatch too).
      // A link to open in a new tab is not followed here (the service worker opens it).
      const release = newTab && !plain ? holdLink(a) : holdExternal(at);
      try {
        if (plain && typeof at.click === 'function') at.click();
        else mouse(at, 'click', { ...ev, buttons: 0 });
      } finally { release(); }
    }
    if (how.double_click && b === 0) mouse(at, 'dblclick', { ...where, button: 0, buttons: 0, detail: 2 });
  } finally { W.removeEventListener('click', onFile, true); }
  const host = hovered.get(target);
  const via = over || (target !== el ? ` through ${describe(target)}, which is what a user sees of it`
    : host ? ` (shown while the pointer is over ${describe(host)}, which it was moved over first)` : '');
  const w = clickWords(how);
  // (not when the page kept the input from opening it: a person would get none either)
  const chooser = fileClick && !fileClick.defaultPrevented && fileInput.isConnected ? `; a person would get a file chooser for ${describe(fileInput)} here, which a synthetic click does not open: give it files with browser_upload_file` : '';
  return { message: `${w.verb} ${desc}${via}${w.held}${chooser}`, newTabUrl: newTab, externalUrl: b === 0 ? externalLink(at) || externalLink(el) : null };
}

// Keep the link `a` from being followed in this tab by the click under way (it opens in a new one).
function holdLink(a) {
  const W = winOf(a);
  const stop = (e) => { if (e.composedPath().includes(a)) e.preventDefault(); };
  W.addEventListener('click', stop, true);
  return () => W.removeEventListener('click', stop, true);
}

// Is `el` inside a box the page pins to the viewport (position fixed or sticky), which stays put
// while the page scrolls under it?
function pinned(el) {
  for (let n = el; n && n.nodeType === 1 && n.tagName !== 'HTML'; n = composedParent(n)) {
    const p = styleOf(n)?.position;
    if (p === 'fixed' || p === 'sticky') return true;
  }
  return false;
}

// How an error names what covers an element: the control it is (or is in), as the Markdown shows
// it with its ref (another map marker stacked on the one meant: [button image "Paris" e2]), so the
// agent knows what a click there would do; else its tag and text.
function coverName(el) {
  for (let n = el, i = 0; n && n.nodeType === 1 && i < 6; n = composedParent(n), i++) {
    if (controlKind(n, styleOf(n))) return describe(n);
  }
  return shortDesc(el);
}

// The visible element a click on `el` goes to, scrolled into view, and where on it: or an error
// (not visible and no widget for it; covered at its center).
export function aim(el, desc) {
  const target = visibleFor(el, 'click');
  // shown on hover (see visibleFor): no box to aim at while CSS hides it; the element itself
  if (hovered.has(target) && hiddenReason(target)) return { target, pt: { target } };
  scrollIntoView(target);
  let pt = clickPoint(target);
  // covered by what the page pins to the viewport (a toast, a sticky header) while it is in view at
  // an edge: scrolled to the viewport's middle, out from under it, as a user does, and hit again
  if (pt.coveredBy && pinned(pt.coveredBy)) {
    try { target.scrollIntoView({ block: 'center', inline: 'nearest', behavior: 'instant' }); } catch { /* ignore */ }
    pt = clickPoint(target);
  }
  // covered by what the emulated hover shows (the menu browser_hover opened, over the next thing
  // aimed at): a person's pointer leaves it on the way there, and it closes
  if (pt.coveredBy && hoverActive(target.ownerDocument)) {
    const back = hoverOff(target.ownerDocument);
    const again = !hiddenReason(target) && clickPoint(target);
    if (again && !again.coveredBy) pt = again;
    else if (back) hoverOnto(back);
  }
  if (pt.coveredBy) {
    // (a transparent select or file input laid over it, in the box around both, is the page's way
    // to draw that control: UIkit's uk-form-custom; "close or move it" sent the agent astray)
    const c = pt.coveredBy;
    const face = (c.tagName === 'SELECT' || (c.tagName === 'INPUT' && c.type === 'file')) && styleOf(c)?.opacity === '0' && !!c.parentElement?.contains(target);
    const e = new Error(face
      ? `${desc} is what a transparent ${c.tagName === 'SELECT' ? 'select' : 'file input'} laid over it shows, ${coverName(c)}, which takes a user's click there; nothing was done. ${c.tagName === 'SELECT' ? 'Choose with browser_select_option' : 'Give files with browser_upload_file'} on that one instead.`
      : `${desc} is covered by ${coverName(c)} at its center, so a user's click would land on that; nothing was done. Close or move what covers it first.`);
    e.code = 'covered';
    throw e;
  }
  if (pt.noClicks) {
    // (the whole page takes none while a menu or dialog holds it: Radix sets it on <body>; a user's
    // click there closes that first)
    const body = target.ownerDocument.body;
    const page = !!body && styleOf(body)?.pointerEvents === 'none';
    const e = new Error(page
      ? `${desc} takes no clicks now: the page takes none (pointer-events: none) while a menu or dialog is open, and a user's click there would only close that; nothing was done. Close it first (Escape, or its own button).`
      : `${desc} takes no clicks (pointer-events: none, as a page makes a link or button it disabled): a user's click there lands on ${shortDesc(pt.noClicks)} instead; nothing was done.`);
    e.code = 'no_clicks';
    throw e;
  }
  return { target, pt };
}

// The tooltip (role=tooltip) around `n`, through shadow roots, or null.
function tooltipAround(n) {
  for (let i = 0; n && n.nodeType === 1 && n.tagName !== 'BODY' && i < 12; n = composedParent(n), i++) {
    if ((n.getAttribute('role') || '').trim().toLowerCase() === 'tooltip') return n;
  }
  return null;
}

// A tooltip shown for another element (one the pointer rests on, or the focus is in: a link's
// title tooltip after a hover) that covers `el` goes away as the user's pointer moves off that
// element to `el`: so that acting on `el` is not refused as covered by it (nor a trusted press
// lands on it), the elements it describes (aria-describedby) and the one under the pointer get the
// pointer's leave events and, when focused, lose the focus, and the tooltip is waited for (bounded)
// until it no longer covers `el`. A tooltip that stays is left for aim() to name as the cover.
// Bring `el` (or the widget a user sees of it) into view before the pointer goes there; when that
// scrolled the page, wait a frame: the page's scroll events come first, as when a user scrolls,
// then moves the mouse. Dispatched after the pointer's events, they told the page the pointer had
// not moved since (Ariakit's tooltip never opened: its hover intent is reset by a scroll) or closed
// what the click opened (a popup that closes on scroll).
export async function scrolledIntoView(el) {
  if (!el?.isConnected) return;
  const target = withStyleCache(() => hiddenReason(el)) ? withStyleCache(() => proxyFor(el)) : el;
  if (!target?.isConnected) return;
  const W = winOf(target);
  const before = target.getBoundingClientRect();
  scrollIntoView(target);
  const after = target.getBoundingClientRect();
  if (before.top === after.top && before.left === after.left) return;
  await frame(W);
}

export async function leaveTooltips(el) {
  await scrolledIntoView(el);
  if (!el?.isConnected || withStyleCache(() => hiddenReason(el))) return;
  const covering = () => { const c = clickPoint(el).coveredBy; const t = c && tooltipAround(c); return t && !t.contains(el) ? t : null; };
  scrollIntoView(el);
  const tip = covering();
  if (!tip) return;
  const doc = tip.ownerDocument;
  const triggers = new Set();
  if (tip.id) {
    try { for (const t of doc.querySelectorAll(`[aria-describedby~="${CSS.escape(tip.id)}"]`)) triggers.add(t); } catch { /* ignore */ }
  }
  const under = Array.from(doc.querySelectorAll(':hover, [data-bb-hover]')).pop();
  if (under && !tip.contains(under)) triggers.add(under);
  for (const t of triggers) {
    if (t === el || t.contains(el)) continue;
    for (const type of ['pointerout', 'pointerleave', 'mouseout', 'mouseleave']) {
      mouse(t, type, { relatedTarget: el, ...(type.endsWith('leave') ? { bubbles: false } : {}) });
    }
    if (isHovered(t)) hoverOff(t.ownerDocument);
    if (focusedElement(t.ownerDocument) === t) t.blur();
  }
  await until(() => !covering(), 2000);
}

// For trusted (CDP) input: the point, in this frame's top-level viewport coordinates when all
// frames up are same-origin, where a user's click on `el` lands (after the same checks as click).
// `inFrame`: the point is relative to a cross-origin frame's viewport (the caller adds its offset).
// What the last clickPointOf aimed at: the element meant and the one at the point (a widget standing
// for it, a label, what is laid over it), for point.js to check where the trusted press went.
export let aimed = { el: null, at: null };

export function clickPointOf(el) {
  refuseUnusable(el);
  const desc = describe(el);
  const { target, pt } = aim(el, desc);
  aimed = { el, at: pt.target || target };
  if (pt.x === undefined && hovered.has(target)) {
    // shown only while the pointer is over what holds it (antd's number box arrows): the content
    // script's click, which moves the pointer there first (a trusted press at its point was lost)
    const e = new Error(`${desc} shows only while the pointer is over ${describe(hovered.get(target))}`);
    e.code = 'hover_only';
    throw e;
  }
  if (pt.x === undefined) throw new Error(`${desc} could not be scrolled into view`);
  let x = pt.x, y = pt.y, w = winOf(target), inFrame = false;
  while (w !== w.top) {
    let fe = null;
    try { fe = w.frameElement; } catch { fe = null; }
    if (!fe) { inFrame = true; break; }
    const r = fe.getBoundingClientRect();
    x += r.left + fe.clientLeft; y += r.top + fe.clientTop;
    w = w.parent;
  }
  return { x, y, inFrame, desc: pt.overlay ? desc + overlayWords(pt.overlay) : desc, via: target !== el ? describe(target) : null };
}

// Trusted typing's clear, after its Control+A: the whole text of the field that has the focus is
// selected (its own select(), as Playwright's fill does) when the key left it unselected: a page
// may cancel Control+A (ui5-step-input cancels the keys it gets), and the text typed then went
// before the old one ("4" over "1" gave "41"). A code editor's key catcher is left to its keys.
export function selectFocusedField(active) {
  const a = active;
  if (!a || !((a.tagName === 'INPUT' && TEXT_INPUT_TYPES.test(inputType(a))) || a.tagName === 'TEXTAREA') || editorFor(a)?.input === a) return false;
  try {
    if (a.selectionStart === 0 && a.selectionEnd === a.value.length) return false;
    a.select();
    return true;
  } catch { return false; }
}

// click for the `click` command: an <option> of a <select> is chosen as select_option would.
export async function clickCommand(el, how = {}) {
  if (el.tagName === 'OPTION') {
    const sel = el.closest('select');
    if (sel) return selectOption(sel, norm(el.label || el.textContent), { option: el });
  }
  // an item of a list or menu: the pointer on it first, as a user's (see widgets.pointOnto)
  if (/^(option|menuitem|menuitemcheckbox|menuitemradio)$/.test((el.getAttribute('role') || '').toLowerCase())) await pointOnto(el);
  return click(el, how);
}

// ---- keys ------------------------------------------------------------------
const KEYS = {
  Enter: [13, 'Enter'], Tab: [9, 'Tab'], Escape: [27, 'Escape'], Esc: [27, 'Escape'], Backspace: [8, 'Backspace'],
  Delete: [46, 'Delete'], ArrowUp: [38, 'ArrowUp'], ArrowDown: [40, 'ArrowDown'], ArrowLeft: [37, 'ArrowLeft'],
  ArrowRight: [39, 'ArrowRight'], Home: [36, 'Home'], End: [35, 'End'], PageUp: [33, 'PageUp'], PageDown: [34, 'PageDown'],
  ' ': [32, 'Space'], Space: [32, 'Space'], Spacebar: [32, 'Space'], Shift: [16, 'ShiftLeft'], Control: [17, 'ControlLeft'], Alt: [18, 'AltLeft'], Meta: [91, 'MetaLeft'],
};
for (let i = 1; i <= 12; i++) KEYS['F' + i] = [111 + i, 'F' + i];

function keyInfo(key) {
  if (KEYS[key]) {
    const [keyCode, code] = KEYS[key];
    return { key: key === 'Space' || key === 'Spacebar' ? ' ' : key === 'Esc' ? 'Escape' : key, code, keyCode };
  }
  if (key.length === 1) {
    // the key a US keyboard types it with (shared/keys.js); another character has keyCode 0
    const k = usKey(key);
    return { key, code: k ? k.code : '', keyCode: k ? k.keyCode : 0, shift: !!k?.shift, printable: true };
  }
  return { key, code: key, keyCode: 0 };
}

function fireKey(el, type, info, mods = {}) {
  return !dispatchKey(el, type, info, mods).defaultPrevented;
}

// A key event, and whether the page let the browser act on it, also when the page cancels it in a
// promise's callback (Tagify, in its hook's .then): for a user's key those run at the end of each
// listener, before the browser acts; after a script's dispatch, only once that script yields (its
// Enter added both the typed text and the suggestion as tags).
async function keyLetThrough(el, type, info, mods = {}) {
  const ev = dispatchKey(el, type, info, mods);
  for (let i = 0; i < 4; i++) await null;
  return !ev.defaultPrevented;
}

function dispatchKey(el, type, info, mods = {}) {
  const W = winOf(el);
  const init = {
    key: info.key, code: info.code, keyCode: type === 'keypress' ? (info.printable ? info.key.charCodeAt(0) : info.keyCode) : info.keyCode,
    which: type === 'keypress' ? (info.printable ? info.key.charCodeAt(0) : info.keyCode) : info.keyCode,
    charCode: type === 'keypress' ? (info.printable ? info.key.charCodeAt(0) : info.key === 'Enter' ? 13 : 0) : 0,
    bubbles: true, cancelable: true, composed: true, view: W,
    ctrlKey: !!mods.ctrl, shiftKey: !!(mods.shift || info.shift), altKey: !!mods.alt, metaKey: !!mods.meta,
  };
  const ev = new W.KeyboardEvent(type, init);
  el.dispatchEvent(ev);
  return ev;
}

// Leave a field as a user done with a form does: the Tab key's events on it (a picker takes a
// typed value on Tab: vanillajs-datepicker; flatpickr closes its calendar), then the focus leaves
// it for no other field (a blur: one that parses on blur has parsed), so nothing else opens.
export function leaveField(el) {
  const info = keyInfo('Tab');
  fireKey(el, 'keydown', info);
  fireKey(el, 'keyup', info);
  if (focusedElement(el.ownerDocument) === el) el.blur();
}

function nativeSetter(el) {
  const W = winOf(el);
  const proto = el.tagName === 'TEXTAREA' ? W.HTMLTextAreaElement.prototype : el.tagName === 'SELECT' ? W.HTMLSelectElement.prototype : W.HTMLInputElement.prototype;
  return Object.getOwnPropertyDescriptor(proto, 'value').set;
}

function setValue(el, v) {
  nativeSetter(el).call(el, v);
}

export function inputEvent(el, inputType, data = null) {
  const W = winOf(el);
  el.dispatchEvent(new W.InputEvent('input', { bubbles: true, cancelable: false, composed: true, inputType, data }));
}

export function changeEvent(el) {
  el.dispatchEvent(new (winOf(el).Event)('change', { bubbles: true }));
}

function defaultButton(form) {
  for (const el of form.elements) {
    if ((el.tagName === 'BUTTON' && (el.getAttribute('type') || 'submit').toLowerCase() === 'submit') ||
        (el.tagName === 'INPUT' && ['submit', 'image'].includes(inputType(el)))) return el;
  }
  return null;
}

// Enter the way a user presses it: keydown, keypress, then implicit submission
// (click the form's default button, or requestSubmit()), then keyup.
// How many fields of a form block its implicit submission (HTML: with no submit button, Enter in a
// field submits the form only when it has one such field; a form of two text fields and a
// type=button button was submitted, where Chromium does not).
const BLOCKING = /^(text|search|url|tel|email|password|date|month|week|time|datetime-local|number)$/;
function blockingFields(form) {
  let n = 0;
  for (const e of form.elements) if (e.tagName === 'INPUT' && BLOCKING.test(inputType(e)) && ++n > 1) break;
  return n;
}

async function pressEnter(el) {
  const info = keyInfo('Enter');
  let note = '';
  const had = focusedOrInside(el);
  const down = await keyLetThrough(el, 'keydown', info);
  // the page moved the focus away as the key went down (Arco's date picker takes its date and
  // blurs its field): the rest of the key goes where the focus now is, as a keyboard's does, and
  // the field's form is not submitted (it was: "submitted the form", which a person's Enter does not)
  const now = focusedElement(el.ownerDocument);
  if (down && had && !focusedOrInside(el)) {
    const to = now && now !== el.ownerDocument.body ? now : null;
    if (to) { await keyLetThrough(to, 'keypress', info); fireKey(to, 'keyup', info); }
    return '';
  }
  const press = down && await keyLetThrough(el, 'keypress', info);
  if (down && press) {
    const form = el.form || el.closest?.('form');
    if (el.tagName === 'INPUT' && form) {
      const btn = defaultButton(form);
      if (btn) {
        if (!isDisabled(btn)) { btn.click(); note = 'submitted the form'; }
      } else if (form.requestSubmit && blockingFields(form) <= 1) { form.requestSubmit(); note = 'submitted the form'; }
    } else if (el.tagName === 'TEXTAREA') {
      insertText(el, '\n');
    } else if (el.isContentEditable) {
      // announced as the browser does (an editor with a model makes the new block itself)
      const { root } = caretIn(el);
      if (beforeInput(root, 'insertParagraph')) el.ownerDocument.execCommand('insertParagraph');
    } else if (el.tagName === 'A' || el.tagName === 'BUTTON' || el.getAttribute?.('role') === 'button' || el.getAttribute?.('role') === 'link') {
      el.click();
    }
  }
  fireKey(el, 'keyup', info);
  return note;
}

// Has `el` (or an element inside it, or the editing host around it) the focus already: a user
// typing on in it clicks nothing first?
export function focusedOrInside(el) {
  const a = focusedElement(el.ownerDocument);
  return !!a && (a === el || el.contains(a) || (a.isContentEditable && a.contains(el))) && frameFocused(el.ownerDocument);
}

// Does the frame of `doc` have the focus in the page above it (each same-origin frame element the
// focused one of its document)? A frame's own focused element is kept while the frame has none:
// TinyMCE's editable body in its iframe was taken for focused on a page just opened, trusted
// typing clicked nothing first, and the keys went to the page's body.
function frameFocused(doc) {
  for (let d = doc, i = 0; d && i < 10; i++) {
    let fe = null;
    try { fe = d.defaultView?.frameElement || null; } catch { return true; } // (another site's: not known)
    if (!fe) return true;
    if (fe.ownerDocument.activeElement !== fe) return false;
    d = fe.ownerDocument;
  }
  return true;
}

// One key's text into a field, as the browser inserts it: in place of the text the page selected
// (an inline autocomplete, ui5-combobox's, selects the rest of the word it proposes: the next key
// replaces it; appended after it, "Sof" became "Sofiaof"), else at the end.
function insertText(el, text) {
  const max = el.maxLength >= 0 ? el.maxLength : Infinity;
  const v = el.value;
  let s = v.length, e = v.length;
  // at the caret, or in place of the text selected (a field focused has its caret where typing put
  // it, at the end, unless the page moved it: a mask puts it on its first blank, Kendo's
  // MaskedTextBox, and the digits went after its template, where it dropped them)
  try {
    if (el.selectionStart != null && (el.selectionEnd > el.selectionStart || focusedElement(el.ownerDocument) === el)) { s = el.selectionStart; e = el.selectionEnd; }
  } catch { /* no selection API (email, number) */ }
  const kept = v.length - (e - s);
  if (kept >= max) return; // full: the browser inserts nothing, and fires no input event
  const ins = kept + text.length > max ? text.slice(0, max - kept) : text;
  setValue(el, v.slice(0, s) + ins + v.slice(e));
  if (e > s || s < v.length) try { el.setSelectionRange(s + ins.length, s + ins.length); } catch { /* ignore */ }
  inputEvent(el, text === '\n' ? 'insertLineBreak' : 'insertText', ins);
}

// Does the field hold a selection of text (not a caret)?
const selectedIn = (f) => { try { return f.selectionStart != null && f.selectionEnd > f.selectionStart; } catch { return false; } };

const textInput = (f) => !!f && ((f.tagName === 'INPUT' && TEXT_INPUT_TYPES.test(inputType(f))) || f.tagName === 'TEXTAREA') && !f.readOnly && !f.disabled;
const full = (f) => f.maxLength >= 0 && f.value.length >= f.maxLength;

// Where the next key goes while typing into `cur`: a field whose page moved the focus to another
// text field as it filled (a code split in boxes, with or without a maxlength; a phone number in
// three) sends the rest there, as a user's keys would go; else `cur`.
function nextKeyTarget(cur) {
  const a = focusedElement(cur.ownerDocument);
  return a && a !== cur && textInput(a) && (full(cur) || cur.value !== '') ? a : cur;
}

const WHOLE_VALUE_TYPES = new Set(['date', 'time', 'datetime-local', 'month', 'week', 'color', 'range', 'number']);
const DATE_TYPES = new Map([
  ['date', 'date (as 2026-12-24, 12/24/2026 or December 24, 2026)'], ['time', 'time (as 14:30 or 2:30 PM)'],
  ['datetime-local', 'date and time (as 2026-12-24 14:30 or 12/24/2026 2:30 PM)'], ['month', 'month (as 2026-12 or December 2026)'],
]);

// Does the field show an input mask's template with its caret inside it ("(___) ___-____", the
// caret on its first blank, where the page put it)? Typing goes in at that caret (content path),
// or a character a key (trusted.js): one insertion was taken for a paste ("(755) 512-3456"), and
// text put at the end of the template was dropped.
export function maskTemplate(a) {
  if (!a || a.tagName !== 'INPUT' || !a.value) return false;
  // (the caret on a blank, and two blanks at least: not a value that merely holds a "*")
  try { return a.selectionStart != null && /[_#*•]/.test(a.value[a.selectionStart] || '') && (a.value.match(/[_#*•]/g) || []).length >= 2; } catch { return false; }
}

// Returns the field the keys went into (the target, or one the page put in its place).
async function typeIntoField(el, text, clear) {
  let t = el.tagName === 'INPUT' ? inputType(el) : 'textarea';
  // a day or time as a person writes it (12/24/2026, 2:30 PM): the value the field takes
  const day = DATE_TYPES.has(t) ? fieldValue(t, text, navigator.language) : null;
  if (DATE_TYPES.has(t) && day === null) throw new Error(`${describe(el)} takes a ${DATE_TYPES.get(t)}, and the text typed is not one; nothing was typed`);
  // (a range given a text that is no number: the browser sets it to its middle, a seek bar sent the
  // video there, and the answer was "Typed")
  if (t === 'range' && !/^\s*[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?\s*$/i.test(text)) {
    throw new Error(`${describe(el)} is a slider from ${el.min || 0} to ${el.max || 100} and takes a number in that span, and ${JSON.stringify(String(text).slice(0, 40))} is not one; nothing was typed`);
  }
  const wasFocused = focusedElement(el.ownerDocument) === el;
  el.focus();
  // what the page does as the field takes the focus runs before the first key, as before a
  // typist's (ui5-step-input draws its value again then: cleared and typed in the same task, the
  // number typed was put back to the old one)
  if (!wasFocused) await nextTask();
  // The page put another field in its place as it took the focus (Kendo's NumericTextBox hides the
  // input focused and shows its twin, which it then focuses): the keys go where the focus is, as a
  // typist's (they went into the hidden one, and "Typed" was said of a field left empty).
  const took = focusedElement(el.ownerDocument);
  if (took && took !== el && textInput(took) && withStyleCache(() => !!hiddenReason(el) && !hiddenReason(took))) {
    el = took;
    t = el.tagName === 'INPUT' ? inputType(el) : 'textarea';
  }
  // A code editor's key catcher (a transparent textarea: Ace, CodeMirror 5, Monaco without
  // EditContext) holds only a window of the editor's text around its caret: the editor's own keys
  // put the caret (Control+End) or empty it (Control+A, Backspace), and each piece of text is
  // inserted at the caret by the browser (its insertText: the input events of typing), which the
  // editor reads as typed. Appending to the textarea's value instead (Monaco's holds the caret's
  // line) typed the line's text again before each character.
  const catcher = t === 'textarea' && editorFor(el)?.input === el;
  if (catcher) {
    await nextTask(); // the editor's focus handler first
    editorKeys(el, clear ? [['a', { ctrl: true }], ['Backspace']] : [['End', { ctrl: true }]]);
    await nextTask();
  } else if (clear && el.value !== '') {
    try { el.select?.(); } catch { /* ignore */ }
    setValue(el, '');
    inputEvent(el, 'deleteContentBackward');
  } else if (!clear && !maskTemplate(el) && !(wasFocused && selectedIn(el))) {
    // the text typed goes after what the field holds (a page that selects it all on focus would
    // have it replaced), unless the field had the focus and text selected in it, as with
    // Shift+ArrowLeft: the text typed replaces that, as a typist's does
    try { el.setSelectionRange(el.value.length, el.value.length); } catch { /* no selection API */ }
  }
  const put = (f, s) => { if (!catcher || !f.ownerDocument.execCommand('insertText', false, s)) insertText(f, s); };
  if (day !== null) {
    setValue(el, day);
    inputEvent(el, 'insertText', day);
  } else if (catcher && text.length > 1000) {
    put(el, text);
  } else if (WHOLE_VALUE_TYPES.has(t) || text.length > 1000) {
    setValue(el, (clear || WHOLE_VALUE_TYPES.has(t) ? '' : el.value) + text);
    inputEvent(el, 'insertText', text);
  } else {
    let cur = el;
    // a box of a row that takes one code (a PIN: one character a box, the page moving the focus
    // on): each key waits for the page's move, as a typist's next key comes after it (typed on at
    // once, the rest of the code went into the first box, and Zag.js's pin input then hung the page)
    // (a row whose page moves no focus, two name fields side by side, stops waiting after one key)
    let row = boxRowOf(el);
    let prev = '', run = 0;
    for (const ch of text) {
      // the end of a word: let the page's own tasks run, as between a typist's words (and every 64
      // characters of a text without spaces); between other keys its promise callbacks (a form
      // that checks each value in a promise of its own, Ant Design Vue's: typed in one turn, the
      // check of an earlier, shorter value ended last and its "at least 6 characters" stayed
      // under the full password)
      if ((/\s/.test(ch) && prev && !/\s/.test(prev)) || ++run % 64 === 0) { await nextTurn(); run = 0; } else if (prev) await microtasks();
      prev = ch;
      const to = nextKeyTarget(cur);
      if (to !== cur) { changeEvent(cur); cur = to; }
      const info = keyInfo(ch === '\n' ? 'Enter' : ch);
      // (a key whose keydown or keypress the page cancels inserts nothing: a field that takes
      // digits only, by keypress)
      const down = fireKey(cur, 'keydown', info) && fireKey(cur, 'keypress', info);
      if (down) {
        if (ch === '\n' && cur.tagName === 'INPUT') { /* Enter in a single-line field: no text */ } else put(cur, ch);
      }
      fireKey(cur, 'keyup', info);
      if (row) { const at = cur; if (!(await until(() => focusedElement(at.ownerDocument) !== at, ROW_FOCUS_MS))) row = null; }
    }
    if (cur !== el) { await nextTask(); changeEvent(cur); return el; }
  }
  await nextTask();
  changeEvent(el);
  return el;
}

// Text into a rich-text editor, as the browser edits for a typist: each edit announced by a
// beforeinput the page may cancel to make the edit in its own model (Trix, Lexical, ProseMirror:
// execCommand fires none, and Trix then lost the Bold chosen before the text, and its undo), else
// done by the browser's own editing (execCommand, whose input event follows).
// `had`: the editor had the focus before this call (the agent's click put the caret, or a toolbar
// button it pressed gave the focus back): text not clearing it goes where its caret is, as a
// typist's does (CKEditor 5: the caret in a new table's cell, or Bold pressed with nothing
// selected; moved to the end, the text replaced the table, and Bold was dropped).
async function typeIntoEditable(el, text, clear, had = false) {
  // (not when the focus is in an editing host inside it, a table cell of CKEditor 5's: focusing the
  // editor again put the caret at its start)
  if (!focusedOrInside(el)) el.focus();
  const doc = el.ownerDocument;
  const sel = winOf(el).getSelection();
  const inside = sel.rangeCount > 0 && el.contains(sel.anchorNode) && el.contains(sel.focusNode);
  if (clear || !had || !inside) {
    const range = doc.createRange();
    range.selectNodeContents(el);
    if (!clear) {
      // at the end of its last text, not after its last block (after a table, the editor takes the
      // caret for the table selected, and the text replaced it)
      const last = lastText(el);
      if (last) range.setStart(last, last.length);
      range.collapse(!!last);
    }
    sel.removeAllRanges();
    sel.addRange(range);
  }
  // the page's selectionchange handlers run first: an editor keeps the selection in its model
  // (Draft.js, Slate), and the text replaces what it holds selected
  await nextTask();
  const lines = monospaced(el) ? [text] : text.split(/\r\n?|\n/);
  // with nothing to type over the selection, it is deleted as by Backspace (a key the page may
  // take: Draft.js deletes in its model on it; a deletion made behind its back it drew back)
  if (clear && !lines[0]) {
    const info = keyInfo('Backspace');
    if (fireKey(el, 'keydown', info) && beforeInput(el, 'deleteContentBackward') && !doc.execCommand('delete')) el.textContent = '';
    fireKey(el, 'keyup', info);
    await nextTask();
  }
  let own = false;
  // a line at a time, with the Enter key between lines, as a typist's (Editor.js makes a new block
  // on Enter; a line break inserted as text was a <div> it then dropped); after Enter the text goes
  // where the page put the caret (a new block may be an editing host of its own)
  for (let i = 0; i < lines.length; i++) {
    let host = el;
    if (i > 0) {
      if (own) await nextTask();
      await nextTask(); // the page's own work for the line before, as between a typist's keys
      await pressEnter(editingHost(doc) || el);
      await nextTask();
      host = editingHost(doc) || el;
    }
    const line = lines[i];
    if (!line) continue;
    // the line's last key goes down before its text and up after, as a typist's last key of it
    // does (a mention menu, Tribute's, looks at the text before the caret on keyup after a keydown:
    // text put in with no key never opened it); one the page cancels puts no text in
    const key = keyInfo([...line].pop());
    if (!fireKey(host, 'keydown', key)) { own = true; fireKey(host, 'keyup', key); continue; }
    // (textInput first, as Chrome fires it for a key's text: React's onBeforeInput comes from it,
    // and Draft.js takes text there; without it the text was drawn but its model stayed empty)
    if (textInputEvent(host, line) && beforeInput(host, 'insertText', line)) {
      if (!doc.execCommand('insertText', false, line)) {
        host.appendChild(doc.createTextNode(line));
        inputEvent(host, 'insertText', line);
      }
    } else own = true;
    fireKey(host, 'keyup', key);
  }
  // an editor draws what it took in its model after (Lexical in a microtask, React's in a task its
  // scheduler posts as a message: Slate's text was read before it was drawn)
  if (own) await nextTurn();
  await nextTask();
  // the box that holds what was typed: the editor, or the box around its blocks when the text went
  // on into another editing host (Editor.js: a block each line)
  let box = editingHost(doc) || el;
  if (box !== el) { box = el.parentElement; while (box && !box.contains(editingHost(doc))) box = box.parentElement; }
  return box || el;
}

// The last text node of an editor with words in it (not in a part it does not let anyone edit).
function lastText(el) {
  const w = el.ownerDocument.createTreeWalker(el, 4);
  let last = null;
  for (let n = w.nextNode(), i = 0; n && i < 20000; n = w.nextNode(), i++) {
    if (n.data.trim() && n.parentElement?.isContentEditable) last = n;
  }
  return last;
}

// The editing host the caret is in (the outermost contenteditable around the selection), or null.
function editingHost(doc) {
  const sel = doc.getSelection?.();
  let n = sel?.rangeCount ? sel.anchorNode : null;
  if (n && n.nodeType !== 1) n = n.parentElement;
  if (!n?.isContentEditable) return null;
  while (n.parentElement?.isContentEditable) n = n.parentElement;
  return n;
}

// Chrome's textInput event for text typed into an editing host; false when the page cancelled it.
function textInputEvent(el, data) {
  let ev;
  try {
    ev = el.ownerDocument.createEvent('TextEvent');
    ev.initTextEvent('textInput', true, true, winOf(el), data);
  } catch { return true; }
  return el.dispatchEvent(ev);
}

// A beforeinput event on an editing host; false when the page cancelled it (it made the edit).
function beforeInput(el, inputType, data = null) {
  return el.dispatchEvent(new (winOf(el).InputEvent)('beforeinput', { inputType, data, bubbles: true, cancelable: true, composed: true }));
}

const ROW_FOCUS_MS = 150; // a box of a code's row: the page's move of the focus is waited for this long
const SLIDER_KEY_MS = 150; // a slider's value is waited for this long after a key
const SLIDER_STEPS_MAX = 1000; // arrow presses at most (a 0-100 slider in steps of 0.1)

// An ARIA slider (role=slider: noUiSlider's handle, a design system's) set as a keyboard user sets
// it (ARIA's slider pattern: Home, End, and arrows a step at a time, Right/Up to increase), until
// aria-valuenow is the number asked for; each key's effect is read back, after a task when the
// library updates later. Returns the value reached; throws when the slider did not get there.
async function setSlider(el, text) {
  const desc = describe(el);
  const want = Number(String(text).trim().replace(/[%\s]/g, ''));
  // a thumb drawn without ARIA (dom.js thumbPosition) tells only where it stands: in percent of
  // its track, from 0 to 100, which is what its token shows and what is typed to set it
  const thumb = el.getAttribute('role') !== 'slider' && thumbPosition(el);
  const attr = (a) => { const v = el.getAttribute(a); return v == null || v === '' ? NaN : Number(v); };
  const num = (a) => {
    if (!thumb) return attr(a);
    if (a === 'aria-valuemin') return 0;
    if (a === 'aria-valuemax') return 100;
    const t = thumbPosition(el);
    return t ? Math.round(t.pct * 10) / 10 : NaN;
  };
  const min = num('aria-valuemin'), max = num('aria-valuemax');
  if (!Number.isFinite(want)) throw new Error(`${desc} is a slider: type the number to set it to${thumb ? ' (in percent of its track: it says no value of its own)' : ''}`);
  if ((Number.isFinite(min) && want < min) || (Number.isFinite(max) && want > max)) {
    throw new Error(`${desc} goes from ${min} to ${max}${thumb ? '% of its track' : ''}: ${want} is out of its range`);
  }
  if (!Number.isFinite(num('aria-valuenow'))) throw new Error(`${desc} does not say its value (aria-valuenow), so it cannot be set by number`);
  scrollIntoView(el);
  el.focus();
  const vertical = thumb ? thumb.vertical : el.getAttribute('aria-orientation') === 'vertical';
  // One key; the value after it, waited for while it has not changed yet (at most
  // SLIDER_KEY_MS: Zag.js's slider, Ark UI's and Chakra's, shows the new value tasks later; read
  // after one task, the first key looked as if it moved nothing, and the value was left short).
  const press = async (key) => {
    const before = num('aria-valuenow');
    const info = keyInfo(key);
    if (fireKey(el, 'keydown', info)) fireKey(el, 'keypress', info);
    fireKey(el, 'keyup', info);
    await until(() => num('aria-valuenow') !== before, SLIDER_KEY_MS);
    return num('aria-valuenow');
  };
  let v = num('aria-valuenow');
  if (want === min && v !== want) v = await press('Home');
  else if (want === max && v !== want) v = await press('End');
  for (let i = 0; i < SLIDER_STEPS_MAX && v !== want; i++) {
    const up = want > v;
    const next = await press(up ? (vertical ? 'ArrowUp' : 'ArrowRight') : (vertical ? 'ArrowDown' : 'ArrowLeft'));
    if (!Number.isFinite(next) || next === v) break; // it does not move by keys
    if (Math.abs(next - want) > Math.abs(v - want)) { v = next; break; } // it moves the other way
    const past = up ? next > want : next < want;
    v = next;
    if (past) break;
  }
  // (a thumb's steps need not fall on whole percents: the nearest it stands to is taken, said as is)
  if (thumb && Number.isFinite(v) && Math.abs(v - want) < 1) return `${v}% of its track`;
  if (v !== want) throw new Error(`${desc} did not reach ${want}${thumb ? '%' : ''} by its keys: it shows ${Number.isFinite(v) ? v + (thumb ? '%' : '') : 'no value'}`);
  return thumb ? `${v}% of its track` : v;
}

// Check or uncheck as a user does, with a click; then the box must show it (a component may
// redraw in a later task, 300 ms at most): a page that keeps it as it was (its click handler
// cancels the change) makes this an error, where "Checked" was reported.
const CHECK_SHOWN_MS = 300;
async function setChecked(el, want) {
  const state = () => (el.tagName === 'INPUT' ? el.checked : ariaOf(el, 'aria-checked') === 'true');
  if (state() === want) return;
  click(el);
  if (!(await until(() => state() === want, CHECK_SHOWN_MS))) {
    throw new Error(`Clicked ${describe(el)}, but it stays ${want ? 'unchecked' : 'checked'}: the page did not let it change`);
  }
}

function setSelect(sel, opt) {
  sel.focus();
  if (sel.multiple) {
    opt.selected = true;
  } else {
    setValue(sel, opt.value);
    if (sel.selectedIndex !== opt.index) sel.selectedIndex = opt.index;
  }
  inputEvent(sel, 'insertReplacementText');
  changeEvent(sel);
}

// The words `type` takes for a checkbox, radio button or switch (on / off).
const CHECK_WORDS = /^(true|false|on|off|yes|no|1|0|checked|unchecked)$/i;
const UNCHECK_WORDS = /^(false|off|no|0|unchecked)$/i;

// The text typed never goes into the message (it is stored in the call log and shown in the
// popup): only how many characters. Whether the field is secret is decided here, before the first
// key reaches the page, and remembered (secret.js): a page that turns its password field into a
// text field on keydown does not get the value shown afterwards.
let lastTyped = null; // { el, before, after, at }: the field the last type() filled, what it held before and after

// What the field the last type() filled holds once the page settled, when that is again what it
// held before the typing: the page put its value back (Reka's NumberField resets its text from
// its model at the change event that ends the typing, which a user's field fires only once left,
// after its model took the value: "Typed" was said of a field still showing "3"). Null otherwise
// (the text kept, or changed to something else: a formatted number, a field emptied once it took
// the text).
export const typedPending = () => !!lastTyped;

export function typedPutBack() {
  const t = lastTyped;
  lastTyped = null;
  const el = t?.el.deref();
  return el && el.isConnected && Date.now() - t.at < 10_000 && el.value !== t.after && el.value === t.before ? el.value : null;
}

export async function type(el, text, { clear = false, submit = false } = {}) {
  lastTyped = null;
  if (text == null) text = '';
  text = String(text);
  isSecret(el);
  refuseUnusable(el);
  let desc = describe(el);
  // A hidden textarea whose editor is another element (TinyMCE's iframe, CKEditor's region): the
  // text goes where a user types it, the editor's editable content.
  const ed = shownEditor(el);
  if (ed) {
    desc = `${desc} through ${describe(ed)}, the editor a user sees`;
    el = ed;
  }
  const isBox = el.tagName === 'INPUT' && (inputType(el) === 'checkbox' || inputType(el) === 'radio');
  // a hidden field: only a checkbox or a <select> may go through its visible widget
  if (!isBox && el.tagName !== 'SELECT') visibleFor(el, 'type');
  let checkedWord = null;
  let typedBox = null; // (a rich-text editor's text that went on into its next blocks: what holds it all)
  let typedField = null; // (a field the page put in the target's place as it took the focus: Kendo's twin)
  const boxKind = isBox ? inputType(el) : ['checkbox', 'switch', 'radio'].includes(roleOf(el)) ? roleOf(el) : null;
  // (only words that say on or off: any other text, meant for a field, ticked the box it met)
  if (boxKind && !CHECK_WORDS.test(text.trim())) throw new Error(`${desc} is a ${boxKind}: nothing was typed; type "true" or "false" to set it, or click it`);
  if (isBox) {
    const want = !UNCHECK_WORDS.test(text.trim());
    await setChecked(el, want);
    checkedWord = want ? 'Checked' : 'Unchecked';
  } else if (boxKind) {
    const want = !UNCHECK_WORDS.test(text.trim());
    // (a role=radio is checked as any radio: by choosing it; Base UI's was "not a text field")
    if (boxKind === 'radio' && !want && ariaOf(el, 'aria-checked') === 'true') throw new Error(`${desc} is a radio button: it cannot be unchecked, choose another one of its group instead`);
    await setChecked(el, want);
    checkedWord = want ? 'Checked' : 'Unchecked';
  } else if (el.tagName === 'SELECT') {
    return selectOption(el, text, { typed: true });
  } else if (roleOf(el) === 'slider' || (!roleOf(el) && thumbPosition(el))) {
    return { message: `Set ${desc} to ${await setSlider(el, text)}` };
  } else if (el.tagName === 'INPUT' || el.tagName === 'TEXTAREA') {
    // a field read-only until it has the focus (Ant Design Vue's date picker) is focused first, as
    // a user's click into it does; one still read-only takes no keys: a picker's field (flatpickr)
    // is set in what clicking it opens
    if (el.readOnly && !focusedOrInside(el)) {
      try { el.focus(); } catch { /* ignore */ }
      await nextTask();
      if (el.readOnly) el.blur();
    }
    if (el.readOnly) throw new Error(`${desc} is read-only, so nothing was typed; a user sets it by clicking it and choosing in what it opens (a calendar, a list)`);
    if (inputType(el) === 'file') throw new Error(`${desc} is a file input: put files in it with browser_upload_file`);
    // a user clicks into the field first: one covered (a modal's dimmer over the page, with no
    // aria-modal: Fomantic UI's) is no more typed into than clicked (trusted typing refused it)
    if (!focusedOrInside(el)) aim(el, desc);
    scrollIntoView(el);
    const before = el.value;
    const into = await typeIntoField(el, text, clear);
    if (into !== el) typedField = into;
    // (looked at again once the page settled: typedPutBack)
    // (a field empty before and after may have taken the text elsewhere, a tag or a list made
    // from it: only old text come back says the page refused it)
    else if (!submit && before !== '' && el.value !== before) lastTyped = { el: new WeakRef(el), before, after: el.value, at: Date.now() };
  } else if (el.isContentEditable) {
    scrollIntoView(el);
    // a typist clicks into an editor before typing: an editor keeps which block is current from
    // that click (Editor.js: its Enter made no new block without it); the caret is then put where
    // the text goes
    const had = focusedOrInside(el);
    if (!had) { try { click(el); } catch { /* focus only */ } await nextTask(); }
    const box = await typeIntoEditable(el, text, clear, had);
    if (box !== el) typedBox = box;
  } else if (contextEditor(el)) {
    await typeIntoContext(el, text, clear);
  } else if (segmentsOf(el).length) {
    await typeIntoSegments(el, text, clear);
  } else if (isDropdown(el)) {
    // a drop-down drawn as a button or a read-only combobox (MUI's and Radix's Select): it is the
    // field, and a user chooses in it, never types into it
    throw new Error(`${desc} is a drop-down, not a text field: choose in it with browser_select_option (or browser_fill_form); nothing was typed`);
  } else if (readOnlyBox(el)) {
    throw new Error(`${desc} is read-only: the page lets no one change its text now, so nothing was typed`);
  } else {
    throw new Error(`${desc} is not a text field, checkbox or select; target the field itself (its ref)`);
  }
  let note = '';
  let held = '';
  const n = [...text].length;
  if (submit) {
    // The page's tasks queued by the typing (a model updated in setTimeout(0)) run before Enter.
    await nextTask();
    held = typedBox ? editorNote(typedBox, text, clear) : typedNote(typedField || el, text, clear); // before Enter: a submitted form may clear the field
    const refused = notTaken(held, describe(el), n);
    if (refused) throw new Error(`${refused}; Enter was not pressed.`);
    note = await pressEnter(typedField || el);
  } else held = typedBox ? editorNote(typedBox, text, clear) : typedNote(typedField || el, text, clear);
  const refused = notTaken(held, describe(el), n);
  if (refused) throw new Error(`${refused}.`);
  const what = checkedWord ? `${checkedWord} ${describe(el)}` : `Typed ${n} character${n === 1 ? '' : 's'} into ${ed ? desc : describe(el)}`;
  return { message: `${what}${held}${submit ? ' and pressed Enter' : ''}${note ? ' (' + note + ')' : ''}`, desc };
}

// Type into a field drawn as segments (dom.js segmentsOf: MUI X's date and time fields, React
// Aria's DateField) as a user does: into the segment that has the focus, a key a character (the
// field moves the focus on as a segment fills); text with separators ("3/14/2026", "09:30 AM")
// puts each part into its own segment when there are as many parts as segments. Replacing first
// empties each filled segment (Backspace on it). A segment left empty is an error naming it: the
// field holds no value until each is filled. It said "not visible to a user" (its label named the
// hidden input the field keeps for forms), and nothing of it was in the Markdown.
async function typeIntoSegments(el, text, clear) {
  const segs = segmentsOf(el);
  const doc = el.ownerDocument;
  const desc = describe(el);
  scrollIntoView(el);
  const filled = (s) => !/^empty$/i.test(s.getAttribute('aria-valuetext') || '');
  // a key as the browser delivers it: keydown, beforeinput (React Aria's segments take the text
  // there and cancel it; the browser fires none for execCommand), then the edit itself
  const W = winOf(el);
  const key = (target, k) => {
    const info = keyInfo(k);
    const down = fireKey(target, 'keydown', info);
    if (down && (info.printable || k === 'Backspace')) {
      const inputType = info.printable ? 'insertText' : 'deleteContentBackward';
      const go = target.dispatchEvent(new W.InputEvent('beforeinput', { inputType, data: info.printable ? k : null, bubbles: true, cancelable: true, composed: true }));
      if (go) doc.execCommand(info.printable ? 'insertText' : 'delete', false, info.printable ? k : undefined);
    }
    fireKey(target, 'keyup', info);
  };
  const into = async (s) => { if (focusedElement(doc) !== s) s.focus(); await nextTask(); };
  if (clear) for (const s of segs) if (filled(s)) { await into(s); key(s, 'Backspace'); await nextTask(); }
  const parts = String(text).split(/[^\p{L}\p{N}]+/u).filter(Boolean);
  const typeChars = async (chars) => {
    for (const ch of chars) {
      const a = focusedElement(doc);
      if (!segs.includes(a)) break; // the field let the focus go: the rest goes nowhere
      key(a, ch);
      await nextTask();
    }
  };
  const order = parts.length === segs.length ? partOrder(segs, parts) : null;
  if (order) for (let i = 0; i < segs.length; i++) { await into(segs[order[i]]); await typeChars(parts[i]); }
  else { await into(segs[0]); await typeChars(parts.join('')); }
  const left = segs.filter((s) => !filled(s)).map((s) => s.getAttribute('aria-label') || 'a part');
  // a date part the segment shows otherwise than typed (a month that took only its first digit)
  const off = order ? parts.map((p, i) => [p, segs[order[i]]]).filter(([p, sg]) => segType(sg) && /^\d+$/.test(p) && sg.hasAttribute('aria-valuenow') && Number(sg.getAttribute('aria-valuenow')) !== Number(p)) : [];
  if (!left.length && off.length) throw new Error(`Typed into ${desc}, but ${off.map(([p, sg]) => `its ${segType(sg)} shows ${sg.getAttribute('aria-valuetext') || sg.getAttribute('aria-valuenow')} where ${p} was typed`).join(', and ')}`);
  if (left.length === segs.length) throw new Error(`${desc} took none of the text typed: its parts (${segs.map((s) => s.getAttribute('aria-label') || '?').join(', ')}) take ${segmentedText(el).text || 'what they show'}`);
  if (left.length) throw new Error(`Typed into ${describe(el)}, but its ${left.join(', ')} ${left.length === 1 ? 'is' : 'are'} still empty: the field holds no value until each part is filled`);
}

// A date segment's part: 'year', 'month' or 'day', or ''.
const segType = (s) => { const p = segmentPart(s); return YMD.includes(p) ? p : ''; };
const YMD = ['year', 'month', 'day'];

// Which segment each part of the text goes into, in the text's order: the field's order, except
// for a date written year first ("2024-12-31", an ISO date; a range of two), whose year, month and
// day go into the segments of those names whatever order the field shows them in (mm/dd/yyyy: the
// year was typed into the month, "0031-02-12").
function partOrder(segs, parts) {
  const idx = segs.map((_, i) => i);
  if (!/^\d{4}$/.test(parts[0])) return idx;
  const order = [];
  for (let i = 0; i < segs.length;) {
    let j = i;
    while (j < segs.length && j - i < 3 && segType(segs[j]) && !segs.slice(i, j).some((x) => segType(x) === segType(segs[j]))) j++;
    const run = idx.slice(i, j);
    if (run.length === 3 && /^\d{4}$/.test(parts[order.length])) order.push(...run.sort((a, b) => YMD.indexOf(segType(segs[a])) - YMD.indexOf(segType(segs[b]))));
    else if (run.length) order.push(...run);
    else { order.push(i); j = i + 1; }
    i = j;
  }
  return order;
}

// Press editor keys on `el` ([key, modifiers] each: keydown and keyup), as a user's reach it.
function editorKeys(el, keys) {
  for (const [k, mods] of keys) { const info = keyInfo(k); fireKey(el, 'keydown', info, mods); fireKey(el, 'keyup', info, mods); }
}

// Type into an element that takes its text through an EditContext (Monaco), as the browser passes a
// user's keys and text to it: the focus on it, Control+End (or Control+A and Backspace, to
// replace), then the text as one textupdate of its EditContext over its selection, a line break
// in it typed as the editor types Enter (Monaco indents the new line, as for a user).
async function typeIntoContext(el, text, clear) {
  const W = winOf(el);
  if (typeof W.TextUpdateEvent !== 'function') throw new Error(`${describe(el)} takes text only from the keyboard in this browser; nothing was typed`);
  scrollIntoView(editorFor(el)?.face || el);
  if (focusedElement(el.ownerDocument) !== el) el.focus();
  await nextTask(); // the editor's focus handler (it fills its EditContext) before the keys
  editorKeys(el, clear ? [['a', { ctrl: true }], ['Backspace']] : [['End', { ctrl: true }]]);
  await nextTask();
  const t = String(text).replace(/\r\n?/g, '\n');
  if (!t) return;
  // What the editor draws, before and after (by its next frame, when it draws): an editor that
  // took none of the text (one that heeds only the browser's own text updates) is an error, not
  // "Typed".
  const view = drawnEditor(el)?.face; // the whole box: its lines, its gutter
  const drawn = () => { try { return view.innerText; } catch { return view?.textContent ?? ''; } };
  const frame = () => new Promise((res) => { W.requestAnimationFrame(() => res()); W.setTimeout(res, 100); });
  if (view) await frame(); // the lines as drawn after the keys (emptied, to replace them)
  const before = view ? drawn() : null;
  const ec = el.editContext;
  const a = ec.selectionStart, b = ec.selectionEnd;
  ec.dispatchEvent(new W.TextUpdateEvent('textupdate', { text: t, updateRangeStart: a, updateRangeEnd: b, selectionStart: a + t.length, selectionEnd: a + t.length }));
  if (before === null) return;
  await frame();
  if (drawn() === before && !(await until(() => drawn() !== before, 300))) {
    throw new Error(`${describe(el)} took none of the text: what it shows did not change; nothing was typed`);
  }
}

const NOT_TAKEN = ' (the field did not take it and is empty';
const SCRAMBLED = ' (the field holds the characters typed in another order';
const NUMBER_ONLY = ': a number field takes only a number';

// The sentence for a number field the browser left empty (it takes no letters: typedNote said
// so), or '' for any other note: then the typing is an error, not "Typed n characters" (nothing
// the agent meant is in the field). Another field found empty after typing may have been emptied
// by the page taking it (a tag input making a chip of "red,"): that stays a note.
// (`empty`: a field left empty refuses too, not only a number field: fill_form's, when nothing
// beside it shows the text either, as a chip)
export function notTaken(note, desc, n, empty = false) {
  if (note?.startsWith(SCRAMBLED)) return `Typed ${n} character${n === 1 ? '' : 's'} into ${desc}, but ${note.slice(2, -1)}`;
  if (!note || !note.startsWith(empty ? NOT_TAKEN : NOT_TAKEN + NUMBER_ONLY)) return '';
  return `Typed ${n} character${n === 1 ? '' : 's'} into ${desc}, but ${note.slice(2, -1)}`;
}

// What a text field holds after typing, when it is not what was typed (a user sees it): its
// maxlength cut it, a number field refused it, or the page rewrote it (an input mask); '' when it
// holds the text (at its end, when appended). Never the value itself: typed text stays out of
// messages, which the call log keeps.
export function typedNote(el, text, clear) {
  if (el?.isContentEditable) return editorNote(el, text, clear); // a rich-text editor: its text as shown
  // a field drawn as segments that the page marks invalid once typed into (a day that is no date)
  if (el && el.tagName !== 'INPUT' && segmentsOf(el).length) return el.getAttribute('aria-invalid') === 'true' ? ' (the page marks what it holds as not valid; its value is in the page)' : '';
  if (!el || (el.tagName !== 'INPUT' && el.tagName !== 'TEXTAREA') || checkable(el) || DATE_TYPES.has(inputType(el))) return '';
  if (el.tagName === 'INPUT' && /\n/.test(text)) return ''; // Enter was pressed on the way: what it did is in the page
  // A hidden textarea an editor stands for (widgets.js editorFor): its value is the editor's key
  // buffer (Ace) or is written back later (TinyMCE), not what the user sees; the editor's own
  // region is compared instead (one it draws as lines is not checked).
  const ed = el.tagName === 'TEXTAREA' ? editorFor(el) : null;
  if (ed) return ed.input === el ? '' : editorNote(ed.input, text, clear);
  const want = String(text).replace(/\r\n?/g, '\n');
  const v = String(el.value ?? '');
  if (clear ? v === want : v.endsWith(want)) return '';
  const len = [...v].length;
  if (el.maxLength >= 0 && len === el.maxLength && len < (clear ? 0 : len) + [...want].length) {
    const a = focusedElement(el.ownerDocument);
    if (a && a !== el && textInput(a)) {
      return ` (the field takes ${el.maxLength} character${el.maxLength === 1 ? '' : 's'}; as it filled, the page moved the focus on, and the rest was typed where the focus went, as a user's keys go: it is now in ${describe(a)})`;
    }
  }
  // a box of a row that takes one code (with no maxlength): the row holds it, a character a box
  const row = boxRowOf(el);
  if (row && (clear ? row.map((b) => b.value).join('') === want : row.map((b) => b.value).join('').endsWith(want))) return ' (a character a box, into the boxes after it too)';
  if (el.maxLength >= 0 && len === el.maxLength && len < (clear ? 0 : len) + [...want].length) {
    return ` (the field takes at most ${el.maxLength} characters: it holds fewer than typed)`;
  }
  if (!v) return `${NOT_TAKEN}${inputType(el) === 'number' ? NUMBER_ONLY : ''})`;
  // a secret field's value is never in the page's Markdown: the note does not send the agent there
  const where = isSecret(el) ? 'its value is secret and not shown' : 'its value is in the page';
  // the same letters and digits, each once, in another order: no rewriting a mask does (a mask drawn
  // after the first key took it last: Kendo's MaskedTextBox made "1234567890" "(012) 345-6789",
  // said with a note under "Typed")
  const alnum = (x) => x.replace(/[^\p{L}\p{N}]/gu, '').toLowerCase();
  const a = alnum(want), b = alnum(v);
  if (clear && a.length >= 4 && a !== b && [...a].sort().join('') === [...b].sort().join('')) return `${SCRAMBLED}: the page or its mask moved them; ${where})`;
  return ` (the field holds something else than typed, ${len} character${len === 1 ? '' : 's'}: the page or the field rewrote it; ${where})`;
}
// typedNote for the editor a hidden textarea stands for (TinyMCE's body): its shown text, white space aside (editors draw line
// breaks as blocks), is the text typed (clear) or ends with it (appended); else a note saying it
// is not: the editor rewrote it, or the text went elsewhere than its end.
function editorNote(el, text, clear) {
  let root = el;
  while (root.parentElement?.isContentEditable) root = root.parentElement;
  const flat = (t) => String(t).replace(/\s+/g, '');
  let has = '';
  try { has = root.innerText || ''; } catch { has = root.textContent || ''; }
  has = flat(has);
  const want = flat(text);
  if (clear ? has === want : has.endsWith(want)) return '';
  return clear ? ' (the editor holds something else than typed: the page rewrote it; its content is in the page)'
    : ' (the editor does not end with the text typed: it went elsewhere or the page rewrote it; its content is in the page)';
}
const checkable = (el) => el.tagName === 'INPUT' && (inputType(el) === 'checkbox' || inputType(el) === 'radio');

// typed: the value is text given to `type`, which no message may repeat.
// A hidden <select> whose visible replacement exists is operated through the replacement (opened,
// its option clicked, then checked); custom drop-downs and radio groups are forms.js's chooseOption.
// The <select> an action means: the element, or the one select inside it.
function selectOf(el) {
  if (el.tagName === 'SELECT') return el;
  const inner = el.querySelector?.('select');
  if (inner) return inner;
  throw new Error(`${describe(el)} is not a <select>; click it to open it, then click the option`);
}

// The option of `sel` a value names (its value, its text exactly, then ignoring case, then a part
// of it); an error listing the options when none, or saying it is greyed out.
function optionFor(sel, value, typed = false) {
  const v = String(value ?? '');
  const opts = Array.from(sel.options);
  const nv = norm(v).toLowerCase();
  const opt = opts.find((o) => o.value === v) || opts.find((o) => norm(o.label || o.textContent) === norm(v)) ||
    opts.find((o) => norm(o.label || o.textContent).toLowerCase() === nv) ||
    opts.find((o) => norm(o.label || o.textContent).toLowerCase().includes(nv) && nv);
  if (!opt) {
    const what = typed ? 'matching the text typed' : `"${v}"`;
    const e = new Error(`${describe(sel)} has no option ${what}. Options: ${opts.slice(0, 20).map((o) => JSON.stringify(norm(o.label || o.textContent))).join(', ')}`);
    e.code = 'no_native_option';
    throw e;
  }
  if (opt.disabled || (opt.parentElement?.tagName === 'OPTGROUP' && opt.parentElement.disabled)) throw new Error(`option "${norm(opt.textContent)}" of ${describe(sel)} is disabled`);
  return opt;
}

const optionText = (o) => norm(o.label || o.textContent);
const optionList = (os) => os.map((o) => JSON.stringify(optionText(o))).join(', ');

// browser_select_option's `values`: exactly these options chosen in a select of several choices
// (one of a single choice takes one). A hidden select is chosen in through the widget a user sees:
// the missing ones are chosen there, and one to unchoose is an error saying where (a widget's
// remove mark is its own, not a choice to make).
export async function selectOptions(el, values) {
  el = selectOf(el);
  if (!el.multiple) {
    if (values.length === 1) return selectOption(el, values[0]);
    throw new Error(`${describe(el)} takes one option, and ${values.length} were given: choose it with value`);
  }
  refuseUnusable(el);
  const want = [...new Set(values.map((v) => optionFor(el, v)))];
  const why = withStyleCache(() => hiddenReason(el));
  if (why) {
    const widget = withStyleCache(() => replacementFor(el));
    if (!widget) throw hiddenError(el, why, nameOf(el) || values.join(', '), 'select');
    // (not a disabled placeholder the page keeps chosen, Materialize's "Choose colors": no one can
    // take it out)
    // (options by their value and words: a widget may rebuild the select's options at each change,
    // Slim Select's, and the options chosen were then "still chosen" extras)
    const key = (o) => `${o.value}\u0000${optionText(o)}`;
    const wanted = new Set(want.map(key));
    const extra = () => Array.from(el.selectedOptions).filter((o) => !wanted.has(key(o)) && !o.disabled);
    const now = (o) => (o.isConnected ? o : Array.from(el.options).find((x) => key(x) === key(o)) || o);
    const before = extra();
    for (const o of want) {
      if (now(o).selected) continue;
      if (!(await chooseInWidget(widget, optionText(o), click, describe, el))) throw new Error(`Choosing "${optionText(o)}" in ${describe(el)} through ${describe(widget)} did not take${o === want[0] ? '' : ` (chosen before it: ${optionList(want.slice(0, want.indexOf(o)))})`}`);
    }
    // the others it holds are taken out as a user does: by their chips' remove marks (Select2's
    // ×), else in the widget's list (Materialize's FormSelect); one still chosen is an error
    if (before.length) {
      // (a chip that stays is left for the check below)
      for (const t of before.map(optionText)) await removeChip(widget, t, click);
      if (extra().length) { try { await unchooseOthers(widget, want.map(optionText), click, describe); } catch { /* said below */ } }
      await closeIfOpen(widget);
    }
    const left = extra();
    if (left.length) throw new Error(`Chose ${optionList(want)} in ${describe(el)} through ${describe(widget)}, but ${optionList(left)} ${left.length > 1 ? 'are' : 'is'} still chosen: its list did not take ${left.length > 1 ? 'them' : 'it'} out`);
    // (and those asked for are still chosen: a click meant for another may have taken one out)
    const lost = want.filter((o) => !now(o).selected);
    if (lost.length) throw new Error(`Chose ${optionList(want)} in ${describe(el)} through ${describe(widget)}, but ${optionList(lost)} ${lost.length > 1 ? 'are' : 'is'} no longer chosen after the others were taken out`);
    return { message: `Selected ${optionList(want)} in ${describe(el)} through ${describe(widget)}, the widget a user sees${before.length ? `, and took out ${optionList(before)}` : ''}` };
  }
  el.focus();
  const holdersBefore = holdersOf(el, want);
  for (const o of el.options) o.selected = want.includes(o);
  inputEvent(el, 'insertReplacementText');
  changeEvent(el);
  await nextTurn(); // the page's revert, as for one option (selectOption)
  const now = Array.from(el.selectedOptions);
  const to = movedTo(el, want, holdersBefore);
  if (to) return { message: `Selected ${optionList(want)} in ${describe(el)}, and the page moved ${want.length > 1 ? 'them' : 'it'} to ${describe(to)}` };
  if (now.length !== want.length || now.some((o) => !want.includes(o))) {
    const e = new Error(`${want.length ? optionList(want) : 'No option'} ${want.length > 1 ? 'were' : 'was'} chosen in ${describe(el)}, but the page changed it to ${now.length ? optionList(now) : 'none'}; the page may say why.`);
    e.code = 'refused';
    throw e;
  }
  return { message: want.length ? `Selected ${optionList(want)} in ${describe(el)}, and no other option` : `Unchose every option of ${describe(el)}` };
}

// The selects other than `el` shown on the page that hold an option of each of the words of `opts`.
function holdersOf(el, opts) {
  const texts = opts.map(optionText);
  if (!texts.length) return [];
  return Array.from(el.ownerDocument.querySelectorAll('select')).filter((s) => s !== el && texts.every((t) => Array.from(s.options).some((x) => optionText(x) === t)) && !withStyleCache(() => hiddenReason(s)));
}

// The select a page moved the options just chosen in `el` to (a dual list box, Bootstrap
// Duallistbox's: a choice in its list of all moves the option into its list of the chosen, and it
// said "the page changed it to none"): the one shown select that holds them all now and did not
// before (`before`, holdersOf), while `el` holds none of them any more; else null.
function movedTo(el, opts, before) {
  const texts = opts.map(optionText);
  if (!texts.length || Array.from(el.options).some((x) => texts.includes(optionText(x)))) return null;
  const now = holdersOf(el, opts).filter((s) => !before.includes(s));
  return now.length === 1 ? now[0] : null;
}

export async function selectOption(el, value, { typed = false, option = null } = {}) {
  el = selectOf(el);
  refuseUnusable(el);
  let opt;
  try {
    opt = optionFor(el, value, typed);
  } catch (e) {
    // a hidden select that mirrors only the choice its widget shows (PrimeReact's Dropdown keeps
    // one <option>, the rows-per-page "5" of its paginator): the widget's own list has the others
    const widget = e.code === 'no_native_option' && el.options.length <= 1 && withStyleCache(() => hiddenReason(el)) ? withStyleCache(() => replacementFor(el)) : null;
    if (!widget) throw e;
    const text = norm(String(value ?? ''));
    if (!(await chooseInWidget(widget, text, click, describe))) throw new Error(`Clicked option "${text}" of ${describe(widget)}, but the widget does not show it afterwards`);
    return { message: `Selected "${text}" in ${describe(widget)}, the widget a user sees (opened it, clicked the option)` };
  }
  const why = withStyleCache(() => hiddenReason(el));
  if (why) {
    // The user sees a replacement widget: choose there, so its own handlers update it.
    const widget = withStyleCache(() => replacementFor(el));
    if (!widget) throw hiddenError(el, why, nameOf(el) || norm(String(value ?? '')), 'select');
    const text = norm(opt.label || opt.textContent);
    const wdesc = describe(widget);
    const done = await chooseInWidget(widget, text, click, describe, el);
    if (done) return { message: `Selected "${el.multiple ? text : selectedText(el)}" in ${describe(el)} through ${wdesc}, the widget a user sees` };
    // The widget did not take it: set the native value with the events widgets listen to, and
    // accept only if the widget then shows it.
    setSelect(el, opt);
    await nextTask();
    const shown = norm(widget.innerText || widget.textContent).toLowerCase();
    if (el.selectedIndex === opt.index && shown.includes(text.toLowerCase())) {
      return { message: `Selected "${el.multiple ? text : selectedText(el)}" in ${describe(el)} (its widget ${wdesc} shows it)` };
    }
    throw new Error(`Selecting "${text}" in ${describe(el)} did not take: its widget ${describe(widget)} still shows "${norm(widget.innerText || widget.textContent).slice(0, 60)}"`);
  }
  void option;
  const holdersBefore = el.multiple ? holdersOf(el, [opt]) : [];
  setSelect(el, opt);
  // The page may refuse the choice (its change handler sets another value: "sold out"; a
  // controlled component restores its own): then nothing was selected, and saying "Selected"
  // with the value it went back to was a success for what did not happen.
  await nextTurn(); // a framework's revert in a microtask (Vue's nextTick) or a posted task
  const to = el.multiple ? movedTo(el, [opt], holdersBefore) : null;
  if (to) return { message: `Selected "${norm(opt.label || opt.textContent)}" in ${describe(el)}, and the page moved it to ${describe(to)}` };
  if (!opt.selected) {
    const e = new Error(`${typed ? 'The option matching the text typed' : `"${norm(opt.label || opt.textContent)}"`} was chosen in ${describe(el)}, but the page changed it back to "${selectedText(el)}"; the page may say why.`);
    e.code = 'refused';
    throw e;
  }
  // a multiple select: the option just chosen (the others stay chosen; the token lists them all)
  return { message: `Selected "${el.multiple ? norm(opt.label || opt.textContent) : selectedText(el)}" in ${describe(el)}` };
}

// The editable element a user sees for a hidden textarea that an editor replaces (TinyMCE's
// iframe, CKEditor's region), or null: where a user's typing and keys for that textarea go.
export function shownEditor(el) {
  const ed = el?.tagName === 'TEXTAREA' && hiddenReason(el) ? editorFor(el) : null;
  return ed && ed.input !== el ? ed.input : null;
}

// Put the keyboard focus on the element a key is pressed on (or the nearest one around it that
// takes focus), unless it already holds it, as a user's click or Tab there would: pages handle keys
// for what is focused (a tree expands the item that matches :focus on ArrowRight; Shoelace's
// sl-tree ignored the key, which was said to be pressed).
export function focusForKeys(el) {
  const doc = el.ownerDocument;
  const now = focusedElement(doc);
  if (now && now !== doc.body && composedContains(el, now)) return;
  for (let n = el; n && n !== doc.body && n !== doc.documentElement; n = composedParent(n)) {
    if (n.nodeType !== 1 || !focusable(n) || isDisabled(n)) continue;
    if (n.tabIndex >= 0 || n.hasAttribute('tabindex') || n.isContentEditable) {
      if (n !== now) { try { n.focus({ preventScroll: true }); } catch { /* ignore */ } }
      return;
    }
  }
}

// press_key with a target. A key on an element that takes no keyboard focus (a label's text, a
// heading, nor anything around it) reaches only the page's handlers there, where a user's key
// would not go at all: what it did is watched, and one that changed nothing on the page (no
// element, attribute or text, no scroll position, no focus) is an error saying so, never
// "Pressed" (DevExtreme's slider named by a label it is not tied to: "Pressed ArrowRight on
// [span "Volume"]", and the slider stayed at 2).
export async function pressKeyOn(el, keySpec) {
  if (shownEditor(el)) return pressKey(el, keySpec);
  focusForKeys(el);
  const doc = el.ownerDocument;
  const W = winOf(el);
  const focused = focusedElement(doc);
  // (focus on it, inside it, or on what holds it, a tree whose item's words were the target: keys go there)
  if ((focused && focused !== doc.body && focused !== doc.documentElement && (composedContains(el, focused) || composedContains(focused, el))) || el.isContentEditable) return pressKey(el, keySpec);
  const scrolls = () => { const a = [W.scrollX, W.scrollY]; for (let n = el; n && a.length < 42; n = composedParent(n)) if (n.nodeType === 1) a.push(n.scrollTop, n.scrollLeft); return a.join(); };
  const at = scrolls();
  const changes = watchChanges(doc);
  let r;
  try {
    r = await pressKey(el, keySpec);
    await nextTask(); // (what its handlers post for later)
  } finally {
    r = r && { ...r, changed: changes.stop() > 0 || scrolls() !== at || focusedElement(doc) !== focused };
  }
  if (!r.changed) {
    throw new Error(`${describe(el)} takes no keyboard focus, and ${keySpec} pressed on it changed nothing on the page: a user presses keys in the control they mean (a field, a slider, a list); give that control's ref`);
  }
  return { message: r.message };
}

export async function pressKey(el, keySpec) {
  // a hidden textarea's editor: the keys go to the editor a user sees, as typing does
  const ed = shownEditor(el);
  if (ed) {
    const r = await pressKey(ed, keySpec);
    return { message: r.message.replace(` on ${describe(ed)}`, ` on ${describe(el)} through ${describe(ed)}, the editor a user sees`) };
  }
  const parts = String(keySpec || '').split('+');
  let key = parts.pop();
  if (key === '' && parts.length) key = '+';
  const mods = {};
  for (const m of parts) mods[{ Control: 'ctrl', Ctrl: 'ctrl', Shift: 'shift', Alt: 'alt', Meta: 'meta', Cmd: 'meta', Command: 'meta' }[m] || m.toLowerCase()] = true;
  if (!key) throw new Error('key is required, e.g. "Enter", "Tab", "ArrowDown", "Control+a"');
  // a letter is the one the keyboard gives: upper case with Shift, else lower ("Control+K" is the
  // K key, whose keydown says "k": VitePress's search opens on that only; it said "K" and nothing opened)
  if (/^\p{L}$/u.test(key) && key.toLowerCase() !== key.toUpperCase()) key = mods.shift ? key.toUpperCase() : parts.length ? key.toLowerCase() : key;
  const info = keyInfo(key);
  const noMods = !mods.ctrl && !mods.alt && !mods.meta;
  // a key that edits text, on an editor made read-only: it changes nothing, as typing would not
  if (noMods && (info.printable || info.key === 'Backspace' || info.key === 'Delete') && readOnlyBox(el)) {
    throw new Error(`${describe(el)} is read-only: the page lets no one change its text now, so ${keySpec} was not pressed`);
  }
  if (info.key === 'Enter' && noMods) {
    const note = await pressEnter(el);
    return { message: `Pressed Enter on ${describe(el)}${note ? ' (' + note + ')' : ''}` };
  }
  const down = await keyLetThrough(el, 'keydown', info, mods);
  const clip = clipboardKey(info, mods);
  if (clip) {
    const note = down ? await clipboardCommand(el, clip) : '';
    fireKey(el, 'keyup', info, mods);
    return { message: `Pressed ${keySpec} on ${describe(el)}${note}` };
  }
  // a page that takes a character on keypress and cancels it (CodeMirror 5) inserted it itself:
  // the browser's insertion is not done again ("H" typed "HH")
  const press = down && noMods && (info.printable || info.key === ' ') ? await keyLetThrough(el, 'keypress', info, mods) : true;
  if (down && press) defaultKeyAction(el, info, mods);
  fireKey(el, 'keyup', info, mods);
  return { message: `Pressed ${keySpec} on ${describe(el)}` };
}

// Copy, cut and paste (Control or Meta with C, X, V; Shift too for V): the browser's own commands,
// which a script's key events never run ("Pressed Control+v" and nothing pasted: Handsontable's
// cells, CKEditor's cut). Done as the browser does them, through the copy, cut and paste events a
// page handles with clipboardData (Handsontable, CKEditor, Google's editors), else on the text
// selected in the field or editor focused; what is copied is kept here, for a paste in this page
// (the system clipboard is not read: what another page or program put there is not pasted).
const CLIP_KEYS = { c: 'copy', x: 'cut', v: 'paste' };
const CLIP_MAX = 100_000; // characters kept
let clipboard = null;     // { text, html } the last copy or cut in this page put there
function clipboardKey(info, mods) {
  const k = CLIP_KEYS[info.key.toLowerCase()];
  return k && (mods.ctrl || mods.meta) && !mods.alt && (!mods.shift || k === 'paste') ? k : null;
}

// Run copy, cut or paste on the focused element of `el`'s document (or `el`): the event first, then,
// unless the page cancelled it, the browser's own action on the selection. Returns the answer's note.
async function clipboardCommand(el, kind) {
  const doc = el.ownerDocument, W = winOf(el);
  const at = focusedElement(doc) || el;
  const field = (at.tagName === 'INPUT' && TEXT_INPUT_TYPES.test(inputType(at))) || at.tagName === 'TEXTAREA' ? at : null;
  const editable = !!field || at.isContentEditable;
  const dt = new W.DataTransfer();
  if (kind === 'paste' && clipboard) { dt.setData('text/plain', clipboard.text); if (clipboard.html) dt.setData('text/html', clipboard.html); }
  const ev = new W.ClipboardEvent(kind, { bubbles: true, cancelable: true, composed: true, clipboardData: dt });
  at.dispatchEvent(ev);
  for (let i = 0; i < 4; i++) await null;
  const words = (t) => JSON.stringify(t.length > 60 ? t.slice(0, 60) + '…' : t);
  if (kind === 'paste') {
    if (ev.defaultPrevented) return clipboard ? ` (the page took the paste of ${words(clipboard.text)})` : ' (the page took the paste; nothing was copied in this page before it, so it held nothing)';
    if (!clipboard) return '; nothing was pasted: nothing was copied in this page before it (the system clipboard is not read without a person\'s keys)';
    if (!editable) return '; nothing was pasted: the focus is on no field or editor';
    doc.execCommand('insertText', false, clipboard.text);
    return ` (pasted ${words(clipboard.text)})`;
  }
  // copy and cut: what the page put in clipboardData, else the selection
  if (ev.defaultPrevented) {
    const t = dt.getData('text/plain');
    if (t) clipboard = { text: t.slice(0, CLIP_MAX), html: dt.getData('text/html').slice(0, CLIP_MAX) };
    return t ? ` (the page ${kind === 'cut' ? 'cut' : 'copied'} ${words(t)})` : ` (the page took the ${kind})`;
  }
  if (field && isSecret(field)) return `; nothing was ${kind === 'cut' ? 'cut' : 'copied'}: a password field lets nothing be copied out of it`;
  let text = '';
  if (field) { try { text = field.value.slice(field.selectionStart, field.selectionEnd); } catch { text = ''; } }
  else { const sel = W.getSelection(); text = sel ? sel.toString() : ''; }
  if (!text) return `; nothing was ${kind === 'cut' ? 'cut' : 'copied'}: no text was selected`;
  clipboard = { text: text.slice(0, CLIP_MAX), html: '' };
  if (kind === 'cut' && editable) doc.execCommand('delete');
  return ` (${kind === 'cut' ? 'cut' : 'copied'} ${words(text)})`;
}

// The root of the contenteditable region `el` is in, focused, with the selection inside it (at its
// end when it was elsewhere): where a user's key on it goes.
function caretIn(el) {
  let root = el;
  while (root.parentElement?.isContentEditable) root = root.parentElement;
  const sel = winOf(el).getSelection();
  const inside = () => sel.rangeCount && root.contains(sel.anchorNode);
  if (!inside()) { try { root.focus({ preventScroll: true }); } catch { /* ignore */ } }
  if (!inside()) { sel.selectAllChildren(root); sel.collapseToEnd(); }
  return { root, sel };
}

// The browser's own caret movement for an arrow, Home or End key (Shift extends the selection,
// Control goes by words or to the document's ends) in a contenteditable region: a user selects
// text with these before Bold or Delete; untrusted key events do not move the caret themselves.
const MOVES = {
  ArrowLeft: ['backward', 'character', 'word'], ArrowRight: ['forward', 'character', 'word'],
  ArrowUp: ['backward', 'line', 'paragraph'], ArrowDown: ['forward', 'line', 'paragraph'],
  Home: ['backward', 'lineboundary', 'documentboundary'], End: ['forward', 'lineboundary', 'documentboundary'],
};
function moveKey(el, k, mods) {
  const m = MOVES[k];
  if (!m || mods.alt || mods.meta) return false;
  const { sel } = caretIn(el);
  if (typeof sel.modify !== 'function') return false;
  sel.modify(mods.shift ? 'extend' : 'move', m[0], mods.ctrl ? m[2] : m[1]);
  return true;
}

// The browser's own action for an editing key in a contenteditable region whose page did not
// cancel it (CodeMirror, a plain contenteditable): Ctrl+A selects its content, Backspace and
// Delete delete, a printable key inserts itself, each through the editing commands that give the
// page the beforeinput and input events a user's key gives. False for other keys.
function editKey(el, info, mods) {
  const k = info.key;
  const plain = !mods.ctrl && !mods.alt && !mods.meta;
  const doc = el.ownerDocument;
  if ((mods.ctrl || mods.meta) && !mods.alt && k.toLowerCase() === 'a') { const { root, sel } = caretIn(el); sel.selectAllChildren(root); return true; }
  if (moveKey(el, k, mods)) return true;
  if (!plain) return false;
  if (k === 'Backspace' || k === 'Delete') { caretIn(el); doc.execCommand(k === 'Delete' ? 'forwardDelete' : 'delete'); return true; }
  if (info.printable || k === ' ') { caretIn(el); doc.execCommand('insertText', false, k); return true; }
  return false;
}

// The element the Tab key takes the focus to from `el` (as defaultKeyAction moves it), or null.
export function tabTarget(el) {
  const list = focusables(el.ownerDocument);
  const i = list.indexOf(el);
  return i >= 0 ? list[i + 1] || null : null;
}

function focusables(doc) {
  return Array.from(doc.querySelectorAll('a[href],button,input:not([type=hidden]),select,textarea,[tabindex],[contenteditable=""],[contenteditable=true],summary'))
    .filter((e) => !isDisabled(e) && !isInert(e) && !behindModal(e) && e.tabIndex >= 0 && isVisibleBox(e));
}

function defaultKeyAction(el, info, mods) {
  const k = info.key;
  const W = winOf(el);
  const field = el.tagName === 'INPUT' || el.tagName === 'TEXTAREA';
  if (k === 'Tab') {
    const list = focusables(el.ownerDocument);
    const i = list.indexOf(el);
    const next = list[(i + (mods.shift ? -1 : 1) + list.length) % list.length];
    next?.focus();
  } else if (k === 'Escape' && !mods.ctrl && !mods.alt && !mods.meta && !mods.shift) {
    closeTopLayer(el.ownerDocument);
  } else if (k === ' ' && !field && (el.tagName === 'BUTTON' || el.getAttribute('role') === 'button' || el.type === 'checkbox' || el.type === 'radio' || el.getAttribute('role') === 'checkbox')) {
    el.click();
  } else if (steps(el) && STEP_KEYS.test(k) && !mods.ctrl && !mods.alt && !mods.meta) {
    stepKey(el, k);
  } else if (field && CARET_KEYS.test(k) && !mods.alt && !mods.meta && caretKey(el, k, mods.shift, mods.ctrl)) {
    // the caret moved, or the selection grew, as the browser's own keys do
  } else if (field && isEditable(el) && !mods.ctrl && !mods.alt && !mods.meta) {
    if (k === 'Backspace' || k === 'Delete') deleteKey(el, k);
    else if (info.printable || k === ' ') insertText(el, k);
  } else if (field && mods.ctrl && k.toLowerCase() === 'a') {
    el.select?.();
  } else if (!field && el.isContentEditable && editKey(el, info, mods)) {
    // done as the browser's own editing does it
  } else if (!field) {
    const page = W.innerHeight * 0.8;
    const dy = { ArrowDown: 40, ArrowUp: -40, PageDown: page, PageUp: -page, ' ': mods.shift ? -page : page }[k];
    if (dy) W.scrollBy({ top: dy, behavior: 'instant' });
    if (k === 'Home') W.scrollTo({ top: 0, behavior: 'instant' });
    if (k === 'End') W.scrollTo({ top: W.document.documentElement.scrollHeight, behavior: 'instant' });
  }
}

const CARET_KEYS = /^(ArrowLeft|ArrowRight|Home|End)$/;

// The caret of a text field moved by `k` as the browser's own key moves it (by a character, by a
// word with Control, to the line's start or end), the selection grown or shrunk from its anchor
// with Shift. A synthetic key moves nothing: Shift+ArrowLeft in a textarea said "Pressed" and
// selected nothing, and the text typed next went to the end. False for a field with no caret to
// move (email, number: no selection API).
function caretKey(el, k, shift, word) {
  let s, e, dir;
  try { s = el.selectionStart; e = el.selectionEnd; dir = el.selectionDirection; } catch { return false; }
  if (s == null) return false;
  const v = el.value;
  let anchor = dir === 'backward' ? e : s, focus = dir === 'backward' ? s : e;
  // (a selection and an arrow without Shift: the caret goes to that end of it)
  if (!shift && s !== e && (k === 'ArrowLeft' || k === 'ArrowRight') && !word) focus = k === 'ArrowLeft' ? s : e;
  else {
    const low = (i) => /[\uDC00-\uDFFF]/.test(v[i] || '');
    const left = (i) => Math.max(0, i - (low(i - 1) ? 2 : 1)), right = (i) => Math.min(v.length, i + (low(i + 1) ? 2 : 1));
    const wordLeft = (i) => { while (i > 0 && !/[\p{L}\p{N}_]/u.test(v[i - 1])) i--; while (i > 0 && /[\p{L}\p{N}_]/u.test(v[i - 1])) i--; return i; };
    const wordRight = (i) => { while (i < v.length && !/[\p{L}\p{N}_]/u.test(v[i])) i++; while (i < v.length && /[\p{L}\p{N}_]/u.test(v[i])) i++; return i; };
    const lineStart = (i) => v.lastIndexOf('\n', i - 1) + 1;
    const lineEnd = (i) => { const j = v.indexOf('\n', i); return j < 0 ? v.length : j; };
    if (k === 'ArrowLeft') focus = word ? wordLeft(focus) : left(focus);
    else if (k === 'ArrowRight') focus = word ? wordRight(focus) : right(focus);
    else if (k === 'Home') focus = word ? 0 : lineStart(focus);
    else focus = word ? v.length : lineEnd(focus);
  }
  if (!shift) anchor = focus;
  el.setSelectionRange(Math.min(anchor, focus), Math.max(anchor, focus), focus < anchor ? 'backward' : 'forward');
  return true;
}

// Backspace or Delete in a text field, as the browser's: the selection taken out, else the
// character before (after) the caret; a field with no caret to read loses its last character.
function deleteKey(el, k) {
  const v = el.value;
  let s, e;
  try { s = el.selectionStart; e = el.selectionEnd; } catch { s = null; }
  if (s == null) { s = k === 'Backspace' ? Math.max(0, v.length - 1) : v.length; e = v.length; }
  else if (s === e) {
    if (k === 'Backspace') s = Math.max(0, s - (/[\uDC00-\uDFFF]/.test(v[s - 1] || '') ? 2 : 1));
    else e = Math.min(v.length, e + (/[\uD800-\uDBFF]/.test(v[e] || '') ? 2 : 1));
  }
  if (s === e) return;
  setValue(el, v.slice(0, s) + v.slice(e));
  try { el.setSelectionRange(s, s); } catch { /* no caret */ }
  inputEvent(el, k === 'Backspace' ? 'deleteContentBackward' : 'deleteContentForward');
}

// What the browser's Escape closes: the top modal <dialog> (after its cancelable "cancel" event,
// as the browser fires it), else the last open auto popover. A synthetic Escape did neither: it said
// "Pressed Escape" with Materialize's <dialog> still open and the page behind it inert.
function closeTopLayer(doc) {
  const modal = Array.from(doc.querySelectorAll('dialog[open]')).filter((d) => d.matches(':modal')).pop();
  if (modal) {
    if (modal.dispatchEvent(new (doc.defaultView.Event)('cancel', { cancelable: true }))) modal.close();
    return;
  }
  const pop = Array.from(doc.querySelectorAll('[popover]')).filter((p) => p.getAttribute('popover') !== 'manual' && p.matches(':popover-open')).pop();
  try { pop?.hidePopover(); } catch { /* gone meanwhile */ }
}

// A slider or number field a key moves, as the browser's own keys do (a synthetic key does nothing
// by itself: ArrowRight on Bootstrap's range said "Pressed" and left it at 50).
const steps = (el) => el.tagName === 'INPUT' && /^(range|number)$/.test(inputType(el)) && !el.disabled && !el.readOnly;
const STEP_KEYS = /^(Arrow(Up|Down|Left|Right)|Page(Up|Down)|Home|End)$/;

// The browser's step for `k` on a range (arrows by its step, Page keys by a tenth of its span, Home
// and End to its ends) or a number field (ArrowUp/ArrowDown by its step), with the input and change
// events it fires; nothing when the value does not move (at an end).
// A range of step="any" (media-chrome's seek and volume bars) has no step for stepUp(), which
// throws: an arrow moves it by a hundredth of its span, as Chromium's own keys do.
function stepKey(el, k) {
  const range = inputType(el) === 'range';
  if (!range && k !== 'ArrowUp' && k !== 'ArrowDown') return;
  const before = el.value;
  const num = (v, d) => (v === '' || Number.isNaN(Number(v)) ? d : Number(v));
  const min = num(el.min, range ? 0 : NaN), max = num(el.max, range ? 100 : NaN);
  const any = range && String(el.step).trim().toLowerCase() === 'any';
  const to = (v) => setValue(el, String(+Math.min(max, Math.max(min, v)).toFixed(10)));
  try {
    if (k === 'Home') setValue(el, String(min));
    else if (k === 'End') setValue(el, String(max));
    else if (k === 'PageUp' || k === 'PageDown') {
      const d = Math.max(any ? 0 : num(el.step, 1), (max - min) / 10);
      to(num(el.value, min) + (k === 'PageUp' ? d : -d));
    } else if (any) to(num(el.value, min) + ((k === 'ArrowUp' || k === 'ArrowRight') ? 1 : -1) * (max - min) / 100);
    else if (k === 'ArrowUp' || k === 'ArrowRight') el.stepUp();
    else el.stepDown();
  } catch { return; }
  if (el.value === before) return;
  el.dispatchEvent(new (winOf(el).Event)('input', { bubbles: true, composed: true }));
  changeEvent(el);
}

// A range input dragged to the point x of the viewport: where a person lets go of its thumb is its
// value (its span along its width, its step kept, right to left as it is drawn), with the input
// and change events its own drag fires. A native range takes no synthetic pointer events: a drag
// moved nothing and said "Dragged". Returns whether its value moved.
export function dragRangeTo(el, x) {
  const num = (v, d) => (v === '' || Number.isNaN(Number(v)) ? d : Number(v));
  const min = num(el.min, 0), max = Math.max(min, num(el.max, 100));
  const r = el.getBoundingClientRect();
  let f = r.width > 0 ? Math.min(1, Math.max(0, (x - r.left) / r.width)) : 0;
  if (styleOf(el)?.direction === 'rtl') f = 1 - f;
  const step = String(el.step).trim().toLowerCase() === 'any' ? 0 : num(el.step, 1);
  let v = min + f * (max - min);
  if (step > 0) v = Math.min(max, min + Math.round((v - min) / step) * step);
  else if (max > min) { const q = 10 ** Math.floor(Math.log10((max - min) / 1000)); v = Math.round(v / q) * q; } // (no finer than a pixel's worth)
  const before = el.value;
  el.focus();
  setValue(el, String(+v.toFixed(10)));
  if (el.value === before) return false;
  el.dispatchEvent(new (winOf(el).Event)('input', { bubbles: true, composed: true }));
  changeEvent(el);
  return true;
}

function scrollable(el) {
  const st = winOf(el).getComputedStyle(el);
  return /(auto|scroll|overlay)/.test(st.overflowY) && el.scrollHeight > el.clientHeight + 1;
}

// The element that scrolls the page: the document, or (for app-like pages whose
// body doesn't scroll) the largest scrollable element.
function mainScroller() {
  const se = document.scrollingElement || document.documentElement;
  if (se.scrollHeight > se.clientHeight + 1) return se;
  let best = null, area = 0;
  for (const el of document.querySelectorAll('*')) {
    if (el.clientHeight < 50 || !scrollable(el)) continue;
    const a = el.clientWidth * el.clientHeight;
    if (a > area) { area = a; best = el; }
  }
  return best || se;
}

const upperFirst = (t) => t.charAt(0).toUpperCase() + t.slice(1);

// The box the last scroll left at its bottom, and its height then: a page that loads more as its
// end shows (a feed) grows after that scroll's answer said "at the bottom".
let lastBottom = null;

// How the box the last scroll left at its bottom has grown since (null: it has not, or that is not
// known): read once, after the scroll's effects have settled. `more`: it holds more elements than
// then (a feed appended items); a virtual list that measured its drawn rows anew grows as much
// with no element added (15 px: it was "more loaded below").
export function grownSince() {
  const b = lastBottom;
  lastBottom = null;
  const box = b?.box.deref();
  if (!box || !box.isConnected) return null;
  const h = box.scrollHeight;
  if (h <= b.height + 2) return null;
  return { from: Math.round(b.height), to: Math.round(h), atBottom: box.scrollTop + box.clientHeight >= h - 2, more: box.getElementsByTagName('*').length > b.count };
}

export async function scroll(el, direction = 'down', amount) {
  lastBottom = null;
  let box = null;
  if (el) {
    // the box that scrolls it as rendered: through the <slot> a slotted element is shown in and out
    // of shadow roots (a grid's cells are light DOM shown in the scroller of its shadow root)
    for (let n = el; n && n.nodeType === 1; n = n.assignedSlot || n.parentElement || n.parentNode?.host) if (scrollable(n)) { box = n; break; }
    if (!box && !direction) { scrollIntoView(el); return { message: `Scrolled ${describe(el)} into view` }; }
    if (!box) {
      const r = await scrollEditor(el, String(direction || 'down').toLowerCase());
      if (r) return r;
    }
  }
  box = box || mainScroller();
  const viewH = box === document.scrollingElement ? window.innerHeight : box.clientHeight;
  const dist = Number(amount) > 0 ? Number(amount) : Math.round(viewH * 0.8);
  const dir = String(direction || 'down').toLowerCase();
  const before = box.scrollTop, beforeLeft = box.scrollLeft;
  if (dir === 'up') box.scrollBy({ top: -dist, behavior: 'instant' });
  else if (dir === 'down') box.scrollBy({ top: dist, behavior: 'instant' });
  else if (dir === 'top') box.scrollTo({ top: 0, behavior: 'instant' });
  else if (dir === 'bottom') box.scrollTo({ top: box.scrollHeight, behavior: 'instant' });
  else if (dir === 'left') box.scrollBy({ left: -dist, behavior: 'instant' });
  else if (dir === 'right') box.scrollBy({ left: dist, behavior: 'instant' });
  else throw new Error(`direction must be up, down, top or bottom (got "${direction}")`);
  const atBottom = box.scrollTop + box.clientHeight >= box.scrollHeight - 2;
  const where = box === document.scrollingElement ? 'the page' : describe(box);
  // Nothing moved: said, not reported as a scroll (an agent scrolling for more learns there is none).
  const sideways = dir === 'left' || dir === 'right';
  if ((sideways ? box.scrollLeft : box.scrollTop) === (sideways ? beforeLeft : before)) {
    const fits = sideways ? box.scrollWidth <= box.clientWidth + 1 : box.scrollHeight <= box.clientHeight + 1;
    const edge = { down: 'bottom', bottom: 'bottom', up: 'top', top: 'top', left: 'left end', right: 'right end' }[dir];
    const e = new Error(fits ? `${upperFirst(where)} does not scroll: all of it fits in ${box === document.scrollingElement ? 'the window' : 'its box'}; nothing scrolled.`
      : `${upperFirst(where)} is already at the ${edge}; nothing scrolled ${dir}.`);
    e.code = 'unchanged';
    throw e;
  }
  if (atBottom && !sideways) lastBottom = { box: new WeakRef(box), height: box.scrollHeight, count: box.getElementsByTagName('*').length };
  return { message: `Scrolled ${where} ${dir} (from ${Math.round(before)} to ${Math.round(box.scrollTop)} px${atBottom ? ', at the bottom' : ''}${box.scrollTop === 0 ? ', at the top' : ''})`, atBottom: atBottom && !sideways };
}

// A code editor that draws only the lines in view and scrolls them itself, not as a scrolling box
// (widgets.js drawnEditor: Monaco, which takes no synthetic wheel): scrolled as a keyboard user
// does, by its keys (PageDown, PageUp; Control+End, Control+Home), which move its caret with the
// view; reported when what it shows changed by the page's next frame, else null (the caller
// then scrolls the page).
const EDITOR_SCROLL_KEYS = { up: ['PageUp'], down: ['PageDown'], top: ['Home', { ctrl: true }], bottom: ['End', { ctrl: true }] };
async function scrollEditor(el, dir) {
  const d = drawnEditor(el);
  const k = EDITOR_SCROLL_KEYS[dir];
  if (!d || !k) return null;
  const shows = () => { try { return d.face.innerText; } catch { return d.face.textContent; } };
  const before = shows();
  if (focusedElement(el.ownerDocument) !== el) el.focus();
  editorKeys(el, [k]);
  const W = winOf(el);
  await new Promise((res) => { W.requestAnimationFrame(() => res()); W.setTimeout(res, 100); });
  if (shows() === before) return null;
  return { message: `Scrolled ${describe(el)} ${dir} with its ${k[1] ? 'Control+' : ''}${k[0]} key (the editor moves its caret with the lines it shows)` };
}

// For wait_for: is the text / selector there (and visible)?
export function checkPresence({ text, selector }) {
  if (selector) {
    for (const r of allRoots()) {
      let list;
      try { list = r.querySelectorAll(selector); } catch (e) { if (r === document) throw new Error(`invalid selector ${JSON.stringify(selector)}`); continue; }
      for (const el of list) if (isVisibleBox(el)) return true;
    }
    return false;
  }
  const want = norm(text).toLowerCase();
  for (const r of allRoots()) {
    const base = r.nodeType === 9 ? r.body : r;
    if (!base) continue;
    let t = '';
    if (r.nodeType === 9) t = base.innerText || '';
    else for (const c of base.children) t += ' ' + (c.innerText || '');
    if (norm(t).toLowerCase().includes(want) && seenIn(base, want)) return true;
    // form field values count too (e.g. a field that gets filled in)
  }
  return false;
}

// Whether text innerText found is also text a user sees, as the snapshot shows it: not in a
// transparent or aria-hidden part (the page behind a modal that hides it from the Markdown, a
// tile's message shown only on hover), so that wait_for never says "on the page" about text the
// page it returns does not show. A very large page keeps innerText's answer (bounded work).
const SEEN_MAX = 20_000;
function seenIn(base, want) {
  if ((base.getElementsByTagName?.('*') || base.querySelectorAll('*')).length > SEEN_MAX) return true;
  // (compared without spaces: innerText breaks lines at a <br> where seenText puts nothing)
  const bare = (s) => s.toLowerCase().replace(/\s+/g, '');
  return bare(withStyleCache(() => seenText(base, SEEN_MAX * 4))).includes(bare(want));
}
