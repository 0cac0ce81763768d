// `configure && make distcheck` (or `make dist`) in a build tree where nothing was built yet: the
// tarball's prebuilt extension and dashboard are built first, not asked for.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const src = process.env.BB_SRCDIR;
const build = process.env.BB_BUILDDIR;
// The bundles need esbuild: from the source tree's node_modules or the one make distcheck lends.
function nodeModules() {
  if (src && fs.existsSync(path.join(src, 'node_modules/esbuild'))) return path.join(src, 'node_modules');
  if (!build) return null;
  const m = fs.readFileSync(path.join(build, 'Makefile'), 'utf8').match(/^BB_NODE_MODULES = (.+)$/m);
  return m && fs.existsSync(path.join(m[1].trim(), 'esbuild')) ? m[1].trim() : null;
}
const mods = nodeModules();
const skip = !src || !build ? 'BB_SRCDIR/BB_BUILDDIR not set (run through make check)'
  : !fs.existsSync(path.join(src, 'configure')) ? 'no configure script in the source tree'
  : !mods ? 'no node_modules with esbuild to build the bundles with' : false;

test('make distdir in a freshly configured build tree builds the extension and dashboard for the tarball', { skip, timeout: 300_000 }, () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'bb-distfresh-'));
  try {
    execFileSync(path.join(src, 'configure'), ['-q', `BB_NODE_MODULES=${mods}`], { cwd: tmp, stdio: 'pipe' });
    assert.ok(!fs.existsSync(path.join(tmp, 'extension-dist/manifest.json')), 'configure built the extension already: this test checks nothing');
    execFileSync('make', ['-s', 'distdir', 'distdir=fresh'], { cwd: tmp, stdio: 'pipe' });
    for (const f of ['fresh/prebuilt/extension/manifest.json', 'fresh/prebuilt/extension/background.js',
      'fresh/prebuilt/www/index.html', 'fresh/prebuilt/www/app.js']) {
      assert.ok(fs.existsSync(path.join(tmp, f)), `${f} is not in the distdir`);
    }
  } catch (e) {
    throw new Error(`make distdir in a fresh build tree failed: ${e.stderr ? String(e.stderr).trim().split('\n').slice(-3).join(' / ') : e.message}`);
  } finally {
    execFileSync('chmod', ['-R', 'u+w', tmp]);
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});
