// Keepalive: the daemon pings idle browsers and hangs up on one that stops answering, failing its
// waiting calls; a browser that answers pings stays connected. The test-only BB_TEST_WS_PING_S and
// BB_TEST_WS_HANGUP_S shorten the real 10 s / 25 s; the test waits for pings and the close, not time.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import WebSocket from 'ws';
import { startDaemon, connectPeer, tool, EXT_ORIGIN, helloFor } from './support/harness.mjs';

// Resolve once `n` pings have reached this socket (counted from now), or reject after `ms`.
function pings(ws, n, ms) {
  return new Promise((resolve, reject) => {
    let seen = 0;
    const t = setTimeout(() => { ws.off('ping', on); reject(new Error(`${seen} of ${n} pings within ${ms} ms`)); }, ms);
    const on = () => { if (++seen >= n) { clearTimeout(t); ws.off('ping', on); resolve(); } };
    ws.on('ping', on);
  });
}

test('a silent peer is dropped after the hang-up time; a live one is kept', { timeout: 30000 }, async () => {
  const d = await startDaemon({ env: { BB_TEST_WS_PING_S: '1', BB_TEST_WS_HANGUP_S: '3' } });
  try {
  const live = await connectPeer(d, { clientId: 'live' });
  // A peer whose WebSocket library does not answer pings: a frozen or vanished browser.
  const ws = new WebSocket(d.wsUrl, { headers: { Origin: EXT_ORIGIN }, autoPong: false });
  const challenge = await new Promise((r) => ws.once('message', (m) => r(JSON.parse(m.toString()))));
  let frozenPings = 0;
  ws.on('ping', () => { frozenPings++; });
  const welcomed = new Promise((r) => ws.once('message', (m) => r(JSON.parse(m.toString()))));
  ws.send(JSON.stringify({ type: 'hello', data: helloFor(challenge.data.nonce, d.token, { clientId: 'frozen', browser: 'Frozen' }) }));
  const closed = new Promise((r) => ws.on('close', (code) => r({ code })));
  // The call names the frozen browser, so it may go only once the daemon has registered it.
  assert.equal((await welcomed).type, 'welcome');
  const call = tool(d, 'browser_click', { target: 'x', client_id: 'frozen', timeout_ms: 120000 });
  await closed;
  const r = await call;
  assert.ok(frozenPings >= 1, 'hung up without pinging first');
  assert.equal(r.status, 503);
  assert.equal(r.body.error, 'browser_disconnected');
  // The live peer answers pings: it outlives several more ping rounds (past another hang-up time).
  await pings(live.ws, 4, 15000);
  assert.equal(live.closed, null, 'the live peer was dropped');
  const ok = await tool(d, 'browser_get_page', { client_id: 'live' });
  assert.equal(ok.status, 200);
  live.close();
  } finally {
    await d.stop(); // also when an assertion failed: a daemon left running would hold the suite
  }
});
