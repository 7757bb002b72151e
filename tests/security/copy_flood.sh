#!/bin/bash
# copy_flood.sh - issue 9: anyone who may write the control file can raise
# copy requests in a tight loop; the writer bounds what it spends on them
# by its own budget.  The writer (SEC_WRITER) runs 4-update transactions
# flat out on CPU 0 over 100,000 cells; SEC_RESETTER, on CPU 1, floods its
# request word (and frees the buffer lock, so every request it sees costs a
# real copy) in interleaved phases.  The writer must keep >= 0.9x its
# undisturbed rate (median over rounds, adjacent idle phases, per second of
# its own CPU time so other load on the machine does not count).  A reader
# taking snapshots back to back (the copy service's busiest legitimate
# client, which now waits longer) must get consistent snapshots and cost the
# writer no more than the flood may (docs/design.md): at most 1 in 5 of its
# snapshots may have a busy slot while the writer ran 10 ms or more of CPU
# during it (the writer pinned to a CPU that other load shares may be kept
# off it past the reader's budget: such a busy slot is the machine's).  A measurement below
# 0.9x is taken up to twice more, each on a new segment, before the test fails.
SEC_PROGRAMS="tests/security/copy_flood"
. "${top_srcdir:-$(dirname "$0")/../..}/tests/security/lib.sh"

[ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs to pin the writer and the flooder apart (has $(nproc))"
PHASE_MS=${FLOOD_PHASE_MS:-400}
ROUNDS=${FLOOD_ROUNDS:-7}

counters() {
	echo "columns = ( { name = \"packets\"; kind = \"counter\"; }, { name = \"octets\"; kind = \"counter\"; } );"
}
# finish PID SECONDS WHAT: waits (bounded) for PID to exit 0.
finish() {
	local rc=0
	for _ in $(seq $(($2 * 10))); do
		kill -0 "$1" 2>/dev/null || break
		sleep 0.1
	done
	kill -0 "$1" 2>/dev/null && fail "$3 did not finish within $2 s"
	wait "$1" || rc=$?
	fx_untrack "$1"
	[ "$rc" = 0 ] || fail "$3 exited with status $rc"
}

# measure N: one measurement on a segment of its own (flood.N); fails the
# test on anything but a ratio below 0.9x, which it returns as status 1.
measure() {
	local segment=$SEC_SHM/flood.$1 pid flooder reader
	rm -f "$SEC_SHM/done" "$SEC_SHM/writer.tid" # the previous measurement's
	cat >"$TMP/flood.conf" <<CONF
segments = ( { name = "flood"; path = "$segment"; slots = 1; group = "$SEC_GROUP";
  mode = "0640"; ctl_mode = "0660";
  tables = ( { name = "totals"; rows = 1; $(counters) },
             { name = "flows"; rows = 49999; $(counters) } ); } );
CONF
	chmod 0644 "$TMP/flood.conf"
	sec_as "$SEC_WRITER" copy_flood writer "$TMP/flood.conf" "$SEC_SHM" "$PHASE_MS" "$ROUNDS" \
		>"$TMP/writer.log" 2>&1 &
	pid=$!
	fx_track "$pid"
	fx_wait 5 test -e "$segment.ctl" || fail "the writer did not create $segment"
	fx_wait 5 test -e "$segment" || fail "the writer did not create $segment"
	sec_as "$SEC_RESETTER" copy_flood flood "$segment" "$SEC_SHM" >"$TMP/flood.log" 2>&1 &
	flooder=$!
	fx_track "$flooder"
	sec_as "$SEC_RESETTER" copy_flood read "$segment" "$SEC_SHM" >"$TMP/reader.log" 2>&1 &
	reader=$!
	fx_track "$reader"
	finish "$pid" 50 "the writer"
	finish "$reader" 10 "the reader"
	finish "$flooder" 10 "the flooder"
	cat "$TMP/writer.log" "$TMP/reader.log"

	flood=$(awk '/^flood_ratio/ { print $2 }' "$TMP/writer.log")
	read_ratio=$(awk '/^read_ratio/ { print $2 }' "$TMP/writer.log")
	read -r _ snaps _ consistent _ broken _ busy _ busy_ran <"$TMP/reader.log" || fail "no reader summary"
	log "writer under a request flood: ${flood}x its undisturbed rate (>= 0.9 required)"
	log "writer with a reader snapshotting back to back: ${read_ratio}x (>= 0.9 required)"
	log "reader: $consistent of $snaps snapshots consistent, $broken broken, $busy busy ($busy_ran while the writer ran)"
	[ "$broken" = 0 ] || fail "$broken snapshots broke totals == sum of flows"
	[ "$snaps" -ge 10 ] || fail "the reader took only $snaps snapshots"
	[ $((busy_ran * 5)) -le "$snaps" ] ||
		fail "$busy_ran of $snaps snapshots had a busy slot while the writer ran 10 ms or more ($busy busy in all, $consistent consistent; load $(cut -d' ' -f1-3 /proc/loadavg))"
	grep -q '^health 0$' "$TMP/writer.log" ||
		fail "the writer reported a loss: $(grep health "$TMP/writer.log")"
	awk -v f="$flood" -v r="$read_ratio" 'BEGIN { exit !(f >= 0.9 && r >= 0.9) }'
}

# A ratio is a timing: other load on these 2 CPUs (another test of a
# parallel make check; the busy lane's hogs, which also take the writer's
# caches: 0.879x there once) can push a measurement under 0.9x.  Up to three
# measurements decide; a writer that really pays for the flood fails all.
for try in 1 2 3; do
	measure "$try" && break
	[ "$try" -lt 3 ] ||
		fail "a copy-request flood (${flood}x) or a reader snapshotting back to back (${read_ratio}x) slowed the writer below 0.9x, three times (load $(cut -d' ' -f1-3 /proc/loadavg))"
	log "WARNING: below 0.9x (load $(cut -d' ' -f1 /proc/loadavg)); measuring again"
done
log "PASS"
