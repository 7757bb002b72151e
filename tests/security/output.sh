#!/bin/bash
# Output files (issue 9, defect 14): `statctl mib CONF -o PATH` and the
# agent's state_file never follow a symbolic link, never replace a device,
# a FIFO or a directory, and never use a fixed temporary name that another
# user may have planted.  Runs as root, where such a mistake does harm.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/security/lib.sh"

fx_need mknod mkfifo snmpget
sec_config "interval_ms = 100;"
CONF=$TMP/statctr.conf
OUT=$TMP/out
mkdir -m 0755 "$OUT"

# mib_to PATH: `statctl mib -o PATH` as root, within 10 s; status in $rc, stderr in $TMP/err.
mib_to() {
	rc=0
	sec_bounded 10 "$TMP/bin/statctl" mib "$CONF" -o "$1" >/dev/null 2>"$TMP/err" || rc=$?
}
export LD_LIBRARY_PATH=$TMP/bin

log "a new file, and a regular file replaced: complete MIBs"
mib_to "$OUT/new.mib"
[ "$rc" = 0 ] || fail "a new file: exit $rc: $(cat "$TMP/err")"
grep -q '^END$' "$OUT/new.mib" || fail "a new file: no complete module"
echo old >"$OUT/old.mib"
chmod 0600 "$OUT/old.mib"
mib_to "$OUT/old.mib"
[ "$rc" = 0 ] && grep -q '^END$' "$OUT/old.mib" || fail "a regular file was not replaced"
[ "$(stat -c %a "$OUT/old.mib")" = 600 ] || fail "the replaced file lost its mode 0600"
[ -z "$(find "$OUT" -name '.*')" ] || fail "temporary files left: $(ls -a "$OUT")"

log "a character device (mknod c 1 3): written in place, still a device"
mknod "$OUT/null" c 1 3
mib_to "$OUT/null"
[ "$rc" = 0 ] || fail "the device: exit $rc: $(cat "$TMP/err")"
[ -c "$OUT/null" ] || fail "the device was replaced: $(stat -c %F "$OUT/null")"

log "a FIFO without a reader: an error, not a hang; with a reader: it gets the module"
mkfifo "$OUT/fifo"
mib_to "$OUT/fifo"
[ "$rc" = 1 ] || fail "a FIFO without a reader: exit $rc, not 1"
grep -q 'FIFO without a reader' "$TMP/err" || fail "a FIFO without a reader: '$(cat "$TMP/err")'"
timeout 10 cat "$OUT/fifo" >"$TMP/from-fifo" &
reader=$!
fx_track "$reader"
fx_wait 5 bash -c "ls -l /proc/$reader/fd 2>/dev/null | grep -q fifo" || true # the loop below retries
for _ in $(seq 50); do
	mib_to "$OUT/fifo"
	[ "$rc" = 0 ] && break
	sleep 0.1 # cat has not opened the FIFO yet
done
[ "$rc" = 0 ] || fail "a FIFO with a reader: exit $rc: $(cat "$TMP/err")"
wait "$reader" || true
grep -q '^END$' "$TMP/from-fifo" || fail "the FIFO's reader did not get the module"
[ -p "$OUT/fifo" ] || fail "the FIFO was replaced"

log "a symbolic link (to a file of another user): refused, neither followed nor replaced"
echo "victim" >"$TMP/victim"
ln -s "$TMP/victim" "$OUT/link.mib"
mib_to "$OUT/link.mib"
[ "$rc" = 1 ] || fail "a symbolic link: exit $rc, not 1"
grep -q 'symbolic link' "$TMP/err" || fail "a symbolic link: '$(cat "$TMP/err")'"
[ -L "$OUT/link.mib" ] || fail "the symbolic link was replaced"
[ "$(cat "$TMP/victim")" = victim ] || fail "the link's target was written"

log "a directory: refused"
mkdir "$OUT/dir.mib"
mib_to "$OUT/dir.mib"
[ "$rc" = 1 ] && grep -q 'directory' "$TMP/err" || fail "a directory: exit $rc, '$(cat "$TMP/err")'"
[ -d "$OUT/dir.mib" ] || fail "the directory was replaced"

log "PATH.tmp planted by another user in a shared directory: never followed"
echo "victim" >"$TMP/victim2"
sec_as "$SEC_OTHER" ln -s "$TMP/victim2" "$SEC_SHM/x.mib.tmp" 2>/dev/null ||
	ln -s "$TMP/victim2" "$SEC_SHM/x.mib.tmp"
mib_to "$SEC_SHM/x.mib"
[ "$rc" = 0 ] || fail "planted PATH.tmp: exit $rc: $(cat "$TMP/err")"
[ "$(cat "$TMP/victim2")" = victim ] || fail "the planted PATH.tmp link was followed"
[ -f "$SEC_SHM/x.mib" ] && [ ! -L "$SEC_SHM/x.mib" ] && grep -q '^END$' "$SEC_SHM/x.mib" ||
	fail "PATH is not a complete regular file"

log "the agent's state_file: a symbolic link and a device are not replaced"
echo "victim" >"$TMP/victim3"
for kind in link device; do
	state=$OUT/state-$kind
	if [ "$kind" = link ]; then ln -s "$TMP/victim3" "$state"; else mknod "$state" c 1 3; fi
	sec_config "interval_ms = 100; state_file = \"$state\";"
	[ -n "${SNMPD_PID:-}" ] || fx_snmpd
	"$AGENT" -f -L stderr -c "$TMP/statctr.conf" -x "$TMP/agentx.sock" -p "$TMP/agent.pid" \
		>"$TMP/agent.log" 2>&1 &
	AGENT_PID=$!
	fx_track "$AGENT_PID"
	fx_wait 5 fx_agent_answers || fail "state_file $kind: the agent does not answer"
	# TimeStamps (the segment's discontinuity, the last pass) make it estimate the offset.
	snmp_walk "$ROOT.1.1" >/dev/null 2>&1 || true
	snmp_get "$ROOT.1.2.1.9.1" >/dev/null 2>&1 || true
	fx_wait 5 grep -q "state file $state" "$TMP/agent.log" ||
		fail "state_file $kind: nothing logged: $(cat "$TMP/agent.log")"
	kill -0 "$AGENT_PID" || fail "state_file $kind: the agent died"
	if [ "$kind" = link ]; then
		[ -L "$state" ] || fail "state_file: the symbolic link was replaced"
		[ "$(cat "$TMP/victim3")" = victim ] || fail "state_file: the link's target was written"
	else
		[ -c "$state" ] || fail "state_file: the device was replaced"
	fi
	log "state_file $kind: $(grep "state file" "$TMP/agent.log" | head -1)"
	fx_agent_stop
done
log "pass"
exit 0
