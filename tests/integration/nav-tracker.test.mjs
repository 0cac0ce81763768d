// Unit test of extension/src/background/nav-tracker.js: what a tab's navigation events say about
// the navigation an action started, fed in the orders Chrome delivers them. The events of the
// document being left (or of the navigation the new one cut short) can come after the new start:
// seen in CI, where a fresh tab's about:blank finished loading after open_url's navigation began
// and was taken for its end ("Did not open …: the server sent no page").
//   node --test tests/integration/nav-tracker.test.mjs
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const src = process.env.BB_SRCDIR || path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
const listeners = {};
const event = (name) => ({ addListener: (f) => { listeners[name] = f; }, removeListener() {} });
globalThis.chrome = {
  webNavigation: Object.fromEntries(['onBeforeNavigate', 'onCommitted', 'onDOMContentLoaded', 'onCompleted', 'onErrorOccurred',
    'onHistoryStateUpdated', 'onReferenceFragmentUpdated'].map((n) => [n, event(n)])),
  tabs: { onCreated: event('onCreated') },
};
const { NavTracker, installNavListeners, tabNavError } = await import(pathToFileURL(path.join(src, 'extension/src/background/nav-tracker.js')).href);
before(() => installNavListeners());

let nextTab = 100;
// Events of one tab's top frame: fire('onCommitted', url, {documentId}).
function tab() {
  const tabId = nextTab++;
  return { tabId, fire: (name, url, extra = {}) => listeners[name]({ tabId, frameId: 0, url, timeStamp: Date.now(), ...extra }) };
}
const PAGE = 'http://127.0.0.1:8000/page.html';

test('a fresh tab\'s about:blank finishing after the open began is not the new page\'s load', () => {
  const t = tab();
  t.fire('onBeforeNavigate', 'about:blank');
  t.fire('onCommitted', 'about:blank', { documentId: 'BLANK' });
  const tr = new NavTracker(t.tabId);
  t.fire('onBeforeNavigate', PAGE);
  t.fire('onDOMContentLoaded', 'about:blank', { documentId: 'BLANK' });
  t.fire('onCompleted', 'about:blank', { documentId: 'BLANK' });
  assert.equal(tr.started, true);
  assert.equal(tr.pending, true, 'the load of the page left ended the new navigation');
  assert.equal(tr.parsed, false);
  t.fire('onCommitted', PAGE, { documentId: 'NEW' });
  t.fire('onDOMContentLoaded', PAGE, { documentId: 'NEW' });
  assert.equal(tr.parsed, true);
  t.fire('onCompleted', PAGE, { documentId: 'NEW' });
  assert.deepEqual([tr.committed, tr.pending, tr.error], [true, false, null]);
  tr.stop();
});

test('about:blank committing after a web page was asked for is not that page', () => {
  const t = tab();
  const tr = new NavTracker(t.tabId);
  t.fire('onBeforeNavigate', PAGE);
  t.fire('onCommitted', 'about:blank', { documentId: 'BLANK' });
  t.fire('onDOMContentLoaded', 'about:blank', { documentId: 'BLANK' });
  t.fire('onCompleted', 'about:blank', { documentId: 'BLANK' });
  assert.deepEqual([tr.committed, tr.pending, tr.parsed], [false, true, false]);
  tr.stop();
  // Asked for about:blank itself, its commit is the page.
  const u = tab();
  const tb = new NavTracker(u.tabId);
  u.fire('onBeforeNavigate', 'about:blank');
  u.fire('onCommitted', 'about:blank', { documentId: 'B2' });
  u.fire('onCompleted', 'about:blank', { documentId: 'B2' });
  assert.deepEqual([tb.committed, tb.pending], [true, false]);
  tb.stop();
});

test('the abort of the navigation the new one replaced is not the new one failing; its own abort is (a 204, a download)', () => {
  const t = tab();
  t.fire('onBeforeNavigate', 'http://127.0.0.1:8000/slow');
  const tr = new NavTracker(t.tabId);
  t.fire('onBeforeNavigate', PAGE);
  t.fire('onErrorOccurred', 'http://127.0.0.1:8000/slow', { error: 'net::ERR_ABORTED' });
  assert.deepEqual([tr.error, tr.pending], [null, true]);
  t.fire('onErrorOccurred', PAGE, { error: 'net::ERR_ABORTED' });
  assert.deepEqual([tr.error, tr.pending, tr.committed], ['net::ERR_ABORTED', false, false]);
  assert.equal(tabNavError(t.tabId), null, 'an abort is no failure page');
  tr.stop();
});

test('a real failure is kept, whatever its URL; a redirected page commits', () => {
  const t = tab();
  const tr = new NavTracker(t.tabId);
  t.fire('onBeforeNavigate', PAGE);
  t.fire('onErrorOccurred', 'http://elsewhere.invalid/', { error: 'net::ERR_NAME_NOT_RESOLVED' });
  assert.equal(tr.error, 'net::ERR_NAME_NOT_RESOLVED');
  assert.equal(tabNavError(t.tabId)?.error, 'net::ERR_NAME_NOT_RESOLVED');
  tr.stop();
  const u = tab();
  const tb = new NavTracker(u.tabId);
  u.fire('onBeforeNavigate', 'http://127.0.0.1:8000/go');
  u.fire('onCommitted', PAGE, { documentId: 'R' });
  assert.equal(tb.committed, true);
  tb.stop();
});

test('a history change of the page being left, reported after the start, is not a same-document move', () => {
  const t = tab();
  t.fire('onCommitted', PAGE, { documentId: 'OLD' });
  const tr = new NavTracker(t.tabId);
  t.fire('onCommitted', PAGE, { documentId: 'OLD' });
  t.fire('onBeforeNavigate', 'http://127.0.0.1:8000/next.html');
  t.fire('onHistoryStateUpdated', PAGE + '?q', { documentId: 'OLD' });
  assert.equal(tr.sameDoc, false);
  tr.stop();
  // Before any navigation starts, it is one.
  const u = tab();
  const tb = new NavTracker(u.tabId);
  u.fire('onHistoryStateUpdated', PAGE + '?q', { documentId: 'X' });
  assert.equal(tb.sameDoc, true);
  tb.stop();
});

test('a tab just opened with a URL: the abort of its initial about:blank is not that URL\'s failure', () => {
  const t = tab();
  t.fire('onBeforeNavigate', PAGE);
  const tr = NavTracker.loading(t.tabId, PAGE);
  t.fire('onErrorOccurred', 'about:blank', { error: 'net::ERR_ABORTED' });
  assert.equal(tr.error, null, 'the initial about:blank\'s abort was taken for the page\'s');
  assert.equal(tr.pending, true);
  t.fire('onCommitted', PAGE, { documentId: 'NEW' });
  t.fire('onCompleted', PAGE, { documentId: 'NEW' });
  assert.deepEqual([tr.committed, tr.pending, tr.error], [true, false, null]);
  tr.stop();
  // Its own URL's abort (a download, a 204) is its failure.
  const u = tab();
  const tu = NavTracker.loading(u.tabId, PAGE);
  u.fire('onErrorOccurred', PAGE, { error: 'net::ERR_ABORTED' });
  assert.equal(tu.error, 'net::ERR_ABORTED');
  tu.stop();
});

test('the events a tracker keeps for an error answer hold no query or fragment (a redirect\'s one-time code)', () => {
  const t = tab();
  const tr = new NavTracker(t.tabId);
  t.fire('onBeforeNavigate', 'http://127.0.0.1:8000/callback?code=SECRET123#state=abc');
  t.fire('onErrorOccurred', 'http://127.0.0.1:8000/callback?code=SECRET123#state=abc', { error: 'net::ERR_ABORTED' });
  assert.deepEqual(tr.events.map((e) => [e.kind, e.url, e.error]), [['start', 'http://127.0.0.1:8000/callback', undefined], ['error', 'http://127.0.0.1:8000/callback', 'net::ERR_ABORTED']]);
  assert.ok(!JSON.stringify(tr.events).includes('SECRET123'));
  tr.stop();
});
