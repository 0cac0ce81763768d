// Real-site suite for the widgets of ordinary forms (product rules #1 and #2: `success` only when
// the page did it, and the Markdown shows what a user sees of the widget, no more, no less). Four
// libraries installed from npm, set up with their documented API only:
//   - pickers-bootstrap.html: Bootstrap 5's modal (fade), dropdown, tabs, accordion, offcanvas,
//     toast and tooltip, by their data attributes;
//   - pickers-dates.html: flatpickr (plain, altInput, dateFormat "d/m/Y" with allowInput, range)
//     and vanillajs-datepicker; its "Show dates" button writes what each library itself holds;
//   - pickers-phone.html: intl-tel-input (its country chooser: a button opening a dialog with a
//     search box over a listbox) and IMask's phone, date, number and PIN masks.
// Each scenario runs 3 times (a fresh page each time), as an agent would retry it.
//   node --test tests/e2e/pickers-realsites.test.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startManaged, startStaticServer, requirePackages, NODE_MODULES, SHELLS, until } from './support/realsites.mjs';

let env, srv;
before(async () => {
  requirePackages(['bootstrap', 'flatpickr', 'vanillajs-datepicker', 'intl-tel-input', 'imask']);
  srv = await startStaticServer({ roots: { '/npm/': NODE_MODULES + '/', '/shells/': SHELLS + '/' } });
  env = await startManaged();
});
after(async () => { await env?.close(); await srv?.close(); });

const ROUNDS = 3;
const msg = (r) => JSON.stringify(r.result?.error || r.result?.message || r.message || r.status);
const md = (r) => r.page?.markdown || '';
const ok = (r, what = 'call') => { assert.equal(r.status, 'success', `${what}: expected success, got ${r.http} ${msg(r)}\n${md(r).slice(0, 1500)}`); return r; };
const fails = (r, what = 'call') => { assert.equal(r.status, 'error', `${what}: expected an error, got ${msg(r)}`); return String(r.result?.error || r.message || ''); };
const text = (r) => String(r.result?.message || '');
const open = async (page) => ok(await env.call('browser_open_url', { url: srv.url('/shells/' + page) }), `open ${page}`);
const click = (target) => env.call('browser_click', { target });
const fill = (fields) => env.call('browser_fill_form', { fields });
const page = async () => md(await env.call('browser_get_page', {}));
const line = (m, start) => m.split('\n').find((l) => l.startsWith(start)) || '';
// What the date libraries themselves hold, as the page's "Show dates" button writes it.
const dates = async () => { const r = ok(await click('Show dates'), 'Show dates'); return line(md(r), '[button "Show dates"').replace(/\\/g, ''); };

// ---------------------------------------------------------------- Bootstrap 5

test('bootstrap: a modal opened by its button, its form filled and submitted, closed by Close and by Escape', async () => {
  for (let round = 0; round < ROUNDS; round++) {
    await open('pickers-bootstrap.html');
    assert.doesNotMatch(await page(), /Nickname|dialog/, 'the closed modal is shown');
    let r = ok(await click('Edit profile'));
    assert.match(md(r), /\[dialog "Edit profile" modal\][\s\S]*Nickname \[input text "Nickname"[\s\S]*\[end of dialog\]/, md(r));
    // the page behind the modal's backdrop is not reachable
    assert.match(fails(await click('Actions')), /covered|behind the open dialog/);
    r = ok(await fill([{ target: 'Nickname', value: `Ada${round}` }, { target: 'Bio', value: 'Math' }]));
    r = ok(await click('Save changes'));
    assert.match(md(r), new RegExp(`Profile: Ada${round} / Math`));
    assert.doesNotMatch(md(r), /dialog|Nickname/, `the modal is shown after it closed:\n${md(r)}`);
    ok(await click('Edit profile'));
    r = ok(await click('Close'));
    assert.doesNotMatch(md(r), /dialog|Nickname/, md(r));
    ok(await click('Edit profile'));
    r = ok(await env.call('browser_press_key', { key: 'Escape' }));
    assert.doesNotMatch(md(r), /dialog|Nickname/, md(r));
    ok(await click('Actions'), 'the page is usable again');
  }
});

test('bootstrap: a closed dropdown\'s items are neither shown nor clickable; an open one\'s are', async () => {
  for (let round = 0; round < ROUNDS; round++) {
    await open('pickers-bootstrap.html');
    assert.doesNotMatch(await page(), /Duplicate/);
    assert.match(fails(await click('Duplicate')), /not visible/);
    let r = ok(await click('Actions'));
    assert.match(md(r), /\[button "Actions" expanded e\d+\][\s\S]*\[Duplicate\]/);
    r = ok(await click('Duplicate'));
    assert.match(md(r), /Action: duplicate/);
    assert.doesNotMatch(md(r), /\[Duplicate\]|expanded e\d+\]\n\n- \[Archive/, 'the menu is shown after the click closed it');
  }
});

test('bootstrap: the hidden tab pane\'s field is not shown nor fillable until its tab is chosen', async () => {
  for (let round = 0; round < ROUNDS; round++) {
    await open('pickers-bootstrap.html');
    assert.doesNotMatch(await page(), /IBAN/);
    assert.match(fails(await fill([{ target: 'IBAN', value: 'DE89' }])), /not visible/);
    let r = ok(await click('Billing'));
    assert.match(md(r), /\[tab "Billing" selected/);
    assert.doesNotMatch(md(r), /City \[input/, 'the pane left is still shown');
    r = ok(await fill([{ target: 'IBAN', value: 'DE89' }]));
    assert.match(md(r), /IBAN \[input text "IBAN" value="DE89"/);
  }
});

test('bootstrap: accordion, offcanvas, a toast that comes and goes, a tooltip on hover', async () => {
  for (let round = 0; round < ROUNDS; round++) {
    await open('pickers-bootstrap.html');
    assert.match(fails(await click('Return form')), /not visible/);
    let r = ok(await click('Returns'));
    assert.match(md(r), /\[button "Returns" expanded[\s\S]*Return form/);
    assert.doesNotMatch(md(r), /We ship worldwide/, 'the other panel, collapsed, is still shown');
    r = ok(await click('Open cart'));
    assert.match(md(r), /\[dialog "Your cart" modal\][\s\S]*\[button "Checkout"/);
    r = ok(await click('Checkout'));
    assert.match(md(r), /Checkout: yes/);
    r = ok(await env.call('browser_press_key', { key: 'Escape' }));
    assert.doesNotMatch(md(r), /Your cart/);
    r = ok(await click('Send reminder'));
    assert.match(md(r), /Reminder sent to 3 people/);
    await until(async () => !(await page()).includes('Reminder sent'), { what: 'the toast to hide', timeout: 8000 });
    r = ok(await env.call('browser_hover', { target: 'Share' }));
    assert.match(md(r), /Copies the link to your clipboard/, 'the tooltip shown on hover is not in the page');
    r = ok(await env.call('browser_hover', { target: 'Edit profile' }));
    await until(async () => !(await page()).includes('Copies the link'), { what: 'the tooltip to hide' });
  }
});

// ---------------------------------------------------------------- datepickers

test('flatpickr altInput: the field a user sees is named by the label of the field it stands for, and picks by clicking', async () => {
  for (let round = 0; round < ROUNDS; round++) {
    await open('pickers-dates.html');
    let r = ok(await click('Departure'), 'click the field by its label');
    assert.match(md(r), /\[clickable "November 30, 2026"/, 'the calendar did not open');
    r = ok(await click('November 30, 2026'));
    assert.match(md(r), /Departure \[input text "Departure" placeholder="Select date" value="November 30, 2026"/, md(r));
    assert.match(await dates(), /departure: \[2026-11-30\] field="2026-11-30" alt="November 30, 2026"/);
  }
});

test('flatpickr: a read-only date field refuses typing, saying to pick in what it opens; the range picker takes two clicks', async () => {
  for (let round = 0; round < ROUNDS; round++) {
    await open('pickers-dates.html');
    for (const r of [await env.call('browser_type', { target: 'Arrival', text: '2026-12-24' }), await fill([{ target: 'Arrival', value: '2026-12-24' }])]) {
      assert.match(fails(r), /read-only, so nothing was typed; a user sets it by clicking it and choosing in what it opens/);
    }
    assert.match(await dates(), /arrival: \[\] field=""/);
    ok(await click('Stay'));
    ok(await click('November 26, 2026'));
    const r = ok(await click('November 29, 2026'));
    assert.match(md(r), /Stay \[input text "Stay"[^\]]*value="2026-11-26 to 2026-11-29"/);
    assert.match(await dates(), /stay: \[2026-11-26,2026-11-29\]/);
  }
});

test('fill_form of a typed date: the picker has taken it when the answer comes, and a date it rewrote is said', async () => {
  for (let round = 0; round < ROUNDS; round++) {
    await open('pickers-dates.html');
    // the format the field asks for: taken by the library as the call returns (it parses on blur)
    let r = ok(await fill([{ target: 'Birthday', value: '24/12/2026' }]));
    assert.match(md(r), /Picked: birthday=24\/12\/2026/, `the picker had not taken the date when fill_form answered:\n${md(r)}`);
    assert.doesNotMatch(text(r), /rewrote/);
    assert.match(await dates(), /birthday: \[2026-12-24\] field="24\/12\/2026"/);
    // another format: each library turns it into another date; the answer says the field holds
    // something else, and the Markdown shows what the library holds
    r = ok(await fill([{ target: 'Delivery date', value: '2026-12-24' }, { target: 'Birthday', value: '2026-12-24' }]));
    const notes = text(r).match(/the field holds something else than typed/g) || [];
    assert.equal(notes.length, 2, `each rewritten field is not said: ${text(r)}`);
    const now = await dates();
    const held = (name) => now.match(new RegExp(`${name}: \\[[^\\]]*\\] field="([^"]*)"`))[1];
    assert.match(md(r), new RegExp(`Birthday \\[input text "Birthday"[^\\]]*value="${held('birthday').replace(/\//g, '\\/')}"`));
    assert.match(md(r), new RegExp(`Delivery date \\[input text "Delivery date" value="${held('delivery').replace(/\//g, '\\/')}"`));
    // the US format vanillajs-datepicker parses: taken as that date, no note
    await open('pickers-dates.html');
    r = ok(await fill([{ target: 'Delivery date', value: '12/24/2026' }]));
    assert.doesNotMatch(text(r), /rewrote/);
    assert.match(md(r), /Picked: delivery=2026-12-24/, md(r));
  }
});

test('vanillajs-datepicker: its day cells (a pointer cursor only on hover) are clickables with refs; the next month\'s 5th is picked by its ref', async () => {
  for (let round = 0; round < ROUNDS; round++) {
    await open('pickers-dates.html');
    const r = ok(await click('Delivery date'));
    const cal = md(r).slice(md(r).indexOf('[button "November 2026"'));
    const fives = [...cal.matchAll(/\[clickable "5" (e\d+)\]/g)].map((m) => m[1]);
    assert.equal(fives.length, 2, `the day cells are not clickables with refs (November's 5th and December's):\n${cal.slice(0, 1500)}`);
    assert.doesNotMatch(cal, /\[clickable "Su"/, 'a weekday header is shown as clickable');
    // by the text alone it is ambiguous, and the error names both with their refs
    assert.match(fails(await click('5')), new RegExp(`equally well: \\[clickable "5" ${fives[0]}\\], \\[clickable "5" ${fives[1]}\\]`));
    const p = ok(await click(fives[1]));
    assert.match(md(p), /Delivery date \[input text "Delivery date" value="12\/05\/2026"/);
    assert.match(await dates(), /delivery: \[2026-12-05\] field="12\/05\/2026"/);
  }
});

// ---------------------------------------------------------------- intl-tel-input, IMask

test('intl-tel-input: the open country list shows its options; a country is chosen by select_option and fill_form', async () => {
  for (let round = 0; round < ROUNDS; round++) {
    await open('pickers-phone.html');
    assert.doesNotMatch(await page(), /option/, 'the closed country list is shown');
    let r = ok(await click('Change country, selected United States (+1)'));
    assert.match(md(r), /\[option "Germany \+49" e\d+\]/, `the countries are not shown as options:\n${md(r).slice(0, 800)}`);
    assert.match(md(r), /\[option "United States \+1" selected e\d+\]/);
    r = ok(await click('Germany +49'));
    assert.match(md(r), /\[button "Change country, selected Germany \(\+49\)"/);
    r = ok(await env.call('browser_select_option', { target: 'Change country, selected Germany (+49)', value: 'France' }));
    assert.match(md(r), /\[button "Change country, selected France \(\+33\)" e\d+\]/);
    assert.doesNotMatch(md(r), /\[option /, 'the country list is still shown');
    r = ok(await fill([{ target: 'Change country, selected France (+33)', value: 'Japan' }, { target: 'Mobile number', value: '90 1234 5678' }]));
    r = ok(await click('Send'));
    assert.match(md(r), /Sent: \+819012345678 jp/);
    const e = fails(await env.call('browser_select_option', { target: 'Change country, selected Japan (+81)', value: 'Atlantis' }));
    assert.match(e, /has no option "Atlantis"/);
    assert.match(await page(), /selected Japan/);
  }
});

test('IMask: typed digits give the masked value, and the answer says the field holds something else, never a secret', async () => {
  for (let round = 0; round < ROUNDS; round++) {
    await open('pickers-phone.html');
    let r = ok(await env.call('browser_type', { target: 'Landline', text: '5551234567' }));
    assert.match(text(r), /holds something else than typed, 17 characters/);
    assert.match(md(r), /Landline \[input tel "Landline" value="\+1 \(555\) 123-4567"/);
    // (trusted typing's answer names the field as it is after the text: it said "empty")
    r = ok(await env.call('browser_type', { target: 'PIN', text: '12' }));
    assert.match(text(r), /^Typed 2 characters into \[input password "PIN" filled e\d+\]/, text(r));
    r = ok(await fill([{ target: 'Start date', value: '24122026' }, { target: 'Amount', value: '1234.5' }, { target: 'PIN', value: '98765' }]));
    assert.match(md(r), /Start date \[input text "Start date" value="24\.12\.2026"/);
    assert.match(md(r), /Amount \[input text "Amount" value="1,234\.50"/);
    assert.equal((text(r).match(/holds something else than typed/g) || []).length, 3, text(r));
    assert.match(text(r), /\[input password "PIN" filled e\d+\] \(the field holds something else than typed, 4 characters: the page or the field rewrote it; its value is secret and not shown\)/);
    assert.doesNotMatch(JSON.stringify(r), /9876/, 'the PIN is in the answer');
    r = ok(await click('Send'));
    assert.match(md(r), /Sent: *us \| 15551234567 \| 24\.12\.2026 \| 1234\.5/);
  }
});
