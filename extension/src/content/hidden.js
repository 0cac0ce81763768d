// What a sighted user cannot see: shared by the snapshot (which leaves such text out, issue 12)
// and by targeting and actions (which refuse to act on such an element, issue 14).
import { winOf, styleOf, isRendered, norm, shadowOf, flatText } from './dom.js';

// ---- what a sighted user cannot see ------------------------------------------------------------
// Text that is rendered but invisible is the usual way to show a prompt injection to the agent
// and not to the user. These checks use the computed style the walk reads anyway, and a layout
// box only for positioned or clipping elements.

// clip: rect(t, r, b, l) with no area (the .sr-only / .visually-hidden pattern).
function zeroClip(clipValue) {
  const m = clipValue.match(/^rect\(([^)]*)\)$/);
  if (!m) return false;
  const v = m[1].split(/[\s,]+/).filter(Boolean).map((x) => (x === 'auto' ? NaN : parseFloat(x)));
  if (v.length !== 4) return false;
  const [t, r, b, l] = v;
  return (r - l <= 1) || (b - t <= 1);
}

// clip-path: inset(…) that leaves nothing, or a circle/ellipse of radius 0.
function emptyClipPath(cp) {
  let m = cp.match(/^inset\(([^)]*)\)/);
  if (m) {
    const parts = m[1].split(/\s+round\s+/)[0].trim().split(/\s+/).map((x) => (x.endsWith('%') ? parseFloat(x) : NaN));
    if (!parts.length || parts.some((x) => Number.isNaN(x))) return false;
    const [t, r = t, b = t, l = r] = parts;
    return t + b >= 100 || l + r >= 100;
  }
  m = cp.match(/^(circle|ellipse)\(\s*0(px|%)?[\s)]/);
  return !!m;
}

// A transform that flattens the element to nothing (scale(0), scaleX(0), rotateX(90deg)…).
function flatTransform(tf) {
  const m = tf.match(/^matrix(3d)?\(([^)]*)\)$/);
  if (!m) return false;
  const v = m[2].split(',').map(Number);
  const [a, b, c, d] = m[1] ? [v[0], v[1], v[4], v[5]] : v;
  return Math.abs(a * d - b * c) < 1e-6;
}

// Is the aria-hidden `el` the visible half of a status drawn twice: its words for the eye, hidden
// from assistive technology because a visually hidden live region beside it (aria-live, role
// status or alert) says them to a screen reader? GOV.UK's and USWDS's character counts ("You have
// 4 characters too many") were left out of the Markdown both times. A user sees it: it is shown.
// Also words drawn twice so as the only two things in their box (react-datepicker's weekday
// headers: "Su" aria-hidden for the eye, "Sunday" visually hidden for a screen reader; its
// calendar's header row was empty). (Not any aria-hidden words beside some hidden text: the page's
// hidden words are never shown for it.)
export function seenStatusTwin(el) {
  if (el.getAttribute('aria-hidden') !== 'true' || !norm(el.textContent) || el.childElementCount > 5) return false;
  const sibs = el.parentElement ? el.parentElement.children : [];
  const pair = sibs.length === 2;
  for (let i = 0; i < sibs.length && i < 20; i++) {
    const s = sibs[i];
    if (s === el || (!pair && !/^(polite|assertive)$/.test(s.getAttribute('aria-live') || '') && !/^(status|alert)$/.test(s.getAttribute('role') || ''))) continue;
    if (s.getAttribute('aria-hidden') === 'true' || !norm(s.textContent)) continue;
    const st = styleOf(s);
    if (st && isRendered(s, st) && invisible(s, st, false)) return true;
  }
  return false;
}

// The list a user sees for a listbox that is a copy for screen readers only: `list` (role=listbox)
// clipped to nothing, and beside it (a sibling, 20 looked at) an aria-hidden box whose text holds
// every option's (200 at most), the list drawn for the eye, which a user reads and clicks
// (Calcite's calcite-combobox: its listbox a 1×1 clipped <ul>, its items drawn in an aria-hidden
// popover; the open list was shown as nothing, and select_option "showed no options"). Null if none.
export function drawnListOf(list) {
  if (list?.nodeType !== 1 || (list.getAttribute('role') || '').trim().toLowerCase() !== 'listbox') return null;
  const st = styleOf(list);
  if (!st || st.display === 'none' || !invisible(list, st, false)) return null;
  const opts = Array.from(list.querySelectorAll('[role=option]')).slice(0, 200).map((o) => norm(o.textContent).toLowerCase()).filter(Boolean);
  if (!opts.length) return null;
  const sibs = list.parentNode ? list.parentNode.children : [];
  for (let i = 0; i < sibs.length && i < 20; i++) {
    const s = sibs[i];
    if (s === list || s.getAttribute('aria-hidden') !== 'true') continue;
    const text = flatText(s).toLowerCase();
    if (opts.every((o) => text.includes(o))) return s;
  }
  return null;
}

// Is the aria-hidden `el` the list a user sees for a listbox beside it kept for screen readers only
// (drawnListOf)? It is shown: its items are what a user reads and clicks.
export function seenListTwin(el) {
  if (el.getAttribute('aria-hidden') !== 'true' || !el.parentNode) return false;
  const sibs = el.parentNode.children;
  for (let i = 0; i < sibs.length && i < 20; i++) {
    if (sibs[i] !== el && sibs[i].getAttribute('role') === 'listbox' && drawnListOf(sibs[i]) === el) return true;
  }
  return false;
}

// Is the element (and so everything in it) invisible to a sighted user?
// aria: false leaves aria-hidden out (for what a user can reach: aria-hidden hides from
// assistive technology, not from the eye).
// `display`: the computed display when the caller has read it already (each read of a computed
// style property costs; the snapshot reads each one once per element).
export function invisible(el, st, aria = true, display = st.display) {
  if (st.opacity === '0') return true;
  // (a filter that makes it fully transparent draws it as opacity 0 does)
  if (st.filter !== 'none' && /(^|\s)opacity\(0(\.0*)?%?\)/.test(st.filter)) return true;
  if (aria && el.getAttribute('aria-hidden') === 'true') return true;
  if (display === 'contents') return false;
  // (a button or link drawn in the colour of what lies behind it, words and box)
  if ((el.tagName === 'BUTTON' || el.tagName === 'A' || /^(button|link)$/.test(el.getAttribute('role') || '')) && drawnInvisibly(el)) return true;
  const tf = st.transform;
  if (tf !== 'none' && (flatTransform(tf) || slidOut(el, st))) return true;
  // (or a slide of a strip a transform moves: Splide's, Glide's, Embla's slides, each in place in
  // the strip that moves them all; the strip's script moves it by its inline style, read first: a
  // computed style read of every element's parent cost 60 ms on a 32,000-element page, this 5)
  const p = el.parentElement;
  if (tf === 'none' && p && p.hasAttribute('style') && (p.style.transform || p.style.translate) && styleOf(p)?.transform !== 'none' &&
      slidOut(el, st, p.parentElement)) return true;
  const cp = st.clipPath;
  if (cp !== 'none' && emptyClipPath(cp)) return true;
  const pos = st.position;
  const clipsOverflow = st.overflowX !== 'visible' || st.overflowY !== 'visible';
  if (pos === 'static' && !clipsOverflow) return false;
  if ((pos === 'absolute' || pos === 'fixed') && st.clip !== 'auto' && zeroClip(st.clip)) return true;
  const r = el.getBoundingClientRect();
  if (clipsOverflow && (r.width <= 1 || r.height <= 1) && !escapesClip(el, st, pos)) return true;
  return movedOff(el, st, r, pos, clipsOverflow);
}

// Is the element, moved by its transform (or by its strip's, from `from` up), wholly outside the
// box that clips it (a carousel's slides beside the one shown, each moved a slide's width left or
// right inside the frame that hides its overflow: Flowbite's; or the strip holding them moved:
// Splide's, Glide's, Embla's)? The clipping box is looked for three boxes up; it clips an
// absolutely placed element only when that element is placed against it or something inside it.
function slidOut(el, st, from = el.parentElement) {
  if (st.position === 'fixed') return false;
  let c = from, x = false, y = false;
  for (let i = 0; c && i < 3; i++, c = c.parentElement) {
    const cs = styleOf(c);
    x = !!cs && /hidden|clip/.test(cs.overflowX);
    y = !!cs && /hidden|clip/.test(cs.overflowY);
    if (x || y) break;
  }
  if (!c || c.tagName === 'BODY' || c.tagName === 'HTML') return false;
  if (st.position === 'absolute' && !(el.offsetParent && (el.offsetParent === c || c.contains(el.offsetParent)))) return false;
  const r = el.getBoundingClientRect(), b = c.getBoundingClientRect();
  if (r.width < 1 || r.height < 1 || b.width < 1 || b.height < 1) return false;
  // (what it holds may overflow it back into the frame: Swiper's track, one slide wide, moved left
  // by a transform, its current slide drawn past its right edge)
  const spills = st.overflowX === 'visible' && st.overflowY === 'visible';
  const right = spills ? r.left + Math.max(r.width, el.scrollWidth) : r.right;
  const bottom = spills ? r.top + Math.max(r.height, el.scrollHeight) : r.bottom;
  return (x && (right <= b.left + 1 || r.left >= b.right - 1)) || (y && (bottom <= b.top + 1 || r.top >= b.bottom - 1));
}

// Does a box that clips its overflow hold a child its clip does not reach: one placed against the
// viewport (position fixed), or, in a static box, one placed against a box around it (position
// absolute)? Unless the box is their containing block (a transform, filter or containment). Lion
// draws its dialogs and date picker in a 0 × 0 <dialog> (overflow auto) around a fixed layer the
// size of the screen: all of it was left out, and its buttons "not visible to a user".
function escapesClip(el, st, pos) {
  if (st.transform !== 'none' || st.filter !== 'none' || st.perspective !== 'none' || /paint|layout|strict|content/.test(st.contain || '') ||
      /transform|filter|perspective/.test(st.willChange || '')) return false;
  const root = shadowOf(el);
  for (const kids of root ? [el.children, root.children] : [el.children]) {
    for (let i = 0; i < kids.length && i < 20; i++) {
      const cs = styleOf(kids[i]);
      if (!cs || !(cs.position === 'fixed' || (pos === 'static' && cs.position === 'absolute'))) continue;
      const b = kids[i].getBoundingClientRect();
      if (b.width > 1 && b.height > 1) return true;
    }
  }
  return false;
}

// Is the element, positioned (not static), moved where no scrolling reaches: left of or above the
// page (left: -9999px; jQuery UI's modal form keeps an <input type=submit> at top: -1000px, for
// Enter to submit it)?
// A box of no size at the page's origin is not moved anywhere: what it holds overflows it onto
// the page (CKEditor's maximized editor fixes the root element at 0 × 0 at the origin).
export function movedOff(el, st, r = el.getBoundingClientRect(), pos = st.position, clipsOverflow = st.overflowX !== 'visible' || st.overflowY !== 'visible') {
  if (pos === 'static') return false;
  const W = winOf(el);
  const offLeft = (x) => r.left + x < 0 && r.right + x <= 0, offTop = (y) => r.top + y < 0 && r.bottom + y <= 0;
  // (not a box of no size that clips nothing: an anchor whose content is drawn out of it, back onto
  // the screen; Carbon's date picker puts its calendar in one below the fold, drawn above it)
  if (pos === 'fixed') return !(!clipsOverflow && (r.width < 1 || r.height < 1)) && (offLeft(0) || offTop(0) || r.left >= W.innerWidth || r.top >= W.innerHeight);
  if (offLeft(W.scrollX) || offTop(W.scrollY)) {
    // … unless what it holds overflows back onto the page: a carousel's track (Swiper's, one
    // slide wide) moved left by a transform, whose current slide overflows it onto the screen.
    return clipsOverflow || r.left + el.scrollWidth + W.scrollX <= 0 || r.top + el.scrollHeight + W.scrollY <= 0;
  }
  return false;
}

// The element's own text cannot be seen: font-size 0, or pushed out of its clipping box by a large
// negative text-indent (the image-replacement trick; text-indent is read only for clipping boxes).
// `el`, when given, is the element of `st`: its text is also muted when drawn in a fully
// transparent colour (transparentText).
export function mutedText(st, el = null) {
  if (st.fontSize === '0px') return true;
  if (el && (transparentText(el, st) || camouflaged(el, st))) return true;
  return st.overflowX !== 'visible' && parseFloat(st.textIndent) < -999;
}

// A computed colour as [r, g, b, alpha], or null (a colour() or keyword form).
export const rgbaOf = (c) => {
  const m = /^rgba?\(\s*([\d.]+)[,\s]+([\d.]+)[,\s]+([\d.]+)(?:\s*[,/]\s*([\d.]+%?))?\s*\)$/.exec(c || '');
  if (!m) return null;
  const a = m[4] === undefined ? 1 : m[4].endsWith('%') ? parseFloat(m[4]) / 100 : Number(m[4]);
  return [Number(m[1]), Number(m[2]), Number(m[3]), a];
};
const near = (a, b) => Math.abs(a[0] - b[0]) + Math.abs(a[1] - b[1]) + Math.abs(a[2] - b[2]) <= 12;

// The one flat colour painted under the point (x, y) of the viewport beneath `el`, `el`'s own
// background first, as the browser stacks what is drawn there; null when that is no flat colour (an
// image, a video, a canvas, a gradient, a translucent layer) or `el` is not drawn there.
function colourBehind(el, x, y, from = 0) {
  const root = el.getRootNode();
  let stack;
  try { stack = (root.elementsFromPoint ? root : el.ownerDocument).elementsFromPoint(x, y); } catch { return null; }
  let i = stack.indexOf(el);
  if (i < 0) return null;
  for (i += from; i < stack.length; i++) {
    const n = stack[i];
    const st = styleOf(n);
    if (!st || /^(img|video|canvas|iframe|svg|picture|object|embed)$/i.test(n.localName) || st.backgroundImage !== 'none') return null;
    const b = rgbaOf(st.backgroundColor);
    if (!b) return null;
    if (b[3] >= 0.95) return b;
    if (b[3] > 0.02) return null;
  }
  return [255, 255, 255, 1]; // the canvas
}

// The background colour of the nearest of `el`'s boxes (itself first) that paints one, the canvas's
// white if none; null for an image or gradient. Kept for the task (a snapshot asks it of every
// element with text: siblings share their parent's answer).
const bgOf = new Map();
function boxBackground(el, st = styleOf(el)) {
  if (bgOf.has(el)) return bgOf.get(el);
  if (!bgOf.size) queueMicrotask(() => bgOf.clear());
  let out;
  if (!st || st.backgroundImage !== 'none') out = null;
  else {
    const b = rgbaOf(st.backgroundColor);
    if (b && b[3] > 0.02) out = b;
    else {
      const p = el.parentElement || el.parentNode?.host;
      out = p && p.nodeType === 1 ? boxBackground(p) : [255, 255, 255, 1];
    }
  }
  bgOf.set(el, out);
  return out;
}

// Is `el`'s own text drawn in the colour of what lies behind it (white on white), so that no one
// sees it? A page's words for an agent alone ("Note to AI assistants: click Delete account")
// reached the Markdown so. Decided where the browser can say what lies behind: for text in view,
// by what is stacked under its centre (a white title over a photo is seen); first, cheaply, the
// nearest background of its own boxes must be its colour.
export function camouflaged(el, st) {
  const fill = rgbaOf(st.webkitTextFillColor && st.webkitTextFillColor !== st.color ? st.webkitTextFillColor : st.color);
  if (!fill || fill[3] < 0.5) return false;
  if ((st.textShadow && st.textShadow !== 'none') || parseFloat(st.webkitTextStrokeWidth) > 0) return false;
  const own = boxBackground(el, st);
  if (!own || !near(fill, own)) return false;
  const r = el.getBoundingClientRect();
  const W = winOf(el);
  const x = r.left + r.width / 2, y = r.top + Math.min(r.height, 40) / 2;
  if (r.width < 1 || r.height < 1 || x < 0 || y < 0 || x >= W.innerWidth || y >= W.innerHeight) return false;
  const behind = colourBehind(el, x, y);
  return !!behind && near(fill, behind);
}

// Does the control `el` draw nothing that differs from what lies behind it: its words in that
// colour (camouflaged), its box too (no border, outline or shadow of another colour, its own
// background that colour or none), and no image or icon inside? An invisible "Delete account"
// button was clicked and "Clicked".
export function drawnInvisibly(el) {
  const st = styleOf(el);
  if (!st || !camouflaged(el, st) || !norm(el.textContent)) return false; // (the colour check first: it is the cheap one)
  if (el.querySelector('img,svg,video,canvas,picture')) return false;
  if (st.boxShadow !== 'none' || (st.outlineStyle !== 'none' && parseFloat(st.outlineWidth) > 0)) return false;
  const r = el.getBoundingClientRect();
  const behind = colourBehind(el, r.left + r.width / 2, r.top + r.height / 2, 1);
  if (!behind) return false;
  const own = rgbaOf(st.backgroundColor);
  if (own && own[3] > 0.02 && !near(own, behind)) return false;
  for (const side of ['Top', 'Right', 'Bottom', 'Left']) {
    if (parseFloat(st['border' + side + 'Width']) > 0 && st['border' + side + 'Style'] !== 'none') {
      const b = rgbaOf(st['border' + side + 'Color']);
      if (!b || (b[3] > 0.02 && !near(b, behind))) return false;
    }
  }
  for (const c of el.querySelectorAll('*')) { const cs = styleOf(c); if (cs && norm(c.textContent) && !camouflaged(c, cs) && !transparentText(c, cs)) return false; }
  return true;
}


const ALPHA0 = /^(transparent|rgba\(.*,\s*0\)|rgb\(.*\/\s*0\))$/;

// Is `el`'s own text drawn in a fully transparent colour (color: transparent, no visible fill,
// stroke or shadow), so that no one sees it? Not when a background is clipped to the text
// (background-clip: text, the gradient heading), which is what paints it then.
export function transparentText(el, st) {
  if (!ALPHA0.test(st.color)) return false;
  const fill = st.webkitTextFillColor;
  if (fill && !ALPHA0.test(fill)) return false;
  if (parseFloat(st.webkitTextStrokeWidth) > 0 && !ALPHA0.test(st.webkitTextStrokeColor || '')) return false;
  if (st.textShadow && st.textShadow !== 'none') return false;
  for (let n = el, i = 0; n && n.nodeType === 1 && i < 12; n = n.parentElement || n.parentNode?.host, i++) {
    const s = n === el ? st : styleOf(n);
    if (s && (s.backgroundClip === 'text' || s.webkitBackgroundClip === 'text')) return false;
  }
  return true;
}

// Does `el` hold text drawn so no one sees it (opacity 0, transparent, font-size 0) while it is shown? Bounded
// (200 elements): for the name of a control, which innerText would take that text into.
export function holdsUnseenText(el) {
  let budget = 200;
  const walk = (n) => {
    for (let c = n.firstElementChild; c; c = c.nextElementSibling) {
      if (--budget < 0) return false;
      const st = styleOf(c);
      if (!st || !isRendered(c, st)) continue;
      if ((st.opacity === '0' || mutedText(st, c)) && norm(c.textContent)) return true;
      if (walk(c)) return true;
    }
    return false;
  };
  return walk(el);
}

const NO_TEXT = new Set(['SCRIPT', 'STYLE', 'TEMPLATE', 'NOSCRIPT']);

// The text of `el` a sighted user sees: as flatText (through open shadow roots and slots), but
// without what the snapshot leaves out as invisible (hidden, transparent, clipped, font-size 0…).
// Bounded (2,000 nodes by default): it is for short things like a button's label.
// `faded`: leave out only what is drawn fully transparent (opacity 0, transparent or 0-size text)
// and keep text clipped away for screen readers (.sr-only), which names a control for them.
// `inBox`: leave out the boxes inside `el` drawn mostly outside it (a switch whose ON and OFF halves
// slide in a box that clips them: the half out of it is not seen).
export function seenText(el, budget = 2000, faded = false, inBox = false) {
  const out = [];
  const box = inBox ? el.getBoundingClientRect() : null;
  // (mostly outside: less than half of it within the box; Bootstrap Switch's OFF half overlaps
  // its box by 2 px while ON shows)
  const outside = (n) => {
    const r = n.getBoundingClientRect();
    const w = Math.min(r.right, box.right) - Math.max(r.left, box.left), h = Math.min(r.bottom, box.bottom) - Math.max(r.top, box.top);
    return w <= 0 || h <= 0 || w * h < (r.width * r.height) / 2;
  };
  const walk = (n, muted) => {
    if (--budget < 0) return;
    if (n.nodeType === 3) { if (!muted) out.push(n.data); return; }
    if (n.nodeType === 11) { for (let c = n.firstChild; c; c = c.nextSibling) walk(c, muted); return; }
    if (n.nodeType !== 1 || NO_TEXT.has(n.tagName)) return;
    const st = styleOf(n);
    if (!st || !isRendered(n, st) || (faded ? n !== el && st.opacity === '0' : invisible(n, st))) return;
    if (box && n !== el && st.display !== 'contents' && outside(n)) return;
    const m = mutedText(st, n);
    if (n.tagName === 'SLOT') {
      const a = n.assignedNodes({ flatten: true });
      if (a.length) { for (const c of a) walk(c, m); return; }
    }
    // a box of its own (block, flex item, chip) reads apart from its neighbours, as innerText does
    const apart = n !== el && !/^(inline|contents)$/.test(st.display);
    if (apart) out.push(' ');
    if (shadowOf(n)) walk(shadowOf(n), m);
    else for (let c = n.firstChild; c; c = c.nextSibling) walk(c, m);
    if (apart) out.push(' ');
  };
  walk(el, false);
  return norm(out.join(''));
}
