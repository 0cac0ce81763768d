// Support for the real-site suite (tests/e2e/realsites.test.mjs): static servers for pages of
// real libraries installed from npm (node_modules/…) and the minimal HTML shells in
// tests/fixtures/realsites/ that load them, each server on its own loopback port (= its own origin).
//
//   startStaticServer({ roots, delayMs, delayMatch })
//     roots: { '/prefix/': '/abs/dir' } -- a request for /prefix/a/b is the file dir/a/b.
//     delayMs: every file whose path matches delayMatch (default: all) is answered that late, to
//     model a slow network (readiness tests). state.inflight counts the requests not yet answered, state.inflightCode those of
//     scripts, modules and stylesheets.
//   todomvcApps() -> the TodoMVC examples that the npm package ships in runnable (built) form.
//   startBundled(entries) -> shells bundled at test time (React, ESM with bare imports), served at
//     /bundle/ beside /shells/, and the managed browser; answerHelpers(getEnv) -> the helpers the
//     suites read tool answers with.
import http from 'node:http';
import assert from 'node:assert/strict';
import { readFile, stat, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from './harness.mjs';

export const NODE_MODULES = path.join(ROOT, 'node_modules');
export const SHELLS = path.join(ROOT, 'tests', 'fixtures', 'realsites');

const TYPES = {
  '.html': 'text/html; charset=utf-8', '.htm': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8', '.json': 'application/json',
  '.png': 'image/png', '.gif': 'image/gif', '.jpg': 'image/jpeg', '.svg': 'image/svg+xml', '.woff': 'font/woff',
  '.woff2': 'font/woff2', '.ttf': 'font/ttf', '.ico': 'image/x-icon', '.map': 'application/json', '.dart': 'application/dart',
};

// Serve files below the given roots, read-only, no directory listing, never outside a root; those
// below a prefix in `cors` to any page that reads them (Access-Control-Allow-Origin: *, as CDNs).
export async function startStaticServer({ roots, delayMs = 0, delayMatch = () => true, extra, cors = [] } = {}) {
  const hits = [];
  const state = { inflight: 0, inflightCode: 0, served: 0 };
  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url, 'http://x');
    hits.push(url.pathname);
    const code = /\.(m?js|css)$/.test(url.pathname); // scripts, modules, stylesheets
    state.inflight++;
    if (code) state.inflightCode++;
    res.once('close', () => { state.inflight--; if (code) state.inflightCode--; state.served++; });
    try {
      if (extra && await extra(req, res, url)) return;
      const prefix = Object.keys(roots).filter((p) => url.pathname.startsWith(p)).sort((a, b) => b.length - a.length)[0];
      if (!prefix) { res.writeHead(404); return res.end('no such root'); }
      const base = roots[prefix];
      let file = path.join(base, decodeURIComponent(url.pathname.slice(prefix.length)));
      if (!file.startsWith(base)) { res.writeHead(403); return res.end(); }
      const st = await stat(file).catch(() => null);
      if (st?.isDirectory()) file = path.join(file, 'index.html');
      const body = await readFile(file).catch(() => null);
      if (!body) { res.writeHead(404); return res.end('not found'); }
      if (delayMs && delayMatch(url.pathname)) await new Promise((r) => setTimeout(r, delayMs));
      const headers = { 'content-type': TYPES[path.extname(file).toLowerCase()] || 'application/octet-stream', 'cache-control': 'no-store' };
      if (cors.some((p) => url.pathname.startsWith(p))) headers['access-control-allow-origin'] = '*';
      res.writeHead(200, headers);
      res.end(body);
    } catch (e) {
      if (!res.headersSent) res.writeHead(500);
      res.end(String(e.message));
    }
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${server.address().port}`;
  return { base, hits, state, url: (p) => base + p, close: () => new Promise((r) => { server.closeAllConnections?.(); server.close(r); }) };
}

// The examples of npm `todomvc` that run as shipped: an index.html whose local scripts and
// stylesheets all exist (apps that need a build step -- Dart, GWT, Meteor, Derby, a Brunch or
// Lumbar build -- ship without one and are reported as not runnable with the missing file).
export function todomvcApps() {
  requirePackages(['todomvc']);
  const dir = path.join(NODE_MODULES, 'todomvc', 'examples');
  const out = [];
  for (const name of readdirSync(dir).sort()) {
    const index = path.join(dir, name, 'index.html');
    if (!existsSync(index)) { out.push({ name, runnable: false, why: 'no index.html (needs a build step)' }); continue; }
    out.push({ name, runnable: true, path: `/examples/${name}/index.html` });
  }
  return out;
}

// Fail at once, in one clear sentence, when the npm packages of the pages are not installed.
export function requirePackages(names) {
  const missing = names.filter((n) => !existsSync(path.join(NODE_MODULES, n, 'package.json')));
  if (missing.length) throw new Error(`the real-site pages need the npm packages ${missing.join(', ')} (devDependencies): run 'npm ci' in ${ROOT}`);
}

// Wait for a condition by polling (bounded): the value, or a clear error.
export async function until(fn, { timeout = 10_000, interval = 50, what = 'condition' } = {}) {
  const t0 = Date.now();
  let last;
  for (;;) {
    try { const v = await fn(); if (v) return v; } catch (e) { last = e; }
    if (Date.now() - t0 > timeout) throw new Error(`timed out waiting for ${what}${last ? ': ' + last.message : ''}`);
    await new Promise((r) => setTimeout(r, interval));
  }
}

// One real daemon that runs and supervises its own headless Chromium with the real extension
// (`serve --headless`): the "managed headless browser" of issue 14, with no Playwright attached
// to the pages (Playwright would answer dialogs and emulate focus itself, hiding what the
// extension does). Returns { daemon, clientId, call(tool, params) , close() }.
export async function startManaged() {
  const { startDaemon, buildExtension, CHROMIUM } = await import('./harness.mjs');
  buildExtension();
  // The daemon puts Chromium's profile and the paired extension copy under $TMPDIR: a private
  // one, so that nothing cleaning /tmp/browser-bridge-headless-* in parallel can pull the
  // extension's files from under the running browser.
  const tmp = await mkdtemp(path.join(os.tmpdir(), 'bb-realsites-'));
  const saved = process.env.TMPDIR;
  process.env.TMPDIR = tmp;
  let daemon;
  try {
    daemon = await startDaemon({ kind: 'real', extraArgs: ['--headless', '--chromium', CHROMIUM, '--extension', path.join(ROOT, 'extension', 'dist')] });
  } finally {
    if (saved === undefined) delete process.env.TMPDIR; else process.env.TMPDIR = saved;
  }
  try {
    const b = await daemon.waitForBrowser(undefined, 30_000);
    return {
      daemon, clientId: b.client_id,
      call: (tool, params = {}) => daemon.call(tool, { client_id: b.client_id, ...params }),
      close: async () => { await daemon.close(); await rm(tmp, { recursive: true, force: true }); },
    };
  } catch (e) {
    await daemon.close();
    await rm(tmp, { recursive: true, force: true });
    throw e;
  }
}

// The ref of the element of a kind ("checkbox", "button" …) in the same list item as the first
// line (after the line containing `after`, if given) that contains text: how a reader of the
// Markdown finds the checkbox that belongs to a todo. The item runs from its "- " line to the next
// item or unindented line. Null if none.
export function refInItem(markdown, text, kind, { after } = {}) {
  let lines = markdown.split('\n');
  if (after) { const i = lines.findIndex((l) => l.includes(after)); if (i >= 0) lines = lines.slice(i + 1); }
  const at = lines.findIndex((l) => l.includes(text));
  if (at < 0) return null;
  let start = at;
  if (!/^\s*[-*] /.test(lines[at])) {
    for (let i = at - 1; i >= 0; i--) {
      if (/^\s*[-*] /.test(lines[i])) { start = i; break; }
      if (lines[i] && !/^\s/.test(lines[i])) break; // a paragraph: the text is not in a list item
    }
  }
  let end = at + 1;
  while (end < lines.length && !/^\s*[-*] /.test(lines[end]) && !(lines[end] && !/^\s/.test(lines[end]))) end++;
  const block = lines.slice(start, end).join('\n');
  const m = block.match(new RegExp(`\\[${kind}\\b[^\\]]*?\\b(e\\d+)\\]`));
  return m ? m[1] : null;
}

// The whole Markdown token ([checkbox checked e12]) of a ref, or ''.
export function tokenOf(markdown, ref) {
  const m = markdown.match(new RegExp(`\\[[^\\[\\]]*\\b${ref}\\]`));
  return m ? m[0] : '';
}

// Each of `entries` (tests/fixtures/realsites/NAME.js) bundled by esbuild into a temporary
// directory (NAME.js, and NAME.css when it imports stylesheets): { dir, remove() }.
export async function bundleEntries(entries, { define = {} } = {}) {
  const { build } = await import('esbuild');
  const dir = await mkdtemp(path.join(os.tmpdir(), 'bb-bundled-'));
  const remove = () => rm(dir, { recursive: true, force: true });
  try {
    await build({
      entryPoints: entries.map((n) => path.join(SHELLS, n + '.js')), bundle: true, outdir: dir, format: 'iife',
      define, nodePaths: [NODE_MODULES], logLevel: 'warning',
      // (the fonts a library's stylesheet points at: files beside the bundle)
      loader: { '.woff2': 'file', '.woff': 'file', '.ttf': 'file', '.eot': 'file' },
    });
  } catch (e) {
    await remove();
    throw e;
  }
  return { dir, remove };
}

// A suite whose shells need bundling (React and JSX-free entries, ESM with bare imports): the
// entries bundled (bundleEntries) and served at /bundle/NAME.js, the shells at /shells/, and the
// managed browser. close() undoes it.
export async function startBundled(entries, { define = {} } = {}) {
  const b = await bundleEntries(entries, { define });
  let srv = null;
  try {
    srv = await startStaticServer({ roots: { '/shells/': SHELLS + '/', '/bundle/': b.dir + '/' } });
    const env = await startManaged();
    return { env, srv, async close() { await env.close(); await srv.close(); await b.remove(); } };
  } catch (e) {
    await srv?.close();
    await b.remove();
    throw e;
  }
}

// What the real-site suites read a tool answer with; `getEnv()` gives the managed browser's
// environment once it is started. stateIn: the page's own state, which its shell renders into the
// Markdown as a line `State: {json}` (Markdown escapes undone).
export function answerHelpers(getEnv) {
  const msg = (r) => JSON.stringify(r.result?.error || r.result?.message || r.message || r.status);
  const md = (r) => r.page?.markdown || '';
  const lineOf = (m, re) => m.split('\n').find((l) => re.test(l)) || '';
  return {
    msg, md, lineOf,
    ok: (r, what = 'call') => assert.equal(r.status, 'success', `${what}: expected success, got ${r.http} ${msg(r)}\n${md(r).slice(0, 3000)}`),
    err: (r) => String(r.result?.error || r.message || ''),
    call: (tool, params) => getEnv().call(tool, params),
    stateIn(m) {
      const line = lineOf(m, /^State: \{/);
      assert.ok(line, `no state line in:\n${m}`);
      return JSON.parse(line.slice('State: '.length).replace(/\\([[\]_*])/g, '$1'));
    },
  };
}
