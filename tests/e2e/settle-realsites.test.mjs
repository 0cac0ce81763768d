// End-to-end, on Shoelace web components (npm @shoelace-style/shoelace, not pages written here):
// an action that closes a component returns once the component's exit animation has run and the
// component has hidden its content — a tooltip that fades out when the pointer leaves, a dropdown
// whose menu closes after a choice or Escape, a dialog that closes from its button or Escape. Read
// before the exit animation ended, the answer would still show the tooltip's text, the menu's
// items or the dialog's text (issue 14, "Readiness": settle on the action's own effects,
// animations included). The real daemon runs its own headless Chromium with the real extension
// (startManaged); the shell is tests/fixtures/realsites/shoelace-exit.html.
//   node --test tests/e2e/settle-realsites.test.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startManaged, startStaticServer, requirePackages, NODE_MODULES, SHELLS } from './support/realsites.mjs';

let env, srv;
before(async () => {
  requirePackages(['@shoelace-style/shoelace']);
  srv = await startStaticServer({ roots: { '/npm/': NODE_MODULES + '/', '/shells/': SHELLS + '/' } });
  env = await startManaged();
});
after(async () => { await env?.close(); await srv?.close(); });

const msg = (r) => JSON.stringify(r.result?.error || r.result?.message || r.message || r.status);
const ok = (r, what = 'call') => assert.equal(r.status, 'success', `${what}: expected success, got ${r.http} ${msg(r)}`);
const md = (r) => r.page?.markdown || '';
const settleOf = (r) => JSON.stringify(r.result?.settle || r.result?.result?.settle || null);
// What a failed assertion shows: how the wait ended, the action's message and the page read.
const seen = (r) => `${settleOf(r)} ${r.message}\n${md(r).slice(0, 1200)}`;
const call = async (tool, params) => { const r = await env.call(tool, params); ok(r, `${tool} ${JSON.stringify(params)}`); return r; };
const open = () => call('browser_open_url', { url: srv.url('/shells/shoelace-exit.html') });

test('shoelace tooltip: shown on hover, gone once the pointer left and its fade-out ran', async () => {
  let r = await open();
  assert.doesNotMatch(md(r), /Keeps a copy on the server/, 'the closed tooltip\'s text is shown');
  const opened = `${settleOf(r)}\n${md(r).slice(0, 1200)}`;
  r = await call('browser_hover', { target: 'Save draft' });
  assert.match(md(r), /Keeps a copy on the server/, `the tooltip did not show: ${seen(r)}\n(the page as opened: ${opened})`);
  r = await call('browser_hover', { target: 'Nothing to see here' });
  assert.doesNotMatch(md(r), /Keeps a copy on the server/, `read before the tooltip's exit animation ended: ${seen(r)}`);
});

test('shoelace dropdown: the menu is gone from the answer once a choice closed it', async () => {
  let r = await open();
  assert.doesNotMatch(md(r), /By size/, 'the closed menu\'s items are shown');
  r = await call('browser_click', { target: 'Sort by' });
  assert.match(md(r), /By size/, `the menu did not open: ${seen(r)}`);
  r = await call('browser_click', { target: 'By date' });
  assert.match(md(r), /Sorted: date/);
  assert.doesNotMatch(md(r), /By size/, `read before the menu's exit animation ended: ${seen(r)}`);
});

test('shoelace dropdown: Escape closes the menu, and the answer shows it closed', async () => {
  await open();
  let r = await call('browser_click', { target: 'Sort by' });
  assert.match(md(r), /By size/, `the menu did not open: ${seen(r)}`);
  r = await call('browser_press_key', { key: 'Escape' });
  assert.doesNotMatch(md(r), /By size/, `read before the menu's exit animation ended: ${seen(r)}`);
});

test('shoelace dialog: closed from its button, and the answer shows it closed', async () => {
  let r = await open();
  assert.doesNotMatch(md(r), /restored within thirty days/, 'the closed dialog\'s text is shown');
  r = await call('browser_click', { target: 'Archive' });
  assert.match(md(r), /restored within thirty days/, `the dialog did not open: ${seen(r)}`);
  r = await call('browser_click', { target: 'Keep it' });
  assert.doesNotMatch(md(r), /restored within thirty days/, `read before the dialog's exit animation ended: ${seen(r)}`);
});

test('shoelace dialog: Escape closes it, and the answer shows it closed', async () => {
  await open();
  let r = await call('browser_click', { target: 'Archive' });
  assert.match(md(r), /restored within thirty days/, `the dialog did not open: ${seen(r)}`);
  r = await call('browser_press_key', { key: 'Escape' });
  assert.doesNotMatch(md(r), /restored within thirty days/, `read before the dialog's exit animation ended: ${seen(r)}`);
});

test('shoelace autoloader: a component the action adds is read once the module it imports (import(), 300 ms late) has defined it', async () => {
  // Only the button's own module is late, as over a network: it is imported when the click's
  // <sl-button> appears, by a MutationObserver's callback; no element loads it.
  const late = await startStaticServer({ roots: { '/npm/': NODE_MODULES + '/', '/shells/': SHELLS + '/' }, delayMs: 300, delayMatch: (p) => p.includes('/components/button/') || p.endsWith('/lazy-route-view.js') });
  try {
    let r = await call('browser_open_url', { url: late.url('/shells/shoelace-lazy.html') });
    assert.doesNotMatch(md(r), /Confirm order/);
    r = await call('browser_click', { target: 'Add confirmation' });
    assert.match(md(r), /\[button "Confirm order" e\d+\]/, `read before the imported component was defined: ${seen(r)}`);
    // A page (in the same tab, now attached) whose route module is imported once it has loaded.
    r = await call('browser_open_url', { url: late.url('/shells/lazy-route.html') });
    assert.match(md(r), /\[button "Add to cart" e\d+\]/, `read before the route's module arrived: ${seen(r)}`);
  } finally { await late.close(); }
});

// A loop of callbacks on every frame that changes nothing (a ResizeObserver handing a growing
// click ripple's size to a scheduler through a MessageChannel, as antd's wave does for 2 s) is no
// effect of the action: the answer is read once the action's own change settled. Each answer
// waited to the 3 s cap while the ripple grew (antd's "Save draft": 2.2 s).
test('a loop of callbacks on every frame that changes nothing does not hold the answer to the cap', async () => {
  let r = await call('browser_open_url', { url: srv.url('/shells/settle-ripple.html') });
  assert.equal(r.status, 'success', JSON.stringify(r.result));
  for (const n of [1, 2, 3]) {
    r = await call('browser_click', { target: 'Save with a ripple' });
    assert.equal(r.status, 'success', JSON.stringify(r.result));
    assert.equal((md(r).match(/Saved the draft/g) || []).length, n, md(r));
    assert.equal(r.result?.settle?.reason ?? r.result?.result?.settle?.reason, 'quiet', JSON.stringify(r.result));
  }
});
