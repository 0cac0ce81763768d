// Waiting for the page to settle after an action: a navigation it caused has
// loaded, or the DOM has gone quiet.
import { callContent } from './content-bridge.js';

const trackers = new Set();
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

export const NAV_WINDOW_MS = 400;     // a navigation starting within this window counts as caused by the action
export const NAV_TIMEOUT_MS = 20_000; // give up waiting for a load after this
export const QUIET_MS = 250;
export const QUIET_CAP_MS = 3000;

// The last failed main-frame navigation of each tab ({error, url}), until the next one starts:
// a tab that shows Chrome's error page holds no page of the site, only this error.
const navErrors = new Map();

export function tabNavError(tabId) {
  return navErrors.get(tabId) || null;
}

export function forgetNavError(tabId) {
  navErrors.delete(tabId);
}

function dispatch(kind, d) {
  if (d && d.frameId === 0) {
    if (kind === 'start') navErrors.delete(d.tabId);
    else if (kind === 'error' && d.error && d.error !== 'net::ERR_ABORTED') navErrors.set(d.tabId, { error: d.error, url: d.url });
  }
  for (const t of trackers) t.on(kind, d);
}
// Registered at top level (see main.js) so the listeners exist whenever the worker runs.
export function installNavListeners() {
  chrome.webNavigation.onBeforeNavigate.addListener((d) => dispatch('start', d));
  chrome.webNavigation.onCommitted.addListener((d) => dispatch('commit', d));
  chrome.webNavigation.onCompleted.addListener((d) => dispatch('done', d));
  chrome.webNavigation.onErrorOccurred.addListener((d) => dispatch('error', d));
  chrome.webNavigation.onHistoryStateUpdated.addListener((d) => dispatch('same', d));
  chrome.webNavigation.onReferenceFragmentUpdated.addListener((d) => dispatch('same', d));
  chrome.tabs.onCreated.addListener((tab) => dispatch('tab', tab));
}

// Watches one tab's main frame (and tabs it opens) from before an action.
export class NavTracker {
  constructor(tabId) {
    this.tabId = tabId;
    this.started = false;   // a cross-document navigation started
    this.pending = false;   // … and has not finished
    this.sameDoc = false;   // history.pushState / #fragment
    this.lastEnd = 0;
    this.newTabId = null;
    this.error = null;
    this.waiters = [];
    trackers.add(this);
  }
  on(kind, d) {
    if (kind === 'tab') {
      if (d.openerTabId === this.tabId && this.newTabId == null) { this.newTabId = d.id; this.wake(); }
      return;
    }
    if (d.tabId !== this.tabId || d.frameId !== 0) return;
    if (kind === 'start') { this.started = true; this.pending = true; this.error = null; }
    else if (kind === 'done') { this.pending = false; this.lastEnd = Date.now(); }
    else if (kind === 'error') { this.pending = false; this.lastEnd = Date.now(); this.error = d.error; }
    else if (kind === 'same') { this.sameDoc = true; this.lastEnd = Date.now(); }
    this.wake();
  }
  wake() { const w = this.waiters; this.waiters = []; w.forEach((f) => f()); }
  changed(ms) { return new Promise((r) => { const t = setTimeout(r, ms); this.waiters.push(() => { clearTimeout(t); r(); }); }); }
  stop() { trackers.delete(this); this.wake(); }
}

async function tabStatus(tabId) {
  try { const t = await chrome.tabs.get(tabId); return t.status; } catch { return 'gone'; }
}

// Wait until the tab's navigation (if one is pending) has loaded, plus a short
// grace period for client-side redirects.
export async function waitLoaded(tracker, deadline) {
  let completeSeen = 0;
  while (Date.now() < deadline) {
    if (!tracker.pending) {
      if (Date.now() - tracker.lastEnd >= 150) return true;
      await tracker.changed(150);
      continue;
    }
    await tracker.changed(250);
    // Fallback for navigations that end without an event (e.g. 204, downloads).
    if (tracker.pending) {
      const st = await tabStatus(tracker.tabId);
      if (st === 'gone') return false;
      completeSeen = st === 'complete' ? completeSeen + 1 : 0;
      if (completeSeen >= 6) { tracker.pending = false; tracker.lastEnd = Date.now() - 150; }
    }
  }
  return false;
}

// Wait for a tab (e.g. a freshly opened one) to finish loading, by polling.
export async function waitTabComplete(tabId, deadline) {
  while (Date.now() < deadline) {
    let t;
    try { t = await chrome.tabs.get(tabId); } catch { return false; }
    const url = t.url || t.pendingUrl || '';
    if (t.status === 'complete' && url && !(url === 'about:blank' && t.pendingUrl)) return true;
    await sleep(100);
  }
  return false;
}

// After an action in `tracker.tabId`: returns the tab whose page should be sent.
export async function settleAfterAction(tracker, { navWindowMs = NAV_WINDOW_MS } = {}) {
  const deadline = Date.now() + NAV_TIMEOUT_MS;
  // 1. Give a navigation (or a new tab) a short window to start.
  const t0 = Date.now();
  while (!tracker.started && tracker.newTabId == null && Date.now() - t0 < navWindowMs) {
    await tracker.changed(navWindowMs - (Date.now() - t0));
  }
  if (tracker.newTabId != null) {
    const id = tracker.newTabId;
    await waitTabComplete(id, deadline);
    await quiet(id);
    return id;
  }
  // 2. No navigation yet: wait for the DOM to go quiet; a navigation may still start meanwhile.
  if (!tracker.started) {
    try { await callContent(tracker.tabId, 'quiet', { quietMs: QUIET_MS, capMs: QUIET_CAP_MS }); } catch { /* the page went away: navigation */ }
  }
  if (tracker.newTabId != null) {
    await waitTabComplete(tracker.newTabId, deadline);
    await quiet(tracker.newTabId);
    return tracker.newTabId;
  }
  if (tracker.started) {
    await waitLoaded(tracker, deadline);
    await quiet(tracker.tabId);
  }
  return tracker.tabId;
}

export async function quiet(tabId, capMs = QUIET_CAP_MS) {
  try { await callContent(tabId, 'quiet', { quietMs: QUIET_MS, capMs }); } catch { /* not scriptable */ }
}
