# node_refs.sh — sourced by the bench scripts that time a JavaScript
# reference beside cubed: installs the pinned packages once, with npm, into
# a cache outside the repository, and links them beside the script that
# imports them (packages resolve from a script's own directory upward).
#
#   node_refs_setup DIR PACKAGE@VERSION...
#
# Needs $node and note() from the caller. Returns 1 (with a note) when node
# or npm is missing or a package cannot be installed: the caller prints its
# figures as "unavailable".
node_refs_setup() {
	local dir=$1 spec name version pkg
	shift
	if ! command -v "$node" >/dev/null || ! command -v npm >/dev/null; then
		note "node or npm not found"
		return 1
	fi
	local cache=${XDG_CACHE_HOME:-$HOME/.cache}/cubed-bench/node
	for spec in "$@"; do
		name=${spec%@*}
		version=${spec##*@}
		pkg=$cache/node_modules/$name/package.json
		grep -q "\"version\": \"$version\"" "$pkg" 2>/dev/null && continue
		note "installing $spec into $cache"
		mkdir -p "$cache" || return 1
		[ -f "$cache/package.json" ] || echo '{ "private": true }' >"$cache/package.json"
		(cd "$cache" && timeout 180 npm install --no-audit --no-fund \
			--loglevel=error "$spec") >&2 || return 1
	done
	note "$* on node $("$node" --version)"
	[ -e "$dir/node_modules" ] || ln -s "$cache/node_modules" "$dir/node_modules"
}
