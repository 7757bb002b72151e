/*
 * hist.c - the writer's histogram descriptors and the bounds pool.
 *
 * statctr_hist_record() (statctr.h, inline) must find a histogram's bounds
 * and bucket block with one load, without trusting the segment for a bound
 * (any byte of it could be rewritten by the writer's own user) and without
 * an address in shared memory.  So at creation every writer slot's cell of
 * every histogram id gets a *descriptor* (statctr.h, "Histograms"): the
 * row's block, the search's first step and the index of the column's
 * padded bounds in statctr_hist_pool, this process's private array, all
 * built here from the segment's validated metadata (meta.c).  The shared
 * slot's cell stays 0: nobody records there.
 *
 * The pool: each histogram column of each segment this process created
 * holds one range of 2 x half entries (its bounds, then UINT64_MAX), taken
 * by statctr_seg_create() and given back by statctr_seg_destroy(), both
 * under pool_lock.  A range starts at an index whose low byte is its half
 * (the record reads half there: statctr.h), the first free one of those;
 * so at most STATCTR_HIST_POOL / 256 = 512 columns of one padded size,
 * whatever the others.
 *
 * The guess: statctr_hist_guess, a thread's last key, is all the fast
 * path keeps between calls.  A key names its bounds and half by itself,
 * so a guess whose range was given back and taken again names the new
 * column's bounds, filled before that column's segment was handed over
 * (below): the guess can never be stale, only different.
 *
 * Concurrency: the fast path reads descriptors and the pool without a
 * lock.  That is safe because a range is filled and every descriptor
 * stored before the segment is renamed into place and before
 * statctr_seg_create() returns; a thread can only record through a slot it
 * acquired from the segment handle, which it received from the creating
 * thread after that return (by pthread_create() or whatever
 * synchronisation the application uses to hand a pointer to a thread):
 * that hand-over is the happens-before edge.  A range is given back only
 * by statctr_seg_destroy(), after the unmap, after which no slot of the
 * segment may be used (statctr.h, USAGE CONSTRAINTS); the segment that
 * takes it next is handed over the same way.  A range in use is never
 * written.  Never reads or writes a cell but the descriptors.
 */
#include "internal.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

uint64_t statctr_hist_pool[STATCTR_HIST_POOL + 512];
__thread uint64_t statctr_hist_guess;

static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;

/* One bit per pool entry, set while a column of a live segment holds it. */
static uint64_t pool_used[STATCTR_HIST_POOL / 64]; /* guarded by pool_lock */

/* The smallest power of two >= nbuckets + 1 (nbuckets <= 64), halved. */
static uint32_t half_of(uint32_t nbuckets)
{
	uint32_t size = 1;

	while (size < nbuckets + 1)
		size *= 2;
	return size / 2;
}

/* The pool entries a column of @nbuckets holds. */
static uint32_t range_of(uint32_t nbuckets)
{
	return 2 * half_of(nbuckets);
}

static bool pool_taken(uint32_t i)
{
	return (pool_used[i / 64] >> (i % 64)) & 1;
}

/* Entries @first..+@n become taken (or free).  pool_lock held. */
static void pool_mark(uint32_t first, uint32_t n, bool taken)
{
	uint32_t i;

	for (i = first; i < first + n; i++) {
		uint64_t bit = UINT64_C(1) << (i % 64);

		pool_used[i / 64] = taken ? pool_used[i / 64] | bit : pool_used[i / 64] & ~bit;
	}
}

/* Entries @first..+@n are all free.  pool_lock held. */
static bool pool_free(uint32_t first, uint32_t n)
{
	uint32_t i;

	for (i = first; i < first + n; i++)
		if (pool_taken(i))
			return false;
	return true;
}

/* The first free range of 2 x @half entries whose index (the descriptor's
 * key) has @half as its low byte, as statctr_hist_record() reads it, or
 * NO_HIST.  pool_lock held. */
static uint32_t pool_find(uint32_t half)
{
	uint32_t at;

	for (at = half; at + 2 * half <= STATCTR_HIST_POOL; at += 256)
		if (pool_free(at, 2 * half))
			return at;
	return NO_HIST;
}

/* Gives back every range @seg's columns hold.  pool_lock held. */
static void pool_give_back(const struct statctr_seg *seg)
{
	const struct meta *m = &seg->meta;
	uint32_t c;

	for (c = 0; c < m->hdr->ncolumns; c++)
		if (seg->hist_pool[c] != NO_HIST)
			pool_mark(seg->hist_pool[c], range_of(m->columns[c].nbuckets), false);
}

/*
 * Takes a range for each histogram column of @seg and fills it: the
 * bounds, then UINT64_MAX, which no value exceeds, so the search never
 * steps past the last bound.  On failure the ranges taken so far stay
 * recorded in seg->hist_pool, for the caller to give back.  pool_lock held.
 */
static int pool_take(struct statctr_seg *seg)
{
	const struct meta *m = &seg->meta;
	uint32_t c, i, n, at;

	for (c = 0; c < m->hdr->ncolumns; c++) {
		const struct seg_column *col = &m->columns[c];

		if (col->kind != STATCTR_KIND_HISTOGRAM)
			continue;
		n = range_of(col->nbuckets);
		at = pool_find(half_of(col->nbuckets));
		if (at == NO_HIST)
			return errmsg_set(
			    ENOSPC,
			    "segment %s: column %s: no room for its %u padded bounds in "
			    "the histogram bounds pool (room for %u columns of that size "
			    "per process, held by the histograms of this process's other "
			    "segments)",
			    meta_string(m, m->hdr->name), meta_string(m, col->name), n,
			    STATCTR_HIST_POOL / 256);
		pool_mark(at, n, true);
		for (i = 0; i < n; i++)
			statctr_hist_pool[at + i] =
			    i < col->nbuckets ? m->bounds[col->first_bound + i] : UINT64_MAX;
		seg->hist_pool[c] = at;
	}
	return 0;
}

/* The descriptor (statctr.h, "Histograms") of the row of column @col
 * whose block is @block: integers only. */
static uint64_t descriptor(const struct statctr_seg *seg, const struct seg_column *col,
                           uint32_t block)
{
	/* block < ncells <= 2^24 (meta.c checked it): its byte offset fits 32
	 * bits.  The key's low byte is half (pool_find()). */
	return statctr_hist_desc((uint32_t)(block * sizeof(uint64_t)),
	                         seg->hist_pool[col - seg->meta.columns]);
}

/* Every writer slot's descriptor of every histogram id; the shared slot's stay 0. */
static void store_descriptors(struct statctr_seg *seg)
{
	statctr_id id;
	uint32_t s, block;

	for (id = 0; id < seg->ncells; id++) {
		const struct seg_column *col = meta_hist_of(&seg->meta, id, &block);
		uint64_t desc;

		if (!col)
			continue;
		desc = descriptor(seg, col, block);
		for (s = 0; s < seg->nslots; s++)
			atomic_store_explicit(&seg_slot_header(seg, s)->cells[id], desc,
			                      memory_order_relaxed);
	}
}

int hist_claim(struct statctr_seg *seg)
{
	uint32_t ncolumns = seg->meta.hdr->ncolumns;
	int err;

	if (seg->meta.hdr->nbounds == 0)
		return 0;
	seg->hist_pool = malloc(ncolumns * sizeof(*seg->hist_pool));
	if (!seg->hist_pool)
		return errmsg_set(ENOMEM, "out of memory for the histograms of segment %s",
		                  meta_string(&seg->meta, seg->meta.hdr->name));
	memset(seg->hist_pool, 0xff, ncolumns * sizeof(*seg->hist_pool)); /* NO_HIST */
	pthread_mutex_lock(&pool_lock); /* released below, on both paths */
	err = pool_take(seg);
	if (err)
		pool_give_back(seg);
	pthread_mutex_unlock(&pool_lock); /* taken above */
	if (err) {
		free(seg->hist_pool);
		seg->hist_pool = NULL;
		return err;
	}
	/* Before the rename: no slot is ever handed out or read without them. */
	store_descriptors(seg);
	return 0;
}

void hist_release(struct statctr_seg *seg)
{
	if (!seg->hist_pool)
		return;
	pthread_mutex_lock(&pool_lock); /* released below */
	pool_give_back(seg);
	pthread_mutex_unlock(&pool_lock); /* taken above */
	free(seg->hist_pool);
	seg->hist_pool = NULL;
}
