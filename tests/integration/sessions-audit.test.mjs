// Issue 18 end to end, the corners between sessions and runtimes (real daemon, scripted browsers,
// the official MCP SDK client): a call parked for the user's approval gets MCP progress and can be
// cancelled (notifications/cancelled, POST /api/calls/<id>/cancel, its MCP session ending) without
// ever reaching the browser; a session that expires, is stopped or ends gives back its seat in the
// headless pool; over MCP a call on another session's tab is an isError answer naming the owner.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startDaemon, connectPeer, api, tool, waitFor, standIns } from './support/harness.mjs';

const daemons = [];
const clients = [];
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'bb-s18-'));
after(async () => {
  for (const c of clients) await c.close().catch(() => {});
  for (const d of daemons) await d.stop().catch(() => {});
  fs.rmSync(work, { recursive: true, force: true });
});
async function daemon(opts) { const d = await startDaemon(opts); daemons.push(d); return d; }
async function mcpClient(d, name) {
  const c = new Client({ name, version: '1.0.0' });
  await c.connect(new StreamableHTTPClientTransport(new URL(`${d.base}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${d.token}` } },
  }));
  clients.push(c);
  return c;
}
const as = (name, extra = {}) => ({ headers: { 'X-Browser-Bridge-Session': name, ...extra } });
const sessions = async (d) => (await api(d, '/api/sessions', { method: 'GET' })).body.sessions;
// A scripted browser with the sessions feature: each command acts on the tab it names, or on a new
// tab (100, 101, ...) when the daemon asks for one for a page.
async function sessionPeer(d, clientId) {
  const next = [100, 101, 102, 103];
  const opened = {};
  return connectPeer(d, {
    clientId, hello: { clientId, features: ['sessions'] },
    answer: (c, p) => {
      const tabId = c.tabId ?? (c.session?.newTab ? (opened[c.session.pageId] ??= next.shift()) : 1);
      p.result(c.requestId, 'success', { result: { tabId } });
      if (c.wait_for_page_info) p.page(c.requestId, `# ${c.command} on tab ${tabId}`, { tabId });
    },
  });
}

test('approval: an MCP call parked for approval gets progress, and notifications/cancelled ends it', async () => {
  const d = await daemon({ args: ['--approve-sessions'], env: { BB_TEST_EVENT_HEARTBEAT_MS: '100' } });
  const peer = await sessionPeer(d, 'b1');
  const client = await mcpClient(d, 'patient-agent');
  const progress = [];
  const ac = new AbortController();
  const call = client.callTool({ name: 'browser_get_page', arguments: { timeout_ms: 120000 } }, undefined,
    { signal: ac.signal, onprogress: (p) => progress.push(p), timeout: 120000 });
  const pending = await waitFor('the parked call', async () => (await sessions(d)).find((s) => s.name === 'patient-agent' && s.waiting_calls === 1));
  assert.equal(pending.state, 'pending');
  await waitFor('two progress notifications while it waits for approval', () => progress.length >= 2);
  assert.ok(progress[1].progress > progress[0].progress);
  for (const p of progress) assert.match(p.message, /^Waiting for the user to approve this session \(\d+ s\)$/);
  ac.abort('the agent gave up');
  await assert.rejects(call, /abort|gave up/i);
  await waitFor('the parked call to be gone', async () => (await sessions(d)).find((s) => s.id === pending.id)?.waiting_calls === 0);
  // Approved later, the cancelled call never reaches the browser; the next call works.
  assert.equal((await api(d, `/api/sessions/${pending.id}/approve`, { body: {} })).status, 200);
  const r = await client.callTool({ name: 'browser_get_page', arguments: {} });
  assert.equal(r.isError, false, JSON.stringify(r));
  assert.equal(peer.commands.length, 1, 'only the call after the approval reached the browser');
});

test('approval: POST /api/calls/<id>/cancel cancels a call parked for approval (409 cancelled)', async () => {
  const d = await daemon({ args: ['--approve-sessions'] });
  const peer = await sessionPeer(d, 'b2');
  const waiting = tool(d, 'browser_get_page', { timeout_ms: 120000 }, as('hold-on', { 'X-Browser-Bridge-Call-Id': 'parked-1' }));
  const pending = await waitFor('the parked call', async () => (await sessions(d)).find((s) => s.name === 'hold-on' && s.waiting_calls === 1));
  const c = await api(d, '/api/calls/parked-1/cancel', { body: {}, ...as('hold-on') });
  assert.equal(c.status, 200, JSON.stringify(c.body));
  assert.deepEqual(c.body, { success: true, cancelled: 'parked-1' });
  const r = await waiting;
  assert.equal(r.status, 409);
  assert.equal(r.body.error, 'cancelled');
  assert.match(r.body.message, /^Cancelled by the caller while waiting for the user's approval of this session \("hold-on"\)/);
  assert.equal((await sessions(d)).find((s) => s.id === pending.id).waiting_calls, 0);
  // Once cancelled it is gone: a second cancel is 404, and nothing reached the browser.
  assert.equal((await api(d, '/api/calls/parked-1/cancel', { body: {}, ...as('hold-on') })).status, 404);
  assert.equal(peer.commands.length, 0);
});

test('cancel: a call id cancels only in the session that made the call; a request_id from any', async () => {
  const d = await daemon();
  const held = [];
  const peer = await connectPeer(d, { clientId: 'b5', hello: { clientId: 'b5', features: ['sessions'] }, answer: (c) => held.push(c) });
  const args = { text: 'never', wait_ms: 60000, timeout_ms: 90000 };
  const mine = tool(d, 'browser_wait_for', args, as('alice', { 'X-Browser-Bridge-Call-Id': 'same-id' }));
  await waitFor('alice\'s command reached the browser', () => held.length === 1);
  // Another session, or none, naming the same call id finds nothing: the call keeps waiting.
  for (const other of [as('mallory'), {}]) {
    const c = await api(d, '/api/calls/same-id/cancel', { body: {}, ...other });
    assert.equal(c.status, 404, JSON.stringify(c.body));
    assert.equal(c.body.error, 'not_found');
  }
  assert.equal((await api(d, '/api/status', { method: 'GET' })).body.calls_in_flight, 1);
  // The same id in another session is that session's own call, cancelled apart from alice's.
  const theirs = tool(d, 'browser_wait_for', args, as('bob', { 'X-Browser-Bridge-Call-Id': 'same-id' }));
  await waitFor('bob\'s command reached the browser', () => held.length === 2);
  assert.equal((await api(d, '/api/calls/same-id/cancel', { body: {}, ...as('bob') })).status, 200);
  assert.equal((await theirs).body.request_id, held[1].requestId);
  assert.equal((await peer.next('cancel')).data.requestId, held[1].requestId);
  // Alice's own session cancels it by her id; the server-made request_id works from any session.
  const c = await api(d, '/api/calls/same-id/cancel', { body: {}, ...as('alice') });
  assert.equal(c.status, 200, JSON.stringify(c.body));
  const r = await mine;
  assert.equal(r.status, 409);
  assert.equal(r.body.request_id, held[0].requestId);
  const third = tool(d, 'browser_wait_for', args, as('carol'));
  await waitFor('carol\'s command reached the browser', () => held.length === 3);
  assert.equal((await api(d, `/api/calls/${held[2].requestId}/cancel`, { body: {}, ...as('mallory') })).status, 200);
  assert.equal((await third).body.error, 'cancelled');
});

test('cancel: MCP notifications/cancelled of one session leaves another session\'s call with that id alone', async () => {
  const d = await daemon();
  const held = [];
  await connectPeer(d, { clientId: 'b6', hello: { clientId: 'b6', features: ['sessions'] }, answer: (c) => held.push(c) });
  const rpc = (body, headers = {}) => api(d, '/mcp', { body, headers: { Accept: 'application/json, text/event-stream', 'MCP-Protocol-Version': '2025-06-18', ...headers } });
  const open = async (name) => (await rpc({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name, version: '1' } } })).headers.get('mcp-session-id');
  const a = await open('agent-a'), b = await open('agent-b');
  const waiting = rpc({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'browser_wait_for', arguments: { text: 'never', wait_ms: 60000, timeout_ms: 90000 } } }, { 'Mcp-Session-Id': a });
  await waitFor('agent-a\'s command reached the browser', () => held.length === 1);
  assert.equal((await rpc({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 7 } }, { 'Mcp-Session-Id': b })).status, 202);
  assert.equal((await api(d, '/api/status', { method: 'GET' })).body.calls_in_flight, 1, 'agent-b cannot cancel agent-a\'s call');
  assert.equal((await rpc({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 7 } }, { 'Mcp-Session-Id': a })).status, 202);
  const r = await waiting;
  assert.equal(r.body.result.isError, true);
  assert.match(r.body.result.content[0].text, /Cancelled by the caller/);
});

test('approval: an MCP session that ends (DELETE /mcp) while its call waits for approval: the call is cancelled', async () => {
  const d = await daemon({ args: ['--approve-sessions'] });
  const peer = await sessionPeer(d, 'b4');
  const rpc = (body, headers = {}) => api(d, '/mcp', { body, headers: { Accept: 'application/json, text/event-stream', 'MCP-Protocol-Version': '2025-06-18', ...headers } });
  const init = await rpc({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'leaving', version: '1' } } });
  const sid = init.headers.get('mcp-session-id');
  const waiting = rpc({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'browser_get_page', arguments: { timeout_ms: 120000 } } }, { 'Mcp-Session-Id': sid });
  await waitFor('the parked call', async () => (await sessions(d)).find((s) => s.name === 'leaving' && s.waiting_calls === 1));
  assert.equal((await api(d, '/mcp', { method: 'DELETE', headers: { 'Mcp-Session-Id': sid } })).status, 200);
  const r = await waiting;
  assert.equal(r.body.result.isError, true);
  assert.match(r.body.result.content[0].text, /Cancelled by the caller while waiting for the user's approval of this session \("leaving"\)/);
  assert.equal(peer.commands.length, 0);
});

test('headless pool: a session that expires or is stopped gives back its seat', async () => {
  const { chromium: fakeChromium, extension } = standIns(work);
  const tmp = fs.mkdtempSync(path.join(work, 'tmp-'));
  const d = await daemon({ args: ['--headless', '2', '--chromium', fakeChromium, '--extension', extension], env: { TMPDIR: tmp, BB_TEST_SESSION_TTL_MS: '600' } });
  const ids = (await waitFor('two browsers', () => { const m = [...d.log.matchAll(/headless: started \S+ \(pid \d+\) as client (headless-[0-9a-f]+)/g)]; return m.length === 2 && m; })).map((m) => m[1]);
  for (const id of ids) await sessionPeer(d, id);
  const seats = async () => (await api(d, '/api/status', { method: 'GET' })).body.headless.reduce((n, h) => n + h.sessions, 0);
  const r = await tool(d, 'browser_get_page', {}, as('sleepy'));
  assert.ok(ids.includes(r.body.client_id), JSON.stringify(r.body));
  assert.equal(await seats(), 1);
  await waitFor('the session to expire', async () => (await sessions(d)).length === 0);
  assert.equal(await seats(), 0, 'the expired session\'s seat is free');
  // Stopped (the popup's or the dashboard's Stop): the seat is free too.
  await tool(d, 'browser_get_page', {}, as('stopped'));
  const s = (await sessions(d)).find((x) => x.name === 'stopped');
  assert.equal(await seats(), 1);
  assert.equal((await api(d, `/api/sessions/${s.id}/revoke`, { body: {} })).status, 200);
  assert.equal(await seats(), 0, 'the stopped session\'s seat is free');
  const refused = await tool(d, 'browser_get_page', {}, as('stopped'));
  assert.equal(refused.body.error, 'session_revoked');
  assert.equal(await seats(), 0, 'a stopped session\'s later calls take no seat');
  // An MCP session on the pool that ends itself (DELETE /mcp) gives its seat back too.
  const rpc = (body, headers = {}) => api(d, '/mcp', { body, headers: { Accept: 'application/json, text/event-stream', 'MCP-Protocol-Version': '2025-06-18', ...headers } });
  const init = await rpc({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'brief', version: '1' } } });
  const sid = init.headers.get('mcp-session-id');
  const m = await rpc({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'browser_get_page', arguments: {} } }, { 'Mcp-Session-Id': sid });
  assert.equal(m.body.result.isError, false, JSON.stringify(m.body));
  assert.equal(await seats(), 1);
  assert.equal((await api(d, '/mcp', { method: 'DELETE', headers: { 'Mcp-Session-Id': sid } })).status, 200);
  assert.equal(await seats(), 0, 'the ended MCP session\'s seat is free');
});

test('MCP: a call on a tab another MCP session owns is an isError answer naming the owner', async () => {
  const d = await daemon();
  const peer = await sessionPeer(d, 'b3');
  const a = await mcpClient(d, 'agent-a');
  const b = await mcpClient(d, 'agent-b');
  const ra = await a.callTool({ name: 'browser_open_url', arguments: { url: 'http://a.test/' } });
  assert.equal(ra.isError, false, JSON.stringify(ra));
  const tab = ra.structuredContent.page.tab_id;
  const rb = await b.callTool({ name: 'browser_get_page', arguments: { tab_id: tab } });
  assert.equal(rb.isError, true);
  const text = rb.content.map((c) => c.text).join('\n');
  assert.match(text, new RegExp(`tab ${tab} belongs to the session "agent-a" \\(s[0-9a-f]{12}\\), not to this one \\("agent-b"\\)`));
  assert.equal(peer.commands.length, 1, 'the refused call never reached the browser');
});
