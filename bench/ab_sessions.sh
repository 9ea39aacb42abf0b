#!/usr/bin/env bash
# ab_sessions.sh — the session figures of two builds in one run, so that
# one can be read against the other (bench/RESULTS.md, "Sessions and
# live events", was measured so). One "name: value unit" line per figure on
# stdout, notes on stderr.
#
#   bash bench/ab_sessions.sh OLD_CUBED NEW_CUBED [SCHEMA_OLD] [SCHEMA_NEW]
#
# Both servers run side by side (each on its own fresh database, no solver
# tables, no rate limit), each with 32 sessions of 3×3, 33×33 and 128×128.
# Then ROUNDS rounds (3), each running every case on the old server and
# then on the new one, wrk -t2 -c32 for SECS seconds (3):
#   healthz       GET /healthz (each round's reference)
#   moves.nN      POST …/moves {"moves": "R"} spread over the 32 sessions
#                 of size N (3, 33, 128)
#   get.n3        GET /v1/sessions/{id} (current) over the 32 3×3 sessions
#   get_old.nN    GET /v1/sessions/{id}?version=20 (time travel; N = 3, 128)
# For each: rps and p99 (medians over the rounds), vs_healthz (median of
# per-round ratios to the same server's /healthz) and, for writes, the
# server's CPU per request (utime + stime over the run, /proc/PID/stat)
# and the writer thread's (/proc/PID/task/TID/stat; the writer is the
# thread named cubed-writer, or in a build that does not name it the
# third thread: main, events ticker, writer, as main.c starts them).
# Lines are "ab.CASE.old.rps: …", "ab.CASE.new.rps: …" and
# "ab.CASE.ratio: new/old". CUBED_AB_CASES and CUBED_AB_SIZES pick a
# subset (the sizes whose sessions the cases use).
set -u
old=${1:?usage: ab_sessions.sh OLD_CUBED NEW_CUBED [SCHEMA_OLD] [SCHEMA_NEW]}
new=${2:?usage: ab_sessions.sh OLD_CUBED NEW_CUBED [SCHEMA_OLD] [SCHEMA_NEW]}
schema_old=${3:-$(dirname "$old")/../schema}
schema_new=${4:-$(dirname "$new")/../schema}
here=$(cd "$(dirname "$0")" && pwd)
secs=${CUBED_BENCH_SESSION_SECS:-3}
rounds=${CUBED_BENCH_SESSION_ROUNDS:-3}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cubed-ab.XXXXXX") || exit 1
pids=()
cleanup() {
	local p
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
note() { echo "ab_sessions.sh: $*" >&2; }
command -v wrk >/dev/null || { note "wrk not found"; exit 0; }

start() { # NAME BIN SCHEMA: sets port_NAME, pid_NAME
	mkdir -p "$tmp/$1"
	CUBED_QUIET=1 CUBED_MAX_CONNECTIONS_PER_IP=0 CUBED_RATE_LIMIT=0 CUBED_SESSION_QUOTA=0 CUBED_STORAGE_QUOTA=0 CUBED_SOLVER=0 \
		"$2" --bind 127.0.0.1 --port 0 --db "$tmp/$1/cubed.db" --schema "$3" \
		2>"$tmp/$1/server.err" >/dev/null &
	local pid=$! port=
	pids+=("$pid")
	for _ in $(seq 100); do
		port=$(sed -n 's|.*listening on http://127\.0\.0\.1:\([0-9][0-9]*\).*|\1|p' "$tmp/$1/server.err" | head -n 1)
		[ -n "$port" ] && break
		sleep 0.1
	done
	[ -n "$port" ] || { cat "$tmp/$1/server.err" >&2; exit 1; }
	eval "port_$1=$port; pid_$1=$pid"
}
start old "$old" "$schema_old"
start new "$new" "$schema_new"
note "old $old (pid $pid_old, port $port_old), new $new (pid $pid_new, port $port_new)"

sessions() { # NAME SIZE: 32 sessions, "id token" lines, each written to v20+
	local port; eval "port=\$port_$1"
	local f=$tmp/$1/s$2 k out id token
	: >"$f"
	for k in $(seq 32); do
		out=$(curl -s -H 'Content-Type: application/json' -d "{\"size\": $2}" "http://127.0.0.1:$port/v1/sessions")
		id=$(printf '%s' "$out" | sed -n 's/.*"id":"\([^"]*\)".*/\1/p')
		token=$(printf '%s' "$out" | sed -n 's/.*"write_token":"\([^"]*\)".*/\1/p')
		[ -n "$id" ] || { note "create: $(printf '%s' "$out" | head -c 200)"; exit 1; }
		echo "$id $token" >>"$f"
	done
	# 25 versions each, so that version 20 is an old one for get_old
	local i
	while read -r id token; do
		for i in $(seq 25); do
			curl -s -o /dev/null -H "Authorization: Bearer $token" \
				-H 'Content-Type: application/json' -d '{"moves": "R U"}' \
				"http://127.0.0.1:$port/v1/sessions/$id/moves"
		done
	done <"$f"
}
sizes=${CUBED_AB_SIZES:-3 33 128}
for b in old new; do for n in $sizes; do sessions $b $n; done; done

cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
writer_tid() { # PID
	local t
	for t in /proc/"$1"/task/*; do
		[ "$(cat "$t/comm")" = cubed-writer ] && { basename "$t"; return; }
	done
	ls /proc/"$1"/task | sort -n | sed -n 3p
}
writer_ticks() { awk '{ print $14 + $15 }' "/proc/$1/task/$2/stat"; }
hz=$(getconf CLK_TCK)

cases=${CUBED_AB_CASES:-healthz moves.n3 moves.n33 moves.n128 get.n3 get_old.n3 get_old.n128}
run_case() { # BUILD CASE ROUND
	local b=$1 c=$2 r=$3 port pid out=$tmp/wrk.$1.$2.$3
	eval "port=\$port_$b; pid=\$pid_$b"
	local url=http://127.0.0.1:$port n=${c##*.n}
	local wt c0 w0
	wt=$(writer_tid "$pid")
	c0=$(cpu_ticks "$pid"); w0=$(writer_ticks "$pid" "$wt")
	case $c in
	healthz) wrk -t2 -c32 -d"${secs}s" --latency "$url/healthz" >"$out" 2>&1 ;;
	moves.*) CUBED_SESSIONS=$tmp/$b/s$n CUBED_MOVES_BODY='{"moves": "R"}' \
		wrk -t2 -c32 -d"${secs}s" --latency -s "$here/session_moves.lua" "$url" >"$out" 2>&1 ;;
	get.*) CUBED_SESSIONS=$tmp/$b/s$n wrk -t2 -c32 -d"${secs}s" --latency \
		-s "$here/session_get.lua" "$url" >"$out" 2>&1 ;;
	get_old.*) CUBED_SESSIONS=$tmp/$b/s$n CUBED_GET_QUERY='?version=20' \
		wrk -t2 -c32 -d"${secs}s" --latency -s "$here/session_get.lua" "$url" >"$out" 2>&1 ;;
	esac
	local c1 w1 reqs
	c1=$(cpu_ticks "$pid"); w1=$(writer_ticks "$pid" "$wt")
	reqs=$(awk '/requests in/ { print $1 }' "$out")
	awk -v a="$c0" -v b="$c1" -v wa="$w0" -v wb="$w1" -v n="$reqs" -v hz="$hz" \
		'BEGIN { if (n > 0) printf "%.2f %.2f\n", (b - a) / hz / n * 1e6, (wb - wa) / hz / n * 1e6 }' >"$out.cpu"
}
for r in $(seq "$rounds"); do
	for c in $cases; do
		run_case old "$c" "$r"
		run_case new "$c" "$r"
	done
done

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'; }
rate() { awk '$1 == "Requests/sec:" { print $2 }' "$1"; }
p99() {
	awk '$1 == "99%" { v = $2; u = v; sub(/[a-z]+$/, "", v); sub(/^[0-9.]+/, "", u);
		if (u == "us") v /= 1000; else if (u == "s") v *= 1000;
		printf "%.3f\n", v; exit }' "$1"
}
errors() {
	awk '/Non-2xx or 3xx responses:/ { n += $NF }
		/Socket errors:/ { for (i = 3; i <= NF; i++) { gsub(",", "", $i); if ($i ~ /^[0-9]+$/) n += $i } }
		END { print n + 0 }' "$1"
}
for c in $cases; do
	for b in old new; do
		rates=$(for r in $(seq "$rounds"); do rate "$tmp/wrk.$b.$c.$r"; done)
		note "$c $b: $(echo $rates) req/s over the rounds"
		echo "ab.$c.$b.rps: $(echo "$rates" | median) req/s"
		echo "ab.$c.$b.p99.ms: $(for r in $(seq "$rounds"); do p99 "$tmp/wrk.$b.$c.$r"; done | median) ms"
		e=0; for r in $(seq "$rounds"); do e=$((e + $(errors "$tmp/wrk.$b.$c.$r"))); done
		echo "ab.$c.$b.errors: $e responses"
		if [ "$c" != healthz ]; then
			echo "ab.$c.$b.vs_healthz: $(for r in $(seq "$rounds"); do
				awk -v a="$(rate "$tmp/wrk.$b.$c.$r")" -v h="$(rate "$tmp/wrk.$b.healthz.$r")" 'BEGIN { print a / h }'
			done | median | awk '{ printf "%.2f", $1 }') x"
		fi
		case $c in moves.*)
			echo "ab.$c.$b.server_cpu_per_write: $(for r in $(seq "$rounds"); do awk '{ print $1 }' "$tmp/wrk.$b.$c.$r.cpu"; done | median) us"
			echo "ab.$c.$b.writer_cpu_per_write: $(for r in $(seq "$rounds"); do awk '{ print $2 }' "$tmp/wrk.$b.$c.$r.cpu"; done | median) us"
		esac
	done
	o=$(for r in $(seq "$rounds"); do rate "$tmp/wrk.old.$c.$r"; done | median)
	n=$(for r in $(seq "$rounds"); do rate "$tmp/wrk.new.$c.$r"; done | median)
	awk -v o="$o" -v n="$n" -v c="$c" 'BEGIN { if (o > 0) printf "ab.%s.ratio: %.2f x (new/old)\n", c, n / o }'
done
exit 0
