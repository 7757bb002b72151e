#!/bin/bash
# An NMS-side client of the IF-MIB tables (docs/agent.md, "Show up in your
# NMS as interfaces"): Prometheus' snmp_exporter with the module statctl
# exporter-config --if-mib writes (numeric OIDs, since Debian ships no
# IF-MIB text; labels ifIndex, ifDescr, ifName, ifAlias) scrapes
# statctr-agentx through snmpd.  Asserted: the sample of each statctr
# interface carries its ifName and ifDescr and the exact value (one above
# 2^32, and its low 32 bits in ifInOctets), snmpd's own interfaces are in
# the same scrape, and an object no column serves is not.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/integration/fixture.sh"
. "$top_srcdir/tests/fleet/fleet.sh"

fx_need snmpget curl prometheus-snmp-exporter
[ -x "$top_builddir/tests/integration/ifwriter" ] || skip "tests/integration/ifwriter not built"

cat >"$TMP/statctr.conf" <<EOF2
segments = ( {
  name = "ifseg"; path = "$TMP/ifseg"; oid = 7; slots = 1;
  tables = ( { name = "ports"; oid = 1; rows = [ "port0", "port1" ];
    columns = ( { name = "rxOctets"; kind = "counter"; } );
    ifmib = { ifindex_base = 1000; columns = { rxOctets = "ifHCInOctets"; }; }; } );
} );
agent = { interval_ms = 100; };
EOF2

# The module statctl writes for Debian's empty snmp.yml (numeric OIDs).
"$top_builddir/tools/statctl" exporter-config --if-mib "$TMP/statctr.conf" -o "$TMP/snmp.yml" ||
	fail "statctl exporter-config --if-mib"
grep -q '^statctr_if_mib:$' "$TMP/snmp.yml" || fail "no module statctr_if_mib: $(head -n 8 "$TMP/snmp.yml")"

fx_snmpd
fx_ifwriter ifseg
fx_ifcmd "add ports rxOctets port0 21474836603" "add ports rxOctets port1 7"
fx_agent
if_registered() { [ "$(snmp_value .1.3.6.1.2.1.31.1.1.1.1.1000)" = port0 ]; }
fx_wait 5 if_registered || fail "no IF-MIB rows within 5 s"
fx_wait_pass
metrics_up() { curl -sf -o /dev/null "http://127.0.0.1:$1/metrics"; }
fx_on_free_port exporter 5 metrics_up \
	prometheus-snmp-exporter --config.file="$TMP/snmp.yml" --web.listen-address=127.0.0.1:@PORT@
fleet_scrape "$FREE_PORT" statctr_if_mib "$PORT" >"$TMP/scrape" || fail "the scrape failed"
grep -q '^# TYPE ifHCInOctets counter$' "$TMP/scrape" || fail "no counter ifHCInOctets"
grep -q '^# TYPE ifInOctets counter$' "$TMP/scrape" || fail "no counter ifInOctets"
# samples METRIC: "ifIndex ifName ifDescr value" of each, values as exact
# integers (doubles: exact below 2^53).
samples() {
	awk -v m="$1" 'index($0, m "{") == 1 {
		split("", l)
		lab = substr($0, length(m) + 2)
		n = split(substr(lab, 1, length(lab) - length($NF) - 2), kv, "\",")
		for (i = 1; i <= n; i++) {
			sub(/"$/, "", kv[i]); split(kv[i], p, "=\""); l[p[1]] = p[2]
		}
		printf "%s %s %s %.0f\n", l["ifIndex"], l["ifName"], l["ifDescr"], $2
	}' "$TMP/scrape"
}
samples ifHCInOctets >"$TMP/samples"
grep -qx '1000 port0 port0 21474836603' "$TMP/samples" || fail "port0: $(grep -F port0 "$TMP/scrape")"
grep -qx '1001 port1 port1 7' "$TMP/samples" || fail "port1: $(grep -F port1 "$TMP/scrape")"
# ifInOctets: the low 32 bits of the mapped counter (21474836603 mod 2^32).
samples ifInOctets | grep -qx '1000 port0 port0 123' || fail "ifInOctets of port0: $(samples ifInOctets)"
[ "$(awk '$1 < 1000' "$TMP/samples" | grep -c .)" -ge 1 ] ||
	fail "none of snmpd's own interfaces in the scrape: $(cat "$TMP/samples")"
# ifHighSpeed has no mapped column here: not served, not in the module.
! grep -q '^ifHighSpeed' "$TMP/scrape" || fail "ifHighSpeed in the scrape without a mapped column"
log "scraped $(grep -c . "$TMP/samples") interfaces, $(awk '$1 < 1000' "$TMP/samples" | grep -c .) of them snmpd's"
log "all passed"
