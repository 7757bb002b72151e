# lib.sh - shared by the fault-injection tests (tests/fault/*.sh); sourced.
#
# The fixture (tests/integration/fixture.sh) provides snmpd, the writer, the
# agent and the EXIT trap that stops every tracked pid.  This adds what the
# fault and load tests have in common: `set -euo pipefail`, a watchdog for
# a test killed without its trap, a background poller whose every answer is
# logged, status names, bounded waits on the agent's log, and a clean-exit
# check of the agent (LeakSanitizer's verdict in the sanitizer build, with
# the fixture's suppressions).

. "${top_srcdir:-$(dirname "$0")/../..}/tests/integration/fixture.sh"
set -euo pipefail

# PR_SET_PDEATHSIG for the whole test: if this shell dies without running
# its EXIT trap (SIGKILL, a harness timeout), a watchdog stops what it had
# started.  It refreshes the list of the shell's children (snmpd, the agent,
# writers, pollers) every 0.2 s and, once the shell is gone, sends them and
# their children TERM, then KILL a second later, and removes $TMP.  On a
# normal exit the EXIT trap stops the watchdog (tracked, last) instead.
fault_watchdog() {
	command -v pgrep >/dev/null && command -v pkill >/dev/null || return 0
	(
		set +e
		parent=$$ me=$BASHPID kids=""
		while kill -0 "$parent" 2>/dev/null; do
			now=$(pgrep -P "$parent" | grep -vx "$me" | tr '\n' ' ')
			# A scan that raced with the shell's death found orphans: keep the last.
			kill -0 "$parent" 2>/dev/null && kids=$now
			sleep 0.2
		done
		for sig in TERM KILL; do
			for k in $kids; do
				pkill "-$sig" -P "$k"
				kill "-$sig" "$k"
			done
			sleep 1
		done
		[ -n "${KEEP:-}" ] || rm -rf "$TMP"
	) >/dev/null 2>&1 </dev/null &
	FX_PIDS="$FX_PIDS $!" # stopped last by the EXIT trap
}
fault_watchdog

# statctrSegmentStatus values (STATCTR-MIB).
ST_ACTIVE=1 ST_ABSENT=2 ST_STALE=3 ST_GONE=4

seg_status() { snmp_value "$ROOT.1.2.1.4.${1:-1}"; }

# Waits up to $1 s for segment $2 (oid) to have status $3.
wait_status() {
	for _ in $(seq $(($1 * 10))); do
		[ "$(seg_status "$2" 2>/dev/null || true)" = "$3" ] && return 0
		sleep 0.1
	done
	fail "segment $2: status $(seg_status "$2" || true), not $3 after $1 s"
}

# writer_restart ARGS...: kills the writer (-9), waits until the agent
# serves its segment (oid 1) writerGone (it saw the final counts), starts
# the next writer with ARGS, and waits until its counts settled and the
# agent serves it active (tests/fleet/pollers_restarts.sh, prom_restarts.sh).
writer_restart() {
	fx_kill "$WRITER_PID" KILL
	wait_status "$(fx_loaded 5)" 1 "$ST_GONE"
	fx_wait_pass
	fx_writer "$@"
	fx_writer_settled
	wait_status "$(fx_loaded 5)" 1 "$ST_ACTIVE"
	fx_wait_pass
}

# Waits up to $1 s for the agent's log to match the extended regexp $2.
wait_log() {
	fx_wait "$1" grep -Eq "$2" "$TMP/agent.log" || fail "the agent did not log /$2/ within $1 s"
}

# poller_start OID...: GETs the OIDs in one PDU every 100 ms until
# poller_stop (at most 10 minutes), one line per poll in $TMP/poller.log:
# "ms-since-epoch exit-status value..." (values empty on failure).
poller_start() {
	(
		trap 'exit 0' TERM
		for _ in $(seq 6000); do
			[ -e "$TMP/poller.stop" ] && exit 0
			t=$(fx_now_ms)
			if out=$(snmpget -v2c -c "$COMMUNITY" -Oqv -t 0.5 -r 0 "127.0.0.1:$PORT" "$@" 2>/dev/null); then
				echo "$t 0 $(echo "$out" | tr '\n' ' ')"
			else
				echo "$t 1"
			fi
			sleep 0.1
		done
	) >>"$TMP/poller.log" 2>&1 &
	POLLER_PID=$!
	fx_track "$POLLER_PID"
}

poller_stop() {
	touch "$TMP/poller.stop"
	fx_wait 5 bash -c "! kill -0 $POLLER_PID 2>/dev/null" || true
	fx_stop "$POLLER_PID"
	fx_untrack "$POLLER_PID"
}

# Successful polls logged after time $1 (ms).
polls_ok_since() { awk -v t="$1" '$1 >= t && $2 == 0' "$TMP/poller.log" | wc -l; }

# poller_never_backwards MAX_CHANGES MIN_POLLS WHAT: the poller polled a
# counter and its discontinuity TimeStamp (poller_start COUNTER DISC): over
# its successful polls the counter never went backwards while the
# discontinuity stayed, the discontinuity moved at most MAX_CHANGES times,
# and there were at least MIN_POLLS polls; else fails naming WHAT.
poller_never_backwards() {
	awk -v max="$1" -v min="$2" '$2 == 0 && NF == 4 {
		if (seen && $3 < v && $4 == d) { print "backwards at " $1 ": " v " -> " $3 " (disc " d ")"; bad++ }
		if (seen && $4 != d) changes++
		v = $3; d = $4; seen = 1; n++
	}
	END { print n " polls, " changes + 0 " discontinuity changes"; exit bad > 0 || changes > max || n < min }' \
		"$TMP/poller.log" >"$TMP/mono.out" || {
		cat "$TMP/mono.out" >&2
		fail "$3 went backwards without a discontinuity, or the discontinuity moved more than $1 times"
	}
	log "poller: $(tail -1 "$TMP/mono.out")"
}

# Fails unless no line of the agent's log matches the extended regexp $1.
no_log() {
	if grep -Eq "$1" "$TMP/agent.log"; then
		grep -E -m 5 "$1" "$TMP/agent.log" >&2
		fail "$2"
	fi
}

# Whether the agent was built with a sanitizer (--enable-sanitizers, tsan):
# valgrind cannot run it, and ASan's quarantine makes its RSS grow.
agent_sanitized() {
	# make check exports SANITIZER; by hand, the build tree's Makefile has it.
	local san=${SANITIZER:-$(sed -n 's/^SANITIZER = //p' "$top_builddir/Makefile")}
	[ "${san:-none}" != none ]
}

# Stops the agent with SIGTERM and fails unless it exits 0 within $1 s
# (under ASan, LeakSanitizer's verdict is in that status).  A daemon
# (FX_DAEMON=1) is no child of this shell: its exit is checked by its log.
agent_exit_clean() {
	local rc=0
	kill -TERM "$AGENT_PID"
	fx_wait "$1" bash -c "! kill -0 $AGENT_PID 2>/dev/null" ||
		fail "the agent did not exit within $1 s of SIGTERM"
	if [ "${FX_DAEMON:-0}" = 1 ]; then
		grep -q 'exiting on signal' "$TMP/agent.log" || rc=1
	else
		wait "$AGENT_PID" || rc=$?
	fi
	fx_untrack "$AGENT_PID"
	[ "$rc" = 0 ] || fail "the agent exited with status $rc after SIGTERM (sanitizer report in agent.log?)"
}

# The counters of the static tables (ifStats, flowStats, totals), "name
# value" (carry_over.sh, carry_restart.sh).
counter_lines() { grep -E '^(ifStats|flowStats|totals)\.' | grep -Ev '\.(queueDepth|speed|inFlight)\.'; }
# add_into SUM LINES: adds the "name value" lines of LINES into SUM (a
# missing SUM is all zero).
add_into() {
	touch "$1"
	awk 'NR == FNR { s[$1] += $2; next } { s[$1] += $2 } END { for (k in s) print k, s[k] }' \
		"$1" "$2" | sort >"$1.new"
	mv "$1.new" "$1"
}

# collectd_start INSTANCE OID ADDRESS: Debian's collectd polling OID at
# ADDRESS every second, as a DERIVE (types.db's "derive", min 0) and a
# COUNTER named INSTANCE, rates in $TMP/csv (csv_lines, csv_has).
collectd_start() {
	COLLECTD_INSTANCE=$1
	cat >"$TMP/collectd.conf" <<EOF
Interval 1
BaseDir "$TMP/collectd"
PIDFile "$TMP/collectd.pid"
TypesDB "/usr/share/collectd/types.db"
LoadPlugin snmp
LoadPlugin csv
<Plugin csv>
  DataDir "$TMP/csv"
  StoreRates true
</Plugin>
<Plugin snmp>
  <Data "statctr_derive">
    Type "derive"
    Table false
    TypeInstance "$1"
    Values "$2"
  </Data>
  <Data "statctr_counter">
    Type "counter"
    Table false
    TypeInstance "$1"
    Values "$2"
  </Data>
  <Host "statctr">
    Address "$3"
    Version 2
    Community "$COMMUNITY"
    Collect "statctr_derive" "statctr_counter"
    Interval 1
  </Host>
</Plugin>
EOF
	mkdir -p "$TMP/collectd" "$TMP/csv"
	collectd -t -C "$TMP/collectd.conf" >"$TMP/collectd.log" 2>&1 || fail "collectd -t: $(cat "$TMP/collectd.log")"
	collectd -f -C "$TMP/collectd.conf" >>"$TMP/collectd.log" 2>&1 &
	fx_track $!
}
# csv_lines derive|counter: the data lines (epoch,rate) collectd wrote.
csv_lines() { cat "$TMP"/csv/statctr/snmp/"$1-$COLLECTD_INSTANCE"-* 2>/dev/null | grep -v '^epoch' || true; }
# csv_has derive|counter N: collectd wrote N lines or more.
csv_has() { [ "$(csv_lines "$1" | wc -l)" -ge "$2" ]; }
