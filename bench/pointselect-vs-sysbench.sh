#!/usr/bin/env bash
# bench/pointselect-vs-sysbench.sh: perfbisect's native oltp_point_select
# against sysbench 1.0.20's, on one private mariadbd (own datadir, socket,
# port; started and stopped here).
#
# 1. prepares PS_TABLES x PS_SIZE rows with each tool (timed; sysbench with
#    its default --threads=1, perfbisect with its default parallelism);
# 2. runs both against the same data (sysbench's tables), alternating
#    Go, sysbench, Go, sysbench, ... PS_PAIRS pairs of PS_TIME seconds at
#    each thread count in PS_THREADS;
# 3. prints per thread count the median Go/sysbench TPS ratio over the
#    pairs, each client's run-to-run CV, and each client's CPU seconds
#    (user+sys of the client process, from /usr/bin/time) per million
#    queries, and the prepare-time ratio.
#
# Pinned mode (PS_PIN=SERVER:CLIENT, taskset CPU lists such as 0:1): the
# server runs on the first CPU set, both clients on the second (taskset
# for sysbench, --client-cpus for perfbisect).
#
# Sensitivity (PS_PLANT="SQL"): each pair becomes two, one with the server
# as it is and one after the statement PS_PLANT (e.g. SET GLOBAL
# optimizer_trace='enabled=on', which adds a fixed amount of work to every
# query); PS_UNPLANT undoes it. The summary prints the TPS change each
# client sees.
#
# Both summaries are parsed by the same regular expression (sysbench's
# "transactions: N (X per sec.)" line).
#
# Environment (defaults): PS_TABLES=8 PS_SIZE=1000000 PS_TIME=30 PS_PAIRS=3
# PS_THREADS="128 8" PS_TRANSPORT=socket (or tcp) PS_PORT=53601
# PS_DIR=/tmp/psbench-vs (server datadir; removed at the end unless PS_KEEP=1;
# with PS_KEEP=1 a later run reuses its prepared data and skips step 1)
# PS_WARMUP=10 (seconds of sysbench run before the pairs, not counted)
# PS_SB_PREPARE_THREADS=1 (sysbench's own default) PS_GO_FLAGS="" (extra
# flags for perfbisect's run, e.g. --client-procs=2) PS_PIN="" PS_PLANT=""
# PS_UNPLANT="SET GLOBAL optimizer_trace='enabled=off'"
# PS_RESULTS=/tmp/pointselect-vs-sysbench.tsv (every run, one per line)
set -euo pipefail
cd "$(dirname "$0")/.."

tables=${PS_TABLES:-8} size=${PS_SIZE:-1000000} secs=${PS_TIME:-30} pairs=${PS_PAIRS:-3}
threads_list=${PS_THREADS:-128 8} transport=${PS_TRANSPORT:-socket} port=${PS_PORT:-53601}
dir=${PS_DIR:-/tmp/psbench-vs} warm=${PS_WARMUP:-10} plant=${PS_PLANT:-}
unplant=${PS_UNPLANT:-"SET GLOBAL optimizer_trace='enabled=off'"}

log() { printf '%s %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }

command -v sysbench >/dev/null || { echo "sysbench is not installed" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "/usr/bin/time is not installed (apt-get install time)" >&2; exit 1; }

sb_pin=() go_pin=()
if [ -n "${PS_PIN:-}" ]; then
	export PS_SERVER_CPUS=${PS_PIN%%:*}
	client_cpus=${PS_PIN#*:}
	sb_pin=(taskset -c "$client_cpus") go_pin=(--client-cpus="$client_cpus")
fi

reuse=0
if [ "${PS_KEEP:-0}" = 1 ] && [ -f "$dir/prepared" ]; then
	reuse=1
else
	rm -rf "$dir"
fi
mkdir -p "$dir"
cleanup() {
	status=$?
	bench/pointselect-server.sh stop "$dir" || true
	[ "${PS_KEEP:-0}" = 1 ] || rm -rf "$dir"
	exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

log "building perfbisect"
go build -o "$dir/perfbisect" ./cmd/perfbisect
log "starting mariadbd ($(/usr/sbin/mariadbd --version | awk '{print $3}')) in $dir, port $port${PS_SERVER_CPUS:+, on CPUs $PS_SERVER_CPUS}"
sock=$(bench/pointselect-server.sh start "$dir" "$port")

if [ "$transport" = tcp ]; then
	conn=(--mysql-host=127.0.0.1 --mysql-port="$port" --mysql-user=root)
else
	conn=(--mysql-socket="$sock" --mysql-user=root)
fi
common=(--tables="$tables" --table-size="$size")
sql() { mariadb --no-defaults --socket="$sock" -uroot -e "$1"; }

# timed CMD...: runs CMD, appends its output to $dir/out, echoes
# "wall user sys" of the process.
timed() {
	/usr/bin/time -f '%e %U %S' -o "$dir/time" "$@" >"$dir/out" 2>&1 || { cat "$dir/out" >&2; return 1; }
	cat "$dir/time"
}

log "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), load $(cut -d' ' -f1-3 /proc/loadavg)"
sb_prep=0 go_prep=0
if [ "$reuse" = 1 ]; then
	log "prepare: reusing the data in $dir (PS_KEEP=1)"
else
	sb_pt=${PS_SB_PREPARE_THREADS:-1}
	log "prepare: sysbench (--threads=$sb_pt)"
	read -r sb_prep _ _ < <(timed sysbench oltp_point_select "${conn[@]}" --mysql-db=sbtest_sb "${common[@]}" \
		--threads="$sb_pt" prepare)
	log "prepare: perfbisect"
	read -r go_prep _ _ < <(timed "$dir/perfbisect" pointselect "${conn[@]}" --mysql-db=sbtest_go "${common[@]}" prepare)
	log "prepare seconds: sysbench $sb_prep, perfbisect $go_prep"
	"$dir/perfbisect" pointselect "${conn[@]}" --mysql-db=sbtest_go --tables="$tables" cleanup 2>/dev/null
	touch "$dir/prepared"
fi

tps_of() { sed -n 's/^ *transactions: *[0-9]* *(\([0-9.]*\) per sec\.)/\1/p' "$dir/out"; }
queries_of() { sed -n 's/^ *queries: *\([0-9]*\) .*/\1/p' "$dir/out"; }

log "warm-up: sysbench ${warm}s at 128 threads (not counted)"
"${sb_pin[@]}" sysbench oltp_point_select "${conn[@]}" --mysql-db=sbtest_sb "${common[@]}" --threads=128 \
	--time="$warm" run >/dev/null

levels=(base)
[ -z "$plant" ] || levels=(base planted)
results=$dir/results.tsv
printf 'threads\tpair\tlevel\ttool\ttps\tqueries\tcpu_s\n' >"$results"
# one TOOL THREADS PAIR LEVEL: one run, appended to $results.
one() {
	local tool=$1 th=$2 p=$3 level=$4 u s
	if [ "$tool" = go ]; then
		read -r _ u s < <(timed "$dir/perfbisect" pointselect "${conn[@]}" --mysql-db=sbtest_sb "${common[@]}" \
			--threads="$th" --time="$secs" run "${go_pin[@]}" ${PS_GO_FLAGS:-})
	else
		read -r _ u s < <(timed "${sb_pin[@]}" sysbench oltp_point_select "${conn[@]}" --mysql-db=sbtest_sb \
			"${common[@]}" --threads="$th" --time="$secs" run)
	fi
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$th" "$p" "$level" "$tool" "$(tps_of)" "$(queries_of)" \
		"$(echo "$u + $s" | bc)" >>"$results"
	log "threads $th pair $p $level: $tool $(tps_of) tps, cpu $u+$s s"
}
for th in $threads_list; do
	for p in $(seq 1 "$pairs"); do
		for level in "${levels[@]}"; do
			if [ "$level" = planted ]; then sql "$plant"; elif [ -n "$plant" ]; then sql "$unplant"; fi
			one go "$th" "$p" "$level"
			one sysbench "$th" "$p" "$level"
		done
	done
done
[ -z "$plant" ] || sql "$unplant"
log "done; load $(cut -d' ' -f1-3 /proc/loadavg)"
cp "$results" "${PS_RESULTS:-/tmp/pointselect-vs-sysbench.tsv}"

python3 - "$results" "$sb_prep" "$go_prep" "$transport" "$tables" "$size" "$secs" "${PS_PIN:-none}" <<'PY'
import sys, statistics, collections
path, sb_prep, go_prep, transport, tables, size, secs, pin = sys.argv[1:]
rows = [l.rstrip("\n").split("\t") for l in open(path)][1:]
by = collections.defaultdict(lambda: collections.defaultdict(dict))
for th, p, level, tool, tps, q, cpu in rows:
    by[(int(th), level)][int(p)][tool] = (float(tps), int(q), float(cpu))
print(f"transport {transport}, {tables} x {size} rows, {secs} s runs, pinned (server:client CPUs) {pin}")
if float(sb_prep) > 0:
    print(f"prepare: sysbench {float(sb_prep):.1f} s, perfbisect {float(go_prep):.1f} s, "
          f"ratio {float(go_prep)/float(sb_prep):.2f} (target <= 0.33)")
def cv(xs): return statistics.stdev(xs) / statistics.mean(xs) if len(xs) > 1 else float("nan")
for (th, level) in sorted(by, key=lambda k: (-k[0], k[1])):
    ps = by[(th, level)]
    ratios = [ps[p]["go"][0] / ps[p]["sysbench"][0] for p in sorted(ps)]
    def tps(tool): return [ps[p][tool][0] for p in sorted(ps)]
    def cpu_per_m(tool): return sum(ps[p][tool][2] for p in ps) / (sum(ps[p][tool][1] for p in ps) / 1e6)
    go_c, sb_c = cpu_per_m("go"), cpu_per_m("sysbench")
    print(f"threads {th} {level}: tps go {statistics.median(tps('go')):.0f} sysbench {statistics.median(tps('sysbench')):.0f}; "
          f"ratio median {statistics.median(ratios):.3f} (pairs {', '.join(f'{r:.3f}' for r in ratios)}); "
          f"cv go {100*cv(tps('go')):.2f} % sysbench {100*cv(tps('sysbench')):.2f} % ({len(ps)} runs each); "
          f"client cpu s per 1M queries go {go_c:.2f} sysbench {sb_c:.2f} ratio {go_c/sb_c:.2f}")
for th in sorted({k[0] for k in by}, reverse=True):
    if (th, "planted") not in by:
        continue
    base, planted = by[(th, "base")], by[(th, "planted")]
    for tool in ("go", "sysbench"):
        ch = [planted[p][tool][0] / base[p][tool][0] - 1 for p in sorted(planted) if p in base]
        print(f"threads {th} plant: {tool} sees {100*statistics.median(ch):+.2f} % "
              f"(median of {len(ch)} pairs; {', '.join(f'{100*c:+.1f}' for c in ch)})")
PY
