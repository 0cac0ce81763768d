// Which tabs the agent drives: a tab an agent command acted on or navigated, a tab the bridge
// opened for the agent, and a tab such a tab opened (window.open, a target=_blank link). In the
// managed browser (`serve --headless`, pairing.json) every tab is the agent's. Only in these tabs
// are JavaScript dialogs answered by policy (dialogs.js, page/main-world.js): in the person's own
// tabs a site's confirm("Delete?") and its "Leave site?" show as they would without the bridge.
// A tab is the agent's until it closes. The set is kept in chrome.storage.session, so that a
// service worker the browser restarted still knows it.
import { getConfig } from './config.js';

const KEY = 'drivenTabs';
const tabs = new Set();
const pending = new Set(); // tab creations for the agent under way (their tab ids not known yet)
let managed = null;        // Promise<boolean>: the managed browser, where every tab is the agent's
let loaded = null;         // Promise: the set read back from storage.session
const listeners = new Set(); // (tabId) => void, told when a tab becomes the agent's

function load() {
  if (!loaded) {
    loaded = chrome.storage.session.get(KEY).then((v) => {
      for (const id of Array.isArray(v?.[KEY]) ? v[KEY] : []) if (Number.isInteger(id)) tabs.add(id);
    }, () => {});
  }
  return loaded;
}

function save() {
  chrome.storage.session.set({ [KEY]: [...tabs] }).catch(() => {});
}

function isManaged() {
  if (!managed) managed = getConfig().then((c) => !!c.managed, () => false);
  return managed;
}

// Mark the tab as the agent's; listeners hear of it the first time (its pages are then told).
export async function markDriven(tabId) {
  if (!Number.isInteger(tabId)) return;
  await load();
  if (tabs.has(tabId)) return;
  tabs.add(tabId);
  save();
  for (const f of [...listeners]) f(tabId);
}

// Whether the tab is the agent's. Waits for the agent's tab creations under way, so that the
// first page of a tab being opened for it asks after the tab is known.
export async function isDriven(tabId) {
  if (await isManaged()) return true;
  if (pending.size) await Promise.allSettled([...pending]);
  await load();
  if (tabs.has(tabId)) return true;
  // Opened by one of the agent's tabs, and its creation not yet heard of (onCreated, below).
  const t = await chrome.tabs.get(tabId).catch(() => null);
  if (t && Number.isInteger(t.openerTabId) && tabs.has(t.openerTabId)) { await markDriven(tabId); return true; }
  return false;
}

// chrome.tabs.create for the agent: the new tab is the agent's from its first page on.
export function createDrivenTab(props) {
  const p = chrome.tabs.create(props).then(async (tab) => { await markDriven(tab.id); return tab; });
  const settled = p.then(() => {}, () => {});
  pending.add(settled);
  settled.then(() => pending.delete(settled));
  return p;
}

// Call `fn(tabId)` whenever a tab becomes the agent's.
export function onDriven(fn) {
  listeners.add(fn);
}

// Listeners (top level, main.js): a tab opened by one of the agent's is the agent's; a closed tab
// is forgotten.
export function installDrivenListeners() {
  chrome.tabs.onCreated.addListener((t) => {
    if (Number.isInteger(t.openerTabId)) load().then(() => { if (tabs.has(t.openerTabId)) markDriven(t.id); });
  });
  chrome.tabs.onRemoved.addListener((id) => {
    load().then(() => { if (tabs.delete(id)) save(); });
  });
}
