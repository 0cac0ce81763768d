// End-to-end (issue 17, and issue 16's screenshot default): browser_screenshot's options (JPEG by
// default, PNG on request, max_width, target, full_page, Set of Marks checked by sampling the
// image's pixels at the element boxes, only_if_changed), browser_find on a long page,
// browser_console_messages on a page that logs and throws, browser_network_requests on a page
// that fetches (method and status, no credential ever), in real Chromium with the real extension.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { setup, resultData, refOf, startDaemon, buildExtension, realDaemonAvailable, CHROMIUM, ROOT } from './support/harness.mjs';
import { decodePng, jpegSize } from './support/image.mjs';

let env;
before(async () => { env = await setup(); });
after(async () => { await env?.close(); });

const ok = (r) => assert.equal(r.status, 'success', `expected success, got ${r.http} ${JSON.stringify(r.result || r.message).slice(0, 400)}`);
const open = async (p, extra = {}) => { const r = await env.call('browser_open_url', { url: env.url(p), ...extra }); ok(r); return r; };
// Poll a tool until `cond(result)` holds (at most `tries` calls): the page's own timers log late.
async function until(tool, params, cond, tries = 40) {
  let d;
  for (let i = 0; i < tries; i++) {
    const r = await env.call(tool, params);
    ok(r);
    d = resultData(r);
    if (cond(d)) return d;
    await new Promise((res) => setTimeout(res, 100));
  }
  assert.fail(`${tool} never met the condition; last result ${JSON.stringify(d).slice(0, 600)}`);
}
const near = (a, b, tol = 40) => a.every((v, i) => i > 2 || Math.abs(v - b[i]) <= tol);
const MAGENTA = [255, 0, 255];
const WHITE = [255, 255, 255];

test('screenshot: a JPEG at most 1280 px wide by default; PNG on request, unscaled', async () => {
  await open('/obs-marks.html');
  let r = await env.call('browser_screenshot', {});
  ok(r);
  let d = resultData(r);
  assert.equal(d.mimeType, 'image/jpeg');
  const j = jpegSize(d.data);
  assert.deepEqual([j.width, j.height], [d.width, d.height]);
  assert.ok(d.width <= 1280 && d.width > 500, `width ${d.width}`);
  r = await env.call('browser_screenshot', { max_width: 300, quality: 30 });
  ok(r);
  d = resultData(r);
  assert.equal(d.mimeType, 'image/jpeg');
  assert.equal(jpegSize(d.data).width, 300);
  r = await env.call('browser_screenshot', { format: 'png' });
  ok(r);
  d = resultData(r);
  assert.equal(d.mimeType, 'image/png');
  const png = decodePng(d.data);
  assert.equal(png.width, d.width);
  assert.ok(png.width > 500);
});

test('screenshot with marks: each interactive element in view boxed and labelled with its ref', async () => {
  const page = (await open('/obs-marks.html')).page.markdown;
  const want = { 'Save draft': refOf(page, /Save draft/), Publish: refOf(page, /Publish/), Headline: refOf(page, /Headline/), 'Help page': refOf(page, /Help page/) };
  for (const [k, v] of Object.entries(want)) assert.ok(v, `a ref for ${k} in ${page}`);
  const r = await env.call('browser_screenshot', { format: 'png', marks: true });
  ok(r);
  const d = resultData(r);
  const img = decodePng(d.data);
  assert.ok(Array.isArray(d.marks), 'result.marks lists the marks');
  const byRef = new Map(d.marks.map((m) => [m.ref, m]));
  for (const [name, ref] of Object.entries(want)) {
    const m = byRef.get(ref);
    assert.ok(m, `${name} (${ref}) is marked: ${JSON.stringify(d.marks)}`);
    // The box is drawn on the element's edges...
    for (const [x, y] of [[m.x + 1, m.y + m.height / 2], [m.x + m.width - 2, m.y + m.height / 2], [m.x + m.width / 2, m.y + 1], [m.x + m.width / 2, m.y + m.height - 2]]) {
      assert.ok(near(img.pixel(x, y), MAGENTA), `${name}: the box's edge at ${x},${y} is ${img.pixel(x, y)}`);
    }
    // ...and its label is a filled tag with light text in it.
    const l = m.label;
    assert.ok(l.width >= 10 && l.height >= 10, JSON.stringify(l));
    assert.ok(near(img.pixel(l.x + 1, l.y + 1), MAGENTA), `${name}: label background ${img.pixel(l.x + 1, l.y + 1)}`);
    let light = 0;
    for (let x = l.x + 2; x < l.x + l.width - 2; x++) for (let y = l.y + 2; y < l.y + l.height - 2; y++) if (near(img.pixel(x, y), WHITE, 80)) light++;
    assert.ok(light >= 5, `${name}: the label's text (${light} light pixels)`);
  }
  // The boxes are where the elements are (the page places them; 1 CSS px = 1 image px here).
  const b1 = byRef.get(want['Save draft']);
  const scale = d.width / 1000;
  assert.ok(Math.abs(b1.x - 60 * scale) <= 3 && Math.abs(b1.y - 80 * scale) <= 3, JSON.stringify(b1));
  // Not marked: what is out of view, and plain text; the page's own pixels stay elsewhere.
  assert.ok(!byRef.has(refOf(page, /Far below/)), 'the element scrolled away is not marked');
  assert.ok(near(img.pixel(700 * scale, 470 * scale), WHITE, 10), 'plain text area untouched');
  // The marks are drawn on the image only: the page has no overlay left.
  const after = await env.call('browser_screenshot', { format: 'png' });
  const clean = decodePng(resultData(after).data);
  assert.ok(!near(clean.pixel(b1.x + 1, b1.y + b1.height / 2), MAGENTA), 'no mark on a plain screenshot');
});

test('screenshot of one element (target) and of the whole page (full_page)', async () => {
  await open('/obs-marks.html');
  let r = await env.call('browser_screenshot', { target: '#b2', format: 'png' });
  ok(r);
  let d = resultData(r);
  assert.ok(Math.abs(d.width - 120) <= 2 && Math.abs(d.height - 36) <= 2, `${d.width}x${d.height}`);
  r = await env.call('browser_screenshot', { full_page: true, format: 'png', timeout_ms: 60_000 });
  ok(r);
  d = resultData(r);
  assert.equal(d.capture, 'stitched', 'without the debugger permission the screens are stitched');
  assert.ok(d.height > 3000, `full page height ${d.height}`);
  const img = decodePng(d.data);
  assert.equal(img.height, d.height);
  // The far button (at 3000 px) is in the image: its grey face is there, not white.
  const pix = img.pixel(64, 3005);
  assert.ok(!near(pix, WHITE, 5), `the far button at the bottom is drawn (${pix})`);
});

test('only_if_changed: unchanged, then changed after the page changes', async () => {
  await open('/obs-marks.html');
  let r = await env.call('browser_screenshot', { only_if_changed: true });
  ok(r);
  let d = resultData(r);
  assert.equal(d.unchanged, false);
  assert.ok(d.data.length > 1000);
  r = await env.call('browser_screenshot', { only_if_changed: true });
  ok(r);
  d = resultData(r);
  assert.equal(d.unchanged, true);
  assert.equal(d.data, undefined, 'no image data when unchanged');
  ok(await env.call('browser_click', { target: 'Darken', wait_for_page_info: false }));
  r = await env.call('browser_screenshot', { only_if_changed: true });
  ok(r);
  d = resultData(r);
  assert.equal(d.unchanged, false);
  assert.ok(d.data.length > 1000, 'the new image');
});

test('find: text scrolled far away, its line and nearest ref, in a few hundred bytes', async () => {
  const page = (await open('/obs-find.html')).page.markdown;
  assert.ok(page.length > 200_000, `a long page (${page.length})`);
  const apply = refOf(page, /Apply settings/);
  let r = await env.call('browser_find', { text: 'UNICORN gallops' });
  ok(r);
  assert.equal(r.page, null, 'no page Markdown in the answer');
  assert.ok(JSON.stringify(r).length < 1500, `answer of ${JSON.stringify(r).length} bytes`);
  let d = resultData(r);
  assert.equal(d.total, 1);
  assert.match(d.matches[0].text, /needle paragraph: unicorn\s+gallops here/);
  assert.equal(d.matches[0].ref, apply, 'the nearest ref is the button after it');
  // Markdown escapes do not hide a match; the line shows them as the page Markdown does.
  r = await env.call('browser_find', { text: 'max_retry_count' });
  ok(r);
  d = resultData(r);
  assert.equal(d.total, 1, JSON.stringify(d));
  // A match on a line with a ref gives that ref; shadow-root text is found too.
  d = resultData(await env.call('browser_find', { text: 'apply settings' }));
  assert.equal(d.matches[0].ref, apply);
  d = resultData(await env.call('browser_find', { text: 'narwhal' }));
  assert.equal(d.total, 1, 'text in an open shadow root');
  // limit, and nothing found.
  d = resultData(await env.call('browser_find', { text: 'lorem ipsum', limit: 3 }));
  assert.equal(d.matches.length, 3);
  assert.equal(d.total, 2500);
  r = await env.call('browser_find', { text: 'not on this page at all' });
  ok(r);
  assert.equal(resultData(r).total, 0);
  assert.match(r.summary, /Searched the page/);
});

test('console: what the page logged, its uncaught errors and rejections, bounded; level and limit', async () => {
  await open('/obs-console.html');
  const d = await until('browser_console_messages', { limit: 500 }, (x) => x.messages.some((m) => m.kind === 'unhandledrejection'));
  const texts = d.messages.map((m) => m.text);
  assert.ok(texts.includes('hello world, 42 items'), texts.slice(-12).join('\n'));
  const find = (re) => d.messages.find((m) => re.test(m.text));
  assert.equal(find(/^a warning$/).level, 'warning');
  assert.equal(find(/^a debug note$/).level, 'debug');
  assert.equal(find(/^an error message$/).level, 'error');
  assert.match(find(/^an info/).text, /an info \{a: 1, b: \[1, 2\]\}/);
  const thrown = find(/boom at load/);
  assert.equal(thrown.kind, 'uncaught');
  assert.equal(thrown.level, 'error');
  assert.match(thrown.text, /TypeError: boom at load/);
  assert.match(thrown.source, /obs-console\.html:\d+/);
  assert.equal(find(/nobody caught this/).kind, 'unhandledrejection');
  assert.ok(!find(/forged uncaught error/), 'a page-made ErrorEvent is not an uncaught error');
  assert.ok(find(/^cyclic/), 'a cyclic object and a throwing getter are shown, not fatal');
  // Bounded: 500 messages at most, 2000 characters each; what was dropped is counted.
  assert.ok(d.total <= 500, `total ${d.total}`);
  assert.ok(d.dropped >= 2500, `dropped ${d.dropped}`);
  assert.ok(d.messages.every((m) => m.text.length <= 2000));
  assert.ok(find(/^x{2000}$/), 'the huge message is cut to 2000 characters');
  // level: errors only; limit: the latest.
  const errs = resultData(await env.call('browser_console_messages', { level: 'error' }));
  assert.ok(errs.messages.length >= 3 && errs.messages.every((m) => m.level === 'error'), JSON.stringify(errs.messages.map((m) => m.level)));
  const two = resultData(await env.call('browser_console_messages', { limit: 2 }));
  assert.equal(two.messages.length, 2);
  assert.deepEqual(two.messages.map((m) => m.text), texts.slice(-2));
  // A new document starts empty.
  await open('/obs-marks.html');
  const fresh = resultData(await env.call('browser_console_messages', {}));
  assert.equal(fresh.total, 0, JSON.stringify(fresh.messages.slice(0, 3)));
});

test('network: method, URL, status, type, size, duration of each request; never a credential; cleared on navigation', async () => {
  await open('/obs-fetch.html');
  // The size comes from the request's Resource Timing entry, which the browser may buffer a moment after
  // the fetch itself resolved: wait for both.
  const d = await until('browser_network_requests', {}, (x) => x.requests.some((q) => q.method === 'PUT' && q.status !== null) &&
    x.requests.some((q) => /code=201/.test(q.url) && typeof q.size === 'number'));
  const all = JSON.stringify(d);
  for (const secret of ['sekrit-token-123', 'cookie-secret-456', 'setcookie-secret-789', 'dXNlcjpwYXNzd29yZC1zZWNyZXQ', 'payload-body-000', 'put-body']) {
    assert.ok(!all.includes(secret), `${secret} must not show: ${all.slice(0, 400)}`);
  }
  const q = (re) => d.requests.find((x) => re.test(x.url));
  const post = q(/code=201/);
  assert.equal(post.method, 'POST');
  assert.equal(post.status, 201);
  assert.equal(post.type, 'fetch');
  assert.ok(post.duration_ms >= 0 && typeof post.size === 'number', JSON.stringify(post));
  const get = q(/code=200&cookie=1/);
  assert.equal(get.method, 'GET');
  assert.equal(get.status, 200);
  const put = q(/code=404/);
  assert.equal(put.method, 'PUT');
  assert.equal(put.status, 404);
  assert.equal(put.type, 'xmlhttprequest');
  const doc = q(/obs-fetch\.html$/);
  assert.equal(doc.type, 'document');
  assert.equal(doc.status, 200);
  assert.ok(q(/report\.html\?as=image/), 'the image request is listed');
  // filter and limit
  const f = resultData(await env.call('browser_network_requests', { filter: 'CODE=404' }));
  assert.deepEqual(f.requests.map((x) => x.method), ['PUT']);
  const one = resultData(await env.call('browser_network_requests', { limit: 1 }));
  assert.equal(one.requests.length, 1);
  // Since the last navigation only.
  await open('/obs-marks.html');
  const fresh = resultData(await env.call('browser_network_requests', {}));
  assert.ok(!JSON.stringify(fresh).includes('/obs/status'), JSON.stringify(fresh).slice(0, 400));
  assert.ok(fresh.requests.some((x) => /obs-marks\.html$/.test(x.url)));
});

test('full page through the DevTools protocol where the debugger is granted (the managed headless browser)', { skip: !realDaemonAvailable() && 'the daemon is not built' }, async () => {
  buildExtension();
  const daemon = await startDaemon({ kind: 'real', extraArgs: ['--headless', '--chromium', CHROMIUM, '--extension', path.join(ROOT, 'extension/dist')] });
  try {
    const b = await daemon.waitForBrowser(undefined, 30_000);
    const call = (tool, params) => daemon.call(tool, { client_id: b.client_id, timeout_ms: 30_000, ...params });
    ok(await call('browser_open_url', { url: env.url('/obs-marks.html') }));
    const r = await call('browser_screenshot', { full_page: true, format: 'png', marks: true });
    ok(r);
    const d = resultData(r);
    assert.equal(d.capture, 'devtools');
    const img = decodePng(d.data);
    assert.ok(img.height > 3000, `height ${img.height}`);
    const far = d.marks.find((m) => m.y > 2900);
    assert.ok(far, `the far button is marked on the full page: ${JSON.stringify(d.marks)}`);
    assert.ok(near(img.pixel(far.x + 1, far.y + far.height / 2), MAGENTA), 'its box is drawn');
  } finally {
    await daemon.close();
  }
});

test('console and network of frames: each entry names its frame by the frame\'s real URL', async () => {
  await open('/obs-frames.html');
  const d = await until('browser_console_messages', {}, (x) => x.messages.some((m) => /other-origin frame/.test(m.text)));
  const top = d.messages.find((m) => m.text === 'from the top page');
  assert.equal(top.frame_url, undefined, 'the top page\'s messages carry no frame_url');
  const forged = d.messages.find((m) => /forged origin/.test(m.text));
  assert.equal(forged.frame_url, undefined, 'text that claims another origin stays the top page\'s text');
  const inner = d.messages.find((m) => /other-origin frame/.test(m.text));
  assert.equal(inner.level, 'warning');
  assert.match(inner.frame_url, /^http:\/\/localhost:\d+\/obs-frame-log\.html$/);
  const n = await until('browser_network_requests', { filter: 'from=frame' }, (x) => x.requests.some((q) => q.status === 202));
  assert.equal(n.requests[0].method, 'DELETE');
  assert.match(n.requests[0].frame_url, /^http:\/\/localhost:\d+\//);
});

test('a page that redefines the getters, the clock, URL and Promise.prototype.then cannot bend the records', async () => {
  await open('/obs-hostile.html');
  const c = await until('browser_console_messages', { level: 'error' }, (x) => x.messages.some((m) => m.kind === 'uncaught'));
  const err = c.messages.find((m) => m.kind === 'uncaught');
  assert.match(err.text, /RangeError: real uncaught/);
  assert.match(err.source, /obs-hostile\.html:\d+:\d+$/);
  const n = await until('browser_network_requests', { filter: 'hostile=1' }, (x) => x.requests.some((q) => q.type === 'fetch' && q.status === 203));
  const q = n.requests.find((x) => x.type === 'fetch');
  assert.equal(q.method, 'PATCH');
  assert.match(q.url, /^http:\/\/127\.0\.0\.1:\d+\/obs\/status\?code=203&hostile=1$/);
  assert.ok(q.duration_ms >= 0, JSON.stringify(q));
});
