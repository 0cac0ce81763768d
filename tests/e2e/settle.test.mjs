// End-to-end: an in-page action returns once its own effects have settled, also when they happen
// only inside shadow roots (issue 14: the quiet window used to be measured by a MutationObserver
// that did not see into shadow roots, so a web component's rendering counted as quiet), and once
// an animation it started has run (a panel that fades in is read when it shows, a notice that
// fades out once it is gone), and once work it started in tasks the DOM does not show has run
// (slices posted through a MessageChannel or window.postMessage, idle callbacks). Real Chromium + the real extension + the daemon, through the HTTP
// tool API; the fixtures are tests/fixtures/pages/act-shadow.html, act-chain.html and act-dsd.html.
//   node --test tests/e2e/settle.test.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { setup } from './support/harness.mjs';

let env;
before(async () => { env = await setup(); });
after(async () => { await env?.close(); });

const ok = (r) => assert.equal(r.status, 'success', `expected success, got ${r.http} ${JSON.stringify(r.result || r.message)}`);
const settleOf = (r) => r.result?.settle || r.result?.result?.settle;

// Open act-chain.html and click `target` there; the answer, checked to be a success.
async function clickOnChain(target) {
  ok(await env.call('browser_open_url', { url: env.url('/act-chain.html'), timeout_ms: 15000 }));
  const r = await env.call('browser_click', { target, timeout_ms: 10000 });
  ok(r);
  return r;
}

async function open() {
  const r = await env.call('browser_open_url', { url: env.url('/act-shadow.html'), timeout_ms: 15000 });
  ok(r);
  assert.match(r.page.markdown, /Outer ready/, 'the page\'s own component is not shown');
  return r;
}

test('settling: a chain of changes inside nested shadow roots (a component added by the action) is waited out', async () => {
  await open();
  const r = await env.call('browser_click', { target: 'Run nested chain', timeout_ms: 10000 });
  ok(r);
  assert.match(r.page.markdown, /Nested chain done after 60 steps/, `read mid-chain: ${JSON.stringify(r.result)} ${r.page.markdown}`);
  assert.equal(settleOf(r)?.reason, 'quiet', JSON.stringify(r.result));
});

test('settling: a chain of changes inside a shadow root attached by the action to an element already in the page is waited out', async () => {
  await open();
  const r = await env.call('browser_click', { target: 'Run late chain', timeout_ms: 10000 });
  ok(r);
  assert.match(r.page.markdown, /Late chain done after 60 steps/, `read mid-chain: ${JSON.stringify(r.result)} ${r.page.markdown}`);
  assert.equal(settleOf(r)?.reason, 'quiet', JSON.stringify(r.result));
});

// The animation starts 250 ms after the click, inside a shadow root: its start time (the document
// timeline's clock) used to be compared with the action's time (the service worker's Date.now())
// through performance.timeOrigin, which can disagree with Date.now() by tens of ms, and the panel
// was then sometimes read before it showed (issue 14).
test('settling: a panel the action fades in after a delay is read once it shows', async () => {
  await open();
  const r = await env.call('browser_click', { target: 'Show faded panel', timeout_ms: 10000 });
  ok(r);
  assert.match(r.page.markdown, /The faded panel shows/, `read before the panel showed: ${JSON.stringify(r.result)} ${r.page.markdown}`);
  assert.equal(settleOf(r)?.reason, 'quiet', JSON.stringify(r.result));
});

test('settling: a notice the action fades out is read once it is gone', async () => {
  await open();
  const r = await env.call('browser_click', { target: 'Dismiss the notice', timeout_ms: 10000 });
  ok(r);
  assert.doesNotMatch(r.page.markdown, /The notice is still here/, `read before the notice left: ${JSON.stringify(r.result)} ${r.page.markdown}`);
  assert.equal(settleOf(r)?.reason, 'quiet', JSON.stringify(r.result));
});

// The notice is in a shadow root the parser attached (declarative shadow DOM, as server-rendered
// web components ship): the extension does not record the parser's insertions, and finds such
// roots once parsing has ended. Unwatched, the root's transition and the notice's removal go
// unseen, and the page was read while the notice still showed.
test('settling: a notice in a declarative shadow root that the action fades out is read once it is gone', async () => {
  const o = await env.call('browser_open_url', { url: env.url('/act-dsd.html'), timeout_ms: 15000 });
  ok(o);
  assert.match(o.page.markdown, /The server notice is still here/, 'the declarative shadow root\'s content is not shown');
  const r = await env.call('browser_click', { target: 'Dismiss the server notice', timeout_ms: 10000 });
  ok(r);
  assert.doesNotMatch(r.page.markdown, /The server notice is still here/, `read before the notice left: ${JSON.stringify(r.result)} ${r.page.markdown}`);
  assert.match(r.page.markdown, /Card body/);
  assert.equal(settleOf(r)?.reason, 'quiet', JSON.stringify(r.result));
});

test('settling: a chain of timers the action started, each set by the one before, is waited out', async () => {
  const r = await clickOnChain('Run timer chain');
  assert.match(r.page.markdown, /Timer chain finished after 6 timers/, `read mid-chain: ${JSON.stringify(r.result)} ${r.page.markdown}`);
});

test('settling: a script the action inserted is waited for until it ran', async () => {
  const r = await clickOnChain('Load a script');
  assert.match(r.page.markdown, /The late script ran/, `read before the script ran: ${JSON.stringify(r.result)} ${r.page.markdown}`);
});

// Work in slices of 5 ms, each in a task of its own, with no DOM change until the last (60 ms and
// more): the quiet window, counted from the action, used to end between two slices.
for (const [button, done, how] of [
  ['Run port slices', /Port work finished after 12 slices/, 'messages through a MessageChannel (React\'s scheduler)'],
  ['Run posted slices', /Posted work finished after 12 slices/, 'window.postMessage to itself (a setImmediate polyfill)'],
  ['Run idle slices', /Idle work finished after 12 slices/, 'idle callbacks'],
]) {
  test(`settling: work the action started in slices posted as ${how} is waited out`, async () => {
    const r = await clickOnChain(button);
    assert.match(r.page.markdown, done, `read mid-work: ${JSON.stringify(r.result)} ${r.page.markdown}`);
    assert.equal(settleOf(r)?.reason, 'quiet', JSON.stringify(r.result));
  });
}

// A loop of messages the action starts and that never ends: its messages are waited for only
// within a second of its start (a chain), so the action returns on its effect, not at the cap,
// and the next action on the page is not held up by the loop.
test('settling: a message loop the action starts (a game loop through a MessageChannel) does not hold the answer to the cap', async () => {
  let r = await clickOnChain('Start a message loop');
  assert.match(r.page.markdown, /The message loop runs/);
  assert.equal(settleOf(r)?.reason, 'quiet', JSON.stringify(r.result));
  r = await env.call('browser_click', { target: 'Run timer chain', timeout_ms: 10000 });
  ok(r);
  assert.match(r.page.markdown, /Timer chain finished after 6 timers/, `read mid-chain: ${JSON.stringify(r.result)} ${r.page.markdown}`);
  assert.equal(settleOf(r)?.reason, 'quiet', JSON.stringify(r.result));
});

// fetch() resolves with the headers; the page then reads the body, which here arrives 150 ms
// later: the answer used to be read once the headers came (the request ended), before the body.
test('settling: a fetch the action started is waited for until the page has read its body', async () => {
  const r = await clickOnChain('Fetch a slow answer');
  assert.match(r.page.markdown, /Answer arrived in full/, `read before the body arrived: ${JSON.stringify(r.result)} ${r.page.markdown}`);
  assert.equal(settleOf(r)?.reason, 'quiet', JSON.stringify(r.result));
});

// A file is read after the event that brought it (an upload form shows each picked file's name and
// first line once read: Blob's text(), a FileReader): the read, here of 64 MiB, is waited for
// like a request, so the answer shows what the page made of the file.
for (const [button, done, how] of [
  ['Read a large blob', /Blob read: 67108864 characters/, "Blob's text()"],
  ['Read a large file with a FileReader', /FileReader read: 67108864 bytes/, 'a FileReader'],
]) {
  test(`settling: a file the action reads with ${how} is waited for until read`, async () => {
    const r = await clickOnChain(button);
    assert.match(r.page.markdown, done, `read before the file was: ${JSON.stringify(r.result)} ${r.page.markdown}`);
    assert.equal(settleOf(r)?.reason, 'quiet', JSON.stringify(r.result));
  });
}
