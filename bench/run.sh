#!/bin/bash
# run.sh - the statctr benchmark suite (`make bench`; docs/PERFORMANCE.md).
#
#   bench/run.sh [--quick] [--out DIR] [--build-dir DIR]
#
# Runs every benchmark family in one go, on this machine, so that each
# ratio compares figures measured in the same run: memory, update cost
# (timed, then instruction counts under callgrind), histogram record cost
# (the same two ways), snapshots (and the Python reader's), the agent's
# aggregation pass and CPU share, SNMP serving.  Each family prints a table
# and writes DIR/<family>*.csv; targets are collected in DIR/targets.csv
# and summarised at the end; scripts/plot-bench.sh renders DIR/*.png.
#
# --quick is the CI smoke test (< 60 s): tiny sizes, every sanity check
# (exact totals, snapshot invariants, sane CSVs), no verdict on timings.
# Exit status: 0, or 1 when a sanity check failed (never for a missed
# timing target: this VM is noisy, read the report).
set -u

srcdir=$(cd "$(dirname "$0")/.." && pwd)
builddir=$srcdir
QUICK=""
OUT=""
while [ $# -gt 0 ]; do
	case $1 in
	--quick) QUICK=--quick ;;
	--out) OUT=$2; shift ;;
	--build-dir) builddir=$2; shift ;;
	*) echo "usage: bench/run.sh [--quick] [--out DIR] [--build-dir DIR]" >&2; exit 2 ;;
	esac
	shift
done
[ -n "$OUT" ] || OUT=$builddir/bench-results${QUICK:+-quick}
mkdir -p "$OUT/log" || exit 2
OUT=$(cd "$OUT" && pwd)
rm -f "$OUT"/*.csv "$OUT"/*.png "$OUT"/log/*

BENCH_TMP=$(mktemp -d "${TMPDIR:-/dev/shm}/statctr-bench.XXXXXX") || exit 2
export BENCH_TMP
# Net-SNMP's clients and agents (init_snmp() creates cert_indexes there even
# with persistence off) keep their state here, never in /var/lib/snmp.
SNMP_PERSISTENT_DIR=$BENCH_TMP/snmp
mkdir -m 0700 "$SNMP_PERSISTENT_DIR" || exit 2
export SNMP_PERSISTENT_DIR
CHILD=""
# shellcheck disable=SC2317 # invoked by the trap
cleanup() {
	[ -n "$CHILD" ] && kill -TERM "$CHILD" 2>/dev/null && wait "$CHILD" 2>/dev/null
	rm -rf "$BENCH_TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

B=$builddir/bench
FAILED=""
SKIPPED=""
START=$(date +%s)

# step NAME COMMAND...: runs one family, output to the terminal and DIR/log/NAME.txt.
step() {
	local name=$1 rc t0
	shift
	t0=$(date +%s)
	echo
	echo "=== $name: $*"
	"$@" > >(tee "$OUT/log/$name.txt") 2>&1 &
	CHILD=$!
	wait "$CHILD"
	rc=$?
	CHILD=""
	sleep 0.1 # let tee drain
	echo "=== $name: exit $rc, $(($(date +%s) - t0)) s"
	case $rc in
	0) ;;
	77) SKIPPED="$SKIPPED $name" ;;
	*) FAILED="$FAILED $name" ;;
	esac
}

machine() {
	local model
	model=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)
	{
		echo "key,value"
		echo "date,$(date -u +%Y-%m-%dT%H:%M:%SZ)"
		echo "cpu,\"$model\""
		echo "cpus,$(nproc)"
		echo "kernel,$(uname -r)"
		echo "compiler,\"$(${CC:-gcc} --version 2>/dev/null | head -n 1)\""
		echo "loadavg_before,\"$(cut -d' ' -f1-3 /proc/loadavg)\""
		echo "commit,$(git -C "$srcdir" describe --always --dirty 2>/dev/null || echo unknown)"
		echo "mode,${QUICK:-full}"
	} >"$OUT/machine.csv"
}

# Instruction counts per update: one tiny single-thread run under callgrind;
# Ir of each loop_<pattern> function (inclusive) / (packets x 4).
# shellcheck disable=SC2317 # invoked through step
callgrind() {
	local packets=$1 out=$BENCH_TMP/callgrind.out
	valgrind --tool=callgrind --callgrind-out-file="$out" "$B/bench_update" \
		--callgrind "$packets" --out "$BENCH_TMP/cg" || return 1
	callgrind_annotate --inclusive=yes --threshold=100 "$out" |
		awk -v upd=$((packets * 4)) '
		/loop_[a-z_]+ \[/ {
			ir = $1; gsub(",", "", ir)
			match($0, /loop_[a-z_]+/); name = substr($0, RSTART + 5, RLENGTH - 5)
			v[name] = ir / upd
		}
		END {
			print "pattern,ir_per_update,net_ir_per_update,ratio_vs_per_thread,ratio_vs_seqcount"
			n = split("per_thread per_thread_handle per_thread_seqcount shared_plain shared_atomic " \
				"shared_spinlock buffered_flush_lock pcp_mmv statctr_add statctr_txn", order)
			for (i = 1; i <= n; i++)
				if ((p = order[i]) in v)
					printf "%s,%.3f,%.3f,%.3f,%.3f\n", p, v[p], v[p] - v["none"],
						v[p] / v["per_thread"], v[p] / v["per_thread_seqcount"]
		}' >"$OUT/update_ir.csv"
	echo
	echo "Instructions per update (callgrind, 1 thread, $packets packets x 4 updates)"
	awk -F, '{ printf "%-22s %14s %18s %20s %18s\n", $1, $2, $3, $4, $5 }' "$OUT/update_ir.csv"
	[ "$(wc -l <"$OUT/update_ir.csv")" -ge 10 ] # header, 9 patterns (+ PCP MMV)
}

# Instructions per histogram record: bench_hist under callgrind, 1 thread,
# 16 and 64 buckets, then both at random ("mixed": loop_mixed_<pattern>);
# Ir of each loop_<pattern> function (inclusive) / records.
# shellcheck disable=SC2317 # invoked through step
hist_callgrind() {
	local records=$1 buckets out
	echo "pattern,buckets,ir_per_record,ratio_vs_per_thread,ratio_vs_per_thread_plain" \
		>"$OUT/hist_ir.csv"
	for buckets in 16 64 mixed; do
		out=$BENCH_TMP/hist_callgrind.$buckets
		valgrind --tool=callgrind --callgrind-out-file="$out" "$B/bench_hist" \
			--out "$BENCH_TMP/cg" callgrind "$records" "$buckets" || return 1
		callgrind_annotate --inclusive=yes --threshold=100 "$out" |
			awk -v records="$records" -v k="$buckets" '
			/loop_[a-z0-9_]+ \[/ {
				ir = $1; gsub(",", "", ir)
				match($0, /loop_[a-z0-9_]+/); ir_of[substr($0, RSTART + 5, RLENGTH - 5)] = ir / records
			}
			END {
				n = split("per_thread per_thread_plain statctr_record statctr_txn4 linear", order)
				pre = k == "mixed" ? "mixed_" : ""
				for (i = 1; i <= n; i++)
					if ((p = pre order[i]) in ir_of)
						printf "%s,%s,%.3f,%.3f,%.3f\n", order[i], k, ir_of[p],
							ir_of[p] / ir_of[pre "per_thread"], ir_of[p] / ir_of[pre "per_thread_plain"]
			}' >>"$OUT/hist_ir.csv"
	done
	echo
	echo "Instructions per histogram record (callgrind, 1 thread, $records records per pattern)"
	awk -F, '{ printf "%-17s %8s %14s %20s %26s\n", $1, $2, $3, $4, $5 }' "$OUT/hist_ir.csv"
	[ "$(wc -l <"$OUT/hist_ir.csv")" -eq 16 ] # header, 5 patterns x 3 configurations
}

# Every CSV has a header and rows, and no NaN or inf.
check_csvs() {
	local spec f bad=0
	for spec in memory:memory update:update update_ir:update_ir hist:hist hist_ir:hist_ir \
		snapshot:snapshot_cost \
		snapshot:snapshot_consistency snapshot:snapshot_slowdown agent:agent_pass \
		agent:agent_cpu snmp:snmp_walk snmp:snmp_get snmp:snmp_columns; do
		f=${spec#*:}
		case " $SKIPPED $FAILED " in *" ${spec%%:*} "*) continue ;; esac
		if [ ! -s "$OUT/$f.csv" ] || [ "$(wc -l <"$OUT/$f.csv")" -lt 2 ]; then
			echo "CHECK FAILED: $OUT/$f.csv is missing or empty" >&2
			bad=1
		elif grep -qiE '(^|,)-?(nan|inf)(,|$)' "$OUT/$f.csv"; then
			echo "CHECK FAILED: $OUT/$f.csv holds NaN or inf" >&2
			bad=1
		fi
	done
	return $bad
}

machine
step memory "$B/bench_memory" --out "$OUT" $QUICK
step update "$B/bench_update" --out "$OUT" $QUICK
step hist "$B/bench_hist" --out "$OUT" $QUICK
if command -v valgrind >/dev/null && command -v callgrind_annotate >/dev/null; then
	step update_ir callgrind "$([ -n "$QUICK" ] && echo 10000 || echo 100000)"
	step hist_ir hist_callgrind "$([ -n "$QUICK" ] && echo 4000 || echo 40000)"
else
	echo "SKIP: valgrind not found (Debian: apt-get install valgrind)"
	SKIPPED="$SKIPPED update_ir hist_ir"
fi
step snapshot "$B/bench_snapshot" --out "$OUT" $QUICK
step epoch "$B/bench_epoch" --out "$OUT" $QUICK
if /usr/bin/python3 -c 'import numpy' 2>/dev/null; then
	step python env STATCTR_LIBRARY="$builddir/lib/.libs/libstatctr.so.1" \
		PYTHONPATH="$srcdir/python" /usr/bin/python3 "$srcdir/bench/bench_python.py" \
		--build-dir "$builddir" --out "$OUT" $QUICK
else
	echo "SKIP: python: no /usr/bin/python3 with numpy (Debian: apt-get install python3-numpy)"
	SKIPPED="$SKIPPED python"
fi
AGENT=$builddir/agent/statctr-agentx
if [ -x "$AGENT" ]; then
	step agent "$B/bench_agent" --out "$OUT" --agent "$AGENT" $QUICK
	step snmp env top_srcdir="$srcdir" top_builddir="$builddir" \
		bash "$srcdir/bench/snmp.sh" "$OUT" $QUICK
else
	echo "SKIP: $AGENT not built: agent pass timed for the library part only, no SNMP"
	step agent "$B/bench_agent" --out "$OUT" $QUICK
	SKIPPED="$SKIPPED snmp"
fi
check_csvs || FAILED="$FAILED csv"
echo "loadavg_after,\"$(cut -d' ' -f1-3 /proc/loadavg)\"" >>"$OUT/machine.csv"
echo "seconds,$(($(date +%s) - START))" >>"$OUT/machine.csv"

if command -v gnuplot >/dev/null; then
	bash "$srcdir/scripts/plot-bench.sh" "$OUT" || FAILED="$FAILED plot"
fi

echo
echo "=== targets (same-run ratios; $OUT/targets.csv)"
if [ -s "$OUT/targets.csv" ]; then
	awk -F'"' '{ split($3, r, ","); printf "  %-6s %-60s %10s %s %s\n", r[5], $2, r[2], r[3], r[4] }' \
		"$OUT/targets.csv"
	echo "  pass $(grep -c ',PASS$' "$OUT/targets.csv"), fail $(grep -c ',FAIL$' "$OUT/targets.csv")"
fi
echo "=== done in $(($(date +%s) - START)) s; results in $OUT${SKIPPED:+; skipped:$SKIPPED}"
if [ -n "$FAILED" ]; then
	echo "=== FAILED:$FAILED (see $OUT/log/)" >&2
	exit 1
fi
exit 0
