// The benchmark's own tools still build and measure what bench/run reads from them: the scripted
// browser (fastext), the HTTP client (loadc), the trivial servers (ceil) and the two floors, and
// bench/run is valid shell. Figures are not judged here (benchmarks are not timed tests); a broken
// tool or output format would otherwise be found only by running `make bench`.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startDaemon, freePort, sleep } from './support/harness.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const bin = fs.mkdtempSync(path.join(os.tmpdir(), 'bb-bench-tools-'));
const procs = [];

// Start a tool; resolves once it printed `ready` (servers) or at once.
function run(tool, args, { env = {}, ready = false } = {}) {
  const p = spawn(path.join(bin, tool), args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  procs.push(p);
  p.out = '';
  p.stdout.on('data', (d) => { p.out += d; });
  p.stderr.on('data', (d) => { p.out += d; });
  p.done = new Promise((r) => p.once('exit', (code) => r(code)));
  if (!ready) return Promise.resolve(p);
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`${tool} did not get ready: ${p.out}`)), 5000);
    p.stdout.on('data', () => { if (/ready/.test(p.out)) { clearTimeout(t); resolve(p); } });
  });
}

before(() => {
  for (const t of ['fastext', 'loadc', 'ceil']) {
    execFileSync(process.env.CC || 'cc', ['-O2', '-Wall', '-Werror', '-o', path.join(bin, t), path.join(ROOT, 'bench', `${t}.c`)]);
  }
});
after(() => {
  for (const p of procs) if (p.exitCode === null) p.kill('SIGKILL');
  fs.rmSync(bin, { recursive: true, force: true });
});

test('bench/run is valid shell', () => {
  execFileSync('bash', ['-n', path.join(ROOT, 'bench/run')]);
});

test('bench/actions.mjs (action times vs Playwright) is valid JavaScript', () => {
  execFileSync(process.execPath, ['--check', path.join(ROOT, 'bench/actions.mjs')]);
  execFileSync(process.execPath, ['--check', path.join(ROOT, 'bench/bytes.mjs')]);
  execFileSync(process.execPath, ['--check', path.join(ROOT, 'bench/pageload.mjs')]);
  execFileSync(process.execPath, ['--check', path.join(ROOT, 'bench/daemon-bin.mjs')]);
});

test('the latency floor tools: loadc against the trivial HTTP server, fastext against the trivial driver', async () => {
  const hp = await freePort();
  const http = await run('ceil', ['http', String(hp)], { ready: true });
  const lat = await run('loadc', ['lat', `127.0.0.1:${hp}`, '1'], { env: { TOKEN: 'x' } });
  assert.equal(await lat.done, 0, lat.out);
  const m = lat.out.match(/calls (\d+) p50_us ([\d.]+) p99_us ([\d.]+) mean_us [\d.]+ errors (\d+)/);
  assert.ok(m, lat.out);
  assert.ok(Number(m[1]) > 100 && Number(m[2]) > 0 && Number(m[4]) === 0, lat.out);
  http.kill();

  const wp = await freePort();
  const driver = await run('ceil', ['ws', String(wp), '1', '1'], { ready: true });
  await run('fastext', ['-m', '2000', '-c', `127.0.0.1:${wp}`]);
  assert.equal(await driver.done, 0, driver.out);
  const w = driver.out.match(/answered (\d+) results (\d+) .* ([\d.]+) us CPU per command, ([\d.]+) us mean round trip/);
  assert.ok(w, driver.out);
  assert.ok(Number(w[1]) > 100 && w[1] === w[2] && Number(w[4]) > 0, driver.out);
});

test('the scripted browser and loadc against the real daemon: calls answered, none failed', async () => {
  const d = await startDaemon();
  try {
    const fx = await run('fastext', ['-c', `127.0.0.1:${d.wsPort}`, '-t', d.token]);
    await sleep(300);
    const lat = await run('loadc', ['lat', `127.0.0.1:${d.httpPort}`, '1'], { env: { TOKEN: d.token } });
    assert.equal(await lat.done, 0, lat.out + fx.out);
    const m = lat.out.match(/calls (\d+) p50_us [\d.]+ p99_us [\d.]+ mean_us [\d.]+ errors (\d+)/);
    assert.ok(m, lat.out);
    assert.ok(Number(m[1]) > 10 && Number(m[2]) === 0, lat.out);
    fx.kill();
  } finally {
    const r = await d.stop();
    assert.equal(r.code, 0, d.log.slice(-2000));
  }
});
