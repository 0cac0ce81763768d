// What the extension costs the pages a user opens: the load time of a large page (a table of
// 16,000 cells, 36,000 elements, parsed in one go) in Chromium with the real extension loaded
// and paired, against the same Chromium without it (same binary, flags and window size), both
// driven by Playwright's page.goto, alternated; medians of DOMContentLoaded and the load event
// from the page's own Navigation Timing. Judges nothing: bench/ only reports.
//
//   node bench/pageload.mjs        # BB=/path/to/browser-bridge (default bench/.build, then build-check)
//   N=15 node bench/pageload.mjs   # loads per browser (default 10)
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { mkdtemp, rm } from 'node:fs/promises';
import './daemon-bin.mjs'; // sets BB_BIN before the harness is imported

const { startDaemon, launchBrowser, CHROMIUM } = await import('../tests/e2e/support/harness.mjs');
const { chromium } = await import('playwright-core');
const N = Number(process.env.N || 10);

const rows = Array.from({ length: 2000 }, (_, i) => `<tr>${Array.from({ length: 8 }, (_, j) => `<td><span>r${i}c${j}</span></td>`).join('')}</tr>`).join('\n');
const page = `<!doctype html><title>Large table</title><h1>Large table</h1><table>${rows}</table>`;
const server = http.createServer((req, res) => { res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }); res.end(page); });
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const base = `http://127.0.0.1:${server.address().port}`;
const median = (a) => { const s = [...a].sort((x, y) => x - y); const m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };
const timing = () => { const n = performance.getEntriesByType('navigation')[0]; return { dcl: n.domContentLoadedEventEnd, load: n.loadEventEnd }; };

let daemon, browser, plain, profile;
try {
  daemon = await startDaemon({ kind: 'real' });
  browser = await launchBrowser({ daemon });
  await daemon.waitForBrowser(browser.clientId);
  // The same browser without the extension: the harness's flags, a profile of its own.
  profile = await mkdtemp(path.join(os.tmpdir(), 'bb-bench-plain-'));
  const args = ['--headless=new', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-gpu', '--window-size=1000,700', ...(process.getuid?.() === 0 ? ['--no-sandbox'] : [])];
  plain = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: false, args, viewport: null, ignoreDefaultArgs: ['--disable-extensions', '--enable-automation'] });
  const sides = { extension: browser.context.pages()[0] || await browser.context.newPage(), none: plain.pages()[0] || await plain.newPage() };
  const got = { extension: [], none: [] };
  for (let i = 0; i <= N; i++) {
    for (const [k, p] of Object.entries(sides)) {
      await p.goto(`${base}/?${i}`);
      const t = await p.evaluate(timing);
      if (i > 0) got[k].push(t); // first round: warm-up
    }
  }
  const m = (k, f) => median(got[k].map((t) => t[f]));
  console.log(`Load of a page of 36,000 elements, median of ${N}, ms after the navigation's start:`);
  console.log('');
  console.log('| | with the extension | without | ratio |');
  console.log('|---|---|---|---|');
  for (const f of ['dcl', 'load']) console.log(`| ${f === 'dcl' ? 'DOMContentLoaded' : 'load event'} | ${m('extension', f).toFixed(0)} | ${m('none', f).toFixed(0)} | ${(m('extension', f) / m('none', f)).toFixed(2)}× |`);
} finally {
  await plain?.close();
  if (profile) await rm(profile, { recursive: true, force: true }).catch(() => {});
  await browser?.close();
  await daemon?.close();
  server.close();
}
