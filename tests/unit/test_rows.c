/*
 * test_rows.c - dynamic rows: the writer's add/remove/find contract, what
 * readers see of a row (name and values of one incarnation, zero after a
 * re-add, a new discontinuity, per-row resets), and a churn test: rows
 * added and removed in a loop while two writers run transactions on other
 * rows and a reader process (or thread, for TSan) snapshots.
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

/* Table 0 static and named, table 1 dynamic with room for 3 rows. */
#define SMALL_TABLES                                                                               \
	"{ name = \"fixed\"; rows = [ \"dp0\", \"dp1\" ]; columns = ( "                            \
	"{ name = \"pkts\"; kind = \"counter\"; } ); }, "                                          \
	"{ name = \"numbered\"; rows = 2; columns = ( { name = \"pkts\"; kind = \"counter\"; } "   \
	"); }, "                                                                                   \
	"{ name = \"ifs\"; rows = { max = 3; }; columns = ( "                                      \
	"{ name = \"pkts\"; kind = \"counter\"; }, { name = \"level\"; kind = \"gauge\"; } ); }"
#define IFS 2 /* table index of "ifs" */

static void setup(void)
{
	CU_ASSERT_EQUAL_FATAL(
	    statctr_seg_create(tu_config(2, SMALL_TABLES, &seg_path), "seg", &seg), 0);
	CU_ASSERT_EQUAL_FATAL(tu_view_open(seg_path, &view), 0);
}

static void teardown(void)
{
	statctr_view_close(view);
	statctr_seg_destroy(seg);
}

static statctr_id cell(const char *column, uint32_t row)
{
	statctr_id id = 0;

	CU_ASSERT_EQUAL(statctr_seg_lookup(seg, "ifs", column, row, &id), 0);
	return id;
}

static uint32_t add(const char *name)
{
	uint32_t row = UINT32_MAX;

	CU_ASSERT_EQUAL(statctr_row_add(seg, "ifs", name, &row), 0);
	return row;
}

static struct statctr_snap *snap_now(void)
{
	struct statctr_snap *snap = NULL;

	CU_ASSERT_EQUAL_FATAL(statctr_snap_take(view, &snap), 0);
	return snap;
}

static void add_remove_find_errors(void)
{
	char long_name[STATCTR_MAX_ROWNAME + 2];
	uint32_t row;

	setup();
	memset(long_name, 'x', sizeof(long_name) - 1);
	long_name[sizeof(long_name) - 1] = '\0';
	CU_ASSERT_EQUAL(statctr_row_add(seg, "ifs", "dp0", &row), 0);
	CU_ASSERT_EQUAL(row, 0);
	CU_ASSERT_EQUAL(statctr_row_add(seg, "ifs", "dp0", &row), -EEXIST);
	CU_ASSERT_PTR_NOT_NULL(strstr(statctr_errmsg(), "already has a row dp0"));
	CU_ASSERT_EQUAL(statctr_row_add(seg, "fixed", "eth9", &row), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(statctr_errmsg(), "static"));
	CU_ASSERT_EQUAL(statctr_row_add(seg, "nope", "eth9", &row), -ENOENT);
	CU_ASSERT_EQUAL(statctr_row_add(seg, "ifs", "", &row), -EINVAL);
	CU_ASSERT_EQUAL(statctr_row_add(seg, "ifs", long_name, &row), -EINVAL);
	long_name[STATCTR_MAX_ROWNAME] = '\0';
	CU_ASSERT_EQUAL(statctr_row_add(seg, "ifs", long_name, &row), 0); /* 255 bytes */
	CU_ASSERT_EQUAL(statctr_row_add(seg, "ifs", "a\x1b[2Jb", &row), -EINVAL);
	CU_ASSERT_EQUAL(statctr_row_add(seg, "ifs", "a\tb", &row), -EINVAL);
	CU_ASSERT_EQUAL(statctr_row_add(seg, "ifs", "a\x7f", &row), -EINVAL);
	CU_ASSERT_EQUAL(statctr_row_add(seg, "ifs", "a\xc3\xa9", &row), -EINVAL);
	CU_ASSERT_EQUAL(statctr_row_add(seg, "ifs", "~!{}", &row), 0);
	CU_ASSERT_EQUAL(statctr_row_add(seg, "ifs", "one-more", &row), -ENOSPC);
	CU_ASSERT_PTR_NOT_NULL(strstr(statctr_errmsg(), "full"));
	CU_ASSERT_EQUAL(statctr_row_find(seg, "ifs", "~!{}", &row), 0);
	CU_ASSERT_EQUAL(row, 2);
	CU_ASSERT_EQUAL(statctr_row_find(seg, "ifs", "dp1", &row), -ENOENT);
	CU_ASSERT_EQUAL(statctr_row_find(seg, "fixed", "dp0", &row), -EINVAL);
	CU_ASSERT_EQUAL(statctr_row_remove(seg, "ifs", 2), 0);
	CU_ASSERT_EQUAL(statctr_row_remove(seg, "ifs", 2), -ENOENT);
	CU_ASSERT_EQUAL(statctr_row_remove(seg, "ifs", 3), -ENOENT);
	CU_ASSERT_EQUAL(statctr_row_remove(seg, "fixed", 0), -EINVAL);
	CU_ASSERT_EQUAL(statctr_row_find(seg, "ifs", "~!{}", &row), -ENOENT);
	CU_ASSERT_EQUAL(statctr_row_find(seg, "ifs", "dp0", &row), 0);
	CU_ASSERT_EQUAL(row, 0);
	teardown();
}

/* An index comes back only after every other free index was used. */
static void free_indexes_are_reused_first_in_first_out(void)
{
	uint32_t order[8], i;

	setup();
	CU_ASSERT_EQUAL(add("a"), 0);
	CU_ASSERT_EQUAL(add("b"), 1);
	CU_ASSERT_EQUAL(add("c"), 2);
	CU_ASSERT_EQUAL(statctr_row_remove(seg, "ifs", 1), 0);
	CU_ASSERT_EQUAL(statctr_row_remove(seg, "ifs", 0), 0);
	CU_ASSERT_EQUAL(add("d"), 1);
	CU_ASSERT_EQUAL(add("e"), 0);
	CU_ASSERT_EQUAL(statctr_row_remove(seg, "ifs", 2), 0);
	/* One row churning while two stay: it cycles through every free index. */
	CU_ASSERT_EQUAL(statctr_row_remove(seg, "ifs", 1), 0);
	for (i = 0; i < 8; i++) {
		char name[16];

		snprintf(name, sizeof(name), "x%u", i);
		order[i] = add(name);
		CU_ASSERT_EQUAL(statctr_row_remove(seg, "ifs", order[i]), 0);
	}
	for (i = 0; i < 8; i++)
		CU_ASSERT_EQUAL(order[i], i % 2 == 0 ? 2 : 1);
	teardown();
}

static void present_rows_have_names_and_absent_rows_none(void)
{
	struct statctr_snap *snap;
	struct statctr_table_info info;
	struct statctr_snap_stats st;

	setup();
	CU_ASSERT_EQUAL(statctr_view_table(view, IFS, &info), 0);
	CU_ASSERT_EQUAL(info.dynamic, 1);
	CU_ASSERT_EQUAL(info.nrows, 3);
	CU_ASSERT_EQUAL(statctr_view_table(view, 0, &info), 0);
	CU_ASSERT_EQUAL(info.dynamic, 0);
	add("vf7");
	snap = snap_now();
	CU_ASSERT_STRING_EQUAL(statctr_snap_row_name(snap, IFS, 0), "vf7");
	CU_ASSERT_PTR_NULL(statctr_snap_row_name(snap, IFS, 1));
	CU_ASSERT_PTR_NULL(statctr_snap_row_name(snap, IFS, 3));
	CU_ASSERT_STRING_EQUAL(statctr_snap_row_name(snap, 0, 1), "dp1");
	CU_ASSERT_PTR_NULL(statctr_snap_row_name(snap, 1, 0)); /* numbered */
	CU_ASSERT_PTR_NULL(statctr_snap_row_name(snap, 9, 0));
	CU_ASSERT_PTR_NULL(statctr_view_row_name(view, IFS, 0));
	statctr_snap_stats(snap, &st);
	CU_ASSERT_EQUAL(st.rows_present, 1);
	CU_ASSERT_EQUAL(st.rows_changed, 0);
	/* The snapshot keeps its names past a refresh and a close of the view. */
	statctr_view_close(view);
	CU_ASSERT_EQUAL_FATAL(tu_view_open(seg_path, &view), 0);
	CU_ASSERT_STRING_EQUAL(statctr_snap_row_name(snap, IFS, 0), "vf7");
	CU_ASSERT_STRING_EQUAL(statctr_snap_row_name(snap, 0, 0), "dp0");
	statctr_snap_free(snap);
	teardown();
}

/* Max 1: the one index is removed and added again at once. */
static void readded_index_starts_at_zero_with_a_new_discontinuity(void)
{
	struct statctr_slot *slot;
	struct statctr_snap *snap;
	uint64_t disc1, disc2;
	statctr_id pkts, level;
	uint32_t row, i;

	setup();
	CU_ASSERT_EQUAL_FATAL(statctr_slot_acquire(seg, &slot), 0);
	row = add("tun1");
	pkts = cell("pkts", row);
	level = cell("level", row);
	statctr_add(slot, pkts, 40);
	statctr_gauge_add(slot, level, -3);
	statctr_shared_add(seg, pkts, 2);
	snap = snap_now();
	CU_ASSERT_EQUAL(statctr_snap_counter(snap, pkts), 42);
	CU_ASSERT_EQUAL(statctr_snap_gauge(snap, level), -3);
	disc1 = statctr_snap_discontinuity(snap, pkts);
	statctr_snap_free(snap);
	CU_ASSERT_EQUAL(statctr_row_remove(seg, "ifs", row), 0);
	statctr_add(slot, pkts, 5); /* a straggler: never shown under a name */
	snap = snap_now();
	CU_ASSERT_PTR_NULL(statctr_snap_row_name(snap, IFS, row));
	CU_ASSERT_EQUAL(statctr_snap_counter(snap, pkts), 0);
	CU_ASSERT_EQUAL(statctr_snap_gauge(snap, level), 0);
	CU_ASSERT_EQUAL(statctr_snap_counter_raw(snap, pkts), 47);
	statctr_snap_free(snap);
	/* Cycle the other two indexes so that the same index comes back. */
	for (i = 0; i < 2; i++)
		CU_ASSERT_EQUAL(statctr_row_remove(seg, "ifs", add(i ? "p" : "q")), 0);
	CU_ASSERT_EQUAL_FATAL(add("tun2"), row);
	snap = snap_now();
	CU_ASSERT_STRING_EQUAL(statctr_snap_row_name(snap, IFS, row), "tun2");
	CU_ASSERT_EQUAL(statctr_snap_counter(snap, pkts), 0);
	CU_ASSERT_EQUAL(statctr_snap_gauge(snap, level), 0);
	disc2 = statctr_snap_discontinuity(snap, pkts);
	CU_ASSERT(disc2 > disc1);
	statctr_snap_free(snap);
	statctr_add(slot, pkts, 7);
	statctr_gauge_add(slot, level, 2);
	snap = snap_now();
	CU_ASSERT_EQUAL(statctr_snap_counter(snap, pkts), 7);
	CU_ASSERT_EQUAL(statctr_snap_gauge(snap, level), 2);
	CU_ASSERT_EQUAL(statctr_snap_discontinuity(snap, pkts), disc2);
	statctr_snap_free(snap);
	statctr_slot_release(slot);
	teardown();
}

static void reset_applies_to_one_row_until_the_next_add(void)
{
	struct statctr_slot *slot;
	struct statctr_snap *snap;
	statctr_id a, b;
	uint32_t ra, rb;
	uint64_t added, reset;

	setup();
	CU_ASSERT_EQUAL_FATAL(statctr_slot_acquire(seg, &slot), 0);
	ra = add("a");
	rb = add("b");
	a = cell("pkts", ra);
	b = cell("pkts", rb);
	statctr_add(slot, a, 10);
	statctr_add(slot, b, 20);
	snap = snap_now();
	added = statctr_snap_discontinuity(snap, a);
	statctr_snap_free(snap);
	CU_ASSERT_EQUAL(statctr_reset_range(view, cell("pkts", ra), 2), 0); /* the row */
	statctr_add(slot, a, 3);
	snap = snap_now();
	CU_ASSERT_EQUAL(statctr_snap_counter(snap, a), 3);
	CU_ASSERT_EQUAL(statctr_snap_counter(snap, b), 20);
	reset = statctr_snap_discontinuity(snap, a);
	CU_ASSERT(reset > added);
	CU_ASSERT(statctr_snap_discontinuity(snap, b) < reset);
	statctr_snap_free(snap);
	/* A re-add is newer than the reset: the incarnation base applies again. */
	CU_ASSERT_EQUAL(statctr_row_remove(seg, "ifs", ra), 0);
	CU_ASSERT_EQUAL(statctr_row_remove(seg, "ifs", rb), 0);
	add("c");
	CU_ASSERT_EQUAL_FATAL(add("a2"), ra);
	statctr_add(slot, a, 4);
	snap = snap_now();
	CU_ASSERT_EQUAL(statctr_snap_counter(snap, a), 4);
	CU_ASSERT(statctr_snap_discontinuity(snap, a) > reset);
	statctr_snap_free(snap);
	statctr_slot_release(slot);
	teardown();
}

/* A name no writer stores makes the row absent, counted as corrupt. */
static void invalid_name_in_the_directory_makes_the_row_absent(void)
{
	struct statctr_snap *snap;
	struct statctr_snap_stats st;
	struct seg_rowdir *e;
	uint32_t row = add("ok");

	(void)row;
	e = (void *)(seg->base + seg->layout.rowdir_off);   /* ifs is the only dynamic table */
	atomic_store(&e[0].name[0], 0x1b1b1b1b1b1b1b1bull); /* ESC: never a name byte */
	snap = snap_now();
	statctr_snap_stats(snap, &st);
	CU_ASSERT_PTR_NULL(statctr_snap_row_name(snap, IFS, 0));
	CU_ASSERT_EQUAL(st.rows_corrupt, 1);
	CU_ASSERT_EQUAL(st.rows_present, 0);
	statctr_snap_free(snap);
}

static void invalid_name_test(void)
{
	setup();
	invalid_name_in_the_directory_makes_the_row_absent();
	teardown();
}

static void expect_config_error(const char *rows, const char *why)
{
	char tables[512];
	struct statctr_config *cfg = NULL;

	snprintf(
	    tables, sizeof(tables),
	    "{ name = \"d\"; rows = %s; columns = ( { name = \"c\"; kind = \"counter\"; } ); }",
	    rows);
	CU_ASSERT_EQUAL(statctr_config_load(tu_config(1, tables, NULL), &cfg), -EINVAL);
	if (!strstr(statctr_errmsg(), why))
		fprintf(stderr, "\n    %s: \"%s\", expected \"%s\"\n", rows, statctr_errmsg(), why);
	CU_ASSERT_PTR_NOT_NULL(strstr(statctr_errmsg(), why));
	CU_ASSERT_PTR_NOT_NULL(strstr(statctr_errmsg(), "seg.conf:2:"));
}

static void config_declares_dynamic_tables(void)
{
	struct statctr_config *cfg = NULL;

	CU_ASSERT_EQUAL_FATAL(statctr_config_load(tu_config(1, SMALL_TABLES, NULL), &cfg), 0);
	CU_ASSERT_EQUAL(cfg->segments[0].tables[2].dynamic, 1);
	CU_ASSERT_EQUAL(cfg->segments[0].tables[2].nrows, 3);
	CU_ASSERT_PTR_NULL(cfg->segments[0].tables[2].row_names);
	CU_ASSERT_EQUAL(cfg->segments[0].tables[0].dynamic, 0);
	CU_ASSERT_EQUAL(cfg->segments[0].ncells, 2 + 2 + 3 * 2);
	statctr_config_free(cfg);
	expect_config_error("{ max = 0; }", "0 is out of range (1..16777216)");
	expect_config_error("{ max = 16777217; }", "out of range");
	expect_config_error("{ }", "rows.max: missing (required)");
	expect_config_error("{ max = \"4\"; }", "expected an integer");
	expect_config_error("{ max = 4; min = 1; }", "unknown setting");
}

/* A segment without dynamic tables: no row work, no row stats. */
static void static_segment_snapshot_has_no_row_state(void)
{
	struct statctr_seg *s;
	struct statctr_view *v;
	struct statctr_snap *snap = NULL;
	struct statctr_snap_stats st;
	const char *path;

	CU_ASSERT_EQUAL_FATAL(
	    statctr_seg_create(tu_config(1, TU_SIMPLE_TABLE(2), &path), "seg", &s), 0);
	CU_ASSERT_EQUAL_FATAL(tu_view_open(path, &v), 0);
	CU_ASSERT_EQUAL(statctr_snap_retake(v, &snap), 0);
	CU_ASSERT_EQUAL(statctr_snap_retake(v, &snap), 0);
	statctr_snap_stats(snap, &st);
	CU_ASSERT_EQUAL(st.rows_present + st.rows_changed + st.rows_corrupt, 0);
	CU_ASSERT_PTR_NULL(statctr_snap_row_name(snap, 0, 0));
	statctr_snap_free(snap);
	statctr_view_close(v);
	statctr_seg_destroy(s);
}

/* ---- Churn: rows come and go while writers and a reader run. ---- */

#define NFLOWS   4096
#define NWRITERS 2
#define NIFS     8 /* room in the dynamic table */
#define LIVE     5 /* rows present at once */
#define STEPS    3 /* transactions per incarnation */
/* Table indexes and cells: flows (0..NFLOWS-1), totals, ifs (pkts, octets). */
#define TOTALS    NFLOWS
#define IF_CELL0  (NFLOWS + 1)
#define IFS_TABLE 2

static const char *churn_config(void)
{
	return tu_config(NWRITERS + 1,
	                 "{ name = \"flows\"; rows = 4096; columns = ( "
	                 "{ name = \"pkts\"; kind = \"counter\"; } ); }, "
	                 "{ name = \"totals\"; rows = 1; columns = ( "
	                 "{ name = \"pkts\"; kind = \"counter\"; } ); }, "
	                 "{ name = \"ifs\"; rows = { max = 8; }; columns = ( "
	                 "{ name = \"pkts\"; kind = \"counter\"; }, "
	                 "{ name = \"octets\"; kind = \"counter\"; } ); }",
	                 &seg_path);
}

/*
 * What incarnation N adds per transaction: 2^20 + N mod 2^18, so that
 * j x amount(N) never equals j' x amount(N') for N != N' (mod 2^18) and
 * j, j' <= STEPS: a row's pkts tell which incarnation counted them.
 */
static uint64_t amount(uint64_t n)
{
	return (1u << 20) + n % (1u << 18);
}

static _Atomic int stop_threads;

static void *flows_writer(void *arg)
{
	unsigned index = (unsigned)(uintptr_t)arg;
	struct statctr_slot *slot;
	uint64_t seed = 88172645463325252ull + index;

	if (statctr_slot_acquire(seg, &slot) != 0)
		return NULL;
	while (!atomic_load_explicit(&stop_threads, memory_order_relaxed)) {
		uint32_t flow = index * (NFLOWS / 2) + (uint32_t)(seed % (NFLOWS / 2));

		seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
		statctr_txn_begin(slot);
		statctr_inc(slot, flow);
		statctr_inc(slot, TOTALS);
		statctr_txn_end(slot);
	}
	statctr_slot_release(slot);
	return NULL;
}

struct churn {
	bool counts;         /* run transactions on each incarnation */
	unsigned adds;       /* incarnations made */
	unsigned failures;   /* add/remove calls that failed */
	uint64_t add_ns_sum; /* time spent in add + remove */
};

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void *churner(void *arg)
{
	struct churn *c = arg;
	struct statctr_slot *slot = NULL;
	uint32_t live[LIVE], row;
	unsigned n, j;
	char name[64];

	if (c->counts && statctr_slot_acquire(seg, &slot) != 0)
		return NULL;
	for (n = 1; !atomic_load_explicit(&stop_threads, memory_order_relaxed); n++) {
		uint64_t t0 = mono_ns();

		snprintf(name, sizeof(name), "if%u-gen%u", n % 13, n);
		if (n > LIVE && statctr_row_remove(seg, "ifs", live[n % LIVE]) != 0)
			c->failures++;
		if (statctr_row_add(seg, "ifs", name, &row) != 0)
			c->failures++;
		c->add_ns_sum += mono_ns() - t0;
		live[n % LIVE] = row;
		c->adds++;
		for (j = 0; slot && j < STEPS; j++) {
			statctr_txn_begin(slot);
			statctr_add(slot, IF_CELL0 + 2 * row, amount(n));
			statctr_add(slot, IF_CELL0 + 2 * row + 1, 3 * amount(n));
			statctr_txn_end(slot);
		}
		/* Without counts, rows live a few tens of us: long enough for a
		 * snapshot to see some whole, even under a sanitizer. */
		if (!slot)
			nanosleep(&(struct timespec){0, 20000}, NULL);
	}
	if (slot)
		statctr_slot_release(slot);
	return NULL;
}

struct tally {
	unsigned snapshots, static_violations, row_violations, rows_present, rows_counted;
	unsigned retries, busy, assisted, rows_changed;
};

/* One snapshot's checks: totals == sum of flows, each row's counts match its name. */
static void check_churn_snapshot(struct statctr_snap *snap, struct tally *t)
{
	struct statctr_snap_stats st;
	uint64_t sum = 0, pkts, octets;
	unsigned n, k;
	uint32_t f, r;

	statctr_snap_stats(snap, &st);
	for (f = 0; f < NFLOWS; f++)
		sum += statctr_snap_counter(snap, f);
	if (st.busy_slots == 0 && sum != statctr_snap_counter(snap, TOTALS)) {
		/* Says which snapshot, so that a rare failure can be explained. */
		fprintf(
		    stderr,
		    "\n    static violation in snapshot %u: flows %llu, totals %llu; %u retries, "
		    "%u assisted, %u dead torn, %u rows changed\n",
		    t->snapshots, (unsigned long long)sum,
		    (unsigned long long)statctr_snap_counter(snap, TOTALS), st.retries,
		    st.assisted_slots, st.dead_torn_slots, st.rows_changed);
		t->static_violations++;
	}
	for (r = 0; r < NIFS; r++) {
		const char *name = statctr_snap_row_name(snap, IFS_TABLE, r);

		pkts = statctr_snap_counter(snap, IF_CELL0 + 2 * r);
		octets = statctr_snap_counter(snap, IF_CELL0 + 2 * r + 1);
		if (!name) {
			t->row_violations += pkts != 0 || octets != 0;
			continue;
		}
		t->rows_present++;
		t->rows_counted += pkts != 0;
		if (sscanf(name, "if%u-gen%u", &k, &n) != 2 || k != n % 13 ||
		    pkts % amount(n) != 0 || pkts / amount(n) > STEPS || octets != 3 * pkts)
			t->row_violations++;
	}
	t->snapshots++;
	t->retries += st.retries;
	t->busy += st.busy_slots;
	t->assisted += st.assisted_slots;
	t->rows_changed += st.rows_changed;
}

/* Snapshots (retaken: same buffers) until @stop_fd is readable, at most 30 s. */
static void read_until(struct statctr_view *v, int stop_fd, struct tally *t)
{
	struct statctr_snap *snap = NULL;
	struct pollfd p = {.fd = stop_fd, .events = POLLIN};
	uint64_t start = mono_ns();

	while (poll(&p, 1, 0) == 0 && mono_ns() - start < 30000000000ull) {
		if (statctr_snap_retake(v, &snap) != 0) {
			fprintf(stderr, "\n    snapshot %u failed: %s\n", t->snapshots,
			        statctr_errmsg());
			t->static_violations++;
			break;
		}
		check_churn_snapshot(snap, t);
	}
	statctr_snap_free(snap);
}

/* The reader process: opens its own view, snapshots until told to stop. */
static void reader_process(int go_fd, int stop_fd, int report_fd)
{
	struct statctr_view *v;
	struct tally t = {0};
	char c;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	alarm(60);
	if (read(go_fd, &c, 1) != 1 || tu_view_open(seg_path, &v) != 0)
		_exit(1);
	read_until(v, stop_fd, &t);
	statctr_view_close(v);
	_exit(write(report_fd, &t, sizeof(t)) == sizeof(t) ? 0 : 1);
}

struct run {
	int go[2], stop[2], report[2];
	pid_t reader;
	pthread_t writers[NWRITERS], churn_thread;
	struct churn churn;
	struct tally tally;
};

static void start_run(struct run *run, bool writers, bool counts)
{
	unsigned i;

	CU_ASSERT_EQUAL_FATAL(statctr_seg_create(churn_config(), "seg", &seg), 0);
	CU_ASSERT_FATAL(pipe(run->go) == 0 && pipe(run->stop) == 0 && pipe(run->report) == 0);
	/* Forked before any thread starts: the child is a plain reader. */
	run->reader = fork();
	if (run->reader == 0)
		reader_process(run->go[0], run->stop[0], run->report[1]);
	close(run->report[1]); /* the reader's end only: its exit is an end of file */
	run->report[1] = -1;
	atomic_store(&stop_threads, 0);
	run->churn.counts = counts;
	for (i = 0; writers && i < NWRITERS; i++)
		pthread_create(&run->writers[i], NULL, flows_writer, (void *)(uintptr_t)i);
	pthread_create(&run->churn_thread, NULL, churner, &run->churn);
	CU_ASSERT_EQUAL(write(run->go[1], "g", 1), 1);
}

static void stop_run(struct run *run, bool writers, double seconds)
{
	struct timespec ts = {(time_t)seconds, (long)((seconds - (time_t)seconds) * 1e9)};
	int status = -1;
	unsigned i;

	nanosleep(&ts, NULL);
	CU_ASSERT_EQUAL(write(run->stop[1], "s", 1), 1);
	CU_ASSERT_EQUAL(read(run->report[0], &run->tally, sizeof(run->tally)),
	                (ssize_t)sizeof(run->tally));
	waitpid(run->reader, &status, 0);
	CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	atomic_store(&stop_threads, 1);
	for (i = 0; writers && i < NWRITERS; i++)
		pthread_join(run->writers[i], NULL);
	pthread_join(run->churn_thread, NULL);
	for (i = 0; i < 2; i++) {
		close(run->go[i]);
		close(run->stop[i]);
		close(run->report[i]);
	}
	statctr_seg_destroy(seg);
}

static void print_run(const char *what, const struct run *run)
{
	const struct tally *t = &run->tally;

	fprintf(stderr,
	        "\n    %s: %u incarnations (%.1f us per remove + add), %u snapshots, %u rows "
	        "present (%u with counts), %u changed while read, %u slot retries, %u busy, "
	        "%u assisted, %u static and %u row violations\n",
	        what, run->churn.adds,
	        run->churn.adds ? run->churn.add_ns_sum / 1e3 / run->churn.adds : 0.0, t->snapshots,
	        t->rows_present, t->rows_counted, t->rows_changed, t->retries, t->busy, t->assisted,
	        t->static_violations, t->row_violations);
}

/* What every churn run must show: rows churned, snapshots taken, names matching values. */
static void assert_run(const char *what, const struct run *run)
{
	print_run(what, run);
	CU_ASSERT_EQUAL(run->churn.failures, 0);
	CU_ASSERT(run->churn.adds >= 20);
	CU_ASSERT(run->tally.snapshots >= 10);
	CU_ASSERT_EQUAL(run->tally.row_violations, 0);
}

static void churn_under_writers_keeps_names_with_their_values(void)
{
	struct run run = {0};

	start_run(&run, true, true);
	stop_run(&run, true, 2.0);
	assert_run("writers + churn", &run);
	CU_ASSERT(run.tally.rows_counted > 0);
	CU_ASSERT_EQUAL(run.tally.static_violations, 0);
}

/* Without writers, the churn alone never makes the reader retry or wait. */
static void churn_alone_costs_readers_no_retry_and_no_wait(void)
{
	struct run run = {0};

	start_run(&run, false, false);
	stop_run(&run, false, 1.0);
	assert_run("churn alone", &run);
	CU_ASSERT(run.tally.rows_present > 0);
	CU_ASSERT_EQUAL(run.tally.retries, 0);
	CU_ASSERT_EQUAL(run.tally.busy, 0);
	CU_ASSERT_EQUAL(run.tally.assisted, 0);
}

/* The same checks with the reader as a thread of the writer process (TSan sees both). */
static void churn_with_a_reader_thread(void)
{
	struct churn churn = {.counts = true};
	struct statctr_snap *snap = NULL;
	struct tally t = {0};
	pthread_t writers[NWRITERS], churn_thread;
	uint64_t until = mono_ns() + 1500000000u;
	unsigned i;

	CU_ASSERT_EQUAL_FATAL(statctr_seg_create(churn_config(), "seg", &seg), 0);
	CU_ASSERT_EQUAL_FATAL(tu_view_open(seg_path, &view), 0);
	atomic_store(&stop_threads, 0);
	for (i = 0; i < NWRITERS; i++)
		pthread_create(&writers[i], NULL, flows_writer, (void *)(uintptr_t)i);
	pthread_create(&churn_thread, NULL, churner, &churn);
	while ((mono_ns() < until || t.snapshots < 10) && t.snapshots < 100000) {
		CU_ASSERT_EQUAL_FATAL(statctr_snap_retake(view, &snap), 0);
		check_churn_snapshot(snap, &t);
	}
	statctr_snap_free(snap);
	atomic_store(&stop_threads, 1);
	for (i = 0; i < NWRITERS; i++)
		pthread_join(writers[i], NULL);
	pthread_join(churn_thread, NULL);
	CU_ASSERT_EQUAL(churn.failures, 0);
	CU_ASSERT_EQUAL(t.static_violations, 0);
	CU_ASSERT_EQUAL(t.row_violations, 0);
	statctr_view_close(view);
	statctr_seg_destroy(seg);
}

int main(void)
{
	static const struct test_case cases[] = {
	    {"add_remove_find_errors", add_remove_find_errors},
	    {"free_indexes_are_reused_first_in_first_out",
	     free_indexes_are_reused_first_in_first_out},
	    {"present_rows_have_names_and_absent_rows_none",
	     present_rows_have_names_and_absent_rows_none},
	    {"readded_index_starts_at_zero_with_a_new_discontinuity",
	     readded_index_starts_at_zero_with_a_new_discontinuity},
	    {"reset_applies_to_one_row_until_the_next_add",
	     reset_applies_to_one_row_until_the_next_add},
	    {"invalid_name_in_the_directory_makes_the_row_absent", invalid_name_test},
	    {"config_declares_dynamic_tables", config_declares_dynamic_tables},
	    {"static_segment_snapshot_has_no_row_state", static_segment_snapshot_has_no_row_state},
	    {"churn_under_writers_keeps_names_with_their_values",
	     churn_under_writers_keeps_names_with_their_values},
	    {"churn_alone_costs_readers_no_retry_and_no_wait",
	     churn_alone_costs_readers_no_retry_and_no_wait},
	    {"churn_with_a_reader_thread", churn_with_a_reader_thread},
	    {NULL, NULL},
	};

	return tu_run_both("rows", cases);
}
