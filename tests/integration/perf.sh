#!/bin/bash
# perf.sh - walk speed, not part of `make check` (run: make perf-agent, or
# top_srcdir=. top_builddir=. bash tests/integration/perf.sh).
#
# In one run, snmpbulkwalk varbinds/s of a 10,000-row declared table
# (flowStats with rows = 10000: 10,000 x 5 columns) served by statctr-agentx
# through snmpd (AgentX), by statctr-agentx as its own master (-M), and
# snmpd walking its own native mib-2 subtree.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/integration/fixture.sh"

fx_need snmpbulkwalk snmpget
REPS=${REPS:-50}
fx_config "interval_ms = 1000;"
sed -i 's/rows = 64;/rows = 10000;/' "$TMP/statctr.conf"
fx_snmpd
fx_writer -t 2 -n 100000
fx_agent
fx_writer_settled
fx_wait_pass

# The CPU time (user + system) of process $1 so far, in clock ticks.
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }

# Prints "varbinds seconds varbinds/s" for one snmpbulkwalk of $2 on port
# $1, and with a pid $3 that process's CPU time per varbind: the agent's
# own cost, which other load on the machine moves far less than the rate.
measure() {
	local port=$1 oid=$2 pid=${3:-} t0 t1 n c0 c1
	[ -n "$pid" ] && c0=$(cpu_ticks "$pid")
	t0=$(date +%s%N)
	n=$(snmpbulkwalk -v2c -c "$COMMUNITY" -On -Oq -Cr"$REPS" -t 10 -r 0 "127.0.0.1:$port" "$oid" |
		grep -c "^$oid\.")
	t1=$(date +%s%N)
	[ -n "$pid" ] && c1=$(cpu_ticks "$pid")
	awk -v n="$n" -v ns=$((t1 - t0)) -v cpu="${pid:+$((c1 - c0))}" -v hz="$(getconf CLK_TCK)" \
		'BEGIN { printf "%d varbinds %.3f s %.0f varbinds/s", n, ns / 1e9, n / (ns / 1e9)
		         if (cpu != "") printf ", agent CPU %.1f us/varbind", cpu / hz * 1e6 / n
		         printf "\n" }'
}

snmpd_port=$PORT
log "through snmpd (AgentX): $(measure "$snmpd_port" "$DATA.2" "$AGENT_PID")"
log "snmpd native mib-2:      $(measure "$snmpd_port" .1.3.6.1.2.1)"

for try in 1 2 3 4 5; do
	PORT=$((20000 + (RANDOM * 7 + $$) % 40000))
	"$AGENT" -f -L stderr -c "$TMP/statctr.conf" -M "udp:127.0.0.1:$PORT" >>"$TMP/master.log" 2>&1 &
	pid=$!
	fx_track "$pid"
	fx_wait 3 fx_agent_answers && break
	fx_stop "$pid"
	fx_untrack "$pid"
done
log "embedded master (-M):    $(measure "$PORT" "$DATA.2" "$pid")"
PORT=$snmpd_port
log "snmpd native mib-2 again: $(measure "$snmpd_port" .1.3.6.1.2.1)"
log "through snmpd again:      $(measure "$snmpd_port" "$DATA.2" "$AGENT_PID")"
exit 0
