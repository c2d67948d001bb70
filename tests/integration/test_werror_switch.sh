#!/bin/bash
# The Makefile's WERROR switch (as hiredis's USE_WERROR): by default every C and C++ compile line holds -Werror;
# `make WERROR=0` keeps the warnings and drops -Werror, for packagers on a newer compiler. Read from `make -n -B`
# (nothing is built).
. "$(dirname "$0")/checks.sh"
test_begin
b=${BUILD:-build}
for obj in applier/core/array.o applier/webhook/re2.o; do
	dflt=$(make -s -n -B "BUILD=$b" "$b/$obj" 2>&1 | grep -e ' -c ')
	off=$(make -s -n -B "BUILD=$b" WERROR=0 "$b/$obj" 2>&1 | grep -e ' -c ')
	case " $dflt " in *" -Werror "*) ok "$obj: the default compile line holds -Werror" ;;
	*) not_ok "$obj: the default compile line lacks -Werror: $dflt" ;; esac
	case " $off " in
	*" -Werror "*) not_ok "$obj: WERROR=0 still compiles with -Werror: $off" ;;
	*" -Wall -Wextra "*) ok "$obj: WERROR=0 drops -Werror and keeps -Wall -Wextra" ;;
	*) not_ok "$obj: WERROR=0 compile line: $off" ;; esac
done
echo "# $failures failed"
[ "$failures" -eq 0 ]
