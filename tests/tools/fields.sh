#!/bin/sh
# statctl's field globs (-F GLOB, as varnishstat's -f): show, watch and diff
# print exactly the columns whose SEGMENT.TABLE.COLUMN the globs select
# (!GLOB excludes), in text, JSON and Prometheus; a table left with no
# column is not printed; bad globs are usage errors (exit 2).  watch gives
# counters a delta and a rate and a gauge its level alone.
. "${srcdir:-.}/tests/tools/lib.sh"
need_command jq

seg="stctl_fields_$$"
cleanup_fields() {
	cleanup
	rm -f "/dev/shm/statctr.$seg.epochs"
}
trap cleanup_fields EXIT

# lib.sh's configuration, with epochs for diff.
make_config() {
	sed -e "s/name = \"dataplane\";/name = \"$2\"; epochs = { keep = 4; interval_s = 900; };/" \
	    -e 's/rows = \[ "dp0", "dp1", "dp2", "dp3" \];/rows = [ "dp0", "eth\\"1", "eth\\\\2", "dp3" ];/' \
	    "$srcdir/conf/statctr.conf" >"$1"
}
settled_writer "$seg" 1 500

# columns FORMAT-OPTIONS...: "table:col,col table:col" of a show -f json.
columns() {
	"$STATCTL" show -f json "$@" | jq -r \
		'[.segments[0].tables[] | .name + ":" + ([.columns[].name] | join(","))] | join(" ")'
}

check "no -F: every column" \
	"ifStats:rxPackets,rxOctets,txPackets,txOctets,drops,queueDepth,speed flowStats:packets,octets totals:packets,octets,inFlight vfStats:rxPackets,rxOctets,txPackets,queueDepth stages:latency" \
	"$(columns "$seg")"
check "one table's columns, one left out" "totals:packets,inFlight" \
	"$(columns -F "$seg.totals.*" -F '!*.octets' "$seg")"
check "globs match across tables; tables with no column left out" \
	"ifStats:rxPackets,rxOctets vfStats:rxPackets,rxOctets" \
	"$(columns -F '*.rx*' "$seg")"
check "an exclusion alone keeps the rest" \
	"ifStats:queueDepth,speed totals:inFlight vfStats:queueDepth stages:latency" \
	"$(columns -F '!*ackets' -F '!*ctets' -F '!*.drops' "$seg")"
check "--field, and -F after the operands" "totals:inFlight" \
	"$(columns "$seg" --field "$seg.*.inFlight")"
check "JSON values hold the selected columns only" '["inFlight","packets"]' \
	"$("$STATCTL" show -f json -F '*.totals.packets' -F '*.totals.inFlight' "$seg" |
		jq -c '.segments[0].tables[0].rows[0].values | keys')"

check_status "show text -F" 0 "$STATCTL" show -F "$seg.totals.*" -F '!*.octets' "$seg"
check "text: the table's header and row" "row  packets  inFlight|all      500         0" \
	"$(printf '%s\n' "$out" | sed -n '/^row /,$p' | paste -sd'|')"
check "text: one table" 1 "$(printf '%s\n' "$out" | grep -c '^row ')"

check_status "show prometheus -F" 0 "$STATCTL" show -f prometheus -F "$seg.ifStats.rx*" "$seg"
printf '%s\n' "$out" >"$workdir/f.prom"
check "prometheus: the selected families (and _created)" \
	"statctr_segment_readable statctr_${seg}_if_stats_rx_octets_created statctr_${seg}_if_stats_rx_octets_total statctr_${seg}_if_stats_rx_packets_created statctr_${seg}_if_stats_rx_packets_total" \
	"$(sed -n 's/^# TYPE \([^ ]*\) .*/\1/p' "$workdir/f.prom" | LC_ALL=C sort | paste -sd' ')"
check "prometheus: one sample per row and family" 16 \
	"$(grep -c "^statctr_${seg}_if_stats_rx" "$workdir/f.prom")"
valid=no
$FORMATS prom "$workdir/f.prom" >/dev/null && valid=yes
check "prometheus output is valid" yes "$valid"

check_status "a glob that matches nothing" 0 "$STATCTL" show -F 'nosuch.*' "$seg"
check "nothing but the segment's line" 0 "$(printf '%s\n' "$out" | grep -c '^row ')"

# watch: counters get a delta and a rate, a gauge its level alone.
check_status "watch text -F" 0 "$STATCTL" watch -n 2 -i 0.1 -F '*.totals.*' -F '!*.octets' "$seg"
check "watch: two frames of the selected cells" \
	"all.packets 500 - -|all.inFlight 0|all.packets 500 0 0.0|all.inFlight 0" \
	"$(printf '%s\n' "$out" | grep '^  all\.' | sed 's/^ *//; s/  */ /g' | paste -sd'|')"
check_status "watch json -F" 0 "$STATCTL" watch -f json -n 2 -i 0.1 -F '*.totals.*' "$seg"
check "watch json: the selected columns" "totals:packets,octets,inFlight" \
	"$(printf '%s\n' "$out" | tail -1 | jq -r '[.segments[0].tables[] | .name + ":" + ([.columns[].name] | join(","))] | join(" ")')"
check "watch json: deltas and rates of counters only, not of the gauge" \
	'["octets","packets"] ["octets","packets"] 0' \
	"$(printf '%s\n' "$out" | tail -1 | jq -r '.segments[0].tables[0].rows[0] |
		"\(.deltas | keys | tojson) \(.rates | keys | tojson) \(.values.inFlight)"')"
check_status "watch prometheus -F" 0 "$STATCTL" watch -f prometheus -n 1 -F '*.inFlight' "$seg" totals
check "watch prometheus: the gauge's family only" \
	"statctr_segment_readable statctr_${seg}_totals_in_flight" \
	"$(printf '%s\n' "$out" | sed -n 's/^# TYPE \([^ ]*\) .*/\1/p' | LC_ALL=C sort | paste -sd' ')"

# diff: rows by name, the selected counters only.
check_status "epoch 1" 0 "$STATCTL" epoch start one "$seg"
check_status "epoch 2" 0 "$STATCTL" epoch start two "$seg"
check_status "diff -a -F" 0 "$STATCTL" diff -a -F "$seg.ifStats.rxPackets" -F "$seg.totals.*" \
	-F '!*.octets' 1 2 "$seg"
check "diff: rows by name, selected columns" \
	"ifStats dp0 rxPackets|ifStats eth\"1 rxPackets|ifStats eth\\2 rxPackets|ifStats dp3 rxPackets|totals all packets" \
	"$(printf '%s\n' "$out" | awk 'NR > 1 { print $2, $3, $4 }' | paste -sd'|')"
check_status "diff -a, numbered rows" 0 "$STATCTL" diff -a -F '*.flowStats.packets' 1 2 "$seg"
check "diff: numbered rows by number, as show" "0 63 64" \
	"$(printf '%s\n' "$out" | awk 'NR > 1 { n++; if (n == 1) f = $3; l = $3 } END { print f, l, n }')"

check_status "show -F ''" 2 "$STATCTL" show -F '' "$seg"
check "it says why" 1 "$(printf '%s\n' "$err" | grep -c "^statctl show: -F needs a glob, not ''$")"
check_status "watch -F !" 2 "$STATCTL" watch -n 1 -F '!' "$seg"
check_status "diff -F without a glob" 2 "$STATCTL" diff 1 2 "$seg" -F
many=$(for i in $(seq 1 65); do printf ' -F x%s' "$i"; done)
# shellcheck disable=SC2086 # split on purpose: 65 options
check_status "65 globs" 2 "$STATCTL" show $many "$seg"
check "it says the limit" 1 "$(printf '%s\n' "$err" | grep -c 'at most 64 -F globs')"
check_status "-F is not a list option" 2 "$STATCTL" list -F '*'
finish
