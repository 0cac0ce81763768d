// What an agent must read per step (issue 16, "lean answers"), side by side with Playwright MCP.
//
//   node bench/bytes.mjs              # BB=/path/to/browser-bridge (default bench/.build, then build-check)
//   APPS=vanillajs,react node bench/bytes.mjs
//
// The same scripted flows run three ways, each through MCP as an agent would call it:
//   bridge full   Browser Bridge's /mcp (real daemon, real extension in /usr/bin/chromium), every
//                 call with snapshot "full" (the whole page after every action, as before issue 16)
//   bridge auto   the same with the default snapshot "auto": the whole page after a navigation,
//                 only what changed (page.changes) after an action on the same document
//   playwright    @playwright/mcp over stdio (--headless --isolated, /usr/bin/chromium, no network
//                 services), which answers an action with a short text and writes the page's
//                 snapshot to a file it links: that file is counted too, since the agent must read
//                 it to see the action's effect
// Counted per step: the text content of the MCP result (what a model reads; for Playwright plus
// the linked snapshot file) in bytes and in tokens (gpt-tokenizer, o200k), and the whole JSON-RPC
// result on the wire (for the bridge: with structuredContent, which carries no page text).
// The flows: TodoMVC (add two, complete one, filter Completed, All, clear completed) on a few
// apps of npm `todomvc`; a documentation site (open, expand a section, follow three links, back);
// a sign-up form (submit empty, fill five fields, choose a country, accept, submit). Each flow
// checks it reached its end (the same success for all three), so a lean answer that hid what
// the agent needed would fail here. Prints a Markdown table; judges nothing (bench/ only reports).
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import './daemon-bin.mjs'; // sets BB_BIN before the harness is imported

const { startDaemon, launchBrowser, CHROMIUM } = await import('../tests/e2e/support/harness.mjs');
const { startStaticServer, NODE_MODULES } = await import('../tests/e2e/support/realsites.mjs');
const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');
const { encode } = await import('gpt-tokenizer');

const APPS = (process.env.APPS || 'vanillajs,backbone,react').split(',');

// ---- the pages of the documentation and form flows ----
const nav = '<nav><ul>' + ['Introduction', 'Installation', 'Configuration', 'API reference', 'FAQ'].map((t) => `<li><a href="/docs/${t.toLowerCase().replace(/ /g, '-')}.html">${t}</a></li>`).join('') + '</ul></nav>';
const para = (topic, i) => `<p>${topic}, part ${i}: the daemon keeps every page an agent saw, answers each call once the browser has acted and sent the page after it, and never leaves the loopback interface. Settings are read once at start; a wrong one is refused with the line and the reason.</p>`;
const docPage = (title) => `<!doctype html><meta charset="utf-8"><title>${title} — Docs</title><header><h1>Bridge docs</h1><input placeholder="Search the docs"></header>${nav}<main><h1>${title}</h1>${Array.from({ length: 8 }, (_, i) => para(title, i + 1)).join('')}
<details><summary>More about ${title}</summary>${Array.from({ length: 4 }, (_, i) => para(title + ' (more)', i + 1)).join('')}</details>
<h2>See also</h2><ul><li><a href="/docs/faq.html">FAQ</a></li><li><a href="/docs/api-reference.html">API reference</a></li></ul></main><footer><p>© the authors. Built offline.</p></footer>`;
const FORM = `<!doctype html><meta charset="utf-8"><title>Sign up</title><h1>Create your account</h1><p>All fields are required.</p>
<form id="f" novalidate>
<p><label>Full name <input name="name"></label> <span class="err" id="e-name"></span></p>
<p><label>Email <input name="email" type="email"></label> <span class="err" id="e-email"></span></p>
<p><label>Password <input name="password" type="password"></label> <span class="err" id="e-password"></span></p>
<p><label>Company <input name="company"></label> <span class="err" id="e-company"></span></p>
<p><label>Phone <input name="phone"></label> <span class="err" id="e-phone"></span></p>
<p><label>Country <select name="country"><option value="">Choose…</option><option>France</option><option>Germany</option><option>Japan</option></select></label> <span class="err" id="e-country"></span></p>
<p><label><input type="checkbox" name="terms"> I accept the terms</label> <span class="err" id="e-terms"></span></p>
<p><button type="submit">Create account</button></p></form><div id="done"></div>
<footer><p>We never share your data. ${'Privacy text. '.repeat(40)}</p></footer>
<script>
const f = document.getElementById('f');
f.addEventListener('submit', (e) => {
  e.preventDefault();
  let bad = 0;
  for (const n of ['name', 'email', 'password', 'company', 'phone', 'country']) { const v = f.elements[n].value.trim(); document.getElementById('e-' + n).textContent = v ? '' : 'Required.'; bad += !v; }
  document.getElementById('e-terms').textContent = f.elements.terms.checked ? '' : 'Please accept the terms.'; bad += !f.elements.terms.checked;
  if (!bad) { f.hidden = true; document.getElementById('done').innerHTML = '<h2>Welcome, ' + f.elements.name.value.replace(/[<&]/g, '') + '!</h2><p>Your account is ready.</p>'; }
});
</script>`;

// The pages, each run on its own loopback port (its own origin: no localStorage left by another run).
const startSite = () => startStaticServer({
  roots: { '/examples/': path.join(NODE_MODULES, 'todomvc', 'examples') + '/', '/': path.join(NODE_MODULES, 'todomvc') + '/' },
  extra: (req, res, url) => {
    let body = null;
    const m = url.pathname.match(/^\/docs\/([a-z-]+)\.html$/);
    if (m) body = docPage(m[1].replace(/-/g, ' ').replace(/^./, (c) => c.toUpperCase()).replace('Api', 'API'));
    if (url.pathname === '/form.html') body = FORM;
    if (body === null) return false;
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
    res.end(body);
    return true;
  },
});

// ---- the flows: steps an agent takes, and what must be true at the end ----
const todo = (app) => ({
  name: `TodoMVC ${app}`,
  steps: [
    { open: `/examples/${app}/index.html` },
    { type: 'What needs to be done?', text: 'Buy milk', submit: true },
    { type: 'What needs to be done?', text: 'Walk dog', submit: true },
    { check: 'Buy milk' },
    { click: 'Completed', role: 'link' },
    { click: 'All', role: 'link' },
    { click: 'Clear completed', role: 'button' },
  ],
  done: (text) => /Walk dog/.test(text) && !/Buy milk/.test(text),
});
const FLOWS = [
  ...APPS.map(todo),
  {
    name: 'documentation',
    steps: [
      { open: '/docs/introduction.html' },
      { click: 'More about Introduction', role: 'summary' },
      { click: 'Installation', role: 'link', nav: true },
      { click: 'Configuration', role: 'link', nav: true },
      { back: true },
      { click: 'API reference', role: 'link', nav: true },
    ],
    done: (text) => /API reference, part 8/.test(text),
  },
  {
    name: 'sign-up form',
    steps: [
      { open: '/form.html' },
      { click: 'Create account', role: 'button' },
      { type: 'Full name', text: 'Ada Lovelace' },
      { type: 'Email', text: 'ada@example.org' },
      { type: 'Password', text: 'correct horse battery' },
      { type: 'Company', text: 'Analytical Engines' },
      { type: 'Phone', text: '+44 20 1234 5678' },
      { select: 'Country', value: 'France' },
      { check: 'I accept the terms', label: true },
      { click: 'Create account', role: 'button' },
    ],
    done: (text) => /Welcome, Ada Lovelace!/.test(text),
  },
];

// ---- counting ----
const bytes = (s) => Buffer.byteLength(s, 'utf8');
const tokens = (s) => encode(s).length;
const textOf = (r) => (r.content || []).filter((c) => c.type === 'text').map((c) => c.text).join('\n');

// Apply a page.changes diff (docs/api.md) to the Markdown the agent holds: how an agent that
// received only changes keeps the page it sees.
function applyChanges(md, diff) {
  if (!diff) return md;
  const a = md.split('\n');
  const out = [];
  let ai = 0;
  const lines = diff.split('\n');
  lines.pop();
  for (let i = 0; i < lines.length;) {
    const h = lines[i].match(/^@@ -(\d+),(\d+) \+\d+,\d+ @@$/);
    if (!h) throw new Error(`bad hunk header: ${lines[i]}`);
    const start = Number(h[2]) === 0 ? Number(h[1]) : Number(h[1]) - 1;
    while (ai < start) out.push(a[ai++]);
    for (i++; i < lines.length && !lines[i].startsWith('@@'); i++) {
      const k = lines[i][0], t = lines[i].slice(1);
      if (k === ' ' || k === '-') { if (a[ai] !== t) throw new Error(`diff does not fit at line ${ai + 1}`); ai++; }
      if (k !== '-') out.push(t);
    }
  }
  while (ai < a.length) out.push(a[ai++]);
  return out.join('\n');
}

// The bridge through its /mcp endpoint, in one MCP session (its own "last page" memory).
async function bridgeAgent(daemon, clientId, snapshot) {
  const client = new Client({ name: `bytes-${snapshot}`, version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${daemon.httpUrl}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${daemon.token}` } } }));
  let page = '';
  const call = async (name, args) => {
    const r = await client.callTool({ name, arguments: { client_id: clientId, snapshot, ...args } });
    if (r.isError) throw new Error(`${name} ${JSON.stringify(args)}: ${textOf(r)}`);
    const sc = r.structuredContent?.page;
    const t = r.content.find((c) => c.type === 'text' && c.text.startsWith('Page: '))?.text || '';
    if (sc && typeof sc === 'object') {
      const body = t.replace(/^(?:.*\n){3}/, '');
      if (/^\nChanges since/.test(body)) page = applyChanges(page, body.replace(/^\n.*\n/, ''));
      else if (!/^\nNo changes/.test(body)) page = body.replace(/^\n/, '');
    }
    return { read: textOf(r), wire: JSON.stringify(r) };
  };
  // The ref of the checkbox in the same list item as a text (how a model reads the Markdown).
  const boxOf = (text, label) => {
    if (label) return text;
    const lines = page.split('\n');
    const i = lines.findIndex((l) => l.includes(text));
    for (let j = i; j >= 0 && j > i - 3; j--) { const m = lines[j].match(/\[checkbox[^\]]*?\b(e\d+)\]/); if (m) return m[1]; }
    throw new Error(`no checkbox next to ${text} in:\n${page}`);
  };
  return {
    name: `bridge ${snapshot}`,
    open: (url) => call('browser_open_url', { url }),
    type: (s) => call('browser_type', { target: s.type, text: s.text, submit: !!s.submit }),
    click: (s) => call('browser_click', { target: s.click }),
    check: (s) => call('browser_click', { target: boxOf(s.check, s.label) }),
    select: (s) => call('browser_select_option', { target: s.select, value: s.value }),
    back: () => call('browser_back', {}),
    page: () => page,
    close: () => client.close(),
  };
}

// Playwright MCP over stdio; its snapshot files go to a private directory.
async function playwrightAgent() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bb-bytes-pw-'));
  const cfg = path.join(dir, 'config.json');
  writeFileSync(cfg, JSON.stringify({ browser: { browserName: 'chromium', launchOptions: { executablePath: CHROMIUM, headless: true, args: ['--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-gpu', '--window-size=1000,700'] } } }));
  const args = [path.join(NODE_MODULES, '@playwright/mcp/cli.js'), '--executable-path', CHROMIUM, '--headless', '--isolated', '--config', cfg, '--output-dir', path.join(dir, 'out'), '--viewport-size', '1000x700'];
  if (process.getuid?.() === 0) args.push('--no-sandbox');
  const client = new Client({ name: 'bytes-playwright', version: '1' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args, cwd: dir, stderr: 'ignore' }));
  let snap = '';
  const call = async (name, a) => {
    const r = await client.callTool({ name, arguments: a });
    const text = textOf(r);
    if (r.isError) throw new Error(`${name} ${JSON.stringify(a)}: ${text}`);
    let read = text;
    const inline = text.match(/```yaml\n([\s\S]*?)```/);
    const link = text.match(/\[Snapshot\]\(([^)]+\.yml)\)/);
    if (link) { const file = readFileSync(path.resolve(dir, link[1]), 'utf8'); snap = file; read += '\n' + file; }
    else if (inline) snap = inline[1];
    return { read, wire: JSON.stringify(r) + (link ? readFileSync(path.resolve(dir, link[1]), 'utf8') : '') };
  };
  // The ref of the element whose line names it, of a role when given.
  const ref = (name, role) => {
    const lines = snap.split('\n');
    const q = JSON.stringify(name);
    let l = lines.find((x) => (!role || x.includes(`- ${role} `)) && x.includes(q) && /\[ref=\w+\]/.test(x));
    if (!l && role === 'summary') l = lines.find((x) => x.includes(name) && /\[ref=\w+\]/.test(x));
    if (!l) l = lines.find((x) => x.includes(q) && /\[ref=\w+\]/.test(x));
    if (!l) l = lines.find((x) => (!role || x.includes(`- ${role} `)) && x.includes(q.slice(0, -1)) && /\[ref=\w+\]/.test(x)); // "Clear completed (1)"
    if (!l) throw new Error(`no ${role || 'element'} ${q} in the Playwright snapshot:\n${snap}`);
    return l.match(/\[ref=(\w+)\]/)[1];
  };
  const boxOf = (text, label) => {
    if (label) return ref(text, 'checkbox');
    const lines = snap.split('\n');
    const i = lines.findIndex((l) => l.includes(text));
    for (let j = i; j >= 0 && j > i - 4; j--) { const m = lines[j].match(/- checkbox[^\n]*\[ref=(\w+)\]/); if (m) return m[1]; }
    for (let j = i; j < lines.length && j < i + 4; j++) { const m = lines[j].match(/- checkbox[^\n]*\[ref=(\w+)\]/); if (m) return m[1]; }
    throw new Error(`no checkbox next to ${text} in:\n${snap}`);
  };
  // When the element is not in the last snapshot yet (an app that renders after the navigation
  // answered, as React's in-browser JSX build does), the agent waits a second and looks again, as a
  // model would: those answers count towards the step.
  const need = async (find, act) => {
    let extra = { read: '', wire: '' };
    for (let i = 0; ; i++) {
      let target;
      try { target = find(); } catch (e) {
        if (i >= 5) throw e;
        const w = await call('browser_wait_for', { time: 1 });
        const s = await call('browser_snapshot', {});
        if (!/\[Snapshot\]\(/.test(s.read)) { const y = s.read.match(/```yaml\n([\s\S]*?)```/); if (y) snap = y[1]; }
        extra = { read: extra.read + w.read + '\n' + s.read, wire: extra.wire + w.wire + s.wire };
        continue;
      }
      const r = await act(target);
      return { read: extra.read + r.read, wire: extra.wire + r.wire };
    }
  };
  return {
    name: 'playwright mcp',
    open: (url) => call('browser_navigate', { url }),
    type: (s) => need(() => ref(s.type, 'textbox'), (t) => call('browser_type', { element: s.type, target: t, text: s.text, submit: !!s.submit })),
    click: (s) => need(() => ref(s.click, s.role), (t) => call('browser_click', { element: s.click, target: t })),
    check: (s) => need(() => boxOf(s.check, s.label), (t) => call('browser_click', { element: s.check, target: t })),
    select: (s) => need(() => ref(s.select, 'combobox'), (t) => call('browser_select_option', { element: s.select, target: t, values: [s.value] })),
    back: () => call('browser_navigate_back', {}),
    page: () => snap,
    close: async () => { await client.close(); rmSync(dir, { recursive: true, force: true }); },
  };
}

// Run one flow with one agent: per step {kind, read bytes, tokens, wire bytes}, and whether it ended well.
async function runFlow(agent, flow) {
  const steps = [];
  let ok = false, error = null;
  const site = await startSite();
  try {
    for (const s of flow.steps) {
      const kind = s.open ? 'open' : s.back ? 'back' : s.nav ? 'navigate' : 'in-page';
      let r;
      if (s.open) r = await agent.open(site.url(s.open));
      else if (s.type) r = await agent.type(s);
      else if (s.check) r = await agent.check(s);
      else if (s.select) r = await agent.select(s);
      else if (s.back) r = await agent.back();
      else r = await agent.click(s);
      steps.push({ kind, read: bytes(r.read), tokens: tokens(r.read), wire: bytes(r.wire) });
    }
    ok = flow.done(agent.page());
    if (!ok) error = `did not reach the end state; the page the agent holds:\n${agent.page().slice(0, 2000)}`;
  } catch (e) {
    error = process.env.VERBOSE ? e.message : e.message.split('\n').slice(0, 3).join(' ');
  } finally {
    await site.close();
  }
  return { steps, ok, error };
}

const median = (a) => { if (!a.length) return 0; const s = [...a].sort((x, y) => x - y); const m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };
const kb = (n) => (n / 1024).toFixed(1);

let daemon, browser;
const agents = [];
const results = [];
try {
  daemon = await startDaemon({ kind: 'real' });
  browser = await launchBrowser({ daemon });
  await daemon.waitForBrowser(browser.clientId);
  agents.push(await bridgeAgent(daemon, browser.clientId, 'full'), await bridgeAgent(daemon, browser.clientId, 'auto'), await playwrightAgent());
  for (const flow of FLOWS) {
    for (const agent of agents) {
      const r = await runFlow(agent, flow);
      results.push({ flow: flow.name, agent: agent.name, ...r });
      if (r.error) console.error(`${flow.name} / ${agent.name}: ${r.error}`);
    }
  }
} finally {
  for (const a of agents) await a.close().catch(() => {});
  await browser?.close();
  await daemon?.close();
}

// ---- the table ----
const out = [];
out.push('| flow | agent | steps | done | total read KB | total tokens | median in-page answer KB (tokens) | median navigation answer KB | total on the wire KB |');
out.push('|---|---|---|---|---|---|---|---|---|');
for (const r of results) {
  const inPage = r.steps.filter((s) => s.kind === 'in-page');
  const navs = r.steps.filter((s) => s.kind !== 'in-page');
  const sum = (k) => r.steps.reduce((a, s) => a + s[k], 0);
  out.push(`| ${r.flow} | ${r.agent} | ${r.steps.length} | ${r.ok ? 'yes' : 'NO'} | ${kb(sum('read'))} | ${sum('tokens')} | ${kb(median(inPage.map((s) => s.read)))} (${median(inPage.map((s) => s.tokens))}) | ${kb(median(navs.map((s) => s.read)))} | ${kb(sum('wire'))} |`);
}
const all = (agent, kind) => results.filter((r) => r.agent === agent).flatMap((r) => r.steps).filter((s) => kind === 'in-page' ? s.kind === 'in-page' : true);
out.push('');
out.push('| agent | median in-page answer KB | all flows: read KB | tokens | flows done |');
out.push('|---|---|---|---|---|');
for (const a of ['bridge full', 'bridge auto', 'playwright mcp']) {
  const rs = results.filter((r) => r.agent === a);
  out.push(`| ${a} | ${kb(median(all(a, 'in-page').map((s) => s.read)))} | ${kb(all(a).reduce((x, s) => x + s.read, 0))} | ${all(a).reduce((x, s) => x + s.tokens, 0)} | ${rs.filter((r) => r.ok).length}/${rs.length} |`);
}
console.log(out.join('\n'));
