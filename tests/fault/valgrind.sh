#!/bin/bash
# One integration scenario with statctr-agentx under valgrind memcheck
# (--leak-check=full --errors-for-leak-kinds=definite --error-exitcode=1):
# walks, resets (and refused SETs), a good and a broken SIGHUP, an snmpd
# restart, a writer restart, a truncated segment, then SIGTERM.  Proves no
# invalid access, no use of uninitialised memory and no definite leak in
# the agent through its whole life cycle.  In a sanitizer build (valgrind
# cannot run ASan binaries) the same scenario runs under ASan/LSan, whose
# exit status says the same.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/fault/lib.sh"

fx_need snmpget snmpset snmpwalk
SUPP=$top_srcdir/tests/fault/valgrind.supp
if agent_sanitized; then
	MODE=sanitizer
	cat >"$TMP/agent-wrapper" <<EOW
#!/bin/sh
exec "$top_builddir/libtool" --mode=execute "$AGENT" "\$@"
EOW
else
	command -v valgrind >/dev/null || skip "valgrind not found (Debian: apt-get install valgrind)"
	MODE=valgrind
	cat >"$TMP/agent-wrapper" <<EOW
#!/bin/sh
exec "$top_builddir/libtool" --mode=execute valgrind -q --log-file="$TMP/valgrind.log" \
	--error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite \
	--show-leak-kinds=definite --track-fds=no --suppressions="$SUPP" "$AGENT" "\$@"
EOW
fi
chmod +x "$TMP/agent-wrapper"

fx_config "interval_ms = 200; allow_reset = true;"
fx_snmpd
fx_writer -t 2 -n 2000
fx_writer_settled

log "starting the agent under $MODE"
"$TMP/agent-wrapper" -f -L stderr -c "$TMP/statctr.conf" -x "$TMP/agentx.sock" \
	>>"$TMP/agent.log" 2>&1 &
AGENT_PID=$!
fx_track "$AGENT_PID"
fx_wait 30 fx_agent_answers || fail "the agent did not answer within 30 s under $MODE"

# Per request: 5 s x the load per CPU (at most 10x): the agent runs under valgrind.
TSLOW=$(fx_loaded 5)
V2SLOW="-v2c -c $COMMUNITY -On -Oq -t $TSLOW -r 1"
get() { snmpget $V2SLOW -Ov "127.0.0.1:$PORT" "$1" | tr -d '"'; }
set_int() { snmpset -v2c -c "$WCOMMUNITY" -t "$TSLOW" -r 1 "127.0.0.1:$PORT" "$1" i "$2" >/dev/null 2>&1; }
walk() { snmpbulkwalk $V2SLOW "127.0.0.1:$PORT" "$1" | grep -cF "$1." || true; }

log "walks"
[ "$(walk "$ROOT.1")" -gt 100 ] || fail "statctrObjects walk"
[ "$(walk "$DATA")" -gt 100 ] || fail "statctrData walk"
[ "$(get "$DATA.3.1.10.1")" = 4000 ] || fail "totals.packets"

log "resets and refused SETs"
set_int "$DATA.3.1.4.1" 2 || fail "row reset"
set_int "$ROOT.1.3.1.12.1.1" 2 || fail "cell reset"
set_int "$ROOT.1.2.1.12.1" 2 || fail "segment reset"
set_int "$DATA.3.1.4.1" 7 && fail "wrongValue accepted"
set_int "$DATA.3.1.4.99" 2 && fail "noCreation accepted"
snmpset -v2c -c "$WCOMMUNITY" -t "$TSLOW" -r 1 "127.0.0.1:$PORT" "$DATA.3.1.4.1" s x >/dev/null 2>&1 &&
	fail "wrongType accepted"
sleep 0.5
[ "$(get "$DATA.3.1.10.1")" = 0 ] || fail "totals.packets after the resets"

log "SIGHUP: broken, then good"
cp "$TMP/statctr.conf" "$TMP/good.conf"
echo 'agent = { bogus = 1; };' >>"$TMP/statctr.conf"
kill -HUP "$AGENT_PID"
wait_log 20 "still serving"
cp "$TMP/good.conf" "$TMP/statctr.conf"
kill -HUP "$AGENT_PID"
wait_log 20 "reloaded"
fx_wait 20 fx_agent_answers || fail "no answer after the reload"

log "snmpd restart"
fx_snmpd_stop
sleep 1.5
fx_snmpd_start || fail "snmpd did not restart"
fx_wait 20 fx_agent_answers || fail "no answer after the snmpd restart"

log "writer restart, then a truncated segment"
fx_kill "$WRITER_PID" KILL
fx_writer -t 1 -n 100
fx_wait 20 bash -c "[ \"\$(snmpget $V2SLOW -Ov 127.0.0.1:$PORT $DATA.3.1.10.1)\" = 100 ]" ||
	fail "the new generation is not served"
truncate -s 1000 "$SEGMENT"
wait_log 20 "dataplane .*(truncated|changed size)"
[ -z "$(snmpwalk $V2SLOW "127.0.0.1:$PORT" "$DATA" | grep -F "$DATA.")" ] || fail "rows of a truncated segment"

log "SIGTERM: the exit status carries $MODE's verdict"
agent_exit_clean 30 # valgrind --error-exitcode=1, or LeakSanitizer
if [ "$MODE" = valgrind ] && [ -s "$TMP/valgrind.log" ]; then
	cat "$TMP/valgrind.log" >&2
	fail "valgrind printed a report"
fi
grep -q "exiting on signal" "$TMP/agent.log" || fail "the agent did not exit through its SIGTERM path"
log "pass: $MODE found nothing"
exit 0
