// Live state fed by GET /api/events (see events.js): browsers, tool calls, captured pages.
// Views subscribe and re-render the parts they show.
//
// Memory stays bounded under any stream of events: at most MAX_CALLS calls and MAX_PAGES pages
// are kept; a new call pushes the oldest one out. Older calls come back from GET /api/commands
// on request ("Load more" in the live view), but never beyond MAX_CALLS.

export const MAX_CALLS = 500;
export const MAX_PAGES = 100;
export const MAX_GONE_BROWSERS = 20; // disconnected browsers still listed (the newest gone)

export const state = {
  sse: 'connecting', // connecting | open | reconnecting | closed
  version: null,
  callsInFlight: 0,
  /** client_id → {client_id, browser, browser_version, extension_version, capabilities,
   *  connected_at, last_seen, tabs, connected: bool, disconnected_at} */
  browsers: new Map(),
  /** newest first */
  calls: [],
  callsById: new Map(),
  /** true once GET /api/commands said there is nothing older than the oldest call held */
  callsExhausted: false,
  /** newest first: {id, captured_at, client_id, tab_id, request_id, url, title, bytes} */
  pages: [],
};

const listeners = new Set();
let pending = null;

/** fn(kinds: Set<'browsers'|'calls'|'pages'|'sse'>) — batched per animation frame. */
export function subscribe(fn) {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

export function notify(kind) {
  if (!pending) {
    pending = new Set();
    const flush = () => {
      const kinds = pending;
      pending = null;
      for (const fn of [...listeners]) fn(kinds);
    };
    if (document.hidden) setTimeout(flush, 50);
    else requestAnimationFrame(flush);
  }
  pending.add(kind);
}

export function tabId(tab) {
  return tab.tab_id ?? tab.tabId ?? tab.id;
}

export function setBrowsers(list, { replace = true } = {}) {
  const seen = new Set();
  for (const b of list || []) {
    if (!b || !b.client_id) continue;
    seen.add(b.client_id);
    const old = state.browsers.get(b.client_id) || {};
    state.browsers.set(b.client_id, { ...old, ...b, connected: true, disconnected_at: null });
  }
  if (replace) {
    for (const [id, b] of state.browsers) {
      if (!seen.has(id) && b.connected) {
        state.browsers.set(id, { ...b, connected: false, disconnected_at: new Date().toISOString() });
      }
    }
  }
  forgetGoneBrowsers();
  notify('browsers');
}

export function browserEvent(d) {
  if (!d || !d.client_id) return;
  const old = state.browsers.get(d.client_id) || { client_id: d.client_id, tabs: [] };
  const next = { ...old };
  if (d.browser) next.browser = d.browser;
  if (Array.isArray(d.tabs)) next.tabs = d.tabs;
  for (const k of ['browser_version', 'extension_version', 'capabilities', 'connected_at', 'last_seen']) {
    if (d[k] !== undefined) next[k] = d[k];
  }
  if (d.event === 'connected') {
    next.connected = true;
    next.disconnected_at = null;
    next.connected_at = d.connected_at || new Date().toISOString();
  } else if (d.event === 'disconnected') {
    next.connected = false;
    next.disconnected_at = new Date().toISOString();
  } else {
    next.connected = old.connected ?? true;
    next.last_seen = new Date().toISOString();
  }
  state.browsers.set(d.client_id, next);
  forgetGoneBrowsers();
  notify('browsers');
}

/** Keeps the browsers map bounded when many clients come and go: drops the longest gone. */
function forgetGoneBrowsers() {
  const gone = [...state.browsers.values()].filter((b) => !b.connected);
  if (gone.length <= MAX_GONE_BROWSERS) return;
  gone.sort((a, b) => String(a.disconnected_at).localeCompare(String(b.disconnected_at)));
  for (const b of gone.slice(0, gone.length - MAX_GONE_BROWSERS)) state.browsers.delete(b.client_id);
}

export function connectedBrowsers() {
  return [...state.browsers.values()].filter((b) => b.connected);
}

function upsertCall(id, patch, { front = true } = {}) {
  let call = state.callsById.get(id);
  if (!call) {
    call = { request_id: id, status: 'running', _t0: Date.now() };
    state.callsById.set(id, call);
    if (front) state.calls.unshift(call);
    else state.calls.push(call);
    while (state.calls.length > MAX_CALLS) {
      state.callsById.delete(state.calls.pop().request_id);
      state.callsExhausted = false; // the call pushed out is still in the log
    }
  }
  Object.assign(call, patch);
  notify('calls');
  return call;
}

export function callStart(d) {
  if (!d || !d.request_id) return;
  state.callsInFlight += 1;
  upsertCall(d.request_id, { ...d, status: 'running', _t0: Date.now() });
}

export function callEnd(d) {
  if (!d || !d.request_id) return;
  state.callsInFlight = Math.max(0, state.callsInFlight - 1);
  const existing = state.callsById.get(d.request_id);
  upsertCall(d.request_id, { ...d, status: d.status || 'error', _ended: Date.now(), _started: existing?._t0 });
}

/**
 * Calls from GET /api/commands (older, appended after what SSE already delivered). A call
 * already held only learns its log id (the paging cursor). Older calls are not taken once
 * MAX_CALLS are held (they would push out newer ones). Returns how many were added.
 */
export function backfillCalls(list) {
  let added = 0;
  for (const c of list) {
    if (!c || typeof c !== 'object') continue;
    const id = c.request_id || c.requestId || c.id;
    if (!id) continue;
    const known = state.callsById.get(String(id));
    if (known) {
      if (known._dbId === undefined && Number.isSafeInteger(c.id)) known._dbId = c.id;
      continue;
    }
    if (state.calls.length >= MAX_CALLS) break;
    upsertCall(String(id), normaliseLoggedCall(c), { front: false });
    added += 1;
  }
  return added;
}

/** The smallest log id among the calls held (GET /api/commands?before=), or null. */
export function oldestCallId() {
  let min = null;
  for (const c of state.calls) {
    if (Number.isSafeInteger(c._dbId) && (min === null || c._dbId < min)) min = c._dbId;
  }
  return min;
}

export function setCallsExhausted(v) {
  if (state.callsExhausted !== v) {
    state.callsExhausted = v;
    notify('calls');
  }
}

function normaliseLoggedCall(c) {
  let params = c.params ?? c.parameters ?? c.params_json ?? null;
  if (typeof params === 'string') {
    try {
      params = JSON.parse(params);
    } catch {
      /* keep the string */
    }
  }
  return {
    tool: c.tool || c.name || c.command,
    params,
    client_id: c.client_id,
    started_at: c.started_at || c.created_at || c.at,
    status: c.status || (c.finished_at || c.ended_at ? 'success' : 'running'),
    http_status: c.http_status,
    summary: c.summary || c.error || c.message,
    duration_ms: c.duration_ms ?? c.duration,
    history_id: c.history_id ?? c.page_id,
    _t0: Date.parse(c.started_at || c.created_at || '') || Date.now(),
    _dbId: Number.isSafeInteger(c.id) ? c.id : undefined,
    _backfilled: true,
  };
}

export function pageEvent(p) {
  if (!p || p.id === undefined) return;
  if (state.pages.some((x) => x.id === p.id)) return;
  state.pages.unshift(p);
  state.pages.sort((a, b) => b.id - a.id);
  if (state.pages.length > MAX_PAGES) state.pages.length = MAX_PAGES;
  if (p.request_id && state.callsById.has(p.request_id)) {
    const call = state.callsById.get(p.request_id);
    if (call.history_id === undefined) call.history_id = p.id;
    notify('calls');
  }
  notify('pages');
}

export function backfillPages(list) {
  for (const p of list) {
    if (p && p.id !== undefined && !state.pages.some((x) => x.id === p.id)) state.pages.push(p);
  }
  state.pages.sort((a, b) => b.id - a.id);
  if (state.pages.length > MAX_PAGES) state.pages.length = MAX_PAGES;
  notify('pages');
}

export function setSse(s) {
  if (state.sse !== s) {
    state.sse = s;
    notify('sse');
  }
}

// Agent sessions (issue 18): the daemon's list (the stream's hello) kept current by `session`
// events; the newest session events (created, approved, declined, revoked, expired) for the live view.
export const MAX_SESSION_EVENTS = 50;
state.sessions = new Map(); // id → {id, name, state, tabs, created_at, last_used_at, calls_in_flight, waiting_calls}
state.sessionEvents = []; // newest first: {event, id, name, at}

export function setSessions(list) {
  state.sessions.clear();
  for (const s of list || []) if (s && s.id) state.sessions.set(s.id, s);
  notify('sessions');
}

export function sessionEvent(d) {
  if (!d || !d.id) return;
  if (d.event === 'expired' || d.event === 'closed') state.sessions.delete(d.id);
  else state.sessions.set(d.id, { ...(state.sessions.get(d.id) || {}), ...d });
  if (d.event !== 'tabs') { // "tabs": only its tab list changed
    state.sessionEvents.unshift({ event: d.event, id: d.id, name: d.name, at: new Date().toISOString() });
    state.sessionEvents.length = Math.min(state.sessionEvents.length, MAX_SESSION_EVENTS);
  }
  notify('sessions');
}
