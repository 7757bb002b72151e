#!/bin/bash
# Life cycle: snmpd restarts (the subagent answers again within 2 s and logs
# the outage once), the writer is killed and restarted (new generation:
# status, discontinuity and counts change), the segment is removed (its rows
# go away), and a segment that does not exist yet is attached when it appears.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/integration/fixture.sh"

fx_need snmpget snmpwalk
fx_config "interval_ms = 100; allow_reset = true; ping_interval = 1;"
# Counts start again with each writer here (tests/fault/carry_over.sh tests the default).
sed -i 's|name = "dataplane";|name = "dataplane"; carry_over = false;|' "$TMP/statctr.conf"
fx_snmpd

log "segment absent at start: not an error, status absent(2), no rows"
fx_agent
[ "$(snmp_value "$ROOT.1.2.1.4.1")" = 2 ] || fail "status of a missing segment is not absent(2)"
[ -z "$(snmp_walk "$DATA")" ] || fail "rows of a missing segment"
[ -z "$(snmp_walk "$ROOT.1.3")" ] || fail "cells of a missing segment"

log "the writer appears: attached without a restart"
fx_writer -t 2 -n 3000
fx_writer_settled
fx_wait_pass
[ "$(snmp_value "$ROOT.1.2.1.4.1")" = 1 ] || fail "status is not active(1)"
[ "$(snmp_value "$DATA.3.1.10.1")" = 6000 ] || fail "totals.packets is not 6000"
[ "$(snmp_value "$ROOT.1.2.1.7.1")" = "$WRITER_PID" ] || fail "writer pid"
gen1=$(snmp_value "$ROOT.1.2.1.10.1")

log "snmpd restart: the subagent answers again within 2 s"
fx_snmpd_stop
sleep 2.5 # two ping intervals with the master down
fx_snmpd_start || fail "snmpd did not restart on port $PORT"
start=$(date +%s%N)
secs=$(fx_loaded 2)
fx_wait "$secs" fx_agent_answers || fail "the subagent did not answer within $secs s of snmpd's restart"
log "answered $((($(date +%s%N) - start) / 1000000)) ms after snmpd answered"
# The first region answers before the last is registered again: polled.
data_back() { [ "$(snmp_value "$DATA.3.1.10.1")" = 6000 ]; }
fx_wait 5 data_back || fail "values after the master restart: $(snmp_value "$DATA.3.1.10.1")"
lost=$(grep -c "lost the AgentX master" "$TMP/agent.log")
[ "$lost" = 1 ] || fail "the outage was logged $lost times, not once"
[ "$(grep -c "not reachable" "$TMP/agent.log")" = 0 ] || fail "unreachable master logged"
# TimeStamps follow the new master's sysUpTime: the writer started before it.
disc1=$(snmp_value "$ROOT.1.2.1.9.1")
[ "$disc1" = 0 ] || fail "discontinuity before the master's start is $disc1, not 0"

log "kill -9 the writer: status writerGone(4), values final"
kill -KILL "$WRITER_PID"
wait "$WRITER_PID" 2>/dev/null
fx_untrack "$WRITER_PID"
fx_wait_pass
[ "$(snmp_value "$ROOT.1.2.1.4.1")" = 4 ] || fail "status is not writerGone(4)"
[ "$(snmp_value "$DATA.3.1.10.1")" = 6000 ] || fail "final values of a dead writer"

log "restart the writer: new generation, discontinuity stamped, counts restart"
sleep 0.2 # a TimeStamp has centisecond resolution
fx_writer -t 1 -n 1000
fx_writer_settled
fx_wait_pass
[ "$(snmp_value "$ROOT.1.2.1.4.1")" = 1 ] || fail "status is not active(1) again"
[ "$(snmp_value "$ROOT.1.2.1.7.1")" = "$WRITER_PID" ] || fail "new writer pid"
[ "$(snmp_value "$ROOT.1.2.1.10.1")" = $((gen1 + 1)) ] || fail "generations not incremented"
disc2=$(snmp_value "$ROOT.1.2.1.9.1")
[ "$disc2" -gt "$disc1" ] || fail "segment discontinuity $disc1 -> $disc2"
[ "$(snmp_value "$DATA.3.1.10.1")" = 1000 ] || fail "counts did not restart"
cell_disc=$(snmp_value "$ROOT.1.3.1.11.1.1")
[ "$cell_disc" -ge "$disc2" ] || fail "cell discontinuity $cell_disc before the generation $disc2"
reader_lines latch >"$TMP/expect"
cell_lines >"$TMP/cells"
same_lines "$TMP/expect" "$TMP/cells" "values after the writer restart"

log "remove the segment: rows go away, status absent(2)"
fx_writer_stop
fx_wait 5 bash -c "[ ! -e '$SEGMENT' ]" || fail "the writer did not remove its segment"
fx_wait_pass
[ "$(snmp_value "$ROOT.1.2.1.4.1")" = 2 ] || fail "status is not absent(2) after removal"
[ -z "$(snmp_walk "$DATA")" ] || fail "rows left after the segment was removed"
[ -z "$(snmp_walk "$ROOT.1.3")" ] || fail "cells left after the segment was removed"
snmp_get "$DATA.3.1.10.1" | grep -q "No Such Instance" || fail "GET of a removed row"
kill -0 "$AGENT_PID" || fail "the agent died"
log "pass"
exit 0
