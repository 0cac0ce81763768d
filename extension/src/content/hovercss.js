// CSS :hover for the content script's pointer. A synthetic mouse event moves no real pointer, so
// the page's `:hover` rules never match: a menu a stylesheet opens while the pointer is over its
// item (Docusaurus's navbar, Fomantic UI's "simple" drop-down, daisyUI's dropdown-hover, a plain
// `li:hover > ul`) stayed closed after browser_hover, and the agent never saw its items. Here the
// page's `:hover` rules are made to match an attribute too, which this module sets on the element
// browser_hover moved the pointer onto and on its ancestors (the flat tree, across shadow roots),
// and moves along with the pointer's later moves: the page draws what it draws for a person's
// pointer resting there. Cross-origin stylesheets cannot be read and keep the real :hover only.
// Trusted input (background/trusted.js) moves the real pointer, which the browser hovers itself.

const ATTR = 'data-bb-hover';
const MAX_RULES = 60_000; // rules read per stylesheet (Fomantic UI's and daisyUI's, 32,600 together, took 40 ms)

// stylesheet -> its number of rules when last rewritten (a sheet swapped for another of as many
// rules is another object: looked through too)
const done = new WeakMap();
// document -> the elements the emulated pointer is over (innermost first)
const over = new WeakMap();

const HOVER = /:hover(?![\w-])/g;
const EITHER = `:is(:hover,[${ATTR}])`;

// The element's parent in the flat tree: its slot, the host of its shadow root, else its parent.
function flatParent(n) {
  if (n.assignedSlot) return n.assignedSlot;
  const p = n.parentNode;
  if (!p) return null;
  if (p.nodeType === 11) return p.host || null;
  return p.nodeType === 1 ? p : null;
}

// Each style rule of `rules` (nested ones, those in @media, @layer, … and in sheets @import brings)
// that names :hover gets `:is(:hover,[data-bb-hover])` in its place: the same specificity, the same
// place in the cascade, a negation (daisyUI's `:not(.dropdown-hover:hover)` that hides its menu)
// negating both; the rule's index is untouched (CSS-in-JS libraries insert by index), and without
// the attribute it matches exactly what it matched before.
function rewrite(rules, st) {
  for (const rule of rules) {
    if (++st.n > MAX_RULES) return;
    const sel = rule.selectorText;
    if (sel && sel.indexOf(':hover') >= 0 && sel.indexOf(ATTR) < 0) {
      try { rule.selectorText = sel.replace(HOVER, EITHER); } catch { /* left as it was */ }
    }
    if (rule.cssRules?.length) rewrite(rule.cssRules, st);
    else if (rule.styleSheet) sheetOnce(rule.styleSheet);
  }
}

// Rewrite a stylesheet unless done already with as many rules as it has now (a cross-origin one,
// which cannot be read, is left: its :hover stays the real one only).
function sheetOnce(sh) {
  let rules;
  try { rules = sh.cssRules; } catch { return; }
  if (!rules || done.get(sh) === rules.length) return;
  rewrite(rules, { n: 0 });
  done.set(sh, rules.length);
}

function ensureRewritten(root) {
  for (const sh of [...(root.styleSheets || []), ...(root.adoptedStyleSheets || [])]) sheetOnce(sh);
}

// The emulated pointer moves onto `el` (browser_hover): the elements it leaves lose the hover, `el`
// and its flat-tree ancestors gain it, and the roots on the way have their :hover rules rewritten
// (once per change of their stylesheets: a page's 32,600 rules took 40-110 ms, so a click does
// not start this: it only moves a hover browser_hover began, see hoverFollow).
export function hoverOnto(el) {
  if (!el || el.nodeType !== 1) return;
  const doc = el.ownerDocument;
  const now = [];
  const roots = new Set([doc]);
  for (let n = el; n; n = flatParent(n)) {
    now.push(n);
    const r = n.getRootNode();
    if (r && r.nodeType === 11) roots.add(r);
  }
  for (const root of roots) {
    try { ensureRewritten(root); } catch { /* a page's odd stylesheet: the real :hover stays */ }
  }
  const prev = over.get(doc) || [];
  if (prev.length === now.length && prev.every((n, i) => n === now[i])) return;
  for (const n of prev) if (!now.includes(n)) n.removeAttribute(ATTR);
  for (const n of now) if (!n.hasAttribute(ATTR)) n.setAttribute(ATTR, '');
  over.set(doc, now);
}

// Any later move of the pointer in a document where browser_hover emulates :hover (a click on
// the menu's item, or elsewhere) takes the hover along; elsewhere nothing is done.
export function hoverFollow(el) {
  if (el?.nodeType === 1 && over.has(el.ownerDocument)) hoverOnto(el);
}

// The emulated pointer leaves the document's elements (moved off a tooltip's trigger, or off a
// menu it opened that covers what the pointer goes to next); returns the element it was on.
export function hoverOff(doc) {
  const was = over.get(doc) || [];
  for (const n of was) n.removeAttribute(ATTR);
  over.delete(doc);
  return was[0] || null;
}

// Does browser_hover emulate :hover in `doc`?
export const hoverActive = (doc) => over.has(doc);

// A selector as the page wrote it, before its :hover was rewritten here (for the readers of the
// page's :hover rules: reach.js hoverRevealer, dom.js hoverPointer).
export const pageSelector = (sel) => sel.replace(/:is\(:hover,\s*\[data-bb-hover\]\)/g, ':hover');

// Is `el` under the emulated pointer?
export const isHovered = (el) => el?.nodeType === 1 && el.hasAttribute(ATTR);
