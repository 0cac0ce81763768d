// TodoMVC on real frameworks (issue 14): every app that npm `todomvc` ships in runnable form,
// each served on its own origin (its own loopback port, so localStorage and service state never
// leak between apps), driven through the HTTP tool API of the real daemon and the real extension
// in the managed headless Chromium (`serve --headless`), with the targets a model would write:
// the input's placeholder "What needs to be done?", the checkbox it reads next to a todo's text
// in the Markdown, and the visible link and button texts "Completed", "Clear completed", "All".
//
// Per app: add "Buy milk" and "Walk dog" (type + submit twice: both must be separate todos),
// complete "Buy milk", filter on Completed (only it shows), clear completed (it is gone), back to
// All ("Walk dog" remains).
//
// Apps the package ships without a build (no index.html: Dart, GWT, Meteor, Derby, …) are
// reported as skipped with the reason. Apps that fail today because of issue 14 are in
// TODAY_FAILING below and run as node:test `todo` (they report, they do not fail the run); the
// helper who fixes issue 14 removes them from the list.
//
// Status on the code of 2026-11-23 (main 74104e5), recorded by running this file:
//   see TODAY_FAILING; the count of passing apps is printed by the last test.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startManaged, startStaticServer, todomvcApps, refInItem, tokenOf, NODE_MODULES } from './support/realsites.mjs';
import path from 'node:path';

// app -> why it fails today (filled from a run against today's code).
const TODAY_FAILING = {
};

let env;
const results = { pass: [], fail: [], skipped: [] };
before(async () => { env = await startManaged(); });
after(async () => { await env?.close(); });

const ok = (r, what) => assert.equal(r.status, 'success', `${what}: expected success, got ${r.http} ${JSON.stringify(r.result?.error || r.result?.message || r.message || r.waiting_for)}`);
const todoPart = (md) => { const i = md.search(/^#+ todos\b/mi); return i >= 0 ? md.slice(i) : md; };

for (const app of todomvcApps()) {
  const opts = { timeout: 90_000 };
  if (!app.runnable) opts.skip = `not shipped runnable: ${app.why}`;
  else if (TODAY_FAILING[app.name]) opts.todo = `issue 14: ${TODAY_FAILING[app.name]}`;
  test(`todomvc ${app.name}: add two, complete, filter, clear`, opts, async () => {
    const srv = await startStaticServer({ roots: { '/': path.join(NODE_MODULES, 'todomvc') + '/' } });
    try {
      let r = await env.call('browser_open_url', { url: srv.url(app.path) });
      ok(r, 'open');
      // The new-todo field as the page names it (a few apps word it differently, e.g. batman's
      // "What needs to be completed?"); the standard text when the page shows no such field.
      const field = r.page.markdown.match(/\[input text "([^"]*needs to be[^"]*)"/)?.[1] || 'What needs to be done?';
      r = await env.call('browser_type', { target: field, text: 'Buy milk', submit: true });
      ok(r, 'type Buy milk');
      assert.match(todoPart(r.page.markdown), /Buy milk/, 'the first todo is listed');
      r = await env.call('browser_type', { target: field, text: 'Walk dog', submit: true });
      ok(r, 'type Walk dog');
      let md = todoPart(r.page.markdown);
      assert.doesNotMatch(md, /Buy milkWalk dog/, 'the second todo was typed into the uncleared field');
      assert.match(md, /Walk dog/, 'the second todo is listed');
      assert.match(md, /Buy milk/, 'the first todo is still listed');
      // The checkbox in the same list item as "Buy milk", read from the Markdown as a model would.
      const box = refInItem(md, 'Buy milk', 'checkbox', { after: field });
      assert.ok(box, `no checkbox next to "Buy milk" in:\n${md}`);
      r = await env.call('browser_click', { target: box });
      ok(r, 'complete Buy milk');
      md = todoPart(r.page.markdown);
      const done = refInItem(md, 'Buy milk', 'checkbox', { after: field }); // re-rendered items get new refs
      assert.match(tokenOf(md, done), /\bchecked\b/, `"Buy milk" is not checked:\n${md}`);
      const open = refInItem(md, 'Walk dog', 'checkbox', { after: field });
      assert.doesNotMatch(tokenOf(md, open), /\bchecked\b/, `"Walk dog" got checked too:\n${md}`);
      r = await env.call('browser_click', { target: 'Completed' });
      ok(r, 'filter Completed');
      md = todoPart(r.page.markdown);
      assert.match(md, /Buy milk/, 'the completed todo shows under Completed');
      assert.doesNotMatch(md, /Walk dog/, 'the active todo shows under Completed');
      r = await env.call('browser_click', { target: 'Clear completed' });
      ok(r, 'clear completed');
      r = await env.call('browser_click', { target: 'All' });
      ok(r, 'filter All');
      md = todoPart(r.page.markdown);
      assert.doesNotMatch(md, /Buy milk/, 'the cleared todo is gone');
      assert.match(md, /Walk dog/, 'the active todo remains');
      results.pass.push(app.name);
    } catch (e) {
      results.fail.push(`${app.name}: ${e.message.split('\n')[0]}`);
      throw e;
    } finally {
      await srv.close();
    }
  });
}

test('todomvc: summary', () => {
  const all = todomvcApps();
  const runnable = all.filter((a) => a.runnable).length;
  console.log(`# todomvc: ${results.pass.length} of ${runnable} runnable apps pass (${all.length} shipped); failing: ${results.fail.join('; ') || 'none'}`);
  assert.ok(results.pass.length > 0, 'no TodoMVC app passes at all');
});
