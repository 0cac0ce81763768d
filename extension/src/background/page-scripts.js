// The scripts that watch every page from its start (src/page/): page-main.js in the page's own
// world (dialogs answered by policy, fetch/XHR counted, focus events) and page-isolated.js in the
// extension's isolated world (the private channel, settling, focus events). They are registered
// to run at document_start in every frame of every site the extension may access; a page that was
// open before they could run there (the extension just installed, access just granted) gets them
// injected on demand, before the first action on it.
const IDS = ['bb-page-isolated', 'bb-page-main'];
const SCRIPTS = [
  { id: IDS[0], js: ['page-isolated.js'], world: 'ISOLATED' },
  { id: IDS[1], js: ['page-main.js'], world: 'MAIN' },
].map((s) => ({ ...s, matches: ['<all_urls>'], runAt: 'document_start', allFrames: true, persistAcrossSessions: false }));

let registered = false;
let registering = null;

// (Re)register both scripts; false when the browser refused (e.g. no site access yet).
export function registerPageScripts() {
  registering = (async () => {
    try {
      const have = await chrome.scripting.getRegisteredContentScripts({ ids: IDS });
      if (have.length) await chrome.scripting.unregisterContentScripts({ ids: have.map((s) => s.id) });
      try {
        await chrome.scripting.registerContentScripts(SCRIPTS.map((s) => ({ ...s, matchOriginAsFallback: true })));
      } catch {
        await chrome.scripting.registerContentScripts(SCRIPTS);
      }
      registered = true;
    } catch (e) {
      registered = false;
      console.warn('[browser-bridge] page scripts not registered:', e?.message || e);
    }
    return registered;
  })();
  return registering;
}

// Tabs known to have the page scripts in their current document.
const ready = new Set();

export function forgetPageScripts(tabId) {
  ready.delete(tabId);
}

// Whether the tab's current document is known to have the page scripts (ensurePageScripts would
// make no call).
export function hasPageScripts(tabId) {
  return registered && ready.has(tabId);
}

// Make sure the page scripts run in the tab's current document (all frames). Cheap after the
// first time: a new document of the tab gets them from the registration.
export async function ensurePageScripts(tabId) {
  if (registering) await registering;
  if (registered && ready.has(tabId)) return true;
  let have = false;
  try {
    const [r] = await chrome.scripting.executeScript({ target: { tabId, frameIds: [0] }, func: () => !!globalThis.__bbPage });
    have = !!r?.result;
  } catch { return false; }
  if (!have) {
    try {
      await chrome.scripting.executeScript({ target: { tabId, allFrames: true }, files: ['page-isolated.js'] });
      await chrome.scripting.executeScript({ target: { tabId, allFrames: true }, files: ['page-main.js'], world: 'MAIN' });
    } catch { return false; }
  }
  ready.add(tabId);
  return true;
}

// Listeners (top level, main.js): a tab's new document has the registered scripts, a closed tab
// none, and newly granted site access is a reason to register again.
export function installPageScriptListeners() {
  chrome.webNavigation.onCommitted.addListener((d) => { if (d.frameId === 0 && !registered) ready.delete(d.tabId); });
  chrome.tabs.onRemoved.addListener((id) => ready.delete(id));
  chrome.permissions?.onAdded?.addListener(() => { ready.clear(); registerPageScripts(); });
  registerPageScripts();
}
