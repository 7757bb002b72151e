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
check "--help names the synopsis" 1 "$(printf '%s\n' "$out" | grep -c '^Usage: statctl exporter-config FILE \[-o OUT\]$')"
finish
