#!/bin/bash
# tests/python/pytest.sh - the Python reader's tests (test_statctr.py) under
# pytest, with the package from the source tree (python/) and the library
# and test writers from the build tree.  A Python without pytest skips
# loudly (a failure under CI=true); pytest's "no tests ran" (exit 5) fails.
set -u
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
top_builddir=${top_builddir:-.}
# shellcheck disable=SC2034 # read by lib.sh
STYLE_NAME=python
. "$top_srcdir/tests/style/lib.sh"

# The first Python with pytest: $PYTHON, python3 on PATH, Debian's.
py=""
for cand in ${PYTHON:-} python3 /usr/bin/python3; do
	if "$cand" -c 'import pytest' >/dev/null 2>&1; then
		py=$cand
		break
	fi
done
[ -n "$py" ] || skip "no python3 with pytest (Debian: apt-get install python3-pytest)"
lib=$top_builddir/lib/.libs/libstatctr.so.1
[ -f "$lib" ] || skip "no $lib (configured with --disable-shared?)"

export PYTHONPATH=$top_srcdir/python${PYTHONPATH:+:$PYTHONPATH}
export STATCTR_LIBRARY=$lib STATCTR_TEST_BUILDDIR=$top_builddir STATCTR_TEST_SRCDIR=$top_srcdir
export PYTHONDONTWRITEBYTECODE=1
case ${SANITIZER:-none} in
asan)
	# The instrumented library needs its runtime (the one it links) first
	# in the process; Python's own allocations are not this suite's leaks.
	LD_PRELOAD=$(ldd "$lib" | awk '/lib(clang_rt\.)?asan/ { print $3; exit }')
	[ -f "$LD_PRELOAD" ] || skip "no ASan runtime in ldd $lib"
	export LD_PRELOAD ASAN_OPTIONS=detect_leaks=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}
	;;
tsan) skip "a TSan build's library does not load into python (checked in plain and ASan builds)" ;;
esac

# Bounded: a writer a failed test left running must fail the run, not hang it.
timeout -k 10 600 "$py" -m pytest -q -p no:cacheprovider -rs "$top_srcdir/tests/python"
rc=$?
[ "$rc" -ne 124 ] && [ "$rc" -ne 137 ] || echo "FAIL: python: pytest did not end within 600 s" >&2
[ "$rc" -ne 5 ] || echo "FAIL: python: pytest collected no tests" >&2
[ "$rc" -ne 5 ] || exit 1
exit "$rc"
