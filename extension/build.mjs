#!/usr/bin/env node
// Builds the unpacked extension into extension/dist/ (and, with --headless or
// --all, a variant in extension/dist-headless/ whose manifest grants <all_urls>
// up front, for the daemon's headless runtime and for automated tests).
//
//   node extension/build.mjs            -> extension/dist/
//   node extension/build.mjs --all      -> extension/dist/ and extension/dist-headless/
//   node extension/build.mjs --watch    -> rebuild dist/ on change
//
// The bundles are self-contained (esbuild); nothing is fetched at run time. The
// Markdown writer follows turndown's rules but is our own single DOM walk, for
// speed (see README.md, "Snapshot speed"); turndown stays a dev dependency as the
// benchmark baseline (bench/extmd.mjs).
import { build, context } from 'esbuild';
import { mkdir, readFile, writeFile, copyFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { iconPng } from './icon.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const args = new Set(process.argv.slice(2));
// --out DIR puts the build elsewhere (make builds into the build tree, so the source may be read-only).
const outArg = process.argv.indexOf('--out');
const outDir = outArg > 0 ? path.resolve(process.argv[outArg + 1]) : path.join(here, 'dist');

const entries = [
  { in: 'src/background/main.js', out: 'background.js', format: 'esm' },
  { in: 'src/content/main.js', out: 'content.js', format: 'iife' },
  { in: 'src/ui/options.js', out: 'options.js', format: 'esm' },
  { in: 'src/ui/popup.js', out: 'popup.js', format: 'esm' },
  { in: 'src/ui/popup-sessions.js', out: 'popup-sessions.js', format: 'esm' },
  // Registered to run at document_start in every frame (background/page-scripts.js).
  { in: 'src/page/isolated.js', out: 'page-isolated.js', format: 'iife' },
  { in: 'src/page/main-world.js', out: 'page-main.js', format: 'iife' },
];
const staticFiles = ['src/ui/options.html', 'src/ui/popup.html', 'src/ui/ui.css'];

// The daemon's limits (src/limits.h) as a module: `import { BB_X } from 'bb:limits.h'` gives every
// `#define BB_X <integer>` (or a product of integers) of that file, so that a limit the daemon and
// the extension share is written once (extension/src/shared/limits.js re-exports them).
function limitsFromHeader(text) {
  const out = {};
  for (const m of text.matchAll(/^#define\s+(BB_[A-Z0-9_]+)\s+([^\n]*?)\s*(?:\/\*.*)?$/gm)) {
    const expr = m[2].replace(/^\((.*)\)$/, '$1').trim();
    if (!/^\d+[uUlL]*(\s*\*\s*\d+[uUlL]*)*$/.test(expr)) continue;
    out[m[1]] = expr.split('*').reduce((a, f) => a * Number(f.trim().replace(/[uUlL]+$/, '')), 1);
  }
  return out;
}
const limitsPlugin = {
  name: 'bb-limits',
  setup(b) {
    b.onResolve({ filter: /^bb:limits\.h$/ }, () => ({ path: path.join(here, '..', 'src', 'limits.h'), namespace: 'bb-limits' }));
    b.onLoad({ filter: /.*/, namespace: 'bb-limits' }, async (a) => {
      const limits = limitsFromHeader(await readFile(a.path, 'utf8'));
      return { contents: Object.entries(limits).map(([k, v]) => `export const ${k} = ${v};`).join('\n'), loader: 'js', watchFiles: [a.path] };
    });
  },
};

function esbuildOptions(e, dir) {
  return {
    entryPoints: [path.join(here, e.in)],
    outfile: path.join(dir, e.out),
    bundle: true,
    format: e.format,
    platform: 'browser',
    target: ['chrome116'],
    minify: false,
    sourcemap: false,
    legalComments: 'inline',
    logLevel: 'warning',
    define: { 'process.env.NODE_ENV': '"production"' },
    plugins: [limitsPlugin],
  };
}

async function writeStatic(dir, { headless }) {
  await mkdir(path.join(dir, 'icons'), { recursive: true });
  for (const f of staticFiles) await copyFile(path.join(here, f), path.join(dir, path.basename(f)));
  for (const s of [16, 32, 48, 128]) await writeFile(path.join(dir, 'icons', `icon${s}.png`), iconPng(s));
  const manifest = JSON.parse(await readFile(path.join(here, 'manifest.json'), 'utf8'));
  if (headless) {
    // Same key (so the same ID), but host access granted at install time: there is
    // no user to click "Grant" in a headless browser.
    manifest.host_permissions = manifest.optional_host_permissions;
    delete manifest.optional_host_permissions;
  }
  await writeFile(path.join(dir, 'manifest.json'), JSON.stringify(manifest, null, 2) + '\n');
}

async function buildInto(dir, opts) {
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  await Promise.all(entries.map((e) => build(esbuildOptions(e, dir))));
  await writeStatic(dir, opts);
}

if (args.has('--watch')) {
  await mkdir(outDir, { recursive: true });
  await writeStatic(outDir, { headless: false });
  for (const e of entries) await (await context(esbuildOptions(e, outDir))).watch();
  console.log('watching; output in', outDir);
} else {
  await buildInto(outDir, { headless: false });
  console.log('built', path.relative(process.cwd(), outDir) || outDir);
  if (args.has('--headless') || args.has('--all')) {
    const hd = path.join(here, 'dist-headless');
    await buildInto(hd, { headless: true });
    console.log('built', path.relative(process.cwd(), hd) || hd);
  }
}
