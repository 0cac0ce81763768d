// Pages that say themselves when they are ready, instead of being asked (no hop after the load).
// A navigation the service worker waits for (open_url, an action that navigates) expects a new
// document in the tab's top frame (expectReady). That document's page script asks at its
// document_start whether it is awaited ('bb-page-start', which also brings the agent's dialog
// answer); the answer arms it: the content script is loaded into it, and it gets the settle
// options, the snapshot's arguments and a one-time token. Once ready (page/isolated.js: the same
// settle() the service worker would have run, from DOMContentLoaded on) it takes its snapshot
// and reports both ('bb-page-ready'), checked against the token, the tab, the top frame and the
// document that asked. A document that cannot run the page scripts (a browser page, an error
// page, a site without access) never asks: the caller falls back to asking the page itself.
import { refFloor } from './content-bridge.js';
import { dialogPolicy, dialogState } from './dialogs.js';

const expected = new Map(); // tabId -> Expectation

// One awaited document of a tab: who asked, and its report once it came.
class Expectation {
  constructor(tabId, opts, snap) {
    this.tabId = tabId;
    this.opts = opts;        // settle() options (page/settle.js)
    this.snap = snap;        // snapshot arguments, or null
    this.token = crypto.randomUUID();
    this.documentId = null;  // the document that asked and was armed
    this.report = null;      // its report
    this.loading = new Set(); // documents the content script was sent to
    this.waiters = [];
  }
  // Wake whoever waits on this expectation (a document asked, or reported).
  wake() { const w = this.waiters; this.waiters = []; w.forEach((f) => f()); }
  // Resolves at the next ask or report, or after `ms`.
  changed(ms) { return new Promise((r) => { const t = setTimeout(r, ms); this.waiters.push(() => { clearTimeout(t); r(); }); }); }
  // The document that asked is being replaced: await the next one that asks (a new token).
  rearm() { this.documentId = null; this.report = null; this.token = crypto.randomUUID(); }
  // No longer awaited: a document that asks from now on is not armed.
  cancel() { if (expected.get(this.tabId) === this) expected.delete(this.tabId); this.wake(); }
}

// Await the next document of the tab's top frame: it will report when ready, settled with `opts`
// and, when `snap` is given, with its snapshot taken with those arguments.
export function expectReady(tabId, opts, snap = null) {
  const e = new Expectation(tabId, opts, snap);
  expected.get(tabId)?.cancel();
  expected.set(tabId, e);
  return e;
}

// Load the content script into an awaited document as soon as it exists (its commit, or its ask
// when that came first), so that it is there when the page takes its snapshot. Never fails.
function preload(e, tabId, documentId) {
  if (!e.snap || e.loading.has(documentId)) return;
  e.loading.add(documentId);
  chrome.scripting.executeScript({ target: { tabId, documentIds: [documentId] }, files: ['content.js'] })
    .catch(() => { /* not scriptable, or gone: the page is read after */ });
}

// The answer to a frame's document_start ask: the dialog state (dialogs.js), and for a top frame
// the arming when that document is awaited.
async function pageStart(sender) {
  const tabId = sender.tab.id;
  const e = expected.get(tabId);
  // Not the empty document a new tab or window starts with (about:blank), which the page the
  // agent asked for replaces.
  const arm = !!e && !e.documentId && sender.frameId === 0 && typeof sender.documentId === 'string' && !/^about:/i.test(sender.url || '');
  if (arm) {
    e.documentId = sender.documentId;
    e.wake();
    preload(e, tabId, sender.documentId);
  }
  const out = await dialogState(tabId);
  if (!arm) return out;
  const floor = e.snap ? await refFloor() : 0;
  if (expected.get(tabId) !== e) return out; // cancelled meanwhile
  out.ready = { token: e.token, opts: e.opts, snap: e.snap, floor };
  return out;
}

// A document's report: taken when it is the armed document of its tab's expectation, with its token.
function pageReady(msg, sender) {
  const e = expected.get(sender.tab.id);
  if (!e || !e.documentId || e.report || sender.frameId !== 0 || sender.documentId !== e.documentId || msg.token !== e.token) return;
  const r = msg.result;
  if (!r || typeof r !== 'object' || typeof r.reason !== 'string') return;
  e.report = r;
  e.wake();
}

// Listener (top level, main.js) for the page scripts' ask and report.
export function installReadyListeners() {
  chrome.runtime.onMessage.addListener((msg, sender, reply) => {
    if (sender.id !== chrome.runtime.id || !sender.tab || typeof msg !== 'object' || !msg) return undefined;
    if (msg.type === 'bb-page-start') {
      pageStart(sender).then(reply, () => reply({ policy: dialogPolicy(sender.tab.id) }));
      return true;
    }
    if (msg.type === 'bb-page-ready') pageReady(msg, sender);
    return undefined;
  });
  chrome.webNavigation.onCommitted.addListener((d) => {
    const e = expected.get(d.tabId);
    if (e && !e.documentId && d.frameId === 0 && typeof d.documentId === 'string' && !/^about:/i.test(d.url || '')) preload(e, d.tabId, d.documentId);
  });
  chrome.tabs.onRemoved.addListener((id) => expected.get(id)?.cancel());
}
