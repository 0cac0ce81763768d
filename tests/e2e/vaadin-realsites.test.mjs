// Real-site suite for Vaadin web components 25 (product rule #1: `success` only when the
// component's own state took the change; rule #2: the Markdown shows what a user sees). The
// components are shadow-DOM hosts whose inputs are slotted light-DOM <input>s and whose overlays
// (a combo box's list, a date picker's calendar, a select's list, a menu bar's sub-menus, a
// dialog) are drawn in the top layer from their own shadow trees. The shell entry
// (tests/fixtures/realsites/vaadin.js, ESM with bare imports) is bundled at test time with esbuild
// and loaded by vaadin.html, which renders the components' state as JSON into <output id="state">.
//   node --test tests/e2e/vaadin-realsites.test.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startBundled, answerHelpers, requirePackages } from './support/realsites.mjs';

let bundled, env, srv;
before(async () => {
  requirePackages(['@vaadin/combo-box', '@vaadin/date-picker', '@vaadin/grid', '@vaadin/dialog', '@vaadin/select', '@vaadin/menu-bar', '@vaadin/button', '@vaadin/text-field']);
  bundled = await startBundled(['vaadin']);
  ({ env, srv } = bundled);
});
after(async () => { await bundled?.close(); });

const { msg, md, ok, err, call, lineOf, stateIn } = answerHelpers(() => env);
async function open() {
  const r = await call('browser_open_url', { url: srv.url('/shells/vaadin.html') });
  ok(r, 'open vaadin.html');
  assert.match(md(r), /^Ready$/m, 'the components did not load');
  // The grid's cells (vaadin-grid-cell-content, made by the grid's script, never defined) are
  // its parts, not components whose definition is awaited (page/settle.js).
  const settle = r.result?.settle || r.result?.result?.settle;
  assert.equal(settle?.pending?.undefinedElements, undefined, JSON.stringify(settle));
  return r;
}

// ---------------------------------------------------------------- combo box

test('combo box: typed text filters the overlay list, a click on its item and select_option choose, the value shows', async () => {
  await open();
  let r = await call('browser_type', { target: 'Fruit', text: 'an' });
  ok(r, 'type an');
  assert.match(lineOf(md(r), /combobox "Fruit"/), /expanded/);
  assert.match(md(r), /\[option "Mango" e\d+\]/);
  assert.doesNotMatch(md(r), /\[option "Apple"/, 'the filter did not apply');
  r = await call('browser_click', { target: 'Mango' });
  ok(r, 'click Mango');
  assert.equal(stateIn(md(r)).fruit, 'Mango');
  assert.match(lineOf(md(r), /combobox "Fruit"/), /value="Mango"/);
  assert.doesNotMatch(md(r), /\[option "/, 'the list is left open');
  r = await call('browser_select_option', { target: 'Fruit', value: 'Plum' });
  ok(r, 'select Plum');
  assert.equal(stateIn(md(r)).fruit, 'Plum');
  assert.match(lineOf(md(r), /combobox "Fruit"/), /value="Plum"/);
});

test('combo box: an item far down a virtualised list of 500 is chosen by select_option', async () => {
  await open();
  const r = await call('browser_select_option', { target: 'City', value: 'City 377' });
  ok(r, 'select City 377');
  assert.equal(stateIn(md(r)).city, 'City 377');
  assert.match(lineOf(md(r), /combobox "City"/), /value="City 377"/);
});

test('combo box: allow-custom-value takes typed text; a list-only combo box refuses it and names its options', async () => {
  await open();
  let r = await call('browser_fill_form', { fields: [{ target: 'Tag', value: 'zeta' }] });
  ok(r, 'fill Tag');
  assert.equal(stateIn(md(r)).tag, 'zeta');
  assert.match(lineOf(md(r), /combobox "Tag"/), /value="zeta"/);
  r = await call('browser_fill_form', { fields: [{ target: 'Fruit', value: 'Durian' }] });
  assert.equal(r.status, 'error', 'a value that is no option was reported filled');
  assert.match(err(r), /no option "Durian".*"Apple"/);
  assert.equal(stateIn(md(await call('browser_get_page', {}))).fruit, null);
});

// fill_form with an empty value matched the first element of the open overlay whose text is empty
// (a scroller, a spacer) and clicked it: the item under that point was chosen, and the answer was
// an error on top of a changed value. An empty value clears the field, as a user empties it.
test('combo box: fill_form with an empty value clears the choice, never clicks some other item', async () => {
  await open();
  let r = await call('browser_select_option', { target: 'Fruit', value: 'Plum' });
  ok(r, 'select Plum');
  r = await call('browser_fill_form', { fields: [{ target: 'Fruit', value: '' }] });
  ok(r, 'fill Fruit with ""');
  assert.equal(stateIn(md(r)).fruit, '', 'the combo box was not cleared');
  assert.doesNotMatch(lineOf(md(r), /combobox "Fruit"/), /value=/);
  r = await call('browser_select_option', { target: 'Fruit', value: '' });
  assert.equal(r.status, 'error', 'select_option of "" chose something');
  assert.equal(stateIn(md(await call('browser_get_page', {}))).fruit, '', 'select_option of "" changed the value');
});

// ---------------------------------------------------------------- date picker and select

test('date picker: a typed date is taken and shown; the calendar opens as a dialog and Cancel closes it', async () => {
  await open();
  let r = await call('browser_type', { target: 'Delivery date', text: '3/15/2026', submit: true });
  ok(r, 'type a date');
  assert.equal(stateIn(md(r)).date, '2026-03-15');
  assert.match(lineOf(md(r), /combobox "Delivery date"/), /value="3\/15\/2026"/);
  r = await call('browser_click', { target: 'Delivery date' });
  ok(r, 'open the calendar');
  assert.match(md(r), /\[dialog "Calendar"/);
  r = await call('browser_click', { target: 'Cancel' });
  ok(r, 'Cancel');
  assert.doesNotMatch(md(r), /\[dialog "Calendar"/, 'the calendar is still shown');
  assert.equal(stateIn(md(r)).date, '2026-03-15');
});

// The calendar is a <table role=grid> named by its month's title, which the page marks aria-hidden
// (it names the grid), and it keeps its hidden week-number cells (display: none) in every row: the
// Markdown showed the days under no month, with a column of week numbers no user sees. The months
// around the shown one are rendered too, aria-hidden (the Markdown leaves them out): a click on
// "20", the day the agent read, was ambiguous between three months.
test('date picker: the open calendar shows its month over the days a user sees, and a click on a day number picks that day', async () => {
  await open();
  let r = await call('browser_type', { target: 'Delivery date', text: '3/15/2026', submit: true });
  ok(r, 'type a date');
  r = await call('browser_click', { target: 'Delivery date' });
  ok(r, 'open the calendar');
  const m = md(r);
  assert.match(m, /^March 2026$/m, 'the month shown is not named');
  assert.match(m, /^\| Sun \| Mon \| Tue \| Wed \| Thu \| Fri \| Sat \|$/m, 'a hidden column is shown');
  assert.match(m, /^\| 15 \| 16 \| 17 \| 18 \| 19 \| 20 \| 21 \|$/m);
  r = await call('browser_click', { target: '20' });
  ok(r, 'click 20');
  assert.match(msg(r), /20 March 2026/);
  assert.equal(stateIn(md(r)).date, '2026-03-20');
  assert.match(lineOf(md(r), /combobox "Delivery date"/), /value="3\/20\/2026"/);
  assert.doesNotMatch(md(r), /\[dialog "Calendar"/, 'the calendar is left open');
});

test('select: select_option and a click on the overlay item choose, the label shows as the value', async () => {
  await open();
  let r = await call('browser_select_option', { target: 'Size', value: 'Large' });
  ok(r, 'select Large');
  assert.equal(stateIn(md(r)).size, 'l');
  assert.match(lineOf(md(r), /combobox "Size"/), /value="Large"/);
  r = await call('browser_click', { target: 'Size' });
  ok(r, 'open Size');
  assert.match(md(r), /\[option "Medium" e\d+\]/);
  r = await call('browser_click', { target: 'Medium' });
  ok(r, 'click Medium');
  assert.equal(stateIn(md(r)).size, 'm');
  assert.match(lineOf(md(r), /combobox "Size"/), /value="Medium"/);
});

// ---------------------------------------------------------------- grid

// The grid's cells are light-DOM elements slotted into the scroller of its shadow root: scroll
// looked for the box that scrolls the target through parentElement only, found none, and scrolled
// the (unscrollable) page; the rows below never came. Nor did the Markdown say that the grid has
// 200 rows (aria-rowcount) of which it renders 9, and it showed the grid's empty-state row, which
// has no height, as an empty row.
test('grid: scroll with a cell as target scrolls the grid, and rows beyond its viewport come into the Markdown', async () => {
  await open();
  const first = await call('browser_get_page', {});
  assert.doesNotMatch(md(first), /Person 030/);
  // the grid renders only some of its 200 rows: the Markdown says which, and shows no empty row
  assert.match(md(first), /^\(rows 1–\d+ of 200\)$/m, 'nothing says the grid has more rows');
  assert.doesNotMatch(md(first), /^\|( \|)+$/m, 'an empty row no user sees is shown');
  let r = first;
  for (let i = 0; i < 8 && !/Person 030/.test(md(r)); i++) {
    // (a row the grid shows now: the cell an agent reads in the Markdown)
    const row = lineOf(md(r), /^\| Person \d+ \|/).split('|')[1].trim();
    r = await call('browser_scroll', { target: row, direction: 'down' });
    ok(r, 'scroll the grid');
    assert.doesNotMatch(msg(r), /the page/, 'the page was scrolled, not the grid');
  }
  assert.match(md(r), /\| Person 030 \| \d+ \| \[button "Delete Person 030" e\d+\] \|/);
  const [, lo, hi] = md(r).match(/^\(rows (\d+)–(\d+) of 200\)$/m) || [];
  assert.ok(Number(lo) > 1 && Number(lo) <= 30 && Number(hi) >= 30, `the rows shown are not said: ${lo}–${hi}`);
  r = await call('browser_click', { target: 'Delete Person 030' });
  ok(r, 'click the cell button');
  assert.equal(stateIn(md(r)).deleted, 'Person 030');
});

test('grid: a sort header sorts, a row click selects, a button in a cell acts', async () => {
  await open();
  let r = await call('browser_click', { target: 'Sort by Age' });
  ok(r, 'sort by age');
  const rows = md(r).split('\n').filter((l) => /^\| Person \d+ \| \d+ \|/.test(l)).map((l) => Number(l.split('|')[2]));
  assert.ok(rows.length >= 5, 'no rows');
  assert.deepEqual(rows, [...rows].sort((a, b) => a - b), 'the rows are not sorted by age');
  const name = lineOf(md(r), /^\| Person \d+ \| \d+ \|/).split('|')[1].trim();
  r = await call('browser_click', { target: name });
  ok(r, 'click a row');
  assert.equal(stateIn(md(r)).deleted, null, `a click on "${name}" pressed the row's Delete button`);
  assert.equal(stateIn(md(r)).selected, name);
  // the selected row (aria-selected on the row) is marked, as its highlight shows a user
  assert.match(md(r), new RegExp(`^\\| \\(selected\\) ${name} \\|`, 'm'), 'the selected row is not marked');
  assert.equal(md(r).split('\n').filter((l) => l.includes('(selected)')).length, 1);
  r = await call('browser_click', { target: `Delete ${name}` });
  ok(r, 'click Delete');
  assert.equal(stateIn(md(r)).deleted, name);
});

// ---------------------------------------------------------------- dialog

// The dialog draws its backdrop and panel in its own shadow tree (its content is slotted from its
// light DOM), so the modal layer's dialog is its shadow host, not a node inside the layer: the
// page behind was listed as actionable, and a click there failed only as "covered by <div>".
test('dialog: opened from a button, the page behind is inert, its field and buttons act, closing restores the page', async () => {
  await open();
  let r = await call('browser_click', { target: 'Order…' });
  ok(r, 'open the dialog');
  assert.match(md(r), /\[dialog "Confirm order" modal\]/);
  assert.match(lineOf(md(r), /button "Behind"/), /\[button "Behind" inert e\d+\]/, 'the page behind the modal is not shown inert');
  assert.match(lineOf(md(r), /button "Place order"/), /\[button "Place order" e\d+\]/);
  r = await call('browser_click', { target: 'Behind' });
  assert.equal(r.status, 'error', 'a click behind the modal was reported done');
  assert.match(err(r), /behind the open dialog "Confirm order"/);
  r = await call('browser_type', { target: 'Note', text: 'ring twice' });
  ok(r, 'type the note');
  r = await call('browser_click', { target: 'Place order' });
  ok(r, 'Place order');
  assert.equal(stateIn(md(r)).dialog, 'placed:ring twice');
  assert.doesNotMatch(md(r), /\[dialog "Confirm order"/, 'the closed dialog is still shown');
  assert.match(lineOf(md(r), /button "Behind"/), /\[button "Behind" e\d+\]/);
});

// ---------------------------------------------------------------- menu bar

test('menu bar: a top item opens its sub-menu, hover opens the nested one, a click chooses', async () => {
  await open();
  let r = await call('browser_click', { target: 'File' });
  ok(r, 'open File');
  assert.match(md(r), /\[menuitem "Open recent" e\d+\]/);
  assert.doesNotMatch(md(r), /\[menuitem "notes\.txt"/, 'a closed sub-menu is shown');
  r = await call('browser_hover', { target: 'Open recent' });
  ok(r, 'hover Open recent');
  assert.match(md(r), /\[menuitem "notes\.txt" e\d+\]/);
  r = await call('browser_click', { target: 'notes.txt' });
  ok(r, 'click notes.txt');
  assert.equal(stateIn(md(r)).menu, 'notes.txt');
  assert.doesNotMatch(md(r), /\[menuitem "New"/, 'the menu is left open');
});

// ---------------------------------------------------------------- validation

// The required indicator (an asterisk drawn by CSS beside the label) and the invalid state (the
// error message shown under the field) were nowhere in the field's token: an agent could not tell
// a field must be filled, nor which field the error shown below belongs to.
test('text field: required and invalid (with its error message) show on the field, invalid only once the page says so', async () => {
  let r = await open();
  assert.match(lineOf(md(r), /input text "Email"/), /\[input text "Email" required e\d+\]/, 'a required field is not shown required, or an untouched one is shown invalid');
  assert.doesNotMatch(md(r), /Enter a valid email/);
  r = await call('browser_type', { target: 'Email', text: 'bad' });
  ok(r, 'type bad');
  r = await call('browser_press_key', { key: 'Tab' });
  ok(r, 'leave the field');
  assert.match(lineOf(md(r), /input text "Email"/), /value="bad" required invalid e\d+\]/, 'the invalid state is not shown');
  assert.match(md(r), /^Enter a valid email$/m);
  r = await call('browser_type', { target: 'Email', text: 'ada@example.com' });
  ok(r, 'type a valid email');
  r = await call('browser_press_key', { key: 'Tab' });
  ok(r, 'leave the field');
  assert.doesNotMatch(lineOf(md(r), /input text "Email"/), /invalid/, 'a valid field is shown invalid');
  assert.doesNotMatch(md(r), /Enter a valid email/);
});
