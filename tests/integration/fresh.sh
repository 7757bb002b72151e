#!/bin/bash
# Fresh values (docs/agent.md "Fresh values"): with interval_ms = 5000, a
# GET is served from a pass at most agent.max_age_ms (default 200) old.
# Proves: with the default, every GET's totals.packets is at least what the
# library held 250 ms before it (10 of 10; the 250 ms times the load per CPU,
# fx_loaded: the agent waits at most max_age_ms for a pass, then serves the
# latest, "CPU allowing"), while the writer counts flat
# out; a poller asking continuously for 3 s gets at most one pass per
# max_age_ms (statctrAggPasses), so the passes stay bounded; with
# max_age_ms = 0 (SIGHUP, and an interval of 60 s, so that the lag is
# plain at any load) the values lag by up to the interval again (the same
# check fails at least once in 10) and GETs back to back for 3 s run no
# pass of their own (only the interval's).
. "${top_srcdir:-$(dirname "$0")/../..}/tests/integration/fixture.sh"
set -o pipefail

fx_need snmpget
fx_config "interval_ms = 5000;"
fx_snmpd
fx_writer -t 2 -r 20000
fx_agent
PKT=$DATA.3.1.10.1 PASSES=$ROOT.1.1.5.0

library_packets() { fx_reader | awk '$1 == "totals.packets.all" { print $2 }'; }
get() { snmpget -v2c -c "$COMMUNITY" -Oqv -t 2 -r 0 "127.0.0.1:$PORT" "$@"; }

# fresh_checks: of 10 GETs, how many served at least the library's count of
# $WINDOW_MS before.
WINDOW_MS=$((250 * $(fx_loaded 1)))
fresh_checks() {
	local ok=0 lib served
	for _ in $(seq 10); do
		lib=$(library_packets)
		sleep "$(awk -v ms="$WINDOW_MS" 'BEGIN { print ms / 1000 }')"
		served=$(get "$PKT") || fail "GET failed"
		[ "$served" -ge "$lib" ] && ok=$((ok + 1))
		sleep 0.1
	done
	echo "$ok"
}

log "max_age_ms default (200), interval_ms 5000: every GET is fresh"
ok=$(fresh_checks)
log "$ok of 10 GETs at least the library's count of $WINDOW_MS ms before"
[ "$ok" = 10 ] || fail "only $ok of 10 GETs served a pass at most $WINDOW_MS ms old (250 ms stretched by the load $(cut -d' ' -f1 /proc/loadavg))"

# continuous_gets: GETs back to back for 3 s; PASSES_SEEN (statctrAggPasses'
# rise), GETS and ELAPSED (ms) over them.
continuous_gets() {
	local p0 t0
	p0=$(get "$PASSES") || fail "cannot read statctrAggPasses"
	t0=$(fx_now_ms) GETS=0
	while [ $(($(fx_now_ms) - t0)) -lt 3000 ]; do
		get "$PKT" >/dev/null && GETS=$((GETS + 1))
	done
	PASSES_SEEN=$(($(get "$PASSES") - p0)) ELAPSED=$(($(fx_now_ms) - t0))
}

log "a poller asking continuously for 3 s: at most one pass per 200 ms"
continuous_gets
passes=$PASSES_SEEN
limit=$((ELAPSED / 200 + 3))
log "$passes passes in $ELAPSED ms of $GETS continuous GETs (limit $limit)"
[ "$passes" -ge 3 ] || fail "only $passes passes: GETs did not ask for fresh ones"
[ "$passes" -le "$limit" ] || fail "$passes passes, above one per 200 ms ($limit)"

# With a 5 s interval, the load-stretched window (2.5 s at load 30) let 10
# of 10 GETs through by chance; at most one pass of a 60 s one falls among
# the 10.
log "max_age_ms = 0, interval 60 s: values lag by up to the interval again"
sed -i 's/interval_ms = 5000;/interval_ms = 60000; max_age_ms = 0;/' "$TMP/statctr.conf"
kill -HUP "$AGENT_PID"
fx_wait "$(fx_loaded 10)" grep -q 'SIGHUP: configuration .* reloaded' "$TMP/agent.log" || fail "no reload"
ok=$(fresh_checks)
log "$ok of 10 GETs fresh without max_age_ms"
[ "$ok" -lt 10 ] || fail "every GET fresh without max_age_ms: the check proves nothing"
# A GET runs no pass: only the interval's (one per 60 s, and one more at
# each end of the span).  With max_age_ms honoured as 200, GETs back to
# back would run one per 200 ms.
continuous_gets
limit=$((ELAPSED / 60000 + 2))
log "max_age_ms = 0: $PASSES_SEEN passes in $ELAPSED ms of $GETS continuous GETs (limit $limit)"
[ "$GETS" -gt "$limit" ] || fail "only $GETS GETs in $ELAPSED ms: too few to tell (load $(cut -d' ' -f1 /proc/loadavg))"
[ "$PASSES_SEEN" -le "$limit" ] ||
	fail "$PASSES_SEEN passes in $ELAPSED ms with max_age_ms = 0 and a 60 s interval: GETs ran passes"
kill -0 "$AGENT_PID" || fail "the agent died"
log "pass"
