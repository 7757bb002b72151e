/*
 * test_reset.c - resets as baselines: values, discontinuity, no lost counts.
 */
#include "internal.h"
#include "testutil.h"

#include <pthread.h>
#include <sys/stat.h>
#include <sys/wait.h>

static const char *seg_path;
static struct statctr_seg *seg;
static struct statctr_view *view;

static void setup(void)
{
	CU_ASSERT_EQUAL_FATAL(
	    statctr_seg_create(tu_config(2, TU_SIMPLE_TABLE(4), &seg_path), "seg", &seg), 0);
	CU_ASSERT_EQUAL_FATAL(tu_view_open(seg_path, &view), 0);
}

static void teardown(void)
{
	statctr_view_close(view);
	statctr_seg_destroy(seg);
}

static uint64_t counter_now(struct statctr_view *v, statctr_id id, uint64_t *disc)
{
	struct statctr_snap *snap;
	uint64_t value;

	CU_ASSERT_EQUAL_FATAL(statctr_snap_take(v, &snap), 0);
	value = statctr_snap_counter(snap, id);
	if (disc)
		*disc = statctr_snap_discontinuity(snap, id);
	statctr_snap_free(snap);
	return value;
}

static void reset_zeroes_counter_stamps_time_and_leaves_gauge(void)
{
	struct statctr_slot *a;
	struct statctr_snap *snap;
	uint64_t disc_before, disc_after;

	setup();
	CU_ASSERT_EQUAL_FATAL(statctr_slot_acquire(seg, &a), 0);
	statctr_add(a, 0, 10);
	statctr_gauge_add(a, 2, 4);
	CU_ASSERT_EQUAL(counter_now(view, 0, &disc_before), 10);
	CU_ASSERT_EQUAL(statctr_reset(view, 0), 0);
	CU_ASSERT_EQUAL(counter_now(view, 0, &disc_after), 0);
	CU_ASSERT(disc_after > disc_before);
	statctr_add(a, 0, 5);
	CU_ASSERT_EQUAL_FATAL(statctr_snap_take(view, &snap), 0);
	CU_ASSERT_EQUAL(statctr_snap_counter(snap, 0), 5);
	CU_ASSERT_EQUAL(statctr_snap_counter_raw(snap, 0), 15);
	CU_ASSERT_EQUAL(statctr_snap_discontinuity(snap, 1), disc_before);
	statctr_snap_free(snap);
	CU_ASSERT_EQUAL(statctr_reset_range(view, 0, 12), 0);
	CU_ASSERT_EQUAL_FATAL(statctr_snap_take(view, &snap), 0);
	CU_ASSERT_EQUAL(statctr_snap_gauge(snap, 2), 4);
	CU_ASSERT_EQUAL(statctr_snap_counter(snap, 0), 0);
	statctr_snap_free(snap);
	teardown();
}

static void reset_is_seen_by_every_reader_and_survives_reopen(void)
{
	struct statctr_slot *a;
	struct statctr_view *other;

	setup();
	CU_ASSERT_EQUAL_FATAL(statctr_slot_acquire(seg, &a), 0);
	statctr_add(a, 4, 100);
	CU_ASSERT_EQUAL_FATAL(tu_view_open(seg_path, &other), 0);
	CU_ASSERT_EQUAL(statctr_reset_range(view, 3, 3), 0); /* row 1 */
	CU_ASSERT_EQUAL(counter_now(other, 4, NULL), 0);
	statctr_view_close(other);
	statctr_add(a, 4, 1);
	CU_ASSERT_EQUAL_FATAL(tu_view_open(seg_path, &other), 0);
	CU_ASSERT_EQUAL(counter_now(other, 4, NULL), 1);
	statctr_view_close(other);
	teardown();
}

static void reset_range_errors(void)
{
	setup();
	CU_ASSERT_EQUAL(statctr_reset_range(view, 0, 0), -EINVAL);
	CU_ASSERT_EQUAL(statctr_reset_range(view, 11, 2), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(statctr_errmsg(), "out of range"));
	CU_ASSERT_EQUAL(statctr_reset_range(view, UINT32_MAX, 2), -EINVAL);
	teardown();
}

#define WRITER_ADDS 20000000

/* Several ranges, overlapping and out of order: one time, and a snapshot that reads as a fresh one.
 */
static void reset_ranges_is_one_step_and_returns_the_snapshot_after_it(void)
{
	const struct statctr_range ranges[] = {{6, 1}, {0, 1}, {3, 2}, {3, 1}};
	const struct statctr_range bad[] = {{0, 1}, {11, 2}};
	struct statctr_snap *snap = NULL, *fresh;
	struct statctr_slot *a;
	uint64_t disc_before;

	setup();
	CU_ASSERT_EQUAL_FATAL(statctr_slot_acquire(seg, &a), 0);
	for (statctr_id id = 0; id < 12; id++)
		if (id % 3 != 2) /* column 2 is the gauge */
			statctr_add(a, id, 100 + id);
	statctr_gauge_add(a, 2, 7);
	counter_now(view, 1, &disc_before);
	CU_ASSERT_EQUAL(statctr_reset_ranges(view, ranges, 0, &snap), -EINVAL);
	CU_ASSERT_EQUAL(statctr_reset_ranges(view, bad, 2, &snap), -EINVAL);
	CU_ASSERT_PTR_NULL(snap);
	CU_ASSERT_EQUAL_FATAL(statctr_reset_ranges(view, ranges, 4, &snap), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(snap);
	CU_ASSERT_EQUAL_FATAL(statctr_snap_take(view, &fresh), 0);
	for (statctr_id id = 0; id < 12; id++) {
		bool was_reset = id == 0 || id == 3 || id == 4 || id == 6;

		CU_ASSERT_EQUAL(statctr_snap_counter(snap, id), statctr_snap_counter(fresh, id));
		CU_ASSERT_EQUAL(statctr_snap_discontinuity(snap, id),
		                statctr_snap_discontinuity(fresh, id));
		CU_ASSERT_EQUAL(statctr_snap_gauge(snap, id), statctr_snap_gauge(fresh, id));
		if (id % 3 == 2)
			continue;
		CU_ASSERT_EQUAL(statctr_snap_counter(snap, id), was_reset ? 0 : 100 + id);
		if (was_reset) {
			CU_ASSERT(statctr_snap_discontinuity(snap, id) > disc_before);
		} else {
			CU_ASSERT_EQUAL(statctr_snap_discontinuity(snap, id), disc_before);
		}
	}
	CU_ASSERT_EQUAL(statctr_snap_discontinuity(snap, 0), statctr_snap_discontinuity(snap, 6));
	CU_ASSERT_EQUAL(statctr_snap_gauge(snap, 2), 7);
	/* The snapshot is reused by the next reset, as by statctr_snap_retake(). */
	statctr_add(a, 0, 5);
	CU_ASSERT_EQUAL(statctr_reset_ranges(view, &ranges[2], 1, &snap), 0);
	CU_ASSERT_EQUAL(statctr_snap_counter(snap, 0), 5);
	CU_ASSERT_EQUAL(statctr_snap_counter(snap, 3), 0);
	statctr_snap_free(fresh);
	statctr_snap_free(snap);
	teardown();
}

static void *steady_writer(void *arg)
{
	struct statctr_slot *slot = arg;
	int i;

	for (i = 0; i < WRITER_ADDS; i++) {
		statctr_txn_begin(slot);
		statctr_inc(slot, 0);
		statctr_add(slot, 1, 3);
		statctr_txn_end(slot);
	}
	return NULL;
}

static void reset_during_writes_loses_nothing(void)
{
	struct statctr_slot *a;
	struct statctr_snap *snap;
	pthread_t t;
	unsigned resets = 0, wrapped = 0;

	setup();
	CU_ASSERT_EQUAL_FATAL(statctr_slot_acquire(seg, &a), 0);
	pthread_create(&t, NULL, steady_writer, a);
	while (resets < 50) {
		CU_ASSERT_EQUAL(statctr_reset_range(view, 0, 2), 0);
		resets++;
		CU_ASSERT_EQUAL_FATAL(statctr_snap_take(view, &snap), 0);
		/* Never below the baseline: a wrapped value would be huge. */
		if (statctr_snap_counter(snap, 0) > WRITER_ADDS ||
		    statctr_snap_counter(snap, 1) != 3 * statctr_snap_counter(snap, 0))
			wrapped++;
		statctr_snap_free(snap);
	}
	pthread_join(t, NULL);
	CU_ASSERT_EQUAL(wrapped, 0);
	CU_ASSERT_EQUAL_FATAL(statctr_snap_take(view, &snap), 0);
	CU_ASSERT_EQUAL(statctr_snap_counter_raw(snap, 0), WRITER_ADDS);
	CU_ASSERT_EQUAL(statctr_snap_counter_raw(snap, 1), 3ull * WRITER_ADDS);
	CU_ASSERT(statctr_snap_counter(snap, 0) <= WRITER_ADDS);
	statctr_snap_free(snap);
	/* What arrives after the last reset is counted exactly. */
	CU_ASSERT_EQUAL(statctr_reset_range(view, 0, 2), 0);
	statctr_add(a, 0, 77);
	CU_ASSERT_EQUAL(counter_now(view, 0, NULL), 77);
	teardown();
}

/* In a child without write access to the control file. */
static int reset_without_permission(const char *path)
{
	struct statctr_view *v;
	int err;

	if (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0))
		return 100;
	if (tu_view_open(path, &v) != 0)
		return 101;
	err = statctr_reset(v, 0);
	statctr_view_close(v);
	return err == -EACCES && strstr(statctr_errmsg(), "not writable") ? 0 : 102;
}

static void reset_needs_write_access_to_the_control_file(void)
{
	const char *conf;
	pid_t pid;
	int status;

	/* Readable by all, control file writable by its owner only. */
	conf =
	    tu_config_ex(1, "mode = \"0644\"; ctl_mode = \"0644\";", TU_SIMPLE_TABLE(1), &seg_path);
	CU_ASSERT_EQUAL_FATAL(statctr_seg_create(conf, "seg", &seg), 0);
	chmod(tu_tmpdir(), 0755);
	pid = fork();
	if (pid == 0)
		_exit(reset_without_permission(seg_path));
	waitpid(pid, &status, 0);
	CU_ASSERT(WIFEXITED(status));
	CU_ASSERT_EQUAL(WEXITSTATUS(status), 0);
	statctr_seg_destroy(seg);
}

int main(void)
{
	static const struct test_case cases[] = {
	    {"reset_zeroes_counter_stamps_time_and_leaves_gauge",
	     reset_zeroes_counter_stamps_time_and_leaves_gauge},
	    {"reset_is_seen_by_every_reader_and_survives_reopen",
	     reset_is_seen_by_every_reader_and_survives_reopen},
	    {"reset_range_errors", reset_range_errors},
	    {"reset_ranges_is_one_step_and_returns_the_snapshot_after_it",
	     reset_ranges_is_one_step_and_returns_the_snapshot_after_it},
	    {"reset_during_writes_loses_nothing", reset_during_writes_loses_nothing},
	    {"reset_needs_write_access_to_the_control_file",
	     reset_needs_write_access_to_the_control_file},
	    {NULL, NULL},
	};

	return tu_run_both("reset", cases);
}
