#!/bin/bash
# Builds the libFuzzer targets with clang (-fsanitize=fuzzer,address,
# undefined) and runs each for a bounded time on a scratch copy of its
# committed corpus (tests/fuzz/corpus/TARGET/).
#
#   tests/fuzz/run.sh [SECONDS [TARGET...]]      (default: 30 s; config view set mutate)
#
# Targets run FUZZ_JOBS at a time (default: the number of CPUs).  Exits 0
# when no target crashed, leaked, hit undefined behaviour or timed out, and
# each reached its coverage floor (below); otherwise 1, naming the
# reproducer and how to make it a regression test, or the coverage.
# FUZZ_WORK=DIR keeps the build, the grown corpora and the logs in DIR
# (default: a temporary directory, removed on success).  Needs clang 14
# with libFuzzer (Debian: apt-get install clang libclang-rt-14-dev); a
# missing compiler is a loud SKIP (exit 77), a failure when CI=true.
set -euo pipefail
top_srcdir=$(cd "$(dirname "$0")/../.." && pwd)
seconds=${1:-${FUZZ_SECONDS:-30}}
shift || true
targets=${*:-config view set mutate}
jobs=${FUZZ_JOBS:-$(nproc)}
CC=${FUZZ_CC:-clang}

TEST_NAME=fuzz
. "$top_srcdir/tests/common.sh"

command -v "$CC" >/dev/null || skip "$CC not found (Debian: apt-get install clang libclang-rt-14-dev)"
echo 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return d && n; }' >"${TMPDIR:-/tmp}/fuzz-probe.$$.c"
if ! "$CC" -fsanitize=fuzzer -o "${TMPDIR:-/tmp}/fuzz-probe.$$" "${TMPDIR:-/tmp}/fuzz-probe.$$.c" 2>/dev/null; then
	rm -f "${TMPDIR:-/tmp}/fuzz-probe.$$"*
	skip "$CC cannot link libFuzzer (Debian: apt-get install libclang-rt-14-dev)"
fi
rm -f "${TMPDIR:-/tmp}/fuzz-probe.$$"*
command -v net-snmp-config >/dev/null || skip "net-snmp-config not found (Debian: apt-get install libsnmp-dev)"

work=${FUZZ_WORK:-$(mktemp -d "${TMPDIR:-/tmp}/statctr-fuzz.XXXXXX")}
mkdir -p "$work/obj" "$work/bin"
# The library needs only _GNU_SOURCE from the configure-generated config.h.
printf '#define _GNU_SOURCE 1\n' >"$work/config.h"

SAN="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
CFLAGS="-g -O1 -std=gnu11 -Wall -Wextra -Wno-unused-parameter -Werror $SAN \
	-I$work -I$top_srcdir/lib -I$top_srcdir/agent -I$top_srcdir/mib -I$top_srcdir/common \
	$(pkg-config --cflags libconfig)"
LIBS="$(pkg-config --libs libconfig) $(net-snmp-config --libs) -pthread"
# sources_of DIR VARIABLE: the .c files (as DIR/NAME) of a library's SOURCES
# in DIR/local.mk, so that a new source of the library is never missed here
# (the library's include common/errmsg).
sources_of() {
	sed -n "/^$2 = /,/[^\\]\$/p" "$top_srcdir/$1/local.mk" | grep -o "[a-z]*/[a-z_]*\.c" |
		sed 's|\.c$||' | tr '\n' ' '
}
LIB_SRC=$(sources_of lib lib_libstatctr_core_la_SOURCES)
MIB_SRC=$(sources_of mib mib_libstatctr_mib_la_SOURCES)
COMMON_SRC=$(sources_of common common_libstatctr_common_la_SOURCES)
# the agent's parts the targets use (not main.c): those the replay of the
# set target links (tests/fuzz/local.mk), with FUZZ_AGENT's oidmap
AGENT_SRC="agent/oidmap $(sources_of tests/fuzz tests_fuzz_replay_set_SOURCES | tr ' ' '\n' | grep '^agent/' | tr '\n' ' ')"

echo "=== building the fuzz targets with $($CC --version | head -1)"
# obj DIR/NAME: its object file.
obj() { echo "$work/obj/${1/\//_}.o"; }
# objs DIR/NAME...: their objects, each once.
objs() { printf '%s\n' "$@" | sort -u | while read -r f; do printf '%s ' "$(obj "$f")"; done; }
# Each source compiled once, $jobs at a time, instrumented for coverage, not
# yet linked with libFuzzer; xargs fails (set -e stops) when one does.
# shellcheck disable=SC2086,SC2016 # word lists; $1, $2 are the inner shell's
printf '%s\n' $LIB_SRC $AGENT_SRC $MIB_SRC $COMMON_SRC | sort -u |
	while read -r f; do echo "$top_srcdir/$f.c $(obj "$f")"; done |
	CC=$CC CFLAGS=$CFLAGS xargs -P "$jobs" -n 2 \
		sh -c '$CC $CFLAGS -fsanitize=fuzzer-no-link -c "$1" -o "$2"' compile
# shellcheck disable=SC2046,SC2086 # word lists on purpose
for t in $targets; do
	case $t in
	config) srcs="$LIB_SRC agent/oidmap $MIB_SRC" ;;
	view | mutate) srcs="$LIB_SRC" ;;
	set) srcs="$LIB_SRC $AGENT_SRC $COMMON_SRC $MIB_SRC" ;;
	*) echo "unknown target $t (config, view, set, mutate)" >&2; exit 2 ;;
	esac
	# shellcheck disable=SC2086
	"$CC" $CFLAGS -fsanitize=fuzzer "$top_srcdir/tests/fuzz/fuzz_$t.c" $(objs $srcs) $LIBS \
		-o "$work/bin/fuzz_$t"
done

# Coverage floors: a target must end with at least this many edges covered
# (libFuzzer's last "cov:" figure), or it has stopped reaching its parser
# (fuzz_config once handed the loader a /proc/self/fd link it refuses and
# covered 44 edges).  About 3/4 of what the committed corpus alone covers
# (the INITED line, reached in a few seconds even on a loaded machine),
# measured with clang 14 on Debian 12: config 600, view 363, set 224,
# mutate 312.  Raise them when a corpus or a parser grows.
declare -A cov_floor=([config]=450 [view]=270 [set]=170 [mutate]=230)

# covered TARGET: the last coverage figure libFuzzer printed, 0 when none.
covered() {
	grep -Eo 'cov: [0-9]+' "$work/$1.log" | tail -n 1 | grep -Eo '[0-9]+' || echo 0
}

# run TARGET: one bounded libFuzzer run; the status is the verdict.
run() {
	local t=$1 max_len=4096
	[ "$t" = view ] && max_len=65536
	mkdir -p "$work/corpus/$t" "$work/artifacts/$t"
	cp -n "$top_srcdir/tests/fuzz/corpus/$t/"* "$work/corpus/$t/" 2>/dev/null || true
	(cd "$work" && ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 \
		LSAN_OPTIONS=suppressions=$top_srcdir/tests/fuzz/lsan.supp:print_suppressions=0 \
		UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		"$work/bin/fuzz_$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
		-max_len="$max_len" -print_final_stats=1 -artifact_prefix="$work/artifacts/$t/" \
		"$work/corpus/$t") >"$work/$t.log" 2>&1
}

echo "=== fuzzing $targets for $seconds s each, $jobs at a time"
declare -A pids
for t in $targets; do
	while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
	run "$t" &
	pids[$t]=$!
done
failed=0
for t in $targets; do
	if wait "${pids[$t]}"; then
		cov=$(covered "$t")
		if [ "$cov" -lt "${cov_floor[$t]}" ]; then
			failed=1
			echo "FAIL: fuzz target $t covered $cov edges, below its floor ${cov_floor[$t]}: it no longer reaches its parser (log: $work/$t.log)" >&2
			continue
		fi
		echo "$t: ok, $(grep -Eo 'stat::number_of_executed_units: *[0-9]+' "$work/$t.log" | grep -Eo '[0-9]+$') runs, $cov edges (floor ${cov_floor[$t]}), corpus $(find "$work/corpus/$t" -type f | wc -l) inputs"
	else
		failed=1
		echo "FAIL: fuzz target $t (log: $work/$t.log)" >&2
		grep -E -m 20 'ERROR|SUMMARY|==[0-9]+==|runtime error|Test unit written' "$work/$t.log" >&2
		for a in "$work/artifacts/$t/"*; do
			[ -e "$a" ] || continue
			echo "  reproducer: $a" >&2
			echo "  make it a regression test: cp '$a' tests/fuzz/corpus/$t/ (then fix; make check replays it)" >&2
		done
	fi
done
if [ "$failed" = 0 ] && [ -z "${FUZZ_WORK:-}" ]; then
	rm -rf "$work"
fi
exit "$failed"
