#!/bin/bash
# Replays every committed fuzz corpus input (tests/fuzz/corpus/TARGET/)
# through its target, built without libFuzzer by `make check`.  Proves that
# no input that ever crashed a target (each crash found is added to the
# corpus) crashes it again; in the sanitizer build, under ASan and UBSan.
set -euo pipefail
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
top_builddir=${top_builddir:-$top_srcdir}
. "$top_srcdir/tests/common.sh" # fail
# In the sanitizer build: libconfig's own leak (tests/fuzz/lsan.supp) is not ours.
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$top_srcdir/tests/fuzz/lsan.supp:print_suppressions=0}

for target in config view set mutate; do
	replay=$top_builddir/tests/fuzz/replay_$target
	corpus=$top_srcdir/tests/fuzz/corpus/$target
	[ -x "$replay" ] || fail "$replay not built (make check builds it)"
	n=$(find "$corpus" -type f | wc -l)
	[ "$n" -gt 0 ] || fail "no corpus in $corpus"
	out=$(timeout 300 "$replay" "$corpus") || fail "replay_$target: $out"
	[ "$out" = "replayed $n inputs" ] || fail "replay_$target: '$out', expected $n inputs"
	echo "$target: $out"
done
