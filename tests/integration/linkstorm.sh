#!/bin/bash
# A notification storm (issue 21): the ifOperStatus gauges of every row of
# a 1000-row IF-MIB table (ifindex_range = 1000) flip at once, down,
# up, down... at least 5 times and for over three hold-downs (each change
# seen by a pass) and end down, through a real snmpd (trap2sink over TCP) to
# a real snmptrapd, with the default hold-down (link_holddown_ms 1000,
# docs/agent.md, "Notifications").
# Proves: every row's notifications alternate, are at least a hold-down
# (less 300 ms of delivery jitter) apart and no more than the burst's length
# allows; every row's last one is linkDown down(2), its final state, and a
# GET reads down(2) for all rows; statctrNotificationsSent equals what
# snmptrapd received, Sent + Suppressed grew by exactly the changes made,
# none lost; the hold-down let each row's later state through; GETs through
# the agent during the storm are all answered, p99 below 100 ms (times the
# load per CPU) plus 4 times snmpd's own sysUpTime.0 p99 measured in turn
# with them (a loaded 2-CPU machine delays both; as
# tests/security/resetstorm.sh).  Sanitizer builds
# get 3x the bound.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/integration/fixture.sh"

fx_need snmpget snmpwalk snmptrap snmptrapd python3
fx_pysnmp
[ -x "$top_builddir/tests/integration/ifwriter" ] || fail "ifwriter not built (make check builds it)"
. "$top_srcdir/tests/integration/trapd.sh"
IF=.1.3.6.1.2.1.2.2.1
ROWS=${LINKSTORM_ROWS:-1000} # issue 21's storm; up to IFMIB_MAX_TOTAL (1024) with ifindex_range = rows
BASE=1000
HOLDDOWN_MS=1000
STORM_MS=$((3 * HOLDDOWN_MS)) # three hold-downs: each row notified more than once
MIN_CHANGES=5                 # and every row down, up, down, up, down
P99_MS=100
[ "${SANITIZER:-none}" = none ] || P99_MS=300
SENT=$ROOT.1.1.11.0 # statctrNotificationsSent, Suppressed, Lost
SUPPRESSED=$ROOT.1.1.12.0
LOST=$ROOT.1.1.13.0

cat >"$TMP/statctr.conf" <<CONF
segments = ( {
  name = "ifseg"; path = "$TMP/ifseg"; oid = 7; slots = 1;
  tables = (
    { name = "ports"; oid = 1; rows = $ROWS;
      columns = (
        { name = "rxOctets"; kind = "counter"; },
        { name = "oper";     kind = "gauge"; } );
      ifmib = { ifindex_base = $BASE; ifindex_range = $ROWS;
                columns = { rxOctets = "ifHCInOctets"; oper = "ifOperStatus"; }; }; }
  );
} );
agent = { interval_ms = 100; link_holddown_ms = $HOLDDOWN_MS; };
CONF

# Every row's oper gauge to STATE, in one batch of commands to the writer.
all_rows() { # STATE
	local r cmds=()
	for r in $(seq 0 $((ROWS - 1))); do cmds+=("set ports oper $r $1"); done
	fx_ifcmd "${cmds[@]}"
}
# How many of the table's rows read ifOperStatus STATE (snmpd's own interfaces are below BASE).
opers() { # STATE
	snmpwalk $V2 -Cc "127.0.0.1:$PORT" "$IF.8" |
		awk -v s="$1" -v b="$BASE" '{ n = split($1, o, ".") } o[n] >= b && $2 == s' | grep -c . || true
}
all_read() { [ "$(opers "$1")" -eq "$ROWS" ]; }

# TCP: 1000 notifications at once overflow a UDP socket's buffer (about
# 200 datagrams) whenever snmptrapd is descheduled for a moment, and the
# drops would be the harness's, not the agent's.
TRAPD_TRANSPORT=tcp start_trapd
fx_snmpd
fx_snmpd_reconfigure "trap2sink tcp:127.0.0.1:$TPORT public"
fx_ifwriter ifseg
all_rows 1
fx_agent
fx_wait "$(fx_loaded 10)" all_read 1 || fail "not all $ROWS rows read up(1): $(opers 1)"
fx_wait_pass
[ "$(grep -c ' link' "$TRAPS" || true)" = 0 ] || fail "rows appearing were notified as flaps"
sent0=$(snmp_value "$SENT") suppressed0=$(snmp_value "$SUPPRESSED") lost0=$(snmp_value "$LOST")

log "GETs (an IF-MIB row, snmpd's sysUpTime.0) meanwhile"
rm -f "$TMP/stop" "$TMP/stop.ready"
$PYSNMP "$top_srcdir/tests/security/getlat.py" get "$PORT" "$COMMUNITY" "$TMP/stop" \
	"$IF.8.$((BASE + ROWS / 2))" .1.3.6.1.2.1.1.3.0 >"$TMP/getlat.out" 2>&1 &
GETTER=$!
fx_track "$GETTER"
fx_wait 20 test -e "$TMP/stop.ready" || fail "the GET poller did not start: $(cat "$TMP/getlat.out")"

log "the storm: all $ROWS rows down, up, down... at least $MIN_CHANGES times and for over $((STORM_MS / 1000)) s, ending down"
t0=$(fx_now_ms)
changes=0
# Counted in changes, not only in time: each change waits for a pass, which
# a loaded machine stretches (3 changes in 3 s at load 33).
while [ "$changes" -lt "$MIN_CHANGES" ] || [ $((changes % 2)) = 0 ] ||
	[ $(($(fx_now_ms) - t0)) -lt "$STORM_MS" ]; do
	all_rows $((2 - changes % 2))
	changes=$((changes + 1))
	fx_wait_pass # each change seen by a pass
done
burst=$(($(fx_now_ms) - t0))
log "$changes changes of every row in $burst ms"

# The final state comes at most one hold-down after the burst.
final_told() {
	awk '$2 ~ /^link/ { last[$3] = $2 " " $4 } END {
		for (i in last) if (last[i] == "linkDown 2") n++; print n + 0 }' "$TRAPS" |
		grep -qx "$ROWS"
}
fx_wait "$(fx_loaded 10)" final_told ||
	fail "not every row's last notification is linkDown down(2): $(awk '$2 ~ /^link/ { last[$3] = $2 " " $4 } END { for (i in last) n[last[i]]++; for (k in n) printf "%s: %d; ", k, n[k] }' "$TRAPS")"
fx_wait_pass
sleep "$((HOLDDOWN_MS / 1000)).2" # one hold-down more: nothing may follow
touch "$TMP/stop"
wait "$GETTER" || fail "the GET poller failed: $(cat "$TMP/getlat.out")"
fx_untrack "$GETTER"
all_read 2 || fail "after the storm $(opers 2) of $ROWS rows read down(2)"

grep ' link' "$TRAPS" >"$TMP/links"
python3 - "$TMP/links" "$burst" "$ROWS" "$BASE" "$HOLDDOWN_MS" "$t0" >"$TMP/check.out" 2>&1 <<'PY' ||
import sys
path, burst, rows, base, hold, t0 = sys.argv[1], *map(int, sys.argv[2:])
per = {}
for line in open(path):
    f = line.split()
    per.setdefault(int(f[2]), []).append((int(f[0]), f[1], f[3]))
assert sorted(per) == list(range(base, base + rows)), "%d rows notified" % len(per)
most = burst // hold + 2
for ifindex, seq in per.items():
    kinds = [k for _, k, _ in seq]
    times = [t for t, _, _ in seq]
    assert kinds[0] == "linkDown" and seq[-1][1:] == ("linkDown", "2"), (ifindex, seq)
    assert all(a != b for a, b in zip(kinds, kinds[1:])), "not alternating: %d %s" % (ifindex, kinds)
    gaps = [b - a for a, b in zip(times, times[1:])]
    # Gaps between arrivals: a batch of rows' notifications reaches snmptrapd
    # spread over up to a few hundred ms on a loaded machine.
    assert all(g >= hold - 300 for g in gaps), "closer than the hold-down: %d %s" % (ifindex, gaps)
    assert len(seq) <= most, "%d: %d notifications for a %d ms burst" % (ifindex, len(seq), burst)
first = sorted(seq[0][0] - t0 for seq in per.values())
last = max(seq[-1][0] for seq in per.values()) - t0
n = sum(len(s) for s in per.values())
print("%d notifications for %d rows in a %d ms burst; each row's first: "
      "median %d ms, max %d ms after the storm began; the last %d ms after"
      % (n, rows, burst, first[len(first) // 2], first[-1], last))
PY
	fail "the storm's notifications: $(tail -n 3 "$TMP/check.out")"
log "$(cat "$TMP/check.out")"
n=$(grep -c . "$TMP/links")
sent=$(($(snmp_value "$SENT") - sent0))
suppressed=$(($(snmp_value "$SUPPRESSED") - suppressed0))
lost=$(($(snmp_value "$LOST") - lost0))
log "statctrNotificationsSent +$sent, Suppressed +$suppressed, Lost +$lost; snmptrapd received $n"
[ "$sent" -eq "$n" ] || fail "statctrNotificationsSent grew by $sent, snmptrapd received $n"
[ $((sent + suppressed)) -eq $((changes * ROWS)) ] ||
	fail "Sent + Suppressed grew by $((sent + suppressed)), expected the $((changes * ROWS)) changes"
[ "$n" -gt "$ROWS" ] || fail "$n notifications: the hold-down never let a row's second one through"
[ "$lost" -eq 0 ] || fail "$lost notifications lost while attached"

log "GETs during the storm (agent; snmpd's sysUpTime.0): $(tr '\n' ';' <"$TMP/getlat.out")"
awk '$10 != 0 { exit 1 }' "$TMP/getlat.out" || fail "GETs failed during the storm"
p99=$(awk 'NR == 1 { print int($6) }' "$TMP/getlat.out")
ref=$(awk 'NR == 2 { print int($6) }' "$TMP/getlat.out")
[ "$(awk 'NR == 1 { print $2 }' "$TMP/getlat.out")" -ge 10 ] || fail "too few GETs during the storm"
# A GET through the agent waits for three wakeups (snmpd, the agent, snmpd
# again) where snmpd's own waits for one: at load 20, p99 320 ms against
# snmpd's 82 (2 of 3 loaded runs passed 100 + twice that).  The agent's
# threads also lose the CPU more often than snmpd's one: the fixed part is
# stretched by the load per CPU (fx_loaded; p99 619 ms against snmpd's 123
# at load 13 on 2 CPUs), as in tests/security/resetstorm.sh.  A storm that
# held requests back, as issue 21's did for seconds, is far above.
stretch=$(fx_loaded 1)
bound=$((P99_MS * stretch + 4 * ref))
[ "$p99" -lt "$bound" ] ||
	fail "GET p99 $p99 ms during the storm, snmpd's own $ref ms (bound $P99_MS ms x $stretch for the load + 4 times snmpd's = $bound ms; load $(cut -d' ' -f1-3 /proc/loadavg))"
log "OK (load $(cut -d' ' -f1-3 /proc/loadavg))"
