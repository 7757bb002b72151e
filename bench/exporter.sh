#!/bin/bash
# exporter.sh - Prometheus scrape cost (docs/PERFORMANCE.md, "statctr-exporter
# against node_exporter's textfile"): bench/exporter.sh OUT_DIR [REPS]
#
# For 1k, 10k and 100k series (one segment, one table of ROWS rows of 5
# counters: 10 series a row in text 0.0.4, a value and its _created), in
# one run: statctr-exporter serving the live segment, and
# prometheus-node-exporter (textfile collector only) serving the same
# series from `statctl show -f prometheus -o` written once.  Each is
# scraped REPS times in turn (A B A B ...: noise hits both alike) with
# curl, as Prometheus asks (text 0.0.4, gzip); per server: the median
# and the worst scrape time, its CPU per scrape (utime + stime of its
# process over the scrapes, /proc/PID/stat), its RSS after, and the body's
# series.  CSV to OUT_DIR/exporter.csv.
#
# With SNMP_REPS (third argument, default 3; 0: none) and Debian's
# prometheus-snmp-generator and prometheus-snmp-exporter, the same segment
# also through the SNMP path of docs/fleet.md: statctr-agentx as its own
# master (-M) walked by snmp_exporter with the module `statctl
# exporter-config` generates, SNMP_REPS scrapes (CPU: the agent's and
# snmp_exporter's together).
OUT=${1:?usage: exporter.sh OUT_DIR [REPS [SNMP_REPS]]}
REPS=${2:-20}
SNMP_REPS=${3:-3}
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
top_builddir=${top_builddir:-$top_srcdir}
# shellcheck source=tests/exporter/lib.sh
. "$top_srcdir/tests/exporter/lib.sh"
# shellcheck source=tests/fleet/fleet.sh
. "$top_srcdir/tests/fleet/fleet.sh"
WRITER=$top_builddir/tests/security/any_writer
[ -x "$WRITER" ] || skip "$WRITER not built (make tests/security/any_writer)"
command -v prometheus-node-exporter >/dev/null || skip "prometheus-node-exporter not found"
mkdir -p "$OUT"
HZ=$(getconf CLK_TCK)

cpu_ticks() { # PID...: their utime + stime together
	local p t=0
	for p; do t=$((t + $(awk '{ print $14 + $15 }' "/proc/$p/stat"))); done
	echo "$t"
}
node_up() { curl -sf -o /dev/null "http://127.0.0.1:$1/metrics"; }
# The agent -M answers a GET of sysUpTime (its own engine) on udp 127.0.0.1:PORT.
fx_agent_answers_on_bench() { snmpget -v2c -c public -t 0.3 -r 0 -Oqv "127.0.0.1:$1" .1.3.6.1.2.1.1.3.0; }

# scrape_once URL: "seconds series" of one scrape as Prometheus 2.42 asks for text.
scrape_once() {
	curl -s --compressed -H 'Accept: text/plain;version=0.0.4' -o "$TMP/body" \
		-w '%{time_total}' -m 600 "$1"
	echo " $(grep -v '^#' "$TMP/body" | grep -vc '^snmp_\|^statctr_segment_\|^statctr_exporter_\|^go_\|^process_\|^node_\|^promhttp_')"
}

# row LABEL PIDS_CPU_TICKS RSS_PID TIMES_FILE REPS: one CSV row.
row() {
	sort -n "$4" | awk -v series="$series" -v name="$1" -v reps="$5" \
		-v cpu="$2" -v hz="$HZ" -v rss="$(fx_rss_kb "$3")" '
		{ t[NR] = $1; n = $2 }
		END { printf "%d,%s,%.4f,%.4f,%.1f,%d,%d\n", series, name, t[int((NR + 1) / 2)], t[NR],
		      cpu * 1000 / hz / reps, rss, n }' >>"$OUT/exporter.csv"
}

config() { # ROWS: one segment "bench", a table of ROWS rows of 5 counters
	cat >"$TMP/statctr.conf" <<CONF
segments = ( { name = "bench"; path = "$TMP/bench"; slots = 4; oid = 1;
  tables = ( { name = "t"; oid = 1; rows = $1;
    columns = ( { name = "a"; kind = "counter"; }, { name = "b"; kind = "counter"; },
                { name = "c"; kind = "counter"; }, { name = "d"; kind = "counter"; },
                { name = "e"; kind = "counter"; } ); } ); } );
CONF
}

snmp=no
if [ "$SNMP_REPS" -gt 0 ]; then
	(fleet_need) >"$TMP/fleet_need.log" 2>&1 && fleet_need && snmp=yes ||
		echo "the SNMP path is left out: $(grep -h SKIP "$TMP/fleet_need.log")"
fi
if [ "$snmp" = yes ]; then
	config 10
	fleet_generate STATCTR-BENCH-MIB statctr_bench
	MODULE=statctr_bench
	fleet_snmp_exporter
	snmp_exp_pid=$FREE_PID
fi

echo "series,server,scrape_median_s,scrape_max_s,cpu_ms_per_scrape,rss_kb,series_served" >"$OUT/exporter.csv"
for series in 1000 10000 100000; do
	rows=$((series / 10))
	config "$rows"
	rm -f "$TMP/bench" "$TMP/bench.ctl"
	"$WRITER" "$TMP/statctr.conf" bench >"$TMP/writer.log" 2>&1 &
	wpid=$!
	fx_track "$wpid"
	fx_wait 10 grep -q created "$TMP/writer.log" || fail "the writer did not start"
	mkdir -p "$TMP/textfile"
	"$STATCTL" -c "$TMP/statctr.conf" show -f prometheus -o "$TMP/textfile/statctr.prom" ||
		fail "statctl show -o failed"
	ex_start
	fx_on_free_port node "$(fx_loaded 10)" node_up prometheus-node-exporter \
		--web.listen-address=127.0.0.1:@PORT@ --collector.disable-defaults \
		--collector.textfile --collector.textfile.directory="$TMP/textfile"
	node_port=$FREE_PORT node_pid=$FREE_PID
	scrape_once "http://127.0.0.1:$EX_PORT/metrics" >/dev/null # warm: first views, first page faults
	scrape_once "http://127.0.0.1:$node_port/metrics" >/dev/null
	ex_cpu=$(cpu_ticks "$EX_PID") node_cpu=$(cpu_ticks "$node_pid")
	: >"$TMP/ex.times"
	: >"$TMP/node.times"
	for i in $(seq "$REPS"); do
		scrape_once "http://127.0.0.1:$EX_PORT/metrics" >>"$TMP/ex.times"
		scrape_once "http://127.0.0.1:$node_port/metrics" >>"$TMP/node.times"
	done
	ex_cpu=$(($(cpu_ticks "$EX_PID") - ex_cpu))
	node_cpu=$(($(cpu_ticks "$node_pid") - node_cpu))
	row statctr-exporter "$ex_cpu" "$EX_PID" "$TMP/ex.times" "$REPS"
	row node_exporter-textfile "$node_cpu" "$node_pid" "$TMP/node.times" "$REPS"
	if [ "$snmp" = yes ]; then
		fx_on_free_port master 30 fx_agent_answers_on_bench \
			"$AGENT" -f -L stderr -c "$TMP/statctr.conf" -M udp:127.0.0.1:@PORT@
		master_port=$FREE_PORT master_pid=$FREE_PID
		url="http://127.0.0.1:$EXPORTER_PORT/snmp?module=$MODULE&target=127.0.0.1:$master_port"
		scrape_once "$url" >/dev/null
		snmp_cpu=$(cpu_ticks "$master_pid" "$snmp_exp_pid")
		: >"$TMP/snmp.times"
		for i in $(seq "$SNMP_REPS"); do scrape_once "$url" >>"$TMP/snmp.times"; done
		snmp_cpu=$(($(cpu_ticks "$master_pid" "$snmp_exp_pid") - snmp_cpu))
		row snmp_exporter-agent-M "$snmp_cpu" "$master_pid" "$TMP/snmp.times" "$SNMP_REPS"
		fx_stop "$master_pid"
		fx_untrack "$master_pid"
	fi
	ex_stop
	fx_stop "$node_pid"
	fx_untrack "$node_pid"
	fx_stop "$wpid"
	fx_untrack "$wpid"
	grep "^$series," "$OUT/exporter.csv"
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs"
