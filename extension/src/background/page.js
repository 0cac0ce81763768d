// The page of a tab as sent to the daemon (pageInfoUpdate): read through the content script,
// cross-origin frames filled in, and cut to fit the daemon's max_message_bytes.
import { callContent, takeLoadedSnapshot } from './content-bridge.js';
import { fillFrames } from './frames.js';
import { MAX_PAGE_CHARS } from '../shared/limits.js';
import { waitTabComplete } from './settle.js';
import { tabNavError } from './nav-tracker.js';
import { getMaxMessageBytes, messageBytes } from './connection.js';
import { isScriptableUrl } from './url-policy.js';
import { netSentence, sleep } from './errors.js';

// The most characters of Markdown a page may have: the cap, and never more than the daemon
// takes in one message (a character is at least one byte of UTF-8 JSON).
export function pageCharBudget() {
  return Math.min(MAX_PAGE_CHARS, getMaxMessageBytes());
}

// The page of a tab as it is now: { page } or, when there is no true page to send (a closed tab,
// Chrome's error page, a browser page, a page that does not answer), { why, netError? } —
// never a placeholder text posing as the page.
export async function readPage(tabId) {
  // The snapshot a page that has just loaded took itself (background/ready.js): nothing to ask.
  const maxChars0 = pageCharBudget();
  const ready = takeLoadedSnapshot(tabId, maxChars0);
  if (ready) return { page: await pageOf(tabId, { tabId, url: '', title: '' }, ready, maxChars0) };
  let tab;
  try { tab = await chrome.tabs.get(tabId); } catch { tab = null; }
  if (!tab) return { why: `tab ${tabId} is closed` };
  const base = { tabId, url: tab.url || '', title: tab.title || '' };
  const failed = tabNavError(tabId);
  if (failed) return { why: `the tab shows the browser's error page: ${netSentence(failed.url || tab.url, failed.error)}`, netError: failed.error, url: failed.url || tab.url };
  if (tab.url === 'about:blank') return { page: { ...base, markdown: '', truncated: false } };
  if (!isScriptableUrl(tab.url)) {
    return { why: `this page (${tab.url || tab.pendingUrl || 'an empty tab'}) is a browser page that extensions cannot read` };
  }
  // A load still in progress (e.g. get_page right after the user clicked): wait for it, briefly.
  if (tab.status === 'loading') await waitTabComplete(tabId, Date.now() + 10_000);
  const maxChars = pageCharBudget();
  let snap;
  for (let i = 0; i < 3; i++) {
    try {
      snap = await callContent(tabId, 'snapshot', { maxChars });
      if (snap.ok) break;
    } catch (e) {
      snap = { ok: false, error: e.message };
      if (e.unresponsive || /no access|cannot be read/.test(e.message)) break;
    }
    await sleep(300);
  }
  if (!snap?.ok) {
    const again = tabNavError(tabId); // the page failed to load meanwhile
    if (again) return { why: `the tab shows the browser's error page: ${netSentence(again.url || tab.url, again.error)}`, netError: again.error, url: again.url || tab.url };
    return { why: `the page could not be read: ${snap?.error || 'unknown error'}` };
  }
  return { page: await pageOf(tabId, base, snap, maxChars) };
}

// The page to send from the top frame's snapshot: its frames filled in (frames.js).
async function pageOf(tabId, base, snap, maxChars) {
  const f = await fillFrames(tabId, snap, maxChars);
  // documentId: the content script's id of this document (refs.js), so the daemon can answer a
  // caller that already has this document's page with what changed.
  const documentId = typeof snap.documentId === 'string' ? snap.documentId : undefined;
  return { ...base, url: clipBytes(withoutPasswords(snap.url || base.url), URL_BYTES), title: clipBytes(snap.title ?? base.title, TITLE_BYTES), markdown: f.markdown, truncated: !!(snap.truncated || f.truncated), ...(documentId ? { documentId } : {}), ...(snap.httpStatus ? { httpStatus: snap.httpStatus } : {}) };
}

const cutNote = (max) => `\n\n[… truncated: the page was cut to fit the daemon's max_message_bytes (${max} bytes) …]`;

// The first `n` UTF-16 units of s, never splitting a surrogate pair.
function cutAt(s, n) {
  if (n <= 0) return '';
  if (n >= s.length) return s;
  const c = s.charCodeAt(n - 1);
  return s.slice(0, c >= 0xd800 && c <= 0xdbff ? n - 1 : n);
}

// The pageInfoUpdate for `page`, its Markdown cut (on a code point boundary, marked truncated)
// so that the message fits the daemon's max_message_bytes; null when even an empty page would
// not fit (a daemon limit far below any page).
export function fitPage(requestId, page) {
  const max = getMaxMessageBytes();
  const full = { requestId, ...page };
  if (messageBytes('pageInfoUpdate', full) <= max) return full;
  const note = cutNote(max);
  const msg = (md) => ({ requestId, ...page, markdown: md, truncated: true });
  if (messageBytes('pageInfoUpdate', msg(note)) > max) return null;
  // Shrink by the ratio of the budget to the size, until it fits (a few rounds: escapes and
  // multi-byte characters make bytes and characters differ unevenly along the text).
  const md = page.markdown;
  let n = Math.min(md.length, max);
  for (let round = 0; round < 30; round++) {
    const out = msg(cutAt(md, n) + note);
    const bytes = messageBytes('pageInfoUpdate', out);
    if (bytes <= max) return out;
    n = Math.min(n - 1, Math.floor(n * (max / bytes) * 0.99));
  }
  return msg(note);
}

// A URL with the values of its password parameters taken out (a form sent with GET puts its
// password field in the address, which went into the Markdown's page and the history as typed).
const PASSWORD_PARAM = /^(pass(word)?|passwd|pwd|pw|new[-_]?password|current[-_]?password|old[-_]?password|password[-_]?confirm(ation)?)$/i;
export function withoutPasswords(url) {
  if (!url || url.indexOf('?') < 0) return url;
  let u;
  try { u = new URL(url); } catch { return url; }
  let hit = false;
  for (const k of [...u.searchParams.keys()]) if (PASSWORD_PARAM.test(k) && u.searchParams.get(k)) { u.searchParams.set(k, '[secret]'); hit = true; }
  return hit ? u.href : url;
}

// The daemon takes a page's address and title up to these sizes (src/limits.h BB_URL_MAX,
// BB_TITLE_MAX): a page titled longer (1,366 CJK characters) was refused, and every call on it
// waited out its whole timeout. Longer ones are cut, at a character, with "…".
const URL_BYTES = 8192, TITLE_BYTES = 4096;
function clipBytes(s, max) {
  if (typeof s !== 'string' || s.length * 3 <= max) return s;
  const b = new TextEncoder().encode(s);
  if (b.length <= max) return s;
  return new TextDecoder().decode(b.slice(0, max - 3)).replace(/\uFFFD$/, '') + '…';
}
