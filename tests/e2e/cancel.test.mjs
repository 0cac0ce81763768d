// Cancellation and progress with real Chromium and the real extension (issue 18): a browser_wait_for
// cancelled through MCP (notifications/cancelled, sent by the official SDK client when the request is
// aborted) or by Ctrl-C in the CLI really stops waiting in the browser -- the extension records the
// command as cancelled, and the next call on the same tab (which queues behind it) is served at
// once instead of after the 60 s wait -- and a long wait sends MCP progress notifications.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { setup, daemonKind, daemonBin } from './support/harness.mjs';

const real = daemonKind() === 'real';
process.env.BB_TEST_EVENT_HEARTBEAT_MS = '200'; // the daemon inherits it: progress every 200 ms, not 5 s

let env, client;
before(async () => {
  if (!real) return;
  env = await setup();
  client = new Client({ name: 'e2e-cancel', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${env.daemon.httpUrl}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${env.daemon.token}` } },
  }));
  const r = await env.call('browser_open_url', { url: env.url('/markdown.html') });
  assert.equal(r.status, 'success', JSON.stringify(r));
});
after(async () => { await client?.close(); await env?.close(); });

// The extension's own record of its last command (chrome.storage.session, written by commands.js).
const lastCommand = async () => (await env.browser.serviceWorker.evaluate(() => chrome.storage.session.get('lastCommand'))).lastCommand;

// Poll (bounded) until the extension's last command satisfies pred; returns it.
async function lastWhere(what, pred, timeout = 10_000) {
  const t0 = Date.now();
  for (;;) {
    const c = await lastCommand();
    if (c && pred(c)) return c;
    if (Date.now() - t0 > timeout) throw new Error(`the extension's last command never was ${what}: ${JSON.stringify(c)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const WAIT = { text: 'never on this page', wait_ms: 60_000, timeout_ms: 90_000 };

test('MCP notifications/cancelled stops a browser_wait_for in the browser', { skip: !real && 'needs the real daemon' }, async () => {
  const ac = new AbortController();
  const call = client.callTool({ name: 'browser_wait_for', arguments: { ...WAIT, client_id: env.browser.clientId } }, undefined, { signal: ac.signal, timeout: 120_000 });
  const running = await lastWhere('a running wait_for', (c) => c.command === 'wait_for' && c.status === 'running');
  ac.abort('stop');
  await assert.rejects(call);
  const ended = await lastWhere('the cancelled wait_for', (c) => c.requestId === running.requestId && c.status !== 'running');
  assert.equal(ended.status, 'error');
  assert.match(ended.message, /^cancelled/);
  assert.ok(ended.ms < 30_000, `it stopped after ${ended.ms} ms, not at its 60 s deadline`);
  // The same tab serves the next call at once (it would queue behind a wait still running).
  const r = await env.call('browser_get_page', { timeout_ms: 10_000 });
  assert.equal(r.status, 'success', JSON.stringify(r));
});

test('a long browser_wait_for sends MCP progress notifications, then its result', { skip: !real && 'needs the real daemon' }, async () => {
  const progress = [];
  const r = await client.callTool({ name: 'browser_wait_for', arguments: { text: 'never on this page', wait_ms: 2000, client_id: env.browser.clientId } }, undefined, { onprogress: (p) => progress.push(p) });
  assert.ok(progress.length >= 2, `only ${progress.length} progress notifications`);
  assert.deepEqual(progress.map((p) => p.progress), progress.map((_, i) => i + 1));
  assert.equal(r.isError, true);
  assert.match(r.content[0].text, /timed out after 2000 ms/);
});

test('Ctrl-C in the CLI cancels the wait in the browser', { skip: !real && 'needs the real daemon' }, async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bb-e2e-cli-'));
  const tokenFile = path.join(dir, 'token');
  fs.writeFileSync(tokenFile, env.daemon.token, { mode: 0o600 });
  const port = new URL(env.daemon.httpUrl).port;
  const before = await lastCommand();
  const cli = spawn(daemonBin(), ['wait-for', WAIT.text, '--wait-ms', '60000', '--timeout', '90000', '--client-id', env.browser.clientId,
    '--config', '/dev/null', '--api-socket', 'off', '--token-file', tokenFile, '--http', `127.0.0.1:${port}`], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  cli.stderr.on('data', (x) => { stderr += x; });
  const exited = new Promise((resolve) => cli.on('exit', (code, signal) => resolve({ code, signal })));
  try {
    const running = await lastWhere('the CLI\'s running wait_for', (c) => c.command === 'wait_for' && c.status === 'running' && c.requestId !== before?.requestId);
    cli.kill('SIGINT');
    assert.deepEqual(await exited, { code: 130, signal: null }, stderr);
    assert.match(stderr, /cancelled in the browser too/);
    const ended = await lastWhere('the cancelled wait_for', (c) => c.requestId === running.requestId && c.status !== 'running');
    assert.equal(ended.status, 'error');
    assert.match(ended.message, /^cancelled/);
    const r = await env.call('browser_get_page', { timeout_ms: 10_000 });
    assert.equal(r.status, 'success', JSON.stringify(r));
  } finally {
    cli.kill('SIGKILL');
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

// A call the browser has not answered by its timeout_ms is stopped there too: a wait_for given a
// timeout_ms shorter than its wait_ms kept waiting in the tab, and the next call on it queued
// behind it until that wait ended (8.7 s), after an error that said nothing of it.
test('a call that times out is stopped in the browser, and the next call on the tab is served at once', { skip: !real && 'needs the real daemon' }, async () => {
  const r = await env.call('browser_wait_for', { text: 'never on this page', wait_ms: 60_000, timeout_ms: 1000 });
  assert.equal(r.status, 'error', JSON.stringify(r));
  assert.match(r.message || JSON.stringify(r), /No answer from the browser within 1000 ms while trying to wait for .*; the browser was told to stop/);
  const ended = await lastWhere('the timed-out wait_for stopped', (c) => c.command === 'wait_for' && c.status !== 'running');
  assert.match(ended.message, /^cancelled/);
  assert.ok(ended.ms < 10_000, `it stopped after ${ended.ms} ms, not at its 60 s deadline`);
  const t0 = Date.now();
  const g = await env.call('browser_get_page', { timeout_ms: 10_000 });
  assert.equal(g.status, 'success', JSON.stringify(g));
  assert.ok(Date.now() - t0 < 5000, `the next call took ${Date.now() - t0} ms`);
});
