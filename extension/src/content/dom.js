// DOM helpers shared by the snapshot, targeting and actions. Everything here only
// reads the page; nothing from the page is ever evaluated.

import { seenText, holdsUnseenText } from './hidden.js';
import { hoverFollow, pageSelector } from './hovercss.js';
// Text as a user reads it: white space collapsed, zero-width characters (which show nothing: an
// editor's caret filler, a word joiner) dropped.
export const norm = (s) => String(s ?? '').replace(/[\u00AD\u200B-\u200D\u2060\uFEFF]/g, '').replace(/\s+/g, ' ').trim();
export const clip = (s, n = 100) => (s.length > n ? s.slice(0, n - 1) + '…' : s);

// An element's parent as it is drawn (the flat tree): the slot it is assigned to, else its parent,
// else the host of the shadow root it is at the top of; none for a child of an open shadow root's
// host that no slot takes (drawn nowhere; a closed root tells no element its slot).
export function flatParent(n) {
  if (n.assignedSlot) return n.assignedSlot;
  const p = n.parentNode;
  if (!p) return null;
  if (p.nodeType === 11) return p.host || null;
  if (p.nodeType !== 1) return null;
  return p.shadowRoot && n.nodeType === 1 ? null : p;
}

// Schemes a browser shows in the tab itself; a link to any other (mailto:, tel:, sms:, an app's
// own such as zoommtg:) is handed to another application, and the tab stays on its page.
const TAB_SCHEMES = new Set(['http:', 'https:', 'file:', 'ftp:', 'about:', 'data:', 'blob:', 'javascript:', 'chrome:',
  'chrome-extension:', 'edge:', 'view-source:', 'filesystem:']);

// The address of the link holding `el` when the browser hands it to another application, else null.
export function externalLink(el) {
  const a = el?.closest?.('a[href], area[href]');
  if (!a) return null;
  let u;
  try { u = new URL(a.href); } catch { return null; }
  return TAB_SCHEMES.has(u.protocol) ? null : u.href.slice(0, 2000);
}

// An element's shadow root, open or closed. A closed one is drawn for a user like any other (a
// login form inside a component): the page cannot reach into it, but the extension may
// (chrome.dom.openOrClosedShadowRoot); without it the agent saw nothing of what the user sees.
// Asked of custom elements only, where components attach them: asked of every element, it made
// a 20,000-element page's snapshot 200-300 ms slower (560-650 -> 710-860 ms per get_page).
const openOrClosed = globalThis.chrome?.dom?.openOrClosedShadowRoot;
export function shadowOf(el) {
  const open = el?.shadowRoot;
  if (open !== undefined && open !== null) return open;
  if (!openOrClosed || el?.nodeType !== 1 || !el.localName.includes('-')) return null;
  try { return openOrClosed(el) || null; } catch { return null; }
}

export function winOf(el) {
  return el.ownerDocument?.defaultView || window;
}

// An ARIA attribute of `el` as the browser reads it: the element's own attribute, else, for a
// custom element, the default its class set in its ElementInternals (attachInternals(): RHDS's
// rh-switch keeps its role, checked state and label there, and showed as [clickable] with none of
// them), which the page's own world reads for us (page/isolated.js internals). Null when neither
// says. Each element's internals are read once per task: a walk asks for the same ones again.
const internalsCache = new Map();
export function ariaOf(el, attr) {
  const v = el.getAttribute(attr);
  if (v !== null) return v;
  if (el.localName?.includes('-')) {
    let d = internalsCache.get(el);
    if (d === undefined) {
      try { d = (winOf(el).__bbPage || globalThis.__bbPage)?.internals?.(el) || null; } catch { d = null; }
      if (!internalsCache.size) queueMicrotask(() => internalsCache.clear());
      internalsCache.set(el, d);
    }
    if (d && typeof d[attr] === 'string') return d[attr];
  }
  return HOST_STATES.has(attr) ? hostState(el, attr) : null;
}

const HOST_STATES = new Set(['aria-expanded', 'aria-pressed', 'aria-selected', 'aria-checked']);
// Roles of a host that is no control itself: what it holds is.
const NOT_CONTROL_ROLES = new Set(['', 'none', 'presentation', 'generic', 'heading']);
const SHADOW_CONTROL = 'button,a[href],input:not([type=hidden]),select,textarea,summary,[tabindex],[contenteditable],' +
  '[role=button],[role=link],[role=checkbox],[role=switch],[role=radio],[role=tab],[role=option],[role=combobox],[role^=menuitem],[role=treeitem]';

// The state (aria-expanded, -pressed, -selected, -checked) that the host of the shadow root `el`
// is in gives, when `el` is the only control in that root and the host is no control itself (no
// role, or a heading): RHDS's rh-accordion-header keeps ariaExpanded in its ElementInternals (its
// role heading), and the <button> in its shadow root a user clicks showed no `expanded`. Else null.
function hostState(el, attr) {
  const root = el.getRootNode?.();
  const host = root && root.nodeType === 11 ? root.host : null;
  if (!host) return null;
  const v = ariaOf(host, attr);
  if (v === null || !NOT_CONTROL_ROLES.has(roleOf(host))) return null;
  const inner = root.querySelectorAll(SHADOW_CONTROL);
  return inner.length === 1 && inner[0] === el ? v : null;
}

// Computed styles, cached for the length of one short synchronous check (is this candidate and
// each of its ancestors visible, has it a visible widget): the same ancestors' styles are asked
// for again and again. Not for a whole-page walk: there each element's style is read once, and a
// cache measured slower (bench/extmd.mjs) than asking the browser, which caches them itself.
let styleCache = null;

export function styleOf(el) {
  if (styleCache) {
    let st = styleCache.get(el);
    if (st === undefined) {
      try { st = winOf(el).getComputedStyle(el); } catch { st = null; }
      styleCache.set(el, st);
    }
    return st;
  }
  try { return winOf(el).getComputedStyle(el); } catch { return null; }
}

// Run fn with the style cache on (nested calls share the outer cache).
export function withStyleCache(fn) {
  if (styleCache) return fn();
  styleCache = new Map();
  try { return fn(); } finally { styleCache = null; }
}


export function inputType(el) {
  return (el.getAttribute('type') || 'text').toLowerCase();
}

export function isEditable(el) {
  if (el.tagName === 'TEXTAREA') return true;
  if (el.tagName === 'INPUT') {
    return !['hidden', 'checkbox', 'radio', 'submit', 'button', 'reset', 'image', 'file'].includes(inputType(el));
  }
  return !!el.isContentEditable;
}

// The element that has the keyboard focus, through open shadow roots (its document's body when
// none has): where a user's next key goes.
export function focusedElement(doc) {
  let a = doc.activeElement;
  while (a && shadowOf(a) && shadowOf(a).activeElement) a = shadowOf(a).activeElement;
  return a;
}

// The input types a user types text into (not a checkbox, a date picker or a colour).
export const TEXT_INPUT_TYPES = /^(text|search|email|url|tel|password|number|)$/;

// The roles whose element a page disables with the plain `disabled` attribute, meaningless to the
// browser outside form controls, yet drawn and handled as disabled (Carbon's <a role=tab disabled>
// and its dropdown items: a click "succeeded" and changed nothing).
const ATTR_DISABLED_ROLES = new Set(['option', 'tab', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'treeitem', 'button', 'switch', 'checkbox', 'radio']);

export function isDisabled(el) {
  if (el.disabled === true) return true;
  if (ariaOf(el, 'aria-disabled') === 'true') return true;
  if (el.disabled === undefined && el.hasAttribute?.('disabled') && ATTR_DISABLED_ROLES.has(roleOf(el))) return true;
  const fs = el.closest?.('fieldset[disabled]');
  return !!(fs && !fs.querySelector('legend')?.contains(el));
}

// Inside an inert part of the page (the inert attribute on it or an ancestor, across shadow
// roots; outside an open modal <dialog>): shown, but the browser lets no user click, focus or
// type into it (a page behind its own modal, a drawer kept in place while closed, a step of a
// wizard not reached yet).
export function isInert(el) {
  for (let n = el, i = 0; n && i < 50; i++) {
    if (n.closest?.('[inert]')) return true;
    n = n.getRootNode?.()?.host || null;
  }
  // a modal <dialog> (showModal()) makes the rest of its document inert
  const doc = el.ownerDocument;
  const modal = doc ? modalDialogOf(doc) : null;
  if (!modal) return false;
  for (let n = el, i = 0; n && i < 200; i++) {
    if (n === modal || (n.nodeType === 1 && n.hasAttribute('popover') && openPopover(n))) return false; // (a popover shows above it)
    n = n.parentNode || n.host || null;
  }
  return true;
}

// The document's open modal <dialog> (showModal()) when `el` is outside it, or null.
export function modalDialog(el) {
  const d = el?.ownerDocument ? modalDialogOf(el.ownerDocument) : null;
  return d && !d.contains(el) ? d : null;
}

const openPopover = (n) => { try { return n.matches(':popover-open'); } catch { return false; } };

// The document's open modal <dialog>, or null: looked up once per task (a snapshot asks for
// every control of the page in one; the next action may have closed it).
const modals = new Map(); // document -> its modal dialog or null, until the current task ends
function modalDialogOf(doc) {
  if (modals.has(doc)) return modals.get(doc);
  let d = null;
  try { for (const x of doc.querySelectorAll('dialog[open]')) if (x.matches(':modal')) d = x; } catch { d = null; }
  if (!modals.size) queueMicrotask(() => modals.clear());
  modals.set(doc, d);
  return d;
}

// Does the element render (its own box)? display:contents counts as visible: its
// children may be.
export function isRendered(el, st = styleOf(el)) {
  if (!st) return false;
  if (st.display === 'none') return false;
  if (st.visibility === 'hidden' || st.visibility === 'collapse') return false;
  if (st.contentVisibility === 'hidden') return false;
  return true;
}

// For ranking targets: visible and with a non-empty box, inside the page.
export function isVisibleBox(el) {
  if (!el.isConnected) return false;
  if (el.checkVisibility && !el.checkVisibility({ visibilityProperty: true })) {
    // opacity-0 native checkboxes/radios styled via their label still work: count them.
    return false;
  }
  const r = el.getBoundingClientRect();
  return r.width > 0 && r.height > 0;
}

export function inViewport(el) {
  const r = el.getBoundingClientRect();
  const w = winOf(el);
  return r.bottom > 0 && r.right > 0 && r.top < w.innerHeight && r.left < w.innerWidth;
}

const ROLE_KIND = {
  button: 'button', link: 'link', checkbox: 'checkbox', radio: 'radio', switch: 'checkbox',
  tab: 'tab', menuitem: 'menuitem', menuitemcheckbox: 'checkbox', menuitemradio: 'radio',
  option: 'option', combobox: 'combobox', textbox: 'input', searchbox: 'input', slider: 'slider',
  spinbutton: 'input', treeitem: 'treeitem',
};

// Widget roles that win over a <button>'s own (a select drawn as <button role=combobox>, Radix's
// Select trigger, is the combobox it says it is: named by its label, showing its choice as value).
const BUTTON_ROLES = new Set(['radio', 'checkbox', 'switch', 'menuitem', 'menuitemradio', 'menuitemcheckbox', 'option', 'tab', 'combobox']);
// Widget roles that win over a link's own: all of those but menuitem, and button.
const LINK_ROLES = new Set([...BUTTON_ROLES, 'button', 'treeitem'].filter((r) => r !== 'menuitem'));
// Per document: one selector list of the page's rules that give an element a pointer cursor only
// while the pointer is over it (vanillajs-datepicker's `.datepicker-cell:not(.disabled):hover`),
// with :hover taken out; read again when the number of stylesheets changes.
const hoverPointerCache = new WeakMap();
function hoverPointerSelector(doc) {
  const sheets = doc.styleSheets;
  const c = hoverPointerCache.get(doc);
  if (c && c.n === sheets.length) return c.sel;
  const parts = [];
  let count = 0;
  const scan = (rules) => {
    for (const rule of rules) {
      if (++count > 20_000 || parts.length >= 100) return;
      if (rule.cssRules && !rule.selectorText) { scan(rule.cssRules); continue; }
      let sel = rule.selectorText;
      if (!sel || sel.indexOf(':hover') < 0 || rule.style?.cursor !== 'pointer') continue;
      sel = pageSelector(sel);
      for (const part of sel.split(',')) {
        // the :hover on the element itself (its last compound), not on an ancestor of it
        if (!/:hover[^\s>+~]*$/.test(part.trim())) continue;
        const plain = part.replace(/:hover/g, '').trim();
        try { doc.querySelector(plain); parts.push(plain); } catch { /* a selector this engine cannot match */ }
      }
    }
  };
  for (const sh of sheets) {
    let rules;
    try { rules = sh.cssRules; } catch { continue; } // cross-origin: unreadable
    if (rules) scan(rules);
  }
  const sel = parts.join(',');
  hoverPointerCache.set(doc, { n: sheets.length, sel });
  return sel;
}

// Does the page's CSS give `el`, a leaf (a calendar's day cell, an icon), a pointer cursor when
// hovered (and not before)? A box of other elements with one (a grid's row that highlights on
// hover, Tabulator's) is not made a clickable by it: the row is not a control a user reads as one.
function hoverPointer(el) {
  const doc = el.ownerDocument;
  if (!doc || el.childElementCount || el.getRootNode() !== doc) return false;
  const sel = hoverPointerSelector(doc);
  try { return !!sel && el.matches(sel); } catch { return false; }
}

// ARIA composite widgets whose items, not the container, are what a user clicks.
const CONTAINER_ROLES = new Set(['listbox', 'menu', 'menubar', 'tablist', 'tree', 'radiogroup', 'grid', 'treegrid']);
// (its own role attribute, else the one its ElementInternals give it: ariaOf)
export const roleOf = (el) => (ariaOf(el, 'role') || '').trim().split(/\s+/)[0].toLowerCase();

// The segments of a date or time field drawn as spin buttons a user types into (MUI X's pickers,
// React Aria's DateField: a role=group of role=spinbutton sections, the focus moving on as each is
// filled), in order; [] for any other element. A user sees one field ("03/14/2026") and types into it.
// (controlKind asks this of every role=group, a tree's included, on each walk: only its first
// SEGMENT_DEPTH levels and SEGMENT_LOOK elements are looked at, where the pickers keep theirs —
// React Spectrum's 6 and 7 levels down, a range's six after ≈ 70 elements — not the whole subtree
// of a large group.)
const SEGMENT_DEPTH = 8;
const SEGMENT_LOOK = 120;
export function segmentsOf(el) {
  if (roleOf(el) !== 'group') return [];
  const s = [];
  let looked = 0;
  const walk = (n, depth) => {
    for (let c = n.firstElementChild; c && looked < SEGMENT_LOOK; c = c.nextElementSibling) {
      looked++;
      if (roleOf(c) === 'spinbutton') s.push(c);
      else if (depth < SEGMENT_DEPTH) walk(c, depth + 1);
    }
  };
  walk(el, 1);
  return s.length >= 2 && s.length <= 8 && s.every((x) => x.isContentEditable) ? s : [];
}

// Does another element point at `el` as its pop-up (aria-controls or aria-owns naming its id)?
function popupOfAnother(el) {
  if (!el.id) return false;
  try {
    const id = CSS.escape(el.id);
    return !!el.getRootNode().querySelector?.(`[aria-controls~="${id}"]:not([id="${id}"]), [aria-owns~="${id}"]:not([id="${id}"])`);
  } catch { return false; }
}

// The native input a field drawn as segments keeps inside it for forms (Reka's DateField: a hidden
// <input type=date> its <label for> points at), or null.
function formInputIn(group) {
  for (const i of group.querySelectorAll(':scope > input, :scope > * > input')) if (i.type !== 'hidden' || i.labels?.length) return i;
  return null;
}

// The label of the native input a field drawn as segments keeps inside it ('' if none).
export function formInputLabel(group) {
  const h = formInputIn(group);
  return h ? labelsText(h) : '';
}

// The field drawn as segments that `el`, the native input it keeps inside it, stands in for; null
// for any other element (a target naming that input's label means the field a user sees).
export function segmentedFieldOf(el) {
  if (el?.tagName !== 'INPUT') return null;
  for (let g = el.parentElement, i = 0; g && i < 2; g = g.parentElement, i++) {
    if (roleOf(g) === 'group') return segmentsOf(g).length && formInputIn(g) === el ? g : null;
  }
  return null;
}

// A segment's part by its data-type (React Aria) or its name ("month, Start Date", MUI X's
// "Month"): year, month, day, hour, minute or second; '' for another (AM/PM, an era).
export const segmentPart = (x) => ((x.getAttribute('data-type') || x.getAttribute('aria-label') || '').trim().toLowerCase().match(/^(year|month|day|hour|minute|second)\b/) || [])[1] || '';

// What, inside a web component's shadow root, is the real control of its host.
const INNER_CONTROL = 'button,a[href],input:not([type=hidden]),select,textarea,[role],[contenteditable]';

// A pop-up control drawn by a custom element: its open shadow root's only native control is a
// visually hidden <button> or <input> that opens a pop-up (aria-haspopup: a listbox, menu or
// dialog of choices), laid over the field a user sees (Ionic's ion-select and other Stencil-based
// design systems: a transparent, clipped <button aria-haspopup=dialog> beside an aria-hidden text
// showing the choice). The host is the control a user sees and acts on. Returns the inner control.
export function hiddenPopupControl(host) {
  const sr = shadowOf(host);
  if (!sr) return null;
  const ctls = sr.querySelectorAll('button,input:not([type=hidden]),select,textarea');
  if (ctls.length !== 1) return null;
  const c = ctls[0];
  if (c.tagName !== 'BUTTON' && c.tagName !== 'INPUT') return null;
  const pop = (c.getAttribute('aria-haspopup') || '').toLowerCase();
  if (!['listbox', 'menu', 'dialog', 'true', 'tree', 'grid'].includes(pop)) return null;
  const st = styleOf(c);
  if (!st || st.display === 'none') return null;
  const r = c.getBoundingClientRect();
  const hidden = st.opacity === '0' || /^rect\(0(px)?,? 0(px)?,? 0(px)?,? 0(px)?\)$/.test(st.clip) ||
    (r.width <= 1 && r.height <= 1);
  return hidden ? c : null;
}

// The text of a node through open shadow roots and slots, without aria-hidden parts, form controls,
// or the lists it pops up (a listbox kept for screen readers: Calcite's combobox was named "City
// Berlin Paris Lyon Berlin Tokyo"): the label a pop-up control's host shows beside its choice.
function labelTextOf(node) {
  const out = [];
  const walk = (n) => {
    if (n.nodeType === 3) { out.push(n.data); return; }
    if (n.nodeType === 11) { for (let c = n.firstChild; c; c = c.nextSibling) walk(c); return; }
    if (n.nodeType !== 1 || NO_TEXT.has(n.tagName) || CONTROL_TAGS.has(n.tagName)) return;
    if (n.getAttribute('aria-hidden') === 'true' || POPUP_LIST_ROLES.has(roleOf(n))) return;
    const st = styleOf(n);
    if (st && !isRendered(n, st)) return;
    if (n.tagName === 'SLOT') {
      const a = n.assignedNodes({ flatten: true });
      if (a.length) { for (const c of a) walk(c); return; }
    }
    if (shadowOf(n)) { walk(shadowOf(n)); return; }
    for (let c = n.firstChild; c; c = c.nextSibling) walk(c);
  };
  walk(node);
  return norm(out.join(' '));
}

const POPUP_LIST_ROLES = new Set(['listbox', 'menu', 'tree', 'grid', 'dialog']);

// The name of a pop-up control's host: its aria-label, else the label it shows (its text that is
// not aria-hidden), else its inner control's name. The inner control's own name alone when that
// text is it followed by more: the choice shown beside it (Calcite's combobox, "City" and its
// choice "Berlin" drawn plain, was named "City Berlin").
function popupHostName(el, c) {
  const own = norm(c.getAttribute('aria-label')) || labelsText(c);
  const shown = labelTextOf(shadowOf(el));
  return norm(el.getAttribute('aria-label')) || (own && shown.startsWith(own + ' ') ? own : shown) || own;
}

// Is `el` (a box with a pointer cursor and no role) only the frame of one control inside it that
// says what it is by its role, with the same text (antd draws each tab as a pointer <div>, holding
// the click handler, around its <div role=tab aria-selected>)? The inner control, with its role and
// state, is what a user acts on and reads; the frame is no control of its own.
function wrapsRoleControl(el) {
  if (!el.childElementCount) return false;
  const text = norm(el.textContent);
  if (!text) return filledByRoleControl(el);
  if (wrapsLabelledBox(el, text)) return true;
  let n = 0;
  for (const c of el.querySelectorAll('[role]')) {
    if (++n > 50) return false;
    const k = ROLE_KIND[roleOf(c)];
    if (k && k !== 'input' && k !== 'combobox' && norm(c.textContent) === text) return true;
  }
  return false;
}

// A box around one checkbox or radio and its label, with no other words (Fluent UI's Checkbox
// root has the pointer cursor; an unnamed clickable beside the checkbox could take its label's
// clicks): the control is what a user clicks there.
function wrapsLabelledBox(el, text) {
  const boxes = el.querySelectorAll('input[type=checkbox],input[type=radio]');
  if (boxes.length !== 1) return false;
  return Array.from(boxes[0].labels || []).some((l) => el.contains(l) && norm(l.textContent) === text);
}

// A box with no text that one role control inside fills (a rating's <li> with a pointer cursor
// around its role=radio star): the control is what a user clicks, not a second clickable.
function filledByRoleControl(el) {
  const inner = el.querySelectorAll('[role]');
  const c = Array.from(inner).slice(0, 20).find((x) => ROLE_KIND[roleOf(x)]);
  if (!c) return false;
  const a = el.getBoundingClientRect(), b = c.getBoundingClientRect();
  return a.width > 0 && Math.abs(a.left - b.left) <= 2 && Math.abs(a.top - b.top) <= 2 && Math.abs(a.right - b.right) <= 2 && Math.abs(a.bottom - b.bottom) <= 2;
}

// The box with role=combobox around a labelled text field, the only field in it (the ARIA 1.1
// pattern: Lion's lion-combobox puts the role, aria-expanded and aria-owns on a <div> around its
// <input>, which its label names; Algolia's autocomplete on a box around its field and its submit
// and clear buttons), or null: the field is the combobox a user types and chooses in, the box none,
// its buttons shown. (Not a box with a name or words of its own, tags or the choice shown beside a
// search field: Blueprint's MultiSelect, Semantic UI's search dropdown; that box is the widget.)
export function oneOneBox(input) {
  if (input.tagName !== 'INPUT' || input.hasAttribute('role') || !TEXT_INPUT_TYPES.test(inputType(input))) return null;
  if (!input.labels?.length && !input.hasAttribute('aria-labelledby') && !input.hasAttribute('aria-label')) return null;
  let n = input.parentElement;
  for (let i = 0; n && i < 3; n = n.parentElement, i++) {
    if (roleOf(n) !== 'combobox') continue;
    // (named by the field's own label, as Algolia's autocomplete box is, it is still the field's box)
    const named = n.hasAttribute('aria-label') || (n.hasAttribute('aria-labelledby') && n.getAttribute('aria-labelledby') !== input.getAttribute('aria-labelledby'));
    if (named || norm(n.textContent)) return null;
    return n.querySelectorAll('input:not([type=hidden]),textarea,select,[contenteditable=true]').length === 1 ? n : null;
  }
  return null;
}

// A drop-down drawn without ARIA as Fomantic UI's (Semantic UI's) jQuery dropdown is: a focusable
// box of class "dropdown" around the hidden input that holds its value and a .menu of items with
// data-value (it was a [clickable "Select country"], and select_option "click it instead").
export function classDropdown(el) {
  if (el.tagName !== 'DIV' || el.hasAttribute('role') || el.tabIndex < 0 || !el.classList?.contains('dropdown')) return false;
  return !!el.querySelector(':scope > input[type=hidden]') && !!el.querySelector(':scope > .menu > [data-value]');
}

// The <select> a Chosen drop-down stands for (the jQuery plugin draws, with no ARIA, a
// <div class="chosen-container"> right after the select it hides): that select, or null.
export function chosenSelect(el) {
  if (el.tagName !== 'DIV' || el.hasAttribute('role') || !el.classList?.contains('chosen-container')) return null;
  const s = el.previousElementSibling;
  return s?.tagName === 'SELECT' ? s : null;
}

// The list a drop-down drawn without ARIA holds (Fomantic UI's .menu; Chosen's .chosen-drop, while
// it is open: closed, it is only clipped to nothing), or null.
export function ownList(el) {
  if (classDropdown(el)) return el.querySelector(':scope > .menu');
  if (chosenSelect(el)) return el.classList.contains('chosen-with-drop') ? el.querySelector(':scope > .chosen-drop') : null;
  return null;
}

// The text field a role=combobox box holds as an ARIA 1.1 combobox (see oneOneBox), or null.
function oneOneField(box) {
  const f = box.querySelector('input');
  return f && oneOneBox(f) === box ? f : null;
}

// What kind of interactive element this is, or null. `st` is its computed style.
export function controlKind(el, st) {
  const tag = el.tagName;
  switch (tag) {
    // a link with an explicit widget role is that widget (Leaflet's zoom and close buttons are
    // <a href="#" role=button>; Bootstrap's tabs <a href role=tab>): a user is shown a button, not
    // a place to go; a menu item stays a link (its address is where it goes)
    case 'A': if (el.hasAttribute('href')) return LINK_ROLES.has(roleOf(el)) ? ROLE_KIND[roleOf(el)] : 'link'; break;
    // a button with an explicit widget role is that widget (Ionic's alert draws its radio choices
    // as <button role=radio aria-checked>): its state is what a user sees
    case 'BUTTON': return BUTTON_ROLES.has(roleOf(el)) ? ROLE_KIND[roleOf(el)] : 'button';
    case 'SELECT': return 'select';
    case 'TEXTAREA': return 'textarea';
    case 'SUMMARY': return 'button';
    case 'INPUT': {
      const t = inputType(el);
      if (t === 'hidden') return null;
      if (t === 'checkbox' || t === 'radio') return t;
      if (t === 'submit' || t === 'button' || t === 'reset' || t === 'image') return 'button';
      return 'input';
    }
    default: break;
  }
  const role = roleOf(el);
  // (the box of an ARIA 1.1 combobox: its field is the control, see oneOneBox)
  if (role === 'combobox' && oneOneField(el)) return null;
  if (role && ROLE_KIND[role]) return ROLE_KIND[role];
  // a listbox that opens and closes (aria-expanded on it: Semantic UI's Form.Select, the ARIA 1.0
  // drop-down) is the drop-down a user chooses in, not a container of items
  // (not one around the native select it stands for, Choices.js's: its chosen item is its option)
  // (not the open list another control points at, whose pop-up it is: Select2 4.0 marks its results
  // list aria-expanded while open, and its options were hidden in one [combobox] token, a click on
  // a disabled one "Clicked [combobox]")
  if (role === 'listbox' && el.hasAttribute('aria-expanded') && el.querySelector('[role=option]') && !el.querySelector('select') && !popupOfAnother(el)) return 'combobox';
  // a date or time field drawn as segments (MUI X's pickers, React Aria's DateField) is one field
  if (role === 'group' && segmentsOf(el).length) return 'input';
  if (shadowOf(el) && !role && hiddenPopupControl(el)) return 'combobox';
  if (!role && (classDropdown(el) || chosenSelect(el))) return 'combobox';
  if (!role && thumbPosition(el, st)) return 'slider';
  if (el.isContentEditable && !el.parentElement?.isContentEditable) return 'editable';
  if (el.hasAttribute('onclick')) return 'clickable';
  // A container of ARIA items (a listbox of options, a menu) is not itself a click target even
  // when drawn with a pointer cursor over its whole area (intl-tel-input's country list): its
  // items are, and a clickable around them would hide their refs.
  if (CONTAINER_ROLES.has(role)) return null;
  // Heuristic for <div onClick={…}> and clickable images and icons (listeners cannot be read from
  // the page): it shows a pointer cursor that its parent doesn't.
  // A custom element's host whose open shadow root holds the real control (a web component's
  // <button>, <input>, link or role element) is not a control itself: the one inside is, and it
  // is what the walk and targeting find (one element per control, not host and inner twice).
  // (or one the page's CSS gives a pointer only while hovered: the cursor a user sees on it)
  if (st && (st.cursor === 'pointer' || hoverPointer(el)) && tag !== 'LABEL' && tag !== 'HTML' && tag !== 'BODY' &&
      !(shadowOf(el) && shadowOf(el).querySelector(INNER_CONTROL)) && !wrapsRoleControl(el)) {
    // its parent as rendered: a slotted element's is the <slot> it is shown in (an option's
    // headline slotted into the option's shadow inherits the option's pointer, not a new one)
    const p = el.assignedSlot || el.parentElement || el.parentNode?.host;
    const pst = p ? styleOf(p) : null;
    if (!pst || (pst.cursor !== 'pointer' && !(p.nodeType === 1 && hoverPointer(p)))) {
      const r = el.getBoundingClientRect();
      const w = winOf(el);
      if (r.width > 0 && r.height > 0 && r.width * r.height < 0.5 * w.innerWidth * w.innerHeight &&
          (norm(el.textContent || el.getAttribute('aria-label') || el.title || el.getAttribute('alt')) ||
           tag === 'IMG' || (r.width <= 64 && r.height <= 64))) return 'clickable';
    }
  }
  return null;
}

// A slider's thumb drawn without ARIA (jQuery UI's slider: an empty <span tabindex=0> that the
// script places along its track by an inline `left: N%`, or `bottom: N%` when vertical): a
// focusable, empty, absolutely placed box of no role, far smaller than its parent along the axis
// its percentage runs. Returns { pct, vertical }, where it stands along its track, or null.
export function thumbPosition(el, st = styleOf(el)) {
  const inline = el.style;
  if (!inline || el.tabIndex < 0 || el.childElementCount || norm(el.textContent) || roleOf(el)) return null;
  const m = /^(-?[\d.]+)%$/;
  const left = m.exec(inline.left || inline.insetInlineStart || ''), bottom = m.exec(inline.bottom || '');
  // (a box placed by both axes, a colour picker's cursor, moves in two dimensions: not a slider)
  if ((!left && !bottom) || (left && m.test(inline.top || ''))) return null;
  if (!st || (st.position !== 'absolute' && st.position !== 'relative')) return null;
  const p = el.parentElement;
  if (!p) return null;
  const r = el.getBoundingClientRect(), pr = p.getBoundingClientRect();
  const vertical = !left;
  const along = vertical ? [r.height, pr.height] : [r.width, pr.width];
  if (!(along[1] >= 3 * along[0] && along[1] > 0)) return null;
  return { pct: Number((left || bottom)[1]), vertical };
}

const NO_TEXT = new Set(['SCRIPT', 'STYLE', 'TEMPLATE', 'NOSCRIPT']);
const CONTROL_TAGS = new Set(['INPUT', 'SELECT', 'TEXTAREA', 'BUTTON']);

// The text of a node as it is composed for display: through open shadow roots, and a <slot> stands
// for the nodes assigned to it (assignedNodes({flatten: true})), or its fallback content.
// skipControls leaves out the text of form controls (a label's text without its field's).
// `skipHidden`: leave out what is inside it and not rendered (display none, visibility hidden), as
// a name taken from a label does (Foundation Abide keeps its "Please enter a valid email." in the
// <label>, display none until the field is wrong: it was part of the field's name).
// `skip`: an element inside it whose text is left out (the control a label's words name).
// `padAria`: set apart what is inside it and hidden from assistive technology (aria-hidden), as
// its own words (a toggle's drawn "Off" beside its label's "Dark mode").
export function flatText(node, skipControls = false, skipHidden = false, skip = null, padAria = false) {
  const out = [];
  const walk = (n) => {
    if (n === skip) return;
    if (n.nodeType === 3) { out.push(n.data); return; }
    if (n.nodeType !== 1 && n.nodeType !== 11) return;
    if (n.nodeType === 1) {
      if (NO_TEXT.has(n.tagName) || (skipControls && CONTROL_TAGS.has(n.tagName))) return;
      if (skipHidden && n !== node && !isRendered(n)) return;
      if (padAria && n !== node && n.getAttribute('aria-hidden') === 'true') { out.push(' '); for (let c = n.firstChild; c; c = c.nextSibling) walk(c); out.push(' '); return; }
      if (n.tagName === 'SLOT') {
        const a = n.assignedNodes({ flatten: true });
        if (a.length) { for (const c of a) walk(c); return; }
      }
      if (shadowOf(n)) { for (let c = shadowOf(n).firstChild; c; c = c.nextSibling) walk(c); return; }
    }
    for (let c = n.firstChild; c; c = c.nextSibling) walk(c);
  };
  walk(node);
  return norm(out.join(''));
}

// The words a label (or an element aria-labelledby points at) gives as a name: all the words a
// user sees in it, what is hidden from assistive technology set apart as words of their own
// (Carbon's Toggle: its <label> holds an aria-hidden "Off" beside "Dark mode", and the switch was
// named "Dark modeOff"). Not left out, as the accessible-name rules would: a page could hide
// "and pay $5000" so from the name of a button a user reads it on.
function labelText(node, skipControls = false, skipHidden = false, skip = null) {
  return flatText(node, skipControls, skipHidden, skip, true);
}

// The name aria-labelledby gives: the text of each element it names, and for the element itself its
// aria-label, as the accessible-name rules read it (React Aria's tag remove button names itself and
// its tag, "Remove News", where its own text is empty; a date segment "month, Event date"). (Another
// element's aria-label is left: Algolia's search box names a <label> whose aria-label "Submit" is its
// button's, and the box a user sees shows "Search for products".)
export function textOfIds(el, ids) {
  const root = el.getRootNode();
  return norm(ids.split(/\s+/).map((id) => {
    const t = root.getElementById ? root.getElementById(id) : el.ownerDocument.getElementById(id);
    // (an element around it is read without it: the tag that names its remove button, "ⓧ" left out)
    return t ? (t === el && norm(t.getAttribute('aria-label') || '')) || labelText(t, false, false, t === el ? null : el) : '';
  }).join(' '));
}

const ITEM_SEL = '[role=treeitem],[role=group]';
export const SUBMENU_SEL = '[role=menu],[role=group]';

// The rendered text of a tree item outside the items and groups nested in it (its label, a
// count beside it): what a user reads on its row. (`sel`: a menu item's submenu, instead.)
export function ownItemText(el, sel = ITEM_SEL) {
  const out = [];
  const panels = sel === ITEM_SEL ? itemPanels(el) : [];
  const w = el.ownerDocument.createTreeWalker(el, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT, {
    acceptNode: (n) => (n.nodeType === 1 && (n.matches(sel) || panels.includes(n) || !n.checkVisibility?.({ visibilityProperty: true })) ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT),
  });
  for (let n = w.nextNode(), i = 0; n && i < 5000; n = w.nextNode(), i++) if (n.nodeType === 3) out.push(n.data);
  return norm(out.join(' '));
}

const PANEL_TAGS = /^(DIV|SECTION|ARTICLE|FORM|P|UL|OL|DL|TABLE|FIELDSET)$/;

// The parts of a tree item drawn as a panel under its row (Kendo's PanelBar: a <div> of text and
// fields after the item's link): its children after the first that shows words, that are blocks
// holding words or fields and hold no tree items or groups. [] for a plain item (its label and a
// group of items under it). A user reads the row as the item; the panel is the page's content.
export function itemPanels(el) {
  if (el.getAttribute?.('role') !== 'treeitem' || el.childElementCount < 2) return [];
  const kids = Array.from(el.children).slice(0, 20);
  const head = kids.findIndex((k) => norm(k.textContent));
  if (head < 0) return [];
  return kids.slice(head + 1).filter((k) => PANEL_TAGS.test(k.tagName) && !k.hasAttribute('role') && !k.matches(ITEM_SEL) && !k.querySelector(ITEM_SEL) &&
    (norm(k.textContent) || k.querySelector('input,select,textarea,button')));
}

// The row of a tree item that has panels (itemPanels): its first child that shows words, where a
// user clicks it; null for an item without panels.
export function itemRow(el) {
  if (!itemPanels(el).length) return null;
  return Array.from(el.children).find((k) => norm(k.textContent)) || null;
}

// The tree items directly under the tree item `el` (through any group between): its children.
export function childItems(el) {
  const out = [];
  for (const k of el.querySelectorAll('[role=treeitem]')) {
    let p = k.parentElement;
    while (p && p !== el && p.getAttribute('role') !== 'treeitem') p = p.parentElement;
    if (p === el) out.push(k);
  }
  return out;
}

export function visibleText(el) {
  let t = '';
  try { t = el.innerText; } catch { /* detached */ }
  if (!norm(t) && (shadowOf(el) || el.querySelector?.('slot'))) t = flatText(el);
  // text inside it no one sees (transparent, opacity 0: a prompt hidden in a button) is left out
  // of its name, as the Markdown leaves it out of the page's text
  if (norm(t) && el.childElementCount && holdsUnseenText(el)) t = seenText(el, 2000, true);
  return norm(t || '');
}

export function labelsText(el) {
  let labels = el.labels?.length ? Array.from(el.labels) : hostLabels(el);
  if (!labels.length) labels = standInLabels(el);
  if (!labels.length) labels = customLabels(el);
  const parts = [];
  // the label's text (through slots: a label in a shadow root names its field with slotted text)
  // without the text of controls nested in it
  for (const l of labels) parts.push(labelText(l, true, true));
  return norm(parts.join(' '));
}

// The <label>s pointing at the hidden input that `el`, an unlabelled field drawn right after it,
// stands in for: a picker that shows a formatted copy of its field (flatpickr's altInput) turns
// the labelled field into type=hidden (or hides it) and inserts the copy a user sees behind it.
function standInLabels(el) {
  if (el.tagName !== 'INPUT' || el.type === 'hidden') return [];
  const prev = el.previousElementSibling;
  if (!prev || prev.tagName !== 'INPUT' || !prev.id || (prev.type !== 'hidden' && prev.getClientRects().length)) return [];
  try {
    return Array.from(prev.getRootNode().querySelectorAll(`label[for="${CSS.escape(prev.id)}"]`));
  } catch { return []; }
}

// The <label>s of a form-associated custom element itself (Material Web's md-radio, a <label>
// around it beside its words): the browser ties them to it (label.control), but it has no
// `labels` of its own (they are its ElementInternals'), and it showed as [radio] with no name.
function customLabels(el) {
  if (el.labels !== undefined || !el.localName?.includes('-')) return [];
  const out = [];
  const wrap = el.parentElement?.closest('label');
  if (wrap && wrap.control === el) out.push(wrap);
  if (el.id) {
    try {
      for (const l of el.getRootNode().querySelectorAll(`label[for="${CSS.escape(el.id)}"]`)) if (l.control === el && !out.includes(l)) out.push(l);
    } catch { /* ignore */ }
  }
  return out;
}

// The <label>s of the custom element whose main control `el` is (the first control in its shadow
// root): a form-associated host (md-checkbox, md-switch) is labelled by the <label> around it or
// pointing at it, which the control inside cannot see through el.labels.
export function hostLabels(el) {
  const root = el.getRootNode?.();
  const host = root && root.nodeType === 11 ? root.host : null;
  if (!host || root.querySelector(INNER_CONTROL) !== el) return [];
  const out = [];
  const wrap = host.closest('label');
  if (wrap) out.push(wrap);
  if (host.id) {
    try {
      for (const l of host.getRootNode().querySelectorAll(`label[for="${CSS.escape(host.id)}"]`)) if (!out.includes(l)) out.push(l);
    } catch { /* ignore */ }
  }
  return out;
}

// An approximation of the accessible name.
// The text of the first shown <label> inside `el` (not one inside a field of its own), or ''.
function ownLabelIn(el) {
  for (const l of el.querySelectorAll('label')) {
    const shown = l.checkVisibility ? l.checkVisibility({ visibilityProperty: true, opacityProperty: true }) : l.getClientRects().length > 0;
    if (l.getAttribute('aria-hidden') === 'true' || !shown) continue;
    const t = norm(l.textContent);
    if (t) return t;
  }
  return '';
}

// The placeholder an element shows: its own attribute, or the data- attribute a rich-text editor
// draws it from (Quill's and MediumEditor's data-placeholder, Editor.js's data-placeholder-active).
export function placeholderOf(el) {
  return norm(el.getAttribute('placeholder') || el.getAttribute('data-placeholder') || el.getAttribute('data-placeholder-active'));
}

export function nameOf(el, kind = null) {
  const lb = el.getAttribute('aria-labelledby');
  if (lb) { const t = textOfIds(el, lb); if (t) return clip(t); }
  const al = norm(ariaOf(el, 'aria-label'));
  if (al) return clip(al);
  const tag = el.tagName;
  if (tag === 'INPUT' || tag === 'SELECT' || tag === 'TEXTAREA') {
    const t = inputType(el);
    if (tag === 'INPUT' && ['submit', 'button', 'reset'].includes(t)) {
      return clip(norm(el.value) || (t === 'reset' ? 'Reset' : t === 'submit' ? 'Submit' : ''));
    }
    if (tag === 'INPUT' && t === 'image') return clip(norm(el.alt || el.title) || 'Submit');
    const l = labelsText(el);
    if (l) return clip(l);
    // a <label> tied to no field in the field's own box (Fomantic UI's checkbox: the input, then
    // its label; Bulma's and Fomantic's .field: a label, then the input): what a person reads as
    // its name (it was [checkbox], and fill_form "Subscribe to newsletter" matched nothing)
    // (not the search box inside a combobox's box, Blueprint's MultiSelect: the combobox takes it)
    const stray = el.parentElement?.closest('[role=combobox]') ? '' : strayLabelOf(el, true);
    if (stray) return clip(stray);
    const ph = norm(el.getAttribute('placeholder'));
    if (ph) return clip(ph);
    const ti = norm(el.title);
    if (ti) return clip(ti);
    return '';
  }
  if (tag === 'IMG') return clip(norm(el.getAttribute('alt') || el.title));
  // a <button> is labelable: a <label for> names it before its content does (Radix draws its
  // checkbox and its select as buttons: the tick or the choice inside is not their name)
  // (a label around a button, with its own words beside it, is left to name the button's content)
  if (tag === 'BUTTON' && el.labels?.length) {
    const t = norm(Array.from(el.labels).filter((l) => !l.contains(el)).map((l) => labelText(l, true)).join(' '));
    if (t) return clip(t);
  }
  if (shadowOf(el) && (kind === 'combobox' || kind === null)) {
    const c = hiddenPopupControl(el);
    if (c) return clip(popupHostName(el, c));
  }
  // a custom combobox (not a native field) is not named by its content, which is its value: by a
  // <label> drawn inside it (Vuetify's floating label), when it has one
  if ((kind === 'combobox' || roleOf(el) === 'combobox') && el.querySelector) {
    const lab = ownLabelIn(el);
    if (lab) return clip(lab);
    // or by a <label> tied to nothing in its box (Blueprint's FormGroup above its MultiSelect)
    if (!['INPUT', 'SELECT', 'TEXTAREA'].includes(tag)) { const stray = strayLabelOf(el, true); if (stray) return clip(stray); }
  }
  // a tree item holding others (a folder): its own words, not those of the items under it
  if (roleOf(el) === 'treeitem' && (el.querySelector?.(ITEM_SEL) || itemPanels(el).length)) { const own = ownItemText(el); if (own) return clip(own); }
  // a menu item holding its submenu (Kendo's Menu): its own words, not those of the submenu's items
  if (/^menuitem/.test(roleOf(el)) && el.querySelector?.(SUBMENU_SEL)) { const own = ownItemText(el, SUBMENU_SEL); if (own) return clip(own); }
  // a region a user writes into (contenteditable, role=textbox): its text is its value, not its
  // name (click "Bold" took an editor holding "Make me bold" for the Bold button)
  if (el.isContentEditable && (kind === 'editable' || kind === 'input' || roleOf(el) === 'textbox')) {
    return clip(labelsText(el) || norm(el.title) || placeholderOf(el));
  }
  // a checkbox, radio or switch drawn inside a <label> beside its words (Base UI's): named by those
  // words, not by the tick or dot drawn in it ("✓", "1 of 3"), as a user reads it
  if (/^(checkbox|radio|switch)$/.test(roleOf(el))) {
    const l = el.parentElement?.closest('label');
    if (l && l.querySelectorAll('[role=checkbox],[role=radio],[role=switch]').length === 1) { const w = labelText(l, true, true, el); if (w) return clip(w); }
  }
  // a date field drawn as segments, named by nothing of its own: by the label of the native input
  // it keeps inside it for forms (Reka's DateField: its <label for> names that input)
  if (roleOf(el) === 'group' && segmentsOf(el).length) { const l = formInputLabel(el); if (l) return clip(l); }
  let t = visibleText(el);
  // (a tick or icon drawn before or after the words and hidden from assistive technology is no part
  // of the name, as a screen reader says it: Base UI's "✓" before a chosen option's words)
  if (t && el.querySelector) t = withoutHiddenMarks(el, t);
  // (only a mark shown, its words in an element inside it that names itself: Owl Carousel's
  // <button><span aria-label="Next">›</span></button>, which the browser names "Next")
  if (t && !/[\p{L}\p{N}]/u.test(t) && el.querySelector) {
    const inner = el.querySelector('[aria-label]:not([aria-hidden=true])');
    const w = inner ? norm(inner.getAttribute('aria-label')) : '';
    if (w) t = w;
  }
  if (!t) {
    const img = el.querySelector?.('img[alt]');
    if (img) t = norm(img.alt);
    // (or an icon inside it named for assistive technology: Ant Design's <span role=img
    // aria-label="close"> in its icon buttons, which were [button] with no name; not an item of a
    // set, told apart by its place beside its icon below: a rating's "star 3 of 5")
    else if (!placeInSet(el)) {
      const icon = el.querySelector?.('[role=img][aria-label]:not([aria-hidden=true]), svg[aria-label]:not([aria-hidden=true])');
      if (icon) t = norm(icon.getAttribute('aria-label'));
    }
  }
  if (!t) {
    const svgTitle = el.querySelector?.('svg title');
    if (svgTitle) t = norm(svgTitle.textContent);
  }
  if (!t) t = norm(el.title);
  if (!t) t = labelsText(el);
  if (!t && kind === 'editable') t = placeholderOf(el);
  if (!t && (kind === 'slider' || /^(slider|spinbutton|switch|checkbox)$/.test(roleOf(el)))) t = strayLabelOf(el);
  if (!t) { const p = placeInSet(el); if (p) t = `${p.icon ? p.icon + ' ' : ''}${p.pos} of ${p.size}`; }
  if (!t) t = generatedWords(el);
  return clip(t);
}

// The words a control with no other name shows only as CSS generated content (::before, ::after)
// on itself, as the accessibility tree reads them: Quill's header picker draws "Normal" and its
// items "Heading 1" so, and was [button] with no name. Quoted strings and attr() are read; an icon
// font's glyph (a private use character) is no word. '' if none. (Two style reads per unnamed
// control, on the snapshot's path: not its descendants', which Quill's do not need.)
function generatedWords(el) {
  const out = [];
  for (const pseudo of ['::before', '::after']) {
    let c = 'none';
    try { c = winOf(el).getComputedStyle(el, pseudo).content; } catch { /* ignore */ }
    if (!c || c === 'none' || c === 'normal') continue;
    for (const m of c.matchAll(/"((?:[^"\\]|\\.)*)"|attr\(\s*([\w-]+)\s*\)/g)) out.push(m[1] != null ? m[1].replace(/\\(.)/g, '$1') : el.getAttribute(m[2]) || '');
  }
  const t = norm(out.join(' ').replace(/[\u{E000}-\u{F8FF}]/gu, ' '));
  return /[\p{L}\p{N}]/u.test(t) ? t : '';
}

// `t`, the words of `el`, without those of an aria-hidden mark at their start or end (when words
// remain).
function withoutHiddenMarks(el, t) {
  const marks = el.querySelectorAll('[aria-hidden="true"]');
  for (let i = 0; i < marks.length && i < 10; i++) {
    const x = norm(marks[i].innerText || '');
    if (!x || x.length >= t.length) continue;
    if (t.startsWith(x + ' ')) t = t.slice(x.length + 1);
    else if (t.endsWith(' ' + x)) t = t.slice(0, -x.length - 1);
  }
  return t;
}

const SET_ITEM_ROLES = new Set(['radio', 'option', 'tab', 'menuitemradio']);

// An unnamed item of a set (a rating's stars: role=radio with aria-posinset/aria-setsize, or the
// radios of one radiogroup) is told apart by its place, as a screen reader says it ("3 of 5"),
// and by the icon it draws (the aria-label of an img inside: "star"). Null for any other element.
export function placeInSet(el) {
  const role = roleOf(el);
  if (!SET_ITEM_ROLES.has(role)) return null;
  let pos = parseInt(ariaOf(el, 'aria-posinset'), 10);
  let size = parseInt(ariaOf(el, 'aria-setsize'), 10);
  if (!(pos > 0 && size >= pos)) {
    const group = el.parentElement?.closest('[role=radiogroup],[role=listbox],[role=tablist],[role=menu]');
    if (!group) return null;
    const items = Array.from(group.querySelectorAll(`[role=${role}]`)).slice(0, 100);
    pos = items.indexOf(el) + 1;
    size = items.length;
    if (pos < 1) return null;
  }
  const img = el.querySelector('[role=img][aria-label],svg[aria-label],img[alt]');
  const icon = img ? norm(img.getAttribute('aria-label') || img.getAttribute('alt')).slice(0, 40) : '';
  return { pos, size, icon };
}

const SHOWN_CONTROLS = 'input:not([type=hidden]),select,textarea,[role=slider],[role=spinbutton],[role=combobox],[role=checkbox],[role=switch],[role=radio],[role=textbox]';
const pixelBox = (e) => { const r = e.getBoundingClientRect(); return r.width <= 1 && r.height <= 1; };
const shownBox = (e) => (e.checkVisibility ? e.checkVisibility({ visibilityProperty: true, opacityProperty: true }) : e.getClientRects().length > 0);

// The label a user reads beside an unnamed field or ARIA slider: a shown <label for> pointing at a
// box around it, or the one shown <label> that points at no field (no for=, nothing inside it), in
// the nearest box around it (four levels at most) that shows no other control (Vuetify's v-slider
// labels its box, not its thumb; Fomantic UI's and Bulma's fields); for a slider also that box's
// aria-label(ledby) (`labelsOnly` leaves those out). '' if none.
export function strayLabelOf(el, labelsOnly = false) {
  // (up the boxes; a shadow root's top level is the last box: a web component draws its label and
  // its field side by side there, Carbon's cds-multi-select)
  const up = (n) => n.parentElement || (n.parentNode?.nodeType === 11 ? n.parentNode : null);
  let n = up(el);
  // (seven boxes up: Naive UI's input sits four boxes inside the form item that holds its label,
  // Arco's time picker's six)
  for (let i = 0; n && i < 7 && n.tagName !== 'BODY' && n.tagName !== 'FORM'; i++, n = n.nodeType === 11 ? null : up(n)) {
    // (a control clipped to a pixel is none a user sees: the native select Select2 draws a field for)
    if (Array.from(n.querySelectorAll(SHOWN_CONTROLS)).some((c) => c !== el && !c.contains(el) && !el.contains(c) && shownBox(c) && !pixelBox(c))) return '';
    // the legend of a fieldset around this one field and nothing else (daisyUI's fieldset: a
    // legend, then the select; not a checkbox's or radio button's, whose legend names their group)
    if (n.tagName === 'FIELDSET' && !/^(checkbox|radio)$/.test(el.type || el.getAttribute('role') || '')) {
      const lg = Array.from(n.children).find((c) => c.tagName === 'LEGEND');
      const t = lg && shownBox(lg) ? norm(lg.textContent) : '';
      if (t) return t;
    }
    if (n.nodeType === 11) {
      const labels = Array.from(n.querySelectorAll('label')).filter((l) => !l.htmlFor && !l.querySelector(SHOWN_CONTROLS) && shownBox(l));
      return labels.length === 1 ? norm(labels[0].textContent) : '';
    }
    // the box's own label (Mantine puts the aria-label(ledby) given to its Slider on its root, not
    // on the thumb): it names the one control the box holds (a slider's; a field's box labelled so
    // is a region, a search landmark, not its name)
    const own = labelsOnly ? '' : norm(n.getAttribute('aria-label'));
    if (own) return own;
    const ids = labelsOnly ? [] : (n.getAttribute('aria-labelledby') || '').split(/\s+/).filter(Boolean);
    const by = norm(ids.map((id) => n.getRootNode().getElementById?.(id)?.textContent || '').join(' '));
    if (by) return by;
    // a <label for> pointing at this box (antd gives its slider's outer <div> the id): it names
    // the one control the box holds
    if (n.id) {
      let l = null;
      try { l = n.getRootNode().querySelector(`label[for="${CSS.escape(n.id)}"]`); } catch { l = null; }
      if (l && shownBox(l) && norm(l.textContent)) return norm(flatText(l, true));
    }
    // (a <label for> pointing at no element is tied to no field either: Arco's Form.Item points
    // its label at "time_input", an id its time picker's input does not have)
    const labels = Array.from(n.querySelectorAll('label')).filter((l) => (!l.htmlFor || !l.getRootNode().getElementById?.(l.htmlFor)) && !l.querySelector(SHOWN_CONTROLS) && shownBox(l));
    if (labels.length > 1) return '';
    if (labels.length === 1) return norm(labels[0].textContent);
  }
  return '';
}

const ARIA_FIELDS = new Set(['combobox', 'checkbox', 'radio', 'slider', 'input', 'select']);

// The words beside a native checkbox or radio button that no label names (`<input type=checkbox>
// checkbox 1<br>`): what a person reads as its name, and the Markdown shows next to its token.
// The run of inline text after it (up to a line break, a block or another control); the run
// before it when nothing follows it, or when the row's words come before each button ("Small ( )
// Large ( )": the row's last button has no words after it).
function besideText(el) {
  const twin = (n) => n?.tagName === 'INPUT' && n.type === el.type;
  const run = (from, dir) => {
    const parts = [];
    let n = from[dir];
    for (let i = 0; n && i < 8; n = n[dir], i++) {
      if (n.nodeType === 3) { parts.push(n.data); continue; }
      if (n.nodeType !== 1) continue;
      if (n.tagName === 'BR' || n.matches('input,select,textarea,button,label,[role]') || getComputedStyle(n).display !== 'inline') break;
      parts.push(n.textContent);
    }
    return { text: norm((dir === 'nextSibling' ? parts : parts.reverse()).join('')), stop: n };
  };
  const after = run(el, 'nextSibling');
  let last = after;
  for (let i = 0; i < 20 && last.text && twin(last.stop); i++) last = run(last.stop, 'nextSibling');
  const words = after.text && (last.text || !twin(after.stop)) ? after.text : run(el, 'previousSibling').text;
  return clip(words, 200);
}

// The <label> tied to nothing that names a button alone in a box that opens a list (its
// aria-haspopup on the box: Blueprint's Select under its FormGroup's label), or ''.
export function popupButtonLabel(el) {
  if (el.tagName !== 'BUTTON' || el.hasAttribute('aria-haspopup')) return '';
  const pop = (el.parentElement?.getAttribute('aria-haspopup') || '').toLowerCase();
  return pop === 'listbox' || pop === 'true' ? strayLabelOf(el, true) : '';
}

// Every text-ish description of an element a target description may match.
// Does the editable element hold text only inside parts of it no one can edit (contenteditable=false),
// none of its own (the first 2,000 text nodes looked at)?
export function onlyUneditable(el) {
  const w = el.ownerDocument.createTreeWalker(el, 4);
  let seen = false;
  for (let n = w.nextNode(), i = 0; n && i < 2000; n = w.nextNode(), i++) {
    if (!n.data.trim()) continue;
    const off = n.parentElement?.closest('[contenteditable=false]');
    if (!off || !el.contains(off)) return false;
    seen = true;
  }
  return seen;
}

export function descriptionsOf(el, kind) {
  const out = [];
  const push = (s) => { s = norm(s); if (s) out.push(s); };
  const name = nameOf(el, kind);
  push(name);
  // an unnamed item of a set drawn as icons (a rating's stars): "3 stars" is the third one
  const p = placeInSet(el);
  if (p?.icon && name === `${p.icon} ${p.pos} of ${p.size}`) push(`${p.pos} ${p.icon}${p.pos === 1 ? '' : 's'}`);
  push(ariaOf(el, 'aria-label'));
  push(el.getAttribute('placeholder'));
  // a rich-text editor's placeholder (Quill's, MediumEditor's): the name its [editor …] token
  // shows (describe.js, ownName) also once it has content, so a target written from it matches
  push(el.getAttribute('data-placeholder'));
  push(el.getAttribute('data-placeholder-active'));
  // (or drawn in it as a part no one edits while it is empty: Toast UI Editor's ProseMirror widget)
  if ((kind === 'editable' || kind === 'editor' || kind === 'input') && el.isContentEditable && onlyUneditable(el)) push(clip(el.innerText, 300));
  push(el.getAttribute('title'));
  if (el.labels?.length || hostLabels(el).length) push(labelsText(el));
  else if (el.id && ARIA_FIELDS.has(kind)) {
    // a <label for=…> naming an ARIA widget (jQuery UI points its labels at its combobox): not
    // its accessible name, but what a user reads next to it
    const root = el.getRootNode();
    try {
      for (const l of root.querySelectorAll(`label[for="${CSS.escape(el.id)}"]`)) push(flatText(l, true));
    } catch { /* ignore */ }
  }
  if (kind === 'link' || kind === 'button' || kind === 'clickable' || kind === 'tab' || kind === 'menuitem' || kind === 'option') push(clip(visibleText(el), 300));
  if (kind === 'button') push(popupButtonLabel(el));
  // (a custom combobox named by a stray label is still found by what it shows, as before it was)
  if (kind === 'combobox' && !['INPUT', 'SELECT', 'TEXTAREA'].includes(el.tagName)) push(clip(visibleText(el), 300));
  if (el.tagName === 'INPUT' && ['submit', 'button', 'reset'].includes(inputType(el))) push(el.value);
  const img = el.querySelector?.('img[alt]');
  if (img) push(img.alt);
  if (el.tagName === 'INPUT' || el.tagName === 'SELECT' || el.tagName === 'TEXTAREA') push(el.getAttribute('name'));
  if (!name && el.tagName === 'INPUT' && (el.type === 'checkbox' || el.type === 'radio')) push(besideText(el));
  return [...new Set(out)];
}

// The document of a same-origin iframe, or null.
export function frameDoc(el) {
  try { return el.contentDocument || null; } catch { return null; }
}

// All elements in document order, through open shadow roots and same-origin iframes.
export function* allElements(root = document) {
  const kids = root.nodeType === 9 ? (root.documentElement ? [root.documentElement] : []) : Array.from(root.children || []);
  for (const el of kids) yield* walkEl(el);
}
function* walkEl(el) {
  yield el;
  if (shadowOf(el)) yield* allElements(shadowOf(el));
  if (el.tagName === 'IFRAME' || el.tagName === 'FRAME') { const d = frameDoc(el); if (d) yield* allElements(d); }
  for (const c of Array.from(el.children)) yield* walkEl(c);
}

// Counts the changes to the document (its elements, attributes, text) from now until stop(),
// which returns that count.
export function watchChanges(doc) {
  let n = 0;
  const W = doc.defaultView;
  const mo = new W.MutationObserver((list) => { n += list.length; });
  // (each open shadow root too: a web component's slider moves only inside its own)
  for (const r of [doc, ...[...allRoots()].filter((r) => r.nodeType === 11 && r.host?.ownerDocument === doc)]) {
    mo.observe(r, { subtree: true, childList: true, attributes: true, characterData: true });
  }
  return { stop: () => { n += mo.takeRecords().length; mo.disconnect(); return n; } };
}

// All roots (documents and open shadow roots) reachable from the top document.
export function allRoots() {
  const roots = [document];
  for (const el of allElements(document)) {
    if (shadowOf(el)) roots.push(shadowOf(el));
    if (el.tagName === 'IFRAME' || el.tagName === 'FRAME') { const d = frameDoc(el); if (d) roots.push(d); }
  }
  return roots;
}

// Are these text boxes a row that takes one code (2 to 12 empty text inputs with the same parent,
// in document order, and nothing else that takes text beside them there)?
export function boxRow(els) {
  const row = els.length ? boxRowOf(els[0]) : null;
  return !!row && row.length === els.length && row.every((e, i) => e === els[i] && !e.value);
}

// The row of boxes (boxRow) a text input is one of, or null.
export function boxRowOf(el) {
  const p = el?.tagName === 'INPUT' ? el.parentElement : null;
  if (!p) return null;
  const inputs = Array.from(p.querySelectorAll(':scope > input:not([type=hidden])'));
  return inputs.length >= 2 && inputs.length <= 12 && inputs.every((e) => /^(text|tel|number|password)$/.test(e.type) && [...e.value].length <= 1) &&
    p.querySelectorAll('input:not([type=hidden])').length === inputs.length ? inputs : null;
}

function center(el) {
  const r = el.getBoundingClientRect();
  return { clientX: r.left + r.width / 2, clientY: r.top + r.height / 2 };
}

// Where the pointer last moved to on the screen, per window (a move's movementX/Y is from there).
const lastScreen = new WeakMap();

// A mouse or pointer event of `type` at the element's centre (or `extra`'s point), dispatched on it.
export function mouse(el, type, extra = {}) {
  const W = winOf(el);
  const init = { bubbles: true, cancelable: true, composed: true, view: W, button: 0, buttons: type.endsWith('down') ? 1 : 0, detail: 1, ...center(el), ...extra };
  if (init.x !== undefined) { init.clientX = init.x; init.clientY = init.y; delete init.x; delete init.y; }
  // where on the screen, and for a move how far from the last one, as a user's mouse events say
  // (Ariakit opens its tooltip only on a move that moved: screenX against the last one's; at 0, 0
  // every move of the bridge's was none)
  if (init.screenX === undefined) {
    init.screenX = Math.round(init.clientX + (W.screenX || 0));
    init.screenY = Math.round(init.clientY + (W.screenY || 0) + Math.max(0, (W.outerHeight || 0) - W.innerHeight));
  }
  if (type.endsWith('move')) {
    const last = lastScreen.get(W);
    if (init.movementX === undefined) { init.movementX = last ? init.screenX - last[0] : 0; init.movementY = last ? init.screenY - last[1] : 0; }
    lastScreen.set(W, [init.screenX, init.screenY]);
  }
  // (the pointer now rests on `el`: a CSS :hover browser_hover emulates follows it)
  if (type === 'mousemove') hoverFollow(el);
  const Ctor = type.startsWith('pointer') ? W.PointerEvent : W.MouseEvent;
  return el.dispatchEvent(new Ctor(type, type.startsWith('pointer') ? { pointerId: 1, pointerType: 'mouse', isPrimary: true, ...init } : init));
}

// A frame of `W` (or a short wait when frames do not come: a hidden tab): what the page draws and
// the events it is sent before drawing (scroll) have come by then.
export function frame(W) {
  return new Promise((r) => { const t = W.setTimeout(r, 50); W.requestAnimationFrame(() => { W.clearTimeout(t); r(); }); });
}
