#!/bin/bash
# Several applications, one agent (docs/agent.md "Several applications"):
# the main file's agent.conf_dir names a directory of fragments, one per
# application, each declaring segments.  Proves: the agent serves the
# segments of the main file and of every fragment, and the writers and
# statctl read them the same way; a fragment added and a SIGHUP serve its
# segment too; check-config and a SIGHUP refuse a fragment that collides
# with another, naming both files:lines, and the agent keeps serving; a
# fragment with an agent group is refused; a second agent started for one
# application is refused with a line that says to use conf_dir instead.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/integration/fixture.sh"
set -o pipefail

STATCTL=$top_builddir/tools/statctl
fx_need snmpget snmpwalk
BLOCK=$(sed -n '/^  {$/,/^  }$/p' "$top_srcdir/conf/statctr.conf")
[ -n "$BLOCK" ] || fail "cannot find the segment group in conf/statctr.conf"

# fragment N: conf.d/appN.conf, segment dataplaneN (oid N, IF-MIB ranges moved by N*10000).
fragment() {
	{
		echo "# application $1"
		echo "segments = ("
		echo "$BLOCK" | sed -e "s|name = \"dataplane\";|name = \"dataplane$1\"; path = \"$TMP/dataplane$1\";|" \
			-e "s|^    oid = 1;|    oid = $1;|" -e "s|ifindex_base = \([0-9]*\);|ifindex_base = $1\1;|"
		echo ");"
	} >"$TMP/conf.d/app$1.conf"
}

mkdir "$TMP/conf.d"
{
	echo "segments = ("
	echo "$BLOCK" | sed "s|name = \"dataplane\";|name = \"dataplane\"; path = \"$TMP/dataplane\";|"
	echo ");"
	echo 'agent = { interval_ms = 100; conf_dir = "conf.d"; };'
} >"$TMP/statctr.conf"
SEGMENT=$TMP/dataplane
fragment 2

log "check-config reads the main file and conf.d together"
"$STATCTL" check-config "$TMP/statctr.conf" >"$TMP/check.out" 2>&1 || fail "check-config: $(cat "$TMP/check.out")"
grep -q ': valid: 2 segments,' "$TMP/check.out" || fail "check-config: $(cat "$TMP/check.out")"

fx_snmpd
fx_writer -t 2 -n 100
fx_start_writer "$TMP/writer2.log" "$TMP/dataplane2" -s dataplane2 -t 1 -n 300
fx_agent
fx_wait_pass

log "both applications' segments are served by one agent"
[ "$(snmp_value "$ROOT.1.2.1.2.1")" = dataplane ] || fail "segment 1: $(snmp_value "$ROOT.1.2.1.2.1")"
[ "$(snmp_value "$ROOT.1.2.1.2.2")" = dataplane2 ] || fail "segment 2: $(snmp_value "$ROOT.1.2.1.2.2")"
fx_wait "$(fx_loaded 5)" bash -c "[ \"\$(snmpget -v2c -c $COMMUNITY -Oqv 127.0.0.1:$PORT $DATA.3.1.10.1)\" = 200 ]" ||
	fail "dataplane totals.packets $(snmp_value "$DATA.3.1.10.1"), not 200"
fx_wait "$(fx_loaded 5)" bash -c "[ \"\$(snmpget -v2c -c $COMMUNITY -Oqv 127.0.0.1:$PORT $DATA2.3.1.10.1)\" = 300 ]" ||
	fail "dataplane2 totals.packets $(snmp_value "$DATA2.3.1.10.1"), not 300"
"$STATCTL" -c "$TMP/statctr.conf" list >"$TMP/list.out" 2>&1 || fail "statctl list: $(cat "$TMP/list.out")"
grep -q dataplane2 "$TMP/list.out" || fail "statctl list lacks the fragment's segment: $(cat "$TMP/list.out")"

log "a fragment added, then SIGHUP: its segment is served too"
fragment 3
kill -HUP "$AGENT_PID"
fx_wait "$(fx_loaded 10)" grep -q 'SIGHUP: configuration .* reloaded' "$TMP/agent.log" ||
	fail "the reload with a third fragment did not complete"
fx_wait "$(fx_loaded 5)" bash -c "[ \"\$(snmpget -v2c -c $COMMUNITY -Oqv 127.0.0.1:$PORT $ROOT.1.2.1.2.3)\" = '\"dataplane3\"' ]" ||
	fail "segment 3 after SIGHUP: $(snmp_value "$ROOT.1.2.1.2.3")"
[ "$(snmp_value "$DATA2.3.1.10.1")" = 300 ] || fail "dataplane2 after SIGHUP: $(snmp_value "$DATA2.3.1.10.1")"

log "a colliding fragment: refused by check-config and by SIGHUP, naming both files"
fragment 9
sed -i 's|^    oid = 9;|    oid = 2;|' "$TMP/conf.d/app9.conf"
line2=$(grep -n '^  {$' "$TMP/conf.d/app2.conf" | head -1 | cut -d: -f1) # the segment's group
rc=0
"$STATCTL" check-config "$TMP/statctr.conf" >"$TMP/check.out" 2>&1 || rc=$?
[ "$rc" = 1 ] || fail "check-config of a collision: status $rc: $(cat "$TMP/check.out")"
grep -Eq "conf.d/app9.conf:[0-9]+: segments\.\[[0-9]+\]\.oid: duplicate segment oid 2 \(also .*conf.d/app2.conf:$line2\)" "$TMP/check.out" ||
	fail "the collision does not name both files:lines: $(cat "$TMP/check.out")"
log "check-config: $(cat "$TMP/check.out")"
kill -HUP "$AGENT_PID"
fx_wait "$(fx_loaded 5)" grep -q 'SIGHUP: .*app9.conf:[0-9]*: .*duplicate segment oid 2.*still serving' "$TMP/agent.log" ||
	fail "SIGHUP with a collision: $(grep SIGHUP "$TMP/agent.log" | tail -2)"
[ "$(snmp_value "$DATA2.3.1.10.1")" = 300 ] || fail "not serving after a refused reload"
rm "$TMP/conf.d/app9.conf"

log "a fragment with an agent group is refused"
{ cat "$TMP/conf.d/app3.conf"; echo 'agent = { interval_ms = 5; };'; } >"$TMP/conf.d/app8.conf"
sed -i -e 's|dataplane3|dataplane8|g' -e 's|^    oid = 3;|    oid = 8;|' "$TMP/conf.d/app8.conf"
rc=0
"$STATCTL" check-config "$TMP/statctr.conf" >"$TMP/check.out" 2>&1 || rc=$?
[ "$rc" = 1 ] && grep -q 'app8.conf:[0-9]*: agent: the agent group belongs in the main file' "$TMP/check.out" ||
	fail "a fragment's agent group: status $rc: $(cat "$TMP/check.out")"
rm "$TMP/conf.d/app8.conf"

log "a second agent for one application: refused, told to use conf_dir"
{
	echo "segments = ("
	echo "$BLOCK" | sed -e "s|name = \"dataplane\";|name = \"dataplane2\"; path = \"$TMP/dataplane2\";|" \
		-e "s|^    oid = 1;|    oid = 2;|" -e "s|ifindex_base = \([0-9]*\);|ifindex_base = 2\1;|"
	echo ");"
	echo 'agent = { interval_ms = 100; };'
} >"$TMP/second.conf"
rc=0
timeout "$(fx_loaded "$FX_REGISTER_S")" "$AGENT" -c "$TMP/second.conf" -x "$TMP/agentx.sock" >"$TMP/second.out" 2>&1 || rc=$?
[ "$rc" = 1 ] || fail "the second agent: status $rc: $(cat "$TMP/second.out")"
grep -q 'duplicateRegistration.*instead of a second agent, put this configuration.s segments in a fragment of the running agent.s agent.conf_dir' "$TMP/second.out" ||
	fail "the refusal does not say what to do: $(cat "$TMP/second.out")"
kill -0 "$AGENT_PID" || fail "the agent died"
log "pass"
