/*
 * statctr/rseq-x86_64.h - CPU slots' restartable sequence on x86-64 (part of <statctr.h>,
 * included by <statctr/cpu.h> where glibc registers rseq).
 *
 * Owns: the add's asm (its __rseq_cs descriptor, its abort handler in
 * __rseq_failure) and the asm call of the locked slow path.  Never: a
 * declared memory output, a call the compiler can see, a locked
 * instruction but the abort count's.
 */
#ifndef STATCTR_RSEQ_X86_64_H
#define STATCTR_RSEQ_X86_64_H

#ifndef STATCTR_H
#error "<statctr/rseq-x86_64.h> is part of <statctr.h>: include that"
#endif

#include <sys/rseq.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The memory an add's asm reads (its memory input, cpu.h's "THE PROTOCOL"): from
 * CPU slot 0's first cell on, bounded by the largest CPU slots can span
 * (strides below 2^28 bytes, STATCTR_MAX_CPUS slots). */
#define STATCTR_CPU_CELLS(cells)                                                                   \
	(*(const uint64_t(*)[(uint64_t)STATCTR_MAX_CPUS << 25])(const void *)(cells))
#ifdef __AVX512F__
#define STATCTR_CLOBBER_AVX512                                                                     \
	, "xmm16", "xmm17", "xmm18", "xmm19", "xmm20", "xmm21", "xmm22", "xmm23", "xmm24",         \
	    "xmm25", "xmm26", "xmm27", "xmm28", "xmm29", "xmm30", "xmm31", "k0", "k1", "k2", "k3", \
	    "k4", "k5", "k6", "k7"
#else
#define STATCTR_CLOBBER_AVX512
#endif
/*
 * statctr_cpu_add_locked() called from an asm, for the slow path of
 * statctr_cpu_add().  A call the compiler sees, even on that cold path,
 * makes it reload @seg's fields (and the caller's data) on every add, as
 * the callee may write any memory, and keep the loop's values out of the
 * registers a callee may change.  So the asm saves the general registers
 * the x86-64 ABI lets a callee change (but rax, declared clobbered) and
 * restores them, and declares the vector registers clobbered; it reads
 * the CPU slots' cells, as the add's asm does ("THE PROTOCOL": the memory
 * the callee writes is read only by the library, out of line).  It steps
 * past the red zone (the compiler may keep data below %rsp in a function
 * it thinks makes no call) and aligns the stack to 16 bytes for the call:
 * rsp is rounded down, then 9 saved words and one of padding.  The
 * caller's unwind information does not describe that stack, so a
 * backtrace taken inside the call may be wrong past the caller.
 */
static inline __attribute__((always_inline)) void statctr_cpu_call_locked(struct statctr_seg *seg,
                                                                          statctr_id id, uint64_t n)
{
	const struct statctr_cpu_slots *cs = (const struct statctr_cpu_slots *)(const void *)seg;

	__asm__ volatile(
	    "movq %%rsp, %%rax\n\t"
	    "leaq -128(%%rsp), %%rsp\n\t"
	    "andq $-16, %%rsp\n\t"
	    "pushq %%rax\n\t"
	    "pushq %%rcx\n\t"
	    "pushq %%rdx\n\t"
	    "pushq %%rsi\n\t"
	    "pushq %%rdi\n\t"
	    "pushq %%r8\n\t"
	    "pushq %%r9\n\t"
	    "pushq %%r10\n\t"
	    "pushq %%r11\n\t"
	    "pushq %[seg]\n\t"
	    "pushq %q[id]\n\t"
	    "pushq %[n]\n\t"
	    "popq %%rdx\n\t"
	    "popq %%rsi\n\t"
	    "popq %%rdi\n\t"
	    "subq $8, %%rsp\n\t"
	    "call statctr_cpu_add_locked@PLT\n\t"
	    "addq $8, %%rsp\n\t"
	    "popq %%r11\n\t"
	    "popq %%r10\n\t"
	    "popq %%r9\n\t"
	    "popq %%r8\n\t"
	    "popq %%rdi\n\t"
	    "popq %%rsi\n\t"
	    "popq %%rdx\n\t"
	    "popq %%rcx\n\t"
	    "popq %%rsp"
	    :
	    : [seg] "r"(seg), [id] "r"(id), [n] "r"(n), "m"(STATCTR_CPU_CELLS(cs->cells))
	    : "cc", "rax", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8",
	      "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15" STATCTR_CLOBBER_AVX512);
}

/* statctr_cpu_add() with collapse 1: the restartable sequence. */
static inline __attribute__((always_inline)) void statctr_cpu_add_rseq(struct statctr_seg *seg,
                                                                       statctr_id id, uint64_t n)
{
	const struct statctr_cpu_slots *cs = (const struct statctr_cpu_slots *)(const void *)seg;
	char *cell0 = cs->cells + (uint64_t)id * 8; /* @id's cell in CPU slot 0 */

	/* The sequence, as cpu.h's "THE PROTOCOL" says.  0: load the
	 * address of this call site's descriptor 3 (struct rseq_cs:
	 * version, flags, start_ip, post_commit_offset, abort_ip) and
	 * store it in the thread's rseq_cs (offset 8 of its struct
	 * rseq).  1, the start: load cpu_id (offset 4), which must be
	 * below rseq_ncpus (0 unless mode 1; an unregistered thread's
	 * is -1 or -2), else out to the locked path; the plain add to
	 * that CPU's cell is the commit, and 2 the end.  4, the abort
	 * handler, after the signature the kernel checks (RSEQ_SIG,
	 * registered by glibc), counts the abort in the header line
	 * of the CPU slot it now runs on (aborts, 48 bytes before the
	 * slot's cells; a locked add, as other CPUs' aborts may land
	 * there) and starts again at 0.  The handler is in the asm so
	 * that an add has no path through a call, which would make
	 * the compiler reload @seg's fields after every add.  The
	 * cells are a memory input, their add undeclared ("THE
	 * PROTOCOL": what the asm tells the compiler). */
	__asm__ goto(".pushsection __rseq_cs, \"aw\"\n\t"
	             ".balign 32\n"
	             "3:\n\t"
	             ".long 0, 0\n\t"
	             ".quad 1f, 2f - 1f, 4f\n\t"
	             ".popsection\n"
	             "0:\n\t"
	             "leaq 3b(%%rip), %%rax\n\t"
	             "movq %%rax, %%fs:8(%[off])\n"
	             "1:\n\t"
	             "movl %%fs:4(%[off]), %%eax\n\t"
	             "cmpl %[ncpus], %%eax\n\t"
	             "jae %l[unregistered]\n\t"
	             "imulq %[stride], %%rax\n\t"
	             "addq %[n], (%[cell0], %%rax)\n"
	             "2:\n\t"
	             ".pushsection __rseq_failure, \"ax\"\n\t"
	             ".long %c[sig]\n"
	             "4:\n\t"
	             "movl %%fs:4(%[off]), %%eax\n\t"
	             "cmpl %[ncpus], %%eax\n\t"
	             "jae 0b\n\t"
	             "imulq %[stride], %%rax\n\t"
	             "addq %[cells], %%rax\n\t"
	             "lock incq -48(%%rax)\n\t"
	             "jmp 0b\n\t"
	             ".popsection"
	             : /* no declared output: see above */
	             : [off] "r"(__rseq_offset), [ncpus] "r"(cs->rseq_ncpus),
	               [stride] "r"((uint64_t)cs->stride), [n] "er"(n), [cell0] "r"(cell0),
	               [cells] "m"(cs->cells), [sig] "i"(RSEQ_SIG),
	               "m"(STATCTR_CPU_CELLS(cs->cells))
	             : "cc", "rax"
	             : unregistered);
	return;
unregistered:
	statctr_cpu_call_locked(seg, id, n);
}

#ifdef __cplusplus
}
#endif

#endif /* STATCTR_RSEQ_X86_64_H */
