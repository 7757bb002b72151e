#!/bin/bash
# An NMS-side client of the IF-MIB tables (docs/agent.md, "Show up in your
# NMS as interfaces"): Prometheus' snmp_exporter with an if_mib module of
# its own kind (ifHCInOctets labelled by ifIndex, ifName looked up from
# ifXTable), written with numeric OIDs since Debian ships no IF-MIB text,
# scrapes statctr-agentx through snmpd.  Asserted: the sample of each
# statctr interface carries its ifName and the exact value (one above
# 2^32), and snmpd's own interfaces are in the same scrape.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/integration/fixture.sh"

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

# snmp_exporter 0.21's format: one module, its auth, what to walk, the metric.
cat >"$TMP/snmp.yml" <<EOF2
if_mib:
  version: 2
  auth:
    community: $COMMUNITY
  walk:
  - 1.3.6.1.2.1.31.1.1.1.1
  - 1.3.6.1.2.1.31.1.1.1.6
  metrics:
  - name: ifHCInOctets
    oid: 1.3.6.1.2.1.31.1.1.1.6
    type: counter
    help: Octets received on the interface (IF-MIB::ifHCInOctets)
    indexes:
    - labelname: ifIndex
      type: gauge
    lookups:
    - labels: [ifIndex]
      labelname: ifName
      oid: 1.3.6.1.2.1.31.1.1.1.1
      type: DisplayString
EOF2

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
curl -sf --max-time 30 "http://127.0.0.1:$FREE_PORT/snmp?module=if_mib&target=127.0.0.1:$PORT" \
	>"$TMP/scrape" || fail "the scrape failed"
grep -q '^# TYPE ifHCInOctets counter$' "$TMP/scrape" || fail "no counter ifHCInOctets"
# "ifIndex ifName value" of every sample, values as exact integers (doubles: exact below 2^53).
sed -n 's/^ifHCInOctets{ifIndex="\([0-9]*\)",ifName="\([^"]*\)"} \(.*\)$/\1 \2 \3/p' "$TMP/scrape" |
	awk '{ printf "%s %s %.0f\n", $1, $2, $3 }' >"$TMP/samples"
grep -qx '1000 port0 21474836603' "$TMP/samples" || fail "port0: $(grep -F port0 "$TMP/scrape")"
grep -qx '1001 port1 7' "$TMP/samples" || fail "port1: $(grep -F port1 "$TMP/scrape")"
[ "$(awk '$1 < 1000' "$TMP/samples" | grep -c .)" -ge 1 ] ||
	fail "none of snmpd's own interfaces in the scrape: $(cat "$TMP/samples")"
log "scraped $(grep -c . "$TMP/samples") interfaces, $(awk '$1 < 1000' "$TMP/samples" | grep -c .) of them snmpd's"
log "all passed"
