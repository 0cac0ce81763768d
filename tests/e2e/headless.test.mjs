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

  // Supervision: when Chromium dies, the daemon starts it again and the browser comes back.
  const pids = () => [...daemon.output().matchAll(/headless: started \S+ \(pid (\d+)\)/g)].map((m) => Number(m[1]));
  const first = pids()[0];
  assert.ok(first > 0, daemon.output());
  // Its own profile, no network chatter, and --no-sandbox only as root (and said so).
  const argv = (await import('node:fs')).readFileSync(`/proc/${first}/cmdline`, 'utf8').split('\0');
  for (const flag of ['--headless=new', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'])
    assert.ok(argv.includes(flag), flag);
  assert.ok(argv.some((a) => a.startsWith('--user-data-dir=')));
  assert.equal(argv.includes('--no-sandbox'), process.getuid() === 0);
  if (process.getuid() === 0) assert.match(daemon.output(), /--no-sandbox, because we run as root/);
  process.kill(-first, 'SIGKILL'); // its whole process group, as a crash would take it
  const deadline = Date.now() + 30_000;
  while (pids().length < 2 && Date.now() < deadline) await new Promise((res) => setTimeout(res, 200));
  assert.equal(pids().length, 2, daemon.output());
  assert.match(daemon.output(), /Chromium exited/);
  const again = await daemon.waitForBrowser(undefined, 30_000);
  r = await daemon.call('browser_open_url', { url: fixtures.base + '/login.html', client_id: again.client_id });
  assert.equal(r.status, 'success');

  // Shutdown stops Chromium too.
  const second = pids()[1];
  await daemon.close();
  let alive = true;
  for (let i = 0; i < 50 && alive; i++) {
    try { process.kill(second, 0); await new Promise((res) => setTimeout(res, 100)); } catch { alive = false; }
  }
  assert.equal(alive, false, 'Chromium outlived the daemon');
});
