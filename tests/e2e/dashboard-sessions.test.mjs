// The dashboard's agent sessions (issue 18), in headless Chromium against the real daemon with
// approve_sessions on and a short test-only session TTL: a waiting session is approved or declined
// from the live view, a live one stopped with Stop; creation, approval, decline, revocation and
// expiry appear as session events.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { chromium } from 'playwright-core';
import { BB_BIN, CHROMIUM, CHROMIUM_ARGS, buildDashboard, startDaemon, startScriptedBrowser } from './support/dashboard-harness.mjs';

const skip = !existsSync(BB_BIN) && 'the daemon is not built';
const cleanups = [];
after(async () => { for (const c of cleanups.reverse()) await c().catch(() => {}); });

function agentCall(daemon, session, tool, params = {}) {
  return fetch(`${daemon.base}/api/tools/${tool}`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${daemon.token}`, 'Content-Type': 'application/json', 'X-Browser-Bridge-Session': session },
    body: JSON.stringify(params),
  }).then(async (r) => ({ status: r.status, body: await r.json() }));
}

test('dashboard: approve, decline and stop agent sessions; their events, expiry included', { skip, timeout: 90_000 }, async () => {
  const daemon = await startDaemon({ wwwDir: buildDashboard(), args: ['--approve-sessions'], env: { BB_TEST_SESSION_TTL_MS: '2500' } });
  cleanups.push(() => daemon.stop());
  const peer = await startScriptedBrowser({ wsUrl: daemon.wsUrl, token: daemon.token });
  cleanups.push(async () => peer.close());
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  cleanups.push(() => browser.close());
  const page = await browser.newPage();
  await page.goto(daemon.loginUrl);
  await page.waitForURL(`${daemon.base}/#/live`);
  await page.waitForSelector('#sessions');
  // The event log shows what the live stream brought: the sessions start once it is open (under
  // load it opened after the first two had started, and their "started" events were not shown).
  await page.waitForSelector('.conn[title="Live event stream connected"]');

  const yes = agentCall(daemon, 'agent-yes', 'browser_get_page');
  const no = agentCall(daemon, 'agent-no', 'browser_get_page');
  await page.waitForFunction(() => document.querySelectorAll('#sessions li button[data-action="approve"]').length === 2);
  const sessions = (await daemon.api('/api/sessions')).body.sessions;
  const id = (name) => sessions.find((s) => s.name === name).id;
  assert.equal(peer.received.length, 0, 'no call reached the browser before approval');
  await page.click(`#sessions li[data-session="${id('agent-yes')}"] button[data-action="approve"]`);
  const y = await yes;
  assert.equal(y.status, 200);
  assert.equal(y.body.status, 'success');
  // The live call list says which agent made the call.
  await page.waitForFunction(() => [...document.querySelectorAll('.call .call-session')].some((e) => e.textContent === 'agent-yes'));
  await page.click(`#sessions li[data-session="${id('agent-no')}"] button[data-action="decline"]`);
  const n = await no;
  assert.equal(n.status, 403);
  assert.equal(n.body.error, 'session_declined');
  // Stop the approved one: its next call is refused.
  await page.waitForSelector(`#sessions li[data-session="${id('agent-yes')}"] button[data-action="revoke"]`);
  await page.click(`#sessions li[data-session="${id('agent-yes')}"] button[data-action="revoke"]`);
  await page.waitForFunction(() => /agent-yes stopped/.test(document.getElementById('session-events').textContent));
  const after = await agentCall(daemon, 'agent-yes', 'browser_get_page');
  assert.equal(after.status, 403);
  assert.equal(after.body.error, 'session_revoked');
  // A third session, approved through the API, idles past the TTL: its expiry is an event too.
  const idle = agentCall(daemon, 'agent-idle', 'browser_get_page');
  await page.waitForFunction(() => /agent-idle started/.test(document.getElementById('session-events').textContent));
  const idleId = (await daemon.api('/api/sessions')).body.sessions.find((s) => s.name === 'agent-idle').id;
  const ok = await fetch(`${daemon.base}/api/sessions/${idleId}/approve`, { method: 'POST', headers: { Authorization: `Bearer ${daemon.token}`, 'Content-Type': 'application/json' }, body: '{}' });
  assert.equal(ok.status, 200);
  assert.equal((await idle).status, 200);
  await page.waitForFunction(() => /agent-idle expired/.test(document.getElementById('session-events').textContent), null, { timeout: 20_000 });
  const text = await page.textContent('#session-events');
  for (const w of ['agent-yes started', 'agent-yes approved', 'agent-no declined', 'agent-yes stopped', 'agent-idle approved']) assert.ok(text.includes(w), `${w} in ${text}`);
  assert.equal(await page.locator(`#sessions li[data-session="${idleId}"]`).count(), 0);
});
