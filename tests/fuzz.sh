#!/bin/sh
# make check: build the libFuzzer targets (fuzz/) with clang and run each for a few seconds
# (BB_FUZZ_SECONDS, default 3) from its seed corpus, with a fixed seed so a run is repeatable.
# Without clang the step is skipped, saying so. Longer runs: see fuzz/README.
set -eu
src=${BB_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
build=${BB_BUILDDIR:-$src/build}
if ! command -v "${CC_FUZZ:-clang}" >/dev/null 2>&1; then
	echo "tests/fuzz.sh: SKIP: no clang, so the fuzz targets are not built or run (apt-get install clang)"
	exit 77
fi
out=$build/fuzz-out
CC=${CC_FUZZ:-clang} BUILD=$build OUT=$out sh "$src/fuzz/build.sh" >"$out.log" 2>&1 || {
	cat "$out.log" >&2
	echo "tests/fuzz.sh: the fuzz targets did not build" >&2
	exit 1
}
secs=${BB_FUZZ_SECONDS:-3}
# Run one target; its verdict goes to $out/$t.verdict.
run() {
	t=$1
	corpus=$out/corpus/$t
	mkdir -p "$corpus"
	seeds=""
	[ -d "$src/fuzz/corpus/$t" ] && seeds="$src/fuzz/corpus/$t"
	if "$out/fuzz_$t" -max_total_time="$secs" -seed="${BB_FUZZ_SEED:-1}" -print_final_stats=1 \
		-artifact_prefix="$out/$t-" "$corpus" $seeds >"$out/$t.log" 2>&1; then
		echo "fuzz_$t: $(sed -n 's/^stat::number_of_executed_units: *//p' "$out/$t.log" | tail -n 1) inputs in ${secs} s, clean" >"$out/$t.verdict"
	else
		{
			grep -E 'ERROR|runtime error|SUMMARY|Test unit written' "$out/$t.log" | head -n 5
			echo "fuzz_$t: FAILED (log: $out/$t.log)"
		} >"$out/$t.verdict"
	fi
}
failed=""
set -- jsonio config fcgiproto auth router mcp tools ws mddiff
while [ $# -gt 0 ]; do # two at a time: the machine has two cores
	run "$1" &
	[ $# -gt 1 ] && run "$2" &
	wait
	for t in "$1" ${2:-}; do
		cat "$out/$t.verdict"
		grep -q FAILED "$out/$t.verdict" && failed="$failed $t"
	done
	shift
	[ $# -gt 0 ] && shift
done
[ -z "$failed" ] || { echo "tests/fuzz.sh: failed:$failed" >&2; exit 1; }
