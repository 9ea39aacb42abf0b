#!/usr/bin/env bash
# sessions.sh — the session benchmarks of `make bench` (run.sh calls it; it
# also runs alone: bash bench/sessions.sh BUILD). One "name: value unit"
# line per figure on stdout, notes on stderr.
#
# 1. A fresh BUILD/cubed on 127.0.0.1 (no solver tables: their 5 s build
#    would eat the CPU the load runs on), 32 sessions created with curl.
#    Then wrk -t2 -c32, back to back on that server:
#      http.sess.healthz   GET /healthz — the ceiling, the reference: run
#                          before, between and after the others (median
#                          printed; each ratio is against the two around it)
#      http.session_get    GET /v1/sessions/{id}          (session_get.lua)
#      http.session_moves  POST /v1/sessions/{id}/moves   (session_moves.lua)
#                          {"moves": "R U"}, Authorization: Bearer <token>
#    the last two with the 32 connections spread over the 32 sessions (.s32)
#    and all on one session (.s1). Each prints rps, p99.ms, errors (non-2xx
#    and socket errors) and vs_healthz = its rps / the /healthz rps.
#    Targets (issue 6): GET ≥ 0.70 x, POST ≥ 0.30 x.
# 2. Another fresh server: VmRSS (/proc/PID/status) idle, then after
#    creating 10,000 sessions (curl --parallel, 16 at a time, one process):
#    sessions10k.rss.mb, and how fast they were created.
#
# CUBED_BENCH_HTTP_SECS (default 5) is the length of each wrk run.
set -u

build=${1:-build}
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
secs=${CUBED_BENCH_HTTP_SECS:-5}
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
	http.session_moves.s32.c32 http.session_moves.s1.c32"
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
	CUBED_QUIET=1 CUBED_PER_IP_CONNECTIONS=0 CUBED_SOLVER=0 \
		"$build/cubed" --bind 127.0.0.1 --port 0 --db "$1/cubed.db" \
		--schema "$repo/schema" 2>"$1/server.err" >/dev/null &
	server_pid=$!
	local port= i
	for i in $(seq 100); do
		port=$(sed -n 's|.*listening on http://127\.0\.0\.1:\([0-9][0-9]*\).*|\1|p' \
			"$1/server.err" | head -n 1)
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

# create_sessions N FILE: N 3×3 sessions, one "id token" line each
create_sessions() {
	local k out
	: >"$2"
	for k in $(seq "$1"); do
		out=$(curl -s --max-time 5 -H 'Content-Type: application/json' \
			-d '{"size": 3}' "$url/v1/sessions")
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

# wrk_figures NAME OUT [REF_RPS]: figures from one wrk run's output
wrk_figures() {
	local name=$1 out=$2 ref=${3:-}
	local rps errs p99
	rps=$(awk '$1 == "Requests/sec:" { print $2 }' "$out")
	errs=$(awk '/Non-2xx or 3xx responses:/ { n += $NF }
		/Socket errors:/ { for (i = 3; i <= NF; i++) { gsub(",", "", $i); if ($i ~ /^[0-9]+$/) n += $i } }
		END { print n + 0 }' "$out")
	p99=$(awk '$1 == "99%" { v = $2; u = v; sub(/[a-z]+$/, "", v); sub(/^[0-9.]+/, "", u);
		if (u == "us") v /= 1000; else if (u == "s") v *= 1000; else if (u == "m") v *= 60000;
		printf "%.3f", v; exit }' "$out")
	if [ -z "$rps" ]; then
		note "wrk gave no rate for $name:"
		cat "$out" >&2
		echo "$name.rps: unavailable"
		return
	fi
	echo "$name.rps: $rps req/s"
	[ -n "$p99" ] && echo "$name.p99.ms: $p99 ms"
	echo "$name.errors: $errs responses"
	if [ -n "$ref" ]; then
		awk -v r="$rps" -v h="$ref" 'BEGIN { printf "'"$name"'.vs_healthz: %.2f x\n", r / h }'
	fi
}

# ---- 1. throughput ------------------------------------------------------------------
start_server "$tmp/a"
note "server $url (pid $server_pid), $conns connections, ${secs}s per run"
create_sessions "$conns" "$tmp/s32" || unavailable "could not create sessions"
head -n 1 "$tmp/s32" >"$tmp/s1"

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
# /healthz before, between and after the session runs (H G32 G1 H M32 M1 H):
# the machine is shared, and its load moves within seconds, so each ratio is
# taken against the mean of the two /healthz runs around it, and the
# /healthz figure printed is the median of the three.
rate() { awk '$1 == "Requests/sec:" { print $2 }' "$1"; }
run_wrk "$tmp/wrk.healthz.1" "$url/healthz"
for kind in get moves; do
	for s in s32 s1; do
		CUBED_SESSIONS=$tmp/$s run_wrk "$tmp/wrk.$kind.$s" \
			-s "$here/session_$kind.lua" "$url"
	done
	[ $kind = get ] && n=2 || n=3
	run_wrk "$tmp/wrk.healthz.$n" "$url/healthz"
done
h=()
for n in 1 2 3; do h[n]=$(rate "$tmp/wrk.healthz.$n"); done
mid=$(printf '%s\n' "${h[@]}" | grep . | sort -g | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }')
cp "$tmp/wrk.healthz.1" "$tmp/wrk.healthz"
for n in 1 2 3; do [ "${h[n]}" = "$mid" ] && cp "$tmp/wrk.healthz.$n" "$tmp/wrk.healthz"; done
wrk_figures http.sess.healthz.c32 "$tmp/wrk.healthz"
note "/healthz runs: ${h[1]:-?} ${h[2]:-?} ${h[3]:-?} req/s"
for kind in get moves; do
	[ $kind = get ] && n=1 || n=2
	ref=
	[ -n "${h[n]}" ] && [ -n "${h[n + 1]}" ] &&
		ref=$(awk -v a="${h[n]}" -v b="${h[n + 1]}" 'BEGIN { print (a + b) / 2 }')
	for s in s32 s1; do
		wrk_figures "http.session_$kind.$s.c$conns" "$tmp/wrk.$kind.$s" "$ref"
	done
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
