#!/bin/bash
# test_shared_lib.sh - libdnsbatch.so as a user links it:
# - it has the soname libdnsbatch.so.N (N = SOVERSION in the Makefile), installed with the
#   libdnsbatch.so.N and libdnsbatch.so links;
# - it exports exactly the functions the public headers declare (include/dnsbatch/*.h and sys/*.h,
#   scripts/public-symbols.sh), through packaging/libdnsbatch.map: an internal dnsb_ function, a C++
#   symbol of RE2 or a static library's symbol cannot leak out, and a public one cannot be left out;
# - a program built with `pkg-config --cflags --libs dnsbatch` against the installed .pc links the
#   shared library (not the .a) and applies a plan to the memory provider;
# - build/dnsbatch itself still links libdnsbatch.a (no libdnsbatch.so in its NEEDED).
. "$(dirname "$0")/checks.sh"
test_begin
if [ "${SANITIZED:-0}" = 1 ]; then
	echo "# skip: the sanitized library needs its runtime loaded first; test_install.sh links it under make sanitize"
	exit 0
fi
scratch
sover=$(sed -n 's/^SOVERSION = //p' Makefile)

install_tree "$T/root"
libdir=$T/root/opt/dnsbatch/lib
so=$libdir/libdnsbatch.so.$sover
soname=$(readelf -d "$so" 2>/dev/null | sed -n 's/.*(SONAME).*\[\(.*\)\]$/\1/p')
[ "$soname" = "libdnsbatch.so.$sover" ] && ok "soname libdnsbatch.so.$sover" || not_ok "soname libdnsbatch.so.$sover (got '$soname')"
[ "$(readlink "$libdir/libdnsbatch.so")" = "libdnsbatch.so.$sover" ] && [ -f "$(readlink -f "$so")" ] \
	&& ok "libdnsbatch.so -> libdnsbatch.so.$sover -> the library" || not_ok "the libdnsbatch.so links"

# The defined dynamic symbols, less the version node (an absolute symbol named after it).
nm -D --defined-only "$so" | awk '$2 != "A" { print $3 }' | sed 's/@.*//' | LC_ALL=C sort -u >"$T/exported"
if ! sh scripts/public-symbols.sh >"$T/declared" 2>"$T/declared.err" || [ ! -s "$T/declared" ]; then
	not_ok "the public headers' functions (scripts/public-symbols.sh)"; cat "$T/declared.err"
fi
LC_ALL=C comm -23 "$T/exported" "$T/declared" >"$T/leaked"
LC_ALL=C comm -13 "$T/exported" "$T/declared" >"$T/missing"
if [ -s "$T/leaked" ]; then
	not_ok "no symbol exported that the public headers do not declare: $(tr '\n' ' ' <"$T/leaked" | cut -c1-400)"
else
	ok "no symbol exported that the public headers do not declare ($(wc -l <"$T/exported") exported)"
fi
if [ -s "$T/missing" ]; then
	not_ok "every function of the public headers exported; not: $(tr '\n' ' ' <"$T/missing" | cut -c1-400)" \
		"(add it: sh scripts/public-symbols.sh --map > packaging/libdnsbatch.map)"
else
	ok "every function of the public headers is exported ($(wc -l <"$T/declared") declared)"
fi
nm -D --defined-only "$so" | awk '$2 != "A" && $3 !~ /^dnsb_/' >"$T/foreign"
[ -s "$T/foreign" ] && not_ok "only dnsb_ names exported: $(head -c 300 "$T/foreign")" || ok "only dnsb_ names exported"

user_program "$T/root" "$T/user"
readelf -d "$T/user" 2>/dev/null | grep -q "NEEDED.*\[libdnsbatch.so.$sover\]" \
	&& ok "it links libdnsbatch.so.$sover (NEEDED), not the static library" || not_ok "it links libdnsbatch.so.$sover"
out=$(LD_LIBRARY_PATH=$libdir "$T/user" 2>&1)
[ "$out" = "$(version_h) applied=2 rrsets=2" ] && ok "through the shared library it applies a plan to the memory provider ($out)" \
	|| not_ok "it applies a plan through the shared library (got '$out')"
LD_LIBRARY_PATH=$libdir ldd "$T/user" | grep -q "libdnsbatch.so.$sover => $libdir/" \
	&& ok "the loader takes the installed library" || not_ok "the loader takes the installed library"
readelf -d "$BUILD/dnsbatch" | grep -q 'NEEDED.*libdnsbatch' \
	&& not_ok "$BUILD/dnsbatch links libdnsbatch.a, not the shared library" \
	|| ok "$BUILD/dnsbatch links libdnsbatch.a, not the shared library"
echo "# $failures failed"
[ "$failures" -eq 0 ]
