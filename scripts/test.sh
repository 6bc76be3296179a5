#!/usr/bin/env bash
# scripts/test.sh: the whole test suite, on a fresh Debian machine with Go.
#
# It installs what the tests need (apt-get), starts a private PostgreSQL and
# a private MariaDB (own data directories, sockets and ports under one
# temporary directory), exports their addresses, runs go vet and go test,
# and stops both servers on exit, also on failure or Ctrl-C.
#
# Environment it exports for the tests:
#   PERFBISECT_TEST_PG          postgres:// URL of the private PostgreSQL
#   PERFBISECT_TEST_MYSQL_SOCKET unix socket of the private mariadbd (user root, no password)
#   PERFBISECT_TEST_MYSQL_PORT   its TCP port on 127.0.0.1
# Extra arguments go to `go test` (for example: scripts/test.sh -run Store ./internal/store).
#
# Before any server starts it checks the tree and stops at the first kind of
# fault, with one line saying what to do: a committed build output (*.test,
# *.out, *.prof), an untidy go.mod, unformatted code (gofmt), a staticcheck
# finding (staticcheck is installed into GOBIN when missing) and go vet.
# Package arguments narrow staticcheck and go vet to those packages; the other
# checks always cover the whole module. PERFBISECT_SKIP_LINT=1 skips all but
# go vet, for quick local runs (CI never sets it).
set -euo pipefail

cd "$(dirname "$0")/.."

log() { printf 'test.sh: %s\n' "$*" >&2; }

# --- packages ---------------------------------------------------------------
need_pkgs=()
for pair in postgresql:/usr/lib/postgresql mariadb-server:/usr/sbin/mariadbd \
	sysbench:/usr/bin/sysbench cmake:/usr/bin/cmake ninja-build:/usr/bin/ninja \
	ccache:/usr/bin/ccache git:/usr/bin/git gcc:/usr/bin/gcc valgrind:/usr/bin/valgrind; do
	pkg=${pair%%:*} path=${pair#*:}
	[ -e "$path" ] || need_pkgs+=("$pkg")
done
if [ ${#need_pkgs[@]} -gt 0 ]; then
	log "installing ${need_pkgs[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	# policy-rc.d 101: let no package start its system-wide service; we
	# start our own. An existing policy-rc.d is left as it is.
	own_policy=
	if [ ! -e /usr/sbin/policy-rc.d ]; then
		printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d && own_policy=1
	fi
	apt-get install -y -qq --no-install-recommends "${need_pkgs[@]}" >/dev/null
	[ -z "$own_policy" ] || rm -f /usr/sbin/policy-rc.d
fi

# --- checks -----------------------------------------------------------------------
# Packages named on the command line (./x, ../x); all of them when none are.
pkgs=()
for a in "$@"; do case $a in ./* | ../*) pkgs+=("$a") ;; esac; done
[ ${#pkgs[@]} -gt 0 ] || pkgs=(./...)

fail() { log "FAIL: $*"; exit 1; }
staticcheck_version=0.8.2
if [ "${PERFBISECT_SKIP_LINT:-0}" != 1 ]; then
	gofiles=()
	if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
		built=$(git ls-files | grep -E '\.test$|\.out$|\.prof$' || true)
		# Any executable compiled into the tree (ELF), whatever its name.
		while IFS= read -r f; do
			if [ -f "$f" ] && [ "$(head -c4 "$f" | od -An -c | tr -d ' ')" = '177ELF' ]; then built="$built $f"; fi
		done < <(git ls-files)
		[ -z "$built" ] || fail "build outputs are committed ($(echo $built)): git rm --cached them (.gitignore keeps them out)"
		while IFS= read -r f; do [ ! -e "$f" ] || gofiles+=("$f"); done < <(git ls-files --cached --others --exclude-standard '*.go' | sort -u)
	else # an exported tree: no history to check, every Go file to format
		while IFS= read -r f; do gofiles+=("$f"); done < <(find . -name '*.go' -not -path './bench/out/*')
	fi
	go mod tidy -diff >/dev/null || fail "go.mod/go.sum are not tidy: run go mod tidy and commit the result"
	unformatted=
	[ ${#gofiles[@]} -eq 0 ] || unformatted=$(gofmt -l "${gofiles[@]}")
	[ -z "$unformatted" ] || fail "not gofmt-ed: $(echo $unformatted): run gofmt -w on them"
	# go install puts staticcheck in GOBIN, or the first GOPATH entry's bin.
	gobin=$(go env GOBIN)
	[ -n "$gobin" ] || gobin=$(go env GOPATH | cut -d: -f1)/bin
	export PATH="$gobin:$PATH"
	case $(staticcheck -version 2>/dev/null) in
	*"($staticcheck_version)"*) ;;
	*)
		log "installing staticcheck $staticcheck_version into $gobin"
		go install "honnef.co/go/tools/cmd/staticcheck@v$staticcheck_version"
		;;
	esac
	log "staticcheck ${pkgs[*]}"
	staticcheck "${pkgs[@]}" || fail "staticcheck findings above: fix them (or //lint:ignore CHECK reason, sparingly)"
	[ ! -d .github/workflows ] || go run github.com/rhysd/actionlint/cmd/actionlint@v1.7.12 || fail "actionlint findings above: fix the workflows (.github/actionlint.yaml lists the self-hosted runner labels)"
fi
log "go vet ${pkgs[*]}"
go vet "${pkgs[@]}" || fail "go vet findings above: fix them"

# --- private servers -----------------------------------------------------------
work=$(mktemp -d /tmp/perfbisect-test.XXXXXX)
chmod 755 "$work"
pg_bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
pg_data=$work/pg pg_port=${PERFBISECT_TEST_PG_PORT:-55432}
my_data=$work/mysql my_port=${PERFBISECT_TEST_MYSQL_PORT:-53306}
my_sock=$work/mysql.sock

cleanup() {
	status=$?
	if [ -f "$pg_data/postmaster.pid" ]; then
		su postgres -s /bin/sh -c "$pg_bin/pg_ctl -D '$pg_data' -m fast -w stop" >/dev/null 2>&1 || true
	fi
	if [ -f "$work/mysql.pid" ]; then
		pid=$(cat "$work/mysql.pid")
		kill "$pid" 2>/dev/null || true
		for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
		kill -9 "$pid" 2>/dev/null || true
	fi
	rm -rf "$work"
	exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# PostgreSQL refuses to run as root: its data directory belongs to the
# postgres user the package created.
log "starting PostgreSQL ($pg_bin) on 127.0.0.1:$pg_port"
pg_run=$work/pgrun # logs and socket: written by the postgres user
install -d -o postgres -g postgres "$pg_data" "$pg_run"
su postgres -s /bin/sh -c "$pg_bin/initdb -D '$pg_data' -U perfbisect --auth=trust -E UTF8 >'$pg_run/initdb.log' 2>&1" ||
	{ cat "$pg_run/initdb.log" >&2; exit 1; }
su postgres -s /bin/sh -c "$pg_bin/pg_ctl -D '$pg_data' -l '$pg_run/pg.log' -w -t 60 \
	-o \"-p $pg_port -k $pg_run -c listen_addresses=127.0.0.1 -c max_connections=200 -c fsync=off\" start" >/dev/null ||
	{ cat "$pg_run/pg.log" >&2; exit 1; }
su postgres -s /bin/sh -c "$pg_bin/createdb -h 127.0.0.1 -p $pg_port -U perfbisect perfbisect"
export PERFBISECT_TEST_PG="postgres://perfbisect@127.0.0.1:$pg_port/perfbisect?sslmode=disable"

log "starting MariaDB ($(/usr/sbin/mariadbd --version | awk '{print $3}')) on $my_sock and 127.0.0.1:$my_port"
mariadb-install-db --no-defaults --datadir="$my_data" --user=root --auth-root-authentication-method=normal \
	--skip-test-db >"$work/install-db.log" 2>&1 || { cat "$work/install-db.log" >&2; exit 1; }
/usr/sbin/mariadbd --no-defaults --datadir="$my_data" --user=root --socket="$my_sock" \
	--port="$my_port" --bind-address=127.0.0.1 --pid-file="$work/mysql.pid" \
	--log-error="$work/mysql.err" --innodb-buffer-pool-size=512M --innodb-log-file-size=256M \
	--innodb-flush-log-at-trx-commit=0 --skip-log-bin --max-connections=300 \
	--local-infile=1 >>"$work/mysql.err" 2>&1 &
for _ in $(seq 1 300); do
	mariadb-admin --no-defaults --socket="$my_sock" -uroot ping >/dev/null 2>&1 && break
	sleep 0.1
done
mariadb-admin --no-defaults --socket="$my_sock" -uroot ping >/dev/null || { tail -20 "$work/mysql.err" >&2; exit 1; }
export PERFBISECT_TEST_MYSQL_SOCKET=$my_sock PERFBISECT_TEST_MYSQL_PORT=$my_port

# --- Go -------------------------------------------------------------------------
log "go test ${*:-./...}"
go test -count=1 -timeout 45m "${@:-./...}"
