// Real-site suite for fidelity: what the bridge says matches what a user sees (product rules #1
// and #2). Shells:
//   - fidelity.html: Shoelace's <sl-details> (npm @shoelace-style/shoelace, documented markup: its
//     <details> and <summary> in its shadow root, the content slotted in), beside the plain HTML
//     shapes of the same patterns: a closed <details>, an aria-expanded=false button whose
//     aria-controls region is hidden; buttons holding text no user sees; live regions.
//   node --test tests/e2e/fidelity-realsites.test.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startManaged, startStaticServer, requirePackages, answerHelpers, NODE_MODULES, SHELLS } from './support/realsites.mjs';

let env, srv;
before(async () => {
  requirePackages(['@shoelace-style/shoelace']);
  srv = await startStaticServer({ roots: { '/npm/': NODE_MODULES + '/', '/shells/': SHELLS + '/' } });
  env = await startManaged();
});
after(async () => { await env?.close(); await srv?.close(); });

const { msg, md, ok, err, call, lineOf, stateIn } = answerHelpers(() => env);
const RUNS = [1, 2, 3];
async function open() {
  const r = await call('browser_open_url', { url: srv.url('/shells/fidelity.html') });
  ok(r, 'open fidelity.html');
  assert.match(md(r), /# Fidelity playground/, 'fidelity.html did not render');
  return r;
}

test('a target inside a closed section (sl-details, <details>, an aria-expanded=false panel): the error names the section to open, and opening it makes the target usable', async () => {
  const cases = [
    // [tool, params, the opener's name]
    ['browser_type', { target: 'Gift note', text: 'Happy birthday' }, 'Shipping options'],
    ['browser_click', { target: 'Express delivery' }, 'Shipping options'],
    ['browser_type', { target: 'Nickname', text: 'Bo' }, 'More options'],
    ['browser_click', { target: 'Reset counters' }, 'More options'],
    ['browser_type', { target: 'Proxy host', text: 'proxy.local' }, 'Advanced'],
  ];
  for (const run of RUNS) {
    const r0 = await open();
    const before = stateIn(md(r0));
    for (const [tool, params, section] of cases) {
      await open();
      const r = await call(tool, params);
      assert.equal(r.status, 'error', `run ${run}: ${params.target} in the closed ${section} was reported done`);
      const m = err(r).match(new RegExp(`"${params.target}" is inside the closed section \\[button "${section}" (e\\d+)\\]: open it first \\(click (e\\d+)\\)`));
      assert.ok(m, `run ${run}: the error does not name the closed section ${section}: ${msg(r)}`);
      assert.equal(m[1], m[2], `run ${run}`);
      assert.deepEqual(stateIn(md(r)), before, `run ${run}: something was done`);
      // the ref named is the opener the Markdown shows, and clicking it opens the section
      assert.match(md(r), new RegExp(`\\[button "${section}"[^\\]]* ${m[1]}\\]`), `run ${run}: the opener's ref is not in the Markdown`);
      ok(await call('browser_click', { target: m[1] }), `run ${run}: open ${section}`);
      const done = await call(tool, params);
      ok(done, `run ${run}: ${tool} ${params.target} once ${section} is open`);
      if (params.target === 'Reset counters') assert.equal(stateIn(md(done)).reset, 1, `run ${run}: Reset counters was not clicked once opened`);
      if (params.text) assert.match(lineOf(md(done), new RegExp(`"${params.target}"`)), new RegExp(`value="${params.text}"`), `run ${run}`);
    }
  }
});
