#!/bin/bash
# resetter.sh - issue 9: whatever a resetter (SEC_RESETTER, who may write
# the control file) does to the control file with shell tools - rewrite
# bytes, grow it, truncate it to nothing - the writer (SEC_WRITER) stays
# alive and keeps counting, readers see the loss (writer_flags CTL_LOST)
# once the writer's control mapping faulted, statctl show keeps working, and a
# writer restart restores a clean generation.
SEC_PROGRAMS="tests/security/copy_flood"
. "${top_srcdir:-$(dirname "$0")/../..}/tests/security/lib.sh"

sec_config
sec_writer "$SEC_WRITER"
CTL=$SEGMENT.ctl
# As the resetter, bounded (sec_bounded needs a program, not sec_as).
AS_RES=(setpriv --reuid="$SEC_RESETTER" --regid="$(id -g "$SEC_RESETTER")" --init-groups
	env LD_LIBRARY_PATH="$TMP/bin")

# info FIELD: one field of `copy_flood info` (status, writer_flags, total) as the resetter.
info() {
	sec_bounded 10 "${AS_RES[@]}" "$TMP/bin/copy_flood" info "$SEGMENT" >"$TMP/info.out" 2>&1 ||
		fail "copy_flood info failed: $(cat "$TMP/info.out")"
	awk -v f="$1" '{ for (i = 1; i < NF; i++) if ($i == f) print $(i + 1) }' "$TMP/info.out"
}

# Writer alive, status active, and its total grows.
assert_counting() {
	local t0 t1
	kill -0 "$WRITER_PID" 2>/dev/null || fail "the writer died $1"
	t0=$(info total)
	sleep 0.3
	t1=$(info total)
	[ "$t1" -gt "$t0" ] || fail "the writer stopped counting $1 ($t0 -> $t1)"
	[ "$(info status)" = 1 ] || fail "status $(info status), not active, $1"
	# (statctl list would also scan other users' /dev/shm/statctr.*: show ours.)
	sec_bounded 10 "${AS_RES[@]}" "$TMP/bin/statctl" show "$SEGMENT" >"$TMP/show.out" 2>&1 ||
		fail "statctl show failed $1: $(cat "$TMP/show.out")"
	grep -q "writer [0-9]* active" "$TMP/show.out" || fail "statctl show does not say the segment is active $1"
	log "counting $1: $t0 -> $t1"
}

sleep 0.3
assert_counting "before any attack"
[ "$(info writer_flags)" = 0 ] || fail "writer_flags set before any attack"

as_resetter() { sec_bounded 10 "${AS_RES[@]}" "$@" || fail "as resetter: $*"; }

# Garbage over the header's offsets, the request words and the buffer lock.
for off in 16 40 64 192 256 320; do
	as_resetter dd if=/dev/urandom of="$CTL" bs=1 seek="$off" count=8 conv=notrunc status=none
done
assert_counting "after the control file was rewritten"
as_resetter truncate -s 64M "$CTL"
assert_counting "after the control file grew"
[ "$(info writer_flags)" = 0 ] || fail "writer_flags set without a fault"

as_resetter truncate -s 0 "$CTL"
assert_counting "after the control file was truncated to 0"
ctl_lost() { [ "$(info writer_flags)" = 1 ]; }
fx_wait 5 ctl_lost ||
	fail "readers do not see CTL_LOST $(fx_loaded 5) s after the truncation (load $(cut -d' ' -f1 /proc/loadavg))"
as_resetter truncate -s 1M "$CTL"
assert_counting "after the control file was truncated and grown again"
grep -q "warning: the writer lost its control file" "$TMP/show.out" ||
	fail "statctl show does not report the lost control file: $(cat "$TMP/show.out")"

# A restart makes a new, whole generation.
kill -TERM "$WRITER_PID"
sec_bounded 10 bash -c "while kill -0 $WRITER_PID 2>/dev/null; do sleep 0.1; done"
fx_untrack "$WRITER_PID"
sec_writer "$SEC_WRITER"
sleep 0.3
assert_counting "after a writer restart"
[ "$(info writer_flags)" = 0 ] || fail "a fresh writer still reports CTL_LOST"
log "PASS"
