#!/usr/bin/env bash
# writes.sh — acknowledged durable writes per second: one SQLite node
# against one, two and three PostgreSQL nodes, in one run (`make bench-pg`,
# or alone: bash bench/writes.sh BUILD). One "name: value unit" line per
# figure on stdout, notes on stderr.
#
# A private PostgreSQL cluster (bench/pg_cluster.sh: initdb + pg_ctl as
# the postgres user when root, data and socket in a temporary directory, a
# free loopback port, fsync on and synchronous_commit on: the production
# defaults; nothing is turned off for speed). Then, in rounds (CUBED_BENCH_WRITES_ROUNDS, 3),
# back to back in each round:
#   writes.sqlite  one node on a SQLite file, its default durability
#                  (WAL, synchronous=NORMAL): the reference of the round
#   writes.pg1     one node on PostgreSQL
#   writes.pg2     two nodes on one PostgreSQL database
#   writes.pg3     three nodes on one PostgreSQL database
#   writes.sqlite.full one node on a SQLite file with --durability full
#                  (synchronous=FULL: the WAL is fsynced at every commit,
#                  as PostgreSQL's is): the reference of equal durability
#   writes.pg1.nosync  one node on a database with synchronous_commit off
#                  (ALTER DATABASE): NOT a setting cubed uses or
#                  recommends (an acknowledged write can be lost in a
#                  crash); it shows what waiting for the commit's WAL
#                  flush costs, beside pg1
# Each configuration gets a new database and 64 new 3×3 sessions, then the
# same load for CUBED_BENCH_WRITES_SECS (3) seconds: CUBED_BENCH_WRITES_CONNS
# (32) keep-alive connections in all, spread evenly over the nodes (one
# wrk -t1 per node), each POSTing /v1/sessions/{id}/moves {"moves": "R U"}
# with the session's write token, cycling through all 64 sessions
# (bench/session_moves.lua): every session is written through every node,
# as behind a balancer without affinity. Rate limits and quotas are off.
# A write counts when it was acknowledged (2xx); wrk's non-2xx answers are
# subtracted and printed (writes.*.refused).
#
# Figures: writes.CONFIG.rps, the median over rounds, and
# writes.CONFIG.vs_sqlite, the median over rounds of that round's ratio to
# the SQLite node (the target for PostgreSQL is >= 0.5 x), and for
# PostgreSQL writes.CONFIG.vs_sqlite_full, the same against sqlite.full.
# Where the CPU went, while wrk ran (medians over rounds):
#   writes.CONFIG.cpu      the machine's busy CPU time (/proc/stat: every
#                          process, the kernel's too) per acknowledged
#                          write; .cpu.postgres, .cpu.cubed and .cpu.wrk
#                          its parts in the cluster's processes, the
#                          nodes and the load generator
#   writes.CONFIG.busy     the share of the cores that was busy
#   writes.CONFIG.ceiling_vs_sqlite  the writes/s the cores would give at
#                          that CPU per write with none of them idle, over
#                          the SQLite node's writes/s: a configuration
#                          whose ceiling is under a target cannot reach
#                          it on this machine by waiting less, only by
#                          spending less CPU a write
# Notes on stderr say, for each PostgreSQL run, its transactions (one a
# write batch), event rows and the cluster's WAL flushes so far.
#
# CUBED_BENCH_WRITES_BASE=/path/to/an/older/cubed adds writes.base.pg1 and
# writes.base.pg3, the same loads on that binary in the same rounds (a
# before/after of a change to the write path), with the migrations in
# CUBED_BENCH_WRITES_BASE_SCHEMA (the older checkout's schema/; by
# default this one's, which is right only when the schema did not change).
set -u

build=${1:-build}
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
secs=${CUBED_BENCH_WRITES_SECS:-3}
rounds=${CUBED_BENCH_WRITES_ROUNDS:-3}
conns=${CUBED_BENCH_WRITES_CONNS:-32}
nsessions=${CUBED_BENCH_WRITES_SESSIONS:-64}
base_bin=${CUBED_BENCH_WRITES_BASE:-}
base_schema=${CUBED_BENCH_WRITES_BASE_SCHEMA:-}

configs=(sqlite pg1 pg2 pg3 pg1.nosync sqlite.full)
[ -n "$base_bin" ] && configs+=(base.pg1 base.pg3)

note() { echo "writes.sh: $*" >&2; }
unavailable() {
	note "$*"
	for f in "${configs[@]}"; do echo "writes.$f.rps: unavailable"; done
	exit 0
}
command -v wrk >/dev/null || unavailable "wrk not found"
command -v python3 >/dev/null || unavailable "python3 not found"
[ -x "$build/cubed" ] || unavailable "$build/cubed not built"
[ -z "$base_bin" ] || [ -x "$base_bin" ] || unavailable "$base_bin is not a program"
. "$here/pg_cluster.sh"

trap pg_cleanup EXIT
trap 'exit 130' INT TERM

pg_cluster_start cubed-writes || unavailable "$pg_error"
tmp=$pg_tmp
note "PostgreSQL $(pg_sql 'SHOW server_version'):" \
	"fsync $(pg_sql 'SHOW fsync')," \
	"synchronous_commit $(pg_sql 'SHOW synchronous_commit')"

# start BIN DB: a node on a free port; sets started="PID PORT"
start() {
	local schema=$repo/schema more=()
	[ "$cf" = sqlite.full ] && more=(--durability full)
	[ "$1" = "$base_bin" ] && [ -n "$base_schema" ] && schema=$base_schema
	local log="$tmp/node.$pg_dbn.$RANDOM.log"
	CUBED_QUIET=1 CUBED_MAX_CONNECTIONS_PER_IP=0 CUBED_SESSION_QUOTA=0 \
		CUBED_STORAGE_QUOTA=0 CUBED_SOLVER=0 "$1" --port 0 --db "$2" \
		--rate-limit 0 --schema "$schema" "${more[@]}" >"$log" 2>&1 &
	local pid=$!
	pg_nodes+=("$pid")
	local port=""
	for _ in $(seq 1 200); do
		port=$(sed -n 's/.*listening on http:\/\/127.0.0.1:\([0-9]*\).*/\1/p' "$log" 2>/dev/null | head -1)
		[ -n "$port" ] && break
		sleep 0.05
	done
	[ -n "$port" ] || { note "node did not start: $(tail -3 "$log")"; exit 1; }
	started="$pid $port"
}
stopnode() { kill "$1" 2>/dev/null; wait "$1" 2>/dev/null; }

# mksessions PORT: $nsessions sessions, "id token" lines into $tmp/sessions
mksessions() {
	python3 - "$1" "$nsessions" >"$tmp/sessions" <<'PY'
import http.client, json, sys
c = http.client.HTTPConnection("127.0.0.1", int(sys.argv[1]))
for _ in range(int(sys.argv[2])):
    c.request("POST", "/v1/sessions", body='{"size": 3}',
              headers={"Content-Type": "application/json"})
    r = c.getresponse()
    j = json.loads(r.read())
    assert r.status == 201, j
    print(j["id"], j["write_token"])
PY
}

# wrkrun PORT CONNS OUT: wrk's report into OUT
wrkrun() {
	CUBED_SESSIONS="$tmp/sessions" wrk -t1 -c"$2" -d"${secs}s" \
		-s "$here/session_moves.lua" "http://127.0.0.1:$1" >"$3" 2>&1
}

# cpu_ticks PID…: the processes' user + system clock ticks so far
cpu_ticks() {
	local t=0 p v
	for p in "$@"; do
		v=$(awk '{print $14 + $15}' "/proc/$p/stat" 2>/dev/null)
		t=$((t + ${v:-0}))
	done
	echo "$t"
}
# machine_ticks: the machine's busy and total clock ticks so far (all
# cores: user, nice, system, irq, softirq, steal; and with idle, iowait)
machine_ticks() {
	awk '/^cpu / {b = $2 + $3 + $4 + $7 + $8 + $9; print b, b + $5 + $6}' /proc/stat
}
# the cluster's processes now: the postmaster and its children (the nodes'
# backends, the WAL writer, the checkpointer, …)
pg_procs() { echo "$pg_pid" $(pgrep -P "$pg_pid"); }

# measure BIN NODES [NOSYNC] (NODES 0 = SQLite): sets ok (acknowledged
# writes/s), bad, and the CPU figures: cpu (µs a write, the whole
# machine), cpu_pg, cpu_cubed, cpu_wrk (µs a write) and busy (%)
measure() {
	local bin=$1 n=$2 dbs
	local nodes=() ports=()
	pg_newdb w
	[ -n "${3:-}" ] &&
		pg_sql "ALTER DATABASE $pg_dbname SET synchronous_commit = off" >/dev/null
	if [ "$n" -eq 0 ]; then
		dbs="$tmp/sq$pg_dbn/cubed.db"
		n=1
	else
		dbs=$db
	fi
	for _ in $(seq 1 "$n"); do
		start "$bin" "$dbs"
		read -r pid port <<<"$started"
		nodes+=("$pid")
		ports+=("$port")
	done
	mksessions "${ports[0]}"
	local wp=() i procs m0 m1 pg0 pg1 cu0 cu1 wk1
	procs=$(pg_procs)
	read -r -a m0 < <(machine_ticks)
	# shellcheck disable=SC2086
	pg0=$(cpu_ticks $procs)
	cu0=$(cpu_ticks "${nodes[@]}")
	for i in "${!ports[@]}"; do
		local c=$(( conns / n + (i < conns % n ? 1 : 0) ))
		wrkrun "${ports[$i]}" "$c" "$tmp/wrk.$i" &
		wp+=($!)
	done
	# wrk's ticks as it ends: bash's own child, read just before it goes
	# (its parent's wait reaps it), through the children's counters
	local wc0 wc1
	wc0=$(awk '{print $16 + $17}' /proc/$$/stat)
	for p in "${wp[@]}"; do wait "$p"; done
	wc1=$(awk '{print $16 + $17}' /proc/$$/stat)
	read -r -a m1 < <(machine_ticks)
	# shellcheck disable=SC2086
	pg1=$(cpu_ticks $procs)
	cu1=$(cpu_ticks "${nodes[@]}")
	for p in "${nodes[@]}"; do stopnode "$p"; done
	# where a PostgreSQL run's time went: its transactions (the nodes'
	# stats are in: their connections closed) and event rows per
	# transaction (a write batch is one), and the WAL flushes
	if [ "$dbs" = "$db" ]; then
		note "$cf: $("$pg_bindir/psql" -Atq "$db" -F ' ' -c "SELECT \
			'transactions ' || (SELECT xact_commit FROM \
			pg_stat_database WHERE datname = current_database()) \
			|| ', event rows ' || (SELECT count(*) FROM events) \
			|| ', WAL flushes (cluster, so far) ' || \
			(SELECT wal_sync FROM pg_stat_wal)")"
	fi
	# each configuration starts from the same machine: the database
	# dropped (no autovacuum of it runs into the next one's time), a
	# checkpoint (each starts with one just done: the full-page images
	# after it cost the same in every position) and the page cache
	# written back (a SQLite run's dirty pages are not flushed during
	# the next run's fsyncs)
	pg_sql "DROP DATABASE $pg_dbname" >/dev/null
	pg_sql "CHECKPOINT" >/dev/null
	rm -rf "$tmp/sq$pg_dbn"
	sync
	read -r ok bad < <(for i in "${!ports[@]}"; do cat "$tmp/wrk.$i"; done |
		awk -v secs="$secs" '
			/requests in/ { n += $1 }
			/Non-2xx or 3xx responses:/ { b += $NF }
			END { printf "%.1f %d\n", (n - b) / secs, b }')
	# ticks into µs a write (a tick is 1/CLK_TCK s), over the writes
	# acknowledged in the window
	local hz writes
	hz=$(getconf CLK_TCK)
	writes=$(awk -v r="$ok" -v s="$secs" 'BEGIN {print r * s}')
	read -r cpu cpu_pg cpu_cubed cpu_wrk busy < <(awk -v hz="$hz" \
		-v w="$writes" -v mb=$((m1[0] - m0[0])) -v mt=$((m1[1] - m0[1])) \
		-v pg=$((pg1 - pg0)) -v cu=$((cu1 - cu0)) -v wk=$((wc1 - wc0)) '
		function us(t) { return (w > 0) ? t * 1e6 / hz / w : 0 }
		BEGIN { printf "%.1f %.1f %.1f %.1f %.1f\n", us(mb), us(pg),
			us(cu), us(wk), (mt > 0) ? 100 * mb / mt : 0 }')
}

declare -A res refused rcpu rcpu_pg rcpu_cubed rcpu_wrk rbusy rceil
for round in $(seq 1 "$rounds"); do
	line="round $round:"
	for cf in "${configs[@]}"; do
		bin=$build/cubed
		case $cf in base.*) bin=$base_bin ;; esac
		case $cf in
		sqlite | sqlite.full) n=0 ;;
		*pg1 | pg1.nosync) n=1 ;;
		*pg2) n=2 ;;
		*pg3) n=3 ;;
		esac
		nosync=
		[ "$cf" = pg1.nosync ] && nosync=1
		measure "$bin" "$n" $nosync
		res[$cf]="${res[$cf]:-} $ok"
		rcpu[$cf]="${rcpu[$cf]:-} $cpu"
		rcpu_pg[$cf]="${rcpu_pg[$cf]:-} $cpu_pg"
		rcpu_cubed[$cf]="${rcpu_cubed[$cf]:-} $cpu_cubed"
		rcpu_wrk[$cf]="${rcpu_wrk[$cf]:-} $cpu_wrk"
		rbusy[$cf]="${rbusy[$cf]:-} $busy"
		# at this CPU a write with every core busy, against the
		# round's SQLite node (configs run sqlite first)
		[ "$cf" = sqlite ] && ok_sqlite=$ok
		rceil[$cf]="${rceil[$cf]:-} $(awk -v c="$cpu" -v k="$(nproc)" \
			-v s="${ok_sqlite:-0}" 'BEGIN {printf "%.3f", \
			(c > 0 && s > 0) ? k * 1e6 / c / s : 0}')"
		refused[$cf]=$(( ${refused[$cf]:-0} + bad ))
		line="$line $cf $ok"
	done
	note "$line writes/s"
done

median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
# ratio_median "A_1 A_2 …" "B_1 B_2 …": the median of A_i / B_i
ratio_median() {
	local -a a b out=()
	read -ra a <<<"$1"
	read -ra b <<<"$2"
	for i in "${!a[@]}"; do
		out+=("$(awk -v x="${a[$i]}" -v y="${b[$i]}" 'BEGIN {printf "%.3f", (y > 0 ? x / y : 0)}')")
	done
	median "${out[@]}"
}
for cf in "${configs[@]}"; do
	# shellcheck disable=SC2086
	echo "writes.$cf.rps: $(median ${res[$cf]}) writes/s"
	[ "$cf" = sqlite ] || echo "writes.$cf.vs_sqlite: $(ratio_median "${res[$cf]}" "${res[sqlite]}") x"
	case $cf in pg* | base.*) echo "writes.$cf.vs_sqlite_full: $(ratio_median "${res[$cf]}" "${res[sqlite.full]}") x" ;; esac
	[ "${refused[$cf]}" -eq 0 ] || echo "writes.$cf.refused: ${refused[$cf]} answers"
	# shellcheck disable=SC2086
	{
		echo "writes.$cf.cpu: $(median ${rcpu[$cf]}) us/write"
		case $cf in sqlite*) ;; *) echo "writes.$cf.cpu.postgres: $(median ${rcpu_pg[$cf]}) us/write" ;; esac
		echo "writes.$cf.cpu.cubed: $(median ${rcpu_cubed[$cf]}) us/write"
		echo "writes.$cf.cpu.wrk: $(median ${rcpu_wrk[$cf]}) us/write"
		echo "writes.$cf.busy: $(median ${rbusy[$cf]}) %"
		echo "writes.$cf.ceiling_vs_sqlite: $(median ${rceil[$cf]}) x"
	}
done
