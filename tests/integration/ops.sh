#!/bin/bash
# Operating the agent (docs/agent.md "Start-up", "Registrations"):
# - a daemon's exit status says whether it serves: 0 only once it answers
#   through snmpd; busy port, unreadable configuration, missing master
#   socket: exit 1, one line on stderr, no process left;
# - readiness (Type=notify): READY=1 on $NOTIFY_SOCKET once the agent
#   answers, not before the master is there; STOPPING=1 at exit;
# - registration ownership: agents B, C, D started on A's configuration
#   each exit 1 naming the OID, and A answers every table after each;
#   A, refused after a master restart, logs once per region and serves again
#   once the holder is gone;
# - snmpd and the agent stopped together, 5 times: no Net-SNMP assertion or
#   error line in either log, agent exit status 0.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/integration/fixture.sh"
set -o pipefail

fx_need snmpget snmpwalk python3
fx_config "interval_ms = 100; ping_interval = 1;"
fx_snmpd
fx_writer -t 2 -n 400

# Daemons log to syslog (with -L stderr, the first pass would log before the fork).
# One instance of each region: statctrObjects and the three data tables.
REGIONS="$ROOT.1.1.1.0 $DATA.1.1.2.1 $DATA.2.1.2.1 $DATA.3.1.2.1"
answers_all() {
	local out
	out=$(snmpget -v2c -c "$COMMUNITY" -Oqv -t 1 -r 1 "127.0.0.1:$PORT" $REGIONS) || return 1
	! grep -q '^No Such' <<<"$out"
}

# ------------------------------------------------------------------------
log "daemon start-up: exit 0 only once it serves"
"$AGENT" -c "$TMP/statctr.conf" -x "$TMP/agentx.sock" -p "$TMP/daemon.pid" \
	>"$TMP/daemon.out" 2>&1 || fail "daemon start: status $?: $(cat "$TMP/daemon.out")"
DAEMON_PID=$(cat "$TMP/daemon.pid")
fx_track "$DAEMON_PID"
answers_all || fail "the daemon's parent exited before the agent answered"
[ ! -s "$TMP/daemon.out" ] || fail "the daemon printed: $(cat "$TMP/daemon.out")"
kill -TERM "$DAEMON_PID"
fx_wait "$(fx_loaded 5)" bash -c "! kill -0 $DAEMON_PID" || fail "the daemon did not exit on SIGTERM"
fx_untrack "$DAEMON_PID"

# $1: what; $2: the expected line (extended regexp); the rest: the options.
refused_start() {
	local what=$1 want=$2 rc=0
	shift 2
	rm -f "$TMP/refused.pid"
	timeout 20 "$AGENT" -p "$TMP/refused.pid" "$@" >"$TMP/refused.out" 2>&1 || rc=$?
	[ "$rc" = 1 ] || fail "$what: exit status $rc, not 1: $(cat "$TMP/refused.out")"
	[ "$(wc -l <"$TMP/refused.out")" = 1 ] ||
		fail "$what: not one line on stderr: $(cat "$TMP/refused.out")"
	grep -Eq "$want" "$TMP/refused.out" || fail "$what: $(cat "$TMP/refused.out")"
	[ ! -e "$TMP/refused.pid" ] || ! kill -0 "$(cat "$TMP/refused.pid")" 2>/dev/null ||
		fail "$what: an agent process is left"
	log "$what: exit 1: $(cat "$TMP/refused.out")"
}
refused_start "busy port" "cannot serve SNMP on udp:127.0.0.1:$PORT" \
	-c "$TMP/statctr.conf" -M "udp:127.0.0.1:$PORT"
refused_start "missing configuration" "$TMP/nonexistent.conf" -c "$TMP/nonexistent.conf"
refused_start "unreadable configuration" "$TMP" -c "$TMP"
printf 'agent = { interval_ms = "fast"; };\n' >>"$TMP/bad.conf"
refused_start "invalid configuration" "bad.conf:1" -c "$TMP/bad.conf"
refused_start "missing master socket" \
	"cannot connect to the AgentX master at $TMP/nosuch.sock: No such file or directory" \
	-c "$TMP/statctr.conf" -x "$TMP/nosuch.sock"

# ------------------------------------------------------------------------
log "readiness: READY=1 once it answers, not while the master is away"
cat >"$TMP/notify.py" <<'EOF'
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
s.settimeout(40)
with open(sys.argv[2], "a") as out:
    while True:
        msg = s.recv(4096).decode()
        out.write(msg.replace("\n", " ") + "\n")
        out.flush()
        if "STOPPING=1" in msg:
            break
EOF
python3 "$TMP/notify.py" "$TMP/notify.sock" "$TMP/notify.log" &
fx_track $!
fx_wait "$(fx_loaded 5)" test -S "$TMP/notify.sock" || fail "the notify receiver did not start"
fx_snmpd_stop
NOTIFY_SOCKET=$TMP/notify.sock "$AGENT" -f -L stderr -c "$TMP/statctr.conf" \
	-x "$TMP/agentx.sock" >>"$TMP/agent.log" 2>&1 &
AGENT_PID=$!
fx_track "$AGENT_PID"
sleep 2
[ ! -s "$TMP/notify.log" ] || fail "READY without a master: $(cat "$TMP/notify.log")"
fx_snmpd_start || fail "snmpd did not restart"
t=$(fx_loaded 5)
fx_wait "$t" grep -q "READY=1" "$TMP/notify.log" || fail "no READY=1 within $t s of the master (load $(cut -d' ' -f1-3 /proc/loadavg))"
answers_all || fail "READY=1 before the agent answered"
grep -q "MAINPID=$AGENT_PID" "$TMP/notify.log" || fail "READY without MAINPID=$AGENT_PID"
kill -TERM "$AGENT_PID"
fx_wait "$(fx_loaded 5)" grep -q "STOPPING=1" "$TMP/notify.log" || fail "no STOPPING=1 on SIGTERM"
wait "$AGENT_PID" || fail "the agent exited with status $? on SIGTERM"
fx_untrack "$AGENT_PID"

# ------------------------------------------------------------------------
log "ownership: B, C, D on A's configuration exit 1; A answers every table"
fx_agent
answers_all || fail "A does not answer every table"
lines=$(wc -l <"$TMP/agent.log")
for b in B C D; do
	refused_start "agent $b" "statctrObjects \(${ROOT}\.1\): the AgentX master refused the registration with duplicateRegistration\(263\)" \
		-c "$TMP/statctr.conf" -x "$TMP/agentx.sock"
	answers_all || fail "after agent $b, A does not answer every table"
	[ "$(fx_registrations)" = "$FX_REGIONS" ] || fail "after agent $b, snmpd holds $(fx_registrations) regions, not $FX_REGIONS"
done
[ "$(wc -l <"$TMP/agent.log")" = "$lines" ] || fail "A logged: $(tail -n +$((lines + 1)) "$TMP/agent.log")"

log "A refused after a master restart: logged once, serves again once the holder is gone"
fx_freeze "$AGENT_PID"
fx_snmpd_stop
fx_snmpd_start || fail "snmpd did not restart"
"$AGENT" -f -L stderr -c "$TMP/statctr.conf" -x "$TMP/agentx.sock" >>"$TMP/holder.log" 2>&1 &
HOLDER_PID=$!
fx_track "$HOLDER_PID"
fx_wait "$(fx_loaded 5)" answers_all || fail "the holder does not answer"
# Every region of the holder's, not only those answers_all reads: A woken
# before the holder's last Register PDU went out took that region (at load
# 33: vfStats.ifAlias, so A logged 51 refusals of 53).  The holder logs
# "serving" once it has registered every region.
fx_wait "$(fx_loaded 5)" grep -q ' serving .* as uid ' "$TMP/holder.log" ||
	fail "the holder did not finish registering"
kill -CONT "$AGENT_PID"
since() { tail -n +$((lines + 1)) "$TMP/agent.log" | grep -c "$1" || true; }
all=$((FX_REGIONS + FX_IF_RANGES))
# The agent finds the new master at its next ping, then registers again:
# the deadline allows for the machine's load (a sanitizer build is slower).
t=$(fx_loaded 10)
fx_wait "$t" bash -c "[ \$(tail -n +$((lines + 1)) '$TMP/agent.log' | grep -c 'refused the registration') = $all ]" ||
	fail "A did not log its $all refused regions within $t s (logged $(since 'refused the registration'); load $(cut -d' ' -f1-3 /proc/loadavg))"
# Net-SNMP's own line: once per region and per IF-MIB range (the holder has
# those too), from the re-registration at reconnect; never from a retry.
refusals=$(since 'registering pdu failed')
[ "$refusals" -ge "$FX_REGIONS" ] || fail "Net-SNMP logged $refusals refusals, not one per region"
sleep 4 # re-sent after 1 s and 3 s, refused each time
[ "$(since 'refused the registration')" = "$all" ] ||
	fail "A logged the refusals $(since 'refused the registration') times, not once per region"
[ "$(since 'registering pdu failed')" = "$refusals" ] || fail "A's retries repeat Net-SNMP's refusal line"
fx_stop "$HOLDER_PID"
fx_untrack "$HOLDER_PID"
t=$(fx_loaded 10)
fx_wait "$t" answers_all || fail "A did not serve again within $t s of the holder's exit (load $(cut -d' ' -f1-3 /proc/loadavg))"
[ "$(grep -c 'registered again' "$TMP/agent.log")" = "$all" ] || fail "A did not log each region back once"
[ "$(fx_registrations)" = "$FX_REGIONS" ] || fail "snmpd holds $(fx_registrations) regions, not $FX_REGIONS"
fx_agent_stop

# ------------------------------------------------------------------------
log "snmpd and the agent stopped together, 5 times: clean logs"
mv "$TMP/agent.log" "$TMP/agent-ownership.txt"
mv "$TMP/snmpd.log" "$TMP/snmpd-ownership.txt"
for i in 1 2 3 4 5; do
	fx_agent
	kill -TERM "$SNMPD_PID" "$AGENT_PID"
	rc=0
	wait "$AGENT_PID" || rc=$?
	fx_untrack "$AGENT_PID"
	[ "$rc" = 0 ] || fail "run $i: the agent exited with status $rc"
	wait "$SNMPD_PID" 2>/dev/null || true
	fx_untrack "$SNMPD_PID"
	fx_snmpd_start || fail "snmpd did not restart"
done
bad='netsnmp_assert|_callback_lock|error|failed|Unregister|unknown'
if grep -Eiv 'connected|reconnecting|AgentX master|^segment |serving|exiting' "$TMP/agent.log" |
	grep -Ei "$bad" >&2; then
	fail "Net-SNMP error lines in the agent's log"
fi
if grep -Ei "$bad" "$TMP/snmpd.log" >&2; then
	fail "error lines in snmpd's log"
fi
log "pass"
exit 0
