#!/bin/bash
# Files in shared directories, second round (issue 19, defects 2, 3, 6, 7,
# 8 and 11): an unrelated local user plants a FIFO it holds open, a symbolic
# link, or a file of its own where statctl or the agent (root) writes or
# reads back.  Every write goes through common/safefile.c: nothing blocks,
# nothing is followed, nothing planted is believed or keeps its mode.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/security/lib.sh"

fx_need mkfifo snmpget stat /usr/bin/python3
sec_config "interval_ms = 100;"
CONF=$TMP/statctr.conf
export LD_LIBRARY_PATH=$TMP/bin
IFNAME=.1.3.6.1.2.1.31.1.1.1.1

# out_to PATH ARGS...: `statctl ARGS -o PATH` as root, within 20 s; status in $rc.
out_to() {
	local path=$1
	shift
	rc=0
	sec_bounded 20 "$TMP/bin/statctl" "$@" -o "$path" >/dev/null 2>"$TMP/err" || rc=$?
}

# as USER COMMAND...: a system command as USER (sec_as runs copied binaries).
as() {
	local user=$1
	shift
	setpriv --reuid="$user" --regid="$(id -g "$user")" --init-groups "$@"
}

# hold_fifo USER FIFO: USER opens FIFO for reading, shrinks its buffer to a
# page and never reads (until killed).
hold_fifo() {
	as "$1" /usr/bin/python3 -c '
import fcntl, os, sys, time
fd = os.open(sys.argv[1], os.O_RDONLY | os.O_NONBLOCK)
fcntl.fcntl(fd, 1031, 4096)  # F_SETPIPE_SZ
print("holding", flush=True)
time.sleep(120)' "$2" >"$TMP/holder.log" 2>&1 &
	HOLDER=$!
	fx_track "$HOLDER"
	fx_wait 5 grep -q holding "$TMP/holder.log" || fail "the FIFO's holder did not start"
}

sec_writer "$SEC_WRITER" -t 1 -n 100

log "defect 2: a FIFO of another user, held open: refused, the output is not handed over"
as "$SEC_OTHER" mkfifo -m 0666 "$SEC_SHM/theirs.mib"
hold_fifo "$SEC_OTHER" "$SEC_SHM/theirs.mib"
for cmd in "mib $CONF" "show -c $CONF" "exporter-config $CONF"; do
	# shellcheck disable=SC2086
	out_to "$SEC_SHM/theirs.mib" $cmd
	[ "$rc" = 1 ] && grep -q 'belongs to another user' "$TMP/err" ||
		fail "statctl $cmd -o (another user's FIFO): exit $rc, '$(cat "$TMP/err")'"
done
fx_stop "$HOLDER"

log "defect 2: our own FIFO whose reader takes nothing: an error within the stall bound, not a hang"
mkfifo -m 0600 "$TMP/ours.fifo"
hold_fifo root "$TMP/ours.fifo"
start=$(date +%s)
out_to "$TMP/ours.fifo" mib "$CONF"
took=$(($(date +%s) - start))
[ "$rc" = 1 ] && grep -q 'takes nothing' "$TMP/err" ||
	fail "a stalled FIFO: exit $rc, '$(cat "$TMP/err")'"
log "a stalled FIFO gave up after ${took}s: $(cat "$TMP/err")"
fx_stop "$HOLDER"

log "defect 11: output over a planted 0666 file of another user: root's, mode 0644"
as "$SEC_OTHER" sh -c "echo planted >'$SEC_SHM/out.mib'; chmod 0666 '$SEC_SHM/out.mib'"
out_to "$SEC_SHM/out.mib" mib "$CONF"
[ "$rc" = 0 ] || fail "over a planted file: exit $rc: $(cat "$TMP/err")"
[ "$(stat -c '%U %a' "$SEC_SHM/out.mib")" = "root 644" ] ||
	fail "the replaced output is $(stat -c '%U %a' "$SEC_SHM/out.mib"), not root 644"
grep -q '^END$' "$SEC_SHM/out.mib" || fail "the replaced output is not the module"
as "$SEC_OTHER" sh -c "echo edited >>'$SEC_SHM/out.mib'" 2>/dev/null &&
	fail "the planter can still edit root's output"

log "defect 3: -p PIDFILE: a planted symbolic link and a planted FIFO are refused, the agent serves anyway"
fx_snmpd
echo precious >"$TMP/victim"
as "$SEC_OTHER" ln -s "$TMP/victim" "$SEC_SHM/agent.pid"
as "$SEC_OTHER" mkfifo -m 0666 "$SEC_SHM/fifo.pid"
for planted in agent.pid fifo.pid; do
	"$AGENT" -f -L stderr -c "$CONF" -x "$TMP/agentx.sock" \
		-p "$SEC_SHM/$planted" >"$TMP/refused.out" 2>&1 &
	pid=$!
	fx_track "$pid"
	fx_wait "$(fx_loaded 10)" fx_agent_answers ||
		fail "-p $planted: the agent does not serve: $(cat "$TMP/refused.out")"
	grep -q "pid file $SEC_SHM/$planted: .*; serving without a pid file" "$TMP/refused.out" ||
		fail "-p $planted: the refusal is not logged: $(cat "$TMP/refused.out")"
	fx_stop "$pid"
	fx_untrack "$pid"
	log "-p $planted: $(grep -m 1 'pid file' "$TMP/refused.out")"
done
[ "$(cat "$TMP/victim")" = precious ] || fail "the pid went through the link: $(cat "$TMP/victim")"
[ -L "$SEC_SHM/agent.pid" ] && [ -p "$SEC_SHM/fifo.pid" ] || fail "a planted pid file was replaced"

# agent_with STATE: the agent as root with state_file STATE, the writer running.
agent_with() {
	sec_config "interval_ms = 100; state_file = \"$1\";"
	fx_agent
}
STATE=$SEC_SHM/state

log "defect 2: STATE_FILE.ifindex a FIFO held open by another user: refused, the agent keeps serving"
as "$SEC_OTHER" mkfifo -m 0666 "$STATE.ifindex"
hold_fifo "$SEC_OTHER" "$STATE.ifindex"
agent_with "$STATE"
fx_wait 5 sh -c "snmpget $V2 127.0.0.1:$PORT $IFNAME.1000 | grep -q dp0" ||
	fail "dp0 is not served as ifIndex 1000"
# The refusal is logged by the SNMP thread at its next look at the store (a GET).
fx_wait 5 sh -c "snmpget $V2 127.0.0.1:$PORT $IFNAME.1000 >/dev/null;
	grep -q 'ifIndex file $STATE.ifindex: is a FIFO or a device' '$TMP/agent.log'" ||
	fail "the refused FIFO was not logged: $(grep ifIndex "$TMP/agent.log")"
for _ in 1 2 3; do fx_agent_answers || fail "the agent stopped answering beside the FIFO"; done
[ -p "$STATE.ifindex" ] || fail "the planted FIFO was replaced"
fx_agent_stop
fx_stop "$HOLDER"
rm -f "$STATE.ifindex"

log "defect 6: an ifIndex file planted by another user (dp0 and dp1 swapped) is not believed"
as "$SEC_OTHER" sh -c "printf '%s\n' '1000 dataplane ifStats dp1' '1001 dataplane ifStats dp0' \
	>'$STATE.ifindex'"
agent_with "$STATE"
fx_wait 5 sh -c "snmpget $V2 127.0.0.1:$PORT $IFNAME.1000 | grep -q dp0" ||
	fail "ifIndex 1000 is $(snmp_get $IFNAME.1000), not dp0: the planted file was believed"
grep -q "ifIndex file $STATE.ifindex: belongs to another user" "$TMP/agent.log" ||
	fail "the refusal was not logged: $(grep ifIndex "$TMP/agent.log")"
# The agent's own file replaces the planted one (root's, 0644, the true numbering).
fx_wait 5 sh -c "[ \"\$(stat -c %U '$STATE.ifindex')\" = root ]" || fail "the planted file was not replaced"
grep -q '^1000 dataplane ifStats dp0$' "$STATE.ifindex" || fail "the new file: $(cat "$STATE.ifindex")"
fx_agent_stop

log "defect 6: a root-owned ifIndex file writable by others is not believed either"
printf '%s\n' '1000 dataplane ifStats dp1' '1001 dataplane ifStats dp0' >"$STATE.ifindex"
chmod 0666 "$STATE.ifindex"
agent_with "$STATE"
fx_wait 5 sh -c "snmpget $V2 127.0.0.1:$PORT $IFNAME.1000 | grep -q dp0" ||
	fail "ifIndex 1000 is $(snmp_get $IFNAME.1000), not dp0"
grep -q "ifIndex file $STATE.ifindex: is writable by group or others" "$TMP/agent.log" ||
	fail "the refusal was not logged"
fx_agent_stop

log "defect 8: engine_boots_file planted by another user, or holding 2147483646: -M refuses to start"
sed '$d' "$CONF" >"$TMP/v3.conf"
cat >>"$TMP/v3.conf" <<EOF
agent = { interval_ms = 100;
  v3_users = ( { name = "ops"; auth = "SHA-256"; auth_pass = "ops-auth-pass-256"; priv = "AES";
    priv_pass = "ops-priv-pass"; } );
  engine_boots_file = "$SEC_SHM/boots"; };
EOF
chmod 0640 "$TMP/v3.conf"
boots_refused() {
	rc=0
	sec_bounded 20 "$AGENT" -f -L stderr -c "$TMP/v3.conf" -M udp:127.0.0.1:9 >"$TMP/refused.out" 2>&1 || rc=$?
	[ "$rc" = 1 ] && grep -q "engine_boots_file $SEC_SHM/boots: $1" "$TMP/refused.out" ||
		fail "engine_boots_file ($1): exit $rc: $(cat "$TMP/refused.out")"
}
as "$SEC_OTHER" sh -c "echo 1 >'$SEC_SHM/boots'; chmod 0644 '$SEC_SHM/boots'"
boots_refused "belongs to another user"
[ "$(cat "$SEC_SHM/boots")" = 1 ] || fail "the planted boots file was changed"
rm -f "$SEC_SHM/boots"
echo 2147483646 >"$SEC_SHM/boots"
chmod 0600 "$SEC_SHM/boots"
boots_refused "holds 2147483646, and snmpEngineBoots would reach 2147483647"

log "defect 7: a 1,000,000-line ifIndex file is loaded in O(n log n)"
awk 'BEGIN { for (i = 0; i < 1000000; i++) printf "%d other t%d row%d\n", 3000000 + i, i % 7, i
	print "1001 dataplane ifStats dp0"; print "1000 dataplane ifStats dp1" }' >"$STATE.ifindex"
chmod 0644 "$STATE.ifindex"
sec_config "interval_ms = 100; state_file = \"$STATE\";"
start=$(date +%s%N)
"$AGENT" -f -L stderr -c "$TMP/statctr.conf" -x "$TMP/agentx.sock" >>"$TMP/agent.log" 2>&1 &
AGENT_PID=$!
fx_track "$AGENT_PID"
# A bound for a loaded machine and sanitizer builds; the landed tree needed 180 s.
fx_wait 60 sh -c "snmpget $V2 127.0.0.1:$PORT $IFNAME.1001 | grep -q dp0" ||
	fail "the 1M-line file's dp0 (ifIndex 1001) is not served within 60 s"
ms=$((($(date +%s%N) - start) / 1000000))
log "1,000,001 lines: dp0 served as ifIndex 1001 after $ms ms (the landed tree took 180 s)"
fx_agent_stop
log "pass"
exit 0
