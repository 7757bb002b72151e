#!/bin/bash
# Fresh values (docs/agent.md "Fresh values"): with interval_ms = 5000, a
# GET is served from a pass at most agent.max_age_ms (default 200) old.
# Proves: with the default, every GET's totals.packets is at least what the
# library held 250 ms before it (10 of 10; the 250 ms times the load per CPU,
# fx_loaded: the agent waits at most max_age_ms for a pass, then serves the
# latest, "CPU allowing"), while the writer counts flat
# out; a poller asking continuously for 3 s gets at most one pass per
# max_age_ms (statctrAggPasses), so the passes stay bounded; with
# max_age_ms = 0 (SIGHUP) the values lag by up to the interval again (the
# same check fails at least once in 10) and a GET runs no pass.
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

log "a poller asking continuously for 3 s: at most one pass per 200 ms"
p0=$(get "$PASSES")
t0=$(fx_now_ms)
while [ $(($(fx_now_ms) - t0)) -lt 3000 ]; do get "$PKT" >/dev/null || true; done
p1=$(get "$PASSES")
t1=$(fx_now_ms)
passes=$((p1 - p0))
limit=$(((t1 - t0) / 200 + 3))
log "$passes passes in $((t1 - t0)) ms of continuous GETs (limit $limit)"
[ "$passes" -ge 3 ] || fail "only $passes passes: GETs did not ask for fresh ones"
[ "$passes" -le "$limit" ] || fail "$passes passes, above one per 200 ms ($limit)"

log "max_age_ms = 0: values lag by up to the interval again"
sed -i 's/interval_ms = 5000;/interval_ms = 5000; max_age_ms = 0;/' "$TMP/statctr.conf"
kill -HUP "$AGENT_PID"
fx_wait "$(fx_loaded 10)" grep -q 'SIGHUP: configuration .* reloaded' "$TMP/agent.log" || fail "no reload"
p0=$(get "$PASSES")
ok=$(fresh_checks)
p1=$(get "$PASSES")
log "$ok of 10 GETs fresh without max_age_ms; $((p1 - p0)) passes in those ~3.5 s"
[ "$ok" -lt 10 ] || fail "every GET fresh without max_age_ms: the check proves nothing"
[ $((p1 - p0)) -le 2 ] || fail "$((p1 - p0)) passes with max_age_ms = 0 and a 5 s interval"
kill -0 "$AGENT_PID" || fail "the agent died"
log "pass"
