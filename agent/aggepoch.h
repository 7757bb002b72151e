/*
 * aggepoch.h - a segment's epochs as the aggregation thread handles them
 * (docs/agent.md, "Epochs"): the schedule (epochs = { interval_s }), the
 * starts a SET hands over, and the list and validity a pass publishes.
 *
 * Called by aggregate.c on the aggregation thread only, with the segment's
 * view, which that thread owns.  Never publishes, never logs: a failure
 * returns a negative errno with the cause in errmsg_get().
 */
#ifndef STATCTR_AGENT_AGGEPOCH_H
#define STATCTR_AGENT_AGGEPOCH_H

#include "statctr.h"

#include <stdbool.h>
#include <stdint.h>

/* One kept epoch of a segment, as a pass read it (docs/agent.md, "Epochs"). */
struct agg_epoch {
	uint32_t number;
	bool valid; /* its interval (to the next epoch, or to the snapshot) is exact */
	uint64_t start_ns;
	char name[STATCTR_MAX_EPOCH_NAME + 1];
};

struct aggepoch {
	uint32_t keep;             /* the declaration's epoch_keep; 0: no epochs */
	uint32_t interval_s;       /* the declaration's epoch_interval_s; 0: no schedule */
	statctr_id probe;          /* a counter or histogram cell, whose deltas say validity */
	bool has_probe;            /* false: only gauges, every interval is valid */
	struct statctr_epoch *buf; /* keep entries: statctr_view_epochs()'s */
};

/* For segment @d.  0 or -ENOMEM. */
int aggepoch_init(struct aggepoch *ae, const struct statctr_segment_decl *d);
void aggepoch_fini(struct aggepoch *ae);

/*
 * aggepoch_start() - starts an epoch of @view named @prefix-YYYYMMDDTHHMMSSZ
 * (UTC of @name_ns).  0, or statctr_epoch_start()'s negative errno.
 */
int aggepoch_start(struct statctr_view *view, const char *prefix, uint64_t name_ns);

/*
 * aggepoch_schedule() - with interval_s S: starts an epoch named after the
 * last wall-clock multiple of S at or before @now_ns when the newest kept
 * epoch started before it (or none is kept).  Before the snapshot.
 * 1: started, 0: not due, or a negative errno.
 */
int aggepoch_schedule(struct aggepoch *ae, struct statctr_view *view, uint64_t now_ns);

/*
 * aggepoch_read() - the kept epochs, oldest first, into @room (keep
 * entries), validity not yet known.  Before the snapshot, so that each
 * started at or before it.  Returns how many.
 */
uint32_t aggepoch_read(struct aggepoch *ae, struct statctr_view *view, struct agg_epoch *room);

/*
 * aggepoch_validate() - sets each epoch's valid from @snap (an interval
 * spanning an uncaptured writer restart is not: -ESTALE); returns how many
 * of the @n but the newest are valid.
 */
uint32_t aggepoch_validate(const struct aggepoch *ae, const struct statctr_snap *snap,
                           struct agg_epoch *room, uint32_t n);

#endif /* STATCTR_AGENT_AGGEPOCH_H */
