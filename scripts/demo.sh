#!/bin/sh
# The quick-start demo: builds statctr, starts the example multi-threaded
# writer, serves its counters over SNMP with statctr-agentx in embedded
# master mode (no snmpd needed) and polls them with snmptable, using the MIB
# that statctl generates from the same configuration.
# Runs until Ctrl-C, or for DEMO_SECONDS seconds.  DEMO_BUILD names an
# already configured build tree to use (scripts/test.sh runs the demo so).
# DEMO_EXAMPLE=dpdk runs examples/dpdk instead (a DPDK forwarder on two
# net_null vdevs at full rate, which plugs a net_ring vdev in and out; its
# ports are IF-MIB interfaces): docs/dpdk.md.
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
# A first build takes a few minutes on 2 CPUs, and prints nothing but errors.
echo "demo: building statctr in $build (a first build takes 1-3 minutes; later runs seconds)"
start=$(date +%s)
[ -x configure ] || ./autogen.sh >/dev/null
if [ -n "${DEMO_BUILD:-}" ]; then
	[ -f "$build/Makefile" ] || { echo "demo: DEMO_BUILD=$build is not a configured build tree" >&2; exit 2; }
elif [ -f config.status ]; then
	build=$top # already configured in the source tree: use that build
elif [ ! -f "$build/Makefile" ]; then
	mkdir -p "$build" && (cd "$build" && "$top/configure" -q)
fi
make -C "$build" -j"$(nproc)" >/dev/null
echo "demo: built in $(($(date +%s) - start)) s"
example=${DEMO_EXAMPLE:-stages}
case $example in
stages) ;;
dpdk)
	[ -x "$build/examples/dpdk/statctr-dpdk-fwd" ] || {
		echo "demo: examples/dpdk is not built: configure found no libdpdk (apt-get install libdpdk-dev, re-run configure)" >&2
		exit 2
	} ;;
*) echo "demo: DEMO_EXAMPLE=$example: stages or dpdk" >&2; exit 2 ;;
esac

work=$(mktemp -d)
trap 'cleanup; rm -rf "$work"' EXIT INT TERM
if [ "$example" = dpdk ]; then
	# The forwarder writes the declaration from its ports; the agent reads it.
	"$build/examples/dpdk/statctr-dpdk-fwd" --no-huge --no-pci --no-shconf --no-telemetry \
		-m 256 -l 0-1 --log-level=lib.eal:notice --vdev net_null0 --vdev net_null1 \
		-- -c "$work/statctr.conf" -P "$work/dpdk" -C "$work/control" >"$work/fwd.log" 2>&1 &
	pids="$pids $!"
	i=0
	until grep -q '^ready' "$work/fwd.log"; do
		i=$((i + 1))
		[ "$i" -lt 100 ] || { cat "$work/fwd.log" >&2; exit 1; }
		sleep 0.1
	done
	segment=dpdk
else
	# A private copy of the example config whose segment lives in the demo's dir.
	sed "s|name = \"dataplane\";|name = \"dataplane\"; path = \"$work/dataplane\";|" \
		conf/statctr.conf >"$work/statctr.conf"
	"$build/examples/stages" -c "$work/statctr.conf" -r 100000 2>/dev/null &
	pids="$pids $!"
	sleep 0.3
	segment=dataplane
fi

started=$(date +%s)
running() { [ "$seconds" -eq 0 ] || [ $(($(date +%s) - started)) -lt "$seconds" ]; }

# The MIB for the config's tables, generated from the same file.
module=STATCTR-$(echo "$segment" | tr a-z A-Z)-MIB
"$build/tools/statctl" mib "$work/statctr.conf" -o "$work/$module.txt"
"$build/agent/statctr-agentx" -f -c "$work/statctr.conf" -M "udp:127.0.0.1:$port" -L stderr \
	2>"$work/agent.log" &
pids="$pids $!"
sleep 1.5
mibs="+$work:$top/mib:$("$top/scripts/get-smi-mibs.sh")"
show() { # table [snmptable options]
	snmptable -v2c -c public -M "$mibs" -m "STATCTR-MIB:$module" -Cb -Cw 150 \
		"127.0.0.1:$port" "$@" 2>&1 | sed 1,2d
}
# The DPDK demo: its tables, and net_ring0 plugged in (rte_dev_probe()) for
# 5 s of every 10 and out again (rte_dev_remove()), a dynamic row each time.
show_dpdk() {
	phase=$((($(date +%s) - started) % 10))
	if [ "$phase" -lt 5 ] && ! grep -q '^attached net_ring0' "$work/fwd.log.seen" 2>/dev/null; then
		echo "attach net_ring0" >"$work/control"
		echo "attached net_ring0" >"$work/fwd.log.seen"
	elif [ "$phase" -ge 5 ] && grep -q '^attached net_ring0' "$work/fwd.log.seen" 2>/dev/null; then
		echo "detach net_ring0" >"$work/control"
		: >"$work/fwd.log.seen"
	fi
	echo "statctr demo: examples/dpdk (DPDK forwarder, net_null0 <-> net_null1 at full rate) -> statctr-agentx -M udp:127.0.0.1:$port"
	echo "-> snmptable, refreshed every 2 s (Ctrl-C to stop).  Try meanwhile, in another shell:"
	echo "   $build/tools/statctl show -c $work/statctr.conf dpdk --buckets"
	echo "   snmpwalk -v2c -c public 127.0.0.1:$port 1.3.6.1.2.1.31.1.1.1   # IF-MIB ifXTable"
	echo
	echo "ports: the application's count, also served as IF-MIB interfaces (net_ring0 comes and goes):"
	show dpdkPortsTable
	echo
	echo "nic: each port's own xstats, mirrored by the main lcore:"
	show dpdkNicTable
	echo
	echo "queues.burstCycles, TSC cycles per burst (statctr_hist_record() on every burst):"
	"$build/tools/statctl" show "$work/dpdk" queues | sed -n '/^  queues\.burstCycles /,$p'
}
while running; do
	clear 2>/dev/null || true
	if [ "$example" = dpdk ]; then
		show_dpdk
		sleep 2
		continue
	fi
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
