#!/bin/bash
# The writer restarts four times while a poller reads a counter and its
# discontinuity time in one PDU every 100 ms: killed (-9) and restarted,
# stopped cleanly (its segment removed) and restarted, and restarted from a
# different declaration.  Proves, each time: a new generation is attached
# (statctrSegmentGenerations + 1, a new writer pid), the discontinuity time
# moves forward, the counters restart from the new writer's counts, every
# row served equals the library's snapshot of the new generation (no row or
# value of the old one survives), a segment built from another declaration
# is incompatible(5) with no rows, and the poller never saw a counter go
# backwards without its discontinuity time changing.  With carry_over = false.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/fault/lib.sh"

fx_need snmpget snmpwalk
fx_config "interval_ms = 100;"
# Counts start again with each writer here (carry_over.sh tests the default).
sed -i 's|name = "dataplane";|name = "dataplane"; carry_over = false;|' "$TMP/statctr.conf"
fx_snmpd
fx_writer -t 2 -n 4000
fx_writer_settled
fx_agent
fx_wait_pass
poller_start "$DATA.3.1.10.1" "$DATA.3.1.3.1"

gen=$(snmp_value "$ROOT.1.2.1.10.1")
disc=$(snmp_value "$ROOT.1.2.1.9.1")
pid=$WRITER_PID

# After a restart with -n $1 packets per thread and -t 2: everything checked.
check_generation() {
	local n=$1 g d
	fx_writer_settled
	fx_wait_pass
	wait_status 3 1 "$ST_ACTIVE"
	g=$(snmp_value "$ROOT.1.2.1.10.1")
	d=$(snmp_value "$ROOT.1.2.1.9.1")
	[ "$g" = $((gen + 1)) ] || fail "generations $gen -> $g, expected +1"
	[ "$d" -gt "$disc" ] || fail "segment discontinuity $disc -> $d did not move forward"
	[ "$(snmp_value "$ROOT.1.2.1.7.1")" = "$WRITER_PID" ] || fail "writer pid not the new one"
	[ "$WRITER_PID" != "$pid" ] || fail "the same writer pid"
	[ "$(snmp_value "$DATA.3.1.10.1")" = $((2 * n)) ] || fail "totals.packets did not restart at $((2 * n))"
	reader_lines latch >"$TMP/expect"
	cell_lines >"$TMP/cells"
	same_lines "$TMP/expect" "$TMP/cells" "cells after restart"
	data_lines >"$TMP/data"
	reader_lines latch >"$TMP/expect"
	same_lines "$TMP/expect" "$TMP/data" "statctrData rows after restart"
	gen=$g disc=$d pid=$WRITER_PID
	log "generation $g: discontinuity $d, totals.packets $((2 * n)), rows = library snapshot"
}

log "kill -9 and restart"
sleep 0.2 # TimeStamps have centisecond resolution
fx_kill "$WRITER_PID" KILL
fx_writer -t 2 -n 1000
check_generation 1000

log "clean stop (segment removed: absent, no rows) and restart"
fx_writer_stop
wait_status 3 1 "$ST_ABSENT"
[ -z "$(snmp_walk "$DATA")" ] || fail "rows of a removed segment"
sleep 0.2
fx_writer -t 2 -n 3000
check_generation 3000

log "restart from another declaration: incompatible(5), no rows"
fx_kill "$WRITER_PID" KILL
sed 's/rows = 64;/rows = 65;/' "$TMP/statctr.conf" >"$TMP/other.conf"
grep -q 'rows = 65;' "$TMP/other.conf" || fail "cannot derive another declaration"
"$PIPELINE" -c "$TMP/other.conf" -t 1 -n 10 >>"$TMP/writer.log" 2>&1 &
WRITER_PID=$!
fx_track "$WRITER_PID"
wait_status 5 1 5
[ -z "$(snmp_walk "$DATA")" ] || fail "rows served from an incompatible segment"
[ -z "$(snmp_walk "$ROOT.1.3")" ] || fail "cells served from an incompatible segment"
gen=$(snmp_value "$ROOT.1.2.1.10.1")
disc=$(snmp_value "$ROOT.1.2.1.9.1")
pid=$WRITER_PID

log "and back to the agent's declaration"
fx_kill "$WRITER_PID" KILL
sleep 0.2
fx_writer -t 2 -n 500
check_generation 500

poller_stop
# Consecutive answers: a counter that went down must come with a new discontinuity.
awk '$2 == 0 && NF == 4 {
		if (seen && $3 < v && $4 == d) { print "backwards at " $1 ": " v " -> " $3 " (disc " d ")"; bad++ }
		if (seen && $4 != d) changes++
		v = $3; d = $4; seen = 1; n++
	}
	END { print n " polls, " changes + 0 " discontinuity changes"; exit bad > 0 }' \
	"$TMP/poller.log" >"$TMP/mono.out" || {
	cat "$TMP/mono.out" >&2
	fail "a counter went backwards without a discontinuity"
}
log "poller: $(tail -1 "$TMP/mono.out")"
[ "$(awk '$2 == 0' "$TMP/poller.log" | wc -l)" -ge 20 ] || fail "too few successful polls"
kill -0 "$AGENT_PID" || fail "the agent died"
agent_exit_clean 10
log "pass"
exit 0
