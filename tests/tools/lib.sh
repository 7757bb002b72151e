# lib.sh - shared by the statctl tests: paths, checks, a writer to read.
#
# Sourced by tests/tools/*.sh, which `make check` runs from the top build
# directory with $srcdir set.  Every test asserts values; one that cannot
# run says SKIP loudly (common.sh's skip) and exits 77, except under
# CI=true where a missing prerequisite is a failure (exit 1).  A check
# that does not hold is counted (fail_later) and the test goes on; finish
# ends it, non-zero if any failed.

set -u
srcdir=${srcdir:-.}
top_builddir=${top_builddir:-.}
STATCTL=${STATCTL:-$top_builddir/tools/statctl}
READER=${READER:-$top_builddir/examples/reader}
PIPELINE=${PIPELINE:-$top_builddir/examples/pipeline}
TOOLS_TESTDIR=$srcdir/tests/tools
FORMATS="python3 $TOOLS_TESTDIR/formats.py"
test_name=$(basename "$0" .sh)
TEST_NAME=$test_name
. "$srcdir/tests/common.sh"

pass() {
	echo "ok: $*"
}

# check DESCRIPTION EXPECTED ACTUAL
check() {
	if [ "$2" = "$3" ]; then
		pass "$1"
	else
		fail_later "$1: expected '$2', got '$3'"
	fi
}

# check_status DESCRIPTION EXPECTED_STATUS COMMAND...: runs COMMAND, output in $out/$err.
check_status() {
	desc=$1 want=$2
	shift 2
	set +e
	"$@" >"$workdir/out" 2>"$workdir/err"
	got=$?
	set -e
	out=$(cat "$workdir/out")
	err=$(cat "$workdir/err")
	check "$desc (exit status)" "$want" "$got"
}

finish() {
	if [ "$test_failures" -ne 0 ]; then
		echo "$test_name: $test_failures failures" >&2
		exit 1
	fi
	echo "$test_name: all passed"
	exit 0
}

need_program() {
	[ -x "$1" ] || skip "$1 is not built"
}

need_command() {
	command -v "$1" >/dev/null 2>&1 || skip "$1 is not installed"
}

workdir=$(mktemp -d "${TMPDIR:-/tmp}/statctl-$test_name.XXXXXX")
writer_pid=
cleanup() {
	if [ -n "$writer_pid" ]; then
		kill "$writer_pid" 2>/dev/null || true
		wait "$writer_pid" 2>/dev/null || true
	fi
	rm -rf "$workdir"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
set -e

need_program "$STATCTL"
need_command python3

# make_config OUT SEGMENT: conf/statctr.conf with the segment renamed, row
# names that need escaping, and a description with quotes and backslashes.
make_config() {
	sed -e "s/name = \"dataplane\";/name = \"$2\";/" \
	    -e 's/rows = \[ "dp0", "dp1", "dp2", "dp3" \];/rows = [ "dp0", "eth\\"1", "eth\\\\2", "dp3" ];/' \
	    -e 's/description = "Packets dropped";/description = "Packets \\"dropped\\" by a\\\\b";/' \
	    "$srcdir/conf/statctr.conf" >"$1"
}

# settled_writer SEGMENT THREADS PACKETS [-g ...]: runs examples/pipeline
# on a private copy of the config until it has written THREADS x PACKETS
# packets and stopped (values stable).  Sets $segment, $config and
# $writer_pid.  Its stdout is the caller's (tests read its log lines).
settled_writer() {
	need_program "$PIPELINE"
	need_program "$READER"
	segment=$1
	config=$workdir/statctr.conf
	make_config "$config" "$segment"
	threads=$2 packets=$3
	shift 3
	"$PIPELINE" -c "$config" -s "$segment" -t "$threads" -n "$packets" "$@" \
		2>"$workdir/writer.log" &
	writer_pid=$!
	want=$((threads * packets))
	for _ in $(seq 1 200); do
		if "$READER" -1 "$segment" >"$workdir/reader.1" 2>/dev/null &&
		   grep -qx "totals.packets.all $want" "$workdir/reader.1"; then
			sleep 0.1
			"$READER" -1 "$segment" >"$workdir/reader.2" 2>/dev/null
			cmp -s "$workdir/reader.1" "$workdir/reader.2" && return 0
		fi
		kill -0 "$writer_pid" 2>/dev/null || break
		sleep 0.1
	done
	cat "$workdir/writer.log" >&2
	fail "the writer did not reach $want packets"
}

# wait_recorded N: hist_rec (its pid $writer_pid, its output $workdir/rec.out
# and rec.err) printed "recorded N" after its Nth batch (bounded: 10 s
# times the load per CPU).
wait_recorded() {
	fx_wait 10 said_or_gone "$workdir/rec.out" "^recorded $1\$" "$writer_pid" || true
	grep -qx "recorded $1" "$workdir/rec.out" && return 0
	cat "$workdir/rec.err" >&2
	fail "the writer did not record batch $1"
}
