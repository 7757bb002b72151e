# shellcheck shell=bash
# lib.sh - what the style and build checks of tests/style/ share: a loud
# skip (a failure under CI=true) and counted failures.  Source it after
# setting STYLE_NAME, the name the messages give; end with style_finish.
TEST_NAME=$STYLE_NAME
. "${top_srcdir:-$(dirname "${BASH_SOURCE[0]}")/../..}/tests/common.sh"

# fail WHY: counts a failure and goes on; style_finish exits 1 if any.
fail() {
	fail_later "$@"
}

style_finish() {
	[ "$test_failures" -eq 0 ] || exit 1
}
