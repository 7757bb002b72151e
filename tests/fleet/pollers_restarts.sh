#!/bin/bash
# MRTG and collectd (the Debian tools, as tests/fleet/pollers.sh runs them)
# through snmpd while the writer is killed (-9) and restarted 3 times
# (docs/agent.md, "Counters across writer restarts"; carry_over on, the
# default).  totals.packets (Counter64) is polled by collectd every second
# as DERIVE (min 0) and as COUNTER, and by MRTG once per generation.
# Proves, without assuming any timing (every wait has a deadline):
# - MRTG logs the counter as the sum of every generation's count, and its
#   rate never exceeds the true one (no wrap: before carry_over a restart
#   was charged as a counter wrap);
# - collectd writes no nan (but the first value) and no negative rate, and
#   no rate above the whole test's increase per second (a wrap is 10^19).
. "${top_srcdir:-$(dirname "$0")/../..}/tests/fault/lib.sh"

fx_need snmpget mrtg collectd
[ -f /usr/share/collectd/types.db ] || skip "collectd's types.db missing (Debian: collectd-core)"

fx_config
fx_snmpd
fx_writer -t 2 -n 1000
fx_writer_settled
fx_agent
fx_wait_pass
PKT=$DATA.3.1.10.1 # totals.packets.all
total() { fx_reader | awk '$1 == "totals.packets.all" { print $2 }'; }

# ------------------------------------------------------------------------
mkdir -p "$TMP/mrtg" "$TMP/collectd" "$TMP/csv"
cat >"$TMP/mrtg.cfg" <<EOF
WorkDir: $TMP/mrtg
Target[pkts]: ${PKT#.}&${PKT#.}:$COMMUNITY@127.0.0.1:$PORT::::2
MaxBytes[pkts]: 10000000000
Title[pkts]: totals.packets
PageTop[pkts]: totals.packets
EOF
mrtg_run() {
	env LANG=C mrtg --lock-file "$TMP/mrtg.lock" --confcache-file "$TMP/mrtg.ok" \
		--logging "$TMP/mrtg.log" "$TMP/mrtg.cfg" || fail "mrtg failed: $(tail -n 5 "$TMP/mrtg.log")"
}

collectd_start packets "$PKT" "127.0.0.1:$PORT"
fx_wait "$(fx_loaded 20)" csv_has derive 2 || fail "collectd wrote no rates: $(tail -n 5 "$TMP/collectd.log")"

# MRTG's log: line 1 "TIME COUNTER COUNTER", line 2 "TIME RATE RATE MAX MAX".
mrtg_line() { sed -n "${1}p" "$TMP/mrtg/pkts.log"; }
mrtg_run
sum=$(total)
read -r t0 c0 _ <<<"$(mrtg_line 1)"
[ "$c0" = "$sum" ] || fail "MRTG logged $c0, not $sum"
first=$sum
for n in 500 1500 700; do
	sleep 1 # MRTG's rate needs a second between two runs
	writer_restart -t 2 -n "$n"
	sum=$((sum + 2 * n))
	[ "$(snmp_value "$PKT")" = "$sum" ] || fail "served totals.packets $(snmp_value "$PKT"), not the sum $sum"
	mrtg_run
	read -r t1 c1 _ <<<"$(mrtg_line 1)"
	read -r _ rate _ <<<"$(mrtg_line 2)"
	[ "$c1" = "$sum" ] || fail "MRTG logged $c1 after the restart, not the sum $sum"
	# The true rate over MRTG's window: what was counted over the seconds it measured.
	awk -v r="$rate" -v d=$((c1 - c0)) -v s=$((t1 - t0)) 'BEGIN { exit !(s > 0 && r <= d / s + 1) }' ||
		fail "MRTG charged $rate/s for $((c1 - c0)) packets in $((t1 - t0)) s (a spike)"
	log "restart (-n $n): MRTG logged $c1 = sum, rate $rate/s for $((c1 - c0)) packets in $((t1 - t0)) s"
	t0=$t1 c0=$c1
done

n=$(csv_lines counter | wc -l)
fx_wait "$(fx_loaded 20)" csv_has counter $((n + 2)) || fail "collectd stopped writing"
derive=$(csv_lines derive | tail -n +2 | cut -d, -f2 | tr '\n' ' ')
counter=$(csv_lines counter | tail -n +2 | cut -d, -f2 | tr '\n' ' ')
log "collectd rates: DERIVE: $derive; COUNTER: $counter"
bound=$((sum - first))
for kind in DERIVE COUNTER; do
	[ "$kind" = DERIVE ] && v=$derive || v=$counter
	tr ' ' '\n' <<<"$v" | awk -v max="$bound" 'NF && ($1 == "nan" || $1 < 0 || $1 > max) { bad = bad " " $1 }
		END { if (bad != "") { print bad; exit 1 } }' >"$TMP/bad" ||
		fail "collectd $kind: nan, negative or spiking rates across the restarts:$(cat "$TMP/bad")"
done
[ "$(wc -w <<<"$derive")" -ge 5 ] || fail "collectd logged only $(wc -w <<<"$derive") rates"
log "pass"
exit 0
