#!/bin/bash
# Issue 23's cost contract for statctr_cpu_add() with collapse 1, checked in
# compiled code: bench/bench_update's loop_statctr_cpu_add (4 CPU adds per
# packet), which is what a user's build gets from the inline fast path of
# lib/statctr.h.
#
# 1. No locked instruction (no lock prefix, no xchg) in the loop and what
#    it calls, but the out-of-line slow paths statctr_cpu_add_locked()
#    (collapse > 1, no rseq, or a thread without rseq: a locked add by
#    design) and statctr_cpu_aborted() (kept for older objects: a locked
#    add to the abort count; the sequence's own abort handler does that
#    now, in __rseq_failure, out of the loop).  Positive control: the same detector finds the
#    locked add of statctr_cpu_add_locked().
# 2. It is a restartable sequence: the loop stores the call site's
#    descriptor in the thread's rseq_cs (%fs-relative) right after loading
#    its address, with no compare or branch between, and commits with a
#    plain add; the program has a __rseq_cs section of 32-byte descriptors,
#    each abort handler preceded by glibc's RSEQ_SIG (0x53053053) in
#    __rseq_failure.
set -euo pipefail
top_builddir=${top_builddir:-.}
STYLE_NAME=cpu_nolock
. "${top_srcdir:-$(dirname "$0")/../..}/tests/style/lib.sh"
bin=$top_builddir/bench/bench_update

command -v objdump >/dev/null || skip "objdump not found (Debian: apt-get install binutils)"
[ -x "$bin" ] || fail "$bin not built"
if [ "${SANITIZER:-none}" != none ]; then
	echo "note: $SANITIZER build: its instrumented loops are not the fast path users get; checked in plain builds"
	exit 0
fi
case $(uname -m) in
x86_64) ;;
*)
	echo "note: $(uname -m): statctr_cpu_add() takes the locked add here (restartable sequences are x86-64 only)"
	exit 0
	;;
esac

CLOSURE_SKIP="statctr_cpu_add_locked statctr_cpu_aborted"
. "${top_srcdir:-$(dirname "$0")/../..}/tests/style/disasm.sh"

control=$(locked statctr_cpu_add_locked)
if [ -z "$control" ]; then
	fail_later "the detector finds no locked instruction in statctr_cpu_add_locked(): it sees nothing"
else
	echo "ok: control: statctr_cpu_add_locked() holds $(wc -l <<<"$control") locked instruction(s): $(head -n 1 <<<"$control")"
fi

loop=loop_statctr_cpu_add
mapfile -t fns < <(closure "$loop")
code=$(for f in "${fns[@]}"; do insns "$f"; done)
n=$(wc -l <<<"$code")
[ "$n" -ge 20 ] || fail_later "$loop: only $n instructions disassembled from ${fns[*]}"
bad=$(locked "${fns[@]}")
if [ -n "$bad" ]; then
	fail_later "$loop: locked instruction(s): $bad"
else
	echo "ok: $loop: $n instructions in ${fns[*]}, none locked, no xchg"
fi
stores=$(grep -cE $'\tmov +%[a-z0-9]+,%fs:0x8\\(' <<<"$code" || true)
adds=$(grep -cE $'\tadd[q]? +[^,]+,\\(%[a-z0-9]+,%[a-z0-9]+,1\\)$' <<<"$code" || true)
if [ "$stores" -ge 4 ] && [ "$adds" -ge 4 ]; then
	echo "ok: $loop: $stores stores of a descriptor to the rseq area, $adds plain adds to a CPU's cell"
else
	fail_later "$loop: $stores stores to rseq_cs and $adds plain adds (4 each expected: 4 adds per packet)"
fi

# The descriptors and the abort signatures.
cs_hex=$(objdump -h "$bin" | awk '$2 == "__rseq_cs" { print $3 }')
cs_size=${cs_hex:+$((16#$cs_hex))}
if [ -n "$cs_size" ] && [ "$cs_size" -ge 128 ] && [ $((cs_size % 32)) -eq 0 ]; then
	echo "ok: __rseq_cs: $cs_size bytes, $((cs_size / 32)) descriptor(s) of 32 bytes"
else
	fail_later "__rseq_cs: ${cs_size:-no such section} (32-byte descriptors expected, 4 at least)"
fi
# Each descriptor's abort handler follows glibc's signature (53 30 05 53,
# little-endian); the handler counts the abort with a locked add (out of
# the loop: the kernel enters it only after an abort) and jumps back.
failure=$(objdump -s -j __rseq_failure "$bin" | awk '/^ [0-9a-f]+ / { print $2 $3 $4 $5 }' | tr -d '\n')
sigs=$(grep -o '53300553' <<<"$failure" | wc -l)
if [ "$sigs" -ge 4 ] && [ -n "$cs_size" ] && [ "$sigs" -eq $((cs_size / 32)) ]; then
	echo "ok: __rseq_failure: $sigs abort handler(s) after RSEQ_SIG, one per descriptor"
else
	fail_later "__rseq_failure: $sigs signature(s) for ${cs_size:-no} bytes of descriptors (one each, 4 at least)"
fi
# Each store of a descriptor directly follows the lea of its address (the
# store is unconditional: no compare of rseq_cs first).
pairs=$(grep -E $'\t(lea|mov) ' <<<"$code" | grep -A1 -E $'\tlea +0x[0-9a-f]+\(%rip\),%rax' |
	grep -cE $'\tmov +%rax,%fs:0x8\(' || true)
cmps=$(grep -cE $'\tcmp +%[a-z0-9]+,%fs:0x8\(' <<<"$code" || true)
if [ "$pairs" -ge 4 ] && [ "$cmps" -eq 0 ]; then
	echo "ok: $loop: $pairs descriptor stores, each right after its lea, no compare of rseq_cs"
else
	fail_later "$loop: $pairs lea+store pairs (4 expected) and $cmps compares of rseq_cs (none expected)"
fi
style_finish
