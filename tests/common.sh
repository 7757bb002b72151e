# shellcheck shell=bash
# common.sh - what every shell test of the suite shares: the loud skip, the
# failure line, and a counted failure.  Sourced by each folder's helper
# library (tests/integration/fixture.sh, tests/tools/lib.sh,
# tests/style/lib.sh) and by the standalone scripts (tests/fuzz/run.sh,
# tests/packaging/debs.sh); tests/README.md says which to use.
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

# fail_later WHY: counts a failure and goes on; test_finish exits 1 if any.
fail_later() {
	fail_message "$@"
	test_failures=$((test_failures + 1))
}

test_finish() {
	[ "$test_failures" -eq 0 ] || exit 1
	exit 0
}
