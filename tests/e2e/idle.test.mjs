// An MV3 service worker is stopped after 30 s without events; the extension's keepalives
// (heartbeats over the WebSocket, a 30 s alarm) must keep it, and so its connection, alive
// while the agent is idle. With all of them (and the daemon's pings) removed, this test fails:
// the worker is stopped and the daemon logs the disconnect.
// Run under `serve --headless`: there no DevTools client is attached to the service worker,
// which would keep it alive by itself (Playwright does attach, so the other e2e tests cannot
// show this).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { startDaemon, startFixtures, realDaemonAvailable, buildExtension, ROOT, CHROMIUM, sleep } from './support/harness.mjs';

const cleanups = [];
after(async () => { for (const c of cleanups.reverse()) await c().catch(() => {}); });

// The limit is 30 s without events; BB_IDLE_TEST_MS may only lengthen the wait.
const IDLE_MS = Math.max(40_000, Number(process.env.BB_IDLE_TEST_MS) || 0);

test('an idle browser stays connected past the service worker idle limit', { timeout: IDLE_MS + 90_000, skip: !realDaemonAvailable() && 'the daemon is not built' }, async () => {
  buildExtension();
  const fixtures = await startFixtures(); cleanups.push(() => fixtures.close());
  const daemon = await startDaemon({ kind: 'real', extraArgs: ['--headless', '--chromium', CHROMIUM, '--extension', path.join(ROOT, 'extension/dist')] });
  cleanups.push(() => daemon.close());
  const b = await daemon.waitForBrowser(undefined, 30_000);
  let r = await daemon.call('browser_open_url', { url: fixtures.base + '/login.html', client_id: b.client_id });
  assert.equal(r.status, 'success', JSON.stringify(r.result));

  await sleep(IDLE_MS);

  // Still the same connection: never dropped, never re-established.
  const log = daemon.output();
  assert.doesNotMatch(log, /browser disconnected/, log);
  assert.equal((log.match(/browser connected/g) || []).length, 1, log);
  const now = (await daemon.status()).browsers.find((x) => x.client_id === b.client_id);
  assert.ok(now, 'the browser is gone from /api/status');
  assert.equal(now.connected_at, b.connected_at);
  // ... and it answers at once.
  const t0 = Date.now();
  r = await daemon.call('browser_open_url', { url: fixtures.base + '/page2.html', client_id: b.client_id });
  assert.equal(r.status, 'success', JSON.stringify(r.result));
  assert.ok(Date.now() - t0 < 10_000);
});
