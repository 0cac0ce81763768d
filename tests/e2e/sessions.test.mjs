// Several agents, one browser (issue 18): two and three concurrent MCP sessions (the official SDK
// client over Streamable HTTP) on one real Chromium with the real extension. Each session gets its own
// tab (the first adopts the active tab, the others get new ones), sees only its own page under
// concurrency, is refused another session's tab with the owner named, and has its tabs in a Chrome
// tab group titled with its name (read through the extension's own chrome.tabGroups). The popup lists
// the sessions; its Stop revokes one (later calls fail; its tab stays open, ungrouped). With
// --approve-sessions the first call waits for Approve in the popup, or fails on Decline. An idle
// session expires (the test-only BB_TEST_SESSION_TTL_MS) and its tab group goes.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startDaemon, launchBrowser, startFixtures, realDaemonAvailable, EXTENSION_ID } from './support/harness.mjs';

const skip = (process.env.BB_DAEMON === 'mock' || !realDaemonAvailable()) && 'needs the real daemon';
const cleanups = [];
after(async () => { for (const c of cleanups.reverse()) await c().catch(() => {}); });

async function until(what, fn, timeout = 15_000) {
  const end = Date.now() + timeout;
  let last;
  for (;;) {
    try { const v = await fn(); if (v) return v; } catch (e) { last = e; }
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}${last ? ': ' + last.message : ''}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function env({ args = [], envVars = {} } = {}) {
  const fixtures = await startFixtures(); cleanups.push(() => fixtures.close());
  const saved = {};
  for (const [k, v] of Object.entries(envVars)) { saved[k] = process.env[k]; process.env[k] = v; }
  let daemon;
  try { daemon = await startDaemon({ extraArgs: args }); } finally {
    for (const k of Object.keys(envVars)) { if (saved[k] === undefined) delete process.env[k]; else process.env[k] = saved[k]; }
  }
  cleanups.push(() => daemon.close());
  const browser = await launchBrowser({ daemon }); cleanups.push(() => browser.close());
  await daemon.waitForBrowser(browser.clientId);
  // The daemon knows the browser's tabs (and so its active tab) once the extension reported them.
  await until('the tab list', async () => (await daemon.status()).browsers[0]?.tabs.length > 0);
  return { fixtures, daemon, browser, sw: browser.serviceWorker };
}

async function agent(daemon, name) {
  const client = new Client({ name, version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${daemon.httpUrl}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${daemon.token}` } },
  });
  await client.connect(transport);
  cleanups.push(() => client.close());
  const call = async (tool, args = {}) => {
    const r = await client.callTool({ name: tool, arguments: args });
    return { isError: !!r.isError, text: r.content.map((c) => c.text ?? '').join('\n'), body: r.structuredContent };
  };
  return { client, name, call };
}

const groups = (sw) => sw.evaluate(async () => {
  const gs = await chrome.tabGroups.query({});
  return Promise.all(gs.map(async (g) => ({ title: g.title, tabs: (await chrome.tabs.query({ groupId: g.id })).map((t) => t.id) })));
});
const tabGroupOf = (sw, id) => sw.evaluate(async (tid) => (await chrome.tabs.get(tid)).groupId, id);

async function sessionsOf(daemon) {
  const r = await fetch(`${daemon.httpUrl}/api/sessions`, { headers: { Authorization: `Bearer ${daemon.token}` } });
  return (await r.json()).sessions;
}

async function popup(browser) {
  const page = await browser.context.newPage();
  await page.goto(`chrome-extension://${EXTENSION_ID}/popup.html`);
  return page;
}

test('three concurrent MCP sessions: own tabs, no cross-talk, ownership errors, tab groups, Stop in the popup', { skip, timeout: 120_000 }, async () => {
  const { fixtures, daemon, browser, sw } = await env();
  const agents = await Promise.all(['agent-a', 'agent-b', 'agent-c'].map((n) => agent(daemon, n)));
  const pages = { 'agent-a': '/page2.html', 'agent-b': '/login.html', 'agent-c': '/nav.html' };
  const titles = { 'agent-a': 'Page two', 'agent-b': 'Sign in', 'agent-c': 'Navigation start' };

  // All three open their page at once.
  const opened = await Promise.all(agents.map((a) => a.call('browser_open_url', { url: fixtures.base + pages[a.name] })));
  for (const [i, r] of opened.entries()) {
    assert.equal(r.isError, false, `${agents[i].name}: ${r.text}`);
    assert.equal(r.body.page.title, titles[agents[i].name], `${agents[i].name} opened ${r.body.page.title}`);
  }
  const tabOf = Object.fromEntries(agents.map((a, i) => [a.name, opened[i].body.page.tab_id]));
  assert.equal(new Set(Object.values(tabOf)).size, 3, `three distinct tabs: ${JSON.stringify(tabOf)}`);

  // Two rounds of un-targeted get_page in parallel: each sees its own page.
  for (let round = 0; round < 2; round++) {
    const got = await Promise.all(agents.map((a) => a.call('browser_get_page')));
    for (const [i, r] of got.entries()) {
      const a = agents[i];
      assert.equal(r.isError, false, r.text);
      assert.equal(r.body.page.tab_id, tabOf[a.name], `${a.name} read another tab`);
      assert.equal(r.body.page.title, titles[a.name], `${a.name} saw ${r.body.page.title}`);
      assert.ok(r.body.page.url.endsWith(pages[a.name]));
    }
  }
  // Two sessions navigating and reading at once, interleaved.
  const [nav, read] = await Promise.all([
    agents[0].call('browser_open_url', { url: fixtures.base + '/noise.html' }),
    agents[1].call('browser_get_page'),
  ]);
  assert.equal(nav.body.page.title, 'Noise');
  assert.equal(nav.body.page.tab_id, tabOf['agent-a']);
  assert.equal(read.body.page.title, 'Sign in');

  // Another session's tab: refused, naming the owner.
  const stolen = await agents[0].call('browser_get_page', { tab_id: tabOf['agent-b'] });
  assert.equal(stolen.isError, true);
  assert.match(stolen.text, /belongs to the session "agent-b"/);

  // The tab groups, as the extension sees them.
  const gs = await groups(sw);
  assert.deepEqual(gs.map((g) => g.title).sort(), ['agent-a', 'agent-b', 'agent-c']);
  for (const g of gs) assert.deepEqual(g.tabs, [tabOf[g.title]]);

  // The popup lists the three; Stop on agent-b revokes it.
  const pop = await popup(browser);
  await pop.waitForFunction(() => document.querySelectorAll('#sessions li').length === 3);
  const listed = await pop.$$eval('#sessions li .name', (els) => els.map((e) => e.textContent).sort());
  assert.deepEqual(listed, ['agent-a', 'agent-b', 'agent-c']);
  const idB = (await sessionsOf(daemon)).find((s) => s.name === 'agent-b').id;
  await pop.click(`#sessions li[data-session="${idB}"] button[data-action="revoke"]`);
  await pop.waitForFunction(() => document.querySelectorAll('#sessions li').length === 2);
  const after = await agents[1].call('browser_get_page');
  assert.equal(after.isError, true);
  assert.match(after.text, /the user stopped this session \("agent-b"/);
  // Its tab stays open, ungrouped; the others keep working in theirs.
  await until('agent-b\'s tab ungrouped', async () => (await tabGroupOf(sw, tabOf['agent-b'])) === -1);
  assert.deepEqual((await groups(sw)).map((g) => g.title).sort(), ['agent-a', 'agent-c']);
  const still = await agents[2].call('browser_get_page');
  assert.equal(still.body.page.title, 'Navigation start');
  // The freed tab may be taken by another session now.
  const taken = await agents[0].call('browser_get_page', { tab_id: tabOf['agent-b'] });
  assert.equal(taken.isError, false, taken.text);
  assert.equal(taken.body.page.title, 'Sign in');
});

test('approve_sessions: Approve in the popup lets the first call through; Decline fails it', { skip, timeout: 90_000 }, async () => {
  const { fixtures, daemon, browser } = await env({ args: ['--approve-sessions'] });
  const yes = await agent(daemon, 'agent-yes');
  const no = await agent(daemon, 'agent-no');
  const pop = await popup(browser);
  const first = yes.call('browser_open_url', { url: fixtures.base + '/page2.html' });
  const refused = no.call('browser_open_url', { url: fixtures.base + '/login.html' });
  await pop.waitForFunction(() => [...document.querySelectorAll('#sessions li')].filter((li) => li.querySelector('button[data-action="approve"]')).length === 2);
  const ids = Object.fromEntries((await sessionsOf(daemon)).map((s) => [s.name, s.id]));
  assert.equal((await sessionsOf(daemon)).every((s) => s.state === 'pending'), true);
  await pop.click(`#sessions li[data-session="${ids['agent-yes']}"] button[data-action="approve"]`);
  const r = await first;
  assert.equal(r.isError, false, r.text);
  assert.equal(r.body.page.title, 'Page two');
  await pop.click(`#sessions li[data-session="${ids['agent-no']}"] button[data-action="decline"]`);
  const n = await refused;
  assert.equal(n.isError, true);
  assert.match(n.text, /declined this session \("agent-no"\)/);
  await pop.waitForFunction(() => document.querySelectorAll('#sessions li').length === 1);
});

test('an idle session expires: its tab group goes, its tab stays', { skip, timeout: 90_000 }, async () => {
  const { fixtures, daemon, sw } = await env({ envVars: { BB_TEST_SESSION_TTL_MS: '1500' } });
  const a = await agent(daemon, 'agent-idle');
  const r = await a.call('browser_open_url', { url: fixtures.base + '/page2.html' });
  assert.equal(r.isError, false, r.text);
  const tab = r.body.page.tab_id;
  assert.deepEqual((await groups(sw)).map((g) => g.title), ['agent-idle']);
  await until('the session to expire', async () => (await sessionsOf(daemon)).length === 0);
  await until('the group to go', async () => (await groups(sw)).length === 0);
  assert.equal(await tabGroupOf(sw, tab), -1); // still open, ungrouped
  // The same MCP session goes on as a new agent session.
  const again = await a.call('browser_get_page');
  assert.equal(again.isError, false, again.text);
  assert.equal((await sessionsOf(daemon))[0].name, 'agent-idle');
});
