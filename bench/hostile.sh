#!/usr/bin/env bash
# hostile.sh — what the defences of issue 24 cost normal traffic: the
# request deadline (--request-timeout, a reaper thread and two stores per
# request), the session quota, the storage cap (two page counts per write
# batch), the per-client storage quota (a bucket charged per write), the
# reply memory budget (two atomic adds per reply) and the stop
# bookkeeping, on against off, in the same run.
#
#   bash bench/hostile.sh BUILD     (BUILD/cubed must exist)
#
# Two servers of the same binary on fresh databases: "off" with
# --request-timeout 0 --session-quota 0 --max-db-size 0 --storage-quota 0
# --reply-memory 0, "on" with the defaults but for --storage-quota, set
# to 1 TiB so that its accounting runs on every write yet never refuses
# one (the default, 64 MiB an hour, would stop wrk's moves). Both without the older rate limit and per-address cap (wrk
# sends everything from one address). wrk runs GET /v1/sessions/{id} and
# POST …/moves over 32 sessions with 32 connections, alternating off/on,
# HOSTILE_ROUNDS rounds (3) of HOSTILE_S seconds (5) each; the best
# round of each is kept (noise here only ever slows a round down), and
# the median with the spread (slowest and fastest round) is printed too,
# and the median of the paired ratios (each "on" round over the "off"
# round run just before it).
# A round with any non-2xx reply fails the run (a refusal is fast and
# would flatter "on"). Prints "name: value unit" lines; the verdict is
# on/off >= 0.95.
set -u
build=${1:-build}
repo=$(cd "$(dirname "$0")/.." && pwd)
rounds=${HOSTILE_ROUNDS:-3}
secs=${HOSTILE_S:-5}
tmp=$(mktemp -d /tmp/cubed-bench-hostile-XXXXXX)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
	rm -rf "$tmp"
}
trap cleanup EXIT

command -v wrk >/dev/null || { echo "hostile: wrk not found" >&2; exit 0; }

# start NAME ARGS...: a server; sets port_NAME
start() {
	local name=$1; shift
	mkdir -p "$tmp/$name"
	CUBED_QUIET=1 CUBED_RATE_LIMIT=0 CUBED_MAX_CONNECTIONS_PER_IP=0 \
		"$build/cubed" --bind 127.0.0.1 --port 0 --solver 0 \
		--db "$tmp/$name/cubed.db" --schema "$repo/schema" "$@" \
		2>"$tmp/$name/err" >/dev/null &
	pids+=($!)
	local port=''
	for _ in $(seq 100); do
		port=$(sed -n 's|.*listening on http://127\.0\.0\.1:\([0-9][0-9]*\).*|\1|p' \
			"$tmp/$name/err" | head -n 1)
		[ -n "$port" ] && break
		sleep 0.1
	done
	[ -n "$port" ] || { cat "$tmp/$name/err" >&2; exit 1; }
	eval "port_$name=$port"
	: >"$tmp/$name/sessions"
	# a reply ends without a newline: one is added, or sed would run
	# every session into one line (the lua scripts then wrote with the
	# wrong token: all 403s, measured as if they were moves)
	for _ in $(seq 32); do
		{ curl -s -H 'Content-Type: application/json' -d '{"size": 3}' \
			"http://127.0.0.1:$port/v1/sessions"; echo; } |
			sed -n 's/.*"id":"\([^"]*\)".*"write_token":"\([^"]*\)".*/\1 \2/p' \
				>>"$tmp/$name/sessions"
	done
	[ "$(wc -l <"$tmp/$name/sessions")" -eq 32 ] ||
		{ echo "hostile: $name: could not create 32 sessions" >&2; exit 1; }
}

start off --request-timeout 0 --session-quota 0 --max-db-size 0 \
	--storage-quota 0 --reply-memory 0
start on --storage-quota 1099511627776

# run NAME SCRIPT: requests per second of one wrk round
run() {
	local port
	eval "port=\$port_$1"
	local out
	out=$(CUBED_SESSIONS="$tmp/$1/sessions" wrk -t2 -c32 -d"${secs}s" \
		-s "$repo/bench/$2" "http://127.0.0.1:$port" 2>/dev/null)
	if echo "$out" | grep -q "Non-2xx"; then
		echo "hostile: $1 $2 got non-2xx replies:" >&2
		echo "$out" >&2
		exit 1
	fi
	echo "$out" | awk '$1 == "Requests/sec:" { print $2 }'
}

best() { sort -g | tail -n 1; }
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
spread() { sort -g | awk 'NR == 1 { lo = $1 } { hi = $1 } END { print lo "-" hi }'; }

for script in session_get.lua session_moves.lua; do
	name=${script%.lua}
	: >"$tmp/off.$name"; : >"$tmp/on.$name"
	for _ in $(seq "$rounds"); do
		run off "$script" >>"$tmp/off.$name"
		run on "$script" >>"$tmp/on.$name"
	done
	echo "# $name rounds off: $(tr "\n" " " <"$tmp/off.$name")on: $(tr "\n" " " <"$tmp/on.$name")"
	off=$(best <"$tmp/off.$name")
	on=$(best <"$tmp/on.$name")
	echo "hostile.$name.off.rps: $off req/s"
	echo "hostile.$name.on.rps: $on req/s"
	echo "hostile.$name.ratio: $(awk -v a="$on" -v b="$off" 'BEGIN { printf "%.3f", a / b }') x"
	moff=$(median <"$tmp/off.$name")
	mon=$(median <"$tmp/on.$name")
	echo "# $name off median $moff (spread $(spread <"$tmp/off.$name")), on median $mon (spread $(spread <"$tmp/on.$name"))"
	echo "hostile.$name.median_ratio: $(awk -v a="$mon" -v b="$moff" 'BEGIN { printf "%.3f", a / b }') x"
	# each "on" round beside the "off" round just before it: the ratio
	# of a pair is the least disturbed by load that drifts
	paste "$tmp/off.$name" "$tmp/on.$name" |
		awk '{ printf "%.3f\n", $2 / $1 }' >"$tmp/pairs.$name"
	echo "# $name paired ratios: $(sort -g "$tmp/pairs.$name" | tr "\n" " ")"
	echo "hostile.$name.paired_median_ratio: $(median <"$tmp/pairs.$name") x"
done
