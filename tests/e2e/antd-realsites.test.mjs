// Real-site suite for Ant Design 6 (npm `antd` on React 19), set up with its documented API only
// (tests/fixtures/realsites/antd.js, bundled at test time with esbuild and loaded by antd.html; its
// CSS-in-JS needs no stylesheet). The page renders its React state as JSON into <output id="state">;
// each success is checked against that state, each failure against the state not changing.
// antd draws shapes the bridge must read as a user does:
//   - Select: an <input role=combobox readonly autocomplete=new-password> that stays empty, the
//     choice (or the chosen tags) drawn as text beside it, the placeholder as a faint <div>; its
//     list fades in (opacity 0 as it starts) and is drawn by a virtual list, beside a zero-size
//     listbox for screen readers holding only the options around the active one;
//   - Tabs: a pointer <div> holding the click handler around each <div role=tab aria-selected>;
//   - Cascader, TreeSelect, DatePicker, Form validation, Modal.confirm, Popconfirm, Dropdown
//     (hover and click), Collapse, Switch, Checkbox.Group, Radio.Group, InputNumber, message.
//   node --test tests/e2e/antd-realsites.test.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startBundled, answerHelpers, requirePackages } from './support/realsites.mjs';

let bundled, env, srv;
before(async () => {
  requirePackages(['react', 'react-dom', 'antd']);
  bundled = await startBundled(['antd'], { define: { 'process.env.NODE_ENV': '"production"' } });
  ({ env, srv } = bundled);
});
after(async () => { await bundled?.close(); });

const { msg, md, ok, err, call, lineOf, stateIn } = answerHelpers(() => env);
const state = async () => stateIn(md(await call('browser_get_page', {})));
async function open() {
  const r = await call('browser_open_url', { url: srv.url('/shells/antd.html') });
  ok(r, 'open antd.html');
  assert.match(md(r), /# Antd playground/, 'antd.html did not render');
  return r;
}
const RUNS = [1, 2, 3];

test('antd Select: select_option opens a closed select whose list fades in, and the choice shows as the field\'s value', async () => {
  for (const run of RUNS) {
    let r = await open();
    // nothing chosen: the faint text beside the empty input is its placeholder, not a value, and
    // the input's autocomplete=new-password (antd's way to keep autofill away) makes it no secret
    assert.match(lineOf(md(r), /combobox "Fruit"/), /^\[combobox "Fruit" e\d+\]$/, `run ${run}`);
    r = await call('browser_select_option', { target: 'Fruit', value: 'Banana' });
    ok(r, `run ${run}: select Banana`);
    assert.equal(stateIn(md(r)).fruit, 'banana', `run ${run}: the page did not take Banana`);
    assert.match(lineOf(md(r), /combobox "Fruit"/), /value="Banana"/, `run ${run}: the choice is not the field's value`);
    // closed, its zero-size screen-reader copy (a window of three options) is no list of options
    assert.doesNotMatch(lineOf(md(r), /combobox "Fruit"/), /options=/, `run ${run}: the combobox lists the hidden copy's options`);
    assert.doesNotMatch(md(r), /\[clickable "Durian"/, `run ${run}: the list is left open`);
  }
});

test('antd Select: an option far down a searchable virtual list, tags of a multiple select, a disabled option', async () => {
  for (const run of RUNS) {
    await open();
    let r = await call('browser_select_option', { target: 'City', value: 'City 35' });
    ok(r, `run ${run}: select City 35`);
    assert.equal(stateIn(md(r)).city, 'city35', `run ${run}`);
    assert.match(lineOf(md(r), /combobox "City"/), /value="City 35"/, `run ${run}`);
    r = await call('browser_select_option', { target: 'Tags', value: 'Durian' });
    ok(r, `run ${run}: tag Durian`);
    // (a closed select does not list the few options of its screen-reader copy, given no size in
    // its popup hidden whole once closed: a window of them, not all)
    assert.doesNotMatch(lineOf(md(r), /combobox "City"/), /options=/, `run ${run}: ${lineOf(md(r), /combobox "City"/)}`);
    r = await call('browser_select_option', { target: 'Tags', value: 'Apple' });
    ok(r, `run ${run}: tag Apple`);
    assert.deepEqual(stateIn(md(r)).tags, ['durian', 'apple'], `run ${run}`);
    assert.match(lineOf(md(r), /combobox "Tags"/), /value="Durian, Apple"/, `run ${run}: the chosen tags are not the field's value`);
    // several values, one of them chosen already: each found in the list the last choice left shown
    // (its items, shown before the list was opened again, were taken for the page's own words: "has
    // no option")
    r = await call('browser_select_option', { target: 'Tags', values: ['Apple', 'Banana'] });
    ok(r, `run ${run}: tags Apple, Banana`);
    assert.deepEqual(stateIn(md(r)).tags.slice().sort(), ['apple', 'banana'], `run ${run}`);
    // the disabled option: never reported as chosen
    r = await call('browser_select_option', { target: 'Fruit', value: 'Cherry' });
    assert.equal(r.status, 'error', `run ${run}: choosing the disabled Cherry was reported as done`);
    const s = await state();
    assert.equal(s.fruit, null, `run ${run}`);
  }
});

test('antd Select open: its combobox lists no options from the zero-size screen-reader copy of its list (values, a window of three)', async () => {
  for (const run of RUNS) {
    await open();
    const r = await call('browser_click', { target: 'Fruit' });
    ok(r, `run ${run}: open Fruit`);
    const line = lineOf(md(r), /combobox "Fruit"/);
    assert.match(line, /expanded/, `run ${run}: the select did not open`);
    assert.doesNotMatch(line, /options=/, `run ${run}: the combobox lists the hidden copy's options: ${line}`);
    assert.match(md(r), /"Durian"/, `run ${run}: the list a user sees is not in the Markdown`);
    await call('browser_press_key', { key: 'Escape' });
  }
});

test('antd DatePicker: "Start date" is the field labelled so, not the range picker whose first field shows it as placeholder', async () => {
  for (const run of RUNS) {
    await open();
    let r = await call('browser_type', { target: 'Start date', text: '2024-03-15' });
    ok(r, `run ${run}: type into Start date`);
    assert.match(lineOf(md(r), /input text "Start date"/), /value="2024-03-15"/, `run ${run}`);
    assert.doesNotMatch(lineOf(md(r), /input text "Stay"/), /value=/, `run ${run}: typed into the range picker`);
    r = await call('browser_press_key', { key: 'Enter' });
    ok(r, `run ${run}: Enter`);
    assert.equal(stateIn(md(r)).date, '2024-03-15', `run ${run}`);
  }
});

test('antd Tabs: each tab shows as a tab with the selected one marked, and clicking one selects it', async () => {
  for (const run of RUNS) {
    let r = await open();
    assert.match(md(r), /\[tab "Overview" selected e\d+\]/, `run ${run}: the tabs are not shown as tabs with their state`);
    assert.doesNotMatch(md(r), /\[clickable "(Overview|Billing|Team)"/, `run ${run}: a tab is shown as a mere clickable`);
    r = await call('browser_click', { target: 'Billing' });
    ok(r, `run ${run}: click Billing`);
    const ref = /e\d+/.exec(msg(r))?.[0];
    assert.ok(ref && md(r).includes(` ${ref}]`), `run ${run}: the ref the answer names (${ref}) is not in the Markdown`);
    assert.equal(stateIn(md(r)).tab, 'b', `run ${run}`);
    assert.match(md(r), /\[tab "Billing" selected e\d+\]/, `run ${run}`);
    assert.match(md(r), /Billing content/, `run ${run}`);
  }
});

test('antd Cascader and TreeSelect: a path clicked level by level, a tree node chosen; both show as the field\'s value', async () => {
  for (const run of RUNS) {
    await open();
    let r;
    for (const t of ['Region', 'Zhejiang', 'Hangzhou', 'West Lake']) { r = await call('browser_click', { target: t }); ok(r, `run ${run}: click ${t}`); }
    assert.deepEqual(stateIn(md(r)).region, ['zhejiang', 'hangzhou', 'xihu'], `run ${run}`);
    assert.match(lineOf(md(r), /combobox "Region"/), /value="Zhejiang \/ Hangzhou \/ West Lake"/, `run ${run}`);
    r = await call('browser_select_option', { target: 'Node', value: 'Leaf two' });
    ok(r, `run ${run}: select Leaf two`);
    assert.equal(stateIn(md(r)).tree, 'leaf2', `run ${run}`);
    assert.match(lineOf(md(r), /combobox "Node"/), /value="Leaf two"/, `run ${run}`);
  }
});

test('antd Form: submitted empty, each rule\'s message shows under its field; fill_form then submit succeeds with a toast', async () => {
  for (const run of RUNS) {
    await open();
    let r = await call('browser_click', { target: 'Register' });
    ok(r, `run ${run}: submit empty`);
    const m = md(r);
    const at = (re) => m.split('\n').findIndex((l) => re.test(l));
    for (const [field, text] of [['Username', 'Please input your username!'], ['Email', 'Please input your email!'], ['Plan', 'Please pick a plan!']]) {
      const f = at(new RegExp(`\\[(input text|combobox) "${field}"`)), e = at(new RegExp(text.replace('!', '')));
      assert.ok(f >= 0 && e > f && e - f <= 3, `run ${run}: "${text}" is not under the ${field} field:\n${m.slice(0, 2500)}`);
      // the field the page marks aria-invalid (outlined in red) says so
      assert.match(m.split('\n')[f], / invalid e\d+\]/, `run ${run}: the ${field} field is not marked invalid`);
    }
    r = await call('browser_fill_form', { fields: [{ target: 'Username', value: 'ada' }, { target: 'Email', value: 'ada@example.com' }, { target: 'Plan', value: 'Pro' }] });
    ok(r, `run ${run}: fill_form`);
    assert.match(lineOf(md(r), /combobox "Plan"/), /value="Pro"/, `run ${run}`);
    assert.doesNotMatch(md(r), /Please input your/, `run ${run}: the messages stay after the fields were filled`);
    assert.doesNotMatch(md(r), / invalid e\d+\]/, `run ${run}: a filled field is still marked invalid`);
    r = await call('browser_click', { target: 'Register' });
    ok(r, `run ${run}: submit`);
    assert.deepEqual(stateIn(md(r)).submitted, { username: 'ada', email: 'ada@example.com', plan: 'pro' }, `run ${run}`);
    assert.match(md(r), /Signed up ada/, `run ${run}: the toast is not in the Markdown`);
  }
});

test('antd dialogs and menus: Modal.confirm, Popconfirm, a hover Dropdown and a click Dropdown', async () => {
  for (const run of RUNS) {
    await open();
    let r = await call('browser_click', { target: 'Delete item' });
    ok(r, `run ${run}: Delete item`);
    assert.match(md(r), /\[dialog "Delete the item\?" modal\]/, `run ${run}: the confirm dialog is not shown`);
    r = await call('browser_click', { target: 'OK' });
    ok(r, `run ${run}: OK`);
    assert.equal(stateIn(md(r)).confirm, 'ok', `run ${run}`);
    r = await call('browser_click', { target: 'Archive' });
    ok(r, `run ${run}: Archive`);
    assert.match(md(r), /Archive the task\?/, `run ${run}`);
    r = await call('browser_click', { target: 'No' });
    ok(r, `run ${run}: No`);
    assert.equal(stateIn(md(r)).pop, 'no', `run ${run}`);
    r = await call('browser_hover', { target: 'Hover me' });
    ok(r, `run ${run}: hover`);
    if (!/\[menuitem "Copy" e\d+\]/.test(md(r))) assert.fail(`run ${run}: the hover menu is not shown: ${msg(r)} settle=${JSON.stringify(r.result?.settle)}\nafter: ${md(await call('browser_get_page', {})).split('\n').filter((l) => /menuitem|Hover me/.test(l)).join(' | ')}`);
    r = await call('browser_click', { target: 'Copy' });
    ok(r, `run ${run}: Copy`);
    assert.equal(stateIn(md(r)).menu, 'hover:copy', `run ${run}`);
    r = await call('browser_click', { target: 'Actions' });
    ok(r, `run ${run}: Actions`);
    r = await call('browser_click', { target: 'Remove' });
    ok(r, `run ${run}: Remove`);
    assert.equal(stateIn(md(r)).menu, 'click:remove', `run ${run}`);
  }
});

test('antd settings: Collapse, Switch, Checkbox.Group, Radio.Group buttons, InputNumber handles, a date typed and one picked', async () => {
  for (const run of RUNS) {
    await open();
    let r = await call('browser_click', { target: 'Shipping' });
    ok(r, `run ${run}: Shipping`);
    assert.match(md(r), /\[button "Shipping" expanded e\d+\]/, `run ${run}`);
    assert.match(md(r), /Ships in 2 days/, `run ${run}`);
    r = await call('browser_click', { target: 'Notifications' });
    ok(r, `run ${run}: switch`);
    assert.match(md(r), /\[switch "Notifications" checked e\d+\]/, `run ${run}`);
    r = await call('browser_click', { target: 'Green' });
    ok(r, `run ${run}: Green`);
    r = await call('browser_click', { target: 'Large' });
    ok(r, `run ${run}: Large`);
    let s = stateIn(md(r));
    assert.deepEqual([s.panels, s.on, s.colors, s.size], [['p1'], true, ['Green'], 'l'], `run ${run}`);
    // the slider's <label for> points at the box around its handle: it names the slider
    assert.match(md(r), /\[slider "Level" value="20" e\d+\]/, `run ${run}: the slider is not named by its label`);
    r = await call('browser_press_key', { target: 'Level', key: 'ArrowRight' });
    ok(r, `run ${run}: ArrowRight on Level`);
    assert.equal(stateIn(md(r)).level, 21, `run ${run}`);
    // the number box's arrows show only under the pointer (opacity 0): a click needs no hover
    // first (it said "could not be scrolled into view" with trusted input), nor is it lost
    r = await call('browser_click', { target: 'Increase Value' });
    ok(r, `run ${run}: + without a hover first`);
    assert.equal(stateIn(md(r)).qty, 4, `run ${run}`);
    r = await call('browser_hover', { target: 'Quantity' });
    ok(r, `run ${run}: hover Quantity`);
    r = await call('browser_click', { target: 'Decrease Value' });
    ok(r, `run ${run}: -`);
    assert.equal(stateIn(md(r)).qty, 3, `run ${run}`);
    r = await call('browser_click', { target: 'Increase Value' });
    ok(r, `run ${run}: +`);
    assert.equal(stateIn(md(r)).qty, 4, `run ${run}`);
    const date = /\[input text "Start date"[^\]]*?(e\d+)\]/.exec(md(r))?.[1];
    r = await call('browser_type', { target: date, text: '2024-03-15' });
    ok(r, `run ${run}: type the date`);
    r = await call('browser_press_key', { key: 'Enter' });
    ok(r, `run ${run}: Enter`);
    assert.equal(stateIn(md(r)).date, '2024-03-15', `run ${run}`);
    r = await call('browser_click', { target: date });
    ok(r, `run ${run}: open the calendar`);
    r = await call('browser_click', { target: '20' });
    ok(r, `run ${run}: pick the 20th`);
    s = stateIn(md(r));
    assert.equal(s.date, '2024-03-20', `run ${run}`);
    assert.match(lineOf(md(r), /"Start date"/), /value="2024-03-20"/, `run ${run}`);
  }
});

test('antd message toast: a button the toast, pinned at the top of the viewport, lies over is scrolled out from under it and clicked', async () => {
  for (const run of RUNS) {
    await open();
    // (scrolled so that the row of buttons is near the top of the viewport, where the toast shows)
    let r = await call('browser_click', { target: 'Green' });
    ok(r, `run ${run}: Green`);
    r = await call('browser_click', { target: 'Save draft' });
    ok(r, `run ${run}: Save draft`);
    assert.match(md(r), /Saved the draft/, `run ${run}: the toast is not in the Markdown`);
    r = await call('browser_click', { target: 'Notify' });
    ok(r, `run ${run}: Notify, with the toast shown`);
    assert.match(md(r), /Build finished/, `run ${run}: the notification is not in the Markdown`);
    assert.match(md(r), /All 12 checks passed\./, `run ${run}`);
  }
});
