#!/bin/sh
# statctl exporter-config: the generator.yml module of a configuration walks
# every declared table, labels rows by their rowName through a lookup that
# drops the index, drops the reset, index and name columns, and names only
# objects of the MIB `statctl mib` writes for the same configuration, even
# when names are shortened or clash (tests/fleet/exporter.sh feeds it to the
# real generator and exporter).
. "${srcdir:-.}/tests/tools/lib.sh"

conf=$srcdir/conf/statctr.conf
check_status "exporter-config to stdout" 0 "$STATCTL" exporter-config "$conf"
cp "$workdir/out" "$workdir/gen.yml"
check "module named after the MIB module" 1 "$(grep -cx '  statctr_dataplane:' "$workdir/gen.yml")"
check "every declared table walked, in order" \
	"dataplaneIfStatsTable dataplaneFlowStatsTable dataplaneTotalsTable dataplaneVfStatsTable dataplaneStagesTable dataplaneStagesLatencyBucketTable dataplaneStagesLatencySummaryTable" \
	"$(sed -n 's/^      - \(dataplane[A-Za-z]*Table\)$/\1/p' "$workdir/gen.yml" | tr '\n' ' ' | sed 's/ $//')"
check "lookup of ifStats" 1 "$(grep -cx '        lookup: dataplaneIfStatsRowName' "$workdir/gen.yml")"
check "lookups drop the index (5 tables and 1 bucket table)" 6 "$(grep -cx '        drop_source_indexes: true' "$workdir/gen.yml")"
check "ignored: index, name and reset of 5 tables, bucket index and bound" 17 "$(grep -cx '        ignore: true' "$workdir/gen.yml")"
check "the reset column is ignored" 1 "$(grep -cx '      dataplaneTotalsReset:' "$workdir/gen.yml")"
check_status "exporter-config -o" 0 "$STATCTL" exporter-config "$conf" -o "$workdir/o.yml"
check "-o writes what stdout gets" "" "$(diff "$workdir/gen.yml" "$workdir/o.yml")"

# Every name in generator.yml is a descriptor of the MIB module, also for
# shortened and clashing names, two segments and a module name of its own
# (tricky.conf: the configuration of mib.sh's second part).
check_status "exporter-config of the tricky config" 0 "$STATCTL" exporter-config "$TOOLS_TESTDIR/tricky.conf"
cp "$workdir/out" "$workdir/tricky.yml"
check_status "mib of the tricky config" 0 "$STATCTL" mib "$TOOLS_TESTDIR/tricky.conf"
cp "$workdir/out" "$workdir/tricky.mib"
check "module name from agent.mib_module" 1 "$(grep -cx '  tricky_counters:' "$workdir/tricky.yml")"
grep -o '[a-z][A-Za-z0-9]*\(Table\|RowIndex\|RowName\|Reset\)' "$workdir/tricky.yml" | sort -u >"$workdir/names"
check "names of 2 tables x 4 roles" 8 "$(wc -l <"$workdir/names")"
missing=
while read -r name; do
	grep -q "^$name OBJECT-TYPE\$" "$workdir/tricky.mib" || missing="$missing $name"
done <"$workdir/names"
check "every name is an OBJECT-TYPE of the MIB" "" "$missing"
check "the clash-renamed column's row name is the MIB's" 1 \
	"$(grep -c 'lookup: aVeryLong[A-Za-z0-9]*RowName$' "$workdir/tricky.yml")"

check_status "a missing FILE is a usage error" 2 "$STATCTL" exporter-config
check_status "two FILEs are a usage error" 2 "$STATCTL" exporter-config "$conf" "$conf"
check_status "an invalid configuration fails" 1 "$STATCTL" exporter-config "$srcdir/tests/tools/corpus/duplicate-oid.conf"
check "the error names the file" 1 "$(printf '%s\n' "$err" | grep -c 'duplicate-oid.conf:')"
check_status "--help" 0 "$STATCTL" exporter-config --help
check "--help names the synopsis" 1 "$(printf '%s\n' "$out" | grep -c '^Usage: statctl exporter-config \[--relabel | --if-mib\] FILE \[-o OUT\]$')"

# --relabel: per column a rename to statctl's family, per table the labels
# (tests/fleet/naming.sh runs it in Prometheus against the textfile path).
check_status "exporter-config --relabel" 0 "$STATCTL" exporter-config --relabel "$conf"
cp "$workdir/out" "$workdir/relabel.yml"
check "relabelling follows a job's keys" 1 "$(grep -cx '    metric_relabel_configs:' "$workdir/relabel.yml")"
check "the counter's new name" 1 "$(grep -cx '        replacement: statctr_dataplane_if_stats_rx_octets_total' "$workdir/relabel.yml")"
check "a gauge's new name" 1 "$(grep -cx '        replacement: statctr_dataplane_totals_in_flight' "$workdir/relabel.yml")"
check "histogram series" "statctr_dataplane_stages_latency_bucket statctr_dataplane_stages_latency_count statctr_dataplane_stages_latency_sum" \
	"$(sed -n 's/^        replacement: \(statctr_dataplane_stages_latency_[a-z]*\)$/\1/p' "$workdir/relabel.yml" | tr '\n' ' ' | sed 's/ $//')"
check "the bound becomes le" 1 "$(grep -c -B2 '^        target_label: le$' "$workdir/relabel.yml" | grep -c .)"
check "segment, table and row for 5 tables" "5 5 5" \
	"$(for l in segment table row; do grep -cx "        target_label: $l" "$workdir/relabel.yml"; done | tr '\n' ' ' | sed 's/ $//')"
check "row names and bounds dropped" 6 "$(grep -cx '        action: labeldrop' "$workdir/relabel.yml")"

# --if-mib: the IF-MIB objects served, by numeric OID.
check_status "exporter-config --if-mib" 0 "$STATCTL" exporter-config --if-mib "$conf"
cp "$workdir/out" "$workdir/ifmib.yml"
check "module statctr_if_mib" 1 "$(grep -cx 'statctr_if_mib:' "$workdir/ifmib.yml")"
check "ifHCInOctets walked by OID" 1 "$(grep -cx '  - 1.3.6.1.2.1.31.1.1.1.6 # ifHCInOctets' "$workdir/ifmib.yml")"
check "ifHCInOctets a counter" 1 "$(grep -A2 -x '  - name: ifHCInOctets' "$workdir/ifmib.yml" | grep -cx '    type: counter')"
check "ifHighSpeed a gauge" 1 "$(grep -A2 -x '  - name: ifHighSpeed' "$workdir/ifmib.yml" | grep -cx '    type: gauge')"
check "ifName not a metric" 0 "$(grep -cx '  - name: ifName' "$workdir/ifmib.yml")"
check "ifName, ifDescr and ifAlias label every metric" \
	"$(grep -c '^  - name: ' "$workdir/ifmib.yml") x3" "$(grep -c '^      labelname: if\(Name\|Descr\|Alias\)$' "$workdir/ifmib.yml" | awk '{ print $1 / 3 " x3" }')"
check "ifHCInMulticastPkts not served, not walked" 0 "$(grep -c 'ifHCInMulticastPkts' "$workdir/ifmib.yml")"
check_status "--if-mib without an IF-MIB table fails" 1 "$STATCTL" exporter-config --if-mib "$TOOLS_TESTDIR/tricky.conf"
check "it says why" 1 "$(printf '%s\n' "$err" | grep -c 'tricky.conf: no table has an ifmib group')"
check_status "--relabel and --if-mib exclude each other" 2 "$STATCTL" exporter-config --relabel --if-mib "$conf"
finish
