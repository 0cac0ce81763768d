// ARIA data grids (role=table/grid/treegrid of role=row of cells, drawn from divs, no <table>)
// come out of the Markdown as Markdown tables, as <table> does: a fixture written here with what
// the libraries do (wrapper divs, rowgroups, aria-sort, controls in cells, hidden rows and
// columns, rows split into pinned and scrolling parts), and the real Tabulator 6 and AG Grid
// Community (npm tabulator-tables, ag-grid-community: their browser builds, driven through their
// documented API only by shells in tests/fixtures/realsites/grid-*.html).
//
// Before this (main a375beb) each of these pages came out as a run of paragraphs ("Name", "Age",
// "City" on lines of their own, then "Oli Bob12London"), and a sortable header had no ref and
// showed no sort: every test below fails on that code.
//
// Run: BB_BIN=build-check/browser-bridge node --test tests/e2e/grids-realsites.test.mjs (see
// tests/integration.sh for the full environment).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { startManaged, startStaticServer, requirePackages, NODE_MODULES, SHELLS } from './support/realsites.mjs';
import { ROOT, refOf } from './support/harness.mjs';

let env, srv;
before(async () => {
  requirePackages(['tabulator-tables', 'ag-grid-community', 'fullcalendar', 'temporal-polyfill']);
  srv = await startStaticServer({ roots: { '/npm/': NODE_MODULES + '/', '/shells/': SHELLS + '/', '/pages/': path.join(ROOT, 'tests', 'fixtures', 'pages') + '/' } });
  env = await startManaged();
});
after(async () => { await env?.close(); await srv?.close(); });

const msg = (r) => JSON.stringify(r.result?.error || r.result?.message || r.message || r.status);
const ok = (r, what = 'call') => assert.equal(r.status, 'success', `${what}: expected success, got ${r.http} ${msg(r)}`);
const open = async (url) => { const r = await env.call('browser_open_url', { url }); ok(r, `open ${url}`); return r.page.markdown; };
const page = async () => { const r = await env.call('browser_get_page', {}); ok(r, 'get_page'); return r.page.markdown; };
const noRefs = (s) => s.replace(/\be\d+\]/g, 'eN]');
// The lines of the Markdown table that begins with `head` (refs as eN).
const tableAt = (md, head) => {
  const lines = noRefs(md).split('\n');
  const i = lines.findIndex((l) => l.startsWith(head));
  assert.ok(i >= 0, `no table line starting ${JSON.stringify(head)} in:\n${md}`);
  let j = i;
  while (j < lines.length && lines[j].startsWith('|')) j++;
  return lines.slice(i, j).join('\n');
};

test('fixture: role=table and role=grid divs are Markdown tables; sortable headers keep refs and show their sort', async () => {
  const md = await open(srv.url('/pages/grid-aria.html'));
  // wrapper divs and rowgroups between the table and its rows; the hidden row and the hidden
  // column left out; a "|" in a cell escaped, a cell's paragraphs joined with <br>; the header
  // with a click handler and the one with only aria-sort are both clickables with refs, the
  // ascending one marked ↑; the button and the link keep their refs; the pager after the rows stays
  assert.equal(tableAt(md, '| [clickable "Name"'), [
    '| [clickable "Name" eN] ↑ | [clickable "Age" eN] | Actions |',
    '| --- | --- | --- |',
    '| Ada \\| Lovelace | 36 | [button "Delete" eN] |',
    `| Grace | 85<br>years | [Profile](${srv.url('/pages/grid-aria.html')}#grace) [eN] |`,
  ].join('\n'));
  assert.match(md, /\| \[Profile\][^\n]*\n\nPage 1 of 1\n/);
  assert.doesNotMatch(md, /Hidden|Secret/);
  // rows split into a pinned and a scrolling part (AG Grid), out of order in the DOM: one row per
  // aria-rowindex, in that order, each cell in its aria-colindex's column; the descending sort ↓
  assert.equal(tableAt(md, '| [clickable "Make"'), [
    '| [clickable "Make" eN] ↓ | Model | Price |',
    '| --- | --- | --- |',
    '| Tesla | Model Y | 64950 |',
    '| Fiat | 500 | 15774 |',
  ].join('\n'));
  // a row without cells is its content in the first column; a clickable row leads with its mark
  assert.equal(tableAt(md, '| File'), [
    '| File | Size |',
    '| --- | --- |',
    '| **src/** (2 files) | |',
    '| [clickable eN] a.c | 4 KB |',
    '| [clickable eN] b.c | 1 KB |',
  ].join('\n'));
  // rows with display: contents (a CSS grid lays the table out) are rows all the same
  assert.equal(tableAt(md, '| Planet'), '| Planet | Moons |\n| --- | --- |\n| Mars | 2 |');
  // the refs are the elements a user clicks
  let r = await env.call('browser_click', { target: refOf(md, /\[clickable (e\d+)\] b\.c/) });
  ok(r, 'click the row b.c');
  r = await env.call('browser_click', { target: refOf(md, /\[clickable "Age"/) });
  ok(r, 'click Age');
  r = await env.call('browser_click', { target: refOf(md, /\[button "Delete"/) });
  ok(r, 'click Delete');
  assert.match(await page(), /log: open b\.c sort age delete Ada/);
});

// The rows of the Tabulator grid, as table lines.
const people = (rows) => rows.map(([n, a, c]) => `| ${n} | ${a} | ${c} |`);

test('Tabulator: its grid is a Markdown table; clicking the "Age" header by its ref sorts the rows, and the header shows it', async () => {
  const md = await open(srv.url('/shells/grid-tabulator.html'));
  const head = '| [clickable "Name" eN] | [clickable "Age" eN] | [clickable "City" eN] |';
  assert.equal(tableAt(md, '| [clickable "Name"'), [head, '| --- | --- | --- |', ...people([
    ['Oli Bob', 12, 'London'], ['Mary May', 41, 'Paris'], ['Christine Lobowski', 33, 'Berlin'],
    ['Brendon Philips', 25, 'Madrid'], ['Zed Anders', 57, 'Athens']])].join('\n'));
  const r = await env.call('browser_click', { target: refOf(md, /\[clickable "Age"/) });
  ok(r, 'click Age');
  assert.equal(tableAt(await page(), '| [clickable "Name"'), [head.replace('"Age" eN]', '"Age" eN] ↑'), '| --- | --- | --- |', ...people([
    ['Oli Bob', 12, 'London'], ['Brendon Philips', 25, 'Madrid'], ['Christine Lobowski', 33, 'Berlin'],
    ['Mary May', 41, 'Paris'], ['Zed Anders', 57, 'Athens']])].join('\n'));
});

test('AG Grid: its grid is a Markdown table, each cell under its header; a sort by the "Price" header reorders the rows', async () => {
  const md = await open(srv.url('/shells/grid-aggrid.html'));
  const cars = (rows) => rows.map(([m, mo, p, e]) => `| ${m} | ${mo} | ${p} | [checkbox "${e ? 'checked' : 'unchecked'}"${e ? ' checked' : ''} disabled eN] |`);
  const head = '| [clickable "Make" eN] | [clickable "Model" eN] | [clickable "Price" eN] | [clickable "Electric" eN] |';
  assert.equal(tableAt(md, '| [clickable "Make"'), [head, '| --- | --- | --- | --- |', ...cars([
    ['Tesla', 'Model Y', 64950, true], ['Ford', 'F-Series', 33850, false], ['Toyota', 'Corolla', 29600, false], ['Fiat', 500, 15774, false]])].join('\n'));
  // AG Grid sorts by moving its row elements (and their aria-rowindex), not by reordering the DOM
  const r = await env.call('browser_click', { target: refOf(md, /\[clickable "Price"/) });
  ok(r, 'click Price');
  assert.equal(tableAt(await page(), '| [clickable "Make"'), [head.replace('"Price" eN]', '"Price" eN] ↑'), '| --- | --- | --- | --- |', ...cars([
    ['Fiat', 500, 15774, false], ['Toyota', 'Corolla', 29600, false], ['Ford', 'F-Series', 33850, false], ['Tesla', 'Model Y', 64950, true]])].join('\n'));
});

test('AG Grid: a double-click opens a cell\'s editor, and what is typed there with Enter is the cell\'s new value', async () => {
  await open(srv.url('/shells/grid-aggrid-edit.html'));
  let r = await env.call('browser_click', { target: 'Corolla', double_click: true });
  ok(r, 'double-click Corolla');
  assert.match(String(r.result?.message), /^Double-clicked /);
  assert.match(r.page.markdown, /\| Toyota \| \[input text "[^"]*" value="Corolla" e\d+\] \| 29600 \|/, r.page.markdown);
  r = await env.call('browser_type', { target: refOf(r.page.markdown, /\[input text "[^"]*" value="Corolla"/), text: 'Camry', submit: true });
  ok(r, 'type Camry');
  assert.match(r.page.markdown, /\| Toyota \| Camry \| 29600 \|/);
  assert.match(r.page.markdown, /Last edit: Model: Corolla -> Camry/);
});

// FullCalendar draws its weekday names and day numbers aria-hidden and labels each cell in full:
// the month was an empty table of events whose days no one could tell.
test('fullcalendar: a month grid shows each day as its cell is labelled, its events in their days, an event is clicked by its title, and Next turns the month', async () => {
  const md = await open(srv.url('/shells/calendar-fullcalendar.html'));
  const t = tableAt(md, '| Sunday');
  assert.match(t, /^\| Sunday \| Monday \| Tuesday \| Wednesday \| Thursday \| Friday \| Saturday \|/, t);
  assert.match(t, /\| June 10, 2025 \[button "10a Design review" eN\] \|/, t);
  assert.match(t, /\| June 20, 2025 \[button "Launch party" eN\] \|/, t);
  let r = await env.call('browser_click', { target: 'Launch party' });
  ok(r);
  assert.match(r.page.markdown, /Clicked: Launch party/);
  // Its Next button carries aria-pressed="false" for good: the click turned the month, and the
  // answer does not say that it did not change anything.
  r = await env.call('browser_click', { target: 'Next month' });
  ok(r);
  assert.doesNotMatch(r.result.message, /did not change it/, r.result.message);
  assert.match(r.page.markdown, /July 2025/);
});
