// The per-call page time limit (extension/src/background/content-bridge.js, PAGE_CALL_MS): a
// click whose handler keeps the page busy longer than the limit comes back as an error naming
// the limit (not the daemon's 504 after timeout_ms), and meanwhile a call on another tab (in its
// own queue, in another renderer) is served. Real Chromium, real extension, the real daemon.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { setup, resultData } from './support/harness.mjs';

let env;
before(async () => { env = await setup(); });
after(async () => { await env?.close(); });

const ok = (r) => assert.equal(r.status, 'success', `expected success, got ${r.http} ${JSON.stringify(r.result || r.message)}`);

test('a page busier than the per-call limit fails the call with the limit named; another tab is served meanwhile', { timeout: 120_000 }, async () => {
  // Another site (localhost, not 127.0.0.1): its own renderer process, its own queue.
  let r = await env.call('browser_open_url', { url: env.url('/page2.html').replace('127.0.0.1', 'localhost'), new_tab: true, timeout_ms: 20_000 });
  ok(r);
  const other = resultData(r).tabId;
  r = await env.call('browser_open_url', { url: env.url('/busy.html?ms=9000'), new_tab: true, timeout_ms: 20_000 });
  ok(r);
  const busy = resultData(r).tabId;
  assert.notEqual(busy, other);

  const order = [];
  const click = env.call('browser_click', { target: 'Run a long script', tab_id: busy, timeout_ms: 40_000 })
    .then((x) => { order.push('click'); return x; });
  const page = env.call('browser_get_page', { tab_id: other, timeout_ms: 40_000 })
    .then((x) => { order.push('get_page'); return x; });
  const [c, g] = await Promise.all([click, page]);

  assert.equal(c.http, 200, `the daemon answered ${c.http}, not the extension: ${JSON.stringify(c)}`);
  assert.equal(c.status, 'error', JSON.stringify(c));
  assert.match(c.result.error, /the page did not answer within \d+ ms/);
  ok(g);
  assert.equal(g.page.tab_id, other);
  assert.match(g.page.markdown, /# Page two/);
  assert.deepEqual(order, ['get_page', 'click'], 'the other tab waited for the busy one');

  // Once the script is done, the busy page answers again.
  r = await env.call('browser_wait_for', { text: 'busy for 9000 ms', tab_id: busy, wait_ms: 15_000, timeout_ms: 30_000 });
  ok(r);
});
