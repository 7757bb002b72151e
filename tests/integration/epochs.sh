#!/bin/bash
# Epochs over SNMP through a real snmpd (docs/agent.md, "Epochs"): epochs
# started by statctl and by a SET of statctrSegmentEpochStart are listed in
# statctrEpochTable, and the interval tables under statctrIntervals give
# exactly the counts `statctl show --epoch N` and `--since` give; an
# interval across a writer restart whose final counts were lost is marked
# invalid; the interval_s schedule starts epochs on wall-clock boundaries.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/integration/fixture.sh"

fx_need snmpget snmpset snmpwalk
STATCTL=$top_builddir/tools/statctl
[ -x "$STATCTL" ] || skip "tools/statctl not built"

# dataplane keeps 4 epochs ($1: its epochs group's further settings);
# dataplane2 (oid 2) declares none.  $2: the agent group's settings.
epoch_config() {
	fx_config_two "${2:-interval_ms = 100; allow_reset = true;}"
	sed -i "s|path = \"$TMP/dataplane\";|& epochs = { keep = 4; $1 };|" "$TMP/statctr.conf"
	grep -q 'epochs = { keep = 4;' "$TMP/statctr.conf" || fail "no epochs in the configuration"
}
epoch_config ""
fx_snmpd
fx_ifwriter dataplane
fx_writer_on dataplane2 -t 1 -n 10
fx_agent
fx_wait_pass

rw="-v2c -c $WCOMMUNITY -On -Oq -t 2 -r 0 127.0.0.1:$PORT"
SEG=$ROOT.1.2.1     # statctrSegmentEntry
EPOCHS=$ROOT.1.5.1  # statctrEpochEntry
IV=$ROOT.5.1.1.1    # the interval table of dataplane's ifStats (oid 1): its entry
FLOWIV=$ROOT.5.1.2.1

statctl() { "$STATCTL" -c "$TMP/statctr.conf" "$@"; }
# statctl show's count of ROW's COLUMN ($3, 1-based after the row name) in TABLE, with OPTIONS.
show_count() {
	local table=$1 row=$2 col=$3
	shift 3
	statctl show "$@" dataplane "$table" |
		awk -v row="$row" -v col="$col" '$1 == row { print $(col + 1); exit }'
}
# Waits until the agent serves epoch N of dataplane.
served_epoch() { snmp_get "$EPOCHS.2.1.$1" | grep -qv 'No Such'; }

log "epoch 1 by statctl, epoch 2 by SET, counts added in each"
fx_ifcmd "add ifStats rxPackets dp0 100" "add flowStats packets 3 7" \
	"rec stages latency classify 5"
statctl epoch start first dataplane | grep -q 'epoch 1 "first" started' ||
	fail "statctl epoch start did not start epoch 1"
fx_ifcmd "add ifStats rxPackets dp0 250" "add ifStats txOctets dp1 5000000000" \
	"add flowStats packets 3 11" "rec stages latency classify 10" \
	"rec stages latency classify 20" "rec stages latency classify 1000000"
snmpset $rw "$SEG.13.1" i 2 >/dev/null || fail "SET statctrSegmentEpochStart start(2) failed"
[ "$(snmp_value "$SEG.13.1")" = 1 ] || fail "statctrSegmentEpochStart does not read idle(1)"
fx_wait 5 served_epoch 2 || fail "epoch 2 (the SET's) is not served"
# Logged as what it is, not as a reset.
fx_wait 5 grep -q 'epoch start by SET: done in' "$TMP/agent.log" ||
	fail "the SET's epoch start is not logged as one: $(grep 'by SET' "$TMP/agent.log")"
! grep -q 'reset by SET' "$TMP/agent.log" || fail "an epoch start logged as a reset"
statctl epoch list dataplane | grep -q 'snmp-[0-9]\{8\}T[0-9]\{6\}Z' ||
	fail "statctl does not list the SET's epoch: $(statctl epoch list dataplane)"
fx_ifcmd "add ifStats rxPackets dp0 1000" "add flowStats packets 3 13" \
	"rec stages latency classify 100"
fx_wait_pass

log "statctrEpochTable: names, start times, validity"
[ "$(snmp_value "$EPOCHS.2.1.1")" = first ] || fail "epoch 1's name"
snmp_value "$EPOCHS.2.1.2" | grep -q '^snmp-[0-9]\{8\}T[0-9]\{6\}Z$' || fail "epoch 2's name"
[ "$(snmp_value "$EPOCHS.5.1.1")" = 1 ] || fail "epoch 1 not valid"
[ "$(snmp_value "$EPOCHS.5.1.2")" = 1 ] || fail "epoch 2 not valid"
s1=$(snmp_value "$EPOCHS.3.1.1")
s2=$(snmp_value "$EPOCHS.3.1.2")
[ "$s1" -gt 0 ] && [ "$s2" -ge "$s1" ] || fail "epoch start TimeStamps $s1, $s2"
[ "$(snmp_walk "$EPOCHS.2" | wc -l)" = 2 ] || fail "not 2 epochs in statctrEpochTable"
[ "$(snmp_value "$SEG.14.1")" = 1 ] || fail "statctrSegmentEpochValidIntervals is not 1"
elapsed=$(snmp_value "$SEG.15.1")
[ "$elapsed" -ge 0 ] && [ "$elapsed" -lt 60 ] || fail "statctrSegmentEpochTimeElapsed $elapsed"

log "interval tables against statctl show --epoch and --since"
check() { # OID WANT WHAT
	local got
	got=$(snmp_value "$1")
	[ "$got" = "$2" ] || fail "$3: SNMP $got, expected $2"
}
for n in 1 2; do
	check "$IV.10.$n.1" "$(show_count ifStats dp0 1 --epoch $n)" "epoch $n ifStats.dp0.rxPackets"
	check "$IV.13.$n.2" "$(show_count ifStats dp1 4 --epoch $n)" "epoch $n ifStats.dp1.txOctets"
	check "$FLOWIV.10.$n.4" "$(show_count flowStats 3 1 --epoch $n)" "epoch $n flowStats.3.packets"
done
check "$IV.10.1.1" 250 "epoch 1 rxPackets (statctl agrees)"
check "$IV.10.2.1" 1000 "epoch 2 rxPackets (statctl agrees)"
check "$IV.13.1.2" 5000000000 "epoch 1 txOctets above 2^32"
check "$FLOWIV.10.2.4" 13 "epoch 2 flow 3 packets"
since=$(show_count ifStats dp0 1 --since 1)
[ "$since" = 1250 ] || fail "statctl show --since 1 gives $since"
[ $(($(snmp_value "$IV.10.1.1") + $(snmp_value "$IV.10.2.1"))) = "$since" ] ||
	fail "the intervals do not add up to --since 1"
[ "$(snmp_value "$IV.2.1.1")" = 1 ] || fail "interval valid column"
snmp_get "$IV.15.1.1" | grep -q 'No Such' || fail "a gauge column has an interval count"
log "histograms: counts and cumulative buckets per epoch (16, 32, ... 524288, +Inf)"
LAT=$ROOT.5.1.5.1.10       # stages.latency in the interval table of stages (oid 5)
LATB=$ROOT.4.1.5.10.3.1.1  # its interval bucket table's count column
check "$LAT.1.2" 3 "epoch 1 latency count of classify"
check "$LAT.2.2" 1 "epoch 2 latency count of classify"
check "$LAT.1.1" 0 "epoch 1 latency count of receive"
check "$LATB.1.2.1" 1 "epoch 1 classify bucket <= 16"
check "$LATB.1.2.2" 2 "epoch 1 classify bucket <= 32"
check "$LATB.1.2.16" 2 "epoch 1 classify bucket <= 524288"
check "$LATB.1.2.17" 3 "epoch 1 classify bucket +Inf"
check "$LATB.2.2.3" 0 "epoch 2 classify bucket <= 64"
check "$LATB.2.2.4" 1 "epoch 2 classify bucket <= 128"
[ "$(snmp_walk "$LATB" | wc -l)" = $((2 * 3 * 17)) ] || fail "not 2 epochs x 3 rows x 17 buckets"

walked=$(snmp_walk "$IV.10" | wc -l)
[ "$walked" = 8 ] || fail "rxPackets of 2 epochs x 4 rows: $walked instances walked"

log "a reset changes no interval count"
snmpset $rw "$ROOT.3.1.1.1.4.1" i 2 >/dev/null || fail "row reset of dp0 failed"
[ "$(snmp_value "$ROOT.3.1.1.1.10.1")" = 0 ] || fail "dp0 rxPackets not reset"
check "$IV.10.2.1" 1000 "epoch 2 rxPackets after a reset"

log "SETs refused: bad value, read community, a read-only column"
fx_expect_set wrongValue "$SEG.13.1" i 3
snmpset -v2c -c "$COMMUNITY" -t 2 -r 0 "127.0.0.1:$PORT" "$SEG.13.1" i 2 >/dev/null 2>&1 &&
	fail "the read community started an epoch"
fx_expect_set notWritable "$EPOCHS.2.1.1" s x
fx_expect_set inconsistentValue "$SEG.13.2" i 2
fx_expect_set ok "$SEG.13.2" i 1
[ "$(snmp_value "$SEG.14.2")" = 0 ] && [ "$(snmp_value "$SEG.15.2")" = 0 ] ||
	fail "a segment without epochs has valid intervals or time elapsed"
snmp_get "$ROOT.5.2.1.1.10.1.1" | grep -q 'No Such Object' ||
	fail "a segment without epochs has interval tables"
[ -z "$(snmp_walk "$ROOT.1.5.1.2.2")" ] || fail "a segment without epochs has epochs"
[ "$(snmp_walk "$EPOCHS.2" | wc -l)" = 2 ] || fail "a refused SET started an epoch"

log "a writer crash whose segment is removed unseen: the interval across it is invalid"
fx_ifcmd "add ifStats rxPackets dp0 7"
snmpset $rw "$SEG.13.1" i 2 >/dev/null || fail "SET of epoch 3"
fx_wait 5 served_epoch 3 || fail "epoch 3 is not served"
# The agent is stopped, every thread of it (fx_freeze): nobody sees the
# writer gone before its files go.
fx_freeze "$AGENT_PID"
fx_kill "$WRITER_PID" 9
exec 7>&-
rm -f "$SEGMENT" "$SEGMENT.ctl"
fx_ifwriter dataplane
kill -CONT "$AGENT_PID"
fx_ifcmd "add ifStats rxPackets dp0 40"
invalid() { [ "$(snmp_value "$EPOCHS.5.1.3")" = 2 ]; }
fx_wait 10 invalid || fail "epoch 3's interval, across the lost generation, is not marked invalid"
[ "$(snmp_value "$EPOCHS.5.1.1")" = 1 ] || fail "epoch 1 became invalid"
check "$IV.10.3.1" 0 "an invalid interval's count"
[ "$(snmp_value "$IV.2.3.1")" = 2 ] || fail "the interval table's valid column of epoch 3"
if statctl show --epoch 3 dataplane ifStats >"$TMP/epoch3.out" 2>&1; then
	fail "statctl gives a count for epoch 3: $(cat "$TMP/epoch3.out"); epochs: $(statctl epoch list dataplane 2>&1); served valid: $(snmp_value "$EPOCHS.5.1.3")"
fi
[ "$(snmp_value "$SEG.14.1")" = 2 ] || fail "statctrSegmentEpochValidIntervals is not 2"

log "a new epoch in the new generation counts exactly again"
snmpset $rw "$SEG.13.1" i 2 >/dev/null || fail "SET of epoch 4"
fx_wait 5 served_epoch 4 || fail "epoch 4 is not served"
fx_ifcmd "add ifStats rxPackets dp0 9"
fx_wait_pass
[ "$(snmp_value "$EPOCHS.5.1.4")" = 1 ] || fail "epoch 4 not valid"
check "$IV.10.4.1" "$(show_count ifStats dp0 1 --epoch 4)" "epoch 4 rxPackets"
check "$IV.10.4.1" 9 "epoch 4 rxPackets (statctl agrees)"

log "a writer crash the agent sees: it captures the final counts, the interval stays exact"
snmpset $rw "$SEG.13.1" i 2 >/dev/null || fail "SET of epoch 5"
fx_wait 5 served_epoch 5 || fail "epoch 5 is not served"
fx_ifcmd "add ifStats rxPackets dp0 11"
fx_wait_pass
fx_kill "$WRITER_PID" 9
exec 7>&-
gone() { [ "$(snmp_value "$SEG.4.1")" = 4 ]; }
fx_wait 10 gone || fail "the agent does not report writerGone(4)"
fx_wait_pass
rm -f "$SEGMENT" "$SEGMENT.ctl"
fx_ifwriter dataplane
fx_ifcmd "add ifStats rxPackets dp0 6"
fx_wait_pass
fx_wait 10 served_epoch 5 || fail "epoch 5 is not served after the restart"
[ "$(snmp_value "$EPOCHS.5.1.5")" = 1 ] || fail "epoch 5's interval, captured by the agent, is not valid"
check "$IV.10.5.1" 17 "epoch 5 rxPackets across the captured crash (11 + 6)"
check "$IV.10.5.1" "$(show_count ifStats dp0 1 --epoch 5)" "epoch 5 rxPackets (statctl agrees)"

log "the schedule: interval_s = 2 starts interval epochs on 2 s boundaries"
fx_agent_stop
epoch_config "interval_s = 2;"
fx_agent
# Three scheduled epochs; keep = 4 drops the oldest as they come.  The
# first pass runs before the agent registers, the next ones once it serves:
# a boundary in between has no pass, hence no epoch.
scheduled() { [ "$(statctl epoch list dataplane | grep -c ' interval-')" -ge 3 ]; }
fx_wait 20 scheduled || fail "no three scheduled epochs in 20 s: $(statctl epoch list dataplane)"
statctl -f json epoch list dataplane >"$TMP/epochs.json"
python3 - "$TMP/epochs.json" <<'EOF' || fail "scheduled epochs are not on 2 s boundaries"
import calendar, json, sys, time
eps = [e for e in json.load(open(sys.argv[1]))["segments"][0]["epochs"]
       if e["name"].startswith("interval-")]
bounds = [calendar.timegm(time.strptime(e["name"][9:], "%Y%m%dT%H%M%SZ")) for e in eps]
for e, b in zip(eps, bounds):
    lag = e["start_ns"] / 1e9 - b
    assert b % 2 == 0 and 0 <= lag < 2, (e, lag)
# Once passes run (not across the start's gap, registering with snmpd), an
# epoch is started by the first pass after its boundary: 100 ms passes, on
# a loaded machine.
lag = eps[-1]["start_ns"] / 1e9 - bounds[-1]
assert lag < 1.5, (eps[-1], lag)
assert all(y > x and (y - x) % 2 == 0 for x, y in zip(bounds, bounds[1:])), bounds
assert bounds[-1] - bounds[-2] == 2, bounds
EOF
newest=$(statctl -f json epoch list dataplane |
	python3 -c 'import json,sys; print(json.load(sys.stdin)["segments"][0]["epochs"][-1]["number"])')
# That one, or a newer one: keep = 4 drops it 8 s on, before a slow agent's
# pass on a loaded machine may list it.
served_from() {
	snmp_walk "$EPOCHS.2.1" | awk -v n="$1" '{ k = split($1, o, "."); if (o[k] + 0 >= n) f = 1 } END { exit !f }'
}
fx_wait 5 served_from "$newest" ||
	fail "neither the newest scheduled epoch $newest nor a newer one is served: $(snmp_walk "$EPOCHS.2.1" | tr '\n' ';')"

log "an epoch dropped since the pass: its counts are no instances, never a wrong number"
fx_agent_stop
# max_age_ms = 0: a pass every 4 s and none on request, or a GET more than
# 200 ms after the walk (statctl is slow on a loaded machine) gets a fresh
# pass that no longer lists the epoch: every try then misses.
epoch_config "" "interval_ms = 4000; max_age_ms = 0; allow_reset = true;"
fx_agent
# oldest_epoch: the number of the first epoch the agent lists, in $oldest
# (a walk the restarted agent may not answer at once on a loaded machine).
oldest_epoch() {
	oldest=$(snmp_walk "$EPOCHS.2.1" | head -n 1 | awk '{ print $1 }')
	oldest=${oldest##*.}
	[ -n "$oldest" ]
}
dropped=0
for try in 1 2 3 4 5; do
	fx_wait 10 oldest_epoch ||
		fail "no epoch listed within $(fx_loaded 10) s: $(snmp_walk "$EPOCHS.2.1" 2>&1 | head -n 3)"
	statctl epoch start dropper dataplane >/dev/null || fail "statctl epoch start dropper"
	# One PDU, one aggregation: the epoch still listed, its count without a value.
	out=$(snmp_get "$EPOCHS.2.1.$oldest" "$IV.10.$oldest.1")
	if echo "$out" | head -n 1 | grep -qv 'No Such'; then
		echo "$out" | tail -n 1 | grep -q 'No Such Instance' ||
			fail "a dropped epoch's count was served: $out"
		next=$(snmpgetnext $V2 "127.0.0.1:$PORT" "$IV.10.$oldest" | cut -d' ' -f1)
		[ "$next" != "$IV.10.$oldest.1" ] || fail "GETNEXT gave the dropped epoch's count"
		dropped=1
		break
	fi
	log "a pass came between the start and the GET (try $try)"
done
[ "$dropped" = 1 ] || fail "no GET landed before the next pass in 5 tries"

log "snmpd's DisMan Schedule (repeat, as cron) starts epochs by SET"
fx_agent_stop
epoch_config ""
fx_agent
fx_snmpd_stop
# The schedule's SETs are snmpd's own queries, as user "epochsched".  Its
# interval must outlast a SET: Net-SNMP arms the next run at the last run
# plus the interval, and a SET that took longer leaves nothing armed (the
# schedule stopped for good after one SET over 1 s at load 15 with
# "repeat 1"); the fixture's agentXTimeout is 5 s.
REPEAT_S=10
printf '%s\n' "rwuser epochsched noauth" "iquerySecName epochsched" \
	"repeat $REPEAT_S $SEG.13.1 = 2" >>"$TMP/snmpd.conf"
fx_snmpd_start || fail "snmpd did not restart"
by_schedule() {
	[ "$(statctl epoch list dataplane | grep ' snmp-' | awk '$2 > '"$newest"' { n++ } END { print n + 0 }')" -ge 2 ]
}
# The agent re-registers with the restarted snmpd first: minutes at load 20.
fx_wait 60 by_schedule ||
	fail "snmpd's repeat directive started no two epochs in $(fx_loaded 60) s (load $(cut -d' ' -f1 /proc/loadavg)): $(statctl epoch list dataplane; tail -5 "$TMP/snmpd.log")"
test_finish
