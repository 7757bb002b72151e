#!/bin/sh
# The quick-start demo: builds statctr, starts the example multi-threaded
# writer and shows its counters live.  With statctr-agentx built, the agent
# serves them over SNMP in embedded master mode and the demo polls it with
# snmptable; otherwise examples/reader prints the totals.
# Runs until Ctrl-C, or for DEMO_SECONDS seconds.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=$top/build/demo
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
if [ ! -f "$build/Makefile" ]; then
	[ -f config.status ] && make distclean >/dev/null
	mkdir -p "$build" && (cd "$build" && "$top/configure" -q)
fi
make -C "$build" -j"$(nproc)" >/dev/null

# A private copy of the example config whose segment lives in the demo's dir.
work=$(mktemp -d)
trap 'cleanup; rm -rf "$work"' EXIT INT TERM
sed "s|name = \"dataplane\";|name = \"dataplane\"; path = \"$work/dataplane\";|" \
	conf/statctr.conf >"$work/statctr.conf"

"$build/examples/pipeline" -c "$work/statctr.conf" -t 2 -r 200000 &
pids="$pids $!"
sleep 0.3

started=$(date +%s)
running() { [ "$seconds" -eq 0 ] || [ $(($(date +%s) - started)) -lt "$seconds" ]; }

if [ -x "$build/agent/statctr-agentx" ]; then
	"$build/agent/statctr-agentx" -f -c "$work/statctr.conf" -M "udp:127.0.0.1:$port" \
		-L stderr &
	pids="$pids $!"
	sleep 1
	mibs="$top/mib:$("$top/scripts/get-smi-mibs.sh")"
	while running; do
		clear 2>/dev/null || true
		echo "statctr demo: snmptable of ifStats via the agent on udp:127.0.0.1:$port (Ctrl-C to stop)"
		snmptable -v2c -c public -M "$mibs" -m +STATCTR-MIB -Cw 120 "127.0.0.1:$port" \
			STATCTR-MIB::statctrCellTable 2>&1 | head -40 || true
		sleep 2
	done
else
	while running; do
		clear 2>/dev/null || true
		echo "statctr demo: live totals of segment $work/dataplane (Ctrl-C to stop)"
		"$build/examples/reader" -1 "$work/dataplane" 2>/dev/null | grep -E '^(ifStats|totals)'
		sleep 1
	done
fi
