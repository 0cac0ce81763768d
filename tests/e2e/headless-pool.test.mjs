// `serve --headless 2` with real Chromium (issue 18): two managed browsers, each with its own
// profile; two agent sessions land on different instances, so a cookie one of them gets is not
// seen by the other, and each keeps its own.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import path from 'node:path';
import { startDaemon, realDaemonAvailable, buildExtension, ROOT, CHROMIUM } from './support/harness.mjs';

const cleanups = [];
after(async () => { for (const c of cleanups.reverse()) await c().catch(() => {}); });

// A site that sets a cookie (/set?v=...) and shows the one it gets back (/show).
function cookieSite() {
  const srv = http.createServer((req, res) => {
    const u = new URL(req.url, 'http://x');
    const page = (h, extra = {}) => { res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', ...extra }); res.end(`<!doctype html><title>${h}</title><h1>${h}</h1>`); };
    if (u.pathname === '/set') return page(`set ${u.searchParams.get('v')}`, { 'set-cookie': `who=${u.searchParams.get('v')}; Path=/` });
    if (u.pathname === '/show') return page(`cookie ${req.headers.cookie || 'none'}`);
    res.writeHead(404); res.end();
  });
  return new Promise((resolve) => srv.listen(0, '127.0.0.1', () => resolve({ base: `http://127.0.0.1:${srv.address().port}`, close: () => new Promise((r) => srv.close(r)) })));
}

test('serve --headless 2: two sessions get different instances with separate cookies', { timeout: 120_000, skip: !realDaemonAvailable() && 'the daemon is not built' }, async () => {
  buildExtension();
  const site = await cookieSite(); cleanups.push(() => site.close());
  const daemon = await startDaemon({ kind: 'real', extraArgs: ['--headless', '2', '--chromium', CHROMIUM, '--extension', path.join(ROOT, 'extension/dist')] });
  cleanups.push(() => daemon.close());
  const t0 = Date.now();
  let s;
  while (Date.now() - t0 < 60_000) {
    s = await daemon.status();
    if (s.headless?.length === 2 && s.headless.every((h) => h.connected)) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  assert.equal(s.headless?.length, 2, JSON.stringify(s));
  assert.ok(s.headless.every((h) => h.connected), JSON.stringify(s.headless));
  for (const h of s.headless) assert.ok(s.browsers.some((b) => b.client_id === h.client_id && b.browser === 'Chromium'));

  const call = async (session, tool, params) => {
    const res = await fetch(`${daemon.httpUrl}/api/tools/${tool}`, {
      method: 'POST', body: JSON.stringify(params),
      headers: { 'content-type': 'application/json', authorization: `Bearer ${daemon.token}`, 'X-Browser-Bridge-Session': session },
    });
    const body = await res.json();
    assert.equal(body.status, 'success', JSON.stringify(body));
    return body;
  };
  const a = await call('agent-a', 'browser_open_url', { url: `${site.base}/set?v=alpha` });
  const b = await call('agent-b', 'browser_open_url', { url: `${site.base}/show` });
  assert.notEqual(a.client_id, b.client_id, 'two sessions, two instances');
  assert.match(b.page.markdown, /cookie none/, "agent-b does not see agent-a's cookie");
  await call('agent-b', 'browser_open_url', { url: `${site.base}/set?v=beta` });
  const a2 = await call('agent-a', 'browser_open_url', { url: `${site.base}/show` });
  const b2 = await call('agent-b', 'browser_open_url', { url: `${site.base}/show` });
  assert.equal(a2.client_id, a.client_id);
  assert.equal(b2.client_id, b.client_id);
  assert.match(a2.page.markdown, /cookie who=alpha/);
  assert.match(b2.page.markdown, /cookie who=beta/);
});
