// Cross-origin iframes. A content script cannot read a frame of another origin, but the
// extension can run its own content script in that frame. A frame's snapshot leaves a
// placeholder for each cross-origin iframe it meets (with the iframe's src); here each
// placeholder is matched to one of the tab's frames and replaced by that frame's own
// snapshot, and actions whose target is not in the top frame are tried in those frames.
import { callContent, callFrame } from './content-bridge.js';

const MAX_FRAMES = 20; // frames read per page, all levels together
const MAX_DEPTH = 3;   // iframes inside iframes inside iframes
// Errors after which another frame may hold the target (refs are unique across frames).
const TRY_OTHER_FRAMES = new Set(['stale_ref', 'target_not_found']);

// The frames shown in each tab's latest page: where a described target may also be looked for.
const shown = new Map();

function token(k, nonce) {
  return `⟦frame ${k} ${nonce}⟧`;
}

// A frame's origin: null for about:blank and about:srcdoc (they share their parent's), else the
// URL's origin, where 'null' (data:, file:, sandboxed: opaque) equals no other.
function originOf(url) {
  try {
    const u = new URL(url);
    return u.protocol === 'about:' ? null : u.origin;
  } catch {
    return null;
  }
}

// The frames whose document the frame `id` cannot read but its snapshot may show: its
// cross-origin children, and theirs through same-origin (or about:blank) children, which the
// frame's own walk goes into.
function unreadable(all, id) {
  const parent = all.find((f) => f.frameId === id);
  const own = parent ? originOf(parent.url) : null;
  const out = [];
  for (const f of all) {
    if (f.parentFrameId !== id) continue;
    const o = originOf(f.url);
    if (o === null || (o === own && o !== 'null')) out.push(...unreadable(all, f.frameId));
    else out.push(f);
  }
  return out;
}

// Which frame each placeholder stands for: the same URL first (in order), then, for one that
// navigated away from its src, the frame left whose window is the size of its iframe (a hidden
// frame of the same origin, a payment widget's controller, has none: it was taken, being first,
// and its content shown in the widget's place), in order when sizes are not known.
async function match(tabId, placeholders, candidates) {
  const used = new Set();
  const out = new Map();
  for (const p of placeholders) {
    const f = candidates.find((c) => !used.has(c.frameId) && c.url === p.src);
    if (f) { used.add(f.frameId); out.set(p.k, f.frameId); }
  }
  const left = placeholders.filter((p) => !out.has(p.k));
  const free = candidates.filter((c) => !used.has(c.frameId));
  if (!left.length || !free.length) return out;
  const sizes = free.length > 1 ? await frameSizes(tabId, free.map((c) => c.frameId)) : new Map();
  for (const p of left) {
    const rest = free.filter((c) => !used.has(c.frameId));
    const off = (c) => { const s = sizes.get(c.frameId); return s && p.w != null ? Math.abs(s[0] - p.w) + Math.abs(s[1] - p.h) : 0; };
    const f = rest.reduce((best, c) => (!best || off(c) < off(best) ? c : best), null);
    if (f) { used.add(f.frameId); out.set(p.k, f.frameId); }
  }
  return out;
}

// The window size of each frame (frameId -> [width, height]); frames that did not answer left out.
async function frameSizes(tabId, frameIds) {
  const out = new Map();
  try {
    const rs = await chrome.scripting.executeScript({ target: { tabId, frameIds }, injectImmediately: true, func: () => [innerWidth, innerHeight] });
    for (const r of rs || []) if (Array.isArray(r.result)) out.set(r.frameId, r.result);
  } catch { /* a frame gone meanwhile: sizes unknown */ }
  return out;
}

// The Markdown of the top frame's snapshot with every cross-origin iframe's placeholder filled in,
// all frames together within maxChars (page.js: the page cap, and never more than the daemon's
// max_message_bytes; page.js then cuts the message to the exact byte limit).
export async function fillFrames(tabId, snap, maxChars) {
  if (!snap.frames?.length) {
    shown.delete(tabId);
    return { markdown: snap.markdown, truncated: false };
  }
  let all = [];
  try { all = await chrome.webNavigation.getAllFrames({ tabId }) || []; } catch { /* tab gone */ }
  const state = { all, left: MAX_FRAMES, chars: maxChars - snap.markdown.length, truncated: false, ids: [] };
  const markdown = await fill(tabId, 0, snap, 1, state);
  shown.set(tabId, state.ids);
  return { markdown, truncated: state.truncated };
}

async function fill(tabId, frameId, snap, depth, state) {
  let md = snap.markdown;
  const ids = await match(tabId, snap.frames || [], unreadable(state.all, frameId));
  for (const p of snap.frames || []) {
    const id = ids.get(p.k);
    const frame = id === undefined ? null : state.all.find((f) => f.frameId === id);
    const origin = originOf(frame?.url || p.src) ?? 'null';
    let text;
    if (id === undefined) {
      text = '(not read: the frame has not loaded)';
    } else if (depth > MAX_DEPTH || state.left <= 0) {
      text = '(not read: too many frames on this page)';
    } else if (state.chars <= 0) {
      text = '(not read: the page is already at the size cap)';
      state.truncated = true;
    } else {
      state.left--;
      try {
        const sub = await callFrame(tabId, id, 'snapshot', { maxChars: state.chars });
        if (sub.ok) {
          state.ids.push(id);
          state.chars -= sub.markdown.length;
          if (sub.truncated) state.truncated = true;
          text = await fill(tabId, id, sub, depth + 1, state);
        } else {
          text = `(not read: ${sub.error})`;
        }
      } catch (e) {
        text = `(not read: ${e.message})`;
      }
    }
    // The marker names the frame's real origin (from the browser, not from the page).
    const label = p.label ? ' ' + JSON.stringify(p.label) : '';
    const block = `[iframe${label} origin=${origin}]\n\n${text}\n\n[/iframe]`;
    md = md.replace(token(p.k, snap.frameNonce), () => block);
  }
  return md;
}

const isRef = (t) => /^\[?(?:ref\s*=\s*)?e\d+\]?$/i.test(String(t ?? '').trim());

// Run a page action: in the top frame first (which also sees same-origin iframes), then in
// the cross-origin frames — by ref only. A ref is tried in every frame, as only its own frame
// knows it, and it names exactly the element the agent saw (with the frame's origin around it).
// A description or selector is never carried out in another origin's frame: a frame's title is
// the page's to choose, and a description that happens to match there (a card number typed into
// an advert) must not be acted on. When it matches only in a frame the agent was shown, the
// error names the element, its frame's origin and its ref.
export async function actAnywhere(tabId, args) {
  if (args.command === 'fill_form') { const r = await fillInFrames(tabId, args); if (r) return r; }
  const first = await callContent(tabId, 'act', args);
  if (first.code === 'focus_in_frame') return keyInFrame(tabId, args);
  if (!first.ok && first.failedTarget && args.command === 'fill_form') return fieldInFrames(tabId, first);
  if (first.ok || !TRY_OTHER_FRAMES.has(first.code)) return first;
  const target = args.params?.target;
  if (first.code === 'stale_ref' || isRef(target)) {
    let ids;
    try {
      ids = (await chrome.webNavigation.getAllFrames({ tabId })).map((f) => f.frameId).filter((id) => id > 0);
    } catch {
      return first;
    }
    for (const id of ids.slice(0, MAX_FRAMES)) {
      let r;
      try { r = await callFrame(tabId, id, 'act', args); } catch { continue; }
      if (r.ok) return r;
      if (!TRY_OTHER_FRAMES.has(r.code)) return r; // found there, but it failed: that is the answer
    }
    return first;
  }
  if (target == null || target === '') return first;
  const r = await locateInFrames(tabId, target, args.command);
  if (!r) return first;
  return {
    ok: false, code: 'cross_origin_frame',
    error: `${JSON.stringify(String(target))} matches nothing in the page itself, only ${r.desc} inside an iframe of ${r.origin}; ` +
      `actions inside another site's frame need the element's ref (use ${refIn(r.desc)}), not a description`,
  };
}

const refIn = (desc) => desc.match(/\b(e\d+)\]$/)?.[1] || 'its ref';

// Where a description matches in the cross-origin frames the agent was shown: { desc, origin } of
// the first frame's element, or null. Only located, never acted on (actAnywhere says why).
async function locateInFrames(tabId, target, command) {
  for (const id of (shown.get(tabId) || []).slice(0, MAX_FRAMES)) {
    let r;
    try { r = await callFrame(tabId, id, 'locate', { target, command }); } catch { continue; }
    if (r?.ok) return r;
  }
  return null;
}

// fill_form's field described in words that no field of the page matches: when it matches one in
// a frame of another site (a card number in a payment frame), the error says so and names its ref,
// as actAnywhere's does for one action (it said only "No field matches").
async function fieldInFrames(tabId, first) {
  const { failedTarget, ...rest } = first;
  const r = await locateInFrames(tabId, failedTarget, 'type');
  if (!r) return rest;
  const error = first.error.replace(/ (Filled before it: .*|Nothing was filled before it\.)$/, (m) =>
    ` It matches only ${r.desc} inside an iframe of ${r.origin}: fields inside another site's frame need their ref (use ${refIn(r.desc)}), not a description.${m}`);
  return { ...rest, code: 'cross_origin_frame', error };
}

// fill_form whose fields are refs in more than one document (a checkout form around a payment
// provider's card frames): each run of fields filled in the frame that holds it, in the order
// given, each frame's fields named with its origin; a run that fails ends it, saying what was
// filled before (the whole form went to each frame in turn, which failed at the first field it
// did not hold: "ref e7 is no longer on the page"). null: the top frame holds them all (or no
// frame holds those it does not: its answer says which).
async function fillInFrames(tabId, args) {
  const fields = Array.isArray(args.params?.fields) ? args.params.fields : [];
  const refs = [...new Set(fields.map((f) => String(f?.target ?? '').trim()).filter(isRef))];
  if (fields.length < 2 || !refs.length) return null;
  let top;
  try { top = await callContent(tabId, 'holds', { refs }); } catch { return null; }
  const missing = refs.filter((r) => !top?.refs?.includes(r));
  if (!top?.ok || !missing.length) return null;
  let frames;
  try { frames = (await chrome.webNavigation.getAllFrames({ tabId })).filter((f) => f.frameId > 0).slice(0, MAX_FRAMES); } catch { return null; }
  const where = new Map(); // ref -> the frame that holds it
  for (const f of frames) {
    const ask = missing.filter((r) => !where.has(r));
    if (!ask.length) break;
    let r;
    try { r = await callFrame(tabId, f.frameId, 'holds', { refs: ask }); } catch { continue; }
    for (const x of r?.refs || []) where.set(x, f);
  }
  if (!where.size) return null;
  const runs = [];
  for (const f of fields) {
    const frame = where.get(String(f?.target ?? '').trim()) || null;
    const last = runs[runs.length - 1];
    if (last && last.frame === frame) last.fields.push(f); else runs.push({ frame, fields: [f] });
  }
  const filled = [];
  let offset = 0;
  for (const run of runs) {
    const a = { ...args, params: { ...args.params, fields: run.fields, offset, total: fields.length, before: filled } };
    const r = run.frame ? await callFrame(tabId, run.frame.frameId, 'act', a) : await callContent(tabId, 'act', a);
    if (!r.ok) return r;
    const origin = run.frame ? originOf(run.frame.url) ?? 'null' : null;
    for (const d of r.filled || []) filled.push(origin ? `${d} (in an iframe of ${origin})` : d);
    offset += run.fields.length;
  }
  return { ok: true, message: `Filled ${filled.length} field${filled.length === 1 ? '' : 's'}: ${filled.join(', ')}` };
}

// A key pressed with no target while the keyboard focus is in a cross-origin frame: pressed by the
// frame that has the focus (document.hasFocus()), else by the one frame whose document has a
// focused element; none or several: an error asking for a target (it was pressed on the <iframe>
// and said done).
async function keyInFrame(tabId, args) {
  let ids = [];
  try { ids = (await chrome.webNavigation.getAllFrames({ tabId })).map((f) => f.frameId).filter((id) => id > 0); } catch { /* tab gone */ }
  const states = [];
  for (const id of ids.slice(0, MAX_FRAMES)) {
    try { const s = await callFrame(tabId, id, 'focusState'); if (s?.ok) states.push({ id, ...s }); } catch { /* not scriptable */ }
  }
  const has = states.filter((s) => s.has && s.active);
  const active = states.filter((s) => s.active);
  const pick = has.length === 1 ? has[0] : active.length === 1 ? active[0] : null;
  if (pick) return callFrame(tabId, pick.id, 'act', args);
  return { ok: false, code: 'focus_in_frame', error: 'The keyboard focus is inside a frame of another site, and which of its fields has it is not known; nothing was pressed. Press the key with a target inside that frame (its ref)' };
}

// Whether a cross-origin frame of the tab (every level, as the page's Markdown shows them) shows
// the text or matches the selector: wait_for looks there too (it looked in the top frame only, and
// said "gone" of a text a payment frame still showed). Frames that do not answer show nothing.
export async function presentInFrames(tabId, params) {
  let all = [];
  try { all = await chrome.webNavigation.getAllFrames({ tabId }) || []; } catch { return false; }
  const ids = [];
  const walk = (id, depth) => {
    for (const f of unreadable(all, id)) {
      ids.push(f.frameId);
      if (depth < MAX_DEPTH) walk(f.frameId, depth + 1);
    }
  };
  walk(0, 1);
  for (const id of ids.slice(0, MAX_FRAMES)) {
    try { if ((await callFrame(tabId, id, 'check', params))?.present) return true; } catch { /* gone, or not scriptable */ }
  }
  return false;
}

// A tab went away: forget its frames.
export function forgetTab(tabId) {
  shown.delete(tabId);
}
