/*
 * hist_rec.c - a writer recording known values into the histograms of
 * tests/tools/hist.sh's configuration, so that statctl's estimates can be
 * checked to the digit.
 *
 * usage: hist_rec CONFIG SEGMENT
 * Creates SEGMENT (table "lat", rows "a" and "b", histograms "latency"
 * with bounds 10, 20, 50, 100 and "size" with bounds 1, 2, 4, ... 2^19),
 * records the batch below, prints "recorded 1" and waits.  Each SIGUSR1
 * records the value 7 in a.latency and prints "recorded N"; SIGTERM or
 * SIGINT ends it (the segment is removed).
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#include "statctr.h"

static volatile sig_atomic_t more, stop;

static void on_more(int sig)
{
	(void)sig;
	more++;
}

static void on_stop(int sig)
{
	(void)sig;
	stop = 1;
}

/* @n times @value into histogram @id, half inside a transaction of the
 * counter ops, half on their own (statctr_hist_record() opens one). */
static void record(struct statctr_slot *slot, statctr_id id, statctr_id ops, uint64_t value,
                   unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		if (i % 2 == 0) {
			statctr_hist_record(slot, id, value);
			continue;
		}
		statctr_txn_begin(slot);
		statctr_inc(slot, ops);
		statctr_hist_record(slot, id, value);
		statctr_txn_end(slot);
	}
}

/*
 * a.latency: buckets (<=10, <=20, <=50, <=100, +Inf) get 10, 60, 21, 7, 2
 * values, bounds included (10 in the first, 50 in the third); sum 3493.
 * b.latency: the single value 0.  a.size: 1, 3 and 1000000 (+Inf).
 * Indexes into the ids of lookup_all().
 */
static void record_batch(struct statctr_slot *slot, const statctr_id *ids)
{
	static const struct {
		unsigned hist, ops;
		uint64_t value;
		unsigned n;
	} batch[] = {{0, 3, 1, 5},   {0, 3, 10, 5}, {0, 3, 11, 30}, {0, 3, 20, 30},
	             {0, 3, 50, 21}, {0, 3, 51, 7}, {0, 3, 101, 1}, {0, 3, 1000, 1},
	             {1, 4, 0, 1},   {2, 3, 1, 1},  {2, 3, 3, 1},   {2, 3, 1000000, 1}};

	for (size_t i = 0; i < sizeof(batch) / sizeof(batch[0]); i++)
		record(slot, ids[batch[i].hist], ids[batch[i].ops], batch[i].value, batch[i].n);
}

static int lookup_all(const struct statctr_seg *seg, statctr_id *ids)
{
	static const struct {
		const char *column;
		uint32_t row;
	} cells[] = {{"latency", 0}, {"latency", 1}, {"size", 0}, {"ops", 0}, {"ops", 1}};

	for (size_t i = 0; i < sizeof(cells) / sizeof(cells[0]); i++)
		if (statctr_seg_lookup(seg, "lat", cells[i].column, cells[i].row, &ids[i]) != 0)
			return -1;
	return 0;
}

/* The signals are blocked but in sigsuspend(): none is lost between the
 * test of the flags and the wait. */
static void wait_signals(struct statctr_slot *slot, statctr_id id, const sigset_t *waitmask)
{
	unsigned recorded = 1;

	while (!stop) {
		sigsuspend(waitmask);
		for (; more > 0; more--) {
			statctr_hist_record(slot, id, 7);
			printf("recorded %u\n", ++recorded);
			fflush(stdout);
		}
	}
}

int main(int argc, char **argv)
{
	struct statctr_seg *seg;
	struct statctr_slot *slot;
	statctr_id ids[5];
	struct sigaction sa = {.sa_handler = on_more};
	sigset_t block, waitmask;

	if (argc != 3) {
		fprintf(stderr, "usage: hist_rec CONFIG SEGMENT\n");
		return 2;
	}
	sigaction(SIGUSR1, &sa, NULL);
	sa.sa_handler = on_stop;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigemptyset(&block);
	sigaddset(&block, SIGUSR1);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGINT);
	sigprocmask(SIG_BLOCK, &block, &waitmask);
	if (statctr_seg_create(argv[1], argv[2], &seg) != 0) {
		fprintf(stderr, "hist_rec: %s\n", statctr_errmsg());
		return 1;
	}
	if (lookup_all(seg, ids) != 0 || statctr_slot_acquire(seg, &slot) != 0) {
		fprintf(stderr, "hist_rec: %s\n", statctr_errmsg());
		statctr_seg_destroy(seg);
		return 1;
	}
	record_batch(slot, ids);
	printf("recorded 1\n");
	fflush(stdout);
	wait_signals(slot, ids[0], &waitmask);
	statctr_slot_release(slot);
	statctr_seg_destroy(seg);
	return 0;
}
