#!/bin/bash
# snmp.sh - SNMP serving speed (docs/PERFORMANCE.md, "SNMP serving"); run by
# bench/run.sh as: bench/snmp.sh OUT_DIR [--quick]
#
# One private snmpd (tests/integration/fixture.sh: udp on a free 127.0.0.1
# port, AgentX on a unix socket), the example writer with flowStats declared
# with 10,000 rows (50,000 varbinds: rowName, discontinuity, reset, packets,
# octets), statctr-agentx as its subagent and, on another port, as its own
# master (-M), and bench/ref_subagent twice, minimal Net-SNMP subagents
# serving a table of the same shape with static values on the same snmpd
# (ref_subagent: table_tdata; ref_dataset: table_dataset, O(rows) a request).
# In rounds, so that noise hits the paths alike (A B A B ...):
#   snmpbulkwalk -Cr50 of the table through snmpd, of the references'
#   tables through snmpd, of snmpd's native mib-2, and of the table from
#   the embedded master: varbinds/s, median of REPS;
# then, through snmpd, the table walked one varbind per GETBULK against
# GETBULKs naming every column, 50 varbinds per answer both ways
# (bench/bench_snmpwalk, REPS rounds, interleaved);
# then GET latency of random rows, 8 concurrent pollers, each path.
# Every process is stopped by the fixture's EXIT trap.
OUT=${1:?usage: snmp.sh OUT_DIR [--quick]}
QUICK=${2:-}
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
top_builddir=${top_builddir:-$top_srcdir}
# shellcheck source=tests/integration/fixture.sh
. "$top_srcdir/tests/integration/fixture.sh"

if [ "$QUICK" = --quick ]; then
	ROWS=1000 REPS=1 GET_SECONDS=1 PACKETS=1000
else
	ROWS=10000 REPS=5 GET_SECONDS=5 PACKETS=100000
fi
POLLERS=8
SNMPGET_BENCH=$top_builddir/bench/bench_snmpget
SNMPWALK_BENCH=$top_builddir/bench/bench_snmpwalk
REF_SUBAGENT=$top_builddir/bench/ref_subagent
for prog in "$SNMPGET_BENCH" "$SNMPWALK_BENCH" "$REF_SUBAGENT"; do
	[ -x "$prog" ] || fail "$prog not built"
done
# The references' tables: beside STATCTR-MIB's root, with OIDs of the same
# length as $DATA.2, so that the walks encode the same number of bytes.
REFDATA=.1.3.6.1.4.1.8072.9999.9999.4243.3.1.2
REFLIST=.1.3.6.1.4.1.8072.9999.9999.4243.3.1.3

fx_need snmpbulkwalk snmpget
fx_config "interval_ms = 1000;"
sed -i "s/rows = 64;/rows = $ROWS;/" "$TMP/statctr.conf"
grep -q "rows = $ROWS;" "$TMP/statctr.conf" || fail "cannot declare flowStats with $ROWS rows"
fx_snmpd
fx_writer -t 2 -n "$PACKETS"
# shellcheck disable=SC2119 # no extra agent options
fx_agent
fx_writer_settled
fx_wait_pass
SNMPD_PORT=$PORT

# shellcheck disable=SC2317 # invoked through fx_wait
answers_on() {
	snmpget -v2c -c "$COMMUNITY" -t 0.3 -r 0 -Oqv "127.0.0.1:$1" "$ROOT.1.1.1.0" |
		grep -qv '^No Such'
}

start_embedded() {
	local try pid
	for try in 1 2 3 4 5; do
		EMB_PORT=$((20000 + (RANDOM * 7 + $$ + try) % 40000))
		"$AGENT" -f -L stderr -c "$TMP/statctr.conf" -M "udp:127.0.0.1:$EMB_PORT" \
			>>"$TMP/embedded.log" 2>&1 &
		pid=$!
		fx_track "$pid"
		fx_wait 5 answers_on "$EMB_PORT" && return 0
		fx_stop "$pid"
		fx_untrack "$pid"
	done
	fail "the embedded master did not answer on any of 5 ports"
}
start_embedded

# ref_answers OID: the last row of the reference table at OID answers.
ref_answers() {
	snmpget -v2c -c "$COMMUNITY" -t 0.3 -r 0 -Oqv "127.0.0.1:$SNMPD_PORT" "$1.1.10.$ROWS" |
		grep -qv '^No Such'
}
# shellcheck disable=SC2317 # invoked through fx_wait
ref_answers_or_died() { ref_answers "$1" || ! kill -0 "$2"; }
# start_ref KIND OID: a reference subagent of KIND serving its table at OID.
start_ref() {
	local pid
	"$REF_SUBAGENT" -k "$1" -x "$TMP/agentx.sock" -o "$2" -r "$ROWS" >>"$TMP/ref_$1.log" 2>&1 &
	pid=$!
	fx_track "$pid"
	fx_wait 30 ref_answers_or_died "$2" "$pid"
	ref_answers "$2" || fail "the $1 reference subagent did not answer through snmpd"
}
start_ref tdata "$REFDATA"
start_ref dataset "$REFLIST"

# Prints "varbinds seconds" of one snmpbulkwalk of $2 on port $1.
walk() {
	local port=$1 oid=$2 t0 t1 n
	t0=$(date +%s%N)
	n=$(snmpbulkwalk -v2c -c "$COMMUNITY" -On -Oq -Cr50 -t 10 -r 0 "127.0.0.1:$port" "$oid" |
		grep -c "^$oid\.")
	t1=$(date +%s%N)
	echo "$n $(((t1 - t0) / 1000)) "
}

# path port oid; "client" walks one scalar: the time snmpbulkwalk itself
# takes to start, resolve and exit, subtracted for the net figures.
PATHS="client $SNMPD_PORT .1.3.6.1.2.1.1.3
via_snmpd $SNMPD_PORT $DATA.2
ref_subagent $SNMPD_PORT $REFDATA
ref_dataset $SNMPD_PORT $REFLIST
snmpd_native $SNMPD_PORT .1.3.6.1.2.1
embedded_master $EMB_PORT $DATA.2"

: >"$TMP/walks"
for _ in $(seq "$REPS"); do
	while read -r name port oid; do
		echo "$name $(walk "$port" "$oid")" >>"$TMP/walks"
	done <<<"$PATHS"
done

# "path,reps,varbinds,seconds,varbinds_per_s,min,max,client_s,net_varbinds_per_s,
# count_changed": medians over the rounds (seconds: of the median round).
awk '
	function median(a, m) { return m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2 }
	function sort(a, m,   i, j, t) {
		for (i = 2; i <= m; i++)
			for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
	}
	{
		p = $1; k = ++n[p]; secs[p, k] = $3 / 1e6
		if ((p in vb) && vb[p] != $2) changed[p] = 1
		vb[p] = $2
	}
	END {
		m = n["client"]
		for (k = 1; k <= m; k++) c[k] = secs["client", k]
		sort(c, m); client = median(c, m)
		for (p in n) {
			if (p == "client") continue
			m = n[p]; delete v; delete net
			for (k = 1; k <= m; k++) {
				v[k] = vb[p] / secs[p, k]
				net[k] = secs[p, k] > client ? vb[p] / (secs[p, k] - client) : v[k]
			}
			sort(v, m); sort(net, m)
			printf "%s,%d,%d,%.4f,%.0f,%.0f,%.0f,%.4f,%.0f,%d\n", p, m, vb[p],
				vb[p] / median(v, m), median(v, m), v[1], v[m], client, median(net, m),
				changed[p] + 0
		}
	}' "$TMP/walks" | sort >"$TMP/walk.csv"

{
	echo "path,reps,varbinds,seconds,varbinds_per_s,min,max,client_s,net_varbinds_per_s,count_changed"
	cat "$TMP/walk.csv"
} >"$OUT/snmp_walk.csv"

vbs_of() { awk -F, -v p="$1" '$1 == p { print $9 }' "$TMP/walk.csv"; }
count_of() { awk -F, -v p="$1" '$1 == p { print $3 }' "$TMP/walk.csv"; }

echo
echo "SNMP walks: snmpbulkwalk -Cr50, $ROWS-row table ($((ROWS * 5)) varbinds), median of $REPS;"
echo "net = without the client's own start-up ($(awk -F, 'NR == 1 { print $8 * 1000 }' "$TMP/walk.csv") ms)"
printf '%-16s %10s %14s %14s %8s\n' path varbinds varbinds/s net_vb/s x-native
while IFS=, read -r p _ n _ v _ _ _ net _; do
	printf '%-16s %10s %14s %14s %8.2f\n' "$p" "$n" "$v" "$net" \
		"$(awk -v a="$net" -v b="$(vbs_of snmpd_native)" 'BEGIN { print a / b }')"
done <"$TMP/walk.csv"

[ "$(count_of via_snmpd)" = $((ROWS * 5)) ] ||
	fail "the walk through snmpd returned $(count_of via_snmpd) varbinds, not $((ROWS * 5))"
[ "$(count_of embedded_master)" = $((ROWS * 5)) ] ||
	fail "the embedded walk returned $(count_of embedded_master) varbinds, not $((ROWS * 5))"
for p in ref_subagent ref_dataset; do
	[ "$(count_of $p)" = $((ROWS * 5)) ] ||
		fail "the $p walk returned $(count_of $p) varbinds, not $((ROWS * 5))"
done

# One varbind per request against every column per request, through snmpd.
"$SNMPWALK_BENCH" "udp:127.0.0.1:$SNMPD_PORT" "$COMMUNITY" "$DATA.2" "$REPS" 50 \
	>"$TMP/columns" || fail "bench_snmpwalk failed"
{
	echo "request,varbinds_per_request,rounds,varbinds,requests,seconds,varbinds_per_s,min,max"
	awk -v reps="$REPS" '{ print $1 "," $2 "," reps "," $3 "," $4 "," $5 "," $6 "," $7 "," $8 }' \
		"$TMP/columns"
} >"$OUT/snmp_columns.csv"
echo
echo "GETBULK through snmpd, 50 varbinds per answer, median of $REPS interleaved rounds"
printf '%-16s %12s %10s %10s %14s\n' request varbinds/req varbinds requests varbinds/s
awk '{ printf "%-16s %12s %10s %10s %14s\n", $1, $2, $3, $4, $6 }' "$TMP/columns"
columns_rate() { awk -v w="$1" '$1 == w { print $6 }' "$TMP/columns"; }
for way in one_varbind all_columns; do
	n=$(awk -v w="$way" '$1 == w { print $3 }' "$TMP/columns")
	[ "$n" = $((ROWS * 5)) ] || fail "the $way walk returned ${n:-no} varbinds, not $((ROWS * 5))"
done

# GET latency: packets column (.10) of random rows.
echo "path,pollers,seconds,requests,errors,requests_per_s,p50_us,p99_us,mean_us,max_us" \
	>"$OUT/snmp_get.csv"
echo
echo "GET latency, $POLLERS concurrent pollers, ${GET_SECONDS} s each path"
printf '%-16s %9s %7s %9s %9s %9s %9s\n' path requests errors req/s p50_us p99_us mean_us
while read -r name port; do
	line=$("$SNMPGET_BENCH" "udp:127.0.0.1:$port" "$COMMUNITY" "$DATA.2.1.10" "$ROWS" \
		"$POLLERS" "$GET_SECONDS") || fail "bench_snmpget failed on $name"
	read -r requests errors rps p50 p99 mean max <<<"$line"
	printf '%-16s %9s %7s %9s %9s %9s %9s\n' "$name" "$requests" "$errors" "$rps" "$p50" \
		"$p99" "$mean"
	echo "$name,$POLLERS,$GET_SECONDS,$requests,$errors,$rps,$p50,$p99,$mean,$max" \
		>>"$OUT/snmp_get.csv"
	[ "$errors" -le $((requests / 100)) ] || fail "$name: $errors of $requests GETs failed"
done <<EOF
via_snmpd $SNMPD_PORT
embedded_master $EMB_PORT
EOF

# Targets, in the format of the C benchmarks (bench/harness.c).
target() {
	local what=$1 value=$2 op=$3 limit=$4 verdict
	verdict=$(awk -v v="$value" -v l="$limit" -v op="$op" 'BEGIN {
		ok = (op == ">=") ? v >= l : v <= l; print ok ? "PASS" : "FAIL" }')
	[ "$QUICK" = --quick ] && verdict=quick
	printf 'TARGET %-58s %10.3f %s %-8s %s\n' "$what" "$value" "$op" "$limit" "$verdict"
	echo "snmp,\"$what\",$value,$op,$limit,$verdict" >>"$OUT/targets.csv"
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.4f", a / b }'; }
echo
target "snmp: embedded master / snmpd native varbinds/s (net)" \
	"$(ratio "$(vbs_of embedded_master)" "$(vbs_of snmpd_native)")" ">=" 1.0
target "snmp: via snmpd, statctr-agentx / ref. subagent varbinds/s" \
	"$(ratio "$(vbs_of via_snmpd)" "$(vbs_of ref_subagent)")" ">=" 0.95
target "snmp: via snmpd, GETBULK of every column / 1 varbind" \
	"$(ratio "$(columns_rate all_columns)" "$(columns_rate one_varbind)")" ">=" 3
exit 0
