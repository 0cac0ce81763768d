// Handlers of the commands that observe a page without acting on it: find (browser_find),
// console_messages and network_requests (see handlers.js). find searches the page's Markdown
// (page.js: through open shadow roots and every frame) and answers only the matching lines; the
// console and the requests are kept per document by the page scripts of each frame
// (src/page/observe-isolated.js) and gathered here from every frame of the tab.
import { resolveTab } from './tabs.js';
import { readPage } from './page.js';
import { ensurePageScripts } from './page-scripts.js';
import { CommandError } from './errors.js';
import { BB_FIND_LIMIT_DEFAULT, BB_FIND_LIMIT_MAX, BB_FIND_LINE_MAX, BB_CONSOLE_LIMIT_DEFAULT, BB_CONSOLE_MAX_ENTRIES, BB_NETWORK_LIMIT_DEFAULT, BB_NETWORK_MAX_ENTRIES } from '../shared/limits.js';

// A limit parameter within [1, max], else the default (the daemon checked it already).
const limitOf = (v, def, max) => (Number.isInteger(v) && v >= 1 ? Math.min(v, max) : def);

// The Markdown escapes a character of the page's text may carry (snapshot.js's escapeMd).
const ESCAPABLE = new Set(['\\', '*', '_', '`', '[', ']', '-', '+', '=', '#', '~', '>', '.']);

// What the Markdown puts around inline markup: emphasis and code marks (<b>, <em>, <code>, <s>),
// a link's brackets, URL and ref. The page shows "foo bar" for `foo <b>bar</b>` and for
// `<a href=u>foo</a> bar`; the Markdown says `foo **bar**` and `[foo](u) [e3] bar`.
const MARKS = '(?:[*_~`[]|\\]\\([^)\\s]*\\)(?: \\[(?:labelled "[^"]*" )?e\\d+\\])?)*';

// A regular expression for `text` in a Markdown line: case-insensitive, white space matching any
// white space, each character that Markdown may escape matching with or without its backslash, and
// inline marks allowed between the characters.
export function findPattern(text) {
  const units = [];
  for (const ch of String(text).trim()) {
    if (/\s/.test(ch)) { if (units[units.length - 1] !== '\\s+') units.push('\\s+'); continue; }
    const esc = ch.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
    units.push(ESCAPABLE.has(ch) ? `\\\\?${esc}` : esc);
  }
  return new RegExp(units.join(MARKS), 'iu');
}

const REF = /\b(e\d+)\]/g;

// The ref nearest to position `at` of line `i`: one in the line (the closest), else the closest
// line above or below with one (above first on a tie), within 30 lines.
function nearestRef(lines, i, at) {
  const inLine = [...lines[i].matchAll(REF)];
  if (inLine.length) return inLine.reduce((b, m) => (Math.abs(m.index - at) < Math.abs(b.index - at) ? m : b))[1];
  for (let d = 1; d <= 30; d++) {
    for (const k of [i - d, i + d]) {
      if (k < 0 || k >= lines.length) continue;
      const refs = [...lines[k].matchAll(REF)];
      if (refs.length) return (k < i ? refs[refs.length - 1] : refs[0])[1];
    }
  }
  return null;
}

// The line cut to BB_FIND_LINE_MAX characters around the match.
function around(line, at, len) {
  if (line.length <= BB_FIND_LINE_MAX) return line;
  const start = Math.max(0, Math.min(at - Math.floor((BB_FIND_LINE_MAX - len) / 2), line.length - BB_FIND_LINE_MAX));
  return (start > 0 ? '…' : '') + line.slice(start, start + BB_FIND_LINE_MAX) + (start + BB_FIND_LINE_MAX < line.length ? '…' : '');
}

export async function findText(cmd) {
  const tab = await resolveTab(cmd.tabId);
  if (typeof cmd.text !== 'string' || !cmd.text.trim()) throw new CommandError('find needs the text to find');
  const limit = limitOf(cmd.limit, BB_FIND_LIMIT_DEFAULT, BB_FIND_LIMIT_MAX);
  const got = await readPage(tab.id);
  if (!got.page) throw new CommandError(`cannot search the page: ${got.why}`, { pageTabId: tab.id });
  const re = findPattern(cmd.text);
  const lines = got.page.markdown.split('\n');
  const matches = [];
  let total = 0;
  lines.forEach((line, i) => {
    const m = re.exec(line);
    if (!m) return;
    total++;
    if (matches.length < limit) matches.push({ line: i + 1, text: around(line, m.index, m[0].length), ref: nearestRef(lines, i, m.index) });
  });
  const what = JSON.stringify(cmd.text.slice(0, 100));
  const message = total ? `Found ${what} on ${total} line${total === 1 ? '' : 's'} of the page${total > matches.length ? ` (the first ${matches.length} returned)` : ''}` : `${what} is not on the page`;
  return {
    message,
    result: { tabId: tab.id, url: got.page.url, matches, total, lines: lines.length, ...(got.page.truncated ? { page_truncated: true } : {}) },
    pageTabId: tab.id,
  };
}

// Characters of message text or URLs one answer gathers from all the tab's frames together: a
// page with many frames, each with full lists, is read a share per frame, never all at once.
const GATHER_CHARS = 4_000_000;

// What each frame's page script kept (`what`: 'console' or 'network') and matches opts (level,
// filter, limit), top frame first.
async function gather(tabId, what, opts) {
  await ensurePageScripts(tabId);
  const frames = await chrome.webNavigation.getAllFrames({ tabId }).catch(() => null);
  const maxChars = Math.floor(GATHER_CHARS / Math.max(1, frames?.length || 1));
  let res;
  try {
    res = await chrome.scripting.executeScript({
      target: { tabId, allFrames: true },
      func: (w, o) => (globalThis.__bbPage && globalThis.__bbPage.observed ? globalThis.__bbPage.observed(w, o) : null),
      args: [what, { ...opts, maxChars }],
    });
  } catch (e) {
    throw new CommandError(`cannot read the tab's ${what === 'network' ? 'requests' : 'console'}: ${e.message}`, { pageTabId: tabId });
  }
  return (res || []).filter((r) => r && r.result && typeof r.result === 'object').sort((a, b) => (a.frameId === 0 ? -1 : b.frameId === 0 ? 1 : a.frameId - b.frameId));
}

const RANK = { debug: 0, info: 1, warning: 2, error: 3 };

export async function consoleMessages(cmd) {
  const tab = await resolveTab(cmd.tabId);
  const min = RANK[cmd.level] ?? 0;
  const limit = limitOf(cmd.limit, BB_CONSOLE_LIMIT_DEFAULT, BB_CONSOLE_MAX_ENTRIES);
  const frames = await gather(tab.id, 'console', { level: cmd.level, limit });
  const all = [];
  let dropped = 0;
  let matched = 0;
  for (const f of frames) {
    const r = f.result;
    dropped += Number(r.dropped) || 0;
    matched += Number(r.matched) || 0;
    for (const m of Array.isArray(r.messages) ? r.messages : []) {
      if ((RANK[m.level] ?? 0) < min) continue;
      all.push({ level: m.level, kind: m.kind, text: m.text, time: new Date(m.at).toISOString(), ...(m.source ? { source: m.source } : {}), ...(f.frameId !== 0 ? { frame_url: String(r.url) } : {}), at: m.at });
    }
  }
  all.sort((a, b) => a.at - b.at);
  const messages = all.slice(-limit).map(({ at, ...m }) => m);
  const total = Math.max(matched, all.length);
  return {
    message: `${total} console message${total === 1 ? '' : 's'}${min ? ` of level ${cmd.level} or above` : ''} since the page loaded${total > messages.length ? `; the latest ${messages.length} returned` : ''}`,
    result: { tabId: tab.id, messages, total, ...(dropped ? { dropped } : {}) },
    pageTabId: tab.id,
  };
}

export async function networkRequests(cmd) {
  const tab = await resolveTab(cmd.tabId);
  const limit = limitOf(cmd.limit, BB_NETWORK_LIMIT_DEFAULT, BB_NETWORK_MAX_ENTRIES);
  const filter = typeof cmd.filter === 'string' ? cmd.filter.toLowerCase() : '';
  const frames = await gather(tab.id, 'network', { filter, limit });
  const all = [];
  let dropped = 0;
  let matched = 0;
  for (const f of frames) {
    const r = f.result;
    dropped += Number(r.dropped) || 0;
    matched += Number(r.matched) || 0;
    const origin = Number(r.timeOrigin) || 0;
    for (const q of Array.isArray(r.requests) ? r.requests : []) {
      const url = String(q.url ?? '');
      if (filter && !url.toLowerCase().includes(filter)) continue;
      const at = origin + (Number(q.start) || 0);
      all.push({
        method: String(q.method), url, status: q.status ?? null, type: String(q.type),
        size: Number.isFinite(q.size) ? q.size : null, duration_ms: Number.isFinite(q.duration) ? Math.round(q.duration) : null,
        time: new Date(at).toISOString(), ...(q.failed ? { failed: String(q.failed) } : {}), ...(f.frameId !== 0 ? { frame_url: String(r.url) } : {}), at,
      });
    }
  }
  all.sort((a, b) => a.at - b.at);
  const requests = all.slice(-limit).map(({ at, ...q }) => q);
  const total = Math.max(matched, all.length);
  return {
    message: `${total} request${total === 1 ? '' : 's'}${filter ? ` matching ${JSON.stringify(cmd.filter.slice(0, 100))}` : ''} since the page loaded${total > requests.length ? `; the latest ${requests.length} returned` : ''}`,
    result: { tabId: tab.id, requests, total, ...(dropped ? { dropped } : {}) },
    pageTabId: tab.id,
  };
}
