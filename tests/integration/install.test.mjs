// `make install` puts every part where the daemon finds it without flags, and the systemd unit
// passes `systemd-analyze verify`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const build = process.env.BB_BUILDDIR;

test('make install DESTDIR=… installs the binary, man page, dashboard, extension, config and unit', { skip: !build && 'BB_BUILDDIR not set (run through make check)' }, () => {
  const dest = fs.mkdtempSync(path.join(os.tmpdir(), 'bb-install-'));
  execFileSync('make', ['-s', '-C', build, 'install', `DESTDIR=${dest}`], { stdio: 'pipe' });
  const prefix = execFileSync('sh', ['-c', `sed -n 's/^prefix = //p' "${build}/Makefile"`], { encoding: 'utf8' }).trim();
  const root = path.join(dest, prefix);
  const sysconf = execFileSync('sh', ['-c', `sed -n 's/^sysconfdir = //p' "${build}/Makefile"`], { encoding: 'utf8' }).trim().replace('${prefix}', prefix);
  for (const f of ['bin/browser-bridge', 'share/man/man1/browser-bridge.1', 'share/browser-bridge/www/index.html',
    'share/browser-bridge/www/app.js', 'share/browser-bridge/extension/manifest.json',
    'share/browser-bridge/extension/background.js', 'lib/systemd/user/browser-bridge.service',
    'share/bash-completion/completions/browser-bridge', 'share/zsh/site-functions/_browser-bridge'])
    assert.ok(fs.existsSync(path.join(root, f)), `${f} missing`);
  // The completions are the binary's own, for bash and zsh.
  assert.match(fs.readFileSync(path.join(root, 'share/bash-completion/completions/browser-bridge'), 'utf8'), /complete -o default -F _browser_bridge browser-bridge/);
  assert.match(fs.readFileSync(path.join(root, 'share/zsh/site-functions/_browser-bridge'), 'utf8'), /^#compdef browser-bridge/);
  assert.ok(fs.existsSync(path.join(dest, sysconf, 'browser-bridge/browser-bridge.conf')));
  const manifest = JSON.parse(fs.readFileSync(path.join(root, 'share/browser-bridge/extension/manifest.json'), 'utf8'));
  assert.ok(manifest.key, 'the installed extension keeps its pinned key');
  const unit = fs.readFileSync(path.join(root, 'lib/systemd/user/browser-bridge.service'), 'utf8');
  assert.match(unit, new RegExp(`ExecStart=${prefix}/bin/browser-bridge serve`));
  // The daemon's compiled-in defaults point at the installed dashboard and extension.
  const strings = execFileSync('sh', ['-c', `grep -ao '${prefix}/share/browser-bridge/[a-z]*' "${path.join(root, 'bin/browser-bridge')}" | sort -u`], { encoding: 'utf8' });
  assert.match(strings, /share\/browser-bridge\/www/);
  assert.match(strings, /share\/browser-bridge\/extension/);
  // scripts/bootstrap.sh test installs systemd and man-db, so the unit is always verified there.
  const sa = spawnSync('systemd-analyze', ['--version']);
  assert.equal(sa.status, 0, 'systemd-analyze is needed to verify the unit (apt-get install systemd man-db)');
  {
    // Verify a copy whose ExecStart points into DESTDIR (the unit itself names the final path).
    const copy = path.join(dest, 'browser-bridge.service');
    fs.writeFileSync(copy, unit.replace(`${prefix}/bin/browser-bridge`, path.join(root, 'bin/browser-bridge')));
    // MANPATH lets it check Documentation=man:browser-bridge(1) against the installed man page.
    const r = spawnSync('systemd-analyze', ['verify', copy], { encoding: 'utf8', env: { ...process.env, MANPATH: path.join(root, 'share/man') } });
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stderr.trim(), '', r.stderr);
  }
  fs.rmSync(dest, { recursive: true, force: true });
});
