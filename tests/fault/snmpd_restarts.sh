#!/bin/bash
# snmpd is killed (SIGKILL and SIGTERM alternately) and restarted 10 times,
# with down times from 0 to 1.2 s, while a poller runs.  Proves that each
# time the subagent answers through the new master within 2 s, holds exactly
# one registration per region (no duplicates, none missing), keeps the same
# number of open descriptors (no leaked sockets), keeps running and keeps
# serving the writer's live values.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/fault/lib.sh"

RESTARTS=${FAULT_SNMPD_RESTARTS:-10}

fx_need snmpget snmpwalk
fx_config "interval_ms = 100; ping_interval = 1;"
fx_snmpd
fx_writer -t 2 -r 2000
fx_agent
fx_wait_pass
regions=$(fx_registrations)
[ "$regions" = "$FX_REGIONS" ] || fail "$regions registrations at start, expected $FX_REGIONS"
fds0=$(fx_fd_count "$AGENT_PID")
log "agent pid $AGENT_PID: $fds0 descriptors, $regions registrations"
poller_start "$DATA.3.1.10.1" "$ROOT.1.1.5.0"

ifname_answers() { [ "$(snmp_value .1.3.6.1.2.1.31.1.1.1.1.1000)" = dp0 ]; }
worst=0 worst_if=0
for i in $(seq "$RESTARTS"); do
	sig=$([ $((i % 2)) = 1 ] && echo KILL || echo TERM)
	down=$(echo "$i" | awk '{ printf "%.1f", ($1 % 3) * 0.6 }')
	fx_kill "$SNMPD_PID" "$sig"
	sleep "$down"
	fx_snmpd_start || fail "restart $i: snmpd did not start again on port $PORT"
	start=$(fx_now_ms)
	secs=$(fx_loaded 2)
	fx_wait "$secs" fx_agent_answers || fail "restart $i: no answer from the subagent within $secs s"
	took=$(($(fx_now_ms) - start))
	[ "$took" -gt "$worst" ] && worst=$took
	# IF-MIB ranges are regions as any other: back as soon.
	fx_wait "$secs" ifname_answers || fail "restart $i: ifName.1000 not answered within $secs s"
	took_if=$(($(fx_now_ms) - start))
	[ "$took_if" -gt "$worst_if" ] && worst_if=$took_if
	kill -0 "$AGENT_PID" 2>/dev/null || fail "restart $i: the agent died"
	regions=$(fx_registrations)
	[ "$regions" = "$FX_REGIONS" ] || fail "restart $i: $regions registrations in snmpd, expected $FX_REGIONS"
	fds=$(fx_fd_count "$AGENT_PID")
	[ "$fds" -le "$fds0" ] || fail "restart $i: $fds descriptors, $fds0 at start"
	log "restart $i (SIG$sig, down ${down}s): answered after ${took} ms (IF-MIB ${took_if} ms), $fds fds, $regions registrations"
done

log "values keep moving through the last master"
before=$(snmp_value "$DATA.3.1.10.1")
fx_wait_pass
sleep 0.3
after=$(snmp_value "$DATA.3.1.10.1")
[ "$after" -gt "$before" ] || fail "totals.packets stuck at $before after the restarts"
t=$(fx_now_ms)
three_polls() { [ "$(polls_ok_since "$t")" -ge 3 ]; }
# Three answered polls, however long a loaded machine takes to make them.
secs=$(fx_loaded 3)
fx_wait "$secs" three_polls ||
	fail "the poller is not answered after the last restart ($(polls_ok_since "$t") polls in $secs s; load $(cut -d' ' -f1-3 /proc/loadavg))"
poller_stop
[ "$(fx_fd_count "$AGENT_PID")" = "$fds0" ] || fail "descriptors $fds0 -> $(fx_fd_count "$AGENT_PID")"
# The IF-MIB ranges came back once each (backend_ifmib.c: one Register PDU per range).
[ "$(snmp_value .1.3.6.1.2.1.31.1.1.1.1.1000)" = dp0 ] || fail "ifName.1000 not served after the restarts"
no_log "cannot register|registering pdu failed|duplicate" "a registration failed"
# snmpd's side: every subtree registered exactly once per session.
! grep -i "duplicate" "$TMP/snmpd.log" || fail "snmpd logged a duplicate registration"
lost=$(grep -c "lost the AgentX master" "$TMP/agent.log" || true)
[ "$lost" -le "$RESTARTS" ] || fail "$lost outages logged for $RESTARTS restarts"
agent_exit_clean 10
log "pass: $RESTARTS restarts, worst re-registration ${worst} ms (IF-MIB ${worst_if} ms), fds $fds0 -> $fds0"
exit 0
