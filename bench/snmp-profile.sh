#!/bin/bash
# snmp-profile.sh - where a walk through snmpd spends its time
# (docs/PERFORMANCE.md, "SNMP serving"); not part of `make bench`:
#
#   top_srcdir=. top_builddir=. bash bench/snmp-profile.sh [ROWS]
#
# The test bed of bench/snmp.sh (private snmpd, AgentX on a unix socket,
# the example writer with flowStats of ROWS rows, default 10,000, and
# statctr-agentx), then:
#   1. CPU per varbind of snmpd and of the agent during one snmpbulkwalk
#      -Cr50 of the table (utime + stime from /proc/PID/stat);
#   2. AgentX requests the agent receives for one snmpbulkwalk, for one
#      snmptable (both send GETBULKs of one varbind) and for one walk by
#      GETBULKs naming all 5 columns (bench/bench_snmpwalk), counted with
#      strace: snmpd sends one AgentX request per repetition, holding the
#      varbinds of the client's request.
#   3. perf record of both processes during a walk: the share of their CPU
#      in the kernel, in Net-SNMP, and in statctr's own code.
# Needs strace, perf (Debian: strace, linux-perf) and root or
# kernel.perf_event_paranoid <= 1 for step 3.
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
top_builddir=${top_builddir:-$top_srcdir}
# shellcheck source=tests/integration/fixture.sh
. "$top_srcdir/tests/integration/fixture.sh"
ROWS=${1:-10000}

fx_need snmpbulkwalk snmptable strace perf
fx_config "interval_ms = 1000;"
sed -i "s/rows = 64;/rows = $ROWS;/" "$TMP/statctr.conf"
grep -q "rows = $ROWS;" "$TMP/statctr.conf" || fail "cannot declare flowStats with $ROWS rows"
fx_snmpd
fx_writer -t 2 -n 100000
# shellcheck disable=SC2119 # no extra agent options
fx_agent
fx_writer_settled
fx_wait_pass

smi=$("$top_srcdir/scripts/get-smi-mibs.sh" 2>"$TMP/smi.log") || fail "SMI modules: $(cat "$TMP/smi.log")"
mkdir "$TMP/mibs"
"$top_builddir/tools/statctl" mib "$TMP/statctr.conf" -o "$TMP/mibs/STATCTR-DATAPLANE-MIB.txt" ||
	fail "statctl mib"
MIBOPTS="-M +$top_srcdir/mib:$smi:$TMP/mibs -m STATCTR-DATAPLANE-MIB"

cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
bulkwalk() {
	snmpbulkwalk -v2c -c "$COMMUNITY" -On -Oq -Cr50 -t 10 -r 0 "127.0.0.1:$PORT" "$DATA.2" |
		grep -c "^$DATA.2."
}
table() {
	snmptable $MIBOPTS -v2c -c "$COMMUNITY" -Cf '|' -Cb -Cr 50 -t 10 -r 0 "127.0.0.1:$PORT" \
		STATCTR-DATAPLANE-MIB::dataplaneFlowStatsTable | grep '|' | tail -n +2 | wc -l
}
hz=$(getconf CLK_TCK)

log "1. CPU per varbind, one snmpbulkwalk -Cr50"
s0=$(cpu_ticks "$SNMPD_PID") a0=$(cpu_ticks "$AGENT_PID") t0=$(fx_now_ms)
n=$(bulkwalk)
t1=$(fx_now_ms) s1=$(cpu_ticks "$SNMPD_PID") a1=$(cpu_ticks "$AGENT_PID")
awk -v n="$n" -v ms=$((t1 - t0)) -v s=$((s1 - s0)) -v a=$((a1 - a0)) -v hz="$hz" 'BEGIN {
	printf "   %d varbinds in %d ms: %.1f us wall, snmpd %.1f us CPU, agent %.1f us CPU per varbind\n",
		n, ms, ms * 1000 / n, s * 1e6 / hz / n, a * 1e6 / hz / n }'

# AgentX requests (reads on the agent's AgentX socket) while "$@" runs.
agentx_requests() {
	local st
	strace -qq -e trace=recvfrom -p "$AGENT_PID" -o "$TMP/strace.txt" &
	st=$!
	sleep 0.5
	"$@" >"$TMP/count"
	sleep 0.3
	kill -INT "$st"
	wait "$st" 2>/dev/null
	echo "$(cat "$TMP/count") $(grep -c '^recvfrom' "$TMP/strace.txt")"
}
columns() {
	"$top_builddir/bench/bench_snmpwalk" "udp:127.0.0.1:$PORT" "$COMMUNITY" "$DATA.2" 1 50 \
		all_columns | awk '{ print $3 }'
}
log "2. AgentX requests per client varbind"
read -r n r < <(agentx_requests bulkwalk)
echo "   snmpbulkwalk: $n varbinds, $r AgentX requests"
read -r n r < <(agentx_requests table)
echo "   snmptable: $n rows x 5 columns, $r AgentX requests"
read -r n r < <(agentx_requests columns)
echo "   GETBULKs naming the 5 columns: $n varbinds, $r AgentX requests"

log "3. perf: where the CPU of each process goes during a walk"
perf record -q -o "$TMP/perf.agent" -p "$AGENT_PID" 2>/dev/null &
p1=$!
perf record -q -o "$TMP/perf.snmpd" -p "$SNMPD_PID" 2>/dev/null &
p2=$!
sleep 0.5
bulkwalk >/dev/null
kill -INT "$p1" "$p2"
wait "$p1" "$p2" 2>/dev/null
for who in agent snmpd; do
	echo "   $who:"
	perf report -q -i "$TMP/perf.$who" --sort dso 2>/dev/null | awk 'NF { printf "     %s\n", $0 }' |
		head -6
done
log "pass"
