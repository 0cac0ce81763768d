// The history store under the faults a laptop sees, driven through the real daemon, the scripted
// browser and the real sqlite3 shell: a write lock held in the shell, a full disk, a read-only file,
// a file deleted while running, a long reader, retention then search, and a slow history read
// running beside calls. The rule under test: a call is "success" only with the history_id of a
// committed row; otherwise it fails with 503 history_unavailable and says why.
import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startDaemon, connectPeer, tool, api, sql, BIN, waitFor, openShell } from './support/harness.mjs';

// Poll a condition (bounded): for states of another process we cannot be told about.


const rows = (db, q) => JSON.parse(sql(db, q) || '[]');
const isRoot = process.getuid && process.getuid() === 0;

// A tmpfs of the given size where the test may mount one (root in a container), else null.
function tryTmpfs(size) {
  if (!isRoot || process.env.BB_TEST_NO_TMPFS) return null;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bb-tmpfs-'));
  try {
    // mode=0700: the daemon's API socket lives beside the database and wants a private directory.
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size},mode=0700`, 'tmpfs', dir], { stdio: 'ignore' });
    return dir;
  } catch {
    fs.rmdirSync(dir);
    return null;
  }
}
const mounted = [];
after(() => {
  for (const m of mounted) {
    try { execFileSync('umount', [m], { stdio: 'ignore' }); fs.rmSync(m, { recursive: true, force: true }); } catch { /* best effort */ }
  }
});

// Every history_id answered as success is a row in the file.
function assertAllStored(db, ids) {
  if (ids.length === 0) return;
  const have = new Set(rows(db, `SELECT id FROM pages WHERE id IN (${ids.join(',')})`).map((r) => r.id));
  for (const id of ids) assert.ok(have.has(id), `history_id ${id} was answered as success but is not in the file`);
}

describe('store faults', () => {
  test('a write lock held in the sqlite3 shell: calls wait, then succeed with a committed id or fail 503 history_unavailable', async () => {
    const d = await startDaemon();
    const peer = await connectPeer(d);
    const sh = openShell(d.db);
    try {
      const first = await tool(d, 'browser_click', { target: 'before' });
      assert.equal(first.status, 200);
      assert.equal(typeof first.body.page.history_id, 'number');
      await sh.run('BEGIN IMMEDIATE;');
      // Past its own timeout the call fails, saying the browser acted and why the page is missing.
      const late = await tool(d, 'browser_click', { target: 'late', timeout_ms: 1500 });
      assert.equal(late.status, 503, late.text);
      assert.equal(late.body.status, 'error');
      assert.equal(late.body.error, 'history_unavailable');
      assert.match(late.body.message, /^Clicked/);
      assert.match(late.body.message, /could not be stored/);
      assert.match(late.body.message, /locked by another process/);
      assert.equal(late.body.page, null);
      // The CLI says the same and exits 1 (a failed request), not 3 (no browser).
      const cli = await new Promise((resolve) => {
        execFile(BIN, ['click', 'viacli', '--timeout', '1500', '--config', '/dev/null', '--token-file', d.tokenFile,
          '--http', `127.0.0.1:${d.httpPort}`], (err, stdout, stderr) => resolve({ code: err ? err.code : 0, stderr }));
      });
      assert.equal(cli.code, 1, cli.stderr);
      assert.match(cli.stderr, /could not be stored in the history.*locked by another process/);
      // A call with time to spare waits for the lock and then gets a committed id.
      const before = peer.commands.length;
      const waiting = tool(d, 'browser_click', { target: 'waiting', timeout_ms: 30000 });
      await waitFor('the browser to answer the waiting call', () => peer.commands.length > before);
      await sh.run('COMMIT;');
      const ok = await waiting;
      assert.equal(ok.status, 200, ok.text);
      assert.equal(ok.body.status, 'success');
      assert.equal(typeof ok.body.page.history_id, 'number');
      assertAllStored(d.db, [first.body.page.history_id, ok.body.page.history_id]);
      // The call log lost nothing either: all four calls are in it (written after the lock).
      await waitFor('the call log rows', () => rows(d.db, 'SELECT count(*) AS n FROM commands')[0].n >= 4);
      const logged = rows(d.db, 'SELECT status, error FROM commands ORDER BY id');
      assert.deepEqual(logged.map((r) => r.status), ['success', 'error', 'error', 'success']);
      assert.equal(logged[1].error, 'history_unavailable');
      assert.equal(logged[2].error, 'history_unavailable');
    } finally {
      await sh.quit();
      peer.close();
      await d.stop();
    }
  });

  test('many calls during a lock: every success is in the file afterwards', async () => {
    const d = await startDaemon();
    const peer = await connectPeer(d);
    const sh = openShell(d.db);
    try {
      await sh.run('BEGIN IMMEDIATE;');
      const calls = [];
      for (let i = 0; i < 20; i++) calls.push(tool(d, 'browser_click', { target: `m${i}`, timeout_ms: i % 2 ? 1500 : 30000 }));
      await waitFor('the browser to answer every call', () => peer.commands.length >= 20);
      // The short ones fail while the lock lasts; then the lock goes.
      await Promise.all(calls.filter((_, i) => i % 2));
      await sh.run('COMMIT;');
      const res = await Promise.all(calls);
      const ids = [];
      for (const [i, r] of res.entries()) {
        if (i % 2) {
          assert.equal(r.status, 503, r.text);
          assert.equal(r.body.error, 'history_unavailable');
        } else {
          assert.equal(r.status, 200, r.text);
          assert.equal(typeof r.body.page.history_id, 'number');
          ids.push(r.body.page.history_id);
        }
      }
      assert.equal(new Set(ids).size, ids.length);
      assertAllStored(d.db, ids);
    } finally {
      await sh.quit();
      peer.close();
      await d.stop();
    }
  });

  test('a full disk: calls fail 503 history_unavailable, the daemon keeps serving and recovers by itself', async () => {
    const tmp = tryTmpfs('4m');
    let dir;
    let env = {};
    let knob = null;
    let filler = null;
    if (tmp) {
      mounted.push(tmp);
      dir = tmp;
    } else {
      // No tmpfs here: cap the database's size with the test knob instead (PRAGMA max_page_count).
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bb-test-'));
      knob = path.join(dir, 'max-pages');
      env = { BB_TEST_MAX_PAGE_COUNT_FILE: knob };
    }
    const d = await startDaemon({ dir, env });
    const page = (i) => `# Big ${i}\n\n${String(i).padStart(6, '0')}${'-'.repeat(300000)}`;
    const peer = await connectPeer(d, {
      answer(cmd, p) { p.result(cmd.requestId); p.page(cmd.requestId, page(cmd.target)); },
    });
    try {
      const ok1 = await tool(d, 'browser_click', { target: 'a1' });
      assert.equal(ok1.status, 200, ok1.text);
      const fill = () => {
        if (knob) { fs.writeFileSync(knob, '1\n'); return; }
        filler = path.join(dir, 'filler');
        try { execFileSync('dd', ['if=/dev/zero', `of=${filler}`, 'bs=64k'], { stdio: 'ignore' }); } catch { /* ENOSPC: full */ }
      };
      const unfill = () => { if (knob) fs.unlinkSync(knob); else fs.unlinkSync(filler); };
      fill();
      const failed = [];
      for (let i = 0; i < 3; i++) {
        const r = await tool(d, 'browser_click', { target: `f${i}`, timeout_ms: 1500 });
        assert.equal(r.status, 503, r.text);
        assert.equal(r.body.error, 'history_unavailable');
        assert.match(r.body.message, /disk .*full/);
        failed.push(r);
      }
      // The daemon still serves everything else meanwhile.
      assert.equal((await api(d, '/api/status', { method: 'GET' })).status, 200);
      unfill();
      const ok2 = await tool(d, 'browser_click', { target: 'a2', timeout_ms: 10000 });
      assert.equal(ok2.status, 200, ok2.text);
      const ids = [ok1.body.page.history_id, ok2.body.page.history_id];
      assert.notEqual(ids[0], ids[1]);
      assertAllStored(d.db, ids);
      const stored = rows(d.db, `SELECT id, url FROM pages WHERE id = ${ids[1]}`);
      assert.match(stored[0].url, /a2/);
      assert.equal(rows(d.db, 'PRAGMA integrity_check')[0].integrity_check, 'ok');
      // Logged once for the episode, not once per batch.
      assert.equal(d.log.match(/cannot write to .*full/g)?.length ?? 0, 1, d.log);
      assert.match(d.log, /writing to .* again/);
      if (!knob) {
        // Full again at shutdown, with pages still in the WAL only: the final checkpoint cannot
        // grow the file. That is logged, and the daemon does not claim a clean stop.
        const ok3 = await tool(d, 'browser_click', { target: 'a3' });
        assert.equal(ok3.status, 200, ok3.text);
        fill();
        peer.close();
        const ex = await d.stop();
        assert.match(d.log, /final checkpoint .* failed/);
        assert.doesNotMatch(d.log, /stopped cleanly/);
        assert.notEqual(ex.code, 0);
        unfill();
        assert.equal(rows(d.db, 'PRAGMA integrity_check')[0].integrity_check, 'ok');
        assertAllStored(d.db, [...ids, ok3.body.page.history_id]);
      }
    } finally {
      peer.close();
      await d.stop();
    }
  });

  test('a read-only database is refused at start, saying so', async (t) => {
    const tmp = tryTmpfs('4m');
    if (!tmp && isRoot) { t.skip('root writes to a mode-0444 file, and no tmpfs can be mounted here to make one read-only'); return; }
    const dir = tmp ?? fs.mkdtempSync(path.join(os.tmpdir(), 'bb-test-'));
    if (tmp) mounted.push(tmp);
    const d = await startDaemon({ dir });
    await d.stop();
    if (tmp) execFileSync('mount', ['-o', 'remount,ro', tmp]);
    else fs.chmodSync(d.db, 0o444);
    let started = null;
    const refused = await startDaemon({ dir }).then((d2) => { started = d2; return null; }, (e) => e);
    if (started) await started.stop(); // (a daemon that wrongly starts is stopped, then the test fails)
    assert.ok(refused, 'the daemon started on a read-only database');
    assert.match(refused.message, /read-only/);
    assert.match(refused.message, /\(Read-only file system\)|\(Permission denied\)/);
    if (tmp) execFileSync('mount', ['-o', 'remount,rw', tmp]);
  });

  test('the database file deleted while running: calls fail clearly, no new empty file appears', async () => {
    const d = await startDaemon();
    const peer = await connectPeer(d);
    try {
      const ok = await tool(d, 'browser_click', { target: 'kept' });
      assert.equal(ok.status, 200);
      const h0 = await api(d, '/api/history', { method: 'GET' });
      assert.equal(h0.status, 200);
      fs.unlinkSync(d.db);
      const r = await tool(d, 'browser_click', { target: 'gone', timeout_ms: 1500 });
      assert.equal(r.status, 503, r.text);
      assert.equal(r.body.error, 'history_unavailable');
      assert.match(r.body.message, /deleted or moved/);
      const h = await api(d, '/api/history', { method: 'GET' });
      assert.equal(h.status, 503, h.text);
      assert.equal(h.body.error, 'history_unavailable');
      assert.match(h.body.message, /deleted or moved/);
      assert.equal(fs.existsSync(d.db), false, 'a reader created a new database file');
    } finally {
      peer.close();
      await d.stop();
    }
  });

  test('a long reader in the sqlite3 shell does not slow calls down; it is logged', async () => {
    const d = await startDaemon();
    const peer = await connectPeer(d);
    const sh = openShell(d.db);
    try {
      assert.equal((await tool(d, 'browser_click', { target: 'first' })).status, 200);
      await sh.run('BEGIN; SELECT count(*) FROM pages;');
      // Grow the WAL past the daemon's restart threshold (64 MB) while the reader holds its snapshot:
      // unsolicited pages of ~1 MB, nearly no words (cheap to index), each distinct.
      const big = (i) => `${i} ${'-'.repeat(1 << 20)}`;
      const target = 80;
      for (let i = 0; i < target; i++) {
        peer.send('pageInfoUpdate', { tabId: 1, url: `http://127.0.0.1/big${i}`, title: `big ${i}`, markdown: big(i) });
        if (i % 8 === 7) await waitFor('pages to be stored', async () => (await api(d, '/api/status', { method: 'GET' })).body.database.pages >= i + 2, 60000);
      }
      await waitFor('every big page stored', async () => (await api(d, '/api/status', { method: 'GET' })).body.database.pages >= target + 1, 60000);
      // 50 calls, one after the other, each with its own 2 s timeout: all succeed.
      let ok = 0;
      for (let i = 0; i < 50; i++) {
        const r = await tool(d, 'browser_click', { target: `r${i}`, timeout_ms: 2000 });
        if (r.status === 200 && typeof r.body.page?.history_id === 'number') ok++;
      }
      assert.equal(ok, 50);
      // The reader that keeps the WAL from being copied is named in the log (once).
      for (let i = 0; !/a reader has held the database for \d+ s; the WAL is [\d.]+ MB/.test(d.log); i++) {
        if (i > 600) assert.fail(`no log line about the reader: ${d.log}`);
        peer.send('pageInfoUpdate', { tabId: 1, url: `http://127.0.0.1/more${i}`, title: `more ${i}`, markdown: big(1000 + i) });
        await waitFor('the page to be stored', async () => (await api(d, '/api/status', { method: 'GET' })).body.database.pages >= target + 52 + i, 60000);
      }
      assert.equal(d.log.match(/a reader has held the database/g).length, 1);
      // Once the reader lets go, the WAL starts over and is cut back (journal_size_limit).
      await sh.run('COMMIT;');
      const wal = `${d.db}-wal`;
      assert.ok(fs.statSync(wal).size > 64 * 1024 * 1024);
      const stored = (await api(d, '/api/status', { method: 'GET' })).body.database.pages;
      for (let i = 0; fs.statSync(wal).size > 32 * 1024 * 1024; i++) {
        if (i > 40) assert.fail(`the WAL stayed at ${fs.statSync(wal).size} bytes`);
        peer.send('pageInfoUpdate', { tabId: 1, url: `http://127.0.0.1/after${i}`, title: `after ${i}`, markdown: big(5000 + i) });
        await waitFor('the page to be stored', async () => (await api(d, '/api/status', { method: 'GET' })).body.database.pages >= stored + i + 1, 60000);
      }
    } finally {
      await sh.quit();
      peer.close();
      await d.stop();
    }
  });

  test('retention prunes the newest contents, and a later page is still found by full-text search', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bb-test-'));
    let d = await startDaemon({ dir });
    let peer = await connectPeer(d, { answer(cmd, p) { p.result(cmd.requestId); p.page(cmd.requestId, `# ${cmd.target}\n\n${cmd.target} words`); } });
    for (const t of ['apple', 'banana', 'apple']) assert.equal((await tool(d, 'browser_click', { target: t })).status, 200);
    peer.close();
    await d.stop();
    // Restarted with a limit of one page: the first two captures go, and with them the newest content.
    d = await startDaemon({ dir, args: ['--retention-pages', '1'] });
    peer = await connectPeer(d, { answer(cmd, p) { p.result(cmd.requestId); p.page(cmd.requestId, `# ${cmd.target}\n\n${cmd.target} words`); } });
    try {
      assert.equal(rows(d.db, 'SELECT count(*) AS n FROM contents')[0].n, 1);
      const r = await tool(d, 'browser_click', { target: 'cherry' });
      assert.equal(r.status, 200);
      const found = await waitFor('the search to find the new page', async () => {
        const h = await api(d, '/api/history?q=cherry', { method: 'GET' });
        assert.equal(h.status, 200, h.text);
        return h.body.pages.length === 1 ? h.body.pages : null;
      }, 5000);
      assert.equal(found[0].id, r.body.page.history_id);
      sql(d.db, "INSERT INTO pages_fts(pages_fts) VALUES ('integrity-check')");
    } finally {
      peer.close();
      await d.stop();
    }
  });

  test('a slow history query does not hold up calls: reads run off the event loop', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bb-test-'));
    let d = await startDaemon({ dir });
    await d.stop();
    // 60,000 pages that all share one word, straight into the file with the shell.
    sql(d.db, `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 60000)
      INSERT INTO contents(hash, title, markdown, bytes) SELECT 'h' || i, 'common page ' || i, 'common words w' || (i % 500) || ' and more text ' || i, 40 FROM n;
      INSERT INTO captures(captured_at, client_id, tab_id, request_id, url, content_id, truncated)
        SELECT '2026-01-01T00:00:00.000Z', 'c1', 1, NULL, 'http://127.0.0.1/p' || id, id, 0 FROM contents;
      INSERT INTO pages_fts(rowid, title, markdown) SELECT id, title, markdown FROM contents;
      UPDATE meta SET value = (SELECT max(id) FROM contents) WHERE key = 'fts_upto';`);
    d = await startDaemon({ dir, args: ['--retention-pages', '0', '--retention-days', '0'] });
    const peer = await connectPeer(d);
    try {
      const order = [];
      const heavy = [];
      for (let i = 0; i < 6; i++) {
        heavy.push(api(d, '/api/history?q=common&limit=500', { method: 'GET' }).then((r) => { order.push('history'); return r; }));
      }
      const call = tool(d, 'browser_click', { target: 'quick', wait_for_page_info: false }).then((r) => { order.push('call'); return r; });
      const [c, ...hs] = await Promise.all([call, ...heavy]);
      assert.equal(c.status, 200, c.text);
      for (const h of hs) { assert.equal(h.status, 200); assert.equal(h.body.pages.length, 500); }
      // The call, sent after the queries, is answered before the last of them.
      assert.notEqual(order.at(-1), 'call', `order: ${order.join(', ')}`);
    } finally {
      peer.close();
      await d.stop();
    }
  });
});
