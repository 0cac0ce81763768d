// Page -> Markdown on a ~1 MB real-world-like HTML page in headless Chromium.
//
// Baseline (always): turndown + turndown-plugin-gfm run inside the page, the usual way an
// extension converts (what the seed design names). Extension row (when extension/dist/content.js
// exists): the real content bundle is injected into the same page with a stub `chrome` object and
// its converter is timed, found under the first of HOOKS that exists. The extension engineer can
// make the row live by exposing one of them from the content script (see bench/README.md).
//
// Prints:  "turndown MS", "extension MS" (medians of 5 after a warm-up), "note TEXT", "bytes N".
import { chromium } from 'playwright-core';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const top = path.resolve(here, '..');
const nm = path.join(top, 'node_modules');
// The content script's own entry point: __browserBridge.run('snapshot') -> {ok, markdown, ...}.
const HOOKS = ['__browserBridge.run'];

// ---- a deterministic, messy, ~1 MB page: nav, article, tables, lists, code, forms, hidden stuff
let seed = 12345;
const rnd = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32);
const words = 'account address agent article banner browser button cart checkout click comment contact cookie delivery help home invoice login menu news order page payment policy price privacy product profile rating return review search settings share shipping submit table terms'.split(' ');
const w = (n) => Array.from({ length: n }, () => words[(rnd() * words.length) | 0]).join(' ');
function page() {
  const out = ['<!doctype html><html><head><meta charset="utf-8"><title>Shop - Orders</title>'];
  out.push('<style>' + '.c{color:red}'.repeat(3000) + '</style>');
  out.push('<script>var x=' + JSON.stringify(w(3000)) + ';</script></head><body>');
  out.push('<header><nav><ul>');
  for (let i = 0; i < 300; i++) out.push(`<li class="nav-item"><a href="/cat/${i}" title="${w(2)}"><span>${w(2)}</span></a></li>`);
  out.push('</ul></nav><form action="/search"><input name="q" placeholder="Search"><button>Search</button></form></header><main>');
  let section = 0;
  while (out.reduce((a, s) => a + s.length, 0) < 1_000_000) {
    section++;
    out.push(`<section id="s${section}"><h2>${w(4)}</h2>`);
    for (let p = 0; p < 6; p++)
      out.push(`<div class="card"><div class="inner"><p>${w(30)} <a href="/p/${section}/${p}">${w(3)}</a> <strong>${w(2)}</strong> <em>${w(2)}</em> <code>${w(1)}()</code> ${w(25)}</p></div></div>`);
    out.push('<ul>' + Array.from({ length: 8 }, (_, i) => `<li>${w(6)} <a href="/i/${i}">${w(1)}</a></li>`).join('') + '</ul>');
    if (section % 3 === 0) {
      out.push('<table><thead><tr><th>Order</th><th>Date</th><th>Item</th><th>Price</th><th>Status</th></tr></thead><tbody>');
      for (let r = 0; r < 25; r++) out.push(`<tr><td>#${section}${r}</td><td>2026-11-${(r % 28) + 1}</td><td>${w(3)}</td><td>$${(rnd() * 100).toFixed(2)}</td><td><span class="badge">${w(1)}</span></td></tr>`);
      out.push('</tbody></table>');
    }
    if (section % 5 === 0) out.push(`<pre><code class="language-js">function f${section}(a, b) {\n  return a + b; // ${w(5)}\n}\n</code></pre>`);
    if (section % 7 === 0) out.push(`<div style="display:none">${w(80)}</div><img src="/img/${section}.png" alt="${w(3)}">`);
    out.push(`<blockquote>${w(20)}</blockquote></section>`);
  }
  out.push('</main><footer>' + Array.from({ length: 100 }, (_, i) => `<a href="/f/${i}">${w(2)}</a>`).join(' | ') + '</footer></body></html>');
  return out.join('\n');
}

const html = page();
console.log('bytes', html.length);
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', headless: true, args: ['--no-sandbox'] });
try {
  const ctx = await browser.newContext();
  const pg = await ctx.newPage();
  await pg.setContent(html, { waitUntil: 'load' });

  await pg.addScriptTag({ path: path.join(nm, 'turndown/dist/turndown.js') });
  await pg.addScriptTag({ path: path.join(nm, 'turndown-plugin-gfm/dist/turndown-plugin-gfm.js') });
  const td = await pg.evaluate(() => {
    const times = []; let len = 0;
    for (let i = 0; i < 6; i++) {
      const t = performance.now();
      const s = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced' }).use(turndownPluginGfm.gfm)
        .remove(['script', 'style', 'noscript']).turndown(document.body);
      times.push(performance.now() - t); len = s.length;
    }
    times.shift(); times.sort((a, b) => a - b);
    return { ms: times[2], len };
  });
  console.log('turndown', td.ms.toFixed(1), 'markdown_bytes', td.len);

  const dist = [path.join(top, 'extension/dist-headless/content.js'), path.join(top, 'extension/dist/content.js')].find(existsSync);
  if (!dist) { console.log('note extension not built (extension/dist/content.js missing)'); process.exit(0); }
  const pg2 = await ctx.newPage();
  await pg2.addInitScript(() => {
    const noop = () => {}; const ev = { addListener: noop, removeListener: noop, hasListener: () => false };
    globalThis.chrome = { runtime: { id: 'bench', onMessage: ev, onConnect: ev, sendMessage: () => Promise.resolve(), connect: () => ({ onMessage: ev, onDisconnect: ev, postMessage: noop }), getURL: (p) => p }, storage: { local: { get: async () => ({}), set: async () => {} }, onChanged: ev } };
  });
  await pg2.setContent(html, { waitUntil: 'load' });
  await pg2.addScriptTag({ content: readFileSync(dist, 'utf8') });
  const r = await pg2.evaluate(async (hooks) => {
    const get = (p) => p.split('.').reduce((o, k) => (o == null ? undefined : o[k]), globalThis);
    const name = hooks.find((h) => typeof get(h) === 'function');
    if (!name) return { note: 'content.js exposes none of ' + hooks.join(', ') };
    const fn = () => get(name)('snapshot', {}); const times = []; let len = 0;
    for (let i = 0; i < 6; i++) {
      const t = performance.now(); let s = await fn(); times.push(performance.now() - t);
      if (s && typeof s === 'object') s = s.markdown; len = (s || '').length;
    }
    times.shift(); times.sort((a, b) => a - b);
    return { ms: times[2], len, name };
  }, HOOKS);
  if (r.note) console.log('note', r.note);
  else console.log('extension', r.ms.toFixed(1), 'markdown_bytes', r.len, 'via', r.name);
} finally {
  await browser.close();
}
