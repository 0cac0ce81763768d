// MCP over Streamable HTTP at /mcp, exercised with the official TypeScript SDK client, plus the
// protocol's error paths with raw requests.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { startDaemon, connectPeer, api, BIN } from './support/harness.mjs';

const PNG_1x1 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

describe('MCP', () => {
  let d, peer, client;
  before(async () => {
    d = await startDaemon();
    peer = await connectPeer(d, {
      answer: (c, p) => {
        if (c.command === 'screenshot') return p.result(c.requestId, 'success', { result: { mimeType: 'image/png', data: PNG_1x1, width: 1, height: 1 } });
        if (c.target === 'Nope') { p.result(c.requestId, 'error', { error: 'No element matches "Nope"' }); return p.page(c.requestId, '# unchanged'); }
        p.result(c.requestId);
        if (c.wait_for_page_info) p.page(c.requestId, `# After ${c.command} ${c.target ?? c.url ?? ''}`);
      },
    });
    client = new Client({ name: 'bb-test', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`${d.base}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${d.token}` } },
    });
    await client.connect(transport);
  });
  after(async () => { await client?.close(); peer?.close(); await d?.stop(); });

  test('the SDK connects, negotiates a version and lists the catalog', async () => {
    assert.equal(client.getServerVersion().name, 'browser-bridge');
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    for (const n of ['browser_open_url', 'browser_click', 'browser_type', 'browser_get_page', 'browser_screenshot'])
      assert.ok(names.includes(n), n);
    const click = tools.find((t) => t.name === 'browser_click');
    assert.deepEqual(click.inputSchema.required, ['target']);
    assert.ok(click.description.length > 50);
    await client.ping();
  });

  test('tools/call returns the page Markdown as text and the answer as structuredContent', async () => {
    const r = await client.callTool({ name: 'browser_click', arguments: { target: 'Login' } });
    assert.equal(r.isError, false);
    assert.ok(r.content.some((c) => c.type === 'text' && c.text.includes('# After click Login')));
    assert.equal(r.structuredContent.status, 'success');
    assert.ok(r.structuredContent.page.history_id > 0);
  });

  test('a browser-side failure is isError with the message; bad arguments too', async () => {
    const r = await client.callTool({ name: 'browser_click', arguments: { target: 'Nope' } });
    assert.equal(r.isError, true);
    assert.match(r.content[0].text, /No element matches "Nope"/);
    const bad = await client.callTool({ name: 'browser_click', arguments: { target: 7 } });
    assert.equal(bad.isError, true);
    assert.match(bad.content[0].text, /target: expected a string/);
  });

  test('an unknown tool is a JSON-RPC error', async () => {
    await assert.rejects(client.callTool({ name: 'browser_fly', arguments: {} }), /Unknown tool/);
  });

  test('browser_screenshot returns image content', async () => {
    const r = await client.callTool({ name: 'browser_screenshot', arguments: {} });
    const img = r.content.find((c) => c.type === 'image');
    assert.equal(img.mimeType, 'image/png');
    assert.equal(img.data, PNG_1x1);
  });

  test('stdio clients: `browser-bridge mcp` relays to the daemon', async () => {
    const stdio = new Client({ name: 'bb-stdio-test', version: '1.0.0' });
    await stdio.connect(new StdioClientTransport({
      command: BIN,
      args: ['mcp', '--config', '/dev/null', '--http', `127.0.0.1:${d.httpPort}`, '--token-file', d.tokenFile],
      stderr: 'pipe',
    }));
    const { tools } = await stdio.listTools();
    assert.ok(tools.some((t) => t.name === 'browser_type'));
    const r = await stdio.callTool({ name: 'browser_open_url', arguments: { url: 'https://example.com/' } });
    assert.equal(r.isError, false);
    assert.ok(r.content.some((c) => c.type === 'text' && c.text.includes('# After open_url https://example.com/')));
    await stdio.close();
  });

  test('raw protocol: token, Origin, sessions, methods, batches, notifications', async () => {
    const post = (body, headers = {}, opts = {}) => api(d, '/mcp', { body, headers: { Accept: 'application/json, text/event-stream', ...headers }, ...opts });
    assert.equal((await post({ jsonrpc: '2.0', id: 1, method: 'ping' }, {}, { token: null })).status, 401);
    assert.equal((await post({ jsonrpc: '2.0', id: 1, method: 'ping' }, { Origin: 'https://evil.example' })).status, 403);
    const init = await post({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } } });
    assert.equal(init.status, 200);
    assert.equal(init.body.result.protocolVersion, '2025-06-18');
    const sid = init.headers.get('mcp-session-id');
    assert.match(sid, /^[0-9a-f]{32}$/);
    const H = { 'Mcp-Session-Id': sid, 'MCP-Protocol-Version': '2025-06-18' };
    assert.equal((await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, H)).status, 202);
    const nf = await post({ jsonrpc: '2.0', id: 2, method: 'resources/list' }, H);
    assert.equal(nf.body.error.code, -32601);
    const noSession = await post({ jsonrpc: '2.0', id: 3, method: 'tools/list' });
    assert.equal(noSession.status, 400);
    const unknownSession = await post({ jsonrpc: '2.0', id: 3, method: 'tools/list' }, { 'Mcp-Session-Id': 'f'.repeat(32) });
    assert.equal(unknownSession.status, 404);
    const batch = await post([{ jsonrpc: '2.0', id: 4, method: 'ping' }], H);
    assert.equal(batch.status, 400);
    assert.equal(batch.body.error.code, -32600);
    const parse = await api(d, '/mcp', { raw: '{"jsonrpc":', headers: { 'Content-Type': 'application/json', ...H } });
    assert.equal(parse.body.error.code, -32700);
    const badVersion = await post({ jsonrpc: '2.0', id: 5, method: 'ping' }, { ...H, 'MCP-Protocol-Version': '1999-01-01' });
    assert.equal(badVersion.status, 400);
    assert.equal((await api(d, '/mcp', { method: 'GET', headers: H })).status, 405);
    assert.equal((await api(d, '/mcp', { method: 'DELETE', headers: H })).status, 200);
    assert.equal((await post({ jsonrpc: '2.0', id: 6, method: 'ping' }, H)).status, 404);
    // Ending it again, or ending no session (no header, an empty one): 404 with an error code.
    for (const h of [H, {}, { 'Mcp-Session-Id': '' }]) {
      const end = await api(d, '/mcp', { method: 'DELETE', headers: h });
      assert.equal(end.status, 404);
      assert.equal(end.body.error, 'session_not_found');
    }
  });
});
