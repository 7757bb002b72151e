#!/bin/bash
# A slow master gets each AgentX request once.  The agent talks to snmpd
# through tests/fault/agentx_relay.py, which logs every PDU the agent sends
# ("TYPE PACKETID") and, for 10 s, forwards nothing: a master that answers
# nothing while the agent pings it every second (ping_interval 1), for
# longer than the 6 s the agent once allowed a request (a ping unanswered
# in 6 s at load 24 reopened the session: agent_restart.sh, round 8).
# AgentX runs over a stream socket, where nothing is lost.  Net-SNMP's
# client default sent an unanswered request again every second, 5 times:
# a slow master had each ping, and each Register PDU of a registration, to
# handle up to six times (copies of a Register PDU are answered
# duplicateRegistration against the agent itself), fell further behind,
# and the agent reopened its session to register everything again
# (agent_restart.sh under ASan at load 16).
# Proves: no request of the agent (any PDU but a Response) is sent twice
# with one packet id, before or after the stall; the session is not
# reopened; the agent answers with one registration per region.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/fault/lib.sh"

fx_need snmpget snmpbulkwalk python3
fx_config "interval_ms = 100; ping_interval = 1;"
fx_snmpd
fx_writer -t 2 -n 1000
python3 "$top_srcdir/tests/fault/agentx_relay.py" "$TMP/relay.sock" "$TMP/agentx.sock" \
	"$TMP/pdus.log" "$TMP/hold" >"$TMP/relay.log" 2>&1 &
fx_track $!
fx_wait 5 test -S "$TMP/relay.sock" || fail "the relay did not listen: $(cat "$TMP/relay.log")"
fx_agent -x "$TMP/relay.sock"
fx_wait_pass

# resent FROM: "count type packet-id" of each request (not a Response,
# type 18) the agent sent more than once, from line FROM of pdus.log on.
resent() {
	tail -n +"$1" "$TMP/pdus.log" | awk '$1 != 18' | sort | uniq -c | awk '$1 > 1'
}
[ -s "$TMP/pdus.log" ] || fail "the relay logged no PDU"
[ -z "$(resent 1)" ] || fail "requests sent more than once at the start: $(resent 1)"

log "the master answers nothing for 10 s, the agent pinging every second"
from=$(($(wc -l <"$TMP/pdus.log") + 1))
agent_from=$(($(wc -l <"$TMP/agent.log") + 1))
: >"$TMP/hold"
sleep 10 # the fault's length: a ping goes out within 1 s; Net-SNMP's default sent it again 1 s later, and a 6 s timeout gave up on it
rm "$TMP/hold"
fx_wait 5 fx_agent_answers || fail "the agent does not answer after the stall"
pings() { tail -n +"$from" "$TMP/pdus.log" | awk '$1 == 13' | wc -l; }
two_more_pings() { [ "$(pings)" -ge 3 ]; }
fx_wait 5 two_more_pings || fail "fewer than 3 pings after the stall: $(pings)"

log "requests the agent sent from the stall on: $(tail -n +"$from" "$TMP/pdus.log" | awk '$1 != 18' | wc -l) ($(pings) pings); sent twice: $(resent "$from" | wc -l)"
[ -z "$(resent "$from")" ] || fail "requests sent more than once (count type packet-id): $(resent "$from" | tr '\n' ';')"
if tail -n +"$agent_from" "$TMP/agent.log" | grep -q 'lost the AgentX master\|failed to respond to ping'; then
	fail "the agent reopened its session: $(tail -n +"$agent_from" "$TMP/agent.log")"
fi
[ "$(fx_registrations)" = "$FX_REGIONS" ] || fail "registrations after the stall: $(fx_registrations), not $FX_REGIONS"
kill -0 "$AGENT_PID" || fail "the agent died"
agent_exit_clean 10
log "pass"
exit 0
