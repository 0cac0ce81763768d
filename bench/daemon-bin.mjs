// The daemon that bench/actions.mjs, bytes.mjs and pageload.mjs run: BB_BIN when set, else BB,
// else the release build bench/run makes (bench/.build), else a build tree's, else the one on the
// PATH. Imported first: it sets BB_BIN, which the e2e harness (tests/e2e/support/harness.mjs)
// reads when those scripts import it.
import path from 'node:path';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const TOP = path.resolve(HERE, '..');
if (!process.env.BB_BIN) {
  const cand = [process.env.BB, path.join(HERE, '.build/browser-bridge'), path.join(TOP, 'build-check/browser-bridge'), path.join(TOP, 'build/browser-bridge'), path.join(TOP, 'browser-bridge')];
  process.env.BB_BIN = cand.find((p) => p && existsSync(p)) || 'browser-bridge';
}
