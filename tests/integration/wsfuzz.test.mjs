// A browser that sends thousands of seeded random, malformed and hostile messages while tool
// calls run through it: the daemon answers each bad message with an error or takes it, keeps
// the connection and keeps serving, every call ends (answered, or 503/504), and the pages it
// had accepted before are still there. BB_FUZZ_SEED and BB_FUZZ_N vary the run; BB_FUZZ_DEBUG=1
// prints the tail of the daemon log.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startDaemon, connectPeer, api, tool, sleep, rng, FUZZ_SEED } from './support/harness.mjs';

const N = Math.max(100, Number(process.env.BB_FUZZ_N) || 3000);

const NUMBERS = [0, -0, 1, -1, 2 ** 31, 2 ** 53 + 2, -(2 ** 63), 1e308, -1e-308, 0.5, 123456789.125];
const STRINGS = ['', 'x', 'ünïcödé ✓', '\u0000nul', '\ud800 lone', 'a"b\\c\n', '<script>alert(1)</script>',
  'http://127.0.0.1/', 'javascript:alert(1)', '__proto__', 'constructor', '%s%n%x', 'e12', '😀'.repeat(50)];
const KEYS = ['requestId', 'status', 'message', 'error', 'result', 'url', 'title', 'markdown', 'tabId', 'tabs',
  'truncated', 'clientId', 'token', '__proto__', 'x', ''];

function value(r, depth = 0) {
  switch (r.int(depth > 3 ? 4 : 7)) {
    case 0: return null;
    case 1: return r() < 0.5;
    case 2: return r.pick(NUMBERS);
    case 3: return r() < 0.1 ? 'y'.repeat(r.int(20000)) : r.pick(STRINGS);
    case 4: return Array.from({ length: r.int(5) }, () => value(r, depth + 1));
    case 5: return object(r, depth + 1);
    default: return r() * 1e6 - 5e5;
  }
}

function object(r, depth) {
  const o = {};
  for (let i = r.int(6); i > 0; i--) o[r.pick(KEYS)] = value(r, depth + 1);
  return o;
}

// A plausible message with some fields replaced, a random value, or broken JSON text.
function message(r, live) {
  const type = r.pick(['command_result', 'pageInfoUpdate', 'tabs', 'heartbeat', 'hello', 'teleport', '', 7]);
  const base = {
    command_result: { requestId: r.pick(live) ?? 'none', status: r.pick(['success', 'error', 'partial_success', 'maybe']), message: 'm', result: {} },
    pageInfoUpdate: { requestId: r.pick(live) ?? 'none', tabId: 1, url: 'http://127.0.0.1/f', title: r.pick(['F', '']), markdown: r.pick(['# fuzz', '']) },
    tabs: { tabs: [{ tabId: 1, windowId: 1, url: 'http://127.0.0.1/', title: 't', active: true }] },
  }[type] || {};
  const data = { ...base };
  for (let i = r.int(3); i > 0; i--) data[r.pick(KEYS)] = value(r);
  if (r() < 0.2 && data.requestId !== undefined) delete data.requestId;
  const kind = r.int(10);
  if (kind === 0) return JSON.stringify(value(r));
  if (kind === 1) {
    const text = JSON.stringify({ type, data });
    const cut = r.int(text.length);
    return r() < 0.5 ? text.slice(0, cut) : text.slice(0, cut) + String.fromCharCode(r.int(128)) + text.slice(cut + 1);
  }
  if (kind === 2) return JSON.stringify({ type, data: value(r) });
  return JSON.stringify({ type, data });
}

test(`a browser sending ${N} seeded hostile messages (seed ${FUZZ_SEED}) while calls run through it`, { timeout: 120000 }, async () => {
  const d = await startDaemon({ args: ['--max-message-bytes', '65536'] });
  try {
    const r = rng();
    const live = [];
    // The browser answers some commands properly, some with junk, some never.
    const p = await connectPeer(d, {
      clientId: 'fuzzy',
      answer: (cmd, peer) => {
        live.push(cmd.requestId);
        const k = cmd.target === 'kept before' ? 0 : r.int(3);
        if (k === 0) { peer.result(cmd.requestId); peer.page(cmd.requestId, `# Answer for ${cmd.target}`); }
        else if (k === 1) peer.ws.send(message(r, [cmd.requestId]));
      },
    });
    const kept = await tool(d, 'browser_click', { target: 'kept before' });
    assert.equal(kept.status, 200);
    const keptId = kept.body.page.history_id;
    assert.ok(keptId > 0);

    const calls = Array.from({ length: 40 }, (_, i) => tool(d, 'browser_click', { target: `c${i}`, timeout_ms: 4000 }));
    for (let i = 0; i < N; i++) {
      p.ws.send(message(r, live));
      if (i % 200 === 0) await sleep(5); // let replies flow
    }
    const results = await Promise.all(calls);
    for (const c of results) {
      assert.ok([200, 503, 504].includes(c.status), `a call ended with HTTP ${c.status}: ${c.text.slice(0, 200)}`);
      assert.ok(c.body && typeof c.body.status === 'string', c.text.slice(0, 200));
    }
    await sleep(300);
    assert.equal(p.closed, null, `the fuzzing browser was disconnected: ${JSON.stringify(p.closed)}`);
    assert.ok(p.errors.length > N / 10, `only ${p.errors.length} errors for ${N} messages`);
    for (const e of p.errors.slice(0, 200)) assert.equal(typeof e.message, 'string');

    // Still serving: health, a fresh browser, a call, and the page accepted before.
    assert.equal((await api(d, '/api/health', { method: 'GET', token: null })).status, 200);
    const q = await connectPeer(d, { clientId: 'calm' });
    const after = await tool(d, 'browser_click', { target: 'after the storm', client_id: 'calm' });
    assert.equal(after.status, 200, after.text);
    assert.equal(after.body.page.markdown, '# Page for after the storm');
    const page = await api(d, `/api/history/${keptId}`, { method: 'GET' });
    assert.equal(page.status, 200);
    assert.equal(page.body.markdown, '# Answer for kept before');
    q.close();
    p.close();
  } finally {
    if (process.env.BB_FUZZ_DEBUG) console.error(d.log.slice(-6000));
    const res = await d.stop();
    assert.equal(res.code, 0, d.log.slice(-3000));
    assert.doesNotMatch(d.log, /AddressSanitizer|runtime error|LeakSanitizer/, d.log.slice(-3000));
  }
});
