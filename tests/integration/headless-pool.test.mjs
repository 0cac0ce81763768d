// The headless pool (issue 18): `serve --headless N` runs N managed browsers, each with its own
// directory (profile) and client id, lists every one in /api/status, and spreads sessions across
// them -- a session stays on its instance, a new one goes to the least loaded; the default session
// and calls naming a client_id are routed as before. The "Chromium" is a stand-in process here and
// the instances are played by scripted browsers using their client ids; tests/e2e/headless-pool.test.mjs
// runs real Chromiums (separate cookies).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startDaemon, connectPeer, api, tool, waitFor, standIns } from './support/harness.mjs';

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'bb-pool-'));
const { chromium: fakeChromium, extension } = standIns(work);
const daemons = [];
after(async () => { for (const d of daemons) await d.stop().catch(() => {}); fs.rmSync(work, { recursive: true, force: true }); });

const status = async (d) => (await api(d, '/api/status', { method: 'GET' })).body;
const as = (session) => ({ headers: { 'X-Browser-Bridge-Session': session } });

test('serve --headless 2: two instances, listed, sessions spread and sticky', async () => {
  const tmp = fs.mkdtempSync(path.join(work, 'tmp-'));
  const d = await startDaemon({ args: ['--headless', '2', '--chromium', fakeChromium, '--extension', extension], env: { TMPDIR: tmp } });
  daemons.push(d);
  const pids = await waitFor('two browsers', () => { const m = [...d.log.matchAll(/headless: started \S+ \(pid (\d+)\) as client (headless-[0-9a-f]+)/g)]; return m.length === 2 && m; });
  const ids = pids.map((m) => m[2]);
  assert.notEqual(ids[0], ids[1]);
  const dirs = fs.readdirSync(tmp).filter((n) => n.startsWith('browser-bridge-headless-'));
  assert.equal(dirs.length, 2, 'each instance has its own directory (profile)');
  for (const dir of dirs) assert.ok(fs.existsSync(path.join(tmp, dir, 'extension/pairing.json')));
  const pairs = dirs.map((dir) => JSON.parse(fs.readFileSync(path.join(tmp, dir, 'extension/pairing.json'), 'utf8')).clientId).sort();
  assert.deepEqual(pairs, [...ids].sort());

  let s = await status(d);
  assert.deepEqual(s.headless.map((h) => [h.client_id, h.connected]).sort(), ids.map((id) => [id, false]).sort());

  // The instances connect (played by scripted browsers with their client ids), and a desktop browser too.
  const seen = {};
  const answer = (id) => (c, p) => { (seen[id] ??= []).push(c); p.result(c.requestId); if (c.wait_for_page_info) p.page(c.requestId, `# ${id}`); };
  for (const id of ids) await connectPeer(d, { clientId: id, answer: answer(id) });
  await connectPeer(d, { clientId: 'desktop', answer: answer('desktop') });
  s = await status(d);
  assert.ok(s.headless.every((h) => h.connected));

  const a1 = await tool(d, 'browser_get_page', {}, as('agent-a'));
  const b1 = await tool(d, 'browser_get_page', {}, as('agent-b'));
  assert.ok(ids.includes(a1.body.client_id), JSON.stringify(a1.body));
  assert.ok(ids.includes(b1.body.client_id));
  assert.notEqual(a1.body.client_id, b1.body.client_id, 'two sessions, two instances');
  for (let i = 0; i < 3; i++) {
    assert.equal((await tool(d, 'browser_get_page', {}, as('agent-a'))).body.client_id, a1.body.client_id, 'sticky');
    assert.equal((await tool(d, 'browser_get_page', {}, as('agent-b'))).body.client_id, b1.body.client_id, 'sticky');
  }
  s = await status(d);
  assert.deepEqual(s.headless.map((h) => h.sessions), [1, 1]);
  // A third session goes to one of them; a call naming its browser and the default session are routed as before.
  assert.ok(ids.includes((await tool(d, 'browser_get_page', {}, as('agent-c'))).body.client_id));
  assert.equal((await tool(d, 'browser_get_page', { client_id: 'desktop' }, as('agent-a'))).body.client_id, 'desktop');
  assert.equal((await tool(d, 'browser_get_page', {})).body.client_id, 'desktop', 'the default session: the most recently active browser');
});

test('--headless N: N out of range, or not a number, is refused clearly', async () => {
  for (const [args, re] of [[['--headless', '0'], /headless_instances|--headless N/], [['--headless', '9'], /headless_instances|--headless N/], [['--headless-instances', 'x'], /headless.instances/]]) {
    const { spawnSync } = await import('node:child_process');
    const { BIN } = await import('./support/harness.mjs');
    const r = spawnSync(BIN, ['serve', '--config', '/dev/null', ...args, '--chromium', fakeChromium, '--extension', extension, '--http', '127.0.0.1:1', '--ws', '127.0.0.1:2'], { encoding: 'utf8', timeout: 10000 });
    assert.equal(r.status, 2, `${args}: ${r.stderr}`);
    assert.match(r.stderr, re);
  }
});
