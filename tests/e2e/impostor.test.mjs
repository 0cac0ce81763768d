// The extension trusts only the daemon that proves it holds the token (protocol 2). A fake server
// listens on the daemon's WebSocket port -- as any local process can while the daemon is down --
// and tries, one connection after another: no challenge at all (welcome and a command straight
// away), a welcome with a wrong proof, a welcome with no proof. The real extension in real Chromium
// must never send the token in any frame, never run a command from it, close the socket, say
// "the server on this port is not your Browser Bridge daemon" in its popup and options page, and
// come back later (the real daemon may start on the port).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { WebSocketServer } from 'ws';
import { launchBrowser, EXTENSION_ID } from './support/harness.mjs';
import { challengeMessage, proof } from '../integration/support/proto2.mjs';

const cleanups = [];
after(async () => { for (const c of cleanups.reverse()) await c().catch(() => {}); });

const TOKEN = 'impostor-test-token-0123456789abcdef';
const MESSAGE = /the server on this port is not your Browser Bridge daemon/;

// An HTTP server that counts requests: a command that ran would open its URL.
async function canaryServer() {
  const hits = [];
  const srv = http.createServer((req, res) => { hits.push(req.url); res.end('<title>canary</title>canary'); });
  await new Promise((r) => srv.listen(0, '127.0.0.1', r));
  return { hits, url: `http://127.0.0.1:${srv.address().port}/canary`, close: () => new Promise((r) => srv.close(r)) };
}

// The fake daemon. Each connection plays the next of `plays`; every frame it receives is kept.
async function fakeServer(plays, canaryUrl) {
  const frames = [];
  const conns = [];
  const waiters = [];
  const srv = http.createServer((req, res) => { res.writeHead(404); res.end(); });
  const wss = new WebSocketServer({ server: srv, path: '/ws/browser' });
  const command = (n) => JSON.stringify({ type: 'command', data: {
    requestId: `imp-${n}`, command: 'open_url', url: `${canaryUrl}?${n}`, new_tab: true, wait_for_page_info: true } });
  const welcome = (extra) => JSON.stringify({ type: 'welcome', data: {
    serverVersion: '1.0.0', protocolVersion: 2, clientId: 'x', heartbeatSeconds: 20, maxMessageBytes: 16777216, ...extra } });
  wss.on('connection', (ws) => {
    const n = conns.length;
    const c = { n, play: plays[Math.min(n, plays.length - 1)], received: [], closed: null };
    conns.push(c);
    c.closedPromise = new Promise((r) => ws.on('close', (code, reason) => { c.closed = { code, reason: String(reason) }; r(c.closed); }));
    ws.on('message', (raw) => {
      const text = raw.toString();
      frames.push(text);
      let m;
      try { m = JSON.parse(text); } catch { return; }
      c.received.push(m);
      if (m.type === 'hello' && c.play !== 'none') {
        // The best an impostor can do without the token: a welcome with a made-up or no proof.
        ws.send(welcome(c.play === 'wrong' ? { proof: proof('a-guessed-token-0000000000', 'welcome', m.data.nonce, c.S) } : {}));
        ws.send(command(n));
      }
    });
    if (c.play === 'none') {
      ws.send(welcome({}));
      ws.send(command(n));
    } else {
      const ch = challengeMessage();
      c.S = ch.data.nonce;
      ws.send(JSON.stringify(ch));
    }
    for (const w of waiters.splice(0)) w();
  });
  await new Promise((r) => srv.listen(0, '127.0.0.1', r));
  return {
    frames, conns,
    wsUrl: `ws://127.0.0.1:${srv.address().port}/ws/browser`,
    // Resolves once connection number n (0-based) has arrived.
    async connection(n, timeout = 30_000) {
      const t0 = Date.now();
      while (conns.length <= n) {
        if (Date.now() - t0 > timeout) throw new Error(`no connection #${n} within ${timeout} ms (got ${conns.length})`);
        await new Promise((r) => { waiters.push(r); setTimeout(r, 1000); });
      }
      return conns[n];
    },
    close() { for (const ws of wss.clients) ws.terminate(); wss.close(); return new Promise((r) => srv.close(r)); },
  };
}

// The promise's value, or a failure naming what did not happen within ms.
function within(promise, ms, what) {
  let t;
  return Promise.race([promise, new Promise((_, reject) => { t = setTimeout(() => reject(new Error(`${what} within ${ms} ms`)), ms); })])
    .finally(() => clearTimeout(t));
}

async function openPage(browser, name) {
  const page = await browser.context.newPage();
  await page.goto(`chrome-extension://${EXTENSION_ID}/${name}.html`);
  return page;
}

test('a server that cannot prove the token gets no token and no obedience, and the user is told', { timeout: 120_000 }, async () => {
  const canary = await canaryServer(); cleanups.push(() => canary.close());
  const fake = await fakeServer(['none', 'wrong', 'missing'], canary.url); cleanups.push(() => fake.close());
  const browser = await launchBrowser({ daemon: { wsUrl: fake.wsUrl, token: TOKEN }, variant: 'headless', pairing: true, clientId: 'impostor-1' });
  cleanups.push(() => browser.close());
  const popup = await openPage(browser, 'popup');
  const options = await openPage(browser, 'options');

  for (const [n, play] of ['none', 'wrong', 'missing'].entries()) {
    const c = await fake.connection(n);
    assert.equal(c.play, play);
    // The extension hangs up on it (the no-challenge one after its wait for a challenge)...
    await within(c.closedPromise, 20_000, `the extension did not hang up on the impostor (${play}); it sent ${JSON.stringify(c.received).slice(0, 300)}`);
    // ...and both of its pages say why.
    for (const page of [popup, options]) {
      await page.waitForFunction((re) => new RegExp(re).test(document.getElementById('detail').textContent), MESSAGE.source, { timeout: 15_000 });
      assert.equal(await page.textContent('#state'), 'Not your Browser Bridge daemon');
    }
    const types = c.received.map((m) => m.type);
    assert.ok(!types.includes('command_result') && !types.includes('pageInfoUpdate') && !types.includes('tabs'),
      `the extension answered the impostor (${play}): ${types.join(', ')}`);
    if (play === 'none') assert.deepEqual(types, [], 'nothing is sent to a server that sent no challenge');
    else {
      assert.deepEqual(types, ['hello']);
      const h = c.received[0].data;
      assert.match(h.nonce, /^[A-Za-z0-9_-]{43}$/);
      assert.equal(h.proof, proof(TOKEN, 'hello', c.S, h.nonce));
      assert.ok(!('token' in h));
    }
  }
  // It tries again later: the real daemon may come up on this port.
  await fake.connection(3);
  assert.deepEqual(canary.hits, [], 'a command from the impostor was run');
  for (const f of fake.frames) assert.ok(!f.includes(TOKEN), `the token crossed the wire: ${f.slice(0, 200)}`);
});
