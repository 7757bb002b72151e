#!/bin/bash
# carry_over (on by default; docs/agent.md "Counters across writer
# restarts"): the writer is killed (-9) and restarted three times while a
# poller reads totals.packets and its discontinuity time in one PDU every
# 100 ms.  Proves:
# - after each restart whose dead writer the agent saw (writerGone), every
#   counter of the static tables served in statctrData equals the sum of
#   every generation's final count (the library's snapshots, read by
#   examples/reader), and no discontinuity time moved;
# - a SIGHUP keeps the carried counts;
# - a restart the agent did not see (frozen while the writer is killed and
#   restarted) never serves less than before, moves the discontinuity time,
#   and is logged;
# - a reset still resets (0, discontinuity moved), and a restart after it
#   carries from 0;
# - the poller never saw the counter go backwards without its discontinuity
#   time changing, nor a discontinuity change but at the loss and the reset;
# - each writer's death is logged once, with what becomes of its counts.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/fault/lib.sh"

fx_need snmpget snmpwalk snmpset
fx_config "interval_ms = 100; allow_reset = true;"
fx_snmpd
fx_writer -t 2 -n 1000
fx_writer_settled
fx_agent
fx_wait_pass
PKT=$DATA.3.1.10.1 PKTDISC=$DATA.3.1.3.1
poller_start "$PKT" "$PKTDISC"


fx_reader | counter_lines | sort >"$TMP/gen.1"
: >"$TMP/carried"
disc0=$(snmp_value "$PKTDISC")
total=$(snmp_value "$PKT")
[ "$total" = 2000 ] || fail "totals.packets $total, not 2000 before any restart"

# restart_seen N: kill -9, wait until the agent serves writerGone (it saw the
# final counts), restart with -n N, then check every counter is the sum.
restart_seen() {
	local n=$1 got
	fx_reader | counter_lines | sort >"$TMP/final"
	local dead=$WRITER_PID
	fx_kill "$WRITER_PID" KILL
	wait_status "$(fx_loaded 5)" 1 "$ST_GONE"
	wait_log "$(fx_loaded 5)" "segment dataplane: writer pid $dead died without closing it: its values are final \(writerGone\); the next writer's counts continue them"
	fx_wait_pass
	add_into "$TMP/carried" "$TMP/final"
	sleep 0.1 # a generation's creation time is in ms; TimeStamps in cs
	fx_writer -t 2 -n "$n"
	fx_writer_settled
	wait_status "$(fx_loaded 5)" 1 "$ST_ACTIVE"
	fx_wait_pass
	cp "$TMP/carried" "$TMP/expect"
	fx_reader | counter_lines | sort >"$TMP/now"
	add_into "$TMP/expect" "$TMP/now"
	data_lines | counter_lines >"$TMP/served"
	[ "$(wc -l <"$TMP/served")" -ge 100 ] || fail "only $(wc -l <"$TMP/served") counters served"
	same_lines "$TMP/expect" "$TMP/served" "served counters are not the sums of every generation"
	got=$(snmp_value "$PKT")
	total=$(awk '$1 == "totals.packets.all" { print $2 }' "$TMP/expect")
	[ "$got" = "$total" ] || fail "totals.packets $got, not $total"
	[ "$(snmp_value "$PKTDISC")" = "$disc0" ] ||
		fail "the discontinuity time moved ($disc0 -> $(snmp_value "$PKTDISC")) though no count was lost"
	log "restart carried: totals.packets $got = sum of generations, $(wc -l <"$TMP/served") counters exact, discontinuity $disc0 kept"
}

log "kill -9 and restart, 3 times, the agent sees each writer gone"
restart_seen 500
restart_seen 1500
restart_seen 700

log "SIGHUP keeps the carried counts"
kill -HUP "$AGENT_PID"
wait_log "$(fx_loaded 5)" "SIGHUP: configuration .* reloaded"
fx_wait_pass
[ "$(snmp_value "$PKT")" = "$total" ] || fail "after SIGHUP: totals.packets $(snmp_value "$PKT"), not $total"
[ "$(snmp_value "$PKTDISC")" = "$disc0" ] || fail "after SIGHUP: the discontinuity time moved"

log "a restart the agent did not see: never less, discontinuity moves"
before=$(snmp_value "$PKT")
fx_freeze "$AGENT_PID"
fx_kill "$WRITER_PID" KILL
fx_writer -t 2 -n 300
fx_writer_settled
kill -CONT "$AGENT_PID"
wait_log "$(fx_loaded 5)" "restarted before the agent saw its final counts"
wait_status "$(fx_loaded 5)" 1 "$ST_ACTIVE"
fx_wait_pass
after=$(snmp_value "$PKT")
disc1=$(snmp_value "$PKTDISC")
[ "$after" -ge "$before" ] || fail "totals.packets went backwards: $before -> $after"
[ "$after" = $((before + 600)) ] || fail "totals.packets $after, not the last served $before + 600"
[ "$disc1" -gt "$disc0" ] || fail "the discontinuity time did not move ($disc0 -> $disc1) though counts may be lost"
log "unseen restart: totals.packets $before -> $after, discontinuity $disc0 -> $disc1"

log "a reset still resets; a restart after it carries from 0"
fx_expect_set ok "$DATA.3.1.4.1" i 2
fx_wait_pass
[ "$(snmp_value "$PKT")" = 0 ] || fail "after the reset: totals.packets $(snmp_value "$PKT"), not 0"
disc2=$(snmp_value "$PKTDISC")
[ "$disc2" -gt "$disc1" ] || fail "the reset did not move the discontinuity time"
fx_kill "$WRITER_PID" KILL
wait_status "$(fx_loaded 5)" 1 "$ST_GONE"
fx_wait_pass
fx_writer -t 2 -n 250
fx_writer_settled
wait_status "$(fx_loaded 5)" 1 "$ST_ACTIVE"
fx_wait_pass
[ "$(snmp_value "$PKT")" = 500 ] || fail "after reset and restart: totals.packets $(snmp_value "$PKT"), not 0 + 500"
[ "$(snmp_value "$PKTDISC")" = "$disc2" ] || fail "the restart after the reset moved the discontinuity time"

poller_stop
poller_never_backwards 2 0 "a counter"
kill -0 "$AGENT_PID" || fail "the agent died"
agent_exit_clean 10
log "pass"
exit 0
