#!/usr/bin/env bash
# optimal_vs.sh — cubed's optimal 3×3 solver side by side with nissy's H48
# solver (`make bench-optimal`): the same held-fixed states (the bench's
# first N random ones and the superflip), one thread each, taking turns
# state by state, every answer checked and the lengths compared.
#
#   bash bench/optimal_vs.sh BUILD TABLES [LEVELS [N]]   (levels "2", N 30)
#
# nissy is built here from a copy of its public source that nothing in
# this script fetches: NISSY_SRC (default: the snapshot the library's
# fetch tool keeps, /work/.mirror/sebastianotronto+nissy-core/repo, a bare
# git directory, or a copy of nissy's source tree) is copied to
# NISSY_BUILD (default /tmp/cubed-nissy-build, outside this repository)
# and built there with bench/nissy/nissy_ref.c, a driver that reads
# scrambles on stdin. nissy is never linked into cubed. Without a copy the
# script says where it looked and runs cubed alone.
#
# For each cubed level the H48 variant of the closest table size is
# chosen (hK is about 2^K · 29.6 MB), unless NISSY_SOLVER names one. Its
# table is read from TABLES/nissy/<solver> or generated there by nissy
# (minutes for h0–h3; hours for h4 and up on a small machine, so those
# are only generated with NISSY_GENERATE=1: otherwise the biggest variant
# already there, or h3, stands in, and the figures say which).
set -u

build=${1:-build}
tables=${2:-/work/tables}
levels=${3:-2}
count=${4:-30}
here=$(cd "$(dirname "$0")" && pwd)
src=${NISSY_SRC:-/work/.mirror/sebastianotronto+nissy-core/repo}
nb=${NISSY_BUILD:-/tmp/cubed-nissy-build}

note() { echo "optimal_vs.sh: $*" >&2; }

have_nissy=0
if [ -d "$src" ]; then
	mkdir -p "$nb"
	if [ ! -f "$nb/build.sh" ]; then
		if [ -f "$src/build.sh" ]; then
			cp -R "$src/." "$nb/"
		elif git --git-dir="$src" rev-parse HEAD >/dev/null 2>&1; then
			git --git-dir="$src" archive HEAD | tar -x -C "$nb"
		fi
	fi
	if [ -f "$nb/build.sh" ]; then
		if [ ! -f "$nb/nissy.o" ]; then
			(cd "$nb" && THREADS=2 ./build.sh nissy >"$nb/build.log" 2>&1) ||
				note "nissy did not build: see $nb/build.log"
		fi
		if [ -f "$nb/nissy.o" ] &&
			cc -std=c11 -O2 -Wall -pthread -I"$nb/src" -o "$nb/nissy_ref" \
				"$here/nissy/nissy_ref.c" "$nb/nissy.o"; then
			have_nissy=1
		fi
	fi
else
	note "no copy of nissy's source at $src (set NISSY_SRC): cubed alone"
fi
[ "$have_nissy" = 1 ] || note "nissy is not available: cubed alone"

mkdir -p "$tables/nissy"
# the table bytes of cubed's level and of nissy's hK
level_bytes() { "$build/bench/bench" --optimal-size "$1"; }
h_bytes() { echo $(( (1 << $1) * 29620000 + 1700000 )); }

pick_solver() {
	local want=$1 best=3 bestd=-1 k d b
	if [ -n "${NISSY_SOLVER:-}" ]; then
		echo "$NISSY_SOLVER"
		return
	fi
	for k in 0 1 2 3 4 5 6 7 8; do
		b=$(h_bytes "$k")
		d=$(awk -v a="$b" -v w="$want" 'BEGIN { r = a / w; if (r < 1) r = 1 / r; print r }')
		if [ "$bestd" = -1 ] || awk -v d="$d" -v e="$bestd" 'BEGIN { exit !(d < e) }'; then
			best=$k
			bestd=$d
		fi
	done
	if [ "$best" -ge 4 ] && [ ! -s "$tables/nissy/h48h$best" ] &&
		[ "${NISSY_GENERATE:-0}" != 1 ]; then
		note "h48h$best (closest to level's size) is not in $tables/nissy and takes hours to generate here (NISSY_GENERATE=1 makes it)"
		for k in $(seq "$best" -1 4); do
			if [ -s "$tables/nissy/h48h$k" ]; then
				echo "h48h$k"
				return
			fi
		done
		best=3
	fi
	echo "h48h$best"
}

for level in $levels; do
	if [ "$have_nissy" = 1 ]; then
		solver=$(pick_solver "$(level_bytes "$level")")
		note "level $level against $solver"
		export CUBED_NISSY="$nb/nissy_ref $solver $tables/nissy/$solver"
	else
		unset CUBED_NISSY
	fi
	CUBED_TABLES=$tables "$build/bench/bench" --optimal-vs "$level" "$count" ||
		exit 1
done
