#!/bin/bash
# An SNMP client with write access (issue 19, defect 1): one SET PDU with
# 100, then 1,000 row resets of a 100,000-row table, and then four clients
# resetting the segment in loops.  Proves: the agent's part of a SET PDU
# takes under 1 s whatever its size (it merges its resets into one
# statctr_reset_ranges(): one snapshot per segment), or, on a loaded
# machine where it stopped waiting for them (AGG_RESET_WAIT_MS), the SET
# says so truthfully (set_outcome below), and the whole round
# trip under 4 times that of a GET PDU of as many varbinds, timed just
# before and after (snmpd, AgentX and pysnmp on the same machine at the
# same load), plus that second; every reset took
# effect, GETs meanwhile are answered (none lost: a GET that got no answer
# in 5 s is sent once more, as an NMS would, and its second loss fails; the
# retries are logged: once, in 14 fresh-clone runs, a GET through the agent
# sent during the 1,000-reset SET got no answer, cause not established);
# under the storm GET p99 stays below 100 ms (times the load per CPU) plus
# twice snmpd's own, resets beyond the rate limit
# are refused with resourceUnavailable, none fails otherwise, and
# statctrAggResetsRefused counts them.  Sanitizer builds get 3x the time bounds.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/fault/lib.sh"

fx_need snmpget snmpset
fx_pysnmp
ROWS=100000
SET_MS=1000
P99_MS=100
[ "${SANITIZER:-none}" = none ] || { SET_MS=3000; P99_MS=300; }
# The agent's own reset work, from its log line (AGG_RESET_WAIT_MS bounds it).

fx_config "interval_ms = 200; allow_reset = true;"
sed -i 's/^        rows = 64;/        rows = 100000;/' "$TMP/statctr.conf"
grep -q "rows = $ROWS;" "$TMP/statctr.conf" || fail "cannot make flowStats $ROWS rows"
fx_snmpd
fx_writer -t 2 -n 400000
fx_writer_settled
fx_agent
fx_wait_pass
rw="-v2c -c $WCOMMUNITY -On -Oq -t 5 -r 0 127.0.0.1:$PORT"
FLOW_PACKETS=$DATA.2.1.10 # flowStats.packets, row index = flow + 1

GETLAT=$top_srcdir/tests/security/getlat.py

# big_set N: one PDU resetting rows 1, 101, 201, ... (N of them: snmpset
# takes at most 128); its ms and error status in ms and status, and the
# agent's log lines from then on in $TMP/set.log.
big_set() {
	local n=$1 oids=() i lines
	for i in $(seq 0 $((n - 1))); do oids+=("$DATA.2.1.4.$((i * 100 + 1))"); done
	lines=$(wc -l <"$TMP/agent.log")
	$PYSNMP "$GETLAT" set "$PORT" "$WCOMMUNITY" "${oids[@]}" >"$TMP/set.out" 2>&1
	grep -q '^ms [0-9]* status [a-zA-Z]*$' "$TMP/set.out" || fail "the $n-reset SET failed: $(cat "$TMP/set.out")"
	read -r _ ms _ status <"$TMP/set.out"
	tail -n +"$((lines + 1))" "$TMP/agent.log" >"$TMP/set.log"
}

# set_outcome N: what the agent logged agrees with the SET's status.
# On a loaded machine the agent may stop waiting (AGG_RESET_WAIT_MS) for
# resets that have not started (commitFailed: nothing done, said to the
# NMS, sent again here) or have not finished (undoFailed: they complete
# later and say so in the log).  Returns 1 for commitFailed.
set_outcome() {
	local n=$1
	case $status in
	noError)
		grep -q "resets \(not started\|still running\)" "$TMP/set.log" &&
			fail "the $n-reset SET said noError, the agent's log a timeout: $(cat "$TMP/set.log")"
		;;
	commitFailed)
		grep -q "$n resets not started within" "$TMP/set.log" ||
			fail "the $n-reset SET failed (commitFailed) without its log line: $(cat "$TMP/set.log")"
		log "the $n resets did not start within the agent's wait (load $(cut -d' ' -f1-3 /proc/loadavg)): sent again"
		return 1
		;;
	undoFailed)
		grep -q "$n resets still running after" "$TMP/set.log" ||
			fail "the $n-reset SET said undoFailed without its log line: $(cat "$TMP/set.log")"
		log "the $n resets outlived the agent's wait (load $(cut -d' ' -f1-3 /proc/loadavg)); waiting for their outcome"
		fx_wait "$(fx_loaded 30)" grep -q "$n resets completed after their SET timed out" "$TMP/agent.log" ||
			fail "the $n resets' outcome was not logged: $(grep reset "$TMP/agent.log")"
		;;
	*) fail "the $n-reset SET failed: $status" ;;
	esac
	return 0
}

# big_get N: the baseline of big_set N: one GET PDU of the same rows'
# packets; prints its ms.
big_get() {
	local n=$1 oids=() i
	for i in $(seq 0 $((n - 1))); do oids+=("$FLOW_PACKETS.$((i * 100 + 1))"); done
	$PYSNMP "$GETLAT" getall "$PORT" "$COMMUNITY" "${oids[@]}" >"$TMP/get.out" 2>&1
	grep -q 'status noError$' "$TMP/get.out" || fail "the $n-varbind GET failed: $(cat "$TMP/get.out")"
	awk '{ print $2 }' "$TMP/get.out"
}

# getter NAME: GETs statctrAgentVersion in the background until $TMP/stop.
getter() {
	rm -f "$TMP/stop" "$TMP/stop.ready"
	$PYSNMP "$GETLAT" get "$PORT" "$COMMUNITY" "$TMP/stop" "$ROOT.1.1.1.0" .1.3.6.1.2.1.1.3.0 \
		>"$TMP/getlat-$1.out" 2>&1 &
	GETTER=$!
	fx_track "$GETTER"
	fx_wait 20 test -e "$TMP/stop.ready" || fail "the GET poller did not start: $(cat "$TMP/getlat-$1.out")"
}

for n in 100 1000; do
	log "one SET PDU with $n row resets of a $ROWS-row table"
	getter "$n"
	base1=$(big_get "$n")
	for try in 1 2 3; do
		big_set "$n"
		set_outcome "$n" && break
		[ "$try" -lt 3 ] || fail "the $n resets did not start in 3 tries"
	done
	base2=$(big_get "$n")
	touch "$TMP/stop"
	wait "$GETTER" || fail "the GET poller failed: $(cat "$TMP/getlat-$n.out")"
	fx_untrack "$GETTER"
	log "$n resets answered in $ms ms; GETs meanwhile (agent; snmpd): $(tr '\n' ';' <"$TMP/getlat-$n.out")"
	# The agent's part ("reset by SET: N varbinds done in MS ms") is bounded by
	# AGG_RESET_WAIT_MS; snmpd's and pysnmp's own work on a large PDU comes on top, and
	# on a loaded 2-CPU machine the round trip is only bounded loosely.
	agent_ms=$(sed -n "s/.*reset by SET: $n varbinds done in \([0-9]*\) ms.*/\1/p" "$TMP/agent.log" | tail -n 1)
	log "the agent's part: ${agent_ms:-?} ms"
	[ "$status" != noError ] || { [ -n "$agent_ms" ] && [ "$agent_ms" -lt "$SET_MS" ]; } ||
		fail "$n resets: the agent took ${agent_ms:-no logged} ms (bound $SET_MS ms)"
	base=$((base1 > base2 ? base1 : base2))
	log "the whole SET: $ms ms; a GET PDU of $n varbinds before and after it: $base1, $base2 ms"
	[ "$ms" -lt $((4 * base + SET_MS)) ] ||
		fail "$n resets were answered after $ms ms; a GET PDU of as many varbinds took $base1 ms before, $base2 ms after (bound 4 x $base + $SET_MS ms; load $(cut -d' ' -f1-3 /proc/loadavg))"
	awk '$10 != 0 { exit 1 }' "$TMP/getlat-$n.out" || fail "GETs failed during the SET"
	# Every reset took effect (the writer has finished: they stay at 0).
	for i in 0 $((n / 2)) $((n - 1)); do
		[ "$(snmp_value "$FLOW_PACKETS.$((i * 100 + 1))")" = 0 ] ||
			fail "row $((i * 100 + 1)) not reset by the $n-reset SET"
	done
done

log "a reset storm: four clients reset the segment in loops for 5 s"
refused_before=$(snmp_value "$ROOT.1.1.10.0")
storm_lines=$(wc -l <"$TMP/agent.log")
getter storm
STORM=()
for k in 1 2 3 4; do
	(
		while [ ! -e "$TMP/stop" ]; do
			out=$(snmpset $rw "$ROOT.1.2.1.12.1" i 2 2>&1) && echo ok && continue
			echo "$out" | sed -n 's/^Reason: \([a-zA-Z]*\).*/\1/p' | head -n 1
		done
	) >"$TMP/storm-$k.out" 2>&1 &
	STORM+=($!)
	fx_track $!
done
sleep 5
touch "$TMP/stop"
wait "$GETTER" || fail "the GET poller failed: $(cat "$TMP/getlat-storm.out")"
wait "${STORM[@]}"
outcomes=$(cat "$TMP"/storm-*.out | sort | uniq -c | tr '\n' ' ')
log "SET outcomes: $outcomes; GETs (agent, then snmpd's sysUpTime): $(tr '\n' ';' <"$TMP/getlat-storm.out")"
# A reset the agent stopped waiting for (a loaded machine) is answered
# commitFailed or undoFailed, and logged ("reset failed:"): no other error.
grep -qvx 'ok\|resourceUnavailable\|commitFailed\|undoFailed' "$TMP"/storm-*.out &&
	fail "a storm SET failed otherwise: $outcomes"
timeouts=$(cat "$TMP"/storm-*.out | grep -c 'commitFailed\|undoFailed' || true)
[ "$(tail -n +"$((storm_lines + 1))" "$TMP/agent.log" | grep -c 'reset failed: .* \(not started\|still running\|earlier reset\)')" -ge "$timeouts" ] ||
	fail "$timeouts storm SETs failed, not all of them logged as a reset the agent stopped waiting for: $(grep 'reset failed' "$TMP/agent.log")"
refused=$(grep -hc resourceUnavailable "$TMP"/storm-*.out | awk '{ n += $1 } END { print n + 0 }')
[ "$refused" -gt 0 ] || fail "no reset was refused by the rate limit: $outcomes"
grep -q '^ok$' "$TMP"/storm-*.out || fail "no storm reset succeeded"
# The count is published with the next aggregation pass.
refused_now() { [ $(($(snmp_value "$ROOT.1.1.10.0") - refused_before)) = "$refused" ]; }
fx_wait "$(fx_loaded 5)" refused_now ||
	fail "statctrAggResetsRefused grew by $(($(snmp_value "$ROOT.1.1.10.0") - refused_before)), clients saw $refused refusals"
# Net-SNMP queues every request behind a SET in progress, snmpd's own objects
# included: the agent is judged against snmpd's sysUpTime.0, polled in turn with
# its GETs (on a quiet machine that takes ~5 ms).
p99=$(awk 'NR == 1 { print int($6) }' "$TMP/getlat-storm.out")
ref=$(awk 'NR == 2 { print int($6) }' "$TMP/getlat-storm.out")
awk '$10 != 0 { exit 1 }' "$TMP/getlat-storm.out" || fail "GETs failed during the storm"
# On a loaded machine the agent's threads lose the CPU more often than snmpd's
# one: the fixed part of the bound is stretched by the load per CPU (fx_loaded;
# an ASan agent's p99 was 365 ms to snmpd's 24 at load 41 on 2 CPUs).
stretch=$(fx_loaded 1)
bound=$((P99_MS * stretch + 2 * ref))
[ "$p99" -lt "$bound" ] ||
	fail "GET p99 $p99 ms during the storm, snmpd's own $ref ms (bound $P99_MS ms x $stretch for the load + twice snmpd's = $bound ms; load $(cut -d" " -f1-3 /proc/loadavg))"
log "pass"
exit 0
