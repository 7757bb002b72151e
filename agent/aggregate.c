/*
 * aggregate.c - the aggregation pass: views, snapshots, the published result.
 *
 * Owns one read-only view per configured segment (opened when the segment
 * appears, followed across writer restarts, closed when it goes away or
 * becomes unreadable: truncated, overwritten, owned by someone else) and
 * the result of the latest pass.  Never stores to a segment; stores to a
 * control file only through the library (copy requests, resets).  Logs a
 * segment's changes of state once, not every pass.
 */
#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>

#include "aggregate.h"
#include "agent.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct seg_state {
	const struct statctr_segment_decl *decl;
	struct statctr_view *view; /* NULL while the segment is absent or unreadable */
	bool compatible;           /* the mapped layout matches decl */
	uint32_t generations;
	uint64_t generation;    /* the last one attached, 0 before the first */
	uint64_t disc_floor_ns; /* see struct agg_segment */
	int last_error;         /* last open/snapshot error logged, 0 if none */
	/* The snapshot of two passes ago, unpublished: the next one is taken into it. */
	struct statctr_snap *spare;
};

/* What attach() found. */
enum presence { PRESENT, ABSENT, UNREADABLE };

struct aggregator {
	const struct statctr_config *cfg;
	uid_t owner; /* required owner of the files, (uid_t)-1: any */
	struct seg_state *segs;
	struct agg_result *result;
	struct agg_stats stats;
	bool pass_due;
};

static uint64_t clock_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* @detail comes from the library or the agent; always a %s argument, never a format. */
static void log_error_once(struct seg_state *st, int err, const char *what, const char *detail)
{
	if (st->last_error == err)
		return;
	st->last_error = err;
	snmp_log(LOG_WARNING, "segment %s (%s): %s: %s\n", st->decl->name, st->decl->path, what,
	         detail);
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
		    strcmp(ci.name, td->columns[c].name) != 0 || ci.kind != td->columns[c].kind)
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

static uint64_t realtime_now(void)
{
	return clock_ns(CLOCK_REALTIME);
}

static void note_generation(struct seg_state *st, const char *how)
{
	struct statctr_seg_info info;

	st->compatible = layout_matches(st->view, st->decl);
	st->last_error = 0;
	statctr_view_info(st->view, &info);
	if (info.generation != st->generation) {
		st->generations++;
		st->disc_floor_ns = 0; /* the new generation's creation is the discontinuity */
	} else {
		/* Back to a generation we dropped: its values may have moved backwards. */
		st->disc_floor_ns = realtime_now();
		how = "reattached to";
	}
	st->generation = info.generation;
	snmp_log(LOG_INFO, "segment %s: %s %s (writer pid %d)%s\n", st->decl->name, how,
	         st->decl->path, (int)info.creator_pid,
	         st->compatible ? "" : ": layout differs from the configuration, not served");
}

static void detach(struct seg_state *st, const char *why)
{
	statctr_view_close(st->view);
	st->view = NULL;
	st->last_error = 0;
	snmp_log(LOG_INFO, "segment %s: %s, detached\n", st->decl->name, why);
}

/* The mapping no longer holds a valid segment: drop it; the next pass reopens. */
static void drop(struct seg_state *st, int err, const char *why, const char *detail)
{
	log_error_once(st, err, why, detail);
	statctr_view_close(st->view);
	st->view = NULL;
}

static enum presence open_view(const struct aggregator *agg, struct seg_state *st)
{
	int err = statctr_view_open_owned(st->decl->path, agg->owner, &st->view);

	if (err == 0) {
		note_generation(st, "attached to");
		return PRESENT;
	}
	st->view = NULL;
	if (err == -ENOENT) {
		st->last_error = 0;
		return ABSENT;
	}
	log_error_once(st, err, "cannot open", statctr_errmsg());
	return UNREADABLE;
}

/*
 * Opens, follows or drops the view.  statctr_view_refresh() also notices a
 * file truncated or overwritten in place: such a view is dropped, and the
 * next pass reopens whatever valid segment the path holds by then.
 */
static enum presence attach(const struct aggregator *agg, struct seg_state *st)
{
	int err;

	if (!st->view)
		return open_view(agg, st);
	err = statctr_view_refresh(st->view);
	if (err == 1) {
		note_generation(st, "writer restarted, reattached to");
	} else if (err == -ENOENT) {
		detach(st, "removed");
	} else if (err == -EPROTO || err == -ESTALE || err == -EINVAL) {
		drop(st, err, "corrupt", statctr_errmsg());
		return UNREADABLE;
	} else if (err < 0) {
		log_error_once(st, err, "cannot follow a restart", statctr_errmsg());
	}
	return st->view ? PRESENT : ABSENT;
}

static enum agg_status status_of(enum statctr_seg_status s)
{
	if (s == STATCTR_SEG_STALE)
		return AGG_STALE;
	return s == STATCTR_SEG_GONE ? AGG_WRITER_GONE : AGG_ACTIVE;
}

static void take(struct seg_state *st, struct agg_segment *out, struct agg_stats *stats)
{
	struct statctr_snap *snap = st->spare;
	struct statctr_snap_stats ss;
	int err = statctr_snap_retake(st->view, &snap);

	st->spare = NULL;
	if (err < 0) {
		out->status = AGG_STALE;
		if (err == -ESTALE)
			drop(st, err, "truncated", statctr_errmsg());
		else
			log_error_once(st, err, "snapshot failed", statctr_errmsg());
		return;
	}
	statctr_snap_stats(snap, &ss);
	/* STATCTR-MIB: busy = not read at a transaction boundary, stuck or dead. */
	stats->retries += ss.retries;
	stats->busy += ss.busy_slots + ss.dead_torn_slots;
	stats->assisted += ss.assisted_slots;
	out->snap = snap;
	out->nslots = ss.nslots;
	out->busy_slots = ss.busy_slots + ss.dead_torn_slots;
}

static void pass_segment(const struct aggregator *agg, struct seg_state *st,
                         struct agg_segment *out, struct agg_stats *stats)
{
	struct statctr_seg_info info;
	enum presence presence = attach(agg, st);

	memset(out, 0, sizeof(*out));
	out->decl = st->decl;
	out->generations = st->generations;
	out->status = presence == UNREADABLE ? AGG_STALE : AGG_ABSENT;
	if (presence != PRESENT)
		return;
	statctr_view_info(st->view, &info);
	if (info.status == STATCTR_SEG_CLOSED) {
		detach(st, "closed by its writer");
		return;
	}
	out->writer_pid = info.creator_pid;
	out->created_ns = info.created_ns;
	out->disc_floor_ns = st->disc_floor_ns;
	out->status = st->compatible ? status_of(info.status) : AGG_INCOMPATIBLE;
	if (!st->compatible)
		return;
	take(st, out, stats);
	out->can_reset = st->view && out->snap && info.can_reset;
}

/*
 * Frees a result nobody reads any more; its snapshots become the spares
 * the next pass fills (retaking saves the page faults of fresh buffers).
 */
static void retire_result(struct aggregator *agg, struct agg_result *res)
{
	if (!res)
		return;
	for (uint32_t i = 0; i < res->nsegments; i++) {
		struct statctr_snap *snap = (struct statctr_snap *)res->segs[i].snap;

		if (snap && !agg->segs[i].spare)
			agg->segs[i].spare = snap;
		else
			statctr_snap_free(snap);
	}
	free(res);
}

void agg_pass(struct aggregator *agg)
{
	uint32_t n = agg->cfg->nsegments;
	uint64_t start = clock_ns(CLOCK_MONOTONIC);
	struct agg_result *res = calloc(1, sizeof(*res) + n * sizeof(res->segs[0]));

	agg->pass_due = false;
	if (!res) {
		snmp_log(LOG_ERR, "aggregation pass: out of memory, serving the previous one\n");
		return;
	}
	res->nsegments = n;
	for (uint32_t i = 0; i < n; i++)
		pass_segment(agg, &agg->segs[i], &res->segs[i], &agg->stats);
	res->taken_ns = clock_ns(CLOCK_REALTIME);
	retire_result(agg, agg->result);
	agg->result = res;
	agg->stats.passes++;
	agg->stats.last_duration_us = (uint32_t)((clock_ns(CLOCK_MONOTONIC) - start) / 1000u);
}

void agg_pass_if_due(struct aggregator *agg)
{
	if (agg->pass_due)
		agg_pass(agg);
}

int agg_create(const struct statctr_config *cfg, uid_t owner, struct aggregator **aggp)
{
	struct aggregator *agg = calloc(1, sizeof(*agg));

	*aggp = NULL;
	if (agg)
		agg->segs = calloc(cfg->nsegments ? cfg->nsegments : 1, sizeof(agg->segs[0]));
	if (!agg || !agg->segs) {
		free(agg);
		return agent_seterr(ENOMEM, "out of memory");
	}
	agg->cfg = cfg;
	agg->owner = owner;
	for (uint32_t i = 0; i < cfg->nsegments; i++)
		agg->segs[i].decl = &cfg->segments[i];
	agg_pass(agg);
	if (!agg->result) {
		agg_destroy(agg);
		return agent_seterr(ENOMEM, "out of memory");
	}
	*aggp = agg;
	return 0;
}

void agg_destroy(struct aggregator *agg)
{
	if (!agg)
		return;
	retire_result(agg, agg->result);
	for (uint32_t i = 0; i < agg->cfg->nsegments; i++) {
		statctr_snap_free(agg->segs[i].spare);
		statctr_view_close(agg->segs[i].view);
	}
	free(agg->segs);
	free(agg);
}

const struct agg_result *agg_result(const struct aggregator *agg)
{
	return agg->result;
}

const struct agg_stats *agg_stats(const struct aggregator *agg)
{
	return &agg->stats;
}

int agg_reset(struct aggregator *agg, uint32_t seg, statctr_id first, uint32_t count)
{
	struct seg_state *st;
	int err;

	if (seg >= agg->cfg->nsegments || !agg->segs[seg].view)
		return agent_seterr(ENOENT, "segment is not attached");
	st = &agg->segs[seg];
	err = statctr_reset_range(st->view, first, count);
	if (err < 0)
		return agent_seterr(-err, "segment %s: reset of cells %u..%u: %s", st->decl->name,
		                    first, first + count - 1, statctr_errmsg());
	agg->pass_due = true;
	return 0;
}
