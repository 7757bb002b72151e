#!/bin/bash
# plot-bench.sh - render the benchmark CSVs of bench/run.sh as PNG plots.
#
#   scripts/plot-bench.sh DIR [OUTDIR]
#
# Reads DIR/update.csv, snapshot_cost.csv, snapshot_slowdown.csv,
# agent_pass.csv and snmp_walk.csv (each plot is skipped when its CSV is
# missing) and writes OUTDIR/<name>.png (OUTDIR defaults to DIR) with
# gnuplot's pngcairo terminal (Debian: apt-get install gnuplot-nox).
set -eu

IN=${1:?usage: plot-bench.sh DIR [OUTDIR]}
OUT=${2:-$IN}
command -v gnuplot >/dev/null || { echo "plot-bench: gnuplot not found (apt-get install gnuplot-nox)" >&2; exit 1; }
mkdir -p "$OUT"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

COMMON='set terminal pngcairo size 900,520 font "DejaVu Sans,10" noenhanced
set datafile separator ","
set grid ytics
set key top left'

# "pattern,t1,t2" rows of update.csv for work $1: ns per update, or with
# $2 = "relative" the packet loop's time over the no-update loop's.
update_table() {
	awk -F, -v work="$1" -v rel="${2:-}" 'NR > 1 && $3 == work {
		if ($1 == "none") { none[$2] = $6; next }
		if (!($1 in seen)) { order[++n] = $1; seen[$1] = 1 }
		v[$1, $2] = $6
	}
	END {
		for (i = 1; i <= n; i++) {
			p = order[i]
			if (rel) printf "%s,%s,%s\n", p, v[p, 1] / none[1], v[p, 2] / none[2]
			else printf "%s,%s,%s\n", p, v[p, 1], v[p, 2]
		}
	}' "$IN/update.csv"
}

plot_update() {
	[ -f "$IN/update.csv" ] || return 0
	update_table 0 >"$TMP/u0"
	update_table 1000 relative >"$TMP/u1"
	gnuplot <<EOF
$COMMON
set output "$OUT/update.png"
set title "Counter update cost, 4 updates per packet, no other work (median; log scale)"
set ylabel "ns per update"
set logscale y
set yrange [0.1:*]
set style data histogram
set style histogram cluster gap 1
set style fill solid 0.85 border -1
set xtics rotate by -25 scale 0
set bmargin 6
plot "$TMP/u0" using 2:xtic(1) title "1 thread", "" using 3 title "2 threads"
set output "$OUT/update_work.png"
set title "With ~1000 TSC cycles of work per packet: packet loop time / the same loop without updates"
set ylabel "relative time (1 = free)"
unset logscale y
set yrange [0.95:*]
plot "$TMP/u1" using 2:xtic(1) title "1 thread", "" using 3 title "2 threads"
EOF
}

plot_snapshot() {
	[ -f "$IN/snapshot_cost.csv" ] || return 0
	# One block per slot count: "cells,ns per cell.slot (take),memcpy warm,retake".
	awk -F, 'NR > 1 { rows[$2] = rows[$2] $1 "," $6 "," $7 "," $12 "\n"; if (!($2 in seen)) { seen[$2] = 1; order[++n] = $2 } }
		END { for (i = 1; i <= n; i++) printf "%s\n\n", rows[order[i]] }' \
		"$IN/snapshot_cost.csv" >"$TMP/snap"
	slots=$(awk -F, 'NR > 1 && !seen[$2]++ { printf "%s ", $2 }' "$IN/snapshot_cost.csv")
	gnuplot <<EOF
$COMMON
set output "$OUT/snapshot_cost.png"
set title "Reader cost, writers idle (median; solid: snap_take, dotted: snap_retake, dashed: memcpy)"
set xlabel "cells"
set ylabel "ns per cell per slot"
set logscale xy
set key top left
slots = "$slots"
plot for [i = 1:words(slots)] "$TMP/snap" index (i - 1) using 1:2 with linespoints lw 2 \\
	lc i title word(slots, i)." slot(s)", \\
     for [i = 1:words(slots)] "$TMP/snap" index (i - 1) using 1:4 with linespoints dt 3 pt 6 lc i notitle, \\
     for [i = 1:words(slots)] "$TMP/snap" index (i - 1) using 1:3 with lines dt 2 lc i notitle
EOF
	[ -f "$IN/snapshot_slowdown.csv" ] || return 0
	gnuplot <<EOF
$COMMON
set output "$OUT/snapshot_slowdown.png"
set title "Writer slowdown by a reader polling 100,000 cells x 2 slots (paired runs: median, min..max)"
set xlabel "reader poll interval (ms)"
set ylabel "writer ns/update with reader / without"
set logscale x
set xrange [5:2000]
set yrange [0.9:*]
set key top right
plot "$IN/snapshot_slowdown.csv" skip 1 using 1:6:7:8 with yerrorbars lw 2 pt 7 title "slowdown", \
     1.10 with lines dt 2 title "target 1.10 at 100 ms"
EOF
}

plot_agent() {
	[ -f "$IN/agent_pass.csv" ] || return 0
	gnuplot <<EOF
$COMMON
set output "$OUT/agent_pass.png"
set title "Aggregation pass duration vs cells x slots (writers idle; median)"
set xlabel "cells x slots"
set ylabel "microseconds"
set logscale xy
plot "$IN/agent_pass.csv" skip 1 using (\$1 * \$2):(\$5 > 0 ? \$5 : 1/0) with points pt 7 ps 1.3 \
	title "statctr-agentx (statctrAggDuration)", \
     "" skip 1 using (\$1 * \$2):8 with points pt 6 ps 1.6 title "library: refresh + snapshot"
EOF
}

plot_snmp() {
	[ -f "$IN/snmp_walk.csv" ] || return 0
	gnuplot <<EOF
$COMMON
set output "$OUT/snmp_walk.png"
set title "snmpbulkwalk -Cr50 speed (median; log scale)"
set ylabel "varbinds per second"
set logscale y
set yrange [1000:*]
set style data histogram
set style histogram cluster gap 1
set style fill solid 0.85 border -1
set xtics scale 0
plot "$IN/snmp_walk.csv" skip 1 using 5:xtic(1) title "as measured", \
     "" skip 1 using 9 title "net of the client's start-up"
EOF
}

plot_update
plot_snapshot
plot_agent
plot_snmp
