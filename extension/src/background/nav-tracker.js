// The top-frame navigation events of each tab (chrome.webNavigation), and NavTracker, which
// watches one tab's from before an action: did a navigation start, did a document of it commit,
// has it loaded, did it fail. No other import: tests/integration/nav-tracker.test.mjs drives it
// with the event orders Chrome delivers. Runs in the service worker, like all of background/.

const trackers = new Set();

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
  chrome.webNavigation.onDOMContentLoaded.addListener((d) => dispatch('parsed', d));
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
    this.parsed = false;    // … and its document has been parsed (DOMContentLoaded)
    this.sameDoc = false;   // history.pushState / #fragment
    this.committed = false; // a document committed in the top frame since (a page came)
    this.lastEnd = 0;
    this.newTabId = null;
    this.error = null;
    this.docId = null;      // the top frame's document as last committed
    this.startUrl = undefined; // the URL of the navigation last seen to start
    this.wantUrl = null;    // the URL a tab just opened was opened with (loading())
    this.newDoc = null;     // the document it committed
    this.leftDocs = new Set(); // documents a later navigation of the top frame started to replace
    this.stopped = false;
    this.waiters = [];
    this.events = []; // the last events seen, for an answer that says no page came ({kind, url, ms})
    this.t0 = Date.now();
    trackers.add(this);
  }
  on(kind, d) {
    if (kind === 'tab') {
      if (d.openerTabId === this.tabId && this.newTabId == null) { this.newTabId = d.id; this.wake(); }
      return;
    }
    if (d.tabId !== this.tabId || d.frameId !== 0) return;
    // (the URL without its query and fragment: a redirect's may hold a one-time code)
    if (this.events.length < 16) this.events.push({ kind, url: String(d.url || '').replace(/[?#].*$/s, '').slice(0, 200), ...(d.error ? { error: d.error } : {}), ms: Date.now() - this.t0 });
    // Events of the document a started navigation replaces, or of the navigation it cut short
    // (a tab's initial about:blank, still loading when the agent's open began), can arrive
    // after that start: they say nothing of the new page, so they are not taken for its load.
    if (this.started && kind !== 'start' && this.stale(kind, d)) return;
    if (kind === 'start') {
      this.started = true; this.pending = true; this.parsed = false; this.error = null;
      this.startUrl = d.url || '';
      this.newDoc = null;
      if (this.docId) this.leftDocs.add(this.docId);
    } else if (kind === 'commit') {
      this.committed = true;
      if (typeof d.documentId === 'string') this.docId = this.newDoc = d.documentId;
    }
    else if (kind === 'parsed') this.parsed = true;
    else if (kind === 'done') { this.pending = false; this.lastEnd = Date.now(); }
    else if (kind === 'error') { this.pending = false; this.lastEnd = Date.now(); this.error = d.error; }
    else if (kind === 'same') { this.sameDoc = true; this.lastEnd = Date.now(); }
    this.wake();
  }
  // Is this event about an earlier navigation than the one this tracker saw start last? It is
  // about a document other than the one committed since (the page being left); or it commits
  // about:blank while a web page was asked for (a server cannot redirect to about:blank); or it is
  // the abort of another URL's navigation (the one this start replaced).
  stale(kind, d) {
    const blank = (u) => /^about:blank([?#]|$)/i.test(u || '');
    // A tab just opened (its start came before the tracker): the abort of its initial about:blank,
    // which the URL it was opened with replaces, is not that URL's failure (CI: "Did not open …:
    // the server sent no page" while the page was still loading).
    if (this.startUrl === undefined) return kind === 'error' && d.error === 'net::ERR_ABORTED' && blank(d.url) && !!this.wantUrl && !blank(this.wantUrl);
    const doc = typeof d.documentId === 'string' ? d.documentId : null;
    if ((kind === 'parsed' || kind === 'done' || kind === 'same') && doc && doc !== this.newDoc) return true;
    if (kind === 'commit' && blank(d.url) && !blank(this.startUrl)) { if (doc) this.leftDocs.add(doc); return true; }
    if (kind === 'error' && d.error === 'net::ERR_ABORTED' && this.startUrl && d.url && d.url !== this.startUrl) return true;
    return false;
  }
  wake() { const w = this.waiters; this.waiters = []; w.forEach((f) => f()); }
  changed(ms) { return new Promise((r) => { const t = setTimeout(r, ms); this.waiters.push(() => { clearTimeout(t); r(); }); }); }
  // Resolves 'moved' once a navigation starts or a tab opens (never when neither happens).
  moved() {
    return new Promise((r) => {
      const check = () => { if (this.started || this.newTabId != null) r('moved'); else this.waiters.push(check); };
      check();
    });
  }
  stop() { this.stopped = true; trackers.delete(this); this.wake(); }
  // A tracker for a tab whose navigation is already under way (a tab just opened), to `url` when
  // known.
  static loading(tabId, url = null) { const t = new NavTracker(tabId); t.started = true; t.pending = true; t.opened = true; t.wantUrl = url; return t; }
}
