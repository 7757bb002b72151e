/*
 * test_writer.c - the writer side: adds, wraps, gauges, slots, shared slot.
 */
#include "internal.h"
#include "testutil.h"

#include <pthread.h>

static const char *seg_path;
static struct statctr_seg *seg;
static struct statctr_view *view;

static void setup(unsigned nslots)
{
	CU_ASSERT_EQUAL_FATAL(
	    statctr_seg_create(tu_config(nslots, TU_SIMPLE_TABLE(4), &seg_path), "seg", &seg), 0);
	CU_ASSERT_EQUAL_FATAL(tu_view_open(seg_path, &view), 0);
}

static void teardown(void)
{
	statctr_view_close(view);
	statctr_seg_destroy(seg);
}

static struct statctr_snap *snap_now(void)
{
	struct statctr_snap *snap = NULL;

	CU_ASSERT_EQUAL(statctr_snap_take(view, &snap), 0);
	return snap;
}

static void counter_wraps_mod_2_64(void)
{
	struct statctr_slot *a, *b;
	struct statctr_snap *snap;

	setup(2);
	CU_ASSERT_EQUAL_FATAL(statctr_slot_acquire(seg, &a), 0);
	CU_ASSERT_EQUAL_FATAL(statctr_slot_acquire(seg, &b), 0);
	statctr_add(a, 0, UINT64_MAX);
	statctr_add(b, 0, 3);
	statctr_inc(a, 1);
	snap = snap_now();
	CU_ASSERT_EQUAL(statctr_snap_counter(snap, 0), 2);
	CU_ASSERT_EQUAL(statctr_snap_slot_value(snap, 0, 0), tu_slot_value(UINT64_MAX));
	CU_ASSERT_EQUAL(statctr_snap_slot_value(snap, 1, 0), tu_slot_value(3));
	CU_ASSERT_EQUAL(statctr_snap_counter(snap, 1), 1);
	statctr_snap_free(snap);
	teardown();
}

static void gauges_sum_across_slots_including_negative(void)
{
	struct statctr_slot *a, *b;
	struct statctr_snap *snap;

	setup(2);
	CU_ASSERT_EQUAL_FATAL(statctr_slot_acquire(seg, &a), 0);
	CU_ASSERT_EQUAL_FATAL(statctr_slot_acquire(seg, &b), 0);
	statctr_gauge_add(a, 2, 5);
	statctr_gauge_add(b, 2, -8);
	statctr_shared_gauge_add(seg, 2, -1);
	snap = snap_now();
	CU_ASSERT_EQUAL(statctr_snap_gauge(snap, 2), -4);
	CU_ASSERT_EQUAL((int64_t)statctr_snap_slot_value(snap, 1, 2),
	                (int64_t)tu_slot_value((uint64_t)-8));
	statctr_snap_free(snap);
	teardown();
}

static void gauge_set_sets_the_level_and_adds_move_it(void)
{
	struct statctr_slot *a;
	struct statctr_snap *snap;

	setup(2);
	CU_ASSERT_EQUAL_FATAL(statctr_slot_acquire(seg, &a), 0);
	statctr_gauge_add(a, 2, 17);
	statctr_gauge_set(seg, 2, 100);
	snap = snap_now();
	CU_ASSERT_EQUAL(statctr_snap_gauge(snap, 2), 100);
	statctr_snap_free(snap);
	statctr_gauge_add(a, 2, -101);
	snap = snap_now();
	CU_ASSERT_EQUAL(statctr_snap_gauge(snap, 2), -1);
	statctr_snap_free(snap);
	statctr_gauge_set(seg, 2, INT64_MIN);
	snap = snap_now();
	CU_ASSERT_EQUAL(statctr_snap_gauge(snap, 2), INT64_MIN);
	statctr_snap_free(snap);
	teardown();
}

static void slot_exhaustion_is_ebusy_and_release_keeps_counts(void)
{
	struct statctr_slot *a, *b, *c;
	struct statctr_snap *snap;

	setup(2);
	CU_ASSERT_EQUAL_FATAL(statctr_slot_acquire(seg, &a), 0);
	CU_ASSERT_EQUAL_FATAL(statctr_slot_acquire(seg, &b), 0);
	CU_ASSERT_EQUAL(statctr_slot_acquire(seg, &c), -EBUSY);
	CU_ASSERT_PTR_NOT_NULL(strstr(statctr_errmsg(), "all 2 slots"));
	statctr_add(a, 0, 10);
	CU_ASSERT_EQUAL(statctr_view_slot_state(view, 0), STATCTR_SLOT_LIVE);
	statctr_slot_release(a);
	CU_ASSERT_EQUAL(statctr_view_slot_state(view, 0), STATCTR_SLOT_FREE);
	snap = snap_now();
	CU_ASSERT_EQUAL(statctr_snap_counter(snap, 0), 10);
	statctr_snap_free(snap);
	CU_ASSERT_EQUAL_FATAL(statctr_slot_acquire(seg, &c), 0);
	CU_ASSERT_PTR_EQUAL(c, a); /* the first slot again */
	statctr_add(c, 0, 5);
	snap = snap_now();
	CU_ASSERT_EQUAL(statctr_snap_counter(snap, 0), 15);
	statctr_snap_free(snap);
	teardown();
}

static void *add_and_exit(void *arg)
{
	struct statctr_slot *slot;

	(void)arg;
	if (statctr_slot_acquire(seg, &slot) == 0)
		statctr_add(slot, 0, 7); /* and exit without releasing */
	return NULL;
}

static void slot_of_exited_thread_is_dead_then_reused(void)
{
	struct statctr_slot *mine, *reused;
	struct statctr_snap *snap;
	pthread_t t;

	setup(1);
	pthread_create(&t, NULL, add_and_exit, NULL);
	pthread_join(t, NULL);
	CU_ASSERT_EQUAL(statctr_view_slot_state(view, 0), STATCTR_SLOT_DEAD);
	CU_ASSERT_EQUAL_FATAL(statctr_slot_acquire(seg, &mine), 0);
	reused = mine;
	CU_ASSERT_PTR_EQUAL(reused, seg_slot_header(seg, 0));
	CU_ASSERT_EQUAL(statctr_view_slot_state(view, 0), STATCTR_SLOT_LIVE);
	statctr_add(mine, 0, 1);
	snap = snap_now();
	CU_ASSERT_EQUAL(statctr_snap_counter(snap, 0), 8);
	statctr_snap_free(snap);
	teardown();
}

static void *open_transaction_and_exit(void *arg)
{
	struct statctr_slot *slot;

	(void)arg;
	if (statctr_slot_acquire(seg, &slot) == 0) {
		statctr_add(slot, 0, 3);
		statctr_txn_begin(slot);
		statctr_add(slot, 0, 4); /* and die inside the transaction */
	}
	return NULL;
}

static void slot_reused_after_torn_transaction_keeps_parity(void)
{
	struct statctr_slot *mine;
	struct statctr_snap *snap;
	struct statctr_snap_stats st;
	pthread_t t;

	setup(1);
	pthread_create(&t, NULL, open_transaction_and_exit, NULL);
	pthread_join(t, NULL);
	CU_ASSERT_EQUAL_FATAL(statctr_slot_acquire(seg, &mine), 0);
	CU_ASSERT_EQUAL(atomic_load(&mine->seq) % 2, 0);
	statctr_txn_begin(mine);
	statctr_add(mine, 0, 1);
	statctr_txn_end(mine);
	CU_ASSERT_EQUAL(atomic_load(&mine->seq) % 2, 0);
	snap = snap_now();
	statctr_snap_stats(snap, &st);
	CU_ASSERT_EQUAL(st.busy_slots, 0);
	CU_ASSERT_EQUAL(st.retries, 0);
	CU_ASSERT_EQUAL(statctr_snap_counter(snap, 0), 8);
	statctr_snap_free(snap);
	teardown();
}

#define RACERS 4

static pthread_barrier_t start_line, all_acquired;

/*
 * Acquires at the same moment as the others and holds the slot until all
 * have one; on even rounds releases it, on odd rounds exits without, so
 * the next round reclaims dead owners' slots concurrently.
 */
static void *race_for_a_slot(void *arg)
{
	struct statctr_slot **got = arg;
	uintptr_t round = (uintptr_t)got[1];

	pthread_barrier_wait(&start_line);
	if (statctr_slot_acquire(seg, &got[0]) != 0)
		got[0] = NULL;
	pthread_barrier_wait(&all_acquired);
	if (got[0] && round % 2 == 0)
		statctr_slot_release(got[0]);
	return NULL;
}

static void concurrent_acquires_never_share_a_slot(void)
{
	struct statctr_slot *got[RACERS][2];
	pthread_t t[RACERS];
	uintptr_t round;
	unsigned shared = 0, missing = 0;
	int i, j;

	setup(RACERS);
	pthread_barrier_init(&start_line, NULL, RACERS);
	pthread_barrier_init(&all_acquired, NULL, RACERS);
	for (round = 0; round < 200; round++) {
		for (i = 0; i < RACERS; i++) {
			got[i][1] = (struct statctr_slot *)round;
			pthread_create(&t[i], NULL, race_for_a_slot, got[i]);
		}
		for (i = 0; i < RACERS; i++)
			pthread_join(t[i], NULL);
		for (i = 0; i < RACERS; i++) {
			missing += got[i][0] == NULL;
			for (j = 0; j < i; j++)
				shared += got[i][0] && got[i][0] == got[j][0];
		}
	}
	pthread_barrier_destroy(&start_line);
	pthread_barrier_destroy(&all_acquired);
	CU_ASSERT_EQUAL(shared, 0);
	CU_ASSERT_EQUAL(missing, 0);
	teardown();
}

#define SHARED_THREADS 4
#define SHARED_ADDS    100000

static void *shared_adder(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < SHARED_ADDS; i++)
		statctr_shared_add(seg, 1, 1);
	return NULL;
}

static void shared_slot_loses_no_concurrent_adds(void)
{
	pthread_t t[SHARED_THREADS];
	struct statctr_snap *snap;
	int i;

	setup(1);
	for (i = 0; i < SHARED_THREADS; i++)
		pthread_create(&t[i], NULL, shared_adder, NULL);
	for (i = 0; i < SHARED_THREADS; i++)
		pthread_join(t[i], NULL);
	snap = snap_now();
	CU_ASSERT_EQUAL(statctr_snap_counter(snap, 1), SHARED_THREADS * SHARED_ADDS);
	CU_ASSERT_EQUAL(statctr_snap_slot_value(snap, 1, 1),
	                tu_slot_value(SHARED_THREADS * SHARED_ADDS));
	statctr_snap_free(snap);
	teardown();
}

static void transaction_leaves_sequence_even_and_advanced(void)
{
	struct statctr_slot *a;

	setup(1);
	CU_ASSERT_EQUAL_FATAL(statctr_slot_acquire(seg, &a), 0);
	statctr_txn_begin(a);
	CU_ASSERT_EQUAL(atomic_load(&a->seq), 1);
	statctr_add(a, 0, 1);
	statctr_txn_end(a);
	CU_ASSERT_EQUAL(atomic_load(&a->seq), 2);
	teardown();
}

int main(void)
{
	static const struct test_case cases[] = {
	    {"counter_wraps_mod_2_64", counter_wraps_mod_2_64},
	    {"gauges_sum_across_slots_including_negative",
	     gauges_sum_across_slots_including_negative},
	    {"gauge_set_sets_the_level_and_adds_move_it",
	     gauge_set_sets_the_level_and_adds_move_it},
	    {"slot_exhaustion_is_ebusy_and_release_keeps_counts",
	     slot_exhaustion_is_ebusy_and_release_keeps_counts},
	    {"slot_of_exited_thread_is_dead_then_reused",
	     slot_of_exited_thread_is_dead_then_reused},
	    {"slot_reused_after_torn_transaction_keeps_parity",
	     slot_reused_after_torn_transaction_keeps_parity},
	    {"concurrent_acquires_never_share_a_slot", concurrent_acquires_never_share_a_slot},
	    {"shared_slot_loses_no_concurrent_adds", shared_slot_loses_no_concurrent_adds},
	    {"transaction_leaves_sequence_even_and_advanced",
	     transaction_leaves_sequence_even_and_advanced},
	    {NULL, NULL},
	};

	return tu_run_both("writer", cases);
}
