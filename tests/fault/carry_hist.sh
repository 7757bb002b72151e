#!/bin/bash
# carry_over of histograms (docs/agent.md, "Counters across writer
# restarts"): tests/integration/hist_writer records a known set of values
# (its header lists them) once at its start and once per SIGUSR1; it is
# killed (-9) and restarted three times while a poller reads requests.get's
# latency histogram (count, sum, +Inf bucket), its discontinuity time and
# its count in the current epoch's interval.  Proves:
# - after each restart the agent saw (writerGone), the bucket table
#   (cumulative counts) and the summary table (count, sum) of the static
#   table's histograms, the histogram column of the table and
#   statctrCellCounter equal the sum of every generation's records, and the
#   histogram's discontinuity time did not move; the dynamic table's
#   histogram (row beta, added again each generation) is carried by name
#   too, and across the agent's restart (the carry file keeps each name's
#   counts: a row line "1 beta ...");
# - the interval table of the epoch started before the restarts counts
#   every value recorded since, across them (the epoch file's carry), and
#   never decreases while valid (while the agent serves a dead generation
#   whose final counts it captured, the library has no count to now: the
#   interval reads invalid, 0, as docs/agent.md "Epochs" says; counted);
# - the agent killed (-9) and restarted continues the histograms' carry
#   from STATE_FILE.carry, discontinuity kept;
# - a row reset zeroes the histogram (buckets, count, sum) and moves its
#   discontinuity; a restart after it carries from 0;
# - the poller never saw a value go backwards without the discontinuity
#   changing, and the discontinuity changed only at the reset.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/fault/lib.sh"

fx_need snmpget snmpwalk snmpset
HIST_WRITER=$top_builddir/tests/integration/hist_writer
STATCTL=$top_builddir/tools/statctl
[ -x "$HIST_WRITER" ] || skip "tests/integration/hist_writer not built (make check builds it)"
[ -x "$STATCTL" ] || skip "tools/statctl not built"

S=5                 # the segment's oid
D=$ROOT.3.$S.1      # requests: calls .10, latency .11; row reset .4
H=$ROOT.4.$S.1.11   # requests.latency: buckets .1.1.3.row.bucket, summary .2.1.{1,2}.row
W=$ROOT.4.$S.2.10   # sessions.wait (a dynamic table: carried by name)
CELLS=$ROOT.1.3.1   # statctrCellEntry: counter .8, discontinuity .11; get.latency is cell 2
IV=$ROOT.5.$S.1.1   # the interval table of requests: latency .11.epoch.row
STATE=$TMP/agent.state
cat >"$TMP/statctr.conf" <<EOF
segments = ( {
  name = "hist"; oid = $S; slots = 1; path = "$TMP/hist"; epochs = { keep = 4; };
  tables = ( {
    name = "requests"; oid = 1; rows = [ "get", "put" ];
    columns = (
      { name = "calls"; kind = "counter"; },
      { name = "latency"; kind = "histogram"; units = "us"; buckets = [ 1, 2, 5, 10 ]; },
      { name = "depth"; kind = "gauge"; } );
  }, {
    name = "sessions"; oid = 2; rows = { max = 4; };
    columns = ( { name = "wait"; kind = "histogram"; units = "ms"; buckets = [ 10, 100 ]; } );
  } );
} );
agent = { interval_ms = 100; allow_reset = true; state_file = "$STATE"; };
EOF

GEN=0
# writer_starts: a new generation, which records the set once.
writer_starts() {
	GEN=$((GEN + 1))
	sleep 0.1 # a generation's creation time is in ms; TimeStamps in cs
	"$HIST_WRITER" -c "$TMP/statctr.conf" -s hist >"$TMP/writer.$GEN.log" 2>&1 &
	WRITER_PID=$!
	fx_track "$WRITER_PID"
	fx_wait "$(fx_loaded 5)" grep -q '^recorded 1$' "$TMP/writer.$GEN.log" ||
		fail "hist_writer (generation $GEN) did not record"
	RECORDS=1
}
# records_more: the running writer records the set once more.
records_more() {
	RECORDS=$((RECORDS + 1))
	kill -USR1 "$WRITER_PID"
	fx_wait "$(fx_loaded 5)" grep -q "^recorded $RECORDS\$" "$TMP/writer.$GEN.log" ||
		fail "hist_writer did not record a set more"
}
# writer_dies: kill -9; the agent sees it gone (its final counts, the epoch capture).
writer_dies() {
	local dead=$WRITER_PID
	fx_kill "$WRITER_PID" KILL
	wait_status "$(fx_loaded 5)" "$S" "$ST_GONE"
	wait_log "$(fx_loaded 5)" "segment hist: writer pid $dead died without closing it"
	fx_wait_pass
}

# The expected walk of a histogram's bucket and summary tables: $1 its
# node, then per row "INDEX TIMES CUMULATIVE SUM": the values recorded once
# (CUMULATIVE comma-separated, the last is the count), TIMES times.
expect_hist() {
	local node=$1
	shift
	printf '%s\n' "$@" | awk -v n="$node" '
		{
			idx[NR] = $1
			k[NR] = split($3, c, ",")
			for (i = 1; i <= k[NR]; i++) cum[NR, i] = c[i] * $2
			cnt[NR] = c[k[NR]] * $2
			sum[NR] = $4 * $2
		}
		END {
			for (r = 1; r <= NR; r++)
				for (i = 1; i <= k[r]; i++) printf "%s.1.1.3.%s.%d %.0f\n", n, idx[r], i, cum[r, i]
			for (r = 1; r <= NR; r++) printf "%s.2.1.1.%s %.0f\n", n, idx[r], cnt[r]
			for (r = 1; r <= NR; r++) printf "%s.2.1.2.%s %.0f\n", n, idx[r], sum[r]
		}'
}
# Served values of the histograms' cumulative count and summary columns.
served_hist() {
	snmp_walk "$1.1.1.3"
	snmp_walk "$1.2.1"
}

# served_is WHAT GET PUT WAIT: requests.get's latency served as GET
# records of the set, put's as PUT, sessions.beta's wait as WAIT.
served_is() {
	local what=$1 get=$2 put=$3 wait=$4 v
	expect_hist "$H" "1 $get 3,4,6,8,10 139" "2 $put 0,0,0,3,4 5000000021" >"$TMP/expect"
	expect_hist "$W" "2 $wait 1,2,3 555" >>"$TMP/expect"
	{
		served_hist "$H"
		served_hist "$W"
	} >"$TMP/served"
	same_lines "$TMP/expect" "$TMP/served" "$what: the histograms served are not the sums of every generation's records"
	for v in "$D.1.11.1 $((10 * get))" "$D.1.11.2 $((4 * put))" "$CELLS.8.$S.2 $((10 * get))" \
		"$D.1.10.1 $((10 * get))" "$D.1.10.2 $((4 * put))"; do
		[ "$(snmp_value "${v% *}")" = "${v#* }" ] ||
			fail "$what: ${v% *} is $(snmp_value "${v% *}"), not ${v#* }"
	done
	log "$what: latency get x$get, put x$put (sum $(snmp_value "$H.2.1.2.2")), wait x$wait: exact"
}

# The current epoch's interval count of get's latency is N records' (10 values each).
interval_is() {
	local got
	got=$(snmp_value "$IV.11.1.1")
	[ "$got" = $((10 * $2)) ] || fail "$1: epoch 1's latency count of get is $got, not $((10 * $2))"
	[ "$(snmp_value "$H.3.1.1.1.1.5")" = $((10 * $2)) ] ||
		fail "$1: epoch 1's +Inf bucket of get is $(snmp_value "$H.3.1.1.1.1.5"), not $((10 * $2))"
	[ "$(snmp_value "$ROOT.1.5.1.5.$S.1")" = 1 ] || fail "$1: epoch 1's interval is not valid"
}

fx_snmpd
writer_starts
fx_agent
fx_wait_pass
wait_log "$(fx_loaded 5)" "carry file $STATE.carry: none yet"
served_is "first generation" 1 1 1
"$STATCTL" -c "$TMP/statctr.conf" epoch start first hist | grep -q 'epoch 1 "first" started' ||
	fail "statctl epoch start did not start epoch 1"
fx_wait "$(fx_loaded 5)" bash -c "snmpget $V2 127.0.0.1:$PORT $IV.11.1.1 | grep -qv 'No Such'" ||
	fail "epoch 1's interval is not served"
records_more
fx_wait_pass
HDISC=$CELLS.11.$S.2
disc0=$(snmp_value "$HDISC")
poller_start "$H.2.1.1.1" "$H.2.1.2.1" "$H.1.1.3.1.5" "$HDISC" "$IV.11.1.1" "$IV.2.1.1"

total=2 since=1 # records of get (and put) served; records since epoch 1
log "kill -9 and restart, 3 times, the agent sees each writer gone"
for more in 2 0 1; do
	writer_dies
	served_is "writer gone" "$total" "$total" "$total"
	writer_starts
	for _ in $(seq "$more"); do records_more; done
	total=$((total + 1 + more)) since=$((since + 1 + more))
	wait_status "$(fx_loaded 5)" "$S" "$ST_ACTIVE"
	fx_wait_pass
	served_is "restart $((GEN - 1)) carried" "$total" "$total" "$total"
	interval_is "restart $((GEN - 1))" "$since"
	[ "$(snmp_value "$HDISC")" = "$disc0" ] ||
		fail "the histogram's discontinuity moved ($disc0 -> $(snmp_value "$HDISC")) though no count was lost"
done
grep -q '^statctr-agentx carry 3$' "$STATE.carry" || fail "the carry file is not version 3"
grep -Eq '^1 beta( [0-9]+)+$' "$STATE.carry" || fail "the carry file keeps no row line of beta"

log "the agent killed (-9) and restarted continues the histograms' carry from its file"
fx_kill "$AGENT_PID" KILL
fx_agent
wait_status "$(fx_loaded 5)" "$S" "$ST_ACTIVE"
fx_wait_pass
served_is "agent restarted (-9)" "$total" "$total" "$total"
interval_is "agent restarted" "$since"
[ "$(snmp_value "$HDISC")" = "$disc0" ] || fail "the agent's restart moved the histogram's discontinuity"
no_log "no carried counts to continue \((the carry file|its decl|already)" "a carry was doubted"

log "a row reset zeroes get's histogram; put keeps its carry; a restart after it carries from 0"
fx_expect_set ok "$D.1.4.1" i 2
fx_wait_pass
served_is "after the reset of get" 0 "$total" "$total"
disc1=$(snmp_value "$HDISC")
[ "$disc1" -gt "$disc0" ] || fail "the reset did not move the histogram's discontinuity ($disc0 -> $disc1)"
records_more
since=$((since + 1))
writer_dies
writer_starts
total=$((total + 2)) since=$((since + 1))
wait_status "$(fx_loaded 5)" "$S" "$ST_ACTIVE"
fx_wait_pass
served_is "restart after the reset" 2 "$total" "$total"
interval_is "restart after the reset (a reset changes no interval)" "$since"
[ "$(snmp_value "$HDISC")" = "$disc1" ] || fail "the restart after the reset moved the discontinuity"

poller_stop
# Fields: 3 count, 4 sum, 5 +Inf bucket, 6 discontinuity, 7 interval count, 8 its valid.
awk '$2 == 0 && NF == 8 {
		if (seen && $6 == d) for (i = 3; i <= 5; i++) if ($i + 0 < v[i]) {
			print "backwards at " $1 ": field " i ": " v[i] " -> " $i " (disc " d ")"; bad++ }
		if (seen && $6 != d) changes++
		for (i = 3; i <= 5; i++) v[i] = $i + 0
		d = $6; seen = 1; n++
		if ($8 != 1) { invalid++; next }
		if (iv != "" && $7 + 0 < iv) { print "interval backwards at " $1 ": " iv " -> " $7; bad++ }
		iv = $7 + 0
	}
	END {
		print n " polls, " changes + 0 " discontinuity changes, " invalid + 0 " with the interval invalid"
		exit bad > 0 || changes > 1 || n < 10
	}' \
	"$TMP/poller.log" >"$TMP/mono.out" || {
	cat "$TMP/mono.out" >&2
	fail "a histogram value went backwards without a discontinuity, or the discontinuity moved more than once"
}
log "poller: $(tail -1 "$TMP/mono.out")"
kill -0 "$AGENT_PID" || fail "the agent died"
agent_exit_clean 10
log "pass"
exit 0
