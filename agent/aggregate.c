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
 * aggregate_int.h: aggreset.c serves resets, aggcarry.c applies carry_over.
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
#include "worker.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

/* The identity of the file at @path, or 0, 0. */
static struct stat file_at(const char *path)
{
	struct stat sb;

	if (lstat(path, &sb) != 0)
		memset(&sb, 0, sizeof(sb));
	return sb;
}

/*
 * Whether the view just opened or followed maps the file st->file_* names,
 * given @before, the path's file before the open: the path named one file
 * throughout (a restart renames a new one into place, so it cannot have
 * come back), and that file is the last generation's.  The mapping keeps
 * the last generation's inode from being reused.
 */
static bool same_file(const struct seg_watch *st, const struct stat *before)
{
	struct stat after = file_at(st->decl->path);

	return before->st_ino != 0 && before->st_ino == after.st_ino &&
	       before->st_dev == after.st_dev && before->st_ino == st->file_ino &&
	       before->st_dev == st->file_dev;
}

/*
 * @before: the identity of the file at the path before the view was opened
 * or followed (see same_file()).
 */
static void note_generation(struct aggregator *agg, struct seg_watch *st, const char *how,
                            const struct stat *before)
{
	struct statctr_seg_info info;
	bool same, in_place;

	st->compatible = layout_matches(st->view, st->decl);
	st->last_error = 0;
	statctr_view_info(st->view, &info);
	/* The generation number changed in the same file: whoever may write
	 * the segment rewrote its header (tests/security/corrupt_live.sh).
	 * Not a restart: a carry for it would add the same counts twice. */
	in_place = info.generation != st->generation && same_file(st, before);
	/* A carry file's generation: the same number and creation time. */
	same = in_place || (info.generation == st->generation &&
	                    (!st->restored || info.created_ns == st->created_ns));
	if (st->adopted && same) {
		st->generations++; /* a reload's (or a restart's) first attach continues */
		st->disc_floor_ns = 0;
	} else if (!same) {
		st->generations++;
		st->disc_floor_ns = 0; /* the new generation's creation is the discontinuity */
		agg_carry_on(agg, st);
	} else {
		/* Back to a generation we dropped: its values may have moved
		 * backwards.  Its writer did not restart after all (a header
		 * that read closed or corrupt was restored): a carry taken from
		 * it for a next generation would count it twice. */
		st->disc_floor_ns = agg_realtime_now();
		how = in_place ? "its header's generation changed in place (a restart makes a new "
		                 "file), reattached to"
		               : "reattached to";
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
	st->file_dev = before->st_dev;
	st->file_ino = before->st_ino;
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
	/* Gone from the path, and no longer mapped: its inode may be reused. */
	st->file_dev = 0;
	st->file_ino = 0;
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
	struct stat before = file_at(st->decl->path);
	int err = statctr_view_open_owned(st->decl->path, agg->owner, &st->view);

	if (err == 0)
		err = statctr_view_set_sums_only(st->view, !agg->slot_values);
	if (err == 0) {
		note_generation(agg, st, "attached to", &before);
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
	struct stat before;
	int err;

	if (!st->view)
		return open_view(agg, st);
	before = file_at(st->decl->path);
	err = statctr_view_refresh(st->view);
	if (err == 1) {
		note_generation(agg, st, "writer restarted, reattached to", &before);
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
			agg_carry_final(agg, st, final);
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
	if (out->snap && st->carry_over)
		agg_carry_bind(agg, st, out->snap);
	if (out->snap && info.status == STATCTR_SEG_GONE) /* taken after its writer died */
		agg_carry_final(agg, st, out->snap);
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
		worker_stop(&agg->lock, &agg->wake, &agg->stop, agg->thread);
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
