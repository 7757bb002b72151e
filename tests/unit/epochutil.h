/*
 * epochutil.h - shared by the epoch suites (test_epoch: epochs, starts,
 * intervals, captures, adopt; test_epochfile: the epoch file's own rules):
 * a one-segment config with or without epochs and no epoch file left,
 * the file's path, a delta from a fresh snapshot, a writer generation
 * that counts and starts an epoch, the monotonic clock.
 */
#ifndef STATCTR_EPOCHUTIL_H
#define STATCTR_EPOCHUTIL_H

#include "testutil.h"

#include <stdint.h>
#include <time.h>

#define EPOCHS(keep) "epochs = { keep = " #keep "; interval_s = 900; };"

static const char *seg_path;

static inline const char *epoch_path(void)
{
	static char path[400];

	snprintf(path, sizeof(path), "%s.epochs", seg_path);
	return path;
}

/* Each case starts without an epoch file: numbers from 1. */
static inline const char *epoch_conf(const char *epochs)
{
	const char *conf = tu_config_ex(2, epochs, TU_SIMPLE_TABLE(4), &seg_path);

	unlink(epoch_path());
	return conf;
}

static inline uint64_t delta_of(struct statctr_view *v, statctr_id id, uint32_t from, uint32_t to,
                                int *rc)
{
	struct statctr_snap *snap;
	uint64_t d = 0;

	CU_ASSERT_EQUAL_FATAL(statctr_snap_take(v, &snap), 0);
	*rc = statctr_snap_epoch_delta(snap, id, from, to, &d);
	statctr_snap_free(snap);
	return d;
}

/* A writer generation that counts @n in cell 0 and starts an epoch, exiting cleanly. */
static inline void counted_generation(const char *conf, uint64_t n, int *rc)
{
	struct statctr_seg *seg;
	struct statctr_view *v;
	struct statctr_slot *s;

	*rc = statctr_seg_create(conf, "seg", &seg);
	if (*rc)
		return;
	CU_ASSERT_EQUAL_FATAL(statctr_slot_acquire(seg, &s), 0);
	CU_ASSERT_EQUAL_FATAL(tu_view_open(seg_path, &v), 0);
	statctr_add(s, 0, n);
	CU_ASSERT_EQUAL(statctr_epoch_start(v, "e", NULL), 0);
	statctr_add(s, 0, n);
	statctr_view_close(v);
	statctr_slot_release(s);
	statctr_seg_destroy(seg);
}

static inline int64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

#endif /* STATCTR_EPOCHUTIL_H */
