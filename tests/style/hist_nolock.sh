#!/bin/bash
# Issue 14's cost contract for statctr_hist_record(), checked in compiled
# code: bench/bench_hist's loops, which are what a user's build gets from
# the inline fast path of lib/statctr.h.
#
# 1. No locked instruction: loop_statctr_record (records outside a
#    transaction), loop_statctr_txn4 (4 records per transaction) and every
#    function they call hold no lock-prefixed instruction and no xchg (a
#    memory xchg is locked without a prefix).  Not followed:
#    statctr_slot_serve_copy(), the out-of-line copy service that
#    statctr_txn_end() calls at most every 16th transaction (its locked
#    instructions, if any, are listed).  Positive control: the same
#    detector must find statctr_shared_add()'s locked add.
# 2. 64 buckets are not 64 comparisons: under callgrind, the search's
#    compare (a cmp of the value with bounds[i], an 8-byte scaled load)
#    runs exactly log2(2 x half) times per record, 7 for 64 buckets and 5
#    for 16, in statctr_hist_record() and in the hand-written per-thread
#    histograms alike; the linear search's count is printed beside it.
set -euo pipefail
top_builddir=${top_builddir:-.}
STYLE_NAME=hist_nolock
. "${top_srcdir:-$(dirname "$0")/../..}/tests/style/lib.sh"
bin=$top_builddir/bench/bench_hist

command -v objdump >/dev/null || skip "objdump not found (Debian: apt-get install binutils)"
[ -x "$bin" ] || fail "$bin not built"
if [ "${SANITIZER:-none}" != none ]; then
	echo "note: $SANITIZER build: its instrumented loops are not the fast path users get; checked in plain builds"
	exit 0
fi

CLOSURE_SKIP=statctr_slot_serve_copy
. "${top_srcdir:-$(dirname "$0")/../..}/tests/style/disasm.sh"

control=$(locked statctr_shared_add)
if [ -z "$control" ]; then
	fail_later "the detector finds no locked instruction in statctr_shared_add(): it sees nothing"
else
	echo "ok: control: statctr_shared_add() holds $(wc -l <<<"$control") locked instruction(s): $(head -n 1 <<<"$control")"
fi

for loop in loop_statctr_record loop_statctr_txn4; do
	mapfile -t fns < <(closure "$loop")
	n=$(for f in "${fns[@]}"; do insns "$f"; done | wc -l)
	[ "$n" -ge 20 ] || fail_later "$loop: only $n instructions disassembled from ${fns[*]}"
	bad=$(locked "${fns[@]}")
	if [ -n "$bad" ]; then
		fail_later "$loop: locked instruction(s): $bad"
	else
		echo "ok: $loop: $n instructions in ${fns[*]}, none locked, no xchg"
	fi
done
serve=$(locked statctr_slot_serve_copy)
echo "info: statctr_slot_serve_copy() (out of line: statctr_txn_end() calls it at most every 16th" \
	"transaction; it locks the copy buffer only for a reader's copy request): ${serve:-no locked instruction}"

if ! command -v valgrind >/dev/null; then
	style_finish
	skip "valgrind not found, comparisons not counted (Debian: apt-get install valgrind)"
fi

# compares REGEX NAMES...: addresses of the compares matching REGEX in the
# closures of NAMES.  The search's: a value against an 8-byte scaled load
# (bounds[i]; a non-PIE build may index statctr_hist_pool[] with no base
# register); the linear search walks a pointer, so any memory operand.
SEARCH='^cmp[a-z]* .*\((%[a-z0-9]+)?,%[a-z0-9]+,8\)'
LINEAR='^cmp[a-z]* .*\('
compares() {
	local re=$1 f
	shift
	for f in "$@"; do
		closure "$f"
	done | sort -u | while read -r f; do
		insns "$f" | awk -F'\t' -v re="$re" '$2 ~ re { print $1 }'
	done | sort -u
}

# executions OUT ADDRESSES...: how often callgrind saw those instructions of
# the bench run.  Addresses are offsets in their object: count bench_hist's
# only ("ob="), and skip the cost line after "calls=" (the call's inclusive
# cost, not a count).
executions() {
	local out=$1
	shift
	awk -v list="$*" -v ob="ob=$(realpath "$bin")" '
		BEGIN { n = split(list, a, " "); for (i = 1; i <= n; i++) want["0x" a[i]] = 1 }
		/^ob=/ { mine = $0 == ob; next }
		/^calls=/ { skip = 1; next }
		skip { skip = 0; next }
		mine && $1 in want { total += $3 }
		END { print total + 0 }' "$out"
}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
records=4000
for spec in 16:5 64:7; do
	buckets=${spec%:*} want=${spec#*:}
	timeout 120 valgrind --tool=callgrind --dump-instr=yes --compress-pos=no \
		--compress-strings=no --callgrind-out-file="$work/cg.$buckets" "$bin" \
		--out "$work/res" callgrind "$records" "$buckets" >"$work/log.$buckets" 2>&1 ||
		{ cat "$work/log.$buckets" >&2; fail_later "bench_hist callgrind $records $buckets failed under valgrind"; continue; }
	for group in "loop_per_thread loop_per_thread_plain" "loop_statctr_record loop_statctr_txn4"; do
		read -r -a fns <<<"$group"
		mapfile -t addrs < <(compares "$SEARCH" "${fns[@]}")
		[ "${#addrs[@]}" -gt 0 ] || { fail_later "$group: no search compare found"; continue; }
		runs=$(executions "$work/cg.$buckets" "${addrs[@]}")
		per=$(awk -v r="$runs" -v n="$((records * ${#fns[@]}))" 'BEGIN { printf "%.3f", r / n }')
		if [ "$per" = "$want.000" ]; then
			echo "ok: $buckets buckets: $group: $per search compares per record (${#addrs[@]} compare site(s))"
		else
			fail_later "$buckets buckets: $group: $per search compares per record, expected $want"
		fi
	done
	mapfile -t addrs < <(compares "$LINEAR" loop_linear)
	echo "info: $buckets buckets: the linear search: $(awk -v r="$(executions "$work/cg.$buckets" "${addrs[@]}")" \
		-v n=$records 'BEGIN { printf "%.3f", r / n }') compares per record (log-uniform values)"
done

style_finish
