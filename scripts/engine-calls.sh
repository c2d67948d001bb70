#!/bin/sh
# engine-calls.sh - the cross-file call graph of the library and the program (ctags), and three checks:
#  - no call circle: no two files (anywhere under the directories given) call each other, directly or
#    round a longer loop; a circle is printed "CIRCLE: a b c" (its files, without .c);
#  - one way down the engine's pipeline: a file of an `engine` directory calls only files of it later in the
#    pipeline (the order below), or state.c (the engine's state, which every stage reads); "<- BACK" marks one;
#  - the engine's state stays its own: no file outside an `engine` directory includes applier/engine/internal.h
#    (a command that needs the engine calls dnsbatch/engine.h); "INTERNAL: file" names one;
#  - the library's applier/ calls nothing of providers/ (docs/design.md §1: providers/ stands on applier/, the
#    program cli/ on both; the HTTP transport, its throttle chain and the rate budget are applier/net/, which both
#    use); "UP: from -> to: names" names a call up, "UP: file: #include ..." an include of providers/.
# Circles being removed elsewhere may be listed in KNOWN_CIRCLES (one a line, files sorted as printed): they are
# printed "known circle: ..." and do not fail the check. Keep the list short, and empty once they land.
# Usage: sh scripts/engine-calls.sh [dir...]   (default: applier providers include cli)   exit 1 on a circle, a call
# back, an include of the engine's internals or a call up from applier/ into providers/.
order="unopened engine zones threshold group held preview batch isolate settle submit noop verify retry diagnose outcome failed_sum summary quarantine progress state"
KNOWN_CIRCLES=''
[ $# -gt 0 ] || set -- applier providers include cli
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
find "$@" -name '*.c' | sort > "$tmp/files"
# files outside an engine directory that include the engine's internals
find "$@" \( -name '*.c' -o -name '*.h' -o -name '*.cc' \) | grep -v '\(^\|/\)engine/[^/]*$' |
	xargs grep -l '#[[:space:]]*include[[:space:]]*"applier/engine/internal\.h"' 2>/dev/null |
	sed 's/^/INTERNAL: /' > "$tmp/internal"
[ -s "$tmp/files" ] || { echo "engine-calls.sh: no C files under $*" >&2; exit 2; }
# name file, for every function with external linkage (dnsb_ prefix, not static) defined in the files
xargs ctags -x --c-kinds=f < "$tmp/files" |
	awk '$1 ~ /^dnsb_/ { line = $0; sub(/^[^ ]+ +[^ ]+ +[0-9]+ +[^ ]+ +/, "", line);
	                     if (line !~ /^static/) print $1, $4 }' > "$tmp/tags"
# from to name: each call (an identifier followed by "(", outside comments) of a function defined in another file
xargs awk -v tags="$tmp/tags" '
	BEGIN { while ((getline l < tags) > 0) { split(l, a, " "); def[a[1]] = a[2] } }
	FNR == 1 { incomment = 0 }
	{
		s = $0; out = ""
		while (s != "") {     # strip comments, /* */ across lines and //
			if (incomment) { i = index(s, "*/"); if (i == 0) { s = "" } else { s = substr(s, i + 2); incomment = 0 } ; continue }
			i = index(s, "/*"); j = index(s, "//")
			if (j > 0 && (i == 0 || j < i)) { out = out substr(s, 1, j - 1); s = ""; continue }
			if (i == 0) { out = out s; s = ""; continue }
			out = out substr(s, 1, i - 1); s = substr(s, i + 2); incomment = 1
		}
		while (match(out, /dnsb_[A-Za-z0-9_]*[ \t]*\(/)) {
			name = substr(out, RSTART, RLENGTH); sub(/[ \t]*\($/, "", name)
			out = substr(out, RSTART + RLENGTH)
			if ((name in def) && def[name] != FILENAME) print FILENAME, def[name], name
		}
	}' < "$tmp/files" | sort -u > "$tmp/calls"
# "from -> to: names", with "<- BACK" on a call back up the engine's pipeline
awk -v order="$order" '
	function base(f) { sub(/\.c$/, "", f); return f }
	function dir(f) { sub(/\/[^\/]*$/, "", f); return f }
	function leaf(f) { f = base(f); sub(/.*\//, "", f); return f }
	BEGIN { n = split(order, o, " "); for (i = 1; i <= n; i++) rank[o[i]] = i }
	{ key = base($1) " -> " base($2); if (key in names) names[key] = names[key] "," $3; else names[key] = $3
	  back[key] = dir($1) == dir($2) && dir($1) ~ /(^|\/)engine$/ && leaf($2) != "state" &&
	              (leaf($2) in rank ? rank[leaf($2)] : 99) <= (leaf($1) in rank ? rank[leaf($1)] : 99) }
	END { for (k in names) print k ": " names[k] (back[k] ? "  <- BACK" : "") }' "$tmp/calls" | sort > "$tmp/edges"
cat "$tmp/edges"
# circles: the strongly connected components of more than one file (Tarjan)
awk -v known="$KNOWN_CIRCLES" '
	function visit(v,   i, w) {
		index_of[v] = lowlink[v] = ++counter; stack[++sp] = v; on[v] = 1
		for (i = 1; i <= nout[v]; i++) {
			w = out[v, i]
			if (!(w in index_of)) { visit(w); if (lowlink[w] < lowlink[v]) lowlink[v] = lowlink[w] }
			else if (on[w] && index_of[w] < lowlink[v]) lowlink[v] = index_of[w]
		}
		if (lowlink[v] == index_of[v]) {
			comp = ""; size = 0
			do { w = stack[sp--]; on[w] = 0; members[++size] = w } while (w != v)
			if (size > 1) {
				for (i = 2; i <= size; i++) { x = members[i]; for (j = i - 1; j >= 1 && members[j] > x; j--) members[j + 1] = members[j]; members[j + 1] = x }
				for (i = 1; i <= size; i++) comp = comp (i > 1 ? " " : "") members[i]
				print ((comp in excused) ? "known circle: " : "CIRCLE: ") comp
			}
		}
	}
	BEGIN { n = split(known, k, "\n"); for (i = 1; i <= n; i++) excused[k[i]] = 1 }
	{ from = $1; to = $3; sub(/:$/, "", to); node[from] = node[to] = 1; out[from, ++nout[from]] = to }
	END { for (v in node) if (!(v in index_of)) visit(v) }' "$tmp/edges" | sort > "$tmp/circles"
cat "$tmp/circles"
cat "$tmp/internal"
grep -E '^([^ ]*/)?applier/[^ ]* -> ([^ ]*/)?providers/' "$tmp/edges" | sed 's/^/UP: /' > "$tmp/up"
for d in "$@"; do
	find "$d" -path '*applier/*' \( -name '*.c' -o -name '*.h' -o -name '*.cc' \) -exec grep -H '^#include "providers/' {} + 2>/dev/null
done | sed 's/^/UP: /' >> "$tmp/up"
cat "$tmp/up"
! grep -q 'BACK$' "$tmp/edges" && ! grep -q '^CIRCLE' "$tmp/circles" && ! [ -s "$tmp/internal" ] && ! [ -s "$tmp/up" ]
