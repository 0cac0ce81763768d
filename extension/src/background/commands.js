// Commands from the daemon: queue them per tab, run their handler (handlers.js), answer with
// command_result and (when wait_for_page_info) a pageInfoUpdate for the same requestId — each
// kept within the daemon's max_message_bytes (connection.js): a page too big is cut (page.js), a
// result too big is replaced by an error saying so.
import { send, getMaxMessageBytes, messageBytes } from './connection.js';
import { execute, READS_ONLY } from './handlers.js';
import { markDriven } from './driven.js';
import { readPage, fitPage } from './page.js';
import { resolveTab } from './tabs.js';
import { setLastCommand } from './state.js';
import { takeDialogs, dialogSentence } from './dialogs.js';
import { upper } from './errors.js';
import { whileActing } from './badge.js';
import { cancelSignal, done, throwIfCancelled } from './cancel.js';
import { validSession, sessionTab, groupTab } from './sessions.js';

// One command at a time per tab: settling two actions on one page at once would mix them up.
// Each tab has its own queue, so a page that stopped answering (a busy loop) holds up only the
// calls for that tab, and each of those for a bounded time (content-bridge.js).
const tabQueues = new Map();
function serialize(key, fn) {
  const prev = tabQueues.get(key) || Promise.resolve();
  const next = prev.catch(() => {}).then(fn);
  tabQueues.set(key, next);
  next.finally(() => { if (tabQueues.get(key) === next) tabQueues.delete(key); });
  return next;
}

// The command_result to send: `data`, or when it is over the daemon's max_message_bytes an error
// result saying so (the page, if any, still follows).
function fitResult(command, data) {
  const max = getMaxMessageBytes();
  const bytes = messageBytes('command_result', data);
  if (bytes <= max) return data;
  const out = {
    requestId: data.requestId, status: 'error', message: `${command} failed`,
    error: `The result (${bytes} bytes) is larger than the daemon's max_message_bytes (${max} bytes); it was not sent.`,
  };
  if (data.pageFollows === false) out.pageFollows = false;
  return out;
}

// The queue a command waits in: its tab's (the active tab's when it names none), or its own for
// commands that touch no page (list_tabs, switch_tab, open_url in a new tab). Returns the key
// and the command with the tab it was queued for filled in, so it acts on that same tab.
async function queueFor(cmd) {
  if (cmd.command === 'list_tabs' || cmd.command === 'switch_tab' || (cmd.command === 'open_url' && cmd.new_tab)) {
    return { key: `misc:${cmd.requestId}`, cmd };
  }
  if (cmd.tabId != null) return { key: `tab:${cmd.tabId}`, cmd };
  // An agent session's page that has no tab yet: the tab opened for it (sessions.js).
  if (cmd.session?.newTab && validSession(cmd.session) && cmd.session.pageId) {
    const id = await sessionTab(cmd.session).catch(() => null);
    if (id != null) return { key: `tab:${id}`, cmd: { ...cmd, tabId: id } };
  }
  const t = await resolveTab(null).catch(() => null);
  if (!t) return { key: `misc:${cmd.requestId}`, cmd };
  return { key: `tab:${t.id}`, cmd: { ...cmd, tabId: t.id } };
}

const HTTP_WORDS = { 400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found', 405: 'Method Not Allowed', 408: 'Request Timeout', 410: 'Gone', 429: 'Too Many Requests', 500: 'Internal Server Error', 502: 'Bad Gateway', 503: 'Service Unavailable', 504: 'Gateway Timeout' };

// Commands join their queues in the order they arrived (finding the active tab is asynchronous).
let arrival = Promise.resolve();

export async function handleCommand(cmd0) {
  const requestId = cmd0.requestId;
  if (typeof requestId !== 'string') return;
  const started = Date.now();
  const signal = cancelSignal(requestId); // aborted by the daemon's cancel message (cancel.js)
  const queued = arrival.then(() => queueFor(cmd0));
  arrival = queued.catch(() => {});
  const { key, cmd } = await queued.catch((e) => { done(requestId); throw e; });
  await serialize(key, whileActing(requestId, cmd.command, async () => {
    const params = summarize(cmd0);
    setLastCommand({ requestId, command: cmd.command, params, status: 'running', at: started }); // not waited for: the popup's view
    const wantPage = cmd.wait_for_page_info !== false;
    let status = 'success', message, error = null, result = null, pageTabId = null, sendPage = wantPage, noPage = false, loaded = false;
    try {
      throwIfCancelled(signal); // cancelled while it waited in its tab's queue: never run it
      // The tab it acts on is the agent's from now on: its pages answer dialogs by policy.
      if (!READS_ONLY.has(cmd.command) && Number.isInteger(cmd.tabId)) await markDriven(cmd.tabId);
      const out = await execute(cmd, { signal });
      message = out.message;
      result = out.result || null;
      pageTabId = out.pageTabId;
      loaded = !!out.loaded;
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
    // An agent session's tab joins its tab group, and the daemon learns which tab it was.
    if (validSession(cmd.session) && cmd.command !== 'close_tab' && cmd.command !== 'list_tabs') {
      const tid = Number.isInteger(result?.tabId) ? result.tabId : pageTabId ?? cmd.tabId;
      if (Number.isInteger(tid) && await groupTab(cmd.session, tid)) result = { ...(result || {}), tabId: tid };
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
    // A page the action loaded that the server answered with an error status: said (its body is
    // shown like any page's, and may not say so).
    if (page?.httpStatus) {
      const { httpStatus, ...rest } = page;
      page = rest;
      if (loaded && status === 'success') {
        message += `; the server answered it with HTTP ${httpStatus}${HTTP_WORDS[httpStatus] ? ` (${HTTP_WORDS[httpStatus]})` : ''}`;
        result = { ...(result || {}), httpStatus };
      }
    }
    // The page, cut to the daemon's limit; none when even an empty one would not fit.
    const update = page ? fitPage(requestId, page) : null;
    if (page && !update) {
      const why = `the page does not fit in the daemon's max_message_bytes (${getMaxMessageBytes()} bytes) even without its text`;
      if (cmd.command === 'get_page' && status === 'success') { status = 'error'; message = 'get_page failed'; error = upper(why) + '.'; }
      else if (status === 'success') message += ` (the page after it was not sent: ${why})`;
    }
    let data = { requestId, status, message };
    if (error !== null) data.error = error;
    if (result) data.result = result;
    if (sendPage && !update) data.pageFollows = false;
    data = fitResult(cmd.command, data);
    status = data.status;
    if (data.error !== undefined) error = data.error;
    send('command_result', data);
    if (update) send('pageInfoUpdate', update);
    await setLastCommand({ requestId, command: cmd.command, params, status, message: error ?? message, at: started, ms: Date.now() - started });
  })).finally(() => done(requestId));
}

// The command as the popup shows it: never the text typed (it may be a password).
function summarize(cmd) {
  const p = {};
  for (const [k, v] of Object.entries(cmd)) {
    if (['requestId', 'command'].includes(k)) continue;
    const chars = (t) => `(${t.length} character${t.length === 1 ? '' : 's'})`;
    if (k === 'fields' && Array.isArray(v)) p[k] = v.map((f) => ({ target: f?.target, value: typeof f?.value === 'string' ? chars(f.value) : undefined }));
    else if (k === 'files' && Array.isArray(v)) p[k] = v.map((f) => ({ name: f?.name, size: f?.size })); // not their bytes
    else p[k] = (k === 'text' || k === 'prompt_text') && typeof v === 'string' ? chars(v) : v;
  }
  return p;
}

