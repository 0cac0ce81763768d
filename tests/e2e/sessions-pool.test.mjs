// Concurrent MCP sessions (official SDK client) on the headless pool (issue 18): `serve --headless 2`
// with real Chromiums; three agents at once. The first two land on different instances; the third
// shares an instance with one of them, and there it still has a tab of its own -- no session ever
// reads another's page, and a call on another session's tab is refused naming the owner.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startDaemon, startFixtures, realDaemonAvailable, buildExtension, ROOT, CHROMIUM } from './support/harness.mjs';

const skip = (process.env.BB_DAEMON === 'mock' || !realDaemonAvailable()) && 'needs the real daemon';
const cleanups = [];
after(async () => { for (const c of cleanups.reverse()) await c().catch(() => {}); });

async function until(what, fn, timeout = 60_000) {
  const end = Date.now() + timeout;
  let last;
  for (;;) {
    try { const v = await fn(); if (v) return v; } catch (e) { last = e; }
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}${last ? ': ' + last.message : ''}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function agent(daemon, name) {
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${daemon.httpUrl}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${daemon.token}` } },
  }));
  cleanups.push(() => client.close());
  const call = async (tool, args = {}) => {
    const r = await client.callTool({ name: tool, arguments: { snapshot: 'full', ...args } });
    return { isError: !!r.isError, text: r.content.map((c) => c.text ?? '').join('\n'), body: r.structuredContent };
  };
  return { name, call };
}

test('serve --headless 2: three concurrent MCP sessions, own instance or own tab, no cross-talk', { skip, timeout: 180_000 }, async () => {
  buildExtension();
  const fixtures = await startFixtures(); cleanups.push(() => fixtures.close());
  const daemon = await startDaemon({ kind: 'real', extraArgs: ['--headless', '2', '--chromium', CHROMIUM, '--extension', path.join(ROOT, 'extension/dist')] });
  cleanups.push(() => daemon.close());
  const s = await until('both instances connected with their tabs', async () => {
    const st = await daemon.status();
    return st.headless?.length === 2 && st.headless.every((h) => h.connected) &&
      st.headless.every((h) => st.browsers.find((b) => b.client_id === h.client_id)?.tabs?.length > 0) && st;
  });
  const pool = s.headless.map((h) => h.client_id);

  const pages = { 'agent-a': '/page2.html', 'agent-b': '/login.html', 'agent-c': '/nav.html' };
  const titles = { 'agent-a': 'Page two', 'agent-b': 'Sign in', 'agent-c': 'Navigation start' };
  const a = await agent(daemon, 'agent-a');
  const b = await agent(daemon, 'agent-b');
  // The first two open their pages at once: two instances.
  const [ra, rb] = await Promise.all([a.call('browser_open_url', { url: fixtures.base + pages['agent-a'] }), b.call('browser_open_url', { url: fixtures.base + pages['agent-b'] })]);
  assert.equal(ra.isError, false, ra.text);
  assert.equal(rb.isError, false, rb.text);
  assert.ok(pool.includes(ra.body.client_id) && pool.includes(rb.body.client_id), `${ra.body.client_id} ${rb.body.client_id}`);
  assert.notEqual(ra.body.client_id, rb.body.client_id, 'two sessions, two instances');
  // The third shares an instance with one of them, but not its tab.
  const c = await agent(daemon, 'agent-c');
  const rc = await c.call('browser_open_url', { url: fixtures.base + pages['agent-c'] });
  assert.equal(rc.isError, false, rc.text);
  const agents = [a, b, c];
  const where = Object.fromEntries([ra, rb, rc].map((r, i) => [agents[i].name, { client: r.body.client_id, tab: r.body.page.tab_id }]));
  const mate = Object.keys(where).find((n) => n !== 'agent-c' && where[n].client === where['agent-c'].client);
  assert.ok(mate, `agent-c is on an instance of the pool: ${JSON.stringify(where)}`);
  assert.notEqual(where['agent-c'].tab, where[mate].tab, `agent-c and ${mate} share ${where[mate].client} but not a tab`);

  // Un-targeted reads, all at once, twice: each sees its own page, on its own instance and tab.
  for (let round = 0; round < 2; round++) {
    const got = await Promise.all(agents.map((x) => x.call('browser_get_page')));
    for (const [i, r] of got.entries()) {
      const n = agents[i].name;
      assert.equal(r.isError, false, `${n}: ${r.text}`);
      assert.equal(r.body.page.title, titles[n], `${n} saw ${r.body.page.title}`);
      assert.equal(r.body.client_id, where[n].client, `${n} moved to another instance`);
      assert.equal(r.body.page.tab_id, where[n].tab, `${n} read another tab`);
    }
  }
  // The tab of the session it shares an instance with: refused, naming the owner.
  const stolen = await c.call('browser_get_page', { tab_id: where[mate].tab });
  assert.equal(stolen.isError, true, stolen.text);
  assert.match(stolen.text, new RegExp(`belongs to the session "${mate}"`));
});
