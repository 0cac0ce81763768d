// Handlers of the tab commands: list_tabs, switch_tab, close_tab (see handlers.js).
import { listTabs, resolveTab, reportTabsSoon } from './tabs.js';
import { CommandError, sleep } from './errors.js';

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

export async function closeTab(cmd) {
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
