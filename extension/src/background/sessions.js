// Agent sessions in the user's browser (issue 18; protocol.md, "Sessions"): each session's tabs form a
// tab group titled with the agent's name; a session that has no tab yet gets a new one (opened in
// the background, remembered by the daemon's page id so that its calls share it); the popup lists
// the sessions (the daemon's `sessions` message, kept in chrome.storage.session) and stops, approves
// or declines them with `session_control`; `session_end` ungroups a stopped or expired session's
// tabs, which stay open.
import { send } from './connection.js';
import { resolveTab } from './tabs.js';
import { waitTabComplete } from './settle.js';
import { createDrivenTab } from './driven.js';

const PAGE_ID_RE = /^p[0-9a-f]{16}$/;
const SESSION_ID_RE = /^s[0-9a-f]{12}$/;
const MAX_PAGES = 512; // remembered new tabs (page id -> tab); the oldest are forgotten first
const COLORS = ['blue', 'purple', 'cyan', 'green', 'orange', 'pink', 'red', 'yellow', 'grey'];

// pageId -> Promise<tabId>: the tab opened for a session's page (concurrent calls wait for the same one).
const pageTabs = new Map();

// Whether a command's session object is well formed (the daemon makes it; still, never trust a shape).
export function validSession(s) {
  return !!s && typeof s === 'object' && typeof s.id === 'string' && SESSION_ID_RE.test(s.id) &&
    typeof s.name === 'string' && s.name.length > 0 && s.name.length <= 64 &&
    (s.pageId === undefined || (typeof s.pageId === 'string' && PAGE_ID_RE.test(s.pageId)));
}

// The tab for a session's page that has none yet: a new background tab in the user's window.
export function sessionTab(session) {
  const key = session.pageId;
  let p = pageTabs.get(key);
  if (p) {
    // A tab remembered but closed since: open another.
    p = p.then(async (id) => { await chrome.tabs.get(id); return id; }).catch(() => null);
  }
  const made = (async () => {
    const old = p ? await p : null;
    if (old != null) return old;
    const base = await resolveTab(null).catch(() => null);
    const tab = await createDrivenTab({ url: 'about:blank', active: false, ...(base ? { windowId: base.windowId } : {}) });
    // Its first (empty) load must be over before a command navigates it, or that load could win.
    await waitTabComplete(tab.id, Date.now() + 5_000);
    return tab.id;
  })();
  pageTabs.set(key, made);
  made.catch(() => { if (pageTabs.get(key) === made) pageTabs.delete(key); });
  while (pageTabs.size > MAX_PAGES) pageTabs.delete(pageTabs.keys().next().value);
  return made;
}

// Group operations one at a time: two calls of one session must not make two groups.
let groupChain = Promise.resolve();
function serialized(fn) {
  const next = groupChain.then(fn, fn);
  groupChain = next.catch(() => {});
  return next;
}

async function loadGroups() {
  try { return (await chrome.storage.session.get('sessionGroups')).sessionGroups || {}; } catch { return {}; }
}
async function saveGroups(groups) {
  try { await chrome.storage.session.set({ sessionGroups: groups }); } catch { /* ignore */ }
}

function colorFor(id) {
  let h = 0;
  for (const c of id) h = (h * 31 + c.charCodeAt(0)) >>> 0;
  return COLORS[h % COLORS.length];
}

// Put a session's tab into its tab group (one group per session and window), titled with its name.
// A browser without tab groups just leaves the tab as it is: grouping never fails a call. Resolves
// to whether the tab exists (only then is it reported to the daemon as the session's).
export function groupTab(session, tabId) {
  return serialized(async () => {
    let tab;
    try { tab = await chrome.tabs.get(tabId); } catch { return false; }
    if (!chrome.tabGroups || !chrome.tabs.group) return true;
    try {
      const groups = await loadGroups();
      const key = `${session.id}:${tab.windowId}`;
      let gid = groups[key];
      if (gid != null) {
        try { await chrome.tabGroups.get(gid); } catch { gid = null; }
      }
      if (gid != null && tab.groupId === gid) return true;
      gid = await chrome.tabs.group(gid != null ? { tabIds: [tabId], groupId: gid } : { tabIds: [tabId], createProperties: { windowId: tab.windowId } });
      await chrome.tabGroups.update(gid, { title: session.name, color: colorFor(session.id) });
      groups[key] = gid;
      await saveGroups(groups);
    } catch (e) {
      console.warn('[browser-bridge] could not group tab', tabId, 'for session', session.name, e?.message || e);
    }
    return true;
  });
}

// Ungroup every tab of a session (they stay open) and forget its groups.
function ungroupSession(id, groups) {
  const keys = Object.keys(groups).filter((k) => k.startsWith(`${id}:`));
  return Promise.all(keys.map(async (k) => {
    const gid = groups[k];
    delete groups[k];
    try {
      const tabs = await chrome.tabs.query({ groupId: gid });
      if (tabs.length) await chrome.tabs.ungroup(tabs.map((t) => t.id));
    } catch (e) {
      console.warn('[browser-bridge] could not ungroup the tabs of session', id, e?.message || e);
    }
  }));
}

// session_end: the session was stopped, declined or expired.
export function onSessionEnd(data) {
  if (typeof data.id !== 'string' || !SESSION_ID_RE.test(data.id)) return Promise.resolve();
  return serialized(async () => {
    const groups = await loadGroups();
    await ungroupSession(data.id, groups);
    await saveGroups(groups);
  });
}

// sessions: the daemon's list of live sessions, for the popup. Groups of sessions the daemon no longer
// has (it restarted) are ungrouped.
export function onSessions(data) {
  const list = Array.isArray(data.sessions) ? data.sessions.filter((s) => s && typeof s.id === 'string' && SESSION_ID_RE.test(s.id)).slice(0, 256) : [];
  const sessions = list.map((s) => ({
    id: s.id,
    name: String(s.name ?? '').slice(0, 64),
    state: s.state === 'pending' ? 'pending' : 'active',
    tabs: Array.isArray(s.tabs) ? s.tabs.filter((t) => t && Number.isInteger(t.tabId)).slice(0, 64) : [],
    lastUsedAt: typeof s.lastUsedAt === 'string' ? s.lastUsedAt : '',
    waitingCalls: Number.isInteger(s.waitingCalls) ? s.waitingCalls : 0,
  }));
  return serialized(async () => {
    try { await chrome.storage.session.set({ sessions: { list: sessions, approveSessions: !!data.approveSessions, at: Date.now() } }); } catch { /* ignore */ }
    const groups = await loadGroups();
    const live = new Set(sessions.map((s) => s.id));
    const gone = [...new Set(Object.keys(groups).map((k) => k.split(':')[0]))].filter((id) => !live.has(id));
    for (const id of gone) await ungroupSession(id, groups);
    if (gone.length) await saveGroups(groups);
  });
}

// The popup's Stop / Approve / Decline: ask the daemon. False when not connected.
export function controlSession(id, action) {
  if (typeof id !== 'string' || !SESSION_ID_RE.test(id) || !['revoke', 'approve', 'decline'].includes(action)) return false;
  return send('session_control', { id, action });
}

// Forget the sessions shown when the daemon is gone (the list would be stale).
export async function clearSessions() {
  try { await chrome.storage.session.set({ sessions: { list: [], approveSessions: false, at: Date.now(), disconnected: true } }); } catch { /* ignore */ }
}
