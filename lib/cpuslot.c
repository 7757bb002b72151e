/*
 * cpuslot.c - CPU slots, writer side: their shape, the add mode and the slow
 * paths of statctr_cpu_add() (numa.c places their pages).
 *
 * Owns struct statctr_cpu_slots (the inline adds' view of the writer's
 * handle, <statctr/cpu.h>), filled once at creation, before the
 * segment is published, and never changed afterwards.  The protocol is in
 * <statctr/cpu.h>; the bytes in docs/segment-format.md, "CPU slots".  Never
 * stores to a writer (thread) slot, and never takes a lock: the slow paths
 * are locked adds, async-signal-safe like the fast path.
 */
#include "internal.h"

#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/sysinfo.h>

/* CPU numbers the kernel may give a thread: 0 .. possible - 1. */
uint32_t cpu_possible(void)
{
	int n = get_nprocs_conf();

	if (n < 1)
		return 1;
	return n > (int)STATCTR_MAX_CPUS ? STATCTR_MAX_CPUS : (uint32_t)n;
}

/* Whether this thread's rseq area is registered with the kernel (glibc). */
static bool rseq_registered(void)
{
#if STATCTR_CPU_RSEQ
	const struct rseq *rs;

	if (__rseq_size == 0)
		return false;
	rs = (const struct rseq *)((char *)__builtin_thread_pointer() + __rseq_offset);
	return (int32_t)atomic_load_explicit((const _Atomic uint32_t *)&rs->cpu_id,
	                                     memory_order_relaxed) >= 0;
#else
	return false;
#endif
}

/* The CPU the calling thread runs on (it may move right after). */
static uint32_t current_cpu(void)
{
	int cpu = sched_getcpu(); /* glibc reads its rseq area when registered */

	return cpu < 0 ? 0 : (uint32_t)cpu;
}

static struct cpu_slot_header *cpu_slot_header(struct statctr_seg *seg, uint32_t k)
{
	return (struct cpu_slot_header *)seg_slot_header(seg, seg->nslots + 1 + k);
}

static _Atomic uint64_t *cpu_cell(struct statctr_seg *seg, uint32_t k, statctr_id id)
{
	return (_Atomic uint64_t *)(void *)((char *)cpu_slot_header(seg, k) + LINE) + id;
}

/* Each CPU slot on the node of its first CPU, where there are several. */
static void place_cpu_slots(struct statctr_seg *seg)
{
	const struct seg_header *h = seg->meta.hdr;

	if (seg->nnodes < 2)
		return;
	for (uint32_t k = 0; k < h->ncpuslots; k++)
		numa_place(cpu_slot_header(seg, k), seg->layout.stride,
		           cpu_node(k * h->cpu_collapse));
}

/*
 * Fills seg->cpu from the segment's header (which the writer built from
 * the declaration, d->cpu_collapse, and cpu_possible()).  Mode 1 needs
 * collapse 1 and rseq registered on this (the creating) thread: glibc
 * registers every thread or none (the tunable is per process).
 */
int cpu_slots_init(struct statctr_seg *seg)
{
	const struct seg_header *h = seg->meta.hdr;
	struct statctr_cpu_slots *cs = &seg->cpu;
	uint16_t *slot_of;
	uint32_t c;

	cs->cells = NULL;
	cs->mode = -ENOTSUP;
	seg->nnodes = numa_nodes();
	if (h->ncpuslots == 0)
		return 0;
	slot_of = malloc(h->ncpus * sizeof(*slot_of));
	if (!slot_of)
		return errmsg_set(ENOMEM, "out of memory for %u CPU slots", h->ncpuslots);
	for (c = 0; c < h->ncpus; c++)
		slot_of[c] = (uint16_t)(c / h->cpu_collapse);
	cs->slot_of = slot_of;
	cs->ncpus = h->ncpus;
	cs->stride = (uint32_t)seg->layout.stride; /* 64 + 8 x 2^24 at most */
	cs->cells = (char *)cpu_slot_header(seg, 0) + LINE;
	cs->mode = h->cpu_collapse == 1 && rseq_registered() ? 1 : 0;
	cs->rseq_ncpus = cs->mode == 1 ? cs->ncpus : 0;
	place_cpu_slots(seg);
	return 0;
}

void cpu_slots_fini(struct statctr_seg *seg)
{
	free((void *)seg->cpu.slot_of);
	seg->cpu.slot_of = NULL;
}

int statctr_cpu_mode(const struct statctr_seg *seg)
{
	if (seg->cpu.mode < 0)
		return errmsg_set(ENOTSUP,
		                  "segment %s has no CPU slots (cpu_slots in its declaration)",
		                  seg->path);
	return seg->cpu.mode;
}

/*
 * The slow paths of statctr_cpu_add().  Mode 0: a locked add to the slot of
 * the CPU the thread found itself on.  Mode 1, for a thread without a
 * registered rseq (cpu_id not valid): the shared slot, never a CPU slot,
 * whose cells other threads add to with plain adds.  No CPU slots: the
 * shared slot too, and the misuse is recorded for statctr_seg_health().
 */
void statctr_cpu_add_locked(struct statctr_seg *seg, statctr_id id, uint64_t n)
{
	struct statctr_cpu_slots *cs = &seg->cpu;
	uint32_t cpu;

	if (cs->mode == 0) {
		cpu = current_cpu();
		if (cpu >= cs->ncpus)
			cpu = 0; /* any slot of the segment: every add here is locked */
		atomic_fetch_add_explicit(cpu_cell(seg, cs->slot_of[cpu], id), n,
		                          memory_order_relaxed);
		return;
	}
	if (cs->mode < 0)
		atomic_fetch_add_explicit(&seg->cpu_misuse, 1, memory_order_relaxed);
	statctr_shared_add(seg, id, n);
}

/*
 * An aborted sequence: counted in the slot of the CPU the retry runs on.
 * In mode 0 the sequence only reads cpu_id before it leaves for the
 * locked path (rseq_ncpus is 0): an abort there is no add's, not counted.
 */
void statctr_cpu_aborted(struct statctr_seg *seg)
{
	uint32_t cpu = current_cpu();

	if (seg->cpu.mode != 1)
		return;

	if (cpu >= seg->cpu.ncpus)
		cpu = 0;
	atomic_fetch_add_explicit(&cpu_slot_header(seg, seg->cpu.slot_of[cpu])->aborts, 1,
	                          memory_order_relaxed);
}

/* statctr_seg_health()'s part: a CPU add on a segment without CPU slots. */
int cpu_slots_check(const struct statctr_seg *seg)
{
	uint64_t misuse = atomic_load_explicit(&seg->cpu_misuse, memory_order_relaxed);

	if (misuse == 0)
		return 0;
	return errmsg_set(ENOTSUP,
	                  "statctr_cpu_add() on segment %s, which has no CPU slots: %llu adds "
	                  "went to the shared slot instead",
	                  seg->path, (unsigned long long)misuse);
}
