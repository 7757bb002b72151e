/*
 * cpu_rec.c - a writer of known counts in CPU slots, for tests/tools/cpuslots.sh.
 *
 * usage: cpu_rec CONFIG SEGMENT
 * Creates SEGMENT (table "t", column "n" a counter, "level" a gauge, one
 * row), adds 1000 x (k + 1) to t.n from each of 4 threads k with
 * statctr_cpu_add() and moves t.level by +7 then -2 with
 * statctr_cpu_gauge_add(), adds 5 to t.n through a thread slot when the
 * segment has one, prints "ready MODE" (statctr_cpu_mode()) and waits for
 * SIGTERM or SIGINT (the segment is then removed).  Totals: n 10000 (+ 5),
 * level 5.
 */
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#include "statctr.h"

#define NTHREADS 4

static struct statctr_seg *seg;
static statctr_id n_id, level_id;

static void *adder(void *arg)
{
	uintptr_t k = (uintptr_t)arg;

	for (unsigned i = 0; i < 1000; i++)
		statctr_cpu_add(seg, n_id, k + 1);
	return NULL;
}

static int count(void)
{
	pthread_t threads[NTHREADS];
	struct statctr_slot *slot;

	for (uintptr_t k = 0; k < NTHREADS; k++)
		if (pthread_create(&threads[k], NULL, adder, (void *)k) != 0)
			return -1;
	for (unsigned k = 0; k < NTHREADS; k++)
		pthread_join(threads[k], NULL);
	statctr_cpu_gauge_add(seg, level_id, 7);
	statctr_cpu_gauge_add(seg, level_id, -2);
	if (statctr_slot_acquire(seg, &slot) == 0) {
		statctr_add(slot, n_id, 5);
		statctr_slot_release(slot);
	}
	return 0;
}

int main(int argc, char **argv)
{
	sigset_t block, old;
	int sig, mode;

	if (argc != 3) {
		fprintf(stderr, "usage: cpu_rec CONFIG SEGMENT\n");
		return 2;
	}
	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGINT);
	sigprocmask(SIG_BLOCK, &block, &old);
	if (statctr_seg_create(argv[1], argv[2], &seg) != 0 ||
	    statctr_seg_lookup(seg, "t", "n", 0, &n_id) != 0 ||
	    statctr_seg_lookup(seg, "t", "level", 0, &level_id) != 0) {
		fprintf(stderr, "cpu_rec: %s\n", statctr_errmsg());
		return 1;
	}
	mode = statctr_cpu_mode(seg);
	if (mode < 0 || count() != 0) {
		fprintf(stderr, "cpu_rec: %s\n",
		        mode < 0 ? statctr_errmsg() : "pthread_create failed");
		statctr_seg_destroy(seg);
		return 1;
	}
	printf("ready %d\n", mode);
	fflush(stdout);
	sigwait(&block, &sig);
	statctr_seg_destroy(seg);
	return 0;
}
