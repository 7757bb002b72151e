#!/bin/sh
# statctl notifications reads the agent's STATE_FILE.notifications
# (docs/agent.md, "Notification counters") in text, JSON and Prometheus, from
# the argument or from -c CONFIG's agent.state_file; and refuses, naming the
# file, what a local user could plant or break there: a symbolic link, a
# FIFO (without blocking), a group-writable file, a line that is not
# "KEY NUMBER", a missing key, a cut last line, a file too large.  The agent
# writing it is tested by tests/integration/linktraps.sh.
. "${srcdir:-.}/tests/tools/lib.sh"

state=$workdir/agent.state
printf 'pid %s\nstarted 1795860000\nsent 12\nsuppressed 3\nlost 1\nlater 7\n' $$ >"$state.notifications"
chmod 644 "$state.notifications"

check_status "text" 0 "$STATCTL" notifications "$state"
check "text: pid, running" 1 "$(printf "%s\n" "$out" | grep -c "^agent pid $$ (running), counting since 2026-11-28 ")"
check "text: sent" 1 "$(printf "%s\n" "$out" | grep -c '^notifications sent  *12$')"
check "text: suppressed" 1 "$(printf "%s\n" "$out" | grep -c '^notifications suppressed  *3$')"
check "text: lost" 1 "$(printf "%s\n" "$out" | grep -c '^notifications lost  *1$')"
check_status "json" 0 "$STATCTL" -f json notifications "$state"
check "json: values" "12 3 1 True" "$(printf "%s\n" "$out" | python3 -c '
import json, sys; a = json.load(sys.stdin)["agent"]; n = a["notifications"]
print(n["sent"], n["suppressed"], n["lost"], a["running"])')"
check_status "prometheus" 0 "$STATCTL" notifications -f prometheus "$state"
printf "%s\n" "$out" >"$workdir/n.prom"
check "prometheus: sent" 1 "$(grep -c '^statctr_agent_notifications_sent_total 12$' "$workdir/n.prom")"
need_command promtool
check "prometheus: promtool finds nothing to lint" "" "$(promtool check metrics <"$workdir/n.prom" 2>&1)"

printf 'segments = ( { name = "s"; tables = ( { name = "t"; rows = 1; columns = ( { name = "c"; kind = "counter"; } ); } ); } );\nagent = { state_file = "%s"; };\n' "$state" >"$workdir/c.conf"
check_status "from -c CONFIG" 0 "$STATCTL" notifications -c "$workdir/c.conf"
check "from -c CONFIG: sent" 1 "$(printf "%s\n" "$out" | grep -c '^notifications sent  *12$')"
printf 'segments = ( { name = "s"; tables = ( { name = "t"; rows = 1; columns = ( { name = "c"; kind = "counter"; } ); } ); } );\n' >"$workdir/none.conf"
check_status "a config without state_file" 1 "$STATCTL" notifications -c "$workdir/none.conf"
check "it says why" 1 "$(printf "%s\n" "$err" | grep -c 'sets no agent.state_file')"
check_status "no argument, no -c" 2 "$STATCTL" notifications
check_status "absent" 1 "$STATCTL" notifications "$workdir/nothing"
check "absent: named" 1 "$(printf "%s\n" "$err" | grep -c "$workdir/nothing.notifications: absent")"

# refused STATE_FILE WHAT: exit 1 and a message naming the file and WHAT.
refused() {
	check_status "$2" 1 "$STATCTL" notifications "$1"
	check "$2: named" 1 "$(printf "%s\n" "$err" | grep -c "$1.notifications.*$2")"
}
mkdir "$workdir/p"
ln -s "$state.notifications" "$workdir/p/link.notifications"
refused "$workdir/p/link" "symbolic link"
mkfifo "$workdir/p/fifo.notifications"
refused "$workdir/p/fifo" "not a regular file"
cp "$state.notifications" "$workdir/p/gw.notifications"
chmod 664 "$workdir/p/gw.notifications"
refused "$workdir/p/gw" "writable by group"
printf 'pid 1\nsent x\n' >"$workdir/p/bad.notifications"
refused "$workdir/p/bad" ':2: not a line "KEY NUMBER"'
printf 'pid 1\nstarted 2\nsent 3\nlost 4\n' >"$workdir/p/short.notifications"
refused "$workdir/p/short" 'no "suppressed" line'
printf 'pid 1\nstarted 2\nsent 3\nsuppressed 4\nlost 5' >"$workdir/p/cut.notifications"
refused "$workdir/p/cut" ':5: the last line is cut'
head -c 5000 /dev/zero | tr '\0' '1' >"$workdir/p/big.notifications"
refused "$workdir/p/big" "larger than"
finish
