// MCP resilience (issue 18): the stdio relay (`browser-bridge mcp`) driven by the official SDK
// client survives a daemon restart on the same port and socket -- it starts a new session by itself
// and the agent's next call works.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { startDaemon, connectPeer, api, BIN, waitFor } from './support/harness.mjs';

// Start the same daemon again (same ports, database, token and API socket) once the old one is gone.
async function restart(d) {
  const proc = spawn(BIN, d.proc.spawnargs.slice(1), { stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  proc.stdout.on('data', (x) => { log += x; });
  proc.stderr.on('data', (x) => { log += x; });
  const exited = new Promise((resolve) => proc.on('exit', (code, signal) => resolve({ code, signal })));
  await waitFor('the restarted daemon', async () => {
    if (proc.exitCode !== null) throw new Error(`daemon exited: ${log}`);
    return (await fetch(`${d.base}/api/health`)).ok;
  });
  return { ...d, proc, exited, get log() { return log; }, async stop() { if (proc.exitCode === null) proc.kill('SIGTERM'); return exited; } };
}

const answer = (c, p) => { p.result(c.requestId); if (c.wait_for_page_info) p.page(c.requestId, `# After ${c.command} ${c.url ?? c.target ?? ''}`); };

for (const via of ['api-socket', 'http']) {
  test(`the stdio relay starts a new session after a daemon restart (${via})`, async () => {
    let d = await startDaemon();
    let client, stderr = '';
    try {
      await connectPeer(d, { answer });
      const args = via === 'http'
        ? ['mcp', '--config', '/dev/null', '--api-socket', 'off', '--http', `127.0.0.1:${d.httpPort}`, '--token-file', d.tokenFile]
        : ['mcp', '--config', '/dev/null', '--api-socket', d.apiSocket];
      const transport = new StdioClientTransport({ command: BIN, args, stderr: 'pipe' });
      transport.stderr.on('data', (x) => { stderr += x; });
      client = new Client({ name: 'restart-test', version: '1.0.0' });
      await client.connect(transport);
      const r1 = await client.callTool({ name: 'browser_open_url', arguments: { url: 'https://example.com/one' } });
      assert.equal(r1.isError, false, JSON.stringify(r1));

      const old = await d.stop('SIGKILL');
      assert.equal(old.signal, 'SIGKILL');
      d = await restart(d);
      await connectPeer(d, { answer });

      const r2 = await client.callTool({ name: 'browser_open_url', arguments: { url: 'https://example.com/two' } });
      assert.equal(r2.isError, false, `${JSON.stringify(r2)}\n${stderr}`);
      assert.ok(r2.content.some((c) => c.text?.includes('# After open_url https://example.com/two')));
      assert.match(stderr, /the daemon restarted; started a new session/);
      // The new session is still the agent's: named by its clientInfo.name, as before the restart.
      assert.deepEqual((await api(d, '/api/sessions', { method: 'GET' })).body.sessions.map((x) => x.name), ['restart-test']);
      // And it stays usable: the new session is kept for the next calls.
      const { tools } = await client.listTools();
      assert.ok(tools.some((t) => t.name === 'browser_get_page'));
    } finally {
      await client?.close();
      await d.stop();
    }
  });
}

// Through the relay too: a tools/call waits on a thread of its own, so the SDK's
// notifications/cancelled reaches the daemon while the call waits, and its progress notifications
// are written as they come.
test('the stdio relay passes progress notifications as they come, and cancellation while a call waits', async () => {
  const d = await startDaemon({ env: { BB_TEST_EVENT_HEARTBEAT_MS: '100' } });
  let client;
  try {
    const held = [];
    const peer = await connectPeer(d, { answer: (c) => held.push(c) });
    const transport = new StdioClientTransport({ command: BIN, args: ['mcp', '--config', '/dev/null', '--api-socket', d.apiSocket], stderr: 'pipe' });
    client = new Client({ name: 'relay-progress', version: '1.0.0' });
    await client.connect(transport);

    const progress = [];
    const call = client.callTool({ name: 'browser_wait_for', arguments: { text: 'later', timeout_ms: 60000 } }, undefined, { onprogress: (p) => progress.push(p) });
    await waitFor('the command reached the browser', () => held.length === 1);
    await waitFor('two progress notifications through the relay', () => progress.length >= 2);
    assert.match(progress[0].message, /^Waiting for the browser/);
    // Another call goes through while the first waits.
    const tools = await client.listTools();
    assert.ok(tools.tools.length > 0);
    peer.result(held[0].requestId);
    peer.page(held[0].requestId, '# Later');
    const r = await call;
    assert.equal(r.isError, false, JSON.stringify(r));
    assert.ok(r.content.some((x) => x.text?.includes('# Later')));

    const ac = new AbortController();
    const waiting = client.callTool({ name: 'browser_wait_for', arguments: { text: 'never', wait_ms: 60000, timeout_ms: 90000 } }, undefined, { signal: ac.signal });
    await waitFor('the second command', () => held.length === 2);
    ac.abort('stop');
    await assert.rejects(waiting);
    assert.equal((await peer.next('cancel')).data.requestId, held[1].requestId);
  } finally {
    await client?.close();
    await d.stop();
  }
});
