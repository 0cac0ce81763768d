// Live events (GET /api/events): Server-Sent Events with the current state first, every call as it
// starts and ends, pages, browsers; heartbeats so dead subscribers are dropped; no thread per subscriber.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { startDaemon, connectPeer, tool } from './support/harness.mjs';

// Poll a condition until it holds (bounded): ordering by the event, never by a fixed sleep.
async function until(what, cond, ms = 10000) {
  const t0 = Date.now();
  while (!cond()) {
    if (Date.now() - t0 > ms) throw new Error(`not within ${ms} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

// Read an event stream into an array of {event, data, raw}.
function subscribe(d) {
  const ctl = new AbortController();
  const got = [];
  let raw = '';
  const done = (async () => {
    const r = await fetch(`${d.base}/api/events`, { headers: { Authorization: `Bearer ${d.token}` }, signal: ctl.signal });
    assert.equal(r.headers.get('content-type'), 'text/event-stream');
    const dec = new TextDecoder();
    try {
      for await (const chunk of r.body) {
        raw += dec.decode(chunk, { stream: true });
        let i;
        while ((i = raw.indexOf('\n\n')) >= 0) {
          const block = raw.slice(0, i);
          raw = raw.slice(i + 2);
          const ev = /^event: (.*)$/m.exec(block)?.[1];
          const data = /^data: (.*)$/m.exec(block)?.[1];
          got.push({ event: ev ?? null, data: data ? JSON.parse(data) : null, raw: block });
        }
      }
    } catch { /* aborted */ }
  })();
  return { got, close: () => { ctl.abort(); return done; } };
}

const threads = (pid) => fs.readdirSync(`/proc/${pid}/task`).length;

test('events: state, calls, pages and browsers; heartbeats; no thread per subscriber', { timeout: 40000 }, async () => {
  // The test-only BB_TEST_EVENT_HEARTBEAT_MS shortens the real 5 s between heartbeats.
  const d = await startDaemon({ env: { BB_TEST_EVENT_HEARTBEAT_MS: '200' } });
  const before = threads(d.proc.pid);
  const subs = Array.from({ length: 10 }, () => subscribe(d));
  await until('every subscriber got its hello', () => subs.every((x) => x.got.some((e) => e.event === 'hello')));
  assert.equal(threads(d.proc.pid), before, 'a thread per subscriber');
  const peer = await connectPeer(d, { clientId: 'ev' });
  const r = await tool(d, 'browser_type', { target: 'Password', text: 'secret-typed-text' });
  assert.equal(r.status, 200);
  await until('the call and its page reached the subscribers', () => subs.every((x) => x.got.some((e) => e.event === 'call_end')
    && x.got.some((e) => e.event === 'page')));
  const s = subs[0].got.filter((e) => e.event); // the stream opens with a bare 'retry:' line
  assert.equal(s[0].event, 'hello');
  assert.ok(s.some((e) => e.event === 'browser' && e.data.event === 'connected' && e.data.client_id === 'ev'));
  const start = s.find((e) => e.event === 'call_start');
  assert.equal(start.data.tool, 'browser_type');
  assert.equal(start.data.params.text, '[17 characters, not kept]');
  const end = s.find((e) => e.event === 'call_end');
  assert.equal(end.data.request_id, start.data.request_id);
  assert.equal(end.data.status, 'success');
  assert.ok(end.data.duration_ms >= 0 && end.data.summary);
  assert.ok(s.some((e) => e.event === 'page' && e.data.request_id === start.data.request_id));
  assert.ok(!subs.some((x) => x.got.some((e) => e.raw.includes('secret-typed-text'))));
  // Heartbeats (every 5 s; 200 ms here) keep proxies open and let a dead subscriber be noticed.
  await until('a heartbeat', () => subs.every((x) => x.got.some((e) => e.raw.startsWith(': heartbeat'))));
  await Promise.all(subs.map((x) => x.close()));
  peer.close();
  await until('the thread count is back', () => threads(d.proc.pid) === before, 3000);
  const ex = await d.stop();
  assert.equal(ex.code, 0, d.log);
});
