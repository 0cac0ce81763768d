// Real-site suite for custom selects drawn over a native <select> (product rule #1: `success` only
// when the widget a user sees shows the choice and the page's own change handler ran; a failure in
// one sentence naming the options a user sees). Two libraries installed from npm, set up with their
// documented API only:
//   - select-choices.html: Choices.js, whose dropdown is drawn INSIDE the widget's container
//     (which also holds the hidden native select) and named by no aria-controls;
//   - select-tomselect.html: Tom Select, a typeable <input role=combobox> whose chosen item is a
//     sibling of the input, beside a visually hidden native select that the Markdown still lists;
//   - select-algolia.html: Algolia's autocomplete-js, role=combobox on the box around its search
//     field and buttons (ARIA 1.1).
// Each success checks the widget's shown value, the page's change handler output and (Tom Select)
// the native select's value; each failure checks the error, and that nothing changed.
//   node --test tests/e2e/selects-realsites.test.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startManaged, startStaticServer, requirePackages, NODE_MODULES, SHELLS } from './support/realsites.mjs';

let env, srv;
before(async () => {
  requirePackages(['choices.js', 'tom-select', '@materializecss/materialize', '@algolia/autocomplete-js', '@algolia/autocomplete-theme-classic']);
  srv = await startStaticServer({ roots: { '/npm/': NODE_MODULES + '/', '/shells/': SHELLS + '/' } });
  env = await startManaged();
});
after(async () => { await env?.close(); await srv?.close(); });

const msg = (r) => JSON.stringify(r.result?.error || r.result?.message || r.message || r.status);
const ok = (r, what = 'call') => assert.equal(r.status, 'success', `${what}: expected success, got ${r.http} ${msg(r)}\n${md(r).slice(0, 1500)}`);
const err = (r) => String(r.result?.error || r.message || '');
const md = (r) => r.page?.markdown || '';
const open = async (page) => { const r = await env.call('browser_open_url', { url: srv.url('/shells/' + page) }); ok(r, `open ${page}`); return r; };
const select = (target, value) => env.call('browser_select_option', { target, value });
const fill = (fields) => env.call('browser_fill_form', { fields });
const page = async () => md(await env.call('browser_get_page', {}));
// The Markdown between two lines (a field's label and its page output): what a user sees of it.
const between = (m, from, to) => { const a = m.indexOf(from); const b = m.indexOf(to, a + 1); return a < 0 || b < 0 ? '' : m.slice(a, b); };

// ---------------------------------------------------------------- Choices.js

// The Choices widget of "Favourite fruit" shows `text` as its chosen item, and its list is closed.
function fruitShows(m, text) {
  const w = between(m, 'Favourite fruit', 'Fruit chosen:');
  assert.match(w, new RegExp(`\\[option "${text}" selected`), `the widget does not show "${text}":\n${w}`);
  assert.doesNotMatch(w, /expanded/, `the widget's list is still open:\n${w}`);
  assert.equal((w.match(/\[option /g) || []).length, 1, `the widget's list is still shown:\n${w}`);
}

test('choices.js: select_option by the label chooses in the dropdown drawn inside the widget', async () => {
  await open('select-choices.html');
  const r = await select('Favourite fruit', 'Cherry');
  ok(r);
  assert.match(md(r), /Fruit chosen: cherry/, 'the page\'s change handler did not see the choice');
  fruitShows(md(r), 'Cherry');
});

test('choices.js: fill_form by the label goes through the widget that contains the hidden select', async () => {
  await open('select-choices.html');
  const r = await fill([{ target: 'Favourite fruit', value: 'Banana' }, { target: 'Box size', value: 'Large' }]);
  ok(r);
  assert.match(md(r), /Fruit chosen: banana/, 'the page\'s change handler did not see the choice');
  assert.match(md(r), /Size chosen: l\b/, 'the second widget did not take its choice');
  fruitShows(md(r), 'Banana');
  assert.match(between(md(r), 'Box size', 'Size chosen:'), /value="Large"/);
});

test('choices.js: select_option on the hidden native select (a selector) goes through its widget', async () => {
  await open('select-choices.html');
  const r = await select('#fruit', 'Apple');
  ok(r);
  assert.match(md(r), /Fruit chosen: apple/);
  fruitShows(md(r), 'Apple');
});

test('choices.js: an option that does not exist is an error naming the options, and nothing changes', async () => {
  await open('select-choices.html');
  for (const r of [await select('Favourite fruit', 'Durian'), await fill([{ target: 'Favourite fruit', value: 'Durian' }])]) {
    assert.equal(r.status, 'error', `expected an error, got ${msg(r)}`);
    assert.match(err(r), /no option/, err(r));
    assert.match(err(r), /"Apple", "Banana", "Cherry"/, `the options are not listed: ${err(r)}`);
    const now = await page();
    assert.match(now, /Fruit chosen: none/);
    fruitShows(now, 'Pick a fruit');
  }
});

// ---------------------------------------------------------------- Tom Select

// Tom Select's "Country" shows `text` (its chosen item), the native select holds it, and the list is closed.
function countryShows(m, text) {
  const w = between(m, 'Country [select', 'Country chosen:');
  assert.match(w, new RegExp(`\\[select [^\\n]*value="${text}"`), `the native select does not hold "${text}":\n${w}`);
  assert.match(w, new RegExp(`^${text}$`, 'm'), `the widget does not show "${text}":\n${w}`);
  assert.doesNotMatch(w, /\[option "/, `the widget's list is still open:\n${w}`);
}

test('tom-select: select_option by the label succeeds once the widget shows the choice, and its list is closed', async () => {
  await open('select-tomselect.html');
  const r = await select('Country', 'Germany');
  ok(r);
  assert.match(md(r), /Country chosen: de/, 'the page\'s change handler did not see the choice');
  countryShows(md(r), 'Germany');
});

test('tom-select: fill_form on the typeable combobox chooses the option, not only types its text', async () => {
  await open('select-tomselect.html');
  const r = await fill([{ target: 'Country', value: 'Italy' }, { target: 'Delivery speed', value: 'Express' }]);
  ok(r);
  assert.match(md(r), /Country chosen: it/, 'nothing was chosen: the text was only typed');
  assert.match(md(r), /Speed chosen: exp/);
  countryShows(md(r), 'Italy');
});

test('tom-select: select_option on the hidden native select by its ref goes through its widget', async () => {
  const m = md(await open('select-tomselect.html'));
  const ref = (m.match(/^Country \[select .*\b(e\d+)\]$/m) || [])[1];
  assert.ok(ref, `no ref for the native select in:\n${m}`);
  const r = await select(ref, 'France');
  ok(r);
  assert.match(md(r), /Country chosen: fr/);
  countryShows(md(r), 'France');
});

test('tom-select: an option that does not exist is an error naming the options, and nothing is chosen', async () => {
  await open('select-tomselect.html');
  for (const r of [await select('Country', 'Spain'), await fill([{ target: 'Country', value: 'Spain' }])]) {
    assert.equal(r.status, 'error', `expected an error, got ${msg(r)}`);
    assert.match(err(r), /no option/, err(r));
    assert.match(err(r), /"France", "Germany", "Italy"/, `the options are not listed: ${err(r)}`);
    const now = await page();
    assert.match(now, /Country chosen: none/);
    assert.doesNotMatch(between(now, 'Country [select', 'Country chosen:'), /\[option "/, 'the list is still open');
    assert.doesNotMatch(between(now, 'Country [select', 'Country chosen:'), /Spain/, 'the typed text is left in the field');
  }
});

// ---------------------------------------------------------------- Materialize

// Its select's <label> lies over the middle of the field a user clicks to open the list: a click
// there was "covered by <label>", so the select could not be set at all. Its multiple select keeps
// the disabled placeholder chosen in the native select: values said it was disabled after choosing
// Red and Blue, and fill_form refused to take out a choice ("take it out in [combobox]").
test('materialize: a select under its own label is chosen in, a multiple select holds the options given (its disabled placeholder aside), Escape closes its modal dialog', async () => {
  let m = md(await open('select-materialize.html'));
  const single = /\[combobox value="Choose your option".*? (e\d+)\]/.exec(m)?.[1];
  const multi = /\[combobox value="Choose colors".*? (e\d+)\]/.exec(m)?.[1];
  assert.ok(single && multi, `the two selects' widgets are not shown:\n${m}`);
  let r = await select(single, 'Option 2');
  ok(r, 'select Option 2');
  assert.match(md(r), /Fruit: 2;/);
  r = await env.call('browser_select_option', { target: multi, values: ['Red', 'Blue'] });
  ok(r, 'values Red, Blue');
  assert.match(md(r), /colors: r,b/);
  r = await fill([{ target: multi, value: 'Green, Blue' }]);
  ok(r, 'fill Green, Blue');
  assert.match(md(r), /colors: g,b/);
  assert.doesNotMatch(md(r), /expanded/, 'a list is left open');
  ok(await env.call('browser_click', { target: 'Delete item' }));
  r = await env.call('browser_press_key', { key: 'Escape' });
  ok(r);
  assert.doesNotMatch(md(r), /This cannot be undone/, 'the dialog is still open');
});

// Algolia's autocomplete puts role=combobox on the box around its search field and its Submit and
// Clear buttons: the box showed as [combobox e1], no name, no value, its buttons never; with its
// list open, select_option said it "suggested nothing" though the suggestion was shown.
test('select-algolia.html: a search box whose combobox role is on the box around it shows its name, text and buttons, and its open list is chosen in', async () => {
  let r = await open('select-algolia.html');
  assert.match(r.page.markdown, /\[combobox "Search for products" e\d+\]/, r.page.markdown);
  assert.match(r.page.markdown, /\[button "Submit" e\d+\]/);
  r = await env.call('browser_type', { target: 'Search for products', text: 'pix' });
  ok(r, 'type pix');
  assert.match(r.page.markdown, /\[combobox "Search for products" value="pix"( expanded)? e\d+\]/, r.page.markdown);
  assert.match(r.page.markdown, /\[option "Google Pixel 8" e\d+\]/);
  r = await env.call('browser_select_option', { target: 'Search for products', value: 'Google Pixel 8' });
  ok(r, 'select_option with the list open');
  assert.match(r.page.markdown, /Selected: Google Pixel 8/);
  assert.match(r.page.markdown, /\[combobox "Search for products" value="Google Pixel 8"/);
  r = await env.call('browser_click', { target: 'Clear' });
  ok(r, 'Clear');
  assert.match(r.page.markdown, /\[combobox "Search for products" e\d+\]/);
});
