// Custom widgets drawn over a hidden native control: a visually hidden checkbox or radio under a
// visible label or styled box, a hidden <select> replaced by a button and a listbox (jQuery UI
// selectmenu, Select2, Chosen, bootstrap-select). A user acts on the visible widget, so actions
// go through it: the widget's own handlers then update both it and the native control.
import { norm, inputType, flatText, flatParent, hiddenPopupControl, nameOf, allRoots, focusedElement, styleOf, shadowOf, isDisabled, isInert, mouse, oneOneBox, classDropdown, chosenSelect, ownList, frame, segmentedFieldOf, textOfIds } from './dom.js';
import { drawnListOf } from './hidden.js';
import { hiddenReason, composedParent, composedContains, flatChildren, shownChoiceOf, clickPoint, deepElementAt } from './reach.js';

const POPUP_ROLES = new Set(['combobox', 'button', 'listbox']);

function visible(el) {
  return !!el && !hiddenReason(el);
}

// The visible element a user would act on for the hidden control `el`, or null (also for a
// visible `el`: it needs no proxy).
export function proxyFor(el) {
  if (!el || el.nodeType !== 1 || visible(el)) return null;
  if (el.tagName === 'SELECT') return replacementFor(el);
  if (el.tagName === 'TEXTAREA' || contextEditor(el)) return editorFor(el)?.face || null;
  if (el.tagName === 'OPTION') {
    const sel = el.closest('select');
    return sel ? replacementFor(sel) : null;
  }
  // A combobox's field hidden inside its visible box (Tom Select hides its input once an item is
  // chosen; a user clicks the box).
  if (el.tagName === 'INPUT' && (roleOf(el) === 'combobox' || el.hasAttribute('aria-haspopup'))) {
    const box = faceOf(el);
    if (box !== el && visible(box)) return box;
    return fieldBoxOf(el);
  }
  // The visually hidden pop-up control a custom element draws its field over (ion-select's
  // <button aria-haspopup>): the host a user sees.
  const root = el.getRootNode?.();
  if (root && root.nodeType === 11 && root.host && hiddenPopupControl(root.host) === el && visible(root.host)) return root.host;
  // (a visually hidden range input inside the thumb a slider draws, MUI's, is acted on the same
  // way: the thumb is what a user sees and grabs, the input takes the keys and the value)
  // (and a visually hidden <button role=switch|checkbox> with a <label for> beside it: Carbon's
  // cds-toggle, a 1×1 button, its label the track a user clicks)
  // (the native input a field drawn as segments keeps inside it, its label pointing at it: Reka's
  // DateField; the field is what a user sees and types into)
  const seg = segmentedFieldOf(el);
  if (seg) return visible(seg) ? seg : null;
  const boxButton = el.tagName === 'BUTTON' && ['switch', 'checkbox'].includes(roleOf(el)) && el.labels?.length;
  if (!boxButton && (el.tagName !== 'INPUT' || !['checkbox', 'radio', 'range'].includes(inputType(el)))) return null;
  // A visible label of it.
  for (const l of Array.from(el.labels || [])) if (visible(l)) return l;
  // A styled box: the nearest visible ancestor (two levels at most, the host of a shadow root
  // counts) that holds no other form control; in the flat tree, where a user sees it: a control
  // slotted into a shadow root is drawn in its slot's box (a closed accordion's panel, not the
  // host: "Clicked" the accordion's header there, Carbon's and Spectrum's), and one no slot takes
  // is drawn nowhere.
  let n = flatParent(el);
  for (let depth = 0; n && n.nodeType === 1 && depth < 3; depth++, n = flatParent(n)) {
    if (n.tagName === 'BODY' || n.tagName === 'FORM') break;
    // (a closed <details> or a box not drawn at all hides the control, it draws no face for it:
    // the control is in a closed section, to be opened first)
    if ((n.tagName === 'DETAILS' && !n.open) || getComputedStyle(n).display === 'none') break;
    const inner = (shadowOf(n) || n).querySelectorAll('input:not([type=hidden]),select,textarea,button');
    if (inner.length > 1) break;
    if (visible(n)) return n;
  }
  return null;
}

// The nearest visible box around a hidden combobox field (three levels at most) that holds no other
// field: Element Plus hides its select's input in a transparent wrapper beside the chosen items
// and their remove buttons, all in the box a user clicks. Null if none.
function fieldBoxOf(el) {
  let n = el.parentElement;
  for (let i = 0; n && i < 3; i++, n = n.parentElement) {
    if (n.tagName === 'BODY' || n.tagName === 'FORM' || n.tagName === 'LABEL') break;
    if (othersIn(n, 'input:not([type=hidden]),select,textarea,[role=combobox],[role=textbox]', el)) break;
    if (visible(n)) return n;
  }
  return null;
}

// The box around an icon-only trigger that draws nothing itself (two levels at most) where the
// widget shows its choice: the nearest visible one that shows no other field or button. Null if
// none, or when the trigger shows text of its own.
function triggerBox(el) {
  if (norm(el.textContent)) return null;
  let n = el.parentElement;
  for (let i = 0; n && i < 2; i++, n = n.parentElement) {
    if (n.tagName === 'BODY' || n.tagName === 'FORM' || n.tagName === 'LABEL') break;
    if (Array.from(n.querySelectorAll('input:not([type=hidden]),select,textarea,button,[role=button],[role=combobox]')).some((c) => c !== el && visible(c))) break;
    if (visible(n)) return n;
  }
  return null;
}

// The one button beside a combobox's text field in its box that opens its list, a user's other way
// in (an icon, no words of its own, out of the Tab order or saying it pops up a list); null if none.
function arrowBeside(widget) {
  if (widget.tagName !== 'INPUT' || !widget.parentElement) return null;
  const btns = Array.from(widget.parentElement.querySelectorAll('button,[role=button]')).filter((b) => b !== widget && visible(b));
  const b = btns.length === 1 ? btns[0] : null;
  if (!b || isDisabled(b) || /[\p{L}\p{N}]/u.test(b.textContent)) return null; // (an icon font's glyph is no word)
  return b.tabIndex < 0 || b.hasAttribute('aria-expanded') || /^(listbox|true)$/i.test(b.getAttribute('aria-haspopup') || '') ? b : null;
}

// Does box `n` hold a field (matching `sel`) other than `el`? A hidden <select> does not count: it
// mirrors the widget's choice for forms (PrimeReact's Dropdown keeps one beside its hidden input).
function othersIn(n, sel, el) {
  return Array.from(n.querySelectorAll(sel)).some((c) => c !== el && !(c.tagName === 'SELECT' && !visible(c)));
}

// The root of a contenteditable region inside `box` (itself, or the first one in it: at most 300
// elements looked at), or the body of a same-origin iframe in it whose document is editable.
function editableIn(box) {
  const list = [box, ...Array.from(box.querySelectorAll('[contenteditable],iframe')).slice(0, 300)];
  for (const n of list) {
    if (n.tagName === 'IFRAME') {
      let d = null;
      try { d = n.contentDocument; } catch { d = null; }
      const b = d?.body;
      if (b && (b.isContentEditable || d.designMode === 'on') && visible(n)) return { face: n, input: b };
    } else if (n.isContentEditable && !n.parentElement?.isContentEditable && visible(n)) return { face: n, input: n };
  }
  return null;
}

// Is a rendered textarea drawn so that no one sees it (transparent, or at most 1 px, itself or its
// wrapper), whatever is on top: the key catcher of a code editor, even while focused.
function drawnInvisible(ta) {
  for (let n = ta, i = 0; n && n.nodeType === 1 && i < 2; n = composedParent(n), i++) {
    const st = n.ownerDocument.defaultView.getComputedStyle(n);
    const r = n.getBoundingClientRect();
    if (st.opacity === '0' || r.width < 2 || r.height < 2) return true;
  }
  return false;
}

// An element that takes an editor's text through an EditContext (the browser's API for editors
// that draw their own text: Monaco's focus target, a zero-width role=textbox): not a field, not
// contenteditable; its text comes from its EditContext's textupdate events.
export function contextEditor(el) {
  return !!el && el.nodeType === 1 && el.tagName !== 'TEXTAREA' && !el.isContentEditable && !!el.editContext;
}

// The editor a user types in for a hidden <textarea> (code and rich-text editors keep one for
// their keys or for the form): { face, input }, face what a user sees and clicks, input what
// takes the text. Two shapes: the textarea is drawn transparent inside the visible editor box
// that shows its text (it takes the keys: input is the textarea; Ace, CodeMirror 5, Monaco without
// EditContext; also an EditContext element drawn with no size, contextEditor: Monaco's), or it is
// display:none and the editor is put right after it (TinyMCE, CKEditor: a contenteditable region
// or an editable iframe in the next visible sibling). Null when neither holds.
export function editorFor(ta) {
  const ctx = contextEditor(ta);
  if (!ctx && (!ta || ta.tagName !== 'TEXTAREA' || ta.disabled || ta.readOnly)) return null;
  const own = ta.ownerDocument.defaultView.getComputedStyle(ta);
  if (own.display !== 'none') {
    if (!drawnInvisible(ta)) return null;
    let n = composedParent(ta);
    for (let depth = 0; n && n.nodeType === 1 && depth < 3; depth++, n = composedParent(n)) {
      if (n.tagName === 'BODY' || n.tagName === 'FORM') break;
      if ((shadowOf(n) || n).querySelectorAll('input:not([type=hidden]),select,textarea,[contenteditable]').length > 1) break;
      const r = n.getBoundingClientRect();
      if (r.width >= 40 && r.height >= 16 && visible(n)) return { face: n, input: ta };
    }
    return null;
  }
  if (ctx) return null;
  let sib = ta.nextElementSibling;
  for (let i = 0; sib && i < 3; i++, sib = sib.nextElementSibling) {
    if (sib.tagName === 'SCRIPT' || sib.tagName === 'STYLE' || !visible(sib)) continue;
    const ed = editableIn(sib);
    if (ed) return ed;
    // a code editor put after it whose own key catcher takes the text (CodeMirror 5's fromTextArea:
    // a transparent textarea in its box)
    const catcher = sib.querySelector('textarea');
    const code = catcher && catcher !== ta ? editorFor(catcher) : null;
    if (code?.input === catcher) return code;
    break;
  }
  // an editor put before it (Jodit's box), unless that one is the editor put after another hidden
  // textarea before it (two CKEditors in a row)
  const prev = ta.previousElementSibling;
  const owner = prev?.previousElementSibling;
  if (prev && visible(prev) && !(owner?.tagName === 'TEXTAREA' && styleOf(owner)?.display === 'none')) {
    const ed = editableIn(prev);
    if (ed) return ed;
  }
  return null;
}

// The element that draws a code editor's lines inside its box `face` (Monaco's view lines,
// aria-hidden: what a user reads): the one in a monospace font, holding elements, with the most
// text (the deepest of equals: not a wrapper of it), a gutter of line numbers only when there is
// nothing else (an empty editor still has its "1"). At most 3000 elements looked at.
export function drawnCode(face) {
  let best = null, bestLen = -1, gutter = null;
  const els = face.querySelectorAll('*');
  for (let i = 0; i < els.length && i < 3000; i++) {
    const n = els[i];
    if (!n.firstElementChild) continue;
    const st = styleOf(n);
    if (!st || !MONO_FONT.test(st.fontFamily)) continue;
    const text = n.textContent || '';
    if (text && /^[\d\s]+$/.test(text)) { gutter = gutter || n; continue; }
    if (text.length > bestLen || (text.length === bestLen && best.contains(n))) { best = n; bestLen = text.length; }
  }
  return best || gutter;
}

const MONO_FONT = /mono|courier|consolas|menlo|monaco/i;

// Is `el` a code editor's region (its text drawn in a monospace font: CodeMirror 6's)? Its text
// goes in whole, line breaks and all: a key's Enter there indents or continues a list.
export function monospaced(el) {
  return MONO_FONT.test(styleOf(el)?.fontFamily || '');
}

// A code editor whose text is drawn apart from the element that takes it, and hidden from
// assistive technology (Monaco: its lines are aria-hidden; it takes text through an EditContext
// element or a transparent textarea): { face, view }, the editor's box and the element drawing
// its lines (null when none is found), for `el` that takes the text; else null. Ace's textarea
// is not one: its lines are shown as they are.
export function drawnEditor(el) {
  const ctx = contextEditor(el);
  if (!ctx && el?.tagName !== 'TEXTAREA') return null;
  const ed = editorFor(el);
  if (!ed || ed.input !== el) return null;
  // (a textarea's editor with nothing aria-hidden, Ace's, is not one: asked for each of its tokens,
  // the face's styles are not read for it)
  if (!ctx && !ed.face.querySelector('[aria-hidden="true"]')) return null;
  const view = drawnCode(ed.face);
  if (ctx) return { face: ed.face, view };
  return view && view.closest('[aria-hidden="true"]') ? { face: ed.face, view } : null;
}

const WIDGET_CLASS = /(^|[\s_-])(select|selectmenu|dropdown|chosen|combo|combobox|picker)([\s_-]|$)/i;

// The text a <select> shows now: its selected option's label.
const selectedLabel = (sel) => norm(sel.selectedOptions?.[0]?.label || sel.selectedOptions?.[0]?.textContent || '');

// Does the native select hold the option labelled `want` (lowercase): its choice, or for a
// multiple select one of its chosen options (the earlier ones stay chosen).
// (an option with no words of its own is known by its value: DevExtreme's TagBox submits its
// choices in a hidden select of <option value="Gift"> with no text)
const optionIs = (o, want) => norm(o.label || o.textContent).toLowerCase() === want || (!norm(o.textContent) && norm(o.value).toLowerCase() === want);
const holds = (sel, want) => (sel.multiple
  ? Array.from(sel.selectedOptions || []).some((o) => optionIs(o, want))
  : selectedLabel(sel).toLowerCase() === want || (sel.selectedIndex >= 0 && optionIs(sel.options[sel.selectedIndex], want)));

// Does `area` show `text` to a user as a select's current choice: a visible element in it (not the
// select's own options) whose text is exactly it, or a field showing it as its value or, empty, as
// its placeholder (Tom Select shows the empty option's text as its input's placeholder)?
function areaShows(area, text, sel) {
  // (a multiple select's face may show its choices joined, as bootstrap-select's "Cheese, Olives":
  // after a second choice its widget was no longer found, "not visible")
  const wants = [text.toLowerCase()];
  if (sel.multiple && sel.selectedOptions?.length > 1) wants.push(Array.from(sel.selectedOptions).slice(0, 50).map((o) => norm(o.label || o.textContent)).join(', ').toLowerCase());
  const els = [area, ...area.querySelectorAll('*')];
  for (let i = 0; i < els.length && i < 300; i++) {
    const el = els[i];
    if (sel.contains(el) || el.contains(sel)) continue; // the select's options are no display
    if (el.tagName === 'INPUT') {
      const v = (norm(el.value) || norm(el.getAttribute('placeholder'))).toLowerCase();
      if (wants.includes(v) && visible(el)) return true;
    } else if ((wants.includes(norm(el.textContent).toLowerCase()) || wants.includes(ownText(el).toLowerCase())) && visible(el)) return true;
  }
  return false;
}

// The text of an element's own text nodes: a multi-select's chosen item shows its label beside a
// remove mark (Select2: <li><span>×</span>Green</li>).
const ownText = (el) => norm(Array.from(el.childNodes).filter((c) => c.nodeType === 3).map((c) => c.data).join(' '));

// Where the widget of a hidden <select> may be, nearest first: the elements right beside it (Tom
// Select, Select2, Chosen and selectmenu draw theirs after it), then each ancestor (three at most)
// that holds no other select (Choices.js and bootstrap-select wrap the select in their widget).
function widgetAreas(sel) {
  const out = [];
  let n = sel;
  for (let i = 0; i < 3 && n.parentElement; i++, n = n.parentElement) {
    for (const s of [n.nextElementSibling, n.previousElementSibling]) {
      if (s && s.tagName !== 'SELECT' && !s.querySelector('select') && !out.some((a) => a.contains(s))) out.push(s);
    }
    const p = n.parentElement;
    if (p.tagName === 'BODY' || p.tagName === 'FORM' || p.querySelectorAll('select').length > 1) break;
    out.push(p);
  }
  return out;
}

// The visible widget that stands for a hidden <select>: in the areas beside or around it that show
// the selected option's text, the element with the strongest signs of a drop-down (a tie to the
// nearest), preferring a combobox or button; jQuery UI names it "<id>-button".
export function replacementFor(sel) {
  if (visible(sel)) return null;
  const doc = sel.ownerDocument;
  // (Chosen's box, drawn right after the select it hides: the combobox the Markdown shows)
  const chosen = sel.nextElementSibling;
  if (chosen && chosenSelect(chosen) === sel && visible(chosen)) return chosen;
  if (sel.id) {
    const b = doc.getElementById(sel.id + '-button');
    if (visible(b)) return b;
  }
  // (a placeholder option, of no value, may show as the widget's own placeholder instead: Preline's
  // "Choose" as "Select option...", and the select was "not visible to a user")
  const cur = sel.selectedOptions?.[0]?.value === '' ? '' : selectedLabel(sel);
  let best = null, bestScore = 0;
  const seen = new Set();
  for (const area of widgetAreas(sel)) {
    if (cur && !areaShows(area, cur, sel)) continue;
    for (const el of [area, ...area.querySelectorAll('*')]) {
      if (seen.has(el)) continue;
      seen.add(el);
      if (el === sel || sel.contains(el) || el.tagName === 'OPTION') continue;
      const role = (el.getAttribute('role') || '').toLowerCase();
      // A strong sign of a drop-down is required (a plain button that happens to show the
      // selected text, "Yes, continue", must never be taken for the select's widget).
      let score = 0;
      // (not the list of options itself, drawn in the widget's box while open: Preline's; its
      // middle was clicked as the widget, and an option chosen that no one asked for)
      if (role === 'listbox' && !el.hasAttribute('aria-haspopup') && !el.hasAttribute('aria-expanded') && el.childElementCount > 1) continue;
      if (POPUP_ROLES.has(role) && role !== 'button') score += 4;
      // (a focusable box holding the select: Preline's wrapper, which opens its list when clicked)
      if (el.contains(sel) && el.hasAttribute('tabindex') && el.tabIndex >= 0) score += 3;
      if (el.hasAttribute('aria-haspopup') || el.hasAttribute('aria-expanded')) score += 3;
      if (WIDGET_CLASS.test(typeof el.className === 'string' ? el.className : '')) score += 2;
      if (!score) continue;
      if (el.tagName === 'BUTTON' || (el.tagName === 'A' && el.tabIndex >= 0) || role === 'button') score += 1;
      if (el.tabIndex >= 0) score += 1;
      // a tie goes to the nearer area; a combobox field hidden in its visible box counts
      if (score <= bestScore || !(visible(el) || (el.tagName === 'INPUT' && proxyFor(el)))) continue;
      best = el;
      bestScore = score;
    }
  }
  return best;
}

// The hidden native <select> a visible widget stands for (the one whose replacementFor is the
// widget, or holds it, or lies in it), looked for beside and inside the widget and its ancestors.
export function selectBehind(widget) {
  let n = widget;
  for (let i = 0; n && i < 4 && n.tagName !== 'BODY' && n.tagName !== 'FORM'; i++, n = n.parentElement) {
    const near = [n.previousElementSibling, n.nextElementSibling, ...n.querySelectorAll('select')];
    for (const s of near) {
      if (s?.tagName !== 'SELECT' || visible(s)) continue;
      const r = replacementFor(s);
      if (r && (r === widget || r.contains(widget) || widget.contains(r))) return s;
    }
  }
  return null;
}

const OPTIONISH = new Set(['option', 'menuitem', 'menuitemradio', 'treeitem', 'gridcell']);

// The element children of `el` as composed for display: a shadow root's, a <slot>'s assigned
// elements (Shoelace's sl-options are slotted into the listbox in sl-select's shadow root).
function composedChildren(el) {
  if (shadowOf(el)) return Array.from(shadowOf(el).children);
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

// A chosen item a field draws in its shadow root (ui5-multi-combobox's tokens) showing exactly
// `want`, outside the lists and popups it holds there (2000 elements looked at). Null if none.
export function tokenIn(field, want) {
  // (the field, or the custom element whose shadow root it is in)
  if (!shadowOf(field)) field = field.getRootNode?.().host || null;
  if (!field || !shadowOf(field)) return null;
  const els = composedDescendants(field);
  const inPopup = (e) => {
    for (let n = e; n && n !== field; n = composedParent(n)) {
      if (/^(listbox|dialog|menu|tooltip)$/.test((n.getAttribute?.('role') || '').toLowerCase()) || n.hasAttribute?.('popover')) return true;
    }
    return false;
  };
  for (let i = 0; i < els.length && i < 2000; i++) {
    const e = els[i];
    if (composedChildren(e).length || shownText(e).toLowerCase() !== want || !visible(e) || inPopup(e)) continue;
    return e;
  }
  return null;
}

// The popups `widget` names (aria-controls / aria-owns, on it or inside it), looked up in its own
// root first (a listbox in the same shadow root as its combobox), then in the document.
function popupsOf(widget) {
  const box = widget.tagName === 'INPUT' ? oneOneBox(widget) : null;
  const inner = [widget, ...(box ? [box] : []), ...(shadowOf(widget) || widget).querySelectorAll('[aria-owns],[aria-controls]')];
  // (a drop-down drawn without ARIA holds its list: Fomantic UI's .menu, Chosen's open .chosen-drop;
  // the widget may be the field inside Chosen's box, which a click on the box lands on)
  const chosen = widget.closest?.('.chosen-container');
  const own = ownList(chosen || widget);
  const out = own ? [own] : [];
  for (const e of inner) {
    const ids = `${e.getAttribute('aria-owns') || ''} ${e.getAttribute('aria-controls') || ''}`.split(/\s+/).filter(Boolean);
    const root = e.getRootNode();
    for (const id of ids) {
      const p = (root.getElementById ? root.getElementById(id) : null) || widget.ownerDocument.getElementById(id);
      if (p && !out.includes(p)) out.push(p);
    }
  }
  // (a listbox kept for screen readers only, clipped to nothing, beside the aria-hidden list drawn
  // for the eye: that list too, where a user reads and clicks the options; Calcite's combobox)
  for (let i = 0, n = out.length; i < n; i++) {
    const d = drawnListOf(out[i]);
    if (d && !out.includes(d)) out.push(d);
  }
  return out;
}

// The option elements of a drop-down widget, open or not: the ARIA options of the popups it names.
export function optionsOf(widget) {
  const out = new Set();
  // (a combobox's list of checkable menu items is its options too: Fluent's multiselect Dropdown
  // names a role=menu of menuitemcheckbox; its list was "not shown", clicked shut and open again)
  const roles = roleOf(widget) === 'combobox' ? /^(option|menuitemcheckbox|menuitemradio)$/ : /^option$/;
  // (each once: a widget may name its popup and the listbox inside it, DevExtreme's TagBox, whose
  // options were listed twice)
  for (const p of popupsOf(widget)) {
    for (const el of composedDescendants(p)) if (roles.test((el.getAttribute('role') || '').toLowerCase())) out.add(el);
  }
  return [...out];
}

// The names of a combobox's options as its `options=` list shows them: each option's accessible
// name (its aria-label before its text: antd's options say their label there and their value as
// text). None when the combobox is open but the listbox it names is drawn at no size: a copy for
// screen readers holding only the options around the active one (antd's), while the list a user
// sees is drawn beside it, and shows in the page as it is.
export function optionNames(widget) {
  const opts = optionsOf(widget);
  if (!opts.length) return [];
  const pops = popupsOf(widget);
  const drawn = (p) => { const r = p.getBoundingClientRect(); return r.width >= 1 && r.height >= 1; };
  if (widget.getAttribute('aria-expanded') === 'true' && !pops.some(drawn)) return [];
  // (closed too: a list laid out at no size, not one hidden, is a screen-reader copy of a window of
  // its options, antd's: "Apple" was missing from options=[…] once Cherry was chosen; so is one
  // given no size in a popup hidden whole, Ant Design Vue's once opened and closed: "Paris" was)
  const noSize = (p) => { const st = styleOf(p); return !!st && (st.width === '0px' || st.height === '0px'); };
  if (pops.length && pops.every((p) => (p.getClientRects().length > 0 ? !drawn(p) : noSize(p)))) return [];
  return opts.map((o) => norm(o.getAttribute('aria-label')) || shownText(o)).filter(Boolean);
}

// What a user sees of a widget: the widget itself, or for a field in a box (Tom Select's input
// beside its chosen item) the box around it (two levels at most) that holds no other field or label.
function faceOf(widget) {
  let f = widget;
  if (widget.tagName !== 'INPUT' && widget.tagName !== 'TEXTAREA') return f;
  for (let p = widget.parentElement, i = 0; p && i < 2; p = p.parentElement, i++) {
    if (p.tagName === 'BODY' || p.tagName === 'FORM' || p.tagName === 'LABEL') break;
    if (othersIn(p, 'input:not([type=hidden]),select,textarea,button,label,[role=combobox],[role=textbox]', widget)) break;
    f = p;
  }
  // a hidden field in a box that also holds buttons (a multi-select's chosen items): that box
  return visible(f) ? f : fieldBoxOf(widget) || f;
}

// An rgba() colour's channels, or null.
function rgba(c) {
  const m = /rgba?\(([\d.]+),\s*([\d.]+),\s*([\d.]+)(?:,\s*([\d.]+))?\)/.exec(c || '');
  return m ? { r: +m[1] / 255, g: +m[2] / 255, b: +m[3] / 255, a: m[4] === undefined ? 1 : +m[4] } : null;
}

// Is text drawn in colour `c` fainter than a field's own text (colour `own`): more transparent,
// or a grey much lighter or darker than it? It is then the field's placeholder, which is drawn
// faint by convention (antd's Select shows its placeholder as a grey <div> beside its input).
function fainter(c, own) {
  const t = rgba(c), f = rgba(own);
  if (!t || !f) return false;
  if (t.a < 0.6 * f.a) return true;
  const lum = (x) => 0.2126 * x.r + 0.7152 * x.g + 0.0722 * x.b;
  const grey = Math.max(t.r, t.g, t.b) - Math.min(t.r, t.g, t.b) < 0.1;
  return grey && Math.abs(lum(t) - lum(f)) > 0.3;
}

// What a combobox <input> with no value of its own shows as its choice beside it, in the box
// that is its face (a select that keeps its input empty and draws the chosen label, or the chosen
// tags, as text next to it: antd's): { value } (tags joined by ", "), { placeholder } for faint
// text only, or null. The popups it names, aria-hidden parts (a tag's remove icon) and other
// fields are not its text.
export function shownBeside(input) {
  if (input.tagName !== 'INPUT' || input.value) return null;
  const face = faceOf(input);
  if (face === input || !face.contains(input)) return null;
  return shownIn(face, input);
}

// What a custom combobox that draws its list inside itself (Semantic UI's dropdown: its menu, and
// a faint "default text" as its placeholder) shows as its choice: its text without the list's,
// the text typed into its search box, faint text a placeholder. As shownBeside; null if nothing.
export function shownInBox(box) {
  return box.tagName === 'INPUT' ? null : shownIn(box, box, true);
}

const LIST_ROLES = /^(listbox|option|menu|menuitem|tree|grid|dialog)$/;

function shownIn(face, input, inside = false) {
  const skip = popupsOf(input);
  const own = styleOf(input)?.color;
  const vals = [], faint = [];
  let budget = 300;
  // the field's own name drawn in its box is its floating label (Quasar's), no value; text drawn
  // as the placeholder (its attribute's words, or in an element whose class says "placeholder":
  // PrimeVue's and PrimeReact's p-placeholder, in a grey too dark to tell by colour) is none either
  const name = inside ? '' : norm(nameOf(input)).toLowerCase();
  const ph = norm(input.getAttribute('placeholder')).toLowerCase();
  const marked = (el) => { for (let n = el; n && n !== face; n = n.parentElement) if (/placeholder/i.test(n.getAttribute?.('class') || '')) return true; return false; };
  const add = (text, el) => {
    const t = norm(text);
    if (!t || t.toLowerCase() === name) return;
    (t.toLowerCase() === ph || marked(el) || fainter(styleOf(el)?.color, own) ? faint : vals).push(t);
  };
  const walk = (el) => {
    for (const c of flatChildren(el)) {
      if (--budget < 0) return;
      if (c.nodeType === 3) { add(c.data, el); continue; }
      if (c.nodeType !== 1 || skip.includes(c) || c.getAttribute('aria-hidden') === 'true' || !visible(c)) continue;
      // (in a box that is the field: what is typed into its search box; not its list, nor its
      // buttons; its live text, role=alert or status, is what it shows)
      if (inside && c.tagName === 'INPUT') { add(c.value, c); continue; }
      if (inside ? c.matches('select,textarea,button') || LIST_ROLES.test(roleOf(c)) || (c.classList.contains('menu') && classDropdown(face)) : c.matches('input,select,textarea,button,[role]')) continue;
      // a box holding the field is walked into; a box of its own (a tag) is one item, in the
      // colour its text is drawn in
      if (c.contains(input)) { walk(c); continue; }
      const tw = c.ownerDocument.createTreeWalker(c, NodeFilter.SHOW_TEXT, { acceptNode: (n) => (n.data.trim() ? 1 : 3) });
      add(c.innerText, tw.nextNode()?.parentElement || c);
    }
  };
  walk(face);
  if (vals.length) return { value: vals.join(', ') };
  return faint.length ? { placeholder: faint.join(' ') } : null;
}

// The text a user sees in `face` outside the popups in `skip` (an open list's options are not the
// choice shown): the visible text and the values of visible fields, lowercased.
function faceText(face, skip) {
  const parts = [];
  let budget = 2000;
  // through the flat tree: a slot's assigned nodes (or its fallback text) are where they are shown
  const walk = (el) => {
    if (--budget < 0 || el.tagName === 'SELECT' || el.tagName === 'OPTION' || skip.includes(el) || !visible(el)) return;
    if (el.tagName === 'INPUT' || el.tagName === 'TEXTAREA') { parts.push(el.value); return; }
    for (const c of flatChildren(el)) {
      if (c.nodeType === 3) parts.push(c.data);
      else if (c.nodeType === 1) { parts.push(' '); walk(c); parts.push(' '); }
    }
  };
  walk(face);
  return norm(parts.join('')).toLowerCase();
}

// Does `hay` hold `want` as whole words ("apple" is not in "pineapple")?
const hasWords = (hay, want) => new RegExp(`(^|[^\\p{L}\\p{N}])${want.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}([^\\p{L}\\p{N}]|$)`, 'u').test(hay);

// What a widget shows: its text and the values of the fields in it (a read-only combobox shows its
// choice as an <input>'s value, which innerText leaves out).
export function shownValue(el) {
  return faceText(el, []);
}

// Is `el` inside what a user sees of the widget (where only what opening it showed is an option)?
const inFace = (el, widget, ctx) => widget.contains(el) || ctx.face.contains(el);

// Visible elements (not native <option>s; in the widget only those that opening it showed)
// whose own displayed text is `text`: the options of an opened popup. The best first: an ARIA
// option, then a list item, nearest.
function findShownOption(doc, text, widget, ctx) {
  // no text names no option: an empty value would match any empty element of the popup (a spacer,
  // a scroller), and clicking that chose whatever option lay under it
  if (!norm(text)) return null;
  // the popup the widget names first
  for (const popup of popupsOf(widget)) {
    if (visible(popup)) {
      const found = shownOptionIn(popup, text, widget, ctx);
      if (found) return found;
    }
  }
  const found = shownOptionIn(doc, text, widget, ctx);
  if (found || !ctx.docBefore) return found;
  // a pop-up drawn elsewhere, in a shadow root (an overlay component's): its choices by their text
  const want = norm(text).toLowerCase();
  return docChoices(widget).find((e) => shownText(e).toLowerCase() === want) || null;
}

const OPTION_SEL = '[role],li,a,div,span,button,label,td,p';

// The elements the page shows with `text` as their words (before a widget opens: none of those that
// are controls of their own is an option it opens).
function shownWith(doc, text) {
  const want = norm(text).toLowerCase();
  const out = new Set();
  if (!want) return out;
  for (const el of doc.querySelectorAll(OPTION_SEL)) if (shownText(el).toLowerCase() === want && visible(el)) out.add(el);
  return out;
}

// A control in its own right, a button or a link (what the page showed before a list opened that is
// one is none of its options; a list's own items, still shown from the last choice, may be divs).
const ownControl = (el) => el.tagName === 'BUTTON' || el.tagName === 'A' || el.tagName === 'INPUT' || /^(button|link)$/.test((el.getAttribute('role') || '').toLowerCase());

// A control that is never an option of another one's list: an opener of its own (a combobox, what
// says it has a popup or is expanded), a form's submit button, a field.
function notAnOption(el) {
  const role = (el.getAttribute('role') || '').toLowerCase();
  if (role === 'combobox' || role === 'textbox' || el.hasAttribute('aria-haspopup') || el.hasAttribute('aria-expanded')) return true;
  return (el.tagName === 'BUTTON' && el.type === 'submit' && !!el.form) || el.isContentEditable;
}

// An option's text as it is shown: through the slots of a shadow root (ui5-option draws its
// <li role=option> in one, its text slotted from the page: that <li>'s own textContent is empty).
const shownText = (e) => norm(e.textContent) || (e.querySelector?.('slot') || shadowOf(e) ? flatText(e) : '');

// May `el`, inside the widget's face, be taken for an option: it was not shown before the widget
// was opened (a dropdown drawn inside the widget, Choices.js), or, the widget already open when
// the action began, it is an ARIA option or a list item.
function newlyShown(el, ctx) {
  if (ctx.before) return !ctx.before.has(el);
  return OPTIONISH.has((el.getAttribute('role') || '').toLowerCase()) || el.tagName === 'LI' || menuItem(el);
}

// An item of the list a drop-down drawn without ARIA holds (Fomantic UI's .menu > .item[data-value]).
const menuItem = (el) => el.hasAttribute('data-value') && !!el.parentElement?.classList.contains('menu') && classDropdown(el.parentElement.parentElement);

// Is `el` drawn, but outside the box of a scroller in `root` that holds it (an option below an
// open list's fold)?
function scrolledOut(el, root) {
  // (hidden for another reason: a list still fading in, opacity 0, is waited for, not clicked)
  if (/transparent|display|visibility|not rendered|no size|no longer/.test(hiddenReason(el))) return false;
  const r = el.getBoundingClientRect();
  for (let n = el.parentElement; n && n !== root && n.tagName !== 'BODY' && root.contains(n); n = n.parentElement) {
    const st = styleOf(n);
    if (!st || !/(auto|scroll)/.test(st.overflowY + st.overflowX)) continue;
    const b = n.getBoundingClientRect();
    if (r.bottom <= b.top + 1 || r.top >= b.bottom - 1 || (r.top + r.bottom) / 2 < b.top || (r.top + r.bottom) / 2 > b.bottom) return visible(n);
  }
  return false;
}

function shownOptionIn(root, text, widget, ctx) {
  const want = norm(text).toLowerCase();
  const out = [];
  let fading = false;
  const wr = widget.getBoundingClientRect();
  const els = root.nodeType === 9 ? root.querySelectorAll(OPTION_SEL) : composedDescendants(root).filter((e) => e.matches(OPTION_SEL));
  for (const el of els) {
    if (el === widget || el.contains(widget) || el.closest('select')) continue; // (a box around the field is none)
    // (nor one in an inert part: a closed list kept in the page, SurveyJS's other popup)
    if (isInert(el)) continue;
    if (inFace(el, widget, ctx) && !newlyShown(el, ctx)) continue;
    if (shownText(el).toLowerCase() !== want) continue;
    // (searching the whole page: not what it showed before the widget was opened, nor another
    // control's face or a form's button, unless an ARIA option; Ariakit's select_option "Submit
    // order" clicked the page's Submit order button, "Pear" another select's face showing Pear)
    // (nor anything else outside the widget the page showed before it opened: a tab, an accordion's
    // heading, a list item with a click handler of its own, "React" for "React.js", was clicked,
    // and it went; a list of its own still shown from the last choice, Fomantic UI's, is in it)
    if (root.nodeType === 9 && !OPTIONISH.has((el.getAttribute('role') || '').toLowerCase()) && !(widget.contains(el) && menuItem(el)) && ((ctx.pageBefore?.has(el) && (ownControl(el) || !widget.contains(el))) || notAnOption(el))) continue;
    // (in the popup, an option its list scrolls out of view is one: the click scrolls it in, as a
    // user scrolls the list; a chip of another field showing the same text was taken instead)
    const role = (el.getAttribute('role') || '').toLowerCase();
    if (!visible(el) && !((root.nodeType !== 9 || OPTIONISH.has(role)) && scrolledOut(el, root))) {
      // an option with that text that its list, still fading in, draws transparent: what the
      // widget opened (PrimeReact's panel), waited for; a chip of another field showing the same
      // text was clicked instead
      if (OPTIONISH.has(role) && /transparent/.test(hiddenReason(el))) fading = true;
      continue;
    }
    const r = el.getBoundingClientRect();
    const dist = Math.hypot(r.left - wr.left, r.top - wr.bottom);
    out.push({ el, score: (OPTIONISH.has(role) ? 4 : 0) + (el.tagName === 'LI' ? 2 : 0), dist });
  }
  // the innermost of nested matches (a <li> holding a <div role=option> with the same text)
  const inner = out.filter((c) => !out.some((o) => o !== c && c.el.contains(o.el) && o.score >= c.score));
  inner.sort((a, b) => (b.score - a.score) || (a.dist - b.dist));
  if (fading && !(inner[0]?.score >= 4)) return null;
  return inner[0]?.el || null;
}

// The only visible ARIA option of the widget's list whose text, as drawn (innerText: a title and a
// year in two boxes are two words, not "Club1999"), holds `text` as whole words; null when none or
// several do (then the error lists them).
function soleOptionWith(widget, text) {
  const want = norm(text).toLowerCase();
  if (want.length < 2) return null;
  // (drawn, not still fading in: Material's md-select option, transparent, is waited for by find)
  const opts = [...new Set([...optionsOf(widget), ...docChoices(widget).filter((e) => roleOf(e) === 'option')])].filter((o) => visible(o) && !hiddenReason(o));
  const hits = opts.filter((o) => hasWords(norm(o.innerText || o.textContent).toLowerCase(), want));
  const inner = hits.filter((o) => !hits.some((h) => h !== o && o.contains(h)));
  return inner.length === 1 ? inner[0] : null;
}

// The texts of the options a popup shows now: the ARIA options of the popups it names or that
// opening it showed in its face, else their list items.
function shownOptionTexts(widget, ctx) {
  const drawn = ctx.before ? [ctx.face, ...composedDescendants(ctx.face)].filter((e) => newlyShown(e, ctx) && visible(e)) : [];
  const pops = popupsOf(widget).map((p) => composedDescendants(p));
  let els = [...optionsOf(widget), ...drawn].filter((e) => roleOf(e) === 'option' && visible(e));
  if (!els.length) els = [...pops.flat(), ...drawn].filter((e) => (e.tagName === 'LI' || menuItem(e)) && visible(e));
  // a pop-up drawn elsewhere in the document that names no tie to the widget (Ionic's popover
  // and alert, overlays at the end of the page): the choices opening it showed
  if (!els.length && ctx.docBefore) els = docChoices(widget).filter((e) => !ctx.docBefore.has(e));
  // (as drawn: a title and a year in two boxes are two words, "8. Fight Club 1999", not "Club1999")
  return [...new Set(els.map((e) => (e.shadowRoot ? '' : norm(e.innerText)) || shownText(e)).filter(Boolean))];
}

const CHOICE_SEL = '[role=option],[role=radio],[role=menuitemradio],[role=menuitem],[role=menuitemcheckbox]';

// The visible choices anywhere in the page (through open shadow roots), outside the widget.
function docChoices(widget) {
  const out = [];
  for (const r of allRoots()) {
    if (r.nodeType !== 9 && r.host && widget.contains(r.host)) continue;
    for (const e of r.querySelectorAll(CHOICE_SEL)) if (!widget.contains(e) && visible(e)) out.push(e);
  }
  return out;
}

// The choice a pop-up control's host shows now (its shown text without its label), lowercased.
function hostChoice(widget, skip) {
  const shown = shownChoiceOf(widget);
  if (shown) return shown.toLowerCase();
  const now = faceText(widget, skip);
  const name = norm(nameOf(widget, 'combobox')).toLowerCase();
  return name && now.startsWith(name) ? norm(now.slice(name.length)) : now;
}

// The dialog an option was shown in: its nearest ancestor (through shadow roots) that is a dialog.
function dialogOf(opt) {
  for (let n = composedParent(opt); n && n.nodeType === 1; n = composedParent(n)) {
    const role = roleOf(n);
    if (role === 'dialog' || role === 'alertdialog' || n.tagName === 'DIALOG' || n.getAttribute('aria-modal') === 'true') return n;
  }
  return null;
}

const CONFIRM_WORDS = /^(ok|okay|done|confirm|apply|accept|select|choose|set|save|yes)$/i;

// The button a user presses in `dialog` to accept the choice made in it (OK, Done, Apply).
function confirmButtonIn(dialog, opt) {
  if (!dialog) return null;
  for (const el of composedDescendants(dialog)) {
    if (el === opt || el.contains(opt)) continue;
    const isBtn = (el.tagName === 'BUTTON' && (!roleOf(el) || roleOf(el) === 'button')) || roleOf(el) === 'button';
    if (!isBtn || !visible(el)) continue;
    const t = norm(nameOf(el, 'button'));
    if (CONFIRM_WORDS.test(t)) return el;
  }
  return null;
}

// The buttons a dialog shows (for an error that says what is there to press).
const dialogButtons = (dialog) => (dialog ? composedDescendants(dialog)
  .filter((el) => ((el.tagName === 'BUTTON' && !roleOf(el)) || roleOf(el) === 'button') && visible(el))
  .map((el) => norm(nameOf(el, 'button'))).filter(Boolean) : []);

// The popups to leave out of what a widget shows: those it names, and the list holding the option
// clicked when that lies in the widget (the highest ancestor of it that opening the widget showed).
function popupsToSkip(widget, opt, ctx) {
  const out = popupsOf(widget);
  if (opt && inFace(opt, widget, ctx)) {
    let top = opt.parentElement || opt;
    if (ctx.before) {
      for (let p = opt; p && p !== ctx.face && !ctx.before.has(p); p = p.parentElement) top = p;
    } else {
      top = opt.closest('[role=listbox],[role=menu],[role=tree],[role=grid],ul,ol') || top;
    }
    if (top !== ctx.face && !top.contains(ctx.face)) out.push(top);
  }
  return out;
}

// Is the widget's popup open: its aria-expanded when it has one (a closing popup may still be
// drawn while it fades out), else whether a popup it names is shown.
// (A pop-up control's host tells it by its inner control's.)
const expander = (widget) => (widget.hasAttribute('aria-expanded') ? widget : hiddenPopupControl(widget)?.hasAttribute('aria-expanded') ? hiddenPopupControl(widget)
  : widget.tagName === 'INPUT' && oneOneBox(widget)?.hasAttribute('aria-expanded') ? oneOneBox(widget) : null);
const saysOpen = (widget) => { const x = expander(widget); return x ? x.getAttribute('aria-expanded') === 'true' : popupsOf(widget).some(visible); };
// (a list it names drawn counts too: rsuite's pickers say aria-expanded="true" only once their
// list has faded in, and a click meant to open it again before that closed it)
const isOpen = (widget) => saysOpen(widget) || popupsOf(widget).some(visible);

// Close the widget's list when it is open (after a chip's remove mark opened it: Select2's).
export async function closeIfOpen(widget) {
  if (isOpen(widget)) await closePopup(widget);
}

// Close a popup this action opened, as a user does: Escape; if it stays open (Shoelace closes on
// a real Escape only), a second click on the widget; then a click elsewhere on the page.
async function closePopup(widget) {
  const doc = widget.ownerDocument;
  const W = doc.defaultView || window;
  const key = (type, el = widget) => el.dispatchEvent(new W.KeyboardEvent(type, { key: 'Escape', code: 'Escape', keyCode: 27, which: 27, bubbles: true, cancelable: true, composed: true }));
  const press = (el) => {
    const o = { bubbles: true, cancelable: true, composed: true, view: W, button: 0, detail: 1 };
    el.dispatchEvent(new W.PointerEvent('pointerdown', { ...o, buttons: 1, pointerId: 1, pointerType: 'mouse', isPrimary: true }));
    el.dispatchEvent(new W.MouseEvent('mousedown', { ...o, buttons: 1 }));
    el.dispatchEvent(new W.PointerEvent('pointerup', { ...o, pointerId: 1, pointerType: 'mouse', isPrimary: true }));
    el.dispatchEvent(new W.MouseEvent('mouseup', o));
    el.dispatchEvent(new W.MouseEvent('click', o));
  };
  // closed: then until its popup is no longer drawn (a fade-out), so the page returned shows it shut
  // (the popups it named while open too: a widget that drops its aria-controls as it closes,
  // MUI's Select, still draws its fading list over the fields below)
  const named = popupsOf(widget);
  const drawn = () => [...named, ...popupsOf(widget)].some((p) => p.isConnected && visible(p));
  // (closed as its aria-expanded says, a fade-out after that is waited for below; one drawn before
  // it says open, rsuite's, by its list no longer drawn)
  const early = !!expander(widget) && !saysOpen(widget);
  const shut = async (ms = 300) => (await until(() => (early ? !isOpen(widget) : !saysOpen(widget)), ms)) && (await until(() => !drawn(), 1000), true);
  // Escape goes where a user's key goes: the focused element (a popup that took the focus, MUI's
  // menu, listens there, not on the widget), then the widget itself
  const focused = focusedIn(doc);
  if (focused && focused !== widget) {
    key('keydown', focused); key('keyup', focused);
    if (await shut()) return;
  }
  key('keydown'); key('keyup');
  // Escape closes most (Ionic's popover too, but after its own tasks: 300 ms was too short on a
  // loaded machine, and the click that followed opened it again)
  if (await shut(800)) return;
  press(widget);
  if (await shut()) return;
  // a click outside, where a user clicks to dismiss: what is drawn at the page's corner (a
  // modal popup's transparent backdrop) when it is nothing to act on, else the body
  const corner = deepElementAt(doc, 1, 1);
  const inert = corner && !corner.closest(ACTIONABLE) && !composedContains(widget, corner) && !popupsOf(widget).some((p) => composedContains(p, corner));
  press(inert ? corner : doc.body);
  await shut();
}

const ACTIONABLE = 'a[href],button,input,select,textarea,label,summary,[role],[tabindex],[onclick],[contenteditable]';

// The element that has the keyboard focus, through open shadow roots; null for the body.
function focusedIn(doc) {
  const a = focusedElement(doc);
  return a && a !== doc.body && a !== doc.documentElement ? a : null;
}

const nextTask = () => new Promise((r) => setTimeout(r, 0));

// Move the pointer onto an option of a list and let a frame pass before it is pressed, as a user's
// mouse arrives there first: a list that takes a click only on the option its pointer highlighted
// (Base UI's Select: its highlight is React state, drawn after the move) took the bridge's click,
// in the same turn as the move, as none ("Clicked", nothing chosen).
export async function pointOnto(opt) {
  if (!opt?.isConnected) return;
  const W = opt.ownerDocument.defaultView || window;
  for (const t of ['pointerover', 'pointerenter', 'mouseover', 'mouseenter', 'pointermove', 'mousemove']) mouse(opt, t, t.endsWith('enter') ? { bubbles: false } : {});
  await frame(W);
}

// Wait (a few tasks, at most `ms`) for cond() to hold; returns its last value.
export async function until(cond, ms = 1000) {
  const t0 = performance.now();
  for (;;) {
    const v = cond();
    if (v || performance.now() - t0 > ms) return v;
    await nextTask();
  }
}

// Until `cond` holds, at most `ms`; or, sooner, until the page has settled since `since` (when
// the click or the typing began) without it holding: what that started — a debounce, the fetch
// of suggestions, their rendering — has run (page/settle.js, the rules an action's answer is read
// by), so no such option is coming. A fixed second per step cost a free-text combobox (a search
// box with suggestions) ≈ 2.5 s per fill_form before its text was kept, and missed suggestions
// that took longer than that.
// With `minMs`, never given up before that long (what the page shows may come by ways settling
// does not follow); past it, only while the page is still busy with what began then.
export async function untilSettled(cond, since, ms = 3000, minMs = 0) {
  const page = globalThis.__bbPage;
  if (!page?.settle) return until(cond, Math.min(ms, Math.max(minMs, 1000)));
  let settled = false;
  page.settle({ actionAt: since, quietMs: 50, drainedQuietMs: 20, capMs: ms }).then(() => { settled = true; }, () => { settled = true; });
  const t0 = performance.now();
  for (;;) {
    const v = cond();
    const t = performance.now() - t0;
    if (v || (settled && t >= minMs) || t > ms) return v || cond();
    await nextTask();
  }
}

// Wait (at most `ms`) until a task passes with no change to the page's DOM: an opened list the
// page is still drawing (Tom Select opens it again from a timer its opening queued) is clicked
// once drawn, as a user who reads it first does.
async function quiet(doc, ms = 300) {
  let changed = true;
  const mo = new MutationObserver(() => { changed = true; });
  mo.observe(doc.documentElement, { subtree: true, childList: true, attributes: true, characterData: true });
  try {
    await until(() => { const calm = !changed; changed = false; return calm; }, ms);
  } finally {
    mo.disconnect();
  }
}

// Does a finite CSS animation or transition run anywhere in the document (a popup appearing)?
function animating(doc) {
  try {
    return doc.getAnimations().some((a) => a.playState === 'running' && a.effect?.getComputedTiming?.().endTime !== Infinity);
  } catch { return false; }
}

// cond() once it holds, waiting (at most `ms`) while the page animates: what a list drawn in by
// an animation shows is read when the animation has run (100 ms at least: one that starts a frame late).
async function whileAnimating(doc, cond, ms = 1500) {
  const t0 = performance.now();
  for (;;) {
    const v = cond();
    const t = performance.now() - t0;
    if (v || t > ms || (t > 100 && !animating(doc))) return v || null;
    await nextTask();
  }
}

// Is `el` drawn where it will stay and open to a click: no finite animation or transition runs on
// it or on a box around it (a popup still opening: Vuetify scales its menu in with pointer-events
// off), and nothing else is hit at its center. A user waits for an opening list before clicking.
function atRest(el) {
  return unmoving(el) && !clickPoint(el).coveredBy;
}

// Has `el` (and what is around it) no animation under way that ends?
function unmoving(el) {
  for (let n = el; n && n.nodeType === 1; n = composedParent(n)) {
    const anims = typeof n.getAnimations === 'function' ? n.getAnimations() : [];
    if (anims.some((a) => a.playState === 'running' && a.effect?.getComputedTiming?.().endTime !== Infinity)) return false;
  }
  return true;
}

// Can a user type into the widget itself (a combobox input that filters its list: Tom Select)?
const typeable = (el) => (el.tagName === 'INPUT' && !el.readOnly && !el.disabled && /^(text|search|)$/.test(inputType(el))) || !!el.isContentEditable;

// Choose `text` in a custom widget the way a user does: open it (click), click the option shown
// with that text (typing it first to filter the list when the option is not shown and `type` is
// given: a long list shows only its first options), and check that the widget now shows it (and
// the native <select> behind it, `sel` or the one found, holds it). `click` and `type` are
// actions.js's (passed in to keep the modules acyclic). Returns { option, typed }, null when the
// widget does not show the choice afterwards, or throws a one-sentence error.
export async function chooseInWidget(widget, text, click, describe, sel = null, { type = null } = {}) {
  const doc = widget.ownerDocument;
  sel = sel || selectBehind(widget);
  const ctx = { face: faceOf(widget), before: null };
  const find = () => findShownOption(doc, text, widget, ctx);
  // a list still opening or closing (the last choice's: Fomantic UI's slides shut) is open or shut
  // once it has come to rest (1 s at most), as a user waits to see which
  for (const p of popupsOf(widget)) await until(() => !p.isConnected || unmoving(p), 1000);
  const seenBefore = faceText(ctx.face, popupsOf(widget));
  // an open popup may already show it; else open the widget first
  let opt = isOpen(widget) ? find() : null;
  let opened = false, typed = false, shown = [];
  if (!opt) {
    opened = !isOpen(widget);
    if (opened) ctx.before = new Set([ctx.face, ...composedDescendants(ctx.face)].filter(visible));
    if (opened && !popupsOf(widget).length) ctx.docBefore = new Set(docChoices(widget));
    if (opened) ctx.pageBefore = shownWith(doc, text);
    const at = Date.now();
    click(widget);
    if (await untilSettled(find, at)) await quiet(doc);
    opt = find();
    // a list that says it is open but is still fading or sliding in (antd's: opacity 0 as it
    // starts): a user waits until it is drawn before reading it
    if (!opt && isOpen(widget) && (opt = await whileAnimating(doc, find))) await quiet(doc);
    // a field a click does not open, beside its own arrow button that does (Fluent UI v8's
    // ComboBox with free text opens from its chevron only: "It showed no options when opened")
    const arrow = !opt && opened && !isOpen(widget) ? arrowBeside(widget) : null;
    if (arrow) {
      const at2 = Date.now();
      click(arrow);
      if (await untilSettled(find, at2)) await quiet(doc);
      opt = find();
    }
  }
  const held = 'value' in widget ? String(widget.value ?? '') : null; // what a field showed before the text was typed
  if (!opt && type && typeable(widget)) {
    shown = shownOptionTexts(widget, ctx);
    const at = Date.now();
    await type(widget, text, { clear: true });
    typed = true;
    if (await untilSettled(find, at)) await quiet(doc);
    opt = find();
  }
  // no option of exactly that text (a list one types into filtered by it first, where the one of
  // exactly that text may have been below the first shown): the one option whose shown text holds
  // it as whole words ("Fight Club" for Blueprint's "8. Fight Club 1999", its rank and year beside)
  if (!opt && isOpen(widget)) opt = soleOptionWith(widget, text);
  if (!opt) {
    // the options it showed, then the popup closed again (and the text typed taken out): the
    // page is left as it was
    if (!shown.length) shown = await until(() => shownOptionTexts(widget, ctx).length && shownOptionTexts(widget, ctx), 300) || [];
    // (the text it held typed back: a field that filters its list by its text kept none, and the
    // choice it showed was gone while the answer said "nothing was selected": Evergreen's Combobox)
    if (typed) await type(widget, held && held !== text ? held : '', { clear: true });
    // (and, when its list shows an option of that text, that option chosen again, as a user
    // restores what was chosen)
    const again = typed && held && held !== text ? (await until(() => findShownOption(doc, held, widget, ctx), 300)) || null : null;
    if (again) { click(again); await quiet(doc); }
    if ((opened || typed) && isOpen(widget)) await closePopup(widget);
    const lost = typed && held && 'value' in widget && String(widget.value ?? '') !== held ? ` The field showed ${JSON.stringify(held)} before and shows ${JSON.stringify(String(widget.value ?? ''))} now: looking for the option changed it.` : '';
    // one already chosen, in a list that leaves the chosen out (Downshift's, react-select's): its
    // chip beside the field says so, and it is left chosen
    if (!sel && chipsOf(widget).some((c) => c.text.toLowerCase() === norm(text).toLowerCase())) return { option: null, typed, confirmed: null, already: true, multi: true };
    const list = shown.slice(0, 30).map((t) => JSON.stringify(t.slice(0, 60))).join(', ');
    const e = new Error(`${describe(widget)} has no option "${text}"; nothing was selected. ` +
      (list ? `Its options: ${list}${shown.length > 30 ? ', …' : ''}.` : 'It showed no options when opened.') + lost);
    e.code = 'no_such_option';
    throw e;
  }
  const skip = popupsToSkip(widget, opt, ctx);
  // an option already chosen in a list of several choices is left as it is: a click there takes
  // it out (PrimeReact's MultiSelect: select_option "London" unchose London and said "Selected");
  // so is one the widget shows as a chip, in a list that marks nothing (Blueprint's MultiSelect)
  // (a chip the widget itself shows, or its face: not one beside it, another list's pill)
  if (!sel && chipsOf(widget).some((c) => c.text.toLowerCase() === norm(text).toLowerCase() && (widget.contains(c.chip) || ctx.face.contains(c.chip)))) {
    if (opened && isOpen(widget)) await closePopup(widget);
    return { option: null, typed, confirmed: null, already: true, multi: true };
  }
  if (chosenInMulti(opt)) {
    if (opened && isOpen(widget)) await closePopup(widget);
    return { option: opt, typed, confirmed: null, already: true, multi: true };
  }
  const multi = holdsSeveral(opt);
  await until(() => atRest(opt), 1000);
  // (and shown: a list still fading in from opacity 0 as the click comes, Material Web's md-menu
  // on a loaded machine, is waited for, 1 s at most; the click then says what still hides it)
  await until(() => visible(opt), 1000);
  const optShown = norm(opt.innerText || opt.textContent), optText = optShown.toLowerCase();
  await pointOnto(opt);
  // (what the pointer's arrival set moving comes to rest first: antd's TreeSelect draws its list
  // anew, fading in, and the click found it transparent)
  await until(() => !opt.isConnected || (atRest(opt) && visible(opt)), 1000);
  // (an option the list drew anew for the pointer is found again)
  if (!opt.isConnected) opt = find() || opt;
  const clickedAt = Date.now();
  try {
    click(opt);
  } catch (e) {
    // (an option that takes no click, a disabled one: the list this opened is closed again, or it
    // covered every field below it for the next actions: Spectrum's sp-picker)
    if (opened && isOpen(widget)) await closePopup(widget);
    throw e;
  }
  const want = norm(text).toLowerCase();
  // the widget shows it; a native select behind it holds it (then a widget that shows the choice
  // in other words, changed, is believed too)
  // (a pop-up control's host: the choice it shows beside its label)
  const host = !!hiddenPopupControl(widget);
  const shows = () => {
    let now = host ? hostChoice(widget, skip) : faceText(ctx.face, skip);
    // a button drawn as an icon (a flag) tells its choice in its aria-label only
    if (!now && widget.tagName === 'BUTTON') now = norm(widget.getAttribute('aria-label')).toLowerCase();
    // one that tells it only through what its aria-labelledby names (React Aria's trigger: the
    // value beside it and its label, "California Home state": HeroUI's Autocomplete)
    if (!/[\p{L}\p{N}]/u.test(now) && widget.hasAttribute('aria-labelledby')) now = textOfIds(widget, widget.getAttribute('aria-labelledby')).toLowerCase();
    // an icon-only trigger (PrimeReact's Dropdown arrow, role=button) beside the text showing the
    // choice, in the widget's box
    if (!now && !host) { const box = triggerBox(widget); if (box) now = faceText(box, skip); }
    // (or as a chip beside the field, in its box: Downshift's multiple selection, whose box also
    // holds its toggle button, so the field itself is its face)
    if (!sel) return hasWords(now, want) || (widget.tagName === 'INPUT' && !!pillFor(widget, want)) || gained(now) || (opt.isConnected && chosenInMulti(opt)) || chosenShownIn(widget).includes(want);
    // (a choice shown as a selected option in the widget's own box is one, whatever the select
    // behind it holds: Syncfusion's MultiSelect fills its hidden select later)
    // (by the words of the option clicked too: "vue" chose Chakra's "Vue.js", which its select holds
    // by those words; it said the widget did not show it)
    return ((holds(sel, want) || holds(sel, optText)) && (hasWords(now, want) || now !== seenBefore)) || chosenShownIn(widget).includes(want);
  };
  // the widget now shows words it did not, all of them, in order, words of the option clicked: its
  // chip shows the option's title without its rank and year (Blueprint's MultiSelect tag "12 Angry
  // Men" for "5. 12 Angry Men 1957"); a count ("1") or a placeholder is not that
  const gained = (now) => {
    const pool = seenBefore.split(' ');
    const fresh = [];
    for (const w of now.split(' ').filter(Boolean)) { const i = pool.indexOf(w); if (i >= 0) pool.splice(i, 1); else fresh.push(w); }
    const g = fresh.filter((w) => /[\p{L}\p{N}]/u.test(w)).join(' '); // (not a tag's "×")
    return /\p{L}/u.test(g) && hasWords(optText, g);
  };
  // a choice made in a dialog with a confirm button (Ionic's alert: OK) is taken once confirmed
  const dialog = opt.isConnected ? dialogOf(opt) : null;
  const confirm = dialog && confirmButtonIn(dialog, opt);
  // (1 s at least, longer while the page still renders what the click began: a loaded machine)
  let ok = confirm ? await until(shows, 300) : await untilSettled(shows, clickedAt, 3000, 1000);
  let confirmed = null;
  if (!ok && dialog && dialog.isConnected && visible(dialog)) {
    const btn = confirmButtonIn(dialog, opt);
    if (!btn) {
      const bs = dialogButtons(dialog);
      const e = new Error(`Clicked option "${norm(text)}" of ${describe(widget)}, but the widget does not show it: the choice waits to be confirmed in the dialog it opened, which is still open and has no confirm button (OK, Done) to press` +
        (bs.length ? `; its buttons: ${bs.slice(0, 10).map((b) => JSON.stringify(b)).join(', ')}.` : '.'));
      e.code = 'needs_confirming';
      throw e;
    }
    confirmed = norm(nameOf(btn, 'button'));
    click(btn);
    ok = await until(shows, 1000);
  }
  // an item of an action menu (role menuitem: Spectrum's sp-action-menu "Rename"), which the menu
  // closed as it ran: a menu keeps no choice to show, the click was the action (it said the
  // widget did not show it, and an agent that tried again ran the action twice)
  if (!ok && !sel && roleOf(opt) === 'menuitem' && await until(() => !isOpen(widget) && !popupsOf(widget).some(visible), 1000)) {
    return { option: opt, typed, confirmed, acted: true, multi: false };
  }
  if (!ok) {
    if (isOpen(widget)) await closePopup(widget);
    return null;
  }
  // the popup closes as the option is taken: wait until it is no longer drawn over the fields below;
  // a list that stays open for more choices (a multi-select's) is closed as a user does once done,
  // when this action opened it, so that it covers nothing the next action aims at
  const shut = () => !isOpen(widget) && !popupsOf(widget).some(visible) && !(dialog && dialog.isConnected && visible(dialog));
  await until(shut, inMultiList(opt) ? 100 : 1000);
  if (opened && !shut() && isOpen(widget)) await closePopup(widget);
  return { option: opt, typed, confirmed, as: optText === want ? null : optShown, multi };
}

// A chip the field's own box shows with exactly `text` (a tags input turns the text into a pill
// beside its emptied field: Mantine's TagsInput), or a text of that box listing it among others
// ("Rome, Paris": PrimeReact's MultiSelect), looked for in the nearest box around the field
// (three levels at most) that holds no other field, not in a label. Null if none.
export function pillFor(el, text) {
  const want = norm(text).toLowerCase();
  if (!want) return null;
  let n = el.parentElement;
  for (let i = 0; n && i < 3 && n.tagName !== 'BODY' && n.tagName !== 'FORM'; i++, n = n.parentElement) {
    if (n.querySelectorAll('input:not([type=hidden]),select,textarea').length > 1) return null;
    for (const c of n.querySelectorAll('*')) {
      // (not a label's words, unless the label is the field's own box: Quasar's whole field is a <label>)
      // (nor an option of a list shown there: the choice, not the chip made of it)
      const lab = c.closest('label');
      if (c === el || c.contains(el) || (lab && !lab.contains(el)) || c.closest('[role=option],[role=listbox],[role=menu]') || !c.getClientRects().length) continue;
      const t = norm(c.textContent).toLowerCase();
      // (a chip's own words, beside its remove mark: "The Idiot" and its ✕, Downshift's example)
      if (t === want || ownText(c).toLowerCase() === want || (!c.childElementCount && t.includes(',') && t.split(',').some((p) => norm(p) === want))) return c;
    }
  }
  return null;
}

const REMOVE_SIGN = /^[×✕✖✗xX⨯╳]$/;
const REMOVE_WORDS = /\b(remove|delete|deselect|unselect)\b/i;

// A chip's remove mark as a person knows it: a ✕ (or an icon labelled "Remove …", or drawn by a
// class that says remove/delete) that can be clicked, outside any list of options.
function isRemoveMark(e) {
  // (the cheap tests first, a box of the whole page holds thousands of elements: a mark has a
  // word of text at most, and few children, an icon's)
  if (e.childElementCount > 3) return false;
  const raw = e.textContent;
  if (raw.length > 40) return false;
  if (!e.getClientRects().length || e.closest('[role=option],[role=listbox],[role=menu]')) return false;
  const text = norm(raw);
  const label = `${e.getAttribute('aria-label') || ''} ${e.getAttribute('title') || ''}`;
  const cls = String(e.getAttribute('class') || '');
  // (a class that says its choice's close: Chosen's <a class="search-choice-close">, a sprite)
  const sign = REMOVE_SIGN.test(text) || (!text && (REMOVE_WORDS.test(label) || /(remove|delete)|(choice|chip|tag|token|pill)[-_]?close/i.test(cls)));
  if (!sign && !(REMOVE_WORDS.test(label) && text.length < 3)) return false;
  return e.tagName === 'BUTTON' || e.tagName === 'A' || roleOf(e) === 'button' || styleOf(e)?.cursor === 'pointer';
}

// The chips a multi-select shows beside its field, each its words and its remove mark: Downshift's
// "The Idiot ✕", react-select's "Hot fudge" and its "Remove Hot fudge" icon, Mantine's pill. Looked
// for in the nearest box around the field that has any (three levels at most, none holding another
// field, nor the form or the body). A chip holds one remove mark and not the field; its words are
// its text without the mark's.
export function chipsOf(el) {
  // (a box that also holds another field or drop-down holds its chips too, never ours to take out)
  const other = (n) => Array.from(n.querySelectorAll('input:not([type=hidden]),select,textarea,[role=combobox]'))
    .some((c) => c !== el && !el.contains(c) && !c.contains(el) && !(c.tagName === 'SELECT' && !visible(c)));
  for (let n = el.parentElement, i = 0; n && i < 3 && n.tagName !== 'BODY' && n.tagName !== 'FORM'; i++, n = n.parentElement) {
    if (other(n)) break;
    const chips = chipsIn(n, el);
    if (chips.length) return chips;
  }
  return [];
}

// The choices a field shows as options marked selected in a listbox of its own box that is not the
// list it opens, by their words in lower case (Syncfusion's MultiSelect draws its chips as role=option
// in a role=listbox beside its input: "French" chosen was "not shown afterwards"); [] if none. Up
// to three boxes up, none holding another field.
export function chosenShownIn(el) {
  const pops = new Set(popupsOf(el));
  const other = (n) => Array.from(n.querySelectorAll('input:not([type=hidden]),textarea,[role=combobox]')).some((c) => c !== el && !el.contains(c) && !c.contains(el) && visible(c));
  for (let n = el.parentElement, i = 0; n && i < 3 && n.tagName !== 'BODY' && n.tagName !== 'FORM'; i++, n = n.parentElement) {
    if (other(n)) break;
    const lists = Array.from(n.querySelectorAll('[role=listbox]')).filter((l) => !pops.has(l) && !l.contains(el));
    const out = lists.flatMap((l) => Array.from(l.querySelectorAll('[role=option][aria-selected=true]'))).filter(visible).map((o) => itemText(o).toLowerCase());
    if (out.length) return out;
  }
  return [];
}

// Take out the chip `el` shows with `text` (case aside) by its remove mark, as a user does, and
// wait (1 s at most) until it is gone: true when it went (or was not there).
export async function removeChip(el, text, click) {
  const t = norm(text).toLowerCase();
  const c = chipsOf(el).find((x) => x.text.toLowerCase() === t);
  if (!c) return true;
  click(c.remove);
  return !!(await until(() => !chipsOf(el).some((x) => x.text.toLowerCase() === t), 1000));
}

function chipsIn(box, el) {
  // (at most 3,000 elements looked at: a field alone in a page's whole content)
  const all = Array.from(box.querySelectorAll('*')).slice(0, 3000).filter((e) => e !== el && !e.contains(el) && isRemoveMark(e));
  const marks = all.filter((m) => !all.some((o) => o !== m && o.contains(m)));
  const chips = [];
  for (const m of marks) {
    for (let c = m.parentElement, j = 0; c && c !== box && j < 3; c = c.parentElement, j++) {
      if (c.contains(el) || marks.some((o) => o !== m && c.contains(o))) break;
      const text = norm(norm(c.innerText).replace(norm(m.innerText), ''));
      if (text) { chips.push({ chip: c, text, remove: m }); break; }
    }
  }
  return chips;
}

// Take out of a multi-select `widget` the options it holds besides `keep` (texts), in its open list
// as a user does: opened (when it is not), each other option it marks as chosen clicked, which
// takes it out (chosenInMulti), then closed again if this opened it. Returns the texts taken out
// (`out`) and those its list marks as chosen at the end (`marked`);
// throws when one stays chosen.
// A list that marks nothing as chosen (it leaves the chosen out) gives nothing to take out.
export async function unchooseOthers(widget, keep, click, describe) {
  const want = new Set(keep.map((k) => norm(k).toLowerCase()));
  const shown = () => {
    const named = optionsOf(widget).map(drawnOption).filter(Boolean);
    if (named.length) return named;
    const roled = docChoices(widget).filter((e) => roleOf(e) === 'option');
    return roled.length ? roled : itemsBeside(widget);
  };
  let opened = !isOpen(widget);
  if (opened) {
    const at = Date.now();
    click(widget);
    if (await untilSettled(() => shown().length > 0, at)) await quiet(widget.ownerDocument);
  }
  const out = [];
  // one at a time, the list read again after each (a page may draw its options anew on a click)
  // (not a disabled one the page keeps chosen, a placeholder no one can take out: Materialize's)
  const extra = () => shown().find((e) => chosenInMulti(e) && !isDisabled(e) && !want.has(itemText(e).toLowerCase()) && !out.includes(itemText(e)));
  // (after a click the list may be drawn again, fading in or moved: read once it shows its options)
  // (one that closes its list on a click, PrimeReact's chips MultiSelect, is opened again)
  const next = async () => {
    if (!(await until(() => shown().length > 0, 300))) { opened = true; const at = Date.now(); click(widget); await untilSettled(() => shown().length > 0, at); }
    await quiet(widget.ownerDocument);
    return extra();
  };
  for (let o = await next(), i = 0; o && i < 100; o = await next(), i++) {
    const text = itemText(o);
    // (one its list scrolled out of view is scrolled in first, as a user scrolls the list: Arco's
    // English, above the list's view, was "covered" by the field under it)
    o.scrollIntoView?.({ block: 'nearest', inline: 'nearest' });
    // (and one its list is still moving, the field under it grown by the tag just added, once at
    // rest: 1 s at most)
    await until(() => !o.isConnected || atRest(o), 1000);
    click(o);
    const gone = () => shown().length > 0 && !shown().some((e) => itemText(e) === text && chosenInMulti(e));
    if (!(await until(gone, 300))) {
      // (a list that draws its marks anew only when opened again, Carbon's cds-multi-select: its
      // item kept its tick while the widget had let the option go) read once more, reopened
      if (!isOpen(widget)) break;
      await closePopup(widget);
      opened = true;
      if (!(await next(), gone())) break;
    }
    out.push(text);
  }
  // one the click did not take out: said, never taken for done
  const left = await next();
  if (left) {
    const text = itemText(left);
    if (opened && isOpen(widget)) await closePopup(widget);
    throw new Error(`Clicked "${text}" in the list of ${describe(widget)} to take it out, but it is still chosen${out.length ? ` (taken out before it: ${out.map((t) => `"${t}"`).join(', ')})` : ''}`);
  }
  // the options its list marks as chosen at the end (a widget that shows only their count, Carbon's)
  const marked = shown().filter(chosenInMulti).map((e) => itemText(e).toLowerCase());
  // a list in a dialog that takes its choices on OK (DevExtreme's TagBox with apply buttons): OK
  // pressed, as a user does once done; closing it otherwise cancels what was taken out
  const first = shown()[0];
  const dialog = out.length && first ? dialogOf(first) : null;
  const apply = dialog && visible(dialog) ? confirmButtonIn(dialog, first) : null;
  if (apply) { click(apply); await until(() => !visible(dialog), 1000); }
  if (opened && isOpen(widget)) await closePopup(widget);
  return { out, marked };
}

// An option's words without the tick it shows when chosen (Preline's "CSS ✓" is "CSS") nor an icon
// font's glyph, a character of Unicode's private use area (Fluent UI v8's check mark, U+E73E).
const itemText = (e) => norm(shownText(e).replace(/[✓✔☑\u{E000}-\u{F8FF}]/gu, ' '));

// The items of a shown listbox drawn right after the widget that names none (Preline's: a button,
// then its role=listbox of plain <div>s): its children, as a user sees them, or [].
function itemsBeside(widget) {
  const list = widget.nextElementSibling;
  if (!list || roleOf(list) !== 'listbox' || list.querySelector('[role=option]') || !visible(list)) return [];
  return Array.from(list.children).slice(0, 200).filter(visible);
}

// Is this option one of a list where several can be chosen (aria-multiselectable, a menu of
// checkable items, or its own checkbox), as its marks or ARIA say before it is clicked?
const holdsSeveral = (opt) => inMultiList(opt) || opt.getAttribute?.('role') === 'menuitemcheckbox' || !!checkboxOf(opt);

// Is `opt` in a list that says several of its options can be chosen (aria-multiselectable), as
// rendered: an option slotted into a web component's shadow listbox (Web Awesome's wa-select) is
// in it there, not in its light-DOM parent (15 levels at most)?
function inMultiList(opt) {
  for (let n = opt, i = 0; n && n.nodeType === 1 && i < 15; i++) {
    if (n.getAttribute('aria-multiselectable') === 'true') return true;
    const up = n.assignedSlot || n.parentNode;
    n = up && up.nodeType === 11 ? up.host : up;
  }
  return false;
}

// Is this option shown as chosen in a list where several can be (aria-multiselectable, or its own
// checkbox: a click on it toggles it)?
function chosenInMulti(opt) {
  const box = checkboxOf(opt) || labelledBox(opt);
  // (an option with aria-checked says its choice there, and aria-selected is then the keyboard's
  // highlight, as ARIA's listbox pattern allows: Semantic UI's first item was taken for chosen)
  const checked = opt.getAttribute('aria-checked');
  const on = (checked !== null ? checked === 'true' : opt.getAttribute('aria-selected') === 'true') || !!box?.checked;
  if (on && (inMultiList(opt) || opt.getAttribute('role') === 'menuitemcheckbox' || !!box)) return true;
  // (no ARIA, a tick shown beside its words: Preline's list marks its choices only so; the others
  // were never taken out, "its list did not take them out")
  return checked === null && !opt.hasAttribute('aria-selected') && tickShown(opt);
}

// An option as a user sees it: the <label> that shows the words of an option that is a form control
// drawn transparent beside it (Fluent UI v8's multi-select Dropdown: an <input type=checkbox
// role=option>), else itself; null when not shown.
const drawnOption = (o) => [...(o.labels || [])].find(visible) || (visible(o) ? o : null);

// The checkbox a label around `opt` (or `opt` itself, a label) is for, drawn hidden behind it (Fluent
// UI v8's multi-select Dropdown: each option an <input type=checkbox role=option> of opacity 0
// beside the <label for> that shows its words).
function labelledBox(opt) {
  const c = opt.closest?.('label')?.control;
  return c && c.type === 'checkbox' && !c.contains(opt) ? c : null;
}

// Does `opt` show a tick (✓, ✔, ☑) as an element of its own (at most 20 looked at)?
function tickShown(opt) {
  const els = opt.querySelectorAll('*');
  for (let i = 0; i < els.length && i < 20; i++) {
    const e = els[i];
    if (!e.firstElementChild && /^[✓✔☑]$/u.test((e.textContent || '').trim()) && visible(e)) return true;
  }
  return false;
}

// An option's own checkbox: in its light DOM, or drawn in its shadow tree (Carbon's
// cds-multi-select-item: a cds-checkbox in its shadow root, its input in that one's; the item's
// aria-selected stays "false"). 200 elements looked at.
function checkboxOf(opt) {
  const box = opt.querySelector?.('input[type=checkbox]');
  if (box || !shadowOf(opt)) return box;
  let n = 0;
  const walk = (el) => {
    for (const c of composedChildren(el)) {
      if (++n > 200) return null;
      if (c.tagName === 'INPUT' && c.type === 'checkbox') return c;
      const f = walk(c);
      if (f) return f;
    }
    return null;
  };
  return walk(opt);
}

// After `text` was typed into an editable combobox whose popup is a list: the option its open list
// shows with exactly that text, clicked as a user picks the suggestion (a filterable select keeps
// only a value picked from its list, and drops typed text on blur). Returns the option clicked, or
// null when the list shows no such option (the typed text stands); throws when the click did not take.
export async function pickListed(widget, text, click, describe) {
  const pop = (widget.getAttribute('aria-haspopup') || 'listbox').toLowerCase();
  if (roleOf(widget) !== 'combobox' || !(pop === 'listbox' || pop === 'true')) return null;
  const doc = widget.ownerDocument;
  const ctx = { face: faceOf(widget), before: null };
  if (!(await until(() => isOpen(widget), 300))) return null;
  // only a listed option (an ARIA option or a list item), never other text that happens to match
  const listed = (o) => !!o && (roleOf(o) === 'option' || o.tagName === 'LI') && o;
  const opt = await until(() => listed(findShownOption(doc, text, widget, ctx)), 1000);
  if (!opt) return null;
  await quiet(doc);
  await until(() => atRest(opt), 1000);
  await pointOnto(opt);
  await until(() => !opt.isConnected || atRest(opt), 1000);
  click(opt);
  const want = norm(text).toLowerCase();
  // taken: the option is marked chosen or its list closed on it, and the field shows the text
  const taken = () => (opt.getAttribute('aria-selected') === 'true' || !isOpen(widget)) && hasWords(faceText(ctx.face, popupsOf(widget)), want);
  if (!(await until(taken, 1000))) {
    throw new Error(`Typed "${norm(text)}" into ${describe(widget)} and clicked its listed option, but the field does not show it afterwards`);
  }
  await until(() => !isOpen(widget) && !popupsOf(widget).some(visible), 1000);
  return opt;
}

// ---- drop-downs and radio groups as select_option and fill_form see them ----------------------

// (the field of an ARIA 1.1 combobox, dom.js oneOneBox, is the combobox: its box has the role)
const roleOf = (el) => (el.getAttribute?.('role') || '').trim().split(/\s+/)[0].toLowerCase() || (el.tagName === 'INPUT' && oneOneBox(el) ? 'combobox' : '');

// The box a button sits alone in that says it opens a list (aria-haspopup=listbox, aria-controls
// and aria-expanded on it, not on the button: Blueprint's Select around its button), or null.
export function listPopupWrapper(el) {
  if (el?.tagName !== 'BUTTON' || el.hasAttribute('aria-haspopup')) return null;
  const p = el.parentElement;
  const pop = (p?.getAttribute('aria-haspopup') || '').toLowerCase();
  if (!p || !(pop === 'listbox' || pop === 'true') || roleOf(p)) return null;
  return p.querySelectorAll('button,input,select,textarea,a[href],[role=button],[role=combobox]').length === 1 ? p : null;
}

// A drop-down a user chooses in: a <select>, a combobox or listbox, a button that opens a listbox.
export function isDropdown(el) {
  if (!el || el.nodeType !== 1) return false;
  if (el.tagName === 'SELECT') return true;
  if (listPopupWrapper(el)) return true;
  const role = roleOf(el);
  if (role === 'combobox' || role === 'listbox' || (!role && classDropdown(el))) return true;
  const pop = (el.getAttribute('aria-haspopup') || '').toLowerCase();
  if (pop === 'listbox' || pop === 'menu' || pop === 'true') return true;
  // a button that opens a dialog holding a listbox (intl-tel-input's country chooser: a search
  // box over the list of countries) is a drop-down too: a user chooses an option in it
  if (pop === 'dialog' && popupsOf(el).some((p) => roleOf(p) === 'listbox' || p.querySelector('[role=listbox]'))) return true;
  // a custom element drawn over its visually hidden pop-up control (ion-select)
  return !!shadowOf(el) && !role && !!hiddenPopupControl(el);
}

// A combobox a user cannot type into, only choose in (Shoelace's sl-select: an <input readonly>
// with role=combobox; jQuery UI's selectmenu: a <span role=combobox>).
export function isReadOnlyCombobox(el) {
  if (!el || el.nodeType !== 1 || roleOf(el) !== 'combobox') return false;
  if (el.tagName === 'INPUT' || el.tagName === 'TEXTAREA') return el.readOnly;
  return !el.isContentEditable;
}

const isRadio = (el) => (el.tagName === 'INPUT' && inputType(el) === 'radio') || roleOf(el) === 'radio';
const isCheckbox = (el) => (el.tagName === 'INPUT' && inputType(el) === 'checkbox') || roleOf(el) === 'checkbox';
const FIELD_SEL = 'input:not([type=hidden]):not([type=radio]),select,textarea,[role=combobox],[role=textbox],[role=checkbox]';
const NOT_CHECKBOX_SEL = 'input:not([type=hidden]):not([type=checkbox]),select,textarea,[role=combobox],[role=textbox],[role=radio]';

// The choices of a group that `is` tells (through slots and shadow roots: sl-radio-group's
// sl-radios), or [].
function choicesOf(group, is) {
  const out = [];
  const walk = (el) => {
    for (const c of composedChildren(el)) {
      if (is(c)) out.push(c);
      else walk(c);
    }
  };
  walk(group);
  return out;
}

export const radiosOf = (group) => choicesOf(group, isRadio);
export const checkboxesOf = (group) => choicesOf(group, isCheckbox);

// Does `el` show no other field (`other`) than its choices, and what they reveal when chosen? (a
// field a choice reveals, GOV.UK's conditional "Phone number" in its aria-controls panel, or one
// not shown yet, is no other question in it: the group was "No field matches" by its legend)
function onlyChoices(el, items, other) {
  const panels = [];
  for (const r of items.slice(0, 50)) {
    for (const id of `${r.getAttribute('aria-controls') || ''} ${r.getAttribute('data-aria-controls') || ''}`.split(/\s+/).filter(Boolean)) {
      const p = r.getRootNode().getElementById?.(id);
      if (p && el.contains(p)) panels.push(p);
    }
  }
  return !Array.from(el.querySelectorAll(other)).some((f) => f.getClientRects().length && !panels.some((p) => p.contains(f)));
}

// Is `el` a radio group a user names by its caption: a role=radiogroup, or a <fieldset> with a
// <legend> that holds radio buttons and no other field.
export function isRadioGroup(el) {
  if (!el || el.nodeType !== 1) return false;
  if (roleOf(el) === 'radiogroup') return radiosOf(el).length > 0;
  if (el.tagName !== 'FIELDSET' || !el.querySelector(':scope > legend')) return false;
  const radios = radiosOf(el);
  return radios.length > 0 && onlyChoices(el, radios, FIELD_SEL);
}

// Is `el` a group of checkboxes a user names by its question ("What is your nationality?"): a
// <fieldset> with a <legend>, or a labelled role=group, holding two checkboxes or more and no other
// field; fill_form and select_option check exactly the boxes given in it.
export function isCheckboxGroup(el) {
  if (!el || el.nodeType !== 1) return false;
  const captioned = el.tagName === 'FIELDSET' ? !!el.querySelector(':scope > legend') : (roleOf(el) === 'group' && (el.hasAttribute('aria-labelledby') || el.hasAttribute('aria-label'))) || !!labelFor(el);
  if (!captioned) return false;
  const boxes = checkboxesOf(el);
  return boxes.length >= 2 && onlyChoices(el, boxes, NOT_CHECKBOX_SEL);
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
  if (lg) return flatTextOf(lg);
  const l = labelFor(el);
  return l ? flatTextOf(l) : '';
}

// The <label for> pointing at `el` when it is no field a label can name (a box of checkboxes: Ant
// Design Vue's form item points its label at its checkbox group's <div>), or null.
function labelFor(el) {
  if (!el.id || /^(INPUT|SELECT|TEXTAREA|BUTTON|METER|OUTPUT|PROGRESS)$/.test(el.tagName)) return null;
  try { return el.getRootNode().querySelector?.(`label[for="${CSS.escape(el.id)}"]`) || null; } catch { return null; }
}

function flatTextOf(el) {
  return el ? flatText(el) : '';
}
