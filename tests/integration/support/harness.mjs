// Test harness: start the real daemon on free loopback ports with a private token and database,
// and drive it with a scripted browser peer over the real WebSocket protocol.
import { spawn, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import { helloFor, welcomeOk } from './proto2.mjs';

export { nonce, proof, helloFor, welcomeOk, challengeMessage } from './proto2.mjs';

export const EXT_ORIGIN = 'chrome-extension://lpjafomjfpchgbopnmlebcocfkelgpgo';
export const BIN = process.env.BB_BIN || path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../browser-bridge');

export async function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.unref();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => resolve(port)); });
  });
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// Start `browser-bridge serve`; resolves once /api/health answers. A port found free that another
// process took before the daemon bound it (test files run side by side) is tried again on others.
export async function startDaemon(opts = {}) {
  for (let attempt = 1; ; attempt++) {
    try { return await startDaemonOnce(opts); } catch (e) {
      if (attempt >= 3 || !/cannot listen for (HTTP|WebSocket)[^\n]*port in use/.test(e.message)) throw e;
    }
  }
}

async function startDaemonOnce({ args = [], dir, env = {} } = {}) {
  dir ??= fs.mkdtempSync(path.join(os.tmpdir(), 'bb-test-'));
  const http = await freePort();
  const ws = await freePort();
  const db = path.join(dir, 'history.db');
  const tokenFile = path.join(dir, 'token');
  const apiSocket = path.join(dir, 'api.sock'); // its own, not the user's default shared by every daemon
  const argv = ['serve', '--http', `127.0.0.1:${http}`, '--ws', `127.0.0.1:${ws}`, '--db', db,
    '--token-file', tokenFile, '--config', '/dev/null', '--api-socket', apiSocket, ...args];
  // Its runtime file (daemon.json) in its own directory too, not the user's shared one.
  const proc = spawn(BIN, argv, { env: { ...process.env, XDG_RUNTIME_DIR: dir, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  proc.stdout.on('data', (d) => { log += d; });
  proc.stderr.on('data', (d) => { log += d; });
  const exited = new Promise((resolve) => proc.on('exit', (code, signal) => resolve({ code, signal })));
  const closed = new Promise((resolve) => proc.once('close', resolve)); // its output read to the end
  const d = {
    proc, dir, db, tokenFile, apiSocket, httpPort: http, wsPort: ws, exited,
    get log() { return log; },
    base: `http://127.0.0.1:${http}`,
    wsUrl: `ws://127.0.0.1:${ws}/ws/browser`,
    token: null,
    async stop(signal = 'SIGTERM') {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal);
      return exited;
    },
  };
  for (let i = 0; i < 100; i++) {
    if (proc.exitCode !== null) { await closed; throw new Error(`daemon exited: ${log}`); }
    try {
      const r = await fetch(`${d.base}/api/health`);
      if (r.ok) break;
    } catch { /* not yet */ }
    await sleep(50);
  }
  d.token = fs.readFileSync(tokenFile, 'utf8').trim();
  return d;
}

// POST a tool call (or any request) with the token; returns {status, body, headers}.
export async function api(d, pathname, { method = 'POST', body, headers = {}, token = d.token, raw } = {}) {
  const h = { ...headers };
  if (token) h.Authorization = `Bearer ${token}`;
  if (body !== undefined && !('Content-Type' in h)) h['Content-Type'] = 'application/json';
  const r = await fetch(d.base + pathname, {
    method, headers: h, body: raw ?? (body !== undefined ? JSON.stringify(body) : undefined),
  });
  const text = await r.text();
  let json = null;
  try { json = JSON.parse(text); } catch { /* not JSON */ }
  return { status: r.status, body: json, text, headers: r.headers };
}

export const tool = (d, name, params = {}, opts = {}) =>
  api(d, `/api/tools/${name}`, { body: params, ...opts });

// A scripted browser. `answer(cmd, peer)` decides what to do with each command; by default it
// answers at once with success and a page that names the command's target. It speaks protocol 2:
// it waits for the daemon's challenge, proves the token in its hello and checks the welcome's proof
// (`peer.challenge` is the daemon's nonce; with hello: false the test says hello itself, if at all).
export async function connectPeer(d, { clientId = 'peer-1', token = d.token, origin = EXT_ORIGIN, answer, hello = true } = {}) {
  const ws = new WebSocket(d.wsUrl, { headers: origin ? { Origin: origin } : {} });
  const peer = {
    ws, clientId, messages: [], commands: [], errors: [],
    closed: null,
    send(type, data) { ws.send(JSON.stringify({ type, data })); },
    result(rid, status = 'success', extra = {}) { this.send('command_result', { requestId: rid, status, message: status === 'success' ? 'ok' : 'failed', ...extra }); },
    page(rid, markdown, extra = {}) { this.send('pageInfoUpdate', { requestId: rid, tabId: 1, url: `http://127.0.0.1/${encodeURIComponent(markdown.slice(0, 40))}`, title: `T ${markdown.slice(0, 20)}`, markdown, ...extra }); },
    next(type, timeout = 5000) {
      return new Promise((resolve, reject) => {
        const t = setTimeout(() => reject(new Error(`no ${type} within ${timeout} ms`)), timeout);
        const check = () => {
          const i = this.messages.findIndex((m) => m.type === type);
          if (i >= 0) { clearTimeout(t); resolve(this.messages.splice(i, 1)[0]); return true; }
          return false;
        };
        if (!check()) this.waiters.push(check);
      });
    },
    waiters: [],
    close() { ws.close(); },
  };
  peer.closedPromise = new Promise((resolve) => ws.on('close', (code, reason) => { peer.closed = { code, reason: reason.toString() }; resolve(peer.closed); }));
  ws.on('message', (data) => {
    const m = JSON.parse(data.toString());
    if (m.type === 'command') {
      peer.commands.push(m.data);
      if (answer) answer(m.data, peer);
      else { peer.result(m.data.requestId); if (m.data.wait_for_page_info) peer.page(m.data.requestId, `# Page for ${m.data.target ?? m.data.command}`); }
      return;
    }
    if (m.type === 'error') peer.errors.push(m.data);
    peer.messages.push(m);
    peer.waiters = peer.waiters.filter((w) => !w());
  });
  await new Promise((resolve, reject) => {
    ws.on('open', resolve);
    ws.on('error', reject);
    ws.on('unexpected-response', (req, res) => reject(Object.assign(new Error(`handshake refused: ${res.statusCode}`), { statusCode: res.statusCode })));
  });
  const ch = await Promise.race([peer.next('challenge'), peer.closedPromise]);
  if (ch.code) throw Object.assign(new Error(`closed ${ch.code} ${ch.reason} before the challenge`), ch);
  peer.challenge = ch.data.nonce;
  if (hello) {
    const extra = typeof hello === 'object' ? hello : {}; // hello: {fields} overrides or adds hello fields
    const data = helloFor(peer.challenge, token, { clientId, browser: 'Scripted', browserVersion: '1.0', extensionVersion: '1.0', capabilities: ['open_url', 'click', 'type', 'get_page'], ...extra });
    peer.send('hello', data);
    const first = await Promise.race([peer.next('welcome'), peer.closedPromise]);
    if (first.code) throw Object.assign(new Error(`closed ${first.code} ${first.reason}`), first);
    if (!welcomeOk(first.data, token, peer.challenge, data.nonce)) throw new Error('the welcome does not prove the token');
    peer.welcome = first.data;
  }
  return peer;
}

// Run a query with the sqlite3 shell against the daemon's database file.
// Resolve with cond()'s first truthy value, polled every 20 ms (a throw counts as not yet, e.g. a
// daemon not listening yet); reject after timeoutMs, with the last error. For conditions that no
// event announces.
// A headless browser that never connects (a Chromium that only waits) and an extension directory
// with just a manifest, in `dir`: enough for `serve --headless` to start its pool without a real
// browser or an installed extension.
export function standIns(dir) {
  const chromium = path.join(dir, 'chromium');
  fs.writeFileSync(chromium, `#!${process.execPath}\nsetInterval(() => {}, 1e6);\n`, { mode: 0o755 });
  const extension = path.join(dir, 'extension');
  fs.mkdirSync(extension, { recursive: true });
  fs.writeFileSync(path.join(extension, 'manifest.json'), JSON.stringify({ manifest_version: 3, name: 'stand-in', version: '1.0' }));
  return { chromium, extension };
}

export async function waitFor(what, cond, timeoutMs = 20000) {
  const end = Date.now() + timeoutMs;
  let last;
  for (;;) {
    try { const v = await cond(); if (v) return v; } catch (e) { last = e; }
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}${last ? ': ' + last.message : ''}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

// The sqlite3 shell, kept open on the daemon's database, as a person would hold it. run() sends
// SQL and resolves once the shell has executed it (it echoes a marker after it).
export function openShell(db) {
  const p = spawn('sqlite3', [db], { stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  let n = 0;
  p.stdout.on('data', (d) => { out += d; });
  p.stderr.on('data', (d) => { err += d; });
  const exited = new Promise((resolve) => p.on('exit', resolve));
  return {
    async run(statements) {
      const marker = `done-${++n}-${process.pid}`;
      p.stdin.write(`${statements}\nSELECT '${marker}';\n`);
      await waitFor(`the sqlite3 shell to run ${statements}`, () => out.includes(marker) || (err && err.length > 0));
      if (!out.includes(marker)) throw new Error(`sqlite3: ${err}`);
      return out;
    },
    get stderr() { return err; },
    async quit() { p.stdin.end('.quit\n'); return exited; },
  };
}

export function sql(db, query) {
  return execFileSync('sqlite3', ['-json', db, query], { encoding: 'utf8' }).trim();
}

// A small seedable random source (mulberry32) for the seeded hostile-input tests; the seed comes
// from BB_FUZZ_SEED when set, so a failing run can be repeated and others explored.
export const FUZZ_SEED = Number(process.env.BB_FUZZ_SEED) || 20261123;
export function rng(seed = FUZZ_SEED) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  next.int = (n) => Math.floor(next() * n);
  next.pick = (xs) => xs[next.int(xs.length)];
  return next;
}
