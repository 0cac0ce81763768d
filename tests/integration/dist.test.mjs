// A packager's build: the release tarball (`make dist`) configured, built and installed on a PATH
// without Node.js must install a working daemon with its dashboard and extension.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from './support/harness.mjs';

const build = process.env.BB_BUILDDIR;

// A PATH with every directory of this one mirrored by symlinks, less node, npm and npx.
function pathWithoutNode(root) {
  const dirs = [];
  for (const [i, dir] of (process.env.PATH || '').split(':').entries()) {
    if (!dir || !fs.existsSync(dir)) continue;
    const shadow = path.join(root, `path${i}`);
    fs.mkdirSync(shadow);
    for (const name of fs.readdirSync(dir)) {
      if (['node', 'nodejs', 'npm', 'npx', 'corepack'].includes(name)) continue;
      try { fs.symlinkSync(path.join(dir, name), path.join(shadow, name)); } catch { /* duplicate */ }
    }
    dirs.push(shadow);
  }
  return dirs.join(':');
}

test('the release tarball builds and installs without Node.js, dashboard and extension included',
  { skip: !build && 'BB_BUILDDIR not set (run through make check)', timeout: 600_000 }, async () => {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'bb-dist-'));
    try {
      // A distdir of its own keeps this tarball apart from a `make dist` someone runs in the build tree.
      const name = `bb-dist-test-${process.pid}`;
      execFileSync('make', ['-s', '-C', build, 'dist-gzip', `distdir=${name}`], { stdio: 'pipe' });
      const tarball = `${tmp}/browser-bridge-dist.tar.gz`;
      fs.renameSync(path.join(build, `${name}.tar.gz`), tarball);
      const listing = execFileSync('tar', ['tzf', tarball], { encoding: 'utf8', maxBuffer: 64 << 20 });
      for (const f of ['prebuilt/extension/manifest.json', 'prebuilt/extension/background.js',
        'prebuilt/www/index.html', 'prebuilt/www/app.js', 'LICENSE', 'NEWS'])
        assert.match(listing, new RegExp(`^${name}/${f}$`, 'm'), `${f} is not in the tarball`);
      // Every file of the checkout reaches the tarball, but for git's and CI's own (a new test, fuzz
      // target or dashboard file left out of EXTRA_DIST fails here, not in a packager's build).
      const SRC = process.env.BB_SRCDIR || path.resolve(import.meta.dirname, '../..');
      let tracked = null;
      try {
        tracked = execFileSync('git', ['-C', SRC, 'ls-files'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], maxBuffer: 64 << 20 });
      } catch { /* not a git checkout (a tarball's own make check): nothing to compare with */ }
      if (tracked) {
        const shipped = new Set(listing.split('\n').map((l) => l.slice(name.length + 1)));
        const missing = tracked.trim().split('\n').filter(Boolean)
          .filter((f) => !f.startsWith('.ci/') && path.basename(f) !== '.gitignore' && !shipped.has(f));
        assert.deepEqual(missing, [], `tracked files missing from the tarball (EXTRA_DIST in Makefile.am): ${missing.join(' ')}`);
      }
      execFileSync('tar', ['xzf', tarball, '-C', tmp]);
      const src = path.join(tmp, name);
      const prefix = path.join(tmp, 'prefix');
      const env = { ...process.env, PATH: pathWithoutNode(tmp) };
      delete env.NODE;
      delete env.BB_NODE_MODULES;
      assert.throws(() => execFileSync('sh', ['-c', 'command -v node'], { env, stdio: 'pipe' }), 'node is still on PATH');
      const run = (cmd, args) => execFileSync(cmd, args, { cwd: src, env, encoding: 'utf8', stdio: 'pipe', maxBuffer: 64 << 20 });
      const conf = run('./configure', [`--prefix=${prefix}`]);
      assert.match(conf, /extension and dashboard: +prebuilt/, conf);
      run('make', ['-j2']);
      run('make', ['install']);
      const share = path.join(prefix, 'share');
      for (const f of ['browser-bridge/extension/manifest.json', 'browser-bridge/www/index.html',
        'doc/browser-bridge/README', 'doc/browser-bridge/api.md', 'doc/browser-bridge/LICENSE',
        'doc/browser-bridge/nginx/browser-bridge.conf', 'bash-completion/completions/browser-bridge',
        'zsh/site-functions/_browser-bridge'])
        assert.ok(fs.existsSync(path.join(share, f)), `${f} is not installed`);
      const man = fs.readFileSync(path.join(share, 'man/man1/browser-bridge.1'), 'utf8');
      assert.ok(man.includes(path.join(share, 'doc/browser-bridge')), 'the man page does not name the installed docs');

      // The installed daemon serves its installed dashboard with no flags pointing at it.
      const port = await freePort();
      const wsPort = await freePort();
      const d = spawn(path.join(prefix, 'bin/browser-bridge'), ['serve', '--http', `127.0.0.1:${port}`,
        '--ws', `127.0.0.1:${wsPort}`, '--db', path.join(tmp, 'h.db'), '--token-file', path.join(tmp, 'token'),
        '--config', '/dev/null'], { stdio: 'ignore' });
      try {
        let r;
        for (let i = 0; i < 200; i++) {
          try { r = await fetch(`http://127.0.0.1:${port}/`); break; } catch { await new Promise((ok) => setTimeout(ok, 50)); }
        }
        assert.ok(r, 'the installed daemon did not answer');
        assert.equal(r.status, 200);
        assert.match(await r.text(), /<html/i);
      } finally {
        d.kill('SIGTERM');
      }
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });
