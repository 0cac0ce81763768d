#!/usr/bin/env node
// Builds the dashboard into www/dist/: index.html + app.js + app.css, self-contained
// (marked and DOMPurify are bundled; no CDN, no web fonts), and icons/icon{16,32}.png, the favicon:
// the extension's toolbar icon, drawn by the same code (extension/icon.mjs).
//   node www/build.mjs            production build (minified)
//   node www/build.mjs --dev      unminified with inline source maps
//   node www/build.mjs --watch    rebuild on change (implies --dev)
import * as esbuild from 'esbuild';
import { mkdir, rm, copyFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { iconPng } from '../extension/icon.mjs';

const here = dirname(fileURLToPath(import.meta.url));
// --out DIR puts the build elsewhere (make builds into the build tree, so srcdir may be read-only).
const outArg = process.argv.indexOf('--out');
const dist = outArg > 0 ? process.argv[outArg + 1] : join(here, 'dist');
const watch = process.argv.includes('--watch');
const dev = watch || process.argv.includes('--dev');

await rm(dist, { recursive: true, force: true });
await mkdir(dist, { recursive: true });

const FAVICON_SIZES = [16, 32]; // linked from index.html; 32 is also the header's mark (app.css)

const copyHtml = {
  name: 'copy-index-html',
  setup(build) {
    build.onEnd(async (result) => {
      if (result.errors.length !== 0) return;
      await copyFile(join(here, 'index.html'), join(dist, 'index.html'));
      await mkdir(join(dist, 'icons'), { recursive: true });
      for (const size of FAVICON_SIZES) await writeFile(join(dist, 'icons', `icon${size}.png`), iconPng(size));
    });
  },
};

const options = {
  // app.js and app.css (the CSS is its own entry point, not imported from JS).
  entryPoints: [
    { in: join(here, 'src/app.js'), out: 'app' },
    { in: join(here, 'src/app.css'), out: 'app' },
  ],
  outdir: dist,
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: ['chrome110', 'firefox115', 'safari16'],
  minify: !dev,
  sourcemap: dev ? 'inline' : false,
  legalComments: dev ? 'inline' : 'eof',
  charset: 'utf8',
  logLevel: 'info',
  plugins: [copyHtml],
  external: ['./icons/*'], // written by copyHtml below, not bundled
};

if (watch) {
  const ctx = await esbuild.context(options);
  await ctx.watch();
  console.log('watching www/src …');
} else {
  await esbuild.build(options);
}
