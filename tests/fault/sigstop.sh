#!/bin/bash
# The agent is SIGSTOPped while requests arrive, long enough for the master
# (agentXTimeout 1, agentXRetries 0) to time it out and close its session,
# then SIGCONTed; twice, and once more for a stop too short to be noticed.
# Proves: while the agent is stopped snmpd keeps answering for its own
# objects and drops the agent's registrations; after SIGCONT the agent
# reconnects and answers within 3 s with exactly one registration per
# region, the same number of open descriptors, and live values.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/fault/lib.sh"

fx_need snmpget snmpwalk
fx_config "interval_ms = 100; ping_interval = 1;"
fx_snmpd
fx_snmpd_reconfigure "agentXTimeout 1
agentXRetries 0"
fx_writer -t 2 -r 2000
fx_agent
fx_wait_pass
fds0=$(fx_fd_count "$AGENT_PID")
[ "$(fx_registrations)" = "$FX_REGIONS" ] || fail "not $FX_REGIONS registrations at start"

no_registrations() { [ "$(fx_registrations)" = 0 ]; }
all_registered() { [ "$(fx_registrations)" = "$FX_REGIONS" ]; }

for stop in 2 4; do
	log "SIGSTOP for ${stop} s with requests pending"
	fx_freeze "$AGENT_PID"
	snmpget -v2c -c "$COMMUNITY" -t 3 -r 0 "127.0.0.1:$PORT" "$DATA.3.1.10.1" >/dev/null 2>&1 || true
	fx_wait 3 no_registrations || fail "the master did not drop the stopped agent's registrations"
	fx_snmpd_answers >/dev/null || fail "snmpd itself stopped answering while the agent was stopped"
	sleep "$stop"
	before=$(fx_now_ms)
	kill -CONT "$AGENT_PID"
	secs=$(fx_loaded 3)
	fx_wait "$secs" fx_agent_answers || fail "no answer within $secs s of SIGCONT"
	took=$(($(fx_now_ms) - before))
	fx_wait 2 all_registered ||
		fail "$(fx_registrations) registrations after SIGCONT, expected $FX_REGIONS"
	a=$(snmp_value "$DATA.3.1.10.1")
	fx_wait_pass
	b=$(snmp_value "$DATA.3.1.10.1")
	[ "$b" -gt "$a" ] || fail "values do not move after SIGCONT ($a -> $b)"
	[ "$(fx_fd_count "$AGENT_PID")" = "$fds0" ] || fail "descriptors $fds0 -> $(fx_fd_count "$AGENT_PID")"
	wait_log 1 "lost the AgentX master"
	log "answered ${took} ms after SIGCONT, 5 registrations, $fds0 fds"
done

log "a stop too short for the master to notice"
fx_freeze "$AGENT_PID"
sleep 0.5
kill -CONT "$AGENT_PID"
fx_wait "$(fx_loaded 2)" fx_agent_answers || fail "no answer after a short stop"
[ "$(fx_registrations)" = "$FX_REGIONS" ] || fail "registrations after a short stop"
kill -0 "$AGENT_PID" || fail "the agent died"
agent_exit_clean 10

# The master stopped (SIGSTOP): the agent's pings and re-registrations wait in
# Net-SNMP's synchronous calls, which the main loop cannot interrupt; SIGTERM
# must still end it within 2 s (the exit watchdog, agent/daemon.c), 3 s here for load.
log "SIGTERM while the master is stopped: the agent ends within 3 s"
fx_agent
fx_freeze "$SNMPD_PID"
sleep 2.5 # a ping (ping_interval 1) is outstanding, or the master is being re-registered with
before=$(fx_now_ms)
kill -TERM "$AGENT_PID"
fx_wait 3 bash -c "! kill -0 $AGENT_PID 2>/dev/null" || {
	kill -CONT "$SNMPD_PID"
	fail "the agent did not exit within 3 s of SIGTERM with the master stopped"
}
log "the agent ended $(($(fx_now_ms) - before)) ms after SIGTERM"
wait "$AGENT_PID" || fail "the agent exited with status $? after SIGTERM"
fx_untrack "$AGENT_PID"
kill -CONT "$SNMPD_PID"
log "pass"
exit 0
