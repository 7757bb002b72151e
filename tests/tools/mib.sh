#!/bin/sh
# statctl mib: the module generated from conf/statctr.conf (and from a config
# with long names, a custom module name and root) passes `smilint -l 6` with
# no output, and snmptranslate resolves generated names to the fixed layout
# R.3.<segment oid>.<table oid>.1.<column>.
. "${srcdir:-.}/tests/tools/lib.sh"
need_command smilint
need_command snmptranslate
snmp_private "$workdir" # the first snmptranslate on a new machine says more than the OID
[ -f "$srcdir/mib/STATCTR-MIB.txt" ] || skip "mib/STATCTR-MIB.txt is missing"
smidir=$(sh "$srcdir/scripts/get-smi-mibs.sh" 2>"$workdir/smi.err") ||
	skip "no SNMPv2-SMI/TC/CONF sources: $(cat "$workdir/smi.err")"
gen=$workdir/gen
mkdir "$gen"
path="$smidir:/usr/share/snmp/mibs:$srcdir/mib:$gen"
root=.1.3.6.1.4.1.8072.9999.9999.4242

# lint MODULE: smilint prints nothing for a clean module (it always exits 0).
lint() {
	SMIPATH=$path smilint -l 6 -s -m "$gen/$1.txt" >"$workdir/lint" 2>&1 || true
	check "smilint -l 6 accepts $1 silently" "" "$(cat "$workdir/lint")"
}

# oid MODULE NAME: the numeric OID of MODULE::NAME.
oid() {
	snmptranslate -M "$path" -m "$1" -On "$1::$2" 2>&1
}

export SOURCE_DATE_EPOCH=1700000000
check_status "mib to stdout" 0 "$STATCTL" mib "$srcdir/conf/statctr.conf"
printf "%s\n" "$out" >"$gen/STATCTR-DATAPLANE-MIB.txt"
check "derived module name" "STATCTR-DATAPLANE-MIB DEFINITIONS ::= BEGIN" "$(head -1 "$gen/STATCTR-DATAPLANE-MIB.txt")"
check "LAST-UPDATED from SOURCE_DATE_EPOCH" 1 \
	"$(grep -c 'LAST-UPDATED "202311142213Z"' "$gen/STATCTR-DATAPLANE-MIB.txt")"
check_status "mib -o" 0 "$STATCTL" mib "$srcdir/conf/statctr.conf" -o "$workdir/o.txt"
check "-o writes what stdout gets" "" "$(diff "$gen/STATCTR-DATAPLANE-MIB.txt" "$workdir/o.txt")"
lint STATCTR-DATAPLANE-MIB

m=STATCTR-DATAPLANE-MIB
check "table" "$root.3.1.1" "$(oid $m dataplaneIfStatsTable)"
check "row index" "$root.3.1.1.1.1" "$(oid $m dataplaneIfStatsRowIndex)"
check "row name" "$root.3.1.1.1.2" "$(oid $m dataplaneIfStatsRowName)"
check "discontinuity" "$root.3.1.1.1.3" "$(oid $m dataplaneIfStatsDiscontinuity)"
check "reset" "$root.3.1.1.1.4" "$(oid $m dataplaneIfStatsReset)"
check "first counter" "$root.3.1.1.1.10" "$(oid $m dataplaneIfStatsRxPackets)"
check "gauge column" "$root.3.1.1.1.15" "$(oid $m dataplaneIfStatsQueueDepth)"
check "numbered-row table" "$root.3.1.2.1.11" "$(oid $m dataplaneFlowStatsOctets)"
check "third table" "$root.3.1.3.1.12" "$(oid $m dataplaneTotalsInFlight)"
check "instance of row 3" "$root.3.1.1.1.11.3" "$(oid $m dataplaneIfStatsRxOctets.3)"
check "Counter64 syntax" 1 "$(snmptranslate -M "$path" -m $m -Td $m::dataplaneIfStatsRxOctets 2>&1 | grep -c 'SYNTAX	Counter64')"
check "Gauge32 syntax" 1 "$(snmptranslate -M "$path" -m $m -Td $m::dataplaneTotalsInFlight 2>&1 | grep -c 'SYNTAX	Gauge32')"

# Long names, two segments, a module name and root of its own.
cat >"$workdir/tricky.conf" <<'CONF'
agent = { mib_module = "TRICKY-COUNTERS-MIB"; root_oid = "1.3.6.1.4.1.99999.7"; };
segments = (
  { name = "a_very-long_segment_name_that_goes_on_and_on"; oid = 5; slots = 1;
    tables = (
      { name = "the_table_with_an_extremely_long_name_indeed"; oid = 3; rows = 2;
        description = "Has \"quotes\" and a \\ backslash";
        columns = (
          { name = "rowNames"; kind = "counter"; },
          { name = "column_with_a_name_long_enough_to_overflow_sixty_four"; kind = "gauge"; },
          { name = "x"; kind = "counter"; units = "pkts"; description = "say \"x\""; }
        ); }
    ); },
  { name = "B2"; oid = 6; slots = 1;
    tables = ( { name = "t"; oid = 9; rows = [ "r1", "r2" ];
                 columns = ( { name = "c"; kind = "counter"; } ); } ); }
);
CONF
check_status "mib of the tricky config" 0 "$STATCTL" mib "$workdir/tricky.conf" -o "$gen/TRICKY-COUNTERS-MIB.txt"
lint TRICKY-COUNTERS-MIB
t=TRICKY-COUNTERS-MIB
check "custom root" .1.3.6.1.4.1.99999.7.3.6.9.1.10 "$(oid $t b2TC)"
check "shortened column keeps its name" 1 "$(grep -c '^aVeryLong[A-Za-z0-9]*RowNames OBJECT-TYPE$' "$gen/$t.txt")"
# A column whose descriptor would be its table's RowName: refused, naming both, at file:line.
sed 's/"rowNames"/"rowName"/' "$workdir/tricky.conf" >"$workdir/clash.conf"
check_status "mib of a config whose descriptors collide" 1 "$STATCTL" mib "$workdir/clash.conf"
check "the clash names file:line and both objects" 1 \
	"$(printf "%s\n" "$err" | grep -c 'clash.conf:8: .*column "rowName" .* is also that of table "the_table_with_an_extremely_long_name_indeed" ')"
check "descriptors at most 64 characters" "" \
	"$(grep -o '^[a-z][A-Za-z0-9]* OBJECT-TYPE' "$gen/$t.txt" | awk 'length($1) > 64')"
long=$(grep -o '^aVeryLong[A-Za-z0-9]*Entry' "$gen/$t.txt" | head -1)
check "shortened entry still ends in Entry" "Entry" "$(echo "$long" | grep -o 'Entry$')"
check "shortened names resolve" .1.3.6.1.4.1.99999.7.3.5.3.1 "$(oid $t "$long")"

check_status "mib of a bad config" 1 "$STATCTL" mib "$srcdir/tests/tools/corpus/root-oid.conf"
check "error names file:line" 1 "$(printf "%s\n" "$err" | grep -c 'root-oid.conf:3:')"
check_status "mib without FILE" 2 "$STATCTL" mib
check_status "mib -o into a missing directory" 1 "$STATCTL" mib "$srcdir/conf/statctr.conf" -o "$workdir/no/such/x.txt"
check "error names OUT" 1 "$(printf "%s\n" "$err" | grep -c "$workdir/no/such/x.txt: cannot create a temporary file next to it")"
finish
