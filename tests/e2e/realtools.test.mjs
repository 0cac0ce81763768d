// Real-site suite for the choosing tools (issue 14, "never succeed on the wrong element"):
// browser_select_option, browser_fill_form and browser_find on pages of libraries installed from
// npm, driven through the HTTP tool API with the targets a model writes after reading the Markdown
// (labels, legends, option texts), in the managed headless Chromium with the real extension (one
// daemon and one browser for the file, as in realsites.test.mjs).
//
// The pages (tests/fixtures/realsites/, served with node_modules by support/realsites.mjs):
//   - shoelace-form.html: Shoelace's sl-input, sl-select (a read-only <input role=combobox> whose
//     listbox is in the select's shadow root and whose sl-options are slotted into it) and
//     sl-radio-group;
//   - jqueryui-more.html: jQuery UI's selectmenu, datepicker (its calendar opens over the field
//     below the date) and checkboxradio in a <fieldset> with a <legend>, plus a WAI-ARIA
//     role=radiogroup;
//   - markdown-doc.html: documentation markup (a link inside <code>, text split by <b>/<em>).
//
// Run: see tests/integration.sh for the environment (BB_BIN …); BB_E2E_DEBUG=1 logs every call.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startManaged, startStaticServer, requirePackages, NODE_MODULES, SHELLS } from './support/realsites.mjs';

let env, srv;
before(async () => {
  requirePackages(['jquery', 'jquery-ui', '@shoelace-style/shoelace']);
  srv = await startStaticServer({ roots: { '/npm/': NODE_MODULES + '/', '/shells/': SHELLS + '/' } });
  env = await startManaged();
});
after(async () => { await env?.close(); await srv?.close(); });

const msg = (r) => JSON.stringify(r.result?.error || r.result?.message || r.message || r.status);
const ok = (r, what = 'call') => assert.equal(r.status, 'success', `${what}: expected success, got ${r.http} ${msg(r)}`);
const err = (r) => String(r.result?.error || '');
const md = (r) => r.page?.markdown || '';
const open = async (page) => { const r = await env.call('browser_open_url', { url: srv.url('/shells/' + page) }); ok(r, `open ${page}`); return r; };
const select = (target, value) => env.call('browser_select_option', { target, value });
const fill = (fields) => env.call('browser_fill_form', { fields });
const page = async () => md(await env.call('browser_get_page', {}));

// ---------------------------------------------------------------- select_option

test('select_option: a Shoelace sl-select named by its label chooses the slotted option in its shadow-root listbox', async () => {
  await open('shoelace-form.html');
  const r = await select('Favorite fruit', 'Banana');
  ok(r);
  assert.match(md(r), /Fruit: banana/, 'the page did not see the choice');
  assert.match(r.result?.message || '', /^Selected "Banana" in /);
});

test('select_option: a missing option in a custom drop-down lists its options and leaves the popup closed', async () => {
  await open('jqueryui-more.html');
  const r = await select('Select a speed', 'Fastest');
  assert.equal(r.status, 'error', `expected an error, got ${msg(r)}`);
  assert.match(err(r), /no option "Fastest"/);
  assert.match(err(r), /"Slower", "Slow", "Medium", "Fast", "Faster"/, 'the options are not listed');
  const now = await page();
  assert.doesNotMatch(now, /\[combobox[^\]]*expanded/, 'the popup the call opened is still open');
  assert.doesNotMatch(now, /\[clickable "Faster"/, 'the popup\'s options are still shown');
  assert.match(now, /Speed chosen: Medium/);
});

test('select_option: a missing option in sl-select closes its popup before the page is returned', async () => {
  await open('shoelace-form.html');
  const r = await select('Favorite fruit', 'Durian');
  assert.equal(r.status, 'error', `expected an error, got ${msg(r)}`);
  assert.match(err(r), /"Apple", "Banana", "Cherry"/);
  assert.doesNotMatch(md(r), /option "Cherry"/, 'the listbox the call opened is still shown');
});

test('select_option: a radio group named by its <legend> (jQuery UI checkboxradio) checks the radio by its label', async () => {
  await open('jqueryui-more.html');
  const r = await select('Room size', 'Family suite');
  ok(r);
  assert.match(md(r), /Room chosen: family/);
  assert.match(md(r), /\[radio "Family suite" checked/);
});

test('select_option: a role=radiogroup and an sl-radio-group choose by the radio\'s label', async () => {
  await open('jqueryui-more.html');
  let r = await select('Towel color', 'Green');
  ok(r);
  assert.match(md(r), /Color chosen: Green/);
  await open('shoelace-form.html');
  r = await select('Shipping', 'Express');
  ok(r);
  assert.match(md(r), /Shipping: express/);
});

test('select_option: a target that is not a drop-down is a one-sentence error naming what it is', async () => {
  await open('shoelace-form.html');
  const r = await select('Save settings', 'Banana');
  assert.equal(r.status, 'error', `expected an error, got ${msg(r)}`);
  assert.match(err(r), /^\[button "Save settings" e\d+\] is a button, not a drop-down/);
  assert.equal(err(r).split(/\.(\s|$)/).filter((s) => s.trim()).length, 1, `not one sentence: ${err(r)}`);
});

test('select_option: while the selectmenu is open its label still names the combobox, not the open list', async () => {
  await open('jqueryui-more.html');
  ok(await env.call('browser_click', { target: 'Select a speed' }));
  const r = await select('Select a speed', 'Fast');
  ok(r);
  assert.match(md(r), /Speed chosen: Fast/);
  assert.match(md(r), /\[combobox "Select a speed" value="Fast"/);
});

test('select_option: while an sl-select is open its label still names the select, and the option is taken', async () => {
  await open('shoelace-form.html');
  const c = await env.call('browser_click', { target: 'Favorite fruit' });
  ok(c);
  assert.match(md(c), /option "Cherry"/, 'the click did not open the listbox');
  const r = await select('Favorite fruit', 'Cherry');
  ok(r);
  assert.match(md(r), /Fruit: cherry/);
  assert.doesNotMatch(md(r), /option "Banana"/, 'the listbox is still shown after the choice');
});

// ---------------------------------------------------------------- fill_form

test('fill_form: Shoelace form with an sl-input, a read-only sl-select and an sl-radio-group', async () => {
  await open('shoelace-form.html');
  const r = await fill([
    { target: 'Your name', value: 'Ada' },
    { target: 'Favorite fruit', value: 'Cherry' },
    { target: 'Shipping', value: 'Express' },
  ]);
  ok(r);
  assert.match(md(r), /Name: Ada/);
  assert.match(md(r), /Fruit: cherry/);
  assert.match(md(r), /Shipping: express/);
});

test('fill_form: a typed date is left with Tab, so its datepicker no longer covers the selectmenu below it', async () => {
  await open('jqueryui-more.html');
  const r = await fill([
    { target: 'Arrival date', value: '12/24/2026' },
    { target: 'Select a speed', value: 'Slow' },
    { target: 'Room size', value: 'Double' },
  ]);
  ok(r);
  assert.match(md(r), /Speed chosen: Slow/);
  assert.match(md(r), /Room chosen: double/);
  assert.match(md(r), /Arrival: 12\/24\/2026/);
  assert.doesNotMatch(md(r), /\| Su \| Mo \|/, 'the calendar is still open');
});

// ---------------------------------------------------------------- what the Markdown shows

test('Markdown: a read-only combobox (sl-select) is a combobox token with its value and options', async () => {
  const r = await open('shoelace-form.html');
  assert.match(md(r), /\[combobox "Favorite fruit" value="Apple" options=\["Apple", "Banana", "Cherry"\] e\d+\]/, md(r));
});

test('Markdown: the hidden value input inside sl-select is not printed as a field', async () => {
  const r = await open('shoelace-form.html');
  assert.doesNotMatch(md(r), /\[input text value="apple"/, 'the sl-select\'s validation input is shown as a field');
  assert.equal((md(r).match(/\[input /g) || []).length, 1, `only "Your name" is a text field: ${md(r)}`);
});

test('Markdown: a link inside <code> keeps its ref and shows its text as code', async () => {
  const r = await open('markdown-doc.html');
  const m = md(r).match(/\[`path\.join\(\)`\]\([^)\s]*#join\) \[(e\d+)\]/);
  assert.ok(m, `no code link with a ref: ${md(r)}`);
  const c = await env.call('browser_click', { target: m[1] });
  ok(c, 'click on the code link\'s ref');
});

test('find: text split by inline markup is found by its words ("a normalized path" in "a <b>normalized</b> path")', async () => {
  await open('markdown-doc.html');
  let r = await env.call('browser_find', { text: 'a normalized path without trailing separators' });
  ok(r);
  assert.equal(r.result?.total, 1, msg(r));
  assert.match(r.result.matches[0].text, /\*\*normalized\*\* path without _trailing_/);
  r = await env.call('browser_find', { text: 'with path.join() before' });
  ok(r);
  assert.equal(r.result?.total, 1, msg(r));
  assert.match(r.result.matches[0].ref || '', /^e\d+$/);
});
