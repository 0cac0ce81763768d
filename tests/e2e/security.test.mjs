// End-to-end, against hostile pages: real Chromium + the real extension + the daemon, driven
// through the HTTP tool API (issues 12 and 13). Each test names what it guards:
//   - a failed navigation is an error with its net:: code, and nothing fake is stored as a page;
//   - a page cannot get the extension to open file:, javascript: or data: URLs;
//   - typed text is never in a result, summary, call log, storage or (for secrets) anywhere;
//   - secret fields show only filled/empty; invisible text is left out of the Markdown;
//   - a JavaScript dialog does not wedge the browser;
//   - a description never acts inside another origin's frame, and frames show their origin.
//   node --test tests/e2e/security.test.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { setup, refOf, resultData, freePort } from './support/harness.mjs';

let env;
before(async () => { env = await setup(); });
after(async () => { await env?.close(); });

const ok = (r) => assert.equal(r.status, 'success', `expected success, got ${r.http} ${JSON.stringify(r.result || r.message)}`);
const open = async (p, extra = {}) => { const r = await env.call('browser_open_url', { url: env.url(p), ...extra }); ok(r); return r; };
const marker = (what) => `${what}-${randomBytes(6).toString('hex')}`;

async function api(path) {
  const res = await fetch(env.daemon.httpUrl + path, { headers: { authorization: `Bearer ${env.daemon.token}` } });
  assert.equal(res.status, 200, `${path}: HTTP ${res.status}`);
  return res.json();
}

// The history pages stored for a call (by its request id).
async function pagesOf(requestId) {
  const h = await api('/api/history?limit=500');
  return h.pages.filter((p) => p.request_id === requestId);
}

// The daemon's history database file (the harness passes --db), and a text dump of it.
function dbFile() {
  const args = env.daemon.proc?.spawnargs || [];
  const i = args.indexOf('--db');
  return i >= 0 ? args[i + 1] : null;
}
function dbDump() {
  const db = dbFile();
  const r = spawnSync('sqlite3', [db, '.dump'], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  assert.equal(r.status, 0, `sqlite3 .dump failed: ${r.stderr}`);
  return r.stdout;
}
// Every byte the database keeps on disk (main file and write-ahead log).
function dbBytes() {
  const db = dbFile();
  return ['', '-wal', '-journal'].map((s) => (existsSync(db + s) ? readFileSync(db + s).toString('latin1') : '')).join('\n');
}

test('a navigation that fails is an error with its net:: code, and no page is stored for it', async () => {
  await open('/page2.html');
  const closed = await freePort(); // nothing listens there
  const url = `http://127.0.0.1:${closed}/nothing-here`;
  let r = await env.call('browser_open_url', { url });
  assert.equal(r.http, 200, JSON.stringify(r));
  assert.equal(r.status, 'error', JSON.stringify(r.result));
  assert.match(r.result.error, /net::ERR_CONNECTION_REFUSED/);
  assert.match(r.result.error, new RegExp(`^Loading ${url.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} failed with net::ERR_CONNECTION_REFUSED \\(`));
  assert.equal(resultData(r).netError, 'net::ERR_CONNECTION_REFUSED');
  assert.equal(r.page, null, 'no page: the tab shows the browser\'s error page, not the site');
  assert.doesNotMatch(JSON.stringify(r), /could not be read/);
  assert.deepEqual(await pagesOf(r.request_id), [], 'no history row for the failed navigation');
  assert.equal((await api(`/api/history?url=${encodeURIComponent(`127.0.0.1:${closed}`)}`)).pages.length, 0);

  // The same in a new tab, and a get_page on the tab that shows the error page.
  r = await env.call('browser_open_url', { url, new_tab: true });
  assert.equal(r.status, 'error', JSON.stringify(r.result));
  assert.match(r.result.error, /net::ERR_CONNECTION_REFUSED/);
  assert.deepEqual(await pagesOf(r.request_id), []);
  const errTab = resultData(r).tabId;
  assert.ok(Number.isInteger(errTab), JSON.stringify(r.result));
  r = await env.call('browser_get_page', { tab_id: errTab });
  assert.equal(r.http, 200);
  assert.equal(r.status, 'error', JSON.stringify(r.result));
  assert.match(r.result.error, /net::ERR_CONNECTION_REFUSED/);
  assert.deepEqual(await pagesOf(r.request_id), []);
  ok(await env.call('browser_close_tab', { tab_id: errTab }));

  // A name that does not resolve (.invalid never does).
  r = await env.call('browser_open_url', { url: 'http://nonexistent.invalid/' });
  assert.equal(r.http, 200);
  assert.equal(r.status, 'error', JSON.stringify(r.result));
  assert.match(r.result.error, /net::ERR_[A-Z_]+/);
  assert.match(resultData(r).netError, /^net::ERR_NAME_NOT_RESOLVED$|^net::ERR_NAME_RESOLUTION_FAILED$|^net::ERR_INTERNET_DISCONNECTED$/);
  assert.deepEqual(await pagesOf(r.request_id), []);
  assert.equal((await api('/api/history?url=nonexistent.invalid')).pages.length, 0);

  // The call log says error too (it is written a moment after the answer: poll, bounded).
  let logged;
  for (let i = 0; i < 50 && !logged; i++) {
    logged = (await api('/api/commands?limit=20')).commands.find((c) => c.request_id === r.request_id);
    if (!logged) await new Promise((res) => setTimeout(res, 100));
  }
  assert.ok(logged, 'the failed call is in the call log');
  assert.equal(logged.status, 'error');

  // A click on a link whose navigation fails: an error with the code, not the error page as a page.
  await open(`/sec-nav.html?port=${closed}`);
  r = await env.call('browser_click', { target: 'Follow the broken link' });
  assert.equal(r.http, 200);
  assert.equal(r.status, 'error', JSON.stringify(r.result));
  assert.match(r.result.error, new RegExp(`^Clicked \\[link "Follow the broken link" e\\d+\\], but loading http://127\\.0\\.0\\.1:${closed}/gone failed with net::ERR_CONNECTION_REFUSED`));
  assert.equal(r.page, null);
  assert.deepEqual(await pagesOf(r.request_id), []);

  // The tab is usable again afterwards.
  await open('/page2.html');
});

test('an open that brings no page (204 No Content, a download) is an error saying what the tab still shows', async () => {
  const before = env.url('/page2.html');
  await open('/page2.html');
  for (const p of ['/nocontent', '/download']) {
    const url = env.url(p);
    const r = await env.call('browser_open_url', { url });
    assert.equal(r.http, 200, JSON.stringify(r));
    assert.equal(r.status, 'error', `${p}: ${JSON.stringify(r.result)}`);
    assert.equal(r.result.error, `Did not open ${url}: the server sent no page to show (a download, or an empty answer such as 204 No Content); the tab still shows ${before}.`);
    assert.equal(r.page?.url, before, 'the page sent is the one the tab shows');
    assert.match(r.page.markdown, /# Page two/);
  }
  // In a new tab: nothing came into it.
  const r = await env.call('browser_open_url', { url: env.url('/nocontent'), new_tab: true });
  assert.equal(r.status, 'error', JSON.stringify(r.result));
  assert.match(r.result.error, /^Did not open http:\/\/[^ ]+\/nocontent: the server sent no page to show .*; the tab shows no page\.$/);
  const tab = resultData(r).tabId;
  if (Number.isInteger(tab)) await env.call('browser_close_tab', { tab_id: tab }).catch(() => {});
  await open('/page2.html');
});

test('a page the extension may not read (chrome://) is an error, not a stored placeholder', async () => {
  const p = await env.browser.context.newPage();
  try {
    await p.goto('chrome://version/').catch(() => {});
    const tabs = resultData(await env.call('browser_list_tabs', {})).tabs;
    const t = tabs.find((x) => /^chrome:\/\/version/.test(x.url));
    assert.ok(t, JSON.stringify(tabs));
    const r = await env.call('browser_get_page', { tab_id: t.tabId });
    assert.equal(r.http, 200);
    assert.equal(r.status, 'error', JSON.stringify(r.result));
    assert.match(r.result.error, /chrome:\/\/version\/?\) is a browser page that extensions cannot read/);
    assert.equal(r.page, null);
    assert.deepEqual(await pagesOf(r.request_id), []);
    assert.equal((await api('/api/history?url=chrome%3A%2F%2Fversion')).pages.length, 0);
  } finally {
    await p.close().catch(() => {});
  }
});

test('a page cannot make the extension open file:, javascript: or data: URLs', async () => {
  const hostname = readFileSync('/etc/hostname', 'utf8').trim();
  const first = await open('/sec-links.html');
  const tab = resultData(first).tabId;
  const tabsBefore = resultData(await env.call('browser_list_tabs', {})).tabs.length;
  for (const [link, scheme] of [['Read the local file', 'file:///etc/hostname'], ['Run a script link', 'javascript:'], ['Open a data link', 'data:']]) {
    const r = await env.call('browser_click', { target: link, tab_id: tab });
    assert.equal(r.status, 'error', `${link}: ${JSON.stringify(r.result)}`);
    assert.match(r.result.error, /was refused/, link);
    assert.ok(r.result.error.includes(scheme), r.result.error);
    assert.match(r.page.url, /\/sec-links\.html$/, 'the answer is the page the link is on');
    assert.doesNotMatch(r.page.markdown, /^# DATA-URL-PAGE-MARKER/m, 'no data: page content');
    // The local file's text (checked when the host name is distinctive enough to find).
    if (hostname.length >= 6 && !JSON.stringify(first).includes(hostname)) assert.ok(!JSON.stringify(r).includes(hostname), 'file content in the answer');
  }
  const tabs = resultData(await env.call('browser_list_tabs', {})).tabs;
  assert.equal(tabs.length, tabsBefore, 'no tab was opened');
  assert.ok(!tabs.some((t) => /^(file|data|javascript):/.test(t.url)), JSON.stringify(tabs));
  // Nothing in history came from a file: or data: URL, and the local file's text is nowhere.
  const h = (await api('/api/history?limit=500')).pages;
  assert.ok(!h.some((p) => /^(file|data|javascript):/.test(p.url)), JSON.stringify(h.map((p) => p.url)));
  assert.ok(!dbDump().split('\n').some((l) => /^INSERT INTO "?pages"? /i.test(l) && /'(file|data|javascript):/.test(l)), 'a page from a refused URL in the database');
  // An http link with target=_blank still opens, in a new tab.
  const r = await env.call('browser_click', { target: 'A normal new-tab link', tab_id: tab });
  ok(r);
  assert.match(r.page.markdown, /# Page two/);
  assert.notEqual(r.page.tab_id, tab);
  ok(await env.call('browser_close_tab', { tab_id: r.page.tab_id }));
});

test('typed text is in no result, summary, call log or extension storage; a secret field is masked for good', async () => {
  const nick = marker('NICK');
  const pin = marker('PIN');
  let r = await open('/sec-type.html');
  const normal = await env.call('browser_type', { target: 'Nickname', text: nick });
  ok(normal);
  assert.match(normal.result.message, /^Typed \d+ characters into \[input text "Nickname" e\d+\]$/);
  // A non-secret field's value is shown in the page, where the user sees it too.
  assert.match(normal.page.markdown, new RegExp(`\\[input text "Nickname" value="${nick}" e\\d+\\]`));
  const secret = await env.call('browser_type', { target: 'PIN', text: pin });
  ok(secret);
  // The page turned the field into type=text on the first keydown: still secret.
  assert.match(secret.page.markdown, /\[input text "PIN" filled e\d+\]/);
  r = await env.call('browser_get_page', {});
  assert.match(r.page.markdown, /\[input text "PIN" filled e\d+\]/);
  // Text typed into a select that has no such option: the error does not repeat it.
  const size = marker('SIZE');
  const wrong = await env.call('browser_type', { target: 'Size', text: size });
  assert.equal(wrong.status, 'error');
  assert.match(wrong.result.error, /has no option matching the text typed\. Options: "Small", "Large"/);

  for (const s of [nick, pin, size]) {
    for (const a of [normal, secret, wrong]) {
      assert.ok(!JSON.stringify(a.result).includes(s), `result of a type call contains ${s}: ${JSON.stringify(a.result)}`);
      assert.ok(!a.summary.includes(s), `summary contains ${s}: ${a.summary}`);
    }
    const cmds = JSON.stringify(await api('/api/commands?limit=50'));
    assert.ok(!cmds.includes(s), `/api/commands contains ${s}`);
    const stored = await env.browser.serviceWorker.evaluate(() => chrome.storage.session.get(null));
    assert.ok(!JSON.stringify(stored).includes(s), `chrome.storage.session contains ${s}: ${JSON.stringify(stored.lastCommand)}`);
    const local = await env.browser.serviceWorker.evaluate(() => chrome.storage.local.get(null));
    assert.ok(!JSON.stringify(local).includes(s), `chrome.storage.local contains ${s}`);
    if (env.daemon.output) assert.ok(!env.daemon.output().includes(s), `the daemon's log contains ${s}`);
  }
  // In the database the normal field's value is only in the stored pages (as the user saw it);
  // the secret one is in no byte of the file.
  const dump = dbDump();
  for (const line of dump.split('\n')) {
    if (line.includes(nick)) assert.match(line, /^INSERT INTO "?(pages|contents|pages_fts[a-z_]*|fts[a-z_]*)"? /i, `typed text outside the page Markdown: ${line.slice(0, 300)}`);
  }
  assert.ok(!dump.includes(pin), 'the secret is in the database dump');
  assert.ok(!dbBytes().includes(pin), 'the secret is in the database file');
});

test('secret fields show only filled/empty: toggled passwords, -webkit-text-security, secret autocomplete kinds', async () => {
  let r = await open('/sec-mask.html');
  const secrets = ['TOGGLED-SECRET-1', 'TEXTSEC-SECRET-2', 'CURPW-SECRET-3', 'NEWPW-SECRET-4', 'OTC-SECRET-5', 'CCNUM-SECRET-6',
    'CSC-SECRET-7', 'CCEXP-SECRET-8', 'CCEXPM-SECRET-9', 'CCNAME-SECRET-10', 'TEXTAREA-SECRET-11'];
  const check = (md) => {
    for (const s of secrets) assert.ok(!md.includes(s), `${s} in the Markdown:\n${md}`);
    for (const name of ['Masked by CSS', 'Current password', 'New password', 'One-time code', 'Card number', 'Security code', 'Expiry', 'Expiry month', 'Name on card']) {
      assert.match(md, new RegExp(`\\[input text "${name}" filled e\\d+\\]`), name);
    }
    assert.match(md, /\[textarea "Masked note" filled e\d+\]/);
    assert.match(md, /\[input text "Empty code" empty e\d+\]/);
    assert.match(md, /\[input text "City" value="Visible City" e\d+\]/, 'an ordinary field still shows its value');
  };
  check(r.page.markdown);
  assert.match(r.page.markdown, /\[input password "Account password" filled e\d+\]/);
  // "Show password": the field becomes type=text, and stays masked.
  r = await env.call('browser_click', { target: 'Show password' });
  ok(r);
  check(r.page.markdown);
  assert.match(r.page.markdown, /\[input text "Account password" filled e\d+\]/);
  assert.ok(!JSON.stringify(r).includes('SECRET-'), 'no secret anywhere in the answer');
  const h = (await api(`/api/history?limit=5`)).pages;
  for (const p of h.slice(0, 2)) {
    const page = await api(`/api/history/${p.id}`);
    for (const s of secrets) assert.ok(!page.markdown.includes(s), `${s} stored in history`);
  }
});

test('text a sighted user cannot see is left out of the Markdown; a visually hidden label still names its field', async () => {
  const r = await open('/sec-hidden.html');
  const md = r.page.markdown;
  assert.match(md, /VISIBLE-TEXT-OK/);
  assert.match(md, /VISIBLE-TAIL-OK/);
  assert.match(md, /^# Visible heading$/m);
  for (const m of ['HIDDEN-OPACITY', 'HIDDEN-OFFSCREEN', 'HIDDEN-FONTSIZE', 'HIDDEN-CLIPRECT', 'HIDDEN-CLIPPATH', 'HIDDEN-HEIGHT0',
    'HIDDEN-SCALE0', 'HIDDEN-ARIA', 'HIDDEN-PIXEL-ALT', 'HIDDEN-PIXEL2-ALT', 'HIDDEN-INDENT', 'HIDDEN-IN-LINK', 'HIDDEN-SRONLY-PARAGRAPH']) {
    assert.ok(!md.includes(m), `${m} is in the Markdown:\n${md}`);
  }
  assert.doesNotMatch(md, /ignore previous instructions/);
  assert.match(md, /\[input search "Search the site" e\d+\]/, 'the .sr-only label names its field');
  assert.match(md, /\[input text "Postal code" e\d+\]/, 'aria-labelledby pointing to hidden text names its field');
  assert.match(md, /\[checkbox "Styled checkbox" e\d+\]/, 'an opacity:0 native checkbox under a visible label is kept');
  assert.match(md, /\[button "Visible button" e\d+\]/);
  assert.match(md, /\[A link to page two\]\([^)]*page2\.html\) \[e\d+\]/);
  // The hidden-labelled field can be used by its name.
  const t = await env.call('browser_type', { target: 'Search the site', text: 'query' });
  ok(t);
  assert.match(t.page.markdown, /\[input search "Search the site" value="query" e\d+\]/);
});

test('a JavaScript dialog does not wedge the browser: the call comes back, other tabs keep working', async () => {
  const dialogs = [];
  // Playwright dismisses dialogs by itself unless someone listens: listen, and leave them open,
  // as a user's browser would.
  const hold = (p) => p.on('dialog', (d) => { dialogs.push(d); });
  for (const p of env.browser.context.pages()) hold(p);
  env.browser.context.on('page', hold);
  let dialogTab;
  try {
    const first = await open('/sec-dialog.html');
    dialogTab = resultData(first).tabId;
    const t0 = Date.now();
    let r = await env.call('browser_click', { target: 'Show alert', timeout_ms: 25000 });
    const took = Date.now() - t0;
    assert.equal(r.http, 200, `the click did not come back in time: ${r.http} ${JSON.stringify(r)}`);
    // The extension's page script answers the alert at once (issue 14): the click succeeds and
    // reports the dialog; no real dialog ever blocks the page.
    assert.equal(r.status, 'success', JSON.stringify(r.result));
    assert.equal(r.result.dialog?.kind, 'alert');
    assert.equal(r.result.dialog?.message, 'A dialog blocks this page');
    assert.ok(took < 20000, `took ${took} ms`);
    assert.equal(dialogs.length, 0, 'a real alert opened');
    // Another tab: open_url in a new tab, then an un-targeted get_page, both served.
    const other = env.url('/page2.html').replace('127.0.0.1', 'localhost');
    r = await env.call('browser_open_url', { url: other, new_tab: true, timeout_ms: 20000 });
    ok(r);
    const newTab = resultData(r).tabId;
    assert.notEqual(newTab, dialogTab);
    r = await env.call('browser_get_page', { timeout_ms: 20000 });
    ok(r);
    assert.match(r.page.markdown, /# Page two/);
    assert.equal(r.page.tab_id, newTab);
    r = await env.call('browser_switch_tab', { tab_id: newTab, timeout_ms: 20000 });
    ok(r);
    ok(await env.call('browser_close_tab', { tab_id: newTab }));
  } finally {
    env.browser.context.off('page', hold);
    for (const d of dialogs) await d.dismiss().catch(() => {});
    for (const p of env.browser.context.pages()) p.removeAllListeners('dialog');
    if (dialogTab != null) await env.call('browser_close_tab', { tab_id: dialogTab }).catch(() => {});
  }
});

test('cross-origin frames: the marker shows the origin; a description never acts inside, the ref does', async () => {
  let r = await open('/sec-frame.html');
  let md = r.page.markdown;
  const frame = md.match(/\[iframe "Payment" origin=(http:\/\/localhost:\d+)\]\n\n([\s\S]*?)\n\n\[\/iframe\]/);
  assert.ok(frame, md);
  const card = refOf(frame[2], /\[input text "Card number"/);
  assert.ok(card, frame[2]);
  const number = marker('4111');
  r = await env.call('browser_type', { target: 'Card number', text: number });
  assert.equal(r.status, 'error', JSON.stringify(r.result));
  assert.ok(r.result.error.includes(`only [input text "Card number" ${card}] inside an iframe of ${frame[1]}`), r.result.error);
  assert.ok(r.result.error.includes(`use ${card}`), r.result.error);
  assert.ok(!r.page.markdown.includes(number), 'nothing was typed into the frame');
  // The ref works, and the result names the frame's origin.
  r = await env.call('browser_type', { target: card, text: number });
  ok(r);
  assert.ok(r.result.message.includes(`(in an iframe of ${frame[1]})`), r.result.message);
  assert.equal(resultData(r).frameOrigin, frame[1]);
  md = r.page.markdown;
  assert.ok(md.includes(`value="${number}"`), md);
  // The top page's own fields still work by description.
  ok(await env.call('browser_type', { target: 'Coupon', text: 'SAVE10' }));
});
