#!/usr/bin/env bash
# bench/pointselect-server.sh: a private mariadbd for the point-select
# benchmarks (own datadir, socket and port; nothing system-wide).
#
#   bench/pointselect-server.sh start DIR [PORT]   # init DIR if new, start, wait
#   bench/pointselect-server.sh stop DIR
#
# Prints nothing on success but the socket path (DIR/mysql.sock) on start.
# Knobs (env): PS_BUFFER_POOL (default 6G), PS_MARIADBD (/usr/sbin/mariadbd),
# PS_SERVER_CPUS (taskset CPU list for the server; default unpinned).
set -euo pipefail

cmd=${1:?start|stop} dir=${2:?datadir parent} port=${3:-53601}
mariadbd=${PS_MARIADBD:-/usr/sbin/mariadbd}
sock=$dir/mysql.sock

case $cmd in
start)
	mkdir -p "$dir"
	if [ ! -d "$dir/data/mysql" ]; then
		mariadb-install-db --no-defaults --datadir="$dir/data" --user=root \
			--auth-root-authentication-method=normal --skip-test-db >"$dir/install-db.log" 2>&1 ||
			{ cat "$dir/install-db.log" >&2; exit 1; }
	fi
	pin=()
	[ -z "${PS_SERVER_CPUS:-}" ] || pin=(taskset -c "$PS_SERVER_CPUS")
	"${pin[@]}" "$mariadbd" --no-defaults --datadir="$dir/data" --user=root --socket="$sock" \
		--port="$port" --bind-address=127.0.0.1 --pid-file="$dir/mysql.pid" \
		--log-error="$dir/mysql.err" --innodb-buffer-pool-size="${PS_BUFFER_POOL:-6G}" \
		--innodb-log-file-size=1G --innodb-flush-log-at-trx-commit=0 --skip-log-bin \
		--max-connections=400 --local-infile=1 --max-allowed-packet=64M \
		</dev/null >/dev/null 2>&1 &
	for _ in $(seq 1 600); do
		mariadb-admin --no-defaults --socket="$sock" -uroot ping >/dev/null 2>&1 && break
		sleep 0.1
	done
	mariadb-admin --no-defaults --socket="$sock" -uroot ping >/dev/null ||
		{ tail -20 "$dir/mysql.err" >&2; exit 1; }
	mariadb --no-defaults --socket="$sock" -uroot -e "CREATE DATABASE IF NOT EXISTS sbtest_go; CREATE DATABASE IF NOT EXISTS sbtest_sb"
	echo "$sock"
	;;
stop)
	[ -f "$dir/mysql.pid" ] || exit 0
	pid=$(cat "$dir/mysql.pid")
	kill "$pid" 2>/dev/null || true
	for _ in $(seq 1 600); do kill -0 "$pid" 2>/dev/null || exit 0; sleep 0.1; done
	kill -9 "$pid" 2>/dev/null || true
	;;
*)
	echo "usage: $0 start|stop DIR [PORT]" >&2
	exit 2
	;;
esac
