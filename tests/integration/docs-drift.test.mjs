// The docs follow the binary: every tool of the catalog (as `browser-bridge tools --json` gives it,
// the same as GET /api/tools) is in docs/api.md's tool table with its command-line name and in the
// man page; every command `browser-bridge --help` lists has an entry in the man page; claims this
// session retired stay retired. (Config keys in etc/browser-bridge.conf and the man page:
// tests/test_config.c, table_documented.)
//   BB_BIN=/path/to/browser-bridge BB_SRCDIR=. node --test tests/integration/docs-drift.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { BIN } from './support/harness.mjs';

const SRC = process.env.BB_SRCDIR || path.resolve(import.meta.dirname, '../..');
const read = (f) => fs.readFileSync(path.join(SRC, f), 'utf8');
// The man page as text: roff's \- is -, font changes (\fB, \fR, \fI, \fP) go.
const man = read('browser-bridge.1').replace(/\\-/g, '-').replace(/\\f[BIRP]/g, '');
const api = read('docs/api.md');
const run = (args) => execFileSync(BIN, args, { encoding: 'utf8' });

// tool name -> command-line name ("call" for those that have none), from the binary's own table.
function cliNames() {
  const m = new Map();
  for (const l of run(['tools']).trimEnd().split('\n').slice(1)) {
    const [name, cmd] = l.trim().split(/\s+/);
    m.set(name, cmd);
  }
  return m;
}

test('every catalog tool is in docs/api.md\'s tool table with its command, and in the man page', () => {
  const tools = JSON.parse(run(['tools', '--json'])).tools;
  const names = cliNames();
  assert.ok(tools.length >= 20);
  for (const t of tools) {
    const cmd = names.get(t.name);
    assert.ok(cmd, `${t.name} is not in \`browser-bridge tools\``);
    const want = cmd === 'call' ? `\`call ${t.name}\`` : `\`${cmd}\``;
    const row = api.split('\n').find((l) => l.startsWith(`| \`${t.name}\` |`));
    assert.ok(row, `docs/api.md's tool table has no row for ${t.name}`);
    assert.equal(row.split('|')[2].trim(), want, `docs/api.md: ${t.name}'s command line`);
    assert.ok(new RegExp(`\\b${t.name}\\b`).test(man), `the man page does not name ${t.name}`);
  }
  const rows = api.split('\n').filter((l) => /^\| `browser_[a-z_]+` \| `/.test(l)).map((l) => l.split('`')[1]);
  const known = new Set(tools.map((t) => t.name));
  assert.deepEqual(rows.filter((r) => !known.has(r)), [], 'docs/api.md lists tools the catalog does not have');
});

test('every command of `browser-bridge --help` has an entry in the man page', () => {
  const help = run(['--help']);
  const cmds = [...help.matchAll(/^ {2}([a-z][a-z-]*) {2,}/gm)].map((x) => x[1]);
  assert.ok(cmds.length >= 30, help);
  // An entry: a line of the man page that starts (after a macro such as .B, .BI, .BR) with the command.
  const entries = new Set();
  for (const l of man.split('\n')) {
    const m = l.match(/^(?:\.[A-Z]{1,2} +)?"?([a-z][a-z-]*)/);
    if (m) entries.add(m[1]);
    if (l.startsWith('.BR ')) // .BR back ", " forward ", " reload
      for (const x of l.replace(/"/g, '').matchAll(/(?:^\.BR |, +)([a-z][a-z-]*)/g)) entries.add(x[1]);
  }
  const missing = cmds.filter((c) => !entries.has(c));
  assert.deepEqual(missing, [], `the man page has no entry for ${missing.join(', ')}`);
});

test('claims this session retired: the default browser, screenshot format, event heartbeat', () => {
  const docs = { 'browser-bridge.1': man, 'docs/api.md': api, README: read('README'),
    'docs/protocol.md': read('docs/protocol.md'), 'www/README.md': read('www/README.md') };
  for (const [f, text] of Object.entries(docs)) {
    const flat = text.replace(/\s+/g, ' ');
    assert.doesNotMatch(flat, /most recently active/i, `${f}: the default browser is the first paired one (default_runtime), not the most recently active`);
    assert.doesNotMatch(flat, /heartbeat[^.]{0,40}every 15 ?s|15 ?s between (event-stream )?heartbeats/i, `${f}: the event heartbeat is every 5 s`);
    assert.doesNotMatch(flat, /screenshots? [^.]{0,60}(shown|are|as) (a )?(from `)?data:image\/png;base64[^.]{0,10} only|captures? [^.]{0,40} as a PNG\b/i, `${f}: screenshots are JPEG by default`);
  }
});
