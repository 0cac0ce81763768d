// Where open_url's time goes, hop by hop (issue 14, "open_url no slower than Playwright's goto").
//
//   node bench/open-trace.mjs          # N=12 opens (alternating two small pages), medians
//   ROWS=4 node bench/open-trace.mjs   # also the first 4 opens one by one (medians of different
//                                      # keys come from different opens)
//
// A copy of the built extension (dist-headless) with marks added: when each page script starts
// and ends, when the page's document_start ask is answered ('armed'), when it is parsed, its
// snapshot, and a probe message the service worker sends to the new document at its commit
// ('prComm') and DOMContentLoaded ('prDOMC'); in the worker: the daemon's command arriving,
// chrome.tabs.update, the webNavigation events, the ask and its answer, the page's report and the
// WebSocket sends. All in ms after the HTTP call; 'p.' keys are the page's own clock
// (Navigation Timing and the marks). Judges nothing.
import os from 'node:os';
import fs from 'node:fs';
import path from 'node:path';
import './daemon-bin.mjs';
import { NAV_PAGES, servePages } from './pages.mjs';

const { startDaemon, buildExtension, ROOT, CHROMIUM } = await import('../tests/e2e/support/harness.mjs');
const { chromium } = await import('playwright-core');
const N = Number(process.env.N || 12);
const { server, base } = await servePages(NAV_PAGES);

// The extension, with marks. A mark is kept in memory (a sessionStorage write at each would cost
// more than the scripts measured) and written to sessionStorage once, before the page's report.
buildExtension();
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'bb-open-trace-'));
const extDir = path.join(tmp, 'ext');
fs.cpSync(path.join(ROOT, 'extension', 'dist-headless'), extDir, { recursive: true });
const mark = (k) => `(self.__m=self.__m||[]).push(['${k}',performance.timeOrigin+performance.now()]);\n`;
const markExpr = (k) => `(self.__m=self.__m||[]).push([${k},performance.timeOrigin+performance.now()])`;
const flush = 'try{for(const [k,v] of self.__m)sessionStorage.setItem("t-"+k,String(v))}catch(e){}\n';
const edit = (file, fn) => { const p = path.join(extDir, file); fs.writeFileSync(p, fn(fs.readFileSync(p, 'utf8'))); };
const must = (s, a, b) => { if (!s.includes(a)) throw new Error(`open-trace: the build no longer has ${a}`); return s.replace(a, b); };
for (const [f, k] of [['page-isolated.js', 'iso'], ['page-main.js', 'main'], ['content.js', 'cs']]) edit(f, (s) => mark(k + '0') + s + '\n' + mark(k + '1'));
edit('page-isolated.js', (s) => {
  s = must(s, 'if (globalThis.__bbPage) return;', `if (globalThis.__bbPage) return; chrome.runtime.onMessage.addListener((m) => { if (m && m.probe) ${markExpr("'pr' + m.probe")}; });`);
  s = must(s, 'await parsed;', 'await parsed;' + mark('parsed'));
  s = must(s, 'async function reportReady({', `async function reportReady(a) { ${mark('armed')} return reportReady2(a); }\n async function reportReady2({`);
  s = must(s, 'r.snapshot = await globalThis.__browserBridge.run("snapshot", snap, floor);', mark('snap0') + 'r.snapshot = await globalThis.__browserBridge.run("snapshot", snap, floor);' + mark('snap1'));
  return must(s, 'chrome.runtime.sendMessage({ type: "bb-page-ready"', flush + 'chrome.runtime.sendMessage({ type: "bb-page-ready"');
});
edit('background.js', (s) => must(s, 'pageStart(sender).then(reply,', 'pageStart(sender).then((x) => { globalThis.__tr?.push(["replied", Date.now()]); reply(x); },'));

const daemon = await startDaemon({ kind: 'real' });
const clientId = 'open-trace';
fs.writeFileSync(path.join(extDir, 'pairing.json'), JSON.stringify({ wsUrl: daemon.wsUrl, token: daemon.token, clientId }));
const context = await chromium.launchPersistentContext(path.join(tmp, 'profile'), {
  executablePath: CHROMIUM, headless: false, viewport: null, ignoreDefaultArgs: ['--disable-extensions', '--enable-automation'],
  args: ['--headless=new', `--disable-extensions-except=${extDir}`, `--load-extension=${extDir}`, '--no-first-run', '--disable-background-networking',
    '--disable-component-update', '--disable-sync', '--disable-gpu', '--window-size=1000,700', ...(process.getuid?.() === 0 ? ['--no-sandbox'] : [])],
});
try {
  const sw = context.serviceWorkers()[0] || await context.waitForEvent('serviceworker');
  await daemon.waitForBrowser(clientId);
  await sw.evaluate(() => {
    globalThis.__tr = [];
    chrome.runtime.onMessage.addListener((m) => { if (m && m.type) globalThis.__tr.push(['msg:' + m.type, Date.now()]); });
    const send = WebSocket.prototype.send;
    WebSocket.prototype.send = function (d) { globalThis.__tr.push(['wsSend' + (String(d).includes('pageInfo') ? 'P' : '') + (String(d).includes('command_result') ? 'R' : ''), Date.now()]); return send.call(this, d); };
    const upd = chrome.tabs.update;
    chrome.tabs.update = function (...a) { globalThis.__tr.push(['tabsUpdate', Date.now()]); return upd.apply(this, a); };
    const data = Object.getOwnPropertyDescriptor(MessageEvent.prototype, 'data').get;
    Object.defineProperty(MessageEvent.prototype, 'data', { get() { const d = data.call(this); if (typeof d === 'string' && d.includes('"command"') && !globalThis.__seen) { globalThis.__seen = 1; globalThis.__tr.push(['wsRecv', Date.now()]); } return d; } });
    for (const ev of ['onBeforeNavigate', 'onCommitted', 'onDOMContentLoaded', 'onCompleted']) {
      chrome.webNavigation[ev].addListener((d) => {
        if (d.frameId !== 0) return;
        globalThis.__tr.push([ev, Date.now()]);
        if (ev === 'onCommitted' || ev === 'onDOMContentLoaded') chrome.tabs.sendMessage(d.tabId, { probe: ev.slice(2, 6) }, { documentId: d.documentId }).catch(() => {});
      });
    }
  });
  const first = await daemon.call('browser_open_url', { client_id: clientId, url: base + '/page1.html', new_tab: true });
  const tab = first.page?.tab_id ?? first.result?.tabId;
  const rows = [];
  for (let i = 0; i <= N; i++) {
    const url = base + (i % 2 ? '/page1.html' : '/page2.html');
    await sw.evaluate(() => { globalThis.__tr = []; globalThis.__seen = 0; });
    for (const p of context.pages()) await p.evaluate(() => sessionStorage.clear()).catch(() => {});
    const t0 = Date.now();
    await daemon.call('browser_open_url', { client_id: clientId, tab_id: tab, url });
    const row = { total: Date.now() - t0 };
    for (const [k, v] of await sw.evaluate(() => globalThis.__tr)) row[k.replace(/^on/, '')] = v - t0;
    const pg = context.pages().find((p) => p.url() === url);
    const nt = pg ? await pg.evaluate(() => {
      const n = performance.getEntriesByType('navigation')[0];
      const o = performance.timeOrigin;
      return { start: o, resp: o + n.responseEnd, dcl: o + n.domContentLoadedEventStart, load: o + n.loadEventStart,
        ...Object.fromEntries((self.__m || []).map(([k, v]) => [k, v])),
        ...Object.fromEntries(Object.keys(sessionStorage).filter((k) => k.startsWith('t-')).map((k) => [k.slice(2), Number(sessionStorage.getItem(k))])) };
    }) : {};
    for (const [k, v] of Object.entries(nt)) row['p.' + k] = Math.round((v - t0) * 10) / 10;
    if (i > 0) rows.push(row);
  }
  const line = (r) => Object.entries(r).sort((a, b) => a[1] - b[1]).map(([k, v]) => `${k}=${v}`).join('  ');
  for (const r of rows.slice(0, Number(process.env.ROWS || 0))) console.log(line(r));
  const med = (a) => { const s = a.filter((x) => x != null).sort((x, y) => x - y); return s[s.length >> 1]; };
  const keys = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  console.log('medians: ' + line(Object.fromEntries(keys.map((k) => [k, med(rows.map((r) => r[k]))]))));
} finally {
  await context.close();
  await daemon.close();
  server.close();
  fs.rmSync(tmp, { recursive: true, force: true });
}
