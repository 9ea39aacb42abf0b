#!/usr/bin/env bash
# soak.sh — `make soak`: a mixed load on one fresh server for a bounded
# time, then errors, latency and memory. One "name: value unit" line per
# figure on stdout, notes on stderr; exit 1 if any request failed or the
# server's RSS grew by 10 % or more.
#
#   bash bench/soak.sh BUILD      (SOAK_S=60 seconds by default)
#
# 1. A fresh BUILD/cubed on 127.0.0.1 with its own database, the solver
#    tables from $CUBED_TABLES (make soak passes the shared cache; without
#    it they are built first), the rate limit off (the load comes from one
#    address, far past a client's fair share) and no request log.
# 2. 32 sessions (curl), each with one move.
# 3. Live-event watchers: SOAK_WATCHERS (16) `curl -N` clients on
#    GET /v1/sessions/{id}/events with Accept: text/event-stream for the
#    whole run, spread over the sessions. A server without that route
#    (404) gets none, with a note; once the route exists they run, and a
#    watcher whose stream ended before the load did, or that received no
#    event (a line "id: <version>"), counts as an error.
# 4. wrk -t2 -c16 with bench/soak.lua (creates, moves, reads, history,
#    time travel, stateless applies, session solves) for a warm-up of
#    SOAK_WARM_S (max(5, SOAK_S/10)) seconds, then SOAK_S seconds measured.
# 5. VmRSS of the server after the warm-up (rss.start) and at the end
#    (rss.end), sampled every 5 s in between (rss.max).
#
# Figures: soak.rss.idle.mb (ready, before any load), soak.requests, soak.rps, soak.errors (non-2xx answers, socket
# errors and timeouts of both wrk runs, plus failed watchers), soak.p99.ms
# (the measured run), soak.rss.start.mb, soak.rss.end.mb, soak.rss.max.mb,
# soak.rss.growth.pct, soak.watchers, soak.watcher_events, soak.sessions.
set -u

build=${1:-build}
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
secs=${SOAK_S:-60}
warm=${SOAK_WARM_S:-$(( secs / 10 > 5 ? secs / 10 : 5 ))}
nwatch=${SOAK_WATCHERS:-16}
conns=16

tmp=$(mktemp -d "${TMPDIR:-/tmp}/cubed-soak.XXXXXX") || exit 1
server_pid=
watch_pids=()
# shellcheck disable=SC2317 # called by the trap
cleanup() {
	local p
	for p in "${watch_pids[@]}"; do kill "$p" 2>/dev/null; done
	[ -z "${sampler:-}" ] || kill "$sampler" 2>/dev/null
	if [ -n "$server_pid" ]; then
		kill "$server_pid" 2>/dev/null
		wait "$server_pid" 2>/dev/null
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

note() { echo "soak.sh: $*" >&2; }
fail() { note "$*"; exit 2; }

command -v wrk >/dev/null || fail "wrk not found (apt-get install wrk)"
command -v curl >/dev/null || fail "curl not found"
[ -x "$build/cubed" ] || fail "$build/cubed not built"

# ---- 1. the server ---------------------------------------------------------
tables=${CUBED_TABLES:-$tmp}
mkdir -p "$tables"
CUBED_QUIET=1 CUBED_RATE_LIMIT=0 CUBED_SESSION_QUOTA=0 CUBED_STORAGE_QUOTA=0 "$build/cubed" --bind 127.0.0.1 --port 0 \
	--db "$tmp/cubed.db" --schema "$repo/schema" --tables "$tables" \
	2>"$tmp/server.err" >/dev/null &
server_pid=$!
port=
for _ in $(seq 100); do
	port=$(sed -n 's|.*listening on http://127\.0\.0\.1:\([0-9][0-9]*\).*|\1|p' \
		"$tmp/server.err" 2>/dev/null | head -n 1)
	[ -n "$port" ] && break
	kill -0 "$server_pid" 2>/dev/null || break
	sleep 0.1
done
[ -n "$port" ] || { cat "$tmp/server.err" >&2; fail "the server did not start"; }
url=http://127.0.0.1:$port
rss_kb() { awk '$1 == "VmRSS:" { print $2 }' "/proc/$server_pid/status"; }

# the solver tables (session solves need them)
for _ in $(seq 600); do
	curl -s "$url/readyz" | grep -q '"3x3":{"tables":"ready"' && break
	sleep 0.2
done
curl -s "$url/readyz" | grep -q '"3x3":{"tables":"ready"' ||
	fail "the 3x3 solver tables were not ready within 120 s"
rss_idle=$(rss_kb) # ready, tables in memory, no load yet

# ---- 2. sessions -----------------------------------------------------------
: >"$tmp/sessions"
for _ in $(seq 32); do
	out=$(curl -s --max-time 5 -H 'Content-Type: application/json' \
		-d '{"size": 3}' "$url/v1/sessions")
	id=$(printf '%s' "$out" | sed -n 's/.*"id":"\([^"]*\)".*/\1/p')
	token=$(printf '%s' "$out" | sed -n 's/.*"write_token":"\([^"]*\)".*/\1/p')
	if [ -z "$id" ] || [ -z "$token" ]; then
		fail "POST /v1/sessions answered: $out"
	fi
	code=$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $token" \
		-H 'Content-Type: application/json' -d '{"moves": "R"}' \
		"$url/v1/sessions/$id/moves")
	[ "$code" = 200 ] || fail "the first move answered $code"
	echo "$id $token" >>"$tmp/sessions"
done

# ---- 3. watchers -----------------------------------------------------------
read -r first_id _ <"$tmp/sessions"
probe=$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 \
	-H 'Accept: text/event-stream' "$url/v1/sessions/$first_id/events")
watchers=0
if [ "$probe" = 404 ] || [ "$probe" = 405 ]; then
	note "GET /v1/sessions/{id}/events answers $probe: this server has no live events yet; watchers skipped"
else
	mapfile -t ids < <(awk '{ print $1 }' "$tmp/sessions")
	for w in $(seq "$nwatch"); do
		id=${ids[$(( (w - 1) % ${#ids[@]} ))]}
		curl -sN --max-time $((secs + warm + 60)) -H 'Accept: text/event-stream' \
			"$url/v1/sessions/$id/events" >"$tmp/watch.$w" 2>/dev/null &
		watch_pids+=($!)
	done
	watchers=$nwatch
	note "$watchers watchers on GET /v1/sessions/{id}/events"
fi

# ---- 4. the load -----------------------------------------------------------
wrk_errors() {
	awk '/Non-2xx or 3xx responses:/ { n += $NF }
		/Socket errors:/ { for (i = 3; i <= NF; i++) { gsub(",", "", $i); if ($i ~ /^[0-9]+$/) n += $i } }
		END { print n + 0 }' "$1"
}
wrk_p99() {
	awk '$1 == "99%" { v = $2; u = v; sub(/[a-z]+$/, "", v); sub(/^[0-9.]+/, "", u);
		if (u == "us") v /= 1000; else if (u == "s") v *= 1000; else if (u == "m") v *= 60000;
		printf "%.2f\n", v; exit }' "$1"
}
run_wrk() { # OUT SECS
	CUBED_SESSIONS=$tmp/sessions timeout $(($2 + 30)) wrk -t2 -c$conns -d"$2s" \
		--timeout 10s --latency -s "$here/soak.lua" "$url" >"$1" 2>"$1.err"
}
note "server $url (pid $server_pid), warm-up ${warm}s, then ${secs}s measured, $conns connections"
run_wrk "$tmp/wrk.warm" "$warm"
rss_start=$(rss_kb)
( while sleep 5; do rss_kb; done ) >"$tmp/rss" 2>/dev/null &
sampler=$!
run_wrk "$tmp/wrk.main" "$secs"
rss_end=$(rss_kb)
kill "$sampler" 2>/dev/null
wait "$sampler" 2>/dev/null
echo "$rss_end" >>"$tmp/rss"

# ---- 5. figures ------------------------------------------------------------
errors=$(( $(wrk_errors "$tmp/wrk.warm") + $(wrk_errors "$tmp/wrk.main") ))
requests=$(awk '/requests in/ { print $1 }' "$tmp/wrk.main")
rps=$(awk '$1 == "Requests/sec:" { print $2 }' "$tmp/wrk.main")
p99=$(wrk_p99 "$tmp/wrk.main")
if [ -z "$requests" ] || [ -z "$p99" ]; then
	cat "$tmp/wrk.main" "$tmp/wrk.main.err" >&2
	fail "wrk printed no figures"
fi
sed -n '1,20p' "$tmp/wrk.main.err" "$tmp/wrk.warm.err" >&2

events=0
if [ "$watchers" -gt 0 ]; then
	# a watcher still streaming is what should be: end it (143); one
	# that ended by itself before (any other status) failed
	for w in $(seq "$watchers"); do
		p=${watch_pids[$((w - 1))]}
		kill "$p" 2>/dev/null
		wait "$p" 2>/dev/null
		rc=$?
		got=$(grep -c '^id:' "$tmp/watch.$w" 2>/dev/null)
		got=${got:-0}
		events=$((events + got))
		if [ "$got" -eq 0 ] || [ "$rc" != 143 ]; then
			note "watcher $w: $got events, curl exit $rc"
			errors=$((errors + 1))
		fi
	done
fi
sessions=$(curl -s "$url/metrics" | awk '$1 == "cubed_sessions" { print $2 }')

mb() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }
max=$(sort -n "$tmp/rss" | tail -n 1)
growth=$(awk -v a="$rss_start" -v b="$rss_end" 'BEGIN { printf "%.1f", (b - a) * 100 / a }')
echo "soak.duration.s: $secs s"
echo "soak.requests: $requests requests"
echo "soak.rps: $rps req/s"
echo "soak.errors: $errors errors"
echo "soak.p99.ms: $p99 ms"
echo "soak.rss.idle.mb: $(mb "$rss_idle") MB"
echo "soak.rss.start.mb: $(mb "$rss_start") MB"
echo "soak.rss.end.mb: $(mb "$rss_end") MB"
echo "soak.rss.max.mb: $(mb "${max:-$rss_end}") MB"
echo "soak.rss.growth.pct: $growth %"
if [ "$watchers" -gt 0 ]; then
	echo "soak.watchers: $watchers watchers"
	echo "soak.watcher_events: $events events"
else
	echo "soak.watchers: skipped (no live-event route on this server)"
fi
echo "soak.sessions: ${sessions:-?} sessions"

status=0
if [ "$errors" -gt 0 ]; then
	note "FAIL: $errors errors"
	status=1
fi
if awk -v g="$growth" 'BEGIN { exit !(g >= 10) }'; then
	note "FAIL: RSS grew by $growth % (limit 10 %)"
	status=1
fi
exit $status
