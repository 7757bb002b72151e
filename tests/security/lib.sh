# lib.sh - shared by the attack tests (tests/security/*.sh); sourced.
#
# Each test plays one party of the threat model in docs/security.md against
# real processes.  It needs root to create that party: three users and a
# group, unique to this test run (so tests may run in parallel) and removed
# by the EXIT trap:
#   SEC_WRITER  owns the segments (the data plane's user);
#   SEC_RESETTER a member of SEC_GROUP, the group of the segment files, so
#               it may read segments and write their control files;
#   SEC_OTHER   an unrelated local user.
# Without root the test skips loudly; under CI=true a skip is a failure.
#
# `sec_as USER PROG ARGS...` runs a copied binary (statctl, pipeline,
# reader, txn_writer, statctr-agentx, and any built test program named in
# SEC_PROGRAMS) as USER with exactly USER's groups.  $TMP is traversable by
# all; $SEC_SHM (mode 1777, like /dev/shm) is the shared directory where
# an attacker may plant files.

. "${top_srcdir:-$(dirname "$0")/../..}/tests/fault/lib.sh"

fx_need setpriv useradd userdel groupadd groupdel
[ "$(id -u)" = 0 ] || skip "needs root to create the users of the threat model (CI runs as root)"

SEC_TAG=sc$$
SEC_GROUP=${SEC_TAG}g
SEC_WRITER=${SEC_TAG}w
SEC_RESETTER=${SEC_TAG}r
SEC_OTHER=${SEC_TAG}o

sec_cleanup() {
	local u
	fx_cleanup
	for u in "$SEC_WRITER" "$SEC_RESETTER" "$SEC_OTHER"; do
		pkill -KILL -u "$u" 2>/dev/null || true
		userdel "$u" 2>/dev/null || true
	done
	groupdel "$SEC_GROUP" 2>/dev/null || true
}
trap sec_cleanup EXIT

groupadd "$SEC_GROUP" || fail "groupadd $SEC_GROUP"
useradd -M -N -g "$SEC_GROUP" -s /usr/sbin/nologin -d /nonexistent "$SEC_WRITER" ||
	fail "useradd $SEC_WRITER"
useradd -M -N -g "$SEC_GROUP" -s /usr/sbin/nologin -d /nonexistent "$SEC_RESETTER" ||
	fail "useradd $SEC_RESETTER"
useradd -M -N -g nogroup -s /usr/sbin/nologin -d /nonexistent "$SEC_OTHER" ||
	fail "useradd $SEC_OTHER"

chmod 0711 "$TMP"
SEC_SHM=$TMP/shm
mkdir -m 1777 "$SEC_SHM"
mkdir -m 0755 "$TMP/bin"

# The real binaries (not libtool wrappers) and the library, where the
# users can run them whatever the permissions of the build tree.
for prog in examples/pipeline examples/reader tools/statctl tests/fault/txn_writer \
	agent/statctr-agentx ${SEC_PROGRAMS:-}; do
	[ -e "$top_builddir/$prog" ] || continue
	real=$("$top_builddir/libtool" --mode=execute echo "$top_builddir/$prog")
	cp "$real" "$TMP/bin/$(basename "$prog")"
done
cp -P "$top_builddir"/lib/.libs/libstatctr.so* "$TMP/bin/"
chmod -R a+rX "$TMP/bin"

# sec_as USER PROGRAM ARGS...: runs a copied binary as USER with USER's groups.
sec_as() {
	local user=$1 prog=$2
	shift 2
	setpriv --reuid="$user" --regid="$(id -g "$user")" --init-groups \
		env LD_LIBRARY_PATH="$TMP/bin" ${SEC_ENV:-} "$TMP/bin/$prog" "$@"
}

# sec_spawn USER LOG PROGRAM ARGS...: sec_as in the background, output to
# LOG; SEC_PID is the program's own pid (setpriv and env exec it), tracked.
sec_spawn() {
	local user=$1 log=$2 prog=$3
	shift 3
	setpriv --reuid="$user" --regid="$(id -g "$user")" --init-groups \
		env LD_LIBRARY_PATH="$TMP/bin" ${SEC_ENV:-} "$TMP/bin/$prog" "$@" >>"$log" 2>&1 &
	SEC_PID=$!
	fx_track "$SEC_PID"
}

# sec_config [AGENT-SETTINGS]: conf/statctr.conf with the dataplane segment
# at $SEC_SHM/dataplane, group SEC_GROUP, readable by all.
sec_config() {
	sed -e "s|name = \"dataplane\";|name = \"dataplane\"; path = \"$SEC_SHM/dataplane\"; group = \"$SEC_GROUP\";|" \
		"$top_srcdir/conf/statctr.conf" >"$TMP/statctr.conf"
	printf 'agent = { %s };\n' "${1:-interval_ms = 100; allow_reset = true;}" >>"$TMP/statctr.conf"
	chmod 0644 "$TMP/statctr.conf"
	SEGMENT=$SEC_SHM/dataplane
}

# sec_writer USER ARGS...: the example pipeline writer, as USER, in the background.
sec_writer() {
	local user=$1
	shift
	sec_spawn "$user" "$TMP/writer.log" pipeline -c "$TMP/statctr.conf" "$@"
	WRITER_PID=$SEC_PID
	fx_wait 5 test -e "$SEGMENT" || fail "the writer did not create $SEGMENT"
}

# sec_bounded SECONDS COMMAND...: runs COMMAND; fails the test if it has not
# ended within SECONDS (a hang is a failure, not a slow pass).  Returns
# COMMAND's status.
sec_bounded() {
	local secs=$1 rc=0
	shift
	timeout -k 1 "$secs" "$@" || rc=$?
	[ "$rc" -ne 124 ] && [ "$rc" -ne 137 ] || fail "hung for ${secs}s: $*"
	return "$rc"
}
