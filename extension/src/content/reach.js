// Can a user see and reach an element, and where would a user's click on it land? Actions refuse
// to act on what a user cannot see (issue 14: a hidden menu item clicked, a hidden <select>
// changed, and success reported), and dispatch a click where the user's click would go: the
// deepest element at the element's visible center, through open shadow roots.
import { styleOf, winOf, norm, controlKind, shadowOf, itemRow } from './dom.js';
import { invisible, drawnInvisibly } from './hidden.js';
import { pageSelector } from './hovercss.js';

// The parent in the composed tree: a shadow root's host, a same-origin frame's element.
export function composedParent(n) {
  const p = n.parentNode;
  if (!p) return null;
  if (p.nodeType === 11) return p.host || null;
  if (p.nodeType === 9) {
    try { return p.defaultView?.frameElement || null; } catch { return null; }
  }
  return p;
}

// Is `inner` `outer` or inside it, across shadow roots and frames?
export function composedContains(outer, inner) {
  for (let n = inner; n; n = composedParent(n)) if (n === outer) return true;
  return false;
}

// Is `inner` inside `outer` in the flat tree (slotted nodes under their slot)?
function flatContains(outer, inner) {
  for (let n = inner, i = 0; n && i < 500; n = n.assignedSlot || composedParent(n), i++) if (n === outer) return true;
  return false;
}

// Why a user cannot see `el` (a few words), or '' when they can.
export function hiddenReason(el) {
  if (!el || !el.isConnected) return 'it is no longer on the page';
  // No box of its own (display:contents, an inline wrapper of zero size): visible when
  // something inside it is.
  const own = styleOf(el);
  if (own && own.display === 'contents') return shownChild(el) ? '' : 'nothing of it is rendered';
  if (el.checkVisibility && !el.checkVisibility({ opacityProperty: true, visibilityProperty: true })) {
    const st = styleOf(el);
    if (st && (st.visibility === 'hidden' || st.visibility === 'collapse')) return 'it is visibility:hidden';
    for (let n = el; n; n = composedParent(n)) {
      if (n.nodeType !== 1) continue;
      const s = styleOf(n);
      if (!s) continue;
      if (s.display === 'none') return n === el ? 'it is display:none' : 'it is inside an element that is display:none';
    }
    if (!el.checkVisibility({ visibilityProperty: true })) return 'it is not rendered';
    // Only transparency hides it. A transparent field on top of what it stands for (a code input
    // over drawn boxes, a native checkbox over its styled box) is what a user's click reaches.
    if (!onTop(el) && !boxOfClearField(el)) {
      for (let n = el; n; n = composedParent(n)) {
        if (n.nodeType === 1 && styleOf(n)?.opacity === '0') return n === el ? 'it is fully transparent (opacity 0)' : 'it is inside a fully transparent element';
      }
      return 'it is not rendered';
    }
  }
  const r = el.getBoundingClientRect();
  if ((r.width < 1 || r.height < 1) && !shownChild(el)) return 'it has no size on the page';
  if (drawnInvisibly(el)) return 'it is drawn in the colour of what lies behind it, words and box, so no one sees it';
  for (let n = el; n; n = composedParent(n)) {
    if (n.nodeType !== 1) continue;
    const s = styleOf(n);
    if (s && invisible(n, s, false) && !(s.opacity === '0' && (onTop(el) || (n === el && boxOfClearField(el))))) {
      return n === el ? 'it is clipped, shrunk or moved off the page' : 'it is inside an element that is clipped, shrunk or moved off the page';
    }
  }
  const frame = slidOutOf(el, r);
  if (frame) return `it lies outside ${shortDesc(frame)}, which hides what is moved out of it (a carousel's slide not shown)`;
  return '';
}

// The box that hides `el` (its rectangle `r`) because a transform moved it, or the strip holding
// it, wholly out of that box, which clips its overflow: a carousel's slide beside the one shown
// (Splide, Glide, Embla, Tiny Slider move their strip of slides; the click "Clicked" a button
// nobody saw, and scrolling it into view scrolled the frame under the library). Or null. Only a
// move by a transform counts: a box scrolled inside a frame (a strip of tabs) is still reached by
// scrolling. An absolutely placed box is clipped only by boxes from its containing block up; a
// fixed one by none.
function slidOutOf(el, r) {
  if (r.width < 1 || r.height < 1) return null;
  let moved = false, skipTo = null;
  for (let n = el, i = 0; n && n.nodeType === 1 && i < 30; n = composedParent(n), i++) {
    if (n.tagName === 'BODY' || n.tagName === 'HTML') return null;
    const s = styleOf(n);
    if (!s) continue;
    if (n !== el && (!skipTo || n === skipTo)) {
      skipTo = null;
      const x = /hidden|clip/.test(s.overflowX), y = /hidden|clip/.test(s.overflowY);
      if (moved && (x || y)) {
        const b = n.getBoundingClientRect();
        if (b.width >= 1 && b.height >= 1 &&
            ((x && (r.right <= b.left + 1 || r.left >= b.right - 1)) || (y && (r.bottom <= b.top + 1 || r.top >= b.bottom - 1)))) return n;
      }
    }
    if (s.position === 'fixed') return null;
    if (s.position === 'absolute' && !skipTo) skipTo = n.offsetParent;
    if (s.transform !== 'none' || s.translate !== 'none') moved = true;
  }
  return null;
}

export const isReachable = (el) => !hiddenReason(el);

// Has `el` no size (under 1px either way) and nothing shown out of it: no child with a box, no
// text, and no generated content (a ::before or ::after icon, on it or on its first 20 elements)?
// A user sees nothing there and actions refuse it ("it has no size on the page"): Oruga's tag
// delete button, whose icon font's stylesheet is not loaded, is a 0 × 0 button around an empty <i>.
// (A box of no size whose content overflows it onto the page, Lion's 0 × 0 dialog around a fixed
// layer, shows that content.)
export function drawsNothing(el) {
  const r = el.getBoundingClientRect();
  if ((r.width >= 1 && r.height >= 1) || shownChild(el)) return false;
  const inner = el.getElementsByTagName('*');
  for (let i = -1; i < inner.length && i < 20; i++) {
    const n = i < 0 ? el : inner[i];
    for (const pseudo of ['::before', '::after']) {
      let c = 'none';
      try { c = winOf(n).getComputedStyle(n, pseudo).content; } catch { /* ignore */ }
      if (c !== 'none' && c !== 'normal') return false;
    }
  }
  return true;
}

// Some node shown inside `el` (the first 50 nodes of its flat tree: through an open shadow root, a
// <slot> standing for its assigned nodes or else its fallback content) that has a visible box: an
// element, or a text node (a select's choice shown as a slot's text): its parent, or the text's
// own range when that parent has no box.
function shownChild(el) {
  let budget = 50;
  const look = (n) => {
    for (const c of flatChildren(n)) {
      if (--budget < 0) return null;
      if (c.nodeType === 3) {
        if (!c.data.trim()) continue;
        const p = c.parentElement;
        // (its parent may be a display:contents slot, which checkVisibility counts as unrendered)
        if (p && styleOf(p)?.visibility !== 'visible') continue;
        const range = c.ownerDocument.createRange();
        range.selectNodeContents(c);
        const r = range.getBoundingClientRect();
        // (its parent with no box of its own, display:contents — React Aria's tag cell holding its
        // words and its remove button —: the words' own box, where a user's click on them lands)
        if (r.width >= 1 && r.height >= 1) return p && p.getBoundingClientRect().width >= 1 ? p : range;
        continue;
      }
      if (c.nodeType !== 1) continue;
      const r = c.getBoundingClientRect();
      if (r.width >= 1 && r.height >= 1 && (!c.checkVisibility || c.checkVisibility({ opacityProperty: true, visibilityProperty: true }))) return c;
      const inner = look(c);
      if (inner || budget < 0) return inner;
    }
    return null;
  };
  return look(el);
}

// The child nodes of `n` as rendered: a shadow root's, a slot's assigned nodes (flattened) or else
// its fallback content, or its own.
export function flatChildren(n) {
  if (shadowOf(n)) return Array.from(shadowOf(n).childNodes);
  if (n.tagName === 'SLOT') {
    const a = n.assignedNodes({ flatten: true });
    if (a.length) return a;
  }
  return Array.from(n.childNodes);
}

// The box that draws a combobox made fully transparent, or null: the combobox (an element of role
// combobox, not a native select, whose widget is drawn elsewhere, nor a checkbox, which has its
// own overlay rule) is opacity 0 itself, and at its centre is shown its parent box or what that
// holds (Web Awesome's wa-select of several choices hides its combobox input behind the chosen
// tags once one is chosen; a user clicks the box, which opens the list: it was "not visible
// (opacity 0)").
export function boxOfClearField(el) {
  if (el.tagName === 'SELECT' || (el.getAttribute('role') || '').trim().toLowerCase() !== 'combobox' || el.disabled || styleOf(el)?.opacity !== '0') return null;
  const box = composedParent(el);
  if (!box || box.nodeType !== 1 || (box.checkVisibility && !box.checkVisibility({ opacityProperty: true, visibilityProperty: true }))) return null;
  const c = visibleCenter(el);
  if (!c) return null;
  const hit = deepElementAt(el.ownerDocument, c.x, c.y);
  return hit && hit !== el && composedContains(box, hit) ? box : null;
}

// Is `el` (or something inside it) the topmost element at its visible center? Out of the viewport,
// where nothing can be hit-tested, a transparent control laid over its box (overLaid) counts.
function onTop(el) {
  const c = visibleCenter(el);
  if (!c) return overLaid(el);
  const hit = deepElementAt(el.ownerDocument, c.x, c.y);
  return !!hit && composedContains(el, hit);
}

// Is `el`, scrolled out of view, a native control laid over the box that draws it (UIkit's
// uk-form-custom: a transparent <select> or file input positioned over a button or a disabled
// field, filling it)? Positioned absolutely inside its parent, covering half of it at least, the
// parent shown. Below the fold it was "fully transparent (opacity 0)", in view it was clicked.
function overLaid(el) {
  if (!/^(SELECT|INPUT)$/.test(el.tagName) || styleOf(el)?.position !== 'absolute') return false;
  const r = el.getBoundingClientRect();
  const box = el.parentElement;
  if (!box || r.width < 1 || r.height < 1 || (box.checkVisibility && !box.checkVisibility({ opacityProperty: true, visibilityProperty: true }))) return false;
  const b = box.getBoundingClientRect();
  const w = Math.min(r.right, b.right) - Math.max(r.left, b.left), h = Math.min(r.bottom, b.bottom) - Math.max(r.top, b.top);
  return w > 0 && h > 0 && w * h >= 0.5 * b.width * b.height;
}

// The deepest element at a viewport point of `doc`, through open shadow roots; for text slotted
// from the light DOM (which hit-tests as its host), the slot it is shown in.
export function deepElementAt(doc, x, y) {
  let e = doc.elementFromPoint(x, y);
  while (e && shadowOf(e)) {
    const inner = shadowOf(e).elementFromPoint(x, y);
    if (inner && inner !== e) { e = inner; continue; }
    // Slotted text hit-tests as the host: the caret position names the text node.
    let node = null;
    try {
      const cp = doc.caretPositionFromPoint?.(x, y, { shadowRoots: [shadowOf(e)] });
      node = cp?.offsetNode || null;
    } catch { node = null; }
    const slot = node && (node.nodeType === 3 ? node.assignedSlot : null);
    if (slot && composedContains(e, slot)) e = slot;
    break;
  }
  return e;
}

// The visible center of `el` (its box cut to the viewport), or null when none of it is in view.
export function visibleCenter(el) {
  const r = el.getBoundingClientRect();
  const W = winOf(el);
  const l = Math.max(r.left, 0), t = Math.max(r.top, 0);
  const rt = Math.min(r.right, W.innerWidth), b = Math.min(r.bottom, W.innerHeight);
  if (rt - l < 1 || b - t < 1) return null;
  return { x: (l + rt) / 2, y: (t + b) / 2 };
}

const WHOLE_ROLES = new Set(['button', 'link', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'option', 'tab', 'checkbox', 'radio', 'switch', 'treeitem', 'gridcell', 'cell', 'row']);

// Is `hit`, inside box `el`, a control of its own there (a button, a link, an icon, something
// focusable or named), in a box that is no control whose inner parts are all it (a button's icon
// is the button)?
function innerAction(el, hit) {
  if (/^(BUTTON|A|SUMMARY|LABEL|INPUT|SELECT|TEXTAREA|OPTION)$/.test(el.tagName) || WHOLE_ROLES.has((el.getAttribute('role') || '').toLowerCase())) return false;
  for (let n = hit; n && n !== el && n.nodeType === 1; n = composedParent(n)) {
    const tag = n.tagName.toLowerCase();
    if (tag === 'svg' || tag === 'img' || tag === 'button' || tag === 'a' || (n.tabIndex >= 0 && n.hasAttribute('tabindex')) || n.hasAttribute('aria-label') || n.hasAttribute('title') ||
      /^(button|link)$/.test((n.getAttribute('role') || '').toLowerCase())) return true;
  }
  return false;
}

// A point of box `el` (on its middle line, right of centre first: where a field's free space and
// its arrow are) whose hit is inside it and no control of its own; null if none.
function freeSpot(el) {
  const r = el.getBoundingClientRect();
  const W = winOf(el);
  const y = (Math.max(r.top, 0) + Math.min(r.bottom, W.innerHeight)) / 2;
  for (const f of [0.75, 0.9, 0.6, 0.25, 0.1]) {
    const x = r.left + r.width * f;
    if (x < 0 || x >= W.innerWidth) continue;
    const hit = deepElementAt(el.ownerDocument, x, y);
    if (hit && (hit === el || composedContains(el, hit) || flatContains(el, hit)) && !innerAction(el, hit)) return { target: hit, x, y };
  }
  return null;
}

// Where a user's click on `el` lands: { target } (the element to dispatch at: the deepest element
// at its center when that is `el` or inside it, or a label of it), or { coveredBy } (what a click
// there would hit instead), or { noClicks } (`el` takes no clicks: what the click lands on). When
// the center is not in the viewport (a scroller that would not scroll), `el` itself.
export function clickPoint(el) {
  const r = el.getBoundingClientRect();
  // (a tree item with a panel under its row, Kendo's PanelBar: its row; its centre was in the panel)
  const inner = r.width < 1 || r.height < 1 ? shownChild(el) : itemRow(el);
  const c = visibleCenter(inner || el);
  if (!c) return { target: el };
  const hit = deepElementAt(el.ownerDocument, c.x, c.y);
  if (!hit) return { target: el, ...c };
  // inside it, also as rendered (an option's headline slotted into the option's shadow <li>)
  if (composedContains(el, hit) || flatContains(el, hit)) {
    // a box whose centre is a control of its own inside it (a chosen item's remove icon in a
    // multi-select drawn as chips: PrimeReact's; the click took the item out): a free spot of it
    if (hit !== el && innerAction(el, hit)) { const f = freeSpot(el); if (f) return f; }
    return { target: hit, ...c };
  }
  // A click through pointer-events:none on `el` lands on its ancestor (in the DOM, or in the flat
  // tree: the shadow element a slotted `el` is shown in). When that, or one of its ancestors, is a
  // control, a label or clickable (a card around a decorative button), the click goes there:
  // dispatched at what it lands on. Else `el` takes no clicks, as a page makes a link or button it
  // disabled (Bootstrap's .disabled): noClicks, where the click was dispatched at `el` and the link
  // followed, or (trusted input) landed on nothing and was reported a success.
  // a transparent field its box draws: the click lands on the box, where a user's does (not on a
  // chosen item's remove mark there)
  const box = boxOfClearField(el);
  if (box) return innerAction(box, hit) ? freeSpot(box) || { target: box, ...c } : { target: hit, ...c };
  if (composedContains(hit, el) || flatContains(hit, el)) {
    // (a gap of its box where its parent shows through: a part of it there is what a click hits)
    if (styleOf(el)?.pointerEvents !== 'none') return ownPart(el) || { target: el, ...c };
    // a field a page lets clicks through to its box (SurveyJS's dropdown: its combobox input takes
    // none, the box around it opens the list) is no link or button the page disabled so
    if (isFieldLike(el)) return { target: hit, ...c };
    for (let n = hit; n && n.nodeType === 1 && n.tagName !== 'BODY' && n.tagName !== 'HTML'; n = composedParent(n)) {
      if (n.tagName === 'LABEL' || controlKind(n, styleOf(n))) return { target: hit, ...c };
    }
    return { noClicks: hit, ...c };
  }
  // A field's own label (a styled box drawn over a hidden native checkbox).
  const lab = hit.closest?.('label');
  if (lab && (lab.control === el || (el.labels && Array.from(el.labels).includes(lab)))) return { target: hit, ...c };
  // A native checkbox or radio button drawn fully transparent over `el`, beside it in the same
  // small box (daisyUI's collapse: a checkbox over its title): the page's way to take a click on
  // `el`, which lands on it as a user's does (it was "covered by [checkbox]"), and the answer says
  // what became of it. (Not a select or file input: a click opens nothing a script can see, and
  // the error naming it points to select_option or upload_file.)
  if (overlayOf(hit, el)) return { target: hit, overlay: hit, ...c };
  // covered at its centre only (Materialize's select: its label drawn over the field's middle): a
  // user clicks the part of it that shows
  const f = freeSpot(el);
  if (f) return f;
  return { coveredBy: hit, ...c };
}

// A point on one of the boxes an inline `el` is drawn in, whose hit is inside it, or null: an inline
// element holding blocks (Carbon's Toggle: a <label> around a display:block span and the track) is
// drawn as boxes one above the other, its bounding box's centre between them on its parent, where
// a trusted click landed and did nothing (at most 20 boxes looked at).
function ownPart(el) {
  const W = winOf(el);
  const rects = Array.from(el.getClientRects()).slice(0, 20);
  if (rects.length < 2) return null;
  for (const q of rects) {
    const x = (Math.max(q.left, 0) + Math.min(q.right, W.innerWidth)) / 2, y = (Math.max(q.top, 0) + Math.min(q.bottom, W.innerHeight)) / 2;
    if (q.width < 1 || q.height < 1 || x < 0 || y < 0 || x >= W.innerWidth || y >= W.innerHeight) continue;
    const hit = deepElementAt(el.ownerDocument, x, y);
    if (hit && (composedContains(el, hit) || flatContains(el, hit)) && !innerAction(el, hit)) return { target: hit, x, y };
  }
  return null;
}

// An enabled text field, select or combobox (native or by its role).
function isFieldLike(el) {
  if (el.disabled) return false;
  if (el.tagName === 'TEXTAREA' || el.tagName === 'SELECT' || (el.tagName === 'INPUT' && !/^(button|submit|reset|image|hidden)$/.test(el.type))) return true;
  return /^(combobox|textbox|searchbox)$/.test((el.getAttribute('role') || '').trim().toLowerCase());
}

// Is `hit` a native checkbox or radio button drawn fully transparent, in a box within 3 levels up
// that also holds `el`? (A transparent control is there only to be clicked through what is drawn
// beneath it.)
function overlayOf(hit, el) {
  if (!(hit.tagName === 'INPUT' && /^(checkbox|radio)$/.test(hit.type)) || hit.disabled) return false;
  if (styleOf(hit)?.opacity !== '0') return false;
  for (let n = hit.parentElement, i = 0; n && i < 3 && n.tagName !== 'BODY'; n = n.parentElement, i++) {
    if (n.contains(el)) return true;
  }
  return false;
}

// For an error message: a short description of what covers an element.
export function shortDesc(el) {
  const t = norm(el.innerText || el.textContent || '').slice(0, 60);
  const id = el.id ? '#' + el.id : '';
  return `<${el.tagName.toLowerCase()}${id}>${t ? ' "' + t.replace(/"/g, '\\"') + '"' : ''}`;
}

const MAX_RULES = 20_000;

// For an element hidden by its own style or an ancestor's (a hover menu): the visible ancestor
// whose :hover shows it (or the hidden element holding it), or null.
export function hoverHost(el) {
  // the outermost hidden element from `el` up (a submenu `li:hover > ul` hides the whole list)
  let h = el, p = composedParent(el);
  for (let depth = 0; ; depth++) {
    if (!p || p.nodeType !== 1 || depth > 8) return null;
    if (!hiddenReason(p)) break;
    h = p;
    p = composedParent(p);
  }
  const part = hoverRevealer(h);
  if (!part) return null;
  // the ancestor the :hover is on: the last compound of the part before :hover
  const last = part.split(/\s*[\s>+~]\s*/).pop();
  for (let n = p; n && n.nodeType === 1; n = composedParent(n)) {
    try { if (last === '*' || n.matches(last)) return n; } catch { break; }
  }
  return p;
}

// Does a :hover rule of the page's stylesheets show `el` (TodoMVC's `li:hover .destroy
// { display: block }`, a row's actions at opacity 1 on hover)? Returns the selector part before
// the :hover (what the pointer must be over), or ''. Cross-origin stylesheets cannot be read.
export function hoverRevealer(el) {
  const roots = [el.ownerDocument];
  const r = el.getRootNode();
  if (r && r.nodeType === 11) roots.unshift(r);
  let n = 0;
  // What hides it is what the rule must undo: a rule that only makes a button opaque on hover
  // (Tailwind's hover:opacity-80, PhotoSwipe's buttons) does not show one that is display:none
  // (clicked and "Clicked" where a person sees nothing); nor is an element with no box (display:
  // none) ever under the pointer itself (`.btn:hover { display: block }` on that .btn).
  const own = styleOf(el);
  const none = own?.display === 'none';
  const unseen = own && (own.visibility === 'hidden' || own.visibility === 'collapse');
  const clear = own && parseFloat(own.opacity) === 0;
  const check = (rules) => {
    for (const rule of rules) {
      if (++n > MAX_RULES) return '';
      if (rule.cssRules && !rule.selectorText) { const f = check(rule.cssRules); if (f) return f; continue; }
      let sel = rule.selectorText;
      if (!sel || sel.indexOf(':hover') < 0) continue;
      sel = pageSelector(sel);
      const st = rule.style;
      const display = !!st.display && st.display !== 'none', visibility = st.visibility === 'visible';
      const opacity = st.opacity !== '' && parseFloat(st.opacity) > 0;
      const shows = none ? display : unseen ? visibility : clear ? opacity : (display || visibility || opacity);
      if (!shows) continue;
      for (const part of sel.split(',')) {
        const i = part.indexOf(':hover');
        if (i < 0) continue;
        try {
          if (!el.matches(part.replace(/:hover/g, ''))) continue;
          const on = part.slice(0, i).trim() || '*';
          if (none && on !== '*' && el.matches(on.split(/\s*[\s>+~]\s*/).pop().replace(/:[\w-]+(\([^)]*\))?/g, '') || '*')) continue;
          return on;
        } catch { /* a selector this engine cannot match */ }
      }
    }
    return '';
  };
  for (const root of roots) {
    const sheets = [...(root.styleSheets || []), ...(root.adoptedStyleSheets || [])];
    for (const sh of sheets) {
      let rules;
      try { rules = sh.cssRules; } catch { continue; }
      const f = rules && check(rules);
      if (f) return f;
    }
  }
  return '';
}

// What a custom element drawn over a visually hidden pop-up control (dom.js hiddenPopupControl:
// ion-select) shows as its choice or placeholder: the visible text its shadow root marks
// aria-hidden (the label is named by the control; the shown value beside it is hidden from
// assistive technology, but it is what a user sees).
export function shownChoiceOf(host) {
  const sr = shadowOf(host);
  if (!sr) return '';
  const parts = [];
  for (const p of sr.querySelectorAll('[aria-hidden=true]')) {
    if (p.querySelector('button,input,select,textarea') || parts.some((q) => q.el.contains(p))) continue;
    const t = norm(p.innerText || p.textContent);
    if (t && !hiddenReason(p)) parts.push({ el: p, t });
  }
  return norm(parts.map((q) => q.t).join(' '));
}
