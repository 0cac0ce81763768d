#!/bin/sh
# Build the libFuzzer targets with clang, ASan and UBSan, against a configured build tree (for
# autoconfig.h; default ./build). Not part of `make check`: fuzzing is open-ended.
#   sh fuzz/build.sh && fuzz/out/fuzz_jsonio -max_total_time=300 fuzz/corpus/jsonio
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
build=${BUILD:-$top/build}
[ -f "$build/autoconfig.h" ] || { echo "fuzz/build.sh: no $build/autoconfig.h: run configure there first (or set BUILD)" >&2; exit 1; }
out=$here/out
mkdir -p "$out"
CC=${CC:-clang}
flags="-g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -I$top/src -I$build"
$CC $flags -o "$out/fuzz_jsonio" "$here/fuzz_jsonio.c" "$top/src/jsonio.c" "$top/src/util.c" -ljansson
$CC $flags -o "$out/fuzz_config" "$here/fuzz_config.c" "$top/src/config.c" "$top/src/log.c" "$top/src/util.c" -ljansson
echo "built $out/fuzz_jsonio $out/fuzz_config"
