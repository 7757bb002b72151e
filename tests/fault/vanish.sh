#!/bin/bash
# A segment whose writer exits between statctl finding it in
# /dev/shm/statctr.* and opening it (tests/fault/vanish.so, an LD_PRELOAD
# fault, removes it just before the open): the segment is skipped as if it
# had never been found, not reported as an error.  Proves: `statctl list`
# and `statctl show` exit 0 with nothing on stderr, show the other segment,
# and not the one that went away (before: exit 1, "no segment").  Runs with
# a private /dev/shm (private_shm), so that no other test's segments are found.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/common.sh"
private_shm "$@"
. "${top_srcdir:-$(dirname "$0")/../..}/tests/fault/lib.sh"

VANISH=$top_builddir/tests/fault/.libs/vanish.so
STATCTL=$top_builddir/tools/statctl
[ -f "$VANISH" ] || skip "$VANISH not built (make check builds it)"

# One writer per name, each with its segment in /dev/shm.
for name in keep gone; do
	fx_config "" "$TMP/$name.conf"
	sed -i "s|path = \"$TMP/dataplane\";|path = \"/dev/shm/statctr.$name\";|" "$TMP/$name.conf"
	start_writer "$TMP/$name.log" "/dev/shm/statctr.$name" "$PIPELINE" -c "$TMP/$name.conf" -t 1 -n 100
	fx_track "$STARTED_PID"
	GONE_PID=$STARTED_PID # the last: gone's
done
"$STATCTL" list >"$TMP/list.out" 2>&1 || fail "statctl list failed: $(cat "$TMP/list.out")"
grep -q "statctr.keep" "$TMP/list.out" && grep -q "statctr.gone" "$TMP/list.out" ||
	fail "statctl list did not find both segments: $(cat "$TMP/list.out")"

# vanishing CMD...: statctl CMD with /dev/shm/statctr.gone removed as it opens it.
vanishing() {
	LD_PRELOAD=$VANISH STATCTR_VANISH=/dev/shm/statctr.gone \
		ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" \
		"$STATCTL" "$@" >"$TMP/out" 2>"$TMP/err"
}
for cmd in list show; do
	log "statctl $cmd, the segment gone between the glob and the open"
	rc=0
	vanishing "$cmd" || rc=$?
	[ ! -e /dev/shm/statctr.gone ] || fail "$cmd: the fault did not fire (statctr.gone is still there)"
	[ "$rc" = 0 ] || fail "statctl $cmd exited $rc: $(cat "$TMP/err")"
	[ ! -s "$TMP/err" ] || fail "statctl $cmd wrote to stderr: $(cat "$TMP/err")"
	grep -q "keep" "$TMP/out" || fail "statctl $cmd did not show the other segment: $(cat "$TMP/out")"
	! grep -q "gone" "$TMP/out" || fail "statctl $cmd showed the segment that went away: $(cat "$TMP/out")"
	# A writer of gone again, for the next command (the last one holds its control file).
	fx_kill "$GONE_PID" KILL
	start_writer "$TMP/gone.log" /dev/shm/statctr.gone "$PIPELINE" -c "$TMP/gone.conf" -t 1 -n 100
	fx_track "$STARTED_PID"
	GONE_PID=$STARTED_PID
done
log "pass"
exit 0
