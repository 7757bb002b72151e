/*
 * test_snapshot.c - consistent snapshots, busy and dead writers, assistance;
 * full and sums-only snapshots (tu_run_both()), quiet slots read together.
 */
#include "internal.h"
#include "testutil.h"

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>

static const char *seg_path;
static struct statctr_seg *seg;
static struct statctr_view *view;

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void setup(unsigned nslots, const char *tables)
{
	CU_ASSERT_EQUAL_FATAL(statctr_seg_create(tu_config(nslots, tables, &seg_path), "seg", &seg),
	                      0);
	CU_ASSERT_EQUAL_FATAL(tu_view_open(seg_path, &view), 0);
}

static void teardown(void)
{
	statctr_view_close(view);
	statctr_seg_destroy(seg);
}

static void idle_writer_reads_first_time_with_creation_discontinuity(void)
{
	struct statctr_slot *a;
	struct statctr_snap *snap;
	struct statctr_snap_stats st;
	struct statctr_seg_info info;

	setup(2, TU_SIMPLE_TABLE(3));
	CU_ASSERT_EQUAL_FATAL(statctr_slot_acquire(seg, &a), 0);
	statctr_txn_begin(a);
	statctr_add(a, 3, 9);
	statctr_txn_end(a);
	CU_ASSERT_EQUAL_FATAL(statctr_snap_take(view, &snap), 0);
	statctr_snap_stats(snap, &st);
	statctr_view_info(view, &info);
	CU_ASSERT_EQUAL(statctr_snap_counter(snap, 3), 9);
	CU_ASSERT_EQUAL(st.retries, 0);
	CU_ASSERT_EQUAL(st.busy_slots, 0);
	CU_ASSERT_EQUAL(st.nslots, 2);
	CU_ASSERT_EQUAL(st.ncells, 9);
	CU_ASSERT_EQUAL(st.generation, info.generation);
	CU_ASSERT_EQUAL(statctr_snap_discontinuity(snap, 3), info.created_ns);
	CU_ASSERT(st.taken_ns >= info.created_ns);
	statctr_snap_free(snap);
	teardown();
}

static void open_transaction_of_live_writer_is_reported_busy_not_waited_on(void)
{
	struct statctr_slot *a;
	struct statctr_snap *snap;
	struct statctr_snap_stats st;
	double start;

	setup(2, TU_SIMPLE_TABLE(3));
	CU_ASSERT_EQUAL_FATAL(statctr_slot_acquire(seg, &a), 0);
	statctr_add(a, 0, 1);
	statctr_txn_begin(a);
	statctr_add(a, 0, 1);
	start = now_s();
	CU_ASSERT_EQUAL_FATAL(statctr_snap_take(view, &snap), 0);
	CU_ASSERT(now_s() - start < 2.0); /* a bound on waiting, not a speed test */
	statctr_snap_stats(snap, &st);
	CU_ASSERT_EQUAL(st.busy_slots, 1);
	CU_ASSERT_EQUAL(st.dead_torn_slots, 0);
	CU_ASSERT(st.retries >= 4);
	statctr_snap_free(snap);
	statctr_txn_end(a);
	CU_ASSERT_EQUAL_FATAL(statctr_snap_take(view, &snap), 0);
	statctr_snap_stats(snap, &st);
	CU_ASSERT_EQUAL(st.busy_slots, 0);
	CU_ASSERT_EQUAL(statctr_snap_counter(snap, 0), 2);
	statctr_snap_free(snap);
	teardown();
}

/* The child opens a transaction, tells the parent, and waits to be killed. */
static void writer_child(int ready_fd)
{
	struct statctr_seg *s;
	struct statctr_slot *slot;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (statctr_seg_create(tu_config(2, TU_SIMPLE_TABLE(3), &seg_path), "seg", &s) != 0 ||
	    statctr_slot_acquire(s, &slot) != 0)
		_exit(1);
	statctr_add(slot, 0, 5);
	statctr_txn_begin(slot);
	statctr_add(slot, 0, 1);
	if (write(ready_fd, "r", 1) != 1)
		_exit(1);
	for (;;)
		pause();
}

static void writer_killed_mid_transaction_is_read_as_final(void)
{
	struct statctr_snap *snap;
	struct statctr_snap_stats st;
	struct statctr_seg_info info;
	int fds[2], status;
	char c;
	pid_t pid;

	CU_ASSERT_EQUAL_FATAL(pipe(fds), 0);
	pid = fork();
	if (pid == 0)
		writer_child(fds[1]);
	close(fds[1]); /* the child's end only: its exit is an end of file */
	CU_ASSERT_EQUAL_FATAL(read(fds[0], &c, 1), 1);
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	close(fds[0]);
	CU_ASSERT_EQUAL_FATAL(tu_view_open(seg_path, &view), 0);
	statctr_view_info(view, &info);
	CU_ASSERT_EQUAL(info.status, STATCTR_SEG_GONE);
	CU_ASSERT_EQUAL(statctr_view_slot_state(view, 0), STATCTR_SLOT_DEAD);
	CU_ASSERT_EQUAL_FATAL(statctr_snap_take(view, &snap), 0);
	statctr_snap_stats(snap, &st);
	CU_ASSERT_EQUAL(st.dead_torn_slots, 1);
	CU_ASSERT_EQUAL(st.busy_slots, 0);
	CU_ASSERT_EQUAL(statctr_snap_counter(snap, 0), 6);
	statctr_snap_free(snap);
	statctr_view_close(view);
	unlink(seg_path);
}

/* Flat-out transactions that keep cell 1 == 2 x cell 0 across a big table. */
static _Atomic int stop_writer;
static _Atomic pid_t busy_writer_tid; /* whose CPU time a busy slot is judged by */

static void *busy_writer(void *arg)
{
	struct statctr_slot *slot = arg;
	uint32_t far = 3 * 29999; /* row 29999: far from row 0 */

	atomic_store(&busy_writer_tid, (pid_t)syscall(SYS_gettid));
	while (!atomic_load_explicit(&stop_writer, memory_order_relaxed)) {
		statctr_txn_begin(slot);
		statctr_inc(slot, 0);
		statctr_add(slot, far + 1, 2);
		statctr_txn_end(slot);
	}
	return NULL;
}

struct flat_out {
	unsigned snaps, violations, busy, busy_ran, assisted;
	bool last_assisted;
};

/* One snapshot of the flat-out writer's slot, counted in @f. */
static void take_flat_out(struct flat_out *f)
{
	struct statctr_snap *snap;
	struct statctr_snap_stats st;
	uint64_t before = tu_thread_cpu_ns(getpid(), busy_writer_tid);

	CU_ASSERT_EQUAL_FATAL(statctr_snap_take(view, &snap), 0);
	statctr_snap_stats(snap, &st);
	f->snaps++;
	f->busy += st.busy_slots;
	f->busy_ran +=
	    st.busy_slots && tu_thread_cpu_ns(getpid(), busy_writer_tid) >= before + TU_RAN_NS;
	f->assisted += st.assisted_slots;
	f->last_assisted = st.assisted_slots;
	if (st.busy_slots == 0 &&
	    statctr_snap_counter(snap, 3 * 29999 + 1) != 2 * statctr_snap_counter(snap, 0))
		f->violations++;
	statctr_snap_free(snap);
}

static void flat_out_writer_is_copied_at_a_transaction_boundary(void)
{
	struct statctr_slot *a;
	struct statctr_snap *snap;
	struct statctr_snap_stats st;
	struct flat_out f = {0};
	pthread_t t;
	double deadline;

	setup(1, TU_SIMPLE_TABLE(30000));
	CU_ASSERT_EQUAL_FATAL(statctr_slot_acquire(seg, &a), 0);
	atomic_store(&stop_writer, 0);
	atomic_store(&busy_writer_tid, 0);
	pthread_create(&t, NULL, busy_writer, a);
	while (!atomic_load(&busy_writer_tid))
		sched_yield();
	/* At least 20.  A busy slot is the writer not given a CPU within the
	 * budget: the machine's doing, unless the writer ran TU_RAN_NS of CPU
	 * during that snapshot and still served no copy (busy_ran).  Those are
	 * allowed in 1 of 10 snapshots, measured further (up to 200) before
	 * they count.  Then on until one needed the writer's copy, 10 s at
	 * most: on a loaded machine the writer may sit off the CPU through many
	 * short reads.  The last one must have been a copy (see below). */
	while (f.snaps < 20 || (TU_TIMING_CHECKED && f.busy_ran * 10 > f.snaps && f.snaps < 200))
		take_flat_out(&f);
	deadline = now_s() + 10.0;
	while (!f.last_assisted && now_s() < deadline)
		take_flat_out(&f);
	atomic_store(&stop_writer, 1);
	pthread_join(t, NULL);
	fprintf(stderr,
	        "\n    %u snapshots: %u assisted, %u busy (%u while the writer ran %llu ms%s), "
	        "%u violations\n",
	        f.snaps, f.assisted, f.busy, f.busy_ran, TU_RAN_NS / 1000000,
	        TU_TIMING_CHECKED ? "" : ", not checked: TSan", f.violations);
	CU_ASSERT_EQUAL(f.violations, 0);
	/* A writer that runs serves its copy within its pause after the last
	 * one: busy while it ran is allowed rarely, never as a rule. */
	CU_ASSERT(!TU_TIMING_CHECKED || f.busy_ran * 10 <= f.snaps);
	CU_ASSERT(f.assisted > 0);
	/* The view's last read of the slot came from a copy, so its next one
	 * asks for a copy first (snapshot.c, read_slot()): a writer that went
	 * idle serves none, and must still be read whole, not as busy. */
	CU_ASSERT_FATAL(f.last_assisted);
	CU_ASSERT_EQUAL_FATAL(statctr_snap_take(view, &snap), 0);
	statctr_snap_stats(snap, &st);
	CU_ASSERT_EQUAL(st.busy_slots, 0);
	CU_ASSERT(statctr_snap_counter(snap, 0) > 0);
	CU_ASSERT_EQUAL(statctr_snap_counter(snap, 3 * 29999 + 1),
	                2 * statctr_snap_counter(snap, 0));
	statctr_snap_free(snap);
	teardown();
}

static void retake_refills_in_place_follows_shape_and_frees_on_error(void)
{
	struct statctr_slot *a;
	struct statctr_snap *snap;
	struct statctr_snap_stats st;
	statctr_id pkts, level, last;

	setup(2, TU_SIMPLE_TABLE(3));
	CU_ASSERT_EQUAL_FATAL(statctr_seg_lookup(seg, "t", "pkts", 1, &pkts), 0);
	CU_ASSERT_EQUAL_FATAL(statctr_seg_lookup(seg, "t", "level", 0, &level), 0);
	CU_ASSERT_EQUAL_FATAL(statctr_slot_acquire(seg, &a), 0);
	statctr_add(a, pkts, 9);
	CU_ASSERT_EQUAL_FATAL(statctr_snap_take(view, &snap), 0);
	statctr_add(a, pkts, 1);
	statctr_gauge_add(a, level, -5);
	CU_ASSERT_EQUAL_FATAL(statctr_snap_retake(view, &snap), 0);
	CU_ASSERT_EQUAL(statctr_snap_counter(snap, pkts), 10);
	CU_ASSERT_EQUAL(statctr_snap_gauge(snap, level), -5);
	CU_ASSERT_EQUAL(statctr_snap_slot_value(snap, 0, pkts), tu_slot_value(10));
	statctr_view_close(view);
	statctr_seg_destroy(seg);

	/* A segment of another shape at the same path: 4 slots, 5 rows. */
	setup(4, TU_SIMPLE_TABLE(5));
	CU_ASSERT_EQUAL_FATAL(statctr_seg_lookup(seg, "t", "pkts", 4, &last), 0);
	CU_ASSERT_EQUAL_FATAL(statctr_slot_acquire(seg, &a), 0);
	statctr_add(a, last, 7);
	CU_ASSERT_EQUAL_FATAL(statctr_snap_retake(view, &snap), 0);
	statctr_snap_stats(snap, &st);
	CU_ASSERT_EQUAL(st.nslots, 4);
	CU_ASSERT_EQUAL(st.ncells, 15);
	CU_ASSERT_EQUAL(statctr_snap_counter(snap, last), 7);
	CU_ASSERT_EQUAL(statctr_snap_counter(snap, pkts), 0);

	/* A failed retake leaves nothing that could pass for values.  A file
	 * grown (nothing faults) is reported by the next size check: at most
	 * one CLOCK_MONOTONIC_COARSE tick (1-4 ms) later. */
	CU_ASSERT_EQUAL(truncate(seg_path, 1 << 20), 0);
	for (int i = 0; i < 2000 && statctr_snap_retake(view, &snap) == 0; i++)
		usleep(1000);
	CU_ASSERT_PTR_NOT_NULL(strstr(statctr_errmsg(), "changed size under its mapping"));
	CU_ASSERT_PTR_NULL(snap);
	/* A file shrunk faults where read: at once, check or not. */
	CU_ASSERT_EQUAL(truncate(seg_path, 0), 0);
	CU_ASSERT_EQUAL(statctr_snap_retake(view, &snap), -ESTALE);
	CU_ASSERT(tu_says_changed_size(statctr_errmsg()));
	CU_ASSERT_PTR_NULL(snap);
	teardown();

	/* With no snapshot yet, a retake is a take. */
	snap = NULL;
	setup(2, TU_SIMPLE_TABLE(3));
	CU_ASSERT_EQUAL_FATAL(statctr_snap_retake(view, &snap), 0);
	statctr_snap_stats(snap, &st);
	CU_ASSERT_EQUAL(st.ncells, 9);
	statctr_snap_free(snap);
	teardown();
}

/* Both kinds of snapshot of one segment, through two views. */
static void sums_only_snapshot_keeps_the_sums_and_no_slot_values(void)
{
	struct statctr_view *sums_view;
	struct statctr_slot *a, *b;
	struct statctr_snap *full, *sums;
	struct statctr_snap_stats fs, ss;
	statctr_id id;

	setup(3, TU_SIMPLE_TABLE(4));
	CU_ASSERT_EQUAL_FATAL(statctr_view_set_sums_only(view, 0), 0);
	CU_ASSERT_EQUAL_FATAL(tu_view_open(seg_path, &sums_view), 0);
	CU_ASSERT_EQUAL_FATAL(statctr_view_set_sums_only(sums_view, 1), 0);
	CU_ASSERT_EQUAL_FATAL(statctr_slot_acquire(seg, &a), 0);
	CU_ASSERT_EQUAL_FATAL(statctr_slot_acquire(seg, &b), 0);
	for (id = 0; id < 12; id += 3) {
		statctr_add(a, id, 100 + id);
		statctr_add(b, id, UINT64_MAX); /* sums wrap mod 2^64 alike */
		statctr_shared_add(seg, id + 1, 7);
		statctr_gauge_add(b, id + 2, -(int64_t)id);
	}
	CU_ASSERT_EQUAL_FATAL(statctr_snap_take(view, &full), 0);
	CU_ASSERT_EQUAL_FATAL(statctr_snap_take(sums_view, &sums), 0);
	statctr_snap_stats(full, &fs);
	statctr_snap_stats(sums, &ss);
	CU_ASSERT_EQUAL(fs.flags & STATCTR_SNAP_SUMS_ONLY, 0);
	CU_ASSERT_EQUAL(ss.flags & STATCTR_SNAP_SUMS_ONLY, STATCTR_SNAP_SUMS_ONLY);
	CU_ASSERT_EQUAL(ss.nslots, 3);
	CU_ASSERT_EQUAL(ss.busy_slots + ss.dead_torn_slots + ss.retries, 0);
	for (id = 0; id < 12; id++) {
		CU_ASSERT_EQUAL(statctr_snap_counter(sums, id), statctr_snap_counter(full, id));
		CU_ASSERT_EQUAL(statctr_snap_gauge(sums, id), statctr_snap_gauge(full, id));
		CU_ASSERT_EQUAL(statctr_snap_slot_value(sums, 0, id), 0);
		CU_ASSERT_EQUAL(statctr_snap_slot_value(sums, 3, id), 0);
	}
	CU_ASSERT_EQUAL(statctr_snap_counter(sums, 3), 102);
	CU_ASSERT_EQUAL(statctr_snap_counter(sums, 4), 7);
	CU_ASSERT_EQUAL(statctr_snap_gauge(sums, 5), -3);
	CU_ASSERT_EQUAL(statctr_snap_slot_value(full, 0, 3), 103);
	CU_ASSERT_EQUAL(statctr_snap_slot_value(full, 3, 4), 7);

	/* A snapshot retaken through a view of the other kind becomes that kind. */
	CU_ASSERT_EQUAL_FATAL(statctr_snap_retake(sums_view, &full), 0);
	statctr_snap_stats(full, &fs);
	CU_ASSERT_EQUAL(fs.flags, STATCTR_SNAP_SUMS_ONLY);
	CU_ASSERT_EQUAL(statctr_snap_slot_value(full, 0, 3), 0);
	CU_ASSERT_EQUAL(statctr_snap_counter(full, 3), 102);
	CU_ASSERT_EQUAL_FATAL(statctr_view_set_sums_only(sums_view, 0), 0);
	CU_ASSERT_EQUAL_FATAL(statctr_snap_retake(sums_view, &sums), 0);
	statctr_snap_stats(sums, &ss);
	CU_ASSERT_EQUAL(ss.flags, 0);
	CU_ASSERT_EQUAL(statctr_snap_slot_value(sums, 0, 3), 103);

	CU_ASSERT_EQUAL(statctr_view_set_sums_only(sums_view, 2), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(statctr_errmsg(), "0 or 1"));
	CU_ASSERT_EQUAL(statctr_view_set_sums_only(NULL, 1), -EINVAL);
	statctr_snap_free(full);
	statctr_snap_free(sums);
	statctr_view_close(sums_view);
	teardown();
}

/* A retake copies the baselines again only after a reset, wherever it was made. */
static void retake_sees_resets_made_through_another_view(void)
{
	struct statctr_view *resetter;
	struct statctr_slot *a;
	struct statctr_snap *snap = NULL;
	uint64_t disc;

	setup(2, TU_SIMPLE_TABLE(3));
	CU_ASSERT_EQUAL_FATAL(tu_view_open(seg_path, &resetter), 0);
	CU_ASSERT_EQUAL_FATAL(statctr_slot_acquire(seg, &a), 0);
	statctr_add(a, 0, 5);
	CU_ASSERT_EQUAL_FATAL(statctr_snap_retake(view, &snap), 0);
	CU_ASSERT_EQUAL(statctr_snap_counter(snap, 0), 5);
	disc = statctr_snap_discontinuity(snap, 0);
	CU_ASSERT_EQUAL_FATAL(statctr_reset(resetter, 0), 0);
	statctr_add(a, 0, 2);
	CU_ASSERT_EQUAL_FATAL(statctr_snap_retake(view, &snap), 0);
	CU_ASSERT_EQUAL(statctr_snap_counter(snap, 0), 2);
	CU_ASSERT_EQUAL(statctr_snap_counter_raw(snap, 0), 7);
	CU_ASSERT(statctr_snap_discontinuity(snap, 0) > disc);
	statctr_add(a, 0, 1);
	CU_ASSERT_EQUAL_FATAL(statctr_snap_retake(view, &snap), 0);
	CU_ASSERT_EQUAL(statctr_snap_counter(snap, 0), 3);
	/* And through the view that reset, after a refresh that kept its mapping. */
	CU_ASSERT_EQUAL_FATAL(statctr_reset(view, 0), 0);
	CU_ASSERT_EQUAL_FATAL(statctr_view_refresh(view), 0);
	CU_ASSERT_EQUAL_FATAL(statctr_snap_retake(view, &snap), 0);
	CU_ASSERT_EQUAL(statctr_snap_counter(snap, 0), 0);
	CU_ASSERT_EQUAL(statctr_snap_counter_raw(snap, 0), 8);
	statctr_snap_free(snap);
	statctr_view_close(resetter);
	teardown();
}

/*
 * Writers that pause between bursts of transactions: a snapshot often finds
 * their slots quiet and reads them together, and one wakes during the read.
 * Each burst keeps the totals row equal to the sum of the flow rows.
 */
#define BURST_SLOTS 4
#define BURST_FLOWS 50000

static void *bursty_writer(void *arg)
{
	struct statctr_slot *slot = arg;
	struct timespec pause_ts = {0, 200000};
	uint64_t seed = (uintptr_t)arg | 1;
	unsigned i;

	while (!atomic_load_explicit(&stop_writer, memory_order_relaxed)) {
		for (i = 0; i < 200; i++) {
			uint32_t flow = 1 + (uint32_t)(seed % BURST_FLOWS);

			seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
			statctr_txn_begin(slot);
			statctr_inc(slot, 3 * flow);
			statctr_inc(slot, 0);
			statctr_txn_end(slot);
		}
		nanosleep(&pause_ts, NULL);
	}
	return NULL;
}

static bool totals_match_flows(const struct statctr_snap *snap)
{
	uint64_t flows = 0;
	uint32_t f;

	for (f = 1; f <= BURST_FLOWS; f++)
		flows += statctr_snap_counter(snap, 3 * f);
	return flows == statctr_snap_counter(snap, 0);
}

static void quiet_slots_waking_during_a_read_are_read_whole(void)
{
	struct statctr_slot *slots[BURST_SLOTS];
	struct statctr_snap *snap = NULL;
	struct statctr_snap_stats st;
	pthread_t t[BURST_SLOTS];
	unsigned i, n = 0, violations = 0, busy = 0, retried = 0;
	double end;

	setup(BURST_SLOTS, TU_SIMPLE_TABLE(50001));
	atomic_store(&stop_writer, 0);
	for (i = 0; i < BURST_SLOTS; i++) {
		CU_ASSERT_EQUAL_FATAL(statctr_slot_acquire(seg, &slots[i]), 0);
		pthread_create(&t[i], NULL, bursty_writer, slots[i]);
	}
	for (end = now_s() + 1.0; now_s() < end || n < 20; n++) {
		CU_ASSERT_EQUAL_FATAL(statctr_snap_retake(view, &snap), 0);
		statctr_snap_stats(snap, &st);
		busy += st.busy_slots > 0;
		retried += st.retries > 0;
		violations += st.busy_slots == 0 && !totals_match_flows(snap);
	}
	atomic_store(&stop_writer, 1);
	for (i = 0; i < BURST_SLOTS; i++)
		pthread_join(t[i], NULL);
	fprintf(stderr,
	        "\n    %u snapshots: %u with a failed read, %u with a busy slot, %u violations\n",
	        n, retried, busy, violations);
	CU_ASSERT_EQUAL(violations, 0);
	/* The writers pause: busy only when starved of CPU (TSan on a loaded machine). */
	CU_ASSERT(busy * 2 <= n);
	CU_ASSERT_EQUAL_FATAL(statctr_snap_retake(view, &snap), 0);
	statctr_snap_stats(snap, &st);
	CU_ASSERT_EQUAL(st.busy_slots, 0);
	CU_ASSERT(totals_match_flows(snap));
	CU_ASSERT(statctr_snap_counter(snap, 0) > 0);
	statctr_snap_free(snap);
	teardown();
}

int main(void)
{
	static const struct test_case cases[] = {
	    {"idle_writer_reads_first_time_with_creation_discontinuity",
	     idle_writer_reads_first_time_with_creation_discontinuity},
	    {"open_transaction_of_live_writer_is_reported_busy_not_waited_on",
	     open_transaction_of_live_writer_is_reported_busy_not_waited_on},
	    {"writer_killed_mid_transaction_is_read_as_final",
	     writer_killed_mid_transaction_is_read_as_final},
	    {"flat_out_writer_is_copied_at_a_transaction_boundary",
	     flat_out_writer_is_copied_at_a_transaction_boundary},
	    {"retake_refills_in_place_follows_shape_and_frees_on_error",
	     retake_refills_in_place_follows_shape_and_frees_on_error},
	    {"sums_only_snapshot_keeps_the_sums_and_no_slot_values",
	     sums_only_snapshot_keeps_the_sums_and_no_slot_values},
	    {"retake_sees_resets_made_through_another_view",
	     retake_sees_resets_made_through_another_view},
	    {"quiet_slots_waking_during_a_read_are_read_whole",
	     quiet_slots_waking_during_a_read_are_read_whole},
	    {NULL, NULL},
	};

	return tu_run_both("snapshot", cases);
}
