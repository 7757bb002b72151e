#!/bin/bash
# The epoch file against a resetter (issue 40, items 3-5; docs/epochs.md,
# "Protocol"): SEC_RESETTER may write <segment>.epochs (its mode is
# ctl_mode), so it may store anything there and hold its flock().  The agent
# (root, so it may store to the file) serves the interval tables through
# snmpd while the writer (SEC_WRITER) counts.  Proves:
#  3. one 8-byte store leaving seq odd, the lock held meanwhile (a starter
#     stopped between its stores): every GETBULK of 50 varbinds from the
#     interval tables answers within 1 s (it took 117 s: 2.3 s a varbind);
#     once the lock is free the agent repairs seq (even) within 5 s and the
#     interval tables are served again;
#  4. the resetter holding the file's flock() for ever: the writer's clean
#     exit still captures its final counts (the counts since epoch 1 survive
#     the restart) and its restart starts, each within 1.5 s (they took 2-4 s
#     and lost the counts, or failed "held by another epoch start");
#  5. one 4-byte store of 99 to nkept: the next writer starts (it failed
#     "corrupt header" until the file was removed), keeps both epochs, and
#     says on its standard error what it rebuilt.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/security/lib.sh"

fx_need snmpbulkget snmpget python3
# The attacker's interpreter, where it can run it (not a shim under /root).
PYTHON=$(PATH=/usr/local/bin:/usr/bin:/bin command -v python3) || skip "no python3 in /usr/bin or /bin"

sec_config "interval_ms = 100; allow_reset = true;"
sed -i "s|name = \"dataplane\";|name = \"dataplane\"; epochs = { keep = 4; };|" "$TMP/statctr.conf"
grep -q "keep = 4" "$TMP/statctr.conf" || fail "no epochs in $TMP/statctr.conf"
EPOCHS=$SEGMENT.epochs
STATCTL() { env LD_LIBRARY_PATH="$TMP/bin" "$TMP/bin/statctl" "$@"; }

fx_snmpd
sec_writer "$SEC_WRITER" -t 2 -r 1000
fx_agent
fx_wait_pass
for name in e1 e2; do
	sec_as "$SEC_RESETTER" statctl epoch start "$name" "$SEGMENT" >"$TMP/out" 2>&1 ||
		fail "the resetter could not start epoch $name: $(cat "$TMP/out")"
done

# intervals: how many Counter64 varbinds one GETBULK of 50 from the
# interval tables ($ROOT.5) gives; its round trip in ms in $TMP/bulk.ms.
intervals() {
	local t0 t1
	t0=$(fx_now_ms)
	snmpbulkget -v2c -c "$COMMUNITY" -On -t 5 -r 0 -Cn0 -Cr50 "127.0.0.1:$PORT" "$ROOT.5" \
		>"$TMP/bulk.out" 2>&1 || fail "GETBULK of the interval tables: $(head -c 300 "$TMP/bulk.out")"
	t1=$(fx_now_ms)
	echo $((t1 - t0)) >"$TMP/bulk.ms"
	grep -c "^$ROOT\.5\..*Counter64" "$TMP/bulk.out" || true
}
served() { [ "$(intervals)" -gt 10 ]; }
fx_wait 10 served || fail "the agent serves no interval values: $(head -5 "$TMP/bulk.out")"

seq_of() { "$PYTHON" -c 'import struct,sys; f=open(sys.argv[1],"rb"); f.seek(64); print(struct.unpack("<Q", f.read(8))[0])' "$EPOCHS"; }

# hold [odd]: the resetter takes the file's flock() (and with odd stores
# seq + 1) and keeps it until $SEC_SHM/release exists; HOLDER is its pid.
hold() {
	rm -f "$SEC_SHM/held" "$SEC_SHM/release"
	setpriv --reuid="$SEC_RESETTER" --regid="$(id -g "$SEC_RESETTER")" --init-groups \
		"$PYTHON" -c '
import fcntl, os, struct, sys, time
path, held, release, odd = sys.argv[1:5]
f = open(path, "r+b")
fcntl.flock(f, fcntl.LOCK_EX)
if odd == "odd":
    f.seek(64); seq = struct.unpack("<Q", f.read(8))[0]
    f.seek(64); f.write(struct.pack("<Q", seq | 1)); f.flush()
open(held, "w").close()
while not os.path.exists(release):
    time.sleep(0.05)' "$EPOCHS" "$SEC_SHM/held" "$SEC_SHM/release" "${1:-}" &
	HOLDER=$!
	fx_track "$HOLDER"
	fx_wait 5 test -e "$SEC_SHM/held" || fail "the resetter could not take the lock"
}
release() {
	touch "$SEC_SHM/release"
	wait "$HOLDER" 2>/dev/null || true
	fx_untrack "$HOLDER"
}

log "item 3: seq left odd, the lock held"
hold odd
[ $(($(seq_of) % 2)) = 1 ] || fail "seq is not odd"
bound=$((1000 * $(fx_loaded 1)))
worst=0
for i in $(seq 20); do
	n=$(intervals)
	ms=$(cat "$TMP/bulk.ms")
	[ "$ms" -le "$bound" ] || fail "GETBULK $i of the interval tables took $ms ms (bound $bound), $n interval values"
	[ "$ms" -le "$worst" ] || worst=$ms
done
log "20 GETBULKs of 50 with seq odd: the slowest $worst ms (bound $bound)"
[ $(($(seq_of) % 2)) = 1 ] || fail "seq was repaired while the lock was held"
release
even() { [ $(($(seq_of) % 2)) = 0 ]; }
fx_wait "$(fx_loaded 5)" even || fail "the agent did not repair seq $(seq_of) once the lock was free"
fx_wait 10 served || fail "the interval tables are not served again after the repair"
log "seq repaired ($(seq_of)); $(intervals) interval values served"

# since1: the writer's packets since epoch 1 (statctl, root).
since1() {
	STATCTL show -f json --since 1 "$SEGMENT" totals |
		python3 -c 'import json,sys; print(json.load(sys.stdin)["segments"][0]["tables"][0]["rows"][0]["values"]["packets"])'
}

log "item 4: the resetter holds the lock through the writer's exit and restart"
hold
before=$(since1) || fail "no count since epoch 1"
t0=$(fx_now_ms)
fx_stop "$WRITER_PID"
fx_untrack "$WRITER_PID"
exit_ms=$(($(fx_now_ms) - t0))
[ "$exit_ms" -le $((1500 * $(fx_loaded 1))) ] || fail "the writer's exit took $exit_ms ms"
[ "$(grep -c "took it over with a copy" "$TMP/writer.log")" = 1 ] ||
	fail "the writer did not say it took the file over: $(tail -3 "$TMP/writer.log")"
release
hold # the file the exiting writer left, for the restart
t0=$(fx_now_ms)
sec_writer "$SEC_WRITER" -t 2 -r 1000
fx_wait 5 sh -c "[ \$(grep -c 'took it over with a copy' '$TMP/writer.log') = 2 ]" ||
	fail "the restarted writer did not take the file over: $(tail -3 "$TMP/writer.log")"
start_ms=$(($(fx_now_ms) - t0))
[ "$start_ms" -le $((1500 * $(fx_loaded 1))) ] || fail "the writer's restart took $start_ms ms"
grep -q "held by another" "$TMP/writer.log" && fail "a writer waited for the lock: $(grep "held by another" "$TMP/writer.log")"
kill -0 "$WRITER_PID" || fail "the restarted writer died: $(tail -3 "$TMP/writer.log")"
after=$(since1) || fail "the counts since epoch 1 did not survive the restart (final counts lost)"
[ "$after" -ge "$before" ] || fail "packets since epoch 1: $after after the restart, $before before"
release
log "exit $exit_ms ms, restart $start_ms ms, packets since epoch 1: $before before, $after after"

log "item 5: nkept = 99"
as_resetter() { setpriv --reuid="$SEC_RESETTER" --regid="$(id -g "$SEC_RESETTER")" --init-groups "$@"; }
as_resetter "$PYTHON" -c '
import struct, sys
with open(sys.argv[1], "r+b") as f:
    f.seek(76); f.write(struct.pack("<I", 99))' "$EPOCHS"
STATCTL epoch list "$SEGMENT" >"$TMP/out" 2>&1 && fail "a corrupt nkept was listed: $(cat "$TMP/out")"
fx_stop "$WRITER_PID"
fx_untrack "$WRITER_PID"
sec_writer "$SEC_WRITER" -t 2 -r 1000
fx_wait 5 grep -q "corrupt header (nkept 99" "$TMP/writer.log" ||
	fail "the writer did not say what it rebuilt: $(tail -3 "$TMP/writer.log")"
kill -0 "$WRITER_PID" || fail "the writer did not start on a corrupt nkept: $(tail -3 "$TMP/writer.log")"
STATCTL epoch list "$SEGMENT" >"$TMP/out" 2>&1 || fail "statctl epoch list: $(cat "$TMP/out")"
grep -qw e1 "$TMP/out" && grep -qw e2 "$TMP/out" || fail "the epochs were not kept: $(cat "$TMP/out")"
since1 >/dev/null || fail "the counts since epoch 1 were lost"
log "rebuilt: $(grep -m 1 "corrupt header" "$TMP/writer.log")"
log "PASS"
