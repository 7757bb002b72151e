#!/bin/bash
# sysUpTime, from which every TimeStamp of STATCTR-MIB counts, is readable:
# - the standalone agent (-M) serves the system group and the snmpEngine
#   objects, and its TimeStamps are within its own sysUpTime;
# - through an snmpd configured with the shipped conf/snmpd.conf (views,
#   read community, and its commented reset user and community enabled):
#   sysUpTime and STATCTR-MIB read, other mib-2 objects hidden, resets by
#   snmpset with SNMPv2c and with SNMPv3 (SHA-256/AES) zero a counter, and
#   the read-only community cannot reset.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/integration/fixture.sh"
set -o pipefail

fx_need snmpget snmpwalk snmpset
fx_config "interval_ms = 100; allow_reset = true; community = \"$COMMUNITY\";"
fx_writer -t 2 -n 400
fx_writer_settled

SYSTEM=.1.3.6.1.2.1.1
ENGINE=.1.3.6.1.6.3.10.2.1
# $1 OID: its value, failing on an exception ("No Such ...").
value_of() {
	local v
	v=$(snmpget $V2 -Ov "127.0.0.1:$PORT" "$1") || fail "GET $1 failed"
	case $v in No\ Such*) fail "$1: $v" ;; esac
	echo "$v"
}

log "standalone agent (-M): the system group and the snmpEngine objects"
for try in 1 2 3 4 5; do
	PORT=$((20000 + (RANDOM * 7 + $$) % 40000))
	"$AGENT" -f -L stderr -c "$TMP/statctr.conf" -M "udp:127.0.0.1:$PORT" >>"$TMP/agent.log" 2>&1 &
	AGENT_PID=$!
	fx_track "$AGENT_PID"
	fx_wait 3 fx_agent_answers && break
	fx_stop "$AGENT_PID"
	fx_untrack "$AGENT_PID"
	AGENT_PID=
done
[ -n "$AGENT_PID" ] || fail "the standalone agent did not answer on any of 5 ports"
for o in 1 2 4 5 6; do value_of "$SYSTEM.$o.0" >/dev/null; done
for o in 1 2 3 4; do value_of "$ENGINE.$o.0" >/dev/null; done
[ "$(value_of "$ENGINE.4.0")" -ge 484 ] || fail "snmpEngineMaxMessageSize below 484"
up1=$(value_of "$SYSTEM.3.0")
fx_wait_pass
last=$(value_of "$ROOT.1.1.3.0") # statctrAggLastTime, a TimeStamp
up2=$(value_of "$SYSTEM.3.0")
[ "$up2" -gt "$up1" ] || fail "sysUpTime did not advance: $up1 -> $up2"
[ "$last" -le "$up2" ] || fail "statctrAggLastTime $last is after sysUpTime $up2"
# sysDescr .. sysLocation and sysORLastChange (sysServices only when configured).
[ "$(snmp_walk "$SYSTEM" | grep -c "^$SYSTEM\.[1-68]\.0 ")" = 7 ] ||
	fail "a walk of system does not give its 7 scalars"
fx_agent_stop

log "through snmpd with the shipped conf/snmpd.conf"
[ -x "$SNMPD" ] || skip "snmpd not found (Debian: apt-get install snmpd)"
mkdir -p "$SNMP_PERSISTENT_DIR"
RWCOMMUNITY=statctr-reset-test
OPS=statctrops
OPS_AUTH=change-this-auth-pass
OPS_PRIV=change-this-priv-pass
for try in 1 2 3 4 5; do
	PORT=$((20000 + (RANDOM * 7 + $$) % 40000))
	{
		echo "agentaddress udp:127.0.0.1:$PORT"
		echo "engineID statctr-standalone-test"
		sed -e "s|^agentXSocket .*|agentXSocket $TMP/agentx.sock|" \
			-e "s|^agentXPerms .*|agentXPerms 0600 0700|" \
			-e "s/^#\(createUser\|group\|com2sec\|access\) /\1 /" \
			-e "s|change-this-community|$RWCOMMUNITY|" \
			"$top_srcdir/conf/snmpd.conf"
	} >"$TMP/snmpd.conf"
	grep -q "^access .*usm" "$TMP/snmpd.conf" || fail "conf/snmpd.conf has no reset user to enable"
	if fx_snmpd_start; then break; fi
	fx_snmpd_stop
	SNMPD_PID=
done
[ -n "${SNMPD_PID:-}" ] || fail "snmpd with conf/snmpd.conf did not answer on any of 5 ports"
fx_agent
value_of "$SYSTEM.3.0" >/dev/null
value_of "$DATA.3.1.10.1" >/dev/null
hidden=$(snmpget $V2 -Ov "127.0.0.1:$PORT" .1.3.6.1.2.1.2.1.0) || true
case $hidden in No\ Such*) ;; *) fail "ifNumber is not hidden by the view: $hidden" ;; esac

V3="-v3 -u $OPS -l authPriv -a SHA-256 -A $OPS_AUTH -x AES -X $OPS_PRIV -On -Oqv -t 2 -r 1"
[ "$(snmpget $V3 "127.0.0.1:$PORT" "$SYSTEM.3.0" | tr -cd 0-9)" -gt 0 ] ||
	fail "the v3 reset user cannot read sysUpTime"
# totals.packets (row 1) and ifStats.rxPackets of eth0: non-zero, then reset.
[ "$(value_of "$DATA.3.1.10.1")" -gt 0 ] || fail "totals.packets is 0 before the reset"
[ "$(value_of "$DATA.1.1.10.1")" -gt 0 ] || fail "ifStats.rxPackets is 0 before the reset"
snmpset -v2c -c "$COMMUNITY" -t 1 -r 0 "127.0.0.1:$PORT" "$DATA.3.1.4.1" i 2 >/dev/null 2>&1 &&
	fail "the read-only community could reset"
snmpset $V3 "127.0.0.1:$PORT" "$DATA.3.1.4.1" i 2 >/dev/null || fail "the v3 user could not reset"
[ "$(value_of "$DATA.3.1.10.1")" = 0 ] || fail "totals.packets not 0 after the v3 reset"
snmpset -v2c -c "$RWCOMMUNITY" -t 2 -r 0 "127.0.0.1:$PORT" "$DATA.1.1.4.1" i 2 >/dev/null ||
	fail "the reset community could not reset"
[ "$(value_of "$DATA.1.1.10.1")" = 0 ] || fail "ifStats.rxPackets not 0 after the v2c reset"
snmpset -v2c -c "$RWCOMMUNITY" -t 2 -r 0 "127.0.0.1:$PORT" "$SYSTEM.6.0" s here >/dev/null 2>&1 &&
	fail "the reset community could write sysLocation"
log "pass"
exit 0
