#!/bin/bash
# Terminal output (issue 9, defect 7): a segment file is input, and a
# crafted one may hold escape sequences in its table, column, row and
# segment names and in its descriptions and units.  Readers refuse it: a
# segment's strings are printable ASCII (docs/segment-format.md, "Strings";
# lib/meta.c), so `statctl list` and `statctl show` exit 1 with one clean
# line naming the string, and print no byte a terminal acts on (C0 controls
# but LF and tab, DEL, 0x80..0xff).  What statctl prints of a hostile
# argument is escaped as "\xHH" (the last check).
. "${top_srcdir:-$(dirname "$0")/../..}/tests/security/lib.sh"

fx_need python3
sec_config
sec_writer "$SEC_WRITER" -t 1 -n 100
EVIL=$SEC_SHM/evil
# The crafted copy: same lengths, so every offset of the format stays valid.
AS_OTHER=(setpriv --reuid="$SEC_OTHER" --regid="$(id -g "$SEC_OTHER")" --init-groups)
# The test reads the writer's segment; SEC_OTHER writes the crafted copy, which it owns.
python3 - "$SEGMENT" <<'PY' | "${AS_OTHER[@]}" dd of="$EVIL" status=none ||
import sys
data = open(sys.argv[1], "rb").read()
for old, new in [
    (b"\0dataplane\0", b"\0data\x1b[5mX\0"),
    (b"\0ifStats\0", b"\0\x1b]0;X\x07s\0"),
    (b"\0rxPackets\0", b"\0rx\x1b[31m\x9bP\0"),
    (b"\0dp0\0", b"\0\x1b[m\0"),
    (b"\0octets\0", b"\0oct\x08\x08\x08\0"),
    (b"\0Per-interface packet and byte counts\0",
     b"\0\x1b[2J\x1b[H\rclear\x7f and byte counts of it\0"),
]:
    assert len(old) == len(new) and old in data, old
    data = data.replace(old, new, 1)
sys.stdout.buffer.write(data)
PY
	fail "could not craft $EVIL"
sed "s|path = \"$SEC_SHM/dataplane\"|path = \"$EVIL\"|" "$TMP/statctr.conf" >"$TMP/evil.conf"
chmod 0644 "$TMP/evil.conf"

# clean FILE WHAT: FILE holds no byte a terminal acts on (LF and tab allowed).
clean() {
	python3 -c '
import sys
bad = [b for b in open(sys.argv[1], "rb").read()
       if (b < 0x20 and b not in (9, 10)) or b >= 0x7f]
sys.exit(1 if bad else 0)' "$1" || fail "$2: raw control bytes: $(od -c "$1" | head -20)"
}

for cmd in "list -c $TMP/evil.conf" "show $EVIL" "show -c $TMP/evil.conf dataplane" "show --slots $EVIL"; do
	rc=0
	# shellcheck disable=SC2086 # cmd is split on purpose
	sec_bounded 10 "${AS_OTHER[@]}" env LD_LIBRARY_PATH="$TMP/bin" "$TMP/bin/statctl" $cmd >"$TMP/out" 2>"$TMP/err" || rc=$?
	clean "$TMP/out" "statctl $cmd (stdout)"
	clean "$TMP/err" "statctl $cmd (stderr)"
	[ "$rc" = 1 ] || fail "statctl $cmd: exit $rc, not 1: $(cat "$TMP/out")"
	grep -q "is not 1\.\.63 printable bytes" "$TMP/err" ||
		fail "statctl $cmd: the refusal does not name the string: $(cat "$TMP/err")"
	log "statctl $cmd: refused: $(head -1 "$TMP/err")"
done

log "an error message quoting a hostile argument is escaped too"
rc=0
sec_bounded 10 "${AS_OTHER[@]}" env LD_LIBRARY_PATH="$TMP/bin" "$TMP/bin/statctl" show "$SEC_SHM/no$(printf '\033')[2Jsuch" >"$TMP/out" 2>"$TMP/err" || rc=$?
[ "$rc" = 1 ] || fail "a missing segment: exit $rc"
clean "$TMP/err" "the error message"
grep -qF 'no\x1b[2Jsuch' "$TMP/err" || fail "the error message: $(cat "$TMP/err")"
log "pass"
exit 0
