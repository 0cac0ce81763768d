// Real-site end-to-end suite for issue 14 ("act like a user on real sites").
//
// What runs: the real daemon with `serve --headless`, i.e. the managed headless Chromium
// (/usr/bin/chromium) with the real built extension -- one daemon and one browser for the whole
// file. No Playwright is attached to the pages: Playwright would itself answer dialogs and emulate
// focus, hiding what the extension does. Every action goes through the HTTP tool API with the
// targets a model would write after reading the Markdown: visible texts and labels ("Fast",
// "Send me the newsletter", "What needs to be done?") or refs read from the returned Markdown,
// never CSS selectors.
//
// The pages: libraries installed from npm at test time (package.json devDependencies) and served
// from node_modules by tests/e2e/support/realsites.mjs, each server on its own loopback port:
//   - jQuery UI (selectmenu, datepicker, menu, dialog) and Shoelace web components (checkbox with a
//     slotted label, button, dialog, dropdown + menu; loaded by Shoelace's autoloader, which imports
//     each component after the load event): minimal shells in tests/fixtures/realsites/ that only
//     call the libraries' documented API;
//   - MediumEditor: the package's own demo page (node_modules/medium-editor/demo/index.html);
//   - Quill 2: a minimal shell (quill.html) of an editor with a heading, bold text and a placeholder;
//   - Swiper: a minimal shell (swiper.html; with ?autoplay it loops and plays itself every second) of a carousel moved by a transform;
//   - noUiSlider: a minimal shell (slider.html) of a slider whose handle is an ARIA slider;
//   - Ionic: wc-ionic.html (also webcomponents-realsites'), whose components stay hidden until their code hydrates them;
//   - TodoMVC (npm `todomvc`): the Vue app here for typing order; every app in todomvc.test.mjs;
//   - no npm package ships a Sphinx-built page: docs.html reproduces the docutils markup (a table
//     whose cells hold <p>, a clickable <img> toggle) -- written here, like dialogs.html (the
//     browser's alert/confirm/prompt/beforeunload), trusted.html (isTrusted) and clock.html (a DOM
//     that changes every 100 ms), which test browser behaviour rather than a library.
//
// Every test below failed on the code before issue 14's work (main 74104e5) except the jquery-ui
// menu and dialog, the shoelace button and beforeunload; a point not fixed yet would carry
// node:test's { todo: 'issue 14: …' } (it runs and reports, and does not fail the run). None does
// now (2026-11-23); every test runs through trusted input, as the managed browser does:
//
//   PASS  jquery-ui menu, dialog, datepicker (focus); wrong element: selectmenu "Fast" (the click
//         on the hidden <option> goes through the content script: the widget is opened, its item
//         clicked and its new value checked) and only hidden matches (an error listing the visible)
//   PASS  shoelace (loaded from the package's cdn/ build: its dist/ build imports bare "lit/…"
//         specifiers that only a bundler resolves): button, slotted checkbox name, click on the
//         sl-checkbox host, dropdown + menu item, closed sl-dialog hidden until opened
//   PASS  readiness (300 ms per file; a DOM changing every 100 ms), Markdown (clickable image,
//         table with paragraphs, aria-label vs visible text, MediumEditor and CKEditor 4 as
//         quoted editor blocks, text typed at the end of the editor), trusted input, dialogs
//   PASS  typing order: Vue TodoMVC (trusted typing lets the page's own timers run before Enter)
//
// Run: BB_BIN=build-check/browser-bridge node --test tests/e2e/realsites.test.mjs (see
// tests/integration.sh for the full environment). BB_E2E_DEBUG=1 logs every call.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { startManaged, startStaticServer, until, requirePackages, NODE_MODULES, SHELLS } from './support/realsites.mjs';
import { refOf } from './support/harness.mjs';

let env, srv;
before(async () => {
  requirePackages(['bootstrap', 'daisyui', 'govuk-frontend', 'jquery', 'jquery-ui', '@shoelace-style/shoelace', 'medium-editor', 'ckeditor4', 'quill', 'swiper', 'nouislider', '@ionic/core', 'todomvc', 'uikit']);
  srv = await startStaticServer({ roots: { '/npm/': NODE_MODULES + '/', '/shells/': SHELLS + '/', '/pages/': path.join(SHELLS, '..', 'pages') + '/' } });
  env = await startManaged();
});
after(async () => { await env?.close(); await srv?.close(); });

const msg = (r) => JSON.stringify(r.result?.error || r.result?.message || r.message || r.waiting_for || r.status);
const ok = (r, what = 'call') => assert.equal(r.status, 'success', `${what}: expected success, got ${r.http} ${msg(r)}`);
const open = async (url, extra = {}) => { const r = await env.call('browser_open_url', { url, ...extra }); ok(r, `open ${url}`); return r; };
const md = (r) => r.page?.markdown || '';
const noRefs = (s) => s.replace(/\be\d+\b/g, 'eN');

// ---------------------------------------------------------------- jQuery UI

test('jquery-ui menu: clicking a visible item selects it', async () => {
  await open(srv.url('/shells/jqueryui.html'));
  const r = await env.call('browser_click', { target: 'Books' });
  ok(r);
  assert.match(md(r), /Last menu choice: Books/);
});

test('jquery-ui dialog: opens from its button and closes from its title bar', async () => {
  let r = await open(srv.url('/shells/jqueryui.html'));
  assert.doesNotMatch(md(r), /default dialog which is useful/, 'the closed dialog\'s text is shown');
  r = await env.call('browser_click', { target: 'Open the dialog' });
  ok(r);
  assert.match(md(r), /default dialog which is useful/);
  r = await env.call('browser_click', { target: 'Close' });
  ok(r);
  assert.doesNotMatch(md(r), /default dialog which is useful/);
});

test('wrong element: jquery-ui selectmenu "Fast" goes through the visible widget or fails saying so', async () => {
  await open(srv.url('/shells/jqueryui.html'));
  const r = await env.call('browser_click', { target: 'Fast' });
  if (r.status === 'success') {
    assert.match(md(r), /Speed chosen: Fast/, `success reported but the widget did not change: ${msg(r)}`);
    // named by the label jQuery UI points at it, its choice its value (it was named by the choice)
    assert.match(md(r), /\[combobox "Select a speed" value="Fast"/);
  } else {
    assert.match(r.result?.error || '', /visible|hidden|cannot see/i, msg(r));
    const after = await env.call('browser_get_page', {});
    assert.match(md(after), /Speed chosen: Medium/);
  }
});

test('wrong element: a description that matches only hidden elements is an error listing visible candidates', async () => {
  await open(srv.url('/shells/jqueryui.html'));
  const r = await env.call('browser_click', { target: 'Car Hifi' }); // in a collapsed submenu
  assert.equal(r.status, 'error', `clicked an element the user cannot see: ${msg(r)}`);
  assert.match(r.result?.error || '', /visible/i, 'the error says the match is not visible');
  assert.match(r.result?.error || '', /\be\d+\b/, 'the error lists visible candidates with refs');
  const after = await env.call('browser_get_page', {});
  assert.match(md(after), /Last menu choice: none/);
});

// Bootstrap's .disabled makes a link or button take no clicks (pointer-events: none): a user's
// click lands on what is under it. The click was dispatched at the link anyway (followed), or
// (trusted input) landed on the paragraph, and either way was reported a success.
test('wrong element: a Bootstrap .disabled link or button takes no clicks, and saying so is an error; labels and stretched links still work', async () => {
  await open(srv.url('/shells/bootstrap-disabled.html'));
  let r = await env.call('browser_click', { target: 'Pay now' });
  assert.equal(r.status, 'error', `clicked a link that takes no clicks: ${msg(r)}`);
  assert.match(r.result?.error || '', /\[link "Pay now" e\d+\] takes no clicks \(pointer-events: none/);
  r = await env.call('browser_click', { target: 'Place order' });
  assert.equal(r.status, 'error', `clicked a button that takes no clicks: ${msg(r)}`);
  assert.match(md(await env.call('browser_get_page', {})), /Went to: nowhere; order: not placed/);
  r = await env.call('browser_click', { target: 'Gift wrap' }); // a .btn-check: the input hidden, its label the button
  ok(r);
  assert.match(md(r), /gift wrap: yes/);
  r = await env.call('browser_click', { target: 'Delivery details' });
  ok(r);
  assert.match(md(r), /Went to: #details/);
});

// Bootstrap 5 sets :root { scroll-behavior: smooth }: a scroll that followed it glided, and the
// trusted click was aimed where the element still was, below the fold ("could not be scrolled into
// view" for every element below it). A key on a range moves it as the browser's own key does (it
// said "Pressed ArrowRight" and the slider stayed at 50).
test('reach: below the fold of a Bootstrap page (smooth scrolling) a trusted click lands, and arrow keys move a range', async () => {
  await open(srv.url('/shells/bootstrap-long.html'));
  let r = await env.call('browser_click', { target: 'Accordion Item #2' });
  ok(r);
  r = await env.call('browser_wait_for', { text: 'open: Item 2' });
  ok(r, 'the second item opened');
  r = await env.call('browser_press_key', { target: 'Brightness', key: 'ArrowRight' });
  ok(r);
  r = await env.call('browser_press_key', { target: 'Brightness', key: 'End' });
  ok(r);
  assert.match(md(r), /Brightness: 100/);
  r = await env.call('browser_press_key', { target: 'Brightness', key: 'PageDown' });
  ok(r);
  assert.match(md(r), /Brightness: 90/);
});

// daisyUI draws its collapse's and accordion's titles under a transparent checkbox or radio button
// laid over them: a click on a title was refused as "covered by [checkbox]", where a person's click
// opens it. Its fieldset's legend named no select ("No element matches").
test('daisyUI: a title under a transparent checkbox or radio button opens its collapse, and a fieldset\'s legend names its one select', async () => {
  await open(srv.url('/shells/daisy-collapse.html'));
  let r = await env.call('browser_click', { target: 'How do I create an account?' });
  ok(r, 'click the collapse title');
  assert.match(r.result.message, /lands on \[checkbox e\d+\], laid over it transparent\); it is now checked$/, r.result.message);
  assert.match(md(r), /State: faq open, question 1/);
  r = await env.call('browser_click', { target: 'Second question' });
  ok(r, 'click the second accordion title');
  assert.match(md(r), /State: faq open, question 2/);
  r = await env.call('browser_select_option', { target: 'Browsers', value: 'Firefox' });
  ok(r, 'select by the legend');
  assert.match(md(r), /State: faq open, question 2, browser Firefox/);
  assert.match(md(r), /\[select "Browsers" value="Firefox"/);
});

// GOV.UK's radios reveal a field under the chosen one: those fields (hidden, or shown in the
// chosen radio's panel) made the fieldset no radio group, and its question "No field matches".
test('GOV.UK radios and checkboxes with conditional reveal: each group is chosen in by its question, and the field it reveals is typed into', async () => {
  await open(srv.url('/shells/govuk-radios.html'));
  let r = await env.call('browser_fill_form', { fields: [{ target: 'How do you want to be contacted?', value: 'Phone' }, { target: 'Phone number', value: '0123' }] });
  ok(r, 'fill the group by its question, then the revealed field');
  assert.match(md(r), /State: phone 0123/);
  r = await env.call('browser_select_option', { target: 'How do you want to be contacted?', value: 'Text message' });
  ok(r, 'choose again while a revealed field shows');
  assert.match(md(r), /State: text 0123; no updates/);
  // its checkboxes by their question: exactly the boxes given are checked (it was "No field
  // matches"; a person ticks the boxes under the question)
  r = await env.call('browser_fill_form', { fields: [{ target: 'Which updates do you want?', value: 'Email, Text message' }] });
  ok(r, 'fill the checkbox group by its question');
  assert.match(md(r), /State: text 0123; email\+text/);
  r = await env.call('browser_select_option', { target: 'Which updates do you want?', values: ['Phone'] });
  ok(r, 'select_option values in the checkbox group');
  assert.match(r.result.message, /^Checked "Phone" in \[checkbox group "Which updates do you want\?"\], and no other box \(unchecked "Email", checked "Phone", unchecked "Text message"\)$/, r.result.message);
  assert.match(md(r), /State: text 0123; phone/);
  r = await env.call('browser_select_option', { target: 'Which updates do you want?', values: ['Post'] });
  assert.equal(r.status, 'error');
  assert.match(r.result.error, /has no box "Post"; nothing was changed\. Its boxes: "Email", "Phone", "Text message"/);
});

// A status drawn twice, its words for the eye aria-hidden and a visually hidden live region
// beside it for a screen reader (GOV.UK's character count): both were left out, and a text too
// long for its field looked fine.
test('Markdown: a character count a user sees, aria-hidden beside its live region twin, is shown and follows the typing', async () => {
  let r = await open(srv.url('/shells/govuk-count.html'));
  assert.match(md(r), /\[textarea "Can you provide more detail\?" e\d+\]\n+You have 20 characters remaining/, md(r));
  r = await env.call('browser_type', { target: 'Can you provide more detail?', text: 'Twenty-five characters!!' });
  ok(r);
  assert.match(md(r), /You have 4 characters too many/, md(r));
  assert.equal(md(r).match(/characters too many/g).length, 1, 'said twice');
});

// UIkit's form-custom: a native select laid transparent over the button (or disabled field) that
// shows its choice. Below the fold, where nothing can be hit-tested, it was "fully transparent
// (opacity 0)" and "Size" went to the disabled field; a click on the face said "close or move what
// covers it"; select_option on the face's words said "click it instead". Its notification, which
// a click closes, lost its [alert] mark (a clickable was shown as a bare token).
test('UIkit custom controls: a transparent select over its face is chosen in, in view or below the fold, by its label or its face', async () => {
  let r = await open(srv.url('/shells/uikit-custom.html'));
  r = await env.call('browser_select_option', { target: 'Size', value: 'Large' });
  ok(r, 'below the fold, by its label');
  assert.match(md(r), /Choices: none, Large/);
  r = await env.call('browser_click', { target: 'Please select...' });
  assert.equal(r.status, 'error');
  assert.match(r.result.error, /is what a transparent select laid over it shows, \[select "Colour" .* e\d+\], which takes a user's click there; nothing was done\. Choose with browser_select_option on that one instead\./, msg(r));
  r = await env.call('browser_select_option', { target: 'Please select...', value: 'Blue' });
  ok(r, 'by the words of its face');
  assert.match(md(r), /Choices: blue, Large/);
  // its notification closes on a click: a clickable that is still marked as the alert it is
  r = await env.call('browser_click', { target: 'Save order' });
  ok(r);
  assert.match(md(r), /^\[alert\] \[clickable e\d+\] Order saved$/m, md(r));
  r = await env.call('browser_click', { target: 'Order saved' });
  ok(r);
  assert.doesNotMatch(md(r), /Order saved/, md(r));
});

// A mask that handles each key itself and shows its template with the caret on its first blank
// (Kendo's MaskedTextBox): trusted typing's one insertion was taken for a paste ("(755) 512-3456");
// it goes a key a character into such a field now.
test('typing: trusted keys fill a mask\'s template a character a key, and a number box\'s twin takes them', async () => {
  await open(srv.url('/shells/maskbox.html'));
  let r = await env.call('browser_type', { target: 'Quantity', text: '7' });
  ok(r);
  r = await env.call('browser_type', { target: 'Phone', text: '5551234567' });
  ok(r);
  assert.match(md(r), /Quantity: 7; phone: 5551234567/);
  r = await env.call('browser_type', { target: 'Phone', text: '5559876543', clear: true });
  ok(r);
  assert.match(md(r), /phone: 5559876543/);
});

// A code in boxes with no maxlength, whose page moves the focus on in a task of its own: trusted
// typing sent "1234" as one insertion (taken for a paste: "423"), then a character at a time with
// no pause (the next came before the focus moved: "24").
test('typing: a code typed into a row of one-character boxes goes a character a box, the page moving the focus between', async () => {
  await open(srv.url('/shells/pin-boxes.html'));
  const r = await env.call('browser_type', { target: 'Please enter your pin code', text: '1234' });
  ok(r);
  assert.match(md(r), /Code: 1234/, md(r));
});

// Replacing the text of a field that holds none pressed Control+A and Backspace all the same, and
// in a tags field those are the keys that take its tags out (Tom Select's Control+A selects every
// tag and Backspace removes them; Oruga's Taginput and Tagify remove the last tag on Backspace):
// typing a new label took out the labels there.
test('typing: trusted typing into an empty tags input presses no Control+A or Backspace, so its tags stay', async () => {
  await open(srv.url('/shells/tags-tomselect.html'));
  let r = await env.call('browser_type', { target: 'Labels', text: 'heavy', clear: true });
  ok(r);
  assert.match(md(r), /Labels: urgent,fragile$/m, md(r));
  r = await env.call('browser_press_key', { key: 'Enter' });
  ok(r);
  assert.match(md(r), /Labels: urgent,fragile,heavy$/m, md(r));
});

test('focus: the jQuery UI datepicker opens when its field is clicked in the managed headless browser', async () => {
  await open(srv.url('/shells/jqueryui.html'));
  const r = await env.call('browser_click', { target: 'Date' });
  ok(r);
  assert.match(md(r), /\| Su \| Mo \| Tu \| We \| Th \| Fr \| Sa \|/, 'no calendar after clicking the Date field');
});

// Headless Chromium has no pointer: (hover: hover) and (pointer: fine) were false in the managed
// browser, so a page chose its touch layout, and a menu a stylesheet opens on hover only where the
// pointer can hover (Tailwind 4's hover: and group-hover:) never opened. It is a desktop with a mouse.
test('the managed headless browser is a desktop with a mouse: pages take their desktop layout, and a menu shown on hover where a pointer can hover opens', async () => {
  let r = await open(srv.url('/pages/desktop-pointer.html'));
  assert.match(md(r), /Layout: desktop/, md(r));
  assert.doesNotMatch(md(r), /Billing/, 'the menu shows before the hover');
  r = await env.call('browser_hover', { target: 'Settings' });
  ok(r, 'hover');
  assert.match(md(r), /\[Billing\]\([^)]*#billing\) \[e\d+\]/, md(r));
  r = await env.call('browser_click', { target: 'Billing' });
  ok(r, 'click the item the hover showed');
  assert.match(r.page?.url || '', /#billing$/);
});

// ---------------------------------------------------------------- Shoelace web components

test('shoelace button: a click on the host runs the page\'s handler', async () => {
  await open(srv.url('/shells/shoelace.html'));
  const r = await env.call('browser_click', { target: 'Save settings' });
  ok(r);
  assert.match(md(r), /Save settings[^\n]*\bsaved\b|\bsaved\b/);
  assert.doesNotMatch(md(r), /not saved/);
});

test('web components: a checkbox named by slotted text shows that name', async () => {
  const r = await open(srv.url('/shells/shoelace.html'));
  assert.match(md(r), /\[checkbox "Send me the newsletter"[^\]]*\be\d+\]/, md(r));
  assert.match(md(r), /\[button "Save settings"[^\]]*\be\d+\]/, md(r));
});

test('web components: a click on the sl-checkbox host reaches the control in its shadow root', async () => {
  await open(srv.url('/shells/shoelace.html'));
  const r = await env.call('browser_click', { target: 'Send me the newsletter' });
  ok(r);
  assert.match(md(r), /Newsletter: on/);
  assert.match(md(r), /\[checkbox "Send me the newsletter" checked/);
});

test('web components: a Shoelace tree shows one item a line, named by its own label, collapsed or expanded; a hidden child names the item to expand, ArrowRight on it expands it', async () => {
  let r = await open(srv.url('/shells/shoelace-tree.html'));
  // the top items only, each named by its label (not its children's too), and which hold more
  assert.match(md(r), /^- \[treeitem "Deciduous" collapsed e\d+\]$/m, md(r));
  assert.match(md(r), /^- \[treeitem "Bamboo" e\d+\]$/m, md(r));
  assert.doesNotMatch(md(r), /Birch|Red maple/, 'the children of a collapsed item are not shown');
  const deciduous = md(r).match(/\[treeitem "Deciduous" collapsed (e\d+)\]/)[1];
  r = await env.call('browser_click', { target: 'Red maple' });
  assert.equal(r.status, 'error', 'a child of a collapsed item is not clicked');
  assert.match(msg(r), new RegExp(`inside the collapsed tree item \\[treeitem \\\\"Deciduous\\\\" collapsed ${deciduous}\\]: expand it first \\(press_key ArrowRight with target ${deciduous}`), msg(r));
  r = await env.call('browser_press_key', { target: deciduous, key: 'ArrowRight' });
  ok(r, 'ArrowRight on Deciduous');
  assert.match(md(r), /^- \[treeitem "Deciduous" expanded e\d+\]\n {4}- \[treeitem "Birch" e\d+\]\n {4}- \[treeitem "Maple" collapsed e\d+\]\n {4}- \[treeitem "Oak" e\d+\]$/m, md(r));
  r = await env.call('browser_press_key', { target: 'Maple', key: 'ArrowRight' });
  ok(r, 'ArrowRight on Maple');
  assert.match(md(r), /^ {4}- \[treeitem "Maple" expanded e\d+\]\n {8}- \[treeitem "Field maple" e\d+\]\n {8}- \[treeitem "Red maple" e\d+\]$/m, md(r));
  r = await env.call('browser_click', { target: 'Red maple' });
  ok(r, 'click Red maple');
  assert.match(md(r), /Selected: Red maple/);
  assert.match(md(r), /\[treeitem "Red maple" selected e\d+\]/);
});

test('web components: a Shoelace dropdown opens and its menu item is chosen', async () => {
  let r = await open(srv.url('/shells/shoelace.html'));
  assert.doesNotMatch(md(r), /\bPaste\b/, 'the closed menu\'s items are shown');
  r = await env.call('browser_click', { target: 'Edit menu' });
  ok(r);
  assert.match(md(r), /Paste/, 'the open menu\'s items are not shown');
  r = await env.call('browser_click', { target: 'Copy' });
  ok(r);
  assert.match(md(r), /Menu choice: copy/);
});

test('web components: a closed sl-dialog\'s text is hidden until it opens', async () => {
  let r = await open(srv.url('/shells/shoelace.html'));
  assert.doesNotMatch(md(r), /gone for good/, 'the closed dialog\'s text is shown');
  r = await env.call('browser_click', { target: 'Open dialog' });
  ok(r);
  assert.match(md(r), /gone for good/);
  r = await env.call('browser_click', { target: 'Close dialog' });
  ok(r);
  assert.doesNotMatch(md(r), /gone for good/);
});

// ---------------------------------------------------------------- readiness

test('readiness: with every library file 300 ms late, open_url returns the page once its modules are loaded', async () => {
  const slow = await startStaticServer({ roots: { '/npm/': NODE_MODULES + '/', '/shells/': SHELLS + '/' }, delayMs: 300, delayMatch: (p) => p.startsWith('/npm/') });
  try {
    const r = await env.call('browser_open_url', { url: slow.url('/shells/shoelace.html'), timeout_ms: 60_000 });
    ok(r);
    const inflight = slow.state.inflightCode;
    const servedAtReturn = slow.state.served;
    assert.ok(slow.hits.filter((h) => h.includes('/@shoelace-style/shoelace/cdn/')).length > 5, 'Shoelace\'s modules were never requested');
    // Then let the page finish whatever it was still loading, and look again.
    let last = -1;
    await until(() => { const done = slow.state.inflight === 0 && slow.state.served === last; last = slow.state.served; return done; }, { timeout: 30_000, interval: 700, what: 'the page\'s loads to finish' });
    const later = await env.call('browser_get_page', {});
    ok(later);
    assert.equal(inflight, 0, `open_url returned with ${inflight} of the page's script, module or stylesheet requests still in flight (${servedAtReturn} served, ${slow.state.served} in the end)`);
    assert.equal(noRefs(md(r)), noRefs(md(later)), 'the page returned by open_url is not the page once loaded');
  } finally {
    await slow.close();
  }
});

// Ionic defines its components at once and keeps them visibility: hidden until the code each one
// imports (dynamic import(), which the page scripts do not see) has hydrated it: the DOM is quiet
// and nothing is undefined meanwhile, and the page used to be answered blank (27 of 27 opens).
test('readiness: an Ionic page is answered once its components show, not blank', async () => {
  for (let i = 0; i < 2; i++) {
    const r = await open(srv.url('/shells/wc-ionic.html'));
    assert.match(md(r), /Save settings/, `answered before it showed anything: ${JSON.stringify(r.result)}\n${md(r)}`);
    assert.match(md(r), /Send me the newsletter/);
    assert.equal(r.result?.settle?.reason, 'quiet', JSON.stringify(r.result));
    assert.equal(r.result?.settle?.pending, undefined, JSON.stringify(r.result));
    const c = await env.call('browser_click', { target: 'Save settings' });
    ok(c, 'click');
    assert.match(md(c), /Status: saved/);
  }
});

test('readiness: a DOM that changes every 100 ms does not hold every call to the quiet cap', async () => {
  let r = await env.call('browser_open_url', { url: srv.url('/shells/clock.html'), timeout_ms: 2000 });
  ok(r, 'open_url with timeout_ms 2000');
  // The page may be returned before or after the clock's first tick: either is the page as it is.
  assert.match(md(r), /Now: (tick \d+|0)/);
  r = await env.call('browser_click', { target: 'Press me', timeout_ms: 2000 });
  ok(r, 'click with timeout_ms 2000');
  assert.match(md(r), /Pressed: yes/);
});

// ---------------------------------------------------------------- typing order

test('typing order: Vue TodoMVC, type + submit twice gives two todos', async () => {
  const app = await startStaticServer({ roots: { '/': path.join(NODE_MODULES, 'todomvc') + '/' } });
  try {
    await open(app.url('/examples/vue/index.html'));
    ok(await env.call('browser_type', { target: 'What needs to be done?', text: 'Buy milk', submit: true }));
    const r = await env.call('browser_type', { target: 'What needs to be done?', text: 'Walk dog', submit: true });
    ok(r);
    const list = md(r).slice(md(r).indexOf('What needs to be done?'));
    assert.doesNotMatch(list, /Buy milkWalk dog/);
    assert.match(list, /\bBuy milk\b/);
    assert.match(list, /\bWalk dog\b/);
    assert.match(list, /\*\*2\*\* items left/);
  } finally {
    await app.close();
  }
});

// ---------------------------------------------------------------- Markdown fidelity

test('Markdown: a clickable image with a pointer cursor gets a ref, and clicking it works', async () => {
  const r = await open(srv.url('/shells/docs.html'));
  const ref = refOf(md(r), /Expand/);
  assert.ok(ref, `no ref for the clickable image in:\n${md(r)}`);
  const c = await env.call('browser_click', { target: ref });
  ok(c);
  assert.match(md(c), /Adapters and converters/);
});

test('Markdown: a table whose cells hold paragraphs stays a table', async () => {
  const r = await open(srv.url('/shells/docs.html'));
  assert.match(md(r), /\|\s*Python type\s*\|\s*SQLite type\s*\|/, md(r));
  assert.match(md(r), /\|\s*`None`\s*\|\s*`NULL`\s*\|/);
  assert.match(md(r), /\|[^\n]*`str`[^\n]*\|[^\n]*`TEXT`[^\n]*text_factory[^\n]*\|/, 'the two paragraphs of one cell stay in its row');
});

test('Markdown: aria-label that differs from the visible text shows both', async () => {
  const r = await open(srv.url('/shells/docs.html'));
  const line = md(r).split('\n').find((l) => l.includes('Cancel order')) || '';
  assert.match(line, /Cancel order/);
  assert.match(line, /Pay \$5,000 now/, `the visible text is missing: ${line}`);
});

test('Markdown: a rich-text editor (MediumEditor demo) is rendered as Markdown inside its field, not cut at 500 characters', async () => {
  const r = await open(srv.url('/npm/medium-editor/demo/index.html'));
  const m = md(r);
  // The editor's marker (extension/README.md, Markdown): [editor "name" eN], its content quoted below.
  const at = m.search(/^\[editor\b[^\]\n]*\be\d+\]$/m);
  assert.ok(at >= 0, `no editor marker in:\n${m}`);
  const field = m.slice(at);
  assert.match(field, /\[Pirrip\]\(https:\/\/en\.wikipedia\.org\/wiki\/Pip_\(Great_Expectations\)\)|\[Pirrip\]\(https:\/\/en\.wikipedia\.org\/wiki\/Pip_%28Great_Expectations%29\)/, 'the link inside the editor is flattened');
  assert.match(field, /Ours was the marsh country/, 'the editor\'s third paragraph (past 500 characters) is cut');
  assert.match(field, /in this state of existence\./);
});

test('Markdown: text typed at the end of a long rich-text editor shows in the page', async () => {
  let r = await open(srv.url('/npm/medium-editor/demo/index.html'));
  const ref = refOf(md(r), /^\[editor\b/);
  assert.ok(ref, `no ref for the editor in:\n${md(r)}`);
  r = await env.call('browser_type', { target: ref, text: ' Zebra quokka marker.', clear: false });
  ok(r);
  assert.match(md(r), /Zebra quokka marker\./);
});

test('Markdown: CKEditor 4 inline editors (the package\'s own sample) show their headings and links as Markdown', async () => {
  const r = await open(srv.url('/npm/ckeditor4/samples/old/inlineall.html'));
  const m = md(r);
  // An editor's content is quoted under its marker (extension/README.md, Markdown): "> ### …".
  assert.match(m, /^> #+ Integer condimentum sit amet\s*$/m, 'the heading inside the editor is flattened');
  assert.match(m, /\[magna non mattis ac, rhoncus nunc\]\(https:\/\/ckeditor\.com\/\)/, 'the link inside the editor is flattened');
  assert.match(m, /^> #+ Praesent wisi accumsan sit amet nibh\s*$/m, 'the second editor of the column is missing');
});

// Quill names its editor only by its placeholder (data-placeholder), which the Markdown shows as
// the editor's name even once it has content: that name must be a target too (it was "No field
// matches" while the editor had content). Typing without `clear` replaces the content, as the
// tool's schema says (it used to append); clear: false appends.
test('Markdown: a Quill editor is typed into by the name its marker shows, its content replaced unless clear is false', async () => {
  let r = await open(srv.url('/shells/quill.html'));
  assert.match(md(r), /\[editor "Compose an epic\.\.\." e\d+\]\n> ## Release notes\n>\n> Some \*\*bold claims\*\* here\./, md(r));
  r = await env.call('browser_type', { target: 'Compose an epic...', text: 'Hello there' });
  ok(r, 'type by the editor\'s shown name');
  // (Quill keeps the first line's format when its content is selected and deleted, as for a user)
  assert.match(md(r), /^> (## )?Hello there$/m, md(r));
  assert.doesNotMatch(md(r), /Release notes|bold claims/, 'typing without clear kept the old content');
  r = await env.call('browser_type', { target: 'Compose an epic...', text: ' and more', clear: false });
  ok(r, 'type with clear: false');
  assert.match(md(r), /Hello there and more/, md(r));
  r = await env.call('browser_click', { target: 'Count characters' });
  ok(r, 'click');
  assert.match(md(r), /Text: "Hello there and more\\+n"/, 'Quill\'s own model does not hold the typed text');
});

// Quill's snow toolbar draws its header picker's words ("Normal", "Heading 1") only as CSS generated
// content: the picker was [button] with no name and "Heading 1" matched nothing.
test('Markdown: Quill\'s header picker is named by the words it draws, and its "Heading 1" is clicked by them', async () => {
  let r = await open(srv.url('/shells/quill.html'));
  assert.match(md(r), /\[button "Normal" e\d+\]/, md(r));
  r = await env.call('browser_click', { target: 'Normal' });
  ok(r, 'open the picker');
  assert.match(md(r), /\[button "Heading 1" e\d+\]/, md(r));
  r = await env.call('browser_click', { target: 'Heading 1' });
  ok(r, 'Heading 1');
  assert.match(md(r), /^> # Release notes$/m, md(r));
});

// Quill 2 keeps bulleted and numbered lines in one <ol> (each <li data-list> drawing its own "•" or
// number): the bulleted list showed numbered, "1.  Milk 2.  Eggs".
test('Markdown: Quill\'s bulleted list shows bullets and its numbered list numbers, as drawn', async () => {
  const r = await open(srv.url('/shells/quill-lists.html'));
  assert.match(md(r), /^> Buy:\n>\n> - Milk\n> - Eggs\n>\n> Then:\n>\n> 1\. Preheat\n> 2\. Bake$/m, md(r));
});

// Swiper moves its track (one slide wide, position: relative) with a transform: from the fourth
// slide on, the track's own box is left of the page, while the slide shown overflows it onto
// the screen. The track was taken for text moved off the page (left: -9999px), and the slide
// the user sees was left out of the answer with everything else in it.
test('Markdown: the slide a Swiper carousel shows is in the answer, wherever its track was moved', async () => {
  let r = await open(srv.url('/shells/swiper.html'));
  assert.match(md(r), /Apples from Normandy/);
  for (const [n, text] of [[4, 'Dates from Medjool'], [5, 'Elderberries from Bavaria'], [2, 'Bananas from Ecuador']]) {
    r = await env.call('browser_click', { target: `Go to slide ${n}` });
    ok(r, `go to slide ${n}`);
    assert.match(md(r), new RegExp(text), `slide ${n} is not in the answer: ${md(r)}`);
    assert.match(md(r), /Below the carousel/);
  }
});

// An ARIA slider (noUiSlider's handle) is set as a keyboard user sets it: typing a number into it
// presses Home, End or its arrow keys until it shows that value (it used to be "not a text field,
// checkbox or select"); a value out of its range is refused; select_option says how to set it.
test('forms: a noUiSlider slider is set to a number typed into it, by its keys, and fill_form does the same', async () => {
  let r = await open(srv.url('/shells/slider.html'));
  assert.match(md(r), /\[slider "Volume" value="20\.0" e\d+\]/, md(r));
  r = await env.call('browser_type', { target: 'Volume', text: '35' });
  ok(r, 'type 35');
  assert.match(md(r), /Volume: 35\b/, md(r));
  assert.match(md(r), /\[slider "Volume" value="35\.0" e\d+\]/);
  r = await env.call('browser_fill_form', { fields: [{ target: 'Volume', value: '100' }] });
  ok(r, 'fill_form 100');
  assert.match(md(r), /Volume: 100\b/, md(r));
  r = await env.call('browser_type', { target: 'Volume', text: '12' });
  ok(r, 'type 12');
  assert.match(md(r), /Volume: 12\b/, md(r));
  r = await env.call('browser_type', { target: 'Volume', text: '150' });
  assert.equal(r.status, 'error', 'a value out of range was accepted');
  assert.match(msg(r), /from 0 to 100/);
  r = await env.call('browser_select_option', { target: 'Volume', value: '50' });
  assert.equal(r.status, 'error');
  assert.match(msg(r), /browser_type/);
  r = await env.call('browser_get_page', {});
  assert.match(md(r), /Volume: 12\b/, 'a refused call changed the slider');
  // a slider whose keys do nothing: an error saying it did not get there, never a success
  r = await env.call('browser_type', { target: 'Balance', text: '5' });
  assert.equal(r.status, 'error', `a slider that did not move was reported set: ${msg(r)}`);
  assert.match(msg(r), /did not reach 5/);
});

// Swiper's autoplay sets its next timer (1 s) when a slide's transition ends: each was taken for
// a new chain the page started, so every wait on the page, open_url's and each click's, ran to
// its cap. A timer set from an animation's own event now continues the chain of the timer that
// started the animation (followed for 1 s), as one set from a timer does.
test('readiness: a Swiper carousel that plays itself every second does not hold the answers to the cap', async () => {
  let r = await open(srv.url('/shells/swiper.html?autoplay'));
  assert.equal(r.result?.settle?.reason, 'quiet', JSON.stringify(r.result));
  for (const n of [3, 5]) {
    r = await env.call('browser_click', { target: `Go to slide ${n}` });
    ok(r, `go to slide ${n}`);
    assert.equal(r.result?.settle?.reason, 'quiet', JSON.stringify(r.result));
  }
  r = await env.call('browser_click', { target: 'Next slide' });
  ok(r, 'next slide');
  assert.equal(r.result?.settle?.reason, 'quiet', JSON.stringify(r.result));
});

// ---------------------------------------------------------------- trusted input

test('trusted input: clicks and keys reach a page that ignores isTrusted=false events (managed headless browser)', async () => {
  await open(srv.url('/shells/trusted.html'));
  let r = await env.call('browser_click', { target: 'Count me' });
  ok(r);
  assert.match(md(r), /Trusted clicks: 1\b/);
  r = await env.call('browser_type', { target: 'Code', text: '42' });
  ok(r);
  assert.match(md(r), /Trusted keys: [1-9]/);
});

test('trusted input: a visually hidden switch is clicked through the part of its <label> a click hits (Carbon React Toggle: the label\'s centre is its wrapper\'s)', async () => {
  // tests/fixtures/pages/cnt-labelswitch.html reproduces @carbon/react's Toggle (not a devDependency)
  let r = await open(srv.url('/pages/cnt-labelswitch.html'));
  assert.match(md(r), /\[switch "Dark mode Off" e\d+\]/, md(r));
  r = await env.call('browser_click', { target: 'Dark mode' });
  ok(r);
  // (the trusted click's answer: the content script's would say "through [label …]")
  assert.match(r.result.message, /^Clicked \[switch "Dark mode Off" e\d+\]; it is now checked$/);
  assert.match(md(r), /\[switch "Dark mode On" checked e\d+\]/);
  assert.match(md(r), /Dark: true/);
});

// ---------------------------------------------------------------- dialogs (last: today they wedge their tab)

// Each dialog test runs in a tab of its own, closed afterwards, so a wedged tab cannot spoil the rest.
async function inNewTab(url, fn) {
  const r = await env.call('browser_open_url', { url, new_tab: true, timeout_ms: 15_000 });
  ok(r, 'open in a new tab');
  const tab = r.page?.tab_id ?? r.result?.tabId;
  try {
    await fn(tab);
  } finally {
    await env.call('browser_close_tab', { tab_id: tab, timeout_ms: 10_000 }).catch(() => {});
  }
}

// With the real pointer, a hover menu in the page's flow folds up as the pointer leaves it for the
// button below, which moves up from under the pointer before the press: the press went to the
// page around it, and the answer said "Clicked [button "Switch theme"]".
// Trusted keys with no target go where the focus is: after fill_form none has it, and "Pressed
// Enter (trusted input)" hid that the Enter went to the page itself; with a field focused, it says
// which.
test('trusted input: a key pressed with no target says where it went', async () => {
  await open(srv.url('/pages/login.html'));
  let r = await env.call('browser_fill_form', { fields: [{ target: 'Username', value: 'dora' }] });
  ok(r, 'fill_form');
  r = await env.call('browser_press_key', { key: 'Enter' });
  ok(r, 'press Enter');
  assert.match(r.result?.message || '', /^Pressed Enter \(trusted input\); the keyboard focus was on no field or control, so the key went to the page itself/, msg(r));
  ok(await env.call('browser_click', { target: 'Password' }), 'click the password field');
  r = await env.call('browser_press_key', { key: 'End' });
  ok(r, 'press End');
  assert.match(r.result?.message || '', /^Pressed End \(trusted input\) on \[input password "Password"/, msg(r));
});

// A password field the page swaps for a text field holding the same value (Vue's v-if/v-else
// "show password"): the typed password was in the Markdown and the history. A form sent with GET
// puts its password in the address: it is taken out of the page's URL.
test('secrets: a password shown in a text field the page put in its place stays secret, and a GET form\'s password leaves the URL', async () => {
  await open(srv.url('/shells/vue-password.html'));
  let r = await env.call('browser_type', { target: 'Password', text: 'VuePw-31337' });
  ok(r, 'type the password');
  r = await env.call('browser_click', { target: 'Reveal' });
  ok(r, 'reveal');
  assert.match(md(r), /\[input text "Password" filled e\d+\]/, md(r));
  assert.doesNotMatch(JSON.stringify(r), /VuePw-31337/);
  ok(await env.call('browser_type', { target: 'User', text: 'bob' }), 'user');
  r = await env.call('browser_type', { target: 'Pass', text: 'GetPw-4242', submit: true });
  ok(r, 'submit');
  r = await env.call('browser_get_page', {});
  ok(r, 'get page');
  assert.match(r.page?.url || '', /user=bob&password=%5Bsecret%5D$/, r.page?.url);
  assert.doesNotMatch(JSON.stringify(r), /GetPw-4242/);
});

// A button that swaps its icon as it is clicked (a play button): the press went to the icon the
// page then took away, and the trusted click was said to have "landed" elsewhere, "click it again".
test('trusted click: a button that swaps the icon pressed is said clicked', async () => {
  await open(srv.url('/pages/iconswap.html'));
  let r = await env.call('browser_click', { target: 'Play' });
  ok(r, 'play');
  assert.match(md(r), /State: playing/);
  r = await env.call('browser_click', { target: 'Pause' });
  ok(r, 'pause');
  assert.match(md(r), /State: paused/);
});

test('trusted click: a button the page moved away as the pointer came is not said clicked', async () => {
  await open(srv.url('/pages/trusted-shift.html'));
  ok(await env.call('browser_hover', { target: 'Themed menu' }), 'hover');
  let r = await env.call('browser_click', { target: 'Switch theme' });
  assert.equal(r.status, 'error', msg(r));
  assert.match(r.result.error, /moved as the pointer came to it, and the click landed on .* instead/, r.result.error);
  r = await env.call('browser_get_page', {});
  assert.match(md(r), /Theme: a/);
  r = await env.call('browser_click', { target: 'Switch theme' });
  ok(r, 'click again');
  assert.match(md(r), /Theme: b/);
});

test('dialogs: an alert opened by a click is accepted and reported in the click\'s result', async () => {
  await inNewTab(srv.url('/shells/dialogs.html'), async (tab) => {
    const r = await env.call('browser_click', { tab_id: tab, target: 'Show alert', timeout_ms: 8000 });
    ok(r);
    const said = JSON.stringify(r.result);
    assert.match(said, /alert/i, `the result does not report the alert: ${said}`);
    assert.match(said, /Saved!/, 'the result does not carry the dialog\'s message');
    assert.match(md(r), /Answer: alert closed/);
  });
});

test('dialogs: a confirm is dismissed by default and reported', async () => {
  await inNewTab(srv.url('/shells/dialogs.html'), async (tab) => {
    const r = await env.call('browser_click', { tab_id: tab, target: 'Ask confirm', timeout_ms: 8000 });
    ok(r);
    assert.match(JSON.stringify(r.result), /Delete everything\?/);
    assert.match(md(r), /Answer: cancelled/);
  });
});

test('dialogs: browser_handle_dialog sets how the next prompt is answered', async () => {
  await inNewTab(srv.url('/shells/dialogs.html'), async (tab) => {
    const h = await env.call('browser_handle_dialog', { tab_id: tab, accept: true, prompt_text: 'Ada', timeout_ms: 8000 });
    ok(h, 'browser_handle_dialog');
    let r = await env.call('browser_click', { tab_id: tab, target: 'Ask prompt', timeout_ms: 8000 });
    ok(r);
    assert.match(JSON.stringify(r.result), /Your name\?/);
    assert.match(md(r), /Answer: name=Ada/);
    // The setting was for the next dialog only: the following prompt falls back to dismiss.
    r = await env.call('browser_click', { tab_id: tab, target: 'Ask prompt', timeout_ms: 8000 });
    ok(r);
    assert.match(md(r), /Answer: prompt dismissed/);
  });
});

test('dialogs: after an alert the tab still answers', async () => {
  await inNewTab(srv.url('/shells/dialogs.html'), async (tab) => {
    await env.call('browser_click', { tab_id: tab, target: 'Show alert', timeout_ms: 5000 });
    const r = await env.call('browser_get_page', { tab_id: tab, timeout_ms: 5000 });
    ok(r, 'get_page after the alert');
    assert.match(md(r), /Answer: alert closed/);
  });
});

test('dialogs: leaving a page with a beforeunload guard never wedges the tab', async () => {
  await inNewTab(srv.url('/shells/dialogs.html'), async (tab) => {
    let r = await env.call('browser_click', { tab_id: tab, target: 'Guard unload', timeout_ms: 8000 });
    ok(r);
    assert.match(md(r), /Answer: unload guarded/);
    r = await env.call('browser_click', { tab_id: tab, target: 'Leave this page', timeout_ms: 10_000 });
    assert.equal(r.http, 200, `leaving a guarded page hung: ${r.http} ${msg(r)}`);
    const g = await env.call('browser_get_page', { tab_id: tab, timeout_ms: 5000 });
    ok(g, 'get_page after leaving');
    // Either the page was left (the guard accepted) or it stayed and the result said why.
    if (!/Trusted input only/.test(md(g))) assert.match(JSON.stringify(r.result), /beforeunload|leave/i, 'stayed on the page without saying why');
  });
});
