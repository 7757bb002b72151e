#!/bin/bash
# The classic pollers of docs/fleet.md ("MRTG, collectd, Nagios/Icinga"),
# each the real Debian tool, against conf/statctr.conf served through
# snmpd (tests/integration/ifwriter sets exact values):
# - MRTG: cfgmaker (SNMPv2c, so 64-bit counters) makes every ifStats row a
#   target, none commented out, with MaxBytes from ifHighSpeed (the
#   example's speed column); two mrtg runs log ifHCInOctets exactly;
# - check_snmp: a gauge threshold (speed) and a counter threshold
#   (rxPackets) give OK and CRITICAL as the thresholds say; --rate reports
#   the counter's rate per second from its state file; a dynamic row read
#   by its name (statctrRowsByName, docs/fleet.md's command) gives its value
#   before and after the row is removed and added again at another index;
# - collectd's snmp plugin: one value as DERIVE (types.db's "derive",
#   min 0) and one as COUNTER; at a reset (SNMP SET) DERIVE leaves one gap
#   (nan), where COUNTER takes the drop for a 64-bit wrap and spikes above
#   10^15/s.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/fault/lib.sh"

CHECK_SNMP=/usr/lib/nagios/plugins/check_snmp
fx_need snmpget snmpset cfgmaker mrtg collectd
[ -x "$CHECK_SNMP" ] || skip "$CHECK_SNMP not found (Debian: apt-get install monitoring-plugins-standard)"
[ -x "$top_builddir/tests/integration/ifwriter" ] || skip "tests/integration/ifwriter not built"
[ -f /usr/share/collectd/types.db ] || skip "collectd's types.db missing (Debian: collectd-core)"

fx_config
fx_snmpd
fx_ifwriter dataplane
fx_ifcmd "set ifStats speed dp0 10000" "set ifStats speed dp1 10000" \
	"set ifStats speed dp2 1000" "set ifStats speed dp3 1000" \
	"add ifStats rxOctets dp0 5000000000" "add ifStats rxPackets dp0 100"
fx_agent
fx_wait_pass
HOST=127.0.0.1:$PORT
ETH0_RXOCTETS=$DATA.1.1.11.1 # ifStats.rxOctets, row dp0 (docs/agent.md, "Counting")

# ------------------------------------------------------------------------
log "MRTG: cfgmaker makes every statctr row a target"
# community@host:port:timeout:retries:backoff:version; version 2: 64-bit counters
mkdir -p "$TMP/mrtg"
LANG=C cfgmaker --global "WorkDir: $TMP/mrtg" --ifref=nr --output="$TMP/mrtg.cfg" \
	"$COMMUNITY@127.0.0.1:$PORT::::2" >"$TMP/cfgmaker.log" 2>&1 ||
	fail "cfgmaker failed: $(tail -n 5 "$TMP/cfgmaker.log")"
for ifindex in 1000 1001 1002 1003; do
	target=$(sed -n "s/^Target\[\([^]]*_$ifindex\)\]:.*/\1/p" "$TMP/mrtg.cfg")
	[ -n "$target" ] || fail "cfgmaker left ifIndex $ifindex out or commented: $(grep -B2 -A2 "_$ifindex\]" "$TMP/mrtg.cfg" | head -n 8)"
	maxbytes=$(sed -n "s/^MaxBytes\[$target\]: *//p" "$TMP/mrtg.cfg")
	case $ifindex in 1000 | 1001) want=1250000000 ;; *) want=125000000 ;; esac
	[ "$maxbytes" = "$want" ] || fail "MaxBytes of $target is '$maxbytes', not $want (ifHighSpeed)"
done
log "MRTG: two runs log dp0's ifHCInOctets exactly"
mrtg_run() {
	env LANG=C mrtg --lock-file "$TMP/mrtg.lock" --confcache-file "$TMP/mrtg.ok" \
		--logging "$TMP/mrtg.log" "$TMP/mrtg.cfg" || fail "mrtg failed: $(tail -n 5 "$TMP/mrtg.log")"
}
mrtg_run
fx_ifcmd "add ifStats rxOctets dp0 1000000"
fx_wait_pass
mrtg_run
target=$(sed -n 's/^Target\[\([^]]*_1000\)\]:.*/\1/p' "$TMP/mrtg.cfg")
want=$(snmp_value "$ETH0_RXOCTETS")
[ "$want" = 5001000000 ] || fail "dp0 rxOctets is $want, not 5001000000"
read -r _ got _ <"$TMP/mrtg/$target.log"
[ "$got" = "$want" ] || fail "MRTG logged dp0's in-octets as $got, not $want"

# ------------------------------------------------------------------------
log "check_snmp: gauge and counter thresholds"
# expect STATUS ARGS...: check_snmp's exit status (0 OK, 1 WARNING, 2 CRITICAL).
expect() {
	local want=$1 rc=0
	shift
	out=$("$CHECK_SNMP" -H 127.0.0.1 -p "$PORT" -P 2c -C "$COMMUNITY" "$@" 2>&1) || rc=$?
	[ "$rc" = "$want" ] || fail "check_snmp $*: exit $rc, not $want: $out"
	log "check_snmp $*: $out"
}
expect 0 -o "$DATA.1.1.16.1" -l speed -w 1000: -c 100: # speed 10000 Mb/s
expect 2 -o "$DATA.1.1.16.3" -l speed -w 10000: -c 5000: # speed 1000 Mb/s
expect 0 -o "$DATA.1.1.10.1" -l rxPackets -w :1000 -c :2000
expect 1 -o "$DATA.1.1.10.1" -l rxPackets -w :50 -c :2000
log "check_snmp --rate: packets per second from the state file"
# (monitoring-plugins 2.3.3 reads NAGIOS_PLUGIN_STATE_DIRECTORY; later ones MP_STATE_DIRECTORY)
export MP_STATE_DIRECTORY=$TMP/nagios NAGIOS_PLUGIN_STATE_DIRECTORY=$TMP/nagios
mkdir -p "$MP_STATE_DIRECTORY"
expect 0 -o "$DATA.1.1.10.1" -l rxPackets --rate -w :1000000 -c :2000000
sleep 1 # the rate's interval: one whole second at least
fx_ifcmd "add ifStats rxPackets dp0 100000"
fx_wait_pass
expect 0 -o "$DATA.1.1.10.1" -l rxPackets --rate -w :1000000 -c :2000000
rate=$(sed -n 's/.*rxPackets=\([0-9.]*\).*/\1/p' <<<"$out")
awk -v r="$rate" 'BEGIN { exit !(r > 0 && r <= 100000) }' ||
	fail "check_snmp --rate gave '$rate', not a rate in (0, 100000]: $out"

log "check_snmp by name: a dynamic row re-added at another index, the same OID"
# docs/fleet.md's key: the name's bytes as sub-identifiers.
key=$(printf %s vf3 | od -An -tu1 | tr -s ' ' '.')
BYNAME=$ROOT.6.1.4.1 # statctrRowsByName, dataplane (1), vfStats (4), entry
fx_ifcmd "row+ vfStats vf9" "row+ vfStats vf3" "add vfStats rxPackets vf3 42"
fx_wait_pass
index=$(snmp_value "$BYNAME.2$key")
expect 0 -o "$BYNAME.10$key" -l rxPackets -w 40:50 -c 1:
fx_ifcmd "row- vfStats vf3" "row+ vfStats vf3" "add vfStats rxPackets vf3 7"
fx_wait_pass
[ "$(snmp_value "$BYNAME.2$key")" != "$index" ] || fail "vf3 re-added kept its index $index"
expect 1 -o "$BYNAME.10$key" -l rxPackets -w 40:50 -c 1:
fx_ifcmd "row- vfStats vf3"
fx_wait_pass
expect 3 -o "$BYNAME.10$key" -l rxPackets -w 40:50 -c 1: # absent: UNKNOWN, no number

# ------------------------------------------------------------------------
log "collectd: DERIVE (min 0) and COUNTER across a reset"
collectd_start eth0_rxOctets "$ETH0_RXOCTETS" "$HOST"
fx_wait 20 csv_has derive 2 || fail "collectd wrote no rates: $(tail -n 5 "$TMP/collectd.log")"
n=$(csv_lines derive | wc -l)
fx_expect_set ok "$DATA.1.1.4.1" i 2 # reset row dp0
fx_wait 20 csv_has derive $((n + 3)) || fail "collectd stopped writing: $(tail -n 5 "$TMP/collectd.log")"
fx_wait 10 csv_has counter $((n + 3)) || fail "collectd stopped writing the counter"
# The first rate of each is nan (no previous value); then the counter stood
# still (rate 0) but for the reset.
derive=$(csv_lines derive | tail -n +2 | cut -d, -f2 | tr '\n' ' ')
counter=$(csv_lines counter | tail -n +2 | cut -d, -f2 | tr '\n' ' ')
log "collectd rates across the reset: DERIVE: $derive; COUNTER: $counter"
[ "$(tr ' ' '\n' <<<"$derive" | grep -c '^nan$')" = 1 ] ||
	fail "DERIVE (min 0) did not leave exactly one gap at the reset: $derive"
tr ' ' '\n' <<<"$derive" | grep -v '^nan$' | awk 'NF && $1 != 0 { exit 1 }' ||
	fail "DERIVE gave a rate other than 0 or the gap: $derive"
tr ' ' '\n' <<<"$counter" | awk 'NF && $1 > 1e15 { spike = 1 } END { exit !spike }' ||
	fail "COUNTER did not spike at the reset: $counter"
log "pass"
exit 0
