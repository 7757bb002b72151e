#!/bin/bash
# Live corruption (issue 9): for ATTACK_S seconds (default 15) a resetter
# rewrites random bytes and fields of the control file's header and request
# words, truncating and re-extending the file in between, while the
# writer's own user rewrites the segment header the same way (nobody else
# can: the segment is the writer's file).  Meanwhile the agent serves GETs
# through snmpd, `statctl watch` prints JSON frames and a library reader
# (tests/security/live_reader) keeps one view open and snapshots it every
# 10 ms.  Proves: the writer, the agent, statctl and the reader all stay
# alive and keep answering (every GET of the agent group, the segment table
# and some values answered within the poller's 0.5 s, no gap over 1 s; the
# agent's passes go on); the agent reports the segment stale(3) during the
# attack and active(1) again, as a new generation, once the writer is
# restarted; statctl and the reader report the corruption as errors; no
# value served by any of them exceeds what the writer could have counted
# (ASCII-looking words such as 0x4141414141414141 or "\x7fELF" taken as
# a number are far beyond that bound) or goes backwards; the agent's CPU
# stays under half a core; no sanitizer report.  The attack's random
# choices come from SEED (printed; SEED=N repeats them, though not their
# timing against the readers).
SEC_PROGRAMS="tests/security/live_reader"
. "${top_srcdir:-$(dirname "$0")/../..}/tests/security/lib.sh"

fx_need snmpget python3
# The attackers' interpreter, where they can run it (not a shim under /root).
PYTHON=$(PATH=/usr/local/bin:/usr/bin:/bin command -v python3) || skip "no python3 in /usr/bin or /bin"
[ -x "$top_builddir/tests/security/live_reader" ] || skip "tests/security/live_reader not built (make check builds it)"

ATTACK_S=${ATTACK_S:-15}
SEED=${SEED:-$((RANDOM * 32768 + RANDOM))}
# pipeline -t 2 -r 1000 sleeps 1 ms every 2 packets: at most 2 x 2000
# packets of at most 1500 octets per second.
MAX_PER_S=$((2 * 2000 * 1500))
log "seed $SEED (rerun with SEED=$SEED to repeat the attack's choices)"

# The attacker: rewrites header bytes of one file for a given time, from a
# seeded generator.  ctl: the control file (fields, request words,
# truncations and re-extensions); seg: the segment header.
cat >"$TMP/bin/attack.py" <<'EOF'
import os, random, struct, sys, time

kind, path, seconds, seed = sys.argv[1], sys.argv[2], float(sys.argv[3]), int(sys.argv[4])
rng = random.Random(seed)
# (offset, size) of each header field (docs/segment-format.md).
FIELDS = {
    "seg": [(0, 8), (8, 4), (12, 4), (16, 8), (24, 8), (32, 8), (40, 8), (48, 4), (52, 4),
            (56, 4), (60, 4), (64, 4), (68, 4), (72, 4), (76, 4), (80, 4), (84, 4), (88, 8),
            (96, 8), (104, 8), (112, 8), (120, 8), (128, 8), (136, 8)],
    "ctl": [(0, 8), (8, 4), (12, 4), (16, 8), (24, 8), (32, 4), (36, 4), (40, 8), (48, 8),
            (56, 8), (64, 8), (128, 8), (136, 8), (192, 8), (200, 8), (208, 4), (216, 8)],
}[kind]
fd = os.open(path, os.O_RDWR)
size = os.fstat(fd).st_size
header = os.pread(fd, 256, 0)
if kind == "ctl":  # each slot's req and done words
    nslots, reqs_off = struct.unpack_from("<I", header, 32)[0], struct.unpack_from("<Q", header, 40)[0]
    FIELDS += [(reqs_off + 64 * s + w, 8) for s in range(nslots) for w in (0, 8)]
WORDS = [0, 1, 2, 3, 0xFFFFFFFFFFFFFFFF, 0x4141414141414141, 0x00010102464C457F, size,
         size - 1, size + 64, 256, 1 << 31, 1 << 63, 0x7FFFFFFF]
done = {"field": 0, "bytes": 0, "restore": 0, "truncate": 0, "extend": 0}
short = False

def act():
    global short
    r = rng.random()
    if kind == "ctl" and short and r < 0.3:
        if rng.random() < 0.5:
            os.ftruncate(fd, size)  # sparse tail
        else:
            os.posix_fallocate(fd, 0, size)
        short = False
        return "extend"
    if kind == "ctl" and r < 0.05:
        os.ftruncate(fd, rng.choice([0, 100, 256, size // 2, size - 8]))
        short = True
        return "truncate"
    if r < 0.5:
        off, n = rng.choice(FIELDS)
        word = rng.choice(WORDS + [rng.getrandbits(64)]) & ((1 << (8 * n)) - 1)
        os.pwrite(fd, word.to_bytes(n, "little"), off)
        return "field"
    if r < 0.85:
        for _ in range(rng.randint(1, 16)):
            os.pwrite(fd, bytes([rng.getrandbits(8)]), rng.randrange(256))
        return "bytes"
    os.pwrite(fd, header, 0)
    return "restore"

end = time.monotonic() + seconds
while time.monotonic() < end:
    done[act()] += 1
    time.sleep(rng.uniform(0, 0.02))
print(kind, " ".join("%s %d" % kv for kv in done.items()))
EOF
ln -s "$(readlink -f "$PYTHON")" "$TMP/bin/python3"
chmod a+r "$TMP/bin/attack.py"

sec_config "interval_ms = 100;"
fx_snmpd
START_S=$(date +%s)
START_MS=$(fx_now_ms)
sec_writer "$SEC_WRITER" -t 2 -r 1000
fx_agent
wait_status 5 1 "$ST_ACTIVE"
fx_wait_pass

# -g: the writer's gauges stay within +-64, but ifStats.speed, set to 10000 Mb/s.
sec_spawn "$SEC_RESETTER" "$TMP/reader.log" live_reader -m "$MAX_PER_S" -t "$START_S" -g 10000 "$SEGMENT"
READER_PID=$SEC_PID
# JSON frames and error messages in one log: each frame is one line of its own.
sec_spawn "$SEC_RESETTER" "$TMP/watch.log" statctl -f json watch -i 0.2 "$SEGMENT" </dev/null
WATCH_PID=$SEC_PID

# Fields of a poll line: ms, status, passes, segment status, generations, values.
poller_start "$ROOT.1.1.5.0" "$ROOT.1.2.1.4.1" "$ROOT.1.2.1.10.1" \
	"$DATA.3.1.10.1" "$DATA.3.1.11.1" "$DATA.1.1.10.1" "$DATA.1.1.11.1"
sleep 1

cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$AGENT_PID/stat"; }
log "attack for $ATTACK_S s"
ATTACK_MS=$(fx_now_ms)
CPU0=$(cpu_ticks)
sec_spawn "$SEC_RESETTER" "$TMP/attack-ctl.out" python3 "$TMP/bin/attack.py" ctl "$SEGMENT.ctl" \
	"$ATTACK_S" "$SEED"
CTL_ATTACKER=$SEC_PID
sec_spawn "$SEC_WRITER" "$TMP/attack-seg.out" python3 "$TMP/bin/attack.py" seg "$SEGMENT" \
	"$ATTACK_S" "$((SEED + 1))"
SEG_ATTACKER=$SEC_PID
for pid in $CTL_ATTACKER $SEG_ATTACKER; do
	sec_bounded $((ATTACK_S + 10)) bash -c "while kill -0 $pid 2>/dev/null; do sleep 0.2; done"
	wait "$pid" || fail "an attacker failed: $(cat "$TMP"/attack-*.out)"
	fx_untrack "$pid"
done
END_MS=$(fx_now_ms)
log "attack done: $(cat "$TMP/attack-ctl.out"); $(cat "$TMP/attack-seg.out")"

# dead NAME PID: prints why PID (a child) is no longer running, if it is not.
dead() {
	local rc=0
	kill -0 "$2" 2>/dev/null && return 0
	wait "$2" 2>/dev/null || rc=$?
	fx_untrack "$2"
	echo "$1 died during the attack (exit status $rc$([ "$rc" -gt 128 ] && echo ", signal $(kill -l $((rc - 128)))"))"
}
{
	dead "the agent" "$AGENT_PID"
	dead "the writer" "$WRITER_PID"
	dead "the library reader" "$READER_PID"
	dead "statctl watch" "$WATCH_PID"
} >"$TMP/dead"
[ ! -s "$TMP/dead" ] || fail "$(cat "$TMP/dead")"

log "the agent's CPU during the attack"
cpu_ms=$((($(cpu_ticks) - CPU0) * 1000 / $(getconf CLK_TCK)))
wall_ms=$(($(fx_now_ms) - ATTACK_MS))
log "agent CPU $cpu_ms ms in $wall_ms ms"
[ $((cpu_ms * 2)) -lt "$wall_ms" ] || fail "the agent used $cpu_ms ms of CPU in $wall_ms ms (over half a core)"

log "the writer restarts: a new generation"
kill -TERM "$WRITER_PID"
sec_bounded 10 bash -c "while kill -0 $WRITER_PID 2>/dev/null; do sleep 0.1; done"
wait "$WRITER_PID" || fail "the writer exited with status $? on SIGTERM"
fx_untrack "$WRITER_PID"
rm -f "$SEGMENT" "$SEGMENT.ctl"
sec_writer "$SEC_WRITER" -t 2 -r 1000
wait_status 10 1 "$ST_ACTIVE"
fx_wait_pass
sleep 1
poller_stop

log "every GET answered in time, passes went on"
awk -v from="$ATTACK_MS" -v to="$END_MS" '
	$1 >= from && $1 <= to { n++; if ($2 != 0) bad++; if (prev && $1 - prev > gap) gap = $1 - prev; prev = $1 }
	END { printf "%d %d %d\n", n, bad, gap }' "$TMP/poller.log" >"$TMP/polls"
read -r polls failed gap <"$TMP/polls"
log "$polls polls during the attack, $failed unanswered, longest gap $gap ms"
[ "$failed" = 0 ] || fail "$failed GETs were not answered within 0.5 s during the attack"
# The gap measures the poller's own cadence too (a shell loop forking
# snmpget): a sanitizer build on 2 busy CPUs may starve it for a second or
# two while every GET still gets its answer within 0.5 s (checked above).
max_gap=$(($(fx_loaded 1) * 1000))
[ "${SANITIZER:-none}" = none ] || max_gap=$(($(fx_loaded 3) * 1000))
[ "$gap" -le "$max_gap" ] || fail "$gap ms between two polls during the attack (at most $max_gap)"
# Two polls a second, fewer by the load per CPU (a loaded machine forks
# the poller's snmpget slower: 23 in 15 s at load 20), and at least 10.
min_polls=$((ATTACK_S * 2 / $(fx_loaded 1)))
[ "$min_polls" -ge 10 ] || min_polls=10
[ "$polls" -ge "$min_polls" ] ||
	fail "only $polls polls in $ATTACK_S s (at least $min_polls; load $(cut -d' ' -f1 /proc/loadavg))"
passes=$(awk -v from="$ATTACK_MS" -v to="$END_MS" '$1 >= from && $1 <= to && $2 == 0 { if (!a) a = $3; b = $3 } END { print b - a }' "$TMP/poller.log")
log "$passes aggregation passes during the attack"
[ "$passes" -ge "$ATTACK_S" ] || fail "only $passes aggregation passes in $ATTACK_S s"

log "the agent said stale(3) during the attack, active(1) on a new generation after it"
stale=$(awk -v from="$ATTACK_MS" -v to="$END_MS" '$1 >= from && $1 <= to && $4 == 3' "$TMP/poller.log" | wc -l)
log "$stale polls saw stale(3)"
[ "$stale" -gt 0 ] || fail "the agent never reported the segment stale(3) during the attack"
tail -n 1 "$TMP/poller.log" >"$TMP/last"
read -r _ rc _ status gens packets _ <"$TMP/last"
[ "$rc" = 0 ] && [ "$status" = "$ST_ACTIVE" ] && [ "$packets" -gt 0 ] ||
	fail "last poll (expected active(1) and counted packets): $(cat "$TMP/last")"
first_gens=$(awk '$2 == 0 { print $5; exit }' "$TMP/poller.log")
[ "$gens" -gt "$first_gens" ] || fail "statctrSegmentGenerations $first_gens -> $gens after the restart"

log "no value served beyond what the writer could count, none backwards"
# $1: source, then "ms key value..." lines on stdin: each value at most what
# the writer could count by then, and never below the previous value at the
# same position of the same key (the generation; no resets are made).
check_values() {
	awk -v src="$1" -v start="$START_MS" -v rate="$MAX_PER_S" '
		{
			bound = rate * (($1 - start) / 1000 + 1)
			for (i = 3; i <= NF; i++) {
				if ($i !~ /^[0-9]+$/) continue
				if ($i + 0 > bound) { print src ": " $i " above " bound " at " $1; bad = 1 }
				k = $2 SUBSEP i
				if (k in prev && $i + 0 < prev[k]) { print src ": " prev[k] " -> " $i " at " $1; bad = 1 }
				prev[k] = $i + 0
			}
		}
		END { exit bad }' >&2
}
# A missing row (a stale segment) is "-", so values keep their positions.
sed -E 's/No Such (Instance currently exists|Object available on this agent) at this OID/-/g' \
	"$TMP/poller.log" |
	awk '$2 == 0 { printf "%s %s", $1, $5; for (i = 6; i <= NF; i++) printf " %s", $i; print "" }' |
	check_values "the agent" || fail "the agent served impossible values"

log "statctl and the reader reported the corruption, followed the new generation, stop cleanly"
grep -q "^statctl: .*$SEGMENT" "$TMP/watch.log" ||
	fail "statctl watch never reported an error naming the segment"
# stopped NAME PID: SIGTERM, then the status must be 0 or 1, never a signal.
stopped() {
	local rc=0
	kill -TERM "$2"
	sec_bounded 5 bash -c "while kill -0 $2 2>/dev/null; do sleep 0.1; done"
	wait "$2" || rc=$?
	fx_untrack "$2"
	[ "$rc" -le 1 ] || fail "$1 ended with status $rc on SIGTERM"
	STOPPED_RC=$rc
}
stopped "the library reader" "$READER_PID"
grep "^calls " "$TMP/reader.log" >"$TMP/reader.out" || fail "the library reader printed no summary"
log "library reader: $(cat "$TMP/reader.out")"
[ "$STOPPED_RC" = 0 ] || fail "the library reader saw impossible values or results: $(grep VIOLATION "$TMP/reader.log" | head -5)"
read -r _ _ _ snaps _ gens _ stale_n _ proto _ other _ _ _ last <"$TMP/reader.out"
[ "$snaps" -gt 0 ] || fail "the library reader took no snapshot"
[ $((stale_n + proto + other)) -gt 0 ] || fail "the library reader never reported the corruption"
[ "$gens" -ge 2 ] || fail "the library reader did not follow the new generation"
[ "$last" = 0 ] || fail "the library reader's last snapshot failed: $(grep -v "^calls " "$TMP/reader.log" | tail -1)"
stopped "statctl watch" "$WATCH_PID"
# statctl's JSON frames as "ms generation/table/row counter-values..." lines.
python3 -c '
import json, sys
for line in sys.stdin:
    if not line.startswith("{"):
        continue  # an error message
    doc = json.loads(line)
    for seg in doc["segments"]:
        for table in seg["tables"]:
            counters = [c["name"] for c in table["columns"] if c["kind"] == "counter"]
            for row in table["rows"]:
                key = "%s/%s/%s" % (seg["generation"], table["name"], row["index"])
                print(seg["taken_ns"] // 1000000, key, *(row["values"][c] for c in counters))
'<"$TMP/watch.log" >"$TMP/watch.values" || fail "statctl watch printed a frame that is not JSON"
[ -s "$TMP/watch.values" ] || fail "statctl watch printed no frame: $(head -c 300 "$TMP/watch.log")"
check_values "statctl watch" <"$TMP/watch.values" || fail "statctl watch printed impossible values"
log "statctl watch: $(grep -c "^{" "$TMP/watch.log") frames"

if grep -El "AddressSanitizer|LeakSanitizer|runtime error|Segmentation fault|Bus error" "$TMP"/*.log; then
	fail "a sanitizer or fault report in the logs above"
fi
agent_exit_clean 10
log "pass"
exit 0
