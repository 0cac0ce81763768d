// The observation tools' inputs (issue 17): browser_find, browser_console_messages,
// browser_network_requests and browser_screenshot's new options. Every malformed, oversized or
// hostile value is a 400 naming the field, the daemon keeps serving, and good calls reach the
// browser with their parameters. Also: the limits the extension shares with the daemon are the
// figures of src/limits.h (the built extension is made from that file).
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { startDaemon, connectPeer, tool } from './support/harness.mjs';

const SRC = process.env.BB_SRCDIR || path.resolve(import.meta.dirname, '../..');
let d;
before(async () => { d = await startDaemon(); });
after(async () => { await d?.stop(); });

const bad = [
  ['browser_find', {}, 'text'],
  ['browser_find', { text: '' }, 'text'],
  ['browser_find', { text: 'x'.repeat(2001) }, 'text'],
  ['browser_find', { text: 42 }, 'text'],
  ['browser_find', { text: 'a', limit: 0 }, 'limit'],
  ['browser_find', { text: 'a', limit: 201 }, 'limit'],
  ['browser_find', { text: 'a', limit: '5' }, 'limit'],
  ['browser_find', { text: 'a', limit: 1e300 }, 'limit'],
  ['browser_console_messages', { level: 'fatal' }, 'level'],
  ['browser_console_messages', { level: ['error'] }, 'level'],
  ['browser_console_messages', { limit: -1 }, 'limit'],
  ['browser_console_messages', { limit: 501 }, 'limit'],
  ['browser_console_messages', { since: 3 }, 'since'],
  ['browser_network_requests', { filter: '' }, 'filter'],
  ['browser_network_requests', { filter: 'u'.repeat(501) }, 'filter'],
  ['browser_network_requests', { filter: { $ne: 1 } }, 'filter'],
  ['browser_network_requests', { limit: 1.5 }, 'limit'],
  ['browser_network_requests', { limit: 100000 }, 'limit'],
  ['browser_screenshot', { format: 'gif' }, 'format'],
  ['browser_screenshot', { format: 'PNG' }, 'format'],
  ['browser_screenshot', { quality: 0 }, 'quality'],
  ['browser_screenshot', { quality: 101 }, 'quality'],
  ['browser_screenshot', { quality: '80' }, 'quality'],
  ['browser_screenshot', { format: 'png', quality: 50 }, 'quality'],
  ['browser_screenshot', { max_width: 15 }, 'max_width'],
  ['browser_screenshot', { max_width: 16385 }, 'max_width'],
  ['browser_screenshot', { max_width: -1280 }, 'max_width'],
  ['browser_screenshot', { marks: 'yes' }, 'marks'],
  ['browser_screenshot', { full_page: 1 }, 'full_page'],
  ['browser_screenshot', { only_if_changed: null }, 'only_if_changed'],
  ['browser_screenshot', { target: '' }, 'target'],
  ['browser_screenshot', { target: 'x'.repeat(2001) }, 'target'],
  ['browser_screenshot', { target: 'Login', full_page: true }, 'target'],
];

test('malformed, oversized and hostile values are a 400 naming the field', async () => {
  for (const [name, params, field] of bad) {
    const r = await tool(d, name, params);
    assert.equal(r.status, 400, `${name} ${JSON.stringify(params).slice(0, 80)}: ${r.text.slice(0, 200)}`);
    assert.equal(r.body.error, 'invalid_params');
    assert.equal(r.body.field, field, `${name} ${JSON.stringify(params).slice(0, 80)}: ${r.body.message}`);
    assert.ok(r.body.message.length > 10 && r.body.message.length < 400, r.body.message);
  }
  // Still serving.
  const h = await fetch(d.base + '/api/health');
  assert.equal(h.status, 200);
});

test('good calls reach the browser with their parameters (and no common ones)', async () => {
  const peer = await connectPeer(d, { clientId: 'observe-peer' });
  try {
    const calls = [
      ['browser_find', { text: 'Install', limit: 3 }, 'find'],
      ['browser_console_messages', { level: 'warning', limit: 10 }, 'console_messages'],
      ['browser_console_messages', {}, 'console_messages'],
      ['browser_network_requests', { filter: '/api/', limit: 5 }, 'network_requests'],
      ['browser_screenshot', { format: 'jpeg', quality: 55, max_width: 640, marks: true, only_if_changed: true }, 'screenshot'],
      ['browser_screenshot', { format: 'png', full_page: true }, 'screenshot'],
      ['browser_screenshot', { target: 'e12' }, 'screenshot'],
    ];
    for (const [name, params, command] of calls) {
      const r = await tool(d, name, { ...params, timeout_ms: 5000 });
      assert.equal(r.status, 200, `${name}: ${r.text.slice(0, 200)}`);
      const c = peer.commands.at(-1);
      assert.equal(c.command, command);
      for (const [k, v] of Object.entries(params)) assert.deepStrictEqual(c[k], v, `${name} ${k}`);
      assert.equal(c.timeout_ms, undefined);
      assert.equal(r.body.page, null, `${name} answers no page by default`);
    }
  } finally {
    peer.close?.();
  }
});

test("the extension's shared limits are src/limits.h's figures", () => {
  const h = fs.readFileSync(path.join(SRC, 'src/limits.h'), 'utf8');
  const js = fs.readFileSync(path.join(SRC, 'extension/src/shared/limits.js'), 'utf8');
  const names = [...js.matchAll(/\bBB_[A-Z0-9_]+\b/g)].map((m) => m[0]);
  assert.ok(names.length >= 10, 'shared/limits.js re-exports the limits of src/limits.h');
  const ext = process.env.BB_EXTENSION;
  assert.ok(ext && fs.existsSync(path.join(ext, 'background.js')), 'BB_EXTENSION names the built extension');
  const built = ['background.js', 'page-main.js', 'page-isolated.js', 'content.js'].map((f) => fs.readFileSync(path.join(ext, f), 'utf8')).join('\n');
  for (const n of new Set(names)) {
    const m = h.match(new RegExp(`^#define ${n} (\\d+)\\b`, 'm'));
    assert.ok(m, `${n} is defined in src/limits.h`);
    const uses = [...built.matchAll(new RegExp(`\\b${n} = ([0-9.e+]+);`, 'g'))].map((x) => x[1]);
    assert.ok(uses.length > 0, `${n} is in the built extension`);
    for (const u of uses) assert.equal(Number(u), Number(m[1]), `${n}: the extension has ${u}, src/limits.h ${m[1]}`);
  }
});

test('CLI: screenshot FILE saves the format of the answer; FILE.png asks for a PNG; unchanged writes nothing', async () => {
  const { execFile } = await import('node:child_process');
  const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 16, 0x4a, 0x46, 0x49, 0x46, 0, 1, 1, 0, 0, 1, 0, 1, 0, 0, 0xff, 0xd9]);
  const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
  const peer = await connectPeer(d, {
    clientId: 'observe-cli',
    answer(c, p) {
      if (c.only_if_changed) return p.result(c.requestId, 'success', { result: { unchanged: true, mimeType: 'image/jpeg', width: 1, height: 1 } });
      const png = c.format === 'png';
      p.result(c.requestId, 'success', { result: { mimeType: png ? 'image/png' : 'image/jpeg', data: (png ? PNG : JPEG).toString('base64'), width: 1, height: 1 } });
    },
  });
  const cli = (args) => new Promise((resolve) => execFile(process.env.BB_BIN || path.resolve(SRC, 'browser-bridge'),
    [...args, '--config', '/dev/null', '--token-file', d.tokenFile, '--http', `127.0.0.1:${d.httpPort}`, '--client-id', 'observe-cli'],
    { encoding: 'buffer', timeout: 30000 }, (err, stdout, stderr) => resolve({ code: err ? err.code : 0, stdout, stderr: stderr.toString() })));
  try {
    const jpg = path.join(d.dir, 'shot.jpg');
    let r = await cli(['screenshot', jpg]);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(fs.readFileSync(jpg), JPEG);
    assert.equal(peer.commands.at(-1).format, 'jpeg', 'the default (JPEG) is asked for');
    const png = path.join(d.dir, 'shot.png');
    r = await cli(['screenshot', png]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(peer.commands.at(-1).format, 'png');
    assert.deepEqual(fs.readFileSync(png), PNG);
    r = await cli(['screenshot', '--format', 'jpeg', '--quality', '40', '--max-width', '800', '--marks', '-']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(r.stdout, JPEG);
    assert.deepEqual([peer.commands.at(-1).quality, peer.commands.at(-1).max_width, peer.commands.at(-1).marks], [40, 800, true]);
    const again = path.join(d.dir, 'again.jpg');
    r = await cli(['screenshot', '--only-if-changed', again]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /Unchanged since the last screenshot/);
    assert.ok(!fs.existsSync(again), 'nothing written when unchanged');
    r = await cli(['screenshot', '--quality', '0', jpg]);
    assert.equal(r.code, 2, 'a bad flag value is a usage error');
    assert.match(r.stderr, /quality/);
  } finally {
    peer.close();
  }
});

test('MCP: a JPEG screenshot is an image content with its mimeType; found lists are text content too', async () => {
  const { api } = await import('./support/harness.mjs');
  const JPEG_B64 = Buffer.from([0xff, 0xd8, 0xff, 0xd9]).toString('base64');
  const peer = await connectPeer(d, {
    clientId: 'observe-mcp',
    answer(c, p) {
      if (c.command === 'screenshot') return p.result(c.requestId, 'success', { result: { mimeType: 'image/jpeg', data: JPEG_B64, width: 1, height: 1, marks: [{ ref: 'e3', x: 1, y: 2, width: 3, height: 4 }] } });
      if (c.command === 'find') return p.result(c.requestId, 'success', { result: { matches: [{ line: 9, text: 'Install [button "Go" e4]', ref: 'e4' }], total: 1 } });
      p.result(c.requestId, 'success', { result: {} });
    },
  });
  try {
    const rpc = (body, headers = {}) => api(d, '/mcp', { body, headers: { Accept: 'application/json, text/event-stream', ...headers } });
    const init = await rpc({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } });
    const h = { 'Mcp-Session-Id': init.headers.get('mcp-session-id'), 'MCP-Protocol-Version': '2025-06-18' };
    let r = (await rpc({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'browser_screenshot', arguments: { client_id: 'observe-mcp', marks: true } } }, h)).body.result;
    const img = r.content.find((c) => c.type === 'image');
    assert.deepEqual([img.mimeType, img.data], ['image/jpeg', JPEG_B64]);
    assert.ok(r.content.some((c) => c.type === 'text' && /^marks: \[\{"ref":"e3"/.test(c.text)), JSON.stringify(r.content));
    r = (await rpc({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'browser_find', arguments: { client_id: 'observe-mcp', text: 'Install' } } }, h)).body.result;
    assert.equal(r.isError, false);
    assert.ok(r.content.some((c) => c.type === 'text' && c.text.includes('"ref":"e4"')), JSON.stringify(r.content));
    r = (await rpc({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'browser_find', arguments: { client_id: 'observe-mcp', text: '' } } }, h)).body;
    assert.ok(r.error || r.result.isError, 'an empty text is refused over MCP too');
  } finally {
    peer.close();
  }
});

test('CLI: find, console and network print what they found, one line each, control characters removed', async () => {
  const { execFile } = await import('node:child_process');
  const peer = await connectPeer(d, {
    clientId: 'observe-cli2',
    answer(c, p) {
      const result = {
        find: { matches: [{ line: 12, text: 'Install \u001b[31mnow [button "Go" e4]', ref: 'e4' }, { line: 40, text: 'no ref here', ref: null }], total: 2 },
        console_messages: { messages: [{ level: 'error', kind: 'uncaught', text: 'Uncaught boom', time: '2026-11-23T08:00:00.000Z', source: 'http://x/a.js:1:2' }], total: 1 },
        network_requests: { requests: [{ method: 'POST', url: 'http://x/api', status: 201, type: 'fetch', size: 3, duration_ms: 7 }, { method: 'GET', url: 'http://x/gone', status: 0, type: 'fetch', failed: 'TypeError', duration_ms: 1 }], total: 2 },
      }[c.command];
      p.result(c.requestId, 'success', { result });
    },
  });
  const cli = (args) => new Promise((resolve) => execFile(process.env.BB_BIN || path.resolve(SRC, 'browser-bridge'),
    [...args, '--config', '/dev/null', '--token-file', d.tokenFile, '--http', `127.0.0.1:${d.httpPort}`, '--client-id', 'observe-cli2'],
    { encoding: 'utf8', timeout: 30000 }, (err, stdout, stderr) => resolve({ code: err ? err.code : 0, stdout, stderr })));
  try {
    let r = await cli(['find', 'Install', '--limit', '5']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(peer.commands.at(-1).limit, 5);
    assert.equal(r.stdout, '12\te4\tInstall  [31mnow [button "Go" e4]\n40\t-\tno ref here\n');
    r = await cli(['console', '--level', 'error']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, '2026-11-23T08:00:00.000Z\terror  \tUncaught boom (http://x/a.js:1:2)\n');
    r = await cli(['network', '--filter', 'api']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'POST\t201\tfetch\t7ms\thttp://x/api\nGET\tfailed\tfetch\t1ms\thttp://x/gone\n');
    r = await cli(['console', '--level', 'fatal']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /level/);
  } finally {
    peer.close();
  }
});
