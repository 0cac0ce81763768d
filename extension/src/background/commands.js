// Commands from the daemon: act, settle, answer with command_result and (when
// wait_for_page_info) a pageInfoUpdate for the same requestId.
import { send } from './connection.js';
import { callContent, PageError } from './content-bridge.js';
import { fillFrames, actAnywhere } from './frames.js';
import { MAX_PAGE_CHARS } from '../shared/limits.js';
import { NavTracker, settleAfterAction, waitLoaded, waitTabComplete, quiet, tabNavError, NAV_WINDOW_MS } from './settle.js';
import { listTabs, resolveTab, reportTabsSoon } from './tabs.js';
import { setLastCommand } from './state.js';
import { refusal } from './url-policy.js';
import { ensurePageScripts } from './page-scripts.js';
import { setDialogPolicy, takeDialogs, dialogSentence } from './dialogs.js';
import { trustedAct } from './trusted.js';

export const CAPABILITIES = ['open_url', 'click', 'type', 'press_key', 'scroll', 'select_option', 'back', 'forward',
  'reload', 'get_page', 'list_tabs', 'switch_tab', 'close_tab', 'screenshot', 'wait_for', 'handle_dialog'];

const PAGE_ACTIONS = new Set(['click', 'type', 'press_key', 'scroll', 'select_option']);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// A failed command. `extra`: pageTabId (the tab whose page to send), noPage (send none: there is
// no true page to show, e.g. Chrome's error page), result (command data for the agent).
class CommandError extends Error {
  constructor(message, extra = {}) {
    super(message);
    Object.assign(this, extra);
  }
}

// What a net:: error means, in words, for the common ones.
const NET_WHY = {
  'net::ERR_CONNECTION_REFUSED': 'the connection was refused: nothing accepts connections at that address',
  'net::ERR_NAME_NOT_RESOLVED': 'the host name could not be resolved',
  'net::ERR_NAME_RESOLUTION_FAILED': 'the host name could not be resolved',
  'net::ERR_INTERNET_DISCONNECTED': 'the computer is offline',
  'net::ERR_CONNECTION_TIMED_OUT': 'the connection timed out',
  'net::ERR_TIMED_OUT': 'the request timed out',
  'net::ERR_CONNECTION_RESET': 'the connection was reset',
  'net::ERR_CONNECTION_CLOSED': 'the server closed the connection without an answer',
  'net::ERR_EMPTY_RESPONSE': 'the server closed the connection without an answer',
  'net::ERR_ADDRESS_UNREACHABLE': 'the address is unreachable',
  'net::ERR_FILE_NOT_FOUND': 'the file does not exist',
  'net::ERR_ACCESS_DENIED': 'access was denied',
  'net::ERR_TOO_MANY_REDIRECTS': 'the page redirects in a loop',
  'net::ERR_BLOCKED_BY_CLIENT': 'the browser blocked the request',
  'net::ERR_BLOCKED_BY_RESPONSE': 'the site does not allow the page to be shown this way',
  'net::ERR_UNSAFE_PORT': 'the browser does not connect to that port',
  'net::ERR_INVALID_URL': 'the URL is not valid',
};

function netSentence(url, code) {
  let why = NET_WHY[code];
  if (!why && /^net::ERR_(CERT|SSL)_/.test(code)) why = 'the site\'s certificate or TLS setup is not trusted';
  return `loading ${url} failed with ${code}${why ? ` (${why})` : ''}`;
}

const upper = (t) => t.charAt(0).toUpperCase() + t.slice(1);

// A navigation that failed: an error with the net:: code, and no page (the tab shows Chrome's
// error page, not the site).
function navError(url, code, tabId, before = '') {
  const s = netSentence(url, code);
  return new CommandError(before ? `${before}, but ${s}.` : `${upper(s)}.`, {
    noPage: true, pageTabId: tabId, result: { tabId, url, netError: code },
  });
}

// One command at a time per tab: settling two actions on one page at once would mix them up.
// Each tab has its own queue, so a page that stopped answering (a JavaScript dialog) holds up
// only the calls for that tab, and each of those for a bounded time (content-bridge.js).
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

// The page of a tab as it is now: { page } or, when there is no true page to send (a closed tab,
// Chrome's error page, a browser page, a page that does not answer), { why, netError? } —
// never a placeholder text posing as the page.
export async function readPage(tabId) {
  let tab;
  try { tab = await chrome.tabs.get(tabId); } catch { tab = null; }
  if (!tab) return { why: `tab ${tabId} is closed` };
  const base = { tabId, url: tab.url || '', title: tab.title || '' };
  const failed = tabNavError(tabId);
  if (failed) return { why: `the tab shows the browser's error page: ${netSentence(failed.url || tab.url, failed.error)}`, netError: failed.error, url: failed.url || tab.url };
  if (tab.url === 'about:blank') return { page: { ...base, markdown: '', truncated: false } };
  if (!isScriptableUrl(tab.url)) {
    return { why: `this page (${tab.url || tab.pendingUrl || 'an empty tab'}) is a browser page that extensions cannot read` };
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
      if (e.unresponsive || /no access|cannot be read/.test(e.message)) break;
    }
    await sleep(300);
  }
  if (!snap?.ok) {
    const again = tabNavError(tabId); // the page failed to load meanwhile
    if (again) return { why: `the tab shows the browser's error page: ${netSentence(again.url || tab.url, again.error)}`, netError: again.error, url: again.url || tab.url };
    return { why: `the page could not be read: ${snap?.error || 'unknown error'}` };
  }
  const f = await fillFrames(tabId, snap, MAX_PAGE_CHARS);
  return { page: { ...base, url: snap.url || base.url, title: snap.title ?? base.title, markdown: f.markdown, truncated: !!(snap.truncated || f.truncated) } };
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
  if (/^https?:$/.test(parsed.protocol) && /\s/.test(s)) throw new CommandError(`not a valid URL: ${u}`);
  const no = refusal(parsed.href);
  if (no) throw new CommandError(upper(no) + '.');
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
      const t0 = Date.now();
      const tab = await chrome.tabs.create({ url, active: true, ...(base ? { windowId: base.windowId } : {}) });
      await waitTabComplete(tab.id, Date.now() + 20_000);
      const failed = tabNavError(tab.id);
      if (failed) throw navError(url, failed.error, tab.id);
      const settle = needsPage ? await quiet(tab.id, { since: t0 }) : null;
      return { message: `Opened ${url} in a new tab (${tab.id})`, result: { tabId: tab.id, ...(settle ? { settle } : {}) }, pageTabId: tab.id };
    }
    const tab = await resolveTab(cmd.tabId);
    const tracker = new NavTracker(tab.id);
    const t0 = Date.now();
    // The page being left may ask "Leave site?" (beforeunload): its page script answers.
    if (isScriptableUrl(tab.url)) await ensurePageScripts(tab.id);
    try {
      await chrome.tabs.update(tab.id, { url });
      const deadline = Date.now() + 20_000;
      while (!tracker.started && !tracker.sameDoc && Date.now() - t0 < 2000) await tracker.changed(200);
      if (tracker.started) await waitLoaded(tracker, deadline, 0);
      else await waitTabComplete(tab.id, deadline);
      const code = tracker.error && tracker.error !== 'net::ERR_ABORTED' ? tracker.error : !tracker.started ? tabNavError(tab.id)?.error : null;
      if (code) throw navError(url, code, tab.id);
    } finally { tracker.stop(); }
    const settle = needsPage ? await quiet(tab.id, { since: t0 }) : null;
    return { message: `Opened ${url}`, result: { tabId: tab.id, ...(settle ? { settle: { ...settle, waited_ms: Date.now() - t0 } } : {}) }, pageTabId: tab.id };
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
    if (isScriptableUrl(tab.url)) await ensurePageScripts(tab.id);
    try {
      if (c === 'reload') await chrome.tabs.reload(tab.id);
      else await historyGo(tab, c === 'back' ? -1 : 1);
      const { tabId: pageTabId, settle } = await settleAfterAction(tracker, { expectNav: true, navWindowMs: 1500 });
      const t = await chrome.tabs.get(pageTabId).catch(() => null);
      const failed = tabNavError(pageTabId);
      if (failed) throw navError(failed.url || t?.url || '', failed.error, pageTabId, c === 'reload' ? 'Reloaded' : c === 'back' ? 'Went back' : 'Went forward');
      return { message: `${c === 'reload' ? 'Reloaded' : c === 'back' ? 'Went back to' : 'Went forward to'} ${t?.url || ''}`.trim(), result: { tabId: pageTabId, settle }, pageTabId };
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

  if (c === 'handle_dialog') {
    if (typeof cmd.accept !== 'boolean') throw new CommandError('handle_dialog needs accept (true or false)');
    if (cmd.prompt_text != null && typeof cmd.prompt_text !== 'string') throw new CommandError('prompt_text must be a string');
    if (typeof cmd.prompt_text === 'string' && cmd.prompt_text.length > 100_000) throw new CommandError('prompt_text is longer than 100000 characters');
    await setDialogPolicy(tab.id, cmd.accept, cmd.prompt_text ?? undefined);
    const how = cmd.accept ? (typeof cmd.prompt_text === 'string' ? 'accepted (a prompt gets the text given)' : 'accepted') : 'dismissed';
    return { message: `The next dialog on tab ${tab.id} will be ${how}`, result: { tabId: tab.id, accept: cmd.accept }, pageTabId: tab.id };
  }

  if (PAGE_ACTIONS.has(c)) {
    const params = { ...cmd };
    delete params.requestId; delete params.command; delete params.tabId; delete params.wait_for_page_info;
    const tracker = new NavTracker(tab.id);
    // The page scripts answer the dialogs the action may open, and settle it (src/page/).
    if (isScriptableUrl(tab.url)) await ensurePageScripts(tab.id);
    const actionAt = Date.now();
    try {
      // Trusted input (the debugger) when the user granted it, else the content script's events.
      const r = (await trustedAct(tab.id, c, params)) ?? await actAnywhere(tab.id, { command: c, params });
      if (!r.ok) throw new CommandError(r.error, { pageTabId: tab.id, noPage: !!r.unresponsive });
      // A target=_blank link whose URL open_url would refuse (file:, data:, javascript: …): the
      // extension does not open it, and a tab Chrome opened for it (left empty, as Chrome blocks
      // such navigations from pages) is closed again, so the answer is the refusal, not a blank tab.
      const no = r.newTabUrl ? refusal(r.newTabUrl) : null;
      if (no) {
        const t0 = Date.now();
        while (tracker.newTabId == null && Date.now() - t0 < NAV_WINDOW_MS) await tracker.changed(NAV_WINDOW_MS - (Date.now() - t0));
        if (tracker.newTabId != null) {
          const nt = await chrome.tabs.get(tracker.newTabId).catch(() => null);
          const u = nt ? nt.url || nt.pendingUrl || '' : '';
          if (nt && !/^https?:/i.test(u)) await chrome.tabs.remove(nt.id).catch(() => {});
        }
        throw new CommandError(`${r.message}, but its link was not followed: ${no}.`, { pageTabId: tab.id, result: { tabId: tab.id, refusedUrl: String(r.newTabUrl).slice(0, 2000) } });
      }
      let pageTabId = tab.id;
      let settle = null;
      if (needsPage) {
        ({ tabId: pageTabId, settle } = await settleAfterAction(tracker, { actionAt }));
      } else {
        await sleep(50);
      }
      // A target=_blank link that the popup blocker swallowed: open it ourselves (its URL passed
      // the policy above: only what open_url would open).
      if (r.newTabUrl && tracker.newTabId == null && !tracker.started) {
        const nt = await chrome.tabs.create({ url: r.newTabUrl, active: true, openerTabId: tab.id, windowId: tab.windowId });
        await waitTabComplete(nt.id, Date.now() + 20_000);
        settle = { ...(await quiet(nt.id, { since: actionAt })), waited_ms: Date.now() - actionAt };
        pageTabId = nt.id;
      }
      const failed = tracker.started || pageTabId !== tab.id ? tabNavError(pageTabId) : null;
      if (failed) throw navError(failed.url, failed.error, pageTabId, r.message);
      const result = { tabId: pageTabId, ...(r.frameOrigin ? { frameOrigin: r.frameOrigin } : {}), ...(settle ? { settle } : {}) };
      let message = r.message;
      if (pageTabId !== tab.id) message += `; it opened tab ${pageTabId}`;
      return { message, result, pageTabId };
    } finally { tracker.stop(); }
  }

  throw new CommandError(`unknown command "${c}" (supported: ${CAPABILITIES.join(', ')})`);
}

// The queue a command waits in: its tab's (the active tab's when it names none), or its own for
// commands that touch no page (list_tabs, switch_tab, open_url in a new tab). Returns the key
// and the command with the tab it was queued for filled in, so it acts on that same tab.
async function queueFor(cmd) {
  if (cmd.command === 'list_tabs' || cmd.command === 'switch_tab' || (cmd.command === 'open_url' && cmd.new_tab)) {
    return { key: `misc:${cmd.requestId}`, cmd };
  }
  if (cmd.tabId != null) return { key: `tab:${cmd.tabId}`, cmd };
  const t = await resolveTab(null).catch(() => null);
  if (!t) return { key: `misc:${cmd.requestId}`, cmd };
  return { key: `tab:${t.id}`, cmd: { ...cmd, tabId: t.id } };
}

// Commands join their queues in the order they arrived (finding the active tab is asynchronous).
let arrival = Promise.resolve();

export async function handleCommand(cmd0) {
  const requestId = cmd0.requestId;
  if (typeof requestId !== 'string') return;
  const started = Date.now();
  const queued = arrival.then(() => queueFor(cmd0));
  arrival = queued.catch(() => {});
  const { key, cmd } = await queued;
  await serialize(key, async () => {
    const params = summarize(cmd0);
    await setLastCommand({ requestId, command: cmd.command, params, status: 'running', at: started });
    const wantPage = cmd.wait_for_page_info !== false;
    let status = 'success', message, error = null, result = null, pageTabId = null, sendPage = wantPage, noPage = false;
    try {
      const out = await execute(cmd);
      message = out.message;
      result = out.result || null;
      pageTabId = out.pageTabId;
      sendPage = wantPage || !!out.alwaysPage;
    } catch (e) {
      status = 'error';
      message = `${cmd.command} failed`;
      error = e && e.message ? e.message : String(e);
      result = e?.result || null;
      noPage = !!(e?.noPage || e?.unresponsive);
      pageTabId = e?.pageTabId;
      if (pageTabId == null && !noPage && wantPage) pageTabId = (await resolveTab(cmd.tabId).catch(() => null))?.id;
    }
    // The dialogs the tab's pages opened since the last result (the action's, or a timer's):
    // result.dialog (the first), result.dialogs (all, when more than one), and in the message.
    if (cmd.command !== 'handle_dialog' && cmd.command !== 'list_tabs') {
      const dialogs = takeDialogs(cmd.tabId, pageTabId);
      if (dialogs.length) {
        result = { ...(result || {}), dialog: dialogs[0], ...(dialogs.length > 1 ? { dialogs } : {}) };
        const said = dialogs.slice(0, 3).map(dialogSentence).join('; ') + (dialogs.length > 3 ? `; and ${dialogs.length - 3} more` : '');
        if (status === 'success') message += `; ${said}`;
        else error += ` (${said})`;
      }
    }
    // The page (the daemon waits for it; after a failure it shows the agent what is there) —
    // or, when there is no true page, none, and the result says so with pageFollows: false.
    let page = null;
    if (sendPage && !noPage && pageTabId != null) {
      const got = await readPage(pageTabId);
      page = got.page || null;
      if (!page && status === 'success') {
        if (cmd.command === 'get_page') {
          status = 'error';
          message = 'get_page failed';
          error = upper(got.why) + '.';
          if (got.netError) result = { ...(result || {}), netError: got.netError, url: got.url };
        } else {
          message += ` (the page after it could not be read: ${got.why})`;
        }
      }
    }
    const data = { requestId, status, message };
    if (error !== null) data.error = error;
    if (result) data.result = result;
    if (sendPage && !page) data.pageFollows = false;
    send('command_result', data);
    if (page) send('pageInfoUpdate', { requestId, ...page });
    await setLastCommand({ requestId, command: cmd.command, params, status, message: error ?? message, at: started, ms: Date.now() - started });
  });
}

// The command as the popup shows it: never the text typed (it may be a password).
function summarize(cmd) {
  const p = {};
  for (const [k, v] of Object.entries(cmd)) {
    if (['requestId', 'command'].includes(k)) continue;
    p[k] = (k === 'text' || k === 'prompt_text') && typeof v === 'string' ? `(${v.length} character${v.length === 1 ? '' : 's'})` : v;
  }
  return p;
}

export { PageError };
