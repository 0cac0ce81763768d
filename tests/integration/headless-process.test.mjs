// `serve --headless` and the process around it (issue 12, "The process"; issue 13, item 16): the
// managed browser dies with the daemon whatever kills it, stale directories (they hold the token)
// and their browsers are cleaned at the next start, each launch has its own client id, the managed
// extension's origin is allowed with --allow-origin too, and running as root is said out loud.
//
// The "Chromium" here is a stand-in that only stays alive (a Node script): what is tested is the
// daemon's handling of the process and its directory, not Chromium. tests/e2e/headless.test.mjs
// runs the real one.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startDaemon, connectPeer, sleep, EXT_ORIGIN, api } from './support/harness.mjs';

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'bb-headless-proc-'));
const fakeChromium = path.join(work, 'chromium');
fs.writeFileSync(fakeChromium, `#!${process.execPath}\nsetInterval(() => {}, 1e6);\n`, { mode: 0o755 });
const extension = path.join(work, 'extension');
fs.mkdirSync(extension);
fs.writeFileSync(path.join(extension, 'manifest.json'), JSON.stringify({ manifest_version: 3, name: 'stand-in', version: '1.0' }));

const daemons = [];
const strays = [];
after(async () => {
  for (const d of daemons) await d.stop('SIGKILL').catch(() => {});
  for (const pid of strays) { try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ } }
  fs.rmSync(work, { recursive: true, force: true });
});

async function headless(tmp, extra = []) {
  const d = await startDaemon({ args: ['--headless', '--chromium', fakeChromium, '--extension', extension, ...extra], env: { TMPDIR: tmp } });
  daemons.push(d);
  const pid = await until(() => Number(/headless: started \S+ \(pid (\d+)\)/.exec(d.log)?.[1]), 'the browser to start');
  return { d, pid };
}

async function until(fn, what, timeout = 10_000) {
  const t0 = Date.now();
  while (Date.now() - t0 < timeout) {
    const v = await fn();
    if (v) return v;
    await sleep(50);
  }
  throw new Error(`timed out waiting for ${what}`);
}

// Alive: exists and is not a zombie waiting for a reaper.
function alive(pid) {
  try { return !/^State:\s+Z/m.test(fs.readFileSync(`/proc/${pid}/status`, 'utf8')); } catch { return false; }
}

const dirsIn = (tmp) => fs.readdirSync(tmp).filter((n) => n.startsWith('browser-bridge-headless-'));

test('kill -9 of serve --headless takes its browser along; the next start removes what it left', async () => {
  const tmp = fs.mkdtempSync(path.join(work, 'tmp-'));
  const { d, pid } = await headless(tmp);
  assert.ok(alive(pid));
  assert.equal(dirsIn(tmp).length, 1);
  d.proc.kill('SIGKILL');
  await d.exited;
  await until(() => !alive(pid), `the browser (pid ${pid}) to die with the daemon`);
  assert.equal(dirsIn(tmp).length, 1, 'kill -9 leaves the directory (nothing can run then)');
  const left = dirsIn(tmp)[0];

  // A browser that outlived an older daemon (started before PR_SET_PDEATHSIG, say): its pidfile in
  // the stale directory lets the next start stop it.
  const staleDir = path.join(tmp, 'browser-bridge-headless-OLDOLD');
  fs.mkdirSync(path.join(staleDir, 'profile'), { recursive: true });
  fs.writeFileSync(path.join(staleDir, 'extension-pairing-token'), 'secret');
  const stray = spawn(fakeChromium, [`--user-data-dir=${staleDir}/profile`], { detached: true, stdio: 'ignore' });
  strays.push(stray.pid);
  fs.writeFileSync(path.join(staleDir, 'chromium.pid'), `${stray.pid}\n`);
  // An unrelated process whose pid sits in a pidfile is never touched (pid reuse).
  const bystander = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1e6)'], { detached: true, stdio: 'ignore' });
  strays.push(bystander.pid);
  const otherDir = path.join(tmp, 'browser-bridge-headless-REUSED');
  fs.mkdirSync(otherDir);
  fs.writeFileSync(path.join(otherDir, 'chromium.pid'), `${bystander.pid}\n`);

  const again = await headless(tmp);
  const now = dirsIn(tmp);
  assert.equal(now.length, 1, `stale directories removed: ${now}`);
  assert.notEqual(now[0], left);
  await until(() => !alive(stray.pid), 'the stray browser to be stopped');
  assert.ok(alive(bystander.pid), 'a process not running in the stale directory is left alone');
  assert.match(again.d.log, /removed the stale directory/);
  await again.d.stop();
  await again.d.exited;
  assert.ok(!alive(again.pid), 'a clean stop stops the browser');
  assert.deepEqual(dirsIn(tmp), [], 'and removes its directory');
});

test('a running daemon\'s directory is not stale; each launch has its own client id', async () => {
  const tmp = fs.mkdtempSync(path.join(work, 'tmp-'));
  const a = await headless(tmp);
  const b = await headless(tmp);
  const dirs = dirsIn(tmp);
  assert.equal(dirs.length, 2, 'the second start left the first one\'s directory alone');
  assert.ok(alive(a.pid) && alive(b.pid));
  const ids = dirs.map((n) => JSON.parse(fs.readFileSync(path.join(tmp, n, 'extension', 'pairing.json'), 'utf8')).clientId);
  for (const id of ids) assert.match(id, /^headless-[0-9a-f]{8}$/);
  assert.notEqual(ids[0], ids[1]);
  await a.d.stop();
  await b.d.stop();
});

test('--headless with --allow-origin still allows the managed extension\'s own origin', async () => {
  const tmp = fs.mkdtempSync(path.join(work, 'tmp-'));
  const { d } = await headless(tmp, ['--allow-origin', 'chrome-extension://aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa']);
  const st = await api(d, '/api/status', { method: 'GET' });
  assert.deepEqual(st.body.allowed_origins.sort(), ['chrome-extension://aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', EXT_ORIGIN].sort());
  const peer = await connectPeer(d, { origin: EXT_ORIGIN, clientId: 'managed' });
  peer.close();
  await d.stop();
});

test('serve --headless as root warns on stderr that Chromium runs without its sandbox', async () => {
  const tmp = fs.mkdtempSync(path.join(work, 'tmp-'));
  const { d } = await headless(tmp);
  const warned = /WARNING: running as root, so the headless Chromium runs with --no-sandbox/.test(d.log);
  assert.equal(warned, process.getuid() === 0, d.log);
  await d.stop();
});
