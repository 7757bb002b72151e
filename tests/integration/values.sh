#!/bin/bash
# Values through a real snmpd: GET, walk, bulkwalk, snmptable with the MIB,
# SNMPv3 authPriv and SNMPv1, each compared with the library's own snapshot
# (exact equality once the writer has stopped), gauges latched at both bounds;
# then, after a SIGHUP with agent.slot_table = false, the same values from
# sums-only passes and no statctrSlotTable.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/integration/fixture.sh"

fx_need snmpget snmpgetnext snmpwalk snmpbulkwalk snmptable
fx_config "interval_ms = 100; allow_reset = true;"
fx_snmpd
# Gauges set out of Gauge32's range: a negative level and one above 2^32-1.
fx_writer -t 2 -n 20000 -g totals.inFlight.0=-7 -g ifStats.queueDepth.1=5000000000 \
	-g ifStats.queueDepth.2=4294967295
fx_agent
fx_writer_settled
fx_wait_pass

reader_lines latch >"$TMP/expect"
[ "$(grep -c . "$TMP/expect")" -eq 162 ] || fail "reader printed $(grep -c . "$TMP/expect") cells, not 162"
grep -q '^totals.packets.all 40000$' "$TMP/expect" || fail "the writer did not count 40000 packets"

log "snmpwalk of statctrCellTable == reader"
cell_lines snmp_walk >"$TMP/walk"
same_lines "$TMP/expect" "$TMP/walk" "snmpwalk of statctrCellTable differs from the reader"

log "snmpbulkwalk of statctrData == reader"
bulk() { snmpbulkwalk $V2 -Cr25 "127.0.0.1:$PORT" "$@" | tr -d '"'; }
data_lines bulk >"$TMP/bulk"
same_lines "$TMP/expect" "$TMP/bulk" "snmpbulkwalk of statctrData differs from the reader"

log "gauges latched at both bounds"
[ "$(snmp_value "$DATA.3.1.12.1")" = 0 ] || fail "inFlight at -7 is not latched at 0"
[ "$(snmp_value "$DATA.1.1.15.2")" = 4294967295 ] || fail "queueDepth at 5e9 not latched"
[ "$(snmp_value "$DATA.1.1.15.3")" = 4294967295 ] || fail "queueDepth at 2^32-1 changed"
# statctrCellGauge64 (CounterBasedGauge64) keeps 64 bits, negative -> 0.
cell=$(snmp_walk "$ROOT.1.3.1.3" | awk '$2 == "queueDepth" { n++ } n == 2 { print $1; exit }')
cell=${cell##*.}
[ "$(snmp_value "$ROOT.1.3.1.10.1.$cell")" = 5000000000 ] || fail "Gauge64 of queueDepth.dp1"

log "snmpget of single instances"
want=$(grep '^totals.octets.all ' "$TMP/expect" | cut -d' ' -f2)
[ "$(snmp_value "$DATA.3.1.11.1")" = "$want" ] || fail "snmpget totals.octets"
snmp_get "$DATA.3.1.10.2" | grep -q 'No Such Instance' || fail "row 2 of totals exists"
snmp_get "$DATA.3.1.9.1" | grep -q 'No Such Object' || fail "column 9 exists"

log "GETNEXT from partial, over-long and out-of-range OIDs"
next_is() {
	local got
	got=$(snmpgetnext $V2 "127.0.0.1:$PORT" "$1" | cut -d' ' -f1)
	[ "$got" = "$2" ] || fail "GETNEXT $1 gave $got, expected $2"
}
next_is "$DATA.1" "$DATA.1.1.2.1"
next_is "$DATA.1.1.10" "$DATA.1.1.10.1"
next_is "$DATA.1.1.10.4" "$DATA.1.1.11.1"
next_is "$DATA.1.1.10.1.5.6" "$DATA.1.1.10.2"
next_is "$DATA.1.1.10.4294967295" "$DATA.1.1.11.1"
next_is "$DATA.1.1.5" "$DATA.1.1.10.1"
next_is "$DATA.1.1.16.4" "$DATA.2.1.2.1"
next_is "$ROOT" "$ROOT.1.1.1.0"
next_is "$ROOT.1.1.9.0" "$ROOT.1.1.10.0"
next_is "$ROOT.1.1.10.0" "$ROOT.1.1.11.0"
# statctrResetFirstCell and statctrResetCells (.14, .15) are accessible-for-notify: not served.
next_is "$ROOT.1.1.13.0" "$ROOT.1.2.1.2.1"
next_is "$ROOT.1.2.1.12.1" "$ROOT.1.2.1.13.1"
next_is "$ROOT.1.2.1.15.1" "$ROOT.1.3.1.2.1.1"
next_is "$ROOT.1.3.1.9" "$ROOT.1.3.1.9.1.6"
next_is "$ROOT.1.3.1.9.1.6" "$ROOT.1.3.1.9.1.7"
next_is "$ROOT.1.3.1.8.1.5" "$ROOT.1.3.1.8.1.8"
next_is "$ROOT.1.3.1.12.0.4294967295" "$ROOT.1.3.1.12.1.1"
next_is "$ROOT.1.4.1.3.1.6.5" "$ROOT.1.4.1.3.1.7.1"
next_is "$ROOT.1.4.1.3.1.159.5" "$ROOT.1.4.1.4.1.1.1" # statctrSlotName of the first cell
next_is "$ROOT.1.4.1.4.1.159.5" "$DATA.1.1.2.1"

log "snmptable with STATCTR-MIB loaded"
smi=$("$top_srcdir/scripts/get-smi-mibs.sh" 2>"$TMP/smi.log") || skip "SMI modules unavailable: $(cat "$TMP/smi.log")"
MIBOPTS="-M +$top_srcdir/mib:$smi -m STATCTR-MIB"
snmptable $MIBOPTS -v2c -c "$COMMUNITY" -Cf '|' -CH -Cb "127.0.0.1:$PORT" \
	STATCTR-MIB::statctrCellTable >"$TMP/table" 2>"$TMP/table.err" || fail "snmptable: $(cat "$TMP/table.err")"
awk -F'|' '$1 != "" { print $1 "." $2 "." $3, ($7 != "?" ? $7 : $8) }' "$TMP/table" | sort >"$TMP/table.lines"
same_lines "$TMP/expect" "$TMP/table.lines" "snmptable statctrCellTable differs from the reader"
snmptable $MIBOPTS -v2c -c "$COMMUNITY" -Cf '|' -CH -Cb "127.0.0.1:$PORT" \
	STATCTR-MIB::statctrSegmentTable >"$TMP/segs" 2>&1 || fail "snmptable segments"
grep -q "^dataplane|$TMP/dataplane|active|" "$TMP/segs" || fail "segment row: $(cat "$TMP/segs")"

log "SNMPv3 authPriv"
v3=(-v3 -l authPriv -u "$V3USER" -a SHA -A "$V3AUTH" -x AES -X "$V3PRIV" -On -Oqv -t 2 -r 1)
[ "$(snmpget "${v3[@]}" "127.0.0.1:$PORT" "$DATA.3.1.11.1")" = "$want" ] || fail "v3 get"
snmpwalk "${v3[@]}" "127.0.0.1:$PORT" "$DATA" | grep -c . >"$TMP/v3n"
[ "$(cat "$TMP/v3n")" -eq $(($(snmp_walk "$DATA" | grep -c .))) ] || fail "v3 walk length"
snmpget -v3 -l authPriv -u "$V3USER" -a SHA -A wrong-password -x AES -X "$V3PRIV" -t 1 -r 0 \
	"127.0.0.1:$PORT" "$DATA.3.1.11.1" >/dev/null 2>&1 && fail "v3 with a wrong key answered"

log "SNMPv1: Counter64 -> noSuchName, walks skip it, Gauge32 works"
v1="-v1 -c $COMMUNITY -On -Oq -t 2 -r 1 127.0.0.1:$PORT"
snmpget $v1 "$DATA.3.1.11.1" 2>&1 | grep -q noSuchName || fail "v1 GET of a Counter64"
[ "$(snmpget $v1 -Ov "$DATA.1.1.15.2")" = 4294967295 ] || fail "v1 GET of a Gauge32"
snmpwalk $v1 "$DATA.3" >"$TMP/v1walk" || fail "v1 walk"
grep -q "^$DATA.3.1.12.1 0$" "$TMP/v1walk" || fail "v1 walk lacks the gauge"
grep -q "^$DATA.3.1.1[01]\." "$TMP/v1walk" && fail "v1 walk shows a Counter64"

log "agent.slot_table = false (SIGHUP): no statctrSlotTable, the same values"
slot_rows() { snmp_walk "$ROOT.1.4" | grep -c . || true; }
[ "$(slot_rows)" -gt 0 ] || fail "statctrSlotTable is empty with slot_table at its default"
sed -i 's/^agent = { /agent = { slot_table = false; /' "$TMP/statctr.conf"
reloaded() { [ "$(grep -c 'SIGHUP: configuration .* reloaded' "$TMP/agent.log")" -gt 0 ]; }
reloaded && fail "a reload was logged before the SIGHUP"
kill -HUP "$AGENT_PID"
fx_wait 10 reloaded || fail "the agent did not reload its configuration within 10 s"
fx_wait 5 fx_agent_answers || fail "the agent did not answer after the SIGHUP"
fx_wait_pass
[ "$(slot_rows)" -eq 0 ] || fail "statctrSlotTable still has $(slot_rows) instances after the SIGHUP"
cell_lines snmp_walk >"$TMP/walk.sums"
same_lines "$TMP/expect" "$TMP/walk.sums" "statctrCellTable from sums-only passes differs from the reader"
snmp_get "$ROOT.1.4.1.3.1.6.1" | grep -q 'No Such Instance' || fail "a slot instance is served"
next_is "$ROOT.1.4" "$DATA.1.1.2.1"

log "pass"
exit 0
