#!/usr/bin/env bash
# pg.sh — the PostgreSQL engine's figures (`make bench-pg` runs it with
# CUBED_BENCH_PG_ROUNDS=0, the live delivery alone, after bench/writes.sh,
# which measures writes; or alone: bash bench/pg.sh BUILD). One
# "name: value unit" line per figure.
#
# A private cluster (bench/pg_cluster.sh: initdb + pg_ctl as the postgres
# user when root, data and socket in a temporary directory, a free
# loopback port, fsync on: the durable default), then, in rounds (3 by
# default), back to back:
#   pg.moves.sqlite   one node on a SQLite file (--durability normal: WAL,
#                     the default): the reference of the same round
#   pg.moves.pg1      one node on PostgreSQL (synchronous_commit on)
#   pg.moves.pg2      two nodes on the same PostgreSQL database, each
#                     loaded by its own wrk over the same 32 sessions (no
#                     affinity: every session written through both), the sum
#   pg.moves.pg2split the same two nodes, each writing its own 16 sessions
# each wrk -t1 -c16 (two of them: -c8 each) POST /v1/sessions/{id}/moves
# {"moves": "R U"} over 32 sessions (bench/session_moves.lua), for
# CUBED_BENCH_PG_SECS (3) seconds: rps, and vs_sqlite (the median over the
# rounds of rps / that round's SQLite rps).
# Then cross-node live delivery: BUILD/bench/watch with 100 watchers on
# node B of a session written through node A (WATCH_WRITE_PORT), 200
# writes 20 ms apart: pg.sse.cross.p50/p99 ms (from the write's
# acknowledgement on A to the event on B), beside pg.sse.local.* (writer
# and watchers on one node, same database) measured in the same run.
set -u

build=${1:-build}
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
secs=${CUBED_BENCH_PG_SECS:-3}
rounds=${CUBED_BENCH_PG_ROUNDS:-3}

note() { echo "pg.sh: $*" >&2; }
unavailable() {
	note "$*"
	for f in pg.moves.sqlite pg.moves.pg1 pg.moves.pg2; do
		echo "$f.rps: unavailable"
	done
	echo "pg.sse.cross.p99.ms: unavailable"
	exit 0
}
command -v wrk >/dev/null || unavailable "wrk not found"
command -v curl >/dev/null || unavailable "curl not found"
[ -x "$build/cubed" ] || unavailable "$build/cubed not built"
. "$here/pg_cluster.sh"

trap pg_cleanup EXIT
trap 'exit 130' INT TERM

pg_cluster_start cubed-pgbench || unavailable "$pg_error"
tmp=$pg_tmp

# start DB: a node on a free port; prints "PID PORT"
start() {
	local log="$tmp/node.$RANDOM.log"
	CUBED_QUIET=1 CUBED_MAX_CONNECTIONS_PER_IP=0 CUBED_RATE_LIMIT=0 CUBED_SESSION_QUOTA=0 \
		CUBED_STORAGE_QUOTA=0 \
		CUBED_SOLVER=0 "$build/cubed" --port 0 --db "$1" \
		--schema "$repo/schema" >"$log" 2>&1 &
	local pid=$!
	local port=""
	for _ in $(seq 1 200); do
		port=$(sed -n 's/.*listening on http:\/\/127.0.0.1:\([0-9]*\).*/\1/p' "$log" | head -1)
		[ -n "$port" ] && break
		sleep 0.05
	done
	[ -n "$port" ] || { note "node did not start: $(tail -3 "$log")"; kill $pid; return 1; }
	echo "$pid $port"
}
stopnode() { kill "$1" 2>/dev/null; wait "$1" 2>/dev/null; }

# sessions PORT: 32 sessions, "id token" lines into $tmp/sessions
mksessions() {
	python3 - "$1" >"$tmp/sessions" <<'PY'
import http.client, json, sys
c = http.client.HTTPConnection("127.0.0.1", int(sys.argv[1]))
for _ in range(32):
    c.request("POST", "/v1/sessions", body='{"size": 3}',
              headers={"Content-Type": "application/json"})
    j = json.loads(c.getresponse().read())
    print(j["id"], j["write_token"])
PY
}

# wrkrun PORT CONNS: requests per second
wrkrun() { # wrkrun PORT CONNS [SESSIONS FILE]
	CUBED_SESSIONS="${3:-$tmp/sessions}" wrk -t1 -c"$2" -d"${secs}s" \
		-s "$here/session_moves.lua" "http://127.0.0.1:$1" 2>/dev/null |
		awk '/Requests\/sec/ {print $2}'
}

declare -a r_sq r_p1 r_p2 r_p2s
for round in $(seq 1 "$rounds"); do
	# SQLite
	read -r pid port < <(start "$tmp/sq$round/cubed.db") || exit 1
	pg_nodes+=("$pid")
	mksessions "$port"
	r_sq+=("$(wrkrun "$port" 16)")
	stopnode "$pid"
	# PostgreSQL, one node
	pg_newdb b
	read -r pid port < <(start "$db") || exit 1
	pg_nodes+=("$pid")
	mksessions "$port"
	r_p1+=("$(wrkrun "$port" 16)")
	stopnode "$pid"
	# PostgreSQL, two nodes on one database
	pg_newdb b
	read -r pa porta < <(start "$db") || exit 1
	read -r pb portb < <(start "$db") || exit 1
	pg_nodes+=("$pa" "$pb")
	mksessions "$porta"
	wrkrun "$porta" 8 >"$tmp/wa" &
	wa=$!
	wrkrun "$portb" 8 >"$tmp/wb"
	wait $wa
	r_p2+=("$(awk '{s += $1} END {print s}' "$tmp/wa" "$tmp/wb")")
	# the same two nodes, each writing its own 16 sessions
	head -16 "$tmp/sessions" >"$tmp/half.a"
	tail -16 "$tmp/sessions" >"$tmp/half.b"
	wrkrun "$porta" 8 "$tmp/half.a" >"$tmp/wa" &
	wa=$!
	wrkrun "$portb" 8 "$tmp/half.b" >"$tmp/wb"
	wait $wa
	r_p2s+=("$(awk '{s += $1} END {print s}' "$tmp/wa" "$tmp/wb")")
	stopnode "$pa"
	stopnode "$pb"
	note "round $round: sqlite ${r_sq[-1]}, pg1 ${r_p1[-1]}, pg2 ${r_p2[-1]}, pg2 split ${r_p2s[-1]} rps"
done

median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
ratio_median() { # ratio_median A[@] B[@]: median of A_i / B_i
	local -n a=$1 b=$2
	local out=()
	for i in "${!a[@]}"; do out+=("$(awk -v x="${a[$i]}" -v y="${b[$i]}" 'BEGIN {printf "%.3f", (y > 0 ? x / y : 0)}')"); done
	median "${out[@]}"
}
if [ "$rounds" -gt 0 ]; then
echo "pg.moves.sqlite.rps: $(median "${r_sq[@]}") req/s"
echo "pg.moves.pg1.rps: $(median "${r_p1[@]}") req/s"
echo "pg.moves.pg1.vs_sqlite: $(ratio_median r_p1 r_sq) x"
echo "pg.moves.pg2.rps: $(median "${r_p2[@]}") req/s"
echo "pg.moves.pg2.vs_sqlite: $(ratio_median r_p2 r_sq) x"
echo "pg.moves.pg2split.rps: $(median "${r_p2s[@]}") req/s"
echo "pg.moves.pg2split.vs_sqlite: $(ratio_median r_p2s r_sq) x"
fi

# cross-node live delivery
if [ -x "$build/bench/watch" ]; then
	pg_newdb b
	read -r pa porta < <(start "$db") || exit 1
	read -r pb portb < <(start "$db") || exit 1
	pg_nodes+=("$pa" "$pb")
	"$build/bench/watch" "$portb" "$pb" 100 200 20 2>/dev/null |
		sed -n 's/^live_delivery_\(p50\|p99\): \([0-9.]*\) ms.*/pg.sse.local.\1: \2 ms/p'
	WATCH_WRITE_PORT=$porta "$build/bench/watch" "$portb" "$pb" 100 200 20 2>/dev/null |
		sed -n 's/^live_delivery_\(p50\|p99\|max\): \([0-9.]*\) ms.*/pg.sse.cross.\1: \2 ms/;/^pg/p;s/^live_events: \(.*\)/pg.sse.cross.events: \1/p'
	stopnode "$pa"
	stopnode "$pb"
fi
