#!/usr/bin/env bash
# five_busy.sh — 5×5 solves through a server on a busy machine: two
# CPU-bound loops hold the two cores while 12 seeded 5×5s are solved one
# after another at the default budget (3 s). Prints "seed moves ms" per
# solve, or "seed no_solution_found 0" where the budget ran out with no
# answer. bench/RESULTS.md, "5×5 by its five phases".
#
#   bash bench/five_busy.sh CUBED_BIN TABLES_DIR PORT
set -euo pipefail
bin=$1 tables=$2 port=$3
dir=$(mktemp -d)
"$bin" --port "$port" --db "$dir/c.db" --tables "$tables" >"$dir/log" 2>&1 &
srv=$!
hogs=()
cleanup() {
	kill "${hogs[@]}" "$srv" 2>/dev/null || true
	wait "$srv" 2>/dev/null || true
	rm -rf "$dir"
}
trap cleanup EXIT
url=http://127.0.0.1:$port
for _ in $(seq 1 50); do curl -sf "$url/readyz" >/dev/null && break; sleep 0.2; done
facelets() {
	curl -sf "$url/v1/scramble?size=5&seed=$1" |
		python3 -c 'import sys, json; print(json.load(sys.stdin)["facelets"])'
}
solve() {
	curl -s -X POST "$url/v1/solve" -H 'Content-Type: application/json' \
		-d "{\"facelets\": \"$1\"}" |
		python3 -c 'import sys, json; j = json.load(sys.stdin); print(j.get("length", j.get("code")), round(j.get("elapsed_ms", 0)))'
}
# the first 5×5 solve loads the phase tables; wait until they are ready
solve "$(facelets 1)" >/dev/null
for _ in $(seq 1 120); do
	curl -sf "$url/readyz" | grep -q '"5x5":{"tables":"ready"' && break
	sleep 1
done
for _ in 1 2; do
	(while :; do :; done) &
	hogs+=($!)
done
for k in $(seq 100 111); do
	echo "$k $(solve "$(facelets "$k")")"
done
