/*
 * aggregate_int.h - what aggregate.c and its parts (aggreset.c,
 * aggcarry.c) share; never included outside them.
 *
 * The aggregator's state, each segment's watch and a published result, and
 * the few functions one of these files calls in another.  Who may touch which
 * field when is aggregate.c's top comment (THREADS).
 */
#ifndef STATCTR_AGGREGATE_INT_H
#define STATCTR_AGGREGATE_INT_H

#include "aggepoch.h"
#include "aggregate.h"
#include "statctr.h"

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

/* What the pass knows of one declared segment: its mapping, its spare
 * snapshot and its reset budget. */
struct seg_watch {
	const struct statctr_segment_decl *decl;
	struct statctr_view *view; /* NULL while the segment is absent or unreadable */
	bool compatible;           /* the mapped layout matches decl */
	uint32_t generations;
	uint64_t generation;        /* the last one attached, 0 before the first */
	uint64_t disc_floor_ns;     /* see struct agg_segment */
	int last_error;             /* last open/snapshot error logged, 0 if none */
	struct statctr_snap *spare; /* referenced by no result: the next take fills it */
	bool fresh;                 /* spare was just taken by a reset: take() uses it as is */
	/* The reset rate limit (agg_reset_admit()), under agg->lock. */
	double tokens;      /* reset PDUs: AGG_RESET_RATE per second, as many at most */
	double budget_ms;   /* reset work: AGG_RESET_BUDGET_MS, a fifth of the time refilled */
	uint64_t refill_ns; /* CLOCK_MONOTONIC of the last refill; 0: full */

	/* Its epochs (the thread's), and where a result keeps them in its room. */
	struct aggepoch epochs;
	size_t epoch_room;
	uint64_t captured;  /* the generation whose final counts went to the epoch file; 0: none */
	uint64_t told_gone; /* the generation whose writer's death was logged; 0: none */

	/* carry_over (docs/agent.md, "Counters across writer restarts"). */
	bool carry_over;
	bool adopted;        /* generation and carry from a reload: the first attach continues */
	bool restored;       /* ... from the carry file: the agent was not running in between */
	const char *doubt;   /* the first attach doubts the carry, because of this; NULL: not */
	uint64_t created_ns; /* of generation */
	/* The file of generation (note_generation()): a new generation is a new
	 * file, so a generation number that changed in the same file is its
	 * header rewritten in place, not a restart.  0, 0: not known. */
	dev_t file_dev;
	ino_t file_ino;
	struct agg_carry *carry; /* what generation's results add (one reference); NULL: none */
	struct agg_carry
	    *next; /* the next generation's, from this one's final counts; NULL: unseen */
};

struct published {
	struct published *next; /* agg->results */
	struct aggregator *agg;
	unsigned refs;       /* under agg->lock */
	uint64_t start_mono; /* CLOCK_MONOTONIC when its pass started: its age (agg_fresh()) */
	struct agg_result res;
	struct agg_epoch *room; /* after segs: each segment's keep, at its epoch_room */
	struct agg_segment segs[];
};

/* A reset's way (aggreset.c): PENDING -> RUNNING -> DONE -> IDLE. */
enum reset_state { RESET_IDLE, RESET_PENDING, RESET_RUNNING, RESET_DONE };

struct reset_request {
	enum reset_state state;
	bool abandoned; /* agg_reset() stopped waiting while RUNNING: the thread logs the outcome */
	struct agg_reset *v; /* malloc()ed; the thread frees it */
	uint32_t n;
	int err;
	char msg[512];
};

#define LOG_LINES   64
#define LOG_LINE_SZ 1024

struct log_queue {
	unsigned head, len, dropped;
	struct {
		int priority;
		char text[LOG_LINE_SZ];
	} lines[LOG_LINES];
};

struct aggregator {
	const struct statctr_config *cfg;
	uid_t owner;      /* required owner of the files, (uid_t)-1: any */
	bool slot_values; /* full snapshots (else sums only): agg_open() */
	struct seg_watch *segs;
	/* The aggregation thread's (the creator's before agg_start()). */
	struct agg_stats stats;
	struct published *building; /* the pass in progress, NULL between passes */
	uint32_t built;             /* segments of building taken so far */
	uint64_t interval_ns;
	int wake_fd;
	size_t nroom; /* agg_epoch entries a result holds: the sum of every keep */
	/* Written before pthread_create() and after pthread_join() only. */
	bool threaded;
	pthread_t thread;
	/* Shared, under lock. */
	pthread_mutex_t lock;
	pthread_cond_t wake;      /* the thread: a reset request, or stop */
	pthread_cond_t done;      /* agg_reset(): the request moved on */
	pthread_cond_t published; /* agg_fresh(): a new result */
	/*
	 * agg_fresh(): a request found the result older than max_age_ns and
	 * wants a pass now (under lock); the thread runs one once the passes
	 * stay within AGG_CPU_SHARE of a core (fresh_at, the thread's).
	 */
	uint64_t max_age_ns;
	bool fresh_wanted;
	uint64_t fresh_at;
	struct published *current;
	struct published *results; /* every published result not recycled yet */
	bool stop;
	struct reset_request reset;
	uint64_t refused; /* agg_reset_admit()'s refusals */
	struct log_queue log;
	/* STATE_FILE.carry (carry.h), the thread's: written after a change. */
	char *carry_path; /* NULL: the carry lives as long as the process */
	bool carry_dirty;
	int carry_err; /* the last write's outcome, logged when it changes */
};

/* Clocks, in nanoseconds. */
uint64_t agg_clock_ns(clockid_t clock);
uint64_t agg_realtime_now(void);
struct timespec agg_monotonic_at(uint64_t ns);

/* A line for Net-SNMP's log: straight in the creator's thread, queued in the
 * aggregation thread's (agg_flush_log()). */
void agg_log(struct aggregator *agg, int priority, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* aggregate.c: publishes the current result with segment @seg taken again. */
void agg_refresh_segment(struct aggregator *agg, uint32_t seg);
/* aggcarry.c: a writer gone or closed: @snap, its final counts, make the
 * next generation's carry. */
void agg_carry_final(struct aggregator *agg, struct seg_watch *st, const struct statctr_snap *snap);
/* aggcarry.c: the dynamic rows of @snap bound to the counts their names carry. */
void agg_carry_bind(struct aggregator *agg, struct seg_watch *st, const struct statctr_snap *snap);
/* aggcarry.c: a new generation continues the counts of the one before. */
void agg_carry_on(struct aggregator *agg, struct seg_watch *st);
/* aggcarry.c: the carry of @st with the cells of @r (@n ranges) zeroed. */
void agg_carry_reset(struct aggregator *agg, struct seg_watch *st, const struct statctr_range *r,
                     uint32_t n);
/* aggcarry.c: STATE_FILE.carry written, if it changed. */
void agg_carry_save(struct aggregator *agg);

/* aggreset.c: serves the waiting reset request, if any (the thread's). */
void agg_serve_reset(struct aggregator *agg);

#endif /* STATCTR_AGGREGATE_INT_H */
