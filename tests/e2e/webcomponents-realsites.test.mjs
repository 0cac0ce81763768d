// Real-site suite for web component libraries (product rule #1: never report what did not happen,
// never a failure for what did; the Markdown shows what a user sees, names and states). Three
// libraries installed from npm, documented markup only:
//   - wc-fluent.html: Fluent UI web components v2 (fluent-select shows its choice as the fallback
//     text of a <slot> in its shadow root);
//   - wc-material.html: Material Web (md-outlined-select shows its choice as text slotted into
//     md-outlined-field, beside a floating label; md-checkbox and md-switch are form-associated
//     hosts named by the <label> around them; md-primary-tab and md-radio keep their role and
//     state in their ElementInternals, with no attribute);
//   - wc-ionic.html: Ionic core (ion-toggle inside a clickable ion-item; ion-select's alert shows
//     its choices as <button role=radio aria-checked>);
//   - wc-ui5.html: SAP UI5 Web Components, bundled at test time (wc-ui5.js: a select whose
//     options' text is slotted into their shadow <li role=option>, an inline-completing combobox,
//     a multi-combobox drawing its choices as tokens in its shadow root, a step input, a table);
//   - wc-webawesome.html: Web Awesome 3 (wa-select of several choices: tags over a transparent
//     combobox input, options slotted into a shadow listbox);
//   - wc-lion.html: Lion (@lion/ui, ES modules through an import map: overlays drawn in a 0 x 0
//     <dialog> around a layer fixed to the viewport; a combobox of the ARIA 1.1 pattern).
// Ionic keeps its components hidden until their lazily loaded code hydrates them: each Ionic test
// waits for visible text before acting.
//   node --test tests/e2e/webcomponents-realsites.test.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startManaged, startStaticServer, requirePackages, bundleEntries, NODE_MODULES, SHELLS } from './support/realsites.mjs';

let env, srv, bundled;
before(async () => {
  requirePackages(['@ionic/core', '@fluentui/web-components', '@material/web', 'lit', '@ui5/webcomponents', '@awesome.me/webawesome', '@lion/ui']);
  bundled = await bundleEntries(['wc-ui5']);
  srv = await startStaticServer({ roots: { '/npm/': NODE_MODULES + '/', '/shells/': SHELLS + '/', '/bundle/': bundled.dir + '/' } });
  env = await startManaged();
});
after(async () => { await env?.close(); await srv?.close(); await bundled?.remove(); });

const msg = (r) => JSON.stringify(r.result?.error || r.result?.message || r.message || r.status);
const md = (r) => r.page?.markdown || '';
const ok = (r, what = 'call') => assert.equal(r.status, 'success', `${what}: expected success, got ${r.http} ${msg(r)}\n${md(r).slice(0, 2500)}`);
const lineOf = (m, re) => m.split('\n').find((l) => re.test(l)) || '';
const call = (tool, params) => env.call(tool, params);
async function open(shell) {
  let r = await call('browser_open_url', { url: srv.url('/shells/' + shell) });
  ok(r, `open ${shell}`);
  if (!/Save settings/.test(md(r))) {
    // Ionic hydrates its components lazily: wait as an agent would
    r = await call('browser_wait_for', { text: 'Save settings' });
    ok(r, 'wait for Save settings');
  }
  return r;
}

// ---------------------------------------------------------------- Lion

const state = (r) => JSON.parse(md(r).match(/State: (\{.*\})/)[1].replace(/\\([[\]_*])/g, '$1'));

// Its overlays are drawn in a 0 x 0 <dialog> that clips its overflow, around a layer fixed to the
// viewport: the open calendar and dialog were left out of the Markdown, and their buttons were
// "not visible to a user (… clipped, shrunk or moved off the page)". The two dialogs it nests
// show as one.
test('wc-lion.html: the date picker\'s calendar and a modal dialog show, and are used by their words', async () => {
  await open('wc-lion.html');
  let r = await call('browser_click', { target: 'Open "Departure date" picker' });
  ok(r, 'open the calendar');
  assert.match(md(r), /^\[dialog "Departure date" modal\]$/m, md(r));
  assert.match(md(r), /\[button "Next month, [A-Z][a-z]+ \d{4}" e\d+\]/);
  r = await call('browser_click', { target: 'Next month' });
  ok(r, 'next month');
  r = await call('browser_click', { target: '15' });
  ok(r, 'the 15th');
  const next = new Date(); next.setDate(1); next.setMonth(next.getMonth() + 1);
  assert.equal(state(r).date, `${next.getFullYear()}-${String(next.getMonth() + 1).padStart(2, '0')}-15`, md(r));
  assert.doesNotMatch(md(r), /\[dialog/);
  r = await call('browser_click', { target: 'Terms and conditions' });
  ok(r, 'open the terms');
  assert.match(md(r), /^\[dialog "Terms" modal\]\n+## Terms\n+You agree to everything\.\n+\[button "Close terms" e\d+\]\n+\[end of dialog\]$/m, md(r));
  r = await call('browser_click', { target: 'Close terms' });
  ok(r, 'close the terms');
  assert.doesNotMatch(md(r), /You agree/);
});

// Its combobox puts role=combobox (aria-expanded, aria-owns) on a box around its text field, the
// ARIA 1.1 pattern: the box showed as [combobox e3] with no name and no value, the field never; the
// field, found by its label, was "a text field, not a drop-down" for select_option.
test('wc-lion.html: a combobox whose role is on the box around its field shows its name and value and is chosen in', async () => {
  let r = await open('wc-lion.html');
  assert.match(md(r), /\[combobox "Destination city" e\d+\]/, md(r));
  r = await call('browser_select_option', { target: 'Destination city', value: 'Paris' });
  ok(r, 'select_option');
  assert.equal(state(r).city, 'Paris');
  assert.match(md(r), /\[combobox "Destination city" value="Paris" e\d+\]/, md(r));
  r = await call('browser_fill_form', { fields: [{ target: 'Destination city', value: 'Berlin' }] });
  ok(r, 'fill_form');
  assert.equal(state(r).city, 'Berlin');
});

// ---------------------------------------------------------------- Web Awesome

// Its select of several choices draws its combobox input transparent behind the chosen tags: the
// next call said it was "not visible (opacity 0)"; its options, slotted into a shadow listbox that
// says aria-multiselectable, were not seen as a list of several ("does not show it" after Music).
test('wc-webawesome.html: a wa-select of several choices is chosen in again and again through the box a user sees', async () => {
  await open('wc-webawesome.html');
  const values = (r) => JSON.parse(md(r).match(/Values: (\{.*\})/)[1].replace(/\\([[\]_*])/g, '$1'));
  let r = await call('browser_select_option', { target: 'Interests', values: ['Music', 'Code'] });
  ok(r, 'values Music, Code');
  assert.deepEqual(values(r).interests, ['music', 'code']);
  r = await call('browser_select_option', { target: 'Interests', value: 'Art' });
  ok(r, 'value Art, over the tags');
  assert.deepEqual(values(r).interests, ['music', 'code', 'art']);
  r = await call('browser_fill_form', { fields: [{ target: 'Interests', value: 'Sport, Code' }] });
  ok(r, 'fill_form Sport, Code');
  assert.deepEqual([...values(r).interests].sort(), ['code', 'sport']);
  r = await call('browser_select_option', { target: 'Interests', values: ['Art'] });
  ok(r, 'values Art');
  assert.deepEqual(values(r).interests, ['art']);
  r = await call('browser_select_option', { target: 'Country', value: 'Sweden' });
  ok(r, 'Country');
  assert.equal(values(r).country, 'se');
  assert.doesNotMatch(md(r), /\[option "/, 'a list is left open');
});

// ---------------------------------------------------------------- select_option through slots

for (const shell of ['wc-fluent.html', 'wc-material.html']) {
  test(`${shell}: select_option on a select that shows its choice through a slot succeeds and the token shows only the choice`, async () => {
    await open(shell);
    const r = await call('browser_select_option', { target: 'Favourite fruit', value: 'Banana' });
    ok(r, 'select Banana');
    assert.match(md(r), /Fruit: banana/, 'the page saw banana');
    const line = lineOf(md(r), /\[combobox "Favourite fruit"/);
    assert.match(line, /value="Banana"/, `the select's token shows Banana as its value (not its label too): ${line}`);
  });
}

// ---------------------------------------------------------------- Material: option text slotted in

test('wc-material.html: clicking an opened md-outlined-select\'s option by its text picks it (the slotted headline is not a second target)', async () => {
  await open('wc-material.html');
  let r = await call('browser_click', { target: 'Favourite fruit' });
  ok(r, 'open the select');
  assert.match(md(r), /\[option "Cherry"/, 'the options are shown');
  r = await call('browser_click', { target: 'Cherry' });
  ok(r, 'click Cherry');
  assert.match(md(r), /Fruit: cherry/, 'the page saw cherry');
  assert.doesNotMatch(md(r), /\[clickable "Cherry"/);
});

// ---------------------------------------------------------------- Material: checkbox/switch in a <label>

test('wc-material.html: md-checkbox and md-switch are named by the <label> around them, and show their state', async () => {
  let r = await open('wc-material.html');
  assert.match(md(r), /\[checkbox "Send me the newsletter" e\d+\]/, lineOf(md(r), /newsletter/));
  assert.match(md(r), /\[switch "Dark mode" e\d+\]/, lineOf(md(r), /Dark mode/));
  r = await call('browser_click', { target: 'Send me the newsletter' });
  ok(r, 'check the newsletter box');
  assert.match(md(r), /Newsletter: on/);
  assert.match(md(r), /\[checkbox "Send me the newsletter" checked e\d+\]/);
  r = await call('browser_click', { target: 'Dark mode' });
  ok(r, 'turn dark mode on');
  assert.match(md(r), /Dark mode: on/);
  assert.match(md(r), /\[switch "Dark mode" checked e\d+\]/);
});

// ---------------------------------------------------------------- Material: ARIA in ElementInternals

// md-primary-tab and md-radio set their role (tab, radio) and their state (ariaSelected,
// ariaChecked) in their ElementInternals (attachInternals()), with no attribute on the element:
// the tabs showed as plain words, never a tab nor selected, and the radios as [clickable] with no
// name or checked state; fill_form found no field "Standard delivery".
test('wc-material.html: md-primary-tab and md-radio, whose role and state are in their ElementInternals, show as tabs and radios with their state', async () => {
  let r = await open('wc-material.html');
  assert.match(lineOf(md(r), /Profile/), /\[tab "Profile" selected e\d+\] \[tab "Billing" e\d+\]/, lineOf(md(r), /Profile/));
  assert.match(md(r), /^\[radio "Standard delivery" checked e\d+\] \[radio "Express delivery" e\d+\]$/m, lineOf(md(r), /delivery/));
  r = await call('browser_click', { target: 'Billing' });
  ok(r, 'click the Billing tab');
  assert.match(md(r), /Tab: Billing/);
  assert.match(lineOf(md(r), /Profile/), /\[tab "Profile" e\d+\] \[tab "Billing" selected e\d+\]/, lineOf(md(r), /Profile/));
  r = await call('browser_click', { target: 'Express delivery' });
  ok(r, 'choose Express delivery');
  assert.match(md(r), /Delivery: express/);
  assert.match(String(r.result?.message), /\[radio "Express delivery" e\d+\]; it is now checked/, msg(r));
  assert.match(md(r), /\[radio "Standard delivery" e\d+\] \[radio "Express delivery" checked e\d+\]/);
  r = await call('browser_fill_form', { fields: [{ target: 'Standard delivery', value: 'true' }] });
  ok(r, 'fill_form the radio');
  assert.match(md(r), /Delivery: standard/);
  assert.match(md(r), /\[radio "Standard delivery" checked e\d+\] \[radio "Express delivery" e\d+\]/);
});

// ---------------------------------------------------------------- Ionic

test('wc-ionic.html: an ion-toggle inside a clickable ion-item shows as a switch with its state', async () => {
  await open('wc-ionic.html');
  let r = await call('browser_wait_for', { text: 'Dark mode' });
  ok(r, 'wait for Dark mode');
  assert.match(md(r), /\[switch "Dark mode" e\d+\]/, lineOf(md(r), /Dark mode/));
  r = await call('browser_click', { target: 'Dark mode' });
  ok(r, 'turn dark mode on');
  assert.match(md(r), /Dark mode: on/);
  const line = lineOf(md(r), /\[switch "Dark mode"/);
  assert.match(line, /\[switch "Dark mode" checked (e\d+)\]/, line);
  // the ref the click answer names is the one in the Markdown
  const ref = line.match(/checked (e\d+)\]/)[1];
  assert.match(msg(r), new RegExp(`\\b${ref}\\b`), `the click answer names the ref the Markdown shows: ${msg(r)}`);
});

test('wc-ionic.html: ion-select\'s alert shows its choices as radios with their checked state', async () => {
  await open('wc-ionic.html');
  let r = await call('browser_wait_for', { text: 'Favourite colour' });
  ok(r, 'wait for Favourite colour');
  r = await call('browser_click', { target: 'Favourite colour' });
  ok(r, 'open the alert');
  assert.match(md(r), /\[radio "Blue" e\d+\]/, lineOf(md(r), /Blue/));
  r = await call('browser_click', { target: 'Blue' });
  ok(r, 'click Blue');
  assert.match(md(r), /\[radio "Blue" checked e\d+\]/, lineOf(md(r), /Blue/));
  assert.doesNotMatch(md(r), /\[radio "Red" checked/);
  r = await call('browser_click', { target: 'OK' });
  ok(r, 'click OK');
  assert.match(md(r), /Colour: blue/);
});

// ion-select draws its field over a visually hidden <button aria-haspopup=dialog> in its shadow
// root (opacity 0, clipped) beside an aria-hidden text showing the choice; its options open in an
// overlay elsewhere in the document (a popover, or an alert whose choice is taken on OK).
for (const [label, iface, ph, out, pick, page] of [
  ['Favourite fruit', 'popover', 'Pick one', 'Fruit', 'Cherry', 'cherry'],
  ['Favourite colour', 'alert', 'Pick a colour', 'Colour', 'Blue', 'blue'],
]) {
  test(`wc-ionic.html: ion-select (${iface}) shows as a combobox with its placeholder, and select_option on its label picks the option a user sees`, async () => {
    await open('wc-ionic.html');
    let r = await call('browser_wait_for', { text: label });
    ok(r, `wait for ${label}`);
    const before = lineOf(md(r), new RegExp(`\\[combobox "${label}"`));
    assert.match(before, new RegExp(`\\[combobox "${label}" placeholder="${ph}" e\\d+\\]`), `the select is a control showing its placeholder: ${lineOf(md(r), new RegExp(label))}`);
    r = await call('browser_select_option', { target: label, value: pick });
    ok(r, `select ${pick}`);
    assert.match(md(r), new RegExp(`${out}: ${page}`), `the page's ionChange saw ${page}`);
    const line = lineOf(md(r), new RegExp(`\\[combobox "${label}"`));
    assert.match(line, new RegExp(`\\[combobox "${label}" value="${pick}" e\\d+\\]`), `the select shows ${pick}: ${line}`);
    assert.doesNotMatch(md(r), new RegExp(`\\[radio "${pick}"`), 'the overlay is closed');
    const said = msg(r).replace(/\\"/g, '"');
    assert.match(said, new RegExp(`Selected "${pick}" in \\[combobox "${label}" e\\d+\\]`), said);
  });

  test(`wc-ionic.html: select_option of a value an ion-select (${iface}) does not have is a clear error listing its options, nothing changed`, async () => {
    await open('wc-ionic.html');
    let r = await call('browser_wait_for', { text: label });
    ok(r, `wait for ${label}`);
    r = await call('browser_select_option', { target: label, value: 'Durian' });
    assert.notEqual(r.status, 'success', `no Durian: ${msg(r)}`);
    const m = msg(r).replace(/\\"/g, '"');
    assert.match(m, /has no option "Durian"; nothing was selected/, m);
    for (const o of iface === 'popover' ? ['Apple', 'Banana', 'Cherry'] : ['Red', 'Green', 'Blue']) assert.match(m, new RegExp(`"${o}"`), m);
    r = await call('browser_get_page', {});
    ok(r, 'get the page');
    assert.match(md(r), new RegExp(`${out}: none`), 'the page saw no change');
    assert.match(lineOf(md(r), new RegExp(`\\[combobox "${label}"`)), new RegExp(`placeholder="${ph}"`), 'the select still shows its placeholder');
    assert.doesNotMatch(md(r), /\[radio "(Apple|Red)"/, 'the overlay is closed again');
  });
}

// ---------------------------------------------------------------- a choice that waits to be confirmed

// A page written here (select-dialog.html): a pop-up select whose dialog takes the choice only
// when its "Übernehmen" button is pressed, a word the extension does not take for a confirm
// button. The choice is not made, and select_option says so and why, naming the dialog's
// buttons, instead of reporting it made.
test('select-dialog.html: a choice that waits to be confirmed in a dialog with no confirm button it knows is an error that says so', async () => {
  let r = await call('browser_open_url', { url: srv.url('/shells/select-dialog.html') });
  ok(r, 'open');
  assert.match(md(r), /\[combobox "Delivery day" placeholder="Pick a day" e\d+\]/, lineOf(md(r), /Delivery day/));
  r = await call('browser_select_option', { target: 'Delivery day', value: 'Tuesday' });
  assert.equal(r.status, 'error', `reported made: ${msg(r)}`);
  assert.match(msg(r), /waits to be confirmed/);
  assert.match(msg(r), /Übernehmen/);
  assert.match(md(r), /Day: none/, 'the page took a choice');
});

// ---------------------------------------------------------------- SAP UI5

test('wc-ui5.html: a table slotted into a shadow-root grid, a select whose options are named through slots, an inline-completing combobox typed into, a multi-combobox given two choices, a step input typed into', async () => {
  let r = await call('browser_open_url', { url: srv.url('/shells/wc-ui5.html') });
  ok(r, 'open wc-ui5.html');
  // the table's rows are slotted into the grid it draws in its shadow root: a Markdown table
  assert.match(md(r), /\| Product \| Price \|\n\| --- \| --- \|\n\| Notebook \| 956 EUR \|\n\| Mouse \| 25 EUR \|/, md(r));
  const state = (m) => JSON.parse(lineOf(m, /^State: \{/).slice('State: '.length).replace(/\\([[\]_*])/g, '$1'));
  r = await call('browser_select_option', { target: 'Country', value: 'Bulgaria' });
  ok(r, 'Country');
  assert.equal(state(md(r)).country, 'bg');
  // the combobox completes "S" to "Sofia" and selects "ofia": the next keys go over it
  r = await call('browser_type', { target: 'City', text: 'Sof' });
  ok(r, 'City Sof');
  assert.match(lineOf(md(r), /\[combobox "City"/), /value="Sofia"/);
  r = await call('browser_type', { target: 'City', text: 'Barcelona', clear: true });
  ok(r, 'City Barcelona');
  assert.equal(state(md(r)).city, 'Barcelona');
  ok(await call('browser_press_key', { key: 'Tab' }), 'Tab out of City');
  // an option of the closed multi-combobox (it opens on its arrow icon, which has no ref): the
  // error says how to choose it, not "click" the field (which opens nothing)
  const e = String((await call('browser_click', { target: 'German' })).result?.error || '');
  assert.match(e, /^"German" is an option of the closed drop-down \[combobox "Languages" (e\d+)\]: choose it with browser_select_option \(target \1\)/, e);
  r = await call('browser_fill_form', { fields: [{ target: 'Languages', value: 'English, Bulgarian' }] });
  ok(r, 'Languages');
  assert.deepEqual(state(md(r)).langs, ['English', 'Bulgarian']);
  // the step input draws its value again as it takes the focus: the number typed must stay
  r = await call('browser_type', { target: 'Quantity', text: '4', clear: true });
  ok(r, 'Quantity');
  ok(await call('browser_press_key', { key: 'Tab' }), 'Tab out of Quantity');
  r = await call('browser_get_page', {});
  assert.equal(String(state(md(r)).qty), '4');
  // its + is an icon named by its SVG <title> (which inherits a pointer cursor but is never drawn)
  r = await call('browser_click', { target: 'Increase' });
  ok(r, 'Increase');
  assert.equal(String(state(md(r)).qty), '5');
});
