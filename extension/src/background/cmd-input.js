// Handlers of the page actions: click, type, press_key, scroll, select_option (see handlers.js).
// Each runs in the content script (or through the debugger when trusted input is granted), in the
// top frame first, then in cross-origin frames by ref (frames.js), and settles the page after it.
import { actAnywhere } from './frames.js';
import { settleAfterAction, waitTabComplete, quiet, NAV_WINDOW_MS, ACTION_SETTLE, settleNotes } from './settle.js';
import { NavTracker, tabNavError } from './nav-tracker.js';
import { resolveTab } from './tabs.js';
import { refusal, isScriptableUrl } from './url-policy.js';
import { ensurePageScripts } from './page-scripts.js';
import { trustedAct, actionDone, downloadsSince } from './trusted.js';
import { callContent } from './content-bridge.js';
import { CommandError, navError, sleep } from './errors.js';
import { createDrivenTab } from './driven.js';

// A page action (the content script's `act`, or trusted input) with its settling: also used by
// cmd-pointer.js and cmd-forms.js.
export async function pageAction(c, cmd) {
  const tab = await resolveTab(cmd.tabId);
  const needsPage = cmd.wait_for_page_info !== false;
  const params = { ...cmd };
  delete params.requestId; delete params.command; delete params.tabId; delete params.wait_for_page_info;
  const tracker = new NavTracker(tab.id);
  // The page scripts answer the dialogs the action may open, and settle it (src/page/).
  if (isScriptableUrl(tab.url)) await ensurePageScripts(tab.id);
  const actionAt = Date.now();
  try {
    // Trusted input (the debugger) when the user granted it, else the content script's events.
    // The wait after it begins in the action's own call (content-bridge.js), when it is read next.
    const settle = needsPage ? { actionAt, ...ACTION_SETTLE } : undefined;
    const t = await trustedAct(tab.id, c, params);
    const r = (t?.lost ? null : t) ?? await actAnywhere(tab.id, { command: c, params, settle });
    if (t?.lost && r.ok) r.message += ' (the browser did not pass its trusted input on to the page, so the content script acted instead)';
    if (!r.ok) throw new CommandError(r.error, { pageTabId: tab.id, noPage: !!r.unresponsive });
    // A target=_blank link whose URL open_url would refuse (file:, data:, javascript: …): the
    // extension does not open it, and a tab Chrome opened for it (left empty, as Chrome blocks
    // such navigations from pages) is closed again, so the answer is the refusal, not a blank tab.
    const no = r.newTabUrl ? refusal(r.newTabUrl) : null;
    if (no) {
      const t0 = Date.now();
      while (tracker.newTabId == null && Date.now() - t0 < NAV_WINDOW_MS) await tracker.changed(NAV_WINDOW_MS - (Date.now() - t0));
      if (tracker.newTabId != null) {
        const nt = await chrome.tabs.get(tracker.newTabId).catch(() => null);
        const u = nt ? nt.url || nt.pendingUrl || '' : '';
        if (nt && !/^https?:/i.test(u)) await chrome.tabs.remove(nt.id).catch(() => {});
      }
      throw new CommandError(`${r.message}, but its link was not followed: ${no}.`, { pageTabId: tab.id, result: { tabId: tab.id, refusedUrl: String(r.newTabUrl).slice(0, 2000) } });
    }
    let pageTabId = tab.id;
    let settled = null;
    if (needsPage) {
      ({ tabId: pageTabId, settle: settled } = await settleAfterAction(tracker, { actionAt, external: !!r.externalUrl, toggle: c === 'click' }));
    } else {
      await sleep(50);
    }
    // A target=_blank link that the popup blocker swallowed: open it ourselves (its URL passed
    // the policy above: only what open_url would open).
    if (r.newTabUrl && tracker.newTabId == null && !tracker.started) {
      const nt = await createDrivenTab({ url: r.newTabUrl, active: true, openerTabId: tab.id, windowId: tab.windowId });
      await waitTabComplete(nt.id, Date.now() + 20_000);
      settled = { ...(await quiet(nt.id, { since: actionAt })), waited_ms: Date.now() - actionAt };
      pageTabId = nt.id;
    }
    const failed = tracker.started || pageTabId !== tab.id ? tabNavError(pageTabId) : null;
    if (failed) throw navError(failed.url, failed.error, pageTabId, r.message);
    // Text typed by the content script that the page put back once it settled (content/actions.js
    // typedPutBack): not taken, whatever the typing looked like.
    if (c === 'type' && r.typedCheck && !r.frameOrigin && needsPage && pageTabId === tab.id && !tracker.started) {
      const k = await callContent(tab.id, 'typedKept').catch(() => null);
      if (typeof k?.back === 'string') throw new CommandError(`${r.message.replace(/ \(the field holds[^)]*\)$/, '')}, but the page then put back what the field held before, ${JSON.stringify(k.back.slice(0, 200))}: it did not take the text`, { pageTabId: tab.id });
    }
    // A form submission the browser refused (or a field the page reported as not valid: its
    // reportValidity()): the field it found invalid, and its message.
    const invalid = settled?.invalid;
    const toggled = settled?.toggled;
    if (invalid || toggled) { settled = { ...settled }; delete settled.invalid; delete settled.toggled; }
    const result = { tabId: pageTabId, ...(r.frameOrigin ? { frameOrigin: r.frameOrigin } : {}), ...(settled ? { settle: settled } : {}), ...(invalid ? (invalid.reported ? { invalidField: { field: invalid.field, message: invalid.message } } : { formNotSubmitted: invalid }) : {}) };
    let message = r.message;
    // A checkbox, radio button, switch or toggle button clicked: what it is now, or that the page kept it.
    // One the click took off the page (a menu's checkbox item, gone with the menu that closed): what
    // it was, not as what it is (its token in the answer loses the state it had before the click).
    if (toggled?.after === null && pageTabId === tab.id) {
      if (toggled.was && toggled.as) message = message.replace(toggled.was, toggled.as);
      message += `; it was ${toggled.before} before the click, and ${toggled.gone === 'menu' ? 'the menu it was in closed, so its state now cannot be read (open the menu again to see it)' : 'it is no longer on the page, so its state now cannot be read'}`;
      result.toggle = { before: toggled.before, after: null };
    } else if (toggled && pageTabId === tab.id) {
      if (toggled.after !== toggled.before) message += `; it is now ${toggled.after}`;
      else if (toggled.radio && toggled.after === 'checked') message += '; it was already checked';
      else message += `; it is still ${toggled.after}: the click did not change it`;
      result.toggle = { before: toggled.before, after: toggled.after };
    }
    if (invalid) {
      const why = `the field ${JSON.stringify(invalid.field)} is not valid${invalid.message ? ` (${JSON.stringify(invalid.message)})` : ''}`;
      message += invalid.reported ? `; the page showed that ${why}` : `; the browser did not submit the form: ${why}`;
    }
    // What the action downloaded (known with trusted input): said, each file once it is in.
    const files = await downloadsSince(tab.id, actionAt, DOWNLOAD_WAIT_MS);
    if (files.length) { result.downloads = files; message += `; ${files.map(downloadWords).join('; ')}`; }
    // A scroll that reached the bottom of a page that then loaded more (a feed): no longer so.
    if (c === 'scroll' && r.atBottom && needsPage && pageTabId === tab.id && !r.frameOrigin) {
      const g = (await callContent(tab.id, 'grown').catch(() => null))?.grown;
      if (g) message = message.replace(', at the bottom', '') + `; then ${g.more ? 'more loaded below' : 'its content grew'} (it grew from ${g.from} to ${g.to} px)${g.atBottom ? '' : ', so there is more to scroll down'}`;
    }
    // (a new address of the page's own, pushed by the action, not drawn within the route's wait:
    // the page read is still the one before it, page/settle.js)
    if (settled?.pending?.route) message += '; the page had not drawn the address it moved to after 2 s, so the page read may still be the one before it: get the page again';
    message += settleNotes(settled);
    if (pageTabId !== tab.id) message += `; it opened tab ${pageTabId}`;
    // A mailto:, tel: or app link: not followed for an agent (content/actions.js holdExternal).
    else if (r.externalUrl && !tracker.started) message += `; its link was not followed: its address ${r.externalUrl} opens another application (such as an email program), which an agent's click does not start, and the tab stays on this page`;
    return { message, result, pageTabId, loaded: tracker.started || pageTabId !== tab.id };
  } finally { tracker.stop(); actionDone(tab.id); }
}

const DOWNLOAD_WAIT_MS = 3000; // a download the action began is waited for this long to be in

// One download as the answer says it.
function downloadWords(d) {
  const name = JSON.stringify(d.name || d.url);
  const size = (n) => (n < 1024 ? `${n} bytes` : n < 1048576 ? `${(n / 1024).toFixed(1)} KB` : `${(n / 1048576).toFixed(1)} MB`);
  if (d.state === 'completed') return `it downloaded ${name} (${size(d.bytes)}) into the browser's downloads`;
  if (d.state === 'canceled') return `the browser began downloading ${name}, and the download was cancelled`;
  return `it is downloading ${name} (${size(d.bytes)}${d.total ? ` of ${size(d.total)}` : ''} so far)`;
}

export const clickAction = (cmd) => pageAction('click', cmd);
export const typeAction = (cmd) => pageAction('type', cmd);
export const pressKeyAction = (cmd) => pageAction('press_key', cmd);
export const scrollAction = (cmd) => pageAction('scroll', cmd);
export const selectAction = (cmd) => pageAction('select_option', cmd);
