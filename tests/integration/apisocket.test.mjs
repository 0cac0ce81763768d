// The HTTP API on a Unix socket for the daemon's own user: the CLI and the stdio MCP relay use it
// by default, send no token, and refuse a server of another user; TCP with the token only when
// there is no socket. Whatever listens on the HTTP port meanwhile learns nothing.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { startDaemon, connectPeer, freePort, BIN } from './support/harness.mjs';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bb-sock-'));
const sock = path.join(dir, 'run', 'api.sock');
let d;
let fake; // a stranger on the HTTP port the CLI's config names

// A TCP server that records every byte it is sent and answers like a daemon would.
async function fakeHttp() {
  const got = [];
  const srv = net.createServer((s) => {
    let buf = '';
    s.on('data', (b) => {
      buf += b;
      if (!buf.includes('\r\n\r\n')) return;
      got.push(buf);
      const body = '{"status":"ok","version":"fake","browsers":[],"calls_in_flight":0}';
      s.end(`HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`);
    });
    s.on('error', () => {});
  });
  await new Promise((r) => srv.listen(0, '127.0.0.1', r));
  return { got, port: srv.address().port, close: () => new Promise((r) => srv.close(r)) };
}

function writeConf(name, lines) {
  const f = path.join(dir, name);
  fs.writeFileSync(f, lines.join('\n') + '\n');
  return f;
}

function cli(args, { input, env = {} } = {}) {
  return new Promise((resolve) => {
    const p = execFile(BIN, args, { env: { ...process.env, ...env }, timeout: 30000 }, (err, stdout, stderr) =>
      resolve({ code: err ? err.code : 0, stdout, stderr }));
    if (input !== undefined) p.stdin.end(input);
  });
}

before(async () => {
  fake = await fakeHttp();
  d = await startDaemon({ args: ['--api-socket', sock] });
});
after(async () => {
  await fake.close();
  const r = await d.stop();
  assert.equal(r.code, 0, d.log.slice(-2000));
  assert.ok(!fs.existsSync(sock), 'a clean shutdown removes the socket');
  fs.rmSync(dir, { recursive: true, force: true });
});

test('the daemon listens on the socket: directory 0700, socket 0600', () => {
  assert.ok(fs.lstatSync(sock).isSocket());
  assert.equal(fs.statSync(path.dirname(sock)).mode & 0o777, 0o700);
  assert.equal(fs.lstatSync(sock).mode & 0o777, 0o600);
  assert.match(d.log, /Unix socket/);
});

test('the CLI uses the socket: no token file needed, nothing (no Authorization) goes to the HTTP port', async () => {
  const conf = writeConf('sock.conf', [`http = 127.0.0.1:${fake.port}`, `api_socket = ${sock}`, `token_file = ${dir}/no-such-token`]);
  const peer = await connectPeer(d, { clientId: 'sock-peer' });
  const r = await cli(['status', '--config', conf]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /browser-bridge 1\.0\.0/);
  assert.match(r.stdout, /sock-peer/);
  const p = await cli(['page', '--config', conf, '--client-id', 'sock-peer']);
  assert.equal(p.code, 0, p.stderr);
  assert.match(p.stdout, /Page for get_page/);
  assert.deepEqual(fake.got, [], 'the CLI talked to the HTTP port');
  peer.close();
});

test('the stdio MCP relay uses the socket too', async () => {
  const conf = writeConf('mcp.conf', [`http = 127.0.0.1:${fake.port}`, `api_socket = ${sock}`, `token_file = ${dir}/no-such-token`]);
  const init = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 't', version: '1' } } });
  const list = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
  const r = await cli(['mcp', '--config', conf], { input: `${init}\n${list}\n` });
  assert.equal(r.code, 0, r.stderr);
  const lines = r.stdout.trim().split('\n').map((l) => JSON.parse(l));
  assert.equal(lines[0].id, 1);
  assert.ok(lines[0].result?.serverInfo, r.stdout);
  assert.ok(lines[1].result.tools.some((t) => t.name === 'browser_click'));
  assert.deepEqual(fake.got, []);
});

test('without a socket the CLI falls back to TCP with the token; so does an explicit --http', async () => {
  const token = path.join(dir, 'tcp-token');
  fs.writeFileSync(token, 'tcp-fallback-token-0123456789\n', { mode: 0o600 });
  const conf = writeConf('nosock.conf', [`http = 127.0.0.1:${fake.port}`, `api_socket = ${dir}/run/none.sock`, `token_file = ${token}`]);
  fake.got.length = 0;
  let r = await cli(['status', '--config', conf]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(fake.got.length, 1);
  assert.match(fake.got[0], /\r\nAuthorization: Bearer tcp-fallback-token-0123456789\r\n/);
  const conf2 = writeConf('explicit.conf', [`api_socket = ${sock}`, `token_file = ${token}`]);
  r = await cli(['status', '--config', conf2, '--http', `127.0.0.1:${fake.port}`]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(fake.got.length, 2);
  fake.got.length = 0;
});

test('a socket nobody answers on is not a reason to send the token over TCP', async () => {
  // A daemon killed with SIGKILL leaves its socket file behind.
  const dead = path.join(dir, 'dead', 'api.sock');
  const d1 = await startDaemon({ args: ['--api-socket', dead] });
  d1.proc.kill('SIGKILL');
  await d1.exited;
  assert.ok(fs.lstatSync(dead).isSocket());
  const conf = writeConf('dead.conf', [`http = 127.0.0.1:${fake.port}`, `api_socket = ${dead}`, `token_file = ${dir}/no-such-token`]);
  const r = await cli(['status', '--config', conf]);
  assert.equal(r.code, 5);
  assert.match(r.stderr, /cannot connect to the daemon's socket .*is the daemon running/);
  assert.deepEqual(fake.got, []);
  // A daemon started on that path removes the stale file and serves.
  const d2 = await startDaemon({ args: ['--api-socket', dead] });
  try {
    assert.match(d2.log, /removing the stale API socket/);
    const ok = await cli(['status', '--config', conf]);
    assert.equal(ok.code, 0, ok.stderr);
  } finally {
    assert.equal((await d2.stop()).code, 0);
  }
});

test('a second daemon does not take a live socket: it refuses to start when the socket was asked for', async () => {
  const http = await freePort();
  const ws = await freePort();
  const r = spawnSync(BIN, ['serve', '--config', '/dev/null', '--http', `127.0.0.1:${http}`, '--ws', `127.0.0.1:${ws}`,
    '--db', path.join(dir, 'second.db'), '--token-file', path.join(dir, 'second-token'), '--api-socket', sock], { encoding: 'utf8', timeout: 20000 });
  assert.notEqual(r.status, 0);
  assert.match(r.stderr, /another browser-bridge daemon already serves the API socket/);
  assert.ok(fs.lstatSync(sock).isSocket(), 'the first daemon\'s socket is still there');
  const conf = writeConf('still.conf', [`api_socket = ${sock}`, `token_file = ${dir}/no-such-token`]);
  assert.equal((await cli(['status', '--config', conf])).code, 0);
});

test('api_socket: a relative or too long path is refused with a clear error', async () => {
  for (const bad of ['relative/api.sock', '/' + 'x'.repeat(120)]) {
    const r = spawnSync(BIN, ['serve', '--config', '/dev/null', '--api-socket', bad], { encoding: 'utf8' });
    assert.equal(r.status, 2);
    assert.match(r.stderr, /api_socket: expected an absolute path of at most 107 bytes, or off/);
  }
});

const asRoot = process.getuid?.() === 0 && spawnSync('setpriv', ['--version']).status === 0;
test('a socket served by another user: the CLI refuses it, and the daemon serves only its own user', { skip: !asRoot && 'needs root and setpriv' }, async () => {
  const nd = fs.mkdtempSync(path.join(os.tmpdir(), 'bb-nobody-'));
  const nobody = Number(spawnSync('id', ['-u', 'nobody'], { encoding: 'utf8' }).stdout.trim());
  const nogroup = Number(spawnSync('id', ['-g', 'nobody'], { encoding: 'utf8' }).stdout.trim());
  fs.chmodSync(nd, 0o755);
  fs.chownSync(nd, nobody, nogroup);
  const theirs = path.join(nd, 'run', 'api.sock');
  const http = await freePort();
  const ws = await freePort();
  const proc = spawn('setpriv', ['--reuid=nobody', `--regid=${nogroup}`, '--clear-groups', BIN, 'serve', '--config', '/dev/null',
    '--http', `127.0.0.1:${http}`, '--ws', `127.0.0.1:${ws}`, '--db', path.join(nd, 'h.db'), '--token-file', path.join(nd, 'token'),
    '--api-socket', theirs], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, HOME: nd } });
  let log = '';
  proc.stdout.on('data', (b) => { log += b; });
  proc.stderr.on('data', (b) => { log += b; });
  const exited = new Promise((r) => proc.on('exit', (code) => r(code)));
  try {
    for (let i = 0; !fs.existsSync(theirs); i++) {
      assert.ok(i < 200 && proc.exitCode === null, `the nobody daemon did not start: ${log}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    // The CLI (root) checks who serves the socket before sending anything.
    const conf = writeConf('theirs.conf', [`http = 127.0.0.1:${fake.port}`, `api_socket = ${theirs}`, `token_file = ${dir}/no-such-token`]);
    const r = await cli(['status', '--config', conf]);
    assert.equal(r.code, 5);
    assert.match(r.stderr, new RegExp(`the server on .* runs as uid ${nobody}, not as you \\(uid 0\\).*refusing`));
    assert.deepEqual(fake.got, []);
    // The daemon (nobody) answers a peer of another user (root gets past the 0600 mode) with 403 only.
    const answer = await new Promise((resolve, reject) => {
      // It answers at once, before any request: nothing of ours is read.
      const s = net.connect(theirs);
      let a = '';
      s.on('data', (b) => { a += b; });
      s.on('end', () => resolve(a));
      s.on('error', reject);
    });
    assert.match(answer, /^HTTP\/1\.1 403 /);
    assert.match(answer, /forbidden_user/);
    assert.doesNotMatch(answer, /browsers/);
  } finally {
    proc.kill('SIGTERM');
    assert.equal(await exited, 0, log);
    fs.rmSync(nd, { recursive: true, force: true });
  }
});
