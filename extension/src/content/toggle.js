// The state of a control a click toggles (a checkbox, a radio button, a switch, a toggle button),
// taken before the click and again once the page settled after it, so that the answer says what
// the click did to it: "it is now checked", or "it is still not checked" when the page kept it
// (a handler that prevents the click, a framework that puts its own state back). Without it the
// answer to a click on a checkbox the page locked was "Clicked" and nothing else.
import { controlKind, styleOf, ariaOf, roleOf } from './dom.js';
import { describe } from './targeting.js';

let last = null; // { el: WeakRef, before, kind, watch, others, was, menu }: the control the last click aimed at

// 'checked' | 'not checked' | 'mixed' | 'pressed' | 'not pressed', or null when the element is
// not a control a click toggles.
export function toggleState(el0) {
  const el = control(el0);
  if (!el || el.nodeType !== 1) return null;
  const kind = controlKind(el, styleOf(el));
  if (kind === 'checkbox' || kind === 'radio') {
    // (indeterminate draws a dash on a checkbox only; a radio's is not shown, as the snapshot says)
    if (el.tagName === 'INPUT') return el.type === 'checkbox' && el.indeterminate ? 'mixed' : el.checked ? 'checked' : 'not checked';
    const a = ariaOf(el, 'aria-checked');
    if (a === 'mixed') return 'mixed';
    if (a === 'true' || a === 'false') return a === 'true' ? 'checked' : 'not checked';
    return typeof el.checked === 'boolean' ? (el.checked ? 'checked' : 'not checked') : null; // a custom element's property
  }
  const p = ariaOf(el, 'aria-pressed');
  if (p === 'true' || p === 'false' || p === 'mixed') return p === 'true' ? 'pressed' : p === 'mixed' ? 'mixed' : 'not pressed';
  return null;
}

// A label stands for its control.
const control = (el) => (el?.tagName === 'LABEL' && el.control ? el.control : el);

// A click is about to be made on `el` (none other than a click calls this; every action forgets).
export function noteClick(el0) {
  forgetClick();
  const el = control(el0);
  const before = el ? toggleState(el) : null;
  // (how the answer names it, and the menu it is an item of: a menu that closes on the click takes
  // the item with it, and its state after is then not to be read)
  const menu = before ? el.closest?.('[role=menu],[role=menubar]') : null;
  // (its parent, where it lies there and how many of its kind that holds: to know one drawn anew
  // in its place)
  const p = before ? el.parentElement : null;
  let spot = null;
  if (p) {
    const r0 = el.getBoundingClientRect(), b = p.getBoundingClientRect();
    spot = { box: new WeakRef(p), dx: r0.left - b.left, dy: r0.top - b.top, n: sameKind(p, kindOf(el)).length };
  }
  last = before ? { el: new WeakRef(el), before, kind: kindOf(el), pressed: /pressed/.test(before), watch: null, others: false, was: el0 ? describe(el0) : '', menu: menu ? new WeakRef(menu) : null, spot } : null;
  // A button with aria-pressed may be no toggle at all (FullCalendar gives its Prev and Next
  // aria-pressed="false" for good), nor an item with aria-checked that opens what is under it (a
  // cascader's column: Ant Design Vue's): whether the click changed the page elsewhere is watched,
  // and then its unchanged state is not said to be the click's failure.
  if (last && el.tagName !== 'INPUT' && (ariaOf(el, 'aria-pressed') !== null || ariaOf(el, 'aria-checked') !== null)) {
    const l = last;
    l.watch = new MutationObserver((recs) => {
      if (recs.some((r) => r.target !== el && !el.contains(r.target))) { l.others = true; l.watch.disconnect(); }
    });
    l.watch.observe(el.ownerDocument, { subtree: true, childList: true, attributes: true, characterData: true });
  }
}

export function forgetClick() {
  last?.watch?.disconnect();
  last = null;
}

// What became of the control the last click aimed at: { before, after }, or null (no such
// control). Until the next action, which forgets it. One that left the page is { before, after:
// null, gone, was, as }: `gone` says why when known ('menu': the menu it was an item of closed with
// the click), `was` is how the click's answer named it (with its state before the click) and `as`
// the same without that state, which it no longer has for sure (Reka's DropdownMenu checkbox item,
// gone with its menu, was answered "Clicked [checkbox "Show Bookmarks" checked]" as it became
// unchecked).
export function toggledSince() {
  const l = last;
  const el = l?.el.deref();
  if (!l) return null;
  if (!el || !el.isConnected) {
    l.watch?.disconnect();
    // (a button with aria-pressed that left with what it was in, a dialog's Insert that closes it:
    // no toggle to speak of; Jodit gives every button aria-pressed, and "it was not pressed before
    // the click" was said of its link dialog's Insert)
    if (l.pressed && !l.menu) return null;
    const menu = l.menu?.deref();
    const gone = menu && (!menu.isConnected || !menu.checkVisibility?.()) ? 'menu' : '';
    // (drawn anew in its place, redrawn(): Handsontable's checkbox cell, rendered again on each
    // change, was "no longer on the page" while a person saw it checked)
    const again = gone ? null : redrawn(l);
    if (again) return { before: l.before, after: toggleState(again), radio: l.kind === 'radio' || l.kind === 'menuitemradio' };
    return { before: l.before, after: null, gone, was: l.was, as: withoutState(l.was, l.before) };
  }
  const after = toggleState(el);
  l.watch?.disconnect();
  if (l.others && after === l.before) return null; // a button that did something else, not a toggle that stayed
  return after ? { before: l.before, after, radio: l.kind === 'radio' || l.kind === 'menuitemradio' } : null;
}

const kindOf = (el) => (el.tagName === 'INPUT' ? el.type : roleOf(el));
const sameKind = (box, kind) => Array.from(box.querySelectorAll('input,[role],[aria-pressed]')).filter((c) => kindOf(c) === kind && toggleState(c) !== null);

// The control drawn in place of the clicked one that left the page: in its parent, still on the
// page and holding as many controls of its kind as before (none of them taken away: a row that left
// a list lets the next one move up into its place), the one where it lay; else null.
function redrawn(l) {
  const a = l.spot;
  const box = a?.box.deref();
  if (!box?.isConnected) return null;
  const all = sameKind(box, l.kind);
  if (all.length !== a.n) return null;
  const b = box.getBoundingClientRect();
  const at = all.filter((c) => { const r = c.getBoundingClientRect(); return Math.abs(r.left - b.left - a.dx) < 4 && Math.abs(r.top - b.top - a.dy) < 4; });
  return at.length === 1 ? at[0] : null;
}

// Token `t` (describe()) without the state word `state` after its name ("[checkbox "Show Bookmarks"
// checked e5]" -> "[checkbox "Show Bookmarks" e5]"): what is known of a control once it is gone.
function withoutState(t, state) {
  const m = /^\[[^"\]]*(?:"(?:[^"\\]|\\.)*")?/.exec(t || '');
  if (!m) return t;
  const rest = t.slice(m[0].length).replace(new RegExp(` ${state}(?=[ \\]])`), '');
  return m[0] + rest;
}
