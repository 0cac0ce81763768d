// The command line's finish (issue 19) for the commands this session added (hover, drag, upload,
// fill, resize, find, console, network, and the history tools through `call`): a JSON error object
// on stdout with --json on every failure path, client- and daemon-side; "did you mean" for their
// names and flags; --help exits 0 with the exit codes; completions offer them, their flags, the
// words an enum flag takes, and file names where an operand is a path.
//   BB_BIN=/path/to/browser-bridge node --test tests/integration/cli-new-commands.test.mjs
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BIN, startDaemon, waitFor, standIns } from './support/harness.mjs';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bb-clinew-'));
fs.mkdirSync(path.join(dir, 'run'), { mode: 0o700 });
const env = { ...process.env, HOME: dir, XDG_CONFIG_HOME: path.join(dir, 'cfg'), XDG_DATA_HOME: path.join(dir, 'data'),
  XDG_RUNTIME_DIR: path.join(dir, 'run') };
let d;
before(async () => { d = await startDaemon(); });
after(async () => { await d?.stop(); fs.rmSync(dir, { recursive: true, force: true }); });

function cli(args, e = env) {
  return new Promise((resolve) => {
    execFile(BIN, args, { env: e, encoding: 'utf8', timeout: 60000 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr });
    });
  });
}

// One failure with --json: the exit status, a JSON object on stdout naming the error, the same
// sentence on stderr.
async function failsAsJson(args, code, error) {
  const r = await cli([...args, '--json']);
  const what = args.join(' ');
  assert.equal(r.code, code, `${what}: exit ${r.code}: ${r.stderr}`);
  let o;
  assert.doesNotThrow(() => { o = JSON.parse(r.stdout); }, `${what}: stdout is not one JSON object: ${r.stdout}`);
  assert.equal(o.error, error, `${what}: ${r.stdout}`);
  assert.equal(typeof o.message, 'string');
  assert.ok(o.message.length > 10 && r.stderr.includes(o.message), `${what}: the same sentence on stderr: ${r.stderr}`);
  assert.doesNotMatch(r.stderr, /LeakSanitizer|AddressSanitizer|runtime error/, `${what}: ${r.stderr}`);
}

test('--json: the new commands fail with a JSON error object on the command line\'s own failures', async () => {
  const cases = [
    [['hover'], 2, 'bad_argument'],
    [['drag', 'e1'], 2, 'bad_argument'],
    [['upload', 'e1'], 2, 'bad_argument'],
    [['fill'], 2, 'invalid_params'],
    [['fill', '--field', 'no-equals-sign'], 2, 'bad_option'],
    [['resize', '800'], 2, 'bad_argument'],
    [['resize', 'wide', '600'], 2, 'bad_argument'],
    [['resize', '10', '10'], 2, 'invalid_params'],
    [['find'], 2, 'bad_argument'],
    [['console', '--level', 'loud'], 2, 'invalid_params'],
    [['network', '--limit', '0'], 2, 'invalid_params'],
    [['hover', 'e1', '--snapshot', 'some'], 2, 'invalid_params'],
    [['call', 'browser_history_get'], 2, 'invalid_params'],
    [['call', 'browser_history_get', 'id=abc'], 2, 'bad_argument'],
    [['call', 'browser_history_search', 'tab_id=3'], 2, 'invalid_params'],
    [['hovr', 'e1'], 2, 'unknown_command'],
    [['drag', 'a', 'b', '--sourse', 'x'], 2, 'unknown_option'],
    // The settings given on the command line are wrong: named as the flag the user typed.
    [['history', '--delete', '5', '--config', '/dev/null', '--api-socket', 'relative.sock'], 2, 'bad_settings'],
    [['hover', 'e1', '--config', '/dev/null', '--api-socket', 'relative.sock'], 2, 'bad_settings'],
    // No daemon there.
    [['network', '--config', '/dev/null', '--api-socket', path.join(dir, 'none.sock')], 5, 'daemon_unreachable'],
    [['call', 'browser_history_search', 'q=x', '--config', '/dev/null', '--http', '127.0.0.1:1', '--token-file',
      path.join(dir, 'no-token')], 5, 'token_unreadable'],
  ];
  for (const [args, code, error] of cases) await failsAsJson(args, code, error);
  const bad = await cli(['hover', 'e1', '--config', '/dev/null', '--api-socket', 'relative.sock']);
  assert.match(bad.stderr, /--api-socket: expected an absolute path/, 'the flag as typed, not the key api_socket');
});

test('--json: the daemon\'s refusals of the new commands are JSON on stdout with their exit status', async () => {
  const flags = ['--config', '/dev/null', '--api-socket', d.apiSocket];
  const cases = [
    [['hover', 'e1'], 3, 'no_browser'],
    [['drag', 'e1', 'e2'], 3, 'no_browser'],
    [['fill', '--field', 'input[name=q]=x'], 3, 'no_browser'],
    [['resize', '800', '600'], 3, 'no_browser'],
    [['find', 'x'], 3, 'no_browser'],
    [['console'], 3, 'no_browser'],
    [['network'], 3, 'no_browser'],
    [['upload', 'e1', '/etc/hostname'], 2, 'invalid_params'], // no upload_dir configured
    [['call', 'browser_history_get', 'id=999999'], 1, 'not_found'],
    [['history', '--delete', '999999'], 1, 'not_found'],
  ];
  for (const [args, code, error] of cases) await failsAsJson([...args, ...flags], code, error);
  // Answered by the daemon without a browser: success, exit 0.
  const r = await cli(['call', 'browser_history_search', 'q=nothing', '--json', ...flags]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(JSON.parse(r.stdout).status, 'success');
});

test('did you mean: the new commands and their flags', async () => {
  const expect = [
    [['hovr', 'e1'], /unknown command "hovr"; did you mean hover\?/],
    [['dragg', 'a', 'b'], /did you mean drag\?/],
    [['uplod', 'e1', 'f'], /did you mean upload\?/],
    [['resiz', '1', '2'], /did you mean resize\?/],
    [['consol'], /did you mean console\?/],
    [['netwrk'], /did you mean network\?/],
    [['fill', '--feild', 'a=b'], /unknown option "--feild"; did you mean --field\?/],
    [['resize', '800', '600', '--snapshott', 'full'], /did you mean --snapshot\?/],
    [['console', '--levl', 'error'], /did you mean --level\?/],
    [['call', 'browser_hitsory_get'], /unknown tool "browser_hitsory_get"; did you mean browser_history_get\?/],
  ];
  for (const [args, re] of expect) {
    const r = await cli(args);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, re, args.join(' '));
  }
});

test('--help for the new commands exits 0 and lists the exit codes a tool command has', async () => {
  for (const cmd of ['hover', 'drag', 'upload', 'fill', 'resize', 'find', 'console', 'network']) {
    const r = await cli([cmd, '--help']);
    assert.equal(r.code, 0, `${cmd}: ${r.stderr}`);
    assert.match(r.stdout, new RegExp(`^usage: browser-bridge ${cmd}`, 'm'));
    assert.match(r.stdout.replace(/\s+/g, ' '), /Exit status: 0 done; 1 .*; 2 .*; 3 no browser connected; 4 timeout; 5 /, cmd);
    assert.match(r.stdout, /--snapshot MODE/, `${cmd} documents --snapshot`);
  }
  for (const t of ['browser_history_search', 'browser_history_get', 'browser_list_browsers']) {
    const r = await cli(['call', t, '--help']);
    assert.equal(r.code, 0, `${t}: ${r.stderr}`);
    assert.match(r.stdout, new RegExp(`^usage: browser-bridge call ${t}`, 'm'));
  }
});

test('completion: the new commands, their flags, the words of enum flags, file names for paths', async () => {
  const bash = await cli(['completion', 'bash']);
  assert.equal(bash.code, 0);
  const file = path.join(dir, 'bb.bash');
  fs.writeFileSync(file, bash.stdout);
  const complete = (...words) => {
    const w = words.map((x) => `'${x}'`).join(' ');
    const r = spawnSync('bash', ['-c', `source '${file}'; COMP_WORDS=(browser-bridge ${w}); COMP_CWORD=${words.length}; _browser_bridge; printf '%s\\n' "\${COMPREPLY[@]}"`], { encoding: 'utf8', cwd: dir });
    assert.equal(r.status, 0, r.stderr);
    return r.stdout.trim().split('\n').filter(Boolean);
  };
  const all = complete('');
  for (const c of ['hover', 'drag', 'upload', 'fill', 'resize', 'find', 'console', 'network']) assert.ok(all.includes(c), `${c} offered`);
  assert.deepEqual(complete('fill', '--fi'), ['--field']);
  assert.deepEqual(complete('resize', '800', '600', '--snap'), ['--snapshot']);
  assert.ok(complete('screenshot', '--').includes('--only-if-changed'));
  assert.deepEqual(complete('call', 'browser_hi'), ['browser_history_search', 'browser_history_get']);
  // After a flag that takes one of a few words: those words, not the flags.
  assert.deepEqual(complete('hover', 'e1', '--snapshot', ''), ['auto', 'full', 'none']);
  assert.deepEqual(complete('console', '--level', ''), ['debug', 'info', 'warning', 'error']);
  assert.deepEqual(complete('screenshot', 'a.jpg', '--format', 'p'), ['png']);
  assert.deepEqual(complete('history', '--sort', ''), ['relevance', 'recent']);
  assert.deepEqual(complete('serve', '--default-runtime', ''), ['auto', 'desktop', 'headless']);
  assert.deepEqual(complete('help', 'fi'), ['find', 'fill'], 'help COMMAND completes the commands');
  // An operand that is a path: nothing from the script, so bash's default (file names) applies.
  assert.deepEqual(complete('upload', 'e1', ''), []);
  assert.ok(complete('upload', 'e1', '--').includes('--snapshot'), 'flags still offered after --');
  const zsh = await cli(['completion', 'zsh']);
  assert.equal(zsh.code, 0);
  assert.match(zsh.stdout, /'fill:Fill in a form'/);
  assert.match(zsh.stdout, /\$words\[CURRENT-1\] == --snapshot \]\]; then compadd -- auto full none/);
  if (spawnSync('zsh', ['--version']).status === 0) {
    const zf = path.join(dir, '_browser-bridge');
    fs.writeFileSync(zf, zsh.stdout);
    assert.equal(spawnSync('zsh', ['-n', zf]).status, 0);
  }
});

test('tools: the table\'s columns line up for the longest tool names', async () => {
  const r = await cli(['tools']);
  assert.equal(r.code, 0, r.stderr);
  const lines = r.stdout.trimEnd().split('\n');
  const col = lines[0].indexOf('COMMAND');
  assert.ok(col > 0);
  for (const l of lines.slice(1)) {
    assert.match(l.slice(0, col), /^browser_[a-z_]+ +$/, `the COMMAND column starts at ${col}: ${l}`);
    assert.notEqual(l[col], ' ', l);
  }
  assert.ok(lines.some((l) => l.startsWith('browser_network_requests ')));
});

test('`help COMMAND` is `COMMAND --help`; an unknown one exits 2', async () => {
  for (const cmd of ['fill', 'history', 'serve']) {
    const a = await cli(['help', cmd]);
    const b = await cli([cmd, '--help']);
    assert.equal(a.code, 0, `help ${cmd}: ${a.stderr}`);
    assert.equal(a.stdout, b.stdout, `help ${cmd}`);
    assert.match(a.stdout, new RegExp(`^usage: browser-bridge ${cmd}`, 'm'));
  }
  const r = await cli(['help', 'fil']);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /did you mean fill\?/);
});

test('doctor: the headless pool\'s instances and the agent sessions waiting for approval', async () => {
  // Two instances whose Chromium (/bin/false) never starts: neither connects. The extension is a
  // stand-in: the test must not depend on one installed in /usr/local.
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'bb-doctor-'));
  const { extension } = standIns(work);
  const p = await startDaemon({ args: ['--approve-sessions', '--headless', '2', '--chromium', '/bin/false', '--extension', extension] });
  try {
    const flags = ['--config', '/dev/null', '--api-socket', p.apiSocket, '--token-file', p.tokenFile];
    // The daemon answers before it has started its instances (serve.c registers the pool after
    // listening): wait until its status lists them, as the gate under load once did not.
    await waitFor('the pool in /api/status', async () =>
      ((await (await fetch(`${p.base}/api/status`, { headers: { Authorization: `Bearer ${p.token}` } })).json()).headless || []).length === 2);
    let r = await cli(['doctor', ...flags]);
    assert.equal(r.code, 1, r.stdout);
    assert.match(r.stdout, /^FAIL +pool +0 of 2 headless instances connected; not connected: headless-\S+, headless-\S+ -- fix: see the daemon's log/m);
    assert.match(r.stdout, /^OK +sessions +0 active agent sessions; new ones wait for your approval; idle ones end after 1800 s$/m);
    // An agent's first call waits for the user's approval: doctor says so, and what to do.
    const call = fetch(`${p.base}/api/tools/browser_get_page`, { method: 'POST',
      headers: { Authorization: `Bearer ${p.token}`, 'Content-Type': 'application/json', 'X-Browser-Bridge-Session': 'agent-x' },
      body: JSON.stringify({ timeout_ms: 20000 }) });
    const sessions = async () => (await (await fetch(`${p.base}/api/sessions`, { headers: { Authorization: `Bearer ${p.token}` } })).json()).sessions;
    let s;
    await waitFor('the session to wait for approval', async () => (s = (await sessions()).find((x) => x.name === 'agent-x' && x.state === 'pending')));
    r = await cli(['doctor', '--json', ...flags]);
    const o = JSON.parse(r.stdout);
    const sess = o.checks.find((c) => c.check === 'sessions');
    assert.equal(sess.status, 'warn');
    assert.match(sess.detail, /^1 agent session waiting for approval: "agent-x"$/);
    assert.match(sess.fix, /popup or the dashboard/);
    assert.equal(o.checks.find((c) => c.check === 'pool').status, 'fail');
    // Declined: the call ends at once.
    const d2 = await fetch(`${p.base}/api/sessions/${s.id}/decline`, { method: 'POST', headers: { Authorization: `Bearer ${p.token}` } });
    assert.equal(d2.status, 200, await d2.text());
    assert.equal((await call).status, 403);
  } finally { await p.stop(); fs.rmSync(work, { recursive: true, force: true }); }
});

test('--help says what a tool command prints: a diff with --snapshot auto for actions, findings for find/console/network', async () => {
  const flat = async (cmd) => (await cli([cmd, '--help'])).stdout.replace(/\s+/g, ' ');
  for (const cmd of ['click', 'hover', 'fill', 'resize'])
    assert.match(await flat(cmd), /with --snapshot auto \(the default\) only what changed, as a unified diff/, cmd);
  assert.doesNotMatch(await flat('page'), /only what changed/, 'page always prints the whole page');
  for (const cmd of ['find', 'console', 'network'])
    assert.match(await flat(cmd), /on stdout what the tool returns, if anything \(find, console, network: a line per item found/, cmd);
});
