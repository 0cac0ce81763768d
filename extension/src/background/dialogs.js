// JavaScript dialogs (alert, confirm, prompt, and the "Leave site?" of beforeunload), per tab:
// the answer the agent chose for the next one (browser_handle_dialog), and the dialogs the tab's
// pages opened, until a command's result reports them. In the tabs the agent drives (driven.js)
// the page side (src/page/main-world.js) answers each dialog at once by that policy; in trusted
// mode (trusted.js) the debugger answers the dialogs that open for real all the same. In the
// person's own tabs the dialogs show as they would without the bridge.
import { isDriven, onDriven } from './driven.js';

const MAX_LOG = 20;
const policies = new Map(); // tabId -> { accept, promptText? } for the next dialog
const logs = new Map();     // tabId -> [{ kind, message, accepted, by, at, url, defaultValue? }]
const unloads = new Map();  // tabId -> the page script's last beforeunload decision (for trusted.js)

export function dialogPolicy(tabId) {
  return policies.get(tabId) || null;
}

// What a page of the tab is told at its start (ready.js) and whenever it changes: the agent's
// answer for the next dialog, and whether the tab is the agent's (else its dialogs show).
export async function dialogState(tabId) {
  return { policy: dialogPolicy(tabId), driven: await isDriven(tabId) };
}

// Push the tab's dialog state to every frame's page script (policy null: the defaults again).
async function push(tabId) {
  const st = await dialogState(tabId);
  try {
    await chrome.scripting.executeScript({
      target: { tabId, allFrames: true },
      func: (pol, driven) => (globalThis.__bbPage ? globalThis.__bbPage.setPolicy(pol, driven) : false),
      args: [st.policy, st.driven],
    });
  } catch { /* not scriptable: the page asks on load */ }
}

// browser_handle_dialog: how the next dialog on the tab is answered.
export async function setDialogPolicy(tabId, accept, promptText) {
  const p = { accept: !!accept };
  if (typeof promptText === 'string') p.promptText = promptText;
  policies.set(tabId, p);
  await push(tabId);
}

const unloadWaiters = new Set(); // (tabId, rec) => void, told of each beforeunload decision

// Call `fn(rec)` at the tab's next beforeunload decision; returns the function that stops it.
export function onBeforeunload(tabId, fn) {
  const w = (id, rec) => { if (id === tabId) fn(rec); };
  unloadWaiters.add(w);
  return () => unloadWaiters.delete(w);
}

// A dialog happened on the tab (from the page script or the debugger).
export function recordDialog(tabId, rec) {
  if (rec.kind === 'beforeunload') { unloads.set(tabId, rec); for (const w of [...unloadWaiters]) w(tabId, rec); }
  let l = logs.get(tabId);
  if (!l) { l = []; logs.set(tabId, l); }
  l.push(rec);
  if (l.length > MAX_LOG) l.shift();
  if (rec.by === 'agent' && policies.has(tabId)) {
    policies.delete(tabId);
    push(tabId);
  }
}

// The page script's beforeunload decision of the last 5 s, if any: a "Leave site?" that then
// opens for real (trusted mode) is answered the same way, and not reported twice.
export function lastBeforeunload(tabId) {
  const r = unloads.get(tabId);
  return r && Date.now() - r.at < 5000 ? r : null;
}

// The dialogs not yet reported for these tabs, oldest first; they are reported once.
export function takeDialogs(...tabIds) {
  const out = [];
  for (const id of new Set(tabIds.filter((x) => x != null))) {
    const l = logs.get(id);
    if (l) { out.push(...l); logs.delete(id); }
  }
  return out.sort((a, b) => a.at - b.at).map(({ kind, message, accepted, by, url, defaultValue }) => ({
    kind, message, accepted, answeredBy: by, url, ...(defaultValue !== undefined ? { defaultValue } : {}),
  }));
}

// One sentence for the result message: what the page asked, and how it was answered.
export function dialogSentence(d) {
  if (d.kind === 'filechooser') {
    return `the page opened a file chooser${d.message ? ` for ${d.message}` : ''}, which was not shown (only a person can pick files there): put files into the page's file field with browser_upload_file`;
  }
  if (d.kind === 'print') return 'the page asked to print (window.print()), which was not shown';
  const what = d.kind === 'beforeunload' ? 'a "Leave site?" dialog (beforeunload)' : `${d.kind === 'alert' ? 'an' : 'a'} ${d.kind} dialog`;
  const msg = d.message ? ` saying ${JSON.stringify(d.message.length > 300 ? d.message.slice(0, 300) + '…' : d.message)}` : '';
  let ans;
  if (d.kind === 'alert') ans = 'accepted';
  else if (d.kind === 'beforeunload') ans = d.accepted ? 'answered "leave"' : 'answered "stay"';
  else ans = d.accepted ? 'accepted' : 'dismissed';
  return `the page opened ${what}${msg}, ${ans}${d.answeredBy === 'agent' ? ' as asked with browser_handle_dialog' : ' (the default)'}`;
}

// The address of the page that opened a dialog: where it is now (location.href, as the page
// script read it: a history push since its load, Turbo's visits, moved it), when of the same origin
// as the document the message came from; else that document's.
function dialogUrl(msg, sender) {
  const from = String(sender.url || '');
  try {
    if (typeof msg.url === 'string' && new URL(msg.url).origin === new URL(from).origin) return msg.url.slice(0, 2000);
  } catch { /* not a URL */ }
  return from.slice(0, 2000);
}

export function installDialogListeners() {
  onDriven((tabId) => { push(tabId); }); // its pages answer dialogs by policy from now on
  chrome.runtime.onMessage.addListener((msg, sender, reply) => {
    if (sender.id !== chrome.runtime.id || !sender.tab || typeof msg !== 'object' || !msg) return undefined;
    const tabId = sender.tab.id;
    if (msg.type === 'bb-dialog') {
      const kinds = ['alert', 'confirm', 'prompt', 'beforeunload', 'print'];
      if (!kinds.includes(msg.kind)) return undefined;
      recordDialog(tabId, {
        kind: msg.kind, message: String(msg.message ?? '').slice(0, 2000), accepted: !!msg.accepted,
        by: msg.by === 'agent' ? 'agent' : 'default', at: Number(msg.at) || Date.now(), url: dialogUrl(msg, sender),
        ...(typeof msg.defaultValue === 'string' ? { defaultValue: msg.defaultValue.slice(0, 2000) } : {}),
      });
      return undefined;
    }
    // A top frame's ask for the policy at its start ('bb-page-start') is answered by ready.js.
    return undefined;
  });
  chrome.tabs.onRemoved.addListener((id) => { policies.delete(id); logs.delete(id); unloads.delete(id); });
}
