#!/bin/bash
# A SET whose reset begins but outlives the agent's wait for it
# (AGG_RESET_WAIT_MS, 500 ms), as on a machine at load 20: the agent runs with
# tests/fault/slowlock.so, which stalls the reset once, for 3 s, after the
# aggregation thread has taken it.  Proves: the SET is answered before the
# reset ends, with undoFailed (RFC 3416 4.2.5: some assignments may have
# been made), neither noError nor commitFailed (which says none was); the
# reset completes anyway, is logged, and reads zero; its cost comes off the
# segment's reset budget, so the next reset is refused (resourceUnavailable)
# until the budget refills, and then answers noError.  In one PDU with
# ifLinkUpDownTrapEnable before it, the stalled reset's undoFailed puts that
# write back (UNDO): the value reads enabled(1) again.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/fault/lib.sh"

SLOWLOCK=$top_builddir/tests/fault/.libs/slowlock.so
STALL_MS=3000
fx_need snmpget snmpset
[ -f "$SLOWLOCK" ] || skip "$SLOWLOCK not built (make check builds it)"

# The agent, through a wrapper that preloads the fault (ASan's runtime must
# otherwise come first in the list).
ARM=$TMP/slowlock.arm
cat >"$TMP/agent-slowlock" <<WRAPPER
#!/bin/sh
export LD_PRELOAD='$SLOWLOCK' STATCTR_SLOWLOCK_ARM='$ARM' STATCTR_SLOWLOCK_MS=$STALL_MS
export ASAN_OPTIONS="\${ASAN_OPTIONS:+\$ASAN_OPTIONS:}verify_asan_link_order=0"
exec '$AGENT' "\$@"
WRAPPER
chmod +x "$TMP/agent-slowlock"
AGENT=$TMP/agent-slowlock

fx_config "interval_ms = 100; allow_reset = true;"
fx_snmpd
fx_writer -t 2 -n 5000
fx_agent
fx_writer_settled
fx_wait_pass
PACKETS=$DATA.3.1.10.1 # totals.packets, row 1
[ "$(snmp_value "$PACKETS")" = 10000 ] || fail "totals.packets is $(snmp_value "$PACKETS"), not 10000"

# set_reset: resets totals row 1; prints the error snmpset reports, or "ok".
set_reset() { fx_set_status "$DATA.3.1.4.1" i 2; }

log "a reset that stalls for $STALL_MS ms once begun"
touch "$ARM"
start=$(fx_now_ms)
got=$(set_reset)
took=$(($(fx_now_ms) - start))
[ ! -e "$ARM" ] || fail "the reset never reached its lock (the fault did not fire)"
[ "$got" = undoFailed ] || fail "the stalled reset's SET gave '$got' after $took ms, expected undoFailed"
grep -q "completed after their SET timed out" "$TMP/agent.log" &&
	fail "the SET was answered only after its reset completed ($took ms)"
[ "$took" -lt "$STALL_MS" ] ||
	fail "the SET took $took ms, as long as the stall (load $(cut -d' ' -f1-3 /proc/loadavg))"
grep -q "resets still running after [0-9]* ms" "$TMP/agent.log" ||
	fail "no log line for the reset still running: $(grep -i reset "$TMP/agent.log")"
log "answered undoFailed in $took ms"

completed() { grep -q "1 resets completed after their SET timed out" "$TMP/agent.log"; }
fx_wait "$(fx_loaded 10)" completed ||
	fail "the stalled reset's outcome was not logged: $(grep -i reset "$TMP/agent.log")"
zeroed() { [ "$(snmp_value "$PACKETS")" = 0 ]; }
fx_wait "$(fx_loaded 5)" zeroed || fail "totals.packets reads $(snmp_value "$PACKETS") after the reset completed"

log "its cost came off the budget: the next reset is refused, then admitted"
got=$(set_reset)
[ "$got" = resourceUnavailable ] || fail "the reset after a 3 s one gave '$got', expected resourceUnavailable"
admitted() { [ "$(set_reset)" = ok ]; }
fx_wait "$(fx_loaded 30)" admitted || fail "no reset admitted again: $(set_reset)"
[ "$(grep -c "reset failed\|reset after its SET" "$TMP/agent.log")" = 1 ] ||
	fail "a reset failed: $(grep -i reset "$TMP/agent.log")"

log "one PDU: ifLinkUpDownTrapEnable.1000 = disabled(2), then the stalling reset"
TRAPEN=.1.3.6.1.2.1.31.1.1.1.14.1000
[ "$(snmp_value "$TRAPEN")" = 1 ] || fail "ifLinkUpDownTrapEnable.1000 is $(snmp_value "$TRAPEN"), not enabled(1)"
touch "$ARM"
# One try, until the budget admits the reset (RESERVE1 refuses it otherwise, before any write).
both() {
	fx_set_status "$TRAPEN" i 2 "$DATA.3.1.4.1" i 2 >"$TMP/both"
	[ "$(cat "$TMP/both")" != resourceUnavailable ]
}
fx_wait "$(fx_loaded 30)" both || fail "the PDU was never admitted: $(cat "$TMP/both")"
[ ! -e "$ARM" ] || fail "the PDU's reset never reached its lock: $(cat "$TMP/both")"
[ "$(cat "$TMP/both")" = undoFailed ] || fail "the PDU gave '$(cat "$TMP/both")', expected undoFailed"
[ "$(snmp_value "$TRAPEN")" = 1 ] ||
	fail "ifLinkUpDownTrapEnable.1000 is $(snmp_value "$TRAPEN") after the SET's UNDO, not enabled(1) again"
log "undoFailed; ifLinkUpDownTrapEnable.1000 put back"
log "pass"
exit 0
