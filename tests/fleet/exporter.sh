#!/bin/bash
# The fleet path (docs/fleet.md): `statctl mib` and `statctl exporter-config`
# feed Debian's prometheus-snmp-generator, whose snmp.yml lets
# prometheus-snmp-exporter scrape statctr-agentx through snmpd and as its
# own master (-M); then a Prometheus server scrapes the exporter.
#
# Two segments: dataplane (flowStats with FLEET_ROWS rows, default 1000)
# holds the final values of a finished writer, one counter above 2^32;
# dataplane2 has a writer still running.  Asserted: every declared column
# is a metric of the right TYPE (counter or gauge), labelled by row name
# and nothing else; each sample equals the library's snapshot exactly, and
# snmpget's value; the discontinuity column is there, the reset column is
# not; Prometheus's rate() of a live counter is positive.  Logged: the
# exporter's scrape time for the rows, through snmpd and through -M.  And
# the textfile collector's file (statctl show -o) passes promtool.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/fault/lib.sh"
. "$top_srcdir/tests/fleet/fleet.sh"

ROWS=${FLEET_ROWS:-1000}
MODULE=statctr_dataplane_dataplane2
fleet_need

# ------------------------------------------------------------------------
# generator.yml + the MIB -> snmp.yml

fx_config_two
sed -i "0,/rows = 64;/s//rows = $ROWS;/" "$TMP/statctr.conf"
fleet_generate STATCTR-DATAPLANE-DATAPLANE2-MIB "$MODULE"

# ------------------------------------------------------------------------
# snmpd, the agent, a finished writer and a live one

fx_snmpd
# 2 x 3,000,000 packets: totals.octets ~4.7e9 > 2^32 (and far below 2^53).
fx_writer -t 2 -n 3000000
fx_writer_on dataplane2 -t 1 -r 2000
fx_agent
fx_writer_settled
fx_wait_pass
SNMPD_PORT=$PORT
fx_on_free_port master 3 fx_agent_answers_on \
	"$AGENT" -f -L stderr -c "$TMP/statctr.conf" -M udp:127.0.0.1:@PORT@
MASTER_PORT=$FREE_PORT
fleet_snmp_exporter

# scrape SNMP_PORT: the exporter's page for that agent (fleet_scrape).
scrape() { fleet_scrape "$EXPORTER_PORT" "$MODULE" "$1"; }

# ------------------------------------------------------------------------
# Names, types, labels and values of one scrape

# The reader's "table.column.row value" lines of dataplane as samples:
# dataplaneIfStatsRxOctets{dataplaneIfStatsRowName="dp0"} VALUE.
# (The histogram stages.latency is checked on its own: check_histogram.)
expected_samples() {
	reader_lines latch | grep -v '^stages\.' | while read -r cell value; do
		IFS=. read -r table column row <<<"$cell"
		printf 'dataplane%s%s{dataplane%sRowName="%s"} %s\n' \
			"${table^}" "${column^}" "${table^}" "$row" "$value"
	done | sort
}

# The dataplane samples of a scrape, values as exact integers (the
# exporter prints 4.691332107e+09; doubles are exact below 2^53).
dataplane_samples() {
	grep '^dataplane[A-Z]' "$1" | grep -v -e Discontinuity -e '^dataplaneStages' |
		awk '{ printf "%s %.0f\n", $1, $2 }' | sort
}

# check_scrape FILE PATH: every assertion on one scrape of dataplane.
check_scrape() {
	local file=$1 path=$2 name kind
	while read -r name kind; do
		grep -qx "# TYPE $name $kind" "$file" || fail "$path: no '# TYPE $name $kind'"
	done <<-EOF
		dataplaneIfStatsRxPackets counter
		dataplaneIfStatsRxOctets counter
		dataplaneIfStatsDrops counter
		dataplaneIfStatsQueueDepth gauge
		dataplaneFlowStatsOctets counter
		dataplaneTotalsOctets counter
		dataplaneTotalsInFlight gauge
		dataplaneTotalsDiscontinuity gauge
		dataplane2TotalsPackets counter
	EOF
	! grep -Eq 'Reset|RowIndex' "$file" || fail "$path: reset or row index in the scrape"
	grep -q '^dataplaneIfStatsDiscontinuity{dataplaneIfStatsRowName="dp3"} ' "$file" ||
		fail "$path: no discontinuity sample of dp3"
	[ "$(grep -c '^dataplaneFlowStatsPackets{' "$file")" = "$ROWS" ] ||
		fail "$path: $(grep -c '^dataplaneFlowStatsPackets{' "$file") flowStats rows, not $ROWS"
	dataplane_samples "$file" >"$TMP/got.$path"
	same_lines "$TMP/expect" "$TMP/got.$path" "$path: the exporter's samples differ from the reader's"
	grep -qx "dataplaneTotalsOctets{dataplaneTotalsRowName=\"all\"} $OCTETS" "$TMP/got.$path" ||
		fail "$path: totals.octets is not $OCTETS"
	check_histogram "$file" "$path"
}

# check_histogram FILE PATH: stages.latency's bucket table arrives with the
# bound as a label (exporter-config's lookup), 16 finite bounds and +Inf per
# row, and its summary table with count and sum (the writer records none).
check_histogram() {
	local file=$1 path=$2 row bounds
	for row in receive classify transmit; do
		# (the exporter sorts samples by their labels, as strings)
		bounds=$(sed -n "s/^dataplaneStagesLatencyBucketCount{.*dataplaneStagesLatencyBucketBound=\"\([^\"]*\)\".*RowName=\"$row\"} 0\$/\1/p" "$file" | sort -g | tr '\n' ' ')
		[ "$bounds" = "16 32 64 128 256 512 1024 2048 4096 8192 16384 32768 65536 131072 262144 524288 +Inf " ] ||
			fail "$path: stages.latency buckets of $row: '$bounds'"
		grep -qx "dataplaneStagesLatencyCount{dataplaneStagesRowName=\"$row\"} 0" "$file" ||
			fail "$path: no count of stages.latency for $row"
		grep -qx "dataplaneStagesLatencySum{dataplaneStagesRowName=\"$row\"} 0" "$file" ||
			fail "$path: no sum of stages.latency for $row"
	done
}

expected_samples >"$TMP/expect"
OCTETS=$(reader_lines | awk '$1 == "totals.octets.all" { print $2 }')
[ "$OCTETS" -gt 4294967296 ] && [ "$OCTETS" -lt 9007199254740992 ] ||
	fail "totals.octets is $OCTETS: not between 2^32 and 2^53"
[ "$(snmp_value "$DATA.3.1.11.1")" = "$OCTETS" ] || fail "snmpget of totals.octets is not $OCTETS"
[ "$(grep -c . "$TMP/expect")" = $((28 + ROWS * 2 + 3)) ] || fail "the reader printed $(grep -c . "$TMP/expect") cells"

for path in snmpd master; do
	port=$SNMPD_PORT
	[ $path = master ] && port=$MASTER_PORT
	log "exporter -> $path (127.0.0.1:$port)"
	scrape "$port" >"$TMP/scrape.$path" || fail "scraping $path failed"
	check_scrape "$TMP/scrape.$path" $path
done

# ------------------------------------------------------------------------
# The textfile collector's file: valid exposition (promtool), both segments

mkdir "$TMP/textfile"
"$STATCTL" -c "$TMP/statctr.conf" -f prometheus show -o "$TMP/textfile/statctr.prom" ||
	fail "statctl show -o failed"
promtool check metrics <"$TMP/textfile/statctr.prom" >"$TMP/promtool.log" 2>&1 ||
	fail "promtool check metrics: $(head -n 5 "$TMP/promtool.log")"
for seg in dataplane dataplane2; do
	grep -q "^statctr_${seg}_totals_octets_total{segment=\"$seg\",table=\"totals\",row=\"all\"} " \
		"$TMP/textfile/statctr.prom" || fail "statctr.prom has no totals.octets of $seg"
done
grep -qx "statctr_dataplane_totals_octets_total{segment=\"dataplane\",table=\"totals\",row=\"all\"} $OCTETS" \
	"$TMP/textfile/statctr.prom" || fail "statctr.prom: totals.octets of dataplane is not $OCTETS"

# ------------------------------------------------------------------------
# Scrape time for the rows (the exporter's own measure), best of 3

scrape_seconds() {
	for _ in 1 2 3; do
		scrape "$1" | awk '/^snmp_scrape_walk_duration_seconds / { print $2 }'
	done | sort -g | head -n 1
}
pdus=$(awk '/^snmp_scrape_pdus_returned / { print $2 }' "$TMP/scrape.snmpd")
log "MEASURED: $((4 + ROWS + 1 + 4 + 64 + 1)) rows, $pdus varbinds per scrape:" \
	"through snmpd $(scrape_seconds "$SNMPD_PORT") s, -M $(scrape_seconds "$MASTER_PORT") s"

# ------------------------------------------------------------------------
# Prometheus scrapes the exporter every second; rate() of a live counter

cat >"$TMP/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
$(fleet_snmp_job statctr "127.0.0.1:$MASTER_PORT")
EOF
fleet_prometheus

# query PROMQL: the first result's value, or nothing.
query() {
	prom_query "$1" |
		jq -r '.data.result[0].value[1] // empty'
}
rate_positive() {
	local v
	v=$(query 'rate(dataplane2TotalsPackets{dataplane2TotalsRowName="all"}[5s])')
	[ -n "$v" ] && awk -v v="$v" 'BEGIN { exit !(v > 0) }'
}
fx_wait 30 rate_positive || fail "rate() of a live counter not positive within 30 s: '$(
	query 'rate(dataplane2TotalsPackets[5s])')'"
log "rate(dataplane2TotalsPackets[5s]) = $(query 'rate(dataplane2TotalsPackets[5s])') /s"
# Polled: a scrape that timed out (1 s, at load 20) makes Prometheus mark
# the target's series stale, and an instant query then finds none.
holds_octets() {
	v=$(query 'dataplaneTotalsOctets{dataplaneTotalsRowName="all"}')
	[ "$(awk -v v="$v" 'BEGIN { printf "%.0f", v }')" = "$OCTETS" ]
}
fx_wait 10 holds_octets || fail "Prometheus holds totals.octets = $v, not $OCTETS"
log "all passed"
