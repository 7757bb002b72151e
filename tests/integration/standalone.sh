#!/bin/bash
# sysUpTime, from which every TimeStamp of STATCTR-MIB counts, is readable:
# - the standalone agent (-M) serves the system group and the snmpEngine
#   objects, and its TimeStamps are within its own sysUpTime;
# - every DisplayString it serves fits the MIB's SIZE (0..255): a 255-character
#   description, units and segment path are served whole, 256 are refused;
# - SNMPv3 on -M (agent.v3_users): SHA-256/AES and SHA-512/AES-256 users
#   read, the "reset" user resets and the "read" user cannot, nobody writes
#   sysLocation, noAuthNoPriv/authNoPriv are refused, no v2c community unless
#   asked for; sys_contact/sys_name/sys_location served; snmpEngineID the
#   same and snmpEngineBoots one more across a restart; a corrupt boots file
#   or a world-readable file with passphrases stops the start; pysnmp reads
#   and resets with SHA-256/AES too;
# - through an snmpd configured with the shipped conf/snmpd.conf (views,
#   read community, and its commented reset user and community enabled):
#   sysUpTime, ifNumber and STATCTR-MIB read, other mib-2 objects hidden, resets by
#   snmpset with SNMPv2c and with SNMPv3 (SHA-256/AES) zero a counter, and
#   the read-only community cannot reset.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/integration/fixture.sh"
set -o pipefail

fx_need snmpget snmpwalk snmpset
fx_pysnmp

# Text at the MIB's limit: the segment's path, ifStats.rxPackets' description
# and rxOctets' units, 255 characters each.
fx_config "interval_ms = 100; allow_reset = true; community = \"$COMMUNITY\";"
long() { printf "%${2}s" "" | tr ' ' "$1"; }
LONG_PATH=$TMP/$(long p $((255 - ${#TMP} - 1)))
sed -i -e "s|path = \"$TMP/dataplane\";|path = \"$LONG_PATH\";|" \
	-e "0,/description = \"Packets received\"/s//description = \"$(long d 255)\"/" \
	-e "0,/units = \"octets\"/s//units = \"$(long u 255)\"/" "$TMP/statctr.conf"
SEGMENT=$LONG_PATH
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

# Starts the agent on -M with configuration $1 on a free port (or on port
# $3 only), until $2 (a command) says it answers; sets PORT and AGENT_PID.
standalone_start() {
	local try
	for try in 1 2 3 4 5; do
		PORT=${3:-$((20000 + (RANDOM * 7 + $$) % 40000))}
		"$AGENT" -f -L stderr -c "$1" -M "udp:127.0.0.1:$PORT" >>"$TMP/agent.log" 2>&1 &
		AGENT_PID=$!
		fx_track "$AGENT_PID"
		fx_wait 3 "$2" && return 0
		fx_stop "$AGENT_PID"
		fx_untrack "$AGENT_PID"
		AGENT_PID=
	done
	fail "the standalone agent did not answer on any of 5 ports"
}

log "standalone agent (-M): the system group and the snmpEngine objects"
standalone_start "$TMP/statctr.conf" fx_agent_answers
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

log "every DisplayString served fits SIZE (0..255); the 255-character ones whole"
# statctrAgentVersion; statctrSegmentName, Path; statctrCellTableName,
# ColumnName, RowName, Description, Units; the system group's strings.
lengths=$(for col in "$ROOT.1.1.1" "$ROOT.1.2.1.2" "$ROOT.1.2.1.3" "$ROOT.1.3.1.2" \
	"$ROOT.1.3.1.3" "$ROOT.1.3.1.4" "$ROOT.1.3.1.6" "$ROOT.1.3.1.7" "$SYSTEM"; do
	snmpwalk -v2c -c "$COMMUNITY" -Oqv -Ot -t 2 -r 1 "127.0.0.1:$PORT" "$col"
done | tr -d '"' | awk '{ print length($0) }' | sort -n | uniq -c)
[ "$(echo "$lengths" | awk '$2 > 255' | wc -l)" = 0 ] || fail "strings over 255: $lengths"
[ "$(snmp_value "$ROOT.1.2.1.3.1")" = "$LONG_PATH" ] || fail "statctrSegmentPath is not the 255-character path"
[ "$(snmp_value "$ROOT.1.3.1.6.1.1")" = "$(long d 255)" ] || fail "the 255-character description is not served whole"
[ "$(snmp_value "$ROOT.1.3.1.7.1.2")" = "$(long u 255)" ] || fail "the 255-character units are not served whole"
fx_agent_stop
sed "0,/description = \"d*\"/s//description = \"$(long d 256)\"/" "$TMP/statctr.conf" >"$TMP/long.conf"
rc=0
timeout 10 "$AGENT" -f -L stderr -c "$TMP/long.conf" -M udp:127.0.0.1:9 >"$TMP/long.out" 2>&1 || rc=$?
[ "$rc" = 1 ] && grep -q "long.conf:[0-9]*: segments.\[0\].tables.\[0\].columns.\[0\].description: 256 characters, at most 255" "$TMP/long.out" ||
	fail "a 256-character description: status $rc: $(cat "$TMP/long.out")"

# ------------------------------------------------------------------------
log "SNMPv3 on -M: users, access, the system group's texts, engine boots"
OPS_AUTH=ops-auth-pass
OPS_PRIV=ops-priv-pass
NMS_AUTH=nms-auth-pass-512
NMS_PRIV=nms-priv-pass-256
{
	sed '$d' "$TMP/statctr.conf"
	cat <<EOF
agent = { interval_ms = 100; allow_reset = true;
  v3_users = (
    { name = "ops"; auth = "SHA-256"; auth_pass = "$OPS_AUTH"; priv = "AES";
      priv_pass = "$OPS_PRIV"; access = "reset"; },
    { name = "nms"; auth = "SHA-512"; auth_pass = "$NMS_AUTH"; priv = "AES-256";
      priv_pass = "$NMS_PRIV"; } );
  engine_boots_file = "$TMP/engine-boots";
  sys_contact = "NOC <noc@example.net>"; sys_name = "edge-7"; sys_location = "Rack 4, Room 2";
};
EOF
} >"$TMP/v3.conf"
chmod 0640 "$TMP/v3.conf"
OPS="-v3 -u ops -l authPriv -a SHA-256 -A $OPS_AUTH -x AES -X $OPS_PRIV -On -Oqv -t 2 -r 1"
NMS="-v3 -u nms -l authPriv -a SHA-512 -A $NMS_AUTH -x AES-256 -X $NMS_PRIV -On -Oqv -t 2 -r 1"
v3_answers() { snmpget $NMS -t 0.3 -r 0 "127.0.0.1:$PORT" "$SYSTEM.3.0"; }
standalone_start "$TMP/v3.conf" v3_answers
[ "$(cat "$TMP/engine-boots")" = 1 ] || fail "engine-boots holds $(cat "$TMP/engine-boots"), not 1"
[ "$(snmpget $OPS "127.0.0.1:$PORT" "$ENGINE.2.0")" = 1 ] || fail "snmpEngineBoots is not 1 at the first start"
engine_id=$(snmpget $OPS "127.0.0.1:$PORT" "$ENGINE.1.0") || fail "no snmpEngineID"
sys=$(snmpget $NMS "127.0.0.1:$PORT" "$SYSTEM.4.0" "$SYSTEM.5.0" "$SYSTEM.6.0" | tr '\n' '|')
[ "$sys" = '"NOC <noc@example.net>"|"edge-7"|"Rack 4, Room 2"|' ] ||
	fail "sysContact, sysName, sysLocation are not the configured ones: $sys"
snmpget -v2c -c public -t 1 -r 0 "127.0.0.1:$PORT" "$SYSTEM.3.0" >/dev/null 2>&1 &&
	fail "v2c community public answered although only v3 users are declared"
out=$(snmpget -v3 -u ops -l authNoPriv -a SHA-256 -A $OPS_AUTH -t 2 -r 0 "127.0.0.1:$PORT" "$SYSTEM.3.0" 2>&1) &&
	fail "authNoPriv answered: $out"
grep -q authorizationError <<<"$out" || fail "authNoPriv: $out"
out=$(snmpget -v3 -u ops -l noAuthNoPriv -t 2 -r 0 "127.0.0.1:$PORT" "$SYSTEM.3.0" 2>&1) &&
	fail "noAuthNoPriv answered: $out"
# flowStats.packets of flow 0: read by nms, not reset by it, reset by ops
# (the snmpd part below resets totals and dp0).
[ "$(snmpget $NMS "127.0.0.1:$PORT" "$DATA.2.1.10.1")" -gt 0 ] || fail "flow 0's packets are 0 before the reset"
out=$(snmpset $NMS "127.0.0.1:$PORT" "$DATA.2.1.4.1" i 2 2>&1) && fail "the read user could reset: $out"
grep -q noAccess <<<"$out" || fail "the read user's reset: $out"
snmpset $OPS "127.0.0.1:$PORT" "$DATA.2.1.4.1" i 2 >/dev/null || fail "the reset user could not reset"
[ "$(snmpget $NMS "127.0.0.1:$PORT" "$DATA.2.1.10.1")" = 0 ] || fail "flow 0's packets not 0 after the v3 reset"
out=$(snmpset $OPS "127.0.0.1:$PORT" "$SYSTEM.6.0" s elsewhere 2>&1) && fail "the reset user wrote sysLocation"
grep -q noAccess <<<"$out" || fail "the reset user's write of sysLocation: $out"

log "pysnmp: SHA-256/AES reads and a reset"
cat >"$TMP/v3.py" <<'EOF'
import sys
from pysnmp.hlapi import (ContextData, Integer, ObjectIdentity, ObjectType, SnmpEngine,
                          UdpTransportTarget, UsmUserData, getCmd, setCmd,
                          usmAesCfb128Protocol, usmHMAC192SHA256AuthProtocol)
port, auth, priv, data = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
user = UsmUserData("ops", auth, priv, authProtocol=usmHMAC192SHA256AuthProtocol,
                   privProtocol=usmAesCfb128Protocol)
target = UdpTransportTarget(("127.0.0.1", port), timeout=2, retries=1)
def run(cmd, *varbinds):
    ind, status, _, vbs = next(cmd(SnmpEngine(), user, target, ContextData(), *varbinds))
    if ind or status:
        sys.exit("pysnmp: %s" % (ind or status.prettyPrint()))
    return [vb[1].prettyPrint() for vb in vbs]
print(" ".join(run(getCmd, ObjectType(ObjectIdentity("1.3.6.1.2.1.1.5.0")),
                   ObjectType(ObjectIdentity(data + ".2.1.10.2")))))
run(setCmd, ObjectType(ObjectIdentity(data + ".2.1.4.2"), Integer(2)))
print(run(getCmd, ObjectType(ObjectIdentity(data + ".2.1.10.2")))[0])
EOF
out=$(timeout 20 "$PYSNMP" "$TMP/v3.py" "$PORT" "$OPS_AUTH" "$OPS_PRIV" "${DATA#.}" 2>&1) ||
	fail "pysnmp: $out"
read -r name before after <<<"$(echo $out)"
[ "$name" = edge-7 ] || fail "pysnmp read sysName '$name'"
[ "$before" -gt 0 ] && [ "$after" = 0 ] || fail "pysnmp: flow 1's packets $before, after its reset $after"

log "a restart: the same snmpEngineID, snmpEngineBoots + 1"
fx_agent_stop
standalone_start "$TMP/v3.conf" v3_answers "$PORT" # the engineID derives from the address
[ "$(snmpget $OPS "127.0.0.1:$PORT" "$ENGINE.1.0")" = "$engine_id" ] || fail "snmpEngineID changed across a restart"
[ "$(snmpget $OPS "127.0.0.1:$PORT" "$ENGINE.2.0")" = 2 ] || fail "snmpEngineBoots is not 2 after a restart"
[ "$(cat "$TMP/engine-boots")" = 2 ] || fail "engine-boots holds $(cat "$TMP/engine-boots"), not 2"
# Net-SNMP reads the -M settings once: a SIGHUP says so, and changes nothing.
sed -i 's/Rack 4, Room 2/Rack 5/' "$TMP/v3.conf"
kill -HUP "$AGENT_PID"
fx_wait 5 grep -q "SIGHUP: changes of the communities, v3_users, trap_sinks, engine_\*, sys_\* settings take effect on restart" "$TMP/agent.log" ||
	fail "no warning that the -M settings change on restart only"
[ "$(snmpget $OPS "127.0.0.1:$PORT" "$SYSTEM.6.0")" = '"Rack 4, Room 2"' ] || fail "sysLocation changed on SIGHUP"
fx_agent_stop

log "refused starts: a corrupt boots file, passphrases every user may read"
refused_start() {
	local want=$1 rc=0
	timeout 10 "$AGENT" -f -L stderr -c "$TMP/v3.conf" -M udp:127.0.0.1:9 >"$TMP/refused.out" 2>&1 || rc=$?
	[ "$rc" = 1 ] && grep -q "$want" "$TMP/refused.out" ||
		fail "status $rc, not 1 with '$want': $(cat "$TMP/refused.out")"
}
echo garbage >"$TMP/engine-boots"
refused_start "engine_boots_file $TMP/engine-boots: not a regular file holding a number of boots"
# Net-SNMP serves one more than the file: 2147483647 latches SNMPv3 (issue 19, defect 8).
echo 2147483646 >"$TMP/engine-boots"
refused_start "engine_boots_file $TMP/engine-boots: holds 2147483646, and snmpEngineBoots would reach 2147483647"
echo 2 >"$TMP/engine-boots"
chmod 0666 "$TMP/engine-boots"
refused_start "engine_boots_file $TMP/engine-boots: is writable by group or others"
chmod 0600 "$TMP/engine-boots"
if [ "$(id -u)" = 0 ]; then
	chown nobody "$TMP/engine-boots"
	refused_start "engine_boots_file $TMP/engine-boots: belongs to another user"
	chown root "$TMP/engine-boots"
fi
chmod 0644 "$TMP/v3.conf"
refused_start "v3.conf:[0-9]*: agent.v3_users: passphrases in a file every user may read (mode 0644)"
[ "$(cat "$TMP/engine-boots")" = 2 ] || fail "a refused start changed the boots file"

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
# The view holds IF-MIB's ifNumber: the master's count of its interfaces.
ifnumber=$(snmpget $V2 -Ov "127.0.0.1:$PORT" .1.3.6.1.2.1.2.1.0) || true
[[ $ifnumber =~ ^[1-9][0-9]*$ ]] || fail "ifNumber.0 is not served through the shipped view: $ifnumber"
hidden=$(snmpget $V2 -Ov "127.0.0.1:$PORT" .1.3.6.1.2.1.4.1.0) || true
case $hidden in No\ Such*) ;; *) fail "ipForwarding is not hidden by the view: $hidden" ;; esac

V3="-v3 -u $OPS -l authPriv -a SHA-256 -A $OPS_AUTH -x AES -X $OPS_PRIV -On -Oqv -t 2 -r 1"
[ "$(snmpget $V3 "127.0.0.1:$PORT" "$SYSTEM.3.0" | tr -cd 0-9)" -gt 0 ] ||
	fail "the v3 reset user cannot read sysUpTime"
# totals.packets (row 1) and ifStats.rxPackets of dp0: non-zero, then reset.
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
# The write view holds ifLinkUpDownTrapEnable: linkUp/linkDown can be turned off per row.
TRAPEN=.1.3.6.1.2.1.31.1.1.1.14
ifx=$(snmpwalk $V2 "127.0.0.1:$PORT" "$TRAPEN" | awk -v p="$TRAPEN." 'index($1, p) == 1 { i = substr($1, length(p) + 1); if (i + 0 >= 1000) { print i; exit } }')
[ -n "$ifx" ] || fail "no statctr row in ifXTable's ifLinkUpDownTrapEnable through the shipped view"
snmpset -v2c -c "$RWCOMMUNITY" -t 2 -r 0 "127.0.0.1:$PORT" "$TRAPEN.$ifx" i 2 >/dev/null ||
	fail "the shipped write view cannot set ifLinkUpDownTrapEnable.$ifx"
[ "$(value_of "$TRAPEN.$ifx")" = 2 ] || fail "ifLinkUpDownTrapEnable.$ifx is not disabled(2) after the SET"
snmpset -v2c -c "$COMMUNITY" -t 1 -r 0 "127.0.0.1:$PORT" "$TRAPEN.$ifx" i 1 >/dev/null 2>&1 &&
	fail "the read-only community could set ifLinkUpDownTrapEnable"
snmpset -v2c -c "$RWCOMMUNITY" -t 2 -r 0 "127.0.0.1:$PORT" "$TRAPEN.$ifx" i 1 >/dev/null ||
	fail "cannot enable ifLinkUpDownTrapEnable.$ifx again"
log "pass"
exit 0
