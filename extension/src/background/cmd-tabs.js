// Handlers of the tab commands: list_tabs, switch_tab, close_tab (see handlers.js).
import { listTabs, resolveTab, reportTabsSoon } from './tabs.js';
import { CommandError } from './errors.js';
import { onBeforeunload } from './dialogs.js';
import { createDrivenTab } from './driven.js';

export async function listTabsCommand() {
  const tabs = await listTabs();
  const active = (await resolveTab(null).catch(() => null))?.id;
  return { message: `${tabs.length} tab${tabs.length === 1 ? '' : 's'} open`, result: { tabs }, pageTabId: active };
}

export async function switchTab(cmd) {
  if (cmd.tabId == null) throw new CommandError('switch_tab needs tab_id (list_tabs shows the open tabs)');
  const tab = await resolveTab(cmd.tabId);
  await chrome.tabs.update(tab.id, { active: true });
  try { await chrome.windows.update(tab.windowId, { focused: true }); } catch { /* headless */ }
  reportTabsSoon(0);
  return { message: `Switched to tab ${tab.id} (${tab.title || tab.url})`, result: { tabId: tab.id }, pageTabId: tab.id };
}

const CLOSE_WAIT_MS = 5000; // a tab asked to close is gone within this, or the close failed
const STAYED_MS = 300;      // after its page answered "stay" to "Leave site?", a tab still open stays

// Closes the tab; resolves 'closed' once it is gone, 'stayed' when its page answered "stay" to
// "Leave site?" (beforeunload: the close is cancelled, and chrome.tabs.remove never resolves),
// 'open' when it is still there after CLOSE_WAIT_MS.
function removeTab(tabId) {
  return new Promise((resolve) => {
    let stayTimer = null;
    const done = (v) => {
      clearTimeout(timer); clearTimeout(stayTimer); stop();
      chrome.tabs.onRemoved.removeListener(gone);
      resolve(v);
    };
    const gone = (id) => { if (id === tabId) done('closed'); };
    const look = (v) => chrome.tabs.get(tabId).then(() => done(v), () => done('closed'));
    const stop = onBeforeunload(tabId, (rec) => { if (!rec.accepted) { clearTimeout(stayTimer); stayTimer = setTimeout(() => look('stayed'), STAYED_MS); } });
    const timer = setTimeout(() => look('open'), CLOSE_WAIT_MS);
    chrome.tabs.onRemoved.addListener(gone);
    chrome.tabs.remove(tabId).then(() => done('closed'), () => look('open'));
  });
}

export async function closeTab(cmd) {
  const tab = await resolveTab(cmd.tabId);
  const all = await chrome.tabs.query({});
  if (all.length <= 1) {
    // closing the last tab would end the browser (and the extension with it)
    await createDrivenTab({ url: 'about:blank', active: true, windowId: tab.windowId });
  }
  const how = await removeTab(tab.id);
  if (how === 'stayed') {
    throw new CommandError(`Did not close tab ${tab.id}: its page kept it open`, { pageTabId: tab.id }); // the dialog (answered "stay") is said after it
  }
  if (how === 'open') throw new CommandError(`Did not close tab ${tab.id}: it is still open ${CLOSE_WAIT_MS / 1000} s after the browser was asked to close it.`, { pageTabId: tab.id });
  const now = await resolveTab(null).catch(() => null);
  return { message: `Closed tab ${tab.id} (${tab.title || tab.url})`, result: { tabId: tab.id, activeTabId: now?.id ?? null }, pageTabId: now?.id };
}
