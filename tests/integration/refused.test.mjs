// Calls the daemon refuses before they reach a browser (no browser, unknown client) are logged in
// the commands table like any other call, with their error and HTTP status, and typed text redacted.
//   BB_BIN=/path/to/browser-bridge node --test tests/integration/refused.test.mjs
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { startDaemon, tool, connectPeer, sql, waitFor } from './support/harness.mjs';

const daemons = [];
after(async () => { for (const d of daemons) await d.stop(); });

test('a call with no browser connected is a 503 and a row in commands', async () => {
  const d = await startDaemon();
  daemons.push(d);
  const r = await tool(d, 'browser_open_url', { url: 'https://example.com/refused' });
  assert.equal(r.status, 503);
  assert.equal(r.body.error, 'no_browser');
  const t = await tool(d, 'browser_type', { target: 'e1', text: 'hunter2-secret' });
  assert.equal(t.status, 503);
  let rows = [];
  await waitFor('the refused calls in commands', () => {
    rows = JSON.parse(sql(d.db, 'SELECT tool, status, http_status, error, params, message, request_id, started_at FROM commands ORDER BY id') || '[]');
    return rows.length === 2;
  });
  assert.equal(rows[0].tool, 'browser_open_url');
  assert.equal(rows[0].status, 'error');
  assert.equal(rows[0].http_status, 503);
  assert.equal(rows[0].error, 'no_browser');
  assert.match(rows[0].params, /example\.com\/refused/);
  assert.match(rows[0].message, /no browser is connected/);
  assert.match(rows[0].request_id, /^[0-9a-f-]{36}$/);
  assert.equal(rows[1].tool, 'browser_type');
  assert.doesNotMatch(rows[1].params, /hunter2/, 'typed text is never logged');
  // The API's own view of the log has them too.
  const log = await fetch(`${d.base}/api/commands`, { headers: { Authorization: `Bearer ${d.token}` } });
  assert.equal(log.status, 200);
  const body = await log.json();
  assert.ok(body.commands.some((c) => c.tool === 'browser_open_url' && c.error === 'no_browser'));
});

test('a call naming a client that is not connected is logged as unknown_client', async () => {
  const d = await startDaemon();
  daemons.push(d);
  const peer = await connectPeer(d, { clientId: 'peer-present' });
  const r = await tool(d, 'browser_get_page', { client_id: 'peer-absent' });
  assert.equal(r.status, 503);
  assert.equal(r.body.error, 'unknown_client');
  let rows = [];
  await waitFor('the refused call in commands', () => {
    rows = JSON.parse(sql(d.db, "SELECT tool, error, client_id, http_status FROM commands WHERE error = 'unknown_client'") || '[]');
    return rows.length === 1;
  });
  assert.deepEqual(rows[0], { tool: 'browser_get_page', error: 'unknown_client', client_id: 'peer-absent', http_status: 503 });
  peer.close();
});
