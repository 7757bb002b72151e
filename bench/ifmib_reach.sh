#!/bin/bash
# ifmib_reach.sh - what an IF-MIB table costs snmpd (docs/agent.md, IF-MIB
# "Registration"): one table reserving 1024 ifIndex values with 8 names, one
# mapped counter; ROUNDS times (default 3) an agent start through a private
# snmpd (tests/integration/fixture.sh), then a bulk walk of ifXTable, then
# the agent's stop.  Prints per round the start's wall time (until the
# eighth name is served), snmpd's CPU for it and for the stop (utime +
# stime, clock ticks of 10 ms), the walk's objects and time, and the load.
#   top_srcdir=. top_builddir=build/default bash bench/ifmib_reach.sh [ROUNDS]
ROUNDS=${1:-3}
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
top_builddir=${top_builddir:-$top_srcdir}
# shellcheck source=tests/integration/fixture.sh
. "$top_srcdir/tests/integration/fixture.sh"
IFX=.1.3.6.1.2.1.31.1.1.1

fx_vfs_config reachseg 1024 256
echo "agent = { interval_ms = 100; };" >>"$TMP/statctr.conf"
fx_snmpd
fx_ifwriter reachseg
fx_ifcmd "row+ vfs a" "row+ vfs b" "row+ vfs c" "row+ vfs d" "row+ vfs e" "row+ vfs f" \
	"row+ vfs g" "row+ vfs h"
cpu() { awk '{ print $14 + $15 }' "/proc/$SNMPD_PID/stat"; }
eighth_served() { [ "$(snmp_value "$IFX.1.2007")" = h ]; }
for i in $(seq "$ROUNDS"); do
	a=$(cpu) s=$(fx_now_ms)
	fx_agent
	fx_wait 60 eighth_served || fail "ifName.2007 is not served"
	b=$(cpu) e=$(fx_now_ms)
	n=$(snmpbulkwalk -v2c -c "$COMMUNITY" -On -t 10 -r 1 "127.0.0.1:$PORT" "$IFX" | grep -c .)
	w=$(fx_now_ms)
	fx_agent_stop
	c=$(cpu)
	echo "round $i: start $((e - s)) ms, snmpd $((b - a)) ticks, its stop $((c - b)) ticks;" \
		"ifXTable bulk-walked, $n objects, in $((w - e)) ms; load $(cut -d' ' -f1 /proc/loadavg)"
done
