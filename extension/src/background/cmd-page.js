// Handlers of the commands that read the page: get_page, screenshot, wait_for (see handlers.js).
import { callContent } from './content-bridge.js';
import { resolveTab } from './tabs.js';
import { getMaxMessageBytes } from './connection.js';
import { CommandError, sleep } from './errors.js';
import { throwIfCancelled } from './cancel.js';

export async function getPage(cmd) {
  const tab = await resolveTab(cmd.tabId);
  return { message: `Got the page ${tab.url}`, result: { tabId: tab.id }, pageTabId: tab.id, alwaysPage: true };
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

// Room in a command_result for what surrounds the image (ids, message, dialogs).
const RESULT_ROOM = 4096;

export async function takeScreenshot(cmd) {
  const tab = await resolveTab(cmd.tabId);
  if (!tab.active) {
    await chrome.tabs.update(tab.id, { active: true });
    await sleep(150);
  }
  const dataUrl = await capture(tab.windowId);
  const data = dataUrl.replace(/^data:image\/png;base64,/, '');
  const { width, height } = pngSize(data);
  const max = getMaxMessageBytes();
  if (data.length + RESULT_ROOM > max) {
    throw new CommandError(`the screenshot of tab ${tab.id} (${width}×${height}, ${data.length} bytes as base64) is larger than the daemon's max_message_bytes (${max} bytes) allows; raise max_message_bytes or make the window smaller`, { pageTabId: tab.id, result: { tabId: tab.id, width, height, bytes: data.length } });
  }
  return { message: `Screenshot of tab ${tab.id} (${width}×${height})`, result: { mimeType: 'image/png', data, width, height, tabId: tab.id }, pageTabId: tab.id };
}

// How long wait_for waits when the call gives no wait_ms (the catalog's default is the same).
const WAIT_DEFAULT_MS = 10_000;
const WAIT_MAX_MS = 600_000;

// Polls until the text or selector is there (or gone), the browser-side deadline passes, or the
// daemon cancels the call (ctx.signal, cancel.js): a cancelled wait ends at its next check.
export async function waitFor(cmd, ctx = {}) {
  const tab = await resolveTab(cmd.tabId);
  const { text, selector } = cmd;
  if (!text && !selector) throw new CommandError('wait_for needs text or selector');
  const state = (cmd.state || 'visible').toLowerCase();
  if (state !== 'visible' && state !== 'hidden') throw new CommandError('state must be "visible" or "hidden"');
  const timeout = cmd.wait_ms != null && Number(cmd.wait_ms) >= 0 ? Math.min(WAIT_MAX_MS, Number(cmd.wait_ms)) : WAIT_DEFAULT_MS;
  const deadline = Date.now() + timeout;
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
    throwIfCancelled(ctx.signal);
    await sleep(150);
    throwIfCancelled(ctx.signal);
  }
}
