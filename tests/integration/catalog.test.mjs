// The typed tool catalog (issue 15): the JSON Schema generated from it is the one the hand-written
// catalog served (tests/fixtures/api-tools.json, which is today's GET /api/tools plus
// browser_handle_dialog), the extension handles exactly the catalog's commands, typed secrets stay
// out of history, and the maxMessageBytes a daemon announces is the limit it enforces.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { startDaemon, connectPeer, tool, api, sql, BIN } from './support/harness.mjs';

const SRC = process.env.BB_SRCDIR || path.resolve(import.meta.dirname, '../..');
const fixture = JSON.parse(fs.readFileSync(path.join(SRC, 'tests/fixtures/api-tools.json'), 'utf8'));
let d;

before(async () => { d = await startDaemon(); });
after(async () => { await d?.stop(); });

test('GET /api/tools, MCP tools/list and `tools --json` equal the catalog as it was written by hand', async () => {
  const served = (await api(d, '/api/tools', { method: 'GET' })).body;
  // deepStrictEqual ignores the order of object keys, not that of arrays (tools, required, enum).
  assert.deepStrictEqual(served, fixture);
  const cli = JSON.parse(execFileSync(BIN, ['tools', '--json'], { encoding: 'utf8' }));
  assert.deepStrictEqual(cli, fixture);
  const rpc = (body, headers = {}) => api(d, '/mcp', { body, headers: { Accept: 'application/json, text/event-stream', ...headers } });
  const init = await rpc({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } });
  const sid = init.headers.get('mcp-session-id');
  const list = (await rpc({ jsonrpc: '2.0', id: 2, method: 'tools/list' }, { 'Mcp-Session-Id': sid, 'MCP-Protocol-Version': '2025-06-18' })).body;
  assert.deepStrictEqual(list.result.tools.map((t) => [t.name, t.title, t.description, t.inputSchema]),
    fixture.tools.map((t) => [t.name, t.title, t.description, t.input_schema]));
});

test("the extension's capability list is the catalog's commands", () => {
  // The list the extension announces in its hello and dispatches on (extension/src/background):
  // CAPABILITIES = ['open_url', ...], or CAPABILITIES = Object.keys(TABLE) over a handler table
  // TABLE = { open_url: ..., click(...) {...}, ... } whose top-level keys are the commands.
  const dir = path.join(SRC, 'extension/src/background');
  const sources = fs.readdirSync(dir).filter((f) => f.endsWith('.js')).map((f) => fs.readFileSync(path.join(dir, f), 'utf8'));
  let caps = null;
  for (const src of sources) {
    const lit = src.match(/export const CAPABILITIES = \[([^\]]*)\]/);
    if (lit) { caps = [...lit[1].matchAll(/'([a-z_]+)'/g)].map((x) => x[1]); break; }
    const keys = src.match(/export const CAPABILITIES = Object\.keys\((\w+)\)/);
    if (!keys) continue;
    const table = sources.map((s) => s.match(new RegExp(`(?:const|let) ${keys[1]} = \\{\\n([\\s\\S]*?)\\n\\};`))).find(Boolean);
    assert.ok(table, `cannot find the handler table ${keys[1]}`);
    caps = [...table[1].matchAll(/^ {2}(?:async )?'?([a-z_]+)'?\s*[:(]/gm)].map((x) => x[1]);
    break;
  }
  assert.ok(caps, 'extension/src/background exports no CAPABILITIES');
  caps.sort();
  // Tools the daemon answers itself (history, browser_list_browsers) have no command.
  const commands = fixture.tools.filter((t) => t.answered_by !== 'daemon' && t.command != null).map((t) => t.command).sort();
  assert.deepStrictEqual(caps, commands,
    `the extension lacks [${commands.filter((c) => !caps.includes(c))}] and has extra [${caps.filter((c) => !commands.includes(c))}]`);
});

test('secret parameters are kept as their length only; defaults fill the summary', async () => {
  const peer = await connectPeer(d, { clientId: 'catalog-peer' });
  try {
    let r = await tool(d, 'browser_type', { target: 'pw', text: 'hunter2-secret' });
    assert.equal(r.status, 200);
    assert.equal(peer.commands.at(-1).text, 'hunter2-secret', 'the browser gets the text itself');
    r = await tool(d, 'browser_handle_dialog', { accept: true, prompt_text: 'sesame-secret', wait_for_page_info: false });
    assert.equal(r.status, 200);
    assert.equal(peer.commands.at(-1).prompt_text, 'sesame-secret');
    assert.equal(peer.commands.at(-1).client_id, undefined, 'common parameters are not sent to the browser');
    r = await tool(d, 'browser_scroll', {});
    assert.match(r.body.summary, /^Scrolled down/);
    const rows = (await api(d, '/api/commands?limit=10', { method: 'GET' })).body;
    const all = JSON.stringify(rows);
    assert.ok(!all.includes('hunter2-secret') && !all.includes('sesame-secret'), 'a secret reached the call log');
    assert.match(all, /\[14 characters, not kept\]/);
    assert.match(all, /\[13 characters, not kept\]/);
    assert.ok(!sql(d.db, 'SELECT params FROM commands').includes('secret'));
  } finally { peer.close(); }
});

test('validation: 400 naming the field, from the catalog bounds; open_url normalizes the URL', async () => {
  const peer = await connectPeer(d, { clientId: 'catalog-peer-2' });
  try {
    const cases = [
      ['browser_handle_dialog', {}, 'accept', /missing required parameter "accept"/],
      ['browser_handle_dialog', { accept: 'yes' }, 'accept', /expected true or false/],
      ['browser_press_key', { key: 'x'.repeat(33) }, 'key', /at most 32 bytes/],
      ['browser_wait_for', { wait_ms: 120001, text: 'a' }, 'wait_ms', /from 0 to 120000/],
      ['browser_scroll', { direction: 'left' }, 'direction', /one of \["down", "up", "top", "bottom"\]/],
      ['browser_open_url', { url: 'javascript:alert(1)' }, 'url', /only http and https/],
    ];
    for (const [name, params, field, msg] of cases) {
      const r = await tool(d, name, params);
      assert.equal(r.status, 400, `${name} ${JSON.stringify(params)}`);
      const b = r.body;
      assert.equal(b.field, field);
      assert.match(b.message, msg);
    }
    const r = await tool(d, 'browser_open_url', { url: 'example.org/a b' });
    assert.equal(r.status, 200);
    assert.equal(peer.commands.at(-1).url, 'https://example.org/a%20b');
  } finally { peer.close(); }
});

test('the maxMessageBytes announced in welcome is the limit enforced (what the extension must honour)', async () => {
  const small = await startDaemon({ args: ['--max-message-bytes', '65536'] });
  try {
    const peer = await connectPeer(small, { clientId: 'small', answer: () => {} });
    assert.equal(peer.welcome.maxMessageBytes, 65536);
    // Under the limit: accepted. Over it: the daemon closes with 1009 (message too big); an
    // extension that cuts its pages to the announced size never gets there.
    const call = tool(small, 'browser_get_page', {});
    const cmd = await new Promise((resolve) => { const t = setInterval(() => { if (peer.commands.length) { clearInterval(t); resolve(peer.commands[0]); } }, 10); });
    peer.result(cmd.requestId);
    peer.page(cmd.requestId, 'x'.repeat(60000));
    assert.equal((await call).status, 200);
    peer.page(cmd.requestId, 'y'.repeat(70000));
    const closed = await peer.closedPromise;
    assert.equal(closed.code, 1009);
  } finally { await small.stop(); }
});

test('X-Browser-Bridge-Session names the caller\'s session: a malformed name is a 400 naming the header', async () => {
  for (const bad of ['', 'x'.repeat(65), 'tab\there']) {
    const r = await api(d, '/api/tools/browser_get_page', { body: {}, headers: { 'X-Browser-Bridge-Session': bad } });
    assert.equal(r.status, 400, JSON.stringify(bad));
    assert.equal(r.body.error, 'invalid_session');
    assert.equal(r.body.field, 'X-Browser-Bridge-Session');
  }
  // A good name passes the check and reaches the catalog (no browser here: 503, not 400).
  const ok = await api(d, '/api/tools/browser_get_page', { body: {}, headers: { 'X-Browser-Bridge-Session': 'agent-1' } });
  assert.equal(ok.status, 503);
});
