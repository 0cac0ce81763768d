// The daemon announces its max_message_bytes in `welcome`; the extension keeps every message
// within it (cutting a page's Markdown, marked truncated; refusing a screenshot that does not
// fit with an error saying so) instead of sending one the daemon closes the connection over
// (1009). Real Chromium, real extension, `serve --max-message-bytes 65536`.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { setup, realDaemonAvailable } from './support/harness.mjs';

const skip = !realDaemonAvailable() && 'the daemon is not built';
let env;
before(async () => { if (!skip) env = await setup({ daemon: { kind: 'real', extraArgs: ['--max-message-bytes', '65536'] } }); });
after(async () => { await env?.close(); });

const connectedOnce = () => {
  const out = env.daemon.output?.() ?? '';
  assert.doesNotMatch(out, /browser disconnected|1009/);
};

test('a page larger than max_message_bytes arrives cut, and the browser stays connected', { timeout: 90_000, skip }, async () => {
  const r = await env.call('browser_open_url', { url: env.url('/big?n=3000'), timeout_ms: 20_000 });
  assert.equal(r.status, 'success', JSON.stringify(r).slice(0, 300));
  assert.equal(r.page.truncated, true);
  assert.ok(Buffer.byteLength(r.page.markdown) < 65536);
  assert.match(r.page.markdown, /^# Big page/);
  assert.match(r.page.markdown, /Paragraph 1: lorem/);
  assert.match(r.page.markdown, /truncated: the page was cut to fit the daemon's max_message_bytes \(65536 bytes\)/);
  connectedOnce();
  const again = await env.call('browser_get_page', { timeout_ms: 20_000 });
  assert.equal(again.status, 'success', JSON.stringify(again).slice(0, 300));
  assert.equal(again.page.truncated, true);
  // Multi-byte text: cut on a code point boundary, still within the limit.
  const md = again.page.markdown;
  assert.ok(!/[\ud800-\udbff]$/.test(md.replace(/\n\n\[… truncated[^\]]*\]$/, '')));
});

test('a screenshot larger than max_message_bytes is an error naming the limit; the browser stays connected', { timeout: 90_000, skip }, async () => {
  let r = await env.call('browser_open_url', { url: env.url('/noise.html'), timeout_ms: 20_000 });
  assert.equal(r.status, 'success', JSON.stringify(r).slice(0, 300));
  r = await env.call('browser_screenshot', { format: 'png', timeout_ms: 20_000 });
  assert.equal(r.status, 'error', JSON.stringify(r).slice(0, 300));
  assert.match(JSON.stringify(r), /larger than the daemon's max_message_bytes \(65536 bytes\)/);
  connectedOnce();
  r = await env.call('browser_get_page', { timeout_ms: 20_000 });
  assert.equal(r.status, 'success', JSON.stringify(r).slice(0, 300));
  assert.match(r.page.markdown, /# Noise/);
});

test('a command_result larger than max_message_bytes is replaced by an error saying so; the page still follows', { timeout: 90_000, skip }, async () => {
  let r = await env.call('browser_open_url', { url: env.url('/many-dialogs.html'), timeout_ms: 20_000 });
  assert.equal(r.status, 'success', JSON.stringify(r).slice(0, 300));
  // 20 prompts of 2000 characters with 2000-character defaults: result.dialogs is over 64 KiB.
  r = await env.call('browser_click', { target: 'Ask twenty times', timeout_ms: 20_000 });
  assert.equal(r.http, 200, JSON.stringify(r).slice(0, 300));
  assert.equal(r.status, 'error', JSON.stringify(r).slice(0, 300));
  assert.match(r.result.error, /^The result \(\d+ bytes\) is larger than the daemon's max_message_bytes \(65536 bytes\); it was not sent\.$/);
  assert.match(r.page.markdown, /# Many dialogs/);
  connectedOnce();
  r = await env.call('browser_get_page', { timeout_ms: 20_000 });
  assert.equal(r.status, 'success', JSON.stringify(r).slice(0, 300));
});
