#!/usr/bin/env bash
# reduce_cmp.sh — big-cube solves of two builds side by side, state by
# state, so that both meet the same load on a shared machine.
#
#   CUBED_TABLES=DIR bash bench/reduce_cmp.sh OLD_BENCH NEW_BENCH SIZE COUNT
#
# OLD_BENCH and NEW_BENCH are bench binaries (build/bench/bench, or one
# built from another commit; both must know CUBED_BENCH_FIRST). For each
# of COUNT seeded states (bench --reduce's), the old build solves it,
# then the new; every answer is checked by bench itself. Prints, per
# build, "name: value unit" lines: mean and largest moves, median CPU
# time per solve; then the new build's median CPU time over the old's
# (reduce_NxN_cpu_ratio). CUBED_BENCH_EFFORT, if set, applies to the new
# build only.
set -euo pipefail
old=$1 new=$2 n=$3 count=$4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
effort=${CUBED_BENCH_EFFORT:-}
for ((i = 0; i < count; i++)); do
	CUBED_BENCH_FIRST=$i CUBED_BENCH_EFFORT= "$old" --reduce 1 "$n" \
		>>"$tmp/old"
	CUBED_BENCH_FIRST=$i CUBED_BENCH_EFFORT=$effort "$new" --reduce 1 "$n" \
		>>"$tmp/new"
done
for b in old new; do
	awk -v b="$b" -v n="$n" '
	/_solved:/ { split($2, s, "/"); ok += s[1]; all += s[2] }
	/_moves_mean:/ { m[++k] = $2 }
	/_cpu_ms_median:/ { t[++j] = $2 }
	END {
		sum = 0; max = 0
		for (i = 1; i <= k; i++) { sum += m[i]; if (m[i] > max) max = m[i] }
		# median of the CPU times (insertion sort: a few dozen)
		for (i = 2; i <= j; i++) {
			v = t[i]
			for (p = i - 1; p >= 1 && t[p] > v; p--) t[p + 1] = t[p]
			t[p + 1] = v
		}
		med = j % 2 ? t[(j + 1) / 2] : (t[j / 2] + t[j / 2 + 1]) / 2
		printf "%s.reduce_%dx%d_solved: %d/%d states\n", b, n, n, ok, all
		printf "%s.reduce_%dx%d_moves_mean: %.2f moves\n", b, n, n, sum / k
		printf "%s.reduce_%dx%d_moves_max: %d moves\n", b, n, n, max
		printf "%s.reduce_%dx%d_cpu_ms_median: %.1f ms\n", b, n, n, med
	}' "$tmp/$b" | tee "$tmp/$b.sum"
done
o=$(awk '/cpu_ms_median/ { print $2 }' "$tmp/old.sum")
w=$(awk '/cpu_ms_median/ { print $2 }' "$tmp/new.sum")
awk -v o="$o" -v w="$w" -v n="$n" \
	'BEGIN { printf "reduce_%dx%d_cpu_ratio: %.2f x\n", n, n, w / o }'
