/*
 * aggcarry.c - carry_over applied, by the aggregation thread
 * (aggregate_int.h; docs/agent.md, "Counters across writer restarts").
 *
 * Owns what a segment's generations carry: the next generation's carry,
 * from the final counts of a writer gone or the last ones served (a
 * dynamic row's by its name); each pass's binding of its dynamic rows to
 * the counts their names carry; a carry
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

/* What @c adds to cell @id: its count carried, 0 when none. */
static uint64_t carried(const struct agg_carry *c, statctr_id id)
{
	struct carry_slot at;

	return c && carry_at(c, id, &at) ? *at.v : 0;
}

/*
 * The discontinuity served with @c of cell @id of @snap (of the generation
 * created at @created_ns): the carried one while the library's is no later
 * than the one it stands for, and a dynamic row's at least @c's floor.
 */
static uint64_t served_disc(const struct agg_carry *c, const struct statctr_snap *snap,
                            uint64_t created_ns, statctr_id id)
{
	uint64_t d = statctr_snap_discontinuity(snap, id);
	struct carry_slot at;

	if (!c)
		return d;
	if (carry_at(c, id, &at) && *at.disc && d <= (at.dynamic ? at.since : created_ns))
		d = *at.disc;
	return at.dynamic && d < c->floor_ns ? c->floor_ns : d;
}

struct carry_from {
	struct agg_carry *to;
	const struct agg_carry *carry; /* what the snapshot's values were served with */
	const struct statctr_snap *snap;
	uint64_t created_ns; /* of the snapshot's generation */
	uint32_t first;      /* the dynamic row's first value in to->rows */
};

/* What @f's snapshot served of @cv, into *@v and *@disc. */
static void served_into(const struct carry_from *f, const struct carry_cell *cv, uint64_t *v,
                        uint64_t *disc)
{
	if (carry_counts(cv))
		*v = carried(f->carry, cv->id) + snap_count(f->snap, cv);
	if (carry_has_disc(cv))
		*disc = served_disc(f->carry, f->snap, f->created_ns, cv->id);
}

static void add_served(const struct carry_cell *cv, void *arg)
{
	struct carry_from *f = arg;

	if (cv->id < f->to->ncells)
		served_into(f, cv, &f->to->v[cv->id], &f->to->disc[cv->id]);
}

static void add_served_row(const struct carry_cell *cv, void *arg)
{
	struct carry_from *f = arg;
	uint32_t i = f->first + cv->off;

	served_into(f, cv, &f->to->rows->v[i], &f->to->rows->disc[i]);
}

/* Calls @fn for each dynamic row present in @snap: its table, row and name. */
static void each_present_row(const struct statctr_segment_decl *d, const struct statctr_snap *snap,
                             void (*fn)(uint32_t t, uint32_t r, const char *name, void *arg),
                             void *arg)
{
	for (uint32_t t = 0; t < d->ntables; t++)
		for (uint32_t r = 0; d->tables[t].dynamic && r < d->tables[t].nrows; r++) {
			const char *name = statctr_snap_row_name(snap, t, r);

			if (name)
				fn(t, r, name, arg);
		}
}

struct rows_size {
	const struct statctr_segment_decl *d;
	uint32_t n, nvalues;
	size_t textlen;
};

static void size_row(uint32_t t, uint32_t r, const char *name, void *arg)
{
	struct rows_size *z = arg;

	(void)r;
	z->n++;
	z->nvalues += carry_row_values(&z->d->tables[t]);
	z->textlen += strlen(name) + 1;
}

struct rows_fill {
	struct carry_from *f;
	const struct statctr_segment_decl *d;
	uint32_t i, nvalues; /* the rows and values filled */
	size_t at;           /* in the text */
};

/* Row @r of table @t, named @name, carries what it served, by its name. */
static void fill_row(uint32_t t, uint32_t r, const char *name, void *arg)
{
	struct rows_fill *z = arg;
	struct carry_rows *rows = z->f->to->rows;
	struct carry_row *row = &rows->row[z->i];

	*row = (struct carry_row){t, z->nvalues, rows->text + z->at};
	memcpy(rows->text + z->at, name, strlen(name) + 1);
	z->at += strlen(name) + 1;
	z->i++;
	z->nvalues += carry_row_values(&z->d->tables[t]);
	z->f->first = row->first;
	carry_each_row(z->d, t, r, add_served_row, z->f);
}

/* The dynamic rows @f's snapshot ends with, by name, into f->to; false when out of memory. */
static bool rows_after(struct carry_from *f, const struct statctr_segment_decl *d)
{
	struct rows_size z = {d, 0, 0, 0};
	struct rows_fill fill = {f, d, 0, 0, 0};

	each_present_row(d, f->snap, size_row, &z);
	if (!z.n)
		return true;
	if (!(f->to->rows = carry_rows_new(z.n, z.nvalues, z.textlen)))
		return false;
	each_present_row(d, f->snap, fill_row, &fill);
	carry_rows_sort(f->to->rows);
	return true;
}

/*
 * The next generation's carry: every count @snap's generation served, its
 * dynamic rows' by the names they had in @snap (a name the generation no
 * longer had carries nothing).
 */
static struct agg_carry *carry_after(const struct seg_watch *st, const struct statctr_snap *snap)
{
	struct carry_from f = {carry_new(st->decl), st->carry, snap, st->created_ns, 0};

	if (f.to)
		carry_each(st->decl, add_served, &f);
	if (f.to && !rows_after(&f, st->decl)) {
		carry_drop(f.to);
		return NULL;
	}
	return f.to;
}

/* A writer gone or closed: its final counts, seen once per generation. */
void agg_carry_final(struct aggregator *agg, struct seg_watch *st, const struct statctr_snap *snap)
{
	struct agg_carry *next;

	if (!st->carry_over || st->next || !snap)
		return;
	agg_carry_bind(agg, st, snap); /* a row the passes never saw, or another name */
	next = carry_after(st, snap);
	pthread_mutex_lock(&agg->lock); /* agg_adopt_carry() reads it */
	st->next = next;
	pthread_mutex_unlock(&agg->lock);
	agg->carry_dirty = true;
}

/* @st's carry becomes @c (NULL: none); under agg->lock, for agg_adopt_carry(). */
static void carry_swap(struct aggregator *agg, struct seg_watch *st, struct agg_carry *c)
{
	struct agg_carry *old = st->carry;

	pthread_mutex_lock(&agg->lock);
	st->carry = c;
	pthread_mutex_unlock(&agg->lock);
	carry_drop(old);
}

/* The same, for the carry file too. */
static void carry_set(struct aggregator *agg, struct seg_watch *st, struct agg_carry *c)
{
	carry_swap(agg, st, c);
	agg->carry_dirty = true;
}

/* ------------------------------------------------------------------------
 * Dynamic rows, carried by name: each pass binds the rows of its snapshot
 * to the counts their names carry.  A name's first row seen this
 * generation keeps its carried discontinuity while the library's is no
 * later than that row's was then: a row added again (under the name, at
 * any index) or reset moves it.  The binding is not written to the carry
 * file, the names' counts and that discontinuity (since) are: an agent
 * restarted on the same generation binds its rows again at its first pass.
 */

struct bind_of {
	const struct statctr_snap *snap;
	const struct statctr_segment_decl *d;
	const struct agg_carry *from;
	struct agg_carry *to; /* a copy, at the first change */
	uint32_t first;       /* the row's name's first value, or CARRY_UNBOUND */
	bool nomem;
};

static void bind_cell(const struct carry_cell *cv, void *arg)
{
	struct bind_of *b = arg;
	uint32_t want = b->first == CARRY_UNBOUND ? CARRY_UNBOUND : b->first + cv->off;
	const struct agg_carry *c = b->to ? b->to : b->from;
	bool since = want != CARRY_UNBOUND && !c->rows->since[want];

	if (b->nomem || cv->id >= c->ncells || (c->src[cv->id] == want && !since))
		return;
	if (!b->to && !(b->to = carry_copy(b->from))) {
		b->nomem = true;
		return;
	}
	b->to->src[cv->id] = want;
	if (since) /* a bucket block's cells have the histogram's */
		b->to->rows->since[want] =
		    statctr_snap_discontinuity(b->snap, carry_has_disc(cv) ? cv->id : cv->hist);
}

static void bind_row(uint32_t t, uint32_t r, const char *name, void *arg)
{
	struct bind_of *b = arg;
	const struct carry_row *row = carry_rows_find(b->from->rows, t, name);

	b->first = row ? row->first : CARRY_UNBOUND;
	carry_each_row(b->d, t, r, bind_cell, b);
}

void agg_carry_bind(struct aggregator *agg, struct seg_watch *st, const struct statctr_snap *snap)
{
	struct bind_of b = {snap, st->decl, st->carry, NULL, CARRY_UNBOUND, false};

	if (!st->carry || !st->carry->rows || !st->carry->src)
		return;
	each_present_row(st->decl, snap, bind_row, &b);
	if (b.nomem) {
		carry_drop(b.to);
		agg_log(agg, LOG_ERR,
		        "segment %s: out of memory binding dynamic rows to their "
		        "carried counts\n",
		        st->decl->name);
	} else if (b.to) {
		carry_set(agg, st, b.to); /* the file keeps when a name was first bound */
	}
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
	                                                              : carry_new(st->decl),
	                     agg_realtime_now()};

	if (!d.c)
		return NULL;
	carry_each(st->decl, doubt_cell, &d);
	carry_unbind(d.c);
	d.c->floor_ns = d.now; /* the dynamic rows' */
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

/* Counts were lost: @c's discontinuities are the library's, its rows bound anew. */
static void carry_forget_disc(struct agg_carry *c)
{
	memset(c->disc, 0, c->ncells * sizeof(c->disc[0]));
	if (c->rows)
		memset(c->rows->disc, 0, c->rows->nvalues * sizeof(c->rows->disc[0]));
	carry_unbind(c);
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
			carry_forget_disc(c);
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
};

/* z->to, copied from z->from at the first change; NULL when out of memory. */
static struct agg_carry *reset_copy(struct reset_of *z)
{
	if (!z->to && !z->nomem && !(z->to = carry_copy(z->from)))
		z->nomem = true;
	return z->to;
}

static void zero_carried(struct reset_of *z, uint64_t id)
{
	struct carry_slot at;

	if (!carry_at(z->from, id, &at) || (!*at.v && !*at.disc) || !reset_copy(z))
		return;
	carry_at(z->to, id, &at);
	*at.v = 0;
	*at.disc = 0;
}

/* Cell @id reset: with a histogram, its sum and buckets. */
static void zero_cell(struct reset_of *z, const struct statctr_segment_decl *d, uint64_t id)
{
	uint32_t nb = 0;
	statctr_id b = carry_hist_block(d, id, &nb);

	zero_carried(z, id);
	for (uint32_t k = 0; b && k < nb + 2; k++)
		zero_carried(z, b + k);
}

/* Dynamic table @t reset whole: every name it carries, bound to a row yet or not. */
static void zero_names(struct reset_of *z, const struct statctr_segment_decl *d, uint32_t t)
{
	const struct carry_rows *rows = z->from->rows;
	uint32_t nv = carry_row_values(&d->tables[t]);

	for (uint32_t i = 0; rows && i < rows->n; i++)
		if (rows->row[i].table == t && reset_copy(z)) {
			memset(&z->to->rows->v[rows->row[i].first], 0, nv * sizeof(uint64_t));
			memset(&z->to->rows->disc[rows->row[i].first], 0, nv * sizeof(uint64_t));
		}
}

/* Whether @r covers every cell of table @td. */
static bool covers_table(const struct statctr_range *r, const struct statctr_table_decl *td)
{
	return r->first <= td->first_cell &&
	       (uint64_t)r->first + r->count >= (uint64_t)td->first_cell + td->nrows * td->ncolumns;
}

/* Resets zero what the reset cells carried, in a new carry (results hold the old). */
void agg_carry_reset(struct aggregator *agg, struct seg_watch *st, const struct statctr_range *r,
                     uint32_t n)
{
	struct reset_of z = {st->carry, NULL, false};
	const struct statctr_segment_decl *d = st->decl;

	if (!st->carry)
		return;
	for (uint32_t i = 0; i < n; i++) {
		for (uint64_t id = r[i].first; id < (uint64_t)r[i].first + r[i].count; id++)
			zero_cell(&z, d, id);
		for (uint32_t t = 0; t < d->ntables; t++)
			if (d->tables[t].dynamic && covers_table(&r[i], &d->tables[t]))
				zero_names(&z, d, t);
	}
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
	                         .next = st->doubt ? NULL : st->next,
	                         .decl = st->decl};

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
	return statctr_snap_counter(as->snap, id) + carried(as->carry, id);
}

/* Histogram @id's carried block (its sum, then buckets), or 0; *@nb its buckets. */
static statctr_id hist_carried(const struct agg_segment *as, statctr_id id, uint32_t *nb)
{
	return as->carry ? carry_hist_block(as->decl, id, nb) : 0;
}

uint64_t agg_hist_cumulative(const struct agg_segment *as, statctr_id id, uint32_t b)
{
	uint32_t nb = 0;
	statctr_id c = hist_carried(as, id, &nb);
	uint64_t total = 0;

	for (uint32_t k = 0; k <= b; k++)
		total += statctr_snap_hist_bucket(as->snap, id, k) +
		         (c && k <= nb ? carried(as->carry, c + 1 + k) : 0);
	return total;
}

uint64_t agg_hist_count(const struct agg_segment *as, statctr_id id)
{
	uint32_t nb = 0;
	statctr_id c = hist_carried(as, id, &nb);
	uint64_t total = statctr_snap_hist_count(as->snap, id);

	for (uint32_t k = 0; c && k <= nb; k++)
		total += carried(as->carry, c + 1 + k);
	return total;
}

uint64_t agg_hist_sum(const struct agg_segment *as, statctr_id id)
{
	uint32_t nb = 0;
	statctr_id c = hist_carried(as, id, &nb);

	return statctr_snap_hist_sum(as->snap, id) + (c ? carried(as->carry, c) : 0);
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
	st->file_dev = from->file_dev;
	st->file_ino = from->file_ino;
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
