// End-to-end: the page actions of issue 17 -- browser_hover, browser_drag, browser_upload_file,
// browser_fill_form, browser_resize -- in real Chromium with the real extension and daemon, each
// checked by its effect on a fixture page (tests/fixtures/pages/act-*.html) and, for drag, on a real
// library from npm (jQuery UI sortable, tests/fixtures/realsites/sortable.html). The Playwright-
// launched browser has no debugger permission (synthetic events); the managed headless browser
// (`serve --headless`) has it (trusted input: the real pointer, which also gives CSS :hover).
//   node --test tests/e2e/actions.test.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setup, startDaemon, buildExtension, realDaemonAvailable, ROOT, CHROMIUM } from './support/harness.mjs';
import { startStaticServer, requirePackages, NODE_MODULES, SHELLS } from './support/realsites.mjs';

let env, srv, root, up;
before(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'bb-e2e-upload-'));
  up = path.join(root, 'uploads');
  fs.mkdirSync(up);
  fs.writeFileSync(path.join(up, 'cv.txt'), 'curriculum vitae of Ada');
  fs.writeFileSync(path.join(up, 'beach.png'), 'not really a png: beach');
  fs.writeFileSync(path.join(up, 'city.png'), 'not really a png: city');
  fs.writeFileSync(path.join(root, 'outside.txt'), 'outside the upload dir');
  requirePackages(['jquery', 'jquery-ui']);
  srv = await startStaticServer({ roots: { '/npm/': NODE_MODULES + '/', '/shells/': SHELLS + '/' } });
  env = await setup({ daemon: { extraArgs: ['--upload-dir', up] } });
});
after(async () => {
  await env?.close();
  await srv?.close();
  if (root) fs.rmSync(root, { recursive: true, force: true });
});

const why = (r) => `${r.http} ${JSON.stringify(r.result?.error || r.result?.message || r.message)}`;
const ok = (r) => assert.equal(r.status, 'success', `expected success, got ${why(r)}`);
const open = async (p, call = env.call) => { const r = await call('browser_open_url', { url: p.startsWith('http') ? p : env.url(p) }); ok(r); return r; };
const md = (r) => r.page?.markdown || '';

test('browser_hover: a menu that opens on mouseenter shows, with the events in a user\'s order, and closes when the pointer leaves', async () => {
  let r = await open('/act-hover.html');
  assert.ok(!md(r).includes('Sign out'), 'the menu is closed at first');
  r = await env.call('browser_hover', { target: 'Account' });
  ok(r);
  assert.match(r.result.message, /Hovered over/);
  assert.match(md(r), /Sign out/, md(r));
  assert.match(md(r), /Events on Account: pointerover pointerenter mouseover mouseenter pointermove mousemove/);
  r = await env.call('browser_hover', { target: 'Somewhere else' });
  ok(r);
  assert.ok(!md(r).includes('Sign out'), 'the menu closed when the pointer left');
  assert.match(md(r), /pointerleave mouseleave/);
  // What a user cannot see is not hovered: an error listing what is visible.
  r = await env.call('browser_hover', { target: 'Profile settings' });
  assert.equal(r.status, 'error');
  assert.match(r.result.error, /is not visible to a user.*nothing was done/);
  r = await env.call('browser_hover', { target: 'No such thing anywhere' });
  assert.equal(r.status, 'error');
  assert.match(r.result.error, /No element matches "No such thing anywhere"/);
});

// The managed headless browser: trusted input (the debugger permission), no Playwright attached.
let managed = null;
async function managedBrowser() {
  if (managed) return managed;
  buildExtension();
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'bb-e2e-actions-'));
  const saved = process.env.TMPDIR;
  process.env.TMPDIR = tmp; // its own Chromium profile and extension copy (see realsites.mjs)
  let daemon;
  try {
    daemon = await startDaemon({ kind: 'real', extraArgs: ['--headless', '--chromium', CHROMIUM, '--extension', path.join(ROOT, 'extension/dist')] });
  } finally {
    if (saved === undefined) delete process.env.TMPDIR; else process.env.TMPDIR = saved;
  }
  try {
    const b = await daemon.waitForBrowser(undefined, 30_000);
    managed = { daemon, tmp, call: (tool, params = {}) => daemon.call(tool, { client_id: b.client_id, ...params }) };
  } catch (e) { await daemon.close(); throw e; }
  return managed;
}
after(async () => { await managed?.daemon.close(); if (managed) fs.rmSync(managed.tmp, { recursive: true, force: true }); });

test('browser_hover with trusted input: a CSS :hover menu and a mouseenter menu both show', { skip: !realDaemonAvailable() && 'the daemon is not built' }, async () => {
  const m = await managedBrowser();
  let r = await open('/act-hover.html', m.call);
  assert.ok(!md(r).includes('Laptops'));
  r = await m.call('browser_hover', { target: 'Products' });
  ok(r);
  assert.match(md(r), /Laptops/, 'the CSS :hover menu did not open');
  assert.ok(!md(r).includes('Sign out'));
  r = await m.call('browser_hover', { target: 'Account' });
  ok(r);
  assert.match(md(r), /Sign out/, 'the mouseenter menu did not open');
  assert.ok(!md(r).includes('Laptops'), 'the CSS menu stays open after the pointer left it');
});

test('browser_fill_form, drag and resize in the managed headless browser (no system focus, trusted input granted)', { skip: !realDaemonAvailable() && 'the daemon is not built' }, async () => {
  const m = await managedBrowser();
  await open('/act-form.html', m.call);
  let r = await m.call('browser_fill_form', { fields: [{ target: 'Full name', value: 'Ada' }, { target: 'Country', value: 'Brazil' }, { target: 'Express shipping', value: 'true' }] });
  ok(r);
  assert.match(md(r), /State: name=Ada; .*country=br; .*ship=express/, md(r));
  await open('/act-drag.html', m.call);
  r = await m.call('browser_drag', { source: 'Apple', target: 'Banana' });
  ok(r);
  assert.match(md(r), /HTML5 order: Banana, Apple, Cherry/, md(r));
  r = await m.call('browser_drag', { source: 'Blue', target: 'Red' });
  ok(r);
  assert.match(md(r), /Pointer order: Blue, Red, Green/, md(r));
  await open('/act-resize.html', m.call);
  r = await m.call('browser_resize', { width: 480, height: 640 });
  ok(r);
  assert.match(md(r), /Mobile menu button/, md(r));
});

test('browser_drag: HTML5 drag and drop (one DataTransfer) and a pointer-event sortable reorder their lists', async () => {
  let r = await open('/act-drag.html');
  r = await env.call('browser_drag', { source: 'Apple', target: 'Cherry' });
  ok(r);
  assert.match(r.result.message, /HTML5 drag and drop/);
  assert.match(md(r), /HTML5 order: Banana, Cherry, Apple/, md(r));
  assert.match(md(r), /HTML5 events: dragstart dragenter dragover drop dragend/);
  r = await env.call('browser_drag', { source: 'Banana', target: 'Trash bin' });
  ok(r);
  assert.match(md(r), /Trash bin: Banana/);
  assert.match(md(r), /HTML5 order: Cherry, Apple/);
  // A place that takes no drop: an error, and nothing moved.
  r = await env.call('browser_drag', { source: 'Cherry', target: 'Pointer list' });
  assert.equal(r.status, 'error');
  assert.match(r.result.error, /does not accept a drop/);
  assert.match(md(r), /HTML5 order: Cherry, Apple/);
  r = await env.call('browser_drag', { source: 'Red', target: 'Blue' });
  ok(r);
  assert.match(r.result.message, /pointer events/);
  assert.match(md(r), /Pointer order: Green, Blue, Red/, md(r));
  r = await env.call('browser_drag', { source: 'Red', target: 'Green' });
  ok(r);
  assert.match(md(r), /Pointer order: Red, Green, Blue/, md(r));
  // Nowhere a user can see: refused, nothing moved.
  r = await env.call('browser_drag', { source: 'Red', target: '#hidden-drop' });
  assert.equal(r.status, 'error');
  assert.match(r.result.error, /is not visible to a user/);
  assert.match(md(r), /Pointer order: Red, Green, Blue/);
});

test('browser_drag: a jQuery UI sortable list (from npm) is reordered', async () => {
  let r = await open(srv.url('/shells/sortable.html'));
  assert.match(md(r), /Order: Item 1, Item 2, Item 3, Item 4, Item 5/);
  r = await env.call('browser_drag', { source: 'Item 1', target: 'Item 3' });
  ok(r);
  assert.match(md(r), /Order: Item 2, Item 3, Item 1, Item 4, Item 5/, md(r));
  r = await env.call('browser_drag', { source: 'Item 5', target: 'Item 2' });
  ok(r);
  assert.match(md(r), /Order: Item 5, Item 2, Item 3, Item 1, Item 4/, md(r));
});

test('browser_upload_file: a file input, and the hidden one a button opens, get the files; outside upload_dir is refused', async () => {
  let r = await open('/act-upload.html');
  r = await env.call('browser_upload_file', { target: 'Resume', paths: [path.join(up, 'cv.txt')] });
  ok(r);
  assert.match(md(r), /Resume: cv\.txt \(23 bytes, text\/plain\) "curriculum vitae of Ada"/, md(r));
  assert.match(md(r), /Events: resume:input resume:change/);
  r = await env.call('browser_upload_file', { target: 'Attach photos', paths: [path.join(up, 'beach.png'), path.join(up, 'city.png')] });
  ok(r);
  assert.match(r.result.message, /Set 2 files \("beach\.png", "city\.png"\) on .* \(the file input .*Attach photos.* opens\)/);
  assert.match(md(r), /Photos: 2: beach\.png \(23 bytes, image\/png\) "not really a png: beach"; city\.png \(22 bytes, image\/png\) "not really a png: city"/, md(r));
  // One file only for an input without `multiple`.
  r = await env.call('browser_upload_file', { target: 'Resume', paths: [path.join(up, 'beach.png'), path.join(up, 'city.png')] });
  assert.equal(r.status, 'error');
  assert.match(r.result.error, /takes one file, and 2 were given/);
  // Not a file input, and opens none.
  r = await env.call('browser_upload_file', { target: 'Upload files', paths: [path.join(up, 'cv.txt')] });
  assert.equal(r.status, 'error');
  assert.match(r.result.error, /is not a file input, and clicking it opened none/);
  r = await env.call('browser_upload_file', { target: 'Resume', paths: [path.join(root, 'outside.txt')] });
  assert.equal(r.http, 400);
  assert.match(r.message, /is not beneath an upload_dir/);
  r = await env.call('browser_get_page', {});
  assert.match(md(r), /Resume: cv\.txt/, 'the refused call changed the page');
});

test('browser_fill_form: text, email, password, select, checkboxes, radio and textarea in one call; values kept out of history', async () => {
  let r = await open('/act-form.html');
  const secret = 'pw-' + Math.random().toString(36).slice(2);
  r = await env.call('browser_fill_form', {
    fields: [
      { target: 'Full name', value: 'Ada Lovelace' },
      { target: 'Email', value: 'ada@example.org' },
      { target: 'Password', value: secret },
      { target: 'Country', value: 'Japan' },
      { target: 'Newsletter', value: 'false' },
      { target: 'I accept the terms', value: 'true' },
      { target: 'Express shipping', value: 'true' },
      { target: 'About you', value: 'Mathematician' },
    ],
  });
  ok(r);
  assert.match(r.result.message, /^Filled 8 fields/);
  assert.match(md(r), new RegExp(`State: name=Ada Lovelace; email=ada@example.org; password length=${secret.length}; country=jp; news=off; terms=on; ship=express; bio=Mathematician`), md(r));
  assert.ok(!md(r).includes(secret), 'the password shows in the page Markdown');
  assert.ok(!JSON.stringify(r.result).includes(secret));
  // A field that fails: named, with what was filled before it; the values are not repeated.
  r = await env.call('browser_fill_form', {
    fields: [{ target: 'Full name', value: 'Grace Hopper' }, { target: 'Favourite colour', value: 'teal-secret' }, { target: 'Email', value: 'g@example.org' }],
  });
  assert.equal(r.status, 'error');
  assert.match(r.result.error, /Field 2 of 3 \("Favourite colour"\) failed: No field matches "Favourite colour".*Filled before it: .*Full name/, r.result.error);
  assert.ok(!r.result.error.includes('teal-secret') && !r.result.error.includes('Grace Hopper'));
  assert.match(md(r), /name=Grace Hopper; email=ada@example.org/, 'the first field was filled, the third not');
  r = await env.call('browser_fill_form', { fields: [{ target: 'Newsletter', value: 'yes' }] });
  assert.equal(r.status, 'error');
  assert.match(r.result.error, /Field 1 of 1 .* its value must be "true" or "false".*Nothing was filled before it/);
  if (env.daemon.kind !== 'real') return;
  const cmds = await (await fetch(env.daemon.httpUrl + '/api/commands?limit=50', { headers: { authorization: `Bearer ${env.daemon.token}` } })).text();
  assert.ok(!cmds.includes(secret) && !cmds.includes('teal-secret'), 'a form value reached the call log');
  assert.match(cmds, new RegExp(`\\[${secret.length} characters, not kept\\]`));
});

test('browser_resize: the window changes size and the responsive page follows', async () => {
  let r = await open('/act-resize.html');
  assert.match(md(r), /Desktop navigation/);
  r = await env.call('browser_resize', { width: 500, height: 650 });
  ok(r);
  assert.equal(r.result.window?.width, 500, JSON.stringify(r.result));
  assert.ok(r.result.viewport?.width > 0 && r.result.viewport.width <= 500, JSON.stringify(r.result));
  assert.match(md(r), new RegExp(`Viewport: ${r.result.viewport.width}x${r.result.viewport.height}`), md(r));
  assert.match(md(r), /Mobile menu button/);
  assert.ok(!md(r).includes('Desktop navigation'));
  r = await env.call('browser_resize', { width: 1000, height: 700 });
  ok(r);
  assert.ok(r.result.viewport.width > 600, JSON.stringify(r.result));
  assert.match(md(r), /Desktop navigation/);
});
