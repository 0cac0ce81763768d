// Helpers for tests/e2e/dashboard.test.mjs: build the dashboard, start the real daemon, a scripted
// browser peer (the /ws/browser protocol, docs/protocol.md) and a "canary" HTTP server that
// records any request an injected payload might make.
import { spawn, execFileSync } from 'node:child_process';
import { createServer } from 'node:net';
import http from 'node:http';
import { mkdtempSync, readFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { deflateSync } from 'node:zlib';
import { WebSocket } from 'ws';
import { helloFor } from '../../integration/support/proto2.mjs';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
export const BB_BIN = process.env.BB_BIN || join(ROOT, 'browser-bridge');
export const EXT_ORIGIN = 'chrome-extension://lpjafomjfpchgbopnmlebcocfkelgpgo';
export const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
export const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
export const STRICT_CSP = "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

export function buildDashboard() {
  execFileSync(process.execPath, [join(ROOT, 'www/build.mjs'), ...(process.env.BB_DASHBOARD_DEV ? ['--dev'] : [])], { stdio: ['ignore', 'ignore', 'inherit'] });
  return join(ROOT, 'www/dist');
}

/** Builds the extension from the same source tree into a temporary directory; returns it. */
export function buildExtension() {
  const out = mkdtempSync(join(tmpdir(), 'bb-ext-'));
  execFileSync(process.execPath, [join(ROOT, 'extension/build.mjs'), '--out', out], { stdio: ['ignore', 'ignore', 'inherit'] });
  return out;
}

export function freePort() {
  return new Promise((res, rej) => {
    const s = createServer();
    s.unref();
    s.on('error', rej);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => res(port));
    });
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Starts `browser-bridge serve`; resolves once /api/health answers. */
export async function startDaemon({ wwwDir, args: extra = [], env = {} }) {
  if (!existsSync(BB_BIN)) throw new Error(`daemon binary not found: ${BB_BIN} (build it, or set BB_BIN)`);
  const dir = mkdtempSync(join(tmpdir(), 'bb-dash-'));
  const httpPort = await freePort();
  const wsPort = await freePort();
  const tokenFile = join(dir, 'token');
  const args = ['serve', '--http', `127.0.0.1:${httpPort}`, '--ws', `127.0.0.1:${wsPort}`,
    '--db', join(dir, 'h.db'), '--token-file', tokenFile, '--www', wwwDir, ...extra];
  const proc = spawn(BB_BIN, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env, XDG_CONFIG_HOME: dir, XDG_DATA_HOME: dir, XDG_STATE_HOME: dir } });
  let output = '';
  proc.stdout.on('data', (d) => { output += d; });
  proc.stderr.on('data', (d) => { output += d; });
  let exited = null;
  proc.on('exit', (code, sig) => { exited = { code, sig }; });
  const base = `http://127.0.0.1:${httpPort}`;
  const deadline = Date.now() + 15000;
  for (;;) {
    if (exited) throw new Error(`daemon exited early (${JSON.stringify(exited)}):\n${output}`);
    try {
      const r = await fetch(`${base}/api/health`);
      if (r.ok) break;
    } catch { /* not yet */ }
    if (Date.now() > deadline) {
      proc.kill('SIGKILL');
      throw new Error(`daemon did not answer /api/health in time:\n${output}`);
    }
    await sleep(100);
  }
  // The login URL as a user gets it: printed by the daemon, or by `browser-bridge login-url`,
  // which asks the daemon for a one-time code: the link never carries the token.
  let loginUrl = /(http:\/\/\S+\/login\?code=[0-9a-f]+)/.exec(output)?.[1];
  if (!loginUrl) {
    loginUrl = execFileSync(BB_BIN, ['login-url', '--token-file', tokenFile, '--http', `127.0.0.1:${httpPort}`],
      { env: { ...process.env, XDG_CONFIG_HOME: dir }, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim().split('\n').pop();
  }
  if (!/\/login\?code=[0-9a-f]{32}$/.test(loginUrl || '')) throw new Error(`no login URL (got ${JSON.stringify(loginUrl)}):\n${output}`);
  const token = readFileSync(tokenFile, 'utf8').trim();
  if (loginUrl.includes(token)) throw new Error('the login URL carries the token');
  return {
    proc, dir, base, httpPort, wsPort, token,
    wsUrl: `ws://127.0.0.1:${wsPort}/ws/browser`,
    loginUrl,
    output: () => output,
    /** A tool call from an agent (bearer token), like an MCP/HTTP client would make. */
    async callTool(name, params = {}) {
      const r = await fetch(`${base}/api/tools/${name}`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify(params),
      });
      return { status: r.status, body: await r.json().catch(() => null) };
    },
    async api(path) {
      const r = await fetch(`${base}${path}`, { headers: { Authorization: `Bearer ${token}` } });
      return { status: r.status, body: await r.json().catch(() => null) };
    },
    async stop() {
      if (exited) return;
      proc.kill('SIGTERM');
      for (let i = 0; i < 50 && !exited; i++) await sleep(100);
      if (!exited) proc.kill('SIGKILL');
    },
  };
}

/** A tiny valid PNG (solid colour with a stripe), base64. */
export function makePng(width = 160, height = 90) {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (buf) => {
    let c = 0xffffffff;
    for (const b of buf) c = crcTable[(c ^ b) & 0xff] ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type, data) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const td = Buffer.concat([Buffer.from(type), data]);
    const c = Buffer.alloc(4);
    c.writeUInt32BE(crc(td));
    return Buffer.concat([len, td, c]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; ihdr[9] = 2; ihdr[10] = 0; ihdr[11] = 0; ihdr[12] = 0;
  const raw = Buffer.alloc((width * 3 + 1) * height);
  for (let y = 0; y < height; y++) {
    const row = y * (width * 3 + 1);
    for (let x = 0; x < width; x++) {
      const stripe = y > height * 0.15 && y < height * 0.3;
      raw[row + 1 + x * 3] = stripe ? 255 : 47;
      raw[row + 2 + x * 3] = stripe ? 255 : 111;
      raw[row + 3 + x * 3] = stripe ? 255 : 223;
    }
  }
  const png = Buffer.concat([Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]), chunk('IHDR', ihdr), chunk('IDAT', deflateSync(raw)), chunk('IEND', Buffer.alloc(0))]);
  return png.toString('base64');
}

/**
 * The scripted browser: speaks /ws/browser like the extension. `pages` maps URL → {title, markdown};
 * `delayFor(command)` gives the milliseconds to wait before answering.
 */
export async function startScriptedBrowser({ wsUrl, token, pages = {}, clientId = 'scripted-1', delayFor = () => 50 }) {
  const ws = new WebSocket(wsUrl, { headers: { Origin: EXT_ORIGIN } });
  const received = [];
  const tabs = [
    { tabId: 7, windowId: 1, url: 'https://docs.example.org/guide/install', title: 'Installing Widgets', active: true },
    { tabId: 8, windowId: 1, url: 'https://shop.example.com/cart', title: 'Your cart', active: false },
  ];
  let current = { tabId: 7, url: tabs[0].url };
  const png = makePng();
  const send = (type, data) => ws.send(JSON.stringify({ type, data }));
  const pageFor = (url) => pages[url] || { title: `Page at ${url}`, markdown: `# ${url}\n\nNothing special here.` };

  const welcome = new Promise((res, rej) => {
    ws.on('error', rej);
    ws.on('close', (code, reason) => rej(new Error(`scripted browser closed: ${code} ${reason}`)));
    ws.on('message', (raw) => {
      const msg = JSON.parse(raw.toString());
      if (msg.type === 'challenge') {
        send('hello', helloFor(msg.data.nonce, token, {
          clientId, browser: 'Scripted', browserVersion: '1', extensionVersion: '1',
          capabilities: ['open_url', 'click', 'type', 'press_key', 'scroll', 'select_option', 'back', 'forward', 'reload', 'get_page', 'list_tabs', 'switch_tab', 'close_tab', 'screenshot', 'wait_for'],
        }));
        return;
      }
      if (msg.type === 'welcome') {
        send('tabs', { tabs });
        res(msg.data);
        return;
      }
      if (msg.type !== 'command') return;
      const d = msg.data;
      received.push(d);
      setTimeout(() => {
        if (ws.readyState !== WebSocket.OPEN) return;
        let result;
        let message;
        if (d.command === 'open_url') {
          current = { tabId: d.tabId ?? current.tabId, url: d.url };
          message = `Opened ${d.url}`;
        } else if (d.command === 'screenshot') {
          result = { mimeType: 'image/png', data: png, width: 160, height: 90 };
          message = 'Took a screenshot of the visible tab';
        } else if (d.command === 'click') {
          message = `Clicked "${d.target}"`;
        } else {
          message = `Did ${d.command}`;
        }
        send('command_result', { requestId: d.requestId, status: 'success', message, ...(result ? { result } : {}) });
        if (d.wait_for_page_info !== false) {
          const p = pageFor(current.url);
          send('pageInfoUpdate', { requestId: d.requestId, tabId: current.tabId, url: current.url, title: p.title, markdown: p.markdown, truncated: false });
        }
      }, delayFor(d));
    });
  });
  await new Promise((res, rej) => { ws.once('open', res); ws.once('error', rej); });
  await welcome; // the hello goes out when the daemon's challenge arrives
  return {
    ws, received,
    /** An update the browser sends on its own (navigation). */
    pushPage(url, tabId = 7) {
      const p = pageFor(url);
      send('pageInfoUpdate', { tabId, url, title: p.title, markdown: p.markdown, truncated: false });
    },
    close() {
      ws.removeAllListeners('close');
      ws.on('close', () => {});
      ws.close(1000, 'bye');
    },
  };
}

/** Records every request that reaches it: payloads must never cause one. */
export async function startCanary() {
  const hits = [];
  const server = http.createServer((req, res) => {
    hits.push(`${req.method} ${req.url}`);
    res.writeHead(200, { 'Content-Type': 'image/gif', 'Access-Control-Allow-Origin': '*' });
    res.end(Buffer.from('R0lGODlhAQABAAAAACw=', 'base64'));
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return { hits, port: server.address().port, close: () => new Promise((r) => server.close(r)) };
}
