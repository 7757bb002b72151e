#!/bin/bash
# Resets by SET (row, cell, segment) and their error codes; allow_reset and
# SIGHUP: a bad new configuration keeps the old one, a good one is applied.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/integration/fixture.sh"

fx_need snmpget snmpset snmpwalk
fx_config "interval_ms = 100; allow_reset = true;"
fx_snmpd
fx_writer -t 2 -n 5000
fx_agent
fx_writer_settled
fx_wait_pass

before_ts=$(snmp_value "$DATA.3.1.3.1")
[ "$(snmp_value "$DATA.3.1.10.1")" = 10000 ] || fail "totals.packets is not 10000"
sleep 0.1

log "row reset: totals row 1 reads zero, discontinuity stamped, flows untouched"
flow0=$(snmp_value "$DATA.2.1.10.1")
fx_expect_set ok "$DATA.3.1.4.1" i 2
[ "$(snmp_value "$DATA.3.1.10.1")" = 0 ] || fail "totals.packets not zero right after the reset"
[ "$(snmp_value "$DATA.3.1.11.1")" = 0 ] || fail "totals.octets not zero right after the reset"
[ "$(snmp_value "$DATA.3.1.4.1")" = 1 ] || fail "reset column does not read idle(1)"
[ "$(snmp_value "$DATA.2.1.10.1")" = "$flow0" ] || fail "flow 0 changed"
after_ts=$(snmp_value "$DATA.3.1.3.1")
[ "$after_ts" -gt "$before_ts" ] || fail "row discontinuity $before_ts -> $after_ts"
grep -q '^totals.packets.all 0$' <(fx_reader) || fail "the library does not see the reset"

log "cell reset through statctrCellTable; idle(1) is a no-op"
cell=$(snmp_walk "$ROOT.1.3.1.2" | awk '$2 == "flowStats" { print $1; exit }')
cell=${cell##*.}
fx_expect_set ok "$ROOT.1.3.1.12.1.$cell" i 1
[ "$(snmp_value "$DATA.2.1.10.1")" = "$flow0" ] || fail "idle(1) reset flow 0"
fx_expect_set ok "$ROOT.1.3.1.12.1.$cell" i 2
[ "$(snmp_value "$DATA.2.1.10.1")" = 0 ] || fail "cell reset of flow 0 packets"
[ "$(snmp_value "$DATA.2.1.11.1")" != 0 ] || fail "cell reset touched flow 0 octets"

log "bad SETs"
fx_expect_set wrongType "$DATA.3.1.4.1" s reset
fx_expect_set wrongType "$DATA.3.1.4.1" u 2
fx_expect_set wrongValue "$DATA.3.1.4.1" i 3
fx_expect_set wrongValue "$DATA.3.1.4.1" i 0
fx_expect_set noCreation "$DATA.3.1.4.2" i 2
fx_expect_set noCreation "$DATA.1.1.4.99" i 2
fx_expect_set notWritable "$DATA.3.1.10.1" i 2
fx_expect_set notWritable "$DATA.3.1.2.1" s x
fx_expect_set notWritable "$ROOT.1.1.2.0" u 5
gauge=$(snmp_walk "$ROOT.1.3.1.5" | awk '$2 == 2 { print $1; exit }')
fx_expect_set noCreation "$ROOT.1.3.1.12.1.${gauge##*.}" i 2
snmpset -v2c -c "$COMMUNITY" -t 1 -r 0 "127.0.0.1:$PORT" "$DATA.3.1.4.1" i 2 >/dev/null 2>&1 &&
	fail "a read-only community could reset"

log "segment reset"
fx_expect_set ok "$ROOT.1.2.1.12.1" i 2
reader_lines | awk '$1 !~ /(queueDepth|inFlight|speed)/ && $2 != 0 { bad = 1 } END { exit bad }' ||
	fail "segment reset left non-zero counters"
cell_lines >"$TMP/cells"
awk '$1 !~ /(queueDepth|inFlight|speed)/ && $2 != 0 { bad = 1 } END { exit bad }' "$TMP/cells" ||
	fail "segment reset: SNMP shows non-zero counters"

log "SIGHUP with a broken configuration keeps serving the old one"
cp "$TMP/statctr.conf" "$TMP/good.conf"
echo 'agent = { interval_ms = "fast"; };' >>"$TMP/statctr.conf"
kill -HUP "$AGENT_PID"
fx_wait 5 grep -q "SIGHUP: .*statctr.conf:[0-9]*:.*still serving" "$TMP/agent.log" ||
	fail "no log line naming file:line for the bad configuration"
fx_expect_set ok "$DATA.3.1.4.1" i 2

log "SIGHUP with allow_reset = false: resets refused with notWritable"
fx_config "interval_ms = 100; allow_reset = false;"
kill -HUP "$AGENT_PID"
fx_wait 5 grep -q "configuration .* reloaded" "$TMP/agent.log" || fail "reload not logged"
fx_wait 5 fx_agent_answers || fail "agent gone after the reload"
[ "$(snmp_value "$ROOT.1.1.9.0")" = 2 ] || fail "statctrResetAllowed is not false(2)"
fx_expect_set notWritable "$DATA.3.1.4.1" i 2
fx_expect_set notWritable "$ROOT.1.2.1.12.1" i 2
kill -0 "$AGENT_PID" || fail "the agent died"

log "SIGTERM: clean exit, pid file removed"
kill -TERM "$AGENT_PID"
fx_wait 5 bash -c "! kill -0 $AGENT_PID" || fail "the agent did not exit on SIGTERM"
wait "$AGENT_PID"
rc=$?
fx_untrack "$AGENT_PID"
[ "$rc" = 0 ] || fail "exit status $rc after SIGTERM"
[ ! -e "$TMP/agent.pid" ] || fail "pid file left behind"
log "pass"
exit 0
