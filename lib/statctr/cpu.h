/*
 * statctr/cpu.h - CPU slots' inline adds (part of <statctr.h>).
 *
 * Owns: the part of the writer's handle the adds read (struct
 * statctr_cpu_slots), the choice between the architecture's restartable
 * sequence and the locked add, and statctr_cpu_add() and its wrappers.
 * Never: an API of its own (statctr.h documents the adds), a locked
 * instruction on the rseq path.
 */
#ifndef STATCTR_CPU_H
#define STATCTR_CPU_H

#ifndef STATCTR_H
#error "<statctr/cpu.h> is part of <statctr.h>: include that"
#endif

#ifdef __cplusplus
extern "C" {
#endif

/*
 * CPU slots' adds (statctr.h, "CPU slots").
 *
 * THE PROTOCOL.  With collapse 1 and the thread's rseq registered by glibc
 * (x86-64), an add is a restartable sequence (docs/design.md, "CPU slots:
 * a restartable sequence per add").  Each call site has its descriptor
 * (start, length, abort address) in section __rseq_cs.  The add stores the
 * descriptor's address in the thread's rseq_cs (in its struct rseq), and
 * from the next instruction, the start, loads its CPU number from that
 * area, computes the cell of that CPU's slot and adds to it with one plain
 * `add` to memory, the commit.  If the kernel preempts, migrates or
 * signals the thread between the start and the commit, it resumes the
 * thread at the abort address instead, which counts the abort (a locked
 * add to the slot's `aborts`, in its header line; the slow path) and
 * starts again from the store.  The partners of rseq_cs are this thread,
 * which stores it, and the kernel, which reads it at each preemption,
 * migration or signal of this thread (include/uapi/linux/rseq.h), aborts
 * the sequence it names when the thread's IP is inside it, and clears it
 * otherwise.  The store is one instruction before the start: an event
 * before it sees another descriptor (or none) and at most clears it; an
 * event after it, up to the commit, sees ours with the IP inside.  The
 * store is made on every add, whether or not rseq_cs already names the
 * site (a compare first costs a taken branch or a store-to-load round trip
 * per add; docs/PERFORMANCE.md, section 11).  So only threads running on
 * CPU k store to slot k's cells, one instruction at a time: every add is
 * exact with no locked instruction.  What the asm tells the compiler: it
 * reads the CPU slots' cells (a memory input) and declares no memory
 * output.  The add is left undeclared on purpose: GCC takes a declared
 * write through a pointer as a write to any memory, and reloaded the
 * handle's fields and the caller's data after every add (1.7x the
 * per-thread cost instead of 1.2x).  No code of this header reads a CPU
 * slot's cell after an add: the library reads them out of line, behind a
 * call, which the compiler keeps after the asm (the call may write memory
 * the asm reads), and other threads and processes read them with no
 * ordering promised.  With collapse > 1, or without rseq
 * (GLIBC_TUNABLES=glibc.pthread.rseq=0, another architecture), an add is
 * a locked add to the slot of the CPU the thread found itself on (exact
 * even if it migrated meanwhile).  A segment uses one or the other for all
 * its adds (statctr_cpu_mode()): plain and locked adds never meet on a
 * cell.  Readers copy a CPU slot's cells with relaxed loads, no sequence
 * protocol: each add is one atomic 8-byte read-modify-write, so a cell is
 * never torn, and a CPU slot is never busy or dead.  No ordering between
 * cells is promised (as statctr_add() outside a transaction).
 * Sanitizers: ThreadSanitizer and AddressSanitizer do not see the `add`
 * inside the asm (the cell is the CPU's, never another thread's plain
 * store); the abort count and the locked paths are ordinary atomics.
 */

/* The part of the writer's handle the inline adds read: the first member
 * of struct statctr_seg, public only so that the adds can be inline; treat
 * it as private. */
struct statctr_cpu_slots {
	char *cells;             /* CPU slot 0's first cell; NULL: no CPU slots */
	uint32_t stride;         /* bytes from one CPU slot to the next (< 2^28) */
	uint32_t rseq_ncpus;     /* mode 1: ncpus; else 0, which sends every add
	                          * to statctr_cpu_add_locked() */
	uint32_t ncpus;          /* CPU numbers below this have a slot */
	int32_t mode;            /* statctr_cpu_mode() */
	const uint16_t *slot_of; /* per CPU number: its CPU slot */
};

/** Out of line parts of statctr_cpu_add(); not called directly.  The
 * sequence now counts its aborts itself (in the asm); statctr_cpu_aborted()
 * stays for objects compiled against the earlier header. */
void statctr_cpu_add_locked(struct statctr_seg *seg, statctr_id id, uint64_t n);
void statctr_cpu_aborted(struct statctr_seg *seg);

/* The restartable sequence, per architecture.  <stdint.h> (statctr.h)
 * defined __GLIBC__; glibc 2.35 and later register rseq (<sys/rseq.h>).
 * Other targets take the locked add. */
#if defined(__x86_64__) && defined(__GLIBC__) &&                                                   \
    (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 35))
#define STATCTR_CPU_RSEQ 1
#include "rseq-x86_64.h"
#else
#define STATCTR_CPU_RSEQ 0
#endif

/* statctr_cpu_add() (statctr.h documents it): the architecture's
 * restartable sequence, else the locked add. */
static inline __attribute__((always_inline)) void statctr_cpu_add(struct statctr_seg *seg,
                                                                  statctr_id id, uint64_t n)
{
#if STATCTR_CPU_RSEQ
	statctr_cpu_add_rseq(seg, id, n);
#else
	statctr_cpu_add_locked(seg, id, n);
#endif
}

static inline __attribute__((always_inline)) void statctr_cpu_inc(struct statctr_seg *seg,
                                                                  statctr_id id)
{
	statctr_cpu_add(seg, id, 1);
}

static inline __attribute__((always_inline)) void
statctr_cpu_gauge_add(struct statctr_seg *seg, statctr_id id, int64_t delta)
{
	statctr_cpu_add(seg, id, (uint64_t)delta);
}

#ifdef __cplusplus
}
#endif

#endif /* STATCTR_CPU_H */
