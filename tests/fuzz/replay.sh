#!/bin/bash
# Replays every committed fuzz corpus input (tests/fuzz/corpus/TARGET/)
# through its target, built without libFuzzer by `make check`.  Proves that
# no input that ever crashed a target (each crash found is added to the
# corpus) crashes it again; in the sanitizer build, under ASan and UBSan.
set -euo pipefail
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
top_builddir=${top_builddir:-$top_srcdir}
# In the sanitizer build: libconfig's own leak (tests/fuzz/lsan.supp) is not ours.
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$top_srcdir/tests/fuzz/lsan.supp:print_suppressions=0}

for target in config view set mutate; do
	replay=$top_builddir/tests/fuzz/replay_$target
	corpus=$top_srcdir/tests/fuzz/corpus/$target
	if [ ! -x "$replay" ]; then
		echo "FAIL: $replay not built (make check builds it)" >&2
		exit 1
	fi
	n=$(find "$corpus" -type f | wc -l)
	[ "$n" -gt 0 ] || { echo "FAIL: no corpus in $corpus" >&2; exit 1; }
	out=$(timeout 300 "$replay" "$corpus") || { echo "FAIL: replay_$target: $out" >&2; exit 1; }
	[ "$out" = "replayed $n inputs" ] || { echo "FAIL: replay_$target: '$out', expected $n inputs" >&2; exit 1; }
	echo "$target: $out"
done
