#!/bin/sh
# Take a fresh Debian 12 machine (as root) to a built Browser Bridge.
#   scripts/bootstrap.sh install   build and install to /usr/local (then: browser-bridge serve)
#   scripts/bootstrap.sh test      build with ASan/UBSan in build-check/ and run the whole test suite
# Installs what each mode needs: Debian packages (compiler, autotools, libraries, Chromium, sqlite3,
# Node.js and npm when missing; for tests also Check, nginx, systemd, man-db, clang), Node.js 20 from npm
# when the machine's is older, and the npm packages in package-lock.json: for install only those
# that build the extension and the dashboard (`dependencies`), for tests also the test packages
# (`devDependencies`).
set -eu
mode=${1:-install}
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
	# What the daemon needs to build and run (Chromium for `serve --headless`, sqlite3 for reading
	# the history); the test mode adds the test tools: Check (C unit tests), nginx (FastCGI tests),
	# systemd and man-db (`systemd-analyze verify` of the unit checks its man: link with man), clang
	# and its runtime (the libFuzzer targets run a few seconds each in make check), and the Python
	# and SQLite HTML documentation (real Sphinx and sqlite.org pages the real-site tests act on).
	pkgs="build-essential autoconf automake pkg-config libmicrohttpd-dev libwebsockets-dev
	      libjansson-dev libsqlite3-dev libssl-dev sqlite3 chromium ca-certificates"
	if [ "$mode" = test ]; then pkgs="$pkgs check nginx-light systemd man-db clang libclang-rt-dev python3-doc sqlite3-doc"; fi
	command -v node >/dev/null 2>&1 || pkgs="$pkgs nodejs"
	command -v npm >/dev/null 2>&1 || pkgs="$pkgs npm"
	need=""
	# Installed means "install ok installed": a removed package whose config files remain is not.
	for p in $pkgs; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || need="$need $p"
	done
	if [ -n "$need" ]; then
		export DEBIAN_FRONTEND=noninteractive
		# Installing nginx would start its default site on port 80 of every interface: the tests
		# run their own nginx on loopback, so keep package scripts from starting services.
		norc=""
		if [ ! -e /usr/sbin/policy-rc.d ]; then
			printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d && chmod 755 /usr/sbin/policy-rc.d && norc=1
		fi
		apt-get update -qq
		# shellcheck disable=SC2086
		apt-get install -y -qq --no-install-recommends $need || { [ -z "$norc" ] || rm -f /usr/sbin/policy-rc.d; exit 1; }
		[ -z "$norc" ] || rm -f /usr/sbin/policy-rc.d
	fi
fi

# The bundles and the browser tests (playwright-core, marked) need Node.js 20 or later, and Debian
# 12's own nodejs is 18. Then take Node.js 20 from the npm registry (node-linux-* ships the official
# binary) into .node/ in this checkout, first on PATH for everything below (configure records it).
NODE_VERSION=20.20.2
node_major() { node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }
if [ "$(node_major)" -lt 20 ]; then
	case "$(uname -m)" in
	x86_64) arch=x64 ;;
	aarch64) arch=arm64 ;;
	*) echo "bootstrap: Node.js 20 or later is needed, and npm has none for $(uname -m)" >&2; exit 1 ;;
	esac
	nodebin="$top/.node/node_modules/node-linux-$arch/bin"
	[ -x "$nodebin/node" ] ||
		npm install --prefix "$top/.node" --no-audit --no-fund --loglevel=error "node-linux-$arch@$NODE_VERSION"
	PATH="$nodebin:$PATH"
	export PATH
	if [ "$(node_major)" -lt 20 ]; then
		echo "bootstrap: could not set up Node.js $NODE_VERSION in $top/.node" >&2
		exit 1
	fi
	echo "bootstrap: using Node.js $(node --version) from $nodebin"
fi

if [ "$mode" = test ]; then
	npm ci --no-audit --no-fund --loglevel=error
else
	npm ci --omit=dev --no-audit --no-fund --loglevel=error
fi
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
	set +e
	make check
	rc=$?
	set -e
	# One closing line for everything: the Check unit tests and the Node suites.
	unit=$(cat tests/test_*.log 2>/dev/null | sed -n 's/.*Checks: \([0-9]*\), Failures: \([0-9]*\), Errors: \([0-9]*\).*/\1 \2 \3/p' |
		awk '{c+=$1; f+=$2+$3} END {print c-f, f}')
	node=$(sed -n 's/^node tests: \([0-9]*\) passed, \([0-9]*\) failed.*/\1 \2/p' tests/integration.sh.log 2>/dev/null | tail -n 1)
	set -- $unit ${node:-0 0}
	[ "$rc" = 0 ] || tail -n 60 tests/integration.sh.log 2>/dev/null || true
	echo "all: $(($1 + $3)) passed, $(($2 + $4)) failed"
	exit $rc
	;;
*)
	echo "usage: scripts/bootstrap.sh install|test" >&2
	exit 2
	;;
esac
