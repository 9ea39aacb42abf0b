#!/usr/bin/env bash
# dataset.sh — `cubed dataset` and GET /v1/dataset (issue 63), each
# figure beside the NumPy reference generator measured in the same run.
#
#   bash bench/dataset.sh BUILD
#
# Figures (samples/s unless said):
#   dataset.files.walk_features        --count 4M --depth 1-20 features +
#                                      depth, 2 threads, to a tmpfs
#                                      (DATASET_BENCH_DIR, /dev/shm): the
#                                      generator and the file path, not the
#                                      disk (target >= 2,000,000)
#   dataset.files.walk_features.disk   the same to $TMPDIR's disk
#   dataset.files.cpu_us               CPU (user + sys) per sample above
#   dataset.ref.numpy                  bench/dataset_ref.py: the same
#                                      samples in NumPy, one core, to .npy
#   dataset.http.walk_features         GET /v1/dataset (features, then
#                                      depth) read by Python's http.client
#                                      into NumPy (target >= 1,000,000)
#   dataset.all2x2.s                   every 2x2 state with its distance
#                                      and index (target <= 2 s; also with
#                                      features)
#   dataset.twophase                   two-phase labels, walks 1-12 and
#                                      uniform states (target >= 5,000)
#   dataset.optimal12                  optimal labels, walks 1-12, level-0
#                                      tables (target >= 2,000)
#   dataset.rss.mb.*                   peak RSS at 4M and 100M samples
#   *.cpu2                             the rate two cores would give the
#                                      run alone: COUNT / (its CPU / 2)
#
# CUBED_TABLES (default BUILD/tables) caches the solver tables. The machine
# is shared: CPU time per sample is printed beside wall-clock rates.
set -u
build=${1:-build}
here=$(cd "$(dirname "$0")" && pwd)
bin=$build/cubed
py=${PYTHON:-/usr/bin/python3}
tables=${CUBED_TABLES:-$build/tables}
fast=${DATASET_BENCH_DIR:-/dev/shm}
[ -d "$fast" ] && [ -w "$fast" ] || fast=${TMPDIR:-/tmp}
work=$(mktemp -d "$fast/cubed-dsbench.XXXXXX") || exit 1
disk=$(mktemp -d "${TMPDIR:-/tmp}/cubed-dsbench.XXXXXX") || exit 1
server_pid=
cleanup() {
	if [ -n "$server_pid" ]; then
		kill "$server_pid" 2>/dev/null
		wait "$server_pid" 2>/dev/null
	fi
	rm -rf "$work" "$disk"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
note() { echo "dataset.sh: $*" >&2; }
mkdir -p "$tables"

if ! "$py" -c 'import numpy' 2>/dev/null; then
	note "$py has no numpy (apt-get install python3-numpy): NumPy figures unavailable"
	have_numpy=0
else
	have_numpy=1
fi

# timed NAME ARGS...: run cubed dataset under GNU time; prints the rate
# line and leaves wall seconds, CPU seconds and peak RSS (KB) in $wall,
# $cpu, $rss.
timed() {
	local name=$1
	shift
	local tf=$work/time.$name
	if ! /usr/bin/time -f '%e %U %S %M' -o "$tf" "$bin" dataset --quiet "$@"; then
		note "$name: cubed dataset failed"
		wall=; cpu=; rss=
		return 1
	fi
	read -r wall u s rss <"$tf"
	cpu=$(awk -v u="$u" -v s="$s" 'BEGIN { print u + s }')
}

rate() { awk -v n="$2" -v t="$3" -v k="$1" 'BEGIN { if (t > 0) printf "%s: %.0f samples/s\n", k, n / t }'; }
# cpurate NAME COUNT CPU: the rate two cores would give if the run had
# them to itself (COUNT / (CPU / 2)): the machine is shared, and the
# wall-clock rate above it shows how much of them the run got
cpurate() { awk -v n="$2" -v c="$3" -v k="$1" 'BEGIN { if (c > 0) printf "%s.cpu2: %.0f samples/s (2 cores busy %.2f s)\n", k, 2 * n / c, c / 2 }'; }

# ---- to files ----------------------------------------------------------------
n=4000000
if timed walk --count $n --depth 1-20 --seed 1 --columns features --labels depth \
	--threads 2 --out "$work/walk"; then
	rate dataset.files.walk_features $n "$wall"
	cpurate dataset.files.walk_features $n "$cpu"
	awk -v c="$cpu" -v n=$n 'BEGIN { printf "dataset.files.cpu_us: %.3f us/sample\n", c * 1e6 / n }'
	echo "dataset.rss.mb.4M: $(awk -v r="$rss" 'BEGIN { printf "%.1f", r / 1024 }') MB"
	echo "dataset.files.bytes: $(du -cb "$work/walk" | tail -1 | cut -f1) bytes"
fi
rm -rf "$work/walk"
nd=4000000
if timed disk --count $nd --depth 1-20 --seed 1 --columns features --labels depth \
	--threads 2 --out "$disk/walk"; then
	rate dataset.files.walk_features.disk $nd "$wall"
	cpurate dataset.files.walk_features.disk $nd "$cpu"
fi
rm -rf "$disk/walk"
if [ $have_numpy = 1 ]; then
	"$py" "$here/dataset_ref.py" 500000 "$work/ref" || note "the NumPy reference failed"
	rm -rf "$work/ref"
fi

# ---- the whole 2x2 ------------------------------------------------------------
if timed all2 --size 2 --all --columns index --labels optimal --threads 2 --out "$work/all2"; then
	echo "dataset.all2x2.s: $wall s"
	awk -v c="$cpu" 'BEGIN { printf "dataset.all2x2.cpu2.s: %.2f s\n", c / 2 }'
fi
if timed all2f --size 2 --all --columns index,features --labels optimal --threads 2 \
	--out "$work/all2f"; then
	echo "dataset.all2x2.features.s: $wall s"
fi
rm -rf "$work/all2" "$work/all2f"

# ---- labels ---------------------------------------------------------------------
# tables first (loaded or built once), so the rates are the labels'
"$bin" dataset --quiet --count 1 --depth 1 --labels twophase,optimal --tables "$tables" \
	--out "$work/warm" >/dev/null 2>&1 || note "cannot load the solver tables"
rm -rf "$work/warm"
lab() { # NAME COUNT ARGS...: the CLI's own rate (tables loaded, files kept out)
	local name=$1 count=$2
	shift 2
	local line tf=$work/time.$name
	line=$(/usr/bin/time -f '%U %S' -o "$tf" "$bin" dataset --count "$count" --tables "$tables" \
		--threads 2 --out "$work/$name" "$@" 2>&1 | sed -n 's/.* s, \([0-9]*\) samples\/s.*/\1/p')
	if [ -n "$line" ]; then
		echo "$name: $line samples/s"
		read -r u s <"$tf"
		cpurate "$name" "$count" "$(awk -v u="$u" -v s="$s" 'BEGIN { print u + s }')"
	else
		echo "$name: unavailable"
	fi
	rm -rf "${work:?}/$name"
}
lab dataset.twophase.walk12 20000 --depth 1-12 --labels twophase
lab dataset.twophase.uniform 4000 --labels twophase
lab dataset.optimal12 20000 --depth 1-12 --labels optimal
lab dataset.optimal12.exact12 2000 --depth 12 --labels optimal

# ---- over HTTP to Python --------------------------------------------------------
if [ $have_numpy = 1 ] && [ -f "$here/dataset_read.py" ]; then
	log=$work/server.log
	CUBED_RATE_LIMIT=0 "$bin" --port 0 --db "$work/db/cubed.db" --solver 0 --quiet 2>"$log" &
	server_pid=$!
	port=
	for _ in $(seq 200); do
		port=$(sed -n 's/.*listening on http:\/\/127.0.0.1:\([0-9]*\).*/\1/p' "$log")
		[ -n "$port" ] && break
		sleep 0.05
	done
	if [ -z "$port" ]; then
		note "the server did not start"
		echo "dataset.http.walk_features: unavailable"
	else
		# the server's CPU (utime + stime, clock ticks) and the reader's
		# over the features + depth download alone
		tick=$(getconf CLK_TCK)
		cpu_of() { awk '{ print $14 + $15 }' "/proc/$server_pid/stat"; }
		c0=$(cpu_of)
		if /usr/bin/time -f '%U %S' -o "$work/time.http" "$py" "$here/dataset_read.py" \
			"http://127.0.0.1:$port" 2000000 features; then
			c1=$(cpu_of)
			read -r u s <"$work/time.http"
			awk -v a="$c0" -v b="$c1" -v t="$tick" -v u="$u" -v s="$s" 'BEGIN {
				c = (b - a) / t + u + s; n = 2000000
				printf "dataset.http.walk_features.cpu2: %.0f samples/s (server %.2f s + reader %.2f s of CPU)\n", 2 * n / c, (b - a) / t, u + s }'
		else
			echo "dataset.http.walk_features: unavailable"
		fi
		# packed features, and a resumed download checked byte for byte
		"$py" "$here/dataset_read.py" "http://127.0.0.1:$port" 1000000 | grep -v '^dataset.http.walk_features:\|mb_per_s' ||
			note "the packed / resume pass failed"
	fi
	kill "$server_pid" 2>/dev/null
	wait "$server_pid" 2>/dev/null
	server_pid=
fi

# ---- memory at 100 million samples ---------------------------------------------
# the depth label alone (100 MB of file): memory does not grow with count
if timed big --count 100000000 --depth 1-20 --columns none --labels depth --threads 2 \
	--out "$disk/big"; then
	rate dataset.files.depth_only.100M 100000000 "$wall"
	echo "dataset.rss.mb.100M: $(awk -v r="$rss" 'BEGIN { printf "%.1f", r / 1024 }') MB"
fi
rm -rf "$disk/big"
exit 0
