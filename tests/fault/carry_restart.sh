#!/bin/bash
# carry_over across agent restarts (docs/agent.md, "Counters across writer
# restarts", Lifetime): the agent keeps the carry in STATE_FILE.carry.  A
# poller reads totals.packets and its discontinuity time every 100 ms.
# Proves, with FX_DAEMON=1 as a daemon too (daemon_carry_restart.sh):
# - the first start (no carry file yet) says so and moves the discontinuity;
# - kill -9 of the writer, capture, restart: every counter = the sum of
#   every generation's count, discontinuity kept;
# - the agent killed (-9) while the writer runs, and stopped (SIGTERM)
#   while the writer is dead, then the writer restarted: after each, every
#   counter still equals the sum of the generations, discontinuity kept;
# - the writer restarted while the agent was stopped: the sum still (its
#   final counts were kept), but the discontinuity moves and it is logged;
# - a corrupt carry file, a symbolic link, another user's file: refused
#   with a line naming the cause, the discontinuity moves;
# - the poller never saw the counter go backwards without its discontinuity
#   time changing, and the discontinuity moved only at those doubts.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/fault/lib.sh"

fx_need snmpget snmpwalk
STATE=$TMP/agent.state
fx_config "interval_ms = 100; allow_reset = true; state_file = \"$STATE\";"
fx_snmpd
fx_writer -t 2 -n 1000
fx_writer_settled
fx_agent
fx_wait_pass
wait_log "$(fx_loaded 5)" "carry file $STATE.carry: none yet"
wait_log "$(fx_loaded 5)" "segment dataplane: no carried counts to continue \(no carry file yet\)"
PKT=$DATA.3.1.10.1 PKTDISC=$DATA.3.1.3.1
poller_start "$PKT" "$PKTDISC"

: >"$TMP/carried"

# served_is_sum WHAT [dead]: every served counter = what the dead
# generations counted ($TMP/carried) + the running one's (the library's;
# with "dead", the last generation is dead and counted in $TMP/carried).
served_is_sum() {
	local got total
	cp "$TMP/carried" "$TMP/expect"
	fx_reader | counter_lines | sort >"$TMP/now"
	[ "${2:-}" = dead ] || add_into "$TMP/expect" "$TMP/now"
	data_lines | counter_lines >"$TMP/served"
	[ "$(wc -l <"$TMP/served")" -ge 100 ] || fail "$1: only $(wc -l <"$TMP/served") counters served"
	same_lines "$TMP/expect" "$TMP/served" "$1: served counters are not the sums of every generation"
	got=$(snmp_value "$PKT")
	total=$(awk '$1 == "totals.packets.all" { print $2 }' "$TMP/expect")
	[ "$got" = "$total" ] || fail "$1: totals.packets $got, not $total"
	log "$1: totals.packets $got = sum of generations, $(wc -l <"$TMP/served") counters exact"
}

# writer_dies: kill -9; the agent sees it gone and takes its final counts.
writer_dies() {
	local dead=$WRITER_PID
	fx_reader | counter_lines | sort >"$TMP/final"
	fx_kill "$WRITER_PID" KILL
	wait_status "$(fx_loaded 5)" 1 "$ST_GONE"
	wait_log "$(fx_loaded 5)" "writer pid $dead died without closing it"
	fx_wait_pass # the pass after the capture wrote the carry file
	add_into "$TMP/carried" "$TMP/final"
}

writer_starts() {
	sleep 0.1 # a generation's creation time is in ms; TimeStamps in cs
	fx_writer -t 2 -n "$1"
	fx_writer_settled
}

agent_back() {
	fx_agent
	wait_status "$(fx_loaded 5)" 1 "$1"
	fx_wait_pass
}

served_is_sum "first start"

log "a writer restart the agent saw: carried"
writer_dies
writer_starts 500
wait_status "$(fx_loaded 5)" 1 "$ST_ACTIVE"
fx_wait_pass
served_is_sum "writer restarted"
disc0=$(snmp_value "$PKTDISC")

log "the agent killed (-9) while the writer runs: the carry continues"
fx_kill "$AGENT_PID" KILL
agent_back "$ST_ACTIVE"
served_is_sum "agent restarted (-9)"
[ "$(snmp_value "$PKTDISC")" = "$disc0" ] ||
	fail "agent -9: the discontinuity time moved ($disc0 -> $(snmp_value "$PKTDISC"); load $(cut -d' ' -f1-3 /proc/loadavg))"

log "the writer dies, the agent stops (SIGTERM) and starts, the writer restarts"
writer_dies
agent_exit_clean 10
agent_back "$ST_GONE"
served_is_sum "agent restarted with the writer dead" dead
writer_starts 1500
wait_status "$(fx_loaded 5)" 1 "$ST_ACTIVE"
fx_wait_pass
served_is_sum "writer restarted after the agent"
[ "$(snmp_value "$PKTDISC")" = "$disc0" ] ||
	fail "after the agent's restarts: the discontinuity time moved ($disc0 -> $(snmp_value "$PKTDISC"); load $(cut -d' ' -f1-3 /proc/loadavg))"
no_log "no carried counts to continue \((the carry file|its decl|already)" "a carry was doubted"

log "the writer restarted while the agent was stopped: the sum, but the discontinuity moves"
writer_dies
agent_exit_clean 10
writer_starts 700
agent_back "$ST_ACTIVE"
wait_log "$(fx_loaded 5)" "segment dataplane: its writer restarted while the agent was not running"
served_is_sum "writer restarted while the agent was stopped"
disc1=$(snmp_value "$PKTDISC")
[ "$disc1" -gt "$disc0" ] || fail "the discontinuity did not move ($disc0 -> $disc1)"

# doubted WHAT CAUSE: the agent restarted on a carry file it refuses.
doubted() {
	local before=$1 after
	fx_wait "$(fx_loaded 5)" grep -Eq "carry file $STATE.carry: $2" "$TMP/agent.log" ||
		fail "$3: the agent did not log \"carry file $STATE.carry: $2\""
	wait_log "$(fx_loaded 5)" "segment dataplane: no carried counts to continue \(the carry file was refused\)"
	: >"$TMP/carried" # what is served now is the library's alone
	served_is_sum "$3"
	after=$(snmp_value "$PKTDISC")
	[ "$after" -gt "$before" ] || fail "$3: the discontinuity did not move ($before -> $after)"
	log "$3: refused, discontinuity $before -> $after"
	LAST_DISC=$after
}

log "a corrupt carry file: refused, logged, the discontinuity moves"
agent_exit_clean 10
sed -i '3s/.*/carry lots/' "$STATE.carry"
agent_back "$ST_ACTIVE"
doubted "$disc1" "line 3: a count expected: refused" "corrupt file"

log "a carry file planted as a symbolic link: refused"
agent_exit_clean 10
mv "$STATE.carry" "$TMP/elsewhere"
ln -s "$TMP/elsewhere" "$STATE.carry"
agent_back "$ST_ACTIVE"
doubted "$LAST_DISC" "is a symbolic link \(refused: never followed\): .*refused" "symbolic link"
ndisc=4
if [ "$(id -u)" = 0 ]; then
	log "a carry file of another user: refused"
	agent_exit_clean 10
	rm -f "$STATE.carry"
	cp "$TMP/elsewhere" "$STATE.carry"
	chown 65534 "$STATE.carry"
	agent_back "$ST_ACTIVE"
	doubted "$LAST_DISC" "belongs to another user .*: refused" "another user's file"
	ndisc=5
fi

poller_stop
# The first start's doubt came before the poller; the unseen restart and
# each refused file move it once each.
awk -v max=$((ndisc - 1)) '$2 == 0 && NF == 4 {
		if (seen && $3 < v && $4 == d) { print "backwards at " $1 ": " v " -> " $3 " (disc " d ")"; bad++ }
		if (seen && $4 != d) changes++
		v = $3; d = $4; seen = 1; n++
	}
	END { print n " polls, " changes + 0 " discontinuity changes"; exit bad > 0 || changes > max }' \
	"$TMP/poller.log" >"$TMP/mono.out" || {
	cat "$TMP/mono.out" >&2
	fail "a counter went backwards without a discontinuity, or the discontinuity moved more than $((ndisc - 1)) times"
}
log "poller: $(tail -1 "$TMP/mono.out")"
agent_exit_clean 10
log "pass"
exit 0
