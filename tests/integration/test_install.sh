#!/bin/bash
# make install: the library, the headers and dnsbatch.pc land under PREFIX (in a DESTDIR), and a
# program built with `pkg-config --cflags --libs dnsbatch` against them alone applies a plan.
# Also: every public header compiles alone with -pedantic -Werror (make check-headers).
set -u
BUILD=${BUILD:-build}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
ok() { echo "ok - $1"; }
not_ok() { echo "not ok - $1"; failures=$((failures + 1)); }

make -s --no-print-directory check-headers | tee "$tmp/headers"
grep -q '^not ok' "$tmp/headers" && failures=$((failures + 1))

# Under make sanitize the objects are sanitized: the shared library's link needs the sanitizer flags too.
sanmake=()
[ "${SANITIZED:-0}" = 1 ] && sanmake=(SAN=1 OPT="-O1 -g")
make -s --no-print-directory BUILD="$BUILD" "${sanmake[@]}" install DESTDIR="$tmp/root" PREFIX=/opt/dnsbatch \
	>"$tmp/install.log" 2>&1 \
	&& ok "make install DESTDIR=... PREFIX=/opt/dnsbatch" || { not_ok "make install"; cat "$tmp/install.log"; }
pc=$tmp/root/opt/dnsbatch/lib/pkgconfig/dnsbatch.pc
[ -f "$pc" ] && ok "dnsbatch.pc installed" || not_ok "dnsbatch.pc installed"
[ -f "$tmp/root/opt/dnsbatch/include/dnsbatch/sys/provider.h" ] && ok "headers installed" || not_ok "headers installed"

cat >"$tmp/user.c" <<'C'
#include <stdio.h>
#include <string.h>
#include <dnsbatch/dnsbatch.h>
#include <dnsbatch/memory.h>

int main(void)
{
	static const char plan_json[] = "{\"create\":[{\"dnsName\":\"www.example.com\",\"recordType\":\"A\",\"targets\":[\"192.0.2.1\"]}]}";
	const char *zones[] = { "example.com" };
	dnsb_provider *p = NULL;
	dnsb_plan *plan = NULL;
	dnsb_report rep;

	if (dnsb_memory_new(&p, zones, 1, NULL, NULL) != 0 ||
	    dnsb_plan_parse(&plan, plan_json, strlen(plan_json), "user", NULL) != 0 ||
	    dnsb_engine_apply(&rep, p, plan, NULL, NULL) != 0)
		return 1;
	printf("%s applied=%zu\n", DNSBATCH_VERSION, rep.applied);
	dnsb_report_clear(&rep);
	dnsb_plan_free(plan);
	dnsb_provider_free(p);
	return 0;
}
C
# The sanitized library needs the sanitizer runtime at link time.
san=""
[ "${SANITIZED:-0}" = 1 ] && san="-fsanitize=address,undefined"
# shellcheck disable=SC2046
if cc -std=c11 $san -o "$tmp/user" "$tmp/user.c" $(PKG_CONFIG_PATH="$(dirname "$pc")" PKG_CONFIG_SYSROOT_DIR="$tmp/root" \
	pkg-config --cflags --libs dnsbatch) 2>"$tmp/cc.log"; then
	ok "a program builds with pkg-config --cflags --libs dnsbatch"
else
	not_ok "a program builds with pkg-config --cflags --libs dnsbatch"; cat "$tmp/cc.log"
fi
out=$(LD_LIBRARY_PATH=$tmp/root/opt/dnsbatch/lib "$tmp/user" 2>&1)
[ "$out" = "0.1.0 applied=1" ] && ok "it applies a plan through the installed library" \
	|| not_ok "it applies a plan through the installed library (got '$out')"
echo "# $failures failed"
[ "$failures" -eq 0 ]
