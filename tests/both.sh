#!/usr/bin/env bash
# both.sh NAME1 COMMAND1 NAME2 COMMAND2 — run the two shell commands at
# once, one core each (the machines here have two), each one's output to
# its own file; when both are done print each whole under its name, one
# after the other, and fail if either failed. The Makefile's test-run,
# test-slow, memcheck and fuzz split their work this way, so that CI's
# wall time is the longer half, not the sum.
set -u
if [ $# -ne 4 ]; then
	echo "usage: both.sh NAME1 COMMAND1 NAME2 COMMAND2" >&2
	exit 2
fi
out=$(mktemp -d /tmp/cubed-both-XXXXXX) || exit 1
trap 'rm -rf "$out"' EXIT
# one command, its output to $out/$1 and its wall seconds to $out/$1.s
run() {
	local t0=$SECONDS r
	bash -c "$2" >"$out/$1" 2>&1
	r=$?
	echo $((SECONDS - t0)) >"$out/$1.s"
	return $r
}
run 1 "$2" &
p1=$!
run 2 "$4" &
p2=$!
wait "$p1"
r1=$?
wait "$p2"
r2=$?
echo "== $1 (exit $r1, $(cat "$out/1.s") s)"
cat "$out/1"
echo "== $3 (exit $r2, $(cat "$out/2.s") s)"
cat "$out/2"
if [ "$r1" -ne 0 ] || [ "$r2" -ne 0 ]; then
	echo "both.sh: $([ "$r1" -ne 0 ] && echo "$1 ")$([ "$r2" -ne 0 ] && echo "$3 ")failed"
	exit 1
fi
