#!/usr/bin/env bash
# bench/real-build.sh: the opt-in real-MariaDB check of internal/build
# (docs/real-build.md). NOT part of CI: it downloads ~115 MB and keeps both
# cores busy for about 20 minutes.
#
#   bench/real-build.sh [prepare|run|all]     (default: all)
#
# prepare: adds a deb-src entry for bookworm, installs the build
#   dependencies, fetches Debian's mariadb source package (10.11.x) with
#   `apt-get source --download-only`, unpacks it and commits it into a
#   local git repository $SRC (default /tmp/mariadb-src, tag perfbisect-base).
#   Never inside the perfbisect checkout: that source is never committed here.
# run: go test -bench RealBuild on internal/build with a fresh cache
#   directory $CACHE (default /tmp/perfbisect-real-cache): a first build
#   with a cold ccache, a second request (cache hit), a one-line InnoDB
#   change (incremental), a comment-only change (identical binary).
#   Set KEEP_CACHE=1 to keep an existing cache (then the first build is warm).
# Needs root for apt-get (run as root, or prepare by hand per the doc).
set -euo pipefail
cd "$(dirname "$0")/.."

SRC=${SRC:-/tmp/mariadb-src}
CACHE=${CACHE:-/tmp/perfbisect-real-cache}
DL=${DL:-/tmp/mariadb-dl}
JOBS=${JOBS:-$(nproc)}
log() { printf 'real-build: %s\n' "$*" >&2; }

prepare() {
	case $(realpath -m "$SRC") in
	"$(pwd)" | "$(pwd)"/*) log "SRC=$SRC is inside the perfbisect checkout; pick a directory outside it"; exit 2 ;;
	esac
	if git -C "$SRC" rev-parse -q --verify perfbisect-base >/dev/null 2>&1; then
		log "$SRC already holds tag perfbisect-base"
		return
	fi
	local list=/etc/apt/sources.list.d/perfbisect-deb-src.sources
	if ! grep -rqs '^Types:.*deb-src' /etc/apt/sources.list.d/ && ! grep -qs '^deb-src' /etc/apt/sources.list; then
		log "adding $list"
		printf 'Types: deb-src\nURIs: http://deb.debian.org/debian\nSuites: bookworm bookworm-updates\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' >"$list"
	fi
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	log "installing build dependencies"
	apt-get install -y -qq --no-install-recommends cmake ninja-build ccache bison g++ pkg-config \
		libncurses-dev libssl-dev zlib1g-dev libaio-dev libpcre2-dev libfmt-dev dpkg-dev git >/dev/null
	mkdir -p "$DL"
	(cd "$DL" && apt-get source --download-only mariadb)
	local dsc
	dsc=$(ls "$DL"/mariadb_*.dsc | sort -V | tail -n 1)
	log "unpacking $dsc into $SRC"
	rm -rf "$SRC"
	dpkg-source --no-check -x "$dsc" "$SRC" >/dev/null
	git -C "$SRC" init -q -b main
	# Store every file byte for byte: no CRLF conversion from the tarball's
	# .gitattributes (wolfssl, columnstore).
	echo '* -text' >"$SRC/.git/info/attributes"
	# -f: the tarball ships files that MariaDB's .gitignore lists
	git -C "$SRC" -c user.name=perfbisect -c user.email=bench@localhost add -f .
	git -C "$SRC" -c user.name=perfbisect -c user.email=bench@localhost commit -q -m "Debian source $(basename "$dsc" .dsc)"
	git -C "$SRC" tag perfbisect-base
	log "$SRC: $(git -C "$SRC" log --oneline -1)"
}

run() {
	if [ "${KEEP_CACHE:-0}" != 1 ]; then
		rm -rf "$CACHE"
	fi
	log "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(free -g | awk '/Mem:/{print $2}') GiB"
	PERFBISECT_REAL_BUILD_SRC=$SRC PERFBISECT_REAL_BUILD_CACHE=$CACHE PERFBISECT_REAL_BUILD_JOBS=$JOBS \
		go test -run '^$' -bench '^BenchmarkRealBuild$' -benchtime 1x -timeout 120m -v ./internal/build/
}

case ${1:-all} in
prepare) prepare ;;
run) run ;;
all) prepare && run ;;
*) log "usage: $0 [prepare|run|all]"; exit 2 ;;
esac
