#!/bin/bash
# The segment file is truncated, then overwritten in place, while the agent,
# a looping examples/reader and `statctl watch` have it mapped.  Proves:
# nobody dies of SIGBUS (the readers exit with an error or carry on, the
# agent keeps answering); the agent reports the segment stale(3) with the
# cause in its log and serves none of its rows; statctl and the reader say
# why and exit 1 promptly; the agent recovers when a valid segment
# reappears, both as a new generation (new writer) and as the same file
# restored in place, in which case it stamps a new discontinuity time (it
# cannot prove the values continuous with those it served before).
. "${top_srcdir:-$(dirname "$0")/../..}/tests/fault/lib.sh"

STATCTL=$top_builddir/tools/statctl

fx_need snmpget snmpwalk
fx_config "interval_ms = 100;"
fx_snmpd
fx_writer -t 2 -n 3000
fx_writer_settled
fx_agent
fx_wait_pass
[ "$(seg_status)" = "$ST_ACTIVE" ] || fail "not active at start"

# Long-lived readers holding the mapping while it shrinks.
"$READER" -i 100 "$SEGMENT" >/dev/null 2>"$TMP/loop-reader.err" &
LOOP_PID=$!
fx_track "$LOOP_PID"
"$STATCTL" watch -i 0.2 -n 100 "$SEGMENT" >/dev/null 2>"$TMP/watch.err" </dev/null &
WATCH_PID=$!
fx_track "$WATCH_PID"
sleep 0.5

# reaped PID NAME: if PID has ended, it must not have died of a signal.
reaped() {
	local rc=0
	kill -0 "$1" 2>/dev/null && return 0
	wait "$1" || rc=$?
	fx_untrack "$1"
	[ "$rc" -lt 128 ] || fail "$2 died of signal $((rc - 128)) ($(kill -l $((rc - 128)) 2>/dev/null))"
	log "$2 exited with status $rc: $(tail -1 "$TMP/$2.err" 2>/dev/null || true)"
}

# corrupt WHY: the agent says stale(3) and serves no rows; one-shot readers fail fast.
corrupt() {
	wait_status 3 1 "$ST_STALE"
	[ -z "$(snmp_walk "$DATA")" ] || fail "$1: rows of a corrupt segment served"
	[ -z "$(snmp_walk "$ROOT.1.3")" ] || fail "$1: cells of a corrupt segment served"
	if timeout 5 "$STATCTL" show "$SEGMENT" >/dev/null 2>"$TMP/statctl.err"; then
		fail "$1: statctl show succeeded on a corrupt segment"
	fi
	grep -q "$SEGMENT" "$TMP/statctl.err" ||
		fail "$1: statctl's error does not name the file: $(cat "$TMP/statctl.err")"
	if timeout 5 "$READER" -1 "$SEGMENT" >/dev/null 2>"$TMP/err"; then
		fail "$1: examples/reader succeeded on a corrupt segment"
	fi
	fx_wait 5 fx_agent_answers || fail "$1: the agent does not answer within $(fx_loaded 5) s (load $(cut -d" " -f1 /proc/loadavg))"
	log "$1: stale(3), no rows; $(cat "$TMP/statctl.err")"
}

log "truncate to half its size under the mappings"
cp "$SEGMENT" "$TMP/saved"
truncate -s $(($(stat -c %s "$SEGMENT") / 2)) "$SEGMENT"
corrupt "truncated"
wait_log 3 "dataplane .*(truncated|changed size)"
sleep 0.5
reaped "$LOOP_PID" loop-reader
reaped "$WATCH_PID" watch
kill -0 "$AGENT_PID" || fail "the agent died"

log "truncate to 0 bytes"
truncate -s 0 "$SEGMENT"
sleep 0.3
corrupt "empty"

log "recovery: the operator removes the wreck, a new writer creates the segment"
fx_kill "$WRITER_PID" KILL
rm -f "$SEGMENT" "$SEGMENT.ctl"
fx_writer -t 2 -n 2000
fx_writer_settled
wait_status 3 1 "$ST_ACTIVE"
fx_wait_pass
[ "$(snmp_value "$DATA.3.1.10.1")" = 4000 ] || fail "values of the new generation"
reader_lines latch >"$TMP/expect"
cell_lines >"$TMP/cells"
same_lines "$TMP/expect" "$TMP/cells" "values after recovery"

log "overwrite the header in place (same inode, same size)"
disc=$(snmp_value "$ROOT.1.2.1.9.1")
dd if="$SEGMENT" of="$TMP/header" bs=256 count=1 status=none
head -c 256 /dev/urandom | dd of="$SEGMENT" bs=256 count=1 conv=notrunc status=none
corrupt "overwritten"
wait_log 3 "dataplane .*corrupt"

log "the same header restored in place: reattached, with a new discontinuity time"
sleep 0.2 # TimeStamps have centisecond resolution
dd if="$TMP/header" of="$SEGMENT" bs=256 count=1 conv=notrunc status=none
wait_status 3 1 "$ST_ACTIVE"
fx_wait_pass
wait_log 3 "dataplane: reattached"
[ "$(snmp_value "$DATA.3.1.10.1")" = 4000 ] || fail "values after the restore"
disc2=$(snmp_value "$ROOT.1.2.1.9.1")
[ "$disc2" -gt "$disc" ] || fail "segment discontinuity $disc -> $disc2 after the restore"
cdisc=$(snmp_value "$ROOT.1.3.1.11.1.1")
[ "$cdisc" -ge "$disc2" ] || fail "cell discontinuity $cdisc before the reattach $disc2"
reader_lines latch >"$TMP/expect"
cell_lines >"$TMP/cells"
same_lines "$TMP/expect" "$TMP/cells" "values after the restore"

log "overwritten with another size (cp of a truncated copy over it)"
head -c 4096 "$TMP/saved" >"$TMP/short"
cp "$TMP/short" "$SEGMENT"
corrupt "replaced by a short copy"
kill -0 "$AGENT_PID" || fail "the agent died"
reaped "$WATCH_PID" watch
no_log "SIGBUS|Bus error" "a SIGBUS reached the agent's log"
agent_exit_clean 10
log "pass"
exit 0
