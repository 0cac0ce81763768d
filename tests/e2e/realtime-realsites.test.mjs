// Real-site suite for pages whose server answers over time. Over a WebSocket (npm socket.io,
// server and client, set up with its documented API only): a chat that shows a message once the
// server broadcast it back, an emit answered by an acknowledgement, an emit answered by nothing.
// As a streamed fetch body (stream-chat.html: an AI chat's answer, read with a reader or with
// for await, a piece every 60 ms).
// The server answers 150–200 ms late, as a server across a network does. The answer to the
// action must hold what the page shows once the server answered (issue 14, "Readiness": settle
// on the action's own effects; a Phoenix LiveView or Blazor Server page works this way on every
// click); a send that the server never answers must not hold the answer to the cap.
//   node --test tests/e2e/realtime-realsites.test.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { startManaged, requirePackages, NODE_MODULES, SHELLS } from './support/realsites.mjs';

let env, server, base;
const LATENCY_MS = 150;
const STREAM_GAP_MS = 60; // between the pieces of a streamed answer (tokens arrive so)
before(async () => {
  requirePackages(['socket.io']);
  const { Server } = await import('socket.io');
  server = http.createServer(async (req, res) => {
    const p = new URL(req.url, 'http://x').pathname;
    if (p === '/stream') { // a streamed answer: a piece every STREAM_GAP_MS, then "Done."
      const n = Number(new URL(req.url, 'http://x').searchParams.get('n')) || 5;
      res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' });
      let i = 0;
      const t = setInterval(() => {
        if (++i <= n) { res.write(`Piece ${i} of ${n}.`); return; }
        clearInterval(t);
        res.end('Done.');
      }, STREAM_GAP_MS);
      res.once('close', () => clearInterval(t));
      return;
    }
    if (p === '/stream-chat.html') { res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }); res.end(await readFile(path.join(SHELLS, 'stream-chat.html'))); return; }
    const file = p === '/' ? path.join(SHELLS, 'socketio-chat.html')
      : p === '/npm/socket.io/client-dist/socket.io.min.js' ? path.join(NODE_MODULES, 'socket.io/client-dist/socket.io.min.js') : null;
    const body = file && await readFile(file).catch(() => null);
    if (!body) { res.writeHead(404); res.end(); return; }
    res.writeHead(200, { 'content-type': file.endsWith('.js') ? 'text/javascript' : 'text/html; charset=utf-8' });
    res.end(body);
  });
  const io = new Server(server, { serveClient: false });
  let n = 0;
  io.on('connection', (socket) => {
    socket.on('chat message', (msg) => { setTimeout(() => io.emit('chat message', String(msg)), LATENCY_MS); });
    socket.on('save draft', (_d, ack) => { const id = ++n; setTimeout(() => ack({ id }), LATENCY_MS + 50); });
    socket.on('typing', () => {});
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${server.address().port}/`;
  env = await startManaged();
});
after(async () => { await env?.close(); server?.closeAllConnections?.(); await new Promise((r) => server ? server.close(r) : r()); });

const msg = (r) => JSON.stringify(r.result?.error || r.result?.message || r.message || r.status);
const md = (r) => r.page?.markdown || '';
const settleOf = (r) => r.result?.settle || r.result?.result?.settle || null;
const seen = (r) => `${JSON.stringify(settleOf(r))} ${r.message}\n${md(r).slice(0, 1200)}`;
const call = async (tool, params) => {
  const r = await env.call(tool, params);
  assert.equal(r.status, 'success', `${tool} ${JSON.stringify(params)}: expected success, got ${r.http} ${msg(r)}`);
  return r;
};
// The page, opened once its socket is connected (what a user waits for before chatting).
async function open() {
  let r = await call('browser_open_url', { url: base });
  for (let i = 0; i < 50 && !/Connected/.test(md(r)); i++) r = await call('browser_get_page', {});
  assert.match(md(r), /Connected/, 'the page never connected to its server');
  return r;
}

test('socket.io chat: the message typed and sent shows once the server broadcast it back', async () => {
  await open();
  const r = await call('browser_type', { target: 'Message', text: 'Hello from the agent', submit: true });
  assert.match(md(r), /^\s*- Hello from the agent\s*$/m, `read before the server's broadcast arrived: ${seen(r)}`);
  assert.equal(settleOf(r)?.reason, 'quiet', seen(r));
});

test('socket.io: an emit answered by an acknowledgement shows the answer', async () => {
  await open();
  const r = await call('browser_click', { target: 'Save draft on the server' });
  assert.match(md(r), /Draft saved as #\d+/, `read before the acknowledgement arrived: ${seen(r)}`);
  assert.equal(settleOf(r)?.reason, 'quiet', seen(r));
});

test('socket.io: an emit the server answers with nothing does not hold the answer to the cap', async () => {
  await open();
  const r = await call('browser_click', { target: 'Tell others I am typing' });
  assert.equal(settleOf(r)?.reason, 'quiet', `the wait for an answer that never comes ran to the cap: ${seen(r)}`);
  assert.match(md(r), /Draft not saved/);
});

// ---------------------------------------------------------------- a streamed answer

// The page reads its fetch's body as a stream and shows each piece as it comes (an AI chat's
// answer): the answer to the click must hold the whole of it, not the first pieces.
for (const [button, n] of [['Ask with a reader', 8], ['Ask with for await', 6]]) {
  test(`streamed fetch body: "${button}" is answered once the whole answer has arrived`, async () => {
    await call('browser_open_url', { url: base + 'stream-chat.html' });
    const r = await call('browser_click', { target: button });
    assert.match(md(r), /Done\./, `read before the stream ended: ${seen(r)}`);
    assert.match(md(r), new RegExp(`Piece ${n} of ${n}\\.`), seen(r));
    assert.equal(settleOf(r)?.reason, 'quiet', seen(r));
  });
}
