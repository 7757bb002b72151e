#!/bin/bash
# linkUp/linkDown of IF-MIB rows through a real snmpd to a real snmptrapd
# (docs/agent.md, "Notifications"): N flips of a row's oper gauge give
# exactly N linkDown and N linkUp with the row's ifIndex and states, each
# within interval_ms + 100 ms of the flip (the 100 ms times the load per
# CPU; at least 9 in 10 of them, each within 1 s times the load per CPU;
# latencies logged), through trap2sink (v2c traps) and then informsink (informs); a hold-down burst
# (the hold-down eight times one wait for a pass, at least 1 s, so that
# the burst fits in it at any load) gives the first change at once and the
# final state when it ends;
# ifLinkUpDownTrapEnable disabled(2) by SET sends none and survives an agent
# restart, a SET that cannot write the state file is commitFailed and
# changes nothing; a writer killed gives lowerLayerDown(7) and a linkDown, its
# restart a linkUp, and STATCTR-MIB's statctrSegmentStateChange (writerGone,
# then active) and statctrWriterRestart (its generation and discontinuity
# time as a GET reads them), statctrResetDone naming a reset's cells, none
# of the segment ones when switched off; flips while
# snmpd is down are counted lost (statctrNotificationsLost) and never sent
# late; statctrNotificationsSent and -Suppressed match what arrived, and
# `statctl notifications` shows the same counters.  The
# writer is tests/integration/ifwriter; arrivals are stamped by
# tests/integration/trapstamp.py.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/integration/fixture.sh"

fx_need snmpget snmpset snmptrap snmptrapd python3
[ -x "$top_builddir/tests/integration/ifwriter" ] || fail "ifwriter not built (make check builds it)"
IF=.1.3.6.1.2.1.2.2.1
IFX=.1.3.6.1.2.1.31.1.1.1
INTERVAL_MS=100
# A notification's bound: a pass plus 100 ms, the 100 ms times the load
# per CPU at the flip (fx_loaded: 3 of 26 came after 200 ms at load 30).
bound_ms() { echo $((INTERVAL_MS + 100 * $(fx_loaded 1))); }
N=${LINKTRAPS_FLIPS:-5}

conf() { # LINK_HOLDDOWN_MS [MORE AGENT SETTINGS]
	ifseg_conf "interval_ms = $INTERVAL_MS; allow_reset = true; state_file = \"$TMP/agent.state\";
          link_holddown_ms = $1; ${2:-}"
}

. "$top_srcdir/tests/integration/trapd.sh"

# One flip of port0's oper gauge to STATE, and the notification NAME it
# must give (the COUNT-th): checks its ifOperStatus and its latency.
flip() { # STATE NAME COUNT
	local t0 line lat bound
	t0=$(fx_now_ms)
	fx_ifcmd "set ports oper port0 $1"
	fx_wait 5 have "$2" 1000 "$3" || fail "no $2 number $3 for ifIndex 1000 within 5 s"
	line=$(last_of "$2" 1000)
	[ "$(echo "$line" | cut -d' ' -f4)" = "$1" ] || fail "$2 carries '$line', expected ifOperStatus $1"
	[ "$(echo "$line" | cut -d' ' -f5)" = "$HOW" ] || fail "$2 came as '$line', expected $HOW"
	lat=$(($(echo "$line" | cut -d' ' -f1) - t0))
	bound=$(bound_ms)
	echo "$2 $lat $bound" >>"$TMP/latencies"
	log "flip to $1: $2 after $lat ms"
	# A loaded machine (the suite runs beside others) may delay a process
	# by more than the bound: each must come within 1 s (times the load per
	# CPU), and at most a tenth of them later than their bound (checked at
	# the end).
	[ "$lat" -le $((1000 * $(fx_loaded 1))) ] ||
		fail "$2 came $lat ms after the flip (load $(cut -d' ' -f1 /proc/loadavg))"
	[ "$lat" -le "$bound" ] || log "over $bound ms (load $(cut -d' ' -f1-3 /proc/loadavg))"
}

flips() { # LABEL
	local i downs ups other
	downs=$(count linkDown 1000)
	ups=$(count linkUp 1000)
	other=$(($(count linkDown 1001) + $(count linkUp 1001)))
	for i in $(seq "$N"); do
		flip 2 linkDown $((downs + i))
		flip 1 linkUp $((ups + i))
	done
	fx_wait_pass
	[ "$(count linkDown 1000)" -eq $((downs + N)) ] && [ "$(count linkUp 1000)" -eq $((ups + N)) ] ||
		fail "$1: $N flips gave $(($(count linkDown 1000) - downs)) linkDown and $(($(count linkUp 1000) - ups)) linkUp"
	[ $(($(count linkDown 1001) + $(count linkUp 1001))) -eq "$other" ] ||
		fail "$1: port1 never changed, yet was notified"
	log "$1: $N flips, exactly $N linkDown and $N linkUp"
}

value_is() { [ "$(snmp_value "$1")" = "$2" ]; }
links() { grep -c -e ' link' -e " $ROOT.0." "$TRAPS" || true; } # the agent's
SENT=$ROOT.1.1.11.0 # statctrNotificationsSent, Suppressed, Lost
SUPPRESSED=$ROOT.1.1.12.0
LOST=$ROOT.1.1.13.0
expect() { # OID VALUE
	local got
	got=$(snmp_value "$1")
	[ "$got" = "$2" ] || fail "$1 is '$got', expected '$2'"
}

HOW=trap-v2c # how the flips' notifications must arrive
start_trapd
fx_snmpd
fx_snmpd_reconfigure "trap2sink 127.0.0.1:$TPORT public"
conf 0
fx_ifwriter ifseg
fx_ifcmd "set ports oper port0 1" "set ports oper port1 1"
fx_agent
fx_wait 5 value_is "$IFX.1.1000" port0 ||
	fail "no IF-MIB rows within 5 s"
fx_wait_pass
[ "$(count linkUp 1000)$(count linkDown 1000)" = 00 ] || fail "rows appearing were notified as flaps"

log "RFC 2863 default: ifLinkUpDownTrapEnable enabled(1)"
expect "$IFX.14.1000" 1
flips "trap2sink (v2c traps)"

log "ifLinkUpDownTrapEnable: a read-only user may not set it; disabled(2) by SET sends none"
snmpset -v2c -c "$COMMUNITY" -t 2 -r 0 "127.0.0.1:$PORT" "$IFX.14.1000" i 2 >/dev/null 2>&1 &&
	fail "the read-only community set ifLinkUpDownTrapEnable"
snmpset -v2c -c "$WCOMMUNITY" -t 2 -r 0 "127.0.0.1:$PORT" "$IFX.14.1000" i 3 >/dev/null 2>&1 &&
	fail "ifLinkUpDownTrapEnable accepted 3"
snmpset -v2c -c "$WCOMMUNITY" -t 2 -r 0 "127.0.0.1:$PORT" "$IFX.14.1000" i 2 >/dev/null ||
	fail "SET ifLinkUpDownTrapEnable.1000 = disabled(2) failed"
expect "$IFX.14.1000" 2
expect "$IFX.14.1001" 1
fx_agent_stop
fx_agent
fx_wait 5 value_is "$IFX.14.1000" 2 ||
	fail "ifLinkUpDownTrapEnable.1000 did not survive an agent restart"
links_at_start=$(links) # the agent's counters start here
fx_wait_pass
before=$(grep -c . "$TRAPS")
for i in 1 2 3; do
	fx_ifcmd "set ports oper port0 2"
	fx_wait_pass
	fx_ifcmd "set ports oper port0 1"
	fx_wait_pass
done
[ "$(grep -c . "$TRAPS")" -eq "$before" ] || fail "disabled(2): $(($(grep -c . "$TRAPS") - before)) notifications arrived"
expect "$IF.8.1000" 1
snmpset -v2c -c "$WCOMMUNITY" -t 2 -r 0 "127.0.0.1:$PORT" "$IFX.14.1000" i 1 >/dev/null ||
	fail "SET ifLinkUpDownTrapEnable.1000 = enabled(1) failed"
log "disabled(2): 3 flips, none sent"

log "a SET that cannot keep its value (the state file replaced by a directory): commitFailed, unchanged"
LINKTRAPS=$TMP/agent.state.linktraps
[ -f "$LINKTRAPS" ] || fail "no $LINKTRAPS after the SETs"
mv "$LINKTRAPS" "$TMP/linktraps.saved"
mkdir "$LINKTRAPS"
fx_expect_set commitFailed "$IFX.14.1001" i 2
expect "$IFX.14.1001" 1
grep -q "ifLinkUpDownTrapEnable.1001: .*(the value is unchanged)" "$TMP/agent.log" ||
	fail "the failed SET was not logged: $(grep ifLinkUpDownTrapEnable "$TMP/agent.log")"
rmdir "$LINKTRAPS"
mv "$TMP/linktraps.saved" "$LINKTRAPS"

log "statctrResetDone names each reset's range: a row, then the whole segment"
snmpset -v2c -c "$WCOMMUNITY" -t 2 -r 0 "127.0.0.1:$PORT" "$ROOT.3.7.1.1.4.1" i 2 >/dev/null ||
	fail "the reset of ports.port0 failed"
fx_wait 5 grep -q " $ROOT.0.3 ifseg 1 2\$" "$TRAPS" ||
	fail "no statctrResetDone ifseg cells 1..2: $(grep " $ROOT.0" "$TRAPS")"
snmpset -v2c -c "$WCOMMUNITY" -t 2 -r 0 "127.0.0.1:$PORT" "$ROOT.1.2.1.12.7" i 2 >/dev/null ||
	fail "the reset of segment ifseg failed"
fx_wait 5 grep -q " $ROOT.0.3 ifseg 1 4\$" "$TRAPS" ||
	fail "no statctrResetDone ifseg cells 1..4: $(grep " $ROOT.0" "$TRAPS")"
log "$(grep " $ROOT.0.3 " "$TRAPS" | cut -d' ' -f2- | tr '\n' ';')"

log "a writer killed: lowerLayerDown(7) and linkDown; back: linkUp"
downs=$(count linkDown 1000)
ups=$(count linkUp 1000)
dead_pid=$WRITER_PID
fx_kill "$WRITER_PID" KILL
fx_wait 5 have linkDown 1000 $((downs + 1)) || fail "no linkDown within 5 s of the writer's death"
[ "$(last_of linkDown 1000 | cut -d' ' -f4)" = 7 ] || fail "linkDown of a dead writer: $(last_of linkDown 1000)"
fx_wait 5 have linkDown 1001 1 || fail "no linkDown of port1 within 5 s of the writer's death"
expect "$IF.8.1000" 7
expect "$IF.8.1001" 7
exec 7>&-
fx_ifwriter ifseg
fx_ifcmd "set ports oper port0 1" "set ports oper port1 1"
fx_wait 5 have linkUp 1000 $((ups + 1)) || fail "no linkUp within 5 s of the writer's return"
# STATCTR-MIB's own: the segment's state went writerGone(4), then active(1)
# with the new writer; the new generation carries its discontinuity time.
fx_wait 5 grep -q " $ROOT.0.1 ifseg 1 $WRITER_PID\$" "$TRAPS" ||
	fail "no statctrSegmentStateChange ifseg active(1) pid $WRITER_PID: $(grep " $ROOT.0" "$TRAPS")"
grep -q " $ROOT.0.1 ifseg 4 $dead_pid\$" "$TRAPS" ||
	fail "no statctrSegmentStateChange ifseg writerGone(4) pid $dead_pid: $(grep " $ROOT.0" "$TRAPS")"
restart=$(grep " $ROOT.0.2 ifseg $WRITER_PID " "$TRAPS") ||
	fail "no statctrWriterRestart of ifseg pid $WRITER_PID: $(grep " $ROOT.0" "$TRAPS")"
disc=$(snmp_value "$ROOT.1.2.1.9.7")
[ "$(echo "$restart" | cut -d' ' -f5-)" = "$(snmp_value "$ROOT.1.2.1.10.7") $disc" ] ||
	fail "statctrWriterRestart '$restart': statctrSegmentGenerations/Discontinuity read $(snmp_value "$ROOT.1.2.1.10.7") $disc"
log "segment notifications: $(grep " $ROOT.0" "$TRAPS" | cut -d' ' -f2- | tr '\n' ';')"
fx_wait 5 value_is "$IF.8.1000" 1 ||
	fail "ifOperStatus.1000 not up(1) after the writer's return"
log "writer back: $(last_of linkUp 1000)"

log "snmpd down while the row flips: nothing sent late or twice"
fx_wait_pass
before=$(grep -c . "$TRAPS")
fx_snmpd_stop
fx_ifcmd "set ports oper port0 2"
fx_wait 5 grep -q "lost the AgentX master" "$TMP/agent.log" || fail "the agent did not notice snmpd's exit"
sleep 0.3 # three passes on the agent's clock: the flip is seen while detached
fx_ifcmd "set ports oper port0 1"
sleep 0.3
fx_snmpd_start || fail "snmpd did not restart"
fx_wait 10 value_is "$IF.8.1000" 1 ||
	fail "the agent did not serve again after snmpd's restart"
fx_wait 10 fx_agent_answers || fail "STATCTR-MIB not served again after snmpd's restart"
fx_wait_pass
fx_wait_pass
late=$(tail -n +"$((before + 1))" "$TRAPS" | grep -c ' link' || true)
[ "$late" -eq 0 ] || fail "$late link notifications arrived after the master's restart (lost ones sent late)"
lost=$(snmp_value "$LOST")
[ "$lost" -ge 1 ] && [ "$lost" -le 2 ] || fail "statctrNotificationsLost is '$lost' after 2 flips while detached"
log "detached: $lost lost (statctrNotificationsLost), none sent late"
flips "after the master's restart" # one at a time, none twice

log "informsink (informs)"
fx_snmpd_stop
sed -i '/^trap2sink /d' "$TMP/snmpd.conf" # else each notification comes twice
printf 'informsink 127.0.0.1:%s public\n' "$TPORT" >>"$TMP/snmpd.conf"
fx_snmpd_start || fail "snmpd did not restart with informsink"
fx_wait 10 value_is "$IF.8.1000" 1 ||
	fail "the agent did not serve again after snmpd's restart"
fx_wait 10 fx_agent_answers || fail "STATCTR-MIB not served again after snmpd's restart"
fx_wait_pass
HOW=inform-v2c N=3 flips "informsink (informs)"

# The burst's six changes must come closer together than the hold-down,
# whatever the load: each waits for a pass, so the hold-down is eight times
# one such wait, measured now (at least 1000 ms).
t0=$(fx_now_ms)
fx_wait_pass
HOLD=$((($(fx_now_ms) - t0) * 8))
[ "$HOLD" -ge 1000 ] || HOLD=1000
HOLD=$(((HOLD + 99) / 100 * 100))
log "hold-down $HOLD ms: a burst gives one notification per hold-down, the last its final state"
conf "$HOLD"
kill -HUP "$AGENT_PID"
fx_wait 10 grep -q "SIGHUP: configuration .* reloaded" "$TMP/agent.log" || fail "no reload"
# The burst starts a hold-down after the last notification of ifIndex 1000
# (the informs above): inside it, the first change would be held too, and a
# burst as fast as a quiet machine makes it would end, back at the state
# last told, with nothing to tell.
last_told=$(awk '$3 == 1000 { t = $1 } END { print t == "" ? 0 : t }' "$TRAPS")
past_ms() { [ "$(fx_now_ms)" -gt "$1" ]; }
fx_wait $((HOLD / 1000 + 2)) past_ms $((last_told + HOLD)) ||
	fail "hold-down: $HOLD ms after the last notification ($last_told) never came"
fx_wait_pass
before=$(grep -c . "$TRAPS")
suppressed=$(snmp_value "$SUPPRESSED")
t0=$(fx_now_ms)
for s in 2 1 2 1 2 1; do # each seen by a pass
	fx_ifcmd "set ports oper port0 $s"
	fx_wait_pass
done
burst=$(($(fx_now_ms) - t0))
# The final state comes at most one hold-down after the burst; then nothing.
fx_wait $((HOLD / 1000 + 5)) sh -c "tail -n +$((before + 1)) '$TRAPS' | awk '\$3 == 1000' | tail -n 1 | grep -q ' linkUp 1000 1 '" ||
	fail "hold-down: the final linkUp never came"
fx_wait_pass
sleep "$((HOLD * 12 / 10000)).$((HOLD * 12 / 1000 % 10))" # one hold-down more: nothing may follow
tail -n +"$((before + 1))" "$TRAPS" | awk '$3 == 1000' >"$TMP/burst"
python3 - "$TMP/burst" "$burst" "$HOLD" <<'PY' || fail "hold-down $HOLD ms, burst $burst ms: $(tr '\n' ';' <"$TMP/burst")"
import sys
rows = [l.split() for l in open(sys.argv[1])]
burst, hold = int(sys.argv[2]), int(sys.argv[3])
kinds = [r[1] for r in rows]
times = [int(r[0]) for r in rows]
assert kinds[0] == "linkDown" and kinds[-1] == "linkUp", kinds
assert all(a != b for a, b in zip(kinds, kinds[1:])), "not alternating: %s" % kinds
gaps = [b - a for a, b in zip(times, times[1:])]
assert all(g >= hold * 9 // 10 for g in gaps), "closer than the hold-down: %s" % gaps
assert len(rows) <= burst // hold + 2 and len(rows) < 6, "%d for a %d ms burst of 6" % (len(rows), burst)
print("hold-down: a burst of 6 changes in %d ms gave %s, gaps %s ms" % (burst, kinds, gaps))
PY
n=$(grep -c . "$TMP/burst")
[ $(($(snmp_value "$SUPPRESSED") - suppressed)) -eq $((6 - n)) ] ||
	fail "hold-down: statctrNotificationsSuppressed grew by $(($(snmp_value "$SUPPRESSED") - suppressed)), expected $((6 - n))"
log "hold-down: $n sent, $((6 - n)) suppressed (statctrNotificationsSuppressed)"
[ "$(snmp_value "$SENT")" -eq $(($(links) - links_at_start)) ] ||
	fail "statctrNotificationsSent is $(snmp_value "$SENT"), snmptrapd received $(($(links) - links_at_start))"

log "statctl notifications: the same counters, from STATE_FILE.notifications"
fx_wait_pass
mib_counts() { echo "$(snmp_value "$SENT") $(snmp_value "$SUPPRESSED") $(snmp_value "$LOST")"; }
statctl_counts() {
	"$top_builddir/tools/statctl" -f json notifications -c "$TMP/statctr.conf" | python3 -c '
import json, sys; n = json.load(sys.stdin)["agent"]["notifications"]
print(n["sent"], n["suppressed"], n["lost"])'
}
same_counts() { [ "$(statctl_counts)" = "$(mib_counts)" ]; }
fx_wait 5 same_counts || fail "statctl notifications says '$(statctl_counts)', STATCTR-MIB '$(mib_counts)'"
"$top_builddir/tools/statctl" notifications -c "$TMP/statctr.conf" | grep -q "^agent pid $AGENT_PID (running)" ||
	fail "statctl notifications: $("$top_builddir/tools/statctl" notifications -c "$TMP/statctr.conf" 2>&1)"
log "statctl notifications: sent suppressed lost = $(statctl_counts), as STATCTR-MIB"

log "notify_segment_state, notify_writer_restart = false: a writer restart sends no statctr notification"
conf 0 "notify_segment_state = false; notify_writer_restart = false;"
served=$(grep -c "SIGHUP: configuration .* reloaded" "$TMP/agent.log")
kill -HUP "$AGENT_PID"
fx_wait 10 sh -c "[ \$(grep -c 'SIGHUP: configuration .* reloaded' '$TMP/agent.log') -gt $served ]" ||
	fail "no reload"
fx_wait_pass
statctr_before=$(grep -c " $ROOT.0." "$TRAPS")
downs=$(count linkDown 1000)
ups=$(count linkUp 1000)
fx_kill "$WRITER_PID" KILL
fx_wait 5 have linkDown 1000 $((downs + 1)) || fail "no linkDown within 5 s of the writer's death"
exec 7>&-
fx_ifwriter ifseg
fx_ifcmd "set ports oper port0 1" "set ports oper port1 1"
fx_wait 5 have linkUp 1000 $((ups + 1)) || fail "no linkUp within 5 s of the writer's return"
fx_wait_pass
[ "$(grep -c " $ROOT.0." "$TRAPS")" -eq "$statctr_before" ] ||
	fail "switched off, yet: $(grep " $ROOT.0." "$TRAPS" | tail -n +"$((statctr_before + 1))")"

log "SIGHUP: each interface keeps its state: ifLastChange as it was, and a flip during the reload is notified once"
reload() { # then waits for it
	local served
	served=$(grep -c "SIGHUP: configuration .* reloaded" "$TMP/agent.log")
	kill -HUP "$AGENT_PID"
	"$@"
	fx_wait 10 sh -c "[ \$(grep -c 'SIGHUP: configuration .* reloaded' '$TMP/agent.log') -gt $served ]" ||
		fail "no reload"
	fx_wait_pass
}
last=$(snmp_value "$IF.9.1000")
[ -n "$last" ] && [ "$last" != "0" ] || fail "ifLastChange of port0 is '$last' after its flips"
reload true
[ "$(snmp_value "$IF.9.1000")" = "$last" ] ||
	fail "ifLastChange of port0 went from '$last' to '$(snmp_value "$IF.9.1000")' across a SIGHUP"
downs=$(count linkDown 1000)
reload fx_ifcmd "set ports oper port0 2"
fx_wait 5 have linkDown 1000 $((downs + 1)) || fail "a flip during a reload gave no linkDown"
fx_wait_pass
[ "$(count linkDown 1000)" -eq $((downs + 1)) ] || fail "a flip during a reload gave $(($(count linkDown 1000) - downs)) linkDown"
[ "$(snmp_value "$IF.9.1000")" != "$last" ] || fail "ifLastChange did not move with the flip"
log "ifLastChange kept across a SIGHUP ($last); a flip during one gave exactly one linkDown"

log "$(sort -n -k2 "$TMP/latencies" | awk '{ v[n++] = $2; s += $2; if ($2 > $3) o++ }
	END { printf "latency flip -> arrival: %d notifications, mean %.0f ms, median %d ms, max %d ms, %d over their bound\n",
	      n, s / n, v[int(n / 2)], v[n - 1], o }')"
over=$(awk '$2 > $3' "$TMP/latencies" | grep -c . || true)
[ $((over * 10)) -le "$(grep -c . "$TMP/latencies")" ] ||
	fail "$over of $(grep -c . "$TMP/latencies") notifications came later than their bound ($INTERVAL_MS ms + 100 ms x the load per CPU): $(awk '$2 > $3 { printf "%s ms > %s; ", $2, $3 }' "$TMP/latencies")"
log "OK"
