#!/bin/bash
# Histograms through a real snmpd (docs/agent.md, "Histograms"): the bucket
# and summary tables of statctrHistograms.S.T.(10+i) hold the exact
# cumulative counts, bounds, counts and sums the writer recorded, in a
# strictly increasing walk (snmpwalk, snmpbulkwalk and snmptable agree);
# the declared table's histogram column and statctrCellCounter are the
# count, statctrCellKind is histogram(3), bucket cells are no cells and
# histograms have no slot rows; a dynamic table serves its present rows
# only; row, cell and segment resets zero buckets, count and sum together
# and later records count from zero; SETs of histogram objects are refused;
# a segment whose bounds differ from the agent's configuration is
# incompatible(5) and not served.
#
# The writer is tests/integration/hist_writer (its header lists the values).
. "${top_srcdir:-$(dirname "$0")/../..}/tests/integration/fixture.sh"

fx_need snmpget snmpgetnext snmpwalk snmpbulkwalk snmpset snmptable
HIST_WRITER=$top_builddir/tests/integration/hist_writer
STATCTL=$top_builddir/tools/statctl
[ -x "$HIST_WRITER" ] || skip "tests/integration/hist_writer not built (make check builds it)"
[ -x "$STATCTL" ] || skip "tools/statctl not built"

S=5                    # the segment's oid
D=$ROOT.3.$S.1         # requests: calls .10, latency .11, depth .12
H=$ROOT.4.$S.1.11      # requests.latency: buckets .1.1.c.row.bucket, summary .2.1.c.row
W=$ROOT.4.$S.2.10      # sessions.wait
CELLS=$ROOT.1.3.1      # statctrCellEntry
cat >"$TMP/statctr.conf" <<EOF
segments = ( {
  name = "hist"; oid = $S; slots = 1; path = "$TMP/hist";
  tables = ( {
    name = "requests"; oid = 1; rows = [ "get", "put" ];
    columns = (
      { name = "calls"; kind = "counter"; },
      { name = "latency"; kind = "histogram"; units = "us"; buckets = [ 1, 2, 5, 10 ]; },
      { name = "depth"; kind = "gauge"; } );
  }, {
    name = "sessions"; oid = 2; rows = { max = 4; };
    columns = ( { name = "wait"; kind = "histogram"; units = "ms"; buckets = [ 10, 100 ]; } );
  } );
} );
agent = { interval_ms = 100; allow_reset = true; };
EOF

# snmptable needs the generated module and the SMI modules it imports.
smi=$("$top_srcdir/scripts/get-smi-mibs.sh" 2>"$TMP/smi.log") ||
	skip "SMI base modules unavailable: $(cat "$TMP/smi.log")"
mkdir "$TMP/mibs"
"$STATCTL" mib "$TMP/statctr.conf" -o "$TMP/mibs/STATCTR-HIST-MIB.txt" || fail "statctl mib"

fx_snmpd
"$HIST_WRITER" -c "$TMP/statctr.conf" -s hist >"$TMP/writer.log" 2>&1 &
WRITER_PID=$!
fx_track "$WRITER_PID"
fx_wait 5 grep -q '^recorded 1$' "$TMP/writer.log" || fail "hist_writer did not record"
fx_agent
fx_wait_pass

# The expected walk of one histogram: "OID value" for the bound column,
# the cumulative count column, count and sum.  $1: the histogram's node;
# then per row "INDEX BOUNDS CUMULATIVE COUNT SUM", lists comma-separated.
expect_hist() {
	local node=$1
	shift
	printf '%s\n' "$@" | awk -v n="$node" '
		{ idx[NR] = $1; b[NR] = $2; c[NR] = $3; cnt[NR] = $4; sum[NR] = $5 }
		END {
			for (col = 2; col <= 3; col++)
				for (r = 1; r <= NR; r++) {
					k = split(col == 2 ? b[r] : c[r], v, ",")
					for (i = 1; i <= k; i++) print n ".1.1." col "." idx[r] "." i, v[i]
				}
			for (r = 1; r <= NR; r++) print n ".2.1.1." idx[r], cnt[r]
			for (r = 1; r <= NR; r++) print n ".2.1.2." idx[r], sum[r]
		}'
}

LATENCY_BOUNDS=1,2,5,10,+Inf
WAIT_BOUNDS=10,100,+Inf
recorded_once() {
	expect_hist "$H" "1 $LATENCY_BOUNDS 3,4,6,8,10 10 139" \
		"2 $LATENCY_BOUNDS 0,0,0,3,4 4 5000000021"
	expect_hist "$W" "2 $WAIT_BOUNDS 1,2,3 3 555"
}

# Every instance under statctrHistograms of the segment, as walked ($1: snmpwalk or snmpbulkwalk).
walk_hist() {
	"$1" $V2 "127.0.0.1:$PORT" "$ROOT.4.$S" | tr -d '"' | grep -F "$ROOT.4.$S." || true
}

check_walks() {
	"$1" >"$TMP/expect"
	walk_hist snmpwalk >"$TMP/walk"
	cmp -s "$TMP/expect" "$TMP/walk" || {
		diff -u "$TMP/expect" "$TMP/walk" | head -n 40 >&2
		fail "$2: the walk of statctrHistograms differs (values or order)"
	}
	walk_hist snmpbulkwalk >"$TMP/bulk"
	cmp -s "$TMP/walk" "$TMP/bulk" || fail "$2: snmpbulkwalk differs from snmpwalk"
}

log "walks: exact cumulative counts, bounds, counts and sums, in OID order"
check_walks recorded_once "after one record"
python3 - "$TMP/walk" <<'PY' || fail "the walk is not strictly increasing"
import sys
oids = [tuple(int(x) for x in l.split()[0].strip('.').split('.')) for l in open(sys.argv[1])]
sys.exit(0 if all(a < b for a, b in zip(oids, oids[1:])) and len(oids) == 32 else 1)
PY

log "GET of each column; +Inf == count == the declared column; absent rows and buckets"
while read -r oid want; do
	got=$(snmp_value "$oid")
	[ "$got" = "$want" ] || fail "GET $oid gave '$got', expected '$want'"
done <<EOF
$H.1.1.2.1.1 1
$H.1.1.2.2.4 10
$H.1.1.2.1.5 +Inf
$H.1.1.3.1.3 6
$H.1.1.3.1.5 10
$H.1.1.3.2.5 4
$H.2.1.1.1 10
$H.2.1.2.1 139
$H.2.1.2.2 5000000021
$D.1.11.1 10
$D.1.11.2 4
$D.1.10.1 10
$W.1.1.3.2.3 3
$W.2.1.2.2 555
$ROOT.3.$S.2.1.10.2 3
EOF
for oid in "$H.1.1.3.1.6" "$H.1.1.3.1.0" "$H.1.1.3.3.1" "$H.2.1.1.3" "$W.1.1.3.1.1" \
	"$W.2.1.1.1" "$W.1.1.3.2.4"; do
	snmp_get "$oid" | grep -q 'No Such Instance' || fail "GET $oid: $(snmp_get "$oid")"
done
snmp_get "$H.1.1.1.1.1" | grep -q 'No Such Object' || fail "the bucket index is accessible"
while read -r from want; do
	got=$(snmpgetnext $V2 "127.0.0.1:$PORT" "$from" | cut -d' ' -f1)
	[ "$got" = "$want" ] || fail "GETNEXT $from gave $got, expected $want"
done <<EOF
$H $H.1.1.2.1.1
$H.1.1.2.1.5 $H.1.1.2.2.1
$H.1.1.2.2.5 $H.1.1.3.1.1
$H.1.1.3.2.5 $H.2.1.1.1
$H.1.1.3.1.99 $H.1.1.3.2.1
$W.1.1.2 $W.1.1.2.2.1
$W.1.1.2.1.7 $W.1.1.2.2.1
$W.2.1.1.2 $W.2.1.2.2
EOF

log "snmptable of the generated module's bucket and summary tables"
table() {
	snmptable -v2c -c "$COMMUNITY" -OU -M "+$TMP/mibs:$top_srcdir/mib:$smi" -m +STATCTR-HIST-MIB \
		-Cf , -Ci -CH "127.0.0.1:$PORT" "STATCTR-HIST-MIB::$1" 2>"$TMP/table.err"
}
[ "$(table histRequestsLatencyBucketTable | tr '\n' ' ')" = \
	"1.1,1,3 1.2,2,4 1.3,5,6 1.4,10,8 1.5,+Inf,10 2.1,1,0 2.2,2,0 2.3,5,0 2.4,10,3 2.5,+Inf,4 " ] ||
	fail "snmptable of the bucket table: $(table histRequestsLatencyBucketTable) $(cat "$TMP/table.err")"
[ "$(table histRequestsLatencySummaryTable | tr '\n' ' ')" = "1,10,139 2,4,5000000021 " ] ||
	fail "snmptable of the summary table: $(table histRequestsLatencySummaryTable)"
[ "$(table histSessionsWaitSummaryTable | tr '\n' ' ')" = "2,3,555 " ] ||
	fail "snmptable of the dynamic summary table: $(table histSessionsWaitSummaryTable)"

log "statctrCellTable: kind histogram(3), counter = count; bucket cells are no cells"
# Cells: requests get 0..2, put 3..5; sessions rows 0..3 at 6..9 (beta, row 1: 7);
# the bucket blocks (28 cells: a sum and the buckets each) follow and have no row.
[ "$(snmp_value "$ROOT.1.2.1.6.$S")" = 38 ] || fail "statctrSegmentCells is not 38"
[ "$(snmp_walk "$CELLS.5.$S" | sed "s|^$CELLS.5.$S.||" | tr '\n' ' ')" = \
	"1 1 2 3 3 2 4 1 5 3 6 2 8 3 " ] || fail "cell kinds: $(snmp_walk "$CELLS.5.$S")"
[ "$(snmp_walk "$CELLS.8.$S" | sed "s|^$CELLS.8.$S.||" | tr '\n' ' ')" = \
	"1 10 2 10 4 4 5 4 8 3 " ] || fail "cell counters: $(snmp_walk "$CELLS.8.$S")"
[ "$(snmp_walk "$CELLS.12.$S" | sed "s|^$CELLS.12.$S.||" | cut -d' ' -f1 | tr '\n' ' ')" = \
	"1 2 4 5 8 " ] || fail "reset instances: $(snmp_walk "$CELLS.12.$S")"
log "statctrSlotTable: counters only, histograms have no slot rows"
[ "$(snmp_walk "$ROOT.1.4.1.2.$S" | sed "s|^$ROOT.1.4.1.2.$S.||" | cut -d' ' -f1 | tr '\n' ' ')" = \
	"1.1 1.2 4.1 4.2 " ] || fail "slot counters: $(snmp_walk "$ROOT.1.4.1.2.$S")"
# statctrSlotName: for the counters and the gauges, not the histograms.
[ "$(snmp_walk "$ROOT.1.4.1.4.$S" | sed "s|^$ROOT.1.4.1.4.$S.||" | cut -d' ' -f1 | tr '\n' ' ')" = \
	"1.1 1.2 3.1 3.2 4.1 4.2 6.1 6.2 " ] || fail "slot names: $(snmp_walk "$ROOT.1.4.1.4.$S")"

log "SETs of histogram objects are refused; wrong types and values of the resets too"
fx_expect_set notWritable "$H.1.1.3.1.1" i 2
fx_expect_set notWritable "$H.1.1.2.1.1" s 7
fx_expect_set notWritable "$H.2.1.1.1" i 2
fx_expect_set notWritable "$H.2.1.2.1" u 0
fx_expect_set notWritable "$D.1.11.1" i 2
fx_expect_set wrongType "$D.1.4.1" s reset
fx_expect_set wrongType "$CELLS.12.$S.2" u 2
fx_expect_set wrongValue "$CELLS.12.$S.2" i 3
check_walks recorded_once "after refused SETs"

log "row reset of get: its buckets, count and sum zero; put untouched"
before=$(snmp_value "$D.1.3.1")
sleep 0.05
fx_expect_set ok "$D.1.4.1" i 2
reset_get() {
	expect_hist "$H" "1 $LATENCY_BOUNDS 0,0,0,0,0 0 0" \
		"2 $LATENCY_BOUNDS 0,0,0,3,4 4 5000000021"
	expect_hist "$W" "2 $WAIT_BOUNDS 1,2,3 3 555"
}
check_walks reset_get "after the row reset"
[ "$(snmp_value "$D.1.11.1")" = 0 ] || fail "the declared column of get is not 0"
[ "$(snmp_value "$D.1.10.1")" = 0 ] || fail "the row reset left calls of get"
[ "$(snmp_value "$D.1.3.1")" -gt "$before" ] || fail "no discontinuity stamped on get"

log "cell reset of put's histogram (statctrCellReset): the whole histogram"
fx_expect_set ok "$CELLS.12.$S.5" i 2
reset_both() {
	expect_hist "$H" "1 $LATENCY_BOUNDS 0,0,0,0,0 0 0" "2 $LATENCY_BOUNDS 0,0,0,0,0 0 0"
	expect_hist "$W" "2 $WAIT_BOUNDS 1,2,3 3 555"
}
check_walks reset_both "after the cell reset"
[ "$(snmp_value "$D.1.10.2")" = 4 ] || fail "the cell reset of put's latency touched its calls"

log "dynamic row reset of beta"
fx_expect_set ok "$ROOT.3.$S.2.1.4.2" i 2
all_zero() {
	expect_hist "$H" "1 $LATENCY_BOUNDS 0,0,0,0,0 0 0" "2 $LATENCY_BOUNDS 0,0,0,0,0 0 0"
	expect_hist "$W" "2 $WAIT_BOUNDS 0,0,0 0 0"
}
check_walks all_zero "after the dynamic row reset"

log "records after the resets count from zero"
kill -USR1 "$WRITER_PID"
fx_wait 5 grep -q '^recorded 2$' "$TMP/writer.log" || fail "hist_writer did not record again"
fx_wait_pass
check_walks recorded_once "after a second record"

log "segment reset: every histogram"
fx_expect_set ok "$ROOT.1.2.1.12.$S" i 2
check_walks all_zero "after the segment reset"
[ "$(snmp_value "$CELLS.8.$S.5")" = 0 ] || fail "statctrCellCounter of put's histogram"

log "other bounds in the agent's configuration (SIGHUP): incompatible(5), nothing served"
status() { snmp_value "$ROOT.1.2.1.4.$S"; }
incompatible() { [ "$(status)" = 5 ]; }
[ "$(status)" = 1 ] || fail "statctrSegmentStatus is $(status) before the SIGHUP, not active(1)"
sed -i 's/buckets = \[ 1, 2, 5, 10 \]/buckets = [ 1, 2, 5, 20 ]/' "$TMP/statctr.conf"
kill -HUP "$AGENT_PID"
fx_wait 5 incompatible || fail "statctrSegmentStatus is $(status), not incompatible(5)"
[ -z "$(walk_hist snmpwalk)" ] || fail "an incompatible segment's histograms are served"
log "pass"
exit 0
