#!/bin/sh
# public-symbols.sh [--map]: the functions the public headers declare (include/dnsbatch/*.h and
# include/dnsbatch/sys/*.h), one a line, sorted; with --map, as the linker version script
# packaging/libdnsbatch.map, which makes them the only symbols libdnsbatch.so exports.
#
# sys/ is public: it is installed, documented symbol by symbol, and is what a backend built outside
# the tree (docs/provider-author.md) links against, as libgit2 exports its git2/sys/ API.
# The map is kept in the repository, not made at build time, so that the ABI changes only by a
# deliberate edit; tests/integration/test_shared_lib.sh checks that it, the headers and the library
# agree. After adding a public function:  sh scripts/public-symbols.sh --map > packaging/libdnsbatch.map
set -eu
cd "$(dirname "$0")/.."
command -v ctags >/dev/null || { echo "$0: ctags not found (apt-get install universal-ctags)" >&2; exit 2; }
names=$(ctags -x --c-kinds=p --language-force=C include/dnsbatch/*.h include/dnsbatch/sys/*.h |
	awk '{ print $1 }' | LC_ALL=C sort -u)
if [ "${1:-}" != --map ]; then
	printf '%s\n' "$names"
	exit 0
fi
echo "/* libdnsbatch's exported symbols: the public headers' functions (scripts/public-symbols.sh --map). */"
echo "DNSBATCH_0 {"
echo "global:"
printf '\t%s;\n' $names
echo "local:"
echo "	*;"
echo "};"
