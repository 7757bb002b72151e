/*
 * reset.c - resets as baselines, never as stores to writer memory.
 *
 * A reset takes a snapshot, then - between two increments of the control
 * file's reset_seq, under the reset lock - stores each counter's total as
 * its baseline and the time as its discontinuity.  Readers report
 * total - baseline, so counts that arrive during or after the reset are
 * kept.  Writing the control file needs write permission on it: that is
 * the whole access control for resets.  Where the baselines lie comes from
 * the layout the view computed at open (ctl_layout_for()), never from the
 * file, which every other resetter may rewrite; the cells stored are
 * bounded by the segment's private copy.
 *
 * A histogram's id names its whole block, the sum and the buckets (cells
 * with no id of their own): they are reset together, in the same step,
 * with the same time.  Its own cell holds its writers' descriptors, which
 * nobody serves: it needs no baseline.
 *
 * The discontinuity time is taken before the snapshot whose totals become
 * the baselines.  A cell of a dynamic row serves its reset baseline only
 * when the reset is newer than the row's add (snapshot.c): a row added
 * after that instant counts from its incarnation base, so a reset racing
 * an add never applies the old incarnation's totals to the new one.
 */
#include "internal.h"

#include <errno.h>

#define RESET_LOCK_WAIT_MS 500

/* @off comes from the view's computed layout, never from the file. */
static _Atomic uint64_t *ctl_array(struct statctr_view *v, uint64_t off)
{
	return (_Atomic uint64_t *)((uint8_t *)v->ctl + off);
}

/* Baseline @id at its total in @snap, discontinuity @now. */
static void reset_cell(_Atomic uint64_t *baseline, _Atomic uint64_t *disc,
                       const struct statctr_snap *snap, statctr_id id, uint64_t now)
{
	atomic_store_explicit(&baseline[id], statctr_snap_counter_raw(snap, id),
	                      memory_order_relaxed);
	atomic_store_explicit(&disc[id], now, memory_order_relaxed);
}

/* A counter alone; a histogram its whole block; a gauge not. */
static void reset_id(struct statctr_view *v, _Atomic uint64_t *baseline, _Atomic uint64_t *disc,
                     const struct statctr_snap *snap, statctr_id id, uint64_t now)
{
	uint32_t block, b;
	const struct seg_column *col = meta_hist_of(v->meta, id, &block); /* NULL: no histogram */

	if (col) {
		for (b = 0; b < hist_block_cells(col->nbuckets); b++)
			reset_cell(baseline, disc, snap, block + b, now);
		return;
	}
	if (statctr_view_cell_kind(v, id) == STATCTR_KIND_COUNTER)
		reset_cell(baseline, disc, snap, id, now);
}

struct reset_args {
	struct statctr_view *view;
	struct statctr_snap *snap;
	const struct statctr_range *ranges;
	uint32_t n;
	uint64_t now; /* CLOCK_REALTIME before the snapshot was taken */
};

static int store_baselines(void *arg)
{
	const struct reset_args *a = arg;
	struct statctr_view *v = a->view;
	_Atomic uint64_t *baseline = ctl_array(v, v->ctl_layout.baselines_off);
	_Atomic uint64_t *disc = ctl_array(v, v->ctl_layout.disc_off);
	uint64_t seq = atomic_load_explicit(&v->ctl->reset_seq, memory_order_relaxed);

	/* An odd value means a resetter died mid-way: start from the next even. */
	seq = (seq + 1) & ~(uint64_t)1;
	atomic_store_explicit(&v->ctl->reset_seq, seq + 1, memory_order_relaxed);
	/* Orders the odd reset_seq before the baseline stores: pairs with the
	 * acquire fence in read_all() (snapshot.c). */
	atomic_thread_fence(memory_order_release);
	for (uint32_t r = 0; r < a->n; r++)
		for (uint32_t i = 0; i < a->ranges[r].count; i++)
			reset_id(v, baseline, disc, a->snap, a->ranges[r].first + i, a->now);
	/* Pairs with the acquire load of reset_seq at the start of read_all()
	 * (snapshot.c): the baselines and times above first. */
	atomic_store_explicit(&v->ctl->reset_seq, seq + 2, memory_order_release);
	return 0;
}

/* The snapshot the baselines came from, made to read as one taken after them. */
static void apply_to_snapshot(struct statctr_view *v, struct statctr_snap *snap,
                              const struct statctr_range *ranges, uint32_t n, uint64_t now)
{
	uint32_t block, b;

	for (uint32_t r = 0; r < n; r++) {
		for (statctr_id id = ranges[r].first; id - ranges[r].first < ranges[r].count;
		     id++) {
			const struct seg_column *col = meta_hist_of(v->meta, id, &block);

			if (col)
				for (b = 0; b < hist_block_cells(col->nbuckets); b++)
					snap_note_reset(snap, block + b, now);
			else if (statctr_view_cell_kind(v, id) == STATCTR_KIND_COUNTER)
				snap_note_reset(snap, id, now);
		}
	}
}

static int check_ranges(const struct statctr_view *view, const struct statctr_range *ranges,
                        uint32_t n)
{
	uint32_t ncells = view->meta->hdr->ncells;

	if (n == 0)
		return errmsg_set(EINVAL, "no range to reset");
	for (uint32_t r = 0; r < n; r++)
		if (ranges[r].count == 0 || ranges[r].first >= ncells ||
		    ranges[r].count > ncells - ranges[r].first)
			return errmsg_set(
			    EINVAL, "cells %u..%llu out of range (segment has %u)", ranges[r].first,
			    (unsigned long long)ranges[r].first + ranges[r].count - 1, ncells);
	if (!view->ctl || !view->ctl_writable)
		return errmsg_set(EACCES, "cannot reset %s: %s is not writable by this process",
		                  view->path, view->ctl_path);
	return 0;
}

int statctr_reset_ranges(struct statctr_view *view, const struct statctr_range *ranges, uint32_t n,
                         struct statctr_snap **snapp)
{
	struct statctr_snap *own = NULL, **snap = snapp ? snapp : &own;
	uint64_t now;
	int err = check_ranges(view, ranges, n);

	if (err)
		return err;
	err = view_ctl_lock(view, CTL_LOCK_RESET, RESET_LOCK_WAIT_MS);
	if (err)
		return err;
	now = realtime_ns();
	err = statctr_snap_retake(view, snap);
	if (!err) {
		struct reset_args args = {view, *snap, ranges, n, now};

		err = guard_run(store_baselines, &args, view->ctl_path);
		if (!err)
			apply_to_snapshot(view, *snap, ranges, n, now);
	}
	view_ctl_unlock(view, CTL_LOCK_RESET);
	statctr_snap_free(own);
	return err;
}

int statctr_reset_range(struct statctr_view *view, statctr_id first, uint32_t count)
{
	const struct statctr_range range = {first, count};

	return statctr_reset_ranges(view, &range, 1, NULL);
}

int statctr_reset(struct statctr_view *view, statctr_id id)
{
	return statctr_reset_range(view, id, 1);
}
