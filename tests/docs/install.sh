#!/bin/bash
# install.sh - README.md's "Install from source", followed into a DESTDIR:
# `make install` puts the library, its header, statctr.pc, statctl,
# statctr-agentx, STATCTR-MIB (in configure's mibdir), the service unit and
# the sysusers.d entry of the service user where the README says; then a
# writer (examples/minimal.c) builds with `pkg-config --cflags --libs
# statctr` against the installed tree alone, runs, and the installed
# statctl reads its counts.
set -euo pipefail
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
top_builddir=${top_builddir:-$top_srcdir}
NAME=install
TEST_NAME=$NAME
. "$top_srcdir/tests/common.sh" # skip, fail
. "$top_srcdir/tests/docs/writer.sh" # start_minimal
for p in make pkg-config cc; do
	command -v "$p" >/dev/null || skip "$p not found (scripts/install-deps.sh)"
done

TMP=$(mktemp -d "${TMPDIR:-/tmp}/statctr-install.XXXXXX")
WRITER=""
# shellcheck disable=SC2317 # invoked by the trap
cleanup() {
	if [ -n "$WRITER" ]; then
		kill "$WRITER" 2>/dev/null || true
		wait "$WRITER" 2>/dev/null || true
	fi
	rm -rf "$TMP"
}
trap cleanup EXIT
D=$TMP/root

make -C "$top_builddir" install DESTDIR="$D" >"$TMP/install.log" 2>&1 ||
	{ tail -n 30 "$TMP/install.log" >&2; fail "make install DESTDIR=$D failed"; }

# One file each, found wherever configure's directories put it.
one() {
	local f
	f=$(find "$D" -path "*$1" | head -n 1)
	[ -n "$f" ] || fail "make install put no $1 under DESTDIR"
	echo "$f"
}
pc=$(one /pkgconfig/statctr.pc)
one /include/statctr.h >/dev/null
statctl=$(one /bin/statctl)
one /sbin/statctr-agentx >/dev/null
one /snmp/mibs/STATCTR-MIB.txt >/dev/null
one /sysusers.d/statctr.conf >/dev/null
one /systemd/system/statctr-agentx.service >/dev/null
one /man3/statctr.3 >/dev/null
grep -q '^u statctr ' "$(one /sysusers.d/statctr.conf)" || fail "sysusers.d/statctr.conf declares no user statctr"
pymod=$(one /python3/dist-packages/statctr/__init__.py)
one /python3/dist-packages/statctr/_clib.py >/dev/null

# The writer, built as the README says, with the DESTDIR as sysroot.
export PKG_CONFIG_PATH=${pc%/statctr.pc} PKG_CONFIG_SYSROOT_DIR=$D
flags=$(pkg-config --cflags --libs statctr) || fail "pkg-config statctr failed"
case ${SANITIZER:-none} in
asan) san="-fsanitize=address,undefined" ;;
tsan) san="-fsanitize=thread" ;;
*) san="" ;;
esac
# shellcheck disable=SC2086 # lists of flags
cc -Wall -Wextra -Werror $san -o "$TMP/minimal" "$top_srcdir/examples/minimal.c" $flags ||
	fail "examples/minimal.c does not build with: pkg-config --cflags --libs statctr ($flags)"
libdir=${pc%/pkgconfig/statctr.pc} # $D$(libdir)
export LD_LIBRARY_PATH=$libdir
# Read whole first: grep -q may exit before ldd has written all, and with
# pipefail ldd's SIGPIPE would fail the check.
libs=$(ldd "$TMP/minimal")
grep -q "$libdir/libstatctr.so" <<<"$libs" ||
	fail "the writer does not load the installed libstatctr: $(grep statctr <<<"$libs")"

start_minimal "$TMP/minimal" "$statctl"
got=$GOT

# The installed Python module, on PYTHONPATH as README.md says, reads the
# same writer through the installed library.
if command -v python3 >/dev/null && [ "${SANITIZER:-none}" = none ]; then
	pyread=$(PYTHONPATH=${pymod%/statctr/__init__.py} python3 -c '
import sys, statctr
assert statctr.__file__.startswith(sys.argv[2]), statctr.__file__
with statctr.View(sys.argv[1]) as v, v.snapshot() as s:
    print(s.counter("ifStats", "rxPackets", 0))' "$TMP/dataplane" "$D" 2>&1) ||
		fail "the installed Python module does not read the writer: $pyread"
	[ "$pyread" -gt 0 ] 2>/dev/null || fail "the installed Python module read '$pyread' rxPackets"
fi
echo "PASS: $NAME: make install DESTDIR, a writer built with pkg-config statctr against it" \
	"ran; the installed statctl read $got packets, the installed Python module ${pyread:-(no python3)}"
