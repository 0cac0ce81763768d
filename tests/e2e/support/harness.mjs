// End-to-end harness: the daemon (real, or the mock when it isn't built), the
// fixture server, and Chromium with the extension loaded.
//
// Environment:
//   BB_BIN          path of the daemon binary (default ./browser-bridge in the repo root)
//   BB_DAEMON       "real" | "mock" | "auto" (default auto: real when BB_BIN runs `serve --help`)
//   BB_CHROMIUM     Chromium binary (default /usr/bin/chromium)
//   BB_E2E_DEBUG=1  log daemon/browser output
import { spawn, spawnSync } from 'node:child_process';
import { mkdtemp, cp, writeFile, readFile, rm } from 'node:fs/promises';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { startMockDaemon } from './mock-daemon.mjs';
import { startFixtureServer } from '../../fixtures/server.mjs';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const EXTENSION_ID = 'lpjafomjfpchgbopnmlebcocfkelgpgo';
export const CHROMIUM = process.env.BB_CHROMIUM || '/usr/bin/chromium';
const DEBUG = !!process.env.BB_E2E_DEBUG;
const dbg = (...a) => { if (DEBUG) console.error('[e2e]', ...a); };
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// The newest modification time of a file or of anything under a directory.
function newest(p) {
  const st = statSync(p);
  if (!st.isDirectory()) return st.mtimeMs;
  return readdirSync(p).reduce((m, f) => Math.max(m, newest(path.join(p, f))), st.mtimeMs);
}

function sleepSync(ms) {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

// Build the extension when a source is newer than the build. Test files run in parallel
// processes, and a rebuild empties extension/dist* first: one at a time (a lock directory), so
// no test copies a half-written extension while another rebuilds it.
let built = false;
export function buildExtension() {
  if (built || process.env.BB_E2E_NO_BUILD) return;
  const lock = path.join(ROOT, 'extension', '.build-lock');
  for (const t0 = Date.now(); ;) {
    try { mkdirSync(lock); break; } catch (e) { if (e.code !== 'EEXIST') throw e; }
    try { if (Date.now() - statSync(lock).mtimeMs > 120_000) rmSync(lock, { recursive: true, force: true }); } catch { /* released meanwhile */ }
    if (Date.now() - t0 > 180_000) throw new Error(`the extension build lock ${lock} is held for too long`);
    sleepSync(100);
  }
  try {
    const src = Math.max(...['src', 'build.mjs', 'manifest.json'].map((f) => newest(path.join(ROOT, 'extension', f))));
    const out = ['dist', 'dist-headless'].map((d) => path.join(ROOT, 'extension', d, 'manifest.json'));
    if (!out.every((f) => existsSync(f) && statSync(f).mtimeMs > src)) {
      const r = spawnSync(process.execPath, [path.join(ROOT, 'extension/build.mjs'), '--all'], { stdio: DEBUG ? 'inherit' : 'pipe', encoding: 'utf8' });
      if (r.status !== 0) throw new Error('extension build failed:\n' + r.stdout + r.stderr);
    }
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
  built = true;
}

export function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => { const p = s.address().port; s.close(() => resolve(p)); });
  });
}

export function daemonBin() {
  return path.resolve(ROOT, process.env.BB_BIN || './browser-bridge');
}

export function realDaemonAvailable() {
  const bin = daemonBin();
  if (!existsSync(bin)) return false;
  const r = spawnSync(bin, ['serve', '--help'], { encoding: 'utf8', timeout: 5000 });
  return r.status === 0;
}

export function daemonKind() {
  const want = process.env.BB_DAEMON || 'auto';
  if (want === 'mock') return 'mock';
  if (want === 'real') return 'real';
  return realDaemonAvailable() ? 'real' : 'mock';
}

async function waitFor(fn, { timeout = 10_000, interval = 100, what = 'condition' } = {}) {
  const t0 = Date.now();
  let last;
  while (Date.now() - t0 < timeout) {
    try { const v = await fn(); if (v) return v; } catch (e) { last = e; }
    await sleep(interval);
  }
  throw new Error(`timed out waiting for ${what}${last ? ': ' + last.message : ''}`);
}

// Starts the daemon. Returns { kind, httpUrl, wsUrl, token, call(), status(), close() }.
export async function startDaemon({ kind = daemonKind(), extraArgs = [] } = {}) {
  let d;
  if (kind === 'mock') {
    d = await startMockDaemon({ log: dbg });
  } else {
    // A port found free may be taken by another process before the daemon binds it (test files
    // run side by side): the daemon says so and exits, and is started again on other ports.
    for (let attempt = 1; ; attempt++) {
      try { d = await spawnDaemon(extraArgs); break; } catch (e) {
        if (attempt >= 3 || !/cannot listen for (HTTP|WebSocket|WS)[^\n]*port in use/i.test(e.message)) throw e;
      }
    }
  }
  return withCalls(d);
}

// One start of the real daemon on ports found free: { kind, token, httpUrl, wsUrl, proc, close() }.
async function spawnDaemon(extraArgs) {
  let d;
  const dir = await mkdtemp(path.join(os.tmpdir(), 'bb-e2e-daemon-'));
  const httpPort = await freePort();
  const wsPort = await freePort();
  const tokenFile = path.join(dir, 'token');
  const args = ['serve', '--http', `127.0.0.1:${httpPort}`, '--ws', `127.0.0.1:${wsPort}`, '--db', path.join(dir, 'bb.db'), '--token-file', tokenFile, ...extraArgs];
  dbg('spawn', daemonBin(), args.join(' '));
  // XDG_RUNTIME_DIR: its API socket and runtime file (daemon.json) in its own directory, not the user's.
  const proc = spawn(daemonBin(), args, { env: { ...process.env, XDG_RUNTIME_DIR: dir }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  proc.stdout.on('data', (b) => { output += b; if (DEBUG) process.stderr.write(b); });
  proc.stderr.on('data', (b) => { output += b; if (DEBUG) process.stderr.write(b); });
  const exited = new Promise((r) => proc.once('close', r)); // (its output read to the end)
  const httpUrl = `http://127.0.0.1:${httpPort}`;
  try {
    // (a daemon that exits, a port taken, says so at once rather than after the wait's time)
    let gone = false;
    const died = exited.then((c) => { throw new Error(`the daemon exited (status ${c}) before it answered /api/health`); });
    died.catch(() => { gone = true; });
    await Promise.race([waitFor(async () => gone || (await fetch(httpUrl + '/api/health')).ok, { what: 'daemon /api/health' }), died]);
    const token = (await waitFor(async () => (await readFile(tokenFile, 'utf8')).trim(), { what: 'token file' }));
    d = {
      kind: 'real', token, httpUrl, wsUrl: `ws://127.0.0.1:${wsPort}/ws/browser`, proc, output: () => output,
      async close() {
        proc.kill('SIGTERM');
        await Promise.race([exited, sleep(3000)]);
        if (proc.exitCode === null) proc.kill('SIGKILL');
        await rm(dir, { recursive: true, force: true });
      },
    };
  } catch (e) {
    proc.kill('SIGKILL');
    await rm(dir, { recursive: true, force: true }).catch(() => {});
    throw new Error(`${e.message}\ndaemon output:\n${output}`);
  }
  return d;
}

// The helpers a test calls the daemon with: call(tool, params), status(), waitForBrowser().
function withCalls(d) {
  // Tests read the whole page after each action unless they ask otherwise: the daemon's default
  // (snapshot "auto") answers an action on the same document with only what changed, which
  // tests/e2e/lean.test.mjs tests by passing snapshot itself.
  d.call = async (tool, params = {}, { timeoutMs } = {}) => {
    params = { snapshot: 'full', ...params };
    const res = await fetch(`${d.httpUrl}/api/tools/${tool}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${d.token}` },
      body: JSON.stringify(params),
      signal: AbortSignal.timeout(timeoutMs || (params.timeout_ms || 30000) + 5000),
    });
    const body = await res.json();
    dbg(tool, JSON.stringify(params), '->', res.status, body.status, body.result?.message || body.result?.error || body.message);
    return { http: res.status, ...body };
  };
  d.status = async () => {
    const res = await fetch(`${d.httpUrl}/api/status`, { headers: { authorization: `Bearer ${d.token}` } });
    return res.json();
  };
  d.waitForBrowser = (clientId, timeout = 15_000) => waitFor(async () => {
    const s = await d.status();
    return (s.browsers || []).find((b) => !clientId || b.client_id === clientId);
  }, { timeout, what: `browser ${clientId || ''} to connect` });
  return d;
}

// Launch Chromium (new headless mode) with a copy of the built extension.
//   variant 'headless': manifest grants <all_urls> (extension/dist-headless)
//   variant 'user':     the store/unpacked build with optional host access (extension/dist)
//   pairing: write pairing.json (wsUrl/token/clientId) into the copy, like `serve --headless`
//   extraArgs: more Chromium flags (e.g. --host-resolver-rules to keep pages off the network)
export async function launchBrowser({ daemon, variant = 'headless', pairing = true, clientId = 'e2e-' + process.pid, viewport = { width: 1000, height: 700 }, extraArgs = [] } = {}) {
  buildExtension();
  const tmp = await mkdtemp(path.join(os.tmpdir(), 'bb-e2e-browser-'));
  const extDir = path.join(tmp, 'extension');
  await cp(path.join(ROOT, 'extension', variant === 'headless' ? 'dist-headless' : 'dist'), extDir, { recursive: true });
  if (pairing && daemon) {
    await writeFile(path.join(extDir, 'pairing.json'), JSON.stringify({ wsUrl: daemon.wsUrl, token: daemon.token, clientId }));
  }
  const args = [
    '--headless=new', `--disable-extensions-except=${extDir}`, `--load-extension=${extDir}`,
    '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-gpu',
    `--window-size=${viewport.width},${viewport.height}`,
    // a mouse, as the user's desktop has (headless Chromium reports none: pages chose touch layouts)
    '--blink-settings=primaryHoverType=2,availableHoverTypes=2,primaryPointerType=4,availablePointerTypes=4', ...extraArgs,
  ];
  if (process.getuid?.() === 0) args.push('--no-sandbox');
  const context = await chromium.launchPersistentContext(path.join(tmp, 'profile'), {
    executablePath: CHROMIUM, headless: false, args, viewport: null,
    ignoreDefaultArgs: ['--disable-extensions', '--enable-automation'],
  });
  let sw = context.serviceWorkers().find((w) => w.url().startsWith(`chrome-extension://${EXTENSION_ID}/`));
  if (!sw) sw = await context.waitForEvent('serviceworker', { timeout: 15_000, predicate: (w) => w.url().startsWith(`chrome-extension://${EXTENSION_ID}/`) });
  if (DEBUG) sw.on('console', (m) => console.error('[sw]', m.text()));
  return {
    context, extDir, clientId, serviceWorker: sw,
    async close() {
      await context.close().catch(() => {});
      await rm(tmp, { recursive: true, force: true }).catch(() => {});
    },
  };
}

export async function startFixtures() {
  return startFixtureServer(0);
}

// Everything most tests need, torn down by the returned close().
export async function setup(opts = {}) {
  const fixtures = await startFixtures();
  const daemon = await startDaemon(opts.daemon);
  const browser = await launchBrowser({ daemon, ...opts.browser });
  await daemon.waitForBrowser(browser.clientId);
  return {
    fixtures, daemon, browser,
    url: (p) => fixtures.base + p,
    call: (tool, params, o) => daemon.call(tool, { client_id: browser.clientId, ...params }, o),
    async close() {
      await browser.close();
      await daemon.close();
      await fixtures.close();
    },
  };
}

// The command-specific data of a tool answer (tolerant to how the daemon nests it).
export function resultData(res) {
  const r = res.result || {};
  return r.result && typeof r.result === 'object' ? r.result : r;
}

// Refs in Markdown: [button "Log in" e12] -> e12; [text](url) [e5] -> e5
export function refOf(markdown, re) {
  for (const line of markdown.split('\n')) {
    const m = line.match(re);
    if (m) {
      const after = line.slice(m.index);
      const r = after.match(/\b(e\d+)\]/);
      if (r) return r[1];
    }
  }
  return null;
}

// Width/height from a base64 PNG's IHDR chunk.
export function pngSize(b64) {
  const buf = Buffer.from(b64, 'base64');
  if (buf.length < 24 || buf.toString('latin1', 1, 4) !== 'PNG' || buf.toString('latin1', 12, 16) !== 'IHDR') throw new Error('not a PNG');
  return { width: buf.readUInt32BE(16), height: buf.readUInt32BE(20), bytes: buf.length };
}
