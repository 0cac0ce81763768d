// Stable refs: element -> "eN" for as long as this document (and so this isolated
// world) lives. A ref is never reused for another element.
const refOf = new WeakMap();

// This document's identity: made once per document (this isolated world lives as long as it), so
// the daemon can tell an action that stayed on the same document (its answer: what changed) from
// a navigation (a new document, a new id: the whole page).
export const documentId = globalThis.crypto?.randomUUID?.() || `${Date.now()}-${Math.random().toString(36).slice(2)}`;
const byRef = new Map();
let counter = 0;

export function refFor(el) {
  let r = refOf.get(el);
  if (!r) {
    r = 'e' + (++counter);
    refOf.set(el, r);
    byRef.set(r, new WeakRef(el));
  }
  return r;
}

// Refs are unique across documents (and tabs): the service worker passes the highest
// number it has seen, so a fresh document never reuses a ref an agent holds from
// the previous page — an old ref is an error, never a different element.
export function raiseFloor(n) {
  n = Number(n);
  if (Number.isFinite(n) && n > counter) counter = Math.floor(n);
}

export function refCounter() {
  return counter;
}

export function isRefSyntax(s) {
  return /^\[?(?:ref\s*=\s*)?e\d+\]?$/i.test(String(s).trim());
}

export function parseRef(s) {
  return String(s).trim().replace(/^\[|\]$/g, '').replace(/^ref\s*=\s*/i, '').toLowerCase();
}

// The element for a ref, or an Error that tells the agent what to do.
export function resolveRef(ref) {
  const w = byRef.get(ref);
  const el = w?.deref();
  if (!el || !el.isConnected) {
    const e = new Error(`ref ${ref} is no longer on the page — get the page again`);
    e.code = 'stale_ref';
    throw e;
  }
  return el;
}

// Which of `refs` name an element of this document that is still on the page (fill_form across
// frames: background/frames.js sends each field to the frame that holds it).
export function heldRefs(refs) {
  return (Array.isArray(refs) ? refs : []).slice(0, 200).map(String).filter((r) => isRefSyntax(r) && byRef.get(parseRef(r))?.deref()?.isConnected);
}

// Forget refs of collected or detached elements now and then (the WeakRefs are small).
export function pruneRefs() {
  for (const [r, w] of byRef) {
    const el = w.deref();
    if (!el) byRef.delete(r);
  }
}
