// `kill -9` of `serve --headless` with the real Chromium: the managed browser and every process it
// started (renderers, zygotes, utilities: all run with the profile directory on their command
// line) die with the daemon, so no second Chromium with the token in its profile outlives it.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { startDaemon, realDaemonAvailable, buildExtension, ROOT, CHROMIUM } from './support/harness.mjs';

const cleanups = [];
after(async () => { for (const c of cleanups.reverse()) await c().catch(() => {}); });

// Live (not zombie) processes whose command line mentions dir.
function processesIn(dir) {
  const out = [];
  for (const p of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(p)) continue;
    try {
      const cmd = fs.readFileSync(`/proc/${p}/cmdline`, 'utf8');
      if (!cmd.includes(dir)) continue;
      if (/^State:\s+Z/m.test(fs.readFileSync(`/proc/${p}/status`, 'utf8'))) continue;
      out.push(Number(p));
    } catch { /* gone meanwhile */ }
  }
  return out;
}

test('kill -9 of serve --headless takes its Chromium along', { skip: !realDaemonAvailable() && 'the daemon is not built' }, async () => {
  buildExtension();
  const daemon = await startDaemon({ kind: 'real', extraArgs: ['--headless', '--chromium', CHROMIUM, '--extension', path.join(ROOT, 'extension/dist')] });
  cleanups.push(() => daemon.close());
  const b = await daemon.waitForBrowser(undefined, 30_000);
  const clientId = b.client_id;
  const pid = Number(/headless: started \S+ \(pid (\d+)\)/.exec(daemon.output())[1]);
  const profile = /--user-data-dir=(\S+)/.exec(fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' '))[1];
  const dir = path.dirname(profile);
  cleanups.push(async () => fs.rmSync(dir, { recursive: true, force: true }));
  assert.ok(processesIn(dir).length >= 2, 'Chromium and its helpers run');
  daemon.proc.kill('SIGKILL');
  const deadline = Date.now() + 15_000;
  let left = processesIn(dir);
  while (left.length > 0 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
    left = processesIn(dir);
  }
  for (const p of left) { try { process.kill(p, 'SIGKILL'); } catch { /* gone */ } }
  assert.deepEqual(left, [], 'processes of the managed Chromium outlived the daemon');
  assert.match(clientId, /^headless-[0-9a-f]{8}$/, 'each launch has its own client id');
});
