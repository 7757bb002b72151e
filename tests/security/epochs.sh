#!/bin/bash
# Epoch files (issue 22, docs/epochs.md) against the threat model: a local
# user (SEC_OTHER) plants a FIFO, then a symlink, at <segment>.epochs before
# the writer starts: the writer refuses to start within 10 s, naming the
# file (it may not replace another user's file in a sticky directory), as
# it does for a planted segment.  With the writer running: a resetter
# (SEC_GROUP, may write the control file) starts an epoch, SEC_OTHER may
# not; the resetter then corrupts the epoch file in place (a live count out
# of range), truncates it, and makes it sparse: every time statctl refuses
# it within 2 s naming the cause, plain `show` still works, and the writer
# keeps counting.  A restarted writer replaces the broken file with a new one.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/security/lib.sh"

fx_need python3 mkfifo truncate

sec_config
sed -i "s|name = \"dataplane\";|name = \"dataplane\"; epochs = { keep = 4; };|" "$TMP/statctr.conf"
grep -q "keep = 4" "$TMP/statctr.conf" || fail "no epochs in $TMP/statctr.conf"
EPOCHS=$SEGMENT.epochs

as_user() { # USER COMMAND...: a system command as USER
	local user=$1
	shift
	setpriv --reuid="$user" --regid="$(id -g "$user")" --init-groups "$@"
}

# writer_refuses WHAT: a writer on the planted file exits non-zero, naming it.
writer_refuses() {
	local rc=0
	sec_bounded 10 setpriv --reuid="$SEC_WRITER" --regid="$(id -g "$SEC_WRITER")" \
		--init-groups env LD_LIBRARY_PATH="$TMP/bin" "$TMP/bin/pipeline" \
		-c "$TMP/statctr.conf" -t 1 -n 10 >"$TMP/out" 2>&1 || rc=$?
	[ "$rc" != 0 ] || fail "$1: the writer started"
	grep -q -- "$EPOCHS" "$TMP/out" || fail "$1: exit $rc without naming $EPOCHS: $(head -c 300 "$TMP/out")"
	[ ! -e "$SEGMENT" ] || fail "$1: the refused writer left $SEGMENT"
	log "$1: the writer refused to start (exit $rc): $(head -n 1 "$TMP/out")"
}

as_user "$SEC_OTHER" mkfifo -m 0600 "$EPOCHS"
writer_refuses "planted FIFO"
rm -f "$EPOCHS"
as_user "$SEC_OTHER" ln -s /etc/passwd "$EPOCHS"
writer_refuses "planted symlink"
rm -f "$EPOCHS"

sec_writer "$SEC_WRITER" -t 2 -r 1000
fx_wait 5 test -e "$EPOCHS" || fail "the writer made no $EPOCHS"
[ "$(stat -c '%U %G %a' "$EPOCHS")" = "$SEC_WRITER $SEC_GROUP 660" ] ||
	fail "epoch file is $(stat -c '%U %G %a' "$EPOCHS"), not the control file's owner and mode"

sec_as "$SEC_RESETTER" statctl epoch start r1 "$SEGMENT" >"$TMP/out" 2>&1 ||
	fail "the resetter could not start an epoch: $(cat "$TMP/out")"
grep -q 'epoch 1 "r1" started' "$TMP/out" || fail "unexpected: $(cat "$TMP/out")"
if sec_as "$SEC_OTHER" statctl epoch start o1 "$SEGMENT" >"$TMP/out" 2>&1; then
	fail "an unrelated user started an epoch"
fi
log "SEC_OTHER refused: $(head -n 1 "$TMP/out")"

# statctl_refuses WHAT CAUSE ARGS...: statctl (root) exits 1 within 2 s naming CAUSE.
statctl_refuses() {
	local what=$1 cause=$2 rc=0
	shift 2
	sec_bounded 2 env LD_LIBRARY_PATH="$TMP/bin" "$TMP/bin/statctl" "$@" >"$TMP/out" 2>&1 || rc=$?
	[ "$rc" = 1 ] || fail "$what: statctl $* exited $rc: $(head -c 300 "$TMP/out")"
	grep -q -- "$cause" "$TMP/out" || fail "$what: no '$cause' in: $(head -c 300 "$TMP/out")"
	log "$what: statctl $1 refused: $(grep -m 1 -- "$cause" "$TMP/out")"
}

# still_counting: plain show works and the writer's totals move.
still_counting() {
	local before after
	before=$(env LD_LIBRARY_PATH="$TMP/bin" "$TMP/bin/statctl" show -f json "$SEGMENT" totals |
		python3 -c 'import json,sys; print(json.load(sys.stdin)["segments"][0]["tables"][0]["rows"][0]["values"]["packets"])') ||
		fail "$1: plain show failed"
	fx_wait 5 sh -c "env LD_LIBRARY_PATH='$TMP/bin' '$TMP/bin/statctl' show -f json '$SEGMENT' totals |
		python3 -c 'import json,sys; sys.exit(json.load(sys.stdin)[\"segments\"][0][\"tables\"][0][\"rows\"][0][\"values\"][\"packets\"] <= $before)'" ||
		fail "$1: the writer's totals did not move past $before"
	kill -0 "$WRITER_PID" || fail "$1: the writer died"
}

as_user "$SEC_RESETTER" /usr/bin/python3 -c '
import struct, sys
with open(sys.argv[1], "r+b") as f:
    f.seek(76); f.write(struct.pack("<I", 99))' "$EPOCHS"
statctl_refuses "nkept out of range" "corrupt" epoch list "$SEGMENT"
statctl_refuses "nkept out of range" "corrupt" show --since 1 "$SEGMENT"
still_counting "nkept out of range"

size=$(stat -c %s "$EPOCHS")
as_user "$SEC_RESETTER" truncate -s 0 "$EPOCHS"
statctl_refuses "truncated" "$EPOCHS" show --since 1 "$SEGMENT"
still_counting "truncated"
as_user "$SEC_RESETTER" truncate -s "$size" "$EPOCHS"
statctl_refuses "sparse" "sparse" show --epoch 1 "$SEGMENT"
still_counting "sparse"

# A clean restart: the writer replaces its own broken file.
fx_stop "$WRITER_PID"
fx_untrack "$WRITER_PID"
sec_writer "$SEC_WRITER" -t 2 -r 1000
sec_as "$SEC_RESETTER" statctl epoch start r2 "$SEGMENT" >"$TMP/out" 2>&1 ||
	fail "no epoch after the restart: $(cat "$TMP/out")"
[ "$(stat -c %b "$EPOCHS")" -gt 0 ] || fail "the new epoch file is sparse"
log "after the restart: $(cat "$TMP/out")"
log "PASS"
