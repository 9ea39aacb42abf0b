#!/usr/bin/env bash
# ab_http.sh — plain HTTP throughput of two builds in one run, so that a
# change to the HTTP edge (guard.c, client_limits.c) can be read against
# the build before it (bench/RESULTS.md, "Fairness between addresses").
#
#   bash bench/ab_http.sh OLD_CUBED NEW_CUBED
#
# Both servers run side by side (fresh databases, no solver tables, no
# rate limit, no per-address cap below wrk's connections); ROUNDS rounds
# (11) each run wrk -t2 -cCONNS (64) for SECS (2) s on both servers, the
# order swapped every round (so a machine slowing down or speeding up
# does not favour one), for GET /healthz and GET /v1/patterns?size=3.
# Prints "ab.ROUTE.old.rps: …", "….new.rps: …" (medians over the rounds),
# "ab.ROUTE.ratio: new/old" (of the medians) and "ab.ROUTE.paired: …"
# (the median of each round's new/old, with the lowest and highest: on a
# noisy machine the figure to read). CLOSE=1 sends "Connection: close": a
# connection per request, which is what the per-address shares cost.
set -u
old=${1:?usage: ab_http.sh OLD_CUBED NEW_CUBED}
new=${2:?usage: ab_http.sh OLD_CUBED NEW_CUBED}
rounds=${ROUNDS:-11} secs=${SECS:-2} conns=${CONNS:-64}
hdr=(); [ "${CLOSE:-0}" = 1 ] && hdr=(-H "Connection: close")
command -v wrk >/dev/null || { echo "wrk not found" >&2; exit 1; }
tmp=$(mktemp -d)
pids=()
trap 'kill "${pids[@]}" 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"' EXIT

# NAME BINARY: starts it (its pid kept for the exit trap, so not in a
# command substitution's subshell)
start() {
	CUBED_QUIET=1 CUBED_MAX_CONNECTIONS_PER_IP=0 CUBED_RATE_LIMIT=0 \
	CUBED_SESSION_QUOTA=0 CUBED_STORAGE_QUOTA=0 \
		"$2" --port 0 --db "$tmp/$1.db" --solver 0 \
		2>"$tmp/$1.err" >/dev/null &
	pids+=($!)
}
port_of() { # NAME: its port, once it says it listens
	local i port=
	for i in $(seq 100); do
		port=$(sed -n 's|.*listening on http://127\.0\.0\.1:\([0-9][0-9]*\).*|\1|p' \
			"$tmp/$1.err" | head -n 1)
		[ -n "$port" ] && break
		sleep 0.1
	done
	echo "$port"
}
start old "$old"
start new "$new"
pold=$(port_of old)
pnew=$(port_of new)
[ -n "$pold" ] && [ -n "$pnew" ] || { echo "a server did not start" >&2; exit 1; }

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
for route in healthz patterns; do
	path=/healthz
	[ $route = patterns ] && path="/v1/patterns?size=3"
	: >"$tmp/$route.old"; : >"$tmp/$route.new"
	for r in $(seq "$rounds"); do
		order="old new"; [ $((r % 2)) = 0 ] && order="new old"
		for who in $order; do
			port=$pold; [ $who = new ] && port=$pnew
			wrk -t2 -c"$conns" -d"${secs}s" "${hdr[@]}" "http://127.0.0.1:$port$path" 2>&1 |
				sed -n 's/Requests\/sec: *//p' >>"$tmp/$route.$who"
		done
	done
	o=$(median <"$tmp/$route.old"); n=$(median <"$tmp/$route.new")
	echo "ab.$route.old.rps: $o req/s ($(tr '\n' ' ' <"$tmp/$route.old"))"
	echo "ab.$route.new.rps: $n req/s ($(tr '\n' ' ' <"$tmp/$route.new"))"
	awk -v o="$o" -v n="$n" 'BEGIN {printf "ab.%s.ratio: %.3f new/old\n", "'$route'", n / o}'
	paste "$tmp/$route.old" "$tmp/$route.new" | awk '$1 > 0 {print $2 / $1}' |
		sort -g | awk -v r=$route '{a[NR] = $1}
			END {printf "ab.%s.paired: %.3f new/old (rounds %d, lowest %.3f, highest %.3f)\n",
				r, a[int((NR + 1) / 2)], NR, a[1], a[NR]}'
done
