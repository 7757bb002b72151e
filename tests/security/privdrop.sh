#!/bin/bash
# Issue 9, defect 9: after -u, the agent resets through files it opens as
# the unprivileged user, never through descriptors it opened as root.
# The writer (SEC_WRITER) creates its segment with group SEC_GROUP; the
# agent starts as root and drops to SEC_RESETTER (a member of SEC_GROUP),
# then to SEC_OTHER with -g SEC_GROUP.  Each time: a reset over SNMP works;
# the writer is killed and restarted (a new generation: new segment and
# control files, created after the drop); a reset over SNMP works again
# and the value drops to zero, twice; no uid or gid 0 is left in the agent.
# Dropped to SEC_OTHER alone (not in the group), resets are refused from
# the start, before a writer restart as after it.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/security/lib.sh"

fx_need snmpget snmpset
sec_config
# Readable by all, so that an agent outside the group serves the values but
# may not reset them (control file 0660, group SEC_GROUP).
sed -i 's|mode = "0640";|mode = "0644";|' "$TMP/statctr.conf"
# Counts start again with each writer here (tests/fault/carry_over.sh tests
# the default, carry_over = true).
sed -i 's|name = "dataplane";|name = "dataplane"; carry_over = false;|' "$TMP/statctr.conf"
fx_snmpd
# The agent keeps its AgentX socket across the drop; let it reconnect too.
fx_snmpd_reconfigure "agentXPerms 0666 0777"

rw() { sec_bounded 10 snmpset -v2c -c "$WCOMMUNITY" -t 2 -r 1 "127.0.0.1:$PORT" "$@"; }
packets() { snmp_value "$DATA.3.1.10.1"; }

# Resets totals over SNMP and asserts that totals.packets drops to zero
# from the $1 packets the writer counted.
reset_drops() {
	[ "$(packets)" = "$1" ] || fail "$2: totals.packets is $(packets), not $1 before the reset"
	rw "$DATA.3.1.4.1" i 2 >"$TMP/set.out" 2>&1 || fail "$2: the reset over SNMP failed: $(cat "$TMP/set.out")"
	fx_wait_pass
	[ "$(packets)" = 0 ] || fail "$2: totals.packets is $(packets) after the reset, not 0"
	[ "$(sec_as "$SEC_RESETTER" reader -1 "$SEGMENT" | awk '$1 == "totals.packets.all" { print $2 }')" = 0 ] ||
		fail "$2: the library does not see the reset"
}

# refused N WHEN: a reset over SNMP is refused (notWritable: the agent may
# not write the control file) and totals.packets stays N.
refused() {
	local out
	if out=$(rw "$DATA.3.1.4.1" i 2 2>&1); then
		fail "$2: an agent that may not write the control file reset counters"
	fi
	echo "$out" | grep -q "^Reason: notWritable" || fail "$2: the refusal is not notWritable: $out"
	fx_wait_pass
	[ "$(packets)" = "$1" ] || fail "$2: a refused reset changed totals.packets to $(packets)"
}

# No uid or gid 0 in any of the agent's ids, nor in its groups.
no_root_left() {
	local ids
	ids=$(awk '/^(Uid|Gid|Groups):/ { $1 = ""; print }' "/proc/$AGENT_PID/status" | tr '\n' ' ')
	echo " $ids " | grep -Eq '(^|[[:space:]])0([[:space:]]|$)' && fail "$1: the agent kept id 0: $ids"
	log "$1: agent ids (uid x4, gid x4, groups): $ids"
}

# Kills the writer by the pid the segment names, which must be the one
# sec_writer started.
kill_writer() {
	local pid
	pid=$(snmp_value "$ROOT.1.2.1.7.1")
	[ "$pid" = "$WRITER_PID" ] || fail "served writer pid '$pid', started $WRITER_PID"
	fx_kill "$WRITER_PID" KILL
	fx_wait 5 bash -c "! kill -0 $pid" || fail "writer $pid did not die"
}

# restart_writer N: a new generation of the segment (new segment and
# control files, opened by the agent after the drop) with N packets.
restart_writer() {
	local gens ctl
	gens=$(snmp_value "$ROOT.1.2.1.10.1")
	ctl=$(stat -c %i "$SEGMENT.ctl")
	kill_writer
	sec_writer "$SEC_WRITER" -t 1 -n "$1"
	fx_writer_settled
	wait_status 5 1 "$ST_ACTIVE"
	fx_wait_pass
	[ "$(snmp_value "$ROOT.1.2.1.10.1")" = $((gens + 1)) ] || fail "the agent did not attach a new generation"
	[ "$(stat -c %i "$SEGMENT.ctl")" != "$ctl" ] || fail "the restarted writer kept the old control file"
}

# case NAME AGENT-OPTIONS...: one identity to drop to.
drop_case() {
	local name=$1
	shift
	log "$name: agent started as root with $*"
	sec_writer "$SEC_WRITER" -t 2 -n 1000
	fx_writer_settled
	fx_agent "$@"
	fx_wait_pass
	no_root_left "$name"
	reset_drops 2000 "$name, before any writer restart"
	restart_writer 700
	reset_drops 700 "$name, after the first writer restart"
	restart_writer 300
	reset_drops 300 "$name, after the second writer restart"
	no_root_left "$name"
	kill_writer
	agent_exit_clean 10
}

drop_case "-u resetter" -u "$SEC_RESETTER"
drop_case "-u other -g group" -u "$SEC_OTHER" -g "$SEC_GROUP"

# An identity that may not write the control files has no reset right,
# from the start: not one lent by descriptors the agent opened as root.
log "-u other (not in the group): resets refused before and after a writer restart"
sec_writer "$SEC_WRITER" -t 2 -n 1000
fx_writer_settled
fx_agent -u "$SEC_OTHER"
fx_wait_pass
no_root_left "-u other"
refused 2000 "-u other, before any writer restart"
restart_writer 700
refused 700 "-u other, after a writer restart"
kill_writer
agent_exit_clean 10
log "pass"
exit 0
