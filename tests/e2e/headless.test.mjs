// `browser-bridge serve --headless`: the daemon copies extension/dist, pairs the copy
// (pairing.json + host access in its manifest) and supervises Chromium itself.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { startDaemon, startFixtures, realDaemonAvailable, buildExtension, ROOT, CHROMIUM } from './support/harness.mjs';

const cleanups = [];
after(async () => { for (const c of cleanups.reverse()) await c().catch(() => {}); });

test('serve --headless: the daemon runs Chromium with the extension; tools work', { skip: !realDaemonAvailable() && 'the daemon is not built' }, async () => {
  buildExtension();
  const fixtures = await startFixtures(); cleanups.push(() => fixtures.close());
  const daemon = await startDaemon({ kind: 'real', extraArgs: ['--headless', '--chromium', CHROMIUM, '--extension', path.join(ROOT, 'extension/dist')] });
  cleanups.push(() => daemon.close());
  const b = await daemon.waitForBrowser(undefined, 30_000);
  assert.equal(b.browser, 'Chromium');
  let r = await daemon.call('browser_open_url', { url: fixtures.base + '/login.html', client_id: b.client_id });
  assert.equal(r.status, 'success', JSON.stringify(r.result));
  assert.match(r.page.markdown, /\[input text "Username" e\d+\]/);
  r = await daemon.call('browser_type', { target: 'Username', text: 'dora', client_id: b.client_id });
  assert.equal(r.status, 'success');
  r = await daemon.call('browser_type', { target: 'Password', text: 'hunter2-secret', submit: true, client_id: b.client_id });
  assert.equal(r.status, 'success');
  assert.match(r.page.markdown, /# Welcome, dora!/);
  assert.ok(!r.page.markdown.includes('hunter2'));
});
