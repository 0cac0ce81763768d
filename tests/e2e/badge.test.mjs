// The toolbar icon's badge in real Chromium with the real extension (issues 18 and 19): ON when
// connected, RUN while an agent's command runs (a browser_wait_for whose text the page shows only
// later), OFF once the daemon is gone, ! when the extension is not paired. Read from the
// extension's service worker with chrome.action.getBadgeText. The toolbar icon and the
// dashboard's favicon are the same image.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { setup, launchBrowser, realDaemonAvailable, ROOT } from './support/harness.mjs';

const cleanups = [];
after(async () => { for (const c of cleanups.reverse()) await c().catch(() => {}); });

const badge = (sw) => sw.evaluate(async () => ({ text: await chrome.action.getBadgeText({}), title: await chrome.action.getTitle({}) }));

// Poll the badge until it reads `want` (bounded); returns what it read last.
async function badgeBecomes(sw, want, timeoutMs = 20_000) {
  const t0 = Date.now();
  let last;
  for (;;) {
    last = await badge(sw);
    if (last.text === want) return last;
    if (Date.now() - t0 > timeoutMs) throw new Error(`the badge did not become "${want}" within ${timeoutMs} ms: ${JSON.stringify(last)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

test('the badge shows connected, acting during a slow command, and the daemon stopped', { timeout: 120_000, skip: !realDaemonAvailable() && 'the daemon is not built' }, async () => {
  const env = await setup({ daemon: { kind: 'real' } });
  cleanups.push(() => env.close());
  const sw = env.browser.serviceWorker;
  let b = await badgeBecomes(sw, 'ON');
  assert.match(b.title, /connected/);

  let r = await env.call('browser_open_url', { url: env.url('/login.html') });
  assert.equal(r.status, 'success', JSON.stringify(r));
  // Back to ON once the command is over: the answer may reach the caller a moment before the
  // service worker has put the badge back (it sends the result, then ends the command).
  await badgeBecomes(sw, 'ON', 5000);

  // A wait that lasts until the page shows the text: RUN meanwhile.
  const waiting = env.call('browser_wait_for', { text: 'Badge test ready', wait_ms: 60_000, timeout_ms: 90_000 });
  b = await badgeBecomes(sw, 'RUN');
  assert.match(b.title, /an agent is acting \(wait_for\)/);
  const page = env.browser.context.pages().find((p) => p.url().endsWith('/login.html'));
  assert.ok(page, 'the fixture page is open');
  await page.evaluate(() => { const p = document.createElement('p'); p.textContent = 'Badge test ready'; document.body.append(p); });
  r = await waiting;
  assert.equal(r.status, 'success', JSON.stringify(r));
  await badgeBecomes(sw, 'ON');

  // The daemon goes away: OFF (and it stays OFF while the extension retries).
  await env.daemon.close();
  b = await badgeBecomes(sw, 'OFF');
  assert.match(b.title, /not reachable/);
});

test('an unpaired extension shows !', { timeout: 60_000 }, async () => {
  const browser = await launchBrowser({ pairing: false });
  cleanups.push(() => browser.close());
  const b = await badgeBecomes(browser.serviceWorker, '!');
  assert.match(b.title, /not paired/);
});

test('the toolbar icon and the dashboard favicon are the same image', () => {
  const www = process.env.BB_WWW || path.join(ROOT, 'www/dist');
  const ext = path.join(ROOT, 'extension/dist');
  for (const size of [16, 32]) {
    const fav = path.join(www, 'icons', `icon${size}.png`);
    if (!fs.existsSync(fav)) return; // the dashboard is not built here
    assert.deepEqual(fs.readFileSync(fav), fs.readFileSync(path.join(ext, 'icons', `icon${size}.png`)), `icon${size}.png`);
  }
});
