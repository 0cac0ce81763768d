// One event loop serves every transport: turning on the FastCGI responder adds no thread (it is a
// source on the loop, like the HTTP listener), and a FastCGI request is answered through it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { startDaemon } from './support/harness.mjs';

const threads = (pid) => fs.readdirSync(`/proc/${pid}/task`).length;

// One FastCGI record.
function record(type, id, content = Buffer.alloc(0)) {
  const pad = (8 - (content.length % 8)) % 8;
  const h = Buffer.from([1, type, id >> 8, id & 255, content.length >> 8, content.length & 255, pad, 0]);
  return Buffer.concat([h, content, Buffer.alloc(pad)]);
}

// Name-value pairs with one-byte lengths (enough here).
function pairs(kv) {
  return Buffer.concat(Object.entries(kv).map(([k, v]) => Buffer.concat([Buffer.from([k.length, v.length]), Buffer.from(k), Buffer.from(v)])));
}

test('FastCGI runs on the one event loop: no thread of its own', { timeout: 20000 }, async () => {
  const plain = await startDaemon();
  const base = threads(plain.proc.pid);
  await plain.stop();
  const sock = path.join(fs.mkdtempSync('/tmp/bb-oneloop-'), 'fcgi.sock');
  const d = await startDaemon({ args: ['--fastcgi', `unix:${sock}`] });
  try {
    assert.equal(threads(d.proc.pid), base, 'the FastCGI responder has a thread of its own');
    const c = net.connect(sock);
    let got = Buffer.alloc(0);
    const ended = new Promise((resolve, reject) => {
      c.on('data', (b) => { got = Buffer.concat([got, b]); if (got.includes(Buffer.from([1, 3, 0, 1]))) resolve(); });
      c.on('error', reject);
    });
    c.write(Buffer.concat([
      record(1, 1, Buffer.from([0, 1, 0, 0, 0, 0, 0, 0])),
      record(4, 1, pairs({ REQUEST_METHOD: 'GET', REQUEST_URI: '/api/health', HTTP_HOST: '127.0.0.1' })),
      record(4, 1), record(5, 1),
    ]));
    await ended;
    c.destroy();
    assert.match(got.toString('latin1'), /Status: 200/);
    assert.equal(threads(d.proc.pid), base);
  } finally {
    const ex = await d.stop();
    assert.equal(ex.code, 0, d.log);
  }
});

// Static dashboard files are read on the store's reader threads, not on the loop: a file whose
// open blocks (a FIFO nobody writes) holds one reader, while the loop keeps answering.
test('a static file that blocks does not block the loop', { timeout: 20000 }, async () => {
  const www = fs.mkdtempSync('/tmp/bb-oneloop-www-');
  fs.writeFileSync(path.join(www, 'index.html'), '<!doctype html>');
  const fifo = path.join(www, 'slow.js');
  const { execFileSync } = await import('node:child_process');
  execFileSync('mkfifo', [fifo]);
  const d = await startDaemon({ args: ['--www', www] });
  try {
    const slow = fetch(`${d.base}/slow.js`).then((r) => r.status);
    // Poll the health endpoint until the slow request has surely reached a reader (its open is
    // blocked there); each answer proves the loop is free. The old code hung here.
    for (let i = 0; i < 5; i++) {
      const ctl = AbortSignal.timeout(3000);
      const r = await fetch(`${d.base}/api/health`, { signal: ctl });
      assert.equal(r.status, 200);
    }
    // Release the reader: open the FIFO's write end and close it (the file is not regular: 404).
    const fd = fs.openSync(fifo, fs.constants.O_WRONLY);
    fs.closeSync(fd);
    assert.equal(await slow, 404);
    assert.equal((await fetch(`${d.base}/`)).status, 200);
  } finally {
    // Whatever happened, let a blocked open finish (O_RDWR on a FIFO never blocks), then stop.
    try { fs.closeSync(fs.openSync(fifo, fs.constants.O_RDWR)); } catch { /* gone */ }
    const ex = await d.stop();
    assert.equal(ex.code, 0, d.log);
  }
});
