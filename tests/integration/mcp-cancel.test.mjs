// Cancellation and progress (issue 18), against the real daemon with a scripted browser:
// MCP notifications/cancelled (sent by the official SDK client when its request is aborted) and
// POST /api/calls/<id>/cancel answer the waiting call as cancelled and send the browser a cancel
// message for it; a tools/call with a progress token gets notifications/progress while it waits
// (BB_TEST_EVENT_HEARTBEAT_MS shortens the real 5 s between them).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { spawn } from 'node:child_process';
import { startDaemon, connectPeer, api, tool, waitFor, BIN } from './support/harness.mjs';

async function mcpClient(d, name) {
  const c = new Client({ name, version: '1.0.0' });
  await c.connect(new StreamableHTTPClientTransport(new URL(`${d.base}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${d.token}` } },
  }));
  return c;
}

test('MCP: notifications/cancelled answers the call as cancelled and tells the browser', async () => {
  const d = await startDaemon();
  let client;
  try {
    const held = [];
    const peer = await connectPeer(d, { answer: (c) => held.push(c) }); // never answers by itself
    client = await mcpClient(d, 'cancel-test');
    const ac = new AbortController();
    const call = client.callTool({ name: 'browser_wait_for', arguments: { text: 'never', wait_ms: 60000, timeout_ms: 90000 } }, undefined, { signal: ac.signal });
    await waitFor('the command reached the browser', () => held.length === 1);
    ac.abort('the user pressed stop');
    await assert.rejects(call, /abort|stop/i);
    const msg = await peer.next('cancel');
    assert.equal(msg.data.requestId, held[0].requestId);
    const rows = await waitFor('the log row', async () => (await api(d, '/api/commands?limit=5', { method: 'GET' })).body.commands.find((r) => r.request_id === held[0].requestId));
    assert.equal(rows.error, 'cancelled');
    assert.equal(rows.http_status, 409);
    assert.match(rows.summary, /^Cancelled by the caller while trying to wait for never/);
    assert.equal((await api(d, '/api/status', { method: 'GET' })).body.calls_in_flight, 0);
    // A late answer from the browser for the cancelled call changes nothing; the session goes on.
    peer.result(held[0].requestId, 'error', { error: 'cancelled: the caller gave up on this call' });
    const next = client.callTool({ name: 'browser_get_page', arguments: {} });
    await waitFor('the next command', () => held.length === 2);
    peer.result(held[1].requestId); peer.page(held[1].requestId, '# Next');
    assert.equal((await next).isError, false);
  } finally {
    await client?.close();
    await d.stop();
  }
});

test('HTTP: POST /api/calls/<id>/cancel by X-Browser-Bridge-Call-Id or request_id', async () => {
  const d = await startDaemon();
  try {
    const held = [];
    const peer = await connectPeer(d, { answer: (c) => held.push(c) });
    const call = tool(d, 'browser_wait_for', { text: 'never', wait_ms: 60000, timeout_ms: 90000 }, { headers: { 'X-Browser-Bridge-Call-Id': 'cli-1234abcd' } });
    await waitFor('the command reached the browser', () => held.length === 1);
    const c = await api(d, '/api/calls/cli-1234abcd/cancel', { body: {} });
    assert.equal(c.status, 200, c.text);
    assert.equal(c.body.success, true);
    const r = await call;
    assert.equal(r.status, 409);
    assert.equal(r.body.error, 'cancelled');
    assert.equal(r.body.request_id, held[0].requestId);
    assert.equal((await peer.next('cancel')).data.requestId, held[0].requestId);
    // Gone now: a second cancel is a 404.
    assert.equal((await api(d, '/api/calls/cli-1234abcd/cancel', { body: {} })).status, 404);

    // By the daemon's request_id, without a call id of the caller's.
    const call2 = tool(d, 'browser_click', { target: 'x' });
    await waitFor('the second command', () => held.length === 2);
    assert.equal((await api(d, `/api/calls/${held[1].requestId}/cancel`, { body: {} })).status, 200);
    assert.equal((await call2).body.error, 'cancelled');
    assert.equal((await peer.next('cancel')).data.requestId, held[1].requestId);

    // Malformed ids: clear 400s, and the daemon keeps serving.
    const bad = await tool(d, 'browser_click', { target: 'x' }, { headers: { 'X-Browser-Bridge-Call-Id': 'a b/c' } });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.field, 'X-Browser-Bridge-Call-Id');
    assert.equal((await tool(d, 'browser_click', { target: 'x' }, { headers: { 'X-Browser-Bridge-Call-Id': 'x'.repeat(65) } })).status, 400);
    assert.equal((await api(d, '/api/calls/a%20b/cancel', { body: {} })).status, 400);
    assert.equal((await api(d, `/api/calls/${'y'.repeat(65)}/cancel`, { body: {} })).status, 400);
    assert.equal((await api(d, '/api/calls/abc/nope', { body: {} })).status, 404);
    assert.equal((await api(d, '/api/calls/nothing-here/cancel', { body: {} })).status, 404);
    assert.equal(held.length, 2, 'refused calls never reach the browser');
  } finally {
    await d.stop();
  }
});

test('MCP: a call with a progress token gets notifications/progress while it waits, then its result', async () => {
  const d = await startDaemon({ env: { BB_TEST_EVENT_HEARTBEAT_MS: '100' } });
  let client;
  try {
    const held = [];
    const peer = await connectPeer(d, { answer: (c) => held.push(c) });
    client = await mcpClient(d, 'progress-test');
    const progress = [];
    const call = client.callTool({ name: 'browser_wait_for', arguments: { text: 'later', timeout_ms: 60000 } }, undefined, { onprogress: (p) => progress.push(p) });
    await waitFor('the command reached the browser', () => held.length === 1);
    await waitFor('two progress notifications', () => progress.length >= 2);
    assert.equal(progress[0].progress, 1);
    assert.ok(progress[1].progress > progress[0].progress);
    assert.match(progress[0].message, /^Waiting for the browser \(\d+ s\)$/);
    assert.equal((await api(d, '/api/status', { method: 'GET' })).body.calls_in_flight, 1);
    // Now the browser answers: the result ends the stream.
    peer.result(held[0].requestId);
    peer.page(held[0].requestId, '# Later');
    const r = await call;
    assert.equal(r.isError, false, JSON.stringify(r));
    assert.ok(r.content.some((x) => x.text?.includes('# Later')));
    // Without a progress token: plain JSON, as before.
    const plain = await api(d, '/mcp', { body: { jsonrpc: '2.0', id: 9, method: 'tools/list' }, headers: { Accept: 'application/json, text/event-stream', 'Mcp-Session-Id': client.transport.sessionId } });
    assert.match(plain.headers.get('content-type'), /^application\/json/);
    assert.ok(Array.isArray(plain.body.result.tools));
  } finally {
    await client?.close();
    await d.stop();
  }
});

// The CLI: Ctrl-C (SIGINT) while a call waits cancels it in the daemon and the browser, over the API
// socket and over TCP with the token alike; the CLI exits 130.
for (const via of ['api-socket', 'tcp']) {
  test(`CLI: Ctrl-C cancels the waiting call in the browser too (${via})`, async () => {
    const d = await startDaemon();
    try {
      const held = [];
      const peer = await connectPeer(d, { answer: (c) => held.push(c) });
      const conn = via === 'tcp'
        ? ['--config', '/dev/null', '--api-socket', 'off', '--token-file', d.tokenFile, '--http', `127.0.0.1:${d.httpPort}`]
        : ['--config', '/dev/null', '--api-socket', d.apiSocket];
      const cli = spawn(BIN, ['wait-for', 'never', '--wait-ms', '60000', '--timeout', '90000', ...conn], { stdio: ['ignore', 'pipe', 'pipe'] });
      let stderr = '';
      cli.stderr.on('data', (x) => { stderr += x; });
      const exited = new Promise((resolve) => cli.on('exit', (code, signal) => resolve({ code, signal })));
      await waitFor('the command reached the browser', () => held.length === 1);
      cli.kill('SIGINT');
      assert.deepEqual(await exited, { code: 130, signal: null }, stderr);
      assert.match(stderr, /interrupted; the call was cancelled in the browser too/);
      assert.equal((await peer.next('cancel')).data.requestId, held[0].requestId);
      assert.equal((await api(d, '/api/status', { method: 'GET' })).body.calls_in_flight, 0);
    } finally {
      await d.stop();
    }
  });
}
