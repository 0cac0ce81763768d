// Commands from the daemon: act, settle, answer with command_result and (when
// wait_for_page_info) a pageInfoUpdate for the same requestId.
import { send } from './connection.js';
import { callContent, PageError } from './content-bridge.js';
import { fillFrames, actAnywhere } from './frames.js';
import { MAX_PAGE_CHARS } from '../shared/limits.js';
import { NavTracker, settleAfterAction, waitLoaded, waitTabComplete, quiet } from './settle.js';
import { listTabs, resolveTab, tabInfo, reportTabsSoon } from './tabs.js';
import { setLastCommand } from './state.js';

export const CAPABILITIES = ['open_url', 'click', 'type', 'press_key', 'scroll', 'select_option', 'back', 'forward',
  'reload', 'get_page', 'list_tabs', 'switch_tab', 'close_tab', 'screenshot', 'wait_for'];

const PAGE_ACTIONS = new Set(['click', 'type', 'press_key', 'scroll', 'select_option']);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

class CommandError extends Error {}

// One command at a time per tab: settling two actions on one page at once would mix them up.
const tabQueues = new Map();
function serialize(key, fn) {
  const prev = tabQueues.get(key) || Promise.resolve();
  const next = prev.catch(() => {}).then(fn);
  tabQueues.set(key, next);
  next.finally(() => { if (tabQueues.get(key) === next) tabQueues.delete(key); });
  return next;
}

function isScriptableUrl(url) {
  return /^(https?|file|ftp):/i.test(url || '');
}

export async function pageInfo(tabId, requestId) {
  let tab;
  try { tab = await chrome.tabs.get(tabId); } catch { tab = null; }
  const base = { tabId, url: tab?.url || '', title: tab?.title || '' };
  if (requestId) base.requestId = requestId;
  if (!tab) return { ...base, markdown: `(tab ${tabId} is closed)`, truncated: false };
  if (!isScriptableUrl(tab.url)) {
    return { ...base, markdown: `(this page, ${tab.url || 'an empty tab'}, is a browser page that extensions cannot read)`, truncated: false };
  }
  // A load still in progress (e.g. get_page right after the user clicked): wait for it, briefly.
  if (tab.status === 'loading') await waitTabComplete(tabId, Date.now() + 10_000);
  let snap;
  for (let i = 0; i < 3; i++) {
    try {
      snap = await callContent(tabId, 'snapshot', {});
      if (snap.ok) break;
    } catch (e) {
      snap = { ok: false, error: e.message };
      if (/no access|cannot be read/.test(e.message)) break;
    }
    await sleep(300);
  }
  if (!snap?.ok) return { ...base, markdown: `(the page could not be read: ${snap?.error || 'unknown error'})`, truncated: false };
  const f = await fillFrames(tabId, snap, MAX_PAGE_CHARS);
  return { ...base, url: snap.url || base.url, title: snap.title ?? base.title, markdown: f.markdown, truncated: !!(snap.truncated || f.truncated) };
}

function pngSize(b64) {
  const bin = atob(b64.slice(0, 44));
  const u32 = (o) => ((bin.charCodeAt(o) << 24) | (bin.charCodeAt(o + 1) << 16) | (bin.charCodeAt(o + 2) << 8) | bin.charCodeAt(o + 3)) >>> 0;
  if (bin.slice(1, 4) !== 'PNG') return { width: 0, height: 0 };
  return { width: u32(16), height: u32(20) };
}

async function capture(windowId) {
  for (let i = 0; ; i++) {
    try {
      return await chrome.tabs.captureVisibleTab(windowId, { format: 'png' });
    } catch (e) {
      // At most 2 captures per second: wait and retry.
      if (i < 4 && /MAX_CAPTURE_VISIBLE_TAB_CALLS_PER_SECOND|quota/i.test(e.message)) { await sleep(600); continue; }
      if (/permission|activeTab|<all_urls>/i.test(e.message)) throw new CommandError(`cannot take a screenshot without site access: open the extension options and click "Allow on all sites" (${e.message})`);
      throw new CommandError(`screenshot failed: ${e.message}`);
    }
  }
}

function validUrl(u) {
  if (typeof u !== 'string' || !u.trim()) throw new CommandError('url is required');
  let s = u.trim();
  if (!/^[a-z][a-z0-9+.-]*:/i.test(s)) s = (/^(localhost|127\.|\[::1\])/.test(s) ? 'http://' : 'https://') + s;
  let parsed;
  try { parsed = new URL(s); } catch { throw new CommandError(`not a valid URL: ${u}`); }
  if (!/^(https?|file|ftp):$/.test(parsed.protocol) && parsed.href !== 'about:blank') {
    throw new CommandError(`only http, https and file URLs can be opened (got ${parsed.protocol})`);
  }
  return parsed.href;
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

// Returns { message, result, pageTabId } or throws.
async function execute(cmd) {
  const c = cmd.command;
  const needsPage = cmd.wait_for_page_info !== false;

  if (c === 'list_tabs') {
    const tabs = await listTabs();
    const active = (await resolveTab(null).catch(() => null))?.id;
    return { message: `${tabs.length} tab${tabs.length === 1 ? '' : 's'} open`, result: { tabs }, pageTabId: active };
  }

  if (c === 'open_url') {
    const url = validUrl(cmd.url);
    if (cmd.new_tab) {
      const base = await resolveTab(null).catch(() => null);
      const tab = await chrome.tabs.create({ url, active: true, ...(base ? { windowId: base.windowId } : {}) });
      await waitTabComplete(tab.id, Date.now() + 20_000);
      if (needsPage) await quiet(tab.id);
      return { message: `Opened ${url} in a new tab (${tab.id})`, result: { tabId: tab.id }, pageTabId: tab.id };
    }
    const tab = await resolveTab(cmd.tabId);
    const tracker = new NavTracker(tab.id);
    try {
      await chrome.tabs.update(tab.id, { url });
      const deadline = Date.now() + 20_000;
      const t0 = Date.now();
      while (!tracker.started && !tracker.sameDoc && Date.now() - t0 < 2000) await tracker.changed(200);
      if (tracker.started) await waitLoaded(tracker, deadline);
      else await waitTabComplete(tab.id, deadline);
      if (tracker.error && tracker.error !== 'net::ERR_ABORTED') {
        return { message: `Opened ${url} but loading failed: ${tracker.error}`, result: { tabId: tab.id }, pageTabId: tab.id, warn: tracker.error };
      }
    } finally { tracker.stop(); }
    if (needsPage) await quiet(tab.id);
    return { message: `Opened ${url}`, result: { tabId: tab.id }, pageTabId: tab.id };
  }

  if (c === 'switch_tab') {
    if (cmd.tabId == null) throw new CommandError('switch_tab needs tab_id (list_tabs shows the open tabs)');
    const tab = await resolveTab(cmd.tabId);
    await chrome.tabs.update(tab.id, { active: true });
    try { await chrome.windows.update(tab.windowId, { focused: true }); } catch { /* headless */ }
    reportTabsSoon(0);
    return { message: `Switched to tab ${tab.id} (${tab.title || tab.url})`, result: { tabId: tab.id }, pageTabId: tab.id };
  }

  if (c === 'close_tab') {
    const tab = await resolveTab(cmd.tabId);
    const all = await chrome.tabs.query({});
    if (all.length <= 1) {
      // closing the last tab would end the browser (and the extension with it)
      await chrome.tabs.create({ url: 'about:blank', active: true, windowId: tab.windowId });
    }
    await chrome.tabs.remove(tab.id);
    await sleep(100);
    const now = await resolveTab(null).catch(() => null);
    return { message: `Closed tab ${tab.id} (${tab.title || tab.url})`, result: { tabId: tab.id, activeTabId: now?.id ?? null }, pageTabId: now?.id };
  }

  const tab = await resolveTab(cmd.tabId);

  if (c === 'get_page') {
    return { message: `Got the page ${tab.url}`, result: { tabId: tab.id }, pageTabId: tab.id, alwaysPage: true };
  }

  if (c === 'screenshot') {
    if (!tab.active) {
      await chrome.tabs.update(tab.id, { active: true });
      await sleep(150);
    }
    const dataUrl = await capture(tab.windowId);
    const data = dataUrl.replace(/^data:image\/png;base64,/, '');
    const { width, height } = pngSize(data);
    return { message: `Screenshot of tab ${tab.id} (${width}×${height})`, result: { mimeType: 'image/png', data, width, height, tabId: tab.id }, pageTabId: tab.id };
  }

  if (c === 'back' || c === 'forward' || c === 'reload') {
    const tracker = new NavTracker(tab.id);
    try {
      if (c === 'reload') await chrome.tabs.reload(tab.id);
      else await historyGo(tab, c === 'back' ? -1 : 1);
      const pageTabId = await settleAfterAction(tracker, { navWindowMs: 1500 });
      const t = await chrome.tabs.get(pageTabId).catch(() => null);
      return { message: `${c === 'reload' ? 'Reloaded' : c === 'back' ? 'Went back to' : 'Went forward to'} ${t?.url || ''}`.trim(), result: { tabId: pageTabId }, pageTabId };
    } finally { tracker.stop(); }
  }

  if (c === 'wait_for') {
    const { text, selector } = cmd;
    if (!text && !selector) throw new CommandError('wait_for needs text or selector');
    const state = (cmd.state || 'visible').toLowerCase();
    if (state !== 'visible' && state !== 'hidden') throw new CommandError('state must be "visible" or "hidden"');
    // How long to wait: `wait_ms` (the daemon's tool parameter), else `timeout_ms`
    // (docs/protocol.md; it doubles as the call's own timeout, so leave the daemon a
    // margin to receive the answer and the page before it gives up), else 10 s.
    const margin = (t) => Math.max(100, t - Math.min(2000, Math.max(400, t * 0.2)));
    let timeout, budget;
    if (Number(cmd.wait_ms) >= 0 && cmd.wait_ms != null) {
      timeout = Math.min(600_000, Number(cmd.wait_ms));
      budget = Number(cmd.timeout_ms) > 0 ? Math.min(timeout, margin(Number(cmd.timeout_ms))) : timeout;
    } else {
      timeout = Math.min(600_000, Number(cmd.timeout_ms) > 0 ? Number(cmd.timeout_ms) : 10_000);
      budget = Number(cmd.timeout_ms) > 0 ? margin(timeout) : timeout;
    }
    const deadline = Date.now() + budget;
    const what = text ? `text ${JSON.stringify(text)}` : `selector ${JSON.stringify(selector)}`;
    for (;;) {
      let present = null;
      try {
        const r = await callContent(tab.id, 'check', { text, selector });
        if (!r.ok) throw new CommandError(r.error);
        present = r.present;
      } catch (e) {
        if (e instanceof CommandError) throw e;
        if (/no access|cannot be read/.test(e.message)) throw new CommandError(e.message);
        present = null; // navigating; try again
      }
      if (present !== null && present === (state === 'visible')) {
        return { message: `${what} is ${state === 'visible' ? 'on the page' : 'gone'}`, result: { tabId: tab.id }, pageTabId: tab.id };
      }
      if (Date.now() >= deadline) throw new CommandError(`timed out after ${timeout} ms waiting for ${what} to ${state === 'visible' ? 'appear' : 'disappear'}`);
      await sleep(150);
    }
  }

  if (PAGE_ACTIONS.has(c)) {
    const params = { ...cmd };
    delete params.requestId; delete params.command; delete params.tabId; delete params.wait_for_page_info;
    const tracker = new NavTracker(tab.id);
    try {
      const r = await actAnywhere(tab.id, { command: c, params });
      if (!r.ok) {
        const err = new CommandError(r.error);
        err.pageTabId = tab.id;
        throw err;
      }
      let pageTabId = tab.id;
      if (needsPage) {
        pageTabId = await settleAfterAction(tracker);
      } else {
        await sleep(50);
      }
      // A target=_blank link that the popup blocker swallowed: open it ourselves.
      if (r.newTabUrl && tracker.newTabId == null && !tracker.started) {
        const nt = await chrome.tabs.create({ url: r.newTabUrl, active: true, openerTabId: tab.id, windowId: tab.windowId });
        await waitTabComplete(nt.id, Date.now() + 20_000);
        await quiet(nt.id);
        pageTabId = nt.id;
      }
      const result = { tabId: pageTabId };
      let message = r.message;
      if (pageTabId !== tab.id) message += `; it opened tab ${pageTabId}`;
      return { message, result, pageTabId };
    } finally { tracker.stop(); }
  }

  throw new CommandError(`unknown command "${c}" (supported: ${CAPABILITIES.join(', ')})`);
}

export async function handleCommand(cmd) {
  const requestId = cmd.requestId;
  if (typeof requestId !== 'string') return;
  const started = Date.now();
  const key = cmd.tabId != null ? `tab:${cmd.tabId}` : ['open_url', 'list_tabs', 'switch_tab'].includes(cmd.command) ? `misc:${requestId}` : 'active';
  await serialize(key, async () => {
    await setLastCommand({ requestId, command: cmd.command, params: summarize(cmd), status: 'running', at: started });
    const wantPage = cmd.wait_for_page_info !== false;
    let out;
    try {
      out = await execute(cmd);
      send('command_result', { requestId, status: 'success', message: out.message, ...(out.result ? { result: out.result } : {}) });
      if ((wantPage || out.alwaysPage) && out.pageTabId != null) {
        send('pageInfoUpdate', await pageInfo(out.pageTabId, requestId));
      } else if (wantPage) {
        send('pageInfoUpdate', { requestId, tabId: -1, url: '', title: '', markdown: '(no tab)', truncated: false });
      }
      await setLastCommand({ requestId, command: cmd.command, params: summarize(cmd), status: 'success', message: out.message, at: started, ms: Date.now() - started });
    } catch (e) {
      const msg = e && e.message ? e.message : String(e);
      send('command_result', { requestId, status: 'error', message: `${cmd.command} failed`, error: msg });
      // The page too (the daemon waits for it; it shows the agent what is there).
      if (wantPage) {
        let tabId = e.pageTabId;
        if (tabId == null) tabId = (await resolveTab(cmd.tabId).catch(() => null))?.id;
        if (tabId != null) send('pageInfoUpdate', await pageInfo(tabId, requestId));
        else send('pageInfoUpdate', { requestId, tabId: -1, url: '', title: '', markdown: '(no tab)', truncated: false });
      }
      await setLastCommand({ requestId, command: cmd.command, params: summarize(cmd), status: 'error', message: msg, at: started, ms: Date.now() - started });
    }
  });
}

function summarize(cmd) {
  const p = {};
  for (const [k, v] of Object.entries(cmd)) {
    if (['requestId', 'command'].includes(k)) continue;
    p[k] = k === 'text' && typeof v === 'string' ? (v.length > 40 ? v.slice(0, 39) + '…' : v) : v;
  }
  return p;
}

export { PageError };
