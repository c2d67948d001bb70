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
set -u
cd "$(dirname "$0")/../.." || exit 1
BUILD=${BUILD:-build}
if [ "${SANITIZED:-0}" = 1 ]; then
	echo "# skip: the sanitized library needs its runtime loaded first; test_install.sh links it under make sanitize"
	exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
ok() { echo "ok - $1"; }
not_ok() { echo "not ok - $1"; failures=$((failures + 1)); }
sover=$(sed -n 's/^SOVERSION = //p' Makefile)

if make -s --no-print-directory BUILD="$BUILD" install DESTDIR="$tmp/root" PREFIX=/opt/dnsbatch >"$tmp/install.log" 2>&1; then
	ok "make install DESTDIR=... PREFIX=/opt/dnsbatch"
else
	not_ok "make install"; sed 's/^/#   /' "$tmp/install.log"
fi
libdir=$tmp/root/opt/dnsbatch/lib
so=$libdir/libdnsbatch.so.$sover
soname=$(readelf -d "$so" 2>/dev/null | sed -n 's/.*(SONAME).*\[\(.*\)\]$/\1/p')
[ "$soname" = "libdnsbatch.so.$sover" ] && ok "soname libdnsbatch.so.$sover" || not_ok "soname libdnsbatch.so.$sover (got '$soname')"
[ "$(readlink "$libdir/libdnsbatch.so")" = "libdnsbatch.so.$sover" ] && [ -f "$(readlink -f "$so")" ] \
	&& ok "libdnsbatch.so -> libdnsbatch.so.$sover -> the library" || not_ok "the libdnsbatch.so links"

# The defined dynamic symbols, less the version node (an absolute symbol named after it).
nm -D --defined-only "$so" | awk '$2 != "A" { print $3 }' | sed 's/@.*//' | LC_ALL=C sort -u >"$tmp/exported"
if ! sh scripts/public-symbols.sh >"$tmp/declared" 2>"$tmp/declared.err" || [ ! -s "$tmp/declared" ]; then
	not_ok "the public headers' functions (scripts/public-symbols.sh)"; cat "$tmp/declared.err"
fi
LC_ALL=C comm -23 "$tmp/exported" "$tmp/declared" >"$tmp/leaked"
LC_ALL=C comm -13 "$tmp/exported" "$tmp/declared" >"$tmp/missing"
if [ -s "$tmp/leaked" ]; then
	not_ok "no symbol exported that the public headers do not declare: $(tr '\n' ' ' <"$tmp/leaked" | cut -c1-400)"
else
	ok "no symbol exported that the public headers do not declare ($(wc -l <"$tmp/exported") exported)"
fi
if [ -s "$tmp/missing" ]; then
	not_ok "every function of the public headers exported; not: $(tr '\n' ' ' <"$tmp/missing" | cut -c1-400)" \
		"(add it: sh scripts/public-symbols.sh --map > packaging/libdnsbatch.map)"
else
	ok "every function of the public headers is exported ($(wc -l <"$tmp/declared") declared)"
fi
nm -D --defined-only "$so" | awk '$2 != "A" && $3 !~ /^dnsb_/' >"$tmp/foreign"
[ -s "$tmp/foreign" ] && not_ok "only dnsb_ names exported: $(head -c 300 "$tmp/foreign")" || ok "only dnsb_ names exported"

cat >"$tmp/user.c" <<'C'
#include <stdio.h>
#include <string.h>
#include <dnsbatch/dnsbatch.h>
#include <dnsbatch/memory.h>

int main(void)
{
	static const char plan_json[] = "{\"create\":[{\"dnsName\":\"www.example.com\",\"recordType\":\"A\",\"targets\":[\"192.0.2.1\"]},"
					"{\"dnsName\":\"mail.example.com\",\"recordType\":\"A\",\"targets\":[\"192.0.2.2\"]}]}";
	const char *zones[] = { "example.com" };
	dnsb_provider *p = NULL;
	dnsb_plan *plan = NULL;
	dnsb_report rep;

	if (dnsb_memory_new(&p, zones, 1, NULL, NULL) != 0 ||
	    dnsb_plan_parse(&plan, plan_json, strlen(plan_json), "user", NULL) != 0 ||
	    dnsb_engine_apply(&rep, p, plan, NULL, NULL) != 0)
		return 1;
	printf("applied=%zu rrsets=%zu\n", rep.applied, dnsb_memory_rrset_count(p));
	dnsb_report_clear(&rep);
	dnsb_plan_free(plan);
	dnsb_provider_free(p);
	return 0;
}
C
pc=$libdir/pkgconfig
# shellcheck disable=SC2046
if cc -std=c11 -Wall -Werror -o "$tmp/user" "$tmp/user.c" $(PKG_CONFIG_PATH="$pc" PKG_CONFIG_SYSROOT_DIR="$tmp/root" \
	pkg-config --cflags --libs dnsbatch) 2>"$tmp/cc.log"; then
	ok "a program builds with pkg-config --cflags --libs dnsbatch (the installed dnsbatch.pc)"
else
	not_ok "a program builds with pkg-config --cflags --libs dnsbatch"; sed 's/^/#   /' "$tmp/cc.log"
fi
readelf -d "$tmp/user" 2>/dev/null | grep -q "NEEDED.*\[libdnsbatch.so.$sover\]" \
	&& ok "it links libdnsbatch.so.$sover (NEEDED), not the static library" || not_ok "it links libdnsbatch.so.$sover"
out=$(LD_LIBRARY_PATH=$libdir "$tmp/user" 2>&1)
[ "$out" = "applied=2 rrsets=2" ] && ok "through the shared library it applies a plan to the memory provider ($out)" \
	|| not_ok "it applies a plan through the shared library (got '$out')"
LD_LIBRARY_PATH=$libdir ldd "$tmp/user" | grep -q "libdnsbatch.so.$sover => $libdir/" \
	&& ok "the loader takes the installed library" || not_ok "the loader takes the installed library"
readelf -d "$BUILD/dnsbatch" | grep -q 'NEEDED.*libdnsbatch' \
	&& not_ok "$BUILD/dnsbatch links libdnsbatch.a, not the shared library" \
	|| ok "$BUILD/dnsbatch links libdnsbatch.a, not the shared library"
echo "# $failures failed"
[ "$failures" -eq 0 ]
