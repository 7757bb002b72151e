/*
 * bench_python.c - the C side of bench/bench_python.py (docs/PERFORMANCE.md,
 * "Python"): the segment it reads and the C reader it is compared with.
 *
 *   bench_python create CONFIG: creates segment "bench" of CONFIG, fills
 *       every cell of every writer slot (one thread per slot, each slot
 *       released after), prints "ready" and holds the segment until
 *       SIGTERM.
 *   bench_python time PATH N: opens a view, takes a snapshot, then N times
 *       retakes it and reads every cell's value (statctr_snap_counter(), a
 *       call per cell, as statctl's walk reads them) into one array, and
 *       prints "retake_ms read_ms" per iteration.
 *
 * Linked with the shared libstatctr the Python module loads, so that both
 * sides run the same library code.  Never writes a segment it reads.
 */
#include "config.h"

#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "statctr.h"

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int fail(const char *what)
{
	fprintf(stderr, "bench_python: %s: %s\n", what, statctr_errmsg());
	return 1;
}

struct filler {
	struct statctr_seg *seg;
	uint32_t ncells;
	int err;
};

/* One writer thread: its own slot, every cell set, the slot given back. */
static void *fill_slot(void *arg)
{
	struct filler *f = arg;
	struct statctr_slot *slot;

	f->err = statctr_slot_acquire(f->seg, &slot);
	if (f->err)
		return NULL;
	for (statctr_id id = 0; id < f->ncells; id++)
		statctr_add(slot, id, id + 1);
	statctr_slot_release(slot);
	return NULL;
}

/* The cells and writer slots config declares for segment "bench". */
static int shape(const char *config, uint32_t *ncells, uint32_t *nslots)
{
	struct statctr_config *cfg;
	const struct statctr_segment_decl *decl;

	if (statctr_config_load(config, &cfg))
		return fail("config");
	decl = statctr_config_find(cfg, "bench");
	if (decl) {
		*ncells = decl->ncells;
		*nslots = decl->nslots;
	}
	statctr_config_free(cfg);
	return decl ? 0 : fail("config");
}

static int create(const char *config)
{
	struct filler f = {.err = 0};
	uint32_t nslots = 0;
	sigset_t term;
	int sig;

	if (shape(config, &f.ncells, &nslots) || statctr_seg_create(config, "bench", &f.seg))
		return fail("create");
	for (uint32_t s = 0; s < nslots && f.err == 0; s++) {
		pthread_t t;

		if (pthread_create(&t, NULL, fill_slot, &f) || pthread_join(t, NULL))
			return fail("thread");
	}
	if (f.err)
		return fail("slot");
	sigemptyset(&term);
	sigaddset(&term, SIGTERM);
	sigaddset(&term, SIGINT);
	sigprocmask(SIG_BLOCK, &term, NULL);
	printf("ready\n");
	fflush(stdout);
	sigwait(&term, &sig);
	statctr_seg_destroy(f.seg);
	return 0;
}

static int time_reads(const char *path, unsigned n)
{
	struct statctr_view *view;
	struct statctr_snap *snap = NULL;
	struct statctr_seg_info info;
	uint64_t *values;

	if (statctr_view_open(path, &view))
		return fail("open");
	statctr_view_info(view, &info);
	values = malloc((size_t)info.ncells * sizeof(*values));
	if (!values || statctr_snap_take(view, &snap))
		return fail("take");
	for (unsigned i = 0; i < n; i++) {
		uint64_t t0 = now_ns(), t1, t2;

		if (statctr_snap_retake(view, &snap))
			return fail("retake");
		t1 = now_ns();
		for (statctr_id id = 0; id < info.ncells; id++)
			values[id] = statctr_snap_counter(snap, id);
		t2 = now_ns();
		printf("%.3f %.3f\n", (double)(t1 - t0) / 1e6, (double)(t2 - t1) / 1e6);
	}
	/* The values are used: a compiler may not drop the reads. */
	fprintf(stderr, "cell 0: %llu\n", (unsigned long long)values[0]);
	free(values);
	statctr_snap_free(snap);
	statctr_view_close(view);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "create") == 0)
		return create(argv[2]);
	if (argc == 4 && strcmp(argv[1], "time") == 0)
		return time_reads(argv[2], (unsigned)strtoul(argv[3], NULL, 10));
	fprintf(stderr, "usage: bench_python create CONFIG | time PATH N\n");
	return 2;
}
