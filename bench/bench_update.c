/*
 * bench_update.c - the cost of a counter update: statctr against what users
 * would otherwise pick (docs/PERFORMANCE.md, "Update cost").
 *
 * Every packet makes 4 updates: totals.packets += 1 and totals.octets +=
 * size (hot: every thread), flows[f].packets += 1 and flows[f].octets +=
 * size, f from the thread's own band of flows except 1 packet in 16.  All
 * patterns use statctr's cell layout (totals then flows, row-major), the
 * same precomputed packet ring per thread and the same loop: packet_loop()
 * is always inlined into one noinline function per pattern, with the
 * pattern's begin/add/end inlined into it, so no pattern pays a call the
 * others do not (except PCP MMV, whose mmv_inc is a library call) and
 * callgrind attributes instructions per pattern.  Optional work per packet
 * (~1000 TSC cycles of a multiply chain) models a real packet loop.
 *
 * Never trusts a timing it has not checked: after every run the totals are
 * compared with the packets replayed (exact for every synchronised pattern;
 * the unsynchronised ones report the updates they lost).
 */
#include "config.h"

#include "harness.h"
#include "statctr.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#ifdef HAVE_PCP_MMV
#include <pcp/pmapi.h>
#include <pcp/mmv_stats.h>
#endif

#define NFLOWS          64
#define NCELLS          (2 + 2 * NFLOWS)
#define CELL_TOT_PKTS   0
#define CELL_TOT_OCTETS 1
#define RING            4096 /* packets in a thread's ring, a power of two */
#define FLUSH_EVERY     64   /* packets between flushes of a write buffer */
#define MAX_THREADS     256  /* the thread-pool pattern runs 8 per CPU */
#define POOL_PER_CPU    8
#define MAX_REPS        21
#define MAX_REDO        4 /* re-runs of a run another process disturbed */
#define WORK_CYCLES     1000

#define NOINLINE      __attribute__((noinline, noclone))
#define ALWAYS_INLINE inline __attribute__((always_inline))

struct pkt {
	uint32_t flow_cell; /* cell of flows[f].packets; octets follow */
	uint32_t size;
};

/* A thread's private counters, laid out like a statctr slot. */
struct cells {
	_Alignas(64) _Atomic uint64_t seq;
	_Alignas(64) _Atomic uint64_t cell[NCELLS];
};

struct shared {
	_Alignas(64) _Atomic int lock;
	_Alignas(64) _Atomic uint64_t cell[NCELLS]; /* atomics, spinlock, buffered */
	_Alignas(64) uint64_t plain[NCELLS];        /* unsynchronised += */
};

/* A handle that points at a thread's cells, as struct statctr_slot does. */
struct handle {
	_Atomic uint64_t *cells;
};

struct worker {
	_Alignas(64) struct cells *mine;
	struct handle *handle; /* to mine->cell */
	struct shared *shared;
	struct statctr_slot *slot;
	void *mmv_base;
	void *mmv_val[NCELLS]; /* pmAtomValue * of each cell */
	const struct pkt *ring;
	uint64_t packets, work_iters;
	uint64_t buf[NCELLS]; /* write buffer */
	unsigned pending;     /* packets in buf */
	/* bookkeeping, outside the loop */
	const struct pattern *pat;
	pthread_barrier_t *start;
	struct statctr_seg *seg;
	unsigned index;
	int err;
	pthread_t thread;
	uint64_t tsc_start, tsc_end, cpu_ns, sink;
};

/* STATCTR: a segment of statctr, the thread's slot acquired; STATCTR_NOSLOT:
 * a segment of statctr, no slot (statctr_cpu_add(), statctr_shared_add()). */
enum storage { PER_THREAD, SHARED_CELLS, SHARED_PLAIN, MMV, STATCTR, STATCTR_NOSLOT };

/* The statctr segments: thread slots; CPU slots (collapse 1, then 2). */
enum segment_id { SEG_SLOTS, SEG_CPU, SEG_CPU2, NSEGS };

typedef uint64_t (*loop_fn)(struct worker *w);

struct pattern {
	const char *name;
	loop_fn loop;
	enum storage storage;
	bool may_lose; /* unsynchronised: lost updates are a result, not an error */
	bool available;
	enum segment_id seg; /* statctr storages: which segment */
};

/* ---- the patterns ---------------------------------------------------------- */

typedef void (*mark_fn)(struct worker *w);
typedef void (*add_fn)(struct worker *w, uint32_t id, uint64_t n);

/* A dependent multiply chain: @iters x ~4 cycles the updates can overlap with. */
static ALWAYS_INLINE uint64_t spin_work(uint64_t x, uint64_t iters)
{
	uint64_t k;

	for (k = 0; k < iters; k++)
		x = x * 6364136223846793005ull + 1442695040888963407ull;
	return x;
}

static ALWAYS_INLINE uint64_t packet_loop(struct worker *w, mark_fn begin, add_fn add, mark_fn end)
{
	const struct pkt *ring = w->ring;
	uint64_t i, n = w->packets, iters = w->work_iters, sink = 0;

	for (i = 0; i < n; i++) {
		const struct pkt *p = &ring[i & (RING - 1)];

		sink = spin_work(sink ^ p->size, iters);
		begin(w);
		add(w, CELL_TOT_PKTS, 1);
		add(w, CELL_TOT_OCTETS, p->size);
		add(w, p->flow_cell, 1);
		add(w, p->flow_cell + 1, p->size);
		end(w);
	}
	return sink;
}

static ALWAYS_INLINE void no_mark(struct worker *w)
{
	(void)w;
}

static ALWAYS_INLINE void no_add(struct worker *w, uint32_t id, uint64_t n)
{
	(void)w, (void)id, (void)n;
}

/* Load, add, relaxed store on a cell only this thread stores to. */
static ALWAYS_INLINE void relaxed_add(_Atomic uint64_t *cell, uint64_t n)
{
	atomic_store_explicit(cell, atomic_load_explicit(cell, memory_order_relaxed) + n,
	                      memory_order_relaxed);
}

static ALWAYS_INLINE void own_add(struct worker *w, uint32_t id, uint64_t n)
{
	relaxed_add(&w->mine->cell[id], n);
}

/* The same cells, reached through a handle's pointer: statctr_add's shape. */
static ALWAYS_INLINE void handle_add(struct worker *w, uint32_t id, uint64_t n)
{
	relaxed_add(&w->handle->cells[id], n);
}

/* The seqcount protocol of statctr.h, without the copy-request check. */
static ALWAYS_INLINE void seq_begin(struct worker *w)
{
	uint64_t seq = atomic_load_explicit(&w->mine->seq, memory_order_relaxed);

	atomic_store_explicit(&w->mine->seq, seq + 1, memory_order_relaxed);
	atomic_thread_fence(memory_order_release);
}

static ALWAYS_INLINE void seq_end(struct worker *w)
{
	uint64_t seq = atomic_load_explicit(&w->mine->seq, memory_order_relaxed);

	atomic_store_explicit(&w->mine->seq, seq + 1, memory_order_release);
}

static ALWAYS_INLINE void plain_add(struct worker *w, uint32_t id, uint64_t n)
{
	volatile uint64_t *cell = &w->shared->plain[id];

	*cell += n;
}

static ALWAYS_INLINE void atomic_add(struct worker *w, uint32_t id, uint64_t n)
{
	atomic_fetch_add_explicit(&w->shared->cell[id], n, memory_order_relaxed);
}

static ALWAYS_INLINE void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#else
	atomic_signal_fence(memory_order_seq_cst);
#endif
}

static ALWAYS_INLINE void spin_lock(_Atomic int *lock)
{
	while (atomic_exchange_explicit(lock, 1, memory_order_acquire))
		while (atomic_load_explicit(lock, memory_order_relaxed))
			cpu_relax();
}

static ALWAYS_INLINE void lock_begin(struct worker *w)
{
	spin_lock(&w->shared->lock);
}

static ALWAYS_INLINE void lock_end(struct worker *w)
{
	atomic_store_explicit(&w->shared->lock, 0, memory_order_release);
}

/* Under the lock: a plain read-modify-write is enough. */
static ALWAYS_INLINE void locked_add(struct worker *w, uint32_t id, uint64_t n)
{
	relaxed_add(&w->shared->cell[id], n);
}

static NOINLINE void flush_buffer(struct worker *w)
{
	uint32_t i;

	spin_lock(&w->shared->lock);
	for (i = 0; i < NCELLS; i++)
		if (w->buf[i]) {
			relaxed_add(&w->shared->cell[i], w->buf[i]);
			w->buf[i] = 0;
		}
	lock_end(w);
	w->pending = 0;
}

static ALWAYS_INLINE void buffer_add(struct worker *w, uint32_t id, uint64_t n)
{
	w->buf[id] += n;
}

static ALWAYS_INLINE void buffer_end(struct worker *w)
{
	if (++w->pending == FLUSH_EVERY)
		flush_buffer(w);
}

static ALWAYS_INLINE void statctr_add_w(struct worker *w, uint32_t id, uint64_t n)
{
	statctr_add(w->slot, id, n);
}

static ALWAYS_INLINE void statctr_begin_w(struct worker *w)
{
	statctr_txn_begin(w->slot);
}

static ALWAYS_INLINE void statctr_end_w(struct worker *w)
{
	statctr_txn_end(w->slot);
}

/* What an MMV user writes: mmv_inc for packets, mmv_add for octets. */
static ALWAYS_INLINE void mmv_update(struct worker *w, uint32_t id, uint64_t n)
{
#ifdef HAVE_PCP_MMV
	if (n == 1)
		mmv_inc(w->mmv_base, w->mmv_val[id]);
	else
		mmv_add(w->mmv_base, w->mmv_val[id], &n);
#else
	(void)w, (void)id, (void)n;
#endif
}

/* Any thread, no slot: the CPU's slot (w->seg has CPU slots). */
static ALWAYS_INLINE void statctr_cpu_add_w(struct worker *w, uint32_t id, uint64_t n)
{
	statctr_cpu_add(w->seg, id, n);
}

static ALWAYS_INLINE void statctr_shared_add_w(struct worker *w, uint32_t id, uint64_t n)
{
	statctr_shared_add(w->seg, id, n);
}

static NOINLINE uint64_t loop_none(struct worker *w)
{
	return packet_loop(w, no_mark, no_add, no_mark);
}

static NOINLINE uint64_t loop_per_thread(struct worker *w)
{
	return packet_loop(w, no_mark, own_add, no_mark);
}

static NOINLINE uint64_t loop_per_thread_handle(struct worker *w)
{
	return packet_loop(w, no_mark, handle_add, no_mark);
}

static NOINLINE uint64_t loop_per_thread_seqcount(struct worker *w)
{
	return packet_loop(w, seq_begin, own_add, seq_end);
}

static NOINLINE uint64_t loop_shared_plain(struct worker *w)
{
	return packet_loop(w, no_mark, plain_add, no_mark);
}

static NOINLINE uint64_t loop_shared_atomic(struct worker *w)
{
	return packet_loop(w, no_mark, atomic_add, no_mark);
}

static NOINLINE uint64_t loop_shared_spinlock(struct worker *w)
{
	return packet_loop(w, lock_begin, locked_add, lock_end);
}

static NOINLINE uint64_t loop_buffered_flush_lock(struct worker *w)
{
	uint64_t sink = packet_loop(w, no_mark, buffer_add, buffer_end);

	flush_buffer(w);
	return sink;
}

static NOINLINE uint64_t loop_pcp_mmv(struct worker *w)
{
	return packet_loop(w, no_mark, mmv_update, no_mark);
}

static NOINLINE uint64_t loop_statctr_add(struct worker *w)
{
	return packet_loop(w, no_mark, statctr_add_w, no_mark);
}

static NOINLINE uint64_t loop_statctr_txn(struct worker *w)
{
	return packet_loop(w, statctr_begin_w, statctr_add_w, statctr_end_w);
}

/* Collapse 1 and 2 alike: the segment makes the difference. */
static NOINLINE uint64_t loop_statctr_cpu_add(struct worker *w)
{
	return packet_loop(w, no_mark, statctr_cpu_add_w, no_mark);
}

static NOINLINE uint64_t loop_statctr_shared_add(struct worker *w)
{
	return packet_loop(w, no_mark, statctr_shared_add_w, no_mark);
}

enum pattern_id {
	P_NONE,
	P_PER_THREAD,
	P_PER_THREAD_HANDLE,
	P_SEQCOUNT,
	P_SHARED_PLAIN,
	P_SHARED_ATOMIC,
	P_SHARED_SPINLOCK,
	P_BUFFERED,
	P_PCP_MMV,
	P_STATCTR_ADD,
	P_STATCTR_TXN,
	P_STATCTR_CPU,
	P_STATCTR_CPU2,
	P_STATCTR_SHARED,
	NPATTERNS
};

static struct pattern patterns[NPATTERNS] = {
    [P_NONE] = {"none", loop_none, PER_THREAD, false, true},
    [P_PER_THREAD] = {"per_thread", loop_per_thread, PER_THREAD, false, true},
    [P_PER_THREAD_HANDLE] = {"per_thread_handle", loop_per_thread_handle, PER_THREAD, false, true},
    [P_SEQCOUNT] = {"per_thread_seqcount", loop_per_thread_seqcount, PER_THREAD, false, true},
    [P_SHARED_PLAIN] = {"shared_plain", loop_shared_plain, SHARED_PLAIN, true, true},
    [P_SHARED_ATOMIC] = {"shared_atomic", loop_shared_atomic, SHARED_CELLS, false, true},
    [P_SHARED_SPINLOCK] = {"shared_spinlock", loop_shared_spinlock, SHARED_CELLS, false, true},
    [P_BUFFERED] = {"buffered_flush_lock", loop_buffered_flush_lock, SHARED_CELLS, false, true},
    [P_PCP_MMV] = {"pcp_mmv", loop_pcp_mmv, MMV, true, false},
    [P_STATCTR_ADD] = {"statctr_add", loop_statctr_add, STATCTR, false, true},
    [P_STATCTR_TXN] = {"statctr_txn", loop_statctr_txn, STATCTR, false, true},
    [P_STATCTR_CPU] = {"statctr_cpu_add", loop_statctr_cpu_add, STATCTR_NOSLOT, false, true,
                       SEG_CPU},
    [P_STATCTR_CPU2] = {"statctr_cpu_add_c2", loop_statctr_cpu_add, STATCTR_NOSLOT, false, true,
                        SEG_CPU2},
    [P_STATCTR_SHARED] = {"statctr_shared_add", loop_statctr_shared_add, STATCTR_NOSLOT, false,
                          true},
};

/* ---- the run ------------------------------------------------------------------ */

static volatile uint64_t work_sink;

struct bench {
	struct bench_env env;
	struct statctr_seg *segs[NSEGS];
	struct statctr_view *views[NSEGS];
	struct cells *mine;     /* MAX_THREADS */
	struct handle *handles; /* MAX_THREADS, handles[t].cells = mine[t].cell */
	struct shared *shared;
	void *mmv_base;
	void *mmv_val[NCELLS];
	struct pkt ring[MAX_THREADS][RING];
	unsigned max_threads;
	unsigned pool_threads; /* the thread-pool pattern: POOL_PER_CPU per CPU */
	unsigned reps;
	uint64_t work_iters; /* spin_work iterations for WORK_CYCLES */
	uint64_t target_ns;  /* wanted duration of one timed run */
};

/* One timed run's outcome. */
struct sample {
	double ns_per_update;
	double lost_hot_pct, lost_flow_pct;
	bool disturbed; /* a thread lost its CPU to another process */
};

static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Thread t's packets: its own band of flows, any flow 1 time in 16. */
static void make_rings(struct bench *b, unsigned nthreads)
{
	unsigned t, k, band = NFLOWS / nthreads ? NFLOWS / nthreads : 1;

	for (t = 0; t < nthreads; t++) {
		uint64_t seed = 0x9e3779b97f4a7c15ull * (t + 1);

		for (k = 0; k < RING; k++) {
			uint64_t r = xorshift(&seed);
			unsigned flow = (r >> 8) % 16 == 0
			                    ? (unsigned)(r >> 16) % NFLOWS
			                    : (t * band + (unsigned)(r >> 16) % band) % NFLOWS;

			b->ring[t][k].flow_cell = 2 + 2 * flow;
			b->ring[t][k].size = 64 + (uint32_t)(r % 1437);
		}
	}
}

static void expected_totals(const struct bench *b, unsigned nthreads, uint64_t packets,
                            uint64_t *exp)
{
	unsigned t;
	uint64_t i;

	memset(exp, 0, NCELLS * sizeof(*exp));
	for (t = 0; t < nthreads; t++)
		for (i = 0; i < packets; i++) {
			const struct pkt *p = &b->ring[t][i & (RING - 1)];

			exp[CELL_TOT_PKTS]++;
			exp[CELL_TOT_OCTETS] += p->size;
			exp[p->flow_cell]++;
			exp[p->flow_cell + 1] += p->size;
		}
}

static uint64_t mmv_value(void *val)
{
#ifdef HAVE_PCP_MMV
	return ((pmAtomValue *)val)->ull;
#else
	(void)val;
	return 0;
#endif
}

static void mmv_zero(void *val)
{
#ifdef HAVE_PCP_MMV
	((pmAtomValue *)val)->ull = 0;
#else
	(void)val;
#endif
}

static bool is_statctr(const struct pattern *pat)
{
	return pat->storage == STATCTR || pat->storage == STATCTR_NOSLOT;
}

static void statctr_totals(struct bench *b, const struct pattern *pat, uint64_t *out)
{
	struct statctr_snap *snap;
	uint32_t i;

	if (statctr_snap_take(b->views[pat->seg], &snap) != 0)
		bench_die("statctr_snap_take: %s", statctr_errmsg());
	for (i = 0; i < NCELLS; i++)
		out[i] = statctr_snap_counter(snap, i);
	statctr_snap_free(snap);
}

/* Zeroes the pattern's counters (statctr's cannot be: remember them). */
static void zero_totals(struct bench *b, const struct pattern *pat, unsigned nthreads,
                        uint64_t *before)
{
	uint32_t i;

	memset(before, 0, NCELLS * sizeof(*before));
	memset(b->mine, 0, nthreads * sizeof(*b->mine));
	memset(b->shared, 0, sizeof(*b->shared));
	for (i = 0; i < NCELLS && pat->storage == MMV; i++)
		mmv_zero(b->mmv_val[i]);
	if (is_statctr(pat))
		statctr_totals(b, pat, before);
}

static void read_totals(struct bench *b, const struct pattern *pat, unsigned nthreads,
                        const uint64_t *before, uint64_t *out)
{
	uint32_t i, t;

	if (is_statctr(pat))
		statctr_totals(b, pat, out);
	for (i = 0; i < NCELLS; i++) {
		uint64_t v = 0;

		for (t = 0; t < nthreads && pat->storage == PER_THREAD; t++)
			v += atomic_load_explicit(&b->mine[t].cell[i], memory_order_relaxed);
		if (pat->storage == SHARED_CELLS)
			v = atomic_load_explicit(&b->shared->cell[i], memory_order_relaxed);
		else if (pat->storage == SHARED_PLAIN)
			v = b->shared->plain[i];
		else if (pat->storage == MMV)
			v = mmv_value(b->mmv_val[i]);
		else if (is_statctr(pat))
			v = out[i] - before[i];
		out[i] = v;
	}
}

static double lost_pct(uint64_t expected, uint64_t got)
{
	return expected ? ((double)expected - (double)got) / (double)expected * 100 : 0;
}

/* Checks the totals; returns the lost percentages of the hot and flow packets. */
static void check_totals(const struct pattern *pat, unsigned nthreads, const uint64_t *exp,
                         const uint64_t *got, struct sample *s)
{
	uint64_t flow_exp = 0, flow_got = 0;
	uint32_t i, wrong = 0;

	for (i = 0; i < NCELLS; i++) {
		wrong += got[i] != exp[i];
		if (i >= 2 && i % 2 == 0)
			flow_exp += exp[i], flow_got += got[i];
	}
	s->lost_hot_pct = lost_pct(exp[CELL_TOT_PKTS], got[CELL_TOT_PKTS]);
	s->lost_flow_pct = lost_pct(flow_exp, flow_got);
	if (pat->loop == loop_none) {
		s->lost_hot_pct = s->lost_flow_pct = 0; /* nothing was counted */
		return;
	}
	bench_check(wrong == 0 || (pat->may_lose && nthreads > 1),
	            "%s, %u thread(s): %u of %u totals differ from the packets sent "
	            "(totals.packets %" PRIu64 ", expected %" PRIu64 ")",
	            pat->name, nthreads, wrong, NCELLS, got[CELL_TOT_PKTS], exp[CELL_TOT_PKTS]);
	bench_check(got[CELL_TOT_PKTS] <= exp[CELL_TOT_PKTS], "%s: more packets than sent",
	            pat->name);
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	int err = bench_pin_self(w->index);

	if (err == 0 && w->pat->storage == STATCTR)
		err = bench_slot_acquire(w->seg, &w->slot);
	if (err)
		w->packets = 0;
	w->err = err;
	pthread_barrier_wait(w->start);
	w->cpu_ns = bench_thread_cpu_ns();
	w->tsc_start = bench_tsc();
	w->sink = w->pat->loop(w);
	w->tsc_end = bench_tsc();
	w->cpu_ns = bench_thread_cpu_ns() - w->cpu_ns;
	if (w->slot)
		statctr_slot_release(w->slot);
	return NULL;
}

static void setup_worker(struct bench *b, struct worker *w, unsigned t)
{
	w->mine = &b->mine[t];
	w->handle = &b->handles[t];
	w->shared = b->shared;
	w->mmv_base = b->mmv_base;
	memcpy(w->mmv_val, b->mmv_val, sizeof(w->mmv_val));
	w->ring = b->ring[t];
	w->index = t;
}

/*
 * Runs @pat on @nthreads pinned threads; returns elapsed TSC ticks.
 * *disturbed tells whether a thread was off its CPU for more than 2% of
 * its run (another process ran there): such a run measures the neighbour.
 */
static uint64_t run_threads(struct bench *b, const struct pattern *pat, unsigned nthreads,
                            uint64_t packets, uint64_t work_iters, bool *disturbed)
{
	struct worker *w = aligned_alloc(64, nthreads * sizeof(*w));
	pthread_barrier_t start;
	uint64_t first = UINT64_MAX, last = 0, sink = 0;
	unsigned t;

	if (!w)
		bench_die("out of memory");
	memset(w, 0, nthreads * sizeof(*w));
	pthread_barrier_init(&start, NULL, nthreads);
	for (t = 0; t < nthreads; t++) {
		setup_worker(b, &w[t], t);
		w[t].seg = b->segs[pat->seg];
		w[t].pat = pat;
		w[t].start = &start;
		w[t].packets = packets;
		w[t].work_iters = work_iters;
		if (pthread_create(&w[t].thread, NULL, worker_main, &w[t]) != 0)
			bench_die("pthread_create: %s", strerror(errno));
	}
	for (t = 0; t < nthreads; t++) {
		pthread_join(w[t].thread, NULL);
		bench_check(!w[t].slot || t == 0 || w[t].slot != w[t - 1].slot,
		            "%s: threads %u and %u were given the same slot", pat->name, t - 1, t);
		if (w[t].err)
			bench_die("%s thread %u: %s", pat->name, t,
			          w[t].err == -EBUSY ? statctr_errmsg() : strerror(-w[t].err));
		/* A pool shares its CPUs by design: not a disturbance. */
		*disturbed |= nthreads <= b->max_threads &&
		              (double)w[t].cpu_ns <
		                  0.98 * (double)(w[t].tsc_end - w[t].tsc_start) / bench_tsc_ghz();
		first = w[t].tsc_start < first ? w[t].tsc_start : first;
		last = w[t].tsc_end > last ? w[t].tsc_end : last;
		sink ^= w[t].sink;
	}
	pthread_barrier_destroy(&start);
	free(w);
	work_sink = sink; /* the work's result is used: it cannot be optimised away */
	return last - first;
}

/* One timed, checked run. */
static struct sample run_once(struct bench *b, const struct pattern *pat, unsigned nthreads,
                              uint64_t packets, uint64_t work_iters)
{
	uint64_t before[NCELLS], got[NCELLS], exp[NCELLS], ticks;
	struct sample s;

	zero_totals(b, pat, nthreads, before);
	s.disturbed = false;
	ticks = run_threads(b, pat, nthreads, packets, work_iters, &s.disturbed);
	read_totals(b, pat, nthreads, before, got);
	expected_totals(b, nthreads, packets, exp);
	check_totals(pat, nthreads, exp, got, &s);
	s.ns_per_update = (double)ticks / bench_tsc_ghz() / (double)(packets * 4);
	return s;
}

/* ---- set-up: statctr segment, PCP MMV file, work calibration ----------------- */

static void setup_segment(struct bench *b, enum segment_id sg, const char *file, unsigned nslots,
                          const char *extra)
{
	static const char *const columns[2] = {"packets", "octets"};
	char config[512], seg_path[512];
	struct statctr_seg *seg;
	statctr_id id;
	uint32_t f, c;

	bench_write_config_ex(&b->env, file, nslots, extra, NFLOWS, NULL, config, sizeof(config));
	if (statctr_seg_create(config, "bench", &b->segs[sg]) != 0)
		bench_die("statctr_seg_create: %s", statctr_errmsg());
	seg = b->segs[sg];
	/* Same layout as the hand-written patterns: check it, do not assume it. */
	for (c = 0; c < 2; c++) {
		bench_check(statctr_seg_lookup(seg, "totals", columns[c], 0, &id) == 0 && id == c,
		            "totals.%s is not cell %u", columns[c], c);
		for (f = 0; f < NFLOWS; f++)
			bench_check(statctr_seg_lookup(seg, "flows", columns[c], f, &id) == 0 &&
			                id == 2 + 2 * f + c,
			            "flows.%s.%u is not cell %u", columns[c], f, 2 + 2 * f + c);
	}
	snprintf(seg_path, sizeof(seg_path), "%s/%s", b->env.tmp_dir, file);
	if (statctr_view_open(seg_path, &b->views[sg]) != 0)
		bench_die("statctr_view_open: %s", statctr_errmsg());
}

/* Thread slots for every thread of every run; CPU slots, collapse 1 and 2. */
static void setup_statctr(struct bench *b)
{
	setup_segment(b, SEG_SLOTS, "update", b->pool_threads, "");
	setup_segment(b, SEG_CPU, "update_cpu", 0, "cpu_slots = true;");
	setup_segment(b, SEG_CPU2, "update_cpu2", 0, "cpu_slots = { collapse = 2; };");
	printf("statctr_cpu_add: mode %d with collapse 1 (1: restartable sequences, 0: locked "
	       "adds), %d with collapse 2\n",
	       statctr_cpu_mode(b->segs[SEG_CPU]), statctr_cpu_mode(b->segs[SEG_CPU2]));
}

#ifdef HAVE_PCP_MMV
static void add_mmv_metric(mmv_registry_t *reg, const char *name, int item, int indom)
{
	pmUnits count = MMV_UNITS(0, 0, 1, 0, 0, PM_COUNT_ONE);

	if (mmv_stats_add_metric(reg, name, item, MMV_TYPE_U64, MMV_SEM_COUNTER, count, indom, name,
	                         name) < 0)
		bench_die("mmv_stats_add_metric %s failed", name);
}

static void lookup_mmv(struct bench *b)
{
	static const char *const columns[2] = {"packets", "octets"};
	char metric[64], inst[16];
	uint32_t f, c;

	for (c = 0; c < 2; c++) {
		snprintf(metric, sizeof(metric), "totals.%s", columns[c]);
		b->mmv_val[c] = mmv_lookup_value_desc(b->mmv_base, metric, NULL);
		snprintf(metric, sizeof(metric), "flows.%s", columns[c]);
		for (f = 0; f < NFLOWS; f++) {
			snprintf(inst, sizeof(inst), "flow%u", f);
			b->mmv_val[2 + 2 * f + c] =
			    mmv_lookup_value_desc(b->mmv_base, metric, inst);
		}
	}
	for (c = 0; c < NCELLS; c++)
		if (!b->mmv_val[c])
			bench_die("mmv_lookup_value_desc failed for cell %u", c);
}

/* The same 2 + 2 x 64 counters as PCP MMV metrics, file in our scratch dir. */
static void setup_mmv(struct bench *b)
{
	static char inst[NFLOWS][16]; /* the registry keeps the pointers */
	char dir[300];
	mmv_registry_t *reg;
	int f;

	snprintf(dir, sizeof(dir), "%s/mmv", b->env.tmp_dir);
	if (mkdir(dir, 0700) != 0 || setenv("PCP_TMP_DIR", b->env.tmp_dir, 1) != 0)
		bench_die("%s: %s", dir, strerror(errno));
	reg = mmv_stats_registry("statctr-bench", 42, 0);
	if (!reg || mmv_stats_add_indom(reg, 1, "flows", "flows") < 0)
		bench_die("mmv_stats_registry failed");
	/* PCP 6.0.3's mmv_stats_add_instance() adds the instance and then
	 * returns -1 anyway (its search loop never breaks): lookup_mmv()
	 * checks every instance instead. */
	for (f = 0; f < NFLOWS; f++) {
		snprintf(inst[f], sizeof(inst[f]), "flow%d", f);
		mmv_stats_add_instance(reg, 1, f, inst[f]);
	}
	add_mmv_metric(reg, "totals.packets", 1, MMV_INDOM_NULL);
	add_mmv_metric(reg, "totals.octets", 2, MMV_INDOM_NULL);
	add_mmv_metric(reg, "flows.packets", 3, 1);
	add_mmv_metric(reg, "flows.octets", 4, 1);
	b->mmv_base = mmv_stats_start(reg);
	if (!b->mmv_base)
		bench_die("mmv_stats_start failed (PCP_TMP_DIR=%s)", b->env.tmp_dir);
	lookup_mmv(b);
	patterns[P_PCP_MMV].available = true;
}
#else
static void setup_mmv(struct bench *b)
{
	(void)b;
}
#endif

/* Iterations of spin_work() that take about WORK_CYCLES TSC ticks (best of 5). */
static uint64_t calibrate_work(void)
{
	double best = INFINITY;
	volatile uint64_t sink;
	int i;

	for (i = 0; i < 5; i++) {
		uint64_t t0 = bench_tsc(), x = spin_work(t0, 1000000);
		double per = (double)(bench_tsc() - t0) / 1e6;

		sink = x;
		best = per < best ? per : best;
	}
	(void)sink;
	return (uint64_t)llround(WORK_CYCLES / best);
}

/* ---- measurement plan and report ------------------------------------------ */

struct config_result {
	uint64_t packets;
	unsigned redone;    /* disturbed runs measured again */
	unsigned disturbed; /* runs still disturbed after MAX_REDO re-runs, kept */
	double ns[MAX_REPS];
	struct sample median;
	struct bench_stats st;
};

/* Packets per timed run so that a run lasts about target_ns. */
static uint64_t size_run(struct bench *b, const struct pattern *pat, unsigned nthreads,
                         uint64_t work_iters)
{
	uint64_t pilot = b->env.quick ? 2000 : 20000, packets;
	struct sample s = run_once(b, pat, nthreads, pilot, work_iters);

	packets = (uint64_t)((double)b->target_ns / (s.ns_per_update * 4));
	return packets < pilot ? pilot : packets > 50000000 ? 50000000 : packets;
}

/* run_once(), again (at most MAX_REDO times) while another process disturbs it. */
static struct sample run_undisturbed(struct bench *b, const struct pattern *pat, unsigned nthreads,
                                     uint64_t packets, uint64_t work_iters,
                                     struct config_result *res)
{
	struct sample s = run_once(b, pat, nthreads, packets, work_iters);
	unsigned i;

	for (i = 0; i < MAX_REDO && s.disturbed; i++, res->redone++)
		s = run_once(b, pat, nthreads, packets, work_iters);
	res->disturbed += s.disturbed;
	return s;
}

/* Runs the patterns round-robin, rep by rep, so noise hits them alike. */
static void measure_config(struct bench *b, unsigned nthreads, uint64_t work_iters,
                           struct config_result *res)
{
	double hot[NPATTERNS][MAX_REPS], flow[NPATTERNS][MAX_REPS], ns[MAX_REPS];
	unsigned p, r;

	make_rings(b, nthreads);
	for (p = 0; p < NPATTERNS; p++)
		if (patterns[p].available)
			res[p].packets = size_run(b, &patterns[p], nthreads, work_iters);
	for (r = 0; r < b->reps; r++)
		for (p = 0; p < NPATTERNS; p++) {
			struct sample s;

			if (!patterns[p].available)
				continue;
			s = run_undisturbed(b, &patterns[p], nthreads, res[p].packets, work_iters,
			                    &res[p]);
			res[p].ns[r] = s.ns_per_update;
			hot[p][r] = s.lost_hot_pct;
			flow[p][r] = s.lost_flow_pct;
		}
	for (p = 0; p < NPATTERNS; p++) {
		if (!patterns[p].available)
			continue;
		memcpy(ns, res[p].ns, sizeof(ns));
		res[p].st = bench_stats_of(ns, b->reps);
		res[p].median.ns_per_update = res[p].st.median;
		res[p].median.lost_hot_pct = bench_stats_of(hot[p], b->reps).median;
		res[p].median.lost_flow_pct = bench_stats_of(flow[p], b->reps).median;
	}
}

/* Median over reps of the per-rep ratio a/b (adjacent runs: paired). */
static double paired_ratio(const struct bench *b, const struct config_result *a,
                           const struct config_result *base)
{
	double r[MAX_REPS];
	unsigned i;

	for (i = 0; i < b->reps; i++)
		r[i] = a->ns[i] / base->ns[i];
	return bench_stats_of(r, b->reps).median;
}

static void report_config(struct bench *b, FILE *csv, unsigned nthreads, unsigned work,
                          const struct config_result *res)
{
	double none = res[P_NONE].st.median;
	unsigned p;

	printf("\n%u thread(s), %u cycles of work per packet (ns per update; median of %u)\n",
	       nthreads, work, b->reps);
	printf("%-20s %9s %8s %8s %7s %9s %9s %9s %8s %8s %5s %5s\n", "pattern", "ns/upd", "min",
	       "max", "spread%", "cycles", "net ns", "x per-thr", "lost hot%", "lost flow%", "redo",
	       "kept");
	for (p = 0; p < NPATTERNS; p++) {
		const struct config_result *c = &res[p];
		double net = c->st.median - none, ratio;

		if (!patterns[p].available) {
			printf("%-20s skipped (no PCP MMV at configure time: libpcp-mmv1-dev "
			       "libpcp3-dev)\n",
			       patterns[p].name);
			continue;
		}
		ratio = paired_ratio(b, c, &res[P_PER_THREAD]);
		printf("%-20s %9.3f %8.3f %8.3f %7.1f %9.2f %9.3f %9.2f", patterns[p].name,
		       c->st.median, c->st.min, c->st.max, c->st.spread_pct,
		       c->st.median * bench_tsc_ghz(), net, ratio);
		if (p == P_NONE)
			printf(" %8s %8s", "-", "-");
		else
			printf(" %8.2f %8.2f", c->median.lost_hot_pct, c->median.lost_flow_pct);
		printf(" %5u %5u\n", c->redone, c->disturbed);
		fprintf(
		    csv,
		    "%s,%u,%u,%" PRIu64 ",%u,%.4f,%.4f,%.4f,%.2f,%.3f,%.4f,%.4f,%.3f,%.3f,%u,%u\n",
		    patterns[p].name, nthreads, work, c->packets, b->reps, c->st.median, c->st.min,
		    c->st.max, c->st.spread_pct, c->st.median * bench_tsc_ghz(), net, ratio,
		    c->median.lost_hot_pct, c->median.lost_flow_pct, c->redone, c->disturbed);
	}
}

struct all_results {
	struct config_result r[2][MAX_THREADS + 1][NPATTERNS]; /* [work?][threads][pattern] */
};

/* The thread pool (POOL_PER_CPU threads per CPU), no work: each pattern
 * against the per-thread baseline of the same run. */
static void report_pool(struct bench *b, const struct config_result *c)
{
	static const enum pattern_id shown[] = {P_STATCTR_CPU,    P_STATCTR_CPU2,  P_STATCTR_ADD,
	                                        P_STATCTR_SHARED, P_SHARED_ATOMIC, P_PCP_MMV};
	char what[128];
	size_t i;

	for (i = 0; i < sizeof(shown) / sizeof(shown[0]); i++) {
		if (!patterns[shown[i]].available)
			continue;
		snprintf(what, sizeof(what), "update: pool of %u threads: %s / per-thread baseline",
		         b->pool_threads, patterns[shown[i]].name);
		bench_info(&b->env, what, paired_ratio(b, &c[shown[i]], &c[P_PER_THREAD]));
	}
}

static void report_targets(struct bench *b, struct all_results *all)
{
	struct config_result *one = all->r[0][1], *two;
	char what[128];
	unsigned t;

	for (t = 1; t <= b->max_threads && t <= 2; t++) {
		struct config_result *c = all->r[0][t];

		snprintf(what, sizeof(what), "update: statctr_add / per-thread baseline, %u thr",
		         t);
		bench_target(&b->env, what, paired_ratio(b, &c[P_STATCTR_ADD], &c[P_PER_THREAD]),
		             "<=", 1.2);
		snprintf(what, sizeof(what), "update: statctr txn / seqcount baseline, %u thr", t);
		bench_target(&b->env, what, paired_ratio(b, &c[P_STATCTR_TXN], &c[P_SEQCOUNT]),
		             "<=", 1.2);
		snprintf(what, sizeof(what),
		         "update: statctr_cpu_add (collapse 1) / per-thread baseline, %u thr", t);
		bench_target(&b->env, what, paired_ratio(b, &c[P_STATCTR_CPU], &c[P_PER_THREAD]),
		             "<=", 1.3);
	}
	report_pool(b, all->r[0][b->pool_threads]);
	if (b->max_threads < 2) {
		printf("TARGET (2-thread targets skipped: 1 CPU)\n");
		return;
	}
	two = all->r[0][2];
	bench_info(&b->env, "update: per-thread baseline 2-thr/1-thr throughput (ceiling)",
	           one[P_PER_THREAD].st.median / two[P_PER_THREAD].st.median);
	bench_target(&b->env, "update: statctr_add 2-thr/1-thr per-thread throughput",
	             one[P_STATCTR_ADD].st.median / two[P_STATCTR_ADD].st.median, ">=", 0.9);
	bench_target(&b->env, "update: statctr txn 2-thr/1-thr per-thread throughput",
	             one[P_STATCTR_TXN].st.median / two[P_STATCTR_TXN].st.median, ">=", 0.9);
	bench_target(&b->env, "update: shared atomic / statctr_add, 2 thr",
	             paired_ratio(b, &two[P_SHARED_ATOMIC], &two[P_STATCTR_ADD]), ">=", 10);
}

/* One run of every pattern, 1 thread, no work: for callgrind's instruction counts. */
static void run_callgrind(struct bench *b, uint64_t packets)
{
	unsigned p;

	make_rings(b, 1);
	for (p = 0; p < NPATTERNS; p++)
		if (patterns[p].available)
			run_once(b, &patterns[p], 1, packets, 0);
	printf("callgrind: %" PRIu64 " packets (x 4 updates) per pattern, 1 thread\n", packets);
}

static void run_all(struct bench *b)
{
	static struct all_results all;
	FILE *csv = bench_csv_open(&b->env, "update.csv",
	                           "pattern,threads,work_cycles,packets,reps,ns_per_update,ns_min,"
	                           "ns_max,spread_pct,tsc_cycles_per_update,net_ns_per_update,"
	                           "ratio_vs_per_thread,lost_hot_pct,lost_flow_pct,redone_runs,"
	                           "disturbed_runs_kept");
	unsigned t, wk, p, kept = 0, runs = 0;

	b->work_iters = calibrate_work();
	printf("TSC %.3f GHz; %u cycles of work = %" PRIu64 " multiply-add iterations\n",
	       bench_tsc_ghz(), WORK_CYCLES, b->work_iters);
	for (wk = 0; wk < 2; wk++)
		for (t = 1; t <= b->max_threads; t++) {
			measure_config(b, t, wk ? b->work_iters : 0, all.r[wk][t]);
			report_config(b, csv, t, wk ? WORK_CYCLES : 0, all.r[wk][t]);
			for (p = 0; p < NPATTERNS; p++, runs += b->reps)
				kept += all.r[wk][t][p].disturbed;
		}
	/* The thread pool: more threads than CPUs, each pinned to CPU t mod
	 * ncpus, sharing it with the others by time slices. */
	printf("\nthread pool: %u threads on %u CPU(s)\n", b->pool_threads, b->max_threads);
	for (wk = 0; wk < 2; wk++) {
		measure_config(b, b->pool_threads, wk ? b->work_iters : 0,
		               all.r[wk][b->pool_threads]);
		report_config(b, csv, b->pool_threads, wk ? WORK_CYCLES : 0,
		              all.r[wk][b->pool_threads]);
	}
	bench_csv_close(csv);
	printf("\n");
	if (kept)
		printf("WARNING: %u of %u runs were disturbed by other processes even after %d "
		       "re-runs: those figures measure the neighbours too\n",
		       kept, runs, MAX_REDO);
	bench_info(&b->env, "update: % of runs disturbed by other processes", 100.0 * kept / runs);
	report_targets(b, &all);
}

static void usage(void)
{
	fprintf(stderr, "usage: bench_update [--out DIR] [--quick] [--callgrind PACKETS]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {{"out", required_argument, NULL, 'o'},
	                                     {"quick", no_argument, NULL, 'q'},
	                                     {"callgrind", required_argument, NULL, 'c'},
	                                     {NULL, 0, NULL, 0}};
	static struct bench b;
	const char *out = "bench-results";
	uint64_t callgrind = 0;
	bool quick = false;
	unsigned t;
	int opt, rc;

	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (opt == 'o')
			out = optarg;
		else if (opt == 'q')
			quick = true;
		else if (opt == 'c')
			callgrind = strtoull(optarg, NULL, 10);
		else
			usage();
	}
	bench_init(&b.env, "update", out, quick);
	b.max_threads = b.env.ncpus > MAX_THREADS ? MAX_THREADS : b.env.ncpus;
	b.reps = quick ? 2 : 15;
	b.target_ns = quick ? 1000000 : 20000000;
	b.mine = aligned_alloc(64, MAX_THREADS * sizeof(*b.mine));
	b.handles = calloc(MAX_THREADS, sizeof(*b.handles));
	b.shared = aligned_alloc(64, sizeof(*b.shared));
	if (!b.mine || !b.handles || !b.shared)
		bench_die("out of memory");
	for (t = 0; t < MAX_THREADS; t++)
		b.handles[t].cells = b.mine[t].cell;
	b.pool_threads = POOL_PER_CPU * b.max_threads;
	if (b.pool_threads > MAX_THREADS)
		b.pool_threads = MAX_THREADS;
	setup_statctr(&b);
	setup_mmv(&b);
	if (callgrind)
		run_callgrind(&b, callgrind);
	else
		run_all(&b);
	for (t = 0; t < NSEGS; t++) {
		statctr_view_close(b.views[t]);
		statctr_seg_destroy(b.segs[t]);
	}
	rc = bench_finish(&b.env);
	free(b.mine);
	free(b.handles);
	free(b.shared);
	return rc;
}
