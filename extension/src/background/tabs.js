// The browser's tabs, as the daemon sees them; reported on welcome and on change.
import { send, isConnected } from './connection.js';
import { forgetTab } from './frames.js';
import { forgetNavError } from './nav-tracker.js';

export function tabInfo(t, focusedWindowId) {
  const info = { tabId: t.id, windowId: t.windowId, url: t.url || t.pendingUrl || '', title: t.title || '', active: !!t.active };
  // The active tab of the last focused window: the one an agent session adopts (protocol.md).
  if (t.active && focusedWindowId != null && t.windowId === focusedWindowId) info.focused = true;
  return info;
}

export async function listTabs() {
  const tabs = await chrome.tabs.query({});
  const focused = (await chrome.windows?.getLastFocused?.().catch(() => null))?.id;
  return tabs.filter((t) => t.id !== chrome.tabs.TAB_ID_NONE).map((t) => tabInfo(t, focused));
}

let timer = null;
export function reportTabsSoon(delay = 300) {
  clearTimeout(timer);
  timer = setTimeout(reportTabsNow, delay);
}

export async function reportTabsNow() {
  clearTimeout(timer);
  if (!isConnected()) return;
  send('tabs', { tabs: await listTabs() });
}

export function installTabListeners() {
  chrome.tabs.onCreated.addListener(() => reportTabsSoon());
  chrome.tabs.onRemoved.addListener((id) => { forgetTab(id); forgetNavError(id); reportTabsSoon(); });
  chrome.tabs.onActivated.addListener(() => reportTabsSoon());
  chrome.tabs.onUpdated.addListener((id, info) => {
    if ('url' in info || 'title' in info || info.status === 'complete') reportTabsSoon();
  });
  chrome.tabs.onReplaced?.addListener(() => reportTabsSoon());
  chrome.windows?.onFocusChanged?.addListener(() => reportTabsSoon());
}

// The tab a command acts on: the one named, else the active tab of the last
// focused window, else any active tab.
export async function resolveTab(tabId) {
  if (tabId != null) {
    const id = Number(tabId);
    if (!Number.isInteger(id)) throw new Error(`tabId must be an integer (got ${JSON.stringify(tabId)})`);
    try { return await chrome.tabs.get(id); } catch { throw new Error(`tab ${id} does not exist (list_tabs shows the open tabs)`); }
  }
  let [t] = await chrome.tabs.query({ active: true, lastFocusedWindow: true });
  if (!t) [t] = await chrome.tabs.query({ active: true });
  if (!t) [t] = await chrome.tabs.query({});
  if (!t) throw new Error('there is no open tab');
  return t;
}
