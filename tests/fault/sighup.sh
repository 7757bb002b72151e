#!/bin/bash
# SIGHUP with broken configurations, one kind of breakage at a time: a
# syntax error, an unknown setting, a library-level error, an unknown
# segment_owner, a bad root_oid, a missing file, an @include of a directory
# (libconfig would exit the process), a FIFO (it would block), and a
# configuration that parses but whose registration snmpd refuses
# (exercising the roll-back to the old registrations).  Proves, each time: the agent logs why, naming
# file:line where there is one; keeps serving the old configuration (same
# values as the library, the same registrations, no leaked descriptor); and
# finally applies a good configuration.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/fault/lib.sh"

fx_need snmpget snmpwalk
fx_config "interval_ms = 100;"
cp "$TMP/statctr.conf" "$TMP/good.conf"
sed '$d' "$TMP/good.conf" >"$TMP/base.conf" # without the agent group
fx_snmpd
fx_writer -t 2 -n 2000
fx_writer_settled
fx_agent
fx_wait_pass
fds0=$(fx_fd_count "$AGENT_PID")

all_registered() { [ "$(fx_registrations)" = "$FX_REGIONS" ]; }
old_interval() { [ "$(snmp_value "$ROOT.1.1.2.0")" = 100 ]; }
old_values() { [ "$(snmp_value "$DATA.3.1.10.1")" = 4000 ]; }

# hup_broken WHAT REGEXP: SIGHUP with $TMP/statctr.conf as prepared; the
# new lines of the agent's log must match REGEXP; the old config serves.
hup_broken() {
	local what=$1 re=$2 seen
	seen=$(wc -l <"$TMP/agent.log")
	kill -HUP "$AGENT_PID"
	fx_wait 5 bash -c "tail -n +$((seen + 1)) '$TMP/agent.log' | grep -q 'still serving'" ||
		fail "$what: no 'still serving the previous configuration' in the log"
	tail -n +$((seen + 1)) "$TMP/agent.log" | grep -Eq "$re" || {
		tail -n +$((seen + 1)) "$TMP/agent.log" >&2
		fail "$what: the log does not match /$re/"
	}
	kill -0 "$AGENT_PID" || fail "$what: the agent died"
	fx_wait 5 fx_agent_answers || fail "$what: the agent does not answer within $(fx_loaded 5) s (load $(cut -d" " -f1 /proc/loadavg))"
	# Polled: at load 36 snmpd left two GETs (2 s, one retry) unanswered
	# while the agent registered its regions again.  A changed value stays.
	fx_wait 5 all_registered || fail "$what: $(fx_registrations) registrations, not $FX_REGIONS"
	fx_wait 5 old_interval || fail "$what: statctrAggInterval changed: $(snmp_value "$ROOT.1.1.2.0")"
	fx_wait 5 old_values || fail "$what: values not served: $(snmp_value "$DATA.3.1.10.1")"
	[ "$(fx_fd_count "$AGENT_PID")" = "$fds0" ] || fail "$what: descriptors $fds0 -> $(fx_fd_count "$AGENT_PID")"
	log "$what: $(tail -n +$((seen + 1)) "$TMP/agent.log" | grep 'still serving' | head -1)"
	rm -f "$TMP/statctr.conf"
	cp "$TMP/good.conf" "$TMP/statctr.conf"
}

# broken LINE: the config with LINE as its agent group; sets $line to LINE's number.
broken() {
	cp "$TMP/base.conf" "$TMP/statctr.conf"
	line=$(($(wc -l <"$TMP/base.conf") + 1))
	echo "$1" >>"$TMP/statctr.conf"
}

C=$(echo "$TMP/statctr.conf" | sed 's/[.]/[.]/g')
broken 'agent = { interval_ms = = 50; };'
hup_broken "syntax error" "$C:$line: .*syntax error"
broken 'agent = { interval_ms = 50; bogus = 1; };'
hup_broken "unknown agent setting" "$C:$line: agent[.]bogus: unknown setting"
sed 's/rows = 64;/rows = 0;/' "$TMP/good.conf" >"$TMP/statctr.conf"
line=$(grep -n 'rows = 0;' "$TMP/statctr.conf" | cut -d: -f1)
hup_broken "zero rows (library)" "$C:$line: .*rows"
broken 'agent = { segment_owner = "no-such-user-statctr"; };'
hup_broken "unknown segment_owner" "$C:$line: agent[.]segment_owner"
broken 'agent = { root_oid = "1.3.x"; };'
hup_broken "bad root_oid" "$C:$line: agent[.]root_oid"
rm "$TMP/statctr.conf"
hup_broken "missing file" "$C"
# libconfig's scanner exit()s on an included directory and blocks on a FIFO.
broken '@include "/tmp"'
hup_broken "@include of a directory" "$C:$line: @include is not supported"
rm "$TMP/statctr.conf"
mkfifo "$TMP/statctr.conf"
hup_broken "a FIFO" "$C: not a regular file"
log "a configuration snmpd refuses to register: rolled back to the old registrations"
broken 'agent = { interval_ms = 100; root_oid = "1.3.6.1.2.1.1"; };'
hup_broken "registration refused" "cannot register|SIGHUP"

log "a good configuration is applied"
broken 'agent = { interval_ms = 200; };'
kill -HUP "$AGENT_PID"
wait_log 5 "configuration .* reloaded"
fx_wait 5 bash -c "[ \"\$(snmpget $V2 -Ov 127.0.0.1:$PORT $ROOT.1.1.2.0)\" = 200 ]" ||
	fail "statctrAggInterval is not 200 after the good reload"
[ "$(fx_registrations)" = "$FX_REGIONS" ] || fail "$(fx_registrations) registrations after the good reload"
[ "$(snmp_value "$DATA.3.1.10.1")" = 4000 ] || fail "values after the good reload"
log "a reload keeps every region served: no noSuchObject during and after SIGHUPs"
IFNAME=.1.3.6.1.2.1.31.1.1.1.1.1000
# A GET may take 2 s times the load per CPU (fx_loaded) before a Timeout is
# a failure; "No Such" or an error status is one at once.
probe() { snmpget $V2 -On -t "$(fx_loaded 2)" -r 1 127.0.0.1:$PORT "$ROOT.1.1.1.0" "$DATA.3.1.10.1" "$IFNAME" 2>&1; }
probe | grep -q "^$IFNAME \"" || fail "ifName.1000 not served before the SIGHUPs: $(probe)"
gets=0
for hup in 1 2 3; do
	reloads=$(grep -c "configuration .* reloaded" "$TMP/agent.log")
	kill -HUP "$AGENT_PID"
	end=$((SECONDS + 3))
	while [ $SECONDS -lt $end ]; do
		out=$(probe) || true # a Timeout is judged below, with its message
		gets=$((gets + 1))
		if echo "$out" | grep -Eq "No Such|Timeout|Error"; then
			echo "$out" >&2
			fail "SIGHUP $hup: a GET was not answered with values (after $gets GETs; load $(cut -d' ' -f1 /proc/loadavg))"
		fi
	done
	fx_wait 5 bash -c "[ \$(grep -c 'configuration .* reloaded' '$TMP/agent.log') -gt $reloads ]" ||
		fail "SIGHUP $hup: not reloaded"
done
log "$gets GETs of three regions (statctrObjects, a data table, an IF-MIB range) across 3 SIGHUPs: all answered"
[ "$(fx_registrations)" = "$FX_REGIONS" ] || fail "$(fx_registrations) registrations after the SIGHUPs"
agent_exit_clean 10
log "pass"
exit 0
