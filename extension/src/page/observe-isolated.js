// Keeps, in the extension's isolated world of each frame, what browser_console_messages and
// browser_network_requests answer for this document: the console messages and fetch/XHR records
// main-world.js sends over the private channel (console-main.js, network-main.js), and the
// Resource Timing entries of every request the document made. A new document starts empty, so
// both lists are "since it loaded". Everything from the page is re-checked here (types, lengths)
// and both lists are bounded in count and characters (src/limits.h); the oldest go first and are
// counted as dropped. The frame's URL is this world's own location, which the page cannot forge.
import { observeEvent } from './channel.js';
import {
  BB_CONSOLE_MAX_ENTRIES, BB_CONSOLE_MAX_CHARS, BB_CONSOLE_MESSAGE_MAX, BB_NETWORK_MAX_ENTRIES, BB_NETWORK_URL_MAX,
} from '../shared/limits.js';

const LEVELS = new Set(['debug', 'info', 'warning', 'error']);
const KINDS = new Set(['console', 'uncaught', 'unhandledrejection']);
const TYPES = new Set(['fetch', 'xmlhttprequest']);

// A URL as listed: no user name or password, at most BB_NETWORK_URL_MAX characters.
export function cleanUrl(u) {
  let s = String(u ?? '');
  try {
    const x = new URL(s);
    if (x.username || x.password) { x.username = ''; x.password = ''; s = String(x); }
  } catch { /* not absolute: as is */ }
  return s.length > BB_NETWORK_URL_MAX ? s.slice(0, BB_NETWORK_URL_MAX) + '…' : s;
}

const RANK = { debug: 0, info: 1, warning: 2, error: 3 };

// The last entries of `list` within opts.limit entries and opts.maxChars characters (size(e)).
function latest(list, opts, size) {
  const limit = Number.isInteger(opts.limit) && opts.limit > 0 ? opts.limit : list.length;
  const maxChars = Number.isFinite(opts.maxChars) && opts.maxChars > 0 ? opts.maxChars : Infinity;
  let chars = 0;
  let i = list.length;
  while (i > 0 && list.length - i < limit && chars + size(list[i - 1]) <= maxChars) chars += size(list[--i]);
  return list.slice(i);
}

const num = (v) => (typeof v === 'number' && Number.isFinite(v) ? v : null);

export function createObserver(doc, secret) {
  const logs = [];
  let logChars = 0;
  let logsDropped = 0;
  const calls = new Map(); // id -> fetch/XHR record, in start order
  let callsDropped = 0;
  const timings = [];
  let timingsDropped = 0;

  function addLog(r) {
    const text = String(r.text ?? '').slice(0, BB_CONSOLE_MESSAGE_MAX);
    const e = {
      level: LEVELS.has(r.level) ? r.level : 'info', kind: KINDS.has(r.kind) ? r.kind : 'console', text, at: Date.now(),
      ...(typeof r.source === 'string' && r.source ? { source: r.source.slice(0, 600) } : {}),
    };
    logs.push(e);
    logChars += text.length;
    while (logs.length > BB_CONSOLE_MAX_ENTRIES || logChars > BB_CONSOLE_MAX_CHARS) {
      logChars -= logs.shift().text.length;
      logsDropped++;
    }
  }

  function addCall(r) {
    const id = Number(r.id);
    if (!Number.isSafeInteger(id)) return;
    if (r.phase === 'start') {
      if (calls.has(id) || !TYPES.has(r.type)) return;
      calls.set(id, { type: r.type, method: String(r.method ?? 'GET').slice(0, 20), url: cleanUrl(r.url), start: num(r.start) ?? 0, status: null, duration: null });
      if (calls.size > BB_NETWORK_MAX_ENTRIES) { calls.delete(calls.keys().next().value); callsDropped++; }
    } else if (r.phase === 'end') {
      const c = calls.get(id);
      if (!c || c.duration !== null) return;
      const st = num(r.status);
      c.status = st !== null && st >= 0 && st < 1000 ? Math.floor(st) : 0;
      c.duration = Math.max(0, num(r.duration) ?? 0);
      if (typeof r.failed === 'string') c.failed = r.failed.slice(0, 60);
    }
  }

  doc.addEventListener(observeEvent(secret), (e) => {
    let r;
    try { r = JSON.parse(String(e.detail)); } catch { return; }
    if (!r || typeof r !== 'object') return;
    if (r.t === 'log') addLog(r);
    else if (r.t === 'req') addCall(r);
  }, true);

  // Every request of the document (its own navigation included), as the browser timed it.
  const addTiming = (t) => {
    timings.push({
      url: cleanUrl(t.name), type: t.entryType === 'navigation' ? 'document' : String(t.initiatorType || 'other'),
      status: t.responseStatus || null, size: t.transferSize || t.encodedBodySize || 0,
      start: t.entryType === 'navigation' ? 0 : t.startTime, duration: t.duration,
    });
    if (timings.length > BB_NETWORK_MAX_ENTRIES) { timings.shift(); timingsDropped++; }
  };
  try {
    new PerformanceObserver((list) => list.getEntries().forEach(addTiming)).observe({ type: 'resource', buffered: true });
  } catch { /* no Resource Timing */ }

  return {
    // What the service worker asked for (opts: level, filter, limit, maxChars): the latest entries
    // that match, at most `limit` of them and `maxChars` characters of text, and how many matched.
    console(opts = {}) {
      const min = RANK[opts.level] ?? 0;
      const all = logs.filter((m) => RANK[m.level] >= min);
      return { messages: latest(all, opts, (m) => m.text.length), matched: all.length, dropped: logsDropped, url: location.href };
    },
    // fetch/XHR records get their size from their timing entry (same type and URL, the nearest start);
    // the other timing entries are listed as GET (see network-main.js for why).
    network(opts = {}) {
      const nav = performance.getEntriesByType('navigation')[0];
      const list = timings.slice();
      if (nav) {
        const t = { url: cleanUrl(nav.name), type: 'document', status: nav.responseStatus || null, size: nav.transferSize || nav.encodedBodySize || 0, start: 0, duration: nav.duration || null };
        list.unshift(t);
      }
      const used = new Set();
      const out = [];
      for (const c of calls.values()) {
        let i = -1;
        list.forEach((t, k) => {
          if (used.has(k) || t.type !== c.type || t.url !== c.url) return;
          if (i < 0 || Math.abs(t.start - c.start) < Math.abs(list[i].start - c.start)) i = k;
        });
        let size = null;
        if (i >= 0) { used.add(i); size = list[i].size; }
        out.push({ method: c.method, url: c.url, status: c.status, type: c.type, size, duration: c.duration, start: c.start, ...(c.failed ? { failed: c.failed } : {}) });
      }
      list.forEach((t, k) => { if (!used.has(k)) out.push({ method: 'GET', ...t }); });
      out.sort((a, b) => a.start - b.start);
      const filter = typeof opts.filter === 'string' ? opts.filter.toLowerCase() : '';
      const all = filter ? out.filter((q) => q.url.toLowerCase().includes(filter)) : out;
      return { requests: latest(all, opts, (q) => q.url.length), matched: all.length, dropped: callsDropped + timingsDropped, url: location.href, timeOrigin: performance.timeOrigin };
    },
  };
}
