#!/usr/bin/env bash
# test_image.sh - the container image as a tested artifact, without a container daemon:
# - scripts/runtime-packages.txt (the runtime stage's packages) equals what scripts/runtime-packages.sh
#   derives from the libraries $BUILD/dnsbatch links, and the Dockerfile's runtime stage installs that
#   file and nothing else, as a numeric non-root USER;
# - `make image-rootfs` unpacks those packages and their dependencies with the installed program, and
#   under `chroot --userspec=USER` (the Dockerfile's) the program starts: --version, then `serve
#   --provider memory` answers /healthz and a POST /records on loopback.
# Needs root (chroot); skipped otherwise, saying so. CI runs as root.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/integration/extdns_client.sh
BUILD=${BUILD:-build}

# What needs neither root nor a daemon: the image's name and version, and what its build stage installs.
version=$(sed -n 's/^#define DNSBATCH_VERSION "\(.*\)"/\1/p' include/dnsbatch/version.h)
image=ghcr.io/dnsbatch/dnsbatch:$version
extdns_check "make image names $image (the tag from include/dnsbatch/version.h)" \
	[ "$(make -s --no-print-directory image-name)" = "$image" ]
extdns_check "the Dockerfile's build stage checks VERSION against version.h and runs make deps, not make test-deps" \
	bash -c 'grep -v "^#" Dockerfile >"$1" && grep -q "include/dnsbatch/version.h" "$1" && grep -q "make deps" "$1" &&
		! grep -q "test-deps" "$1"' _ "${TMPDIR:-/tmp}/dockerfile.$$"
rm -f "${TMPDIR:-/tmp}/dockerfile.$$"
servers=$(DEPS_PRINT=1 sh scripts/deps.sh | grep -x -e bind9 -e knot -e pdns-server -e redis-server -e prometheus -e libcmocka-dev)
extdns_check "make deps (the image's build stage) installs no server and no test library${servers:+ (it does: $servers)}" \
	[ -z "$servers" ]
servers=$(DEPS_PRINT=1 sh scripts/deps.sh --test | grep -c -x -e bind9 -e knot -e pdns-server -e redis-server -e prometheus)
extdns_check "make test-deps installs the servers the tests start ($servers of 5)" [ "$servers" = 5 ]
# The examples name the image `make image` makes (examples/kubernetes, examples/helm).
for f in examples/kubernetes/*.yaml; do
	grep -E '^[[:space:]]*image:[[:space:]]' "$f" | grep -v 'external-dns' | awk '{ print $2 }' >"${TMPDIR:-/tmp}/images.$$"
	if [ -s "${TMPDIR:-/tmp}/images.$$" ]; then
		extdns_check "$f names $image" bash -c '! grep -qvx "$1" "$2"' _ "$image" "${TMPDIR:-/tmp}/images.$$"
	fi
	rm -f "${TMPDIR:-/tmp}/images.$$"
done
helm_image=$(python3 -c '
import sys, yaml
def find(node):
    if isinstance(node, dict):
        if "repository" in node and "tag" in node and "dnsbatch" in str(node["repository"]):
            yield "%s:%s" % (node["repository"], node["tag"])
        for v in node.values():
            yield from find(v)
    elif isinstance(node, list):
        for v in node:
            yield from find(v)
print(" ".join(find(yaml.safe_load(open(sys.argv[1])))))' examples/helm/values.yaml 2>&1)
extdns_check "examples/helm/values.yaml names $image (got: $helm_image)" [ "$helm_image" = "$image" ]
extdns_check "no placeholder image left in examples/ (ghcr.io/example)" bash -c '! grep -rq "ghcr.io/example" examples'

if [ "$(id -u)" -ne 0 ]; then
	echo "# skip: test_image.sh needs root to chroot into the image's root filesystem (running as uid $(id -u))"
	exit 0
fi
if [ "${SANITIZED:-0}" = 1 ]; then
	# The sanitized program links the sanitizer runtimes, which the image does not hold.
	echo "# skip: the image holds the release build; make test runs this test, not make sanitize"
	exit 0
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/dnsbatch-image.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# not_ok_with NAME FILE: a failed check, FILE's lines as detail
not_ok_with() {
	echo "not ok - $1"
	sed 's/^/#   /' "$2"
	EXTDNS_FAILED=$((EXTDNS_FAILED + 1))
}

# The package list is the one derived from the program.
if sh scripts/runtime-packages.sh "$BUILD/dnsbatch" >"$tmp/derived" 2>"$tmp/derive.err" &&
	diff -u scripts/runtime-packages.txt "$tmp/derived" >"$tmp/list.diff"; then
	echo "ok - scripts/runtime-packages.txt names the packages of every library $BUILD/dnsbatch links"
else
	cat "$tmp/derive.err" >>"$tmp/list.diff"
	echo "refresh: sh scripts/runtime-packages.sh $BUILD/dnsbatch > scripts/runtime-packages.txt" >>"$tmp/list.diff"
	not_ok_with "scripts/runtime-packages.txt names the packages of every library $BUILD/dnsbatch links" "$tmp/list.diff"
fi

# The Dockerfile's runtime stage (after the last FROM), continuation lines joined.
awk '/^FROM /{ s = "" } { s = s $0 "\n" } END { printf "%s", s }' Dockerfile |
	sed -e ':a' -e '/\\$/N; s/\\\n/ /; ta' >"$tmp/runtime-stage"
extdns_check "the Dockerfile's runtime stage copies scripts/runtime-packages.txt" \
	grep -Eq '^COPY +scripts/runtime-packages\.txt ' "$tmp/runtime-stage"
# Every `apt-get install` there takes only options (its packages come from the list through xargs).
grep -o 'apt-get install[^&|;]*' "$tmp/runtime-stage" | tr ' ' '\n' |
	grep -v -e '^-' -e '^$' -e '^apt-get$' -e '^install$' >"$tmp/extra-packages"
if [ ! -s "$tmp/extra-packages" ] && grep -q 'xargs apt-get install' "$tmp/runtime-stage"; then
	echo "ok - the runtime stage installs the list's packages and no others"
else
	echo "the runtime stage's apt-get install names packages of its own (or does not read the list):" >>"$tmp/extra-packages"
	not_ok_with "the runtime stage installs the list's packages and no others" "$tmp/extra-packages"
fi
user=$(sed -n 's/^USER[[:space:]]\{1,\}\([^[:space:]]*\).*/\1/p' "$tmp/runtime-stage" | tail -n 1)
extdns_check "the image runs as a numeric non-root USER ($user)" \
	bash -c '[[ $1 =~ ^[0-9]+:[0-9]+$ ]] && [ "${1%%:*}" -ne 0 ]' _ "$user"
[[ $user =~ ^[0-9]+:[0-9]+$ ]] || user=65532:65532

# The root filesystem the runtime stage describes.
start=$(date +%s)
if make -s --no-print-directory BUILD="$BUILD" image-rootfs >"$tmp/rootfs.log" 2>&1; then
	echo "ok - make image-rootfs ($(($(date +%s) - start)) s; $(tail -n 1 "$tmp/rootfs.log" | sed 's/^image-rootfs: //'))"
else
	not_ok_with "make image-rootfs" "$tmp/rootfs.log"
	extdns_done
fi
root=$BUILD/image/rootfs
cat >"$tmp/in-image" <<EOF
#!/bin/sh
exec chroot --userspec=$user "$root" /usr/local/bin/dnsbatch "\$@"
EOF
chmod +x "$tmp/in-image"
DNSBATCH=$tmp/in-image

"$DNSBATCH" --version >"$tmp/version" 2>&1
if [ "$(cat "$tmp/version")" = "$("$BUILD/dnsbatch" --version 2>&1)" ]; then
	echo "ok - in the image as $user: dnsbatch --version ($(cat "$tmp/version"))"
else
	not_ok_with "in the image as $user: dnsbatch --version" "$tmp/version"
fi

if ! extdns_serve "$tmp/serve.log" --provider memory --memory-zone example.com 2>"$tmp/serve.start"; then
	not_ok_with "in the image: dnsbatch serve --provider memory starts" "$tmp/serve.start"
	extdns_done
fi
echo "ok - in the image: dnsbatch serve --provider memory starts"
extdns_check "it runs as the Dockerfile's user $user" \
	[ "$(awk '/^Uid:/ { u = $2 } /^Gid:/ { g = $2 } END { print u ":" g }' "/proc/$EXTDNS_PID/status")" = "$user" ]
extdns_check "in the image: GET /healthz answers 200" extdns_wait_ready 10
printf '{"create":[{"dnsName":"app.example.com","targets":["192.0.2.1"],"recordType":"A"}]}' >"$tmp/plan.json"
extdns_post "$EXTDNS_API" /records "$tmp/plan.json" >/dev/null
extdns_check "in the image: POST /records answers 204" [ "$EXTDNS_STATUS" = 204 ]
extdns_get "$EXTDNS_API" /records >"$tmp/records.json"
extdns_check "in the image: GET /records lists the record created" \
	jq -e 'any(.[]; .dnsName == "app.example.com" and .targets == ["192.0.2.1"])' "$tmp/records.json"
extdns_stop
extdns_check "in the image: SIGTERM, exit status 0" [ "$EXTDNS_EXIT" = 0 ]
if grep -q 'error while loading shared libraries' "$tmp/serve.log" "$tmp/version"; then
	not_ok_with "no library missing" "$tmp/serve.log"
fi
extdns_done
