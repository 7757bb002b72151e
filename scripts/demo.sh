#!/bin/sh
# The quick-start demo: builds statctr, starts the example multi-threaded
# writer, serves its counters over SNMP with statctr-agentx in embedded
# master mode (no snmpd needed) and polls them with snmptable, using the MIB
# that statctl generates from the same configuration.
# Runs until Ctrl-C, or for DEMO_SECONDS seconds.  DEMO_BUILD names an
# already configured build tree to use (scripts/test.sh runs the demo so).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${DEMO_BUILD:-$top/build/demo}
port=${DEMO_PORT:-1161}
seconds=${DEMO_SECONDS:-0}
pids=""

cleanup() {
	for pid in $pids; do kill "$pid" 2>/dev/null || true; done
	wait 2>/dev/null || true
}
trap cleanup EXIT INT TERM

cd "$top"
[ -x configure ] || ./autogen.sh >/dev/null
if [ -n "${DEMO_BUILD:-}" ]; then
	[ -f "$build/Makefile" ] || { echo "demo: DEMO_BUILD=$build is not a configured build tree" >&2; exit 2; }
elif [ -f config.status ]; then
	build=$top # already configured in the source tree: use that build
elif [ ! -f "$build/Makefile" ]; then
	mkdir -p "$build" && (cd "$build" && "$top/configure" -q)
fi
make -C "$build" -j"$(nproc)" >/dev/null

# A private copy of the example config whose segment lives in the demo's dir.
work=$(mktemp -d)
trap 'cleanup; rm -rf "$work"' EXIT INT TERM
sed "s|name = \"dataplane\";|name = \"dataplane\"; path = \"$work/dataplane\";|" \
	conf/statctr.conf >"$work/statctr.conf"

"$build/examples/stages" -c "$work/statctr.conf" -r 100000 2>/dev/null &
pids="$pids $!"
sleep 0.3

started=$(date +%s)
running() { [ "$seconds" -eq 0 ] || [ $(($(date +%s) - started)) -lt "$seconds" ]; }

# The MIB for the config's tables, generated from the same file.
"$build/tools/statctl" mib "$work/statctr.conf" -o "$work/STATCTR-DATAPLANE-MIB.txt"
"$build/agent/statctr-agentx" -f -c "$work/statctr.conf" -M "udp:127.0.0.1:$port" -L stderr \
	2>"$work/agent.log" &
pids="$pids $!"
sleep 1.5
mibs="+$work:$top/mib:$("$top/scripts/get-smi-mibs.sh")"
show() { # table [snmptable options]
	snmptable -v2c -c public -M "$mibs" -m STATCTR-MIB:STATCTR-DATAPLANE-MIB -Cb -Cw 150 \
		"127.0.0.1:$port" "$@" 2>&1 | sed 1,2d
}
while running; do
	clear 2>/dev/null || true
	echo "statctr demo: examples/stages (receive -> classify -> transmit threads) -> statctr-agentx -M udp:127.0.0.1:$port"
	echo "-> snmptable, refreshed every 2 s (Ctrl-C to stop).  Try meanwhile, in another shell:"
	echo "   $build/tools/statctl show -c $work/statctr.conf dataplane"
	echo
	show dataplaneIfStatsTable
	echo
	show dataplaneTotalsTable
	echo
	echo "vfStats, a dynamic table (rows = { max = 64; }): vf3 is plugged in for 5 s of every 10,"
	echo "each time at a new index (first-in first-out), counting from zero since its add:"
	show dataplaneVfStatsTable -Ci
	echo
	echo "stages.latency, a histogram per stage (statctr_hist_record() of each packet's time);"
	echo "statctl estimates the quantiles within its buckets:"
	"$build/tools/statctl" show "$work/dataplane" stages | sed -n '/^  stages\.latency /,$p'
	sleep 2
done
