// A connection that never says hello is closed with 4408. The test-only BB_TEST_HELLO_TIMEOUT_MS
// shortens the real 10 s, so nothing here waits in real time; the close itself is the event.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startDaemon, connectPeer, tool } from './support/harness.mjs';

test('no hello within the hello timeout: closed with 4408', { timeout: 20000 }, async () => {
  const d = await startDaemon({ env: { BB_TEST_HELLO_TIMEOUT_MS: '300' } });
  // Connected first, so its hello timer would have fired before the silent peer's: it must not.
  const prompt = await connectPeer(d, { clientId: 'prompt' });
  const p = await connectPeer(d, { hello: false });
  const c = await p.closedPromise;
  assert.equal(c.code, 4408);
  assert.equal(c.reason, 'no hello within 0.3 seconds');
  assert.equal(prompt.closed, null, 'a peer that said hello was closed by the hello timer');
  const r = await tool(d, 'browser_get_page', { client_id: 'prompt' });
  assert.equal(r.status, 200);
  prompt.close();
  const ex = await d.stop();
  assert.equal(ex.code, 0, d.log);
});
