// Lean answers (issue 16) against a scripted browser: snapshot auto/full/none per caller session,
// same document vs navigation (pageInfoUpdate.documentId), history keeping every whole page,
// browser_get_page's selector and paging, and MCP results without the page twice, with the tab list
// in text and the tools' annotations.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { execFile } from 'node:child_process';
import { startDaemon, connectPeer, api, tool, BIN } from './support/harness.mjs';

// The scripted tab: a todo list whose document id changes only on navigation (open_url, reload).
const intro = '# Todos\n\nWhat to buy this week; check what you bought, clear what is done. A long enough intro line.\n';
let todos = [], doc = 'doc-1', docs = 1;
const render = () => intro + '\n' + todos.map((t, i) => `- ${t} [checkbox e${i + 3}]\n`).join('') + `\n${todos.length} items left [button "Clear" e2]`;

describe('lean answers', () => {
  let d, peer;
  before(async () => {
    d = await startDaemon();
    peer = await connectPeer(d, {
      answer: (c, p) => {
        if (c.command === 'open_url' || c.command === 'reload') { doc = `doc-${++docs}`; todos = []; }
        if (c.command === 'type') todos.push(c.text);
        if (c.command === 'click' && c.target === 'Clear') todos = [];
        if (c.command === 'list_tabs') return p.result(c.requestId, 'success', { result: { tabs: [{ tabId: 1, url: 'http://x/todo', title: 'Todos "now"\nfake line', active: true }, { tabId: 2, url: 'http://x/b', title: 'B', active: false }] } });
        const extra = {};
        if (c.command === 'get_page' && c.selector) extra.result = { selection: { selector: c.selector, markdown: todos.map((t, i) => `- ${t} [checkbox e${i + 3}]`).join('\n'), truncated: false } };
        p.result(c.requestId, 'success', extra);
        if (c.wait_for_page_info !== false) p.page(c.requestId, render(), { url: 'http://x/todo', title: 'Todos', documentId: doc });
      },
    });
  });
  after(async () => { peer?.close(); await d?.stop(); });

  const call = async (name, params = {}, session) => {
    const r = await tool(d, `${name}`, params, session ? { headers: { 'X-Browser-Bridge-Session': session } } : {});
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.status, 'success', JSON.stringify(r.body));
    return r.body;
  };

  test('auto: the whole page first, then only what changed on the same document; a navigation is whole again', async () => {
    let r = await call('browser_open_url', { url: 'http://x/todo' }, 'agent-a');
    assert.equal(r.page.markdown, render());
    assert.equal(r.page.changes, undefined);
    r = await call('browser_type', { target: 'New todo', text: 'milk', submit: true }, 'agent-a');
    assert.equal(r.page.markdown, undefined, 'no whole page on the same document');
    assert.equal(r.page.changes, '@@ -4,3 +4,4 @@\n \n+- milk [checkbox e3]\n \n-0 items left [button "Clear" e2]\n+1 items left [button "Clear" e2]\n');
    assert.equal(r.page.url, 'http://x/todo');
    assert.equal(r.page.title, 'Todos');
    assert.ok(r.page.history_id > 0);
    // history keeps the whole page all the same
    const h = await api(d, `/api/history/${r.page.history_id}`, { method: 'GET' });
    assert.equal(h.body.markdown, render());
    r = await call('browser_type', { target: 'New todo', text: 'eggs', submit: true }, 'agent-a');
    assert.match(r.page.changes, /^@@ -5,3 \+5,4 @@\n - milk \[checkbox e3\]\n\+- eggs \[checkbox e4\]\n/);
    // another session has received nothing of this tab: the whole page
    r = await call('browser_get_page', {}, 'agent-b');
    assert.equal(r.page.markdown, render());
    // the same page again: an empty diff
    r = await call('browser_click', { target: 'e99' }, 'agent-b');
    assert.equal(r.page.changes, '');
    assert.equal(r.page.markdown, undefined);
    // a reload is a new document: whole
    r = await call('browser_reload', {}, 'agent-a');
    assert.equal(r.page.markdown, render());
    assert.equal(r.page.changes, undefined);
  });

  test('full and none; browser_get_page is always whole', async () => {
    await call('browser_get_page', {}, 'agent-c');
    let r = await call('browser_type', { target: 'New todo', text: 'bread', submit: true, snapshot: 'full' }, 'agent-c');
    assert.equal(r.page.markdown, render());
    assert.equal(r.page.changes, undefined);
    r = await call('browser_type', { target: 'New todo', text: 'jam', submit: true, snapshot: 'none' }, 'agent-c');
    assert.equal(r.page.markdown, undefined);
    assert.equal(r.page.changes, undefined);
    assert.equal(r.page.url, 'http://x/todo');
    assert.ok(r.page.history_id > 0);
    // none did not count as received: the changes are from the page with bread, so they add jam
    r = await call('browser_click', { target: 'e99' }, 'agent-c');
    assert.match(r.page.changes, /\n\+- jam \[checkbox e\d+\]\n/);
    r = await call('browser_get_page', { snapshot: 'auto' }, 'agent-c');
    assert.equal(r.page.markdown, render(), 'get_page is whole even with auto');
    const bad = await tool(d, 'browser_click', { target: 'x', snapshot: 'diff' });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.field, 'snapshot');
  });

  test('browser_get_page: selector, offset and max_chars', async () => {
    let r = await call('browser_get_page', { selector: 'ul.todo-list' });
    const part = todos.map((t, i) => `- ${t} [checkbox e${i + 3}]`).join('\n');
    assert.equal(r.page.markdown, part);
    assert.equal(r.result.selection, undefined, 'the selection is the page, not repeated in result');
    const h = await api(d, `/api/history/${r.page.history_id}`, { method: 'GET' });
    assert.equal(h.body.markdown, render(), 'history has the whole page');
    const whole = render();
    r = await call('browser_get_page', { max_chars: 40 });
    assert.equal(r.page.markdown, whole.slice(0, 40));
    assert.equal(r.page.total_chars, whole.length);
    assert.equal(r.page.remaining_chars, whole.length - 40);
    assert.equal(r.page.next_offset, 40);
    r = await call('browser_get_page', { offset: r.page.next_offset, max_chars: 100000 });
    assert.equal(r.page.markdown, whole.slice(40));
    assert.equal(r.page.remaining_chars, 0);
    assert.equal(r.page.next_offset, null);
    r = await call('browser_get_page', { selector: 'ul', offset: 2, max_chars: 5 });
    assert.equal(r.page.markdown, part.slice(2, 7));
    const bad = await tool(d, 'browser_get_page', { max_chars: 0 });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.field, 'max_chars');
  });

  test('MCP: the page once per result, tabs in text, annotations', async () => {
    const client = new Client({ name: 'lean-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${d.base}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${d.token}` } } }));
    try {
      const { tools } = await client.listTools();
      const ann = Object.fromEntries(tools.map((t) => [t.name, t.annotations]));
      assert.equal(ann.browser_get_page.readOnlyHint, true);
      assert.equal(ann.browser_list_tabs.readOnlyHint, true);
      assert.equal(ann.browser_close_tab.destructiveHint, true);
      assert.equal(ann.browser_close_tab.readOnlyHint, false);
      assert.equal(ann.browser_switch_tab.idempotentHint, true);
      assert.equal(ann.browser_click.readOnlyHint, false);
      assert.equal(ann.browser_scroll.destructiveHint, false);
      const cat = await api(d, '/api/tools', { method: 'GET' });
      assert.deepEqual(cat.body.tools.find((t) => t.name === 'browser_close_tab').annotations, ann.browser_close_tab);

      let r = await client.callTool({ name: 'browser_open_url', arguments: { url: 'http://x/todo' } });
      const whole = render();
      const raw = JSON.stringify(r);
      assert.equal(raw.split('What to buy this week').length - 1, 1, 'the page Markdown once in the result');
      assert.ok(r.content.some((c) => c.type === 'text' && c.text.includes(whole)));
      assert.equal(r.structuredContent.page.markdown, undefined);
      assert.ok(r.structuredContent.page.history_id > 0);
      r = await client.callTool({ name: 'browser_type', arguments: { target: 'New todo', text: 'tea', submit: true } });
      const text = r.content.map((c) => c.text).join('\n');
      assert.match(text, /Changes since the last page of this tab you received/);
      assert.match(text, /\n\+- tea \[checkbox e\d+\]\n/);
      assert.equal(JSON.stringify(r).split('+- tea').length - 1, 1, 'the changes once in the result');
      assert.equal(r.structuredContent.page.changes, undefined);

      r = await client.callTool({ name: 'browser_list_tabs', arguments: {} });
      const tabs = r.content.map((c) => c.text).join('\n');
      assert.match(tabs, /\* tab_id 1: "Todos \\"now\\"\\nfake line" "http:\/\/x\/todo"/);
      assert.match(tabs, /- tab_id 2: "B" "http:\/\/x\/b"/);
    } finally {
      await client.close();
    }
  });

  test('the CLI prints what changed, and the whole page with --snapshot full', async () => {
    const cli = (args) => new Promise((resolve) => execFile(BIN, [...args, '--config', '/dev/null', '--token-file', d.tokenFile, '--http', `127.0.0.1:${d.httpPort}`],
      { encoding: 'utf8', timeout: 30000 }, (err, stdout, stderr) => resolve({ code: err ? err.code : 0, stdout, stderr })));
    let r = await cli(['page']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, render() + '\n');
    r = await cli(['type', 'New todo', 'cocoa', '--submit']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /what changed on the page, as a unified diff/);
    assert.match(r.stdout, /^@@ -\d+,\d+ \+\d+,\d+ @@\n/);
    assert.match(r.stdout, /\n\+- cocoa \[checkbox e\d+\]\n/);
    assert.doesNotMatch(r.stdout, /What to buy this week/);
    r = await cli(['click', 'e99']);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, /the page did not change/);
    r = await cli(['click', 'e99', '--snapshot', 'full']);
    assert.equal(r.stdout, render() + '\n');
    r = await cli(['page', '--max-chars', '10']);
    assert.equal(r.stdout, render().slice(0, 10) + '\n');
    assert.match(r.stderr, new RegExp(`\\(${render().length - 10} more characters: --offset 10\\)`));
  });

  test('a malformed documentId is refused with a clear error; the connection keeps serving', async () => {
    for (const bad of [5, '', 'x'.repeat(65)]) {
      peer.send('pageInfoUpdate', { tabId: 1, url: 'http://x/todo', title: 'Todos', markdown: '# x', documentId: bad });
      const e = await peer.next('error');
      assert.match(e.data.message, /pageInfoUpdate\.documentId: expected a string of 1 to 64 bytes/);
    }
    const r = await call('browser_get_page', {});
    assert.equal(r.page.markdown, render());
  });
});
