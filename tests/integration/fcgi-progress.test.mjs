// MCP progress over FastCGI (issue 18): a tools/call with a progress token is answered on the
// FastCGI responder as an event stream too -- progress notifications go out while the call waits,
// the result ends the request. A raw FastCGI client on the daemon's socket (no nginx needed).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import path from 'node:path';
import { startDaemon, connectPeer, waitFor } from './support/harness.mjs';

function record(type, id, content = Buffer.alloc(0)) {
  const h = Buffer.alloc(8);
  h.writeUInt8(1, 0); h.writeUInt8(type, 1); h.writeUInt16BE(id, 2); h.writeUInt16BE(content.length, 4);
  return Buffer.concat([h, content]);
}
function pairs(obj) {
  const parts = [];
  for (const [k, v] of Object.entries(obj)) {
    const kb = Buffer.from(k), vb = Buffer.from(String(v));
    for (const len of [kb.length, vb.length]) {
      if (len < 128) parts.push(Buffer.from([len]));
      else { const b = Buffer.alloc(4); b.writeUInt32BE((len | 0x80000000) >>> 0); parts.push(b); }
    }
    parts.push(kb, vb);
  }
  return Buffer.concat(parts);
}
function request(id, token, body, headers = {}) {
  const params = pairs({ REQUEST_METHOD: 'POST', DOCUMENT_URI: '/mcp', QUERY_STRING: '', CONTENT_TYPE: 'application/json',
    CONTENT_LENGTH: Buffer.byteLength(body), HTTP_HOST: 'localhost', HTTP_AUTHORIZATION: `Bearer ${token}`,
    HTTP_ACCEPT: 'application/json, text/event-stream', ...headers });
  return Buffer.concat([record(1, id, Buffer.from([0, 1, 1, 0, 0, 0, 0, 0])), record(4, id, params), record(4, id),
    record(5, id, Buffer.from(body)), record(5, id)]);
}
function connect(sockPath) {
  return new Promise((resolve, reject) => {
    const sock = net.connect(sockPath);
    const c = { sock, stdout: new Map(), ended: new Set() };
    let buf = Buffer.alloc(0);
    sock.on('data', (d) => {
      buf = Buffer.concat([buf, d]);
      while (buf.length >= 8) {
        const type = buf[1], id = buf.readUInt16BE(2), clen = buf.readUInt16BE(4), pad = buf[6];
        if (buf.length < 8 + clen + pad) break;
        if (type === 6) c.stdout.set(id, (c.stdout.get(id) || '') + buf.subarray(8, 8 + clen).toString('utf8'));
        if (type === 3) c.ended.add(id);
        buf = buf.subarray(8 + clen + pad);
      }
    });
    sock.once('connect', () => resolve(c));
    sock.once('error', reject);
  });
}

test('MCP over FastCGI: progress notifications while a call waits, then the result ends the stream', async () => {
  const sockDir = await import('node:fs').then((fs) => fs.mkdtempSync(path.join(process.env.TMPDIR || '/tmp', 'bb-fcgi-p-')));
  const sockPath = path.join(sockDir, 'fcgi.sock');
  const d = await startDaemon({ args: ['--fastcgi', `unix:${sockPath}`], env: { BB_TEST_EVENT_HEARTBEAT_MS: '100' } });
  try {
    const held = [];
    const peer = await connectPeer(d, { answer: (cmd) => held.push(cmd) });
    const c = await connect(sockPath);
    c.sock.write(request(1, d.token, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'fcgi', version: '1' } } })));
    await waitFor('the initialize answer', () => c.ended.has(1));
    const sid = /Mcp-Session-Id: ([0-9a-f]{32})/i.exec(c.stdout.get(1))?.[1];
    assert.ok(sid, c.stdout.get(1));
    c.sock.write(request(2, d.token, JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'browser_get_page', arguments: {}, _meta: { progressToken: 'tok-1' } } }),
      { HTTP_MCP_SESSION_ID: sid, HTTP_MCP_PROTOCOL_VERSION: '2025-06-18' }));
    await waitFor('the command', () => held.length === 1);
    await waitFor('two progress notifications on the FastCGI stream', () => (c.stdout.get(2) || '').split('notifications/progress').length > 2);
    const head = c.stdout.get(2);
    assert.match(head, /Content-Type: text\/event-stream/);
    assert.match(head, /data: \{"jsonrpc":"2.0","method":"notifications\/progress","params":\{"progressToken":"tok-1","progress":1,/);
    assert.ok(!c.ended.has(2), 'the request stays open while the call waits');
    peer.result(held[0].requestId);
    peer.page(held[0].requestId, '# Done');
    await waitFor('the end of the request', () => c.ended.has(2));
    const events = c.stdout.get(2).split('\n\n').filter((e) => e.includes('data: ')).map((e) => JSON.parse(e.slice(e.indexOf('data: ') + 6)));
    const last = events.at(-1);
    assert.equal(last.id, 7);
    assert.equal(last.result.isError, false);
    assert.ok(last.result.content.some((x) => x.text?.includes('# Done')));
    c.sock.destroy();
  } finally {
    await d.stop();
  }
});
