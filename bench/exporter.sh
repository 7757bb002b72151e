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
OUT=${1:?usage: exporter.sh OUT_DIR [REPS]}
REPS=${2:-20}
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
top_builddir=${top_builddir:-$top_srcdir}
# shellcheck source=tests/exporter/lib.sh
. "$top_srcdir/tests/exporter/lib.sh"
WRITER=$top_builddir/tests/security/any_writer
[ -x "$WRITER" ] || skip "$WRITER not built (make tests/security/any_writer)"
command -v prometheus-node-exporter >/dev/null || skip "prometheus-node-exporter not found"
mkdir -p "$OUT"
HZ=$(getconf CLK_TCK)

cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
node_up() { curl -sf -o /dev/null "http://127.0.0.1:$1/metrics"; }

# scrape_once URL: "seconds series" of one scrape as Prometheus 2.42 asks for text.
scrape_once() {
	curl -s --compressed -H 'Accept: text/plain;version=0.0.4' -o "$TMP/body" \
		-w '%{time_total}' -m 120 "$1"
	echo " $(grep -c '^statctr_bench_' "$TMP/body")"
}

echo "series,server,scrape_median_s,scrape_max_s,cpu_ms_per_scrape,rss_kb,series_served" >"$OUT/exporter.csv"
for series in 1000 10000 100000; do
	rows=$((series / 10))
	cat >"$TMP/statctr.conf" <<CONF
segments = ( { name = "bench"; path = "$TMP/bench"; slots = 4;
  tables = ( { name = "t"; rows = $rows;
    columns = ( { name = "a"; kind = "counter"; }, { name = "b"; kind = "counter"; },
                { name = "c"; kind = "counter"; }, { name = "d"; kind = "counter"; },
                { name = "e"; kind = "counter"; } ); } ); } );
CONF
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
	for s in ex node; do
		if [ "$s" = ex ]; then pid=$EX_PID cpu=$ex_cpu name=statctr-exporter; else pid=$node_pid cpu=$node_cpu name=node_exporter-textfile; fi
		sort -n "$TMP/$s.times" | awk -v series="$series" -v name="$name" -v reps="$REPS" \
			-v cpu="$cpu" -v hz="$HZ" -v rss="$(fx_rss_kb "$pid")" '
			{ t[NR] = $1; n = $2 }
			END { printf "%d,%s,%.4f,%.4f,%.1f,%d,%d\n", series, name, t[int((NR + 1) / 2)], t[NR],
			      cpu * 1000 / hz / reps, rss, n }' >>"$OUT/exporter.csv"
	done
	ex_stop
	fx_stop "$node_pid"
	fx_untrack "$node_pid"
	fx_stop "$wpid"
	fx_untrack "$wpid"
	tail -n 2 "$OUT/exporter.csv"
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs"
