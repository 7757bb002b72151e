#!/bin/bash
# Notifications of the embedded master (-M) to the sinks of agent.trap_sinks
# (docs/agent.md, "Notifications"), received by a real snmptrapd:
# - a v2c trap sink and an SNMPv3 inform sink (the SHA-256/AES user of
#   v3_users) each receive every linkDown and linkUp of N flips of a row,
#   with its ifIndex and state, and statctrSegmentStateChange and
#   statctrWriterRestart when the writer is killed and comes back;
# - statctrNotificationsSent counts each notification once, Lost stays 0;
# - without sinks, -M counts them lost (statctrNotificationsLost);
# - a sink with an unknown user, or with both or neither of community and
#   user, is refused by check-config naming FILE:LINE; an address Net-SNMP
#   cannot send to stops the start naming the sink.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/integration/fixture.sh"

fx_need snmpget snmptrap snmptrapd python3
[ -x "$top_builddir/tests/integration/ifwriter" ] || fail "ifwriter not built (make check builds it)"
IF=.1.3.6.1.2.1.2.2.1
SENT=$ROOT.1.1.11.0 # statctrNotificationsSent, Suppressed, Lost
LOST=$ROOT.1.1.13.0
N=3
USER=nms
UAUTH=sink-auth-pass
UPRIV=sink-priv-pass

conf() { # TRAP_SINKS...
	ifseg_conf "interval_ms = 100; community = \"$COMMUNITY\"; link_holddown_ms = 0;
          engine_boots_file = \"$TMP/boots\";
          v3_users = ( { name = \"$USER\"; auth = \"SHA-256\"; auth_pass = \"$UAUTH\";
                         priv = \"AES\"; priv_pass = \"$UPRIV\"; } );
          $*"
	chmod 600 "$TMP/statctr.conf"
}

# The agent on -M with $TMP/statctr.conf, on a free port: PORT, AGENT_PID.
start_m() {
	fx_on_free_port agent 5 fx_agent_answers_on \
		"$AGENT" -f -L stderr -c "$TMP/statctr.conf" -M "udp:127.0.0.1:@PORT@"
	PORT=$FREE_PORT AGENT_PID=$FREE_PID
}
stop_m() {
	fx_stop "$AGENT_PID"
	fx_untrack "$AGENT_PID"
}
value_is() { [ "$(snmp_value "$1")" = "$2" ]; }

. "$top_srcdir/tests/integration/trapd.sh"

log "check-config refuses sinks it cannot use, naming FILE:LINE"
refused() { # WHAT-IT-MUST-SAY TRAP_SINKS
	local out
	conf "$2"
	out=$("$AGENT" --check-config -c "$TMP/statctr.conf" 2>&1) && fail "accepted: $2"
	echo "$out" | grep -q "^$TMP/statctr.conf:[0-9]*: agent.trap_sinks.*$1" ||
		fail "for $2: '$out', expected '$1'"
}
refused 'no user "ops" in agent.v3_users' 'trap_sinks = ( { address = "udp:127.0.0.1:9"; user = "ops"; } );'
refused 'needs exactly one of community' 'trap_sinks = ( { address = "udp:127.0.0.1:9"; } );'
refused 'needs exactly one of community' "trap_sinks = ( { address = \"udp:127.0.0.1:9\"; community = \"c\"; user = \"$USER\"; } );"
refused 'must be "trap" or "inform"' 'trap_sinks = ( { address = "udp:127.0.0.1:9"; community = "c"; type = "log"; } );'
refused 'the same address and party as trap_sinks.\[0\]' 'trap_sinks = ( { address = "udp:127.0.0.1:9"; community = "c"; }, { address = "udp:127.0.0.1:9"; community = "c"; type = "inform"; } );'
conf 'trap_sinks = ( { address = "udp:no-such-host.invalid:162"; community = "c"; } );'
"$AGENT" -f -L stderr -c "$TMP/statctr.conf" -M "udp:127.0.0.1:0" >"$TMP/bad.log" 2>&1 &&
	fail "an agent with a sink it cannot send to started"
grep -q 'agent.trap_sinks.\[0\].address udp:no-such-host.invalid:162: not an address' "$TMP/bad.log" ||
	fail "an unreachable sink: $(cat "$TMP/bad.log")"

TRAPD_CONF="createUser $USER SHA-256 $UAUTH AES $UPRIV"
start_trapd
conf "trap_sinks = ( { address = \"udp:127.0.0.1:$TPORT\"; community = \"public\"; },
                     { address = \"udp:127.0.0.1:$TPORT\"; user = \"$USER\"; } );"
fx_ifwriter ifseg
fx_ifcmd "set ports oper port0 1" "set ports oper port1 1"
start_m
fx_wait 5 value_is "$IF.8.1000" 1 || fail "no IF-MIB rows within 5 s"
fx_wait_pass

log "-M: $N flips of port0 reach both sinks, each notification once"
for i in $(seq "$N"); do
	for s in 2 1; do
		fx_ifcmd "set ports oper port0 $s"
		fx_wait_pass
	done
done
for how in trap-v2c inform-v3; do
	fx_wait 10 sh -c "[ \$(awk '\$2 == \"linkUp\" && \$3 == 1000 && \$5 == \"$how\"' '$TRAPS' | grep -c .) -ge $N ]" ||
		fail "$how: $(count linkUp 1000 "$how") linkUp of $N within 10 s"
	[ "$(count linkDown 1000 "$how")" -eq "$N" ] && [ "$(count linkUp 1000 "$how")" -eq "$N" ] ||
		fail "$how: $(count linkDown 1000 "$how") linkDown and $(count linkUp 1000 "$how") linkUp for $N flips"
	[ "$(last_of linkDown 1000 | cut -d' ' -f4)" = 2 ] || fail "linkDown carries $(last_of linkDown 1000)"
done
[ $(($(count linkDown 1001) + $(count linkUp 1001))) -eq 0 ] || fail "port1 never changed, yet was notified"
[ "$(snmp_value "$SENT")" -eq $((2 * N)) ] || fail "statctrNotificationsSent $(snmp_value "$SENT"), expected $((2 * N))"
[ "$(snmp_value "$LOST")" -eq 0 ] || fail "statctrNotificationsLost $(snmp_value "$LOST") with two sinks"
log "$N flips: $N linkDown and $N linkUp as v2c traps and as v3 informs"

log "-M: a writer killed and restarted: statctrSegmentStateChange and statctrWriterRestart at both sinks"
dead=$WRITER_PID
fx_kill "$WRITER_PID" KILL
fx_wait 10 sh -c "[ \$(grep -c ' $ROOT.0.1 ifseg 4 $dead\$' '$TRAPS') -ge 2 ]" ||
	fail "statctrSegmentStateChange writerGone(4) did not reach both sinks: $(grep " $ROOT.0" "$TRAPS")"
exec 7>&-
fx_ifwriter ifseg
fx_ifcmd "set ports oper port0 1" "set ports oper port1 1"
fx_wait 10 sh -c "[ \$(grep -c ' $ROOT.0.2 ifseg $WRITER_PID ' '$TRAPS') -ge 2 ]" ||
	fail "statctrWriterRestart did not reach both sinks: $(grep " $ROOT.0" "$TRAPS")"
fx_wait 10 sh -c "[ \$(grep -c ' $ROOT.0.1 ifseg 1 $WRITER_PID\$' '$TRAPS') -ge 2 ]" ||
	fail "statctrSegmentStateChange active(1) did not reach both sinks: $(grep " $ROOT.0" "$TRAPS")"
[ "$(snmp_value "$LOST")" -eq 0 ] || fail "statctrNotificationsLost $(snmp_value "$LOST") with two sinks"

log "-M without sinks: notifications are counted lost"
stop_m
conf
start_m
fx_wait 5 value_is "$IF.8.1000" 1 || fail "no IF-MIB rows within 5 s"
fx_wait_pass
before=$(grep -c . "$TRAPS")
fx_ifcmd "set ports oper port0 2"
fx_wait 5 value_is "$LOST" 1 || fail "statctrNotificationsLost $(snmp_value "$LOST") after a flip without sinks"
[ "$(snmp_value "$SENT")" -eq 0 ] || fail "statctrNotificationsSent $(snmp_value "$SENT") without sinks"
[ "$(grep -c . "$TRAPS")" -eq "$before" ] || fail "a notification arrived from an agent without sinks"
log "PASS"
