/*
 * bench_snapshot.c - what a snapshot costs the reader and the writers
 * (docs/PERFORMANCE.md, "Snapshots").
 *
 *   cost:        statctr_snap_take() (+ free) and statctr_snap_retake() into
 *                a kept snapshot, in the reader's CPU time per cell and
 *                slot, writers idle, for
 *                1k..1M cells x 1..64 slots, against copying the same bytes
 *                with memcpy (into a reused buffer, and into a fresh one);
 *                and a sums-only retake (statctr_view_set_sums_only())
 *                against a plain loop summing the same mapping's cells
 *                over slots into a reused array (the read limit); and a
 *                plain loop copying the same cells to rows and summing
 *                them (what a full snapshot stores, at the least).
 *   consistency: 2 writer threads run 4-update transactions flat out on
 *                100,000 cells x 2 slots; a reader in another process
 *                (this program, --reader) snapshots every 100 ms and checks
 *                totals == sum of flows itself, and busy_slots == 0.
 *   slowdown:    writer throughput with a reader polling every 10 ms,
 *                100 ms, 1 s against no reader, in paired runs (ABBA).
 *
 * Never stores to a segment it reads; the writers are ordinary statctr
 * writers (one slot per thread, statctr_txn_begin/end).
 */
#include "config.h"

#include "harness.h"
#include "statctr.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_SAMPLES  2000
#define NWRITERS     2
#define TXN_BATCH    1024  /* transactions between looks at the stop flag */
#define CONSIST_ROWS 49999 /* flows: 2 + 2 x 49,999 = 100,000 cells */

/* Cells of the bench segment (bench_write_config()'s layout). */
#define CELL_TOT_PKTS   0
#define CELL_TOT_OCTETS 1
static uint32_t flow_cell(uint32_t flow)
{
	return 2 + 2 * flow;
}

struct segment {
	struct statctr_seg *seg;
	char path[512];
	uint32_t nflows;
};

static void segment_create(const struct bench_env *env, struct segment *s, const char *file,
                           unsigned nslots, uint32_t nflows)
{
	char config[512];

	bench_write_config(env, file, nslots, nflows, NULL, config, sizeof(config));
	if (statctr_seg_create(config, "bench", &s->seg) != 0)
		bench_die("statctr_seg_create (%u flows x %u slots): %s", nflows, nslots,
		          statctr_errmsg());
	snprintf(s->path, sizeof(s->path), "%s/%s", env->tmp_dir, file);
	s->nflows = nflows;
}

/* ---- the reader's checks ---------------------------------------------------- */

struct check {
	uint64_t snapshots, consistent, busy, assisted, retries, dead_torn, invariant_broken;
	double take_ms[MAX_SAMPLES];
	unsigned ntake;
};

static bool invariant_holds(const struct statctr_snap *snap, uint32_t nflows)
{
	uint64_t pkts = 0, octets = 0;
	uint32_t f;

	for (f = 0; f < nflows; f++) {
		pkts += statctr_snap_counter(snap, flow_cell(f));
		octets += statctr_snap_counter(snap, flow_cell(f) + 1);
	}
	return pkts == statctr_snap_counter(snap, CELL_TOT_PKTS) &&
	       octets == statctr_snap_counter(snap, CELL_TOT_OCTETS);
}

static void check_one(struct statctr_view *view, uint32_t nflows, struct check *c)
{
	struct statctr_snap_stats st;
	struct statctr_snap *snap;
	uint64_t t0 = bench_now_ns();
	bool ok;

	if (statctr_snap_take(view, &snap) != 0)
		bench_die("statctr_snap_take: %s", statctr_errmsg());
	if (c->ntake < MAX_SAMPLES)
		c->take_ms[c->ntake++] = (double)(bench_now_ns() - t0) / 1e6;
	statctr_snap_stats(snap, &st);
	ok = invariant_holds(snap, nflows);
	c->snapshots++;
	c->invariant_broken += !ok;
	c->consistent += ok && st.busy_slots == 0 && st.dead_torn_slots == 0;
	c->busy += st.busy_slots;
	c->assisted += st.assisted_slots;
	c->retries += st.retries;
	c->dead_torn += st.dead_torn_slots;
	statctr_snap_free(snap);
}

/* One polling run of the reader: every interval_ms for duration_ms. */
static void poll_for(struct statctr_view *view, unsigned interval_ms, unsigned duration_ms)
{
	static struct check c;
	struct statctr_seg_info info;
	struct bench_stats take;
	uint64_t start = bench_now_ns(), next = start;

	memset(&c, 0, sizeof(c));
	statctr_view_info(view, &info);
	while (bench_now_ns() - start < (uint64_t)duration_ms * 1000000u) {
		check_one(view, (info.ncells - 2) / 2, &c);
		next += (uint64_t)interval_ms * 1000000u;
		if (next > bench_now_ns())
			bench_sleep_ns(next - bench_now_ns());
	}
	take = bench_stats_of(c.take_ms, c.ntake);
	printf("%" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64
	       " %.3f %.3f\n",
	       c.snapshots, c.consistent, c.invariant_broken, c.busy, c.assisted, c.retries,
	       c.dead_torn, take.median, take.max);
	fflush(stdout);
}

/*
 * The --reader process: maps the segment once, then for each line
 * "INTERVAL_MS DURATION_MS" on stdin polls and prints one summary line;
 * exits at end of input.
 */
static int reader_main(const char *path)
{
	struct statctr_view *view;
	unsigned interval_ms, duration_ms;

	if (statctr_view_open(path, &view) != 0) {
		fprintf(stderr, "reader: %s\n", statctr_errmsg());
		return 2;
	}
	while (scanf("%u %u", &interval_ms, &duration_ms) == 2 && interval_ms > 0)
		poll_for(view, interval_ms, duration_ms);
	statctr_view_close(view);
	return 0;
}

struct reader_result {
	uint64_t snapshots, consistent, invariant_broken, busy, assisted, retries, dead_torn;
	double take_ms_median, take_ms_max;
};

/* The reader process as seen from here. */
struct reader {
	pid_t pid;
	FILE *cmd, *res;
};

static void reader_start(struct reader *rd, const char *path)
{
	char *argv[] = {"/proc/self/exe", "--reader", (char *)path, NULL};
	int in[2], out[2];

	/* O_CLOEXEC: the child keeps only its own ends, so it sees EOF. */
	if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0)
		bench_die("pipe: %s", strerror(errno));
	rd->pid = bench_spawn(argv, in[0], out[1], -1);
	close(in[0]);
	close(out[1]);
	rd->cmd = fdopen(in[1], "w");
	rd->res = fdopen(out[0], "r");
	if (!rd->cmd || !rd->res)
		bench_die("fdopen: %s", strerror(errno));
}

static void reader_run(struct reader *rd, unsigned interval_ms, unsigned duration_ms,
                       struct reader_result *r)
{
	memset(r, 0, sizeof(*r));
	if (fprintf(rd->cmd, "%u %u\n", interval_ms, duration_ms) < 0 || fflush(rd->cmd) != 0 ||
	    fscanf(rd->res,
	           "%" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64
	           " %" SCNu64 " %lf %lf",
	           &r->snapshots, &r->consistent, &r->invariant_broken, &r->busy, &r->assisted,
	           &r->retries, &r->dead_torn, &r->take_ms_median, &r->take_ms_max) != 9)
		bench_die("the reader process gave no summary");
}

static void reader_stop(struct reader *rd)
{
	int status;

	fclose(rd->cmd);
	status = bench_wait(rd->pid, 5000);
	if (status < 0)
		status = bench_stop(rd->pid);
	fclose(rd->res);
	bench_check(status == 0, "the reader process exited with status %d", status);
}

/* ---- writers ------------------------------------------------------------------- */

/* Writer threads that run transactions flat out until stopped. */
struct writer {
	_Alignas(64) _Atomic uint64_t txns; /* published every TXN_BATCH */
	pthread_t thread;
	unsigned index;
	struct segment *seg;
	_Atomic bool *stop;
	int err;
};

struct pool {
	struct writer w[NWRITERS];
	_Atomic bool stop;
};

static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* One packet: flow and totals move together in one transaction. */
static inline void packet_txn(struct statctr_slot *slot, uint32_t flow, uint64_t size)
{
	statctr_txn_begin(slot);
	statctr_add(slot, CELL_TOT_PKTS, 1);
	statctr_add(slot, CELL_TOT_OCTETS, size);
	statctr_add(slot, flow_cell(flow), 1);
	statctr_add(slot, flow_cell(flow) + 1, size);
	statctr_txn_end(slot);
}

static void *writer_main(void *arg)
{
	struct writer *w = arg;
	uint32_t band = w->seg->nflows / NWRITERS;
	uint64_t seed = 0x9e3779b97f4a7c15ull * (w->index + 1), done = 0, k;
	struct statctr_slot *slot;

	bench_pin_self(w->index);
	w->err = bench_slot_acquire(w->seg->seg, &slot);
	if (w->err)
		return NULL;
	while (!atomic_load_explicit(w->stop, memory_order_relaxed)) {
		for (k = 0; k < TXN_BATCH; k++) {
			uint64_t r = xorshift(&seed);

			packet_txn(slot, w->index * band + (uint32_t)(r >> 20) % band,
			           64 + r % 1437);
		}
		done += TXN_BATCH;
		atomic_store_explicit(&w->txns, done, memory_order_relaxed);
	}
	statctr_slot_release(slot);
	return NULL;
}

static void pool_start(struct pool *p, struct segment *seg)
{
	unsigned i;

	memset(p, 0, sizeof(*p));
	for (i = 0; i < NWRITERS; i++) {
		p->w[i].index = i;
		p->w[i].seg = seg;
		p->w[i].stop = &p->stop;
		if (pthread_create(&p->w[i].thread, NULL, writer_main, &p->w[i]) != 0)
			bench_die("pthread_create: %s", strerror(errno));
	}
}

static void pool_stop(struct pool *p)
{
	unsigned i;

	atomic_store(&p->stop, true);
	for (i = 0; i < NWRITERS; i++) {
		pthread_join(p->w[i].thread, NULL);
		if (p->w[i].err)
			bench_die("writer %u: %s", i, statctr_errmsg());
	}
}

static uint64_t pool_txns(struct pool *p)
{
	uint64_t sum = 0;
	unsigned i;

	for (i = 0; i < NWRITERS; i++)
		sum += atomic_load_explicit(&p->w[i].txns, memory_order_relaxed);
	return sum;
}

/*
 * One phase of duration_ms with the writers running, the reader polling
 * every interval_ms (NULL reader: none).  Returns the writers' ns per
 * update (per thread) during the phase; @r receives the reader's summary.
 */
static double phase(struct pool *p, struct reader *rd, unsigned interval_ms, unsigned duration_ms,
                    struct reader_result *r)
{
	uint64_t t0 = bench_now_ns(), n0 = pool_txns(p);

	if (rd)
		reader_run(rd, interval_ms, duration_ms, r);
	else
		bench_sleep_ns((uint64_t)duration_ms * 1000000u);
	return (double)(bench_now_ns() - t0) * NWRITERS / ((double)(pool_txns(p) - n0) * 4);
}

/* ---- 1. reader cost ------------------------------------------------------------ */

struct mapping {
	const uint8_t *base;
	size_t size;
};

static struct mapping map_file(const char *path)
{
	struct mapping m = {NULL, 0};
	struct stat st;
	int fd = open(path, O_RDONLY);
	void *p;

	if (fd < 0 || fstat(fd, &st) != 0)
		bench_die("%s: %s", path, strerror(errno));
	p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		bench_die("mmap %s: %s", path, strerror(errno));
	m.base = p;
	m.size = (size_t)st.st_size;
	return m;
}

struct cost {
	double snap_ms, snap_min_ms, snap_max_ms, retake_ms, warm_ms, fresh_ms;
	double sums_ms, loop_ms;      /* sums-only retake; the plain summing loop */
	double bare_ms;               /* a full snapshot's bare loop (time_full_loop()) */
	double faults, retake_faults; /* minor page faults per snapshot */
};

/*
 * The reading thread's CPU time (user and system: page faults count), as
 * tests/security/copy_flood.sh measures its writer: the time other
 * processes on this shared 2-CPU machine take from us does not count.
 * Nothing timed with it waits (the writers are idle).
 */
static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Average CPU ms of @inner snapshots: retaken into @keep, or taken and freed. */
static double time_snapshot(struct statctr_view *view, struct statctr_snap *keep, unsigned inner)
{
	struct statctr_snap *snap;
	uint64_t t0 = cpu_ns();
	unsigned i;

	for (i = 0; i < inner; i++) {
		if (keep) {
			if (statctr_snap_retake(view, &keep) != 0)
				bench_die("statctr_snap_retake: %s", statctr_errmsg());
			continue;
		}
		if (statctr_snap_take(view, &snap) != 0)
			bench_die("statctr_snap_take: %s", statctr_errmsg());
		statctr_snap_free(snap);
	}
	return (double)(cpu_ns() - t0) / 1e6 / inner;
}

/* CPU ms of a memcpy of the slots' bytes: into a reused buffer (warm) or a fresh one. */
static double time_memcpy(const struct mapping *m, size_t off, uint8_t *reuse, unsigned inner)
{
	uint64_t t0 = cpu_ns();
	unsigned i;

	for (i = 0; i < inner; i++) {
		uint8_t *dst = reuse ? reuse : malloc(m->size - off);

		if (!dst)
			bench_die("out of memory");
		memcpy(dst, m->base + off, m->size - off);
		__asm__ volatile("" : : "r"(dst) : "memory");
		if (!reuse)
			free(dst);
	}
	return (double)(cpu_ns() - t0) / 1e6 / inner;
}

/*
 * The read limit of a sums-only snapshot: the same mapping's cells summed
 * over its slots (the shared slot too) into a reused array, slot after
 * slot, the first slot stored as it is.  Plain loads, which the compiler
 * may vectorise; no sequence checks, baselines or rows.
 */
static double time_sum_loop(const struct mapping *m, size_t off, uint32_t ncells, unsigned nslots,
                            uint64_t *sum, unsigned inner)
{
	size_t stride = 64 + ((size_t)ncells * 8 + 63) / 64 * 64;
	uint64_t t0 = cpu_ns();
	unsigned i, s;
	uint32_t c;

	for (i = 0; i < inner; i++) {
		const uint64_t *cells = (const uint64_t *)(m->base + off + 64);

		for (c = 0; c < ncells; c++)
			sum[c] = cells[c];
		for (s = 1; s <= nslots; s++) {
			cells = (const uint64_t *)(m->base + off + s * stride + 64);
			for (c = 0; c < ncells; c++)
				sum[c] += cells[c];
		}
		__asm__ volatile("" : : "r"(sum) : "memory");
	}
	return (double)(cpu_ns() - t0) / 1e6 / inner;
}

/*
 * The bare loop of a full snapshot: each slot's cells (the shared slot's
 * too) copied to a row of @rows and summed over the slots into @sum, two
 * slots per pass, in the 16-byte vectors of the library's loop; no
 * sequence check, baseline or bookkeeping.  At 1 slot (two with the
 * shared one) that is one pass and the least any full snapshot must do:
 * it stores 3 arrays where a memcpy of the slots stores 2.  From 2 slots
 * the library, one pass per group of 8 with the sum in registers, does
 * better than this loop.
 */
typedef uint64_t cells2 __attribute__((vector_size(16)));

static void full_pair(const uint64_t *a, const uint64_t *b, uint64_t *ra, uint64_t *rb,
                      uint64_t *sum, bool first, uint32_t ncells)
{
	cells2 x, y, z;
	uint32_t c;

	for (c = 0; c + 2 <= ncells; c += 2) {
		memcpy(&x, a + c, sizeof(x));
		memcpy(&y, b ? b + c : a + c, sizeof(y));
		memcpy(ra + c, &x, sizeof(x));
		if (b)
			memcpy(rb + c, &y, sizeof(y));
		else
			y = (cells2){0, 0};
		if (!first) {
			memcpy(&z, sum + c, sizeof(z));
			x += z;
		}
		x += y;
		memcpy(sum + c, &x, sizeof(x));
	}
}

static double time_full_loop(const struct mapping *m, size_t off, uint32_t ncells, unsigned nslots,
                             uint64_t *rows, uint64_t *sum, unsigned inner)
{
	size_t stride = 64 + ((size_t)ncells * 8 + 63) / 64 * 64;
	uint64_t t0 = cpu_ns();
	unsigned i, s;

	for (i = 0; i < inner; i++) {
		for (s = 0; s <= nslots; s += 2) {
			const uint64_t *a = (const uint64_t *)(m->base + off + s * stride + 64);
			const uint64_t *b = s < nslots ? a + stride / 8 : NULL;

			full_pair(a, b, rows + (size_t)s * ncells, rows + (size_t)(s + 1) * ncells,
			          sum, s == 0, ncells);
		}
		__asm__ volatile("" : : "r"(sum), "r"(rows) : "memory");
	}
	return (double)(cpu_ns() - t0) / 1e6 / inner;
}

static double minor_faults(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_minflt;
}

/* The sums-only snapshot has the full one's sums and no slot values. */
static void check_sums(struct statctr_view *view, struct statctr_snap *full,
                       struct statctr_snap *sums)
{
	struct statctr_snap_stats st;
	struct statctr_seg_info info;
	statctr_id id;

	statctr_view_info(view, &info);
	statctr_snap_stats(sums, &st);
	bench_check(st.flags & STATCTR_SNAP_SUMS_ONLY, "a sums-only snapshot lacks its flag");
	for (id = 0; id < info.ncells; id += 997)
		bench_check(statctr_snap_counter(full, id) == statctr_snap_counter(sums, id) &&
		                statctr_snap_slot_value(sums, 0, id) == 0,
		            "cell %u: sums-only %" PRIu64 ", full %" PRIu64, id,
		            statctr_snap_counter(sums, id), statctr_snap_counter(full, id));
}

static void measure_cost(const struct bench_env *env, uint32_t ncells, unsigned nslots,
                         unsigned reps, struct cost *c)
{
	double snap[16], retake[16], warm[16], fresh[16], sums[16], loop[16], bare[16];
	struct segment s;
	struct statctr_view *view, *sums_view;
	struct statctr_snap *keep, *keep_sums;
	struct statctr_seg_info info;
	struct mapping m;
	struct bench_stats st;
	uint8_t *reuse;
	uint64_t *sum;
	size_t off;
	unsigned r, inner;
	double faults;

	segment_create(env, &s, "cost", nslots, (ncells - 2) / 2);
	if (statctr_view_open(s.path, &view) != 0 || statctr_view_open(s.path, &sums_view) != 0 ||
	    statctr_view_set_sums_only(sums_view, 1) != 0)
		bench_die("statctr_view_open: %s", statctr_errmsg());
	statctr_view_info(view, &info);
	m = map_file(s.path);
	off = m.size - (size_t)(nslots + 1) * (64 + ((size_t)ncells * 8 + 63) / 64 * 64);
	reuse = malloc(m.size - off);
	sum = malloc((size_t)ncells * sizeof(uint64_t));
	if (!reuse || !sum)
		bench_die("out of memory");
	memset(reuse, 1, m.size - off);
	memset(sum, 1, (size_t)ncells * sizeof(uint64_t));
	/* Small copies are repeated so that one sample lasts >= ~1 ms. */
	inner = (unsigned)(2000000 / ((uint64_t)ncells * (nslots + 1)));
	inner = inner ? inner : 1;
	time_snapshot(view, NULL, 1); /* warm-up: page in the segment */
	faults = minor_faults();
	time_snapshot(view, NULL, inner);
	c->faults = (minor_faults() - faults) / inner;
	if (statctr_snap_take(view, &keep) != 0)
		bench_die("statctr_snap_take: %s", statctr_errmsg());
	faults = minor_faults();
	time_snapshot(view, keep, inner);
	c->retake_faults = (minor_faults() - faults) / inner;
	if (statctr_snap_take(sums_view, &keep_sums) != 0)
		bench_die("statctr_snap_take: %s", statctr_errmsg());
	/*
	 * Each of the four compared figures is timed right after one untimed
	 * call of its own: a take and a fresh memcpy fault in and zero new
	 * pages, which would leave whatever runs next with a cold cache (at
	 * 1M x 1, 32 MB: the whole L3), and only that one.
	 */
	for (r = 0; r < reps; r++) {
		snap[r] = time_snapshot(view, NULL, inner);
		time_snapshot(view, keep, 1);
		retake[r] = time_snapshot(view, keep, inner);
		time_memcpy(&m, off, reuse, 1);
		warm[r] = time_memcpy(&m, off, reuse, inner);
		fresh[r] = time_memcpy(&m, off, NULL, inner);
		time_snapshot(sums_view, keep_sums, 1);
		sums[r] = time_snapshot(sums_view, keep_sums, inner);
		time_sum_loop(&m, off, ncells, nslots, sum, 1);
		loop[r] = time_sum_loop(&m, off, ncells, nslots, sum, inner);
		time_full_loop(&m, off, ncells, nslots, (uint64_t *)(void *)reuse, sum, 1);
		bare[r] =
		    time_full_loop(&m, off, ncells, nslots, (uint64_t *)(void *)reuse, sum, inner);
	}
	st = bench_stats_of(snap, reps);
	c->snap_ms = st.median;
	c->snap_min_ms = st.min;
	c->snap_max_ms = st.max;
	c->retake_ms = bench_stats_of(retake, reps).median;
	c->warm_ms = bench_stats_of(warm, reps).median;
	c->fresh_ms = bench_stats_of(fresh, reps).median;
	c->sums_ms = bench_stats_of(sums, reps).median;
	c->loop_ms = bench_stats_of(loop, reps).median;
	c->bare_ms = bench_stats_of(bare, reps).median;
	bench_check(info.ncells == ncells, "segment has %u cells, wanted %u", info.ncells, ncells);
	check_sums(view, keep, keep_sums);
	statctr_snap_free(keep);
	statctr_snap_free(keep_sums);
	free(reuse);
	free(sum);
	munmap((void *)m.base, m.size);
	statctr_view_close(view);
	statctr_view_close(sums_view);
	statctr_seg_destroy(s.seg);
}

struct worst {
	double full, sums; /* full retake x warm memcpy, sums-only retake x sum loop */
};

static void worst_of(struct worst *w, double full, double sums)
{
	w->full = fmax(w->full, full);
	w->sums = fmax(w->sums, sums);
}

static void bench_cost(const struct bench_env *env)
{
	static const uint32_t cells_full[] = {1000, 10000, 100000, 1000000};
	static const unsigned slots_full[] = {1, 2, 4, 16, 64};
	FILE *csv = bench_csv_open(env, "snapshot_cost.csv",
	                           "cells,slots,snap_ms,snap_min_ms,snap_max_ms,ns_per_cell_slot,"
	                           "memcpy_warm_ns_per_cell_slot,memcpy_fresh_ns_per_cell_slot,"
	                           "ratio_vs_fresh_memcpy,page_faults_per_snap,retake_ms,"
	                           "retake_ns_per_cell_slot,retake_ratio_vs_warm_memcpy,"
	                           "retake_page_faults_per_snap,sums_retake_ms,"
	                           "sums_retake_ns_per_cell_slot,sum_loop_ns_per_cell_slot,"
	                           "sums_retake_ratio_vs_sum_loop,full_loop_ns_per_cell_slot,"
	                           "full_loop_ratio_vs_warm_memcpy,retake_ratio_vs_full_loop");
	unsigned ncells = env->quick ? 2 : 4, nslots = env->quick ? 2 : 5, i, j;
	unsigned reps = env->quick ? 2 : 5;
	struct worst worst[2] = {{0, 0}, {0, 0}}; /* below 100k cells, from 100k */

	printf("\nReader cost, writers idle (statctr_snap_take + free, statctr_snap_retake;"
	       " median of %u; ns per cell and slot)\n",
	       reps);
	printf("%9s %5s %9s %9s %8s %8s %8s %7s %7s %7s %7s %8s %8s %7s %8s %7s\n", "cells",
	       "slots", "snap ms", "max ms", "take", "retake", "cp warm", "cp fresh", "x fresh",
	       "x warm", "faults", "sums", "sum loop", "x loop", "full lp", "lp x cp");
	for (i = 0; i < ncells; i++)
		for (j = 0; j < nslots; j++) {
			double n = (double)cells_full[i] * slots_full[j] / 1e6;
			struct cost c;

			measure_cost(env, cells_full[i], slots_full[j], reps, &c);
			printf(
			    "%9u %5u %9.3f %9.3f %8.3f %8.3f %8.3f %8.3f %7.2f %7.2f %7.0f %8.3f "
			    "%8.3f %7.2f %8.3f %7.2f\n",
			    cells_full[i], slots_full[j], c.snap_ms, c.snap_max_ms, c.snap_ms / n,
			    c.retake_ms / n, c.warm_ms / n, c.fresh_ms / n, c.snap_ms / c.fresh_ms,
			    c.retake_ms / c.warm_ms, c.faults, c.sums_ms / n, c.loop_ms / n,
			    c.sums_ms / c.loop_ms, c.bare_ms / n, c.bare_ms / c.warm_ms);
			fprintf(csv,
			        "%u,%u,%.5f,%.5f,%.5f,%.4f,%.4f,%.4f,%.3f,%.1f,%.5f,%.4f,%.3f,%.1f,"
			        "%.5f,%.4f,%.4f,%.3f,%.4f,%.3f,%.3f\n",
			        cells_full[i], slots_full[j], c.snap_ms, c.snap_min_ms,
			        c.snap_max_ms, c.snap_ms / n, c.warm_ms / n, c.fresh_ms / n,
			        c.snap_ms / c.fresh_ms, c.faults, c.retake_ms, c.retake_ms / n,
			        c.retake_ms / c.warm_ms, c.retake_faults, c.sums_ms, c.sums_ms / n,
			        c.loop_ms / n, c.sums_ms / c.loop_ms, c.bare_ms / n,
			        c.bare_ms / c.warm_ms, c.retake_ms / c.bare_ms);
			if (cells_full[i] == 1000000 && slots_full[j] == 64) {
				bench_target(env, "snapshot: full retake x warm memcpy, 1M x 64",
				             c.retake_ms / c.warm_ms, "<=", 1.5);
				bench_target(env, "snapshot: sums-only retake x sum loop, 1M x 64",
				             c.sums_ms / c.loop_ms, "<=", 1.2);
			}
			worst_of(&worst[cells_full[i] >= 100000], c.retake_ms / c.warm_ms,
			         c.sums_ms / c.loop_ms);
		}
	/* Below 100k cells the copies run from the caches, where the full
	 * snapshot's third array (the sum) costs most: see the bare loop's
	 * columns, and docs/PERFORMANCE.md §2. */
	if (worst[1].full > 0) { /* --quick measures none of them */
		bench_target(env, "snapshot: full retake x warm memcpy, worst from 100k cells",
		             worst[1].full, "<=", 1.5);
		bench_target(env, "snapshot: sums-only retake x sum loop, worst from 100k cells",
		             worst[1].sums, "<=", 1.2);
	}
	bench_info(env, "snapshot: full retake x warm memcpy, worst below 100k cells",
	           worst[0].full);
	bench_info(env, "snapshot: sums-only retake x sum loop, worst below 100k cells",
	           worst[0].sums);
	bench_csv_close(csv);
}

/* ---- 2. consistency under full-rate writers ------------------------------------ */

static void bench_consistency(const struct bench_env *env, struct segment *seg)
{
	unsigned duration_ms = env->quick ? 1000 : 10000;
	FILE *csv = bench_csv_open(env, "snapshot_consistency.csv",
	                           "cells,slots,interval_ms,duration_ms,snapshots,consistent,"
	                           "consistent_pct,invariant_broken,busy_slots,assisted_slots,"
	                           "retries,dead_torn_slots,take_ms_median,take_ms_max,"
	                           "writer_ns_per_update");
	struct reader_result r;
	struct reader rd;
	struct pool pool;
	double ns, pct;

	reader_start(&rd, seg->path);
	pool_start(&pool, seg);
	bench_sleep_ns(200000000); /* writers up to speed */
	ns = phase(&pool, &rd, 100, duration_ms, &r);
	pool_stop(&pool);
	reader_stop(&rd);
	pct = r.snapshots ? 100.0 * (double)r.consistent / (double)r.snapshots : 0;
	printf("\nConsistency: 100,000 cells x 2 slots, 2 writers in transactions flat out, "
	       "reader process every 100 ms for %u ms\n",
	       duration_ms);
	printf("  snapshots %" PRIu64 ", consistent %" PRIu64 " (%.2f%%), invariant broken %" PRIu64
	       ", busy slots %" PRIu64 ", assisted slots %" PRIu64 ", retries %" PRIu64
	       ", dead torn %" PRIu64 "\n",
	       r.snapshots, r.consistent, pct, r.invariant_broken, r.busy, r.assisted, r.retries,
	       r.dead_torn);
	printf("  snapshot time median %.3f ms, max %.3f ms; writers %.3f ns/update\n",
	       r.take_ms_median, r.take_ms_max, ns);
	fprintf(csv,
	        "%u,%d,100,%u,%" PRIu64 ",%" PRIu64 ",%.3f,%" PRIu64 ",%" PRIu64 ",%" PRIu64
	        ",%" PRIu64 ",%" PRIu64 ",%.4f,%.4f,%.4f\n",
	        2 + 2 * seg->nflows, NWRITERS, duration_ms, r.snapshots, r.consistent, pct,
	        r.invariant_broken, r.busy, r.assisted, r.retries, r.dead_torn, r.take_ms_median,
	        r.take_ms_max, ns);
	bench_csv_close(csv);
	bench_check(r.snapshots > 0, "the reader took no snapshot");
	bench_check(r.invariant_broken == 0 || r.busy > 0,
	            "%" PRIu64 " snapshots broke totals == sum of flows with no busy slot",
	            r.invariant_broken);
	bench_target(env, "snapshot: consistent snapshots %, 100k x 2, 100 ms", pct, ">=", 99);
}

/* ---- 3. writer slowdown --------------------------------------------------------- */

/*
 * The writers run throughout; phases without and with a reader alternate
 * (ABBA), so that a pair of adjacent phases sees the same background load.
 */
static void measure_slowdown(struct pool *pool, struct reader *rd, unsigned interval_ms,
                             unsigned pairs, unsigned phase_ms, struct bench_stats *st,
                             double *base, double *with)
{
	double ratio[32], b[32], w[32];
	struct reader_result r;
	unsigned i;

	for (i = 0; i < pairs; i++) {
		if (i % 2) {
			w[i] = phase(pool, rd, interval_ms, phase_ms, &r);
			b[i] = phase(pool, NULL, 0, phase_ms, &r);
		} else {
			b[i] = phase(pool, NULL, 0, phase_ms, &r);
			w[i] = phase(pool, rd, interval_ms, phase_ms, &r);
		}
		ratio[i] = w[i] / b[i];
	}
	*st = bench_stats_of(ratio, pairs);
	*base = bench_stats_of(b, pairs).median;
	*with = bench_stats_of(w, pairs).median;
}

static void bench_slowdown(const struct bench_env *env, struct segment *seg)
{
	static const unsigned intervals[] = {10, 100, 1000};
	FILE *csv = bench_csv_open(env, "snapshot_slowdown.csv",
	                           "interval_ms,pairs,phase_ms,base_ns_per_update,"
	                           "with_reader_ns_per_update,slowdown_median,slowdown_min,"
	                           "slowdown_max");
	struct reader rd;
	struct pool pool;
	unsigned i;

	printf("\nWriter slowdown by a polling reader (2 writers flat out, 100,000 cells x 2 "
	       "slots; adjacent phases without/with the reader, ABBA)\n");
	printf("%10s %6s %9s %12s %13s %9s %8s %8s\n", "interval", "pairs", "phase ms",
	       "base ns/upd", "reader ns/upd", "slowdown", "min", "max");
	reader_start(&rd, seg->path);
	pool_start(&pool, seg);
	bench_sleep_ns(200000000);
	for (i = env->quick ? 1 : 0; i < (env->quick ? 2u : 3u); i++) {
		unsigned phase_ms = env->quick ? 300 : intervals[i] < 1000 ? 1000 : 3000;
		unsigned pairs = env->quick ? 1 : intervals[i] < 1000 ? 10 : 6;
		struct bench_stats st;
		double base, with;

		measure_slowdown(&pool, &rd, intervals[i], pairs, phase_ms, &st, &base, &with);
		printf("%7u ms %6u %9u %12.3f %13.3f %9.3f %8.3f %8.3f\n", intervals[i], pairs,
		       phase_ms, base, with, st.median, st.min, st.max);
		fprintf(csv, "%u,%u,%u,%.4f,%.4f,%.4f,%.4f,%.4f\n", intervals[i], pairs, phase_ms,
		        base, with, st.median, st.min, st.max);
		if (intervals[i] == 100)
			bench_target(env, "snapshot: writer slowdown, reader every 100 ms",
			             st.median, "<=", 1.10);
	}
	pool_stop(&pool);
	reader_stop(&rd);
	bench_csv_close(csv);
}

static void usage(void)
{
	fprintf(
	    stderr,
	    "usage: bench_snapshot [--out DIR] [--quick] [--only cost|consistency|slowdown]\n"
	    "       bench_snapshot --reader SEGMENT  (reads \"INTERVAL_MS DURATION_MS\" lines)\n");
	exit(2);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {{"out", required_argument, NULL, 'o'},
	                                     {"quick", no_argument, NULL, 'q'},
	                                     {"reader", no_argument, NULL, 'r'},
	                                     {"only", required_argument, NULL, 'n'},
	                                     {NULL, 0, NULL, 0}};
	const char *out = "bench-results", *only = NULL;
	struct bench_env env;
	struct segment seg;
	bool quick = false, reader = false;
	int opt;

	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (opt == 'o')
			out = optarg;
		else if (opt == 'q')
			quick = true;
		else if (opt == 'r')
			reader = true;
		else if (opt == 'n')
			only = optarg;
		else
			usage();
	}
	if (reader) {
		if (argc - optind != 1)
			usage();
		return reader_main(argv[optind]);
	}
	bench_init(&env, "snapshot", out, quick);
	if (!only || strcmp(only, "cost") == 0)
		bench_cost(&env);
	segment_create(&env, &seg, "consistency", NWRITERS, CONSIST_ROWS);
	if (!only || strcmp(only, "consistency") == 0)
		bench_consistency(&env, &seg);
	if (!only || strcmp(only, "slowdown") == 0)
		bench_slowdown(&env, &seg);
	statctr_seg_destroy(seg.seg);
	return bench_finish(&env);
}
