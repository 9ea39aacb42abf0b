#!/usr/bin/env bash
# smoke.sh — build docker/Dockerfile and run the image without a Docker
# engine or a registry, then talk to it over a loopback port.
#
#   bash docker/smoke.sh            (what `make docker-smoke` runs)
#
# 1. podman, debootstrap, runc and curl from Debian's packages if missing.
# 2. Debian bookworm bases: `debootstrap --variant=minbase` from the mirror
#    this machine's apt uses, `podman import`ed as debian:bookworm and,
#    without documentation and locales, as debian:bookworm-slim (each with
#    the apt settings the official images have), so the Dockerfile's FROM
#    lines resolve locally (--pull=never). Made once; later runs reuse them.
# 3. podman build (buildah bud --isolation chroot if that fails), with a
#    CONTAINERS_CONF that picks runc and sets default ulimits.
# 4. Run it with a named volume and a random 127.0.0.1 port; curl /healthz,
#    /readyz, one /v1/apply, a session and a move; restart the container and
#    read the session back from the volume; run the image's HEALTHCHECK.
# 5. Stop and remove the container and its volume (the image stays, so the
#    next run reuses its layers; `podman image prune` reclaims the layers
#    of earlier builds, which podman keeps in /var/lib/containers).
#
# Environment: CUBED_DEBIAN_MIRROR (default: from /etc/apt/sources.list*),
# CUBED_SMOKE_TAG (default localhost/cubed:smoke).
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
tag=${CUBED_SMOKE_TAG:-localhost/cubed:smoke}
name=cubed-smoke-$$
volume=cubed-smoke-data-$$
work=$(mktemp -d "${TMPDIR:-/tmp}/cubed-smoke.XXXXXX")
started=$(date +%s)

say() { echo "docker-smoke: $*"; }
fail() { echo "docker-smoke: FAILED: $*" >&2; exit 1; }

sudo=
[ "$(id -u)" = 0 ] || sudo=sudo

cleanup() {
	if command -v podman >/dev/null; then
		podman rm -f -t 5 "$name" >/dev/null 2>&1 || true
		podman volume rm -f "$volume" >/dev/null 2>&1 || true
	fi
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---- 1. tools -------------------------------------------------------------------
need=()
for t in podman:podman buildah:buildah debootstrap:debootstrap runc:runc curl:curl; do
	command -v "${t%%:*}" >/dev/null || need+=("${t#*:}")
done
if [ ${#need[@]} -gt 0 ]; then
	say "installing ${need[*]}"
	$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y \
		--no-install-recommends "${need[@]}" uidmap >&2 ||
		{ $sudo apt-get update >&2 &&
			$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y \
				--no-install-recommends "${need[@]}" uidmap >&2; }
fi

# runc as the runtime (crun is not in bookworm's podman dependencies, and
# the machine's default may not work here); ulimits fixed so the container
# does not inherit whatever the session has.
cat >"$work/containers.conf" <<'EOF'
[containers]
default_ulimits = ["nofile=1024:1024", "nproc=1024:1024"]

[engine]
runtime = "runc"
EOF
export CONTAINERS_CONF=$work/containers.conf
say "$(podman --version), $(runc --version | head -n 1)"

# ---- 2. base image ----------------------------------------------------------------
# mirror: the first Debian archive (not -security) in the machine's sources
mirror=${CUBED_DEBIAN_MIRROR:-}
if [ -z "$mirror" ]; then
	mirror=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list \
		/etc/apt/sources.list.d/*.sources 2>/dev/null |
		awk '/^[[:space:]]*#/ { next }
		     $1 == "URIs:" { for (i = 2; i <= NF; i++) print $i }
		     $1 == "deb" { for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]+:\/\//) { print $i; break } }' |
		grep -E '/debian/?$' | head -n 1 || true)
	mirror=${mirror:-http://deb.debian.org/debian}
fi
security=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list \
	/etc/apt/sources.list.d/*.sources 2>/dev/null |
	grep -v '^[[:space:]]*#' |
	grep -oE '[a-z]+://[^ ]*/debian-security/?' | head -n 1 || true)

# Our base images carry a label with this recipe's revision: a change below
# bumps it and the next run makes them again. An image of that name without
# the label (the real one, pulled from Docker Hub) is used as it is.
base_rev=3
base_ok() {
	podman image exists "$1" || return 1
	local rev
	rev=$(podman image inspect --format '{{index .Config.Labels "org.cubed.base"}}' "$1")
	[ -z "$rev" ] || [ "$rev" = "<no value>" ] || [ "$rev" = "$base_rev" ]
}

if base_ok docker.io/library/debian:bookworm &&
	base_ok docker.io/library/debian:bookworm-slim; then
	say "base images debian:bookworm and bookworm-slim already here"
else
	say "debootstrap --variant=minbase bookworm from $mirror (a minute or two)"
	rootfs=$work/rootfs
	$sudo debootstrap --variant=minbase bookworm "$rootfs" "$mirror" \
		>"$work/debootstrap.log" 2>&1 ||
		{ tail -n 20 "$work/debootstrap.log" >&2; fail "debootstrap"; }
	# What the official images have: the release, its updates and
	# security in the sources, apt's docker-clean (no package cache or
	# .bin caches left in a layer), no translations; nothing cached now.
	{
		echo "deb $mirror bookworm main"
		echo "deb $mirror bookworm-updates main"
		[ -z "$security" ] || echo "deb ${security%/} bookworm-security main"
	} | $sudo tee "$rootfs/etc/apt/sources.list" >/dev/null
	$sudo tee "$rootfs/etc/apt/apt.conf.d/docker-clean" >/dev/null <<'EOF2'
DPkg::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
APT::Update::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
Dir::Cache::pkgcache "";
Dir::Cache::srcpkgcache "";
EOF2
	echo 'Acquire::Languages "none";' |
		$sudo tee "$rootfs/etc/apt/apt.conf.d/docker-no-languages" >/dev/null
	$sudo sh -c "rm -rf '$rootfs'/var/cache/apt/archives/*.deb '$rootfs'/var/cache/apt/*.bin '$rootfs'/var/lib/apt/lists/*"
	import() { # TAG
		$sudo tar -C "$rootfs" -c . | podman import -q \
			--change 'CMD ["/bin/bash"]' --change "LABEL org.cubed.base=$base_rev" \
			- "$1" >/dev/null
		say "imported $1 ($(podman image inspect --format '{{.Size}}' "$1" |
			awk '{ printf "%.0f MB", $1 / 1e6 }'))"
	}
	import docker.io/library/debian:bookworm
	# -slim as the official one is made: no documentation, manual pages
	# or locales, now or in what apt installs later
	$sudo tee "$rootfs/etc/dpkg/dpkg.cfg.d/docker" >/dev/null <<'EOF2'
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/groff/*
path-exclude /usr/share/info/*
path-exclude /usr/share/lintian/*
path-exclude /usr/share/linda/*
path-exclude /usr/share/locale/*
path-include /usr/share/locale/locale.alias
EOF2
	$sudo find "$rootfs/usr/share/doc" -mindepth 1 -not -name copyright -not -type d -delete
	$sudo find "$rootfs/usr/share/doc" -mindepth 1 -type d -empty -delete
	$sudo sh -c "rm -rf '$rootfs'/usr/share/man/* '$rootfs'/usr/share/groff/* '$rootfs'/usr/share/info/* '$rootfs'/usr/share/lintian/* '$rootfs'/usr/share/linda/*"
	$sudo find "$rootfs/usr/share/locale" -mindepth 1 -maxdepth 1 -not -name locale.alias -exec rm -rf {} +
	import docker.io/library/debian:bookworm-slim
	$sudo rm -rf "$rootfs"
fi

# ---- 3. build -----------------------------------------------------------------------
say "building $tag"
# --format docker: the OCI format has no HEALTHCHECK
if ! (cd "$repo" && podman build --pull=never --format docker \
	--ignorefile docker/Dockerfile.dockerignore \
	-f docker/Dockerfile -t "$tag" .) >"$work/build.log" 2>&1; then
	tail -n 30 "$work/build.log" >&2
	say "podman build failed; trying buildah bud --isolation chroot"
	(cd "$repo" && buildah bud --isolation chroot --pull=never --format docker \
		--ignorefile docker/Dockerfile.dockerignore \
		-f docker/Dockerfile -t "$tag" .) >"$work/build.log" 2>&1 ||
		{ tail -n 30 "$work/build.log" >&2; fail "image build"; }
fi
size=$(podman image inspect --format '{{.Size}}' "$tag")
say "built $tag: $(awk -v s="$size" 'BEGIN { printf "%.1f MB", s / 1e6 }')"

# ---- 4. run ----------------------------------------------------------------------------
# The HEALTHCHECK's timer needs systemd, which is not here: no timer
# (--health-interval disable); it is run by hand below. podman still says,
# on every start and stop, that it cannot reach systemd: pm drops that.
pm() {
	local rc=0
	podman "$@" 2>"$work/podman.err" || rc=$?
	grep -v 'unable to get systemd connection' "$work/podman.err" >&2 || true
	return $rc
}
pm run -d --name "$name" -p 127.0.0.1::8080 -v "$volume:/var/lib/cubed" \
	--health-interval disable "$tag" >/dev/null
port=$(podman port "$name" 8080 | head -n 1 | sed 's/.*://')
url=http://127.0.0.1:$port
say "container $name on $url"

up=
for _ in $(seq 100); do
	if curl -sf -o /dev/null --max-time 2 "$url/healthz"; then up=1; break; fi
	[ "$(podman inspect --format '{{.State.Running}}' "$name")" = true ] || break
	sleep 0.2
done
if [ -z "$up" ]; then
	pm logs "$name" >&2 || true
	fail "no answer on $url/healthz"
fi

failed=0
# show METHOD PATH EXPECT [curl args...]: one request, its status and body
show() {
	local method=$1 path=$2 expect=$3
	shift 3
	local code
	code=$(curl -s -o "$work/body" -w '%{http_code}' --max-time 10 -X "$method" "$@" "$url$path")
	if [ "$(head -c 1 "$work/body")" = "{" ]; then
		echo "$method $path -> $code $(head -c 400 "$work/body")"
	else
		echo "$method $path -> $code ($(wc -c <"$work/body") bytes: $(head -n 1 "$work/body"))"
	fi
	if [ "$code" != "$expect" ]; then
		echo "docker-smoke: expected $expect" >&2
		failed=1
	fi
}
json=(-H 'Content-Type: application/json')
show GET /healthz 200
# /readyz is 200 once the database answers; the solver tables (built on the
# first start into the volume) may still be "building" in it.
show GET /readyz 200
show POST /v1/apply 200 "${json[@]}" -d "{\"size\": 3, \"moves\": \"R U R' U'\"}"
show POST /v1/sessions 201 "${json[@]}" -d '{"size": 3}'
id=$(sed -n 's/.*"id":"\([^"]*\)".*/\1/p' "$work/body")
token=$(sed -n 's/.*"write_token":"\([^"]*\)".*/\1/p' "$work/body")
if [ -n "$id" ] && [ -n "$token" ]; then
	show POST "/v1/sessions/$id/moves" 200 "${json[@]}" \
		-H "Authorization: Bearer $token" -d '{"moves": "R U"}'
	# the session is on the volume: it survives a restart
	pm restart -t 10 "$name" >/dev/null
	for _ in $(seq 100); do
		curl -sf -o /dev/null --max-time 2 "$url/healthz" && break
		sleep 0.2
	done
	show GET "/v1/sessions/$id" 200
	grep -q '"version":1' "$work/body" ||
		{ echo "docker-smoke: version 1 not read back after the restart" >&2; failed=1; }
else
	failed=1
fi
show GET /openapi.yaml 200
# the page (built in the image's web stage) and one of its assets
show GET / 200
grep -q '<script type="module" src="/assets/' "$work/body" ||
	{ echo "docker-smoke: / is not the built page" >&2; failed=1; }
if podman healthcheck run "$name" >/dev/null 2>&1; then
	echo "HEALTHCHECK -> healthy"
else
	echo "HEALTHCHECK -> unhealthy"
	failed=1
fi
echo "container user: $(podman exec "$name" id)"
echo "volume /var/lib/cubed: $(podman exec "$name" ls /var/lib/cubed | tr '\n' ' ')"

pm stop -t 10 "$name" >/dev/null
echo "server log:"
podman logs "$name" 2>&1 | grep -v 'systemd' | sed 's/^/  /'

echo "docker.image.mb: $(awk -v s="$size" 'BEGIN { printf "%.1f", s / 1e6 }') MB"
echo "docker.smoke.s: $(($(date +%s) - started)) s"
[ "$failed" = 0 ] || fail "see above"
say "ok"
