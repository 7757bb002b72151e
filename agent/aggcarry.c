/*
 * aggcarry.c - carry_over applied, by the aggregation thread
 * (aggregate_int.h; docs/agent.md, "Counters across writer restarts").
 *
 * Owns what a segment's generations carry: the next generation's carry,
 * from the final counts of a writer gone or the last ones served; a carry
 * doubted (its discontinuities moved) when the agent cannot vouch for it;
 * the cells resets zero in it; STATE_FILE.carry's records, written after
 * a change and read once before the first pass; a SIGHUP's adoption of the
 * old configuration's carry; and the values a result serves, its snapshot
 * plus its carry.  carry.c holds the counts' memory and the file's text.
 * Never takes a snapshot, publishes or calls Net-SNMP (its log lines go
 * through agg_log()).
 */
#include "aggregate_int.h"
#include "agent.h"
#include "carry.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

/* ------------------------------------------------------------------------
 * carry_over: the counts of earlier generations, per cell.
 */

/* What @snap's generation counted of @cv (which counts). */
static uint64_t snap_count(const struct statctr_snap *snap, const struct carry_cell *cv)
{
	switch (cv->what) {
	case CARRY_HIST_SUM:
		return statctr_snap_hist_sum(snap, cv->hist);
	case CARRY_HIST_BUCKET:
		return statctr_snap_hist_bucket(snap, cv->hist, cv->bucket);
	default:
		return statctr_snap_counter(snap, cv->id);
	}
}

struct carry_from {
	struct agg_carry *to;
	const struct agg_carry *carry; /* what the snapshot's values were served with */
	const struct statctr_snap *snap;
	uint64_t created_ns; /* of the snapshot's generation */
};

static uint64_t served_disc(const struct agg_carry *c, const struct statctr_snap *snap,
                            uint64_t created_ns, statctr_id id)
{
	uint64_t d = statctr_snap_discontinuity(snap, id);

	return c && id < c->ncells && c->disc[id] && d <= created_ns ? c->disc[id] : d;
}

static void add_served(const struct carry_cell *cv, void *arg)
{
	struct carry_from *f = arg;
	statctr_id id = cv->id;

	if (id >= f->to->ncells)
		return;
	if (carry_counts(cv))
		f->to->v[id] = (f->carry ? f->carry->v[id] : 0) + snap_count(f->snap, cv);
	if (carry_has_disc(cv))
		f->to->disc[id] = served_disc(f->carry, f->snap, f->created_ns, id);
}

/* The next generation's carry: every count @snap's generation served. */
static struct agg_carry *carry_after(const struct seg_watch *st, const struct statctr_snap *snap)
{
	struct carry_from f = {carry_new(st->decl->ncells), st->carry, snap, st->created_ns};

	if (f.to)
		carry_each(st->decl, false, add_served, &f);
	return f.to;
}

/* A writer gone or closed: its final counts, seen once per generation. */
void agg_carry_final(struct aggregator *agg, struct seg_watch *st, const struct statctr_snap *snap)
{
	struct agg_carry *next;

	if (!st->carry_over || st->next || !snap)
		return;
	next = carry_after(st, snap);
	pthread_mutex_lock(&agg->lock); /* agg_adopt_carry() reads it */
	st->next = next;
	pthread_mutex_unlock(&agg->lock);
	agg->carry_dirty = true;
}

/* @st's carry becomes @c (NULL: none); under agg->lock, for agg_adopt_carry(). */
static void carry_set(struct aggregator *agg, struct seg_watch *st, struct agg_carry *c)
{
	struct agg_carry *old = st->carry;

	pthread_mutex_lock(&agg->lock);
	st->carry = c;
	pthread_mutex_unlock(&agg->lock);
	carry_drop(old);
	agg->carry_dirty = true;
}

struct doubt_of {
	struct agg_carry *c;
	uint64_t now;
};

static void doubt_cell(const struct carry_cell *cv, void *arg)
{
	const struct doubt_of *d = arg;

	if (cv->id < d->c->ncells && carry_has_disc(cv))
		d->c->disc[cv->id] = d->now;
}

/*
 * A carry the agent cannot vouch for: @base's counts (NULL: none), and
 * every carried cell's discontinuity time moved to now, so that a poller
 * that saw more is told.  NULL when out of memory.
 */
static struct agg_carry *carry_doubted(const struct seg_watch *st, const struct agg_carry *base)
{
	struct doubt_of d = {base && base->ncells == st->decl->ncells ? carry_copy(base)
	                                                              : carry_new(st->decl->ncells),
	                     agg_realtime_now()};

	if (d.c)
		carry_each(st->decl, false, doubt_cell, &d);
	return d.c;
}

/* The first attach after the agent started without a carry it can trust. */
static void carry_doubt(struct aggregator *agg, struct seg_watch *st)
{
	agg_log(agg, LOG_WARNING,
	        "segment %s: no carried counts to continue (%s): its counters start from the "
	        "library's values, and their discontinuity times move to now\n",
	        st->decl->name, st->doubt);
	carry_set(agg, st, carry_doubted(st, NULL));
}

/*
 * The carry file's generation is gone: the writer restarted while the
 * agent was not running.  With that generation's final counts (next) the
 * count continues them, but a generation in between would be lost unseen;
 * without them, counts since the last agent's last change are lost.
 * Either way the discontinuity times move.
 */
static void carry_restored_on(struct aggregator *agg, struct seg_watch *st, struct agg_carry *next)
{
	agg_log(agg, LOG_WARNING,
	        "segment %s: its writer restarted while the agent was not running: %s; "
	        "discontinuity times move to now\n",
	        st->decl->name,
	        next ? "the counts continue its final counts, but a generation in between would be "
	               "lost"
	             : "the counts continue the carry file's, and the old generation's are lost");
	carry_set(agg, st, carry_doubted(st, next ? next : st->carry));
	carry_drop(next);
}

/* The last snapshot the agent served of @st's generation, or NULL. */
static const struct statctr_snap *last_served(const struct aggregator *agg,
                                              const struct seg_watch *st)
{
	const struct statctr_snap *snap =
	    agg->current ? agg->current->segs[st - agg->segs].snap : NULL;
	struct statctr_snap_stats ss;

	if (!snap)
		return NULL;
	statctr_snap_stats(snap, &ss);
	return ss.generation == st->generation ? snap : NULL;
}

/*
 * A new generation: it continues the counts of the one before.  Exact when
 * the agent saw that one's final counts (agg_carry_final()); otherwise from the
 * last values it served, and every carried cell's discontinuity moves to
 * the new generation's creation (counts were lost).
 */
void agg_carry_on(struct aggregator *agg, struct seg_watch *st)
{
	struct agg_carry *c = st->next;
	const struct statctr_snap *last;

	pthread_mutex_lock(&agg->lock);
	st->next = NULL;
	pthread_mutex_unlock(&agg->lock);
	if (st->carry_over && st->doubt) {
		carry_drop(c);
		carry_doubt(agg, st);
		return;
	}
	if (!st->carry_over || !st->generation) {
		carry_drop(c);
		return;
	}
	if (st->restored) {
		carry_restored_on(agg, st, c);
		return;
	}
	if (!c) {
		last = last_served(agg, st);
		c = last ? carry_after(st, last) : carry_copy(st->carry);
		if (c)
			memset(c->disc, 0, c->ncells * sizeof(c->disc[0]));
		agg_log(agg, LOG_WARNING,
		        "segment %s: its writer restarted before the agent saw its final counts: "
		        "counts since the last pass are lost, discontinuity times move\n",
		        st->decl->name);
	}
	carry_set(agg, st, c);
}

/* A reset's ranges, and the new carry they make (copied at the first cell that carried). */
struct reset_of {
	const struct agg_carry *from;
	struct agg_carry *to;
	bool nomem;
	const struct statctr_range *r;
	uint32_t n;
};

static void zero_carried(struct reset_of *z, uint64_t id)
{
	if (z->nomem || id >= z->from->ncells || (!z->from->v[id] && !z->from->disc[id]))
		return;
	if (!z->to && !(z->to = carry_copy(z->from))) {
		z->nomem = true;
		return;
	}
	z->to->v[id] = 0;
	z->to->disc[id] = 0;
}

/* A histogram's sum and buckets are reset with it (its id in a range). */
static void zero_block(const struct carry_cell *cv, void *arg)
{
	struct reset_of *z = arg;

	for (uint32_t i = 0; !carry_has_disc(cv) && i < z->n; i++)
		if (cv->hist >= z->r[i].first && cv->hist - z->r[i].first < z->r[i].count) {
			zero_carried(z, cv->id);
			return;
		}
}

/* Resets zero what the reset cells carried, in a new carry (results hold the old). */
void agg_carry_reset(struct aggregator *agg, struct seg_watch *st, const struct statctr_range *r,
                     uint32_t n)
{
	struct reset_of z = {st->carry, NULL, false, r, n};

	if (!st->carry)
		return;
	for (uint32_t i = 0; i < n; i++)
		for (uint64_t id = r[i].first; id < (uint64_t)r[i].first + r[i].count; id++)
			zero_carried(&z, id);
	carry_each(st->decl, true, zero_block, &z);
	if (z.nomem)
		carry_drop(z.to); /* out of memory: the carry stays */
	else if (z.to)
		carry_set(agg, st, z.to);
}

/* ------------------------------------------------------------------------
 * The carry file (carry.h): written by the thread after a pass or a reset
 * that changed a carry or a generation; read once, before the first pass.
 */

/* @st's record as the file keeps it: generation 0 while its carry is doubted. */
static struct carry_record record_of(const struct seg_watch *st)
{
	struct carry_record r = {.name = st->decl->name,
	                         .decl_hash = carry_decl_hash(st->decl),
	                         .generation = st->doubt ? 0 : st->generation,
	                         .created_ns = st->doubt ? 0 : st->created_ns,
	                         .carry = st->doubt ? NULL : st->carry,
	                         .next = st->doubt ? NULL : st->next};

	return r;
}

void agg_carry_save(struct aggregator *agg)
{
	struct carry_record *recs;
	const char *why = "out of memory";
	uint32_t n = 0;
	int err = -ENOMEM;

	if (!agg->carry_dirty || !agg->carry_path)
		return;
	agg->carry_dirty = false;
	recs = malloc((agg->cfg->nsegments ? agg->cfg->nsegments : 1) * sizeof(*recs));
	for (uint32_t i = 0; recs && i < agg->cfg->nsegments; i++) {
		const struct seg_watch *st = &agg->segs[i];

		if (st->carry_over && (st->generation || st->doubt))
			recs[n++] = record_of(st);
	}
	if (recs)
		err = carry_file_write(agg->carry_path, recs, n, &why);
	free(recs);
	if (err < 0 && err != agg->carry_err)
		agg_log(agg, LOG_WARNING,
		        "carry file %s: %s: %s (an agent restart will not continue the counts "
		        "carried since)\n",
		        agg->carry_path, why, strerror(-err));
	agg->carry_err = err;
}

/* The records of the file, or why there are none, into the segments. */
static void carry_restore(struct aggregator *agg, struct seg_watch *st,
                          const struct carry_record *r)
{
	if (!st->carry_over || !r->name || r->doubt) { /* none kept */
		carry_drop(r->carry);
		carry_drop(r->next);
	}
	if (!st->carry_over || !r->name) /* never carried: nothing to doubt */
		return;
	if (r->doubt) {
		st->doubt = r->doubt;
		agg_log(agg, LOG_WARNING, "carry file %s: segment %s: %s: not continued\n",
		        agg->carry_path, st->decl->name, r->doubt);
		return;
	}
	st->generation = r->generation;
	st->created_ns = r->created_ns;
	st->carry = (struct agg_carry *)r->carry;
	st->next = (struct agg_carry *)r->next;
	st->adopted = true;
	st->restored = true;
}

static void carry_load(struct aggregator *agg)
{
	struct carry_record *recs =
	    calloc(agg->cfg->nsegments ? agg->cfg->nsegments : 1, sizeof(*recs));
	const char *doubt = NULL;
	char why[256];
	int err =
	    recs ? carry_file_read(agg->carry_path, agg->cfg, recs, why, sizeof(why)) : -ENOMEM;

	if (err == -ENOENT) {
		doubt = "no carry file yet";
		agg_log(agg, LOG_INFO, "carry file %s: none yet; it is written from now on\n",
		        agg->carry_path);
	} else if (err < 0) {
		doubt = "the carry file was refused";
		agg_log(agg, LOG_WARNING,
		        "carry file %s: %s: refused, nothing carried over from it; the "
		        "discontinuity times of carried counters move\n",
		        agg->carry_path, recs ? why : "out of memory");
	}
	for (uint32_t i = 0; i < agg->cfg->nsegments; i++) {
		if (err < 0 && agg->segs[i].carry_over)
			agg->segs[i].doubt = doubt;
		else if (err == 0)
			carry_restore(agg, &agg->segs[i], &recs[i]);
	}
	free(recs);
}

int agg_keep_carry(struct aggregator *agg, const char *state_file, bool load)
{
	size_t size = state_file ? strlen(state_file) + sizeof(".carry") : 0;

	if (state_file && !(agg->carry_path = malloc(size)))
		return errmsg_set(ENOMEM, "out of memory");
	if (state_file)
		snprintf(agg->carry_path, size, "%s.carry", state_file);
	agg->carry_dirty = true;
	if (!load)
		return 0;
	if (agg->carry_path) {
		carry_load(agg);
		return 0;
	}
	for (uint32_t i = 0; i < agg->cfg->nsegments; i++)
		if (agg->segs[i].carry_over)
			agg->segs[i].doubt = "no agent.state_file keeps them across agent restarts";
	return 0;
}

/* ------------------------------------------------------------------------
 * What a result serves: its snapshot's values plus their carry.
 */

uint64_t agg_counter(const struct agg_segment *as, statctr_id id)
{
	const struct agg_carry *c = as->carry;

	return statctr_snap_counter(as->snap, id) + (c && id < c->ncells ? c->v[id] : 0);
}

/* Histogram @id's carried sum and buckets (nbuckets + 2 values), or NULL; *@nb its buckets. */
static const uint64_t *hist_carried(const struct agg_segment *as, statctr_id id, uint32_t *nb)
{
	const struct agg_carry *c = as->carry;
	statctr_id b = c ? carry_hist_block(as->decl, id, nb) : 0;

	return b && b + *nb + 2 <= c->ncells ? &c->v[b] : NULL;
}

uint64_t agg_hist_cumulative(const struct agg_segment *as, statctr_id id, uint32_t b)
{
	uint32_t nb = 0;
	const uint64_t *c = hist_carried(as, id, &nb);
	uint64_t total = 0;

	for (uint32_t k = 0; k <= b; k++)
		total += statctr_snap_hist_bucket(as->snap, id, k) + (c && k <= nb ? c[1 + k] : 0);
	return total;
}

uint64_t agg_hist_count(const struct agg_segment *as, statctr_id id)
{
	uint32_t nb = 0;
	const uint64_t *c = hist_carried(as, id, &nb);
	uint64_t total = statctr_snap_hist_count(as->snap, id);

	for (uint32_t k = 0; c && k <= nb; k++)
		total += c[1 + k];
	return total;
}

uint64_t agg_hist_sum(const struct agg_segment *as, statctr_id id)
{
	uint32_t nb = 0;
	const uint64_t *c = hist_carried(as, id, &nb);

	return statctr_snap_hist_sum(as->snap, id) + (c ? c[0] : 0);
}

uint64_t agg_discontinuity(const struct agg_segment *as, statctr_id id)
{
	return served_disc(as->carry, as->snap, as->created_ns, id);
}

void agg_set_carry_over(struct aggregator *agg, const bool *on)
{
	for (uint32_t i = 0; i < agg->cfg->nsegments; i++)
		agg->segs[i].carry_over = on ? on[i] : true;
}

/* @st continues @from (the same segment of the previous configuration). */
static int adopt_segment(struct seg_watch *st, const struct seg_watch *from)
{
	if (!st->carry_over || !from->carry_over)
		return 0;
	if (st->decl->ncells != from->decl->ncells ||
	    carry_decl_hash(st->decl) != carry_decl_hash(from->decl)) {
		/* Its cells mean something else now: what they carried is not served. */
		if (from->carry || from->next || from->doubt)
			st->doubt = "its declaration changed on SIGHUP";
		return 0;
	}
	st->doubt = from->doubt;
	st->restored = from->restored;
	st->generation = from->generation;
	st->created_ns = from->created_ns;
	st->adopted = from->generation != 0;
	st->carry = carry_copy(from->carry);
	st->next = carry_copy(from->next);
	if ((from->carry && !st->carry) || (from->next && !st->next))
		return errmsg_set(ENOMEM, "out of memory");
	return 0;
}

int agg_adopt_carry(struct aggregator *agg, struct aggregator *old)
{
	int err = 0;

	if (!old)
		return 0;
	/* old's thread changes these under its lock (carry_set(), note_generation()). */
	pthread_mutex_lock(&old->lock);
	for (uint32_t i = 0; !err && i < agg->cfg->nsegments; i++)
		for (uint32_t j = 0; j < old->cfg->nsegments; j++)
			if (strcmp(agg->segs[i].decl->name, old->segs[j].decl->name) == 0)
				err = adopt_segment(&agg->segs[i], &old->segs[j]);
	pthread_mutex_unlock(&old->lock);
	return err;
}

uint64_t agg_row_discontinuity(const struct agg_segment *as, statctr_id first, uint32_t ncolumns)
{
	uint64_t latest = as->disc_floor_ns;

	for (uint32_t c = 0; c < ncolumns; c++) {
		uint64_t d = agg_discontinuity(as, first + c);

		if (d > latest)
			latest = d;
	}
	return latest;
}
