#!/bin/bash
# Every shipped MIB passes `smilint -l 6` silently (smilint always exits 0,
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

log "snmptranslate resolves the layout"
tr() { snmptranslate -M "+$top_srcdir/mib:$smi" -m STATCTR-MIB "$@" 2>"$TMP/tr.err"; }
[ "$(tr -On STATCTR-MIB::statctrData)" = "$ROOT.3" ] || fail "statctrData: $(cat "$TMP/tr.err")"
[ "$(tr -On STATCTR-MIB::statctrCellCounter)" = "$ROOT.1.3.1.8" ] || fail "statctrCellCounter"
[ "$(tr -On STATCTR-MIB::statctrSegmentReset)" = "$ROOT.1.2.1.12" ] || fail "statctrSegmentReset"
[ ! -s "$TMP/tr.err" ] || fail "snmptranslate warned: $(cat "$TMP/tr.err")"
log "pass"
exit 0
