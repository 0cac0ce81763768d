// Real-site suite for Vue 3 component libraries and classic jQuery plugins (product rule #1:
// `success` only when the page's own state shows it; rule #2: the Markdown shows what a user sees).
// Four shells in tests/fixtures/realsites/, each loading the library from /npm/ and set up with its
// documented API only; every page renders its state (v-model, the native select's value, the
// table's draw) into an <output>, which each check reads:
//   - vuejq-vuetify.html: Vuetify (v-select, multiple v-select, v-autocomplete, v-combobox,
//     v-text-field, v-checkbox, v-switch, v-slider, v-dialog, v-menu, v-tabs, v-snackbar), whose
//     menus are teleported to body and scale in with pointer-events off while they open;
//   - vuejq-element.html: Element Plus (el-select: plain, filterable, multiple; el-date-picker,
//     el-dialog, ElMessageBox.confirm, el-switch, el-checkbox, el-input-number, el-cascader), whose
//     select hides its combobox input in a transparent wrapper once something is chosen;
//   - vuejq-quasar.html: Quasar (QSelect, chips QSelect, QCheckbox, QToggle);
//   - vuejq-select2.html: jQuery 3 + Select2 (single, with search, multiple, tags) over hidden
//     native selects;
//   - vuejq-datatables.html: jQuery 3 + DataTables (search box, paging buttons, sortable headers).
//   node --test tests/e2e/vuejq-realsites.test.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startManaged, startStaticServer, requirePackages, NODE_MODULES, SHELLS } from './support/realsites.mjs';

let env, srv;
before(async () => {
  requirePackages(['vue', 'vuetify', 'element-plus', 'jquery3', 'select2', 'datatables.net', 'datatables.net-dt', 'quasar']);
  srv = await startStaticServer({ roots: { '/npm/': NODE_MODULES + '/', '/shells/': SHELLS + '/' } });
  env = await startManaged();
});
after(async () => { await env?.close(); await srv?.close(); });

const msg = (r) => JSON.stringify(r.result?.error || r.result?.message || r.message || r.status);
const md = (r) => r.page?.markdown || '';
const ok = (r, what = 'call') => assert.equal(r.status, 'success', `${what}: expected success, got ${r.http} ${msg(r)}\n${md(r).slice(0, 2000)}`);
const err = (r) => String(r.result?.error || r.message || '');
const open = async (page) => { const r = await env.call('browser_open_url', { url: srv.url('/shells/' + page) }); ok(r, `open ${page}`); return r; };
const select = (target, value) => env.call('browser_select_option', { target, value });
const fill = (fields) => env.call('browser_fill_form', { fields });
const click = (target) => env.call('browser_click', { target });
const page = async () => md(await env.call('browser_get_page', {}));
// Options listed in the Markdown: a list a user sees open.
const shownOptions = (m) => (m.match(/\[option "[^"]*"/g) || []);

// ---------------------------------------------------------------- Vuetify

test('vuetify: select_option by the label clicks the option once the menu has scaled in (not "covered" while it opens), and the field reads as its label and value', async () => {
  await open('vuejq-vuetify.html');
  for (const fruit of ['Cherry', 'Banana', 'Damson']) {
    const r = await select('Fruit', fruit);
    ok(r, `select ${fruit}`);
    assert.match(md(r), new RegExp(`Fruit chosen: ${fruit}\\b`), 'the page\'s v-model did not take the choice');
    assert.deepEqual(shownOptions(md(r)), [], `the menu is still shown:\n${md(r)}`);
    // named by its floating label, its value what it shows (not "Fruit Cherry" run together)
    assert.match(md(r), new RegExp(`\\[combobox "Fruit" value="${fruit}" e\\d+\\]`), md(r));
  }
});

test('vuetify: two choices in a multiple v-select both hold, the list it leaves open is closed, and the next field is reachable', async () => {
  await open('vuejq-vuetify.html');
  ok(await select('Colors', 'Green'), 'first color');
  const r = await select('Colors', 'Blue');
  ok(r, 'second color');
  assert.match(md(r), /Colors chosen: Green, Blue/);
  assert.match(md(r), /\[combobox "Colors" value="Green Blue" e\d+\]/, md(r));
  assert.deepEqual(shownOptions(md(r)), [], `the multi-select's list is still shown over the page:\n${md(r)}`);
  assert.doesNotMatch(md(r), /expanded/, 'a widget is still marked open');
  // the list no longer covers the field below it
  const c = await select('City', 'Bern');
  ok(c, 'the autocomplete below the multi-select');
  assert.match(md(c), /City chosen: Bern/);
  assert.match(md(c), /Colors chosen: Green, Blue/, 'choosing elsewhere changed the multi-select');
});

test('vuetify: fill_form types into the autocomplete and picks its suggestion; a free v-combobox keeps the text', async () => {
  await open('vuejq-vuetify.html');
  const r = await fill([{ target: 'City', value: 'Lisbon' }, { target: 'Tags', value: 'newtag' }, { target: 'Your name', value: 'Ada' }]);
  ok(r);
  assert.match(md(r), /City chosen: Lisbon/);
  assert.match(md(r), /Tags chosen: newtag/);
  assert.match(md(r), /Name typed: Ada/);
  assert.deepEqual(shownOptions(md(r)), [], `a list is still shown:\n${md(r)}`);
});

test('vuetify: the v-slider is named by the label of its box, and typing a number by that label sets it', async () => {
  const m = md(await open('vuejq-vuetify.html'));
  assert.match(m, /\[slider "Volume" value="20" e\d+\]/, m);
  const r = await env.call('browser_type', { target: 'Volume', text: '60' });
  ok(r);
  assert.match(md(r), /Volume: 60\b/, 'the page\'s v-model did not take the value');
  assert.match(md(r), /\[slider "Volume" value="60" e\d+\]/);
  ok(await click('I agree'));
  ok(await click('Wi-Fi'));
  const now = await page();
  assert.match(now, /Agreed: true/);
  assert.match(now, /Wi-Fi on: true/);
  assert.match(now, /\[checkbox "Wi-Fi" checked e\d+\]/);
});

test('vuetify: dialog, menu, tabs and snackbar are opened, used and closed by the texts a user reads', async () => {
  await open('vuejq-vuetify.html');
  let r = await click('Delete account');
  ok(r);
  assert.match(md(r), /Delete the account\?/, 'the dialog is not shown');
  r = await click('Cancel');
  ok(r);
  assert.match(md(r), /Dialog result: cancelled/);
  assert.doesNotMatch(md(r), /Delete the account\?/, 'the closed dialog is still shown');
  ok(await click('Actions'));
  r = await click('Archive');
  ok(r);
  assert.match(md(r), /Menu action: archive/);
  assert.doesNotMatch(md(r), /"Rename"/, 'the closed menu is still shown');
  r = await click('Billing');
  ok(r);
  assert.match(md(r), /\[tab "Billing" selected/);
  assert.match(md(r), /Billing panel text/);
  assert.doesNotMatch(md(r), /Overview panel text/, 'the hidden tab panel is shown');
  r = await click('Save draft');
  ok(r);
  assert.match(md(r), /Draft saved/);
  r = await click('Close');
  ok(r);
  assert.doesNotMatch(md(r), /Draft saved/, 'the closed snackbar is still shown');
});

// ---------------------------------------------------------------- Element Plus

test('element-plus: a second choice in a multiple el-select goes through the box that shows the first (its input hidden)', async () => {
  await open('vuejq-element.html');
  ok(await select('Colors', 'Green'), 'first color');
  const r = await select('Colors', 'Blue');
  ok(r, 'second color');
  assert.match(md(r), /Colors chosen: green, blue/);
  assert.deepEqual(shownOptions(md(r)), [], `the list is still shown:\n${md(r)}`);
});

test('element-plus: fill_form on a filterable el-select picks the option typed, never leaves only the typed text', async () => {
  await open('vuejq-element.html');
  const r = await fill([{ target: 'Fruit', value: 'Banana' }, { target: 'City', value: 'Lisbon' }, { target: 'Start date', value: '2026-03-14' }]);
  ok(r);
  assert.match(md(r), /Fruit chosen: banana/);
  assert.match(md(r), /City chosen: lisbon/, 'fill_form said success, but the filterable select chose nothing');
  assert.match(md(r), /Date chosen: 2026-03-14/);
  const now = await page();
  assert.match(now, /City chosen: lisbon/, 'the choice did not stay');
});

test('element-plus: el-dialog and ElMessageBox.confirm are answered by their buttons', async () => {
  await open('vuejq-element.html');
  let r = await click('Open settings');
  ok(r);
  assert.match(md(r), /Apply the new settings\?/);
  r = await click('Apply');
  ok(r);
  assert.match(md(r), /Dialog result: applied/);
  assert.doesNotMatch(md(r), /Apply the new settings\?/, 'the closed dialog is still shown');
  r = await click('Remove file');
  ok(r);
  assert.match(md(r), /Remove the file for good\?/);
  r = await click('Keep');
  ok(r);
  assert.match(md(r), /Message box: kept/);
  assert.doesNotMatch(md(r), /Remove the file for good\?/, 'the closed message box is still shown');
});

test('element-plus: select_option on the read-only cascader field says to click it, and clicking through its menus chooses', async () => {
  await open('vuejq-element.html');
  const bad = await select('Place', 'Amsterdam');
  assert.equal(bad.status, 'error');
  assert.match(err(bad), /read-only: click it/, err(bad));
  assert.doesNotMatch(err(bad), /type into it/, err(bad));
  for (const t of ['Place', 'Europe', 'Netherlands', 'Amsterdam']) ok(await click(t), `click ${t}`);
  assert.match(await page(), /Place chosen: eu\/nl\/ams/);
});

// ---------------------------------------------------------------- Select2

// Select2 4.0 marks its open results list aria-expanded, and that list (the pop-up its search field
// points at) was taken for a drop-down of its own: its options were one [combobox] token, and a click
// on a disabled option ("California (disabled)" on AdminLTE's demo page) "Clicked [combobox]".
test('select2: its open list shows its options, and a disabled one is refused, not the list clicked', async () => {
  await open('vuejq-select2.html');
  let r = await click('City');
  ok(r, 'open City');
  assert.match(md(r), /\[option "Berlin" e\d+\]/, md(r));
  assert.match(md(r), /\[option "Paris" disabled e\d+\]/, md(r));
  r = await click('Paris');
  assert.equal(r.status, 'error', msg(r));
  assert.match(err(r), /^\[option "Paris" disabled e\d+\] is disabled/, err(r));
  assert.match(md(r), /City chosen: ams/);
});

// Bootstrap's form groups (AdminLTE's pages): a <label> tied to no field above the select. Select2's
// field was unnamed, and "Size" matched nothing: the select Select2 hides (clipped to a pixel)
// counted as a second field in the group, so the label named neither.
test('select2: a field under a <label> tied to no field is named by it and chosen in by it', async () => {
  await open('vuejq-select2.html');
  let r = await select('Size', 'Large');
  ok(r, 'size');
  assert.match(md(r), /\[combobox "Size" value="Large" e\d+\]/, md(r));
  assert.match(md(r), /Size chosen: l/);
  r = await env.call('browser_select_option', { target: 'Toppings', values: ['Ham', 'Onions'] });
  ok(r, 'toppings');
  assert.match(md(r), /Toppings chosen: ham, onions/);
});

test('select2: two choices in a multiple select both hold, each reported as the one chosen', async () => {
  await open('vuejq-select2.html');
  ok(await select('Colors', 'Green'), 'first color');
  const r = await select('Colors', 'Blue');
  ok(r, 'second color');
  assert.match(String(r.result?.message), /Selected "Blue"/, `the message names another choice: ${msg(r)}`);
  assert.match(md(r), /Colors chosen: green, blue/);
  assert.deepEqual(shownOptions(md(r)), [], `the list is still shown:\n${md(r)}`);
});

test('select2: values makes exactly those the choices through the widget: the missing ones are chosen there, the others taken out by their chips\' ×', async () => {
  await open('vuejq-select2.html');
  let r = await env.call('browser_select_option', { target: 'Colors', values: ['Green', 'Yellow'] });
  ok(r, 'two colors at once');
  assert.match(String(r.result?.message), /^Selected "Green", "Yellow" in \[.*\] through .*, the widget a user sees$/, msg(r));
  assert.match(md(r), /Colors chosen: green, yellow/);
  assert.deepEqual(shownOptions(md(r)), [], `the list is still shown:\n${md(r)}`);
  r = await env.call('browser_select_option', { target: 'Colors', values: ['Yellow', 'Green', 'Red'] });
  ok(r, 'one more');
  assert.match(md(r), /Colors chosen: red, green, yellow/);
  // (it was an error, "take them out in the widget": a user takes them out by their ×)
  r = await env.call('browser_select_option', { target: 'Colors', values: ['Red'] });
  ok(r, 'only Red');
  assert.match(String(r.result?.message), /, and took out "Green", "Yellow"$/, msg(r));
  assert.match(md(r), /Colors chosen: red\b/);
  assert.deepEqual(shownOptions(md(r)), [], `the list is still shown:\n${md(r)}`);
});

// fill_form on a multiple select took one value: "Green, Yellow" (as its token lists choices) was an
// error, no such option. It holds the options given, through the widget.
test('select2: fill_form with "Green, Yellow" on the multiple select chooses both through the widget', async () => {
  await open('vuejq-select2.html');
  const r = await fill([{ target: 'Colors', value: 'Green, Yellow' }, { target: 'Fruit', value: 'Cherry' }]);
  ok(r);
  assert.match(md(r), /Colors chosen: green, yellow/);
  assert.match(md(r), /Fruit chosen: cherry/);
  assert.deepEqual(shownOptions(md(r)), [], `the list is still shown:\n${md(r)}`);
});

test('select2: single and searchable selects by the label, and an unknown option is an error', async () => {
  await open('vuejq-select2.html');
  const r = await fill([{ target: 'Fruit', value: 'Cherry' }, { target: 'City', value: 'Lisbon' }]);
  ok(r);
  assert.match(md(r), /Fruit chosen: cherry/);
  assert.match(md(r), /City chosen: lis/);
  // Select2 labels its combobox by the choice it shows: named by its select's label, the choice its value
  assert.match(md(r), /\[combobox "Fruit" value="Cherry"/, md(r));
  const bad = await select('Fruit', 'Durian');
  assert.equal(bad.status, 'error');
  assert.match(err(bad), /no option/, err(bad));
  assert.match(await page(), /Fruit chosen: cherry/);
});

// ---------------------------------------------------------------- DataTables

// The table's body rows in the Markdown (after its header separator).
const dataRows = (m) => { const l = m.split('\n'); const i = l.findIndex((x) => /^\| --- \|/.test(x)); return i < 0 ? [] : l.slice(i + 1).filter((x) => x.startsWith('| ')); };

test('datatables: the page shown, the sort and the search follow the clicks, and the Markdown says which page and sort', async () => {
  let m = md(await open('vuejq-datatables.html'));
  assert.match(m, /\| Airi Satou \| Tokyo \| 20 \|/, `the table did not render:\n${m}`);
  assert.match(m, /\[button "1" current e\d+\]/, `the current page is not marked:\n${m}`);
  assert.match(m, /Name<br>\[button [^\]]*\] ↑/, `the sorted column shows no arrow:\n${m}`);
  let r = await click('2');
  ok(r);
  m = md(r);
  assert.match(m, /State: page 2 of 3/);
  assert.match(m, /\| Charde Marshall \| Tokyo \| 45 \|/);
  assert.match(m, /\[button "2" current e\d+\]/);
  assert.doesNotMatch(m, /\[button "1" current/);
  r = await click('Age: Activate to sort');
  ok(r);
  m = md(r);
  assert.match(m, /order \\\[\\\[2,"asc"\\\]\\\]/);
  assert.match(m, /Age<br>\[button [^\]]*\] ↑/);
  assert.deepEqual(dataRows(m).slice(0, 2), ['| Airi Satou | Tokyo | 20 |', '| Donna Snider | New York | 21 |'], m);
  r = await env.call('browser_type', { target: 'Search:', text: 'London' });
  ok(r);
  m = md(r);
  assert.match(m, /Showing 1 to 5 of 5 entries/);
  const rows = dataRows(m);
  assert.equal(rows.length, 5, m);
  assert.ok(rows.every((l) => l.includes('| London |')), rows.join('\n'));
});

// ---------------------------------------------------------------- Quasar

test('quasar: an empty QSelect shows no value (its floating label is no choice); fill_form sets a QToggle and a QCheckbox through their own boxes, and a chips multi-select (a <label> field) holds two; a field\'s error inside its <label> is shown', async () => {
  let r = await open('vuejq-quasar.html');
  const state = (m) => JSON.parse((m.split('\n').find((l) => l.startsWith('State:')) || '').slice('State:'.length).trim().replace(/\\([\\[\]*_`])/g, '$1'));
  assert.match(md(r), /\[combobox "Favourite fruit" e\d+\]/, 'the empty select showed its label as its value');
  r = await fill([{ target: 'Wi-Fi', value: 'true' }, { target: 'I accept the license and terms', value: 'true' }, { target: 'Other fruits', value: 'Apple, Orange' }]);
  ok(r, 'fill_form');
  let s = state(md(r));
  assert.equal(s.wifi, true);
  assert.equal(s.agree, true);
  assert.deepEqual(s.fruits, ['Apple', 'Orange']);
  r = await fill([{ target: 'Wi-Fi', value: 'false' }]);
  ok(r, 'Wi-Fi off');
  s = state(md(r));
  assert.equal(s.wifi, false, 'fill_form said the toggle was set off');
  // the rule's message is drawn in the field's own <label>: shown after its token
  r = await click('Submit');
  ok(r, 'Submit');
  assert.match(md(r), /\[input text "Your name \*" invalid e\d+\]\n+\[alert\] Please type something/, md(r));
});
