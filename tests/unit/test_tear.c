/*
 * test_tear.c - snapshots never hold part of a transaction (issue 35).
 *
 * Each transaction adds 1 to each of 1,024 cells, cell after cell, so in
 * every snapshot whose busy_slots is 0 all of them are equal, in the sums
 * and in every slot's row, and every cell's slot values add up to its sum
 * (the shared slot's adds outside transactions too; rows checked in one
 * snapshot of 16).  A transaction takes about as long as a reader's pass
 * over the cells, so a writer that resumes during a pass crosses it.
 *   - quiet_writer_joins_a_group: writer 0 runs bursts of transactions with
 *     pauses between them, so that its slot often looks quiet and is read
 *     as the first of a three-source group (slot 0, an idle slot 1, the
 *     shared slot), and sometimes resumes during that group's loads: the
 *     window where a compiler-duplicated load and an undo by subtraction
 *     left one store in a full snapshot (defects 1 and 2).  The reader's
 *     own slot moved, so it is read and committed first: such a group read,
 *     in place in a full snapshot's first pass, spoils the pass, which must
 *     be read again (the case waits until one was);
 *   - control_file_rewriter_is_denied: a writer runs transactions back to
 *     back (so readers need its copies) while another party who may write
 *     the control file (a resetter) stores random values into the request
 *     words, the buffer lock, buf_seq, buf_slot, buf_ticket, done and the
 *     buffer itself: readers may lose assistance (busy slots), never take
 *     a wrong value (defect 4).
 * Both run for a bounded time, polling; a slow machine takes fewer
 * snapshots, never fails for being slow.
 */
#include "internal.h"
#include "testutil.h"

#include <fcntl.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>

#define CELLS     1024
#define RUN_NS    3000000000ll  /* each case's snapshot loop, at least */
#define MAX_NS    30000000000ll /* and at most, until MIN_SNAPS were checked */
#define MIN_SNAPS 50            /* checked snapshots (no busy slot): fewer prove nothing */

static const char *seg_path;
static struct statctr_seg *seg;
static statctr_id cell_id[CELLS], shared_id;
static _Atomic int stop;
static _Atomic int acquired;

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void nap_us(long us)
{
	struct timespec ts = {0, us * 1000L};

	nanosleep(&ts, NULL);
}

static void setup(void)
{
	const char *conf = tu_config(
	    3,
	    "{ name = \"t\"; rows = 1024; columns = ( { name = \"c\"; kind = \"counter\"; } "
	    "); }, { name = \"g\"; rows = 1; columns = ( { name = \"shared\"; kind = "
	    "\"counter\"; } ); }",
	    &seg_path);
	uint32_t r;

	CU_ASSERT_EQUAL_FATAL(statctr_seg_create(conf, "seg", &seg), 0);
	for (r = 0; r < CELLS; r++)
		CU_ASSERT_EQUAL_FATAL(statctr_seg_lookup(seg, "t", "c", r, &cell_id[r]), 0);
	CU_ASSERT_EQUAL_FATAL(statctr_seg_lookup(seg, "g", "shared", 0, &shared_id), 0);
	atomic_store(&stop, 0);
	atomic_store(&acquired, 0);
}

/* One transaction: 1 more in every cell of the table. */
static void txn(struct statctr_slot *slot)
{
	uint32_t c;

	statctr_txn_begin(slot);
	for (c = 0; c < CELLS; c++)
		statctr_add(slot, cell_id[c], 1);
	statctr_txn_end(slot);
}

struct writer {
	uint32_t burst; /* transactions between pauses; 0: back to back */
	long pause_us;
	bool shared_adds; /* and an add to the shared slot after each burst */
};

static void *writer_main(void *arg)
{
	const struct writer *w = arg;
	struct statctr_slot *slot = NULL;
	uint64_t k;

	CU_ASSERT_EQUAL_FATAL(statctr_slot_acquire(seg, &slot), 0);
	atomic_fetch_add(&acquired, 1);
	while (!atomic_load(&stop)) {
		for (k = 0; k < (w->burst ? w->burst : 64); k++)
			txn(slot);
		if (w->shared_adds)
			statctr_shared_add(seg, shared_id, 1);
		if (w->pause_us)
			nap_us(w->pause_us);
	}
	statctr_slot_release(slot);
	return NULL;
}

/* Starts a writer and waits until it owns its slot (so slot numbers follow
 * the start order). */
static void start_writer(pthread_t *th, struct writer *w)
{
	int before = atomic_load(&acquired);

	CU_ASSERT_EQUAL_FATAL(pthread_create(th, NULL, writer_main, w), 0);
	while (atomic_load(&acquired) == before)
		nap_us(100);
}

struct tally {
	uint64_t snaps, checked, busy, torn, rows_torn, rows_unsummed;
	uint64_t spoiled;               /* passes read again after a failed in-place group read */
	uint64_t first_low, first_high; /* the first torn snapshot's extremes */
};

/* Whether cells 0 .. CELLS - 1 of @value(@snap, @s, cell) are all equal;
 * their extremes in @lowp, @highp. */
static bool all_equal(uint64_t (*value)(const struct statctr_snap *, uint32_t, statctr_id),
                      const struct statctr_snap *snap, uint32_t s, uint64_t *lowp, uint64_t *highp)
{
	uint64_t v, low = UINT64_MAX, high = 0;
	uint32_t c;

	for (c = 0; c < CELLS; c++) {
		v = value(snap, s, cell_id[c]);
		low = v < low ? v : low;
		high = v > high ? v : high;
	}
	*lowp = low;
	*highp = high;
	return low == high;
}

static uint64_t sum_value(const struct statctr_snap *snap, uint32_t s, statctr_id id)
{
	(void)s;
	return statctr_snap_counter_raw(snap, id);
}

/* Every invariant of one snapshot; counts violations in @t. */
static void check_snapshot(const struct statctr_snap *snap, struct tally *t)
{
	struct statctr_snap_stats st;
	uint64_t low, high, rowsum;
	uint32_t s;
	statctr_id id;

	statctr_snap_stats(snap, &st);
	t->snaps++;
	if (st.busy_slots || st.dead_torn_slots) {
		t->busy++;
		return;
	}
	t->checked++;
	if (!all_equal(sum_value, snap, 0, &low, &high) && t->torn++ == 0) {
		t->first_low = low;
		t->first_high = high;
	}
	/* The rows are checked in one snapshot of 16: the checks cost more
	 * than the snapshot, and the more snapshots, the more interleavings. */
	if (tu_sums_only || t->snaps % 16 != 0)
		return;
	for (s = 0; s < st.nslots; s++)
		t->rows_torn += !all_equal(statctr_snap_slot_value, snap, s, &low, &high);
	for (id = 0; id < st.ncells; id++) {
		rowsum = 0;
		for (s = 0; s <= st.nslots; s++)
			rowsum += statctr_snap_slot_value(snap, s, id);
		t->rows_unsummed += rowsum != statctr_snap_counter_raw(snap, id);
	}
}

/* Snapshots back to back for RUN_NS, and on until MIN_SNAPS had no busy
 * slot and, with @spoil, a full snapshot's pass was read again (at most
 * MAX_NS: a loaded machine, or an attacker denying copies, makes many
 * busy), each checked, each after one transaction on @own when not NULL;
 * false on a failed take. */
static bool more(const struct tally *t, int64_t start, int64_t now, bool spoil)
{
	if (now < start + RUN_NS)
		return true;
	return now < start + MAX_NS && (t->checked < MIN_SNAPS || (spoil && t->spoiled == 0));
}

static bool snapshot_loop(struct tally *t, struct statctr_slot *own, bool spoil)
{
	struct statctr_view *view = NULL;
	struct statctr_snap *snap = NULL;
	int64_t start = now_ns(), now = start;
	bool ok = true;

	CU_ASSERT_EQUAL_FATAL(tu_view_open(seg_path, &view), 0);
	while (ok && more(t, start, now, spoil)) {
		if (own)
			txn(own);
		ok = statctr_snap_retake(view, &snap) == 0;
		if (ok) {
			check_snapshot(snap, t);
			t->spoiled = snap_spoiled(snap);
		}
		now = now_ns();
	}
	statctr_snap_free(snap);
	statctr_view_close(view);
	return ok;
}

static void report(const char *name, const struct tally *t)
{
	printf("\n  %s: %llu snapshots, %llu checked, %llu with busy slots; torn sums %llu "
	       "(the first from %llu to %llu), torn rows %llu, cells whose rows miss the sum %llu; "
	       "passes read again %llu\n",
	       name, (unsigned long long)t->snaps, (unsigned long long)t->checked,
	       (unsigned long long)t->busy, (unsigned long long)t->torn,
	       (unsigned long long)t->first_low, (unsigned long long)t->first_high,
	       (unsigned long long)t->rows_torn, (unsigned long long)t->rows_unsummed,
	       (unsigned long long)t->spoiled);
}

static void quiet_writer_joins_a_group(void)
{
	struct writer bursty = {.burst = 4, .pause_us = 200, .shared_adds = true};
	struct writer idle = {.burst = 1, .pause_us = 20000};
	struct statctr_slot *own = NULL;
	pthread_t w1, w2;
	struct tally t = {0};

	setup();
	CU_ASSERT_EQUAL_FATAL(statctr_slot_acquire(seg, &own), 0);
	start_writer(&w1, &bursty);
	start_writer(&w2, &idle);
	CU_ASSERT_TRUE(snapshot_loop(&t, own, !tu_sums_only));
	atomic_store(&stop, 1);
	statctr_slot_release(own);
	pthread_join(w1, NULL);
	pthread_join(w2, NULL);
	report("quiet writer", &t);
	CU_ASSERT(t.checked >= MIN_SNAPS);
	CU_ASSERT_EQUAL(t.torn, 0);
	CU_ASSERT_EQUAL(t.rows_torn, 0);
	CU_ASSERT_EQUAL(t.rows_unsummed, 0);
	/* The in-place group read failed after a commit, and that pass was
	 * read again (a full snapshot's first pass, docs/design.md). */
	CU_ASSERT(tu_sums_only || t.spoiled > 0);
	statctr_seg_destroy(seg);
}

/*
 * A party that may write the control file (a resetter), mapping it as one
 * would, alternating two attacks: a random word (past ticket and reset_seq,
 * words 16 and 17, whose moves only force retries) set to a random value,
 * often a small one that looks like a ticket or a slot; and a forged copy
 * for slot 0's pending request: buffer cells, buf_slot, buf_ticket, an even
 * buf_seq and done, as a writer would store them, but values of its own.
 */
struct rewriter {
	const char *path;
	uint64_t stores, forgeries;
};

static void forge_copy(_Atomic uint64_t *w, uint64_t ncells)
{
	const struct ctl_header *h = (const void *)w;
	_Atomic uint64_t *buf = w + h->buf_off / 8;
	_Atomic uint64_t *req = w + h->reqs_off / 8; /* slot 0's record: req, done */
	uint64_t ticket = atomic_load(&req[0]), c;
	struct ctl_header *hw = (void *)w;

	for (c = 0; c < ncells; c++)
		atomic_store_explicit(&buf[c], 7, memory_order_relaxed);
	atomic_store_explicit(&hw->buf_slot, 0, memory_order_relaxed);
	atomic_store_explicit(&hw->buf_ticket, ticket, memory_order_relaxed);
	atomic_store_explicit(&hw->buf_seq, (atomic_load(&hw->buf_seq) | 1) + 1,
	                      memory_order_release);
	atomic_store_explicit(&req[1], ticket, memory_order_release);
}

static void *rewriter_main(void *arg)
{
	struct rewriter *r = arg;
	int fd = open(r->path, O_RDWR | O_CLOEXEC);
	struct stat st;
	_Atomic uint64_t *w;
	uint64_t x = 88172645463325252ull, nwords;

	CU_ASSERT_FATAL(fd >= 0 && fstat(fd, &st) == 0);
	w = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CU_ASSERT_FATAL(w != MAP_FAILED);
	nwords = (uint64_t)st.st_size / 8;
	while (!atomic_load(&stop)) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		if (x & 1) {
			forge_copy(w, ((const struct ctl_header *)(const void *)w)->ncells);
			r->forgeries++;
		} else if (x % nwords >= 18) {
			atomic_store_explicit(&w[x % nwords], (x >> 8) & 1 ? x >> 40 : x,
			                      memory_order_relaxed);
			r->stores++;
		}
		nap_us(200);
	}
	munmap((void *)w, (size_t)st.st_size);
	close(fd);
	return NULL;
}

static void control_file_rewriter_is_denied(void)
{
	struct writer busy = {.burst = 0};
	struct rewriter r = {0};
	char ctl[512];
	pthread_t w0, rw;
	struct tally t = {0};

	setup();
	snprintf(ctl, sizeof(ctl), "%s.ctl", seg_path);
	r.path = ctl;
	start_writer(&w0, &busy);
	CU_ASSERT_EQUAL_FATAL(pthread_create(&rw, NULL, rewriter_main, &r), 0);
	CU_ASSERT_TRUE(snapshot_loop(&t, NULL, false));
	atomic_store(&stop, 1);
	pthread_join(w0, NULL);
	pthread_join(rw, NULL);
	report("control-file rewriter", &t);
	printf("  the rewriter stored %llu random words and forged %llu copies\n",
	       (unsigned long long)r.stores, (unsigned long long)r.forgeries);
	CU_ASSERT(r.forgeries > 0);
	CU_ASSERT(t.checked >= MIN_SNAPS);
	CU_ASSERT_EQUAL(t.torn, 0);
	CU_ASSERT_EQUAL(t.rows_torn, 0);
	CU_ASSERT_EQUAL(t.rows_unsummed, 0);
	statctr_seg_destroy(seg);
}

int main(void)
{
	static const struct test_case cases[] = {
	    {"quiet_writer_joins_a_group", quiet_writer_joins_a_group},
	    {"control_file_rewriter_is_denied", control_file_rewriter_is_denied},
	    {NULL, NULL},
	};

	return tu_run_both("tear", cases);
}
