#!/usr/bin/env bash
# run.sh BUILD TARGET SECONDS — run one libFuzzer target (BUILD/fuzz/fuzz_TARGET)
# for SECONDS over a scratch copy of its committed corpus
# (tests/fuzz/corpus/TARGET), after replaying its crash regressions
# (tests/fuzz/regress/TARGET). Fails on any crash, broken law, leak,
# timeout or out-of-memory; the input that did it is left in
# BUILD/artifacts/TARGET/. New corpus entries stay in BUILD/corpus/TARGET
# (not committed: minimise by hand before adding any).
set -euo pipefail
build=$1 target=$2 seconds=$3
bin=$build/fuzz/fuzz_$target
seeds=tests/fuzz/corpus/$target
work=$build/corpus/$target
art=$build/artifacts/$target

case $target in
alg) max_len=4096 ;;
facelets) max_len=8192 ;;
cubie) max_len=160 ;;
index) max_len=64 ;;
pattern) max_len=600 ;;
api) max_len=8192 ;;
*) max_len=4096 ;;
esac

mkdir -p "$work" "$art"
cp -n "$seeds"/* "$work"/ 2>/dev/null || true
opts=(-timeout=10 -rss_limit_mb=2048 -max_len="$max_len"
	-artifact_prefix="$art/" -print_final_stats=1)
[ -f "tests/fuzz/$target.dict" ] && opts+=(-dict="tests/fuzz/$target.dict")

if [ -d "tests/fuzz/regress/$target" ]; then
	echo "fuzz_$target: replaying tests/fuzz/regress/$target"
	"$bin" "${opts[@]}" "tests/fuzz/regress/$target"/*
fi
echo "fuzz_$target: ${seconds}s over $work"
"$bin" "${opts[@]}" -max_total_time="$seconds" "$work"
