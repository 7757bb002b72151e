#!/bin/bash
# IF-MIB registrations follow the names, not the declared range: a table
# reserving 256 ifIndex values (2000..2255) for 3 interfaces registers
# 2000..2015 only (snmpd's nsModuleTable shows what it holds); the 17th
# name, ifIndex 2016, registers 2016..2031 and is served within a pass; the
# 40th, 2039, registers 2032..2063; an agent restart registers at once as
# far as the ifIndex file's names reach; a SIGHUP keeps those registrations
# (no gap); after snmpd's restart the agent registers every chunk again and
# grows on; a walk of ifXTable is one strictly increasing table throughout.
# The writer is tests/integration/ifwriter.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/integration/fixture.sh"

fx_need snmpget snmpbulkwalk
[ -x "$top_builddir/tests/integration/ifwriter" ] || fail "ifwriter not built (make check builds it)"
IFX=.1.3.6.1.2.1.31.1.1.1

fx_vfs_config growseg 256 64
echo "agent = { interval_ms = 100; state_file = \"$TMP/agent.state\"; };" >>"$TMP/statctr.conf"

# The ifIndex values of ifName (ifXTable column 1) snmpd holds registrations
# of, "FIRST..LAST COUNT": nsModuleName rows in the default context whose
# registration point is ifName.N (12 arcs), N >= 2000.
registered() {
	snmpbulkwalk -v2c -c "$COMMUNITY" -On -t 5 -r 1 -Cr50 "127.0.0.1:$PORT" \
		".1.3.6.1.4.1.8072.1.2.1.1.4.0.12${IFX}.1" |
		awk -F' = ' '{ n = split($1, a, "."); v = a[n - 1] } v >= 2000 {
			if (!c++) lo = v; hi = v } END { print lo ".." hi, c + 0 }'
}
expect_registered() { # WHAT "FIRST..LAST COUNT"
	local got
	got=$(registered)
	[ "$got" = "$2" ] || fail "$1: snmpd holds ifName registrations $got, expected $2"
}
served() { [ "$(snmp_value "$IFX.1.$1")" = "$2" ]; } # IFINDEX NAME
add_vfs() { # FIRST LAST: names vfFIRST..vfLAST, one command each
	local i cmds=()
	for i in $(seq "$1" "$2"); do cmds+=("row+ vfs vf$i"); done
	fx_ifcmd "${cmds[@]}"
}
# ifName in a bulk walk of ifXTable: strictly increasing, the names expected last.
names_in_walk() { # COUNT
	snmpbulkwalk -v2c -c "$COMMUNITY" -On -Oq -t 5 -r 1 "127.0.0.1:$PORT" "$IFX.1" >"$TMP/walk" ||
		fail "snmpbulkwalk of ifName failed: $(tail -n 3 "$TMP/walk")"
	awk -F'[. ]' '{ v = $(NF - 1) } NR > 1 && v <= p { exit 1 } { p = v }' "$TMP/walk" ||
		fail "the ifName walk is not strictly increasing: $(cat "$TMP/walk")"
	[ "$(awk -F'[. ]' '$(NF - 1) >= 2000' "$TMP/walk" | grep -c .)" = "$1" ] ||
		fail "the ifName walk has $(awk -F'[. ]' '$(NF - 1) >= 2000' "$TMP/walk" | grep -c .) statctr rows, not $1"
}

fx_snmpd
fx_ifwriter growseg
add_vfs 0 2
fx_agent
fx_wait 5 served 2000 vf0 || fail "ifName.2000 is not vf0"
fx_wait_pass
log "3 names of 256 values: 2000..2015 registered"
expect_registered "3 names" "2000..2015 16"
names_in_walk 3

log "the 17th name (ifIndex 2016): 2016..2031 registered, served within a pass"
add_vfs 3 16
fx_wait 5 served 2016 vf16 || fail "ifName.2016 is not vf16: $(snmp_value "$IFX.1.2016")"
expect_registered "17 names" "2000..2031 32"
grep -q 'interfaces past' "$TMP/agent.log" && fail "a registration failed: $(grep 'interfaces past' "$TMP/agent.log")"

log "the 40th name (ifIndex 2039): 2032..2063 registered"
add_vfs 17 39
fx_wait 5 served 2039 vf39 || fail "ifName.2039 is not vf39: $(snmp_value "$IFX.1.2039")"
expect_registered "40 names" "2000..2063 64"
names_in_walk 40

log "an agent restart registers as far as the ifIndex file's names reach"
fx_wait 5 grep -q '^2039 growseg vfs vf39$' "$TMP/agent.state.ifindex" ||
	fail "vf39 is not in the ifIndex file"
fx_agent_stop
fx_ifcmd "row- vfs vf39"
fx_agent
fx_wait 5 served 2000 vf0 || fail "ifName.2000 is not vf0 after the restart"
expect_registered "the restart" "2000..2063 64"
fx_ifcmd "row+ vfs vf39"
fx_wait 5 served 2039 vf39 || fail "vf39 did not come back as ifIndex 2039"

log "SIGHUP: the same registrations, served throughout"
lines=$(grep -c . "$TMP/agent.log")
kill -HUP "$AGENT_PID"
fx_wait 5 grep -q 'SIGHUP: configuration .* reloaded' "$TMP/agent.log" || fail "no reload"
served 2039 vf39 || fail "ifName.2039 after the reload: $(snmp_value "$IFX.1.2039")"
expect_registered "the reload" "2000..2063 64"
names_in_walk 40
[ "$(tail -n +$((lines + 1)) "$TMP/agent.log" | grep -c 'registered again\|refused')" = 0 ] ||
	fail "the reload registered again: $(tail -n +$((lines + 1)) "$TMP/agent.log")"

log "snmpd restarts: every chunk registered again, then one more"
fx_stop "$SNMPD_PID"
fx_untrack "$SNMPD_PID"
fx_snmpd_start || fail "snmpd did not restart"
fx_wait 30 served 2039 vf39 || fail "ifName.2039 after snmpd's restart: $(tail -n 5 "$TMP/agent.log")"
expect_registered "snmpd's restart" "2000..2063 64"
# 25 names leave, 25 new ones come: ifIndex 2040..2064 (in the order of
# the rows' slots), so one past the registered chunks.
cmds=()
for i in $(seq 0 24); do cmds+=("row- vfs vf$i"); done
fx_ifcmd "${cmds[@]}"
add_vfs 40 64
served_2064() { snmp_value "$IFX.1.2064" | grep -q '^vf'; }
fx_wait 5 served_2064 || fail "ifName.2064 is not served: $(snmp_value "$IFX.1.2064")"
expect_registered "65 names" "2000..2127 128"
names_in_walk 40
grep -q 'interfaces past\|refused' "$TMP/agent.log" && fail "a registration failed: $(grep 'interfaces past\|refused' "$TMP/agent.log")"
log "ok"
