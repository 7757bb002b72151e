#!/bin/bash
# Prometheus 2.42 (Debian's) scrapes statctr-exporter every second.  It
# asks for OpenMetrics and gets it, and holds as many series of the segment
# as the 0.0.4 exposition (and the textfile) has samples; with the writer
# frozen at both ends of a 20 s window, Prometheus holds statctl's counts
# exactly and rate() over the span between them is their difference per
# second, within 0.1%; and a killed writer is statctr_segment_up 0 in
# Prometheus at the next scrape.
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

# ---- rate(): Prometheus against statctl.  The writer is frozen at both
# ends of a 20 s window, so there statctl's count and Prometheus's samples
# must be the same number, v1 and v2.  rate() over exactly the span of the
# last sample at v1 to the first at v2 is then (v2 - v1) / span, whatever
# the writer's pace did in between (a paced writer on a loaded machine lags
# and catches up, so no two windows that merely overlap see one rate).
RX=statctr_dataplane_if_stats_rx_packets_total
packets() {
	"$STATCTL" -c "$TMP/statctr.conf" show -f prometheus dataplane |
		awk '/^statctr_dataplane_if_stats_rx_packets_total\{/ { s += $2 } END { print s }'
}
scraped() { [ "$(query "sum($RX)")" = "$1" ]; }
# frozen_count: the writer stopped, its count from statctl in COUNT once
# Prometheus scraped the same; the writer goes on.
frozen_count() {
	fx_freeze "$WRITER_PID"
	COUNT=$(packets)
	fx_wait 10 scraped "$COUNT" ||
		fail "Prometheus did not scrape the frozen count $COUNT within $(fx_loaded 10) s (it has $(query "sum($RX)"))"
	kill -CONT "$WRITER_PID"
}
frozen_count
v1=$COUNT
sleep 20 # the window; the writer runs
frozen_count
v2=$COUNT
# "ms-timestamp sum" per scrape over the last 2 minutes (one scrape's
# samples share its timestamp).
curl -sf --max-time 5 "http://127.0.0.1:$PROM_PORT/api/v1/query" --data-urlencode "query=$RX[2m]" |
	jq -r '[.data.result[].values[]] | group_by(.[0]) | .[] |
		"\((.[0][0] * 1000) | round) \(map(.[1] | tonumber) | add)"' >"$TMP/samples" ||
	fail "no samples of $RX from Prometheus"
tf=$(awk -v v="$v1" '$2 == v { t = $1 } END { print t }' "$TMP/samples")
tl=$(awk -v v="$v2" '$2 == v { print $1; exit }' "$TMP/samples")
[ -n "$tf" ] && [ -n "$tl" ] && [ "$tl" -gt "$tf" ] ||
	fail "no samples at $v1 then $v2 in Prometheus: $(tr '\n' ' ' <"$TMP/samples")"
want=$(awk -v a="$v1" -v b="$v2" -v s="$tf" -v e="$tl" 'BEGIN { printf "%.3f", (b - a) * 1000 / (e - s) }')
prom_rate=$(query "sum(rate($RX[$((tl - tf + 1))ms]))" "$(awk -v t="$tl" 'BEGIN { printf "%.3f", t / 1000 }')")
log "statctl: $v1 then $v2 packets, scraped $((tl - tf)) ms apart: $want/s; Prometheus rate(): $prom_rate/s"
[ -n "$prom_rate" ] || fail "no rate() from Prometheus"
awk -v a="$want" -v b="$prom_rate" 'BEGIN { d = (a - b) / a; if (d < 0) d = -d; exit !(d <= 0.001 && a > 0) }' ||
	fail_later "rate() $prom_rate/s and statctl's $want/s differ by more than 0.1%"

# ---- a killed writer: up 0 in Prometheus at the next scrape
fx_kill "$WRITER_PID" KILL
killed=$(date +%s.%N)
down() { [ "$(query 'statctr_segment_up{segment="dataplane"}')" = 0 ]; }
fx_wait "$(fx_loaded 10)" down || fail_later "statctr_segment_up did not fall to 0"
log "up 0 in Prometheus $(awk -v s="$killed" -v e="$(date +%s.%N)" 'BEGIN { printf "%.2f", e - s }') s after SIGKILL (scrape interval 1 s)"
check "status of the gone writer" gone "$(curl -sf "http://127.0.0.1:$PROM_PORT/api/v1/query" \
	--data-urlencode 'query=statctr_segment_up{segment="dataplane"}' | jq -r '.data.result[0].metric.status')"
test_finish
