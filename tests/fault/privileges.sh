#!/bin/bash
# The permission model, enforced (docs/security.md).  Needs root (CI runs
# as root): it drops to nobody with setpriv and runs the agent with -u/-g.
# Proves: segments get the configured modes and group; a symlink or a
# foreign file planted at a segment's path is refused by the writer and by
# every reader (O_NOFOLLOW, no pre-creation attack); with segment_owner set
# the agent refuses a segment created by another uid; a user who may read a
# segment but not write its control file cannot reset it, while one in the
# segment's group can; the agent started with -u nobody -g nogroup drops
# root for good (all uids and gids, no supplementary groups), still serves,
# resets, follows a writer restart and reconnects after an snmpd restart;
# names containing printf conversions are logged literally.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/fault/lib.sh"

fx_need snmpget snmpset snmpwalk setpriv
[ "$(id -u)" = 0 ] || skip "needs root to switch users (CI runs as root)"
id nobody >/dev/null 2>&1 && getent group nogroup >/dev/null || skip "no user nobody or group nogroup"
NOBODY=$(id -u nobody)

# The tests' files must be reachable by nobody: $TMP is 0700 from mktemp.
chmod 0711 "$TMP"
mkdir -m 1777 "$TMP/shared"
mkdir -m 0755 "$TMP/bin"

# The real binaries (not libtool wrappers) and the library, where nobody
# can run them whatever the permissions of the build tree.
for prog in examples/pipeline tools/statctl; do
	real=$("$top_builddir/libtool" --mode=execute echo "$top_builddir/$prog")
	cp "$real" "$TMP/bin/$(basename "$prog")"
done
cp -P "$top_builddir"/lib/.libs/libstatctr.so* "$TMP/bin/"
chmod -R a+rX "$TMP/bin"
# as USER GROUP PROGRAM ARGS...: runs a copied binary as USER:GROUP, no
# other groups, in the foreground.
as() {
	local user=$1 group=$2 prog=$3
	shift 3
	setpriv --reuid="$user" --regid="$group" --clear-groups \
		env LD_LIBRARY_PATH="$TMP/bin" "$TMP/bin/$prog" "$@"
}

fx_config_two "interval_ms = 100; allow_reset = true; segment_owner = \"root\";" 'group = "nogroup";'
sed -i -e "s|path = \"$TMP/dataplane2\"|path = \"$TMP/shared/dataplane2\"|" \
	-e 's|mode = "0640";|mode = "0644";|' "$TMP/statctr.conf"
grep -q 'mode = "0644";' "$TMP/statctr.conf" || fail "cannot set the segment mode"
SEGMENT2=$TMP/shared/dataplane2
chmod 0644 "$TMP/statctr.conf"
fx_snmpd
fx_snmpd_reconfigure "agentXPerms 0660 0771 0 65534"

log "modes and group as configured"
fx_writer -t 2 -n 1000
fx_writer_settled
[ "$(stat -c '%a %G' "$SEGMENT")" = "644 nogroup" ] || fail "segment: $(stat -c '%a %G' "$SEGMENT")"
[ "$(stat -c '%a %G' "$SEGMENT.ctl")" = "660 nogroup" ] || fail "control: $(stat -c '%a %G' "$SEGMENT.ctl")"

log "planted symlink and foreign file at a segment's path: refused by writer and readers"
ln -s "$SEGMENT" "$SEGMENT2"
if as nobody nogroup pipeline -c "$TMP/statctr.conf" -s dataplane2 -n 1 -d 1 2>"$TMP/err"; then
	fail "the writer followed a planted symlink"
fi
grep -q "not a regular file" "$TMP/err" || fail "writer: $(cat "$TMP/err")"
if "$top_builddir/tools/statctl" show "$SEGMENT2" >/dev/null 2>"$TMP/err"; then
	fail "statctl followed a symlink"
fi
grep -q "symbolic link" "$TMP/err" || fail "statctl: $(cat "$TMP/err")"
rm "$SEGMENT2"
echo "not a segment" >"$SEGMENT2"
chown nobody "$SEGMENT2"
if "$PIPELINE" -c "$TMP/statctr.conf" -s dataplane2 -n 1 -d 1 2>"$TMP/err"; then
	fail "the writer replaced a foreign file"
fi
grep -q "not a usable segment" "$TMP/err" || fail "writer: $(cat "$TMP/err")"
[ ! -e "$SEGMENT2.lock" ] || fail "the refused writer left its lock file behind"
rm -f "$SEGMENT2"

log "-u/-g are checked before anything starts"
if "$AGENT" -f -c "$TMP/statctr.conf" -u no-such-user-statctr 2>"$TMP/err"; then
	fail "the agent started with an unknown -u user"
fi
grep -q "no such user" "$TMP/err" || fail "-u unknown: $(cat "$TMP/err")"
if "$AGENT" -f -c "$TMP/statctr.conf" -g no-such-group-statctr 2>"$TMP/err"; then
	fail "the agent started with an unknown -g group"
fi
grep -q "no such group" "$TMP/err" || fail "-g unknown: $(cat "$TMP/err")"

log "a segment created by another uid is refused (segment_owner = root)"
# Not through as(): $! must be the writer itself (setpriv and env exec it).
setpriv --reuid=nobody --regid=nogroup --clear-groups env LD_LIBRARY_PATH="$TMP/bin" \
	"$TMP/bin/pipeline" -c "$TMP/statctr.conf" -s dataplane2 -t 1 -n 500 >>"$TMP/writer2.log" 2>&1 &
WRITER2_PID=$!
fx_track "$WRITER2_PID"
fx_wait 5 test -e "$SEGMENT2" || fail "nobody's writer did not create its segment"
[ "$(stat -c %u "$SEGMENT2")" = "$NOBODY" ] || fail "the planted segment is not nobody's"
fx_agent -u nobody -g nogroup
wait_status "$(fx_loaded 3)" 2 "$ST_STALE"
wait_log 3 "dataplane2 .*owned by uid $NOBODY, not the expected uid 0"
[ -z "$(snmp_walk "$DATA2")" ] || fail "rows of a refused segment are served"
[ "$(seg_status 1)" = "$ST_ACTIVE" ] || fail "root's segment is not served"
[ "$(snmp_value "$DATA.3.1.10.1")" = 2000 ] || fail "root's segment's values"

log "the agent runs as nobody:nogroup, for good"
ids=$(awk '/^(Uid|Gid|Groups):/ { $1 = ""; printf "%s;", $0 }' "/proc/$AGENT_PID/status" | tr -s ' \t' ' ')
[ "$ids" = " $NOBODY $NOBODY $NOBODY $NOBODY; 65534 65534 65534 65534; 65534;" ] ||
	fail "the agent's credentials: $ids"
grep -q "as uid $NOBODY gid 65534" "$TMP/agent.log" || fail "the agent did not log its identity"

log "reset: refused for a reader outside the group, allowed inside it and to the agent"
as nobody daemon statctl show "$SEGMENT" >/dev/null || fail "a reader outside the group cannot read a 0644 segment"
if as nobody daemon statctl reset "$SEGMENT" totals 2>"$TMP/err"; then
	fail "a user who cannot write the control file reset counters"
fi
log "statctl reset as nobody:daemon: $(cat "$TMP/err")"
[ "$(fx_reader | awk '$1 == "totals.packets.all" { print $2 }')" = 2000 ] || fail "a refused reset changed values"
as nobody nogroup statctl reset "$SEGMENT" ifStats >/dev/null || fail "a member of the segment's group could not reset"
[ "$(fx_reader | awk '$1 == "ifStats.rxPackets.dp0" { print $2 }')" = 0 ] || fail "the group's reset did not apply"
snmpset -v2c -c "$WCOMMUNITY" -t 2 -r 1 "127.0.0.1:$PORT" "$DATA.3.1.4.1" i 2 >/dev/null ||
	fail "the unprivileged agent cannot reset (control file 0660, group nogroup)"
fx_wait_pass
[ "$(snmp_value "$DATA.3.1.10.1")" = 0 ] || fail "the agent's reset did not apply"

log "the unprivileged agent follows a writer restart and an snmpd restart"
fx_kill "$WRITER_PID" KILL
fx_writer -t 1 -n 700
fx_writer_settled
wait_status 3 1 "$ST_ACTIVE"
fx_wait_pass
[ "$(snmp_value "$DATA.3.1.10.1")" = 700 ] || fail "values of the new generation as nobody"
fx_snmpd_stop
sleep 1.2
fx_snmpd_start || fail "snmpd did not restart"
secs=$(fx_loaded 3)
fx_wait "$secs" fx_agent_answers || fail "the unprivileged agent did not reconnect to the restarted master within $secs s"

log "the agent does not follow a symlink to a valid segment either"
fx_kill "$WRITER2_PID" KILL
rm -f "$SEGMENT2" "$SEGMENT2.ctl"
ln -s "$SEGMENT" "$SEGMENT2"
wait_status "$(fx_loaded 3)" 2 "$ST_STALE"
wait_log 3 "dataplane2 .*symbolic link"
[ -z "$(snmp_walk "$DATA2")" ] || fail "rows served through a symlink"
rm "$SEGMENT2"

log "printf conversions in names are logged literally"
fx_agent_stop
sed -i "s|$TMP/shared/dataplane2|$TMP/shared/%n%s%x%n|" "$TMP/statctr.conf"
"$PIPELINE" -c "$TMP/statctr.conf" -s dataplane2 -t 1 -n 10 >>"$TMP/writer.log" 2>&1 &
fx_track $!
fx_wait 5 test -e "$TMP/shared/%n%s%x%n" || fail "no segment at a path with % in it"
fx_agent
wait_log 3 "dataplane2: attached to $TMP/shared/%n%s%x%n"
kill -0 "$AGENT_PID" || fail "the agent died"
agent_exit_clean 10
log "pass"
exit 0
