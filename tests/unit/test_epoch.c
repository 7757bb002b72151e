/*
 * test_epoch.c - epochs (lib/epoch.c): exact intervals across resets and
 * writer restarts, bounded history, captures, and adopt's rebuild of a
 * corrupt header.  The epoch file's own rules: test_epochfile.c.
 */
#include "internal.h"
#include "epochutil.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void config_exposes_keep_and_interval_and_refuses_bad_values(void)
{
	struct statctr_config *cfg;
	static const char *const bad[] = {
	    "epochs = { keep = 0; };",
	    "epochs = { keep = 1025; };",
	    "epochs = { interval_s = 5; };",
	    "epochs = { keep = 2; interval_s = 0; };",
	    "epochs = { keep = 2; every = 3; };",
	    "epochs = 4;",
	};

	CU_ASSERT_EQUAL_FATAL(statctr_config_load(epoch_conf(EPOCHS(96)), &cfg), 0);
	CU_ASSERT_EQUAL(cfg->segments[0].epoch_keep, 96);
	CU_ASSERT_EQUAL(cfg->segments[0].epoch_interval_s, 900);
	statctr_config_free(cfg);
	CU_ASSERT_EQUAL_FATAL(statctr_config_load(epoch_conf(""), &cfg), 0);
	CU_ASSERT_EQUAL(cfg->segments[0].epoch_keep, 0);
	statctr_config_free(cfg);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CU_ASSERT_EQUAL(statctr_config_load(epoch_conf(bad[i]), &cfg), -EINVAL);
		CU_ASSERT_PTR_NOT_NULL(strstr(statctr_errmsg(), "seg.conf:"));
	}
}

static void start_changes_no_value_and_deltas_are_exact_across_resets(void)
{
	struct statctr_seg *seg;
	struct statctr_view *v;
	struct statctr_slot *s;
	struct statctr_snap *snap;
	struct statctr_epoch e[4];
	uint32_t n1, n2;
	uint64_t disc, value;
	int rc;

	CU_ASSERT_EQUAL_FATAL(statctr_seg_create(epoch_conf(EPOCHS(4)), "seg", &seg), 0);
	CU_ASSERT_EQUAL_FATAL(tu_view_open(seg_path, &v), 0);
	CU_ASSERT_EQUAL_FATAL(statctr_slot_acquire(seg, &s), 0);
	statctr_add(s, 0, 10);
	CU_ASSERT_EQUAL(statctr_reset(v, 0), 0);
	statctr_add(s, 0, 3);
	CU_ASSERT_EQUAL_FATAL(statctr_snap_take(v, &snap), 0);
	value = statctr_snap_counter(snap, 0);
	disc = statctr_snap_discontinuity(snap, 0);
	statctr_snap_free(snap);
	CU_ASSERT_EQUAL(statctr_epoch_start(v, "since noon", &n1), 0);
	CU_ASSERT_EQUAL(n1, 1);
	CU_ASSERT_EQUAL_FATAL(statctr_snap_take(v, &snap), 0);
	CU_ASSERT_EQUAL(statctr_snap_counter(snap, 0), value);
	CU_ASSERT_EQUAL(statctr_snap_discontinuity(snap, 0), disc);
	statctr_snap_free(snap);
	statctr_add(s, 0, 7);
	CU_ASSERT_EQUAL(statctr_reset(v, 0), 0); /* a reset inside the interval */
	statctr_add(s, 0, 5);
	CU_ASSERT_EQUAL(statctr_epoch_start(v, "after", &n2), 0);
	CU_ASSERT_EQUAL(n2, 2);
	statctr_add(s, 0, 100);
	CU_ASSERT_EQUAL(delta_of(v, 0, 1, 2, &rc), 12);
	CU_ASSERT_EQUAL(rc, 0);
	CU_ASSERT_EQUAL(delta_of(v, 0, 2, 0, &rc), 100);
	CU_ASSERT_EQUAL(rc, 0);
	CU_ASSERT_EQUAL(delta_of(v, 0, 1, 0, &rc), 112);
	CU_ASSERT_EQUAL(delta_of(v, 3, 1, 0, &rc), 0);
	CU_ASSERT_EQUAL(rc, 0);
	delta_of(v, 2, 1, 0, &rc); /* a gauge */
	CU_ASSERT_EQUAL(rc, -EINVAL);
	delta_of(v, 0, 7, 0, &rc);
	CU_ASSERT_EQUAL(rc, -ENOENT);
	CU_ASSERT_EQUAL(statctr_view_epochs(v, e, 4), 2);
	CU_ASSERT_STRING_EQUAL(e[0].name, "since noon");
	CU_ASSERT_EQUAL(e[1].number, 2);
	CU_ASSERT(e[1].start_ns >= e[0].start_ns && e[0].start_ns > 0);
	statctr_view_close(v);
	statctr_seg_destroy(seg);
}

static void keep_drops_the_oldest_and_numbers_go_on(void)
{
	struct statctr_seg *seg;
	struct statctr_view *v;
	struct statctr_epoch e[8];
	struct statctr_epoch_status st;
	uint32_t n = 0;
	int rc;

	CU_ASSERT_EQUAL_FATAL(statctr_seg_create(epoch_conf(EPOCHS(3)), "seg", &seg), 0);
	CU_ASSERT_EQUAL_FATAL(tu_view_open(seg_path, &v), 0);
	for (int i = 0; i < 5; i++)
		CU_ASSERT_EQUAL(statctr_epoch_start(v, "e", &n), 0);
	CU_ASSERT_EQUAL(n, 5);
	CU_ASSERT_EQUAL(statctr_view_epochs(v, e, 8), 3);
	CU_ASSERT_EQUAL(e[0].number, 3);
	CU_ASSERT_EQUAL(e[2].number, 5);
	CU_ASSERT_EQUAL(statctr_view_epochs(v, e, 1), 3); /* writes one, says three */
	delta_of(v, 0, 2, 0, &rc);
	CU_ASSERT_EQUAL(rc, -ENOENT);
	CU_ASSERT_EQUAL(statctr_view_epoch_status(v, &st), 0);
	CU_ASSERT_EQUAL(st.keep, 3);
	CU_ASSERT_EQUAL(st.nkept, 3);
	CU_ASSERT_EQUAL(st.next_number, 6);
	CU_ASSERT_EQUAL(st.current, 1);
	/* Names: 1..63 printable bytes. */
	CU_ASSERT_EQUAL(statctr_epoch_start(v, "", NULL), -EINVAL);
	CU_ASSERT_EQUAL(statctr_epoch_start(v, "bell\a", NULL), -EINVAL);
	CU_ASSERT_EQUAL(
	    statctr_epoch_start(
	        v, "0123456789012345678901234567890123456789012345678901234567890123", NULL),
	    -EINVAL);
	statctr_view_close(v);
	statctr_seg_destroy(seg);
}

static void segment_without_epochs_says_so(void)
{
	struct statctr_seg *seg;
	struct statctr_view *v;
	int rc;

	CU_ASSERT_EQUAL_FATAL(statctr_seg_create(epoch_conf(""), "seg", &seg), 0);
	CU_ASSERT_EQUAL_FATAL(tu_view_open(seg_path, &v), 0);
	CU_ASSERT_EQUAL(statctr_epoch_start(v, "x", NULL), -ENOENT);
	CU_ASSERT_PTR_NOT_NULL(strstr(statctr_errmsg(), "declares no epochs"));
	CU_ASSERT_EQUAL(statctr_view_epochs(v, NULL, 0), 0);
	delta_of(v, 0, 1, 0, &rc);
	CU_ASSERT_EQUAL(rc, -ENOENT);
	statctr_view_close(v);
	statctr_seg_destroy(seg);
}

/* A writer generation that adds @n to cell 0 and ends as @how says. */
enum ending { CLEAN_EXIT, CRASH, CRASH_AND_LOST, CRASH_SEEN_BY_READER };

static void generation_child(const char *conf, uint64_t n, bool start_epoch)
{
	struct statctr_seg *seg;
	struct statctr_view *v;
	struct statctr_slot *s;

	if (statctr_seg_create(conf, "seg", &seg) != 0 || statctr_slot_acquire(seg, &s) != 0)
		_exit(1);
	if (start_epoch) {
		if (statctr_view_open(seg_path, &v) != 0 || statctr_epoch_start(v, "e", NULL) != 0)
			_exit(2);
		statctr_view_close(v);
	}
	statctr_add(s, 0, n);
	_exit(0); /* no destroy: a crash, as far as the files tell */
}

static void run_generation(const char *conf, uint64_t n, bool start_epoch, enum ending how)
{
	struct statctr_seg *seg;
	struct statctr_view *v;
	struct statctr_slot *s;
	int status;
	pid_t pid;

	if (how == CLEAN_EXIT) {
		CU_ASSERT_EQUAL_FATAL(statctr_seg_create(conf, "seg", &seg), 0);
		CU_ASSERT_EQUAL_FATAL(statctr_slot_acquire(seg, &s), 0);
		if (start_epoch) {
			CU_ASSERT_EQUAL_FATAL(statctr_view_open(seg_path, &v), 0);
			CU_ASSERT_EQUAL(statctr_epoch_start(v, "e", NULL), 0);
			statctr_view_close(v);
		}
		statctr_add(s, 0, n);
		statctr_slot_release(s);
		statctr_seg_destroy(seg);
		return;
	}
	pid = fork();
	if (pid == 0)
		generation_child(conf, n, start_epoch);
	CU_ASSERT_EQUAL(waitpid(pid, &status, 0), pid);
	CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	if (how == CRASH_SEEN_BY_READER) {
		/* A reader (the agent) sees the writer gone and captures from its
		 * mapping; then the files go, and the successor finds none. */
		CU_ASSERT_EQUAL_FATAL(statctr_view_open(seg_path, &v), 0);
		CU_ASSERT_EQUAL(statctr_epoch_capture(v), 0);
		CU_ASSERT_EQUAL(statctr_epoch_capture(v), 0); /* once: the second adds nothing */
		statctr_view_close(v);
	}
	if (how == CRASH_AND_LOST || how == CRASH_SEEN_BY_READER)
		CU_ASSERT_EQUAL(unlink(seg_path), 0);
}

/* Epoch 1 in a first generation that adds 10, a second adds 7, then 5 more. */
static void restart(enum ending how)
{
	const char *conf = epoch_conf(EPOCHS(8));
	struct statctr_seg *seg;
	struct statctr_view *v;
	struct statctr_slot *s;
	uint32_t n;
	int rc;

	run_generation(conf, 10, true, how);
	CU_ASSERT_EQUAL_FATAL(statctr_seg_create(conf, "seg", &seg), 0);
	CU_ASSERT_EQUAL_FATAL(statctr_slot_acquire(seg, &s), 0);
	statctr_add(s, 0, 7);
	CU_ASSERT_EQUAL_FATAL(tu_view_open(seg_path, &v), 0);
	CU_ASSERT_EQUAL(statctr_epoch_capture(v), -EBUSY); /* its writer still counts */
	CU_ASSERT_EQUAL(statctr_epoch_start(v, "second", &n), 0);
	CU_ASSERT_EQUAL(n, 2); /* never reused across restarts */
	statctr_add(s, 0, 5);
	CU_ASSERT_EQUAL(delta_of(v, 0, 2, 0, &rc), 5);
	CU_ASSERT_EQUAL(rc, 0);
	if (how == CRASH_AND_LOST) {
		delta_of(v, 0, 1, 0, &rc);
		CU_ASSERT_EQUAL(rc, -ESTALE);
		delta_of(v, 0, 1, 2, &rc);
		CU_ASSERT_EQUAL(rc, -ESTALE);
	} else {
		CU_ASSERT_EQUAL(delta_of(v, 0, 1, 0, &rc), 22);
		CU_ASSERT_EQUAL(rc, 0);
		CU_ASSERT_EQUAL(delta_of(v, 0, 1, 2, &rc), 17);
		CU_ASSERT_EQUAL(rc, 0);
	}
	statctr_view_close(v);
	statctr_seg_destroy(seg);
	unlink(epoch_path());
}

static void clean_writer_exit_is_captured(void)
{
	restart(CLEAN_EXIT);
}

static void crashed_writer_is_captured_by_its_successor(void)
{
	restart(CRASH);
}

static void reader_seeing_the_writer_gone_captures(void)
{
	restart(CRASH_SEEN_BY_READER);
}

static void lost_generation_gives_estale_never_a_wrong_number(void)
{
	restart(CRASH_AND_LOST);
}

/* ---- the exactness run ---- */

#define EXACT_EPOCHS 1000u
#define EXACT_CELLS  4u

struct txn_writer {
	struct statctr_seg *seg;
	_Atomic bool *stop;
	uint64_t added[EXACT_CELLS];
};

static void *txn_loop(void *arg)
{
	struct txn_writer *w = arg;
	struct statctr_slot *s;

	if (statctr_slot_acquire(w->seg, &s) != 0)
		return NULL;
	while (!atomic_load_explicit(w->stop, memory_order_relaxed)) {
		statctr_txn_begin(s);
		for (statctr_id c = 0; c < EXACT_CELLS; c++)
			statctr_add(s, c * 3, c + 1); /* the pkts column of rows 0..3 */
		statctr_txn_end(s);
		for (uint32_t c = 0; c < EXACT_CELLS; c++)
			w->added[c] += c + 1;
	}
	statctr_slot_release(s);
	return NULL;
}

#define RING_STARTS  300u  /* at least */
#define RING_MAX     4000u /* at most, until the reader has read RING_READS */
#define RING_READS   100u
#define RING_KEEP    3u
#define RING_WAIT_NS 20000000000ll

/* A reader of the kept epochs, on a view of its own, while starts roll the
 * ring: the delta between two consecutive epochs, once read, never
 * changes, whenever and however often it is read again. */
struct ring_reader {
	_Atomic bool *stop;
	uint64_t delta[RING_MAX + 2]; /* by the later epoch's number */
	bool seen[RING_MAX + 2];
	_Atomic unsigned reads; /* that succeeded */
	unsigned changed, errors;
	unsigned busy;           /* -EBUSY: starts kept the file changing for a read's budget */
	unsigned dropped, lists; /* -ENOENT: dropped since the list; lists read */
	_Atomic bool started;    /* its view and snapshot were had */
};

static void ring_read_once(struct ring_reader *r, struct statctr_view *v,
                           const struct statctr_snap *snap)
{
	struct statctr_epoch e[RING_KEEP];
	uint32_t n = statctr_view_epochs(v, e, RING_KEEP);
	uint64_t d;
	int rc;

	r->lists++;
	for (uint32_t k = 0; k + 1 < n && k + 1 < RING_KEEP; k++) {
		uint32_t to = e[k + 1].number;

		rc = statctr_snap_epoch_delta(snap, 0, e[k].number, to, &d);
		r->dropped += rc == -ENOENT;
		if (rc == -ENOENT || to >= RING_MAX + 2)
			continue; /* dropped since the list */
		/* A starter preempted with seq odd (a loaded machine) makes a
		 * read give up: documented, and no value is had then. */
		r->busy += rc == -EBUSY;
		r->errors += rc != 0 && rc != -EBUSY;
		if (rc != 0)
			continue;
		r->changed += r->seen[to] && r->delta[to] != d;
		r->delta[to] = d;
		r->seen[to] = true;
		atomic_fetch_add(&r->reads, 1);
	}
}

static void *ring_read_loop(void *arg)
{
	struct ring_reader *r = arg;
	struct statctr_view *v;
	struct statctr_snap *snap;

	if (tu_view_open(seg_path, &v) != 0)
		return NULL;
	if (statctr_snap_take(v, &snap) == 0) {
		atomic_store(&r->started, true);
		while (!atomic_load_explicit(r->stop, memory_order_relaxed))
			ring_read_once(r, v, snap);
		statctr_snap_free(snap);
	}
	statctr_view_close(v);
	return NULL;
}

static void nap_ms(long ms)
{
	struct timespec ts = {ms / 1000, ms % 1000 * 1000000};

	nanosleep(&ts, NULL);
}

/* Starts one more epoch; its base lies between the raw totals of @snap
 * before and after the start (counters only grow).  Returns its number. */
static uint32_t ring_start(struct statctr_view *v, struct statctr_snap **snap, uint64_t *mine)
{
	uint64_t before, after, since = 0;
	uint32_t n = 0;

	CU_ASSERT_EQUAL_FATAL(statctr_snap_retake(v, snap), 0);
	before = statctr_snap_counter_raw(*snap, 0);
	CU_ASSERT_EQUAL_FATAL(statctr_epoch_start(v, "ring", &n), 0);
	CU_ASSERT_EQUAL_FATAL(statctr_snap_retake(v, snap), 0);
	after = statctr_snap_counter_raw(*snap, 0);
	CU_ASSERT_EQUAL_FATAL(statctr_snap_epoch_delta(*snap, 0, n, 0, &since), 0);
	CU_ASSERT(since <= after - before); /* base = after - since >= before */
	CU_ASSERT_EQUAL_FATAL(statctr_snap_epoch_delta(*snap, 0, n - 1, n, &mine[n]), 0);
	return n;
}

/*
 * A start with every epoch kept retires the oldest and has its snapshot
 * write the new base in place (docs/epochs.md, "Protocol"): with a ring of
 * 3 under two writers and a reader, each base holds the totals of its
 * start, every base read is whole and the deltas of consecutive epochs
 * still add up to the raw total.  @carried: after a generation that
 * counted 10 and exited, so that every base is the carry plus the totals
 * (the snapshot's final pass adds the carry in place).
 */
static void ring_of_3(bool carried)
{
	const char *conf;
	static struct ring_reader r;        /* 36 KB: off the stack */
	static uint64_t mine[RING_MAX + 2]; /* by the later epoch's number */
	uint64_t sum = 0, d = 0;
	struct statctr_seg *seg;
	struct statctr_view *v;
	struct statctr_snap *snap;
	struct txn_writer w[2];
	_Atomic bool stop = false, stop_reader = false;
	pthread_t th[2], reader;
	uint32_t n = 0, first = 0;
	int64_t deadline = mono_ns() + RING_WAIT_NS;

	memset(&r, 0, sizeof(r));
	memset(mine, 0, sizeof(mine));
	r.stop = &stop_reader;
	conf = epoch_conf(EPOCHS(3));
	if (carried)
		run_generation(conf, 10, true, CLEAN_EXIT); /* epoch 1 */
	CU_ASSERT_EQUAL_FATAL(statctr_seg_create(conf, "seg", &seg), 0);
	CU_ASSERT_EQUAL_FATAL(tu_view_open(seg_path, &v), 0);
	CU_ASSERT_EQUAL_FATAL(statctr_epoch_start(v, "first", &first), 0); /* raw totals 0 */
	CU_ASSERT_EQUAL_FATAL(first, carried ? 2 : 1);
	CU_ASSERT_EQUAL_FATAL(statctr_snap_take(v, &snap), 0);
	for (int i = 0; i < 2; i++) {
		memset(&w[i], 0, sizeof(w[i]));
		w[i].seg = seg;
		w[i].stop = &stop;
		CU_ASSERT_EQUAL_FATAL(pthread_create(&th[i], NULL, txn_loop, &w[i]), 0);
	}
	CU_ASSERT_EQUAL_FATAL(pthread_create(&reader, NULL, ring_read_loop, &r), 0);
	/* The reader first has its snapshot: on a loaded machine the starts
	 * (about 10 us each) may otherwise all be made before it runs. */
	while (!atomic_load(&r.started) && mono_ns() < deadline)
		nap_ms(1);
	/* At least RING_STARTS, and on until the reader has read a few
	 * intervals, a start a millisecond then, so that it gets a CPU. */
	while (n < RING_STARTS ||
	       (atomic_load(&r.reads) < RING_READS && n < RING_MAX && mono_ns() < deadline)) {
		n = ring_start(v, &snap, mine);
		sum += mine[n];
		if (n >= RING_STARTS)
			nap_ms(1);
	}
	atomic_store(&stop, true);
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	atomic_store(&stop_reader, true);
	pthread_join(reader, NULL);
	CU_ASSERT(n >= RING_STARTS);
	CU_ASSERT_EQUAL(statctr_snap_retake(v, &snap), 0);
	CU_ASSERT_EQUAL(statctr_snap_epoch_delta(snap, 0, n, 0, &d), 0);
	CU_ASSERT_EQUAL(sum + d, w[0].added[0] + w[1].added[0]);
	CU_ASSERT_EQUAL(sum + d, statctr_snap_counter_raw(snap, 0));
	CU_ASSERT_EQUAL(r.errors, 0);
	CU_ASSERT_EQUAL(r.changed, 0);
	/* From the first interval this run started: with a carry, the reader
	 * may also have read epoch 1's, of the generation before. */
	for (uint32_t e = first + 1; e <= n; e++)
		if (r.seen[e])
			CU_ASSERT_EQUAL(r.delta[e], mine[e]);
	if (carried && r.seen[first]) /* epoch 1 to 2: the 10 of the generation before */
		CU_ASSERT_EQUAL(r.delta[first], 10);
	CU_ASSERT(atomic_load(&r.reads) >= RING_READS);
	printf("\n  ring of %u%s: %u starts, %u reads of a kept interval by another view"
	       " (%u lists, %u dropped since theirs, %u gave up busy%s)\n",
	       RING_KEEP, carried ? ", with a carry" : "", n, atomic_load(&r.reads), r.lists,
	       r.dropped, r.busy, atomic_load(&r.started) ? "" : "; its view or snapshot failed");
	statctr_snap_free(snap);
	statctr_view_close(v);
	statctr_seg_destroy(seg);
	unlink(epoch_path());
}

static void ring_of_3_stays_exact_while_read_under_two_writers(void)
{
	ring_of_3(false);
}

static void ring_of_3_with_a_carry_stays_exact(void)
{
	ring_of_3(true);
}

static void deltas_of_1000_epochs_add_up_exactly_under_two_writers(void)
{
	struct statctr_seg *seg;
	struct statctr_view *v;
	struct statctr_snap *snap, *before;
	struct txn_writer w[2];
	_Atomic bool stop = false;
	pthread_t th[2];
	uint32_t n, first = 0;

	CU_ASSERT_EQUAL_FATAL(statctr_seg_create(epoch_conf(EPOCHS(1024)), "seg", &seg), 0);
	CU_ASSERT_EQUAL_FATAL(tu_view_open(seg_path, &v), 0);
	CU_ASSERT_EQUAL_FATAL(statctr_epoch_start(v, "first", &first), 0); /* raw totals 0 */
	for (int i = 0; i < 2; i++) {
		memset(&w[i], 0, sizeof(w[i]));
		w[i].seg = seg;
		w[i].stop = &stop;
		CU_ASSERT_EQUAL_FATAL(pthread_create(&th[i], NULL, txn_loop, &w[i]), 0);
	}
	CU_ASSERT_EQUAL_FATAL(statctr_snap_take(v, &before), 0);
	for (uint32_t i = 1; i < EXACT_EPOCHS; i++) {
		CU_ASSERT_EQUAL_FATAL(statctr_epoch_start(v, "interval", &n), 0);
		if (i % 100 == 0) /* resets in between change no epoch count */
			CU_ASSERT_EQUAL(statctr_reset(v, 3), 0);
	}
	atomic_store(&stop, true);
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	CU_ASSERT_EQUAL(n, first + EXACT_EPOCHS - 1);
	CU_ASSERT_EQUAL_FATAL(statctr_snap_take(v, &snap), 0);
	for (uint32_t c = 0; c < EXACT_CELLS; c++) {
		uint64_t sum = 0, d = 0, whole = 0;

		for (uint32_t e = first; e < n; e++) {
			CU_ASSERT_EQUAL_FATAL(statctr_snap_epoch_delta(snap, c * 3, e, e + 1, &d),
			                      0);
			sum += d;
		}
		CU_ASSERT_EQUAL(statctr_snap_epoch_delta(snap, c * 3, n, 0, &d), 0);
		sum += d;
		CU_ASSERT_EQUAL(statctr_snap_epoch_delta(snap, c * 3, first, 0, &whole), 0);
		CU_ASSERT_EQUAL(sum, whole);
		CU_ASSERT_EQUAL(whole, statctr_snap_counter_raw(snap, c * 3));
		CU_ASSERT_EQUAL(whole, w[0].added[c] + w[1].added[c]);
		if (c != 1) /* no reset but cell 3: 1000 epoch starts moved no disc */
			CU_ASSERT_EQUAL(statctr_snap_discontinuity(snap, c * 3),
			                statctr_snap_discontinuity(before, c * 3));
	}
	printf("\n  exactness: %u epochs, %llu transactions\n", n - first + 1,
	       (unsigned long long)(w[0].added[0] + w[1].added[0]));
	statctr_snap_free(before);
	statctr_snap_free(snap);
	statctr_view_close(v);
	statctr_seg_destroy(seg);
	unlink(epoch_path());
}

static void histogram_buckets_per_epoch(void)
{
	const char *conf = tu_config_ex(
	    2, EPOCHS(4),
	    "{ name = \"h\"; rows = 1; columns = ( { name = \"lat\"; kind = \"histogram\"; "
	    "buckets = [ 10, 100 ]; } ); }",
	    &seg_path);
	struct statctr_seg *seg;
	struct statctr_view *v;
	struct statctr_slot *s;
	struct statctr_snap *snap;
	uint64_t d[4] = {0}, sum = 0;

	unlink(epoch_path());
	CU_ASSERT_EQUAL_FATAL(statctr_seg_create(conf, "seg", &seg), 0);
	CU_ASSERT_EQUAL_FATAL(tu_view_open(seg_path, &v), 0);
	CU_ASSERT_EQUAL_FATAL(statctr_slot_acquire(seg, &s), 0);
	statctr_hist_record(s, 0, 5);
	CU_ASSERT_EQUAL(statctr_epoch_start(v, "h", NULL), 0);
	statctr_hist_record(s, 0, 50);
	statctr_hist_record(s, 0, 500);
	statctr_hist_record(s, 0, 501);
	CU_ASSERT_EQUAL(statctr_reset(v, 0), 0);
	CU_ASSERT_EQUAL_FATAL(statctr_snap_take(v, &snap), 0);
	for (uint32_t b = 0; b < 3; b++)
		CU_ASSERT_EQUAL(statctr_snap_epoch_bucket(snap, 0, b, 1, 0, &d[b]), 0);
	CU_ASSERT_EQUAL(d[0], 0);
	CU_ASSERT_EQUAL(d[1], 1);
	CU_ASSERT_EQUAL(d[2], 2);
	CU_ASSERT_EQUAL(statctr_snap_epoch_delta(snap, 0, 1, 0, &sum), 0); /* the sum */
	CU_ASSERT_EQUAL(sum, 1051);
	CU_ASSERT_EQUAL(statctr_snap_epoch_bucket(snap, 0, 3, 1, 0, &d[3]), -EINVAL);
	statctr_snap_free(snap);
	statctr_view_close(v);
	statctr_seg_destroy(seg);
}

/* ---- the writer's adopt of a corrupt header ---- */

static void patch_file(off_t at, uint32_t value)
{
	int fd = open(epoch_path(), O_RDWR);

	CU_ASSERT_EQUAL(pwrite(fd, &value, sizeof(value), at), sizeof(value));
	close(fd);
}

/*
 * One 4-byte store to nkept, oldest or next_number between two writers: the
 * next writer's start rebuilds the header (it used to fail "corrupt
 * header" until the file was removed) and keeps every epoch and count.
 */
static void corrupt_live_field_is_rebuilt_keeping_the_epochs(void)
{
	static const struct {
		off_t at;
		uint32_t value;
	} patches[] = {{76, 99}, {80, 99}, {72, 0}, {72, 1}, {76, 0xffffffff}};
	const char *conf = epoch_conf(EPOCHS(4));
	struct statctr_seg *seg;
	struct statctr_view *v;
	struct statctr_epoch e[4];
	uint64_t d;
	int rc;

	counted_generation(conf, 10, &rc); /* epoch 1 */
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	for (size_t i = 0; i < sizeof(patches) / sizeof(patches[0]); i++) {
		patch_file(patches[i].at, patches[i].value);
		counted_generation(conf, 10, &rc); /* epoch i + 2 */
		CU_ASSERT_EQUAL_FATAL(rc, 0);
	}
	CU_ASSERT_EQUAL_FATAL(statctr_seg_create(conf, "seg", &seg), 0);
	CU_ASSERT_EQUAL_FATAL(tu_view_open(seg_path, &v), 0);
	CU_ASSERT_EQUAL(statctr_view_epochs(v, e, 4), 4);
	CU_ASSERT_EQUAL(e[0].number, 3);
	CU_ASSERT_EQUAL(e[3].number, 6);
	d = delta_of(v, 0, 3, 6, &rc); /* 3 generations' second 10 and first 10 each */
	CU_ASSERT_EQUAL(rc, 0);
	CU_ASSERT_EQUAL(d, 60);
	d = delta_of(v, 0, 6, 0, &rc);
	CU_ASSERT_EQUAL(rc, 0);
	CU_ASSERT_EQUAL(d, 10);
	statctr_view_close(v);
	statctr_seg_destroy(seg);
}

int main(void)
{
	static const struct test_case cases[] = {
	    {"config_exposes_keep_and_interval_and_refuses_bad_values",
	     config_exposes_keep_and_interval_and_refuses_bad_values},
	    {"start_changes_no_value_and_deltas_are_exact_across_resets",
	     start_changes_no_value_and_deltas_are_exact_across_resets},
	    {"keep_drops_the_oldest_and_numbers_go_on", keep_drops_the_oldest_and_numbers_go_on},
	    {"segment_without_epochs_says_so", segment_without_epochs_says_so},
	    {"clean_writer_exit_is_captured", clean_writer_exit_is_captured},
	    {"crashed_writer_is_captured_by_its_successor",
	     crashed_writer_is_captured_by_its_successor},
	    {"reader_seeing_the_writer_gone_captures", reader_seeing_the_writer_gone_captures},
	    {"lost_generation_gives_estale_never_a_wrong_number",
	     lost_generation_gives_estale_never_a_wrong_number},
	    {"deltas_of_1000_epochs_add_up_exactly_under_two_writers",
	     deltas_of_1000_epochs_add_up_exactly_under_two_writers},
	    {"ring_of_3_with_a_carry_stays_exact", ring_of_3_with_a_carry_stays_exact},
	    {"ring_of_3_stays_exact_while_read_under_two_writers",
	     ring_of_3_stays_exact_while_read_under_two_writers},
	    {"histogram_buckets_per_epoch", histogram_buckets_per_epoch},
	    {"corrupt_live_field_is_rebuilt_keeping_the_epochs",
	     corrupt_live_field_is_rebuilt_keeping_the_epochs},
	    {NULL, NULL},
	};

	return tu_run_both("epoch", cases);
}