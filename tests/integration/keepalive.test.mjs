// Keepalive: the daemon pings idle browsers and hangs up on one that stops answering within ~30 s,
// failing its waiting calls; a browser that answers pings (or sends heartbeats) stays connected.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import WebSocket from 'ws';
import { startDaemon, connectPeer, tool, sleep, EXT_ORIGIN, helloFor } from './support/harness.mjs';

test('a silent peer is dropped within 30 s; a live one is kept', { timeout: 60000 }, async () => {
  const d = await startDaemon();
  const live = await connectPeer(d, { clientId: 'live' });
  // A peer whose WebSocket library does not answer pings: a frozen or vanished browser.
  const ws = new WebSocket(d.wsUrl, { headers: { Origin: EXT_ORIGIN }, autoPong: false });
  const challenge = await new Promise((r) => ws.once('message', (m) => r(JSON.parse(m.toString()))));
  ws.send(JSON.stringify({ type: 'hello', data: helloFor(challenge.data.nonce, d.token, { clientId: 'frozen', browser: 'Frozen' }) }));
  const closed = new Promise((r) => ws.on('close', (code) => r({ code, at: Date.now() })));
  const t0 = Date.now();
  const call = tool(d, 'browser_click', { target: 'x', client_id: 'frozen', timeout_ms: 120000 });
  const c = await closed;
  const r = await call;
  assert.ok(c.at - t0 < 32000, `dropped after ${c.at - t0} ms`);
  assert.ok(c.at - t0 > 15000, `dropped too early: ${c.at - t0} ms`);
  assert.equal(r.status, 503);
  assert.equal(r.body.error, 'browser_disconnected');
  await sleep(2000);
  assert.equal(live.closed, null, 'the live peer was dropped');
  const ok = await tool(d, 'browser_get_page', { client_id: 'live' });
  assert.equal(ok.status, 200);
  live.close();
  await d.stop();
});
