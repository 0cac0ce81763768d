// CSS :hover for the content script's pointer. A synthetic mouse event moves no real pointer, so
// the page's `:hover` rules never match: a menu a stylesheet opens while the pointer is over its
// item (Docusaurus's navbar, Fomantic UI's "simple" drop-down, daisyUI's dropdown-hover, a plain
// `li:hover > ul`) stayed closed after browser_hover, and the agent never saw its items. Here the
// page's `:hover` rules are made to match an attribute too, which this module sets on the element
// browser_hover moved the pointer onto and on its ancestors (the flat tree, across shadow roots),
// and moves along with the pointer's later moves: the page draws what it draws for a person's
// pointer resting there. A stylesheet from another origin (a CDN's) cannot be read in place: its
// text is fetched as the page itself may fetch it (CORS, no credentials: most CDNs allow it), and
// a copy of its :hover rules alone is adopted beside it; one whose server forbids that keeps the
// real :hover only.
// Trusted input (background/trusted.js) moves the real pointer, which the browser hovers itself.

import { flatParent } from './dom.js';

const ATTR = 'data-bb-hover';
const MAX_RULES = 60_000; // rules read per stylesheet (Fomantic UI's and daisyUI's, 32,600 together, took 40 ms)

// stylesheet -> its number of rules when last rewritten (a sheet swapped for another of as many
// rules is another object: looked through too)
const done = new WeakMap();
// document -> the elements the emulated pointer is over (innermost first)
const over = new WeakMap();

const HOVER = /:hover(?![\w-])/g;
const EITHER = `:is(:hover,[${ATTR}])`;

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
// which cannot be read, is copied instead: see copyOf).
function sheetOnce(sh, root) {
  let rules;
  try { rules = sh.cssRules; } catch { if (root) copyOf(sh, root); return; }
  if (!rules || done.get(sh) === rules.length) return;
  rewrite(rules, { n: 0 });
  done.set(sh, rules.length);
}

// A selector list's selectors (commas inside parentheses or strings do not split).
function selectors(list) {
  const out = [];
  let depth = 0, quote = '', from = 0;
  for (let i = 0; i < list.length; i++) {
    const c = list[i];
    if (quote) { if (c === '\\') i++; else if (c === quote) quote = ''; continue; }
    if (c === '"' || c === "'") quote = c;
    else if (c === '(' || c === '[') depth++;
    else if (c === ')' || c === ']') depth--;
    else if (c === ',' && depth === 0) { out.push(list.slice(from, i).trim()); from = i + 1; }
  }
  out.push(list.slice(from).trim());
  return out;
}

// Keep only what the page's :hover rules need in a copy (which comes later in the cascade than the
// page's sheet, so that nothing else of it may apply twice): of a rule, its selectors that name
// :hover (not inside :not(), which would match every element not hovered), rewritten; a rule that
// only holds such rules, nested, keeps no declarations of its own; the @media/@supports/@layer/
// @container around them, and @keyframes they may name.
function prune(rules, host) {
  for (let i = rules.length - 1; i >= 0; i--) {
    const rule = rules[i];
    let keep = rule.type === CSSRule.KEYFRAMES_RULE, mine = false;
    if (!keep && rule.selectorText !== undefined) {
      const hov = selectors(rule.selectorText).filter((x) => HOVER_ONE.test(x) && !NOT_HOVER.test(x));
      if (hov.length) {
        try { rule.selectorText = hov.map((x) => x.replace(HOVER, EITHER)).join(', '); mine = true; } catch { /* dropped */ }
      }
    }
    if (!keep && rule.cssRules) {
      prune(rule.cssRules, rule);
      keep = mine || rule.cssRules.length > 0;
      if (keep && !mine && rule.style) rule.style.cssText = '';
    }
    if (!keep) host.deleteRule(i);
  }
}
const HOVER_ONE = /:hover(?![\w-])/;
const NOT_HOVER = /:not\([^)]*:hover/;

const MAX_CSS = 4 << 20; // characters of a copied stylesheet (Fomantic UI's whole CSS: 1.3 M)
const COPY_WAIT = 1500; // ms browser_hover waits for copies still being fetched
// a cross-origin stylesheet -> { copy (adopted, or null if none could be made), ready (promise) }
const copies = new WeakMap();
// root -> the records of the copies adopted in it (to drop those whose sheet the page removed)
const copiesIn = new WeakMap();

// Fetch a cross-origin stylesheet's text as the page could (mode cors, no cookies: what the server
// lets any page read, nothing more), and adopt a copy of its :hover rules, rewritten, in `root`
// (adopted sheets come after the page's own in the cascade; a copy holds only :hover rules).
function copyOf(sh, root) {
  if (!sh.href || copies.has(sh)) return;
  const rec = { sheet: sh, copy: null, ready: null };
  copies.set(sh, rec);
  const win = (root.ownerDocument || root).defaultView;
  rec.ready = (async () => {
    try {
      const res = await fetch(sh.href, { mode: 'cors', credentials: 'omit', cache: 'force-cache' });
      if (!res.ok) return;
      const text = await res.text();
      if (text.length > MAX_CSS || !HOVER_ONE.test(text)) return;
      const copy = new win.CSSStyleSheet({ baseURL: sh.href });
      copy.replaceSync(text); // (@import rules are dropped: rare in a CDN's one file)
      prune(copy.cssRules, copy);
      if (!copy.cssRules.length) return;
      const list = root.adoptedStyleSheets;
      root.adoptedStyleSheets = [...list, copy];
      rec.copy = copy;
      if (!copiesIn.has(root)) copiesIn.set(root, []);
      copiesIn.get(root).push(rec);
    } catch { /* forbidden (no CORS), offline, or unparsable: the real :hover only */ }
  })();
}

// Copies whose stylesheet the page took away (a theme switched) are taken away too.
function dropStale(root) {
  const recs = copiesIn.get(root);
  if (!recs?.length) return;
  const live = new Set(root.styleSheets || []);
  const gone = recs.filter((r) => !live.has(r.sheet));
  if (!gone.length) return;
  const out = new Set(gone.map((r) => r.copy));
  try { root.adoptedStyleSheets = root.adoptedStyleSheets.filter((c) => !out.has(c)); } catch { /* ignore */ }
  copiesIn.set(root, recs.filter((r) => live.has(r.sheet)));
}

function ensureRewritten(root) {
  dropStale(root);
  for (const sh of root.styleSheets || []) sheetOnce(sh, root);
  for (const sh of root.adoptedStyleSheets || []) sheetOnce(sh);
}

// Resolves once the copies of the cross-origin stylesheets of `el`'s roots are made (or could not
// be), at most COPY_WAIT ms: browser_hover answers with the page those rules draw.
export function hoverCopiesReady(el) {
  const roots = new Set();
  for (let n = el; n; n = flatParent(n)) roots.add(n.getRootNode());
  const waits = [];
  for (const r of roots) for (const sh of r.styleSheets || []) { const rec = copies.get(sh); if (rec?.ready) waits.push(rec.ready); }
  if (!waits.length) return Promise.resolve();
  return Promise.race([Promise.all(waits), new Promise((res) => setTimeout(res, COPY_WAIT))]);
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
