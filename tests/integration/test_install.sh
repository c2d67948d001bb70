#!/bin/bash
# make install: the library, the headers and dnsbatch.pc land under PREFIX (in a DESTDIR), and a
# program built with `pkg-config --cflags --libs dnsbatch` against them alone applies a plan.
# Also: every public header compiles alone with -pedantic -Werror (make check-headers).
. "$(dirname "$0")/checks.sh"
test_begin
scratch

make -s --no-print-directory check-headers | tee "$T/headers"
grep -q '^not ok' "$T/headers" && failures=$((failures + 1))

install_tree "$T/root"
pc=$T/root/opt/dnsbatch/lib/pkgconfig/dnsbatch.pc
[ -f "$pc" ] && ok "dnsbatch.pc installed" || not_ok "dnsbatch.pc installed"
[ -f "$T/root/opt/dnsbatch/include/dnsbatch/sys/provider.h" ] && ok "headers installed" || not_ok "headers installed"

user_program "$T/root" "$T/user"
out=$(LD_LIBRARY_PATH=$T/root/opt/dnsbatch/lib "$T/user" 2>&1)
[ "$out" = "$(version_h) applied=2 rrsets=2" ] && ok "it applies a plan through the installed library" \
	|| not_ok "it applies a plan through the installed library (got '$out')"
echo "# $failures failed"
[ "$failures" -eq 0 ]
