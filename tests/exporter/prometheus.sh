#!/bin/bash
# Prometheus 2.42 (Debian's) scrapes statctr-exporter every second.  It
# asks for OpenMetrics and gets it, and holds as many series of the segment
# as the 0.0.4 exposition (and the textfile) has samples; rate() of the paced writer's packets over 20 s equals the rate
# statctl's own two readings 20 s apart give, within 1%; and a killed writer
# is statctr_segment_up 0 in Prometheus at the next scrape.
. "$(dirname "$0")/lib.sh"
ex_need prometheus promtool jq

RATE=2000 # packets per second of each of the writer's 2 threads
fx_config
fx_writer -t 2 -r "$RATE"
ex_start

cat >"$TMP/prometheus.yml" <<YML
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: statctr
    static_configs:
      - targets: ["127.0.0.1:$EX_PORT"]
YML
promtool check config "$TMP/prometheus.yml" >"$TMP/promtool.log" 2>&1 ||
	fail "promtool check config: $(cat "$TMP/promtool.log")"
prometheus_ready() { curl -sf -o /dev/null "http://127.0.0.1:$1/-/ready"; }
fx_on_free_port prometheus 15 prometheus_ready \
	prometheus --config.file="$TMP/prometheus.yml" --storage.tsdb.path="$TMP/tsdb" \
	--web.listen-address=127.0.0.1:@PORT@ --log.level=warn
PROM_PORT=$FREE_PORT

# query PROMQL [TIME]: the first result's value, or nothing.
query() {
	curl -sf --max-time 5 "http://127.0.0.1:$PROM_PORT/api/v1/query" \
		--data-urlencode "query=$1" ${2:+--data-urlencode "time=$2"} |
		jq -r '.data.result[0].value[1] // empty'
}
scraped() { [ "$(query 'up{job="statctr"}')" = 1 ]; }
fx_wait "$(fx_loaded 30)" scraped || fail "Prometheus did not scrape the exporter within 30 s: $(
	curl -s "http://127.0.0.1:$PROM_PORT/api/v1/targets" | jq -c '.data.activeTargets[0].lastError')"

# ---- the series: the same on both formats (Prometheus 2.42 keeps an
# OpenMetrics counter's _created as a series of that name, as 0.0.4's gauge)
ex_get /metrics >"$TMP/plain.prom"
want=$(grep -v '^#' "$TMP/plain.prom" | grep -c '^statctr_dataplane_')
got=$(query 'count({job="statctr",__name__=~"statctr_dataplane_.*"})')
check "series of the segment in Prometheus" "$want" "$got"
check "the segment is up in Prometheus" 1 "$(query 'statctr_segment_up{segment="dataplane"}')"

# ---- rate(): Prometheus against statctl's two readings
packets() {
	"$STATCTL" -c "$TMP/statctr.conf" show -f prometheus dataplane |
		awk '/^statctr_dataplane_if_stats_rx_packets_total\{/ { s += $2 } END { print s }'
}
t1=$(date +%s.%N) v1=$(packets)
sleep 20
t2=$(date +%s.%N) v2=$(packets)
fx_wait 5 test "$(query 'time()')" '>' "$t2" || true
statctl_rate=$(awk -v a="$v1" -v b="$v2" -v s="$t1" -v e="$t2" 'BEGIN { printf "%.1f", (b - a) / (e - s) }')
prom_rate=$(query 'sum(rate(statctr_dataplane_if_stats_rx_packets_total[20s]))' "$t2")
log "statctl: $statctl_rate/s over $(awk -v s="$t1" -v e="$t2" 'BEGIN { printf "%.2f", e - s }') s; Prometheus rate()[20s]: $prom_rate/s"
[ -n "$prom_rate" ] || fail "no rate() from Prometheus"
awk -v a="$statctl_rate" -v b="$prom_rate" 'BEGIN { d = (a - b) / a; if (d < 0) d = -d; exit !(d <= 0.01 && a > 0) }' ||
	fail_later "rate() $prom_rate/s and statctl's $statctl_rate/s differ by more than 1%"

# ---- a killed writer: up 0 in Prometheus at the next scrape
fx_kill "$WRITER_PID" KILL
killed=$(date +%s.%N)
down() { [ "$(query 'statctr_segment_up{segment="dataplane"}')" = 0 ]; }
fx_wait "$(fx_loaded 10)" down || fail_later "statctr_segment_up did not fall to 0"
log "up 0 in Prometheus $(awk -v s="$killed" -v e="$(date +%s.%N)" 'BEGIN { printf "%.2f", e - s }') s after SIGKILL (scrape interval 1 s)"
check "status of the gone writer" gone "$(curl -sf "http://127.0.0.1:$PROM_PORT/api/v1/query" \
	--data-urlencode 'query=statctr_segment_up{segment="dataplane"}' | jq -r '.data.result[0].metric.status')"
test_finish
