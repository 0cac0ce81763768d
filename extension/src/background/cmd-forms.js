// Handlers of browser_fill_form, browser_upload_file and browser_resize (see handlers.js). The first
// two are page actions (cmd-input.js; the content script's content/forms.js does the work): the
// files come from the daemon, which read and checked them (src/upload.c), as {name, type, size,
// data (base64)}. Resizing sets the tab's window size and waits until the page has seen it.
import { pageAction } from './cmd-input.js';
import { resolveTab } from './tabs.js';
import { callContent } from './content-bridge.js';
import { quiet } from './settle.js';
import { isScriptableUrl } from './url-policy.js';
import { CommandError } from './errors.js';

export const fillFormAction = (cmd) => pageAction('fill_form', cmd);
export const uploadFileAction = (cmd) => pageAction('upload_file', cmd);

const RESIZE_WAIT_MS = 3000;

async function viewport(tabId) {
  try {
    const r = await callContent(tabId, 'viewport');
    return r.ok ? { width: r.width, height: r.height } : null;
  } catch { return null; }
}

export async function resizeWindow(cmd) {
  const width = Number(cmd.width), height = Number(cmd.height);
  if (!Number.isInteger(width) || !Number.isInteger(height) || width <= 0 || height <= 0) {
    throw new CommandError('width and height must be positive whole numbers of pixels');
  }
  const tab = await resolveTab(cmd.tabId);
  const scriptable = isScriptableUrl(tab.url);
  const before = scriptable ? await viewport(tab.id) : null;
  const win = await chrome.windows.get(tab.windowId);
  if (win.state !== 'normal') await chrome.windows.update(win.id, { state: 'normal' });
  const since = Date.now();
  const after = await chrome.windows.update(win.id, { width, height });
  // The page learns of it a little later (its resize event): wait until its viewport changed.
  let vp = before;
  if (scriptable) {
    const t0 = Date.now();
    for (;;) {
      vp = await viewport(tab.id);
      if (!before || !vp || vp.width !== before.width || vp.height !== before.height) break;
      if (after.width === win.width && after.height === win.height) break; // the size did not change
      if (Date.now() - t0 > RESIZE_WAIT_MS) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    await quiet(tab.id, { since, capMs: 2000 }).catch(() => {});
  }
  const got = `${after.width}x${after.height}`;
  let message = `Resized the window to ${got}`;
  if (after.width !== width || after.height !== height) message += ` (asked for ${width}x${height}; the browser allows no other size here)`;
  if (vp) message += `; the page's viewport is ${vp.width}x${vp.height}`;
  return {
    message,
    result: { tabId: tab.id, windowId: win.id, window: { width: after.width, height: after.height }, ...(vp ? { viewport: vp } : {}) },
    pageTabId: tab.id,
  };
}
