/*
 * aggregate.h - the periodic aggregation pass and its published result.
 *
 * One pass attaches to (or follows, or drops) every configured segment,
 * takes one snapshot of each and publishes them together as an immutable
 * struct agg_result.  SNMP requests answer only from the published result,
 * so a walk that fits in one interval sees one aggregation.  The agent is
 * single-threaded: a result stays valid until the next agg_pass() call.
 */
#ifndef STATCTR_AGENT_AGGREGATE_H
#define STATCTR_AGENT_AGGREGATE_H

#include "statctr.h"

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* Values of statctrSegmentStatus in STATCTR-MIB. */
enum agg_status {
	AGG_ACTIVE = 1,       /* attached, writer alive */
	AGG_ABSENT = 2,       /* no segment file (not created yet, or removed) */
	AGG_STALE = 3,        /* present but unreadable: corrupt, truncated, foreign owner */
	AGG_WRITER_GONE = 4,  /* writer died without closing: values are final */
	AGG_INCOMPATIBLE = 5, /* layout differs from the configuration: not served */
};

struct agg_segment {
	const struct statctr_segment_decl *decl;
	enum agg_status status;
	const struct statctr_snap *snap; /* NULL: no values, the rows are absent */
	uint32_t nslots;                 /* writer slots of the snapshot */
	uint32_t busy_slots;             /* slots not read consistently: stuck or dead in a txn */
	pid_t writer_pid;                /* 0 when unknown */
	uint64_t created_ns;             /* CLOCK_REALTIME; 0 when unknown */
	/*
	 * CLOCK_REALTIME of the agent's re-attach to a generation it had to
	 * drop (the file was truncated or overwritten): what it served before
	 * cannot be proved continuous with what it serves now, so every
	 * discontinuity time of the segment is at least this.  0 otherwise.
	 */
	uint64_t disc_floor_ns;
	uint32_t generations; /* generations attached since the agent started */
	bool can_reset;       /* attached, compatible, control file writable */
};

struct agg_result {
	uint64_t taken_ns; /* CLOCK_REALTIME when the pass completed */
	uint32_t nsegments;
	struct agg_segment segs[]; /* configuration order */
};

struct agg_stats {
	uint64_t passes;
	uint32_t last_duration_us;
	uint64_t retries;  /* failed sequence reads, all passes */
	uint64_t busy;     /* slots not read consistently, all passes */
	uint64_t assisted; /* slots copied by their writer on request, all passes */
};

struct aggregator;

/*
 * agg_create() - an aggregator for @cfg (kept by reference); runs a first pass.
 * @owner: the uid every segment and control file must belong to
 * (statctr_view_open_owned()), or (uid_t)-1 to accept any owner.
 */
int agg_create(const struct statctr_config *cfg, uid_t owner, struct aggregator **aggp);
void agg_destroy(struct aggregator *agg);

/* Runs one pass and publishes its result; the previous result is freed. */
void agg_pass(struct aggregator *agg);

/* Runs a pass if a reset asked for one since the last pass. */
void agg_pass_if_due(struct aggregator *agg);

const struct agg_result *agg_result(const struct aggregator *agg);
const struct agg_stats *agg_stats(const struct aggregator *agg);

/*
 * agg_reset() - reset counters @first..@first+@count-1 of segment @seg.
 *
 * Bounded: one statctr_reset_range() (a snapshot and a store of baselines
 * into the control file), no waiting on writers beyond the library's own
 * budget.  Schedules a pass so the next request sees the zeroed values.
 * Returns 0 or a negative errno (cause in agent_errmsg()).
 */
int agg_reset(struct aggregator *agg, uint32_t seg, statctr_id first, uint32_t count);

#endif /* STATCTR_AGENT_AGGREGATE_H */
