/*
 * guard.c - survive a mapping whose file shrank under it.
 *
 * Reading a page of a MAP_SHARED mapping past the end of its (truncated)
 * file raises SIGBUS.  One process-wide handler, installed once and chained
 * to whatever handler was there before, serves both sides:
 *
 *   readers: every reader entry point that touches a live mapping runs
 *   inside guard_run(); a fault jumps back to the guarded call on the
 *   faulting thread, which then returns -ESTALE.  A guard saves no signal
 *   mask (that would be a system call per guard, most of a small snapshot's
 *   cost): the handler puts back the mask the fault interrupted, taken from
 *   its ucontext, before it jumps.
 *
 *   writers: statctr_seg_create() registers its segment and control
 *   mappings here.  A fault inside one replaces memory in place with private
 *   zeroed pages - the whole control mapping (the writer stops using it),
 *   the faulting page of the segment (pages still backed by the file keep
 *   their counts) - records the loss in the segment handle and returns, so
 *   the faulting load or store repeats on the new memory.  The fast path
 *   needs no guard and costs nothing for this.
 *
 * A SIGBUS outside both goes to the previous handler (by default: the
 * process dies, as it would have without statctr).
 *
 * The handler may only do async-signal-safe things: it reads the registry
 * (a fixed array of atomics, no lock), calls mmap through syscall(),
 * clock_gettime, and atomic stores.  Registration and removal happen in
 * statctr_seg_create()/statctr_seg_destroy(), never concurrently with a
 * fault on the same mapping (no use of a segment after its destroy).
 */
#include "internal.h"

#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

/* Two mappings per segment: 128 writer segments per process. */
#define MAX_MAPPINGS 256

struct mapping {
	_Atomic uintptr_t start; /* 0: free; stored last with release on registration */
	_Atomic uintptr_t end;
	_Atomic(struct statctr_seg *) seg;
	_Atomic int kind;     /* enum writer_mapping */
	_Atomic bool claimed; /* taken by a registration */
};

static struct mapping registry[MAX_MAPPINGS];
static _Atomic unsigned registry_used; /* entries ever claimed: the handler scans these */
static uintptr_t page_size;

static _Thread_local sigjmp_buf *active_guard;
static struct sigaction previous;
static pthread_once_t installed = PTHREAD_ONCE_INIT;

/* Private zeroed memory in place of [start, start + len): a raw system call. */
static bool replace_with_zeros(uintptr_t start, uintptr_t len)
{
	long p = syscall(SYS_mmap, start, len, PROT_READ | PROT_WRITE,
	                 MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == (long)start;
}

static void record_loss(struct statctr_seg *seg, uint32_t bit)
{
	_Atomic uint64_t *when = bit == WRITER_CTL_LOST ? &seg->ctl_lost_ns : &seg->seg_lost_ns;
	struct timespec ts;
	uint64_t none = 0;

	clock_gettime(CLOCK_REALTIME, &ts);
	atomic_compare_exchange_strong_explicit(
	    when, &none, (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec,
	    memory_order_relaxed, memory_order_relaxed);
	/* Release, the time above first: pairs with the acquire load of lost
	 * in check_lost() (segment.c), run by any thread of the writer. */
	atomic_fetch_or_explicit(&seg->lost, bit, memory_order_release);
	if (bit == WRITER_CTL_LOST) {
		struct seg_header *h = (void *)seg->base;

		/* For readers, who load it live (statctr_view_info).  If the
		 * segment was truncated too, this store faults in turn: the
		 * nested handler (SA_NODEFER) replaces that page and it repeats. */
		atomic_fetch_or_explicit(&h->writer_flags, WRITER_CTL_LOST, memory_order_relaxed);
	}
}

/* The registered mapping holding @addr, or NULL.  Async-signal-safe. */
static struct mapping *find_mapping(uintptr_t addr)
{
	/* Pairs with the release CAS in note_used(): an entry counted in
	 * registry_used shows the start its registration stored. */
	unsigned i, used = atomic_load_explicit(&registry_used, memory_order_acquire);

	for (i = 0; i < used && i < MAX_MAPPINGS; i++) {
		struct mapping *m = &registry[i];
		/* Pairs with the release store of start in guard_register(). */
		uintptr_t start = atomic_load_explicit(&m->start, memory_order_acquire);

		if (start != 0 && addr >= start &&
		    addr < atomic_load_explicit(&m->end, memory_order_relaxed))
			return m;
	}
	return NULL;
}

/* Handles a fault inside a registered writer mapping; false if none holds @addr. */
static bool writer_fault(uintptr_t addr)
{
	struct mapping *m = find_mapping(addr);
	struct statctr_seg *seg;
	uintptr_t start;

	if (!m)
		return false;
	seg = atomic_load_explicit(&m->seg, memory_order_relaxed);
	start = atomic_load_explicit(&m->start, memory_order_relaxed);
	if (atomic_load_explicit(&m->kind, memory_order_relaxed) == WRITER_MAP_CONTROL) {
		if (!replace_with_zeros(start, atomic_load_explicit(&m->end, memory_order_relaxed) -
		                                   start))
			return false;
		record_loss(seg, WRITER_CTL_LOST);
		return true;
	}
	if (!replace_with_zeros(addr & ~(page_size - 1), page_size))
		return false;
	record_loss(seg, WRITER_SEG_LOST);
	return true;
}

static void on_sigbus(int sig, siginfo_t *info, void *context)
{
	int saved_errno = errno;

	if (info && writer_fault((uintptr_t)info->si_addr)) {
		errno = saved_errno;
		return;
	}
	errno = saved_errno;
	if (active_guard) {
		const ucontext_t *uc = context;

		/* The guarded call's mask: ours adds nothing (SA_NODEFER, empty
		 * sa_mask), but a handler that chains to this one may have. */
		if (uc)
			pthread_sigmask(SIG_SETMASK, &uc->uc_sigmask, NULL);
		siglongjmp(*active_guard, 1);
	}
	if (previous.sa_flags & SA_SIGINFO) {
		previous.sa_sigaction(sig, info, context);
	} else if (previous.sa_handler != SIG_DFL && previous.sa_handler != SIG_IGN) {
		previous.sa_handler(sig);
	} else {
		/* Restore the default; the faulting access repeats and kills us. */
		sigaction(SIGBUS, &previous, NULL);
	}
}

static void install(void)
{
	struct sigaction sa;

	page_size = (uintptr_t)sysconf(_SC_PAGESIZE);
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_sigbus;
	sa.sa_flags = SA_SIGINFO | SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGBUS, &sa, &previous);
}

int guard_run(int (*fn)(void *), void *arg, const char *path)
{
	sigjmp_buf here;
	sigjmp_buf *outer = active_guard;
	int rc;

	pthread_once(&installed, install);
	if (sigsetjmp(here, 0)) { /* no mask saved: on_sigbus() restores it */
		active_guard = outer;
		return errmsg_set(ESTALE, "%s was truncated while mapped", path);
	}
	active_guard = &here;
	rc = fn(arg);
	active_guard = outer;
	return rc;
}

/* Raises registry_used to at least @n. */
static void note_used(unsigned n)
{
	unsigned used = atomic_load_explicit(&registry_used, memory_order_relaxed);

	/* Release, the entry's start first: pairs with the acquire loads of
	 * registry_used in find_mapping() and guard_unregister(). */
	while (used < n &&
	       !atomic_compare_exchange_weak_explicit(&registry_used, &used, n,
	                                              memory_order_release, memory_order_relaxed))
		;
}

int guard_register(struct statctr_seg *seg, void *base, uint64_t size, enum writer_mapping kind)
{
	unsigned i;

	pthread_once(&installed, install);
	for (i = 0; i < MAX_MAPPINGS; i++) {
		struct mapping *m = &registry[i];
		bool free_entry = false;

		/* Acquire: pairs with the release store of claimed in
		 * guard_unregister(): the entry's previous use is over. */
		if (!atomic_compare_exchange_strong_explicit(
		        &m->claimed, &free_entry, true, memory_order_acquire, memory_order_relaxed))
			continue;
		atomic_store_explicit(&m->end, (uintptr_t)base + size, memory_order_relaxed);
		atomic_store_explicit(&m->seg, seg, memory_order_relaxed);
		atomic_store_explicit(&m->kind, (int)kind, memory_order_relaxed);
		/* Pairs with the acquire load of start in find_mapping(): end, seg and
		 * kind first. */
		atomic_store_explicit(&m->start, (uintptr_t)base, memory_order_release);
		note_used(i + 1);
		return 0;
	}
	return errmsg_set(EMFILE, "more than %u writer mappings in this process (%u segments)",
	                  MAX_MAPPINGS, MAX_MAPPINGS / 2);
}

void guard_unregister(const struct statctr_seg *seg)
{
	/* Pairs with the release CAS in note_used(). */
	unsigned i, used = atomic_load_explicit(&registry_used, memory_order_acquire);

	for (i = 0; i < used; i++) {
		struct mapping *m = &registry[i];

		if (atomic_load_explicit(&m->start, memory_order_relaxed) == 0 ||
		    atomic_load_explicit(&m->seg, memory_order_relaxed) != seg)
			continue;
		atomic_store_explicit(&m->start, 0, memory_order_relaxed);
		/* Pairs with the acquire CAS of claimed in guard_register(). */
		atomic_store_explicit(&m->claimed, false, memory_order_release);
	}
}

struct statctr_seg *guard_writer_of(const void *addr)
{
	struct mapping *m = find_mapping((uintptr_t)addr);

	if (!m || atomic_load_explicit(&m->kind, memory_order_relaxed) != WRITER_MAP_SEGMENT)
		return NULL;
	return atomic_load_explicit(&m->seg, memory_order_relaxed);
}
