#!/usr/bin/env bash
# unit.sh NAME COMMAND — one unit of the Makefile's test graph (a suite, a
# part of one, a fuzz target, a check): run COMMAND with bash, then say in
# one line whether it passed and what it took, wall and CPU seconds (its
# processes' user + system time). make -j2 -O runs the units two at a time
# and prints each one's output whole; the lines also go to $UNITS_LOG (if
# set), which tests/units_report.sh sums up at the end.
set -u
if [ $# -ne 2 ]; then
	echo "usage: unit.sh NAME COMMAND" >&2
	exit 2
fi
name=$1
start=$(date +%s%N)
bash -c "$2"
rc=$?
end=$(date +%s%N)
# the children line of `times`: "0m1.234s 0m0.056s" (written to a file:
# in a pipe or $(...) it would be a subshell's, which has no children)
tf=$(mktemp)
times >"$tf"
cpu=$(tail -1 "$tf" | awk '{
	split($1, u, "m"); split($2, s, "m");
	sub("s", "", u[2]); sub("s", "", s[2]);
	printf "%.1f", u[1] * 60 + u[2] + s[1] * 60 + s[2] }')
rm -f "$tf"
wall=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", (b - a) / 1e9 }')
status=ok
[ "$rc" -eq 0 ] || status="FAILED (exit $rc)"
line="unit $name: $status, $wall s wall, $cpu s cpu"
echo "$line"
[ -n "${UNITS_LOG:-}" ] && echo "$line" >>"$UNITS_LOG"
exit "$rc"
