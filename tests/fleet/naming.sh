#!/bin/bash
# One metric naming (docs/fleet.md): the textfile path (statctl show -f
# prometheus, read by node_exporter's textfile collector) and the SNMP path
# (statctr-agentx through snmpd, snmp_exporter with the module of statctl
# exporter-config and Debian's generator, then the scrape job's
# metric_relabel_configs of statctl exporter-config --relabel) scraped by
# one Prometheus.  A writer sets known values and idles: counters (one
# above 2^32), gauges, a histogram with values in several buckets and in
# +Inf, numbered rows and a dynamic row.  Asserted, on Prometheus's own
# series: both jobs hold exactly the same set of name{labels} value,
# job/instance aside, and the families each path has alone (textfile:
# <counter>_created, statctr_segment_readable; SNMP: <table>_discontinuity)
# aside; the counter, gauge and histogram series below are among them; and
# no SNMP sample keeps a MIB name.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/fault/lib.sh"
. "$top_srcdir/tests/fleet/fleet.sh"

MODULE=statctr_dataplane
fleet_need prometheus-node-exporter
[ -x "$top_builddir/tests/integration/ifwriter" ] || skip "tests/integration/ifwriter not built"

# ------------------------------------------------------------------------
# What statctl exporter-config writes, and the generator's snmp.yml

fx_config
fleet_generate STATCTR-DATAPLANE-MIB "$MODULE"
fleet_relabel

# ------------------------------------------------------------------------
# Known values, then an idle writer: both paths read the same numbers

fx_snmpd
fx_ifwriter dataplane
fx_ifcmd "add ifStats rxOctets dp0 21474836603" "add ifStats rxPackets dp1 7" \
	"set ifStats queueDepth dp2 42" "set ifStats speed dp0 10000" \
	"add flowStats packets 3 5" "add totals octets all 1234567" "set totals inFlight all 9" \
	"row+ vfStats vf7" "add vfStats rxPackets vf7 11" \
	"rec stages latency receive 20" "rec stages latency receive 100" \
	"rec stages latency classify 1000000"
fx_agent
fx_wait_pass

mkdir "$TMP/textfile"
"$STATCTL" -c "$TMP/statctr.conf" -f prometheus show -o "$TMP/textfile/statctr.prom" ||
	fail "statctl show -o failed"
promtool check metrics <"$TMP/textfile/statctr.prom" >"$TMP/promtool.log" 2>&1 ||
	fail "promtool check metrics: $(head -n 5 "$TMP/promtool.log")"

fx_on_free_port node_exporter 10 metrics_up \
	prometheus-node-exporter --collector.disable-defaults --collector.textfile \
	--collector.textfile.directory="$TMP/textfile" --web.listen-address=127.0.0.1:@PORT@
NODE_PORT=$FREE_PORT
fleet_snmp_exporter

# Two jobs, 1 s apart; the SNMP job as docs/fleet.md writes it, with the
# relabelling appended (it follows the job's keys).
{
	fleet_prometheus_head
	cat <<EOF
  - job_name: textfile
    static_configs:
      - targets: ["127.0.0.1:$NODE_PORT"]
EOF
	fleet_snmp_job snmp "127.0.0.1:$PORT"
	cat "$TMP/relabel.yml"
} >"$TMP/prometheus.yml"
fleet_prometheus

# ------------------------------------------------------------------------
# The series of each path, as Prometheus stores them

# series SELECTOR: "name{label="value",...} value" per series, labels
# sorted, job and instance left out; sorted.
series() {
	prom_query "$1" |
		jq -r '.data.result[] | (.metric | del(.job, .instance)) as $m |
			"\($m.__name__){\($m | del(.__name__) | to_entries | sort_by(.key) |
			map("\(.key)=\"\(.value)\"") | join(","))} \(.value[1])"' | sort
}
TEXTFILE='{job="textfile",__name__=~"statctr_.+",__name__!~".+_created|statctr_segment_readable"}'
SNMP='{job="snmp",__name__=~"statctr_.+",__name__!~".+_discontinuity"}'
# Every table, numbered row and column of conf/statctr.conf is in the file:
# the textfile job has scraped it whole.
expected=$(grep -v -e '^#' -e '_created{' -e '^statctr_segment_readable' "$TMP/textfile/statctr.prom" | grep -c .)
both_scraped() {
	series "$TEXTFILE" >"$TMP/textfile.series"
	series "$SNMP" >"$TMP/snmp.series"
	[ "$(grep -c . "$TMP/textfile.series")" = "$expected" ] && cmp -s "$TMP/textfile.series" "$TMP/snmp.series"
}
# Polled against a deadline (each poll is two queries).
until_deadline "$(fx_loaded 30)" both_scraped || {
	log "textfile: $(grep -c . "$TMP/textfile.series") series of $expected; snmp: $(grep -c . "$TMP/snmp.series")"
	same_lines "$TMP/textfile.series" "$TMP/snmp.series" \
		"the textfile path and the SNMP path differ in names, labels or values"
	fail "the textfile job has $(grep -c . "$TMP/textfile.series") series, not the file's $expected"
}
log "both paths: the same $expected series (names, labels and values)"

# The counter, the gauge and the histogram the issue names, with their values.
while read -r line; do
	grep -qxF "$line" "$TMP/snmp.series" || fail "no '$line' in either path"
done <<-'EOF'
	statctr_dataplane_if_stats_rx_octets_total{row="dp0",segment="dataplane",table="ifStats"} 21474836603
	statctr_dataplane_if_stats_queue_depth{row="dp2",segment="dataplane",table="ifStats"} 42
	statctr_dataplane_flow_stats_packets_total{row="3",segment="dataplane",table="flowStats"} 5
	statctr_dataplane_vf_stats_rx_packets_total{row="vf7",segment="dataplane",table="vfStats"} 11
	statctr_dataplane_stages_latency_bucket{le="16",row="receive",segment="dataplane",table="stages"} 0
	statctr_dataplane_stages_latency_bucket{le="32",row="receive",segment="dataplane",table="stages"} 1
	statctr_dataplane_stages_latency_bucket{le="128",row="receive",segment="dataplane",table="stages"} 2
	statctr_dataplane_stages_latency_bucket{le="+Inf",row="receive",segment="dataplane",table="stages"} 2
	statctr_dataplane_stages_latency_sum{row="receive",segment="dataplane",table="stages"} 120
	statctr_dataplane_stages_latency_count{row="receive",segment="dataplane",table="stages"} 2
	statctr_dataplane_stages_latency_bucket{le="524288",row="classify",segment="dataplane",table="stages"} 0
	statctr_dataplane_stages_latency_bucket{le="+Inf",row="classify",segment="dataplane",table="stages"} 1
EOF
[ "$(grep -c '^statctr_dataplane_stages_latency_bucket{.*row="receive"' "$TMP/snmp.series")" = 17 ] ||
	fail "receive has not 17 buckets"

# Each path's own families, and no MIB name left on the SNMP side.  A query
# is retried to the deadline: at load 24 one took Prometheus over curl's 5 s.
has_series() { [ -n "$(series "$1")" ]; }
until_deadline "$(fx_loaded 10)" has_series \
	'{job="snmp",__name__="statctr_dataplane_if_stats_discontinuity",row="dp0"}' ||
	fail "the SNMP path has no statctr_dataplane_if_stats_discontinuity of dp0"
until_deadline "$(fx_loaded 10)" has_series \
	'{job="textfile",__name__="statctr_dataplane_if_stats_rx_octets_created",row="dp0"}' ||
	fail "the textfile path has no statctr_dataplane_if_stats_rx_octets_created of dp0"
# "up" answers for every job: an empty answer is then a failed query, not a pass.
until_deadline "$(fx_loaded 10)" has_series '{__name__="up"}' || fail "Prometheus does not answer queries"
left=$(series '{job="snmp",__name__!~"statctr_.+|snmp_scrape_.+|up|scrape_.+"}')
[ -z "$left" ] || fail "SNMP samples not renamed: $(head -n 5 <<<"$left")"
log "all passed"
