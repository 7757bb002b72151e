#!/bin/bash
# TimeStamps stay put when the master's messages are late.  The agent talks
# to snmpd through tests/fault/agentx_relay.py, which can deliver every
# message of the master LATE seconds late (1.5 to 3): the sysUpTime each
# carries, from which the agent estimates the offset behind its TimeStamps
# (agent/timebase.c), is then LATE s old, as at load 40 (round 9:
# daemon_carry_restart.sh).  LATE exceeds the master's age when the agent
# last answered a request, up to 3 s (snmpd's agentXTimeout is 5 s, and a
# loaded machine adds its own latency), so that such an estimate cannot be
# vouched for by that request.
# Proves:
# - in a running agent, late messages do not move a TimeStamp: within one
#   AgentX session the master is the same (before, an estimate over 1 s
#   off was taken for a new master's, and then one later than the master's
#   age at the last request answered);
# - an agent restarted while every message is late keeps the offset its
#   predecessor stored, and so every TimeStamp: its predecessor's last
#   SEEN reaches the state file though its exit was forced (late Responses
#   to pings sent each second keep its main loop in back-to-back
#   synchronous pings, where requests are answered but the file is not
#   written: the exit watchdog writes it);
# - a new master is still one: after snmpd's restart, with the messages
#   late, TimeStamps count from the new master's start (events before it: 0);
# - a state file holding numbers out of range is not believed.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/fault/lib.sh"

fx_need snmpget snmpset python3
fx_config "interval_ms = 100; allow_reset = true; ping_interval = 1; state_file = \"$TMP/agentx.state\";"
fx_snmpd
fx_writer -t 2 -n 1000
fx_writer_settled
python3 "$top_srcdir/tests/fault/agentx_relay.py" "$TMP/relay.sock" "$TMP/agentx.sock" \
	"$TMP/pdus.log" "$TMP/hold" "$TMP/delay" >"$TMP/relay.log" 2>&1 &
fx_track $!
fx_wait 5 test -S "$TMP/relay.sock" || fail "the relay did not listen: $(cat "$TMP/relay.log")"
# A state file whose numbers are out of any range is not believed (and no
# arithmetic on them overflows: UBSan's build checks).
echo "-9223372036854775808 9223372036854775807 0" >"$TMP/agentx.state"
fx_agent -x "$TMP/relay.sock"
fx_wait_pass

SEGDISC=$ROOT.1.2.1.9.1  # statctrSegmentDiscontinuity: the writer's start
CELLDISC=$ROOT.1.3.1.11.1.1 # ifStats.rxPackets.dp0's: its reset below
# Each GET waits out the relay's delay: one try, long enough for load 40.
slow_get() { snmpget -v2c -c "$COMMUNITY" -On -Oqv -Ot -t "$(fx_loaded 8)" -r 0 "127.0.0.1:$PORT" "$@"; }
discs() { slow_get "$SEGDISC" "$CELLDISC" 2>/dev/null | tr '\n' ' ' | sed 's/ $//'; }
two_numbers() { [[ "$(discs)" =~ ^[0-9]+\ [0-9]+$ ]]; }
# late_responses: Responses (type 18) of the master handed on LATE s late.
late_responses() { awk -v late="$LATE" '$1 == "<" && $2 == 18 && $4 == late' "$TMP/pdus.log" | wc -l; }
# A ping is answered before the next is sent: once two pings' Responses
# were handed on late, the agent has taken the first one's sysUpTime.
two_late() { [ "$(late_responses)" -ge "$((late0 + 2))" ]; }
state_line() { cat "$TMP/agentx.state" 2>/dev/null || true; }
now_cs() { echo $(($(date +%s%N) / 10000000)); }
# rewrite_due: the file's SEEN is old enough for the next request to
# rewrite it (timebase.c, persist(): the master's uptime at SEEN has
# doubled, and at least 1 s passed).
rewrite_due() {
	local offset seen age
	read -r offset seen _ <<<"$(state_line)"
	age=$((seen + offset))
	[ "$age" -ge 100 ] || age=100
	[ "$(now_cs)" -gt $((seen + age)) ]
}
# restart_agent: the agent stopped, started again through the relay, serving.
restart_agent() {
	fx_kill "$AGENT_PID" TERM
	start_agent
}
start_agent() {
	"$AGENT" -f -L stderr -c "$TMP/statctr.conf" -x "$TMP/relay.sock" -p "$TMP/agent.pid" \
		>>"$TMP/agent.log" 2>&1 &
	AGENT_PID=$!
	fx_track "$AGENT_PID"
	fx_wait 20 two_numbers || fail "the agent did not serve within $(fx_loaded 20) s: '$(discs)'"
}

log "reset ifStats.rxPackets.dp0: its discontinuity is a TimeStamp of now"
sleep 0.2 # a TimeStamp has centisecond resolution: after the writer's start
snmpset -v2c -c "$WCOMMUNITY" -t "$(fx_loaded 2)" -r 0 "127.0.0.1:$PORT" "$ROOT.1.3.1.12.1.1" i 2 \
	>/dev/null || fail "the cell reset was refused"
fx_wait_pass
d0=$(discs)
[[ "$d0" =~ ^[0-9]+\ [0-9]+$ ]] || fail "cannot read the discontinuity times: '$d0'"
read -r seg0 cell0 <<<"$d0"
[ "$seg0" -gt 0 ] && [ "$cell0" -gt "$seg0" ] || fail "discontinuities $d0: not after the master's start"
log "discontinuities [$d0]; state file: $(state_line)"
[[ "$(state_line)" =~ ^-?[0-9]+\ [0-9]+\ -?[0-9]+$ ]] || fail "state file not 'OFFSET SEEN BOOT': '$(state_line)'"

# LATE, in tenths: the master's age now, plus 0.5 s, within 1.5 to 3 s.
read -r offset _ <<<"$(state_line)"
age_ds=$((($(now_cs) + offset) / 10))
late_ds=$((age_ds + 5))
[ "$late_ds" -ge 15 ] || late_ds=15
[ "$late_ds" -le 30 ] || late_ds=30
LATE=$((late_ds / 10)).$((late_ds % 10))
log "the master's messages $LATE s late (the master $((age_ds / 10)).$((age_ds % 10)) s old), the agent running"
late0=$(late_responses)
echo "$LATE" >"$TMP/delay"
fx_wait 10 two_late || fail "no two pings answered $LATE s late within $(fx_loaded 10) s: $(late_responses) late Responses"
fx_wait 30 rewrite_due || fail "the state file's SEEN is not due for a rewrite: $(state_line), now $(now_cs)"
t1=$(now_cs)
d1=$(discs)
log "discontinuities [$d1] ($(late_responses) late Responses), asked at $t1"
[ "$d1" = "$d0" ] || fail "late messages moved the discontinuity times: [$d0] -> [$d1] (load $(cut -d' ' -f1-3 /proc/loadavg))"

log "the agent restarted, the master's messages still $LATE s late"
fx_kill "$AGENT_PID" TERM
read -r _ seen1 _ <<<"$(state_line)"
log "stopped$(grep -q '^exit forced' "$TMP/agent.log" && echo ', its exit forced'); state file: $(state_line)"
[ "$seen1" -ge "$t1" ] ||
	fail "the state file's SEEN $seen1 is older than the request answered at $t1 or later: the stopped agent's last SEEN was lost"
start_agent
d2=$(discs)
log "discontinuities [$d2]; state file: $(state_line)"
[ "$d2" = "$d0" ] || fail "the restarted agent moved the discontinuity times: [$d0] -> [$d2] (load $(cut -d' ' -f1-3 /proc/loadavg))"

log "a new master (snmpd restarted), its messages $LATE s late: its start counts"
fx_snmpd_stop
fx_snmpd_start || fail "snmpd did not restart on port $PORT"
restart_agent
d3=$(discs)
log "discontinuities [$d3]; state file: $(state_line)"
[ "$d3" = "0 0" ] || fail "the new master's TimeStamps are the old one's: [$d3], not [0 0]"
agent_exit_clean 10
log "pass"
exit 0
