/*
 * aggregate.c - the aggregation thread: views, snapshots, published results.
 *
 * Owns one read-only view per configured segment (opened when the segment
 * appears, followed across writer restarts, closed when it goes away or
 * becomes unreadable: truncated, overwritten, owned by someone else), the
 * thread that uses them, and every result it published.  Never stores to a
 * segment; stores to a control file only through the library (copy
 * requests, resets).  Logs a segment's changes of state once, not every
 * pass.  Never calls Net-SNMP from its thread.  Its parts share
 * aggregate_int.h: aggreset.c serves resets.
 *
 * THREADS
 *
 * The aggregation thread (agg_start(); before it, the creator) alone uses
 * the views, the spare snapshots, the statistics and the pass being built.
 * A snapshot waits up to ~100 ms for each slot whose writer is stuck inside
 * a transaction, so a pass may take seconds: the SNMP thread never waits
 * for one.  What the two threads share is under agg->lock, held only for
 * pointer updates and copies, never across a snapshot or a log call:
 *   - results: every published result not yet recycled, each with a
 *     reference count (+1 while it is the current one, +1 per
 *     agg_acquire()).  A result is immutable once published; the mutex
 *     release in publish() pairs with the acquire in agg_acquire(), so a
 *     reader sees every byte the pass wrote.  Only the aggregation thread
 *     adds results, recycles those nobody references (their snapshots
 *     become spares, or are freed) and frees them.
 *   - reset: agg_reset()'s request and each segment's reset rate limit
 *     (aggreset.c, whose top comment says how the request moves).
 *   - log: lines the thread queued for agg_flush_log() (Net-SNMP's logging
 *     is not thread-safe); the thread writes a byte to wake_fd after each,
 *     and after each result it publishes (the first makes agg_ready(): a
 *     SIGHUP's switch is due; every one may change an interface's state,
 *     which traps.c notifies within the pass).
 *   - stop: set by agg_destroy(); the thread checks it between segments.
 *
 * Epochs (aggepoch.c) are the thread's too: the schedule runs in a pass,
 * before the segment's snapshot, and a SET's epoch start comes with its
 * resets (agg_reset()).  A result holds its own copy of each segment's
 * kept epochs (room for every segment's keep after its segments), read
 * before the snapshot it publishes them with.
 *
 * A snapshot is retaken (statctr_snap_retake(), saving the page faults of a
 * fresh one) only from a spare: a snapshot no listed result and no part of
 * the pass being built refers to.  A refresh after a reset publishes a copy
 * of the current result with one segment retaken, so results may share a
 * snapshot: give_back() checks every holder before it recycles one.
 */
#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>

#include "aggregate_int.h"
#include "agent.h"
#include "carry.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* What attach() found. */
enum presence { PRESENT, ABSENT, UNREADABLE };

uint64_t agg_clock_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t agg_realtime_now(void)
{
	return agg_clock_ns(CLOCK_REALTIME);
}

struct timespec agg_monotonic_at(uint64_t ns)
{
	struct timespec ts = {.tv_sec = (time_t)(ns / 1000000000u),
	                      .tv_nsec = (long)(ns % 1000000000u)};

	return ts;
}

/* ------------------------------------------------------------------------
 * Logging: straight to Net-SNMP in the creator's thread, queued in ours.
 */

static void queue_line(struct aggregator *agg, int priority, const char *fmt, va_list ap)
{
	struct log_queue *q = &agg->log;

	pthread_mutex_lock(&agg->lock);
	if (q->len == LOG_LINES) {
		q->dropped++;
	} else {
		unsigned i = (q->head + q->len++) % LOG_LINES;

		q->lines[i].priority = priority;
		vsnprintf(q->lines[i].text, sizeof(q->lines[i].text), fmt, ap);
	}
	pthread_mutex_unlock(&agg->lock);
	if (agg->wake_fd >= 0 && write(agg->wake_fd, "", 1) < 0) {
		/* full pipe: the main loop is awake already */
	}
}

void agg_log(struct aggregator *agg, int priority, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (agg->threaded)
		queue_line(agg, priority, fmt, ap);
	else
		snmp_vlog(priority, fmt, ap);
	va_end(ap);
}

void agg_flush_log(struct aggregator *agg)
{
	struct log_queue *q = &agg->log;
	char text[LOG_LINE_SZ];
	unsigned dropped;
	int priority;

	for (;;) {
		pthread_mutex_lock(&agg->lock);
		dropped = q->dropped;
		q->dropped = 0;
		if (!q->len) {
			pthread_mutex_unlock(&agg->lock);
			break;
		}
		priority = q->lines[q->head].priority;
		memcpy(text, q->lines[q->head].text, sizeof(text));
		q->head = (q->head + 1) % LOG_LINES;
		q->len--;
		pthread_mutex_unlock(&agg->lock);
		snmp_log(priority, "%s", text);
	}
	if (dropped)
		snmp_log(LOG_WARNING, "aggregation: %u log lines dropped (queue full)\n", dropped);
}

/* ------------------------------------------------------------------------
 * One segment: its view and its snapshot.
 */

/* @detail comes from the library or the agent; always a %s argument, never a format. */
static void log_error_once(struct aggregator *agg, struct seg_watch *st, int err, const char *what,
                           const char *detail)
{
	if (st->last_error == err)
		return;
	st->last_error = err;
	agg_log(agg, LOG_WARNING, "segment %s (%s): %s: %s\n", st->decl->name, st->decl->path, what,
	        detail);
}

/* A histogram's bounds are served from the configuration: the segment's must be the same. */
static bool buckets_match(const struct statctr_view *view, statctr_id id,
                          const struct statctr_column_decl *cd)
{
	const uint64_t *bounds = NULL;
	uint32_t n = statctr_view_hist_buckets(view, id, &bounds);

	if (cd->kind != STATCTR_KIND_HISTOGRAM)
		return n == 0;
	return n == cd->nbuckets && memcmp(bounds, cd->bounds, n * sizeof(*bounds)) == 0;
}

static bool table_matches(const struct statctr_view *view, uint32_t t,
                          const struct statctr_table_decl *td)
{
	struct statctr_table_info ti;
	struct statctr_column_info ci;

	if (statctr_view_table(view, t, &ti) < 0 || strcmp(ti.name, td->name) != 0 ||
	    ti.oid != td->oid || ti.nrows != td->nrows || ti.ncolumns != td->ncolumns ||
	    ti.first_cell != td->first_cell)
		return false;
	for (uint32_t c = 0; c < td->ncolumns; c++)
		if (statctr_view_column(view, t, c, &ci) < 0 ||
		    strcmp(ci.name, td->columns[c].name) != 0 || ci.kind != td->columns[c].kind ||
		    !buckets_match(view, td->first_cell + c, &td->columns[c]))
			return false;
	return true;
}

/* The configuration is what the agent serves: a segment built from another one is refused. */
static bool layout_matches(const struct statctr_view *view, const struct statctr_segment_decl *d)
{
	struct statctr_seg_info info;

	statctr_view_info(view, &info);
	if (info.ncells != d->ncells || info.ntables != d->ntables)
		return false;
	for (uint32_t t = 0; t < d->ntables; t++)
		if (!table_matches(view, t, &d->tables[t]))
			return false;
	return true;
}

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
static void carry_final(struct aggregator *agg, struct seg_watch *st,
                        const struct statctr_snap *snap)
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
 * the agent saw that one's final counts (carry_final()); otherwise from the
 * last values it served, and every carried cell's discontinuity moves to
 * the new generation's creation (counts were lost).
 */
static void carry_on(struct aggregator *agg, struct seg_watch *st)
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

static void note_generation(struct aggregator *agg, struct seg_watch *st, const char *how)
{
	struct statctr_seg_info info;
	bool same;

	st->compatible = layout_matches(st->view, st->decl);
	st->last_error = 0;
	statctr_view_info(st->view, &info);
	/* A carry file's generation: the same number and creation time. */
	same = info.generation == st->generation &&
	       (!st->restored || info.created_ns == st->created_ns);
	if (st->adopted && same) {
		st->generations++; /* a reload's (or a restart's) first attach continues */
		st->disc_floor_ns = 0;
	} else if (!same) {
		st->generations++;
		st->disc_floor_ns = 0; /* the new generation's creation is the discontinuity */
		carry_on(agg, st);
	} else {
		/* Back to a generation we dropped: its values may have moved
		 * backwards.  Its writer did not restart after all (a header
		 * that read closed or corrupt was restored): a carry taken from
		 * it for a next generation would count it twice. */
		st->disc_floor_ns = agg_realtime_now();
		how = "reattached to";
		pthread_mutex_lock(&agg->lock);
		carry_drop(st->next);
		st->next = NULL;
		pthread_mutex_unlock(&agg->lock);
	}
	pthread_mutex_lock(&agg->lock); /* agg_adopt_carry() reads them */
	st->adopted = false;
	st->restored = false;
	st->doubt = NULL;
	st->generation = info.generation;
	st->created_ns = info.created_ns;
	pthread_mutex_unlock(&agg->lock);
	agg->carry_dirty = true;
	agg_log(agg, LOG_INFO, "segment %s: %s %s (writer pid %d)%s\n", st->decl->name, how,
	        st->decl->path, (int)info.creator_pid,
	        st->compatible ? "" : ": layout differs from the configuration, not served");
}

static void detach(struct aggregator *agg, struct seg_watch *st, const char *why)
{
	statctr_view_close(st->view);
	st->view = NULL;
	st->last_error = 0;
	agg_log(agg, LOG_INFO, "segment %s: %s, detached\n", st->decl->name, why);
}

/* The mapping no longer holds a valid segment: drop it; the next pass reopens. */
static void drop(struct aggregator *agg, struct seg_watch *st, int err, const char *why,
                 const char *detail)
{
	log_error_once(agg, st, err, why, detail);
	statctr_view_close(st->view);
	st->view = NULL;
}

static enum presence open_view(struct aggregator *agg, struct seg_watch *st)
{
	int err = statctr_view_open_owned(st->decl->path, agg->owner, &st->view);

	if (err == 0)
		err = statctr_view_set_sums_only(st->view, !agg->slot_values);
	if (err == 0) {
		note_generation(agg, st, "attached to");
		return PRESENT;
	}
	st->view = NULL;
	if (err == -ENOENT) {
		st->last_error = 0;
		return ABSENT;
	}
	log_error_once(agg, st, err, "cannot open", statctr_errmsg());
	return UNREADABLE;
}

/*
 * Opens, follows or drops the view.  statctr_view_refresh() also notices a
 * file truncated or overwritten in place: such a view is dropped, and the
 * next pass reopens whatever valid segment the path holds by then.
 */
static enum presence attach(struct aggregator *agg, struct seg_watch *st)
{
	int err;

	if (!st->view)
		return open_view(agg, st);
	err = statctr_view_refresh(st->view);
	if (err == 1) {
		note_generation(agg, st, "writer restarted, reattached to");
	} else if (err == -ENOENT) {
		detach(agg, st, "removed");
	} else if (err == -EPROTO || err == -ESTALE || err == -EINVAL) {
		drop(agg, st, err, "corrupt", statctr_errmsg());
		return UNREADABLE;
	} else if (err < 0) {
		log_error_once(agg, st, err, "cannot follow a restart", statctr_errmsg());
	}
	return st->view ? PRESENT : ABSENT;
}

static enum agg_status status_of(enum statctr_seg_status s)
{
	if (s == STATCTR_SEG_STALE)
		return AGG_STALE;
	return s == STATCTR_SEG_GONE ? AGG_WRITER_GONE : AGG_ACTIVE;
}

static void take(struct aggregator *agg, struct seg_watch *st, struct agg_segment *out)
{
	struct statctr_snap *snap = st->spare;
	struct statctr_snap_stats ss;
	int err = st->fresh ? 0 : statctr_snap_retake(st->view, &snap);

	st->spare = NULL;
	st->fresh = false;
	if (err < 0) {
		out->status = AGG_STALE;
		if (err == -ESTALE)
			drop(agg, st, err, "truncated", statctr_errmsg());
		else
			log_error_once(agg, st, err, "snapshot failed", statctr_errmsg());
		return;
	}
	statctr_snap_stats(snap, &ss);
	/* STATCTR-MIB: busy = not read at a transaction boundary, stuck or dead. */
	agg->stats.retries += ss.retries;
	agg->stats.busy += ss.busy_slots + ss.dead_torn_slots;
	agg->stats.assisted += ss.assisted_slots;
	out->snap = snap;
	out->nslots = ss.nslots;
	out->slot_values = !(ss.flags & STATCTR_SNAP_SUMS_ONLY);
	out->ncpuslots = statctr_snap_cpu_slots(snap, NULL);
	out->busy_slots = ss.busy_slots + ss.dead_torn_slots;
}

/* Logged once per cause, as a snapshot's failures. */
static void schedule_epoch(struct aggregator *agg, struct seg_watch *st)
{
	int err = aggepoch_schedule(&st->epochs, st->view, agg_realtime_now());

	if (err < 0)
		log_error_once(agg, st, err, "scheduled epoch", errmsg_get());
	else if (err > 0)
		st->last_error = 0;
}

/* The segment's epochs, read before its snapshot, validated after it. */
static void take_with_epochs(struct aggregator *agg, struct seg_watch *st, bool can_start,
                             struct agg_segment *out, struct agg_epoch *room)
{
	uint32_t n = 0;

	if (st->epochs.keep && can_start)
		schedule_epoch(agg, st);
	if (st->epochs.keep)
		n = aggepoch_read(&st->epochs, st->view, room);
	take(agg, st, out);
	if (!out->snap || !n)
		return;
	out->epochs = room;
	out->nepochs = n;
	out->valid_intervals = aggepoch_validate(&st->epochs, out->snap, room, n);
}

/*
 * A writer gone or closed: its generation's final counts, which the view
 * still maps, go to the epoch file's carry (statctr_epoch_capture()), once
 * per generation, so that intervals across the restart stay exact even if
 * its files are removed before the next writer starts (docs/epochs.md).
 */
static void capture_epochs(struct aggregator *agg, struct seg_watch *st,
                           const struct statctr_seg_info *info)
{
	int err;

	if (!st->epochs.keep || !info->can_reset || st->captured == info->generation ||
	    (info->status != STATCTR_SEG_GONE && info->status != STATCTR_SEG_CLOSED))
		return;
	err = statctr_epoch_capture(st->view);
	if (err == 0 || err == -ENOENT)
		st->captured = info->generation;
	else if (err != -EBUSY)
		log_error_once(agg, st, err, "epoch capture", statctr_errmsg());
}

static void pass_segment(struct aggregator *agg, struct seg_watch *st, struct agg_segment *out,
                         struct agg_epoch *room)
{
	struct statctr_snap *final = NULL;
	struct statctr_seg_info info;
	enum presence presence = attach(agg, st);

	carry_drop(out->carry); /* a refresh's copy of the current result's */
	memset(out, 0, sizeof(*out));
	out->decl = st->decl;
	out->generations = st->generations;
	out->status = presence == UNREADABLE ? AGG_STALE : AGG_ABSENT;
	if (presence != PRESENT)
		return;
	statctr_view_info(st->view, &info);
	if (info.status == STATCTR_SEG_GONE && st->told_gone != info.generation) {
		st->told_gone = info.generation;
		agg_log(agg, LOG_WARNING,
		        "segment %s: writer pid %d died without closing it: its values are final "
		        "(writerGone)%s\n",
		        st->decl->name, (int)info.creator_pid,
		        st->carry_over && st->compatible
		            ? "; the next writer's counts continue them"
		            : "");
	}
	capture_epochs(agg, st, &info);
	if (info.status == STATCTR_SEG_CLOSED) {
		if (st->carry_over && !st->next && st->compatible &&
		    statctr_snap_take(st->view, &final) == 0) {
			carry_final(agg, st, final);
			statctr_snap_free(final);
		}
		detach(agg, st, "closed by its writer");
		return;
	}
	out->writer_pid = info.creator_pid;
	out->created_ns = info.created_ns;
	out->disc_floor_ns = st->disc_floor_ns;
	out->status = st->compatible ? status_of(info.status) : AGG_INCOMPATIBLE;
	if (!st->compatible)
		return;
	take_with_epochs(agg, st, info.can_reset && info.status == STATCTR_SEG_ACTIVE, out, room);
	out->can_reset = st->view && out->snap && info.can_reset;
	if (out->snap && info.status == STATCTR_SEG_GONE) /* taken after its writer died */
		carry_final(agg, st, out->snap);
	out->carry = out->snap ? carry_hold(st->carry) : NULL;
}

/* ------------------------------------------------------------------------
 * Results: built by the thread, published, referenced, recycled.
 */

static struct published *new_result(struct aggregator *agg)
{
	uint32_t n = agg->cfg->nsegments;
	struct published *p =
	    calloc(1, sizeof(*p) + n * sizeof(p->segs[0]) + agg->nroom * sizeof(struct agg_epoch));

	if (!p) {
		agg_log(agg, LOG_ERR, "aggregation: out of memory, serving the previous result\n");
		return NULL;
	}
	p->agg = agg;
	p->res.nsegments = n;
	p->res.segs = p->segs;
	p->room = (struct agg_epoch *)(p->segs + n);
	return p;
}

/* Segment @seg of @p's room for epochs. */
static struct agg_epoch *room_of(const struct aggregator *agg, struct published *p, uint32_t seg)
{
	return p->room + agg->segs[seg].epoch_room;
}

/* @to's segment @seg becomes @from, its epochs copied into @to's own room. */
static void copy_segment(const struct aggregator *agg, struct published *to, uint32_t seg,
                         const struct agg_segment *from)
{
	struct agg_epoch *room = room_of(agg, to, seg);
	const struct agg_carry *held = to->segs[seg].carry;

	to->segs[seg] = *from;
	carry_hold(from->carry);
	carry_drop(held);
	if (from->nepochs)
		memmove(room, from->epochs, from->nepochs * sizeof(*room));
	to->segs[seg].epochs = from->nepochs ? room : NULL;
}

static bool refers_to(const struct published *p, uint32_t n, uint32_t seg,
                      const struct statctr_snap *snap)
{
	return p && seg < n && p->segs[seg].snap == snap;
}

/*
 * One holder of @snap (segment @seg) lets go of it: if no listed result and
 * no part of the pass being built still holds it, it becomes the spare, or
 * is freed.  Called once per dropped reference, right when it is dropped,
 * so the last holder's call is the one that recycles it.  Under agg->lock
 * (the list), in the aggregation thread (spares, building).
 */
static void give_back(struct aggregator *agg, uint32_t seg, const struct statctr_snap *snap)
{
	struct seg_watch *st = &agg->segs[seg];

	if (!snap || refers_to(agg->building, agg->built, seg, snap))
		return;
	for (const struct published *p = agg->results; p; p = p->next)
		if (p->segs[seg].snap == snap)
			return;
	if (!st->spare)
		st->spare = (struct statctr_snap *)snap;
	else
		statctr_snap_free((struct statctr_snap *)snap);
}

/* Frees the listed results nobody references any more. */
static void recycle(struct aggregator *agg)
{
	pthread_mutex_lock(&agg->lock);
	for (struct published **pp = &agg->results; *pp;) {
		struct published *p = *pp;

		if (p->refs) {
			pp = &p->next;
			continue;
		}
		*pp = p->next;
		for (uint32_t i = 0; i < p->res.nsegments; i++) {
			give_back(agg, i, p->segs[i].snap);
			carry_drop(p->segs[i].carry);
		}
		free(p);
	}
	pthread_mutex_unlock(&agg->lock);
}

static void publish(struct aggregator *agg, struct published *p)
{
	struct published *old;

	p->res.stats = agg->stats;
	pthread_mutex_lock(&agg->lock);
	p->res.stats.resets_refused = agg->refused;
	p->refs = 1; /* as the current result */
	p->next = agg->results;
	agg->results = p;
	old = agg->current;
	agg->current = p;
	if (old)
		old->refs--;
	agg->fresh_wanted = false; /* p is as fresh as a pass can be */
	pthread_cond_broadcast(&agg->published);
	pthread_mutex_unlock(&agg->lock); /* pairs with the lock in agg_acquire() */
	recycle(agg);
	/* A new result: the first makes the aggregator ready (agg_ready()); any may carry
	 * a state change to notify (traps.c).  Wake the main loop. */
	if (agg->wake_fd >= 0 && write(agg->wake_fd, "", 1) < 0) {
		/* full pipe: the main loop is awake already */
	}
}

bool agg_ready(struct aggregator *agg)
{
	bool ready;

	pthread_mutex_lock(&agg->lock);
	ready = agg->current != NULL;
	pthread_mutex_unlock(&agg->lock);
	return ready;
}

const struct agg_result *agg_acquire(struct aggregator *agg)
{
	struct published *p;

	pthread_mutex_lock(&agg->lock); /* pairs with the unlock in publish() */
	p = agg->current;
	p->refs++;
	pthread_mutex_unlock(&agg->lock);
	return &p->res;
}

void agg_release(const struct agg_result *res)
{
	struct published *p =
	    (struct published *)((const char *)res - offsetof(struct published, res));
	struct aggregator *agg = p->agg;

	pthread_mutex_lock(&agg->lock);
	p->refs--; /* recycled by the thread's next recycle() */
	pthread_mutex_unlock(&agg->lock);
}

const struct agg_result *agg_result(const struct aggregator *agg)
{
	return &agg->current->res;
}

/* ------------------------------------------------------------------------
 * A refresh after a reset (aggreset.c).
 */

/*
 * Publishes the current result with segment @seg taken again, so a read
 * right after a reset sees it.  If the pass in progress took @seg already,
 * its copy is from before the reset: it gets the new one too.
 */
void agg_refresh_segment(struct aggregator *agg, uint32_t seg)
{
	struct published *p = new_result(agg);
	const struct statctr_snap *stale;

	if (!p)
		return;
	for (uint32_t i = 0; i < p->res.nsegments; i++)
		copy_segment(agg, p, i, &agg->current->segs[i]);
	p->res.taken_ns = agg->current->res.taken_ns;
	p->start_mono = agg->current->start_mono; /* as old as the rest of it */
	pass_segment(agg, &agg->segs[seg], &p->segs[seg], room_of(agg, p, seg));
	if (agg->building && seg < agg->built) {
		stale = agg->building->segs[seg].snap;
		copy_segment(agg, agg->building, seg, &p->segs[seg]);
		/*
		 * Given back now, as the pass's reference goes: publish() may
		 * recycle the current result, the stale snapshot's other holder,
		 * and each dropped reference must be checked against the rest.
		 */
		pthread_mutex_lock(&agg->lock);
		give_back(agg, seg, stale);
		pthread_mutex_unlock(&agg->lock);
	}
	publish(agg, p);
}

/* ------------------------------------------------------------------------
 * Passes and the thread.
 */

/* Serves a waiting reset; false when the thread must stop. */
static bool between_segments(struct aggregator *agg)
{
	bool stop;

	agg_serve_reset(agg);
	pthread_mutex_lock(&agg->lock);
	stop = agg->stop;
	pthread_mutex_unlock(&agg->lock);
	return !stop;
}

/* A pass given up (stop): its snapshots were never published. */
static void discard(struct aggregator *agg, struct published *p)
{
	uint32_t built = agg->built;

	agg->building = NULL;
	agg->built = 0;
	pthread_mutex_lock(&agg->lock);
	for (uint32_t i = 0; i < built; i++) {
		give_back(agg, i, p->segs[i].snap);
		carry_drop(p->segs[i].carry);
	}
	pthread_mutex_unlock(&agg->lock);
	free(p);
}

static void run_pass(struct aggregator *agg)
{
	uint64_t start = agg_clock_ns(CLOCK_MONOTONIC);
	struct published *p = new_result(agg);

	if (!p)
		return;
	agg->building = p;
	agg->built = 0;
	p->start_mono = start;
	for (uint32_t i = 0; i < p->res.nsegments; i++) {
		if (!between_segments(agg)) {
			discard(agg, p);
			return;
		}
		pass_segment(agg, &agg->segs[i], &p->segs[i], room_of(agg, p, i));
		agg->built = i + 1;
	}
	agg->building = NULL;
	agg->built = 0;
	p->res.taken_ns = agg_realtime_now();
	agg->stats.passes++;
	agg->stats.last_duration_us = (uint32_t)((agg_clock_ns(CLOCK_MONOTONIC) - start) / 1000u);
	publish(agg, p);
	agg_carry_save(agg);
}

/* Sleeps until @due_ns (CLOCK_MONOTONIC), a reset request or stop; false on stop. */
/* When the next pass is due: at @due, or sooner for a request that wants one. */
static uint64_t next_pass(const struct aggregator *agg, uint64_t due)
{
	return agg->fresh_wanted && agg->fresh_at < due ? agg->fresh_at : due;
}

static bool wait_for_work(struct aggregator *agg, uint64_t due_ns)
{
	bool stop;

	pthread_mutex_lock(&agg->lock);
	while (!agg->stop && agg->reset.state != RESET_PENDING) {
		uint64_t until = next_pass(agg, due_ns);
		struct timespec at = agg_monotonic_at(until);

		if (agg_clock_ns(CLOCK_MONOTONIC) >= until ||
		    pthread_cond_timedwait(&agg->wake, &agg->lock, &at) != 0)
			break;
	}
	stop = agg->stop;
	pthread_mutex_unlock(&agg->lock);
	return !stop;
}

static bool pass_due(struct aggregator *agg, uint64_t due)
{
	uint64_t until;

	pthread_mutex_lock(&agg->lock);
	until = next_pass(agg, due);
	pthread_mutex_unlock(&agg->lock);
	return agg_clock_ns(CLOCK_MONOTONIC) >= until;
}

/*
 * A pass every interval, from one start to the next; a late one starts at
 * once, and so does the first one of an aggregator that has published none.
 * A request may ask for one sooner (agg_fresh()): it runs once the passes
 * of the last while stay within AGG_CPU_SHARE of a core (fresh_at: the
 * last pass's start plus its duration over that share), and the next
 * periodic pass comes an interval after it.
 */
static void *aggregation_thread(void *arg)
{
	struct aggregator *agg = arg;
	uint64_t due = agg_clock_ns(CLOCK_MONOTONIC) + (agg->current ? agg->interval_ns : 0);

	while (wait_for_work(agg, due)) {
		uint64_t start, now;

		agg_serve_reset(agg);
		if (!pass_due(agg, due))
			continue;
		start = agg_clock_ns(CLOCK_MONOTONIC);
		run_pass(agg);
		now = agg_clock_ns(CLOCK_MONOTONIC);
		pthread_mutex_lock(&agg->lock);
		agg->fresh_at = start + (now - start) * (100 / AGG_CPU_SHARE);
		pthread_mutex_unlock(&agg->lock);
		due = start + agg->interval_ns;
		if (due < now)
			due = now;
	}
	return NULL;
}

void agg_set_max_age(struct aggregator *agg, uint32_t max_age_ms)
{
	agg->max_age_ns = (uint64_t)max_age_ms * 1000000u;
}

bool agg_fresh(struct aggregator *agg)
{
	uint64_t now = agg_clock_ns(CLOCK_MONOTONIC), deadline;
	const struct published *seen;
	struct timespec at;
	bool fresh;

	if (!agg->max_age_ns || !agg->threaded)
		return true;
	pthread_mutex_lock(&agg->lock);
	seen = agg->current;
	fresh = seen && now - seen->start_mono <= agg->max_age_ns;
	/* Waits only when the CPU share lets the thread run a pass before the
	 * deadline: after slow passes (a stuck writer's budget, a huge
	 * segment) the request is served the latest result at once. */
	if (!fresh && seen && agg->fresh_at <= now + agg->max_age_ns) {
		agg->fresh_wanted = true;
		pthread_cond_signal(&agg->wake);
		/* Bounded: at most max_age more, then the latest result serves. */
		deadline = now + agg->max_age_ns;
		at = agg_monotonic_at(deadline);
		while (agg->current == seen && !agg->stop &&
		       pthread_cond_timedwait(&agg->published, &agg->lock, &at) == 0)
			;
		fresh = agg->current != seen;
	}
	pthread_mutex_unlock(&agg->lock);
	return fresh;
}

/* The thread takes no asynchronous signal: SIGHUP and SIGTERM go to the main loop. */
static void block_async_signals(sigset_t *old)
{
	static const int synchronous[] = {SIGBUS,  SIGSEGV, SIGFPE, SIGILL,
	                                  SIGTRAP, SIGSYS,  SIGABRT};
	sigset_t set;

	sigfillset(&set);
	for (size_t i = 0; i < sizeof(synchronous) / sizeof(synchronous[0]); i++)
		sigdelset(&set, synchronous[i]);
	pthread_sigmask(SIG_SETMASK, &set, old);
}

int agg_start(struct aggregator *agg, uint32_t interval_ms, int wake_fd)
{
	sigset_t old;
	int err;

	agg->interval_ns = (uint64_t)interval_ms * 1000000u;
	agg->wake_fd = wake_fd;
	agg->threaded = true;
	block_async_signals(&old);
	err = pthread_create(&agg->thread, NULL, aggregation_thread, agg);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err) {
		agg->threaded = false;
		return errmsg_set(err, "cannot start the aggregation thread: %s", strerror(err));
	}
	return 0;
}

static int init_sync(struct aggregator *agg)
{
	pthread_condattr_t attr;
	int err = pthread_condattr_init(&attr);

	if (!err)
		err = pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	if (!err)
		err = pthread_cond_init(&agg->wake, &attr);
	if (!err)
		err = pthread_cond_init(&agg->done, &attr);
	if (!err)
		err = pthread_cond_init(&agg->published, &attr);
	if (!err)
		err = pthread_mutex_init(&agg->lock, NULL);
	pthread_condattr_destroy(&attr);
	return err;
}

int agg_open(const struct statctr_config *cfg, uid_t owner, bool slot_values,
             struct aggregator **aggp)
{
	struct aggregator *agg = calloc(1, sizeof(*agg));

	*aggp = NULL;
	if (agg)
		agg->segs = calloc(cfg->nsegments ? cfg->nsegments : 1, sizeof(agg->segs[0]));
	if (!agg || !agg->segs || init_sync(agg) != 0) {
		if (agg)
			free(agg->segs);
		free(agg);
		return errmsg_set(ENOMEM, "out of memory");
	}
	agg->cfg = cfg;
	agg->owner = owner;
	agg->slot_values = slot_values;
	agg->wake_fd = -1;
	for (uint32_t i = 0; i < cfg->nsegments; i++) {
		struct seg_watch *st = &agg->segs[i];

		st->decl = &cfg->segments[i];
		st->epoch_room = agg->nroom;
		agg->nroom += st->decl->epoch_keep;
		if (aggepoch_init(&st->epochs, st->decl) < 0) {
			agg_destroy(agg);
			return errmsg_set(ENOMEM, "out of memory");
		}
	}
	*aggp = agg;
	return 0;
}

int agg_first_pass(struct aggregator *agg)
{
	run_pass(agg);
	return agg->current ? 0 : errmsg_set(ENOMEM, "out of memory");
}

int agg_create(const struct statctr_config *cfg, uid_t owner, bool slot_values,
               struct aggregator **aggp)
{
	int err = agg_open(cfg, owner, slot_values, aggp);

	if (err)
		return err;
	err = agg_first_pass(*aggp);
	if (err) {
		agg_destroy(*aggp);
		*aggp = NULL;
	}
	return err;
}

void agg_destroy(struct aggregator *agg)
{
	if (!agg)
		return;
	if (agg->threaded) {
		pthread_mutex_lock(&agg->lock);
		agg->stop = true;
		pthread_cond_signal(&agg->wake);
		pthread_mutex_unlock(&agg->lock);
		pthread_join(agg->thread, NULL);
		agg->threaded = false;
	}
	agg_flush_log(agg);
	free(agg->reset.v); /* a request that timed out before the thread took it */
	if (agg->current)
		agg->current->refs--;
	agg->current = NULL;
	recycle(agg);
	for (uint32_t i = 0; i < agg->cfg->nsegments; i++) {
		statctr_snap_free(agg->segs[i].spare);
		statctr_view_close(agg->segs[i].view);
		aggepoch_fini(&agg->segs[i].epochs);
		carry_drop(agg->segs[i].carry);
		carry_drop(agg->segs[i].next);
	}
	pthread_cond_destroy(&agg->wake);
	pthread_cond_destroy(&agg->done);
	pthread_cond_destroy(&agg->published);
	pthread_mutex_destroy(&agg->lock);
	free(agg->carry_path);
	free(agg->segs);
	free(agg);
}

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
