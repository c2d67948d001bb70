#!/bin/sh
# check-repro.sh TARBALL DIR: unpack the source tarball (make dist) twice, at DIR/a/ and at
# DIR/elsewhere/b/ (paths of different lengths), build the .deb packages in each (make deb) and check
# that they are byte-identical: no build path, time or order depends on where or when they were built.
# HELP_JSON, if set, is passed to make deb. About two full builds' time (2 x 40 s here, 2 cores).
set -eu
[ $# -eq 2 ] || { echo "usage: $0 TARBALL DIR" >&2; exit 2; }
tarball=$1 dir=$2
case $tarball in /*) ;; *) tarball=$(pwd)/$tarball ;; esac
case ${HELP_JSON:-} in ''|/*) ;; *) HELP_JSON=$(pwd)/$HELP_JSON ;; esac
rm -rf "$dir"
status=0
for tree in "$dir/a" "$dir/elsewhere/b"; do
	mkdir -p "$tree"
	tar -xzf "$tarball" -C "$tree"
	src=$(find "$tree" -mindepth 1 -maxdepth 1 -type d)
	(cd "$src" && make -s --no-print-directory deb ${HELP_JSON:+HELP_JSON=$HELP_JSON} >../deb.log 2>&1) ||
		{ echo "check-repro: make deb in $src failed:" >&2; tail -n 20 "$tree/deb.log" >&2; exit 1; }
done
a=$(find "$dir/a" -path '*/build/deb/*.deb' | LC_ALL=C sort)
[ -n "$a" ] || { echo "check-repro: no package built" >&2; exit 1; }
for deb in $a; do
	other=$(find "$dir/elsewhere/b" -path "*/build/deb/$(basename "$deb")")
	x=$(dirname "$deb")/x-$(basename "$deb" .deb)
	dpkg-deb -x "$deb" "$x"
	if grep -rlF "$(cd "$dir" && pwd)" "$x" >"$x.paths" 2>/dev/null; then
		echo "not ok - $(basename "$deb") holds its build path: $(head -n 3 "$x.paths" | tr '\n' ' ')"
		status=1
	else
		echo "ok - $(basename "$deb") holds no build path"
	fi
	if cmp -s "$deb" "$other"; then
		echo "ok - $(basename "$deb") is byte-identical from two directories ($(sha256sum "$deb" | cut -c1-16))"
	else
		echo "not ok - $(basename "$deb") differs between two builds from the same tarball"
		status=1
		if command -v diffoscope >/dev/null; then diffoscope "$deb" "$other" | head -n 40; fi
	fi
done
exit $status
