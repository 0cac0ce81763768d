#!/usr/bin/env node
// Development stand-in for the C daemon, for working on the dashboard without it. NOT used by
// the tests. Implements the parts of docs/api.md + docs/protocol.md the dashboard uses, with the
// same command line:
//   node www/dev/mock-daemon.mjs serve --http 127.0.0.1:8765 --ws 127.0.0.1:8766 \
//        --token-file /tmp/bb-token --www www/dist [--demo]
// --demo also connects a fake browser that answers every command and makes some traffic.
import http from 'node:http';
import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync, existsSync, statSync } from 'node:fs';
import { join, extname, resolve } from 'node:path';
import { WebSocketServer, WebSocket } from 'ws';

const argv = process.argv.slice(2);
const opt = (name, def) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1] : def;
};
const [httpHost, httpPort] = opt('http', '127.0.0.1:8765').split(':');
const [wsHost, wsPort] = opt('ws', '127.0.0.1:8766').split(':');
const tokenFile = opt('token-file', '/tmp/bb-mock-token');
const wwwDir = resolve(opt('www', new URL('../dist', import.meta.url).pathname));
const EXT_ORIGIN = 'chrome-extension://lpjafomjfpchgbopnmlebcocfkelgpgo';
const CSP = "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

let token = existsSync(tokenFile) ? readFileSync(tokenFile, 'utf8').trim() : '';
if (!token) {
  token = randomBytes(32).toString('hex');
  writeFileSync(tokenFile, `${token}\n`, { mode: 0o600 });
}
const sessions = new Set();
const browsers = new Map(); // clientId → {ws, info, tabs, connected_at, last_seen}
const calls = new Map(); // requestId → {resolve, result, page, ...}
const pages = [];
const commands = [];
const subscribers = new Set();
let nextPageId = 1;
const now = () => new Date().toISOString();

const TOOLS = [
  ['browser_open_url', 'open_url', 'Open a URL in the current tab or a new one.', { url: { type: 'string', description: 'Absolute URL to open.' }, new_tab: { type: 'boolean', description: 'Open in a new tab.', default: false } }, ['url']],
  ['browser_click', 'click', 'Click an element.', { target: { type: 'string', description: 'A ref (e12), CSS selector or description.' } }, ['target']],
  ['browser_type', 'type', 'Type text into a field.', { target: { type: 'string', description: 'The field.' }, text: { type: 'string', description: 'What to type.' }, clear: { type: 'boolean', default: true, description: 'Clear the field first.' }, submit: { type: 'boolean', default: false, description: 'Press Enter afterwards.' } }, ['target', 'text']],
  ['browser_press_key', 'press_key', 'Press a key.', { key: { type: 'string', description: 'e.g. Enter, Tab, ArrowDown.' }, target: { type: 'string', description: 'Element to focus first.' } }, ['key']],
  ['browser_scroll', 'scroll', 'Scroll the page or an element.', { direction: { type: 'string', enum: ['up', 'down', 'top', 'bottom'], default: 'down', description: 'Where to.' }, amount: { type: 'integer', minimum: 1, maximum: 100000, description: 'Pixels.' }, target: { type: 'string', description: 'Element to scroll.' } }, []],
  ['browser_get_page', 'get_page', 'Return the current page as Markdown.', {}, []],
  ['browser_screenshot', 'screenshot', 'PNG of the visible tab.', {}, []],
  ['browser_list_tabs', 'list_tabs', 'List the open tabs.', {}, []],
];
const COMMON = {
  client_id: { type: 'string', description: 'Which connected browser serves the call (default: most recently active).' },
  tab_id: { type: 'integer', description: 'Which tab to act on (default: the active tab).' },
  wait_for_page_info: { type: 'boolean', default: true, description: 'Wait for the page after the action.' },
  timeout_ms: { type: 'integer', minimum: 100, maximum: 600000, default: 30000, description: 'How long to wait in all.' },
};
const toolList = TOOLS.map(([name, , description, props, required]) => {
  const schema = { type: 'object', properties: { ...props, ...COMMON }, required };
  return { name, description, parameters: schema, input_schema: schema };
});

function publish(event, data) {
  const text = `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
  for (const res of subscribers) res.write(text);
}
function browserJson(id, b) {
  return { client_id: id, browser: b.info.browser, browser_version: b.info.browserVersion, extension_version: b.info.extensionVersion, capabilities: b.info.capabilities, connected_at: b.connected_at, last_seen: b.last_seen, tabs: b.tabs };
}
const browserList = () => [...browsers].sort((a, b) => b[1].last_seen.localeCompare(a[1].last_seen)).map(([id, b]) => browserJson(id, b));
function send(res, status, body, headers = {}) {
  const data = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': typeof body === 'string' ? 'text/plain; charset=utf-8' : 'application/json', 'Cache-Control': 'no-store', ...headers });
  res.end(data);
}
function err(res, status, code, message, extra = {}) {
  send(res, status, { status: 'error', error: code, message, ...extra });
}
function storePage(clientId, d) {
  const p = { id: nextPageId++, captured_at: now(), client_id: clientId, tab_id: d.tabId, request_id: d.requestId, url: d.url, title: d.title, bytes: Buffer.byteLength(d.markdown || ''), markdown: d.markdown || '', truncated: !!d.truncated };
  pages.push(p);
  const { markdown, truncated, ...ev } = p;
  publish('page', ev);
  return p;
}

const loginCodes = new Set();
const server = http.createServer(async (req, res) => {
  const url = new URL(req.url, `http://${req.headers.host}`);
  const okHosts = [`127.0.0.1:${httpPort}`, `localhost:${httpPort}`, `[::1]:${httpPort}`];
  if (!okHosts.includes(req.headers.host)) return err(res, 403, 'forbidden', 'Bad Host.');
  if (req.headers.origin && !okHosts.map((h) => `http://${h}`).includes(req.headers.origin)) return err(res, 403, 'forbidden', 'Foreign Origin.');
  const cookie = /(?:^|;\s*)bb_session=([a-f0-9]+)/.exec(req.headers.cookie || '');
  const authed = (req.headers.authorization === `Bearer ${token}`) || (cookie && sessions.has(cookie[1]));
  const path = url.pathname;

  if (path === '/login') {
    // Like the daemon: a one-time code in the URL, or the token in a POSTed form body.
    let ok = false;
    if (req.method === 'POST') {
      let body = '';
      for await (const c of req) body += c;
      ok = new URLSearchParams(body).get('token') === token;
    } else {
      ok = loginCodes.delete(url.searchParams.get('code'));
    }
    if (!ok) return err(res, 401, 'unauthorized', 'That login link or token is not valid.');
    const sid = randomBytes(32).toString('hex');
    sessions.add(sid);
    res.writeHead(303, { Location: '/', 'Set-Cookie': `bb_session=${sid}; HttpOnly; SameSite=Strict; Path=/` });
    return res.end();
  }
  if (path === '/logout' && req.method === 'POST') {
    if (cookie) sessions.delete(cookie[1]);
    res.writeHead(204, { 'Set-Cookie': 'bb_session=; Max-Age=0; Path=/' });
    return res.end();
  }
  if (path === '/api/health') return send(res, 200, { status: 'ok', version: 'mock' });
  if (path.startsWith('/api/')) {
    if (!authed) return err(res, 401, 'unauthorized', 'Log in first.');
    if (path === '/api/status') {
      return send(res, 200, { version: 'mock', browsers: browserList(), calls_in_flight: calls.size, database: { path: ':memory:', pages: pages.length, commands: commands.length, bytes: pages.reduce((n, p) => n + p.bytes, 0) }, http: `${httpHost}:${httpPort}`, ws: `${wsHost}:${wsPort}`, allowed_origins: [EXT_ORIGIN], extension_dir: '/usr/local/share/browser-bridge/extension' });
    }
    if (path === '/api/pairing') return send(res, 200, { token, ws_url: `ws://${wsHost}:${wsPort}/ws/browser`, allowed_origins: [EXT_ORIGIN], extension_id: 'lpjafomjfpchgbopnmlebcocfkelgpgo' });
    if (path === '/api/tools' && req.method === 'GET') return send(res, 200, { tools: toolList });
    if (path === '/api/events') {
      res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-store' });
      res.write(`event: hello\ndata: ${JSON.stringify({ version: 'mock', browsers: browserList(), calls_in_flight: calls.size })}\n\n`);
      subscribers.add(res);
      const hb = setInterval(() => res.write(': heartbeat\n\n'), 15000);
      req.on('close', () => { subscribers.delete(res); clearInterval(hb); });
      return undefined;
    }
    if (path === '/api/history') {
      const q = (url.searchParams.get('q') || '').toLowerCase();
      const u = url.searchParams.get('url') || '';
      const limit = Math.min(500, Number(url.searchParams.get('limit')) || 50);
      const before = Number(url.searchParams.get('before')) || Infinity;
      if (q.includes('"') && (q.split('"').length % 2 === 0)) return err(res, 400, 'bad_query', 'unterminated string');
      const words = q.split(/\s+/).filter(Boolean);
      const hits = pages.filter((p) => p.id < before && p.url.includes(u) && words.every((w) => `${p.title} ${p.markdown}`.toLowerCase().includes(w))).reverse();
      // Like the daemon's FTS5 snippet(): matches wrapped in [ ].
      const mark = (text) => words.reduce((t, w) => t.replace(new RegExp(`(${w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\w*)`, 'ig'), '[$1]'), text);
      const slice = hits.slice(0, limit).map(({ markdown, truncated, ...p }) => ({ ...p, ...(words.length ? { snippet: mark(markdown.slice(Math.max(0, markdown.toLowerCase().indexOf(words[0]) - 40), 160)) } : {}) }));
      return send(res, 200, { pages: slice, next_before: hits.length > limit ? slice[slice.length - 1].id : null });
    }
    const hm = /^\/api\/history\/(\d+)$/.exec(path);
    if (hm) {
      const p = pages.find((x) => x.id === Number(hm[1]));
      if (!p) return err(res, 404, 'not_found', 'No such page.');
      if ((req.headers.accept || '').includes('text/markdown')) return send(res, 200, p.markdown);
      return send(res, 200, p);
    }
    if (path === '/api/commands') {
      // Like the daemon: ids (the log order), newest first, `before` and `limit` for paging.
      const before = Number(url.searchParams.get('before')) || Infinity;
      const limit = Math.min(Number(url.searchParams.get('limit')) || 50, 500);
      const logged = commands.map((c, i) => ({ id: i + 1, ...c })).filter((c) => c.id < before);
      return send(res, 200, { commands: logged.slice(-limit).reverse() });
    }
    const tm = /^\/api\/tools\/([A-Za-z0-9_]+)$/.exec(path);
    if (tm && req.method === 'POST') {
      if (!(req.headers['content-type'] || '').startsWith('application/json')) return err(res, 415, 'unsupported_media_type', 'Send JSON.');
      let body = '';
      for await (const chunk of req) body += chunk;
      let params;
      try { params = JSON.parse(body || '{}'); } catch { return err(res, 400, 'bad_json', 'Body is not JSON.'); }
      const tool = TOOLS.find((t) => t[0] === tm[1]);
      if (!tool) return err(res, 404, 'unknown_tool', 'Unknown tool.', { tools: TOOLS.map((t) => t[0]) });
      for (const r of tool[4]) if (params[r] === undefined) return err(res, 400, 'bad_parameter', `Missing ${r}.`, { field: r, expected: 'string' });
      const list = browserList();
      const clientId = params.client_id || list[0]?.client_id;
      const b = browsers.get(clientId);
      if (!b) return err(res, 503, 'no_browser', 'No browser is connected.');
      const requestId = randomUUID();
      const { client_id, tab_id, wait_for_page_info = true, timeout_ms = 30000, ...own } = params;
      const startedAt = now();
      const t0 = Date.now();
      publish('call_start', { request_id: requestId, tool: tool[0], params, client_id: clientId, started_at: startedAt });
      const answer = await new Promise((resolveCall) => {
        const call = { clientId, waitPage: wait_for_page_info, result: null, page: null, done: resolveCall };
        calls.set(requestId, call);
        call.timer = setTimeout(() => resolveCall({ timeout: true }), timeout_ms);
        b.ws.send(JSON.stringify({ type: 'command', data: { requestId, command: tool[1], ...(tab_id !== undefined ? { tabId: tab_id } : {}), wait_for_page_info, ...own } }));
      });
      const call = calls.get(requestId);
      calls.delete(requestId);
      clearTimeout(call.timer);
      let httpStatus = 200;
      let out;
      if (answer.gone) { httpStatus = 503; out = { status: 'error', error: 'browser_disconnected', message: 'The browser disconnected.' }; }
      else if (answer.timeout) { httpStatus = 504; out = { status: call.result ? 'partial_success' : 'error', waiting_for: call.result ? 'page' : 'result', result: call.result }; }
      else {
        const page = call.page ? { url: call.page.url, title: call.page.title, markdown: call.page.markdown, tab_id: call.page.tab_id, history_id: call.page.id, captured_at: call.page.captured_at } : undefined;
        out = { status: call.result.status, tool: tool[0], request_id: requestId, summary: `${call.result.message || call.result.error || tool[0]}${page ? `; the page is now at ${page.url}, titled ${JSON.stringify(page.title)}.` : ''}`, result: call.result, page };
      }
      const duration = Date.now() - t0;
      commands.push({ request_id: requestId, tool: tool[0], params, client_id: clientId, started_at: startedAt, status: out.status, http_status: httpStatus, summary: out.summary, duration_ms: duration, history_id: call.page?.id });
      publish('call_end', { request_id: requestId, tool: tool[0], status: out.status, http_status: httpStatus, summary: out.summary || out.message || '', duration_ms: duration, ...(call.page ? { history_id: call.page.id } : {}) });
      return send(res, httpStatus, out);
    }
    return err(res, 404, 'not_found', 'No such API.');
  }
  // static
  let file = join(wwwDir, path === '/' ? 'index.html' : path);
  if (!file.startsWith(wwwDir) || !existsSync(file) || statSync(file).isDirectory()) return send(res, 404, 'not found');
  const types = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8', '.svg': 'image/svg+xml', '.png': 'image/png' };
  res.writeHead(200, { 'Content-Type': types[extname(file)] || 'application/octet-stream', 'Content-Security-Policy': CSP, 'X-Content-Type-Options': 'nosniff', 'Referrer-Policy': 'no-referrer', 'Cache-Control': 'no-cache' });
  res.end(readFileSync(file));
});

const wss = new WebSocketServer({ noServer: true });
const wsServer = http.createServer((req, res) => send(res, 404, 'not found'));
wsServer.on('upgrade', (req, socket, head) => {
  if (new URL(req.url, 'http://x').pathname !== '/ws/browser' || req.headers.origin !== EXT_ORIGIN) {
    socket.end('HTTP/1.1 403 Forbidden\r\n\r\n');
    return;
  }
  wss.handleUpgrade(req, socket, head, (ws) => {
    let id = null;
    ws.on('message', (raw) => {
      let msg;
      try { msg = JSON.parse(raw); } catch { return; }
      const d = msg.data || {};
      if (!id) {
        if (msg.type !== 'hello') return ws.close(4400, 'expected hello');
        if (d.token !== token) return ws.close(4401, 'unauthorized');
        id = d.clientId;
        const { token: _t, ...info } = d;
        browsers.get(id)?.ws.close(4409, 'replaced');
        browsers.set(id, { ws, info, tabs: [], connected_at: now(), last_seen: now() });
        ws.send(JSON.stringify({ type: 'welcome', data: { serverVersion: 'mock', protocolVersion: 1, clientId: id, heartbeatSeconds: 20, maxMessageBytes: 16777216 } }));
        publish('browser', { event: 'connected', ...browserJson(id, browsers.get(id)) });
        return undefined;
      }
      const b = browsers.get(id);
      if (!b || b.ws !== ws) return undefined;
      b.last_seen = now();
      if (msg.type === 'heartbeat') ws.send(JSON.stringify({ type: 'heartbeat_ack', data: { serverTime: now() } }));
      else if (msg.type === 'tabs') {
        b.tabs = d.tabs || [];
        publish('browser', { event: 'tabs', client_id: id, browser: b.info.browser, tabs: b.tabs });
      } else if (msg.type === 'command_result') {
        const call = calls.get(d.requestId);
        if (!call) return ws.send(JSON.stringify({ type: 'error', data: { message: 'unknown requestId', inReplyTo: 'command_result', requestId: d.requestId } }));
        call.result = d;
        if (!call.waitPage || call.page) call.done({});
      } else if (msg.type === 'pageInfoUpdate') {
        const p = storePage(id, d);
        const call = d.requestId && calls.get(d.requestId);
        if (call) {
          call.page = p;
          if (call.result) call.done({});
        }
      }
      return undefined;
    });
    ws.on('close', () => {
      if (!id || browsers.get(id)?.ws !== ws) return;
      browsers.delete(id);
      for (const [, c] of calls) if (c.clientId === id) c.done({ gone: true });
      publish('browser', { event: 'disconnected', client_id: id });
    });
  });
});

server.listen(Number(httpPort), httpHost, () => {
  wsServer.listen(Number(wsPort), wsHost, () => {
    console.log(`browser-bridge (mock) serving http://${httpHost}:${httpPort}/ and ws://${wsHost}:${wsPort}/ws/browser`);
    const code = randomBytes(16).toString('hex');
    loginCodes.add(code);
    console.log(`Dashboard: http://${httpHost}:${httpPort}/login?code=${code}`);
    if (argv.includes('--demo')) demo();
  });
});

function demo() {
  const ws = new WebSocket(`ws://${wsHost}:${wsPort}/ws/browser`, { headers: { Origin: EXT_ORIGIN } });
  const tabs = [{ tabId: 101, windowId: 1, url: 'https://example.com/', title: 'Example Domain', active: true }, { tabId: 102, windowId: 1, url: 'https://news.ycombinator.com/', title: 'Hacker News', active: false }];
  ws.on('open', () => ws.send(JSON.stringify({ type: 'hello', data: { clientId: 'demo-chromium-1', token, browser: 'Chromium', browserVersion: '156.0', extensionVersion: '1.0.0', capabilities: ['open_url', 'click', 'type', 'get_page', 'screenshot'] } })));
  ws.on('message', (raw) => {
    const msg = JSON.parse(raw);
    if (msg.type === 'welcome') {
      ws.send(JSON.stringify({ type: 'tabs', data: { tabs } }));
      ws.send(JSON.stringify({ type: 'pageInfoUpdate', data: { tabId: 101, url: 'https://example.com/', title: 'Example Domain', markdown: '# Example Domain\n\nThis domain is for use in illustrative examples.\n\n[More information…](https://www.iana.org/domains/example)' } }));
    }
    if (msg.type !== 'command') return;
    const d = msg.data;
    setTimeout(() => {
      ws.send(JSON.stringify({ type: 'command_result', data: { requestId: d.requestId, status: 'success', message: `Did ${d.command}` } }));
      ws.send(JSON.stringify({ type: 'pageInfoUpdate', data: { requestId: d.requestId, tabId: 101, url: d.url || 'https://example.com/', title: 'Example Domain', markdown: `# Example Domain\n\nYou asked for **${d.command}**.\n\n- item one\n- item two\n\n| a | b |\n|---|---|\n| 1 | 2 |\n` } }));
    }, 800);
  });
}
