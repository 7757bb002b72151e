/*
 * aggregate.h - the aggregation passes, on their own thread, and the
 * results they publish.
 *
 * One pass attaches to (or follows, or drops) every configured segment,
 * takes one snapshot of each and publishes them together as an immutable
 * struct agg_result.  SNMP requests answer only from a published result,
 * so a walk that fits in one interval sees one aggregation.  After
 * agg_start() the passes run on the aggregator's thread, which alone uses
 * the statctr views; the SNMP (main) thread only takes references to
 * published results and hands resets over.  See docs/agent.md, "Threads".
 */
#ifndef STATCTR_AGENT_AGGREGATE_H
#define STATCTR_AGENT_AGGREGATE_H

#include "aggepoch.h" /* struct agg_epoch */
#include "carry.h"    /* struct agg_carry */
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
	bool slot_values;                /* snap keeps each slot's values: statctrSlotTable */
	uint32_t ncpuslots;              /* its CPU slots, after the shared slot */
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
	uint32_t generations;          /* generations attached since the agent started */
	bool can_reset;                /* attached, compatible, control file writable */
	const struct agg_carry *carry; /* NULL: nothing carried (agg_counter()) */
	/*
	 * The kept epochs, oldest first (numbers ascending), read before the
	 * snapshot was taken, so that every one started at or before it; none
	 * without a snapshot.  Owned by the result.
	 */
	const struct agg_epoch *epochs;
	uint32_t nepochs;
	uint32_t valid_intervals; /* epochs but the newest whose interval is valid */
};

struct agg_stats {
	uint64_t passes;
	uint32_t last_duration_us;
	uint64_t retries;        /* failed sequence reads, all passes */
	uint64_t busy;           /* slots not read consistently, all passes */
	uint64_t assisted;       /* slots copied by their writer on request, all passes */
	uint64_t resets_refused; /* reset SETs refused by the rate limit (agg_reset_admit()) */
};

struct agg_result {
	uint64_t taken_ns;      /* CLOCK_REALTIME when the pass completed */
	struct agg_stats stats; /* as of this result's publication */
	uint32_t nsegments;
	const struct agg_segment *segs; /* configuration order */
};

struct aggregator;

/*
 * agg_open() - an aggregator for @cfg (kept by reference), with no result
 * yet: agg_start() runs its first pass at once.
 * @owner: the uid every segment and control file must belong to
 * (statctr_view_open_owned()), or (uid_t)-1 to accept any owner.
 * @slot_values: take full snapshots, which keep every slot's values (the
 * per-slot table, statctrSlotTable); false: sums-only snapshots
 * (statctr_view_set_sums_only()), which read each slot once into the sums
 * and hold 4 values per cell instead of slots + 4.
 * Returns 0 or a negative errno (cause in errmsg_get()).
 */
int agg_open(const struct statctr_config *cfg, uid_t owner, bool slot_values,
             struct aggregator **aggp);

/* agg_first_pass() - a pass in the calling thread, before agg_start(): ready on return. */
int agg_first_pass(struct aggregator *agg);

/* agg_create() - agg_open(), then agg_first_pass(). */
int agg_create(const struct statctr_config *cfg, uid_t owner, bool slot_values,
               struct aggregator **aggp);

/*
 * agg_start() - run a pass every @interval_ms on the aggregator's own
 * thread from now on.  @wake_fd (non-blocking, or -1) gets a byte whenever
 * the thread has queued log lines for agg_flush_log(), and whenever it
 * publishes a result.  Returns 0 or a negative errno (cause in
 * errmsg_get()).
 */
int agg_start(struct aggregator *agg, uint32_t interval_ms, int wake_fd);

/* Whether a result is published: agg_acquire() needs one.  Any thread. */
bool agg_ready(struct aggregator *agg);

/*
 * agg_destroy() - stop and join the thread (it gives up a pass between two
 * segments: at most one snapshot's budget, about 1 s), log what it queued,
 * free everything.  No result may still be held (agg_acquire()).
 */
void agg_destroy(struct aggregator *agg);

/*
 * agg_acquire() - a reference to the latest published result (the
 * aggregator must be ready), valid until agg_release().  Never waits for a
 * pass (a mutex held for a few pointer updates).  Any thread.
 */
const struct agg_result *agg_acquire(struct aggregator *agg);

/* Drops a reference from agg_acquire(); the aggregator recycles the result. */
void agg_release(const struct agg_result *res);

/*
 * agg_result() - the latest published result, without a reference: only
 * for a single-threaded user that never called agg_start() (the result is
 * valid until agg_destroy()).
 */
const struct agg_result *agg_result(const struct aggregator *agg);

/*
 * agg_flush_log() - log (snmp_log(), so the Net-SNMP thread only) the
 * lines the aggregator's thread queued, and how many were dropped.
 */
void agg_flush_log(struct aggregator *agg);

/*
 * One reset of counters @first..@first+@count-1 of segment @seg, or, with
 * @epoch, an epoch start of segment @seg (count 0): a SET hands both over
 * alike (docs/agent.md, "Epochs").
 */
struct agg_reset {
	uint32_t seg;
	statctr_id first;
	uint32_t count;
	bool epoch;
};

/*
 * agg_reset() - the resets @v[0..@n-1] (one SET PDU's, in any order, any
 * segments), done as one step per segment: their ranges merged into one
 * statctr_reset_ranges() call, then the segment's epoch start if one is
 * asked (statctr_epoch_start(), named snmp-<UTC time>), one snapshot, which
 * the thread then publishes, so the next request sees the zeroed values
 * and the new epoch.
 *
 * Handed to the aggregator's thread (the owner of the views; agg_start()
 * must have been called), which runs it between two segments of a pass.
 * Waits at most AGG_RESET_WAIT_MS for it, so a SET PDU, whatever it holds,
 * is answered within that: half of snmpd's default agentXTimeout (1 s,
 * conf/snmpd.conf), so the answer reaches the master before it gives up.
 * Returns 0 once every segment's reset is published, -ETIMEDOUT when it
 * could not start in time (nothing was done), -EINPROGRESS when it started
 * but did not finish in time (its outcome is logged later), or the
 * library's negative errno of the first segment that failed; the cause is
 * in errmsg_get().
 */
#define AGG_RESET_WAIT_MS 500
int agg_reset(struct aggregator *agg, const struct agg_reset *v, uint32_t n);

/*
 * agg_reset_admit() - may a SET reset segment @seg now?  The rate limit,
 * per segment (docs/agent.md, "The reset rate limit"): at most
 * AGG_RESET_RATE reset PDUs per second (a burst of as many), and reset work
 * (the time its resets took) of at most a fifth of the time elapsed, with a
 * burst of AGG_RESET_BUDGET_MS: a small segment's resets are limited by
 * their number, a large one's by their cost.  Checked when a SET is
 * validated; a PDU that resets a segment takes one token when it commits,
 * and its reset's duration from the budget.  Returns 0, or -EAGAIN
 * (counted in resets_refused).
 */
#define AGG_RESET_RATE      10
#define AGG_RESET_BUDGET_MS 1000
int agg_reset_admit(struct aggregator *agg, uint32_t seg);

/*
 * agg_row_discontinuity() - CLOCK_REALTIME of the latest discontinuity
 * among cells @first..@first+@ncolumns-1 of @as (a declared row: any of
 * them resets the row's story), never before the segment's floor.
 */
uint64_t agg_row_discontinuity(const struct agg_segment *as, statctr_id first, uint32_t ncolumns);

/*
 * agg_counter() - counter @id of @as as served: the snapshot's count plus
 * what the segment's earlier generations counted (carry_over).
 * agg_discontinuity() - its discontinuity time: moved by a reset, a row's
 * new incarnation, or a writer restart whose final counts the agent did
 * not see; not by a restart it carried over.
 */
uint64_t agg_counter(const struct agg_segment *as, statctr_id id);
uint64_t agg_discontinuity(const struct agg_segment *as, statctr_id id);

/*
 * Histogram @id of @as as served, each value with what the segment's
 * earlier generations recorded (carry_over), as agg_counter():
 * agg_hist_cumulative() - the values at most bucket @b's bound (0..nbuckets;
 * nbuckets: +Inf, the count); agg_hist_count() - the values recorded;
 * agg_hist_sum() - their sum, mod 2^64.  Its discontinuity time is
 * agg_discontinuity() of @id.
 */
uint64_t agg_hist_cumulative(const struct agg_segment *as, statctr_id id, uint32_t b);
uint64_t agg_hist_count(const struct agg_segment *as, statctr_id id);
uint64_t agg_hist_sum(const struct agg_segment *as, statctr_id id);

/*
 * agg_set_max_age() - agent.max_age_ms (0: off), before agg_start().
 * agg_fresh() - makes the current result at most max_age old, as far as
 * AGG_CPU_SHARE allows: when it is older, asks the thread for a pass now
 * and waits for it at most max_age (docs/agent.md, "Fresh values").
 * SNMP thread, before agg_acquire(); true when the result is fresh.
 * AGG_CPU_SHARE: the percent of a core that passes asked for by requests
 * may bring the passes to, at most.
 */
#define AGG_CPU_SHARE 1
void agg_set_max_age(struct aggregator *agg, uint32_t max_age_ms);
bool agg_fresh(struct aggregator *agg);

/*
 * agg_set_carry_over() - which segments carry their counts over writer
 * restarts (@on[i] for segment i; the segment setting carry_over).  Before
 * agg_start().  agg_adopt_carry() - @agg (not started yet) continues
 * @old's carried counts (a SIGHUP's new configuration), segment by name.
 * Returns 0 or -ENOMEM (said).
 */
void agg_set_carry_over(struct aggregator *agg, const bool *on);
int agg_adopt_carry(struct aggregator *agg, struct aggregator *old);

/*
 * agg_keep_carry() - keeps the carry in @state_file with ".carry" appended
 * (carry.h; NULL: nowhere), written by the thread after each change; with
 * @load (an agent's start, before agg_first_pass()), continues what the
 * file holds: a segment's carry only for the same declaration and the same
 * generation (or, moving the discontinuity times, the one after it).  With
 * no file, a file refused (logged) or a record it cannot trust, the first
 * attach of each carry_over segment moves its counters' discontinuity
 * times (docs/agent.md, "Counters across writer restarts").  After
 * agg_set_carry_over().  Returns 0 or -ENOMEM (said).
 */
int agg_keep_carry(struct aggregator *agg, const char *state_file, bool load);

#endif /* STATCTR_AGENT_AGGREGATE_H */
