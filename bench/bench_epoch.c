/*
 * bench_epoch.c - what starting an epoch costs against one snapshot retake
 * (docs/PERFORMANCE.md, "Epochs"; issue 22: at most 1.2x, same run).
 *
 * For 10k, 100k and 1M cells x 2 writer slots (writers idle, every cell
 * counted), one view alternates statctr_snap_retake() into a kept
 * snapshot and statctr_epoch_start() (whose own retake, sums only
 * whatever the view's mode, writes its final pass of sums straight into
 * the epoch file's base), in pairs (ABBA), and compares the
 * medians of the reader's thread CPU time.  The target is judged against
 * a retake of a view in its default mode (full: slot values kept); the
 * ratio against a sums-only retake, the cheapest read there is, is given
 * beside it.  Both again after a writer restart ("+carry"): a first
 * generation counts, starts an epoch and exits, so that the epoch file
 * carries its totals and every base is the carry plus a snapshot's sums.
 *
 * Checks what it times: after the runs, the delta of every cell between
 * the first and the last epoch is 0 (nothing counted meanwhile) and from
 * the first epoch to a snapshot equals 0 too; each epoch's number is the
 * one before plus 1.
 */
#include "config.h"

#include "harness.h"
#include "statctr.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_REPS 41
#define KEEP     4

struct run {
	uint32_t nflows;
	bool sums_only; /* the view's mode, so the baseline retake's */
	bool carried;   /* after a generation that exited: the carry is not 0 */
	double retake_ms, start_ms;
};

static double thread_ms_of(int (*op)(struct statctr_view *, void *), struct statctr_view *v,
                           void *arg)
{
	uint64_t t0 = bench_thread_cpu_ns();

	if (op(v, arg) != 0)
		bench_die("%s", statctr_errmsg());
	return (double)(bench_thread_cpu_ns() - t0) / 1e6;
}

static int retake(struct statctr_view *v, void *arg)
{
	return statctr_snap_retake(v, (struct statctr_snap **)arg);
}

static int start(struct statctr_view *v, void *arg)
{
	uint32_t *last = arg, number;
	int err = statctr_epoch_start(v, "bench", &number);

	bench_check(err != 0 || *last == 0 || number == *last + 1, "epoch %u after %u", number,
	            *last);
	*last = number;
	return err;
}

/* Every cell counted once, so that no page of the segment is untouched. */
static void fill(struct statctr_seg *seg, uint32_t ncells)
{
	struct statctr_slot *s;

	if (bench_slot_acquire(seg, &s) != 0)
		bench_die("%s", statctr_errmsg());
	for (statctr_id c = 0; c < ncells; c++)
		statctr_add(s, c, c + 1);
	statctr_slot_release(s);
}

static void check_zero_deltas(struct statctr_view *v, uint32_t first, uint32_t last,
                              uint32_t ncells)
{
	struct statctr_snap *snap = NULL;
	uint64_t d1 = 1, d2 = 1;

	if (statctr_snap_take(v, &snap) != 0)
		bench_die("%s", statctr_errmsg());
	for (statctr_id c = 0; c < ncells; c += 97) {
		bench_check(statctr_snap_epoch_delta(snap, c, last - KEEP + 1, last, &d1) == 0 &&
		                statctr_snap_epoch_delta(snap, c, last, 0, &d2) == 0,
		            "cell %u: %s", c, statctr_errmsg());
		bench_check(d1 == 0 && d2 == 0, "cell %u: deltas %" PRIu64 " %" PRIu64, c, d1, d2);
	}
	bench_check(last >= first, "epochs %u..%u", first, last);
	statctr_snap_free(snap);
}

/* A generation that counts, starts an epoch and exits: its successor's
 * segment_create() adds its final totals to the epoch file's carry. */
static void exited_generation(const struct bench_env *env, const char *conf, uint32_t ncells)
{
	struct statctr_seg *seg;
	struct statctr_view *v;
	uint32_t number = 0;
	char seg_path[512], path[530];

	if (statctr_seg_create(conf, "bench", &seg) != 0)
		bench_die("%s", statctr_errmsg());
	fill(seg, ncells);
	snprintf(seg_path, sizeof(seg_path), "%s/epoch", env->tmp_dir);
	snprintf(path, sizeof(path), "%s.epochs", seg_path);
	bench_check(statctr_view_open(seg_path, &v) == 0 &&
	                statctr_epoch_start(v, "before", &number) == 0,
	            "first generation: %s", statctr_errmsg());
	statctr_view_close(v);
	statctr_seg_destroy(seg);
	bench_check(access(path, F_OK) == 0, "%s: not kept across the restart", path);
}

static void measure(const struct bench_env *env, struct run *r, unsigned reps)
{
	char conf[512];
	struct statctr_seg *seg;
	struct statctr_view *v;
	struct statctr_snap *snap = NULL;
	double a[MAX_REPS], b[MAX_REPS];
	uint32_t ncells = 2 + 2 * r->nflows, first = 0, last = 0;

	bench_write_config_ex(env, "epoch", 2, "epochs = { keep = 4; };", r->nflows, NULL, conf,
	                      sizeof(conf));
	if (r->carried)
		exited_generation(env, conf, ncells);
	if (statctr_seg_create(conf, "bench", &seg) != 0)
		bench_die("%s", statctr_errmsg());
	snprintf(conf, sizeof(conf), "%s/epoch", env->tmp_dir);
	if (statctr_view_open(conf, &v) != 0)
		bench_die("%s", statctr_errmsg());
	statctr_view_set_sums_only(v, r->sums_only);
	fill(seg, ncells);
	/* Warm both: the kept snapshots and every page of the epoch file. */
	for (unsigned i = 0; i < KEEP + 1; i++) {
		thread_ms_of(retake, v, &snap);
		thread_ms_of(start, v, &last);
	}
	first = last;
	for (unsigned i = 0; i < reps; i++) { /* ABBA */
		if (i % 2 == 0) {
			a[i] = thread_ms_of(retake, v, &snap);
			b[i] = thread_ms_of(start, v, &last);
		} else {
			b[i] = thread_ms_of(start, v, &last);
			a[i] = thread_ms_of(retake, v, &snap);
		}
	}
	check_zero_deltas(v, first, last, ncells);
	r->retake_ms = bench_stats_of(a, reps).median;
	r->start_ms = bench_stats_of(b, reps).median;
	statctr_snap_free(snap);
	statctr_view_close(v);
	statctr_seg_destroy(seg);
	snprintf(conf, sizeof(conf), "%s/epoch.epochs", env->tmp_dir);
	unlink(conf);
}

int main(int argc, char **argv)
{
	static const uint32_t flows[] = {4999, 49999, 499999}; /* 10k, 100k, 1M cells */
	struct bench_env env;
	const char *out;
	bool quick;
	int rc = bench_options(argc, argv, "epoch", &out, &quick);
	unsigned nsizes, reps;
	FILE *csv;

	if (rc)
		return rc;
	bench_init(&env, "epoch", out, quick);
	nsizes = quick ? 1 : 3;
	reps = quick ? 3 : MAX_REPS;
	csv = bench_csv_open(&env, "epoch.csv", "cells,slots,view,retake_ms,epoch_start_ms,ratio");
	printf("\nEpoch start vs one snapshot retake of the same view, writers idle, 2 slots"
	       " (median of %u, reader thread CPU ms)\n%9s %10s %10s %10s %7s\n",
	       reps, "cells", "view", "retake", "start", "ratio");
	for (unsigned i = 0; i < nsizes; i++)
		for (int mode = 0; mode < 4; mode++) {
			static const char *const views[] = {"full", "sums", "full+carry",
			                                    "sums+carry"};
			struct run r = {
			    .nflows = flows[i], .sums_only = mode % 2 == 1, .carried = mode >= 2};
			const char *view = views[mode];
			uint32_t ncells = 2 + 2 * r.nflows;
			char what[80];

			measure(&env, &r, reps);
			printf("%9u %10s %10.3f %10.3f %7.2f\n", ncells, view, r.retake_ms,
			       r.start_ms, r.start_ms / r.retake_ms);
			fprintf(csv, "%u,2,%s,%.4f,%.4f,%.3f\n", ncells, view, r.retake_ms,
			        r.start_ms, r.start_ms / r.retake_ms);
			snprintf(what, sizeof(what), "epoch start / %s retake, %u cells", view,
			         ncells);
			if (!r.sums_only)
				bench_target(&env, what, r.start_ms / r.retake_ms, "<=", 1.2);
			else
				bench_info(&env, what, r.start_ms / r.retake_ms);
		}
	bench_csv_close(csv);
	return bench_finish(&env);
}
