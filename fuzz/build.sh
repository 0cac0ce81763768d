#!/bin/sh
# Build the libFuzzer targets with clang, ASan and UBSan, against a configured build tree (for
# autoconfig.h; default ./build, or BUILD). `make check` runs tests/fuzz.sh, which uses this.
#   sh fuzz/build.sh && fuzz/out/fuzz_jsonio -max_total_time=300 fuzz/corpus/jsonio
# OUT: where the binaries go (default fuzz/out). TARGETS: which to build (default all).
# Each source is compiled once (two at a time) and linked into every target that needs it.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
build=${BUILD:-$top/build}
[ -f "$build/autoconfig.h" ] || { echo "fuzz/build.sh: no $build/autoconfig.h: run configure there first (or set BUILD)" >&2; exit 1; }
out=${OUT:-$here/out}
mkdir -p "$out/obj"
CC=${CC:-clang}
s=$top/src
san="-fsanitize=address,undefined -fno-sanitize-recover=undefined"
cflags="-g -O1 $san -fsanitize=fuzzer-no-link -pthread -D_GNU_SOURCE -iquote $s -iquote $build -iquote $top/tests -iquote $here"
cflags="$cflags $(pkg-config --cflags jansson libcrypto sqlite3 2>/dev/null || true)"
all="jsonio config fcgiproto auth router mcp tools ws mddiff"
core="util log jsonio"
app="$core config upload auth events hub session store mddiff pageview tools histtools reqresp mcp router"
applibs="-ljansson -lsqlite3 -lcrypto"
need=""
for t in ${TARGETS:-$all}; do
	case $t in
	jsonio) m="jsonio util" ;;
	config) m="config upload $core" ;;
	fcgiproto) m="fcgiproto util" ;;
	auth) m="auth $core" ;;
	router|mcp|tools) m=$app ;;
	ws) m="wsproto $app" ;;
	mddiff) m="mddiff util" ;;
	*) echo "fuzz/build.sh: no target $t" >&2; exit 1 ;;
	esac
	need="$need $m"
done
# Compile what the targets need, each once, when its source is newer than its object.
for m in $(echo $need | tr ' ' '\n' | sort -u); do
	[ "$out/obj/$m.o" -nt "$s/$m.c" ] || echo "$m"
done | xargs -r -P 2 -I{} $CC $cflags -c -o "$out/obj/{}.o" "$s/{}.c"
for t in ${TARGETS:-$all}; do
	case $t in
	jsonio) m="jsonio util"; l="-ljansson" ;;
	config) m="config upload $core"; l="-ljansson -lcrypto" ;;
	fcgiproto) m="fcgiproto util"; l="-ljansson" ;;
	auth) m="auth $core"; l="-ljansson -lcrypto" ;;
	router|mcp|tools) m=$app; l=$applibs ;;
	ws) m="wsproto $app"; l=$applibs ;;
	mddiff) m="mddiff util"; l="-ljansson" ;;
	esac
	objs=""
	for x in $m; do objs="$objs $out/obj/$x.o"; done
	$CC $cflags -fsanitize=fuzzer -o "$out/fuzz_$t" "$here/fuzz_$t.c" $objs $l
done
echo "built in $out: ${TARGETS:-$all}"
