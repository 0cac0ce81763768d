// Real-site suite for React component libraries (product rule #1: `success` only when the page's
// own React state took the change; rule #2: the Markdown shows what a user sees). Four libraries
// installed from npm, on React 19, set up with their documented API only; each entry
// (tests/fixtures/realsites/react-*.js) is bundled at test time with esbuild and loaded by its
// shell (react-*.html), and renders its React state as JSON into <output id="state">:
//   - react-mui.js: MUI (TextField with a floating label, Select, Autocomplete, Checkbox, Switch,
//     Slider whose range input is visually hidden inside its thumb, Tabs, Menu, Dialog);
//   - react-select.js: react-select, single (searchable) and multi: a typeable <input role=combobox>
//     that only filters, the choice is the option clicked;
//   - react-radix.js: Radix UI (Select drawn as <button role=combobox> named by a <label for>,
//     Checkbox and Switch as buttons, Tabs, DropdownMenu that opens on pointerdown, Dialog);
//   - react-headless.js: Headless UI (Listbox, Combobox, Switch, Menu, Dialog);
//   - react-muix.js, react-aria.js, react-ark.js, react-mantine.js, react-prime.js: MUI X's date
//     fields, React Aria Components, Ark UI, Mantine, PrimeReact, Downshift, React Suite, Ariakit,
//     Base UI (each file's header says what).
// Each success is checked against the page's state; each failure against the state not changing.
//   node --test tests/e2e/react-realsites.test.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startBundled, answerHelpers, requirePackages } from './support/realsites.mjs';

const ENTRIES = ['react-mui', 'react-select', 'react-radix', 'react-headless', 'react-muix', 'react-aria', 'react-ark', 'react-mantine', 'react-prime', 'react-downshift', 'react-rsuite', 'react-ariakit', 'react-baseui'];
let bundled, env, srv;
before(async () => {
  requirePackages(['react', 'react-dom', '@mui/material', '@emotion/react', '@emotion/styled', 'react-select', 'radix-ui', '@headlessui/react', '@mui/x-date-pickers', 'dayjs', 'react-aria-components', '@ark-ui/react', '@mantine/core', '@mantine/dates', 'primereact', 'downshift', 'rsuite', '@ariakit/react', '@base-ui-components/react']);
  bundled = await startBundled(ENTRIES, { define: { 'process.env.NODE_ENV': '"production"' } });
  ({ env, srv } = bundled);
});
after(async () => { await bundled?.close(); });

const { msg, md, ok, err, call, lineOf, stateIn } = answerHelpers(() => env);
const state = async () => stateIn(md(await call('browser_get_page', {})));
async function open(shell, ready) {
  const r = await call('browser_open_url', { url: srv.url('/shells/' + shell) });
  ok(r, `open ${shell}`);
  assert.match(md(r), ready, `${shell} did not render`);
  return r;
}

// ---------------------------------------------------------------- MUI

test('mui: fill_form over a floating-label text field, a Select, an Autocomplete, a checkbox, a switch and a slider', async () => {
  await open('react-mui.html', /# Account/);
  const r = await call('browser_fill_form', { fields: [
    { target: 'Full name', value: 'Ada Lovelace' }, { target: 'Plan', value: 'Team' }, { target: 'Country', value: 'Norway' },
    { target: 'I accept the terms', value: 'true' }, { target: 'Email alerts', value: 'true' }, { target: 'Volume', value: '70' },
  ] });
  ok(r, 'fill_form');
  const s = stateIn(md(r));
  assert.deepEqual({ name: s.name, plan: s.plan, country: s.country, terms: s.terms, alerts: s.alerts, volume: s.volume },
    { name: 'Ada Lovelace', plan: 'team', country: 'Norway', terms: true, alerts: true, volume: 70 }, 'the page\'s state did not take every field');
  assert.match(lineOf(md(r), /"Plan"/), /value="Team"/);
  assert.match(lineOf(md(r), /"Country"/), /value="Norway"/);
  assert.match(lineOf(md(r), /"Volume"/), /value="70"/);
  assert.doesNotMatch(md(r), /\[option "/, 'a list is left open');
});

test('mui: the slider whose range input hides inside its thumb takes a typed number and arrow keys', async () => {
  await open('react-mui.html', /# Account/);
  let r = await call('browser_type', { target: 'Volume', text: '40' });
  ok(r, 'type 40');
  assert.equal(stateIn(md(r)).volume, 40);
  r = await call('browser_press_key', { target: 'Volume', key: 'ArrowRight' });
  ok(r, 'press ArrowRight');
  assert.match(msg(r), /input range/, `the key went elsewhere: ${msg(r)}`);
  assert.equal(stateIn(md(r)).volume, 50);
});

test('mui: select_option on the Select by its label; an Autocomplete suggestion clicked after typing', async () => {
  await open('react-mui.html', /# Account/);
  let r = await call('browser_select_option', { target: 'Plan', value: 'Professional' });
  ok(r, 'select Professional');
  assert.equal(stateIn(md(r)).plan, 'pro');
  r = await call('browser_type', { target: 'Country', text: 'Por' });
  ok(r, 'type Por');
  assert.match(md(r), /\[option "Portugal"/, 'the suggestion is not shown');
  // the typeable <input role=combobox> is shown as the combobox it is, its list open
  assert.match(lineOf(md(r), /"Country"/), /\[combobox "Country" value="Por" expanded e\d+\]/);
  r = await call('browser_click', { target: 'Portugal' });
  ok(r, 'click Portugal');
  assert.equal(stateIn(md(r)).country, 'Portugal');
  assert.doesNotMatch(md(r), /\[option "/, 'the suggestions are still shown');
});

test('mui: an option the Select does not have is an error naming its options, and its list (which took the focus) is closed again', async () => {
  await open('react-mui.html', /# Account/);
  const r = await call('browser_select_option', { target: 'Plan', value: 'Gold' });
  assert.equal(r.status, 'error', `expected an error, got ${msg(r)}`);
  assert.match(err(r), /no option "Gold"/, err(r));
  assert.match(err(r), /"Free", "Professional", "Team"/, `the options are not listed: ${err(r)}`);
  const m = md(await call('browser_get_page', {}));
  assert.doesNotMatch(m, /\[option "/, `the list is left open:\n${m}`);
  assert.equal(stateIn(m).plan, '');
  // nothing of the list is left over the fields below it
  const t = await call('browser_type', { target: 'Country', text: 'Ita' });
  ok(t, 'type into the field below');
});

test('mui: a menu item clicked, a tab chosen, a dialog filled and saved (shown while open, gone after)', async () => {
  await open('react-mui.html', /# Account/);
  let r = await call('browser_click', { target: 'Actions' });
  ok(r, 'open the menu');
  assert.match(md(r), /\[menuitem "Archive"/);
  r = await call('browser_click', { target: 'Archive' });
  ok(r, 'click Archive');
  assert.equal(stateIn(md(r)).action, 'Archive');
  assert.doesNotMatch(md(r), /\[menuitem /, 'the menu is still shown');
  r = await call('browser_click', { target: 'Billing' });
  ok(r, 'click Billing');
  assert.equal(stateIn(md(r)).tab, 1);
  assert.match(md(r), /\[tab "BILLING" selected/);
  r = await call('browser_click', { target: 'Edit nickname' });
  ok(r, 'open the dialog');
  assert.match(md(r), /Change nickname/);
  r = await call('browser_fill_form', { fields: [{ target: 'Nickname', value: 'ada' }] });
  ok(r, 'fill the dialog');
  r = await call('browser_click', { target: 'Save nickname' });
  ok(r, 'save');
  assert.equal(stateIn(md(r)).nickname, 'ada');
  assert.doesNotMatch(md(r), /Change nickname/, 'the dialog is still shown');
});

// ---------------------------------------------------------------- react-select

test('react-select: fill_form chooses the option in a single and a multi select (typing only filters)', async () => {
  const m = md(await open('react-select.html', /# Ice cream/));
  assert.match(m, /\[combobox "Flavour" e\d+\]/, `the select's input is not shown as a combobox:\n${m}`);
  const r = await call('browser_fill_form', { fields: [{ target: 'Flavour', value: 'Pistachio' }, { target: 'Toppings', value: 'Hot fudge' }] });
  ok(r, 'fill_form');
  assert.deepEqual(stateIn(md(r)), { flavour: 'pistachio', toppings: ['fudge'] }, 'nothing was chosen: the text was only typed');
  assert.doesNotMatch(md(r), /\[option "/, 'a list is left open');
  const r2 = await call('browser_select_option', { target: 'Toppings', value: 'Nuts' });
  ok(r2, 'select Nuts');
  assert.deepEqual(stateIn(md(r2)).toppings, ['fudge', 'nuts']);
  // filled with one of them, the multi select holds that one: its list leaves the chosen out, so
  // the other is taken out by its chip's "Remove" mark (it said "Filled" holding both)
  const r3 = await call('browser_fill_form', { fields: [{ target: 'Toppings', value: 'Nuts' }] });
  ok(r3, 'fill Nuts');
  assert.deepEqual(stateIn(md(r3)).toppings, ['nuts']);
});

test('react-select: fill_form with a value that is no option is an error naming the options, and nothing is chosen', async () => {
  await open('react-select.html', /# Ice cream/);
  const r = await call('browser_fill_form', { fields: [{ target: 'Flavour', value: 'Durian' }] });
  assert.equal(r.status, 'error', `expected an error, got ${msg(r)}`);
  assert.match(err(r), /no option "Durian"/, err(r));
  assert.match(err(r), /"Chocolate", "Strawberry", "Vanilla", "Pistachio"/, `the options are not listed: ${err(r)}`);
  assert.deepEqual(await state(), { flavour: null, toppings: [] });
});

// A line break in the text typed into a one-line field is the Enter key, as a user's keyboard
// gives it: react-select takes the option its filter is on. Trusted typing dropped it.
test('react-select: typing "Van" and a line break chooses Vanilla, as typing and Enter do', async () => {
  await open('react-select.html', /# Ice cream/);
  const r = await call('browser_type', { target: 'Flavour', text: 'Van\n' });
  ok(r, 'type');
  assert.deepEqual(stateIn(md(r)).flavour, 'vanilla', `Enter did not take the option: ${msg(r)}`);
  assert.doesNotMatch(msg(r), /\(the field/, 'what Enter did is no note about the text');
});

// ---------------------------------------------------------------- Radix UI

test('radix: the Select (a <button role=combobox> named by a <label for>) is a combobox, filled by fill_form with a checkbox and a switch', async () => {
  const m = md(await open('react-radix.html', /# Settings/));
  // nothing chosen: its text is its placeholder (Radix marks the trigger data-placeholder), not a value
  assert.match(lineOf(m, /"City"/), /^\[combobox "City" placeholder="Pick a city"/, `the select is not shown as the labelled combobox:\n${m}`);
  const r = await call('browser_fill_form', { fields: [
    { target: 'City', value: 'Lisbon' }, { target: 'Send me the newsletter', value: 'true' }, { target: 'Airplane mode', value: 'true' },
  ] });
  ok(r, 'fill_form');
  const s = stateIn(md(r));
  assert.deepEqual({ city: s.city, newsletter: s.newsletter, airplane: s.airplane }, { city: 'lisbon', newsletter: true, airplane: true });
  assert.match(md(r), /\[combobox "City" value="Lisbon"/);
  // the tick drawn inside the checked box is not its name: its label still is
  assert.match(md(r), /\[checkbox "Send me the newsletter" checked/, `the checkbox lost its name:\n${md(r)}`);
  assert.match(md(r), /\[switch "Airplane mode" checked/);
});

test('radix: select_option on the Select; the pointerdown menu opened and an item clicked; tabs; the dialog filled and closed', async () => {
  await open('react-radix.html', /# Settings/);
  // typing into the Select is refused as what it is: a drop-down to choose in
  let r = await call('browser_type', { target: 'City', text: 'Oslo' });
  assert.equal(r.status, 'error', `expected an error, got ${msg(r)}`);
  assert.match(err(r), /is a drop-down.*browser_select_option/, err(r));
  assert.equal((await state()).city, '');
  r = await call('browser_select_option', { target: 'City', value: 'Oslo' });
  ok(r, 'select Oslo');
  assert.equal(stateIn(md(r)).city, 'oslo');
  r = await call('browser_click', { target: 'Options' });
  ok(r, 'open the menu');
  assert.match(md(r), /\[menuitem "Print"/);
  r = await call('browser_click', { target: 'Print' });
  ok(r, 'click Print');
  assert.equal(stateIn(md(r)).action, 'Print');
  r = await call('browser_click', { target: 'Password' });
  ok(r, 'click the Password tab');
  assert.equal(stateIn(md(r)).tab, 'password');
  assert.match(md(r), /Password panel text/);
  r = await call('browser_click', { target: 'Edit email' });
  ok(r, 'open the dialog');
  assert.match(md(r), /Change the address we write to/);
  r = await call('browser_type', { target: 'Email address', text: 'a@b.example' });
  ok(r, 'type the email');
  r = await call('browser_press_key', { key: 'Escape' });
  ok(r, 'Escape');
  assert.doesNotMatch(md(r), /Change the address we write to/, 'the dialog is still shown');
  assert.equal(stateIn(md(r)).email, '', 'a dialog closed by Escape saved its field');
});

test('radix and headless: the item the keyboard is on in an open menu or list is marked active, and Enter takes that one', async () => {
  await open('react-radix.html', /# Settings/);
  let r = await call('browser_click', { target: 'Options' });
  ok(r, 'open the menu');
  // while Radix's modal menu is open the page takes no clicks (pointer-events: none on <body>):
  // said so, not as a disabled button
  const e = await env.call('browser_click', { target: 'Edit email' });
  assert.equal(e.status, 'error', msg(e));
  assert.match(err(e), /takes no clicks now: the page takes none \(pointer-events: none\) while a menu or dialog is open/, err(e));
  r = await call('browser_press_key', { key: 'ArrowDown' });
  r = await call('browser_press_key', { key: 'ArrowDown' });
  ok(r, 'ArrowDown twice');
  assert.match(md(r), /\[menuitem "New window" active e\d+\]/, `the active item is not shown:\n${md(r)}`);
  assert.equal((md(r).match(/ active /g) || []).length, 1, 'more than one item is marked active');
  r = await call('browser_press_key', { key: 'Enter' });
  ok(r, 'Enter');
  assert.equal(stateIn(md(r)).action, 'New window');

  await open('react-headless.html', /# Task/);
  r = await call('browser_click', { target: 'More' });
  ok(r, 'open the menu');
  // a <button role=menuitem> is the menu item it says it is
  assert.match(md(r), /\[menuitem "Move" e\d+\]/, `the items are not shown as menu items:\n${md(r)}`);
  await call('browser_press_key', { key: 'Escape' });
  r = await call('browser_click', { target: 'Assignee' });
  ok(r, 'open the listbox');
  r = await call('browser_press_key', { key: 'ArrowDown' });
  r = await call('browser_press_key', { key: 'ArrowDown' });
  ok(r, 'ArrowDown twice');
  // (the listbox keeps the focus and points at the item with aria-activedescendant)
  const active = (md(r).match(/\[option "([^"]+)" active e\d+\]/) || [])[1];
  assert.ok(active, `no option is marked active:\n${md(r)}`);
  r = await call('browser_press_key', { key: 'Enter' });
  ok(r, 'Enter');
  assert.equal(stateIn(md(r)).assignee, active, 'Enter took another option than the one marked active');
});

// ---------------------------------------------------------------- Headless UI

test('headless: fill_form chooses in the Listbox (a button that opens a listbox) beside its Combobox and Switch', async () => {
  await open('react-headless.html', /# Task/);
  const r = await call('browser_fill_form', { fields: [
    { target: 'Assignee', value: 'Arlene McCoy' }, { target: 'Reviewer', value: 'Tanya Fox' }, { target: 'Notify watchers', value: 'true' },
  ] });
  ok(r, 'fill_form');
  const s = stateIn(md(r));
  assert.deepEqual({ assignee: s.assignee, reviewer: s.reviewer, notify: s.notify }, { assignee: 'Arlene McCoy', reviewer: 'Tanya Fox', notify: true });
  assert.doesNotMatch(md(r), /\[option "/, 'a list is left open');
});

test('headless: Listbox by select_option, Combobox and Switch by fill_form, a menu item, the dialog', async () => {
  await open('react-headless.html', /# Task/);
  let r = await call('browser_select_option', { target: 'Assignee', value: 'Tom Cook' });
  ok(r, 'select Tom Cook');
  assert.equal(stateIn(md(r)).assignee, 'Tom Cook');
  r = await call('browser_fill_form', { fields: [{ target: 'Reviewer', value: 'Devon Webb' }, { target: 'Notify watchers', value: 'true' }] });
  ok(r, 'fill_form');
  assert.equal(stateIn(md(r)).reviewer, 'Devon Webb');
  assert.equal(stateIn(md(r)).notify, true);
  r = await call('browser_click', { target: 'More' });
  ok(r, 'open the menu');
  r = await call('browser_click', { target: 'Move' });
  ok(r, 'click Move');
  assert.equal(stateIn(md(r)).action, 'Move');
  r = await call('browser_click', { target: 'Rename task' });
  ok(r, 'open the dialog');
  r = await call('browser_fill_form', { fields: [{ target: 'Task title', value: 'Fix the bug' }] });
  ok(r, 'fill the dialog');
  r = await call('browser_click', { target: 'Save title' });
  ok(r, 'save');
  assert.equal(stateIn(md(r)).title, 'Fix the bug');
  assert.doesNotMatch(md(r), /Task title/, 'the dialog is still shown');
});

// MUI X's date and time fields are drawn as segments (MM/DD/YYYY: contenteditable spin buttons in a
// role=group) over a hidden input their label names: the Markdown showed only the label and the
// "Choose date" button, and typing by the label was "not visible to a user". Each is one field,
// typed into as a user types, a part at a time.
test('mui x: the date and time fields drawn as segments are fields, typed into by their labels; a part left empty is an error', async () => {
  let r = await open('react-muix.html', /# Booking/);
  assert.match(md(r), /\[input date "Check-in" placeholder="MM\/DD\/YYYY" e\d+\]/, md(r));
  assert.match(md(r), /\[input time "Arrival time" placeholder="hh:mm aa" e\d+\]/);
  assert.match(md(r), /\[button "Choose date" e\d+\]/, 'the picker\'s button beside the segments is gone');
  r = await call('browser_type', { target: 'Check-in', text: '03/14/2026' });
  ok(r, 'type the date');
  assert.match(md(r), /\[input date "Check-in" value="03\/14\/2026" e\d+\]/, md(r));
  r = await call('browser_fill_form', { fields: [{ target: 'Arrival time', value: '9:30 PM' }, { target: 'Check-in', value: '12/1/2027' }] });
  ok(r, 'fill_form');
  assert.deepEqual(stateIn(md(r)), { checkIn: '2027-12-01', arrival: '21:30' });
  assert.match(md(r), /\[input time "Arrival time" value="09:30 PM" e\d+\]/);
  // Only a month and a day: the year stays empty, and the page holds no date.
  r = await call('browser_type', { target: 'Check-in', text: '05/06' });
  assert.equal(r.status, 'error', msg(r));
  assert.match(err(r), /its Year is still empty: the field holds no value until each part is filled/, err(r));
  assert.deepEqual(stateIn(md(await call('browser_get_page', {}))).checkIn, null);
});

// React Aria Components: its DatePicker's segments take typed text in their beforeinput listener
// (which the browser fires for no scripted edit: the digits landed reversed in the segment's DOM),
// its Slider's range input hides in a visually hidden wrapper (the slider was not in the
// Markdown), and its ComboBox's list button was shown as a second combobox of the same name.
test('react aria: fill_form over a ComboBox, Select, DatePicker, Checkbox, Switch, Slider and TextField; a menu item', async () => {
  let r = await open('react-aria.html', /# Trip/);
  assert.match(md(r), /\[input date "Departure" placeholder="mm\/dd\/yyyy" e\d+\]/, md(r));
  assert.match(md(r), /\[input range "Budget" value="30"( min=\S+ max=\S+)? e\d+\]/, 'the slider is not shown');
  assert.equal((md(r).match(/\[combobox "Favorite animal"/g) || []).length, 1, `the list button is shown as a combobox:\n${md(r)}`);
  assert.match(md(r), /\[combobox "Color" placeholder="Select an item" e\d+\]/, 'the placeholder is shown as a choice');
  r = await call('browser_fill_form', { fields: [
    { target: 'Favorite animal', value: 'Cat' }, { target: 'Color', value: 'Green' }, { target: 'Departure', value: '03/14/2026' },
    { target: 'Travel insurance', value: 'true' }, { target: 'Price alerts', value: 'true' }, { target: 'Budget', value: '70' },
    { target: 'Traveler', value: 'Ada' },
  ] });
  ok(r, 'fill_form');
  assert.deepEqual(stateIn(md(r)), { animal: 'cat', color: 'green', date: '2026-03-14', insurance: true, alerts: true, budget: 70, traveler: 'Ada' });
  assert.match(md(r), /\[input date "Departure" value="3\/14\/2026" e\d+\]/);
  assert.match(md(r), /\[combobox "Color" value="Green" e\d+\]/);
  ok(await call('browser_click', { target: 'Actions' }), 'open the menu');
  r = await call('browser_click', { target: 'Rename…' });
  ok(r, 'menu item');
  assert.equal(stateIn(md(r)).action, 'rename');
});

// React Spectrum's DateRangePicker keeps its segments 6 levels under its group (its fields were
// six "editor"s, ambiguous by their label); a date written year first went into the segments in
// the field's order (month ← 2025: HeroUI's and Reka's DatePickers too); a tag's remove button,
// named "Remove" and by aria-labelledby itself and its tag, was named by the tag alone, so a click
// on the tag's words removed it. A Select's trigger labelled by its value and its label ("Select an
// item Color") matched "Color" no better than "Select an item Hair color"; one whose value is beside
// its icon-only trigger (HeroUI's Autocomplete) was chosen in, and "does not show it afterwards".
test('react aria: a range typed year first into segments deep in their group; a Select by its label, one telling its choice only by aria-labelledby; a tag is not its remove button', async () => {
  let r = await open('react-aria.html', /# Trip/);
  assert.match(md(r), /\[input date "Stay dates" placeholder="mm\/dd\/yyyy – mm\/dd\/yyyy" e\d+\]/, md(r));
  assert.match(md(r), /\[button "Remove News" e\d+\]/, md(r));
  r = await call('browser_fill_form', { fields: [{ target: 'Stay dates', value: '2025-05-01 - 2025-05-07' }, { target: 'Departure', value: '2026-03-14' }] });
  ok(r, 'fill_form');
  assert.equal(stateIn(md(r)).stay, '2025-05-01..2025-05-07', md(r));
  assert.equal(stateIn(md(r)).date, '2026-03-14', md(r));
  assert.match(md(r), /\[input date "Stay dates" value="5\/1\/2025 – 5\/7\/2025" e\d+\]/, md(r));
  // "Color" is the Select labelled so, not the one labelled "Hair color" ("Select an item Color"
  // and "Select an item Hair color" matched alike)
  r = await call('browser_select_option', { target: 'Color', value: 'Red' });
  ok(r, 'Color');
  r = await call('browser_select_option', { target: 'Home state', value: 'California' });
  ok(r, 'a trigger showing its choice only through its aria-labelledby');
  assert.equal(stateIn(md(r)).color, 'red', md(r));
  assert.equal(stateIn(md(r)).home, 'california', md(r));
  r = await call('browser_click', { target: 'News' });
  ok(r, 'the tag');
  assert.equal(stateIn(md(r)).removed, undefined, md(r));
  r = await call('browser_click', { target: 'Remove Travel' });
  ok(r, 'its remove button');
  assert.equal(stateIn(md(r)).removed, 'travel', md(r));
});

// Ark UI (Zag.js, under Chakra UI 3): its slider shows a key's new value tasks later (one arrow
// key seemed to move nothing: "did not reach 70"), its number input took the typed value in a
// later task and, left at once by fill_form, put its old value back, and its one-time code in four
// boxes (all named "Code") was ambiguous, then typed whole into the first box, which hung the page.
test('ark ui: fill_form over a Select, Combobox, Checkbox, Switch, Slider, NumberInput, a code in four boxes and a RadioGroup', async () => {
  const first = await open('react-ark.html', /# Order/);
  // nothing chosen yet: its text is a placeholder (data-placeholder-shown), not a value
  assert.match(md(first), /\[combobox "Fruit" placeholder="Pick a fruit" e\d+\]/, md(first));
  ok(await call('browser_type', { target: 'Quantity', text: '2' }), 'a first quantity');
  const r = await call('browser_fill_form', { fields: [
    { target: 'Fruit', value: 'Banana' }, { target: 'City', value: 'Lisbon' }, { target: 'Accept terms', value: 'true' },
    { target: 'Wi-Fi', value: 'true' }, { target: 'Volume', value: '70' }, { target: 'Quantity', value: '3' },
    { target: 'Code', value: '1234' }, { target: 'Plan', value: 'Pro' },
  ] });
  ok(r, 'fill_form');
  assert.deepEqual(stateIn(md(r)), { fruit: 'Banana', city: 'Lisbon', terms: true, wifi: true, vol: 70, qty: 3, pin: '1234', plan: 'Pro' });
  assert.match(md(r), /\[input number "Quantity" value="3" /, 'the number field shows its old value');
  assert.match(md(r), /\[input tel "pin code 4 of 4" [^\]]*value="4" e\d+\]/);
  assert.match(md(r), /\[slider "Volume" value="70" e\d+\]/);
  assert.match(md(r), /\[combobox "Fruit" value="Banana" e\d+\]/);
});

// Mantine: its Slider's label is on the slider's root, not its thumb (no field matched "Volume");
// its TagsInput turns the text into a pill beside an emptied field (fill_form said the text was
// dropped, while the page held the tag); its MultiSelect holds several options ("French, German"
// was no option).
test('mantine: fill_form over eleven fields: a multi-select given two options, a slider named by its root, a tags input', async () => {
  let r = await open('react-mantine.html', /# Signup/);
  assert.match(md(r), /\[slider "Volume" value="40" e\d+\]/, md(r));
  r = await call('browser_fill_form', { fields: [
    { target: 'Email', value: 'a@b.co' }, { target: 'Country', value: 'Norway' }, { target: 'Languages', value: 'French, German' },
    { target: 'City', value: 'Oslo' }, { target: 'Age', value: '42' }, { target: 'Subscribe', value: 'true' }, { target: 'Dark mode', value: 'true' },
    { target: 'Volume', value: '70' }, { target: 'Plan', value: 'Pro' }, { target: 'Tags', value: 'news' }, { target: 'End date', value: 'March 14, 2026' },
  ] });
  ok(r, 'fill_form');
  const s = stateIn(md(r));
  assert.deepEqual({ ...s, end: s.end?.slice(0, 10) }, { email: 'a@b.co', country: 'Norway', langs: ['French', 'German'], city: 'Oslo', age: 42,
    sub: true, dark: true, vol: 70, plan: 'pro', tags: ['news'], end: '2026-03-14' });
  // one option only: an error, never "Filled"
  r = await call('browser_fill_form', { fields: [{ target: 'Country', value: 'France, Spain' }] });
  assert.equal(r.status, 'error', msg(r));
  assert.match(err(r), /does not show "France" as chosen: it may hold one option only/);
});


// ---------------------------------------------------------------- PrimeReact

test('primereact: a Dropdown chosen by its label and by its icon-only trigger; a MultiSelect keeps an option already chosen; one drawn as chips is opened beside its remove icons', async () => {
  await open('react-prime.html', /# Order/);
  let r = await call('browser_select_option', { target: 'City', value: 'Paris' });
  ok(r, 'City by its label');
  assert.equal((await state()).city, 'PRS');
  // the trigger the Markdown shows (an arrow named by the placeholder): the choice is drawn beside it
  r = await call('browser_select_option', { target: 'Select a City', value: 'London' });
  ok(r, 'City by its trigger');
  assert.equal((await state()).city, 'LDN');
  ok(await call('browser_select_option', { target: 'Towns', value: 'London' }));
  ok(await call('browser_select_option', { target: 'Towns', value: 'Rome' }));
  r = await call('browser_select_option', { target: 'Towns', value: 'London' });
  ok(r, 'London again');
  assert.match(r.result.message, /^"London" was already chosen/, msg(r));
  assert.deepEqual((await state()).towns, ['LDN', 'RM'], 'a click on the chosen option took it out');
  // its field, visually hidden in the box that draws it, is shown there with its ref and choices
  assert.match(md(r), /\[combobox "Towns" value="London, Rome" e\d+\]/, md(r));
  r = await call('browser_fill_form', { fields: [{ target: 'Stops', value: 'Rome, Paris' }] });
  ok(r, 'fill_form Stops');
  assert.deepEqual((await state()).stops, ['RM', 'PRS']);
  r = await call('browser_select_option', { target: 'Stops', value: 'London' });
  ok(r, 'a third stop');
  assert.deepEqual((await state()).stops, ['RM', 'PRS', 'LDN'], 'opening the chips box took a chosen item out');
  // several options given hold exactly those, as a native select where several can be chosen does:
  // the others it held are taken out in its list
  r = await call('browser_fill_form', { fields: [{ target: 'Towns', value: 'Rome, Paris' }] });
  ok(r, 'fill_form Towns');
  assert.deepEqual((await state()).towns, ['RM', 'PRS'], 'London, chosen before, was kept');
  r = await call('browser_select_option', { target: 'Stops', values: ['Paris', 'New York'] });
  ok(r, 'select_option values');
  assert.match(r.result.message, /took out "Rome", "London"/, msg(r));
  assert.deepEqual((await state()).stops, ['PRS', 'NY']);
  // by the choice it shows ("5"): its hidden <select> has that one option; the widget has the others
  r = await call('browser_select_option', { target: '5', value: '10' });
  ok(r, 'rows per page');
  assert.equal((await state()).rows, 10);
});

// ---------------------------------------------------------------- React Suite

test('rsuite: values chosen in a CheckPicker whose list says it is open only once drawn; values of one leave that one alone chosen, in it and in a TagPicker', async () => {
  await open('react-rsuite.html', /# Sign-up/);
  // its second option: the list, drawn but not yet said open, was clicked shut instead of read
  let r = await call('browser_select_option', { target: 'Friends', values: ['Linda', 'Nancy'] });
  ok(r, 'values Linda, Nancy');
  assert.deepEqual((await state()).friends, ['linda', 'nancy']);
  // one value: that one alone, as a select where several can be chosen holds exactly what it is given
  r = await call('browser_select_option', { target: 'Friends', values: ['Alice'] });
  ok(r, 'values Alice');
  assert.match(r.result.message, /took out "Linda", "Nancy"/, msg(r));
  assert.deepEqual((await state()).friends, ['alice'], '"Selected" while Linda and Nancy stayed chosen');
  r = await call('browser_fill_form', { fields: [{ target: 'Friends', value: 'Bryan' }] });
  ok(r, 'fill_form Bryan');
  assert.deepEqual((await state()).friends, ['bryan'], '"Filled" while Alice stayed chosen');
  r = await call('browser_select_option', { target: 'Skills', values: ['Vue', 'Solid'] });
  ok(r, 'Skills values');
  assert.deepEqual((await state()).skills, ['Vue', 'Solid']);
  // one already chosen: left so, the other taken out
  r = await call('browser_select_option', { target: 'Skills', values: ['Vue'] });
  ok(r, 'Skills values Vue');
  assert.match(r.result.message, /already chosen.*took out "Solid"/, msg(r));
  assert.deepEqual((await state()).skills, ['Vue'], '"already chosen" while Solid stayed chosen');
  // select_option's value (one, no list): added to those chosen, as in a native multiple select
  r = await call('browser_select_option', { target: 'Skills', value: 'React' });
  ok(r, 'Skills value React');
  assert.deepEqual((await state()).skills, ['Vue', 'React']);
  assert.doesNotMatch(md(r), /expanded/, 'a list is left open');
});

// ---------------------------------------------------------------- Downshift

test('downshift: a choice made in a multiple selection is shown as a chip beside the field (its title and a ✕), and so taken', async () => {
  await open('react-downshift.html', /# Reading list/);
  let r = await call('browser_select_option', { target: 'Pick some books:', value: 'The Idiot' });
  ok(r, 'The Idiot');
  assert.deepEqual((await state()).books, ['To Kill a Mockingbird', 'War and Peace', 'The Idiot']);
  r = await call('browser_select_option', { target: 'Pick some books:', value: '1984' });
  ok(r, '1984');
  assert.deepEqual((await state()).books, ['To Kill a Mockingbird', 'War and Peace', 'The Idiot', '1984']);
});

test('downshift: fill_form and select_option values hold exactly the books given; the others are taken out by their chips\' ✕, as the list leaves the chosen out', async () => {
  await open('react-downshift.html', /# Reading list/);
  let r = await call('browser_fill_form', { fields: [{ target: 'Pick some books:', value: 'War and Peace, 1984' }] });
  ok(r, 'fill two');
  assert.deepEqual(stateIn(md(r)).books, ['War and Peace', '1984'], 'the books it held before were kept');
  // one already chosen (not in the list) is left chosen, the other taken out
  r = await call('browser_select_option', { target: 'Pick some books:', values: ['1984'] });
  ok(r, 'values one');
  assert.match(r.result.message, /^"1984" was already chosen in .*; it was left chosen, and took out "War and Peace"$/, msg(r));
  assert.deepEqual(stateIn(md(r)).books, ['1984']);
});

// ---------------------------------------------------------------- Ariakit

// A value that is no option was looked for in the whole page once the list did not show it, and
// whatever showed those words was clicked (Ariakit leaves the page around its popover as it is):
// the form's "Submit order" button (the answer said the option was clicked), another select's
// face showing "Pear".
test('ariakit: select_option with a value that is no option clicks nothing else on the page that shows those words', async () => {
  await open('react-ariakit.html', /# Order/);
  let r = await call('browser_select_option', { target: 'Food search', value: 'Submit order' });
  assert.equal(r.status, 'error', msg(r));
  assert.match(err(r), /has no option "Submit order"; nothing was selected\. Its options: "Apple", "Banana"/);
  assert.equal(stateIn(md(r)).last, '', 'the form was submitted');
  await call('browser_press_key', { key: 'Escape' });
  r = await call('browser_select_option', { target: 'Favorite fruit', value: 'Get help' });
  assert.equal(r.status, 'error', msg(r));
  assert.match(err(r), /has no option "Get help"/);
  assert.equal(stateIn(md(r)).last, '', 'the button was clicked');
  await call('browser_press_key', { key: 'Escape' });
  r = await call('browser_select_option', { target: 'Favorite fruit', value: 'Pear' });
  ok(r, 'Pear');
  r = await call('browser_type', { target: 'Food search', text: 'zz' });
  ok(r, 'type zz');
  assert.match(md(r), /No results found/);
  r = await call('browser_select_option', { target: 'Food search', value: 'Pear' });
  ok(r, 'Pear in the food list');
  const s = stateIn(md(r));
  assert.deepEqual({ fruit: s.fruit, food: s.food, last: s.last }, { fruit: 'Pear', food: 'Pear', last: '' });
});

// Its tooltip opens on a pointer that moves, and a scroll takes that back: the bridge scrolled the
// anchor into view and moved the pointer there at once, the page's scroll event came after (and
// its moves carried no screen position, so none had moved): "Hovered", and no tooltip.
test('ariakit: hovering an anchor below the fold shows its tooltip', async () => {
  await open('react-ariakit.html', /# Order/);
  const r = await call('browser_hover', { target: 'Shipping' });
  ok(r, 'hover');
  assert.match(md(r), /\[tooltip\] Free above 50 euros/, md(r));
});

// ---------------------------------------------------------------- Base UI

// Its checkbox, radio and switch are <span role=…> inside the <label> with their words, beside a
// hidden native twin: the label was walked as the twin's, which shows nothing, and all of them
// were missing from the Markdown, words and all (the click still worked, naming a ref never shown).
test('baseui: checkboxes, radios and a switch inside their labels show, named by their words, and are clicked by them', async () => {
  let r = await open('react-baseui.html', /# Settings/);
  assert.match(md(r), /\[checkbox "Enable notifications by email" e\d+\]/, md(r));
  assert.match(md(r), /\[checkbox "Fuji" checked e\d+\] \[checkbox "Gala" e\d+\]/);
  assert.match(md(r), /\[radio "Basic" checked e\d+\] \[radio "Pro" e\d+\] \[radio "Team" disabled e\d+\]/);
  assert.match(md(r), /\[switch "Push notifications" checked e\d+\]/);
  assert.doesNotMatch(md(r), /Gala e\d+\] Gala/, 'the words said twice');
  r = await call('browser_click', { target: 'Gala' });
  ok(r, 'Gala');
  const gala = md(r).match(/\[checkbox "Gala" checked (e\d+)\]/);
  assert.ok(gala, md(r));
  assert.match(r.result.message, new RegExp(`^Clicked \\[checkbox "Gala" ${gala[1]}\\]`));
  r = await call('browser_fill_form', { fields: [{ target: 'Pro', value: 'true' }, { target: 'Push notifications', value: 'false' }, { target: 'Enable notifications by email', value: 'true' }] });
  ok(r, 'fill_form');
  const s = stateIn(md(r));
  assert.deepEqual({ apples: s.apples, plan: s.plan, push: s.push, agree: s.agree }, { apples: ['fuji', 'gala'], plan: 'pro', push: false, agree: true });
});

// Its Select takes a click only on the item the pointer highlighted (React state, drawn after the
// move): the bridge's click came in the same turn as its move, "Clicked [option "Serif"]" and
// nothing chosen; select_option said the widget did not show the choice.
test('baseui: a Select whose items take a click once the pointer is on them, by select_option and by clicks', async () => {
  await open('react-baseui.html', /# Settings/);
  let r = await call('browser_select_option', { target: 'Font', value: 'Monospace' });
  ok(r, 'select_option');
  assert.equal(stateIn(md(r)).font, 'mono');
  r = await call('browser_click', { target: 'Font' });
  ok(r, 'open');
  // (named by its words: not by the tick hidden from assistive technology before them, "✓ Monospace")
  assert.match(md(r), /\[option "Monospace" selected( active)? e\d+\]/, md(r));
  r = await call('browser_click', { target: 'Serif' });
  ok(r, 'click Serif');
  assert.equal(stateIn(md(r)).font, 'serif');
});
