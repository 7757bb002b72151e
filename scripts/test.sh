#!/bin/sh
# Runs the whole statctr test suite from a source tree:
#   1. a normal build and `make check` (unit and integration tests; with
#      the busy lane, the model check only: the lane runs the others),
#      then the demo for 7 s (live counters over SNMP),
#   2. libFuzzer targets for 30 s each (clang), then make check under
#      ASan+UBSan (--enable-sanitizers),
#   3. the concurrency tests under TSan (--enable-tsan),
#   4. the benchmark harness smoke test, `make distcheck` (its make check
#      runs DISTCHECK_TESTS, Makefile.am; the tarball must hold every file
#      git tracks), and README.md's prefix install run as written
#      (tests/docs/prefix.sh),
#   5. the Debian packages built, checked with lintian, installed, run
#      and purged (tests/packaging/debs.sh; root only),
#   6. with --busy, or under CI=true (.ci/run), the busy lane (--busy-only:
#      it alone): `make check` of a default build, from a
#      fresh copy of the tree in a directory only its owner
#      may enter (build/busy, 0700), every test but the model check
#      (make list-loaded-tests), beside CPU hogs that keep every CPU
#      busy (stress-ng --cpu, two hogs per CPU), and, as root, in a mount
#      namespace whose /var/lib/snmp is empty: the suite must pass on a
#      busy machine that no earlier run prepared, and write nothing there
#      (one more test).  BUSY_TESTS="..." narrows it to those tests.
#   7. under CI=true, as root: nothing any phase wrote to the machine's
#      /var/lib/snmp (one more test).
# Build trees go to build/.  The last line is "N passed, N failed", counting
# every test of every phase (a phase that fails outside a test counts as one).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 2
busy=no
[ "${CI:-}" = true ] && busy=yes
case ${1:-} in
--busy) busy=yes ;;
--busy-only) busy=only ;;
"") ;;
*)
	echo "usage: scripts/test.sh [--busy | --busy-only]" >&2
	exit 2
	;;
esac
jobs=${JOBS:-$(nproc)}
# make check's jobs: two per CPU, as most tests wait (on snmpd, a pass, a
# poll) more than they compute; the suite passes at load 40 on 2 CPUs.
check_jobs=${CHECK_JOBS:-$((2 * jobs))}
passed=0
failed=0
summary= # the failed tests' names and first failure messages, printed last

# remember TEXT: one entry of the summary, which comes last, where a CI
# tail shows it.
remember() {
	summary="$summary
--- $1"
}

# failures NAME LOG: shows LOG's failed tests (a test-suite.log) and
# remembers their first messages (a script's FAIL: lines, CUnit's failed
# asserts).
failures() {
	sed -n '/^FAIL\|^ERROR/,+40p' "$2" | head -150
	remember "$1:
$(grep -E '^(FAIL|ERROR)|^ +[0-9]+\. .*:[0-9]+ +- ' "$2" | head -n 12)"
}

# Adds one tree's test-suite.log to the totals and shows its failures.
tally() {
	log=$1/test-suite.log
	if [ ! -f "$log" ]; then
		failed=$((failed + 1))
		return
	fi
	grep -E '^# (TOTAL|PASS|SKIP|FAIL|ERROR)' "$log"
	p=$(sed -n 's/^# PASS: *//p' "$log")
	f=$(sed -n 's/^# FAIL: *//p' "$log")
	e=$(sed -n 's/^# ERROR: *//p' "$log")
	passed=$((passed + p))
	failed=$((failed + f + e))
	[ $((f + e)) -eq 0 ] || failures "$name ($1)" "$log"
}

# build NAME DIR CONFIGURE-ARGS: configure and make in DIR; false, and
# counted as one failure, if either fails.
build() {
	mkdir -p "$2"
	# shellcheck disable=SC2086 # CONFIGURE-ARGS: words
	(cd "$2" && "$top/configure" -q $3 >configure.out 2>&1 && make -j"$jobs" >make.out 2>&1) &&
		return 0
	echo "=== $1: build FAILED"
	remember "$1: build FAILED"
	tail -n 40 "$2/configure.out" "$2/make.out"
	failed=$((failed + 1))
	return 1
}

# phase NAME DIR CONFIGURE-ARGS [make check arguments...]
phase() {
	name=$1 dir=$2 args=$3 t0=$(date +%s)
	shift 3
	echo "=== $name"
	build "$name" "$dir" "$args" || return
	(cd "$dir" && make -j"$check_jobs" check "$@" >check.out 2>&1)
	tally "$dir"
	echo "=== $name: $(($(date +%s) - t0)) s"
}

# step NAME COMMAND...: one pass/fail outside the test harness.
step() {
	name=$1 t0=$(date +%s)
	shift
	echo "=== $name"
	if "$@"; then
		echo "=== $name: $(($(date +%s) - t0)) s"
		passed=$((passed + 1))
	else
		echo "=== $name: FAILED"
		failed=$((failed + 1))
		remember "$name: FAILED"
	fi
}

# The README's first command, minus the install: the demo must show live
# counters over SNMP (dp0's rxPackets rising between refreshes).  Its
# snmptable keeps its state in build/, not /var/lib/snmp.
demo_smoke() {
	out=$top/build/demo.out
	rm -rf build/demo-snmp && mkdir build/demo-snmp && mkdir -m 0700 build/demo-snmp/cert_indexes
	SNMP_PERSISTENT_DIR=$top/build/demo-snmp \
		DEMO_BUILD=$top/build/default DEMO_SECONDS=7 DEMO_PORT=$((20000 + $$ % 20000)) \
		./scripts/demo.sh >"$out" 2>&1 || { tail -n 30 "$out"; return 1; }
	awk '$1 == "dp0" { n++; if (n == 1) first = $4; last = $4 }
		END { printf "demo: %d refreshes, dp0 rxPackets %s -> %s\n", n, first, last
		      exit !(n >= 2 && last + 0 > first + 0 && first + 0 >= 0) }' "$out" ||
		{ tail -n 30 "$out"; return 1; }
}

distcheck() {
	# shellcheck disable=SC2016 # the sub-make expands it
	if ! (cd build/default && make -j"$jobs" distcheck TESTS='$(DISTCHECK_TESTS)' >distcheck.out 2>&1); then
		tail -80 build/default/distcheck.out
		# A failed distcheck leaves its tree: show the failed tests' logs.
		for log in build/default/statctr-*/_build/sub/test-suite.log; do
			[ -f "$log" ] && failures "make distcheck, its make check" "$log"
		done
		return 1
	fi
	grep -E '^# (TOTAL|PASS|FAIL|ERROR)' build/default/distcheck.out
	dist_complete
}

# dist_complete: the tarball holds every file git tracks, but these
# (nothing builds, installs or tests with them).
DIST_LEAVES_OUT='.gitignore m4/.gitkeep debian/statctr-agentx.dirs'
dist_complete() {
	git rev-parse --is-inside-work-tree >/dev/null 2>&1 || return 0
	tar -tzf build/default/statctr-*.tar.gz | sed 's|^[^/]*/||' | LC_ALL=C sort >build/dist.list || return 1
	# shellcheck disable=SC2086 # one word per file
	printf '%s\n' $DIST_LEAVES_OUT >build/dist.leaves
	missing=$(git ls-files | grep -vxF -f build/dist.leaves | LC_ALL=C sort | LC_ALL=C comm -23 - build/dist.list)
	[ -z "$missing" ] && return 0
	echo "the tarball leaves out files git tracks (EXTRA_DIST?):"
	echo "$missing"
	return 1
}

# export_tree DIR: the files git knows (tracked and new, not ignored) as they
# are in the work tree, what a commit of it would build; without git (an
# unpacked tarball) the whole tree but build/.
export_tree() {
	mkdir -p "$1"
	if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
		git -c core.quotePath=false ls-files -co --exclude-standard | while IFS= read -r f; do
			if [ -e "$f" ]; then printf '%s\n' "$f"; fi
		done | tar -T - -cf - | tar -C "$1" -xf -
	else
		tar --exclude=./build --exclude='./statctr-*' -cf - . | tar -C "$1" -xf -
	fi
}

# fresh_check BUILD MAKE-ARGS...: make in BUILD, as root in a mount
# namespace where /var/lib/snmp is an empty tmpfs; writes
# BUILD/snmp-left.txt if a test left anything there.
fresh_check() {
	# shellcheck disable=SC2016 # expanded by the inner shell
	unshare -m --propagation private sh -c '
		mount -t tmpfs -o mode=0755,size=16m statctr-fresh /var/lib/snmp || exit 3
		cd "$1" && shift && make "$@" >check.out 2>&1
		find /var/lib/snmp -mindepth 1 >snmp-left.txt
		[ -s snmp-left.txt ] || rm -f snmp-left.txt' sh "$@"
}

busy_lane() {
	# Twice as many hogs as CPUs (issue 36), beside make check's two jobs
	# per CPU: a load of about 8 on 2 CPUs.
	n=$((2 * $(nproc)))
	name="busy lane: make check beside stress-ng --cpu $n"
	echo "=== $name"
	if ! command -v stress-ng >/dev/null 2>&1; then
		echo "=== $name: FAILED: no stress-ng (scripts/install-deps.sh installs it)"
		remember "$name: no stress-ng"
		failed=$((failed + 1))
		return
	fi
	lane=$top/build/busy b=$top/build/busy/statctr/b
	if ! { rm -rf "$lane" && mkdir -p "$top/build" && mkdir -m 0700 "$lane"; }; then
		echo "=== $name: FAILED: cannot create $lane"
		remember "$name: cannot create $lane"
		failed=$((failed + 1))
		return
	fi
	t0=$(date +%s)
	export_tree "$lane/statctr"
	# Everything make check builds, built before the hogs start (TESTS=: none run).
	if ! (cd "$lane/statctr" && ./autogen.sh && mkdir b && cd b && ../configure -q &&
		make -j"$jobs" && make -j"$jobs" check TESTS=) >"$lane/build.out" 2>&1; then
		echo "=== $name: build FAILED"
		remember "$name: build FAILED"
		tail -n 40 "$lane/build.out"
		failed=$((failed + 1))
		return
	fi
	t1=$(date +%s)
	stress-ng --cpu "$n" --timeout 5400 >"$lane/stress-ng.out" 2>&1 &
	hogs=$!
	trap 'kill $hogs 2>/dev/null' EXIT
	load0=$(cut -d' ' -f1-3 /proc/loadavg)
	set -- -j"$check_jobs" check "TESTS=${BUSY_TESTS:-$(cd "$b" && make -s list-loaded-tests | tr '\n' ' ')}"
	if [ "$(id -u)" -eq 0 ] && [ -d /var/lib/snmp ] && command -v unshare >/dev/null 2>&1; then
		fresh=yes
		fresh_check "$b" "$@" || fresh=failed
	else
		fresh=no
		(cd "$b" && make "$@" >check.out 2>&1)
	fi
	load1=$(cut -d' ' -f1-3 /proc/loadavg)
	kill "$hogs" 2>/dev/null
	wait "$hogs" 2>/dev/null
	trap - EXIT
	echo "=== $name: built in $((t1 - t0)) s, make check $(($(date +%s) - t1)) s; load $load0 at its start, $load1 at its end"
	tally "$b"
	name="fresh machine: an empty /var/lib/snmp, the tree in a 0700 directory"
	echo "=== $name"
	case $fresh in
	yes)
		if [ -f "$b/snmp-left.txt" ]; then
			echo "=== $name: FAILED: the suite wrote to /var/lib/snmp:"
			cat "$b/snmp-left.txt"
			remember "$name: the suite wrote to /var/lib/snmp: $(head -n 3 "$b/snmp-left.txt" | tr '\n' ' ')"
			failed=$((failed + 1))
		else
			echo "=== $name: nothing was written there"
			passed=$((passed + 1))
		fi
		;;
	failed)
		echo "=== $name: FAILED: cannot mount an empty /var/lib/snmp in a mount namespace"
		remember "$name: FAILED: no mount namespace"
		failed=$((failed + 1))
		;;
	*)
		echo "=================================================================="
		echo "SKIP: $name: needs root, unshare and /var/lib/snmp (the lane ran on this machine's)"
		echo "=================================================================="
		if [ "${CI:-}" = true ]; then failed=$((failed + 1)); fi
		;;
	esac
}

# Under CI=true, as root: no phase writes to the machine's /var/lib/snmp
# (the busy lane's fresh-machine check covers make check alone; the
# benchmark's Net-SNMP clients once created cert_indexes there).
snmp_stamp=
if [ "${CI:-}" = true ] && [ "$(id -u)" -eq 0 ] && [ "$busy" != only ]; then
	mkdir -p build && snmp_stamp=$top/build/snmp.stamp && touch "$snmp_stamp"
fi
untouched_snmp() {
	[ -d /var/lib/snmp ] || return 0
	written=$(find /var/lib/snmp -mindepth 1 -newer "$snmp_stamp" 2>/dev/null | head -n 5)
	[ -z "$written" ] && return 0
	echo "written to /var/lib/snmp during the run: $written"
	return 1
}

# --busy-only: the busy lane alone (phase 6), from the tree as it is.
[ "$busy" = only ] && {
	busy_lane
	echo
	[ -z "$summary" ] || echo "=== failed tests$summary"
	echo "$passed passed, $failed failed"
	[ "$failed" -eq 0 ]
	exit
}
[ -f config.status ] && make distclean >/dev/null 2>&1
./autogen.sh >build-autogen.out 2>&1 || { cat build-autogen.out; exit 2; }
rm -f build-autogen.out
if [ "$busy" = no ]; then
	phase "build and make check" build/default ""
else
	# shellcheck disable=SC2016 # make expands it
	phase "build and the model check (the other tests: the busy lane, last)" build/default "" \
		TESTS='$(MODEL_TESTS)'
fi
step "demo (scripts/demo.sh, 7 s)" demo_smoke
step "fuzzing, 30 s per target" sh -c 'tests/fuzz/run.sh 30 >build/fuzz.out 2>&1 || { tail -n 60 build/fuzz.out; exit 1; }'
phase "ASan+UBSan make check" build/asan "--enable-sanitizers"
phase "TSan concurrency tests" build/tsan "--enable-tsan" \
	TESTS="tests/unit/test_stress tests/unit/test_snapshot tests/unit/test_tear tests/unit/test_reset tests/unit/test_writer tests/unit/test_hostile tests/unit/test_rows tests/unit/test_hist tests/unit/test_cpuslots tests/unit/test_epoch"
if [ -x bench/run.sh ]; then
	step "benchmark smoke test" sh -c "cd build/default && make -j$jobs bench-quick >bench.out 2>&1 || { tail -40 bench.out; exit 1; }"
fi
step "make distcheck" distcheck
step "README's prefix install (tests/docs/prefix.sh)" sh -c 'tests/docs/prefix.sh >build/prefix.out 2>&1 || { tail -n 40 build/prefix.out; exit 1; }'
# The Debian packages: build, lintian, install, run, purge (needs root).
if [ "$(id -u)" -eq 0 ]; then
	step "Debian packages (tests/packaging/debs.sh)" sh -c 'tests/packaging/debs.sh >build/debs.out 2>&1 || { tail -n 60 build/debs.out; exit 1; }'
	tail -n 1 build/debs.out
elif [ "${CI:-}" = true ]; then
	echo "=== Debian packages: FAILED (CI=true and not root)"
	failed=$((failed + 1))
else
	echo "=================================================================="
	echo "SKIP: Debian packages: tests/packaging/debs.sh needs root"
	echo "=================================================================="
fi
[ "$busy" = no ] || busy_lane
[ -z "$snmp_stamp" ] || step "nothing written to /var/lib/snmp by any phase" untouched_snmp
if [ -n "$summary" ]; then
	echo
	echo "=== failed tests$summary"
fi
echo
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
