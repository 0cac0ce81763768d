// Live events (GET /api/events): Server-Sent Events with the current state first, every call as it
// starts and ends, pages, browsers; heartbeats so dead subscribers are dropped; no thread per subscriber.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { startDaemon, connectPeer, tool, sleep } from './support/harness.mjs';

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
  const d = await startDaemon();
  const before = threads(d.proc.pid);
  const subs = Array.from({ length: 10 }, () => subscribe(d));
  await sleep(300);
  assert.equal(threads(d.proc.pid), before, 'a thread per subscriber');
  const peer = await connectPeer(d, { clientId: 'ev' });
  const r = await tool(d, 'browser_type', { target: 'Password', text: 'secret-typed-text' });
  assert.equal(r.status, 200);
  await sleep(300);
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
  // Heartbeats every 15 s keep proxies open and let a dead subscriber be noticed.
  await sleep(16000);
  assert.ok(subs[0].got.some((e) => e.raw.startsWith(': heartbeat')), 'no heartbeat');
  await Promise.all(subs.map((x) => x.close()));
  peer.close();
  await sleep(300);
  assert.equal(threads(d.proc.pid), before);
  const ex = await d.stop();
  assert.equal(ex.code, 0, d.log);
});
