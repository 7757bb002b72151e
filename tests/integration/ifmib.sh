#!/bin/bash
# IF-MIB tables through a real snmpd that serves its own IF-MIB (the
# kernel's interfaces, ifIndex 1..n): one walk of ifXTable and one of
# ifTable return snmpd's rows and statctr's in one strictly increasing
# walk; values are exact (a counter above 2^32 as Counter64, its low 32 bits
# in ifInOctets); the declared attributes are served; a reset moves
# ifCounterDiscontinuityTime; an oper-state change moves ifLastChange;
# ifIndex survives writer and agent restarts; dynamic rows appear and
# disappear as interfaces (also conf/statctr.conf's vfStats, churned by
# examples/pipeline -R); a SIGHUP registers the tables again.  The writer is
# tests/integration/ifwriter (exact values by command).
. "${top_srcdir:-$(dirname "$0")/../..}/tests/integration/fixture.sh"

fx_need snmpget snmpwalk snmpbulkwalk snmpset
[ -x "$top_builddir/tests/integration/ifwriter" ] || fail "ifwriter not built (make check builds it)"
IF=.1.3.6.1.2.1.2.2.1
IFX=.1.3.6.1.2.1.31.1.1.1
SEGDATA=$ROOT.3.7 # statctrData.<ifseg oid>

cat >"$TMP/statctr.conf" <<EOF
segments = ( {
  name = "ifseg"; path = "$TMP/ifseg"; oid = 7; slots = 1;
  tables = (
    { name = "ports"; oid = 1; rows = [ "port0", "port1" ];
      columns = (
        { name = "rxOctets"; kind = "counter"; },
        { name = "txOctets"; kind = "counter"; },
        { name = "rxErrors"; kind = "counter"; },
        { name = "speed";    kind = "gauge"; },
        { name = "oper";     kind = "gauge"; },
        { name = "other";    kind = "counter"; } );
      ifmib = {
        ifindex_base = 1000; ifType = "l2vlan"; ifMtu = 9000; ifAlias = "fabric";
        interfaces = ( { row = "port1"; ifAlias = "spare"; ifDescr = "Port one";
                         ifType = 6; ifMtu = 1500; } );
        columns = { rxOctets = "ifHCInOctets"; txOctets = "ifHCOutOctets";
                    rxErrors = "ifInErrors"; speed = "ifHighSpeed"; oper = "ifOperStatus"; }; }; },
    { name = "vfs"; oid = 2; rows = { max = 8; };
      columns = ( { name = "rxOctets"; kind = "counter"; } );
      ifmib = { ifindex_base = 2000; ifType = "propVirtual";
                columns = { rxOctets = "ifHCInOctets"; }; }; }
  );
} );
agent = { interval_ms = 100; allow_reset = true; state_file = "$TMP/agent.state"; };
EOF

# The agent registers the IF-MIB tables last: wait for them.
if_registered() { [ "$(snmp_value "$IFX.1.1000")" = port0 ]; }
expect() { # OID VALUE
	local got
	got=$(snmp_value "$1")
	[ "$got" = "$2" ] || fail "$1 is '$got', expected '$2'"
}
# A walk, "OID value" lines; fails unless the OIDs strictly increase.
walk_increasing() { # COMMAND SUBTREE OUT
	$1 -v2c -c "$COMMUNITY" -On -Oq -Ot -t 5 -r 1 "127.0.0.1:$PORT" "$2" >"$3.raw" ||
		fail "$1 $2 failed: $(tail -n 3 "$3.raw")"
	tr -d '"' <"$3.raw" >"$3"
	python3 - "$3" <<'PY' || fail "$1 $2 is not strictly increasing"
import sys
prev = None
for line in open(sys.argv[1]):
    o = tuple(int(x) for x in line.split()[0].strip(".").split("."))
    if prev is not None and o <= prev:
        sys.exit("%s after %s" % (o, prev))
    prev = o
PY
}

fx_snmpd
fx_ifwriter ifseg
fx_ifcmd "add ports rxOctets port0 21474836603" "add ports txOctets port0 77" \
	"add ports rxErrors port0 4294967305" "set ports speed port0 100000" \
	"set ports speed port1 10" "set ports oper port0 1" "set ports oper port1 2" \
	"row+ vfs vfA" "add vfs rxOctets vfA 42"
start=$(fx_now_ms)
fx_agent
fx_wait 5 if_registered || fail "no IF-MIB rows within 5 s"
log "agent registered in $(($(fx_now_ms) - start)) ms"
fx_wait_pass

log "ifXTable and ifTable: snmpd's interfaces, then statctr's, one strictly increasing walk"
kernel=$(snmp_walk "$IFX.1" | awk -F'[. ]' '$13 < 1000' | grep -c .)
[ "$kernel" -ge 1 ] || fail "snmpd serves no interface of its own (ifName)"
start=$(fx_now_ms)
walk_increasing snmpbulkwalk "$IFX" "$TMP/ifx"
log "snmpbulkwalk of ifXTable: $(grep -c . "$TMP/ifx") objects in $(($(fx_now_ms) - start)) ms"
start=$(fx_now_ms)
walk_increasing snmpwalk "$IF" "$TMP/if"
log "snmpwalk of ifTable: $(grep -c . "$TMP/if") objects in $(($(fx_now_ms) - start)) ms"
for f in ifx if; do
	grep -q "^$([ $f = ifx ] && echo $IFX || echo $IF)\.[0-9]*\.1 " "$TMP/$f" ||
		fail "the $f walk has no kernel interface 1"
done
# Every ifName row, kernel's first: statctr's are 1000, 1001 and 2000, in order.
grep "^$IFX\.1\." "$TMP/ifx" | awk '{ print $2 }' | tail -n 3 | tr '\n' ' ' >"$TMP/names"
[ "$(cat "$TMP/names")" = "port0 port1 vfA " ] || fail "ifName rows end with: $(cat "$TMP/names")"
grep -q "^$IFX\.6\.1000 21474836603$" "$TMP/ifx" || fail "the walk's ifHCInOctets.1000"
grep -q "^$IF\.10\.1000 123$" "$TMP/if" || fail "the walk's ifInOctets.1000"

log "values: exact, Counter64 above 2^32, the low 32 bits in the 32-bit objects"
snmpget -v2c -c "$COMMUNITY" -On "127.0.0.1:$PORT" "$IFX.6.1000" |
	grep -q 'Counter64: 21474836603$' || fail "ifHCInOctets.1000 is no Counter64 21474836603"
snmpget -v2c -c "$COMMUNITY" -On "127.0.0.1:$PORT" "$IF.10.1000" |
	grep -q 'Counter32: 123$' || fail "ifInOctets.1000 is no Counter32 123"
while read -r oid want; do
	expect "$oid" "$want"
done <<EOF
$IF.1.1000 1000
$IF.2.1000 port0
$IF.2.1001 Port one
$IF.3.1000 135
$IF.3.1001 6
$IF.4.1000 9000
$IF.4.1001 1500
$IF.5.1000 4294967295
$IF.5.1001 10000000
$IF.7.1000 1
$IF.8.1000 1
$IF.8.1001 2
$IF.14.1000 9
$IF.16.1000 77
$IF.10.2000 42
$IFX.1.1000 port0
$IFX.1.1001 port1
$IFX.1.2000 vfA
$IFX.6.1001 0
$IFX.6.2000 42
$IFX.10.1000 77
$IFX.14.1000 1
$IFX.15.1000 100000
$IFX.15.1001 10
$IFX.16.1000 2
$IFX.17.1000 2
$IFX.18.1000 fabric
$IFX.18.1001 spare
$IFX.18.2000
EOF
for oid in "$IFX.7.1000" "$IF.2.1002" "$IFX.15.2000" "$IF.5.2000"; do
	snmp_get "$oid" | grep -q 'No Such' || fail "$oid is served: $(snmp_get "$oid")"
done
# Every IF-MIB object but ifLinkUpDownTrapEnable (linktraps.sh) is read-only
# here, whatever the type sent: notWritable.
for set in "$IFX.18.1000 s renamed" "$IFX.6.1000 i 5" "$IF.7.1000 i 2"; do
	# shellcheck disable=SC2086 # OID, type and value
	out=$(snmpset -v2c -c "$WCOMMUNITY" -t 2 -r 0 "127.0.0.1:$PORT" $set 2>&1) &&
		fail "SET $set accepted: $out"
	case $out in *notWritable*) ;; *) fail "SET $set: '$out', not notWritable" ;; esac
done

log "a reset moves ifCounterDiscontinuityTime and zeroes the counters"
before=$(snmp_value "$IFX.19.1000")
sleep 0.2
snmpset -v2c -c "$WCOMMUNITY" -t 2 -r 0 "127.0.0.1:$PORT" "$SEGDATA.1.1.4.1" i 2 >/dev/null ||
	fail "the reset of ports.port0 failed"
expect "$IFX.6.1000" 0
after=$(snmp_value "$IFX.19.1000")
[ "$after" -gt "$before" ] || fail "ifCounterDiscontinuityTime $before -> $after"
[ "$(snmp_value "$IFX.19.1001")" -lt "$after" ] || fail "port1's discontinuity moved too"

log "an oper-state change moves ifLastChange"
expect "$IF.9.1000" 0
fx_ifcmd "set ports oper port0 2"
fx_wait_pass
expect "$IF.8.1000" 2
changed=$(snmp_value "$IF.9.1000")
[ "$changed" -gt 0 ] || fail "ifLastChange.1000 did not move ($changed)"

log "dynamic rows: a new row is a new interface; a removed one is gone"
fx_ifcmd "row+ vfs vfB" "add vfs rxOctets vfB 5"
fx_wait_pass
expect "$IFX.1.2001" vfB
[ "$(snmp_value "$IF.9.2001")" -gt 0 ] || fail "ifLastChange of vfB, added while served, is 0"
fx_ifcmd "row- vfs vfA"
fx_wait_pass
snmp_get "$IFX.1.2000" | grep -q 'No Such Instance' || fail "removed vfA is still served"
[ "$(snmp_walk "$IFX.1" | awk '{ print $2 }' | tail -n 3 | tr '\n' ' ')" = "port0 port1 vfB " ] ||
	fail "ifName after vfA's removal: $(snmp_walk "$IFX.1" | tail -n 3)"

log "ifIndex survives a writer restart (names added in another order)"
fx_ifwriter_stop
rm -f "$TMP/ifseg"
fx_ifwriter ifseg
fx_ifcmd "row+ vfs vfB" "row+ vfs vfC" "row+ vfs vfA"
fx_wait_pass
expect "$IFX.1.2000" vfA
expect "$IFX.1.2001" vfB
expect "$IFX.1.2002" vfC
expect "$IFX.1.1000" port0

log "SIGHUP: the IF-MIB tables are registered again, same ifIndex"
kill -HUP "$AGENT_PID"
fx_wait 5 grep -q 'SIGHUP: configuration .* reloaded' "$TMP/agent.log" || fail "no reload"
fx_wait 5 if_registered || fail "no IF-MIB rows within 5 s of the reload"
expect "$IFX.1.2002" vfC
walk_increasing snmpbulkwalk "$IFX" "$TMP/ifx-hup"
[ "$(grep "^$IFX\.1\." "$TMP/ifx-hup" | awk '{ print $2 }' | tail -n 5 | tr '\n' ' ')" = \
	"port0 port1 vfA vfB vfC " ] || fail "ifName rows after SIGHUP: $(grep "^$IFX\.1\." "$TMP/ifx-hup")"

log "ifIndex survives an agent restart"
fx_agent_stop
fx_ifcmd "row- vfs vfA" "row+ vfs vfD" "row+ vfs vfA"
fx_agent
fx_wait 5 if_registered || fail "no IF-MIB rows within 5 s of the restart"
fx_wait_pass
expect "$IFX.1.2000" vfA
expect "$IFX.1.2002" vfC
expect "$IFX.1.2003" vfD
# The store's own thread writes the file, at most 100 ms after a name was added.
fx_wait 5 grep -q '^2003 ifseg vfs vfD$' "$TMP/agent.state.ifindex" ||
	fail "the ifIndex file: $(cat "$TMP/agent.state.ifindex")"
walk_increasing snmpbulkwalk "$IFX" "$TMP/ifx2"

log "an edited ifIndex file: garbage and a second name for one ifIndex are skipped, logged"
fx_agent_stop
printf '%s\n' 'garbage' '2002 ifseg vfs vfZ' '0 ifseg vfs vfY' "$(printf 'x%.0s' $(seq 400))" \
	>>"$TMP/agent.state.ifindex"
fx_agent
fx_wait 5 if_registered || fail "no IF-MIB rows within 5 s of the restart"
fx_wait_pass
expect "$IFX.1.2002" vfC
expect "$IFX.1.2003" vfD
[ "$(grep -c 'ifIndex file .*skipped' "$TMP/agent.log")" -ge 4 ] ||
	fail "the bad lines were not all logged: $(grep 'ifIndex file' "$TMP/agent.log")"

log "a link planted at the ifIndex file is neither followed nor replaced"
fx_agent_stop
echo precious >"$TMP/victim"
rm "$TMP/agent.state.ifindex"
ln -s "$TMP/victim" "$TMP/agent.state.ifindex"
fx_agent
fx_wait 5 if_registered || fail "no IF-MIB rows within 5 s"
fx_ifcmd "row+ vfs vfE"
fx_wait 5 sh -c "snmpwalk $V2 127.0.0.1:$PORT $IFX.1 | grep -q vfE" || fail "vfE not served"
[ "$(cat "$TMP/victim")" = precious ] || fail "the agent wrote through the link: $(cat "$TMP/victim")"
[ -L "$TMP/agent.state.ifindex" ] || fail "the agent replaced the planted link"
grep -q 'ifIndex file .*agent.state.ifindex' "$TMP/agent.log" || fail "the refusal was not logged"

log "conf/statctr.conf: vfStats' rows, churned by examples/pipeline -R, are interfaces"
fx_agent_stop
fx_ifwriter_stop
fx_config "interval_ms = 100; state_file = \"$TMP/conf.state\";"
fx_writer -t 1 -n 10 -R vfStats:3:1:40
fx_writer_settled
fx_agent
conf_registered() { [ "$(snmp_value "$IFX.1.1000")" = dp0 ]; }
fx_wait 5 conf_registered || fail "no IF-MIB rows of conf/statctr.conf within 5 s"
fx_wait_pass
# "name rxOctets" of the present rows: by STATCTR-MIB, and by IF-MIB (2000.. is vfStats').
join <(snmp_walk "$DATA.4.1.2" | sed "s|^$DATA\.4\.1\.2\.||" | sort) \
	<(snmp_walk "$DATA.4.1.11" | sed "s|^$DATA\.4\.1\.11\.||" | sort) |
	awk '{ print $2, $3 }' | sort >"$TMP/vf.statctr"
join <(snmp_walk "$IFX.1" | awk -F'[. ]' '$13 >= 2000 { print $13, $NF }' | sort) \
	<(snmp_walk "$IFX.6" | awk -F'[. ]' '$13 >= 2000 { print $13, $NF }' | sort) |
	awk '{ print $2, $3 }' | sort >"$TMP/vf.ifmib"
[ "$(grep -c . "$TMP/vf.statctr")" = 3 ] || fail "vfStats rows: $(cat "$TMP/vf.statctr")"
same_lines "$TMP/vf.statctr" "$TMP/vf.ifmib" "vfStats' interfaces differ from its rows"
[ "$(snmp_value "$IFX.18.1000")" = uplink ] && [ "$(snmp_value "$IF.4.1001")" = 1500 ] ||
	fail "ifStats' dp0 and dp1: $(snmp_value "$IFX.18.1000") $(snmp_value "$IF.4.1001")"
log "ok"
