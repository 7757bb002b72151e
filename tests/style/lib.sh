# shellcheck shell=bash
# lib.sh - what the style and build checks of tests/style/ share: common.sh
# (skip, fail, fail_later) under the test's name.  Source it after setting
# STYLE_NAME, the name the messages give; a check that counts its failures
# (fail_later) ends with style_finish.
TEST_NAME=$STYLE_NAME
. "${top_srcdir:-$(dirname "${BASH_SOURCE[0]}")/../..}/tests/common.sh"

# style_finish: exits 1 if fail_later counted a failure.
style_finish() {
	[ "$test_failures" -eq 0 ] || exit 1
}
