// The command line's finish (issue 19): the runtime file that lets a plain `browser-bridge status`
// find a daemon started with flags; a JSON error object on stdout for every failure with --json;
// "did you mean" for mistyped commands and flags; help texts that say what the flags do; no
// progress output when stderr is piped (a spinner on a terminal); shell completions; `doctor`.
//   BB_BIN=/path/to/browser-bridge node --test tests/integration/cli-extras.test.mjs
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BIN, startDaemon, connectPeer, freePort, waitFor } from './support/harness.mjs';

const cleanup = [];
after(async () => { for (const f of cleanup.reverse()) await f(); });

// A private home: no settings file, no token, its own runtime directory.
function home() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bb-clix-'));
  fs.mkdirSync(path.join(dir, 'run'), { mode: 0o700 });
  cleanup.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  return {
    dir,
    env: { ...process.env, HOME: dir, XDG_CONFIG_HOME: path.join(dir, 'cfg'), XDG_DATA_HOME: path.join(dir, 'data'),
      XDG_RUNTIME_DIR: path.join(dir, 'run') },
  };
}

function cli(args, env) {
  return new Promise((resolve) => {
    execFile(BIN, args, { env, encoding: 'utf8', timeout: 60000 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr });
    });
  });
}

// `serve` in a private home with flags only (no settings file): --http on a random port and an API
// socket outside the default place.
async function serveWithFlags(h) {
  const http = await freePort();
  const ws = await freePort();
  const sock = path.join(h.dir, 'elsewhere.sock');
  const tokenFile = path.join(h.dir, 'elsewhere.token');
  const proc = spawn(BIN, ['serve', '--http', `127.0.0.1:${http}`, '--ws', `127.0.0.1:${ws}`, '--api-socket', sock,
    '--token-file', tokenFile],
    { env: h.env, stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  proc.stderr.on('data', (d) => { log += d; });
  const exited = new Promise((r) => proc.on('exit', (code) => r(code)));
  const runfile = path.join(h.dir, 'run', 'browser-bridge', 'daemon.json');
  const stop = async () => { if (proc.exitCode === null) proc.kill('SIGTERM'); return exited; };
  cleanup.push(stop);
  await waitFor('the daemon\'s socket', () => fs.existsSync(sock) || proc.exitCode !== null);
  await waitFor(`the daemon's runtime file (${log})`, () => fs.existsSync(runfile), 5000);
  return { http, sock, tokenFile, runfile, proc, stop, log: () => log };
}

test('a daemon started with --http and --api-socket is found by a plain `status` through its runtime file', async () => {
  const h = home();
  const d = await serveWithFlags(h);
  const st = fs.statSync(d.runfile);
  assert.equal(st.mode & 0o777, 0o600);
  const info = JSON.parse(fs.readFileSync(d.runfile, 'utf8'));
  assert.equal(info.pid, d.proc.pid);
  assert.equal(info.http_port, d.http);
  assert.equal(info.api_socket, d.sock);
  assert.deepEqual(fs.readdirSync(path.dirname(d.runfile)), ['daemon.json'], 'no temporary file is left behind');
  const r = await cli(['status'], h.env);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, new RegExp(`HTTP http://127\\.0\\.0\\.1:${d.http}`));
  // token and login-url use it too: the running daemon's token, a link to its port.
  const tok = await cli(['token'], h.env);
  assert.equal(tok.code, 0, tok.stderr);
  assert.equal(tok.stdout.trim(), fs.readFileSync(d.tokenFile, 'utf8').trim());
  const link = await cli(['login-url'], h.env);
  assert.equal(link.code, 0, link.stderr);
  assert.match(link.stdout, new RegExp(`^http://127\\.0\\.0\\.1:${d.http}/login\\?code=`));
  assert.equal(await d.stop(), 0, d.log());
  assert.ok(!fs.existsSync(d.runfile), 'a clean stop removes the runtime file');
});

test('a runtime file whose pid is dead is ignored; a live one is used', async () => {
  const h = home();
  const other = await startDaemon(); // the daemon the file points at, with its own runtime dir
  cleanup.push(() => other.stop());
  const dead = spawnSync('true').pid; // a pid that has exited
  const write = (pid) => {
    fs.mkdirSync(path.join(h.dir, 'run', 'browser-bridge'), { recursive: true, mode: 0o700 });
    fs.writeFileSync(path.join(h.dir, 'run', 'browser-bridge', 'daemon.json'),
      JSON.stringify({ pid, http: `127.0.0.1:${other.httpPort}`, api_socket: other.apiSocket, token_file: other.tokenFile }), { mode: 0o600 });
  };
  write(dead);
  let r = await cli(['status', '--http', '127.0.0.1:1', '--json'], h.env); // explicit flags always win
  assert.equal(r.code, 5);
  r = await cli(['status'], h.env);
  assert.equal(r.code, 5, `a stale runtime file must not be used: ${r.stdout}`);
  write(process.pid);
  r = await cli(['status'], h.env);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, new RegExp(`:${other.httpPort}`));
});

test('--json: every failure is a JSON error object on stdout with a non-zero exit', async () => {
  const h = home();
  const cases = [
    [['opne', '--json'], 2, 'unknown_command'],
    [['open', '--json', '--new-tabb', 'https://example.com/'], 2, 'unknown_option'],
    [['open', '--json'], 2, 'bad_argument'],
    [['switch-tab', 'abc', '--json'], 2, 'bad_argument'],
    [['scroll', '--json', '--amount'], 2, 'bad_option'],
    [['history', '--json', '--limit', '0'], 2, 'bad_option'],
    [['completion', 'fish', '--json'], 2, 'bad_argument'],
    [['status', '--json', '--config', '/dev/null', '--api-socket', path.join(h.dir, 'none.sock')], 5, 'daemon_unreachable'],
    [['page', '--json', '--config', '/dev/null', '--http', '127.0.0.1:1', '--token-file', path.join(h.dir, 'no-token')], 5, 'token_unreadable'],
  ];
  for (const [args, code, error] of cases) {
    const r = await cli(args, h.env);
    assert.equal(r.code, code, `${args.join(' ')}: ${r.stderr}`);
    let o;
    assert.doesNotThrow(() => { o = JSON.parse(r.stdout); }, `${args.join(' ')}: stdout is not JSON: ${r.stdout}`);
    assert.equal(o.error, error, args.join(' '));
    assert.equal(typeof o.message, 'string');
    assert.ok(o.message.length > 10 && r.stderr.includes(o.message), `${args.join(' ')}: the same sentence on stderr`);
  }
  // Without --json, stdout stays empty.
  const r = await cli(['opne'], h.env);
  assert.equal(r.stdout, '');
});

test('did you mean: mistyped commands and flags name the closest one', async () => {
  const h = home();
  let r = await cli(['opne'], h.env);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /unknown command "opne"; did you mean open\?/);
  r = await cli(['statsu'], h.env);
  assert.match(r.stderr, /did you mean status\?/);
  r = await cli(['histroy', '--json'], h.env);
  assert.match(JSON.parse(r.stdout).message, /did you mean history\?/);
  r = await cli(['type', 'e1', 'x', '--no-claer'], h.env);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /unknown option "--no-claer"; did you mean --no-clear\?/);
  r = await cli(['history', '--delet-site', 'https://a.example/'], h.env);
  assert.match(r.stderr, /did you mean --delete-site\?/);
  r = await cli(['call', 'opne'], h.env);
  assert.match(r.stderr, /unknown tool "opne"; did you mean browser_open_url\?/);
  r = await cli(['xyzzyplugh'], h.env);
  assert.doesNotMatch(r.stderr, /did you mean/, 'nothing close: no guess');
});

test('help texts: --no-clear says it turns clearing off; switch-tab ID is required; read-only commands list their own exit codes', async () => {
  const h = home();
  const type = (await cli(['type', '--help'], h.env)).stdout;
  const noClear = type.slice(type.indexOf('--no-clear'), type.indexOf('--submit'));
  assert.match(noClear.replace(/\s+/g, ' '), /Turn off --clear, which is on by default/);
  const sw = (await cli(['switch-tab', '--help'], h.env)).stdout;
  assert.match(sw, /^usage: browser-bridge switch-tab ID /m);
  const idLine = sw.slice(sw.indexOf('\n  ID'), sw.indexOf('--client-id')).replace(/\s+/g, ' ');
  assert.match(idLine, /required integer/);
  assert.doesNotMatch(idLine, /Default: the active tab/, 'a required operand has no default');
  for (const cmd of ['status', 'history', 'show', 'tools']) {
    const out = (await cli([cmd, '--help'], h.env)).stdout.replace(/\s+/g, ' ');
    const exit = out.slice(out.indexOf('Exit status:'));
    assert.doesNotMatch(exit, /no browser connected|timeout/, `${cmd}: only its own exit codes: ${exit}`);
  }
  const open = (await cli(['open', '--help'], h.env)).stdout.replace(/\s+/g, ' ');
  assert.match(open, /3 no browser connected; 4 timeout/);
});

test('progress: nothing on a piped stderr while a call waits; a spinner on a terminal', async () => {
  const d = await startDaemon();
  cleanup.push(() => d.stop());
  const peer = await connectPeer(d, { answer: () => {} }); // never answers: the call waits for its timeout
  cleanup.push(() => peer.close());
  const args = ['page', '--timeout', '1500', '--config', '/dev/null', '--api-socket', d.apiSocket];
  const r = await cli(args, process.env);
  assert.equal(r.code, 4, r.stderr);
  assert.doesNotMatch(r.stderr, /\r|waiting for the daemon/, 'piped: no progress output');
  assert.equal(r.stderr.trim().split('\n').length, 1, `piped: only the summary: ${r.stderr}`);
  // On a pseudo-terminal (script(1) gives the command one) the wait shows a spinner.
  const script = spawnSync('script', ['--version']);
  if (script.status !== 0) return;
  const cmd = [BIN, ...args].map((a) => `'${a}'`).join(' ');
  const t = spawnSync('script', ['-qec', cmd, '/dev/null'], { encoding: 'utf8', timeout: 30000 });
  assert.match(t.stdout, /waiting for the daemon \(\d+s\)/, t.stdout);
  assert.match(t.stdout, /\r\x1b\[K/, 'the spinner is erased');
});

test('completion: bash offers the commands and a command\'s flags; zsh is a #compdef script', async () => {
  const h = home();
  const bash = await cli(['completion', 'bash'], h.env);
  assert.equal(bash.code, 0);
  const file = path.join(h.dir, 'bb.bash');
  fs.writeFileSync(file, bash.stdout);
  const complete = (...words) => {
    const w = words.map((x) => `'${x}'`).join(' ');
    const r = spawnSync('bash', ['-c', `source '${file}'; COMP_WORDS=(browser-bridge ${w}); COMP_CWORD=${words.length}; _browser_bridge; printf '%s\\n' "\${COMPREPLY[@]}"`], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    return r.stdout.trim().split('\n').filter(Boolean);
  };
  assert.deepEqual(complete('op'), ['open']);
  const all = complete('');
  for (const c of ['open', 'click', 'status', 'history', 'doctor', 'completion', 'serve', 'wait-for']) assert.ok(all.includes(c), `${c} offered`);
  assert.deepEqual(complete('type', '--no-c'), ['--no-clear']);
  assert.ok(complete('serve', '--he').includes('--headless'));
  assert.ok(complete('call', 'browser_pr').includes('browser_press_key'));
  assert.deepEqual(complete('completion', ''), ['bash', 'zsh']);
  const zsh = await cli(['completion', 'zsh'], h.env);
  assert.equal(zsh.code, 0);
  assert.match(zsh.stdout, /^#compdef browser-bridge\n/);
  assert.match(zsh.stdout, /'open:Open a URL'/);
  if (spawnSync('zsh', ['--version']).status === 0) {
    const zf = path.join(h.dir, '_browser-bridge');
    fs.writeFileSync(zf, zsh.stdout);
    assert.equal(spawnSync('zsh', ['-n', zf]).status, 0);
  }
});

test('doctor without a daemon: FAIL lines with a fix, exit 1, and --json', async () => {
  const h = home();
  const r = await cli(['doctor'], h.env);
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stdout, /^FAIL +token .* -- fix: run browser-bridge token/m);
  assert.match(r.stdout, /^FAIL +(daemon|socket) .* -- fix: start/m);
  assert.match(r.stdout, /^SKIP +browsers/m);
  const j = await cli(['doctor', '--json'], h.env);
  assert.equal(j.code, 1);
  const o = JSON.parse(j.stdout);
  assert.equal(o.ok, false);
  assert.ok(o.checks.some((c) => c.check === 'token' && c.status === 'fail' && c.fix));
  assert.ok(o.checks.every((c) => ['ok', 'fail', 'warn', 'skip'].includes(c.status)));
});

test('doctor with a daemon: the browsers, their versions and site access; exit 0 when all is well', async () => {
  const d = await startDaemon();
  cleanup.push(() => d.stop());
  const version = (await cli(['version'], process.env)).stdout.trim().split(' ')[1];
  const flags = ['--config', '/dev/null', '--api-socket', d.apiSocket, '--token-file', d.tokenFile];
  let r = await cli(['doctor', ...flags], process.env);
  assert.equal(r.code, 1);
  assert.match(r.stdout, new RegExp(`^OK +daemon +browser-bridge ${version.replace(/\./g, '\\.')} at http://127\\.0\\.0\\.1:${d.httpPort}`, 'm'));
  assert.match(r.stdout, /^OK +socket /m);
  assert.match(r.stdout, /^OK +token /m);
  assert.match(r.stdout, /^FAIL +browsers +no browser is connected -- fix: install the extension/m);
  assert.match(r.stdout, /^OK +history .*writable/m);
  const bad = await connectPeer(d, { clientId: 'no-access', hello: { extensionVersion: version, browser: 'Chromium', browserVersion: '1', siteAccess: false } });
  cleanup.push(() => bad.close());
  r = await cli(['doctor', ...flags], process.env);
  assert.match(r.stdout, /^FAIL +browser +Chromium 1, extension .* \(no-access\): no site access -- fix: open the extension's options page/m);
  bad.close();
  await waitFor('the browser to leave', async () => (await (await fetch(`${d.base}/api/status`, { headers: { Authorization: `Bearer ${d.token}` } })).json()).browsers.length === 0);
  const good = await connectPeer(d, { clientId: 'good', hello: { extensionVersion: version, browser: 'Chromium', browserVersion: '1', siteAccess: true } });
  cleanup.push(() => good.close());
  r = await cli(['doctor', ...flags], process.env);
  assert.match(r.stdout, /^OK +browser +Chromium 1, extension .* \(good\): site access on all sites/m);
  assert.doesNotMatch(r.stdout, /^FAIL/m);
  assert.equal(r.code, 0, r.stdout);
});
