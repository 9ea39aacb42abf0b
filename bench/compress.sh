#!/usr/bin/env bash
# compress.sh — issue 27's compression figures, one "name: value unit" line
# each (notes on stderr), every figure beside its same-run reference:
#
#   1. big replies — a 1024³ apply (6.3 MB of facelets) and a 64³ render
#      (1.8 MB) — as identity, gzip and br: bytes on the wire and the
#      median time of CUBED_BENCH_COMPRESS_N requests (curl, one at a
#      time), on loopback and through a client reading at 10 Mbit/s
#      (curl --limit-rate 1.25 MB/s: a slow real link; the loopback
#      socket's buffers still take a few MB at once, so identity's time
#      there is if anything too short), each with its ratio to identity;
#   2. small-request throughput (POST /v1/apply on a 3×3, 167 bytes, and
#      GET /healthz) with a browser's Accept-Encoding, against a server
#      with compression on and one with --compress off, in alternating
#      wrk rounds: the on/off ratio of requests per second, and of the
#      server CPU time per request (from /proc/PID/stat; steadier than
#      the rate on a machine others share). The threshold keeps these
#      replies out of the coder, so both must stay at 1;
#   3. a mid-size reply that is compressed (a seeded 100×100 scramble,
#      70 KB): throughput and bytes on against off, the price of coding.
#
#   bash bench/compress.sh BUILD        (make bench runs it)
set -u

build=${1:-build}
n=${CUBED_BENCH_COMPRESS_N:-5}
secs=${CUBED_BENCH_HTTP_SECS:-5}
rounds=${CUBED_BENCH_COMPRESS_ROUNDS:-3}
note() { echo "compress.sh: $*" >&2; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/cubed-compress.XXXXXX") || exit 1
pids=()
cleanup() {
	for p in "${pids[@]}"; do
		kill "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

if ! command -v curl >/dev/null || ! [ -x "$build/cubed" ]; then
	note "curl or $build/cubed missing"
	echo "compress: unavailable"
	exit 0
fi

# start NAME ARGS...: a server (quiet, no rate or per-address limits, no
# solver tables) whose URL goes to the variable NAME
start() {
	local var=$1 dir=$tmp/$1 port= i
	local pidvar=${1}_pid
	shift
	mkdir -p "$dir"
	CUBED_RATE_LIMIT=0 CUBED_SESSION_QUOTA=0 CUBED_STORAGE_QUOTA=0 CUBED_MAX_CONNECTIONS_PER_IP=0 "$build/cubed" --port 0 \
		--db "$dir/cubed.db" --solver 0 --quiet "$@" 2>"$dir/log" >/dev/null &
	pids+=($!)
	printf -v "$pidvar" '%s' "$!"
	for i in $(seq 100); do
		port=$(sed -n 's|.*listening on http://127\.0\.0\.1:\([0-9][0-9]*\).*|\1|p' "$dir/log")
		[ -n "$port" ] && break
		sleep 0.1
	done
	[ -n "$port" ] || { note "$var did not start: $(cat "$dir/log")"; exit 1; }
	printf -v "$var" 'http://127.0.0.1:%s' "$port"
}
start on
start off --compress off

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# ---- 1. big replies -------------------------------------------------------
apply1024='{"size": 1024, "moves": "R U F"}'
render64='{"size": 64, "moves": "R U F 3Rw 5U2", "include": ["render"]}'
for what in ${CUBED_BENCH_COMPRESS_BIG:-apply1024 render64}; do
	body=${!what}
	for rate in loopback 10mbit; do
		limit=()
		[ "$rate" = 10mbit ] && limit=(--limit-rate 1250000)
		declare -A bytes=() ms=()
		for coding in identity gzip br; do
			ae=()
			[ "$coding" != identity ] && ae=(-H "Accept-Encoding: $coding")
			: >"$tmp/t"
			for _ in $(seq "$n"); do
				curl -s -o "$tmp/body" "${limit[@]}" "${ae[@]}" \
					-H 'Content-Type: application/json' -d "$body" \
					-w '%{size_download} %{time_total}\n' "$on/v1/apply" >>"$tmp/t"
			done
			bytes[$coding]=$(awk 'END { print $1 }' "$tmp/t")
			ms[$coding]=$(awk '{ printf "%.1f\n", $2 * 1000 }' "$tmp/t" | median)
			[ "$rate" = loopback ] &&
				echo "compress.$what.$coding.bytes: ${bytes[$coding]} bytes"
			echo "compress.$what.$coding.$rate.ms: ${ms[$coding]} ms"
		done
		for coding in gzip br; do
			[ "$rate" = loopback ] && awk -v a="${bytes[$coding]}" -v b="${bytes[identity]}" -v k="compress.$what.$coding.bytes.vs_identity" \
				'BEGIN { printf "%s: %.5f x\n", k, a / b }'
			awk -v a="${ms[$coding]}" -v b="${ms[identity]}" -v k="compress.$what.$coding.$rate.ms.vs_identity" \
				'BEGIN { printf "%s: %.3f x\n", k, a / b }'
		done
		unset bytes ms
	done
done

# ---- 2 and 3. throughput, compression on against off -----------------------
if ! command -v wrk >/dev/null; then
	note "wrk not found"
	echo "compress.small: unavailable"
	exit 0
fi
cat >"$tmp/apply3.lua" <<'EOF'
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Accept-Encoding"] = "gzip, deflate, br, zstd"
wrk.body = [[{"size": 3, "moves": "R U R' U' F2 D' L B2"}]]
EOF
cat >"$tmp/get.lua" <<'EOF'
wrk.headers["Accept-Encoding"] = "gzip, deflate, br, zstd"
EOF
rps() { awk '$1 == "Requests/sec:" { print $2 }' "$1"; }
# requests wrk completed ("N requests in ...")
total() { awk '$2 == "requests" && $3 == "in" { print $1 }' "$1"; }
# a process's user + system CPU ticks
ticks() { awk '{ sub(/^.*\) /, ""); print $12 + $13 }' "/proc/$1/stat"; }
hz=$(getconf CLK_TCK)
errors() { awk '/Non-2xx or 3xx responses:/ { n += $NF } /Socket errors:/ { n += 1 } END { print n + 0 }' "$1"; }
for what in ${CUBED_BENCH_COMPRESS_WHAT:-apply3 healthz scramble100}; do
	case $what in
	apply3) path=/v1/apply script=$tmp/apply3.lua ;;
	healthz) path=/healthz script=$tmp/get.lua ;;
	scramble100) path='/v1/scramble?size=100&seed=3' script=$tmp/get.lua ;;
	esac
	: >"$tmp/ratios"
	: >"$tmp/cpu.on"
	: >"$tmp/cpu.off"
	for r in $(seq "$rounds"); do
		# alternate which goes first, against drift on a shared machine
		sides="on off"
		[ $((r % 2)) = 0 ] && sides="off on"
		for side in $sides; do
			url=${!side}
			pidv=${side}_pid
			t0=$(ticks "${!pidv}")
			timeout $((secs + 30)) wrk -t2 -c32 -d"${secs}s" -s "$script" "$url$path" \
				>"$tmp/wrk.$what.$side.$r" 2>&1
			t1=$(ticks "${!pidv}")
			awk -v t=$((t1 - t0)) -v n="$(total "$tmp/wrk.$what.$side.$r")" -v hz="$hz" \
				'BEGIN { if (n > 0) printf "%.2f\n", t / hz / n * 1e6 }' >>"$tmp/cpu.$side"
			e=$(errors "$tmp/wrk.$what.$side.$r")
			[ "$e" = 0 ] || note "$what $side round $r: $e errors"
		done
		awk -v a="$(rps "$tmp/wrk.$what.on.$r")" -v b="$(rps "$tmp/wrk.$what.off.$r")" \
			'BEGIN { if (a > 0 && b > 0) printf "%.3f\n", a / b }' >>"$tmp/ratios"
	done
	on_rps=$(for r in $(seq "$rounds"); do rps "$tmp/wrk.$what.on.$r"; done | median)
	off_rps=$(for r in $(seq "$rounds"); do rps "$tmp/wrk.$what.off.$r"; done | median)
	echo "compress.$what.c32.on.rps: $on_rps req/s"
	echo "compress.$what.c32.off.rps: $off_rps req/s"
	echo "compress.$what.c32.on.vs_off: $(median <"$tmp/ratios") x"
	con=$(median <"$tmp/cpu.on")
	coff=$(median <"$tmp/cpu.off")
	echo "compress.$what.cpu_per_req.on: $con us"
	echo "compress.$what.cpu_per_req.off: $coff us"
	awk -v a="$con" -v b="$coff" -v k="compress.$what.cpu_per_req.on.vs_off" \
		'BEGIN { if (b > 0) printf "%s: %.3f x\n", k, a / b }'
	on_b=$(curl -s -o /dev/null -w '%{size_download}' -H 'Accept-Encoding: gzip, deflate, br, zstd' \
		$([ "$what" = apply3 ] && echo "-H Content-Type:application/json --data-binary @-") \
		"$on$path" <<<'{"size": 3, "moves": "R U R'"'"' U'"'"' F2 D'"'"' L B2"}')
	off_b=$(curl -s -o /dev/null -w '%{size_download}' -H 'Accept-Encoding: gzip, deflate, br, zstd' \
		$([ "$what" = apply3 ] && echo "-H Content-Type:application/json --data-binary @-") \
		"$off$path" <<<'{"size": 3, "moves": "R U R'"'"' U'"'"' F2 D'"'"' L B2"}')
	echo "compress.$what.on.bytes: $on_b bytes"
	echo "compress.$what.off.bytes: $off_b bytes"
done
