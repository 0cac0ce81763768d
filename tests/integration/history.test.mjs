// History as people use it (issue 19): revisits grouped into visits, search ranked by relevance,
// clean snippets, and deleting a capture, a visit, a site or everything before a time -- against
// the real daemon with a scripted browser.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFile } from 'node:child_process';
import { startDaemon, connectPeer, tool, api, sql, BIN, openShell } from './support/harness.mjs';

const INVOICE = { url: 'https://shop.example/invoices/2041', title: 'Invoice 2041', markdown: '# Invoice 2041\n\nInvoice number 2041 [e3], total 120 EUR. Pay this invoice by March: [Pay](https://shop.example/pay/2041) [e4]' };
let homeVisits = 0;
const home = () => {
  homeVisits++;
  return {
    url: 'https://shop.example/',
    title: 'Home',
    markdown: `# Home\n\nWelcome back [e${homeVisits * 10}]. Your latest invoice is ready: [Invoices](https://shop.example/invoices) [e${homeVisits * 10 + 1}], orders, settings, profile and help.`,
  };
};

async function daemonWithShop() {
  const d = await startDaemon();
  const peer = await connectPeer(d, {
    answer: (c, p) => {
      p.result(c.requestId);
      const pg = c.target === 'invoice' ? INVOICE : home();
      p.page(c.requestId, pg.markdown, { url: pg.url, title: pg.title, tabId: 7 });
    },
  });
  // The invoice first, then Home six times: today's newest-first search put the invoice 7th.
  const ids = { invoice: (await tool(d, 'browser_click', { target: 'invoice' })).body.page.history_id, home: [] };
  for (let i = 0; i < 6; i++) ids.home.push((await tool(d, 'browser_click', { target: 'home' })).body.page.history_id);
  assert.ok(ids.invoice > 0 && ids.home.every((id) => id > ids.invoice));
  return { d, peer, ids };
}

const get = (d, p) => api(d, p, { method: 'GET' });

async function indexed(d, n) {
  for (let i = 0; i < 100; i++) {
    if ((await get(d, '/api/history?q=invoice&group=none')).body.pages.length >= n) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`the ${n} pages were not indexed within 5 s`);
}
const del = (d, p) => api(d, p, { method: 'DELETE' });

test('visits by default, single captures with group=none, relevance ranking and clean snippets', async () => {
  const { d, peer, ids } = await daemonWithShop();
  try {
    const v = await get(d, '/api/history');
    assert.equal(v.status, 200);
    assert.equal(v.body.group, 'visits');
    assert.equal(v.body.pages.length, 2, JSON.stringify(v.body));
    const [h, inv] = v.body.pages;
    assert.equal(h.id, ids.home[5]); // the newest capture of the visit
    assert.equal(h.captures, 6);
    assert.equal(h.visit_id, ids.home[0]);
    assert.equal(h.url, 'https://shop.example/');
    assert.equal(h.title, 'Home');
    assert.match(h.first_seen, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.match(h.last_seen, /Z$/);
    assert.ok(h.first_seen <= h.last_seen);
    assert.doesNotMatch(h.snippet, /\[e\d+\]|\]\(http/);
    assert.equal(inv.id, ids.invoice);
    assert.equal(inv.captures, 1);

    const none = await get(d, '/api/history?group=none');
    assert.equal(none.body.group, 'none');
    assert.equal(none.body.pages.length, 7);
    assert.equal(none.body.pages[0].id, ids.home[5]);

    // Pages are indexed for search just after they are acknowledged: wait (bounded) until they are.
    await indexed(d, 7);
    // Relevance (the default when searching): the invoice first, over the Home pages.
    for (const group of ['visits', 'none']) {
      const s = await get(d, `/api/history?q=invoice&group=${group}`);
      assert.equal(s.status, 200);
      assert.equal(s.body.sort, 'relevance');
      assert.equal(s.body.pages[0].id, ids.invoice, `${group}: ${JSON.stringify(s.body.pages.map((p) => p.title))}`);
      assert.equal(s.body.pages.length, group === 'visits' ? 2 : 7);
      for (const p of s.body.pages) {
        assert.match(p.snippet, /\[invoice\]/i);
        assert.doesNotMatch(p.snippet, /\[e\d+\]|\]\(|https?:/, p.snippet);
      }
    }
    const recent = await get(d, '/api/history?q=invoice&sort=recent&group=none');
    assert.equal(recent.body.sort, 'recent');
    assert.equal(recent.body.pages[0].id, ids.home[5]);
    assert.equal(recent.body.pages.at(-1).id, ids.invoice, JSON.stringify(recent.body));

    // Paging: by offset in relevance order, by before otherwise.
    const p1 = await get(d, '/api/history?q=invoice&group=none&limit=4');
    assert.equal(p1.body.next_offset, 4);
    assert.equal(p1.body.next_before, null);
    const p2 = await get(d, '/api/history?q=invoice&group=none&limit=4&offset=4');
    assert.equal(p2.body.pages.length, 3);
    const seen = new Set([...p1.body.pages, ...p2.body.pages].map((p) => p.id));
    assert.equal(seen.size, 7);

    for (const bad of ['group=pages', 'sort=best', 'offset=-1', 'offset=x']) {
      const r = await get(d, `/api/history?${bad}`);
      assert.equal(r.status, 400, bad);
      assert.equal(r.body.error, 'invalid_params');
    }
  } finally {
    peer.close();
    await d.stop();
  }
});

test('deleting a capture, a visit, a site and everything before a time, committed before the answer', async () => {
  const { d, peer, ids } = await daemonWithShop();
  try {
    // What to delete must be said.
    for (const [p, why] of [['/api/history', /url=/], ['/api/history?url=&before=', /url=/],
      ['/api/history?before=yesterday', /before/], ['/api/history?before=2026-11-01T08:00:00%2B02:00', /before/],
      ['/api/history/abc', /positive integer/], [`/api/history/${ids.invoice}?visit=maybe`, /visit/],
      [`/api/history?url=${'a'.repeat(2000)}`, /at most 1024/], ['/api/history?before=2026-13-01', /before/],
      ['/api/history?before=2026-11-01T25:00:00Z', /before/], ['/api/history/0', /positive integer/]]) {
      const r = await del(d, p);
      assert.equal(r.status, 400, p);
      assert.match(r.body.message, why);
    }
    assert.equal((await api(d, `/api/history/${ids.invoice}`, { method: 'DELETE', token: 'wrong' })).status, 401);
    assert.equal(Number(sql(d.db, 'SELECT count(*) AS n FROM captures').match(/\d+/)[0]), 7);

    // One capture: gone from the file by the time the answer comes.
    let r = await del(d, `/api/history/${ids.home[5]}`);
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.body, { success: true, removed: 1 });
    assert.equal(sql(d.db, `SELECT count(*) AS n FROM captures WHERE id = ${ids.home[5]}`), '[{"n":0}]');
    assert.equal((await get(d, `/api/history/${ids.home[5]}`)).status, 404);
    assert.equal((await del(d, `/api/history/${ids.home[5]}`)).status, 404);

    // Its visit: the five other Home captures.
    r = await del(d, `/api/history/${ids.home[2]}?visit=1`);
    assert.deepEqual(r.body, { success: true, removed: 5 });
    assert.equal((await get(d, '/api/history')).body.pages.length, 1);

    // A site by URL prefix: not another site that merely starts alike.
    const extra = await connectPeer(d, {
      clientId: 'peer-2',
      answer: (c, p) => { p.result(c.requestId); p.page(c.requestId, `# ${c.target}`, { url: `https://${c.target}/`, title: c.target }); },
    });
    await tool(d, 'browser_click', { target: 'shop.example.org', client_id: 'peer-2' });
    r = await del(d, `/api/history?url=${encodeURIComponent('https://shop.example/')}`);
    assert.deepEqual(r.body, { success: true, removed: 1 });
    const left = (await get(d, '/api/history?group=none')).body.pages;
    assert.deepEqual(left.map((p) => p.url), ['https://shop.example.org/']);

    // No content row without a capture, and the full-text index agrees with the contents.
    assert.equal(sql(d.db, 'SELECT count(*) AS n FROM contents WHERE id NOT IN (SELECT content_id FROM captures)'), '[{"n":0}]');
    sql(d.db, "INSERT INTO pages_fts(pages_fts) VALUES('integrity-check'); INSERT INTO pages_fts(pages_fts, rank) VALUES('integrity-check', 1);");
    assert.equal((await get(d, '/api/history?q=invoice')).body.pages.length, 0);

    // Everything before a time (here: a minute from now, so all of it).
    const later = new Date(Date.now() + 60000).toISOString();
    r = await del(d, `/api/history?before=${encodeURIComponent(later)}`);
    assert.deepEqual(r.body, { success: true, removed: 1 });
    assert.equal(sql(d.db, 'SELECT count(*) AS n FROM captures'), '[{"n":0}]');
    assert.equal(sql(d.db, 'SELECT count(*) AS n FROM contents'), '[{"n":0}]');
    // A date alone is midnight UTC; nothing is left to delete.
    r = await del(d, '/api/history?before=2020-01-01');
    assert.deepEqual(r.body, { success: true, removed: 0 });
    extra.close();
    // The daemon still serves calls and stores pages afterwards (named browser: the closing one may
    // still be the most recent until the daemon has seen it go).
    const again = await tool(d, 'browser_click', { target: 'invoice', client_id: 'peer-1' });
    assert.equal(again.status, 200);
    assert.equal((await get(d, '/api/history')).body.pages[0].id, again.body.page.history_id);
  } finally {
    peer.close();
    const ex = await d.stop();
    assert.equal(ex.code, 0, d.log);
  }
});


test('a deletion waits for a write lock off the event loop and answers once committed; foreign origins are refused', async () => {
  const { d, peer } = await daemonWithShop();
  const sh = openShell(d.db);
  try {
    assert.equal((await api(d, '/api/history?url=https%3A%2F%2Fshop.example%2F', { method: 'DELETE', headers: { Origin: 'https://evil.example' } })).status, 403);
    await sh.run('BEGIN IMMEDIATE;');
    let answered = null;
    const pending = del(d, `/api/history?url=${encodeURIComponent('https://shop.example/')}`).then((r) => { answered = r; return r; });
    // While the shell holds the write lock the daemon serves on (reads see the rows still there).
    assert.equal((await get(d, '/api/health')).status, 200);
    const during = await get(d, '/api/history?group=none');
    assert.equal(during.body.pages.length, 7);
    assert.equal(answered, null, 'no answer before the deletion could be committed');
    await sh.run('COMMIT;');
    const r = await pending;
    assert.deepEqual(r.body, { success: true, removed: 7 });
    assert.equal(sql(d.db, 'SELECT count(*) AS n FROM captures'), '[{"n":0}]');
  } finally {
    await sh.quit();
    peer.close();
    const ex = await d.stop();
    assert.equal(ex.code, 0, d.log);
  }
});

// The CLI over the daemon's own Unix socket: visits with their capture count in local time, and
// each kind of deletion answered with the count removed.
function cli(d, args, env = {}) {
  return new Promise((resolve) => {
    execFile(BIN, [...args, '--config', '/dev/null', '--api-socket', d.apiSocket],
      { env: { ...process.env, ...env }, encoding: 'utf8' },
      (err, stdout, stderr) => resolve({ code: err ? err.code : 0, stdout, stderr }));
  });
}

test('the CLI lists visits in local time and deletes a capture, a visit, a site and everything before a day', async () => {
  const { d, peer, ids } = await daemonWithShop();
  try {
    await indexed(d, 7);
    // A zone far from UTC, so a UTC time printed as is cannot pass for local time.
    let r = await cli(d, ['history'], { TZ: 'Asia/Kathmandu' });
    assert.equal(r.code, 0, r.stderr);
    const lines = r.stdout.trim().split('\n');
    assert.match(lines[0], /ID\s+LAST SEEN\s+CAPTURES\s+TITLE\s+URL/);
    const rows = lines.filter((l) => /^\s*\d+\s/.test(l)); // each row's snippet follows it, indented
    assert.equal(rows.length, 2, r.stdout); // Home once (6 captures), the invoice once
    const homeRow = rows.find((l) => /Home/.test(l));
    assert.match(homeRow, new RegExp(`^\\s*${ids.home[5]}\\s+\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d\\s+6\\s`));
    const utc = (await get(d, '/api/history')).body.pages[0].last_seen; // e.g. 2026-11-23T07:20:01.123Z
    const kathmandu = new Date(Date.parse(utc) + (5 * 60 + 45) * 60000).toISOString().slice(11, 19);
    assert.ok(homeRow.includes(kathmandu), `${homeRow} does not show ${kathmandu} (UTC ${utc} in Asia/Kathmandu)`);
    r = await cli(d, ['history', 'invoice', '--group', 'captures']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout.split('\n').find((l) => /^\s*\d+\s/.test(l)), /Invoice 2041/, 'the invoice ranks first');
    assert.doesNotMatch(r.stdout, /\[e\d+\]|\]\(https?:/, 'snippets carry no refs or link targets');

    r = await cli(d, ['history', '--delete', String(ids.home[5])]);
    assert.deepEqual([r.code, r.stdout.trim()], [0, 'Deleted 1 page.'], r.stderr);
    r = await cli(d, ['history', '--delete-visit', String(ids.home[0])]);
    assert.deepEqual([r.code, r.stdout.trim()], [0, 'Deleted 5 pages.'], r.stderr);
    r = await cli(d, ['history', '--delete', '999999']);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /404/);
    r = await cli(d, ['history', '--delete', 'x']);
    assert.equal(r.code, 2);
    r = await cli(d, ['history', '--delete-site', 'https://shop.example/invoices/']);
    assert.deepEqual([r.code, r.stdout.trim()], [0, 'Deleted 1 page.'], r.stderr);
    await tool(d, 'browser_click', { target: 'home' });
    const tomorrow = new Date(Date.now() + 86400000).toISOString().slice(0, 10);
    r = await cli(d, ['history', '--delete-before', tomorrow]);
    assert.deepEqual([r.code, r.stdout.trim()], [0, 'Deleted 1 page.'], r.stderr);
    assert.equal(sql(d.db, 'SELECT count(*) AS n FROM captures'), '[{"n":0}]');
  } finally {
    peer.close();
    await d.stop();
  }
});
