#!/bin/bash
# CPU slots through a real snmpd (docs/agent.md, R.1.4): statctrSlotTable
# lists a segment's CPU slots after its shared slot (statctrSlotIndex
# statctrSegmentSlots + 2 + k), their counts and gauge deltas add up with
# the other slots to statctrCellCounter and the level, statctrSlotName names
# them cpuN as statctl does (the writer slot 0, then shared), and a cell
# reset over SNMP takes them into its baseline.
#
# The writer is tests/tools/cpu_rec (its header lists the values: t.n
# 10000 from CPU adds plus 5 through the thread slot, t.level 5).
. "${top_srcdir:-$(dirname "$0")/../..}/tests/integration/fixture.sh"

fx_need snmpget snmpwalk snmpset
CPU_REC=$top_builddir/tests/tools/cpu_rec
[ -x "$CPU_REC" ] || skip "tests/tools/cpu_rec not built (make check builds it)"
ncpus=$(getconf _NPROCESSORS_CONF)

S=6               # the segment's oid
SLOTS=$ROOT.1.4.1 # statctrSlotEntry: .2 counter, .3 gauge delta; .S.cell.slot
CELLS=$ROOT.1.3.1 # statctrCellEntry: .8 counter, .10 gauge64, .12 reset
cat >"$TMP/statctr.conf" <<CONF
segments = ( {
  name = "cpu"; oid = $S; slots = 1; cpu_slots = true; path = "$TMP/cpu";
  tables = ( { name = "t"; oid = 1; rows = 1;
    columns = ( { name = "n"; kind = "counter"; }, { name = "level"; kind = "gauge"; } ); } );
} );
agent = { interval_ms = 100; allow_reset = true; };
CONF

fx_snmpd
"$CPU_REC" "$TMP/statctr.conf" cpu >"$TMP/writer.log" 2>&1 &
WRITER_PID=$!
fx_track "$WRITER_PID"
fx_wait 5 grep -q '^ready' "$TMP/writer.log" || fail "cpu_rec did not start: $(cat "$TMP/writer.log")"
fx_agent
fx_wait_pass

# Slot indexes of cell 1 (t.n): 1 (thread slot), 2 (shared), 3 .. 2 + ncpus.
want_index=$(seq 1 $((2 + ncpus)) | tr '\n' ' ')
got_index=$(snmp_walk "$SLOTS.2.$S.1" | sed "s|^$SLOTS.2.$S.1.||" | cut -d' ' -f1 | tr '\n' ' ')
[ "$got_index" = "$want_index" ] || fail "slot indexes of t.n: '$got_index', expected '$want_index'"
log "statctrSlotTable lists $ncpus CPU slots after the shared slot"
want_names="0 shared $(seq 0 $((ncpus - 1)) | sed 's/^/cpu/' | tr '\n' ' ')"
for cell in 1 2; do
	got_names=$(snmp_walk "$SLOTS.4.$S.$cell" | cut -d' ' -f2- | tr -d '"' | tr '\n' ' ')
	[ "$got_names" = "$want_names" ] || fail "statctrSlotName of cell $cell: '$got_names', expected '$want_names'"
done
log "statctrSlotName: $want_names"

sum=$(snmp_walk "$SLOTS.2.$S.1" | awk '{ s += $2 } END { print s }')
[ "$sum" = 10005 ] || fail "t.n's slots add up to $sum, not 10005"
cpu_sum=$(snmp_walk "$SLOTS.2.$S.1" |
	awk -v f="$SLOTS.2.$S.1." '{ i = substr($1, length(f) + 1); if (i + 0 > 2) s += $2 } END { print s }')
[ "$cpu_sum" = 10000 ] || fail "t.n's CPU slots hold $cpu_sum, not 10000"
[ "$(snmp_value "$CELLS.8.$S.1")" = 10005 ] || fail "statctrCellCounter of t.n: $(snmp_value "$CELLS.8.$S.1")"
deltas=$(snmp_walk "$SLOTS.3.$S.2" | awk '{ s += $2 } END { print s }')
[ "$deltas" = 5 ] || fail "t.level's slot deltas add up to $deltas, not 5"
[ "$(snmp_value "$CELLS.10.$S.2")" = 5 ] || fail "statctrCellGauge64 of t.level: $(snmp_value "$CELLS.10.$S.2")"
log "the CPU slots add up with the others: counter 10005, level 5"

fx_expect_set ok "$CELLS.12.$S.1" i 2
fx_wait_pass
[ "$(snmp_value "$CELLS.8.$S.1")" = 0 ] || fail "t.n after its reset: $(snmp_value "$CELLS.8.$S.1")"
log "a cell reset covers the CPU slots"
log "pass"
exit 0
