// Protocol 2 on /ws/browser (docs/protocol.md): the daemon opens with a challenge, the hello proves
// the token without carrying it, the welcome proves it back; a protocol 1 hello (with the token) is
// refused with 4426, a wrong or missing proof with 4401; a challenge answers one hello only; and a
// peer that has not said hello cannot make the daemon buffer more than a few KiB.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import WebSocket from 'ws';
import { startDaemon, connectPeer, tool, EXT_ORIGIN, nonce, proof, helloFor, welcomeOk } from './support/harness.mjs';

let d;
before(async () => { d = await startDaemon(); });
after(async () => {
  const r = await d.stop();
  assert.equal(r.code, 0, d.log.slice(-2000));
});

const FIELDS = { clientId: 'p2', browser: 'Scripted', browserVersion: '1', extensionVersion: '1', capabilities: ['click'] };

// A raw peer: every message it gets, and how it was closed.
async function rawPeer() {
  const ws = new WebSocket(d.wsUrl, { headers: { Origin: EXT_ORIGIN } });
  const p = { ws, messages: [], closed: null };
  p.closedPromise = new Promise((r) => ws.on('close', (code, reason) => { p.closed = { code, reason: reason.toString() }; r(p.closed); }));
  p.first = new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error('the daemon sent no challenge within 5 s')), 5000);
    ws.once('message', (m) => { clearTimeout(t); resolve(JSON.parse(m.toString())); });
  });
  p.first.catch(() => {}); // awaited by the tests that need it
  ws.on('message', (m) => p.messages.push(JSON.parse(m.toString())));
  await new Promise((resolve, reject) => { ws.on('open', resolve); ws.on('error', reject); });
  p.send = (type, data) => ws.send(JSON.stringify({ type, data }));
  return p;
}

test('the daemon opens with a challenge: 32 random bytes as unpadded base64url, protocol 2, fresh per connection', async () => {
  const a = await rawPeer();
  const b = await rawPeer();
  const ca = await a.first;
  const cb = await b.first;
  for (const c of [ca, cb]) {
    assert.equal(c.type, 'challenge');
    assert.equal(c.data.protocolVersion, 2);
    assert.match(c.data.nonce, /^[A-Za-z0-9_-]{43}$/);
    assert.equal(Buffer.from(c.data.nonce, 'base64url').length, 32);
  }
  assert.notEqual(ca.data.nonce, cb.data.nonce);
  a.ws.close();
  b.ws.close();
});

test('a good hello gets a welcome that proves the token for both nonces; no token crosses the wire', async () => {
  const p = await connectPeer(d, { clientId: 'good' });
  assert.equal(p.welcome.protocolVersion, 2);
  assert.match(p.welcome.proof, /^[A-Za-z0-9_-]{43}$/);
  assert.ok(!JSON.stringify(p.welcome).includes(d.token));
  const r = await tool(d, 'browser_click', { target: 'x', client_id: 'good' });
  assert.equal(r.status, 200);
  p.close();
});

test('a protocol 1 hello (it carries the token) is refused with 4426 naming protocol 2', async () => {
  const p = await rawPeer();
  await p.first;
  p.send('hello', { ...FIELDS, token: d.token });
  const c = await p.closedPromise;
  assert.equal(c.code, 4426);
  assert.match(c.reason, /protocol 2/);
  assert.match(d.log, /protocol 1 hello/);
});

test('a token next to a good proof is refused all the same (4426)', async () => {
  const p = await rawPeer();
  const ch = await p.first;
  p.send('hello', { ...helloFor(ch.data.nonce, d.token, FIELDS), token: d.token });
  assert.equal((await p.closedPromise).code, 4426);
});

test('a wrong, missing or misshapen proof, or a bad client nonce, is refused with 4401', async () => {
  const cases = [
    (s) => ({ ...FIELDS, nonce: nonce() }),                                              // no proof
    (s) => ({ ...FIELDS, nonce: nonce(), proof: 7 }),                                    // not a string
    (s) => helloFor(s, 'not-the-token-at-all', FIELDS),                                  // wrong key
    (s) => { const c = nonce(); return { ...FIELDS, nonce: c, proof: proof(d.token, 'welcome', s, c) }; }, // wrong label
    (s) => { const c = nonce(); return { ...FIELDS, nonce: c, proof: proof(d.token, 'hello', c, s) }; },   // swapped nonces
    (s) => { const c = nonce(); return { ...FIELDS, nonce: c, proof: proof(d.token, 'hello', s, c).slice(0, 42) }; },
    (s) => ({ ...FIELDS, proof: proof(d.token, 'hello', s, '') }),                       // no client nonce
    (s) => ({ ...FIELDS, nonce: 'short', proof: proof(d.token, 'hello', s, 'short') }),  // misshapen nonce
    (s) => ({ ...FIELDS, nonce: s, proof: proof(d.token, 'hello', s, s) }),              // our own nonce echoed
  ];
  for (const [i, make] of cases.entries()) {
    const p = await rawPeer();
    const ch = await p.first;
    p.send('hello', make(ch.data.nonce));
    const c = await p.closedPromise;
    assert.equal(c.code, 4401, `case ${i}: ${c.code} ${c.reason}`);
    assert.ok(!p.messages.some((m) => m.type === 'welcome'), `case ${i}: welcomed`);
  }
});

test('a proof made for another connection\'s challenge is refused (a challenge is used once)', async () => {
  const a = await rawPeer();
  const ca = await a.first;
  const hello = helloFor(ca.data.nonce, d.token, { ...FIELDS, clientId: 'replay' });
  const b = await rawPeer();
  await b.first;
  b.send('hello', hello); // replayed on a connection whose challenge is different
  assert.equal((await b.closedPromise).code, 4401);
  a.send('hello', hello); // where it belongs, it works
  const w = await new Promise((r) => a.ws.on('message', (m) => { const x = JSON.parse(m.toString()); if (x.type === 'welcome') r(x); }));
  assert.ok(welcomeOk(w.data, d.token, ca.data.nonce, hello.nonce));
  a.ws.close();
});

test('after a refused hello nothing else on the connection is accepted, not even a right hello sent with it', async () => {
  const p = await rawPeer();
  const ch = await p.first;
  const good = helloFor(ch.data.nonce, d.token, { ...FIELDS, clientId: 'second-try' });
  // Both in one go: the wrong one first, then the right one right behind it.
  p.send('hello', helloFor(ch.data.nonce, 'wrong-token-wrong-token', { ...FIELDS, clientId: 'second-try' }));
  p.send('hello', good);
  const c = await p.closedPromise;
  assert.equal(c.code, 4401);
  assert.ok(!p.messages.some((m) => m.type === 'welcome'));
  const s = await (await fetch(`${d.base}/api/status`, { headers: { Authorization: `Bearer ${d.token}` } })).json();
  assert.ok(!s.browsers.some((b) => b.client_id === 'second-try'));
});

test('a second hello after the welcome is answered with an error and changes nothing', async () => {
  const p = await connectPeer(d, { clientId: 'twice' });
  p.send('hello', helloFor(p.challenge, d.token, { ...FIELDS, clientId: 'twice-other' }));
  assert.match((await p.next('error')).data.message, /hello was already received/);
  const s = await (await fetch(`${d.base}/api/status`, { headers: { Authorization: `Bearer ${d.token}` } })).json();
  assert.ok(!s.browsers.some((b) => b.client_id === 'twice-other'));
  p.close();
});

test('a message over 8 KiB before hello is closed with 1009 and a reason that says so', async () => {
  const p = await rawPeer();
  await p.first;
  p.send('hello', { ...FIELDS, padding: 'x'.repeat(9 * 1024) });
  const c = await p.closedPromise;
  assert.equal(c.code, 1009);
  assert.match(c.reason, /before hello/);
  // a hello of the largest ordinary size (100 capability names of 60 characters) still fits
  const q = await rawPeer();
  const ch = await q.first;
  const capabilities = Array.from({ length: 100 }, (_, i) => `cap_${String(i).padStart(3, '0')}_`.padEnd(60, 'x'));
  q.send('hello', helloFor(ch.data.nonce, d.token, { ...FIELDS, clientId: 'big-caps', capabilities }));
  await new Promise((r) => q.ws.on('message', (m) => { if (JSON.parse(m.toString()).type === 'welcome') r(); }));
  q.ws.close();
});

// The daemon's resident memory now (VmRSS) and at its peak so far (VmHWM), in KiB.
function memKiB(pid) {
  const st = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return { rss: Number(/VmRSS:\s+(\d+) kB/.exec(st)[1]), peak: Number(/VmHWM:\s+(\d+) kB/.exec(st)[1]) };
}

test('20 unauthenticated WebSockets each sending 4 MiB before hello do not grow the daemon', async () => {
  const before = memKiB(d.proc.pid);
  const big = 'a'.repeat(4 * 1024 * 1024); // a text frame, as a JSON message would be
  const ps = await Promise.all(Array.from({ length: 20 }, () => rawPeer()));
  for (const p of ps) p.ws.send(big); // at once, before any hello
  const closes = await Promise.all(ps.map((p) => p.closedPromise));
  const after = memKiB(d.proc.pid);
  const mib = (k) => Math.round(k / 1024);
  assert.ok(after.rss - before.rss < 40 * 1024, `RSS grew by ${mib(after.rss - before.rss)} MiB (${before.rss} -> ${after.rss} KiB)`);
  assert.ok(after.peak - before.peak < 40 * 1024, `peak RSS grew by ${mib(after.peak - before.peak)} MiB (${before.peak} -> ${after.peak} KiB)`);
  for (const c of closes) assert.equal(c.code, 1009, `${c.code} ${c.reason}`);
  // and it still serves
  const q = await connectPeer(d, { clientId: 'after-flood' });
  q.close();
});
