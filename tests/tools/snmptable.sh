#!/bin/bash
# The generated MIB against the running agent: snmptable names the columns
# of the config's tables and shows the library's values, and a reset made
# with statctl is seen over SNMP.  Uses the integration tests' fixture
# (real snmpd, statctr-agentx, examples/pipeline).
top_srcdir=${top_srcdir:-${srcdir:-.}}
top_builddir=${top_builddir:-.}
. "$top_srcdir/tests/integration/fixture.sh"
STATCTL=$top_builddir/tools/statctl

fx_need snmpget snmptable
[ -x "$STATCTL" ] || skip "$STATCTL not built"
smi=$("$top_srcdir/scripts/get-smi-mibs.sh" 2>"$TMP/smi.log") || skip "SMI modules unavailable: $(cat "$TMP/smi.log")"
fx_config "interval_ms = 100; allow_reset = true;"
mkdir "$TMP/mibs"
"$STATCTL" mib "$TMP/statctr.conf" -o "$TMP/mibs/STATCTR-DATAPLANE-MIB.txt" || fail "statctl mib"
MIBOPTS="-M +$top_srcdir/mib:$smi:$TMP/mibs -m STATCTR-DATAPLANE-MIB"

fx_snmpd
fx_writer -t 2 -n 3000 -g ifStats.queueDepth.0=42
fx_agent
fx_writer_settled
fx_wait_pass

# table NAME: snmptable's "row|column|...|value" lines under brief headers.
table() {
	snmptable $MIBOPTS -OU -v2c -c "$COMMUNITY" -Cf '|' -Cb -Ci "127.0.0.1:$PORT" \
		"STATCTR-DATAPLANE-MIB::$1" 2>"$TMP/table.err" | grep -v '^SNMP table\|^$' ||
		fail "snmptable $1: $(cat "$TMP/table.err")"
}

log "snmptable names the declared columns"
table dataplaneIfStatsTable >"$TMP/if.table"
header=$(head -n 1 "$TMP/if.table")
want="index|RowName|Discontinuity|Reset|RxPackets|RxOctets|TxPackets|TxOctets|Drops|QueueDepth|Speed"
[ "$header" = "$want" ] || fail "snmptable header is '$header', not '$want'"

log "snmptable values == reader"
# "table.column.row value" from the table, in the reader's form.
tail -n +2 "$TMP/if.table" | tr -d '"' | awk -F'|' -v cols="$header" '
	BEGIN { n = split(cols, c, "|") }
	{ for (i = 5; i <= n; i++) print "ifStats." tolower(substr(c[i], 1, 1)) substr(c[i], 2) "." $2, $i }' |
	sort >"$TMP/if.lines"
reader_lines latch | grep '^ifStats\.' >"$TMP/if.expect"
same_lines "$TMP/if.expect" "$TMP/if.lines" "snmptable dataplaneIfStatsTable differs from the reader"
grep -q '^ifStats.queueDepth.dp0 42$' "$TMP/if.lines" || fail "the gauge set to 42 is not 42"
grep -q '^ifStats.rxPackets.dp0 0$' "$TMP/if.lines" && fail "dp0 counted nothing: no test"

log "a reset through statctl is seen over SNMP"
"$STATCTL" -c "$TMP/statctr.conf" reset dataplane ifStats dp0 >"$TMP/reset.out" ||
	fail "statctl reset: $(cat "$TMP/reset.out")"
fx_wait_pass
get() { snmpget $MIBOPTS -OU -v2c -c "$COMMUNITY" -Oqv "127.0.0.1:$PORT" "STATCTR-DATAPLANE-MIB::$1"; }
[ "$(get dataplaneIfStatsRxPackets.1)" = 0 ] || fail "rxPackets of dp0 is not 0 after the reset"
[ "$(get dataplaneIfStatsQueueDepth.1)" = 42 ] || fail "the reset changed a gauge"
want=$(grep '^ifStats.rxPackets.dp1 ' "$TMP/if.expect" | cut -d' ' -f2)
[ "$(get dataplaneIfStatsRxPackets.2)" = "$want" ] || fail "the reset changed dp1"
[ "$(snmpget $MIBOPTS -v2c -c "$COMMUNITY" -Oqvt "127.0.0.1:$PORT" \
	STATCTR-DATAPLANE-MIB::dataplaneIfStatsDiscontinuity.1)" != 0 ] ||
	fail "the discontinuity time of dp0 did not move"
log "all passed"
