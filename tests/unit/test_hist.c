/*
 * test_hist.c - histograms: bucket placement at every boundary (against a
 * linear reference search), the writer's descriptors and its bounds pool,
 * exactness under concurrent writers with a reader in another process,
 * resets of a cell, a row and a table, and dynamic rows re-added at zero.
 */
#include "internal.h"
#include "testutil.h"

#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>

static const char *seg_path;
static struct statctr_seg *seg;
static struct statctr_view *view;

/*
 * Table "lat": 2 rows of two histograms and a counter; "far": the counter a
 * transaction updates with h1, 4 KiB of cells away from h1's buckets (the
 * 512 rows of "pad" lie between); "dyn": a dynamic histogram, room for one
 * row, so that a remove and an add reuse its index; "b1" and "b64": one
 * bucket, and 64 exponential ones.
 */
#define HIST_TABLES                                                                                \
	"{ name = \"lat\"; rows = 2; columns = ( "                                                 \
	"{ name = \"h1\"; kind = \"histogram\"; units = \"us\"; buckets = [ 1, 2, 5, 10 ]; }, "    \
	"{ name = \"h2\"; kind = \"histogram\"; buckets = [ 1, 2, 5, 10 ]; }, "                    \
	"{ name = \"c\"; kind = \"counter\"; } ); }, "                                             \
	"{ name = \"far\"; rows = 1; columns = ( { name = \"n\"; kind = \"counter\"; } ); }, "     \
	"{ name = \"pad\"; rows = 512; columns = ( { name = \"x\"; kind = \"counter\"; } ); }, "   \
	"{ name = \"dyn\"; rows = { max = 1; }; columns = ( "                                      \
	"{ name = \"g\"; kind = \"histogram\"; buckets = [ 10, 100 ]; } ); }, "                    \
	"{ name = \"b1\"; rows = 1; columns = ( "                                                  \
	"{ name = \"h\"; kind = \"histogram\"; buckets = [ 5 ]; } ); }, "                          \
	"{ name = \"b64\"; rows = 1; columns = ( { name = \"h\"; kind = \"histogram\"; "           \
	"buckets = { start = 1; factor = 2; count = 64; }; } ); }"
#define LAT_TABLE 0
#define NVALUES   5

/* One value per bucket of [1, 2, 5, 10]: a sum is checkable from the buckets. */
static const uint64_t values[NVALUES] = {1, 2, 5, 10, 11};

static void setup(void)
{
	CU_ASSERT_EQUAL_FATAL(statctr_seg_create(tu_config(2, HIST_TABLES, &seg_path), "seg", &seg),
	                      0);
	CU_ASSERT_EQUAL_FATAL(tu_view_open(seg_path, &view), 0);
}

static void teardown(void)
{
	statctr_view_close(view);
	statctr_seg_destroy(seg);
}

static statctr_id cell(const char *table, const char *column, uint32_t row)
{
	statctr_id id = UINT32_MAX;

	CU_ASSERT_EQUAL(statctr_seg_lookup(seg, table, column, row, &id), 0);
	return id;
}

static struct statctr_snap *snap_now(void)
{
	struct statctr_snap *snap = NULL;

	CU_ASSERT_EQUAL_FATAL(statctr_snap_take(view, &snap), 0);
	return snap;
}

/* The reference: the first bound >= @value, @n (+Inf) past them all. */
static uint32_t linear_bucket(const uint64_t *bounds, uint32_t n, uint64_t value)
{
	uint32_t b;

	for (b = 0; b < n; b++)
		if (bounds[b] >= value)
			return b;
	return n;
}

/*
 * statctr_hist_bucket_of() over @padded (2 x @half entries) == the
 * reference over @bounds at 0, max, and every bound +-1.
 */
static void check_search(const uint64_t *padded, uint32_t half, const uint64_t *bounds, uint32_t n)
{
	uint64_t probes[3 * STATCTR_MAX_BUCKETS + 3];
	uint32_t np = 0, b, i, mismatches = 0;

	probes[np++] = 0;
	probes[np++] = UINT64_MAX;
	probes[np++] = UINT64_MAX - 1;
	for (b = 0; b < n; b++) {
		probes[np++] = bounds[b] - 1; /* wraps to UINT64_MAX at 0: a probe still */
		probes[np++] = bounds[b];
		probes[np++] = bounds[b] + 1;
	}
	for (i = 0; i < np; i++)
		if (statctr_hist_bucket_of(padded, half, probes[i]) !=
		    linear_bucket(bounds, n, probes[i])) {
			fprintf(stderr, "\n    %u buckets: value %llu in bucket %u, expected %u\n",
			        n, (unsigned long long)probes[i],
			        statctr_hist_bucket_of(padded, half, probes[i]),
			        linear_bucket(bounds, n, probes[i]));
			mismatches++;
		}
	CU_ASSERT_EQUAL(mismatches, 0);
}

/* Builds the padded bounds statctr.h documents for @bounds and checks them. */
static void check_bounds(const uint64_t *bounds, uint32_t n)
{
	uint64_t padded[2 * STATCTR_MAX_BUCKETS];
	uint32_t half = 1, i;

	while (2 * half < n + 1)
		half *= 2;
	for (i = 0; i < 2 * half; i++)
		padded[i] = i < n ? bounds[i] : UINT64_MAX;
	check_search(padded, half, bounds, n);
}

static void bucket_of_matches_a_linear_search_at_every_boundary(void)
{
	static const uint64_t small[] = {1, 2, 5, 10}, zero[] = {0}, top[] = {UINT64_MAX},
	                      both[] = {0, UINT64_MAX}, one[] = {5};
	uint64_t bounds[STATCTR_MAX_BUCKETS];
	uint32_t n, i;

	check_bounds(small, 4);
	check_bounds(zero, 1);
	check_bounds(top, 1);
	check_bounds(both, 2);
	check_bounds(one, 1);
	for (i = 0; i < STATCTR_MAX_BUCKETS; i++)
		bounds[i] = UINT64_C(1) << i; /* exponential: 1, 2, 4, ..., 2^63 */
	check_bounds(bounds, STATCTR_MAX_BUCKETS);
	bounds[STATCTR_MAX_BUCKETS - 1] = UINT64_MAX;
	check_bounds(bounds, STATCTR_MAX_BUCKETS);
	/* Every padding shape: 1..64 buckets. */
	for (n = 1; n <= STATCTR_MAX_BUCKETS; n++) {
		for (i = 0; i < n; i++)
			bounds[i] = 10 * (uint64_t)i + 3;
		check_bounds(bounds, n);
	}
}

/* A descriptor's fields (statctr.h, "Histograms"): valid when its half is
 * not 0, its block offset is a whole cell and bits 32..46 are 0. */
struct desc {
	uint32_t block, half, pool;
	bool valid;
};

static struct desc decode(uint64_t d)
{
	uint32_t key = (uint32_t)(d >> STATCTR_HIST_KEY_SHIFT), offset = (uint32_t)d;
	uint64_t unused = d >> 32 & ((UINT64_C(1) << (STATCTR_HIST_KEY_SHIFT - 32)) - 1);
	struct desc out = {offset / sizeof(uint64_t), key & 0xffu, key, false};

	out.valid = out.half != 0 && offset % sizeof(uint64_t) == 0 && unused == 0;
	return out;
}

/* Slot @s's descriptor of @id, as statctr_hist_record() loads it. */
static uint64_t descriptor_of(uint32_t s, statctr_id id)
{
	return atomic_load_explicit(&seg_slot_header(seg, s)->cells[id], memory_order_relaxed);
}

/* @d decodes to histogram @id's block, a half that fits its buckets, and
 * pool entries holding its bounds, then UINT64_MAX. */
static void check_descriptor(uint64_t d, statctr_id id)
{
	struct desc f = decode(d);
	const uint64_t *bounds, *padded;
	uint32_t n, block, i, wrong = 0;

	n = statctr_view_hist_buckets(view, id, &bounds);
	CU_ASSERT_FATAL(n >= 1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(meta_hist_of(view->meta, id, &block));
	CU_ASSERT(f.valid);
	CU_ASSERT_EQUAL(f.block, block);
	CU_ASSERT(2 * f.half >= n + 1 && f.half < n + 1);
	CU_ASSERT_FATAL(f.pool + 2 * f.half <= STATCTR_HIST_POOL);
	padded = &statctr_hist_pool[f.pool];
	for (i = 0; i < 2 * f.half; i++)
		wrong += padded[i] != (i < n ? bounds[i] : UINT64_MAX);
	CU_ASSERT_EQUAL(wrong, 0);
	check_search(padded, f.half, bounds, n);
}

/*
 * Every writer slot's descriptor of every histogram id decodes to what
 * readers see; the shared slot's cell is 0; rows of a column share its
 * bounds; readers serve the sum, never a descriptor.
 */
static void every_writer_slot_holds_the_descriptors(void)
{
	struct statctr_seg_info info;
	struct statctr_snap *snap;
	struct statctr_slot *slot;
	statctr_id id, h1 = UINT32_MAX;
	uint32_t s, block, nhist = 0;

	setup();
	statctr_view_info(view, &info);
	for (id = 0; id < info.ncells; id++) {
		if (!meta_hist_of(view->meta, id, &block))
			continue;
		nhist++;
		for (s = 0; s < info.nslots; s++)
			check_descriptor(descriptor_of(s, id), id);
		CU_ASSERT_EQUAL(descriptor_of(info.nslots, id), 0);
	}
	CU_ASSERT_EQUAL(nhist, 2 * 2 + 1 + 1 + 1); /* lat: 2 x 2; dyn, b1, b64 */
	/* Row 1's block follows row 0's (sum + 5 buckets); the bounds are the column's. */
	h1 = cell("lat", "h1", 0);
	CU_ASSERT_EQUAL(decode(descriptor_of(0, cell("lat", "h1", 1))).block,
	                decode(descriptor_of(0, h1)).block + 6);
	CU_ASSERT_EQUAL(decode(descriptor_of(1, cell("lat", "h1", 1))).pool,
	                decode(descriptor_of(0, h1)).pool);
	CU_ASSERT_NOT_EQUAL(decode(descriptor_of(0, cell("lat", "h2", 0))).pool,
	                    decode(descriptor_of(0, h1)).pool);
	CU_ASSERT_EQUAL(descriptor_of(0, cell("lat", "c", 0)), 0);

	/* A record lands in the slot's block; every reader call by id gives the sum. */
	CU_ASSERT_EQUAL_FATAL(statctr_slot_acquire(seg, &slot), 0);
	s = (uint32_t)(((uint8_t *)slot - (uint8_t *)seg_slot_header(seg, 0)) / seg->layout.stride);
	statctr_hist_record(slot, h1, 7);
	snap = snap_now();
	CU_ASSERT_EQUAL(statctr_snap_slot_value(snap, s, h1), tu_slot_value(7));
	CU_ASSERT_EQUAL(statctr_snap_slot_value(snap, 1 - s, h1), tu_slot_value(0));
	CU_ASSERT_EQUAL(statctr_snap_slot_value(snap, info.nslots, h1), tu_slot_value(0));
	CU_ASSERT_EQUAL(statctr_snap_counter_raw(snap, h1), 7);
	CU_ASSERT_EQUAL(statctr_snap_counter(snap, h1), 7);
	CU_ASSERT_EQUAL(statctr_snap_gauge(snap, h1), 7);
	CU_ASSERT_EQUAL(statctr_snap_hist_sum(snap, h1), 7);
	CU_ASSERT_EQUAL(statctr_snap_hist_count(snap, h1), 1);
	CU_ASSERT_EQUAL(statctr_snap_hist_bucket(snap, h1, 3), 1);
	statctr_snap_free(snap);
	statctr_slot_release(slot);
	teardown();
}

/* The sum of every cell of @snap: whatever a record changed, it changes. */
static uint64_t all_cells(const struct statctr_snap *snap)
{
	struct statctr_snap_stats st;
	uint64_t total = 0;
	statctr_id id;

	statctr_snap_stats(snap, &st);
	for (id = 0; id < st.ncells; id++)
		total += statctr_snap_counter_raw(snap, id);
	return total;
}

/* A descriptor whose half is 0 (a slot page the SIGBUS guard zeroed)
 * records nothing: no cell of the segment moves. */
static void a_zeroed_descriptor_records_nothing(void)
{
	struct statctr_slot *slot;
	struct statctr_snap *snap;
	statctr_id id;
	uint64_t before, d;

	setup();
	id = cell("b64", "h", 0);
	CU_ASSERT_EQUAL_FATAL(statctr_slot_acquire(seg, &slot), 0);
	statctr_hist_record(slot, id, 3);
	snap = snap_now();
	before = all_cells(snap);
	statctr_snap_free(snap);
	d = atomic_load_explicit(&slot->cells[id], memory_order_relaxed);
	atomic_store_explicit(&slot->cells[id], 0, memory_order_relaxed);
	statctr_hist_record(slot, id, 3);
	statctr_hist_record(slot, id, UINT64_MAX);
	/* Half 0 alone: every other field set, still nothing. */
	atomic_store_explicit(&slot->cells[id], d & ~(0xffull << STATCTR_HIST_KEY_SHIFT),
	                      memory_order_relaxed);
	statctr_hist_record(slot, id, 5);
	snap = snap_now();
	CU_ASSERT_EQUAL(all_cells(snap), before);
	CU_ASSERT_EQUAL(statctr_snap_hist_count(snap, id), 1);
	CU_ASSERT_EQUAL(statctr_snap_hist_sum(snap, id), 3);
	statctr_snap_free(snap);
	statctr_slot_release(slot);
	teardown();
}

/* ---- The guess (statctr.h, statctr_hist_record()). ---- */

#define GUESS_IDS 6

/* @snap's buckets, counts and sums of @ids against what the @n records of
 * @vals[i] into @ids[@which[i]] should leave there, by the linear
 * reference over the bounds readers see (the segment is new). */
static void check_recorded(struct statctr_snap *snap, const statctr_id *ids, const uint8_t *which,
                           const uint64_t *vals, uint32_t n)
{
	uint32_t i, k, b, nb, wrong = 0;

	for (k = 0; k < GUESS_IDS; k++) {
		uint64_t expected[STATCTR_MAX_BUCKETS + 1] = {0}, count = 0, sum = 0;
		const uint64_t *bounds;

		nb = statctr_view_hist_buckets(view, ids[k], &bounds);
		CU_ASSERT_FATAL(nb >= 1);
		for (i = 0; i < n; i++)
			if (which[i] == k) {
				expected[linear_bucket(bounds, nb, vals[i])]++;
				count++;
				sum += vals[i];
			}
		for (b = 0; b <= nb; b++)
			wrong += statctr_snap_hist_bucket(snap, ids[k], b) != expected[b];
		CU_ASSERT_EQUAL(statctr_snap_hist_count(snap, ids[k]), count);
		CU_ASSERT_EQUAL(statctr_snap_hist_sum(snap, ids[k]), sum);
	}
	CU_ASSERT_EQUAL(wrong, 0);
}

/*
 * One thread records in six histograms of five columns and four sizes
 * (half 1, 2, 4 and 64; h1 and h2 share their bounds and half but not their
 * key; h1's two rows share a key): in turn, then at random, outside and
 * inside transactions, so that the guess is wrong on most records and
 * right on some.  Every bucket, count and sum is exact.
 */
static void records_in_turn_and_at_random_land_exactly(void)
{
	enum { N = 4000 };
	static uint64_t vals[N];
	static uint8_t which[N];
	statctr_id ids[GUESS_IDS];
	struct statctr_slot *slot;
	struct statctr_snap *snap;
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	uint32_t i, row;

	setup();
	ids[0] = cell("lat", "h1", 0);
	ids[1] = cell("lat", "h1", 1);
	ids[2] = cell("lat", "h2", 0);
	ids[3] = cell("b1", "h", 0);
	ids[4] = cell("b64", "h", 0);
	ids[5] = cell("dyn", "g", 0);
	CU_ASSERT_EQUAL_FATAL(statctr_row_add(seg, "dyn", "r0", &row), 0);
	CU_ASSERT_EQUAL(row, 0);
	CU_ASSERT_EQUAL_FATAL(statctr_slot_acquire(seg, &slot), 0);
	for (i = 0; i < N; i++) {
		seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
		which[i] = (uint8_t)(i < N / 2 ? i % GUESS_IDS : seed % GUESS_IDS);
		vals[i] = seed >> (seed % 64); /* every magnitude */
	}
	for (i = 0; i < N; i++) {
		bool in_txn = (i / 100) % 2 == 1;

		if (in_txn && i % 100 == 0)
			statctr_txn_begin(slot);
		statctr_hist_record(slot, ids[which[i]], vals[i]);
		if (in_txn && i % 100 == 99)
			statctr_txn_end(slot);
	}
	snap = snap_now();
	check_recorded(snap, ids, which, vals, N);
	statctr_snap_free(snap);
	statctr_slot_release(slot);
	teardown();
}

/* Creates segment "seg" with one histogram of @buckets, a slot, and its id. */
static void create_one(const char *buckets, struct statctr_slot **slot, statctr_id *id)
{
	char tables[256];

	snprintf(tables, sizeof(tables),
	         "{ name = \"t\"; rows = 1; columns = ( { name = \"h\"; kind = "
	         "\"histogram\"; buckets = %s; } ); }",
	         buckets);
	CU_ASSERT_EQUAL_FATAL(statctr_seg_create(tu_config(1, tables, &seg_path), "seg", &seg), 0);
	CU_ASSERT_EQUAL_FATAL(tu_view_open(seg_path, &view), 0);
	CU_ASSERT_EQUAL_FATAL(statctr_slot_acquire(seg, slot), 0);
	*id = cell("t", "h", 0);
}

/*
 * A key given back at destroy and taken by the next segment's column of
 * the same half names that column's bounds: a thread whose guess is the
 * old column's key records by the new bounds.
 */
static void a_guess_of_a_destroyed_column_serves_the_new_bounds(void)
{
	struct statctr_slot *slot;
	struct statctr_snap *snap;
	uint32_t old_key;
	statctr_id id;

	create_one("[ 1, 2, 5, 10 ]", &slot, &id);
	statctr_hist_record(slot, id, 150); /* +Inf here */
	old_key = decode(descriptor_of(0, id)).pool;
	CU_ASSERT_EQUAL(statctr_hist_guess, old_key);
	statctr_slot_release(slot);
	teardown();

	create_one("[ 100, 200, 500, 1000 ]", &slot, &id);
	CU_ASSERT_EQUAL_FATAL(decode(descriptor_of(0, id)).pool, old_key); /* first fit */
	CU_ASSERT_EQUAL(statctr_hist_guess, old_key);
	statctr_hist_record(slot, id, 150);
	snap = snap_now();
	CU_ASSERT_EQUAL(statctr_snap_hist_bucket(snap, id, 1), 1); /* 100 < 150 <= 200 */
	CU_ASSERT_EQUAL(statctr_snap_hist_bucket(snap, id, 4), 0);
	CU_ASSERT_EQUAL(statctr_snap_hist_count(snap, id), 1);
	statctr_snap_free(snap);
	statctr_slot_release(slot);
	teardown();
}

/* Every probe of the 64-bucket histogram recorded, then read back per bucket. */
static void recorded_values_land_in_their_buckets(void)
{
	uint64_t expected[STATCTR_MAX_BUCKETS + 1] = {0}, sum = 0, count = 0;
	statctr_id id;
	struct statctr_slot *slot;
	struct statctr_snap *snap;
	const uint64_t *bounds;
	uint32_t n, b, mismatches = 0;

	setup();
	id = cell("b64", "h", 0);
	n = statctr_view_hist_buckets(view, id, &bounds);
	CU_ASSERT_EQUAL_FATAL(n, 64);
	CU_ASSERT_EQUAL(bounds[63], UINT64_C(1) << 63);
	CU_ASSERT_EQUAL(statctr_view_cell_kind(view, id), STATCTR_KIND_HISTOGRAM);
	CU_ASSERT_EQUAL_FATAL(statctr_slot_acquire(seg, &slot), 0);
	for (b = 0; b < n; b++) {
		uint64_t probe[3] = {bounds[b] - 1, bounds[b], bounds[b] + 1};

		for (int i = 0; i < 3; i++) {
			statctr_hist_record(slot, id, probe[i]);
			expected[linear_bucket(bounds, n, probe[i])]++;
			sum += probe[i];
			count++;
		}
	}
	statctr_hist_record(slot, id, UINT64_MAX);
	expected[n]++;
	sum += UINT64_MAX;
	count++;
	snap = snap_now();
	for (b = 0; b <= n; b++)
		mismatches += statctr_snap_hist_bucket(snap, id, b) != expected[b];
	CU_ASSERT_EQUAL(mismatches, 0);
	CU_ASSERT_EQUAL(statctr_snap_hist_bucket(snap, id, n + 1), 0);
	CU_ASSERT_EQUAL(statctr_snap_hist_count(snap, id), count);
	CU_ASSERT_EQUAL(statctr_snap_hist_sum(snap, id), sum);
	CU_ASSERT_EQUAL(statctr_snap_counter(snap, id), sum);
	statctr_snap_free(snap);
	statctr_slot_release(slot);
	teardown();
}

/* Block cells are no cells of their own; other ids are no histograms. */
static void only_a_histogram_id_is_a_histogram(void)
{
	struct statctr_seg_info info;
	struct statctr_snap *snap;
	const uint64_t *bounds = NULL;
	statctr_id c;

	setup();
	c = cell("lat", "c", 0);
	statctr_view_info(view, &info);
	CU_ASSERT_EQUAL(statctr_view_cell_kind(view, c), STATCTR_KIND_COUNTER);
	CU_ASSERT_EQUAL(statctr_view_cell_kind(view, info.ncells - 1), 0);
	CU_ASSERT_EQUAL(statctr_view_hist_buckets(view, c, &bounds), 0);
	CU_ASSERT_PTR_NULL(bounds);
	CU_ASSERT_EQUAL(statctr_view_hist_buckets(view, info.ncells - 1, &bounds), 0);
	CU_ASSERT_EQUAL(statctr_view_hist_buckets(view, info.ncells, &bounds), 0);
	snap = snap_now();
	CU_ASSERT_EQUAL(statctr_snap_hist_count(snap, c), 0);
	CU_ASSERT_EQUAL(statctr_snap_hist_sum(snap, c), 0);
	CU_ASSERT_EQUAL(statctr_snap_hist_bucket(snap, info.ncells, 0), 0);
	statctr_snap_free(snap);
	teardown();
}

/* ---- Exactness: writer threads, a reader process. ---- */

#define NWRITERS   2
#define RUN_NS     1500000000ull
#define READER_MAX 20000000000ull /* the reader gives up after 20 s */

struct writer {
	pthread_t thread;
	statctr_id h1, h2, far;
	uint64_t n1[NVALUES], n2[NVALUES]; /* records per value */
	uint64_t far_total;
};

static atomic_int stop_writers;

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * h1 only inside transactions, each with as many increments of "far" as
 * records of h1; h2 only outside (each record its own transaction).
 */
static void *writer_thread(void *arg)
{
	struct writer *w = arg;
	struct statctr_slot *slot;
	uint64_t i;

	if (statctr_slot_acquire(seg, &slot) != 0)
		return NULL;
	for (i = 0; !atomic_load_explicit(&stop_writers, memory_order_relaxed); i++) {
		unsigned v = (unsigned)(i % NVALUES), u = (unsigned)((i / NVALUES) % NVALUES);

		statctr_txn_begin(slot);
		statctr_hist_record(slot, w->h1, values[v]);
		statctr_inc(slot, w->far);
		if (i % 4 == 0) {
			statctr_hist_record(slot, w->h1, values[u]);
			statctr_inc(slot, w->far);
			w->n1[u]++;
			w->far_total++;
		}
		statctr_txn_end(slot);
		w->n1[v]++;
		w->far_total++;
		statctr_hist_record(slot, w->h2, values[u]);
		w->n2[u]++;
	}
	statctr_slot_release(slot);
	return NULL;
}

struct tally {
	uint32_t snapshots, busy, violations;
};

/* sum == the values the buckets hold, count == their total: @true if so. */
static bool hist_consistent(const struct statctr_snap *snap, statctr_id id)
{
	uint64_t sum = 0, count = 0, n;
	uint32_t b;

	for (b = 0; b < NVALUES; b++) {
		n = statctr_snap_hist_bucket(snap, id, b);
		sum += n * values[b];
		count += n;
	}
	return sum == statctr_snap_hist_sum(snap, id) && count == statctr_snap_hist_count(snap, id);
}

static void check_snapshot(const struct statctr_snap *snap, const statctr_id *ids, struct tally *t)
{
	struct statctr_snap_stats st;

	statctr_snap_stats(snap, &st);
	t->snapshots++;
	if (st.busy_slots > 0) {
		t->busy++;
		return;
	}
	t->violations += !hist_consistent(snap, ids[0]) || !hist_consistent(snap, ids[1]);
	t->violations +=
	    statctr_snap_counter(snap, ids[2]) != statctr_snap_hist_count(snap, ids[0]);
}

/* The reader process: its own view, snapshots until @stop_fd is readable. */
static void reader_process(int go_fd, int stop_fd, int report_fd, const statctr_id *ids)
{
	struct pollfd p = {.fd = stop_fd, .events = POLLIN};
	struct statctr_view *v;
	struct statctr_snap *snap = NULL;
	struct tally t = {0};
	uint64_t start;
	char c;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	alarm(60);
	if (read(go_fd, &c, 1) != 1 || tu_view_open(seg_path, &v) != 0)
		_exit(1);
	start = mono_ns();
	while (poll(&p, 1, 0) == 0 && mono_ns() - start < READER_MAX) {
		if (statctr_snap_retake(v, &snap) != 0) {
			t.violations++;
			break;
		}
		check_snapshot(snap, ids, &t);
	}
	statctr_snap_free(snap);
	statctr_view_close(v);
	_exit(write(report_fd, &t, sizeof(t)) == sizeof(t) ? 0 : 1);
}

static void expect_totals(const struct writer *w, const statctr_id *ids)
{
	struct statctr_snap *snap = snap_now();
	uint64_t n1 = 0, n2 = 0, s1 = 0, s2 = 0, far = 0;
	uint32_t i, v, wrong = 0;

	for (v = 0; v < NVALUES; v++) {
		uint64_t b1 = 0, b2 = 0;

		for (i = 0; i < NWRITERS; i++) {
			b1 += w[i].n1[v];
			b2 += w[i].n2[v];
		}
		wrong += statctr_snap_hist_bucket(snap, ids[0], v) != b1;
		wrong += statctr_snap_hist_bucket(snap, ids[1], v) != b2;
		n1 += b1;
		n2 += b2;
		s1 += b1 * values[v];
		s2 += b2 * values[v];
	}
	for (i = 0; i < NWRITERS; i++)
		far += w[i].far_total;
	CU_ASSERT_EQUAL(wrong, 0);
	CU_ASSERT(n1 > 1000);
	CU_ASSERT_EQUAL(statctr_snap_hist_count(snap, ids[0]), n1);
	CU_ASSERT_EQUAL(statctr_snap_hist_sum(snap, ids[0]), s1);
	CU_ASSERT_EQUAL(statctr_snap_hist_count(snap, ids[1]), n2);
	CU_ASSERT_EQUAL(statctr_snap_hist_sum(snap, ids[1]), s2);
	CU_ASSERT_EQUAL(statctr_snap_counter(snap, ids[2]), far);
	CU_ASSERT_EQUAL(far, n1);
	statctr_snap_free(snap);
}

static void concurrent_records_are_exact_in_every_snapshot(void)
{
	struct writer w[NWRITERS];
	struct tally t = {0};
	statctr_id ids[3];
	int go[2], stop[2], report[2], status = -1;
	struct timespec run = {RUN_NS / 1000000000ull, RUN_NS % 1000000000ull};
	pid_t reader;
	uint32_t i;

	setup();
	ids[0] = cell("lat", "h1", 0);
	ids[1] = cell("lat", "h2", 0);
	ids[2] = cell("far", "n", 0);
	CU_ASSERT_FATAL(pipe(go) == 0 && pipe(stop) == 0 && pipe(report) == 0);
	/* Forked before any thread starts: the child is a plain reader. */
	reader = fork();
	CU_ASSERT_FATAL(reader >= 0);
	if (reader == 0)
		reader_process(go[0], stop[0], report[1], ids);
	close(report[1]); /* the reader's end only: its exit is an end of file */
	report[1] = -1;
	atomic_store(&stop_writers, 0);
	memset(w, 0, sizeof(w));
	for (i = 0; i < NWRITERS; i++) {
		w[i].h1 = ids[0];
		w[i].h2 = ids[1];
		w[i].far = ids[2];
		pthread_create(&w[i].thread, NULL, writer_thread, &w[i]);
	}
	CU_ASSERT_EQUAL(write(go[1], "g", 1), 1);
	nanosleep(&run, NULL);
	CU_ASSERT_EQUAL(write(stop[1], "s", 1), 1);
	CU_ASSERT_EQUAL(read(report[0], &t, sizeof(t)), (ssize_t)sizeof(t));
	waitpid(reader, &status, 0);
	CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	atomic_store(&stop_writers, 1);
	for (i = 0; i < NWRITERS; i++)
		pthread_join(w[i].thread, NULL);
	fprintf(stderr, "\n    %u snapshots (%u with busy slots, not checked), %u violations\n",
	        t.snapshots, t.busy, t.violations);
	CU_ASSERT(t.snapshots >= 10);
	CU_ASSERT(t.snapshots - t.busy >= 5);
	CU_ASSERT_EQUAL(t.violations, 0);
	expect_totals(w, ids);
	for (i = 0; i < 2; i++) {
		close(go[i]);
		close(stop[i]);
		close(report[i]);
	}
	teardown();
}

/* ---- Resets. ---- */

/* Histogram @id reads zero everywhere, and its block shares its discontinuity. */
static void expect_reset(const struct statctr_snap *snap, statctr_id id, uint64_t disc)
{
	const struct seg_column *col;
	uint32_t block, b;

	CU_ASSERT_PTR_NOT_NULL_FATAL(col = meta_hist_of(view->meta, id, &block));
	CU_ASSERT_EQUAL(statctr_snap_hist_count(snap, id), 0);
	CU_ASSERT_EQUAL(statctr_snap_hist_sum(snap, id), 0);
	CU_ASSERT_EQUAL(statctr_snap_discontinuity(snap, id), disc);
	for (b = 0; b <= col->nbuckets; b++)
		CU_ASSERT_EQUAL(statctr_snap_hist_bucket(snap, id, b), 0);
	/* The whole block: the sum, then every bucket. */
	for (b = 0; b < col->nbuckets + 2; b++) {
		CU_ASSERT_EQUAL(statctr_snap_counter(snap, block + b), 0);
		CU_ASSERT_EQUAL(statctr_snap_discontinuity(snap, block + b), disc);
	}
}

static void record_all(struct statctr_slot *slot, statctr_id id)
{
	uint32_t v;

	for (v = 0; v < NVALUES; v++)
		statctr_hist_record(slot, id, values[v]);
}

static void resets_of_cell_row_and_table_reset_histograms_whole(void)
{
	struct statctr_table_info info;
	struct statctr_slot *slot;
	struct statctr_snap *snap;
	statctr_id a0, a1, b1, c1;
	uint64_t created, disc;

	setup();
	a0 = cell("lat", "h1", 0);
	a1 = cell("lat", "h1", 1);
	b1 = cell("lat", "h2", 1);
	c1 = cell("lat", "c", 1);
	CU_ASSERT_EQUAL_FATAL(statctr_slot_acquire(seg, &slot), 0);
	record_all(slot, a0);
	record_all(slot, a1);
	record_all(slot, b1);
	statctr_add(slot, c1, 7);
	snap = snap_now();
	created = statctr_snap_discontinuity(snap, a0);
	statctr_snap_free(snap);

	/* One cell: h1 row 0 whole; row 1 untouched. */
	CU_ASSERT_EQUAL_FATAL(statctr_reset(view, a0), 0);
	snap = snap_now();
	disc = statctr_snap_discontinuity(snap, a0);
	CU_ASSERT(disc > created);
	expect_reset(snap, a0, disc);
	CU_ASSERT_EQUAL(statctr_snap_hist_count(snap, a1), NVALUES);
	CU_ASSERT_EQUAL(statctr_snap_hist_sum(snap, a1), 1 + 2 + 5 + 10 + 11);
	CU_ASSERT_EQUAL(statctr_snap_discontinuity(snap, a1), created);
	statctr_snap_free(snap);

	/* Later records count from zero. */
	statctr_hist_record(slot, a0, 5);
	statctr_hist_record(slot, a0, 100);
	snap = snap_now();
	CU_ASSERT_EQUAL(statctr_snap_hist_count(snap, a0), 2);
	CU_ASSERT_EQUAL(statctr_snap_hist_sum(snap, a0), 105);
	CU_ASSERT_EQUAL(statctr_snap_hist_bucket(snap, a0, 2), 1);
	CU_ASSERT_EQUAL(statctr_snap_hist_bucket(snap, a0, 4), 1);
	statctr_snap_free(snap);

	/* Row 1: both histograms and the counter. */
	CU_ASSERT_EQUAL_FATAL(statctr_view_table(view, LAT_TABLE, &info), 0);
	CU_ASSERT_EQUAL_FATAL(
	    statctr_reset_range(view, info.first_cell + info.ncolumns, info.ncolumns), 0);
	snap = snap_now();
	disc = statctr_snap_discontinuity(snap, a1);
	expect_reset(snap, a1, disc);
	expect_reset(snap, b1, disc);
	CU_ASSERT_EQUAL(statctr_snap_counter(snap, c1), 0);
	CU_ASSERT_EQUAL(statctr_snap_hist_count(snap, a0), 2);
	statctr_snap_free(snap);

	/* The table: everything. */
	CU_ASSERT_EQUAL_FATAL(
	    statctr_reset_range(view, info.first_cell, info.nrows * info.ncolumns), 0);
	snap = snap_now();
	disc = statctr_snap_discontinuity(snap, a0);
	expect_reset(snap, a0, disc);
	expect_reset(snap, a1, disc);
	expect_reset(snap, b1, disc);
	statctr_snap_free(snap);
	statctr_slot_release(slot);
	teardown();
}

/* ---- Dynamic rows. ---- */

static void readded_row_histogram_starts_at_zero(void)
{
	struct statctr_slot *slot;
	struct statctr_snap *snap;
	statctr_id g;
	uint32_t row = UINT32_MAX;
	uint64_t first_disc;

	setup();
	g = cell("dyn", "g", 0);
	CU_ASSERT_EQUAL_FATAL(statctr_slot_acquire(seg, &slot), 0);
	CU_ASSERT_EQUAL_FATAL(statctr_row_add(seg, "dyn", "a", &row), 0);
	CU_ASSERT_EQUAL(row, 0);
	statctr_hist_record(slot, g, 3);
	statctr_hist_record(slot, g, 50);
	statctr_hist_record(slot, g, 500);
	snap = snap_now();
	CU_ASSERT_EQUAL(statctr_snap_hist_count(snap, g), 3);
	CU_ASSERT_EQUAL(statctr_snap_hist_sum(snap, g), 553);
	CU_ASSERT_EQUAL(statctr_snap_hist_bucket(snap, g, 2), 1);
	first_disc = statctr_snap_discontinuity(snap, g);
	statctr_snap_free(snap);

	/* Removed: absent, nothing served; a stale writer's records stay unseen. */
	CU_ASSERT_EQUAL_FATAL(statctr_row_remove(seg, "dyn", 0), 0);
	statctr_hist_record(slot, g, 7);
	statctr_hist_record(slot, g, 70);
	snap = snap_now();
	CU_ASSERT_PTR_NULL(statctr_snap_row_name(snap, 3, 0));
	CU_ASSERT_EQUAL(statctr_snap_hist_count(snap, g), 0);
	CU_ASSERT_EQUAL(statctr_snap_hist_sum(snap, g), 0);
	CU_ASSERT_EQUAL(statctr_snap_hist_bucket(snap, g, 0), 0);
	statctr_snap_free(snap);

	/* Re-added at the same index: zero, with the add as its discontinuity. */
	CU_ASSERT_EQUAL_FATAL(statctr_row_add(seg, "dyn", "b", &row), 0);
	CU_ASSERT_EQUAL(row, 0);
	snap = snap_now();
	CU_ASSERT_STRING_EQUAL(statctr_snap_row_name(snap, 3, 0), "b");
	CU_ASSERT(statctr_snap_discontinuity(snap, g) > first_disc);
	expect_reset(snap, g, statctr_snap_discontinuity(snap, g));
	statctr_snap_free(snap);
	statctr_hist_record(slot, g, 100);
	snap = snap_now();
	CU_ASSERT_EQUAL(statctr_snap_hist_count(snap, g), 1);
	CU_ASSERT_EQUAL(statctr_snap_hist_sum(snap, g), 100);
	CU_ASSERT_EQUAL(statctr_snap_hist_bucket(snap, g, 1), 1);
	statctr_snap_free(snap);
	statctr_slot_release(slot);
	teardown();
}

/* ---- The bounds pool's limit. ---- */

/* 64 columns of 64 buckets.  Each takes 128 padded bounds at an index whose
 * low byte is its half, 64 (lib/hist.c): one per 256 entries, so a pool
 * holds STATCTR_HIST_POOL / 256 of them. */
#define POOL_COLUMNS 64u
#define POOL_SEGS    (STATCTR_HIST_POOL / 256 / POOL_COLUMNS)

/* One histogram of 16 buckets. */
#define HIST16_TABLE                                                                               \
	"{ name = \"t\"; rows = 1; columns = ( { name = \"h\"; kind = \"histogram\"; "             \
	"buckets = { start = 1; factor = 2; count = 16; }; } ); }"

/* Creates segment @name (POOL_COLUMNS histograms) at a path of its own. */
static int create_named(const char *name, struct statctr_seg **segp)
{
	static char text[POOL_COLUMNS * 128 + 1024];
	char path[300], file[64];
	size_t used;
	uint32_t c;

	snprintf(path, sizeof(path), "%s/%s", tu_tmpdir(), name);
	snprintf(file, sizeof(file), "%s.conf", name);
	used = (size_t)snprintf(text, sizeof(text),
	                        "segments = ( { name = \"%s\"; path = \"%s\"; slots = 1; tables "
	                        "= ( { name = \"t\"; rows = 1; columns = (",
	                        name, path);
	for (c = 0; c < POOL_COLUMNS; c++)
		used += (size_t)snprintf(text + used, sizeof(text) - used,
		                         "%s { name = \"h%u\"; kind = \"histogram\"; buckets = "
		                         "{ start = 1; factor = 2; count = 64; }; }",
		                         c ? "," : "", c);
	snprintf(text + used, sizeof(text) - used, " ); } ); } );\n");
	return statctr_seg_create(tu_write_file(file, text), name, segp);
}

/* The pool index of @s's first histogram: where its first range starts. */
static uint32_t first_range(struct statctr_seg *s)
{
	statctr_id id = UINT32_MAX;

	CU_ASSERT_EQUAL_FATAL(statctr_seg_lookup(s, "t", "h0", 0, &id), 0);
	return decode(atomic_load_explicit(&seg_slot_header(s, 0)->cells[id], memory_order_relaxed))
	    .pool;
}

/*
 * Ranges are taken per histogram column until the pool is full (-ENOSPC
 * naming the segment, and nothing left behind), and given back at
 * destroy: the next creation takes the freed range (first fit).
 */
static void the_bounds_pool_fills_and_is_given_back(void)
{
	struct statctr_seg *segs[POOL_SEGS + 1];
	char name[16], path[300], expected[64];
	uint32_t made = 0, freed, i;
	int err = 0;

	while (made <= POOL_SEGS && err == 0) {
		snprintf(name, sizeof(name), "s%u", made);
		err = create_named(name, &segs[made]);
		made += err == 0;
	}
	CU_ASSERT_EQUAL(made, POOL_SEGS);
	CU_ASSERT_EQUAL(err, -ENOSPC);
	snprintf(expected, sizeof(expected), "segment s%u: column h0: no room", POOL_SEGS);
	CU_ASSERT_PTR_NOT_NULL(strstr(statctr_errmsg(), expected));
	CU_ASSERT_PTR_NOT_NULL(strstr(statctr_errmsg(), "histogram bounds pool"));
	/* The refused creation left nothing behind, its ranges neither. */
	snprintf(path, sizeof(path), "%s/%s", tu_tmpdir(), name);
	CU_ASSERT_EQUAL(access(path, F_OK), -1);
	CU_ASSERT_EQUAL(create_named(name, &segs[made]), -ENOSPC);
	/* Full for 64 buckets is not full for 16: other sizes use other indexes. */
	err = statctr_seg_create(tu_config(1, HIST16_TABLE, NULL), "seg", &seg);
	CU_ASSERT_EQUAL(err, 0);
	if (err == 0)
		statctr_seg_destroy(seg);
	freed = first_range(segs[3]);
	statctr_seg_destroy(segs[3]);
	CU_ASSERT_EQUAL_FATAL(create_named("again", &segs[3]), 0);
	CU_ASSERT_EQUAL(first_range(segs[3]), freed);
	for (i = 0; i < made; i++)
		statctr_seg_destroy(segs[i]);
	/* All given back: the pool holds POOL_SEGS again. */
	for (i = 0, err = 0; i < POOL_SEGS && err == 0; i++) {
		snprintf(name, sizeof(name), "r%u", i);
		err = create_named(name, &segs[i]);
	}
	CU_ASSERT_EQUAL(err, 0);
	while (i > 0)
		statctr_seg_destroy(segs[--i]);
}

int main(void)
{
	static const struct test_case cases[] = {
	    {"bucket_of_matches_a_linear_search_at_every_boundary",
	     bucket_of_matches_a_linear_search_at_every_boundary},
	    {"every_writer_slot_holds_the_descriptors", every_writer_slot_holds_the_descriptors},
	    {"a_zeroed_descriptor_records_nothing", a_zeroed_descriptor_records_nothing},
	    {"recorded_values_land_in_their_buckets", recorded_values_land_in_their_buckets},
	    {"only_a_histogram_id_is_a_histogram", only_a_histogram_id_is_a_histogram},
	    {"concurrent_records_are_exact_in_every_snapshot",
	     concurrent_records_are_exact_in_every_snapshot},
	    {"resets_of_cell_row_and_table_reset_histograms_whole",
	     resets_of_cell_row_and_table_reset_histograms_whole},
	    {"readded_row_histogram_starts_at_zero", readded_row_histogram_starts_at_zero},
	    {"the_bounds_pool_fills_and_is_given_back", the_bounds_pool_fills_and_is_given_back},
	    {"records_in_turn_and_at_random_land_exactly",
	     records_in_turn_and_at_random_land_exactly},
	    {"a_guess_of_a_destroyed_column_serves_the_new_bounds",
	     a_guess_of_a_destroyed_column_serves_the_new_bounds},
	    {NULL, NULL},
	};

	return tu_run_both("hist", cases);
}
