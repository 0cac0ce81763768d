// Pairing the way a user does it: the unpacked extension without pairing.json,
// the options page, paste the token, save -> connected. Also: a wrong token, site
// access not granted yet, and reconnecting after the daemon restarts.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { startDaemon, launchBrowser, startFixtures, EXTENSION_ID, sleep } from './support/harness.mjs';
import { startMockDaemon } from './support/mock-daemon.mjs';

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
  assert.match(r.page.markdown, /no access to this site|Allow on all sites/);
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

test('reconnects with backoff when the daemon restarts (and when it starts later)', async () => {
  const token = 'restart-token';
  // the browser starts first; nothing listens yet
  const probe = await startMockDaemon({ token });
  const { httpUrl, wsUrl } = probe;
  await probe.close();
  const httpPort = Number(new URL(httpUrl).port), wsPort = Number(new URL(wsUrl).port);
  const browser = await launchBrowser({ daemon: { wsUrl, token }, variant: 'headless', pairing: true, clientId: 'restart-1' });
  cleanups.push(() => browser.close());
  await sleep(1500);

  let d = await startMockDaemon({ token, httpPort, wsPort });
  d.call = undefined;
  const waitConnected = async (dm, ms) => {
    const t0 = Date.now();
    while (Date.now() - t0 < ms) { if (dm.browsers.has('restart-1')) return Date.now() - t0; await sleep(100); }
    throw new Error('not connected within ' + ms + ' ms');
  };
  await waitConnected(d, 15_000);
  const hello = d.events.find((e) => e.type === 'hello').data;
  assert.equal(hello.clientId, 'restart-1');
  assert.equal(hello.token, token);
  assert.ok(hello.capabilities.includes('click'));
  for (let i = 0; i < 30 && !d.events.some((e) => e.type === 'tabs'); i++) await sleep(100);
  assert.ok(d.events.some((e) => e.type === 'tabs'), 'tabs sent after welcome');
  const tabs = d.events.find((e) => e.type === 'tabs').data.tabs;
  assert.ok(tabs.length >= 1 && 'tabId' in tabs[0] && 'windowId' in tabs[0] && 'active' in tabs[0]);

  await d.close();
  await sleep(500);
  d = await startMockDaemon({ token, httpPort, wsPort });
  cleanups.push(() => d.close());
  const took = await waitConnected(d, 15_000);
  assert.ok(took < 12_000, `reconnected after ${took} ms`);
});
