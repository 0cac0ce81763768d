// An agent that sends seeded random, malformed and hostile HTTP requests (methods, paths,
// query strings with full-text syntax, headers, bodies, JSON-RPC to /mcp) while a browser
// answers: every request gets a well-formed answer (never a 5xx but 503/504 for calls, JSON
// errors under /api and /mcp), and afterwards the daemon is healthy, serves a normal call and
// has logged no sanitizer report. BB_FUZZ_SEED and BB_FUZZ_N vary the run; BB_FUZZ_DEBUG=1
// prints the tail of the daemon log.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startDaemon, connectPeer, tool, rng, FUZZ_SEED } from './support/harness.mjs';

const N = Math.max(100, Number(process.env.BB_FUZZ_N) || 1500);

const TOOLS = ['browser_click', 'browser_type', 'browser_open_url', 'browser_get_page', 'browser_scroll',
  'browser_wait_for', 'browser_press_key', 'browser_select_option', 'browser_screenshot', 'browser_list_tabs', 'nope'];
const WORDS = ['checkout', 'w17', '"exact phrase"', 'a*', 'NEAR(a b)', 'title:x', '-x', '^start', '(', ')', '"',
  'AND', 'OR', 'NOT', '*', ':', '\u0000', 'ü', '😀', '%', '%00', '%zz', "'; DROP TABLE pages; --", 'x'.repeat(2000)];
const NUMS = ['0', '-1', '1', '500', '501', '99999999999999999999', '1e3', 'abc', '', ' 5', '0x10', '5 '];
const STRINGS = ['', 'Login', 'ünï', '\u0000', 'e1', '#id', 'javascript:alert(1)', 'http://127.0.0.1/', 'x'.repeat(5000)];

function value(r, depth = 0) {
  switch (r.int(depth > 2 ? 4 : 6)) {
    case 0: return null;
    case 1: return r() < 0.5;
    case 2: return r.pick([0, -1, 1e308, 2 ** 53 + 1, 0.5, 30000, 100]);
    case 3: return r.pick(STRINGS);
    case 4: return Array.from({ length: r.int(4) }, () => value(r, depth + 1));
    default: {
      const o = {};
      for (let i = r.int(5); i > 0; i--) o[r.pick(['target', 'text', 'url', 'timeout_ms', 'tab_id', 'client_id', 'wait_for_page_info', 'key', 'value', 'direction', 'x'])] = value(r, depth + 1);
      return o;
    }
  }
}

const enc = (s) => encodeURIComponent(s);

function request(r) {
  const k = r.int(9);
  const method = r() < 0.85 ? (r() < 0.5 ? 'GET' : 'POST') : r.pick(['PUT', 'DELETE', 'OPTIONS', 'PATCH', 'HEAD']);
  let path;
  if (k <= 2) path = `/api/tools/${r.pick(TOOLS)}`;
  else if (k === 3) path = `/api/history?${r() < 0.8 ? `q=${enc(Array.from({ length: 1 + r.int(3) }, () => r.pick(WORDS)).join(' '))}&` : ''}limit=${enc(r.pick(NUMS))}&before=${enc(r.pick(NUMS))}&url=${enc(r.pick(WORDS))}`;
  else if (k === 4) path = `/api/history/${r.pick(NUMS)}`;
  else if (k === 5) path = r.pick(['/api/commands?limit=' + enc(r.pick(NUMS)), '/api/status', '/api/tools', '/api/pairing', '/api/health', '/', '/index.html', '/login?t=' + enc(r.pick(STRINGS)), '/logout', '/api/', '/api/tools/', '/%2e%2e/%2e%2e/etc/passwd', '/api/history/1/../../status', '/' + 'a'.repeat(3000)]);
  else path = '/mcp';
  const headers = {};
  if (r() < 0.9) headers.Authorization = 'TOKEN';
  if (method === 'POST' || r() < 0.1) headers['Content-Type'] = r() < 0.85 ? 'application/json' : r.pick(['text/plain', 'application/json; charset=latin1', '']);
  if (r() < 0.2) headers.Accept = r.pick(['text/markdown', 'text/event-stream', '*/*', 'application/json']);
  if (r() < 0.1) headers.Origin = r.pick(['http://127.0.0.1:1', 'null', 'https://evil.example']);
  let body;
  if (method === 'POST') {
    if (path === '/mcp') {
      const msg = { jsonrpc: r() < 0.9 ? '2.0' : '1.0', method: r.pick(['initialize', 'tools/list', 'tools/call', 'ping', 'notifications/initialized', 'resources/list', 7]), params: r() < 0.5 ? { name: r.pick(TOOLS), arguments: value(r) } : value(r) };
      if (r() < 0.8) msg.id = r.pick([1, 'a', null, 1.5, {}]);
      body = JSON.stringify(r() < 0.15 ? [msg, msg] : msg);
    } else {
      body = r() < 0.8 ? JSON.stringify(value(r)) : r.pick(['{', '{"target":', 'null', '[]', '\u0000', '{"a":1}{"b":2}', '{"target":"x"}'.repeat(3)]);
    }
    if (r() < 0.1) body = body.slice(0, r.int(body.length + 1));
  }
  return { method, path, headers, body };
}

test(`${N} seeded hostile HTTP requests (seed ${FUZZ_SEED})`, { timeout: 180000 }, async (t) => {
  const d = await startDaemon({ args: ['--max-body-bytes', '65536'] });
  try {
    const r = rng();
    await connectPeer(d, { clientId: 'answers' });
    const bad = [];
    const statuses = new Map();
    let i = 0;
    const worker = async () => {
      while (i < N) {
        const q = request(r);
        i++;
        if (q.headers.Authorization) q.headers.Authorization = `Bearer ${d.token}`;
        // A tool call waits for the browser (which answers), a page for at most a second.
        if (q.path.startsWith('/api/tools/') && q.body && q.body.startsWith('{') && q.body.endsWith('}') && !q.body.includes('timeout_ms')) {
          q.body = q.body.slice(0, -1) + (q.body === '{}' ? '' : ',') + '"timeout_ms":1000}';
        }
        let res, text;
        try {
          res = await fetch(d.base + q.path, { method: q.method, headers: q.headers, body: q.body, signal: AbortSignal.timeout(20000) });
          text = await res.text();
        } catch (e) {
          bad.push(`${q.method} ${q.path.slice(0, 80)}: ${e.message}`);
          continue;
        }
        statuses.set(res.status, (statuses.get(res.status) || 0) + 1);
        const call = q.path.startsWith('/api/tools/') || q.path === '/mcp';
        if (res.status >= 500 && !(call && (res.status === 503 || res.status === 504))) bad.push(`${q.method} ${q.path.slice(0, 80)} → ${res.status} ${text.slice(0, 120)}`);
        if (res.status >= 400 && (q.path.startsWith('/api/') || q.path === '/mcp') && q.method !== 'HEAD' && res.status !== 405 && res.status !== 431 && res.status !== 414) {
          let j = null;
          try { j = JSON.parse(text); } catch { /* checked below */ }
          if (!j || (typeof j.error !== 'string' && typeof j.error?.message !== 'string')) bad.push(`${q.method} ${q.path.slice(0, 80)} → ${res.status} without a JSON error: ${text.slice(0, 120)}`);
        }
      }
    };
    await Promise.all(Array.from({ length: 8 }, worker));
    t.diagnostic(`answers by status: ${JSON.stringify([...statuses].sort((a, b) => a[0] - b[0]))}`);
    assert.deepEqual(bad.slice(0, 20), [], `${bad.length} bad answers; statuses ${JSON.stringify([...statuses])}`);
    assert.ok(statuses.size >= 5, `too few kinds of answers: ${JSON.stringify([...statuses])}`);
    const after = await tool(d, 'browser_click', { target: 'after the storm' });
    assert.equal(after.status, 200, after.text);
    assert.equal(after.body.page.markdown, '# Page for after the storm');
  } finally {
    if (process.env.BB_FUZZ_DEBUG) console.error(d.log.slice(-6000));
    const res = await d.stop();
    assert.equal(res.code, 0, d.log.slice(-3000));
    assert.doesNotMatch(d.log, /AddressSanitizer|runtime error|LeakSanitizer/, d.log.slice(-3000));
  }
});
