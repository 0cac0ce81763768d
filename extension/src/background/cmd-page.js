// Handlers of the commands that read the page: get_page, wait_for (see handlers.js; screenshot is
// in cmd-screenshot.js).
import { callContent } from './content-bridge.js';
import { resolveTab } from './tabs.js';
import { CommandError, sleep } from './errors.js';
import { fillFrames, presentInFrames } from './frames.js';
import { pageCharBudget, withoutPasswords } from './page.js';
import { throwIfCancelled } from './cancel.js';

// get_page. With a selector, result.selection is the Markdown of the first element it matches
// (refs as in the whole page), which the daemon answers with; the page that follows is still the
// whole page, for history.
export async function getPage(cmd) {
  const tab = await resolveTab(cmd.tabId);
  const result = { tabId: tab.id };
  if (typeof cmd.selector === 'string' && cmd.selector) {
    const maxChars = pageCharBudget();
    let snap;
    try {
      snap = await callContent(tab.id, 'snapshot', { maxChars, selector: cmd.selector });
    } catch (e) {
      throw new CommandError(e.message, { pageTabId: tab.id });
    }
    if (!snap?.ok) throw new CommandError(snap?.error || 'the page could not be read', { pageTabId: tab.id });
    const f = await fillFrames(tab.id, snap, maxChars);
    result.selection = { selector: cmd.selector, markdown: f.markdown, truncated: !!(snap.truncated || f.truncated) };
  }
  return { message: `Got the page ${withoutPasswords(tab.url)}`, result, pageTabId: tab.id, alwaysPage: true };
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
      // (or in a cross-origin frame, which the top frame cannot read)
      present = r.present || (await presentInFrames(tab.id, { text, selector }));
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
