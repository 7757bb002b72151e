#!/bin/bash
# Planted files (issue 9): a local user (SEC_OTHER) plants, at a segment
# path that does not exist yet in the shared directory, a FIFO, a symlink
# to a valid segment, a sparse file whose valid-looking header claims
# 4096 slots of 2^24 cells (about 550 GB), a short file (the first 4 KiB of a
# valid segment), and a valid copy of a segment owned by itself.  For each,
# `statctl list`, `statctl show` and examples/reader, and a reader that
# requires SEC_WRITER as owner (tests/security/open_owned, as the agent's
# segment_owner does), must each end within 2 s (a blocked open is a
# failure), exit non-zero, name the cause (not a regular file, symbolic
# link, sparse, file_size, owner), and peak below 50 MB of RSS.  The owned
# copy is a valid segment: only the reader that requires an owner refuses it.
SEC_PROGRAMS="tests/security/open_owned"
. "${top_srcdir:-$(dirname "$0")/../..}/tests/security/lib.sh"

fx_need python3 truncate mkfifo /usr/bin/time
[ -x "$TMP/bin/open_owned" ] || skip "tests/security/open_owned not built (make check builds it)"
MAX_RSS_KB=50000

sec_config
sec_writer "$SEC_WRITER" -t 2 -r 1000
PLANTED=$SEC_SHM/planted
sed "s|path = \"$SEC_SHM/dataplane\"|path = \"$PLANTED\"|" "$TMP/statctr.conf" >"$TMP/planted.conf"
chmod 0644 "$TMP/planted.conf"
grep -q "path = \"$PLANTED\"" "$TMP/planted.conf" || fail "planted.conf does not name $PLANTED"

as_other() { setpriv --reuid="$SEC_OTHER" --regid="$(id -g "$SEC_OTHER")" --init-groups "$@"; }

# run_reader PROG ARGS...: a copied reader, as root (who can read whatever is
# planted), bounded to 2 s; output in $TMP/out, peak RSS (KB) in $TMP/rss.
run_reader() {
	local rc=0
	sec_bounded 2 /usr/bin/time -f %M -o "$TMP/rss" \
		env LD_LIBRARY_PATH="$TMP/bin" "$TMP/bin/$1" "${@:2}" >"$TMP/out" 2>&1 || rc=$?
	return "$rc"
}

peak_kb() { tail -n 1 "$TMP/rss"; }

# refused WHAT CAUSE PROG ARGS...: the reader fails, naming CAUSE, in bounded memory.
refused() {
	local what=$1 cause=$2 rc=0
	shift 2
	run_reader "$@" || rc=$?
	[ "$rc" != 0 ] || fail "$what: '$*' accepted the planted file: $(head -c 300 "$TMP/out")"
	grep -q -- "$cause" "$TMP/out" ||
		fail "$what: '$*' exited $rc without naming '$cause': $(head -c 300 "$TMP/out")"
	[ "$(peak_kb)" -lt "$MAX_RSS_KB" ] || fail "$what: '$*' peaked at $(peak_kb) KB"
	log "$what: $1 refused it (exit $rc, peak $(peak_kb) KB): $(grep -m 1 -- "$cause" "$TMP/out")"
}

# every_reader_refuses WHAT CAUSE [OWNED-CAUSE]: the four readers on
# $PLANTED; the one that requires an owner may name OWNED-CAUSE instead (a
# regular file of the wrong owner is refused for that before its size).
every_reader_refuses() {
	refused "$1" "$2" statctl list -c "$TMP/planted.conf"
	refused "$1" "$2" statctl show "$PLANTED"
	refused "$1" "$2" reader -1 "$PLANTED"
	refused "$1" "${3:-$2}" open_owned "$(id -u "$SEC_WRITER")" "$PLANTED"
}

unplant() { rm -f "$PLANTED" "$PLANTED.ctl"; }

# The readers work, and what they cost, on the valid segment.
for prog in "statctl show $SEGMENT" "reader -1 $SEGMENT" "open_owned $(id -u "$SEC_WRITER") $SEGMENT"; do
	# shellcheck disable=SC2086 # a command line on purpose
	run_reader $prog || fail "'$prog' on the valid segment: $(head -c 300 "$TMP/out")"
	log "valid segment: '$prog' peak $(peak_kb) KB"
done

# What the planter starts from: a valid segment's bytes it may read.
python3 - "$SEGMENT" "$TMP/huge.bin" "$TMP/short.bin" "$TMP/copy.bin" >"$TMP/huge.size" <<'EOF'
import struct, sys
seg, huge, short, copy = sys.argv[1:5]
data = open(seg, "rb").read()
slots_off = struct.unpack_from("<Q", data, 128)[0]
meta = bytearray(data[:slots_off])
nslots, ncells = 4096, 1 << 24
stride = 64 + ((ncells * 8 + 63) & ~63)
size = slots_off + (nslots + 1) * stride
struct.pack_into("<I", meta, 56, nslots)
struct.pack_into("<I", meta, 60, ncells)
struct.pack_into("<Q", meta, 16, size)
struct.pack_into("<Q", meta, 136, stride)
open(huge, "wb").write(meta)
open(short, "wb").write(data[:4096])
open(copy, "wb").write(data)
print(size)
EOF
chmod 0644 "$TMP/huge.bin" "$TMP/short.bin" "$TMP/copy.bin"

unplant
as_other mkfifo -m 0644 "$PLANTED" || fail "cannot plant a FIFO"
every_reader_refuses fifo "not a regular file"

unplant
as_other ln -s "$SEGMENT" "$PLANTED" || fail "cannot plant a symlink"
every_reader_refuses symlink "symbolic link"

unplant
as_other cp "$TMP/huge.bin" "$PLANTED" || fail "cannot plant the sparse file"
as_other truncate -s "$(cat "$TMP/huge.size")" "$PLANTED" || fail "cannot extend the sparse file"
log "sparse: $(stat -c '%s bytes, %b blocks' "$PLANTED")"
every_reader_refuses sparse "sparse" "owned by uid $(id -u "$SEC_OTHER")"

unplant
as_other cp "$TMP/short.bin" "$PLANTED" || fail "cannot plant the short file"
every_reader_refuses short "file_size" "owned by uid $(id -u "$SEC_OTHER")"

unplant
as_other cp "$TMP/copy.bin" "$PLANTED" || fail "cannot plant the copy"
as_other chmod 0644 "$PLANTED"
refused owner "owned by uid $(id -u "$SEC_OTHER"), not the expected uid" \
	open_owned "$(id -u "$SEC_WRITER")" "$PLANTED"
run_reader reader -1 "$PLANTED" || fail "a reader without an owner requirement refused a valid copy"
unplant
log "every planted file was refused in bounded time and memory"
