// TodoMVC on real frameworks (issue 14): every app that npm `todomvc` ships in runnable form,
// each served on its own origin (its own loopback port, so localStorage and service state never
// leak between apps), driven through the HTTP tool API of the real daemon and the real extension
// in the managed headless Chromium (`serve --headless`), with the targets a model would write:
// the input's placeholder "What needs to be done?", the checkbox it reads next to a todo's text
// in the Markdown, and the visible link and button texts "Completed", "Clear completed", "All".
//
// Per app: add "Buy milk" and "Walk dog" (type + submit twice: both must be separate todos),
// complete "Buy milk", filter on Completed (only it shows), back to All, clear completed ("Buy
// milk" is gone, "Walk dog" remains). Older apps without filter links skip the two filter steps.
//
// Apps the package ships without a build (no index.html: angular-dart, chaplin-brunch, derby,
// duel, meteor, socketstream, thorax_lumbar, vanilladart) and apps that do not work as shipped in
// any browser (NOT_RUNNABLE below, calibrated with Playwright) are skipped with the reason. Apps
// that fail today because of issue 14 are in TODAY_FAILING and run as node:test `todo` (they
// report, they do not fail the run); the helper who fixes issue 14 removes them from the list.
//
// Status on branch realfix (2026-11-23 07:16 UTC): 70 apps shipped, 8 without a build, 11 not
// runnable as shipped (polymer added: a real click leaves its counts stale), 51 runnable: 51 pass
// (vue since trusted typing lets the page's own timers run before Enter). gwt passes since a clickable row that
// holds a form field keeps its content in the Markdown. The last test prints the count of each
// run. ≈ 1.5 minutes.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startManaged, startStaticServer, todomvcApps, requirePackages, refInItem, tokenOf, NODE_MODULES } from './support/realsites.mjs';
import path from 'node:path';

// Apps that do not work as the package ships them, in any browser: calibrated with Playwright
// driving the same Chromium (load the app, wait up to 4 s for the new-todo field, fill + Enter
// twice) on 2026-11-23. They are skipped with the reason.
const NOT_RUNNABLE = {
  emberjs_require: 'never renders a new-todo field (Playwright: the same)',
  rappidjs: 'never renders a new-todo field (Playwright: the same)',
  montage: 'never renders: "key must be a string." thrown at start-up',
  mozart: 'never renders: "Mozart is not defined" (the library is not shipped)',
  sapui5: 'never renders: "jQuery is not defined" (the library is not shipped)',
  jquery: 'its bower_components (jQuery, Handlebars, director, todomvc-common) are not shipped: 404',
  'firebase-angular': 'needs the network: "Firebase is not defined"',
  stapes: 'throws "Cannot read properties of undefined (reading \'completed\')" on every add',
  stapes_require: 'throws "Cannot read properties of undefined (reading \'completed\')" on every add',
  yui: 'throws "Cannot read properties of undefined (reading \'create\')" on every add',
  // Calibrated 2026-11-23 07:15 UTC with Playwright's real click on the first todo's checkbox:
  // Polymer 0.5's NodeBind updates `completed` on `change`, which fires after the `click` handler
  // that recounts, so the page keeps "2 items left" and hides "Clear completed (0)".
  polymer: 'a real click on a todo\'s checkbox leaves "2 items left" and "Clear completed" hidden (Playwright: the same)',
};

// app -> why the bridge fails it today (still run, reported as todo).
const TODAY_FAILING = {
  // Its widgets subscribe to "todos/add" in promise chains after the load event, with no DOM
  // change or load to show it: an Enter before that clears the field and adds nothing. Playwright
  // (load event, fill, Enter) lost the todo in 6 of 8 loads on a busy 2-core box on 2026-11-23;
  // the bridge, which also waits for the DOM to be quiet, lost it in two of today's loaded runs.
  troopjs_require: 'under load the first Enter can come before the app listens (Playwright: 6 of 8 lost)',
};

let env;
const results = { pass: [], fail: [], skipped: [] };
before(async () => { requirePackages(['todomvc']); env = await startManaged(); });
after(async () => { await env?.close(); });

const ok = (r, what) => assert.equal(r.status, 'success', `${what}: expected success, got ${r.http} ${JSON.stringify(r.result?.error || r.result?.message || r.message || r.waiting_for)}`);
const todoPart = (md) => { const i = md.search(/^#+ todos\b/mi); return i >= 0 ? md.slice(i) : md; };

for (const app of todomvcApps()) {
  const opts = { timeout: 90_000 };
  if (!app.runnable) opts.skip = `not shipped runnable: ${app.why}`;
  else if (NOT_RUNNABLE[app.name]) opts.skip = `not runnable as shipped: ${NOT_RUNNABLE[app.name]}`;
  else if (TODAY_FAILING[app.name]) opts.todo = `issue 14: ${TODAY_FAILING[app.name]}`;
  test(`todomvc ${app.name}: add two, complete, filter, clear`, opts, async () => {
    const srv = await startStaticServer({ roots: { '/': path.join(NODE_MODULES, 'todomvc') + '/' } });
    try {
      let r = await env.call('browser_open_url', { url: srv.url(app.path) });
      ok(r, 'open');
      if (!/\[input text "[^"]*needs to be/.test(r.page.markdown)) {
        // A few apps load their framework with a script loader and render later than the page
        // looks ready (seen with ariatemplates under load): wait for the field, as an agent would.
        r = await env.call('browser_wait_for', { selector: '.new-todo, #new-todo', wait_ms: 10000 });
        ok(r, 'wait for the new-todo field');
      }
      // The new-todo field as the page names it (a few apps word it differently, e.g. batman's
      // "What needs to be completed?"); the standard text when the page shows no such field.
      const field = r.page.markdown.match(/\[input text "([^"]*needs to be[^"]*)"/)?.[1] || 'What needs to be done?';
      r = await env.call('browser_type', { target: field, text: 'Buy milk', submit: true });
      ok(r, 'type Buy milk');
      assert.match(todoPart(r.page.markdown), /Buy milk/, 'the first todo is not listed');
      r = await env.call('browser_type', { target: field, text: 'Walk dog', submit: true });
      ok(r, 'type Walk dog');
      let md = todoPart(r.page.markdown);
      assert.doesNotMatch(md, /Buy milkWalk dog/, 'the second todo was typed into the uncleared field');
      assert.match(md, /Walk dog/, 'the second todo is not listed');
      assert.match(md, /Buy milk/, 'the first todo is no longer listed');
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
      // Older apps have no filter links (only "Clear completed"): filter only where the page has them.
      const filters = /\[Completed\]\(/.test(md);
      if (filters) {
        r = await env.call('browser_click', { target: 'Completed' });
        ok(r, 'filter Completed');
        md = todoPart(r.page.markdown);
        assert.match(md, /Buy milk/, 'the completed todo is missing under Completed');
        assert.doesNotMatch(md, /Walk dog/, 'the active todo is listed under Completed');
        r = await env.call('browser_click', { target: 'All' });
        ok(r, 'filter All');
        assert.match(todoPart(r.page.markdown), /Walk dog/, 'the active todo is missing under All');
      }
      r = await env.call('browser_click', { target: 'Clear completed' });
      ok(r, 'clear completed');
      md = todoPart(r.page.markdown);
      assert.doesNotMatch(md, /Buy milk/, 'the cleared todo is still listed');
      assert.match(md, /Walk dog/, 'the active todo is gone');
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
  const runnable = all.filter((a) => a.runnable && !NOT_RUNNABLE[a.name]).length;
  console.log(`# todomvc: ${results.pass.length} of ${runnable} runnable apps pass (${all.length} shipped); failing: ${results.fail.join('; ') || 'none'}`);
  assert.ok(results.pass.length > 0, 'no TodoMVC app passes at all');
});
