#!/bin/bash
# Prometheus through a writer's kill -9 and restarts (docs/agent.md,
# "Counters across writer restarts"; carry_over on, the default): snmpd,
# statctr-agentx, prometheus-snmp-exporter with the module of statctl
# exporter-config and Debian's generator, and a Prometheus scraping it
# every second with the relabelling of statctl exporter-config --relabel
# (docs/fleet.md), while the writer is killed (-9) and restarted 3 times.
# Asserted on Prometheus's own answers (every wait has a deadline):
# - it scraped each generation's sum of totals.packets (Counter64);
# - over the window from its first sample (the first generation's count)
#   to its last (after the last restart): the samples never decrease,
#   resets() is 0, the last sample is the sum of every generation's final
#   count and what snmpget reads, and increase() is exactly last - first
#   (the window ends on samples: nothing extrapolated, no reset
#   compensated);
# - the row's discontinuity series never changed (changes() 0) and is the
#   TimeStamp snmpget read before the restarts: the agent saw each old
#   writer's end.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/fault/lib.sh"
. "$top_srcdir/tests/fleet/fleet.sh"

MODULE=statctr_dataplane
fleet_need

fx_config
fleet_generate STATCTR-DATAPLANE-MIB "$MODULE"
fleet_relabel

# ------------------------------------------------------------------------
# The first generation, finished, served through snmpd

fx_snmpd
fx_writer -t 2 -n 1000
fx_writer_settled
fx_agent
fx_wait_pass
PKT=$DATA.3.1.10.1 PKTDISC=$DATA.3.1.3.1 # totals.packets.all, totals' discontinuity
# count: the writer's own count of totals.packets (examples/reader).
count() { fx_reader | awk '$1 == "totals.packets.all" { print $2 }'; }
sum=$(count)
[ "$sum" = 2000 ] || fail "the first writer counted $sum packets, not 2000"
[ "$(snmp_value "$PKT")" = "$sum" ] || fail "snmpget of totals.packets: $(snmp_value "$PKT"), not $sum"
disc0=$(snmp_value "$PKTDISC")

fleet_snmp_exporter
{
	fleet_prometheus_head
	fleet_snmp_job snmp "127.0.0.1:$PORT"
	cat "$TMP/relabel.yml"
} >"$TMP/prometheus.yml"
t0=$SECONDS
fleet_prometheus

PKTS='statctr_dataplane_totals_packets_total{row="all"}'
DISC='statctr_dataplane_totals_discontinuity{row="all"}'
# value PROMQL [TIME]: its first result's value (at TIME: seconds since the
# epoch, ms precision), or nothing.
value() {
	if [ -n "${2:-}" ]; then
		prom_query "$1" --data-urlencode "time=$2"
	else
		prom_query "$1"
	fi | jq -r '.data.result[0].value[1] // empty'
}
scraped() { [ "$(value "$PKTS")" = "$1" ]; }
wait_scraped() {
	until_deadline "$(fx_loaded 30)" scraped "$1" ||
		fail "Prometheus's totals.packets is '$(value "$PKTS")', not $1 within $(fx_loaded 30) s"
}
wait_scraped "$sum"
log "Prometheus scraped totals.packets = $sum"

# ------------------------------------------------------------------------
# kill -9 and restart, 3 times: the agent sees each writer gone

gens=$sum
for n in 500 1500 700; do
	writer_restart -t 2 -n "$n"
	gen=$(count)
	[ "$gen" = $((2 * n)) ] || fail "the writer counted $gen packets, not $((2 * n))"
	sum=$((sum + gen))
	gens="$gens + $gen"
	[ "$(snmp_value "$PKT")" = "$sum" ] || fail "snmpget of totals.packets: $(snmp_value "$PKT"), not the sum $sum"
	wait_scraped "$sum"
	log "restart (-n $n): Prometheus scraped totals.packets = $sum = $gens"
done
[ "$(snmp_value "$PKTDISC")" = "$disc0" ] ||
	fail "snmpget: the discontinuity moved ($disc0 -> $(snmp_value "$PKTDISC"))"

# ------------------------------------------------------------------------
# Prometheus's samples since its start, then its functions over exactly
# the window from the first sample to the last

samples() {
	prom_query "${PKTS}[$((SECONDS - t0 + 5))s]" |
		jq -r '.data.result[0].values[]? | "\(.[0] * 1000 | round) \(.[1])"' >"$TMP/samples" &&
		[ -s "$TMP/samples" ]
}
until_deadline "$(fx_loaded 10)" samples || fail "Prometheus gave no samples of $PKTS"
read -r first_ms first <"$TMP/samples"
read -r last_ms last <<<"$(tail -n 1 "$TMP/samples")"
log "$(wc -l <"$TMP/samples") samples: $first at $first_ms ms ... $last at $last_ms ms;" \
	"values $(cut -d' ' -f2 "$TMP/samples" | uniq | tr '\n' ' ')"
[ "$first" = 2000 ] || fail "the first sample is $first, not the first generation's 2000"
[ "$last" = "$sum" ] || fail "the last sample is $last, not the sum of every generation's count $sum ($gens)"
awk 'NR > 1 && $2 < v { print "at " $1 " ms: " v " -> " $2; bad = 1 } { v = $2 } END { exit bad }' \
	"$TMP/samples" >"$TMP/decreases" || fail "the samples decreased: $(head -n 3 "$TMP/decreases")"

# Evaluated at the last sample, a range of last - first holds the first
# sample too (Prometheus 2 includes a range's start): increase() then
# extrapolates nothing, count_over_time() counts every sample.
END=${last_ms%???}.${last_ms: -3}
W="[$((last_ms - first_ms))ms]"
# expect PROMQL WANT: its value at the window's end (a query retried to a
# deadline) is WANT.
at_end() { value "$1" "$END" >"$TMP/answer" && [ -s "$TMP/answer" ]; }
expect() {
	local got
	until_deadline "$(fx_loaded 10)" at_end "$1" || fail "Prometheus did not answer $1"
	got=$(cat "$TMP/answer")
	awk -v g="$got" -v w="$2" 'BEGIN { exit !(g == w + 0) }' || fail "$1 is $got, not $2"
	log "$1 = $got"
}
# The window holds every sample, so all the restarts.
expect "count_over_time($PKTS$W)" "$(wc -l <"$TMP/samples")"
expect "resets($PKTS$W)" 0
expect "$PKTS" "$sum"
expect "increase($PKTS$W)" $((last - first))
expect "changes($DISC$W)" 0
expect "min_over_time($DISC$W)" "$disc0"
expect "max_over_time($DISC$W)" "$disc0"
log "pass"
exit 0
