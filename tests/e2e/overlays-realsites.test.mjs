// Real-site suite for the non-framework libraries users meet on ordinary sites (product rules #1
// and #2: never report what did not happen; the Markdown shows what a user sees). Each shell
// loads the library's UMD build from npm and sets it up with its documented API only:
//   - overlays-sweetalert.html: SweetAlert2 alert, confirm, text/email/select inputs with
//     validation, a toast and a timer alert (the page behind a modal alert is out of reach), and
//     an alert whose closing animation leaves the page aria-hidden a while after it is gone;
//   - overlays-tippy.html: tippy.js + Popper tooltips (hover, focus), an interactive popover with a
//     button inside, a click-triggered menu;
//   - overlays-sortable.html: SortableJS, a list reordered and an item moved between two lists, a
//     list dragged only by its handles, one in forceFallback (pointer events) mode, and a plain
//     list no library makes sortable (a drag there moves nothing: an error);
//   - overlays-leaflet.html: Leaflet with locally drawn tiles: zoom buttons and a popup's close
//     button are <a href="#" role=button> (buttons to a user, not links), a marker's popup, a
//     marker drawn over another (the error names it as the Markdown does), the hover-expanded
//     layer control;
//   - overlays-dropzone.html: Dropzone: its hidden file input, a file's tile, a rejected type
//     whose reason shows in the tile while the pointer is over it;
//   - overlays-dropinput.html: a drop area as react-dropzone draws it, its file input clipped out
//     of sight and named by its aria-label.
// The daemon here is given an upload_dir (for browser_upload_file), so it is started as
// realsites.mjs startManaged() does, with that one argument more.
//   node --test tests/e2e/overlays-realsites.test.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { startStaticServer, requirePackages, until, NODE_MODULES, SHELLS } from './support/realsites.mjs';
import { startDaemon, buildExtension, CHROMIUM, ROOT } from './support/harness.mjs';

// A solid-colour RGB PNG of w x h, written from scratch (a real image for Dropzone's thumbnail).
function png(w, h) {
  const table = Array.from({ length: 256 }, (_, n) => { let c = n; for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1; return c >>> 0; });
  const crc = (buf) => { let c = 0xffffffff; for (const x of buf) c = table[(c ^ x) & 0xff] ^ (c >>> 8); return (c ^ 0xffffffff) >>> 0; };
  const chunk = (type, data) => {
    const len = Buffer.alloc(4); len.writeUInt32BE(data.length);
    const td = Buffer.concat([Buffer.from(type), data]);
    const c = Buffer.alloc(4); c.writeUInt32BE(crc(td));
    return Buffer.concat([len, td, c]);
  };
  const ihdr = Buffer.alloc(13); ihdr.writeUInt32BE(w, 0); ihdr.writeUInt32BE(h, 4); ihdr[8] = 8; ihdr[9] = 2;
  const row = Buffer.concat([Buffer.from([0]), Buffer.alloc(w * 3, 0x80)]);
  return Buffer.concat([Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]), chunk('IHDR', ihdr),
    chunk('IDAT', zlib.deflateSync(Buffer.concat(Array.from({ length: h }, () => row)))), chunk('IEND', Buffer.alloc(0))]);
}

let env, srv, tmp, up;
before(async () => {
  requirePackages(['sweetalert2', 'tippy.js', '@popperjs/core', 'sortablejs', 'leaflet', 'dropzone']);
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'bb-overlays-'));
  up = path.join(tmp, 'uploads');
  fs.mkdirSync(up);
  fs.writeFileSync(path.join(up, 'photo.png'), png(200, 100));
  fs.writeFileSync(path.join(up, 'notes.txt'), 'plain notes');
  // Dropzone posts each accepted file to /upload: answered as a server would
  const extra = async (req, res, url) => {
    if (url.pathname !== '/upload') return false;
    for await (const _ of req) { /* read the body */ }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"ok":true}');
    return true;
  };
  srv = await startStaticServer({ roots: { '/npm/': NODE_MODULES + '/', '/shells/': SHELLS + '/' }, extra });
  buildExtension();
  const saved = process.env.TMPDIR;
  process.env.TMPDIR = tmp; // the daemon's Chromium profile and extension copy: private (see startManaged)
  let daemon;
  try {
    daemon = await startDaemon({ kind: 'real', extraArgs: ['--headless', '--chromium', CHROMIUM, '--extension', path.join(ROOT, 'extension', 'dist'), '--upload-dir', up] });
  } finally {
    if (saved === undefined) delete process.env.TMPDIR; else process.env.TMPDIR = saved;
  }
  const b = await daemon.waitForBrowser(undefined, 30_000).catch(async (e) => { await daemon.close(); throw e; });
  env = { daemon, call: (tool, params = {}) => daemon.call(tool, { client_id: b.client_id, ...params }) };
});
after(async () => {
  await env?.daemon.close();
  await srv?.close();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

const msg = (r) => JSON.stringify(r.result?.error || r.result?.message || r.message || r.status);
const md = (r) => r.page?.markdown || '';
const ok = (r, what = 'call') => assert.equal(r.status, 'success', `${what}: expected success, got ${r.http} ${msg(r)}\n${md(r).slice(0, 2500)}`);
const call = (tool, params) => env.call(tool, params);
const open = async (shell) => { const r = await call('browser_open_url', { url: srv.url('/shells/' + shell) }); ok(r, `open ${shell}`); return r; };
const ROUNDS = [1, 2, 3];

// ---------------------------------------------------------------- SweetAlert2

test('overlays-sweetalert.html: alert, confirm, validated inputs, toast and timer alert are shown and answered as a user sees them', async () => {
  for (const round of ROUNDS) {
    await open('overlays-sweetalert.html');
    let r = await call('browser_click', { target: 'Show alert' });
    ok(r, `${round}: show alert`);
    assert.match(md(r), /\[dialog "Saved" modal\][\s\S]*Your changes were saved\.[\s\S]*\[button "OK" e\d+\]/);
    r = await call('browser_click', { target: 'Count clicks' });
    assert.equal(r.status, 'error', 'the page behind the modal alert is out of reach');
    assert.match(r.result.error, /behind the open dialog "Saved".*nothing was done/);
    r = await call('browser_click', { target: 'OK' });
    ok(r, 'OK');
    assert.match(md(r), /Result: alert closed/);
    assert.match(md(r), /Clicks: 0/);

    r = await call('browser_click', { target: 'Delete file' });
    ok(r, 'confirm');
    assert.match(md(r), /\[button "Yes, delete it" e\d+\] \[button "Keep it" e\d+\]/);
    r = await call('browser_click', { target: 'Keep it' });
    ok(r, 'Keep it');
    assert.match(md(r), /Result: kept \(cancel\)/);
    assert.doesNotMatch(md(r), /Are you sure\?/);

    r = await call('browser_click', { target: 'Ask name' });
    r = await call('browser_click', { target: 'OK' });
    ok(r, 'OK with an empty name');
    assert.match(md(r), /You need to write something!/, 'the validation message is shown');
    r = await call('browser_type', { target: 'Your name', text: 'Ada' });
    ok(r, 'type the name');
    r = await call('browser_click', { target: 'OK' });
    assert.match(md(r), /Result: name=Ada/);

    r = await call('browser_click', { target: 'Ask email' });
    r = await call('browser_type', { target: 'Email address', text: 'not-an-email' });
    r = await call('browser_click', { target: 'OK' });
    ok(r, 'OK with a bad email');
    assert.match(md(r), /Please enter a valid email address/);
    r = await call('browser_press_key', { key: 'Escape' });
    ok(r, 'Escape closes the alert');
    assert.match(md(r), /Result: no email/);

    r = await call('browser_click', { target: 'Pick fruit' });
    r = await call('browser_select_option', { target: 'Fruit', value: 'Banana' });
    ok(r, 'select Banana');
    assert.match(md(r), /\[select "Fruit" value="Banana"/);
    r = await call('browser_click', { target: 'OK' });
    assert.match(md(r), /Result: fruit=banana/);

    r = await call('browser_click', { target: 'Show toast' });
    ok(r, 'toast');
    assert.match(md(r), /Signed in successfully/);
    r = await call('browser_click', { target: 'Count clicks' });
    ok(r, 'a toast does not block the page');
    assert.match(md(r), /Clicks: 1/);

    r = await call('browser_click', { target: 'Show timer alert' });
    ok(r, 'timer alert');
    assert.match(md(r), /\[dialog "Auto close alert" modal\]/);
    r = await call('browser_wait_for', { text: 'Result: timer closed (timer)' });
    ok(r, 'the timer alert closes itself');
    assert.doesNotMatch(md(r), /Auto close alert/);

    // A closing animation that makes the popup transparent at once and ends later (hideClass):
    // until it ends SweetAlert2 keeps the page behind aria-hidden (and inert). A user sees the
    // page, not an empty one.
    r = await call('browser_click', { target: 'Show slow notice' });
    ok(r, 'slow notice');
    assert.match(md(r), /\[dialog "Notice" modal\]/);
    r = await call('browser_click', { target: 'OK' });
    ok(r, 'close the slow notice');
    assert.match(md(r), /Result: notice closed/, `the page a user sees, not an empty one: ${JSON.stringify(md(r))}`);
    assert.match(md(r), /\[button "Show alert" /);
  }
});

// ---------------------------------------------------------------- tippy.js

test('overlays-tippy.html: tooltips show only while shown; an interactive popover\'s button and a click menu\'s items are used', async () => {
  for (const round of ROUNDS) {
    let r = await open('overlays-tippy.html');
    assert.doesNotMatch(md(r), /friendly tooltip|Log out|Duplicate/, 'nothing is shown before');
    r = await call('browser_hover', { target: 'Hover me' });
    ok(r, `${round}: hover`);
    assert.match(md(r), /This is a friendly tooltip/);
    r = await call('browser_hover', { target: 'Result: none' });
    assert.doesNotMatch(md(r), /friendly tooltip/, 'the tooltip hides when the pointer leaves');
    r = await call('browser_click', { target: 'Help' });
    assert.match(md(r), /Opens the help centre/, 'a focus tooltip');

    r = await call('browser_hover', { target: 'Account' });
    ok(r, 'hover Account');
    assert.match(md(r), /\[button "Log out" e\d+\]/);
    r = await call('browser_click', { target: 'Log out' });
    ok(r, 'click Log out');
    assert.match(md(r), /Result: logged out/);

    r = await call('browser_click', { target: 'Actions' });
    ok(r, 'open the menu');
    assert.match(md(r), /\[button "Actions" expanded e\d+\]/);
    assert.match(md(r), /\[menuitem "Duplicate" e\d+\]/);
    r = await call('browser_click', { target: 'Duplicate' });
    ok(r, 'Duplicate');
    assert.match(md(r), /Result: menu duplicate/);
    assert.doesNotMatch(md(r), /menuitem/, 'the menu closed');
  }
});

// ---------------------------------------------------------------- SortableJS

test('overlays-sortable.html: browser_drag reorders a list and moves an item to another list, and the Markdown shows the new order', async () => {
  for (const round of ROUNDS) {
    await open('overlays-sortable.html');
    let r = await call('browser_drag', { source: 'Item 3', target: 'Item 1' });
    ok(r, `${round}: drag Item 3 above Item 1`);
    assert.match(md(r), /- Item 3\n- Item 1\n- Item 2\n- Item 4/, 'the list shows the new order');
    assert.match(md(r), /Order: Item 3, Item 1, Item 2, Item 4/);
    r = await call('browser_drag', { source: 'Fix bug', target: 'Plan sprint' });
    ok(r, 'drag Fix bug to the other list');
    assert.match(md(r), /Todo: Write report, Review code \| Done: Fix bug, Plan sprint/);
    assert.match(md(r), /- Fix bug\n- Plan sprint/);
    // back, and into the list once it is empty (no item to aim at: its selector); the message
    // names the list as it was, not by the item dropped into it
    r = await call('browser_drag', { source: 'Fix bug', target: 'Write report' });
    r = await call('browser_drag', { source: 'Plan sprint', target: 'Write report' });
    ok(r, 'empty the Done list');
    assert.match(md(r), /Done:$/m);
    r = await call('browser_drag', { source: 'Review code', target: '#done' });
    ok(r, 'drag into the empty list');
    assert.match(md(r), /Done: Review code$/m);
    assert.match(r.result.message, /onto \[ul\]/);
    // A list dragged only by a handle (Sortable's `handle`, shown with a grab cursor): a user grabs
    // the handle, and so does the drag of the item.
    r = await call('browser_drag', { source: 'Gamma', target: 'Alpha' });
    ok(r, 'drag Gamma above Alpha');
    assert.match(r.result.message, /by its handle/);
    assert.match(md(r), /Handles: Gamma, Alpha, Beta/);
    // Sortable's forceFallback: pointer events, no HTML5 drag and drop
    r = await call('browser_drag', { source: 'Three', target: 'One' });
    ok(r, 'drag Three above One');
    assert.match(md(r), /Fallback: Three, One, Two/);
    // A list nothing makes sortable: the drag changed nothing, which is no success.
    r = await call('browser_drag', { source: 'Old B', target: 'Old A' });
    assert.equal(r.status, 'error', `a drag that moved nothing: ${msg(r)}`);
    assert.match(r.result.error, /nothing on the page changed.*nothing was moved/);
    assert.match(md(r), /- Old A\n- Old B/);
  }
});

// ---------------------------------------------------------------- Leaflet

test('overlays-leaflet.html: zoom and popup-close links with role=button are buttons; a marker\'s popup opens and closes; the layer control works', async () => {
  for (const round of ROUNDS) {
    let r = await open('overlays-leaflet.html');
    // <a href="#" role=button aria-label="Zoom in">: a button to a user, not a link to "#"
    assert.match(md(r), /\[button "Zoom in" e\d+\] \[button "Zoom out" e\d+\]/, `${round}: ${md(r)}`);
    assert.doesNotMatch(md(r), /\]\([^)]*#\)/, 'no link to "#"');
    r = await call('browser_click', { target: 'Zoom in' });
    ok(r, 'zoom in');
    assert.match(r.result.message, /Clicked \[button "Zoom in" e\d+\]/);
    await until(async () => /Zoom: 6/.test(md(await call('browser_get_page', {}))), { what: 'zoom 6' });
    r = await call('browser_click', { target: 'Zoom out' });
    ok(r, 'zoom out');
    await until(async () => /Zoom: 5/.test(md(await call('browser_get_page', {}))), { what: 'zoom 5' });

    r = await call('browser_click', { target: 'London marker' });
    ok(r, 'click the marker');
    assert.match(md(r), /\*\*London\*\*\s+Capital of England\./);
    assert.match(md(r), /\[button "Close popup" e\d+\]/);
    r = await call('browser_click', { target: 'Close popup' });
    ok(r, 'close the popup');
    assert.doesNotMatch(md(r), /Capital of England/);

    // a marker under another: the error names what a click there would hit, as the Markdown shows it
    r = await call('browser_click', { target: 'Museum marker' });
    assert.equal(r.status, 'error', 'a covered marker is not clicked');
    assert.match(r.result.error, /\[button image "Museum marker" e\d+\] is covered by \[button image "Gallery marker" e\d+\]/);
    assert.doesNotMatch(md(r), /\bMuseum\n/, 'no popup opened');

    r = await call('browser_hover', { target: 'Layers' });
    ok(r, 'hover the layer control');
    assert.match(md(r), /\[checkbox "Cities" checked e\d+\]/);
    r = await call('browser_click', { target: 'Cities' });
    ok(r, 'hide the cities');
    assert.match(md(r), /Layers: Grid$/m);
    assert.doesNotMatch(md(r), /London marker/, 'the markers are gone');
    r = await call('browser_click', { target: 'Plain' });
    assert.match(md(r), /\[radio "Plain" checked e\d+\]/);
    assert.match(md(r), /Layers: Plain$/m);
  }
});

// ---------------------------------------------------------------- Dropzone

test('overlays-dropzone.html: a file uploaded into the drop area shows; a rejected one\'s reason shows when its name is hovered', async () => {
  for (const round of ROUNDS) {
    let r = await open('overlays-dropzone.html');
    r = await call('browser_upload_file', { target: 'Drop images here or click to upload', paths: [path.join(up, 'photo.png')] });
    ok(r, `${round}: upload photo.png`);
    assert.match(r.result.message, /Set 1 file \("photo\.png"\)/);
    r = await until(async () => { const p = await call('browser_get_page', {}); return /Uploaded: photo\.png/.test(md(p)) && p; }, { what: 'the upload' });
    assert.match(md(r), /!\[photo\.png\]/, 'the file\'s tile (its thumbnail) shows');
    assert.doesNotMatch(md(r), / KB/, 'the tile\'s details show only while the pointer is over it');
    // Hovering the thumbnail by its alt text: the pointer goes on the tile (its image, under its
    // transparent details), not the middle of the drop area, and the details show.
    r = await call('browser_hover', { target: 'photo.png' });
    ok(r, 'hover photo.png');
    assert.match(md(r), /\*\*[\d.]+\*\* KB\s+photo\.png/, md(r));
    // the drop area's message is gone: the area (its ref) opens the next file input
    const area = md(r).match(/\[clickable (e\d+)\]/)?.[1];
    assert.ok(area, md(r));
    r = await call('browser_upload_file', { target: area, paths: [path.join(up, 'notes.txt')] });
    ok(r, 'upload notes.txt');
    assert.match(md(r), /Rejected: notes\.txt/);
    assert.match(md(r), /notes\.txt/);
    assert.doesNotMatch(md(r), /You can't upload files of this type/, 'the reason shows only while the pointer is over the tile');
    // Hovering the file's name: the pointer goes on that name (not the middle of the drop area,
    // empty space), and Dropzone shows the reason in the tile.
    r = await call('browser_hover', { target: 'notes.txt' });
    ok(r, 'hover notes.txt');
    assert.match(r.result.message, /Hovered over \[span "notes\.txt"\]/);
    assert.match(md(r), /You can't upload files of this type\./, md(r));
  }
});

// The Markdown shows a drop area's clipped file input by its name ([input file "Avatar file" e2]),
// and by its ref it took the files; by that name it was "not visible to a user".
test('overlays-dropinput.html: files are given to a drop area\'s hidden file input by the name the Markdown shows', async () => {
  let r = await open('overlays-dropinput.html');
  assert.match(md(r), /\[input file "Avatar file" e\d+\]/, md(r));
  r = await call('browser_upload_file', { target: 'Avatar file', paths: [path.join(up, 'photo.png')] });
  ok(r, 'upload by name');
  assert.match(r.result.message, /Set 1 file \("photo\.png"\) on \[input file "Avatar file"/);
  assert.match(md(r), /Avatar: photo\.png/);
  // (its token says the files it holds by name, not its value "C:\\fakepath\\photo.png")
  assert.match(md(r), /\[input file "Avatar file" value="photo\.png" e\d+\]/, md(r));
  // one in a section not shown is no drop area a user sees: not taken by its name
  r = await call('browser_upload_file', { target: 'Resume file', paths: [path.join(up, 'photo.png')] });
  assert.equal(r.status, 'error', msg(r));
  assert.match(r.result.error, /not visible to a user/);
});
