#!/usr/bin/env bash
# refs.sh — no text file of the repository names a repository file that
# is not there. `make test` runs it before the suites (test-run); it prints each
# bad reference as file:line: reference (why) and exits 1 if there is any.
#
# Read: Markdown, shell (.sh and .ci/), the Makefile and Dockerfile, Lua
# and YAML whole; in C sources and headers, JS, MJS and TS, the comments
# only (names in their code are checked by compiling and running it).
# A reference is
#   - a path that starts at a top-level folder of the tree (bench, core,
#     docker, docs, schema, server, tests, web, .ci), or climbs to one with
#     ../ from the file's own folder: it must be a tracked file or folder,
#     or a pattern that matches one (* or % any part of a name, NNN three
#     digits, NNN_name a migration, a last part of digits a migration's
#     number), or a path .gitignore names (a build output);
#   - a bare file name or partial path of the tree's kinds (.c .h .md .sh
#     .mjs .js .ts .def .sql .lua .yaml): some tracked file must have that
#     name or end with that path;
#   - in Markdown, a relative link [text](target#anchor): the target,
#     taken from the file's own folder, must exist, and the anchor must be
#     a heading of the Markdown file it names (GitHub's way: lower case,
#     punctuation dropped, spaces as hyphens);
#   - a path that climbs out of the repository: always an error, since
#     the repository stands alone.
# Not read: files under schema/ (applied migrations are never edited, and
# may name files of their day). Not references: URLs (a path right after a
# / is part of one), a page's content-hashed asset names (main-4FJ2K3LQ.js)
# and the names in EXTERNAL below.
set -u
cd "$(dirname "$0")/.." || exit 2

# Names that are not files of this tree: libraries called by a file name.
EXTERNAL='three.js cubing.js Node.js node.js'

# the tracked files and those about to be (untracked, not ignored), less
# those deleted from the work tree
if files=$(git ls-files --cached --others --exclude-standard 2>/dev/null) &&
	[ -n "$files" ]; then
	in_git=1
	gone=$(git ls-files --deleted)
	[ -z "$gone" ] || files=$(printf '%s\n' "$files" | grep -vxF "$gone")
else
	# not a git checkout (an unpacked archive): every file but build outputs
	in_git=0
	files=$(find . -type f ! -path './.git/*' ! -path './build*' \
		! -path '*/node_modules/*' | sed 's|^\./||' | sort)
fi

checked=$(printf '%s\n' "$files" | grep -v '^schema/' | grep -E \
	'(\.(md|c|h|def|sh|mjs|cjs|js|ts|lua|yaml|yml)|(^|/)(Makefile|Dockerfile)|^[.]ci/[^/]*)$')

ext='c|h|md|sh|mjs|js|ts|def|sql|lua|yaml'
top='\.ci|bench|core|docker|docs|schema|server|tests|web'
# a reference starts where no path or variable character comes before it
lb='(?<![A-Za-z0-9_./$-])'
# (% only in paths: in a bare name it is more often shell's ${x%.lua})
seg='[A-Za-z0-9_.*+-]'
path_re="$lb(?:\\.\\./)*(?:$top)/[A-Za-z0-9_./*%+-]*"
up_re="$lb(?:\\.\\./)+$seg+(?:/$seg+)*/?"
name_re="$lb[A-Za-z0-9_]$seg*(?:/$seg+)*\\.(?:$ext)(?![A-Za-z0-9_]|\\.[A-Za-z0-9_])"

# The comments of a C or JS file, everything else blanked (line numbers
# kept): strings and character literals are skipped, so a "//" in one
# starts no comment.
comments() {
	awk '
	BEGIN { inc = 0 }
	{
		s = $0; out = ""; n = length(s); i = 1; q = ""
		while (i <= n) {
			c = substr(s, i, 1); c2 = substr(s, i, 2)
			if (inc) {
				if (c2 == "*/") { inc = 0; out = out "  "; i += 2; continue }
				out = out c; i++; continue
			}
			if (q != "") {
				if (c == "\\") { out = out "  "; i += 2; continue }
				if (c == q) q = ""
				out = out " "; i++; continue
			}
			if (c2 == "/*") { inc = 1; out = out "  "; i += 2; continue }
			if (c2 == "//") { out = out substr(s, i); break }
			if (c == "\"" || c == "\047" || c == "`") q = c
			out = out " "; i++
		}
		print out
	}' "$1"
}

# file:line:token for every candidate; file:line:link:target for links
cands() {
	local f
	while IFS= read -r f; do
		[ -f "$f" ] || continue
		case $f in
		*.c|*.h|*.def|*.js|*.mjs|*.cjs|*.ts)
			comments "$f" | grep -HnoP --label="$f" "$path_re|$up_re|$name_re" ;;
		*)
			grep -HnoP "$path_re|$up_re|$name_re" -- "$f" ;;
		esac
		case $f in *.md)
			grep -HnoP '\]\(\K[^)[:space:]]+' -- "$f" |
				sed 's/^\([^:]*:[0-9]*:\)/\1link:/' ;;
		esac
	done <<<"$checked"
}

# First the tracked files, then the candidates. A reference that names no
# tracked file is printed with the paths it may mean, tab-separated, for
# the .gitignore question below.
judge() {
	awk -v external="$EXTERNAL" '
	function norm(p,    n, a, i, o, k) {
		# resolve . and ..; "" when it climbs out of the repository
		n = split(p, a, "/"); k = 0
		for (i = 1; i <= n; i++) {
			if (a[i] == "" || a[i] == ".") continue
			if (a[i] == "..") { if (k == 0) return ""; k--; continue }
			o[++k] = a[i]
		}
		p = ""
		for (i = 1; i <= k; i++) p = p (i > 1 ? "/" : "") o[i]
		return p
	}
	function globre(g,    r, n, a, i) {
		# a part in capitals alone (TARGET) stands for any name
		n = split(g, a, "/"); r = ""
		for (i = 1; i <= n; i++) {
			if (a[i] ~ /^[A-Z][A-Z]+$/ && a[i] != "NNN") a[i] = "*"
			r = r (i > 1 ? "/" : "") a[i]
		}
		gsub(/[.+]/, "\\\\&", r)
		gsub(/NNN_name/, "NNN_*", r)
		gsub(/NNN/, "[0-9][0-9][0-9]", r)
		gsub(/[*%]/, "[^/]*", r)
		if (r ~ /\/[0-9]+$/) r = r "_[^/]*"
		return r
	}
	function exists(p,    r, f) {
		if (p in file || p in dir) return 1
		if (p ~ /[*%]|NNN|\/[0-9]+$|(^|\/)[A-Z][A-Z]+(\/|$)/) {
			r = "^" globre(p) "$"
			for (f in file) if (f ~ r) return 1
			for (f in dir) if (f ~ r) return 1
		}
		return 0
	}
	function tail(p,    r, f) {
		# some tracked file is named p or ends with /p
		if (p in base || p in file) return 1
		r = "(^|/)" globre(p) "$"
		for (f in file) if (f ~ r) return 1
		return 0
	}
	function slugs(f,    l, h, fence) {
		# the anchors of the headings of f, once per file
		if (f in slugged) return
		slugged[f] = 1; fence = 0
		while ((getline l < f) > 0) {
			if (l ~ /^```/) fence = !fence
			if (fence || l !~ /^#+ /) continue
			h = tolower(l); sub(/^#+ +/, "", h)
			gsub(/[^a-z0-9 _-]/, "", h); gsub(/ /, "-", h)
			anchor[f "#" h] = 1
		}
		close(f)
	}
	function report(why, maybe) {
		printf "%s:%s: %s (%s)\t%s\n", src, line, tok, why, maybe
	}
	BEGIN { n = split(external, e, " "); for (i = 1; i <= n; i++) ext[e[i]] = 1 }
	FNR == NR {
		file[$0] = 1; b = $0; sub(/.*\//, "", b); base[b] = 1
		d = $0
		while (sub(/\/[^\/]*$/, "", d)) dir[d] = 1
		next
	}
	{
		src = $0; sub(/:.*/, "", src)
		rest = substr($0, length(src) + 2)
		line = rest; sub(/:.*/, "", line)
		tok = substr(rest, length(line) + 2)
		islink = sub(/^link:/, "", tok)
		if (!islink) sub(/\.+$/, "", tok)
		sub(/\/+$/, "", tok)
		if (tok == "" || tok in ext) next
		if (tok ~ /(^|\/)[A-Za-z]+-[A-Z0-9][A-Z0-9][A-Z0-9][A-Z0-9][A-Z0-9][A-Z0-9][A-Z0-9][A-Z0-9]\.(js|css)$/) next
		here = src; if (!sub(/\/[^\/]*$/, "", here)) here = ""
		from = here == "" ? "" : here "/"
		if (islink) {
			if (tok ~ /^[a-z]+:/) next
			frag = ""
			if (i = index(tok, "#")) { frag = substr(tok, i + 1); tok = substr(tok, 1, i - 1) }
			p = tok == "" ? src : norm(from tok)
			if (p == "") report("outside the repository", "")
			else if (!exists(p)) report("no such file, from " (here == "" ? "the top" : here "/"), p)
			else if (frag != "" && p ~ /\.md$/) {
				slugs(p)
				if (!((p "#" frag) in anchor)) { tok = tok "#" frag; report("no such heading in " p, "") }
			}
		} else if (tok ~ /^\.\.\//) {
			p = norm(from tok)
			if (p == "") {
				# ../../etc/passwd in a test is data; a document is not
				if (tok ~ /shared\// || tok ~ /\.(c|h|md|sh|mjs|js|ts|def|sql|lua|yaml)$/)
					report("outside the repository", "")
			} else if (!exists(p))
				report("no such file, from " (here == "" ? "the top" : here "/"), p)
		} else if (tok ~ /^(\.ci|bench|core|docker|docs|schema|server|tests|web)(\/|$)/) {
			if (!exists(tok)) report("no such file", tok "\t" from tok)
		} else if (!tail(tok)) {
			report("no file of this name in the tree", tok "\t" from tok)
		}
	}'  - "$1"
}

# Does a .gitignore name path $1 (or a folder it lies in)? Outside a git
# checkout, a plain reading of the .gitignore files: no negations, a
# pattern with a slash anchored to its file's folder, one without matching
# any part of the path.
ignored() {
	if [ "$in_git" = 1 ]; then
		git check-ignore -q --no-index -- "$1" 2>/dev/null
		return
	fi
	local gi dir rel pat pre part
	while IFS= read -r gi; do
		dir=${gi%.gitignore}
		case $1 in "$dir"*) ;; *) continue ;; esac
		rel=${1#"$dir"}
		while IFS= read -r pat; do
			pat=${pat%%#*}
			pat=${pat%/}
			case $pat in '' | '!'*) continue ;; esac
			if [[ $pat == */* ]]; then
				pat=${pat#/}
				pre=
				for part in ${rel//\// }; do
					pre=${pre:+$pre/}$part
					# shellcheck disable=SC2053
					[[ $pre == $pat ]] && return 0
				done
			else
				for part in ${rel//\// }; do
					# shellcheck disable=SC2053
					[[ $part == $pat ]] && return 0
				done
			fi
		done <"$gi"
	done < <(printf '%s\n' "$files" | grep -E '(^|/)\.gitignore$')
	return 1
}

list=$(mktemp) || exit 2
trap 'rm -f "$list"' EXIT
cands >"$list"
bad=0
while IFS=$'\t' read -r msg maybe; do
	# a path .gitignore names is a build output (node_modules/, build/)
	skip=0
	for p in $maybe; do
		ignored "$p" && skip=1
	done
	[ $skip = 1 ] && continue
	echo "$msg"
	bad=$((bad + 1))
done < <(printf '%s\n' "$files" | judge "$list")
if [ $bad -ne 0 ]; then
	echo "refs.sh: $bad reference(s) above name no file of the repository" >&2
	exit 1
fi
