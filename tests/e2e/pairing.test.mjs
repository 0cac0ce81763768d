// Pairing the way a user does it: the unpacked extension without pairing.json,
// the options page, paste the token, save -> connected. Also: a wrong token, site
// access not granted yet, and reconnecting after the daemon restarts.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { startDaemon, launchBrowser, startFixtures, EXTENSION_ID, sleep, daemonBin, freePort } from './support/harness.mjs';
import { spawn } from 'node:child_process';
import { mkdtemp, writeFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

const cleanups = [];
after(async () => { for (const c of cleanups.reverse()) await c().catch(() => {}); });

async function optionsPage(browser) {
  const page = await browser.context.newPage();
  await page.goto(`chrome-extension://${EXTENSION_ID}/options.html`);
  return page;
}

test('pair from the options page: paste the token, save, connected', async () => {
  const fixtures = await startFixtures(); cleanups.push(() => fixtures.close());
  const daemon = await startDaemon(); cleanups.push(() => daemon.close());
  const browser = await launchBrowser({ daemon, variant: 'user', pairing: false }); cleanups.push(() => browser.close());

  const page = await optionsPage(browser);
  await page.waitForFunction(() => document.getElementById('state').textContent !== '…');
  assert.equal(await page.textContent('#state'), 'Not paired');
  assert.equal((await daemon.status()).browsers.length, 0);

  // a wrong token first
  await page.fill('#ws-url', daemon.wsUrl);
  await page.fill('#token', 'not-the-token');
  await page.click('#save');
  await page.waitForFunction(() => document.getElementById('state').textContent === 'Token refused', null, { timeout: 10_000 });

  await page.fill('#token', daemon.token);
  await page.click('#save');
  await page.waitForFunction(() => document.getElementById('state').textContent === 'Connected', null, { timeout: 10_000 });
  const b = await daemon.waitForBrowser();
  assert.match(b.client_id, /^ext-[0-9a-f-]{36}$/);
  assert.equal(b.extension_version, '1.0.0');
  // the token is stored for the next start
  const stored = await browser.serviceWorker.evaluate(() => chrome.storage.local.get(['token', 'wsUrl']));
  assert.equal(stored.token, daemon.token);

  // No site access granted yet (optional host permission): a clear error, not a hang.
  assert.equal(await page.textContent('#access-state'), 'No site access yet');
  const r = await daemon.call('browser_open_url', { url: fixtures.base + '/page2.html', client_id: b.client_id });
  assert.equal(r.status, 'success'); // navigating needs no host access
  // The page cannot be read: no page is sent (nothing fake is stored), the result says why.
  assert.equal(r.page, null);
  assert.match(r.result.message, /the page after it could not be read: .*(no access to this site|Allow on all sites)/);
  const c = await daemon.call('browser_click', { target: 'Back to start', client_id: b.client_id });
  assert.equal(c.status, 'error');
  assert.match(c.result.error, /no access to this site/);

  // the popup shows the connection and the last command
  const popup = await browser.context.newPage();
  await popup.goto(`chrome-extension://${EXTENSION_ID}/popup.html`);
  await popup.waitForFunction(() => document.getElementById('state').textContent === 'Connected');
  await popup.waitForFunction(() => /click/.test(document.getElementById('last').textContent));
  assert.match(await popup.textContent('#last-msg'), /no access/);
});

test('reconnects by itself when the real daemon starts later and when it restarts; the next call works', async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'bb-e2e-restart-'));
  const token = 'restart-token-0123456789abcdef';
  const tokenFile = path.join(dir, 'token');
  await writeFile(tokenFile, token + '\n', { mode: 0o600 });
  const httpPort = await freePort(), wsPort = await freePort();
  const httpUrl = `http://127.0.0.1:${httpPort}`, wsUrl = `ws://127.0.0.1:${wsPort}/ws/browser`;
  const serve = () => {
    const proc = spawn(daemonBin(), ['serve', '--config', '/dev/null', '--http', `127.0.0.1:${httpPort}`, '--ws', `127.0.0.1:${wsPort}`,
      '--db', path.join(dir, 'h.db'), '--token-file', tokenFile], { stdio: 'ignore' });
    const exited = new Promise((r) => proc.once('exit', r));
    return { proc, exited, async stop() { proc.kill('SIGTERM'); await exited; } };
  };
  const api = async (p, body) => {
    const r = await fetch(httpUrl + p, body ? { method: 'POST', headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' }, body: JSON.stringify(body) } : { headers: { Authorization: `Bearer ${token}` } });
    return r.json();
  };
  const waitBrowser = async (ms) => {
    const t0 = Date.now();
    while (Date.now() - t0 < ms) {
      try {
        const st = await api('/api/status');
        const b = st.browsers.find((x) => x.client_id === 'restart-1');
        if (b && b.tabs.length > 0) return { b, took: Date.now() - t0 };
      } catch { /* not up yet */ }
      await sleep(100);
    }
    throw new Error(`browser not connected within ${ms} ms`);
  };
  // The browser starts first: nothing listens yet.
  const browser = await launchBrowser({ daemon: { wsUrl, token }, variant: 'headless', pairing: true, clientId: 'restart-1' });
  cleanups.push(() => browser.close());
  await sleep(1500);
  let d = serve();
  cleanups.push(() => d.stop());
  const first = await waitBrowser(15_000);
  assert.ok(first.b.capabilities.includes('click'));
  const tab = first.b.tabs[0];
  assert.ok('tabId' in tab && 'windowId' in tab && 'active' in tab, JSON.stringify(tab));
  let r = await api('/api/tools/browser_get_page', { client_id: 'restart-1' });
  assert.equal(r.status, 'success', JSON.stringify(r));
  // Restart the daemon mid-session: the extension comes back by itself and the next call works.
  await d.stop();
  await sleep(500);
  d = serve();
  const again = await waitBrowser(15_000);
  assert.ok(again.took < 12_000, `reconnected after ${again.took} ms`);
  r = await api('/api/tools/browser_get_page', { client_id: 'restart-1' });
  assert.equal(r.status, 'success', JSON.stringify(r));
  await d.stop();
  await rm(dir, { recursive: true, force: true });
});
