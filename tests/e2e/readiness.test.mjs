// End-to-end: a page that loads reports itself ready (extension/src/background/ready.js): the
// service worker makes no call into it to learn that it is ready; and wherever that report cannot
// come or is not the end (a client-side redirect, a page that leaves before its load, a response
// that replaces no page, a page the page scripts do not run in) the answer is still the page the
// tab shows in the end. Real Chromium + the real extension + the daemon, through the HTTP tool
// API; fixtures tests/fixtures/pages/rdy-*.html.
//   node --test tests/e2e/readiness.test.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { setup } from './support/harness.mjs';

let env;
before(async () => { env = await setup(); });
after(async () => { await env?.close(); });

const ok = (r) => assert.equal(r.status, 'success', `expected success, got ${r.http} ${JSON.stringify(r.result || r.message)}`);
const settleOf = (r) => r.result?.settle || r.result?.result?.settle;
const tabOf = (r) => r.page?.tab_id ?? r.result?.tabId ?? r.result?.result?.tabId;

// Count, in the service worker, the calls into pages that ask them to settle (the way readiness
// was learnt before pages reported it themselves). Returns a function giving the count since.
async function countSettleCalls() {
  const sw = env.browser.serviceWorker;
  await sw.evaluate(() => {
    if (!globalThis.__settleCalls) {
      const real = chrome.scripting.executeScript.bind(chrome.scripting);
      globalThis.__settleCalls = 0;
      chrome.scripting.executeScript = (inj, ...rest) => {
        if (typeof inj?.func === 'function' && /__bbPage\.settle\(/.test(String(inj.func))) globalThis.__settleCalls++;
        return real(inj, ...rest);
      };
    }
    globalThis.__settleCalls = 0;
  });
  return () => sw.evaluate(() => globalThis.__settleCalls);
}

test('open_url: the page says itself when it is ready; the service worker asks it nothing', async () => {
  let r = await env.call('browser_open_url', { url: env.url('/nav.html') });
  ok(r);
  const calls = await countSettleCalls();
  r = await env.call('browser_open_url', { url: env.url('/page2.html') });
  ok(r);
  assert.match(r.page.markdown, /You made it to the second page/);
  assert.equal(settleOf(r)?.reason, 'quiet', JSON.stringify(r.result));
  assert.equal(await calls(), 0, 'the service worker asked the page to settle');

  r = await env.call('browser_open_url', { url: env.url('/login.html'), new_tab: true });
  ok(r);
  assert.match(r.page.url, /login\.html$/);
  assert.equal(settleOf(r)?.reason, 'quiet', JSON.stringify(r.result));
  assert.equal(await calls(), 0, 'the service worker asked the new tab\'s page to settle');
  await env.call('browser_close_tab', { tab_id: tabOf(r) });
});

test('client-side redirects (one while parsed, one after its load) are followed to the last page', async () => {
  let r = await env.call('browser_open_url', { url: env.url('/rdy-redirect-a.html'), timeout_ms: 15000 });
  ok(r);
  assert.match(r.page.url, /rdy-redirect-c\.html$/, r.page.url);
  assert.match(r.page.markdown, /Two client-side redirects led here/);

  r = await env.call('browser_open_url', { url: env.url('/rdy-links.html') });
  ok(r);
  r = await env.call('browser_click', { target: 'Follow the redirects', timeout_ms: 15000 });
  ok(r);
  assert.match(r.page.url, /rdy-redirect-c\.html$/, r.page.url);
  assert.match(r.page.markdown, /Two client-side redirects led here/);

  r = await env.call('browser_open_url', { url: env.url('/rdy-redirect-a.html'), new_tab: true, timeout_ms: 15000 });
  ok(r);
  assert.match(r.page.url, /rdy-redirect-c\.html$/, r.page.url);
  assert.match(r.page.markdown, /Two client-side redirects led here/);
  await env.call('browser_close_tab', { tab_id: tabOf(r) });
});

test('a refresh the page asks for in its markup (meta refresh 0) is followed; one due only later is not waited for', async () => {
  let r = await env.call('browser_open_url', { url: env.url('/rdy-refresh.html'), timeout_ms: 15000 });
  ok(r);
  assert.match(r.page.url, /rdy-redirect-c\.html$/, r.page.url);
  assert.match(r.page.markdown, /Two client-side redirects led here/);

  r = await env.call('browser_open_url', { url: env.url('/rdy-links.html') });
  ok(r);
  r = await env.call('browser_click', { target: 'Open the moved page', timeout_ms: 15000 });
  ok(r);
  assert.match(r.page.url, /rdy-redirect-c\.html$/, r.page.url);

  // a refresh 30 s away: the page as it is, at once (not at the 3 s cap)
  r = await env.call('browser_open_url', { url: env.url('/rdy-refresh-later.html'), timeout_ms: 15000 });
  ok(r);
  assert.match(r.page.url, /rdy-refresh-later\.html$/, r.page.url);
  assert.match(r.page.markdown, /moves on in 30 seconds/);
  assert.notEqual(settleOf(r)?.reason, 'cap', JSON.stringify(settleOf(r)));
});

test('a page the server answered with an error status says so: open_url, a link followed; not a page that loaded well, nor a read', async () => {
  let r = await env.call('browser_open_url', { url: env.url('/rdy-no-such-page.html') });
  ok(r);
  assert.match(r.result.message, /; the server answered it with HTTP 404 \(Not Found\)$/, r.result.message);
  assert.equal(r.result.httpStatus, 404);
  assert.match(r.page.markdown, /not found/);

  r = await env.call('browser_open_url', { url: env.url('/obs/status?code=503') });
  ok(r);
  assert.match(r.result.message, /HTTP 503 \(Service Unavailable\)/, r.result.message);

  r = await env.call('browser_open_url', { url: env.url('/rdy-links.html') });
  ok(r);
  assert.doesNotMatch(r.result.message, /HTTP/, r.result.message);
  assert.equal(r.result.httpStatus, undefined);
  r = await env.call('browser_click', { target: 'A page that is gone', timeout_ms: 15000 });
  ok(r);
  assert.match(r.page.url, /rdy-gone\.html$/, r.page.url);
  assert.match(r.result.message, /^Clicked .*; the server answered it with HTTP 404 \(Not Found\)$/, r.result.message);
  r = await env.call('browser_get_page', {});
  ok(r);
  assert.doesNotMatch(r.result.message, /HTTP/, r.result.message);
  assert.ok(!('httpStatus' in (r.page || {})), 'the page stored carries no field of its own for it');
});

test('a click that moves a single-page site to another address, then imports and renders that page, is answered with the new page', async () => {
  let r = await env.call('browser_open_url', { url: env.url('/rdy-spa.html') });
  ok(r);
  r = await env.call('browser_click', { target: 'Quick Start' });
  ok(r);
  assert.match(r.page.url, /\/rdy-spa\/quickstart$/, r.page.url);
  assert.match(r.page.markdown, /# Quick Start/, r.page.markdown);
  assert.doesNotMatch(r.page.markdown, /# Installation/);
  assert.equal(r.page.title, 'Quick Start | Docs');
  // an anchor of the page is no new route: answered at once, not after the route's wait
  r = await env.call('browser_open_url', { url: env.url('/rdy-spa.html') });
  ok(r);
  r = await env.call('browser_click', { target: 'Options' });
  ok(r);
  assert.match(r.page.url, /rdy-spa\.html#options$/, r.page.url);
  assert.ok(settleOf(r).waited_ms < 1500, JSON.stringify(settleOf(r)));
});

test('a new route a single-page site has not rendered 2 s after the action is said in the answer, not passed for the page after it', async () => {
  let r = await env.call('browser_open_url', { url: env.url('/rdy-spa.html?late=3000') });
  ok(r);
  r = await env.call('browser_click', { target: 'Quick Start' });
  ok(r);
  assert.equal(settleOf(r)?.pending?.route, true, JSON.stringify(settleOf(r)));
  assert.match(r.result.message, /the page had not drawn the address it moved to/, r.result.message);
});

test('a page that leaves at DOMContentLoaded, while a script still holds its load: the page it went to', async () => {
  const r = await env.call('browser_open_url', { url: env.url('/rdy-leave-early.html'), timeout_ms: 15000 });
  ok(r);
  assert.match(r.page.url, /page2\.html\?via=early$/, r.page.url);
  assert.match(r.page.markdown, /You made it to the second page/);
});

test('a response that replaces no page (204): an error, with the page still shown', async () => {
  let r = await env.call('browser_open_url', { url: env.url('/rdy-links.html') });
  ok(r);
  r = await env.call('browser_open_url', { url: env.url('/obs/status?code=204'), timeout_ms: 15000 });
  assert.equal(r.status, 'error', JSON.stringify(r.result));
  assert.match(r.result.error, /^Did not open .*: the server sent no page to show .*; the tab still shows .*rdy-links\.html\.$/);
  assert.match(r.page.url, /rdy-links\.html$/, r.page.url);
  assert.match(r.page.markdown, /Readiness links/);
});

test('a page the page scripts do not run in (about:blank): the empty page, in this tab and a new one', async () => {
  let r = await env.call('browser_open_url', { url: 'about:blank', timeout_ms: 15000 });
  ok(r);
  assert.equal(r.page.url, 'about:blank');
  assert.equal(r.page.markdown, '');
  r = await env.call('browser_open_url', { url: 'about:blank', new_tab: true, timeout_ms: 15000 });
  ok(r);
  assert.equal(r.page.url, 'about:blank');
  await env.call('browser_close_tab', { tab_id: tabOf(r) });
});

// Readiness waits for the custom elements a page uses to be defined, while its scripts keep
// arriving; once none has for a second, the page is answered as it is, and the answer says which
// elements were still undefined (a user sees them raw) instead of passing for a page that is ready.
test('open_url: custom elements still undefined when the page was answered are named in the answer', async () => {
  let r = await env.call('browser_open_url', { url: env.url('/rdy-undefined.html') });
  ok(r);
  assert.match(r.page.markdown, /Hello from a defined element/);
  assert.equal(settleOf(r)?.reason, 'quiet', JSON.stringify(r.result));
  assert.deepEqual(settleOf(r)?.pending?.undefinedElements, ['x-never-defined'], JSON.stringify(r.result));
  r = await env.call('browser_open_url', { url: env.url('/nav.html') });
  ok(r);
  assert.equal(settleOf(r)?.pending, undefined, `a page with nothing undefined: ${JSON.stringify(r.result)}`);
});

// Dashed tag names used as plain containers (Angular's component hosts), on a page that defines no
// custom element and asks about none: nothing will define them, so they are neither waited for
// (each open of such a page waited 1 s for definitions) nor named as undefined. A name the page
// asked about (customElements.get: an autoloader) still is.
test('open_url: dashed tag names used as containers, or as the parts a defined component makes, are not awaited definitions', async () => {
  let r = await env.call('browser_open_url', { url: env.url('/rdy-containers.html') });
  ok(r);
  assert.match(r.page.markdown, /\[button "Open app-list" e\d+\]/);
  assert.match(r.page.markdown, /Registry methods native: yes/);
  assert.equal(settleOf(r)?.reason, 'quiet', JSON.stringify(r.result));
  assert.equal(settleOf(r)?.pending, undefined, JSON.stringify(r.result));
  r = await env.call('browser_open_url', { url: env.url('/rdy-containers.html?ask') });
  ok(r);
  assert.deepEqual(settleOf(r)?.pending?.undefinedElements, ['x-lazy-card'], JSON.stringify(r.result));
  // a page that defines custom elements after making 210 dashed names: its undefined one is awaited
  r = await env.call('browser_open_url', { url: env.url('/rdy-containers.html?many') });
  ok(r);
  assert.ok(settleOf(r)?.pending?.undefinedElements?.includes('x-never-defined'), JSON.stringify(r.result));
  // the parts a defined component makes in its light DOM are not awaited; a parser-made child is
  r = await env.call('browser_open_url', { url: env.url('/rdy-parts.html') });
  ok(r);
  assert.match(r.page.markdown, /Cell South/);
  assert.deepEqual(settleOf(r)?.pending?.undefinedElements, ['x-parser-child'], JSON.stringify(r.result));
});

// A page a script animates from its load, forever (a marquee, an SVG redrawn on every frame as
// lottie-web plays): its DOM is never quiet, and every open used to end at the 5 s cap. A node
// that changed at least every 50 ms for over a second is animated, like a CSS animation that
// long: the page is answered without waiting for it, and an action on it still settles on its
// own effect.
// rdy-heavy-anim.html: each frame takes 70 ms of script, so frames come that far apart.
test('open_url: a page a script animates forever is answered settled, not at the cap', async () => {
  for (const page of ['/rdy-ticker.html', '/rdy-ticker.html', '/rdy-heavy-anim.html', '/rdy-heavy-anim.html']) {
    const r = await env.call('browser_open_url', { url: env.url(page) });
    ok(r);
    assert.equal(settleOf(r)?.reason, 'quiet', JSON.stringify(r.result));
    assert.equal(settleOf(r)?.pending, undefined, JSON.stringify(r.result));
    assert.match(r.page.markdown, /Breaking: the market is open|The animation plays on/);
    const c = await env.call('browser_click', { target: 'Press me' });
    ok(c);
    assert.equal(settleOf(c)?.reason, 'quiet', JSON.stringify(c.result));
    assert.match(c.page.markdown, /Pressed: yes/);
  }
});

test('open_url: a part the page loads when it comes into view (an IntersectionObserver observed at load) is in the answer', async () => {
  for (let i = 0; i < 3; i++) {
    const r = await env.call('browser_open_url', { url: env.url('/rdy-lazy.html') });
    assert.equal(r.status, 'success', JSON.stringify(r.result));
    assert.match(r.page.markdown, /Lisbon opens a store/, `read before the part in view was loaded: ${JSON.stringify(r.result?.settle || r.result?.result?.settle)}\n${r.page.markdown}`);
  }
});

test('open_url and a click on a page that starts observing another element on every frame are answered settled, not at the cap', async () => {
  let r = await env.call('browser_open_url', { url: env.url('/rdy-observe-loop.html') });
  assert.equal(r.status, 'success', JSON.stringify(r.result));
  const s1 = r.result?.settle || r.result?.result?.settle;
  assert.equal(s1?.reason, 'quiet', `the open waited for the observing to end: ${JSON.stringify(s1)}`);
  r = await env.call('browser_click', { target: 'Gallery' });
  assert.equal(r.status, 'success', JSON.stringify(r.result));
  const s2 = r.result?.settle || r.result?.result?.settle;
  assert.equal(s2?.reason, 'quiet', `the click waited for the observing to end: ${JSON.stringify(s2)}`);
});
