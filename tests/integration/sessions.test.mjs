// Agent sessions (issue 18) against the real daemon with scripted browsers: a newly paired browser
// never becomes the default; HTTP sessions (X-Browser-Bridge-Session) own their tabs, get a new tab
// when the active one is taken, and are refused another session's tab with the owner named; the
// session_control message (the popup's Stop) revokes; approval through /api/sessions; expiry with the
// test-only BB_TEST_SESSION_TTL_MS; session events on /api/events; hostile session_control input.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { startDaemon, connectPeer, api, tool, waitFor, helloFor, welcomeOk } from './support/harness.mjs';

const daemons = [];
after(async () => { for (const d of daemons) await d.stop(); });
async function daemon(opts) { const d = await startDaemon(opts); daemons.push(d); return d; }

// A scripted browser that announces the "sessions" feature (as the extension does) and answers
// each command with the tab it was given, or tab `newTabId` when asked to open one.
async function sessionPeer(d, clientId, { tabs = [], newTabIds = [100, 101, 102, 103], answer } = {}) {
  const peer = await connectPeer(d, {
    clientId, hello: false,
    answer: answer ?? ((c, p) => {
      const tabId = c.tabId ?? (c.session?.newTab ? (p.opened[c.session.pageId] ??= newTabIds.shift()) : 1);
      p.result(c.requestId, 'success', { result: { tabId } });
      if (c.wait_for_page_info) p.page(c.requestId, `# ${c.command} on tab ${tabId}`, { tabId });
    }),
  });
  peer.opened = {};
  const data = helloFor(peer.challenge, d.token, { clientId, browser: 'Scripted', browserVersion: '1', extensionVersion: '1', capabilities: ['open_url', 'get_page', 'click'], features: ['sessions'] });
  peer.send('hello', data);
  const w = await peer.next('welcome');
  assert.ok(welcomeOk(w.data, d.token, peer.challenge, data.nonce));
  if (tabs.length) peer.send('tabs', { tabs });
  return peer;
}

const as = (name) => ({ headers: { 'X-Browser-Bridge-Session': name } });
const sessions = async (d) => (await api(d, '/api/sessions', { method: 'GET' })).body.sessions;

test('a newly paired browser never becomes the default; browser_list_browsers says which is', async () => {
  const d = await daemon();
  const first = await connectPeer(d, { clientId: 'first' });
  let r = await tool(d, 'browser_get_page');
  assert.equal(r.body.client_id, 'first');
  const second = await connectPeer(d, { clientId: 'second' });
  // The new browser is active (it reports tabs, it answers a call) but does not take over.
  second.send('tabs', { tabs: [{ tabId: 3, windowId: 1, url: 'http://x/', title: 'X', active: true }] });
  await waitFor('second\'s tabs', async () => (await api(d, '/api/status', { method: 'GET' })).body.browsers.find((b) => b.client_id === 'second')?.tabs.length === 1);
  assert.equal((await tool(d, 'browser_get_page', { client_id: 'second' })).body.client_id, 'second');
  r = await tool(d, 'browser_get_page');
  assert.equal(r.body.client_id, 'first');
  const list = await tool(d, 'browser_list_browsers');
  assert.equal(list.status, 200);
  assert.equal(list.body.status, 'success');
  assert.equal(list.body.result.default_client_id, 'first');
  assert.deepEqual(list.body.result.browsers.map((b) => [b.client_id, b.default, b.runtime]), [['first', true, 'desktop'], ['second', false, 'desktop']]);
  assert.match(list.body.summary, /2 browsers connected; calls that name no client_id go to first/);
  assert.equal(second.commands.length, 1); // only the call that named it
  first.close();
  await waitFor('first gone', async () => (await api(d, '/api/status', { method: 'GET' })).body.browsers.length === 1);
  assert.equal((await tool(d, 'browser_get_page')).body.client_id, 'second'); // the only one left
  second.close();
});

test('default_runtime: auto prefers the user\'s browser, headless and desktop pick their kind, or fail clearly', async () => {
  let d = await daemon();
  const hl = await connectPeer(d, { clientId: 'headless-1' });
  assert.equal((await tool(d, 'browser_get_page')).body.client_id, 'headless-1'); // auto: the only one
  const desk = await connectPeer(d, { clientId: 'desk' });
  assert.equal((await tool(d, 'browser_get_page')).body.client_id, 'desk'); // auto: the user's browser first
  const list = (await tool(d, 'browser_list_browsers')).body.result.browsers;
  assert.deepEqual(list.map((b) => [b.client_id, b.runtime, b.default]), [['headless-1', 'headless', false], ['desk', 'desktop', true]]);
  hl.close(); desk.close();
  d = await daemon({ args: ['--default-runtime', 'headless'] });
  const desk2 = await connectPeer(d, { clientId: 'desk' });
  let r = await tool(d, 'browser_get_page');
  assert.equal(r.status, 503);
  assert.equal(r.body.error, 'no_browser');
  assert.match(r.body.message, /no browser of the runtime default_runtime asks for is connected/);
  r = await tool(d, 'browser_get_page', {}, as('an-agent')); // an agent session's first call: the same
  assert.equal(r.status, 503);
  assert.match(r.body.message, /no browser of the runtime default_runtime asks for is connected/);
  assert.equal((await tool(d, 'browser_get_page', { client_id: 'desk' })).status, 200); // named: any runtime
  const hl2 = await connectPeer(d, { clientId: 'other', hello: false });
  const data = helloFor(hl2.challenge, d.token, { clientId: 'other', browser: 'Scripted', browserVersion: '1', extensionVersion: '1', capabilities: ['get_page'], runtime: 'headless' });
  hl2.send('hello', data);
  await hl2.next('welcome');
  r = await tool(d, 'browser_get_page');
  assert.equal(r.body.client_id, 'other'); // a runtime that says it is headless
  desk2.close(); hl2.close();
  const bad = await startDaemon({ args: ['--default-runtime', 'sometimes'] }).catch((e) => e);
  assert.match(String(bad.message ?? bad), /default.runtime/);
});

test('HTTP sessions own their tabs: adopt the active tab or get a new one; another session\'s tab is refused, naming its owner', async () => {
  const d = await daemon();
  const peer = await sessionPeer(d, 'b1', { tabs: [{ tabId: 1, windowId: 1, url: 'http://u/', title: 'U', active: true, focused: true }] });
  await waitFor('the tabs list', async () => (await api(d, '/api/status', { method: 'GET' })).body.browsers[0]?.tabs.length === 1);
  const [a, b] = await Promise.all([
    tool(d, 'browser_open_url', { url: 'http://a.test/' }, as('agent-a')),
    tool(d, 'browser_open_url', { url: 'http://b.test/' }, as('agent-b')),
  ]);
  assert.equal(a.status, 200);
  assert.equal(b.status, 200);
  const tabs = [a.body.page.tab_id, b.body.page.tab_id].sort();
  assert.deepEqual(tabs, [1, 100]); // one adopted the user's active tab, the other got a new tab
  const cmds = peer.commands.filter((c) => c.command === 'open_url');
  const newTab = cmds.find((c) => c.session?.newTab);
  const adopted = cmds.find((c) => c.tabId === 1);
  assert.ok(newTab && adopted, JSON.stringify(cmds));
  assert.match(newTab.session.pageId, /^p[0-9a-f]{16}$/);
  assert.match(newTab.session.id, /^s[0-9a-f]{12}$/);
  assert.notEqual(newTab.session.name, adopted.session.name);
  // Each session's next calls go to its own tab, in parallel.
  const [ga, gb] = await Promise.all([tool(d, 'browser_get_page', {}, as('agent-a')), tool(d, 'browser_get_page', {}, as('agent-b'))]);
  assert.equal(ga.body.page.tab_id, a.body.page.tab_id);
  assert.equal(gb.body.page.tab_id, b.body.page.tab_id);
  // agent-a may not touch agent-b's tab, nor may a caller without a session.
  let r = await tool(d, 'browser_click', { target: 'x', tab_id: b.body.page.tab_id }, as('agent-a'));
  assert.equal(r.status, 409);
  assert.equal(r.body.error, 'tab_owned');
  assert.equal(r.body.owner.name, 'agent-b');
  assert.match(r.body.message, /belongs to the session "agent-b"/);
  r = await tool(d, 'browser_click', { target: 'x', tab_id: b.body.page.tab_id });
  assert.equal(r.status, 409);
  assert.match(r.body.message, /"agent-b"/);
  // The default session behaves as before: no tab, no session in the command.
  r = await tool(d, 'browser_get_page');
  assert.equal(r.status, 200);
  const last = peer.commands.at(-1);
  assert.equal(last.session, undefined);
  assert.equal(last.tabId, undefined);
  const list = await sessions(d);
  assert.deepEqual(list.map((s) => [s.name, s.state, s.tabs.map((t) => t.tab_id)]).sort(), [['agent-a', 'active', [a.body.page.tab_id]], ['agent-b', 'active', [b.body.page.tab_id]]].sort());
  peer.close();
});

test('session_control (the popup\'s Stop) revokes: session_end to the browser, later calls refused, tab released', async () => {
  const d = await daemon();
  const peer = await sessionPeer(d, 'b2');
  const ev = subscribe(d);
  await waitFor('the event stream', () => ev.got.some((e) => e.event === 'hello'));
  const r = await tool(d, 'browser_open_url', { url: 'http://a.test/' }, as('stop-me'));
  assert.equal(r.status, 200);
  const listed = await waitFor('a sessions message listing it', () => peer.messages.find((m) => m.type === 'sessions' && m.data.sessions.some((s) => s.name === 'stop-me' && s.tabs.length === 1)));
  const s = listed.data.sessions.find((x) => x.name === 'stop-me');
  assert.deepEqual(s.tabs, [{ clientId: 'b2', tabId: 100 }]);
  peer.send('session_control', { id: s.id, action: 'revoke' });
  const end = await peer.next('session_end');
  assert.deepEqual(end.data, { id: s.id, name: 'stop-me', reason: 'revoked' });
  const again = await tool(d, 'browser_get_page', {}, as('stop-me'));
  assert.equal(again.status, 403);
  assert.equal(again.body.error, 'session_revoked');
  assert.match(again.body.message, /the user stopped this session \("stop-me"/);
  // Its tab is free: another session may act on it.
  const other = await tool(d, 'browser_get_page', { tab_id: 100 }, as('other'));
  assert.equal(other.status, 200);
  await waitFor('the revoked event', () => ev.got.some((e) => e.event === 'session' && e.data.event === 'revoked' && e.data.name === 'stop-me'));
  assert.ok(ev.got.some((e) => e.event === 'session' && e.data.event === 'created' && e.data.name === 'stop-me'));
  // Stopping it again, an unknown id, and malformed messages: an error back, the connection serves on.
  peer.send('session_control', { id: s.id, action: 'revoke' });
  let e = await peer.next('error');
  assert.match(e.data.message, /already revoked/);
  peer.send('session_control', { id: 'sffffffffffff', action: 'revoke' });
  e = await peer.next('error');
  assert.match(e.data.message, /no session with id "sffffffffffff"/);
  for (const bad of [{}, { id: 5, action: 'revoke' }, { id: 'x'.repeat(500), action: 'revoke' }, { id: s.id }, { id: s.id, action: 'explode' }]) {
    peer.send('session_control', bad);
    e = await peer.next('error');
    assert.match(e.data.message, /session_control|unknown action/);
  }
  assert.equal((await tool(d, 'browser_get_page', {}, as('other'))).status, 200);
  await ev.close();
  peer.close();
});

test('approve_sessions: a new session\'s first call waits for approval; declined fails; a bound on the wait', async () => {
  const d = await daemon({ args: ['--approve-sessions'] });
  const peer = await sessionPeer(d, 'b3');
  const waiting = tool(d, 'browser_open_url', { url: 'http://ok.test/' }, as('please'));
  const pending = await waitFor('a pending session', async () => (await sessions(d)).find((s) => s.name === 'please' && s.state === 'pending' && s.waiting_calls === 1));
  assert.equal(peer.commands.length, 0); // nothing reached the browser yet
  const ok = await api(d, `/api/sessions/${pending.id}/approve`, { body: {} });
  assert.equal(ok.status, 200);
  const r = await waiting;
  assert.equal(r.status, 200);
  assert.equal(r.body.status, 'success');
  assert.equal(peer.commands.length, 1);
  // declined
  const refused = tool(d, 'browser_get_page', {}, as('nope'));
  const p2 = await waitFor('the second pending session', async () => (await sessions(d)).find((s) => s.name === 'nope' && s.waiting_calls === 1));
  assert.equal((await api(d, `/api/sessions/${p2.id}/decline`, { body: {} })).status, 200);
  const no = await refused;
  assert.equal(no.status, 403);
  assert.equal(no.body.error, 'session_declined');
  assert.equal((await tool(d, 'browser_get_page', {}, as('nope'))).body.error, 'session_declined');
  // approving it now is a conflict; unknown ids and actions are clear errors
  assert.equal((await api(d, `/api/sessions/${p2.id}/approve`, { body: {} })).status, 409);
  assert.equal((await api(d, '/api/sessions/sffffffffffff/approve', { body: {} })).status, 404);
  assert.equal((await api(d, `/api/sessions/${p2.id}/launch`, { body: {} })).status, 400);
  // nobody answers: the call's timeout_ms bounds the wait
  const t = await tool(d, 'browser_get_page', { timeout_ms: 300 }, as('ignored'));
  assert.equal(t.status, 504);
  assert.equal(t.body.error, 'approval_timeout');
  assert.match(t.body.message, /did not approve this session \("ignored"\) within 300 ms/);
  assert.equal(peer.commands.length, 1);
  peer.close();
});

test('idle sessions expire (BB_TEST_SESSION_TTL_MS) and release their tabs; the event says so', async () => {
  const d = await daemon({ env: { BB_TEST_SESSION_TTL_MS: '400' } });
  const peer = await sessionPeer(d, 'b4');
  const ev = subscribe(d);
  await waitFor('the event stream', () => ev.got.some((e) => e.event === 'hello'));
  const r = await tool(d, 'browser_open_url', { url: 'http://a.test/' }, as('sleepy'));
  assert.equal(r.body.page.tab_id, 100);
  const expired = await waitFor('the expired event', () => ev.got.find((e) => e.event === 'session' && e.data.event === 'expired'));
  assert.equal(expired.data.name, 'sleepy');
  assert.deepEqual(expired.data.tabs.map((t) => t.tab_id), [100]);
  const end = await peer.next('session_end');
  assert.equal(end.data.reason, 'expired');
  assert.deepEqual(await sessions(d), []);
  // The tab is free again, and the same name starts a new session.
  const again = await tool(d, 'browser_get_page', { tab_id: 100 }, as('someone-else'));
  assert.equal(again.status, 200);
  await ev.close();
  peer.close();
});

test('an MCP session is an agent session named by clientInfo.name; ending it (DELETE /mcp) releases its tabs', async () => {
  const d = await daemon();
  const peer = await sessionPeer(d, 'b5');
  const rpc = (body, headers = {}) => api(d, '/mcp', { body, headers: { Accept: 'application/json, text/event-stream', 'MCP-Protocol-Version': '2025-06-18', ...headers } });
  const init = await rpc({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'claude-test', version: '1' } } });
  const sid = init.headers.get('mcp-session-id');
  const r = await rpc({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'browser_open_url', arguments: { url: 'http://a.test/' } } }, { 'Mcp-Session-Id': sid });
  assert.equal(r.body.result.isError, false);
  assert.equal(r.body.result.structuredContent.page.tab_id, 100);
  const cmd = peer.commands.at(-1);
  assert.equal(cmd.session.name, 'claude-test');
  assert.deepEqual((await sessions(d)).map((x) => [x.name, x.tabs.map((t) => t.tab_id)]), [['claude-test', [100]]]);
  const del = await api(d, '/mcp', { method: 'DELETE', headers: { 'Mcp-Session-Id': sid } });
  assert.equal(del.status, 200);
  const end = await peer.next('session_end');
  assert.deepEqual(end.data, { id: cmd.session.id, name: 'claude-test', reason: 'closed' });
  assert.deepEqual(await sessions(d), []);
  peer.close();
});

// Read /api/events into an array of {event, data}.
function subscribe(d) {
  const ctl = new AbortController();
  const got = [];
  let raw = '';
  const done = (async () => {
    const r = await fetch(`${d.base}/api/events`, { headers: { Authorization: `Bearer ${d.token}` }, signal: ctl.signal });
    const dec = new TextDecoder();
    try {
      for await (const chunk of r.body) {
        raw += dec.decode(chunk, { stream: true });
        let i;
        while ((i = raw.indexOf('\n\n')) >= 0) {
          const block = raw.slice(0, i);
          raw = raw.slice(i + 2);
          const event = /^event: (.*)$/m.exec(block)?.[1];
          const data = /^data: (.*)$/m.exec(block)?.[1];
          got.push({ event: event ?? null, data: data ? JSON.parse(data) : null });
        }
      }
    } catch { /* aborted */ }
  })();
  return { got, close: () => { ctl.abort(); return done; } };
}
