// A connection that never says hello is closed with 4408 (slow: runs in its own file, in parallel).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startDaemon, connectPeer } from './support/harness.mjs';

test('no hello within 10 s: closed with 4408', { timeout: 20000 }, async () => {
  const d = await startDaemon();
  const p = await connectPeer(d, { hello: false });
  const t0 = Date.now();
  const c = await p.closedPromise;
  assert.equal(c.code, 4408);
  assert.ok(Date.now() - t0 > 8000);
  await d.stop();
});
