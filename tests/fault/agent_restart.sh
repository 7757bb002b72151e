#!/bin/bash
# The agent is killed (-9, then SIGTERM) and restarted after resets, with
# an idle writer on one segment and a running one on the other.  Proves:
# resets done before the restart are still in effect afterwards (baselines
# live with the segment, not in the agent); values continue (the running
# writer's counters only grow across the restart); no discontinuity is
# invented: every discontinuity TimeStamp (segment, row, cell, reset or
# never reset) is the same after the restart as before.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/fault/lib.sh"

fx_need snmpget snmpset snmpwalk
fx_config_two "interval_ms = 100; allow_reset = true; state_file = \"$TMP/agentx.state\";"
fx_snmpd
fx_writer -t 2 -n 3000
fx_writer_on dataplane2 -t 1 -r 500
fx_writer_settled
fx_agent
fx_wait_pass

snmp_set() { snmpset -v2c -c "$WCOMMUNITY" -t 2 -r 1 -Oq "127.0.0.1:$PORT" "$@" >/dev/null; }

log "resets: the totals row and one cell (ifStats.rxPackets.dp0)"
sleep 0.2
snmp_set "$DATA.3.1.4.1" i 2 || fail "row reset refused"
snmp_set "$ROOT.1.3.1.12.1.1" i 2 || fail "cell reset refused"
fx_wait_pass
[ "$(snmp_value "$DATA.3.1.10.1")" = 0 ] || fail "totals.packets not 0 after its reset"
[ "$(snmp_value "$ROOT.1.3.1.8.1.1")" = 0 ] || fail "ifStats.rxPackets.dp0 not 0 after its reset"

# Everything whose change would tell a manager "discontinuity".
DISC_OIDS="$ROOT.1.2.1.9.1 $ROOT.1.2.1.9.2 $DATA.3.1.3.1 $DATA.1.1.3.1 $DATA.1.1.3.2
	$ROOT.1.3.1.11.1.1 $ROOT.1.3.1.11.1.2 $ROOT.1.3.1.11.2.1 $DATA2.3.1.3.1"
discs() { snmp_get $DISC_OIDS | awk '{ print $2 }' | tr '\n' ' '; }
values() { snmp_get "$DATA.3.1.10.1" "$ROOT.1.3.1.8.1.1" "$DATA.1.1.10.2" | awk '{ print $2 }' | tr '\n' ' '; }
running() { snmp_value "$DATA2.3.1.10.1"; }

d0=$(discs)
v0=$(values)
log "before: discontinuities [$d0] values [$v0]"
[ "$(echo "$d0" | wc -w)" = 9 ] || fail "cannot read the discontinuity times"

for sig in KILL TERM; do
	r0=$(running)
	fx_kill "$AGENT_PID" "$sig"
	fx_agent
	fx_wait_pass
	d1=$(discs)
	v1=$(values)
	r1=$(running)
	log "after SIG$sig: discontinuities [$d1] values [$v1]; running writer $r0 -> $r1"
	[ "$d1" = "$d0" ] || fail "SIG$sig: discontinuity times changed: [$d0] -> [$d1]"
	[ "$v1" = "$v0" ] || fail "SIG$sig: values of the idle segment changed: [$v0] -> [$v1]"
	[ "$r1" -ge "$r0" ] || fail "SIG$sig: the running writer's totals went back: $r0 -> $r1"
done
reader_lines latch >"$TMP/expect"
data_lines >"$TMP/data"
same_lines "$TMP/expect" "$TMP/data" "values after the restarts differ from the library's"
agent_exit_clean 10
log "pass"
exit 0
