#!/bin/bash
# prefix.sh - README.md's "Into another prefix", run as written with P in a
# temporary directory: the block's configure (with its rpath), make and make
# install, then what the block promises:
#   - the installed statctl and statctr-agentx run with no LD_LIBRARY_PATH
#     (their RUNPATH names $P/lib, and the loader takes libstatctr from there);
#   - a writer built with `pkg-config statctr` from $P/lib/pkgconfig and the
#     same rpath runs, and the installed statctl reads its counts;
#   - the Python module, on the block's PYTHONPATH, reads the same writer
#     through $P/lib's libstatctr.so.1, with no LD_LIBRARY_PATH;
#   - the block's -M (the prefix's MIBs and the SMI modules that
#     get-smi-mibs.sh provides) finds STATCTR-MIB (the block's "snmptable
#     ..." line, run as snmptranslate: there is no agent here), and so does
#     the README's `mibdirs` line in ~/.snmp/snmp.conf, without -M.
# Not part of `make check` (a whole configure and build, 1-3 minutes on 2
# CPUs): scripts/test.sh runs it once.  Substitutions into the block, each
# checked to apply: P=/opt/statctr -> a temporary prefix, ./configure ->
# this tree's configure (a build folder of its own), `make` -> `make -jN`,
# `sudo make install` -> `make install` (the prefix is ours).
set -euo pipefail
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
NAME=prefix
TEST_NAME=$NAME
. "$top_srcdir/tests/common.sh" # skip, fail
. "$top_srcdir/tests/docs/writer.sh" # start_minimal
for p in make cc pkg-config readelf python3 snmptranslate jq; do
	command -v "$p" >/dev/null || skip "$p not found (scripts/install-deps.sh)"
done
[ -x "$top_srcdir/configure" ] || fail "no $top_srcdir/configure (run ./autogen.sh)"

TMP=$(mktemp -d "${TMPDIR:-/tmp}/statctr-prefix.XXXXXX")
WRITER=""
# shellcheck disable=SC2317 # invoked by the trap
cleanup() {
	if [ -n "$WRITER" ]; then
		kill "$WRITER" 2>/dev/null || true
		wait "$WRITER" 2>/dev/null || true
	fi
	if [ -n "${KEEP:-}" ]; then echo "prefix: kept $TMP"; else rm -rf "$TMP"; fi
}
trap cleanup EXIT
unset LD_LIBRARY_PATH PYTHONPATH
# The SMI modules' cache stays the user's (a cache by design, as in
# tests/common.sh); the rest of Net-SNMP's state and ~/.snmp are this test's.
export STATCTR_SMI_CACHE="${STATCTR_SMI_CACHE:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/statctr/smi}"
export HOME=$TMP/home SNMP_PERSISTENT_DIR=$TMP/snmp MIBS=
mkdir -p "$HOME" "$SNMP_PERSISTENT_DIR"

# The block: the fenced sh block after the heading, as README.md has it.
awk '/^### Into another prefix/ {h = 1; next}
	h && /^```sh$/ {b = 1; next}
	b && /^```$/ {exit}
	b' "$top_srcdir/README.md" >"$TMP/block.sh"
grep -q '^P=/opt/statctr$' "$TMP/block.sh" || fail "README.md's prefix block has no line P=/opt/statctr"

# sub FROM TO: one substitution into the block, which must apply.
sub() {
	grep -qF -- "$1" "$TMP/block.sh" || fail "README.md's prefix block has no '$1' any more: update $0"
	FROM=$1 TO=$2 python3 -c 'import os, sys
s = sys.stdin.read(); sys.stdout.write(s.replace(os.environ["FROM"], os.environ["TO"]))' \
		<"$TMP/block.sh" >"$TMP/block.new"
	mv "$TMP/block.new" "$TMP/block.sh"
}
P=$TMP/opt/statctr
sub "P=/opt/statctr" "P=$P"
sub "./configure " "\"$top_srcdir\"/configure -q "
sub "&& make &&" "&& make -j${JOBS:-2} >make.log 2>&1 &&"
sub "sudo make install" "make install >install.log 2>&1"
# shellcheck disable=SC2016 # expanded by the block, not here
sub "snmptable -M +\$P/share/snmp/mibs:\$(\$P/share/statctr/get-smi-mibs.sh) ..." \
	'snmptranslate -M +$P/share/snmp/mibs:$($P/share/statctr/get-smi-mibs.sh) -m +STATCTR-MIB -On STATCTR-MIB::statctrCellTable >"$TMP/translate.out"'
mkdir -p "$TMP/build"
export TMP # the block's snmptranslate line writes there
(cd "$TMP/build" && bash -e "$TMP/block.sh") >"$TMP/block.log" 2>&1 || {
	tail -n 30 "$TMP/block.log" "$TMP/build/make.log" "$TMP/build/install.log" 2>/dev/null >&2
	fail "README.md's prefix block failed (in $TMP/build)"
}
oid=$(cat "$TMP/translate.out")
[[ $oid == .1.3.6.1.4.1.* ]] || fail "with -M +\$P/share/snmp/mibs, snmptranslate gave '$oid' for statctrCellTable"

# The rpath: both programs name $P/lib and run with no LD_LIBRARY_PATH.
for prog in "$P/bin/statctl" "$P/sbin/statctr-agentx"; do
	readelf -d "$prog" | grep -E 'R(UN)?PATH' | grep -qF "$P/lib" ||
		fail "$prog has no RUNPATH naming $P/lib: $(readelf -d "$prog" | grep -E 'R(UN)?PATH')"
	libs=$(ldd "$prog")
	grep -qF "libstatctr.so.1 => $P/lib/libstatctr.so.1" <<<"$libs" ||
		fail "$prog does not load $P/lib/libstatctr.so.1: $(grep statctr <<<"$libs")"
done
"$P/bin/statctl" --version >/dev/null || fail "the installed statctl does not run"

# A writer against the prefix, as a user of the prefix builds one.
flags=$(PKG_CONFIG_PATH=$P/lib/pkgconfig pkg-config --cflags --libs statctr) ||
	fail "pkg-config statctr under $P/lib/pkgconfig failed"
# shellcheck disable=SC2086 # a list of flags
cc -Wall -Wextra -Werror -o "$TMP/minimal" "$top_srcdir/examples/minimal.c" $flags \
	-Wl,-rpath,"$P/lib" || fail "examples/minimal.c does not build against $P"
start_minimal "$TMP/minimal" "$P/bin/statctl"
got=$GOT

# The Python module: the block's PYTHONPATH, no LD_LIBRARY_PATH.
py=$(PYTHONPATH=$P/lib/python3/dist-packages python3 -c '
import sys, statctr
assert statctr.__file__.startswith(sys.argv[2]), statctr.__file__
with statctr.View(sys.argv[1]) as v, v.snapshot() as s:
    print(s.counter("ifStats", "rxPackets", 0))' "$TMP/dataplane" "$P" 2>&1) ||
	fail "the Python module under $P does not read the writer: $py"
[ "$py" -gt 0 ] 2>/dev/null || fail "the Python module under $P read '$py' rxPackets"

# The README's line that saves the -M, in this test's own HOME.
# shellcheck disable=SC2016 # run by bash -c below, as an operator types it
line='echo "mibdirs +$P/share/snmp/mibs:$($P/share/statctr/get-smi-mibs.sh)" >> ~/.snmp/snmp.conf'
grep -qF "\`$line\`" "$top_srcdir/README.md" || fail "README.md no longer says: $line"
mkdir -p "$HOME/.snmp"
P=$P bash -ec "$line"
# stderr: stock Debian lacks the default MIB list's modules (see README.md)
oid2=$(snmptranslate -m +STATCTR-MIB -On STATCTR-MIB::statctrCellTable 2>"$TMP/translate.err") || true
[ "$oid2" = "$oid" ] || fail "with mibdirs in ~/.snmp/snmp.conf, snmptranslate gave '$oid2' $(tail -n 3 "$TMP/translate.err")"

echo "PASS: $NAME: README's prefix block built and installed into $P; statctl and" \
	"statctr-agentx run from its rpath; statctl read $got packets, the Python module $py;" \
	"STATCTR-MIB found with -M and with mibdirs ($oid)"
