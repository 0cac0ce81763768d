// Handlers of the navigation commands: open_url, back, forward, reload (see handlers.js).
import { withoutPasswords } from './page.js';
import { callContent } from './content-bridge.js';
import { settleAfterAction, waitLoaded, waitTabComplete, expectLoad, pageReport, loadSettle, settleNotes } from './settle.js';
import { NavTracker, tabNavError } from './nav-tracker.js';
import { resolveTab } from './tabs.js';
import { refusal, isScriptableUrl } from './url-policy.js';
import { ensurePageScripts, hasPageScripts } from './page-scripts.js';
import { CommandError, navError, noPageError, upper } from './errors.js';
import { lastBeforeunload, onBeforeunload } from './dialogs.js';
import { createDrivenTab } from './driven.js';

function validUrl(u) {
  if (typeof u !== 'string' || !u.trim()) throw new CommandError('url is required');
  let s = u.trim();
  if (!/^[a-z][a-z0-9+.-]*:/i.test(s)) s = (/^(localhost|127\.|\[::1\])/.test(s) ? 'http://' : 'https://') + s;
  let parsed;
  try { parsed = new URL(s); } catch { throw new CommandError(`not a valid URL: ${u}`); }
  if (/^https?:$/.test(parsed.protocol) && /\s/.test(s)) throw new CommandError(`not a valid URL: ${u}`);
  const no = refusal(parsed.href);
  if (no) throw new CommandError(upper(no) + '.');
  return parsed.href;
}

const STAYED_MS = 300; // after the page being left answered "stay", a navigation not started by then is not coming

// Did the page being left answer "stay" to "Leave site?" since `since`? (The browser cancels the
// navigation then, unless the page had no user activation: it then asks nothing and goes on.)
function keptBy(tabId, since) {
  const d = lastBeforeunload(tabId);
  return !!d && !d.accepted && d.at >= since;
}

// The error for an open that brought no page into the tab, saying what the tab shows instead.
async function noPage(url, tabId, started, since) {
  const t = await chrome.tabs.get(tabId).catch(() => null);
  return noPageError(url, tabId, { started, shows: t ? t.url || '' : '', kept: !started && keptBy(tabId, since) });
}

export async function openUrl(cmd) {
  const needsPage = cmd.wait_for_page_info !== false;
  const url = validUrl(cmd.url);
  if (cmd.new_tab) {
    const base = await resolveTab(null).catch(() => null);
    const t0 = Date.now();
    const tab = await createDrivenTab({ url, active: true, ...(base ? { windowId: base.windowId } : {}) });
    // The page reports itself ready (settle.js, expectLoad); without a report, the tab's load.
    const exp = needsPage ? expectLoad(tab.id, t0) : null;
    const deadline = Date.now() + 20_000;
    const tracker = NavTracker.loading(tab.id, url);
    const report = exp ? await pageReport(exp, tracker, deadline).finally(() => tracker.stop()) : (tracker.stop(), null);
    if (!report || report.reason === 'navigation') await waitTabComplete(tab.id, deadline);
    const failed = tabNavError(tab.id);
    if (failed) { exp?.cancel(); throw navError(url, failed.error, tab.id); }
    // No page came (a download, a 204): the new tab is empty, or the browser closed it. Its
    // document's commit may come before the tracker exists, so the tab itself is looked at.
    // (A tab still loading its URL has not said so yet: its load is waited for first.)
    if (!tracker.committed && !/^about:/i.test(url)) {
      let now = await chrome.tabs.get(tab.id).catch(() => null);
      if (now && (now.status === 'loading' || now.pendingUrl)) { await waitTabComplete(tab.id, deadline); now = await chrome.tabs.get(tab.id).catch(() => null); }
      if (!now || /^(about:blank)?$/i.test(now.url || '')) {
        exp?.cancel();
        const e = noPageError(url, tab.id, { shows: now?.url || '' });
        e.result = { ...e.result, navEvents: tracker.events, pageReported: report ? report.reason || 'yes' : 'no' };
        throw e;
      }
    }
    const settle = exp ? await loadSettle(tab.id, exp, report, t0) : null;
    return { message: `Opened ${url} in a new tab (${tab.id})`, result: { tabId: tab.id, ...(settle ? { settle } : {}) }, pageTabId: tab.id, loaded: true };
  }
  // The tab named, when its page scripts are known to be there: no call to look it up first
  // (tabs.update fails alike for a tab that closed).
  const known = cmd.tabId != null && Number.isInteger(Number(cmd.tabId)) && hasPageScripts(Number(cmd.tabId));
  const tab = known ? { id: Number(cmd.tabId) } : await resolveTab(cmd.tabId);
  // A tab the browser just opened (the one it opens when the last tab of a window closed) still
  // loading its empty page: that load ends first, or it may cut the agent's navigation short
  // (CI: "Did not open …: the server sent no page" in such a tab).
  if (!known && tab.status === 'loading' && /^(about:blank)?$/i.test(tab.url || '') && /^(about:blank)?$/i.test(tab.pendingUrl || '')) {
    await waitTabComplete(tab.id, Date.now() + 1000);
  }
  const tracker = new NavTracker(tab.id);
  const t0 = Date.now();
  // The page being left may ask "Leave site?" (beforeunload): its page script answers.
  if (!known && isScriptableUrl(tab.url)) await ensurePageScripts(tab.id);
  // The new page reports itself ready (settle.js, expectLoad): no event of its load is waited
  // for then, and no call into it made. Without a report: its DOMContentLoaded, then quiet().
  const exp = needsPage ? expectLoad(tab.id, t0) : null;
  let report = null;
  // The page being left answering "stay": the navigation is not waited for its 2 s then.
  let stayedAt = 0;
  const stopStay = onBeforeunload(tab.id, (rec) => { if (!rec.accepted) { stayedAt = Date.now(); tracker.wake(); } });
  try {
    await chrome.tabs.update(tab.id, { url }).catch((e) => {
      throw /no tab/i.test(e?.message || '') ? new Error(`tab ${tab.id} does not exist (list_tabs shows the open tabs)`) : e;
    });
    const deadline = Date.now() + 20_000;
    const kept = () => stayedAt && Date.now() - stayedAt >= STAYED_MS;
    while (!tracker.started && !tracker.sameDoc && Date.now() - t0 < 2000 && !kept()) await tracker.changed(stayedAt ? STAYED_MS : 200);
    if (tracker.started && exp) report = await pageReport(exp, tracker, deadline);
    else if (tracker.started) await waitLoaded(tracker, deadline, 0);
    else await waitTabComplete(tab.id, deadline);
    const code = tracker.error && tracker.error !== 'net::ERR_ABORTED' ? tracker.error : !tracker.started ? tabNavError(tab.id)?.error : null;
    if (code) throw navError(url, code, tab.id);
    if (!tracker.committed && !tracker.sameDoc) {
      // (with the navigation's events, and whether the page reported: what an unexpected one
      // needs to be understood)
      const e = await noPage(url, tab.id, tracker.started, t0);
      e.result = { ...e.result, navEvents: tracker.events, pageReported: report ? report.reason || 'yes' : 'no' };
      throw e;
    }
  } catch (e) { exp?.cancel(); throw e; } finally { tracker.stop(); stopStay(); }
  const settle = exp ? await loadSettle(tab.id, exp, report, t0) : null;
  return { message: `Opened ${url}`, result: { tabId: tab.id, ...(settle ? { settle: { ...settle, waited_ms: Date.now() - t0 } } : {}) }, pageTabId: tab.id, loaded: true };
}

// back/forward: history.go() in the page, which (unlike chrome.tabs.goBack) does not
// skip entries that Chrome marks "skippable" because they were added without a user
// gesture — which is every entry an agent creates. tabs.goBack for pages we can't script.
async function historyGo(tab, delta) {
  const word = delta < 0 ? 'back' : 'forward';
  if (isScriptableUrl(tab.url)) {
    try {
      const r = await callContent(tab.id, 'history', { delta });
      if (r.ok) return;
    } catch { /* fall through */ }
  }
  const fn = delta < 0 ? chrome.tabs.goBack : chrome.tabs.goForward;
  await fn(tab.id).catch((e) => { throw new CommandError(`cannot go ${word}: ${e.message}`); });
}

// back, forward or reload: do it, settle, and fail with the net:: code if the page did not load.
async function historyMove(c, cmd) {
  const t0 = Date.now();
  const tab = await resolveTab(cmd.tabId);
  const tracker = new NavTracker(tab.id);
  if (isScriptableUrl(tab.url)) await ensurePageScripts(tab.id);
  try {
    if (c === 'reload') await chrome.tabs.reload(tab.id);
    else await historyGo(tab, c === 'back' ? -1 : 1);
    const { tabId: pageTabId, settle } = await settleAfterAction(tracker, { expectNav: true, navWindowMs: 1500 });
    const t = await chrome.tabs.get(pageTabId).catch(() => null);
    // Nothing moved: the page being left kept the tab ("Leave site?" answered "stay"), or there is
    // no page before (or after) this one in the tab's history.
    if (!tracker.started && !tracker.sameDoc && !tracker.committed && tracker.newTabId == null) {
      const verb = c === 'reload' ? 'reload' : `go ${c}`;
      const shows = t?.url || tab.url || 'the same page';
      if (keptBy(tab.id, t0)) throw new CommandError(`Did not ${verb}: the page kept the tab (it asked "Leave site?"); it still shows ${shows}`, { pageTabId });
      if (c !== 'reload') throw new CommandError(`Did not go ${c}: the tab has no ${c === 'back' ? 'earlier' : 'later'} page in its history; it still shows ${shows}.`, { pageTabId });
      throw new CommandError(`Did not reload: no navigation started; the tab still shows ${shows}.`, { pageTabId });
    }
    const failed = tabNavError(pageTabId);
    if (failed) throw navError(failed.url || t?.url || '', failed.error, pageTabId, c === 'reload' ? 'Reloaded' : c === 'back' ? 'Went back' : 'Went forward');
    return { message: `${c === 'reload' ? 'Reloaded' : c === 'back' ? 'Went back to' : 'Went forward to'} ${withoutPasswords(t?.url || '')}`.trim() + settleNotes(settle), result: { tabId: pageTabId, settle }, pageTabId, loaded: true };
  } finally { tracker.stop(); }
}

export const goBack = (cmd) => historyMove('back', cmd);
export const goForward = (cmd) => historyMove('forward', cmd);
export const reloadTab = (cmd) => historyMove('reload', cmd);
