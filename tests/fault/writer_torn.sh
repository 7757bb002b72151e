#!/bin/bash
# A writer stops inside a transaction (tests/fault/txn_writer), first alive
# and stuck, then SIGKILLed, on one of two segments while a healthy writer
# runs on the other.  Proves: no reader hangs (examples/reader, statctl and
# SNMP answer within their bounded budget); the slot is reported (busy while
# the writer lives, dead_torn once it is gone, statctrSegmentBusySlots = 1
# in both cases); the torn transaction's values are read as they are, and
# once the writer is dead they are final; the segment's status becomes
# writerGone(4); the other segment keeps being served with moving values;
# a new writer replaces the dead one's segment.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/fault/lib.sh"

N=5000
TXN_WRITER=$top_builddir/tests/fault/txn_writer
STATCTL=$top_builddir/tools/statctl

fx_need snmpget snmpwalk
[ -x "$TXN_WRITER" ] || skip "tests/fault/txn_writer not built (make check builds it)"
# Each generation counts from 0 here: the new writer's 10 (carry_over.sh tests the default).
fx_config_two "interval_ms = 200;" "carry_over = false;"
fx_snmpd
fx_writer -t 2 -r 2000
"$TXN_WRITER" -c "$TMP/statctr.conf" -s dataplane2 -n "$N" >"$TMP/txn.out" 2>&1 &
TXN_PID=$!
fx_track "$TXN_PID"
fx_wait 5 grep -q in-transaction "$TMP/txn.out" || fail "txn_writer did not reach its transaction"
fx_agent

# timed LIMIT_S COMMAND...: runs COMMAND (stdout to $TMP/out, stderr to
# $TMP/err) and fails if it takes longer than LIMIT_S seconds plus twice
# the same command on the healthy segment (dataplane for dataplane2, in
# paths and OIDs), timed just before: a loaded machine is slow to start and
# run anything (a reader took 2.7 s for its 1 s budget at load 20), and a
# read that waits unbounded is far above.
timed() {
	local limit=$1 start took base bound healthy=() a
	shift
	for a in "$@"; do
		case $a in
		"$SEGMENT2") healthy+=("$SEGMENT") ;;
		"$DATA2".*) healthy+=("$DATA${a#"$DATA2"}") ;;
		*) healthy+=("$a") ;;
		esac
	done
	start=$(fx_now_ms)
	timeout "$(fx_loaded 10)" "${healthy[@]}" >/dev/null 2>&1 || fail "${healthy[*]} failed"
	base=$(($(fx_now_ms) - start))
	start=$(fx_now_ms)
	timeout "$(fx_loaded 10)" "$@" >"$TMP/out" 2>"$TMP/err" || fail "$* failed: $(cat "$TMP/err")"
	took=$(($(fx_now_ms) - start))
	bound=$((limit * 1000 + 2 * base))
	[ "$took" -le "$bound" ] ||
		fail "$* took $took ms (bound $limit s + twice the healthy segment's $base ms; load $(cut -d' ' -f1 /proc/loadavg))"
	log "$(basename "$1") ${2:-} answered in $took ms (the healthy segment in $base ms)"
}

# The torn transaction as read: the flow row moved, the totals row did not.
expect_torn() {
	grep -qx "flowStats.packets.0 $((N + 1))" "$TMP/out" || fail "$1: flowStats.packets.0 is not $((N + 1))"
	grep -qx "flowStats.octets.0 $((100 * (N + 1)))" "$TMP/out" || fail "$1: flowStats.octets.0"
	grep -qx "totals.packets.all $N" "$TMP/out" || fail "$1: totals.packets.all is not $N"
	grep -qx "totals.octets.all $((100 * N))" "$TMP/out" || fail "$1: totals.octets.all"
}

log "writer alive but stuck inside a transaction: bounded reads, the slot is busy"
timed 2 "$READER" -1 "$SEGMENT2"
grep -q "busy 1 dead_torn 0" "$TMP/err" || fail "reader: $(cat "$TMP/err"), expected busy 1"
expect_torn "reader (stuck writer)"
timed 3 "$STATCTL" -f json show "$SEGMENT2"
grep -q '"busy_slots": *1' "$TMP/out" || fail "statctl does not report the busy slot"
fx_wait_pass
[ "$(seg_status 2)" = "$ST_ACTIVE" ] || fail "status of the stuck writer's segment is not active(1)"
[ "$(snmp_value "$ROOT.1.2.1.11.2")" = 1 ] || fail "statctrSegmentBusySlots is not 1"
[ "$(snmp_value "$DATA2.3.1.10.1")" = "$N" ] || fail "SNMP totals.packets of dataplane2 is not $N"
[ "$(snmp_value "$DATA2.2.1.10.1")" = $((N + 1)) ] || fail "SNMP flowStats.packets.0 is not $((N + 1))"

log "SIGKILL inside the transaction: dead_torn, values final, status writerGone(4)"
fx_kill "$TXN_PID" KILL
timed 2 "$READER" -1 "$SEGMENT2"
grep -q "busy 0 dead_torn 1" "$TMP/err" || fail "reader: $(cat "$TMP/err"), expected dead_torn 1"
expect_torn "reader (dead writer)"
cp "$TMP/out" "$TMP/final1"
timed 3 "$STATCTL" -f json show "$SEGMENT2"
grep -q '"dead_torn_slots": *1' "$TMP/out" || fail "statctl does not report the dead torn slot"
wait_status 3 2 "$ST_GONE"
[ "$(snmp_value "$ROOT.1.2.1.11.2")" = 1 ] || fail "statctrSegmentBusySlots is not 1 for the torn slot"
[ "$(snmp_value "$DATA2.3.1.10.1")" = "$N" ] || fail "SNMP totals.packets of dataplane2 moved"
[ "$(snmp_value "$DATA2.2.1.10.1")" = $((N + 1)) ] || fail "SNMP flowStats.packets.0 moved"
sleep 0.5
timed 2 "$READER" -1 "$SEGMENT2"
diff -q "$TMP/final1" "$TMP/out" >/dev/null || fail "the dead writer's values changed"

log "the other segment is served throughout"
[ "$(seg_status 1)" = "$ST_ACTIVE" ] || fail "dataplane is not active(1)"
a=$(snmp_value "$DATA.3.1.10.1")
fx_wait_pass
b=$(snmp_value "$DATA.3.1.10.1")
[ "$b" -gt "$a" ] || fail "dataplane's totals.packets stuck at $a"
timed 1 snmpget $V2 "127.0.0.1:$PORT" "$DATA.3.1.10.1" "$DATA2.3.1.10.1" "$ROOT.1.1.5.0"

log "a new writer replaces the dead one's segment"
fx_writer_on dataplane2 -t 1 -n 10
wait_status 3 2 "$ST_ACTIVE"
fx_wait_pass
[ "$(snmp_value "$ROOT.1.2.1.11.2")" = 0 ] || fail "busy slots after the new writer"
[ "$(snmp_value "$DATA2.3.1.10.1")" = 10 ] || fail "the new generation's totals.packets is not 10"
kill -0 "$AGENT_PID" || fail "the agent died"
agent_exit_clean 10
log "pass"
exit 0
