#!/bin/sh
# Take a fresh Debian 12 machine (as root) to a built Browser Bridge.
#   scripts/bootstrap.sh install   build and install to /usr/local (then: browser-bridge serve)
#   scripts/bootstrap.sh test      build with ASan/UBSan in build-check/ and run the whole test suite
# Installs what it needs: Debian packages (compiler, autotools, libraries, Chromium, nginx, sqlite3,
# Node.js when missing) and the npm packages in package-lock.json.
set -eu
mode=${1:-install}
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
	pkgs="build-essential autoconf automake libtool pkg-config libmicrohttpd-dev libwebsockets-dev
	      libjansson-dev libsqlite3-dev sqlite3 check chromium nginx-light ca-certificates"
	command -v node >/dev/null 2>&1 || pkgs="$pkgs nodejs npm"
	need=""
	for p in $pkgs; do dpkg -s "$p" >/dev/null 2>&1 || need="$need $p"; done
	if [ -n "$need" ]; then
		export DEBIAN_FRONTEND=noninteractive
		apt-get update -qq
		# shellcheck disable=SC2086
		apt-get install -y -qq --no-install-recommends $need
	fi
fi

npm ci --no-audit --no-fund --loglevel=error
[ -x configure ] || autoreconf -fi

case "$mode" in
install)
	mkdir -p build && cd build
	[ -f Makefile ] || ../configure --prefix=/usr/local
	make -j"$(nproc)"
	make install
	;;
test)
	mkdir -p build-check && cd build-check
	[ -f Makefile ] || ../configure --enable-sanitizers --enable-werror
	make -j"$(nproc)"
	make check
	;;
*)
	echo "usage: scripts/bootstrap.sh install|test" >&2
	exit 2
	;;
esac
