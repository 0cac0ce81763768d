#!/bin/sh
# Integration and end-to-end tests: the real binary, driven over HTTP and WebSocket by Node's test
# runner (scripted browser peers, real Chromium with the real extension, real nginx, MCP SDK client).
set -eu
src=${BB_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
node=${NODE:-node}
if [ ! -d "$src/node_modules/ws" ]; then
	echo "tests/integration.sh: node_modules missing: run 'npm ci' in $src first" >&2
	exit 99
fi
cd "$src"
# Node prints "# pass N" / "# fail N"; echo the plain summary line CI reads as well.
out=${BB_BUILDDIR:-$src}/tests/node-tests.log
mkdir -p "$(dirname "$out")"
set +e
# The idle test mostly waits (40 s): start it first, so the others run beside it.
set -- tests/e2e/idle.test.mjs
for f in tests/integration/*.test.mjs tests/e2e/*.test.mjs; do
	[ "$f" = tests/e2e/idle.test.mjs ] || set -- "$@" "$f"
done
"$node" --test --test-concurrency=2 --test-reporter=spec --test-reporter-destination=stdout \
	--test-reporter=tap --test-reporter-destination="$out.tap" "$@"
rc=$?
set -e
pass=$(sed -n 's/^# pass \([0-9]*\)$/\1/p' "$out.tap" | tail -n 1)
fail=$(sed -n 's/^# fail \([0-9]*\)$/\1/p' "$out.tap" | tail -n 1)
skip=$(sed -n 's/^# skipped \([0-9]*\)$/\1/p' "$out.tap" | tail -n 1)
echo "node tests: ${pass:-0} passed, ${fail:-0} failed, ${skip:-0} skipped"
exit $rc
