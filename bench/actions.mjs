// Action times, side by side with Playwright (issue 14, "speed of in-page actions").
//
//   node bench/actions.mjs            # BB=/path/to/browser-bridge (default bench/.build, then build-check)
//   N=15 node bench/actions.mjs       # rounds per action (default 15)
//
// Two Chromiums (/usr/bin/chromium, new headless, same window size): one launched by
// playwright-core with the real built extension, paired with a real daemon, where the bridge
// drives its tab through the HTTP tool API (every call returns when the browser has answered and
// sent the page after the action); the other driven by Playwright itself (a tab of the same
// browser would be a background tab, whose timers Chromium throttles). Each action is the same on both sides and
// both wait for the same DOM change:
//   in-page click   a button that appends an <li>: until the list has one more item
//   type + submit   type into "New todo" and press Enter (the form appends an <li> and clears
//                   the field): until the list has one more item
//   open_url        load a page: until its load event (Playwright's goto) / the bridge's answer;
//                   a second row adds the page read to Playwright's side (goto, then
//                   ariaSnapshot(), as Playwright MCP's navigate answers): the bridge's answer
//                   holds the page already (no target of its own: for reference); a third row
//                   times Playwright's goto in the bridge's own browser, on its tab (the
//                   extension present but not asked: the floor an extension starts from)
//   link navigation click a link to another page: until that page has loaded
// Rounds are interleaved (bridge, Playwright, bridge, …) so machine noise hits both alike.
// Prints a Markdown table: medians in ms and the ratio bridge ÷ Playwright (< 1: bridge faster),
// with issue 14's targets (in-page ≤ 1.2×, navigation ≤ 1×). Judges nothing: bench/ only reports.
import './daemon-bin.mjs'; // sets BB_BIN before the harness is imported
import { NAV_PAGES, servePages } from './pages.mjs';

const { startDaemon, launchBrowser, CHROMIUM } = await import('../tests/e2e/support/harness.mjs');
const { chromium } = await import('playwright-core');
const N = Number(process.env.N || 15);

const PAGES = {
  '/click.html': `<!doctype html><title>Click</title><h1>Click</h1><button id="b" type="button">Add item</button><ul id="l"></ul>
<script>let n=0;document.getElementById('b').onclick=()=>{const li=document.createElement('li');li.textContent='Item '+(++n);document.getElementById('l').append(li);};</script>`,
  '/type.html': `<!doctype html><title>Type</title><h1>Todos</h1><form id="f"><label for="t">New todo</label> <input id="t" autocomplete="off"></form><ul id="l"></ul>
<script>document.getElementById('f').onsubmit=(e)=>{e.preventDefault();const t=document.getElementById('t');if(!t.value)return;const li=document.createElement('li');li.textContent=t.value;document.getElementById('l').append(li);t.value='';};</script>`,
  ...NAV_PAGES,
};

const { server, base } = await servePages(PAGES);

const median = (a) => { const s = [...a].sort((x, y) => x - y); const m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };
const now = () => performance.now();

let daemon, browser, pwBrowser;
try {
  daemon = await startDaemon({ kind: 'real' });
  browser = await launchBrowser({ daemon });
  await daemon.waitForBrowser(browser.clientId);
  const call = async (tool, params) => {
    const r = await daemon.call(tool, { client_id: browser.clientId, tab_id: bridgeTab, ...params });
    if (r.status !== 'success') throw new Error(`${tool} ${JSON.stringify(params)}: ${r.http} ${JSON.stringify(r.result || r.message)}`);
    return r;
  };
  let bridgeTab;
  // The bridge's own tab, and Playwright's.
  const first = await daemon.call('browser_open_url', { client_id: browser.clientId, url: base + '/page1.html', new_tab: true });
  bridgeTab = first.page?.tab_id ?? first.result?.tabId;
  // Playwright gets a Chromium of its own (same binary, same headless mode, same window size),
  // so that neither side's tab is a background tab of the other's window.
  pwBrowser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless=new', '--window-size=1000,700', ...(process.getuid?.() === 0 ? ['--no-sandbox'] : [])] });
  const page = await pwBrowser.newPage({ viewport: { width: 1000, height: 700 } });
  await page.goto(base + '/page1.html');

  const bridge = { click: [], type: [], open: [], openRead: [], openHere: [], link: [] };
  const pw = { click: [], type: [], open: [], openRead: [], openHere: [], link: [] };
  // Playwright's handle on the bridge's tab (the page it shows now).
  const ctxTab = () => browser.context.pages().find((p) => p.url().startsWith(base));

  // in-page click
  await call('browser_open_url', { url: base + '/click.html' });
  await page.goto(base + '/click.html');
  for (let i = 1; i <= N + 1; i++) {
    let t = now();
    const r = await call('browser_click', { target: 'Add item' });
    const dt = now() - t;
    if (!r.page.markdown.includes(`Item ${i}`)) throw new Error(`bridge click ${i}: the new item is not in the page`);
    t = now();
    await page.getByRole('button', { name: 'Add item' }).click();
    await page.waitForFunction((n) => document.querySelectorAll('#l li').length === n, i);
    const dp = now() - t;
    if (i > 1) { bridge.click.push(dt); pw.click.push(dp); } // first round: warm-up
  }

  // type + submit
  await call('browser_open_url', { url: base + '/type.html' });
  await page.goto(base + '/type.html');
  for (let i = 1; i <= N + 1; i++) {
    let t = now();
    const r = await call('browser_type', { target: 'New todo', text: `Todo ${i}`, submit: true });
    const dt = now() - t;
    if (!r.page.markdown.includes(`Todo ${i}`)) throw new Error(`bridge type ${i}: the new todo is not in the page`);
    t = now();
    await page.getByLabel('New todo').fill(`Todo ${i}`);
    await page.getByLabel('New todo').press('Enter');
    await page.waitForFunction((n) => document.querySelectorAll('#l li').length === n, i);
    const dp = now() - t;
    if (i > 1) { bridge.type.push(dt); pw.type.push(dp); }
  }

  // open_url (alternating between two pages so every open is a real navigation)
  for (let i = 0; i <= N; i++) {
    const url = base + (i % 2 ? '/page1.html' : '/page2.html');
    let t = now();
    const r = await call('browser_open_url', { url });
    const dt = now() - t;
    if (!r.page.url.startsWith(url)) throw new Error(`bridge open ${url}: got ${r.page.url}`);
    t = now();
    await page.goto(url);
    const dp = now() - t;
    // … and the page read, as an agent needs it: what Playwright MCP's navigate answers with
    // (an ARIA snapshot after goto); the bridge's answer already holds the page.
    t = now();
    const snap = await page.locator('body').ariaSnapshot();
    const ds = now() - t;
    if (!/Page (one|two)/.test(snap)) throw new Error('playwright snapshot: not the page');
    if (i > 0) { bridge.open.push(dt); pw.open.push(dp); bridge.openRead.push(dt); pw.openRead.push(dp + ds); }
    // … and Playwright's own goto in the bridge's browser, on the bridge's tab (the extension
    // loaded and its page scripts in every page, but not asked for anything): what loading a page
    // costs there before the bridge does anything, the floor of any extension's open_url.
    const own = ctxTab();
    const back = base + (i % 2 ? '/page2.html' : '/page1.html');
    t = now();
    await own.goto(back);
    const dx = now() - t;
    await call('browser_open_url', { url }); // back where the bridge left it
    if (i > 0) { bridge.openHere.push(dt); pw.openHere.push(dx); }
  }

  // link navigation
  for (let i = 0; i <= N; i++) {
    await call('browser_open_url', { url: base + '/page1.html' });
    await page.goto(base + '/page1.html');
    let t = now();
    const r = await call('browser_click', { target: 'Next page' });
    const dt = now() - t;
    if (!/# Page two/.test(r.page.markdown)) throw new Error('bridge link: not on page two');
    t = now();
    await Promise.all([page.waitForURL('**/page2.html'), page.getByRole('link', { name: 'Next page' }).click()]);
    const dp = now() - t;
    if (i > 0) { bridge.link.push(dt); pw.link.push(dp); }
  }

  const rows = [
    ['in-page click (a button appends an item)', 'click', 1.2],
    ['type + submit (type, Enter; the form appends an item)', 'type', 1.2],
    ['open_url (page load)', 'open', 1.0],
    ['open_url, the page read (Playwright: goto, then ariaSnapshot())', 'openRead', null],
    ['open_url against Playwright\'s goto in the bridge\'s own browser (the extension loaded, not asked)', 'openHere', null],
    ['link navigation (click, next page loaded)', 'link', 1.0],
  ];
  console.log(`Action times, median of ${N} (after a warm-up round), ms; bridge = HTTP tool call to answer with the page; Playwright drives a second Chromium (same binary and mode) and waits for the same DOM change.`);
  console.log('');
  console.log('| action | bridge | Playwright | bridge ÷ Playwright | target (issue 14) | verdict |');
  console.log('|---|---|---|---|---|---|');
  for (const [name, k, target] of rows) {
    const b = median(bridge[k]), p = median(pw[k]), ratio = b / p;
    const verdict = target == null ? 'for reference' : ratio <= target ? 'met' : '**MISSED**';
    console.log(`| ${name} | ${b.toFixed(0)} | ${p.toFixed(0)} | ${ratio.toFixed(2)}× | ${target == null ? '—' : `≤ ${target.toFixed(1)}×`} | ${verdict} |`);
    console.error(`action ${k} ${b.toFixed(1)} ${p.toFixed(1)} ${ratio.toFixed(3)}`);
  }
} finally {
  await pwBrowser?.close();
  await browser?.close();
  await daemon?.close();
  server.close();
}
