#!/usr/bin/env bash
# sessions.sh — the session benchmarks of `make bench` (run.sh calls it; it
# also runs alone: bash bench/sessions.sh BUILD). One "name: value unit"
# line per figure on stdout, notes on stderr.
#
# 1. A fresh BUILD/cubed on 127.0.0.1 (no solver tables: their 5 s build
#    would eat the CPU the load runs on), 32 sessions created with curl.
#    Then wrk -t2 -c32 on that server, in rounds (3 by default), each round
#    one run of each, back to back:
#      http.sess.healthz   GET /healthz — the ceiling, the reference
#      http.session_get    GET /v1/sessions/{id}          (session_get.lua)
#      http.session_moves  POST /v1/sessions/{id}/moves   (session_moves.lua)
#                          {"moves": "R U"}, Authorization: Bearer <token>
#    the last two with the 32 connections spread over the 32 sessions (.s32)
#    and all on one session (.s1); and POST …/moves {"moves": "R"} over
#    32 sessions of 33×33 and 128×128 (http.session_moves.n33/.n128: a
#    write costs O(moves × n), the reply carries 6n² facelets). Each
#    prints rps and p99.ms (medians over
#    the rounds), errors (non-2xx and socket errors, all rounds) and
#    vs_healthz: the median over the rounds of its rps / that round's
#    /healthz rps. The machine is shared and its load moves within seconds
#    (/healthz alone went from 48k to 141k req/s in one run): rounds of
#    short runs put a burst on both sides of a ratio.
#    Targets (issue 6): GET ≥ 0.70 x, POST ≥ 0.30 x.
# 2. Another fresh server: VmRSS (/proc/PID/status) idle, then after
#    creating 10,000 sessions (curl --parallel, 16 at a time, one process):
#    sessions10k.rss.mb, and how fast they were created.
#
# CUBED_BENCH_SESSION_SECS (default 3) is the length of each wrk run,
# CUBED_BENCH_SESSION_ROUNDS (default 3) the number of rounds.
set -u

build=${1:-build}
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
secs=${CUBED_BENCH_SESSION_SECS:-3}
rounds=${CUBED_BENCH_SESSION_ROUNDS:-3}
conns=32
nbig=${CUBED_BENCH_SESSIONS:-10000}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/cubed-sessions.XXXXXX") || exit 1
server_pid=
stop_server() {
	if [ -n "$server_pid" ]; then
		kill "$server_pid" 2>/dev/null
		wait "$server_pid" 2>/dev/null
		server_pid=
	fi
}
cleanup() {
	stop_server
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

note() { echo "sessions.sh: $*" >&2; }

figures="http.sess.healthz.c32 http.session_get.s32.c32 http.session_get.s1.c32
	http.session_moves.s32.c32 http.session_moves.s1.c32
	http.session_moves.n33.c32 http.session_moves.n128.c32"
unavailable() {
	note "$*"
	local f
	for f in $figures; do echo "$f.rps: unavailable"; done
	echo "sessions10k.rss.mb: unavailable"
	exit 0
}

command -v wrk >/dev/null || unavailable "wrk not found"
command -v curl >/dev/null || unavailable "curl not found"
[ -x "$build/cubed" ] || unavailable "$build/cubed not built"

# start_server DIR: a fresh server on a free loopback port; sets server_pid
# and url.
start_server() {
	mkdir -p "$1"
	# Settings through the environment (see run.sh): no request log, no
	# per-address cap, no solver tables.
	CUBED_QUIET=1 CUBED_MAX_CONNECTIONS_PER_IP=0 CUBED_RATE_LIMIT=0 CUBED_SESSION_QUOTA=0 CUBED_STORAGE_QUOTA=0 CUBED_SOLVER=0 \
		"$build/cubed" --bind 127.0.0.1 --port 0 --db "$1/cubed.db" \
		--schema "$repo/schema" 2>"$1/server.err" >/dev/null &
	server_pid=$!
	local port=''
	for _ in $(seq 100); do
		port=$(sed -n 's|.*listening on http://127\.0\.0\.1:\([0-9][0-9]*\).*|\1|p' \
			"$1/server.err" 2>/dev/null | head -n 1)
		[ -n "$port" ] && break
		kill -0 "$server_pid" 2>/dev/null || break
		sleep 0.1
	done
	if [ -z "$port" ]; then
		cat "$1/server.err" >&2
		unavailable "$build/cubed did not report a port"
	fi
	url=http://127.0.0.1:$port
}

# create_sessions N FILE [SIZE]: N sessions (3×3 by default), one
# "id token" line each
create_sessions() {
	local k out
	: >"$2"
	for k in $(seq "$1"); do
		out=$(curl -s --max-time 5 -H 'Content-Type: application/json' \
			-d "{\"size\": ${3:-3}}" "$url/v1/sessions")
		local id token
		id=$(printf '%s' "$out" | sed -n 's/.*"id":"\([^"]*\)".*/\1/p')
		token=$(printf '%s' "$out" | sed -n 's/.*"write_token":"\([^"]*\)".*/\1/p')
		if [ -z "$id" ] || [ -z "$token" ]; then
			note "POST /v1/sessions answered: $(printf '%s' "$out" | head -c 300)"
			return 1
		fi
		echo "$id $token" >>"$2"
	done
}

# wrk_rate OUT, wrk_p99 OUT (ms), wrk_errors OUT: from one wrk run's output
wrk_rate() { awk '$1 == "Requests/sec:" { print $2 }' "$1"; }
wrk_p99() {
	# --latency prints "99%  1.23ms"; units are us, ms or s
	awk '$1 == "99%" { v = $2; u = v; sub(/[a-z]+$/, "", v); sub(/^[0-9.]+/, "", u);
		if (u == "us") v /= 1000; else if (u == "s") v *= 1000; else if (u == "m") v *= 60000;
		printf "%.3f\n", v; exit }' "$1"
}
wrk_errors() {
	awk '/Non-2xx or 3xx responses:/ { n += $NF }
		/Socket errors:/ { for (i = 3; i <= NF; i++) { gsub(",", "", $i); if ($i ~ /^[0-9]+$/) n += $i } }
		END { print n + 0 }' "$1"
}
# median of the numbers on stdin
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'; }

# ---- 1. throughput ------------------------------------------------------------------
start_server "$tmp/a"
note "server $url (pid $server_pid), $conns connections, $rounds rounds of ${secs}s runs"
create_sessions "$conns" "$tmp/s32" || unavailable "could not create sessions"
head -n 1 "$tmp/s32" >"$tmp/s1"
create_sessions "$conns" "$tmp/n33" 33 || unavailable "could not create 33×33 sessions"
create_sessions "$conns" "$tmp/n128" 128 || unavailable "could not create 128×128 sessions"

# one of each request by hand first: a benchmark of error replies is worthless
read -r id token <"$tmp/s1"
g=$(curl -s -o /dev/null -w '%{http_code}' "$url/v1/sessions/$id")
p=$(curl -s -o "$tmp/moves.json" -w '%{http_code}' -H "Authorization: Bearer $token" \
	-H 'Content-Type: application/json' -d '{"moves": "R U"}' "$url/v1/sessions/$id/moves")
if [ "$g" != 200 ] || [ "$p" != 200 ]; then
	note "GET answered $g, POST moves $p: $(head -c 300 "$tmp/moves.json")"
	unavailable "the session routes do not answer 200"
fi

run_wrk() { # OUT [wrk args...]
	local out=$1
	shift
	timeout $((secs + 30)) wrk -t2 -c"$conns" -d"${secs}s" --latency "$@" >"$out" 2>&1
}
runs="sess.healthz session_get.s32 session_get.s1 session_moves.s32 session_moves.s1
	session_moves.n33 session_moves.n128"
for r in $(seq "$rounds"); do
	for w in $runs; do
		case $w in
		sess.healthz) run_wrk "$tmp/wrk.$w.$r" "$url/healthz" ;;
		session_moves.n*) CUBED_SESSIONS=$tmp/${w##*.} \
			CUBED_MOVES_BODY='{"moves": "R"}' run_wrk "$tmp/wrk.$w.$r" \
			-s "$here/session_moves.lua" "$url" ;;
		*) CUBED_SESSIONS=$tmp/${w##*.} run_wrk "$tmp/wrk.$w.$r" \
			-s "$here/${w%.*}.lua" "$url" ;;
		esac
	done
done
for w in $runs; do
	name=http.$w.c$conns
	: >"$tmp/rates"
	: >"$tmp/p99s"
	: >"$tmp/ratios"
	errs=0
	for r in $(seq "$rounds"); do
		out=$tmp/wrk.$w.$r
		rate=$(wrk_rate "$out")
		h=$(wrk_rate "$tmp/wrk.sess.healthz.$r")
		if [ -z "$rate" ]; then
			note "wrk gave no rate for $name in round $r:"
			cat "$out" >&2
			continue
		fi
		echo "$rate" >>"$tmp/rates"
		wrk_p99 "$out" >>"$tmp/p99s"
		errs=$((errs + $(wrk_errors "$out")))
		[ -z "$h" ] || awk -v a="$rate" -v b="$h" 'BEGIN { print a / b }' >>"$tmp/ratios"
	done
	if ! [ -s "$tmp/rates" ]; then
		echo "$name.rps: unavailable"
		continue
	fi
	note "$name: $(tr '\n' ' ' <"$tmp/rates")req/s over the rounds"
	echo "$name.rps: $(median <"$tmp/rates") req/s"
	[ -s "$tmp/p99s" ] && echo "$name.p99.ms: $(median <"$tmp/p99s") ms"
	echo "$name.errors: $errs responses"
	if [ "$w" != sess.healthz ] && [ -s "$tmp/ratios" ]; then
		awk -v r="$(median <"$tmp/ratios")" 'BEGIN { printf "'"$name"'.vs_healthz: %.2f x\n", r }'
	fi
done
# the writes really landed: the version of the one-session run's session
v=$(curl -s "$url/v1/sessions/$id" | sed -n 's/.*"version":\([0-9]*\).*/\1/p')
note "session $id is at version $v after the runs"
stop_server

# ---- 2. memory with 10,000 sessions --------------------------------------------------
rss_mb() { awk '$1 == "VmRSS:" { printf "%.1f", $2 / 1024 }' "/proc/$1/status"; }

start_server "$tmp/b"
echo "sessions0.rss.mb: $(rss_mb "$server_pid") MB"
cfg=$tmp/create.curl
# one block per transfer, "next" between blocks (not after the last: an
# empty transfer there aborts the others)
for k in $(seq "$nbig"); do
	[ "$k" = 1 ] || echo next
	printf 'url = "%s/v1/sessions"\nheader = "Content-Type: application/json"\ndata = "{\\"size\\": 3}"\noutput = "/dev/null"\nwrite-out = "%%{http_code}\\n"\n' "$url"
done >"$cfg"
t0=$(date +%s.%N)
curl -s --parallel --parallel-max 16 --max-time 60 -K "$cfg" >"$tmp/codes" 2>"$tmp/curl.err"
t1=$(date +%s.%N)
made=$(grep -c '^201$' "$tmp/codes")
if [ "$made" != "$nbig" ]; then
	note "created $made of $nbig sessions; other answers: $(grep -v '^201$' "$tmp/codes" | sort | uniq -c | head -n 5 | tr '\n' ' ')"
fi
db=$(curl -s "$url/metrics" | awk '$1 == "cubed_sessions" { print $2 }')
note "$made sessions created by curl, the server counts ${db:-?}"
awk -v n="$made" -v a="$t0" -v b="$t1" 'BEGIN { printf "sessions10k.create.rps: %.0f sessions/s\n", n / (b - a) }'
echo "sessions10k.rss.mb: $(rss_mb "$server_pid") MB"
stop_server
exit 0
