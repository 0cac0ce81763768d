// Waiting for the page to settle after an action: a navigation it caused has
// loaded, or the action's own effects have settled (src/page/settle.js says when, in the page).
// The rules (extension/README.md, "Readiness and settling"):
//   - a navigation is decided from its signals (webNavigation for the tab, the page's
//     beforeunload/pagehide, a new tab), which arrive within milliseconds, not from a fixed window;
//   - an action that does not navigate returns once the DOM changes it caused have been quiet for
//     ACTION_QUIET_MS (ACTION_DRAINED_QUIET_MS once the page drew a frame and went idle since the
//     last one) and what it started (requests, timers, posted messages …) has ended, ignoring
//     nodes that kept changing before it (a clock);
//   - a page that loaded is returned when no script, module or stylesheet it references is still
//     loading, the custom elements it uses are defined and the DOM has been quiet for LOAD_QUIET_MS;
//   - each wait has a cap; the result says which ended it: result.settle = {waited_ms, reason}.
import { callContent, preloadContent, refFloor, offerSnapshot } from './content-bridge.js';
import { pageCharBudget } from './page.js';
import { ensurePageScripts } from './page-scripts.js';
import { expectReady } from './ready.js';
import { scriptsArrived } from './trusted.js';
import { NavTracker } from './nav-tracker.js';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

export const NAV_WINDOW_MS = 400;     // a navigation starting within this window counts as caused by the action
export const NAV_TIMEOUT_MS = 20_000; // give up waiting for a load after this
export const QUIET_MS = 250;          // the old rule, for pages the page scripts cannot run in
export const QUIET_CAP_MS = 3000;
export const ACTION_QUIET_MS = 20;    // an action's changes have settled after this long without one …
export const ACTION_DRAINED_QUIET_MS = 5; // … or this long, once the page drew a frame and went idle since the last
export const ACTION_CAP_MS = 3000;
export const LOAD_QUIET_MS = 20;      // a page that loaded has settled after this long without a change
export const LOAD_CAP_MS = 5000;
const NAV_CONFIRM_MS = 1000;          // the page said it unloads: the navigation's start is this close
const NAV_EXTERNAL_MS = 150;          // the same after a click on a link handed to another application (mailto:), which starts none
export const ACTION_SETTLE = { quietMs: ACTION_QUIET_MS, drainedQuietMs: ACTION_DRAINED_QUIET_MS, capMs: ACTION_CAP_MS };
const TAB_LOOK_MS = 500;              // waitTabComplete looks at the tab this often, in case an event was missed

async function tabStatus(tabId) {
  try { const t = await chrome.tabs.get(tabId); return t.status; } catch { return 'gone'; }
}

// Wait until the tab's navigation (if one is pending) has loaded, plus a short
// grace period for client-side redirects (`graceMs`; none is needed when the page scripts watch
// the new page: they see it unload). `parsed`: its document parsed is enough (the page scripts
// then wait for the rest of its load themselves, so that no round trip follows the load event).
export async function waitLoaded(tracker, deadline, graceMs = 150, { parsed = false } = {}) {
  let completeSeen = 0;
  while (Date.now() < deadline && !tracker.stopped) {
    if (parsed && tracker.pending && tracker.parsed) return true;
    if (!tracker.pending) {
      const left = graceMs - (Date.now() - tracker.lastEnd);
      if (left <= 0) return true;
      await tracker.changed(left);
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

// Wait for a tab (e.g. a freshly opened one) to finish loading: true once it has (its
// tabs.onUpdated event, or a look at the tab now and then in case an event was missed), false
// when it closed or at the deadline.
export function waitTabComplete(tabId, deadline) {
  const complete = (t) => {
    const url = t.url || t.pendingUrl || '';
    return t.status === 'complete' && !!url && !(url === 'about:blank' && t.pendingUrl);
  };
  return new Promise((resolve) => {
    let done = false;
    let timer = null;
    const finish = (v) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      chrome.tabs.onUpdated.removeListener(updated);
      chrome.tabs.onRemoved.removeListener(removed);
      resolve(v);
    };
    const updated = (id, info, t) => { if (id === tabId && t && complete(t)) finish(true); };
    const removed = (id) => { if (id === tabId) finish(false); };
    const look = () => {
      if (done) return;
      if (Date.now() >= deadline) return finish(false);
      chrome.tabs.get(tabId).then((t) => { if (complete(t)) finish(true); }, () => finish(false));
      timer = setTimeout(look, Math.min(TAB_LOOK_MS, Math.max(1, deadline - Date.now())));
    };
    chrome.tabs.onUpdated.addListener(updated);
    chrome.tabs.onRemoved.addListener(removed);
    look();
  });
}

// Ask the page to settle (src/page/settle.js); null when its page scripts cannot run there.
// `read`: the page is read next, so once settled (and not leaving) the content script, which
// shares the page scripts' isolated world, takes its snapshot in the same round trip
// (r.snapshot, for offer()).
// `toggle`: after a click, also what became of the control it aimed at (content/toggle.js).
async function pageSettle(tabId, opts, read = false, toggle = false) {
  if (!(await ensurePageScripts(tabId))) return null;
  const snapArgs = read ? { maxChars: pageCharBudget() } : null;
  const floor = read ? await refFloor() : 0;
  const run = () => chrome.scripting.executeScript({
    target: { tabId, frameIds: [0] },
    injectImmediately: true, // the page script waits for what it waits for; not for document_idle
    func: async (o, sa, fl, tg) => {
      if (!globalThis.__bbPage) return null;
      const r = await globalThis.__bbPage.settle(o);
      if (tg && r && r.reason !== 'navigation' && globalThis.__browserBridge) {
        try { const t = await globalThis.__browserBridge.run('toggled'); if (t?.toggled) r.toggled = t.toggled; } catch { /* not said */ }
      }
      if (sa && r && r.reason !== 'navigation' && globalThis.__browserBridge) {
        try { r.snapshot = await globalThis.__browserBridge.run('snapshot', sa, fl); } catch { /* read again */ }
      }
      return r;
    },
    args: [opts, snapArgs, floor, toggle],
  });
  let timer;
  const limit = new Promise((r) => { timer = setTimeout(() => r([{ result: { reason: 'cap', waited: opts.capMs, pending: { pageAnswer: true } } }]), opts.capMs + 2000); });
  try {
    const [res] = await Promise.race([run(), limit]);
    const r = res?.result || null;
    if (r?.snapshot) r.snapshot = { snap: r.snapshot, maxChars: snapArgs.maxChars };
    return r;
  } catch {
    return { reason: 'navigation', waited: 0 }; // the document went away under the call
  } finally { clearTimeout(timer); }
}

// Hand the snapshot a settle took to the read that follows (content-bridge.js); `loaded`: of a
// page that loaded and is complete.
function offer(tabId, r, loaded = false) {
  if (r && typeof r === 'object' && r.snapshot) offerSnapshot(tabId, r.snapshot.snap, r.snapshot.maxChars, loaded);
}

// A page that loads reports itself ready (ready.js) when its page scripts run there: the
// service worker then waits for no event of the load and makes no call into the page.
export function expectLoad(tabId, since) {
  return expectReady(tabId, { actionAt: since, quietMs: LOAD_QUIET_MS, capMs: LOAD_CAP_MS, ready: true }, { maxChars: pageCharBudget() });
}

// The report of the document `exp` awaits, in the tab `tracker` watches; null when none will
// come: no page script had asked by the time its document was parsed (a page they cannot run in:
// a browser page, an error page, a site without access), or the navigation failed. A document
// left before it was ready (a client-side redirect: the page said so, or the tracker saw the next
// navigation start) hands the wait on to its successor, up to 3 times; then, or when the
// navigation it started never replaces it (a 204, a download), {reason: 'navigation'}.
export async function pageReport(exp, tracker, deadline) {
  let loadedAt = 0;
  let moves = 0;
  let leftAt = 0;
  const watchLoad = () => {
    const gen = moves;
    const loaded = () => { if (gen === moves && !loadedAt) { loadedAt = Date.now(); exp.wake(); } };
    waitLoaded(tracker, deadline, 0, { parsed: true }).then(loaded);
    // A tab just opened: its first events may have come before the tracker; its load shows too.
    if (gen === 0 && tracker.opened) waitTabComplete(tracker.tabId, deadline).then(loaded);
  };
  watchLoad();
  for (;;) {
    if (tracker.error || tracker.stopped) return null;
    const left = exp.documentId && tracker.leftDocs.has(exp.documentId);
    if (left && moves < 3) {
      moves++;
      loadedAt = 0;
      leftAt = 0;
      exp.rearm();
      watchLoad();
      continue;
    }
    if (left) return { reason: 'navigation', waited: 0 };
    if (exp.report?.reason === 'navigation') {
      // Its navigation's start reaches the service worker within moments, or never.
      if (!leftAt) leftAt = Date.now();
      if (Date.now() - leftAt >= NAV_CONFIRM_MS) return exp.report;
      await tracker.changed(NAV_CONFIRM_MS - (Date.now() - leftAt));
      continue;
    }
    if (exp.report) return exp.report;
    if (loadedAt) {
      if (!exp.documentId) return null;
      // It asked: it reports within its cap from DOMContentLoaded (page/isolated.js).
      if (Date.now() - loadedAt >= exp.opts.capMs + 2000) return { reason: 'cap', waited: exp.opts.capMs, pending: { pageAnswer: true } };
    }
    await Promise.race([exp.changed(250), tracker.changed(250)]);
  }
}

// The settle info of a page that loaded, from its report (its snapshot handed to the read that
// follows); without one, or when it was left, by asking the page (quiet(): successors followed).
export async function loadSettle(tabId, exp, report, since) {
  exp.cancel();
  if (!report || report.reason === 'navigation') return quiet(tabId, { since });
  // Ready, but a script the page began to fetch is still arriving (a module it imports: trusted.js):
  // once it has, the page is waited for again, within the load's cap.
  if (report.reason === 'quiet') {
    const left = LOAD_CAP_MS - (Date.now() - since);
    if (left > 0 && await scriptsArrived(tabId, since, left)) return quiet(tabId, { since, capMs: Math.max(500, LOAD_CAP_MS - (Date.now() - since)) });
  }
  if (report.snapshot) report.snapshot = { snap: report.snapshot, maxChars: exp.snap.maxChars };
  offer(tabId, report, report.reason === 'quiet');
  return settleInfo(since, report);
}

const settleInfo = (t0, r) => ({ waited_ms: Date.now() - t0, reason: r?.reason || 'quiet', ...(r?.pending ? { pending: r.pending } : {}), ...(r?.invalid ? { invalid: r.invalid } : {}), ...(r?.toggled ? { toggled: r.toggled } : {}), ...(r?.flashed ? { flashed: r.flashed } : {}) });

// What an action's answer says of how its wait ended, beyond the page read: a notice the page
// showed and took away before it was read (a toast of under a second), and requests the action
// started still open at the cap (the page read may not show what they bring).
export function settleNotes(settled) {
  let out = '';
  if (Array.isArray(settled?.flashed) && settled.flashed.length) {
    out += `; the page showed ${settled.flashed.map((w) => JSON.stringify(w)).join(' and ')} and took ${settled.flashed.length > 1 ? 'them' : 'it'} away again before it was read`;
  }
  const n = settled?.reason === 'cap' ? settled.pending?.requests : 0;
  if (n) out += `; ${n === 1 ? 'a request' : `${n} requests`} it started ${n === 1 ? 'was' : 'were'} still under way after ${Math.round((settled.waited_ms || 0) / 1000)} s, so the page read may not show ${n === 1 ? 'its' : 'their'} outcome yet: wait for it (browser_wait_for) or get the page again`;
  return out;
}

// After an action in `tracker.tabId`: returns { tabId, settle } — the tab whose page should be
// sent, and how the wait ended. `actionAt`: when the action started (Date.now()). `expectNav`
// (back, forward, reload): a navigation is coming; give it `navWindowMs` to start. `toggle`: a
// click, whose control's state after it is then in settle.toggled (content/toggle.js).
export async function settleAfterAction(tracker, { actionAt = Date.now(), expectNav = false, navWindowMs = NAV_WINDOW_MS, external = false, toggle = false } = {}) {
  const t0 = actionAt;
  const deadline = Date.now() + NAV_TIMEOUT_MS;
  if (expectNav) {
    while (!tracker.started && !tracker.sameDoc && tracker.newTabId == null && Date.now() - t0 < navWindowMs) {
      await tracker.changed(navWindowMs - (Date.now() - t0));
    }
  }
  let r = null;
  if (!tracker.started && tracker.newTabId == null) {
    // Until the action's effects settle, or a navigation starts, whichever is first.
    const moved = tracker.moved();
    r = await Promise.race([pageSettle(tracker.tabId, { actionAt, ...ACTION_SETTLE }, true, toggle), moved]);
    // Settled, but a script the action made the page fetch is still arriving (a module it
    // imports: trusted.js): once it has, settle again (its effects come after), within the cap.
    for (let i = 0; i < 4 && r && r !== 'moved' && r.reason === 'quiet' && !tracker.started && tracker.newTabId == null; i++) {
      const left = ACTION_CAP_MS - (Date.now() - t0);
      if (left <= 0 || (await Promise.race([scriptsArrived(tracker.tabId, actionAt, left), moved])) !== true) break;
      r = await Promise.race([pageSettle(tracker.tabId, { actionAt, ...ACTION_SETTLE, capMs: Math.max(500, ACTION_CAP_MS - (Date.now() - t0)) }, true, toggle), moved]);
    }
    if (r === null) {
      // No page scripts there (a page the extension cannot script as it wants): the old rule.
      while (!tracker.started && tracker.newTabId == null && Date.now() - t0 < NAV_WINDOW_MS) await tracker.changed(NAV_WINDOW_MS - (Date.now() - t0));
      if (!tracker.started && tracker.newTabId == null) {
        try { await callContent(tracker.tabId, 'quiet', { quietMs: QUIET_MS, capMs: QUIET_CAP_MS }); } catch { /* navigation */ }
      }
      r = { reason: 'quiet' };
    } else if (r?.reason === 'navigation' && !tracker.started && tracker.newTabId == null) {
      // The page is unloading: the navigation's start follows within moments (or never: a
      // download, a 204, a navigation a beforeunload handler cancelled).
      // A click on a mailto: link unloads nothing, but the page is told it may (beforeunload):
      // the start of a navigation the page's own handler made is waited for, not a second.
      const t1 = Date.now();
      const confirmMs = external ? NAV_EXTERNAL_MS : NAV_CONFIRM_MS;
      while (!tracker.started && tracker.newTabId == null && Date.now() - t1 < confirmMs) await tracker.changed(confirmMs - (Date.now() - t1));
      if (!tracker.started && tracker.newTabId == null) {
        r = await pageSettle(tracker.tabId, { actionAt: Date.now(), ...ACTION_SETTLE }, true) || { reason: 'quiet' };
      }
    }
  }
  if (tracker.newTabId != null) {
    const id = tracker.newTabId;
    const exp = expectLoad(id, t0);
    const nt = NavTracker.loading(id);
    const report = await pageReport(exp, nt, deadline).finally(() => nt.stop());
    const q = await loadSettle(id, exp, report, t0);
    return { tabId: id, settle: { ...q, waited_ms: Date.now() - t0 } };
  }
  if (tracker.started) {
    const exp = expectLoad(tracker.tabId, t0);
    const report = await pageReport(exp, tracker, deadline);
    const q = await loadSettle(tracker.tabId, exp, report, t0);
    return { tabId: tracker.tabId, settle: { ...q, waited_ms: Date.now() - t0 } };
  }
  offer(tracker.tabId, r);
  return { tabId: tracker.tabId, settle: settleInfo(t0, r === 'moved' ? null : r) };
}

// A page that (re)loaded: wait until it is ready (see the rules above). `since`: when the
// navigation was asked for (DOM changes since then count; the page may be quiet already). A page
// that unloads meanwhile (a client-side redirect) is waited for, then its successor (3 at most).
// Returns the settle info.
export async function quiet(tabId, { capMs = LOAD_CAP_MS, since = Date.now() } = {}) {
  const t0 = Date.now();
  for (let i = 0; i < 3; i++) {
    const left = Math.max(500, capMs - (Date.now() - t0));
    const pre = preloadContent(tabId); // the page is read next
    const r = await pageSettle(tabId, { actionAt: since, quietMs: LOAD_QUIET_MS, capMs: left, ready: true }, true).catch(() => null);
    await pre;
    if (r && r.reason !== 'navigation') { offer(tabId, r); return settleInfo(t0, r); }
    if (!r) break;
    await sleep(50);
    await waitTabComplete(tabId, Date.now() + NAV_TIMEOUT_MS);
    since = Date.now();
  }
  try { await callContent(tabId, 'quiet', { quietMs: QUIET_MS, capMs: QUIET_CAP_MS }); } catch { /* not scriptable */ }
  return settleInfo(t0, { reason: 'quiet' });
}
