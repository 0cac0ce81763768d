// FastCGI behind a real nginx: the shipped etc/nginx/browser-bridge.conf in front of the daemon's
// --fastcgi socket, and a scripted browser (a `ws` client) connecting through nginx's /ws/browser.
//
// Run: node --test tests/integration/fcgi.test.mjs
// Environment:
//   BB_BIN      the daemon (default /work/main/browser-bridge)
//   BB_NGINX    nginx (default /usr/sbin/nginx); the tests skip, saying so, when it is missing
//   BB_DEBUG=1  print the daemon's and nginx's output
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import { rng, helloFor } from './support/harness.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const BIN = process.env.BB_BIN || '/work/main/browser-bridge';
const NGINX = process.env.BB_NGINX || '/usr/sbin/nginx';
const DEBUG = !!process.env.BB_DEBUG;
const EXTENSION_ORIGIN = 'chrome-extension://lpjafomjfpchgbopnmlebcocfkelgpgo';
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const skip = existsSync(NGINX) ? false : `nginx not found at ${NGINX} (apt-get install nginx-light, or set BB_NGINX)`;

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => { const p = s.address().port; s.close(() => resolve(p)); });
  });
}

async function waitFor(fn, what, timeout = 10_000) {
  const t0 = Date.now();
  let last;
  while (Date.now() - t0 < timeout) {
    try { const v = await fn(); if (v) return v; } catch (e) { last = e; }
    await sleep(50);
  }
  throw new Error(`timed out waiting for ${what}${last ? ': ' + last.message : ''}`);
}

function startProc(bin, args, name) {
  const proc = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const grab = (b) => { output += b; if (DEBUG) process.stderr.write(`[${name}] ${b}`); };
  proc.stdout.on('data', grab);
  proc.stderr.on('data', grab);
  const exited = new Promise((r) => proc.once('exit', (code, sig) => r({ code, sig })));
  return { proc, exited, output: () => output };
}

async function stopProc(p) {
  if (!p || p.proc.exitCode !== null || p.proc.signalCode !== null) return p && (await p.exited);
  p.proc.kill('SIGTERM');
  const r = await Promise.race([p.exited, sleep(5000).then(() => null)]);
  if (r === null) { p.proc.kill('SIGKILL'); return { code: null, sig: 'SIGKILL (did not stop on SIGTERM)' }; }
  return r;
}

let env; // { dir, port, token, sock, daemon, nginx, browser }

// One HTTP request to nginx; the Host header is whatever we say (default: nginx's own address).
function request(method, urlPath, { headers = {}, body, host } = {}) {
  return new Promise((resolve, reject) => {
    const h = { host: host || `127.0.0.1:${env.port}`, ...headers };
    if (body !== undefined) h['content-length'] = Buffer.byteLength(body);
    const rq = http.request({ host: '127.0.0.1', port: env.port, method, path: urlPath, headers: h, agent: false }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json;
        try { json = JSON.parse(text); } catch { json = undefined; }
        resolve({ status: res.statusCode, headers: res.headers, text, json });
      });
      res.on('error', reject);
    });
    rq.on('error', reject);
    rq.setTimeout(40_000, () => rq.destroy(new Error(`${method} ${urlPath}: no answer in 40 s`)));
    if (body !== undefined) rq.write(body);
    rq.end();
  });
}

const auth = () => ({ authorization: `Bearer ${env.token}` });
const jsonHeaders = () => ({ ...auth(), 'content-type': 'application/json' });

// A browser that answers every command; a command whose target is "slow" is answered after 2 s.
function startBrowser(url, token) {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { origin: EXTENSION_ORIGIN });
    const b = { ws, commands: [] };
    ws.once('error', reject);
    ws.once('unexpected-response', (_req, res) => reject(new Error(`WebSocket upgrade refused: HTTP ${res.statusCode}`)));
    ws.on('message', (raw) => {
      const m = JSON.parse(raw.toString());
      if (m.type === 'challenge') {
        ws.send(JSON.stringify({ type: 'hello', data: helloFor(m.data.nonce, token, {
          clientId: 'fcgi-test', browser: 'Scripted', browserVersion: '1.0',
          extensionVersion: '1.0.0', capabilities: ['open_url', 'click', 'type', 'get_page'],
        }) }));
      }
      if (m.type === 'welcome') resolve(b);
      if (m.type !== 'command') return;
      const d = m.data;
      b.commands.push(d);
      setTimeout(() => {
        if (ws.readyState !== WebSocket.OPEN) return;
        ws.send(JSON.stringify({ type: 'command_result', data: { requestId: d.requestId, status: 'success', message: `did ${d.command} on ${d.target}` } }));
        ws.send(JSON.stringify({ type: 'pageInfoUpdate', data: {
          requestId: d.requestId, tabId: 1, url: 'http://127.0.0.1:9/scripted', title: 'Scripted page',
          markdown: `# Scripted page\n\nclicked ${d.target}\n`, truncated: false,
        } }));
      }, d.target === 'slow' ? 2000 : 0);
    });
    ws.on('close', (code, reason) => reject(new Error(`WebSocket closed before welcome: ${code} ${reason}`)));
  });
}

// A raw FastCGI client on the daemon's socket, for what nginx never sends (multiplexing, aborts,
// management records, broken records).
function fcgiRecord(type, id, content = Buffer.alloc(0)) {
  const h = Buffer.alloc(8);
  h.writeUInt8(1, 0); h.writeUInt8(type, 1); h.writeUInt16BE(id, 2); h.writeUInt16BE(content.length, 4);
  return Buffer.concat([h, content]);
}

function fcgiPairs(obj) {
  const parts = [];
  for (const [k, v] of Object.entries(obj)) {
    const kb = Buffer.from(k), vb = Buffer.from(String(v));
    for (const len of [kb.length, vb.length]) {
      if (len < 128) parts.push(Buffer.from([len]));
      else { const b = Buffer.alloc(4); b.writeUInt32BE((len | 0x80000000) >>> 0); parts.push(b); }
    }
    parts.push(kb, vb);
  }
  return Buffer.concat(parts);
}

function fcgiParsePairs(buf) {
  const out = {};
  let off = 0;
  const len = () => { if (buf[off] < 128) return buf[off++]; const v = buf.readUInt32BE(off) & 0x7fffffff; off += 4; return v; };
  while (off < buf.length) {
    const nl = len(), vl = len();
    out[buf.subarray(off, off + nl).toString()] = buf.subarray(off + nl, off + nl + vl).toString();
    off += nl + vl;
  }
  return out;
}

// Records of one request: BEGIN_REQUEST, PARAMS (in pieces of at most 65535 bytes), STDIN.
function fcgiRequest(id, { method = 'GET', uri = '/api/status', query = '', body = '', keep = true, headers = {} } = {}) {
  const begin = Buffer.from([0, 1, keep ? 1 : 0, 0, 0, 0, 0, 0]);
  const params = fcgiPairs({ REQUEST_METHOD: method, DOCUMENT_URI: uri, QUERY_STRING: query,
    CONTENT_TYPE: body ? 'application/json' : '', CONTENT_LENGTH: body ? Buffer.byteLength(body) : '',
    HTTP_HOST: `127.0.0.1:${env.port}`, HTTP_AUTHORIZATION: `Bearer ${env.token}`, ...headers });
  const recs = [fcgiRecord(1, id, begin)];
  for (let off = 0; off < params.length; off += 65535) recs.push(fcgiRecord(4, id, params.subarray(off, off + 65535)));
  recs.push(fcgiRecord(4, id));
  if (body) recs.push(fcgiRecord(5, id, Buffer.from(body)));
  recs.push(fcgiRecord(5, id));
  return Buffer.concat(recs);
}

function fcgiConnect() {
  return new Promise((resolve, reject) => {
    const sock = net.connect(env.sock);
    const c = { sock, records: [], closed: false, waiters: [], stdout: new Map(), ended: new Map() };
    let buf = Buffer.alloc(0);
    const check = () => { c.waiters = c.waiters.filter((w) => !w()); };
    sock.on('data', (d) => {
      buf = Buffer.concat([buf, d]);
      while (buf.length >= 8) {
        const type = buf[1], id = buf.readUInt16BE(2), clen = buf.readUInt16BE(4), pad = buf[6];
        if (buf.length < 8 + clen + pad) break;
        const content = buf.subarray(8, 8 + clen);
        c.records.push({ type, id, content });
        if (type === 6) c.stdout.set(id, Buffer.concat([c.stdout.get(id) || Buffer.alloc(0), content]));
        if (type === 3) c.ended.set(id, { protocolStatus: content[4], at: Date.now() });
        buf = buf.subarray(8 + clen + pad);
      }
      check();
    });
    sock.on('close', () => { c.closed = true; check(); });
    sock.on('error', () => {});
    sock.once('connect', () => resolve(c));
    sock.once('error', reject);
    c.until = (pred, what, timeout = 5000) => new Promise((res, rej) => {
      const t = setTimeout(() => rej(new Error(`timed out waiting for ${what}`)), timeout);
      const w = () => { if (!pred()) return false; clearTimeout(t); res(); return true; };
      if (!w()) c.waiters.push(w);
    });
    // The CGI response of request id: status, headers, body.
    c.response = (id) => {
      const text = c.stdout.get(id)?.toString('utf8') || '';
      const [head, ...rest] = text.split('\r\n\r\n');
      const headers = Object.fromEntries(head.split('\r\n').map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 2)]));
      const body = rest.join('\r\n\r\n');
      return { status: Number(headers.status), headers, body, json: body ? JSON.parse(body) : undefined };
    };
  });
}

describe('FastCGI behind nginx', { skip }, () => {
  before(async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'bb-fcgi-'));
    env = { dir, sock: path.join(dir, 'fcgi.sock') };
    const [port, httpPort, wsPort] = [await freePort(), await freePort(), await freePort()];
    env.port = port;
    const tokenFile = path.join(dir, 'token');
    env.daemon = startProc(BIN, ['serve', '--http', `127.0.0.1:${httpPort}`, '--ws', `127.0.0.1:${wsPort}`,
      '--db', path.join(dir, 'bb.db'), '--token-file', tokenFile, '--www', path.join(dir, 'www-none'),
      '--fastcgi', `unix:${env.sock}`, '--allow-host', `127.0.0.1:${port}`, '--max-body-bytes', '65536', '--log-level', 'debug'], 'daemon');
    try {
      await waitFor(() => existsSync(env.sock), `the FastCGI socket ${env.sock}`);
      env.token = await waitFor(async () => (await readFile(tokenFile, 'utf8')).trim(), 'the token file');
    } catch (e) {
      throw new Error(`${e.message}\ndaemon output:\n${env.daemon.output()}`);
    }

    const shipped = await readFile(path.join(ROOT, 'etc/nginx/browser-bridge.conf'), 'utf8');
    const server = shipped.replaceAll('@LISTEN@', `127.0.0.1:${port}`)
      .replaceAll('@FASTCGI_SOCKET@', `unix:${env.sock}`)
      .replaceAll('@WS_UPSTREAM@', `127.0.0.1:${wsPort}`);
    assert.ok(!/@[A-Z_]+@/.test(server), 'every placeholder in the shipped config was substituted');
    await writeFile(path.join(dir, 'browser-bridge.conf'), server);
    const tmpDirs = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']
      .map((d) => `${d}_temp_path ${path.join(dir, d)};`).join('\n  ');
    await writeFile(path.join(dir, 'nginx.conf'), `${process.getuid?.() === 0 ? 'user root;\n' : ''}worker_processes 1;
events { worker_connections 256; }
http {
  access_log off;
  ${tmpDirs}
  include ${path.join(dir, 'browser-bridge.conf')};
}
`);
    env.nginx = startProc(NGINX, ['-p', dir, '-c', path.join(dir, 'nginx.conf'), '-e', 'stderr',
      '-g', `daemon off; pid ${path.join(dir, 'nginx.pid')}; error_log stderr;`], 'nginx');
    try {
      await waitFor(async () => (await request('GET', '/api/health')).status === 200, 'GET /api/health through nginx');
    } catch (e) {
      throw new Error(`${e.message}\nnginx output:\n${env.nginx.output()}\ndaemon output:\n${env.daemon.output()}`);
    }
    env.browser = await startBrowser(`ws://127.0.0.1:${port}/ws/browser`, env.token);
  });

  after(async () => {
    if (!env) return;
    env.browser?.ws.close();
    const n = await stopProc(env.nginx);
    const d = await stopProc(env.daemon);
    if (DEBUG) console.error('nginx exit', n, 'daemon exit', d);
    const sockLeft = existsSync(env.sock);
    await rm(env.dir, { recursive: true, force: true });
    assert.equal(d?.code, 0, `the daemon stops cleanly on SIGTERM:\n${env.daemon.output().slice(-3000)}`);
    assert.ok(!/ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:/.test(env.daemon.output()), 'no sanitizer reports');
    assert.ok(!sockLeft, 'the FastCGI socket is removed on stop');
  });

  test('the socket is private to the daemon user (mode 0600)', () => {
    const st = statSync(env.sock);
    assert.ok(st.isSocket());
    assert.equal(st.mode & 0o777, 0o600);
  });

  test('the scripted browser connected through nginx /ws/browser', async () => {
    const r = await request('GET', '/api/status', { headers: auth() });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.json.browsers.map((b) => b.client_id), ['fcgi-test']);
  });

  test('a tool call through nginx answers with the page', async () => {
    const r = await request('POST', '/api/tools/browser_click', { headers: jsonHeaders(), body: JSON.stringify({ target: 'Login' }) });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.status, 'success');
    assert.equal(r.json.page.title, 'Scripted page');
    assert.match(r.json.page.markdown, /clicked Login/);
    assert.equal(r.headers['content-type'], 'application/json');
    assert.equal(r.headers['cache-control'], 'no-store');
    assert.equal(r.headers['x-content-type-options'], 'nosniff');
    assert.equal(r.headers['x-frame-options'], 'DENY');
    assert.match(r.headers['content-security-policy'], /frame-ancestors 'none'/);
  });

  test('query strings are URL-decoded', async () => {
    const r = await request('GET', '/api/history?limit=0%31&url=scripted', { headers: auth() });
    assert.equal(r.status, 200, r.text);
    assert.ok(r.json.pages.length <= 1);
    const bad = await request('GET', '/api/history?limit=abc', { headers: auth() });
    assert.equal(bad.status, 400);
    assert.equal(bad.json.field, 'limit');
  });

  test('a waiting call does not block other requests', async () => {
    const t0 = Date.now();
    const slow = request('POST', '/api/tools/browser_click', { headers: jsonHeaders(), body: JSON.stringify({ target: 'slow' }) });
    await waitFor(() => env.browser.commands.some((c) => c.target === 'slow'), 'the slow command to reach the browser', 5000);
    const t1 = Date.now();
    const st = await request('GET', '/api/status', { headers: auth() });
    const took = Date.now() - t1;
    assert.equal(st.status, 200);
    assert.equal(st.json.calls_in_flight, 1, 'the slow call is still in flight');
    assert.ok(took < 500, `GET /api/status took ${took} ms while a call waited`);
    const r = await slow;
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.status, 'success');
    assert.ok(Date.now() - t0 >= 1900, 'the slow call really waited');
  });

  test('several waiting calls at once each get their own answer', async () => {
    const targets = ['slow', 'a', 'slow', 'b', 'c'];
    const rs = await Promise.all(targets.map((t) => request('POST', '/api/tools/browser_click',
      { headers: jsonHeaders(), body: JSON.stringify({ target: t }) })));
    rs.forEach((r, i) => {
      assert.equal(r.status, 200, r.text);
      assert.match(r.json.page.markdown, new RegExp(`clicked ${targets[i]}\\n`));
    });
  });

  test('MCP through nginx: initialize gives a session, tools/list works', async () => {
    const init = await request('POST', '/mcp', {
      headers: { ...jsonHeaders(), accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: {
        protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'fcgi-test', version: '1' } } }),
    });
    assert.equal(init.status, 200, init.text);
    const sid = init.headers['mcp-session-id'];
    assert.ok(sid, 'Mcp-Session-Id header');
    assert.equal(init.json.result.serverInfo.name, 'browser-bridge');
    const list = await request('POST', '/mcp', {
      headers: { ...jsonHeaders(), accept: 'application/json, text/event-stream', 'mcp-session-id': sid },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    });
    assert.equal(list.status, 200, list.text);
    assert.ok(list.json.result.tools.some((t) => t.name === 'browser_click'));
    const unknown = await request('POST', '/mcp', {
      headers: { ...jsonHeaders(), 'mcp-session-id': 'nope' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/list' }),
    });
    assert.equal(unknown.status, 404, 'the session header really reaches the daemon');
  });

  test('the dashboard through nginx: /login sets the cookie, / answers with the usual headers', async () => {
    const bad = await request('GET', '/login?code=wrong');
    assert.equal(bad.status, 401);
    assert.equal((await request('GET', `/login?token=${encodeURIComponent(env.token)}`)).status, 401, 'no token in URLs');
    const code = await request('POST', '/api/login-code', { headers: jsonHeaders(), body: '{}' });
    assert.equal(code.status, 200, code.text);
    const login = await request('GET', code.json.path);
    assert.equal(login.status, 303, login.text);
    assert.equal((await request('GET', code.json.path)).status, 401, 'a login code works once');
    assert.equal(login.headers.location, '/');
    const cookie = login.headers['set-cookie']?.[0] || '';
    assert.match(cookie, /^bb_session=[0-9a-f]+; HttpOnly; SameSite=Strict; Path=\//);
    const session = cookie.split(';')[0];
    const page = await request('GET', '/', { headers: { cookie: session } });
    assert.ok(page.status === 200 || (page.status === 404 && page.json?.error === 'not_found'), `GET / → ${page.status}`);
    assert.equal(page.headers['x-frame-options'], 'DENY');
    assert.equal(page.headers['x-content-type-options'], 'nosniff');
    assert.equal(page.headers['cache-control'], 'no-cache');
    assert.match(page.headers['content-security-policy'], /default-src 'self'/);
    const st = await request('GET', '/api/status', { headers: { cookie: session, 'sec-fetch-site': 'same-origin' } });
    assert.equal(st.status, 200, 'the session cookie reaches the daemon as HTTP_COOKIE');
    const cross = await request('GET', '/api/status', { headers: { cookie: session, 'sec-fetch-site': 'same-site' } });
    assert.equal(cross.status, 403, 'a session cookie from another port (same-site) does not count');
  });

  test('a wrong or missing token is refused with 401', async () => {
    const r = await request('POST', '/api/tools/browser_click', {
      headers: { authorization: 'Bearer wrong', 'content-type': 'application/json' }, body: '{"target":"x"}' });
    assert.equal(r.status, 401);
    assert.equal(r.json.error, 'unauthorized');
    assert.equal((await request('GET', '/api/status')).status, 401);
  });

  test('a foreign Host or Origin is refused with 403', async () => {
    const r = await request('GET', '/api/status', { headers: auth(), host: `evil.example:${env.port}` });
    assert.equal(r.status, 403, r.text);
    assert.equal(r.json.error, 'forbidden_host');
    const o = await request('GET', '/api/status', { headers: { ...auth(), origin: 'http://evil.example' } });
    assert.equal(o.status, 403);
    assert.equal(o.json.error, 'forbidden_origin');
    const own = await request('GET', '/api/status', { headers: { ...auth(), origin: `http://127.0.0.1:${env.port}` } });
    assert.equal(own.status, 200, 'the front\'s own origin is accepted');
  });

  test('a body over max_body_bytes (here 64 KiB) is refused by the daemon with 413', async () => {
    const big = JSON.stringify({ target: 'x'.repeat(100 * 1024) });
    const r = await request('POST', '/api/tools/browser_click', { headers: jsonHeaders(), body: big });
    assert.equal(r.status, 413, r.text);
    assert.equal(r.json.error, 'too_large');
    const ok = await request('POST', '/api/tools/browser_type', { headers: jsonHeaders(), body: JSON.stringify({ target: 'field', text: 'y'.repeat(60 * 1024) }) });
    assert.equal(ok.status, 200, 'a body under the cap still goes through');
  });

  test('a WebSocket from a foreign Origin is still refused through nginx', async () => {
    const ws = new WebSocket(`ws://127.0.0.1:${env.port}/ws/browser`, { origin: 'http://evil.example' });
    const status = await new Promise((resolve) => {
      ws.once('unexpected-response', (_q, res) => resolve(res.statusCode));
      ws.once('open', () => resolve('open'));
      ws.once('error', () => resolve('error'));
    });
    ws.terminate();
    assert.equal(status, 403);
  });

  test('the WebSocket Host check holds through nginx: a foreign Host (DNS rebinding) is refused', async () => {
    const upgrade = (host) => new Promise((resolve) => {
      const ws = new WebSocket(`ws://127.0.0.1:${env.port}/ws/browser`, { origin: EXTENSION_ORIGIN, headers: { host } });
      ws.once('unexpected-response', (_q, res) => { resolve(res.statusCode); ws.terminate(); });
      ws.once('open', () => { resolve('open'); ws.terminate(); });
      ws.once('error', () => resolve('error'));
    });
    assert.equal(await upgrade(`evil.example:${env.port}`), 403, 'a rebinding page\'s Host reaches the daemon and is refused');
    assert.equal(await upgrade(`127.0.0.1:${env.port}`), 'open', 'nginx\'s own address, as --allow-host says');
  });

  test('GET /api/events streams hello, then call_start, through nginx', async () => {
    let text = '';
    const stream = await new Promise((resolve, reject) => {
      const rq = http.get({ host: '127.0.0.1', port: env.port, path: '/api/events', agent: false,
        headers: { host: `127.0.0.1:${env.port}`, ...auth() } }, resolve);
      rq.on('error', reject);
    });
    try {
      assert.equal(stream.statusCode, 200);
      assert.match(stream.headers['content-type'], /^text\/event-stream/);
      stream.on('data', (c) => { text += c; });
      await waitFor(() => text.includes('event: hello\n'), 'the hello event', 5000);
      const call = request('POST', '/api/tools/browser_click', { headers: jsonHeaders(), body: JSON.stringify({ target: 'evented' }) });
      await waitFor(() => /event: call_start\ndata: .*"evented"/.test(text), 'the call_start event', 5000);
      assert.equal((await call).status, 200);
      await waitFor(() => text.includes('event: call_end\n'), 'the call_end event', 5000);
    } finally {
      stream.destroy();
    }
    // The daemon notices the closed stream and keeps serving.
    await sleep(200);
    assert.equal((await request('GET', '/api/health')).status, 200);
  });

  test('raw FastCGI: FCGI_GET_VALUES answers the limits, unknown types get FCGI_UNKNOWN_TYPE', async () => {
    const c = await fcgiConnect();
    try {
      c.sock.write(fcgiRecord(9, 0, fcgiPairs({ FCGI_MAX_CONNS: '', FCGI_MAX_REQS: '', FCGI_MPXS_CONNS: '', OTHER: '' })));
      c.sock.write(fcgiRecord(42, 0, Buffer.alloc(8)));
      await c.until(() => c.records.some((r) => r.type === 10) && c.records.some((r) => r.type === 11), 'both answers');
      const values = fcgiParsePairs(c.records.find((r) => r.type === 10).content);
      // At most 4096 connections, fewer where descriptors are scarce (a quarter of RLIMIT_NOFILE - 256).
      const nofile = Number(execFileSync('/bin/sh', ['-c', 'ulimit -Hn'], { encoding: 'utf8' }).trim());
      const conns = Number.isFinite(nofile) ? Math.max(16, Math.min(4096, Math.floor((nofile - 256) / 4))) : 4096;
      assert.deepEqual(values, { FCGI_MAX_CONNS: String(conns), FCGI_MAX_REQS: '8192', FCGI_MPXS_CONNS: '1' });
      assert.equal(c.records.find((r) => r.type === 11).content[0], 42);
      assert.ok(!c.closed, 'the connection stays open');
    } finally { c.sock.destroy(); }
  });

  test('raw FastCGI: requests multiplexed on one FCGI_KEEP_CONN connection finish independently', async () => {
    const c = await fcgiConnect();
    try {
      c.sock.write(Buffer.concat([
        fcgiRequest(1, { method: 'POST', uri: '/api/tools/browser_click', body: JSON.stringify({ target: 'slow' }) }),
        fcgiRequest(2, { uri: '/api/history', query: 'limit=%32' }),
      ]));
      await c.until(() => c.ended.has(2), 'request 2 to end', 1500);
      assert.ok(!c.ended.has(1), 'the waiting call (request 1) has not ended yet');
      const r2 = c.response(2);
      assert.equal(r2.status, 200, JSON.stringify(r2));
      assert.equal(r2.headers['content-type'], 'application/json');
      assert.equal(Number(r2.headers['content-length']), Buffer.byteLength(r2.body));
      await c.until(() => c.ended.has(1), 'request 1 to end', 5000);
      const r1 = c.response(1);
      assert.equal(r1.status, 200);
      assert.match(r1.json.page.markdown, /clicked slow/);
      assert.equal(c.ended.get(1).protocolStatus, 0);
      c.stdout.delete(1);
      c.ended.delete(1);
      c.sock.write(fcgiRequest(1, { uri: '/api/health' })); // the id is free again, the connection still open
      await c.until(() => c.ended.has(1) || c.closed, 'a request id reused');
      assert.ok(!c.closed);
      assert.equal(c.response(1).json.status, 'ok');
    } finally { c.sock.destroy(); }
  });

  test('raw FastCGI: FCGI_ABORT_REQUEST ends a waiting call at once; its late answer goes nowhere', async () => {
    const c = await fcgiConnect();
    try {
      c.sock.write(fcgiRequest(7, { method: 'POST', uri: '/api/tools/browser_click', body: JSON.stringify({ target: 'slow' }) }));
      await sleep(200);
      c.sock.write(fcgiRecord(2, 7));
      await c.until(() => c.ended.has(7), 'END_REQUEST for the aborted request', 1000);
      assert.ok(!c.stdout.has(7), 'no output for an aborted request');
      await sleep(2300); // the browser answers now; nothing may be written for id 7
      assert.equal(c.records.filter((r) => r.id === 7).length, 1);
      c.sock.write(fcgiRequest(8, { uri: '/api/health' }));
      await c.until(() => c.ended.has(8), 'a request after the abort');
      assert.equal(c.response(8).status, 200);
    } finally { c.sock.destroy(); }
  });

  test('raw FastCGI: a malformed record closes only its own connection', async () => {
    const good = await fcgiConnect();
    const bad = await fcgiConnect();
    try {
      bad.sock.write(Buffer.from([2, 1, 0, 1, 0, 8, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0])); // version 2
      await bad.until(() => bad.closed, 'the daemon to close the broken connection');
      const worse = await fcgiConnect();
      worse.sock.write(fcgiRecord(1, 3, Buffer.from([0, 1, 1]))); // BEGIN_REQUEST of 3 bytes
      await worse.until(() => worse.closed, 'the daemon to close the second broken connection');
      good.sock.write(fcgiRequest(1, { uri: '/api/health' }));
      await good.until(() => good.ended.has(1), 'the good connection to be answered');
      assert.equal(good.response(1).status, 200);
    } finally { good.sock.destroy(); bad.sock.destroy(); }
  });

  test('raw FastCGI: seeded random records on 60 connections; the daemon keeps serving', async () => {
    const int = rng().int;
    const bytes = (n) => Buffer.from(Array.from({ length: n }, () => int(256)));
    // A record with a random header: any version, type, id, lengths (padding and content may lie).
    const junk = () => {
      const content = bytes(int(4) === 0 ? int(2000) : int(40));
      const h = Buffer.from([int(8) === 0 ? int(256) : 1, int(14), 0, int(4), 0, 0, int(8) === 0 ? int(256) : 0, 0]);
      h.writeUInt16BE(int(8) === 0 ? int(65536) : content.length, 4);
      return Buffer.concat([h, content]);
    };
    // Name-value pairs with lying lengths (1- and 4-byte forms).
    const pairs = () => {
      const parts = [];
      for (let i = int(6); i > 0; i--) {
        const n = int(3) === 0 ? Buffer.from([0x80 | int(128), int(256), int(256), int(256)]) : Buffer.from([int(128)]);
        parts.push(n, Buffer.from([int(128)]), bytes(int(30)));
      }
      return Buffer.concat(parts);
    };
    const good = await fcgiConnect();
    try {
      for (let k = 0; k < 60; k++) {
        const c = await fcgiConnect();
        const recs = [];
        for (let i = 1 + int(20); i > 0; i--) {
          const id = int(4);
          switch (int(6)) {
            case 0: recs.push(junk()); break;
            case 1: recs.push(fcgiRecord(4, id, pairs())); break;
            case 2: recs.push(fcgiRecord(1, id, Buffer.from([0, 1 + int(3), int(2), 0, 0, 0, 0, 0]))); break;
            case 3: recs.push(fcgiRecord(5, id, bytes(int(100)))); break;
            case 4: recs.push(fcgiRecord(int(2) ? 2 : 9, id, int(2) ? pairs() : Buffer.alloc(0))); break;
            default: recs.push(fcgiRequest(id || 1, { method: int(2) ? 'GET' : 'POST', uri: ['/api/status', '/api/history', '/mcp', '/api/tools/browser_click', '/x'][int(5)], query: bytes(int(20)).toString('latin1'), body: int(2) ? '{"target":"fuzz","timeout_ms":500}' : '' }));
          }
        }
        let all = Buffer.concat(recs);
        if (int(4) === 0) all = all.subarray(0, int(all.length + 1)); // cut mid-record
        c.sock.write(all);
        if (int(2)) c.sock.end(); else setTimeout(() => c.sock.destroy(), 300);
      }
      await sleep(1200);
      good.sock.write(fcgiRequest(1, { uri: '/api/health' }));
      await good.until(() => good.ended.has(1), 'the good connection to be answered');
      assert.equal(good.response(1).status, 200);
      assert.equal((await request('GET', '/api/health')).status, 200);
    } finally { good.sock.destroy(); }
  });

  test('raw FastCGI: params over the limit get 431, a wrong role FCGI_UNKNOWN_ROLE, no Host 403', async () => {
    const c = await fcgiConnect();
    try {
      c.sock.write(fcgiRequest(1, { headers: { HTTP_X_BIG: 'x'.repeat(70 * 1024) } }));
      c.sock.write(fcgiRecord(1, 2, Buffer.from([0, 3, 1, 0, 0, 0, 0, 0]))); // the filter role
      c.sock.write(fcgiRequest(3, { headers: { HTTP_HOST: 'evil.example' } }));
      await c.until(() => c.ended.has(1) && c.ended.has(2) && c.ended.has(3), 'three answers');
      assert.equal(c.response(1).status, 431);
      assert.equal(c.ended.get(2).protocolStatus, 3);
      assert.equal(c.response(3).status, 403);
      const without = await fcgiConnect();
      without.sock.write(fcgiRequest(1, { keep: false, headers: { HTTP_HOST: '' } }));
      await without.until(() => without.closed, 'the connection to close after a request without FCGI_KEEP_CONN');
      assert.equal(without.response(1).status, 403);
    } finally { c.sock.destroy(); }
  });

  test('a client that gives up on a waiting call does not hurt the daemon', async () => {
    await new Promise((resolve) => {
      const rq = http.request({ host: '127.0.0.1', port: env.port, method: 'POST', path: '/api/tools/browser_click', agent: false,
        headers: { host: `127.0.0.1:${env.port}`, ...jsonHeaders() } });
      rq.on('error', () => resolve());
      rq.end(JSON.stringify({ target: 'slow' }));
      setTimeout(() => { rq.destroy(); resolve(); }, 300);
    });
    await sleep(2500); // the late answer arrives for a request whose connection is gone
    const r = await request('POST', '/api/tools/browser_click', { headers: jsonHeaders(), body: JSON.stringify({ target: 'after' }) });
    assert.equal(r.status, 200, r.text);
    assert.match(r.json.page.markdown, /clicked after/);
  });
});
