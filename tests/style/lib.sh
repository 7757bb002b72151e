# shellcheck shell=bash
# lib.sh - what the style and build checks of tests/style/ share: a loud
# skip (a failure under CI=true) and counted failures.  Source it after
# setting STYLE_NAME, the name the messages give; end with style_finish.
failures=0

skip() {
	echo "=================================================================" >&2
	echo "SKIP: $STYLE_NAME: $*" >&2
	echo "=================================================================" >&2
	[ "${CI:-}" = true ] && { echo "FAIL: CI=true, and a skip is a failure in CI" >&2; exit 1; }
	exit 77
}

# fail WHY: counts a failure and goes on; style_finish exits 1 if any.
fail() {
	echo "FAIL: $STYLE_NAME: $*" >&2
	failures=$((failures + 1))
}

style_finish() {
	[ "$failures" -eq 0 ] || exit 1
}
