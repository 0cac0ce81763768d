// A stand-in for `browser-bridge serve` used when the real daemon is not built:
// the /ws/browser protocol (docs/protocol.md) and the subset of the HTTP API
// (docs/api.md) the end-to-end tests use: POST /api/tools/<name>, GET /api/status,
// GET /api/health. Also usable by hand:
//
//   node tests/e2e/support/mock-daemon.mjs --http 8765 --ws 8766 --token secret
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import { WebSocketServer } from 'ws';
import { challengeMessage, proof } from '../../integration/support/proto2.mjs';

export const EXTENSION_ORIGIN = 'chrome-extension://lpjafomjfpchgbopnmlebcocfkelgpgo';

const COMMANDS = ['open_url', 'click', 'type', 'press_key', 'scroll', 'select_option', 'back', 'forward', 'reload',
  'get_page', 'list_tabs', 'switch_tab', 'close_tab', 'screenshot', 'wait_for'];

function listen(server, port) {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server.address().port));
  });
}

export async function startMockDaemon({ token = randomUUID(), httpPort = 0, wsPort = 0, log = () => {} } = {}) {
  const browsers = new Map(); // clientId -> { ws, hello, tabs, connectedAt, lastSeen }
  const calls = new Map();    // requestId -> { ws, done, result, page, wantPage, resolve }
  let lastActive = null;
  const events = [];

  // ---- WebSocket side --------------------------------------------------------
  const wsHttp = http.createServer((req, res) => { res.writeHead(404); res.end(); });
  const wss = new WebSocketServer({ noServer: true, maxPayload: 16 * 1024 * 1024 });
  wsHttp.on('upgrade', (req, sock, head) => {
    const hostOk = /^(127\.0\.0\.1|localhost|\[::1\]):\d+$/.test(req.headers.host || '');
    if (req.url !== '/ws/browser' || req.headers.origin !== EXTENSION_ORIGIN || !hostOk) {
      log(`refused upgrade path=${req.url} origin=${req.headers.origin}`);
      sock.end('HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    wss.handleUpgrade(req, sock, head, (ws) => onConn(ws));
  });

  function onConn(ws) {
    let clientId = null;
    let helloSeen = false;
    const challenge = challengeMessage(); // protocol 2: the hello must prove the token for this nonce
    ws.send(JSON.stringify(challenge));
    const helloTimer = setTimeout(() => ws.close(4408, 'no hello'), 10_000);
    ws.on('message', (buf) => {
      let msg;
      try { msg = JSON.parse(buf.toString()); } catch { ws.send(JSON.stringify({ type: 'error', data: { message: 'invalid JSON' } })); return; }
      const data = msg.data || {};
      if (!clientId) {
        if (msg.type !== 'hello' || helloSeen) return ws.close(4400, 'first message must be hello');
        helloSeen = true;
        if (!/^[A-Za-z0-9._:-]{1,64}$/.test(data.clientId || '')) return ws.close(4400, 'clientId');
        if ('token' in data) return ws.close(4426, 'protocol 1 is not supported: this daemon speaks protocol 2');
        const S = challenge.data.nonce;
        if (typeof data.nonce !== 'string' || !/^[A-Za-z0-9_-]{43}$/.test(data.nonce) || data.proof !== proof(token, 'hello', S, data.nonce)) {
          return ws.close(4401, 'wrong or missing proof of the pairing token');
        }
        clearTimeout(helloTimer);
        clientId = data.clientId;
        const old = browsers.get(clientId);
        if (old) old.ws.close(4409, 'replaced');
        browsers.set(clientId, { ws, hello: data, tabs: [], connectedAt: new Date().toISOString(), lastSeen: Date.now() });
        lastActive = clientId;
        events.push({ type: 'hello', data });
        log(`hello from ${clientId} ${data.browser} ${data.browserVersion}`);
        ws.send(JSON.stringify({ type: 'welcome', data: { serverVersion: 'mock', protocolVersion: 2, clientId, heartbeatSeconds: 20, maxMessageBytes: 16777216,
          proof: proof(token, 'welcome', data.nonce, S) } }));
        return;
      }
      const b = browsers.get(clientId);
      if (b && b.ws === ws) b.lastSeen = Date.now();
      events.push({ type: msg.type, data });
      switch (msg.type) {
        case 'heartbeat': ws.send(JSON.stringify({ type: 'heartbeat_ack', data: { serverTime: new Date().toISOString() } })); break;
        case 'tabs': if (b) b.tabs = data.tabs || []; break;
        case 'command_result': {
          const c = calls.get(data.requestId);
          if (!c || c.ws !== ws || c.result) { ws.send(JSON.stringify({ type: 'error', data: { message: 'unknown requestId', inReplyTo: 'command_result', requestId: data.requestId } })); break; }
          c.result = data;
          c.check();
          break;
        }
        case 'pageInfoUpdate': {
          if (!data.requestId) break;
          const c = calls.get(data.requestId);
          if (!c || c.ws !== ws || c.page) { ws.send(JSON.stringify({ type: 'error', data: { message: 'unknown requestId', inReplyTo: 'pageInfoUpdate', requestId: data.requestId } })); break; }
          c.page = data;
          c.check();
          break;
        }
        default: ws.send(JSON.stringify({ type: 'error', data: { message: `unknown type ${msg.type}`, inReplyTo: msg.type } }));
      }
    });
    ws.on('close', () => {
      clearTimeout(helloTimer);
      if (clientId && browsers.get(clientId)?.ws === ws) browsers.delete(clientId);
      for (const c of calls.values()) if (c.ws === ws) c.fail(503, 'browser disconnected');
    });
  }

  function call(tool, params) {
    const command = tool.replace(/^browser_/, '');
    if (!COMMANDS.includes(command)) return Promise.resolve([404, { status: 'error', error: 'unknown_tool', message: `unknown tool ${tool}` }]);
    const cid = params.client_id || lastActive;
    const b = cid && browsers.get(cid);
    if (!b) return Promise.resolve([503, { status: 'error', error: 'no_browser', message: 'no browser connected' }]);
    const requestId = randomUUID();
    const wantPage = params.wait_for_page_info !== false;
    const timeoutMs = params.timeout_ms || 30000;
    const data = { requestId, command, wait_for_page_info: wantPage };
    for (const [k, v] of Object.entries(params)) {
      if (k === 'client_id' || k === 'wait_for_page_info') continue;
      if (k === 'tab_id') data.tabId = v; else data[k] = v;
    }
    return new Promise((resolve) => {
      const c = {
        ws: b.ws, result: null, page: null, done: false,
        check() {
          if (c.done) return;
          if (c.result && (!wantPage || c.page || c.result.pageFollows === false)) c.finish();
        },
        finish() {
          c.done = true; clearTimeout(c.timer);
          setTimeout(() => calls.delete(requestId), 5000);
          const r = c.result;
          const { requestId: _r, result: extra, ...rest } = r;
          const result = { ...(extra || {}), ...rest }; // like the real daemon: command data merged in
          const page = c.page ? { url: c.page.url, title: c.page.title, markdown: c.page.markdown, tab_id: c.page.tabId, truncated: c.page.truncated } : undefined;
          resolve([200, { status: r.status, tool, request_id: requestId, summary: r.message, result, page: page || null }]);
        },
        fail(code, message) {
          if (c.done) return;
          c.done = true; clearTimeout(c.timer); calls.delete(requestId);
          const partial = code === 504 && c.result;
          resolve([code, { status: partial ? 'partial_success' : 'error', error: code === 504 ? 'timeout' : 'browser_disconnected', message,
            ...(c.result ? { result: c.result } : {}), waiting_for: c.result ? 'page' : 'result' }]);
        },
      };
      c.timer = setTimeout(() => c.fail(504, 'timeout'), timeoutMs);
      calls.set(requestId, c);
      b.ws.send(JSON.stringify({ type: 'command', data }));
    });
  }

  // ---- HTTP side ---------------------------------------------------------------
  const api = http.createServer(async (req, res) => {
    const send = (code, obj) => { res.writeHead(code, { 'content-type': 'application/json' }); res.end(JSON.stringify(obj)); };
    const url = new URL(req.url, 'http://x');
    if (url.pathname === '/api/health') return send(200, { status: 'ok', version: 'mock' });
    if (req.headers.authorization !== `Bearer ${token}`) return send(401, { status: 'error', error: 'unauthorized', message: 'token' });
    if (url.pathname === '/api/status') {
      return send(200, { version: 'mock', browsers: [...browsers.entries()].map(([id, b]) => ({ client_id: id, browser: b.hello.browser, browser_version: b.hello.browserVersion, extension_version: b.hello.extensionVersion, capabilities: b.hello.capabilities, connected_at: b.connectedAt, tabs: b.tabs })), calls_in_flight: calls.size });
    }
    const m = url.pathname.match(/^\/api\/tools\/([a-z_]+)$/);
    if (m && req.method === 'POST') {
      let body = '';
      for await (const chunk of req) body += chunk;
      let params;
      try { params = body ? JSON.parse(body) : {}; } catch { return send(400, { status: 'error', error: 'bad_json' }); }
      const [code, obj] = await call(m[1], params);
      return send(code, obj);
    }
    send(404, { status: 'error', error: 'not_found' });
  });

  const actualHttp = await listen(api, httpPort);
  const actualWs = await listen(wsHttp, wsPort);
  return {
    kind: 'mock',
    token,
    httpUrl: `http://127.0.0.1:${actualHttp}`,
    wsUrl: `ws://127.0.0.1:${actualWs}/ws/browser`,
    events,
    browsers,
    async close() {
      for (const b of browsers.values()) b.ws.close(1001, 'shutting down');
      await new Promise((r) => api.close(r));
      wss.close();
      await new Promise((r) => wsHttp.close(r));
      api.closeAllConnections?.(); wsHttp.closeAllConnections?.();
    },
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const arg = (n, d) => { const i = process.argv.indexOf(n); return i > 0 ? process.argv[i + 1] : d; };
  const d = await startMockDaemon({ token: arg('--token', 'secret'), httpPort: Number(arg('--http', 8765)), wsPort: Number(arg('--ws', 8766)), log: console.log });
  console.log(`mock daemon: http ${d.httpUrl}  ws ${d.wsUrl}  token ${d.token}`);
}
