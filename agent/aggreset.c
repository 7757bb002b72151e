/*
 * aggreset.c - resets, served by the aggregation thread (aggregate_int.h).
 *
 * Owns the reset request and each segment's reset rate limit.  One request
 * at a time comes from agg_reset(), a SET PDU's resets (and epoch starts);
 * the thread serves it between two segments of a pass (the views are the
 * thread's), one statctr_reset_ranges() per segment, and publishes each
 * segment again at once (agg_refresh_segment()).  A request's way:
 *
 *   PENDING (agg_reset() waits) -> RUNNING (the thread resets and
 *   publishes, segment by segment) -> DONE, collected by agg_reset(),
 *   which makes it IDLE.
 *
 * A request agg_reset() stopped waiting for is made IDLE by the thread
 * itself, which logs its outcome.  The request and the rate limit
 * (agg_reset_admit(): tokens per second, and a budget of reset work) are
 * under agg->lock.  Never publishes but through aggregate.c, never calls
 * Net-SNMP (its log lines go through agg_log()).
 */
#include "aggepoch.h"
#include "aggregate_int.h"
#include "agent.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

static int by_segment_then_first(const void *a, const void *b)
{
	const struct agg_reset *x = a, *y = b;

	if (x->seg != y->seg)
		return (x->seg > y->seg) - (x->seg < y->seg);
	return (x->first > y->first) - (x->first < y->first);
}

/*
 * The ranges of segment @v[0].seg (v sorted, @n of that segment), overlaps
 * merged; *@epoch: one of them asks for an epoch start instead.
 */
static uint32_t merge_ranges(const struct agg_reset *v, uint32_t n, struct statctr_range *out,
                             bool *epoch)
{
	uint32_t m = 0;

	*epoch = false;
	for (uint32_t i = 0; i < n; i++) {
		uint64_t end = (uint64_t)v[i].first + v[i].count;

		if (v[i].epoch) {
			*epoch = true;
			continue;
		}
		if (m > 0 && v[i].first <= (uint64_t)out[m - 1].first + out[m - 1].count) {
			uint64_t last = (uint64_t)out[m - 1].first + out[m - 1].count;

			if (end > last)
				out[m - 1].count = (uint32_t)(end - out[m - 1].first);
			continue;
		}
		out[m++] = (struct statctr_range){v[i].first, v[i].count};
	}
	return m;
}

/* A SET's epoch start of @st, named after now. */
static int start_epoch(struct seg_watch *st, char *msg, size_t size)
{
	int err = aggepoch_start(st->view, "snmp", agg_realtime_now());

	if (err < 0)
		snprintf(msg, size, "segment %s: %s", st->decl->name, errmsg_get());
	return err;
}

/*
 * One segment's resets, one statctr_reset_ranges(): its snapshot, taken
 * into the spare, is what the refresh publishes (no second read of the
 * slots).  Its cost comes off the segment's reset budget (agg_reset_admit()),
 * long (agg_reset_admit()).
 */
static int reset_segment(struct aggregator *agg, const struct agg_reset *v, uint32_t n,
                         struct statctr_range *ranges, char *msg, size_t size)
{
	struct seg_watch *st = &agg->segs[v[0].seg];
	uint64_t start = agg_clock_ns(CLOCK_MONOTONIC), cost;
	bool epoch;
	uint32_t m = merge_ranges(v, n, ranges, &epoch);
	int err = 0;

	if (!st->view) {
		snprintf(msg, size, "segment %s is not attached", st->decl->name);
		return -ENOENT;
	}
	if (m)
		err = statctr_reset_ranges(st->view, ranges, m, &st->spare);
	if (m && err >= 0)
		agg_carry_reset(agg, st, ranges, m);
	if (err >= 0 && epoch)
		err = start_epoch(st, msg, size);
	else if (err < 0)
		snprintf(msg, size, "segment %s: reset of %u ranges (cells %u..%u first): %s",
		         st->decl->name, m, ranges[0].first, ranges[0].first + ranges[0].count - 1,
		         statctr_errmsg());
	cost = agg_clock_ns(CLOCK_MONOTONIC) - start;
	pthread_mutex_lock(&agg->lock);
	st->budget_ms -= (double)cost / 1e6;
	pthread_mutex_unlock(&agg->lock);
	if (err < 0)
		return err;
	/* A reset's own snapshot is from before an epoch started after it. */
	st->fresh = m && !epoch;
	agg_refresh_segment(agg, v[0].seg);
	return 0;
}

/* Every segment of @rq, in turn; the first error is the request's. */
static int do_reset(struct aggregator *agg, struct reset_request *rq, char *msg, size_t size)
{
	struct statctr_range *ranges = malloc(rq->n * sizeof(*ranges));
	int first_err = 0;

	if (!ranges) {
		snprintf(msg, size, "out of memory for %u resets", rq->n);
		return -ENOMEM;
	}
	qsort(rq->v, rq->n, sizeof(*rq->v), by_segment_then_first);
	for (uint32_t i = 0, j; i < rq->n; i = j) {
		char why[sizeof(rq->msg)];
		int err;

		for (j = i; j < rq->n && rq->v[j].seg == rq->v[i].seg; j++)
			;
		err = reset_segment(agg, &rq->v[i], j - i, ranges, why, sizeof(why));
		if (err < 0 && first_err == 0) {
			first_err = err;
			snprintf(msg, size, "%s", why);
		}
	}
	free(ranges);
	return first_err;
}

/* A reset agg_reset() stopped waiting for: its outcome goes to the log. */
static void log_abandoned(struct aggregator *agg, uint32_t n, int err, const char *msg)
{
	if (err < 0)
		agg_log(agg, LOG_ERR, "reset after its SET timed out: %s\n", msg);
	else
		agg_log(agg, LOG_WARNING, "%u resets completed after their SET timed out\n", n);
}

/* The request's last move: DONE for agg_reset() to collect, or IDLE if it left. */
static void finish_reset(struct aggregator *agg, int err, const char *msg)
{
	struct reset_request *rq = &agg->reset;
	bool abandoned;
	uint32_t n = rq->n;

	pthread_mutex_lock(&agg->lock);
	rq->err = err;
	snprintf(rq->msg, sizeof(rq->msg), "%s", msg);
	abandoned = rq->abandoned;
	rq->state = abandoned ? RESET_IDLE : RESET_DONE;
	free(rq->v);
	rq->v = NULL;
	pthread_cond_broadcast(&agg->done);
	pthread_mutex_unlock(&agg->lock);
	if (abandoned)
		log_abandoned(agg, n, err, msg);
}

/*
 * The waiting request, if any.  Once RUNNING the request is the thread's
 * alone (agg_reset() only reads its state) until finish_reset().
 */
void agg_serve_reset(struct aggregator *agg)
{
	struct reset_request *rq = &agg->reset;
	char msg[sizeof(rq->msg)] = "";
	int err;

	pthread_mutex_lock(&agg->lock);
	if (rq->state != RESET_PENDING) {
		pthread_mutex_unlock(&agg->lock);
		return;
	}
	rq->state = RESET_RUNNING;
	pthread_mutex_unlock(&agg->lock);
	err = do_reset(agg, rq, msg, sizeof(msg));
	finish_reset(agg, err, msg);
	agg_carry_save(agg); /* what the resets zeroed, before an agent restart could revive it */
}

/* Under agg->lock, once the wait is over. */
static int reset_outcome(struct reset_request *rq)
{
	switch (rq->state) {
	case RESET_PENDING:
		rq->state = RESET_IDLE;
		free(rq->v);
		rq->v = NULL;
		return errmsg_set(ETIMEDOUT,
		                  "%u resets not started within %d ms (aggregation "
		                  "busy)",
		                  rq->n, AGG_RESET_WAIT_MS);
	case RESET_RUNNING:
		rq->abandoned = true;
		return errmsg_set(EINPROGRESS,
		                  "%u resets still running after %d ms; their outcome will be "
		                  "logged",
		                  rq->n, AGG_RESET_WAIT_MS);
	default: /* RESET_DONE */
		rq->state = RESET_IDLE;
		return rq->err < 0 ? errmsg_set(-rq->err, "%s", rq->msg) : 0;
	}
}

static double at_most(double v, double max)
{
	return v > max ? max : v;
}

/*
 * Under agg->lock: @st's tokens refilled at AGG_RESET_RATE per second, up to
 * as many, and its budget at a fifth of the time elapsed, up to
 * AGG_RESET_BUDGET_MS.
 */
static void refill(struct seg_watch *st, uint64_t now)
{
	double s = (double)(now - st->refill_ns) / 1e9;

	if (st->refill_ns == 0) {
		st->tokens = AGG_RESET_RATE;
		st->budget_ms = AGG_RESET_BUDGET_MS;
	} else {
		st->tokens = at_most(st->tokens + s * AGG_RESET_RATE, AGG_RESET_RATE);
		st->budget_ms = at_most(st->budget_ms + s * 1000.0 / 5, AGG_RESET_BUDGET_MS);
	}
	st->refill_ns = now;
}

int agg_reset_admit(struct aggregator *agg, uint32_t seg)
{
	uint64_t now = agg_clock_ns(CLOCK_MONOTONIC);
	struct seg_watch *st;
	bool ok;

	if (seg >= agg->cfg->nsegments)
		return errmsg_set(ENOENT, "no segment %u", seg);
	st = &agg->segs[seg];
	pthread_mutex_lock(&agg->lock);
	refill(st, now);
	ok = st->tokens >= 1.0 && st->budget_ms > 0;
	if (!ok)
		agg->refused++;
	pthread_mutex_unlock(&agg->lock);
	if (ok)
		return 0;
	return errmsg_set(EAGAIN,
	                  "segment %s: reset refused by the rate limit (%d per second, and "
	                  "resets may take a fifth of the time: %.0f ms of reset work left)",
	                  st->decl->name, AGG_RESET_RATE, st->budget_ms);
}

/* Under agg->lock: one token of each segment @v names (sorted or not: each once). */
static void consume_tokens(struct aggregator *agg, const struct agg_reset *v, uint32_t n)
{
	uint64_t now = agg_clock_ns(CLOCK_MONOTONIC);

	for (uint32_t i = 0; i < n; i++) {
		bool seen = false;

		for (uint32_t j = 0; j < i && !seen; j++)
			seen = v[j].seg == v[i].seg;
		if (!seen) {
			refill(&agg->segs[v[i].seg], now);
			agg->segs[v[i].seg].tokens -= 1.0;
		}
	}
}

int agg_reset(struct aggregator *agg, const struct agg_reset *v, uint32_t n)
{
	struct timespec deadline =
	    agg_monotonic_at(agg_clock_ns(CLOCK_MONOTONIC) + AGG_RESET_WAIT_MS * 1000000ull);
	struct reset_request *rq = &agg->reset;
	struct agg_reset *copy;
	int err;

	for (uint32_t i = 0; i < n; i++)
		if (v[i].seg >= agg->cfg->nsegments)
			return errmsg_set(ENOENT, "no segment %u", v[i].seg);
	copy = malloc((n ? n : 1) * sizeof(*copy));
	if (!copy)
		return errmsg_set(ENOMEM, "out of memory for %u resets", n);
	memcpy(copy, v, n * sizeof(*copy));
	pthread_mutex_lock(&agg->lock);
	while (rq->state != RESET_IDLE &&
	       pthread_cond_timedwait(&agg->done, &agg->lock, &deadline) == 0)
		;
	if (rq->state != RESET_IDLE) {
		pthread_mutex_unlock(&agg->lock);
		free(copy);
		return errmsg_set(EBUSY, "an earlier reset is still running");
	}
	consume_tokens(agg, v, n);
	*rq = (struct reset_request){.state = RESET_PENDING, .v = copy, .n = n};
	pthread_cond_signal(&agg->wake);
	while (rq->state != RESET_DONE &&
	       pthread_cond_timedwait(&agg->done, &agg->lock, &deadline) == 0)
		;
	err = reset_outcome(rq);
	pthread_mutex_unlock(&agg->lock);
	return err;
}
