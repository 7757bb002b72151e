# shellcheck shell=bash
# common.sh - the one vocabulary of the suite's shell tests: the loud skip,
# the failure that ends the test, the failure counted for the end, a
# writer started in the background, and the deadline stretched by the load
# (fx_loaded, fx_wait).  Defined here only (tests/style/vocabulary.sh
# fails a test file that defines its own skip, fail, fail_later or
# start_writer).  Sourced by each
# folder's helper library (tests/integration/fixture.sh, tests/tools/lib.sh,
# tests/style/lib.sh) and by the standalone scripts (tests/fuzz/run.sh,
# tests/packaging/debs.sh, tests/docs/*.sh); tests/README.md says which to
# use.  Also the private Net-SNMP environment (snmp_private) every test
# that runs a Net-SNMP client or daemon sets up first, and a private
# /dev/shm (private_shm) for a test that lists it.
#
# TEST_NAME names the test in every message (default: the script's name).
# A test that cannot run says SKIP loudly and exits 77 (automake's skip),
# except under CI=true, where a missing prerequisite fails the suite.

TEST_NAME=${TEST_NAME:-$(basename "$0" .sh)}
test_failures=0

# skip WHY: a loud skip, or a failure under CI=true.  Never returns.
skip() {
	echo "=================================================================" >&2
	echo "SKIP: $TEST_NAME: $*" >&2
	echo "=================================================================" >&2
	if [ "${CI:-}" = true ]; then
		echo "FAIL: $TEST_NAME: CI=true, and a skip is a failure in CI" >&2
		exit 1
	fi
	exit 77
}

# fail_message WHY: the one failure line.
fail_message() {
	echo "FAIL: $TEST_NAME: $*" >&2
}

# fail WHY: the failure line, then what TEST_ON_FAIL shows (a command the
# folder's library may set, its output to stderr: fixture.sh's logs); ends
# the test at once with exit 1.
fail() {
	fail_message "$@"
	if [ -n "${TEST_ON_FAIL:-}" ]; then
		$TEST_ON_FAIL >&2 || true
	fi
	exit 1
}

# fail_later WHY: counts a failure and goes on; test_finish (or the
# folder's finish: style_finish, tools' finish) exits 1 if any.
fail_later() {
	fail_message "$@"
	test_failures=$((test_failures + 1))
}

# fx_loaded SECONDS: SECONDS stretched by the machine's load (the 1-minute
# load average per CPU, at least 1, at most 10), rounded up: a deadline
# that allows a loaded machine its slowness and still ends on a real hang.
fx_loaded() {
	awk -v s="$1" -v n="$(nproc)" \
		'{ f = $1 / n; if (f < 1) f = 1; if (f > 10) f = 10; t = s * f; printf "%d\n", (t == int(t)) ? t : int(t) + 1 }' \
		/proc/loadavg
}

# fx_wait SECONDS COMMAND...: polls COMMAND every 50 ms until it succeeds
# or SECONDS pass, times the machine's load per CPU (fx_loaded: 1 to 10);
# 1 if it never did.  A deadline is for liveness, and a loaded machine is
# slower at everything the test waits for (SIGHUP's reload logged after 5 s
# at load 19).  Nothing passes for it that would fail: it only waits longer
# before failing.
fx_wait() {
	local secs
	secs=$(fx_loaded "$1")
	shift
	for _ in $(seq $((secs * 20))); do
		"$@" >/dev/null 2>&1 && return 0
		sleep 0.05
	done
	return 1
}

# private_shm "$@": runs the calling test again from its start, in a
# private mount namespace whose /dev/shm is an empty tmpfs (root only: it
# skips otherwise), so that what the test lists there is its own: other
# tests, and other runs of the suite, create segments in the real one
# meanwhile.  Call it first, before anything the test would leave behind.
private_shm() {
	if [ -n "${STATCTR_PRIVATE_SHM:-}" ]; then
		mount -t tmpfs -o mode=1777 statctr-test /dev/shm || fail "mounting a private /dev/shm"
		return 0
	fi
	[ "$(id -u)" = 0 ] || skip "needs root for a private /dev/shm (a mount namespace)"
	command -v unshare >/dev/null || skip "unshare not found (util-linux)"
	unshare -m true 2>/dev/null || skip "unshare -m is not permitted here"
	STATCTR_PRIVATE_SHM=1 exec unshare -m --propagation private bash "$0" "$@"
}

# said_or_gone FILE REGEX PID: FILE has a line REGEX matches, or PID exited
# (the end of an fx_wait for a process's word: the caller tells which).
said_or_gone() { grep -q "$2" "$1" || ! kill -0 "$3" 2>/dev/null; }

# start_writer LOG PATH COMMAND...: COMMAND, a writer, in the background,
# its stdout and stderr appended to LOG, its pid in STARTED_PID; returns
# once PATH (its segment) exists.  If PATH is not there within 5 s (times
# the load per CPU, fx_loaded), stops the writer and fails the test.
start_writer() {
	local log=$1 path=$2
	shift 2
	"$@" >>"$log" 2>&1 &
	STARTED_PID=$!
	fx_wait 5 test -e "$path" && return 0
	kill "$STARTED_PID" 2>/dev/null || true
	wait "$STARTED_PID" 2>/dev/null || true
	fail "the writer did not create $path within $(fx_loaded 5) s (load $(cut -d' ' -f1 /proc/loadavg))"
}

# snmp_private DIR: the Net-SNMP clients and daemons this shell starts keep
# their state in DIR/persist (SNMP_PERSISTENT_DIR, never /var/lib/snmp),
# read no user's ~/.snmp (HOME=DIR), load no MIB module unless told (-m)
# and look for MIBs only in Debian's directories or where -M says.  The
# persistent dir's cert_indexes is made here: the first Net-SNMP program to
# find it missing creates it and says "Created directory: ..." on stderr,
# which a test reading the program's output takes for its answer.  The SMI
# cache (scripts/get-smi-mibs.sh) stays the user's, a cache by design.
snmp_private() {
	export STATCTR_SMI_CACHE="${STATCTR_SMI_CACHE:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/statctr/smi}"
	export SNMP_PERSISTENT_DIR="$1/persist" HOME="$1" MIBS=
	export MIBDIRS=/usr/share/snmp/mibs:/usr/share/snmp/mibs/iana:/usr/share/snmp/mibs/ietf
	unset SNMPCONFPATH
	mkdir -p "$SNMP_PERSISTENT_DIR" && mkdir -p -m 0700 "$SNMP_PERSISTENT_DIR/cert_indexes"
}

test_finish() {
	[ "$test_failures" -eq 0 ] || exit 1
	exit 0
}
