// The page as Markdown. One walk over the live DOM (through open shadow roots and
// same-origin iframes) writes Markdown directly: only what is rendered, every
// interactive element as its token. Nothing from the page is evaluated, nothing is
// cloned or inserted anywhere. The output follows what turndown + turndown-plugin-gfm
// produced for the same content (same rules, same escaping, same whitespace
// collapsing); see extension/README.md ("Snapshot speed") for why it no longer goes
// through turndown.
import { controlKind, isRendered, styleOf, frameDoc, norm, nameOf, clip, shadowOf, childItems, segmentsOf, SUBMENU_SEL, itemPanels, isInert, ownList, inputType } from './dom.js';
import { behindModal } from './modal.js';
import { token, tokenParts, ownName, shownText, readOnlyBox } from './describe.js';
import { isSecret } from './secret.js';
import { refFor, documentId } from './refs.js';
import { MAX_PAGE_CHARS } from '../shared/limits.js';
import { invisible, mutedText, movedOff, seenStatusTwin, seenListTwin, seenText } from './hidden.js';
import { isAriaTable, isSortHeader, sortMark, gridModel, layout } from './grid.js';
import { contextEditor, drawnEditor, proxyFor } from './widgets.js';
import { drawsNothing, flatChildren } from './reach.js';

const MAX_NODES = 300_000;

const SKIP = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'LINK', 'META', 'HEAD', 'TITLE', 'BASE',
  'OBJECT', 'EMBED', 'CANVAS', 'svg', 'SVG', 'MATH', 'AUDIO', 'SOURCE', 'TRACK', 'PARAM', 'MAP', 'AREA', 'DATALIST', 'OPTION', 'OPTGROUP']);
// Tags whose Markdown does not depend on their CSS display.
const BLOCK_TAGS = new Set(['P', 'DL', 'DT', 'DD', 'FIGURE', 'FIGCAPTION']);
const INLINE_TAGS = new Set(['SUB', 'SUP', 'KBD']);
const HEADINGS = { H1: 1, H2: 2, H3: 3, H4: 4, H5: 5, H6: 6 };
const BLOCK_DISPLAY = /^(block|flex|grid|list-item|table|flow-root|table-row|table-caption)$/;
// These carry their own token; their children are not rendered.
const ATOMIC_KINDS = new Set(['button', 'input', 'textarea', 'select', 'checkbox', 'radio', 'combobox', 'slider', 'editable', 'tab', 'option', 'menuitem', 'treeitem']);
const NESTED_KEEP = new Set(['input', 'textarea', 'select', 'checkbox', 'radio', 'editable', 'combobox', 'slider']);
const SVG_NS = 'http://www.w3.org/2000/svg';
// Form controls keep their token even when drawn invisible (a styled checkbox over an opacity:0
// native one, a visually hidden input with a visible label): their name is their label's.
const FORM_TAGS = new Set(['INPUT', 'SELECT', 'TEXTAREA']);
// A clickable region (a list row with a pointer cursor, GWT's cell list) that holds a form field
// keeps its content: the field is what the user acts on (a todo's checkbox), not only the row.
const FIELD_SEL = 'input:not([type=hidden]),select,textarea';

// The checkbox or radio input a small box stands for, drawn in its place: the one form control it
// holds (among its first 30 elements: a switch's parts are few, and a large clickable box is not
// walked through twice), hidden, whose visible stand-in (widgets.js proxyFor) is the box or inside
// it; else null.
function checkboxDrawnBy(el) {
  let c = null;
  const w = el.ownerDocument.createTreeWalker(el, 1);
  for (let n = w.nextNode(), i = 0; n; n = w.nextNode(), i++) {
    if (i >= 30) return null;
    if (/^(INPUT|SELECT|TEXTAREA|BUTTON)$/.test(n.tagName) && !(n.tagName === 'INPUT' && n.type === 'hidden')) {
      if (c) return null;
      c = n;
    }
  }
  if (!c || c.tagName !== 'INPUT' || !/^(checkbox|radio)$/.test(inputType(c))) return null;
  const p = proxyFor(c);
  return p && el.contains(p) ? c : null;
}

// Is the Markdown `s` of a live area a short message (300 characters at most) whose controls are
// one or two buttons (a toast's Undo and Close), not a part of the page (results, a form)?
function messageWithActions(s) {
  if (s.length > 300) return false;
  const toks = s.match(/\[[a-z][^\]]*\be\d+\]/g) || [];
  return toks.length > 0 && toks.length <= 2 && toks.every((t) => t.startsWith('[button '));
}

// A form control by tag or by widget role (ion-toggle is a role=switch host).
const CONTROL_SEL = FIELD_SEL + ',[role=checkbox],[role=switch],[role=radio],[role=combobox],[role=textbox],[role=searchbox],[role=slider],[role=spinbutton]';

// Does a clickable wrapper (a list item with a pointer cursor) hold a form control, in its light DOM
// or in the shadow root of a custom element in it (its first 200 elements)? Then it is no atomic
// clickable: the control inside shows, with its state.

// A link or button a label holds besides its control, which a person can see and click there.
function ownAction(label, ctl) {
  for (const a of label.querySelectorAll('a[href],button,[role=link],[role=button]')) if (a !== ctl && !a.contains(ctl) && isRendered(a)) return a;
  return null;
}

// The messages a label around a field holds for it (its hint, its error): the elements the field's
// aria-describedby names, and alerts or live regions, inside the label (outermost ones, the field
// itself never; at most 5).
function fieldNotes(label, field) {
  const ids = (field.getAttribute('aria-describedby') || '').split(/\s+/).filter(Boolean);
  const out = [];
  for (const m of label.querySelectorAll('[role=alert],[role=status],[aria-live],[id]')) {
    if (m.contains(field) || out.some((o) => o.contains(m))) continue;
    if (m.id && !ids.includes(m.id) && !m.matches('[role=alert],[role=status],[aria-live]')) continue;
    out.push(m);
    if (out.length >= 5) break;
  }
  return out;
}

// A drop-down's own field kept visually hidden inside the box that draws it (an <input
// role=combobox> a keyboard reaches: PrimeReact's MultiSelect).
const hiddenCombobox = (i) => i.tagName === 'INPUT' && i.getAttribute('role') === 'combobox' && i.tabIndex >= 0;

// Does clickable box `el` draw such a field (it is the field's proxy, widgets.js)?
function fieldDrawnIn(el) {
  const i = el.querySelector('input[role=combobox]');
  return !!i && hiddenCombobox(i) && proxyFor(i) === el;
}
const ROLE_TOGGLES = '[role=checkbox],[role=radio],[role=switch]';

// The role=checkbox, radio or switch right beside a native checkbox or radio (its previous or next
// element): the control that native one stands behind.
function roleTwin(input) {
  for (const n of [input.previousElementSibling, input.nextElementSibling]) if (n?.matches(ROLE_TOGGLES)) return n;
  return null;
}

function holdsControl(el) {
  if (el.querySelector(CONTROL_SEL) || shadowOf(el)?.querySelector(CONTROL_SEL)) return true;
  const list = el.querySelectorAll('*');
  for (let i = 0; i < list.length && i < 200; i++) {
    if (shadowOf(list[i])?.querySelector(CONTROL_SEL)) return true;
  }
  return false;
}

// Items of a composite widget that are one token each, their words its name, unless they hold
// controls of their own (see itemOfControls).
const ITEM_KINDS = new Set(['menuitem', 'option', 'tab']);
const FOCUS_SEL = 'a[href],button,input:not([type=hidden]),select,textarea,[tabindex],[contenteditable=""],[contenteditable=true]';
const TEXT_FIELD_SEL = 'select,textarea,input:not([type=hidden],[type=checkbox],[type=radio],[type=button],[type=submit],[type=reset],[type=image])';

// Does a menu item, option or tab hold controls a user works on their own: a field to type in or
// choose from, or two or more controls the keyboard reaches (tabindex 0 and up, not disabled)? Then
// it is a box of them, no one action: Oruga's Datepicker puts its whole calendar (month and year
// selects, previous and next buttons, the days) in a role=menuitem, shown as one token named by
// all its words. (One focusable control, a tab's close button, a checkbox drawn in an option, is
// part of the item's one action.) Looks at its first 300 elements.
function itemOfControls(el) {
  if (el.querySelector(TEXT_FIELD_SEL)) return true;
  const list = el.querySelectorAll(FOCUS_SEL);
  let n = 0;
  for (let i = 0; i < list.length && i < 300; i++) {
    const c = list[i];
    if (c.tabIndex < 0 || c.disabled || c.getAttribute('aria-disabled') === 'true') continue;
    if (++n >= 2) return true;
  }
  return false;
}

// The words an <svg> draws: its rendered <text> elements in document order (not those in <defs>,
// symbols, masks or markers, which are drawn only where used), at most 300.
function svgWords(svg) {
  const out = [];
  for (const t of svg.querySelectorAll('text')) {
    if (t.closest('defs,symbol,clipPath,mask,pattern,marker')) continue;
    // (not drawn: a group around it of display none, or of opacity 0, a chart's hidden tooltip)
    const st = styleOf(t);
    if (!st || st.visibility !== 'visible' || hiddenIn(t, svg)) continue;
    const s = norm(t.textContent);
    if (s) out.push(s);
    if (out.length >= 300) break;
  }
  return out.join(' ');
}

// Is an element of an <svg> not drawn for what is between it and the <svg> (itself included)?
function hiddenIn(el, svg) {
  for (let n = el; n && n !== svg; n = n.parentNode) {
    const st = n.nodeType === 1 ? styleOf(n) : null;
    if (!st || st.display === 'none' || st.opacity === '0') return true;
  }
  return false;
}

// turndown's markdownEscapes, applied per text node as turndown does.
const ESCAPES = [[/\\/g, '\\\\'], [/\*/g, '\\*'], [/^-/g, '\\-'], [/^\+ /g, '\\+ '], [/^(=+)/g, '\\$1'],
  [/^(#{1,6}) /g, '\\$1 '], [/`/g, '\\`'], [/^~~~/g, '\\~~~'], [/\[/g, '\\['], [/\]/g, '\\]'], [/^>/g, '\\>'],
  [/_/g, '\\_'], [/^(\d+)\. /g, '$1\\. ']];
const NEEDS_ESCAPE = /[\\*`[\]_]|^[-+=#~>\d]/;
function escapeMd(s) {
  if (!NEEDS_ESCAPE.test(s)) return s;
  for (const [re, rep] of ESCAPES) s = s.replace(re, rep);
  return s;
}

const WS = /[ \r\n\t]+/g;
const ZERO_WIDTH = /[\u200B\u2060\uFEFF]/g; // zero-width space, word joiner, zero-width no-break space
const KEEPS_BREAKS = /^(pre|pre-wrap|pre-line|break-spaces)$/;
const NON_WS = /[^ \r\n\t]/;
const oneLine = (s) => (s.indexOf('\n') >= 0 ? s.replace(/\s*\n+\s*/g, ' ') : s);

function safeUrl(u) {
  if (!u) return '';
  if (/^(https?|file|ftp|mailto|tel):/i.test(u)) return u;
  return '';
}

function mdUrl(u) {
  return u.replace(/[()\s]/g, (c) => encodeURIComponent(c));
}

// A dialog's Markdown that is one dialog, whole: its kind, name, modal mark and content.
const ONE_DIALOG = /^\[(alert dialog|dialog)( "(?:[^"\\]|\\.)*")?( modal)?\]\n+([\s\S]*?)\n+\[end of dialog\]$/;

const LIVE_ROLES = new Set(['status', 'alert', 'tooltip']);

// What a live region or tooltip is marked as in the Markdown ('status', 'alert', 'tooltip'), from
// its explicit role or its aria-live politeness; '' for any other element (an <output>, whose
// implicit status role is the page's own text, is not marked).
function liveKind(el, role) {
  const r = (role || '').trim().toLowerCase();
  if (LIVE_ROLES.has(r)) return r;
  if (r) return '';
  const live = (el.getAttribute('aria-live') || '').trim().toLowerCase();
  return live === 'assertive' ? 'alert' : live === 'polite' ? 'status' : '';
}

// Which sides of an inline box (inline, inline-block, -flex, -grid) show a gap to what is beside
// it: those with a horizontal margin or padding; null for none (an inline-block with neither, as
// Bootstrap draws <output>, sits against the text beside it).
function gaps(st, disp) {
  if (!/^inline(-block|-flex|-grid)?$/.test(disp)) return null;
  const left = parseFloat(st.marginLeft) > 0 || parseFloat(st.paddingLeft) > 0;
  const right = parseFloat(st.marginRight) > 0 || parseFloat(st.paddingRight) > 0;
  return left || right ? { left, right } : null;
}

// Does an item of an <ol> show a number? Not when its list style is a bullet, nor when it has no
// marker of its own and draws no counter before itself (Quill 2 keeps bulleted and numbered lines
// in one <ol>, each <li data-list> unmarked, with a "•" or a counter drawn by ::before; a
// breadcrumb's <ol> shows no numbers either): those items show as "-".
const BULLETS = new Set(['disc', 'circle', 'square', 'disclosure-open', 'disclosure-closed']);
function numbered(li) {
  const st = styleOf(li);
  if (!st) return true;
  if (BULLETS.has(st.listStyleType)) return false;
  if (st.display === 'list-item' && st.listStyleType !== 'none') return true;
  for (const n of [li, li.firstElementChild]) {
    let c = '';
    try { c = n ? n.ownerDocument.defaultView.getComputedStyle(n, '::before').content : ''; } catch { /* ignore */ }
    if (/\bcounters?\(/.test(c)) return true;
  }
  return false;
}

// Markdown writer. Output goes to `buf` (an array, joined once); block boundaries are
// "pending newlines" (max of what both sides ask for, at most 2 — turndown's join),
// written only when more text follows. `sp`: the last thing written ends a word
// boundary (block start, space, token), so a following text drops its leading space
// (turndown's collapseWhitespace).
class Writer {
  constructor(maxNodes) {
    this.buf = [];
    this.nl = 0;
    this.sp = true;
    this.code = 0;
    this.li = 0; // index of the next <li> in the innermost <ol>
    this.nodes = 0;
    this.depth = 0;
    this.tooDeep = false;
    this.maxNodes = maxNodes;
    this.overflow = false;
    this.frames = []; // the cross-origin iframes left as placeholders: {k, src, label}
    this.nonce = '';
    // Are the text nodes of the current element invisible (font-size 0 …)? Decided on its first
    // text node that is not only white space (most elements have none: no style read for them).
    this.mute = false;
    this.muteSt = null;
    this.editor = false; // inside a rich-text editor's content
    this.gridRows = new Map(); // row element of an ARIA grid being walked -> that grid's {model, anc, done}
    this.ctls = 0; // tokens with a ref written so far
    this.ariaShown = false; // aria-hidden parts shown (see snapshot())
    this.force = null; // an element to show as a clickable whatever its style (a sortable column header)
    this.live = false; // inside a live region or tooltip already marked (see liveRegion)
    this.tree = false; // inside a tree item (see treeItem)
    this.hiddenLook = 20_000; // elements of visibility:hidden parts still to look through (shownParts)
  }

  raw(s) {
    if (!s) return;
    if (this.nl) {
      if (this.buf.length) this.buf.push(this.nl > 1 ? '\n\n' : '\n');
      this.nl = 0;
    }
    this.buf.push(s);
  }

  brk(n = 2) {
    if (this.nl < n) this.nl = n;
    this.sp = true;
  }

  // Zero-width characters show nothing (CKEditor keeps seven U+200B at the caret as a filler, in
  // an empty bold it inserts): dropped, so that no empty emphasis "**" or invisible
  // characters reach the text an agent reads and matches.
  text(data) {
    let s = data.replace(ZERO_WIDTH, '').replace(WS, ' ');
    if (this.sp && s.charCodeAt(0) === 32) s = s.slice(1);
    if (!s) return;
    this.sp = s.charCodeAt(s.length - 1) === 32;
    this.raw(this.code ? s : escapeMd(s));
  }

  // Text whose line breaks the page shows (an editor that keeps them: Lexical puts a typed line
  // break in its text node): each break is a Markdown hard break, as a <br> is.
  lines(data) {
    const parts = data.split('\n');
    for (let i = 0; i < parts.length; i++) {
      if (i) { this.raw('  '); this.brk(1); }
      if (parts[i]) this.text(parts[i]);
    }
  }

  ctl(md) {
    this.raw((this.sp ? '' : ' ') + md + ' ');
    this.sp = true;
    this.ctls++;
  }

  // Render into a fresh buffer; returns [markdown, trailing pending newlines].
  sub(fn) {
    const buf = this.buf, nl = this.nl;
    this.buf = []; this.nl = 0;
    fn();
    const out = [this.buf.join(''), this.nl];
    this.buf = buf; this.nl = nl;
    return out;
  }

  // **x**, _x_, ~x~, `x`: whitespace at the edges goes outside the delimiters.
  wrap(s, l, r) {
    const lead = s.charCodeAt(0) === 32 ? ' ' : '';
    const trail = s.length > 1 && s.charCodeAt(s.length - 1) === 32 ? ' ' : '';
    if (lead || trail) s = s.trim();
    this.raw(lead + l + s + r + trail);
  }

  kids(el, clickAnc) {
    const sr = shadowOf(el);
    if (sr) {
      for (let c = sr.firstChild; c; c = c.nextSibling) this.walk(c, clickAnc);
      return;
    }
    if (el.tagName === 'SLOT') {
      const assigned = el.assignedNodes({ flatten: true });
      if (assigned.length) {
        for (const c of assigned) this.walk(c, clickAnc);
        return;
      }
    }
    for (let c = el.firstChild; c; c = c.nextSibling) this.walk(c, clickAnc);
  }

  // The outermost parts of a visibility:hidden element that set visibility:visible again, in
  // document order: visibility is inherited and a descendant may override it, and the browser draws
  // that part (Polaris' IndexTable hides its sticky header and shows the bulk-action bar inside it,
  // "1 selected", "Create shipping labels": none of it was shown). Looks through the flat tree (as
  // kids() walks it), not into display:none parts, and through at most `hiddenLook` elements per
  // snapshot, so that hidden subtrees cost little however large or many they are.
  shownParts(el) {
    const out = [];
    const look = (n) => {
      const sr = shadowOf(n);
      const slotted = !sr && n.tagName === 'SLOT' ? n.assignedElements({ flatten: true }) : [];
      const kids = sr ? sr.children : slotted.length ? slotted : n.children;
      for (let i = 0; i < kids.length; i++) {
        if (--this.hiddenLook < 0 || out.length >= 500) return;
        const c = kids[i];
        if (SKIP.has(c.tagName)) continue;
        const s = styleOf(c);
        if (!s || s.display === 'none' || s.contentVisibility === 'hidden') continue;
        if (s.visibility === 'visible') out.push(c);
        else look(c);
      }
    };
    look(el);
    return out;
  }

  // `clickAnc` is the nearest interactive ancestor element (for nested clickables).
  // (bounded in depth: a page nested 1,000 levels deep overflowed the call stack, and no page came
  // back at all; what lies deeper than MAX_DEPTH is left out, and the page says so)
  walk(node, clickAnc) {
    if (this.depth >= MAX_DEPTH) { this.tooDeep = true; return; }
    this.depth++;
    try { this.walkNode(node, clickAnc); } finally { this.depth--; }
  }

  walkNode(node, clickAnc) {
    if (this.nodes++ > this.maxNodes) { this.overflow = true; return; }
    const nt = node.nodeType;
    if (nt === 3) {
      const d = node.data;
      if (!d) return;
      if (this.mute === null && NON_WS.test(d)) this.mute = mutedText(this.muteSt, node.parentElement);
      if (this.mute) return;
      if (this.editor && d.indexOf('\n') >= 0 && KEEPS_BREAKS.test(this.muteSt?.whiteSpace || '')) this.lines(d);
      else this.text(d);
      return;
    }
    if (nt === 11) { for (let c = node.firstChild; c; c = c.nextSibling) this.walk(c, clickAnc); return; }
    if (nt !== 1) return;
    const el = node;
    const tag = el.tagName;
    if (el.namespaceURI === SVG_NS) {
      // an <svg> icon that is a control itself (role=button, a pointer cursor of its own): its token
      if (tag === 'svg' && !this.editor) {
        const sst = styleOf(el);
        const kind = sst && isRendered(el, sst) && !invisible(el, sst) ? controlKind(el, sst) : null;
        if (kind && !(clickAnc && !this.keepNested(el, kind, clickAnc))) this.ctl(token(el, kind));
        else if (!kind && !clickAnc && sst && isRendered(el, sst) && !invisible(el, sst)) this.svgImage(el);
      }
      return;
    }
    if (SKIP.has(tag)) return;
    if (el.hidden && tag !== 'DETAILS') return;
    const st = styleOf(el);
    if (!st) return;
    // isRendered(), with each property read once. visibility:hidden hides the element's own text
    // and controls, not a descendant that sets visibility:visible again (see shownParts).
    const disp = st.display;
    if (disp === 'none') return;
    if (st.contentVisibility === 'hidden') return;
    const vis = st.visibility;
    if (vis === 'hidden' || vis === 'collapse') {
      for (const p of this.shownParts(el)) this.walk(p, clickAnc);
      return;
    }
    if (tag === 'INPUT' && el.type === 'hidden') return;
    // A code editor's EditContext element or key catcher (Monaco's: no size or transparent, the
    // lines it draws aria-hidden beside it) is the editor, shown with the code a user sees.
    if (!this.editor && (tag === 'TEXTAREA' || el.hasAttribute('tabindex'))) {
      const d = drawnEditor(el);
      if (d) return this.contextBlock(el, d.face, d.view);
    }
    // (the list drawn for the eye beside a listbox kept for screen readers, aria-hidden with all it
    // holds: shown whole, as a user sees it; hidden.js drawnListOf)
    const twin = !this.ariaShown && seenListTwin(el);
    // a transparent <select> a drop-down drawn beside it stands for (bootstrap-select's): that
    // widget is what a user sees and the agent acts on; the select was shown too, its twin
    if (tag === 'SELECT' && st.opacity === '0' && proxyFor(el)) return;
    if (!FORM_TAGS.has(tag) && invisible(el, st, !this.ariaShown && !twin && !seenStatusTwin(el), disp)) {
      // a visually hidden wrapper of a control a box around it draws (React Aria's VisuallyHidden
      // around a slider thumb's range input): the control, as that box shows it
      const inner = el.childElementCount === 1 && el.firstElementChild.tagName === 'INPUT' ? el.firstElementChild : null;
      // (or the field of a drop-down drawn beside it, PrimeReact's MultiSelect: its token, which
      // its label names, is where the agent acts)
      if (inner && (/^(range|checkbox|radio)$/.test(inner.type) || hiddenCombobox(inner)) && proxyFor(inner)) this.walk(inner, clickAnc);
      return;
    }
    // A field no one sees and no keyboard reaches (aria-hidden, tabindex -1: the value input an
    // sl-select keeps for form validation behind its visible combobox) is not the user's to fill.
    if (FORM_TAGS.has(tag) && el.tabIndex < 0 && el.getAttribute('aria-hidden') === 'true' && (invisible(el, st, false, disp) || besideContextEditor(el))) return;
    // Nor the hidden native twin of a role=checkbox, radio or switch beside it (Base UI's): the
    // role control is the one a user sees and reaches.
    if (tag === 'INPUT' && el.tabIndex < 0 && /^(checkbox|radio)$/.test(el.type) && roleTwin(el) && invisible(el, st, false, disp)) return;
    // Nor one no keyboard reaches that is moved where no scrolling reaches (a submit button kept
    // at top: -1000px for Enter to submit the form): no one sees or reaches it.
    // (nor a transparent one moved there, whatever its tabindex: Toast UI Editor's paste catcher,
    // a textarea of opacity 0 fixed at -1000 px, was a [textarea] beside the editor)
    if (FORM_TAGS.has(tag) && (el.tabIndex < 0 || st.opacity === '0') && movedOff(el, st)) return;
    // Nor a read-only one no keyboard reaches, lying under another field (accessible-autocomplete's
    // hint, the grey rest of the word drawn behind the box a user types into): part of that field.
    if (tag === 'INPUT' && el.tabIndex < 0 && el.readOnly && underField(el)) return;
    const mute = this.mute, muteSt = this.muteSt;
    this.mute = null;
    this.muteSt = st;
    if (twin) this.ariaShown = true;
    this.element(el, tag, st, clickAnc, disp);
    if (twin) this.ariaShown = false;
    this.mute = mute;
    this.muteSt = muteSt;
  }

  element(el, tag, st, clickAnc, disp = st.display) {
    if (this.gridRows.size) {
      const g = this.gridRows.get(el);
      if (g) { if (!g.done) this.ariaTableRows(g); return; }
    }
    let kind = controlKind(el, st) || (el === this.force ? 'clickable' : null);
    if (kind && clickAnc && !this.keepNested(el, kind, clickAnc)) kind = null;
    // the box a drop-down's hidden field is drawn in (PrimeReact's MultiSelect): that field's token,
    // shown inside it (walk), is the one to act by
    if (kind === 'clickable' && fieldDrawnIn(el)) kind = null;
    // a box drawn for the one checkbox it holds hidden (Bootstrap Switch: its ON and OFF halves
    // slide in a box that clips them, the native checkbox hidden inside): that checkbox's token,
    // with its state, and the words the box shows (it was "[clickable] ON OFF", no state)
    // (not a label: a label and its control are read below)
    const drawnFor = kind === 'clickable' && tag !== 'LABEL' && !this.editor ? checkboxDrawnBy(el) : null;
    if (drawnFor) {
      const k = inputType(drawnFor), words = seenText(el, 200, false, true);
      this.ctl(token(drawnFor, k));
      if (words !== nameOf(drawnFor, k)) this.text(words + ' ');
      return;
    }
    if (this.editor) {
      // inside a rich-text editor: its content, as Markdown, without refs
      if (tag === 'A' && el.hasAttribute('href')) return this.link(el, false);
      kind = null;
    } else if (kind && (el.isContentEditable || readOnlyBox(el)) && (kind === 'editable' || kind === 'input')) {
      return this.editorBlock(el, kind);
    }

    switch (tag) {
      case 'IFRAME': case 'FRAME': return this.frame(el, clickAnc);
      case 'IMG': return this.img(el, kind);
      case 'PRE': return this.pre(el);
      case 'TABLE': return this.table(el, clickAnc);
      case 'DETAILS':
        if (!el.open) {
          this.brk();
          for (const c of el.children) if (c.tagName === 'SUMMARY') { this.walk(c, clickAnc); break; }
          this.brk();
          return;
        }
        break;
      default: break;
    }
    if (!this.editor && isAriaTable(el) && this.ariaTable(el, kind, clickAnc)) return;

    if (kind === 'link') {
      // a link that is a box of its own (a flex item of a navbar: Bulma's) is a word apart from
      // the next, as the eye sees it ("[About](…) [e16][Contact](…)" ran together)
      if (!/^inline/.test(disp) && disp !== 'contents') this.text(' ');
      this.link(el);
      return;
    }
    if (kind === 'treeitem') {
      const items = childItems(el);
      if (this.tree || items.length || el.closest('[role=tree]')) return this.treeItem(el, items);
    }
    // a menu item holding its submenu (Kendo's Menu): the item by its own words, then the submenu's
    // items when it shows (they were all one token's name, "File New Open Export", with no refs)
    if (kind === 'menuitem') {
      const sub = el.querySelector(SUBMENU_SEL);
      if (sub) {
        this.ctl(token(el, kind));
        if (sub.checkVisibility({ visibilityProperty: true })) { this.brk(1); this.walk(sub, clickAnc); this.brk(1); }
        return;
      }
    }
    // a message one may click (UIkit's notification closes on a click) is still the message it is
    if (kind === 'clickable' && !this.editor && !this.live) {
      const what = liveKind(el, el.getAttribute('role'));
      if (what === 'alert' || what === 'status') return this.liveRegion(el, what, el, kind);
    }
    // a menu item, option or tab that is a box of controls: its token, then those controls, each a
    // control of its own (not nested in the item's click)
    // (so is an element made a button that holds a field to type in: VitePress's search box, a
    // role=button around its search field and results, was one token, the results unseen)
    const shell = (ITEM_KINDS.has(kind) && itemOfControls(el)) || (kind === 'button' && tag !== 'BUTTON' && !!el.querySelector(TEXT_FIELD_SEL));
    if (kind && !shell && (ATOMIC_KINDS.has(kind) || (kind === 'clickable' && !this.hasBlockText(el) && !holdsControl(el)))) {
      // a control that draws nothing, of no size and with no words (an icon button whose icon font
      // is not loaded), is none a user sees (not a form field: its label stands for it)
      if (!FORM_TAGS.has(tag) && !NON_WS.test(el.textContent) && drawsNothing(el)) return;
      this.ctl(token(el, kind));
      // a field drawn as segments (dom.js segmentsOf) holds its picker's button beside them: shown
      const segs = kind === 'input' && tag !== 'INPUT' ? segmentsOf(el) : [];
      for (const c of segs.length ? el.children : []) if (!segs.some((s) => c.contains(s))) this.walk(c, clickAnc);
      // a drop-down drawn without ARIA that holds its list (Fomantic UI's, Chosen's): the list while
      // open, its items with their refs, as a user sees them under it
      const menu = kind === 'combobox' ? ownList(el) : null;
      if (menu && menu.checkVisibility({ visibilityProperty: true, opacityProperty: true })) { this.brk(1); this.walk(menu, null); this.brk(1); }
      return;
    }

    if (tag === 'LABEL' && !kind) {
      const ctls = el.querySelectorAll('input:not([type=hidden]),select,textarea');
      // (not when the label holds the control a user sees as well, a role=checkbox beside its
      // hidden native twin: Base UI's Checkbox, Radio and Switch, whose walk showed nothing)
      // (nor when it holds a link or button of its own, "I agree to the [Terms]": a person opens
      // it there; the label's words then follow the control, as a label beside it does)
      if (ctls.length === 1 && el.control === ctls[0] && !el.querySelector(ROLE_TOGGLES) && !ownAction(el, ctls[0])) {
        const c = ctls[0];
        if (controlKind(c, styleOf(c)) && isRendered(c)) {
          this.walk(c, clickAnc);
          // what the label holds besides its name: the field's hint and error (its aria-describedby,
          // an alert: Quasar's whole field is a <label>, and "Please type something" was lost)
          for (const m of fieldNotes(el, c)) this.walk(m, clickAnc);
          return;
        }
      }
      // a label around the form-associated custom element it is tied to (label.control), itself
      // the control (its role in its ElementInternals: Material Web's md-radio), and words only:
      // the control, which those words name (they were said twice)
      const fc = ctls.length ? null : el.control;
      if (fc && fc !== el && fc.localName.includes('-') && el.contains(fc) && !el.querySelector('a[href],button,[role=link],[role=button]') &&
          controlKind(fc, styleOf(fc)) && isRendered(fc)) {
        this.walk(fc, clickAnc);
        return;
      }
      // a label that is what a user sees of the visually hidden button it is for (widgets.js
      // proxyFor: a clipped 1×1 <button role=switch> beside it, Carbon's Toggle and cds-toggle,
      // which the walk leaves out as invisible): that button's token in its place, its words the
      // name and the track drawn in it the state (it was its words and a [clickable "Off"])
      if (fc && fc.tagName === 'BUTTON' && !el.contains(fc) && proxyFor(fc) === el) {
        const k = controlKind(fc, styleOf(fc));
        if (k && !(clickAnc && !this.keepNested(fc, k, clickAnc))) { this.ctl(token(fc, k)); return; }
      }
      // a label around one role=checkbox, radio or switch (and its hidden native twin) and words
      // only: the control, which those words name (they were said twice)
      const tg = el.querySelectorAll(ROLE_TOGGLES);
      const t = tg[0];
      if (tg.length === 1 && (!ctls.length || (ctls.length === 1 && roleTwin(ctls[0]) === t)) && !t.hasAttribute('aria-label') &&
          !t.hasAttribute('aria-labelledby') && !el.querySelector('a[href],button,[role=link],[role=button]') && isRendered(t)) {
        this.walk(t, clickAnc);
        return;
      }
    }

    const anc = kind && !shell ? el : clickAnc;
    const role = el.getAttribute('role');
    if (!this.editor && (tag === 'DIALOG' || role === 'dialog' || role === 'alertdialog')) return this.dialog(el, kind, anc, role === 'alertdialog');
    if (!this.editor && !kind && (tag === 'PROGRESS' || tag === 'METER' || role === 'progressbar' || role === 'meter')) return this.gauge(el, tag, role, anc);
    if (!this.editor && !kind && !this.live) {
      const what = liveKind(el, role);
      if (what) return this.liveRegion(el, what, anc);
    }
    const h = HEADINGS[tag] || (el.getAttribute('role') === 'heading' ? Math.min(6, Math.max(1, Number(el.getAttribute('aria-level')) || 2)) : 0);
    if (h) return this.heading(el, h, kind, anc);
    switch (tag) {
      case 'UL': case 'OL': return this.list(el, kind, anc);
      case 'LI': return this.item(el, kind, anc);
      case 'BLOCKQUOTE': return this.quote(el, kind, anc);
      case 'BR': this.raw('  '); this.brk(1); return;
      case 'HR': this.brk(); this.raw('---'); this.brk(); return;
      case 'STRONG': case 'B': return this.inline(el, kind, anc, '**', true);
      case 'EM': case 'I': return this.inline(el, kind, anc, '_', true);
      case 'S': case 'DEL': case 'STRIKE': return this.inline(el, kind, anc, '~', false);
      case 'CODE': return this.codeSpan(el, kind, anc);
      default: break;
    }
    const block = BLOCK_TAGS.has(tag) || (!INLINE_TAGS.has(tag) && BLOCK_DISPLAY.test(disp));
    if (block && !kind && !this.editor && !this.code && ((isCodeView(el, st) && el.childElementCount > 1 && !el.querySelector(ACTIVE_SEL)) || preLines(el))) {
      const c = codeText(el);
      if (!c.text.trim()) return; // an empty layer (Ace's markers, cursors): nothing shown
      this.brk();
      this.raw(c.md);
      this.brk();
      return;
    }
    if (block) this.brk();
    this.mark(el, kind);
    // an inline box set apart from its neighbours by its margin or padding (a tag, a badge, a
    // status part): a word boundary on that side, as the eye sees a gap there
    // (DataTables' "entries)1 row selected", Slim Select's tags "RedBlue")
    const apart = !block && !kind && el.firstChild ? gaps(st, disp) : null;
    if (apart?.left) this.text(' ');
    this.kids(el, anc);
    if (apart?.right) this.text(' ');
    if (block) this.brk();
  }

  // A dialog (an open <dialog>, role=dialog or alertdialog): its content between two marker lines,
  // named as a user reads it, and "modal" when it blocks the rest of the page (showModal(),
  // aria-modal): an agent learns a dialog is open, which a portal puts at the page's end.
  dialog(el, kind, anc, alert) {
    const name = dialogName(el);
    const modal = el.getAttribute('aria-modal') === 'true' || (el.tagName === 'DIALOG' && matchesSafe(el, ':modal'));
    let [body] = this.sub(() => { this.sp = true; this.mark(el, kind); this.kids(el, anc); });
    body = body.replace(/^\s+|\s+$/g, '');
    let head = `${alert ? 'alert dialog' : 'dialog'}${name ? ' "' + name.replace(/\\/g, '\\\\').replace(/"/g, '\\"') + '"' : ''}`;
    // a dialog that is all one dialog inside (Lion's modal <dialog> around its role=dialog): one
    // dialog, named by the inner one when the outer has no name of its own
    const one = ONE_DIALOG.exec(body);
    const merged = !!one && !one[4].includes('[end of dialog]');
    if (merged) {
      head = (one[1] === 'alert dialog' || alert ? 'alert dialog' : 'dialog') + (one[2] || (name ? head.slice(head.indexOf(' ')) : ''));
      body = one[4];
    }
    this.brk();
    this.raw(`[${head}${modal || (merged && one[3]) ? ' modal' : ''}]`);
    this.brk();
    this.raw(body);
    this.brk();
    this.raw('[end of dialog]');
    this.brk();
  }

  // A progress bar or meter (<progress>, <meter>, role=progressbar/meter: jQuery UI's
  // progressbar is an empty box whose fill a user sees) shows its value, which its drawing alone
  // does not tell an agent: [progressbar "Upload" value=37%], `busy` when indeterminate.
  // (One that holds controls, a Cancel button, shows them after its token, with their refs.)
  gauge(el, tag, role, anc) {
    const native = tag === 'PROGRESS' || tag === 'METER';
    const what = tag === 'METER' || role === 'meter' ? 'meter' : 'progressbar';
    const num = (v, d) => { const n = parseFloat(v); return Number.isFinite(n) ? n : d; };
    const text = norm(el.getAttribute('aria-valuetext') || '');
    const rawNow = native ? (tag === 'PROGRESS' && !el.hasAttribute('value') ? null : el.value) : el.getAttribute('aria-valuenow');
    const now = rawNow == null || rawNow === '' ? null : num(rawNow, null);
    const min = native ? (tag === 'METER' ? el.min : 0) : num(el.getAttribute('aria-valuemin'), 0);
    const max = native ? el.max : num(el.getAttribute('aria-valuemax'), 100);
    let value = '';
    if (text) value = 'value=' + JSON.stringify(clip(text, 80));
    else if (now !== null) {
      const pct = max > min ? Math.round(((now - min) / (max - min)) * 100) : 0;
      value = min === 0 && max === 100 ? `value=${Math.round(now * 100) / 100}%` : `value=${Math.round(now * 100) / 100} of ${max} (${pct}%)`;
    } else value = 'busy';
    let name = el.getAttribute('aria-labelledby') || el.getAttribute('aria-label') || (native && el.labels?.length) ? nameOf(el) : '';
    const controls = holdsControl(el) || !!el.querySelector('button,a[href],[role=button],[role=link],[tabindex]');
    if (!name && !controls) {
      const sp = this.sp;
      const [inner] = this.sub(() => { this.sp = true; this.kids(el, null); });
      this.sp = sp;
      name = norm(inner);
    }
    if (name && /^[\d.]+ ?%$/.test(name)) name = ''; // a bar that writes its value inside it
    this.raw((this.sp ? '' : ' ') + `[${what}${name ? ' ' + JSON.stringify(clip(name, 80)) : ''} ${value}] `);
    this.sp = true;
    if (controls) this.kids(el, anc);
  }

  // A live region (a toast, a status line, an alert) or a tooltip: its text, marked for what it
  // is ([status] Saved), once (a region inside it is not marked again); an empty one shows nothing.
  liveRegion(el, what, anc, kind = '') {
    this.live = true;
    let s;
    try { [s] = this.sub(() => { this.sp = true; this.kids(el, anc); }); } finally { this.live = false; }
    s = s.replace(/^\s+|\s+$/g, '');
    if (!s) return;
    // an aria-live area around controls (a results list, a form) is the page, not a message, and
    // a "tooltip" holding controls (tippy's interactive popover, a menu) is a popup, not a tip
    // (not a short message with a button or two of its own: a toast with its Undo, sonner's, in
    // its aria-live toaster, lost its mark)
    if ((what === 'tooltip' || !el.hasAttribute('role')) && /\be\d+\]/.test(s) && !(what !== 'tooltip' && messageWithActions(s))) { this.brk(); this.sp = true; this.mark(el, kind); this.raw(s); this.brk(); return; }
    // a message without controls reads as one line (its title a heading no more: SweetAlert2's toast)
    if (!/\be\d+\]/.test(s)) s = s.split(/\n+/).map((l) => l.replace(/^#{1,6} /, '').trim()).filter(Boolean).join(' ');
    this.brk();
    this.raw(`[${what}] `);
    this.sp = true;
    this.mark(el, kind);
    this.raw(s);
    this.brk();
  }

  // A box one may click that holds what is shown after it (a card, a clickable row, a menu item
  // holding controls: element()) is marked by its token without the name its words give it, since
  // those words follow.
  mark(el, kind) {
    if (kind === 'clickable') this.ctl(token(el, kind).replace(/ "[^"]*"/, ''));
    else if (ITEM_KINDS.has(kind)) {
      const parts = tokenParts(el, kind);
      if (parts[1]?.startsWith('"')) parts.splice(1, 1);
      this.ctl('[' + parts.join(' ') + ']');
    }
  }

  heading(el, level, kind, anc) {
    let [s] = this.sub(() => { this.sp = true; this.mark(el, kind); this.kids(el, anc); });
    s = oneLine(s).trim();
    this.brk();
    if (s) this.raw('#'.repeat(level) + ' ' + s);
    this.brk();
  }

  list(el, kind, anc) {
    const p = el.parentElement;
    const tight = p && p.tagName === 'LI' && p.lastElementChild === el;
    const li = this.li;
    this.li = 0;
    this.brk(tight ? 1 : 2);
    this.mark(el, kind);
    this.kids(el, anc);
    this.li = li;
    if (tight) this.sp = true; else this.brk();
  }

  item(el, kind, anc) {
    let prefix = '-   ';
    const p = el.parentElement;
    if (p && p.tagName === 'OL' && numbered(el)) {
      const start = p.getAttribute('start');
      const i = this.li++;
      prefix = (start ? Number(start) + i : i + 1) + '.  ';
    }
    let [s, nl] = this.sub(() => { this.sp = true; this.mark(el, kind); this.kids(el, anc); });
    if (!s.trim()) { this.brk(1); return; }
    if (nl) s += '\n';
    if (s.indexOf('\n') >= 0) s = s.replace(/\n/g, '\n' + ' '.repeat(prefix.length));
    this.brk(1);
    this.raw(prefix + s);
    this.sp = true;
    // (what follows starts a line of its own: a clickable item after it, Chosen's open list, ran on
    // as "- French[clickable "German" e26]")
    this.brk(1);
  }

  quote(el, kind, anc) {
    const [s] = this.sub(() => { this.sp = true; this.mark(el, kind); this.kids(el, anc); });
    this.brk();
    if (s.trim()) this.raw(s.replace(/\n+$/, '').replace(/^/gm, '> '));
    this.brk();
  }

  inline(el, kind, anc, delim, dropEmpty) {
    const [s] = this.sub(() => { this.mark(el, kind); this.kids(el, anc); });
    if (!s) return;
    if (dropEmpty && !s.trim()) { this.raw(' '); return; }
    this.wrap(s, delim, delim);
  }

  codeSpan(el, kind, anc) {
    // <code><a href>name</a></code> (rustdoc, Javadoc, Doxygen): the link, with its ref, showing
    // its text as code, as <a><code>name</code></a> is shown
    const only = el.children.length === 1 ? el.firstElementChild : null;
    if (!kind && only && only.tagName === 'A' && only.hasAttribute('href') && norm(only.textContent) === norm(el.textContent) &&
        controlKind(only, styleOf(only)) === 'link' && !anc) return this.link(only, true, true);
    this.code++;
    let [s] = this.sub(() => { this.mark(el, kind); this.kids(el, anc); });
    this.code--;
    if (!s) return;
    s = s.replace(/\r?\n|\r/g, ' ');
    const lead = s.charCodeAt(0) === 32 && s.trim() ? ' ' : '';
    const trail = s.length > 1 && s.charCodeAt(s.length - 1) === 32 && s.trim() ? ' ' : '';
    if (lead || trail) s = s.trim();
    const extra = /^`|^ .*?[^ ].* $|`$/.test(s) ? ' ' : '';
    let d = '`';
    const runs = s.match(/`+/g) || [];
    while (runs.indexOf(d) !== -1) d += '`';
    this.raw(lead + d + extra + s + extra + d + trail);
  }

  // withRef: false inside an editor (its links are text being edited, not something to click).
  // asCode: its text is shown as code (a link inside <code>).
  link(el, withRef = true, asCode = false) {
    const href = safeUrl(el.href);
    if (asCode) this.code++;
    const [s] = this.sub(() => this.kids(el, el));
    if (asCode) this.code--;
    let text = oneLine(s).trim();
    if (text && asCode) { const d = text.includes('`') ? '``' : '`'; text = d + (d.length > 1 ? ' ' + text + ' ' : text) + d; }
    if (!text) text = nameOf(el, 'link').replace(/([[\]])/g, '\\$1');
    let md;
    if (!withRef) md = href ? `[${text}](${mdUrl(href)})` : text;
    else {
      const ref = refFor(el);
      // an aria-label that says something else than the text shown: both
      const label = el.hasAttribute('aria-label') || el.hasAttribute('aria-labelledby') ? nameOf(el, 'link') : '';
      const other = label && text && shownText(el, 'button', label) ? `labelled ${JSON.stringify(label)} ` : '';
      // its state as a control's token says it: a disclosure link (Foundation's accordion titles:
      // <a href="#" aria-expanded>) open, one under a modal layer unreachable
      // (and the current one of a set, as its token says: the page a pager shows, Bulma's; the page
      // a navbar marks aria-current="page")
      const cur = (el.getAttribute('aria-current') || '').toLowerCase();
      const state = (el.getAttribute('aria-expanded') === 'true' ? 'expanded ' : '') + (cur && cur !== 'false' ? 'current ' : '') + (isInert(el) || behindModal(el) ? 'inert ' : '');
      md = href ? `[${text}](${mdUrl(href)}) [${other}${state}${ref}]` : `[link "${text.replace(/"/g, '\\"')}" ${other}${state}${ref}]`;
      this.ctls++;
    }
    const lead = s.charCodeAt(0) === 32 ? ' ' : '';
    const trail = s.length > 1 && s.charCodeAt(s.length - 1) === 32 ? ' ' : '';
    this.raw(lead + md + trail);
    this.sp = !!trail;
  }

  // A rich-text editor (contenteditable, role=textbox; or one made read-only): its content as Markdown, each line quoted
  // under its marker, without a length cut (the page cap bounds it):
  //   [editor "Body" e12]
  //   > ## Heading
  //   > Text with a [link](https://…)
  // Plain short content (one line, no markup, ≤ 500 characters) keeps the one-token form
  // [editable value="…" e12]. A secret editor shows only filled/empty.
  editorBlock(el, kind) {
    if (isSecret(el)) { this.ctl(token(el, kind)); return; }
    const saved = this.editor;
    this.editor = true;
    let [s] = this.sub(() => { this.sp = true; this.kids(el, el); });
    this.editor = saved;
    s = tidy(s);
    let plain = '';
    try { plain = norm(el.innerText); } catch { plain = ''; }
    const code = isCodeView(el, styleOf(el)) ? codeText(el) : null;
    if (code != null && (code.text.includes('\n') || code.cut || code.text.length > 500)) s = code.md;
    else if (!s.includes('\n') && s.length <= 500 && s === plain) { this.ctl(token(el, kind)); return; }
    const parts = ['editor'];
    const name = ownName(el);
    if (name) parts.push(JSON.stringify(name));
    if (el.getAttribute('aria-disabled') === 'true' || el.getAttribute('aria-readonly') === 'true') parts.push('readonly');
    if (!s) parts.push('empty');
    if (code?.cut) parts.push('partly drawn');
    parts.push(refFor(el));
    this.brk();
    this.raw('[' + parts.join(' ') + ']' + (s ? '\n' + s.split('\n').map((l) => (l ? '> ' + l : '>')).join('\n') : ''));
    this.brk();
  }

  // An editor whose text is drawn aside, hidden from assistive technology (widgets.js drawnEditor:
  // Monaco): its marker, and under it, quoted, the code `view` draws in `face` as a fenced block
  // (said when only part is drawn).
  //   [editor "Script" e12]
  //   > ```
  //   > function f() {
  //   > ```
  contextBlock(el, face, view) {
    const code = view ? codeText(view, face) : null;
    const parts = ['editor'];
    const name = ownName(el);
    if (name) parts.push(JSON.stringify(name));
    if (el.getAttribute('aria-readonly') === 'true') parts.push('readonly');
    if (!code?.text) parts.push('empty');
    if (code?.cut) parts.push('partly drawn');
    parts.push(refFor(el));
    this.brk();
    this.raw('[' + parts.join(' ') + ']' + (code?.text ? '\n' + code.md.split('\n').map((l) => (l ? '> ' + l : '>')).join('\n') : ''));
    this.brk();
  }

  hasBlockText(el) {
    let t = '';
    try { t = el.innerText || ''; } catch { /* ignore */ }
    return t.trim().includes('\n') || t.length > 120;
  }

  // An item of a tree (a file tree, a docs outline): one a line, its token named by its own
  // words, and under it, indented, the items it shows (those of a collapsed one are not rendered,
  // which their own style does not say when a shadow root's closed box holds them: Shoelace); they
  // were one token named by all their words, the children without refs.
  treeItem(el, items) {
    // a tree item that is only the row's label inside the list item that holds it (jsTree's
    // <li role=none><i toggle><a role=treeitem>…</a><ul role=group>): that item's bullet is its own
    if (!items.length && el.tagName !== 'LI' && el.parentElement?.tagName === 'LI' && !itemPanels(el).length) {
      this.ctl(token(el, 'treeitem'));
      return;
    }
    const tree = this.tree;
    this.tree = true;
    const [s] = this.sub(() => {
      this.sp = true;
      this.ctl(token(el, 'treeitem'));
      for (const k of items) if (k.checkVisibility({ visibilityProperty: true })) { this.brk(1); this.walk(k, el); }
      // (its panel when shown: the text and fields under its row, Kendo's PanelBar's)
      for (const p of itemPanels(el)) if (p.checkVisibility({ visibilityProperty: true })) { this.brk(1); this.walk(p, el); }
    });
    this.tree = tree;
    this.brk(1);
    this.raw('-   ' + s.trim().replace(/\n+/g, '\n').replace(/\n/g, '\n    '));
    this.brk(1);
    this.sp = true;
  }

  // A clickable inside a clickable: no ref unless it is a form control, has its own
  // aria-label, is a checkbox-like role, a tree's item, or sticks out of its parent.
  keepNested(el, kind, anc) {
    if (NESTED_KEEP.has(kind) || kind === 'treeitem') return true;
    if (el.hasAttribute('aria-label')) return true;
    const role = el.getAttribute('role');
    if (role === 'checkbox' || role === 'switch' || role === 'radio') return true;
    const a = anc.getBoundingClientRect(), r = el.getBoundingClientRect();
    const inside = r.left >= a.left - 1 && r.top >= a.top - 1 && r.right <= a.right + 1 && r.bottom <= a.bottom + 1;
    return !inside;
  }

  img(el, kind) {
    if (kind && kind !== 'link') { this.ctl(token(el, kind)); return; }
    const alt = norm(el.getAttribute('alt'));
    if (!alt) return; // decorative, or no description: nothing the agent can read
    // A 1×1 (or smaller) image shows neither itself nor its alt text: its alt is not for the user.
    const box = el.getBoundingClientRect();
    if (box.width <= 1 || box.height <= 1) return;
    const src = safeUrl(el.currentSrc || el.src);
    const a = alt.replace(/([[\]])/g, '\\$1');
    this.raw(src && src.length < 500 ? `![${a}](${mdUrl(src)})` : `![${a}]`);
    this.sp = false;
  }

  // An inline <svg> that draws words (a syntax diagram, a chart's labels) is an image whose text a
  // user reads: `![its words]`, as an <img> shows its alt (SQLite's syntax diagrams showed
  // nothing); an icon that draws none shows nothing.
  svgImage(el) {
    if (this.editor) return;
    const words = svgWords(el);
    if (!words) return;
    const box = el.getBoundingClientRect();
    if (box.width <= 1 || box.height <= 1) return;
    this.raw(`${this.sp ? '' : ' '}![${clip(words, 1000).replace(/([[\]\\])/g, '\\$1')}]`);
    this.sp = false;
  }

  pre(el) {
    const c = el.querySelector('code');
    const m = ((c && c.className) || el.className || '').toString().match(/(?:language|lang)-([\w+#.-]+)/);
    let code = '';
    try { code = el.innerText; } catch { code = ''; }
    code = code || el.textContent || '';
    let size = 3;
    const fences = code.match(/^`{3,}/gm);
    if (fences) for (const f of fences) if (f.length >= size) size = f.length + 1;
    const fence = '`'.repeat(size);
    this.brk();
    this.raw(fence + (m ? m[1] : '') + '\n' + code.replace(/\n$/, '') + '\n' + fence);
    this.brk();
  }

  frame(el, clickAnc) {
    const label = norm(el.title || el.name || '') || clip(el.src || '', 120);
    const d = frameDoc(el);
    const q = label ? ' ' + JSON.stringify(label) : '';
    if (!(d && d.body)) {
      // A cross-origin frame under 2×2 px shows nothing (tracking pixels, beacons): reading it
      // would cost a content script in a third-party frame for nothing.
      if (el.clientWidth < 2 || el.clientHeight < 2) return; // the inside, without the border
    }
    this.brk();
    if (d && d.body) {
      // The frame's origin is in its marker: the title is the page's to choose, the origin is not.
      let origin = 'null';
      // (the document's own origin: a srcdoc or about:blank frame has its parent's, its location's is "null")
      try { origin = d.defaultView?.origin || d.defaultView?.location.origin || 'null'; } catch { /* ignore */ }
      this.raw(`[iframe${q} origin=${origin}]`);
      this.brk();
      this.walk(d.body, clickAnc);
      this.brk();
      this.raw('[/iframe]');
    } else {
      // This world cannot read another origin's document. The service worker snapshots that
      // frame on its own and puts the whole block — marker with the frame's real origin, its
      // Markdown, end marker — where the placeholder stands (background/frames.js).
      const k = this.frames.length;
      // (with the size of its window, so that once it navigated away from its src it is told from
      // a hidden frame of that origin by its size: the hidden one's content was shown in its place)
      this.frames.push({ k, src: el.src || '', label, w: el.clientWidth, h: el.clientHeight });
      this.raw(frameToken(k, this.nonce));
    }
    this.brk();
  }

  // A cell's content on one line: its blocks (paragraphs, list items, lines) joined with <br>.
  cell(c, clickAnc) {
    const [s] = this.sub(() => { this.sp = true; this.kids(c, clickAnc); });
    this.sp = true;
    return s.trim().replace(/[ \t]*\n+[ \t]*/g, '<br>');
  }

  // A cell a user clicks that holds no control of its own: a <th> to sort by (aria-sort, or a
  // pointer cursor of its own: DataTables', PrimeVue's sortable columns), a <td> with no role that
  // takes clicks itself (a date picker's day: daterangepicker's, AdminLTE's): itself a clickable with its ref, as
  // an ARIA grid's sortable header is; it had no ref and only its text was shown (two months'
  // "10" were then two targets no ref told apart).
  clickableCell(c, clickAnc, small = true) {
    const n = this.ctls;
    const s = this.cell(c, clickAnc);
    // (a <td> of its own only, no role: a grid's gridcell, Vaadin's calendar day, is its grid's to
    // say, by its words, as before; and only in a small table, a calendar's, so that a large data
    // table's cells cost no style read each)
    if (this.ctls !== n || !((c.tagName === 'TH' && c.hasAttribute('aria-sort')) || ((c.tagName === 'TH' || (small && !c.hasAttribute('role'))) && controlKind(c, styleOf(c)) === 'clickable'))) return s;
    this.force = c;
    const [t] = this.sub(() => { this.sp = true; this.walk(c, clickAnc); });
    this.force = null;
    this.sp = true;
    return t.trim().replace(/[ \t]*\n+[ \t]*/g, '<br>');
  }

  table(el, clickAnc) {
    // (a row with no box and no text, a grid's empty-state row, is none a user sees)
    // (one drawn in a shadow root is read by its box: its light text is not what it shows, and a
    // row a pager hides there, Calcite's, is drawn at no size)
    const flat = !el.rows.length;
    const rows = tableRows(el).filter((r) => {
      const s = styleOf(r);
      return s && s.display !== 'none' && !(s.display !== 'contents' && (flat || !norm(r.textContent)) && r.getBoundingClientRect().height < 1);
    });
    // A layout table (nested tables, role=presentation, cells holding headings or forms) becomes
    // blocks; a data table whose cells hold paragraphs or lists (Sphinx) stays a table.
    const layout = rows.length === 0 || el.querySelector('table') || /^(presentation|none)$/i.test(el.getAttribute('role') || '') ||
      rows.some((r) => rowCells(r).some((c) => c.querySelector('h1,h2,h3,h4,h5,h6,form')));
    if (layout) {
      // layout table: rows become blocks, cells inline
      this.brk();
      if (el.caption) this.walk(el.caption, clickAnc);
      for (const r of rows) {
        this.brk();
        for (const c of rowCells(r)) { this.kids(c, clickAnc); this.raw(' '); this.sp = true; }
        this.brk();
      }
      this.brk();
      return;
    }
    if (el.caption) {
      const [cap] = this.sub(() => { this.sp = true; this.walk(el.caption, clickAnc); });
      this.brk();
      this.raw(cap);
      this.brk();
    } else {
      const title = hiddenTitle(el);
      if (title) { this.brk(); this.raw(escapeMd(title)); this.brk(); }
    }
    // (a table of at most 200 cells: a month of days is 42)
    let cells = 0;
    for (const r of rows) { cells += rowCells(r).length; if (cells > 200) break; }
    const small = cells <= 200;
    const grid = rows.map((r) => {
      const out = [];
      // (a cell the page hides, display: none: a calendar's week numbers, is no column a user sees)
      for (const c of rowCells(r).filter((x) => styleOf(x)?.display !== 'none')) {
        // a header sorted by (aria-sort on a <th>: DataTables) shows the arrow a user sees by it
        const s = this.clickableCell(c, clickAnc, small);
        out.push((s && c.tagName === 'TH' ? s + sortMark(c) : s).replace(/\|/g, '\\|'));
        for (let k = 1; k < Math.min(50, c.colSpan || 1); k++) out.push('');
      }
      if (out.length && isSelectedRow(r)) out[0] = SELECTED_MARK + out[0];
      return out;
    });
    this.mdTable(grid);
    this.rowsNote(el, rows);
  }

  // Rows of cell Markdown as a Markdown table, the first row its header, short rows padded.
  mdTable(grid) {
    const width = Math.max(...grid.map((r) => r.length));
    const lines = [];
    grid.forEach((r, i) => {
      while (r.length < width) r.push('');
      lines.push('| ' + r.join(' | ') + ' |');
      if (i === 0) lines.push('|' + ' --- |'.repeat(width));
    });
    this.brk();
    this.raw(lines.join('\n'));
    this.brk();
  }

  // An ARIA table or grid (role=table/grid/treegrid of role=row of cells) is walked as any element,
  // except that where its first row comes, all its rows are written as one Markdown table (see
  // ariaTableRows); its other content (a toolbar, a pager, a "no rows" overlay) stays where it is.
  // False when it is no table (grid.js: gridModel), for the usual path to take it.
  ariaTable(el, kind, clickAnc) {
    const m = gridModel(el);
    if (!m) return false;
    const anc = kind ? el : clickAnc;
    const g = { ...m, anc, done: false, grid: el };
    for (const r of m.rows) this.gridRows.set(r, g);
    this.brk();
    this.mark(el, kind);
    this.kids(el, anc);
    this.brk();
    for (const r of m.rows) this.gridRows.delete(r);
    return true;
  }

  // The grid's rows as a Markdown table, as <table> is written; a clickable row's mark leads its
  // first cell, and the row is the clickable ancestor of what its cells hold.
  ariaTableRows(g) {
    g.done = true;
    let row = null, anc = g.anc, mark = '';
    const grid = layout(g, (c, r) => {
      if (r !== row) {
        row = r;
        const kind = controlKind(r.el, styleOf(r.el));
        const own = kind === 'clickable' && !(g.anc && !this.keepNested(r.el, kind, g.anc));
        anc = own ? r.el : g.anc;
        mark = own ? token(r.el, kind).replace(/ "[^"]*"/, '') : '';
      }
      let s = c ? this.gridCell(c.el, anc) : this.cell(r.el, anc);
      if (mark) { s = mark + (s ? ' ' + s : ''); mark = ''; }
      if (r.cells.length ? c === r.cells.find((x) => x.shown) : true) { if (r.els.some(isSelectedRow)) s = SELECTED_MARK + s; }
      return s.replace(/\|/g, '\\|');
    }).filter((r) => r.length); // rows whose every cell is hidden
    if (grid.length) { this.mdTable(grid); this.rowsNote(g.grid, g.model.flatMap((r) => r.els)); }
  }

  // Under a grid that renders only some of its rows (aria-rowcount larger than the rows it has, a
  // virtualised list), which of them the table shows: "(rows 2–10 of 201)", so that an agent knows
  // the rest come by scrolling it, as a user sees by its scroll bar.
  rowsNote(grid, rows) {
    const total = Number(grid?.getAttribute('aria-rowcount'));
    if (!Number.isInteger(total) || total <= 0) return;
    // counted as a user counts them, without the header rows (which aria-rowindex counts)
    // (a <tr> drawn in a shadow root, its cells in their own: by the cells it shows, rowCells)
    const flatHead = (r) => { const cs = r.tagName === 'TR' && !r.cells.length ? rowCells(r) : []; return cs.length > 0 && cs.every((c) => c.tagName === 'TH'); };
    const head = (r) => r.parentElement?.tagName === 'THEAD' || (r.querySelector('[role=columnheader],th') && !r.querySelector('[role=gridcell],[role=cell],td')) || flatHead(r);
    const h = rows.filter(head).length;
    const idx = rows.filter((r) => !head(r)).map((r) => Number(r.getAttribute('aria-rowindex'))).filter((n) => Number.isInteger(n) && n > h);
    if (!idx.length) return;
    const lo = Math.min(...idx) - h, hi = Math.max(...idx) - h, all = total - h;
    if (lo <= 1 && hi >= all) return;
    this.brk();
    this.raw(`(rows ${lo}–${hi} of ${all})`);
    this.brk();
  }

  // A grid cell's content on one line, as cell(), but the cell itself is walked: a cell that is a
  // control keeps its token. A sortable column header (aria-sort) with no control inside is shown as
  // the clickable it is, with a ref to click it by, and its sort as an arrow: [clickable "Age" e4] ↑.
  gridCell(c, anc) {
    const n = this.ctls;
    const one = () => {
      const [s] = this.sub(() => { this.sp = true; this.walk(c, anc); });
      this.sp = true;
      return s.trim().replace(/[ \t]*\n+[ \t]*/g, '<br>');
    };
    let s = one();
    if (this.ctls === n && isSortHeader(c)) {
      this.force = c;
      s = one();
      this.force = null;
    }
    // a cell whose words a user sees are aria-hidden, its aria-label saying them in full
    // (FullCalendar's day "9" labelled "June 9, 2025", its "Sun" labelled "Sunday"): the label, or
    // the month was an empty table of events whose days no one could tell
    const lab = !this.ariaShown ? hiddenWordsLabel(c) : '';
    if (lab) s = lab + (s ? ' ' + s : '');
    return s && s + sortMark(c);
  }
}

// What makes a code view's lines not plain text: something to act on inside it.
const ACTIVE_SEL = 'a[href],button,input,select,textarea,[role],[tabindex],[contenteditable]';
const CODE_SPACE = /^(pre|pre-wrap|break-spaces)$/;
const MONO = /mono|courier|consolas|menlo|monaco/i;

// Is `el` the outermost element of a code view drawn without <pre> (a code editor's lines: a
// monospace block that keeps its white space, CodeMirror's content, Ace's text layer)? Its text is
// code: shown as such, indentation and blank lines kept, never read as Markdown.
function isCodeView(el, st) {
  if (!st || !CODE_SPACE.test(st.whiteSpace) || !MONO.test(st.fontFamily)) return false;
  const p = el.parentElement;
  const ps = p && styleOf(p);
  return !(ps && CODE_SPACE.test(ps.whiteSpace) && MONO.test(ps.fontFamily));
}

// Is `el` a code editor's lines, each its own <pre> of one class (CodeMirror 5's
// pre.CodeMirror-line, alone or each in a wrapper <div>), with no <code> in them? One code view:
// each line was its own fenced block.
function preLines(el) {
  const n = el.childElementCount;
  if (n < 2 || n > 5000) return false;
  let cls = null;
  for (const c of el.children) {
    const p = c.tagName === 'PRE' ? c : c.childElementCount === 1 && c.firstElementChild.tagName === 'PRE' ? c.firstElementChild : null;
    if (!p || p.querySelector('code,' + ACTIVE_SEL.replace('[role],', '')) || (cls !== null && p.className !== cls)) return false;
    cls = p.className;
  }
  return !!norm(cls);
}

// The scroll height of what scrolls a code view (itself, an ancestor up to 4 levels, or a
// scrollbar beside it there: Ace scrolls its lines by a separate scrollbar element), or 0.
function scrollHeightAround(el) {
  let best = 0;
  const scrolls = (n) => { const s = styleOf(n); return s && /(auto|scroll)/.test(s.overflowY) && n.scrollHeight > n.clientHeight + 1; };
  for (let n = el, d = 0; n && n.nodeType === 1 && d < 5 && n !== document.body && n !== document.documentElement; n = n.parentElement, d++) {
    if (scrolls(n)) best = Math.max(best, n.scrollHeight);
    if (d) for (const c of n.children) if (c !== el && !c.contains(el) && scrolls(c)) best = Math.max(best, c.scrollHeight);
  }
  return best;
}

// Is the aria-hidden field `el` beside an EditContext element (Monaco's IME textarea, drawn
// transparent behind its editor): the editor's, not the user's to fill.
function besideContextEditor(el) {
  const kids = el.parentElement ? el.parentElement.children : [];
  for (let i = 0; i < kids.length && i < 20; i++) if (kids[i] !== el && contextEditor(kids[i])) return true;
  return false;
}

// A code view's text as a fenced block, and whether the page drew only part of it: editors that
// draw only the lines in view (CodeMirror, Ace) leave the others out of the DOM, so a view whose
// scrolling box is taller than its drawn lines by more than three lines says so after its code.
// `face`: the editor's box, when the view scrolls inside it by the editor's own scrollbars
// (Monaco: its view is as tall as the text and then some): lines drawn above the box's top, or
// down to its bottom edge, say that more may be there. Spaces drawn as no-break spaces (Monaco)
// are spaces.
function codeText(el, face = null) {
  let text = '';
  try { text = el.innerText || ''; } catch { text = ''; }
  text = (text || el.textContent || '').replace(/\n$/, '').replace(/\u00a0/g, ' ');
  let drawn = 0, line = 0;
  for (const c of el.children) {
    const h = c.getBoundingClientRect().height;
    if (!c.firstChild) continue; // an empty spacer standing for lines not drawn
    drawn += h;
    if (!line && h > 0) line = h;
  }
  const total = scrollHeightAround(el);
  let cut = line > 0 && total > drawn + 3 * line + 40;
  if (face && line > 0 && el.firstElementChild) {
    const box = face.getBoundingClientRect();
    const first = el.firstElementChild.getBoundingClientRect(), last = el.lastElementChild.getBoundingClientRect();
    if (first.top < box.top - 1 || last.bottom > box.bottom - 2) cut = true;
  }
  let size = 3;
  const fences = text.match(/^`{3,}/gm);
  if (fences) for (const f of fences) if (f.length >= size) size = f.length + 1;
  const fence = '`'.repeat(size);
  const n = text ? text.split('\n').length : 0;
  const about = total > drawn ? ` of about ${Math.round(total / line)}` : '';
  const note = cut ? `\n[… only ${n} lines${about} are drawn by the page: scroll the editor to read the others …]` : '';
  return { text, cut, md: fence + '\n' + text + '\n' + fence + note };
}

// Collapse turndown-style list padding ("-   item") and trailing spaces, outside code fences.
// (A fence may be quoted: the code block of an editor's content, or of a blockquote, is "> ```";
// its lines were tidied as text, and the runs of spaces of its code collapsed.)
function tidy(md) {
  let fence = false;
  const out = [];
  for (let line of md.split('\n')) {
    if (/^\s*(?:> ?)*(```|~~~)/.test(line)) fence = !fence;
    if (!fence) line = line.replace(/^(\s*)([-*+]|\d+\.)\s{2,}/, '$1$2 ').replace(/(\S) {2,}/g, '$1 ').replace(/^ (?=\S)/, '').replace(/\s+$/, '');
    out.push(line);
  }
  return out.join('\n').replace(/\n{3,}/g, '\n\n').trim();
}

// The placeholder for the k-th cross-origin iframe's Markdown. The nonce is fresh per
// snapshot, so text on the page cannot pose as a placeholder.
export function frameToken(k, nonce) {
  return `⟦frame ${k} ${nonce}⟧`;
}

// The element a get_page selector names (the first match), or an Error saying why there is none.
function selected(selector) {
  let el;
  try { el = document.querySelector(selector); } catch { throw new Error(`selector ${JSON.stringify(selector)} is not a valid CSS selector`); }
  if (!el) throw new Error(`no element matches the selector ${JSON.stringify(selector)}`);
  return el;
}

// Is the input `el` under another text field at its centre, in a box around both (two levels up)?
function underField(el) {
  const r = el.getBoundingClientRect();
  if (r.width < 1 || r.height < 1) return false;
  const hit = el.ownerDocument.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
  const box = el.parentElement?.parentElement;
  return !!hit && hit !== el && hit.tagName === 'INPUT' && !hit.readOnly && !!box && box.contains(hit);
}

// The rows of a <table>: its own (HTMLTableElement.rows), or when it has none the <tr>s it shows
// through slots and shadow roots (Calcite's calcite-table slots its calcite-table-row elements,
// each drawing its <tr> in its own shadow root: the table had no rows and was left out).
function tableRows(table) {
  return table.rows.length ? Array.from(table.rows) : flatFind(table, ROW_TAGS);
}

// The cells of a row: its own, or the <td>s and <th>s it shows through shadow roots and slots
// (Calcite's calcite-table-cell draws its <td> in its shadow root).
function rowCells(row) {
  return row.cells?.length ? Array.from(row.cells) : flatFind(row, CELL_TAGS);
}

const ROW_TAGS = new Set(['TR']);
const CELL_TAGS = new Set(['TD', 'TH']);

// The elements of `tags` in the flat tree under `root` (as kids() walks it), not inside one found
// nor inside a nested table; 5,000 elements looked at (a hostile page's table is bounded).
function flatFind(root, tags) {
  const out = [];
  let budget = 5000;
  const walk = (n) => {
    for (const c of flatChildren(n)) {
      if (c.nodeType !== 1 || --budget < 0) continue;
      if (tags.has(c.tagName)) out.push(c);
      else if (c.tagName !== 'TABLE') walk(c);
    }
  };
  walk(root);
  return out;
}

// The page (or, with a selector, only the first element it matches) as Markdown, refs as always.
export function snapshot({ maxChars = MAX_PAGE_CHARS, selector } = {}) {
  let w = new Writer(MAX_NODES);
  w.nonce = globalThis.crypto?.randomUUID?.() || String(Math.random()).slice(2);
  const body = selector ? selected(selector) : document.body || document.documentElement;
  if (body) w.walk(body, null);
  if (w.tooDeep) w.buf.push(`\n\n(Parts of the page nested more than ${MAX_DEPTH} elements deep are left out.)\n`);
  let md = tidy(w.buf.join(''));
  // aria-hidden hides from assistive technology, not from the eye: the page behind a modal is
  // left out while the modal shows, but when nothing else is shown (the modal has faded out and
  // its script has not yet taken aria-hidden off the page) the page is what a user sees, not an
  // empty one
  if (!md.trim() && body && !selector && norm(body.innerText || '')) {
    const nonce = w.nonce;
    w = new Writer(MAX_NODES);
    w.nonce = nonce;
    w.ariaShown = true;
    w.walk(body, null);
    md = tidy(w.buf.join(''));
  }
  let truncated = false;
  if (w.overflow) {
    truncated = true;
    md += `\n\n[… truncated: the page has more than ${MAX_NODES} nodes; only the first part is shown …]`;
  }
  if (md.length > maxChars) {
    truncated = true;
    const cut = md.lastIndexOf('\n', maxChars);
    md = md.slice(0, cut > maxChars * 0.9 ? cut : maxChars) +
      `\n\n[… truncated: the page Markdown was ${md.length} characters, the cap is ${maxChars} …]`;
  }
  const frames = w.frames.filter((f) => md.includes(frameToken(f.k, w.nonce)));
  return { url: location.href, title: document.title, markdown: md, truncated, frames, frameNonce: w.nonce, documentId, ...httpError() };
}

// The HTTP status the server answered this document with, when it is an error (a 404 page, a
// 500): the browser shows its body like any page, and only its words may say it is not the page
// asked for (Navigation Timing's responseStatus; Chrome 109+).
function httpError() {
  let s = 0;
  try { s = Number(performance.getEntriesByType('navigation')[0]?.responseStatus) || 0; } catch { s = 0; }
  return s >= 400 && s < 600 ? { httpStatus: s } : {};
}

export { tokenParts };

// A dialog's name as a user reads it: its label (aria-labelledby, aria-label), else its first
// heading; '' when it has neither.
function dialogName(el) {
  if (el.hasAttribute('aria-labelledby') || el.hasAttribute('aria-label')) {
    const n = nameOf(el, 'dialog');
    if (n) return clip(n, 80);
  }
  // its first heading a user sees: not one of a slide it keeps ready beside the one shown, moved
  // out of view or transparent (GLightbox named its dialog by the next photo's title)
  const sel = 'h1,h2,h3,h4,h5,h6,[role=heading]';
  const W = el.ownerDocument.defaultView;
  const seen = (h) => {
    if (h.checkVisibility && !h.checkVisibility({ opacityProperty: true, visibilityProperty: true })) return false;
    const r = h.getBoundingClientRect();
    return r.width > 0 && r.height > 0 && r.right > 0 && (!W || r.left < W.innerWidth);
  };
  let n = 0;
  for (const root of [el, shadowOf(el)]) {
    for (const h of root?.querySelectorAll(sel) || []) {
      if (++n > 30) return '';
      if (seen(h)) return clip(norm(h.textContent), 80);
    }
  }
  return '';
}

const MAX_DEPTH = 400; // elements nested, at most (real pages: under 60)

const matchesSafe = (el, sel) => { try { return el.matches(sel); } catch { return false; } };

// The title a user sees over a table that the walk leaves out: the text its aria-labelledby names
// when that text is shown but aria-hidden (a calendar's "November 2026" over its grid of days, hidden
// from assistive technology because it names the grid), else ''.
function hiddenTitle(table) {
  const ids = (table.getAttribute('aria-labelledby') || '').trim().split(/\s+/).filter(Boolean);
  if (!ids.length) return '';
  const root = table.getRootNode();
  const els = ids.map((id) => root.getElementById?.(id) || null).filter(Boolean);
  const skipped = (x) => !!x.closest('[aria-hidden="true"]');
  const seen = (x) => !x.checkVisibility || x.checkVisibility({ opacityProperty: true, visibilityProperty: true });
  if (!els.length || !els.every((x) => skipped(x) && seen(x) && !table.contains(x))) return '';
  return clip(norm(els.map((x) => x.textContent).join(' ')), 200);
}

// A cell's aria-label when the words it shows are in an aria-hidden part of it (five at most
// looked at), else ''.
function hiddenWordsLabel(c) {
  const lab = norm(c.getAttribute('aria-label'));
  if (!lab) return '';
  const hidden = Array.from(c.querySelectorAll('[aria-hidden="true"]')).slice(0, 5);
  return hidden.some((h) => norm(h.innerText || '')) ? clip(lab, 100) : '';
}

const SELECTED_MARK = '(selected) ';

// Is `row` a selected row of a grid (aria-selected on the row: the ARIA grid pattern's row
// selection, the highlight a user sees on it)?
function isSelectedRow(row) {
  return row.getAttribute?.('aria-selected') === 'true';
}
