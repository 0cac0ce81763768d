// The daemon announces its max_message_bytes in `welcome`; the extension must keep every message
// within it (cutting a page's Markdown, marked truncated) instead of sending one the daemon closes
// the connection over (1009). Real Chromium, real extension, `serve --max-message-bytes 65536`.
// Marked todo until the extension honours maxMessageBytes (issue 15; see the catalog branch's
// report for the change in extension/src/background): today the browser is disconnected.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { setup, realDaemonAvailable } from './support/harness.mjs';

let env;
after(async () => { await env?.close(); });

test('a page larger than max_message_bytes arrives cut, and the browser stays connected',
  { timeout: 90_000, skip: !realDaemonAvailable() && 'the daemon is not built', todo: 'the extension does not honour maxMessageBytes yet' },
  async () => {
    env = await setup({ daemon: { kind: 'real', extraArgs: ['--max-message-bytes', '65536'] } });
    const r = await env.call('browser_open_url', { url: env.url('/big?n=3000'), timeout_ms: 20_000 });
    assert.equal(r.status, 'success', JSON.stringify(r).slice(0, 300));
    assert.equal(r.page.truncated, true);
    assert.ok(Buffer.byteLength(r.page.markdown) < 65536);
    assert.doesNotMatch(env.daemon.output?.() ?? '', /browser disconnected/);
    const again = await env.call('browser_get_page', { timeout_ms: 20_000 });
    assert.equal(again.status, 'success', JSON.stringify(again).slice(0, 300));
  });
