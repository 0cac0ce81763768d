// A modal the page made itself (not a <dialog> opened with showModal(), which makes the rest of
// the page inert for the browser: dom.js isInert): a layer fixed over the whole viewport — the
// modal's own container or its backdrop — holding a visible dialog (Bootstrap's .modal, MUI's
// Dialog, Shoelace's sl-dialog, Ionic's ion-modal). It takes every click outside the dialog, so
// what lies under it no user can reach until the dialog is closed: the Markdown listed those
// fields as actionable, and acting on them failed with "covered by" only at the click.
import { styleOf, nameOf } from './dom.js';
import { composedParent, composedContains, deepElementAt, visibleCenter } from './reach.js';
import { rgbaOf } from './hidden.js';

export const DIALOG_SEL = '[aria-modal="true"], [role="dialog"], [role="alertdialog"], dialog[open]';
const layers = new Map(); // document -> { layer, dialog } | null, until the current task ends
const panels = new WeakSet(); // dialogs with no dialog role, found over a dimming backdrop (findLayer)

// The document's modal layer and its dialog, or null: looked up once per task (a snapshot asks
// for every control of the page in one; the next action may have closed it).
function layerOf(doc) {
  if (layers.has(doc)) return layers.get(doc);
  if (!layers.size) queueMicrotask(() => layers.clear());
  let found = null;
  try { found = findLayer(doc); } catch { found = null; }
  layers.set(doc, found);
  return found;
}

// The viewport of `doc` without its scroll bars: what a layer fixed at inset 0 covers. A page that
// scrolls has a classic scroll bar (Windows, Linux) inside innerWidth, which no fixed layer covers
// and at whose corner no layer is hit: its modal was never found.
function viewportOf(doc, W) {
  const de = doc.documentElement;
  return { w: Math.min(W.innerWidth, de?.clientWidth || W.innerWidth), h: Math.min(W.innerHeight, de?.clientHeight || W.innerHeight) };
}

// The outermost element of `doc` that `hit` is in and that is fixed over the whole viewport (or,
// in a document that does not scroll, placed absolutely over all of it: CKEditor's maximized
// editor, which also fixes the page's root so that nothing scrolls out from under it).
function coverOf(hit, doc, vp, still) {
  let out = null;
  for (let n = hit, i = 0; n && n.nodeType === 1 && n.ownerDocument === doc && i < 200; n = composedParent(n), i++) {
    if (n === doc.body || n === doc.documentElement) break;
    const pos = styleOf(n)?.position;
    if (pos !== 'fixed' && !(still && pos === 'absolute')) continue;
    const r = n.getBoundingClientRect();
    if (r.left <= 1 && r.top <= 1 && r.right >= vp.w - 1 && r.bottom >= vp.h - 1) out = n;
  }
  return out;
}

// A visible dialog in `root` (an element or a shadow root) that is on top at its center.
function dialogIn(root, doc) {
  const cands = root.nodeType === 1 && root.matches(DIALOG_SEL) ? [root] : [];
  for (const d of root.querySelectorAll(DIALOG_SEL)) { cands.push(d); if (cands.length > 50) break; }
  for (const d of cands) {
    const c = visibleCenter(d);
    if (!c) continue;
    const hit = deepElementAt(doc, c.x, c.y);
    if (hit && composedContains(d, hit)) return d;
  }
  return null;
}

// The dialog that holds the layer (a dialog component drawing its backdrop and panel in its own
// shadow root, its content slotted from its light DOM): the nearest dialog above the layer. Its box
// may be empty (its panel is drawn in the top layer), so the layer being hit at the corners is
// what tells it is open and on top.
function dialogAround(layer) {
  for (let n = composedParent(layer), i = 0; n && n.nodeType === 1 && i < 50; n = composedParent(n), i++) {
    if (n.matches(DIALOG_SEL)) return n;
  }
  return null;
}

// What the four corners of the viewport hit: the same layer fixed over all of it, at three of them
// at least (a toast may sit in one), with a dialog in it or beside it (a backdrop of its own).
function findLayer(doc) {
  const W = doc.defaultView;
  if (!W) return null;
  const vp = viewportOf(doc, W);
  if (vp.w < 40 || vp.h < 40) return null;
  const pts = [[3, 3], [vp.w - 4, 3], [3, vp.h - 4], [vp.w - 4, vp.h - 4]];
  const se = doc.scrollingElement || doc.documentElement;
  const still = !!se && se.scrollHeight <= se.clientHeight + 1 && se.scrollWidth <= se.clientWidth + 1;
  const counts = new Map();
  const hits = [];
  for (const [x, y] of pts) {
    const hit = deepElementAt(doc, x, y);
    const c = hit ? coverOf(hit, doc, vp, still) : null;
    if (c) { counts.set(c, (counts.get(c) || 0) + 1); hits.push([hit, c]); }
  }
  let layer = null;
  for (const [c, n] of counts) if (n >= 3) layer = c;
  if (!layer) return null;
  const above = new Set(); // the layer's ancestors
  for (let n = composedParent(layer); n; n = composedParent(n)) above.add(n);
  const dialog = dialogIn(layer, doc) || (layer.parentNode && layer.parentNode !== doc ? dialogIn(layer.parentNode, doc) : null) ||
    dialogAround(layer);
  if (dialog) return { layer, dialog, above };
  // No dialog role: a backdrop dimming the page at three corners at least (translucent: Bulma's
  // .modal-background, tingle.js's layer, a page's own overlay) with a panel on top at the
  // viewport's centre: that panel is the dialog (the page behind listed its fields as usable).
  if (hits.filter(([hit, c]) => c === layer && dimmedUpTo(hit, layer)).length >= 3) {
    const hit = deepElementAt(doc, vp.w / 2, vp.h / 2);
    if (hit && composedContains(layer, hit) && !dimmedUpTo(hit, layer)) {
      let panel = hit;
      for (let n = hit, i = 0; n && n !== layer && i < 200; n = composedParent(n), i++) panel = n;
      if (panel !== layer) { panels.add(panel); return { layer, dialog: panel, above }; }
    }
  }
  // No dialog: a layer over the whole window that hides what is under it (opaque at all four
  // corners: an editor maximized, a full-window viewer) covers the page all the same.
  if (counts.get(layer) === 4 && hits.every(([hit, c]) => c === layer && opaqueUpTo(hit, layer))) return { layer, dialog: layer, cover: true, above };
  return null;
}

// Whether something between `hit` and `layer` (both included) paints an opaque background there:
// what lies under the layer at that point cannot be seen through it.
function opaqueUpTo(hit, layer) {
  for (let n = hit, i = 0; n && n.nodeType === 1 && i < 50; n = composedParent(n), i++) {
    const st = styleOf(n);
    if (st && parseFloat(st.opacity) < 1) return false;
    if (st && (st.backgroundImage !== 'none' || /^rgb\(|^rgba\([^)]*,\s*1\)$/.test(st.backgroundColor))) return true;
    if (n === layer) break;
  }
  return false;
}

// Whether the first background painted between `hit` and `layer` (both included) is translucent,
// a backdrop that dims what lies under it (alpha from 0.1 to under 1).
function dimmedUpTo(hit, layer) {
  for (let n = hit, i = 0; n && n.nodeType === 1 && i < 50; n = composedParent(n), i++) {
    const st = styleOf(n);
    if (!st) return false;
    const c = rgbaOf(st.backgroundColor);
    if (c && c[3] >= 0.1 && c[3] < 1) return true;
    if (st.backgroundImage !== 'none' || (c && c[3] >= 1)) return false;
    if (n === layer) break;
  }
  return false;
}

// Is `node` (or something inside it) what a user's click at its visible center lands on?
function onTop(node, doc) {
  const c = visibleCenter(node);
  if (!c) return false;
  const hit = deepElementAt(doc, c.x, c.y);
  return !!hit && (composedContains(node, hit) || composedContains(hit, node));
}

// The dialog of the page's modal that `el` lies under (outside its layer and not shown above it:
// a list the dialog appended to <body> is), or null.
export function behindModal(el) {
  const doc = el?.ownerDocument;
  if (!doc) return null;
  const found = layerOf(doc);
  if (!found || composedContains(found.layer, el) || composedContains(found.dialog, el)) return null;
  // not drawn at all (the hidden <textarea> an editor in the layer stands for): under nothing
  if (found.cover && (!el.getClientRects().length || styleOf(el)?.visibility === 'hidden')) return null;
  if (onTop(el, doc)) return null;
  // Its branch of the page beside the layer (the outermost ancestor not holding the layer): a
  // list the dialog appended to <body> is on top there even where its own options are scrolled
  // out of its box; the page behind is under the layer there too.
  let branch = el;
  for (let n = composedParent(el); n && !found.above.has(n); n = composedParent(n)) branch = n;
  if (branch !== el && onTop(branch, doc)) return null;
  return found.dialog;
}

// How an error names that dialog: 'the open dialog "Edit profile"'; a layer that is no dialog, by
// the label of the nearest element around it that has one (a maximized editor's).
export function modalName(dialog) {
  // a panel over a dimming backdrop: named by its first heading, else its first line of words
  if (panels.has(dialog) && !dialog.matches(DIALOG_SEL)) {
    const h = dialog.querySelector('h1,h2,h3,h4,h5,h6,[role=heading]');
    const n = (nameOf(dialog) || (h ? h.textContent : (dialog.innerText || '').split('\n').find((x) => x.trim())) || '').replace(/\s+/g, ' ').trim().slice(0, 80);
    return n ? `the open dialog "${n}"` : 'an open dialog';
  }
  if (!dialog.matches(DIALOG_SEL)) {
    let label = '';
    for (let n = dialog, i = 0; n && n.nodeType === 1 && !label && i < 10; n = composedParent(n), i++) {
      if (n.hasAttribute('aria-label') || n.hasAttribute('aria-labelledby')) label = (nameOf(n) || '').trim().slice(0, 80);
    }
    return label ? `"${label}", shown over the whole window` : 'a layer shown over the whole window';
  }
  const n = (nameOf(dialog) || '').trim().slice(0, 80);
  return n ? `the open dialog "${n}"` : 'an open dialog';
}
