/*
 * aggepoch.c - a segment's epochs on the aggregation thread: the schedule,
 * starts, and the list a pass publishes with its validity.
 *
 * Owns the names the agent gives epochs (prefix-YYYYMMDDTHHMMSSZ, UTC) and
 * the schedule's rule: an epoch per wall-clock multiple of interval_s,
 * started by the first pass after it.  Never publishes and never logs
 * (aggregate.c does both); never stores anything but through
 * statctr_epoch_start().
 */
#include "aggepoch.h"
#include "agent.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NS_PER_S 1000000000ull

int aggepoch_init(struct aggepoch *ae, const struct statctr_segment_decl *d)
{
	memset(ae, 0, sizeof(*ae));
	ae->keep = d->epoch_keep;
	ae->interval_s = d->epoch_interval_s;
	if (!ae->keep)
		return 0;
	ae->buf = calloc(ae->keep, sizeof(*ae->buf));
	if (!ae->buf)
		return errmsg_set(ENOMEM, "out of memory");
	for (uint32_t t = 0; t < d->ntables && !ae->has_probe; t++)
		for (uint32_t c = 0; c < d->tables[t].ncolumns && !ae->has_probe; c++)
			if (d->tables[t].nrows &&
			    d->tables[t].columns[c].kind != STATCTR_KIND_GAUGE) {
				ae->probe = d->tables[t].first_cell + c;
				ae->has_probe = true;
			}
	return 0;
}

void aggepoch_fini(struct aggepoch *ae)
{
	free(ae->buf);
	ae->buf = NULL;
}

int aggepoch_start(struct statctr_view *view, const char *prefix, uint64_t name_ns)
{
	time_t secs = (time_t)(name_ns / NS_PER_S);
	struct tm tm;
	char name[STATCTR_MAX_EPOCH_NAME + 1];
	int err;

	gmtime_r(&secs, &tm);
	snprintf(name, sizeof(name), "%s-%04d%02d%02dT%02d%02d%02dZ", prefix, tm.tm_year + 1900,
	         tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
	err = statctr_epoch_start(view, name, NULL);
	if (err < 0)
		return errmsg_set(-err, "epoch start %s: %s", name, statctr_errmsg());
	return 0;
}

int aggepoch_schedule(struct aggepoch *ae, struct statctr_view *view, uint64_t now_ns)
{
	uint64_t period = (uint64_t)ae->interval_s * NS_PER_S, boundary;
	uint32_t n;
	int err;

	if (!ae->keep || !ae->interval_s)
		return 0;
	boundary = now_ns - now_ns % period;
	n = statctr_view_epochs(view, ae->buf, ae->keep);
	if (n > ae->keep)
		n = ae->keep;
	if (n && ae->buf[n - 1].start_ns >= boundary)
		return 0;
	err = aggepoch_start(view, "interval", boundary);
	return err < 0 ? err : 1;
}

uint32_t aggepoch_read(struct aggepoch *ae, struct statctr_view *view, struct agg_epoch *room)
{
	uint32_t n;

	if (!ae->keep)
		return 0;
	n = statctr_view_epochs(view, ae->buf, ae->keep);
	if (n > ae->keep)
		n = ae->keep;
	for (uint32_t i = 0; i < n; i++) {
		room[i] = (struct agg_epoch){.number = ae->buf[i].number,
		                             .start_ns = ae->buf[i].start_ns};
		memcpy(room[i].name, ae->buf[i].name, sizeof(room[i].name) - 1);
	}
	return n;
}

uint32_t aggepoch_validate(const struct aggepoch *ae, const struct statctr_snap *snap,
                           struct agg_epoch *room, uint32_t n)
{
	uint32_t valid = 0;

	for (uint32_t i = 0; i < n; i++) {
		uint64_t delta;
		uint32_t to = i + 1 < n ? room[i + 1].number : 0;

		room[i].valid =
		    !ae->has_probe || statctr_snap_epoch_delta(snap, ae->probe, room[i].number, to,
		                                               &delta) != -ESTALE;
		if (room[i].valid && i + 1 < n)
			valid++;
	}
	return valid;
}
