#!/bin/bash
# Sustained load: for LOAD_SECONDS (default 60), two rate-limited writers
# (examples/pipeline -t 2 -r LOAD_RATE) on two segments, 8 concurrent
# pollers through snmpd (3 snmpbulkwalk loops, 3 snmpget loops of ~40
# varbinds per PDU, 2 pysnmp clients: one GET, one GETBULK walk) and a reset
# every LOAD_RESET_EVERY seconds (row, cell and whole-segment resets by
# SNMP SET).  Proves: no poll timed out or got an error; every Counter64 a
# poller saw only went down together with its discontinuity TimeStamp
# (tests/load/check.py says how walks are judged); the agent's open
# descriptors did not change and its RSS did not grow (after a warm-up;
# in a sanitizer build LeakSanitizer judges at exit instead); at the end
# (writers frozen) every value served equals the library's snapshot
# (examples/reader -1); the agent then exits cleanly on SIGTERM.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/fault/lib.sh"

SECONDS_TOTAL=${LOAD_SECONDS:-60}
RATE=${LOAD_RATE:-20000}
RESET_EVERY=${LOAD_RESET_EVERY:-4}
export LOAD_POLL_PAUSE=${LOAD_POLL_PAUSE:-0.2}
RSS_SLACK_KB=${LOAD_RSS_SLACK_KB:-1024}

fx_need snmpget snmpbulkwalk snmpset
fx_pysnmp
command -v python3 >/dev/null || skip "python3 not found"

fx_config_two "interval_ms = 200; allow_reset = true;"
fx_snmpd
fx_writer -t 2 -r "$RATE"
fx_writer_on dataplane2 -t 2 -r "$RATE"
WRITER2_PID=$FX_LAST_PID
fx_agent
fx_wait_pass

# Pollers write "MODE", then per poll "P n ms" and "OID TYPE VALUE" lines;
# a failed poll is an ERROR line (tests/load/check.py reads them).  Each
# request may take 5 s times the load per CPU (fx_loaded): an answer is
# liveness, and three suites beside CPU hogs left a walk's request
# unanswered for 5 s (load 15 on 2 CPUs).
to_lines() { sed -E -e 's/^([.0-9]+) = ([A-Za-z0-9]+): (.*)$/\1 \2 \3/' -e 's/^([.0-9]+) = ([0-9]+)$/\1 Timeticks \2/'; }
# poller NAME get|walk OID...: snmpget of all OIDs in one PDU, or snmpbulkwalk of each.
poller() {
	local name=$1 mode=$2
	shift 2
	(
		trap 'exit 0' TERM
		echo "MODE $mode"
		for n in $(seq 10000); do
			[ -e "$TMP/stop" ] && exit 0
			echo "P $n $(fx_now_ms)"
			if [ "$mode" = get ]; then
				if out=$(snmpget -v2c -c "$COMMUNITY" -On -Ot -t "$(fx_loaded 5)" -r 0 "127.0.0.1:$PORT" "$@" 2>&1); then
					echo "$out" | to_lines | sed 's/^\(.*No Such.*\)$/ERROR \1/'
				else
					echo "ERROR get: $(echo "$out" | head -1)"
				fi
			else
				for oid in "$@"; do
					if out=$(snmpbulkwalk -v2c -c "$COMMUNITY" -On -Ot -t "$(fx_loaded 5)" -r 0 -Cr25 "127.0.0.1:$PORT" "$oid" 2>&1); then
						echo "$out" | to_lines
					else
						echo "ERROR walk $oid: $(echo "$out" | tail -1)"
					fi
				done
			fi
			sleep "$LOAD_POLL_PAUSE"
		done
	) >"$TMP/poll-$name.log" 2>&1 &
	fx_track $!
	POLLERS="${POLLERS:-} $!"
}
pysnmp_poller() {
	local name=$1
	shift
	"$PYSNMP" "$top_srcdir/tests/load/poll.py" "$PORT" "$@" >"$TMP/poll-$name.log" 2>"$TMP/poll-$name.err" &
	fx_track $!
	POLLERS="${POLLERS:-} $!"
}
# OIDs of flowStats.packets rows 1..20 with the rows' discontinuity; of
# statctrCellCounter and statctrCellDiscontinuity of 20 counter cells of
# segment $1 (ifStats.dp0's counters, flowStats rows 0..6, totals).
pairs_data() { for r in $(seq 1 20); do echo "$1.2.1.10.$r $1.2.1.3.$r"; done; }
pairs_cells() {
	for c in 1 2 3 4 5 $(seq 29 41) 157 158; do
		echo "$ROOT.1.3.1.8.$1.$c $ROOT.1.3.1.11.$1.$c"
	done
}

log "load for $SECONDS_TOTAL s: 2 writers at -r $RATE, 8 pollers, a reset every $RESET_EVERY s"
poller walk-data1 walk "$DATA"
poller walk-data2 walk "$DATA2"
poller walk-cells walk "$ROOT.1.3.1.8" "$ROOT.1.3.1.11"
# shellcheck disable=SC2046
poller get-data1 get $(pairs_data "$DATA")
# shellcheck disable=SC2046
poller get-cells get $(pairs_cells 1)
# shellcheck disable=SC2046
poller get-data2 get $(pairs_data "$DATA2") "$DATA2.3.1.10.1" "$DATA2.3.1.3.1"
# shellcheck disable=SC2046
pysnmp_poller py-get get "$TMP/stop" $(pairs_cells 2) "${DATA#.}.3.1.11.1" "${DATA#.}.3.1.3.1"
pysnmp_poller py-walk walk "$TMP/stop" "${DATA#.}.1" "${DATA2#.}.3"

# The resets, and the agent's footprint every 2 s.
(
	trap 'exit 0' TERM
	resets=("$DATA.2.1.4.3" "$ROOT.1.3.1.12.1.1" "$ROOT.1.2.1.12.2" "$DATA.3.1.4.1" "$DATA2.2.1.4.5")
	for n in $(seq 10000); do
		[ -e "$TMP/stop" ] && exit 0
		sleep "$RESET_EVERY"
		oid=${resets[$((n % ${#resets[@]}))]}
		if snmpset -v2c -c "$WCOMMUNITY" -t 5 -r 0 "127.0.0.1:$PORT" "$oid" i 2 >/dev/null 2>"$TMP/set.err"; then
			echo "reset $oid"
		else
			echo "ERROR reset $oid: $(cat "$TMP/set.err")"
		fi
	done
) >"$TMP/resets.log" 2>&1 &
fx_track $!
RESETTER=$!
(
	trap 'exit 0' TERM
	for _ in $(seq 10000); do
		[ -e "$TMP/stop" ] && exit 0
		echo "$(fx_now_ms) $(fx_rss_kb "$AGENT_PID") $(fx_fd_count "$AGENT_PID")"
		sleep 2
	done
) >"$TMP/usage.log" 2>&1 &
fx_track $!
SAMPLER=$!

sleep "$SECONDS_TOTAL"
touch "$TMP/stop"
for pid in $POLLERS $RESETTER $SAMPLER; do
	fx_wait 20 bash -c "! kill -0 $pid 2>/dev/null" || fail "poller $pid did not stop within 20 s"
	wait "$pid" 2>/dev/null || true
	fx_untrack "$pid"
done
kill -0 "$AGENT_PID" || fail "the agent died under load"

log "verdict on $(ls "$TMP"/poll-*.log | wc -l) pollers"
for f in "$TMP"/poll-py-*.err; do
	[ -s "$f" ] && { grep -v -m 5 Warning "$f" >&2 || true; }
done
python3 "$top_srcdir/tests/load/check.py" "$ROOT" "$TMP"/poll-*.log | tee "$TMP/check.out" ||
	fail "errors or counters going backwards without a discontinuity (above)"
grep -q '^ERROR' "$TMP/resets.log" && fail "resets failed: $(grep -m1 '^ERROR' "$TMP/resets.log")"
nresets=$(grep -c '^reset' "$TMP/resets.log" || true)
[ "$nresets" -ge 2 ] || fail "only $nresets resets ran"

# Footprint: the first samples are the warm-up.
read -r _ rss0 fds0 < <(sed -n 3p "$TMP/usage.log")
read -r _ rss1 fds1 < <(tail -n 1 "$TMP/usage.log")
rssmax=$(awk 'NR >= 3 { if ($2 > m) m = $2 } END { print m }' "$TMP/usage.log")
log "agent: RSS ${rss0} -> ${rss1} KiB (max $rssmax), descriptors ${fds0} -> ${fds1}, $nresets resets"
[ "$fds1" = "$fds0" ] || fail "descriptors $fds0 -> $fds1"
if agent_sanitized; then
	log "sanitizer build: ASan's quarantine grows RSS; LeakSanitizer judges at exit instead"
else
	[ $((rss1 - rss0)) -le "$RSS_SLACK_KB" ] || fail "RSS grew by $((rss1 - rss0)) KiB (limit $RSS_SLACK_KB)"
fi

log "writers frozen: served values equal the library's snapshot"
fx_freeze "$WRITER_PID" "$WRITER2_PID"
fx_wait_pass
reader_lines latch >"$TMP/expect1"
data_lines >"$TMP/data1"
same_lines "$TMP/expect1" "$TMP/data1" "dataplane: served values differ from the library's"
(
	DATA=$DATA2 SEGMENT=$SEGMENT2
	reader_lines latch >"$TMP/expect2"
	data_lines >"$TMP/data2"
)
same_lines "$TMP/expect2" "$TMP/data2" "dataplane2: served values differ from the library's"
kill -CONT "$WRITER_PID" "$WRITER2_PID"
agent_exit_clean 20
log "pass: $(awk '{ p += $3 } END { print p }' FS='[ ,]+' "$TMP/check.out") polls"
exit 0
