#!/bin/bash
# statctl reads only what it was told to (issue 19, defect 4).  The party:
# a local user (SEC_OTHER) planting files in /dev/shm, against root's
# textfile collector (docs/fleet.md's timer: statctl -c CONF -f prometheus
# show -o FILE) and root's plain `statctl show`.  Root's own segment
# (examples/pipeline, as root, in /dev/shm) is the real one.
#  - with -c: exactly the configuration's segments: a junk file and 1,000
#    planted segments change nothing (FILE replaced, exit 0, stderr empty);
#  - without -c: other owners' segments are not read (no sample, no path of
#    the 1,000); a junk file root owns is reported on stderr, naming it and
#    why, and FILE is still replaced, with statctr_segment_readable 0 for
#    it and 1 for the real one;
#  - with --any-owner: the 1,000, named like the real segment, are read,
#    and still promtool accepts FILE: each family once (the real one's, the
#    trusted owner's being read first), the twins left out and reported;
#  - 100 more twins: statctl reads 1,024 segments, the real one among them,
#    says on stderr how many it left out, and exits 1.
# Every run ends within 60 s; promtool checks every file.  The test runs
# with a private /dev/shm (private_shm): its counts are of its own files,
# whatever other tests and runs create in the real one meanwhile.
SEC_PROGRAMS=""
. "${top_srcdir:-$(dirname "$0")/../..}/tests/common.sh"
private_shm "$@"
. "${top_srcdir:-$(dirname "$0")/../..}/tests/security/lib.sh"

fx_need promtool
PLANT=/dev/shm/statctr.$SEC_TAG
trap 'rm -f "$PLANT"-*; sec_cleanup' EXIT
NPLANTED=1000

sec_config
SEG=${SEC_TAG}dp
sed "s|name = \"dataplane\"; path = \"$SEC_SHM/dataplane\"|name = \"$SEG\"; path = \"$PLANT-real\"|" \
	"$TMP/statctr.conf" >"$TMP/real.conf"
grep -q "path = \"$PLANT-real\"" "$TMP/real.conf" || fail "real.conf does not name $PLANT-real"
sec_spawn root "$TMP/writer.log" pipeline -c "$TMP/real.conf" -s "$SEG" -t 2 -r 1000
fx_wait 5 test -e "$PLANT-real" || fail "the writer did not create $PLANT-real: $(cat "$TMP/writer.log")"
FAMILY=statctr_${SEG}_if_stats_rx_packets_total

OUT=$TMP/textfile
mkdir -m 0755 "$OUT"
FILE=$OUT/statctr.prom
export LD_LIBRARY_PATH=$TMP/bin

# textfile ARGS...: root's `statctl -f prometheus show -o FILE ARGS`, within
# 60 s; status in $rc, stderr in $TMP/err; FILE must be replaced (a new
# inode: renamed over it) and promtool must accept it.
textfile() {
	local before
	before=$(stat -c %i "$FILE" 2>/dev/null || echo none)
	rc=0
	sec_bounded 60 "$TMP/bin/statctl" -f prometheus show -o "$FILE" "$@" >/dev/null \
		2>"$TMP/err" || rc=$?
	[ "$(stat -c %i "$FILE" 2>/dev/null || echo none)" != "$before" ] ||
		fail "statctl $*: $FILE not replaced (exit $rc): $(head -c 400 "$TMP/err")"
	promtool check metrics <"$FILE" >"$TMP/promtool" 2>&1 ||
		fail "statctl $*: promtool rejects $FILE: $(head -n 5 "$TMP/promtool")"
}

# families NAME: how many times FILE declares the family NAME.
families() { grep -c "^# TYPE $1 " "$FILE" || true; }
readable() { grep -c "^statctr_segment_readable{segment=\"[^\"]*\",path=\"$1\"} $2\$" "$FILE" || true; }

log "before any plant: the timer's command (-c) and the plain one read the real segment"
textfile -c "$TMP/real.conf"
[ "$rc" = 0 ] || fail "-c: exit $rc: $(cat "$TMP/err")"
[ "$(families "$FAMILY")" = 1 ] || fail "-c: $FAMILY not in the file"
[ "$(readable "$PLANT-real" 1)" = 1 ] || fail "-c: no statctr_segment_readable 1 for $PLANT-real"

log "$SEC_OTHER plants a junk file and $NPLANTED valid segments (copies of the real one, its own)"
setpriv --reuid="$SEC_OTHER" --regid="$(id -g "$SEC_OTHER")" --init-groups \
	sh -c "echo junk >'$PLANT-junk'" || fail "planting the junk file"
cp "$PLANT-real" "$TMP/copy"
chown "$SEC_OTHER" "$TMP/copy"
chmod 0644 "$TMP/copy"
setpriv --reuid="$SEC_OTHER" --regid="$(id -g "$SEC_OTHER")" --init-groups sh -c "
	cp '$TMP/copy' '$PLANT-p0' && i=1 &&
	while [ \$i -lt $NPLANTED ]; do ln '$PLANT-p0' '$PLANT-p'\$i || exit 1; i=\$((i + 1)); done" ||
	fail "planting $NPLANTED segments"
[ "$(find /dev/shm -maxdepth 1 -name "statctr.$SEC_TAG-p*" -user "$SEC_OTHER" | wc -l)" = "$NPLANTED" ] ||
	fail "not $NPLANTED planted segments"
"$TMP/bin/statctl" show "$PLANT-p7" >/dev/null 2>"$TMP/err" ||
	fail "a planted segment is not a valid segment: $(cat "$TMP/err")"

log "with -c: exactly the configuration's segment"
textfile -c "$TMP/real.conf"
[ "$rc" = 0 ] || fail "-c with plants: exit $rc: $(cat "$TMP/err")"
[ ! -s "$TMP/err" ] || fail "-c with plants: stderr: $(head -c 400 "$TMP/err")"
[ "$(families "$FAMILY")" = 1 ] || fail "-c with plants: $FAMILY not once in the file"
! grep -q "$PLANT-\(p\|junk\)" "$FILE" || fail "-c with plants: a planted file is in the output"

log "without -c: only root's segments; root's own junk file reported, the file still replaced"
echo junk >"$PLANT-rootjunk"
textfile
[ "$rc" = 1 ] || fail "a junk file root owns: exit $rc, not 1"
grep -q "segment '$PLANT-rootjunk': " "$TMP/err" ||
	fail "the junk file is not named on stderr: $(head -c 400 "$TMP/err")"
log "stderr: $(grep -m 1 "$PLANT-rootjunk" "$TMP/err")"
[ "$(readable "$PLANT-rootjunk" 0)" = 1 ] || fail "no statctr_segment_readable 0 for $PLANT-rootjunk"
[ "$(readable "$PLANT-real" 1)" = 1 ] || fail "no statctr_segment_readable 1 for $PLANT-real"
[ "$(families "$FAMILY")" = 1 ] || fail "without -c: $FAMILY not once in the file"
! grep -q "$PLANT-\(p\|junk\)" "$FILE" "$TMP/err" || fail "without -c: a file of $SEC_OTHER was read"
[ "$(stat -c %s "$FILE")" -lt 1000000 ] || fail "without -c: $(stat -c %s "$FILE") bytes"
rm -f "$PLANT-rootjunk"

log "--any-owner: the $NPLANTED twins are read, the file stays valid for promtool"
textfile --any-owner
[ "$rc" = 1 ] || fail "--any-owner: exit $rc, not 1 (the junk file cannot be read)"
[ "$(families "$FAMILY")" = 1 ] || fail "--any-owner: $FAMILY declared $(families "$FAMILY") times"
[ "$(grep -c "^statctr_segment_readable{segment=\"$SEG\",path=\"$PLANT-p[0-9]*\"} 1\$" "$FILE")" = "$NPLANTED" ] ||
	fail "--any-owner: $(grep -c "path=\"$PLANT-p[0-9]*\"} 1\$" "$FILE") of $NPLANTED planted segments read; stderr: $(grep -v "left out" "$TMP/err" | head -n 3)"
[ "$(readable "$PLANT-junk" 0)" = 1 ] || fail "--any-owner: no statctr_segment_readable 0 for the junk"
grep -q "segment '$SEG' ($PLANT-p[0-9]*): table 'ifStats' column 'rxPackets' left out" "$TMP/err" ||
	fail "--any-owner: the twins' columns are not reported: $(head -c 400 "$TMP/err")"
sed -n "/^$FAMILY{/p" "$FILE" | sort | uniq -d | grep -q . && fail "--any-owner: a duplicate sample"

log "--any-owner, 100 more twins: 1,024 segments read, the real one first, the rest said left out"
i=$NPLANTED
while [ $i -lt $((NPLANTED + 100)) ]; do
	ln "$PLANT-p0" "$PLANT-p$i" || fail "planting twin $i"
	i=$((i + 1))
done
textfile --any-owner
[ "$rc" = 1 ] || fail "over 1,024 segments: exit $rc, not 1"
[ "$(grep -c "^statctr_segment_readable{" "$FILE")" = 1024 ] ||
	fail "over 1,024 segments: $(grep -c "^statctr_segment_readable{" "$FILE") read, not 1024"
[ "$(readable "$PLANT-real" 1)" = 1 ] || fail "over 1,024 segments: the real one was left out"
grep -q "^statctl: $((NPLANTED + 102)) segments found, 1024 read: segment '$PLANT-p[0-9]*' and 77 after it left out\$" "$TMP/err" ||
	fail "over 1,024 segments: not said on stderr: $(grep -v "left out$" "$TMP/err" | head -n 3)"

log "--any-owner beside -c is a usage error"
rc=0
"$TMP/bin/statctl" -c "$TMP/real.conf" show --any-owner >/dev/null 2>"$TMP/err" || rc=$?
[ "$rc" = 2 ] || fail "-c with --any-owner: exit $rc, not 2"
log "pass"
exit 0
