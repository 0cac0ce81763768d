// `scripts/bootstrap.sh install` installs only the npm packages that build the extension and the
// dashboard: those are `dependencies` in package.json (installed by `npm ci --omit=dev`), and
// everything else (tests, bench) is a `devDependency`. Checked against what the build scripts and
// the bundled sources import, and against package-lock.json (which `npm ci` follows).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const src = process.env.BB_SRCDIR || path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const have = fs.existsSync(path.join(src, 'package.json')) && fs.existsSync(path.join(src, 'package-lock.json'));
const skip = !have && 'package.json or package-lock.json not in the source tree';

// The bare module names a file imports (import … from 'x', import('x')).
function bareImports(file) {
  const text = fs.readFileSync(file, 'utf8');
  const out = new Set();
  for (const m of text.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*)['"]([^'"./][^'"]*)['"]/g)) {
    // node: builtins, and the build's own virtual modules (bb:limits.h, made from src/limits.h).
    if (/^[a-z]+:/.test(m[1])) continue;
    const parts = m[1].split('/');
    out.add(m[1].startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]);
  }
  return out;
}

function walk(dir, out = []) {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) walk(p, out);
    else if (/\.(m?js)$/.test(e.name)) out.push(p);
  }
  return out;
}

test('the build needs only package.json\'s dependencies, and the lockfile agrees', { skip }, () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(src, 'package.json'), 'utf8'));
  const deps = Object.keys(pkg.dependencies || {});
  const files = [path.join(src, 'extension/build.mjs'), path.join(src, 'www/build.mjs'),
    ...walk(path.join(src, 'extension/src')), ...walk(path.join(src, 'www/src'))];
  const needed = new Set();
  for (const f of files) for (const m of bareImports(f)) needed.add(m);
  assert.ok(needed.has('esbuild'), 'the build scripts no longer import esbuild: this test reads them wrongly');
  for (const m of needed) assert.ok(deps.includes(m), `${m} is imported by the build but is not in package.json's dependencies (npm ci --omit=dev would not install it)`);
  for (const d of deps) assert.ok(needed.has(d), `${d} is in dependencies but the build does not import it: make it a devDependency`);
  for (const d of deps) assert.ok(!(pkg.devDependencies || {})[d], `${d} is in both dependencies and devDependencies`);

  const lock = JSON.parse(fs.readFileSync(path.join(src, 'package-lock.json'), 'utf8'));
  const root = lock.packages[''];
  assert.deepEqual(root.dependencies || {}, pkg.dependencies, 'package-lock.json\'s dependencies differ from package.json\'s (npm install --package-lock-only)');
  assert.deepEqual(root.devDependencies || {}, pkg.devDependencies || {}, 'package-lock.json\'s devDependencies differ from package.json\'s');
  for (const d of deps) {
    const e = lock.packages[`node_modules/${d}`];
    assert.ok(e, `${d} is not in package-lock.json`);
    assert.ok(!e.dev, `package-lock.json marks ${d} as dev-only: npm ci --omit=dev would skip it`);
  }
});

test('bootstrap installs the test packages only in test mode', { skip: !fs.existsSync(path.join(src, 'scripts/bootstrap.sh')) && 'no scripts/bootstrap.sh' }, () => {
  const sh = fs.readFileSync(path.join(src, 'scripts/bootstrap.sh'), 'utf8');
  const npmLines = sh.split('\n').filter((l) => /^\s*npm ci\b/.test(l));
  assert.ok(npmLines.some((l) => /--omit=dev\b/.test(l)), 'no `npm ci --omit=dev` for install mode');
  assert.ok(npmLines.some((l) => !/--omit=/.test(l)), 'no plain `npm ci` for test mode');
  assert.match(sh, /if \[ "\$mode" = test \]; then\s*\n\s*npm ci (?!.*--omit)/, 'test mode does not run the plain npm ci');
});
