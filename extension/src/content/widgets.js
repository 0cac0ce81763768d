// Custom widgets drawn over a hidden native control: a visually hidden checkbox or radio under a
// visible label or styled box, a hidden <select> replaced by a button and a listbox (jQuery UI
// selectmenu, Select2, Chosen, bootstrap-select). A user acts on the visible widget, so actions
// go through it: the widget's own handlers then update both it and the native control.
import { norm, inputType, flatText } from './dom.js';
import { hiddenReason, composedParent } from './reach.js';

const POPUP_ROLES = new Set(['combobox', 'button', 'listbox']);

function visible(el) {
  return !!el && !hiddenReason(el);
}

// The visible element a user would act on for the hidden control `el`, or null (also for a
// visible `el`: it needs no proxy).
export function proxyFor(el) {
  if (!el || el.nodeType !== 1 || visible(el)) return null;
  if (el.tagName === 'SELECT') return replacementFor(el);
  if (el.tagName === 'OPTION') {
    const sel = el.closest('select');
    return sel ? replacementFor(sel) : null;
  }
  if (el.tagName !== 'INPUT' || !['checkbox', 'radio'].includes(inputType(el))) return null;
  // A visible label of it.
  for (const l of Array.from(el.labels || [])) if (visible(l)) return l;
  // A styled box: the nearest visible ancestor (two levels at most, the host of a shadow root
  // counts) that holds no other form control.
  let n = composedParent(el);
  for (let depth = 0; n && n.nodeType === 1 && depth < 3; depth++, n = composedParent(n)) {
    if (n.tagName === 'BODY' || n.tagName === 'FORM') break;
    const inner = (n.shadowRoot || n).querySelectorAll('input:not([type=hidden]),select,textarea,button');
    if (inner.length > 1) break;
    if (visible(n)) return n;
  }
  return null;
}

function displayedText(el) {
  let t = '';
  try { t = el.innerText; } catch { t = ''; }
  return norm(t || el.textContent);
}

const WIDGET_CLASS = /(^|[\s_-])(select|selectmenu|dropdown|chosen|combo|combobox|picker)([\s_-]|$)/i;

// Does `el` show exactly `text`: its own text, or one of its first descendants' (the text span of
// a selectmenu button, Select2's rendered choice)?
function showsExactly(el, text) {
  if (displayedText(el) === text) return true;
  const kids = el.querySelectorAll('*');
  for (let i = 0; i < kids.length && i < 30; i++) if (norm(kids[i].textContent) === text) return true;
  return false;
}

// The visible widget that stands for a hidden <select>: near it in the DOM (its siblings, its
// parent's and grandparent's), showing the selected option's text, preferring a combobox or
// button; jQuery UI names it "<id>-button".
export function replacementFor(sel) {
  if (visible(sel)) return null;
  const doc = sel.ownerDocument;
  if (sel.id) {
    const b = doc.getElementById(sel.id + '-button');
    if (visible(b)) return b;
  }
  const cur = norm(sel.selectedOptions?.[0]?.label || sel.selectedOptions?.[0]?.textContent || '');
  const scopes = [];
  let p = sel.parentElement;
  for (let i = 0; p && i < 3 && p.tagName !== 'BODY' && p.tagName !== 'FORM'; i++, p = p.parentElement) scopes.push(p);
  let best = null, bestScore = 0;
  const seen = new Set();
  for (const scope of scopes) {
    // the scope must hold no other select (else the widget may be another field's)
    if (scope.querySelectorAll('select').length > 1) break;
    for (const el of scope.querySelectorAll('*')) {
      if (seen.has(el)) continue;
      seen.add(el);
      if (el === sel || sel.contains(el) || el.contains(sel) || el.tagName === 'OPTION') continue;
      const role = (el.getAttribute('role') || '').toLowerCase();
      // A strong sign of a drop-down is required (a plain button that happens to show the
      // selected text, "Yes, continue", must never be taken for the select's widget).
      let score = 0;
      if (POPUP_ROLES.has(role) && role !== 'button') score += 4;
      if (el.hasAttribute('aria-haspopup') || el.hasAttribute('aria-expanded')) score += 3;
      if (WIDGET_CLASS.test(typeof el.className === 'string' ? el.className : '')) score += 2;
      if (!score) continue;
      if (el.tagName === 'BUTTON' || (el.tagName === 'A' && el.tabIndex >= 0) || role === 'button') score += 1;
      if (el.tabIndex >= 0) score += 1;
      if (cur && !showsExactly(el, cur)) continue;
      if (!visible(el)) continue;
      if (score > bestScore) { best = el; bestScore = score; }
    }
    if (best) break;
  }
  return best;
}

const OPTIONISH = new Set(['option', 'menuitem', 'menuitemradio', 'treeitem', 'gridcell']);

// The element children of `el` as composed for display: a shadow root's, a <slot>'s assigned
// elements (Shoelace's sl-options are slotted into the listbox in sl-select's shadow root).
function composedChildren(el) {
  if (el.shadowRoot) return Array.from(el.shadowRoot.children);
  if (el.tagName === 'SLOT') {
    const a = el.assignedElements({ flatten: true });
    if (a.length) return a;
  }
  return Array.from(el.children);
}

// Every element under `root` (a document, a shadow root or an element) in the composed tree.
function composedDescendants(root) {
  const out = [];
  const walk = (el) => { for (const c of composedChildren(el)) { out.push(c); walk(c); } };
  if (root.nodeType === 1) walk(root);
  else for (const c of Array.from(root.children || [])) { out.push(c); walk(c); }
  return out;
}

// The popups `widget` names (aria-controls / aria-owns, on it or inside it), looked up in its own
// root first (a listbox in the same shadow root as its combobox), then in the document.
function popupsOf(widget) {
  const inner = [widget, ...(widget.shadowRoot || widget).querySelectorAll('[aria-owns],[aria-controls]')];
  const out = [];
  for (const e of inner) {
    const ids = `${e.getAttribute('aria-owns') || ''} ${e.getAttribute('aria-controls') || ''}`.split(/\s+/).filter(Boolean);
    const root = e.getRootNode();
    for (const id of ids) {
      const p = (root.getElementById ? root.getElementById(id) : null) || widget.ownerDocument.getElementById(id);
      if (p && !out.includes(p)) out.push(p);
    }
  }
  return out;
}

// The option elements of a drop-down widget, open or not: the ARIA options of the popups it names.
export function optionsOf(widget) {
  const out = [];
  for (const p of popupsOf(widget)) {
    for (const el of composedDescendants(p)) if ((el.getAttribute('role') || '').toLowerCase() === 'option') out.push(el);
  }
  return out;
}

// What a widget shows: its text and the values of the fields in it (a read-only combobox shows its
// choice as an <input>'s value, which innerText leaves out).
export function shownValue(el) {
  const parts = [displayedText(el)];
  const fields = [el, ...composedDescendants(el)].filter((e) => e.tagName === 'INPUT' && !hiddenReason(e));
  for (const f of fields) parts.push(norm(f.value));
  return norm(parts.join(' '));
}

// Visible elements (not in `widget`, not native <option>s) whose own displayed text is `text`:
// the options of an opened popup. The best first: an ARIA option, then a list item, nearest.
function findShownOption(doc, text, widget) {
  // the popup the widget names first
  for (const popup of popupsOf(widget)) {
    if (visible(popup)) {
      const found = shownOptionIn(popup, text, widget);
      if (found) return found;
    }
  }
  return shownOptionIn(doc, text, widget);
}

const OPTION_SEL = '[role],li,a,div,span,button,label,td,p';

function shownOptionIn(root, text, widget) {
  const want = norm(text).toLowerCase();
  const out = [];
  const wr = widget.getBoundingClientRect();
  const els = root.nodeType === 9 ? root.querySelectorAll(OPTION_SEL) : composedDescendants(root).filter((e) => e.matches(OPTION_SEL));
  for (const el of els) {
    if (widget.contains(el) || el.closest('select')) continue;
    if (norm(el.textContent).toLowerCase() !== want) continue;
    if (!visible(el)) continue;
    const role = (el.getAttribute('role') || '').toLowerCase();
    const r = el.getBoundingClientRect();
    const dist = Math.hypot(r.left - wr.left, r.top - wr.bottom);
    out.push({ el, score: (OPTIONISH.has(role) ? 4 : 0) + (el.tagName === 'LI' ? 2 : 0), dist });
  }
  // the innermost of nested matches (a <li> holding a <div role=option> with the same text)
  const inner = out.filter((c) => !out.some((o) => o !== c && c.el.contains(o.el) && o.score >= c.score));
  inner.sort((a, b) => (b.score - a.score) || (a.dist - b.dist));
  return inner[0]?.el || null;
}

// The texts of the options a popup shows now: its ARIA options, else its list items.
function shownOptionTexts(widget) {
  let els = optionsOf(widget).filter(visible);
  if (!els.length) {
    for (const p of popupsOf(widget)) els.push(...composedDescendants(p).filter((e) => e.tagName === 'LI' && visible(e)));
  }
  return [...new Set(els.map((e) => norm(e.textContent)).filter(Boolean))];
}

// Is the widget's popup open: its aria-expanded when it has one (a closing popup may still be
// drawn while it fades out), else whether a popup it names is shown.
const isOpen = (widget) => (widget.hasAttribute('aria-expanded') ? widget.getAttribute('aria-expanded') === 'true' : popupsOf(widget).some(visible));

// Close a popup this action opened, as a user does: Escape; if it stays open (Shoelace closes on
// a real Escape only), a second click on the widget; then a click elsewhere on the page.
async function closePopup(widget) {
  const W = widget.ownerDocument.defaultView || window;
  const key = (type) => widget.dispatchEvent(new W.KeyboardEvent(type, { key: 'Escape', code: 'Escape', keyCode: 27, which: 27, bubbles: true, cancelable: true, composed: true }));
  const press = (el) => {
    const o = { bubbles: true, cancelable: true, composed: true, view: W, button: 0, detail: 1 };
    el.dispatchEvent(new W.PointerEvent('pointerdown', { ...o, buttons: 1, pointerId: 1, pointerType: 'mouse', isPrimary: true }));
    el.dispatchEvent(new W.MouseEvent('mousedown', { ...o, buttons: 1 }));
    el.dispatchEvent(new W.PointerEvent('pointerup', { ...o, pointerId: 1, pointerType: 'mouse', isPrimary: true }));
    el.dispatchEvent(new W.MouseEvent('mouseup', o));
    el.dispatchEvent(new W.MouseEvent('click', o));
  };
  // closed: then until its popup is no longer drawn (a fade-out), so the page returned shows it shut
  const shut = async () => (await until(() => !isOpen(widget), 300)) && (await until(() => !popupsOf(widget).some(visible), 1000), true);
  key('keydown'); key('keyup');
  if (await shut()) return;
  press(widget);
  if (await shut()) return;
  press(widget.ownerDocument.body);
  await shut();
}

const nextTask = () => new Promise((r) => setTimeout(r, 0));

// Wait (a few tasks, at most `ms`) for cond() to hold; returns its last value.
async function until(cond, ms = 1000) {
  const t0 = performance.now();
  for (;;) {
    const v = cond();
    if (v || performance.now() - t0 > ms) return v;
    await nextTask();
  }
}

// Choose `text` in a custom widget the way a user does: open it (click), click the option shown
// with that text, and check that the widget now shows it. `click` is actions.js's click (passed
// in to keep the modules acyclic). Returns the option clicked, or throws a one-sentence error.
export async function chooseInWidget(widget, text, click, describe, sel = null) {
  const doc = widget.ownerDocument;
  // an open popup may already show it; else open the widget first
  let opt = isOpen(widget) ? findShownOption(doc, text, widget) : null;
  let opened = false;
  if (!opt) {
    opened = !isOpen(widget);
    click(widget);
    opt = await until(() => findShownOption(doc, text, widget));
  }
  if (!opt) {
    // the options it showed, then the popup closed again: the page is left as it was
    const shown = await until(() => shownOptionTexts(widget).length && shownOptionTexts(widget), 300) || [];
    if (opened && isOpen(widget)) await closePopup(widget);
    const list = shown.slice(0, 30).map((t) => JSON.stringify(t.slice(0, 60))).join(', ');
    const e = new Error(`${describe(widget)} has no option "${text}"; nothing was selected. ` +
      (list ? `Its options: ${list}${shown.length > 30 ? ', …' : ''}.` : 'It showed no options when opened.'));
    e.code = 'no_such_option';
    throw e;
  }
  click(opt);
  const want = norm(text).toLowerCase();
  const shows = () => shownValue(widget).toLowerCase().includes(want) &&
    (!sel || norm(sel.selectedOptions?.[0]?.label || sel.selectedOptions?.[0]?.textContent || '').toLowerCase() === want);
  if (!(await until(shows, 500))) return null;
  // the popup closes as the option is taken: wait until it is no longer drawn over the fields below
  await until(() => !isOpen(widget) && !popupsOf(widget).some(visible), 1000);
  return opt;
}

// ---- drop-downs and radio groups as select_option and fill_form see them ----------------------

const roleOf = (el) => (el.getAttribute?.('role') || '').trim().split(/\s+/)[0].toLowerCase();

// A drop-down a user chooses in: a <select>, a combobox or listbox, a button that opens a listbox.
export function isDropdown(el) {
  if (!el || el.nodeType !== 1) return false;
  if (el.tagName === 'SELECT') return true;
  const role = roleOf(el);
  if (role === 'combobox' || role === 'listbox') return true;
  const pop = (el.getAttribute('aria-haspopup') || '').toLowerCase();
  return pop === 'listbox' || pop === 'menu' || pop === 'true';
}

// A combobox a user cannot type into, only choose in (Shoelace's sl-select: an <input readonly>
// with role=combobox; jQuery UI's selectmenu: a <span role=combobox>).
export function isReadOnlyCombobox(el) {
  if (!el || el.nodeType !== 1 || roleOf(el) !== 'combobox') return false;
  if (el.tagName === 'INPUT' || el.tagName === 'TEXTAREA') return el.readOnly;
  return !el.isContentEditable;
}

const isRadio = (el) => (el.tagName === 'INPUT' && inputType(el) === 'radio') || roleOf(el) === 'radio';
const FIELD_SEL = 'input:not([type=hidden]):not([type=radio]),select,textarea,[role=combobox],[role=textbox],[role=checkbox]';

// The radio buttons of a group (through slots and shadow roots: sl-radio-group's sl-radios), or [].
export function radiosOf(group) {
  const out = [];
  const walk = (el) => {
    for (const c of composedChildren(el)) {
      if (isRadio(c)) out.push(c);
      else walk(c);
    }
  };
  walk(group);
  return out;
}

// Is `el` a radio group a user names by its caption: a role=radiogroup, or a <fieldset> with a
// <legend> that holds radio buttons and no other field.
export function isRadioGroup(el) {
  if (!el || el.nodeType !== 1) return false;
  if (roleOf(el) === 'radiogroup') return radiosOf(el).length > 0;
  if (el.tagName !== 'FIELDSET' || !el.querySelector(':scope > legend')) return false;
  return radiosOf(el).length > 0 && !el.querySelector(FIELD_SEL);
}

// The caption of a radio group: its aria-labelledby or aria-label, else its legend.
export function groupName(el) {
  const lb = el.getAttribute('aria-labelledby');
  if (lb) {
    const root = el.getRootNode();
    const t = norm(lb.split(/\s+/).map((id) => flatTextOf((root.getElementById ? root.getElementById(id) : null) || el.ownerDocument.getElementById(id))).join(' '));
    if (t) return t;
  }
  const al = norm(el.getAttribute('aria-label'));
  if (al) return al;
  const lg = el.querySelector(':scope > legend');
  return lg ? flatTextOf(lg) : '';
}

function flatTextOf(el) {
  return el ? flatText(el) : '';
}
