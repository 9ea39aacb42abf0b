#!/usr/bin/env bash
# twenty.sh — 3×3 solves of at most 20 moves: cubed's two-phase search
# (`bench --twenty`) against min2phase (bench/min2phase.mjs, the build
# cubing.js ships), on the same random states, in the same run.
#
#   bash bench/twenty.sh BUILD [STATES [ROUNDS]]     (1000 states, 3 rounds)
#
# Each round runs cubed over the states, then min2phase over the same
# states, back to back, so a burst of load from the machine's other tenants
# falls on both sides of the ratios. Every answer is applied back on both
# sides (a wrong or longer one fails the round). Prints, for each figure,
# the median over the rounds: twenty.ms (median), .mean, .p90, .p99, .max
# and twenty.moves.mean for cubed, the same under twenty.min2phase.*, and
# twenty.ratio.{median,mean,p99} = min2phase's time / cubed's (the median
# of the rounds' ratios). Each round's own lines go to stderr.
set -u

build=${1:-build}
count=${2:-1000}
rounds=${3:-3}
here=$(cd "$(dirname "$0")" && pwd)
node=${NODE:-node}
cubing_version=${CUBING_VERSION:-0.56.0}
cubejs_version=${CUBEJS_VERSION:-1.3.2}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/cubed-twenty.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

note() { echo "twenty.sh: $*" >&2; }
. "$here/node_refs.sh"

value() { awk -v k="$1:" '$1 == k && $2 ~ /^[0-9.]+$/ { print $2; exit }' "$2"; }
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'; }

figs="ms ms.mean ms.p90 ms.p99 ms.max moves.mean"
have_ref=1
node_refs_setup "$tmp" "cubing@$cubing_version" "cubejs@$cubejs_version" &&
	cp "$here/min2phase.mjs" "$tmp/" || have_ref=0

for r in $(seq "$rounds"); do
	if ! "$build/bench/bench" --twenty "$count" "$tmp/states" >"$tmp/c.$r"; then
		note "round $r: $build/bench/bench --twenty failed"
		exit 1
	fi
	sed "s/^/round $r: /" "$tmp/c.$r" >&2
	[ "$have_ref" = 1 ] || continue
	if ! timeout 1800 "$node" "$tmp/min2phase.mjs" "$tmp/states" 20 >"$tmp/m.$r"; then
		note "round $r: min2phase failed"
		have_ref=0
		continue
	fi
	sed "s/^/round $r: /" "$tmp/m.$r" >&2
done

for f in $figs; do
	unit=ms
	[ "$f" = moves.mean ] && unit=moves
	v=$(for r in $(seq "$rounds"); do value "twenty.$f" "$tmp/c.$r"; done | median)
	echo "twenty.$f: $v $unit"
	if [ "$have_ref" = 1 ]; then
		v=$(for r in $(seq "$rounds"); do value "twenty.min2phase.$f" "$tmp/m.$r"; done | median)
		echo "twenty.min2phase.$f: $v $unit"
	else
		echo "twenty.min2phase.$f: unavailable"
	fi
done
for q in "ms median" "ms.mean mean" "ms.p99 p99"; do
	set -- $q
	if [ "$have_ref" = 1 ]; then
		for r in $(seq "$rounds"); do
			awk -v c="$(value "twenty.$1" "$tmp/c.$r")" \
				-v m="$(value "twenty.min2phase.$1" "$tmp/m.$r")" \
				'BEGIN { if (c > 0) print m / c }'
		done | median | awk -v n="$2" '{ printf "twenty.ratio.%s: %.1f x\n", n, $1 }'
	else
		echo "twenty.ratio.$2: unavailable"
	fi
done
echo "twenty.states: $count states"
echo "twenty.rounds: $rounds rounds"
