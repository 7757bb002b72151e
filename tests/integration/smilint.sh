#!/bin/bash
# Every shipped MIB, and a module statctl generates for histogram columns,
# passes `smilint -l 6` silently (smilint always exits 0,
# so its output is what counts), with SMI base modules from
# scripts/get-smi-mibs.sh; Net-SNMP's snmptranslate loads it too.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/integration/fixture.sh"

[ -n "$SMILINT" ] && [ -x "$SMILINT" ] || skip "smilint not found (Debian: apt-get install smitools)"
command -v snmptranslate >/dev/null || skip "snmptranslate not found (Debian: apt-get install snmp)"
smi=$("$top_srcdir/scripts/get-smi-mibs.sh" 2>"$TMP/smi.log") ||
	skip "SMI base modules unavailable: $(cat "$TMP/smi.log")"
netsnmp_mibs=$(net-snmp-config --default-mibdirs 2>/dev/null || echo /usr/share/snmp/mibs)

for mib in "$top_srcdir"/mib/*.txt; do
	log "smilint -l 6 -s -m $(basename "$mib")"
	SMIPATH="$smi:$top_srcdir/mib:$netsnmp_mibs" "$SMILINT" -l 6 -s -m "$mib" >"$TMP/lint.out" 2>&1
	if [ -s "$TMP/lint.out" ]; then
		cat "$TMP/lint.out" >&2
		fail "smilint complained about $(basename "$mib")"
	fi
done

# The tool is not silent on a broken module: the check above can fail.
sed 's/statctrSlotGaugeDelta  DisplayString/statctrSlotGaugeDelta  Gauge32/' \
	"$top_srcdir/mib/STATCTR-MIB.txt" >"$TMP/STATCTR-MIB.txt"
SMIPATH="$smi:$netsnmp_mibs" "$SMILINT" -l 6 -s -m "$TMP/STATCTR-MIB.txt" 2>&1 |
	grep -q sequence-type-mismatch || fail "smilint did not notice a broken copy"

# A generated module with histogram columns (a static and a dynamic table,
# units, exponential bounds, a long name) and epochs (interval tables) is
# smilint-silent too.
STATCTL=$top_builddir/tools/statctl
[ -x "$STATCTL" ] || skip "tools/statctl not built"
mkdir "$TMP/gen"
cat >"$TMP/hist.conf" <<'EOF'
segments = ( {
  name = "svc"; oid = 7; epochs = { keep = 96; interval_s = 900; };
  tables = ( {
    name = "requests"; oid = 1; rows = [ "get", "put" ];
    columns = (
      { name = "calls"; kind = "counter"; },
      { name = "latency"; kind = "histogram"; units = "us"; buckets = [ 1, 2, 5, 10 ]; },
      { name = "a_histogram_column_with_a_name_long_enough_to_be_shortened";
        kind = "histogram"; buckets = { start = 1; factor = 2; count = 64; }; } );
  }, {
    name = "sessions"; oid = 2; rows = { max = 4; };
    columns = ( { name = "wait"; kind = "histogram"; units = "ms"; buckets = [ 10 ]; } );
  } );
} );
EOF
"$STATCTL" mib "$TMP/hist.conf" -o "$TMP/gen/STATCTR-SVC-MIB.txt" || fail "statctl mib of hist.conf"
log "smilint -l 6 -s -m STATCTR-SVC-MIB (histograms)"
SMIPATH="$smi:$top_srcdir/mib:$netsnmp_mibs" "$SMILINT" -l 6 -s -m "$TMP/gen/STATCTR-SVC-MIB.txt" \
	>"$TMP/lint.out" 2>&1
if [ -s "$TMP/lint.out" ]; then
	cat "$TMP/lint.out" >&2
	fail "smilint complained about the generated histogram module"
fi
long=$(grep -o '^svcRequestsAHistogram[A-Za-z0-9]*BucketTable' "$TMP/gen/STATCTR-SVC-MIB.txt" |
	grep -v 'IntervalBucketTable$')
[ -n "$long" ] && [ "${#long}" -le 64 ] || fail "long bucket table descriptor: '$long'"

log "snmptranslate resolves the layout"
tr() { snmptranslate -M "+$top_srcdir/mib:$smi" -m STATCTR-MIB "$@" 2>"$TMP/tr.err"; }
[ "$(tr -On STATCTR-MIB::statctrData)" = "$ROOT.3" ] || fail "statctrData: $(cat "$TMP/tr.err")"
[ "$(tr -On STATCTR-MIB::statctrCellCounter)" = "$ROOT.1.3.1.8" ] || fail "statctrCellCounter"
[ "$(tr -On STATCTR-MIB::statctrSegmentReset)" = "$ROOT.1.2.1.12" ] || fail "statctrSegmentReset"
[ "$(tr -On STATCTR-MIB::statctrHistograms)" = "$ROOT.4" ] || fail "statctrHistograms"
[ "$(tr -On STATCTR-MIB::statctrIntervals)" = "$ROOT.5" ] || fail "statctrIntervals"
[ "$(tr -On STATCTR-MIB::statctrRowsByName)" = "$ROOT.6" ] || fail "statctrRowsByName"
[ "$(tr -On STATCTR-MIB::statctrSegmentEpochStart)" = "$ROOT.1.2.1.13" ] ||
	fail "statctrSegmentEpochStart"
[ "$(tr -On STATCTR-MIB::statctrEpochValid)" = "$ROOT.1.5.1.5" ] || fail "statctrEpochValid"
[ ! -s "$TMP/tr.err" ] || fail "snmptranslate warned: $(cat "$TMP/tr.err")"
gtr() {
	snmptranslate -M "+$top_srcdir/mib:$smi:$TMP/gen" -m STATCTR-SVC-MIB -On \
		"STATCTR-SVC-MIB::$1" 2>"$TMP/tr.err"
}
while read -r name want; do
	[ "$(gtr "$name")" = "$ROOT$want" ] || fail "$name: $(gtr "$name") $(cat "$TMP/tr.err")"
done <<EOF
svcRequestsLatency .3.7.1.1.11
svcRequestsLatencyBucketBound .4.7.1.11.1.1.2
svcRequestsLatencyBucketCount .4.7.1.11.1.1.3
svcRequestsLatencyCount .4.7.1.11.2.1.1
svcRequestsLatencySum .4.7.1.11.2.1.2
svcSessionsWaitBucketCount .4.7.2.10.1.1.3
$long .4.7.1.12.1
svcRequestsIntervalValid .5.7.1.1.2
svcRequestsCallsInterval .5.7.1.1.10
svcRequestsLatencyInterval .5.7.1.1.11
svcSessionsWaitInterval .5.7.2.1.10
svcRequestsLatencyIntervalBucketCount .4.7.1.11.3.1.1
svcSessionsWaitIntervalBucketCount .4.7.2.10.3.1.1
EOF
log "pass"
exit 0
