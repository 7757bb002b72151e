#!/bin/bash
# docs/fleet.md's histogram recipe, end to end: examples/stages records
# stages.latency of conf/statctr.conf; statctr-agentx (-M) serves it;
# snmp_exporter scrapes it with the module that statctl exporter-config and
# Debian's generator make; Prometheus scrapes the exporter with the
# recipe's metric_relabel_configs (the bound label becomes "le", the old
# one is dropped).  Asserted: each stage's buckets are one series group
# (17 series per row, labels le and the row name only), and
# histogram_quantile(0.9, rate(...)) is a number within the declared
# bounds for every stage (not NaN, which the old bound label gave).
. "${top_srcdir:-$(dirname "$0")/../..}/tests/fault/lib.sh"
. "$top_srcdir/tests/fleet/fleet.sh"

STAGES=$top_builddir/examples/stages
MODULE=statctr_dataplane
fleet_need
[ -x "$STAGES" ] || skip "examples/stages not built"

fx_config
fleet_generate STATCTR-DATAPLANE-MIB "$MODULE"

"$STAGES" -c "$TMP/statctr.conf" -r 2000 >"$TMP/stages.log" 2>&1 &
fx_track $!
fx_wait 5 test -e "$SEGMENT" || fail "examples/stages made no segment"
fx_on_free_port master 5 fx_agent_answers_on \
	"$AGENT" -f -L stderr -c "$TMP/statctr.conf" -M udp:127.0.0.1:@PORT@
MASTER_PORT=$FREE_PORT
fleet_snmp_exporter

# The recipe of docs/fleet.md ("Histograms"), scrape interval 1 s.
cat >"$TMP/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
$(fleet_snmp_job statctr "127.0.0.1:$MASTER_PORT")
    metric_relabel_configs:
      - source_labels: [dataplaneStagesLatencyBucketBound]
        regex: (.+)
        target_label: le
      - regex: dataplaneStagesLatencyBucketBound
        action: labeldrop
EOF
fleet_prometheus

# query PROMQL: the result as "labels value" lines.
query() {
	prom_query "$1" |
		jq -r '.data.result[] | "\(.metric | del(.instance, .job) | tojson) \(.value[1])"'
}
P90='histogram_quantile(0.9, rate(dataplaneStagesLatencyBucketCount[5s]))'
# Every stage's p90 is a number (not NaN) within the declared bounds.
quantiles_ok() {
	[ "$(query "$P90" | awk '$2 != "NaN" && $2 >= 0 && $2 <= 524288' | wc -l)" = 3 ]
}
fx_wait 60 quantiles_ok || fail "histogram_quantile gave no number for every stage within 60 s: $(query "$P90")"
query "$P90" | while read -r labels value; do log "p90 $labels: $value ns"; done
# One group per row: le and the row name are the labels, 17 buckets each.
# Polled: a scrape that timed out (1 s, on a loaded machine) marks the
# series stale, and an instant query then finds none.
per_row() {
	groups=$(query 'count by (dataplaneStagesRowName) (dataplaneStagesLatencyBucketCount)')
	[ "$(awk '$2 == 17' <<<"$groups" | wc -l)" = 3 ]
}
fx_wait 10 per_row || fail "bucket series per row: $groups"
[ -z "$(query 'dataplaneStagesLatencyBucketCount{dataplaneStagesLatencyBucketBound!=""}')" ] ||
	fail "the old bound label is still there"
log "pass"
exit 0
