#!/bin/bash
# One unit suite per library module: every lib/x.c has tests/unit/test_x.c,
# built and run by make check (tests/unit/local.mk's UNIT_TESTS), unless
# EXCEPTIONS below names the suite that holds its tests, with the reason.
# An exception whose module is gone, whose suite is missing, or whose module
# has gained a suite of its own name fails too.
STYLE_NAME=suites
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$top_srcdir/tests/style/lib.sh"

# module suite reason
EXCEPTIONS=(
	"cpuslot test_cpuslots CPU slots' suite, named for the feature; scripts/test.sh's TSan lane runs it by that name"
)

# suite_of MODULE: the exception's suite for MODULE, or nothing.
suite_of() {
	local e module suite reason
	for e in "${EXCEPTIONS[@]}"; do
		read -r module suite reason <<<"$e"
		[ "$module" != "$1" ] || { echo "$suite"; return; }
	done
}

# runs SUITE: SUITE's source exists and make check builds and runs it.
runs() {
	[ -f "$top_srcdir/tests/unit/$1.c" ] || { fail_later "tests/unit/$1.c is missing"; return; }
	grep -qE "^[[:space:]]*tests/unit/$1([[:space:]]|\\\\|$)" "$top_srcdir/tests/unit/local.mk" ||
		fail_later "tests/unit/$1 is not in tests/unit/local.mk's UNIT_TESTS"
}

shopt -s nullglob
modules=0
for f in "$top_srcdir"/lib/*.c; do
	module=$(basename "$f" .c)
	modules=$((modules + 1))
	alias=$(suite_of "$module")
	if [ -n "$alias" ]; then
		[ ! -f "$top_srcdir/tests/unit/test_$module.c" ] ||
			fail_later "lib/$module.c has tests/unit/test_$module.c: drop its exception"
		runs "$alias"
	elif [ -f "$top_srcdir/tests/unit/test_$module.c" ]; then
		runs "test_$module"
	else
		fail_later "lib/$module.c has no unit suite tests/unit/test_$module.c (nor an exception in $0)"
	fi
done
for e in "${EXCEPTIONS[@]}"; do
	read -r module suite reason <<<"$e"
	[ -f "$top_srcdir/lib/$module.c" ] ||
		fail_later "exception for lib/$module.c, which is not in the tree"
	[ -n "$reason" ] || fail_later "exception for lib/$module.c ($suite) gives no reason"
done
[ "$modules" -gt 10 ] || fail "only $modules modules found in $top_srcdir/lib"
echo "$modules lib modules, ${#EXCEPTIONS[@]} by exception"
style_finish
