#!/bin/sh
# dist.sh BUILD: the source tarball BUILD/dnsbatch-VERSION.tar.gz (make dist), VERSION from
# include/dnsbatch/version.h, everything under one directory dnsbatch-VERSION/.
# In a git checkout: `git archive` of HEAD (the files git tracks, as committed; a tree with
# uncommitted changes is refused, since they would not be in it). Elsewhere (a tree unpacked from a
# tarball): the tree's files less the build directories. Either way reproducible: names sorted,
# owner root, times of the commit (or SOURCE_DATE_EPOCH), gzip without a name or time.
set -eu
[ $# -eq 1 ] || { echo "usage: $0 BUILD" >&2; exit 2; }
build=$1
version=$(sed -n 's/^#define DNSBATCH_VERSION "\(.*\)"/\1/p' include/dnsbatch/version.h)
name=dnsbatch-$version
mkdir -p "$build"
out=$build/$name.tar.gz
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	if [ -n "$(git status --porcelain --untracked-files=no)" ]; then
		echo "make dist: uncommitted changes (git status); commit them first, the tarball is made from HEAD" >&2
		exit 1
	fi
	git archive --format=tar --prefix="$name/" HEAD | gzip -9n >"$out.tmp"
else
	epoch=${SOURCE_DATE_EPOCH:-$(dpkg-parsechangelog -l packaging/changelog -STimestamp)}
	find . \( -path ./build -o -path './build-*' -o -name .git \) -prune -o -type f -print | sed 's|^\./||' |
		LC_ALL=C sort | tar -cf - --no-recursion --transform "s|^|$name/|" --mtime="@$epoch" \
		--owner=0 --group=0 --numeric-owner -T - | gzip -9n >"$out.tmp"
fi
mv "$out.tmp" "$out"
echo "$out"
