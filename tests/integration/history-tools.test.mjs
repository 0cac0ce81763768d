// History for agents (issue 18): browser_history_search and browser_history_get are catalog tools
// the daemon answers from its database -- no browser needed -- over HTTP and MCP (official SDK
// client), with the same results as GET /api/history and GET /api/history/<id>.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startDaemon, connectPeer, tool, api, waitFor } from './support/harness.mjs';

const PAGES = {
  invoice: { url: 'https://shop.example/invoices/2041', title: 'Invoice 2041', markdown: '# Invoice 2041\n\nInvoice number 2041, total 120 EUR.' },
  home: { url: 'https://shop.example/', title: 'Home', markdown: '# Home\n\nWelcome back. Orders, settings and help.' },
  news: { url: 'https://news.example/today', title: 'News', markdown: '# News\n\nNothing about invoices here? One invoice story.' },
};
const get = (d, p) => api(d, p, { method: 'GET' });

test('history tools: same results as GET /api/history over HTTP and MCP, without a browser', async () => {
  const d = await startDaemon();
  let client;
  try {
    const peer = await connectPeer(d, {
      answer: (c, p) => { p.result(c.requestId); const pg = PAGES[c.target]; p.page(c.requestId, pg.markdown, { url: pg.url, title: pg.title, tabId: 3 }); },
    });
    const ids = {};
    for (const k of ['invoice', 'home', 'news']) ids[k] = (await tool(d, 'browser_click', { target: k })).body.page.history_id;
    await waitFor('indexed', async () => (await get(d, '/api/history?q=invoice')).body.pages.length === 2);
    peer.close(); // the history tools need no browser
    await waitFor('browser gone', async () => (await get(d, '/api/status')).body.browsers.length === 0);

    const cat = (await get(d, '/api/tools')).body.tools;
    const st = cat.find((t) => t.name === 'browser_history_search');
    assert.equal(st.answered_by, 'daemon');
    assert.equal(st.command, undefined);
    assert.deepEqual(Object.keys(st.input_schema.properties), ['q', 'url', 'limit'], 'no browser parameters');

    const want = (await get(d, '/api/history?q=invoice&limit=5')).body;
    const h = await tool(d, 'browser_history_search', { q: 'invoice', limit: 5 });
    assert.equal(h.status, 200, h.text);
    assert.equal(h.body.status, 'success');
    assert.deepEqual(h.body.result, want);
    assert.deepEqual(h.body.result.pages.map((p) => p.id).sort(), [ids.invoice, ids.news].sort());
    assert.match(h.body.summary, /^Found 2 pages in the history for "invoice"/);
    assert.ok(h.body.summary.includes(`id ${ids.invoice}: https://shop.example/invoices/2041 "Invoice 2041"`));

    const byUrl = await tool(d, 'browser_history_search', { url: 'shop.example' });
    assert.deepEqual(byUrl.body.result, (await get(d, '/api/history?url=shop.example')).body);
    assert.equal(byUrl.body.result.pages.length, 2);

    const page = await tool(d, 'browser_history_get', { id: ids.home });
    assert.equal(page.status, 200, page.text);
    assert.deepEqual(page.body.result, (await get(d, `/api/history/${ids.home}`)).body);
    assert.equal(page.body.page.markdown, PAGES.home.markdown);
    assert.equal(page.body.page.history_id, ids.home);

    // Bad input: a clear 400 or 404, and the daemon keeps serving.
    assert.equal((await tool(d, 'browser_history_get', { id: 0 })).status, 400);
    assert.equal((await tool(d, 'browser_history_get', {})).body.field, 'id');
    const missing = await tool(d, 'browser_history_get', { id: 999999 });
    assert.equal(missing.status, 404);
    assert.equal(missing.body.error, 'not_found');
    const extra = await tool(d, 'browser_history_search', { q: 'x', client_id: 'peer-1' });
    assert.equal(extra.status, 400);
    assert.match(extra.body.message, /unknown parameter "client_id"/);
    assert.equal((await tool(d, 'browser_history_search', { limit: 501 })).status, 400);
    assert.equal((await tool(d, 'browser_history_search', { q: 'x'.repeat(1025) })).status, 400);
    const odd = await tool(d, 'browser_history_search', { q: '"unbalanced AND (' });
    assert.ok(odd.status === 200 || odd.status === 400, odd.text);

    client = new Client({ name: 'hist-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${d.base}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${d.token}` } },
    }));
    const { tools } = await client.listTools();
    assert.ok(tools.some((t) => t.name === 'browser_history_get'));
    const m = await client.callTool({ name: 'browser_history_search', arguments: { q: 'invoice', limit: 5 } });
    assert.equal(m.isError, false);
    assert.deepEqual(m.structuredContent.result, want);
    assert.ok(m.content[0].text.includes(`id ${ids.news}: https://news.example/today "News"`));
    const mg = await client.callTool({ name: 'browser_history_get', arguments: { id: ids.invoice } });
    assert.equal(mg.isError, false);
    assert.ok(mg.content.some((c) => c.type === 'text' && c.text.includes('# Invoice 2041')));
    const mm = await client.callTool({ name: 'browser_history_get', arguments: { id: 999999 } });
    assert.equal(mm.isError, true);
  } finally {
    await client?.close();
    await d.stop();
  }
});
