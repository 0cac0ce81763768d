// End-to-end test of the dashboard (www/) in headless Chromium against the real daemon:
//   node --test tests/e2e/dashboard.test.mjs        (BB_BIN=/path/to/browser-bridge to override)
// Logs in via the printed login URL, watches a live call, searches history, opens a page, runs a
// tool from the console, checks that hostile page Markdown runs nothing, and saves screenshots of
// every view to tests/out/screenshots/. Also: live-call filters, the bounded live list with "Load
// more", single line breaks and one timestamp in the page view, the pairing view's extension folder,
// the login card's real address, the narrow console, and the favicon being the extension's icon.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import {
  ROOT, CHROMIUM, CHROMIUM_ARGS, STRICT_CSP, buildDashboard, buildExtension, startDaemon, startScriptedBrowser, startCanary,
} from './support/dashboard-harness.mjs';

const SHOTS = join(ROOT, 'tests/out/screenshots');
const LAPTOP = { width: 1366, height: 820 };
const NARROW = { width: 390, height: 844 };

function fixturePages(canary) {
  const c = `http://127.0.0.1:${canary.port}`;
  return {
    'https://docs.example.org/guide/install': {
      title: 'Installing Widgets',
      markdown: [
        '# Installing Widgets',
        '',
        'Widgets install in **three** steps. See the [FAQ](../faq) or the [home page](https://docs.example.org/).',
        '',
        '![Widget logo](https://cdn.example.org/logo.png)',
        '',
        '![tracking pixel](' + c + '/pixel-docs.png)',
        '',
        '## Requirements',
        '',
        '- A computer',
        '- Patience',
        '',
        '| Version | Supported |',
        '|---------|-----------|',
        '| 1.x     | yes       |',
        '| 0.x     | no        |',
        '',
        '```sh',
        'widget install --global',
        '```',
        '',
        '> Tip: run `widget doctor` when something fails.',
      ].join('\n'),
    },
    'https://shop.example.com/cart': {
      title: 'Your cart',
      markdown: '# Your cart\n\n1 × Zanzibar spice mix — 4.20 €\n\n[Checkout](/checkout) [e12]',
    },
    'https://forms.example.com/signup': {
      title: 'Sign up',
      markdown: '# Sign up\n\nName: [input e3]\nEmail: [input e4]\nNewsletter: [checkbox e5]\n\n[button e6] Create account',
    },
    'https://news.example.net/': {
      title: 'Headlines',
      markdown: '# Headlines\n\n- Local team wins\n- Weather: sunny',
    },
    'https://evil.example.com/xss': {
      title: 'Innocent page <script>window.__pwned="title"</script>',
      markdown: [
        '# Totally normal page',
        '',
        `<script>window.__pwned='script';fetch('${c}/script')</script>`,
        '',
        `<img src=x onerror="window.__pwned='img';fetch('${c}/img-onerror')">`,
        '',
        `Inline <img src=y onerror="alert('inline')"> and <svg onload="window.__pwned='svg'"></svg> text.`,
        '',
        `<iframe src="${c}/iframe"></iframe>`,
        '',
        "[click me](javascript:window.__pwned='link') and [data link](data:text/html,<script>alert(1)</script>)",
        '',
        `![tracker](${c}/pixel.png)`,
        '',
        `![x" onerror="window.__pwned='attr'](${c}/x.png)`,
        '',
        `<a href="${c}/a" onclick="window.__pwned='onclick'">raw anchor</a>`,
        '',
        '<form action="/logout" method="post"><button>Log out</button></form>',
        '',
        '<style>body{display:none}</style>',
        '',
        `<details open ontoggle="window.__pwned='toggle'">x</details>`,
        '',
        '[relative](/api/status) <http://127.0.0.1:1/autolink>',
      ].join('\n'),
    },
  };
}

describe('dashboard (www/) against the real daemon', { timeout: 180000 }, () => {
  let daemon;
  let peer;
  let canary;
  let browser;
  let context;
  let page;
  const dialogs = [];
  const cspViolations = [];
  const pageErrors = [];
  let servedCsp = null;
  let documentRouted = false;
  let delayMs = 60;

  before(async () => {
    mkdirSync(SHOTS, { recursive: true });
    const www = buildDashboard();
    canary = await startCanary();
    daemon = await startDaemon({ wwwDir: www });
    peer = await startScriptedBrowser({
      wsUrl: daemon.wsUrl, token: daemon.token, pages: fixturePages(canary), delayFor: () => delayMs,
    });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    context = await browser.newContext({ viewport: LAPTOP, colorScheme: 'light', locale: 'en-GB', timezoneId: 'UTC' });
    page = await context.newPage();
    page.on('dialog', (d) => { dialogs.push(`${d.type()}: ${d.message()}`); d.dismiss().catch(() => {}); });
    page.on('pageerror', (e) => pageErrors.push(`${e}\n${e.stack}`));
    page.on('console', (m) => { if (/Content Security Policy|Refused to/i.test(m.text())) cspViolations.push(m.text()); });
    // The dashboard must work under the daemon's strict CSP. If the daemon under test does not
    // send one (yet), add it here so the dashboard is still checked against it.
    await page.route((url) => url.origin === daemon.base && (url.pathname === '/' || url.pathname.endsWith('.html')), async (route) => {
      const res = await route.fetch();
      const headers = res.headers();
      documentRouted = true;
      servedCsp = headers['content-security-policy'] || null;
      if (!servedCsp) headers['content-security-policy'] = STRICT_CSP;
      await route.fulfill({ response: res, headers });
    });
  });

  after(async () => {
    await browser?.close().catch(() => {});
    peer?.close();
    await daemon?.stop();
    await canary?.close();
  });

  const shot = (name, opts = {}) => page.screenshot({ path: join(SHOTS, `${name}.png`), ...opts });
  const toolNamed = async (part) => {
    const { body } = await daemon.api('/api/tools');
    const list = Array.isArray(body) ? body : body.tools;
    const t = list.find((x) => x.name.endsWith(part)) || list.find((x) => x.name.includes(part));
    assert.ok(t, `no tool like ${part} in ${list.map((x) => x.name)}`);
    return t.name;
  };

  it('logs in with the login URL (HttpOnly session cookie) and shows the live view', async () => {
    await page.goto(daemon.loginUrl);
    await page.waitForURL(`${daemon.base}/#/live`);
    const cookies = await context.cookies(daemon.base);
    const session = cookies.find((c) => c.name === 'bb_session');
    assert.ok(session, 'bb_session cookie set');
    assert.equal(session.httpOnly, true);
    assert.equal(session.sameSite, 'Strict');
    assert.equal(await page.evaluate(() => document.cookie.includes('bb_session')), false);
    // Playwright does not route the redirect's target; reload so the CSP check above applies.
    await page.reload();
    assert.ok(documentRouted, 'the dashboard document went through the CSP route');
    await page.locator('.browser', { hasText: 'Scripted' }).waitFor();
    await page.locator('.tab-title', { hasText: 'Installing Widgets' }).waitFor();
    await page.locator('.conn-ok', { hasText: '1 browser connected' }).waitFor();
    if (!servedCsp) console.log('# note: the daemon served / without a Content-Security-Policy header; the test added it');
  });

  it('says what the history keeps while it is empty (only pages that agents\' calls return)', async () => {
    await page.goto(`${daemon.base}/#/history`);
    try {
      const empty = page.locator('.history .empty');
      await empty.waitFor();
      const text = await empty.innerText();
      assert.match(text, /No pages captured yet/);
      assert.match(text, /tool call returns/, 'names what is stored: the page a call returns');
      assert.match(text, /browse yourself are not recorded/, 'says what is not stored');
      assert.doesNotMatch(text, /on its own/, 'the extension sends no page on its own');
      await shot('history-empty');
    } finally {
      await page.goto(`${daemon.base}/#/live`); // where the next test starts
    }
  });

  it('shows a tool call live while the browser answers it', async () => {
    const openUrl = await toolNamed('open_url');
    delayMs = 1500;
    const call = daemon.callTool(openUrl, { url: 'https://docs.example.org/guide/install' });
    const row = page.locator('.call', { hasText: openUrl }).first();
    await row.locator('.badge-run').waitFor({ timeout: 5000 });
    assert.match(await row.locator('.call-params summary').innerText(), /docs\.example\.org/);
    await page.waitForTimeout(400); // let the elapsed-time counter tick once
    await shot('live-running');
    const answer = await call;
    delayMs = 60;
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    await row.locator('.badge-ok').waitFor();
    const text = await row.innerText();
    assert.match(text, /success/);
    assert.match(await row.locator('.call-dur').innerText(), /^1\.\d+ s$/, 'duration of the ~1.5 s call');
    if (answer.body.summary) assert.ok(text.includes(answer.body.summary.slice(0, 30)), 'summary shown');
    await row.locator('a.call-page').waitFor(); // links to the captured page
    // The captured page also appears under "Page updates".
    await page.locator('.live-pages .pagerow', { hasText: 'Installing Widgets' }).first().waitFor();

    // A few more calls so the screenshot shows a realistic list.
    const click = await toolNamed('click');
    await daemon.callTool(click, { target: 'e12' });
    await daemon.callTool(openUrl, { url: 'https://shop.example.com/cart', new_tab: true });
    await page.locator('.call.call-success').nth(2).waitFor();
    await shot('live');
  });

  it('filters the live calls by tool, status and browser', async () => {
    const getPage = await toolNamed('get_page');
    const click = await toolNamed('click');
    const openUrl = await toolNamed('open_url');
    const peer2 = await startScriptedBrowser({ wsUrl: daemon.wsUrl, token: daemon.token, pages: fixturePages(canary), clientId: 'scripted-2' });
    try {
      const other = await daemon.callTool(getPage, { client_id: 'scripted-2' });
      assert.equal(other.status, 200, JSON.stringify(other.body));
      delayMs = 800; // answers after the call's 100 ms timeout: the call fails with 504
      const failed = await daemon.callTool(click, { target: 'e1', client_id: 'scripted-1', timeout_ms: 100, wait_for_page_info: false });
      delayMs = 60;
      assert.equal(failed.status, 504, JSON.stringify(failed.body));
      await page.goto(`${daemon.base}/#/live`);
      await page.locator(`.call[data-request-id="${other.body.request_id}"] .badge-ok`).waitFor();
      await page.locator(`.call[data-request-id="${failed.body.request_id}"] .badge-err`).waitFor();
      assert.ok(await page.locator('.live-calls .call', { hasText: openUrl }).count() > 0, 'open_url calls listed before filtering');

      const rows = () => page.locator('.live-calls .call').evaluateAll((els) => els.map((e) => ({ ...e.dataset })));
      // Waits until the list shows only rows that pass `keep`, at least one, and including `mustId`.
      const waitForRows = async (what, keep, mustId) => {
        const deadline = Date.now() + 5000;
        let got;
        for (;;) {
          got = await rows();
          if (got.length && got.every(keep) && got.some((r) => r.requestId === mustId)) return got;
          if (Date.now() > deadline) assert.fail(`${what}: rows ${JSON.stringify(got)}`);
          await page.waitForTimeout(50);
        }
      };
      await page.locator('#live-tool').waitFor({ timeout: 5000 });
      await page.selectOption('#live-tool', getPage);
      await waitForRows('tool filter', (r) => r.tool === getPage, other.body.request_id);
      assert.equal(await page.locator(`.call[data-tool="${openUrl}"]`).count(), 0, 'rows of other tools disappear');
      assert.match(page.url(), new RegExp(`tool=${getPage}`));
      await shot('live-filtered');

      await page.selectOption('#live-tool', '');
      await page.selectOption('#live-status', 'error');
      await waitForRows('status filter', (r) => r.status === 'error', failed.body.request_id);
      assert.equal(await page.locator('.live-calls .call.call-success').count(), 0, 'successful calls disappear');

      await page.selectOption('#live-status', '');
      await page.selectOption('#live-browser', 'scripted-2');
      await waitForRows('browser filter', (r) => r.clientId === 'scripted-2', other.body.request_id);
      assert.equal(await page.locator('.call[data-client-id="scripted-1"]').count(), 0, 'calls of the other browser disappear');
      // The filter is in the URL, so it survives a reload.
      assert.match(page.url(), /#\/live\?browser=scripted-2$/);
      await page.reload();
      await waitForRows('browser filter after reload', (r) => r.clientId === 'scripted-2', other.body.request_id);
      assert.equal(await page.locator('#live-browser').inputValue(), 'scripted-2');

      await page.click('#live-clear');
      await page.locator(`.call[data-tool="${openUrl}"]`).first().waitFor();
      assert.doesNotMatch(page.url(), /\?/);
    } finally {
      peer2.close();
    }
    // Forget the second browser (a fresh load only lists connected ones).
    await page.locator('.browser.browser-off[data-client-id="scripted-2"]').waitFor();
    await page.reload();
    await page.locator('.browser[data-client-id="scripted-1"] .badge-ok').waitFor();
    assert.equal(await page.locator('.browser[data-client-id="scripted-2"]').count(), 0);
  });

  it('keeps the live list bounded and loads older calls from the API', async () => {
    const getPage = await toolNamed('get_page');
    const logged = async () => (await daemon.api('/api/commands?limit=500')).body.commands;
    const before = await logged();
    const oldest = before[before.length - 1];
    await page.goto(`${daemon.base}/#/live`);
    await page.locator('.live-calls .call').first().waitFor();
    // A stream of calls while the view is open: the list never shows more than 50 rows.
    delayMs = 0;
    const ids = [];
    try {
      for (let b = 0; b < 6; b++) {
        const batch = await Promise.all(Array.from({ length: 10 }, () => daemon.callTool(getPage, { wait_for_page_info: false })));
        for (const r of batch) {
          assert.equal(r.status, 200, JSON.stringify(r.body));
          ids.push(r.body.request_id);
        }
      }
    } finally {
      delayMs = 60;
    }
    const total = before.length + ids.length;
    assert.ok(total > 60, `calls made: ${total}`);
    await page.waitForFunction((last) => last.every((id) => document.querySelector(`.call[data-request-id="${id}"] .badge-ok`)), ids.slice(-10));
    const streamed = await page.locator('.live-calls .call').count();
    assert.ok(streamed <= 50, `the live list is bounded while calls stream in (${streamed} rows for ${total} calls)`);
    assert.match(await page.locator('.live-calls .calls-count').innerText(), /^50 of \d+ shown$/);
    await page.locator('#live-more').waitFor();

    // A fresh load holds only the newest calls; "Load more" fetches older ones from GET /api/commands.
    const deadline = Date.now() + 5000;
    while ((await logged()).length < total) {
      assert.ok(Date.now() < deadline, 'all calls are logged');
      await page.waitForTimeout(50);
    }
    await page.reload();
    await page.locator(`.call[data-request-id="${ids[ids.length - 1]}"]`).waitFor();
    assert.equal(await page.locator('.live-calls .call').count(), 50);
    assert.equal(await page.locator(`.call[data-request-id="${oldest.request_id}"]`).count(), 0, 'the oldest call is not loaded yet');
    const older = page.waitForRequest((req) => /\/api\/commands\?.*before=\d+/.test(req.url()));
    await page.click('#live-more');
    await older;
    await page.locator(`.call[data-request-id="${oldest.request_id}"]`).waitFor();
    const shown = await page.locator('.live-calls .call').count();
    assert.equal(shown, Math.min(total, 100), `rows after one "Load more" (${total} calls)`);
    if (total <= 100) await page.locator('#live-more').waitFor({ state: 'hidden' }); // nothing older left
    await page.locator(`.call[data-request-id="${oldest.request_id}"]`).scrollIntoViewIfNeeded();
    await shot('live-more');
  });

  it('holds at most 500 calls in the live view however many stream in', async () => {
    const getPage = await toolNamed('get_page');
    await page.goto(`${daemon.base}/#/live`);
    await page.reload(); // a fresh view (the previous test loaded more)
    await page.locator('.live-calls .call').first().waitFor();
    const already = (await daemon.api('/api/commands?limit=500')).body.commands.length;
    delayMs = 0;
    let last = [];
    try {
      for (let made = 0; made < 520 - already;) {
        last = await Promise.all(Array.from({ length: 20 }, () => daemon.callTool(getPage, { wait_for_page_info: false })));
        for (const r of last) assert.equal(r.status, 200, JSON.stringify(r.body));
        made += last.length;
      }
    } finally {
      delayMs = 60;
    }
    await page.waitForFunction((ids) => ids.every((id) => document.querySelector(`.call[data-request-id="${id}"] .badge-ok`)), last.map((r) => r.body.request_id));
    assert.equal(await page.locator('.live-calls .call').count(), 50);
    assert.equal(await page.locator('.live-calls .calls-count').innerText(), '50 of 500 shown', 'the oldest calls were let go');
  });

  it('lists, searches and filters history, and opens a page', async () => {
    peer.pushPage('https://news.example.net/', 8);
    peer.pushPage('https://evil.example.com/xss', 8);
    await page.locator('.live-pages .pagerow', { hasText: 'Headlines' }).waitFor();
    await page.goto(`${daemon.base}/#/history`);
    await page.locator('.history .pagerow').first().waitFor();
    const ids = await page.locator('.history .pagerow').evaluateAll((els) => els.map((e) => Number(e.dataset.id)));
    assert.ok(ids.length >= 4, `pages listed: ${ids}`);
    assert.deepEqual(ids, [...ids].sort((a, b) => b - a), 'newest first');
    await shot('history');

    await page.fill('#history-q', 'zanzibar');
    await page.press('#history-q', 'Enter');
    await page.waitForFunction(() => [...document.querySelectorAll('.history .pagerow')].every((e) => e.textContent.includes('cart')) && document.querySelectorAll('.history .pagerow').length > 0);
    assert.match(page.url(), /q=zanzibar/);
    await page.locator('.history .snippet mark', { hasText: /zanzibar/i }).waitFor();
    await shot('history-search');

    await page.fill('#history-q', '');
    await page.fill('#history-site', 'docs.example.org');
    await page.press('#history-site', 'Enter');
    await page.waitForFunction(() => {
      const rows = [...document.querySelectorAll('.history .pagerow')];
      return rows.length > 0 && rows.every((e) => e.textContent.includes('docs.example.org'));
    });
    await page.locator('.history .pagerow a.pagerow-title', { hasText: 'Installing Widgets' }).first().click();
    await page.waitForURL(/#\/history\/\d+/);
    const md = page.locator('.md');
    await md.locator('h1', { hasText: 'Installing Widgets' }).waitFor();
    assert.equal(await md.locator('table td').first().innerText(), '1.x');
    assert.match(await md.locator('pre code').innerText(), /^widget install --global\s*$/);
    const faq = md.locator('a', { hasText: 'FAQ' });
    assert.equal(await faq.getAttribute('href'), 'https://docs.example.org/faq', 'relative link resolved against the page URL');
    assert.equal(await faq.getAttribute('target'), '_blank');
    assert.match(await faq.getAttribute('rel'), /noopener/);
    assert.match(await faq.getAttribute('rel'), /noreferrer/);
    assert.equal(await md.locator('img').count(), 0, 'remote images are not loaded');
    assert.equal(await md.locator('.md-img-blocked').count(), 2);
    await shot('page', { fullPage: true });

    await page.click('#tab-raw');
    await page.locator('#page-raw').waitFor();
    assert.match(await page.locator('#page-raw').innerText(), /^# Installing Widgets/);
    assert.match(page.url(), /view=raw/);
    await shot('page-raw');
    await page.click('#tab-formatted');
    assert.equal(canary.hits.length, 0, `no request left for remote images: ${canary.hits}`);
  });

  let formPageId = null;
  it('keeps single line breaks in the formatted page view', async () => {
    const openUrl = await toolNamed('open_url');
    const answer = await daemon.callTool(openUrl, { url: 'https://forms.example.com/signup' });
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    const id = answer.body.page?.history_id;
    assert.ok(id, `the call returned the stored page: ${JSON.stringify(answer.body.page)}`);
    formPageId = id;
    await page.goto(`${daemon.base}/#/history/${id}`);
    const md = page.locator('.md');
    await md.locator('h1', { hasText: 'Sign up' }).waitFor();
    const fields = md.locator('p', { hasText: 'Name:' });
    assert.equal(await fields.innerText(), 'Name: [input e3]\nEmail: [input e4]\nNewsletter: [checkbox e5]', 'one form field per line');
    assert.equal(await fields.locator('br').count(), 2);
    assert.equal(await md.locator('script, style, form, input').count(), 0, 'still sanitised');
    await shot('page-form');
  });

  it('shows one timestamp in the page view', async () => {
    assert.ok(formPageId, 'the previous test stored the form page');
    const id = formPageId;
    await page.goto(`${daemon.base}/#/history/${id}`);
    await page.locator('.md h1', { hasText: 'Sign up' }).waitFor();

    const { body: stored } = await daemon.api(`/api/history/${id}`);
    const captured = await page.evaluate(() => {
      const dt = [...document.querySelectorAll('.meta dt')].find((e) => e.textContent.trim() === 'Captured');
      const dd = dt?.nextElementSibling;
      return dd ? { text: dd.innerText, times: dd.querySelectorAll('time').length } : null;
    });
    assert.ok(captured, 'a Captured line');
    const clock = captured.text.match(/\d{1,2}:\d{2}(:\d{2})?/g) || [];
    assert.equal(clock.length, 1, `one timestamp, not the same time twice: "${captured.text}"`);
    assert.equal(captured.times, 1);
    assert.ok(captured.text.includes(stored.captured_at.slice(11, 19)), `the capture time (UTC here): "${captured.text}" vs ${stored.captured_at}`);
  });

  // Issue 19: revisits are one visit, times are local, and history can be deleted from the dashboard.
  const storedCaptures = async (url, n) => {
    const deadline = Date.now() + 5000;
    for (;;) {
      const caps = (await daemon.api(`/api/history?group=none&limit=500&url=${encodeURIComponent(url)}`)).body.pages;
      if (caps.length === n) return caps;
      assert.ok(Date.now() < deadline, `${n} captures of ${url} stored (${caps.length})`);
      await page.waitForTimeout(50);
    }
  };

  it('lists a revisited page once, as a visit, in the browser\'s local time', async () => {
    const url = 'https://repeat.example.com/home';
    for (let i = 0; i < 5; i++) peer.pushPage(url, 9);
    const caps = await storedCaptures(url, 5);
    const tz = 'Asia/Kathmandu'; // UTC+05:45: no clock time there equals the UTC one
    const ctx = await browser.newContext({ viewport: LAPTOP, locale: 'en-GB', timezoneId: tz });
    try {
      await ctx.addCookies(await context.cookies(daemon.base));
      const p2 = await ctx.newPage();
      p2.on('pageerror', (e) => pageErrors.push(`${e}\n${e.stack}`));
      await p2.goto(`${daemon.base}/#/history`);
      const rows = p2.locator('.history .pagerow', { hasText: 'repeat.example.com' });
      await rows.first().waitFor();
      assert.equal(await rows.count(), 1, 'five captures of one page in one tab are listed once');
      assert.match(await rows.innerText(), /5 captures/);
      assert.equal(Number(await rows.getAttribute('data-id')), caps[0].id, 'the visit opens its newest capture');
      const at = new Date(caps[0].captured_at);
      const local = at.toLocaleTimeString('en-GB', { timeZone: tz, hour: '2-digit', minute: '2-digit' });
      const utc = at.toLocaleTimeString('en-GB', { timeZone: 'UTC', hour: '2-digit', minute: '2-digit' });
      const shown = await rows.locator('time').innerText();
      assert.ok(shown.includes(local) && !shown.includes(utc), `local time ${local} (not UTC ${utc}) shown: "${shown}"`);
      await p2.screenshot({ path: join(SHOTS, 'history-visits.png') });
    } finally {
      await ctx.close();
    }
  });

  it('deletes a capture and a visit from the page view', async () => {
    const url = 'https://repeat.example.com/home';
    const caps = await storedCaptures(url, 5);
    await page.goto(`${daemon.base}/#/history/${caps[0].id}`);
    await page.locator('#page-delete-visit', { hasText: '5 captures' }).waitFor();
    await shot('page-delete');
    await page.click('#page-delete');
    await page.locator('.confirm', { hasText: 'this capture' }).waitFor();
    await page.click('.confirm .js-confirm-yes');
    await page.waitForURL(/#\/history$/);
    await storedCaptures(url, 4);
    assert.equal((await daemon.api(`/api/history/${caps[0].id}`)).status, 404);

    await page.goto(`${daemon.base}/#/history/${caps[1].id}`);
    await page.locator('#page-delete-visit', { hasText: '4 captures' }).click();
    await page.locator('.confirm', { hasText: 'all 4 captures' }).waitFor();
    await page.click('.confirm .js-confirm-no'); // Cancel deletes nothing
    await page.locator('.confirm').waitFor({ state: 'detached' });
    await storedCaptures(url, 4);
    await page.click('#page-delete-visit');
    await page.click('.confirm .js-confirm-yes');
    await page.waitForURL(/#\/history$/);
    await storedCaptures(url, 0);
    await page.locator('.history .pagerow').first().waitFor();
    assert.equal(await page.locator('.history .pagerow', { hasText: 'repeat.example.com' }).count(), 0);
  });

  it('deletes a site\'s history (after a confirmation) and everything before a day', async () => {
    peer.pushPage('https://gone.example.com/a', 9);
    peer.pushPage('https://gone.example.com/b', 9);
    peer.pushPage('https://gone.example.com.evil.example/', 9); // a prefix of the host, not the site
    await storedCaptures('gone.example.com/', 2);
    await page.goto(`${daemon.base}/#/history?site=gone.example.com`);
    await page.locator('.history .pagerow', { hasText: 'gone.example.com' }).first().waitFor();
    await page.click('#history-delete-site');
    await page.locator('.confirm', { hasText: 'gone.example.com' }).waitFor();
    assert.equal((await storedCaptures('gone.example.com/', 2)).length, 2, 'nothing deleted before the confirmation');
    await shot('history-delete-site');
    await page.click('.confirm .js-confirm-yes');
    await page.locator('.history [role=status]', { hasText: 'Deleted 2 pages' }).waitFor();
    await storedCaptures('gone.example.com/', 0);
    await storedCaptures('gone.example.com.evil.example', 1);

    // "Everything before" a day: local midnight of that day, sent as UTC. Today: the pages of today stay.
    const all = (await daemon.api('/api/history?group=none&limit=500')).body.pages;
    const today = new Date(); // the context's time zone is UTC
    const day = today.toISOString().slice(0, 10);
    const boundary = `${day}T00:00:00.000Z`;
    const older = all.filter((p) => p.captured_at < boundary).length;
    await page.fill('#history-before', day);
    await page.click('#history-delete-before');
    const req = page.waitForRequest((r) => r.method() === 'DELETE' && r.url().includes('before='));
    await page.click('.confirm .js-confirm-yes');
    const sent = new URL((await req).url()).searchParams.get('before');
    assert.equal(sent, boundary);
    await page.locator('.history [role=status]', { hasText: `Deleted ${older} page` }).waitFor();
    assert.equal((await daemon.api('/api/history?group=none&limit=500')).body.pages.length, all.length - older);
  });

  it('never runs script from page Markdown (history page view)', async () => {
    const { body } = await daemon.api('/api/history?q=Totally');
    const xss = body.pages.find((p) => p.url === 'https://evil.example.com/xss');
    assert.ok(xss, 'the hostile page is in the history');
    await page.goto(`${daemon.base}/#/history/${xss.id}`);
    const md = page.locator('.md');
    await md.locator('h1', { hasText: 'Totally normal page' }).waitFor();
    await page.waitForTimeout(800);
    await assertHarmless(md);
    await shot('page-xss', { fullPage: true });
    // The raw view shows the payload verbatim, as text.
    await page.click('#tab-raw');
    assert.ok((await page.locator('#page-raw').innerText()).includes("<script>window.__pwned='script'"));
    assert.equal(await page.evaluate(() => document.title.includes('Innocent page')), true);
    await page.waitForTimeout(300);
    assert.equal(await page.evaluate(() => window.__pwned), undefined);
  });

  it('runs a tool from the console with a form generated from its schema', async () => {
    const openUrl = await toolNamed('open_url');
    await page.goto(`${daemon.base}/#/console`);
    await page.locator(`.tool-btn[data-tool="${openUrl}"]`).click();
    await page.waitForURL(new RegExp(`#/console/${openUrl}$`));
    const form = page.locator('form.run-form');
    await form.locator('[data-param="url"] input').fill('https://news.example.net/');
    const before = peer.received.length;
    // Required fields are checked before anything is sent.
    await form.locator('[data-param="url"] input').fill('');
    await form.locator('button[type=submit]').click();
    await form.locator('[data-param="url"] .field-error').waitFor();
    assert.equal(peer.received.length, before);
    await form.locator('[data-param="url"] input').fill('https://news.example.net/');
    await form.locator('button[type=submit]').click();
    const result = page.locator('.tool-result .result');
    await result.locator('.badge-ok').waitFor();
    assert.match(await result.innerText(), /HTTP 200/);
    await result.locator('.md h1', { hasText: 'Headlines' }).waitFor();
    const sent = peer.received[peer.received.length - 1];
    assert.equal(sent.url, 'https://news.example.net/');
    assert.equal(sent.command, 'open_url');
    await shot('console', { fullPage: true });

    // A screenshot tool: the PNG is shown.
    const screenshot = await toolNamed('screenshot');
    await page.locator(`.tool-btn[data-tool="${screenshot}"]`).click();
    await page.locator('form.run-form button[type=submit]').click();
    const img = page.locator('.tool-result .shot img');
    await img.waitFor();
    assert.equal(await img.evaluate((el) => el.complete && el.naturalWidth), 160);
    await shot('console-screenshot', { fullPage: true });

    // The hostile page, arriving as a tool result, is just as inert.
    await page.locator(`.tool-btn[data-tool="${openUrl}"]`).click();
    await page.locator('form.run-form [data-param="url"] input').fill('https://evil.example.com/xss');
    await page.locator('form.run-form button[type=submit]').click();
    const md = page.locator('.tool-result .md');
    await md.locator('h1', { hasText: 'Totally normal page' }).waitFor();
    await page.waitForTimeout(800);
    await assertHarmless(md);
  });

  it('shows pairing help: masked token, WebSocket address, extension ID, connections', async () => {
    await page.goto(`${daemon.base}/#/pairing`);
    const token = page.locator('#pair-token');
    await token.waitFor();
    assert.ok(!(await token.innerText()).includes(daemon.token), 'token masked');
    assert.ok(!(await page.content()).includes(daemon.token), 'token not in the DOM until revealed');
    assert.equal(await page.locator('#pair-ws').innerText(), daemon.wsUrl);
    assert.equal(await page.locator('#pair-ext').innerText(), 'lpjafomjfpchgbopnmlebcocfkelgpgo');
    await page.locator('.pairing .browser', { hasText: 'Scripted' }).locator('.badge-ok').waitFor();
    await shot('pairing', { fullPage: true });
    await page.getByRole('button', { name: 'Reveal' }).click();
    assert.equal(await token.innerText(), daemon.token);
    await page.getByRole('button', { name: 'Hide' }).click();
    assert.ok(!(await token.innerText()).includes(daemon.token));
  });

  it('names the extension folder the daemon uses in the pairing view', async () => {
    const { body: status } = await daemon.api('/api/status');
    assert.equal(typeof status.extension_dir, 'string', `GET /api/status names extension_dir: ${JSON.stringify(status)}`);
    assert.match(status.extension_dir, /^\/.*\/extension$/, 'the compiled-in default: the installed extension');
    await page.goto(`${daemon.base}/#/pairing`);
    const dir = page.locator('#pair-extdir');
    await dir.waitFor({ timeout: 5000 });
    assert.equal(await dir.innerText(), status.extension_dir);
    const steps = await page.locator('.pairing .steps').innerText();
    assert.ok(steps.includes(status.extension_dir), `the install step names it: ${steps}`);
    assert.doesNotMatch(await page.locator('.pairing').innerText(), /extension\/dist/);
  });

  it('uses the extension\'s toolbar icon as the favicon', async () => {
    const extDir = buildExtension();
    const manifest = JSON.parse(readFileSync(join(extDir, 'manifest.json'), 'utf8'));
    const icons = await page.locator('link[rel="icon"]').evaluateAll((ls) => ls.map((l) => ({ href: l.href, sizes: l.getAttribute('sizes') })));
    assert.ok(icons.length > 0, 'a favicon link');
    for (const icon of icons) {
      assert.match(icon.href, new RegExp(`^${daemon.base}/`), `served by the daemon, not inline: ${icon.href}`);
      const size = /^(\d+)x\1$/.exec(icon.sizes || '')?.[1];
      assert.ok(size && manifest.icons[size], `the size ${icon.sizes} is one of the extension's icons`);
      const res = await fetch(icon.href); // no session: the login screen shows it too
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('content-type'), 'image/png');
      const served = Buffer.from(await res.arrayBuffer());
      assert.ok(served.equals(readFileSync(join(extDir, manifest.icons[size]))), `favicon ${size} px is the extension's icon`);
    }
    assert.ok(icons.some((i) => i.sizes === '16x16' && manifest.action.default_icon['16']), 'the toolbar size is there');
  });

  it('tells a narrow window to choose a tool above in the console', async () => {
    await page.setViewportSize(NARROW);
    try {
      await page.goto(`${daemon.base}/#/console`);
      const empty = page.locator('.console .empty');
      await empty.waitFor();
      const text = await empty.innerText();
      assert.match(text, /Choose a tool above/, `narrow: ${text}`);
      assert.doesNotMatch(text, /on the left/);
      await shot('console-narrow-empty');
      await page.setViewportSize(LAPTOP);
      assert.match(await empty.innerText(), /Choose a tool on the left/);
    } finally {
      await page.setViewportSize(LAPTOP);
    }
  });

  it('fits a narrow window', async () => {
    await page.setViewportSize(NARROW);
    await page.goto(`${daemon.base}/#/live`);
    await page.locator('.call').first().waitFor();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `no horizontal scrolling (overflow ${overflow}px)`);
    await shot('live-narrow', { fullPage: true });
    await page.locator('.call-filters').scrollIntoViewIfNeeded();
    await shot('live-narrow-filters');
    const { body } = await daemon.api('/api/history?q=Widgets');
    await page.goto(`${daemon.base}/#/history/${body.pages[0].id}`);
    await page.locator('.md h1').waitFor();
    const overflow2 = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow2 <= 0, `page view: no horizontal scrolling (overflow ${overflow2}px)`);
    await shot('page-narrow', { fullPage: true });
    await page.goto(`${daemon.base}/#/console`);
    await page.locator('.tool-select').selectOption(await toolNamed('open_url'));
    await page.locator('form.run-form').waitFor();
    await shot('console-narrow', { fullPage: true });
    await page.setViewportSize(LAPTOP);
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.goto(`${daemon.base}/#/live`);
    await page.locator('.call').first().waitFor();
    await shot('live-dark');
    await page.emulateMedia({ colorScheme: 'light' });
  });

  it('follows a browser disconnecting', async () => {
    await page.goto(`${daemon.base}/#/live`);
    await page.locator('.browser', { hasText: 'Scripted' }).locator('.badge-ok').waitFor();
    peer.close();
    await page.locator('.browser.browser-off', { hasText: 'Scripted' }).waitFor();
    await page.locator('.conn', { hasText: '0 browsers connected' }).waitFor();
    // A call now fails at once (503) and the console says what to do.
    const getPage = await toolNamed('get_page');
    await page.goto(`${daemon.base}/#/console/${getPage}`);
    await page.locator('form.run-form button[type=submit]').click();
    const result = page.locator('.tool-result .result');
    await result.locator('.badge-err').waitFor();
    assert.match(await result.innerText(), /HTTP 503/);
    assert.match(await result.innerText(), /Pairing/);
    await shot('console-error');
  });

  it('shows the daemon\'s real address on the login card', async () => {
    const anon = await browser.newContext({ viewport: LAPTOP, colorScheme: 'light' });
    try {
      const p2 = await anon.newPage();
      await p2.goto(`${daemon.base}/`);
      const card = p2.locator('.login');
      await card.locator('h1', { hasText: 'Not logged in' }).waitFor();
      const text = await card.innerText();
      assert.notEqual(daemon.httpPort, 8765);
      assert.ok(text.includes(`127.0.0.1:${daemon.httpPort}`), `the card names port ${daemon.httpPort}: ${text}`);
      assert.doesNotMatch(text, /:8765\b/);
    } finally {
      await anon.close();
    }
  });

  it('shows the login screen without a session, and after logging out', async () => {
    const anon = await browser.newContext({ viewport: LAPTOP, colorScheme: 'light' });
    const p2 = await anon.newPage();
    await p2.goto(`${daemon.base}/`);
    await p2.locator('h1', { hasText: 'Not logged in' }).waitFor();
    assert.match(await p2.locator('.login').innerText(), /browser-bridge serve/);
    assert.match(await p2.locator('.login').innerText(), /browser-bridge login-url/);
    assert.match(await p2.locator('.login').innerText(), /browser-bridge token/);
    await p2.screenshot({ path: join(SHOTS, 'login.png') });
    // The pasted token goes in a POSTed form body: it never appears in a URL (history, session files).
    const urls = [];
    p2.on('request', (rq) => urls.push(rq.url()));
    await p2.locator('#login-token').fill(daemon.token);
    await p2.getByRole('button', { name: 'Log in' }).click();
    await p2.waitForURL(`${daemon.base}/#/live`);
    assert.ok(!urls.some((u) => u.includes(daemon.token)), `the token went into a URL: ${urls.join(' ')}`);
    // A login link works once.
    const again = await p2.goto(daemon.loginUrl);
    assert.equal(again.status(), 401, 'the login link was already used');
    await anon.close();

    await page.getByRole('button', { name: 'Log out' }).click();
    await page.locator('h1', { hasText: 'Not logged in' }).waitFor();
    const r = await page.evaluate(() => fetch('/api/status', { credentials: 'same-origin' }).then((x) => x.status));
    assert.equal(r, 401, 'the session is gone');
  });

  it('saw no dialogs, page errors, CSP violations or canary hits', () => {
    assert.deepEqual(dialogs, []);
    assert.deepEqual(pageErrors, []);
    assert.deepEqual(cspViolations, []);
    assert.deepEqual(canary.hits, []);
  });

  async function assertHarmless(md) {
    assert.equal(await page.evaluate(() => window.__pwned), undefined, 'no payload ran');
    assert.deepEqual(dialogs, [], 'no dialog opened');
    assert.deepEqual(canary.hits, [], 'no request reached the canary');
    for (const sel of ['script', 'iframe', 'svg', 'form', 'style', 'button', 'details', 'img:not([src^="data:"])', '[onerror]', '[onclick]', '[onload]', '[ontoggle]', '[style]']) {
      assert.equal(await md.locator(sel).count(), 0, `no ${sel} in the rendered page`);
    }
    const hrefs = await md.locator('a').evaluateAll((as) => as.map((a) => ({ href: a.getAttribute('href'), target: a.target, rel: a.rel })));
    for (const a of hrefs) {
      if (a.href === null) continue;
      assert.match(a.href, /^(https?:|mailto:)/, `safe link ${a.href}`);
      assert.equal(a.target, '_blank');
      assert.match(a.rel, /noopener/);
      assert.match(a.rel, /noreferrer/);
    }
    assert.ok(hrefs.some((a) => a.href === 'https://evil.example.com/api/status'), 'relative link resolved against the page, not the dashboard');
    // Raw HTML in the Markdown is shown as text.
    assert.ok((await md.innerText()).includes("<script>window.__pwned='script'"), 'script tag shown as text');
  }
});
