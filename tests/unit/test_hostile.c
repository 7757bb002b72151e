/*
 * test_hostile.c - the writer survives whatever others do to its files.
 *
 * A writer thread runs transactions while the test truncates, grows,
 * rewrites, unlinks and replaces the control file, removes the lock file
 * and truncates the segment itself.  The writer keeps running, its counts
 * stay exact in its own view of the cells, statctr_seg_health() says what
 * was lost, readers see the flag, and nothing else in the process is hurt.
 */
#include "internal.h"
#include "testutil.h"

#include <fcntl.h>
#include <pthread.h>
#include <sys/stat.h>
#include <time.h>

struct writer {
	struct statctr_seg *seg;
	struct statctr_slot *slot;
	pthread_t thread;
	_Atomic uint64_t txns;  /* transactions done */
	_Atomic uint64_t limit; /* run while txns < limit */
	_Atomic uint64_t looks; /* times copy_resume moved: calls into the copy service */
	_Atomic bool parked, stop;
};

static const char *seg_path;
static char ctl_path[512];
static struct statctr_seg *seg;
static struct writer w;

static void nap_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};

	nanosleep(&ts, NULL);
}

static void *writer_main(void *arg)
{
	struct writer *wr = arg;
	uint64_t resume = 0;

	if (statctr_slot_acquire(wr->seg, &wr->slot) != 0)
		return NULL;
	while (!atomic_load(&wr->stop)) {
		uint64_t n = atomic_load(&wr->txns);

		if (n >= atomic_load(&wr->limit)) {
			atomic_store(&wr->parked, true);
			nap_ms(1);
			continue;
		}
		atomic_store_explicit(&wr->parked, false, memory_order_relaxed);
		statctr_txn_begin(wr->slot);
		statctr_inc(wr->slot, 0);
		statctr_add(wr->slot, 1, 2);
		statctr_txn_end(wr->slot);
		if (wr->slot->copy_resume != resume) {
			resume = wr->slot->copy_resume;
			atomic_fetch_add(&wr->looks, 1);
		}
		atomic_store(&wr->txns, n + 1);
	}
	return NULL;
}

static void start_writer(void)
{
	CU_ASSERT_EQUAL_FATAL(
	    /* 3,000 cells: several pages per slot and in the control file. */
	    statctr_seg_create(tu_config(2, TU_SIMPLE_TABLE(1000), &seg_path), "seg", &seg), 0);
	snprintf(ctl_path, sizeof(ctl_path), "%s.ctl", seg_path);
	memset(&w, 0, sizeof(w));
	w.seg = seg;
	atomic_store(&w.limit, UINT64_MAX);
	CU_ASSERT_EQUAL_FATAL(pthread_create(&w.thread, NULL, writer_main, &w), 0);
}

/* Waits (bounded) until the writer has done at least @n transactions. */
static void wait_txns(uint64_t n)
{
	int i;

	for (i = 0; i < 5000 && atomic_load(&w.txns) < n; i++)
		nap_ms(1);
	CU_ASSERT_FATAL(atomic_load(&w.txns) >= n);
}

/* Lets the writer run @n more transactions, then park at a boundary. */
static void run_then_park(uint64_t n)
{
	int i;

	atomic_store(&w.parked, false);
	atomic_store(&w.limit, atomic_load(&w.txns) + n);
	for (i = 0;
	     i < 5000 && !(atomic_load(&w.parked) && atomic_load(&w.txns) == atomic_load(&w.limit));
	     i++)
		nap_ms(1);
	CU_ASSERT_FATAL(atomic_load(&w.parked));
}

/* Stops the writer; its cells must hold exactly what it added. */
static void stop_writer_exact(uint64_t base)
{
	uint64_t n;

	atomic_store(&w.stop, true);
	pthread_join(w.thread, NULL);
	n = atomic_load(&w.txns) - base;
	CU_ASSERT_PTR_NOT_NULL_FATAL(w.slot);
	CU_ASSERT_EQUAL(atomic_load(&w.slot->cells[0]), n);
	CU_ASSERT_EQUAL(atomic_load(&w.slot->cells[1]), 2 * n);
	CU_ASSERT_EQUAL(atomic_load(&w.slot->seq) & 1, 0);
}

static void wait_lost(uint32_t bit)
{
	int i;

	for (i = 0; i < 5000 && !(atomic_load(&seg->lost) & bit); i++)
		nap_ms(1);
	CU_ASSERT_FATAL((atomic_load(&seg->lost) & bit) != 0);
}

static void assert_health(int expect, const char *words)
{
	CU_ASSERT_EQUAL(statctr_seg_health(seg), expect);
	if (words) {
		CU_ASSERT_PTR_NOT_NULL(strstr(statctr_errmsg(), words));
		if (!strstr(statctr_errmsg(), words))
			fprintf(stderr, "health: %s (wanted '%s')\n", statctr_errmsg(), words);
	}
}

static void pwrite_u64(int fd, off_t off, uint64_t v)
{
	CU_ASSERT_EQUAL(pwrite(fd, &v, sizeof(v), off), (ssize_t)sizeof(v));
}

static uint64_t snapshot_count(const char *path, uint32_t *writer_flags)
{
	struct statctr_view *view;
	struct statctr_snap *snap = NULL;
	struct statctr_seg_info info;
	uint64_t v = UINT64_MAX;

	CU_ASSERT_EQUAL_FATAL(tu_view_open(path, &view), 0);
	statctr_view_info(view, &info);
	*writer_flags = info.writer_flags;
	CU_ASSERT_EQUAL(statctr_snap_take(view, &snap), 0);
	if (snap)
		v = statctr_snap_counter_raw(snap, 0);
	statctr_snap_free(snap);
	statctr_view_close(view);
	return v;
}

static void control_truncated_to_zero_writer_keeps_counting_and_says_so(void)
{
	uint32_t flags = 99;
	uint64_t n;

	start_writer();
	wait_txns(20000);
	assert_health(0, NULL);
	CU_ASSERT_EQUAL(snapshot_count(seg_path, &flags) > 0, 1);
	CU_ASSERT_EQUAL(flags, 0);
	CU_ASSERT_EQUAL(truncate(ctl_path, 0), 0);
	/* The writer's next look at its request word (<= 1024 transactions) faults. */
	wait_lost(WRITER_CTL_LOST);
	n = atomic_load(&w.txns);
	wait_txns(n + 100000);
	assert_health(-ESTALE, "control file");
	CU_ASSERT_PTR_NOT_NULL(strstr(statctr_errmsg(), "truncated under its writer at 20"));
	/* It stopped looking: the zeroed request word would differ forever. */
	CU_ASSERT_EQUAL(w.slot->copy_resume, UINT64_MAX);
	stop_writer_exact(0);
	/* Readers see the count (the segment is intact) and the flag. */
	CU_ASSERT_EQUAL(snapshot_count(seg_path, &flags), atomic_load(&w.txns));
	CU_ASSERT_EQUAL(flags, STATCTR_WRITER_CTL_LOST);
	statctr_seg_destroy(seg);
}

static void control_grown_rewritten_unlinked_replaced_writer_unaffected(void)
{
	const off_t offsets[] = {0, 16, 32, 40, 64, 128, 192, 200, 208, 216};
	uint32_t flags = 99;
	uint64_t rnd = 0x9e3779b97f4a7c15ull;
	int fd, i;

	start_writer();
	wait_txns(10000);
	CU_ASSERT_EQUAL(truncate(ctl_path, 1 << 20), 0);
	wait_txns(atomic_load(&w.txns) + 50000);
	assert_health(-ESTALE, "not the");
	fd = open(ctl_path, O_RDWR);
	CU_ASSERT_FATAL(fd >= 0);
	/* Header offsets and sizes, the ticket, the buffer lock and state: garbage. */
	for (i = 0; i < (int)(sizeof(offsets) / sizeof(offsets[0])); i++)
		pwrite_u64(fd, offsets[i], rnd *= 0x2545f4914f6cdd1dull);
	wait_txns(atomic_load(&w.txns) + 50000);
	/* Request words raised, buffer free: the writer copies by its own layout. */
	pwrite_u64(fd, 192, 0);
	for (i = 0; i < 200; i++) {
		pwrite_u64(fd, HEADER_SIZE, (uint64_t)i + 1000);
		pwrite_u64(fd, HEADER_SIZE + LINE, (uint64_t)i + 1000);
		wait_txns(atomic_load(&w.txns) + 2048);
	}
	close(fd);
	CU_ASSERT_EQUAL(unlink(ctl_path), 0);
	wait_txns(atomic_load(&w.txns) + 50000);
	assert_health(-ESTALE, "was removed");
	tu_write_file("seg.ctl", "not a control file\n");
	wait_txns(atomic_load(&w.txns) + 50000);
	assert_health(-ESTALE, "replaced by another file");
	stop_writer_exact(0);
	CU_ASSERT_EQUAL(atomic_load(&seg->lost), 0);
	CU_ASSERT_EQUAL(snapshot_count(seg_path, &flags), atomic_load(&w.txns));
	CU_ASSERT_EQUAL(flags, 0);
	statctr_seg_destroy(seg);
}

static void lock_file_removed_is_reported(void)
{
	char lock[512];

	start_writer();
	assert_health(0, NULL);
	snprintf(lock, sizeof(lock), "%s.lock", seg_path);
	CU_ASSERT_EQUAL(unlink(lock), 0);
	assert_health(-ESTALE, "lock file");
	stop_writer_exact(0);
	statctr_seg_destroy(seg);
}

static void segment_truncated_writer_counts_on_in_private_memory(void)
{
	uint64_t before;

	start_writer();
	run_then_park(30000);
	assert_health(0, NULL);
	before = atomic_load(&w.txns);
	CU_ASSERT_EQUAL(atomic_load(&w.slot->cells[0]), before);
	CU_ASSERT_EQUAL(truncate(seg_path, 0), 0);
	assert_health(-ESTALE, "bytes, not the");
	/* The truncation took the counts in the file with it; from here the
	 * writer counts exactly, in zeroed private pages. */
	run_then_park(5000);
	wait_lost(WRITER_SEG_LOST);
	CU_ASSERT_EQUAL(atomic_load(&w.slot->cells[0]), 5000);
	CU_ASSERT_EQUAL(atomic_load(&w.slot->cells[1]), 10000);
	assert_health(-ESTALE, "counts into private memory");
	CU_ASSERT_EQUAL(w.slot->copy_resume, UINT64_MAX);
	stop_writer_exact(before);
	statctr_seg_destroy(seg);
}

/* A flood of requests: every look is followed by >= 1024 transactions without one. */
static void request_flood_is_looked_at_within_budget(void)
{
	struct ctl_request *rq;
	uint64_t ticket = 1, n;

	start_writer();
	rq = (void *)((uint8_t *)seg->ctl + seg->ctl_layout.reqs_off);
	wait_txns(1);
	n = atomic_load(&w.txns);
	while (atomic_load(&w.txns) < n + 2000000)
		for (int k = 0; k < 1000; k++)
			atomic_store(&rq[0].req, ticket++);
	stop_writer_exact(0);
	n = atomic_load(&w.txns);
	CU_ASSERT(atomic_load(&rq[0].done) != 0); /* it served some */
	CU_ASSERT(atomic_load(&w.looks) <= n / 1024 + 2);
	fprintf(stderr, "\n%llu transactions, %llu looks\n", (unsigned long long)n,
	        (unsigned long long)atomic_load(&w.looks));
	statctr_seg_destroy(seg);
}

/* Nothing process-wide is damaged: a fresh segment and a reader work. */
static void fresh_segment_after_the_damage_works(void)
{
	struct statctr_seg *other;
	struct statctr_slot *slot;
	const char *path;
	uint32_t flags = 99;
	char text[1024], fresh[300];

	snprintf(fresh, sizeof(fresh), "%s/fresh", tu_tmpdir());
	snprintf(text, sizeof(text),
	         "segments = ( { name = \"fresh\"; path = \"%s\"; slots = 1;\n"
	         "  tables = ( %s ); } );\n",
	         fresh, TU_SIMPLE_TABLE(10));
	path = tu_write_file("fresh.conf", text);
	CU_ASSERT_EQUAL_FATAL(statctr_seg_create(path, "fresh", &other), 0);
	CU_ASSERT_EQUAL(statctr_seg_health(other), 0);
	CU_ASSERT_EQUAL_FATAL(statctr_slot_acquire(other, &slot), 0);
	for (int i = 0; i < 100000; i++) {
		statctr_txn_begin(slot);
		statctr_inc(slot, 0);
		statctr_txn_end(slot);
	}
	CU_ASSERT_EQUAL(snapshot_count(fresh, &flags), 100000);
	CU_ASSERT_EQUAL(flags, 0);
	statctr_slot_release(slot);
	statctr_seg_destroy(other);
}

int main(void)
{
	static const struct test_case cases[] = {
	    {"control_truncated_to_zero_writer_keeps_counting_and_says_so",
	     control_truncated_to_zero_writer_keeps_counting_and_says_so},
	    {"control_grown_rewritten_unlinked_replaced_writer_unaffected",
	     control_grown_rewritten_unlinked_replaced_writer_unaffected},
	    {"lock_file_removed_is_reported", lock_file_removed_is_reported},
	    {"segment_truncated_writer_counts_on_in_private_memory",
	     segment_truncated_writer_counts_on_in_private_memory},
	    {"request_flood_is_looked_at_within_budget", request_flood_is_looked_at_within_budget},
	    {"fresh_segment_after_the_damage_works", fresh_segment_after_the_damage_works},
	    {NULL, NULL},
	};

	return tu_run_both("hostile", cases);
}
