// Real-site suite on documentation as it is published: the Python 3.11 documentation (Sphinx; Debian
// python3-doc) and the SQLite documentation (Debian sqlite3-doc), both installed by
// `scripts/bootstrap.sh test` and served here as a web server would. The pages are not written
// here: the tasks are what an agent does with documentation (read a syntax, search, use a page's
// toggles), checked against what a user sees.
//   node --test tests/e2e/docs-realsites.test.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { startManaged, startStaticServer } from './support/realsites.mjs';

const PY = '/usr/share/doc/python3-doc/html/';
const SQ = '/usr/share/doc/sqlite3/';
let env, srv;
before(async () => {
  for (const [dir, pkg] of [[PY, 'python3-doc'], [SQ, 'sqlite3-doc']]) {
    if (!existsSync(dir + 'index.html')) throw new Error(`the documentation suite needs the Debian package ${pkg} (${dir}): run 'sh scripts/bootstrap.sh test'`);
  }
  srv = await startStaticServer({ roots: { '/py/': PY, '/sq/': SQ } });
  env = await startManaged();
});
after(async () => { await env?.close(); await srv?.close(); });

const msg = (r) => JSON.stringify(r.result?.error || r.result?.message || r.message || r.status);
const ok = (r, what = 'call') => assert.equal(r.status, 'success', `${what}: expected success, got ${r.http} ${msg(r)}`);
const md = (r) => r.page?.markdown || '';
const open = async (url) => { const r = await env.call('browser_open_url', { url }); ok(r, `open ${url}`); return r; };

test('SQLite CREATE TABLE: the syntax diagrams (inline SVG) show their words, and "show" by its ref reveals the next one', async () => {
  let r = await open(srv.url('/sq/lang_createtable.html'));
  // the railroad diagram a user reads the statement's syntax from
  assert.match(md(r), /!\[CREATE TEMP TEMPORARY TABLE IF NOT EXISTS schema-name \. table-name \( column-def [^\]]*AS select-stmt\]/, md(r).slice(0, 3000));
  assert.doesNotMatch(md(r), /!\[column-name type-name column-constraint\]/, 'the column-def diagram is not shown yet');
  const show = md(r).match(/\[column-def:\]\([^)]*\) \[e\d+\]\*\* \[button "show" (e\d+)\]/);
  assert.ok(show, md(r).slice(0, 3000));
  r = await env.call('browser_click', { target: show[1] });
  ok(r, 'show column-def');
  assert.match(md(r), /\[column-def:\]\([^)]*\) \[e\d+\]\*\* \[button "hide" e\d+\]\n\n!\[column-name type-name column-constraint\]/, md(r).slice(0, 3000));
});

test('Python docs: a search from the sidebar box returns the results page with its results, which its script adds one by one', async () => {
  await open(srv.url('/py/tutorial/controlflow.html'));
  const r = await env.call('browser_type', { target: 'Quick search', text: 'enumerate', submit: true });
  ok(r, 'search');
  assert.match(md(r), /Search finished, found \d+ page\(s\) matching the search query\./, md(r).slice(0, 3000));
  assert.match(md(r), /^- \[enumerate\]\([^)]*functions\.html#enumerate\) \[e\d+\] \(Python function, in Built-in Functions\)$/m);
});

test('Python docs: the ">>>" toggle of an example hides its prompts and output, as a user sees', async () => {
  let r = await open(srv.url('/py/tutorial/controlflow.html'));
  assert.match(md(r), /^>>> x = int\(input\("Please enter an integer: "\)\)$/m);
  const toggle = md(r).match(/\[clickable ">>>" (e\d+)\]\n\n```\n>>> x = int/);
  assert.ok(toggle, md(r).slice(0, 3000));
  r = await env.call('browser_click', { target: toggle[1] });
  ok(r, 'hide the prompts');
  // (the output's line stays as the blank line a user sees)
  assert.match(md(r), /^```\nx = int\(input\("Please enter an integer: "\)\)\n\n?if x < 0:$/m, md(r).slice(0, 4000));
  assert.doesNotMatch(md(r), /^Please enter an integer: 42$/m, 'the output is hidden with the prompts');
});
