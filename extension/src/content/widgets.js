// Custom widgets drawn over a hidden native control: a visually hidden checkbox or radio under a
// visible label or styled box, a hidden <select> replaced by a button and a listbox (jQuery UI
// selectmenu, Select2, Chosen, bootstrap-select). A user acts on the visible widget, so actions
// go through it: the widget's own handlers then update both it and the native control.
import { norm, inputType } from './dom.js';
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

// Visible elements (not in `widget`, not native <option>s) whose own displayed text is `text`:
// the options of an opened popup. The best first: an ARIA option, then a list item, nearest.
function findShownOption(doc, text, widget) {
  // the popup the widget names (aria-owns / aria-controls, on it or inside it) first
  const ids = [widget, ...widget.querySelectorAll('[aria-owns],[aria-controls]')]
    .flatMap((e) => `${e.getAttribute('aria-owns') || ''} ${e.getAttribute('aria-controls') || ''}`.split(/\s+/)).filter(Boolean);
  for (const id of ids) {
    const popup = doc.getElementById(id);
    if (popup && visible(popup)) {
      const found = shownOptionIn(popup, text, widget);
      if (found) return found;
    }
  }
  return shownOptionIn(doc, text, widget);
}

function shownOptionIn(root, text, widget) {
  const want = norm(text).toLowerCase();
  const out = [];
  const wr = widget.getBoundingClientRect();
  for (const el of root.querySelectorAll('[role],li,a,div,span,button,label,td,p')) {
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
  let opt = widget.getAttribute('aria-expanded') === 'true' ? findShownOption(doc, text, widget) : null;
  if (!opt) {
    click(widget);
    opt = await until(() => findShownOption(doc, text, widget));
  }
  if (!opt) {
    throw new Error(`${describe(widget)} opened no visible option "${text}"; nothing was selected. Get the page to see its options.`);
  }
  click(opt);
  const want = norm(text).toLowerCase();
  const shows = () => displayedText(widget).toLowerCase().includes(want) &&
    (!sel || norm(sel.selectedOptions?.[0]?.label || sel.selectedOptions?.[0]?.textContent || '').toLowerCase() === want);
  if (await until(shows, 500)) return opt;
  return null;
}
