// Resolve a `target` (ref, CSS selector or plain description) to one element, or
// throw an Error whose message lists the best candidates with their refs.
import { allElements, allRoots, controlKind, descriptionsOf, inViewport, isDisabled, isInert, isEditable, styleOf, norm, withStyleCache, modalDialog, nameOf, boxRow, segmentedFieldOf, shadowOf, hiddenPopupControl } from './dom.js';
import { behindModal, modalName, DIALOG_SEL } from './modal.js';
import { hiddenReason, hoverHost, composedContains } from './reach.js';
import { mutedText, invisible } from './hidden.js';
import { proxyFor, isDropdown, isRadioGroup, isCheckboxGroup, groupName, listPopupWrapper } from './widgets.js';
import { isRefSyntax, parseRef, resolveRef, refFor } from './refs.js';
import { token, shownLabel } from './describe.js';

// The kinds of control the snapshot writes as one token, nothing inside it shown (snapshot.js
// ATOMIC_KINDS, less the fields, whose options and editors' content are targets of their own, and
// the items that may hold sub-items: menu items, tree items).
const WHOLE_TOKEN_KINDS = new Set(['button', 'checkbox', 'radio', 'slider', 'tab', 'option']);
const EDITABLE_KINDS = new Set(['input', 'textarea', 'editable', 'combobox', 'select', 'checkbox', 'radio', 'slider']);

const FIELD = ['input', 'textarea', 'editable', 'combobox'];

// A select drawn as a button that opens a listbox (aria-haspopup=listbox): fill_form chooses in it.
export const opensListbox = (el) => {
  if (el.tagName === 'INPUT') return false;
  const pop = (el.getAttribute('aria-haspopup') || '').toLowerCase();
  // or a dialog holding its listbox (a country chooser with a search box over its list)
  // (or a button alone in a box that opens a list: Blueprint's Select)
  return pop === 'listbox' || (pop === 'dialog' && isDropdown(el)) || !!listPopupWrapper(el);
};
const ROLE_WORDS = {
  button: ['button', 'clickable'], link: ['link'], field: FIELD, box: FIELD, input: FIELD, textbox: FIELD,
  textarea: ['textarea', 'editable'], checkbox: ['checkbox'], radio: ['radio'], dropdown: ['select', 'combobox'],
  select: ['select', 'combobox'], menu: ['select', 'combobox', 'menuitem'], tab: ['tab'], option: ['option'],
};
// What select_option chooses in: drop-downs, their options, radio buttons and groups, checkboxes.
const CHOICE_KINDS = new Set(['select', 'combobox', 'option', 'radio', 'checkbox', 'radiogroup', 'checkboxgroup']);
const isChoice = (c) => CHOICE_KINDS.has(c.kind) || isDropdown(c.el);

const ROLE_WORDS_RE = new RegExp('(?:^|\\s)(' + Object.keys(ROLE_WORDS).join('|') + ')(?:$|\\s)');

function querySelectorAllRoots(sel) {
  const out = [];
  for (const r of allRoots()) {
    try { out.push(...r.querySelectorAll(sel)); } catch (e) { if (r === document) throw e; }
  }
  return out;
}

function kindOf(el) {
  return controlKind(el, styleOf(el));
}

// An element as action messages and errors show it: its token without what fields hold (these
// sentences are stored in the call log and the popup, where typed text must never go).
export function describe(el) {
  const group = isRadioGroup(el) ? 'radio group' : isCheckboxGroup(el) ? 'checkbox group' : '';
  if (group) {
    const n = groupName(el);
    return `[${group}${n ? ' "' + n.slice(0, 60).replace(/"/g, '\\"') + '"' : ''}]`;
  }
  const k = kindOf(el);
  if (k) return token(el, k, { values: false });
  const t = norm(el.innerText || el.textContent).slice(0, 60);
  return `[${el.tagName.toLowerCase()}${t ? ' "' + t.replace(/"/g, '\\"') + '"' : ''}]`;
}

// For `type`: a label or wrapper that holds exactly one field stands for the field.
// A radio group or a drop-down is filled as itself, and a hidden field inside a wrapper (the
// validation input of a web component) never stands for it.
function toField(el) {
  if (isEditable(el) || el.tagName === 'SELECT' || isRadioGroup(el) || isCheckboxGroup(el) || isDropdown(el)) return el;
  // an ARIA checkbox, switch or radio is the field itself, not a native one it hides inside and
  // never updates (Quasar's QToggle and QCheckbox: fill_form read and clicked that one)
  if (/^(checkbox|switch|radio)$/.test((el.getAttribute('role') || '').trim().toLowerCase())) return el;
  if (el.tagName === 'LABEL' && el.control) return el.control;
  const inner = el.querySelectorAll?.('input:not([type=hidden]),textarea,select,[contenteditable=""],[contenteditable=true]');
  if (inner && inner.length === 1 && usable(inner[0])) return inner[0];
  return el;
}

function matchClass(descs, q0) {
  const q = fold(q0);
  // a number names only what reads exactly so: "3" is a page link or a calendar's day, never the
  // checkbox "Select row 3" (EUI's table, paged to two pages, had its row 3 selected)
  if (/^\d+$/.test(q)) return descs.some((d) => d.toLowerCase() === q) ? 3 : 0;
  let best = 0;
  for (const d0 of descs) {
    const d = fold(d0.toLowerCase());
    if (d === q) return 3;
    // (the words negated are not the words: "save" is not "Don't save", nor "Delete" "Do not delete")
    if (negates(d, q)) continue;
    // (the end of a word is no word: "Age" is not in "Go to next page")
    if (d.startsWith(q) || (d.endsWith(q) && !WORD_CHAR.test(d[d.length - q.length - 1] || '')) || new RegExp('(^|[\\s"\'(:])' + q.replace(/[.*+?^${}()|[\]\\]/g, '\\$&') + '($|[\\s"\'):.,!?])').test(d)) best = Math.max(best, 2);
    // a part of a text from the start of a word, not from within one: "Subscribe" is not in
    // "Unsubscribe", nor "Install" in "Uninstall", "Follow" in "Unfollow" (each was clicked, the
    // opposite of what was asked, and "Clicked"; a page could name its trap so)
    else if (fromWordStart(d, q)) best = Math.max(best, 1);
  }
  return best;
}

// Is `el` an item of a menu or list popped up over the page: in a role=menu or listbox that is
// placed out of the flow (absolute or fixed, itself or a box of the five around it)?
function inPoppedMenu(el) {
  const m = el.closest?.('[role=menu],[role=listbox]');
  if (!m) return false;
  for (let n = m, i = 0; n && n.nodeType === 1 && i < 6; n = n.parentElement, i++) {
    const p = styleOf(n)?.position;
    if (p === 'absolute' || p === 'fixed') return true;
  }
  return false;
}

// Does `q` occur in `d` at the start of a word (or start with no letter or digit)?
function fromWordStart(d, q) {
  if (!WORD_CHAR.test(q[0] || '')) return d.includes(q);
  for (let i = d.indexOf(q); i >= 0; i = d.indexOf(q, i + 1)) if (!WORD_CHAR.test(d[i - 1] || '')) return true;
  return false;
}

// Is every word-start occurrence of `q` in `d` negated by the words before it ("don't save",
// "do not delete", "never ask again")? Not when `q` itself says so.
const NEGATION = /(?:^|[\s"'(])(?:don'?t|do not|not|never|no)\s+$/;
function negates(d, q) {
  if (/^(don'?t|do not|not|never|no)\b/.test(q)) return false;
  let any = false;
  for (let i = d.indexOf(q); i >= 0; i = d.indexOf(q, i + 1)) {
    if (WORD_CHAR.test(d[i - 1] || '')) continue;
    if (!NEGATION.test(d.slice(0, i))) return false;
    any = true;
  }
  return any;
}

const WORD_CHAR = /[\p{L}\p{N}]/u;

// Typography folded to what an agent types: an ellipsis to three dots, curly quotes to straight
// ones (TinyMCE's "Open link in…" did not match "Open link in...").
const fold = (s) => s.replace(/\u2026/g, '...').replace(/[\u2018\u2019]/g, "'").replace(/[\u201C\u201D]/g, '"');

function bigrams(s) {
  const out = new Set();
  for (let i = 0; i < s.length - 1; i++) out.add(s.slice(i, i + 2));
  return out;
}
function similarity(a, b) {
  const A = bigrams(a), B = bigrams(b);
  if (!A.size || !B.size) return 0;
  let n = 0;
  for (const x of A) if (B.has(x)) n++;
  return (2 * n) / (A.size + B.size);
}

// Visible to a user, or a hidden native control a visible widget stands for (actions go through it).
function usable(el) {
  // an option of a <select> is as usable as its select (select_option chooses it)
  if (el.tagName === 'OPTION') { const s = el.closest('select'); if (s) el = s; }
  return withStyleCache(() => !hiddenReason(el) || !!proxyFor(el) || !!hoverHost(el));
}

// Seen directly beats seen through a widget (a hidden <select> and its visible combobox both
// named by one label: the combobox).
function rankOf(el) {
  const direct = withStyleCache(() => !hiddenReason(el.tagName === 'OPTION' ? el.closest('select') || el : el));
  const vis = direct || usable(el);
  return (vis ? 16 : 0) + (direct ? 8 : 0) + (isDisabled(el) || isInert(el) || behindModal(el) ? 0 : 4) + (ariaHidden(el) ? 0 : 2);
}

// Links alike to one address (the same "Contact" in a page's header and its footer), or fields
// alike of forms that go to one address (the Python docs' two "Quick search" boxes), do the same
// wherever they are: the one in the viewport is taken. Any other controls alike stay an ambiguous
// target: which of a checkbox "Phone" and a radio button "Phone", or of three date fields'
// "Toggle calendar" buttons, a click took depended on where the page was scrolled.
function sameLinks(top) {
  const href = (c) => {
    const e = c.el;
    // (not a link to "#" or javascript:, a page's handle for a script of its own: two tables'
    // pagers' "Next" links, DataTables' href="#", each page their own table)
    if (e.tagName === 'A') return e.href && !/^\s*(#\s*$|javascript:)/i.test(e.getAttribute('href') || '') ? 'a ' + e.href : null;
    const f = e.form;
    return f && e.name && (e.tagName === 'INPUT' || e.tagName === 'BUTTON' || e.tagName === 'SELECT') ? `f ${f.action} ${(f.method || 'get').toLowerCase()} ${e.tagName} ${e.type} ${e.name}` : null;
  };
  const h = href(top[0]);
  if (!h || !top.every((c) => href(c) === h)) return top;
  // (fields alike of one form are its rows, each its own value: a cart's "Quantity" per item)
  if (h.startsWith('f ') && new Set(top.map((c) => c.el.form)).size < top.length) return top;
  const seen = top.filter((c) => inViewport(c.el));
  return seen.length ? [seen[0]] : [top[0]];
}

// Is `el` inside an aria-hidden subtree (through slots and shadow roots)? The Markdown leaves such
// text out (a calendar hides the months around the one it shows as its grid), so among equal
// matches the one the agent read comes first.
function ariaHidden(el) {
  const up = (n) => n.assignedSlot || n.parentElement || n.parentNode?.host;
  for (let n = el, i = 0; n && n.nodeType === 1 && i < 80; n = up(n), i++) if (n.getAttribute('aria-hidden') === 'true') return true;
  return false;
}

// Candidates as an error lists them, each with a ref to act by: one shown as plain text in the
// Markdown (a calendar's day cell, a row's text) gets one here, where "Use one of the refs" named
// none to use.
function listing(els) {
  return els.map((el) => { const d = describe(el); return /\be\d+\]$/.test(d) ? d : d.replace(/\]$/, ` ${refFor(el)}]`); }).join(', ');
}

// Visible elements whose descriptions come closest to `q` (lowercase): for errors about an
// element a user cannot see.
export function visibleAlternatives(q, purpose = 'any', skip = null) {
  const out = [];
  if (!q) return out;
  for (const el of allElements(document)) {
    if (el === skip) continue;
    const kind = controlKind(el, styleOf(el));
    if (!kind) continue;
    if (purpose === 'type' && !EDITABLE_KINDS.has(kind)) continue;
    const descs = descriptionsOf(el, kind);
    const mc = matchClass(descs, q);
    const sim = Math.max(0, ...descs.map((d) => similarity(d.toLowerCase(), q)));
    if (mc === 0 && sim <= 0.3) continue;
    out.push({ el, mc, sim });
  }
  out.sort((a, b) => (b.mc - a.mc) || (b.sim - a.sim));
  const vis = [];
  for (const c of out) {
    if (withStyleCache(() => !hiddenReason(c.el))) vis.push(c.el);
    if (vis.length >= 5) break;
  }
  return vis;
}

// The error for acting on an element a user cannot see: why, and the visible candidates.
export function hiddenError(el, why, q, purpose) {
  const opener = closedOpener(el);
  if (opener) return closedError(opener, describe(el), el);
  const alts = visibleAlternatives(norm(q).toLowerCase(), purpose, el);
  const e = new Error(`${describe(el)} is not visible to a user (${why}); nothing was done.` +
    (alts.length ? ` Visible candidates: ${listing(alts)}.` : ' No visible element matches it: open what shows it first (a menu, a tab, a dialog), then get the page again.'));
  e.code = 'not_visible';
  return e;
}

// The opener of the closed disclosure holding `el`: the <summary> of a <details> that is not open,
// or the aria-expanded=false control whose aria-controls names a region around it; of nested ones
// the outermost a user can click (what they open first). Null if `el` is in no closed section.
function closedOpener(el) {
  let found = null;
  for (let n = el, i = 0; n && i < 200; n = n.assignedSlot || n.parentElement || n.parentNode?.host, i++) {
    if (n.nodeType !== 1) continue;
    let opener = null;
    if (n.tagName === 'DETAILS' && !n.open) opener = Array.from(n.children).find((c) => c.tagName === 'SUMMARY') || null;
    // a collapsed tree item holds its children (a folder of a file tree): it is their opener
    else if (n !== el && isCollapsedItem(n)) { if (usable(n)) found = n; continue; }
    else {
      if (n.id) {
        // what names it in aria-controls: a collapsed disclosure, a tab not selected, or an opener
        // that says nothing of its state (Bootstrap's offcanvas button)
        try {
          const root = n.getRootNode();
          const id = CSS.escape(n.id);
          // (the last only for a region not shown: a carousel's arrows name the strip of slides
          // they move, which is shown, and a slide out of the frame is in no closed section)
          opener = root.querySelector?.(`[aria-controls~="${id}" i][aria-expanded="false" i]`) ||
            root.querySelector?.(`[role=tab][aria-controls~="${id}" i]:not([aria-selected="true" i])`) ||
            (withStyleCache(() => hiddenReason(n)) ? root.querySelector?.(`[aria-controls~="${id}" i]:not([aria-expanded]):not([role=tab]):not([role=combobox])`) : null) || null;
        } catch { opener = null; }
      }
      // a tab panel named by its tab (aria-labelledby), the tab not selected
      if (!opener && n.getAttribute('role') === 'tabpanel' && n.hasAttribute('aria-labelledby')) {
        const t = n.getRootNode().getElementById?.(n.getAttribute('aria-labelledby').trim().split(/\s+/)[0]);
        if (t && t.getAttribute('role') === 'tab' && t.getAttribute('aria-selected') !== 'true') opener = t;
      }
      // a collapsed toggle right before it that names no region (Bootstrap's dropdown button and
      // its menu): a disclosure of the element after it
      const prev = n.previousElementSibling;
      if (!opener && prev && (prev.getAttribute('aria-expanded') || '').toLowerCase() === 'false' && !prev.hasAttribute('aria-controls')) opener = prev;
    }
    if (opener && !opener.contains(el) && usable(opener)) found = opener;
  }
  return found;
}

const isCollapsedItem = (n) => n.getAttribute('role') === 'treeitem' && (n.getAttribute('aria-expanded') || '').trim().toLowerCase() === 'false';

// The error for a target a user knows is in a closed section: the section's opener to click first
// (a collapsed tree item: ArrowRight on it, the key every ARIA tree expands an item by; a click on
// it selects it in many trees, Shoelace's among them). `el`: the element meant, when known.
function closedError(opener, what, el = null) {
  const d = describe(opener);
  const ref = (d.match(/\b(e\d+)\]$/) || [])[1] || refFor(opener);
  const shown = /\be\d+\]$/.test(d) ? d : d.replace(/\]$/, ` ${ref}]`);
  if (opener.getAttribute('role') === 'tab') {
    const e = new Error(`${what} is in the panel of the tab ${shown}, which is not the tab shown: click ${ref} first, then get the page again; it is not visible until then, and nothing was done.`);
    e.code = 'not_visible';
    return e;
  }
  if (isCollapsedItem(opener)) {
    const e = new Error(`${what} is inside the collapsed tree item ${shown}: expand it first (press_key ArrowRight with target ${ref}, or click its expand toggle), then get the page again; it is not visible until then, and nothing was done.`);
    e.code = 'not_visible';
    return e;
  }
  // an option of a closed drop-down: chosen in one step (a click on the field does not open every
  // one: ui5-combobox opens on its arrow icon, which has no ref)
  // (not a button of the dialog a combobox pops up, a date picker's calendar: Calcite's "Previous
  // month" was "an option" to choose with select_option; that dialog is a section to open)
  if (((opener.getAttribute('role') || '').toLowerCase() === 'combobox' || (opener.getAttribute('aria-haspopup') || '').toLowerCase() === 'listbox') && !popsControls(opener, el)) {
    const e = new Error(`${what} is an option of the closed drop-down ${shown}: choose it with browser_select_option (target ${ref}), which opens it; nothing was done.`);
    e.code = 'not_visible';
    return e;
  }
  const e = new Error(`${what} is inside the closed section ${shown}: open it first (click ${ref}), then get the page again; it is not visible until then, and nothing was done.`);
  e.code = 'not_visible';
  return e;
}

// Is `el` a control of its own (a button, a link, a field) in what a combobox pops up that is no
// list of choices (aria-haspopup dialog, grid: a date picker's calendar), rather than an option?
function popsControls(opener, el) {
  const pop = (opener.getAttribute('aria-haspopup') || '').trim().toLowerCase();
  if (!el || !/^(dialog|grid|tree)$/.test(pop)) return false;
  const role = (el.getAttribute('role') || '').toLowerCase();
  return /^(button|link|checkbox|radio|switch|textbox|combobox|spinbutton|slider)$/.test(role) || /^(BUTTON|A|INPUT|SELECT|TEXTAREA)$/.test(el.tagName);
}

// Text of an element inside a closed section, which is not rendered (so its visible text is
// empty): its DOM text and label attributes, to find a target a user knows is in there.
function closedTexts(el) {
  return [el.textContent, el.getAttribute('aria-label'), el.getAttribute('placeholder'), el.getAttribute('title'),
    el.getAttribute('label'), ...Array.from(el.labels || [], (l) => l.textContent)]
    .map((t) => norm(t || '')).filter((t) => t && t.length < 300);
}

const CELL_ROLES = new Set(['gridcell', 'cell', 'rowheader', 'columnheader']);

// Is `el` (or the box it is shown in, through slots and shadow roots) a cell of a table or grid?
function inCell(el) {
  for (let n = el, i = 0; n && n.nodeType === 1 && i < 8; n = n.assignedSlot || n.parentElement || n.parentNode?.host, i++) {
    const role = (n.getAttribute('role') || '').toLowerCase();
    if (CELL_ROLES.has(role) || (!role && (n.tagName === 'TD' || n.tagName === 'TH'))) return true;
  }
  return false;
}

// A clickable area (known only by its pointer cursor: a drop zone, a card) matched because its text
// contains the target, while a text inside it is exactly the target: that text is what the agent
// read and means (an image by its alt text), and the pointer goes there (hovering a file's name in a drop zone shows that
// file's details; the area's centre may be empty space), the click still reaching the area.
function textInside([c], texty, pick, q) {
  // (an area whose name is the target, a <div> button reading "Save", stays the target)
  // (a name taken from an image inside, a tile's alt text, is that image's: it is the text inside)
  if (c.kind !== 'clickable' || (norm(nameOf(c.el, c.kind)).toLowerCase() === q && norm(c.el.querySelector('img[alt]')?.alt).toLowerCase() !== q)) return null;
  const inner = pick(texty.filter((t) => t.mc === 3 && c.el.contains(t.el)).map((t) => ({ ...t })));
  if (!inner) return null;
  if (inner.length === 1) return inner;
  // several, in one item of the area (a tile's image and, laid over it, its transparent caption):
  // that item; in several items (two files of one name), none stands out: the area stays
  let item = inner[0].el;
  while (item && item !== c.el && !inner.every((t) => item.contains(t.el))) item = item.parentElement;
  return item && item !== c.el ? [{ ...inner[0], el: item }] : null;
}

// purpose: 'click' | 'type' | 'select' | 'any'
const SVG_NS = 'http://www.w3.org/2000/svg';

export function findTarget(target, purpose = 'any') {
  if (target == null || (typeof target === 'string' && !target.trim())) {
    throw new Error('target is required: a ref from the page (e.g. e12), a CSS selector, or a description of the element');
  }
  const raw = String(target).trim();

  if (isRefSyntax(raw)) {
    const el = resolveRef(parseRef(raw));
    return { el: purpose === 'type' ? toField(el) : el, how: 'ref' };
  }

  if (/[#.\[\]>:=*~+()]/.test(raw) && !/\s{2,}/.test(raw)) {
    let matches = null;
    try { matches = querySelectorAllRoots(raw); } catch { matches = null; }
    if (matches && matches.length) {
      const vis = matches.filter(usable);
      const el = vis[0] || matches[0];
      return { el: purpose === 'type' ? toField(el) : el, how: 'selector', count: matches.length };
    }
    if (matches) {
      // valid selector, no match: maybe it was meant as text ("Sign in (beta)"), fall through
    }
  }

  const q = norm(raw).toLowerCase();
  const scored = [];
  const texty = [];
  for (const el of allElements(document)) {
    // an icon's <title> (an SVG's, never drawn) names the icon a user sees and clicks: that <svg>
    // (ui5-step-input's "Increase"; the <title> itself, taken for a control by the pointer cursor
    // it inherits, was "not rendered")
    if (el.localName === 'title' && el.namespaceURI === SVG_NS) {
      const svg = purpose === 'type' || purpose === 'select' ? null : el.parentElement?.closest('svg');
      const sst = svg && styleOf(svg);
      const mc = sst && !invisible(svg, sst, false) ? matchClass([norm(el.textContent)], q) : 0;
      if (mc >= 2) texty.push({ el: svg, kind: null, mc, sim: 0, rank: -1 });
      continue;
    }
    const st = styleOf(el);
    if (!st) continue;
    const kind = controlKind(el, st);
    // (a group drawn with a pointer cursor over its boxes, Ant Design Vue's, is still the group)
    const group = (purpose === 'select' || purpose === 'type') && (!kind || kind === 'clickable') ? (isRadioGroup(el) ? 'radiogroup' : isCheckboxGroup(el) ? 'checkboxgroup' : '') : '';
    if (group) {
      // a radio or checkbox group named by its legend or label: select_option and fill_form choose in it
      const descs = [groupName(el)].filter(Boolean);
      const mc = matchClass(descs, q);
      const sim = Math.max(0, ...descs.map((d) => similarity(d.toLowerCase(), q)));
      scored.push({ el, kind: group, mc, sim, rank: -1 });
      continue;
    }
    if (kind) {
      // (a button that opens a listbox, Headless UI's Listbox, is a field to choose in)
      if (purpose === 'type' && !EDITABLE_KINDS.has(kind) && !opensListbox(el)) {
        // a label text may name the field: handled via descriptionsOf(labels)
        continue;
      }
      const descs = descriptionsOf(el, kind);
      const shown = shownLabel(el, kind);
      if (shown) descs.push(shown);
      const mc = matchClass(descs, q);
      const sim = Math.max(0, ...descs.map((d) => similarity(d.toLowerCase(), q)));
      scored.push({ el, kind, mc, sim, rank: -1, named: mc === 3 && (norm(nameOf(el, kind)).toLowerCase() === q || norm(shown).toLowerCase() === q) });
    } else if (purpose !== 'type' && purpose !== 'select') {
      // non-interactive element whose own text matches (e.g. a div with a JS handler)
      let own = '';
      for (const c of el.childNodes) if (c.nodeType === 3) own += c.data;
      // an image is named by its alt text, as the Markdown shows it (![photo.png])
      if (el.tagName === 'IMG') own = el.getAttribute('alt') || '';
      own = norm(own);
      // (text drawn so no one sees it, transparent, is not what the agent read: the Markdown leaves it out)
      if (own && own.length < 300 && !mutedText(st, el) && !invisible(el, st)) {
        const mc = matchClass([own], q);
        if (mc >= 2) texty.push({ el, kind: null, mc, sim: 0, rank: -1 });
      }
    }
  }

  const pick = (pool) => {
    pool = pool.filter((c) => c.mc > 0);
    if (!pool.length) return null;
    // What the agent saw in the Markdown is visible: visible matches first, then
    // exact > prefix/word > substring, then enabled and in the viewport.
    for (const c of pool) c.vis = usable(c.el);
    if (pool.some((c) => c.vis)) pool = pool.filter((c) => c.vis);
    else {
      // Only elements a user cannot see match: never act on them (a closed menu's item, a hidden
      // native <option>); say so and list what is visible.
      hidden = hidden || pool;
      return null;
    }
    // select_option: what has options before what has none (a button named like the drop-down);
    // only when nothing else matches is the target an element that is not one (its error says so)
    if (purpose === 'select' && pool.some(isChoice)) pool = pool.filter(isChoice);
    const maxMc = Math.max(...pool.map((c) => c.mc));
    let top = pool.filter((c) => c.mc === maxMc);
    // the element whose name is the text beats one that only shows it as its placeholder or title
    // (antd's date field labelled "Start date" and a range picker's first field, whose placeholder
    // is "Start date"): the Markdown shows the first as [input "Start date"], the other by its own name
    if (top.some((c) => c.named) && top.some((c) => !c.named)) top = top.filter((c) => c.named);
    for (const c of top) c.rank = rankOf(c.el);
    const maxRank = Math.max(...top.map((c) => c.rank));
    top = top.filter((c) => c.rank === maxRank);
    if (top.length > 1) top = sameLinks(top);
    // drop candidates that contain another candidate (keep the innermost), except inside a control
    // the Markdown shows as one token (a tab whose <a> holds its text: jQuery UI's tabs): only that
    // token, and its ref, is what the agent read, so it is what is meant
    top = top.filter((c) => !top.some((o) => o !== c && o.el.contains(c.el) && WHOLE_TOKEN_KINDS.has(o.kind)));
    // a radio group and its own radios matching alike (each radio's name= is the group's
    // "ingredient"): the group is the field to choose in
    top = top.filter((c) => !(c.kind === 'radio' && top.some((o) => o.kind === 'radiogroup' && o.el.contains(c.el))));
    top = top.filter((c) => !top.some((o) => o !== c && c.el.contains(o.el)));
    // a custom element's host and the control of the same kind inside its shadow tree, named alike
    // (Calcite's calcite-action role=button "Next month" around its own <button aria-label="Next
    // month">) are one control: the host, which the Markdown shows as its token; so are a pop-up
    // host and the hidden control it is drawn over (Calcite's combobox once a choice hides its
    // input: fill_form "City" matched both)
    // (of any kind inside the host's own shadow root: Carbon's cds-overflow-menu-item, a
    // role=menuitem host around its <button>, "matches 2 elements equally well")
    top = top.filter((c) => !top.some((o) => o !== c && shadowOf(o.el) && (((o.kind === c.kind || c.el.getRootNode() === shadowOf(o.el)) && composedContains(o.el, c.el)) || hiddenPopupControl(o.el) === c.el)));
    // a split button: an action and the arrow beside it that opens its menu (aria-haspopup), named
    // alike (Jodit's "Insert Unordered List" and the list of its styles): clicked, the action,
    // which does what the name says ("matches 2 elements equally well")
    if (purpose === 'click' && top.length === 2 && top[0].el.parentElement === top[1].el.parentElement) {
      const pops = top.map((c) => !!c.el.getAttribute('aria-haspopup') && c.el.getAttribute('aria-haspopup') !== 'false');
      if (pops[0] !== pops[1]) top = [top[pops[0] ? 1 : 0]];
    }
    // an item of a menu popped up over the page and a control of the page named alike (TinyMCE's
    // Format menu's "Italic" and its toolbar's): the item of the menu just opened, which is what a
    // person clicks there
    if (top.length > 1) {
      const up = top.filter((c) => inPoppedMenu(c.el));
      if (up.length === 1) top = up;
    }
    return top;
  };

  let hidden = null;
  let top = pick(scored);
  // a table or grid cell whose text is exactly the target beats a control that only holds it in its
  // name (a row's "Delete Person 003" button for "Person 003"): a user clicks the cell they read
  if (top && top.every((c) => c.mc < 3)) {
    const cells = texty.filter((c) => c.mc === 3 && inCell(c.el) && !top.some((o) => o.el.contains(c.el)));
    const exact = cells.length ? pick(cells) : null;
    if (exact) top = exact;
  }
  // a text that is exactly the target beats a control that holds it only inside a word ("A", a
  // drag column's header, is not the "Start" button): the agent names what it read
  if (top && top.every((c) => c.mc === 1)) top = pick(texty.filter((c) => c.mc === 3 && !top.some((o) => o.el.contains(c.el)))) || top;
  if (top?.length === 1) top = textInside(top, texty, pick, q) || top;
  if (!top && texty.length) top = pick(texty);
  if (!top) {
    // "Search box", "Login button", "the Terms checkbox": a role word plus a name
    const m = q.match(ROLE_WORDS_RE);
    if (m) {
      const rest = norm(q.replace(ROLE_WORDS_RE, ' ').replace(/^(the|a|an)\s+/, '')).toLowerCase();
      const kinds = ROLE_WORDS[m[1]];
      if (rest) {
        const pool = scored.filter((c) => kinds.includes(c.kind)).map((c) => ({ ...c, mc: matchClass(descriptionsOf(c.el, c.kind), rest) }));
        top = pick(pool);
      }
    }
  }
  // A code typed into a row of boxes (a one-time code, a PIN: "pin code 1 of 4" … "4 of 4", all
  // named by "Code") starts in the first box, and the page moves the focus on as each fills.
  if (top && top.length > 1 && purpose === 'type' && boxRow(top.map((c) => c.el))) top = [top[0]];
  if (top && top.length === 1) {
    const el = segmentedFieldOf(top[0].el) || outerOfInert(top[0].el);
    return { el: purpose === 'type' ? toField(el) : el, how: 'description' };
  }
  if (top && top.length > 1) {
    const shown = top.slice(0, 6).map((c) => c.el);
    const e = new Error(`"${raw}" matches ${top.length} elements equally well: ${listing(shown)}${top.length > 6 ? ', …' : ''}. Use one of the refs.`);
    e.code = 'ambiguous_target';
    throw e;
  }
  if (hidden && hidden.length) {
    hidden.sort((a, b) => b.mc - a.mc);
    // one in a closed section (a <details>, a collapsed panel): the section to open first
    for (const c of hidden) { const o = closedOpener(c.el); if (o) throw closedError(o, JSON.stringify(raw), c.el); }
    const best = hidden[0].el;
    throw hiddenError(best, hiddenReason(best) || 'it cannot be reached', raw, purpose);
  }
  // nothing matched as rendered: a control in a closed section (not rendered, so its text is
  // empty) whose DOM text is the target is what the agent means: name the section to open
  for (const c of scored) {
    if (c.mc > 0 || matchClass(closedTexts(c.el), q) < 2) continue;
    const o = closedOpener(c.el);
    if (o) throw closedError(o, JSON.stringify(raw), c.el);
  }
  // nothing matched: list the closest ones a user can see (a closed menu's item is none)
  const closest = scored
    .filter((c) => (c.sim > 0.2 || c.mc > 0) && usable(c.el))
    .sort((a, b) => (b.mc - a.mc) || (b.sim - a.sim))
    .slice(0, 5);
  for (const c of closest) c.rank = rankOf(c.el);
  const what = purpose === 'type' ? 'field' : 'element';
  const boxes = cutOffBoxes();
  // (the page itself scrolls on below the view: a list drawn only where it is seen, or a feed that
  // loads more as it is scrolled, in the page's own scroll: "Message 500" matched nothing, and
  // nothing said more could come)
  const se = document.scrollingElement || document.documentElement;
  const below = Math.round(se.scrollHeight - se.scrollTop - se.clientHeight);
  const e = new Error(`No ${what} matches "${raw}".` + (closest.length ? ` Closest: ${listing(closest.map((c) => c.el))}.` : ' Get the page to see the refs of the elements.') +
    (boxes.length ? ` ${boxes.length > 1 ? 'Parts of the page that scroll on their own show' : 'A part of the page that scrolls on its own shows'} only some of what ${boxes.length > 1 ? 'they hold' : 'it holds'}, ${listing(boxes)}: what is not drawn yet (a long list draws only the rows in view) may be further in ${boxes.length > 1 ? 'one' : 'it'}; scroll it (browser_scroll with that target), then look again.` : '') +
    (below > 200 ? ` The page goes on ${below} px below what is in view: a list drawn only where it is seen, or one that loads more as the page is scrolled, may hold it further down; scroll the page (browser_scroll), then look again.` : ''));
  e.code = 'target_not_found';
  throw e;
}

// The boxes a user sees that scroll on their own and hold more than they show, the most hidden
// first, at most 3 (a virtualized list: react-window draws only the rows in view, and "Open 742"
// matched nothing while "Open 7" was offered as closest). Looks at the first 5,000 elements.
function cutOffBoxes() {
  const out = [];
  let n = 0;
  for (const el of allElements(document)) {
    if (++n > 5000) break;
    const hidden = el.scrollHeight - el.clientHeight;
    if (hidden <= 40 || el.clientHeight < 40 || el === document.scrollingElement || el === document.body) continue;
    const st = styleOf(el);
    if (!st || !/(auto|scroll)/.test(st.overflowY) || out.some((o) => o.el.contains(el))) continue;
    if (withStyleCache(() => !hiddenReason(el))) out.push({ el, hidden });
  }
  return out.sort((a, b) => b.hidden - a.hidden).slice(0, 3).map((o) => o.el);
}

// The control around `el` when `el` is made inert inside it by the page (not by a modal): the
// browser passes an inert element no click, so a click on it, or on the <label> that names it,
// reaches the control around it (Grommet's Select: a read-only <input inert> inside the drop-down
// <button>, named "Country" by its label, was "inert … nothing was done"). `el` itself otherwise.
function outerOfInert(el) {
  const root = el.closest?.('[inert]');
  if (!root || modalDialog(el)) return el;
  for (let n = root.parentElement, i = 0; n && i < 8; n = n.parentElement, i++) {
    if (n.closest('[inert]')) return el;
    const st = styleOf(n);
    if (st && controlKind(n, st) && usable(n)) return n;
  }
  return el;
}

// An element a user cannot use, disabled or inert (isInert): an error saying so, before anything
// is done (a click on an inert button reached nothing, and was reported a success).
export function refuseUnusable(el, of = '') {
  if (isDisabled(el)) throw new Error(`${describe(el)}${of} is disabled`);
  if (isInert(el)) throw new Error(`${describe(el)}${of} is inert (${modalDialog(el) ? 'behind an open modal dialog' : 'inside an element with the inert attribute'}): the page lets no one use it now; nothing was done`);
  const d = behindModal(el);
  if (d) throw new Error(`${describe(el)}${of} is behind ${modalName(d)}, which covers the rest of the page: no user can reach it until ${d.matches(DIALOG_SEL) ? 'the dialog' : 'that'} is closed; nothing was done`);
}
