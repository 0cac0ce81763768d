// End-to-end: real Chromium + the real extension + the daemon (real when built,
// else tests/e2e/support/mock-daemon.mjs), driven through the HTTP tool API.
//   node --test tests/e2e/
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { setup, refOf, resultData, pngSize, sleep } from './support/harness.mjs';

let env;
before(async () => { env = await setup(); });
after(async () => { await env?.close(); });

const ok = (r) => assert.equal(r.status, 'success', `expected success, got ${r.http} ${JSON.stringify(r.result || r.message)}`);
const open = async (p, extra = {}) => { const r = await env.call('browser_open_url', { url: env.url(p), ...extra }); ok(r); return r; };

test('hello: the browser registers with its capabilities', async () => {
  const s = await env.daemon.status();
  const b = s.browsers.find((x) => x.client_id === env.browser.clientId);
  assert.ok(b, 'browser listed in /api/status');
  assert.equal(b.browser, 'Chromium');
  assert.match(b.browser_version, /^\d+\.\d+/);
  for (const c of ['open_url', 'click', 'type', 'get_page', 'screenshot', 'wait_for']) assert.ok(b.capabilities.includes(c), c);
});

test('login form: type username and password, submit, land on the greeting; the password never shows', async () => {
  let r = await open('/login.html');
  assert.match(r.page.markdown, /# Sign in/);
  r = await env.call('browser_type', { target: 'Username', text: 'bob' });
  ok(r);
  assert.match(r.page.markdown, /\[input text "Username" value="bob" e\d+\]/);
  r = await env.call('browser_type', { target: 'Password', text: 'hunter2-secret' });
  ok(r);
  assert.ok(!r.page.markdown.includes('hunter2'), 'password value in Markdown');
  assert.match(r.page.markdown, /\[input password "Password" filled e\d+\]/);
  r = await env.call('browser_click', { target: 'Remember me' });
  ok(r);
  assert.match(r.page.markdown, /\[checkbox "Remember me" checked e\d+\]/);
  r = await env.call('browser_click', { target: 'Log in' });
  ok(r);
  assert.match(r.page.url, /\/welcome\?user=bob&remember=1$/);
  assert.match(r.page.markdown, /# Welcome, bob!/);
  assert.ok(!JSON.stringify(r).includes('hunter2'), 'password anywhere in the answer');
  const post = env.fixtures.posts.at(-1);
  assert.equal(post.form.password, 'hunter2-secret', 'the form really carried the password');
});

test('type with submit presses Enter like a user (implicit submission)', async () => {
  await open('/login.html');
  ok(await env.call('browser_type', { target: 'Username', text: 'carol' }));
  const r = await env.call('browser_type', { target: 'Password', text: 'hunter2-secret', submit: true });
  ok(r);
  assert.match(r.page.markdown, /# Welcome, carol!/);
  assert.match(r.result.message, /pressed Enter/);
});

test('React controlled inputs: typing updates React state', async () => {
  let r = await open('/react.html');
  assert.match(r.page.markdown, /Hello, nobody!/);
  r = await env.call('browser_type', { target: 'Your name', text: 'Ada Lovelace' });
  ok(r);
  assert.match(r.page.markdown, /Hello, Ada Lovelace!/);
  assert.match(r.page.markdown, /Length: 12/);
  r = await env.call('browser_type', { target: 'Your name', text: 'Grace', clear: true });
  ok(r);
  assert.match(r.page.markdown, /Hello, Grace!/);
  r = await env.call('browser_click', { target: 'I agree' });
  ok(r);
  assert.match(r.page.markdown, /Agreed: yes/);
  r = await env.call('browser_select_option', { target: 'Favourite colour', value: 'Blue' });
  ok(r);
  assert.match(r.page.markdown, /Colour state: blue/);
  r = await env.call('browser_type', { target: 'Notes', text: 'line one' });
  ok(r);
  assert.match(r.page.markdown, /Notes state: line one/);
  r = await env.call('browser_press_key', { key: 'Enter', target: 'Your name' });
  ok(r);
  assert.match(r.page.markdown, /Saved profile for Grace/);
});

test('a button that changes the DOM without navigating: the answer shows the change', async () => {
  let r = await open('/dom-change.html');
  r = await env.call('browser_click', { target: 'Add item' });
  ok(r);
  assert.match(r.page.markdown, /Bread 1/);
  assert.match(r.page.markdown, /2 items/);
  // DOM busy for 700 ms (spinner), then the result
  r = await env.call('browser_click', { target: 'Add later' });
  ok(r);
  assert.match(r.page.markdown, /Eggs \(late\)/);
  assert.doesNotMatch(r.page.markdown, /Loading/);
});

test('a link that navigates: the answer is the new page, never the old one', async () => {
  let r = await open('/nav.html');
  r = await env.call('browser_click', { target: 'Continue to page two' });
  ok(r);
  assert.match(r.page.url, /\/page2\.html$/);
  assert.match(r.page.markdown, /# Page two/);
  await open('/nav.html');
  r = await env.call('browser_click', { target: 'Open the slow page' }); // 1.2 s server delay
  ok(r);
  assert.match(r.page.markdown, /Slow page loaded/);
  await open('/nav.html');
  r = await env.call('browser_click', { target: 'Navigate with script' }); // location.href after 150 ms
  ok(r);
  assert.match(r.page.url, /page2\.html\?via=js/);
  r = await env.call('browser_back', {});
  ok(r);
  assert.match(r.page.url, /\/nav\.html$/);
  r = await env.call('browser_forward', {});
  ok(r);
  assert.match(r.page.url, /page2\.html\?via=js/);
  r = await env.call('browser_reload', {});
  ok(r);
  assert.match(r.page.markdown, /# Page two/);
  // Forward with no later page: nothing moves, and the answer says so (it said "Went forward to").
  r = await env.call('browser_forward', {});
  assert.equal(r.status, 'error', JSON.stringify(r.result));
  assert.match(r.result.error, /^Did not go forward: the tab has no later page in its history; it still shows http:\/\/[^ ]+\/page2\.html\?via=js\.$/);
  assert.match(r.page.markdown, /# Page two/);
  // Back in a tab with no earlier page: the same.
  r = await env.call('browser_open_url', { url: env.url('/page2.html'), new_tab: true });
  ok(r);
  const fresh = resultData(r).tabId;
  r = await env.call('browser_back', { tab_id: fresh });
  assert.equal(r.status, 'error', JSON.stringify(r.result));
  assert.match(r.result.error, /^Did not go back: the tab has no earlier page in its history; it still shows http:\/\/[^ ]+\/page2\.html\.$/);
  ok(await env.call('browser_close_tab', { tab_id: fresh }));
});

test('new tab: a target=_blank link returns the new tab\'s page; list, switch and close tabs', async () => {
  const first = await open('/newtab.html');
  const openerTab = resultData(first).tabId;
  let r = await env.call('browser_click', { target: 'Open the report' });
  ok(r);
  assert.match(r.page.markdown, /# Quarterly report/);
  assert.match(r.page.markdown, /\| Quarter \| Revenue \|/);
  const reportTab = r.page.tab_id;
  assert.notEqual(reportTab, openerTab);
  r = await env.call('browser_list_tabs', {});
  ok(r);
  const tabs = resultData(r).tabs;
  assert.ok(tabs.some((t) => t.tabId === reportTab && /report\.html/.test(t.url)));
  assert.ok(tabs.some((t) => t.tabId === openerTab));
  r = await env.call('browser_switch_tab', { tab_id: openerTab });
  ok(r);
  assert.match(r.page.markdown, /# Reports/);
  r = await env.call('browser_close_tab', { tab_id: reportTab });
  ok(r);
  r = await env.call('browser_list_tabs', {});
  assert.ok(!resultData(r).tabs.some((t) => t.tabId === reportTab));
  // open_url in a new tab
  r = await env.call('browser_open_url', { url: env.url('/page2.html'), new_tab: true });
  ok(r);
  assert.notEqual(resultData(r).tabId, openerTab);
  assert.match(r.page.markdown, /# Page two/);
  ok(await env.call('browser_close_tab', { tab_id: resultData(r).tabId }));
});

test('ambiguous and missing targets: errors list candidates with refs', async () => {
  let r = await open('/ambiguous.html');
  r = await env.call('browser_click', { target: 'Delete' });
  assert.equal(r.status, 'error');
  const err = r.result.error;
  assert.match(err, /matches 2 elements/);
  assert.equal((err.match(/\[button "Delete" e\d+\]/g) || []).length, 2, err);
  r = await env.call('browser_click', { target: 'Dleete' });
  assert.equal(r.status, 'error');
  assert.match(r.result.error, /No element matches "Dleete"/);
  assert.match(r.result.error, /\[button "Delete" e\d+\]/);
  // exact beats partial; visible beats hidden
  r = await env.call('browser_click', { target: 'Archive' });
  ok(r);
  assert.match(r.result.message, /Archive all/);
  // a role word in the description
  r = await env.call('browser_click', { target: 'the Archive all button' });
  ok(r);
  assert.match(r.result.message, /Archive all/);
  // aria-label, non-Latin text, nested clickables
  r = await env.call('browser_get_page', {});
  assert.match(r.page.markdown, /\[button "Close dialog" e\d+\]/);
  assert.match(r.page.markdown, /\[!\[Company logo\](\([^)]*\))? ?Home\]\([^)]*page2\.html\) \[e\d+\]/);
  assert.equal((r.page.markdown.match(/Company logo/g) || []).length, 1);
  r = await env.call('browser_click', { target: '登录' });
  ok(r);
  assert.match(r.page.markdown, /Chinese login clicked/);
  // a ref that is gone
  const md = (await env.call('browser_get_page', {})).page.markdown;
  const ref = refOf(md, /button "Delete"/);
  assert.ok(ref);
  await open('/page2.html');
  r = await env.call('browser_click', { target: ref });
  assert.equal(r.status, 'error');
  assert.match(r.result.error, new RegExp(`ref ${ref} is no longer on the page`));
});

// A cross-origin frame that went on to another page is no longer at its src: the hidden frame of
// the same site before it (a payment widget's controller) was shown in its place, its own step 2
// out of reach.
test('a cross-origin frame that navigated is shown as itself, not as a hidden frame of the same site', async () => {
  let r = await open('/xframe-nav.html');
  assert.match(r.page.markdown, /\[iframe "Payment widget" origin=http:\/\/localhost:\d+\]\n\nPayment widget step 1/, r.page.markdown);
  const link = refOf(r.page.markdown, /link "Continue to verification"/) || /\[Continue to verification\]\([^)]*\) \[(e\d+)\]/.exec(r.page.markdown)?.[1];
  r = await env.call('browser_click', { target: link });
  ok(r);
  // (wait_for looks into cross-origin frames too: it timed out on a text only the frame showed)
  ok(await env.call('browser_wait_for', { text: 'Verification step', wait_ms: 5000 }));
  r = await env.call('browser_get_page', {});
  assert.match(r.page.markdown, /\[iframe "Payment widget" origin=http:\/\/localhost:\d+\]\n\nVerification step/, r.page.markdown);
  assert.doesNotMatch(r.page.markdown, /Hidden controller/);
  // and a text a frame still shows is not "gone"
  r = await env.call('browser_wait_for', { text: 'Verification step', state: 'hidden', wait_ms: 300 });
  assert.equal(r.status, 'error', JSON.stringify(r.result));
  assert.match(r.result.error, /timed out after 300 ms waiting for text "Verification step" to disappear/);
  // a key with no target while the focus is in that frame goes to its focused field (it was pressed
  // on the <iframe> element, and said done)
  r = await env.call('browser_get_page', {});
  ok(await env.call('browser_click', { target: refOf(r.page.markdown, /input text "One-time code"/) }));
  r = await env.call('browser_press_key', { key: 'Enter' });
  ok(r);
  assert.match(r.result.message, /^Pressed Enter on \[input text "One-time code"/, r.result.message);
  assert.match(r.page.markdown, /Key: Enter/);
});

// A form whose fields are in the page and in cross-origin frames (card fields as Stripe draws
// them): fill_form went with all its fields to each frame in turn, and failed where the first one
// lacked a field: "ref e3 is no longer on the page". Each run of fields now goes to its own frame.
test('fill_form fills a form whose fields are in the page and in cross-origin frames, each in its own frame', async () => {
  let r = await open('/xframe-card.html');
  let md = r.page.markdown;
  if (!/"Expiry date"/.test(md)) md = (await env.call('browser_get_page', {})).page.markdown; // a frame still loading
  const num = refOf(md, /input text "Card number"/), exp = refOf(md, /input text "Expiry date"/);
  assert.ok(num && exp, md);
  r = await env.call('browser_fill_form', { fields: [{ target: 'Name on card', value: 'Ann Lee' }, { target: num, value: '4242' }, { target: exp, value: '12/34' }] });
  ok(r);
  assert.match(r.result.message, /^Filled 3 fields: \[input text "Name on card"[^\]]*\], \[input text "Card number"[^\]]*\] \(in an iframe of http:\/\/localhost:\d+\), \[input text "Expiry date"[^\]]*\] \(in an iframe of http:\/\/localhost:\d+\)$/, r.result.message);
  assert.match(r.page.markdown, /Card: \{"number":"4242","expiry":"12\/34"\}/);
  assert.match(r.page.markdown, /\[input text "Name on card" value="Ann Lee"/);
  // a field no frame holds: the error says which one, and what was filled before it
  r = await env.call('browser_fill_form', { fields: [{ target: exp, value: '01/30' }, { target: 'e999', value: 'x' }] });
  assert.equal(r.status, 'error');
  assert.match(r.result.error, /^Field 2 of 2 \("e999"\) failed: ref e999 is no longer on the page — get the page again\. Filled before it: \[input text "Expiry date"[^\]]*\] \(in an iframe of http:\/\/localhost:\d+\)\.$/, r.result.error);
  // a field described in words that only another site's frame holds: its ref is named (it was
  // "No field matches"), and nothing is typed there
  r = await env.call('browser_fill_form', { fields: [{ target: 'Name on card', value: 'Bo Li' }, { target: 'Card number', value: '5555' }] });
  assert.equal(r.status, 'error');
  assert.match(r.result.error, new RegExp(`^Field 2 of 2 \\("Card number"\\) failed: .* It matches only \\[input text "Card number"[^\\]]* ${num}\\] inside an iframe of http://localhost:\\d+: fields inside another site's frame need their ref \\(use ${num}\\), not a description\\. Filled before it: \\[input text "Name on card"`), r.result.error);
  assert.match(r.page.markdown, /Card: \{"number":"4242","expiry":"01\/30"\}/, 'typed into the frame by its description');
});

test('refs stay stable across snapshots of the same page', async () => {
  const a = (await open('/dom-change.html')).page.markdown;
  const add = refOf(a, /button "Add item"/);
  let r = await env.call('browser_click', { target: add });
  ok(r);
  assert.equal(refOf(r.page.markdown, /button "Add item"/), add);
  r = await env.call('browser_click', { target: add });
  ok(r);
  assert.match(r.page.markdown, /3 items/);
  r = await env.call('browser_click', { target: '#add' }); // CSS selector
  ok(r);
  assert.match(r.page.markdown, /4 items/);
});

test('same-origin and cross-origin iframes and an open shadow root are in the page and can be used', async () => {
  let r = await open('/frames.html');
  const md = r.page.markdown;
  assert.match(md, /Inside the frame/);
  assert.match(md, /\[button "Press in frame" e\d+\]/);
  assert.match(md, /Shadow count: \*\*0\*\*|Shadow count: 0/);
  assert.match(md, /\[input text "Shadow search"[^\]]* e\d+\]/);
  // The cross-origin frame is read by a content script of its own, in place of its placeholder.
  // Each frame's marker names its origin (the title is the page's to choose, the origin is not).
  const foreign = md.match(/\[iframe "Foreign frame" origin=http:\/\/localhost:\d+\]\n\n([\s\S]*?)\n\n\[\/iframe\]/);
  assert.ok(foreign, md);
  assert.match(md, /\[iframe "Inner frame" origin=http:\/\/127\.0\.0\.1:\d+\]/);
  assert.match(foreign[1], /^## Inside the frame/);
  assert.match(foreign[1], /\[button "Only in the foreign frame" e\d+\]/);
  assert.doesNotMatch(md, /⟦frame|not read|Pixel frame/);
  assert.equal((md.match(/Press in frame/g) || []).length, 2);
  const pressed = (m) => (m.match(/Frame button was pressed/g) || []).length;
  r = await env.call('browser_click', { target: 'Press in frame' }); // the top frame (and its same-origin frame) first
  ok(r);
  assert.equal(pressed(r.page.markdown), 1);
  // A ref from the cross-origin frame is that frame's: the click lands there.
  r = await env.call('browser_click', { target: foreign[1].match(/\[button "Press in frame" (e\d+)\]/)[1] });
  ok(r);
  assert.equal(pressed(r.page.markdown), 2);
  assert.match(r.result.message, /\(in an iframe of http:\/\/localhost:\d+\)/);
  assert.match(r.result.frameOrigin, /^http:\/\/localhost:\d+$/);
  // A description that only the cross-origin frame matches: refused, with the ref to use.
  r = await env.call('browser_click', { target: 'Only in the foreign frame' });
  assert.equal(r.status, 'error');
  assert.match(r.result.error, /only \[button "Only in the foreign frame" e\d+\] inside an iframe of http:\/\/localhost:\d+; actions inside another site's frame need the element's ref \(use e\d+\)/);
  assert.doesNotMatch(r.page.markdown, /Foreign button was pressed/);
  // By the ref it names, it works.
  r = await env.call('browser_click', { target: r.result.error.match(/\(use (e\d+)\)/)[1] });
  ok(r);
  assert.match(r.page.markdown, /Foreign button was pressed/);
  // Still nothing where nothing matches: the top frame's answer, not some frame's.
  r = await env.call('browser_click', { target: 'A button that is nowhere' });
  assert.equal(r.status, 'error');
  assert.match(JSON.stringify(r.result), /No element matches/);
  r = await env.call('browser_click', { target: 'Increment' });
  ok(r);
  assert.match(r.page.markdown, /Shadow count: (\*\*)?1/);
  r = await env.call('browser_type', { target: 'Shadow search box', text: 'deep' });
  ok(r);
  assert.match(r.page.markdown, /Echo: deep/);
});

test('Markdown: structure, states, hidden content dropped, no password values', async () => {
  const md = (await open('/markdown.html')).page.markdown;
  assert.match(md, /^# Main title$/m);
  assert.match(md, /^## Section$/m);
  assert.match(md, /\*\*bold\*\*/);
  assert.match(md, /\[docs link\]\(https:\/\/example\.com\/docs\) \[e\d+\]/);
  assert.match(md, /^- First$/m);
  assert.match(md, /^1\. One$/m);
  assert.match(md, /\| Name \| Qty \|\n\| --- \| --- \|\n\| Apple \| 3 \|/);
  assert.match(md, /```js\nconst x = 1;\nconsole.log\(x\);\n```/);
  assert.match(md, /!\[A chart of sales\]/);
  assert.doesNotMatch(md, /SECRET HIDDEN TEXT|INVISIBLE TEXT|SCRIPT TEXT/);
  assert.doesNotMatch(md, /pw-in-markup-123/);
  assert.match(md, /\[input email "Email" value="a@b.c" e\d+\]/);
  assert.match(md, /\[checkbox "Subscribe" checked e\d+\]/);
  assert.match(md, /\[select "Size" value="Large"/);
  assert.match(md, /\[textarea "Comment" value="Hello there" e\d+\]/);
  assert.match(md, /\[button "Disabled button" disabled e\d+\]/);
  assert.match(md, /\[button "Custom button" e\d+\]/);
});

test('screenshot: a PNG of the visible tab with the right size', async () => {
  await open('/report.html');
  const r = await env.call('browser_screenshot', { format: 'png' });
  ok(r);
  const d = resultData(r);
  assert.equal(d.mimeType, 'image/png');
  assert.ok(!d.data.startsWith('data:'), 'no data: prefix');
  const size = pngSize(d.data);
  assert.equal(size.width, d.width);
  assert.equal(size.height, d.height);
  // the window is 1000x700; the viewport is a little smaller than the window at most
  assert.ok(size.width > 500 && size.width <= 1000 * 2, `width ${size.width}`);
  assert.ok(size.height > 300 && size.height <= 700 * 2, `height ${size.height}`);
});

test('wait_for: text appears, selector disappears, timeout is an error', async () => {
  await open('/dom-change.html');
  ok(await env.call('browser_click', { target: 'Add later', wait_for_page_info: false }));
  let r = await env.call('browser_wait_for', { text: 'Eggs (late)', wait_ms: 5000 });
  ok(r);
  r = await env.call('browser_wait_for', { selector: '#spinner', state: 'hidden', wait_ms: 5000 });
  ok(r);
  // wait_ms: how long to wait (the daemon's parameter); timeout_ms: the whole call
  r = await env.call('browser_wait_for', { text: 'never there', wait_ms: 1000, timeout_ms: 8000 });
  assert.equal(r.status, 'error');
  assert.match(r.result.error, /timed out/);
});

test('scroll and press_key', async () => {
  await open('/big?n=200');
  let r = await env.call('browser_scroll', { direction: 'bottom' });
  ok(r);
  r = await env.call('browser_scroll', { direction: 'top' });
  ok(r);
  assert.match(r.result.message, /at the top/);
  // At the top already, and on a page that fits the window: nothing scrolls, and the answer says so.
  r = await env.call('browser_scroll', { direction: 'up' });
  assert.equal(r.status, 'error', JSON.stringify(r.result));
  assert.equal(r.result.error, 'The page is already at the top; nothing scrolled up.');
  await open('/page2.html');
  r = await env.call('browser_scroll', { direction: 'down' });
  assert.equal(r.status, 'error', JSON.stringify(r.result));
  assert.equal(r.result.error, 'The page does not scroll: all of it fits in the window; nothing scrolled.');
  r = await env.call('browser_press_key', { key: 'Tab' });
  ok(r);
});

test('open_url refuses javascript: URLs', async () => {
  const r = await env.call('browser_open_url', { url: 'javascript:alert(1)' });
  assert.equal(r.status, 'error');
  // The real daemon refuses it before the browser sees it (400, naming the field).
  if (env.daemon.kind === 'real') {
    assert.equal(r.http, 400);
    assert.equal(r.field, 'url');
  }
  assert.match(r.message ?? r.result.error, /only http/);
});

test('wait_for_page_info false: result without waiting for a page', async () => {
  await open('/dom-change.html');
  const r = await env.call('browser_click', { target: 'Add item', wait_for_page_info: false });
  ok(r);
  assert.ok(r.page == null, 'no page');
  await sleep(200);
});

test('native widgets: select, checkbox via type, contenteditable, clear', async () => {
  await open('/markdown.html');
  let r = await env.call('browser_select_option', { target: 'Size', value: 'Small' });
  ok(r);
  assert.match(r.page.markdown, /\[select "Size" value="Small"/);
  r = await env.call('browser_type', { target: 'Subscribe', text: 'false' });
  ok(r);
  assert.match(r.page.markdown, /\[checkbox "Subscribe" e\d+\]/);
  r = await env.call('browser_type', { target: 'Comment', text: 'Bye', clear: true });
  ok(r);
  assert.match(r.page.markdown, /\[textarea "Comment" value="Bye" e\d+\]/);
  const ref = refOf(r.page.markdown, /\[editable /);
  r = await env.call('browser_type', { target: ref, text: ' and more', clear: false });
  ok(r);
  assert.match(r.page.markdown, /\[editable value="Editable text and more" e\d+\]/);
  r = await env.call('browser_select_option', { target: 'Size', value: 'Huge' });
  assert.equal(r.status, 'error');
  assert.match(r.result.error, /no option "Huge".*"Small", "Large"/);
});

test('a big page: the Markdown is capped with an explicit marker', async () => {
  const t0 = Date.now();
  const r = await env.call('browser_open_url', { url: env.url('/big?n=12000') }); // ~1.2 M characters
  ok(r);
  assert.ok(r.page.markdown.length <= 1_000_200, `length ${r.page.markdown.length}`);
  assert.match(r.page.markdown, /\[… truncated: the page Markdown was \d+ characters, the cap is 1000000 …\]$/);
  assert.equal(r.page.truncated, true);
  assert.ok(Date.now() - t0 < 20_000, `took ${Date.now() - t0} ms`);
});
